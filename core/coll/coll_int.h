/*
 * core/coll/coll_int.h: what the reduction/gather collectives share.
 *
 * The public wrappers (coll_api.c) validate arguments and fill one
 * lc_coll_args_t; coll_api_select.c picks an algorithm from the registry (registry.c:
 * cost model or LINCOLL_<OP>_ALGO); each algorithm file (rhd_*.c, ring_*.c,
 * binomial_*.c, zcopy_*.c) defines its registry entry and its plan compiler,
 * a pure function of (environment, arguments): it adds slots, windows,
 * rounds, transfers and compute steps to an IR created by the caller, which
 * finalizes it (or destroys it on error).
 *
 * Conventions every algorithm follows (docs/collectives.md, "Conventions"):
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

#include "core/plan/alg.h"
#include "core/plan/plan.h"

typedef enum lc_coll_op {
    LC_COLL_ALLREDUCE = 0,
    LC_COLL_REDUCE_SCATTER,
    LC_COLL_ALLGATHER,
    LC_COLL_BCAST,
    LC_COLL_REDUCE,
    LC_COLL_NOPS
} lc_coll_op_t;

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

/* One algorithm of the registry (registry.c): the shape every family's
 * entry has (core/plan/alg.h: name as LINCOLL_<OP>_ALGO takes it, unique
 * within the operation; applies, NULL = always; closed-form cost;
 * compiler), then the collectives' extras.  Each algorithm file defines one
 * (lc_alg_<plan name>) beside its compiler. */
typedef struct lc_coll_alg {
    LC_ALG_SHAPE(lc_plan_t, lc_coll_args_t);
    const char *plan_name; /* the plan's algorithm name (rhd_allreduce, ...) */
    lc_coll_op_t op;
    int mapped; /* zero copy: needs every peer's memory mapped (bind agrees at init) */
    int ports;  /* ports the plan uses: 0 = 1, -1 = P - 1 */
} lc_coll_alg_t;

/* The registry, in preference order (ties of the cost model go to the first). */
const lc_coll_alg_t *const *lc_coll_registry(size_t *n_p);
/* The algorithm of op named name (short or plan name), or NULL. */
const lc_coll_alg_t *lc_coll_find(lc_coll_op_t op, const char *name);
/* Compile alg for the call on env (finalized IR), or an error
 * (LINCOLL_ERR_UNSUPPORTED when it does not apply). */
lincoll_status_t lc_coll_compile(const lc_coll_alg_t *alg, const lc_env_t *env,
                                 const lc_coll_args_t *a, lc_plan_t **ir_p);
/* The same without the applicability test (the selection's thresholds):
 * tests and lincoll_sim check algorithms beyond the sizes the model picks
 * them for; their hard restrictions (a power of two, ...) still hold. */
lincoll_status_t lc_coll_compile_any(const lc_coll_alg_t *alg, const lc_env_t *env,
                                     const lc_coll_args_t *a, lc_plan_t **ir_p);

/* ---- pieces shared by the compilers ----------------------------------------- */
/* Reduction of segment [off, off+cnt) of every rank's input (src_slots[rank]
 * at offset off) into target, with rhd_allreduce's bracketing, as POST steps
 * of round (zcopy_tree.c). */
lincoll_status_t lc_zc_reduce_tree(lc_plan_t *plan, const lc_coll_args_t *a, int round,
                                   const int *src_slots, size_t off, size_t cnt,
                                   lc_bufref_t target);
/* "ready"/"done" flags: a signal to every peer on win and a wait for each (zcopy_tree.c). */
lincoll_status_t lc_zc_flags(lc_plan_t *plan, int round, int win);
/* Allgather, not in place: this rank's block into its own output before
 * round 0 (a PRE copy, zcopy_tree.c). */
lincoll_status_t lc_zc_own_block(lc_plan_t *p, const lc_coll_args_t *a, int out);
/* Window keys of the zero-copy collectives. */
enum { LC_ZC_KEY_IN = 1, LC_ZC_KEY_OUT = 2, LC_ZC_KEY_SCRATCH = 3 };
/* Scratch rings: start s reads and puts into position s % LC_ZC_DEPTH. */
#define LC_ZC_DEPTH 8
/* Credits travel once per LC_ZC_CREDIT_BATCH starts (zcopy_bcast, zcopy_reduce). */
#define LC_ZC_CREDIT_BATCH 4
/* Bytes of one ring position holding `bytes`: whole cache lines, so the slot a
 * peer still reads and the one the next start writes never share a line. */
static inline size_t lc_zc_ring_stride(size_t bytes)
{
    return (bytes + 63) & ~(size_t)63;
}
/* log2(P) when P is a power of two, else -1 */
int lc_zc_log2(int P);
/* bytes of the call's vector (total elements times element size) */
static inline size_t lc_coll_bytes(const lc_coll_args_t *a)
{
    return a->total * a->es;
}

/* ---- plan cache of the blocking calls (coll_api_cache.c) ---------------------------- */
typedef lincoll_status_t (*lc_coll_init_fn_t)(lincoll_comm_t *comm, const void *sbuf, void *rbuf,
                                              size_t count, lincoll_dtype_t dtype, lincoll_op_t rop,
                                              int root, int blocking, lincoll_plan_t **plan_p);
/* Run one blocking collective through the cache (init compiles on a miss,
 * with blocking 1). */
lincoll_status_t lc_coll_run_cached(lc_coll_op_t op, lincoll_comm_t *comm, const void *sbuf,
                                    void *rbuf, size_t count, lincoll_dtype_t dtype,
                                    lincoll_op_t rop, int root, lc_coll_init_fn_t init);

/* ---- selection (coll_api_select.c) ------------------------------------------------------ */
const char *lc_coll_op_name(lc_coll_op_t op);
/* The variable that forces op's algorithm (LINCOLL_ALLREDUCE_ALGO, ...). */
const char *lc_coll_op_var(lc_coll_op_t op);
/* Pick the algorithm (opts->algo, else LINCOLL_<OP>_ALGO, else the
 * cheapest), compile, bind (agreeing on the windows of a zero-copy
 * candidate) and return the plan.  fn: the public function, for log lines;
 * opts: the call's options (NULL: defaults).  blocking: a blocking call
 * compiles it (the plan cache, coll_api_cache.c), and no zero-copy algorithm is
 * a candidate. */
lincoll_status_t lc_coll_plan(lincoll_comm_t *comm, const lc_coll_args_t *a, const char *fn,
                              const lincoll_coll_opts_t *opts, int blocking,
                              lincoll_plan_t **plan_p);
/* Compilers of the plans that are not reductions (one file each). */
lincoll_status_t lc_sendrecv_build(lc_plan_t *p, const void *sbuf, size_t sbytes, int dst,
                                   void *rbuf, size_t rbytes, int src, unsigned tag,
                                   lincoll_sendrecv_order_t order);
lincoll_status_t lc_ring_shift_build(lc_plan_t *p, const void *sbuf, void *rbuf, size_t bytes,
                                     int shift);
lincoll_status_t lc_alltoall_ports_build(lc_plan_t *p, const void *sbuf, void *rbuf, size_t bytes);
/* The barrier compiler (dissemination_barrier.c). */
lincoll_status_t lc_dissemination_barrier_build(lc_plan_t *plan);

/* ---- helpers shared by the plan compilers (rhd_common.c) ------------------------ */

/* The non-power-of-two fold (docs/collectives.md, "Non-power-of-two fold"). */
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

/* Terms of the closed-form costs (docs/collectives.md, "Closed forms"):
 * alpha, beta, gamma (2 / LINCOLL_MODEL_COMPUTE_BW: a reduce reads two
 * operands), n bytes, the fold's k, P = 2^k and d = [p not a power of two],
 * fr = (P-1)/P, fp = (p-1)/p, b = n/p.  Returns non-zero when p <= 1 (cost 0). */
typedef struct lc_coll_model {
    double al, be, ga, n, k, P, d, p, fr, fp, b;
} lc_coll_model_t;
int lc_coll_model(const lc_env_t *env, const lc_coll_args_t *a, lc_coll_model_t *m);

/* Make sure rounds 0..idx exist; returns idx or -1. */
int lc_coll_round(lc_plan_t *plan, int idx);

/* Common error exit of the compilers: NOMEM when a slot/round index is negative. */
#define LC_COLL_TRY(_st, _expr)                                                                    \
    do {                                                                                           \
        if ((_st) == LINCOLL_OK) (_st) = (_expr);                                                  \
    } while (0)

#endif
