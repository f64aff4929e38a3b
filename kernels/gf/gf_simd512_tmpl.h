/*
 * kernels/gf/gf_simd512_tmpl.h: the AVX-512 GF(2^8) and GF(2^16) loop nests
 * shared by gf_avx512.c (split-nibble vpshufb) and gf_gfni.c
 * (vgf2p8affineqb).  The two files differ only in how one coefficient
 * multiplies one vector (and, for GF(2^16), how 64 words are laid out in
 * registers); everything else (row blocks, register blocking, length
 * chunks, prefetch, tails) lives here.
 *
 * Included once per file, after these are defined:
 *   LC_FN(name)   suffixes a name with the ISA (name##_gfni)
 *   LC_TMPL_ISA   the file's lc_isa_t (prefetch tuning, lc_gf_tune_pf)
 *   GF8_RMAX             outputs per row block
 *   GF8_NV(R)            64-byte vectors per iteration for R rows (at most 4)
 *   gf8_src_t  gf8_prep(__m512i x)                 per-source form of x
 *   gf8_coef_t gf8_coef(c, e)                      coefficient e of c->m
 *   __m512i gf8_mac(acc, gf8_coef_t, gf8_src_t)    acc ^ a*x
 *   __m512i gf8_mac2(acc, a0, x0, a1, x1)          acc ^ a0*x0 ^ a1*x1
 *   GF16_RMAX            outputs per row block for GF(2^16)
 *   GF16_NV(R)           128-byte vectors (64 words) per iteration for R rows
 *   gf16_src_t gf16_load(const uint8_t *s)         per-source form of 128 bytes
 *   gf16_coef_t gf16_coef(c, e)
 *   void gf16_mac(__m512i *y0, __m512i *y1, gf16_coef_t, gf16_src_t)
 *   void gf16_join(y0, y1, __m512i *o0, __m512i *o1)  accumulators -> the
 *                        128 output bytes (o0 = bytes 0..63, o1 = 64..127)
 * Optional (gf_gfni.c; 256-byte columns, 2 vectors per row): GF16_SPLIT_KMAX
 * and GF16_SPLIT_MAXLEN enable gf16_lincomb_split for r > 2 * GF16_RMAX.
 *
 * Prefetch: when a call's working set ((k + r) * len) exceeds L2, every
 * source is prefetched lc_gf_tune_pf[LC_TMPL_ISA] bytes ahead (measured on
 * Zen 5 at 1 MiB fragments: +5-90 % data-in, see perf/perf_gf.c); below
 * that the loops carry no prefetch at all.
 *
 * Streaming stores (GF(2^8) lincomb, one row block): when the working set is
 * at least lc_gf_nt_bytes (3/4 of the last-level cache), the outputs cannot
 * stay in cache for anyone, so they are written with non-temporal stores
 * (no read-for-ownership of each output line: a third less memory traffic
 * for a 2+2 pass) when every output of the block is 64-byte aligned at the
 * block's start; an sfence ends the call.  Smaller calls keep plain stores
 * (non-temporal stores into a cache-resident working set measured
 * 0.6-0.8x).
 */

#define LC_TMPL_AI static inline __attribute__((always_inline))

/* Prefetch distance for this call: 0 while the working set fits in L2. */
LC_TMPL_AI size_t LC_FN(gf_pf)(const lincoll_gf_coeffs_t *c, size_t len)
{
    return (size_t)(c->k + c->r) * len > LC_GF_L2_BYTES ? lc_gf_tune_pf[LC_TMPL_ISA] : 0;
}

/* ------------------------------------------------------------ GF(2^8) */

/* Rows j0 .. j0+R-1 over bytes [off, off+n), n a multiple of 64*NV (NV a
 * constant per instance; gcc 12 leaves a 4-trip v loop rolled, with the
 * accumulators in memory, without the unroll pragmas).  PF: prefetch the
 * sources pf bytes ahead; NT: non-temporal stores (outputs 64-byte aligned). */
LC_TMPL_AI void LC_FN(gf8_rows)(const int R, const int NV, const int PF, const int NT,
                                const lincoll_gf_coeffs_t *c, int j0, const void *const *src,
                                void *const *dst, size_t off, size_t n, size_t pf)
{
    const int k = c->k;
    const size_t e0 = (size_t)j0 * (size_t)k;
    for (size_t p = off; p < off + n; p += 64 * (size_t)NV) {
        __m512i acc[GF8_RMAX][4];
#pragma GCC unroll 8
        for (int j = 0; j < R; j++) {
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++)
                acc[j][v] = _mm512_setzero_si512();
        }
        int i = 0;
        for (; i + 1 < k; i += 2) {
            const uint8_t *s0 = (const uint8_t *)src[i] + p;
            const uint8_t *s1 = (const uint8_t *)src[i + 1] + p;
            gf8_src_t x[4], y[4];
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++) {
                if (PF) {
                    _mm_prefetch((const char *)s0 + pf + 64 * v, _MM_HINT_T0);
                    _mm_prefetch((const char *)s1 + pf + 64 * v, _MM_HINT_T0);
                }
                x[v] = gf8_prep(_mm512_loadu_si512(s0 + 64 * v));
                y[v] = gf8_prep(_mm512_loadu_si512(s1 + 64 * v));
            }
#pragma GCC unroll 8
            for (int j = 0; j < R; j++) {
                gf8_coef_t a0 = gf8_coef(c, e0 + (size_t)j * k + i);
                gf8_coef_t a1 = gf8_coef(c, e0 + (size_t)j * k + i + 1);
#pragma GCC unroll 4
                for (int v = 0; v < NV; v++)
                    acc[j][v] = gf8_mac2(acc[j][v], a0, x[v], a1, y[v]);
            }
        }
        if (i < k) {
            const uint8_t *s0 = (const uint8_t *)src[i] + p;
            gf8_src_t x[4];
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++) {
                if (PF) _mm_prefetch((const char *)s0 + pf + 64 * v, _MM_HINT_T0);
                x[v] = gf8_prep(_mm512_loadu_si512(s0 + 64 * v));
            }
#pragma GCC unroll 8
            for (int j = 0; j < R; j++) {
                gf8_coef_t a0 = gf8_coef(c, e0 + (size_t)j * k + i);
#pragma GCC unroll 4
                for (int v = 0; v < NV; v++)
                    acc[j][v] = gf8_mac(acc[j][v], a0, x[v]);
            }
        }
#pragma GCC unroll 8
        for (int j = 0; j < R; j++) {
            uint8_t *d = (uint8_t *)dst[j0 + j] + p;
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++) {
                if (NT)
                    _mm512_stream_si512((void *)(d + 64 * v), acc[j][v]);
                else
                    _mm512_storeu_si512(d + 64 * v, acc[j][v]);
            }
        }
    }
}

/* Every output of rows j0 .. j0+R-1 is 64-byte aligned at off. */
LC_TMPL_AI int LC_FN(gf8_rows_aligned)(int R, int j0, void *const *dst, size_t off)
{
    uintptr_t bits = 0;
    for (int j = 0; j < R; j++)
        bits |= (uintptr_t)((uint8_t *)dst[j0 + j] + off);
    return (bits & 63) == 0;
}

#define LC_GF8_TMPL_R(R)                                                                           \
    static void LC_FN(gf8_r##R)(const lincoll_gf_coeffs_t *c, int j0, const void *const *src,      \
                                void *const *dst, size_t off, size_t n, size_t pf)                 \
    {                                                                                              \
        const int nv = GF8_NV(R);                                                                  \
        size_t n2 = n - n % (64 * (size_t)nv);                                                     \
        int nt = (pf & LC_GF_PF_NT) && LC_FN(gf8_rows_aligned)(R, j0, dst, off);                   \
        pf &= ~LC_GF_PF_NT;                                                                        \
        if (nt && pf)                                                                              \
            LC_FN(gf8_rows)(R, nv, 1, 1, c, j0, src, dst, off, n2, pf);                            \
        else if (nt)                                                                               \
            LC_FN(gf8_rows)(R, nv, 0, 1, c, j0, src, dst, off, n2, 0);                             \
        else if (pf)                                                                               \
            LC_FN(gf8_rows)(R, nv, 1, 0, c, j0, src, dst, off, n2, pf);                            \
        else                                                                                       \
            LC_FN(gf8_rows)(R, nv, 0, 0, c, j0, src, dst, off, n2, 0);                             \
        if (n2 < n) LC_FN(gf8_rows)(R, 1, 0, 0, c, j0, src, dst, off + n2, n - n2, 0);             \
    }
LC_GF8_TMPL_R(1)
LC_GF8_TMPL_R(2)
LC_GF8_TMPL_R(3)
LC_GF8_TMPL_R(4)
LC_GF8_TMPL_R(5)
LC_GF8_TMPL_R(6)
LC_GF8_TMPL_R(7)
LC_GF8_TMPL_R(8)
#undef LC_GF8_TMPL_R

static const lc_gf_rows_fn_t LC_FN(gf8_rows_fn)[9] = {
    NULL,          LC_FN(gf8_r1), LC_FN(gf8_r2), LC_FN(gf8_r3), LC_FN(gf8_r4),
    LC_FN(gf8_r5), LC_FN(gf8_r6), LC_FN(gf8_r7), LC_FN(gf8_r8),
};

void LC_FN(lc_gf8_lincomb)(const lincoll_gf_coeffs_t *c, size_t len, const void *const *src,
                           void *const *dst)
{
    size_t nv = len & ~(size_t)63;
    /* one row block over a working set no cache holds: stream the outputs */
    int nt = c->r <= GF8_RMAX && (size_t)(c->k + c->r) * len >= lc_gf_nt_bytes;
    lc_gf_run_blocks(LC_FN(gf8_rows_fn), GF8_RMAX, c, nv, 256,
                     LC_FN(gf_pf)(c, len) | (nt ? LC_GF_PF_NT : 0), src, dst);
    if (nt) _mm_sfence(); /* streamed stores are ordered before what follows */
    if (nv < len) lc_gf8_lincomb_range_base(c, nv, len, src, dst);
}

/* mad for rows j0 .. j0+R-1: coefficients stay in registers for the whole
 * length; 128 bytes of the source per iteration. */
LC_TMPL_AI void LC_FN(gf8_mad_rows)(const int R, const lincoll_gf_coeffs_t *c, int j0, int col,
                                    const uint8_t *s, void *const *dst, size_t nv)
{
    gf8_coef_t m[GF8_RMAX];
    uint8_t *d[GF8_RMAX];
#pragma GCC unroll 8
    for (int j = 0; j < R; j++) {
        m[j] = gf8_coef(c, (size_t)(j0 + j) * c->k + col);
        d[j] = dst[j0 + j];
    }
    size_t p = 0;
    for (; p + 128 <= nv; p += 128) {
        gf8_src_t x0 = gf8_prep(_mm512_loadu_si512(s + p));
        gf8_src_t x1 = gf8_prep(_mm512_loadu_si512(s + p + 64));
#pragma GCC unroll 8
        for (int j = 0; j < R; j++) {
            _mm512_storeu_si512(d[j] + p, gf8_mac(_mm512_loadu_si512(d[j] + p), m[j], x0));
            _mm512_storeu_si512(d[j] + p + 64,
                                gf8_mac(_mm512_loadu_si512(d[j] + p + 64), m[j], x1));
        }
    }
    for (; p < nv; p += 64) {
        gf8_src_t x0 = gf8_prep(_mm512_loadu_si512(s + p));
#pragma GCC unroll 8
        for (int j = 0; j < R; j++)
            _mm512_storeu_si512(d[j] + p, gf8_mac(_mm512_loadu_si512(d[j] + p), m[j], x0));
    }
}

#define LC_GF8_TMPL_MAD_R(R)                                                                       \
    static void LC_FN(gf8_mad_r##R)(const lincoll_gf_coeffs_t *c, int j0, int col,                 \
                                    const uint8_t *s, void *const *dst, size_t nv)                 \
    {                                                                                              \
        LC_FN(gf8_mad_rows)(R, c, j0, col, s, dst, nv);                                            \
    }
LC_GF8_TMPL_MAD_R(1)
LC_GF8_TMPL_MAD_R(2)
LC_GF8_TMPL_MAD_R(3)
LC_GF8_TMPL_MAD_R(4)
LC_GF8_TMPL_MAD_R(5)
LC_GF8_TMPL_MAD_R(6)
LC_GF8_TMPL_MAD_R(7)
LC_GF8_TMPL_MAD_R(8)
#undef LC_GF8_TMPL_MAD_R

static void (*const LC_FN(gf8_mad_fn)[9])(const lincoll_gf_coeffs_t *c, int j0, int col,
                                          const uint8_t *s, void *const *dst, size_t nv) = {
    NULL,
    LC_FN(gf8_mad_r1),
    LC_FN(gf8_mad_r2),
    LC_FN(gf8_mad_r3),
    LC_FN(gf8_mad_r4),
    LC_FN(gf8_mad_r5),
    LC_FN(gf8_mad_r6),
    LC_FN(gf8_mad_r7),
    LC_FN(gf8_mad_r8),
};

void LC_FN(lc_gf8_mad)(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src,
                       void *const *dst)
{
    size_t nv = len & ~(size_t)63;
    for (int j0 = 0; j0 < c->r; j0 += GF8_RMAX) {
        int R = c->r - j0 < GF8_RMAX ? c->r - j0 : GF8_RMAX;
        LC_FN(gf8_mad_fn)[R](c, j0, col, src, dst, nv);
    }
    if (nv < len) lc_gf8_mad_range_base(c, nv, len, col, src, dst);
}

/* ----------------------------------------------------------- GF(2^16) */

LC_TMPL_AI void LC_FN(gf16_rows)(const int R, const int NV, const int PF,
                                 const lincoll_gf_coeffs_t *c, int j0, const void *const *src,
                                 void *const *dst, size_t off, size_t n, size_t pf)
{
    const int k = c->k;
    const size_t e0 = (size_t)j0 * (size_t)k;
    for (size_t p = off; p < off + n; p += 128 * (size_t)NV) {
        __m512i y0[GF16_RMAX][2], y1[GF16_RMAX][2];
#pragma GCC unroll 8
        for (int j = 0; j < R; j++) {
            for (int v = 0; v < NV; v++)
                y0[j][v] = y1[j][v] = _mm512_setzero_si512();
        }
        /* Source i+1 is loaded and laid out while source i multiplies, so
         * the layout's latency stays off the critical path. */
        gf16_src_t x[2], xn[2];
        for (int v = 0; v < NV; v++)
            x[v] = gf16_load((const uint8_t *)src[0] + p + 128 * v);
        for (int i = 0; i < k; i++) {
            const uint8_t *sn = (const uint8_t *)src[i + 1 < k ? i + 1 : i] + p;
            for (int v = 0; v < NV; v++)
                xn[v] = gf16_load(sn + 128 * v);
            if (PF) {
                const char *s = (const char *)src[i] + p + pf;
                for (int v = 0; v < NV; v++) {
                    _mm_prefetch(s + 128 * v, _MM_HINT_T0);
                    _mm_prefetch(s + 128 * v + 64, _MM_HINT_T0);
                }
            }
#pragma GCC unroll 8
            for (int j = 0; j < R; j++) {
                gf16_coef_t a = gf16_coef(c, e0 + (size_t)j * k + i);
                for (int v = 0; v < NV; v++)
                    gf16_mac(&y0[j][v], &y1[j][v], a, x[v]);
            }
            for (int v = 0; v < NV; v++)
                x[v] = xn[v];
        }
#pragma GCC unroll 8
        for (int j = 0; j < R; j++) {
            uint8_t *d = (uint8_t *)dst[j0 + j] + p;
            for (int v = 0; v < NV; v++) {
                __m512i o0, o1;
                gf16_join(y0[j][v], y1[j][v], &o0, &o1);
                _mm512_storeu_si512(d + 128 * v, o0);
                _mm512_storeu_si512(d + 128 * v + 64, o1);
            }
        }
    }
}

/* Lengths are cut in units of 256 bytes (two vectors); a row block with
 * GF16_NV(R) == 2 runs its odd last vector with NV = 1. */
#define LC_GF16_TMPL_R(R)                                                                          \
    static void LC_FN(gf16_r##R)(const lincoll_gf_coeffs_t *c, int j0, const void *const *src,     \
                                 void *const *dst, size_t off, size_t n, size_t pf)                \
    {                                                                                              \
        const int nv = GF16_NV(R);                                                                 \
        size_t n2 = n - n % (128 * (size_t)nv);                                                    \
        if (pf)                                                                                    \
            LC_FN(gf16_rows)(R, nv, 1, c, j0, src, dst, off, n2, pf);                              \
        else                                                                                       \
            LC_FN(gf16_rows)(R, nv, 0, c, j0, src, dst, off, n2, 0);                               \
        if (n2 < n) LC_FN(gf16_rows)(R, 1, 0, c, j0, src, dst, off + n2, n - n2, 0);               \
    }
LC_GF16_TMPL_R(1)
LC_GF16_TMPL_R(2)
LC_GF16_TMPL_R(3)
LC_GF16_TMPL_R(4)
#if GF16_RMAX >= 5
LC_GF16_TMPL_R(5)
#endif
#if GF16_RMAX >= 6
LC_GF16_TMPL_R(6)
#endif
#if GF16_RMAX >= 7
LC_GF16_TMPL_R(7)
#endif
#if GF16_RMAX >= 8
LC_GF16_TMPL_R(8)
#endif
#undef LC_GF16_TMPL_R

static const lc_gf_rows_fn_t LC_FN(gf16_rows_fn)[GF16_RMAX + 1] = {
    NULL,           LC_FN(gf16_r1), LC_FN(gf16_r2), LC_FN(gf16_r3), LC_FN(gf16_r4),
#if GF16_RMAX >= 5
    LC_FN(gf16_r5),
#endif
#if GF16_RMAX >= 6
    LC_FN(gf16_r6),
#endif
#if GF16_RMAX >= 7
    LC_FN(gf16_r7),
#endif
#if GF16_RMAX >= 8
    LC_FN(gf16_r8),
#endif
};

#ifdef GF16_SPLIT_KMAX
/* More rows than one block holds (r > GF16_RMAX): each row block would
 * lay out every source again, and the layout takes affine-pipe slots.  So
 * for each 256-byte column the k sources are laid out once into an
 * L1-resident scratch (k x 256 bytes) and every row block multiplies from
 * there with plain loads. */
LC_TMPL_AI void LC_FN(gf16_split_rows)(const int R, const int SAVE, const lincoll_gf_coeffs_t *c,
                                       int j0, const void *const *src, gf16_src_t (*xs)[2],
                                       void *const *dst, size_t p, size_t pf)
{
    const int k = c->k;
    const size_t e0 = (size_t)j0 * (size_t)k;
    __m512i y0[GF16_RMAX][2], y1[GF16_RMAX][2];
#pragma GCC unroll 8
    for (int j = 0; j < R; j++) {
        for (int v = 0; v < 2; v++)
            y0[j][v] = y1[j][v] = _mm512_setzero_si512();
    }
    if (SAVE) { /* first block: lay out as gf16_rows does, and keep it */
        gf16_src_t x0 = gf16_load((const uint8_t *)src[0] + p);
        gf16_src_t x1 = gf16_load((const uint8_t *)src[0] + p + 128);
        for (int i = 0; i < k; i++) {
            const uint8_t *sn = (const uint8_t *)src[i + 1 < k ? i + 1 : i] + p;
            gf16_src_t n0 = gf16_load(sn), n1 = gf16_load(sn + 128);
            if (pf) {
                const char *s = (const char *)src[i] + p + pf;
                for (int v = 0; v < 4; v++)
                    _mm_prefetch(s + 64 * v, _MM_HINT_T0);
            }
            xs[i][0] = x0;
            xs[i][1] = x1;
#pragma GCC unroll 8
            for (int j = 0; j < R; j++) {
                gf16_coef_t a = gf16_coef(c, e0 + (size_t)j * k + i);
                gf16_mac(&y0[j][0], &y1[j][0], a, x0);
                gf16_mac(&y0[j][1], &y1[j][1], a, x1);
            }
            x0 = n0;
            x1 = n1;
        }
    } else {
        for (int i = 0; i < k; i++) {
            gf16_src_t x0 = xs[i][0], x1 = xs[i][1];
#pragma GCC unroll 8
            for (int j = 0; j < R; j++) {
                gf16_coef_t a = gf16_coef(c, e0 + (size_t)j * k + i);
                gf16_mac(&y0[j][0], &y1[j][0], a, x0);
                gf16_mac(&y0[j][1], &y1[j][1], a, x1);
            }
        }
    }
#pragma GCC unroll 8
    for (int j = 0; j < R; j++) {
        uint8_t *d = (uint8_t *)dst[j0 + j] + p;
        for (int v = 0; v < 2; v++) {
            __m512i o0, o1;
            gf16_join(y0[j][v], y1[j][v], &o0, &o1);
            _mm512_storeu_si512(d + 128 * v, o0);
            _mm512_storeu_si512(d + 128 * v + 64, o1);
        }
    }
}

/* Bytes [0, nv), nv a multiple of 128; r > GF16_RMAX, k <= GF16_SPLIT_KMAX. */
static void LC_FN(gf16_lincomb_split)(const lincoll_gf_coeffs_t *c, size_t nv,
                                      const void *const *src, void *const *dst, size_t pf)
{
    gf16_src_t xs[GF16_SPLIT_KMAX][2];
    const int nblk = (c->r + GF16_RMAX - 1) / GF16_RMAX;
    const size_t n2 = nv & ~(size_t)255;
    for (size_t p = 0; p < n2; p += 256) {
        int j0 = 0;
        for (int b = 0; b < nblk; b++) {
            int R = (c->r - j0) / (nblk - b);
            switch (R) {
#define LC_GF16_SPLIT_CASE(RR)                                                                     \
    case RR:                                                                                       \
        if (b == 0)                                                                                \
            LC_FN(gf16_split_rows)(RR, 1, c, j0, src, xs, dst, p, pf);                             \
        else                                                                                       \
            LC_FN(gf16_split_rows)(RR, 0, c, j0, src, xs, dst, p, 0);                              \
        break;
                LC_GF16_SPLIT_CASE(1)
                LC_GF16_SPLIT_CASE(2)
                LC_GF16_SPLIT_CASE(3)
                LC_GF16_SPLIT_CASE(4)
#if GF16_RMAX >= 5
                LC_GF16_SPLIT_CASE(5)
#endif
#if GF16_RMAX >= 6
                LC_GF16_SPLIT_CASE(6)
#endif
#if GF16_RMAX >= 7
                LC_GF16_SPLIT_CASE(7)
#endif
#if GF16_RMAX >= 8
                LC_GF16_SPLIT_CASE(8)
#endif
#undef LC_GF16_SPLIT_CASE
            default:
                break;
            }
            j0 += R;
        }
    }
    if (n2 < nv) { /* one last 128-byte vector */
        int j0 = 0;
        for (int b = 0; b < nblk; b++) {
            int R = (c->r - j0) / (nblk - b);
            LC_FN(gf16_rows_fn)[R](c, j0, src, dst, n2, nv - n2, 0);
            j0 += R;
        }
    }
}
#endif

void LC_FN(lc_gf16_lincomb)(const lincoll_gf_coeffs_t *c, size_t len, const void *const *src,
                            void *const *dst)
{
    size_t nv = len & ~(size_t)127;
#ifdef GF16_SPLIT_KMAX
    /* Measured (Zen 5, perf/perf_gf.c-style alternation): +5-8 % at 3 or
     * more row blocks, k >= 8, 64-256 KiB; 2 blocks (8+8) -1-4 %, k = 4
     * -1-4 %, and -7-30 % at 512 KiB-1 MiB (all r outputs written at
     * once per column instead of a chunk of rows). */
    if (c->r > 2 * GF16_RMAX && c->k >= 8 && c->k <= GF16_SPLIT_KMAX && len <= GF16_SPLIT_MAXLEN) {
        LC_FN(gf16_lincomb_split)(c, nv, src, dst, LC_FN(gf_pf)(c, len));
        if (nv < len) lc_gf16_lincomb_range_base(c, nv, len, src, dst);
        return;
    }
#endif
    lc_gf_run_blocks(LC_FN(gf16_rows_fn), GF16_RMAX, c, nv, 256, LC_FN(gf_pf)(c, len), src, dst);
    if (nv < len) lc_gf16_lincomb_range_base(c, nv, len, src, dst);
}

void LC_FN(lc_gf16_mad)(const lincoll_gf_coeffs_t *c, size_t len, int col, const void *src,
                        void *const *dst)
{
    size_t nv = len & ~(size_t)127;
    const int k = c->k;
    for (size_t p = 0; p < nv; p += 128) {
        gf16_src_t x = gf16_load((const uint8_t *)src + p);
        for (int j = 0; j < c->r; j++) {
            __m512i y0 = _mm512_setzero_si512(), y1 = _mm512_setzero_si512(), o0, o1;
            gf16_mac(&y0, &y1, gf16_coef(c, (size_t)j * k + col), x);
            gf16_join(y0, y1, &o0, &o1);
            uint8_t *d = (uint8_t *)dst[j] + p;
            _mm512_storeu_si512(d, _mm512_xor_si512(_mm512_loadu_si512(d), o0));
            _mm512_storeu_si512(d + 64, _mm512_xor_si512(_mm512_loadu_si512(d + 64), o1));
        }
    }
    if (nv < len) lc_gf16_mad_range_base(c, nv, len, col, src, dst);
}

#undef LC_TMPL_AI
