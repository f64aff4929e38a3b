/*
 * test/encode/test_encode_chunk.c: chunk pipelining of encode plans (sim
 * transport).
 *
 * For every family — universal prepare_shoot / best_window / direct, DFT
 * (specific, digit-reversed and natural), coset Vandermonde, Lagrange
 * (specific), [N, k] RS encode and repair, and the star and tree repairs on
 * the k survivors — the same call is compiled once
 * whole (LINCOLL_ENCODE_CHUNK_NONE) and once in chunks with an uneven last
 * chunk, and run twice (persistent).  Checked:
 *  - the chunked outputs equal the whole-packet outputs byte for byte (and,
 *    for the universal algorithms, x A computed serially);
 *  - the chunked plan runs GF steps during transfers (its dump);
 *  - lincoll_encode_chunks() reports ceil(B / chunk) chunks of the asked
 *    size rounded up to 64 bytes;
 *  - bytes moved (sum over ranks) and the measured C2 in bytes are those of
 *    the whole-packet plan, the measured message rounds are chunks x C1
 *    (universal), and the plan stats (from the IR alone) say the same: C1 x
 *    chunks rounds, the schedule's C2;
 * Tiny packets are never chunked by the model; the model cuts alike on every
 * rank where ranks' work differs (natural DFT, RS, repair, direct at 1 MiB);
 * LINCOLL_ENCODE_CHUNK is honoured; for a 2 MiB packet the model's choice predicts no more than the
 * whole packet and gives the same result.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "encode/enc_common.h"

enum {
    F_PS,
    F_BW,
    F_DIRECT,
    F_DFT,
    F_DFT_NAT,
    F_VDM,
    F_LAG,
    F_RS,
    F_REPAIR,
    F_REP_STAR,
    F_REP_TREE,
    F_LAST
};
static const char *const fam_names[F_LAST] = {"prepare_shoot", "best_window", "direct",     "dft",
                                              "dft_natural",   "vandermonde", "lagrange",   "rs",
                                              "repair",        "repair_star", "repair_tree"};

typedef struct carg {
    int fam, p, k;
    const lincoll_field_t *f;
    const uint64_t *A;
    size_t B, chunk;
    unsigned nchunks; /* lincoll_encode_chunks() of rank 0's plan */
    size_t chunk_got;
    int has_during; /* rank 0's plan dump shows steps that run during transfers */
} carg_t;

static lincoll_status_t init_fam(lincoll_comm_t *comm, int r, const void *in, void *out, void *arg,
                                 lincoll_plan_t **plan)
{
    carg_t *c = arg;
    int K = lincoll_comm_size(comm);
    lincoll_encode_opts_t o = {.ports = c->p, .chunk_bytes = c->chunk};
    lincoll_status_t st = LINCOLL_ERR_INTERNAL;
    switch (c->fam) {
    case F_PS:
    case F_BW:
    case F_DIRECT:
        o.algo = c->fam == F_PS   ? LINCOLL_ENCODE_ALGO_PREPARE_SHOOT
                 : c->fam == F_BW ? LINCOLL_ENCODE_ALGO_BEST_WINDOW
                                  : LINCOLL_ENCODE_ALGO_DIRECT;
        st = lincoll_encode_init(comm, c->f, c->A, K, K, c->B, in, out, &o, plan);
        break;
    case F_DFT:
    case F_DFT_NAT:
        o.algo = LINCOLL_ENCODE_ALGO_SPECIFIC;
        st = lincoll_encode_dft_init(comm, c->f,
                                     c->fam == F_DFT_NAT ? LINCOLL_ENCODE_DFT_NATURAL : 0, c->B, in,
                                     out, &o, plan);
        break;
    case F_VDM:
        o.algo = LINCOLL_ENCODE_ALGO_SPECIFIC;
        st = lincoll_encode_vandermonde_init(comm, c->f, NULL, NULL, c->B, in, out, &o, plan);
        break;
    case F_LAG:
        o.algo = LINCOLL_ENCODE_ALGO_SPECIFIC;
        st = lincoll_encode_lagrange_init(comm, c->f, NULL, NULL, NULL, NULL, c->B, in, out, &o,
                                          plan);
        break;
    case F_RS:
        st = lincoll_encode_rs_init(comm, c->f, c->k, LINCOLL_GF_RS_CAUCHY, NULL, c->B, in, out, &o,
                                    plan);
        break;
    case F_REPAIR: { /* k + 2 < K: the N-rank encode of the sparse matrix */
        int lost[2] = {0, K - 1}, surv[64], ns = 0;
        for (int j = 1; j < K - 1 && ns < c->k; j++)
            surv[ns++] = j;
        st = lincoll_encode_repair_init(comm, c->f, c->k, LINCOLL_GF_RS_CAUCHY, NULL, surv, 2, lost,
                                        c->B, in, out, &o, plan);
        break;
    }
    case F_REP_STAR:
    case F_REP_TREE: { /* on the k = K - 2 survivors: ranks 0 and K - 1 rebuild their rows */
        int holds[64], needs[64];
        for (int j = 0; j < K; j++) {
            holds[j] = j == 0 || j == K - 1 ? -1 : j;
            needs[j] = j == 0 || j == K - 1 ? j : -1;
        }
        lincoll_repair_opts_t ro = {.ports = c->p,
                                    .algo = c->fam == F_REP_STAR ? LINCOLL_REPAIR_ALGO_STAR
                                                                 : LINCOLL_REPAIR_ALGO_TREE,
                                    .slice_bytes = c->chunk};
        st = lincoll_encode_repair_k_init(comm, c->f, K, K - 2, LINCOLL_GF_RS_CAUCHY, NULL, holds,
                                          needs, c->B, in, out, &ro, plan);
        break;
    }
    }
    if (st == LINCOLL_OK && r == 0) {
        assert_int_equal(lincoll_encode_chunks(*plan, &c->nchunks, &c->chunk_got), LINCOLL_OK);
        static char dump[1 << 16];
        assert_int_equal(lincoll_plan_dump(*plan, dump, sizeof(dump)), LINCOLL_OK);
        c->has_during = strstr(dump, " during gf_") != NULL;
    }
    return st;
}

/* one family: whole vs chunked; returns the chunk count */
static unsigned one_fam(int fam, const lincoll_field_t *f, int K, int p, int k, size_t B,
                        size_t chunk, uint64_t seed)
{
    uint64_t q = lincoll_gf_field_order(f);
    uint64_t *A = malloc(sizeof(uint64_t) * (size_t)K * (size_t)K);
    for (size_t i = 0; i < (size_t)K * (size_t)K; i++)
        A[i] = enc_rand(&seed) % q;
    uint8_t **x = enc_bufs(f, K, B, &seed, 1);
    uint8_t **y0 = enc_bufs(f, K, B, &seed, 0), **y1 = enc_bufs(f, K, B, &seed, 0);
    carg_t c = {.fam = fam, .p = p, .k = k, .f = f, .A = A, .B = B};
    enc_run_t r0, r1;
    c.chunk = LINCOLL_ENCODE_CHUNK_NONE;
    assert_int_equal(enc_run(K, p, x, y0, init_fam, &c, 2, &r0), 0);
    if (r0.init_st != LINCOLL_OK || r0.run_st != LINCOLL_OK)
        fail_msg("%s K=%d p=%d whole: init %s run %s", fam_names[fam], K, p,
                 lincoll_strerror(r0.init_st), lincoll_strerror(r0.run_st));
    assert_int_equal(c.nchunks, 1);
    assert_int_equal(c.chunk_got, B);
    c.chunk = chunk;
    assert_int_equal(enc_run(K, p, x, y1, init_fam, &c, 2, &r1), 0);
    if (r1.init_st != LINCOLL_OK || r1.run_st != LINCOLL_OK)
        fail_msg("%s K=%d p=%d chunk %zu: init %s run %s", fam_names[fam], K, p, chunk,
                 lincoll_strerror(r1.init_st), lincoll_strerror(r1.run_st));
    size_t want = (chunk + 63) / 64 * 64; /* chunk 0: the model's choice, as reported */
    unsigned n = chunk == 0            ? c.nchunks
                 : K == 1 || want >= B ? 1
                                       : (unsigned)((B + want - 1) / want);
    if (c.nchunks != n)
        fail_msg("%s K=%d B=%zu chunk %zu: %u chunks, expected %u", fam_names[fam], K, B, chunk,
                 c.nchunks, n);
    if (n > 1 && chunk != 0) assert_int_equal(c.chunk_got, want);
    /* the GF work of a chunk overlaps another chunk's transfers */
    if (n > 1 && !c.has_during)
        fail_msg("%s K=%d: the chunked plan has no step that runs during transfers", fam_names[fam],
                 K);
    for (int j = 0; j < K; j++) {
        if (memcmp(y0[j], y1[j], B) != 0)
            fail_msg("%s K=%d p=%d B=%zu chunk %zu: rank %d differs from the whole-packet plan",
                     fam_names[fam], K, p, B, chunk, j);
    }
    if (fam <= F_DIRECT) assert_int_equal(enc_check_matrix(f, K, A, x, y1, B), 0);
    /* accounting: bytes and C2 in bytes unchanged; the stats describe the plan
     * that runs (from its IR alone): n chunk rounds per schedule round */
    assert_int_equal(r1.bytes_total, r0.bytes_total);
    assert_int_equal(r1.c2_bytes, r0.c2_bytes);
    assert_int_equal(r1.msgs_total, r0.msgs_total * n);
    if (fam <= F_DIRECT) assert_int_equal(r1.c1, r0.c1 * n);
    assert_int_equal(r1.st0.rounds, r0.st0.rounds * n);
    assert_int_equal(r1.st0.global_rounds, r0.st0.global_rounds * n);
    assert_int_equal(r1.st0.c2_elems, r0.st0.c2_elems);
    assert_int_equal(r1.st0.c2_bytes, r0.st0.c2_bytes);
    assert_int_equal(r1.st0.bytes_sent, r0.st0.bytes_sent);
    assert_int_equal(r1.st0.msgs_sent, r0.st0.msgs_sent * n);
    assert_string_equal(r1.algo, r0.algo);
    enc_free_bufs(x, K);
    enc_free_bufs(y0, K);
    enc_free_bufs(y1, K);
    free(A);
    return n;
}

static void test_every_family(void **state)
{
    (void)state;
    lincoll_field_t *f8, *fp;
    assert_int_equal(lincoll_gf_field_create(256, &f8), LINCOLL_OK);
    assert_int_equal(lincoll_gf_field_create(65537, &fp), LINCOLL_OK);
    static const struct {
        int fam, fp, K, p, k;
        size_t B, chunk;
    } cs[] = {
        {F_PS, 0, 9, 1, 0, 5000, 1024},
        {F_PS, 1, 12, 2, 0, 4 * 1031, 1000},
        {F_PS, 0, 16, 3, 0, 3000, 64},
        {F_BW, 1, 9, 1, 0, 4 * 1031, 1024},
        {F_BW, 0, 13, 2, 0, 5000, 700},
        {F_BW, 0, 5, 1, 0, 4096, 2048},
        {F_DIRECT, 0, 7, 2, 0, 5000, 1024},
        {F_DIRECT, 1, 4, 1, 0, 4 * 1031, 512},
        {F_DFT, 1, 8, 1, 0, 4 * 1031, 1024},
        {F_DFT, 1, 16, 3, 0, 4 * 1000, 1024},
        {F_DFT_NAT, 1, 8, 1, 0, 4 * 999, 1024},
        {F_VDM, 0, 6, 2, 0, 5000, 1024},
        {F_VDM, 1, 16, 1, 0, 4 * 1031, 1024},
        {F_LAG, 1, 8, 1, 0, 4 * 1031, 1024},
        {F_LAG, 1, 16, 1, 0, 4 * 777, 640},
        {F_RS, 0, 6, 1, 4, 5000, 1024},
        {F_RS, 0, 12, 2, 8, 4099, 1024},
        {F_REPAIR, 0, 6, 1, 3, 5000, 1024},
        {F_REPAIR, 0, 16, 3, 12, 3333, 1024},
        {F_REP_STAR, 0, 6, 1, 4, 5000, 1024},
        {F_REP_STAR, 1, 9, 2, 7, 4 * 1031, 1024},
        {F_REP_TREE, 0, 6, 1, 4, 5000, 1024},
        {F_REP_TREE, 1, 11, 2, 9, 4 * 777, 640},
    };
    for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
        unsigned n = one_fam(cs[i].fam, cs[i].fp ? fp : f8, cs[i].K, cs[i].p, cs[i].k, cs[i].B,
                             cs[i].chunk, 7 + i);
        assert_true(n >= 2);
        printf("%-13s K=%2d p=%d B=%5zu chunk %4zu: %u chunks, results and bytes as whole\n",
               fam_names[cs[i].fam], cs[i].K, cs[i].p, cs[i].B, cs[i].chunk, n);
    }
    lincoll_gf_field_destroy(f8);
    lincoll_gf_field_destroy(fp);
}

/* no chunking: chunk >= packet, tiny packets under the model, K = 1 */
static void test_no_chunking(void **state)
{
    (void)state;
    lincoll_field_t *f8;
    assert_int_equal(lincoll_gf_field_create(256, &f8), LINCOLL_OK);
    assert_int_equal(one_fam(F_PS, f8, 5, 1, 0, 64, 64, 1), 1);
    assert_int_equal(one_fam(F_BW, f8, 5, 1, 0, 1000, 4096, 2), 1);
    assert_int_equal(one_fam(F_PS, f8, 1, 1, 0, 5000, 1024, 3), 1); /* nothing to overlap */
    assert_int_equal(one_fam(F_BW, f8, 7, 2, 0, 4096, 0, 4), 1);    /* model: tiny packet */
    assert_int_equal(one_fam(F_BW, f8, 4, 1, 0, 500000, 0, 5), 1);  /* under 2 x 1 MiB */
    assert_int_equal(one_fam(F_BW, f8, 4, 1, 0, 2000000, 0, 6), 1); /* under 2 x 1 MiB */
    lincoll_gf_field_destroy(f8);
}

/* the model's chunking is the same on every rank even where ranks' work
 * differs (natural-order DFT: two ranks copy instead of exchanging in the
 * last round; direct on the sparse RS / repair matrices); a disagreement
 * would be a size mismatch or a hang */
static void test_model_every_rank(void **state)
{
    (void)state;
    lincoll_field_t *f8, *fp;
    assert_int_equal(lincoll_gf_field_create(256, &f8), LINCOLL_OK);
    assert_int_equal(lincoll_gf_field_create(65537, &fp), LINCOLL_OK);
    const size_t B = (size_t)4 << 20;
    unsigned n1 = one_fam(F_DFT_NAT, fp, 4, 1, 0, B, 0, 21);
    unsigned n2 = one_fam(F_RS, f8, 6, 2, 4, B, 0, 22);
    unsigned n3 = one_fam(F_REPAIR, f8, 6, 1, 3, B, 0, 23);
    unsigned n4 = one_fam(F_DIRECT, f8, 5, 2, 0, B, 0, 24);
    printf("model's chunks at 4 MiB: dft_natural %u, rs %u, repair %u, direct %u\n", n1, n2, n3,
           n4);
    assert_true(n1 >= 2 && n2 >= 2 && n3 >= 2 && n4 >= 2);
    lincoll_gf_field_destroy(f8);
    lincoll_gf_field_destroy(fp);
}

/* LINCOLL_ENCODE_CHUNK is read at lincoll_init; opts->chunk_bytes overrides it */
static void test_env(void **state)
{
    (void)state;
    lincoll_field_t *f8;
    assert_int_equal(lincoll_gf_field_create(256, &f8), LINCOLL_OK);
    setenv("LINCOLL_ENCODE_CHUNK", "3k", 1);
    uint64_t seed = 3;
    int K = 5;
    size_t B = 5000;
    uint64_t A[25];
    for (int i = 0; i < 25; i++)
        A[i] = enc_rand(&seed) % 256;
    uint8_t **x = enc_bufs(f8, K, B, &seed, 1), **y = enc_bufs(f8, K, B, &seed, 0);
    carg_t c = {.fam = F_BW, .p = 1, .f = f8, .A = A, .B = B, .chunk = 0};
    enc_run_t r;
    assert_int_equal(enc_run(K, 1, x, y, init_fam, &c, 1, &r), 0);
    assert_int_equal(r.run_st, LINCOLL_OK);
    assert_int_equal(c.nchunks, 2);
    assert_int_equal(c.chunk_got, 3072);
    assert_int_equal(enc_check_matrix(f8, K, A, x, y, B), 0);
    c.chunk = 1024; /* the option wins */
    assert_int_equal(enc_run(K, 1, x, y, init_fam, &c, 1, &r), 0);
    assert_int_equal(c.nchunks, 5);
    assert_int_equal(enc_check_matrix(f8, K, A, x, y, B), 0);
    unsetenv("LINCOLL_ENCODE_CHUNK");
    enc_free_bufs(x, K);
    enc_free_bufs(y, K);
    lincoll_gf_field_destroy(f8);
}

/* the model's choice for a 2 MiB packet: same results, prediction no worse */
static void test_model_choice(void **state)
{
    (void)state;
    lincoll_field_t *f8;
    assert_int_equal(lincoll_gf_field_create(256, &f8), LINCOLL_OK);
    const int K = 4;
    const size_t B = (size_t)2 << 20;
    uint64_t seed = 11, A[16];
    for (int i = 0; i < 16; i++)
        A[i] = enc_rand(&seed) % 256;
    uint8_t **x = enc_bufs(f8, K, B, &seed, 1);
    uint8_t **y0 = enc_bufs(f8, K, B, &seed, 0), **y1 = enc_bufs(f8, K, B, &seed, 0);
    carg_t c = {.fam = F_PS, .p = 1, .f = f8, .A = A, .B = B, .chunk = LINCOLL_ENCODE_CHUNK_NONE};
    enc_run_t r0, r1;
    assert_int_equal(enc_run(K, 1, x, y0, init_fam, &c, 1, &r0), 0);
    assert_int_equal(r0.run_st, LINCOLL_OK);
    c.chunk = 0;
    assert_int_equal(enc_run(K, 1, x, y1, init_fam, &c, 1, &r1), 0);
    assert_int_equal(r1.run_st, LINCOLL_OK);
    for (int j = 0; j < K; j++)
        assert_memory_equal(y0[j], y1[j], B);
    assert_true(c.chunk_got >= 64 * 1024 || c.nchunks == 1);
    assert_true(r1.st0.predicted_us <= r0.st0.predicted_us + 1e-9);
    assert_int_equal(r1.bytes_total, r0.bytes_total);
    printf("K=%d p=1 B=%zu: model chose %u chunk(s) of %zu bytes, predicted %.1f us (whole "
           "%.1f us)\n",
           K, B, c.nchunks, c.chunk_got, r1.st0.predicted_us, r0.st0.predicted_us);
    enc_free_bufs(x, K);
    enc_free_bufs(y0, K);
    enc_free_bufs(y1, K);
    lincoll_gf_field_destroy(f8);
}

static void test_bad_args(void **state)
{
    (void)state;
    unsigned n;
    assert_int_equal(lincoll_encode_chunks(NULL, &n, NULL), LINCOLL_ERR_INVALID);
}

int main(void)
{
    /* the byte and message counts below are those of plans without checksum
     * rounds (chunking with LINCOLL_ENCODE_CHECKSUM=crc32c over UCX:
     * encode_ucx_crc32c_n3, whose 1 MiB packets the model cuts) */
    unsetenv("LINCOLL_ENCODE_CHECKSUM");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_family),
        cmocka_unit_test(test_no_chunking),
        cmocka_unit_test(test_env),
        cmocka_unit_test(test_model_choice),
        cmocka_unit_test(test_model_every_rank),
        cmocka_unit_test(test_bad_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
