/*
 * lincoll_perf: benchmarks in the style of ucx_perftest, bootstrapped by
 * lincoll itself, so it runs under lincoll-run, mpirun and srun alike.
 *
 *   lincoll-run -n 2 lincoll_perf -t tag_lat -s 8
 *   lincoll-run -n 2 lincoll_perf -t tag_bw -s 4194304 -f csv
 *   lincoll-run -n 2 lincoll_perf -t put_bw -s 4m
 *   lincoll-run -n 4 lincoll_perf -t tag_bw -s 4m   (pairs 0-1 and 2-3 at once)
 *   lincoll-run -n 4 lincoll_perf -t alltoall -s 1k:1m -p 2
 *   lincoll_perf -t gf|gemm|reduce ...        (single-process kernel benchmarks)
 *
 * Columns (as ucx_perftest): latency is per iteration (halved for the
 * ping-pong tag_lat), bandwidth in MB/s with MB = 2^20 bytes, message rate in
 * messages per second.  p50 is the median of per-iteration times.  Rank 0
 * prints one row per size as soon as it finishes.
 *
 * The point-to-point tests (tag_lat, tag_bw, put_bw) run on any even number
 * of ranks as disjoint pairs 0-1, 2-3, ... measuring at the same time (OSU's
 * osu_mbw_mr, but with neighbouring ranks paired); with an odd count the
 * last rank sits out (one line on stderr).  Each pair times its own
 * iterations; after the run rank 0 gathers every pair's figures
 * (lincoll_allgather) and prints a row per pair (column "pair", e.g. 0-1)
 * and, with two pairs or more, an aggregate row "all": bandwidth and message
 * rate summed over the pairs, p50 the largest pair p50 (the slowest pair),
 * average the mean of the pairs' averages.
 */
#include <lincoll/lincoll.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "perf_common.h"
#include "perf_local.h"

double lc_perf_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) return -1;
    switch (*end) {
    case 'k':
    case 'K':
        v <<= 10;
        end++;
        break;
    case 'm':
    case 'M':
        v <<= 20;
        end++;
        break;
    case 'g':
    case 'G':
        v <<= 30;
        end++;
        break;
    default:
        break;
    }
    if (*end != '\0') return -1;
    *out = (size_t)v;
    return 0;
}

static int parse_sizes(const char *arg, perf_opts_t *o)
{
    const char *colon = strchr(arg, ':');
    if (colon != NULL) {
        char lo[64];
        size_t n = (size_t)(colon - arg), a, b;
        if (n >= sizeof(lo)) return -1;
        memcpy(lo, arg, n);
        lo[n] = '\0';
        if (parse_size(lo, &a) || parse_size(colon + 1, &b) || a > b) return -1;
        o->nsizes = 0;
        for (size_t s = a; s <= b && o->nsizes < 64; s = s ? s * 2 : 1) {
            o->sizes[o->nsizes++] = s;
        }
        return 0;
    }
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s", arg);
    o->nsizes = 0;
    for (char *tok = strtok(buf, ","); tok && o->nsizes < 64; tok = strtok(NULL, ",")) {
        if (parse_size(tok, &o->sizes[o->nsizes++])) return -1;
    }
    return o->nsizes > 0 ? 0 : -1;
}

static void usage(void)
{
    printf("usage: lincoll_perf -t TEST [options]\n"
           "  collectives: allreduce reduce_scatter allgather bcast reduce (reduce_coll),\n"
           "  encode, matmul (2+ ranks or 1; -A ALGO, -d DTYPE, -K K)\n"
           "  -t TEST   tag_lat | tag_bw | put_bw | alltoall   (2+ ranks; under lincoll-run,\n"
           "            mpirun or srun)  |  gf | gemm | reduce (one process, kernels)\n"
           "            tag_lat/tag_bw/put_bw: pairs 0-1, 2-3, ... at once, a row per pair\n"
           "            and (2+ pairs) a row \"all\": summed MB/s and msg/s, largest p50,\n"
           "            mean average; an odd last rank sits out\n"
           "  -s SIZES  bytes: 8,64k,4m  or  MIN:MAX (doubling)           default 8\n"
           "  -n ITERS  measured iterations            default 1000 (100 above 1 MiB)\n"
           "  -w ITERS  warm-up iterations             default ITERS/10\n"
           "  -p PORTS  ports (alltoall)                default LINCOLL_PORTS\n"
           "  -W N      tag_bw/put_bw: messages in flight (ucx_perftest's window)  default 32\n"
           "  -m MEM    lincoll (lincoll_mem_alloc, default) | host (malloc)\n"
           "  -y US     waits poll and sleep US microseconds between polls instead of\n"
           "            spinning (many ranks per core: the CPU share then shows real work)\n"
           "  -b 0      encode: no direct baseline timed beside the algorithm\n"
           "  shift     (-t) every rank sends -s bytes to rank+1 and receives from rank-1\n"
           "            (one encode round: the alpha and beta of the links)\n"
           "  -f csv    CSV: test,ranks,ports,size,iters,lat_us_p50,lat_us_avg,bw_MBps,msg_rate\n"
           "            (+ pair for tag_lat/tag_bw/put_bw, + algo,predicted_us for collectives)\n"
           "  After every size of a test on 2+ ranks rank 0 prints the CPU share of the ranks\n"
           "  (getrusage user+system over wall time during the test) and of the machine\n"
           "  (/proc/stat, all processes): #cpu test= size= ranks= wall_s= share_mean=\n"
           "  share_max= share_min= sys_frac= machine_busy= cores=\n");
}

/* ---- one measurement loop over a plan -------------------------------------------- */

/* Per-iteration times from one time stamp per iteration boundary: the x86
 * time-stamp counter (constant rate on every CPU lincoll targets) scaled by
 * the wall time of the whole run, so timing costs a few nanoseconds. */
static inline uint64_t lc_perf_ticks(void)
{
#if defined(__x86_64__)
    unsigned lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
#else
    return (uint64_t)(lc_perf_now() * 1e9);
#endif
}

long lc_perf_idle_us = 0;

lincoll_status_t lc_perf_wait(lincoll_plan_t *plan)
{
    if (lc_perf_idle_us <= 0) return lincoll_wait(plan);
    struct timespec ts = {.tv_sec = lc_perf_idle_us / 1000000,
                          .tv_nsec = (lc_perf_idle_us % 1000000) * 1000};
    lincoll_status_t st;
    while ((st = lincoll_test(plan)) == LINCOLL_INPROGRESS)
        nanosleep(&ts, NULL);
    return st;
}

int lc_perf_run_plan(lincoll_plan_t *plan, long warmup, long iters, double *samples)
{
    uint64_t *stamps = malloc(sizeof(uint64_t) * (size_t)(iters + 1));
    if (stamps == NULL) return -1;
    double t0 = 0;
    for (long i = 0; i < warmup + iters; i++) {
        if (i == warmup) {
            t0 = lc_perf_now();
            stamps[0] = lc_perf_ticks();
        }
        lincoll_status_t st = lincoll_start(plan);
        /* the clock is read after the start has posted this iteration's
         * first message, off the path from the previous reply to this
         * send: samples are the intervals between consecutive starts */
        if (i > warmup) stamps[i - warmup] = lc_perf_ticks();
        if (st == LINCOLL_OK) st = lc_perf_wait(plan);
        if (st != LINCOLL_OK) {
            fprintf(stderr, "lincoll_perf: iteration %ld failed: %s\n", i, lincoll_strerror(st));
            free(stamps);
            return -1;
        }
    }
    stamps[iters] = lc_perf_ticks();
    double seconds = lc_perf_now() - t0;
    double per_tick = seconds / (double)(stamps[iters] - stamps[0] ? stamps[iters] - stamps[0] : 1);
    for (long i = 0; i < iters; i++) {
        samples[i] = (double)(stamps[i + 1] - stamps[i]) * per_tick;
    }
    free(stamps);
    return 0;
}

void lc_perf_summarize(double *samples, long iters, double divisor, size_t bytes_per_iter,
                       double msgs_per_iter, perf_result_t *r)
{
    double total = 0;
    for (long i = 0; i < iters; i++)
        total += samples[i];
    qsort(samples, (size_t)iters, sizeof(double), cmp_double);
    r->iters = iters;
    r->p50_us = 1e6 * samples[iters / 2] / divisor;
    r->p10_us = 1e6 * samples[iters / 10] / divisor;
    r->p90_us = 1e6 * samples[iters - 1 - iters / 10] / divisor;
    r->avg_us = 1e6 * total / (double)iters / divisor;
    r->bw_mbs = (double)bytes_per_iter * (double)iters / total / (1024.0 * 1024.0);
    r->msg_rate = msgs_per_iter * (double)iters / total;
}

/* The point-to-point tests report what ucx_perftest reports: its "typical"
 * latency is the median of a ring of the last 2048 iteration times
 * (TIMING_QUEUE_SIZE in libperf.c), so p50 here is the median of the last
 * min(iters, 2048) iterations; average, bandwidth and message rate cover
 * the whole measured run (ucx_perftest's "overall" columns). */
#define LC_PERF_TIMING_QUEUE 2048
static void p2p_summarize(double *samples, long iters, double divisor, size_t bytes_per_iter,
                          double msgs_per_iter, perf_result_t *r)
{
    long n = iters < LC_PERF_TIMING_QUEUE ? iters : LC_PERF_TIMING_QUEUE;
    double *last = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (last != NULL) memcpy(last, samples + (iters - n), sizeof(double) * (size_t)n);
    lc_perf_summarize(samples, iters, divisor, bytes_per_iter, msgs_per_iter, r);
    if (last != NULL && n > 0) {
        qsort(last, (size_t)n, sizeof(double), cmp_double);
        r->p50_us = 1e6 * last[n / 2] / divisor;
    }
    free(last);
}

int lc_perf_bufs_alloc(lc_perf_bufs_t *bf, lincoll_context_t *ctx, size_t bytes, int host)
{
    bf->ctx = ctx;
    bf->lincoll_mem = !host;
    bf->a = bf->b = NULL;
    size_t n = bytes ? bytes : 1;
    int ok;
    if (host) {
        bf->a = malloc(n);
        bf->b = malloc(n);
        ok = bf->a != NULL && bf->b != NULL;
    } else {
        ok = lincoll_mem_alloc(ctx, n, &bf->a) == LINCOLL_OK &&
             lincoll_mem_alloc(ctx, n, &bf->b) == LINCOLL_OK;
    }
    if (!ok) {
        fprintf(stderr, "lincoll_perf: cannot allocate 2 x %zu bytes\n", n);
        lc_perf_bufs_free(bf);
        return -1;
    }
    memset(bf->a, 1, n);
    memset(bf->b, 2, n);
    return 0;
}

void lc_perf_bufs_free(lc_perf_bufs_t *bf)
{
    if (bf->lincoll_mem) {
        if (bf->a != NULL) lincoll_mem_free(bf->ctx, bf->a);
        if (bf->b != NULL) lincoll_mem_free(bf->ctx, bf->b);
    } else {
        free(bf->a);
        free(bf->b);
    }
    bf->a = bf->b = NULL;
}

/* ---- tests --------------------------------------------------------------------------- */

/* The point-to-point tests pair rank 2i (the sender, which reports) with
 * rank 2i + 1; the last rank of an odd count has no partner (-1). */
static int p2p_peer(lincoll_comm_t *world)
{
    int peer = lincoll_comm_rank(world) ^ 1;
    return peer < lincoll_comm_size(world) ? peer : -1;
}

static int test_p2p(lincoll_context_t *ctx, lincoll_comm_t *world, const perf_opts_t *o,
                    size_t size, long warmup, long iters, perf_result_t *r)
{
    int me = lincoll_comm_rank(world), peer = p2p_peer(world), even = me % 2 == 0;
    int lat = strcmp(o->test, "tag_lat") == 0;
    lc_perf_bufs_t b;
    if (lc_perf_bufs_alloc(&b, ctx, size, o->host_mem) != 0) return -1;
    lincoll_plan_t *plan = NULL;
    lincoll_status_t st = LINCOLL_OK;
    if (peer < 0) {
        /* no partner: sits out */
    } else if (lat) {
        st = lincoll_sendrecv_init(world, b.a, size, peer, b.b, size, peer,
                                   even ? LINCOLL_SENDRECV_SEND_FIRST : LINCOLL_SENDRECV_RECV_FIRST,
                                   &plan);
    } else {
        st = lincoll_sendrecv_init(world, b.a, size, even ? peer : -1, b.b, size, even ? -1 : peer,
                                   LINCOLL_SENDRECV_CONCURRENT, &plan);
    }
    int rc = st == LINCOLL_OK ? 0 : -1;
    /* two pairs or more start together (a lone pair lines up in its warm-up) */
    if (lincoll_comm_size(world) >= 4 && lincoll_barrier(world) != LINCOLL_OK) rc = -1;
    double *samples = malloc(sizeof(double) * (size_t)iters);
    if (rc == 0 && plan != NULL && samples != NULL) {
        rc = lc_perf_run_plan(plan, warmup, iters, samples);
        if (rc == 0)
            p2p_summarize(samples, iters, lat ? 2.0 : 1.0, lat ? 2 * size : size, lat ? 2.0 : 1.0,
                          r);
    }
    free(samples);
    lincoll_plan_free(plan);
    if (lincoll_barrier(world) != LINCOLL_OK) rc = -1;
    lc_perf_bufs_free(&b);
    return rc;
}

/* tag_bw as ucx_perftest runs it: rank 0 streams `iters` messages to rank 1
 * (every pair 2i -> 2i + 1 at once) keeping up to W sends in flight, rank 1
 * up to W receives (W = 32, the window ucx_perftest's tag_bw uses; -W
 * changes it).  W persistent plans serve as a ring: iteration i waits for
 * plan i % W's previous start, then starts it again, so the window slides
 * instead of draining every W messages.  The time runs from the first start
 * to the last completion; per-message samples are the intervals between
 * starts. */
#define LC_PERF_BW_WINDOW 32
static int bw_window(const perf_opts_t *o)
{
    return o->window > 0 ? o->window : LC_PERF_BW_WINDOW;
}

static int tag_bw_loop(lincoll_plan_t **plans, int W, long n, double *stamps)
{
    for (long i = 0; i < n; i++) {
        lincoll_plan_t *pl = plans[i % W];
        lincoll_status_t st = i >= W ? lincoll_wait(pl) : LINCOLL_OK;
        if (st == LINCOLL_OK) st = lincoll_start(pl);
        if (st != LINCOLL_OK) {
            fprintf(stderr, "lincoll_perf: tag_bw message %ld: %s\n", i, lincoll_strerror(st));
            return -1;
        }
        if (stamps != NULL) stamps[i] = lc_perf_now();
    }
    for (long i = n > W ? n - W : 0; i < n; i++) {
        lincoll_status_t st = lincoll_wait(plans[i % W]);
        if (st != LINCOLL_OK) {
            fprintf(stderr, "lincoll_perf: tag_bw message %ld: %s\n", i, lincoll_strerror(st));
            return -1;
        }
    }
    if (stamps != NULL) stamps[n] = lc_perf_now();
    return 0;
}

static int test_tag_bw(lincoll_context_t *ctx, lincoll_comm_t *world, const perf_opts_t *o,
                       size_t size, long warmup, long iters, perf_result_t *r)
{
    int me = lincoll_comm_rank(world), peer = p2p_peer(world), even = me % 2 == 0;
    int W = bw_window(o);
    lc_perf_bufs_t b;
    if (lc_perf_bufs_alloc(&b, ctx, size, o->host_mem) != 0) return -1;
    lincoll_plan_t **plans = calloc((size_t)W, sizeof(*plans));
    double *stamps = malloc(sizeof(double) * (size_t)(iters + 1));
    int rc = plans != NULL && stamps != NULL ? 0 : -1;
    for (int w = 0; rc == 0 && peer >= 0 && w < W; w++) {
        if (lincoll_sendrecv_init(world, b.a, size, even ? peer : -1, b.b, size, even ? -1 : peer,
                                  LINCOLL_SENDRECV_CONCURRENT, &plans[w]) != LINCOLL_OK) {
            rc = -1;
        }
    }
    if (rc == 0 && peer >= 0) rc = tag_bw_loop(plans, W, warmup, NULL);
    if (rc == 0 && lincoll_barrier(world) != LINCOLL_OK) rc = -1;
    if (rc == 0 && peer >= 0) rc = tag_bw_loop(plans, W, iters, stamps);
    if (rc == 0 && peer >= 0 && even) {
        for (long i = 0; i < iters; i++)
            stamps[i] = stamps[i + 1] - stamps[i];
        p2p_summarize(stamps, iters, 1.0, size, 1.0, r);
    }
    for (int w = 0; plans != NULL && w < W; w++)
        lincoll_plan_free(plans[w]);
    free(plans);
    free(stamps);
    if (lincoll_barrier(world) != LINCOLL_OK) rc = -1;
    lc_perf_bufs_free(&b);
    return rc;
}

/* put_bw as ucx_perftest's ucp_put_bw: `iters` puts of `size` bytes into
 * rank 1's window (rank 2i + 1's from rank 2i; lincoll_mem_alloc memory:
 * true one-sided), at most W (32) outstanding: a flush after every W puts
 * and at the end.  The target only waits for the closing signal. */
static int test_put_bw(lincoll_context_t *ctx, lincoll_comm_t *world, const perf_opts_t *o,
                       size_t size, long warmup, long iters, perf_result_t *r)
{
    int me = lincoll_comm_rank(world), peer = p2p_peer(world);
    int origin = peer >= 0 && me % 2 == 0;
    lc_perf_bufs_t b;
    if (lc_perf_bufs_alloc(&b, ctx, size, o->host_mem) != 0) return -1;
    lincoll_win_t *win;
    int W = bw_window(o);
    lincoll_status_t st = lincoll_win_create(world, b.b, size ? size : 1, &win);
    if (st != LINCOLL_OK) {
        lc_perf_bufs_free(&b);
        return -1;
    }
    int rc = 0;
    double *stamps = malloc(sizeof(double) * (size_t)(iters + 1));
    if (origin && stamps != NULL) {
        for (long i = 0; i < warmup + iters && st == LINCOLL_OK; i++) {
            if (i == warmup) {
                st = lincoll_win_flush(win);
                stamps[0] = lc_perf_now();
            }
            if (st == LINCOLL_OK) st = lincoll_put(win, peer, b.a, size, 0, 0);
            if (st == LINCOLL_OK && (i + 1) % W == 0) st = lincoll_win_flush(win);
            if (i >= warmup) stamps[i - warmup + 1] = lc_perf_now();
        }
        if (st == LINCOLL_OK) st = lincoll_win_flush(win);
        if (iters > 0) stamps[iters] = lc_perf_now();
        if (st != LINCOLL_OK) rc = -1;
        /* tell the target we are done */
        if (rc == 0 && (lincoll_put(win, peer, b.a, 0, 0, LINCOLL_PUT_SIGNAL) != LINCOLL_OK ||
                        lincoll_win_flush(win) != LINCOLL_OK)) {
            rc = -1;
        }
        if (rc == 0) {
            for (long i = 0; i < iters; i++)
                stamps[i] = stamps[i + 1] - stamps[i];
            p2p_summarize(stamps, iters, 1.0, size, 1.0, r);
        }
    } else if (origin) {
        rc = -1;
    } else if (peer >= 0) {
        /* the target only progresses (puts into lincoll memory need none) */
        if (lincoll_win_wait_signal(win, peer, 1) != LINCOLL_OK) rc = -1;
    }
    free(stamps);
    if (lincoll_barrier(world) != LINCOLL_OK) rc = -1;
    lincoll_win_free(win);
    lc_perf_bufs_free(&b);
    return rc;
}

static int test_alltoall(lincoll_context_t *ctx, lincoll_comm_t *world, const perf_opts_t *o,
                         size_t size, long warmup, long iters, perf_result_t *r)
{
    int P = lincoll_comm_size(world);
    lc_perf_bufs_t b;
    if (lc_perf_bufs_alloc(&b, ctx, size * (size_t)P, o->host_mem) != 0) return -1;
    lincoll_plan_t *plan = NULL;
    int rc = lincoll_alltoall_init(world, b.a, b.b, size, o->ports, &plan) == LINCOLL_OK ? 0 : -1;
    double *samples = malloc(sizeof(double) * (size_t)iters);
    if (rc == 0 && samples != NULL) {
        rc = lc_perf_run_plan(plan, warmup, iters, samples);
        if (rc == 0)
            lc_perf_summarize(samples, iters, 1.0, size * (size_t)(P - 1), (double)(P - 1), r);
    }
    free(samples);
    lincoll_plan_free(plan);
    if (lincoll_barrier(world) != LINCOLL_OK) rc = -1;
    lc_perf_bufs_free(&b);
    return rc;
}

/* shift: every rank sends size bytes to rank + 1 and receives from rank - 1
 * (lincoll_ring_shift_init): one round of an all-to-all encode, so its p50
 * at 8 bytes and at a large size gives the alpha and beta of the links. */
static int test_shift(lincoll_context_t *ctx, lincoll_comm_t *world, const perf_opts_t *o,
                      size_t size, long warmup, long iters, perf_result_t *r)
{
    lc_perf_bufs_t b;
    if (lc_perf_bufs_alloc(&b, ctx, size, o->host_mem) != 0) return -1;
    lincoll_plan_t *plan = NULL;
    int rc = lincoll_ring_shift_init(world, b.a, b.b, size, 1, &plan) == LINCOLL_OK ? 0 : -1;
    double *samples = malloc(sizeof(double) * (size_t)iters);
    if (rc == 0 && lincoll_barrier(world) != LINCOLL_OK) rc = -1;
    if (rc == 0 && samples != NULL) {
        rc = lc_perf_run_plan(plan, warmup, iters, samples);
        if (rc == 0) lc_perf_summarize(samples, iters, 1.0, size, 1.0, r);
    }
    free(samples);
    lincoll_plan_free(plan);
    if (lincoll_barrier(world) != LINCOLL_OK) rc = -1;
    lc_perf_bufs_free(&b);
    return rc;
}

/* Network tests: name, function, fewest ranks.  Collectives and encode live
 * in their own perf_*.c files (weak: absent until built in). */
static const struct {
    const char *name;
    lc_perf_test_fn_t fn;
    int min_ranks;
} perf_tests[] = {
    {"tag_lat", test_p2p, 2},
    {"tag_bw", test_tag_bw, 2},
    {"shift", test_shift, 2},
    {"put_bw", test_put_bw, 2},
    {"alltoall", test_alltoall, 1},
    {"allreduce", lc_perf_coll, 1},
    {"reduce_scatter", lc_perf_coll, 1},
    {"allgather", lc_perf_coll, 1},
    {"bcast", lc_perf_coll, 1},
    {"reduce", lc_perf_coll, 1},
    {"encode", lc_perf_encode, 1},
    {"matmul", lc_perf_matmul, 1},
};

static void print_header(const perf_opts_t *o)
{
    if (o->csv) {
        printf("test,ranks,ports,size,iters,lat_us_p50,lat_us_avg,bw_MBps,msg_rate%s\n",
               o->coll  ? ",algo,predicted_us"
               : o->p2p ? ",pair"
                        : "");
        return;
    }
    const char *rule = o->p2p ? "---------+" : "";
    printf("+--------------+-------+-------+------------+---------+------------------------+"
           "--------------+-------------+%s\n",
           rule);
    printf("|              |       |       |            |         |     latency (usec)     |"
           "  bandwidth   | message rate|%s\n",
           o->p2p ? "         |" : "");
    printf("| test         | ranks | ports |       size |   iters |   50.0%%ile     average |"
           "      (MB/s)  |     (msg/s) |%s\n",
           o->p2p ? " pair    |" : "");
    printf("+--------------+-------+-------+------------+---------+------------------------+"
           "--------------+-------------+%s\n",
           rule);
}

/* Started by a launcher: lincoll-run's LINCOLL_RANK (as the library's
 * configuration table shows it) or PMIx. */
static int lc_perf_launched(void)
{
    lincoll_config_var_t v;
    int rank_set = lincoll_config_var(LINCOLL_CONFIG_RANK, &v) == LINCOLL_OK && v.current != NULL;
    return rank_set || getenv("PMIX_NAMESPACE") != NULL;
}

/* pair: the point-to-point tests' last column ("0-1", ..., "all"), else NULL */
static void print_row(const perf_opts_t *o, int P, int ports, size_t size, const perf_result_t *r,
                      const char *pair, const lc_perf_cpu_t *cpu)
{
    if (o->csv) {
        printf("%s,%d,%d,%zu,%ld,%.3f,%.3f,%.2f,%.0f", o->test, P, ports, size, r->iters, r->p50_us,
               r->avg_us, r->bw_mbs, r->msg_rate);
        if (o->coll) printf(",%s,%.3f", r->algo, r->predicted_us);
        if (pair != NULL) printf(",%s", pair);
        printf("\n");
    } else {
        printf("| %-12s | %5d | %5d | %10zu | %7ld | %10.3f  %10.3f | %12.2f | %11.0f |", o->test,
               P, ports, size, r->iters, r->p50_us, r->avg_us, r->bw_mbs, r->msg_rate);
        if (o->coll) {
            char why[96];
            if (r->predicted_us <= 0)
                printf(" %s (no prediction)", r->algo);
            else if (lc_perf_model_comparable(r, cpu, why, sizeof(why)))
                printf(" %s (predicted %.2f us%s%s, measured / predicted %.2f)", r->algo,
                       r->predicted_us, r->pred_of ? " " : "", r->pred_of ? r->pred_of : "",
                       (r->pred_measured_us > 0 ? r->pred_measured_us : r->p50_us) /
                           r->predicted_us);
            else
                printf(" %s (predicted %.2f us%s%s; not compared: %s)", r->algo, r->predicted_us,
                       r->pred_of ? " " : "", r->pred_of ? r->pred_of : "", why);
        }
        if (pair != NULL) printf(" %-7s |", pair);
        printf("\n");
    }
    fflush(stdout);
}

/* After a point-to-point size: every rank passes whether its run succeeded
 * and, on a pair's sender (rank 2i), the pair's figures; one allgather
 * brings them to rank 0, which prints a row per pair and, with two pairs or
 * more, the aggregate row "all" (MB/s and msg/s summed, p50 the largest of
 * the pairs', average the mean of the pairs').  Every rank calls it, even
 * one whose run failed, so that all of them stop together: returns 0, or -1
 * on every rank when any rank failed. */
enum { P2P_OK, P2P_P50, P2P_AVG, P2P_BW, P2P_RATE, P2P_ITERS, P2P_FIELDS };
static int p2p_report(lincoll_comm_t *world, const perf_opts_t *o, int ports, size_t size,
                      int run_rc, const perf_result_t *r)
{
    int me = lincoll_comm_rank(world), P = lincoll_comm_size(world);
    double mine[P2P_FIELDS] = {
        run_rc == 0 ? 1.0 : 0.0, r->p50_us, r->avg_us, r->bw_mbs, r->msg_rate, (double)r->iters};
    double *all = calloc((size_t)P * P2P_FIELDS, sizeof(double));
    if (all == NULL) {
        fprintf(stderr, "lincoll_perf: rank %d: no memory for %d results\n", me, P);
        return -1; /* the others' gather ends with the context timeout */
    }
    lincoll_status_t st = lincoll_allgather(world, mine, all, P2P_FIELDS, LINCOLL_DOUBLE);
    int rc = st == LINCOLL_OK ? 0 : -1;
    if (st != LINCOLL_OK)
        fprintf(stderr, "lincoll_perf: rank %d: gathering the pairs' results: %s\n", me,
                lincoll_strerror(st));
    for (int j = 0; rc == 0 && j < P; j++) {
        if (all[j * P2P_FIELDS + P2P_OK] != 1.0) rc = -1;
    }
    if (rc == 0 && me == 0) {
        perf_result_t agg = {0};
        int npairs = 0;
        for (int j = 0; j + 1 < P; j += 2, npairs++) {
            const double *v = all + j * P2P_FIELDS;
            perf_result_t pr = {.p50_us = v[P2P_P50],
                                .avg_us = v[P2P_AVG],
                                .bw_mbs = v[P2P_BW],
                                .msg_rate = v[P2P_RATE],
                                .iters = (long)v[P2P_ITERS]};
            char label[32];
            snprintf(label, sizeof(label), "%d-%d", j, j + 1);
            print_row(o, P, ports, size, &pr, label, NULL);
            if (pr.p50_us > agg.p50_us) agg.p50_us = pr.p50_us;
            agg.avg_us += pr.avg_us;
            agg.bw_mbs += pr.bw_mbs;
            agg.msg_rate += pr.msg_rate;
            agg.iters = pr.iters;
        }
        if (npairs > 1) {
            agg.avg_us /= npairs;
            print_row(o, P, ports, size, &agg, "all", NULL);
        }
    }
    free(all);
    return rc;
}

int main(int argc, char **argv)
{
    perf_opts_t o = {.test = NULL, .nsizes = 1, .iters = -1, .warmup = -1, .ports = 0};
    o.sizes[0] = 8;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) o.test = argv[i + 1];
        if (strcmp(argv[i], "-h") == 0) {
            usage();
            return 0;
        }
    }
    if (o.test == NULL) {
        usage();
        return 2;
    }
    /* "-t reduce" is the reduction-kernel benchmark in a lone process and the
     * reduce collective under a launcher; reduce_kernel / reduce_coll pick one */
    int launched = lc_perf_launched();
    int kernel_reduce =
        strcmp(o.test, "reduce_kernel") == 0 || (strcmp(o.test, "reduce") == 0 && !launched);
    if (strcmp(o.test, "reduce_coll") == 0) {
        o.test = "reduce";
    }
    if (strcmp(o.test, "gf") == 0 || strcmp(o.test, "gemm") == 0 || kernel_reduce) {
        int (*fn)(int, char **) = strcmp(o.test, "gf") == 0     ? lc_perf_gf_main
                                  : strcmp(o.test, "gemm") == 0 ? lc_perf_gemm_main
                                                                : lc_perf_reduce_main;
        if (fn == NULL) {
            fprintf(stderr, "lincoll_perf: the %s benchmark is not built in\n", o.test);
            return 2;
        }
        return fn(argc, argv);
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-t") == 0 && v) {
            i++;
        } else if (strcmp(a, "-s") == 0 && v) {
            if (parse_sizes(v, &o) != 0) {
                fprintf(stderr, "lincoll_perf: bad -s %s\n", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "-n") == 0 && v) {
            o.iters = atol(v), i++;
        } else if (strcmp(a, "-w") == 0 && v) {
            o.warmup = atol(v), i++;
        } else if (strcmp(a, "-p") == 0 && v) {
            o.ports = atoi(v), i++;
        } else if (strcmp(a, "-f") == 0 && v) {
            o.csv = strcmp(v, "csv") == 0, i++;
        } else if (strcmp(a, "-W") == 0 && v) {
            o.window = atoi(v), i++;
        } else if (strcmp(a, "-A") == 0 && v) {
            o.algo = v, i++;
        } else if (strcmp(a, "-d") == 0 && v) {
            o.dtype = v, i++;
        } else if (strcmp(a, "-K") == 0 && v) {
            o.K = atoi(v), i++;
        } else if (strcmp(a, "-m") == 0 && v) {
            o.host_mem = strcmp(v, "host") == 0, i++;
        } else if (strcmp(a, "-y") == 0 && v) {
            lc_perf_idle_us = atol(v), i++;
        } else if (strcmp(a, "-b") == 0 && v) {
            o.no_baseline = strcmp(v, "0") == 0, i++;
        } else {
            fprintf(stderr, "lincoll_perf: unknown option %s\n", a);
            usage();
            return 2;
        }
    }
    lc_perf_test_fn_t test = NULL;
    int min_ranks = 1;
    for (size_t i = 0; i < sizeof(perf_tests) / sizeof(perf_tests[0]); i++) {
        if (strcmp(o.test, perf_tests[i].name) == 0) {
            test = perf_tests[i].fn;
            min_ranks = perf_tests[i].min_ranks;
        }
    }
    if (test == NULL) {
        fprintf(stderr, "lincoll_perf: unknown or not built test %s\n", o.test);
        return 2;
    }
    lincoll_comm_t *world;
    lincoll_context_t *perf_ctx;
    lincoll_status_t st = lincoll_init(NULL, &perf_ctx);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "lincoll_perf: lincoll_init failed: %s\n", lincoll_strerror(st));
        return 1;
    }
    lincoll_comm_world(perf_ctx, &world);
    int me = lincoll_comm_rank(world), P = lincoll_comm_size(world);
    int rc = 0;
    if (P < min_ranks) {
        if (me == 0)
            fprintf(stderr,
                    "lincoll_perf: %s needs at least %d ranks (run it under "
                    "lincoll-run -n 2, mpirun or srun)\n",
                    o.test, min_ranks);
        rc = 2;
    }
    o.p2p = !strcmp(o.test, "tag_lat") || !strcmp(o.test, "tag_bw") || !strcmp(o.test, "put_bw");
    o.coll = !o.p2p && strcmp(o.test, "alltoall") && strcmp(o.test, "shift");
    if (rc == 0 && o.p2p && P % 2 && me == 0)
        fprintf(stderr,
                "lincoll_perf: %s on %d ranks, an odd count: rank %d has no partner and sits "
                "out (%d pair%s measure%s)\n",
                o.test, P, P - 1, P / 2, P / 2 > 1 ? "s" : "", P / 2 > 1 ? "" : "s");
    if (rc == 0 && me == 0) print_header(&o);
    for (int i = 0; rc == 0 && i < o.nsizes; i++) {
        size_t size = o.sizes[i];
        long iters = o.iters > 0 ? o.iters : (size > (1u << 20) ? 100 : 1000);
        long warmup = o.warmup >= 0 ? o.warmup : iters / 10 + 1;
        perf_result_t r = {0};
        int ports = o.ports > 0 ? o.ports : 1;
        lc_perf_cpu_mark_t c0, c1;
        lc_perf_cpu_t cpu = {0};
        lc_perf_cpu_mark(&c0);
        int trc = test(perf_ctx, world, &o, size, warmup, iters, &r);
        lc_perf_cpu_mark(&c1);
        if (trc != 0)
            fprintf(stderr, "lincoll_perf: rank %d: %s at %zu bytes failed\n", me, o.test, size);
        if (o.p2p) trc = p2p_report(world, &o, ports, size, trc, &r);
        if (trc != 0) {
            rc = 1;
            break;
        }
        if (P > 1 && lc_perf_cpu_gather(world, &c0, &c1, &cpu) != 0) {
            rc = 1;
            break;
        }
        if (me == 0 && !o.p2p) print_row(&o, P, ports, size, &r, NULL, &cpu);
        if (me == 0) lc_perf_cpu_print(o.test, size, &cpu);
    }
    lincoll_finalize(perf_ctx);
    return rc;
}
