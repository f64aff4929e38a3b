/*
 * test/encode/enc_common.h: helpers of the encode tests (sim transport):
 * run one encode on K virtual ranks, read/write field elements, serial
 * reference y = x A, measured C1/C2 from the sim.
 */
#ifndef LC_TEST_ENC_COMMON_H
#define LC_TEST_ENC_COMMON_H

#include <lincoll/encode.h>
#include <lincoll/lincoll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sim_harness.h"

static inline uint64_t enc_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static inline uint64_t enc_get(const void *buf, size_t es, size_t i)
{
    const uint8_t *b = (const uint8_t *)buf + i * es;
    switch (es) {
    case 1:
        return b[0];
    case 2: {
        uint16_t v;
        memcpy(&v, b, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, b, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, b, 8);
        return v;
    }
    }
}

static inline void enc_put(void *buf, size_t es, size_t i, uint64_t v)
{
    uint8_t *b = (uint8_t *)buf + i * es;
    switch (es) {
    case 1:
        b[0] = (uint8_t)v;
        break;
    case 2: {
        uint16_t w = (uint16_t)v;
        memcpy(b, &w, 2);
        break;
    }
    case 4: {
        uint32_t w = (uint32_t)v;
        memcpy(b, &w, 4);
        break;
    }
    default:
        memcpy(b, &v, 8);
    }
}

/* init callback: compile rank r's plan */
typedef lincoll_status_t (*enc_init_fn)(lincoll_comm_t *comm, int r, const void *in, void *out,
                                        void *arg, lincoll_plan_t **plan);

typedef struct enc_run {
    unsigned c1;              /* measured rounds (sim) */
    uint64_t c2_bytes;        /* measured sum of per-round largest messages */
    lincoll_plan_stats_t st0; /* rank 0's plan stats (algorithm: see algo) */
    char algo[32];            /* rank 0's plan algorithm name */
    lincoll_status_t init_st; /* first init failure */
    lincoll_status_t run_st;
    unsigned long long max_round_bytes[64];
    uint64_t bytes_total, msgs_total; /* sent by all ranks in the measured start */
} enc_run_t;

/* Compile on K virtual ranks, run `starts` times, measure the last start. */
static inline int enc_run(int K, int ports, uint8_t **in, uint8_t **out, enc_init_fn fn, void *arg,
                          int starts, enc_run_t *res)
{
    lc_simh_t h;
    memset(res, 0, sizeof(*res));
    if (lc_simh_create(&h, K, ports) != 0) return -1;
    lincoll_plan_t **plans = calloc((size_t)K, sizeof(*plans));
    for (int r = 0; r < K; r++) {
        lincoll_status_t st =
            fn(h.comm[r], r, in ? in[r] : NULL, out ? out[r] : NULL, arg, &plans[r]);
        if (st != LINCOLL_OK && res->init_st == LINCOLL_OK) res->init_st = st;
    }
    if (res->init_st == LINCOLL_OK) {
        for (int s = 0; s < starts && res->run_st == LINCOLL_OK; s++) {
            lc_sim_world_reset_stats(h.world);
            res->run_st = lc_simh_run(&h, plans);
        }
        res->c1 = lc_sim_world_rounds(h.world);
        for (unsigned t = 0; t < res->c1; t++) {
            uint64_t mb = lc_sim_world_round(h.world, t).max_bytes;
            res->c2_bytes += mb;
            if (t < 64) res->max_round_bytes[t] = mb;
        }
        for (int r = 0; r < K; r++) {
            uint64_t ms, bs, mr, br;
            lc_sim_world_rank_stats(h.world, r, &ms, &bs, &mr, &br);
            res->bytes_total += bs;
            res->msgs_total += ms;
        }
        lincoll_plan_stats(plans[0], &res->st0);
        snprintf(res->algo, sizeof(res->algo), "%s", res->st0.algorithm);
    }
    for (int r = 0; r < K; r++)
        lincoll_plan_free(plans[r]);
    free(plans);
    lc_simh_destroy(&h);
    return 0;
}

/* y_k = sum_j x_j A[j][k] for every element; returns the number of wrong ranks */
static inline int enc_check_matrix(const lincoll_field_t *f, int K, const uint64_t *A, uint8_t **x,
                                   uint8_t **y, size_t B)
{
    size_t es = lincoll_gf_field_elem_size(f), n = B / es;
    int bad = 0;
    for (int k = 0; k < K; k++) {
        int wrong = 0;
        for (size_t e = 0; e < n && !wrong; e++) {
            uint64_t acc = 0;
            for (int j = 0; j < K; j++) {
                uint64_t a = A[(size_t)j * (size_t)K + (size_t)k];
                if (a) acc = lincoll_gf_add(f, acc, lincoll_gf_mul(f, a, enc_get(x[j], es, e)));
            }
            wrong = acc != enc_get(y[k], es, e);
        }
        bad += wrong;
    }
    return bad;
}

/* K buffers of B bytes with random reduced elements */
static inline uint8_t **enc_bufs(const lincoll_field_t *f, int K, size_t B, uint64_t *seed,
                                 int random)
{
    size_t es = lincoll_gf_field_elem_size(f);
    uint64_t q = lincoll_gf_field_order(f);
    uint8_t **b = calloc((size_t)K, sizeof(*b));
    for (int k = 0; k < K; k++) {
        b[k] = aligned_alloc(64, (B + 63) & ~(size_t)63);
        memset(b[k], 0xa5, B);
        if (random) {
            for (size_t e = 0; e < B / es; e++)
                enc_put(b[k], es, e, enc_rand(seed) % q);
        }
    }
    return b;
}

static inline void enc_free_bufs(uint8_t **b, int K)
{
    if (b == NULL) return;
    for (int k = 0; k < K; k++)
        free(b[k]);
    free(b);
}

#endif
