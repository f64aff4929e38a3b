/*
 * test/transport/test_sim_scale.c: the sim transport at K = 4096 virtual
 * ranks.  Three patterns, each checked message by message and against the
 * measured round statistics, with the wall time printed (never asserted):
 *  - shift all-to-all: K-1 rounds, in round r rank i sends 64 B to i+r and
 *    receives from i-r, receives posted first (16.8 M messages);
 *  - the same with sends first (unexpected-message path), 512 rounds;
 *  - recursive doubling: log2 K rounds, partner i^2^r, message size doubling.
 * LC_TEST_SCALE=reduced (deploy/sanitize.sh, deploy/valgrind.sh): still
 * K = 4096 ranks, but the first pattern runs its first 511 rounds only.
 */
#include "transports/sim/api.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#define K 4096

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct scale {
    lc_sim_world_t *w;
    lc_tl_t *tl[K];
    lc_tl_req_t *req[K];
    uint64_t *rbuf; /* K x 8 words */
} scale_t;

static scale_t S;

/* rounds of the shift all-to-all: all K-1, or 511 at LC_TEST_SCALE=reduced */
static unsigned shift_rounds(void)
{
    const char *v = getenv("LC_TEST_SCALE");
    return v != NULL && strcmp(v, "reduced") == 0 ? 511 : K - 1;
}

static int setup(void **state)
{
    (void)state;
    if (lc_sim_world_create(K, &S.w) != LINCOLL_OK) {
        return -1;
    }
    for (int r = 0; r < K; r++) {
        lc_tl_sim_params_t sp = {.world = S.w};
        lc_tl_params_t p = {.rank = r, .size = K, .ext = &sp};
        if (lc_tl_sim_ops.init(&p, &S.tl[r]) != LINCOLL_OK) {
            return -1;
        }
    }
    S.rbuf = calloc((size_t)K * 8, sizeof(uint64_t));
    return S.rbuf ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    for (int r = 0; r < K; r++) {
        lc_tl_sim_ops.fini(S.tl[r]);
    }
    lc_sim_world_destroy(S.w);
    free(S.rbuf);
    return 0;
}

static void shift_round(unsigned r, int recv_first)
{
    const lc_tl_ops_t *o = &lc_tl_sim_ops;
    uint64_t msg[8];
    for (int pass = 0; pass < 2; pass++) {
        if ((pass == 0) == (recv_first != 0)) {
            for (int i = 0; i < K; i++) {
                int src = (int)((i + K - (int)r) % K);
                assert_int_equal(o->recv_nb(S.tl[i], src, &S.rbuf[(size_t)i * 8], 64,
                                            lc_tag_make(1, 0, (unsigned)src, r), &S.req[i]),
                                 LINCOLL_OK);
            }
        } else {
            for (int i = 0; i < K; i++) {
                int dst = (int)((i + (int)r) % K);
                lc_tl_req_t *sr = NULL;
                msg[0] = ((uint64_t)i << 32) | r;
                for (int k = 1; k < 8; k++) {
                    msg[k] = msg[0] * (uint64_t)k;
                }
                assert_int_equal(
                    o->send_nb(S.tl[i], dst, msg, 64, lc_tag_make(1, 0, (unsigned)i, r), &sr),
                    LINCOLL_OK);
                assert_null(sr);
            }
        }
    }
    for (int i = 0; i < K; i++) {
        o->progress(S.tl[i]);
        size_t len = 0;
        assert_int_equal(o->test(S.tl[i], S.req[i], &len), LINCOLL_OK);
        assert_int_equal(len, 64);
        o->release(S.tl[i], S.req[i]);
        int src = (int)((i + K - (int)r) % K);
        uint64_t expect = ((uint64_t)src << 32) | r;
        if (S.rbuf[(size_t)i * 8] != expect || S.rbuf[(size_t)i * 8 + 7] != expect * 7) {
            fail_msg("round %u rank %d: wrong payload", r, i);
        }
    }
}

static void check_rounds(unsigned first, unsigned last, uint64_t bytes)
{
    assert_int_equal(lc_sim_world_rounds(S.w), last + 1);
    for (unsigned r = first; r <= last; r++) {
        lc_sim_round_stat_t s = lc_sim_world_round(S.w, r);
        assert_int_equal(s.msgs, K);
        assert_int_equal(s.max_bytes, bytes);
        assert_int_equal(s.bytes, (uint64_t)K * bytes);
    }
}

static void test_shift_alltoall(void **state)
{
    (void)state;
    lc_sim_world_reset_stats(S.w);
    const unsigned R = shift_rounds();
    double t0 = now();
    for (unsigned r = 1; r <= R; r++) {
        shift_round(r, 1);
    }
    double t = now() - t0;
    check_rounds(1, R, 64);
    uint64_t ms, bs, mr, br;
    lc_sim_world_rank_stats(S.w, 17, &ms, &bs, &mr, &br);
    assert_int_equal(ms, R);
    assert_int_equal(br, (uint64_t)R * 64);
    print_message("K=%d shift all-to-all, receives first: %u rounds, %llu messages in %.2f s "
                  "(%.0f ns/message)\n",
                  K, R, (unsigned long long)K * R, t, t * 1e9 / ((double)K * R));
}

static void test_shift_unexpected(void **state)
{
    (void)state;
    const unsigned R = 512;
    lc_sim_world_reset_stats(S.w);
    double t0 = now();
    for (unsigned r = 1; r <= R; r++) {
        shift_round(r, 0);
    }
    double t = now() - t0;
    check_rounds(1, R, 64);
    print_message("K=%d shift all-to-all, sends first: %u rounds, %llu messages in %.2f s "
                  "(%.0f ns/message)\n",
                  K, R, (unsigned long long)K * R, t, t * 1e9 / ((double)K * R));
}

static void test_recursive_doubling(void **state)
{
    (void)state;
    const lc_tl_ops_t *o = &lc_tl_sim_ops;
    lc_sim_world_reset_stats(S.w);
    size_t maxlen = 8u << 12; /* 8 B x 2^12 */
    unsigned char *sb = calloc(1, maxlen), *rb = calloc(K, 64);
    assert_true(sb && rb);
    double t0 = now();
    unsigned rounds = 0;
    for (unsigned r = 0; (1u << r) < K; r++, rounds++) {
        size_t len = (size_t)8 << r;
        for (int i = 0; i < K; i++) {
            int peer = i ^ (1 << r);
            assert_int_equal(o->recv_nb(S.tl[i], peer, rb + (size_t)i * 8, len > 8 ? 8 : len,
                                        lc_tag_make(1, 2, (unsigned)peer, r), &S.req[i]),
                             LINCOLL_OK);
        }
        for (int i = 0; i < K; i++) {
            lc_tl_req_t *sr = NULL;
            memcpy(sb, &i, sizeof(i));
            assert_int_equal(
                o->send_nb(S.tl[i], i ^ (1 << r), sb, len, lc_tag_make(1, 2, (unsigned)i, r), &sr),
                LINCOLL_OK);
        }
        for (int i = 0; i < K; i++) {
            size_t got = 0;
            lincoll_status_t st = o->test(S.tl[i], S.req[i], &got);
            /* receive buffers are 8 B: every round after the first truncates */
            assert_int_equal(st, r == 0 ? LINCOLL_OK : LINCOLL_ERR_TRUNCATED);
            int from;
            memcpy(&from, rb + (size_t)i * 8, sizeof(from));
            assert_int_equal(from, i ^ (1 << r));
            o->release(S.tl[i], S.req[i]);
        }
    }
    double t = now() - t0;
    assert_int_equal(rounds, 12);
    assert_int_equal(lc_sim_world_rounds(S.w), 12);
    uint64_t c2 = 0;
    for (unsigned r = 0; r < 12; r++) {
        lc_sim_round_stat_t s = lc_sim_world_round(S.w, r);
        assert_int_equal(s.msgs, K);
        assert_int_equal(s.max_bytes, (uint64_t)8 << r);
        c2 += s.max_bytes;
    }
    assert_int_equal(c2, 8 * ((1u << 12) - 1));
    print_message("K=%d recursive doubling: 12 rounds, C2 = %llu B, %.3f s\n", K,
                  (unsigned long long)c2, t);
    free(sb);
    free(rb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shift_alltoall),
        cmocka_unit_test(test_shift_unexpected),
        cmocka_unit_test(test_recursive_doubling),
    };
    return cmocka_run_group_tests_name("sim transport at K = 4096", tests, setup, teardown);
}
