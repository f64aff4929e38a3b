/*
 * test/matrix/matrix_ucx.c: one launch of the test matrix (docs/reliability.md,
 * "The test matrix"), one process per rank under lincoll-run, mpirun or srun.
 * Public API only.
 *
 *   matrix_ucx FAMILY OP ALGO MEMS SIZES [PORTS]
 *     FAMILY  coll | p2p | encode | rs | repair | matmul
 *     OP      coll: allreduce reduce_scatter allgather bcast reduce; else "-"
 *     ALGO    the algorithm, forced by the launcher through LINCOLL_<X>_ALGO
 *             (the name is only printed here, and picks matmul's grid;
 *             "auto" for the model's choice)
 *     MEMS    host,lincoll: malloc buffers and lincoll_mem_alloc buffers
 *     SIZES   comma list: elements per rank (coll), bytes (p2p, encode, rs,
 *             repair: packet bytes), matrix order (matmul)
 *     PORTS   encode, rs and repair ports (default 1)
 *
 * A cell is one (memory kind, in place or not, size) of the launch.  Each
 * cell compiles its plan, compiles and frees a twin of the same call at once
 * (how benchmarks probe the model's choice: the pattern that once freed a
 * window a slower peer still attached), runs the plan twice (persistent
 * restart, inputs written again before each start) and checks every rank's
 * result against a closed form the rank computes itself (collectives and
 * point to point: small integers, exact in any order; encode, RS and repair:
 * the field arithmetic of lincoll_gf_mul on every input; matmul: a serial
 * lincoll_gemm_base of the global matrices, gathered at rank 0).  Size 0
 * where the call refuses it (packets of encode) must be LINCOLL_ERR_INVALID
 * on every rank.  The collectives add a cell per size that starts all five
 * operations at once and waits for them together.
 *
 * Rank 0 prints one line per cell, "matrix_ucx: cell ... ok|FAILED", and at
 * the end "matrix_ucx: N cells, F failed"; every rank exits non-zero when a
 * check failed on it.
 */
#include <lincoll/lincoll.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me = -1, P, cells, failed_cells;
static lincoll_context_t *ctx;
static lincoll_comm_t *world;
static char cell_name[256];
static int cell_bad; /* failures in the current cell (this rank) */

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (cell_bad++ < 3) {                                                                  \
                fprintf(stderr, "matrix_ucx: rank %d: %s: FAILED line %d: ", me, cell_name,        \
                        __LINE__);                                                                 \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fputc('\n', stderr);                                                               \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* ---- cells and buffers ------------------------------------------------------ */

static void cell_begin(const char *fmt, const char *a, const char *b, const char *mem, int inplace,
                       size_t size)
{
    snprintf(cell_name, sizeof(cell_name), fmt, a, b);
    size_t n = strlen(cell_name);
    snprintf(cell_name + n, sizeof(cell_name) - n, "/%s/%s/%zu P=%d", mem,
             inplace ? "inplace" : "outofplace", size, P);
    cell_bad = 0;
}

/* Every rank learns whether the cell failed anywhere (so rank 0's line is
 * the job's verdict), through lincoll itself only when it still works. */
static void cell_end(const char *plan_name)
{
    int32_t bad = cell_bad > 0, any = 0;
    lincoll_status_t st = lincoll_allreduce(world, &bad, &any, 1, LINCOLL_INT32, LINCOLL_MAX);
    if (st != LINCOLL_OK) any = 1;
    cells++;
    if (cell_bad) failed_cells++;
    if (me == 0)
        printf("matrix_ucx: cell %s plan=%s %s\n", cell_name, plan_name ? plan_name : "-",
               any ? "FAILED" : "ok");
}

typedef struct {
    int lincoll_mem;
    void *p;
} buf_t;

static void *buf_alloc(buf_t *b, int lincoll_mem, size_t bytes)
{
    b->lincoll_mem = lincoll_mem;
    b->p = NULL;
    if (bytes == 0) bytes = 8;
    if (lincoll_mem) {
        if (lincoll_mem_alloc(ctx, bytes, &b->p) != LINCOLL_OK) b->p = NULL;
    } else {
        b->p = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    }
    if (b->p != NULL) memset(b->p, 0xA5, bytes);
    return b->p;
}

static void buf_free(buf_t *b)
{
    if (b->p == NULL) return;
    if (b->lincoll_mem)
        lincoll_mem_free(ctx, b->p);
    else
        free(b->p);
    b->p = NULL;
}

static const char *plan_algo(lincoll_plan_t *p, char *out, size_t len)
{
    lincoll_plan_stats_t s;
    if (p == NULL || lincoll_plan_stats(p, &s) != LINCOLL_OK) return "-";
    snprintf(out, len, "%s", s.algorithm);
    return out;
}

static lincoll_status_t run(lincoll_plan_t *p)
{
    lincoll_status_t st = lincoll_start(p);
    return st == LINCOLL_OK ? lincoll_wait(p) : st;
}

/* ---- collectives -------------------------------------------------------------- */

enum { AR, RS, AG, BC, RD, NOPS };
static const char *const op_names[NOPS] = {"allreduce", "reduce_scatter", "allgather", "bcast",
                                           "reduce"};

/* Element i of rank r's input: a small integer, exact in int32 and double. */
static int32_t v(int r, size_t i)
{
    return (int32_t)((r * 7 + (int)(i % 1009) * 13) % 97) - 40;
}

typedef struct {
    int op, inplace;
    size_t n;
    lincoll_dtype_t dt;
    buf_t s, r;
    lincoll_plan_t *plan;
} coll_t;

static size_t esize(lincoll_dtype_t dt)
{
    return dt == LINCOLL_DOUBLE ? 8 : 4;
}

static void setv(lincoll_dtype_t dt, void *b, size_t i, int64_t x)
{
    if (dt == LINCOLL_DOUBLE)
        ((double *)b)[i] = (double)x;
    else
        ((int32_t *)b)[i] = (int32_t)x;
}

static int64_t getv(lincoll_dtype_t dt, const void *b, size_t i)
{
    return dt == LINCOLL_DOUBLE ? (int64_t)llround(((const double *)b)[i])
                                : ((const int32_t *)b)[i];
}

static int root_of(int op)
{
    return op == BC ? P - 1 : P / 2;
}

/* Input and output element counts of this rank. */
static void coll_sizes(const coll_t *c, size_t *ns, size_t *nr)
{
    size_t n = c->n, Pn = (size_t)P * n;
    switch (c->op) {
    case RS:
        *ns = Pn, *nr = c->inplace ? Pn : n;
        break;
    case AG:
        *ns = n, *nr = Pn;
        break;
    default:
        *ns = n, *nr = n;
        break;
    }
}

static void coll_fill(coll_t *c)
{
    size_t ns, nr;
    coll_sizes(c, &ns, &nr);
    void *in = c->inplace ? c->r.p : c->s.p;
    if (c->op == AG && c->inplace) { /* the own block of rbuf */
        for (size_t i = 0; i < c->n; i++)
            setv(c->dt, c->r.p, (size_t)me * c->n + i, v(me, i));
        return;
    }
    if (c->op == BC) {
        for (size_t i = 0; i < c->n; i++)
            setv(c->dt, c->r.p, i, me == root_of(BC) ? v(me, i) : 12345);
        return;
    }
    for (size_t i = 0; i < ns; i++)
        setv(c->dt, in, i, v(me, i));
    if (!c->inplace)
        for (size_t i = 0; i < nr; i++)
            setv(c->dt, c->r.p, i, 777);
}

static lincoll_status_t coll_init(coll_t *c, lincoll_plan_t **pp)
{
    const void *s = c->inplace ? LINCOLL_IN_PLACE : c->s.p;
    switch (c->op) {
    case AR:
        return lincoll_allreduce_init(world, s, c->r.p, c->n, c->dt, LINCOLL_SUM, pp);
    case RS:
        return lincoll_reduce_scatter_init(world, s, c->r.p, c->n, c->dt, LINCOLL_SUM, pp);
    case AG:
        return lincoll_allgather_init(world, s, c->r.p, c->n, c->dt, pp);
    case BC:
        return lincoll_bcast_init(world, c->r.p, c->n, c->dt, root_of(BC), pp);
    default:
        return lincoll_reduce_init(world, s, c->r.p, c->n, c->dt, LINCOLL_SUM, root_of(RD), pp);
    }
}

static int64_t coll_expect(const coll_t *c, size_t i)
{
    int64_t acc = 0;
    switch (c->op) {
    case AR:
    case RD:
        for (int r = 0; r < P; r++)
            acc += v(r, i);
        return acc;
    case RS:
        for (int r = 0; r < P; r++)
            acc += v(r, (size_t)me * c->n + i);
        return acc;
    case AG:
        return v((int)(i / c->n), i % c->n);
    default:
        return v(root_of(BC), i);
    }
}

static void coll_check(const coll_t *c)
{
    size_t n = c->op == AG ? (size_t)P * c->n : c->n;
    if (c->op == RD && me != root_of(RD)) return;
    for (size_t i = 0; i < n; i++) {
        int64_t want = coll_expect(c, i), got = getv(c->dt, c->r.p, i);
        if (got != want) {
            CHECK(0, "%s element %zu: %lld, expected %lld", op_names[c->op], i, (long long)got,
                  (long long)want);
            return;
        }
    }
    if (!c->inplace && c->op == RS) { /* nothing written past the own count */
        size_t ns, nr;
        coll_sizes(c, &ns, &nr);
        for (size_t i = c->n; i < nr; i++)
            if (getv(c->dt, c->r.p, i) != 777) CHECK(0, "reduce_scatter wrote past count");
    }
}

static int coll_setup(coll_t *c, int op, int lmem, int inplace, size_t n)
{
    memset(c, 0, sizeof(*c));
    c->op = op;
    c->inplace = inplace;
    c->n = n;
    c->dt = (n % 2) ? LINCOLL_INT32 : LINCOLL_DOUBLE;
    size_t ns, nr;
    coll_sizes(c, &ns, &nr);
    if (!inplace && buf_alloc(&c->s, lmem, ns * esize(c->dt)) == NULL) return -1;
    if (buf_alloc(&c->r, lmem, nr * esize(c->dt)) == NULL) return -1;
    return 0;
}

static void coll_cell(int op, int lmem, int inplace, size_t n)
{
    coll_t c;
    char an[64] = "-";
    cell_begin("coll/%s/%s", op_names[op], getenv("MATRIX_ALGO") ? getenv("MATRIX_ALGO") : "auto",
               lmem ? "lincoll" : "host", inplace, n);
    if (coll_setup(&c, op, lmem, inplace, n) != 0) {
        CHECK(0, "out of memory");
        cell_end(NULL);
        return;
    }
    lincoll_status_t st = coll_init(&c, &c.plan);
    CHECK(st == LINCOLL_OK, "init: %s", lincoll_strerror(st));
    lincoll_plan_t *twin = NULL;
    if (st == LINCOLL_OK) {
        lincoll_status_t ts = coll_init(&c, &twin);
        CHECK(ts == LINCOLL_OK, "twin init: %s", lincoll_strerror(ts));
        lincoll_plan_free(twin);
    }
    for (int it = 0; it < 2 && st == LINCOLL_OK; it++) {
        coll_fill(&c);
        st = run(c.plan);
        CHECK(st == LINCOLL_OK, "run %d: %s", it, lincoll_strerror(st));
        if (st == LINCOLL_OK) coll_check(&c);
    }
    plan_algo(c.plan, an, sizeof(an));
    lincoll_plan_free(c.plan);
    buf_free(&c.s);
    buf_free(&c.r);
    cell_end(an);
}

/* The five operations started together, then waited for together. */
static void coll_concurrent(int lmem, size_t n)
{
    coll_t c[NOPS];
    lincoll_status_t st = LINCOLL_OK;
    cell_begin("coll/%s/%s", "concurrent", "auto", lmem ? "lincoll" : "host", 0, n);
    for (int op = 0; op < NOPS; op++) {
        if (coll_setup(&c[op], op, lmem, 0, n) != 0) st = LINCOLL_ERR_NOMEM;
        if (st == LINCOLL_OK) st = coll_init(&c[op], &c[op].plan);
    }
    CHECK(st == LINCOLL_OK, "init: %s", lincoll_strerror(st));
    for (int it = 0; it < 2 && st == LINCOLL_OK; it++) {
        for (int op = 0; op < NOPS; op++)
            coll_fill(&c[op]);
        for (int op = 0; op < NOPS && st == LINCOLL_OK; op++)
            st = lincoll_start(c[op].plan);
        for (int op = NOPS - 1; op >= 0 && st == LINCOLL_OK; op--)
            st = lincoll_wait(c[op].plan);
        CHECK(st == LINCOLL_OK, "run %d: %s", it, lincoll_strerror(st));
        for (int op = 0; op < NOPS && st == LINCOLL_OK; op++)
            coll_check(&c[op]);
    }
    for (int op = 0; op < NOPS; op++) {
        lincoll_plan_free(c[op].plan);
        buf_free(&c[op].s);
        buf_free(&c[op].r);
    }
    cell_end("five");
}

/* ---- point to point ------------------------------------------------------------ */

static uint8_t pv(int r, size_t i)
{
    return (uint8_t)(r * 31 + i * 7 + (i >> 8));
}

/* A ring shift (send right, receive from left, one round) and a tagged
 * ping-pong between pairs (0-1, 2-3, ...; an odd last rank sends to itself). */
static void p2p_cell(int lmem, size_t bytes)
{
    cell_begin("p2p/%s/%s", "sendrecv", "-", lmem ? "lincoll" : "host", 0, bytes);
    buf_t s, r;
    buf_alloc(&s, lmem, bytes);
    buf_alloc(&r, lmem, bytes);
    int right = (me + 1) % P, left = (me + P - 1) % P;
    int peer = (me ^ 1) < P ? (me ^ 1) : me;
    for (int kind = 0; kind < 2; kind++) {
        lincoll_plan_t *p = NULL, *twin = NULL;
        lincoll_status_t st;
        int from = kind == 0 ? left : peer;
        for (size_t i = 0; i < bytes; i++)
            ((uint8_t *)s.p)[i] = pv(me, i);
        memset(r.p, 0, bytes ? bytes : 1);
        if (kind == 0) {
            st = lincoll_sendrecv_init(world, s.p, bytes, right, r.p, bytes, left,
                                       LINCOLL_SENDRECV_CONCURRENT, &p);
        } else {
            lincoll_sendrecv_order_t o = peer == me      ? LINCOLL_SENDRECV_CONCURRENT
                                         : (me & 1) == 0 ? LINCOLL_SENDRECV_SEND_FIRST
                                                         : LINCOLL_SENDRECV_RECV_FIRST;
            st = lincoll_sendrecv_tagged_init(world, s.p, bytes, peer, r.p, bytes, peer, 77, o, &p);
            if (st == LINCOLL_OK)
                lincoll_sendrecv_tagged_init(world, s.p, bytes, peer, r.p, bytes, peer, 78, o,
                                             &twin);
            lincoll_plan_free(twin);
        }
        CHECK(st == LINCOLL_OK, "init %d: %s", kind, lincoll_strerror(st));
        for (int it = 0; it < 2 && st == LINCOLL_OK; it++) {
            st = run(p);
            CHECK(st == LINCOLL_OK, "run %d/%d: %s", kind, it, lincoll_strerror(st));
        }
        for (size_t i = 0; st == LINCOLL_OK && i < bytes; i++) {
            if (((uint8_t *)r.p)[i] != pv(from, i)) {
                CHECK(0, "kind %d byte %zu from rank %d", kind, i, from);
                break;
            }
        }
        lincoll_plan_free(p);
    }
    buf_free(&s);
    buf_free(&r);
    cell_end("sendrecv");
}

/* ---- encode, RS, repair ------------------------------------------------------- */

static uint64_t mix(uint64_t a, uint64_t b)
{
    uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 29);
}

static size_t fes(const lincoll_field_t *f)
{
    return lincoll_gf_field_elem_size(f);
}

static uint64_t fget(const lincoll_field_t *f, const void *b, size_t e)
{
    return fes(f) == 1 ? ((const uint8_t *)b)[e] : ((const uint32_t *)b)[e];
}

static uint64_t xval(const lincoll_field_t *f, int j, size_t e)
{
    return mix((uint64_t)j * 1000003u + 5, e) % lincoll_gf_field_order(f);
}

static void xfill(const lincoll_field_t *f, void *b, size_t B, int j)
{
    for (size_t e = 0; e < B / fes(f); e++) {
        if (fes(f) == 1)
            ((uint8_t *)b)[e] = (uint8_t)xval(f, j, e);
        else
            ((uint32_t *)b)[e] = (uint32_t)xval(f, j, e);
    }
}

/* out == sum_j col[j] x_j, every element (n: the ranks whose inputs count) */
static int combo_ok(const lincoll_field_t *f, const uint64_t *col, int n, const void *out, size_t B)
{
    for (size_t e = 0; e < B / fes(f); e++) {
        uint64_t acc = 0;
        for (int j = 0; j < n; j++)
            if (col[j]) acc = lincoll_gf_add(f, acc, lincoll_gf_mul(f, col[j], xval(f, j, e)));
        if (acc != fget(f, out, e)) return 0;
    }
    return 1;
}

/* One encode cell: the universal algorithms on a random K x K matrix over
 * GF(2^8); "specific": the DFT over 65537 where K | 65536 (natural order),
 * else the coset Vandermonde over GF(2^8). */
static void encode_cell(const char *algo, int ports, int lmem, size_t B)
{
    const int specific = strcmp(algo, "specific") == 0;
    lincoll_field_t *f = NULL;
    const int dft = specific && 65536 % P == 0;
    lincoll_gf_field_create(dft ? 65537 : 256, &f);
    size_t es = fes(f), Bq = B - B % es;
    char cname[32];
    snprintf(cname, sizeof(cname), "p%d", ports);
    cell_begin("encode/%s/%s", algo, cname, lmem ? "lincoll" : "host", 0, B);
    buf_t in, out;
    buf_alloc(&in, lmem, Bq);
    buf_alloc(&out, lmem, Bq);
    uint64_t q = lincoll_gf_field_order(f), *A = malloc(8 * (size_t)P * P), *col = malloc(8 * P),
             *pts = malloc(8 * P);
    for (int i = 0; i < P * P; i++)
        A[i] = mix((uint64_t)i, q + (uint64_t)ports) % q;
    lincoll_encode_opts_t o = {.ports = ports}; /* the algorithm: LINCOLL_ENCODE_ALGO */
    lincoll_plan_t *p = NULL, *twin = NULL;
    lincoll_status_t st, ts = LINCOLL_OK;
    if (dft) {
        st = lincoll_encode_dft_init(world, f, LINCOLL_ENCODE_DFT_NATURAL, Bq, in.p, out.p, &o, &p);
        if (st == LINCOLL_OK)
            ts = lincoll_encode_dft_init(world, f, LINCOLL_ENCODE_DFT_NATURAL, Bq, in.p, out.p, &o,
                                         &twin);
        uint64_t om = 1;
        lincoll_gf_root_of_unity(f, (uint64_t)P, &om);
        for (int j = 0; j < P; j++)
            col[j] = lincoll_gf_pow(f, om, (uint64_t)j * (uint64_t)me);
    } else if (specific) {
        st = lincoll_encode_vandermonde_init(world, f, NULL, pts, Bq, in.p, out.p, &o, &p);
        if (st == LINCOLL_OK)
            ts = lincoll_encode_vandermonde_init(world, f, NULL, pts, Bq, in.p, out.p, &o, &twin);
        for (int j = 0; j < P && st == LINCOLL_OK; j++)
            col[j] = lincoll_gf_pow(f, pts[me], (uint64_t)j);
    } else {
        st = lincoll_encode_init(world, f, A, P, P, Bq, in.p, out.p, &o, &p);
        if (st == LINCOLL_OK)
            ts = lincoll_encode_init(world, f, A, P, P, Bq, in.p, out.p, &o, &twin);
        for (int j = 0; j < P; j++)
            col[j] = A[(size_t)j * P + me];
    }
    lincoll_plan_free(twin);
    char an[64] = "-";
    if (Bq == 0) {
        CHECK(st == LINCOLL_ERR_INVALID, "a 0-byte packet: %s, expected invalid argument",
              lincoll_strerror(st));
    } else {
        CHECK(st == LINCOLL_OK && ts == LINCOLL_OK, "init: %s (twin: %s)", lincoll_strerror(st),
              lincoll_strerror(ts));
        for (int it = 0; it < 2 && st == LINCOLL_OK; it++) {
            xfill(f, in.p, Bq, me);
            memset(out.p, 0, Bq);
            st = run(p);
            CHECK(st == LINCOLL_OK, "run %d: %s", it, lincoll_strerror(st));
            if (st == LINCOLL_OK) CHECK(combo_ok(f, col, P, out.p, Bq), "wrong result");
        }
        plan_algo(p, an, sizeof(an));
    }
    lincoll_plan_free(p);
    buf_free(&in);
    buf_free(&out);
    free(A);
    free(col);
    free(pts);
    lincoll_gf_field_destroy(f);
    cell_end(an);
}

/* RS encode [P, k = P - 1] (Cauchy), then a repair of row 0 from the other
 * P - 1 rows (lincoll_encode_repair_k_init with ALGO: star, tree, chain). */
static void rs_cell(const char *what, const char *algo, int ports, int lmem, size_t B)
{
    lincoll_field_t *f = NULL;
    lincoll_gf_field_create(256, &f);
    cell_begin("%s/%s", what, algo, lmem ? "lincoll" : "host", 0, B);
    const int n = P, k = P - 1;
    uint64_t *G = malloc(8 * (size_t)n * (size_t)k), *col = calloc((size_t)n, 8);
    lincoll_gf_matrix_systematic(f, n, k, LINCOLL_GF_RS_CAUCHY, G);
    buf_t in, out;
    buf_alloc(&in, lmem, B);
    buf_alloc(&out, lmem, B);
    lincoll_plan_t *p = NULL, *twin = NULL;
    lincoll_status_t st, ts = LINCOLL_OK;
    const int repair = strcmp(what, "repair") == 0;
    int *holds = malloc(sizeof(int) * (size_t)n), *needs = malloc(sizeof(int) * (size_t)n);
    for (int r = 0; r < n; r++) { /* rank 0 rebuilds row 0; the others hold their row */
        holds[r] = r == 0 ? -1 : r;
        needs[r] = r == 0 ? 0 : -1;
    }
    if (!repair) {
        lincoll_encode_opts_t o = {.ports = ports};
        st =
            lincoll_encode_rs_init(world, f, k, LINCOLL_GF_RS_CAUCHY, NULL, B, in.p, out.p, &o, &p);
        if (st == LINCOLL_OK)
            ts = lincoll_encode_rs_init(world, f, k, LINCOLL_GF_RS_CAUCHY, NULL, B, in.p, out.p, &o,
                                        &twin);
    } else {
        lincoll_repair_opts_t o = {.ports = ports}; /* the schedule: LINCOLL_REPAIR_ALGO */
        st = lincoll_encode_repair_k_init(world, f, n, k, LINCOLL_GF_RS_CAUCHY, NULL, holds, needs,
                                          B, in.p, out.p, &o, &p);
        if (st == LINCOLL_OK)
            ts = lincoll_encode_repair_k_init(world, f, n, k, LINCOLL_GF_RS_CAUCHY, NULL, holds,
                                              needs, B, in.p, out.p, &o, &twin);
    }
    lincoll_plan_free(twin);
    char an[64] = "-";
    if (B == 0) {
        CHECK(st == LINCOLL_ERR_INVALID, "a 0-byte packet: %s, expected invalid argument",
              lincoll_strerror(st));
    } else {
        CHECK(st == LINCOLL_OK && ts == LINCOLL_OK, "init: %s (twin: %s)", lincoll_strerror(st),
              lincoll_strerror(ts));
        for (int it = 0; it < 2 && st == LINCOLL_OK; it++) {
            /* row r < k: data x_r; row k (the parity) = G[k] . x */
            if (me < k) {
                xfill(f, in.p, B, me);
            } else if (repair) {
                for (size_t e = 0; e < B; e++) {
                    uint64_t acc = 0;
                    for (int j = 0; j < k; j++)
                        acc ^= lincoll_gf_mul(f, G[(size_t)me * k + j], xval(f, j, e));
                    ((uint8_t *)in.p)[e] = (uint8_t)acc;
                }
            }
            memset(out.p, 0, B);
            st = run(p);
            CHECK(st == LINCOLL_OK, "run %d: %s", it, lincoll_strerror(st));
            if (st != LINCOLL_OK) break;
            if (repair && me == 0) {
                col[0] = 1;
                CHECK(combo_ok(f, col, 1, out.p, B), "row 0 not rebuilt");
            } else if (!repair && me >= k) {
                for (int j = 0; j < k; j++)
                    col[j] = G[(size_t)me * k + j];
                CHECK(combo_ok(f, col, k, out.p, B), "wrong parity");
            }
        }
        plan_algo(p, an, sizeof(an));
    }
    lincoll_plan_free(p);
    buf_free(&in);
    buf_free(&out);
    free(G);
    free(col);
    free(holds);
    free(needs);
    lincoll_gf_field_destroy(f);
    cell_end(an);
}

/* ---- matmul ------------------------------------------------------------------------ */

static double mval(int which, int64_t i, int64_t j)
{
    return (double)((which * 17 + i * 5 + j * 3) % 19) / 8.0 - 1.0;
}

/* The grid of an algorithm on P ranks (0: it does not apply). */
static int mm_grid(lincoll_matmul_algo_t a, int *pr, int *pc, int *c)
{
    *c = 1;
    switch (a) {
    case LINCOLL_MATMUL_RING:
        *pr = P, *pc = 1;
        return 1;
    case LINCOLL_MATMUL_CANNON: {
        int q = (int)lround(sqrt((double)P));
        *pr = *pc = q;
        return q * q == P;
    }
    case LINCOLL_MATMUL_25D:
        for (int q = (int)sqrt((double)P); q >= 1; q--) { /* 2 <= c <= q */
            if (P % (q * q) == 0 && P / (q * q) >= 2 && P / (q * q) <= q) {
                *pr = *pc = q, *c = P / (q * q);
                return 1;
            }
        }
        return 0;
    default: /* SUMMA and auto: the most square grid */
        for (int r = (int)sqrt((double)P); r >= 1; r--) {
            if (P % r == 0) {
                *pr = r, *pc = P / r;
                return 1;
            }
        }
        return 0;
    }
}

static void matmul_cell(const char *algo, int lmem, size_t N)
{
    /* the algorithm: LINCOLL_MATMUL_ALGO; its name picks the grid */
    lincoll_matmul_algo_t a = LINCOLL_MATMUL_AUTO;
    for (int i = 0; i < LINCOLL_MATMUL_ALGO_LAST; i++)
        if (strcmp(algo, lincoll_matmul_algo_name((lincoll_matmul_algo_t)i)) == 0)
            a = (lincoll_matmul_algo_t)i;
    int pr, pc, c;
    if (!mm_grid(a, &pr, &pc, &c)) { /* the driver counts the launch as not applicable */
        static int said;
        if (me == 0 && !said++) printf("matrix_ucx: not applicable: %s on %d ranks\n", algo, P);
        return;
    }
    cell_begin("matmul/%s/%s", algo, "double", lmem ? "lincoll" : "host", 0, N);
    const int64_t n = (int64_t)N;
    lincoll_matdesc_t d[3];
    for (int m = 0; m < 3; m++) {
        lincoll_matdesc_block(&d[m], n, n, pr, pc, c, LINCOLL_COL_MAJOR);
        if (a == LINCOLL_MATMUL_RING) d[m].nb = n;
    }
    double *g[3];
    for (int m = 0; m < 3; m++) {
        g[m] = malloc(sizeof(double) * (size_t)(n * n));
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++)
                g[m][i + j * n] = mval(m, i, j);
    }
    buf_t loc[3];
    int64_t rows, cols, ld;
    lincoll_status_t st = LINCOLL_OK;
    for (int m = 0; m < 3; m++) {
        lincoll_matdesc_local(&d[m], me, &rows, &cols, &ld);
        buf_alloc(&loc[m], lmem, sizeof(double) * (size_t)(ld * (cols > 0 ? cols : 1)));
        lincoll_plan_t *sp = NULL;
        if (st == LINCOLL_OK)
            st = lincoll_matrix_scatter_init(world, 0, g[m], n, LINCOLL_DOUBLE, &d[m], loc[m].p,
                                             &sp);
        if (st == LINCOLL_OK) st = run(sp);
        lincoll_plan_free(sp);
    }
    CHECK(st == LINCOLL_OK, "scatter: %s", lincoll_strerror(st));
    lincoll_matmul_opts_t o = {.algo = LINCOLL_MATMUL_AUTO};
    lincoll_plan_t *p = NULL, *twin = NULL, *gp = NULL;
    if (st == LINCOLL_OK) {
        st = lincoll_matmul_init(world, LINCOLL_DOUBLE, 1.0, loc[0].p, &d[0], loc[1].p, &d[1], 0.5,
                                 loc[2].p, &d[2], &o, &p);
        CHECK(st == LINCOLL_OK, "init: %s", lincoll_strerror(st));
    }
    if (st == LINCOLL_OK) {
        lincoll_status_t ts = lincoll_matmul_init(world, LINCOLL_DOUBLE, 1.0, loc[0].p, &d[0],
                                                  loc[1].p, &d[1], 0.5, loc[2].p, &d[2], &o, &twin);
        CHECK(ts == LINCOLL_OK, "twin init: %s", lincoll_strerror(ts));
        lincoll_plan_free(twin);
        st = run(p); /* C := A B + C/2, once */
        CHECK(st == LINCOLL_OK, "run: %s", lincoll_strerror(st));
    }
    double *got = malloc(sizeof(double) * (size_t)(n * n));
    if (st == LINCOLL_OK)
        st = lincoll_matrix_gather_init(world, 0, got, n, LINCOLL_DOUBLE, &d[2], loc[2].p, &gp);
    if (st == LINCOLL_OK) st = run(gp);
    CHECK(st == LINCOLL_OK, "gather: %s", lincoll_strerror(st));
    if (st == LINCOLL_OK && me == 0) {
        lincoll_gemm_base(LINCOLL_COL_MAJOR, LINCOLL_NO_TRANS, LINCOLL_NO_TRANS, n, n, n,
                          LINCOLL_DOUBLE, 1.0, g[0], n, g[1], n, 0.5, g[2], n);
        for (int64_t i = 0; i < n * n; i++) {
            if (fabs(got[i] - g[2][i]) > 1e-12 * (double)n * 4) {
                CHECK(0, "C[%lld] = %g, expected %g", (long long)i, got[i], g[2][i]);
                break;
            }
        }
    }
    char an[64] = "-";
    plan_algo(p, an, sizeof(an));
    lincoll_plan_free(p);
    lincoll_plan_free(gp);
    free(got);
    for (int m = 0; m < 3; m++) {
        buf_free(&loc[m]);
        free(g[m]);
    }
    cell_end(an);
}

/* ---- main -------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: matrix_ucx FAMILY OP ALGO MEMS SIZES [PORTS]\n");
        return 2;
    }
    const char *fam = argv[1], *op = argv[2], *algo = argv[3], *mems = argv[4];
    int ports = argc > 6 ? atoi(argv[6]) : 1;
    lincoll_status_t st = lincoll_init(NULL, &ctx);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "matrix_ucx: lincoll_init: %s\n", lincoll_strerror(st));
        return 1;
    }
    lincoll_comm_world(ctx, &world);
    me = lincoll_comm_rank(world);
    P = lincoll_comm_size(world);
    setenv("MATRIX_ALGO", algo, 1);
    int opi = -1;
    for (int i = 0; i < NOPS; i++)
        if (strcmp(op, op_names[i]) == 0) opi = i;
    char *sizes = strdup(argv[5]);
    for (int lmem = 0; lmem < 2; lmem++) {
        if (!strstr(mems, lmem ? "lincoll" : "host")) continue;
        char *save = NULL, *copy = strdup(sizes);
        for (char *t = strtok_r(copy, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
            size_t s = (size_t)strtoull(t, NULL, 0);
            if (strcmp(fam, "coll") == 0 && opi >= 0) {
                coll_cell(opi, lmem, 0, s);
                if (opi != BC) coll_cell(opi, lmem, 1, s);
            } else if (strcmp(fam, "coll") == 0) {
                coll_concurrent(lmem, s);
            } else if (strcmp(fam, "p2p") == 0) {
                p2p_cell(lmem, s);
            } else if (strcmp(fam, "encode") == 0) {
                encode_cell(algo, ports, lmem, s);
            } else if (strcmp(fam, "rs") == 0 || strcmp(fam, "repair") == 0) {
                if (P >= 2) rs_cell(fam, algo, ports, lmem, s);
            } else if (strcmp(fam, "matmul") == 0) {
                matmul_cell(algo, lmem, s);
            } else {
                fprintf(stderr, "matrix_ucx: unknown family %s\n", fam);
                free(copy);
                free(sizes);
                lincoll_finalize(ctx);
                return 2;
            }
        }
        free(copy);
    }
    free(sizes);
    if (me == 0) printf("matrix_ucx: %d cells, %d failed\n", cells, failed_cells);
    st = lincoll_finalize(ctx);
    if (st != LINCOLL_OK) fprintf(stderr, "matrix_ucx: finalize: %s\n", lincoll_strerror(st));
    return failed_cells == 0 && st == LINCOLL_OK ? 0 : 1;
}
