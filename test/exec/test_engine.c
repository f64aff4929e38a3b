/*
 * test/exec/test_engine.c: plans and the executor on the sim transport.
 *
 * Ring shift and the p-port all-to-all run on K virtual ranks; results are
 * checked byte for byte, and the rounds / largest-message sums the sim
 * *measures* are compared with the closed forms and with the plans' static
 * stats.  Also: persistence, the port limit, mismatched sizes, a dead peer,
 * a dropped message (timeout), and the plan dump.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "common/sim_harness.h"
#include "core/exec/exec.h"

static unsigned char pattern(int rank, size_t block, size_t i, int iter)
{
    return (unsigned char)(rank * 31 + block * 7 + i * 13 + iter * 101 + 1);
}

static void test_ring_shift(void **state)
{
    (void)state;
    const int Ks[] = {1, 2, 3, 5, 8};
    const int shifts[] = {0, 1, -1, 3, 17};
    const size_t n = 1000;
    for (unsigned ki = 0; ki < sizeof(Ks) / sizeof(Ks[0]); ki++) {
        int K = Ks[ki];
        for (unsigned si = 0; si < sizeof(shifts) / sizeof(shifts[0]); si++) {
            int s = shifts[si];
            lc_simh_t h;
            assert_int_equal(lc_simh_create(&h, K, 1), 0);
            unsigned char *in = malloc(n * (size_t)K), *out = malloc(n * (size_t)K);
            lincoll_plan_t **plans = calloc((size_t)K, sizeof(*plans));
            for (int r = 0; r < K; r++) {
                for (size_t i = 0; i < n; i++)
                    in[r * n + i] = pattern(r, 0, i, 0);
                assert_int_equal(
                    lincoll_ring_shift_init(h.comm[r], in + r * n, out + r * n, n, s, &plans[r]),
                    LINCOLL_OK);
            }
            assert_int_equal(lc_simh_run(&h, plans), LINCOLL_OK);
            int sm = ((s % K) + K) % K;
            for (int r = 0; r < K; r++) {
                int from = (r - sm + K) % K;
                for (size_t i = 0; i < n; i++) {
                    assert_int_equal(out[r * n + i], pattern(from, 0, i, 0));
                }
                lincoll_plan_stats_t st;
                assert_int_equal(lincoll_plan_stats(plans[r], &st), LINCOLL_OK);
                assert_int_equal(st.rounds, sm == 0 ? 0 : 1);
                assert_int_equal(st.c2_bytes, sm == 0 ? 0 : n);
            }
            assert_int_equal(lc_sim_world_rounds(h.world), sm == 0 ? 0 : 1);
            for (int r = 0; r < K; r++)
                lincoll_plan_free(plans[r]);
            free(plans);
            free(in);
            free(out);
            lc_simh_destroy(&h);
        }
    }
}

static void run_alltoall(int K, int p, size_t n, int iters)
{
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, K, p), 0);
    size_t tot = n * (size_t)K;
    unsigned char *in = malloc(tot * (size_t)K), *out = malloc(tot * (size_t)K);
    lincoll_plan_t **plans = calloc((size_t)K, sizeof(*plans));
    for (int r = 0; r < K; r++) {
        assert_int_equal(
            lincoll_alltoall_init(h.comm[r], in + r * tot, out + r * tot, n, p, &plans[r]),
            LINCOLL_OK);
    }
    unsigned c1 = (unsigned)((K - 1 + p - 1) / p);
    for (int it = 0; it < iters; it++) {
        for (int r = 0; r < K; r++)
            for (int j = 0; j < K; j++)
                for (size_t i = 0; i < n; i++)
                    in[r * tot + j * n + i] = pattern(r, (size_t)j, i, it);
        memset(out, 0, tot * (size_t)K);
        lc_sim_world_reset_stats(h.world);
        assert_int_equal(lc_simh_run(&h, plans), LINCOLL_OK);
        for (int r = 0; r < K; r++)
            for (int j = 0; j < K; j++)
                for (size_t i = 0; i < n; i++)
                    assert_int_equal(out[r * tot + j * n + i], pattern(j, (size_t)r, i, it));
        /* measured: C1 rounds, each carrying messages of exactly n bytes */
        assert_int_equal(lc_sim_world_rounds(h.world), n > 0 || K > 1 ? c1 : 0);
        uint64_t c2 = 0;
        for (unsigned rr = 0; rr < lc_sim_world_rounds(h.world); rr++) {
            lc_sim_round_stat_t rs = lc_sim_world_round(h.world, rr);
            c2 += rs.max_bytes;
            int in_round = (K - 1) - (int)rr * p < p ? (K - 1) - (int)rr * p : p;
            assert_int_equal(rs.msgs, (uint64_t)K * (uint64_t)in_round);
        }
        assert_int_equal(c2, (uint64_t)c1 * n);
    }
    for (int r = 0; r < K; r++) {
        lincoll_plan_stats_t st;
        assert_int_equal(lincoll_plan_stats(plans[r], &st), LINCOLL_OK);
        assert_int_equal(st.rounds, c1);
        assert_int_equal(st.c2_bytes, (uint64_t)c1 * n);
        assert_int_equal(st.msgs_sent, (uint64_t)(K - 1));
        assert_int_equal(st.bytes_sent, (uint64_t)(K - 1) * n);
        lincoll_plan_free(plans[r]);
        /* the name is a copy: still readable after the plan is gone */
        assert_true(strncmp(st.algorithm, "alltoall", 8) == 0);
    }
    free(plans);
    free(in);
    free(out);
    lc_simh_destroy(&h);
}

static void test_alltoall_ports(void **state)
{
    (void)state;
    const int Ks[] = {1, 2, 3, 4, 7, 16, 33};
    for (unsigned ki = 0; ki < sizeof(Ks) / sizeof(Ks[0]); ki++) {
        for (int p = 1; p <= 4; p++) {
            run_alltoall(Ks[ki], p, 24, 2);
        }
    }
}

static void test_alltoall_large_k(void **state)
{
    (void)state;
    run_alltoall(256, 3, 8, 1);
}

static void test_port_limit(void **state)
{
    (void)state;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, 4, 1), 0);
    lc_plan_t *p;
    char buf[64];
    lc_env_t env = lc_exec_env(h.comm[0], 0);
    assert_int_equal(lc_plan_create(&env, "too_many_ports", 1, &p), LINCOLL_OK);
    int s = lc_plan_slot_user(p, buf, sizeof(buf));
    int r = lc_plan_round(p);
    assert_int_equal(lc_plan_send(p, r, 1, lc_ref(s, 0), 8), LINCOLL_OK);
    assert_int_equal(lc_plan_send(p, r, 2, lc_ref(s, 8), 8), LINCOLL_OK);
    assert_int_not_equal(lc_plan_finalize(p), LINCOLL_OK);
    /* a transfer outside its buffer is refused when it is added */
    assert_int_not_equal(lc_plan_send(p, r, 1, lc_ref(s, 60), 8), LINCOLL_OK);
    lc_plan_destroy(p);
    lc_simh_destroy(&h);
}

static void test_mismatch(void **state)
{
    (void)state;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, 2, 1), 0);
    char a[64] = {0}, b[64];
    lincoll_plan_t *plans[2];
    /* rank 0 sends 32 bytes, rank 1 expects 16 */
    assert_int_equal(lincoll_sendrecv_init(h.comm[0], a, 32, 1, NULL, 0, -1,
                                           LINCOLL_SENDRECV_CONCURRENT, &plans[0]),
                     LINCOLL_OK);
    assert_int_equal(lincoll_sendrecv_init(h.comm[1], NULL, 0, -1, b, 16, 0,
                                           LINCOLL_SENDRECV_CONCURRENT, &plans[1]),
                     LINCOLL_OK);
    lincoll_status_t st = lc_simh_run(&h, plans);
    assert_true(st == LINCOLL_ERR_MISMATCH || st == LINCOLL_ERR_TRUNCATED);
    lincoll_plan_free(plans[0]);
    lincoll_plan_free(plans[1]);
    lc_simh_destroy(&h);
}

/* Rank 0 sends `sent` bytes of a to rank 1, which receives 32 into fwd and
 * forwards them to rank 2 (out). */
static void forward_plans(lc_simh_t *h, unsigned char *a, size_t sent, unsigned char *fwd,
                          unsigned char *out, lincoll_plan_t **plans)
{
    assert_int_equal(lincoll_sendrecv_init(h->comm[0], a, sent, 1, NULL, 0, -1,
                                           LINCOLL_SENDRECV_CONCURRENT, &plans[0]),
                     LINCOLL_OK);
    assert_int_equal(lincoll_sendrecv_init(h->comm[1], fwd, 32, 2, fwd, 32, 0,
                                           LINCOLL_SENDRECV_RECV_FIRST, &plans[1]),
                     LINCOLL_OK);
    assert_int_equal(lincoll_sendrecv_init(h->comm[2], NULL, 0, -1, out, 32, 1,
                                           LINCOLL_SENDRECV_SEND_FIRST, &plans[2]),
                     LINCOLL_OK);
}

/* A round that is one receive followed by a round with one send: the send
 * leaves from the transport when the receive completes (lc_tl_chain_t), so
 * rank 2 holds rank 1's forward before rank 1's plan is ever tested.  Five
 * starts: the chained tag follows each start's sequence.  (Rank 1 sends in
 * round 1, so rank 2 receives in round 1: SEND_FIRST with nothing to send.) */
static void test_chained_forward(void **state)
{
    (void)state;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, 3, 1), 0);
    unsigned char a[32], fwd[32], out[32];
    lincoll_plan_t *plans[3];
    forward_plans(&h, a, 32, fwd, out, plans);
    for (int it = 0; it < 5; it++) {
        for (size_t i = 0; i < sizeof(a); i++)
            a[i] = pattern(0, 0, i, it);
        memset(out, 0, sizeof(out));
        assert_int_equal(lincoll_start(plans[1]), LINCOLL_OK);
        assert_int_equal(lincoll_start(plans[2]), LINCOLL_OK);
        assert_int_equal(lincoll_start(plans[0]), LINCOLL_OK);
        assert_int_equal(lincoll_wait(plans[0]), LINCOLL_OK);
        assert_int_equal(lincoll_test(plans[2]), LINCOLL_OK);
        assert_memory_equal(out, a, sizeof(a));
        assert_int_equal(lincoll_wait(plans[1]), LINCOLL_OK);
    }
    for (int r = 0; r < 3; r++)
        lincoll_plan_free(plans[r]);
    /* a short message fails rank 1 (mismatch) and forwards nothing */
    forward_plans(&h, a, 16, fwd, out, plans);
    assert_int_equal(lincoll_start(plans[1]), LINCOLL_OK);
    assert_int_equal(lincoll_start(plans[2]), LINCOLL_OK);
    assert_int_equal(lincoll_start(plans[0]), LINCOLL_OK);
    assert_int_equal(lincoll_wait(plans[0]), LINCOLL_OK);
    assert_int_equal(lincoll_wait(plans[1]), LINCOLL_ERR_MISMATCH);
    for (int k = 0; k < 100; k++)
        assert_int_equal(lincoll_test(plans[2]), LINCOLL_INPROGRESS);
    for (int r = 0; r < 3; r++)
        lincoll_plan_free(plans[r]);
    lc_simh_destroy(&h);
}

static void test_dead_peer(void **state)
{
    (void)state;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, 3, 1), 0);
    char in[3][16] = {{0}}, out[3][16];
    lincoll_plan_t *plans[3];
    for (int r = 0; r < 3; r++) {
        assert_int_equal(lincoll_ring_shift_init(h.comm[r], in[r], out[r], 16, 1, &plans[r]),
                         LINCOLL_OK);
    }
    lc_sim_world_kill(h.world, 2);
    /* rank 2 is dead: ranks 0 and 1 must fail, not hang */
    lincoll_plan_t *alive[3] = {plans[0], plans[1], NULL};
    lincoll_status_t st = lc_simh_run(&h, alive);
    assert_int_equal(st, LINCOLL_ERR_PEER_FAILED);
    for (int r = 0; r < 3; r++)
        lincoll_plan_free(plans[r]);
    lc_simh_destroy(&h);
}

static lc_sim_fault_t drop_all(void *arg, int src, int dst, unsigned round, size_t len)
{
    (void)arg, (void)src, (void)dst, (void)round, (void)len;
    return LC_SIM_FAULT_DROP;
}

static void test_timeout(void **state)
{
    (void)state;
    setenv("LINCOLL_TIMEOUT", "0.2", 1);
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, 2, 1), 0);
    unsetenv("LINCOLL_TIMEOUT");
    char in[2][16] = {{0}}, out[2][16];
    lincoll_plan_t *plans[2];
    for (int r = 0; r < 2; r++) {
        assert_int_equal(lincoll_ring_shift_init(h.comm[r], in[r], out[r], 16, 1, &plans[r]),
                         LINCOLL_OK);
    }
    lc_sim_world_set_fault(h.world, drop_all, NULL, 0);
    assert_int_equal(lc_simh_run(&h, plans), LINCOLL_ERR_TIMEOUT);
    /* a failed plan can be freed and the context finalized at once */
    for (int r = 0; r < 2; r++)
        lincoll_plan_free(plans[r]);
    lc_simh_destroy(&h);
}

static void test_dump_and_bad_args(void **state)
{
    (void)state;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, 4, 2), 0);
    char in[4 * 8], out[4 * 8];
    lincoll_plan_t *p;
    assert_int_equal(lincoll_alltoall_init(h.comm[1], in, out, 8, 2, &p), LINCOLL_OK);
    char text[2048];
    assert_int_equal(lincoll_plan_dump(p, text, sizeof(text)), LINCOLL_OK);
    assert_non_null(strstr(text, "alltoall_ports"));
    assert_non_null(strstr(text, "C1=2"));
    lincoll_plan_free(p);
    assert_int_equal(lincoll_alltoall_init(NULL, in, out, 8, 1, &p), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_alltoall_init(h.comm[0], in, in + 4, 8, 1, &p), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_alltoall_init(h.comm[0], in, out, 8, 65, &p), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_ring_shift_init(h.comm[0], NULL, out, 8, 1, &p), LINCOLL_ERR_INVALID);
    assert_int_equal(
        lincoll_sendrecv_init(h.comm[0], in, 8, 4, NULL, 0, -1, LINCOLL_SENDRECV_CONCURRENT, &p),
        LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_start(NULL), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_plan_stats(NULL, NULL), LINCOLL_ERR_INVALID);
    lc_simh_destroy(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_shift),        cmocka_unit_test(test_alltoall_ports),
        cmocka_unit_test(test_alltoall_large_k),  cmocka_unit_test(test_port_limit),
        cmocka_unit_test(test_mismatch),          cmocka_unit_test(test_chained_forward),
        cmocka_unit_test(test_dead_peer),         cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_dump_and_bad_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
