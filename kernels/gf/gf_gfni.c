/*
 * kernels/gf/gf_gfni.c: GF(2^8) and GF(2^16) kernels with AVX-512 + GFNI.
 *
 * What: multiplication by a constant is a GF(2)-linear map, so one
 * vgf2p8affineqb with the constant's 8x8 bit-matrix (broadcast from the
 * table, any polynomial) multiplies 64 bytes.  lincomb keeps up to 8 outputs
 * x 2 vectors in registers and folds two sources per vpternlogq.  GF(2^16)
 * splits 64 words into a low-byte and a high-byte plane (vpshufb +
 * vpunpck[lh]qdq) and multiplies with a 2x2 block of bit-matrices, then
 * re-interleaves (vpunpck[lh]bw), so the caller keeps plain little-endian
 * words; 4 outputs x 2 x 128 bytes stay in registers (32 affines per source
 * and 256 bytes) and the next source is split while this one multiplies.
 * With 3 or more row blocks (r > 8, 8 <= k <= 32, len <= 256 KiB) the
 * first block keeps each source's planes of a 256-byte column in an L1
 * scratch and the other blocks multiply from there, so the layout's
 * affine-pipe slots are paid once per column, not once per row block.
 * The loop nests are gf_simd512_tmpl.h (shared with gf_avx512.c); this file
 * only says how one coefficient multiplies one vector.
 * Zen 5 (measured): vgf2p8affineqb issues on 2 of the 4 vector pipes, and
 * vpshufb, vpackuswb, vpermb, valignq and vbroadcasti64x2 share those 2;
 * vpternlogq, vpunpck*, vpshufd and loads do not take affine slots.
 * Reference: ISA-L gf_vect_gfni.inc / gf_*vect_dot_prod_avx512_gfni.asm;
 * ParPar fast-gf-multiplication.md (affine GF(2^16)).
 * Cost per (source, output) pair per 64 bytes: GF(2^8) 1 affine + 1/2
 * ternlog; GF(2^16) 2 affines + 1 ternlog (+ per source and 64 bytes one
 * vpshufb and one qword unpack for the planes: the affine pipes carry 36
 * ops per 32 affines, a bound of 1.78 affines/cycle).  Length is cut into
 * L2-sized chunks so row blocks re-read sources from cache; sources are
 * prefetched when the working set exceeds L2.
 * Restrictions: the tail below 64 bytes (GF(2^8)) or 128 bytes (GF(2^16))
 * runs the base code.
 */
#include "gf_kernels.h"

#include <immintrin.h>

#define LC_XOR3(a, b, c) _mm512_ternarylogic_epi64((a), (b), (c), 0x96)
#define LC_AFF(x, m)     _mm512_gf2p8affine_epi64_epi8((x), (m), 0)

/* GF(2^8): the source is used as is; a coefficient is its bit-matrix. */
typedef __m512i gf8_src_t;
typedef __m512i gf8_coef_t;

static inline __attribute__((always_inline)) gf8_src_t gf8_prep(__m512i x)
{
    return x;
}

static inline __attribute__((always_inline)) gf8_coef_t gf8_coef(const lincoll_gf_coeffs_t *c,
                                                                 size_t e)
{
    return _mm512_set1_epi64((long long)c->aff[e]);
}

static inline __attribute__((always_inline)) __m512i gf8_mac(__m512i acc, gf8_coef_t a, gf8_src_t x)
{
    return _mm512_xor_si512(acc, LC_AFF(x, a));
}

static inline __attribute__((always_inline)) __m512i
gf8_mac2(__m512i acc, gf8_coef_t a0, gf8_src_t x0, gf8_coef_t a1, gf8_src_t x1)
{
    return LC_XOR3(acc, LC_AFF(x0, a0), LC_AFF(x1, a1));
}

/* GF(2^16): byte planes; a coefficient is 4 bit-matrices (ll, hl, lh, hh). */
typedef struct {
    __m512i l, h;
} gf16_src_t;
typedef struct {
    __m512i ll, hl, lh, hh; /* named, not an array: an array stays on the stack */
} gf16_coef_t;

/* 128 bytes (a = words 0..31, b = words 32..63) -> low-byte plane l and
 * high-byte plane h.  vpshufb gathers each 128-bit lane's 8 low bytes into
 * its low qword and the 8 high bytes into its high qword; vpunpck[lh]qdq
 * pair the qwords of a and b, so lane i of l is (low bytes of a's lane i,
 * low bytes of b's lane i) -- the order gf16_join's byte unpacks undo.
 * Two shuffles per 128 bytes: vpshufb and vpackuswb share Zen 5's two
 * affine pipes, so this costs 2 affine slots where and/shift/pack cost 2
 * plus shifts, and a 3-round byte-unpack transpose (no affine slot) ran
 * slower in practice (perf/perf_gf.c, same run). */
static inline __attribute__((always_inline)) gf16_src_t gf16_load(const uint8_t *s)
{
    const __m512i idx =
        _mm512_broadcast_i32x4(_mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15));
    __m512i a = _mm512_shuffle_epi8(_mm512_loadu_si512(s), idx);
    __m512i b = _mm512_shuffle_epi8(_mm512_loadu_si512(s + 64), idx);
    gf16_src_t x = {_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b)};
    return x;
}

/* Planes back to words: lane i of unpacklo_epi8(l, h) is a's lane i. */
static inline __attribute__((always_inline)) void gf16_join(__m512i yl, __m512i yh, __m512i *o0,
                                                            __m512i *o1)
{
    *o0 = _mm512_unpacklo_epi8(yl, yh);
    *o1 = _mm512_unpackhi_epi8(yl, yh);
}

static inline __attribute__((always_inline)) gf16_coef_t gf16_coef(const lincoll_gf_coeffs_t *c,
                                                                   size_t e)
{
    const uint64_t *m = c->aff + 4 * e;
    gf16_coef_t a = {_mm512_set1_epi64((long long)m[0]), _mm512_set1_epi64((long long)m[1]),
                     _mm512_set1_epi64((long long)m[2]), _mm512_set1_epi64((long long)m[3])};
    return a;
}

static inline __attribute__((always_inline)) void gf16_mac(__m512i *yl, __m512i *yh, gf16_coef_t a,
                                                           gf16_src_t x)
{
    *yl = LC_XOR3(*yl, LC_AFF(x.l, a.ll), LC_AFF(x.h, a.hl));
    *yh = LC_XOR3(*yh, LC_AFF(x.l, a.lh), LC_AFF(x.h, a.hh));
}

#define LC_FN(name)       name##_gfni
#define LC_TMPL_ISA       LC_ISA_GFNI
#define GF8_RMAX          8
#define GF8_NV(R)         2
#define GF16_RMAX         4 /* 4 x 2 x 2 accumulators; 5 rows spill (gcc 12) */
#define GF16_NV(R)        2
#define GF16_SPLIT_KMAX   32 /* layout scratch 32 x 256 bytes on the stack */
#define GF16_SPLIT_MAXLEN ((size_t)256 * 1024)
#include "gf_simd512_tmpl.h"
