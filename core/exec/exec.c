/*
 * core/exec/exec.c: the one executor every plan runs on (docs/architecture.md,
 * "The executor").
 *
 * Non-blocking state machine per plan over its lowered rounds (low.h): for
 * each round that runs on this start, run its PRE compute steps, post its
 * transfers at once (receives first, so eager data lands in place; then
 * sends and puts; waits are watched; a round of messages of at most 1 KiB
 * posts its sends first, low.h), run its DURING steps while they fly,
 * poll until every transfer is done, run its POST steps and move on.  A
 * start posts the first round itself (as MPI_Start does: a ping-pong's send
 * leaves before the caller reaches wait/test); each test() drives the
 * transport a bounded number of times and returns.
 *
 * Rings: at every start the ring regions' offsets move to position
 * (start mod depth) and the rotating slots' pointers with them.  Rounds that
 * run every n-th start are skipped on the other starts.
 *
 * Puts into a mapped peer are a copy, a release fence and an atomic add on
 * the peer's counter for this rank, done at once without the transport;
 * other puts go through the transport (put_nb with signal).  A wait is done
 * once `count` more signals than it consumed have arrived; for a mapped peer
 * the executor spins on the counter briefly (a store about to land is
 * cheaper to wait for than a round of transport progress) — where ranks
 * share processing units it looks once and returns, since the peer that
 * stores runs only after this rank gives its PU away (ctx->exec_spins).
 *
 * Receives of the next round are posted early when the plan marked it safe
 * (after this round's sends, the order ucx_perftest uses for a ping-pong:
 * the reply's receive is posted while the request flies), and triggered
 * sends (lower.c) leave from the transport's completion path.  Requests are
 * tested right after posting and then only when the transport reports
 * activity (or, in rounds with waits, after every progress call).
 *
 * Failure: a transport error on any transfer, a peer the transport reports
 * dead, or no round completing within LINCOLL_TIMEOUT (armed lazily, when a
 * round is first found stuck, so the fast path reads no clock) ends the plan
 * with that error; its outstanding requests are released (receives
 * canceled) so a plan that failed can be freed at once.  Messages shorter or
 * longer than the plan expects mean the ranks disagree on the arguments:
 * LINCOLL_ERR_MISMATCH.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/exec/low.h"
#include "core/exec/steps.h"
#include "core/exec/wait.h"

_Static_assert(LC_PLAN_MAX_ROUNDS <= LC_TAG_MAX_ROUND, "plan rounds fit the tag's round field");

/* progress calls per test() before it returns INPROGRESS */
#define LC_EXEC_SPINS 32
/* counter reads before a wait on a mapped peer gives way to progress */
#define LC_EXEC_WAIT_SPIN 64

static inline char *lc_lx_ptr(const lincoll_plan_t *p, const lc_lx_t *x)
{
    return x->ptr + p->ex.ringoff[x->ring];
}

static void lc_exec_release_all(lincoll_plan_t *p)
{
    lincoll_context_t *ctx = p->ctx;
    lc_low_t *L = p->low;
    lc_lround_t *F = &L->r[p->ex.round < L->nrounds ? p->ex.round : L->nrounds];
    if (F->chain && F->then.fired) {
        /* the receive completed and its triggered send left, but the round
         * was not finished: nobody else holds the send's request */
        F->then.fired = 0;
        if (F->then.req != NULL) {
            (void)ctx->tl_ops->release(ctx->tl, F->then.req);
            F->then.req = NULL;
            p->ex.orphans = 1;
        }
    }
    if (p->ex.posted) {
        for (unsigned i = 0; i < F->n; i++) {
            lc_tl_req_t *r = p->ex.reqs[i];
            if (r != NULL && r != LC_WAIT_PENDING) {
                /* a receive is canceled (or waited for) inside release,
                 * unless its data kept arriving past the drain timeout; a
                 * send or put goes on reading its memory */
                if (ctx->tl_ops->release(ctx->tl, r) || F->x[i].kind != LC_LX_RECV)
                    p->ex.orphans = 1;
            }
            p->ex.reqs[i] = NULL;
        }
    }
    if (p->ex.next_posted) {
        const lc_lround_t *N = F + 1;
        for (unsigned i = 0; i < N->nrecv; i++) {
            if (p->ex.next[i] != NULL) {
                if (ctx->tl_ops->release(ctx->tl, p->ex.next[i])) p->ex.orphans = 1;
                p->ex.next[i] = NULL;
            }
        }
        p->ex.next_posted = 0;
    }
    p->ex.posted = 0;
}

static __attribute__((noinline)) lincoll_status_t
lc_exec_fail(lincoll_plan_t *p, lincoll_status_t st, const char *why, int peer)
{
    char with[32] = "";
    if (peer >= 0) {
        snprintf(with, sizeof(with), " with rank %d", peer);
    }
    lc_error("plan %s (comm %u, start %lu): round %u: %s%s: %s", p->ir->algorithm, p->comm->id,
             p->ex.starts, p->ex.round, why, with, lincoll_strerror(st));
    lc_exec_release_all(p);
    p->ex.running = 0;
    p->ex.status = st;
    return st;
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

/* Post a receive of round F (chained when F carries a triggered send). */
static inline __attribute__((always_inline)) lincoll_status_t
lc_exec_recv(lincoll_plan_t *p, lc_lround_t *F, const lc_lx_t *x, lc_tl_req_t **slot)
{
    lincoll_context_t *ctx = p->ctx;
    const uint64_t bits = p->ex.seqbits;
    if (F->chain) {
        F->then.tag = F[1].x[F[1].nrecv].tag | bits;
        return ctx->tl_ops->recv_chain_nb(ctx->tl, x->wpeer, x->ptr, x->len, x->tag | bits,
                                          &F->then, slot);
    }
    return ctx->tl_ops->recv_nb(ctx->tl, x->wpeer, lc_lx_ptr(p, x), x->len, x->tag | bits, slot);
}

static lincoll_status_t lc_exec_put(lincoll_plan_t *p, const lc_lx_t *x, lc_tl_req_t **slot)
{
    const char *src = lc_lx_ptr(p, x);
    size_t roff = x->roff + p->ex.ringoff[x->rring];
    if (x->mapped) {
        if (__builtin_expect(x->dev, 0) && x->len > 0) { /* into (or from) device memory */
            lincoll_status_t st = lc_exec_dev_copy_now(p, x->mdata + roff, src, x->len);
            if (st != LINCOLL_OK) return st;
        } else if (x->len > 0) {
            memcpy(x->mdata + roff, src, x->len);
        }
        __atomic_fetch_add(x->msig, 1, __ATOMIC_RELEASE);
        if (__builtin_expect(p->ctx->wait_sleep, 0)) lc_wait_wake_flag(x->msig);
        *slot = NULL;
        return LINCOLL_OK;
    }
    return lc_win_put(x->win, x->peer, src, x->len, roff, 1, LC_TAG_FIELD(x->tag, ROUND), slot);
}

static inline int lc_exec_wait_ready(const lc_lx_t *x, unsigned spins)
{
    if (spins == 0) spins = LC_EXEC_WAIT_SPIN; /* a context whose budget is not set yet */
    for (unsigned i = 0; i < spins; i++) {
        uint64_t arrived = __atomic_load_n(x->sig, __ATOMIC_ACQUIRE);
        if (arrived - *x->consumed >= x->count) {
            *x->consumed += x->count;
            return 1;
        }
        if (!x->mapped) break; /* the transport delivers it: progress first */
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    return 0;
}

/* Post the transfers of round F. */
static inline __attribute__((always_inline)) lincoll_status_t lc_exec_post(lincoll_plan_t *p,
                                                                           lc_lround_t *F)
{
    lincoll_context_t *ctx = p->ctx;
    lc_tl_req_t **reqs = p->ex.reqs;
    const lc_lx_t *x = F->x, *recv_end = x + F->nrecv, *out_end = x + F->nout, *end = x + F->n;
    const lc_lx_t *send_from = recv_end;
    lincoll_status_t st;
    p->ex.deadline = 0; /* a new round: the timeout clock restarts */
    p->ex.posted = 1;
    if (F->sent_by_chain) {
        /* the one send of this round, if the previous round's receive posted
         * it (taken first, so that a failure below releases it) */
        lc_tl_chain_t *t = &F[-1].then;
        if (t->fired) {
            t->fired = 0;
            reqs[F->nrecv] = t->req;
            t->req = NULL;
            send_from = recv_end + 1;
            if (__builtin_expect(t->status != LINCOLL_OK, 0)) {
                return lc_exec_fail(p, t->status, "posting a send", F->x[F->nrecv].peer);
            }
        }
    }
    if (p->ex.next_posted) {
        p->ex.next_posted = 0;
        for (lc_tl_req_t **next = p->ex.next; x < recv_end; x++, reqs++, next++) {
            *reqs = *next;
            *next = NULL;
        }
    }
    for (; x < recv_end; x++, reqs++) {
        *reqs = NULL;
        st = lc_exec_recv(p, F, x, reqs);
        if (__builtin_expect(st != LINCOLL_OK, 0)) {
            return lc_exec_fail(p, st, "posting a receive", x->peer);
        }
    }
    if (x < send_from) { /* the chained send is already in reqs */
        x++;
        reqs++;
    }
    for (; x < out_end; x++, reqs++) {
        *reqs = NULL;
        if (__builtin_expect(x->kind == LC_LX_SEND, 1)) {
            st = ctx->tl_ops->send_nb(ctx->tl, x->wpeer, lc_lx_ptr(p, x), x->len,
                                      x->tag | p->ex.seqbits, reqs);
        } else {
            st = lc_exec_put(p, x, reqs);
        }
        if (__builtin_expect(st != LINCOLL_OK, 0)) {
            return lc_exec_fail(p, st, x->kind == LC_LX_SEND ? "posting a send" : "posting a put",
                                x->peer);
        }
    }
    for (; x < end; x++, reqs++) {
        *reqs = LC_WAIT_PENDING;
    }
    if (F->prepost_next) {
        lc_lround_t *N = F + 1;
        const lc_lx_t *nx = N->x, *nend = nx + N->nrecv;
        lc_tl_req_t **next = p->ex.next;
        p->ex.next_posted = 1;
        for (; nx < nend; nx++, next++) {
            st = lc_exec_recv(p, N, nx, next);
            if (__builtin_expect(st != LINCOLL_OK, 0)) {
                *next = NULL;
                return lc_exec_fail(p, st, "posting a receive early", nx->peer);
            }
        }
    }
    return LINCOLL_OK;
}

/* Post a round of sends and receives only (msgs): receives (taken when
 * posted early), sends, then the next round's receives when allowed; a
 * round of small messages (send_first) posts its sends before the receives
 * it did not post early. */
static inline __attribute__((always_inline)) lincoll_status_t lc_exec_post_msgs(lincoll_plan_t *p,
                                                                                lc_lround_t *F)
{
    lincoll_context_t *ctx = p->ctx;
    lc_tl_req_t **reqs = p->ex.reqs;
    const lc_lx_t *x = F->x, *recv_end = x + F->nrecv, *end = x + F->n;
    const uint64_t bits = p->ex.seqbits;
    lincoll_status_t st;
    p->ex.deadline = 0;
    p->ex.posted = 1;
    if (p->ex.next_posted) {
        p->ex.next_posted = 0;
        for (lc_tl_req_t **next = p->ex.next; x < recv_end; x++, reqs++, next++) {
            *reqs = *next;
            *next = NULL;
        }
    }
    if (F->send_first) {
        for (unsigned i = F->nrecv; i < F->n; i++) {
            p->ex.reqs[i] = NULL;
            st = ctx->tl_ops->send_nb(ctx->tl, F->x[i].wpeer, F->x[i].ptr, F->x[i].len,
                                      F->x[i].tag | bits, &p->ex.reqs[i]);
            if (__builtin_expect(st != LINCOLL_OK, 0)) {
                return lc_exec_fail(p, st, "posting a send", F->x[i].peer);
            }
        }
        end = recv_end; /* the sends are out */
    }
    for (; x < recv_end; x++, reqs++) {
        *reqs = NULL;
        st = ctx->tl_ops->recv_nb(ctx->tl, x->wpeer, x->ptr, x->len, x->tag | bits, reqs);
        if (__builtin_expect(st != LINCOLL_OK, 0)) {
            return lc_exec_fail(p, st, "posting a receive", x->peer);
        }
    }
    for (; x < end; x++, reqs++) {
        *reqs = NULL;
        st = ctx->tl_ops->send_nb(ctx->tl, x->wpeer, x->ptr, x->len, x->tag | bits, reqs);
        if (__builtin_expect(st != LINCOLL_OK, 0)) {
            return lc_exec_fail(p, st, "posting a send", x->peer);
        }
    }
    if (F->prepost_next) {
        lc_lround_t *N = F + 1;
        const lc_lx_t *nx = N->x, *nend = nx + N->nrecv;
        lc_tl_req_t **next = p->ex.next;
        p->ex.next_posted = 1;
        for (; nx < nend; nx++, next++) {
            st = lc_exec_recv(p, N, nx, next);
            if (__builtin_expect(st != LINCOLL_OK, 0)) {
                *next = NULL;
                return lc_exec_fail(p, st, "posting a receive early", nx->peer);
            }
        }
    }
    return LINCOLL_OK;
}

/* Move to the next round that runs on this start and post it: PRE steps,
 * transfers, DURING steps.  LINCOLL_OK when one was posted or the plan is
 * done (running cleared).  Out of line: plain rounds (transfers only, every
 * start) are posted directly by lc_exec_advance. */
static __attribute__((noinline)) lincoll_status_t lc_exec_enter(lincoll_plan_t *p)
{
    lc_low_t *L = p->low;
    const unsigned long s = p->ex.starts - 1;
    for (; p->ex.round < L->nrounds; p->ex.round++) {
        lc_lround_t *F = &L->r[p->ex.round];
        if (F->empty || (F->every > 1 && s % F->every != F->phase)) {
            continue;
        }
        lincoll_status_t st;
        if (F->npre > 0 && (st = lc_exec_steps(p, F->pre, F->npre)) != LINCOLL_OK) {
            return lc_exec_fail(p, st, "a compute step", -1);
        }
        /* the round's sends read what its device steps wrote */
        if (p->ex.dev_pending && (st = lc_exec_dev_wait(p)) != LINCOLL_OK) {
            return lc_exec_fail(p, st, "device work", -1);
        }
        st = lc_exec_post(p, F);
        if (st != LINCOLL_OK) {
            return st;
        }
        if (F->nduring > 0 && (st = lc_exec_steps(p, F->during, F->nduring)) != LINCOLL_OK) {
            return lc_exec_fail(p, st, "a compute step", -1);
        }
        return LINCOLL_OK;
    }
    p->ex.posted = 0;
    p->ex.running = 0;
    p->ex.status = LINCOLL_OK;
    return LINCOLL_OK;
}

/* Round p->ex.round is the next to run: post it if it is plain, finish the
 * plan past the last round, else the general entry. */
static inline __attribute__((always_inline)) lincoll_status_t lc_exec_advance(lincoll_plan_t *p)
{
    lc_low_t *L = p->low;
    if (__builtin_expect(p->ex.round >= L->nrounds, 0)) {
        p->ex.posted = 0;
        p->ex.running = 0;
        p->ex.status = LINCOLL_OK;
        return LINCOLL_OK;
    }
    lc_lround_t *F = &L->r[p->ex.round];
    if (__builtin_expect(F->msgs, 1)) return lc_exec_post_msgs(p, F);
    if (F->plain) return lc_exec_post(p, F);
    return lc_exec_enter(p);
}

/* LINCOLL_OK when every transfer of a round of sends and receives is done. */
static inline __attribute__((always_inline)) lincoll_status_t
lc_exec_poll_msgs(lincoll_plan_t *p, const lc_lround_t *F, const lc_tl_ops_t *ops, lc_tl_t *tl)
{
    lc_tl_req_t **reqs = p->ex.reqs;
    const unsigned n = F->n;
    int pending = 0;
    for (unsigned i = 0; i < n; i++) {
        lc_tl_req_t *r = reqs[i];
        if (r == NULL) continue;
        size_t got = 0;
        lincoll_status_t st = ops->test_release(tl, r, &got);
        if (st == LINCOLL_INPROGRESS) {
            pending = 1;
            continue;
        }
        reqs[i] = NULL;
        const lc_lx_t *x = &F->x[i];
        if (__builtin_expect(st != LINCOLL_OK, 0)) {
            return lc_exec_fail(p, st, x->kind == LC_LX_RECV ? "receiving" : "sending", x->peer);
        }
        if (__builtin_expect(x->kind == LC_LX_RECV && got != x->len, 0)) {
            lc_error("plan %s: rank %d sent %zu bytes in round %u where %zu were expected: "
                     "the ranks passed different arguments",
                     p->ir->algorithm, x->peer, got, p->ex.round, x->len);
            return lc_exec_fail(p, LINCOLL_ERR_MISMATCH, "message size", x->peer);
        }
    }
    return pending ? LINCOLL_INPROGRESS : LINCOLL_OK;
}

/* LINCOLL_OK when every transfer of the current round is done. */
static inline lincoll_status_t lc_exec_poll(lincoll_plan_t *p, const lc_lround_t *F,
                                            const lc_tl_ops_t *ops, lc_tl_t *tl)
{
    lc_tl_req_t **reqs = p->ex.reqs;
    const unsigned n = F->n;
    int pending = 0;
    if (__builtin_expect(p->ex.dev_pending, 0)) { /* DURING device steps: one more transfer */
        lincoll_status_t st = lc_exec_dev_poll(p);
        if (st == LINCOLL_INPROGRESS) {
            pending = 1;
        } else if (st != LINCOLL_OK) {
            return lc_exec_fail(p, st, "device work", -1);
        }
    }
    for (unsigned i = 0; i < n; i++) {
        lc_tl_req_t *r = reqs[i];
        if (r == NULL) {
            continue; /* done earlier, or completed when posted */
        }
        const lc_lx_t *x = &F->x[i];
        if (r == LC_WAIT_PENDING) {
            if (lc_exec_wait_ready(x, p->ctx->wait_spins)) {
                reqs[i] = NULL;
            } else {
                pending = 1;
            }
            continue;
        }
        size_t got = 0;
        lincoll_status_t st = ops->test_release(tl, r, &got);
        if (st == LINCOLL_INPROGRESS) {
            pending = 1;
            continue;
        }
        reqs[i] = NULL;
        if (__builtin_expect(st != LINCOLL_OK, 0)) {
            return lc_exec_fail(p, st,
                                x->kind == LC_LX_RECV   ? "receiving"
                                : x->kind == LC_LX_SEND ? "sending"
                                                        : "putting",
                                x->peer);
        }
        if (__builtin_expect(x->kind == LC_LX_RECV && got != x->len, 0)) {
            lc_error("plan %s: rank %d sent %zu bytes in round %u where %zu were expected: "
                     "the ranks passed different arguments",
                     p->ir->algorithm, x->peer, got, p->ex.round, x->len);
            return lc_exec_fail(p, LINCOLL_ERR_MISMATCH, "message size", x->peer);
        }
    }
    return pending ? LINCOLL_INPROGRESS : LINCOLL_OK;
}

static __attribute__((noinline)) lincoll_status_t lc_exec_check_stuck(lincoll_plan_t *p)
{
    lincoll_context_t *ctx = p->ctx;
    const lc_lround_t *F = &p->low->r[p->ex.round];
    for (unsigned i = 0; i < F->n; i++) {
        if (p->ex.reqs[i] == NULL) continue;
        if (ctx->tl_ops->peer_status(ctx->tl, F->x[i].wpeer) != LINCOLL_OK) {
            return lc_exec_fail(p, LINCOLL_ERR_PEER_FAILED, "waiting", F->x[i].peer);
        }
    }
    if (ctx->timeout <= 0) {
        return LINCOLL_INPROGRESS;
    }
    double now = lc_now();
    if (p->ex.deadline == 0) {
        p->ex.deadline = now + ctx->timeout;
    } else if (now > p->ex.deadline) {
        return lc_exec_fail(p, LINCOLL_ERR_TIMEOUT, "no progress within LINCOLL_TIMEOUT", -1);
    }
    return LINCOLL_INPROGRESS;
}

lincoll_status_t lc_exec_test(lincoll_plan_t *p)
{
    if (__builtin_expect(!p->ex.running, 0)) {
        return p->ex.status == LINCOLL_INPROGRESS ? LINCOLL_OK : p->ex.status;
    }
    lincoll_context_t *ctx = p->ctx;
    const lc_tl_ops_t *ops = ctx->tl_ops;
    lc_tl_t *tl = ctx->tl;
    lc_low_t *L = p->low;
    unsigned spins = 0;
    for (;;) {
        lc_lround_t *F = &L->r[p->ex.round];
        lincoll_status_t st =
            F->msgs ? lc_exec_poll_msgs(p, F, ops, tl) : lc_exec_poll(p, F, ops, tl);
        if (st == LINCOLL_OK) {
            if (F->npost > 0 && (st = lc_exec_steps(p, F->post, F->npost)) != LINCOLL_OK) {
                return lc_exec_fail(p, st, "a compute step", -1);
            }
            if (p->ex.dev_pending && (st = lc_exec_dev_wait(p)) != LINCOLL_OK) {
                return lc_exec_fail(p, st, "device work", -1);
            }
            p->ex.round++;
            p->ex.posted = 0;
            st = lc_exec_advance(p);
            if (st != LINCOLL_OK || !p->ex.running) {
                return st;
            }
            continue;
        }
        if (st != LINCOLL_INPROGRESS) {
            return st;
        }
        /* drive the transport until it reports activity (rounds with waits:
         * look again after every call, a signal may be a plain store) */
        const int waits = F->n > F->nout;
        int active = 0;
        const unsigned budget = waits && ctx->exec_spins ? ctx->exec_spins : LC_EXEC_SPINS;
        while (!active && spins < budget) {
            spins++;
            active = ops->progress(tl);
            if (waits) break;
        }
        if (!active && spins >= budget) {
            return lc_exec_check_stuck(p);
        }
    }
}

/* Ring regions and the slots that rotate with them, for start s. */
static __attribute__((noinline)) void lc_exec_rotate(lincoll_plan_t *p, unsigned long s)
{
    const lc_plan_t *ir = p->ir;
    for (unsigned g = 1; g < ir->nrings; g++) {
        p->ex.ringoff[g] = (size_t)(s % ir->rings[g].depth) * ir->rings[g].stride;
    }
    const lc_low_t *L = p->low;
    for (unsigned i = 0; i < L->nring_slots; i++) {
        unsigned slot = L->ring_slots[i];
        p->sptr[slot] = p->sbase[slot] + p->ex.ringoff[ir->slots[slot].ring];
    }
}

lincoll_status_t lc_exec_start(lincoll_plan_t *p)
{
    const unsigned long s = p->ex.starts++;
    /* collectives take the communicator's next sequence number; a
     * point-to-point plan keeps its own tag (transports/transport.h) */
    if (__builtin_expect(p->ex.p2p, 0)) {
        p->ex.seqbits = p->ex.p2p_bits;
    } else {
        unsigned seq = p->comm->seq++;
        p->ex.seq = seq;
        p->ex.seqbits = (uint64_t)(seq & LC_TAG_MASK(LC_TAG_SEQ_BITS)) << LC_TAG_SEQ_SHIFT;
    }
    if (__builtin_expect(p->low->has_rings, 0)) {
        lc_exec_rotate(p, s);
    }
    p->ex.next_posted = 0;
    p->ex.round = 0;
    p->ex.posted = 0;
    p->ex.status = LINCOLL_INPROGRESS;
    p->ex.running = 1;
    /* post the first round now, as MPI_Start does.  A failure ends the plan
     * (lc_exec_fail) and is what its test/wait return. */
    (void)lc_exec_advance(p);
    return LINCOLL_OK;
}

void lc_exec_cancel(lincoll_plan_t *p)
{
    if (p->ex.running) {
        lc_exec_release_all(p);
        p->ex.running = 0;
        p->ex.status = LINCOLL_ERR_CANCELED;
    }
}

lincoll_status_t lc_exec_run(lincoll_plan_t *plan)
{
    lincoll_status_t st = lc_exec_start(plan);
    if (st != LINCOLL_OK) {
        return st;
    }
    return lincoll_wait(plan);
}

lincoll_status_t lc_exec_run_ir(lincoll_comm_t *comm, lc_plan_t *ir)
{
    lincoll_plan_t *p;
    lincoll_status_t st = lc_plan_finalize(ir);
    if (st != LINCOLL_OK) {
        lc_plan_destroy(ir);
        return st;
    }
    st = lc_bind_local(comm, ir, &p);
    if (st != LINCOLL_OK) {
        return st;
    }
    st = lc_exec_run(p);
    lc_exec_free(p);
    return st;
}

/* ---- the public start/test/wait: here, so that the executor is inlined
 * into them ----------------------------------------------------------------- */

lincoll_status_t lincoll_start(lincoll_plan_t *plan)
{
    LC_CHECK_ARG(plan != NULL, "lincoll_start: plan must not be NULL");
    if (plan->ex.running) {
        lc_error("lincoll_start: plan %s is still running", plan->ir->algorithm);
        return LINCOLL_ERR_BUSY;
    }
    return lc_exec_start(plan);
}

lincoll_status_t lincoll_test(lincoll_plan_t *plan)
{
    LC_CHECK_ARG(plan != NULL, "lincoll_test: plan must not be NULL");
    return lc_exec_test(plan);
}

const lc_plan_t *lc_plan_of(const lincoll_plan_t *plan)
{
    return plan->ir;
}

lincoll_status_t lincoll_plan_free(lincoll_plan_t *plan)
{
    if (plan == NULL) return LINCOLL_OK;
    lc_exec_cancel(plan); /* nothing when it is not running */
    const int held = plan->ex.orphans;
    lc_exec_free(plan);
    return held ? LINCOLL_ERR_BUSY : LINCOLL_OK;
}

lincoll_status_t lincoll_plan_stats(const lincoll_plan_t *plan, lincoll_plan_stats_t *stats)
{
    LC_CHECK_ARG(plan != NULL, "lincoll_plan_stats: plan must not be NULL");
    LC_CHECK_ARG(stats != NULL, "lincoll_plan_stats: stats must not be NULL");
    *stats = plan->ir->stats;
    return LINCOLL_OK;
}

lincoll_status_t lincoll_plan_dump(const lincoll_plan_t *plan, char *buf, size_t len)
{
    LC_CHECK_ARG(plan != NULL, "lincoll_plan_dump: plan must not be NULL");
    LC_CHECK_ARG(buf != NULL && len > 0, "lincoll_plan_dump: buf must not be NULL, len > 0");
    lc_plan_dump_text(plan->ir, buf, len);
    return LINCOLL_OK;
}
