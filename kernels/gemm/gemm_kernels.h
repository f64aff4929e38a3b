/*
 * kernels/gemm/gemm_kernels.h: internal GEMM interface.
 *
 * Everything is reduced to one canonical problem, column-major C (m x n,
 * ldc) := alpha * op(A) * op(B) + beta * C; row-major calls are turned into
 * C^T = op(B)^T op(A)^T by swapping operands.  lc_gemm_blocked() runs the
 * five BLIS loops around an ISA-specific micro-kernel described by an
 * lc_gemm_kernel_t.
 *
 * Micro-kernel contract (BLIS, KernelsHowTo.md):
 *
 *     C[0:m, 0:n] := beta * C + alpha * Ap * Bp,  m <= MR, n <= NR
 *
 *   Ap: packed MR x k micro-panel, column after column (element (i,p) at
 *       ap[p * MR + i]); rows m..MR-1 are zero.
 *   Bp: packed k x NR micro-panel, row after row (element (p,j) at
 *       bp[p * NR + j]); columns n..NR-1 are zero.
 *
 *            <- NR ->                 <- k ->
 *          +--------+ ^            +----------+ ^
 *          |  Bp    | k         Ap |0 1 2 ... | MR
 *          +--------+ v            +----------+ v
 *
 *   C is column-major with leading dimension ldc.  Edge tiles (m < MR or
 *   n < NR) are handled inside the kernel; beta == 0 never reads C; k == 0
 *   gives C := beta * C.
 */
#ifndef LC_GEMM_KERNELS_H
#define LC_GEMM_KERNELS_H

#include "../kernels.h"

#include <lincoll/gemm.h>
#include <stdint.h>

/** Micro-kernel: alpha and beta point at one element of the kernel's dtype. */
typedef void (*lc_gemm_ukr_t)(int64_t m, int64_t n, int64_t k, const void *alpha, const void *ap,
                              const void *bp, const void *beta, void *c, int64_t ldc);

/**
 * Optional SIMD packing helper: transpose 8 source rows (row j at src + j*ld,
 * contiguous along p) of length kb into dst[p * dst_stride + j], j < 8.
 * Packs op(B) panels stored column-major (NR == 8) and transposed op(A).
 */
typedef void (*lc_gemm_pack8_t)(int64_t kb, const void *src, int64_t ld, void *dst,
                                int64_t dst_stride);

/** One micro-kernel with its register and cache block sizes (one per ISA and dtype). */
typedef struct lc_gemm_kernel {
    const char *name;      /* "avx512 24x8" */
    lincoll_dtype_t dtype; /* LINCOLL_FLOAT or LINCOLL_DOUBLE */
    int mr, nr;            /* register block */
    int mc, kc, nc;        /* cache blocks: mc % mr == 0, nc % nr == 0 */
    lc_gemm_ukr_t ukr;
    lc_gemm_pack8_t pack8; /* NULL: scalar packing */
} lc_gemm_kernel_t;

/* Per-ISA registration tables: {double, float}.  Block sizes live there. */
extern const lc_gemm_kernel_t lc_gemm_kernels_base[2];
extern const lc_gemm_kernel_t lc_gemm_kernels_avx2[2];
extern const lc_gemm_kernel_t lc_gemm_kernels_avx512[2];

/** Kernel for @p isa and @p dtype, or NULL (no such kernel, or CPU lacks the ISA). */
const lc_gemm_kernel_t *lc_gemm_kernel(lc_isa_t isa, lincoll_dtype_t dtype);

/** The dispatched kernel (lc_kernel_isa() at first use) for @p dtype, or NULL. */
const lc_gemm_kernel_t *lc_gemm_kernel_active(lincoll_dtype_t dtype);

/**
 * Canonical column-major blocked GEMM with kernel @p kr (its dtype decides the
 * element type; alpha, beta are converted).  Arguments are trusted (checked by
 * the callers).  @p threads > 1 splits C into bands computed in parallel.
 * Returns LINCOLL_OK or LINCOLL_ERR_NOMEM.
 */
lincoll_status_t lc_gemm_blocked(const lc_gemm_kernel_t *kr, int threads, lincoll_trans_t ta,
                                 lincoll_trans_t tb, int64_t m, int64_t n, int64_t k, double alpha,
                                 const void *a, int64_t lda, const void *b, int64_t ldb,
                                 double beta, void *c, int64_t ldc);

/**
 * Hook called on the calling thread between the mc x kc blocks of
 * lc_gemm_blocked() (about 2 mc kc nc flops apart) while set; NULL clears it.
 * Thread-local, so band threads never call it.  core/exec sets it for a GEMM
 * that overlaps transfers, to progress the transport (rendezvous messages
 * move only when the worker is progressed).
 */
typedef void (*lc_gemm_hook_t)(void *arg);
void lc_gemm_set_hook(lc_gemm_hook_t fn, void *arg);

/** Argument checks shared by lincoll_gemm and lincoll_gemm_base (logs the bad argument). */
lincoll_status_t lc_gemm_check(lincoll_layout_t layout, lincoll_trans_t ta, lincoll_trans_t tb,
                               int64_t m, int64_t n, int64_t k, lincoll_dtype_t dtype, double alpha,
                               const void *a, int64_t lda, const void *b, int64_t ldb, double beta,
                               const void *c, int64_t ldc);

/**
 * Full public-style call on a chosen kernel (tests use it to run every variant):
 * checks, maps row-major to column-major, then lc_gemm_blocked().
 */
lincoll_status_t lc_gemm_with(const lc_gemm_kernel_t *kr, int threads, lincoll_layout_t layout,
                              lincoll_trans_t ta, lincoll_trans_t tb, int64_t m, int64_t n,
                              int64_t k, double alpha, const void *a, int64_t lda, const void *b,
                              int64_t ldb, double beta, void *c, int64_t ldc);

/** Threads of one lincoll_gemm call: the kernels' gemm_threads (default 1). */
int lc_gemm_threads(void);

/** Set them (clamped to [1, LC_KERNELS_MAX_GEMM_THREADS]); lc_kernels_configure calls it. */
void lc_gemm_set_threads(int threads);

#endif
