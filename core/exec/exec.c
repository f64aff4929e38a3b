/*
 * core/exec/exec.c: the one executor every plan runs on.
 *
 * Non-blocking state machine per plan: for each round, run its PRE compute
 * steps, post all of its transfers at once (receives first, so eager data
 * lands in place; at most p sends and p receives, checked when the plan was
 * finalized), poll them, then run its POST steps and move on.  Each test()
 * call drives the transport a bounded number of times and returns.
 *
 * Failure: a transport error on any transfer, a peer the transport reports
 * dead, or no round completing within LINCOLL_TIMEOUT ends the plan with that
 * error; its outstanding requests are released (receives canceled) so a plan
 * that failed can be freed at once.  Messages shorter or longer than the
 * plan expects mean the ranks disagree on the arguments: LINCOLL_ERR_MISMATCH.
 *
 * Fast path: a plan made only of sends and receives (no compute steps, no
 * puts, no per-start hook: sendrecv, ring shift, the p2p benchmarks) is
 * flattened once, at its first start, into ready-to-post transfers (world
 * peer, buffer, length, tag without the sequence bits; receives first), so a
 * start allocates nothing and computes no tag.  The start itself posts
 * round 0 (as MPI_Start does; a failure to post ends the plan, and test/wait
 * return it), and test() posts each next round as soon as the previous one
 * completed: a round's receives, its sends, then the next round's receives
 * when the plan allows it (the order ucx_perftest uses for a ping-pong: the
 * reply's receive is posted while the request flies).  Requests are tested
 * right after posting (immediate completion) and then only when the
 * transport reports activity (or after a batch of idle progress calls); the
 * general path's timeout, peer-failure and size checks stay.
 *
 * Triggered sends: when a round is a single receive and the next round has
 * exactly one send, the receive is posted with the transport's recv_chain_nb
 * (if it has one), which posts that send from its completion path the
 * moment the message lands — a ping-pong's reply or a pipeline's forward
 * leaves without waiting for the transport's progress call to return and
 * for the next test().  The next round takes the send's request from the
 * chain instead of posting it; a receive that fails, is short, or is
 * canceled fires nothing, and a fired send whose round never finished is
 * released with the plan's other requests.
 *
 * Tags: (comm id, start sequence, sender's comm rank, round) — see
 * transports/transport.h.  Every start of a collective plan takes the
 * communicator's next sequence number, so collective plans must be started
 * in the same order on every rank of a communicator (as with MPI persistent
 * collectives).  Point-to-point plans (lincoll_sendrecv_init) carry the
 * point-to-point bit and their own tag instead and leave the sequence alone:
 * a subset of ranks talking point to point never shifts the tags of the
 * communicator's next collective.
 */
#include "core/plan/plan.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/context/win.h"
#include "core/exec/steps.h"

#define LC_EXEC_POLLS 16
/* reqs[i] of a WAIT_PUT transfer that has not seen its signal yet */
#define LC_WAIT_PENDING ((lc_tl_req_t *)(uintptr_t)1)
/* progress calls per test() on the fast path before it returns INPROGRESS */
#define LC_EXEC_FAST_SPINS 32

/* One transfer of a send/receive-only plan, ready to post. */
typedef struct lc_exec_xf {
    void *ptr;
    size_t len;
    uint64_t tag; /* sequence bits zero: the start's sequence is ORed in */
    int wpeer;    /* world rank */
    int peer;     /* communicator rank (for messages) */
    int recv;
} lc_exec_xf_t;

/* What the executor computes once, at a plan's first start.  It heads the
 * block p->ex.next_reqs points to, which the plan frees (plan.h unchanged):
 *   [lc_exec_cache_t][next-round request slots][first[nrounds + 1]][xf[]]
 * so p->ex.next_reqs is only used through lc_exec_cache(). */
/* One round of the fast path: its transfers (receives first) in xf[]. */
typedef struct lc_exec_fround {
    const lc_exec_xf_t *xf;
    unsigned nrecv;   /* xf[0 .. nrecv) are receives */
    unsigned n;       /* then sends up to n */
    int prepost_next; /* the next round's receives may be posted with this round */
    /* chain: this round is one receive and the next round's one send leaves
     * from the transport the moment it completes (lc_tl_chain_t; then.tag
     * gets the start's sequence).  sent_by_chain: this round's send was
     * posted that way, if then of the round before fired. */
    int chain;
    int sent_by_chain;
    lc_tl_chain_t then;
} lc_exec_fround_t;

typedef struct lc_exec_cache {
    unsigned maxx;        /* most transfers in one round */
    int fast;             /* sends and receives only: the fast path */
    uint64_t seqbits;     /* fast: this start's sequence, placed in the tag */
    lc_tl_req_t **next;   /* receives of round `round + 1` posted early */
    unsigned *first;      /* fast: index in xf of round r's first transfer */
    lc_exec_xf_t *xf;     /* fast: each round's receives, then its sends */
    lc_exec_fround_t *fr; /* fast: one per round */
} lc_exec_cache_t;

static inline lc_exec_cache_t *lc_exec_cache(const lincoll_plan_t *p)
{
    return (lc_exec_cache_t *)(void *)p->ex.next_reqs;
}

static uint64_t lc_exec_tag(const lincoll_plan_t *p, int src, unsigned round)
{
    return lc_tag_make(p->comm->id, p->ex.seq, (unsigned)src, round) | (p->p2p ? LC_TAG_P2P : 0);
}

static void lc_exec_release_all(lincoll_plan_t *p)
{
    lincoll_context_t *ctx = p->ctx;
    lc_exec_cache_t *c = lc_exec_cache(p);
    if (c != NULL && c->fast && c->fr[p->ex.round].chain && c->fr[p->ex.round].then.fired) {
        /* the receive completed and its triggered send left, but the
         * round was not finished: nobody else holds the send's request */
        lc_tl_chain_t *t = &c->fr[p->ex.round].then;
        t->fired = 0;
        if (t->req != NULL) {
            ctx->tl_ops->release(ctx->tl, t->req);
            t->req = NULL;
        }
    }
    for (unsigned i = 0; i < p->ex.nreqs; i++) {
        if (p->ex.reqs[i] != NULL && p->ex.reqs[i] != LC_WAIT_PENDING) {
            ctx->tl_ops->release(ctx->tl, p->ex.reqs[i]);
            p->ex.reqs[i] = NULL;
        }
    }
    p->ex.nreqs = 0;
    if (p->ex.next_posted) {
        lc_tl_req_t **next = lc_exec_cache(p)->next;
        const lc_round_t *N = &p->rounds[p->ex.round + 1];
        for (unsigned i = 0; i < N->nxfers; i++) {
            if (next[i] != NULL) {
                ctx->tl_ops->release(ctx->tl, next[i]);
                next[i] = NULL;
            }
        }
        p->ex.next_posted = 0;
    }
}

static lincoll_status_t lc_exec_fail(lincoll_plan_t *p, lincoll_status_t st, const char *why,
                                     int peer)
{
    char with[32] = "";
    if (peer >= 0) {
        snprintf(with, sizeof(with), " with rank %d", peer);
    }
    lc_error("plan %s (comm %u, start %lu): round %u: %s%s: %s", p->algorithm, p->comm->id,
             p->ex.starts, p->ex.round, why, with, lincoll_strerror(st));
    lc_exec_release_all(p);
    p->ex.running = 0;
    p->ex.status = st;
    return st;
}

/* The timeout clock is armed lazily, the first time a round is found stuck
 * after a batch of polls, so the fast path reads no clock at all. */
static void lc_exec_deadline(lincoll_plan_t *p)
{
    p->ex.deadline = 0;
}

static lincoll_status_t lc_exec_steps(lincoll_plan_t *p, const lc_step_t *steps, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        lincoll_status_t st = lc_step_run(p, &steps[i]);
        if (st != LINCOLL_OK) {
            return st;
        }
    }
    return LINCOLL_OK;
}

/* Post the receives of round r+1 now (the plan marked it safe). */
static lincoll_status_t lc_exec_prepost_next(lincoll_plan_t *p)
{
    lincoll_context_t *ctx = p->ctx;
    unsigned next = p->ex.round + 1;
    lc_round_t *N = &p->rounds[next];
    lc_tl_req_t **reqs = lc_exec_cache(p)->next;
    p->ex.next_posted = 1; /* so that a failure releases what was posted */
    for (unsigned i = 0; i < N->nxfers; i++) {
        lc_xfer_t *x = &N->xfers[i];
        reqs[i] = NULL;
        if (x->kind != LC_XFER_RECV) continue;
        lincoll_status_t st =
            ctx->tl_ops->recv_nb(ctx->tl, p->comm->to_world[x->peer], lc_plan_ptr(p, x->buf),
                                 x->len, lc_exec_tag(p, x->peer, next), &reqs[i]);
        if (st != LINCOLL_OK) {
            return lc_exec_fail(p, st, "posting a receive early", x->peer);
        }
    }
    return LINCOLL_OK;
}

static lincoll_status_t lc_exec_post_round(lincoll_plan_t *p)
{
    lincoll_context_t *ctx = p->ctx;
    lc_round_t *R = &p->rounds[p->ex.round];
    lincoll_comm_t *comm = p->comm;
    int preposted = p->ex.next_posted; /* posted while the previous round ran */
    p->ex.next_posted = 0;
    p->ex.nreqs = R->nxfers;
    /* receives first, then sends and puts (a second pass only when the
     * first one met any) */
    unsigned nsend = 0;
    for (int pass = 0; pass < 2 && (pass == 0 || nsend > 0); pass++) {
        for (unsigned i = 0; i < R->nxfers; i++) {
            lc_xfer_t *x = &R->xfers[i];
            int is_recv = (x->kind == LC_XFER_RECV || x->kind == LC_XFER_WAIT_PUT);
            if (is_recv != (pass == 0)) {
                nsend += !is_recv;
                continue;
            }
            int wpeer = comm->to_world[x->peer];
            lincoll_status_t st = LINCOLL_OK;
            p->ex.reqs[i] = NULL;
            if (preposted && x->kind == LC_XFER_RECV) {
                lc_tl_req_t **next = lc_exec_cache(p)->next;
                p->ex.reqs[i] = next[i];
                next[i] = NULL;
                continue;
            }
            switch (x->kind) {
            case LC_XFER_SEND:
                st = ctx->tl_ops->send_nb(ctx->tl, wpeer, lc_plan_ptr(p, x->buf), x->len,
                                          lc_exec_tag(p, comm->rank, p->ex.round), &p->ex.reqs[i]);
                break;
            case LC_XFER_RECV:
                st = ctx->tl_ops->recv_nb(ctx->tl, wpeer, lc_plan_ptr(p, x->buf), x->len,
                                          lc_exec_tag(p, x->peer, p->ex.round), &p->ex.reqs[i]);
                break;
            case LC_XFER_PUT:
                st = lc_win_put(x->win, x->peer, lc_plan_ptr(p, x->buf), x->len, x->roff, 1,
                                p->ex.round, &p->ex.reqs[i]);
                break;
            case LC_XFER_WAIT_PUT:
                p->ex.reqs[i] = LC_WAIT_PENDING;
                break;
            }
            if (st != LINCOLL_OK) {
                return lc_exec_fail(p, st, "posting a transfer", x->peer);
            }
        }
    }
    p->ex.posted = 1;
    lc_exec_deadline(p);
    if (p->ex.round + 1 < p->nrounds && p->rounds[p->ex.round + 1].prepost) {
        return lc_exec_prepost_next(p);
    }
    return LINCOLL_OK;
}

/* LINCOLL_OK when every transfer of the round is done. */
static lincoll_status_t lc_exec_poll_round(lincoll_plan_t *p)
{
    lincoll_context_t *ctx = p->ctx;
    lc_round_t *R = &p->rounds[p->ex.round];
    int pending = 0;
    for (unsigned i = 0; i < R->nxfers; i++) {
        lc_xfer_t *x = &R->xfers[i];
        lc_tl_req_t *r = p->ex.reqs[i];
        if (x->kind == LC_XFER_WAIT_PUT) {
            if (r == LC_WAIT_PENDING) {
                if (lc_win_signal_ready(x->win, x->peer, 1)) {
                    p->ex.reqs[i] = NULL;
                } else {
                    pending++;
                }
            }
            continue;
        }
        if (r == NULL) {
            continue;
        }
        size_t got = 0;
        lincoll_status_t st = ctx->tl_ops->test(ctx->tl, r, &got);
        if (st == LINCOLL_INPROGRESS) {
            pending++;
            continue;
        }
        ctx->tl_ops->release(ctx->tl, r);
        p->ex.reqs[i] = NULL;
        if (st != LINCOLL_OK) {
            return lc_exec_fail(p, st, x->kind == LC_XFER_RECV ? "receiving" : "sending", x->peer);
        }
        if (x->kind == LC_XFER_RECV && got != x->len) {
            lc_error("plan %s: rank %d sent %zu bytes in round %u where %zu were expected: "
                     "the ranks passed different arguments",
                     p->algorithm, x->peer, got, p->ex.round, x->len);
            return lc_exec_fail(p, LINCOLL_ERR_MISMATCH, "message size", x->peer);
        }
    }
    return pending ? LINCOLL_INPROGRESS : LINCOLL_OK;
}

static lincoll_status_t lc_exec_check_stuck(lincoll_plan_t *p)
{
    lincoll_context_t *ctx = p->ctx;
    lc_round_t *R = &p->rounds[p->ex.round];
    for (unsigned i = 0; i < R->nxfers; i++) {
        int wpeer = p->comm->to_world[R->xfers[i].peer];
        if (ctx->tl_ops->peer_status(ctx->tl, wpeer) != LINCOLL_OK) {
            return lc_exec_fail(p, LINCOLL_ERR_PEER_FAILED, "waiting", R->xfers[i].peer);
        }
    }
    if (p->ctx->timeout <= 0) {
        return LINCOLL_INPROGRESS;
    }
    double now = lc_now();
    if (p->ex.deadline == 0) {
        p->ex.deadline = now + p->ctx->timeout;
    } else if (now > p->ex.deadline) {
        return lc_exec_fail(p, LINCOLL_ERR_TIMEOUT, "no progress within LINCOLL_TIMEOUT", -1);
    }
    return LINCOLL_INPROGRESS;
}

/* ---- fast path: plans of sends and receives only ------------------------ */

/* Post a fast-path receive of round F: chained when F carries a send. */
static inline __attribute__((always_inline)) lincoll_status_t
lc_exec_fast_recv(lincoll_context_t *ctx, const lc_exec_cache_t *c, lc_exec_fround_t *F,
                  const lc_exec_xf_t *x, lc_tl_req_t **slot)
{
    if (F->chain) {
        F->then.tag = F[1].xf[F[1].nrecv].tag | c->seqbits;
        return ctx->tl_ops->recv_chain_nb(ctx->tl, x->wpeer, x->ptr, x->len, x->tag | c->seqbits,
                                          &F->then, slot);
    }
    return ctx->tl_ops->recv_nb(ctx->tl, x->wpeer, x->ptr, x->len, x->tag | c->seqbits, slot);
}

static inline __attribute__((always_inline)) lincoll_status_t
lc_exec_fast_post(lincoll_plan_t *p, const lc_exec_cache_t *c)
{
    lc_exec_fround_t *R = &c->fr[p->ex.round];
    lincoll_context_t *ctx = p->ctx;
    lc_tl_req_t **reqs = p->ex.reqs;
    const lc_exec_xf_t *x = R->xf, *recv_end = x + R->nrecv, *end = x + R->n;
    lincoll_status_t st;
    p->ex.nreqs = R->n;
    p->ex.deadline = 0; /* a new round: the timeout clock restarts */
    p->ex.posted = 1;
    if (R->sent_by_chain) {
        /* the one send of this round, if the previous round's receive
         * posted it (taken first, so that a failure below releases it) */
        lc_tl_chain_t *t = &R[-1].then;
        if (t->fired) {
            t->fired = 0;
            reqs[R->nrecv] = t->req;
            t->req = NULL;
            end = x + R->nrecv; /* nothing left to send */
            if (__builtin_expect(t->status != LINCOLL_OK, 0)) {
                return lc_exec_fail(p, t->status, "posting a send", R->xf[R->nrecv].peer);
            }
        }
    }
    if (p->ex.next_posted) {
        p->ex.next_posted = 0;
        for (lc_tl_req_t **next = c->next; x < recv_end; x++, reqs++, next++) {
            *reqs = *next;
            *next = NULL;
        }
    }
    for (; x < recv_end; x++, reqs++) {
        *reqs = NULL;
        st = lc_exec_fast_recv(ctx, c, R, x, reqs);
        if (__builtin_expect(st != LINCOLL_OK, 0)) {
            return lc_exec_fail(p, st, "posting a receive", x->peer);
        }
    }
    for (; x < end; x++, reqs++) {
        *reqs = NULL;
        st = ctx->tl_ops->send_nb(ctx->tl, x->wpeer, x->ptr, x->len, x->tag | c->seqbits, reqs);
        if (__builtin_expect(st != LINCOLL_OK, 0)) {
            return lc_exec_fail(p, st, "posting a send", x->peer);
        }
    }
    if (R->prepost_next) {
        /* after the sends, as ucx_perftest posts a ping-pong's receive: the
         * reply needs a round trip, and posting its receive first would put
         * that call between the previous completion and this send */
        const lc_exec_xf_t *nx = R[1].xf, *nend = nx + R[1].nrecv;
        lc_tl_req_t **next = c->next;
        p->ex.next_posted = 1;
        for (; nx < nend; nx++, next++) {
            st = lc_exec_fast_recv(ctx, c, &R[1], nx, next);
            if (__builtin_expect(st != LINCOLL_OK, 0)) {
                *next = NULL;
                return lc_exec_fail(p, st, "posting a receive early", nx->peer);
            }
        }
    }
    return LINCOLL_OK;
}

/* LINCOLL_OK when every transfer of the round is done. */
static inline lincoll_status_t lc_exec_fast_poll(lincoll_plan_t *p, const lc_exec_cache_t *c,
                                                 const lc_tl_ops_t *ops, lc_tl_t *tl)
{
    lc_tl_req_t **reqs = p->ex.reqs;
    unsigned n = p->ex.nreqs;
    int pending = 0;
    for (unsigned i = 0; i < n; i++) {
        lc_tl_req_t *r = reqs[i];
        if (r == NULL) {
            continue; /* done earlier, or a send that completed when posted */
        }
        size_t got = 0;
        lincoll_status_t st = ops->test_release(tl, r, &got);
        if (st == LINCOLL_INPROGRESS) {
            pending = 1;
            continue;
        }
        reqs[i] = NULL;
        const lc_exec_xf_t *x = &c->fr[p->ex.round].xf[i];
        if (__builtin_expect(st != LINCOLL_OK, 0)) {
            return lc_exec_fail(p, st, x->recv ? "receiving" : "sending", x->peer);
        }
        if (__builtin_expect(x->recv && got != x->len, 0)) {
            lc_error("plan %s: rank %d sent %zu bytes in round %u where %zu were expected: "
                     "the ranks passed different arguments",
                     p->algorithm, x->peer, got, p->ex.round, x->len);
            return lc_exec_fail(p, LINCOLL_ERR_MISMATCH, "message size", x->peer);
        }
    }
    return pending ? LINCOLL_INPROGRESS : LINCOLL_OK;
}

/* The start posted round 0; each completed round posts the next one. */
static lincoll_status_t lc_exec_fast_test(lincoll_plan_t *p, const lc_exec_cache_t *c)
{
    lincoll_context_t *ctx = p->ctx;
    const lc_tl_ops_t *ops = ctx->tl_ops;
    lc_tl_t *tl = ctx->tl;
    unsigned spins = 0;
    for (;;) {
        lincoll_status_t st = lc_exec_fast_poll(p, c, ops, tl);
        if (st == LINCOLL_OK) {
            if (++p->ex.round >= p->nrounds) {
                p->ex.posted = 0;
                p->ex.running = 0;
                p->ex.status = LINCOLL_OK;
                return LINCOLL_OK;
            }
            st = lc_exec_fast_post(p, c);
            if (st != LINCOLL_OK) {
                return st;
            }
            continue;
        }
        if (st != LINCOLL_INPROGRESS) {
            return st;
        }
        /* drive the transport until it reports activity, then test again */
        int active = 0;
        while (!active && spins < LC_EXEC_FAST_SPINS) {
            spins++;
            active = ops->progress(tl);
        }
        if (!active) {
            return lc_exec_check_stuck(p);
        }
    }
}

/* First start: allocate the request slots and the cache; flatten a plan of
 * sends and receives for the fast path. */
static lincoll_status_t lc_exec_setup(lincoll_plan_t *p)
{
    lincoll_comm_t *comm = p->comm;
    unsigned maxx = 0, total = 0;
    /* a per-start hook may move slots or rewrite transfers (zcopy rings):
     * nothing about such a plan can be computed once */
    int fast = p->on_start == NULL;
    for (unsigned r = 0; r < p->nrounds; r++) {
        const lc_round_t *R = &p->rounds[r];
        maxx = R->nxfers > maxx ? R->nxfers : maxx;
        total += R->nxfers;
        if (R->npre != 0 || R->npost != 0 || R->nduring != 0) {
            fast = 0;
        }
        for (unsigned i = 0; i < R->nxfers; i++) {
            if (R->xfers[i].kind != LC_XFER_SEND && R->xfers[i].kind != LC_XFER_RECV) {
                fast = 0;
            }
        }
    }
    size_t slots = maxx ? maxx : 1;
    size_t off_next = (sizeof(lc_exec_cache_t) + 15) & ~(size_t)15;
    size_t off_first = off_next + ((slots * sizeof(lc_tl_req_t *) + 15) & ~(size_t)15);
    size_t off_xf = off_first + (((p->nrounds + 1) * sizeof(unsigned) + 15) & ~(size_t)15);
    size_t off_fr = off_xf + (((fast ? total : 0) * sizeof(lc_exec_xf_t) + 15) & ~(size_t)15);
    /* one round more than the plan has: R[1] of the last round reads zeros */
    size_t bytes = off_fr + (fast ? p->nrounds + 1 : 0) * sizeof(lc_exec_fround_t);
    lc_tl_req_t **reqs = calloc(slots, sizeof(*reqs));
    char *block = calloc(1, bytes);
    if (reqs == NULL || block == NULL) {
        free(reqs);
        free(block);
        return LINCOLL_ERR_NOMEM;
    }
    lc_exec_cache_t *c = (lc_exec_cache_t *)(void *)block;
    c->maxx = maxx;
    c->fast = fast;
    c->next = (lc_tl_req_t **)(void *)(block + off_next);
    c->first = (unsigned *)(void *)(block + off_first);
    c->xf = (lc_exec_xf_t *)(void *)(block + off_xf);
    c->fr = (lc_exec_fround_t *)(void *)(block + off_fr);
    if (fast) {
        unsigned k = 0;
        for (unsigned r = 0; r < p->nrounds; r++) {
            const lc_round_t *R = &p->rounds[r];
            c->first[r] = k;
            for (int pass = 0; pass < 2; pass++) {
                for (unsigned i = 0; i < R->nxfers; i++) {
                    const lc_xfer_t *x = &R->xfers[i];
                    int recv = x->kind == LC_XFER_RECV;
                    if (recv != (pass == 0)) {
                        continue;
                    }
                    c->xf[k].ptr = lc_plan_ptr(p, x->buf);
                    c->xf[k].len = x->len;
                    c->xf[k].tag = lc_tag_make(comm->id, 0,
                                               recv ? (unsigned)x->peer : (unsigned)comm->rank, r);
                    c->xf[k].wpeer = comm->to_world[x->peer];
                    c->xf[k].peer = x->peer;
                    c->xf[k].recv = recv;
                    c->fr[r].nrecv += (unsigned)recv;
                    k++;
                }
            }
            c->fr[r].xf = c->xf + c->first[r];
            c->fr[r].n = k - c->first[r];
            c->fr[r].prepost_next = r + 1 < p->nrounds && p->rounds[r + 1].prepost;
        }
        c->first[p->nrounds] = k;
        c->fr[p->nrounds].xf = c->xf + k;
        /* a round that is one receive, followed by a round with one send:
         * the transport may post that send when the receive completes */
        for (unsigned r = 0; p->ctx->tl_ops->recv_chain_nb != NULL && r + 1 < p->nrounds; r++) {
            lc_exec_fround_t *F = &c->fr[r];
            if (F->n == 1 && F->nrecv == 1 && F[1].n == F[1].nrecv + 1) {
                const lc_exec_xf_t *snd = &F[1].xf[F[1].nrecv];
                F->chain = 1;
                F->then.peer = snd->wpeer;
                F->then.buf = snd->ptr;
                F->then.len = snd->len;
                F[1].sent_by_chain = 1;
            }
        }
    }
    free(p->ex.reqs);
    free(p->ex.next_reqs);
    p->ex.reqs = reqs;
    p->ex.next_reqs = (lc_tl_req_t **)(void *)block;
    return LINCOLL_OK;
}

/* What a start does besides the few stores: the first start's setup, a
 * plan that is not finalized, the per-start hook.  Out of line, so that a
 * start of a ready plan (the benchmarks' loop) is short. */
static __attribute__((noinline)) lincoll_status_t lc_exec_start_slow(lincoll_plan_t *p)
{
    if (!p->finalized) {
        lc_error("plan %s was not finalized", p->algorithm);
        return LINCOLL_ERR_INTERNAL;
    }
    if (p->ex.next_reqs == NULL) {
        lincoll_status_t st = lc_exec_setup(p);
        if (st != LINCOLL_OK) {
            return st;
        }
    }
    p->ex.next_posted = 0;
    if (p->on_start != NULL) {
        lincoll_status_t st = p->on_start(p);
        if (st != LINCOLL_OK) {
            return st;
        }
    }
    return LINCOLL_OK;
}

lincoll_status_t lc_exec_start(lincoll_plan_t *p)
{
    if (__builtin_expect(!p->finalized || p->ex.next_reqs == NULL || p->on_start != NULL, 0)) {
        lincoll_status_t st = lc_exec_start_slow(p);
        if (st != LINCOLL_OK) {
            return st;
        }
    }
    lc_exec_cache_t *c = lc_exec_cache(p);
    /* collectives take the communicator's next sequence number; a
     * point-to-point plan keeps its own tag (transports/transport.h) */
    unsigned seq = p->p2p ? p->p2p_tag : p->comm->seq++;
    p->ex.seq = seq;
    c->seqbits = (uint64_t)(seq & LC_TAG_MASK(LC_TAG_SEQ_BITS)) << LC_TAG_SEQ_SHIFT |
                 (p->p2p ? LC_TAG_P2P : 0);
    p->ex.next_posted = 0;
    p->ex.round = 0;
    p->ex.posted = 0;
    p->ex.status = LINCOLL_INPROGRESS;
    p->ex.running = 1;
    p->ex.starts++;
    lc_exec_deadline(p);
    if (c->fast) {
        /* post round 0 now, as MPI_Start does: a ping-pong's send leaves
         * before the caller reaches wait/test.  A failure to post ends the
         * plan (lc_exec_fail) and is what its test/wait return. */
        (void)lc_exec_fast_post(p, c);
    }
    return LINCOLL_OK;
}

/* The general path (any plan that is not send/receive-only), out of line so
 * that the fast path's test does not pay its register saves. */
static __attribute__((noinline)) lincoll_status_t lc_exec_test_general(lincoll_plan_t *p)
{
    if (!p->ex.running) {
        return p->ex.status == LINCOLL_INPROGRESS ? LINCOLL_OK : p->ex.status;
    }
    lincoll_context_t *ctx = p->ctx;
    for (int poll = 0; poll < LC_EXEC_POLLS; poll++) {
        while (p->ex.round < p->nrounds) {
            lc_round_t *R = &p->rounds[p->ex.round];
            lincoll_status_t st;
            if (R->nxfers == 0 && R->npre == 0 && R->nduring == 0 && R->npost == 0) {
                /* nothing for this rank in this round (e.g. a root's
                 * receive round): no post, poll or deadline; an empty
                 * round has nothing posted early either */
                p->ex.next_posted = 0;
                p->ex.round++;
                continue;
            }
            if (!p->ex.posted) {
                st = lc_exec_steps(p, R->pre, R->npre);
                if (st != LINCOLL_OK) {
                    return lc_exec_fail(p, st, "a compute step", -1);
                }
                st = lc_exec_post_round(p);
                if (st != LINCOLL_OK) {
                    return st;
                }
                /* compute that overlaps this round's transfers */
                st = lc_exec_steps(p, R->during, R->nduring);
                if (st != LINCOLL_OK) {
                    return lc_exec_fail(p, st, "a compute step", -1);
                }
            }
            st = lc_exec_poll_round(p);
            if (st == LINCOLL_INPROGRESS) {
                break;
            }
            if (st != LINCOLL_OK) {
                return st;
            }
            st = lc_exec_steps(p, R->post, R->npost);
            if (st != LINCOLL_OK) {
                return lc_exec_fail(p, st, "a compute step", -1);
            }
            p->ex.round++;
            p->ex.posted = 0;
        }
        if (p->ex.round >= p->nrounds) {
            p->ex.running = 0;
            p->ex.status = LINCOLL_OK;
            return LINCOLL_OK;
        }
        ctx->tl_ops->progress(ctx->tl);
    }
    return lc_exec_check_stuck(p);
}

lincoll_status_t lc_exec_test(lincoll_plan_t *p)
{
    if (__builtin_expect(p->ex.running, 1)) {
        const lc_exec_cache_t *c = lc_exec_cache(p);
        if (c->fast) {
            return lc_exec_fast_test(p, c);
        }
    }
    return lc_exec_test_general(p);
}

void lc_exec_cancel(lincoll_plan_t *p)
{
    if (p->ex.running) {
        lc_exec_release_all(p);
        p->ex.running = 0;
        p->ex.status = LINCOLL_ERR_CANCELED;
    }
}

/* ---- the public start/test/wait: here, so that the executor's fast path
 * is inlined into them ----------------------------------------------------- */

lincoll_status_t lincoll_start(lincoll_plan_t *plan)
{
    LC_CHECK_ARG(plan != NULL, "lincoll_start: plan must not be NULL");
    if (plan->ex.running) {
        lc_error("lincoll_start: plan %s is still running", plan->algorithm);
        return LINCOLL_ERR_BUSY;
    }
    return lc_exec_start(plan);
}

lincoll_status_t lincoll_test(lincoll_plan_t *plan)
{
    LC_CHECK_ARG(plan != NULL, "lincoll_test: plan must not be NULL");
    return lc_exec_test(plan);
}

lincoll_status_t lincoll_wait(lincoll_plan_t *plan)
{
    LC_CHECK_ARG(plan != NULL, "lincoll_wait: plan must not be NULL");
    lincoll_status_t st;
    /* spin, but give the core away now and then: with more ranks than
     * cores the peer we wait for may need this CPU to make progress (then
     * after every idle test, each of which polls the transport a batch of
     * times first) */
    const unsigned every = plan->ctx->oversubscribed ? 1 : 64;
    unsigned left = every;
    while ((st = lc_exec_test(plan)) == LINCOLL_INPROGRESS) {
        if (--left == 0) {
            sched_yield();
            left = every;
        }
    }
    return st;
}
