/*
 * perf/daemon/sha256_bench.c: the speed of lincoll-ecd's hashes on this
 * machine: SHA-256 from OpenSSL's EVP, from the daemon's SHA-NI block
 * function and from its portable one (daemon/ecd_sha256.c), and the secret
 * fingerprint of a chunk that crosses UCX (daemon/ecd_verify.c), streamed
 * in 1 MiB pieces as a put does.
 *
 *   sha256_bench [REPS]     (default 15)
 *
 * One line per (hash, size): the median GB/s over REPS repetitions, and the
 * median over repetitions of its ratio to OpenSSL's (the anchor, measured in
 * the same repetition, just before it).  Sizes: 4 KiB (a
 * small object), 1 MiB and 16 MiB.
 */
#include "daemon/ecd.h"
#include "daemon/ecd_verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static lincoll_field_t *gf;
static ecd_vkey_t key;

/* GB/s of one timing: hash (or fingerprint) len bytes in 1 MiB pieces,
 * repeated so that the timing covers at least 16 MiB. */
static double rate(int fp, const uint8_t *buf, size_t len)
{
    size_t inner = len >= (16u << 20) ? 1 : (16u << 20) / len;
    volatile uint8_t sink = 0;
    double t0 = now();
    for (size_t i = 0; i < inner; i++) {
        uint8_t d[32];
        if (fp) {
            ecd_fp_acc_t *a = malloc(sizeof(*a));
            ecd_fp_t f;
            ecd_fp_init(a, gf, &key);
            for (size_t off = 0; off < len; off += 1u << 20)
                ecd_fp_update(a, buf + off, len - off < (1u << 20) ? len - off : 1u << 20);
            ecd_fp_final(a, &f);
            free(a);
            d[0] = f.v[0];
        } else {
            ecd_sha256_t s;
            ecd_sha256_init(&s);
            for (size_t off = 0; off < len; off += 1u << 20)
                ecd_sha256_update(&s, buf + off, len - off < (1u << 20) ? len - off : 1u << 20);
            ecd_sha256_final(&s, d);
        }
        sink ^= d[0];
    }
    (void)sink;
    return (double)(len * inner) / (now() - t0) / 1e9;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 15;
    if (reps < 1) {
        fprintf(stderr, "sha256_bench: REPS '%s' must be a positive count\n", argv[1]);
        return 2;
    }
    if (lincoll_gf_field_create(256, &gf) != LINCOLL_OK || ecd_vkey_new(&key) != 0) return 1;
    size_t sizes[] = {4096, 1u << 20, 16u << 20};
    uint8_t *buf = malloc(16u << 20);
    if (buf == NULL) return 1;
    for (size_t i = 0; i < (16u << 20); i++)
        buf[i] = (uint8_t)(i * 2654435761u >> 11);
    enum { NI = 4 };
    const char *impls[NI] = {"openssl", "sha-ni", "portable", "fingerprint"};
    int have[NI];
    for (int i = 0; i < NI; i++)
        have[i] = i == NI - 1 || ecd_sha256_use(impls[i]) == 0;
    ecd_sha256_use(NULL);
    double *g = malloc(sizeof(double) * NI * (size_t)reps),
           *ratio = malloc(sizeof(double) * (size_t)reps);
    if (g == NULL || ratio == NULL) return 1;
    printf("# hash size_bytes GBps_median ratio_to_openssl (median of the per-repetition ratios; "
           "reps %d, every hash once per repetition; GF kernel %s)\n",
           reps, lincoll_gf_kernel_name(gf));
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
        for (int r = 0; r < reps; r++)
            for (int i = 0; i < NI; i++) {
                if (!have[i]) continue;
                if (i < NI - 1) ecd_sha256_use(impls[i]);
                g[i * reps + r] = rate(i == NI - 1, buf, sizes[z]);
                ecd_sha256_use(NULL);
            }
        for (int i = 0; i < NI; i++) {
            if (!have[i]) {
                printf("%s %zu unavailable -\n", impls[i], sizes[z]);
                continue;
            }
            for (int r = 0; r < reps; r++)
                ratio[r] = have[0] ? g[i * reps + r] / g[r] : 0;
            double rr = median(ratio, reps);
            printf("%s %zu %.3f %.2f\n", impls[i], sizes[z], median(g + i * reps, reps), rr);
        }
    }
    free(g);
    free(ratio);
    free(buf);
    lincoll_gf_field_destroy(gf);
    return 0;
}
