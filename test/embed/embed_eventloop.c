/*
 * test/embed/embed_eventloop.c: a daemon-style event loop drives an encode
 * through lincoll_context_fd/arm, lincoll_start and lincoll_test, and sleeps
 * in epoll_wait while there is nothing to do.
 *
 *   lincoll-run -n N embed_eventloop [daemon-rank]
 *
 * All ranks compile one systematic RS [N, N-2] encode (1 MiB packets) and
 * run it once together, which wires up every endpoint it uses.  For the
 * second run the daemon rank (default 0) starts it at once and enters its
 * loop: test,
 * arm (BUSY: test again), epoll_wait with a 10 s timeout.  Its peers wait
 * 3 s before they start theirs.  Checks, on the daemon:
 *   - over the first 2.5 s (plan posted, peers silent) the process used
 *     less than 0.25 s of CPU (getrusage, every thread: a polling loop would
 *     burn the whole 2.5 s), and woke up only a few times;
 *   - the encode completed less than 2 s after the last peer started: the
 *     descriptor woke the loop (a lost wakeup would wait out the 10 s
 *     epoll timeout);
 *   - a second idle period of 2 s with no plan running costs < 0.2 s CPU.
 * Every parity rank checks its packet against lincoll_gf_encode() of the
 * data, which every rank can regenerate.  Exit 0 when all checks passed.
 */
#include <lincoll/encode.h>
#include <lincoll/lincoll.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define PACKET (1u << 20)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

static void fill(uint8_t *b, int j)
{
    uint32_t x = 0x9e3779b9u * (uint32_t)(j + 1);
    for (size_t i = 0; i < PACKET; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        b[i] = (uint8_t)x;
    }
}

static int fails;
#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "embed_eventloop: FAIL: " __VA_ARGS__);                                \
            fprintf(stderr, "\n");                                                                 \
            fails++;                                                                               \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    lincoll_context_t *ctx;
    lincoll_comm_t *w;
    lincoll_status_t st = lincoll_init(NULL, &ctx);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "embed_eventloop: lincoll_init: %s\n", lincoll_strerror(st));
        return 1;
    }
    lincoll_comm_world(ctx, &w);
    int me = lincoll_comm_rank(w), N = lincoll_comm_size(w), k = N - 2;
    int daemon = argc > 1 ? atoi(argv[1]) : 0;
    if (k < 1 || daemon < 0 || daemon >= N) {
        fprintf(stderr, "embed_eventloop: needs N >= 3 ranks and a daemon rank < N\n");
        lincoll_finalize(ctx);
        return 2;
    }
    lincoll_field_t *gf;
    lincoll_gf_field_create(256, &gf);
    uint8_t *data = malloc(PACKET), *par = malloc(PACKET);
    if (me < k) fill(data, me);
    lincoll_plan_t *plan;
    st = lincoll_encode_rs_init(w, gf, k, LINCOLL_GF_RS_CAUCHY, NULL, PACKET, data, par, NULL,
                                &plan);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "embed_eventloop: rank %d: lincoll_encode_rs_init: %s\n", me,
                lincoll_strerror(st));
        return 1;
    }
    /* One run of the plan by every rank first: it connects every pair the
     * plan uses, so the measured run below starts with its endpoints wired
     * up (a daemon reuses its persistent plans the same way). */
    st = lincoll_start(plan);
    if (st == LINCOLL_OK) st = lincoll_wait(plan);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "embed_eventloop: rank %d: first run: %s\n", me, lincoll_strerror(st));
        return 1;
    }
    lincoll_barrier(w);
    double t_start = now(), t_done = 0;
    if (me == daemon) {
        int fd, ep = epoll_create1(0);
        CHECK(lincoll_context_fd(ctx, &fd) == LINCOLL_OK, "no event descriptor");
        struct epoll_event ev = {.events = EPOLLIN}, out;
        CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0, "epoll_ctl");
        double cpu0 = cpu_seconds(), cpu_idle = -1;
        long wakeups = 0, busy = 0, events = 0, wakeups_idle = -1;
        CHECK(lincoll_start(plan) == LINCOLL_OK, "start");
        for (;;) {
            st = lincoll_test(plan);
            if (cpu_idle < 0 && now() - t_start >= 2.5) {
                cpu_idle = cpu_seconds() - cpu0;
                wakeups_idle = wakeups;
            }
            if (st != LINCOLL_INPROGRESS) break;
            lincoll_status_t a = lincoll_context_arm(ctx);
            if (a == LINCOLL_ERR_BUSY) {
                busy++;
                continue;
            }
            CHECK(a == LINCOLL_OK, "arm: %s", lincoll_strerror(a));
            if (a != LINCOLL_OK) break;
            /* sleep; wake up at 2.5 s once to take the idle measurement */
            int ms = cpu_idle < 0 ? (int)((2.5 - (now() - t_start)) * 1000) + 1 : 10000;
            int n = epoll_wait(ep, &out, 1, ms);
            wakeups++;
            events += n > 0;
        }
        t_done = now();
        CHECK(st == LINCOLL_OK, "daemon's encode: %s", lincoll_strerror(st));
        CHECK(cpu_idle >= 0 && cpu_idle < 0.25,
              "the daemon used %.3f s of CPU over the 2.5 s its peers were silent", cpu_idle);
        CHECK(wakeups_idle >= 0 && wakeups_idle < 50, "%ld wakeups while the peers were silent",
              wakeups_idle);
        printf("embed_eventloop: daemon rank %d: %.3f s CPU in 2.5 s idle with the plan posted "
               "(%ld wakeups); encode done %.2f s after start, %ld wakeups (%ld by events, %ld "
               "busy arms)\n",
               me, cpu_idle, wakeups_idle, t_done - t_start, wakeups, events, busy);
        /* idle with no plan at all */
        lincoll_barrier(w);
        double c0 = cpu_seconds(), w0 = now();
        while (now() - w0 < 2.0) {
            lincoll_progress(ctx);
            if (lincoll_context_arm(ctx) == LINCOLL_ERR_BUSY) continue;
            epoll_wait(ep, &out, 1, (int)((2.0 - (now() - w0)) * 1000) + 1);
        }
        double c_idle2 = cpu_seconds() - c0;
        CHECK(c_idle2 < 0.2, "the daemon used %.3f s of CPU over 2 s with no plan", c_idle2);
        printf("embed_eventloop: daemon rank %d: %.3f s CPU in 2 s idle without a plan\n", me,
               c_idle2);
        close(ep);
    } else {
        sleep(3);
        t_start = now();
        st = lincoll_start(plan);
        if (st == LINCOLL_OK) st = lincoll_wait(plan);
        t_done = now();
        CHECK(st == LINCOLL_OK, "rank %d: encode: %s", me, lincoll_strerror(st));
        lincoll_barrier(w);
    }
    /* when did the peers start, when did the daemon finish */
    double mine[2] = {t_start, t_done}, *all = malloc(sizeof(double) * 2 * (size_t)N);
    lincoll_allgather(w, mine, all, 2, LINCOLL_DOUBLE);
    if (me == daemon) {
        double last = 0;
        for (int r = 0; r < N; r++)
            if (r != daemon && all[2 * r] > last) last = all[2 * r];
        CHECK(t_done - last < 2.0,
              "the daemon completed %.2f s after its last peer started (a lost wakeup?)",
              t_done - last);
    }
    if (me >= k) {
        const void *src[64];
        uint8_t *d = malloc((size_t)k * PACKET), *want = malloc(PACKET);
        for (int j = 0; j < k; j++) {
            fill(d + (size_t)j * PACKET, j);
            src[j] = d + (size_t)j * PACKET;
        }
        uint64_t *G = malloc(sizeof(uint64_t) * (size_t)N * (size_t)k);
        lincoll_gf_matrix_systematic(gf, N, k, LINCOLL_GF_RS_CAUCHY, G);
        void *dst[1] = {want};
        lincoll_gf_encode(gf, k, 1, G + (size_t)me * (size_t)k, PACKET, src, dst);
        CHECK(memcmp(want, par, PACKET) == 0, "rank %d: parity differs from lincoll_gf_encode", me);
        free(d);
        free(want);
        free(G);
    }
    free(all);
    lincoll_plan_free(plan);
    lincoll_gf_field_destroy(gf);
    free(data);
    free(par);
    st = lincoll_finalize(ctx);
    CHECK(st == LINCOLL_OK, "finalize: %s", lincoll_strerror(st));
    if (fails == 0) printf("embed_eventloop: rank %d: every check passed\n", me);
    return fails ? 1 : 0;
}
