/*
 * test/fuzz/fuzz_store_server.c: bytes from the network into the TCP store
 * server (core/context/bootstrap/store.c), over real loopback sockets.
 *
 * A server for a job of 2 ranks with the secret "fuzz-secret" runs inside
 * this process; the input is a sequence of chunks
 *     [u8 connection (mod 3)] [u8 length] [length bytes]
 * each written to one of three client connections, the server progressing
 * after each; the replies are drained.  Then the clients reset their
 * connections, the server progresses once more and is destroyed.  Crashes,
 * sanitizer reports and leaks are findings; the server must also never hold
 * more than its bounded buffers.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/context/bootstrap/store.h"
#include "fuzz/fuzz.h"

#define NCONN 3

/* Clients connect from rotating 127.0.x.y source addresses and the server
 * reuses one port: the TIME_WAIT sockets the server leaves when it closes
 * first never exhaust the ephemeral ports over 10^6 runs. */
static int connect_to(int port)
{
    static unsigned src;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    src = src % 65000 + 1;
    struct sockaddr_in b = {.sin_family = AF_INET};
    b.sin_addr.s_addr = htonl(0x7f000000u | (src + 1));
    int one = 1;
    setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&b, sizeof(b)) != 0) {
        close(fd);
        return -1;
    }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void drain(int fd)
{
    char buf[4096];
    while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0) {
    }
}

/* Close with RST: no TIME_WAIT left behind by a million connections. */
static void reset_close(int fd)
{
    struct linger l = {.l_onoff = 1, .l_linger = 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lc_fuzz_quiet();
    static int last_port;
    lc_store_params_t p = {.host = "127.0.0.1",
                           .port = last_port,
                           .size = 2,
                           .secret = "fuzz-secret",
                           .idle_timeout = 30};
    lc_store_server_t *s;
    if (lc_store_server_create(&p, &s) != LINCOLL_OK) {
        p.port = 0;
        if (lc_store_server_create(&p, &s) != LINCOLL_OK) abort();
    }
    int port = last_port = lc_store_server_port(s);
    int fds[NCONN];
    for (int i = 0; i < NCONN; i++) {
        /* a local resource hiccup of the harness (not a finding): retry */
        for (int tries = 0; (fds[i] = connect_to(port)) < 0 && tries < 100; tries++)
            usleep(10000);
        if (fds[i] < 0) {
            perror("fuzz_store_server: cannot connect to the store under test");
            abort();
        }
    }
    lc_store_server_progress(s, 0); /* accept */
    lc_store_server_progress(s, 0);
    size_t pos = 0;
    while (pos + 2 <= size) {
        int c = data[pos] % NCONN;
        size_t len = data[pos + 1];
        pos += 2;
        if (len > size - pos) len = size - pos;
        if (len > 0) {
            ssize_t w = send(fds[c], data + pos, len, MSG_NOSIGNAL | MSG_DONTWAIT);
            (void)w;
        }
        pos += len;
        lc_store_server_progress(s, 0);
        for (int i = 0; i < NCONN; i++)
            drain(fds[i]);
    }
    lc_store_server_progress(s, 0);
    for (int i = 0; i < NCONN; i++)
        reset_close(fds[i]);
    lc_store_server_progress(s, 0);
    lc_store_server_destroy(s);
    return 0;
}
