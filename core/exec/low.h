/*
 * core/exec/low.h: a bound plan lowered for the executor (lower.c builds
 * it, exec.c runs it).
 *
 * Each round's transfers are ready to post: world peer, local memory (the
 * base of ring position 0 plus this start's ring offset), length, tag
 * without the sequence bits; puts know whether the peer is mapped here
 * (then a put is a store, a fence and an atomic add) and waits hold the
 * counter they watch.  Order in a round: receives, then sends and puts,
 * then waits (x[0 .. nrecv) receives, x[nrecv .. nout) outgoing,
 * x[nout .. n) waits).  A round of small messages only (send_first: each
 * at most LC_LX_SEND_FIRST_MAX bytes) posts its sends before its receives:
 * an eager send leaves at once, and a small message that lands before its
 * receive costs one short copy, less than the send's wait behind a post.
 */
#ifndef LC_EXEC_LOW_H
#define LC_EXEC_LOW_H

#include "core/exec/exec.h"

enum { LC_LX_RECV = 0, LC_LX_SEND, LC_LX_PUT, LC_LX_WAIT };
/* largest message of a round whose sends are posted before its receives */
#define LC_LX_SEND_FIRST_MAX 1024
/* reqs[i] of a wait that has not seen its signals yet */
#define LC_WAIT_PENDING ((lc_tl_req_t *)(uintptr_t)1)

typedef struct lc_lx {
    uint8_t kind;
    uint8_t mapped; /* PUT/WAIT: the peer's memory is mapped here */
    uint8_t dev;    /* PUT: a device copy (device source or window) */
    uint16_t ring;  /* local buffer rotates with this ring (0: none) */
    int wpeer;      /* world rank (SEND/RECV: with its lane, transports/transport.h) */
    int peer;       /* communicator rank (log lines) */
    char *ptr;      /* local memory at ring position 0 */
    size_t len;
    uint64_t tag; /* SEND/RECV: without the sequence bits; PUT: the round (accounting) */
    /* PUT */
    uint16_t rring; /* the remote offset rotates with this ring */
    size_t roff;
    lc_win_t *win;
    char *mdata;    /* mapped: the peer's window */
    uint64_t *msig; /* mapped: this rank's counter in the peer's window */
    /* WAIT */
    volatile uint64_t *sig; /* the counter of this peer in this rank's window */
    uint64_t *consumed;
    unsigned count;
} lc_lx_t;

typedef struct lc_lround {
    lc_lx_t *x;
    unsigned nrecv, nout, n;
    const lc_step_t *pre, *during, *post;
    unsigned npre, nduring, npost;
    unsigned every, phase;
    int empty;        /* nothing to do on this rank */
    int plain;        /* transfers only, on every start: posted without the general entry */
    int msgs;         /* plain, sends and receives only, no ring, no triggered send */
    int prepost_next; /* the next round's receives are posted with this round's */
    int send_first;   /* msgs, every message <= LC_LX_SEND_FIRST_MAX: sends posted first */
    /* chain: this round is one receive and the next round's one send leaves
     * from the transport the moment it completes (then.tag gets the start's
     * sequence); sent_by_chain: this round's send went that way when the
     * previous round's `then` fired */
    int chain, sent_by_chain;
    lc_tl_chain_t then;
} lc_lround_t;

struct lc_low {
    lc_lround_t *r; /* nrounds + 1 (the last one empty, so r[i + 1] is always readable) */
    unsigned nrounds;
    unsigned maxx; /* most transfers in one round */
    lc_lx_t *xs;   /* every round's transfers */
    unsigned nring_slots;
    unsigned *ring_slots; /* slots that rotate */
    int has_rings;
};

#endif
