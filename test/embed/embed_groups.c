/*
 * test/embed/embed_groups.c: lincoll embedded in a program that brings its
 * own bootstrap, with several independent contexts per process.
 *
 * The test process serves a multi-job TCP store (lincoll_store_start) and
 * an out-of-band "hub" (its own allgather service over socketpairs, as an
 * embedder would have), then starts (fork, exec) three members P0, P1, P2
 * that hold three contexts each, all alive at once:
 *
 *   A  store, job "A"          P0 P1 P2
 *   B  oob, non-blocking       P1 P2
 *   C  oob, blocking           P0 P2
 *   D  store, job "D"          P0 P1
 *
 * Every member runs an allreduce on each of its contexts, the three started
 * together and tested in turn, checks the sums, runs a barrier on each, and
 * finalizes them.  Before that, P0 and P1 form a group E whose bootstrap
 * fails on P1 (its allgather callback returns LINCOLL_ERR_IO): P1's
 * lincoll_init must fail with that status and log a line naming the
 * callback; P0's must fail too (its hub connection closes), both cleanly.
 *
 * The test process itself first checks the embedder's parameters: bad
 * fields give LINCOLL_ERR_INVALID; a store nobody serves and a non-blocking
 * callback that never completes give LINCOLL_ERR_TIMEOUT after the
 * bootstrap timeout; a callback that returns a non-status value gives
 * LINCOLL_ERR_BOOTSTRAP.  Exit 0 when everything passed; members left
 * running after 120 s are killed.
 */
#include <lincoll/lincoll.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NMEMB  3
#define NVEC   1000
#define SECRET "embed-groups-secret"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "embed_groups: FAIL %s:%d: ", __FILE__, __LINE__);                     \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* ---- blocking socket helpers -------------------------------------------- */

static int io_full(int fd, void *buf, size_t len, int writing, double deadline)
{
    char *p = buf;
    while (len > 0) {
        struct pollfd pfd = {.fd = fd, .events = writing ? POLLOUT : POLLIN};
        int ms = (int)((deadline - now()) * 1000);
        if (ms <= 0) return -ETIMEDOUT;
        int rc = poll(&pfd, 1, ms);
        if (rc < 0 && errno == EINTR) continue;
        if (rc <= 0) return rc == 0 ? -ETIMEDOUT : -errno;
        ssize_t n = writing ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
        if (n == 0) return -EPIPE;
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return -errno;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* ---- the hub: the embedder's own allgather service ---------------------- */

typedef struct hub_group {
    const char *name;
    int n;
    int fd[NMEMB];       /* hub side, by rank in the group; -1 once closed */
    uint8_t *msg[NMEMB]; /* this round's contribution, NULL = not yet */
    uint32_t len[NMEMB];
} hub_group_t;

typedef struct hub {
    hub_group_t g[8];
    int ng;
    int stop_fd[2];
    pthread_t thread;
} hub_t;

static void hub_close_group(hub_group_t *g)
{
    for (int r = 0; r < g->n; r++) {
        if (g->fd[r] >= 0) close(g->fd[r]);
        g->fd[r] = -1;
        free(g->msg[r]);
        g->msg[r] = NULL;
    }
}

static void hub_member_msg(hub_group_t *g, int r)
{
    uint32_t len;
    double dl = now() + 10;
    if (io_full(g->fd[r], &len, 4, 0, dl) != 0 || len > (1u << 20)) {
        hub_close_group(g); /* a member left or broke: the others see EOF */
        return;
    }
    uint8_t *m = malloc(len ? len : 1);
    if (m == NULL || io_full(g->fd[r], m, len, 0, dl) != 0 || g->msg[r] != NULL) {
        free(m);
        hub_close_group(g);
        return;
    }
    g->msg[r] = m;
    g->len[r] = len;
    for (int i = 0; i < g->n; i++) {
        if (g->msg[i] == NULL) return;
        if (g->len[i] != g->len[0]) {
            hub_close_group(g);
            return;
        }
    }
    uint32_t total = g->len[0] * (uint32_t)g->n;
    uint8_t *all = malloc(4 + (size_t)total);
    if (all == NULL) {
        hub_close_group(g);
        return;
    }
    memcpy(all, &total, 4);
    for (int i = 0; i < g->n; i++) {
        memcpy(all + 4 + (size_t)i * g->len[0], g->msg[i], g->len[0]);
        free(g->msg[i]);
        g->msg[i] = NULL;
    }
    for (int i = 0; i < g->n; i++) {
        if (io_full(g->fd[i], all, 4 + (size_t)total, 1, now() + 10) != 0) {
            free(all);
            hub_close_group(g);
            return;
        }
    }
    free(all);
}

static void *hub_main(void *arg)
{
    hub_t *h = arg;
    for (;;) {
        struct pollfd pfd[1 + 8 * NMEMB];
        int who[1 + 8 * NMEMB][2], n = 0;
        pfd[n++] = (struct pollfd){.fd = h->stop_fd[0], .events = POLLIN};
        for (int gi = 0; gi < h->ng; gi++) {
            for (int r = 0; r < h->g[gi].n; r++) {
                if (h->g[gi].fd[r] < 0) continue;
                who[n][0] = gi;
                who[n][1] = r;
                pfd[n++] = (struct pollfd){.fd = h->g[gi].fd[r], .events = POLLIN};
            }
        }
        if (poll(pfd, (nfds_t)n, -1) < 0 && errno != EINTR) break;
        if (pfd[0].revents) break;
        for (int i = 1; i < n; i++) {
            hub_group_t *g = &h->g[who[i][0]];
            if (pfd[i].revents && g->fd[who[i][1]] == pfd[i].fd) hub_member_msg(g, who[i][1]);
        }
    }
    return NULL;
}

/* Make a group; cfd[r] receives the member-side socket of rank r. */
static void hub_add(hub_t *h, const char *name, int n, int cfd[NMEMB])
{
    hub_group_t *g = &h->g[h->ng++];
    g->name = name;
    g->n = n;
    for (int r = 0; r < n; r++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) abort();
        g->fd[r] = sv[0];
        cfd[r] = sv[1];
    }
}

/* ---- the members' side of the hub: lincoll_oob_t callbacks --------------- */

typedef struct chan {
    int fd;
    int size;
    int fail_allgather; /* return LINCOLL_ERR_IO from allgather */
} chan_t;

static lincoll_status_t chan_send(chan_t *c, const void *sbuf, size_t len)
{
    uint32_t l = (uint32_t)len;
    if (io_full(c->fd, &l, 4, 1, now() + 10) != 0) return LINCOLL_ERR_PEER_FAILED;
    if (len && io_full(c->fd, (void *)sbuf, len, 1, now() + 10) != 0)
        return LINCOLL_ERR_PEER_FAILED;
    return LINCOLL_OK;
}

/* blocking: the reply is read here, within 10 s */
static lincoll_status_t oob_allgather_blocking(const void *sbuf, void *rbuf, size_t len, void *info,
                                               void **req_p)
{
    chan_t *c = info;
    *req_p = NULL;
    if (c->fail_allgather) return LINCOLL_ERR_IO;
    lincoll_status_t st = chan_send(c, sbuf, len);
    if (st != LINCOLL_OK) return st;
    uint32_t total;
    double dl = now() + 10;
    int rc = io_full(c->fd, &total, 4, 0, dl);
    if (rc == 0 && total != len * (size_t)c->size) return LINCOLL_ERR_MISMATCH;
    if (rc == 0 && total) rc = io_full(c->fd, rbuf, total, 0, dl);
    return rc == 0 ? LINCOLL_OK : rc == -ETIMEDOUT ? LINCOLL_ERR_TIMEOUT : LINCOLL_ERR_PEER_FAILED;
}

static lincoll_status_t oob_barrier_blocking(void *info, void **req_p)
{
    return oob_allgather_blocking(NULL, NULL, 0, info, req_p);
}

/* non-blocking: allgather sends, req_test reads what has arrived */
typedef struct nbreq {
    chan_t *c;
    uint8_t *rbuf;
    size_t want, got; /* of 4 + total bytes */
    uint8_t hdr[4];
} nbreq_t;

static lincoll_status_t oob_allgather_nb(const void *sbuf, void *rbuf, size_t len, void *info,
                                         void **req_p)
{
    chan_t *c = info;
    lincoll_status_t st = chan_send(c, sbuf, len);
    if (st != LINCOLL_OK) return st;
    nbreq_t *r = calloc(1, sizeof(*r));
    if (r == NULL) return LINCOLL_ERR_NOMEM;
    r->c = c;
    r->rbuf = rbuf;
    r->want = 4 + len * (size_t)c->size;
    *req_p = r;
    return LINCOLL_OK;
}

static lincoll_status_t oob_test_nb(void *req)
{
    nbreq_t *r = req;
    while (r->got < r->want) {
        uint8_t *dst = r->got < 4 ? r->hdr + r->got : r->rbuf + (r->got - 4);
        size_t n = r->got < 4 ? 4 - r->got : r->want - r->got;
        ssize_t k = recv(r->c->fd, dst, n, MSG_DONTWAIT);
        if (k == 0) return LINCOLL_ERR_PEER_FAILED;
        if (k < 0)
            return errno == EAGAIN || errno == EINTR ? LINCOLL_INPROGRESS : LINCOLL_ERR_PEER_FAILED;
        r->got += (size_t)k;
        if (r->got == 4) {
            uint32_t total;
            memcpy(&total, r->hdr, 4);
            if (total != r->want - 4) return LINCOLL_ERR_MISMATCH;
        }
    }
    return LINCOLL_OK;
}

static int nb_freed;
static void oob_free_nb(void *req)
{
    nb_freed++;
    free(req);
}

/* a request that never completes */
static lincoll_status_t oob_allgather_stuck(const void *sbuf, void *rbuf, size_t len, void *info,
                                            void **req_p)
{
    (void)sbuf, (void)rbuf, (void)len, (void)info;
    *req_p = malloc(1);
    return *req_p ? LINCOLL_OK : LINCOLL_ERR_NOMEM;
}
static lincoll_status_t oob_test_stuck(void *req)
{
    (void)req;
    return LINCOLL_INPROGRESS;
}
static lincoll_status_t oob_allgather_weird(const void *sbuf, void *rbuf, size_t len, void *info,
                                            void **req_p)
{
    (void)sbuf, (void)rbuf, (void)len, (void)info, (void)req_p;
    return (lincoll_status_t)42;
}

/* ---- log capture -------------------------------------------------------- */

static char logged[8][512];
static int nlogged;
static void log_handler(lincoll_log_level_t level, int rank, const char *file, int line,
                        const char *msg, void *arg)
{
    (void)arg;
    fprintf(stderr, "[lincoll %d] %s:%d: %s\n", rank, file, line, msg);
    if (level == LINCOLL_LOG_ERROR && nlogged < 8)
        snprintf(logged[nlogged++], sizeof(logged[0]), "%s", msg);
}
static int logged_has(const char *a, const char *b)
{
    for (int i = 0; i < nlogged; i++)
        if (strstr(logged[i], a) && strstr(logged[i], b)) return 1;
    return 0;
}

/* ---- members ------------------------------------------------------------ */

typedef struct member_cfg {
    int id;
    int store_port;
    chan_t chan[5]; /* by context letter - 'A'; fd < 0 = not a member */
    int rank[5];
    int size[5];
} member_cfg_t;

/* ranks: A {0,1,2}, B {P1:0, P2:1}, C {P0:0, P2:1}, D {P0:0, P1:1}, E {P0:0, P1:1} */
static const int memb[5][NMEMB] = {{0, 1, 2}, {1, 2, -1}, {0, 2, -1}, {0, 1, -1}, {0, 1, -1}};

static int group_size(int c)
{
    int n = 0;
    while (n < NMEMB && memb[c][n] >= 0)
        n++;
    return n;
}

/* Member id's ranks and sizes in every group (channel fds -1). */
static void member_cfg(member_cfg_t *m, int id, int port)
{
    memset(m, 0, sizeof(*m));
    m->id = id;
    m->store_port = port;
    for (int c = 0; c < 5; c++) {
        m->chan[c].fd = -1;
        for (int r = 0; r < group_size(c); r++) {
            if (memb[c][r] != id) continue;
            m->rank[c] = r;
            m->size[c] = group_size(c);
            m->chan[c].size = group_size(c);
        }
    }
}

static lincoll_status_t member_init(member_cfg_t *m, int letter, lincoll_context_t **ctx)
{
    int i = letter - 'A';
    char addr[64], job[8];
    snprintf(addr, sizeof(addr), "127.0.0.1:%d", m->store_port);
    snprintf(job, sizeof(job), "%c", letter);
    lincoll_init_params_t p = {.timeout = 20, .rank = m->rank[i], .size = m->size[i]};
    if (letter == 'A' || letter == 'D') {
        p.bootstrap = LINCOLL_BOOTSTRAP_STORE;
        p.store_addr = addr;
        p.store_secret = SECRET;
        p.store_job = job;
    } else {
        p.bootstrap = LINCOLL_BOOTSTRAP_OOB;
        p.oob.coll_info = &m->chan[i];
        if (letter == 'B') {
            p.oob.allgather = oob_allgather_nb;
            p.oob.req_test = oob_test_nb;
            p.oob.req_free = oob_free_nb;
        } else {
            p.oob.allgather = oob_allgather_blocking;
            p.oob.barrier = oob_barrier_blocking;
        }
    }
    return lincoll_init(&p, ctx);
}

static int member_main(member_cfg_t *m)
{
    lincoll_log_set_handler(log_handler, NULL);
    /* E: P1's callback fails; both inits must fail cleanly */
    if (m->id <= 1) {
        chan_t *e = &m->chan['E' - 'A'];
        e->fail_allgather = m->id == 1;
        lincoll_init_params_t p = {.bootstrap = LINCOLL_BOOTSTRAP_OOB,
                                   .rank = m->id,
                                   .size = 2,
                                   .timeout = 20,
                                   .oob = {.allgather = oob_allgather_blocking,
                                           .barrier = oob_barrier_blocking,
                                           .coll_info = e}};
        lincoll_context_t *ctx = NULL;
        double t0 = now();
        lincoll_status_t st = lincoll_init(&p, &ctx);
        close(e->fd); /* the hub closes the group: the peer's exchange ends */
        CHECK(ctx == NULL, "P%d: a failed init set the context", m->id);
        if (m->id == 1) {
            CHECK(st == LINCOLL_ERR_IO, "P1: init with a failing callback returned %s",
                  lincoll_strerror(st));
            CHECK(logged_has("oob", "allgather") && logged_has("rank 1", "returned"),
                  "P1: no log line names the failing oob allgather of rank 1");
        } else {
            CHECK(st == LINCOLL_ERR_PEER_FAILED,
                  "P0: init whose peer's callback failed returned %s (want peer failed)",
                  lincoll_strerror(st));
        }
        CHECK(now() - t0 < 15, "P%d: the failed init took %.1f s", m->id, now() - t0);
    }

    const char *mine = m->id == 0 ? "ACD" : m->id == 1 ? "ABD" : "ABC";
    lincoll_context_t *ctx[3] = {0};
    lincoll_comm_t *w[3];
    for (int c = 0; c < 3; c++) {
        lincoll_status_t st = member_init(m, mine[c], &ctx[c]);
        CHECK(st == LINCOLL_OK, "P%d: init of context %c: %s", m->id, mine[c],
              lincoll_strerror(st));
        if (st != LINCOLL_OK) return 1;
        lincoll_comm_world(ctx[c], &w[c]);
        int i = mine[c] - 'A';
        CHECK(lincoll_comm_rank(w[c]) == m->rank[i] && lincoll_comm_size(w[c]) == m->size[i],
              "P%d: context %c is rank %d of %d, want %d of %d", m->id, mine[c],
              lincoll_comm_rank(w[c]), lincoll_comm_size(w[c]), m->rank[i], m->size[i]);
    }
    int fds[3];
    for (int c = 0; c < 3; c++) {
        CHECK(lincoll_context_fd(ctx[c], &fds[c]) == LINCOLL_OK && fds[c] >= 0,
              "P%d: no event descriptor for context %c", m->id, mine[c]);
    }
    CHECK(fds[0] != fds[1] && fds[1] != fds[2] && fds[0] != fds[2],
          "P%d: contexts share an event descriptor", m->id);

    /* an allreduce on each context, all three in flight at once */
    int64_t *in[3], *out[3];
    lincoll_plan_t *plan[3];
    for (int c = 0; c < 3; c++) {
        int i = mine[c] - 'A';
        in[c] = malloc(NVEC * sizeof(int64_t));
        out[c] = calloc(NVEC, sizeof(int64_t));
        for (int k = 0; k < NVEC; k++)
            in[c][k] = (int64_t)(i + 1) * 1000000 + (m->rank[i] + 1) * 1000 + k;
        lincoll_status_t st =
            lincoll_allreduce_init(w[c], in[c], out[c], NVEC, LINCOLL_INT64, LINCOLL_SUM, &plan[c]);
        CHECK(st == LINCOLL_OK, "P%d: allreduce_init on %c: %s", m->id, mine[c],
              lincoll_strerror(st));
        if (st != LINCOLL_OK) return 1;
    }
    for (int rep = 0; rep < 5; rep++) {
        lincoll_status_t st[3];
        for (int c = 0; c < 3; c++)
            st[c] = lincoll_start(plan[c]) == LINCOLL_OK ? LINCOLL_INPROGRESS : LINCOLL_ERR_INVALID;
        double dl = now() + 30;
        while ((st[0] == LINCOLL_INPROGRESS || st[1] == LINCOLL_INPROGRESS ||
                st[2] == LINCOLL_INPROGRESS) &&
               now() < dl) {
            for (int c = 0; c < 3; c++)
                if (st[c] == LINCOLL_INPROGRESS) st[c] = lincoll_test(plan[c]);
        }
        for (int c = 0; c < 3; c++) {
            int i = mine[c] - 'A', n = m->size[i], bad = 0;
            CHECK(st[c] == LINCOLL_OK, "P%d: allreduce %d on %c: %s", m->id, rep, mine[c],
                  lincoll_strerror(st[c]));
            for (int k = 0; k < NVEC; k++) {
                int64_t want =
                    (int64_t)n * ((int64_t)(i + 1) * 1000000 + k) + 1000 * (int64_t)n * (n + 1) / 2;
                bad += out[c][k] != want;
            }
            CHECK(bad == 0, "P%d: allreduce %d on %c: %d wrong sums", m->id, rep, mine[c], bad);
        }
    }
    for (int c = 0; c < 3; c++) {
        lincoll_plan_free(plan[c]);
        free(in[c]);
        free(out[c]);
        lincoll_status_t st = lincoll_barrier(w[c]);
        CHECK(st == LINCOLL_OK, "P%d: barrier on %c: %s", m->id, mine[c], lincoll_strerror(st));
    }
    /* finalize in an order every pair of members agrees on */
    const char *order = m->id == 0 ? "CDA" : m->id == 1 ? "BDA" : "CBA";
    for (int k = 0; k < 3; k++) {
        int c = (int)(strchr(mine, order[k]) - mine);
        double t0 = now();
        lincoll_status_t st = lincoll_finalize(ctx[c]);
        CHECK(st == LINCOLL_OK, "P%d: finalize of %c: %s", m->id, order[k], lincoll_strerror(st));
        CHECK(now() - t0 < 15, "P%d: finalize of %c took %.1f s", m->id, order[k], now() - t0);
    }
    if (m->id == 1 || m->id == 2) CHECK(nb_freed > 0, "P%d: req_free was never called", m->id);
    printf("embed_groups: P%d: contexts %s: allreduce x5 each, barrier, finalize: %s\n", m->id,
           mine, failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}

/* ---- the test process's own checks -------------------------------------- */

static void check_params(int store_port)
{
    lincoll_context_t *ctx = NULL;
    char addr[64];
    snprintf(addr, sizeof(addr), "127.0.0.1:%d", store_port);
    struct {
        const char *what;
        lincoll_init_params_t p;
    } bad[] = {
        {"oob without allgather", {.bootstrap = LINCOLL_BOOTSTRAP_OOB, .size = 1}},
        {"rank >= size",
         {.bootstrap = LINCOLL_BOOTSTRAP_OOB,
          .rank = 2,
          .size = 2,
          .oob = {.allgather = oob_allgather_blocking}}},
        {"size 0",
         {.bootstrap = LINCOLL_BOOTSTRAP_OOB,
          .size = 0,
          .oob = {.allgather = oob_allgather_blocking}}},
        {"unknown kind", {.bootstrap = (lincoll_bootstrap_kind_t)7, .size = 1}},
        {"store address without port",
         {.bootstrap = LINCOLL_BOOTSTRAP_STORE,
          .size = 1,
          .store_addr = "127.0.0.1",
          .store_secret = SECRET}},
        {"store without secret",
         {.bootstrap = LINCOLL_BOOTSTRAP_STORE, .size = 1, .store_addr = addr}},
        {"store job with a space",
         {.bootstrap = LINCOLL_BOOTSTRAP_STORE,
          .size = 1,
          .store_addr = addr,
          .store_secret = SECRET,
          .store_job = "a b"}},
        {"negative bootstrap timeout",
         {.bootstrap = LINCOLL_BOOTSTRAP_OOB,
          .size = 1,
          .bootstrap_timeout = -1,
          .oob = {.allgather = oob_allgather_blocking}}},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        nlogged = 0;
        lincoll_status_t st = lincoll_init(&bad[i].p, &ctx);
        CHECK(st == LINCOLL_ERR_INVALID, "params '%s': lincoll_init returned %s", bad[i].what,
              lincoll_strerror(st));
        CHECK(nlogged >= 1, "params '%s': no log line", bad[i].what);
    }
    /* a wrong secret: the store refuses at once */
    lincoll_init_params_t ws = {.bootstrap = LINCOLL_BOOTSTRAP_STORE,
                                .size = 1,
                                .store_addr = addr,
                                .store_secret = "wrong",
                                .store_job = "W"};
    CHECK(lincoll_init(&ws, &ctx) == LINCOLL_ERR_AUTH, "a wrong store secret was not refused");
    /* nobody serves there: TIMEOUT after the bootstrap timeout */
    int probe = socket(AF_INET, SOCK_STREAM, 0); /* a port that was free a moment ago */
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(0x7f000001);
    bind(probe, (struct sockaddr *)&a, sizeof(a));
    getsockname(probe, (struct sockaddr *)&ss, &sl);
    char dead[64];
    snprintf(dead, sizeof(dead), "127.0.0.1:%d", ntohs(((struct sockaddr_in *)&ss)->sin_port));
    close(probe);
    lincoll_init_params_t ns = {.bootstrap = LINCOLL_BOOTSTRAP_STORE,
                                .size = 2,
                                .rank = 1,
                                .store_addr = dead,
                                .store_secret = SECRET,
                                .bootstrap_timeout = 1};
    double t0 = now();
    lincoll_status_t st = lincoll_init(&ns, &ctx);
    double dt = now() - t0;
    CHECK(st == LINCOLL_ERR_TIMEOUT && dt > 0.8 && dt < 8,
          "no store at %s: %s after %.2f s (want timeout after ~1 s)", dead, lincoll_strerror(st),
          dt);
    /* a non-blocking request that never completes */
    int freed0 = nb_freed;
    lincoll_init_params_t stuck = {.bootstrap = LINCOLL_BOOTSTRAP_OOB,
                                   .size = 2,
                                   .rank = 0,
                                   .bootstrap_timeout = 1,
                                   .oob = {.allgather = oob_allgather_stuck,
                                           .req_test = oob_test_stuck,
                                           .req_free = oob_free_nb}};
    t0 = now();
    st = lincoll_init(&stuck, &ctx);
    dt = now() - t0;
    CHECK(st == LINCOLL_ERR_TIMEOUT && dt > 0.8 && dt < 8,
          "stuck oob request: %s after %.2f s (want timeout after ~1 s)", lincoll_strerror(st), dt);
    CHECK(nb_freed == freed0 + 1, "stuck oob request freed %d times", nb_freed - freed0);
    /* a callback that returns something that is not a status */
    lincoll_init_params_t weird = {.bootstrap = LINCOLL_BOOTSTRAP_OOB,
                                   .size = 2,
                                   .rank = 1,
                                   .oob = {.allgather = oob_allgather_weird}};
    CHECK(lincoll_init(&weird, &ctx) == LINCOLL_ERR_BOOTSTRAP,
          "an allgather returning 42 did not give LINCOLL_ERR_BOOTSTRAP");
    CHECK(ctx == NULL, "a failed init set the context");
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    lincoll_log_set_handler(log_handler, NULL);
    if (argc == 8 && strcmp(argv[1], "--member") == 0) {
        /* one member, exec'd by the test process: id, store port, fds of B..E */
        member_cfg_t m;
        member_cfg(&m, atoi(argv[2]), atoi(argv[3]));
        for (int c = 1; c < 5; c++)
            m.chan[c].fd = atoi(argv[c + 3]);
        int rc = member_main(&m);
        fflush(NULL);
        return rc;
    }
    lincoll_store_t *store;
    lincoll_store_params_t sp = {.host = "127.0.0.1", .secret = SECRET, .idle_timeout = 30};
    lincoll_status_t st = lincoll_store_start(&sp, &store);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "embed_groups: lincoll_store_start: %s\n", lincoll_strerror(st));
        return 1;
    }
    int port = lincoll_store_port(store);
    check_params(port);

    hub_t hub = {0};
    if (pipe(hub.stop_fd) != 0) return 1;
    member_cfg_t m[NMEMB];
    for (int i = 0; i < NMEMB; i++)
        member_cfg(&m[i], i, port);
    for (int c = 0; c < 5; c++) {
        int cfd[NMEMB];
        if (c == 1 || c == 2 || c == 4) {
            hub_add(&hub, c == 1 ? "B" : c == 2 ? "C" : "E", group_size(c), cfd);
            for (int r = 0; r < group_size(c); r++)
                m[memb[c][r]].chan[c].fd = cfd[r];
        }
    }
    pthread_create(&hub.thread, NULL, hub_main, &hub);
    pid_t pid[NMEMB];
    for (int i = 0; i < NMEMB; i++) {
        fflush(NULL);
        pid[i] = fork();
        if (pid[i] == 0) {
            /* exec: a fork of this multi-threaded process (store, hub) may
             * inherit locks those threads held.  Only the member's own ends
             * survive the exec (everything else is close-on-exec, so the
             * hub's EOFs show). */
            char *args[9], num[7][16];
            args[0] = "/proc/self/exe";
            args[1] = "--member";
            snprintf(num[0], 16, "%d", i);
            snprintf(num[1], 16, "%d", port);
            args[2] = num[0];
            args[3] = num[1];
            for (int c = 1; c < 5; c++) {
                int fd = m[i].chan[c].fd;
                if (fd >= 0) fcntl(fd, F_SETFD, 0);
                snprintf(num[c + 1], 16, "%d", fd);
                args[c + 3] = num[c + 1];
            }
            args[8] = NULL;
            execv(args[0], args);
            _exit(127);
        }
    }
    for (int i = 0; i < NMEMB; i++)
        for (int c = 0; c < 5; c++)
            if (m[i].chan[c].fd >= 0) close(m[i].chan[c].fd);
    double deadline = now() + 120;
    int left = NMEMB, status[NMEMB];
    for (int i = 0; i < NMEMB; i++)
        status[i] = -1;
    while (left > 0 && now() < deadline) {
        for (int i = 0; i < NMEMB; i++) {
            int s;
            if (status[i] == -1 && waitpid(pid[i], &s, WNOHANG) == pid[i]) {
                status[i] = s;
                left--;
            }
        }
        usleep(20000);
    }
    for (int i = 0; i < NMEMB; i++) {
        if (status[i] == -1) {
            fprintf(stderr, "embed_groups: FAIL: P%d still running after 120 s; killed\n", i);
            kill(pid[i], SIGKILL);
            waitpid(pid[i], &status[i], 0);
            failures++;
        } else if (!WIFEXITED(status[i]) || WEXITSTATUS(status[i]) != 0) {
            fprintf(stderr, "embed_groups: FAIL: P%d exited with status 0x%x\n", i, status[i]);
            failures++;
        }
    }
    if (write(hub.stop_fd[1], "x", 1) != 1) failures++;
    pthread_join(hub.thread, NULL);
    lincoll_store_stop(store);
    printf("embed_groups: %s\n", failures ? "FAILED" : "every check passed");
    return failures ? 1 : 0;
}
