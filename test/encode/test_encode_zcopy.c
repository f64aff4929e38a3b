/*
 * test/encode/test_encode_zcopy.c: the zcopy encode plan (core/encode/zcopy.c)
 * on K virtual ranks of the sim transport, whose rkey_ptr maps every rank's
 * memory.
 *
 * The plans are compiled with the internal builders for mapped peers and
 * their bind records exchanged by hand (lc_simh_bind), because one thread
 * drives every virtual rank: the public init's exchange would block (the
 * public path runs over UCX in encode_ucx).  Checked:
 *  - zcopy (inputs mapped) and zcopy_split (inputs and outputs mapped, rank
 *    k computes segment k of every output): K = 2..9, 16; GF(2^8) (4 KiB +
 *    64 K bytes, and 1001 bytes: segments in element units) and GF(65537);
 *    dense random A, and a sparse A with a zero column, a zero row and zeros
 *    on the diagonal: every rank's output equals x A computed serially, over
 *    three starts with new inputs (persistent plan, flag counters carry over);
 *  - the sim's measured rounds and messages equal the plan's closed form:
 *    2 rounds; zcopy: per rank one 0-byte flag to each reader and each
 *    source, zcopy_split: to every peer; no data byte moved; the plan stats
 *    report C1 = 2 and C2 = the bytes moved between ranks (zcopy: packets
 *    read, K - 1 dense; zcopy_split: 2 (K - 1) segments), and
 *    lincoll_encode_cost agrees for zcopy;
 *  - a dead peer ends the plan with LINCOLL_ERR_PEER_FAILED, no hang;
 *  - the public init in sim (no bootstrap: no agreement possible): a forced
 *    zcopy falls back to a tag algorithm with the right result, or is
 *    LINCOLL_ERR_UNSUPPORTED under LINCOLL_ALGO_FALLBACK=error;
 *    LINCOLL_ENCODE_ALGO=zcopy is a known value, an unknown one is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "core/exec/exec.h"
#include "core/encode/encode_int.h"
#include "encode/enc_common.h"

/* rank r's zcopy IR (zcopy_split when split), compiled for mapped peers */
static lc_plan_t *zc_ir(lincoll_comm_t *comm, const lincoll_field_t *f, const uint64_t *A, size_t B,
                        void *in, void *out, int split)
{
    int K = lincoll_comm_size(comm);
    lc_enc_b_t b;
    lc_env_t env = lc_exec_env(comm, 1);
    assert_int_equal(lc_enc_builder(&b, &env, "encode", 1, f, B, 0), LINCOLL_OK);
    b.plan->env.mapped = 1;
    int si = lc_plan_slot_user(b.plan, in, B), so = lc_plan_slot_user(b.plan, out, B);
    assert_true(si >= 0 && so >= 0);
    lc_enc_dense_t d = {.A = A, .K = K, .q = lincoll_gf_field_order(f), .bad_j = -1};
    const lc_enc_args_t a = lc_enc_args(&b, K, lincoll_comm_rank(comm), lc_enc_dense_coef, &d,
                                        lc_ref(si, 0), lc_ref(so, 0));
    lincoll_status_t st = split ? lc_enc_zcopy_split_build(&b, &a) : lc_enc_zcopy_build(&b, &a);
    assert_int_equal(st, LINCOLL_OK);
    assert_int_equal(lc_plan_finalize(b.plan), LINCOLL_OK);
    return b.plan;
}

/* every rank's zcopy plan, the windows exchanged by hand */
static void zc_plans(lc_simh_t *h, const lincoll_field_t *f, const uint64_t *A, size_t B, void **in,
                     void **out, int split, lincoll_plan_t **plans)
{
    lc_plan_t **irs = calloc((size_t)h->K, sizeof(*irs));
    for (int r = 0; r < h->K; r++)
        irs[r] = zc_ir(h->comm[r], f, A, B, in[r], out[r], split);
    assert_int_equal(lc_simh_bind(h, irs, plans), LINCOLL_OK);
    free(irs);
}

static void run_case(const lincoll_field_t *f, int K, size_t B, int sparse, int split,
                     uint64_t seed)
{
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, K, 1), 0);
    const uint64_t q = lincoll_gf_field_order(f);
    const size_t es = lincoll_gf_field_elem_size(f);
    uint64_t *A = malloc(8 * (size_t)K * (size_t)K), s = seed;
    for (int i = 0; i < K * K; i++) {
        int j = i / K, k = i % K;
        A[i] = enc_rand(&s) % q;
        if (sparse && (k == K - 1 || j == 0 || j == k || (i % 3) == 0)) A[i] = 0;
    }
    void **in = calloc((size_t)K, sizeof(void *)), **lout = calloc((size_t)K, sizeof(void *));
    uint8_t **hout = enc_bufs(f, K, B, &s, 0), **out = split ? (uint8_t **)lout : hout;
    lincoll_plan_t **plans = calloc((size_t)K, sizeof(*plans));
    for (int r = 0; r < K; r++) {
        assert_int_equal(lincoll_mem_alloc(h.ctx[r], B, &in[r]), LINCOLL_OK);
        if (split) assert_int_equal(lincoll_mem_alloc(h.ctx[r], B, &lout[r]), LINCOLL_OK);
    }
    zc_plans(&h, f, A, B, in, (void **)out, split, plans);
    for (int start = 0; start < 3; start++) {
        for (int r = 0; r < K; r++) {
            for (size_t e = 0; e < B / es; e++)
                enc_put(in[r], es, e, enc_rand(&s) % q);
            memset(out[r], 0x5a, B);
        }
        lc_sim_world_reset_stats(h.world);
        assert_int_equal(lc_simh_run(&h, plans), LINCOLL_OK);
        int bad = enc_check_matrix(f, K, A, (uint8_t **)in, out, B);
        if (bad)
            fail_msg("zcopy K=%d B=%zu q=%llu sparse %d split %d start %d: %d rank(s) differ from "
                     "x A",
                     K, B, (unsigned long long)q, sparse, split, start, bad);
        /* measured: 2 rounds, flags only, one per (reader, source) pair each way */
        uint64_t flags = 0;
        for (int i = 0; i < K * K; i++)
            flags += i / K != i % K && A[i] != 0;
        assert_int_equal(lc_sim_world_rounds(h.world), flags || split ? 2 : 0);
        for (int r = 0; r < K; r++) {
            uint64_t ms, bs, mr, br, want = 0, srcs = 0;
            for (int j = 0; j < K; j++) {
                if (j == r) continue;
                want += A[(size_t)j * K + r] != 0; /* r reads j: waits ready, sends done */
                want += A[(size_t)r * K + j] != 0; /* j reads r: sends ready, waits done */
                srcs += A[(size_t)j * K + r] != 0;
            }
            /* zcopy_split: segment r of every packet, (K - 1) segments read and
             * written; flags with every peer */
            size_t u = B % 64 == 0 ? 64 : lincoll_gf_field_elem_size(f), n = B / u;
            size_t seg = (n / (size_t)K + ((size_t)r < n % (size_t)K)) * u;
            uint64_t c2 = split ? 2 * (uint64_t)(K - 1) * seg : srcs * B;
            if (split) want = 2 * (uint64_t)(K - 1);
            lc_sim_world_rank_stats(h.world, r, &ms, &bs, &mr, &br);
            assert_int_equal(ms, want);
            assert_int_equal(mr, want);
            assert_int_equal(bs + br, 0);
            lincoll_plan_stats_t st;
            assert_int_equal(lincoll_plan_stats(plans[r], &st), LINCOLL_OK);
            assert_string_equal(st.algorithm, split ? "zcopy_split" : "zcopy");
            assert_int_equal(st.c2_bytes, c2);
            assert_int_equal(st.c2_elems, c2 / B);
            assert_true(st.rounds <= 2);
            if (!sparse || split) assert_int_equal(st.rounds, 2);
        }
    }
    for (int r = 0; r < K; r++) {
        lincoll_plan_free(plans[r]);
        lincoll_mem_free(h.ctx[r], in[r]);
        if (split) lincoll_mem_free(h.ctx[r], lout[r]);
    }
    enc_free_bufs(hout, K);
    free(in);
    free(lout);
    free(plans);
    free(A);
    lc_simh_destroy(&h);
}

static void test_zcopy_results(void **state)
{
    (void)state;
    lincoll_field_t *f8, *fp;
    assert_int_equal(lincoll_gf_field_create(256, &f8), LINCOLL_OK);
    assert_int_equal(lincoll_gf_field_create(65537, &fp), LINCOLL_OK);
    static const int Ks[] = {2, 3, 4, 5, 6, 7, 8, 9, 16};
    int cases = 0;
    for (size_t i = 0; i < sizeof(Ks) / sizeof(Ks[0]); i++) {
        for (int sparse = 0; sparse < 2; sparse++) {
            for (int split = 0; split < 2; split++) {
                /* uneven segments: 64-byte units (GF(2^8)), element units (odd size) */
                run_case(f8, Ks[i], 4096 + 64 * (size_t)Ks[i], sparse, split, 7 + (uint64_t)i);
                run_case(f8, Ks[i], 1001, sparse, split, 17 + (uint64_t)i);
                run_case(fp, Ks[i], 1024 * 4, sparse, split, 99 + (uint64_t)i);
                cases += 3;
            }
        }
    }
    /* the closed form the selection and lincoll_perf use */
    for (int K = 2; K <= 64; K++) {
        unsigned c1;
        uint64_t c2;
        int m = -1;
        assert_int_equal(lincoll_encode_cost(K, 1, LINCOLL_ENCODE_ALGO_ZCOPY, &c1, &c2, &m),
                         LINCOLL_OK);
        assert_int_equal(c1, 2);
        assert_int_equal(c2, (uint64_t)(K - 1));
        assert_int_equal(m, 0);
    }
    assert_string_equal(lincoll_encode_algo_name(LINCOLL_ENCODE_ALGO_ZCOPY), "zcopy");
    printf("zcopy: %d cases\n", cases);
    lincoll_gf_field_destroy(f8);
    lincoll_gf_field_destroy(fp);
}

/* A peer that dies before its "ready" flag: the survivors fail, they do not hang. */
static void test_zcopy_dead_peer(void **state)
{
    (void)state;
    const int K = 3;
    const size_t B = 4096;
    lincoll_field_t *f8;
    assert_int_equal(lincoll_gf_field_create(256, &f8), LINCOLL_OK);
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, K, 1), 0);
    uint64_t A[9], s = 5;
    for (int i = 0; i < 9; i++)
        A[i] = 1 + enc_rand(&s) % 255;
    void *in[3];
    uint8_t **out = enc_bufs(f8, K, B, &s, 0);
    lincoll_plan_t *plans[3];
    for (int r = 0; r < K; r++) {
        assert_int_equal(lincoll_mem_alloc(h.ctx[r], B, &in[r]), LINCOLL_OK);
        memset(in[r], r + 1, B);
    }
    zc_plans(&h, f8, A, B, in, (void **)out, 0, plans);
    lc_sim_world_kill(h.world, 2);
    lincoll_plan_t *live[3] = {plans[0], plans[1], NULL};
    assert_int_equal(lc_simh_run(&h, live), LINCOLL_ERR_PEER_FAILED);
    for (int r = 0; r < K; r++) {
        lincoll_plan_free(plans[r]);
        lincoll_mem_free(h.ctx[r], in[r]);
    }
    enc_free_bufs(out, K);
    lc_simh_destroy(&h);
    lincoll_gf_field_destroy(f8);
}

typedef struct parg {
    const lincoll_field_t *f;
    const uint64_t *A;
    size_t B;
    lincoll_encode_algo_t algo;
} parg_t;

static lincoll_status_t init_pub(lincoll_comm_t *comm, int r, const void *in, void *out, void *arg,
                                 lincoll_plan_t **plan)
{
    (void)r;
    parg_t *a = arg;
    int K = lincoll_comm_size(comm);
    lincoll_encode_opts_t o = {.ports = 1, .algo = a->algo};
    return lincoll_encode_init(comm, a->f, a->A, K, K, a->B, in, out, &o, plan);
}

/* The public path in sim: no agreement at init, so a forced zcopy falls back
 * (or fails under LINCOLL_ALGO_FALLBACK=error) on every rank alike. */
static void test_zcopy_public_fallback(void **state)
{
    (void)state;
    const int K = 4;
    const size_t B = 1 << 20;
    lincoll_field_t *f8;
    assert_int_equal(lincoll_gf_field_create(256, &f8), LINCOLL_OK);
    uint64_t A[16], s = 11;
    for (int i = 0; i < 16; i++)
        A[i] = enc_rand(&s) % 256;
    uint8_t **x = enc_bufs(f8, K, B, &s, 1), **y = enc_bufs(f8, K, B, &s, 0);
    parg_t a = {.f = f8, .A = A, .B = B, .algo = LINCOLL_ENCODE_ALGO_ZCOPY};
    enc_run_t res;
    assert_int_equal(enc_run(K, 1, x, y, init_pub, &a, 2, &res), 0);
    assert_int_equal(res.init_st, LINCOLL_OK);
    assert_int_equal(res.run_st, LINCOLL_OK);
    assert_string_not_equal(res.algo, "zcopy");
    assert_int_equal(enc_check_matrix(f8, K, A, x, y, B), 0);
    /* LINCOLL_ENCODE_ALGO=zcopy is a known value (falls back the same way) */
    assert_int_equal(setenv("LINCOLL_ENCODE_ALGO", "zcopy", 1), 0);
    a.algo = LINCOLL_ENCODE_ALGO_AUTO;
    assert_int_equal(enc_run(K, 1, x, y, init_pub, &a, 1, &res), 0);
    assert_int_equal(res.init_st, LINCOLL_OK);
    assert_string_not_equal(res.algo, "zcopy");
    /* an unknown value: the init refuses it, naming the variable */
    assert_int_equal(setenv("LINCOLL_ENCODE_ALGO", "zcopy_nope", 1), 0);
    assert_int_equal(enc_run(K, 1, x, y, init_pub, &a, 1, &res), 0);
    assert_int_equal(res.init_st, LINCOLL_ERR_INVALID);
    unsetenv("LINCOLL_ENCODE_ALGO");
    /* the configuration is read when a context is created */
    assert_int_equal(setenv("LINCOLL_ALGO_FALLBACK", "error", 1), 0);
    a.algo = LINCOLL_ENCODE_ALGO_ZCOPY;
    assert_int_equal(enc_run(K, 1, x, y, init_pub, &a, 1, &res), 0);
    assert_int_equal(res.init_st, LINCOLL_ERR_UNSUPPORTED);
    unsetenv("LINCOLL_ALGO_FALLBACK");
    enc_free_bufs(x, K);
    enc_free_bufs(y, K);
    lincoll_gf_field_destroy(f8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zcopy_results),
        cmocka_unit_test(test_zcopy_dead_peer),
        cmocka_unit_test(test_zcopy_public_fallback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
