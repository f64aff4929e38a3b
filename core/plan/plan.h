/*
 * core/plan/plan.h: the plan IR every algorithm compiles to, its builder,
 * its checks, its static cost and its passes (docs/architecture.md, "The
 * plan IR").
 *
 * A plan is pure data, made by a pure function of (environment, arguments):
 * the compilers in core/coll, core/encode and core/matmul call only this
 * builder; they never touch a communicator, a transport, a window or the
 * executor.  The executor layer (core/exec) binds a plan to a communicator
 * (allocates scratch, creates the declared windows, resolves peer views),
 * lowers it and runs it.
 *
 * What a plan holds:
 *  - rounds: up to p sends and p receives (the multi-port model) plus puts
 *    and waits on windows, and typed compute steps that run before the
 *    round's transfers (PRE: prepare what is sent), while they fly (DURING)
 *    or after them (POST: fold what arrived).  A round may run only on every
 *    n-th start (credit batching of ring buffers).  Rounds are global: a
 *    message sent in round r is received in round r.
 *  - slots: buffers the steps and transfers address — user buffers bound at
 *    init, scratch the plan owns (allocated at bind, optionally zeroed), and
 *    peer views (a peer's mapped window, resolved at bind).  A slot may be
 *    rotated through a ring region (depth, stride): start s uses
 *    base + (s mod depth) * stride.
 *  - windows: declared resources (a user slot's memory, or scratch the
 *    transport allocates) that bind creates collectively; each has a key so
 *    bind can match it with the peers' records.
 *  - PUT (RMA into a peer's window, then +1 on the peer's signal counter for
 *    this rank; a 0-byte put is a SIGNAL) and WAIT (until `count` more
 *    signals from a peer arrived; initial credits are declared per window and
 *    peer) are first-class transfers.
 */
#ifndef LC_PLAN_H
#define LC_PLAN_H

#include <lincoll/plan.h>
#include <lincoll/types.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/config.h"
#include "core/base/memtype.h"

/* Rounds a plan may have: the tag's round field (transports/transport.h). */
#define LC_PLAN_MAX_ROUNDS 65535u

/* What a compiler may know: everything here is the same kind of fact on
 * every rank (P, ports, the configuration) or this rank's position. */
typedef struct lc_env {
    int P;                  /* ranks of the communicator */
    int rank;               /* this rank */
    int ports;              /* the context's ports (a plan may ask for more, e.g. P - 1) */
    int mapped;             /* every peer's windows will be mapped here (zero copy) */
    const lc_config_t *cfg; /* model constants, thresholds (read only) */
    /* memory types (docs/accelerators.md): the type (LC_MEM_*) of a user
     * buffer (NULL: host memory), whether device steps can run here, and
     * whether the transport moves device memory itself (else the device
     * pass stages transfers through page-locked host buffers) */
    int (*mem_type)(const void *ptr, size_t len);
    int dev;
    int tl_dev;
} lc_env_t;

/* A position in a buffer slot. */
typedef struct lc_bufref {
    uint32_t slot;
    size_t off;
} lc_bufref_t;

typedef enum lc_xfer_kind {
    LC_XFER_SEND = 0,
    LC_XFER_RECV,
    LC_XFER_PUT,  /* RMA into the peer's window at roff, then signal (len 0: a signal) */
    LC_XFER_WAIT, /* wait until `count` more signals from the peer have arrived */
} lc_xfer_kind_t;

typedef struct lc_xfer {
    lc_xfer_kind_t kind;
    uint16_t port;
    int peer;        /* communicator rank */
    lc_bufref_t buf; /* SEND/PUT source, RECV destination, WAIT: where the data lands */
    size_t len;      /* bytes */
    int win;         /* PUT/WAIT: window index */
    size_t roff;     /* PUT: offset in the peer's window */
    unsigned ring;   /* PUT: roff rotates with this ring region (0: none) */
    unsigned count;  /* WAIT: signals to wait for (>= 1) */
} lc_xfer_t;

typedef enum lc_step_kind {
    LC_STEP_COPY = 0,   /* dst <- src, len bytes */
    LC_STEP_REDUCE,     /* dst <- a (op) b, count elements of dtype */
    LC_STEP_GF_LINCOMB, /* dsts[r] <- sum_j coeffs[r][j] * srcs[j] */
    LC_STEP_GF_MAD,     /* dsts[r] += coeffs[r] * srcs[0] */
    LC_STEP_GEMM,       /* C <- alpha A B + beta C */
    LC_STEP_CRC_MAKE,   /* dst (uint32) <- crc32c of a, len bytes */
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
    int dev;  /* runs on the device (set by the device pass: its operands are device memory) */
    /* model inputs: bytes the step processes (at 1/gamma; a COPY through a
     * peer view moves them at 1/beta) and floating-point operations (GEMM) */
    double work, flops;
    /* GF and GEMM steps keep their operands in a plan-owned block (freed with free()) */
    void *ext;
} lc_step_t;

typedef struct lc_round {
    lc_xfer_t *xfers;
    unsigned nxfers, cap_xfers;
    lc_step_t *pre, *post, *during;
    unsigned npre, npost, cap_pre, cap_post, nduring, cap_during;
    unsigned every, phase; /* runs on starts s with s % every == phase (every >= 1) */
    int prepost;           /* receives may be posted while the previous round runs */
} lc_round_t;

enum { LC_SLOT_USER = 0, LC_SLOT_SCRATCH = 1, LC_SLOT_PEER = 2 };

typedef struct lc_slot {
    int kind;
    void *ptr;     /* USER: the buffer */
    size_t size;   /* bytes the plan may address */
    int zero;      /* SCRATCH: zeroed once at bind */
    int win, peer; /* PEER: window and peer (this rank: its own window) */
    size_t off;    /* PEER: offset in the peer's window */
    unsigned ring; /* rotates with this ring region (0: none) */
    int mtype;     /* LC_MEM_*: USER from env.mem_type, SCRATCH and PEER from the device pass */
} lc_slot_t;

enum { LC_WIN_USER = 0, LC_WIN_SCRATCH = 1 };

/* A window the plan declares; bind creates it over the communicator. */
typedef struct lc_win_decl {
    int kind;   /* USER: over slot's memory; SCRATCH: transport-allocated */
    int slot;   /* USER */
    size_t len; /* bytes of this rank's window */
    int key;    /* identifies it in the peers' bind records (same on every rank) */
    int mtype;  /* LC_MEM_*: device windows are shared through IPC (the device pass) */
} lc_win_decl_t;

typedef struct lc_credit {
    int win, peer;
    unsigned n; /* signals from peer counted as arrived before the first start */
} lc_credit_t;

typedef struct lc_ring {
    unsigned depth;
    size_t stride;
} lc_ring_t;

/* The IR. */
typedef struct lc_plan {
    char algorithm[32];
    lc_env_t env;
    int ports;
    lc_round_t *rounds;
    unsigned nrounds, cap_rounds;
    lc_slot_t *slots;
    unsigned nslots, cap_slots;
    lc_win_decl_t *wins;
    unsigned nwins, cap_wins;
    lc_credit_t *credits;
    unsigned ncredits, cap_credits;
    lc_ring_t *rings; /* rings[0] unused: ring 0 means none */
    unsigned nrings, cap_rings;
    lincoll_plan_stats_t stats; /* computed by lc_plan_finalize from the IR alone */
    size_t elem_size;           /* for C2 in elements (1 = bytes) */
    /* point-to-point plan: tags carry the point-to-point bit and p2p_tag
     * instead of the communicator's collective sequence */
    int p2p;
    unsigned p2p_tag;
    /* the round field of a point-to-point plan's tags counts from here: the
     * control messages of lincoll_comm_shrink use LC_TAG_CTRL_ROUND and
     * above, rounds no user point-to-point plan (at most 2 rounds) reaches */
    unsigned tag_round0;
    int finalized;
    int dev_done; /* the device pass ran (lc_pass_device) */
    int has_dev;  /* some slot is device memory */
    /* algorithm-owned data freed with the plan (coefficients, GF tables, ...) */
    void (*priv_free)(void *);
    void *priv;
} lc_plan_t;

/* ---- builder ------------------------------------------------------------- */
lincoll_status_t lc_plan_create(const lc_env_t *env, const char *algorithm, int ports,
                                lc_plan_t **plan_p);
void lc_plan_destroy(lc_plan_t *plan);
void lc_plan_rename(lc_plan_t *plan, const char *algorithm);
/* Bind a user buffer (may be NULL when size is 0); returns the slot index (-1: no memory). */
int lc_plan_slot_user(lc_plan_t *plan, void *ptr, size_t size);
/* Scratch owned by the plan (allocated at bind); returns the slot index. */
int lc_plan_slot_scratch(lc_plan_t *plan, size_t size);
/* Scratch that reads as zero until the plan writes it (zeroed once at bind). */
int lc_plan_slot_zero(lc_plan_t *plan, size_t size);
/* A view of size bytes at off in peer's window win (peer = this rank: its own). */
int lc_plan_slot_peer(lc_plan_t *plan, int win, int peer, size_t off, size_t size);
/* Windows: over a user slot's memory, or transport-allocated scratch of len
 * bytes on this rank; returns the window index (-1: no memory). */
int lc_plan_win_user(lc_plan_t *plan, int key, int slot);
int lc_plan_win_scratch(lc_plan_t *plan, int key, size_t len);
/* Signals from peer on win counted as arrived before the first start. */
lincoll_status_t lc_plan_credit(lc_plan_t *plan, int win, int peer, unsigned n);
/* A ring region of depth slots of stride bytes; returns its id (>= 1) or 0. */
unsigned lc_plan_ring(lc_plan_t *plan, unsigned depth, size_t stride);
/* Rotate slot with ring (its size must fit one ring stride). */
lincoll_status_t lc_plan_slot_ring(lc_plan_t *plan, int slot, unsigned ring);
/* Append a round; returns its index (or -1). */
int lc_plan_round(lc_plan_t *plan);
/* Make sure rounds 0..idx exist; returns idx or -1. */
int lc_plan_rounds_upto(lc_plan_t *plan, int idx);
/* Round runs only on starts s with s % every == phase. */
lincoll_status_t lc_plan_round_every(lc_plan_t *plan, int round, unsigned every, unsigned phase);
lincoll_status_t lc_plan_send(lc_plan_t *plan, int round, int peer, lc_bufref_t src, size_t len);
lincoll_status_t lc_plan_recv(lc_plan_t *plan, int round, int peer, lc_bufref_t dst, size_t len);
/* Put len bytes of src at roff (rotated with ring, 0: none) in peer's window
 * win, then signal; len 0 is a signal alone. */
lincoll_status_t lc_plan_put(lc_plan_t *plan, int round, int peer, lc_bufref_t src, size_t len,
                             int win, size_t roff, unsigned ring);
lincoll_status_t lc_plan_signal(lc_plan_t *plan, int round, int peer, int win);
/* Wait for count signals from peer on win; `at`/len: where its data lands
 * (len 0 for a flag), for the checksum pass and the stats. */
lincoll_status_t lc_plan_wait(lc_plan_t *plan, int round, int peer, int win, unsigned count,
                              lc_bufref_t at, size_t len);
lincoll_status_t lc_plan_copy(lc_plan_t *plan, int round, int when, lc_bufref_t dst,
                              lc_bufref_t src, size_t len);
lincoll_status_t lc_plan_reduce(lc_plan_t *plan, int round, int when, lc_bufref_t dst,
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
/* Append a step built by the caller (GF, GEMM, CRC; step->work and ->flops
 * set); the plan takes ownership of ext (also when this fails). */
lincoll_status_t lc_plan_step(lc_plan_t *plan, int round, int when, const lc_step_t *step);
/* Check the port limits and the operands, compute the stats, dump. */
lincoll_status_t lc_plan_finalize(lc_plan_t *plan);

/* Bytes a step addresses through its dst/a/b references (REDUCE: count * size). */
size_t lc_step_bytes(const lc_step_t *s);

static inline lc_bufref_t lc_ref(int slot, size_t off)
{
    lc_bufref_t r = {(uint32_t)slot, off};
    return r;
}

/* ---- passes (core/plan/pass_*.c): plans in, plans out ---------------------- */
/* crc32c on every message and put: each round with transfers is followed by
 * a checksum round (call before lc_plan_finalize). */
lincoll_status_t lc_pass_checksum(lc_plan_t *plan);
/* Chunk pipelining: n plans of identical structure (the same algorithm
 * compiled on n pieces of the data) merged round-major, each piece's
 * compute moved beside another piece's transfers.  Takes the plans (freed,
 * the first one's priv kept); the result is not finalized. */
lincoll_status_t lc_pass_pipeline(lc_plan_t **pieces, unsigned n, lc_plan_t **out_p);
/* The same pieces merged as a wavefront: round t of piece c in round t + c
 * (T + n - 1 rounds), steps kept in their round and phase.  For schedules
 * in which no rank sends or receives in more template rounds than it has
 * ports (a chain), so the merged rounds keep the port limit. */
lincoll_status_t lc_pass_wavefront(lc_plan_t **pieces, unsigned n, lc_plan_t **out_p);

/* Memory types (core/plan/pass_device.c): type the scratch slots, views and
 * windows from the user buffers, mark the steps that run on the device,
 * refuse what the device cannot do (LINCOLL_ERR_UNSUPPORTED, logged), and,
 * unless the transport takes device memory, stage every message from or
 * into device memory through a page-locked host slot (a COPY before the send,
 * after the receive).  Runs once; lc_plan_finalize and lc_pass_pipeline
 * (on each piece, so the copies of one piece overlap another's transfers)
 * call it.  A plan without device memory is left as it is. */
lincoll_status_t lc_pass_device(lc_plan_t *plan);
/* The piece size (bytes, a multiple of quantum, >= min_piece unless it is
 * all of them) every rank chooses alike for a plan of T rounds over `bytes`
 * bytes; bytes itself means: do not cut. */
size_t lc_pipeline_piece(const lc_config_t *cfg, unsigned T, size_t bytes, size_t min_piece,
                         size_t quantum, unsigned max_pieces);
/* The predicted seconds of one start of a finalized plan (the stats' model). */
double lc_plan_predict(const lc_plan_t *plan);

/* The IR of a bound plan (its stats, name, priv), for the families' public
 * queries (lincoll_encode_chunks, lincoll_matmul_info); core/exec defines it. */
const lc_plan_t *lc_plan_of(const lincoll_plan_t *plan);

/* ---- text dump (LINCOLL_PLAN_DUMP=1, lincoll_plan_dump) -------------------- */
void lc_plan_dump_text(const lc_plan_t *plan, char *buf, size_t len);

#endif
