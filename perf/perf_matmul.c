/*
 * perf/perf_matmul.c: lincoll_perf -t matmul -s N [-A ring|summa|cannon|25d] [-d float|double].
 *
 * C := A B + 0 C with n x n matrices in Cannon/SUMMA block distribution
 * (column-major) on the grid the algorithm needs: ring P x 1, SUMMA the most
 * square Pr x Pc, Cannon sqrt P x sqrt P, 2.5D q x q x c with the largest
 * c <= q.  Without -A the library chooses (cost model).  The plan is built
 * once and started warmup + iters times (default: about 2 s of work, at
 * least 3).  Reports GFLOP/s = 2 n^3 / median time, and, from a second plan
 * built with LINCOLL_MATMUL_COMM_ONLY (same transfers, no GEMMs), the
 * measured communication time against the plan's alpha-beta predictions
 * (network model: a round costs its largest message; one-host model: the
 * bytes a rank sends plus receives), and the words this rank moves beside the
 * algorithm's closed form.  A "# matmul-row" line carries the same figures
 * for perf/matmul_compare.sh.  Public headers only.
 */
#include <lincoll/lincoll.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_local.h"

static int grid_for(const char *algo, int P, int *pr, int *pc, int *c)
{
    *c = 1;
    if (algo != NULL && strcmp(algo, "ring") == 0) {
        *pr = P, *pc = 1;
        return 0;
    }
    if (algo != NULL && strcmp(algo, "25d") == 0) {
        for (int cc = P; cc >= 1; cc--) {
            if (P % cc) continue;
            int q = (int)lround(sqrt((double)(P / cc)));
            if (q * q * cc == P && cc <= q) {
                *pr = *pc = q, *c = cc;
                return 0;
            }
        }
        return -1;
    }
    int r = 1;
    for (int x = 1; x * x <= P; x++)
        if (P % x == 0) r = x;
    *pr = r, *pc = P / r;
    if (algo != NULL && strcmp(algo, "cannon") == 0 && *pr != *pc) return -1;
    return 0;
}

/* ---- closed forms of the words one rank moves (sent + received), as in
 * the core/matmul compilers and checked exactly by test/matmul/test_matmul_sim.c ---- */
static int64_t nroc(int64_t n, int64_t nb, int ip, int np)
{
    int64_t nbk = n / nb, r = (nbk / np) * nb, extra = nbk % np;
    if (ip < extra)
        r += nb;
    else if (ip == extra)
        r += n % nb;
    return r;
}

static int hib(int v)
{
    int b = -1;
    while (v > 0)
        v >>= 1, b++;
    return b;
}

static int kids(int v, int q)
{
    int n = 0;
    for (int t = v == 0 ? 0 : hib(v) + 1; (1 << t) < q; t++)
        n += v + (1 << t) < q;
    return n;
}

/* words rank r sends + receives for C = A B, n x n, block distribution on pr x pc x c */
static double formula_words(lincoll_matmul_algo_t algo, int64_t n, int pr, int pc, int c, int r,
                            const lincoll_matmul_info_t *in)
{
    const int i = (r / pc) % pr, j = r % pc, l = r / (pr * pc), P = pr * pc * c;
    const int64_t mb = (n + pr - 1) / pr, nb = (n + pc - 1) / pc;
    const int64_t mi = nroc(n, mb, i, pr), nj = nroc(n, nb, j, pc);
    double w = 0;
    switch (algo) {
    case LINCOLL_MATMUL_RING: /* (P-1) n^2/P each way */
        for (int L = 0; L + 1 < P; L++)
            w += (double)(n * nroc(n, mb, (r + L) % P, P) + n * nroc(n, mb, (r + L + 1) % P, P));
        break;
    case LINCOLL_MATMUL_SUMMA: { /* received mloc (k - kA_j) + nloc (k - kB_i); sent per bcast */
        const int tree = in->bcast == LINCOLL_MATMUL_BCAST_TREE;
        for (int o = 0; o < pc && pc > 1; o++) {
            int64_t ko = nroc(n, nb, o, pc);
            int v = (j - o + pc) % pc;
            w += (double)(mi * ko) * ((tree ? kids(v, pc) : v + 1 < pc) + (v != 0));
        }
        for (int o = 0; o < pr && pr > 1; o++) {
            int64_t ko = nroc(n, mb, o, pr);
            int v = (i - o + pr) % pr;
            w += (double)(ko * nj) * ((tree ? kids(v, pr) : v + 1 < pr) + (v != 0));
        }
        break;
    }
    case LINCOLL_MATMUL_CANNON:
    case LINCOLL_MATMUL_25D: { /* skew + q/c - 1 shifts of A and B blocks (+ layer bcast/reduce) */
        const int q = pr, t0 = l * q / c, ns = (l + 1) * q / c - t0, l0 = (i + j + t0) % q;
        int64_t kl[256];
        for (int x = 0; x < q && x < 256; x++)
            kl[x] = nroc(n, nb, x, q);
        if (l0 != j) w += (double)(mi * kl[j] + mi * kl[l0]);
        if (l0 != i) w += (double)(kl[i] * nj + kl[l0] * nj);
        for (int s = 0; s + 1 < ns; s++) {
            int x = (l0 + s) % q, y = (x + 1) % q;
            w += (double)((mi + nj) * (kl[x] + kl[y]));
        }
        if (c > 1) {
            double blk = (double)(mi * kl[j] + kl[i] * nj);
            w += blk * ((l > 0) + kids(l, c));
            for (int t = 0; (1 << t) < c; t++) {
                if (l % (1 << (t + 1)) == (1 << t)) {
                    w += (double)(mi * nj);
                    break;
                }
                if (l + (1 << t) < c) w += (double)(mi * nj);
            }
        }
        break;
    }
    default:
        break;
    }
    return w;
}

static int parse_algo(const char *s, lincoll_matmul_algo_t *a)
{
    *a = LINCOLL_MATMUL_AUTO;
    if (s == NULL) return 0;
    for (int i = 0; i < LINCOLL_MATMUL_ALGO_LAST; i++) {
        if (strcmp(s, lincoll_matmul_algo_name((lincoll_matmul_algo_t)i)) == 0) {
            *a = (lincoll_matmul_algo_t)i;
            return 0;
        }
    }
    fprintf(stderr, "lincoll_perf: unknown -A %s (ring, summa, cannon, 25d)\n", s);
    return -1;
}

int lc_perf_matmul(lincoll_context_t *ctx, lincoll_comm_t *comm, const perf_opts_t *o, size_t size,
                   long warmup, long iters, perf_result_t *r)
{
    (void)ctx;
    const int P = lincoll_comm_size(comm), me = lincoll_comm_rank(comm);
    lincoll_dtype_t dt = LINCOLL_DOUBLE;
    if (o->dtype != NULL && strcmp(o->dtype, "float") == 0)
        dt = LINCOLL_FLOAT;
    else if (o->dtype != NULL && strcmp(o->dtype, "double") != 0) {
        fprintf(stderr, "lincoll_perf: matmul takes -d float or double\n");
        return -1;
    }
    lincoll_matmul_algo_t algo;
    int pr, pc, c;
    if (parse_algo(o->algo, &algo) != 0) return -1;
    if (grid_for(o->algo, P, &pr, &pc, &c) != 0) {
        fprintf(stderr, "lincoll_perf: -A %s cannot run on %d ranks (square grid needed)\n",
                o->algo, P);
        return -1;
    }
    const int64_t n = (int64_t)size;
    lincoll_matdesc_t d;
    if (lincoll_matdesc_block(&d, n, n, pr, pc, c, LINCOLL_COL_MAJOR) != LINCOLL_OK) return -1;
    int64_t rows, cols, ld;
    lincoll_matdesc_local(&d, me, &rows, &cols, &ld);
    size_t es = lincoll_dtype_size(dt), cnt = (size_t)(rows * cols);
    void *a = calloc(cnt + 1, es), *b = calloc(cnt + 1, es), *cm = calloc(cnt + 1, es);
    if (a == NULL || b == NULL || cm == NULL) {
        free(a), free(b), free(cm);
        return -1;
    }
    for (size_t i = 0; i < cnt; i++) {
        double v = (double)((i * 2654435761u + (size_t)me) % 1000) / 1000.0 - 0.5;
        if (dt == LINCOLL_FLOAT)
            ((float *)a)[i] = (float)v, ((float *)b)[i] = (float)-v;
        else
            ((double *)a)[i] = v, ((double *)b)[i] = -v;
    }
    lincoll_matmul_opts_t opts = {.algo = algo};
    lincoll_plan_t *plan = NULL, *cplan = NULL;
    int rc = -1;
    double flops = 2.0 * (double)n * (double)n * (double)n;
    if (o->iters <= 0) {
        iters = (long)(2e9 * (double)P / flops * 50.0);
        if (iters < 3) iters = 3;
        if (iters > 200) iters = 200;
        warmup = 1;
    }
    double *samples = calloc((size_t)iters, sizeof(double));
    lincoll_status_t st =
        lincoll_matmul_init(comm, dt, 1.0, a, &d, b, &d, 0.0, cm, &d, &opts, &plan);
    opts.flags = LINCOLL_MATMUL_COMM_ONLY;
    if (st == LINCOLL_OK)
        st = lincoll_matmul_init(comm, dt, 1.0, a, &d, b, &d, 0.0, cm, &d, &opts, &cplan);
    if (st != LINCOLL_OK || samples == NULL) {
        fprintf(stderr, "lincoll_perf: matmul_init: %s\n", lincoll_strerror(st));
        goto out;
    }
    lincoll_matmul_info_t info;
    lincoll_matmul_info(plan, &info);
    /* communication alone first (same transfers, no GEMMs) */
    if (lc_perf_run_plan(cplan, warmup, iters, samples) != 0) goto out;
    perf_result_t cr;
    memset(&cr, 0, sizeof(cr));
    lc_perf_summarize(samples, iters, 1.0, 0, 0, &cr);
    if (lc_perf_run_plan(plan, warmup, iters, samples) != 0) goto out;
    lc_perf_summarize(samples, iters, 1.0, (size_t)(info.words_sent * es), (double)info.msgs_sent,
                      r);
    snprintf(r->algo, sizeof(r->algo), "%s", lincoll_matmul_algo_name(info.algo));
    r->predicted_us = info.predicted_comm_us;
    r->pred_measured_us = cr.p50_us;
    r->pred_of = "communication";
    if (me == 0) {
        char why[96] = "";
        int cmp = lc_perf_model_comparable(&cr, NULL, why, sizeof(why));
        double fw = formula_words(info.algo, n, pr, pc, c, me, &info);
        double pw = (double)(info.words_sent + info.words_recvd);
        printf("# matmul n=%lld %s P=%d grid %dx%dx%d algo %s: %.2f GFLOP/s (median %.1f us); "
               "words/rank sent %llu recvd %llu (formula %.0f), msgs %llu, memory %.1f MiB; comm "
               "only: measured %.1f us, predicted %.1f us network (ratio %.2f), %.1f us one host "
               "(ratio %.2f)%s%s\n",
               (long long)n, lincoll_dtype_name(dt), P, pr, pc, c,
               lincoll_matmul_algo_name(info.algo), flops / (r->p50_us * 1e3), r->p50_us,
               (unsigned long long)info.words_sent, (unsigned long long)info.words_recvd, fw,
               (unsigned long long)info.msgs_sent, (double)info.memory_bytes / 1048576.0, cr.p50_us,
               info.predicted_comm_us,
               info.predicted_comm_us > 0 ? cr.p50_us / info.predicted_comm_us : 0.0,
               info.predicted_comm_host_us,
               info.predicted_comm_host_us > 0 ? cr.p50_us / info.predicted_comm_host_us : 0.0,
               cmp ? "" : "; not compared: ", why);
        /* one line for scripts (perf/matmul_compare.sh) */
        printf("# matmul-row algo=%s P=%d n=%lld grid=%dx%dx%d gflops=%.3f words_plan=%.0f "
               "words_formula=%.0f comm_us=%.1f pred_net_us=%.1f pred_host_us=%.1f "
               "mem_bytes=%llu\n",
               lincoll_matmul_algo_name(info.algo), P, (long long)n, pr, pc, c,
               flops / (r->p50_us * 1e3), pw, fw, cr.p50_us, info.predicted_comm_us,
               info.predicted_comm_host_us, (unsigned long long)info.memory_bytes);
        fflush(stdout);
    }
    rc = 0;
out:
    lincoll_plan_free(plan);
    lincoll_plan_free(cplan);
    free(samples), free(a), free(b), free(cm);
    return rc;
}
