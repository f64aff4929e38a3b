/*
 * perf/perf_encode.c: lincoll_perf -t encode [-K k] [-p ports] [-A algo] -s sizes.
 *
 * All-to-all encode of a random K x K matrix over GF(2^8) (K = -K, default
 * all ranks; the first K ranks take part), `size` = packet bytes per rank.
 * -A auto|prepare_shoot|best_window|direct|zcopy|specific|dft: the algorithm
 * (specific/dft: the DFT over the prime 65537 when K = (p+1)^L, natural
 * order off, else the universal choice).  Packets are lincoll_mem_alloc
 * memory (so zcopy, the peers' packets read in place, can run: one node),
 * or malloc memory with -m host.  The row's algo column is the plan that
 * ran (a forced zcopy that cannot run falls back, and says so).  The plan is built once and
 * started warmup + iters times (rank 0's timing).  In the same run:
 *  - the direct baseline (the same matrix, -A direct) is timed (not with
 *    -b 0: direct_us then reads 0);
 *  - alpha and tau are LINCOLL_MODEL_ALPHA and 1/LINCOLL_MODEL_BW when both
 *    are set (perf/encode_sweep.sh sets them from tag_lat and put_bw), else
 *    calibrated with the ring shift one encode round is made of (every rank
 *    sends one message to rank+1 and receives one): alpha = time of an
 *    8-byte shift, tau = (time of a 4 MiB shift - alpha) / 4 MiB;
 *  - the prediction is C1 alpha + C2 tau (C1, C2 from lincoll_plan_stats():
 *    the schedule's per-packet figures, also for chunked plans);
 *  - the model's choice: what -A auto compiles for the same call (the
 *    library's cost model, LINCOLL_MODEL_*, GF work included).
 * The table row gets the algorithm and this prediction; a comment line
 * "# encode K=.. p=.. size=..: <algo> C1 C2 predicted, direct p50" follows,
 * and a machine-readable one that perf/encode_sweep.sh reads:
 * "#encode K= p= size= algo= chunks= C1= C2= p50_us= pred_us= direct_us=
 *  model_us= choice= cal=".
 * Public headers only.
 */
#include <lincoll/encode.h>
#include <lincoll/lincoll.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_local.h"

static double cal_alpha = -1, cal_tau = -1;
static const char *cal_src = "shift";

/* The value of a configuration variable the environment sets, as the
 * library's table reports it (lincoll_config_var), or NULL. */
static const char *config_value(lincoll_config_id_t id)
{
    lincoll_config_var_t v;
    return lincoll_config_var(id, &v) == LINCOLL_OK ? v.current : NULL;
}

/* alpha and tau from LINCOLL_MODEL_ALPHA / LINCOLL_MODEL_BW when both are set
 * (lincoll_init has checked them: they parse as positive numbers) */
static int env_model(void)
{
    const char *a = config_value(LINCOLL_CONFIG_MODEL_ALPHA),
               *b = config_value(LINCOLL_CONFIG_MODEL_BW);
    if (a == NULL || b == NULL) return 0;
    double av = atof(a), bv = atof(b);
    if (!(av > 0) || !(bv > 0)) return 0;
    cal_alpha = av * 1e6;
    cal_tau = 1e6 / bv;
    cal_src = "env";
    return 1;
}

static double shift_time(lincoll_context_t *ctx, lincoll_comm_t *comm, size_t bytes)
{
    void *a = NULL, *b = NULL;
    double t = -1;
    if (lincoll_mem_alloc(ctx, bytes, &a) != LINCOLL_OK ||
        lincoll_mem_alloc(ctx, bytes, &b) != LINCOLL_OK)
        return -1;
    lincoll_plan_t *plan;
    if (lincoll_ring_shift_init(comm, a, b, bytes, 1, &plan) == LINCOLL_OK) {
        long iters = bytes > 65536 ? 20 : 200;
        double *s = malloc(sizeof(double) * (size_t)iters);
        if (s != NULL && lc_perf_run_plan(plan, iters / 10 + 1, iters, s) == 0) {
            perf_result_t r;
            lc_perf_summarize(s, iters, 1.0, bytes, 1, &r);
            t = r.p50_us;
        }
        free(s);
        lincoll_plan_free(plan);
    }
    lincoll_mem_free(ctx, a);
    lincoll_mem_free(ctx, b);
    return t;
}

static int time_plan(lincoll_plan_t *plan, long warmup, long iters, size_t size, perf_result_t *r)
{
    double *s = malloc(sizeof(double) * (size_t)iters);
    int rc = s == NULL ? -1 : lc_perf_run_plan(plan, warmup, iters, s);
    if (rc == 0) lc_perf_summarize(s, iters, 1.0, size, 1, r);
    free(s);
    return rc;
}

int lc_perf_encode(lincoll_context_t *ctx, lincoll_comm_t *comm, const perf_opts_t *o, size_t size,
                   long warmup, long iters, perf_result_t *r)
{
    int P = lincoll_comm_size(comm), me = lincoll_comm_rank(comm);
    int K = o->K > 0 && o->K < P ? o->K : P, p = o->ports > 0 ? o->ports : 1;
    lincoll_comm_t *g = comm;
    if (K < P && lincoll_comm_split(comm, me < K ? 0 : 1, me, &g) != LINCOLL_OK) return -1;
    int rc = 0;
    if (me < K) {
        if (cal_alpha < 0 && K > 1 && !env_model()) { /* once per run */
            double t8 = shift_time(ctx, g, 8), t4m = shift_time(ctx, g, 4u << 20);
            cal_alpha = t8;
            cal_tau = (t4m - t8) / (double)(4u << 20);
        }
        lincoll_encode_algo_t algo = LINCOLL_ENCODE_ALGO_AUTO;
        int dft = 0;
        const char *an = o->algo ? o->algo : "auto";
        for (int i = 0; i < LINCOLL_ENCODE_ALGO_LAST; i++)
            if (strcmp(an, lincoll_encode_algo_name((lincoll_encode_algo_t)i)) == 0)
                algo = (lincoll_encode_algo_t)i;
        if (strcmp(an, "dft") == 0 || algo == LINCOLL_ENCODE_ALGO_SPECIFIC) {
            dft = 1; /* the DFT's own schedule (falls back when K is not a power of p+1) */
            algo = LINCOLL_ENCODE_ALGO_SPECIFIC;
        }
        lincoll_field_t *f8, *fp;
        lincoll_gf_field_create(256, &f8);
        lincoll_gf_field_create(65537, &fp);
        size_t B = size < 4 ? 4 : size & ~(size_t)3; /* also a whole number of 65537 elements */
        uint64_t *A = malloc(8 * (size_t)K * (size_t)K);
        for (int i = 0; i < K * K; i++)
            A[i] = (uint64_t)(i * 2654435761u >> 7) % 256;
        /* -m host: malloc buffers (no zcopy); in filled with 1s */
        lc_perf_bufs_t bf;
        if (lc_perf_bufs_alloc(&bf, ctx, B, o->host_mem) != 0) rc = -1;
        void *in = bf.a, *out = bf.b;
        lincoll_encode_opts_t eo = {.ports = p, .algo = algo};
        lincoll_plan_t *plan = NULL, *base = NULL;
        lincoll_status_t st = LINCOLL_ERR_INVALID;
        if (rc == 0 && dft) {
            memset(in, 0, B);
            st = lincoll_encode_dft_init(g, fp, LINCOLL_ENCODE_DFT_NATURAL, B, in, out, &eo, &plan);
        } else if (rc == 0) {
            st = lincoll_encode_init(g, f8, A, K, K, B, in, out, &eo, &plan);
        }
        if (rc == 0 && st != LINCOLL_OK) {
            fprintf(stderr, "lincoll_perf: encode init (-A %s): %s\n", an, lincoll_strerror(st));
            rc = -1;
        }
        lincoll_encode_opts_t bo = {.ports = p, .algo = LINCOLL_ENCODE_ALGO_DIRECT};
        if (rc == 0 && !o->no_baseline &&
            lincoll_encode_init(g, f8, A, K, K, B, in, out, &bo, &base) != LINCOLL_OK)
            rc = -1;
        /* the model's choice for the same call (compiled only, never started) */
        char choice[32] = "?";
        lincoll_encode_opts_t ao = {.ports = p, .algo = LINCOLL_ENCODE_ALGO_AUTO};
        lincoll_plan_t *ap = NULL;
        if (rc == 0 &&
            (dft ? lincoll_encode_dft_init(g, fp, LINCOLL_ENCODE_DFT_NATURAL, B, in, out, &ao, &ap)
                 : lincoll_encode_init(g, f8, A, K, K, B, in, out, &ao, &ap)) == LINCOLL_OK) {
            lincoll_plan_stats_t as;
            lincoll_plan_stats(ap, &as);
            snprintf(choice, sizeof(choice), "%s", as.algorithm);
            lincoll_plan_free(ap);
        }
        perf_result_t rb = {0};
        if (rc == 0) rc = time_plan(plan, warmup, iters, B, r);
        if (rc == 0 && base != NULL) rc = time_plan(base, warmup, iters, B, &rb);
        if (rc == 0) {
            lincoll_plan_stats_t s;
            lincoll_plan_stats(plan, &s);
            snprintf(r->algo, sizeof(r->algo), "%s", s.algorithm);
            r->predicted_us =
                K > 1 ? (double)s.rounds * cal_alpha + (double)s.c2_bytes * cal_tau : 0.0;
            unsigned nch = 1;
            lincoll_encode_chunks(plan, &nch, NULL);
            if (me == 0) {
                char note[80], why[112];
                if (r->predicted_us <= 0)
                    snprintf(why, sizeof(why), "; no prediction");
                else if (lc_perf_model_comparable(r, NULL, note, sizeof(note)))
                    snprintf(why, sizeof(why), "; measured / predicted %.2f",
                             r->p50_us / r->predicted_us);
                else
                    snprintf(why, sizeof(why), "; not compared: %s", note);
                printf("# encode K=%d p=%d size=%zu: %s C1=%u C2=%llu chunks=%u predicted %.1f us "
                       "(alpha %.2f us, tau %.4f us/KiB, %s)%s | direct p50 %.1f us (model's own "
                       "%.1f us) | model's choice %s\n",
                       K, p, B, s.algorithm, s.rounds, (unsigned long long)s.c2_elems, nch,
                       r->predicted_us, cal_alpha, cal_tau * 1024, cal_src, why, rb.p50_us,
                       s.predicted_us, choice);
                printf("#encode K=%d p=%d size=%zu algo=%s chunks=%u C1=%u C2=%llu p50_us=%.3f "
                       "pred_us=%.3f direct_us=%.3f model_us=%.3f choice=%s cal=%s\n",
                       K, p, B, s.algorithm, nch, s.rounds, (unsigned long long)s.c2_elems,
                       r->p50_us, r->predicted_us, rb.p50_us, s.predicted_us, choice, cal_src);
            }
        }
        lincoll_plan_free(plan);
        lincoll_plan_free(base);
        lc_perf_bufs_free(&bf);
        free(A);
        lincoll_gf_field_destroy(f8);
        lincoll_gf_field_destroy(fp);
    }
    if (g != comm) lincoll_comm_free(g);
    return rc;
}
