/*
 * perf/perf_util.c: statistics shared by the single-process benchmarks
 * (the clock, lc_perf_now, lives in lincoll_perf.c).
 */
#include <stdlib.h>

#include "perf_local.h"

static int lc_perf_cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

double lc_perf_median(double *v, int n)
{
    if (n <= 0) return 0.0;
    qsort(v, (size_t)n, sizeof(*v), lc_perf_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
