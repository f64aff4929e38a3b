/*
 * test/coll/test_coll_zcopy.c: the zero-copy collective plans on K virtual
 * ranks (sim transport, whose rkey_ptr maps every rank's memory).
 *
 * Each plan is compiled from the registry for mapped peers and its bind
 * records are exchanged by hand (lc_simh_bind) because one thread drives
 * every virtual rank: the public *_init would block in its exchange.  The
 * public path is exercised over UCX by coll_ucx (lincoll_mem_alloc buffers).
 * test_registry runs every zero-copy algorithm of the registry (each must
 * have its line in zc_algs) against a serial reference; the cases below go
 * deeper into the allreduce plans:
 *
 * Checked for P = 2..9, 16 and several counts, in place and out of place:
 *  - results bitwise equal to the forced rhd_allreduce plan on random doubles
 *    (same bracketing) and to a serial reference on exact int32 sums;
 *  - the sim's measured messages, bytes and rounds equal the plan's own
 *    closed form: 2 rounds, 2(P-1) zero-byte signalled puts sent and
 *    received per rank; and the plan's static stats agree;
 *  - the same for zcopy_rd_allreduce (P a power of two: k rounds, one put of
 *    the whole vector per round into the partner's scratch window);
 *  - three starts of the same plan (signal counters carry over; the RD plan
 *    alternates its scratch halves);
 *  - a dead peer ends the plan with LINCOLL_ERR_PEER_FAILED, no hang.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lincoll/coll.h>

#include "common/sim_harness.h"
#include "core/coll/coll_int.h"
#include "core/exec/exec.h"

static double rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return ((double)(*s >> 8) / (double)(1u << 24) - 0.5) * 1e3;
}

/* One zero-copy plan per rank: the registry's algorithm `name` of op,
 * compiled for mapped peers (also at sizes the model would not pick it for)
 * and bound by hand (lc_simh_bind exchanges the bind records). */
static void zc_plans(lc_simh_t *h, lc_coll_op_t op, const char *name, const lc_coll_args_t *a,
                     lincoll_plan_t **plans)
{
    const lc_coll_alg_t *alg = lc_coll_find(op, name);
    assert_non_null(alg);
    assert_true(alg->mapped);
    lc_plan_t **irs = calloc((size_t)h->K, sizeof(*irs));
    for (int r = 0; r < h->K; r++) {
        lc_env_t env = lc_exec_env(h->comm[r], 1);
        assert_int_equal(lc_coll_compile_any(alg, &env, &a[r], &irs[r]), LINCOLL_OK);
    }
    assert_int_equal(lc_simh_bind(h, irs, plans), LINCOLL_OK);
    free(irs);
}

/* The reference every zero-copy reduction must equal bit for bit: the forced
 * RHD allreduce of in[r] (n elements of dt) into out[r] on every rank. */
static void rhd_reference(lc_simh_t *h, int P, void **in, void **out, size_t n, lincoll_dtype_t dt)
{
    lincoll_plan_t **rp = calloc((size_t)P, sizeof(*rp));
    assert_non_null(rp);
    assert_int_equal(setenv("LINCOLL_ALLREDUCE_ALGO", "rhd", 1), 0);
    for (int r = 0; r < P; r++)
        assert_int_equal(
            lincoll_allreduce_init(h->comm[r], in[r], out[r], n, dt, LINCOLL_SUM, &rp[r]),
            LINCOLL_OK);
    unsetenv("LINCOLL_ALLREDUCE_ALGO");
    assert_int_equal(lc_simh_run(h, rp), LINCOLL_OK);
    for (int r = 0; r < P; r++)
        lincoll_plan_free(rp[r]);
    free(rp);
}

/* A direct-load plan: two flag rounds, 2 (P - 1) zero-byte signals each way per rank. */
static void assert_two_flag_rounds(lc_simh_t *h, int P)
{
    assert_int_equal(lc_sim_world_rounds(h->world), 2);
    for (int r = 0; r < P; r++) {
        uint64_t ms, bs, mr, br;
        lc_sim_world_rank_stats(h->world, r, &ms, &bs, &mr, &br);
        assert_int_equal(ms, 2 * (uint64_t)(P - 1));
        assert_int_equal(mr, 2 * (uint64_t)(P - 1));
        assert_int_equal(bs + br, 0);
    }
}

static void run_one(int P, size_t n, int inplace, lincoll_dtype_t dt, unsigned seed, int rd)
{
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    const size_t es = lincoll_dtype_size(dt), bytes = n * es;
    void **in = calloc((size_t)P, sizeof(void *)), **out = calloc((size_t)P, sizeof(void *));
    char **ref_in = calloc((size_t)P, sizeof(char *)),
         **ref_out = calloc((size_t)P, sizeof(char *));
    lincoll_plan_t **plans = calloc((size_t)P, sizeof(*plans));
    lc_coll_args_t *args = calloc((size_t)P, sizeof(*args));
    unsigned s = seed;
    for (int r = 0; r < P; r++) {
        assert_int_equal(lincoll_mem_alloc(h.ctx[r], bytes, &in[r]), LINCOLL_OK);
        assert_int_equal(lincoll_mem_alloc(h.ctx[r], bytes, &out[r]), LINCOLL_OK);
        ref_in[r] = malloc(bytes);
        ref_out[r] = malloc(bytes);
        for (size_t i = 0; i < n; i++) {
            if (dt == LINCOLL_DOUBLE) {
                ((double *)in[r])[i] = rnd(&s);
            } else {
                ((int32_t *)in[r])[i] = (int32_t)(rnd(&s));
            }
        }
        memcpy(ref_in[r], in[r], bytes);
    }
    /* reference: the forced RHD plan over malloc'ed copies */
    rhd_reference(&h, P, (void **)ref_in, (void **)ref_out, n, dt);
    /* zero copy */
    int k = 0;
    while ((1 << k) < P)
        k++;
    for (int r = 0; r < P; r++) {
        if (inplace) memcpy(out[r], in[r], bytes);
        args[r] = (lc_coll_args_t){.op = LC_COLL_ALLREDUCE,
                                   .sbuf = inplace ? NULL : in[r],
                                   .rbuf = out[r],
                                   .count = n,
                                   .total = n,
                                   .dtype = dt,
                                   .rop = LINCOLL_SUM,
                                   .inplace = inplace,
                                   .es = es};
    }
    zc_plans(&h, LC_COLL_ALLREDUCE, rd ? "zcopy_rd" : "zcopy", args, plans);
    for (int start = 0; start < 3; start++) {
        if (inplace && start > 0) {
            for (int r = 0; r < P; r++)
                memcpy(out[r], in[r], bytes);
        }
        lc_sim_world_reset_stats(h.world);
        assert_int_equal(lc_simh_run(&h, plans), LINCOLL_OK);
        for (int r = 0; r < P; r++) {
            if (memcmp(out[r], ref_out[0], bytes) != 0) {
                fail_msg("zcopy P=%d n=%zu inplace %d dtype %s start %d: rank %d differs from "
                         "rhd_allreduce",
                         P, n, inplace, lincoll_dtype_name(dt), start, r);
            }
            if (!inplace) assert_memory_equal(in[r], ref_in[r], bytes); /* input untouched */
        }
        /* closed forms: zcopy_allreduce, 2 rounds of 0-byte signalled puts to
         * every peer; zcopy_rd_allreduce, k rounds of one put of the vector */
        uint64_t xr = rd ? (uint64_t)k : 2, xm = rd ? (uint64_t)k : 2 * (uint64_t)(P - 1);
        uint64_t xb = rd ? (uint64_t)k * bytes : 0;
        assert_int_equal(lc_sim_world_rounds(h.world), xr);
        for (int r = 0; r < P; r++) {
            uint64_t ms, bs, mr, br;
            lc_sim_world_rank_stats(h.world, r, &ms, &bs, &mr, &br);
            assert_int_equal(ms, xm);
            assert_int_equal(mr, xm);
            assert_int_equal(bs, xb);
            assert_int_equal(br, xb);
            lincoll_plan_stats_t ps;
            lincoll_plan_stats(plans[r], &ps);
            assert_int_equal(ps.msgs_sent, ms);
            assert_int_equal(ps.bytes_sent, xb);
            assert_int_equal(ps.rounds, xr);
            assert_string_equal(ps.algorithm, rd ? "zcopy_rd_allreduce" : "zcopy_allreduce");
        }
    }
    if (dt == LINCOLL_INT32) { /* exact: the serial sum */
        for (size_t i = 0; i < n; i++) {
            int32_t want = 0;
            for (int r = 0; r < P; r++)
                want += ((int32_t *)(void *)ref_in[r])[i];
            assert_int_equal(((int32_t *)out[0])[i], want);
        }
    }
    for (int r = 0; r < P; r++) {
        lincoll_plan_free(plans[r]);
        lincoll_mem_free(h.ctx[r], in[r]);
        lincoll_mem_free(h.ctx[r], out[r]);
        free(ref_in[r]);
        free(ref_out[r]);
    }
    free(in);
    free(out);
    free(ref_in);
    free(ref_out);
    free(plans);
    free(args);
    lc_simh_destroy(&h);
}

static void test_zcopy_results_and_counts(void **state)
{
    (void)state;
    const int Ps[] = {2, 3, 4, 5, 6, 7, 8, 9, 16};
    unsigned cases = 0;
    for (unsigned pi = 0; pi < sizeof(Ps) / sizeof(Ps[0]); pi++) {
        int P = Ps[pi];
        size_t ns[] = {1, (size_t)P - 1 ? (size_t)P - 1 : 1, (size_t)P, (size_t)P + 1, 37, 1000};
        for (unsigned ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ni++) {
            for (int ip = 0; ip < 2; ip++) {
                for (int rd = 0; rd < 2; rd++) {
                    if (rd && (P & (P - 1)) != 0) continue; /* powers of two only */
                    run_one(P, ns[ni], ip, (ni + ip) % 2 ? LINCOLL_DOUBLE : LINCOLL_INT32,
                            (unsigned)(P * 131 + ni * 7 + ip), rd);
                    cases++;
                }
            }
        }
    }
    printf("zcopy: %u cases\n", cases);
}

/* A peer that dies before signalling: the survivors fail, they do not hang. */
static void test_zcopy_dead_peer(void **state)
{
    (void)state;
    const int P = 3;
    const size_t n = 100, bytes = n * sizeof(float);
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    void *buf[3];
    lincoll_plan_t *plans[3];
    lc_coll_args_t a[3];
    for (int r = 0; r < P; r++)
        assert_int_equal(lincoll_mem_alloc(h.ctx[r], bytes, &buf[r]), LINCOLL_OK);
    for (int r = 0; r < P; r++) {
        a[r] = (lc_coll_args_t){.op = LC_COLL_ALLREDUCE,
                                .rbuf = buf[r],
                                .count = n,
                                .total = n,
                                .dtype = LINCOLL_FLOAT,
                                .rop = LINCOLL_SUM,
                                .inplace = 1,
                                .es = sizeof(float)};
    }
    zc_plans(&h, LC_COLL_ALLREDUCE, "zcopy", a, plans);
    lc_sim_world_kill(h.world, 2);
    lincoll_plan_t *live[3] = {plans[0], plans[1], NULL};
    lincoll_status_t st = lc_simh_run(&h, live);
    assert_int_equal(st, LINCOLL_ERR_PEER_FAILED);
    for (int r = 0; r < P; r++) {
        lincoll_plan_free(plans[r]);
        lincoll_mem_free(h.ctx[r], buf[r]);
    }
    lc_simh_destroy(&h);
}

/* zcopy_bcast / zcopy_reduce (small, one put into the peer's scratch) and
 * zcopy_direct_bcast (large: peers load the root's window; 2 rounds of
 * 0-byte flags, root P-1 out / P-1 in, others 1 / 1):
 * results (bcast: the root's bytes; reduce: bitwise the rhd_allreduce value
 * at the root), 11 starts (credits, the 8-slot scratch ring wraps), and their closed form: 3
 * rounds on the last start of every batch of 4, else 2; bcast root P-1 puts of n bytes out,
 * P-1 credits in on a batch's last start, others 1 in / 1 out (the credit on a batch's last
 * start only); reduce the mirror image. */
static void run_small(int P, size_t n, int op, int root, int inplace, unsigned seed, int direct)
{
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    const size_t es = sizeof(double), bytes = n * es;
    void **in = calloc((size_t)P, sizeof(void *)), **out = calloc((size_t)P, sizeof(void *));
    double **ref_in = calloc((size_t)P, sizeof(double *)), *ref_out = malloc(bytes);
    lincoll_plan_t **plans = calloc((size_t)P, sizeof(*plans));
    unsigned s = seed;
    for (int r = 0; r < P; r++) {
        assert_int_equal(lincoll_mem_alloc(h.ctx[r], bytes, &in[r]), LINCOLL_OK);
        assert_int_equal(lincoll_mem_alloc(h.ctx[r], bytes, &out[r]), LINCOLL_OK);
        ref_in[r] = malloc(bytes);
    }
    /* reference for reduce: the forced RHD allreduce of the same inputs */
    lc_coll_args_t a[64];
    for (int r = 0; r < P; r++) {
        a[r] = (lc_coll_args_t){.op = op,
                                .sbuf = inplace ? NULL : in[r],
                                .rbuf = out[r],
                                .count = n,
                                .total = n,
                                .dtype = LINCOLL_DOUBLE,
                                .rop = LINCOLL_SUM,
                                .root = root,
                                .inplace = op == LC_COLL_BCAST || inplace,
                                .es = es};
    }
    zc_plans(&h, op, direct ? "zcopy_direct" : "zcopy", a, plans);
    for (int start = 0; start < 11; start++) {
        for (int r = 0; r < P; r++) {
            for (size_t i = 0; i < n; i++)
                ref_in[r][i] = rnd(&s);
            memcpy((op == LC_COLL_BCAST || inplace) ? out[r] : in[r], ref_in[r], bytes);
        }
        if (op == LC_COLL_REDUCE) {
            double **tmp = calloc((size_t)P, sizeof(double *));
            for (int r = 0; r < P; r++)
                tmp[r] = malloc(bytes);
            rhd_reference(&h, P, (void **)ref_in, (void **)tmp, n, LINCOLL_DOUBLE);
            memcpy(ref_out, tmp[0], bytes);
            for (int r = 0; r < P; r++)
                free(tmp[r]);
            free(tmp);
        } else {
            memcpy(ref_out, ref_in[root], bytes);
        }
        lc_sim_world_reset_stats(h.world);
        assert_int_equal(lc_simh_run(&h, plans), LINCOLL_OK);
        for (int r = 0; r < P; r++) {
            if (op == LC_COLL_REDUCE && r != root) continue;
            if (memcmp(out[r], ref_out, bytes) != 0) {
                fail_msg("%s P=%d n=%zu root %d inplace %d start %d: wrong result on rank %d",
                         op == LC_COLL_BCAST ? "zcopy_bcast" : "zcopy_reduce", P, n, root, inplace,
                         start, r);
            }
        }
        /* small plans return credits on the last start of every batch of
         * 4 (LC_ZC_CREDIT_BATCH, core/coll/coll_int.h) only: round 2 is empty on
         * the other starts */
        const int credit = direct || start % 4 == 3;
        assert_int_equal(lc_sim_world_rounds(h.world), direct ? 2 : credit ? 3 : 2);
        for (int r = 0; r < P; r++) {
            uint64_t ms, bs, mr, br, m = r == root ? (uint64_t)(P - 1) : 1;
            lc_sim_world_rank_stats(h.world, r, &ms, &bs, &mr, &br);
            /* direct: only 0-byte flags travel, the data is loaded from the root */
            int sends_data = !direct && (op == LC_COLL_BCAST) == (r == root);
            int gets_data = !direct && !sends_data;
            assert_int_equal(ms, sends_data || credit ? m : 0);
            assert_int_equal(mr, gets_data || credit ? m : 0);
            assert_int_equal(bs, sends_data ? m * bytes : 0);
            assert_int_equal(br, gets_data ? m * bytes : 0);
            /* the plan's structure: every round full (a batch's last start) */
            lincoll_plan_stats_t ps;
            lincoll_plan_stats(plans[r], &ps);
            assert_int_equal(ps.msgs_sent, m);
            assert_int_equal(ps.bytes_sent, bs);
        }
    }
    for (int r = 0; r < P; r++) {
        lincoll_plan_free(plans[r]);
        lincoll_mem_free(h.ctx[r], in[r]);
        lincoll_mem_free(h.ctx[r], out[r]);
        free(ref_in[r]);
    }
    free(in);
    free(out);
    free(ref_in);
    free(ref_out);
    free(plans);
    lc_simh_destroy(&h);
}

/* zcopy_direct_reduce: root result bitwise the rhd_allreduce value, three
 * starts, closed form 2 rounds of 2(P-1) 0-byte flags per rank. */
static void run_dred(int P, size_t n, int root, int inplace, unsigned seed)
{
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    const size_t es = sizeof(double), bytes = n * es;
    void **in = calloc((size_t)P, sizeof(void *)), **out = calloc((size_t)P, sizeof(void *));
    void **inb = calloc((size_t)P, sizeof(void *)), **outb = calloc((size_t)P, sizeof(void *));
    double **ref_in = calloc((size_t)P, sizeof(double *)),
           **ref_out = calloc((size_t)P, sizeof(double *));
    lincoll_plan_t **plans = calloc((size_t)P, sizeof(*plans));
    lc_coll_args_t *args = calloc((size_t)P, sizeof(*args));
    unsigned s = seed;
    for (int r = 0; r < P; r++) {
        assert_int_equal(lincoll_mem_alloc(h.ctx[r], bytes, &in[r]), LINCOLL_OK);
        assert_int_equal(lincoll_mem_alloc(h.ctx[r], bytes, &out[r]), LINCOLL_OK);
        ref_in[r] = malloc(bytes);
        ref_out[r] = malloc(bytes);
        inb[r] = inplace ? out[r] : in[r];
        outb[r] = r == root ? out[r] : inb[r];
    }
    for (int r = 0; r < P; r++) {
        args[r] = (lc_coll_args_t){.op = LC_COLL_REDUCE,
                                   .sbuf = inplace ? NULL : in[r],
                                   .rbuf = out[r],
                                   .count = n,
                                   .total = n,
                                   .dtype = LINCOLL_DOUBLE,
                                   .rop = LINCOLL_SUM,
                                   .root = root,
                                   .inplace = inplace,
                                   .es = es};
    }
    zc_plans(&h, LC_COLL_REDUCE, "zcopy_direct", args, plans);
    for (int start = 0; start < 3; start++) {
        for (int r = 0; r < P; r++) {
            for (size_t i = 0; i < n; i++)
                ref_in[r][i] = rnd(&s);
            memcpy(inb[r], ref_in[r], bytes);
        }
        rhd_reference(&h, P, (void **)ref_in, (void **)ref_out, n, LINCOLL_DOUBLE);
        lc_sim_world_reset_stats(h.world);
        assert_int_equal(lc_simh_run(&h, plans), LINCOLL_OK);
        if (memcmp(out[root], ref_out[0], bytes) != 0)
            fail_msg("zcopy_direct_reduce P=%d n=%zu root %d inplace %d start %d: wrong result", P,
                     n, root, inplace, start);
        assert_two_flag_rounds(&h, P);
    }
    for (int r = 0; r < P; r++) {
        lincoll_plan_free(plans[r]);
        lincoll_mem_free(h.ctx[r], in[r]);
        lincoll_mem_free(h.ctx[r], out[r]);
        free(ref_in[r]);
        free(ref_out[r]);
    }
    free(in);
    free(out);
    free(inb);
    free(outb);
    free(ref_in);
    free(ref_out);
    free(plans);
    free(args);
    lc_simh_destroy(&h);
}

static void test_zcopy_small_bcast_reduce(void **state)
{
    (void)state;
    unsigned cases = 0;
    const int Ps[] = {2, 3, 4, 5, 6, 7, 8, 13};
    for (unsigned pi = 0; pi < sizeof(Ps) / sizeof(Ps[0]); pi++) {
        int P = Ps[pi];
        const int roots[] = {0, P - 1, P / 2};
        const size_t ns[] = {1, 5, 100};
        for (int op = LC_COLL_BCAST; op <= LC_COLL_REDUCE; op++)
            for (int ri = 0; ri < 3; ri++)
                for (unsigned ni = 0; ni < 3; ni++)
                    for (int ip = 0; ip < (op == LC_COLL_BCAST ? 1 : 2); ip++) {
                        for (int d = 0; d < (op == LC_COLL_BCAST ? 2 : 1); d++) {
                            run_small(P, ns[ni], op, roots[ri], ip,
                                      (unsigned)(P * 17 + ri * 5 + ni), d);
                            cases++;
                        }
                    }
    }
    for (int P = 2; P <= 9; P++)
        for (int ip = 0; ip < 2; ip++) {
            run_dred(P, 1000, P - 1, ip, (unsigned)(P * 3 + ip));
            run_dred(P, (size_t)P + 1, 0, ip, (unsigned)(P * 5 + ip));
            cases += 2;
        }
    printf("zcopy bcast/reduce: %u cases\n", cases);
}

/* zcopy_allgather / zcopy_reduce_scatter (large, direct loads): results
 * (allgather: every block; reduce-scatter: bitwise the rhd_allreduce value
 * of this rank's block), three starts, closed form 2 rounds of 2(P-1)
 * 0-byte flags per rank. */
/* ring: the small plans (zcopy_rd_allgather / zcopy_rh_reduce_scatter, P a
 * power of two) over scratch windows, 10 starts so the 8-slot ring wraps:
 * k rounds of one put per rank, reduce-scatter bitwise equal to a forced
 * rhd_reduce_scatter. */
static void run_rsag(int P, int op, int inplace, int vform, unsigned seed, int ring)
{
    int k = 0;
    while ((1 << k) < P)
        k++;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    const size_t es = sizeof(double);
    size_t *counts = calloc((size_t)P, sizeof(size_t)), *displs = calloc((size_t)P, sizeof(size_t));
    size_t total = 0;
    for (int r = 0; r < P; r++) {
        counts[r] = vform ? (size_t)((r * 7 + 3) % 5) : 4; /* zeros included */
        displs[r] = total;
        total += counts[r];
    }
    const size_t tb = total * es;
    void **in = calloc((size_t)P, sizeof(void *)), **out = calloc((size_t)P, sizeof(void *));
    double **ref_in = calloc((size_t)P, sizeof(double *)),
           **ref_out = calloc((size_t)P, sizeof(double *));
    lincoll_plan_t **plans = calloc((size_t)P, sizeof(*plans));
    lc_coll_args_t a[64];
    unsigned s = seed;
    for (int r = 0; r < P; r++) {
        assert_int_equal(lincoll_mem_alloc(h.ctx[r], tb, &in[r]), LINCOLL_OK);
        assert_int_equal(lincoll_mem_alloc(h.ctx[r], tb, &out[r]), LINCOLL_OK);
        ref_in[r] = malloc(tb);
        ref_out[r] = malloc(tb);
        a[r] = (lc_coll_args_t){.op = op,
                                .sbuf = inplace ? NULL : in[r],
                                .rbuf = out[r],
                                .counts = counts,
                                .displs = displs,
                                .total = total,
                                .dtype = LINCOLL_DOUBLE,
                                .rop = LINCOLL_SUM,
                                .inplace = inplace,
                                .es = es};
    }
    zc_plans(&h, op,
             op == LC_COLL_ALLGATHER ? (ring ? "zcopy_rd" : "zcopy")
                                     : (ring ? "zcopy_rh" : "zcopy"),
             a, plans);
    for (int start = 0; start < (ring ? 10 : 3); start++) {
        for (int r = 0; r < P; r++) {
            for (size_t i = 0; i < total; i++)
                ref_in[r][i] = rnd(&s);
            if (op == LC_COLL_ALLGATHER) {
                if (inplace)
                    memcpy((char *)out[r] + displs[r] * es, ref_in[r] + displs[r], counts[r] * es);
                else
                    memcpy(in[r], ref_in[r] + displs[r], counts[r] * es);
            } else {
                memcpy(inplace ? out[r] : in[r], ref_in[r], tb);
            }
        }
        if (op == LC_COLL_REDUCE_SCATTER && !ring) {
            rhd_reference(&h, P, (void **)ref_in, (void **)ref_out, total, LINCOLL_DOUBLE);
        } else if (op == LC_COLL_REDUCE_SCATTER) {
            /* rhd_reduce_scatter, forced, into ref_out[r] + displs[r] */
            lincoll_plan_t **rp = calloc((size_t)P, sizeof(*rp));
            assert_int_equal(setenv("LINCOLL_REDUCE_SCATTER_ALGO", "rhd", 1), 0);
            for (int r = 0; r < P; r++)
                assert_int_equal(lincoll_reduce_scatterv_init(h.comm[r], ref_in[r],
                                                              ref_out[r] + displs[r], counts,
                                                              LINCOLL_DOUBLE, LINCOLL_SUM, &rp[r]),
                                 LINCOLL_OK);
            unsetenv("LINCOLL_REDUCE_SCATTER_ALGO");
            assert_int_equal(lc_simh_run(&h, rp), LINCOLL_OK);
            for (int r = 0; r < P; r++) {
                lincoll_plan_stats_t st;
                assert_int_equal(lincoll_plan_stats(rp[r], &st), LINCOLL_OK);
                assert_string_equal(st.algorithm, "rhd_reduce_scatter");
                lincoll_plan_free(rp[r]);
            }
            free(rp);
        }
        lc_sim_world_reset_stats(h.world);
        assert_int_equal(lc_simh_run(&h, plans), LINCOLL_OK);
        for (int r = 0; r < P; r++) {
            if (op == LC_COLL_ALLGATHER) {
                for (int j = 0; j < P; j++)
                    assert_memory_equal((char *)out[r] + displs[j] * es, ref_in[j] + displs[j],
                                        counts[j] * es);
            } else if (counts[r] > 0) {
                assert_memory_equal(out[r], ref_out[r] + displs[r], counts[r] * es);
            }
        }
        if (ring) {
            /* k rounds, one put (data + signal) each way per round and rank */
            assert_int_equal(lc_sim_world_rounds(h.world), k);
            for (int r = 0; r < P; r++) {
                uint64_t ms, bs, mr, br;
                lc_sim_world_rank_stats(h.world, r, &ms, &bs, &mr, &br);
                assert_int_equal(ms, (uint64_t)k);
                assert_int_equal(mr, (uint64_t)k);
            }
        } else {
            assert_two_flag_rounds(&h, P);
        }
    }
    for (int r = 0; r < P; r++) {
        lincoll_plan_free(plans[r]);
        lincoll_mem_free(h.ctx[r], in[r]);
        lincoll_mem_free(h.ctx[r], out[r]);
        free(ref_in[r]);
        free(ref_out[r]);
    }
    free(in);
    free(out);
    free(ref_in);
    free(ref_out);
    free(plans);
    free(counts);
    free(displs);
    lc_simh_destroy(&h);
}

static void test_zcopy_rsag(void **state)
{
    (void)state;
    unsigned cases = 0;
    const int Ps[] = {2, 3, 4, 5, 6, 7, 8, 11, 16};
    for (unsigned pi = 0; pi < sizeof(Ps) / sizeof(Ps[0]); pi++)
        for (int ring = 0; ring < 2; ring++)
            for (int op = LC_COLL_REDUCE_SCATTER; op <= LC_COLL_ALLGATHER; op++)
                for (int ip = 0; ip < (op == LC_COLL_ALLGATHER || ring ? 2 : 1); ip++)
                    for (int v = 0; v < 2; v++) {
                        if (ring && (Ps[pi] & (Ps[pi] - 1)) != 0) continue;
                        run_rsag(Ps[pi], op, ip, v,
                                 (unsigned)(Ps[pi] * 31 + op * 7 + ip * 3 + v + ring * 5), ring);
                        cases++;
                    }
    printf("zcopy reduce-scatter/allgather: %u cases\n", cases);
}

/* ---- every zero-copy algorithm of the registry, one line each ---------------- */

/* The zero-copy algorithms: op, registry name, P a power of two only.
 * Adding one to the registry means adding its line here (test_registry
 * fails otherwise). */
static const struct zc_alg {
    lc_coll_op_t op;
    const char *name;
    int pow2;
} zc_algs[] = {
    {LC_COLL_ALLREDUCE, "zcopy", 0},      {LC_COLL_ALLREDUCE, "zcopy_rd", 1},
    {LC_COLL_REDUCE_SCATTER, "zcopy", 0}, {LC_COLL_REDUCE_SCATTER, "zcopy_rh", 1},
    {LC_COLL_ALLGATHER, "zcopy", 0},      {LC_COLL_ALLGATHER, "zcopy_rd", 1},
    {LC_COLL_BCAST, "zcopy", 0},          {LC_COLL_BCAST, "zcopy_direct", 0},
    {LC_COLL_REDUCE, "zcopy", 0},         {LC_COLL_REDUCE, "zcopy_direct", 0},
};
#define NZC (sizeof(zc_algs) / sizeof(zc_algs[0]))

/* One algorithm on P ranks, int32 sums (exact), 10 starts with new inputs:
 * every rank's result against the serial one; the plan's name and its
 * window count; the sim's measured messages never above the plan stats'. */
static void run_generic(const struct zc_alg *z, int P, size_t cnt, int root, int inplace)
{
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    const size_t es = sizeof(int32_t);
    size_t *counts = calloc((size_t)P, sizeof(size_t)), *displs = calloc((size_t)P, sizeof(size_t));
    size_t total = 0;
    for (int r = 0; r < P; r++) {
        counts[r] = z->op == LC_COLL_REDUCE_SCATTER || z->op == LC_COLL_ALLGATHER
                        ? cnt + (size_t)(r % 3)
                        : cnt;
        displs[r] = total;
        total += counts[r];
    }
    const int vec = z->op == LC_COLL_REDUCE_SCATTER || z->op == LC_COLL_ALLGATHER;
    if (!vec) total = cnt;
    const size_t tb = total * es;
    int32_t **in = calloc((size_t)P, sizeof(*in)), **out = calloc((size_t)P, sizeof(*out));
    lc_coll_args_t *a = calloc((size_t)P, sizeof(*a));
    lincoll_plan_t **plans = calloc((size_t)P, sizeof(*plans));
    for (int r = 0; r < P; r++) {
        assert_int_equal(lincoll_mem_alloc(h.ctx[r], tb, (void **)&in[r]), LINCOLL_OK);
        assert_int_equal(lincoll_mem_alloc(h.ctx[r], tb, (void **)&out[r]), LINCOLL_OK);
        const int ip = inplace || z->op == LC_COLL_BCAST;
        a[r] = (lc_coll_args_t){.op = z->op,
                                .sbuf = ip ? NULL : in[r],
                                .rbuf = out[r],
                                .count = vec ? 0 : cnt,
                                .counts = vec ? counts : NULL,
                                .displs = vec ? displs : NULL,
                                .total = total,
                                .dtype = LINCOLL_INT32,
                                .rop = LINCOLL_SUM,
                                .root = root,
                                .inplace = ip,
                                .es = es};
    }
    zc_plans(&h, z->op, z->name, a, plans);
    char want[40];
    snprintf(want, sizeof(want), "%s", lc_coll_find(z->op, z->name)->plan_name);
    for (int start = 0; start < 10; start++) {
        for (int r = 0; r < P; r++) {
            int32_t *dst = a[r].inplace ? out[r] : in[r];
            size_t n = z->op == LC_COLL_ALLGATHER ? counts[r] : total;
            size_t at = z->op == LC_COLL_ALLGATHER && a[r].inplace ? displs[r] : 0;
            for (size_t i = 0; i < n; i++)
                dst[at + i] = (int32_t)(r * 131 + (int)i * 7 + start * 1009);
        }
        lc_sim_world_reset_stats(h.world);
        assert_int_equal(lc_simh_run(&h, plans), LINCOLL_OK);
        for (int r = 0; r < P; r++) {
            lincoll_plan_stats_t ps;
            assert_int_equal(lincoll_plan_stats(plans[r], &ps), LINCOLL_OK);
            assert_string_equal(ps.algorithm, want);
            uint64_t ms, bs, mr, br;
            lc_sim_world_rank_stats(h.world, r, &ms, &bs, &mr, &br);
            assert_true(ms <= ps.msgs_sent && bs <= ps.bytes_sent);
            size_t n = z->op == LC_COLL_REDUCE_SCATTER ? counts[r] : total;
            for (size_t i = 0; i < n; i++) {
                int32_t w = 0, got = out[r][i];
                switch (z->op) {
                case LC_COLL_ALLREDUCE:
                case LC_COLL_REDUCE:
                    for (int j = 0; j < P; j++)
                        w += (int32_t)(j * 131 + (int)i * 7 + start * 1009);
                    if (z->op == LC_COLL_REDUCE && r != root) w = got;
                    break;
                case LC_COLL_REDUCE_SCATTER:
                    for (int j = 0; j < P; j++)
                        w += (int32_t)(j * 131 + (int)(displs[r] + i) * 7 + start * 1009);
                    break;
                case LC_COLL_ALLGATHER: {
                    int j = 0;
                    while (j + 1 < P && displs[j + 1] <= i)
                        j++;
                    w = (int32_t)(j * 131 + (int)(i - displs[j]) * 7 + start * 1009);
                    break;
                }
                default: /* bcast */
                    w = (int32_t)(root * 131 + (int)i * 7 + start * 1009);
                }
                if (got != w)
                    fail_msg("%s %s P=%d cnt=%zu root %d inplace %d start %d: rank %d [%zu] = %d, "
                             "want %d",
                             lc_coll_op_name(z->op), z->name, P, cnt, root, inplace, start, r, i,
                             (int)got, (int)w);
            }
        }
    }
    for (int r = 0; r < P; r++) {
        lincoll_plan_free(plans[r]);
        lincoll_mem_free(h.ctx[r], in[r]);
        lincoll_mem_free(h.ctx[r], out[r]);
    }
    free(in);
    free(out);
    free(a);
    free(plans);
    free(counts);
    free(displs);
    lc_simh_destroy(&h);
}

static void test_registry(void **state)
{
    (void)state;
    /* every zero-copy algorithm of the registry has its line in zc_algs */
    size_t n;
    const lc_coll_alg_t *const *reg = lc_coll_registry(&n);
    for (size_t i = 0; i < n; i++) {
        int found = !reg[i]->mapped;
        for (size_t k = 0; k < NZC && !found; k++)
            found = zc_algs[k].op == reg[i]->op && strcmp(zc_algs[k].name, reg[i]->name) == 0;
        if (!found) fail_msg("%s is not in zc_algs", reg[i]->plan_name);
    }
    unsigned cases = 0;
    for (size_t k = 0; k < NZC; k++) {
        const struct zc_alg *z = &zc_algs[k];
        static const int Ps[] = {2, 3, 4, 7, 8};
        for (unsigned pi = 0; pi < sizeof(Ps) / sizeof(Ps[0]); pi++) {
            const int P = Ps[pi];
            if (z->pow2 && (P & (P - 1)) != 0) continue;
            const int ips = z->op == LC_COLL_BCAST || (z->op == LC_COLL_REDUCE_SCATTER &&
                                                       strcmp(z->name, "zcopy") == 0)
                                ? 1
                                : 2;
            for (int ip = 0; ip < ips; ip++) {
                run_generic(z, P, 1, P - 1, ip);
                run_generic(z, P, 37, P / 2, ip);
                cases += 2;
            }
        }
    }
    printf("registry zero-copy algorithms: %zu, %u cases\n", NZC, cases);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),        cmocka_unit_test(test_zcopy_results_and_counts),
        cmocka_unit_test(test_zcopy_dead_peer), cmocka_unit_test(test_zcopy_small_bcast_reduce),
        cmocka_unit_test(test_zcopy_rsag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
