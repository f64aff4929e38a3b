/*
 * kernels/reduce/reduce_kernels.h: internal elementwise reductions.
 *
 * One function per (dtype, op) and ISA, all with the shape
 *     fn(dst, a, b, count):  dst[i] = a[i] (+) b[i]
 * where dst may equal a or b (partial overlap is not allowed).  Each ISA file
 * fills the table entries it implements over a copy of the level below
 * (base <- avx2 <- avx512); lc_reduce()/lc_reduce3() use the table of
 * lc_kernel_isa(), chosen once.  Semantics and rounding: include/lincoll/reduce.h.
 */
#ifndef LC_REDUCE_KERNELS_H
#define LC_REDUCE_KERNELS_H

#include "../kernels.h"

#include <lincoll/reduce.h>
#include <stddef.h>
#include <stdint.h>

typedef void (*lc_reduce_fn_t)(void *dst, const void *a, const void *b, size_t count);
typedef lc_reduce_fn_t lc_reduce_table_t[LINCOLL_DTYPE_LAST][LINCOLL_OP_LAST];

/* Per-ISA fillers (reduce_base.c, reduce_avx2.c, reduce_avx512.c). */
void lc_reduce_fill_base(lc_reduce_table_t tab);
void lc_reduce_fill_avx2(lc_reduce_table_t tab);
void lc_reduce_fill_avx512(lc_reduce_table_t tab);

/** dst = dst (+) src with the dispatched table (hot path of the executor). */
lincoll_status_t lc_reduce(void *dst, const void *src, size_t count, lincoll_dtype_t dtype,
                           lincoll_op_t op);

/** dst = a (+) b with the dispatched table; dst may alias a or b. */
lincoll_status_t lc_reduce3(void *dst, const void *a, const void *b, size_t count,
                            lincoll_dtype_t dtype, lincoll_op_t op);

/** Plain-C twins (the oracle). */
lincoll_status_t lc_reduce_base(void *dst, const void *src, size_t count, lincoll_dtype_t dtype,
                                lincoll_op_t op);
lincoll_status_t lc_reduce3_base(void *dst, const void *a, const void *b, size_t count,
                                 lincoll_dtype_t dtype, lincoll_op_t op);

/**
 * dst = a (+) b with the table of a chosen level (tests, benchmarks).
 * LINCOLL_ERR_UNSUPPORTED when the CPU cannot run @p isa.
 */
lincoll_status_t lc_reduce3_isa(lc_isa_t isa, void *dst, const void *a, const void *b, size_t count,
                                lincoll_dtype_t dtype, lincoll_op_t op);

/** The function a level uses for (dtype, op), or NULL (invalid pair or unsupported level). */
lc_reduce_fn_t lc_reduce_fn(lc_isa_t isa, lincoll_dtype_t dtype, lincoll_op_t op);

/** The level lc_reduce() dispatches to. */
lc_isa_t lc_reduce_isa(void);

/* float16 / bfloat16 <-> float, exact widening and round-to-nearest-even
 * narrowing (quiet NaN, overflow to infinity, subnormals kept). */
float lc_f16_to_f32(uint16_t h);
uint16_t lc_f32_to_f16(float f);
float lc_bf16_to_f32(uint16_t h);
uint16_t lc_f32_to_bf16(float f);

#endif
