/*
 * core/api/shrink.c: lincoll_comm_shrink — the members of a communicator
 * that are still alive agree on who they are and make a communicator of
 * themselves; and lincoll_comm_translate.
 *
 * The agreement floods views (Lynch, "Distributed Algorithms", 1996, ch. 6:
 * FloodSet; the failure detector is the transport's peer status plus the
 * context timeout).  Every member starts from the members the transport
 * does not report failed.  In each iteration it sends its view (a bitmask
 * of members, and the highest communicator id it has seen) to every other
 * member of the view and receives theirs, one point-to-point plan per peer
 * so that one silent peer fails only its own exchange:
 *   - a member whose exchange fails (dead, or silent for the timeout;
 *     twice the timeout in the first iteration, which a member may join
 *     up to one timeout after another: its own failed operation may have
 *     ended by the timeout) leaves the view;
 *   - the view becomes its intersection with every view received (a member
 *     someone else could not hear is dropped by all);
 *   - when nothing changed and every view received equals this one (from
 *     the second iteration on: a first view was sent before its sender
 *     heard from anyone), the member decides; it sends the decision once
 *     more (iteration + 1, flagged) so that a member still one iteration
 *     behind adopts it instead of timing out on it.
 * A member that finds itself outside the view announces it (one more send
 * to the others, so they drop it without waiting) and returns
 * LINCOLL_ERR_PEER_FAILED.
 *
 * Cost: with f members failing, at most f + 2 iterations (2 without
 * failures); each is one exchange with every member (P - 1 messages of
 * 16 + P/8 bytes out and in), and an iteration that loses a silent member
 * lasts the context timeout (the first one twice that).  A
 * member killed outright is reported by the transport and costs no wait.
 *
 * Guarantees: every member that returns LINCOLL_OK returns the same group
 * when failures are crashes or members unreachable from every survivor
 * (the cases the tests cut).  A partition that splits the survivors while
 * they agree can leave two groups, and so can a member that stalls for
 * longer than the timeout after sending its views of an iteration (it may
 * find the others' views of that iteration and decide a group the others
 * dropped it from); the next operation of such a group fails (timeout),
 * and shrinking again resolves it.
 *
 * Messages: point-to-point plans on the communicator, user tag = the
 * communicator's shrink count, tag rounds LC_TAG_CTRL_ROUND + iteration,
 * which no user point-to-point plan reaches; messages of a shrink that
 * another member abandoned never match a later one.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/coll/coll_int.h"
#include "core/exec/exec.h"

#define LC_SHRINK_MAGIC   0x6c63736bu /* "lcsk" */
#define LC_SHRINK_DECIDED 1u
#define LC_SHRINK_LEFT    2u

typedef struct {
    uint32_t magic;
    uint32_t iter;
    uint32_t next_id; /* highest communicator id counter seen */
    uint32_t flags;
    uint64_t mask[]; /* members in the sender's view */
} lc_shrink_msg_t;

typedef struct {
    lincoll_comm_t *comm;
    int P, me, words;
    size_t msg_bytes;
    uint64_t *view;
    lc_shrink_msg_t *out;   /* what this member sends */
    lc_shrink_msg_t **in;   /* in[j]: from member j */
    lincoll_plan_t **plan;  /* plan[j]: the receive from j */
    lincoll_plan_t **splan; /* splan[j]: the send to j */
    lincoll_status_t *st;   /* st[j]: the exchange with j */
    lincoll_status_t *sst;  /* sst[j]: the send to j */
} lc_shrink_t;

static int lc_bit(const uint64_t *m, int i)
{
    return (int)((m[i / 64] >> (i % 64)) & 1u);
}

static void lc_bit_clear(uint64_t *m, int i)
{
    m[i / 64] &= ~(UINT64_C(1) << (i % 64));
}

static int lc_view_count(const lc_shrink_t *s, const uint64_t *m)
{
    int n = 0;
    for (int i = 0; i < s->P; i++)
        n += lc_bit(m, i);
    return n;
}

static void lc_shrink_free(lc_shrink_t *s)
{
    for (int j = 0; s->plan != NULL && j < s->P; j++)
        lincoll_plan_free(s->plan[j]);
    for (int j = 0; s->splan != NULL && j < s->P; j++)
        lincoll_plan_free(s->splan[j]);
    for (int j = 0; s->in != NULL && j < s->P; j++)
        free(s->in[j]);
    free(s->plan);
    free(s->splan);
    free(s->in);
    free(s->st);
    free(s->sst);
    free(s->out);
    free(s->view);
}

static lincoll_status_t lc_shrink_plan(lc_shrink_t *s, unsigned iter, int peer, int recv,
                                       lincoll_plan_t **plan_p)
{
    lincoll_comm_t *comm = s->comm;
    lc_env_t env = lc_exec_env(comm, 0);
    lc_plan_t *p;
    lincoll_status_t st = lc_plan_create(&env, "shrink", 1, &p);
    if (st != LINCOLL_OK) return st;
    st = lc_sendrecv_build(p, s->out, recv ? 0 : s->msg_bytes, recv ? -1 : peer,
                           recv ? s->in[peer] : NULL, recv ? s->msg_bytes : 0, recv ? peer : -1,
                           comm->shrinks, LINCOLL_SENDRECV_CONCURRENT);
    p->tag_round0 = LC_TAG_CTRL_ROUND + iter;
    if (st == LINCOLL_OK) st = lc_plan_finalize(p);
    if (st != LINCOLL_OK) {
        lc_plan_destroy(p);
        return st;
    }
    if ((st = lc_bind_local(comm, p, plan_p)) != LINCOLL_OK) return st;
    (void)lincoll_start(*plan_p);
    return LINCOLL_OK;
}

/* One exchange with every member of the view: send this member's view,
 * and (recv) receive theirs; st[j] is LINCOLL_OK where both completed.  A
 * receive that times out within `patience` seconds is posted again (a
 * member may join the agreement up to one timeout after another: its own
 * failed operation may have ended by the timeout). */
static lincoll_status_t lc_shrink_round(lc_shrink_t *s, unsigned iter, int recv, double patience)
{
    lincoll_comm_t *comm = s->comm;
    s->out->iter = iter;
    double t0 = lc_now();
    for (int j = 0; j < s->P; j++) {
        s->st[j] = s->sst[j] = LINCOLL_ERR_PEER_FAILED;
        if (j == s->me || !lc_bit(s->view, j)) continue;
        lincoll_status_t st = lc_shrink_plan(s, iter, j, 0, &s->splan[j]);
        if (st == LINCOLL_OK && recv) st = lc_shrink_plan(s, iter, j, 1, &s->plan[j]);
        if (st != LINCOLL_OK) return st;
        s->sst[j] = LINCOLL_INPROGRESS;
        s->st[j] = recv ? LINCOLL_INPROGRESS : LINCOLL_OK;
    }
    const unsigned every = comm->ctx->oversubscribed ? 1 : 64;
    unsigned left = every;
    for (int pending = 1; pending;) {
        pending = 0;
        for (int j = 0; j < s->P; j++) {
            if (s->sst[j] == LINCOLL_INPROGRESS) {
                s->sst[j] = lincoll_test(s->splan[j]);
                if (s->sst[j] == LINCOLL_INPROGRESS) {
                    pending = 1;
                } else {
                    lincoll_plan_free(s->splan[j]);
                    s->splan[j] = NULL;
                }
            }
            if (s->st[j] != LINCOLL_INPROGRESS) continue;
            s->st[j] = lincoll_test(s->plan[j]);
            if (s->st[j] == LINCOLL_INPROGRESS) {
                pending = 1;
                continue;
            }
            lincoll_plan_free(s->plan[j]);
            s->plan[j] = NULL;
            if (s->st[j] == LINCOLL_ERR_TIMEOUT && lc_now() - t0 < patience) {
                lincoll_status_t st = lc_shrink_plan(s, iter, j, 1, &s->plan[j]);
                if (st != LINCOLL_OK) return st;
                s->st[j] = LINCOLL_INPROGRESS;
                pending = 1;
            }
        }
        if (pending && --left == 0) {
            sched_yield();
            left = every;
        }
    }
    for (int j = 0; j < s->P; j++) {
        if (s->st[j] == LINCOLL_OK && s->sst[j] != LINCOLL_OK) s->st[j] = s->sst[j];
    }
    return LINCOLL_OK;
}

static lincoll_status_t lc_shrink_make(lc_shrink_t *s, uint32_t id, lincoll_comm_t **new_p)
{
    lincoll_comm_t *comm = s->comm;
    lincoll_context_t *ctx = comm->ctx;
    int n = lc_view_count(s, s->view);
    lincoll_comm_t *c = calloc(1, sizeof(*c));
    int *map = malloc((size_t)n * sizeof(int));
    if (c == NULL || map == NULL) {
        free(c);
        free(map);
        return LINCOLL_ERR_NOMEM;
    }
    int k = 0;
    for (int i = 0; i < s->P; i++) {
        if (!lc_bit(s->view, i)) continue;
        if (i == s->me) c->rank = k;
        map[k++] = comm->to_world[i];
    }
    ctx->next_comm_id = lc_comm_id_next(id);
    c->ctx = ctx;
    c->size = n;
    c->to_world = map;
    c->id = id & LC_TAG_MASK(LC_TAG_COMM_BITS);
    ctx->live_comms++;
    *new_p = c;
    return LINCOLL_OK;
}

static lincoll_status_t lc_shrink_run(lc_shrink_t *s, lincoll_comm_t **new_p)
{
    lincoll_comm_t *comm = s->comm;
    lincoll_context_t *ctx = comm->ctx;
    for (int j = 0; j < s->P; j++) {
        if (j != s->me && ctx->tl_ops->peer_status(ctx->tl, comm->to_world[j]) != LINCOLL_OK)
            lc_bit_clear(s->view, j);
    }
    uint32_t next_id = ctx->next_comm_id;
    /* each iteration that does not decide shrinks some member's view, so
     * 2P + 2 iterations bound a run that cannot decide */
    for (unsigned iter = 0; iter < 2u * (unsigned)s->P + 2u; iter++) {
        s->out->next_id = next_id;
        s->out->flags = 0;
        memcpy(s->out->mask, s->view, (size_t)s->words * 8);
        lincoll_status_t st = lc_shrink_round(s, iter, 1, iter == 0 ? 2 * comm->ctx->timeout : 0);
        if (st != LINCOLL_OK) return st;
        int same = 1;
        uint64_t *before = s->out->mask;
        for (int j = 0; j < s->P; j++) {
            if (j == s->me || !lc_bit(before, j)) continue;
            const lc_shrink_msg_t *m = s->in[j];
            if (s->st[j] != LINCOLL_OK || m->magic != LC_SHRINK_MAGIC) {
                lc_debug("comm shrink: member %d silent in iteration %u (%s)", j, iter,
                         lincoll_strerror(s->st[j]));
                lc_bit_clear(s->view, j);
                same = 0;
                continue;
            }
            if (m->flags & LC_SHRINK_LEFT) {
                /* it dropped itself; what else it could not hear is its own business */
                lc_bit_clear(s->view, j);
                same = 0;
                continue;
            }
            if (m->flags & LC_SHRINK_DECIDED) {
                /* a member decided one iteration earlier: take its group */
                memcpy(s->view, m->mask, (size_t)s->words * 8);
                if (!lc_bit(s->view, s->me)) break;
                return lc_shrink_make(s, m->next_id, new_p);
            }
            if (m->next_id > next_id) next_id = m->next_id;
            for (int w = 0; w < s->words; w++) {
                same &= m->mask[w] == before[w];
                s->view[w] &= m->mask[w];
            }
        }
        if (!lc_bit(s->view, s->me)) {
            /* tell the others at once so they need not wait for us */
            memcpy(s->out->mask, s->view, (size_t)s->words * 8);
            s->out->flags = LC_SHRINK_LEFT;
            (void)lc_shrink_round(s, iter + 1, 0, 0);
            lc_error("lincoll_comm_shrink: rank %d of %d was dropped by the other members (they "
                     "could not hear it within LINCOLL_TIMEOUT)",
                     s->me, s->P);
            return LINCOLL_ERR_PEER_FAILED;
        }
        if (same) {
            for (int w = 0; w < s->words; w++)
                same &= s->view[w] == before[w];
        }
        /* never on the first views: they were sent before their senders
         * heard from anyone, so a member that was silent for the timeout
         * and finds them waiting must not take them for agreement */
        same &= iter > 0;
        if (same) {
            /* decided: the group and the id are the same on every member
             * that decides here (each received the same views from all) */
            lincoll_status_t mk = lc_shrink_make(s, next_id, new_p);
            if (mk != LINCOLL_OK) return mk;
            s->out->flags = LC_SHRINK_DECIDED;
            s->out->next_id = next_id;
            (void)lc_shrink_round(s, iter + 1, 0, 0);
            return LINCOLL_OK;
        }
    }
    lc_error("lincoll_comm_shrink: the members of a %d-rank communicator did not agree within "
             "%d iterations",
             s->P, 2 * s->P + 2);
    return LINCOLL_ERR_TIMEOUT;
}

lincoll_status_t lincoll_comm_shrink(lincoll_comm_t *comm, lincoll_comm_t **new_p)
{
    LC_CHECK_ARG(comm != NULL, "lincoll_comm_shrink: comm must not be NULL");
    LC_CHECK_ARG(new_p != NULL, "lincoll_comm_shrink: new_p must not be NULL");
    *new_p = NULL;
    lc_shrink_t s = {.comm = comm, .P = comm->size, .me = comm->rank};
    s.words = (s.P + 63) / 64;
    s.msg_bytes = sizeof(lc_shrink_msg_t) + (size_t)s.words * 8;
    s.view = calloc((size_t)s.words, 8);
    s.out = calloc(1, s.msg_bytes);
    s.in = calloc((size_t)s.P, sizeof(*s.in));
    s.plan = calloc((size_t)s.P, sizeof(*s.plan));
    s.splan = calloc((size_t)s.P, sizeof(*s.splan));
    s.st = calloc((size_t)s.P, sizeof(*s.st));
    s.sst = calloc((size_t)s.P, sizeof(*s.sst));
    lincoll_status_t st = LINCOLL_OK;
    if (s.view == NULL || s.out == NULL || s.in == NULL || s.plan == NULL || s.splan == NULL ||
        s.st == NULL || s.sst == NULL) {
        st = LINCOLL_ERR_NOMEM;
    }
    for (int j = 0; st == LINCOLL_OK && j < s.P; j++) {
        if (j != s.me && (s.in[j] = calloc(1, s.msg_bytes)) == NULL) st = LINCOLL_ERR_NOMEM;
    }
    if (st == LINCOLL_OK) {
        for (int i = 0; i < s.P; i++)
            s.view[i / 64] |= UINT64_C(1) << (i % 64);
        s.out->magic = LC_SHRINK_MAGIC;
        double t0 = lc_now();
        st = lc_shrink_run(&s, new_p);
        if (st == LINCOLL_OK) {
            lc_info("comm shrink: %d of %d members remain (rank %d -> %d, id %u) in %.3f s",
                    (*new_p)->size, s.P, s.me, (*new_p)->rank, (*new_p)->id, lc_now() - t0);
        }
    }
    comm->shrinks++;
    lc_shrink_free(&s);
    return st;
}

int lincoll_comm_translate(const lincoll_comm_t *from, int rank, const lincoll_comm_t *to)
{
    if (from == NULL || to == NULL || from->ctx != to->ctx || rank < 0 || rank >= from->size) {
        return -1;
    }
    int w = from->to_world[rank];
    for (int i = 0; i < to->size; i++) {
        if (to->to_world[i] == w) return i;
    }
    return -1;
}
