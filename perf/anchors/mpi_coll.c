/*
 * perf/anchors/mpi_coll.c: Open MPI's collectives timed OSU-style (mean time
 * per call, the slowest rank's), float sum, root 0.
 *
 *   mpirun -np P mpi_coll OP MAXBYTES [ITERS]
 *     OP: allreduce (MPI_Allreduce), reduce_scatter (MPI_Reduce_scatter_block),
 *         allgather (MPI_Allgather), bcast (MPI_Bcast), reduce (MPI_Reduce).
 *     Sizes 8, 32, 128, ... (x4) up to MAXBYTES (suffix k/m/g allowed), the
 *     sizes perf/rhd_sweep.sh runs lincoll_perf at.  A size is the whole
 *     vector, as lincoll_perf's: allreduce, bcast and reduce move it from
 *     every rank; reduce_scatter and allgather use blocks of size/P bytes (at
 *     least one float).  ITERS timed calls per size (default: 2000 below 64
 *     KiB, 200 below 4 MiB, 40 above), after ITERS/10 + 1 untimed ones.
 *   rank 0 prints one line per size:
 *     BYTES AVG_US
 *   Every size is checked once before timing (rank r contributes r + 1 +
 *   element index mod 7; the result must be exact); a mismatch aborts the job.
 */
#include <mpi.h>

#include "anchor_util.h"

static const char usage[] =
    "allreduce|reduce_scatter|allgather|bcast|reduce MAXBYTES [ITERS]   (under mpirun)";

enum op { ALLREDUCE, REDUCE_SCATTER, ALLGATHER, BCAST, REDUCE };
static const char *const op_names[] = {"allreduce", "reduce_scatter", "allgather", "bcast",
                                       "reduce"};

static void run(enum op op, float *s, float *d, int n, int blk)
{
    switch (op) {
    case ALLREDUCE:
        MPI_Allreduce(s, d, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case REDUCE_SCATTER:
        MPI_Reduce_scatter_block(s, d, blk, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case ALLGATHER:
        MPI_Allgather(s, blk, MPI_FLOAT, d, blk, MPI_FLOAT, MPI_COMM_WORLD);
        break;
    case BCAST:
        MPI_Bcast(s, n, MPI_FLOAT, 0, MPI_COMM_WORLD);
        break;
    case REDUCE:
        MPI_Reduce(s, d, n, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
    }
}

static float contrib(int rank, long i)
{
    return (float)(rank + 1 + i % 7);
}

/* fills the inputs, runs op once, checks what this rank must hold; returns
 * the number of wrong elements */
static long check(enum op op, float *s, float *d, int n, int blk, int me, int P)
{
    long bad = 0, in_len = (op == REDUCE_SCATTER) ? (long)blk * P : (op == ALLGATHER) ? blk : n;
    for (long i = 0; i < in_len; i++)
        s[i] = (op == BCAST && me != 0) ? -1.0f : contrib(me, i);
    run(op, s, d, n, blk);
    float ranks = (float)P * (float)(P + 1) / 2; /* sum of rank + 1 */
    switch (op) {
    case ALLREDUCE:
    case REDUCE:
        if (op == REDUCE && me != 0) break;
        for (long i = 0; i < n; i++)
            bad += d[i] != ranks + (float)P * (float)(i % 7);
        break;
    case REDUCE_SCATTER:
        for (long i = 0; i < blk; i++) {
            long g = (long)me * blk + i;
            bad += d[i] != ranks + (float)P * (float)(g % 7);
        }
        break;
    case ALLGATHER:
        for (int r = 0; r < P; r++)
            for (long i = 0; i < blk; i++)
                bad += d[(long)r * blk + i] != contrib(r, i);
        break;
    case BCAST:
        for (long i = 0; i < n; i++)
            bad += s[i] != contrib(0, i);
        break;
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 3 || argc > 4) {
        if (me == 0) fprintf(stderr, "usage: %s %s\n", argv[0], usage);
        MPI_Finalize();
        return 2;
    }
    int op = -1;
    for (int i = 0; i < 5; i++)
        if (strcmp(argv[1], op_names[i]) == 0) op = i;
    if (op < 0) anchor_usage_exit(argv[0], usage, "OP", argv[1]);
    uint64_t maxb =
        anchor_parse_size(argv[0], usage, "MAXBYTES (8 B .. 1 GiB)", argv[2], 8, (uint64_t)1 << 30);
    int fixed_iters =
        argc > 3 ? anchor_parse_int(argv[0], usage, "ITERS", argv[3], 1, 10000000) : 0;

    /* reduce_scatter's input and allgather's output are P blocks */
    size_t cap = (size_t)maxb / sizeof(float) * (size_t)P + (size_t)P + 16;
    float *s = malloc(cap * sizeof(float)), *d = malloc(cap * sizeof(float));
    if (s == NULL || d == NULL) {
        fprintf(stderr, "%s: out of memory (MAXBYTES=%llu)\n", argv[0], (unsigned long long)maxb);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (uint64_t b = 8; b <= maxb; b *= 4) {
        int n = (int)(b / sizeof(float));
        int blk = n / P > 0 ? n / P : 1;
        int iters = fixed_iters               ? fixed_iters
                    : b < 65536               ? 2000
                    : b < ((uint64_t)4 << 20) ? 200
                                              : 40;
        long bad = check((enum op)op, s, d, n, blk, me, P), all;
        MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (all != 0) {
            if (me == 0)
                fprintf(stderr, "%s: %s of %llu bytes: %ld wrong elements\n", argv[0], op_names[op],
                        (unsigned long long)b, all);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int i = 0; i < iters / 10 + 1; i++)
            run((enum op)op, s, d, n, blk);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++)
            run((enum op)op, s, d, n, blk);
        double t = (MPI_Wtime() - t0) / iters, tmax;
        MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (me == 0) {
            printf("%llu %.2f\n", (unsigned long long)b, tmax * 1e6);
            fflush(stdout);
        }
    }
    free(s);
    free(d);
    MPI_Finalize();
    return 0;
}
