/*
 * test/encode/test_encode_specific.c: the specific algorithms and the storage
 * collectives on K virtual ranks (sim transport), forced algorithms, bad
 * input.
 *
 * - DFT test vectors of docs/encode.md (K = 4, q = 5, w = 2,
 *   x = (1,2,3,4) -> (0,3,4,2) digit-reversed, (0,4,3,2) natural; K = 8, 9,
 *   16), C1 = C2 = L (natural: L + 1), inverse DFT, K = P^L up to 4096 (sim),
 *   universal fallback for K not a power of p + 1.
 * - Coset Vandermonde: the (C1, C2) pairs of docs/encode.md (C2 with the
 *   best window in stage 1), results against f(a_k) at the reported points.
 * - Lagrange: (C1, C2) = (2L, 2L) for (16, 1) and (27, 2) (docs/encode.md),
 *   universal with given points; results against l_i(a_k).
 * - [N, k] systematic RS encode and repair for several N, k, p, every algorithm.
 * - LINCOLL_ENCODE_ALGO forcing, bad values, fallback of "specific".
 * - Bad input: wrong matrix size, missing root of unity, digit-reversed
 *   order for K not a power of p+1, repeated points, singular repair set,
 *   mismatched packet sizes: the expected status on every rank, no hang.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "encode/enc_common.h"

/* ---- DFT ------------------------------------------------------------------------- */

typedef struct dargs {
    const lincoll_field_t *f;
    int flags, p;
    size_t B;
    lincoll_encode_algo_t algo;
} dargs_t;

static lincoll_status_t init_dft(lincoll_comm_t *comm, int r, const void *in, void *out, void *arg,
                                 lincoll_plan_t **plan)
{
    (void)r;
    dargs_t *d = arg;
    lincoll_encode_opts_t o = {.ports = d->p, .algo = d->algo};
    return lincoll_encode_dft_init(comm, d->f, d->flags, d->B, in, out, &o, plan);
}

static int rev(int k, int L, int P)
{
    int r = 0;
    for (int i = 0; i < L; i++)
        r = r * P + k % P, k /= P;
    return r;
}

static void test_dft_vectors(void **state)
{
    (void)state;
    static const struct {
        int K, p;
        uint64_t q;
        int out[16], nat[16];
    } tv[] = {
        {4, 1, 5, {0, 3, 4, 2}, {0, 4, 3, 2}},
        {8, 1, 17, {2, 13, 12, 14, 1, 6, 3, 8}, {2, 1, 12, 3, 13, 6, 14, 8}},
        {9, 2, 19, {7, 11, 18, 3, 13, 17, 12, 16, 7}, {7, 3, 12, 11, 13, 16, 18, 17, 7}},
        {16,
         3,
         17,
         {0, 7, 9, 11, 8, 4, 13, 3, 2, 6, 12, 16, 15, 5, 14, 10},
         {0, 8, 2, 15, 7, 4, 6, 5, 9, 13, 12, 14, 11, 3, 16, 10}},
    };
    for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
        lincoll_field_t *f;
        assert_int_equal(lincoll_gf_field_create(tv[i].q, &f), LINCOLL_OK);
        int K = tv[i].K, L = 0;
        for (long v = 1; v < K; v *= tv[i].p + 1)
            L++;
        for (int nat = 0; nat < 2; nat++) {
            for (int a = 0; a < 2; a++) { /* specific and universal (best_window) */
                uint64_t seed = 1;
                uint8_t **x = enc_bufs(f, K, 4, &seed, 0), **y = enc_bufs(f, K, 4, &seed, 0);
                for (int k = 0; k < K; k++)
                    enc_put(x[k], 4, 0, (uint64_t)(k + 1) % tv[i].q);
                dargs_t d = {f, nat ? LINCOLL_ENCODE_DFT_NATURAL : 0, tv[i].p, 4,
                             a ? LINCOLL_ENCODE_ALGO_BEST_WINDOW : LINCOLL_ENCODE_ALGO_SPECIFIC};
                enc_run_t res;
                assert_int_equal(enc_run(K, tv[i].p, x, y, init_dft, &d, 2, &res), 0);
                assert_int_equal(res.init_st, LINCOLL_OK);
                assert_int_equal(res.run_st, LINCOLL_OK);
                for (int k = 0; k < K; k++) {
                    int want = nat ? tv[i].nat[k] : tv[i].out[k];
                    if ((int)enc_get(y[k], 4, 0) != want)
                        fail_msg("DFT K=%d q=%llu %s %s: rank %d has %llu, want %d", K,
                                 (unsigned long long)tv[i].q, nat ? "natural" : "digit-reversed",
                                 res.st0.algorithm, k, (unsigned long long)enc_get(y[k], 4, 0),
                                 want);
                }
                if (!a) {
                    unsigned c1 = (unsigned)(L + (nat && L >= 2));
                    assert_int_equal(res.c1, c1);
                    assert_int_equal(res.c2_bytes, 4 * c1);
                    assert_string_equal(res.st0.algorithm, nat ? "dft_natural" : "dft");
                }
                enc_free_bufs(x, K);
                enc_free_bufs(y, K);
            }
        }
        lincoll_gf_field_destroy(f);
    }
}

/* random x, every rank vs the DFT matrix; C1 = C2 = L; inverse round trip */
static void test_dft_sizes(void **state)
{
    (void)state;
    static const struct {
        int p, L;
        uint64_t q;
    } cs[] = {
        {1, 1, 65537}, {1, 5, 65537}, {1, 10, 998244353}, {2, 3, 2013265921},
        {3, 3, 65537}, {3, 6, 65537}, {2, 1, 256},        {4, 2, 2147483647 /* 5^2 | q-1? */}};
    for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
        lincoll_field_t *f;
        assert_int_equal(lincoll_gf_field_create(cs[i].q, &f), LINCOLL_OK);
        int P = cs[i].p + 1, K = 1;
        for (int l = 0; l < cs[i].L; l++)
            K *= P;
        if ((cs[i].q - 1) % (uint64_t)K) { /* 2^31-1: 2147483646 = 2.3^2.7.11.31.151.331 */
            lincoll_gf_field_destroy(f);
            continue;
        }
        size_t es = lincoll_gf_field_elem_size(f), B = 3 * es;
        uint64_t seed = 77 + i, w;
        assert_int_equal(lincoll_gf_root_of_unity(f, (uint64_t)K, &w), LINCOLL_OK);
        uint8_t **x = enc_bufs(f, K, B, &seed, 1), **y = enc_bufs(f, K, B, &seed, 0),
                **z = enc_bufs(f, K, B, &seed, 0);
        dargs_t d = {f, 0, cs[i].p, B, LINCOLL_ENCODE_ALGO_SPECIFIC};
        enc_run_t res;
        assert_int_equal(enc_run(K, cs[i].p, x, y, init_dft, &d, 1, &res), 0);
        assert_int_equal(res.init_st, LINCOLL_OK);
        assert_int_equal(res.run_st, LINCOLL_OK);
        assert_int_equal(res.c1, cs[i].L);
        assert_int_equal(res.c2_bytes, (uint64_t)cs[i].L * B);
        assert_int_equal(res.st0.rounds, cs[i].L);
        assert_int_equal(res.st0.c2_elems, cs[i].L);
        if (K <= 256) {
            uint64_t *A = malloc(sizeof(uint64_t) * (size_t)K * (size_t)K);
            for (int j = 0; j < K; j++)
                for (int k = 0; k < K; k++)
                    A[(size_t)j * K + k] =
                        lincoll_gf_pow(f, w, (uint64_t)j * (uint64_t)rev(k, cs[i].L, P));
            assert_int_equal(enc_check_matrix(f, K, A, x, y, B), 0);
            free(A);
        }
        /* inverse (natural order on digit-reversed input = identity): y is in
         * digit-reversed order, so permute it to natural order first */
        uint8_t **yn = calloc((size_t)K, sizeof(*yn));
        for (int k = 0; k < K; k++)
            yn[rev(k, cs[i].L, P)] = y[k];
        dargs_t di = {f, LINCOLL_ENCODE_DFT_INVERSE | LINCOLL_ENCODE_DFT_NATURAL, cs[i].p, B,
                      LINCOLL_ENCODE_ALGO_SPECIFIC};
        assert_int_equal(enc_run(K, cs[i].p, yn, z, init_dft, &di, 1, &res), 0);
        assert_int_equal(res.run_st, LINCOLL_OK);
        for (int k = 0; k < K; k++)
            assert_memory_equal(z[k], x[k], B);
        printf("DFT K=%d p=%d q=%llu: C1=C2=%d, inverse round trip ok\n", K, cs[i].p,
               (unsigned long long)cs[i].q, cs[i].L);
        free(yn);
        enc_free_bufs(x, K);
        enc_free_bufs(y, K);
        enc_free_bufs(z, K);
        lincoll_gf_field_destroy(f);
    }
}

/* ---- Vandermonde ------------------------------------------------------------------- */

typedef struct vargs {
    const lincoll_field_t *f;
    const uint64_t *points;
    uint64_t *pts_out; /* rank 0 writes */
    int p;
    size_t B;
    lincoll_encode_algo_t algo;
} vargs_t;

static lincoll_status_t init_vdm(lincoll_comm_t *comm, int r, const void *in, void *out, void *arg,
                                 lincoll_plan_t **plan)
{
    vargs_t *v = arg;
    lincoll_encode_opts_t o = {.ports = v->p, .algo = v->algo};
    return lincoll_encode_vandermonde_init(comm, v->f, v->points, r == 0 ? v->pts_out : NULL, v->B,
                                           in, out, &o, plan);
}

static uint64_t *vdm_matrix(const lincoll_field_t *f, int K, const uint64_t *a)
{
    uint64_t *A = malloc(sizeof(uint64_t) * (size_t)K * (size_t)K);
    for (int j = 0; j < K; j++)
        for (int k = 0; k < K; k++)
            A[(size_t)j * K + k] = lincoll_gf_pow(f, a[k], (uint64_t)j);
    return A;
}

static void test_vandermonde(void **state)
{
    (void)state;
    /* docs/encode.md, "Vandermonde" (its table): (K, p, q chosen so that M is as
     * listed) -> (C1, C2);
     * (10, 1): the table's C2 = 5 uses the paper window in stage 1, ours 4 */
    static const struct {
        int K, p;
        uint64_t q;
        int c1, c2;
    } cs[] = {{12, 2, 13, 3, 3}, {18, 2, 19, 3, 3}, {16, 1, 29, 4, 4},  {20, 3, 29, 3, 3},
              {10, 1, 11, 4, 4}, {8, 1, 17, 3, 3},  {27, 2, 109, 3, 3}, {7, 2, 256, 2, 2}};
    for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
        lincoll_field_t *f;
        assert_int_equal(lincoll_gf_field_create(cs[i].q, &f), LINCOLL_OK);
        int K = cs[i].K;
        size_t es = lincoll_gf_field_elem_size(f), B = 2 * es;
        uint64_t seed = 3 + i, *pts = calloc((size_t)K, sizeof(uint64_t));
        uint8_t **x = enc_bufs(f, K, B, &seed, 1), **y = enc_bufs(f, K, B, &seed, 0);
        vargs_t v = {f, NULL, pts, cs[i].p, B, LINCOLL_ENCODE_ALGO_SPECIFIC};
        enc_run_t res;
        assert_int_equal(enc_run(K, cs[i].p, x, y, init_vdm, &v, 1, &res), 0);
        assert_int_equal(res.init_st, LINCOLL_OK);
        assert_int_equal(res.run_st, LINCOLL_OK);
        uint64_t *A = vdm_matrix(f, K, pts);
        assert_int_equal(enc_check_matrix(f, K, A, x, y, B), 0);
        if ((int)res.c1 != cs[i].c1 || res.c2_bytes != (uint64_t)cs[i].c2 * B)
            fail_msg("Vandermonde K=%d p=%d q=%llu: (C1, C2) = (%u, %llu), want (%d, %d)", K,
                     cs[i].p, (unsigned long long)cs[i].q, res.c1,
                     (unsigned long long)(res.c2_bytes / B), cs[i].c1, cs[i].c2);
        /* distinct points */
        for (int a = 0; a < K; a++)
            for (int b = a + 1; b < K; b++)
                assert_true(pts[a] != pts[b]);
        /* given points: universal, same answers */
        vargs_t v2 = {f, pts, NULL, cs[i].p, B, LINCOLL_ENCODE_ALGO_AUTO};
        assert_int_equal(enc_run(K, cs[i].p, x, y, init_vdm, &v2, 1, &res), 0);
        assert_int_equal(res.run_st, LINCOLL_OK);
        assert_int_equal(enc_check_matrix(f, K, A, x, y, B), 0);
        printf("Vandermonde K=%d p=%d q=%llu: coset (C1, C2) = (%d, %d)\n", K, cs[i].p,
               (unsigned long long)cs[i].q, cs[i].c1, cs[i].c2);
        free(A);
        free(pts);
        enc_free_bufs(x, K);
        enc_free_bufs(y, K);
        lincoll_gf_field_destroy(f);
    }
}

/* ---- Lagrange ----------------------------------------------------------------------- */

typedef struct largs {
    const lincoll_field_t *f;
    const uint64_t *b, *a;
    uint64_t *bo, *ao;
    int p;
    size_t B;
    lincoll_encode_algo_t algo;
} largs_t;

static lincoll_status_t init_lag(lincoll_comm_t *comm, int r, const void *in, void *out, void *arg,
                                 lincoll_plan_t **plan)
{
    largs_t *l = arg;
    lincoll_encode_opts_t o = {.ports = l->p, .algo = l->algo};
    return lincoll_encode_lagrange_init(comm, l->f, l->b, l->a, r == 0 ? l->bo : NULL,
                                        r == 0 ? l->ao : NULL, l->B, in, out, &o, plan);
}

static void test_lagrange(void **state)
{
    (void)state;
    static const struct {
        int K, p;
        uint64_t q;
    } cs[] = {{16, 1, 97}, {27, 2, 109}, {4, 3, 13}, {8, 1, 65537}, {9, 2, 37}};
    for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
        lincoll_field_t *f;
        assert_int_equal(lincoll_gf_field_create(cs[i].q, &f), LINCOLL_OK);
        int K = cs[i].K, P = cs[i].p + 1, L = 0;
        for (long v = 1; v < K; v *= P)
            L++;
        size_t es = lincoll_gf_field_elem_size(f), B = 3 * es;
        uint64_t seed = 11 + i, *bo = calloc((size_t)K, 8), *ao = calloc((size_t)K, 8);
        uint64_t *Lm = malloc(8 * (size_t)K * K), *A = malloc(8 * (size_t)K * K);
        uint8_t **x = enc_bufs(f, K, B, &seed, 1), **y = enc_bufs(f, K, B, &seed, 0);
        for (int a = 0; a < 3; a++) {
            lincoll_encode_algo_t algo = a == 0   ? LINCOLL_ENCODE_ALGO_SPECIFIC
                                         : a == 1 ? LINCOLL_ENCODE_ALGO_BEST_WINDOW
                                                  : LINCOLL_ENCODE_ALGO_DIRECT;
            largs_t l = {f, NULL, NULL, bo, ao, cs[i].p, B, algo};
            enc_run_t res;
            assert_int_equal(enc_run(K, cs[i].p, x, y, init_lag, &l, 1, &res), 0);
            assert_int_equal(res.init_st, LINCOLL_OK);
            assert_int_equal(res.run_st, LINCOLL_OK);
            assert_int_equal(lincoll_gf_matrix_lagrange(f, K, bo, K, ao, Lm), LINCOLL_OK);
            for (int j = 0; j < K; j++)
                for (int k = 0; k < K; k++)
                    A[(size_t)j * K + k] = Lm[(size_t)k * K + j];
            assert_int_equal(enc_check_matrix(f, K, A, x, y, B), 0);
            if (a == 0) {
                assert_int_equal(res.c1, 2 * L);
                assert_int_equal(res.c2_bytes, (uint64_t)(2 * L) * B);
                assert_string_equal(res.st0.algorithm, "lagrange_dft");
            } else {
                assert_int_equal(res.c1,
                                 a == 1 ? (unsigned)L : (unsigned)((K - 1 + P - 2) / (P - 1)));
            }
        }
        /* given evaluation points (not the coset): universal */
        uint64_t *ev = malloc(8 * (size_t)K);
        for (int k = 0; k < K; k++)
            ev[k] = (uint64_t)(k * 3 + 2) % cs[i].q;
        largs_t l = {f, NULL, ev, bo, ao, cs[i].p, B, LINCOLL_ENCODE_ALGO_AUTO};
        enc_run_t res;
        assert_int_equal(enc_run(K, cs[i].p, x, y, init_lag, &l, 1, &res), 0);
        assert_int_equal(res.run_st, LINCOLL_OK);
        assert_int_equal(lincoll_gf_matrix_lagrange(f, K, bo, K, ev, Lm), LINCOLL_OK);
        for (int j = 0; j < K; j++)
            for (int k = 0; k < K; k++)
                A[(size_t)j * K + k] = Lm[(size_t)k * K + j];
        assert_int_equal(enc_check_matrix(f, K, A, x, y, B), 0);
        printf("Lagrange K=%d p=%d q=%llu: specific (C1, C2) = (%d, %d)\n", K, cs[i].p,
               (unsigned long long)cs[i].q, 2 * L, 2 * L);
        free(ev);
        free(bo);
        free(ao);
        free(Lm);
        free(A);
        enc_free_bufs(x, K);
        enc_free_bufs(y, K);
        lincoll_gf_field_destroy(f);
    }
}

/* ---- RS encode and repair ---------------------------------------------------------- */

typedef struct rargs {
    const lincoll_field_t *f;
    int k, p, nlost;
    const int *surv, *lost;
    const uint64_t *gen;
    size_t B;
    lincoll_encode_algo_t algo;
} rargs_t;

static lincoll_status_t init_rs(lincoll_comm_t *comm, int r, const void *in, void *out, void *arg,
                                lincoll_plan_t **plan)
{
    rargs_t *a = arg;
    lincoll_encode_opts_t o = {.ports = a->p, .algo = a->algo};
    (void)r;
    return lincoll_encode_rs_init(comm, a->f, a->k, LINCOLL_GF_RS_CAUCHY, a->gen, a->B, in, out, &o,
                                  plan);
}

static lincoll_status_t init_repair(lincoll_comm_t *comm, int r, const void *in, void *out,
                                    void *arg, lincoll_plan_t **plan)
{
    rargs_t *a = arg;
    lincoll_encode_opts_t o = {.ports = a->p, .algo = a->algo};
    (void)r;
    return lincoll_encode_repair_init(comm, a->f, a->k, LINCOLL_GF_RS_CAUCHY, a->gen, a->surv,
                                      a->nlost, a->lost, a->B, in, out, &o, plan);
}

static void test_rs_repair(void **state)
{
    (void)state;
    static const struct {
        int N, k, p;
        uint64_t q;
    } cs[] = {{6, 4, 1, 256}, {14, 10, 2, 256}, {9, 3, 3, 65536}, {20, 16, 1, 65537},
              {3, 2, 1, 256}, {2, 1, 1, 256},   {33, 25, 2, 256}};
    for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
        lincoll_field_t *f;
        assert_int_equal(lincoll_gf_field_create(cs[i].q, &f), LINCOLL_OK);
        int N = cs[i].N, k = cs[i].k;
        size_t es = lincoll_gf_field_elem_size(f), B = 5 * es;
        uint64_t seed = 21 + i, *G = malloc(8 * (size_t)N * k);
        assert_int_equal(lincoll_gf_matrix_systematic(f, N, k, LINCOLL_GF_RS_CAUCHY, G),
                         LINCOLL_OK);
        for (int a = 0; a < 3; a++) {
            lincoll_encode_algo_t algo = a == 0   ? LINCOLL_ENCODE_ALGO_AUTO
                                         : a == 1 ? LINCOLL_ENCODE_ALGO_PREPARE_SHOOT
                                                  : LINCOLL_ENCODE_ALGO_DIRECT;
            uint8_t **cw = enc_bufs(f, N, B, &seed, 1), **out = enc_bufs(f, N, B, &seed, 0);
            rargs_t ra = {f, k, cs[i].p, 0, NULL, NULL, NULL, B, algo};
            enc_run_t res;
            assert_int_equal(enc_run(N, cs[i].p, cw, out, init_rs, &ra, 1, &res), 0);
            assert_int_equal(res.init_st, LINCOLL_OK);
            assert_int_equal(res.run_st, LINCOLL_OK);
            for (int c = k; c < N; c++) { /* parity = G row c times the data */
                for (size_t e = 0; e < B / es; e++) {
                    uint64_t acc = 0;
                    for (int j = 0; j < k; j++)
                        acc = lincoll_gf_add(
                            f, acc, lincoll_gf_mul(f, G[(size_t)c * k + j], enc_get(cw[j], es, e)));
                    assert_int_equal(acc, enc_get(out[c], es, e));
                }
                memcpy(cw[c], out[c], B); /* the codeword */
            }
            /* repair: lose the first min(N-k, 2) data ranks and the last parity */
            int lost[3], nl = 0, surv[64], ns = 0;
            for (int j = 0; j < N && nl < 2 && nl < N - k; j++)
                lost[nl++] = j;
            if (nl < N - k) lost[nl++] = N - 1;
            for (int j = 0; j < N && ns < k; j++) {
                int isl = 0;
                for (int t = 0; t < nl; t++)
                    isl |= lost[t] == j;
                if (!isl) surv[ns++] = j;
            }
            assert_int_equal(ns, k);
            uint8_t **rb = enc_bufs(f, N, B, &seed, 0);
            rargs_t rr = {f, k, cs[i].p, nl, surv, lost, NULL, B, algo};
            assert_int_equal(enc_run(N, cs[i].p, cw, rb, init_repair, &rr, 2, &res), 0);
            assert_int_equal(res.init_st, LINCOLL_OK);
            assert_int_equal(res.run_st, LINCOLL_OK);
            for (int t = 0; t < nl; t++)
                assert_memory_equal(rb[lost[t]], cw[lost[t]], B);
            if (a == 0)
                printf("RS [%d,%d] p=%d: encode + repair of %d ranks ok (%s, C1=%u)\n", N, k,
                       cs[i].p, nl, res.st0.algorithm, res.c1);
            enc_free_bufs(cw, N);
            enc_free_bufs(out, N);
            enc_free_bufs(rb, N);
        }
        free(G);
        lincoll_gf_field_destroy(f);
    }
}

/* ---- forcing and bad input ---------------------------------------------------------- */

typedef struct gargs {
    const lincoll_field_t *f;
    const uint64_t *A;
    int rows, cols, p;
    size_t B, B0; /* rank 0 uses B0 */
} gargs_t;

static lincoll_status_t init_gen(lincoll_comm_t *comm, int r, const void *in, void *out, void *arg,
                                 lincoll_plan_t **plan)
{
    gargs_t *g = arg;
    lincoll_encode_opts_t o = {.ports = g->p};
    return lincoll_encode_init(comm, g->f, g->A, g->rows, g->cols, r == 0 ? g->B0 : g->B, in, out,
                               &o, plan);
}

/* every rank's init status */
static int all_init(int K, enc_init_fn fn, void *arg, lincoll_status_t want)
{
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, K, 1), 0);
    uint64_t seed = 5;
    lincoll_field_t *f8;
    lincoll_gf_field_create(256, &f8);
    uint8_t **x = enc_bufs(f8, K, 64, &seed, 1), **y = enc_bufs(f8, K, 64, &seed, 0);
    int ok = 0;
    for (int r = 0; r < K; r++) {
        lincoll_plan_t *p = (lincoll_plan_t *)1;
        lincoll_status_t st = fn(h.comm[r], r, x[r], y[r], arg, &p);
        ok += st == want;
        if (st == LINCOLL_OK) lincoll_plan_free(p);
    }
    enc_free_bufs(x, K);
    enc_free_bufs(y, K);
    lincoll_gf_field_destroy(f8);
    lc_simh_destroy(&h);
    return ok;
}

static void test_bad_input(void **state)
{
    (void)state;
    lincoll_field_t *f8, *f17;
    assert_int_equal(lincoll_gf_field_create(256, &f8), LINCOLL_OK);
    assert_int_equal(lincoll_gf_field_create(17, &f17), LINCOLL_OK);
    uint64_t A[36] = {0};
    for (int i = 0; i < 36; i++)
        A[i] = (uint64_t)(i * 7 + 1) % 256;
    /* A of the wrong size */
    gargs_t g = {f8, A, 5, 6, 1, 8, 8};
    assert_int_equal(all_init(6, init_gen, &g, LINCOLL_ERR_INVALID), 6);
    g.rows = 6;
    assert_int_equal(all_init(6, init_gen, &g, LINCOLL_OK), 6);
    g.B = g.B0 = 0;
    assert_int_equal(all_init(6, init_gen, &g, LINCOLL_ERR_INVALID), 6);
    g.A = NULL, g.B = g.B0 = 8;
    assert_int_equal(all_init(6, init_gen, &g, LINCOLL_ERR_INVALID), 6);
    /* DFT: no root of unity (2 does not divide 255), digit-reversed with K not (p+1)^L */
    dargs_t d = {f8, 0, 1, 8, LINCOLL_ENCODE_ALGO_AUTO};
    assert_int_equal(all_init(4, init_dft, &d, LINCOLL_ERR_INVALID), 4);
    assert_int_equal(all_init(2, init_dft, &d, LINCOLL_ERR_INVALID), 2);
    d.f = f17, d.B = 4;
    assert_int_equal(all_init(8, init_dft, &d, LINCOLL_OK), 8);
    dargs_t d6 = {f17, 0, 2, 4, LINCOLL_ENCODE_ALGO_AUTO}; /* 8 is not a power of 3 */
    assert_int_equal(all_init(8, init_dft, &d6, LINCOLL_ERR_INVALID), 8);
    d6.flags = LINCOLL_ENCODE_DFT_NATURAL; /* natural: universal fallback */
    assert_int_equal(all_init(8, init_dft, &d6, LINCOLL_OK), 8);
    d6.flags = 0x40;
    assert_int_equal(all_init(8, init_dft, &d6, LINCOLL_ERR_INVALID), 8);
    /* Vandermonde / Lagrange: repeated points */
    uint64_t pts[5] = {1, 2, 3, 2, 9};
    vargs_t v = {f8, pts, NULL, 1, 8, LINCOLL_ENCODE_ALGO_AUTO};
    assert_int_equal(all_init(5, init_vdm, &v, LINCOLL_ERR_INVALID), 5);
    pts[3] = 4;
    assert_int_equal(all_init(5, init_vdm, &v, LINCOLL_OK), 5);
    largs_t l = {f8, pts, pts, NULL, NULL, 1, 8, LINCOLL_ENCODE_ALGO_AUTO};
    pts[3] = 3;
    assert_int_equal(all_init(5, init_lag, &l, LINCOLL_ERR_INVALID), 5);
    l.b = NULL; /* default interpolation points with K = 5, p = 1: not eligible */
    assert_int_equal(all_init(5, init_lag, &l, LINCOLL_ERR_INVALID), 5);
    /* singular repair set: a generator whose rows 0 and 3 are equal */
    uint64_t G[6 * 3];
    assert_int_equal(lincoll_gf_matrix_systematic(f8, 6, 3, LINCOLL_GF_RS_VANDERMONDE, G),
                     LINCOLL_OK);
    memcpy(G + 9, G + 0, 3 * sizeof(uint64_t));
    int surv[3] = {0, 3, 4}, lost[1] = {1};
    rargs_t rr = {f8, 3, 1, 1, surv, lost, G, 8, LINCOLL_ENCODE_ALGO_AUTO};
    assert_int_equal(all_init(6, init_repair, &rr, LINCOLL_ERR_SINGULAR), 6);
    surv[1] = 2; /* rows 0, 2, 4: fine */
    assert_int_equal(all_init(6, init_repair, &rr, LINCOLL_OK), 6);
    surv[1] = 1; /* a survivor that is also lost */
    assert_int_equal(all_init(6, init_repair, &rr, LINCOLL_ERR_INVALID), 6);
    rargs_t rk = {f8, 6, 1, 0, NULL, NULL, NULL, 8, LINCOLL_ENCODE_ALGO_AUTO}; /* k = N */
    assert_int_equal(all_init(6, init_rs, &rk, LINCOLL_ERR_INVALID), 6);
    lincoll_gf_field_destroy(f8);
    lincoll_gf_field_destroy(f17);
}

/* rank 0's packet is larger: every rank ends with an error, nobody hangs */
static void test_mismatch(void **state)
{
    (void)state;
    lincoll_field_t *f8;
    assert_int_equal(lincoll_gf_field_create(256, &f8), LINCOLL_OK);
    uint64_t A[49];
    for (int i = 0; i < 49; i++)
        A[i] = (uint64_t)(i * 5 + 3) % 256;
    for (int p = 1; p <= 2; p++) {
        int K = 7;
        lc_simh_t h;
        assert_int_equal(lc_simh_create(&h, K, p), 0);
        uint64_t seed = 9;
        uint8_t **x = enc_bufs(f8, K, 64, &seed, 1), **y = enc_bufs(f8, K, 64, &seed, 0);
        lincoll_plan_t *plans[7];
        gargs_t g = {f8, A, 7, 7, p, 16, 32};
        for (int r = 0; r < K; r++)
            assert_int_equal(init_gen(h.comm[r], r, x[r], y[r], &g, &plans[r]), LINCOLL_OK);
        for (int r = 0; r < K; r++)
            assert_int_equal(lincoll_start(plans[r]), LINCOLL_OK);
        lincoll_status_t st[7];
        int busy = 1;
        for (int r = 0; r < K; r++)
            st[r] = LINCOLL_INPROGRESS;
        while (busy) {
            busy = 0;
            for (int r = 0; r < K; r++) {
                if (st[r] == LINCOLL_INPROGRESS) st[r] = lincoll_test(plans[r]);
                busy |= st[r] == LINCOLL_INPROGRESS;
            }
        }
        int errs = 0;
        for (int r = 0; r < K; r++) {
            errs += st[r] == LINCOLL_ERR_MISMATCH || st[r] == LINCOLL_ERR_TRUNCATED ||
                    st[r] == LINCOLL_ERR_TIMEOUT;
            lincoll_plan_free(plans[r]);
        }
        assert_true(errs >= 1);
        printf("mismatched packet sizes, p=%d: %d ranks failed cleanly (rest finished)\n", p, errs);
        enc_free_bufs(x, K);
        enc_free_bufs(y, K);
        lc_simh_destroy(&h);
    }
    lincoll_gf_field_destroy(f8);
}

static void test_forcing(void **state)
{
    (void)state;
    lincoll_field_t *f8;
    assert_int_equal(lincoll_gf_field_create(256, &f8), LINCOLL_OK);
    uint64_t A[81];
    for (int i = 0; i < 81; i++)
        A[i] = (uint64_t)(i * 13 + 1) % 256;
    gargs_t g = {f8, A, 9, 9, 1, 8, 8};
    uint64_t seed = 4;
    uint8_t **x = enc_bufs(f8, 9, 8, &seed, 1), **y = enc_bufs(f8, 9, 8, &seed, 0);
    static const char *names[] = {"prepare_shoot", "best_window", "direct"};
    for (int i = 0; i < 3; i++) {
        setenv("LINCOLL_ENCODE_ALGO", names[i], 1);
        enc_run_t res;
        assert_int_equal(enc_run(9, 1, x, y, init_gen, &g, 1, &res), 0);
        assert_int_equal(res.run_st, LINCOLL_OK);
        assert_string_equal(res.st0.algorithm, names[i]);
        assert_int_equal(enc_check_matrix(f8, 9, A, x, y, 8), 0);
    }
    setenv("LINCOLL_ENCODE_ALGO", "specific", 1); /* no specific algorithm: auto + warning */
    enc_run_t res;
    assert_int_equal(enc_run(9, 1, x, y, init_gen, &g, 1, &res), 0);
    assert_int_equal(res.init_st, LINCOLL_OK);
    /* a bad value: rejected by the central config table when the context is
     * created, or (without it) by every rank's init */
    setenv("LINCOLL_ENCODE_ALGO", "fastest", 1);
    lc_simh_t h;
    if (lc_simh_create(&h, 9, 1) == 0) {
        lc_simh_destroy(&h);
        assert_int_equal(all_init(9, init_gen, &g, LINCOLL_ERR_INVALID), 9);
    }
    unsetenv("LINCOLL_ENCODE_ALGO");
    /* K = 9, p = 1: the model picks best_window (C2 = 4 < 5 < 8) at small packets */
    assert_int_equal(enc_run(9, 1, x, y, init_gen, &g, 1, &res), 0);
    assert_string_equal(res.st0.algorithm, "best_window");
    assert_int_equal(res.c2_bytes, 4 * 8);
    enc_free_bufs(x, 9);
    enc_free_bufs(y, 9);
    lincoll_gf_field_destroy(f8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dft_vectors), cmocka_unit_test(test_dft_sizes),
        cmocka_unit_test(test_vandermonde), cmocka_unit_test(test_lagrange),
        cmocka_unit_test(test_rs_repair),   cmocka_unit_test(test_forcing),
        cmocka_unit_test(test_bad_input),   cmocka_unit_test(test_mismatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
