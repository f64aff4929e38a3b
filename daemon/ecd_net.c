/*
 * daemon/ecd_net.c: TCP connections with idle timeouts, line reading, the
 * cluster file, logging.  Bytes go through TLS (ecd_tls.c) when the
 * connection has a session, else straight to the socket (--insecure).
 */
#include "daemon/ecd.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int ecd_self = -1;

double ecd_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void ecd_log(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (ecd_self >= 0)
        fprintf(stderr, "lincoll-ecd[%d]: %s\n", ecd_self, msg);
    else
        fprintf(stderr, "lincoll-ec: %s\n", msg);
}

int ecd_thread_start(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    pthread_attr_t a;
    if (pthread_attr_init(&a) != 0) return -1;
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &a, fn, arg);
    pthread_attr_destroy(&a);
    return rc == 0 ? 0 : -1;
}

int ecd_parse_hostport(const char *text, char *host, size_t hsize, int *port)
{
    const char *colon = text ? strrchr(text, ':') : NULL;
    if (colon == NULL || colon == text || (size_t)(colon - text) >= hsize) return -1;
    char *end;
    long p = strtol(colon + 1, &end, 10);
    if (*end != '\0' || colon[1] == '\0' || p < 0 || p > 65535) return -1;
    memcpy(host, text, (size_t)(colon - text));
    host[colon - text] = '\0';
    *port = (int)p;
    return 0;
}

int ecd_listen(const char *host, int port, int *port_p)
{
    struct addrinfo hints = {.ai_family = AF_INET,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV},
                    *res;
    char ps[16];
    snprintf(ps, sizeof(ps), "%d", port);
    if (getaddrinfo(host && *host ? host : NULL, ps, &hints, &res) != 0) {
        errno = EINVAL;
        return -1;
    }
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    if (fd < 0) {
        freeaddrinfo(res);
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 128) != 0) {
        int e = errno;
        close(fd);
        freeaddrinfo(res);
        errno = e;
        return -1;
    }
    freeaddrinfo(res);
    struct sockaddr_in a;
    socklen_t al = sizeof(a);
    getsockname(fd, (struct sockaddr *)&a, &al);
    *port_p = ntohs(a.sin_port);
    return fd;
}

ecd_conn_t *ecd_conn_wrap(int fd, double idle)
{
    ecd_conn_t *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        close(fd);
        return NULL;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    c->fd = fd;
    c->idle = idle;
    pthread_mutex_init(&c->tls_mu, NULL);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    char h[INET6_ADDRSTRLEN] = "?";
    if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0 && ss.ss_family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &a->sin_addr, h, sizeof(h));
        snprintf(c->peer, sizeof(c->peer), "%s:%d", h, ntohs(a->sin_port));
    } else {
        snprintf(c->peer, sizeof(c->peer), "?");
    }
    return c;
}

ecd_conn_t *ecd_connect(const char *hostport, double timeout, double idle, char *why, size_t wsize)
{
    char host[96];
    int port;
    if (ecd_parse_hostport(hostport, host, sizeof(host), &port) != 0 || port == 0) {
        snprintf(why, wsize, "'%s' is not host:port", hostport ? hostport : "");
        return NULL;
    }
    struct addrinfo hints = {.ai_family = AF_INET,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV},
                    *res;
    char ps[16];
    snprintf(ps, sizeof(ps), "%d", port);
    int rc = getaddrinfo(host, ps, &hints, &res);
    if (rc != 0) {
        snprintf(why, wsize, "cannot resolve %s: %s", host, gai_strerror(rc));
        return NULL;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        freeaddrinfo(res);
        snprintf(why, wsize, "socket: %s", strerror(errno));
        return NULL;
    }
    int err = 0;
    if (connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
        err = errno;
        if (err == EINPROGRESS) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            if (poll(&p, 1, (int)(timeout * 1000)) == 1) {
                socklen_t sl = sizeof(err);
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl);
            } else {
                err = ETIMEDOUT;
            }
        }
    }
    freeaddrinfo(res);
    if (err != 0) {
        close(fd);
        snprintf(why, wsize, "cannot connect to %s: %s", hostport, strerror(err));
        return NULL;
    }
    ecd_conn_t *c = ecd_conn_wrap(fd, idle);
    if (c == NULL) snprintf(why, wsize, "out of memory");
    if (c != NULL && ecd_tls_connect(c, timeout, why, wsize) != 0) {
        ecd_conn_close(c);
        return NULL;
    }
    return c;
}

void ecd_conn_close(ecd_conn_t *c)
{
    if (c != NULL) {
        ecd_tls_free(c);
        close(c->fd);
        pthread_mutex_destroy(&c->tls_mu);
        free(c);
    }
}

int ecd_conn_buffered(ecd_conn_t *c)
{
    return c->pos < c->len || ecd_tls_pending(c);
}

int ecd_conn_state(ecd_conn_t *c)
{
    if (ecd_conn_buffered(c)) return 1;
    char b;
    ssize_t n = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0) return -1;
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
    if (c->tls == NULL) return 1;
    /* raw bytes: a record of data, a close_notify, or a part of either */
    if (c->pos == c->len) c->pos = c->len = 0;
    if (c->len == sizeof(c->buf)) return 1;
    short want;
    long got = ecd_tls_recv(c, c->buf + c->len, sizeof(c->buf) - c->len, &want);
    if (got > 0) {
        c->len += (size_t)got;
        return 1;
    }
    if (got == 0) return -1;
    return errno == EAGAIN ? 0 : -1;
}

/* One send or recv, through TLS when the connection has it: > 0 bytes, 0 at
 * EOF, -1 with errno (EAGAIN: wait for *want). */
static ssize_t io_send(ecd_conn_t *c, const void *p, size_t len, short *want)
{
    *want = POLLOUT;
    if (c->tls != NULL) return ecd_tls_send(c, p, len, want);
    return send(c->fd, p, len, MSG_NOSIGNAL);
}

static ssize_t io_recv(ecd_conn_t *c, void *p, size_t len, short *want)
{
    *want = POLLIN;
    if (c->tls != NULL) return ecd_tls_recv(c, p, len, want);
    return recv(c->fd, p, len, 0);
}

void ecd_conn_shutdown(ecd_conn_t *c)
{
    if (c != NULL) shutdown(c->fd, SHUT_RDWR);
}

static int ecd_wait(ecd_conn_t *c, short ev)
{
    for (;;) {
        struct pollfd p = {.fd = c->fd, .events = ev};
        double wait = c->idle > 0 ? c->idle : -1;
        if (c->deadline > 0) {
            double left = c->deadline - ecd_now();
            if (left <= 0) {
                errno = ETIMEDOUT;
                return -1;
            }
            if (wait < 0 || left < wait) wait = left;
        }
        int rc = poll(&p, 1, wait < 0 ? -1 : (int)(wait * 1000) + 1);
        if (rc > 0) return 0;
        if (rc == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        if (errno != EINTR) return -1;
    }
}

int ecd_write(ecd_conn_t *c, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        short want;
        ssize_t n = io_send(c, p, len, &want);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
        } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (ecd_wait(c, want) != 0) return -1;
        } else {
            return -1;
        }
    }
    /* TLS: the records still in the write buffer go out now */
    for (short want; c->tls != NULL && ecd_tls_flush(c, &want) != 0;)
        if (errno != EAGAIN || ecd_wait(c, want) != 0) return -1;
    return 0;
}

int ecd_printf(ecd_conn_t *c, const char *fmt, ...)
{
    char line[ECD_LINE_MAX + ECD_MANIFEST_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(line)) {
        errno = EMSGSIZE;
        return -1;
    }
    return ecd_write(c, line, (size_t)n);
}

/* Refill the buffer; 0, or -1 on EOF (errno EPIPE), error or timeout. */
static int ecd_fill(ecd_conn_t *c)
{
    if (c->pos == c->len) c->pos = c->len = 0;
    for (;;) {
        short want;
        ssize_t n = io_recv(c, c->buf + c->len, sizeof(c->buf) - c->len, &want);
        if (n > 0) {
            c->len += (size_t)n;
            return 0;
        }
        if (n == 0) {
            errno = EPIPE;
            return -1;
        }
        if (errno != EAGAIN && errno != EINTR) return -1;
        if (ecd_wait(c, want) != 0) return -1;
    }
}

int ecd_read(ecd_conn_t *c, void *buf, size_t len)
{
    uint8_t *p = buf;
    while (len > 0) {
        if (c->pos < c->len) {
            size_t n = c->len - c->pos < len ? c->len - c->pos : len;
            memcpy(p, c->buf + c->pos, n);
            c->pos += n;
            p += n;
            len -= n;
            continue;
        }
        if (len >= sizeof(c->buf)) {
            /* large reads straight into the destination */
            short want;
            ssize_t n = io_recv(c, p, len, &want);
            if (n > 0) {
                p += n;
                len -= (size_t)n;
                continue;
            }
            if (n == 0) {
                errno = EPIPE;
                return -1;
            }
            if (errno != EAGAIN && errno != EINTR) return -1;
            if (ecd_wait(c, want) != 0) return -1;
            continue;
        }
        if (ecd_fill(c) != 0) return -1;
    }
    return 0;
}

int ecd_read_line(ecd_conn_t *c, char *line, size_t cap)
{
    size_t n = 0;
    line[0] = '\0'; /* what a failed read leaves */
    for (;;) {
        if (c->pos == c->len && ecd_fill(c) != 0) {
            line[0] = '\0';
            return -1;
        }
        char ch = (char)c->buf[c->pos++];
        if (ch == '\n') break;
        if (n + 1 >= cap) {
            line[0] = '\0';
            errno = EMSGSIZE;
            return -1;
        }
        line[n++] = ch;
    }
    if (n > 0 && line[n - 1] == '\r') n--;
    line[n] = '\0';
    return (int)n;
}

int ecd_split(char *line, char **word, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (*p == '\0') break;
        word[n++] = p;
        while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            p++;
        if (*p != '\0') *p++ = '\0';
    }
    return n;
}

int ecd_cluster_load(const char *path, ecd_cluster_t *cl, char *err, size_t esize)
{
    memset(cl, 0, sizeof(*cl));
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, esize, "cluster file %s: %s", path, strerror(errno));
        return -1;
    }
    char line[512];
    int lineno = 0, seen[ECD_MAX_NODES] = {0};
    while (fgets(line, sizeof(line), f) != NULL) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *w[4];
        int n = ecd_split(line, w, 4);
        if (n == 0) continue;
        if (n == 3 && strcmp(w[0], "code") == 0) {
            cl->k = atoi(w[1]);
            cl->m = atoi(w[2]);
        } else if (n == 3 && strcmp(w[0], "node") == 0) {
            char *end;
            long id = strtol(w[1], &end, 10);
            char host[96];
            int port;
            if (*end || id < 0 || id >= ECD_MAX_NODES ||
                ecd_parse_hostport(w[2], host, sizeof(host), &port) != 0 || port == 0) {
                snprintf(err, esize, "%s:%d: expected 'node ID HOST:PORT' (ID < %d)", path, lineno,
                         ECD_MAX_NODES);
                fclose(f);
                return -1;
            }
            snprintf(cl->addr[id], sizeof(cl->addr[id]), "%s", w[2]);
            seen[id] = 1;
        } else {
            snprintf(err, esize, "%s:%d: expected 'code K M' or 'node ID HOST:PORT'", path, lineno);
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    if (cl->k < 1 || cl->m < 1 || cl->k + cl->m > ECD_MAX_NODES) {
        snprintf(err, esize, "%s: 'code K M' needs K >= 1, M >= 1, K + M <= %d", path,
                 ECD_MAX_NODES);
        return -1;
    }
    /* N >= k + m nodes, ids 0..N-1: each object lives on k + m of them */
    cl->n = cl->k + cl->m;
    for (int i = 0; i < ECD_MAX_NODES; i++)
        if (seen[i] && i + 1 > cl->n) cl->n = i + 1;
    for (int i = 0; i < cl->n; i++) {
        if (!seen[i]) {
            snprintf(err, esize,
                     "%s: no address for node %d (code %d+%d and %d nodes need ids 0..%d)", path, i,
                     cl->k, cl->m, cl->n, cl->n - 1);
            return -1;
        }
    }
    return 0;
}
