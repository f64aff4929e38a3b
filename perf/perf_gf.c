/*
 * perf/perf_gf.c: GF(q) encode throughput (lincoll_perf -t gf).
 *
 * What: times lincoll_gf_lincomb() (or lincoll_gf_mad() over every source
 * with -m mad) for k+m codes with a systematic Cauchy parity matrix, and
 * beside it, in the same run and on the same buffers, ISA-L's
 * ec_encode_data with the same matrix (libisal.so.2 loaded with dlopen, so
 * lincoll does not depend on it; the anchor column is empty without it).
 * Runs alternate ours / ISA-L per repetition; each figure is the median.
 * Bandwidth counts data in: k * len / time (as perf/anchors/isal_encode.c).
 * Time is the thread's CPU time by default (a loaded machine preempts the
 * benchmark; wall time then measures the other jobs), -c wall for elapsed.
 * Buffers come from posix_memalign(64): above the mmap threshold they are
 * page-aligned plus a constant, so all k + m buffers share their offset
 * mod 4 KiB, as large I/O buffers usually do.  Warm: the same buffers every
 * call, so 64 KiB runs from L2 and 1 MiB (k+m MiB) from L3.
 *
 * Columns: GB/s and isal as above; x_isal = GB/s / isal; x_gf8 = GB/s over
 * GF(2^8) lincomb with the same k, m and buffers, timed alternately with
 * this row in the same repetitions (so a load change between rows does not
 * move the ratio).
 * Stream ceiling row (after each GF(2^8) row, -S 0 drops it): the
 * minimum-traffic kernel on the same buffers, alternated with ours and
 * ISA-L in the same repetitions -- it reads the k sources once and writes
 * the m outputs once with plain AVX-512 loads, XORs and stores, no GF math
 * -- in six forms (no prefetch; sources prefetched 2 KiB ahead, as
 * lincoll does above L2; non-temporal output stores; each moving 256 or
 * 128 bytes per iteration), the fastest one reported.  In cache (64 KiB
 * fragments) it is no strict bound: lincoll's row can edge past it.  No encoder can move k*len in
 * and m*len out faster than this kernel does, so its x_isal is the highest ratio over ISA-L that
 * the memory system allows for that configuration, and its x_gf8 (ceiling over lincoll's GF(2^8)
 * row) is the room left to lincoll (1.00: none).
 *
 * Options (after -t gf):
 *   -K k -M m      one configuration (default: 10+4, 8+8, 16+16, 4+2)
 *   -s bytes       fragment size, k/m/g suffixes allowed (default: 65536 and 1048576)
 *   -q order       field: 256, 65536, a prime < 2^31, or "goldilocks"
 *                  (default: 256, 65536, 998244353 and goldilocks)
 *   -n iters       calls per repetition (default: about 40 ms worth)
 *   -r reps        repetitions, median reported (default 7)
 *   -m lincomb|mad kernel shape (default lincomb)
 *   -A 0           no ISA-L anchor
 *   -S 0           no stream ceiling row
 *   -G 0           no alternated GF(2^8) reference (x_gf8 empty)
 *   -f csv         CSV instead of a table
 *   -c cpu|wall    clock (default cpu: CLOCK_THREAD_CPUTIME_ID)
 */
#include <lincoll/gf.h>

#include <dlfcn.h>
#include <immintrin.h>
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
    int iters, reps, mad, csv, stream, gf8ref;
    perf_isal_t *isal;
} perf_cfg_t;

/* ------------------------------------------------ stream ceiling kernel */

/* Modes: plain / prefetched / non-temporal stores, each with 256 and with
 * 128 bytes per iteration (which one is faster depends on how the buffers
 * fall mod 4 KiB). */
enum { PERF_STREAM_PLAIN, PERF_STREAM_PREFETCH, PERF_STREAM_NT, PERF_STREAM_NMODES = 6 };
static const char *const perf_stream_mode[PERF_STREAM_NMODES] = {"_256", "_256_pf", "_256_nt",
                                                                 "_128", "_128_pf", "_128_nt"};
#define PERF_STREAM_PF 2048 /* lincoll's prefetch distance above L2 */

/* dst_j = src_0 ^ .. ^ src_{k-1} for every j: each source byte read once,
 * each output byte written once, one XOR per source vector. */
static void perf_stream_c(int k, int m, size_t off, size_t len, unsigned char *const *src,
                          unsigned char *const *dst)
{
    for (size_t p = off; p < len; p++) {
        unsigned char x = src[0][p];
        for (int i = 1; i < k; i++)
            x ^= src[i][p];
        for (int j = 0; j < m; j++)
            dst[j][p] = x;
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#define PERF_HAVE_STREAM512 1
/* Non-temporal stores need 64-byte aligned outputs: plain stores otherwise. */
static int perf_stream_store_mode(int m, unsigned char *const *dst, int mode)
{
    for (int j = 0; mode == PERF_STREAM_NT && j < m; j++) {
        if (((uintptr_t)dst[j] & 63) != 0) mode = PERF_STREAM_PLAIN;
    }
    return mode;
}

__attribute__((target("avx512f"))) static void perf_stream128(int k, int m, size_t len,
                                                              unsigned char *const *src,
                                                              unsigned char *const *dst, int mode)
{
    size_t n = len & ~(size_t)127;
    mode = perf_stream_store_mode(m, dst, mode);
    for (size_t p = 0; p < n; p += 128) {
        const unsigned char *s = src[0] + p;
        if (mode == PERF_STREAM_PREFETCH) {
            _mm_prefetch((const char *)s + PERF_STREAM_PF, _MM_HINT_T0);
            _mm_prefetch((const char *)s + PERF_STREAM_PF + 64, _MM_HINT_T0);
        }
        __m512i x0 = _mm512_loadu_si512(s), x1 = _mm512_loadu_si512(s + 64);
        for (int i = 1; i < k; i++) {
            s = src[i] + p;
            if (mode == PERF_STREAM_PREFETCH) {
                _mm_prefetch((const char *)s + PERF_STREAM_PF, _MM_HINT_T0);
                _mm_prefetch((const char *)s + PERF_STREAM_PF + 64, _MM_HINT_T0);
            }
            x0 = _mm512_xor_si512(x0, _mm512_loadu_si512(s));
            x1 = _mm512_xor_si512(x1, _mm512_loadu_si512(s + 64));
        }
        for (int j = 0; j < m; j++) {
            unsigned char *d = dst[j] + p;
            if (mode == PERF_STREAM_NT) {
                _mm512_stream_si512((void *)d, x0);
                _mm512_stream_si512((void *)(d + 64), x1);
            } else {
                _mm512_storeu_si512(d, x0);
                _mm512_storeu_si512(d + 64, x1);
            }
        }
    }
    if (mode == PERF_STREAM_NT) _mm_sfence();
    perf_stream_c(k, m, n, len, src, dst);
}

__attribute__((target("avx512f"))) static void perf_stream_avx512(int k, int m, size_t len,
                                                                  unsigned char *const *src,
                                                                  unsigned char *const *dst,
                                                                  int mode)
{
    if (mode >= 3) {
        perf_stream128(k, m, len, src, dst, mode - 3);
        return;
    }
    size_t n = len & ~(size_t)255;
    mode = perf_stream_store_mode(m, dst, mode);
    for (size_t p = 0; p < n; p += 256) {
        const unsigned char *s = src[0] + p;
        if (mode == PERF_STREAM_PREFETCH) {
            _mm_prefetch((const char *)s + PERF_STREAM_PF, _MM_HINT_T0);
            _mm_prefetch((const char *)s + PERF_STREAM_PF + 64, _MM_HINT_T0);
            _mm_prefetch((const char *)s + PERF_STREAM_PF + 128, _MM_HINT_T0);
            _mm_prefetch((const char *)s + PERF_STREAM_PF + 192, _MM_HINT_T0);
        }
        __m512i x0 = _mm512_loadu_si512(s), x1 = _mm512_loadu_si512(s + 64);
        __m512i x2 = _mm512_loadu_si512(s + 128), x3 = _mm512_loadu_si512(s + 192);
        for (int i = 1; i < k; i++) {
            s = src[i] + p;
            if (mode == PERF_STREAM_PREFETCH) {
                _mm_prefetch((const char *)s + PERF_STREAM_PF, _MM_HINT_T0);
                _mm_prefetch((const char *)s + PERF_STREAM_PF + 64, _MM_HINT_T0);
                _mm_prefetch((const char *)s + PERF_STREAM_PF + 128, _MM_HINT_T0);
                _mm_prefetch((const char *)s + PERF_STREAM_PF + 192, _MM_HINT_T0);
            }
            x0 = _mm512_xor_si512(x0, _mm512_loadu_si512(s));
            x1 = _mm512_xor_si512(x1, _mm512_loadu_si512(s + 64));
            x2 = _mm512_xor_si512(x2, _mm512_loadu_si512(s + 128));
            x3 = _mm512_xor_si512(x3, _mm512_loadu_si512(s + 192));
        }
        for (int j = 0; j < m; j++) {
            unsigned char *d = dst[j] + p;
            if (mode == PERF_STREAM_NT) {
                _mm512_stream_si512((void *)d, x0);
                _mm512_stream_si512((void *)(d + 64), x1);
                _mm512_stream_si512((void *)(d + 128), x2);
                _mm512_stream_si512((void *)(d + 192), x3);
            } else {
                _mm512_storeu_si512(d, x0);
                _mm512_storeu_si512(d + 64, x1);
                _mm512_storeu_si512(d + 128, x2);
                _mm512_storeu_si512(d + 192, x3);
            }
        }
    }
    if (mode == PERF_STREAM_NT) _mm_sfence();
    perf_stream_c(k, m, n, len, src, dst);
}
#endif

static int perf_stream512(void)
{
#ifdef PERF_HAVE_STREAM512
    return __builtin_cpu_supports("avx512f");
#else
    return 0;
#endif
}

static void perf_stream(int k, int m, size_t len, unsigned char *const *src,
                        unsigned char *const *dst, int mode)
{
#ifdef PERF_HAVE_STREAM512
    if (perf_stream512()) {
        perf_stream_avx512(k, m, len, src, dst, mode);
        return;
    }
#endif
    (void)mode;
    perf_stream_c(k, m, 0, len, src, dst);
}

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

static void perf_row(const perf_cfg_t *cfg, const char *field, const char *kernel,
                     const char *shape, double gbps, double isal, double gf8)
{
    char conf[24], isal_s[16] = "-", ratio_s[16] = "-", gf8_s[16] = "-";
    snprintf(conf, sizeof(conf), "%d+%d", cfg->k, cfg->m);
    if (isal > 0) {
        snprintf(isal_s, sizeof(isal_s), "%.2f", isal);
        snprintf(ratio_s, sizeof(ratio_s), "%.2f", gbps / isal);
    }
    if (gf8 > 0) snprintf(gf8_s, sizeof(gf8_s), "%.2f", gbps / gf8);
    if (cfg->csv) {
        printf("%s,%zu,%s,%s,%s,%.3f,%s,%s,%s\n", conf, cfg->len, field, kernel, shape, gbps,
               isal > 0 ? isal_s : "", isal > 0 ? ratio_s : "", gf8 > 0 ? gf8_s : "");
    } else {
        printf("%-7s %9zu  %-15s %-13s %-10s %9.2f %9s %7s %8s\n", conf, cfg->len, field, kernel,
               shape, gbps, isal_s, ratio_s, gf8_s);
    }
}

/* One call of the timed operation for coefficients c on buf. */
static void perf_call(const perf_cfg_t *cfg, const lincoll_gf_coeffs_t *c, unsigned char **buf)
{
    const void *const *src = (const void *const *)buf;
    void *const *dst = (void *const *)(buf + cfg->k);
    if (cfg->mad) {
        for (int i = 0; i < cfg->k; i++)
            lincoll_gf_mad(c, cfg->len, i, buf[i], dst);
    } else {
        lincoll_gf_lincomb(c, cfg->len, src, dst);
    }
}

/* Coefficients for the parity rows of a systematic Cauchy [k+m, k] code. */
static int perf_coeffs(const lincoll_field_t *f, int k, int m, uint64_t *gen,
                       lincoll_gf_coeffs_t **c)
{
    return lincoll_gf_matrix_systematic(f, k + m, k, LINCOLL_GF_RS_CAUCHY, gen) == LINCOLL_OK &&
           lincoll_gf_coeffs_create(f, m, k, gen + (size_t)k * k, c) == LINCOLL_OK;
}

/* One configuration: the row (plus the stream ceiling row after GF(2^8));
 * every timed variant runs once per repetition, alternating.  Returns our
 * median GB/s (negative on error). */
static double perf_run(const perf_cfg_t *cfg)
{
    lincoll_field_t *f = NULL, *f8 = NULL;
    lincoll_gf_coeffs_t *c = NULL, *c8 = NULL;
    int k = cfg->k, m = cfg->m, reps = cfg->reps;
    size_t len = cfg->len;
    double result = -1.0;
    if (lincoll_gf_field_create(cfg->q, &f) != LINCOLL_OK) return -1.0;
    int use_isal = cfg->isal != NULL && cfg->q == 256;
    int use_ref = cfg->gf8ref && cfg->q != 256;
    int nstream = cfg->stream && cfg->q == 256 && !cfg->mad ? PERF_STREAM_NMODES : 0;
    if (nstream && !perf_stream512()) nstream = 1; /* the C loop has no modes */
    uint64_t *gen = malloc(sizeof(uint64_t) * (size_t)(k + m) * (size_t)k);
    unsigned char **buf = calloc((size_t)(k + m), sizeof(*buf));
    /* t[0] ours, t[1] ISA-L, t[2] GF(2^8) reference, t[3..] stream modes */
    double *t = calloc((size_t)(3 + PERF_STREAM_NMODES) * (size_t)reps, sizeof(double));
    unsigned char *a8 = NULL, *tbl = NULL;
    if (gen == NULL || buf == NULL || t == NULL || !perf_coeffs(f, k, m, gen, &c)) goto out;
    if (use_ref &&
        (lincoll_gf_field_create(256, &f8) != LINCOLL_OK || !perf_coeffs(f8, k, m, gen, &c8))) {
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
    /* warm-up */
    perf_call(cfg, c, buf);
    if (use_isal) cfg->isal->encode((int)len, k, m, tbl, buf, buf + k);
    for (int r = 0; r < reps; r++) {
        for (int v = 0; v < 3 + nstream; v++) {
            if ((v == 1 && !use_isal) || (v == 2 && !use_ref)) continue;
            double t0 = perf_now();
            for (int it = 0; it < iters; it++) {
                if (v == 0) {
                    perf_call(cfg, c, buf);
                } else if (v == 2) {
                    perf_call(cfg, c8, buf);
                } else if (v >= 3) {
                    perf_stream(k, m, len, buf, buf + k, v - 3);
                } else if (cfg->mad) {
                    for (int i = 0; i < k; i++)
                        cfg->isal->update((int)len, k, m, i, tbl, buf[i], buf + k);
                } else {
                    cfg->isal->encode((int)len, k, m, tbl, buf, buf + k);
                }
            }
            t[v * reps + r] = (perf_now() - t0) / iters;
        }
    }
    double bytes = (double)k * (double)len;
    double ours = bytes / lc_perf_median(t, reps) / 1e9;
    double isal = use_isal ? bytes / lc_perf_median(t + reps, reps) / 1e9 : 0.0;
    double ref = use_ref ? bytes / lc_perf_median(t + 2 * reps, reps) / 1e9 : 0.0;
    char fname[32];
    perf_field_name(cfg->q, fname, sizeof(fname));
    perf_row(cfg, fname, lincoll_gf_kernel_name(f), cfg->mad ? "mad" : "lincomb", ours, isal, ref);
    if (nstream) {
        double best = 0;
        int best_mode = 0;
        for (int v = 0; v < nstream; v++) {
            double g = bytes / lc_perf_median(t + (3 + v) * reps, reps) / 1e9;
            if (g > best) best = g, best_mode = v;
        }
        char kname[24];
        snprintf(kname, sizeof(kname), "%s%s", perf_stream512() ? "xor512" : "xor_c",
                 perf_stream_mode[best_mode]);
        perf_row(cfg, "stream ceiling", kname, "read+write", best, isal, ours);
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
    free(t);
    free(a8);
    free(tbl);
    lincoll_gf_coeffs_destroy(c);
    lincoll_gf_coeffs_destroy(c8);
    lincoll_gf_field_destroy(f);
    lincoll_gf_field_destroy(f8);
    if (result < 0)
        fprintf(stderr, "perf_gf: run failed for k=%d m=%d q=%llu\n", k, m,
                (unsigned long long)cfg->q);
    return result;
}

static void perf_usage(void)
{
    fprintf(stderr, "usage: lincoll_perf -t gf [-K k -M m] [-s bytes] [-q order|goldilocks] "
                    "[-n iters] [-r reps] [-m lincomb|mad] [-A 0] [-S 0] [-G 0] [-f csv] "
                    "[-c cpu|wall]\n");
}

int lc_perf_gf_main(int argc, char **argv)
{
    int K = 0, M = 0, iters = 0, reps = 7, mad = 0, csv = 0, anchor = 1, stream = 1, gf8ref = 1;
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
        case 's': { /* bytes with an optional k, m or g suffix, as every -s of lincoll_perf */
            char *end;
            size = strtoull(v, &end, 0);
            if (*end == 'k' || *end == 'K')
                size <<= 10;
            else if (*end == 'm' || *end == 'M')
                size <<= 20;
            else if (*end == 'g' || *end == 'G')
                size <<= 30;
            break;
        }
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
        case 'S':
            stream = atoi(v);
            break;
        case 'G':
            gf8ref = atoi(v);
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
        if (gf8ref)
            printf("# x_gf8: over GF(2^8) lincomb on the same buffers, alternated with the row\n");
        if (stream)
            printf(
                "# stream ceiling: read k sources + write m outputs, AVX-512 load/XOR/store, no "
                "GF math\n#   (best of plain/prefetch/non-temporal x 256/128 B); its x_isal = the "
                "largest ratio over ISA-L\n#   memory allows, its x_gf8 = ceiling / our "
                "GF(2^8) (1.00: at the ceiling)\n");
        printf("%-7s %9s  %-15s %-13s %-10s %9s %9s %7s %8s\n", "config", "bytes", "field",
               "kernel", "shape", "GB/s", "isal", "x_isal", "x_gf8");
    }
    int rc = 0;
    for (int c = 0; c < nconf; c++) {
        for (int s = 0; s < nsize; s++) {
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
                    .stream = stream,
                    .gf8ref = gf8ref,
                    .isal = have_isal ? &isal : NULL,
                };
                if (perf_run(&cfg) < 0) rc = 1;
            }
        }
    }
    return rc;
}
