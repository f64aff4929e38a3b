/*
 * perf/anchors/isal_encode.c: ISA-L's ec_encode_data throughput, one core.
 *
 *   isal_encode K M LEN ITERS
 *     K data fragments of LEN bytes (suffix k/m/g allowed) -> M parity
 *     fragments, GF(2^8), the systematic Cauchy matrix of gf_gen_cauchy1_matrix,
 *     the same buffers every call (warm).  One untimed call, then ITERS timed.
 *   prints one line:
 *     isal_encode k=K m=M len=LEN iters=ITERS: X.XX GB/s (data in)
 *   GB/s counts data in: K * LEN * ITERS / seconds / 1e9 (the figure lincoll_perf
 *   -t gf reports for lincoll).  Before timing, the parity is checked against
 *   ISA-L's portable C encoder (ec_encode_data_base); a mismatch exits 1.
 */
#include <isa-l/erasure_code.h>

#include "anchor_util.h"

static const char usage[] = "K M LEN ITERS   (K + M <= 255; e.g. 10 4 1m 200)";

int main(int argc, char **argv)
{
    if (argc != 5) anchor_usage_exit(argv[0], usage, NULL, NULL);
    int k = anchor_parse_int(argv[0], usage, "K (data fragments, 1..254)", argv[1], 1, 254);
    int m = anchor_parse_int(argv[0], usage, "M (parity fragments, 1..254)", argv[2], 1, 254);
    uint64_t len = anchor_parse_size(argv[0], usage, "LEN (bytes per fragment)", argv[3], 64,
                                     (uint64_t)1 << 30);
    int iters = anchor_parse_int(argv[0], usage, "ITERS", argv[4], 1, 100000000);
    if (k + m > 255) {
        fprintf(stderr, "%s: K + M = %d: at most 255 fragments in GF(2^8)\n", argv[0], k + m);
        return 2;
    }
    unsigned char *a = malloc((size_t)(k + m) * (size_t)k);
    unsigned char *tables = malloc((size_t)32 * (size_t)k * (size_t)m);
    unsigned char **data = calloc((size_t)k, sizeof(*data));
    unsigned char **parity = calloc((size_t)m, sizeof(*parity));
    unsigned char **ref = calloc((size_t)m, sizeof(*ref));
    if (a == NULL || tables == NULL || data == NULL || parity == NULL || ref == NULL) goto nomem;
    uint32_t x = 12345;
    for (int i = 0; i < k; i++) {
        if (posix_memalign((void **)&data[i], 64, len) != 0) goto nomem;
        for (uint64_t j = 0; j < len; j++) {
            x = x * 1103515245u + 12345u;
            data[i][j] = (unsigned char)(x >> 24);
        }
    }
    for (int i = 0; i < m; i++) {
        if (posix_memalign((void **)&parity[i], 64, len) != 0 ||
            posix_memalign((void **)&ref[i], 64, len) != 0)
            goto nomem;
    }
    gf_gen_cauchy1_matrix(a, k + m, k);
    ec_init_tables(k, m, a + (size_t)k * (size_t)k, tables);

    ec_encode_data((int)len, k, m, tables, data, parity);
    ec_encode_data_base((int)len, k, m, tables, data, ref);
    for (int i = 0; i < m; i++) {
        if (memcmp(parity[i], ref[i], len) != 0) {
            fprintf(stderr, "%s: parity %d differs from ec_encode_data_base\n", argv[0], i);
            return 1;
        }
    }
    double t0 = anchor_now();
    for (int r = 0; r < iters; r++)
        ec_encode_data((int)len, k, m, tables, data, parity);
    double t = anchor_now() - t0;
    printf("isal_encode k=%d m=%d len=%llu iters=%d: %.2f GB/s (data in)\n", k, m,
           (unsigned long long)len, iters, (double)k * (double)len * iters / t / 1e9);
    return 0;
nomem:
    fprintf(stderr, "%s: out of memory (K=%d M=%d LEN=%llu)\n", argv[0], k, m,
            (unsigned long long)len);
    return 1;
}
