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
    double p10_us, p90_us; /* the spread of the per-iteration times */
    double bw_mbs;
    double msg_rate;
    long iters;
    char algo[32];           /* algorithm that ran (collectives) */
    double predicted_us;     /* the plan's alpha-beta-gamma prediction */
    double pred_measured_us; /* what the prediction is for, when not p50_us (0: p50_us) */
    const char *pred_of;     /* its name ("communication"), or NULL for the whole run */
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

/* ---- perf_verdict.c: CPU shares and whether a row may be held against the model ---- */

/* A row's measurement is compared with the model's prediction only when
 * the run can tell: at least LC_PERF_MODEL_MIN_ITERS iterations, other
 * processes on the machine used at most LC_PERF_MODEL_MAX_OTHERS cores, and
 * (where every rank has its own processing unit) p90 / p10 of the
 * iteration times is at most LC_PERF_MODEL_MAX_SPREAD. */
#define LC_PERF_MODEL_MIN_ITERS  10
#define LC_PERF_MODEL_MAX_OTHERS 0.3
#define LC_PERF_MODEL_MAX_SPREAD 3.0
/* Where /proc/stat cannot tell (a run shorter than 10 jiffies per
 * processing unit), a rank that waited on a run queue for more than this
 * share of the run (its schedstat run_delay) says other processes used the
 * cores, if every rank has a processing unit of its own. */
#define LC_PERF_MODEL_MAX_WAIT 0.3

/* Wall time, this process's CPU time and the machine's /proc/stat jiffies. */
typedef struct lc_perf_cpu_mark {
    double wall, user, sys;
    double run_delay; /* seconds this thread waited on a run queue (-1: unknown) */
    unsigned long long busy, total;
} lc_perf_cpu_mark_t;

/* What every rank's CPU did over one size, as rank 0 sees it. */
typedef struct lc_perf_cpu {
    int valid;         /* 1 on rank 0 after lc_perf_cpu_gather */
    int ranks;         /* ranks in the run */
    int one_kernel;    /* every rank runs on this machine's kernel */
    long cores;        /* online processing units here */
    double wall_s;     /* rank 0's wall time */
    double share_mean; /* CPU time / wall time, per rank */
    double share_max, share_min;
    double sys_frac;     /* the kernel's part of the ranks' CPU time */
    double machine_busy; /* busy fraction of the whole machine */
    double others;       /* cores used by other processes (-1: unknown, ranks on other hosts) */
    double wait_max;     /* largest share of the run a rank waited for a core (-1: unknown) */
    int wait_rank;       /* the rank that waited wait_max */
} lc_perf_cpu_t;

void lc_perf_cpu_mark(lc_perf_cpu_mark_t *m);
/* Collective over world: every rank's share over [a, b] goes to rank 0,
 * which fills *c.  Returns 0, or -1 when the gather failed. */
int lc_perf_cpu_gather(lincoll_comm_t *world, const lc_perf_cpu_mark_t *a,
                       const lc_perf_cpu_mark_t *b, lc_perf_cpu_t *c);
/* Rank 0: the "#cpu" line of a size. */
void lc_perf_cpu_print(const char *test, size_t size, const lc_perf_cpu_t *c);
/* 1 when the row may be compared with its prediction; else 0 and why in
 * why[0..n) (c may be NULL: then only the iterations and the spread count). */
int lc_perf_model_comparable(const perf_result_t *r, const lc_perf_cpu_t *c, char *why, size_t n);

#endif
