/*
 * test/fuzz/fuzz_store_client.c: bytes from a (malicious or broken) store
 * into the TCP bootstrap client (core/context/bootstrap/tcp.c).
 *
 * Input: [u8 job size selector] then the byte stream a fake store sends.  A
 * thread plays the store on a loopback socket: it accepts rank 1, writes the
 * stream, shuts down its side and swallows whatever the client sends.  The
 * client opens the bootstrap (HELLO, WELCOME, the host-name allgather) and,
 * if that succeeded, runs a barrier, an allgather of 24 bytes and a
 * variable-length allgather (lc_bootstrap_allgatherv) against the rest of
 * the stream.  Every reply is parsed by the client: lengths, types,
 * sequence numbers and ERROR texts come from the fuzzer.
 */
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/context/bootstrap/bootstrap_int.h"
#include "core/context/bootstrap/store.h"
#include "fuzz/fuzz.h"

typedef struct fake {
    int lfd;
    const uint8_t *data;
    size_t size;
} fake_t;

static void *fake_store(void *arg)
{
    fake_t *f = arg;
    int fd = accept(f->lfd, NULL, NULL);
    if (fd < 0) return NULL;
    size_t off = 0;
    while (off < f->size) {
        ssize_t w = send(fd, f->data + off, f->size - off, MSG_NOSIGNAL);
        if (w <= 0) break;
        off += (size_t)w;
    }
    shutdown(fd, SHUT_WR);
    char buf[4096];
    while (recv(fd, buf, sizeof(buf), 0) > 0) {
    }
    struct linger l = {.l_onoff = 1, .l_linger = 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
    close(fd);
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lc_fuzz_quiet();
    if (size < 1 || size > (1u << 16)) return 0;
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof(a);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(lfd, 4) != 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &sl) != 0) {
        abort();
    }
    fake_t f = {.lfd = lfd, .data = data + 1, .size = size - 1};
    pthread_t th;
    if (pthread_create(&th, NULL, fake_store, &f) != 0) abort();

    lc_config_t cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.rank = 1;
    cfg.size = 2 + data[0] % 3;
    snprintf(cfg.bootstrap, sizeof(cfg.bootstrap), "127.0.0.1:%d", ntohs(a.sin_port));
    snprintf(cfg.job_secret, sizeof(cfg.job_secret), "fuzz-secret");
    lc_bootstrap_t b;
    memset(&b, 0, sizeof(b));
    b.timeout = 5.0; /* never reached: the fake store closes its side */
    b.local_rank = b.local_size = -1;
    if (lc_bootstrap_tcp_open(&cfg, &b) == LINCOLL_OK) {
        if (b.ops->barrier(&b) == LINCOLL_OK) {
            char in[24] = "fuzz allgather payload!";
            char *out = malloc((size_t)b.size * sizeof(in));
            lincoll_status_t st = LINCOLL_ERR_NOMEM;
            if (out != NULL) st = b.ops->allgather(&b, in, out, sizeof(in));
            free(out);
            if (st == LINCOLL_OK) {
                /* variable-length blobs (worker addresses travel this way):
                 * the lengths come from the store */
                void *all = NULL, **ptrs = NULL;
                size_t *lens = NULL;
                if (lc_bootstrap_allgatherv(&b, in, 11, &all, &ptrs, &lens) == LINCOLL_OK) {
                    for (int r = 0; r < b.size; r++) {
                        if (lens[r] > 0) ((volatile char *)ptrs[r])[lens[r] - 1];
                    }
                }
                free(all);
                free(ptrs);
                free(lens);
            }
        }
        b.ops->fini(&b);
    }
    pthread_join(th, NULL);
    close(lfd);
    return 0;
}
