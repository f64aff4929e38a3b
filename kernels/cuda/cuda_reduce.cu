/*
 * kernels/cuda/cuda_reduce.cu: elementwise reductions on the device,
 * dst[i] = a[i] (op) b[i].
 *
 * Reference: kernels/reduce/reduce_base.c and reduce_ops.h, bit for bit:
 * integers wrap in their unsigned type; MIN/MAX are (y < x ? y : x) and
 * (y > x ? y : x) (so NaN handling equals the CPU's); float16 and bfloat16
 * widen to float exactly, operate, and narrow with round-to-nearest-even by
 * the same bit manipulation as lc_f32_to_f16 / lc_f32_to_bf16 (quiet NaN,
 * overflow to infinity, subnormals kept).  nvcc is not given fast-math, so
 * float and double operations are IEEE with denormals.
 * Cost: one pass, 2 loads + 1 store per element: memory bound.  When the
 * three pointers are 16-byte aligned each thread moves 16 bytes per step
 * (the vector path), the rest element by element.
 */
#include "cuda_kernels.h"
#include "cuda_int.h"

#include <stdint.h>

namespace {

__device__ __forceinline__ float lc_d_f16_to_f32(uint16_t h)
{
    uint32_t s = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f) return __uint_as_float(s | 0x7f800000u | (m ? 0x400000u | (m << 13) : 0));
    if (e == 0) {
        if (m == 0) return __uint_as_float(s);
        e = 113;
        while (!(m & 0x400u)) {
            m <<= 1;
            e--;
        }
        return __uint_as_float(s | (e << 23) | ((m & 0x3ffu) << 13));
    }
    return __uint_as_float(s | ((e + 112) << 23) | (m << 13));
}

__device__ __forceinline__ uint16_t lc_d_f32_to_f16(float f)
{
    uint32_t x = __float_as_uint(f);
    uint16_t s = (uint16_t)((x >> 16) & 0x8000u);
    x &= 0x7fffffffu;
    if (x > 0x7f800000u) return (uint16_t)(s | 0x7e00u | ((x >> 13) & 0x3ffu));
    if (x >= 0x477ff000u) return (uint16_t)(s | 0x7c00u);
    if (x >= 0x38800000u) {
        x -= 0x38000000u;
        return (uint16_t)(s | ((x + 0xfffu + ((x >> 13) & 1u)) >> 13));
    }
    if (x <= 0x33000000u) return s;
    uint32_t e = x >> 23, mant = (x & 0x7fffffu) | 0x800000u, shift = 126 - e;
    uint32_t r = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1u))) r++;
    return (uint16_t)(s | r);
}

__device__ __forceinline__ float lc_d_bf16_to_f32(uint16_t h)
{
    return __uint_as_float((uint32_t)h << 16);
}

__device__ __forceinline__ uint16_t lc_d_f32_to_bf16(float f)
{
    uint32_t x = __float_as_uint(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/* the operators, on values of the arithmetic type */
struct OpSum {
    template <typename T> __device__ static T f(T x, T y) { return x + y; }
};
struct OpProd {
    template <typename T> __device__ static T f(T x, T y) { return x * y; }
};
struct OpMin {
    template <typename T> __device__ static T f(T x, T y) { return y < x ? y : x; }
};
struct OpMax {
    template <typename T> __device__ static T f(T x, T y) { return y > x ? y : x; }
};
struct OpXor {
    template <typename T> __device__ static T f(T x, T y) { return x ^ y; }
};

/* Element kinds: storage type S, how one element combines. */
template <typename S, typename UW, class O> struct Int {
    typedef S store;
    __device__ static S f(S x, S y) { return apply(x, y, (O *)nullptr); }
    __device__ static S apply(S x, S y, OpSum *) { return (S)((UW)x + (UW)y); }
    __device__ static S apply(S x, S y, OpProd *) { return (S)((UW)x * (UW)y); }
    __device__ static S apply(S x, S y, OpMin *) { return y < x ? y : x; }
    __device__ static S apply(S x, S y, OpMax *) { return y > x ? y : x; }
    __device__ static S apply(S x, S y, OpXor *) { return (S)(x ^ y); }
};

template <typename S, class O> struct Flt {
    typedef S store;
    __device__ static S f(S x, S y) { return O::template f<S>(x, y); }
};

template <class O> struct Half {
    typedef uint16_t store;
    __device__ static uint16_t f(uint16_t x, uint16_t y)
    {
        return lc_d_f32_to_f16(O::template f<float>(lc_d_f16_to_f32(x), lc_d_f16_to_f32(y)));
    }
};

template <class O> struct BHalf {
    typedef uint16_t store;
    __device__ static uint16_t f(uint16_t x, uint16_t y)
    {
        return lc_d_f32_to_bf16(O::template f<float>(lc_d_bf16_to_f32(x), lc_d_bf16_to_f32(y)));
    }
};

/* Vector path: nv 16-byte units from element 0; scalar tail from element
 * `from` to n (the whole range when the pointers are not aligned). */
template <class E>
__global__ void lc_reduce_kernel(typename E::store *d, const typename E::store *a,
                                 const typename E::store *b, size_t nv, size_t from, size_t n)
{
    typedef typename E::store S;
    const size_t per = 16 / sizeof(S);
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t v = t; v < nv; v += stride) {
        union {
            uint4 u;
            S e[16 / sizeof(S)];
        } x, y, z;
        x.u = reinterpret_cast<const uint4 *>(a)[v];
        y.u = reinterpret_cast<const uint4 *>(b)[v];
#pragma unroll
        for (size_t i = 0; i < per; i++)
            z.e[i] = E::f(x.e[i], y.e[i]);
        reinterpret_cast<uint4 *>(d)[v] = z.u;
    }
    for (size_t i = from + t; i < n; i += stride)
        d[i] = E::f(a[i], b[i]);
}

template <class E>
lincoll_status_t lc_reduce_launch(lc_cuda_stream_t *s, void *d, const void *a, const void *b,
                                  size_t n)
{
    typedef typename E::store S;
    const size_t per = 16 / sizeof(S);
    const int aligned = (((uintptr_t)d | (uintptr_t)a | (uintptr_t)b) & 15) == 0;
    size_t nv = aligned ? n / per : 0, from = nv * per;
    size_t work = nv > n - from ? nv : n - from;
    size_t blocks = (work + 255) / 256;
    size_t cap = (size_t)lc_cuda_sm_count() * 8;
    if (blocks > cap) blocks = cap;
    if (blocks < 1) blocks = 1;
    lc_reduce_kernel<E><<<(unsigned)blocks, 256, 0, lc_cuda_raw(s)>>>(
        (S *)d, (const S *)a, (const S *)b, nv, from, n);
    return lc_cuda_err(cudaGetLastError(), "reduce kernel launch");
}

template <class O>
lincoll_status_t lc_reduce_int(lc_cuda_stream_t *s, void *d, const void *a, const void *b,
                               size_t n, lincoll_dtype_t dt)
{
    switch (dt) {
    case LINCOLL_INT8:
        return lc_reduce_launch<Int<int8_t, unsigned, O>>(s, d, a, b, n);
    case LINCOLL_INT16:
        return lc_reduce_launch<Int<int16_t, unsigned, O>>(s, d, a, b, n);
    case LINCOLL_INT32:
        return lc_reduce_launch<Int<int32_t, uint32_t, O>>(s, d, a, b, n);
    case LINCOLL_INT64:
        return lc_reduce_launch<Int<int64_t, uint64_t, O>>(s, d, a, b, n);
    case LINCOLL_UINT8:
        return lc_reduce_launch<Int<uint8_t, unsigned, O>>(s, d, a, b, n);
    case LINCOLL_UINT16:
        return lc_reduce_launch<Int<uint16_t, unsigned, O>>(s, d, a, b, n);
    case LINCOLL_UINT32:
        return lc_reduce_launch<Int<uint32_t, uint32_t, O>>(s, d, a, b, n);
    case LINCOLL_UINT64:
        return lc_reduce_launch<Int<uint64_t, uint64_t, O>>(s, d, a, b, n);
    default:
        return LINCOLL_ERR_UNSUPPORTED;
    }
}

template <class O>
lincoll_status_t lc_reduce_flt(lc_cuda_stream_t *s, void *d, const void *a, const void *b,
                               size_t n, lincoll_dtype_t dt)
{
    switch (dt) {
    case LINCOLL_FLOAT:
        return lc_reduce_launch<Flt<float, O>>(s, d, a, b, n);
    case LINCOLL_DOUBLE:
        return lc_reduce_launch<Flt<double, O>>(s, d, a, b, n);
    case LINCOLL_FLOAT16:
        return lc_reduce_launch<Half<O>>(s, d, a, b, n);
    case LINCOLL_BFLOAT16:
        return lc_reduce_launch<BHalf<O>>(s, d, a, b, n);
    default:
        return lc_reduce_int<O>(s, d, a, b, n, dt);
    }
}

} // namespace

extern "C" int lc_cuda_reduce_supported(lincoll_dtype_t dt, lincoll_op_t op)
{
    if ((unsigned)dt >= LINCOLL_DTYPE_LAST || (unsigned)op >= LINCOLL_OP_LAST) return 0;
    if (dt == LINCOLL_BYTE) return op == LINCOLL_BXOR;
    int flt = dt == LINCOLL_FLOAT || dt == LINCOLL_DOUBLE || dt == LINCOLL_FLOAT16 ||
              dt == LINCOLL_BFLOAT16;
    return !(flt && op == LINCOLL_BXOR);
}

extern "C" lincoll_status_t lc_cuda_reduce(lc_cuda_stream_t *s, void *dst, const void *a,
                                           const void *b, size_t count, lincoll_dtype_t dt,
                                           lincoll_op_t op)
{
    if (!lc_cuda_reduce_supported(dt, op)) {
        lc_kerror("CUDA reduce: op %d is not defined on dtype %d", (int)op, (int)dt);
        return LINCOLL_ERR_UNSUPPORTED;
    }
    if (count == 0) return LINCOLL_OK;
    switch (op) {
    case LINCOLL_SUM:
        return lc_reduce_flt<OpSum>(s, dst, a, b, count, dt);
    case LINCOLL_PROD:
        return lc_reduce_flt<OpProd>(s, dst, a, b, count, dt);
    case LINCOLL_MIN:
        return lc_reduce_flt<OpMin>(s, dst, a, b, count, dt);
    case LINCOLL_MAX:
        return lc_reduce_flt<OpMax>(s, dst, a, b, count, dt);
    default: /* BXOR: integers and bytes */
        if (dt == LINCOLL_BYTE)
            return lc_reduce_launch<Int<uint8_t, unsigned, OpXor>>(s, dst, a, b, count);
        return lc_reduce_int<OpXor>(s, dst, a, b, count, dt);
    }
}
