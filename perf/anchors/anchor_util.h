/*
 * perf/anchors/anchor_util.h: helpers shared by the anchor programs (other
 * projects' libraries, timed beside lincoll): a monotonic clock, argument
 * parsing that names the bad argument and exits 2, and the re-exec that
 * drops OpenBLAS's core override for the BLAS anchors.
 */
#ifndef LINCOLL_ANCHOR_UTIL_H
#define LINCOLL_ANCHOR_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline double anchor_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static inline void anchor_usage_exit(const char *prog, const char *usage, const char *what,
                                     const char *arg)
{
    if (what != NULL)
        fprintf(stderr, "%s: %s: '%s'\n", prog, what, arg != NULL ? arg : "(missing)");
    fprintf(stderr, "usage: %s %s\n", prog, usage);
    exit(2);
}

/* A byte count: digits with an optional k, m or g suffix (powers of 2), in
 * [lo, hi].  Anything else: a message naming the argument, exit 2. */
static inline uint64_t anchor_parse_size(const char *prog, const char *usage, const char *name,
                                         const char *s, uint64_t lo, uint64_t hi)
{
    char *end = NULL;
    if (s == NULL || *s < '0' || *s > '9') anchor_usage_exit(prog, usage, name, s);
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K')
        shift = 10;
    else if (*end == 'm' || *end == 'M')
        shift = 20;
    else if (*end == 'g' || *end == 'G')
        shift = 30;
    if (shift != 0) end++;
    if (errno != 0 || *end != '\0' || (v << shift) >> shift != v)
        anchor_usage_exit(prog, usage, name, s);
    v <<= shift;
    if (v < lo || v > hi) {
        fprintf(stderr, "%s: %s: '%s' is outside [%llu, %llu]\n", prog, name, s,
                (unsigned long long)lo, (unsigned long long)hi);
        exit(2);
    }
    return v;
}

static inline int anchor_parse_int(const char *prog, const char *usage, const char *name,
                                   const char *s, int lo, int hi)
{
    return (int)anchor_parse_size(prog, usage, name, s, (uint64_t)lo, (uint64_t)hi);
}

/*
 * OpenBLAS picks its kernel when the library loads, before main(), from
 * OPENBLAS_CORETYPE (and sizes its blocking from OPENBLAS_L2_SIZE).  An
 * environment may set them to pin an older kernel; the anchor must run
 * OpenBLAS's best kernel for this CPU, so the program re-executes itself
 * once without them.  Only this process and its children are affected.
 */
static inline void anchor_drop_openblas_override(char **argv)
{
    if (getenv("OPENBLAS_CORETYPE") == NULL && getenv("OPENBLAS_L2_SIZE") == NULL) return;
    unsetenv("OPENBLAS_CORETYPE");
    unsetenv("OPENBLAS_L2_SIZE");
    execv("/proc/self/exe", argv);
    fprintf(stderr, "%s: re-exec without OPENBLAS_CORETYPE failed: %s\n", argv[0], strerror(errno));
    exit(1);
}

#endif
