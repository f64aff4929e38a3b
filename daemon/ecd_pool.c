/*
 * daemon/ecd_pool.c: idle connections to other daemons, kept for the next
 * operation.  A put's OP sessions and PIECES streams end at a request
 * boundary on both sides (the member saw END, or read its whole stream),
 * so the coordinator keeps them here instead of closing them: the next put
 * to those nodes sends its request at once, with no TCP connect, no accept
 * and thread start on the other side, and no TLS handshake.
 *
 * A connection opened for this starts with the line "KEEP" (no answer):
 * only then does the other daemon wait for a next request; every other
 * connection still carries one request.
 *
 * Bounds: at most ECD_POOL_PER_PEER connections per address, each kept at
 * most ECD_POOL_AGE seconds (the serving daemon waits ECD_KEEP_IDLE > that
 * for the next request, then closes).  A kept connection that the other
 * side closed meanwhile is seen at ecd_peer_connect (EOF or bytes waiting)
 * and dropped; one closed in the instant between is the caller's to
 * retry (ecd_conn_t.from_pool says where a connection came from).
 */
#include "daemon/ecd_daemon.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pool_slot {
    char addr[ECD_ADDR_MAX];
    ecd_conn_t *c;
    double since;
} pool_slot_t;

#define ECD_POOL_SLOTS (ECD_MAX_NODES * ECD_POOL_PER_PEER)

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pool_slot_t pool[ECD_POOL_SLOTS];
static unsigned long pool_hits, pool_misses;

ecd_conn_t *ecd_peer_fresh(const char *addr, double timeout, double idle, char *why, size_t wsize)
{
    ecd_conn_t *c = ecd_connect(addr, timeout, idle, why, wsize);
    if (c != NULL && ecd_write(c, "KEEP\n", 5) != 0) {
        snprintf(why, wsize, "%s: %s", addr, strerror(errno));
        ecd_conn_close(c);
        c = NULL;
    }
    return c;
}

ecd_conn_t *ecd_peer_connect(const char *addr, double timeout, double idle, char *why, size_t wsize)
{
    const double now = ecd_now();
    ecd_conn_t *drop[ECD_POOL_SLOTS], *got = NULL;
    int nd = 0;
    pthread_mutex_lock(&pool_mu);
    for (int i = 0; i < ECD_POOL_SLOTS; i++) {
        pool_slot_t *s = &pool[i];
        if (s->c == NULL) continue;
        if (now - s->since > ECD_POOL_AGE) { /* the other side may close it any moment */
            drop[nd++] = s->c;
            s->c = NULL;
            continue;
        }
        if (got != NULL || strcmp(s->addr, addr) != 0) continue;
        if (ecd_conn_state(s->c) != 0) /* closed, or bytes nobody asked for */
            drop[nd++] = s->c;
        else
            got = s->c;
        s->c = NULL;
    }
    if (got != NULL)
        pool_hits++;
    else
        pool_misses++;
    pthread_mutex_unlock(&pool_mu);
    for (int i = 0; i < nd; i++)
        ecd_conn_close(drop[i]);
    if (got != NULL) {
        got->idle = idle;
        got->deadline = 0;
        got->reuse = 0;
        got->from_pool = 1;
        return got;
    }
    return ecd_peer_fresh(addr, timeout, idle, why, wsize);
}

ecd_conn_t *ecd_peer_send(const char *addr, const char *req, char *why, size_t wsize)
{
    const double t = cfg.timeout < 3 ? cfg.timeout : 3;
    ecd_conn_t *c = ecd_peer_connect(addr, t, cfg.timeout, why, wsize);
    for (int fresh = 0; c != NULL; fresh++) {
        if (ecd_write(c, req, strlen(req)) == 0) return c;
        snprintf(why, wsize, "%s", strerror(errno));
        if (!c->from_pool || fresh) break;
        ecd_conn_close(c); /* its daemon closed it while it was kept: a new one */
        c = ecd_peer_fresh(addr, t, cfg.timeout, why, wsize);
    }
    ecd_conn_close(c);
    return NULL;
}

int ecd_peer_answer(const char *addr, const char *req, ecd_conn_t **cp, char *line, size_t lsize,
                    char *why, size_t wsize)
{
    const double t = cfg.timeout < 3 ? cfg.timeout : 3;
    ecd_conn_t *c = *cp;
    for (int fresh = 0; c != NULL; fresh++) {
        line[0] = '\0';
        if (ecd_read_line(c, line, lsize) >= 0) return 0;
        snprintf(why, wsize, "%s", strerror(errno));
        if (!c->from_pool || fresh) break;
        ecd_conn_close(c); /* its daemon closed it while it was kept: a new one, asked again */
        c = ecd_peer_fresh(addr, t, cfg.timeout, why, wsize);
        *cp = c;
        if (c != NULL && ecd_write(c, req, strlen(req)) != 0) {
            snprintf(why, wsize, "%s", strerror(errno));
            break;
        }
    }
    ecd_conn_close(c);
    *cp = NULL;
    line[0] = '\0';
    return -1;
}

ecd_conn_t *ecd_peer_request(const char *addr, const char *req, char *line, size_t lsize, char *why,
                             size_t wsize)
{
    ecd_conn_t *c = ecd_peer_send(addr, req, why, wsize);
    line[0] = '\0';
    if (c == NULL || ecd_peer_answer(addr, req, &c, line, lsize, why, wsize) != 0) return NULL;
    return c;
}

void ecd_peer_keep(const char *addr, ecd_conn_t *c)
{
    if (c == NULL) return;
    if (!c->reuse || ecd_conn_buffered(c) || strlen(addr) >= ECD_ADDR_MAX) {
        ecd_conn_close(c);
        return;
    }
    c->reuse = 0;
    pthread_mutex_lock(&pool_mu);
    int free_at = -1, held = 0;
    for (int i = 0; i < ECD_POOL_SLOTS; i++) {
        if (pool[i].c == NULL) {
            if (free_at < 0) free_at = i;
        } else if (strcmp(pool[i].addr, addr) == 0) {
            held++;
        }
    }
    if (free_at >= 0 && held < ECD_POOL_PER_PEER) {
        snprintf(pool[free_at].addr, sizeof(pool[free_at].addr), "%s", addr);
        pool[free_at].c = c;
        pool[free_at].since = ecd_now();
        c = NULL;
    }
    pthread_mutex_unlock(&pool_mu);
    ecd_conn_close(c); /* no room: closed */
}

void ecd_pool_stats(unsigned long *hits, unsigned long *misses, int *idle)
{
    pthread_mutex_lock(&pool_mu);
    int n = 0;
    for (int i = 0; i < ECD_POOL_SLOTS; i++)
        n += pool[i].c != NULL;
    *hits = pool_hits;
    *misses = pool_misses;
    *idle = n;
    pthread_mutex_unlock(&pool_mu);
}
