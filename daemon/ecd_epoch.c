/*
 * daemon/ecd_epoch.c: membership epochs, one lincoll context each
 * (ecd_epoch.h): forming one (the leader's side and a member's), the
 * current one, its retirement and finalize, and the per-operation
 * communicators and tags on it.
 */
#include "daemon/ecd_daemon.h"
#include "daemon/ecd_epoch.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static pthread_mutex_t ep_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ep_cv = PTHREAD_COND_INITIALIZER;
static ecd_epoch_t *cur;      /* the installed epoch (ep_lock) */
static uint64_t max_seq;      /* the newest epoch number seen here */
static int forming;           /* a formation led by this node runs */
static unsigned long tag_ctr; /* tags drawn here (ep_lock) */
/* this node is in one formation at a time, as leader or member */
static pthread_mutex_t form_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t ecd_cluster_sig(const ecd_cluster_t *cl)
{
    uint64_t h = 14695981039346656037ull;
    char buf[128];
    snprintf(buf, sizeof(buf), "%d %d %d", cl->k, cl->m, cl->n);
    for (const char *s = buf; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    for (int i = 0; i < cl->n; i++)
        for (const char *s = cl->addr[i]; *s; s++)
            h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

void ecd_epoch_lock(ecd_epoch_t *e)
{
    pthread_mutex_lock(&e->mu);
}

void ecd_epoch_unlock(ecd_epoch_t *e)
{
    pthread_mutex_unlock(&e->mu);
}

/* e is newer than f (numbers, then leaders: two leaders at once never
 * install the same order differently). */
static int epoch_newer(const ecd_epoch_t *e, const ecd_epoch_t *f)
{
    return f == NULL || e->seq > f->seq || (e->seq == f->seq && e->leader < f->leader);
}

/* Install e as the current epoch (0), retiring the older one, or refuse it
 * (-1) when a newer one is already installed. */
static int epoch_install(ecd_epoch_t *e)
{
    pthread_mutex_lock(&ep_lock);
    int ok = epoch_newer(e, cur);
    if (ok) {
        if (cur != NULL) cur->retired = 1;
        cur = e;
    }
    if (e->seq > max_seq) max_seq = e->seq;
    pthread_cond_broadcast(&ep_cv);
    pthread_mutex_unlock(&ep_lock);
    if (ok) {
        char d[256];
        ecd_epoch_describe(d, sizeof(d));
        ecd_log("%s installed (lincoll_init %.3f s)", d, e->t_formed);
    }
    return ok ? 0 : -1;
}

static void epoch_retire(ecd_epoch_t *e)
{
    pthread_mutex_lock(&ep_lock);
    e->retired = 1;
    if (cur == e) cur = NULL;
    pthread_cond_broadcast(&ep_cv);
    pthread_mutex_unlock(&ep_lock);
}

void ecd_epoch_fail(ecd_epoch_t *e)
{
    if (e == NULL) return;
    ecd_log("epoch %llu: an operation on it failed; the next operation forms another",
            (unsigned long long)e->seq);
    epoch_retire(e);
}

void ecd_epoch_keep(ecd_epoch_t *e, void *mem)
{
    if (mem == NULL) return;
    if (e == NULL) { /* no context it could belong to: left allocated */
        ecd_log("a buffer a stopped transfer may still use is left allocated");
        return;
    }
    pthread_mutex_lock(&ep_lock);
    if (e->nkept == e->capkept) {
        int cap = e->capkept ? 2 * e->capkept : 8;
        void **k = realloc(e->kept, (size_t)cap * sizeof(*k));
        if (k != NULL) e->kept = k, e->capkept = cap;
    }
    if (e->nkept < e->capkept) e->kept[e->nkept++] = mem; /* else: leaked, never freed early */
    pthread_mutex_unlock(&ep_lock);
}

void ecd_epoch_release(ecd_epoch_t *e)
{
    if (e == NULL) return;
    pthread_mutex_lock(&ep_lock);
    e->refs--;
    pthread_cond_broadcast(&ep_cv);
    pthread_mutex_unlock(&ep_lock);
}

void ecd_epoch_describe(char *out, size_t cap)
{
    pthread_mutex_lock(&ep_lock);
    if (cur == NULL) {
        snprintf(out, cap, "epoch none (newest seen %llu)", (unsigned long long)max_seq);
    } else {
        int l = snprintf(out, cap, "epoch %llu leader %d ranks %d nodes ",
                         (unsigned long long)cur->seq, cur->leader, cur->n);
        for (int r = 0; r < cur->n && l > 0 && (size_t)l < cap; r++)
            l += snprintf(out + l, cap - (size_t)l, "%s%d", r ? "," : "", cur->node_of_rank[r]);
        if (l > 0 && (size_t)l < cap) snprintf(out + l, cap - (size_t)l, " ops %d", cur->refs);
    }
    pthread_mutex_unlock(&ep_lock);
}

uint64_t ecd_epoch_tags(ecd_epoch_t *e, int count)
{
    (void)e;
    pthread_mutex_lock(&ep_lock);
    unsigned long c = tag_ctr;
    tag_ctr += (unsigned long)count;
    pthread_mutex_unlock(&ep_lock);
    /* 32 nodes at most; (32000 + count) * 32 stays below LINCOLL_TAG_MAX */
    return 1 + (uint64_t)cfg.node + 32 * (uint64_t)(c % 32000);
}

lincoll_status_t ecd_epoch_group(ecd_epoch_t *e, const int *nodes, int n, lincoll_comm_t **comm_p)
{
    int ranks[ECD_MAX_NODES];
    for (int i = 0; i < n; i++) {
        if (nodes[i] < 0 || nodes[i] >= ECD_MAX_NODES || e->rank_of_node[nodes[i]] < 0)
            return LINCOLL_ERR_INVALID;
        ranks[i] = e->rank_of_node[nodes[i]];
    }
    ecd_epoch_lock(e);
    lincoll_status_t st =
        lincoll_comm_create_group(e->world, ranks, n, LINCOLL_GROUP_LOCAL, comm_p);
    ecd_epoch_unlock(e);
    return st;
}

lincoll_status_t ecd_epoch_drive(ecd_epoch_t *e, lincoll_plan_t *plan, ecd_conn_t *watch)
{
    lincoll_status_t st;
    ecd_epoch_lock(e);
    for (;;) {
        st = lincoll_test(plan);
        if (st != LINCOLL_INPROGRESS) break;
        if (watch != NULL) {
            struct pollfd p = {.fd = watch->fd, .events = POLLIN};
            if (ecd_conn_buffered(watch) || poll(&p, 1, 0) > 0) {
                ecd_epoch_unlock(e);
                ecd_log("epoch %llu: the coordinator's connection closed or spoke during a "
                        "collective; leaving it",
                        (unsigned long long)e->seq);
                return LINCOLL_ERR_PEER_FAILED;
            }
        }
        wait_until(&e->cv, &e->mu, 0.005); /* the service thread progresses meanwhile */
    }
    ecd_epoch_unlock(e);
    return st;
}

/* ---- the current epoch ---------------------------------------------------- */

static int epoch_fits(const ecd_epoch_t *e, uint64_t sig, const int *need, uint64_t stale)
{
    if (e == NULL || e->retired || e->seq == stale || e->sig != sig) return 0;
    for (int i = 0; need != NULL && i < ECD_MAX_NODES; i++)
        if (need[i] && e->rank_of_node[i] < 0) return 0;
    return 1;
}

static void epoch_kick(uint64_t stale);

ecd_epoch_t *ecd_epoch_get(const ecd_cluster_t *cl, const int *need, uint64_t stale, char *err,
                           size_t esize)
{
    const double deadline = ecd_now() + 3 * cfg.timeout;
    ecd_cluster_t now;
    for (int asked = 0;; asked++) {
        /* the cluster file as it is now: its leader, and the epoch must be its */
        if (ecd_cluster_load(cfg.cluster, &now, err, esize) != 0) now = *cl;
        cl = &now;
        const uint64_t sig = ecd_cluster_sig(cl);
        pthread_mutex_lock(&ep_lock);
        ecd_epoch_t *e = cur;
        if (epoch_fits(e, sig, need, stale)) {
            e->refs++;
            pthread_mutex_unlock(&ep_lock);
            return e;
        }
        /* the installed one does not fit: ask for one newer than it */
        uint64_t want_newer = e != NULL ? e->seq : stale;
        pthread_mutex_unlock(&ep_lock);
        if (ecd_now() > deadline || asked >= 4) {
            snprintf(err, esize, "no lincoll epoch holding this operation's nodes within %.0f s",
                     3 * cfg.timeout);
            return NULL;
        }
        /* the leader: the lowest-numbered node that answers */
        uint64_t got = 0;
        for (int i = 0; i < cl->n && got == 0; i++) {
            if (i == cfg.node) {
                epoch_kick(want_newer);
                got = 1;
                break;
            }
            char why[256] = "", line[ECD_LINE_MAX] = "";
            ecd_conn_t *c = ecd_connect(cl->addr[i], cfg.timeout < 3 ? cfg.timeout : 3,
                                        4 * cfg.timeout, why, sizeof(why));
            if (c == NULL) continue;
            if (ecd_printf(c, "EPOCHREQ %llu %d\n", (unsigned long long)want_newer, cfg.node) ==
                    0 &&
                ecd_read_line(c, line, sizeof(line)) >= 0 && strncmp(line, "OK ", 3) == 0)
                got = strtoull(line + 3, NULL, 10);
            else
                ecd_log("epoch: node %d did not give one: %s", i, line[0] ? line : strerror(errno));
            ecd_conn_close(c);
            if (got == 0) break; /* the leader refused: try again below */
        }
        /* wait for something newer than what did not fit */
        pthread_mutex_lock(&ep_lock);
        double until = ecd_now() + cfg.timeout;
        while (ecd_now() < until && ecd_now() < deadline && !epoch_fits(cur, sig, need, stale) &&
               (cur == NULL || cur->seq <= want_newer || cur->seq < got))
            wait_until(&ep_cv, &ep_lock, 0.05);
        pthread_mutex_unlock(&ep_lock);
        if (got == 0) usleep(50000 + (unsigned)(rand() % 100000));
    }
}

ecd_epoch_t *ecd_epoch_agree(const ecd_cluster_t *cl, ecd_conn_t *const *member, const int *nodes,
                             int n, int *lost, char *err, size_t esize)
{
    int need[ECD_MAX_NODES] = {0};
    for (int i = 0; i < n; i++)
        need[nodes[i]] = 1;
    uint64_t stale = 0;
    for (int attempt = 0; attempt < 2; attempt++) {
        ecd_epoch_t *e = ecd_epoch_get(cl, need, stale, err, esize);
        if (e == NULL) return NULL;
        int agreed = 1;
        for (int i = 0; i < n; i++)
            if (member[i] != NULL &&
                ecd_printf(member[i], "EPOCH %llu\n", (unsigned long long)e->seq) != 0) {
                *lost = 1;
                snprintf(err, esize, "node %d left: %s", nodes[i], strerror(errno));
                ecd_epoch_release(e);
                return NULL;
            }
        for (int i = 0; i < n; i++) {
            char line[ECD_LINE_MAX] = "";
            if (member[i] == NULL) continue;
            if (ecd_read_line(member[i], line, sizeof(line)) < 0) {
                *lost = 1;
                snprintf(err, esize, "node %d left: %s", nodes[i], strerror(errno));
                ecd_epoch_release(e);
                return NULL;
            }
            if (strcmp(line, "OK") != 0) {
                ecd_log("epoch %llu: node %d: %s", (unsigned long long)e->seq, nodes[i], line);
                agreed = 0;
            }
        }
        if (agreed) return e;
        stale = e->seq;
        ecd_epoch_release(e);
    }
    snprintf(err, esize, "the nodes did not agree on a lincoll epoch twice; try again");
    return NULL;
}

ecd_epoch_t *ecd_epoch_find(uint64_t seq)
{
    const double until = ecd_now() + cfg.timeout;
    ecd_epoch_t *e = NULL;
    pthread_mutex_lock(&ep_lock);
    while ((cur == NULL || cur->seq < seq) && max_seq <= seq && ecd_now() < until)
        wait_until(&ep_cv, &ep_lock, 0.05);
    if (cur != NULL && cur->seq == seq && !cur->retired) {
        e = cur;
        e->refs++;
    }
    pthread_mutex_unlock(&ep_lock);
    return e;
}

/* ---- an epoch's life: installed, held, retired, finalized ----------------- */

/* Whether c has bytes to read (1), is closed (-1), or is silent (0), TLS
 * records decoded (a close_notify is a close). */
static int conn_state(ecd_conn_t *c)
{
    return ecd_conn_state(c);
}

/* The epoch's thread after its install: wait for its retirement (a newer
 * one installed, an operation failed, the leader's RETIRE, a member's or the
 * leader's connection closed), then for its operations, then finalize. */
static void epoch_hold(ecd_epoch_t *e, ecd_group_t *g)
{
    int lost = -1; /* leader: the rank whose connection closed */
    for (;;) {
        pthread_mutex_lock(&ep_lock);
        int r = e->retired;
        pthread_mutex_unlock(&ep_lock);
        if (r) break;
        struct pollfd p[ECD_MAX_NODES];
        int np = 0;
        if (g->hub) {
            for (int i = 0; i < g->size; i++)
                if (g->member[i] != NULL) p[np++] = (struct pollfd){g->member[i]->fd, POLLIN, 0};
        } else {
            p[np++] = (struct pollfd){g->up->fd, POLLIN, 0};
        }
        if (poll(p, (nfds_t)np, 200) <= 0) continue;
        if (g->hub) {
            int speak = 0;
            for (int i = 0; i < g->size; i++) {
                int s = g->member[i] != NULL ? conn_state(g->member[i]) : 0;
                if (s < 0 && lost < 0) lost = i;
                speak |= s > 0; /* a member began its finalize: it retired the epoch */
            }
            if (lost >= 0 || speak) break;
        } else {
            int s = conn_state(g->up);
            if (s < 0) break;
            if (s > 0) {
                char line[ECD_LINE_MAX];
                if (ecd_read_line(g->up, line, sizeof(line)) < 0 || !strcmp(line, "RETIRE")) break;
            }
        }
    }
    epoch_retire(e);
    if (lost >= 0) {
        ecd_log("epoch %llu: node %d left (its connection closed); forming a new epoch",
                (unsigned long long)e->seq, e->node_of_rank[lost]);
        epoch_kick(e->seq);
    }
    if (g->hub)
        for (int i = 0; i < g->size; i++)
            if (g->member[i] != NULL) ecd_printf(g->member[i], "RETIRE\n");
    /* the operations on it end (they are bounded by the timeout) */
    pthread_mutex_lock(&ep_lock);
    double until = ecd_now() + 6 * cfg.timeout;
    while (e->refs > 0 && ecd_now() < until)
        wait_until(&ep_cv, &ep_lock, 0.1);
    int left = e->refs;
    pthread_mutex_unlock(&ep_lock);
    if (left > 0) {
        ecd_log("epoch %llu: %d operations still on it after %.0f s; not finalized",
                (unsigned long long)e->seq, left, 6 * cfg.timeout);
        return; /* leaked rather than freed under a running operation */
    }
    ecd_service_stop(e);
    if (g->hub)
        for (int i = 0; i < g->size; i++)
            if (g->member[i] != NULL) g->member[i]->idle = 2 * cfg.timeout;
    if (g->up != NULL) g->up->idle = 2 * cfg.timeout;
    lincoll_status_t st = lincoll_finalize(e->ctx);
    ecd_log("epoch %llu finalized%s%s", (unsigned long long)e->seq, st == LINCOLL_OK ? "" : ": ",
            st == LINCOLL_OK ? "" : lincoll_strerror(st));
    for (int i = 0; i < e->nkept; i++) /* the transport is closed: nothing touches them */
        free(e->kept[i]);
    free(e->kept);
    pthread_mutex_destroy(&e->mu);
    pthread_cond_destroy(&e->cv);
    free(e);
}

/* After lincoll_init: the epoch's record, its service thread, its install. */
static ecd_epoch_t *epoch_make(lincoll_context_t *ctx, uint64_t seq, int leader, int rank, int n,
                               const int *node_of_rank, uint64_t sig, double t_init)
{
    ecd_epoch_t *e = calloc(1, sizeof(*e));
    if (e == NULL) {
        lincoll_finalize(ctx);
        return NULL;
    }
    e->seq = seq, e->leader = leader, e->rank = rank, e->n = n, e->sig = sig, e->ctx = ctx;
    e->t_formed = t_init;
    for (int i = 0; i < ECD_MAX_NODES; i++)
        e->rank_of_node[i] = -1;
    for (int r = 0; r < n; r++) {
        e->node_of_rank[r] = node_of_rank[r];
        e->rank_of_node[node_of_rank[r]] = r;
    }
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->cv, NULL);
    lincoll_comm_world(ctx, &e->world);
    if (ecd_service_start(e) != 0)
        ecd_log("epoch %llu: no service thread", (unsigned long long)seq);
    return e;
}

/* ---- forming an epoch: the leader ----------------------------------------- */

typedef struct lead_arg {
    uint64_t stale;
} lead_arg_t;

static void *lead_main(void *arg)
{
    uint64_t stale = ((lead_arg_t *)arg)->stale;
    free(arg);
    ecd_cluster_t cl;
    char err[512] = "";
    ecd_conn_t *conn[ECD_MAX_NODES] = {NULL}, *member[ECD_MAX_NODES] = {NULL};
    int nodes[ECD_MAX_NODES], n = 0, locked = 0, ok = 0;
    uint64_t seq = 0;
    ecd_group_t g = {.hub = 1, .timeout = cfg.timeout};
    ecd_epoch_t *e = NULL;
    double t0 = ecd_now();
    if (ecd_cluster_load(cfg.cluster, &cl, err, sizeof(err)) != 0 || cfg.node >= cl.n) {
        ecd_log("epoch: cannot form one: %s", err[0] ? err : "this node is not in the cluster");
        goto out;
    }
    pthread_mutex_lock(&ep_lock);
    seq = max_seq > stale ? max_seq : stale;
    pthread_mutex_unlock(&ep_lock);
    /* every node in ascending order, this one's formation lock at its turn;
     * a node in another leader's formation is asked again within T */
    for (int i = 0; i < cl.n; i++) {
        double busy_until = ecd_now() + cfg.timeout;
        for (;;) {
            int busy = 0;
            if (i == cfg.node) {
                if (pthread_mutex_trylock(&form_lock) == 0)
                    locked = 1;
                else
                    busy = 1;
            } else {
                char why[256] = "", line[ECD_LINE_MAX] = "";
                ecd_conn_t *c = ecd_connect(cl.addr[i], cfg.timeout < 3 ? cfg.timeout : 3,
                                            cfg.timeout, why, sizeof(why));
                if (c != NULL && ecd_printf(c, "EPOCHJOIN %d\n", cfg.node) == 0 &&
                    ecd_read_line(c, line, sizeof(line)) >= 0 &&
                    strncmp(line, "OK ready ", 9) == 0) {
                    uint64_t s = strtoull(line + 9, NULL, 10);
                    if (s > seq) seq = s;
                    conn[i] = c;
                } else {
                    busy = strstr(line, "busy") != NULL;
                    ecd_conn_close(c);
                }
            }
            if (!busy || ecd_now() >= busy_until) break;
            usleep(20000 + (unsigned)(rand() % 30000));
        }
        if (conn[i] != NULL || (i == cfg.node && locked)) nodes[n++] = i;
        if (conn[i] != NULL && i < cfg.node) { /* a lower node is up: it leads */
            ecd_log("epoch: node %d is up and leads; none formed here", i);
            goto out;
        }
    }
    if (!locked) {
        ecd_log("epoch: this node is busy forming another epoch");
        goto out;
    }
    if (n < cl.k) { /* (a cluster file not yet complete, a partition) */
        ecd_log("epoch: only %d of %d nodes answered; RS(%d,%d) needs %d: none formed", n, cl.n,
                cl.k, cl.m, cl.k);
        goto out;
    }
    seq++;
    char list[ECD_MAX_NODES * 4] = "";
    for (int r = 0; r < n; r++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof(list) - l, "%s%d", r ? "," : "", nodes[r]);
        if (nodes[r] == cfg.node) g.rank = r;
    }
    g.size = n;
    g.member = member;
    uint64_t sig = ecd_cluster_sig(&cl);
    for (int r = 0; r < n; r++) {
        if (nodes[r] == cfg.node) continue;
        member[r] = conn[nodes[r]];
        conn[nodes[r]] = NULL;
        if (ecd_printf(member[r], "RANKS %llu %d %d %s %llu\n", (unsigned long long)seq, r, n, list,
                       (unsigned long long)sig) != 0) {
            ecd_log("epoch %llu: node %d left before its ranks: %s", (unsigned long long)seq,
                    nodes[r], strerror(errno));
            goto out;
        }
    }
    double ti = ecd_now();
    lincoll_context_t *ctx = NULL;
    lincoll_status_t st = ecd_group_context(&g, &ctx);
    pthread_mutex_unlock(&form_lock);
    locked = 0;
    if (st != LINCOLL_OK) {
        ecd_log("epoch %llu: lincoll_init over nodes %s: %s", (unsigned long long)seq, list,
                lincoll_strerror(st));
        goto out;
    }
    e = epoch_make(ctx, seq, cfg.node, g.rank, n, nodes, sig, ecd_now() - ti);
    if (e == NULL) goto out;
    if (epoch_install(e) != 0) epoch_retire(e);
    ecd_log("epoch %llu formed over nodes %s in %.3f s", (unsigned long long)seq, list,
            ecd_now() - t0);
    ok = 1;
out:
    if (locked) pthread_mutex_unlock(&form_lock);
    pthread_mutex_lock(&ep_lock);
    forming = 0;
    pthread_cond_broadcast(&ep_cv);
    pthread_mutex_unlock(&ep_lock);
    if (ok) epoch_hold(e, &g);
    for (int i = 0; i < ECD_MAX_NODES; i++) {
        ecd_conn_close(conn[i]);
        ecd_conn_close(member[i]);
    }
    return NULL;
}

/* Start a formation led by this node unless one runs. */
static void epoch_kick(uint64_t stale)
{
    pthread_mutex_lock(&ep_lock);
    int start = !forming;
    if (start) forming = 1;
    pthread_mutex_unlock(&ep_lock);
    if (!start) return;
    lead_arg_t *a = malloc(sizeof(*a));
    if (a != NULL) a->stale = stale;
    if (a == NULL || ecd_thread_start(lead_main, a) != 0) {
        free(a);
        pthread_mutex_lock(&ep_lock);
        forming = 0;
        pthread_cond_broadcast(&ep_cv);
        pthread_mutex_unlock(&ep_lock);
    }
}

void ecd_epoch_check(void)
{
    ecd_cluster_t cl;
    char err[512];
    if (ecd_cluster_load(cfg.cluster, &cl, err, sizeof(err)) != 0) return;
    const uint64_t sig = ecd_cluster_sig(&cl);
    if (cfg.node >= cl.n) return;
    pthread_mutex_lock(&ep_lock);
    int ask = (cur == NULL || cur->sig != sig) && !forming;
    pthread_mutex_unlock(&ep_lock);
    /* none (at start, after the leader left) or one of another cluster file:
     * ask the leader of this file (every node asks the same one, which forms
     * one epoch for all) before an operation needs it */
    if (ask) ecd_epoch_release(ecd_epoch_get(&cl, NULL, 0, err, sizeof(err)));
}

void peer_epochreq(ecd_conn_t *c, char **w, int nw)
{
    if (nw != 3) {
        reply_err(c, "usage: EPOCHREQ STALE NODE");
        return;
    }
    uint64_t stale = strtoull(w[1], NULL, 10);
    int node = atoi(w[2]);
    ecd_cluster_t cl;
    char err[512] = "";
    if (node < 0 || node >= ECD_MAX_NODES || ecd_cluster_load(cfg.cluster, &cl, err, sizeof(err))) {
        reply_err(c, "EPOCHREQ: %s", err[0] ? err : "node out of range");
        return;
    }
    int need[ECD_MAX_NODES] = {0};
    need[node] = 1;
    need[cfg.node] = 1;
    const uint64_t sig = ecd_cluster_sig(&cl);
    const double deadline = ecd_now() + 2 * cfg.timeout;
    int kicked = 0;
    pthread_mutex_lock(&ep_lock);
    for (;;) {
        if (epoch_fits(cur, sig, need, stale) && cur->leader == cfg.node && cur->seq > stale) {
            uint64_t s = cur->seq;
            pthread_mutex_unlock(&ep_lock);
            ecd_printf(c, "OK %llu\n", (unsigned long long)s);
            return;
        }
        if (ecd_now() > deadline) break;
        if (!forming && kicked < 3) {
            uint64_t st = cur != NULL && cur->seq > stale ? cur->seq : stale;
            pthread_mutex_unlock(&ep_lock);
            epoch_kick(st);
            kicked++;
            pthread_mutex_lock(&ep_lock);
        }
        wait_until(&ep_cv, &ep_lock, 0.05);
    }
    pthread_mutex_unlock(&ep_lock);
    reply_err(c, "EPOCHREQ: no epoch holding node %d formed within %.0f s", node, 2 * cfg.timeout);
}

/* ---- forming an epoch: a member ------------------------------------------- */

void peer_epochjoin(ecd_conn_t *c, char **w, int nw)
{
    if (nw != 2) {
        reply_err(c, "usage: EPOCHJOIN LEADER");
        return;
    }
    if (pthread_mutex_trylock(&form_lock) != 0) {
        reply_err(c, "busy forming another epoch");
        return;
    }
    int leader = atoi(w[1]);
    pthread_mutex_lock(&ep_lock);
    uint64_t seen = max_seq;
    pthread_mutex_unlock(&ep_lock);
    char line[ECD_LINE_MAX], *ww[8];
    int nodes[ECD_MAX_NODES], n = 0;
    if (ecd_printf(c, "OK ready %llu\n", (unsigned long long)seen) != 0 ||
        ecd_read_line(c, line, sizeof(line)) < 0 || ecd_split(line, ww, 8) != 6 ||
        strcmp(ww[0], "RANKS") != 0) {
        pthread_mutex_unlock(&form_lock);
        return; /* the leader gave up on this node */
    }
    uint64_t seq = strtoull(ww[1], NULL, 10), sig = strtoull(ww[5], NULL, 10);
    int rank = atoi(ww[2]), size = atoi(ww[3]);
    for (char *s = ww[4]; n < ECD_MAX_NODES && *s;) {
        nodes[n++] = (int)strtol(s, &s, 10);
        if (*s == ',') s++;
    }
    if (seq <= seen || size != n || rank < 0 || rank >= n || nodes[rank] != cfg.node) {
        ecd_log("epoch: refused '%s' from leader %d (newest seen here %llu)", line, leader,
                (unsigned long long)seen);
        pthread_mutex_unlock(&form_lock);
        return;
    }
    ecd_group_t g = {.rank = rank, .size = n, .up = c, .timeout = cfg.timeout};
    double ti = ecd_now();
    lincoll_context_t *ctx = NULL;
    lincoll_status_t st = ecd_group_context(&g, &ctx);
    pthread_mutex_unlock(&form_lock);
    if (st != LINCOLL_OK) {
        ecd_log("epoch %llu: lincoll_init (rank %d of %d): %s", (unsigned long long)seq, rank, n,
                lincoll_strerror(st));
        return;
    }
    ecd_epoch_t *e = epoch_make(ctx, seq, leader, rank, n, nodes, sig, ecd_now() - ti);
    if (e == NULL) return;
    if (epoch_install(e) != 0) epoch_retire(e);
    epoch_hold(e, &g);
}

void peer_epochstat(ecd_conn_t *c, char **w, int nw)
{
    (void)w;
    (void)nw;
    char d[512];
    ecd_epoch_describe(d, sizeof(d));
    ecd_printf(c, "OK %s\n", d);
}
