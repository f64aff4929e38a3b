/*
 * perf/calibrate.c: lincoll_info --calibrate: measure this machine's cost
 * model figures and write them as a machine profile (core/base/profile.h),
 * which the library then reads at every lincoll_init.
 *
 * Each figure is the median of a few short runs of lincoll_perf (found next
 * to lincoll_info), two ranks under lincoll-run unless said otherwise:
 *   alpha         p50 of an 8-byte rhd_allreduce over host buffers (one
 *                 message round between two ranks of this host, UCX shm);
 *   alpha_mapped  p50 of an 8-byte zcopy_rd_allreduce over lincoll memory
 *                 (one round of stores and flags);
 *   beta          1 / tag_bw at 4 MiB (ranks of this host);
 *   beta_mapped   from the p50 t of a 1 MiB zcopy_allgather over lincoll
 *                 memory: (t - 2 alpha_mapped) / n (each rank copies the
 *                 whole vector: its own half into place, the other half
 *                 out of the peer's memory);
 *   alpha_net, beta_net  the same over UCX tcp (UCX_TLS=tcp,self): the
 *                 network transport between hosts, measured over loopback;
 *   handoff       what a round costs when its peer must first get the
 *                 core: 4 ranks on two CPUs (2 per CPU), the mean of the
 *                 8-byte zcopy_rd_allreduce (2 rounds) / 2 minus
 *                 alpha_mapped; where this process may use one CPU only,
 *                 2 ranks on it, the mean of the 8-byte rhd_allreduce over
 *                 host buffers minus alpha;
 *   gamma_gf      1 / GF(2^8) lincomb (lincoll_perf -t gf, 10+4), one process;
 *   gamma_reduce  1 / float sum reduction at 1 MiB (-t reduce);
 *   gamma         the larger (slower) of the two;
 *   flops         dgemm 512^3 (-t gemm), one thread.
 * A figure whose runs all fail is left out (the library keeps its built-in
 * one); alpha, beta and gamma are required, so their failure is an error.
 */
#include "perf/calibrate.h"

#include "core/base/config.h"
#include "core/base/profile.h"

#include <errno.h>
#include <sched.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CAL_RUNS 3

static char cal_bin[PATH_MAX];

/* The directory of this executable (lincoll-run and lincoll_perf lie there). */
static int cal_find_bin(void)
{
    ssize_t n = readlink("/proc/self/exe", cal_bin, sizeof(cal_bin) - 1);
    if (n <= 0) return -1;
    cal_bin[n] = '\0';
    char *slash = strrchr(cal_bin, '/');
    if (slash == NULL) return -1;
    *slash = '\0';
    return 0;
}

/* Run @p cmd (sh -c); the value of CSV column @p col (1-based) of the first
 * data line whose first column is @p first (after an optional "[0] " rank
 * prefix) and, when @p match != NULL, whose column @p mcol equals it.
 * Returns the value, or -1 when the command failed or printed no such line. */
static double cal_run(const char *cmd, const char *first, int col, int mcol, const char *match)
{
    FILE *p = popen(cmd, "r");
    if (p == NULL) return -1;
    char line[1024];
    double v = -1;
    while (fgets(line, sizeof(line), p) != NULL) {
        char *s = line;
        if (strncmp(s, "[0] ", 4) == 0)
            s += 4;
        else if (s[0] == '[')
            continue; /* another rank's line */
        char *fields[24];
        int nf = 0;
        for (char *t = strtok(s, ",\n"); t != NULL && nf < 24; t = strtok(NULL, ",\n"))
            fields[nf++] = t;
        if (nf < col || strcmp(fields[0], first) != 0 || v >= 0) continue;
        if (match != NULL && (nf < mcol || strcmp(fields[mcol - 1], match) != 0)) continue;
        char *end;
        double d = strtod(fields[col - 1], &end);
        if (end != fields[col - 1] && d > 0) v = d;
    }
    int rc = pclose(p);
    return rc == 0 ? v : -1;
}

static int cal_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of CAL_RUNS runs (failed runs left out); -1 if all failed. */
static double cal_median(const char *cmd, const char *first, int col, int mcol, const char *match)
{
    double v[CAL_RUNS];
    int n = 0;
    for (int i = 0; i < CAL_RUNS; i++) {
        double d = cal_run(cmd, first, col, mcol, match);
        if (d > 0) v[n++] = d;
    }
    if (n == 0) return -1;
    qsort(v, (size_t)n, sizeof(v[0]), cal_cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* lincoll_perf on two ranks under lincoll-run; @p env prefixes the command
 * (variables for both ranks), @p pre the launcher (taskset). */
static void cal_cmd2(char *cmd, size_t len, const char *env, const char *pre, const char *args)
{
    snprintf(cmd, len,
             "%s %s '%s/lincoll-run' -n 2 --timeout 60 '%s/lincoll_perf' %s -f csv 2>/dev/null",
             env, pre, cal_bin, cal_bin, args);
}

static void cal_cmd4(char *cmd, size_t len, const char *env, const char *pre, const char *args)
{
    snprintf(cmd, len,
             "%s %s '%s/lincoll-run' -n 4 --timeout 60 '%s/lincoll_perf' %s -f csv 2>/dev/null",
             env, pre, cal_bin, cal_bin, args);
}

static void cal_cmd1(char *cmd, size_t len, const char *args)
{
    snprintf(cmd, len, "'%s/lincoll_perf' %s -f csv 2>/dev/null", cal_bin, args);
}

static void cal_set(lc_profile_t *p, lc_profile_key_t k, double v)
{
    if (v > 0) {
        p->v[k] = v;
        p->have |= 1u << k;
    }
}

/* Up to two CPUs this process may run on, for the shared-core run:
 * "c0,c1" or "c0" in buf; the count, 0 if none known. */
static int cal_cpus(char *buf, size_t len)
{
    cpu_set_t set;
    int n = 0, c0 = -1;
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
    for (int c = 0; c < CPU_SETSIZE && n < 2; c++) {
        if (!CPU_ISSET(c, &set)) continue;
        if (n++ == 0) {
            c0 = c;
            snprintf(buf, len, "%d", c);
        } else {
            snprintf(buf, len, "%d,%d", c0, c);
        }
    }
    return n;
}

/* mkdir -p of the directory part of @p path. */
static int cal_mkdirs(const char *path)
{
    char d[PATH_MAX];
    snprintf(d, sizeof(d), "%s", path);
    for (char *s = d + 1; *s != '\0'; s++) {
        if (*s != '/') continue;
        *s = '\0';
        if (mkdir(d, 0755) != 0 && errno != EEXIST) return -1;
        *s = '/';
    }
    return 0;
}

int lc_calibrate(const char *out, FILE *log)
{
    if (cal_find_bin() != 0) {
        fprintf(stderr, "lincoll_info --calibrate: cannot locate this executable's directory\n");
        return 2;
    }
    char cmd[2 * PATH_MAX + 512];
    snprintf(cmd, sizeof(cmd), "%s/lincoll-run", cal_bin);
    if (access(cmd, X_OK) != 0) {
        fprintf(stderr, "lincoll_info --calibrate: %s not found\n", cmd);
        return 2;
    }
    lc_profile_t p;
    memset(&p, 0, sizeof(p));
    /* the runs measure the library as built: no profile of the past, quiet */
    char noprof[128], tcp[160];
    snprintf(noprof, sizeof(noprof), "%s=none %s=error", lc_config_name(LINCOLL_CONFIG_PROFILE),
             lc_config_name(LINCOLL_CONFIG_LOG_LEVEL));
    snprintf(tcp, sizeof(tcp), "%s UCX_TLS=tcp,self", noprof);
    const char *lat = "-t allreduce -s 8 -n 5000 -A rhd_allreduce -m host";
    double us;

    fprintf(log, "calibrate: alpha (8-byte rhd_allreduce, 2 ranks, shared memory)\n");
    cal_cmd2(cmd, sizeof(cmd), noprof, "", lat);
    us = cal_median(cmd, "allreduce", 6, 0, NULL);
    cal_set(&p, LC_PROF_ALPHA, us * 1e-6);
    double alpha_us = us;

    fprintf(log, "calibrate: alpha_mapped (8-byte zcopy_rd_allreduce, lincoll memory)\n");
    cal_cmd2(cmd, sizeof(cmd), noprof, "", "-t allreduce -s 8 -n 5000 -A zcopy_rd_allreduce");
    us = cal_median(cmd, "allreduce", 6, 10, "zcopy_rd_allreduce");
    cal_set(&p, LC_PROF_ALPHA_MAPPED, us * 1e-6);

    fprintf(log, "calibrate: beta (tag_bw 4 MiB, shared memory)\n");
    cal_cmd2(cmd, sizeof(cmd), noprof, "", "-t tag_bw -s 4m -n 50");
    double mbps = cal_median(cmd, "tag_bw", 8, 0, NULL);
    cal_set(&p, LC_PROF_BETA, mbps > 0 ? 1.0 / (mbps * 1e6) : -1);

    fprintf(log, "calibrate: beta_mapped (zcopy_allgather 1 MiB, lincoll memory)\n");
    cal_cmd2(cmd, sizeof(cmd), noprof, "", "-t allgather -s 1m -n 200 -A zcopy_allgather");
    us = cal_median(cmd, "allgather", 6, 10, "zcopy_allgather");
    {
        /* two flag rounds and the whole vector copied (the own half into
         * place, the peer's half out of its memory, one after the other):
         * 2 alpha_mapped + n beta_mapped */
        double am = lc_profile_has(&p, LC_PROF_ALPHA_MAPPED) ? p.v[LC_PROF_ALPHA_MAPPED] : 0;
        double t = us * 1e-6 - 2 * am;
        cal_set(&p, LC_PROF_BETA_MAPPED, us > 0 && t > 0 ? t / 1048576.0 : -1);
    }

    fprintf(log, "calibrate: alpha_net, beta_net (the same over UCX tcp)\n");
    cal_cmd2(cmd, sizeof(cmd), tcp, "", "-t allreduce -s 8 -n 500 -A rhd_allreduce -m host");
    us = cal_median(cmd, "allreduce", 6, 0, NULL);
    cal_set(&p, LC_PROF_ALPHA_NET, us * 1e-6);
    cal_cmd2(cmd, sizeof(cmd), tcp, "", "-t tag_bw -s 4m -n 30");
    mbps = cal_median(cmd, "tag_bw", 8, 0, NULL);
    cal_set(&p, LC_PROF_BETA_NET, mbps > 0 ? 1.0 / (mbps * 1e6) : -1);

    char cpus[64];
    int ncpu = cal_cpus(cpus, sizeof(cpus));
    double am_us = lc_profile_has(&p, LC_PROF_ALPHA_MAPPED) ? 1e6 * p.v[LC_PROF_ALPHA_MAPPED] : -1;
    if (ncpu == 2 && am_us > 0) {
        /* two ranks per CPU, as a job with twice as many ranks as cores
         * runs: the 8-byte zcopy_rd_allreduce on 4 ranks has 2 rounds */
        fprintf(log, "calibrate: handoff (the 8-byte allreduce, 4 ranks on CPUs %s)\n", cpus);
        char pre[96];
        snprintf(pre, sizeof(pre), "taskset -c %s", cpus);
        cal_cmd4(cmd, sizeof(cmd), noprof, pre, "-t allreduce -s 8 -n 2000 -A zcopy_rd_allreduce");
        us = cal_median(cmd, "allreduce", 7, 10, "zcopy_rd_allreduce"); /* the mean */
        cal_set(&p, LC_PROF_HANDOFF, us > 2 * am_us ? (us / 2 - am_us) * 1e-6 : am_us * 1e-6);
    } else if (ncpu == 1 && alpha_us > 0) {
        fprintf(log, "calibrate: handoff (the 8-byte allreduce, both ranks on CPU %s)\n", cpus);
        char pre[96];
        snprintf(pre, sizeof(pre), "taskset -c %s", cpus);
        cal_cmd2(cmd, sizeof(cmd), noprof, pre,
                 "-t allreduce -s 8 -n 500 -A rhd_allreduce -m host");
        us = cal_median(cmd, "allreduce", 7, 0, NULL); /* the mean: it holds the slices */
        cal_set(&p, LC_PROF_HANDOFF, us > alpha_us ? (us - alpha_us) * 1e-6 : alpha_us * 1e-6);
    }

    fprintf(log, "calibrate: gamma (GF(2^8) lincomb, float sum), flops (dgemm 512)\n");
    cal_cmd1(cmd, sizeof(cmd), "-t gf -K 10 -M 4 -s 65536 -q 256");
    double gf = cal_median(cmd, "10+4", 6, 5, "lincomb");
    cal_set(&p, LC_PROF_GAMMA_GF, gf > 0 ? 1.0 / (gf * 1e9) : -1);
    cal_cmd1(cmd, sizeof(cmd), "-t reduce -s 1m");
    double red = cal_median(cmd, "float", 5, 2, "sum");
    cal_set(&p, LC_PROF_GAMMA_REDUCE, red > 0 ? 1.0 / (red * 1e9) : -1);
    double slower = gf > 0 && red > 0 ? (gf < red ? gf : red) : (gf > 0 ? gf : red);
    cal_set(&p, LC_PROF_GAMMA, slower > 0 ? 1.0 / (slower * 1e9) : -1);
    cal_cmd1(cmd, sizeof(cmd), "-t gemm -s 512 -n 3");
    double gflops = cal_median(cmd, "dgemm", 7, 0, NULL);
    cal_set(&p, LC_PROF_FLOPS, gflops * 1e9);

    static const lc_profile_key_t need[] = {LC_PROF_ALPHA, LC_PROF_BETA, LC_PROF_GAMMA};
    for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
        if (!lc_profile_has(&p, need[i])) {
            fprintf(stderr, "lincoll_info --calibrate: no value for %s (lincoll_perf failed?)\n",
                    lc_profile_key_name(need[i]));
            return 1;
        }
    }
    char host[128] = "this-machine";
    gethostname(host, sizeof(host) - 1);
    snprintf(p.name, sizeof(p.name), "%.63s", host);
    p.have |= 1u << LC_PROF_NAME;
    p.ports = 1;
    p.have |= 1u << LC_PROF_PORTS;

    char when[64], load[64] = "?", comment[512];
    time_t now = time(NULL);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%MZ", gmtime(&now));
    FILE *la = fopen("/proc/loadavg", "r");
    if (la != NULL) {
        if (fgets(load, sizeof(load), la) == NULL) snprintf(load, sizeof(load), "?");
        load[strcspn(load, "\n")] = '\0';
        fclose(la);
    }
    snprintf(comment, sizeof(comment),
             "machine profile of %s, measured %s by lincoll_info --calibrate\n"
             "(%ld CPUs online, /proc/loadavg %s); figures in seconds, seconds per byte,\n"
             "flop/s; the medians of %d runs (perf/calibrate.c says how each is measured)",
             host, when, sysconf(_SC_NPROCESSORS_ONLN), load, CAL_RUNS);

    /* write beside the target, then rename: readers never see half a profile */
    char tmp[PATH_MAX + 16];
    if (cal_mkdirs(out) != 0) {
        fprintf(stderr, "lincoll_info --calibrate: cannot create the directory of %s: %s\n", out,
                strerror(errno));
        return 1;
    }
    snprintf(tmp, sizeof(tmp), "%s.tmp%ld", out, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        fprintf(stderr, "lincoll_info --calibrate: %s: %s\n", tmp, strerror(errno));
        return 1;
    }
    int bad = lc_profile_write(f, &p, comment) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, out) != 0) {
        fprintf(stderr, "lincoll_info --calibrate: writing %s failed\n", out);
        unlink(tmp);
        return 1;
    }
    fprintf(log, "calibrate: wrote %s\n", out);
    return 0;
}
