/**
 * @file matmul.h
 * @brief Distributed matrix multiply C := alpha * op(A) * op(B) + beta * C over a
 *        communicator: 1D ring, SUMMA, Cannon and 2.5D, each compiled to a plan.
 *
 * Matrices are described by ::lincoll_matdesc_t, a ScaLAPACK array descriptor
 * (M_, N_, MB_, NB_, RSRC_, CSRC_, LLD_) plus the process grid the BLACS
 * context would carry (Pr x Pc, and c replicated layers for 2.5D).  Rank r of
 * the communicator sits at grid position (layer l, row i, column j) with
 * r = l * Pr * Pc + i * Pc + j (BLACS row-major order); every matrix lives on
 * layer 0, so ranks of layers 1..c-1 pass NULL local buffers.
 *
 * Which algorithm can run depends on the distribution the caller chose:
 *
 * | algorithm | grid | distribution |
 * |---|---|---|
 * | ring (1D) | P x 1 | row blocks or block-cyclic rows, A and C share MB |
 * | SUMMA | any Pr x Pc | block-cyclic; A,C share rows, B,C share columns |
 * | Cannon | q x q | one block per process, A's column split = B's row split |
 * | 2.5D | q x q x c | as Cannon, on layer 0 |
 *
 * `LINCOLL_MATMUL_ALGO=ring|summa|cannon|25d|auto` forces one (set the same on
 * every rank); otherwise the α-β cost model picks among those that apply,
 * skipping any whose scratch exceeds `LINCOLL_MATMUL_MAX_MEM` bytes per rank
 * (0 = no limit).  Plans are persistent: the buffers are bound at init and
 * each lincoll_start() recomputes C.
 */
#ifndef LINCOLL_MATMUL_H
#define LINCOLL_MATMUL_H

#include <stdint.h>
#include <lincoll/context.h>
#include <lincoll/gemm.h>
#include <lincoll/plan.h>
#include <lincoll/status.h>
#include <lincoll/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Distribution of one global matrix: a ScaLAPACK descriptor plus its grid.
 * Local storage on rank (i, j): the numroc(m, mb, i, rsrc, pr) x
 * numroc(n, nb, j, csrc, pc) local array, in @ref layout order with leading
 * dimension @ref lld.
 */
typedef struct lincoll_matdesc {
    int64_t m;               /**< M_: global rows */
    int64_t n;               /**< N_: global columns */
    int64_t mb;              /**< MB_: row block size (>= 1) */
    int64_t nb;              /**< NB_: column block size (>= 1) */
    int rsrc;                /**< RSRC_: process row of the first row block */
    int csrc;                /**< CSRC_: process column of the first column block */
    int64_t lld;             /**< LLD_: local leading dimension; 0 = tight (computed per rank) */
    int pr;                  /**< process rows of the grid (BLACS context) */
    int pc;                  /**< process columns of the grid */
    int layers;              /**< c replicated layers (2.5D); 1 for 1D/2D */
    lincoll_layout_t layout; /**< local storage order (ScaLAPACK: ::LINCOLL_COL_MAJOR) */
} lincoll_matdesc_t;

/**
 * @brief Fill a block-cyclic descriptor (rsrc = csrc = 0, tight lld).
 * @param [out] d      descriptor.
 * @param [in]  m, n   global size (>= 0).
 * @param [in]  mb, nb block sizes (>= 1).
 * @param [in]  pr, pc grid (>= 1).
 * @param [in]  layers replicated layers (>= 1; > 1 only for 2.5D).
 * @param [in]  layout local storage order.
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID (the log names the argument).
 */
LINCOLL_API lincoll_status_t lincoll_matdesc_init(lincoll_matdesc_t *d, int64_t m, int64_t n,
                                                  int64_t mb, int64_t nb, int pr, int pc,
                                                  int layers, lincoll_layout_t layout);

/**
 * @brief Block distribution (one block per process, the last ones may be
 *        shorter or empty): mb = ceil(m / pr), nb = ceil(n / pc).
 * @return see lincoll_matdesc_init().
 */
LINCOLL_API lincoll_status_t lincoll_matdesc_block(lincoll_matdesc_t *d, int64_t m, int64_t n,
                                                   int pr, int pc, int layers,
                                                   lincoll_layout_t layout);

/**
 * @brief Convert a ScaLAPACK descriptor array (DTYPE_ = 1, CTXT_, M_, N_, MB_,
 *        NB_, RSRC_, CSRC_, LLD_) on a pr x pc BLACS grid.  Column-major, 1 layer.
 * @param [out] d    descriptor.
 * @param [in]  desc the 9 integers.
 * @param [in]  pr, pc the grid of the BLACS context desc[1].
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID.
 */
LINCOLL_API lincoll_status_t lincoll_matdesc_from_scalapack(lincoll_matdesc_t *d, const int desc[9],
                                                            int pr, int pc);

/**
 * @brief Grid position of communicator rank @p rank.
 * @param [in]  d    descriptor (its grid).
 * @param [in]  rank rank in [0, pr * pc * layers).
 * @param [out] row, col, layer coordinates (any may be NULL).
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID (rank outside the grid).
 */
LINCOLL_API lincoll_status_t lincoll_matdesc_coords(const lincoll_matdesc_t *d, int rank, int *row,
                                                    int *col, int *layer);

/**
 * @brief Local array size of @p rank (0 x 0 for ranks of layers > 0).
 * @param [in]  d     descriptor.
 * @param [in]  rank  communicator rank.
 * @param [out] rows, cols local rows and columns (numroc).
 * @param [out] ld    leading dimension this rank must use (lld, or the
 *                    tight value max(1, rows) / max(1, cols) when lld = 0); may be NULL.
 *                    An operand passed transposed to lincoll_matmul_init() stores
 *                    cols x rows instead: its tight ld is max(1, cols) column-major.
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID.
 */
LINCOLL_API lincoll_status_t lincoll_matdesc_local(const lincoll_matdesc_t *d, int rank,
                                                   int64_t *rows, int64_t *cols, int64_t *ld);

/** Algorithms of lincoll_matmul_init(). */
typedef enum lincoll_matmul_algo {
    LINCOLL_MATMUL_AUTO = 0, /**< cost model (or LINCOLL_MATMUL_ALGO) decides */
    LINCOLL_MATMUL_RING,     /**< 1D: B row blocks rotate, double buffered */
    LINCOLL_MATMUL_SUMMA,    /**< panels broadcast along rows and columns */
    LINCOLL_MATMUL_CANNON,   /**< skew, then sqrt(P) shift-multiply steps */
    LINCOLL_MATMUL_25D,      /**< c layers of Cannon plus a reduction of C */
    LINCOLL_MATMUL_ALGO_LAST
} lincoll_matmul_algo_t;

/** Broadcast SUMMA uses for its panels. */
typedef enum lincoll_matmul_bcast {
    LINCOLL_MATMUL_BCAST_AUTO = 0, /**< cost model */
    LINCOLL_MATMUL_BCAST_TREE,     /**< binomial tree: ceil(log2 q) rounds per panel */
    LINCOLL_MATMUL_BCAST_RING      /**< bucket: panels pipelined around the ring */
} lincoll_matmul_bcast_t;

/** Don't run the local GEMMs (plan moves data only): measures communication. */
#define LINCOLL_MATMUL_COMM_ONLY 0x1u

/** Options of lincoll_matmul_init() (NULL = all defaults). */
typedef struct lincoll_matmul_opts {
    lincoll_matmul_algo_t algo;   /**< ::LINCOLL_MATMUL_AUTO or one algorithm */
    lincoll_matmul_bcast_t bcast; /**< SUMMA broadcast */
    int64_t panel;                /**< SUMMA panel width s (0 = model default) */
    unsigned flags;               /**< ::LINCOLL_MATMUL_COMM_ONLY */
    lincoll_trans_t transa;       /**< op(A): ::LINCOLL_NO_TRANS (default) or ::LINCOLL_TRANS */
    lincoll_trans_t transb;       /**< op(B): ::LINCOLL_NO_TRANS (default) or ::LINCOLL_TRANS */
    /** operation tag: 0 = the communicator's start order; 1..::LINCOLL_TAG_MAX =
     *  this operation's name on the communicator (see ::LINCOLL_TAG_MAX).  Equal on
     *  every rank. */
    uint64_t tag;
} lincoll_matmul_opts_t;

/**
 * @brief Compile C := alpha * op(A) * op(B) + beta * C (op(A) is m x k, op(B)
 *        k x n, C m x n; op = identity or transpose, from @p opts).
 *
 * Transposes: @p desca and @p descb always describe the distribution of
 * op(A) and op(B) (m x k and k x n, with the grid rules of the table above).
 * With opts->transa = ::LINCOLL_TRANS each rank's local array of A holds the
 * *transpose* of its op(A) block: a kloc x mloc array (in desca->layout,
 * leading dimension desca->lld, or tight = max(1, kloc) column-major /
 * max(1, mloc) row-major when lld = 0).  Equivalently: A (k x m) distributed
 * with the fields of desca swapped (m/n, mb/nb, rsrc/csrc) on the transposed
 * grid, rank (i, j) holding A's block (j, i) — for the 1D ring that is exactly
 * ScaLAPACK's 1 x P column distribution of A.  The same holds for B with
 * transb.  The local GEMMs read the stored blocks with op = T; nothing is
 * transposed in memory.  All four algorithms accept either op on either
 * operand.  A ScaLAPACK-style descriptor of the stored A (k x m) is rejected
 * with ::LINCOLL_ERR_INVALID (dimensions of op(A) do not match C).
 *
 * Collective: every rank of @p comm calls it with the same descriptors,
 * scalars and options.  Buffers are this rank's local arrays (NULL allowed
 * when the local array is empty); they stay bound to the plan.  A and B are
 * only read; C must not overlap them.
 * @param [in]  comm  communicator of pr * pc * layers ranks.
 * @param [in]  dtype ::LINCOLL_FLOAT or ::LINCOLL_DOUBLE.
 * @param [in]  alpha, beta scalars.
 * @param [in]  a, desca  local A and its descriptor (global k columns).
 * @param [in]  b, descb  local B and its descriptor.
 * @param [in,out] c, descc local C and its descriptor.
 * @param [in]  opts  options (algorithm, SUMMA panel and broadcast, transposes,
 *                    ::LINCOLL_MATMUL_COMM_ONLY) or NULL for the defaults.
 * @param [out] plan_p the plan (lincoll_start / lincoll_wait / lincoll_plan_free).
 * @return ::LINCOLL_OK; ::LINCOLL_ERR_INVALID for mismatched dimensions, a grid
 *         that does not cover the communicator, a bad leading dimension or
 *         distributions that do not line up, an opts->transa/transb other than
 *         ::LINCOLL_NO_TRANS/::LINCOLL_TRANS (the log names the argument);
 *         ::LINCOLL_ERR_UNSUPPORTED when the forced algorithm cannot serve the
 *         distribution (Cannon on a non-square grid, ...) or a dtype other
 *         than float/double; ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_matmul_init(lincoll_comm_t *comm, lincoll_dtype_t dtype,
                                                 double alpha, const void *a,
                                                 const lincoll_matdesc_t *desca, const void *b,
                                                 const lincoll_matdesc_t *descb, double beta,
                                                 void *c, const lincoll_matdesc_t *descc,
                                                 const lincoll_matmul_opts_t *opts,
                                                 lincoll_plan_t **plan_p);

/**
 * @brief Blocking form: init, start, wait, free.
 * @return see lincoll_matmul_init() and lincoll_wait().
 */
LINCOLL_API lincoll_status_t lincoll_matmul(lincoll_comm_t *comm, lincoll_dtype_t dtype,
                                            double alpha, const void *a,
                                            const lincoll_matdesc_t *desca, const void *b,
                                            const lincoll_matdesc_t *descb, double beta, void *c,
                                            const lincoll_matdesc_t *descc,
                                            const lincoll_matmul_opts_t *opts);

/** Model figures of a matmul plan for the calling rank (see lincoll_matmul_info()). */
typedef struct lincoll_matmul_info {
    lincoll_matmul_algo_t algo;   /**< algorithm that compiled the plan */
    int64_t panel;                /**< SUMMA panel width used (0 otherwise) */
    lincoll_matmul_bcast_t bcast; /**< SUMMA broadcast used */
    uint64_t words_sent;          /**< elements this rank sends per start */
    uint64_t words_recvd;         /**< elements this rank receives per start */
    uint64_t msgs_sent;           /**< messages this rank sends per start */
    uint64_t msgs_recvd;          /**< messages this rank receives per start */
    unsigned rounds;              /**< rounds with transfers (C1) */
    uint64_t memory_bytes;        /**< local A + B + C + plan scratch on this rank */
    double flops;                 /**< 2 * (local GEMM volume) of this rank */
    double
        lower_bound_words; /**< Irony-Toledo-Tiskin: mnk/(2 sqrt2 P sqrt M) - M, M = memory words */
    double predicted_comm_us; /**< C1 * alpha + C2 * beta (LINCOLL_MODEL_ALPHA/_BW): full-duplex
                                   ports, a round costs its largest message (network model) */
    double predicted_comm_host_us; /**< all ranks on one host: a round costs alpha + (bytes
                                        this rank sends + receives in it) * beta, since both
                                        directions are copies through one memory system */
} lincoll_matmul_info_t;

/**
 * @brief Model figures of a plan made by lincoll_matmul_init().
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID (not a matmul plan).
 */
LINCOLL_API lincoll_status_t lincoll_matmul_info(const lincoll_plan_t *plan,
                                                 lincoll_matmul_info_t *info);

/**
 * @brief Name of an algorithm ("ring", "summa", "cannon", "25d", "auto").
 * @return a static string ("?" for an unknown value).
 */
LINCOLL_API const char *lincoll_matmul_algo_name(lincoll_matmul_algo_t algo);

/**
 * @brief Scatter a global matrix held by @p root into the distribution @p d.
 *
 * One plan: the root packs each rank's local array and sends it (p ports
 * per round); its own part is copied.
 * @param [in]  comm   communicator covered by @p d's grid.
 * @param [in]  root   rank holding the global matrix.
 * @param [in]  global m x n matrix in @p d->layout with leading dimension
 *                     @p ldg (read on the root only; NULL elsewhere).
 * @param [in]  ldg    leading dimension of @p global (on the root).
 * @param [in]  dtype  element type (any fixed-size type).
 * @param [in]  d      distribution.
 * @param [out] local  this rank's local array (lincoll_matdesc_local()).
 * @param [out] plan_p the plan.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID or ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_matrix_scatter_init(lincoll_comm_t *comm, int root,
                                                         const void *global, int64_t ldg,
                                                         lincoll_dtype_t dtype,
                                                         const lincoll_matdesc_t *d, void *local,
                                                         lincoll_plan_t **plan_p);

/**
 * @brief Gather a distributed matrix back into @p global on @p root
 *        (the inverse of lincoll_matrix_scatter_init()).
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID or ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_matrix_gather_init(lincoll_comm_t *comm, int root,
                                                        void *global, int64_t ldg,
                                                        lincoll_dtype_t dtype,
                                                        const lincoll_matdesc_t *d,
                                                        const void *local, lincoll_plan_t **plan_p);

/**
 * @brief Row, column and layer communicators of @p d's grid, made with
 *        lincoll_comm_split() (collective and blocking: real transports only,
 *        not the single-threaded sim).  The algorithms do not need them; they
 *        are for users who add their own row/column operations.
 * @param [in]  comm  communicator covered by the grid.
 * @param [in]  d     descriptor (its grid).
 * @param [out] row_p ranks of my grid row in my layer, ordered by column (may be NULL).
 * @param [out] col_p ranks of my grid column in my layer, ordered by row (may be NULL).
 * @param [out] layer_p ranks at my (row, column) across layers (may be NULL).
 * @return ::LINCOLL_OK or the error of lincoll_comm_split().
 */
LINCOLL_API lincoll_status_t lincoll_matdesc_comms(lincoll_comm_t *comm, const lincoll_matdesc_t *d,
                                                   lincoll_comm_t **row_p, lincoll_comm_t **col_p,
                                                   lincoll_comm_t **layer_p);

#ifdef __cplusplus
}
#endif
#endif
