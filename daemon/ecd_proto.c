/*
 * daemon/ecd_proto.c: the protocol: one request per connection, or one
 * after another on a connection that began with KEEP (TLS 1.3 with a key
 * of the keyring, ecd_tls.c, unless --insecure), each line read and
 * checked, then handed to its command by the command table, which says
 * what capability each request needs: the one place that checks it.
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

int reply_err(ecd_conn_t *c, const char *fmt, ...)
{
    char msg[ECD_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; p++)
        if (*p == '\n') *p = ' ';
    return c != NULL ? ecd_printf(c, "ERR %s\n", msg) : 0;
}

int read_payload(ecd_conn_t *c, const char *tag, size_t max, char **buf_p, size_t *len_p)
{
    char line[ECD_LINE_MAX] = "", *w[3];
    if (ecd_read_line(c, line, sizeof(line)) < 0) return -1;
    if (ecd_split(line, w, 3) != 2 || strcmp(w[0], tag) != 0) {
        errno = EPROTO;
        return -1;
    }
    size_t len = strtoull(w[1], NULL, 10);
    if (len > max) {
        errno = EMSGSIZE;
        return -1;
    }
    char *b = malloc(len + 1);
    if (b == NULL || ecd_read(c, b, len) != 0) {
        free(b);
        return -1;
    }
    b[len] = '\0';
    *buf_p = b;
    *len_p = len;
    return 0;
}

/* "KEEP": this connection carries request after request (a daemon's, from
 * ecd_pool.c, or a client's: lincoll-ec batch); no answer.  A request
 * that ends at a boundary (its command sets reuse) lets the next one in. */
static void conn_keep(ecd_conn_t *c, char **w, int nw)
{
    (void)w, (void)nw;
    c->reuse = c->keep ? 1 : 2; /* the request sent with the first is served whatever the load */
    c->keep = 1;
}

/* The command table: a new request is one line here and its function in
 * its concern's file.  `cap`: what the caller's key must hold (ECD_CAP_*:
 * read, write, admin for clients; peer, the cluster key only, for the
 * daemons' own requests). */
typedef struct ecd_cmd {
    const char *name;
    int nwords; /* words of the request line, the command included; 0: any */
    void (*fn)(ecd_conn_t *c, char **w, int nw);
    int client_io; /* a client's data moves: the background scrub gives way */
    int cap;
} ecd_cmd_t;

static const ecd_cmd_t commands[] = {
    /* clients (docs/daemon.md) */
    {"PUT", 0, client_put, 1, ECD_CAP_WRITE},
    {"GET", 0, client_get, 1, ECD_CAP_READ},
    {"STAT", 1, client_stat, 0, ECD_CAP_READ},
    {"REPAIR", 0, client_repair, 0, ECD_CAP_ADMIN},
    {"KEEP", 1, conn_keep, 0, 0}, /* any key: requests are checked one by one */
    /* other daemons */
    {"PING", 1, peer_ping, 0, ECD_CAP_PEER},
    {"MANIFEST", 2, peer_manifest, 0, ECD_CAP_PEER},
    {"FETCH", 0, peer_fetch, 0, ECD_CAP_PEER},
    {"STORE", 0, peer_store, 0, ECD_CAP_PEER},
    {"REPAIRING", 0, peer_repairing, 0, ECD_CAP_PEER},
    {"OP", 0, peer_op, 0, ECD_CAP_PEER},
    {"PIECES", 0, peer_pieces, 0, ECD_CAP_PEER},
    {"CHECK", 3, peer_check, 0, ECD_CAP_PEER},
    {"DEGRADED", 1, peer_degraded, 0, ECD_CAP_PEER},
    /* membership epochs (ecd_epoch.c) */
    {"EPOCHREQ", 3, peer_epochreq, 0, ECD_CAP_PEER},
    {"EPOCHJOIN", 2, peer_epochjoin, 0, ECD_CAP_PEER},
    {"EPOCHSTAT", 1, peer_epochstat, 0, ECD_CAP_PEER},
};

/* Connections being served now, and connections over the limit being told
 * so inside a TLS session (ecd_conn_admit). */
static pthread_mutex_t conns_lock = PTHREAD_MUTEX_INITIALIZER;
static int conns, refusing;
static unsigned long accepted; /* connections taken since the start */

unsigned long ecd_conns_accepted(void)
{
    pthread_mutex_lock(&conns_lock);
    unsigned long n = accepted;
    pthread_mutex_unlock(&conns_lock);
    return n;
}
#define ECD_REFUSERS 8 /* refusals told at once; beyond them a connection is closed */

/* Over the limit under TLS: the refusal is readable only inside a session,
 * so the handshake runs first (bounded by the timeout, at most 5 s). */
static void *refuse_main(void *arg)
{
    ecd_conn_t *c = arg;
    char why[256];
    if (ecd_tls_accept(c, cfg.timeout < 5 ? cfg.timeout : 5, why, sizeof(why)) == 0)
        reply_err(c, "too many connections (--max-conns %d); try again", cfg.max_conns);
    ecd_conn_close(c);
    pthread_mutex_lock(&conns_lock);
    refusing--;
    pthread_mutex_unlock(&conns_lock);
    return NULL;
}

int ecd_conn_admit(ecd_conn_t *c)
{
    const int tls = ecd_tls_mode() == ECD_SEC_TLS;
    pthread_mutex_lock(&conns_lock);
    int ok = conns < cfg.max_conns, refuse = !ok && tls && refusing < ECD_REFUSERS;
    accepted++;
    if (ok) conns++;
    if (refuse) refusing++;
    pthread_mutex_unlock(&conns_lock);
    if (ok) return 0;
    c->idle = 1; /* a client that does not read this answer costs no more */
    if (refuse) {
        if (ecd_thread_start(refuse_main, c) == 0) return 1;
        pthread_mutex_lock(&conns_lock);
        refusing--;
        pthread_mutex_unlock(&conns_lock);
    }
    if (!tls) reply_err(c, "too many connections (--max-conns %d); try again", cfg.max_conns);
    return -1;
}

/* Bytes of upload buffers held by the puts this node coordinates. */
static pthread_mutex_t inflight_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t inflight_bytes;

int put_inflight(uint64_t bytes, uint64_t *now_p)
{
    pthread_mutex_lock(&inflight_lock);
    *now_p = inflight_bytes;
    int ok = inflight_bytes == 0 || inflight_bytes + bytes <= cfg.max_inflight;
    if (ok) inflight_bytes += bytes;
    pthread_mutex_unlock(&inflight_lock);
    return ok ? 0 : -1;
}

void put_inflight_done(uint64_t bytes)
{
    pthread_mutex_lock(&inflight_lock);
    inflight_bytes -= bytes;
    pthread_mutex_unlock(&inflight_lock);
}

/* The first byte of line[0..len) outside the protocol (printable ASCII,
 * 0x20..0x7e), or -1. */
static int ecd_line_bad_byte(const char *line, int len)
{
    for (int i = 0; i < len; i++)
        if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] > 0x7e) return i;
    return -1;
}

/* One request line, read and handed to its command. */
static void serve_line(ecd_conn_t *c, char *line, int len)
{
    char *w[10], why[256];
    int bad = len >= 0 ? ecd_line_bad_byte(line, len) : -1;
    if (len < 0) {
        if (errno == EMSGSIZE) reply_err(c, "request line longer than %d bytes", ECD_LINE_MAX - 1);
        if (errno == ETIMEDOUT)
            reply_err(c, "no whole request line within %g s; connection closed", cfg.timeout);
    } else if (bad >= 0) {
        reply_err(c,
                  "request line refused: byte 0x%02x at offset %d is outside the protocol "
                  "(printable ASCII only)",
                  (unsigned char)line[bad], bad);
    } else {
        int n = ecd_split(line, w, 10);
        const ecd_cmd_t *cmd = NULL;
        for (size_t i = 0; n > 0 && i < sizeof(commands) / sizeof(commands[0]); i++)
            if (strcmp(w[0], commands[i].name) == 0 &&
                (commands[i].nwords == 0 || commands[i].nwords == n))
                cmd = &commands[i];
        if (cmd != NULL &&
            ecd_caps_check(cmd->name, cmd->cap, c->caps, c->who, why, sizeof(why)) != 0) {
            ecd_auth_log_refusal(c->peer, why);
            reply_err(c, "%s", why);
        } else if (cmd != NULL) {
            if (cmd->client_io) client_active(1);
            cmd->fn(c, w, n);
            if (cmd->client_io) client_active(-1);
        } else
            reply_err(c, "unknown request '%.60s' (PUT NAME SIZE, GET NAME, STAT, REPAIR NODE)",
                      n > 0 ? w[0] : "");
    }
}

/* May c, whose request ended at a boundary, wait for another?  Not when
 * half the connection slots are taken: kept connections never crowd out
 * new ones. */
static int keep_serving(void)
{
    pthread_mutex_lock(&conns_lock);
    int room = conns <= cfg.max_conns / 2;
    pthread_mutex_unlock(&conns_lock);
    return room;
}

void *conn_main(void *arg)
{
    ecd_conn_t *c = arg;
    char line[ECD_LINE_MAX], why[256];
    /* the handshake, then the request line, each whole within the timeout
     * however it trickles: a stalled one costs this connection only */
    if (ecd_tls_accept(c, cfg.timeout, why, sizeof(why)) != 0) {
        if (strcmp(why, "closed before a request") != 0) ecd_auth_log_refusal(c->peer, why);
        ecd_conn_done(c);
        return NULL;
    }
    c->deadline = ecd_now() + cfg.timeout;
    int len = ecd_read_line(c, line, sizeof(line));
    c->deadline = 0;
    for (;;) {
        c->reuse = 0;
        serve_line(c, line, len);
        if (!c->reuse || !c->keep || (c->reuse != 2 && !keep_serving())) break;
        /* a kept connection (ecd_pool.c): the next request, or a close; it
         * is served only while the key that opened it is still in the
         * keyring, with the same capabilities */
        c->idle = ECD_KEEP_IDLE;
        c->deadline = 0;
        len = ecd_read_line(c, line, sizeof(line));
        if (len < 0) break;
        if (!ecd_tls_key_current(c)) {
            snprintf(why, sizeof(why), "key %s left the keyring; its kept connection is closed",
                     c->who);
            ecd_auth_log_refusal(c->peer, why);
            break;
        }
        c->idle = cfg.timeout;
    }
    ecd_conn_done(c);
    return NULL;
}

void ecd_conn_done(ecd_conn_t *c)
{
    ecd_conn_close(c);
    pthread_mutex_lock(&conns_lock);
    conns--;
    pthread_mutex_unlock(&conns_lock);
}
