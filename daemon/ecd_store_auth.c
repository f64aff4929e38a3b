/*
 * daemon/ecd_store_auth.c: a STORE (a chunk and its manifest written over a
 * node's copy) is a repair's act, so it is accepted only from a repair this
 * cluster started.  The node that rebuilds a chunk (a get's write-back, the
 * scrub) registers the rewrite under a random id here and names itself and
 * the id in its STORE (`FROM NODE RID`); the receiver asks that node, at
 * its address in the cluster file, whether it is rewriting exactly that
 * row with exactly that chunk (`REPAIRING RID NAME ROW CRC`) before it
 * writes anything.  A chunk whose crc its sender recomputed to match a
 * forged manifest is never taken on its word.
 */
#include "daemon/ecd_daemon.h"

#include <openssl/rand.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STORE_AUTH_MAX 64

static struct {
    char rid[33];
    char name[ECD_NAME_MAX + 1];
    int row;
    uint32_t crc;
    double until;
} pending[STORE_AUTH_MAX];
static pthread_mutex_t pending_mu = PTHREAD_MUTEX_INITIALIZER;

int store_auth_begin(const char *name, int row, uint32_t crc, char *rid, size_t cap)
{
    uint8_t r[16];
    if (RAND_bytes(r, sizeof(r)) != 1 || cap < 33) return -1;
    ecd_hex(r, sizeof(r), rid);
    pthread_mutex_lock(&pending_mu);
    int slot = -1;
    double now = ecd_now();
    for (int i = 0; i < STORE_AUTH_MAX && slot < 0; i++)
        if (pending[i].rid[0] == '\0' || pending[i].until < now) slot = i;
    if (slot >= 0) {
        snprintf(pending[slot].rid, sizeof(pending[slot].rid), "%s", rid);
        snprintf(pending[slot].name, sizeof(pending[slot].name), "%s", name);
        pending[slot].row = row;
        pending[slot].crc = crc;
        pending[slot].until = now + 3 * cfg.timeout;
    }
    pthread_mutex_unlock(&pending_mu);
    return slot >= 0 ? 0 : -1;
}

void store_auth_end(const char *rid)
{
    pthread_mutex_lock(&pending_mu);
    for (int i = 0; i < STORE_AUTH_MAX; i++)
        if (strcmp(pending[i].rid, rid) == 0) pending[i].rid[0] = '\0';
    pthread_mutex_unlock(&pending_mu);
}

/* REPAIRING RID NAME ROW CRC: "OK" when this node is rewriting that row. */
void peer_repairing(ecd_conn_t *c, char **w, int nw)
{
    int ok = 0;
    if (nw == 5) {
        int row = atoi(w[3]);
        uint32_t crc = (uint32_t)strtoul(w[4], NULL, 16);
        pthread_mutex_lock(&pending_mu);
        double now = ecd_now();
        for (int i = 0; i < STORE_AUTH_MAX; i++)
            if (pending[i].rid[0] != '\0' && pending[i].until >= now &&
                strcmp(pending[i].rid, w[1]) == 0 && strcmp(pending[i].name, w[2]) == 0 &&
                pending[i].row == row && pending[i].crc == crc)
                ok = 1;
        pthread_mutex_unlock(&pending_mu);
    }
    if (ok)
        ecd_printf(c, "OK\n");
    else
        reply_err(c, "no such rewrite in progress here");
}

int store_auth_confirm(int node, const char *rid, const char *name, int row, uint32_t crc,
                       char *why, size_t wsize)
{
    ecd_cluster_t cl;
    char err[512], line[ECD_LINE_MAX] = "";
    if (ecd_cluster_load(cfg.cluster, &cl, err, sizeof(err)) != 0) {
        snprintf(why, wsize, "%s", err);
        return -1;
    }
    if (node < 0 || node >= cl.n || node == cfg.node) {
        snprintf(why, wsize, "FROM node %d is not another node of the cluster", node);
        return -1;
    }
    ecd_conn_t *c = ecd_connect(cl.addr[node], cfg.timeout < 3 ? cfg.timeout : 3, cfg.timeout, err,
                                sizeof(err));
    if (c == NULL) {
        snprintf(why, wsize, "node %d cannot confirm it: %s", node, err);
        return -1;
    }
    int ok = ecd_printf(c, "REPAIRING %s %s %d %08x\n", rid, name, row, crc) == 0 &&
             ecd_read_line(c, line, sizeof(line)) >= 0 && strcmp(line, "OK") == 0;
    ecd_conn_close(c);
    if (!ok)
        snprintf(why, wsize, "node %d does not confirm this rewrite (%s)", node,
                 line[0] ? line : strerror(errno));
    return ok ? 0 : -1;
}
