/*
 * perf/perf_gf.c: GF(q) encode throughput (lincoll_perf -t gf).
 *
 * What: times lincoll_gf_lincomb() (or lincoll_gf_mad() over every source
 * with -m mad) for k+m codes with a systematic Cauchy parity matrix, and
 * beside it, in the same run and on the same buffers, ISA-L's
 * ec_encode_data with the same matrix (libisal.so.2 loaded with dlopen, so
 * lincoll does not depend on it; the anchor column is empty without it).
 * Runs alternate ours / ISA-L per repetition; each figure is the median.
 * Bandwidth counts data in: k * len / time (../shared/anchors/isal_encode).
 * Time is the thread's CPU time by default (a loaded machine preempts the
 * benchmark; wall time then measures the other jobs), -c wall for elapsed.
 * Buffers come from posix_memalign(64): above the mmap threshold they are
 * page-aligned plus a constant, so all k + m buffers share their offset
 * mod 4 KiB, as large I/O buffers usually do.  Warm: the same buffers every
 * call, so 64 KiB runs from L2 and 1 MiB (k+m MiB) from L3.
 *
 * Options (after -t gf):
 *   -K k -M m      one configuration (default: 10+4, 8+8, 16+16, 4+2)
 *   -s bytes       fragment size (default: 65536 and 1048576)
 *   -q order       field: 256, 65536, a prime < 2^31, or "goldilocks"
 *                  (default: 256, 65536, 998244353 and goldilocks)
 *   -n iters       calls per repetition (default: about 40 ms worth)
 *   -r reps        repetitions, median reported (default 7)
 *   -m lincomb|mad kernel shape (default lincomb)
 *   -A 0           no ISA-L anchor
 *   -f csv         CSV instead of a table
 *   -c cpu|wall    clock (default cpu: CLOCK_THREAD_CPUTIME_ID)
 */
#include <lincoll/gf.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf_local.h"

typedef void (*isal_init_fn)(int, int, unsigned char *, unsigned char *);
typedef void (*isal_encode_fn)(int, int, int, unsigned char *, unsigned char **, unsigned char **);
typedef void (*isal_update_fn)(int, int, int, int, unsigned char *, unsigned char *,
                               unsigned char **);

typedef struct {
    isal_init_fn init;
    isal_encode_fn encode;
    isal_update_fn update;
} perf_isal_t;

typedef struct {
    int k, m;
    size_t len;
    uint64_t q;
    int iters, reps, mad, csv;
    perf_isal_t *isal;
} perf_cfg_t;

static clockid_t perf_clock = CLOCK_THREAD_CPUTIME_ID;

static double perf_now(void)
{
    struct timespec t;
    clock_gettime(perf_clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int perf_isal_load(perf_isal_t *isal)
{
    void *h = dlopen("libisal.so.2", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) h = dlopen("libisal.so", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) return 0;
    isal->init = (isal_init_fn)dlsym(h, "ec_init_tables");
    isal->encode = (isal_encode_fn)dlsym(h, "ec_encode_data");
    isal->update = (isal_update_fn)dlsym(h, "ec_encode_data_update");
    return isal->init != NULL && isal->encode != NULL && isal->update != NULL;
}

static const char *perf_field_name(uint64_t q, char *buf, size_t n)
{
    if (q == 256)
        snprintf(buf, n, "GF(2^8)");
    else if (q == 65536)
        snprintf(buf, n, "GF(2^16)");
    else if (q == LINCOLL_GF_GOLDILOCKS)
        snprintf(buf, n, "GF(goldilocks)");
    else
        snprintf(buf, n, "GF(%llu)", (unsigned long long)q);
    return buf;
}

/* One row: returns our median GB/s (negative on error). */
static double perf_run(const perf_cfg_t *cfg, double gf8_ref)
{
    lincoll_field_t *f = NULL;
    lincoll_gf_coeffs_t *c = NULL;
    int k = cfg->k, m = cfg->m;
    size_t len = cfg->len;
    double result = -1.0;
    if (lincoll_gf_field_create(cfg->q, &f) != LINCOLL_OK) return -1.0;
    uint64_t *gen = malloc(sizeof(uint64_t) * (size_t)(k + m) * (size_t)k);
    unsigned char **buf = calloc((size_t)(k + m), sizeof(*buf));
    double *t_ours = calloc((size_t)cfg->reps, sizeof(double));
    double *t_isal = calloc((size_t)cfg->reps, sizeof(double));
    unsigned char *a8 = NULL, *tbl = NULL;
    if (gen == NULL || buf == NULL || t_ours == NULL || t_isal == NULL) goto out;
    if (lincoll_gf_matrix_systematic(f, k + m, k, LINCOLL_GF_RS_CAUCHY, gen) != LINCOLL_OK ||
        lincoll_gf_coeffs_create(f, m, k, gen + (size_t)k * k, &c) != LINCOLL_OK) {
        goto out;
    }
    size_t es = lincoll_gf_field_elem_size(f);
    uint64_t seed = 12345;
    for (int i = 0; i < k + m; i++) {
        if (posix_memalign((void **)&buf[i], 64, len) != 0) goto out;
        for (size_t e = 0; e < len / es; e++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t v = (seed >> 11) % cfg->q;
            memcpy(buf[i] + e * es, &v, es);
        }
    }
    int use_isal = cfg->isal != NULL && cfg->q == 256;
    if (use_isal) {
        a8 = malloc((size_t)m * (size_t)k);
        tbl = malloc(32 * (size_t)m * (size_t)k);
        if (a8 == NULL || tbl == NULL) goto out;
        for (size_t e = 0; e < (size_t)m * (size_t)k; e++)
            a8[e] = (unsigned char)gen[k * k + e];
        cfg->isal->init(k, m, a8, tbl);
    }
    int iters = cfg->iters;
    if (iters <= 0) {
        double want = 4e8; /* ~40 ms at 10 GB/s */
        iters = (int)(want / ((double)k * (double)len));
        if (iters < 3) iters = 3;
    }
    const void *const *src = (const void *const *)buf;
    void *const *dst = (void *const *)(buf + k);
    /* warm-up */
    lincoll_gf_lincomb(c, len, src, dst);
    if (use_isal) cfg->isal->encode((int)len, k, m, tbl, buf, buf + k);
    for (int r = 0; r < cfg->reps; r++) {
        double t0 = perf_now();
        for (int it = 0; it < iters; it++) {
            if (cfg->mad) {
                for (int i = 0; i < k; i++)
                    lincoll_gf_mad(c, len, i, buf[i], dst);
            } else {
                lincoll_gf_lincomb(c, len, src, dst);
            }
        }
        t_ours[r] = (perf_now() - t0) / iters;
        if (use_isal) {
            t0 = perf_now();
            for (int it = 0; it < iters; it++) {
                if (cfg->mad) {
                    for (int i = 0; i < k; i++)
                        cfg->isal->update((int)len, k, m, i, tbl, buf[i], buf + k);
                } else {
                    cfg->isal->encode((int)len, k, m, tbl, buf, buf + k);
                }
            }
            t_isal[r] = (perf_now() - t0) / iters;
        }
    }
    double bytes = (double)k * (double)len;
    double ours = bytes / lc_perf_median(t_ours, cfg->reps) / 1e9;
    double isal = use_isal ? bytes / lc_perf_median(t_isal, cfg->reps) / 1e9 : 0.0;
    char fname[32], conf[16], isal_s[16] = "-", ratio_s[16] = "-", gf8_s[16] = "-";
    perf_field_name(cfg->q, fname, sizeof(fname));
    snprintf(conf, sizeof(conf), "%d+%d", k, m);
    if (use_isal) {
        snprintf(isal_s, sizeof(isal_s), "%.2f", isal);
        snprintf(ratio_s, sizeof(ratio_s), "%.2f", ours / isal);
    }
    if (gf8_ref > 0 && cfg->q != 256) snprintf(gf8_s, sizeof(gf8_s), "%.2f", ours / gf8_ref);
    if (cfg->csv) {
        printf("%s,%zu,%s,%s,%s,%.3f,%s,%s,%s\n", conf, len, fname, lincoll_gf_kernel_name(f),
               cfg->mad ? "mad" : "lincomb", ours, use_isal ? isal_s : "", use_isal ? ratio_s : "",
               gf8_ref > 0 && cfg->q != 256 ? gf8_s : "");
    } else {
        printf("%-7s %9zu  %-15s %-13s %-8s %9.2f %9s %7s %8s\n", conf, len, fname,
               lincoll_gf_kernel_name(f), cfg->mad ? "mad" : "lincomb", ours, isal_s, ratio_s,
               gf8_s);
    }
    fflush(stdout);
    result = ours;
out:
    if (buf != NULL) {
        for (int i = 0; i < k + m; i++)
            free(buf[i]);
    }
    free(buf);
    free(gen);
    free(t_ours);
    free(t_isal);
    free(a8);
    free(tbl);
    lincoll_gf_coeffs_destroy(c);
    lincoll_gf_field_destroy(f);
    if (result < 0)
        fprintf(stderr, "perf_gf: run failed for k=%d m=%d q=%llu\n", k, m,
                (unsigned long long)cfg->q);
    return result;
}

static void perf_usage(void)
{
    fprintf(stderr, "usage: lincoll_perf -t gf [-K k -M m] [-s bytes] [-q order|goldilocks] "
                    "[-n iters] [-r reps] [-m lincomb|mad] [-A 0] [-f csv] "
                    "[-c cpu|wall]\n");
}

int lc_perf_gf_main(int argc, char **argv)
{
    int K = 0, M = 0, iters = 0, reps = 7, mad = 0, csv = 0, anchor = 1;
    size_t size = 0;
    uint64_t q = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (o[0] != '-' || o[1] == '\0' || o[2] != '\0') continue;
        if (v == NULL) {
            perf_usage();
            return 2;
        }
        switch (o[1]) {
        case 't':
            break;
        case 'K':
            K = atoi(v);
            break;
        case 'M':
            M = atoi(v);
            break;
        case 's':
            size = strtoull(v, NULL, 0);
            break;
        case 'q':
            q = strcmp(v, "goldilocks") == 0 ? LINCOLL_GF_GOLDILOCKS : strtoull(v, NULL, 0);
            break;
        case 'n':
            iters = atoi(v);
            break;
        case 'r':
            reps = atoi(v);
            break;
        case 'm':
            mad = strcmp(v, "mad") == 0;
            break;
        case 'A':
            anchor = atoi(v);
            break;
        case 'f':
            csv = strcmp(v, "csv") == 0;
            break;
        case 'c':
            if (strcmp(v, "wall") == 0) {
                perf_clock = CLOCK_MONOTONIC;
            } else if (strcmp(v, "cpu") != 0) {
                fprintf(stderr, "perf_gf: -c %s: expected cpu or wall\n", v);
                return 2;
            }
            break;
        default:
            perf_usage();
            return 2;
        }
        i++;
    }
    if (reps < 1 || (K != 0) != (M != 0) || K < 0 || M < 0) {
        perf_usage();
        return 2;
    }
    perf_isal_t isal;
    int have_isal = anchor && perf_isal_load(&isal);

    static const int confs[][2] = {{10, 4}, {8, 8}, {16, 16}, {4, 2}};
    int nconf = K ? 1 : 4;
    static const size_t sizes[] = {65536, 1048576};
    int nsize = size ? 1 : 2;
    static const uint64_t fields[] = {256, 65536, 998244353, LINCOLL_GF_GOLDILOCKS};
    int nfield = q ? 1 : 4;

    if (csv) {
        printf("config,bytes,field,kernel,shape,gbps,isal_gbps,ratio_isal,ratio_gf8\n");
    } else {
        printf("# lincoll GF(q) encode, data-in GB/s (k*len/%s time), median of %d; anchor: %s\n",
               perf_clock == CLOCK_MONOTONIC ? "wall" : "thread CPU", reps,
               have_isal ? "ISA-L ec_encode_data (libisal.so.2), same buffers, same matrix"
                         : "none");
        printf("%-7s %9s  %-15s %-13s %-8s %9s %9s %7s %8s\n", "config", "bytes", "field", "kernel",
               "shape", "GB/s", "isal", "x_isal", "x_gf8");
    }
    int rc = 0;
    for (int c = 0; c < nconf; c++) {
        for (int s = 0; s < nsize; s++) {
            double gf8 = 0;
            for (int fi = 0; fi < nfield; fi++) {
                perf_cfg_t cfg = {
                    .k = K ? K : confs[c][0],
                    .m = K ? M : confs[c][1],
                    .len = size ? size : sizes[s],
                    .q = q ? q : fields[fi],
                    .iters = iters,
                    .reps = reps,
                    .mad = mad,
                    .csv = csv,
                    .isal = have_isal ? &isal : NULL,
                };
                double g = perf_run(&cfg, gf8);
                if (g < 0) rc = 1;
                if (cfg.q == 256) gf8 = g;
            }
        }
    }
    return rc;
}
