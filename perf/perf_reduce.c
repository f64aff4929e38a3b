/*
 * perf/perf_reduce.c: lincoll_perf -t reduce, bandwidth of the reduction
 * kernels beside memcpy measured in the same run.
 *
 * Per buffer size, each round times (in this order) memcpy(dst, a, bytes),
 * lincoll_reduce(dst, src) (dst += src), lincoll_reduce3(dst, a, b) and the
 * plain-C lincoll_reduce3_base(); the median of -n rounds is reported.
 * Bandwidth counts the bytes each call must move: memcpy 2 x bytes (read +
 * write), the reductions 3 x bytes (two reads + one write).  The ratio column
 * is reduce3 GB/s over memcpy GB/s.
 *
 * Options:
 *   -s LIST   bytes per array, comma separated, K/M suffixes (default 64K,1M,8M)
 *   -d TYPE   float (default), double, int32, bfloat16, float16, ...
 *   -o OP     sum (default), prod, min, max, bxor
 *   -n N      rounds (default 30)
 *   -f csv    CSV instead of a table
 */
#include <lincoll/lincoll.h>
#include <lincoll/reduce.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_local.h"

static int pr_lookup(const char *name, int last, const char *(*namefn)(int))
{
    for (int i = 0; i < last; i++) {
        if (strcmp(name, namefn(i)) == 0) return i;
    }
    return -1;
}

static const char *pr_dtype_name(int i)
{
    return lincoll_dtype_name((lincoll_dtype_t)i);
}

static const char *pr_op_name(int i)
{
    return lincoll_op_name((lincoll_op_t)i);
}

static size_t pr_parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (*end == 'K' || *end == 'k') v *= 1024;
    if (*end == 'M' || *end == 'm') v *= 1024 * 1024;
    if (*end == 'G' || *end == 'g') v *= 1024.0 * 1024 * 1024;
    return v > 0 ? (size_t)v : 0;
}

int lc_perf_reduce_main(int argc, char **argv)
{
    const char *sizes = "64K,1M,8M", *dname = "float", *oname = "sum";
    int rounds = 30, csv = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "-t") == 0 && v) {
            i++;
        } else if (strcmp(o, "-s") == 0 && v) {
            sizes = v, i++;
        } else if (strcmp(o, "-d") == 0 && v) {
            dname = v, i++;
        } else if (strcmp(o, "-o") == 0 && v) {
            oname = v, i++;
        } else if (strcmp(o, "-n") == 0 && v) {
            rounds = atoi(v), i++;
        } else if (strcmp(o, "-f") == 0 && v) {
            csv = strcmp(v, "csv") == 0, i++;
        } else {
            fprintf(stderr, "usage: lincoll_perf -t reduce [-s 64K,1M,8M] [-d float] [-o sum] "
                            "[-n rounds] [-f csv]\n");
            return 2;
        }
    }
    int d = pr_lookup(dname, LINCOLL_DTYPE_LAST, pr_dtype_name);
    int op = pr_lookup(oname, LINCOLL_OP_LAST, pr_op_name);
    if (d < 0 || op < 0) {
        fprintf(stderr, "perf reduce: unknown dtype '%s' or op '%s'\n", dname, oname);
        return 2;
    }
    if (rounds < 1) rounds = 1;
    lincoll_dtype_t dt = (lincoll_dtype_t)d;
    size_t es = lincoll_dtype_size(dt);
    if (csv) {
        printf("dtype,op,bytes,memcpy_gbs,reduce_gbs,reduce3_gbs,reduce3_base_gbs,ratio,variant\n");
    } else {
        printf("# lincoll reduce %s %s, variant %s; median of %d rounds, interleaved with memcpy\n",
               dname, oname, lincoll_reduce_variant(), rounds);
        printf("# GB/s counts 2 x bytes for memcpy, 3 x bytes for the reductions\n");
        printf("#    bytes    memcpy    reduce   reduce3  r3_base  reduce3/memcpy\n");
    }
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", sizes);
    char *save;
    int rc = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        size_t bytes = pr_parse_size(tok) / es * es, count = bytes / es;
        if (count == 0) continue;
        unsigned char *a = aligned_alloc(64, (bytes + 63) / 64 * 64);
        unsigned char *b = aligned_alloc(64, (bytes + 63) / 64 * 64);
        unsigned char *dst = aligned_alloc(64, (bytes + 63) / 64 * 64);
        double *t[4];
        for (int k = 0; k < 4; k++)
            t[k] = calloc(rounds, sizeof(double));
        if (!a || !b || !dst || !t[0] || !t[1] || !t[2] || !t[3]) {
            fprintf(stderr, "perf reduce: out of memory\n");
            rc = 1;
        } else {
            for (size_t i = 0; i < count; i++) { /* small values: sums stay finite */
                if (dt == LINCOLL_FLOAT) {
                    ((float *)a)[i] = (float)(i % 7) * 0.25f;
                    ((float *)b)[i] = (float)(i % 5) * 0.5f;
                } else {
                    memset(a + i * es, (int)(i % 3), es);
                    memset(b + i * es, (int)(i % 5), es);
                }
            }
            memset(dst, 0, bytes);
            /* A few rounds scale with size so small buffers are timed over many calls. */
            int reps = bytes >= (1u << 20) ? 1 : (int)((1u << 20) / bytes);
            for (int r = -2; r < rounds && rc == 0; r++) {
                double t0 = lc_perf_now();
                for (int q = 0; q < reps; q++)
                    memcpy(dst, a, bytes);
                double t1 = lc_perf_now();
                for (int q = 0; q < reps; q++)
                    rc |= lincoll_reduce(dst, b, count, dt, op) != 0;
                double t2 = lc_perf_now();
                for (int q = 0; q < reps; q++) {
                    rc |= lincoll_reduce3(dst, a, b, count, dt, op) != 0;
                }
                double t3 = lc_perf_now();
                for (int q = 0; q < reps; q++) {
                    rc |= lincoll_reduce3_base(dst, a, b, count, dt, op) != 0;
                }
                double t4 = lc_perf_now();
                if (r >= 0) {
                    t[0][r] = (t1 - t0) / reps;
                    t[1][r] = (t2 - t1) / reps;
                    t[2][r] = (t3 - t2) / reps;
                    t[3][r] = (t4 - t3) / reps;
                }
            }
            if (rc != 0) {
                fprintf(stderr, "perf reduce: %s %s is not a valid reduction\n", dname, oname);
            } else {
                double g[4];
                for (int k = 0; k < 4; k++) {
                    g[k] =
                        (k == 0 ? 2.0 : 3.0) * (double)bytes / lc_perf_median(t[k], rounds) / 1e9;
                }
                if (csv) {
                    printf("%s,%s,%zu,%.2f,%.2f,%.2f,%.2f,%.3f,%s\n", dname, oname, bytes, g[0],
                           g[1], g[2], g[3], g[2] / g[0], lincoll_reduce_variant());
                } else {
                    printf("%10zu  %8.2f  %8.2f  %8.2f  %7.2f  %6.3f\n", bytes, g[0], g[1], g[2],
                           g[3], g[2] / g[0]);
                }
                fflush(stdout);
            }
        }
        for (int k = 0; k < 4; k++)
            free(t[k]);
        free(a);
        free(b);
        free(dst);
        if (rc != 0) break;
    }
    return rc;
}
