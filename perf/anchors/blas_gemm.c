/*
 * perf/anchors/blas_gemm.c: OpenBLAS dgemm / sgemm, C = A B + C, n x n,
 * row-major, no transposes.
 *
 *   blas_gemm N d|s [REPS [THREADS]]
 *     REPS timed calls (default 4), the fastest reported; THREADS OpenBLAS
 *     threads (default 1).  OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are dropped
 *     for this process (it re-executes itself without them): OpenBLAS runs its
 *     own choice of kernel for the CPU, whatever the environment pins.
 *   prints one line:
 *     dgemm n=N threads=T core=NAME: X.X GFLOP/s
 *   (sgemm for s; NAME = openblas_get_corename(); GFLOP/s = 2 n^3 / best s).
 *   Before timing, 16 entries of A B are checked against a plain dot product
 *   (relative error 1e-10 for d, 1e-3 for s); a mismatch exits 1.
 */
#include <cblas.h>
#include <math.h>

#include "anchor_util.h"

static const char usage[] = "N d|s [REPS [THREADS]]   (e.g. 2048 d)";

static double entry(size_t i, size_t j, unsigned seed)
{
    return (double)((i * 7 + j * 13 + seed) % 17) / 16.0 - 0.5;
}

int main(int argc, char **argv)
{
    anchor_drop_openblas_override(argv);
    if (argc < 3 || argc > 5) anchor_usage_exit(argv[0], usage, NULL, NULL);
    int n = anchor_parse_int(argv[0], usage, "N (matrix order, 1..32768)", argv[1], 1, 32768);
    if (strcmp(argv[2], "d") != 0 && strcmp(argv[2], "s") != 0)
        anchor_usage_exit(argv[0], usage, "type (d or s)", argv[2]);
    int dbl = argv[2][0] == 'd';
    int reps = argc > 3 ? anchor_parse_int(argv[0], usage, "REPS", argv[3], 1, 100000) : 4;
    int threads = argc > 4 ? anchor_parse_int(argv[0], usage, "THREADS", argv[4], 1, 1024) : 1;
    openblas_set_num_threads(threads);

    size_t nn = (size_t)n * (size_t)n, es = dbl ? sizeof(double) : sizeof(float);
    void *A = malloc(nn * es), *B = malloc(nn * es), *C = calloc(nn, es);
    if (A == NULL || B == NULL || C == NULL) {
        fprintf(stderr, "%s: out of memory (N=%d)\n", argv[0], n);
        return 1;
    }
    for (size_t i = 0; i < (size_t)n; i++) {
        for (size_t j = 0; j < (size_t)n; j++) {
            if (dbl) {
                ((double *)A)[i * n + j] = entry(i, j, 1);
                ((double *)B)[i * n + j] = entry(i, j, 5);
            } else {
                ((float *)A)[i * n + j] = (float)entry(i, j, 1);
                ((float *)B)[i * n + j] = (float)entry(i, j, 5);
            }
        }
    }
    /* the check: one call with beta = 0, then sampled entries */
    if (dbl)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A, n, B, n, 0.0, C, n);
    else
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A, n, B, n, 0.0f, C,
                    n);
    for (int s = 0; s < 16; s++) {
        size_t i = ((size_t)s * 7919u) % (size_t)n, j = ((size_t)s * 104729u + 3) % (size_t)n;
        double want = 0, got, scale = 0;
        for (size_t l = 0; l < (size_t)n; l++) {
            want += entry(i, l, 1) * entry(l, j, 5);
            scale += fabs(entry(i, l, 1) * entry(l, j, 5));
        }
        got = dbl ? ((double *)C)[i * n + j] : (double)((float *)C)[i * n + j];
        if (fabs(got - want) > (dbl ? 1e-10 : 1e-3) * (scale + 1.0)) {
            fprintf(stderr, "%s: %cgemm C[%zu][%zu] = %g, expected %g\n", argv[0], dbl ? 'd' : 's',
                    i, j, got, want);
            return 1;
        }
    }
    double best = 1e300;
    for (int r = 0; r < reps; r++) {
        double t0 = anchor_now();
        if (dbl)
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A, n, B, n, 1.0, C,
                        n);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A, n, B, n, 1.0f,
                        C, n);
        double t = anchor_now() - t0;
        if (t < best) best = t;
    }
    printf("%cgemm n=%d threads=%d core=%s: %.1f GFLOP/s\n", dbl ? 'd' : 's', n, threads,
           openblas_get_corename(), 2.0 * (double)n * (double)n * (double)n / best / 1e9);
    free(A);
    free(B);
    free(C);
    return 0;
}
