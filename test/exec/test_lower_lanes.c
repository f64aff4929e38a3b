/*
 * test/exec/test_lower_lanes.c: the lanes the lowering gives real plans
 * (core/exec/lower.c, transports/transport.h "lanes").
 *
 * Every virtual rank's plan of an operation is compiled and bound on sim
 * contexts whose transport claims L lanes (the sim ops with lanes() = L; the
 * plans are only lowered, never run).  Then, for every message of every
 * round (sender s, receiver d, round, k-th between the pair):
 *  - the two sides agree: a receive on an exact lane k is matched by a send
 *    on lane k (modulo L), and a receive on ANY by a send from a pair with
 *    one message in that round;
 *  - p ports are p links: where a rank sends at most L messages in a round,
 *    they leave on distinct lanes, and where it receives at most L, they
 *    arrive on distinct lanes (both modulo L);
 *  - point-to-point plans carry no lane.
 * Over prepare_shoot, best_window and direct encodes (with and without the
 * checksum pass, whole and chunk-pipelined), the DFT schedule, allreduce
 * (rhd, ring) and a hand-built round of two messages to one peer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <lincoll/lincoll.h>

#include "common/sim_harness.h"
#include "core/context/context.h"
#include "core/exec/low.h"
#include "core/plan/plan.h"

static int fake_lanes;
static lc_tl_ops_t lane_ops;
static int lanes_of(lc_tl_t *tl)
{
    (void)tl;
    return fake_lanes;
}

/* K sim ranks whose transport claims L lanes. */
static void lanes_world(lc_simh_t *h, int K, int ports, int L)
{
    assert_int_equal(lc_simh_create(h, K, ports), 0);
    lane_ops = lc_tl_sim_ops;
    lane_ops.lanes = lanes_of;
    fake_lanes = L;
    for (int r = 0; r < K; r++)
        h->ctx[r]->tl_ops = &lane_ops;
}

static void unlanes_world(lc_simh_t *h)
{
    for (int r = 0; r < h->K; r++)
        h->ctx[r]->tl_ops = &lc_tl_sim_ops;
    lc_simh_destroy(h);
}

typedef struct msg {
    int s, d;
    unsigned round, k;
    int code; /* LC_TL_PEER_CODE of the peer argument */
} msg_t;

/* The lane a code names, modulo L (ANY: -1). */
static int lane_of(unsigned code, int L)
{
    if (code == LC_TL_LANE_ANY_CODE) return -1;
    return code == 0 ? 0 : (int)((code - 1) % (unsigned)L);
}

/* Check the plans[0..K) of one operation (see the file comment). */
static void check_lanes(lincoll_plan_t **plans, int K, int L, const char *what)
{
    size_t cap = 1 << 16, ns = 0, nr = 0;
    msg_t *snd = calloc(cap, sizeof(*snd)), *rcv = calloc(cap, sizeof(*rcv));
    assert_true(snd != NULL && rcv != NULL);
    int multi = 0;
    for (int r = 0; r < K; r++) {
        const lc_low_t *low = plans[r]->low;
        for (unsigned t = 0; t < low->nrounds; t++) {
            const lc_lround_t *F = &low->r[t];
            int lanes_out[64] = {0}, lanes_in[64] = {0}, nout = 0, nin = 0;
            for (unsigned i = 0; i < F->n; i++) {
                const lc_lx_t *x = &F->x[i];
                if (x->kind != LC_LX_SEND && x->kind != LC_LX_RECV) continue;
                int peer = LC_TL_PEER_RANKOF(x->wpeer);
                unsigned code = LC_TL_PEER_CODE(x->wpeer);
                msg_t *list = x->kind == LC_LX_SEND ? snd : rcv;
                size_t *n = x->kind == LC_LX_SEND ? &ns : &nr;
                unsigned k = 0;
                for (unsigned j = 0; j < i; j++)
                    k += F->x[j].kind == x->kind && LC_TL_PEER_RANKOF(F->x[j].wpeer) == peer;
                multi |= k > 0;
                assert_true(*n < cap);
                list[(*n)++] =
                    x->kind == LC_LX_SEND
                        ? (msg_t){.s = r, .d = peer, .round = t, .k = k, .code = (int)code}
                        : (msg_t){.s = peer, .d = r, .round = t, .k = k, .code = (int)code};
                if (x->kind == LC_LX_SEND) {
                    if (code == LC_TL_LANE_ANY_CODE)
                        fail_msg("%s: rank %d round %u: a send on ANY lane", what, r, t);
                    if (nout < 64) lanes_out[nout++] = lane_of(code, L);
                } else {
                    nin++;
                }
            }
            (void)lanes_in;
            /* a rank's sends of one round on distinct lanes while they fit */
            if (nout <= L) {
                for (int a = 0; a < nout; a++)
                    for (int b = 0; b < a; b++)
                        if (lanes_out[a] == lanes_out[b])
                            fail_msg("%s: rank %d round %u: %d sends, two on lane %d", what, r, t,
                                     nout, lanes_out[a]);
            }
            (void)nin;
        }
    }
    /* every receive has its send, with agreeing lanes; arrivals distinct */
    for (size_t i = 0; i < nr; i++) {
        const msg_t *m = &rcv[i];
        const msg_t *s = NULL;
        for (size_t j = 0; j < ns && s == NULL; j++)
            if (snd[j].s == m->s && snd[j].d == m->d && snd[j].round == m->round &&
                snd[j].k == m->k)
                s = &snd[j];
        if (s == NULL)
            fail_msg("%s: rank %d round %u receive %u from %d has no send", what, m->d, m->round,
                     m->k, m->s);
        int rl = lane_of((unsigned)m->code, L), sl = lane_of((unsigned)s->code, L);
        if (rl >= 0 && rl != sl)
            fail_msg("%s: %d -> %d round %u #%u: sent on lane %d, received on lane %d", what, m->s,
                     m->d, m->round, m->k, sl, rl);
    }
    for (size_t i = 0; i < nr; i++) {
        /* the lanes the messages arriving at d in this round travel on */
        int lanes[64], n = 0;
        const msg_t *m = &rcv[i];
        if (i > 0 && rcv[i - 1].d == m->d && rcv[i - 1].round == m->round) continue;
        for (size_t j = i; j < nr && rcv[j].d == m->d && rcv[j].round == m->round; j++) {
            for (size_t q = 0; q < ns; q++) {
                const msg_t *s = &snd[q];
                if (s->s == rcv[j].s && s->d == rcv[j].d && s->round == rcv[j].round &&
                    s->k == rcv[j].k && n < 64)
                    lanes[n++] = lane_of((unsigned)s->code, L);
            }
        }
        if (n <= L) {
            for (int a = 0; a < n; a++)
                for (int b = 0; b < a; b++)
                    if (lanes[a] == lanes[b])
                        fail_msg("%s: rank %d round %u: %d arrivals, two on lane %d", what, m->d,
                                 m->round, n, lanes[a]);
        }
    }
    assert_int_equal(ns, nr);
    (void)multi;
    free(snd);
    free(rcv);
}

static void encode_case(int K, int p, int L, lincoll_encode_algo_t algo, size_t B)
{
    lc_simh_t h;
    lanes_world(&h, K, p, L);
    lincoll_field_t *f;
    assert_int_equal(lincoll_gf_field_create(256, &f), LINCOLL_OK);
    uint64_t *A = malloc(8 * (size_t)K * (size_t)K);
    for (int i = 0; i < K * K; i++)
        A[i] = (uint64_t)(i * 2654435761u >> 7) % 255 + 1;
    lincoll_plan_t **plans = calloc((size_t)K, sizeof(*plans));
    char **bufs = calloc((size_t)K * 2, sizeof(*bufs));
    for (int r = 0; r < K; r++) {
        bufs[2 * r] = calloc(1, B);
        bufs[2 * r + 1] = calloc(1, B);
        lincoll_encode_opts_t o = {.ports = p, .algo = algo};
        lincoll_status_t st = lincoll_encode_init(h.comm[r], f, A, K, K, B, bufs[2 * r],
                                                  bufs[2 * r + 1], &o, &plans[r]);
        if (st != LINCOLL_OK)
            fail_msg("encode init K=%d p=%d rank %d: %s", K, p, r, lincoll_strerror(st));
    }
    char what[96];
    snprintf(what, sizeof(what), "encode %s K=%d p=%d L=%d B=%zu", lincoll_encode_algo_name(algo),
             K, p, L, B);
    check_lanes(plans, K, L, what);
    for (int r = 0; r < K; r++) {
        lincoll_plan_free(plans[r]);
        free(bufs[2 * r]);
        free(bufs[2 * r + 1]);
    }
    free(plans);
    free(bufs);
    free(A);
    lincoll_gf_field_destroy(f);
    unlanes_world(&h);
}

static void test_encode_lanes(void **state)
{
    (void)state;
    const lincoll_encode_algo_t algos[] = {LINCOLL_ENCODE_ALGO_PREPARE_SHOOT,
                                           LINCOLL_ENCODE_ALGO_BEST_WINDOW,
                                           LINCOLL_ENCODE_ALGO_DIRECT};
    const int Ks[] = {4, 5, 8, 9, 16};
    for (size_t a = 0; a < 3; a++)
        for (size_t i = 0; i < sizeof(Ks) / sizeof(Ks[0]); i++)
            for (int p = 1; p <= 3; p++)
                encode_case(Ks[i], p, p, algos[a], 64);
}

/* crc32c checksum rounds, and chunk pipelining (several messages to one
 * peer per round: exact lanes) */
static void test_encode_passes_lanes(void **state)
{
    (void)state;
    setenv("LINCOLL_ENCODE_CHECKSUM", "crc32c", 1);
    encode_case(8, 2, 2, LINCOLL_ENCODE_ALGO_PREPARE_SHOOT, 64);
    encode_case(9, 2, 2, LINCOLL_ENCODE_ALGO_DIRECT, 64);
    unsetenv("LINCOLL_ENCODE_CHECKSUM");
    setenv("LINCOLL_ENCODE_CHUNK", "64", 1);
    encode_case(8, 2, 2, LINCOLL_ENCODE_ALGO_PREPARE_SHOOT, 256);
    encode_case(16, 3, 3, LINCOLL_ENCODE_ALGO_BEST_WINDOW, 256);
    unsetenv("LINCOLL_ENCODE_CHUNK");
}

static void test_dft_lanes(void **state)
{
    (void)state;
    const int cases[][2] = {{16, 3}, {16, 1}, {8, 1}, {9, 2}};
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        int K = cases[c][0], p = cases[c][1];
        lc_simh_t h;
        lanes_world(&h, K, p, p);
        lincoll_field_t *f;
        /* 65537 for powers of 2 and 4, 2^31 - 1 (q - 1 = 2 * 3^2 * ...) for 9 */
        assert_int_equal(lincoll_gf_field_create(K == 9 ? 2147483647 : 65537, &f), LINCOLL_OK);
        lincoll_plan_t **plans = calloc((size_t)K, sizeof(*plans));
        size_t B = 64;
        char *in = calloc((size_t)K, B), *out = calloc((size_t)K, B);
        for (int r = 0; r < K; r++) {
            lincoll_encode_opts_t o = {.ports = p, .algo = LINCOLL_ENCODE_ALGO_SPECIFIC};
            lincoll_status_t st =
                lincoll_encode_dft_init(h.comm[r], f, LINCOLL_ENCODE_DFT_NATURAL, B,
                                        in + (size_t)r * B, out + (size_t)r * B, &o, &plans[r]);
            if (st != LINCOLL_OK) fail_msg("dft init K=%d p=%d: %s", K, p, lincoll_strerror(st));
        }
        char what[64];
        snprintf(what, sizeof(what), "dft K=%d p=%d", K, p);
        check_lanes(plans, K, p, what);
        for (int r = 0; r < K; r++)
            lincoll_plan_free(plans[r]);
        free(plans);
        free(in);
        free(out);
        lincoll_gf_field_destroy(f);
        unlanes_world(&h);
    }
}

static void test_allreduce_lanes(void **state)
{
    (void)state;
    const char *algos[] = {"rhd", "ring"};
    for (int a = 0; a < 2; a++) {
        setenv("LINCOLL_ALLREDUCE_ALGO", algos[a], 1);
        for (int K = 4; K <= 12; K += 3) {
            lc_simh_t h;
            lanes_world(&h, K, 1, 2);
            lincoll_plan_t **plans = calloc((size_t)K, sizeof(*plans));
            float *x = calloc((size_t)K * 1024, sizeof(float)),
                  *y = calloc((size_t)K * 1024, sizeof(float));
            for (int r = 0; r < K; r++)
                assert_int_equal(lincoll_allreduce_init(h.comm[r], x + r * 1024, y + r * 1024, 1024,
                                                        LINCOLL_FLOAT, LINCOLL_SUM, &plans[r]),
                                 LINCOLL_OK);
            char what[64];
            snprintf(what, sizeof(what), "allreduce %s K=%d", algos[a], K);
            check_lanes(plans, K, 2, what);
            for (int r = 0; r < K; r++)
                lincoll_plan_free(plans[r]);
            free(plans);
            free(x);
            free(y);
            unlanes_world(&h);
        }
    }
    unsetenv("LINCOLL_ALLREDUCE_ALGO");
}

/* Two messages to one peer in a round: lanes 0 and 1 on both sides (what the
 * two-link test sends); point-to-point plans: no lane. */
static void test_pair_and_p2p(void **state)
{
    (void)state;
    lc_simh_t h;
    lanes_world(&h, 2, 2, 2);
    char buf[2][64];
    lincoll_plan_t *plans[2];
    for (int r = 0; r < 2; r++) {
        lc_env_t env = lc_exec_env(h.comm[r], 0);
        lc_plan_t *ir;
        assert_int_equal(lc_plan_create(&env, "pair", 2, &ir), LINCOLL_OK);
        int s = lc_plan_slot_user(ir, buf[r], sizeof(buf[r]));
        int t = lc_plan_round(ir);
        for (int j = 0; j < 2; j++) {
            if (r == 0)
                assert_int_equal(lc_plan_send(ir, t, 1, lc_ref(s, 32 * (size_t)j), 32), LINCOLL_OK);
            else
                assert_int_equal(lc_plan_recv(ir, t, 0, lc_ref(s, 32 * (size_t)j), 32), LINCOLL_OK);
        }
        assert_int_equal(lc_plan_finalize(ir), LINCOLL_OK);
        assert_int_equal(lc_bind_local(h.comm[r], ir, &plans[r]), LINCOLL_OK);
        const lc_lround_t *F = &plans[r]->low->r[0];
        assert_int_equal(F->n, 2);
        assert_int_equal(LC_TL_PEER_CODE(F->x[0].wpeer), 0);      /* lane 0 */
        assert_int_equal(LC_TL_PEER_CODE(F->x[1].wpeer), 1u + 1); /* lane 1 */
    }
    check_lanes(plans, 2, 2, "pair");
    lincoll_plan_free(plans[0]);
    lincoll_plan_free(plans[1]);
    /* point to point */
    lincoll_plan_t *pp;
    assert_int_equal(lincoll_sendrecv_init(h.comm[0], buf[0], 8, 1, buf[0] + 8, 8, 1,
                                           LINCOLL_SENDRECV_CONCURRENT, &pp),
                     LINCOLL_OK);
    for (unsigned t = 0; t < pp->low->nrounds; t++)
        for (unsigned i = 0; i < pp->low->r[t].n; i++)
            assert_int_equal(LC_TL_PEER_CODE(pp->low->r[t].x[i].wpeer), 0);
    lincoll_plan_free(pp);
    unlanes_world(&h);
}

/* Without lanes (the sim as it is) nothing carries a lane. */
static void test_one_lane(void **state)
{
    (void)state;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, 8, 2), 0);
    lincoll_field_t *f;
    assert_int_equal(lincoll_gf_field_create(256, &f), LINCOLL_OK);
    uint64_t A[64];
    for (int i = 0; i < 64; i++)
        A[i] = (uint64_t)i % 255 + 1;
    char in[64], out[64];
    lincoll_plan_t *p;
    lincoll_encode_opts_t o = {.ports = 2, .algo = LINCOLL_ENCODE_ALGO_DIRECT};
    assert_int_equal(lincoll_encode_init(h.comm[3], f, A, 8, 8, 64, in, out, &o, &p), LINCOLL_OK);
    for (unsigned t = 0; t < p->low->nrounds; t++)
        for (unsigned i = 0; i < p->low->r[t].n; i++)
            assert_int_equal(LC_TL_PEER_CODE(p->low->r[t].x[i].wpeer), 0);
    lincoll_plan_free(p);
    lincoll_gf_field_destroy(f);
    lc_simh_destroy(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode_lanes), cmocka_unit_test(test_encode_passes_lanes),
        cmocka_unit_test(test_dft_lanes),    cmocka_unit_test(test_allreduce_lanes),
        cmocka_unit_test(test_pair_and_p2p), cmocka_unit_test(test_one_lane),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
