/*
 * perf/perf_local.h: single-process benchmarks that lincoll_perf dispatches to
 * (-t gf, -t gemm, -t reduce).  Each lives in its own perf_<name>.c, uses only
 * the public headers, parses its own options from argv and prints a table
 * (or CSV with -f csv).  Returns a process exit code.
 */
#ifndef LC_PERF_LOCAL_H
#define LC_PERF_LOCAL_H

int lc_perf_gf_main(int argc, char **argv) __attribute__((weak));
int lc_perf_gemm_main(int argc, char **argv) __attribute__((weak));
int lc_perf_reduce_main(int argc, char **argv) __attribute__((weak));

/* Network tests in their own files (see perf_common.h for the signature). */
#include "perf_common.h"

/* perf_util.c: median of v[0..n) (sorts v); 0 when n <= 0. */
double lc_perf_median(double *v, int n);

int lc_perf_coll(lincoll_context_t *ctx, lincoll_comm_t *comm, const perf_opts_t *o, size_t size,
                 long warmup, long iters, perf_result_t *r) __attribute__((weak));
int lc_perf_encode(lincoll_context_t *ctx, lincoll_comm_t *comm, const perf_opts_t *o, size_t size,
                   long warmup, long iters, perf_result_t *r) __attribute__((weak));
int lc_perf_matmul(lincoll_context_t *ctx, lincoll_comm_t *comm, const perf_opts_t *o, size_t size,
                   long warmup, long iters, perf_result_t *r) __attribute__((weak));

#endif
