/*
 * kernels/cuda/cuda_gf.cu: GF(2^8) and GF(2^16) lincomb and mad on the device.
 *
 * What: lincomb dst_j = sum_i a_ji src_i (j < r, i < k) and mad
 * dst_j += a_j,col src over len bytes, the semantics of
 * kernels/gf/gf_base.c (the reference every result is compared with).
 * Method: packed product tables.  For GF(2^8) a table per (source i, group
 * of four outputs) holds, for each byte x, the four products a_ji x in one
 * 32-bit word; one shared-memory load per source byte then yields the
 * contributions to four outputs, XORed into per-output-group accumulators,
 * and the four output bytes are unpacked at the end.  GF(2^16) does the same
 * with pairs of outputs and two loads per element (low and high byte:
 * a x = a x_lo + a (x_hi << 8)).  The tables are built on the host once per
 * matrix (lc_cuda_gf_tab_create) and copied into shared memory by every
 * block; each launch covers at most 32 sources and 8 (GF(2^8)) or 4
 * (GF(2^16)) outputs, so wider matrices run as several launches that XOR
 * into the outputs.
 * Cost: per 16 source bytes 16 shared loads per output group, (k + r) len
 * bytes of device memory traffic; memory bound for the usual k + r.
 * Restrictions: dst must not overlap the sources; len a multiple of the
 * element size.  Pointers 16-byte aligned take the vector path (16 bytes per
 * thread and step), others a byte (element) at a time.
 */
#include "cuda_kernels.h"
#include "cuda_int.h"

#include <stdint.h>
#include <stdlib.h>

struct lc_cuda_gf_tab {
    unsigned w;    /* 8 or 16 */
    int r, k;      /* outputs, table columns (1 for a mad) */
    int mad;       /* accumulate into the outputs */
    int groups;    /* output groups: ceil(r / 4) (w 8) or ceil(r / 2) (w 16) */
    uint32_t *dev; /* [group][column][256 (w 8) or 512 (w 16)] */
};

namespace {

constexpr int LC_GF_MAXSRC = 32;
constexpr int LC_GF8_GC = 2;  /* groups of 4 outputs per launch */
constexpr int LC_GF16_GC = 2; /* groups of 2 outputs per launch */
constexpr int LC_GF_SMEM_WORDS = 12 * 1024; /* 48 KiB of tables per block */

struct lc_gf_args {
    const unsigned char *src[LC_GF_MAXSRC];
    unsigned char *dst[4 * LC_GF8_GC];
    const uint32_t *tab; /* first word of group g0, column i0 */
    size_t gstride;      /* words between groups in tab */
    int kc, nout, acc;
    size_t nv, from, len; /* 16-byte units, scalar tail [from, len) in bytes */
};

unsigned lc_gf_mul_host(unsigned a, unsigned b, unsigned w)
{
    const unsigned poly = w == 8 ? 0x11du : 0x1100bu, top = 1u << w;
    unsigned r = 0;
    while (b) {
        if (b & 1) r ^= a;
        b >>= 1;
        a <<= 1;
        if (a & top) a ^= poly;
    }
    return r;
}

template <int GC> __global__ void lc_gf8_kernel(lc_gf_args p)
{
    extern __shared__ uint32_t T[]; /* [g][i][256] */
    const int words = GC * p.kc * 256;
    for (int x = threadIdx.x; x < words; x += blockDim.x) {
        int g = x / (p.kc * 256), rest = x % (p.kc * 256);
        T[x] = p.tab[g * p.gstride + rest];
    }
    __syncthreads();
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t t0 = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t v = t0; v < p.nv; v += stride) {
        uint32_t acc[GC][16];
#pragma unroll
        for (int g = 0; g < GC; g++)
#pragma unroll
            for (int b = 0; b < 16; b++)
                acc[g][b] = 0;
        for (int i = 0; i < p.kc; i++) {
            uint4 w = reinterpret_cast<const uint4 *>(p.src[i])[v];
            uint32_t q[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
            for (int b = 0; b < 16; b++) {
                unsigned x = (q[b >> 2] >> (8 * (b & 3))) & 0xffu;
#pragma unroll
                for (int g = 0; g < GC; g++)
                    acc[g][b] ^= T[(g * p.kc + i) * 256 + x];
            }
        }
#pragma unroll
        for (int g = 0; g < GC; g++) {
#pragma unroll
            for (int o = 0; o < 4; o++) {
                const int j = 4 * g + o;
                if (j >= p.nout) break;
                uint32_t q[4];
#pragma unroll
                for (int wd = 0; wd < 4; wd++) {
                    uint32_t y = 0;
#pragma unroll
                    for (int c = 0; c < 4; c++)
                        y |= ((acc[g][4 * wd + c] >> (8 * o)) & 0xffu) << (8 * c);
                    q[wd] = y;
                }
                uint4 *d = reinterpret_cast<uint4 *>(p.dst[j]) + v;
                uint4 out = make_uint4(q[0], q[1], q[2], q[3]);
                if (p.acc) {
                    uint4 old = *d;
                    out.x ^= old.x;
                    out.y ^= old.y;
                    out.z ^= old.z;
                    out.w ^= old.w;
                }
                *d = out;
            }
        }
    }
    for (size_t at = p.from + t0; at < p.len; at += stride) {
        uint32_t acc[GC];
#pragma unroll
        for (int g = 0; g < GC; g++)
            acc[g] = 0;
        for (int i = 0; i < p.kc; i++) {
            unsigned x = p.src[i][at];
#pragma unroll
            for (int g = 0; g < GC; g++)
                acc[g] ^= T[(g * p.kc + i) * 256 + x];
        }
#pragma unroll
        for (int g = 0; g < GC; g++)
            for (int o = 0; o < 4 && 4 * g + o < p.nout; o++) {
                unsigned char y = (unsigned char)(acc[g] >> (8 * o));
                unsigned char *d = p.dst[4 * g + o] + at;
                *d = p.acc ? (unsigned char)(*d ^ y) : y;
            }
    }
}

template <int GC> __global__ void lc_gf16_kernel(lc_gf_args p)
{
    extern __shared__ uint32_t T[]; /* [g][i][2][256] */
    const int words = GC * p.kc * 512;
    for (int x = threadIdx.x; x < words; x += blockDim.x) {
        int g = x / (p.kc * 512), rest = x % (p.kc * 512);
        T[x] = p.tab[g * p.gstride + rest];
    }
    __syncthreads();
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t t0 = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t v = t0; v < p.nv; v += stride) {
        uint32_t acc[GC][8];
#pragma unroll
        for (int g = 0; g < GC; g++)
#pragma unroll
            for (int e = 0; e < 8; e++)
                acc[g][e] = 0;
        for (int i = 0; i < p.kc; i++) {
            uint4 w = reinterpret_cast<const uint4 *>(p.src[i])[v];
            uint32_t q[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
            for (int e = 0; e < 8; e++) {
                unsigned h = (q[e >> 1] >> (16 * (e & 1))) & 0xffffu;
#pragma unroll
                for (int g = 0; g < GC; g++) {
                    const uint32_t *t = T + (g * p.kc + i) * 512;
                    acc[g][e] ^= t[h & 0xffu] ^ t[256 + (h >> 8)];
                }
            }
        }
#pragma unroll
        for (int g = 0; g < GC; g++) {
#pragma unroll
            for (int o = 0; o < 2; o++) {
                const int j = 2 * g + o;
                if (j >= p.nout) break;
                uint32_t q[4];
#pragma unroll
                for (int wd = 0; wd < 4; wd++)
                    q[wd] = ((acc[g][2 * wd] >> (16 * o)) & 0xffffu) |
                            (((acc[g][2 * wd + 1] >> (16 * o)) & 0xffffu) << 16);
                uint4 *d = reinterpret_cast<uint4 *>(p.dst[j]) + v;
                uint4 out = make_uint4(q[0], q[1], q[2], q[3]);
                if (p.acc) {
                    uint4 old = *d;
                    out.x ^= old.x;
                    out.y ^= old.y;
                    out.z ^= old.z;
                    out.w ^= old.w;
                }
                *d = out;
            }
        }
    }
    for (size_t at = p.from / 2 + t0; at < p.len / 2; at += stride) {
        uint32_t acc[GC];
#pragma unroll
        for (int g = 0; g < GC; g++)
            acc[g] = 0;
        for (int i = 0; i < p.kc; i++) {
            unsigned h = reinterpret_cast<const uint16_t *>(p.src[i])[at];
#pragma unroll
            for (int g = 0; g < GC; g++) {
                const uint32_t *t = T + (g * p.kc + i) * 512;
                acc[g] ^= t[h & 0xffu] ^ t[256 + (h >> 8)];
            }
        }
#pragma unroll
        for (int g = 0; g < GC; g++)
            for (int o = 0; o < 2 && 2 * g + o < p.nout; o++) {
                uint16_t y = (uint16_t)(acc[g] >> (16 * o));
                uint16_t *d = reinterpret_cast<uint16_t *>(p.dst[2 * g + o]) + at;
                *d = p.acc ? (uint16_t)(*d ^ y) : y;
            }
    }
}

} // namespace

extern "C" lincoll_status_t lc_cuda_gf_tab_create(uint64_t q, int r, int k, const uint64_t *m,
                                                  int col, lc_cuda_gf_tab_t **tab_p)
{
    if (!lc_cuda_usable(NULL)) return LINCOLL_ERR_UNSUPPORTED;
    if ((q != 256 && q != 65536) || r < 1 || k < 1 || col >= k) {
        lc_kerror("CUDA GF: field of order %llu, %d x %d matrix (column %d) not supported",
                  (unsigned long long)q, r, k, col);
        return LINCOLL_ERR_UNSUPPORTED;
    }
    lc_cuda_gf_tab_t *t = (lc_cuda_gf_tab_t *)calloc(1, sizeof(*t));
    if (t == NULL) return LINCOLL_ERR_NOMEM;
    t->w = q == 256 ? 8 : 16;
    t->r = r;
    t->k = col >= 0 ? 1 : k;
    t->mad = col >= 0;
    const int per = t->w == 8 ? 4 : 2, span = t->w == 8 ? 256 : 512;
    t->groups = (r + per - 1) / per;
    size_t words = (size_t)t->groups * (size_t)t->k * (size_t)span;
    uint32_t *h = (uint32_t *)calloc(words, sizeof(uint32_t));
    if (h == NULL) {
        free(t);
        return LINCOLL_ERR_NOMEM;
    }
    for (int g = 0; g < t->groups; g++)
        for (int i = 0; i < t->k; i++) {
            uint32_t *e = h + ((size_t)g * t->k + i) * span;
            int c = col >= 0 ? col : i;
            for (int o = 0; o < per; o++) {
                int j = g * per + o;
                if (j >= r) break;
                unsigned a = (unsigned)m[(size_t)j * k + c];
                for (unsigned x = 0; x < 256; x++) {
                    if (t->w == 8) {
                        e[x] |= lc_gf_mul_host(a, x, 8) << (8 * o);
                    } else {
                        e[x] |= lc_gf_mul_host(a, x, 16) << (16 * o);
                        e[256 + x] |= lc_gf_mul_host(a, x << 8, 16) << (16 * o);
                    }
                }
            }
        }
    lincoll_status_t st = lc_cuda_err(cudaMalloc(&t->dev, words * 4), "cudaMalloc (GF tables)");
    if (st == LINCOLL_OK)
        st = lc_cuda_err(cudaMemcpy(t->dev, h, words * 4, cudaMemcpyHostToDevice),
                         "cudaMemcpy (GF tables)");
    free(h);
    if (st != LINCOLL_OK) {
        lc_cuda_gf_tab_destroy(t);
        return st;
    }
    *tab_p = t;
    return LINCOLL_OK;
}

extern "C" void lc_cuda_gf_tab_destroy(lc_cuda_gf_tab_t *t)
{
    if (t == NULL) return;
    if (t->dev != NULL) cudaFree(t->dev);
    free(t);
}

extern "C" lincoll_status_t lc_cuda_gf_run(lc_cuda_stream_t *s, const lc_cuda_gf_tab_t *t,
                                           size_t len, const void *const *src, void *const *dst)
{
    if (len == 0) return LINCOLL_OK;
    const int w8 = t->w == 8, per = w8 ? 4 : 2, span = w8 ? 256 : 512;
    const int gcmax = w8 ? LC_GF8_GC : LC_GF16_GC;
    uintptr_t bits = 0;
    for (int i = 0; i < t->k; i++)
        bits |= (uintptr_t)src[i];
    for (int j = 0; j < t->r; j++)
        bits |= (uintptr_t)dst[j];
    const size_t nv = (bits & 15) == 0 ? len / 16 : 0;
    const size_t work = nv > len - nv * 16 ? nv : (len - nv * 16) / (w8 ? 1 : 2);
    size_t blocks = (work + 255) / 256, cap = (size_t)lc_cuda_sm_count() * 4;
    blocks = blocks > cap ? cap : (blocks < 1 ? 1 : blocks);
    cudaStream_t cs = lc_cuda_raw(s);
    for (int g0 = 0; g0 < t->groups; g0 += gcmax) {
        const int gc = t->groups - g0 < gcmax ? t->groups - g0 : gcmax;
        int kmax = LC_GF_SMEM_WORDS / (gc * span);
        kmax = kmax > LC_GF_MAXSRC ? LC_GF_MAXSRC : kmax;
        for (int i0 = 0; i0 < t->k; i0 += kmax) {
            lc_gf_args a;
            a.kc = t->k - i0 < kmax ? t->k - i0 : kmax;
            for (int i = 0; i < a.kc; i++)
                a.src[i] = (const unsigned char *)src[i0 + i];
            a.nout = t->r - g0 * per < gc * per ? t->r - g0 * per : gc * per;
            for (int j = 0; j < a.nout; j++)
                a.dst[j] = (unsigned char *)dst[g0 * per + j];
            a.gstride = (size_t)t->k * span;
            a.tab = t->dev + (size_t)g0 * a.gstride + (size_t)i0 * span;
            a.acc = t->mad || i0 > 0;
            a.nv = nv;
            a.from = nv * 16;
            a.len = len;
            size_t smem = (size_t)gc * a.kc * span * 4;
            if (w8) {
                if (gc == 2)
                    lc_gf8_kernel<2><<<(unsigned)blocks, 256, smem, cs>>>(a);
                else
                    lc_gf8_kernel<1><<<(unsigned)blocks, 256, smem, cs>>>(a);
            } else {
                if (gc == 2)
                    lc_gf16_kernel<2><<<(unsigned)blocks, 256, smem, cs>>>(a);
                else
                    lc_gf16_kernel<1><<<(unsigned)blocks, 256, smem, cs>>>(a);
            }
            lincoll_status_t st = lc_cuda_err(cudaGetLastError(), "GF kernel launch");
            if (st != LINCOLL_OK) return st;
        }
    }
    return LINCOLL_OK;
}
