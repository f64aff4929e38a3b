/*
 * perf/anchors/ucc_coll.c: UCC's collectives (github.com/openucx/ucc, its CPU
 * path tl/ucp over the same UCX as lincoll) timed as perf/anchors/mpi_coll.c
 * times Open MPI's: mean time per call, the slowest rank's, float sum, root 0,
 * malloc'd host buffers, out of place.
 *
 *   mpirun -np P ucc_coll OP MAXBYTES [ITERS] [yield]
 *     OP: allreduce, reduce_scatter, allgather, bcast, reduce (UCC_COLL_TYPE_*).
 *     Sizes 8, 32, 128, ... (x4) up to MAXBYTES (suffix k/m/g allowed), the
 *     sizes of mpi_coll and perf/rhd_sweep.sh.  A size is the whole vector:
 *     allreduce, bcast and reduce move it from every rank; reduce_scatter and
 *     allgather use blocks of size/P bytes (at least one float).  ITERS timed
 *     calls per size (0 or absent: 2000 below 64 KiB, 200 below 4 MiB, 40
 *     above), after ITERS/10 + 1 untimed ones.
 *     yield: sched_yield() after every unfinished progress call (for more
 *     ranks than cores: busy-polling ranks otherwise wait out time slices).
 *   rank 0 prints one line per size:
 *     BYTES AVG_US
 *   Persistent collectives: one ucc_collective_init (UCC_COLL_ARGS_FLAG_PERSISTENT)
 *   per size, then per call ucc_collective_post and ucc_collective_test /
 *   ucc_context_progress until done.  Every size is checked on its first
 *   call and again after the timed calls (rank r contributes r + 1 + element
 *   index mod 7; the result must be exact); a mismatch aborts the job.
 * UCC_CL_BASIC_TLS defaults to "ucp" unless set.  Open MPI only bootstraps
 * UCC (its out-of-band allgather) and reduces the timings.
 * Built by perf/anchors/build.sh when LINCOLL_UCC_SRC names a UCC source
 * tarball (1.3.0 is the newest that builds against Debian 12's UCX 1.13).
 */
#include <mpi.h>
#include <sched.h>
#include <ucc/api/ucc.h>

#include "anchor_util.h"

static const char usage[] =
    "allreduce|reduce_scatter|allgather|bcast|reduce MAXBYTES [ITERS] [yield]   (under mpirun)";

enum op { ALLREDUCE, REDUCE_SCATTER, ALLGATHER, BCAST, REDUCE };
static const char *const op_names[] = {"allreduce", "reduce_scatter", "allgather", "bcast",
                                       "reduce"};

static ucc_context_h ctx;
static ucc_team_h team;
static ucc_lib_h lib;
static int yield_cpu;

static void must(ucc_status_t st, const char *what)
{
    if (st == UCC_OK) return;
    fprintf(stderr, "ucc_coll: %s: %s\n", what, ucc_status_string(st));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* the out-of-band allgather UCC needs to wire up: MPI on MPI_COMM_WORLD */
static ucc_status_t oob_allgather(void *sbuf, void *rbuf, size_t len, void *info, void **req)
{
    MPI_Request *r = malloc(sizeof(*r));
    if (r == NULL) return UCC_ERR_NO_MEMORY;
    MPI_Iallgather(sbuf, (int)len, MPI_BYTE, rbuf, (int)len, MPI_BYTE, (MPI_Comm)info, r);
    *req = r;
    return UCC_OK;
}

static ucc_status_t oob_test(void *req)
{
    int done = 0;
    MPI_Test((MPI_Request *)req, &done, MPI_STATUS_IGNORE);
    return done ? UCC_OK : UCC_INPROGRESS;
}

static ucc_status_t oob_free(void *req)
{
    free(req);
    return UCC_OK;
}

static void info_of(ucc_coll_buffer_info_t *b, float *p, long n)
{
    b->buffer = p;
    b->count = (uint64_t)n;
    b->datatype = UCC_DT_FLOAT32;
    b->mem_type = UCC_MEMORY_TYPE_HOST;
}

/* one persistent collective of op over n floats (blk per rank) */
static ucc_coll_req_h init_op(enum op op, float *s, float *d, long n, long blk, int P)
{
    ucc_coll_args_t a;
    memset(&a, 0, sizeof(a));
    a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
    a.flags = UCC_COLL_ARGS_FLAG_PERSISTENT;
    a.op = UCC_OP_SUM;
    a.root = 0;
    switch (op) {
    case ALLREDUCE:
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        info_of(&a.src.info, s, n);
        info_of(&a.dst.info, d, n);
        break;
    case REDUCE_SCATTER:
        a.coll_type = UCC_COLL_TYPE_REDUCE_SCATTER;
        info_of(&a.src.info, s, blk * P);
        info_of(&a.dst.info, d, blk);
        break;
    case ALLGATHER:
        a.coll_type = UCC_COLL_TYPE_ALLGATHER;
        info_of(&a.src.info, s, blk);
        info_of(&a.dst.info, d, blk * P);
        break;
    case BCAST:
        a.coll_type = UCC_COLL_TYPE_BCAST;
        info_of(&a.src.info, s, n);
        break;
    case REDUCE:
        a.coll_type = UCC_COLL_TYPE_REDUCE;
        info_of(&a.src.info, s, n);
        info_of(&a.dst.info, d, n);
        break;
    }
    ucc_coll_req_h req;
    must(ucc_collective_init(&a, &req, team), "ucc_collective_init");
    return req;
}

static void run(ucc_coll_req_h req)
{
    must(ucc_collective_post(req), "ucc_collective_post");
    ucc_status_t st;
    while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
        if (yield_cpu) sched_yield();
    }
    must(st, "ucc_collective_test");
}

static float contrib(int rank, long i)
{
    return (float)(rank + 1 + i % 7);
}

/* the number of wrong elements this rank holds after op */
static long wrong(enum op op, const float *s, const float *d, long n, long blk, int me, int P)
{
    long bad = 0;
    float ranks = (float)P * (float)(P + 1) / 2; /* sum of rank + 1 */
    switch (op) {
    case ALLREDUCE:
    case REDUCE:
        if (op == REDUCE && me != 0) break;
        for (long i = 0; i < n; i++)
            bad += d[i] != ranks + (float)P * (float)(i % 7);
        break;
    case REDUCE_SCATTER:
        for (long i = 0; i < blk; i++)
            bad += d[i] != ranks + (float)P * (float)(((long)me * blk + i) % 7);
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

static void check(enum op op, const float *s, const float *d, long n, long blk, int me, int P,
                  uint64_t b, const char *when)
{
    long bad = wrong(op, s, d, n, blk, me, P), all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (all == 0) return;
    if (me == 0)
        fprintf(stderr, "ucc_coll: %s of %llu bytes, %s: %ld wrong elements\n", op_names[op],
                (unsigned long long)b, when, all);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void setup(int me, int P)
{
    setenv("UCC_CL_BASIC_TLS", "ucp", 0);
    ucc_lib_config_h lcfg;
    ucc_lib_params_t lp = {.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE,
                           .thread_mode = UCC_THREAD_SINGLE};
    must(ucc_lib_config_read(NULL, NULL, &lcfg), "ucc_lib_config_read");
    must(ucc_init(&lp, lcfg, &lib), "ucc_init");
    ucc_lib_config_release(lcfg);
    ucc_oob_coll_t oob = {.allgather = oob_allgather,
                          .req_test = oob_test,
                          .req_free = oob_free,
                          .coll_info = (void *)MPI_COMM_WORLD,
                          .n_oob_eps = (uint32_t)P,
                          .oob_ep = (uint32_t)me};
    ucc_context_config_h ccfg;
    ucc_context_params_t cp = {.mask = UCC_CONTEXT_PARAM_FIELD_OOB, .oob = oob};
    must(ucc_context_config_read(lib, NULL, &ccfg), "ucc_context_config_read");
    must(ucc_context_create(lib, &cp, ccfg, &ctx), "ucc_context_create");
    ucc_context_config_release(ccfg);
    ucc_team_params_t tp = {.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE |
                                    UCC_TEAM_PARAM_FIELD_OOB,
                            .oob = oob,
                            .ep = (uint64_t)me,
                            .ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG};
    must(ucc_team_create_post(&ctx, 1, &tp, &team), "ucc_team_create_post");
    ucc_status_t st;
    while ((st = ucc_team_create_test(team)) == UCC_INPROGRESS)
        ucc_context_progress(ctx);
    must(st, "ucc_team_create_test");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc > 3 && strcmp(argv[argc - 1], "yield") == 0) {
        yield_cpu = 1;
        argc--;
    }
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
        argc > 3 ? anchor_parse_int(argv[0], usage, "ITERS", argv[3], 0, 10000000) : 0;

    size_t cap = (size_t)maxb / sizeof(float) * (size_t)P + (size_t)P + 16;
    float *s = malloc(cap * sizeof(float)), *d = malloc(cap * sizeof(float));
    if (s == NULL || d == NULL) {
        fprintf(stderr, "%s: out of memory (MAXBYTES=%llu)\n", argv[0], (unsigned long long)maxb);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    setup(me, P);
    for (uint64_t b = 8; b <= maxb; b *= 4) {
        long n = (long)(b / sizeof(float));
        long blk = n / P > 0 ? n / P : 1;
        int iters = fixed_iters               ? fixed_iters
                    : b < 65536               ? 2000
                    : b < ((uint64_t)4 << 20) ? 200
                                              : 40;
        long in_len = op == REDUCE_SCATTER ? blk * P : op == ALLGATHER ? blk : n;
        for (long i = 0; i < in_len; i++)
            s[i] = (op == BCAST && me != 0) ? -1.0f : contrib(me, i);
        memset(d, 0, cap * sizeof(float));
        ucc_coll_req_h req = init_op((enum op)op, s, d, n, blk, P);
        run(req);
        check((enum op)op, s, d, n, blk, me, P, b, "first call");
        for (int i = 0; i < iters / 10 + 1; i++)
            run(req);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++)
            run(req);
        double t = (MPI_Wtime() - t0) / iters, tmax = 0;
        check((enum op)op, s, d, n, blk, me, P, b, "after the timed calls");
        must(ucc_collective_finalize(req), "ucc_collective_finalize");
        MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (me == 0) {
            printf("%llu %.2f\n", (unsigned long long)b, tmax * 1e6);
            fflush(stdout);
        }
    }
    ucc_status_t st;
    while ((st = ucc_team_destroy(team)) == UCC_INPROGRESS)
        ucc_context_progress(ctx);
    ucc_context_destroy(ctx);
    ucc_finalize(lib);
    free(s);
    free(d);
    MPI_Finalize();
    return 0;
}
