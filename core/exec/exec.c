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
 * Tags: (comm id, start sequence, sender's comm rank, round) — see
 * transports/transport.h.  Every start takes the communicator's next
 * sequence number, so plans must be started in the same order on every rank
 * of a communicator (as with MPI persistent collectives).
 */
#include "core/plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/context/win.h"
#include "core/exec/steps.h"

#define LC_EXEC_POLLS 16
/* reqs[i] of a WAIT_PUT transfer that has not seen its signal yet */
#define LC_WAIT_PENDING ((lc_tl_req_t *)(uintptr_t)1)

static uint64_t lc_exec_tag(const lincoll_plan_t *p, int src, unsigned round)
{
    return lc_tag_make(p->comm->id, p->ex.seq, (unsigned)src, round);
}

static void lc_exec_release_all(lincoll_plan_t *p)
{
    lincoll_context_t *ctx = p->ctx;
    for (unsigned i = 0; i < p->ex.nreqs; i++) {
        if (p->ex.reqs[i] != NULL && p->ex.reqs[i] != LC_WAIT_PENDING) {
            ctx->tl_ops->release(ctx->tl, p->ex.reqs[i]);
            p->ex.reqs[i] = NULL;
        }
    }
    p->ex.nreqs = 0;
    if (p->ex.next_posted) {
        const lc_round_t *N = &p->rounds[p->ex.round + 1];
        for (unsigned i = 0; i < N->nxfers; i++) {
            if (p->ex.next_reqs[i] != NULL) {
                ctx->tl_ops->release(ctx->tl, p->ex.next_reqs[i]);
                p->ex.next_reqs[i] = NULL;
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
    for (unsigned i = 0; i < N->nxfers; i++) {
        lc_xfer_t *x = &N->xfers[i];
        p->ex.next_reqs[i] = NULL;
        if (x->kind != LC_XFER_RECV) continue;
        lincoll_status_t st =
            ctx->tl_ops->recv_nb(ctx->tl, p->comm->to_world[x->peer], lc_plan_ptr(p, x->buf),
                                 x->len, lc_exec_tag(p, x->peer, next), &p->ex.next_reqs[i]);
        if (st != LINCOLL_OK) {
            return lc_exec_fail(p, st, "posting a receive early", x->peer);
        }
    }
    p->ex.next_posted = 1;
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
    /* receives first, then sends and puts */
    for (int pass = 0; pass < 2; pass++) {
        for (unsigned i = 0; i < R->nxfers; i++) {
            lc_xfer_t *x = &R->xfers[i];
            int is_recv = (x->kind == LC_XFER_RECV || x->kind == LC_XFER_WAIT_PUT);
            if (is_recv != (pass == 0)) {
                continue;
            }
            int wpeer = comm->to_world[x->peer];
            lincoll_status_t st = LINCOLL_OK;
            p->ex.reqs[i] = NULL;
            if (preposted && x->kind == LC_XFER_RECV) {
                p->ex.reqs[i] = p->ex.next_reqs[i];
                p->ex.next_reqs[i] = NULL;
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

lincoll_status_t lc_exec_start(lincoll_plan_t *p)
{
    if (!p->finalized) {
        lc_error("plan %s was not finalized", p->algorithm);
        return LINCOLL_ERR_INTERNAL;
    }
    unsigned maxx = 0;
    for (unsigned r = 0; r < p->nrounds; r++) {
        maxx = p->rounds[r].nxfers > maxx ? p->rounds[r].nxfers : maxx;
    }
    if (p->ex.reqs == NULL && maxx > 0) {
        p->ex.reqs = calloc(maxx, sizeof(*p->ex.reqs));
        p->ex.next_reqs = calloc(maxx, sizeof(*p->ex.next_reqs));
        if (p->ex.reqs == NULL || p->ex.next_reqs == NULL) {
            return LINCOLL_ERR_NOMEM;
        }
    }
    p->ex.next_posted = 0;
    if (p->on_start != NULL) {
        lincoll_status_t st = p->on_start(p);
        if (st != LINCOLL_OK) {
            return st;
        }
    }
    p->ex.seq = p->comm->seq++;
    p->ex.round = 0;
    p->ex.posted = 0;
    p->ex.status = LINCOLL_INPROGRESS;
    p->ex.running = 1;
    p->ex.starts++;
    lc_exec_deadline(p);
    return LINCOLL_OK;
}

lincoll_status_t lc_exec_test(lincoll_plan_t *p)
{
    if (!p->ex.running) {
        return p->ex.status == LINCOLL_INPROGRESS ? LINCOLL_OK : p->ex.status;
    }
    lincoll_context_t *ctx = p->ctx;
    for (int poll = 0; poll < LC_EXEC_POLLS; poll++) {
        while (p->ex.round < p->nrounds) {
            lc_round_t *R = &p->rounds[p->ex.round];
            lincoll_status_t st;
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

void lc_exec_cancel(lincoll_plan_t *p)
{
    if (p->ex.running) {
        lc_exec_release_all(p);
        p->ex.running = 0;
        p->ex.status = LINCOLL_ERR_CANCELED;
    }
}
