/*
 * kernels/gf/gf_kernels.h: internal GF(q) API for the rest of lincoll.
 *
 * What: field descriptors with inline scalar arithmetic, expanded coefficient
 * tables, and the kernel variants (lincomb: k sources -> r outputs; mad: one
 * source folded into r outputs) per field kind and ISA.  The encode engine
 * calls lc_gf_lincomb()/lc_gf_mad() on hot paths: no argument checks, no
 * context, dispatch by lc_kernel_isa().
 * Reference: ISA-L erasure_code (ec_base.c, ec_highlevel_func.c), gf-complete
 * SPLIT/ALTMAP layouts, Harvey's Shoup multiplication for NTT primes.
 * Cost: see each variant file.
 * Restrictions: buffers of len bytes, len a multiple of the element size;
 * prime-field buffers element-aligned with reduced values.
 */
#ifndef LC_GF_KERNELS_H
#define LC_GF_KERNELS_H

#include <lincoll/gf.h>

#include "../kernels.h"

#include <stddef.h>
#include <stdint.h>

/** Field kinds, one kernel family each. */
typedef enum lc_gf_kind {
    LC_GF_KIND_GF8 = 0, /* GF(2^8), poly 0x11d, bytes */
    LC_GF_KIND_GF16,    /* GF(2^16), poly 0x1100b, 16-bit words */
    LC_GF_KIND_P32,     /* prime p < 2^31, 32-bit words */
    LC_GF_KIND_P64,     /* Goldilocks 2^64 - 2^32 + 1, 64-bit words */
    LC_GF_KIND_LAST
} lc_gf_kind_t;

#define LC_GF_POLY8  0x11du
#define LC_GF_POLY16 0x1100bu
#define LC_GF_GL_EPS 0xffffffffull /* 2^64 mod Goldilocks */

struct lincoll_field {
    lc_gf_kind_t kind;
    uint64_t q;
    unsigned elem_size;
    uint64_t gen;     /* smallest primitive element */
    uint64_t fac[16]; /* distinct prime factors of q - 1 */
    int nfac;
    /* binary fields: log/exp tables; exp has 2(q-1) entries so no mod */
    uint32_t poly;
    uint16_t *log;
    uint16_t *exp;
    /* p32 */
    uint32_t p;
    uint32_t r32;       /* 2^32 mod p */
    uint32_t r32_shoup; /* floor(r32 * 2^32 / p) */
    uint32_t one_shoup; /* floor(2^32 / p) */
    unsigned max_terms; /* products a u64 accumulator (< p) can take */
};

struct lincoll_gf_coeffs {
    const lincoll_field_t *field;
    int r, k;
    uint64_t *m;   /* r*k matrix copy, [j*k + i] */
    uint8_t *nib;  /* gf8: 32 B (lo16, hi16) per coefficient; gf16: 128 B T[n][b][16] */
    uint64_t *aff; /* gf8: 1 GFNI matrix per coefficient; gf16: 4 (ll, hl, lh, hh) */
    uint32_t *a32; /* p32: coefficient */
    uint32_t *s32; /* p32: Shoup companion floor(a * 2^32 / p) */
    void *mem;
};

/* ------------------------------------------------------------ scalars */

static inline uint64_t lc_gfp64_reduce128(unsigned __int128 x)
{
    uint64_t lo = (uint64_t)x, hi = (uint64_t)(x >> 64);
    uint64_t hh = hi >> 32, hl = hi & 0xffffffffull;
    uint64_t t0 = lo - hh;
    if (lo < hh) t0 -= LC_GF_GL_EPS;
    uint64_t t1 = hl * LC_GF_GL_EPS;
    uint64_t t2 = t0 + t1;
    if (t2 < t1) t2 += LC_GF_GL_EPS;
    if (t2 >= LINCOLL_GF_GOLDILOCKS) t2 -= LINCOLL_GF_GOLDILOCKS;
    return t2;
}

static inline uint64_t lc_gfp64_add(uint64_t a, uint64_t b)
{
    uint64_t s = a + b;
    if (s < a) s += LC_GF_GL_EPS;
    if (s >= LINCOLL_GF_GOLDILOCKS) s -= LINCOLL_GF_GOLDILOCKS;
    return s;
}

static inline uint64_t lc_gf_add(const lincoll_field_t *f, uint64_t a, uint64_t b)
{
    switch (f->kind) {
    case LC_GF_KIND_GF8:
    case LC_GF_KIND_GF16:
        return a ^ b;
    case LC_GF_KIND_P32: {
        uint64_t s = a + b;
        return s >= f->p ? s - f->p : s;
    }
    default:
        return lc_gfp64_add(a, b);
    }
}

static inline uint64_t lc_gf_sub(const lincoll_field_t *f, uint64_t a, uint64_t b)
{
    switch (f->kind) {
    case LC_GF_KIND_GF8:
    case LC_GF_KIND_GF16:
        return a ^ b;
    case LC_GF_KIND_P32:
        return a >= b ? a - b : a + f->p - b;
    default:
        return a >= b ? a - b : a - b + LINCOLL_GF_GOLDILOCKS;
    }
}

static inline uint64_t lc_gf_mul(const lincoll_field_t *f, uint64_t a, uint64_t b)
{
    switch (f->kind) {
    case LC_GF_KIND_GF8:
    case LC_GF_KIND_GF16:
        if (a == 0 || b == 0) return 0;
        return f->exp[f->log[a] + f->log[b]];
    case LC_GF_KIND_P32:
        return (a * b) % f->p;
    default:
        return lc_gfp64_reduce128((unsigned __int128)a * b);
    }
}

/** a^e, 0^0 = 1. */
uint64_t lc_gf_pow(const lincoll_field_t *f, uint64_t a, uint64_t e);

/** 1/a; returns 0 for a = 0. */
uint64_t lc_gf_inv(const lincoll_field_t *f, uint64_t a);
/* out = in^-1 (n x n); LINCOLL_ERR_SINGULAR without a log line, out untouched
 * (lincoll_gf_matrix_invert logs; this is for callers that name the
 * argument themselves); LINCOLL_ERR_NOMEM. */
lincoll_status_t lc_gf_invert(const lincoll_field_t *f, int n, const uint64_t *in, uint64_t *out);

/** Field from its order (logs the reason on failure). */
lincoll_status_t lc_gf_field_create(uint64_t q, lincoll_field_t **field_p);
void lc_gf_field_destroy(lincoll_field_t *f);

/* --------------------------------------------------------------- tables */

/** Expand a matrix (no argument checks beyond allocation). */
lincoll_status_t lc_gf_coeffs_create(const lincoll_field_t *f, int r, int k, const uint64_t *matrix,
                                     lincoll_gf_coeffs_t **coeffs_p);
void lc_gf_coeffs_destroy(lincoll_gf_coeffs_t *c);

/* GFNI bit-matrix of x -> c*x over GF(2^w) restricted to input byte in_byte
 * and output byte out_byte (0 = low). */
uint64_t lc_gf_affine_matrix(const lincoll_field_t *f, uint64_t c, int in_byte, int out_byte);

/* ------------------------------------------------------------- kernels */

/** dst_j = sum_i a_ji src_i, j < r, over len bytes. */
typedef void (*lc_gf_lincomb_fn_t)(const lincoll_gf_coeffs_t *c, size_t len, const void *const *src,
                                   void *const *dst);
/** dst_j += a_j,col * src, j < r, over len bytes. */
typedef void (*lc_gf_mad_fn_t)(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src,
                               void *const *dst);

typedef struct lc_gf_variant {
    const char *name; /* "gf8_gfni", ... */
    lc_isa_t isa;
    lc_gf_lincomb_fn_t lincomb;
    lc_gf_mad_fn_t mad;
} lc_gf_variant_t;

/** Variant of exactly this ISA, or NULL when none is compiled for the kind. */
const lc_gf_variant_t *lc_gf_variant(lc_gf_kind_t kind, lc_isa_t isa);

/** Highest variant not above lc_kernel_isa() (always non-NULL: base exists). */
const lc_gf_variant_t *lc_gf_variant_dispatch(lc_gf_kind_t kind);

/** Dispatched kernels: the hot-path entry points (no checks). */
void lc_gf_lincomb(const lincoll_gf_coeffs_t *c, size_t len, const void *const *src,
                   void *const *dst);
void lc_gf_mad(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src,
               void *const *dst);

/* Base range helpers: process bytes [off, end) only (tails of SIMD variants). */
void lc_gf8_lincomb_range_base(const lincoll_gf_coeffs_t *c, size_t off, size_t end,
                               const void *const *src, void *const *dst);
void lc_gf8_mad_range_base(const lincoll_gf_coeffs_t *c, size_t off, size_t end, int col,
                           const void *src, void *const *dst);
void lc_gf16_lincomb_range_base(const lincoll_gf_coeffs_t *c, size_t off, size_t end,
                                const void *const *src, void *const *dst);
void lc_gf16_mad_range_base(const lincoll_gf_coeffs_t *c, size_t off, size_t end, int col,
                            const void *src, void *const *dst);
void lc_gfp32_lincomb_range_base(const lincoll_gf_coeffs_t *c, size_t off, size_t end,
                                 const void *const *src, void *const *dst);
void lc_gfp32_mad_range_base(const lincoll_gf_coeffs_t *c, size_t off, size_t end, int col,
                             const void *src, void *const *dst);
void lc_gfp64_lincomb_range_base(const lincoll_gf_coeffs_t *c, size_t off, size_t end,
                                 const void *const *src, void *const *dst);
void lc_gfp64_mad_range_base(const lincoll_gf_coeffs_t *c, size_t off, size_t end, int col,
                             const void *src, void *const *dst);

#define LC_GF_DECLARE_VARIANTS(fam, isa)                                                           \
    void lc_##fam##_lincomb_##isa(const lincoll_gf_coeffs_t *c, size_t len,                        \
                                  const void *const *src, void *const *dst);                       \
    void lc_##fam##_mad_##isa(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src,  \
                              void *const *dst);

LC_GF_DECLARE_VARIANTS(gf8, base)
LC_GF_DECLARE_VARIANTS(gf8, avx2)
LC_GF_DECLARE_VARIANTS(gf8, avx512)
LC_GF_DECLARE_VARIANTS(gf8, gfni)
LC_GF_DECLARE_VARIANTS(gf16, base)
LC_GF_DECLARE_VARIANTS(gf16, avx2)
LC_GF_DECLARE_VARIANTS(gf16, avx512)
LC_GF_DECLARE_VARIANTS(gf16, gfni)
LC_GF_DECLARE_VARIANTS(gfp32, base)
LC_GF_DECLARE_VARIANTS(gfp32, avx2)
LC_GF_DECLARE_VARIANTS(gfp32, avx512)
LC_GF_DECLARE_VARIANTS(gfp64, base)
LC_GF_DECLARE_VARIANTS(gfp64, avx2)
LC_GF_DECLARE_VARIANTS(gfp64, avx512)

/* Tuning (measured on Zen 5, see perf/perf_gf.c): L2 bytes per core below
 * which a call's working set counts as cache-resident, and the software
 * prefetch distance in bytes per ISA (0: none) for calls above it. */
#define LC_GF_L2_BYTES ((size_t)1 << 20)
extern size_t lc_gf_tune_pf[LC_ISA_LAST];
/* Working set ((k + r) * len) from which the AVX-512/GFNI GF(2^8) lincomb
 * streams its outputs (non-temporal stores): 3/4 of the last-level cache,
 * at most 24 MiB (gf_lincomb.c), or the kernels' gf_stream_bytes.  A variable so tests and
 * benchmarks can move it. */
extern size_t lc_gf_nt_bytes;
/** Set lc_gf_nt_bytes (0: the default above); lc_kernels_configure calls it. */
void lc_gf_set_stream_bytes(size_t bytes);
/* Bit 0 of a row kernel's pf argument (distances are multiples of 64):
 * write the outputs with non-temporal stores. */
#define LC_GF_PF_NT ((size_t)1)

/* Bytes of each buffer a SIMD lincomb processes per length chunk so that the
 * k source chunks stay in L2 while successive row blocks re-read them. */
static inline size_t lc_gf_chunk_bytes(int k, size_t unit)
{
    size_t ch = ((size_t)256 * 1024 / (size_t)k) & ~(unit - 1);
    return ch < 4 * unit ? 4 * unit : ch;
}

/* A row-block kernel: rows j0 .. j0+R-1, bytes [off, off+n), sources
 * prefetched pf bytes ahead (0: no prefetch). */
typedef void (*lc_gf_rows_fn_t)(const lincoll_gf_coeffs_t *c, int j0, const void *const *src,
                                void *const *dst, size_t off, size_t n, size_t pf);

/* Run fns[R] over bytes [0, nv): rows split into blocks of at most rmax, as
 * even as possible; when more than one block, the length is cut into chunks
 * of lc_gf_chunk_bytes() so later blocks find the sources in cache (and only
 * the first block of a chunk prefetches). */
static inline void lc_gf_run_blocks(const lc_gf_rows_fn_t *fns, int rmax,
                                    const lincoll_gf_coeffs_t *c, size_t nv, size_t unit, size_t pf,
                                    const void *const *src, void *const *dst)
{
    size_t ch = c->r > rmax ? lc_gf_chunk_bytes(c->k, unit) : nv;
    int nblk = (c->r + rmax - 1) / rmax;
    for (size_t off = 0; off < nv; off += ch) {
        size_t n = nv - off < ch ? nv - off : ch;
        int j0 = 0;
        for (int b = 0; b < nblk; b++) {
            int R = (c->r - j0) / (nblk - b);
            fns[R](c, j0, src, dst, off, n, b == 0 ? pf : 0);
            j0 += R;
        }
    }
}

#endif
