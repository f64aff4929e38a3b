/*
 * daemon/ecd_op.c: membership and groups.  The cluster's nodes as seen by
 * one operation (OP sessions: who answers is live), the placement of an
 * object's rows on nodes, operation ids, and a member's side of an OP
 * session (peer_op), which hands ENCODE to ecd_put_member.c and REPAIR to
 * ecd_repair.c.
 */
#include "daemon/ecd_daemon.h"
#include "daemon/ecd_epoch.h"
#include "kernels/crc/crc32c.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Operation locks: an operation on one object (a put) holds that name and
 * a read hold of op_rw, so operations on different objects run at once; an
 * operation on the whole node (a repair) holds op_rw for writing. */
static pthread_rwlock_t op_rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
typedef struct op_name {
    struct op_name *next;
    char name[ECD_NAME_MAX + 1];
} op_name_t;
static op_name_t *names; /* the objects with an operation here */

int op_lock_try(const char *name)
{
    if (name == NULL || name[0] == '\0') return pthread_rwlock_trywrlock(&op_rw) == 0 ? 0 : -1;
    if (pthread_rwlock_tryrdlock(&op_rw) != 0) return -1;
    op_name_t *n = malloc(sizeof(*n));
    pthread_mutex_lock(&names_lock);
    int held = n == NULL;
    for (op_name_t *q = names; q != NULL && !held; q = q->next)
        held = strcmp(q->name, name) == 0;
    if (!held) {
        snprintf(n->name, sizeof(n->name), "%s", name);
        n->next = names;
        names = n;
    }
    pthread_mutex_unlock(&names_lock);
    if (held) {
        free(n);
        pthread_rwlock_unlock(&op_rw);
        return -1;
    }
    return 0;
}

void op_unlock(const char *name)
{
    if (name != NULL && name[0] != '\0') {
        pthread_mutex_lock(&names_lock);
        for (op_name_t **q = &names; *q != NULL; q = &(*q)->next)
            if (strcmp((*q)->name, name) == 0) {
                op_name_t *d = *q;
                *q = d->next;
                free(d);
                break;
            }
        pthread_mutex_unlock(&names_lock);
    }
    pthread_rwlock_unlock(&op_rw);
}
static unsigned long op_counter;
static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;

/* Rows to nodes: the placement's nodes in weight order (so data rows spread
 * over every node), with the live ones first, so that the dead ones, at
 * most m of them, hold parity rows only. */
void place(const char *name, int nnodes, int width, const int *live, int *node_of_row)
{
    int set[ECD_MAX_NODES], r = 0;
    placement(name, nnodes, width, set);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < width; i++)
            if ((pass == 0) == (live[set[i]] != 0)) node_of_row[r++] = set[i];
}

uint64_t *generator(int n, int k)
{
    uint64_t *G = malloc(sizeof(uint64_t) * (size_t)n * (size_t)k);
    if (G != NULL &&
        lincoll_gf_matrix_systematic(gf, n, k, LINCOLL_GF_RS_CAUCHY, G) != LINCOLL_OK) {
        free(G);
        G = NULL;
    }
    return G;
}

/* One row of the code: out = sum_j data_j G[row][j]. */
int encode_row(const uint64_t *G, int k, int row, const uint8_t *data, size_t chunk, uint8_t *out)
{
    if (row < k) {
        memcpy(out, data + (size_t)row * chunk, chunk);
        return 0;
    }
    const void *src[ECD_MAX_NODES];
    for (int j = 0; j < k; j++)
        src[j] = data + (size_t)j * chunk;
    void *dst[1] = {out};
    return lincoll_gf_encode(gf, k, 1, G + (size_t)row * (size_t)k, chunk, src, dst) == LINCOLL_OK
               ? 0
               : -1;
}

void new_opid(char *out, size_t cap)
{
    pthread_mutex_lock(&counter_lock);
    unsigned long n = ++op_counter;
    pthread_mutex_unlock(&counter_lock);
    snprintf(out, cap, "n%d-%ld-%d-%lu", cfg.node, (long)time(NULL), (int)getpid(), n);
}

/* "OP id self [name]" to node i, on a kept connection if there is one
 * (ecd_peer_request); the answer in line.  NULL: no answer (why). */
static ecd_conn_t *op_session(op_t *op, int i, char *line, size_t lsize, char *why, size_t wsize)
{
    char req[ECD_LINE_MAX];
    snprintf(req, sizeof(req), "OP %s %d%s%s\n", op->id, cfg.node, op->name[0] ? " " : "",
             op->name);
    return ecd_peer_request(op->cl.addr[i], req, line, lsize, why, wsize);
}

/* Every node of want asked at once, this node's own lock tried among
 * them: no waiting, so the order in which nodes are held does not matter.
 * Returns 0 when no node was busy: the operation is formed (nodes that did
 * not answer are down, as in op_begin_named).  Otherwise 1: every node
 * taken is let go again, and the caller asks one node at a time.  With
 * pre (op_begin_pre), a node's first request goes with its OP, and the
 * operation stands only if every node of want joined (op->pre); otherwise
 * the sessions are closed, so that no member keeps what it was sent. */
static int op_try_all(op_t *op, const int *want, const ecd_op_pre_t *pre)
{
    char req[ECD_LINE_MAX], preq[ECD_LINE_MAX];
    const int ql = snprintf(req, sizeof(req), "OP %s %d%s%s\n", op->id, cfg.node,
                            op->name[0] ? " " : "", op->name);
    const double t = cfg.timeout < 3 ? cfg.timeout : 3;
    char why[ECD_MAX_NODES][256];
    int asked[ECD_MAX_NODES] = {0}, nbusy = 0;
    for (int i = 0; i < op->cl.n; i++) {
        why[i][0] = '\0';
        if ((want != NULL && !want[i]) || i == cfg.node) continue;
        op->conn[i] = ecd_peer_connect(op->cl.addr[i], t, cfg.timeout, why[i], sizeof(why[i]));
        if (op->conn[i] == NULL) continue;
        if (pre == NULL || pre->buf[i] == NULL) {
            asked[i] = ecd_write(op->conn[i], req, (size_t)ql) == 0;
            continue;
        }
        /* "OP ... NAME +LEN" and the LEN bytes of the first request, one write */
        int rl = snprintf(preq, sizeof(preq), "OP %s %d %s +%zu\n", op->id, cfg.node, op->name,
                          pre->len[i]);
        uint8_t *at = pre->buf[i] + ECD_LINE_MAX - rl;
        memcpy(at, preq, (size_t)rl);
        asked[i] = ecd_write(op->conn[i], at, (size_t)rl + pre->len[i]) == 0;
    }
    if (op_lock_try(op->name) == 0) {
        op->self_locked = 1;
        op->live[cfg.node] = 1;
        op->nlive++;
    } else {
        nbusy++;
    }
    for (int i = 0; i < op->cl.n; i++) {
        if ((want != NULL && !want[i]) || i == cfg.node) continue;
        char line[ECD_LINE_MAX] = "";
        ecd_conn_t *c = op->conn[i];
        op->conn[i] = NULL;
        if (c != NULL && !(asked[i] && ecd_read_line(c, line, sizeof(line)) >= 0)) {
            snprintf(why[i], sizeof(why[i]), "%s", strerror(errno));
            int pooled = c->from_pool;
            ecd_conn_close(c);
            c = pooled ? op_session(op, i, line, sizeof(line), why[i], sizeof(why[i])) : NULL;
        }
        if (c != NULL && strcmp(line, "OK ready") == 0) {
            op->conn[i] = c;
            op->live[i] = 1;
            op->nlive++;
            continue;
        }
        if (c != NULL) snprintf(why[i], sizeof(why[i]), "%s", line);
        ecd_conn_close(c);
        nbusy += strstr(line, "busy") != NULL;
        size_t l = strlen(op->down);
        snprintf(op->down + l, sizeof(op->down) - l, "%s%d (%s)", l ? ", " : "", i, why[i]);
    }
    int whole = 1; /* every node of want joined: with pre, nothing less stands */
    for (int i = 0; i < op->cl.n && pre != NULL; i++)
        if ((want == NULL || want[i]) && !op->live[i]) whole = 0;
    if (nbusy > 0 || !whole) {
        /* "OK ready" was their whole answer, unless a first request went with OP */
        for (int i = 0; i < ECD_MAX_NODES; i++)
            if (op->conn[i] != NULL) op->conn[i]->reuse = pre == NULL;
        op_end(op); /* so END lets them go, and they are kept; or closed: nothing stands */
        op->nlive = 0;
        op->down[0] = '\0';
        memset(op->live, 0, sizeof(op->live));
    }
    op->pre = pre != NULL && nbusy == 0 && whole;
    return nbusy > 0 || !whole;
}

/* Contact the nodes of `want` (all when NULL): first all at once
 * (op_try_all), which forms the operation when no node is busy; otherwise
 * in ascending node order, this
 * node's own operation lock at its turn: "OP id self" -> "OK ready".  A busy
 * node is in another operation, which holds nodes in the same order, so
 * waiting never closes a cycle; it is asked again until T after the start
 * (the members that already answered wait 3T for the next line), then it is
 * down for this operation.  Unreachable nodes are down at once.  When fewer
 * than k nodes are live because some were busy, everything is let go and
 * taken again (up to 3T in all): a busy node never fails an operation
 * that can wait for it. */
int op_begin(op_t *op, const int *want, char *err, size_t esize)
{
    return op_begin_named(op, want, NULL, err, esize);
}

int op_begin_named(op_t *op, const int *want, const char *name, char *err, size_t esize)
{
    return op_begin_pre(op, want, name, NULL, err, esize);
}

int op_begin_pre(op_t *op, const int *want, const char *name, const ecd_op_pre_t *pre, char *err,
                 size_t esize)
{
    memset(op, 0, sizeof(*op));
    if (name != NULL) snprintf(op->name, sizeof(op->name), "%s", name);
    if (ecd_cluster_load(cfg.cluster, &op->cl, err, esize) != 0) return -1;
    if (cfg.node >= op->cl.n) {
        snprintf(err, esize, "this daemon is node %d but the cluster file has nodes 0..%d",
                 cfg.node, op->cl.n - 1);
        return -1;
    }
    new_opid(op->id, sizeof(op->id));
    if (pre != NULL && op_try_all(op, want, pre) == 0) return 0; /* all joined, pre taken */
    if (op_try_all(op, want, NULL) == 0) {                       /* the common case: nobody busy */
        if (op->down[0]) ecd_log("op %s: nodes down: %s", op->id, op->down);
        return 0;
    }
    const double t_start = ecd_now(), give_up = t_start + 3 * cfg.timeout;
    for (int attempt = 0;; attempt++) {
        double busy_until = ecd_now() + cfg.timeout;
        if (busy_until > give_up) busy_until = give_up;
        int nbusy = 0;
        for (int i = 0; i < op->cl.n; i++) {
            if (want != NULL && !want[i] && i != cfg.node) continue;
            char why[256] = "";
            int busy;
            do {
                busy = 0;
                why[0] = '\0';
                if (i == cfg.node) {
                    if (op_lock_try(op->name) == 0) {
                        op->self_locked = 1;
                        op->live[i] = 1;
                    } else {
                        busy = 1;
                        snprintf(why, sizeof(why), "busy with another operation");
                    }
                } else {
                    char line[ECD_LINE_MAX] = "";
                    ecd_conn_t *c = op_session(op, i, line, sizeof(line), why, sizeof(why));
                    if (c != NULL && !strcmp(line, "OK ready")) {
                        op->conn[i] = c;
                        op->live[i] = 1;
                    } else {
                        if (c != NULL) snprintf(why, sizeof(why), "%s", line);
                        ecd_conn_close(c);
                        busy = strstr(line, "busy") != NULL;
                    }
                }
                if (busy && ecd_now() < busy_until) usleep(20000 + (unsigned)(rand() % 30000));
            } while (busy && ecd_now() < busy_until);
            if (op->live[i]) {
                op->nlive++;
                continue;
            }
            nbusy += busy;
            size_t l = strlen(op->down);
            snprintf(op->down + l, sizeof(op->down) - l, "%s%d (%s)", l ? ", " : "", i, why);
        }
        if (op->nlive >= op->cl.k || nbusy == 0 || ecd_now() >= give_up) {
            if (op->nlive < op->cl.k && nbusy > 0)
                snprintf(err, esize, "nodes busy with other operations for %.0f s (%s); try again",
                         ecd_now() - t_start, op->down);
            break;
        }
        /* too few for the code because of busy nodes: let go, take again */
        op_end(op);
        char id[64];
        snprintf(id, sizeof(id), "%s", op->id);
        ecd_cluster_t cl = op->cl;
        memset(op, 0, sizeof(*op));
        snprintf(op->id, sizeof(op->id), "%s", id);
        if (name != NULL) snprintf(op->name, sizeof(op->name), "%s", name);
        op->cl = cl;
        usleep(50000 + (unsigned)(rand() % 100000) * (unsigned)(attempt < 5 ? attempt + 1 : 5));
    }
    if (op->down[0]) ecd_log("op %s: nodes down: %s", op->id, op->down);
    if (err[0] != '\0') {
        op_end(op);
        return -1;
    }
    return 0;
}

void op_end(op_t *op)
{
    for (int i = 0; i < ECD_MAX_NODES; i++) {
        ecd_conn_t *c = op->conn[i];
        op->conn[i] = NULL;
        if (c == NULL) continue;
        if (c->reuse && (op->ended[i] || ecd_printf(c, "END\n") == 0))
            ecd_peer_keep(op->cl.addr[i], c);
        else
            ecd_conn_close(c);
    }
    if (op->self_locked) op_unlock(op->name);
    op->self_locked = 0;
}

int wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, double seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long long ns = ts.tv_nsec + (long long)(seconds * 1e9);
    ts.tv_sec += (time_t)(ns / 1000000000LL);
    ts.tv_nsec = (long)(ns % 1000000000LL);
    return pthread_cond_timedwait(cv, mu, &ts);
}

void sanitize_opid(char *opid)
{
    for (char *q = opid; *q; q++)
        if (!((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'z') || *q == '-')) *q = '_';
}

/* A put that reached a node outside the object's placement goes to the
 * first of its nodes that answers, which coordinates it: the request line,
 * the upload (at --client-rate), then the answer back.  An upload that fits
 * one buffer is read whole first and goes on a kept connection (no
 * handshake); if that connection turns out closed by its daemon before any
 * answer, it is sent once more on a new one.  A larger upload streams on a
 * new connection, kept afterwards like the other. */
void put_forward(ecd_conn_t *c, const ecd_cluster_t *cl, const int *set, const char *name,
                 uint64_t size)
{
    char why[256] = "", line[ECD_LINE_MAX] = "", req[ECD_LINE_MAX];
    /* a small upload is read whole into data, and its PUT line goes right
     * before it (in buf's head room): one write to the coordinator */
    uint8_t buf[ECD_LINE_MAX + 65536], *data = buf + ECD_LINE_MAX;
    const int whole = size <= sizeof(buf) - ECD_LINE_MAX;
    const int rl = snprintf(req, sizeof(req), "PUT %s %llu\n", name, (unsigned long long)size);
    const double ct = cfg.timeout < 3 ? cfg.timeout : 3;
    c->deadline = ecd_now() + cfg.timeout + (double)size / cfg.client_rate;
    if (whole && ecd_read(c, data, (size_t)size) != 0) {
        reply_err(c, "PUT %s failed: upload truncated (%s); nothing written", name,
                  ecd_now() >= c->deadline ? "slower than --client-rate" : strerror(errno));
        return;
    }
    ecd_conn_t *pc = NULL;
    int to = -1;
    for (int i = 0; i < cl->k + cl->m && pc == NULL; i++) {
        to = set[i];
        pc = whole ? ecd_peer_connect(cl->addr[to], ct, 3 * cfg.timeout, why, sizeof(why))
                   : ecd_peer_fresh(cl->addr[to], ct, 3 * cfg.timeout, why, sizeof(why));
    }
    if (pc == NULL) {
        c->deadline = 0;
        reply_err(c, "PUT %s failed: none of its %d nodes is reachable (%s)", name, cl->k + cl->m,
                  why);
        return;
    }
    int ok = 0;
    if (whole) {
        for (int again = 0; pc != NULL; again++) {
            line[0] = '\0';
            memcpy(data - rl, req, (size_t)rl);
            ok = ecd_write(pc, data - rl, (size_t)rl + (size_t)size) == 0;
            if (ok && ecd_read_line(pc, line, sizeof(line)) >= 0) break;
            ok = 0;
            if (!pc->from_pool || again || line[0] != '\0') break;
            ecd_conn_close(pc); /* its daemon closed it while it was kept: a new one */
            pc = ecd_peer_fresh(cl->addr[to], ct, 3 * cfg.timeout, why, sizeof(why));
        }
    } else {
        uint64_t left = size;
        ok = ecd_write(pc, req, (size_t)rl) == 0;
        while (ok && left > 0) {
            size_t nb = left < sizeof(buf) ? (size_t)left : sizeof(buf);
            if (ecd_read(c, buf, nb) != 0) {
                reply_err(c, "PUT %s failed: upload truncated (%s); nothing written", name,
                          c->deadline > 0 && ecd_now() >= c->deadline ? "slower than --client-rate"
                                                                      : strerror(errno));
                ecd_conn_close(pc); /* node `to` sees the upload break: nothing written */
                return;
            }
            ok = ecd_write(pc, buf, nb) == 0;
            left -= nb;
        }
        ok = ok && ecd_read_line(pc, line, sizeof(line)) >= 0; /* the upload was read whole */
    }
    c->deadline = 0;
    if (ok) {
        c->reuse = ecd_printf(c, "%s\n", line) == 0 && strncmp(line, "OK ", 3) == 0;
        pc->reuse = strncmp(line, "OK ", 3) == 0; /* its daemon closes it after an ERR */
        ecd_peer_keep(cl->addr[to], pc);
    } else {
        reply_err(c, "PUT %s failed: node %d, its coordinator, broke off: %s", name, to,
                  line[0] ? line : strerror(errno));
        ecd_conn_close(pc);
    }
}

/* Read and drop `left` bytes that came with a refused OP, so that the
 * coordinator reads the answer rather than a reset. */
static void drain_pre(ecd_conn_t *c, uint64_t left)
{
    uint8_t buf[16384];
    while (left > 0) {
        size_t n = left < sizeof(buf) ? (size_t)left : sizeof(buf);
        if (ecd_read(c, buf, n) != 0) return;
        left -= n;
    }
}

/* "OP ID COORDINATOR [NAME [+LEN]]": this node takes part in a group
 * operation (on object NAME: operations on other objects run beside it).
 * +LEN: the session's first request (LEN bytes: ENCODE and its inline
 * piece) came with the OP; it is read after "OK ready", or dropped with a
 * refusal.  "EPOCH SEQ" in the session checks that this node is in that
 * epoch ("OK", or "ERR epoch ... have S": the session goes on, the
 * coordinator asks again with a newer one). */
void peer_op(ecd_conn_t *c, char **w, int nw)
{
    char *end = NULL;
    unsigned long long pre = nw == 5 && w[4][0] == '+' ? strtoull(w[4] + 1, &end, 10) : 0;
    int pre_ok = nw != 5 || (end != NULL && end != w[4] + 1 && *end == '\0' &&
                             pre <= (unsigned long long)ECD_LINE_MAX + ECD_INLINE_MAX);
    if (nw < 3 || nw > 5 || (nw >= 4 && !ecd_name_ok(w[3])) || !pre_ok) {
        if (pre_ok) drain_pre(c, pre);
        reply_err(c, "usage: OP ID COORDINATOR [NAME [+LEN]] (LEN up to %u)",
                  (unsigned)ECD_LINE_MAX + ECD_INLINE_MAX);
        return;
    }
    const char *name = nw >= 4 ? w[3] : NULL;
    if (op_lock_try(name) != 0) {
        drain_pre(c, pre);
        reply_err(c, "busy with another operation%s%s", name ? " on " : "", name ? name : "");
        return;
    }
    char opid[64];
    snprintf(opid, sizeof(opid), "%s", w[1]);
    sanitize_opid(opid);
    ecd_epoch_t *ep = NULL;
    c->idle = 3 * cfg.timeout; /* the coordinator may wait on dead nodes first */
    if (ecd_printf(c, "OK ready\n") == 0) {
        for (;;) {
            char line[ECD_LINE_MAX], *ww[16];
            if (ecd_read_line(c, line, sizeof(line)) < 0) break;
            int n = ecd_split(line, ww, 16);
            if (n >= 1 && strcmp(ww[0], "INVENTORY") == 0) {
                send_inventory(c);
                continue;
            }
            if (n == 2 && strcmp(ww[0], "EPOCH") == 0) {
                uint64_t seq = strtoull(ww[1], NULL, 10);
                ecd_epoch_release(ep);
                ep = ecd_epoch_find(seq);
                if (ep != NULL) {
                    ecd_printf(c, "OK\n");
                } else {
                    char d[256];
                    ecd_epoch_describe(d, sizeof(d));
                    reply_err(c, "epoch %llu is not this node's (%s)", (unsigned long long)seq, d);
                }
                continue;
            }
            if (n == 1 && strcmp(ww[0], "END") == 0) { /* the coordinator keeps the connection */
                c->reuse = 1;
                break;
            }
            if (n >= 1 && strcmp(ww[0], "ENCODE") == 0) {
                if (member_encode(c, opid, atoi(w[2]), ww, n, ep)) continue; /* END, or a close */
            } else if (n >= 1 && strcmp(ww[0], "REPAIR") == 0)
                member_repair(c, opid, ww, n, ep);
            else
                reply_err(c, "unexpected '%s' in an operation", n ? ww[0] : "");
            break;
        }
    }
    ecd_epoch_release(ep);
    op_unlock(name);
}
