/*
 * core/context/bootstrap/store.c: the TCP rendezvous store server.
 * Protocol: store_proto.h (its helpers in store_proto.c).
 *
 * The server is one poll() loop over non-blocking sockets: it accepts
 * connections, authenticates them with the job secret, collects one GATHER
 * or BARRIER per rank and answers all ranks when the last one arrives.  It
 * runs either from the caller's loop (lc_store_server_progress) or from its
 * own thread (lc_store_server_start).  No allocation depends on a length the
 * peer chose before that length was checked against its bound.
 */
#include "core/context/bootstrap/store.h"
#include "core/base/log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ---- server ------------------------------------------------------------- */

typedef struct lc_store_buf {
    int refs;
    size_t len;
    uint8_t data[];
} lc_store_buf_t;

typedef struct lc_store_job lc_store_job_t;

typedef struct lc_store_conn {
    int fd;
    int rank;            /* -1 until HELLO succeeded */
    lc_store_job_t *job; /* NULL until HELLO succeeded */
    int bye;             /* BYE received (or failed already): leaving is not a failure */
    int closing;         /* close at the end of this progress call */
    double deadline;     /* idle deadline (0 = none) */
    char peer[64];
    /* input */
    uint8_t hdr_raw[LC_STORE_HDR_SIZE];
    size_t hdr_got;
    lc_store_hdr_t hdr;
    uint8_t *in;
    size_t in_got;
    int in_body; /* header complete, reading payload */
    /* output: out_hdr then out_buf */
    uint8_t out_hdr[LC_STORE_HDR_SIZE];
    lc_store_buf_t *out_buf;
    size_t out_len, out_pos; /* 0 = nothing pending */
    /* posted collective */
    int posted;
    uint16_t op_type;
    uint32_t op_seq;
    uint8_t *op_data;
    uint32_t op_len;
} lc_store_conn_t;

/* One job: `size` ranks that allgather and barrier together. */
struct lc_store_job {
    lc_store_job_t *next;
    char name[LC_STORE_MAX_JOB + 1]; /* "" for the job of a single-job server */
    int size;
    lc_store_conn_t **by_rank; /* size entries */
    unsigned char *joined;     /* size flags: rank joined once */
    int nposted;
    int failed; /* sticky: a rank died */
    lincoll_status_t fail_status;
    char fail_text[LC_STORE_MAX_ERRTEXT];
    atomic_int njoined, nactive;
    atomic_int done_failed;
    double empty_since; /* multi-job: when the last member left (0 = members) */
};

struct lc_store_server {
    int listen_fd;
    int port;
    int multi; /* jobs are made on demand by HELLO_JOB (see store.h) */
    char secret[LC_STORE_MAX_SECRET + 1];
    size_t secret_len;
    double idle_timeout;
    lc_store_conn_t **conns;
    size_t nconns, cap_conns, max_conns;
    lc_store_job_t *jobs; /* single-job: exactly one, never freed before destroy */
    size_t njobs;
    /* thread */
    int wake[2];
    pthread_t thread;
    int thread_started;
    atomic_int stop;
};

static void lc_store_buf_release(lc_store_buf_t *b)
{
    if (b != NULL && --b->refs == 0) {
        free(b);
    }
}

static lc_store_job_t *lc_store_job_new(lc_store_server_t *s, const char *name, size_t nlen,
                                        int size)
{
    lc_store_job_t *j = calloc(1, sizeof(*j));
    if (j == NULL) return NULL;
    j->by_rank = calloc((size_t)size, sizeof(*j->by_rank));
    j->joined = calloc((size_t)size, 1);
    if (j->by_rank == NULL || j->joined == NULL) {
        free(j->by_rank);
        free(j->joined);
        free(j);
        return NULL;
    }
    memcpy(j->name, name, nlen);
    j->name[nlen] = '\0';
    j->size = size;
    j->next = s->jobs;
    s->jobs = j;
    s->njobs++;
    return j;
}

static void lc_store_job_free(lc_store_server_t *s, lc_store_job_t *j)
{
    for (lc_store_job_t **pp = &s->jobs; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == j) {
            *pp = j->next;
            s->njobs--;
            break;
        }
    }
    lc_debug("store: job '%s' of %d ranks is over (%s)", j->name, j->size,
             j->failed ? "failed" : "every rank left");
    free(j->by_rank);
    free(j->joined);
    free(j);
}

static lc_store_job_t *lc_store_job_find(lc_store_server_t *s, const char *name, size_t nlen)
{
    for (lc_store_job_t *j = s->jobs; j != NULL; j = j->next) {
        if (strlen(j->name) == nlen && memcmp(j->name, name, nlen) == 0) return j;
    }
    return NULL;
}

static void lc_store_conn_reset_input(lc_store_conn_t *c)
{
    free(c->in);
    c->in = NULL;
    c->in_got = 0;
    c->hdr_got = 0;
    c->in_body = 0;
}

static void lc_store_conn_drop_op(lc_store_conn_t *c)
{
    if (c->posted) {
        c->posted = 0;
        c->job->nposted--;
    }
    free(c->op_data);
    c->op_data = NULL;
    c->op_len = 0;
}

/* Best-effort error report, then the caller closes the connection. */
static void lc_store_send_error(lc_store_conn_t *c, lincoll_status_t status, const char *text)
{
    uint8_t msg[LC_STORE_HDR_SIZE + LC_STORE_MAX_ERRTEXT];
    size_t tlen = strnlen(text, LC_STORE_MAX_ERRTEXT);
    lc_store_hdr_pack(msg, LC_STORE_ERROR, (uint32_t)(-(int32_t)status), (uint32_t)tlen);
    memcpy(msg + LC_STORE_HDR_SIZE, text, tlen);
    if (c->out_len == 0) {
        ssize_t n = send(c->fd, msg, LC_STORE_HDR_SIZE + tlen, MSG_NOSIGNAL | MSG_DONTWAIT);
        (void)n;
    }
}

static void lc_store_fail(lc_store_server_t *s, lc_store_job_t *j, lincoll_status_t status,
                          const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Mark the job failed and tell every waiting rank.  A multi-job server also
 * closes the members that are not waiting (they learn it at their next
 * operation), so that a member that became unreachable does not keep the
 * job alive. */
static void lc_store_fail(lc_store_server_t *s, lc_store_job_t *j, lincoll_status_t status,
                          const char *fmt, ...)
{
    if (!j->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(j->fail_text, sizeof(j->fail_text), fmt, ap);
        va_end(ap);
        j->failed = 1;
        j->fail_status = status;
        atomic_store(&j->done_failed, 1);
        if (s->multi) {
            lc_warn("store: job '%s': %s", j->name, j->fail_text);
        } else {
            lc_warn("store: %s", j->fail_text);
        }
    }
    /* Waiting ranks get the error now; they are closed at the end of the
     * progress call so no caller loses the connection it is working on. */
    for (size_t i = 0; i < s->nconns; i++) {
        lc_store_conn_t *c = s->conns[i];
        if (c->job != j) continue;
        if (c->posted || (s->multi && !c->closing)) {
            if (c->posted) lc_store_conn_drop_op(c);
            lc_store_send_error(c, j->fail_status, j->fail_text);
            c->bye = 1;
            c->closing = 1;
        }
    }
}

static void lc_store_close_conn(lc_store_server_t *s, size_t idx, int orderly)
{
    lc_store_conn_t *c = s->conns[idx];
    lc_store_job_t *j = c->job;
    int rank = c->rank;
    int failed = j != NULL && !orderly && !c->bye;
    if (j != NULL) lc_store_conn_drop_op(c);
    lc_store_conn_reset_input(c);
    lc_store_buf_release(c->out_buf);
    free(c->op_data);
    close(c->fd);
    s->conns[idx] = s->conns[s->nconns - 1];
    s->nconns--;
    free(c);
    if (j == NULL) {
        return;
    }
    j->by_rank[rank] = NULL;
    atomic_fetch_sub(&j->nactive, 1);
    if (failed) {
        lc_store_fail(s, j, LINCOLL_ERR_PEER_FAILED, "rank %d left the job without saying goodbye",
                      rank);
    }
    if (s->multi && atomic_load(&j->nactive) == 0) {
        if (j->failed || atomic_load(&j->njoined) == j->size) {
            lc_store_job_free(s, j);
        } else {
            j->empty_since = lc_store_now();
        }
    }
}

static void lc_store_queue(lc_store_conn_t *c, uint16_t type, uint32_t arg, lc_store_buf_t *buf)
{
    size_t blen = buf ? buf->len : 0;
    lc_store_hdr_pack(c->out_hdr, type, arg, (uint32_t)blen);
    if (buf) {
        buf->refs++;
    }
    c->out_buf = buf;
    c->out_len = LC_STORE_HDR_SIZE + blen;
    c->out_pos = 0;
}

/* Returns -1 when the connection broke. */
static int lc_store_flush(lc_store_conn_t *c)
{
    while (c->out_pos < c->out_len) {
        const uint8_t *p;
        size_t n;
        if (c->out_pos < LC_STORE_HDR_SIZE) {
            p = c->out_hdr + c->out_pos;
            n = LC_STORE_HDR_SIZE - c->out_pos;
        } else {
            p = c->out_buf->data + (c->out_pos - LC_STORE_HDR_SIZE);
            n = c->out_len - c->out_pos;
        }
        ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            c->out_pos += (size_t)w;
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return 0;
        } else {
            return -1;
        }
    }
    lc_store_buf_release(c->out_buf);
    c->out_buf = NULL;
    c->out_len = c->out_pos = 0;
    return 0;
}

/* Every rank of the job posted: check they agree and answer all of them. */
static void lc_store_complete_round(lc_store_server_t *s, lc_store_job_t *j)
{
    lc_store_conn_t *c0 = j->by_rank[0];
    uint16_t type = c0->op_type;
    uint32_t seq = c0->op_seq;
    size_t total = (size_t)j->size * 4;
    for (int r = 0; r < j->size; r++) {
        lc_store_conn_t *c = j->by_rank[r];
        if (c->op_type != type || c->op_seq != seq) {
            lc_store_fail(s, j, LINCOLL_ERR_MISMATCH,
                          "rank %d posted %s #%u while rank 0 posted %s #%u", r,
                          c->op_type == LC_STORE_GATHER ? "allgather" : "barrier", c->op_seq,
                          type == LC_STORE_GATHER ? "allgather" : "barrier", seq);
            return;
        }
        total += c->op_len;
    }
    lc_store_buf_t *buf = NULL;
    if (type == LC_STORE_GATHER) {
        if (total > LC_STORE_MAX_REPLY) {
            lc_store_fail(s, j, LINCOLL_ERR_TRUNCATED,
                          "allgather #%u would return %zu bytes, more than the limit %u", seq,
                          total, LC_STORE_MAX_REPLY);
            return;
        }
        buf = malloc(sizeof(*buf) + total);
        if (buf == NULL) {
            lc_store_fail(s, j, LINCOLL_ERR_NOMEM, "out of memory for allgather #%u (%zu bytes)",
                          seq, total);
            return;
        }
        buf->refs = 1;
        buf->len = total;
        uint8_t *p = buf->data + (size_t)j->size * 4;
        for (int r = 0; r < j->size; r++) {
            lc_store_conn_t *c = j->by_rank[r];
            lc_put32(buf->data + (size_t)r * 4, c->op_len);
            if (c->op_len) memcpy(p, c->op_data, c->op_len);
            p += c->op_len;
        }
    }
    for (int r = 0; r < j->size; r++) {
        lc_store_conn_t *c = j->by_rank[r];
        lc_store_conn_drop_op(c);
        lc_store_queue(c, type == LC_STORE_GATHER ? LC_STORE_GATHER_DONE : LC_STORE_BARRIER_DONE,
                       seq, buf);
    }
    lc_store_buf_release(buf);
    lc_trace("store: %s%s%s %s #%u complete (%zu bytes)", s->multi ? "job '" : "",
             s->multi ? j->name : "", s->multi ? "': " : "",
             type == LC_STORE_GATHER ? "allgather" : "barrier", seq, total);
}

/* HELLO or HELLO_JOB: authenticate, find (or make) the job, register the
 * rank.  Returns 0 to keep the connection, -1 to close it. */
static int lc_store_hello(lc_store_server_t *s, lc_store_conn_t *c)
{
    lc_store_hdr_t *h = &c->hdr;
    uint32_t size = lc_get32(c->in);
    uint32_t rank = h->arg;
    const char *secret = (const char *)c->in + 4, *name = "";
    size_t slen = h->len - 4, nlen = 0;
    char msg[LC_STORE_MAX_ERRTEXT];
    if (h->type == LC_STORE_HELLO_JOB) {
        /* u32 size, u8 secret length, secret, job name */
        slen = c->in[4];
        secret = (const char *)c->in + 5;
        if (5 + slen >= h->len || h->len - 5 - slen > LC_STORE_MAX_JOB) {
            snprintf(msg, sizeof(msg),
                     "HELLO_JOB of %u bytes with a %zu-byte secret: the job name must have 1 to "
                     "%u bytes",
                     h->len, slen, LC_STORE_MAX_JOB);
            lc_warn("store: %s: %s", c->peer, msg);
            lc_store_send_error(c, LINCOLL_ERR_INVALID, msg);
            return -1;
        }
        name = secret + slen;
        nlen = h->len - 5 - slen;
    }
    if (!lc_store_secret_equal(secret, slen, s->secret, s->secret_len)) {
        lc_warn("store: connection from %s presented a wrong job secret", c->peer);
        lc_store_send_error(c, LINCOLL_ERR_AUTH, "wrong job secret");
        return -1;
    }
    for (size_t i = 0; i < nlen; i++) {
        if (name[i] <= ' ' || name[i] > '~') {
            snprintf(msg, sizeof(msg),
                     "job name byte %zu is 0x%02x: names are printable ASCII "
                     "without spaces",
                     i, (unsigned)(unsigned char)name[i]);
            lc_warn("store: %s: %s", c->peer, msg);
            lc_store_send_error(c, LINCOLL_ERR_INVALID, msg);
            return -1;
        }
    }
    if (!s->multi && nlen > 0) {
        snprintf(msg, sizeof(msg), "job '%.*s': this store serves one job, without a name",
                 (int)nlen, name);
        lc_warn("store: %s: %s", c->peer, msg);
        lc_store_send_error(c, LINCOLL_ERR_INVALID, msg);
        return -1;
    }
    if (size < 1 || size > (s->multi ? LC_STORE_MAX_JOB_SIZE : LC_STORE_MAX_SIZE)) {
        snprintf(msg, sizeof(msg), "rank %u announced job size %u, outside [1, %u]", rank, size,
                 s->multi ? LC_STORE_MAX_JOB_SIZE : LC_STORE_MAX_SIZE);
        lc_warn("store: %s", msg);
        lc_store_send_error(c, LINCOLL_ERR_INVALID, msg);
        return -1;
    }
    lc_store_job_t *j = s->multi ? lc_store_job_find(s, name, nlen) : s->jobs;
    if (j == NULL) {
        if (rank >= size) {
            snprintf(msg, sizeof(msg), "rank %u out of range for job size %u", rank, size);
            lc_warn("store: %s", msg);
            lc_store_send_error(c, LINCOLL_ERR_INVALID, msg);
            return -1;
        }
        j = lc_store_job_new(s, name, nlen, (int)size);
        if (j == NULL) {
            lc_store_send_error(c, LINCOLL_ERR_NOMEM, "store out of memory for a new job");
            return -1;
        }
        lc_debug("store: job '%s' of %u ranks begins", j->name, size);
    }
    if (j->failed) {
        lc_store_send_error(c, j->fail_status, j->fail_text);
        return -1;
    }
    if (size != (uint32_t)j->size) {
        snprintf(msg, sizeof(msg), "rank %u announced job size %u, the store serves %d", rank, size,
                 j->size);
        lc_warn("store: %s", msg);
        lc_store_send_error(c, LINCOLL_ERR_MISMATCH, msg);
        return -1;
    }
    if (rank >= (uint32_t)j->size) {
        snprintf(msg, sizeof(msg), "rank %u out of range for job size %d", rank, j->size);
        lc_warn("store: %s", msg);
        lc_store_send_error(c, LINCOLL_ERR_INVALID, msg);
        return -1;
    }
    if (j->by_rank[rank] != NULL) {
        snprintf(msg, sizeof(msg), "rank %u is already connected", rank);
        lc_warn("store: %s (duplicate from %s)", msg, c->peer);
        lc_store_send_error(c, LINCOLL_ERR_INVALID, msg);
        return -1;
    }
    c->rank = (int)rank;
    c->job = j;
    j->by_rank[rank] = c;
    j->empty_since = 0;
    if (!j->joined[rank]) {
        j->joined[rank] = 1;
        atomic_fetch_add(&j->njoined, 1);
    }
    atomic_fetch_add(&j->nactive, 1);
    lc_debug("store: rank %u of job '%s' joined from %s", rank, j->name, c->peer);
    lc_store_queue(c, LC_STORE_WELCOME, (uint32_t)j->size, NULL);
    return 0;
}

/* Handle one complete message; returns 0 to keep the connection, -1 to close
 * it (after an ERROR was sent). */
static int lc_store_handle(lc_store_server_t *s, lc_store_conn_t *c)
{
    lc_store_hdr_t *h = &c->hdr;
    if (c->job == NULL) {
        return lc_store_hello(s, c);
    }
    lc_store_job_t *j = c->job;
    switch (h->type) {
    case LC_STORE_BYE:
        c->bye = 1;
        lc_debug("store: rank %d left", c->rank);
        return -1;
    case LC_STORE_GATHER:
    case LC_STORE_BARRIER:
        if (c->posted || c->out_len != 0) {
            lc_store_send_error(c, LINCOLL_ERR_INVALID,
                                "a second operation before the first one finished");
            return -1;
        }
        if (j->failed) {
            lc_store_send_error(c, j->fail_status, j->fail_text);
            c->bye = 1; /* already failed; do not report this rank again */
            return -1;
        }
        c->posted = 1;
        c->op_type = h->type;
        c->op_seq = h->arg;
        c->op_data = c->in; /* take ownership */
        c->op_len = h->len;
        c->in = NULL;
        if (++j->nposted == j->size) {
            lc_store_complete_round(s, j);
        }
        return 0;
    default:
        lc_store_send_error(c, LINCOLL_ERR_INVALID, "unexpected message type");
        return -1;
    }
}

/* Check a complete header before anything is allocated for its payload. */
static lincoll_status_t lc_store_check_hdr(lc_store_conn_t *c, char *msg, size_t msize)
{
    lc_store_hdr_t *h = &c->hdr;
    if (h->magic != LC_STORE_MAGIC) {
        snprintf(msg, msize, "not a lincoll store client (bad magic 0x%08x)", h->magic);
        return LINCOLL_ERR_BOOTSTRAP;
    }
    if (h->version != LC_STORE_VERSION) {
        snprintf(msg, msize, "protocol version %u, the store speaks %u", h->version,
                 LC_STORE_VERSION);
        return LINCOLL_ERR_BOOTSTRAP;
    }
    uint32_t lo, hi;
    if (c->job == NULL) {
        if (h->type == LC_STORE_HELLO) {
            lo = 4;
            hi = 4 + LC_STORE_MAX_SECRET;
        } else if (h->type == LC_STORE_HELLO_JOB) {
            lo = 4 + 1 + 1 + 1;
            hi = 4 + 1 + LC_STORE_MAX_SECRET + LC_STORE_MAX_JOB;
        } else {
            snprintf(msg, msize, "message type %u before HELLO", h->type);
            return LINCOLL_ERR_AUTH;
        }
    } else if (h->type == LC_STORE_GATHER) {
        lo = 0;
        hi = LC_STORE_MAX_PAYLOAD;
    } else if (h->type == LC_STORE_BARRIER || h->type == LC_STORE_BYE) {
        lo = hi = 0;
    } else {
        snprintf(msg, msize, "unexpected message type %u", h->type);
        return LINCOLL_ERR_INVALID;
    }
    if (h->len > hi) {
        snprintf(msg, msize, "message type %u of %u bytes exceeds the limit of %u", h->type, h->len,
                 hi);
        return LINCOLL_ERR_TRUNCATED;
    }
    if (h->len < lo) {
        snprintf(msg, msize, "message type %u of %u bytes is shorter than its %u fixed bytes",
                 h->type, h->len, lo);
        return LINCOLL_ERR_TRUNCATED;
    }
    return LINCOLL_OK;
}
/* Read what is available; returns -1 to close the connection. */
static int lc_store_on_readable(lc_store_server_t *s, lc_store_conn_t *c, int *orderly)
{
    while (!c->closing) {
        uint8_t *dst;
        size_t want;
        if (!c->in_body) {
            dst = c->hdr_raw + c->hdr_got;
            want = LC_STORE_HDR_SIZE - c->hdr_got;
        } else {
            dst = c->in + c->in_got;
            want = c->hdr.len - c->in_got;
        }
        ssize_t n = want ? recv(c->fd, dst, want, MSG_DONTWAIT) : 0;
        if (want && n == 0) {
            if (c->hdr_got > 0 || c->in_body) {
                lc_warn("store: %s (rank %d) closed the connection in the middle of a message",
                        c->peer, c->rank);
            }
            return -1;
        }
        if (want && n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            return -1;
        }
        if (!c->in_body) {
            c->hdr_got += (size_t)n;
            if (c->hdr_got < LC_STORE_HDR_SIZE) {
                c->deadline = lc_store_deadline(s->idle_timeout);
                continue;
            }
            lc_store_hdr_unpack(c->hdr_raw, &c->hdr);
            char msg[LC_STORE_MAX_ERRTEXT];
            lincoll_status_t st = lc_store_check_hdr(c, msg, sizeof(msg));
            if (st != LINCOLL_OK) {
                lc_warn("store: %s (rank %d): %s", c->peer, c->rank, msg);
                lc_store_send_error(c, st, msg);
                return -1;
            }
            c->in_body = 1;
            c->in_got = 0;
            c->in = malloc(c->hdr.len ? c->hdr.len : 1);
            if (c->in == NULL) {
                lc_store_send_error(c, LINCOLL_ERR_NOMEM, "store out of memory");
                return -1;
            }
        } else {
            c->in_got += (size_t)n;
        }
        if (c->in_got < c->hdr.len) {
            c->deadline = lc_store_deadline(s->idle_timeout);
            continue;
        }
        int keep = lc_store_handle(s, c);
        lc_store_conn_reset_input(c);
        /* registered and between messages: no idle limit (ranks compute) */
        c->deadline = c->job != NULL ? 0 : lc_store_deadline(s->idle_timeout);
        if (keep < 0) {
            *orderly = c->bye;
            return -1;
        }
        if (c->out_len && lc_store_flush(c) < 0) {
            return -1;
        }
    }
    return 0;
}

static lincoll_status_t lc_store_bind(lc_store_server_t *s, const char *host, int port)
{
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char pstr[16];
    snprintf(pstr, sizeof(pstr), "%d", port);
    int rc = getaddrinfo(host != NULL && *host ? host : NULL, pstr, &hints, &res);
    if (rc != 0) {
        lc_error("store: cannot resolve bind address '%s': %s", host ? host : "", gai_strerror(rc));
        return LINCOLL_ERR_INVALID;
    }
    int err = 0;
    for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0) {
            err = errno;
            continue;
        }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0) {
            struct sockaddr_storage ss;
            socklen_t sl = sizeof(ss);
            getsockname(fd, (struct sockaddr *)&ss, &sl);
            s->port = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                               : ntohs(((struct sockaddr_in *)&ss)->sin_port);
            s->listen_fd = fd;
            freeaddrinfo(res);
            return LINCOLL_OK;
        }
        err = errno;
        close(fd);
    }
    freeaddrinfo(res);
    lc_error("store: cannot listen on %s:%d: %s", host && *host ? host : "*", port, strerror(err));
    return err == EADDRINUSE ? LINCOLL_ERR_BUSY : LINCOLL_ERR_IO;
}

lincoll_status_t lc_store_server_create(const lc_store_params_t *p, lc_store_server_t **s_p)
{
    LC_CHECK_ARG(p != NULL && s_p != NULL, "lc_store_server_create: params or s_p is NULL");
    LC_CHECK_ARG(p->multi_job ? p->size == 0
                              : p->size >= 1 && (uint32_t)p->size <= LC_STORE_MAX_SIZE,
                 "lc_store_server_create: size %d out of range (%s)", p->size,
                 p->multi_job ? "0 for a multi-job store" : "1 .. 16777216");
    LC_CHECK_ARG(p->port >= 0 && p->port <= 65535, "lc_store_server_create: port %d out of range",
                 p->port);
    LC_CHECK_ARG(
        p->secret != NULL && *p->secret != '\0' && strlen(p->secret) <= LC_STORE_MAX_SECRET,
        "lc_store_server_create: the job secret must have 1 to %u bytes", LC_STORE_MAX_SECRET);
    LC_CHECK_ARG(p->idle_timeout >= 0, "lc_store_server_create: idle_timeout %g < 0",
                 p->idle_timeout);
    lc_store_server_t *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    s->listen_fd = s->wake[0] = s->wake[1] = -1;
    s->multi = p->multi_job != 0;
    s->secret_len = strlen(p->secret);
    memcpy(s->secret, p->secret, s->secret_len);
    s->idle_timeout = p->idle_timeout > 0 ? p->idle_timeout : 30.0;
    /* room for every rank plus a few unauthenticated stragglers */
    s->max_conns = s->multi ? LC_STORE_MAX_CONNS : (size_t)p->size + 64;
    s->cap_conns = s->max_conns < 64 ? s->max_conns : 64;
    s->conns = calloc(s->cap_conns, sizeof(*s->conns));
    lincoll_status_t st = LINCOLL_ERR_NOMEM;
    if (s->conns == NULL || (!s->multi && lc_store_job_new(s, "", 0, p->size) == NULL)) {
        goto err;
    }
    if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        st = LINCOLL_ERR_IO;
        goto err;
    }
    st = lc_store_bind(s, p->host, p->port);
    if (st != LINCOLL_OK) {
        goto err;
    }
    if (s->multi) {
        lc_debug("store: serving named jobs on %s:%d", p->host ? p->host : "*", s->port);
    } else {
        lc_debug("store: serving %d ranks on %s:%d", p->size, p->host ? p->host : "*", s->port);
    }
    *s_p = s;
    return LINCOLL_OK;
err:
    lc_store_server_destroy(s);
    return st;
}

int lc_store_server_port(const lc_store_server_t *s)
{
    return s->port;
}

static void lc_store_accept(lc_store_server_t *s)
{
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int fd = accept4(s->listen_fd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            return; /* EAGAIN, or a transient error: poll again */
        }
        if (s->nconns == s->max_conns) {
            lc_warn("store: too many connections (%zu); refusing one", s->nconns);
            close(fd);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        if (s->nconns == s->cap_conns) {
            size_t cap = s->cap_conns * 2 < s->max_conns ? s->cap_conns * 2 : s->max_conns;
            lc_store_conn_t **nc = realloc(s->conns, cap * sizeof(*nc));
            if (nc == NULL) {
                lc_warn("store: out of memory for connection %zu; refusing one", s->nconns);
                close(fd);
                continue;
            }
            s->conns = nc;
            s->cap_conns = cap;
        }
        lc_store_conn_t *c = calloc(1, sizeof(*c));
        if (c == NULL) {
            lc_warn("store: out of memory for connection %zu; refusing one", s->nconns);
            close(fd);
            continue;
        }
        s->conns[s->nconns++] = c;
        c->fd = fd;
        c->rank = -1;
        c->deadline = lc_store_deadline(s->idle_timeout);
        char host[INET6_ADDRSTRLEN] = "?";
        int port = 0;
        if (ss.ss_family == AF_INET) {
            struct sockaddr_in *a = (struct sockaddr_in *)&ss;
            inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
            port = ntohs(a->sin_port);
        } else if (ss.ss_family == AF_INET6) {
            struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
            inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
            port = ntohs(a->sin6_port);
        }
        snprintf(c->peer, sizeof(c->peer), "%s:%d", host, port);
    }
}

lincoll_status_t lc_store_server_progress(lc_store_server_t *s, int timeout_ms)
{
    size_t n = s->nconns;
    struct pollfd *pfds = malloc((n + 2) * sizeof(*pfds));
    if (pfds == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    pfds[0] = (struct pollfd){.fd = s->listen_fd, .events = POLLIN};
    pfds[1] = (struct pollfd){.fd = s->wake[0], .events = POLLIN};
    double now = lc_store_now(), next = 0;
    for (size_t i = 0; i < n; i++) {
        lc_store_conn_t *c = s->conns[i];
        pfds[i + 2] = (struct pollfd){.fd = c->fd, .events = POLLIN};
        if (c->out_len) pfds[i + 2].events |= POLLOUT;
        if (c->deadline && (next == 0 || c->deadline < next)) next = c->deadline;
    }
    for (lc_store_job_t *j = s->jobs; s->multi && j != NULL; j = j->next) {
        double d = j->empty_since != 0 ? j->empty_since + s->idle_timeout : 0;
        if (d && (next == 0 || d < next)) next = d;
    }
    int ms = timeout_ms;
    if (next != 0) {
        int dms = next <= now ? 0 : (int)((next - now) * 1000.0) + 1;
        if (ms < 0 || dms < ms) ms = dms;
    }
    int rc = poll(pfds, n + 2, ms);
    if (rc < 0 && errno != EINTR) {
        free(pfds);
        return LINCOLL_ERR_IO;
    }
    if (rc > 0 && (pfds[1].revents & POLLIN)) {
        char buf[64];
        while (read(s->wake[0], buf, sizeof(buf)) > 0) {
        }
    }
    /* Connections are identified by fd: closing one moves the last into its slot. */
    for (size_t i = 0; rc > 0 && i < n; i++) {
        short rev = pfds[i + 2].revents;
        if (rev == 0) continue;
        size_t idx = s->nconns;
        for (size_t j = 0; j < s->nconns; j++) {
            if (s->conns[j]->fd == pfds[i + 2].fd) {
                idx = j;
                break;
            }
        }
        if (idx == s->nconns) continue; /* closed meanwhile */
        lc_store_conn_t *c = s->conns[idx];
        int orderly = 0, close_it = 0;
        if (rev & POLLOUT) {
            close_it = lc_store_flush(c) < 0;
        }
        if (!close_it && (rev & (POLLIN | POLLHUP | POLLERR))) {
            close_it = lc_store_on_readable(s, c, &orderly) < 0;
        }
        if (close_it) {
            lc_store_close_conn(s, idx, orderly);
        }
    }
    /* idle clients, and connections a failure marked for closing */
    now = lc_store_now();
    for (size_t i = 0; i < s->nconns;) {
        lc_store_conn_t *c = s->conns[i];
        if (c->closing) {
            lc_store_close_conn(s, i, 1);
            continue;
        }
        if (c->deadline != 0 && now >= c->deadline) {
            char msg[LC_STORE_MAX_ERRTEXT];
            snprintf(msg, sizeof(msg), "%s idle for %.1f s %s", c->peer, s->idle_timeout,
                     c->job == NULL ? "before HELLO" : "in the middle of a message");
            lc_warn("store: dropping %s (rank %d)", msg, c->rank);
            lc_store_send_error(c, LINCOLL_ERR_TIMEOUT, msg);
            lc_store_close_conn(s, i, 0);
            continue;
        }
        i++;
    }
    /* multi-job: jobs whose members all left before every rank had joined */
    for (lc_store_job_t *j = s->jobs, *next; s->multi && j != NULL; j = next) {
        next = j->next;
        if (j->empty_since != 0 && now - j->empty_since >= s->idle_timeout) {
            lc_warn("store: job '%s': no member for %.1f s with %d of %d ranks ever joined; "
                    "forgetting it",
                    j->name, s->idle_timeout, atomic_load(&j->njoined), j->size);
            lc_store_job_free(s, j);
        }
    }
    if (rc > 0 && (pfds[0].revents & POLLIN)) {
        lc_store_accept(s);
    }
    free(pfds);
    return LINCOLL_OK;
}

static void *lc_store_thread(void *arg)
{
    lc_store_server_t *s = arg;
    while (!atomic_load(&s->stop)) {
        if (lc_store_server_progress(s, 1000) == LINCOLL_ERR_NOMEM) {
            usleep(10000);
        }
    }
    return NULL;
}

lincoll_status_t lc_store_server_start(lc_store_server_t *s)
{
    LC_CHECK_ARG(s != NULL && !s->thread_started, "lc_store_server_start: bad server");
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the thread inherits: no signals there */
    int rc = pthread_create(&s->thread, NULL, lc_store_thread, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        lc_error("store: cannot start the server thread: %s", strerror(rc));
        return LINCOLL_ERR_IO;
    }
    s->thread_started = 1;
    return LINCOLL_OK;
}

lincoll_status_t lc_store_server_wait_done(lc_store_server_t *s, double timeout)
{
    LC_CHECK_ARG(s != NULL && !s->multi, "lc_store_server_wait_done: %s",
                 s == NULL ? "s is NULL" : "a multi-job store is never done");
    lc_store_job_t *j = s->jobs; /* the one job, freed only by destroy */
    double deadline = lc_store_deadline(timeout);
    while (!atomic_load(&j->done_failed) &&
           !(atomic_load(&j->njoined) == j->size && atomic_load(&j->nactive) == 0)) {
        if (deadline != 0 && lc_store_now() >= deadline) {
            return LINCOLL_ERR_TIMEOUT;
        }
        usleep(2000);
    }
    return LINCOLL_OK;
}

void lc_store_server_destroy(lc_store_server_t *s)
{
    if (s == NULL) {
        return;
    }
    if (s->thread_started) {
        atomic_store(&s->stop, 1);
        ssize_t w = write(s->wake[1], "x", 1);
        (void)w;
        pthread_join(s->thread, NULL);
    }
    while (s->nconns > 0) {
        s->conns[s->nconns - 1]->bye = 1; /* shutting down is not a failure */
        lc_store_close_conn(s, s->nconns - 1, 1);
    }
    if (s->listen_fd >= 0) close(s->listen_fd);
    if (s->wake[0] >= 0) close(s->wake[0]);
    if (s->wake[1] >= 0) close(s->wake[1]);
    free(s->conns);
    while (s->jobs != NULL) {
        lc_store_job_free(s, s->jobs);
    }
    free(s);
}
