/*
 * core/coll/coll_int.h: what the reduction/gather collectives share.
 *
 * The public wrappers (coll_api.c) validate arguments and fill one
 * lc_coll_args_t; select.c picks an algorithm (cost model or
 * LINCOLL_<OP>_ALGO); each algorithm file (rhd_*.c, ring_*.c, binomial_*.c)
 * is a plan compiler with the signature lc_coll_build_fn_t: it adds slots,
 * rounds, transfers and compute steps to a plan created by the caller, which
 * finalizes it (or destroys it on error).
 *
 * Conventions every algorithm follows (design/RHD.md §6.1):
 *  - rounds are *global* steps: a message sent in the sender's round r is
 *    received in the receiver's round r (the executor puts the round in the
 *    tag), so ranks that sit a step out leave that round empty;
 *  - every protocol message is sent, even with 0 bytes, so message counts
 *    depend only on P and the roles (never on count);
 *  - pairs (2i, 2i+1), i < r = P - 2^floor(log2 P), fold into one
 *    representative of parity s; vrank/real below.
 */
#ifndef LC_COLL_INT_H
#define LC_COLL_INT_H

#include <lincoll/coll.h>
#include <stddef.h>

#include "core/plan/plan.h"

typedef enum lc_coll_op {
    LC_COLL_ALLREDUCE = 0,
    LC_COLL_REDUCE_SCATTER,
    LC_COLL_ALLGATHER,
    LC_COLL_BCAST,
    LC_COLL_REDUCE,
    LC_COLL_NOPS
} lc_coll_op_t;

typedef enum lc_coll_algo {
    LC_ALGO_AUTO = 0,
    LC_ALGO_RHD,
    LC_ALGO_RING,
    LC_ALGO_BINOMIAL,
    LC_ALGO_NALGOS
} lc_coll_algo_t;

/* Validated arguments of one collective call on the calling rank. */
typedef struct lc_coll_args {
    lc_coll_op_t op;
    const void *sbuf;     /* input (NULL when inplace) */
    void *rbuf;           /* output (bcast: the buffer) */
    size_t count;         /* allreduce, bcast, reduce: elements */
    const size_t *counts; /* reduce_scatter, allgather: P per-rank counts */
    const size_t *displs; /* their exclusive prefix sums (P entries) */
    size_t total;         /* sum of counts (RS/AG), count otherwise */
    lincoll_dtype_t dtype;
    lincoll_op_t rop;
    int root;
    int inplace;
    size_t es; /* element size in bytes */
} lc_coll_args_t;

typedef lincoll_status_t (*lc_coll_build_fn_t)(lincoll_plan_t *plan, const lc_coll_args_t *a);

/* ---- plan compilers --------------------------------------------------------- */
lincoll_status_t lc_rhd_allreduce_build(lincoll_plan_t *plan, const lc_coll_args_t *a);
lincoll_status_t lc_rhd_reduce_scatter_build(lincoll_plan_t *plan, const lc_coll_args_t *a);
lincoll_status_t lc_rhd_allgather_build(lincoll_plan_t *plan, const lc_coll_args_t *a);
lincoll_status_t lc_rhd_bcast_build(lincoll_plan_t *plan, const lc_coll_args_t *a);
lincoll_status_t lc_rhd_reduce_build(lincoll_plan_t *plan, const lc_coll_args_t *a);
lincoll_status_t lc_ring_reduce_scatter_build(lincoll_plan_t *plan, const lc_coll_args_t *a);
lincoll_status_t lc_ring_allgather_build(lincoll_plan_t *plan, const lc_coll_args_t *a);
lincoll_status_t lc_ring_allreduce_build(lincoll_plan_t *plan, const lc_coll_args_t *a);
lincoll_status_t lc_binomial_bcast_build(lincoll_plan_t *plan, const lc_coll_args_t *a);
lincoll_status_t lc_binomial_reduce_build(lincoll_plan_t *plan, const lc_coll_args_t *a);

/* Zero-copy allreduce (zcopy_allreduce.c).  build: compile over windows on
 * the input (NULL in place) and output buffers that map every peer;
 * try: collective check (threshold, lincoll memory everywhere, peers mapped),
 * windows and plan; LINCOLL_ERR_UNSUPPORTED when the tag plans must serve. */
lincoll_status_t lc_zc_allreduce_build(lincoll_plan_t *plan, const lc_coll_args_t *a,
                                       lc_win_t *win_src, lc_win_t *win_out);
/* Small messages, P a power of two: recursive doubling, each round a put of
 * the whole vector into the partner's mapped scratch (win over 2.k.bytes). */
lincoll_status_t lc_zc_rd_allreduce_build(lincoll_plan_t *plan, const lc_coll_args_t *a,
                                          lc_win_t *win_scr);
/* Reduction of segment [off, off+cnt) of every rank's input (src_slots[rank]
 * at offset off) into target, with rhd_allreduce's bracketing, as POST steps
 * of round. */
lincoll_status_t lc_zc_reduce_tree(lincoll_plan_t *plan, const lc_coll_args_t *a, int round,
                                   int *src_slots, size_t off, size_t cnt, lc_bufref_t target);
/* AND of every rank's flag, checking that all ranks passed the same call
 * shape (one allgather; LINCOLL_ERR_MISMATCH in *st otherwise). */
int lc_zc_all_agree(lincoll_comm_t *comm, const lc_coll_args_t *a, int mine, lincoll_status_t *st);
/* Small bcast and reduce by put into mapped scratch (zcopy_small.c). */
lincoll_status_t lc_zc_bcast_build(lincoll_plan_t *plan, const lc_coll_args_t *a, lc_win_t *win);
lincoll_status_t lc_zc_reduce_build(lincoll_plan_t *plan, const lc_coll_args_t *a, lc_win_t *win);
lincoll_status_t lc_zc_bcast_direct_build(lincoll_plan_t *plan, const lc_coll_args_t *a,
                                          lc_win_t *win);
/* A copy step of a zero-copy plan (zcopy_small.c): its bytes move between
 * ranks' memory (a load from a peer's mapped buffer, a store into one, or the
 * local staging of a block that then travels), so the model counts them as
 * bytes moved at 1/beta (LINCOLL_MODEL_BW), not as compute at 1/gamma. */
lincoll_status_t lc_zc_copy(lincoll_plan_t *plan, int round, int post, lc_bufref_t dst,
                            lc_bufref_t src, size_t len);
/* Scratch rings (zcopy_small.c): a plan whose start s reads and puts into
 * slot s % LC_ZC_DEPTH of a window of LC_ZC_DEPTH * stride bytes; the
 * per-start hook (installed by lc_zc_ring, at most 64 slots and 64 puts)
 * moves the registered slots and put offsets to this start's ring slot. */
#define LC_ZC_DEPTH 8
/* Bytes of one ring slot holding `bytes`: whole cache lines, so the slot a
 * peer still reads and the one the next start writes never share a line. */
static inline size_t lc_zc_ring_stride(size_t bytes)
{
    return (bytes + 63) & ~(size_t)63;
}
typedef struct lc_zc_ring lc_zc_ring_t;
lc_zc_ring_t *lc_zc_ring(lincoll_plan_t *plan, size_t stride);
/* a user slot over ring scratch at base (-1 when out of room) */
int lc_zc_ring_slot(lincoll_plan_t *plan, lc_zc_ring_t *g, char *base, size_t len);
/* a put into the peer's ring scratch at roff within the ring slot */
lincoll_status_t lc_zc_ring_put(lincoll_plan_t *plan, lc_zc_ring_t *g, int round, int peer,
                                lc_bufref_t src, size_t len, lc_win_t *win, size_t roff);
/* Large reduce-scatter and allgather by direct loads, small ones on a power
 * of two by puts into mapped scratch rings (zcopy_rsag.c). */
lincoll_status_t lc_zc_allgather_build(lincoll_plan_t *plan, const lc_coll_args_t *a,
                                       lc_win_t *win);
lincoll_status_t lc_zc_reduce_scatter_build(lincoll_plan_t *plan, const lc_coll_args_t *a,
                                            lc_win_t *win);
lincoll_status_t lc_zc_rh_reduce_scatter_build(lincoll_plan_t *plan, const lc_coll_args_t *a,
                                               lc_win_t *win);
lincoll_status_t lc_zc_rd_allgather_build(lincoll_plan_t *plan, const lc_coll_args_t *a,
                                          lc_win_t *win);
lincoll_status_t lc_zc_rsag_try(lincoll_comm_t *comm, const lc_coll_args_t *a,
                                lincoll_plan_t **plan_p);
lincoll_status_t lc_zc_reduce_direct_build(lincoll_plan_t *plan, const lc_coll_args_t *a,
                                           lc_win_t *win_in, lc_win_t *win_out);
lincoll_status_t lc_zc_small_try(lincoll_comm_t *comm, const lc_coll_args_t *a,
                                 lincoll_plan_t **plan_p);
/* bcast/reduce: scratch window size on `rank` for this call */
size_t lc_zc_small_winlen(const lc_coll_args_t *a, int P, int rank);
lincoll_status_t lc_zc_allreduce_try(lincoll_comm_t *comm, const lc_coll_args_t *a,
                                     lincoll_plan_t **plan_p);
/* RMA transfers of core/plan/plan.c (declared here for the collectives). */
lincoll_status_t lc_plan_put(lincoll_plan_t *plan, int round, int peer, lc_bufref_t src, size_t len,
                             lc_win_t *win, size_t roff);
lincoll_status_t lc_plan_wait_put(lincoll_plan_t *plan, int round, int peer, size_t len,
                                  lc_win_t *win);

/* ---- plan cache of the blocking calls (coll_cache.c) ---------------------------- */
typedef lincoll_status_t (*lc_coll_init_fn_t)(lincoll_comm_t *comm, const void *sbuf, void *rbuf,
                                              size_t count, lincoll_dtype_t dtype, lincoll_op_t rop,
                                              int root, lincoll_plan_t **plan_p);
/* Run one blocking collective through the cache (init compiles on a miss). */
lincoll_status_t lc_coll_run_cached(lc_coll_op_t op, lincoll_comm_t *comm, const void *sbuf,
                                    void *rbuf, size_t count, lincoll_dtype_t dtype,
                                    lincoll_op_t rop, int root, lc_coll_init_fn_t init);
/* Non-zero while a blocking call compiles its plan (no zero-copy path then). */
int lc_coll_blocking_build(void);
/* Drop the cached plans of ctx (of comm only when comm != NULL). */
void lc_coll_cache_flush(lincoll_context_t *ctx, lincoll_comm_t *comm);

/* ---- selection (select.c) ------------------------------------------------------ */
const char *lc_coll_op_name(lc_coll_op_t op);
const char *lc_coll_algo_name(lc_coll_algo_t algo);
/* Read LINCOLL_<OP>_ALGO (auto when unset); LINCOLL_ERR_INVALID for a bad value. */
lincoll_status_t lc_coll_forced_algo(lc_coll_op_t op, lc_coll_algo_t *algo_p);
/* Predicted alpha-beta-gamma time (seconds) of algo for the call; < 0 = cannot run. */
double lc_coll_predict(const lc_config_t *cfg, lc_coll_op_t op, lc_coll_algo_t algo, int P,
                       const lc_coll_args_t *a);
/* Pick the algorithm (forced or cheapest) and compile + finalize the plan. */
lincoll_status_t lc_coll_plan(lincoll_comm_t *comm, const lc_coll_args_t *a,
                              lincoll_plan_t **plan_p);

/* ---- helpers shared by the plan compilers (rhd_common.c) ------------------------ */

/* The non-power-of-two fold of design/RHD.md §6.1. */
typedef struct lc_fold {
    int p; /* ranks */
    int P; /* 2^k, power-of-two block */
    int k; /* floor(log2 p) */
    int r; /* p - P folded pairs */
    int s; /* parity of the representative in a pair */
} lc_fold_t;

void lc_fold_init(lc_fold_t *f, int p, int s);
/* vrank of real rank x, or -1 when x is the non-representative of its pair */
static inline int lc_fold_vrank(const lc_fold_t *f, int x)
{
    if (x < 2 * f->r) {
        return (x & 1) == f->s ? x >> 1 : -1;
    }
    return x - f->r;
}
static inline int lc_fold_real(const lc_fold_t *f, int v)
{
    return v < f->r ? 2 * v + f->s : v + f->r;
}

/* Near-equal split of count elements into n segments (first count%n get one more). */
typedef struct lc_segs {
    size_t q, m;
} lc_segs_t;
static inline size_t lc_seg_off(const lc_segs_t *s, size_t i)
{
    return i * s->q + (i < s->m ? i : s->m);
}
/* elements of segments [lo, lo+w) */
static inline size_t lc_seg_sum(const lc_segs_t *s, size_t lo, size_t w)
{
    return lc_seg_off(s, lo + w) - lc_seg_off(s, lo);
}

/* Make sure rounds 0..idx exist; returns idx or -1. */
int lc_coll_round(lincoll_plan_t *plan, int idx);

/* Common error exit of the compilers: NOMEM when a slot/round index is negative. */
#define LC_COLL_TRY(_st, _expr)                                                                    \
    do {                                                                                           \
        if ((_st) == LINCOLL_OK) (_st) = (_expr);                                                  \
    } while (0)

#endif
