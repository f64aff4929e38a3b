/*
 * test/transport/ct_harness.c: environments, waits and barriers of the
 * transport conformance suite (see ct.h).
 *
 * Multi-process mode: rank 0 (the parent) is the hub of a star of
 * socketpairs.  The out-of-band bytes are 'B' (barrier) and 'F' (a process
 * failed, sticky).  Waits give up after CT_DEADLINE_S seconds of no
 * completion so that a transport bug shows as a failure, not a hang (the
 * pass/fail outcome never depends on speed).  Children die with the parent
 * (PR_SET_PDEATHSIG) and the parent reaps them, killing any that linger.
 */
#include "ct.h"

#include "core/base/config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CT_DEADLINE_S   120.0
#define CT_SIM_MAXSWEEP 1000000L

static double ct_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- fill / check ------------------------------------------------------ */

static inline unsigned char ct_byte(size_t i, unsigned seed)
{
    uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ULL + seed * 0x85ebca6bULL;
    return (unsigned char)(x >> 29 ^ x >> 51 ^ seed);
}

void ct_fill(void *buf, size_t len, unsigned seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < len; i++) {
        p[i] = ct_byte(i, seed);
    }
}

int ct_check(const void *buf, size_t len, unsigned seed)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < len; i++) {
        if (p[i] != ct_byte(i, seed)) {
            print_error("byte %zu of %zu: 0x%02x, expected 0x%02x (seed %u)\n", i, len, p[i],
                        ct_byte(i, seed), seed);
            return 0;
        }
    }
    return 1;
}

/* ---- out-of-band bytes -------------------------------------------------- */

static int ct_nfd(const ct_env_t *e)
{
    return e->sim ? 0 : e->nranks;
}

/* Tell every socket that this process failed (the hub forwards it). */
static void ct_send_fail(ct_env_t *e)
{
    char c = 'F';
    for (int i = 0; i < ct_nfd(e); i++) {
        if (e->fd[i] >= 0) {
            (void)!send(e->fd[i], &c, 1, MSG_NOSIGNAL);
        }
    }
}

static void ct_break(ct_env_t *e, const char *why)
{
    if (!e->broken) {
        e->broken = 1;
        ct_send_fail(e);
    }
    fail_msg("rank %d: %s", e->me, why);
}

/* Look (without consuming a 'B') for a failure notice on any socket. */
static void ct_watch(ct_env_t *e)
{
    for (int i = 0; i < ct_nfd(e); i++) {
        char c;
        if (e->fd[i] < 0) {
            continue;
        }
        ssize_t n = recv(e->fd[i], &c, 1, MSG_PEEK | MSG_DONTWAIT);
        if (n == 0 || (n == 1 && c == 'F')) {
            ct_break(e, "another process failed or exited (see its output)");
        }
    }
}

void ct_progress(ct_env_t *e, int sweeps)
{
    for (int s = 0; s < sweeps; s++) {
        for (int r = 0; r < e->nranks; r++) {
            if (e->tl[r]) {
                e->ops->progress(e->tl[r]);
            }
        }
    }
}

/* Read one byte from fd while driving progress. */
static char ct_read_byte(ct_env_t *e, int fd)
{
    double t0 = ct_now();
    for (;;) {
        char c;
        ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);
        if (n == 1) {
            return c;
        }
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            return 'F';
        }
        ct_progress(e, 1);
        if (ct_now() - t0 > CT_DEADLINE_S) {
            return 'T';
        }
    }
}

void ct_barrier(ct_env_t *e)
{
    if (e->sim) {
        return;
    }
    char b = 'B';
    if (e->me == 0) {
        for (int i = 1; i < e->nranks; i++) {
            char c = ct_read_byte(e, e->fd[i]);
            if (c != 'B') {
                ct_break(e, c == 'T' ? "barrier timed out" : "a child failed before a barrier");
            }
        }
        for (int i = 1; i < e->nranks; i++) {
            if (send(e->fd[i], &b, 1, MSG_NOSIGNAL) != 1) {
                ct_break(e, "barrier: child gone");
            }
        }
    } else {
        if (send(e->fd[0], &b, 1, MSG_NOSIGNAL) != 1) {
            ct_break(e, "barrier: parent gone");
        }
        char c = ct_read_byte(e, e->fd[0]);
        if (c != 'B') {
            ct_break(e, c == 'T' ? "barrier timed out" : "another process failed");
        }
    }
}

/* Barrier outside a test (no cmocka failure): best effort. */
static void ct_barrier_quiet(ct_env_t *e)
{
    char b = 'B';
    if (e->me == 0) {
        int ok = 1;
        for (int i = 1; i < e->nranks; i++) {
            ok &= ct_read_byte(e, e->fd[i]) == 'B';
        }
        for (int i = 1; i < e->nranks && ok; i++) {
            (void)!send(e->fd[i], &b, 1, MSG_NOSIGNAL);
        }
    } else if (send(e->fd[0], &b, 1, MSG_NOSIGNAL) == 1) {
        (void)ct_read_byte(e, e->fd[0]);
    }
}

/* ---- operations --------------------------------------------------------- */

void ct_send(ct_env_t *e, int src, int dst, const void *buf, size_t len, uint64_t tag, ct_op_t *op)
{
    memset(op, 0, sizeof(*op));
    if (!CT_LOCAL(e, src)) {
        return;
    }
    op->tl = e->tl[src];
    lincoll_status_t st = e->ops->send_nb(op->tl, dst, buf, len, tag, &op->req);
    assert_int_equal(st, LINCOLL_OK);
    if (!op->req) {
        op->done = 1;
        op->st = LINCOLL_OK;
        op->len = len;
    }
}

void ct_recv(ct_env_t *e, int dst, int src, void *buf, size_t len, uint64_t tag, ct_op_t *op)
{
    memset(op, 0, sizeof(*op));
    if (!CT_LOCAL(e, dst)) {
        return;
    }
    op->tl = e->tl[dst];
    op->req = NULL;
    lincoll_status_t st = e->ops->recv_nb(op->tl, src, buf, len, tag, &op->req);
    if (st != LINCOLL_OK) {
        /* failing at once is allowed, but then without a request */
        if (op->req) {
            fail_msg("rank %d: recv_nb failed at once (%d) but still handed out a request", dst,
                     st);
        }
        op->done = 1;
        op->st = st;
        return;
    }
    if (!op->req) {
        /* completed at once without a request: the length is unknown */
        op->done = 1;
        op->st = LINCOLL_OK;
        op->len = len;
    }
}

static int ct_poll_ops(ct_env_t *e, ct_op_t *ops, size_t n)
{
    int pending = 0;
    for (size_t i = 0; i < n; i++) {
        ct_op_t *o = &ops[i];
        if (!o->tl || o->done) {
            continue;
        }
        /* even slots through test_release (the executor's fast path), odd
         * ones through test then release: both contracts are exercised */
        int combined = (i & 1) == 0;
        lincoll_status_t st = combined ? e->ops->test_release(o->tl, o->req, &o->len)
                                       : e->ops->test(o->tl, o->req, &o->len);
        if (st == LINCOLL_INPROGRESS) {
            pending++;
            continue;
        }
        o->st = st;
        o->done = 1;
        if (!combined) {
            e->ops->release(o->tl, o->req);
        }
        o->req = NULL;
    }
    return pending;
}

void ct_wait(ct_env_t *e, ct_op_t *ops, size_t n)
{
    double t0 = ct_now();
    for (long sweep = 0;; sweep++) {
        if (!ct_poll_ops(e, ops, n)) {
            return;
        }
        ct_progress(e, 1);
        if (e->sim) {
            if (sweep > CT_SIM_MAXSWEEP) {
                break;
            }
        } else {
            if ((sweep & 63) == 0) {
                ct_watch(e);
            }
            if ((sweep & 1023) == 0 && ct_now() - t0 > CT_DEADLINE_S) {
                break;
            }
        }
    }
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        left += ops[i].tl && !ops[i].done;
    }
    for (size_t i = 0; i < n; i++) {
        if (ops[i].tl && !ops[i].done) {
            /* hand back what never completed: a receive is canceled */
            e->ops->release(ops[i].tl, ops[i].req);
            ops[i].tl = NULL;
        }
    }
    char why[128];
    snprintf(why, sizeof(why), "%zu of %zu operations never completed", left, n);
    ct_break(e, why);
}

void ct_wait_u64(ct_env_t *e, volatile uint64_t *p, uint64_t v)
{
    double t0 = ct_now();
    for (long sweep = 0; *p < v; sweep++) {
        ct_progress(e, 1);
        if (e->sim ? sweep > CT_SIM_MAXSWEEP
                   : ((sweep & 1023) == 0 && ct_now() - t0 > CT_DEADLINE_S)) {
            char why[128];
            snprintf(why, sizeof(why), "signal counter stuck at %llu, expected %llu",
                     (unsigned long long)*p, (unsigned long long)v);
            ct_break(e, why);
        }
        if (!e->sim && (sweep & 63) == 0) {
            ct_watch(e);
        }
    }
}

/* ---- windows ------------------------------------------------------------ */

#define CT_KEYMSG_MAX 4096

void ct_win_create(ct_env_t *e, ct_win_t *w, int owner, int user, size_t len, int allocated)
{
    const lc_tl_ops_t *o = e->ops;
    unsigned char msg[CT_KEYMSG_MAX];
    ct_op_t op;
    memset(w, 0, sizeof(*w));
    w->owner = owner;
    w->user = user;
    w->len = len;
    w->allocated = allocated;
    uint64_t tag = lc_tag_make(2, e->seq, (unsigned)owner, 0); /* comm 2: window setup */
    if (CT_LOCAL(e, owner)) {
        lc_tl_t *tl = e->tl[owner];
        if (allocated) {
            void *p = NULL;
            assert_int_equal(o->mem_alloc(tl, len, &w->mem, &p), LINCOLL_OK);
            w->base = p;
        } else {
            w->base = malloc(len);
            assert_non_null(w->base);
            assert_int_equal(o->mem_reg(tl, w->base, len, &w->mem), LINCOLL_OK);
        }
        memset(w->base, 0, len);
        void *key = NULL;
        size_t klen = 0;
        assert_int_equal(o->rkey_pack(tl, w->mem, &key, &klen), LINCOLL_OK);
        assert_true(klen > 0 && klen + 8 <= sizeof(msg));
        uint64_t base = (uint64_t)(uintptr_t)w->base;
        memcpy(msg, &base, 8);
        memcpy(msg + 8, key, klen);
        free(key);
        ct_send(e, owner, user, msg, klen + 8, tag, &op);
        ct_wait(e, &op, 1);
        assert_int_equal(op.st, LINCOLL_OK);
    }
    if (CT_LOCAL(e, user)) {
        unsigned char in[CT_KEYMSG_MAX];
        ct_recv(e, user, owner, in, sizeof(in), tag, &op);
        ct_wait(e, &op, 1);
        assert_int_equal(op.st, LINCOLL_OK);
        assert_true(op.len > 8);
        memcpy(&w->raddr, in, 8);
        assert_int_equal(o->rkey_unpack(e->tl[user], owner, in + 8, op.len - 8, &w->rkey),
                         LINCOLL_OK);
        assert_non_null(w->rkey);
    }
}

void ct_win_destroy(ct_env_t *e, ct_win_t *w)
{
    if (CT_LOCAL(e, w->user) && w->rkey) {
        e->ops->rkey_destroy(e->tl[w->user], w->rkey);
        w->rkey = NULL;
    }
    ct_barrier(e); /* the user is done before the owner deregisters */
    if (CT_LOCAL(e, w->owner) && w->mem) {
        e->ops->mem_dereg(e->tl[w->owner], w->mem);
        if (!w->allocated) {
            free(w->base);
        }
        w->mem = NULL;
    }
}

/* ---- per-test setup / teardown ----------------------------------------- */

int ct_setup(void **state)
{
    ct_env_t *e = *state;
    e->seq++;
    e->body_done = 0;
    if (e->broken) {
        print_error("rank %d: an earlier failure broke the multi-process run\n", e->me);
        return -1;
    }
    return 0;
}

int ct_teardown(void **state)
{
    ct_env_t *e = *state;
    if (!e->body_done) {
        if (!e->broken) {
            e->broken = 1;
            ct_send_fail(e);
        }
        return 0; /* the body's failure is already reported */
    }
    if (e->sim || e->broken) {
        return e->broken ? -1 : 0;
    }
    /* barrier, but a failure elsewhere makes this test fail here too */
    char b = 'B';
    int bad = 0;
    if (e->me == 0) {
        for (int i = 1; i < e->nranks; i++) {
            bad |= ct_read_byte(e, e->fd[i]) != 'B';
        }
        for (int i = 1; i < e->nranks; i++) {
            char c = bad ? 'F' : 'B';
            (void)!send(e->fd[i], &c, 1, MSG_NOSIGNAL);
        }
    } else {
        bad |= send(e->fd[0], &b, 1, MSG_NOSIGNAL) != 1;
        bad |= ct_read_byte(e, e->fd[0]) != 'B';
    }
    if (bad) {
        e->broken = 1;
        ct_send_fail(e);
        print_error("rank %d: another process failed this test\n", e->me);
        return -1;
    }
    return 0;
}

/* ---- environments -------------------------------------------------------- */

static void ct_connect_all(ct_env_t *e, const void **addrs, size_t *lens)
{
    for (int r = 0; r < e->nranks; r++) {
        if (e->tl[r]) {
            lincoll_status_t st = e->ops->connect(e->tl[r], addrs, lens);
            if (st != LINCOLL_OK) {
                fprintf(stderr, "ct: rank %d: connect failed: %d\n", r, st);
                exit(2);
            }
        }
    }
}

int ct_env_sim(ct_env_t *e, int nranks)
{
    memset(e, 0, sizeof(*e));
    e->ops = &lc_tl_sim_ops;
    e->nranks = nranks;
    e->sim = 1;
    e->me = -1;
    if (lc_sim_world_create(nranks, &e->world) != LINCOLL_OK) {
        return -1;
    }
    const void *addrs[CT_NRANKS];
    size_t lens[CT_NRANKS];
    for (int r = 0; r < nranks; r++) {
        lc_tl_sim_params_t sp = {.world = e->world};
        lc_tl_params_t p = {.rank = r, .size = nranks, .ext = &sp};
        if (e->ops->init(&p, &e->tl[r]) != LINCOLL_OK ||
            e->ops->address(e->tl[r], &addrs[r], &lens[r]) != LINCOLL_OK) {
            return -1;
        }
    }
    ct_connect_all(e, addrs, lens);
    return 0;
}

void ct_env_sim_fini(ct_env_t *e)
{
    for (int r = 0; r < e->nranks; r++) {
        if (e->tl[r]) {
            e->ops->fini(e->tl[r]);
            e->tl[r] = NULL;
        }
    }
    lc_sim_world_destroy(e->world);
    e->world = NULL;
}

static int ct_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int ct_read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int ct_send_blob(int fd, const void *buf, size_t len)
{
    uint64_t l = len;
    return ct_write_all(fd, &l, 8) || ct_write_all(fd, buf, len) ? -1 : 0;
}

static void *ct_recv_blob(int fd, size_t *len_p)
{
    uint64_t l;
    if (ct_read_all(fd, &l, 8) || l > (1u << 24)) {
        return NULL;
    }
    void *p = malloc(l ? l : 1);
    if (!p || ct_read_all(fd, p, l)) {
        free(p);
        return NULL;
    }
    *len_p = l;
    return p;
}

int ct_env_multiproc(ct_env_t *e, const lc_tl_ops_t *ops, int nranks)
{
    memset(e, 0, sizeof(*e));
    e->ops = ops;
    e->nranks = nranks;
    for (int i = 0; i < CT_NRANKS; i++) {
        e->fd[i] = -1;
    }
    int sp[CT_NRANKS][2];
    for (int i = 1; i < nranks; i++) {
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp[i]) != 0) {
            perror("socketpair");
            return -1;
        }
    }
    pid_t parent = getpid();
    e->me = 0;
    for (int i = 1; i < nranks; i++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return -1;
        }
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent) {
                _exit(3);
            }
            e->me = i;
            for (int j = 1; j < nranks; j++) {
                close(sp[j][0]);
                if (j != i) {
                    close(sp[j][1]);
                }
            }
            e->fd[0] = sp[i][1];
            break;
        }
        e->pid[i] = pid;
    }
    if (e->me == 0) {
        for (int i = 1; i < nranks; i++) {
            close(sp[i][1]);
            e->fd[i] = sp[i][0];
        }
    }

    const char *ep = getenv("CT_ERR_MODE_PEER");
    lc_tl_ucx_params_t up = {0};
    lc_tl_params_t p = {.rank = e->me, .size = nranks, .ext = &up};
    /* the UCX settings lincoll applies (config table), as lincoll_init does */
    lc_config_t cfg;
    if (lc_config_load(&cfg) != LINCOLL_OK) return -1;
    cfg.ucx.err_mode = ep && *ep == '1' ? LC_TL_UCX_ERR_PEER : LC_TL_UCX_ERR_NONE;
    lc_tl_ucx_params_set(&up, &cfg.ucx);
    lincoll_status_t st = ops->init(&p, &e->tl[e->me]);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "ct: rank %d: %s init failed: %d\n", e->me, ops->name, st);
        return -1;
    }
    const void *mine;
    size_t mylen;
    if (ops->address(e->tl[e->me], &mine, &mylen) != LINCOLL_OK) {
        fprintf(stderr, "ct: rank %d: address failed\n", e->me);
        return -1;
    }
    /* allgather of the address blobs through the hub */
    void *blobs[CT_NRANKS] = {0};
    size_t lens[CT_NRANKS] = {0};
    if (e->me == 0) {
        blobs[0] = malloc(mylen);
        memcpy(blobs[0], mine, mylen);
        lens[0] = mylen;
        for (int i = 1; i < nranks; i++) {
            blobs[i] = ct_recv_blob(e->fd[i], &lens[i]);
            if (!blobs[i]) {
                fprintf(stderr, "ct: no address from rank %d\n", i);
                return -1;
            }
        }
        for (int i = 1; i < nranks; i++) {
            for (int j = 0; j < nranks; j++) {
                if (ct_send_blob(e->fd[i], blobs[j], lens[j])) {
                    return -1;
                }
            }
        }
    } else {
        if (ct_send_blob(e->fd[0], mine, mylen)) {
            return -1;
        }
        for (int j = 0; j < nranks; j++) {
            blobs[j] = ct_recv_blob(e->fd[0], &lens[j]);
            if (!blobs[j]) {
                fprintf(stderr, "ct: rank %d: no address %d from the hub\n", e->me, j);
                return -1;
            }
        }
    }
    ct_connect_all(e, (const void **)blobs, lens);
    for (int j = 0; j < nranks; j++) {
        free(blobs[j]);
    }
    return 0;
}

int ct_env_multiproc_fini(ct_env_t *e, int failed)
{
    if (e->tl[e->me]) {
        if (!e->broken && !failed) {
            ct_barrier_quiet(e); /* nobody tears down while others still talk */
        }
        e->ops->fini(e->tl[e->me]);
        e->tl[e->me] = NULL;
    }
    if (e->me != 0) {
        close(e->fd[0]);
        return failed ? 1 : 0;
    }
    for (int i = 1; i < e->nranks; i++) {
        close(e->fd[i]); /* a child still waiting sees EOF and fails */
    }
    int bad = failed ? 1 : 0;
    for (int i = 1; i < e->nranks; i++) {
        int status = 0;
        pid_t r = 0;
        double t0 = ct_now();
        while ((r = waitpid(e->pid[i], &status, WNOHANG)) == 0 && ct_now() - t0 < 30.0) {
            usleep(10000);
        }
        if (r == 0) {
            fprintf(stderr, "ct: child rank %d did not exit; killing it\n", i);
            kill(e->pid[i], SIGKILL);
            waitpid(e->pid[i], &status, 0);
            bad = 1;
        } else if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "ct: child rank %d failed (status 0x%x)\n", i, status);
            bad = 1;
        }
    }
    return bad;
}
