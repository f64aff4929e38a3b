/*
 * test/soak/soak.c: back-to-back operations in one process over UCX, run
 * under `lincoll-run -n P`.  Phases (every rank):
 *   small: SOAK_SMALL (default 100000) operations of 64 bytes, alternating
 *          a blocking allreduce (a plan compiled and freed every call) and a
 *          start of persistent all-to-all and ring-shift plans;
 *   large: SOAK_LARGE (default 1000) operations of 1 MiB, alternating a
 *          blocking allreduce and a blocking allgather on user memory, and
 *          every 10th a window created, put into and freed on
 *          lincoll_mem_alloc memory.
 * Every result is checked.  It samples RSS (/proc/self/statm), registered
 * bytes (the transport's mem_registered counter) and open file descriptors
 * after a warm-up of each phase and at its end, and requires registered
 * bytes and fds equal to the first sample and each phase's RSS growth below
 * SOAK_RSS_SLACK_KB (default 4096).
 */
#include <lincoll/coll.h>
#include <lincoll/lincoll.h>
#include <lincoll/rma.h>

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/context/context.h"

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, res = 0;
    if (f != NULL) {
        if (fscanf(f, "%ld %ld", &size, &res) != 2) res = 0;
        fclose(f);
    }
    return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static int nfds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    if (d == NULL) return -1;
    while (readdir(d) != NULL)
        n++;
    closedir(d);
    return n - 3; /* ".", "..", and the DIR's own fd */
}

static uint64_t registered(lincoll_context_t *ctx)
{
    lc_tl_counters_t c;
    memset(&c, 0, sizeof(c));
    ctx->tl_ops->counters(ctx->tl, &c);
    return c.mem_registered;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "soak: rank %d: ", me);                                                \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef struct sample {
    long rss;
    uint64_t reg;
    int fds;
} sample_t;

static sample_t take(lincoll_context_t *ctx)
{
    sample_t s = {rss_kb(), registered(ctx), nfds()};
    return s;
}

int main(void)
{
    long nsmall = getenv("SOAK_SMALL") ? atol(getenv("SOAK_SMALL")) : 100000;
    long nlarge = getenv("SOAK_LARGE") ? atol(getenv("SOAK_LARGE")) : 1000;
    long slack = getenv("SOAK_RSS_SLACK_KB") ? atol(getenv("SOAK_RSS_SLACK_KB")) : 4096;
#if defined(__SANITIZE_ADDRESS__)
    /* ASan keeps freed memory in its quarantine (256 MiB by default): RSS is
     * not a leak measure there (LeakSanitizer is).  Registered bytes and fds
     * are still checked. */
    slack = 1L << 30;
    printf("SOAK: AddressSanitizer build: RSS bound relaxed to 1 GiB (quarantine)\n");
#endif
    lincoll_context_t *ctx;
    lincoll_comm_t *world;
    int me = -1;
    CHECK(lincoll_init(NULL, &ctx) == LINCOLL_OK, "lincoll_init failed");
    lincoll_comm_world(ctx, &world);
    me = lincoll_comm_rank(world);
    int P = lincoll_comm_size(world);

    /* small: 8 int64 */
    int64_t s_in[8], s_out[8];
    char *a_in = malloc((size_t)P * 64), *a_out = malloc((size_t)P * 64);
    char r_in[64], r_out[64];
    lincoll_plan_t *a2a, *ring;
    CHECK(lincoll_alltoall_init(world, a_in, a_out, 64, 0, &a2a) == LINCOLL_OK, "alltoall_init");
    CHECK(lincoll_ring_shift_init(world, r_in, r_out, 64, 1, &ring) == LINCOLL_OK, "ring_init");
    /* large: 1 MiB */
    const size_t LN = (1u << 20) / sizeof(int64_t);
    int64_t *l_in = malloc(LN * sizeof(int64_t)), *l_out = malloc(LN * sizeof(int64_t) * (size_t)P);
    CHECK(a_in && a_out && l_in && l_out, "out of memory");

    sample_t warm = {0}, mid = {0}, lwarm = {0}, end;
    double t0 = now(), t_small = 0;
    long total = nsmall + nlarge, warmup = 1000;
    for (long it = 0; it < total; it++) {
        if (it == warmup) warm = take(ctx);
        if (it == nsmall) mid = take(ctx);
        if (it == nsmall + 20) lwarm = take(ctx); /* large buffers touched, windows done once */
        int large = it >= nsmall;
        if (!large) {
            int kind = (int)(it % 4);
            if (kind < 2) {
                for (int i = 0; i < 8; i++)
                    s_in[i] = me + i + it;
                CHECK(lincoll_allreduce(world, s_in, s_out, 8, LINCOLL_INT64, LINCOLL_SUM) ==
                          LINCOLL_OK,
                      "small allreduce %ld", it);
                for (int i = 0; i < 8; i++)
                    CHECK(s_out[i] == (int64_t)P * (i + it) + (int64_t)P * (P - 1) / 2,
                          "small allreduce %ld: wrong result", it);
            } else if (kind == 2) {
                for (int j = 0; j < P; j++)
                    memset(a_in + j * 64, (me * 31 + j + (int)it) & 0xff, 64);
                CHECK(lincoll_start(a2a) == LINCOLL_OK && lincoll_wait(a2a) == LINCOLL_OK,
                      "alltoall %ld", it);
                for (int j = 0; j < P; j++)
                    CHECK((unsigned char)a_out[j * 64 + 63] == ((j * 31 + me + (int)it) & 0xff),
                          "alltoall %ld: wrong result", it);
            } else {
                memset(r_in, (me + (int)it) & 0xff, 64);
                CHECK(lincoll_start(ring) == LINCOLL_OK && lincoll_wait(ring) == LINCOLL_OK,
                      "ring %ld", it);
                CHECK((unsigned char)r_out[0] == (((me + P - 1) % P + (int)it) & 0xff),
                      "ring %ld: wrong result", it);
            }
            if (it == nsmall - 1) t_small = now() - t0;
        } else {
            long k = it - nsmall;
            if (k % 2 == 0) {
                for (size_t i = 0; i < LN; i += 4096)
                    l_in[i] = me + (int64_t)k;
                l_in[LN - 1] = me + (int64_t)k;
                CHECK(lincoll_allreduce(world, l_in, l_out, LN, LINCOLL_INT64, LINCOLL_SUM) ==
                          LINCOLL_OK,
                      "large allreduce %ld", k);
                CHECK(l_out[LN - 1] == (int64_t)P * k + (int64_t)P * (P - 1) / 2,
                      "large allreduce %ld: wrong result", k);
            } else {
                l_in[0] = me * 1000 + k;
                CHECK(lincoll_allgather(world, l_in, l_out, LN, LINCOLL_INT64) == LINCOLL_OK,
                      "large allgather %ld", k);
                for (int j = 0; j < P; j++)
                    CHECK(l_out[(size_t)j * LN] == j * 1000 + k, "large allgather %ld: wrong", k);
            }
            if (k % 10 == 0) {
                void *mem;
                lincoll_win_t *win;
                CHECK(lincoll_mem_alloc(ctx, 1 << 20, &mem) == LINCOLL_OK, "mem_alloc");
                CHECK(lincoll_win_create(world, mem, 1 << 20, &win) == LINCOLL_OK, "win_create");
                /* the counter sees the window (so "flat" below means released) */
                CHECK(registered(ctx) >= (1u << 20), "mem_registered %llu with a 1 MiB window",
                      (unsigned long long)registered(ctx));
                uint64_t v = (uint64_t)k;
                CHECK(lincoll_put(win, (me + 1) % P, &v, sizeof(v), 8 * (size_t)me,
                                  LINCOLL_PUT_SIGNAL) == LINCOLL_OK,
                      "put");
                CHECK(lincoll_win_flush(win) == LINCOLL_OK, "flush");
                CHECK(lincoll_win_wait_signal(win, (me + P - 1) % P, 1) == LINCOLL_OK, "signal");
                CHECK(((uint64_t *)mem)[(me + P - 1) % P] == (uint64_t)k, "put: wrong value");
                CHECK(lincoll_barrier(world) == LINCOLL_OK, "barrier");
                lincoll_win_free(win);
                CHECK(lincoll_mem_free(ctx, mem) == LINCOLL_OK, "mem_free");
            }
        }
    }
    CHECK(lincoll_barrier(world) == LINCOLL_OK, "final barrier");
    end = take(ctx);
    double t = now() - t0;
    printf("SOAK rank %d: %ld small ops in %.2f s: RSS %ld -> %ld kB (%+ld), registered %llu -> "
           "%llu bytes, fds %d -> %d\n",
           me, nsmall, t_small, warm.rss, mid.rss, mid.rss - warm.rss, (unsigned long long)warm.reg,
           (unsigned long long)mid.reg, warm.fds, mid.fds);
    printf("SOAK rank %d: %ld large ops in %.2f s: RSS %ld -> %ld kB (%+ld), registered %llu -> "
           "%llu bytes, fds %d -> %d\n",
           me, nlarge, t - t_small, lwarm.rss, end.rss, end.rss - lwarm.rss,
           (unsigned long long)lwarm.reg, (unsigned long long)end.reg, lwarm.fds, end.fds);
    int ok = mid.rss - warm.rss < slack && end.rss - lwarm.rss < slack && mid.reg == warm.reg &&
             end.reg == warm.reg && mid.fds == warm.fds && end.fds == warm.fds;
    lincoll_plan_free(a2a);
    lincoll_plan_free(ring);
    free(a_in);
    free(a_out);
    free(l_in);
    free(l_out);
    CHECK(lincoll_finalize(ctx) == LINCOLL_OK, "finalize");
    printf("SOAK rank %d: %s\n", me, ok ? "flat" : "GROWTH");
    return ok ? 0 : 1;
}
