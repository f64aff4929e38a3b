/*
 * core/matmul/mm_int.h: what the matmul plan compilers share.
 *
 * The GEMM steps' operands are lc_gemm_ext_t (core/plan/plan_steps.h); lc_mm_t is one compile
 * request with the local geometry already worked out; lc_mm_region_t names a sub-matrix of a slot
 * so the compilers can pack it (COPY steps) or hand it to a GEMM step.
 */
#ifndef LC_MM_INT_H
#define LC_MM_INT_H

#include <lincoll/matmul.h>

#include "core/base/log.h"
#include "core/plan/alg.h"
#include "core/plan/plan.h"
#include "core/plan/plan_steps.h"

/* A rows x cols sub-matrix stored in a plan slot.  rows and cols are the
 * logical shape (of op(X)); with t set the slot holds its transpose
 * (cols x rows with leading dimension ld), which the GEMM step reads with
 * op = T and the helpers below index transparently. */
typedef struct lc_mm_region {
    int slot;
    size_t off; /* bytes to element (0, 0) */
    int64_t ld;
    int64_t rows, cols;
    int t;
} lc_mm_region_t;

/* One compile request. */
typedef struct lc_mm {
    lc_env_t env; /* what the compilers may know (P, rank, the model constants) */
    lincoll_dtype_t dtype;
    size_t es;
    double alpha, beta;
    const void *a, *b;
    void *c;
    int ta, tb; /* local arrays of A / B hold the transpose of their op(X) block */
    lincoll_matdesc_t da, db, dc;
    lincoll_matmul_opts_t opts;
    int64_t m, n, k;
    int me, P;
    int pi, pj, pl; /* my grid row, column, layer */
    int comm_only;
} lc_mm_t;

/* Model figures kept in plan->priv. */
typedef struct lc_mm_priv {
    unsigned magic;
    lincoll_matmul_info_t info;
} lc_mm_priv_t;
#define LC_MM_MAGIC 0x6d6d756cu

/* ---- geometry (layout.c) ---- */
int64_t lc_mm_numroc(int64_t n, int64_t nb, int iproc, int isrc, int nprocs);
/* global index g -> owner process and local index */
int lc_mm_owner(int64_t g, int64_t nb, int isrc, int nprocs);
int64_t lc_mm_g2l(int64_t g, int64_t nb, int nprocs);
int lc_mm_rank(const lincoll_matdesc_t *d, int layer, int row, int col);
int64_t lc_mm_tight_ld(const lincoll_matdesc_t *d, int64_t rows, int64_t cols);
lincoll_status_t lc_mm_check_desc(const lincoll_matdesc_t *d, const char *name, int P);
/* Grid coordinates and local array of rank in d (d checked, rank in the
 * grid: the public lincoll_matdesc_coords / _local check both). */
void lc_mm_desc_coords(const lincoll_matdesc_t *d, int rank, int *row, int *col, int *layer);
void lc_mm_desc_local(const lincoll_matdesc_t *d, int rank, int64_t *rows, int64_t *cols,
                      int64_t *ld);
lincoll_status_t lc_mm_check_ld(const lincoll_matdesc_t *d, const char *name, int rank, int t);
/* make sure round r exists */
lincoll_status_t lc_mm_round(lc_plan_t *p, int r);
/* binomial tree over q ranks rooted at relative 0: parent round of v (-1 for the root), children */
int lc_mm_hibit(int v);
/* local array of rank (row, col) in layer 0 as a region of slot */
lc_mm_region_t lc_mm_local(const lincoll_matdesc_t *d, int slot, int row, int col, int64_t ld);
/* a rows x cols region of slot at offset 0, stored transposed when t, tight leading dimension */
lc_mm_region_t lc_mm_tight(lincoll_layout_t L, int slot, int64_t rows, int64_t cols, int t);
/* byte offset of local element (r, c) inside a region */
size_t lc_mm_elem_off(lincoll_layout_t L, const lc_mm_region_t *g, int64_t r, int64_t c, size_t es);
lc_mm_region_t lc_mm_sub(lincoll_layout_t L, const lc_mm_region_t *g, int64_t r0, int64_t c0,
                         int64_t rows, int64_t cols, size_t es);
int lc_mm_contig(lincoll_layout_t L, const lc_mm_region_t *g);
/* COPY steps moving src into dst (same shape); one step when both are contiguous */
lincoll_status_t lc_mm_copy(lc_plan_t *p, int round, int post, lincoll_layout_t L,
                            const lc_mm_region_t *dst, const lc_mm_region_t *src, size_t es);
/* A GEMM step (skipped when m or n is 0) */
lincoll_status_t lc_mm_gemm(lc_plan_t *p, const lc_mm_t *mm, int round, int post, int64_t m,
                            int64_t n, int64_t k, double beta, const lc_mm_region_t *A,
                            const lc_mm_region_t *B, const lc_mm_region_t *C);
/* the rank's local region of A, B or C bound as a user slot (empty when not on layer 0) */
lc_mm_region_t lc_mm_user(lc_plan_t *p, const lc_mm_t *mm, const lincoll_matdesc_t *d,
                          const void *ptr, int t);
/* DURING GEMM steps must not read a buffer their round receives into nor
 * write one it sends from (the plan cannot see GEMM operands; this can) */
lincoll_status_t lc_mm_check_during(const lc_plan_t *p);
lincoll_status_t lc_mm_finish(lc_plan_t *p, const lc_mm_t *mm, lincoll_matmul_algo_t algo,
                              int64_t panel, lincoll_matmul_bcast_t bcast);

/* ---- plan compilers ---- */
/* The scatter (gather: 1) of a global matrix at root into distribution d
 * (scatter_gather.c): local is this rank's local array. */
lincoll_status_t lc_mm_scatter_gather_build(lc_plan_t *p, int root, void *global, int64_t ldg,
                                            size_t es, const lincoll_matdesc_t *d, void *local,
                                            int gather);
/* One algorithm of the registry (registry.c): the shape of every family's
 * entry (core/plan/alg.h: name as LINCOLL_MATMUL_ALGO takes it; applies,
 * does the grid and distribution fit; closed-form cost in seconds;
 * compiler), then the matmul extras.  The arguments are the compile
 * request (env is &mm->env).  Each algorithm file defines one
 * (lc_mm_alg_<file>). */
typedef struct lc_mm_alg {
    LC_ALG_SHAPE(lc_plan_t, lc_mm_t);
    lincoll_matmul_algo_t algo;
    /* non-zero when it cannot serve the call (applies is its negation), the
     * reason written into why (len bytes; why may be NULL) for the init's
     * log line when the algorithm was asked for */
    int (*why_not)(const lc_env_t *env, const lc_mm_t *a, char *why, size_t len);
    /* scratch bytes per rank of the closed form (LINCOLL_MATMUL_MAX_MEM) */
    double (*memory)(const lc_env_t *env, const lc_mm_t *a);
} lc_mm_alg_t;
/* The registry in preference order (ties of the cost model: the first). */
const lc_mm_alg_t *const *lc_mm_registry(size_t *n_p);
const lc_mm_alg_t *lc_mm_alg(lincoll_matmul_algo_t algo);
/* "auto" or the algorithm's name ("?" otherwise). */
const char *lc_mm_algo_name(lincoll_matmul_algo_t algo);
lincoll_status_t lc_mm_ring1d_build(lc_plan_t *p, const lc_mm_t *mm);
lincoll_status_t lc_mm_summa_build(lc_plan_t *p, const lc_mm_t *mm);
lincoll_status_t lc_mm_cannon_build(lc_plan_t *p, const lc_mm_t *mm);
lincoll_status_t lc_mm_25d_build(lc_plan_t *p, const lc_mm_t *mm);
/* Cannon on one layer of q x q starting at step t0 for nsteps; C partial region */
lincoll_status_t lc_mm_cannon_layer(lc_plan_t *p, const lc_mm_t *mm, int layer, int round0, int t0,
                                    int nsteps, const lc_mm_region_t *Aown,
                                    const lc_mm_region_t *Bown, const lc_mm_region_t *C,
                                    double beta, int *round_end);

/* Cannon's why_not (cannon.c), which 2.5D applies to each layer */
int lc_mm_cannon_why_not(const lc_env_t *env, const lc_mm_t *mm, char *why, size_t len);
int64_t lc_mm_summa_default_panel(const lc_mm_t *mm);
/* a why_not's reason: printf into why (len bytes) unless why is NULL */
void lc_mm_why(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define LC_MM_TRY(_st, _call)                                                                      \
    do {                                                                                           \
        if ((_st) == LINCOLL_OK) (_st) = (_call);                                                  \
    } while (0)

#endif
