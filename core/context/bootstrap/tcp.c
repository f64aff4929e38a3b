/*
 * core/context/bootstrap/tcp.c: the TCP store bootstrap client.
 *
 * Environment: LINCOLL_RANK, LINCOLL_SIZE, LINCOLL_BOOTSTRAP=host:port and
 * LINCOLL_JOB_SECRET (lincoll-run sets all four).  Every rank connects to the
 * store, presents the secret, and then each allgather or barrier is one
 * request and one reply (protocol in store.h).  When nothing listens at
 * host:port, rank 0 serves the store itself from a thread, bound to that
 * address, like a PyTorch TCPStore; the other ranks retry until it is up.
 * Local rank and size come from an allgather of host names.
 *
 * An embedder (lincoll_init_params_t, LINCOLL_BOOTSTRAP_STORE) gives rank,
 * size, the store's address and secret, and a job name: the store must be
 * up (lincoll-store, lincoll_store_start(); connections are retried until
 * the bootstrap timeout) and the rank joins that job with HELLO_JOB, so one
 * store serves every group of a set of long-running processes.
 *
 * Every wait is bounded by b->timeout: the bootstrap timeout during
 * lincoll_init, twice the context timeout after it (lc_bootstrap_set_timeout),
 * so a store or peer that became unreachable costs lincoll_finalize one such
 * wait (a failed barrier breaks the stream: nothing later waits again), and
 * rank 0 serving the store waits that long at most for the others to leave.
 */
#include "core/context/bootstrap/bootstrap_int.h"
#include "core/context/bootstrap/store.h"
#include "core/base/log.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define LC_TCP_HOSTLEN 64

typedef struct lc_tcp {
    int fd;
    uint32_t seq;
    lincoll_status_t broken;   /* first failure; the stream is unusable after it */
    lc_store_server_t *server; /* rank 0 serving the store */
    char addr[300];
} lc_tcp_t;

/* One connection attempt per resolved address; refused = NOT_FOUND. */
static lincoll_status_t lc_tcp_try_connect(const char *host, int port, double deadline, int *fd_p)
{
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    char pstr[16];
    snprintf(pstr, sizeof(pstr), "%d", port);
    int rc = getaddrinfo(host, pstr, &hints, &res);
    if (rc != 0) {
        lc_error("bootstrap store: cannot resolve host '%s': %s", host, gai_strerror(rc));
        return LINCOLL_ERR_INVALID;
    }
    lincoll_status_t st = LINCOLL_ERR_NOT_FOUND;
    for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0) {
            continue;
        }
        int err = 0;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            err = errno;
            if (err == EINPROGRESS) {
                struct pollfd pfd = {.fd = fd, .events = POLLOUT};
                double left = deadline ? deadline - lc_store_now() : 5.0;
                int ms = left <= 0 ? 0 : (int)(1000 * (left > 5.0 ? 5.0 : left));
                if (poll(&pfd, 1, ms) == 1) {
                    socklen_t sl = sizeof(err);
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl);
                } else {
                    err = ETIMEDOUT;
                }
            }
        }
        if (err == 0) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
            *fd_p = fd;
            st = LINCOLL_OK;
            break;
        }
        close(fd);
    }
    freeaddrinfo(res);
    return st;
}

static lincoll_status_t lc_tcp_connect(lc_tcp_t *t, const char *host, int port, double deadline)
{
    useconds_t pause = 10000;
    for (;;) {
        lincoll_status_t st = lc_tcp_try_connect(host, port, deadline, &t->fd);
        if (st != LINCOLL_ERR_NOT_FOUND) {
            return st;
        }
        if (deadline != 0 && lc_store_now() >= deadline) {
            lc_error("bootstrap store %s: nothing answered there before the bootstrap timeout",
                     t->addr);
            return LINCOLL_ERR_TIMEOUT;
        }
        usleep(pause);
        pause = pause < 250000 ? pause * 2 : pause;
    }
}

static lincoll_status_t lc_tcp_io_error(lc_tcp_t *t, lincoll_status_t st, const char *what)
{
    switch (st) {
    case LINCOLL_ERR_TIMEOUT:
        lc_error("bootstrap store %s: timed out during %s", t->addr, what);
        break;
    case LINCOLL_ERR_PEER_FAILED:
        lc_error("bootstrap store %s: connection closed during %s", t->addr, what);
        break;
    case LINCOLL_ERR_TRUNCATED:
        lc_error("bootstrap store %s: truncated message during %s", t->addr, what);
        break;
    default:
        lc_error("bootstrap store %s: %s failed: %s", t->addr, what, strerror(errno));
        st = LINCOLL_ERR_IO;
    }
    return st;
}

static lincoll_status_t lc_tcp_send(lc_tcp_t *t, uint16_t type, uint32_t arg, const void *a,
                                    size_t alen, const void *p, size_t plen, double deadline,
                                    const char *what)
{
    uint8_t hdr[LC_STORE_HDR_SIZE];
    lc_store_hdr_pack(hdr, type, arg, (uint32_t)(alen + plen));
    lincoll_status_t st = lc_store_write_full(t->fd, hdr, sizeof(hdr), deadline);
    if (st == LINCOLL_OK && alen) st = lc_store_write_full(t->fd, a, alen, deadline);
    if (st == LINCOLL_OK && plen) st = lc_store_write_full(t->fd, p, plen, deadline);
    return st == LINCOLL_OK ? st : lc_tcp_io_error(t, st, what);
}

/* Receive the header of the reply to `what`; an ERROR reply is logged and
 * becomes its status.  The caller reads exactly `len` payload bytes next. */
static lincoll_status_t lc_tcp_recv_hdr(lc_tcp_t *t, uint16_t want, uint32_t arg, uint64_t len,
                                        double deadline, const char *what)
{
    uint8_t raw[LC_STORE_HDR_SIZE];
    lc_store_hdr_t h;
    lincoll_status_t st = lc_store_read_full(t->fd, raw, sizeof(raw), deadline);
    if (st != LINCOLL_OK) {
        return lc_tcp_io_error(t, st, what);
    }
    lc_store_hdr_unpack(raw, &h);
    if (h.magic != LC_STORE_MAGIC || h.version != LC_STORE_VERSION) {
        lc_error("bootstrap store %s: not a lincoll store of protocol version %u (magic 0x%08x, "
                 "version %u)",
                 t->addr, LC_STORE_VERSION, h.magic, h.version);
        return LINCOLL_ERR_BOOTSTRAP;
    }
    if (h.type == LC_STORE_ERROR) {
        char text[LC_STORE_MAX_ERRTEXT + 1];
        if (h.len > LC_STORE_MAX_ERRTEXT) {
            lc_error("bootstrap store %s: error text of %u bytes exceeds the limit %u", t->addr,
                     h.len, LC_STORE_MAX_ERRTEXT);
            return LINCOLL_ERR_TRUNCATED;
        }
        st = lc_store_read_full(t->fd, text, h.len, deadline);
        if (st != LINCOLL_OK) {
            return lc_tcp_io_error(t, st, what);
        }
        text[h.len] = '\0';
        /* arg carries -status; anything else (including 0x80000000) is a bootstrap error */
        int32_t code = (h.arg >= 1 && h.arg <= (uint32_t)-LINCOLL_ERR_INTERNAL)
                           ? -(int32_t)h.arg
                           : LINCOLL_ERR_BOOTSTRAP;
        lc_error("bootstrap store %s refused %s: %s (%s)", t->addr, what, text,
                 lincoll_strerror((lincoll_status_t)code));
        return (lincoll_status_t)code;
    }
    if (h.type != want || h.arg != arg) {
        lc_error("bootstrap store %s: unexpected reply type %u #%u to %s #%u", t->addr, h.type,
                 h.arg, what, arg);
        return LINCOLL_ERR_BOOTSTRAP;
    }
    if (h.len != len) {
        lc_error("bootstrap store %s: reply to %s has %u bytes, expected %llu", t->addr, what,
                 h.len, (unsigned long long)len);
        return LINCOLL_ERR_TRUNCATED;
    }
    return LINCOLL_OK;
}

static lincoll_status_t lc_tcp_fail(lc_tcp_t *t, lincoll_status_t st)
{
    if (st != LINCOLL_OK && t->broken == LINCOLL_OK) {
        t->broken = st;
    }
    return st;
}

static lincoll_status_t lc_tcp_check_usable(lc_tcp_t *t)
{
    if (t->broken != LINCOLL_OK) {
        lc_error("bootstrap store %s: unusable after an earlier failure (%s)", t->addr,
                 lincoll_strerror(t->broken));
        return t->broken;
    }
    return LINCOLL_OK;
}

static lincoll_status_t lc_tcp_allgather(lc_bootstrap_t *b, const void *in, void *out, size_t len)
{
    lc_tcp_t *t = b->impl;
    lincoll_status_t st = lc_bootstrap_check_allgather(b, in, out, len);
    if (st != LINCOLL_OK) return st;
    LC_CHECK_ARG(len <= LC_STORE_MAX_PAYLOAD,
                 "bootstrap allgather: len %zu exceeds the TCP store limit of %u bytes", len,
                 LC_STORE_MAX_PAYLOAD);
    uint64_t reply = (uint64_t)b->size * (4 + (uint64_t)len);
    LC_CHECK_ARG(reply <= LC_STORE_MAX_REPLY,
                 "bootstrap allgather: %d ranks of %zu bytes exceed the TCP store reply limit",
                 b->size, len);
    if ((st = lc_tcp_check_usable(t)) != LINCOLL_OK) return st;
    double deadline = lc_store_deadline(b->timeout);
    uint32_t seq = t->seq++;
    st = lc_tcp_send(t, LC_STORE_GATHER, seq, NULL, 0, in, len, deadline, "allgather");
    if (st == LINCOLL_OK) {
        st = lc_tcp_recv_hdr(t, LC_STORE_GATHER_DONE, seq, reply, deadline, "allgather");
    }
    if (st != LINCOLL_OK) return lc_tcp_fail(t, st);
    uint8_t *lens = malloc((size_t)b->size * 4);
    if (lens == NULL) return lc_tcp_fail(t, LINCOLL_ERR_NOMEM);
    st = lc_store_read_full(t->fd, lens, (size_t)b->size * 4, deadline);
    for (int r = 0; st == LINCOLL_OK && r < b->size; r++) {
        const uint8_t *p = lens + 4 * (size_t)r;
        uint32_t l = ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
        if (l != len) {
            lc_error("bootstrap allgather: rank %d contributed %u bytes, this rank %zu", r, l, len);
            free(lens);
            return lc_tcp_fail(t, LINCOLL_ERR_MISMATCH);
        }
    }
    free(lens);
    if (st == LINCOLL_OK && len) {
        st = lc_store_read_full(t->fd, out, (size_t)b->size * len, deadline);
    }
    if (st != LINCOLL_OK) st = lc_tcp_io_error(t, st, "allgather");
    return lc_tcp_fail(t, st);
}

static lincoll_status_t lc_tcp_barrier(lc_bootstrap_t *b)
{
    LC_CHECK_ARG(b != NULL, "bootstrap barrier: b is NULL");
    lc_tcp_t *t = b->impl;
    lincoll_status_t st = lc_tcp_check_usable(t);
    if (st != LINCOLL_OK) return st;
    double deadline = lc_store_deadline(b->timeout);
    uint32_t seq = t->seq++;
    st = lc_tcp_send(t, LC_STORE_BARRIER, seq, NULL, 0, NULL, 0, deadline, "barrier");
    if (st == LINCOLL_OK) {
        st = lc_tcp_recv_hdr(t, LC_STORE_BARRIER_DONE, seq, 0, deadline, "barrier");
    }
    return lc_tcp_fail(t, st);
}

static void lc_tcp_free(lc_tcp_t *t, double timeout)
{
    if (t->fd >= 0) {
        if (t->broken == LINCOLL_OK) {
            uint8_t hdr[LC_STORE_HDR_SIZE];
            lc_store_hdr_pack(hdr, LC_STORE_BYE, 0, 0);
            lc_store_write_full(t->fd, hdr, sizeof(hdr), lc_store_deadline(1.0));
        }
        close(t->fd);
    }
    if (t->server != NULL) {
        /* Rank 0 serves: let the other ranks read their last reply first. */
        if (lc_store_server_wait_done(t->server, timeout > 0 ? timeout : 60.0) != LINCOLL_OK) {
            lc_warn("bootstrap store %s: closing while ranks are still connected", t->addr);
        }
        lc_store_server_destroy(t->server);
    }
    free(t);
}

static void lc_tcp_fini(lc_bootstrap_t *b)
{
    lc_tcp_free(b->impl, b->timeout);
    b->impl = NULL;
}

static const lc_bootstrap_ops_t lc_tcp_ops = {
    .name = "tcp",
    .allgather = lc_tcp_allgather,
    .barrier = lc_tcp_barrier,
    .fini = lc_tcp_fini,
};

static lincoll_status_t lc_tcp_local(lc_bootstrap_t *b)
{
    char me[LC_TCP_HOSTLEN] = {0};
    gethostname(me, sizeof(me) - 1);
    char *all = malloc((size_t)b->size * LC_TCP_HOSTLEN);
    if (all == NULL) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = lc_tcp_allgather(b, me, all, LC_TCP_HOSTLEN);
    if (st == LINCOLL_OK) {
        b->local_rank = b->local_size = 0;
        for (int r = 0; r < b->size; r++) {
            if (memcmp(all + (size_t)r * LC_TCP_HOSTLEN, me, LC_TCP_HOSTLEN) == 0) {
                b->local_rank += r < b->rank;
                b->local_size++;
            }
        }
    }
    free(all);
    return st;
}

/* Connect to the store at host:port (addr_text as given), join `job` (NULL
 * or "": the store's only job) as rank b->rank of b->size, and learn the
 * local ranks.  may_serve: rank 0 serves the store itself when nothing
 * listens there (lincoll-run's environment without lincoll-run). */
static lincoll_status_t lc_tcp_join(lc_bootstrap_t *b, const char *host, int port,
                                    const char *addr_text, const char *secret, const char *job,
                                    int may_serve)
{
    size_t slen = strlen(secret), jlen = job != NULL ? strlen(job) : 0;
    lc_tcp_t *t = calloc(1, sizeof(*t));
    if (t == NULL) return LINCOLL_ERR_NOMEM;
    t->fd = -1;
    snprintf(t->addr, sizeof(t->addr), "%s", addr_text);
    b->ops = &lc_tcp_ops;
    b->impl = t;
    double deadline = lc_store_deadline(b->timeout);

    lincoll_status_t st;
    if (b->rank == 0 && may_serve) {
        st = lc_tcp_try_connect(host, port, deadline, &t->fd);
        if (st == LINCOLL_ERR_NOT_FOUND) {
            lc_store_params_t p = {.host = host,
                                   .port = port,
                                   .size = b->size,
                                   .secret = secret,
                                   .idle_timeout = b->timeout > 0 ? b->timeout : 0};
            st = lc_store_server_create(&p, &t->server);
            if (st == LINCOLL_OK) st = lc_store_server_start(t->server);
            if (st == LINCOLL_OK) {
                lc_info("bootstrap: rank 0 serves the store at %s", t->addr);
                st = lc_tcp_connect(t, host, port, deadline);
            }
        }
    } else {
        st = lc_tcp_connect(t, host, port, deadline);
    }
    if (st == LINCOLL_OK) {
        uint8_t pre[5] = {(uint8_t)(b->size >> 24), (uint8_t)(b->size >> 16),
                          (uint8_t)(b->size >> 8), (uint8_t)b->size, (uint8_t)slen};
        if (jlen == 0) {
            st = lc_tcp_send(t, LC_STORE_HELLO, (uint32_t)b->rank, pre, 4, secret, slen, deadline,
                             "hello");
        } else {
            /* u32 size, u8 secret length, secret, job name: one buffer */
            uint8_t msg[5 + LC_STORE_MAX_SECRET + LC_STORE_MAX_JOB];
            memcpy(msg, pre, 5);
            memcpy(msg + 5, secret, slen);
            memcpy(msg + 5 + slen, job, jlen);
            st = lc_tcp_send(t, LC_STORE_HELLO_JOB, (uint32_t)b->rank, msg, 5 + slen + jlen, NULL,
                             0, deadline, "hello");
        }
    }
    if (st == LINCOLL_OK) {
        st = lc_tcp_recv_hdr(t, LC_STORE_WELCOME, (uint32_t)b->size, 0, deadline, "hello");
    }
    if (st == LINCOLL_OK) {
        st = lc_tcp_local(b);
    }
    if (st != LINCOLL_OK) {
        t->broken = st;
        lc_tcp_free(t, 1.0);
        b->impl = NULL;
        b->ops = NULL;
        return st;
    }
    return LINCOLL_OK;
}

lincoll_status_t lc_bootstrap_tcp_open(const lc_config_t *cfg, lc_bootstrap_t *b)
{
    if (cfg->size < 1) {
        lc_error("LINCOLL_SIZE is not set (the TCP store bootstrap needs LINCOLL_RANK, "
                 "LINCOLL_SIZE, LINCOLL_BOOTSTRAP and LINCOLL_JOB_SECRET; lincoll-run sets them)");
        return LINCOLL_ERR_INVALID;
    }
    if (cfg->rank < 0 || cfg->rank >= cfg->size) {
        lc_error("LINCOLL_RANK=%ld: %s (LINCOLL_SIZE=%ld)", cfg->rank,
                 cfg->rank < 0 ? "not set" : "out of range", cfg->size);
        return LINCOLL_ERR_INVALID;
    }
    char host[256];
    int port;
    if (cfg->bootstrap[0] == '\0') {
        lc_error("LINCOLL_BOOTSTRAP is not set (expected host:port of the TCP store)");
        return LINCOLL_ERR_INVALID;
    }
    if (lc_store_parse_addr(cfg->bootstrap, host, sizeof(host), &port, 0) != LINCOLL_OK) {
        lc_error("LINCOLL_BOOTSTRAP=%s: expected host:port (or [ipv6]:port) with a port in "
                 "1..65535",
                 cfg->bootstrap);
        return LINCOLL_ERR_INVALID;
    }
    size_t slen = strlen(cfg->job_secret);
    if (slen == 0 || slen > LC_STORE_MAX_SECRET) {
        lc_error("LINCOLL_JOB_SECRET: %s (1 to %u characters shared by every rank)",
                 slen ? "too long" : "not set", LC_STORE_MAX_SECRET);
        return slen ? LINCOLL_ERR_INVALID : LINCOLL_ERR_AUTH;
    }
    b->rank = (int)cfg->rank;
    b->size = (int)cfg->size;
    return lc_tcp_join(b, host, port, cfg->bootstrap, cfg->job_secret, NULL, 1);
}

lincoll_status_t lc_bootstrap_store_open(const lincoll_init_params_t *e, lc_bootstrap_t *b)
{
    char host[256];
    int port;
    if (e->store_addr == NULL ||
        lc_store_parse_addr(e->store_addr, host, sizeof(host), &port, 0) != LINCOLL_OK) {
        lc_error("lincoll_init: params->store_addr=%s: expected host:port (or [ipv6]:port) with "
                 "a port in 1..65535",
                 e->store_addr ? e->store_addr : "(null)");
        return LINCOLL_ERR_INVALID;
    }
    size_t slen = e->store_secret != NULL ? strlen(e->store_secret) : 0;
    if (slen == 0 || slen > LC_STORE_MAX_SECRET) {
        lc_error("lincoll_init: params->store_secret: %s (1 to %u characters shared by every "
                 "rank and the store)",
                 slen ? "too long" : "not set", LC_STORE_MAX_SECRET);
        return LINCOLL_ERR_INVALID;
    }
    size_t jlen = e->store_job != NULL ? strlen(e->store_job) : 0;
    for (size_t i = 0; i < jlen; i++) {
        if (e->store_job[i] <= ' ' || e->store_job[i] > '~') {
            jlen = LC_STORE_MAX_JOB + 1; /* refused below */
            break;
        }
    }
    if (jlen > LC_STORE_MAX_JOB) {
        lc_error("lincoll_init: params->store_job='%s': a job name has 1 to %u printable "
                 "characters without spaces",
                 e->store_job, LC_STORE_MAX_JOB);
        return LINCOLL_ERR_INVALID;
    }
    b->rank = e->rank;
    b->size = e->size;
    return lc_tcp_join(b, host, port, e->store_addr, e->store_secret, e->store_job, 0);
}
