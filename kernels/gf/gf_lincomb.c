/*
 * kernels/gf/gf_lincomb.c: coefficient tables, variant table and dispatch,
 * and the public lincomb/mad/encode/decode entry points.
 *
 * What: expands an r x k matrix once into every form a variant needs
 * (ISA-L-style 32-byte nibble tables and GFNI bit-matrices for GF(2^8);
 * 8 nibble tables and 4 bit-matrices per coefficient for GF(2^16); Shoup
 * companions for primes), so one table serves all ISAs.
 * Reference: ISA-L ec_init_tables / gf_vect_mul_init, ec_highlevel_func.c.
 * Cost: create O(r*k) (GF(2^8): 40 B, GF(2^16): 160 B, p32: 8 B per
 * coefficient beyond the matrix copy); dispatch is one table lookup per call.
 * Restrictions: r <= LINCOLL_GF_MAX_R, k <= LINCOLL_GF_MAX_K.
 */
#include "gf_kernels.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LC_GF_V(fam, isa_id, isa)                                                                  \
    {                                                                                              \
#fam "_" #isa, isa_id, lc_##fam##_lincomb_##isa, lc_##fam##_mad_##isa                      \
    }

/* Software prefetch distance per ISA for calls whose working set exceeds L2
 * (LC_GF_L2_BYTES).  Zen 5, 10+4 and 4+2 at 1 MiB fragments, under load:
 * see docs/kernels.md, "Variants" and docs/perf/history.md, "2026-12-02:
 * GF(q) against ISA-L, under load".  A variable so benchmarks can sweep it. */
size_t lc_gf_tune_pf[LC_ISA_LAST] = {
    [LC_ISA_BASE] = 0,
    [LC_ISA_AVX2] = 0,
    [LC_ISA_AVX512] = 2048,
    [LC_ISA_GFNI] = 2048,
};

/* 3/4 of the last-level cache, as glibc's memcpy chooses its non-temporal
 * threshold, capped at 24 MiB: sysconf reports the whole package's L3 (384
 * MiB on this Zen 5 VM), of which one core uses one CCD's 32 MiB.  Set
 * before main() so a test or benchmark may override it; the kernels'
 * settings (gf_stream_bytes, LINCOLL_GF_STREAM_BYTES) replace it. */
#define LC_GF_NT_CAP ((size_t)24 << 20)
size_t lc_gf_nt_bytes = LC_GF_NT_CAP;
static size_t lc_gf_nt_auto = LC_GF_NT_CAP;

__attribute__((constructor)) static void lc_gf_nt_init(void)
{
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0 && (size_t)l3 / 4 * 3 < LC_GF_NT_CAP) {
        lc_gf_nt_auto = (size_t)l3 / 4 * 3;
    }
    lc_gf_nt_bytes = lc_gf_nt_auto;
}

void lc_gf_set_stream_bytes(size_t bytes)
{
    lc_gf_nt_bytes = bytes != 0 ? bytes : lc_gf_nt_auto;
}

static const lc_gf_variant_t lc_gf_variants[LC_GF_KIND_LAST][LC_ISA_LAST] = {
    [LC_GF_KIND_GF8] =
        {
            [LC_ISA_BASE] = LC_GF_V(gf8, LC_ISA_BASE, base),
            [LC_ISA_AVX2] = LC_GF_V(gf8, LC_ISA_AVX2, avx2),
            [LC_ISA_AVX512] = LC_GF_V(gf8, LC_ISA_AVX512, avx512),
            [LC_ISA_GFNI] = LC_GF_V(gf8, LC_ISA_GFNI, gfni),
        },
    [LC_GF_KIND_GF16] =
        {
            [LC_ISA_BASE] = LC_GF_V(gf16, LC_ISA_BASE, base),
            [LC_ISA_AVX2] = LC_GF_V(gf16, LC_ISA_AVX2, avx2),
            [LC_ISA_AVX512] = LC_GF_V(gf16, LC_ISA_AVX512, avx512),
            [LC_ISA_GFNI] = LC_GF_V(gf16, LC_ISA_GFNI, gfni),
        },
    [LC_GF_KIND_P32] =
        {
            [LC_ISA_BASE] = LC_GF_V(gfp32, LC_ISA_BASE, base),
            [LC_ISA_AVX2] = LC_GF_V(gfp32, LC_ISA_AVX2, avx2),
            [LC_ISA_AVX512] = LC_GF_V(gfp32, LC_ISA_AVX512, avx512),
        },
    [LC_GF_KIND_P64] =
        {
            [LC_ISA_BASE] = LC_GF_V(gfp64, LC_ISA_BASE, base),
            [LC_ISA_AVX2] = LC_GF_V(gfp64, LC_ISA_AVX2, avx2),
            [LC_ISA_AVX512] = LC_GF_V(gfp64, LC_ISA_AVX512, avx512),
        },
};

const lc_gf_variant_t *lc_gf_variant(lc_gf_kind_t kind, lc_isa_t isa)
{
    if ((unsigned)kind >= LC_GF_KIND_LAST || (unsigned)isa >= LC_ISA_LAST) return NULL;
    const lc_gf_variant_t *v = &lc_gf_variants[kind][isa];
    return v->lincomb != NULL ? v : NULL;
}

const lc_gf_variant_t *lc_gf_variant_dispatch(lc_gf_kind_t kind)
{
    for (int isa = (int)lc_kernel_isa(); isa > LC_ISA_BASE; isa--) {
        const lc_gf_variant_t *v = lc_gf_variant(kind, (lc_isa_t)isa);
        if (v != NULL) return v;
    }
    return &lc_gf_variants[kind][LC_ISA_BASE];
}

void lc_gf_lincomb(const lincoll_gf_coeffs_t *c, size_t len, const void *const *src,
                   void *const *dst)
{
    lc_gf_variant_dispatch(c->field->kind)->lincomb(c, len, src, dst);
}

void lc_gf_mad(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src, void *const *dst)
{
    lc_gf_variant_dispatch(c->field->kind)->mad(c, len, col, src, dst);
}

/* ------------------------------------------------------------- tables */

lincoll_status_t lc_gf_coeffs_create(const lincoll_field_t *f, int r, int k, const uint64_t *matrix,
                                     lincoll_gf_coeffs_t **coeffs_p)
{
    size_t n = (size_t)r * (size_t)k;
    size_t nib_b = 0, aff_n = 0, p32_n = 0;
    switch (f->kind) {
    case LC_GF_KIND_GF8:
        nib_b = 32, aff_n = 1;
        break;
    case LC_GF_KIND_GF16:
        nib_b = 128, aff_n = 4;
        break;
    case LC_GF_KIND_P32:
        p32_n = 1;
        break;
    default:
        break;
    }
    size_t off_m = 0;
    size_t off_nib = (off_m + n * 8 + 63) & ~(size_t)63;
    size_t off_aff = (off_nib + n * nib_b + 63) & ~(size_t)63;
    size_t off_a32 = (off_aff + n * aff_n * 8 + 63) & ~(size_t)63;
    size_t off_s32 = (off_a32 + n * p32_n * 4 + 63) & ~(size_t)63;
    size_t total = (off_s32 + n * p32_n * 4 + 63) & ~(size_t)63;

    lincoll_gf_coeffs_t *c = calloc(1, sizeof(*c));
    uint8_t *mem = aligned_alloc(64, total);
    if (c == NULL || mem == NULL) {
        free(c);
        free(mem);
        lc_kerror("gf: out of memory for %d x %d coefficient tables", r, k);
        return LINCOLL_ERR_NOMEM;
    }
    c->field = f;
    c->r = r;
    c->k = k;
    c->mem = mem;
    c->m = (uint64_t *)(mem + off_m);
    memcpy(c->m, matrix, n * sizeof(uint64_t));
    if (nib_b) c->nib = mem + off_nib;
    if (aff_n) c->aff = (uint64_t *)(mem + off_aff);
    if (p32_n) {
        c->a32 = (uint32_t *)(mem + off_a32);
        c->s32 = (uint32_t *)(mem + off_s32);
    }
    for (size_t e = 0; e < n; e++) {
        uint64_t a = matrix[e];
        if (f->kind == LC_GF_KIND_GF8) {
            uint8_t *t = c->nib + 32 * e;
            for (int v = 0; v < 16; v++) {
                t[v] = (uint8_t)lc_gf_mul(f, a, (uint64_t)v);
                t[16 + v] = (uint8_t)lc_gf_mul(f, a, (uint64_t)v << 4);
            }
            c->aff[e] = lc_gf_affine_matrix(f, a, 0, 0);
        } else if (f->kind == LC_GF_KIND_GF16) {
            uint8_t *t = c->nib + 128 * e;
            for (int nb = 0; nb < 4; nb++) {
                for (int v = 0; v < 16; v++) {
                    uint64_t pr = lc_gf_mul(f, a, (uint64_t)v << (4 * nb));
                    t[(nb * 2 + 0) * 16 + v] = (uint8_t)pr;
                    t[(nb * 2 + 1) * 16 + v] = (uint8_t)(pr >> 8);
                }
            }
            c->aff[4 * e + 0] = lc_gf_affine_matrix(f, a, 0, 0); /* xl -> yl */
            c->aff[4 * e + 1] = lc_gf_affine_matrix(f, a, 1, 0); /* xh -> yl */
            c->aff[4 * e + 2] = lc_gf_affine_matrix(f, a, 0, 1); /* xl -> yh */
            c->aff[4 * e + 3] = lc_gf_affine_matrix(f, a, 1, 1); /* xh -> yh */
        } else if (f->kind == LC_GF_KIND_P32) {
            c->a32[e] = (uint32_t)a;
            c->s32[e] = (uint32_t)((a << 32) / f->p);
        }
    }
    *coeffs_p = c;
    return LINCOLL_OK;
}

void lc_gf_coeffs_destroy(lincoll_gf_coeffs_t *c)
{
    if (c == NULL) return;
    free(c->mem);
    free(c);
}

/* ------------------------------------------------------------- public */

static lincoll_status_t lc_gf_check_matrix(const lincoll_field_t *f, int r, int k,
                                           const uint64_t *m, const char *what)
{
    if (f == NULL || m == NULL) {
        lc_kerror("gf: %s: %s is NULL", what, f == NULL ? "field" : "matrix");
        return LINCOLL_ERR_INVALID;
    }
    if (r < 1 || r > LINCOLL_GF_MAX_R) {
        lc_kerror("gf: %s: rows %d outside 1..%d", what, r, LINCOLL_GF_MAX_R);
        return LINCOLL_ERR_INVALID;
    }
    if (k < 1 || k > LINCOLL_GF_MAX_K) {
        lc_kerror("gf: %s: columns %d outside 1..%d", what, k, LINCOLL_GF_MAX_K);
        return LINCOLL_ERR_INVALID;
    }
    for (size_t e = 0; e < (size_t)r * (size_t)k; e++) {
        if (m[e] >= f->q) {
            lc_kerror("gf: %s: matrix element %zu = %llu is not reduced mod %llu", what, e,
                      (unsigned long long)m[e], (unsigned long long)f->q);
            return LINCOLL_ERR_INVALID;
        }
    }
    return LINCOLL_OK;
}

lincoll_status_t lincoll_gf_coeffs_create(const lincoll_field_t *field, int r, int k,
                                          const uint64_t *matrix, lincoll_gf_coeffs_t **coeffs_p)
{
    lincoll_status_t status = lc_gf_check_matrix(field, r, k, matrix, "coeffs_create");
    if (status != LINCOLL_OK) return status;
    if (coeffs_p == NULL) {
        lc_kerror("gf: coeffs_create: coeffs_p is NULL");
        return LINCOLL_ERR_INVALID;
    }
    return lc_gf_coeffs_create(field, r, k, matrix, coeffs_p);
}

void lincoll_gf_coeffs_destroy(lincoll_gf_coeffs_t *coeffs)
{
    lc_gf_coeffs_destroy(coeffs);
}

static lincoll_status_t lc_gf_check_buffers(const lincoll_gf_coeffs_t *c, size_t len,
                                            const void *const *bufs, int n, const char *what,
                                            const char *name)
{
    if (bufs == NULL) {
        lc_kerror("gf: %s: %s array is NULL", what, name);
        return LINCOLL_ERR_INVALID;
    }
    for (int i = 0; i < n; i++) {
        if (bufs[i] == NULL) {
            lc_kerror("gf: %s: %s[%d] is NULL", what, name, i);
            return LINCOLL_ERR_INVALID;
        }
        if (((uintptr_t)bufs[i] & (c->field->elem_size - 1)) != 0) {
            lc_kerror("gf: %s: %s[%d] is not aligned to the %u-byte element", what, name, i,
                      c->field->elem_size);
            return LINCOLL_ERR_INVALID;
        }
    }
    (void)len;
    return LINCOLL_OK;
}

static lincoll_status_t lc_gf_check_call(const lincoll_gf_coeffs_t *c, size_t len, const char *what)
{
    if (c == NULL) {
        lc_kerror("gf: %s: coeffs is NULL", what);
        return LINCOLL_ERR_INVALID;
    }
    if (len % c->field->elem_size != 0) {
        lc_kerror("gf: %s: length %zu is not a multiple of the %u-byte element", what, len,
                  c->field->elem_size);
        return LINCOLL_ERR_INVALID;
    }
    return LINCOLL_OK;
}

lincoll_status_t lincoll_gf_lincomb(const lincoll_gf_coeffs_t *coeffs, size_t len,
                                    const void *const *src, void *const *dst)
{
    lincoll_status_t status = lc_gf_check_call(coeffs, len, "lincomb");
    if (status != LINCOLL_OK) return status;
    status = lc_gf_check_buffers(coeffs, len, src, coeffs->k, "lincomb", "src");
    if (status != LINCOLL_OK) return status;
    status =
        lc_gf_check_buffers(coeffs, len, (const void *const *)dst, coeffs->r, "lincomb", "dst");
    if (status != LINCOLL_OK) return status;
    if (len > 0) lc_gf_lincomb(coeffs, len, src, dst);
    return LINCOLL_OK;
}

lincoll_status_t lincoll_gf_mad(const lincoll_gf_coeffs_t *coeffs, size_t len, int col,
                                const void *src, void *const *dst)
{
    lincoll_status_t status = lc_gf_check_call(coeffs, len, "mad");
    if (status != LINCOLL_OK) return status;
    if (col < 0 || col >= coeffs->k) {
        lc_kerror("gf: mad: column %d outside 0..%d", col, coeffs->k - 1);
        return LINCOLL_ERR_INVALID;
    }
    status = lc_gf_check_buffers(coeffs, len, &src, 1, "mad", "src");
    if (status != LINCOLL_OK) return status;
    status = lc_gf_check_buffers(coeffs, len, (const void *const *)dst, coeffs->r, "mad", "dst");
    if (status != LINCOLL_OK) return status;
    if (len > 0) lc_gf_mad(coeffs, len, col, src, dst);
    return LINCOLL_OK;
}

lincoll_status_t lincoll_gf_encode(const lincoll_field_t *field, int k, int m,
                                   const uint64_t *parity_matrix, size_t len,
                                   const void *const *data, void *const *parity)
{
    lincoll_gf_coeffs_t *c;
    lincoll_status_t status = lincoll_gf_coeffs_create(field, m, k, parity_matrix, &c);
    if (status != LINCOLL_OK) return status;
    status = lincoll_gf_lincomb(c, len, data, parity);
    lc_gf_coeffs_destroy(c);
    return status;
}

lincoll_status_t lincoll_gf_decode(const lincoll_field_t *field, int n, int k, const uint64_t *gen,
                                   const int *survivors, const void *const *surv, int n_lost,
                                   const int *lost, size_t len, void *const *out)
{
    if (n_lost < 1 || n_lost > LINCOLL_GF_MAX_R) {
        lc_kerror("gf: decode: %d lost rows outside 1..%d", n_lost, LINCOLL_GF_MAX_R);
        return LINCOLL_ERR_INVALID;
    }
    if (k < 1 || k > LINCOLL_GF_MAX_K) {
        lc_kerror("gf: decode: k %d outside 1..%d", k, LINCOLL_GF_MAX_K);
        return LINCOLL_ERR_INVALID;
    }
    uint64_t *rec = malloc((size_t)n_lost * (size_t)k * sizeof(uint64_t));
    if (rec == NULL) {
        lc_kerror("gf: decode: out of memory");
        return LINCOLL_ERR_NOMEM;
    }
    lincoll_status_t status =
        lincoll_gf_matrix_recover(field, n, k, gen, survivors, n_lost, lost, rec);
    if (status == LINCOLL_OK) {
        lincoll_gf_coeffs_t *c;
        status = lincoll_gf_coeffs_create(field, n_lost, k, rec, &c);
        if (status == LINCOLL_OK) {
            status = lincoll_gf_lincomb(c, len, surv, out);
            lc_gf_coeffs_destroy(c);
        }
    }
    free(rec);
    return status;
}
