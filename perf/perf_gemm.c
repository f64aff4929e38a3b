/*
 * perf/perf_gemm.c: lincoll_perf -t gemm, GFLOP/s of lincoll_gemm() beside
 * OpenBLAS in the same run.
 *
 * Each case runs lincoll and the anchor alternately (warm-up, then -n rounds
 * of one call each), and reports the median time of each as GFLOP/s and the
 * ratio.  The anchor is cblas_?gemm from libopenblas.so.0, loaded with dlopen
 * when present (set OPENBLAS_NUM_THREADS=1 and unset OPENBLAS_CORETYPE so it
 * picks its AVX-512 kernel, as the anchors of
 * perf/anchors/ do).  -a 0 skips it.
 *
 * Options:
 *   -s LIST   shapes: N (square) or MxNxK, comma separated
 *             (default: 1024,2048 NN; 2048 TN/NT/TT; 2048x64x2048, 2048x2048x64)
 *   -d d|s|ds element types (default ds)
 *   -T LIST   transposes per case: N, T, NN, NT, TN, TT (default NN unless -s is absent)
 *   -L r|c    row-major (default, as the anchor) or column-major
 *   -n N      timed rounds per side (default 5; the median is reported)
 *   -a 0|1    run the OpenBLAS anchor (default 1)
 *   -f csv    CSV instead of a table
 * Flops are 2 m n k; C := A B + C (alpha = beta = 1, as the anchor).
 */
#include <lincoll/gemm.h>
#include <lincoll/lincoll.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <immintrin.h>

#include "perf_local.h"

typedef void (*cblas_dgemm_fn)(int, int, int, int, int, int, double, const double *, int,
                               const double *, int, double, double *, int);
typedef void (*cblas_sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                               const float *, int, float, float *, int);

static struct {
    void *lib;
    cblas_dgemm_fn dgemm;
    cblas_sgemm_fn sgemm;
    const char *core;
} ob;

static void perf_ob_open(void)
{
    ob.lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (ob.lib == NULL) return;
    ob.dgemm = (cblas_dgemm_fn)dlsym(ob.lib, "cblas_dgemm");
    ob.sgemm = (cblas_sgemm_fn)dlsym(ob.lib, "cblas_sgemm");
    void (*set_threads)(int) = (void (*)(int))dlsym(ob.lib, "openblas_set_num_threads");
    char *(*corename)(void) = (char *(*)(void))dlsym(ob.lib, "openblas_get_corename");
    if (set_threads != NULL) set_threads(1);
    ob.core = corename != NULL ? corename() : "?";
    if (ob.dgemm == NULL || ob.sgemm == NULL) ob.lib = NULL;
}

/* DP FMA peak of one core (24 independent zmm FMA chains), GFLOP/s; 0 without AVX-512. */
__attribute__((target("avx512f,fma"))) static double perf_peak_avx512(void)
{
    __m512d acc[24];
    const __m512d x = _mm512_set1_pd(1.0000001), y = _mm512_set1_pd(0.9999999);
    for (int i = 0; i < 24; i++)
        acc[i] = _mm512_set1_pd(i);
    const long iters = 4000000;
    double best = 0;
    for (int r = 0; r < 3; r++) {
        double t0 = lc_perf_now();
        for (long it = 0; it < iters; it++) {
#pragma GCC unroll 24
            for (int i = 0; i < 24; i++)
                acc[i] = _mm512_fmadd_pd(acc[i], x, y);
        }
        double g = iters * 24.0 * 16 / (lc_perf_now() - t0) / 1e9;
        if (g > best) best = g;
    }
    double sink = 0, v[8];
    for (int i = 0; i < 24; i++) {
        _mm512_storeu_pd(v, acc[i]);
        sink += v[0];
    }
    return sink == 12345.678 ? 0 : best;
}

static double perf_peak(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") ? perf_peak_avx512() : 0;
}

typedef struct perf_case {
    int64_t m, n, k;
    char ta, tb;
} perf_case_t;

static int perf_parse_trans(const char *s, char *ta, char *tb)
{
    size_t l = strlen(s);
    if (l == 1 && (s[0] == 'N' || s[0] == 'T')) {
        *ta = *tb = s[0];
        return 0;
    }
    if (l == 2 && (s[0] == 'N' || s[0] == 'T') && (s[1] == 'N' || s[1] == 'T')) {
        *ta = s[0];
        *tb = s[1];
        return 0;
    }
    return -1;
}

static void perf_fill(void *p, size_t count, char dt, unsigned seed)
{
    srand(seed);
    for (size_t i = 0; i < count; i++) {
        double v = (double)rand() / RAND_MAX - 0.5;
        if (dt == 'd') {
            ((double *)p)[i] = v;
        } else {
            ((float *)p)[i] = (float)v;
        }
    }
}

static int perf_run_case(const perf_case_t *pc, char dt, int row_major, int rounds, int anchor,
                         int csv, double peak)
{
    int64_t m = pc->m, n = pc->n, k = pc->k;
    int ta = pc->ta == 'T', tb = pc->tb == 'T';
    size_t es = dt == 'd' ? 8 : 4;
    /* Stored shapes (rows x cols in the chosen layout's leading-dimension sense). */
    int64_t a_r = ta ? k : m, a_c = ta ? m : k, b_r = tb ? n : k, b_c = tb ? k : n;
    int64_t lda = row_major ? a_c : a_r, ldb = row_major ? b_c : b_r, ldc = row_major ? n : m;
    void *a = aligned_alloc(64, ((size_t)(a_r * a_c) * es + 63) / 64 * 64);
    void *b = aligned_alloc(64, ((size_t)(b_r * b_c) * es + 63) / 64 * 64);
    void *c = aligned_alloc(64, ((size_t)(m * n) * es + 63) / 64 * 64);
    if (a == NULL || b == NULL || c == NULL) {
        fprintf(stderr, "perf gemm: out of memory\n");
        free(a);
        free(b);
        free(c);
        return 1;
    }
    perf_fill(a, (size_t)(a_r * a_c), dt, 1);
    perf_fill(b, (size_t)(b_r * b_c), dt, 2);
    memset(c, 0, (size_t)(m * n) * es);
    lincoll_dtype_t dtype = dt == 'd' ? LINCOLL_DOUBLE : LINCOLL_FLOAT;
    lincoll_layout_t lay = row_major ? LINCOLL_ROW_MAJOR : LINCOLL_COL_MAJOR;
    lincoll_trans_t lta = ta ? LINCOLL_TRANS : LINCOLL_NO_TRANS;
    lincoll_trans_t ltb = tb ? LINCOLL_TRANS : LINCOLL_NO_TRANS;
    int cb_order = row_major ? 101 : 102, cb_ta = ta ? 112 : 111, cb_tb = tb ? 112 : 111;
    int use_ob = anchor && ob.lib != NULL;
    double *t_ours = calloc(rounds, sizeof(double)), *t_ob = calloc(rounds, sizeof(double));
    int rc = 0;
    for (int r = -1; r < rounds; r++) { /* r == -1: warm-up */
        double t0 = lc_perf_now();
        lincoll_status_t st =
            lincoll_gemm(lay, lta, ltb, m, n, k, dtype, 1.0, a, lda, b, ldb, 1.0, c, ldc);
        double t1 = lc_perf_now();
        if (st != LINCOLL_OK) {
            fprintf(stderr, "perf gemm: lincoll_gemm: %s\n", lincoll_strerror(st));
            rc = 1;
            break;
        }
        if (r >= 0) t_ours[r] = t1 - t0;
        if (use_ob) {
            t0 = lc_perf_now();
            if (dt == 'd') {
                ob.dgemm(cb_order, cb_ta, cb_tb, (int)m, (int)n, (int)k, 1.0, a, (int)lda, b,
                         (int)ldb, 1.0, c, (int)ldc);
            } else {
                ob.sgemm(cb_order, cb_ta, cb_tb, (int)m, (int)n, (int)k, 1.0f, a, (int)lda, b,
                         (int)ldb, 1.0f, c, (int)ldc);
            }
            t1 = lc_perf_now();
            if (r >= 0) t_ob[r] = t1 - t0;
        }
    }
    if (rc == 0) {
        double flop = 2.0 * (double)m * (double)n * (double)k;
        double g_ours = flop / lc_perf_median(t_ours, rounds) / 1e9;
        double g_ob = use_ob ? flop / lc_perf_median(t_ob, rounds) / 1e9 : 0;
        double pk = peak > 0 ? (dt == 'd' ? peak : 2 * peak) : 0;
        const char *kname = lincoll_gemm_kernel_name(dtype);
        if (csv) {
            printf("%cgemm,%s,%c%c,%lld,%lld,%lld,%.1f,%.1f,%.3f,%.1f,%s\n", dt,
                   row_major ? "row" : "col", pc->ta, pc->tb, (long long)m, (long long)n,
                   (long long)k, g_ours, g_ob, use_ob ? g_ours / g_ob : 0.0,
                   pk > 0 ? 100 * g_ours / pk : 0.0, kname);
        } else if (use_ob) {
            printf("%cgemm %s %c%c %6lld %6lld %6lld  %8.1f  %8.1f  %6.3f  %5.1f%%  %s\n", dt,
                   row_major ? "row" : "col", pc->ta, pc->tb, (long long)m, (long long)n,
                   (long long)k, g_ours, g_ob, g_ours / g_ob, pk > 0 ? 100 * g_ours / pk : 0.0,
                   kname);
        } else {
            printf("%cgemm %s %c%c %6lld %6lld %6lld  %8.1f  %8s  %6s  %5.1f%%  %s\n", dt,
                   row_major ? "row" : "col", pc->ta, pc->tb, (long long)m, (long long)n,
                   (long long)k, g_ours, "-", "-", pk > 0 ? 100 * g_ours / pk : 0.0, kname);
        }
        fflush(stdout);
    }
    free(t_ours);
    free(t_ob);
    free(a);
    free(b);
    free(c);
    return rc;
}

int lc_perf_gemm_main(int argc, char **argv)
{
    const char *sizes = NULL, *dts = "ds", *trans = NULL;
    int row_major = 1, rounds = 5, anchor = 1, csv = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "-t") == 0 && v) {
            i++;
        } else if (strcmp(o, "-s") == 0 && v) {
            sizes = v, i++;
        } else if (strcmp(o, "-d") == 0 && v) {
            dts = v, i++;
        } else if (strcmp(o, "-T") == 0 && v) {
            trans = v, i++;
        } else if (strcmp(o, "-L") == 0 && v) {
            row_major = v[0] != 'c', i++;
        } else if (strcmp(o, "-n") == 0 && v) {
            rounds = atoi(v), i++;
        } else if (strcmp(o, "-a") == 0 && v) {
            anchor = atoi(v), i++;
        } else if (strcmp(o, "-f") == 0 && v) {
            csv = strcmp(v, "csv") == 0, i++;
        } else {
            fprintf(stderr,
                    "usage: lincoll_perf -t gemm [-s N|MxNxK,...] [-d d|s|ds] [-T NN,NT,TN,TT]\n"
                    "                    [-L r|c] [-n rounds] [-a 0|1] [-f csv]\n");
            return 2;
        }
    }
    if (rounds < 1) rounds = 1;
    perf_case_t cases[64];
    int ncases = 0;
    if (sizes == NULL && trans == NULL) {
        static const perf_case_t def[] = {
            {1024, 1024, 1024, 'N', 'N'}, {2048, 2048, 2048, 'N', 'N'},
            {2048, 2048, 2048, 'T', 'N'}, {2048, 2048, 2048, 'N', 'T'},
            {2048, 2048, 2048, 'T', 'T'}, {2048, 64, 2048, 'N', 'N'},
            {2048, 2048, 64, 'N', 'N'},   {64, 2048, 2048, 'N', 'N'},
        };
        ncases = (int)(sizeof(def) / sizeof(def[0]));
        memcpy(cases, def, sizeof(def));
    } else {
        char sbuf[512], tbuf[128];
        snprintf(sbuf, sizeof(sbuf), "%s", sizes ? sizes : "1024,2048");
        snprintf(tbuf, sizeof(tbuf), "%s", trans ? trans : "NN");
        char *ss, *ts;
        for (char *s = strtok_r(sbuf, ",", &ss); s; s = strtok_r(NULL, ",", &ss)) {
            long long m, n, k;
            if (sscanf(s, "%lldx%lldx%lld", &m, &n, &k) != 3) {
                if (sscanf(s, "%lld", &m) != 1) {
                    fprintf(stderr, "perf gemm: bad size '%s'\n", s);
                    return 2;
                }
                n = k = m;
            }
            char tcopy[128];
            snprintf(tcopy, sizeof(tcopy), "%s", tbuf);
            for (char *t = strtok_r(tcopy, ",", &ts); t; t = strtok_r(NULL, ",", &ts)) {
                perf_case_t pc = {m, n, k, 'N', 'N'};
                if (perf_parse_trans(t, &pc.ta, &pc.tb) != 0) {
                    fprintf(stderr, "perf gemm: bad transpose '%s'\n", t);
                    return 2;
                }
                if (ncases < 64) cases[ncases++] = pc;
            }
        }
    }
    if (anchor) perf_ob_open();
    double peak = perf_peak();
    if (!csv) {
        printf("# lincoll gemm: double kernel %s, float kernel %s\n",
               lincoll_gemm_kernel_name(LINCOLL_DOUBLE), lincoll_gemm_kernel_name(LINCOLL_FLOAT));
        printf("# anchor: %s (1 thread%s%s)\n", ob.lib ? "OpenBLAS cblas" : "none",
               ob.lib ? ", core " : "", ob.lib ? ob.core : "");
        printf("# measured DP FMA peak %.1f GFLOP/s (SP x2); median of %d rounds, interleaved\n",
               peak, rounds);
        printf(
            "# op    lay  tr      m      n      k   lincoll  openblas   ratio  %%peak  kernel\n");
    } else {
        printf("op,layout,trans,m,n,k,lincoll_gflops,openblas_gflops,ratio,pct_peak,kernel\n");
    }
    int rc = 0;
    for (const char *d = dts; *d; d++) {
        if (*d != 'd' && *d != 's') continue;
        for (int i = 0; i < ncases; i++) {
            rc |= perf_run_case(&cases[i], *d, row_major, rounds, anchor, csv, peak);
        }
    }
    return rc;
}
