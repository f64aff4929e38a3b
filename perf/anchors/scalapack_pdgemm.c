/*
 * perf/anchors/scalapack_pdgemm.c: ScaLAPACK's pdgemm, C = A B, n x n doubles,
 * block-cyclic NB x NB blocks on a PR x PC process grid (PR = the largest
 * divisor of P not above sqrt P, PC = P / PR, row-major BLACS grid).
 *
 *   mpirun -np P scalapack_pdgemm N NB [check]
 *     three timed pdgemm calls (each between barriers, the slowest rank's
 *     time), the fastest reported.  OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE
 *     are dropped for these processes (each rank re-executes itself without
 *     them before MPI_Init): OpenBLAS picks its own kernel for the CPU.
 *     Run one BLAS thread per rank (OPENBLAS_NUM_THREADS=1).
 *   rank 0 prints one line:
 *     N P GFLOP/s SECONDS
 *   (GFLOP/s = 2 N^3 / best seconds / 1e9; perf/matmul_compare.sh reads it).
 *   A(i,j) and B(i,j) are small multiples of 1/8, so every entry of C is
 *   exact in double: 8 entries per rank are checked against a dot product
 *   after the first call (a mismatch exits 1); "check" checks every entry and
 *   prints "check n=N nb=NB grid=PRxPC max_abs_err=E OK" (or FAIL, exit 1).
 */
#include <math.h>
#include <mpi.h>

#include "anchor_util.h"

/* BLACS and ScaLAPACK (Fortran symbols; Debian ships no C header) */
void Cblacs_pinfo(int *me, int *nprocs);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ctxt, const int *lld, int *info);
void pdgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
             const double *alpha, const double *a, const int *ia, const int *ja, const int *desca,
             const double *b, const int *ib, const int *jb, const int *descb, const double *beta,
             double *c, const int *ic, const int *jc, const int *descc);

static const char usage[] = "N NB [check]   (under mpirun; e.g. 2048 64)";

static double a_at(long i, long j)
{
    return (double)((i * 5 + j * 3) % 11 - 5) / 8.0;
}

static double b_at(long i, long j)
{
    return (double)((i * 2 + j * 7) % 13 - 6) / 8.0;
}

static double c_at(long i, long j, long n)
{
    double s = 0;
    for (long l = 0; l < n; l++)
        s += a_at(i, l) * b_at(l, j);
    return s;
}

/* global index of local row/column l on grid coordinate p of np (source 0) */
static long global_of(long l, int nb, int p, int np)
{
    return (l / nb * np + p) * nb + l % nb;
}

int main(int argc, char **argv)
{
    anchor_drop_openblas_override(argv);
    MPI_Init(&argc, &argv);
    int me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "check") != 0)) {
        if (me == 0) fprintf(stderr, "usage: %s %s\n", argv[0], usage);
        MPI_Finalize();
        return 2;
    }
    int n = anchor_parse_int(argv[0], usage, "N (matrix order, 1..65536)", argv[1], 1, 65536);
    int nb = anchor_parse_int(argv[0], usage, "NB (block size, 1..4096)", argv[2], 1, 4096);
    int full_check = argc == 4;

    int ctxt, pr = 1, pc, myr, myc, zero = 0, one = 1, info = 0;
    for (int d = 1; d * d <= P; d++)
        if (P % d == 0) pr = d;
    pc = P / pr;
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", pr, pc);
    Cblacs_gridinfo(ctxt, &pr, &pc, &myr, &myc);
    int ml = numroc_(&n, &nb, &myr, &zero, &pr), nl = numroc_(&n, &nb, &myc, &zero, &pc);
    int lld = ml > 1 ? ml : 1, desc[9];
    descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
    if (info != 0) {
        fprintf(stderr, "%s: descinit failed (info %d) for N=%d NB=%d\n", argv[0], info, n, nb);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    size_t sz = (size_t)lld * (size_t)(nl > 1 ? nl : 1);
    double *A = malloc(sz * sizeof(double)), *B = malloc(sz * sizeof(double));
    double *C = calloc(sz, sizeof(double));
    if (A == NULL || B == NULL || C == NULL) {
        fprintf(stderr, "%s: out of memory (N=%d on %d ranks)\n", argv[0], n, P);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int j = 0; j < nl; j++) {
        for (int i = 0; i < ml; i++) {
            long gi = global_of(i, nb, myr, pr), gj = global_of(j, nb, myc, pc);
            A[i + (size_t)j * lld] = a_at(gi, gj);
            B[i + (size_t)j * lld] = b_at(gi, gj);
        }
    }
    const double alpha = 1.0, beta = 0.0;
    double best = 1e300;
    for (int rep = 0; rep < 3; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        pdgemm_("N", "N", &n, &n, &n, &alpha, A, &one, &one, desc, B, &one, &one, desc, &beta, C,
                &one, &one, desc);
        double t = MPI_Wtime() - t0, tmax;
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (tmax < best) best = tmax;
        if (rep == 0 && ml > 0 && nl > 0) {
            /* a sample of this rank's entries (each call recomputes C) */
            for (int s = 0; s < 8; s++) {
                int i = (s * 37) % ml, j = (s * 61 + 1) % nl;
                long gi = global_of(i, nb, myr, pr), gj = global_of(j, nb, myc, pc);
                double want = c_at(gi, gj, n), got = C[i + (size_t)j * lld];
                if (got != want) {
                    fprintf(stderr, "%s: rank %d: C(%ld,%ld) = %.17g, expected %.17g\n", argv[0],
                            me, gi, gj, got, want);
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
            }
        }
    }
    if (me == 0) {
        printf("%d %d %.2f %.6f\n", n, P, 2.0 * (double)n * (double)n * (double)n / best / 1e9,
               best);
        fflush(stdout);
    }
    int rc = 0;
    if (full_check) {
        double err = 0, maxerr;
        for (int j = 0; j < nl; j++)
            for (int i = 0; i < ml; i++)
                err = fmax(err, fabs(C[i + (size_t)j * lld] - c_at(global_of(i, nb, myr, pr),
                                                                   global_of(j, nb, myc, pc), n)));
        MPI_Allreduce(&err, &maxerr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        rc = maxerr != 0.0;
        if (me == 0)
            printf("check n=%d nb=%d grid=%dx%d max_abs_err=%.3g %s\n", n, nb, pr, pc, maxerr,
                   rc ? "FAIL" : "OK");
    }
    free(A);
    free(B);
    free(C);
    Cblacs_gridexit(ctxt);
    MPI_Finalize();
    return rc;
}
