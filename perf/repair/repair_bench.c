/*
 * perf/repair/repair_bench.c: lincoll_repair_bench, the repair of one lost
 * chunk on the k survivors and a replacement (lincoll_encode_repair_k_init)
 * with the star, tree and chain schedules, beside the time to read one
 * chunk over one link (ECPipe's reference point), in the same run.
 *
 *   lincoll_repair_bench [-s SIZE] [-n REPS] [-w WARMUP] [-A star,tree,chain]
 *                        [--slice BYTES] [--nap US] [-f csv] [-v] [--calibrate N]
 *
 * W ranks (a launcher: lincoll-run, deploy/emucluster): k = W - 1 survivors
 * and the replacement, rank W - 1.  An [k + 2, k] Cauchy code over GF(2^8):
 * rank i < k holds codeword row i + 1 (data rows 1 .. k - 1 and the first
 * parity row, computed block by block), the replacement rebuilds data row 0.
 * Every plan is built once; each repetition runs, in an order rotated from
 * one repetition to the next, the read (rank 0 sends its chunk to the
 * replacement: one point-to-point plan) and each schedule, each after a
 * barrier, timed as the slowest rank's start-to-completion.  After the
 * warmup the replacement checks the rebuilt chunk against data row 0 (exit
 * 1 when it differs).  Per measurement: the median, the fastest and the
 * slowest time, the ratio of the medians to the read's, the CPU the ranks
 * used (getrusage of every rank, summed, over the wall time and the online
 * cores: 1.0 = every core busy with lincoll) and the machine's busy share
 * over the same interval (/proc/stat: everything that ran, other users
 * included), and the closed-form prediction (lincoll_encode_repair_cost()
 * under LINCOLL_MODEL_*).  --nap US: wait by lincoll_test() and a sleep of
 * US microseconds instead of lincoll_wait()'s spin (ranks that share few
 * cores leave them to the kernel's network path).  -v: every sample on
 * stderr as it is taken.  --calibrate N: measure only the latency of a
 * round in which every rank sends and receives 8 bytes (N ring shifts, the
 * median of the slowest rank's), print "alpha_s SECONDS" and exit: the alpha
 * the chain's rounds pay on this machine.  Public headers only.
 */
#include <lincoll/encode.h>
#include <lincoll/lincoll.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int me = -1;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* busy and total jiffies of the machine (/proc/stat "cpu" line) */
static void machine_jiffies(double *busy, double *total)
{
    unsigned long long v[10] = {0};
    *busy = *total = 0;
    FILE *f = fopen("/proc/stat", "r");
    if (f == NULL) return;
    if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
               &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) >= 8) {
        for (int i = 0; i < 8; i++)
            *total += (double)v[i];
        *busy = *total - (double)v[3] - (double)v[4]; /* idle, iowait */
    }
    fclose(f);
}

static uint64_t mix(uint64_t a, uint64_t b)
{
    uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 29);
}

/* bytes [off, off + len) of data row j (8-byte aligned off) */
static void data_block(int j, size_t off, size_t len, uint8_t *out)
{
    for (size_t i = 0; i < len; i += 8) {
        uint64_t v = mix((uint64_t)j + 1, (off + i) / 8);
        memcpy(out + i, &v, len - i < 8 ? len - i : 8);
    }
}

/* codeword row `row` of the [n, k] code (data rows generated, parity rows
 * encoded block by block) */
static int make_row(const lincoll_field_t *f, int n, int k, int row, size_t B, uint8_t *out)
{
    if (row < k) {
        data_block(row, 0, B, out);
        return 0;
    }
    uint64_t *G = malloc(sizeof(uint64_t) * (size_t)n * (size_t)k);
    const size_t blk = (size_t)1 << 20;
    uint8_t **d = calloc((size_t)k, sizeof(*d));
    int rc = G && d ? 0 : -1;
    for (int j = 0; rc == 0 && j < k; j++)
        if ((d[j] = malloc(blk)) == NULL) rc = -1;
    if (rc == 0 && lincoll_gf_matrix_systematic(f, n, k, LINCOLL_GF_RS_CAUCHY, G) != LINCOLL_OK)
        rc = -1;
    for (size_t o = 0; rc == 0 && o < B; o += blk) {
        size_t l = B - o < blk ? B - o : blk;
        for (int j = 0; j < k; j++)
            data_block(j, o, l, d[j]);
        void *dst = out + o;
        if (lincoll_gf_encode(f, k, 1, G + (size_t)row * (size_t)k, l, (const void *const *)d,
                              &dst) != LINCOLL_OK)
            rc = -1;
    }
    for (int j = 0; d && j < k; j++)
        free(d[j]);
    free(d);
    free(G);
    return rc;
}

static lincoll_status_t wait_plan(lincoll_plan_t *p, long nap_us)
{
    if (nap_us <= 0) return lincoll_wait(p);
    struct timespec ts = {0, nap_us * 1000};
    lincoll_status_t st;
    while ((st = lincoll_test(p)) == LINCOLL_INPROGRESS)
        nanosleep(&ts, NULL);
    return st;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n == 0 ? 0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

static size_t parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (*end == 'k' || *end == 'K') v *= 1024;
    if (*end == 'm' || *end == 'M') v *= 1024 * 1024;
    if (*end == 'g' || *end == 'G') v *= 1024.0 * 1024 * 1024;
    return v > 0 ? (size_t)v : 0;
}

enum { M_READ = 0, M_STAR, M_TREE, M_CHAIN, M_N };
static const char *const m_names[M_N] = {"read", "star", "tree", "chain"};

int main(int argc, char **argv)
{
    size_t B = (size_t)64 << 20, slice = 0;
    long reps = 5, warm = 1, nap = 0, calibrate = 0;
    int csv = 0, verbose = 0, want[M_N] = {1, 1, 1, 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-s") == 0 && v) {
            B = parse_size(v), i++;
        } else if (strcmp(a, "-n") == 0 && v) {
            reps = atol(v), i++;
        } else if (strcmp(a, "-w") == 0 && v) {
            warm = atol(v), i++;
        } else if (strcmp(a, "--slice") == 0 && v) {
            slice = parse_size(v), i++;
        } else if (strcmp(a, "--nap") == 0 && v) {
            nap = atol(v), i++;
        } else if (strcmp(a, "--calibrate") == 0 && v) {
            calibrate = atol(v), i++;
        } else if (strcmp(a, "-v") == 0) {
            verbose = 1;
        } else if (strcmp(a, "-f") == 0 && v) {
            csv = strcmp(v, "csv") == 0, i++;
        } else if (strcmp(a, "-A") == 0 && v) {
            for (int m = M_STAR; m < M_N; m++)
                want[m] = strstr(v, m_names[m]) != NULL || strcmp(v, "all") == 0;
            i++;
        } else {
            fprintf(stderr,
                    "lincoll_repair_bench: unknown option %s\nusage: lincoll_repair_bench [-s "
                    "SIZE] [-n REPS] [-w WARMUP] [-A star,tree,chain|all] [--slice BYTES] "
                    "[--nap US] [-f csv] [-v] [--calibrate N]\n",
                    a);
            return 2;
        }
    }
    if (B == 0 || B % 8 != 0 || reps < 1 || warm < 0) {
        fprintf(stderr, "lincoll_repair_bench: -s must be a positive multiple of 8, -n >= 1, "
                        "-w >= 0\n");
        return 2;
    }
    lincoll_context_t *ctx;
    lincoll_comm_t *w;
    if (lincoll_init(NULL, &ctx) != LINCOLL_OK) return 1;
    lincoll_comm_world(ctx, &w);
    me = lincoll_comm_rank(w);
    const int W = lincoll_comm_size(w), k = W - 1, n = k + 2, repl = W - 1;
    if (W < 2) {
        fprintf(stderr, "lincoll_repair_bench: needs 2 or more ranks (k survivors + 1)\n");
        lincoll_finalize(ctx);
        return 2;
    }
    if (calibrate > 0) { /* alpha: an 8-byte ring shift, every rank sending and receiving */
        uint64_t sb = 1, rb = 0;
        lincoll_plan_t *p;
        double *t = calloc((size_t)calibrate, sizeof(double)), a = 0;
        lincoll_status_t cs = lincoll_ring_shift_init(w, &sb, &rb, 8, 1, &p);
        for (long i = -10; cs == LINCOLL_OK && i < calibrate; i++) {
            double t0 = now();
            cs = lincoll_start(p);
            if (cs == LINCOLL_OK) cs = wait_plan(p, nap);
            if (i >= 0) t[i] = now() - t0;
        }
        if (cs == LINCOLL_OK) lincoll_plan_free(p);
        double m = cs == LINCOLL_OK ? median(t, (int)calibrate) : -1;
        lincoll_allreduce(w, &m, &a, 1, LINCOLL_DOUBLE, LINCOLL_MAX);
        if (me == 0) printf("alpha_s %.9f\n", a);
        free(t);
        lincoll_finalize(ctx);
        return cs == LINCOLL_OK ? 0 : 1;
    }
    lincoll_field_t *f;
    lincoll_gf_field_create(256, &f);
    int *holds = malloc(sizeof(int) * (size_t)W), *needs = malloc(sizeof(int) * (size_t)W);
    for (int i = 0; i < W; i++) {
        holds[i] = i < k ? i + 1 : -1;
        needs[i] = i < k ? -1 : 0;
    }
    uint8_t *in = aligned_alloc(64, B), *out = aligned_alloc(64, B);
    int rc = 0;
    memset(out, 0, B);
    if (me < k && make_row(f, n, k, holds[me], B, in) != 0) rc = 1;
    if (me == repl) memset(in, 0, B);
    /* the plans: the read and one per schedule */
    lincoll_plan_t *plans[M_N] = {NULL};
    lincoll_status_t st = LINCOLL_OK;
    if (me == 0 || me == repl)
        st = lincoll_sendrecv_init(w, me == 0 ? in : NULL, me == 0 ? B : 0, me == 0 ? repl : -1,
                                   me == repl ? out : NULL, me == repl ? B : 0, me == repl ? 0 : -1,
                                   LINCOLL_SENDRECV_CONCURRENT, &plans[M_READ]);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "lincoll_repair_bench: rank %d: read plan: %s\n", me, lincoll_strerror(st));
        rc = 1;
    }
    static const lincoll_repair_algo_t algos[M_N] = {
        LINCOLL_REPAIR_ALGO_AUTO, LINCOLL_REPAIR_ALGO_STAR, LINCOLL_REPAIR_ALGO_TREE,
        LINCOLL_REPAIR_ALGO_CHAIN};
    lincoll_repair_cost_t cost[M_N];
    memset(cost, 0, sizeof(cost));
    for (int m = M_STAR; m < M_N && rc == 0; m++) {
        if (!want[m]) continue;
        lincoll_repair_opts_t o = {.ports = 1, .algo = algos[m], .slice_bytes = slice};
        st = lincoll_encode_repair_k_init(w, f, n, k, LINCOLL_GF_RS_CAUCHY, NULL, holds, needs, B,
                                          in, out, &o, &plans[m]);
        if (st != LINCOLL_OK) {
            fprintf(stderr, "lincoll_repair_bench: rank %d: %s: %s\n", me, m_names[m],
                    lincoll_strerror(st));
            rc = 1;
        }
        lincoll_encode_repair_cost(ctx, k, 1, 0, 1, B, algos[m], slice, NULL, &cost[m]);
    }
    double *samp[M_N], *cpu[M_N], *mach[M_N];
    for (int m = 0; m < M_N; m++) {
        samp[m] = calloc((size_t)reps, sizeof(double));
        cpu[m] = calloc((size_t)reps, sizeof(double));
        mach[m] = calloc((size_t)reps, sizeof(double));
    }
    const double cores = (double)sysconf(_SC_NPROCESSORS_ONLN);
    uint8_t *expect = me == repl ? aligned_alloc(64, B) : NULL;
    if (expect) data_block(0, 0, B, expect);
    for (long it = 0; rc == 0 && it < warm + reps; it++) {
        for (int j = 0; rc == 0 && j < M_N; j++) {
            const int m = (int)((j + it) % M_N); /* rotated order */
            if (m != M_READ && !want[m]) continue;
            if (lincoll_barrier(w) != LINCOLL_OK) rc = 1;
            double b0, t0j, b1, t1j;
            machine_jiffies(&b0, &t0j);
            const double c0 = cpu_seconds(), t0 = now();
            if (me == 0 && it == 0) fprintf(stderr, "lincoll_repair_bench: %s ...\n", m_names[m]);
            if (plans[m] != NULL) {
                memset(out, 0, me == repl ? B : 0);
                st = lincoll_start(plans[m]);
                if (st == LINCOLL_OK) st = wait_plan(plans[m], nap);
                if (st != LINCOLL_OK) {
                    fprintf(stderr, "lincoll_repair_bench: rank %d: %s: %s\n", me, m_names[m],
                            lincoll_strerror(st));
                    rc = 1;
                }
            }
            double mine[2] = {now() - t0, cpu_seconds() - c0}, tmax[2], csum[2];
            machine_jiffies(&b1, &t1j);
            if (lincoll_allreduce(w, mine, tmax, 1, LINCOLL_DOUBLE, LINCOLL_MAX) != LINCOLL_OK ||
                lincoll_allreduce(w, mine + 1, csum, 1, LINCOLL_DOUBLE, LINCOLL_SUM) != LINCOLL_OK)
                rc = 1;
            if (m != M_READ && (it == warm - 1 || (warm == 0 && it == 0)) && me == repl &&
                rc == 0 && memcmp(out, expect, B) != 0) {
                fprintf(stderr, "lincoll_repair_bench: %s: the rebuilt chunk is wrong\n",
                        m_names[m]);
                rc = 1;
            }
            if (verbose && me == 0)
                fprintf(stderr, "lincoll_repair_bench: rep %ld %s: %.4f s, cpu %.3f\n", it,
                        m_names[m], tmax[0], csum[0] / (tmax[0] * cores));
            if (it >= warm) {
                samp[m][it - warm] = tmax[0];
                cpu[m][it - warm] = csum[0] / (tmax[0] * cores);
                mach[m][it - warm] = t1j > t0j ? (b1 - b0) / (t1j - t0j) : 0;
            }
        }
    }
    /* every rank learns whether any failed */
    int bad = rc, anybad = 0;
    lincoll_allreduce(w, &bad, &anybad, 1, LINCOLL_INT32, LINCOLL_MAX);
    if (me == 0 && anybad == 0) {
        double read = median(samp[M_READ], (int)reps);
        if (csv)
            printf("test,k,size,what,algo,slices,reps,p50_s,min_s,max_s,ratio_read,cpu_procs,"
                   "cpu_machine,pred_s,nap_us\n");
        else
            printf("# repair of one lost chunk: k=%d survivors + 1 replacement, %zu-byte chunks, "
                   "%ld reps (median), %.0f cores\n"
                   "# %-6s %-13s %7s %10s %10s %10s %8s %9s %9s %10s\n",
                   k, B, reps, cores, "what", "plan", "slices", "p50_s", "min_s", "max_s", "x_read",
                   "cpu_lc", "cpu_all", "pred_s");
        for (int m = 0; m < M_N; m++) {
            if (m != M_READ && !want[m]) continue;
            lincoll_plan_stats_t ps = {.algorithm = "sendrecv"};
            unsigned nch = 1;
            if (m != M_READ && plans[m] != NULL) {
                lincoll_plan_stats(plans[m], &ps);
                lincoll_encode_chunks(plans[m], &nch, NULL);
            }
            double p50 = median(samp[m], (int)reps), lo = samp[m][0], hi = samp[m][reps - 1];
            double cp = median(cpu[m], (int)reps), ma = median(mach[m], (int)reps);
            double pred = m == M_READ ? 0 : cost[m].seconds;
            if (csv)
                printf("repair,%d,%zu,%s,%s,%u,%ld,%.6f,%.6f,%.6f,%.4f,%.3f,%.3f,%.6f,%ld\n", k, B,
                       m_names[m], ps.algorithm, nch, reps, p50, lo, hi, p50 / read, cp, ma, pred,
                       nap);
            else
                printf("  %-6s %-13s %7u %10.4f %10.4f %10.4f %8.3f %9.3f %9.3f %10.4f\n",
                       m_names[m], ps.algorithm, nch, p50, lo, hi, p50 / read, cp, ma, pred);
        }
        fflush(stdout);
    }
    for (int m = 0; m < M_N; m++) {
        lincoll_plan_free(plans[m]);
        free(samp[m]);
        free(cpu[m]);
        free(mach[m]);
    }
    free(expect);
    free(in);
    free(out);
    free(holds);
    free(needs);
    lincoll_gf_field_destroy(f);
    lincoll_finalize(ctx);
    return anybad ? 1 : 0;
}
