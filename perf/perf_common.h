/*
 * perf/perf_common.h: what lincoll_perf's tests share.  A network test is a
 * function that runs one size: it builds its plan(s), times `iters`
 * iterations after `warmup`, fills a perf_result_t on rank 0, and returns 0
 * (non-zero on failure, after printing why).  Collective, encode and matmul
 * tests live in perf_coll.c, perf_encode.c, perf_matmul.c.
 */
#ifndef LC_PERF_COMMON_H
#define LC_PERF_COMMON_H

#include <lincoll/lincoll.h>
#include <stddef.h>

typedef struct perf_opts {
    const char *test;
    size_t sizes[64];
    int nsizes;
    long iters; /* -1: default per size */
    long warmup;
    int ports;
    int csv;
    int host_mem;      /* -m host: malloc buffers instead of lincoll_mem_alloc */
    const char *algo;  /* -A: algorithm name for collectives / encode / matmul */
    const char *dtype; /* -d: element type name (collectives), e.g. float */
    int K;             /* -K: encode group size (0 = all ranks) */
    int window;        /* -W: tag_bw/put_bw messages in flight (default 32, as ucx_perftest) */
    int coll;          /* table gets algo and predicted columns */
    int p2p;           /* tag_lat/tag_bw/put_bw: pairs 0-1, 2-3, ...; table gets a pair column */
    int no_baseline;   /* -b 0: encode times no direct baseline beside the algorithm */
} perf_opts_t;

typedef struct perf_result {
    double p50_us;
    double avg_us;
    double bw_mbs;
    double msg_rate;
    long iters;
    char algo[32];       /* algorithm that ran (collectives) */
    double predicted_us; /* the plan's alpha-beta-gamma prediction */
} perf_result_t;

typedef int (*lc_perf_test_fn_t)(lincoll_context_t *ctx, lincoll_comm_t *comm, const perf_opts_t *o,
                                 size_t size, long warmup, long iters, perf_result_t *r);

/* Two buffers of one size for a benchmark: lincoll_mem_alloc memory (the
 * zero-copy paths) or, with host set, malloc memory; a filled with 1s, b with
 * 2s.  Returns 0 or -1 (then lc_perf_bufs_free releases what was allocated). */
typedef struct lc_perf_bufs {
    lincoll_context_t *ctx;
    void *a, *b;
    int lincoll_mem;
} lc_perf_bufs_t;
int lc_perf_bufs_alloc(lc_perf_bufs_t *bf, lincoll_context_t *ctx, size_t bytes, int host);
void lc_perf_bufs_free(lc_perf_bufs_t *bf);

/* Seconds on a monotonic clock. */
double lc_perf_now(void);
/* -y US: waits poll lincoll_test and sleep US microseconds between polls
 * instead of spinning in lincoll_wait (0, the default: lincoll_wait). */
extern long lc_perf_idle_us;
/* lincoll_wait, or the sleeping poll of -y. */
lincoll_status_t lc_perf_wait(lincoll_plan_t *plan);
/* Start/wait the plan warmup+iters times; samples[i] = seconds of iteration i. */
int lc_perf_run_plan(lincoll_plan_t *plan, long warmup, long iters, double *samples);
/* Fill r from samples (sorts them): latency divided by `divisor`, bandwidth
 * from bytes_per_iter, message rate from msgs_per_iter. */
void lc_perf_summarize(double *samples, long iters, double divisor, size_t bytes_per_iter,
                       double msgs_per_iter, perf_result_t *r);

#endif
