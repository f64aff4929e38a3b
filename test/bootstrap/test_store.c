/*
 * test/bootstrap/test_store.c: unit tests of the TCP rendezvous store and its
 * client: protocol helpers, wrong secret, oversized and truncated messages
 * (both directions), duplicate rank, idle timeout, peer failure, mismatched
 * operations, and full allgather/barrier rounds among client threads, with the
 * store served by a test thread or by rank 0 itself.  Ports are always chosen
 * by the kernel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/base/config.h"
#include "core/base/log.h"
#include "core/context/bootstrap/bootstrap.h"
#include "core/context/bootstrap/store.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define SECRET "0123456789abcdef-test-secret"

static lc_store_server_t *start_server(int size, double idle, int *port)
{
    lc_store_params_t p = {
        .host = "127.0.0.1", .port = 0, .size = size, .secret = SECRET, .idle_timeout = idle};
    lc_store_server_t *s = NULL;
    assert_int_equal(lc_store_server_create(&p, &s), LINCOLL_OK);
    assert_int_equal(lc_store_server_start(s), LINCOLL_OK);
    *port = lc_store_server_port(s);
    assert_true(*port > 0);
    return s;
}

static void make_cfg(lc_config_t *cfg, int port, int rank, int size, const char *secret)
{
    assert_int_equal(lc_config_load(cfg), LINCOLL_OK);
    cfg->bootstrap_kind = LC_BOOT_TCP;
    snprintf(cfg->bootstrap, sizeof(cfg->bootstrap), "127.0.0.1:%d", port);
    cfg->rank = rank;
    cfg->size = size;
    snprintf(cfg->job_secret, sizeof(cfg->job_secret), "%s", secret);
    cfg->bootstrap_timeout = 60;
}

static int raw_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    return fd;
}

static void raw_send(int fd, uint16_t type, uint32_t arg, uint32_t len, const void *p, size_t plen)
{
    uint8_t h[LC_STORE_HDR_SIZE];
    lc_store_hdr_pack(h, type, arg, len);
    assert_int_equal(lc_store_write_full(fd, h, sizeof(h), lc_store_deadline(10)), LINCOLL_OK);
    if (plen) {
        assert_int_equal(lc_store_write_full(fd, p, plen, lc_store_deadline(10)), LINCOLL_OK);
    }
}

static void raw_hello(int fd, int rank, int size, const char *secret)
{
    uint8_t buf[4 + LC_STORE_MAX_SECRET];
    uint32_t sz = htonl((uint32_t)size);
    memcpy(buf, &sz, 4);
    size_t sl = strlen(secret);
    memcpy(buf + 4, secret, sl);
    raw_send(fd, LC_STORE_HELLO, (uint32_t)rank, (uint32_t)(4 + sl), buf, 4 + sl);
}

/* Next message; its payload (bounded) is discarded.  Returns the read status. */
static lincoll_status_t raw_recv(int fd, lc_store_hdr_t *h, double timeout)
{
    uint8_t raw[LC_STORE_HDR_SIZE];
    lincoll_status_t st = lc_store_read_full(fd, raw, sizeof(raw), lc_store_deadline(timeout));
    if (st != LINCOLL_OK) return st;
    lc_store_hdr_unpack(raw, h);
    assert_true(h->len <= 1 << 16);
    uint8_t *p = malloc(h->len + 1);
    st = lc_store_read_full(fd, p, h->len, lc_store_deadline(timeout));
    free(p);
    return st;
}

/* Expect an ERROR carrying `status`, then the server closing the connection. */
static void expect_error(int fd, lincoll_status_t status)
{
    lc_store_hdr_t h;
    assert_int_equal(raw_recv(fd, &h, 30), LINCOLL_OK);
    assert_int_equal(h.magic, LC_STORE_MAGIC);
    assert_int_equal(h.type, LC_STORE_ERROR);
    assert_int_equal(-(int32_t)h.arg, status);
    uint8_t c;
    assert_int_equal(lc_store_read_full(fd, &c, 1, lc_store_deadline(30)), LINCOLL_ERR_PEER_FAILED);
}

static void expect_welcome(int fd, int size)
{
    lc_store_hdr_t h;
    assert_int_equal(raw_recv(fd, &h, 30), LINCOLL_OK);
    assert_int_equal(h.type, LC_STORE_WELCOME);
    assert_int_equal(h.arg, (uint32_t)size);
}

/* ---- helpers ------------------------------------------------------------- */

static void test_hdr_roundtrip(void **state)
{
    (void)state;
    uint8_t raw[LC_STORE_HDR_SIZE];
    lc_store_hdr_pack(raw, LC_STORE_GATHER, 0xdeadbeef, 12345);
    assert_memory_equal(raw, "LCST", 4);
    lc_store_hdr_t h;
    lc_store_hdr_unpack(raw, &h);
    assert_int_equal(h.magic, LC_STORE_MAGIC);
    assert_int_equal(h.version, LC_STORE_VERSION);
    assert_int_equal(h.type, LC_STORE_GATHER);
    assert_int_equal(h.arg, 0xdeadbeef);
    assert_int_equal(h.len, 12345);
}

static void test_parse_addr(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int ok;
        const char *host;
        int port;
    } cases[] = {
        {"127.0.0.1:5000", 1, "127.0.0.1", 5000},
        {"node-01:1", 1, "node-01", 1},
        {"[::1]:65535", 1, "::1", 65535},
        {"host", 0, NULL, 0},
        {"host:", 0, NULL, 0},
        {":80", 0, NULL, 0},
        {"host:0", 0, NULL, 0},
        {"host:65536", 0, NULL, 0},
        {"host:12a", 0, NULL, 0},
        {"host:-1", 0, NULL, 0},
        {"::1:80", 0, NULL, 0},
        {"[::1]80", 0, NULL, 0},
        {"", 0, NULL, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char host[64];
        int port = -1;
        lincoll_status_t st = lc_store_parse_addr(cases[i].text, host, sizeof(host), &port, 0);
        if (cases[i].ok) {
            assert_int_equal(st, LINCOLL_OK);
            assert_string_equal(host, cases[i].host);
            assert_int_equal(port, cases[i].port);
        } else {
            assert_int_equal(st, LINCOLL_ERR_INVALID);
        }
    }
    char host[64];
    int port;
    assert_int_equal(lc_store_parse_addr("h:0", host, sizeof(host), &port, 1), LINCOLL_OK);
    assert_int_equal(lc_store_parse_addr(NULL, host, sizeof(host), &port, 1), LINCOLL_ERR_INVALID);
    char tiny[4];
    assert_int_equal(lc_store_parse_addr("longhost:1", tiny, sizeof(tiny), &port, 0),
                     LINCOLL_ERR_INVALID);
}

static void test_secret_equal(void **state)
{
    (void)state;
    assert_true(lc_store_secret_equal("abc", 3, "abc", 3));
    assert_false(lc_store_secret_equal("abc", 3, "abd", 3));
    assert_false(lc_store_secret_equal("abc", 3, "abcd", 4));
    assert_false(lc_store_secret_equal("", 0, "a", 1));
    char big[200];
    memset(big, 'x', sizeof(big));
    assert_false(lc_store_secret_equal(big, 200, big, 200)); /* above the bound */
}

static void test_server_bad_params(void **state)
{
    (void)state;
    lc_store_server_t *s;
    lc_store_params_t p = {.host = "127.0.0.1", .size = 0, .secret = SECRET};
    assert_int_equal(lc_store_server_create(&p, &s), LINCOLL_ERR_INVALID);
    p.size = 2;
    p.secret = "";
    assert_int_equal(lc_store_server_create(&p, &s), LINCOLL_ERR_INVALID);
    p.secret = SECRET;
    p.port = 70000;
    assert_int_equal(lc_store_server_create(&p, &s), LINCOLL_ERR_INVALID);
    assert_int_equal(lc_store_server_create(NULL, &s), LINCOLL_ERR_INVALID);
}

/* ---- server-side rejections ---------------------------------------------- */

static void test_wrong_secret(void **state)
{
    (void)state;
    int port;
    lc_store_server_t *s = start_server(1, 10, &port);
    lc_config_t cfg;
    lc_bootstrap_t *b = NULL;
    make_cfg(&cfg, port, 0, 1, "not-the-secret");
    assert_int_equal(lc_bootstrap_open(&cfg, &b), LINCOLL_ERR_AUTH);
    assert_null(b);
    /* same length, one byte off */
    char near[] = SECRET;
    near[3] ^= 1;
    make_cfg(&cfg, port, 0, 1, near);
    assert_int_equal(lc_bootstrap_open(&cfg, &b), LINCOLL_ERR_AUTH);
    /* the store is not poisoned: the right secret still works */
    make_cfg(&cfg, port, 0, 1, SECRET);
    assert_int_equal(lc_bootstrap_open(&cfg, &b), LINCOLL_OK);
    assert_string_equal(b->ops->name, "tcp");
    assert_int_equal(b->ops->barrier(b), LINCOLL_OK);
    lc_bootstrap_close(b);
    /* a message other than HELLO first is an authentication failure */
    int fd = raw_connect(port);
    raw_send(fd, LC_STORE_BARRIER, 0, 0, NULL, 0);
    expect_error(fd, LINCOLL_ERR_AUTH);
    close(fd);
    lc_store_server_destroy(s);
}

static void test_oversized_message(void **state)
{
    (void)state;
    int port;
    lc_store_server_t *s = start_server(2, 10, &port);
    /* HELLO longer than size + longest secret: rejected before reading it */
    int fd = raw_connect(port);
    raw_send(fd, LC_STORE_HELLO, 0, 4 + LC_STORE_MAX_SECRET + 1, NULL, 0);
    expect_error(fd, LINCOLL_ERR_TRUNCATED);
    close(fd);
    /* a 4 GiB GATHER from an authenticated rank */
    fd = raw_connect(port);
    raw_hello(fd, 0, 2, SECRET);
    expect_welcome(fd, 2);
    raw_send(fd, LC_STORE_GATHER, 0, 0xffffffffu, NULL, 0);
    expect_error(fd, LINCOLL_ERR_TRUNCATED);
    close(fd);
    /* one byte over the blob limit */
    lc_store_server_destroy(s);
    s = start_server(2, 10, &port);
    fd = raw_connect(port);
    raw_hello(fd, 1, 2, SECRET);
    expect_welcome(fd, 2);
    raw_send(fd, LC_STORE_GATHER, 0, LC_STORE_MAX_PAYLOAD + 1, NULL, 0);
    expect_error(fd, LINCOLL_ERR_TRUNCATED);
    close(fd);
    lc_store_server_destroy(s);
    /* the client refuses to send a blob over the limit */
    s = start_server(1, 10, &port);
    lc_config_t cfg;
    lc_bootstrap_t *b;
    make_cfg(&cfg, port, 0, 1, SECRET);
    assert_int_equal(lc_bootstrap_open(&cfg, &b), LINCOLL_OK);
    size_t big = LC_STORE_MAX_PAYLOAD + 1;
    char *in = calloc(1, big), *out = calloc(1, big);
    assert_int_equal(b->ops->allgather(b, in, out, big), LINCOLL_ERR_INVALID);
    assert_int_equal(b->ops->barrier(b), LINCOLL_OK); /* nothing was sent */
    free(in);
    free(out);
    lc_bootstrap_close(b);
    lc_store_server_destroy(s);
}

typedef struct open_arg {
    lc_config_t cfg;
    lincoll_status_t st;
    int rounds;
} open_arg_t;

static void *open_thread(void *p)
{
    open_arg_t *a = p;
    lc_bootstrap_t *b = NULL;
    a->st = lc_bootstrap_open(&a->cfg, &b);
    if (a->st == LINCOLL_OK) {
        a->st = b->ops->barrier(b);
        lc_bootstrap_close(b);
    }
    return NULL;
}

static void test_truncated_message(void **state)
{
    (void)state;
    int port;
    lc_store_server_t *s = start_server(2, 10, &port);
    /* HELLO shorter than its fixed u32 size field */
    int fd = raw_connect(port);
    raw_send(fd, LC_STORE_HELLO, 0, 2, "ab", 2);
    expect_error(fd, LINCOLL_ERR_TRUNCATED);
    close(fd);
    /* BARRIER with a payload */
    fd = raw_connect(port);
    raw_hello(fd, 1, 2, SECRET);
    expect_welcome(fd, 2);
    raw_send(fd, LC_STORE_BARRIER, 0, 1, "x", 1);
    expect_error(fd, LINCOLL_ERR_TRUNCATED);
    close(fd);
    lc_store_server_destroy(s);

    /* rank 1 announces 100 bytes, sends 10 and disconnects: rank 0, waiting
     * in the same allgather, learns that its peer failed */
    s = start_server(2, 10, &port);
    open_arg_t a;
    make_cfg(&a.cfg, port, 0, 2, SECRET);
    pthread_t th;
    fd = raw_connect(port);
    raw_hello(fd, 1, 2, SECRET);
    expect_welcome(fd, 2);
    pthread_create(&th, NULL, open_thread, &a);
    raw_send(fd, LC_STORE_GATHER, 0, 100, "0123456789", 10);
    close(fd);
    pthread_join(th, NULL);
    assert_int_equal(a.st, LINCOLL_ERR_PEER_FAILED);
    /* the job stays failed for late joiners */
    fd = raw_connect(port);
    raw_hello(fd, 1, 2, SECRET);
    expect_error(fd, LINCOLL_ERR_PEER_FAILED);
    close(fd);
    lc_store_server_destroy(s);
}

static void test_duplicate_rank(void **state)
{
    (void)state;
    int port;
    lc_store_server_t *s = start_server(2, 10, &port);
    int fd = raw_connect(port);
    raw_hello(fd, 1, 2, SECRET);
    expect_welcome(fd, 2);
    lc_config_t cfg;
    lc_bootstrap_t *b = NULL;
    make_cfg(&cfg, port, 1, 2, SECRET);
    assert_int_equal(lc_bootstrap_open(&cfg, &b), LINCOLL_ERR_INVALID);
    assert_null(b);
    /* the first holder of rank 1 is unaffected: with rank 0 joining, the job runs */
    open_arg_t a;
    make_cfg(&a.cfg, port, 0, 2, SECRET);
    pthread_t th;
    pthread_create(&th, NULL, open_thread, &a);
    /* rank 0's open allgathers host names (64 bytes), then barriers */
    char host[64] = {0};
    raw_send(fd, LC_STORE_GATHER, 0, sizeof(host), host, sizeof(host));
    lc_store_hdr_t h;
    assert_int_equal(raw_recv(fd, &h, 30), LINCOLL_OK);
    assert_int_equal(h.type, LC_STORE_GATHER_DONE);
    assert_int_equal(h.len, 2 * (4 + sizeof(host)));
    raw_send(fd, LC_STORE_BARRIER, 1, 0, NULL, 0);
    assert_int_equal(raw_recv(fd, &h, 30), LINCOLL_OK);
    assert_int_equal(h.type, LC_STORE_BARRIER_DONE);
    pthread_join(th, NULL);
    assert_int_equal(a.st, LINCOLL_OK);
    raw_send(fd, LC_STORE_BYE, 0, 0, NULL, 0);
    close(fd);
    lc_store_server_destroy(s);
}

static void test_idle_timeout(void **state)
{
    (void)state;
    int port;
    lc_store_server_t *s = start_server(2, 0.3, &port);
    /* silent after connect */
    double t0 = lc_store_now();
    int fd = raw_connect(port);
    expect_error(fd, LINCOLL_ERR_TIMEOUT);
    assert_true(lc_store_now() - t0 >= 0.25);
    close(fd);
    /* stalls in the middle of a header */
    fd = raw_connect(port);
    uint8_t h[LC_STORE_HDR_SIZE];
    lc_store_hdr_pack(h, LC_STORE_HELLO, 0, 8);
    assert_int_equal(lc_store_write_full(fd, h, 8, 0), LINCOLL_OK);
    expect_error(fd, LINCOLL_ERR_TIMEOUT);
    close(fd);
    /* a registered rank between operations is never idle-timed out */
    fd = raw_connect(port);
    raw_hello(fd, 0, 2, SECRET);
    expect_welcome(fd, 2);
    usleep(800 * 1000);
    raw_send(fd, LC_STORE_BYE, 0, 0, NULL, 0);
    uint8_t c;
    assert_int_equal(lc_store_read_full(fd, &c, 1, lc_store_deadline(10)),
                     LINCOLL_ERR_PEER_FAILED); /* closed after BYE, no ERROR */
    close(fd);
    lc_store_server_destroy(s);
}

static void test_mismatch(void **state)
{
    (void)state;
    int port;
    /* job size disagreement */
    lc_store_server_t *s = start_server(2, 10, &port);
    int fd = raw_connect(port);
    raw_hello(fd, 0, 3, SECRET);
    expect_error(fd, LINCOLL_ERR_MISMATCH);
    close(fd);
    /* rank beyond the size */
    fd = raw_connect(port);
    raw_hello(fd, 2, 2, SECRET);
    expect_error(fd, LINCOLL_ERR_INVALID);
    close(fd);
    /* one rank in a barrier, the other in an allgather */
    int f0 = raw_connect(port), f1 = raw_connect(port);
    raw_hello(f0, 0, 2, SECRET);
    raw_hello(f1, 1, 2, SECRET);
    expect_welcome(f0, 2);
    expect_welcome(f1, 2);
    raw_send(f0, LC_STORE_BARRIER, 0, 0, NULL, 0);
    raw_send(f1, LC_STORE_GATHER, 0, 3, "abc", 3);
    expect_error(f0, LINCOLL_ERR_MISMATCH);
    expect_error(f1, LINCOLL_ERR_MISMATCH);
    close(f0);
    close(f1);
    /* not a lincoll client at all */
    fd = raw_connect(port);
    const char *http = "GET / HTTP/1.1\r\n";
    assert_int_equal(lc_store_write_full(fd, http, 16, 0), LINCOLL_OK);
    expect_error(fd, LINCOLL_ERR_BOOTSTRAP);
    close(fd);
    lc_store_server_destroy(s);
}

/* ---- client-side rejections: a fake store answers with bad replies ------- */

typedef struct fake_arg {
    int listen_fd;
    int mode; /* 0: oversized WELCOME, 1: truncated ERROR text, 2: huge ERROR, 3: bad magic */
} fake_arg_t;

static void *fake_store(void *p)
{
    fake_arg_t *a = p;
    int fd = accept(a->listen_fd, NULL, NULL);
    lc_store_hdr_t h;
    uint8_t raw[LC_STORE_HDR_SIZE];
    raw_recv(fd, &h, 30); /* the HELLO */
    switch (a->mode) {
    case 0:
        lc_store_hdr_pack(raw, LC_STORE_WELCOME, 2, 5); /* size 2, 5 bytes */
        break;
    case 1:
        lc_store_hdr_pack(raw, LC_STORE_ERROR, (uint32_t)-LINCOLL_ERR_AUTH, 40);
        break;
    case 2:
        lc_store_hdr_pack(raw, LC_STORE_ERROR, (uint32_t)-LINCOLL_ERR_AUTH, 1u << 30);
        break;
    default:
        memcpy(raw, "HTTP/1.1 200 OK\r", LC_STORE_HDR_SIZE);
    }
    ssize_t w = write(fd, raw, sizeof(raw));
    w = write(fd, "short", 5);
    (void)w;
    close(fd);
    return NULL;
}

static void test_client_rejects_bad_replies(void **state)
{
    (void)state;
    static const lincoll_status_t want[] = {LINCOLL_ERR_TRUNCATED, LINCOLL_ERR_TRUNCATED,
                                            LINCOLL_ERR_TRUNCATED, LINCOLL_ERR_BOOTSTRAP};
    for (int mode = 0; mode < 4; mode++) {
        int lfd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
        assert_int_equal(listen(lfd, 4), 0);
        socklen_t sl = sizeof(a);
        getsockname(lfd, (struct sockaddr *)&a, &sl);
        fake_arg_t fa = {.listen_fd = lfd, .mode = mode};
        pthread_t th;
        pthread_create(&th, NULL, fake_store, &fa);
        lc_config_t cfg;
        lc_bootstrap_t *b = NULL;
        /* rank 1: never tries to serve the store itself */
        make_cfg(&cfg, ntohs(a.sin_port), 1, 2, SECRET);
        assert_int_equal(lc_bootstrap_open(&cfg, &b), want[mode]);
        assert_null(b);
        pthread_join(th, NULL);
        close(lfd);
    }
}

/* ---- full rounds among client threads ------------------------------------ */

typedef struct rank_arg {
    lc_config_t cfg;
    int rounds;
    int errors;
    int local_size;
} rank_arg_t;

static size_t vlen(int rank, int round)
{
    return (size_t)((rank * 29 + round * 7) % 50) + (rank == 1 ? 0 : 1) * (size_t)round;
}

static void *rank_thread(void *p)
{
    rank_arg_t *a = p;
    lc_bootstrap_t *b;
    if (lc_bootstrap_open(&a->cfg, &b) != LINCOLL_OK) {
        a->errors++;
        return NULL;
    }
    a->local_size = b->local_size;
    for (int round = 0; round < a->rounds; round++) {
        size_t len = vlen(b->rank, round);
        uint8_t blob[128];
        for (size_t i = 0; i < len; i++)
            blob[i] = (uint8_t)(b->rank + round + i);
        void *out;
        void **ptrs;
        size_t *lens;
        if (lc_bootstrap_allgatherv(b, blob, len, &out, &ptrs, &lens) != LINCOLL_OK) {
            a->errors++;
            break;
        }
        for (int r = 0; r < b->size; r++) {
            if (lens[r] != vlen(r, round)) a->errors++;
            for (size_t i = 0; i < lens[r]; i++) {
                if (((uint8_t *)ptrs[r])[i] != (uint8_t)(r + round + i)) a->errors++;
            }
        }
        free(out);
        free(ptrs);
        free(lens);
        uint64_t me = (uint64_t)b->rank << 32 | (uint64_t)round, all[16];
        if (b->ops->allgather(b, &me, all, sizeof(me)) != LINCOLL_OK) a->errors++;
        for (int r = 0; r < b->size; r++) {
            if (all[r] != ((uint64_t)r << 32 | (uint64_t)round)) a->errors++;
        }
        if (b->ops->barrier(b) != LINCOLL_OK) a->errors++;
    }
    lc_bootstrap_close(b);
    return NULL;
}

static void run_ranks(int port, int n, int rounds)
{
    rank_arg_t a[16];
    pthread_t th[16];
    for (int r = 0; r < n; r++) {
        memset(&a[r], 0, sizeof(a[r]));
        make_cfg(&a[r].cfg, port, r, n, SECRET);
        a[r].rounds = rounds;
        pthread_create(&th[r], NULL, rank_thread, &a[r]);
    }
    for (int r = 0; r < n; r++) {
        pthread_join(th[r], NULL);
        assert_int_equal(a[r].errors, 0);
        assert_int_equal(a[r].local_size, n);
    }
}

static void test_allgather_threads(void **state)
{
    (void)state;
    for (int n = 1; n <= 6; n++) {
        int port;
        lc_store_server_t *s = start_server(n, 10, &port);
        run_ranks(port, n, 8);
        assert_int_equal(lc_store_server_wait_done(s, 30), LINCOLL_OK);
        lc_store_server_destroy(s);
    }
}

/* No external store: rank 0 serves it at the address every rank was given. */
static void test_rank0_serves(void **state)
{
    (void)state;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    socklen_t sl = sizeof(a);
    getsockname(fd, (struct sockaddr *)&a, &sl);
    close(fd); /* a port the kernel just handed out, free again */
    run_ranks(ntohs(a.sin_port), 4, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hdr_roundtrip),
        cmocka_unit_test(test_parse_addr),
        cmocka_unit_test(test_secret_equal),
        cmocka_unit_test(test_server_bad_params),
        cmocka_unit_test(test_wrong_secret),
        cmocka_unit_test(test_oversized_message),
        cmocka_unit_test(test_truncated_message),
        cmocka_unit_test(test_duplicate_rank),
        cmocka_unit_test(test_idle_timeout),
        cmocka_unit_test(test_mismatch),
        cmocka_unit_test(test_client_rejects_bad_replies),
        cmocka_unit_test(test_allgather_threads),
        cmocka_unit_test(test_rank0_serves),
    };
    /* the rejections above log on purpose; keep the output readable */
    lincoll_log_set_level(getenv("LINCOLL_LOG_LEVEL") ? LINCOLL_LOG_TRACE : LINCOLL_LOG_ERROR);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
