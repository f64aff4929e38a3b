/*
 * test/mpi/decide_check.c: the layer's decisions are the same on every rank
 * and follow the size table world rank 0 was given.
 *   decide_check RANK0_TABLE OTHERS_TABLE
 * Before MPI_Init, the program sets LINCOLL_MPI_MIN_BYTES to RANK0_TABLE on
 * world rank 0 and to OTHERS_TABLE elsewhere (the rank from the launcher's
 * environment: OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID).  Then, for
 * every operation and sizes around the table's edges, it makes one call
 * and reads from liblincoll_mpi.so (dlsym lincoll_mpi_stat_get) whether
 * lincoll took it; every rank's answer is gathered (PMPI) and must be the
 * same everywhere and what RANK0_TABLE says (parsed here independently;
 * "-" is the empty table).  Results are compared with PMPI's.
 * Exit 0 when all held; each failure prints one line.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int nranks;

enum { ALLREDUCE, REDUCE, BCAST, ALLGATHER, RSB, RS, BARRIER, NOPS };
static const char *const names[NOPS] = {
    "allreduce",      "reduce", "bcast", "allgather", "reduce_scatter_block",
    "reduce_scatter", "barrier"};
/* docs/mpi.md, "The size table": the built-in smallest sizes */
static const uint64_t builtin[NOPS] = {0, 512, 512, 4096, 0, 0, 0};

#define MAXR 8
static struct {
    int n;
    uint64_t lo[MAXR], hi[MAXR];
} table[NOPS];

static uint64_t bytes_of(const char *s)
{
    char *end;
    uint64_t v = strtoull(s, &end, 10);
    if (*end == 'k') v *= 1024;
    if (*end == 'm') v *= 1024 * 1024;
    return v;
}

/* The expected table: the built-in one, entries replaced (stage ignored). */
static void expect_table(const char *spec)
{
    for (int op = 0; op < NOPS; op++) {
        table[op].n = 1;
        table[op].lo[0] = builtin[op];
        table[op].hi[0] = UINT64_MAX;
    }
    if (strcmp(spec, "-") == 0) return;
    char *dup = strdup(spec), *save = NULL;
    for (char *e = strtok_r(dup, ",", &save); e != NULL; e = strtok_r(NULL, ",", &save)) {
        char *val = strchr(e, '=');
        *val++ = '\0';
        int op = -1;
        for (int i = 0; i < NOPS; i++)
            if (!strcmp(e, names[i])) op = i;
        if (op < 0) continue; /* stage */
        table[op].n = 0;
        if (!strcmp(val, "off")) continue;
        char *s2 = NULL;
        for (char *r = strtok_r(val, "+", &s2); r != NULL; r = strtok_r(NULL, "+", &s2)) {
            char *dash = strchr(r, '-');
            table[op].lo[table[op].n] = bytes_of(r);
            table[op].hi[table[op].n] = dash ? bytes_of(dash + 1) : UINT64_MAX;
            table[op].n++;
        }
    }
    free(dup);
}

static int expected(int op, uint64_t bytes)
{
    if (bytes == 0 && op != BARRIER) return 0;
    for (int i = 0; i < table[op].n; i++)
        if (bytes >= table[op].lo[i] && bytes <= table[op].hi[i]) return 1;
    return 0;
}

static int (*stat_get)(const char *, double[3]);

static double taken(int op)
{
    double v[3] = {0, 0, 0};
    CHECK(stat_get(names[op], v) == 0, "lincoll_mpi_stat_get(%s)", names[op]);
    return v[0];
}

/* One call of @p op moving @p bytes (the table's measure); whether lincoll
 * took it on every rank alike and as the table says. */
static void one(int op, uint64_t want_bytes)
{
    const int P = nranks;
    int n = (int)(want_bytes / 4); /* MPI_INT elements of the table's measure */
    if (op == RSB || op == RS) n = n / P;
    uint64_t bytes = (uint64_t)n * 4 * (op == RSB || op == RS ? (uint64_t)P : 1);
    if (op == BARRIER) bytes = 0;
    const size_t cap = (size_t)(n > 0 ? n : 1) * (size_t)P;
    int *in = malloc(cap * sizeof(int)), *out = calloc(cap, sizeof(int)),
        *ref = calloc(cap, sizeof(int));
    int counts[64];
    for (size_t i = 0; i < cap; i++)
        in[i] = (int)(i % 1000) + rank;
    for (int i = 0; i < P; i++)
        counts[i] = n;
    const double before = taken(op);
    size_t cmp = 0;
    switch (op) {
    case ALLREDUCE: /* in place on odd ranks only */
        if (rank % 2) {
            memcpy(out, in, (size_t)n * sizeof(int));
            MPI_Allreduce(MPI_IN_PLACE, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        } else {
            MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        }
        PMPI_Allreduce(in, ref, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        cmp = (size_t)n;
        break;
    case REDUCE:
        MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, P - 1, MPI_COMM_WORLD);
        PMPI_Reduce(in, ref, n, MPI_INT, MPI_SUM, P - 1, MPI_COMM_WORLD);
        cmp = rank == P - 1 ? (size_t)n : 0;
        break;
    case BCAST: /* bytes on the root, ints elsewhere: one signature length */
        if (rank == 1 % P) memcpy(out, in, (size_t)n * sizeof(int));
        if (rank == 1 % P)
            MPI_Bcast(out, n * 4, MPI_BYTE, 1 % P, MPI_COMM_WORLD);
        else
            MPI_Bcast(out, n, MPI_INT, 1 % P, MPI_COMM_WORLD);
        if (rank == 1 % P) memcpy(ref, in, (size_t)n * sizeof(int));
        PMPI_Bcast(ref, n, MPI_INT, 1 % P, MPI_COMM_WORLD);
        cmp = (size_t)n;
        break;
    case ALLGATHER:
        MPI_Allgather(in, n, MPI_INT, out, n, MPI_INT, MPI_COMM_WORLD);
        PMPI_Allgather(in, n, MPI_INT, ref, n, MPI_INT, MPI_COMM_WORLD);
        cmp = (size_t)n * (size_t)P;
        break;
    case RSB:
        MPI_Reduce_scatter_block(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Reduce_scatter_block(in, ref, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        cmp = (size_t)n;
        break;
    case RS:
        MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Reduce_scatter(in, ref, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        cmp = (size_t)n;
        break;
    default:
        MPI_Barrier(MPI_COMM_WORLD);
    }
    CHECK(cmp == 0 || !memcmp(out, ref, cmp * sizeof(int)), "%s %llu B: result differs from PMPI",
          names[op], (unsigned long long)bytes);
    int mine = taken(op) > before, all[64];
    PMPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < P; r++)
        CHECK(all[r] == all[0], "%s %llu B: rank %d %s, rank 0 %s", names[op],
              (unsigned long long)bytes, r, all[r] ? "took it" : "left it",
              all[0] ? "took it" : "left it");
    CHECK(mine == expected(op, bytes), "%s %llu B: %s, the table says %s", names[op],
          (unsigned long long)bytes, mine ? "taken" : "left to the MPI",
          expected(op, bytes) ? "taken" : "left to the MPI");
    free(in);
    free(out);
    free(ref);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: decide_check RANK0_TABLE OTHERS_TABLE ('-': empty)\n");
        return 2;
    }
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (r == NULL) r = getenv("PMI_RANK");
    if (r == NULL) r = getenv("SLURM_PROCID");
    if (r == NULL) {
        fprintf(stderr, "decide_check: no rank in the environment (OMPI_COMM_WORLD_RANK, PMI_RANK, "
                        "SLURM_PROCID)\n");
        return 2;
    }
    const char *mine = atoi(r) == 0 ? argv[1] : argv[2];
    setenv("LINCOLL_MPI_MIN_BYTES", strcmp(mine, "-") ? mine : "", 1);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    stat_get = (int (*)(const char *, double[3]))dlsym(RTLD_DEFAULT, "lincoll_mpi_stat_get");
    if (stat_get == NULL || nranks > 64) {
        fprintf(stderr, "decide_check: %s\n",
                stat_get == NULL ? "liblincoll_mpi.so is not loaded (no lincoll_mpi_stat_get)"
                                 : "at most 64 ranks");
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    expect_table(argv[1]);
    /* sizes around every edge the tables of the tests use, and the built-in ones */
    static const uint64_t sizes[] = {0,    8,    64,   120,   128,   504,    512,     1024,   1032,
                                     2048, 4096, 8192, 12288, 65536, 262144, 1048576, 4194304};
    int calls = 0;
    for (int op = 0; op < NOPS; op++)
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++, calls++)
            one(op, op == BARRIER ? 0 : sizes[s]);
    int all = 0;
    PMPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("decide_check: %d ranks, %d calls, %s (%d failures)\n", nranks, calls,
               all ? "FAILED" : "ok", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
