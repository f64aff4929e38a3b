/*
 * test/mpi/stage_check.c: large blocking calls staged through lincoll
 * memory (liblincoll_mpi.so, mpi/lcm_stage.c) give PMPI's results.
 *   stage_check [--default]
 * Before MPI_Init it sets LINCOLL_MPI_MIN_BYTES=stage=64k and
 * LINCOLL_MPI_CACHE=3, so that few sizes cross the staging size and the
 * per-communicator list of staged plans evicts.  For every operation, sizes
 * just below and above 64 KiB and up to 3 MiB, three rounds with fresh
 * buffers (new addresses, so the staged plans are found by their shape,
 * not their buffers), in place and out of place, roots other than 0 and
 * uneven reduce_scatter counts: every result is compared with PMPI's bit for
 * bit (small integers, also as doubles), and lincoll's counts
 * (lincoll_mpi_stat_get) must say the calls from 64 KiB were staged and
 * those below were not.  With --default the built-in table holds: a 1 MiB
 * allreduce is staged, a 1 MiB bcast and allgather are not (the MPI's
 * single-copy transfers beat copies in and out there), and their results
 * equal PMPI's.  Exit 0 when all held; each failure prints a line.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int P;

static int (*stat_get)(const char *, double[3]);

static double staged(const char *op)
{
    double v[3] = {0, 0, 0};
    stat_get(op, v);
    return v[2];
}

/* One staged-or-not call of each operation moving @p bytes (the size
 * table's measure) in @p t (MPI_INT or MPI_DOUBLE). */
static void round_of(size_t bytes, MPI_Datatype t, int round)
{
    const int es = t == MPI_INT ? 4 : 8, n = (int)(bytes / (size_t)es);
    const int big = bytes >= 65536;
    const size_t cap = (size_t)n * (size_t)P + 64;
    char *in = malloc(cap * 8), *out = malloc(cap * 8), *ref = malloc(cap * 8);
    for (size_t i = 0; i < cap; i++) {
        if (t == MPI_INT)
            ((int *)in)[i] = (int)((i * 7 + (size_t)rank * 13 + (size_t)round) % 1000);
        else
            ((double *)in)[i] = (double)((i * 7 + (size_t)rank * 13 + (size_t)round) % 1000);
    }
    const char *tn = t == MPI_INT ? "int" : "double";
    double s0;
#define STAGED(op, what)                                                                           \
    CHECK((staged(op) > s0) == big, "%s %s %zu B: %s", what, tn, bytes,                            \
          big ? "not staged" : "staged below the staging size")
    /* allreduce, out of place then in place */
    s0 = staged("allreduce");
    MPI_Allreduce(in, out, n, t, MPI_SUM, MPI_COMM_WORLD);
    STAGED("allreduce", "allreduce");
    PMPI_Allreduce(in, ref, n, t, MPI_SUM, MPI_COMM_WORLD);
    CHECK(!memcmp(out, ref, (size_t)n * es), "allreduce %s %zu B", tn, bytes);
    memcpy(out, in, (size_t)n * es);
    MPI_Allreduce(MPI_IN_PLACE, out, n, t, MPI_MAX, MPI_COMM_WORLD);
    PMPI_Allreduce(in, ref, n, t, MPI_MAX, MPI_COMM_WORLD);
    CHECK(!memcmp(out, ref, (size_t)n * es), "allreduce in place %s %zu B", tn, bytes);
    /* reduce to the last rank, in place at the root */
    const int root = (P - 1 + round) % P;
    s0 = staged("reduce");
    memset(out, 0, (size_t)n * es);
    memcpy(out, in, (size_t)n * es);
    MPI_Reduce(rank == root ? MPI_IN_PLACE : in, rank == root ? out : NULL, n, t, MPI_SUM, root,
               MPI_COMM_WORLD);
    STAGED("reduce", "reduce");
    PMPI_Reduce(in, ref, n, t, MPI_SUM, root, MPI_COMM_WORLD);
    CHECK(rank != root || !memcmp(out, ref, (size_t)n * es), "reduce root %d %s %zu B", root, tn,
          bytes);
    /* bcast from a root other than 0: bytes on the root, the type elsewhere */
    s0 = staged("bcast");
    const int broot = (1 + round) % P;
    memcpy(out, rank == broot ? in : ref, (size_t)n * es);
    if (rank == broot)
        MPI_Bcast(out, n * es, MPI_BYTE, broot, MPI_COMM_WORLD);
    else
        MPI_Bcast(out, n, t, broot, MPI_COMM_WORLD);
    STAGED("bcast", "bcast");
    memcpy(ref, in, (size_t)n * es);
    PMPI_Bcast(ref, n, t, broot, MPI_COMM_WORLD);
    CHECK(!memcmp(out, ref, (size_t)n * es), "bcast root %d %s %zu B", broot, tn, bytes);
    /* allgather of blocks of @p bytes, out of place then in place on odd ranks */
    s0 = staged("allgather");
    MPI_Allgather(in, n, t, out, n, t, MPI_COMM_WORLD);
    STAGED("allgather", "allgather");
    PMPI_Allgather(in, n, t, ref, n, t, MPI_COMM_WORLD);
    CHECK(!memcmp(out, ref, (size_t)n * es * P), "allgather %s %zu B", tn, bytes);
    memset(out, 0, (size_t)n * es * P);
    memcpy(out + (size_t)rank * n * es, in, (size_t)n * es);
    if (rank % 2)
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, n, t, MPI_COMM_WORLD);
    else
        MPI_Allgather(in, n, t, out, n, t, MPI_COMM_WORLD);
    CHECK(!memcmp(out, ref, (size_t)n * es * P), "allgather in place %s %zu B", tn, bytes);
    /* reduce_scatter_block over n / P each; reduce_scatter uneven */
    const int blk = n / P;
    s0 = staged("reduce_scatter_block");
    MPI_Reduce_scatter_block(in, out, blk, t, MPI_SUM, MPI_COMM_WORLD);
    STAGED("reduce_scatter_block", "reduce_scatter_block");
    PMPI_Reduce_scatter_block(in, ref, blk, t, MPI_SUM, MPI_COMM_WORLD);
    CHECK(!memcmp(out, ref, (size_t)blk * es), "reduce_scatter_block %s %zu B", tn, bytes);
    int counts[64], total = 0;
    for (int i = 0; i < P; i++)
        total += counts[i] = i + 1 < P ? blk + 3 * i - 4 : 0;
    counts[P - 1] = n - total;
    s0 = staged("reduce_scatter");
    memcpy(out, in, (size_t)n * es);
    MPI_Reduce_scatter(MPI_IN_PLACE, out, counts, t, MPI_SUM, MPI_COMM_WORLD);
    STAGED("reduce_scatter", "reduce_scatter");
    PMPI_Reduce_scatter(in, ref, counts, t, MPI_SUM, MPI_COMM_WORLD);
    CHECK(!memcmp(out, ref, (size_t)counts[rank] * es), "reduce_scatter in place %s %zu B", tn,
          bytes);
#undef STAGED
    free(in);
    free(out);
    free(ref);
}

/* The built-in table: 1 MiB of allreduce staged, of bcast and allgather not. */
static void default_check(void)
{
    const int n = 1 << 18; /* 1 MiB of int */
    int *in = malloc((size_t)n * 4 * (size_t)P), *out = malloc((size_t)n * 4 * (size_t)P),
        *ref = malloc((size_t)n * 4 * (size_t)P);
    for (int i = 0; i < n; i++)
        in[i] = (i * 7 + rank * 13) % 1000;
    double s0 = staged("allreduce");
    MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(staged("allreduce") > s0, "default table: a 1 MiB allreduce was not staged");
    PMPI_Allreduce(in, ref, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(!memcmp(out, ref, (size_t)n * 4), "default table: allreduce result");
    s0 = staged("bcast");
    memcpy(out, in, (size_t)n * 4);
    MPI_Bcast(out, n, MPI_INT, P - 1, MPI_COMM_WORLD);
    CHECK(staged("bcast") == s0, "default table: a 1 MiB bcast was staged");
    memcpy(ref, in, (size_t)n * 4);
    PMPI_Bcast(ref, n, MPI_INT, P - 1, MPI_COMM_WORLD);
    CHECK(!memcmp(out, ref, (size_t)n * 4), "default table: bcast result");
    s0 = staged("allgather");
    MPI_Allgather(in, n / P, MPI_INT, out, n / P, MPI_INT, MPI_COMM_WORLD);
    CHECK(staged("allgather") == s0, "default table: a 1 MiB allgather was staged");
    PMPI_Allgather(in, n / P, MPI_INT, ref, n / P, MPI_INT, MPI_COMM_WORLD);
    CHECK(!memcmp(out, ref, (size_t)n * 4), "default table: allgather result");
    free(in), free(out), free(ref);
}

int main(int argc, char **argv)
{
    const int dflt = argc > 1 && strcmp(argv[1], "--default") == 0;
    if (!dflt) {
        setenv("LINCOLL_MPI_MIN_BYTES", "stage=64k", 1);
        setenv("LINCOLL_MPI_CACHE", "3", 1);
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    stat_get = (int (*)(const char *, double[3]))dlsym(RTLD_DEFAULT, "lincoll_mpi_stat_get");
    if (stat_get == NULL || P > 64) {
        fprintf(stderr, "stage_check: %s\n",
                stat_get == NULL ? "liblincoll_mpi.so is not loaded" : "at most 64 ranks");
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    static const size_t sizes[] = {65528, 65536, 1048576 + 24, 3 << 20};
    if (dflt) default_check();
    for (int round = 0; !dflt && round < 3; round++)
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            round_of(sizes[s], MPI_INT, round);
            round_of(sizes[s], MPI_DOUBLE, round);
        }
    int all = 0;
    PMPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("stage_check: %d ranks, %s (%d failures)\n", P, all ? "FAILED" : "ok", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
