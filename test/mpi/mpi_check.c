/*
 * test/mpi/mpi_check.c: an MPI program that knows nothing of lincoll.  Run
 * with liblincoll_mpi.so preloaded (test/mpi/run.sh), its MPI_* collectives
 * go through lincoll; every result is compared with PMPI_*'s on the same
 * data (PMPI_ bypasses the preloaded library), bit for bit: the inputs are
 * small integers (also as floats), whose sums and products are exact in any
 * order.
 *   mpi_check [--cache N] [--light] [--group]
 *     N: calls of the changing-buffers test (10000); --light: no sweep of
 *     every type and operator (a check of the rest, for LINCOLL_MPI=off);
 *     --group: only communicators of MPI_Comm_create_group (5 ranks or
 *     more), each of whose collectives lincoll must take
 * Exit 0 when every result matched; each mismatch prints one line.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int nranks;

typedef struct {
    MPI_Datatype t;
    const char *name;
    int flt;  /* arithmetic without BXOR */
    int byte; /* BXOR only */
} type_t;

static const type_t *types(int *n)
{
    static type_t ts[20];
    int i = 0;
    ts[i++] = (type_t){MPI_INT8_T, "int8", 0, 0};
    ts[i++] = (type_t){MPI_UINT8_T, "uint8", 0, 0};
    ts[i++] = (type_t){MPI_INT16_T, "int16", 0, 0};
    ts[i++] = (type_t){MPI_UINT16_T, "uint16", 0, 0};
    ts[i++] = (type_t){MPI_INT, "int", 0, 0};
    ts[i++] = (type_t){MPI_UNSIGNED, "unsigned", 0, 0};
    ts[i++] = (type_t){MPI_LONG, "long", 0, 0};
    ts[i++] = (type_t){MPI_UNSIGNED_LONG, "unsigned long", 0, 0};
    ts[i++] = (type_t){MPI_INT64_T, "int64", 0, 0};
    ts[i++] = (type_t){MPI_UINT64_T, "uint64", 0, 0};
    ts[i++] = (type_t){MPI_LONG_LONG, "long long", 0, 0};
    ts[i++] = (type_t){MPI_SHORT, "short", 0, 0};
    ts[i++] = (type_t){MPI_FLOAT, "float", 1, 0};
    ts[i++] = (type_t){MPI_DOUBLE, "double", 1, 0};
    ts[i++] = (type_t){MPI_BYTE, "byte", 0, 1};
    *n = i;
    return ts;
}

static const struct {
    MPI_Op op;
    const char *name;
} ops[] = {
    {MPI_SUM, "sum"}, {MPI_PROD, "prod"}, {MPI_MIN, "min"}, {MPI_MAX, "max"}, {MPI_BXOR, "bxor"}};

/* Element i of rank r: a small integer of the type (1 or 2 for products). */
static void fill(void *buf, MPI_Datatype t, size_t n, int r, int salt)
{
    int size;
    MPI_Type_size(t, &size);
    for (size_t i = 0; i < n; i++) {
        int v = (int)((i * 7 + (size_t)r * 3 + (size_t)salt) % 5) == 0 ? 2 : 1;
        v += (int)((i + (size_t)r + (size_t)salt) % 3); /* 1..4 */
        char *p = (char *)buf + i * (size_t)size;
        if (t == MPI_FLOAT)
            *(float *)p = (float)v;
        else if (t == MPI_DOUBLE)
            *(double *)p = (double)v;
        else {
            int64_t w = v;
            memcpy(p, &w, (size_t)size); /* little endian: low bytes */
        }
    }
}

static int tsize(MPI_Datatype t)
{
    int s;
    MPI_Type_size(t, &s);
    return s;
}

static void check_reductions(MPI_Comm comm, const char *cname)
{
    int nt, me, P;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    const type_t *ts = types(&nt);
    const int counts[] = {1, 13, 4099, 70001};
    for (int ti = 0; ti < nt; ti++) {
        for (size_t oi = 0; oi < sizeof(ops) / sizeof(ops[0]); oi++) {
            if ((ts[ti].flt && ops[oi].op == MPI_BXOR) || (ts[ti].byte && ops[oi].op != MPI_BXOR))
                continue;
            for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
                const int n = counts[ci], es = tsize(ts[ti].t);
                const size_t bytes = (size_t)n * (size_t)P * (size_t)es;
                char *in = malloc(bytes), *out = malloc(bytes), *ref = malloc(bytes);
                fill(in, ts[ti].t, (size_t)n * (size_t)P, me, (int)ci);
                const MPI_Datatype t = ts[ti].t;
                const MPI_Op op = ops[oi].op;
                const char *tn = ts[ti].name, *on = ops[oi].name;
                /* allreduce, out of place and in place */
                MPI_Allreduce(in, out, n, t, op, comm);
                PMPI_Allreduce(in, ref, n, t, op, comm);
                CHECK(!memcmp(out, ref, (size_t)n * es), "%s allreduce %s %s n=%d", cname, tn, on,
                      n);
                memcpy(out, in, (size_t)n * es);
                MPI_Allreduce(MPI_IN_PLACE, out, n, t, op, comm);
                CHECK(!memcmp(out, ref, (size_t)n * es), "%s allreduce in place %s %s n=%d", cname,
                      tn, on, n);
                /* reduce to a root other than 0 (and 0), in place at the root */
                for (int root = 0; root < P; root += (P > 2 ? P - 1 : 1)) {
                    memset(out, 0, (size_t)n * es);
                    MPI_Reduce(in, out, n, t, op, root, comm);
                    if (me == root)
                        CHECK(!memcmp(out, ref, (size_t)n * es), "%s reduce root %d %s %s n=%d",
                              cname, root, tn, on, n);
                    memcpy(out, in, (size_t)n * es);
                    MPI_Reduce(me == root ? MPI_IN_PLACE : in, me == root ? out : NULL, n, t, op,
                               root, comm);
                    if (me == root)
                        CHECK(!memcmp(out, ref, (size_t)n * es),
                              "%s reduce in place root %d %s %s n=%d", cname, root, tn, on, n);
                }
                /* reduce_scatter_block: n per rank */
                MPI_Reduce_scatter_block(in, out, n, t, op, comm);
                PMPI_Reduce_scatter_block(in, ref, n, t, op, comm);
                CHECK(!memcmp(out, ref, (size_t)n * es), "%s reduce_scatter_block %s %s n=%d",
                      cname, tn, on, n);
                memcpy(out, in, bytes);
                MPI_Reduce_scatter_block(MPI_IN_PLACE, out, n, t, op, comm);
                CHECK(!memcmp(out, ref, (size_t)n * es),
                      "%s reduce_scatter_block in place %s %s n=%d", cname, tn, on, n);
                /* reduce_scatter with uneven counts (a zero among them) */
                int *rc = malloc(sizeof(int) * (size_t)P), tot = 0;
                for (int i = 0; i < P; i++)
                    tot += rc[i] = i == 1 ? 0 : (n * (i + 1)) % (n + 1) + 1;
                if (tot <= n * P) {
                    MPI_Reduce_scatter(in, out, rc, t, op, comm);
                    PMPI_Reduce_scatter(in, ref, rc, t, op, comm);
                    CHECK(!memcmp(out, ref, (size_t)rc[me] * es), "%s reduce_scatter %s %s n=%d",
                          cname, tn, on, n);
                    memcpy(out, in, (size_t)tot * es);
                    MPI_Reduce_scatter(MPI_IN_PLACE, out, rc, t, op, comm);
                    CHECK(!memcmp(out, ref, (size_t)rc[me] * es),
                          "%s reduce_scatter in place %s %s n=%d", cname, tn, on, n);
                }
                free(rc);
                free(in);
                free(out);
                free(ref);
            }
        }
    }
}

static void check_moves(MPI_Comm comm, const char *cname)
{
    int me, P;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    const int counts[] = {1, 5, 3000, 300001};
    MPI_Datatype four, vec;
    MPI_Type_contiguous(4, MPI_INT, &four); /* the same signature as 4 MPI_INT */
    MPI_Type_commit(&four);
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec); /* 2 ints with a hole: not contiguous */
    MPI_Type_commit(&vec);
    for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
        const int n = counts[ci] * 4; /* ints */
        int *a = malloc(sizeof(int) * (size_t)n * (size_t)P * 2);
        int *b = malloc(sizeof(int) * (size_t)n * (size_t)P * 2);
        for (int root = 0; root < P; root += (P > 2 ? P - 2 : 1)) {
            /* bcast: root as MPI_INT, odd ranks as 4-int blocks */
            for (int i = 0; i < n; i++)
                a[i] = me == root ? i * 31 + root : -1;
            if (me % 2 == 1 && me != root)
                MPI_Bcast(a, n / 4, four, root, comm);
            else
                MPI_Bcast(a, n, MPI_INT, root, comm);
            int ok = 1;
            for (int i = 0; i < n; i++)
                ok &= a[i] == i * 31 + root;
            CHECK(ok, "%s bcast n=%d root=%d", cname, n, root);
            /* bcast of a non-contiguous type (ints with holes) against PMPI's */
            int *c = malloc(sizeof(int) * (size_t)n * 2);
            for (int i = 0; i < 2 * n; i++)
                b[i] = c[i] = me == root ? i : -7;
            MPI_Bcast(b, n / 2, vec, root, comm);
            PMPI_Bcast(c, n / 2, vec, root, comm);
            ok = !memcmp(b, c, sizeof(int) * (size_t)n * 2);
            free(c);
            CHECK(ok, "%s bcast vector n=%d root=%d", cname, n, root);
        }
        /* allgather: out of place, in place, and with a block type on odd ranks */
        for (int i = 0; i < n; i++)
            a[i] = me * 1000003 + i;
        MPI_Allgather(a, n, MPI_INT, b, n, MPI_INT, comm);
        int *ref = malloc(sizeof(int) * (size_t)n * (size_t)P);
        PMPI_Allgather(a, n, MPI_INT, ref, n, MPI_INT, comm);
        CHECK(!memcmp(b, ref, sizeof(int) * (size_t)n * P), "%s allgather n=%d", cname, n);
        memset(b, 0, sizeof(int) * (size_t)n * P);
        memcpy(b + (size_t)me * n, a, sizeof(int) * (size_t)n);
        if (me % 2)
            MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, n / 4, four, comm);
        else
            MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, n, MPI_INT, comm);
        CHECK(!memcmp(b, ref, sizeof(int) * (size_t)n * P), "%s allgather in place n=%d", cname, n);
        free(ref);
        free(a);
        free(b);
    }
    MPI_Type_free(&four);
    MPI_Type_free(&vec);
}

/* Nonblocking collectives interleaved with point-to-point traffic, all
 * completed by one MPI_Waitall (and MPI_Test / MPI_Wait on some). */
static void check_nonblocking(MPI_Comm comm, int rounds)
{
    int me, P;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    const int n = 5000;
    int *a = malloc(sizeof(int) * n), *ar = malloc(sizeof(int) * n), *ref = malloc(sizeof(int) * n);
    int *g = malloc(sizeof(int) * n * P), *gref = malloc(sizeof(int) * n * P);
    int *bc = malloc(sizeof(int) * n), *rs = malloc(sizeof(int) * n);
    int *sb = malloc(sizeof(int) * n), *rb = malloc(sizeof(int) * n);
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++) {
            a[i] = me * 3 + i + r;
            bc[i] = me == r % P ? i * 5 + r : -1;
            sb[i] = me * 100000 + i + r;
        }
        MPI_Request q[8];
        MPI_Iallreduce(a, ar, n, MPI_INT, MPI_SUM, comm, &q[0]);
        MPI_Irecv(rb, n, MPI_INT, (me + P - 1) % P, 7, comm, &q[1]);
        MPI_Ibcast(bc, n, MPI_INT, r % P, comm, &q[2]);
        MPI_Isend(sb, n, MPI_INT, (me + 1) % P, 7, comm, &q[3]);
        MPI_Iallgather(a, n / P, MPI_INT, g, n / P, MPI_INT, comm, &q[4]);
        MPI_Ireduce_scatter_block(g, rs, n / P / P, MPI_INT, MPI_MAX, comm, &q[5]);
        MPI_Ibarrier(comm, &q[6]);
        MPI_Ireduce(a, ref, n, MPI_INT, MPI_MIN, P - 1, comm, &q[7]);
        int flag = 0;
        MPI_Test(&q[6], &flag, MPI_STATUS_IGNORE);
        MPI_Wait(&q[1], MPI_STATUS_IGNORE);
        MPI_Status sts[8];
        MPI_Waitall(8, q, sts);
        int ok = 1;
        for (int i = 0; i < n; i++)
            ok &= rb[i] == ((me + P - 1) % P) * 100000 + i + r;
        CHECK(ok, "nonblocking: point-to-point round %d", r);
        for (int i = 0; i < n; i++)
            ok &= bc[i] == i * 5 + r;
        CHECK(ok, "nonblocking: ibcast round %d", r);
        PMPI_Allreduce(a, ref, n, MPI_INT, MPI_SUM, comm);
        CHECK(!memcmp(ar, ref, sizeof(int) * n), "nonblocking: iallreduce round %d", r);
        PMPI_Allgather(a, n / P, MPI_INT, gref, n / P, MPI_INT, comm);
        CHECK(!memcmp(g, gref, sizeof(int) * (n / P) * P), "nonblocking: iallgather round %d", r);
        /* and a blocking reduce_scatter with uneven counts between them */
        int *rc = malloc(sizeof(int) * (size_t)P);
        for (int i = 0; i < P; i++)
            rc[i] = (i * 7 + r) % 5 + 1;
        if (5 * P <= n) {
            MPI_Reduce_scatter(a, rs, rc, MPI_INT, MPI_SUM, comm);
            PMPI_Reduce_scatter(a, ref, rc, MPI_INT, MPI_SUM, comm);
            CHECK(!memcmp(rs, ref, sizeof(int) * rc[me]), "reduce_scatter round %d", r);
        }
        free(rc);
    }
    free(a), free(ar), free(ref), free(g), free(gref), free(bc), free(rs), free(sb), free(rb);
}

/* Bad input is the MPI's business: the same error class as PMPI's, through
 * the communicator's error handler (MPI_ERRORS_RETURN here). */
static void check_errors(MPI_Comm comm)
{
    int P, a[4] = {0}, b[4], cls = 0, ref = 0, rc, prc;
    MPI_Comm_size(comm, &P);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
#ifndef MPICH /* MPICH 4.0's allreduce copies count * size bytes before it checks count */
    rc = MPI_Allreduce(a, b, -1, MPI_INT, MPI_SUM, comm);
    prc = PMPI_Allreduce(a, b, -1, MPI_INT, MPI_SUM, comm);
    MPI_Error_class(rc, &cls);
    MPI_Error_class(prc, &ref);
    CHECK(rc != MPI_SUCCESS && cls == ref, "allreduce count -1: class %d, the MPI's %d", cls, ref);
#else
    if (rank == 0)
        printf("mpi_check: allreduce with count -1 not run under MPICH (it copies -4 bytes)\n");
#endif
    rc = MPI_Bcast(a, 4, MPI_INT, P + 3, comm);
    prc = PMPI_Bcast(a, 4, MPI_INT, P + 3, comm);
    MPI_Error_class(rc, &cls);
    MPI_Error_class(prc, &ref);
    CHECK(rc != MPI_SUCCESS && cls == ref, "bcast root P+3: class %d, the MPI's %d", cls, ref);
    rc = MPI_Allreduce(a, b, 4, MPI_FLOAT, MPI_BXOR, comm);
    prc = PMPI_Allreduce(a, b, 4, MPI_FLOAT, MPI_BXOR, comm);
    MPI_Error_class(rc, &cls);
    MPI_Error_class(prc, &ref);
    CHECK(rc != MPI_SUCCESS && cls == ref, "allreduce bxor float: class %d, the MPI's %d", cls,
          ref);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
}

/* What lincoll does not take still gives the MPI's result. */
static void check_fallbacks(MPI_Comm comm)
{
    int v[64], out[64], ref[64];
    for (int i = 0; i < 64; i++)
        v[i] = (rank + i) % 3;
    /* one signature, two datatypes across ranks: every rank decides alike */
    MPI_Allreduce(v, out, 64, rank % 2 ? MPI_INT32_T : MPI_INT, MPI_SUM, comm);
    PMPI_Allreduce(v, ref, 64, MPI_INT, MPI_SUM, comm);
    CHECK(!memcmp(out, ref, sizeof(out)), "allreduce MPI_INT / MPI_INT32_T");
    long long w[64], wout[64], wref[64];
    for (int i = 0; i < 64; i++)
        w[i] = (long long)(rank + 1) << 33;
    MPI_Allreduce(w, wout, 64, rank % 2 ? MPI_INT64_T : MPI_LONG_LONG, MPI_MAX, comm);
    PMPI_Allreduce(w, wref, 64, MPI_LONG_LONG, MPI_MAX, comm);
    CHECK(!memcmp(wout, wref, sizeof(wout)), "allreduce MPI_LONG_LONG / MPI_INT64_T");
    MPI_Allreduce(v, out, 64, MPI_INT, MPI_LAND, comm);
    PMPI_Allreduce(v, ref, 64, MPI_INT, MPI_LAND, comm);
    CHECK(!memcmp(out, ref, sizeof(out)), "allreduce land");
    struct {
        int v, i;
    } p = {rank * 7 % 5, rank}, q, r;
    MPI_Allreduce(&p, &q, 1, MPI_2INT, MPI_MAXLOC, comm);
    PMPI_Allreduce(&p, &r, 1, MPI_2INT, MPI_MAXLOC, comm);
    CHECK(q.v == r.v && q.i == r.i, "allreduce maxloc");
}

/* Many calls with buffers that change (and come back at addresses freed
 * before): every result is checked against its closed form. */
static void check_cache(MPI_Comm comm, int calls)
{
    int P;
    MPI_Comm_size(comm, &P);
    int bad = 0;
    for (int c = 0; c < calls; c++) {
        const int n = 1 + (c * 37) % 3000;
        int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n; i++)
            in[i] = c + i + rank;
        MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, comm);
        for (int i = 0; i < n; i++)
            bad += out[i] != P * (c + i) + P * (P - 1) / 2;
        free(in);
        free(out);
    }
    CHECK(bad == 0, "cache: %d wrong elements over %d calls", bad, calls);
}

/* lincoll's count of taken calls of @p op on this rank (liblincoll_mpi.so's
 * lincoll_mpi_stat_get); -1 when the library is not loaded. */
static double taken(const char *op)
{
    int (*get)(const char *, double[3]) =
        (int (*)(const char *, double[3]))dlsym(RTLD_DEFAULT, "lincoll_mpi_stat_get");
    double v[3] = {-1, -1, -1};
    if (get == NULL || get(op, v) != 0) return -1;
    return v[0];
}

/* Reductions on @p comm against PMPI's; lincoll must take them. */
static void check_group_reductions(MPI_Comm comm, const char *cname)
{
    int me, P;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    const int n = 4099;
    int *in = malloc(sizeof(int) * (size_t)n * (size_t)P),
        *out = calloc((size_t)n * P, sizeof(int)), *ref = calloc((size_t)n * P, sizeof(int));
    for (int i = 0; i < n * P; i++)
        in[i] = i % 977 + 3 * me;
    const double t0 = taken("allreduce"), r0 = taken("reduce"), s0 = taken("reduce_scatter_block");
    MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, comm);
    PMPI_Allreduce(in, ref, n, MPI_INT, MPI_SUM, comm);
    CHECK(!memcmp(out, ref, sizeof(int) * n), "%s allreduce", cname);
    MPI_Reduce(in, out, n, MPI_INT, MPI_MAX, P - 1, comm);
    PMPI_Reduce(in, ref, n, MPI_INT, MPI_MAX, P - 1, comm);
    CHECK(me != P - 1 || !memcmp(out, ref, sizeof(int) * n), "%s reduce root %d", cname, P - 1);
    MPI_Reduce_scatter_block(in, out, n, MPI_INT, MPI_SUM, comm);
    PMPI_Reduce_scatter_block(in, ref, n, MPI_INT, MPI_SUM, comm);
    CHECK(!memcmp(out, ref, sizeof(int) * n), "%s reduce_scatter_block", cname);
    CHECK(taken("allreduce") > t0 && taken("reduce") > r0 && taken("reduce_scatter_block") > s0,
          "%s: lincoll did not take the reductions (allreduce %.0f -> %.0f)", cname, t0,
          taken("allreduce"));
    free(in);
    free(out);
    free(ref);
}

/* Communicators of MPI_Comm_create_group, made by their members only while
 * the other ranks make theirs: the evens, the odds in reverse order, and an
 * overlapping one {last, 1, 0}; each is checked, used in turn with the
 * others, and freed. */
static void check_groups(void)
{
    MPI_Group world, evens, odds, mixed;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ev[64], od[64], ne = 0, no = 0;
    for (int r = 0; r < nranks; r++) {
        if (r % 2)
            od[no++] = r;
        else
            ev[ne++] = r;
    }
    for (int i = 0; i < no / 2; i++) { /* the odds reversed: group order is not world order */
        int t = od[i];
        od[i] = od[no - 1 - i];
        od[no - 1 - i] = t;
    }
    const int mx[3] = {nranks - 1, 1, 0};
    MPI_Group_incl(world, ne, ev, &evens);
    MPI_Group_incl(world, no, od, &odds);
    MPI_Group_incl(world, 3, mx, &mixed);
    MPI_Comm half = MPI_COMM_NULL, three = MPI_COMM_NULL;
    MPI_Comm_create_group(MPI_COMM_WORLD, rank % 2 ? odds : evens, 7 + rank % 2, &half);
    const int in3 = rank == 0 || rank == 1 || rank == nranks - 1;
    if (in3) MPI_Comm_create_group(MPI_COMM_WORLD, mixed, 9, &three);
    for (int round = 0; round < 2; round++) {
        check_moves(half, rank % 2 ? "create_group(odds reversed)" : "create_group(evens)");
        check_group_reductions(half, rank % 2 ? "create_group(odds)" : "create_group(evens)");
        if (in3) {
            check_moves(three, "create_group({last,1,0})");
            check_group_reductions(three, "create_group({last,1,0})");
        }
    }
    /* a group made from a group: the first two members of the half */
    MPI_Group hg, sub;
    int two[2] = {0, 1}, hme, hsize;
    MPI_Comm_rank(half, &hme);
    MPI_Comm_size(half, &hsize);
    MPI_Comm_group(half, &hg);
    MPI_Group_incl(hg, hsize > 1 ? 2 : 1, two, &sub);
    if (hme < 2) {
        MPI_Comm pair;
        MPI_Comm_create_group(half, sub, 11, &pair);
        check_group_reductions(pair, "create_group(half's first two)");
        MPI_Comm_free(&pair);
    }
    MPI_Group_free(&sub);
    MPI_Group_free(&hg);
    if (in3) MPI_Comm_free(&three);
    MPI_Comm_free(&half);
    MPI_Group_free(&evens);
    MPI_Group_free(&odds);
    MPI_Group_free(&mixed);
    MPI_Group_free(&world);
}

int main(int argc, char **argv)
{
    int calls = 10000, provided, light = 0, group = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cache") && i + 1 < argc) calls = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--light")) light = 1;
        if (!strcmp(argv[i], "--group")) group = 1;
    }
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (group) {
        if (nranks < 5 || nranks > 64 || taken("allreduce") < 0) {
            if (rank == 0)
                fprintf(stderr, "mpi_check --group: needs 5 to 64 ranks and liblincoll_mpi.so\n");
            failures++;
        } else {
            check_groups();
        }
        int all = 0;
        PMPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0)
            printf("mpi_check --group: %d ranks, %s (%d failures)\n", nranks, all ? "FAILED" : "ok",
                   all);
        MPI_Finalize();
        return all ? 1 : 0;
    }
    if (!light) check_reductions(MPI_COMM_WORLD, "world");
    check_moves(MPI_COMM_WORLD, "world");
    /* overlapping communicators from split, used alternately */
    MPI_Comm odd, low, dup;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, nranks - rank, &odd);
    MPI_Comm_split(MPI_COMM_WORLD, rank < (nranks + 1) / 2, rank, &low);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int round = 0; round < 2; round++) {
        check_moves(odd, "split(rank%2)");
        check_moves(low, "split(low half)");
    }
    if (!light) check_reductions(low, "split(low half)");
    check_fallbacks(dup);
    check_errors(dup);
    check_nonblocking(dup, 20);
    MPI_Barrier(odd);
    MPI_Comm_free(&odd);
    MPI_Comm_free(&low);
    check_cache(dup, calls);
    MPI_Barrier(dup);
    MPI_Comm_free(&dup);
    int all = 0;
    PMPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_check: %d ranks, %s (%d failures)\n", nranks, all ? "FAILED" : "ok", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
