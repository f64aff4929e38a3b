/*
 * core/plan/plan.h: the plan every algorithm compiles to, and its builder.
 *
 * A plan is data: rounds; each round holds up to p sends and p receives (the
 * multi-port model) plus puts and signal waits, and typed compute steps that
 * run before the round's transfers (PRE: prepare what is sent) or after them
 * (POST: fold what arrived).  Buffers are slots: user buffers bound at init
 * and scratch the plan owns (allocated once, in registered memory).
 *
 * Algorithms (core/coll, core/encode, core/matmul) only call the builder;
 * they never touch the executor or a transport.
 */
#ifndef LC_PLAN_H
#define LC_PLAN_H

#include <lincoll/plan.h>
#include <lincoll/types.h>
#include <stdint.h>

#include "core/context/context.h"

typedef struct lc_win lc_win_t;

/* A position in a buffer slot. */
typedef struct lc_bufref {
    uint32_t slot;
    size_t off;
} lc_bufref_t;

typedef enum lc_xfer_kind {
    LC_XFER_SEND = 0,
    LC_XFER_RECV,
    LC_XFER_PUT,      /* RMA into the peer's window + signal */
    LC_XFER_WAIT_PUT, /* wait for a peer's signalled put into my window */
} lc_xfer_kind_t;

typedef struct lc_xfer {
    lc_xfer_kind_t kind;
    uint16_t port;
    int peer;        /* communicator rank */
    lc_bufref_t buf; /* SEND/PUT source, RECV destination */
    size_t len;      /* bytes */
    lc_win_t *win;   /* PUT/WAIT_PUT: window */
    size_t roff;     /* PUT: offset in the peer's window */
} lc_xfer_t;

typedef enum lc_step_kind {
    LC_STEP_COPY = 0,   /* dst <- src, len bytes */
    LC_STEP_REDUCE,     /* dst <- a (op) b, count elements of dtype */
    LC_STEP_GF_LINCOMB, /* dsts[r] <- sum_j coeffs[r][j] * srcs[j] */
    LC_STEP_GF_MAD,     /* dsts[r] += coeffs[r] * srcs[0] */
    LC_STEP_GEMM,       /* C <- alpha A B + beta C (row-major) */
    LC_STEP_CRC_MAKE,   /* dst (uint32) <- crc32c of a, len bytes (core/exec/steps_crc.c) */
    LC_STEP_CRC_CHECK,  /* crc32c of a, len bytes, must equal b (uint32): else CORRUPT */
} lc_step_kind_t;

typedef struct lc_step {
    lc_step_kind_t kind;
    lc_bufref_t dst;
    lc_bufref_t a; /* COPY src, REDUCE left operand (may equal dst) */
    lc_bufref_t b; /* REDUCE right operand */
    size_t len;    /* COPY bytes; REDUCE elements */
    lincoll_dtype_t dtype;
    lincoll_op_t op;
    int peer; /* CRC_CHECK: the rank the checked message came from (log line) */
    /* GF and GEMM steps keep their operands in a plan-owned block */
    void *ext;
} lc_step_t;

typedef struct lc_round {
    lc_xfer_t *xfers;
    unsigned nxfers, cap_xfers;
    lc_step_t *pre, *post, *during;
    unsigned npre, npost, cap_pre, cap_post, nduring, cap_during;
    int prepost; /* receives may be posted while the previous round runs */
} lc_round_t;

enum { LC_SLOT_USER = 0, LC_SLOT_SCRATCH = 1 };

typedef struct lc_slot {
    int kind;
    void *ptr;
    size_t size;
} lc_slot_t;

/* Executor state of a running plan. */
typedef struct lc_exec_state {
    int running;
    lincoll_status_t status;
    unsigned round;
    int posted;
    unsigned seq;       /* tag sequence of this start */
    lc_tl_req_t **reqs; /* one per xfer of the current round */
    unsigned nreqs;
    lc_tl_req_t **next_reqs; /* receives of round `round + 1` posted early */
    int next_posted;
    double deadline; /* lc_now() limit for the current round */
    unsigned long starts;
} lc_exec_state_t;

struct lincoll_plan {
    lincoll_comm_t *comm;
    lincoll_context_t *ctx;
    char algorithm[32];
    int ports;
    lc_round_t *rounds;
    unsigned nrounds, cap_rounds;
    lc_slot_t *slots;
    unsigned nslots, cap_slots;
    void *scratch_mem; /* one block for all scratch slots */
    size_t scratch_bytes;
    lincoll_plan_stats_t stats;
    size_t elem_size;     /* for C2 in elements (1 = bytes) */
    double compute_bytes; /* model input: bytes processed by steps */
    double moved_bytes;   /* model input: bytes zero-copy steps move between ranks' memory
                           * (copies through mapped windows, counted at 1/beta) */
    double compute_flops; /* model input: floating-point operations of GEMM steps */
    lc_exec_state_t ex;
    int finalized;
    /* point-to-point plan: tags carry LC_TAG_P2P and p2p_tag instead of the
     * communicator's collective sequence, which its starts leave alone */
    int p2p;
    unsigned p2p_tag;
    /* algorithm-owned data freed with the plan (coefficients, GF tables, ...) */
    void (*priv_free)(void *);
    void *priv;
    lincoll_status_t (*on_start)(lincoll_plan_t *plan); /* optional per-start hook */
    lc_win_t **wins;                                    /* windows the plan owns */
    unsigned nwins;
};

/* ---- builder ------------------------------------------------------------- */
lincoll_status_t lc_plan_create(lincoll_comm_t *comm, const char *algorithm, int ports,
                                lincoll_plan_t **plan_p);
/* Bind a user buffer (may be NULL when size is 0); returns the slot index. */
int lc_plan_slot_user(lincoll_plan_t *plan, void *ptr, size_t size);
/* Scratch owned by the plan, allocated at finalize; returns the slot index. */
int lc_plan_slot_scratch(lincoll_plan_t *plan, size_t size);
/* Append a round; returns its index (or -1 when out of memory). */
int lc_plan_round(lincoll_plan_t *plan);
lincoll_status_t lc_plan_send(lincoll_plan_t *plan, int round, int peer, lc_bufref_t src,
                              size_t len);
lincoll_status_t lc_plan_recv(lincoll_plan_t *plan, int round, int peer, lc_bufref_t dst,
                              size_t len);
lincoll_status_t lc_plan_copy(lincoll_plan_t *plan, int round, int post, lc_bufref_t dst,
                              lc_bufref_t src, size_t len);
lincoll_status_t lc_plan_reduce(lincoll_plan_t *plan, int round, int post, lc_bufref_t dst,
                                lc_bufref_t a, lc_bufref_t b, size_t count, lincoll_dtype_t dtype,
                                lincoll_op_t op);
/* When a step runs within its round. */
enum {
    LC_STEP_PRE = 0,    /* before the round's transfers are posted (prepare what is sent) */
    LC_STEP_POST = 1,   /* after they complete (fold what arrived) */
    LC_STEP_DURING = 2, /* while they are in flight: the step must not touch the round's
                         * receive buffers nor write its send buffers (checked at finalize
                         * for steps whose operands the plan can see) */
};
/* Append a step built by the caller (GF, GEMM); the plan takes ownership of ext.
 * `post` is LC_STEP_PRE, LC_STEP_POST or LC_STEP_DURING. */
lincoll_status_t lc_plan_step(lincoll_plan_t *plan, int round, int post, const lc_step_t *step);
/* Check the port limits, allocate scratch, compute static stats, dump. */
lincoll_status_t lc_plan_finalize(lincoll_plan_t *plan);
void lc_plan_destroy(lincoll_plan_t *plan);
/* Checksum every tag message (core/plan/plan_checksum.c; call before
 * lc_plan_finalize): a crc32c round follows each round with transfers and a
 * corrupted message ends the plan with LINCOLL_ERR_CORRUPT. */
lincoll_status_t lc_plan_checksum(lincoll_plan_t *plan);

static inline lc_bufref_t lc_ref(int slot, size_t off)
{
    lc_bufref_t r = {(uint32_t)slot, off};
    return r;
}

static inline void *lc_plan_ptr(const lincoll_plan_t *plan, lc_bufref_t ref)
{
    return (char *)plan->slots[ref.slot].ptr + ref.off;
}

/* ---- executor (core/exec) -------------------------------------------------- */
lincoll_status_t lc_exec_start(lincoll_plan_t *plan);
lincoll_status_t lc_exec_test(lincoll_plan_t *plan);
void lc_exec_cancel(lincoll_plan_t *plan);

/* Run a blocking internal operation (split, barrier) to completion. */
lincoll_status_t lc_plan_run(lincoll_plan_t *plan);

/* Text dump (LINCOLL_PLAN_DUMP=1). */
void lc_plan_dump_text(const lincoll_plan_t *plan, char *buf, size_t len);

#endif
