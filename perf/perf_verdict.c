/*
 * perf/perf_verdict.c: what lincoll_perf's tables say beside a prediction.
 * Every size records the ranks' CPU shares (the "#cpu" line) and decides
 * whether its measurement may be held against the cost model: a run of a
 * few iterations, a machine busy with other processes, or iteration times
 * spread over a wide range measure the machine's noise, not the plan, and
 * the row then says "not compared" with the reason instead of a ratio that
 * would mislead.  The thresholds are in perf_common.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "perf_common.h"

void lc_perf_cpu_mark(lc_perf_cpu_mark_t *m)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    m->wall = lc_perf_now();
    m->user = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec;
    m->sys = (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    m->busy = m->total = 0;
    m->run_delay = -1;
    unsigned long long on_cpu, delay;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (f != NULL && fscanf(f, "%llu %llu", &on_cpu, &delay) == 2)
        m->run_delay = 1e-9 * (double)delay;
    if (f != NULL) fclose(f);
    f = fopen("/proc/stat", "r");
    unsigned long long v[10] = {0};
    if (f != NULL && fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
                            &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) >= 8) {
        for (int i = 0; i < 8; i++)
            m->total += v[i];
        m->busy = m->total - v[3] - v[4]; /* all but idle and iowait */
    }
    if (f != NULL) fclose(f);
}

/* This kernel's boot id folded to 48 bits (exact in a double): ranks with
 * the same value share the machine whose /proc/stat rank 0 reads. */
static double kernel_id(void)
{
    char buf[64] = {0};
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f == NULL) return -1;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)buf[i]) * 1099511628211ull;
    return (double)(h >> 16);
}

/* Jiffies per processing unit that a size must last before the machine's
 * busy share says anything about other processes. */
#define LC_PERF_MIN_JIFFIES 10

enum { CPU_SHARE, CPU_SYS, CPU_KERNEL, CPU_WAIT, CPU_FIELDS };

int lc_perf_cpu_gather(lincoll_comm_t *world, const lc_perf_cpu_mark_t *a,
                       const lc_perf_cpu_mark_t *b, lc_perf_cpu_t *c)
{
    int me = lincoll_comm_rank(world), P = lincoll_comm_size(world);
    double wall = b->wall - a->wall;
    double mine[CPU_FIELDS] = {wall > 0 ? (b->user - a->user + b->sys - a->sys) / wall : 0,
                               wall > 0 ? (b->sys - a->sys) / wall : 0, kernel_id(),
                               wall > 0 && a->run_delay >= 0 && b->run_delay >= 0
                                   ? (b->run_delay - a->run_delay) / wall
                                   : -1};
    double *all = calloc((size_t)P * CPU_FIELDS, sizeof(double));
    memset(c, 0, sizeof(*c));
    if (all == NULL) return -1;
    int rc = lincoll_allgather(world, mine, all, CPU_FIELDS, LINCOLL_DOUBLE) == LINCOLL_OK ? 0 : -1;
    if (rc == 0 && me == 0) {
        double sum = 0, sys = 0;
        c->share_max = 0;
        c->share_min = 1e30;
        c->one_kernel = 1;
        c->wait_max = 0;
        c->wait_rank = -1;
        for (int j = 0; j < P; j++) {
            double s = all[CPU_FIELDS * j + CPU_SHARE];
            sum += s;
            sys += all[CPU_FIELDS * j + CPU_SYS];
            c->share_max = s > c->share_max ? s : c->share_max;
            c->share_min = s < c->share_min ? s : c->share_min;
            if (all[CPU_FIELDS * j + CPU_KERNEL] != mine[CPU_KERNEL] || mine[CPU_KERNEL] < 0)
                c->one_kernel = 0;
            double w = all[CPU_FIELDS * j + CPU_WAIT];
            if (w < 0 || c->wait_max < 0)
                c->wait_max = -1;
            else if (w > c->wait_max) {
                c->wait_max = w;
                c->wait_rank = j;
            }
        }
        c->valid = 1;
        c->ranks = P;
        c->cores = sysconf(_SC_NPROCESSORS_ONLN);
        c->wall_s = wall;
        c->share_mean = sum / P;
        c->sys_frac = sum > 0 ? sys / sum : 0;
        c->machine_busy =
            b->total > a->total ? (double)(b->busy - a->busy) / (double)(b->total - a->total) : 0;
        c->others = -1;
        /* /proc/stat counts in jiffies (10 ms): a shorter run cannot tell */
        if (c->one_kernel &&
            b->total - a->total >= LC_PERF_MIN_JIFFIES * (unsigned long long)c->cores) {
            double o = c->machine_busy * (double)c->cores - sum;
            c->others = o > 0 ? o : 0;
        }
    }
    free(all);
    return rc;
}

void lc_perf_cpu_print(const char *test, size_t size, const lc_perf_cpu_t *c)
{
    if (!c->valid) return;
    printf("#cpu test=%s size=%zu ranks=%d wall_s=%.3f share_mean=%.4f share_max=%.4f "
           "share_min=%.4f sys_frac=%.3f machine_busy=%.4f cores=%ld others=%.2f wait_max=%.3f\n",
           test, size, c->ranks, c->wall_s, c->share_mean, c->share_max, c->share_min, c->sys_frac,
           c->machine_busy, c->cores, c->others, c->wait_max);
    fflush(stdout);
}

int lc_perf_model_comparable(const perf_result_t *r, const lc_perf_cpu_t *c, char *why, size_t n)
{
    if (r->iters < LC_PERF_MODEL_MIN_ITERS) {
        snprintf(why, n, "%ld iterations, fewer than %d", r->iters, LC_PERF_MODEL_MIN_ITERS);
        return 0;
    }
    if (c != NULL && c->valid && c->others > LC_PERF_MODEL_MAX_OTHERS) {
        snprintf(why, n, "other processes used %.1f of %ld cores", c->others, c->cores);
        return 0;
    }
    if (c != NULL && c->valid && c->others < 0 && c->one_kernel && c->ranks <= c->cores &&
        c->wait_max > LC_PERF_MODEL_MAX_WAIT) {
        snprintf(why, n, "other processes used the cores: rank %d waited %.0f%% of the run for one",
                 c->wait_rank, 100 * c->wait_max);
        return 0;
    }
    int shared = c != NULL && c->valid && c->one_kernel && c->ranks > c->cores;
    double spread = r->p10_us > 0 ? r->p90_us / r->p10_us : 0;
    if (!shared && spread > LC_PERF_MODEL_MAX_SPREAD) {
        snprintf(why, n, "iteration times spread %.1fx (p90 / p10)", spread);
        return 0;
    }
    return 1;
}
