/*
 * test/mpi/persist_check.c: persistent collectives (MPI-4's MPI_*_init, or
 * Open MPI's MPIX_*_init) with liblincoll_mpi.so preloaded: lincoll runs
 * them (its counts, lincoll_mpi_stat_get, say so) and every start gives
 * PMPI's blocking result, bit for bit (small integers).
 *   persist_check
 * Requests of every operation (a root other than 0, uneven reduce_scatter
 * counts, in place), plus one lincoll leaves to the MPI (MPI_LAND), are
 * made once and started 6 times with new inputs, with MPI_Startall or
 * MPI_Start, completed with MPI_Waitall, MPI_Wait or an MPI_Test loop while
 * point-to-point messages go around, then freed.  Exit 0 when all held.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if MPI_VERSION >= 4
#define INIT(name) MPI_##name##_init
#elif defined(OPEN_MPI)
#include <mpi-ext.h>
#define INIT(name) MPIX_##name##_init
#endif

#include "check.h"

static int P;

enum { AR, AR_IP, RED, BC, AG, RSB, RS, BAR, LAND, NREQ };
static const char *const names[NREQ] = {"allreduce",
                                        "allreduce in place",
                                        "reduce",
                                        "bcast",
                                        "allgather",
                                        "reduce_scatter_block",
                                        "reduce_scatter",
                                        "barrier",
                                        "allreduce MPI_LAND (the MPI's)"};

static double taken(const char *op)
{
    static int (*get)(const char *, double[3]);
    if (get == NULL)
        get = (int (*)(const char *, double[3]))dlsym(RTLD_DEFAULT, "lincoll_mpi_stat_get");
    double v[3] = {-1, -1, -1};
    if (get != NULL) get(op, v);
    return v[0];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (taken("allreduce") < 0 || P > 64) {
        fprintf(stderr, "persist_check: needs liblincoll_mpi.so preloaded and at most 64 ranks\n");
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int n = 70001, nb = 3000; /* elements: a large call and small blocks */
    int *in = malloc(sizeof(int) * (size_t)n), *ar = malloc(sizeof(int) * (size_t)n),
        *ip = malloc(sizeof(int) * (size_t)n), *red = malloc(sizeof(int) * (size_t)n),
        *bc = malloc(sizeof(int) * (size_t)n), *ag = malloc(sizeof(int) * (size_t)nb * P),
        *rsb = malloc(sizeof(int) * (size_t)nb), *rs = malloc(sizeof(int) * (size_t)n),
        *land = malloc(sizeof(int) * (size_t)nb), *ref = malloc(sizeof(int) * (size_t)n * 2);
    int counts[64], total = 0;
    for (int i = 0; i < P; i++)
        total += counts[i] = 100 + 37 * i;
    const int root = P - 1, broot = 1 % P;
    MPI_Request req[NREQ];
    MPI_Status st[NREQ]; /* not MPI_STATUSES_IGNORE: MPICH's mpi.h makes gcc warn */
    INIT(Allreduce)(in, ar, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[AR]);
    INIT(Allreduce)
    (MPI_IN_PLACE, ip, nb, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &req[AR_IP]);
    INIT(Reduce)(in, red, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req[RED]);
    INIT(Bcast)(bc, n, MPI_INT, broot, MPI_COMM_WORLD, MPI_INFO_NULL, &req[BC]);
    INIT(Allgather)(in, nb, MPI_INT, ag, nb, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req[AG]);
    INIT(Reduce_scatter_block)
    (in, rsb, nb, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[RSB]);
    INIT(Reduce_scatter)(in, rs, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[RS]);
    counts[0] = -1; /* the request keeps the counts of its init */
    INIT(Barrier)(MPI_COMM_WORLD, MPI_INFO_NULL, &req[BAR]);
    INIT(Allreduce)(in, land, nb, MPI_INT, MPI_LAND, MPI_COMM_WORLD, MPI_INFO_NULL, &req[LAND]);
    counts[0] = 100;
    static const char *const ops[] = {
        "allreduce",      "reduce", "bcast", "allgather", "reduce_scatter_block",
        "reduce_scatter", "barrier"};
    double before[7];
    for (int o = 0; o < 7; o++)
        before[o] = taken(ops[o]);
    const int rounds = 6;
    for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < n; i++)
            in[i] = (i * 3 + rank * 7 + round) % 1000;
        for (int i = 0; i < nb; i++)
            ip[i] = (i + rank * 11 + round * 5) % 977;
        for (int i = 0; i < n; i++)
            bc[i] = rank == broot ? i ^ round : -1;
        if (round % 2 == 0) {
            MPI_Startall(NREQ, req);
        } else {
            for (int r = NREQ - 1; r >= 0; r--)
                MPI_Start(&req[r]);
        }
        /* point-to-point traffic around the ring meanwhile */
        int token = rank * 100 + round, got = -1;
        MPI_Request pr[2];
        MPI_Irecv(&got, 1, MPI_INT, (rank + P - 1) % P, 5, MPI_COMM_WORLD, &pr[0]);
        MPI_Isend(&token, 1, MPI_INT, (rank + 1) % P, 5, MPI_COMM_WORLD, &pr[1]);
        if (round % 3 == 0) {
            MPI_Waitall(NREQ, req, st);
        } else if (round % 3 == 1) {
            for (int r = 0; r < NREQ; r++)
                MPI_Wait(&req[r], MPI_STATUS_IGNORE);
        } else {
            for (int r = 0; r < NREQ; r++) {
                int flag = 0;
                while (!flag)
                    MPI_Test(&req[r], &flag, MPI_STATUS_IGNORE);
            }
        }
        MPI_Waitall(2, pr, st);
        CHECK(got == ((rank + P - 1) % P) * 100 + round, "round %d: point-to-point", round);
        for (int r = 0; r < NREQ; r++)
            CHECK(req[r] != MPI_REQUEST_NULL, "round %d: %s: the persistent handle was freed",
                  round, names[r]);
        /* against PMPI's blocking calls */
        PMPI_Allreduce(in, ref, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(!memcmp(ar, ref, sizeof(int) * n), "round %d: %s", round, names[AR]);
        for (int i = 0; i < nb; i++)
            ref[n + i] = (i + rank * 11 + round * 5) % 977;
        PMPI_Allreduce(ref + n, ref, nb, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        CHECK(!memcmp(ip, ref, sizeof(int) * nb), "round %d: %s", round, names[AR_IP]);
        PMPI_Reduce(in, ref, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        CHECK(rank != root || !memcmp(red, ref, sizeof(int) * n), "round %d: %s", round,
              names[RED]);
        int ok = 1;
        for (int i = 0; i < n; i++)
            ok &= bc[i] == (i ^ round);
        CHECK(ok, "round %d: %s", round, names[BC]);
        PMPI_Allgather(in, nb, MPI_INT, ref, nb, MPI_INT, MPI_COMM_WORLD);
        CHECK(!memcmp(ag, ref, sizeof(int) * nb * P), "round %d: %s", round, names[AG]);
        PMPI_Reduce_scatter_block(in, ref, nb, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(!memcmp(rsb, ref, sizeof(int) * nb), "round %d: %s", round, names[RSB]);
        PMPI_Reduce_scatter(in, ref, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(!memcmp(rs, ref, sizeof(int) * counts[rank]), "round %d: %s", round, names[RS]);
        PMPI_Allreduce(in, ref, nb, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        CHECK(!memcmp(land, ref, sizeof(int) * nb), "round %d: %s", round, names[LAND]);
    }
    /* every start of lincoll's requests counted as taken: allreduce twice a round */
    for (int o = 0; o < 7; o++)
        CHECK(taken(ops[o]) - before[o] >= (o == 0 ? 2 : 1) * rounds,
              "%s: lincoll took %.0f starts of %d", ops[o], taken(ops[o]) - before[o],
              (o == 0 ? 2 : 1) * rounds);
    for (int r = 0; r < NREQ; r++) {
        MPI_Request_free(&req[r]);
        CHECK(req[r] == MPI_REQUEST_NULL, "%s: MPI_Request_free", names[r]);
    }
    int all = 0;
    PMPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("persist_check: %d ranks, %d rounds, %s (%d failures)\n", P, rounds,
               all ? "FAILED" : "ok", all);
    free(in), free(ar), free(ip), free(red), free(bc), free(ag), free(rsb), free(rs), free(land);
    free(ref);
    MPI_Finalize();
    return all ? 1 : 0;
}
