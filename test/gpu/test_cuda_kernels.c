/*
 * test/gpu/test_cuda_kernels.c: every CUDA kernel of kernels/cuda against
 * the CPU _base kernel it must equal (docs/accelerators.md, "Checks").
 *
 *  - reductions: every (dtype, op) of the CPU table, odd lengths, aligned and
 *    misaligned pointers, in place; bit for bit against lc_reduce3_base
 *    (float16/bfloat16 rounding, NaN and infinity inputs included);
 *  - GF(2^8) and GF(2^16): lincomb and mad for 10+4 and other shapes (k up to
 *    40 sources, r up to 12 outputs: several launches), aligned and not;
 *    byte for byte against the _base variants;
 *  - GEMM through cuBLAS: float and double, both layouts, all transposes,
 *    beta 0 and not, against lincoll_gemm_base within rounding.
 * Needs a GPU: without one it prints the reason and exits 77 (test/gpu/run.sh
 * runs it on the GPU machine; the ctest suite does not).  The closing line
 * is "N passed, N failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lincoll/lincoll.h>

#include "kernels/cuda/cuda_kernels.h"
#include "kernels/gf/gf_kernels.h"
#include "kernels/reduce/reduce_kernels.h"

static int passed, failed;

static void check(int ok, const char *what)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL %s\n", what);
    }
}

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 4;
}

static void *dmalloc(size_t n)
{
    void *p = NULL;
    if (lc_cuda_malloc(n, &p) != LINCOLL_OK) {
        printf("FAIL cudaMalloc %zu\n", n);
        exit(1);
    }
    return p;
}

static void to_dev(lc_cuda_stream_t *s, void *d, const void *h, size_t n)
{
    lc_cuda_copy(s, d, h, n);
    lc_cuda_sync(s);
}

static void to_host(lc_cuda_stream_t *s, void *h, const void *d, size_t n)
{
    lc_cuda_copy(s, h, d, n);
    lc_cuda_sync(s);
}

static void fill(unsigned char *p, size_t n, unsigned seed, lincoll_dtype_t dt)
{
    unsigned s = seed;
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)rnd(&s);
    if (dt == LINCOLL_FLOAT) { /* finite values mostly, some specials */
        float *f = (float *)p;
        for (size_t i = 0; i < n / 4; i++)
            f[i] = (float)((int)(rnd(&s) % 20001) - 10000) / 64.0f;
        if (n / 4 > 3) f[1] = NAN, f[2] = INFINITY, f[3] = -0.0f;
    } else if (dt == LINCOLL_DOUBLE) {
        double *f = (double *)p;
        for (size_t i = 0; i < n / 8; i++)
            f[i] = (double)((int)(rnd(&s) % 20001) - 10000) / 1024.0;
    }
}

/* Results equal bit for bit, except that a NaN equals any NaN (the CPU
 * keeps an operand's NaN payload, the GPU gives the canonical NaN). */
static int same_values(const void *x, const void *y, size_t n, lincoll_dtype_t dt)
{
    if (memcmp(x, y, n * lincoll_dtype_size(dt)) == 0) return 1;
    for (size_t i = 0; i < n; i++) {
        int nx, ny, eq;
        if (dt == LINCOLL_FLOAT) {
            float a = ((const float *)x)[i], b = ((const float *)y)[i];
            nx = isnan(a), ny = isnan(b), eq = memcmp(&a, &b, 4) == 0;
        } else if (dt == LINCOLL_DOUBLE) {
            double a = ((const double *)x)[i], b = ((const double *)y)[i];
            nx = isnan(a), ny = isnan(b), eq = memcmp(&a, &b, 8) == 0;
        } else if (dt == LINCOLL_FLOAT16 || dt == LINCOLL_BFLOAT16) {
            uint16_t a = ((const uint16_t *)x)[i], b = ((const uint16_t *)y)[i];
            unsigned em = dt == LINCOLL_FLOAT16 ? 0x7c00u : 0x7f80u;
            unsigned mm = dt == LINCOLL_FLOAT16 ? 0x03ffu : 0x007fu;
            nx = (a & em) == em && (a & mm), ny = (b & em) == em && (b & mm), eq = a == b;
        } else {
            return 0;
        }
        if (!eq && !(nx && ny)) return 0;
    }
    return 1;
}

static void test_reduce(lc_cuda_stream_t *s)
{
    const size_t counts[] = {1, 7, 64, 1000, 100003};
    const size_t maxb = 100003 * 8 + 64;
    unsigned char *ha = malloc(maxb), *hb = malloc(maxb), *want = malloc(maxb), *got = malloc(maxb);
    unsigned char *da = dmalloc(maxb), *db = dmalloc(maxb), *dd = dmalloc(maxb);
    char what[128];
    for (int dt = 0; dt < LINCOLL_DTYPE_LAST; dt++) {
        for (int op = 0; op < LINCOLL_OP_LAST; op++) {
            if (lc_reduce_fn(LC_ISA_BASE, dt, op) == NULL) {
                check(!lc_cuda_reduce_supported(dt, op), "reduce: an undefined pair refused");
                continue;
            }
            check(lc_cuda_reduce_supported(dt, op), "reduce: a defined pair served");
            const size_t es = lincoll_dtype_size(dt);
            for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
                for (int mis = 0; mis <= 1; mis++) {
                    const size_t n = counts[c], off = mis ? es : 0, bytes = n * es;
                    fill(ha, bytes + off, (unsigned)(dt * 7 + op + c), dt);
                    fill(hb, bytes + off, (unsigned)(dt * 11 + op + c + 99), dt);
                    lc_reduce3_base(want, ha + off, hb + off, n, dt, op);
                    to_dev(s, da, ha, bytes + off);
                    to_dev(s, db, hb, bytes + off);
                    int ok =
                        lc_cuda_reduce(s, dd + off, da + off, db + off, n, dt, op) == LINCOLL_OK &&
                        lc_cuda_sync(s) == LINCOLL_OK;
                    to_host(s, got, dd + off, bytes);
                    snprintf(what, sizeof(what), "reduce %s %s n=%zu%s", lincoll_dtype_name(dt),
                             lincoll_op_name(op), n, mis ? " misaligned" : "");
                    check(ok && same_values(got, want, n, dt), what);
                    /* in place: dst = a */
                    ok = lc_cuda_reduce(s, da + off, da + off, db + off, n, dt, op) == LINCOLL_OK &&
                         lc_cuda_sync(s) == LINCOLL_OK;
                    to_host(s, got, da + off, bytes);
                    snprintf(what, sizeof(what), "reduce %s %s n=%zu in place",
                             lincoll_dtype_name(dt), lincoll_op_name(op), n);
                    check(ok && same_values(got, want, n, dt), what);
                }
            }
        }
    }
    lc_cuda_free(da);
    lc_cuda_free(db);
    lc_cuda_free(dd);
    free(ha);
    free(hb);
    free(want);
    free(got);
}

static void test_gf(lc_cuda_stream_t *s, uint64_t q)
{
    lincoll_field_t *f = NULL;
    lincoll_gf_field_create(q, &f);
    const int shapes[][2] = {{10, 4}, {1, 1}, {3, 5}, {40, 12}, {32, 8}, {7, 9}};
    const size_t lens[] = {16, 30, 4096, 262146};
    char what[160];
    for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++) {
        const int k = shapes[sh][0], r = shapes[sh][1];
        uint64_t *m = malloc(sizeof(uint64_t) * (size_t)(k * r));
        unsigned seed = (unsigned)(sh * 17 + q);
        for (int i = 0; i < k * r; i++)
            m[i] = rnd(&seed) % q;
        lincoll_gf_coeffs_t *c = NULL;
        lincoll_gf_coeffs_create(f, r, k, m, &c);
        const lc_gf_variant_t *base = lc_gf_variant(f->kind, LC_ISA_BASE);
        lc_cuda_gf_tab_t *tl = NULL, *tm = NULL;
        int col = k / 2;
        check(lc_cuda_gf_tab_create(q, r, k, m, -1, &tl) == LINCOLL_OK, "gf lincomb tables");
        check(lc_cuda_gf_tab_create(q, r, k, m, col, &tm) == LINCOLL_OK, "gf mad tables");
        for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
            for (int mis = 0; mis <= 1; mis++) {
                const size_t len = lens[li], off = mis ? 2 : 0, pad = len + 64;
                unsigned char **hs = calloc((size_t)k, sizeof(*hs)), **hd = calloc((size_t)r, 8);
                unsigned char **ds = calloc((size_t)k, sizeof(*ds)), **dd = calloc((size_t)r, 8);
                for (int i = 0; i < k; i++) {
                    hs[i] = malloc(pad);
                    fill(hs[i], pad, (unsigned)(i + li * 131 + sh), LINCOLL_BYTE);
                    ds[i] = dmalloc(pad);
                    to_dev(s, ds[i], hs[i], pad);
                }
                unsigned char *got = malloc(pad);
                for (int j = 0; j < r; j++) {
                    hd[j] = malloc(pad);
                    fill(hd[j], pad, (unsigned)(j + 1000), LINCOLL_BYTE);
                    dd[j] = dmalloc(pad);
                    to_dev(s, dd[j], hd[j], pad);
                }
                const void **sp = calloc((size_t)k, sizeof(void *)), **hsp = calloc((size_t)k, 8);
                void **dp = calloc((size_t)r, sizeof(void *)), **hdp = calloc((size_t)r, 8);
                for (int i = 0; i < k; i++)
                    sp[i] = ds[i] + off, hsp[i] = hs[i] + off;
                for (int j = 0; j < r; j++)
                    dp[j] = dd[j] + off, hdp[j] = hd[j] + off;
                /* mad first (dst += a_j,col src_col), then lincomb over it */
                base->mad(c, len, col, hsp[col], hdp);
                int ok = lc_cuda_gf_run(s, tm, len, &sp[col], dp) == LINCOLL_OK &&
                         lc_cuda_sync(s) == LINCOLL_OK;
                int same = 1;
                for (int j = 0; j < r; j++) {
                    to_host(s, got, dd[j], pad);
                    same &= memcmp(got, hd[j], pad) == 0;
                }
                snprintf(what, sizeof(what), "gf%s mad %d+%d len=%zu%s", q == 256 ? "8" : "16", k,
                         r, len, mis ? " misaligned" : "");
                check(ok && same, what);
                base->lincomb(c, len, hsp, hdp);
                ok = lc_cuda_gf_run(s, tl, len, sp, dp) == LINCOLL_OK &&
                     lc_cuda_sync(s) == LINCOLL_OK;
                same = 1;
                for (int j = 0; j < r; j++) {
                    to_host(s, got, dd[j], pad);
                    same &= memcmp(got, hd[j], pad) == 0;
                }
                snprintf(what, sizeof(what), "gf%s lincomb %d+%d len=%zu%s", q == 256 ? "8" : "16",
                         k, r, len, mis ? " misaligned" : "");
                check(ok && same, what);
                for (int i = 0; i < k; i++) {
                    free(hs[i]);
                    lc_cuda_free(ds[i]);
                }
                for (int j = 0; j < r; j++) {
                    free(hd[j]);
                    lc_cuda_free(dd[j]);
                }
                free(hs), free(hd), free(ds), free(dd), free(sp), free(hsp), free(dp), free(hdp);
                free(got);
            }
        }
        lc_cuda_gf_tab_destroy(tl);
        lc_cuda_gf_tab_destroy(tm);
        lincoll_gf_coeffs_destroy(c);
        free(m);
    }
    lincoll_gf_field_destroy(f);
}

static void test_gemm(lc_cuda_stream_t *s)
{
    const char *why = lc_cuda_blas_status();
    char what[160];
    for (int dt = 0; dt < 2; dt++) {
        lincoll_dtype_t dtype = dt ? LINCOLL_DOUBLE : LINCOLL_FLOAT;
        const size_t es = dt ? 8 : 4;
        for (int lay = 0; lay < 2; lay++)
            for (int ta = 0; ta < 2; ta++)
                for (int tb = 0; tb < 2; tb++)
                    for (int bz = 0; bz < 2; bz++) {
                        const int64_t m = 37, n = 29, k = 45;
                        const int64_t lda = 50, ldb = 60, ldc = 40;
                        size_t na = (size_t)lda * 64 * es, nb = (size_t)ldb * 64 * es,
                               nc = (size_t)ldc * 64 * es;
                        unsigned char *ha = malloc(na), *hb = malloc(nb), *hc = malloc(nc),
                                      *got = malloc(nc);
                        fill(ha, na, 1, dtype);
                        fill(hb, nb, 2, dtype);
                        fill(hc, nc, 3, dtype);
                        if (dtype == LINCOLL_FLOAT) { /* no NaN specials here */
                            float *x[3] = {(float *)ha, (float *)hb, (float *)hc};
                            for (int q = 0; q < 3; q++)
                                x[q][1] = x[q][2] = x[q][3] = 0.5f;
                        }
                        void *da = dmalloc(na), *db = dmalloc(nb), *dc = dmalloc(nc);
                        to_dev(s, da, ha, na);
                        to_dev(s, db, hb, nb);
                        to_dev(s, dc, hc, nc);
                        double beta = bz ? 0.0 : 0.75;
                        lincoll_gemm_base(lay, ta, tb, m, n, k, dtype, 1.25, ha, lda, hb, ldb, beta,
                                          hc, ldc);
                        int ok = lc_cuda_gemm(s, lay, ta, tb, m, n, k, dtype, 1.25, da, lda, db,
                                              ldb, beta, dc, ldc) == LINCOLL_OK &&
                                 lc_cuda_sync(s) == LINCOLL_OK;
                        to_host(s, got, dc, nc);
                        double err = 0;
                        for (int64_t i = 0; i < m; i++)
                            for (int64_t j = 0; j < n; j++) {
                                size_t at = lay == LINCOLL_ROW_MAJOR ? (size_t)(i * ldc + j)
                                                                     : (size_t)(i + j * ldc);
                                double x = dt ? ((double *)got)[at] : ((float *)got)[at];
                                double y = dt ? ((double *)hc)[at] : ((float *)hc)[at];
                                double e = fabs(x - y) / (1.0 + fabs(y));
                                err = e > err ? e : err;
                            }
                        snprintf(what, sizeof(what),
                                 "gemm %s %s ta=%d tb=%d beta=%g (max rel err %.2g; %s)",
                                 dt ? "double" : "float", lay ? "row" : "col", ta, tb, beta, err,
                                 why);
                        check(ok && err < (dt ? 1e-12 : 1e-4), what);
                        lc_cuda_free(da);
                        lc_cuda_free(db);
                        lc_cuda_free(dc);
                        free(ha), free(hb), free(hc), free(got);
                    }
    }
}

int main(void)
{
    const char *why = NULL;
    if (!lc_cuda_usable(&why)) {
        printf("SKIP test_cuda_kernels: %s (this check needs a GPU: run test/gpu/run.sh on one)\n",
               why);
        return 77;
    }
    printf("test_cuda_kernels: %s\n", why);
    lc_cuda_stream_t *s = NULL;
    if (lc_cuda_stream_create(&s) != LINCOLL_OK) {
        printf("FAIL stream\n");
        return 1;
    }
    test_reduce(s);
    test_gf(s, 256);
    test_gf(s, 65536);
    test_gemm(s);
    lc_cuda_stream_destroy(s);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
