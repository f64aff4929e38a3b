/*
 * core/exec/exec.h: a plan bound to a communicator, and the one executor
 * that runs every plan (docs/architecture.md, "Bind" and "The executor").
 *
 * Bind (core/exec/bind.c) turns an IR (core/plan/plan.h) into an executable
 * plan: it allocates the scratch slots, creates the windows the plan
 * declares (collectively: one exchange of bind records among the
 * communicator's ranks), resolves peer views to pointers, applies the
 * initial credits and lowers the rounds (core/exec/lower.c) into
 * ready-to-post transfers.  The executor (core/exec/exec.c) runs the lowered
 * rounds: it never looks at the IR again.
 */
#ifndef LC_EXEC_H
#define LC_EXEC_H

#include "core/context/context.h"
#include "core/dev/dev.h"
#include "core/exec/win.h"
#include "core/plan/plan.h"

typedef struct lc_low lc_low_t;           /* lowered program (lower.c) */
typedef struct lc_exec_dev lc_exec_dev_t; /* device state of a plan (exec_dev.c) */

/* Executor state of a running plan. */
typedef struct lc_exec_state {
    int running;
    lincoll_status_t status;
    unsigned round;
    int posted;
    int next_posted;      /* receives of round `round + 1` posted early */
    double deadline;      /* lc_now() limit for the current round (0: not armed) */
    unsigned long starts; /* starts so far; this start is starts - 1 */
    uint64_t seqbits;     /* tag bits of this start (sequence or p2p tag) */
    int p2p;              /* a point-to-point plan: seqbits are fixed (p2p_bits) */
    uint64_t p2p_bits;    /* its point-to-point bit and user tag */
    unsigned seq;         /* this start's sequence (log lines) */
    lc_tl_req_t **reqs;   /* one per transfer of the current round */
    lc_tl_req_t **next;   /* receives of the next round posted early */
    size_t *ringoff;      /* per ring region: this start's offset */
    int dev_pending;      /* device work enqueued and not yet waited for */
    int orphans;          /* a failure released sends still in flight, or receives whose
                             data kept arriving: the transport may still read or write
                             their memory, which must outlive the plan */
} lc_exec_state_t;

struct lincoll_plan {
    lc_plan_t *ir; /* the compiled plan: stats, name, dump */
    lincoll_comm_t *comm;
    lincoll_context_t *ctx;
    char **sptr;       /* per slot: its memory (ring slots: this start's) */
    char **sbase;      /* per slot: the memory of ring position 0 */
    void *scratch_mem; /* one block for all scratch slots */
    lc_win_t **wins;   /* per declared window */
    unsigned nwins;
    lc_low_t *low;
    lc_exec_dev_t *dev; /* NULL: the plan has no device memory */
    lc_exec_state_t ex;
    /* operation tag (core/exec/optag.c): taken from the communicator's scope
     * at bind; optag_live: in the context's list of tagged plans */
    uint64_t optag;
    int tagged, optag_live;
    struct lincoll_plan *tnext;
};

/* ---- bind (bind.c) -------------------------------------------------------- */

/* The call's shape, the same on every rank that passed the same arguments. */
typedef struct lc_bind_shape {
    uint64_t w[3];
} lc_bind_shape_t;

typedef struct lc_bind lc_bind_t;

/* A plan without windows: bind on this rank alone.  Takes the IR (freed on error). */
lincoll_status_t lc_bind_local(lincoll_comm_t *comm, lc_plan_t *ir, lincoll_plan_t **plan_p);

/* Plans with windows, in three steps (a real communicator does all three in
 * lc_bind_agree; tests that drive sim ranks from one thread call them one
 * by one):
 *   prepare: create this rank's windows for the IR's declarations whose
 *            memory allows it (user slots must be lincoll memory), and pack
 *            this rank's record (shape, which window keys it offers, their
 *            remote keys) into *rec_p (LC_BIND_REC_BYTES bytes, freed by the
 *            caller);
 *   gathered: every rank's record, in communicator order; returns the AND
 *            over ranks of the offered key bits (bit k: window key k), or
 *            LINCOLL_ERR_MISMATCH (logged, the same on every rank) when a
 *            rank passed another shape; windows of keys not agreed go;
 *   finish:  bind an IR whose windows all have agreed keys (the prepared
 *            IR or another candidate compiled for the same call, such as a
 *            tag plan with none), taking it: its windows are attached to
 *            every peer's keys, the others freed, and so is the bind state.
 *            After attaching, the ranks exchange their attach statuses
 *            (one more allgather): no rank returns, and so none can free
 *            a window, before every peer has unpacked its keys, and a
 *            failed attach anywhere fails the bind on every rank.
 *            lc_bind_drop frees it unused (only where every rank does: a
 *            peer may be unpacking the agreed keys). */
#define LC_BIND_REC_BYTES 4096
lincoll_status_t lc_bind_prepare(lincoll_comm_t *comm, const lc_plan_t *ir,
                                 const lc_bind_shape_t *shape, lc_bind_t **bind_p, void **rec_p);
lincoll_status_t lc_bind_gathered(lc_bind_t *bind, const void *recs, unsigned *keys_p);
lincoll_status_t lc_bind_finish(lc_bind_t *bind, lc_plan_t *ir, lincoll_plan_t **plan_p);
void lc_bind_drop(lc_bind_t *bind);
/* prepare + one allgather of the records over comm + gathered. */
lincoll_status_t lc_bind_agree(lincoll_comm_t *comm, const lc_plan_t *ir,
                               const lc_bind_shape_t *shape, lc_bind_t **bind_p, unsigned *keys_p);
/* Bind the IRs of n ranks of one communicator that this thread drives
 * (sim virtual ranks: comms[r] of rank r), exchanging their bind records by
 * hand; takes irs (NULL entries: none, only without windows).  No plan is
 * returned on error. */
lincoll_status_t lc_bind_together(lincoll_comm_t **comms, int n, lc_plan_t **irs,
                                  lincoll_plan_t **plans);
/* Bits of the window keys of an IR. */
unsigned lc_bind_keys(const lc_plan_t *ir);

/* ---- lowering (lower.c) and the executor (exec.c) --------------------------- */
lincoll_status_t lc_lower(lincoll_plan_t *plan);
void lc_lower_free(lc_low_t *low);
lincoll_status_t lc_exec_start(lincoll_plan_t *plan);
lincoll_status_t lc_exec_test(lincoll_plan_t *plan);
void lc_exec_cancel(lincoll_plan_t *plan);
/* Free a bound plan (canceled first when running). */
void lc_exec_free(lincoll_plan_t *plan);
/* Run a blocking internal operation (split, barrier) to completion. */
lincoll_status_t lc_exec_run(lincoll_plan_t *plan);
/* Bind an IR made for internal use (no windows), run it once, free it. */
lincoll_status_t lc_exec_run_ir(lincoll_comm_t *comm, lc_plan_t *ir);

/* ---- operation tags (optag.c) ---------------------------------------------- */
/* An api init with operation tag @p tag (0: none) on comm, named fn in log
 * lines: checks the tag (range, communicator size, not held by a live plan
 * of this rank: LINCOLL_ERR_BUSY) and opens comm's scope, so that every
 * plan bound until lc_optag_leave takes the tag.  *nested is set when there
 * is nothing to close (no tag, or a scope already open). */
lincoll_status_t lc_optag_enter(lincoll_comm_t *comm, uint64_t tag, const char *fn, int *nested);
/* End the scope; a plan bound with the tag (st OK) joins the live list. */
void lc_optag_leave(lincoll_comm_t *comm, int nested, lincoll_status_t st, lincoll_plan_t *plan);
/* Drop a freed plan from the live list. */
void lc_optag_forget(lincoll_plan_t *plan);
/* Open the scope of lincoll's own tagged exchanges (tag 0 of the tagged
 * space: an agreed group's exchange on its parent); lc_optag_close ends it. */
void lc_optag_internal(lincoll_comm_t *comm);
void lc_optag_close(lincoll_comm_t *comm);

/* ---- device work (exec_dev.c) ---------------------------------------------- */
/* Stream, device and page-locked scratch blocks, GF tables of a plan with
 * device memory. */
lincoll_status_t lc_exec_dev_bind(lincoll_plan_t *plan, size_t dev_bytes, size_t pin_bytes);
void *lc_exec_dev_mem(lincoll_plan_t *plan, int pinned);
void lc_exec_dev_free(lincoll_plan_t *plan);
lincoll_status_t lc_exec_dev_memset(lincoll_plan_t *plan, void *dst, size_t n);
/* Enqueue a device step; wait for (sync) or look at (poll: LINCOLL_INPROGRESS
 * while it runs) what was enqueued; a copy done at once (puts). */
lincoll_status_t lc_exec_dev_step(lincoll_plan_t *plan, const lc_step_t *step);
lincoll_status_t lc_exec_dev_wait(lincoll_plan_t *plan);
lincoll_status_t lc_exec_dev_poll(lincoll_plan_t *plan);
lincoll_status_t lc_exec_dev_copy_now(lincoll_plan_t *plan, void *dst, const void *src, size_t n);

/* Memory of a reference in a bound plan (this start's, for ring slots). */
static inline void *lc_exec_ptr(const lincoll_plan_t *plan, lc_bufref_t ref)
{
    return plan->sptr[ref.slot] + ref.off;
}

/* The environment compilers see for comm (mapped: what the caller knows). */
lc_env_t lc_exec_env(const lincoll_comm_t *comm, int mapped);
/* Every peer of comm can be mapped here (same host, shared memory) and the
 * context can agree at init (a real bootstrap): zero-copy candidates apply.
 * The same on every rank of comm. */
int lc_exec_can_map(const lincoll_comm_t *comm);

/* Allgather of len bytes per rank over comm (blocking, through the transport). */
lincoll_status_t lc_comm_allgather_bytes(lincoll_comm_t *comm, const void *in, void *out,
                                         size_t len);
/* The same among n members of comm only, each block sent directly
 * (members[i]: comm ranks, in the order of out's blocks; the caller among
 * them). */
lincoll_status_t lc_comm_exchange_among(lincoll_comm_t *comm, const int *members, int n,
                                        const void *in, void *out, size_t len);
/* Every rank's status of a step (one allgather): LINCOLL_OK where every
 * rank's was, else the first failed rank's status, on every rank alike (the
 * ranks whose own step went well log one line naming `what` and that rank),
 * or the allgather's own failure. */
lincoll_status_t lc_comm_agree_status(lincoll_comm_t *comm, lincoll_status_t st, const char *what);
/* The same verdict from statuses already gathered (all[i]: rank i's). */
lincoll_status_t lc_status_verdict(const int32_t *all, int P, int me, const char *what);

#endif
