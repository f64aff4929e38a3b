/*
 * core/context/bootstrap/store_proto.c: the TCP store's wire protocol, as
 * its server (store.c) and its client (tcp.c) share it: header packing,
 * deadline-bounded socket I/O, the secret check and address parsing.
 * Protocol: store_proto.h.
 */
#include "core/context/bootstrap/store_proto.h"
#include "core/base/log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

void lc_store_hdr_pack(uint8_t out[LC_STORE_HDR_SIZE], uint16_t type, uint32_t arg, uint32_t len)
{
    lc_put32(out, LC_STORE_MAGIC);
    out[4] = (uint8_t)(LC_STORE_VERSION >> 8);
    out[5] = (uint8_t)LC_STORE_VERSION;
    out[6] = (uint8_t)(type >> 8);
    out[7] = (uint8_t)type;
    lc_put32(out + 8, arg);
    lc_put32(out + 12, len);
}

void lc_store_hdr_unpack(const uint8_t in[LC_STORE_HDR_SIZE], lc_store_hdr_t *hdr)
{
    hdr->magic = lc_get32(in);
    hdr->version = (uint16_t)((in[4] << 8) | in[5]);
    hdr->type = (uint16_t)((in[6] << 8) | in[7]);
    hdr->arg = lc_get32(in + 8);
    hdr->len = lc_get32(in + 12);
}

double lc_store_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double lc_store_deadline(double timeout)
{
    return timeout > 0 ? lc_store_now() + timeout : 0;
}

/* Milliseconds until the deadline for poll(): -1 = none, 0 = passed. */
static int lc_store_poll_ms(double deadline)
{
    if (deadline == 0) {
        return -1;
    }
    double left = deadline - lc_store_now();
    if (left <= 0) {
        return 0;
    }
    return left > 1e6 ? 1000000000 : (int)(left * 1000.0) + 1;
}

static lincoll_status_t lc_store_wait_fd(int fd, short events, double deadline)
{
    for (;;) {
        struct pollfd pfd = {.fd = fd, .events = events};
        int ms = lc_store_poll_ms(deadline);
        int rc = poll(&pfd, 1, ms);
        if (rc > 0) {
            return LINCOLL_OK;
        }
        if (rc == 0 && ms >= 0 && lc_store_now() >= deadline) {
            return LINCOLL_ERR_TIMEOUT;
        }
        if (rc < 0 && errno != EINTR) {
            return LINCOLL_ERR_IO;
        }
    }
}

lincoll_status_t lc_store_write_full(int fd, const void *buf, size_t len, double deadline)
{
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            lincoll_status_t st = lc_store_wait_fd(fd, POLLOUT, deadline);
            if (st != LINCOLL_OK) {
                return st;
            }
            continue;
        }
        return (errno == EPIPE || errno == ECONNRESET) ? LINCOLL_ERR_PEER_FAILED : LINCOLL_ERR_IO;
    }
    return LINCOLL_OK;
}

lincoll_status_t lc_store_read_full(int fd, void *buf, size_t len, double deadline)
{
    uint8_t *p = buf;
    size_t got = 0;
    while (got < len) {
        ssize_t n = recv(fd, p + got, len - got, MSG_DONTWAIT);
        if (n > 0) {
            got += (size_t)n;
            continue;
        }
        if (n == 0) {
            return got == 0 ? LINCOLL_ERR_PEER_FAILED : LINCOLL_ERR_TRUNCATED;
        }
        if (errno == EINTR) {
            continue;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            lincoll_status_t st = lc_store_wait_fd(fd, POLLIN, deadline);
            if (st != LINCOLL_OK) {
                return st;
            }
            continue;
        }
        if (errno == ECONNRESET) {
            return got == 0 ? LINCOLL_ERR_PEER_FAILED : LINCOLL_ERR_TRUNCATED;
        }
        return LINCOLL_ERR_IO;
    }
    return LINCOLL_OK;
}

int lc_store_secret_equal(const char *a, size_t alen, const char *b, size_t blen)
{
    /* Touch LC_STORE_MAX_SECRET bytes whatever the lengths so the time does not
     * reveal the matching prefix; lengths above the bound never match. */
    unsigned diff = (unsigned)(alen != blen) | (unsigned)(alen > LC_STORE_MAX_SECRET) |
                    (unsigned)(blen > LC_STORE_MAX_SECRET);
    for (size_t i = 0; i < LC_STORE_MAX_SECRET; i++) {
        uint8_t x = i < alen ? (uint8_t)a[i] : 0;
        uint8_t y = i < blen ? (uint8_t)b[i] : 0;
        diff |= (unsigned)(x ^ y);
    }
    return diff == 0;
}

lincoll_status_t lc_store_parse_addr(const char *text, char *host, size_t host_size, int *port,
                                     int allow_zero)
{
    if (text == NULL || *text == '\0') {
        return LINCOLL_ERR_INVALID;
    }
    const char *colon;
    const char *hstart = text;
    size_t hlen;
    if (text[0] == '[') {
        const char *close = strchr(text, ']');
        if (close == NULL || close[1] != ':') {
            return LINCOLL_ERR_INVALID;
        }
        hstart = text + 1;
        hlen = (size_t)(close - hstart);
        colon = close + 1;
    } else {
        colon = strrchr(text, ':');
        if (colon == NULL || strchr(text, ':') != colon) {
            return LINCOLL_ERR_INVALID; /* no port, or a bare IPv6 address */
        }
        hlen = (size_t)(colon - text);
    }
    if (hlen == 0 || hlen >= host_size) {
        return LINCOLL_ERR_INVALID;
    }
    const char *ps = colon + 1;
    if (*ps == '\0' || strlen(ps) > 5) {
        return LINCOLL_ERR_INVALID;
    }
    long v = 0;
    for (const char *c = ps; *c != '\0'; c++) {
        if (*c < '0' || *c > '9') {
            return LINCOLL_ERR_INVALID;
        }
        v = v * 10 + (*c - '0');
    }
    if (v > 65535 || (v == 0 && !allow_zero)) {
        return LINCOLL_ERR_INVALID;
    }
    memcpy(host, hstart, hlen);
    host[hlen] = '\0';
    *port = (int)v;
    return LINCOLL_OK;
}
