/*
 * test/coll/coll_ucx.c: the five collectives over real UCX, one process per
 * rank (run under lincoll-run or mpirun).  Public API only.
 *
 * Every operation x every algorithm (forced with LINCOLL_<OP>_ALGO) x counts
 * {0, 1, P-1, P, P+1, 1001, 1 Mi (COLL_UCX_BIG=0 skips it)} x in place / out
 * of place x every root (two roots at 1 Mi) x dtype/op pairs in rotation is
 * checked bitwise against a serial reference each rank computes itself
 * (values are small integers, exact in any order); every algorithm of the
 * registry (lincoll_info_algorithms), zero copy included, is forced through
 * lincoll_coll_opts_t::algo over lincoll memory and checked against the
 * closed forms, and names that are not the operation's are refused with
 * LINCOLL_ERR_INVALID; a persistent plan is
 * restarted; bad arguments are rejected locally; ranks that pass different
 * counts all return an error (MISMATCH, or TIMEOUT on ranks left waiting) and
 * nothing is written past count.  Exits 0 only if every check
 * passed; prints "coll_ucx: rank R: N checks passed".
 */
#include <lincoll/lincoll.h>
#include <lincoll/coll.h>
#include <lincoll/reduce.h>

#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks, failures, me = -1, P;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            if (failures < 20) {                                                                   \
                fprintf(stderr, "coll_ucx: rank %d: FAILED %s:%d: ", me, __FILE__, __LINE__);      \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fputc('\n', stderr);                                                               \
            }                                                                                      \
        }                                                                                          \
    } while (0)

enum { AR, RS, AG, BC, RD };
static const char *const op_name[] = {"allreduce", "reduce_scatter", "allgather", "bcast",
                                      "reduce"};
static const char *const op_var[] = {"LINCOLL_ALLREDUCE_ALGO", "LINCOLL_REDUCE_SCATTER_ALGO",
                                     "LINCOLL_ALLGATHER_ALGO", "LINCOLL_BCAST_ALGO",
                                     "LINCOLL_REDUCE_ALGO"};
static const struct {
    lincoll_dtype_t dt;
    lincoll_op_t op;
} combos[] = {{LINCOLL_INT32, LINCOLL_SUM},  {LINCOLL_DOUBLE, LINCOLL_SUM},
              {LINCOLL_FLOAT, LINCOLL_MAX},  {LINCOLL_UINT8, LINCOLL_BXOR},
              {LINCOLL_INT64, LINCOLL_PROD}, {LINCOLL_FLOAT, LINCOLL_SUM},
              {LINCOLL_UINT16, LINCOLL_MIN}, {LINCOLL_DOUBLE, LINCOLL_MIN}};
#define NCOMBOS (sizeof(combos) / sizeof(combos[0]))

static double val(int rank, size_t i, int salt, lincoll_op_t op)
{
    unsigned h = (unsigned)rank * 2654435761u ^ (unsigned)i * 40503u ^ (unsigned)salt * 97u;
    h ^= h >> 13;
    if (op == LINCOLL_PROD) return (h & 4) ? -1.0 : 1.0;
    return (double)(h % 8);
}

static void put(lincoll_dtype_t dt, void *b, size_t i, double v)
{
    switch (dt) {
    case LINCOLL_INT32:
        ((int32_t *)b)[i] = (int32_t)v;
        break;
    case LINCOLL_INT64:
        ((int64_t *)b)[i] = (int64_t)v;
        break;
    case LINCOLL_UINT8:
        ((uint8_t *)b)[i] = (uint8_t)v;
        break;
    case LINCOLL_UINT16:
        ((uint16_t *)b)[i] = (uint16_t)v;
        break;
    case LINCOLL_FLOAT:
        ((float *)b)[i] = (float)v;
        break;
    case LINCOLL_DOUBLE:
        ((double *)b)[i] = v;
        break;
    default:
        break;
    }
}

static size_t *counts_of(int op, size_t n, int vform)
{
    size_t *c = malloc((size_t)P * sizeof(size_t));
    for (int i = 0; i < P; i++)
        c[i] = vform ? (size_t)((7 * i + (int)n) % 5) + n / (size_t)P : n;
    (void)op;
    return c;
}

/* One case: returns the plan's algorithm name check too. */
static void run_case(lincoll_comm_t *w, int op, const char *algo, size_t n, int root, int inplace,
                     int combo, int salt)
{
    lincoll_dtype_t dt = combos[combo].dt;
    lincoll_op_t rop = combos[combo].op;
    size_t es = lincoll_dtype_size(dt);
    int vform = (op == RS || op == AG) && (salt & 1);
    size_t *c =
        (op == RS || op == AG) ? counts_of(op, op == RS || op == AG ? n / 2 : n, vform) : NULL;
    size_t total = n, mine = n, myoff = 0;
    if (c) {
        total = 0;
        for (int i = 0; i < P; i++) {
            if (i == me) myoff = total;
            total += c[i];
        }
        mine = c[me];
    }
    size_t in_n = op == AG ? mine : total;
    char *in = malloc(in_n * es + 1), *out = malloc(total * es + 1), *ref = malloc(total * es + 1),
         *tmp = malloc(total * es + 1);
    memset(out, 0x5a, total * es + 1);
    for (size_t i = 0; i < in_n; i++) {
        put(dt, in, i, val(op == BC ? root : me, op == AG ? myoff + i : i, salt, rop));
    }
    if (inplace || op == BC) {
        if (op == AG)
            memcpy(out + myoff * es, in, mine * es);
        else if (op != BC || me == root)
            memcpy(out, in, in_n * es);
    }
    setenv(op_var[op], algo, 1);
    const void *sb = inplace ? LINCOLL_IN_PLACE : in;
    lincoll_plan_t *pl = NULL;
    lincoll_status_t st = LINCOLL_ERR_INTERNAL;
    switch (op) {
    case AR:
        st = lincoll_allreduce_init(w, sb, out, n, dt, rop, &pl);
        break;
    case RS:
        st = vform ? lincoll_reduce_scatterv_init(w, sb, out, c, dt, rop, &pl)
                   : lincoll_reduce_scatter_init(w, sb, out, c[0], dt, rop, &pl);
        break;
    case AG:
        st = vform ? lincoll_allgatherv_init(w, sb, out, c, dt, &pl)
                   : lincoll_allgather_init(w, sb, out, c[0], dt, &pl);
        break;
    case BC:
        st = lincoll_bcast_init(w, out, n, dt, root, &pl);
        break;
    case RD:
        st = lincoll_reduce_init(w, sb, out, n, dt, rop, root, &pl);
        break;
    }
    unsetenv(op_var[op]);
    CHECK(st == LINCOLL_OK, "%s/%s n=%zu init: %s", op_name[op], algo, n, lincoll_strerror(st));
    if (st == LINCOLL_OK) {
        lincoll_plan_stats_t s;
        lincoll_plan_stats(pl, &s);
        char want[48];
        snprintf(want, sizeof(want), "%s_%s", algo, op_name[op]);
        CHECK(strcmp(s.algorithm, want) == 0, "forced %s, got %s", want, s.algorithm);
        st = lincoll_start(pl);
        if (st == LINCOLL_OK) st = lincoll_wait(pl);
        CHECK(st == LINCOLL_OK, "%s/%s n=%zu root %d inplace %d: %s", op_name[op], algo, n, root,
              inplace, lincoll_strerror(st));
        lincoll_plan_free(pl);
    }
    /* reference */
    if (op == AG) {
        size_t off = 0;
        for (int r = 0; r < P; r++) {
            for (size_t i = 0; i < c[r]; i++)
                put(dt, ref, off + i, val(r, off + i, salt, rop));
            off += c[r];
        }
    } else if (op == BC) {
        for (size_t i = 0; i < total; i++)
            put(dt, ref, i, val(root, i, salt, rop));
    } else {
        for (size_t i = 0; i < total; i++)
            put(dt, ref, i, val(0, i, salt, rop));
        for (int r = 1; r < P; r++) {
            for (size_t i = 0; i < total; i++)
                put(dt, tmp, i, val(r, i, salt, rop));
            if (total) lincoll_reduce3_base(ref, ref, tmp, total, dt, rop);
        }
    }
    if (st == LINCOLL_OK && (op != RD || me == root)) {
        const char *want = op == RS ? ref + myoff * es : ref;
        size_t len = op == RS ? mine * es : total * es;
        CHECK(memcmp(out, want, len) == 0, "%s/%s n=%zu root %d inplace %d %s/%s: wrong result",
              op_name[op], algo, n, root, inplace, lincoll_dtype_name(dt), lincoll_op_name(rop));
        if (!inplace && op != BC) {
            size_t olen = op == RS ? mine * es : total * es;
            CHECK((unsigned char)out[olen] == 0x5a, "%s/%s: wrote past rbuf", op_name[op], algo);
        }
    }
    free(in);
    free(out);
    free(ref);
    free(tmp);
    free(c);
}

static void check_all(lincoll_comm_t *w, int big)
{
    size_t ns[] = {0, 1, (size_t)P - 1, (size_t)P, (size_t)P + 1, 1001, (size_t)1 << 20};
    int nn = big ? 7 : 6, k = 0;
    for (int op = 0; op < 5; op++) {
        const char *algos[2] = {"rhd", op >= BC ? "binomial" : "ring"};
        for (int a = 0; a < 2; a++) {
            for (int ni = 0; ni < nn; ni++) {
                for (int ip = 0; ip < (op == BC ? 1 : 2); ip++) {
                    int nroots = op >= BC ? (ni == 6 ? 2 : P) : 1;
                    for (int ri = 0; ri < nroots; ri++) {
                        int root = (ni == 6 && ri == 1) ? P - 1 : ri;
                        int combo = (k++) % (int)NCOMBOS;
                        if (ni == 6 && (combos[combo].dt == LINCOLL_UINT8 ||
                                        combos[combo].dt == LINCOLL_UINT16))
                            combo = 0; /* 1 Mi: keep the per-element volume meaningful */
                        run_case(w, op, algos[a], ns[ni], root, ip, combo, ni * 7 + ri + ip);
                    }
                }
            }
        }
    }
}

static void check_blocking_and_persistent(lincoll_comm_t *w)
{
    double x[5];
    for (int i = 0; i < 5; i++)
        x[i] = me + i;
    lincoll_status_t st = lincoll_allreduce(w, LINCOLL_IN_PLACE, x, 5, LINCOLL_DOUBLE, LINCOLL_SUM);
    CHECK(st == LINCOLL_OK && x[2] == P * (P - 1) / 2.0 + 2.0 * P, "blocking allreduce: %s",
          lincoll_strerror(st));
    int32_t b = me == P - 1 ? 77 : -1;
    st = lincoll_bcast(w, &b, 1, LINCOLL_INT32, P - 1);
    CHECK(st == LINCOLL_OK && b == 77, "blocking bcast: %s", lincoll_strerror(st));
    int32_t in = me + 1, out = 0;
    st = lincoll_reduce_coll(w, &in, &out, 1, LINCOLL_INT32, LINCOLL_SUM, 0);
    CHECK(st == LINCOLL_OK && (me != 0 || out == P * (P + 1) / 2), "blocking reduce: %s",
          lincoll_strerror(st));
    int32_t *g = malloc((size_t)P * 4);
    st = lincoll_allgather(w, &in, g, 1, LINCOLL_INT32);
    CHECK(st == LINCOLL_OK && g[P - 1] == P, "blocking allgather: %s", lincoll_strerror(st));
    int32_t *rs = malloc((size_t)P * 4), r1 = 0;
    for (int i = 0; i < P; i++)
        rs[i] = i;
    st = lincoll_reduce_scatter(w, rs, &r1, 1, LINCOLL_INT32, LINCOLL_SUM);
    CHECK(st == LINCOLL_OK && r1 == P * me, "blocking reduce_scatter: %s", lincoll_strerror(st));
    /* persistent: one plan, new data every start */
    float v[3];
    lincoll_plan_t *pl;
    st = lincoll_allreduce_init(w, LINCOLL_IN_PLACE, v, 3, LINCOLL_FLOAT, LINCOLL_MAX, &pl);
    CHECK(st == LINCOLL_OK, "persistent init: %s", lincoll_strerror(st));
    for (int it = 0; st == LINCOLL_OK && it < 10; it++) {
        for (int i = 0; i < 3; i++)
            v[i] = (float)(me * it + i);
        st = lincoll_start(pl);
        if (st == LINCOLL_OK) st = lincoll_wait(pl);
        CHECK(st == LINCOLL_OK && v[1] == (float)((P - 1) * it + 1), "persistent start %d", it);
    }
    lincoll_plan_free(pl);
    free(g);
    free(rs);
}

/* Zero-copy plans reduce in rhd_allreduce's bracketing, so they must match
 * it bit for bit; a tag fallback (ranks that cannot map each other, e.g.
 * across hosts) uses its own algorithm's order: equal within rounding. */
static int same_sums(const double *x, const double *y, size_t n, int bitwise)
{
    if (bitwise) return memcmp(x, y, n * sizeof(double)) == 0;
    for (size_t i = 0; i < n; i++) {
        double d = x[i] - y[i], m = fabs(y[i]) > 1.0 ? fabs(y[i]) : 1.0;
        if (!(fabs(d) <= 1e-12 * m)) return 0;
    }
    return 1;
}

/* Blocking calls reuse cached plans: new data every call, buffers that
 * alternate on even ranks only (one rank hits the cache while another
 * misses), a forced algorithm switched half way, bcast/reduce roots. */
static void check_blocking_cache(lincoll_comm_t *w)
{
    double a[2][7], b[7];
    for (int it = 0; it < 40; it++) {
        if (it == 20) setenv("LINCOLL_ALLREDUCE_ALGO", "ring", 1);
        double *x = (me % 2 == 0) ? a[it % 2] : a[0];
        for (int i = 0; i < 7; i++)
            x[i] = me * 3 + i + it;
        lincoll_status_t st = lincoll_allreduce(w, x, b, 7, LINCOLL_DOUBLE, LINCOLL_SUM);
        double want = 3.0 * P * (P - 1) / 2 + (double)P * (5 + it);
        CHECK(st == LINCOLL_OK && b[5] == want, "cached blocking allreduce, call %d: %s", it,
              lincoll_strerror(st));
        int32_t v = me == it % P ? it : -1;
        st = lincoll_bcast(w, &v, 1, LINCOLL_INT32, it % P);
        CHECK(st == LINCOLL_OK && v == it, "cached blocking bcast, call %d: %s", it,
              lincoll_strerror(st));
    }
    unsetenv("LINCOLL_ALLREDUCE_ALGO");
}

/* Zero copy: lincoll_mem_alloc buffers on every rank, automatic choice (the
 * zcopy_allreduce plan on one node); results bitwise equal to the forced RHD
 * plan on random doubles, over three starts of each plan.  Returns how many
 * of the automatic allreduce plans ran zero copy. */
static int check_zcopy(lincoll_context_t *ctx, lincoll_comm_t *w)
{
    const size_t ns[] = {1, (size_t)P + 1, 1001, (size_t)1 << 17};
    int zc = 0;
    for (unsigned ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ni++) {
        size_t n = ns[ni], bytes = n * sizeof(double);
        for (int ip = 0; ip < 2; ip++) {
            double *in, *out, *rin = malloc(bytes), *rout = malloc(bytes);
            if (lincoll_mem_alloc(ctx, bytes, (void **)&in) != LINCOLL_OK ||
                lincoll_mem_alloc(ctx, bytes, (void **)&out) != LINCOLL_OK) {
                CHECK(0, "zcopy: lincoll_mem_alloc of %zu bytes", bytes);
                return 0;
            }
            lincoll_plan_t *pz = NULL, *pr = NULL;
            lincoll_status_t st = lincoll_allreduce_init(w, ip ? LINCOLL_IN_PLACE : in, out, n,
                                                         LINCOLL_DOUBLE, LINCOLL_SUM, &pz);
            setenv("LINCOLL_ALLREDUCE_ALGO", "rhd", 1);
            if (st == LINCOLL_OK)
                st = lincoll_allreduce_init(w, ip ? LINCOLL_IN_PLACE : rin, rout, n, LINCOLL_DOUBLE,
                                            LINCOLL_SUM, &pr);
            unsetenv("LINCOLL_ALLREDUCE_ALGO");
            CHECK(st == LINCOLL_OK, "zcopy n=%zu init: %s", n, lincoll_strerror(st));
            lincoll_plan_stats_t ps;
            if (st == LINCOLL_OK && lincoll_plan_stats(pz, &ps) == LINCOLL_OK)
                zc += strncmp(ps.algorithm, "zcopy", 5) == 0;
            for (int it = 0; st == LINCOLL_OK && it < 3; it++) {
                unsigned sd = (unsigned)(me * 7919 + it * 104729 + (int)ni);
                for (size_t i = 0; i < n; i++) {
                    sd = sd * 1103515245u + 12345u;
                    double v = ((double)(sd >> 8) / (double)(1u << 24) - 0.5) * 1e3;
                    (ip ? out : in)[i] = v;
                    (ip ? rout : rin)[i] = v;
                }
                st = lincoll_start(pz);
                if (st == LINCOLL_OK) st = lincoll_wait(pz);
                if (st == LINCOLL_OK) st = lincoll_start(pr);
                if (st == LINCOLL_OK) st = lincoll_wait(pr);
                CHECK(st == LINCOLL_OK, "zcopy n=%zu start %d: %s", n, it, lincoll_strerror(st));
                CHECK(st != LINCOLL_OK || memcmp(out, rout, bytes) == 0,
                      "zcopy n=%zu inplace %d start %d: differs from rhd_allreduce", n, ip, it);
            }
            lincoll_plan_free(pz);
            lincoll_plan_free(pr);
            lincoll_mem_free(ctx, in);
            lincoll_mem_free(ctx, out);
            free(rin);
            free(rout);
        }
    }
    if (me == 0)
        printf("coll_ucx: %d of 8 allreduce plans over lincoll memory ran zero copy\n", zc);
    /* reduce-scatter / allgather over lincoll memory: zcopy_* direct loads
     * (blk 3000 doubles), on a power of two zcopy_rh_reduce_scatter /
     * zcopy_rd_allgather by puts into scratch rings (blk 3, in place too).
     * The direct reduce-scatter matches rhd_allreduce bit for bit, the small
     * one rhd_reduce_scatter (forced, host memory) */
    for (int bi = 0; bi < 3; bi++) {
        const size_t blk = bi == 0 ? 3000 : 3, tot = blk * (size_t)P, tb = tot * sizeof(double);
        const int ip = bi == 2;
        double *in, *out, *rin = malloc(tb), *rout = malloc(tb), *rrs = malloc(tb);
        lincoll_plan_t *prs = NULL, *pag = NULL, *pr = NULL, *prr = NULL;
        lincoll_status_t st = lincoll_mem_alloc(ctx, tb, (void **)&in);
        if (st == LINCOLL_OK) st = lincoll_mem_alloc(ctx, tb, (void **)&out);
        if (st == LINCOLL_OK)
            st = lincoll_reduce_scatter_init(w, ip ? LINCOLL_IN_PLACE : in, ip ? in : out, blk,
                                             LINCOLL_DOUBLE, LINCOLL_SUM, &prs);
        if (st == LINCOLL_OK)
            st = lincoll_allgather_init(w, ip ? LINCOLL_IN_PLACE : in, out, blk, LINCOLL_DOUBLE,
                                        &pag);
        setenv("LINCOLL_ALLREDUCE_ALGO", "rhd", 1);
        setenv("LINCOLL_REDUCE_SCATTER_ALGO", "rhd", 1);
        if (st == LINCOLL_OK)
            st = lincoll_allreduce_init(w, rin, rout, tot, LINCOLL_DOUBLE, LINCOLL_SUM, &pr);
        if (st == LINCOLL_OK)
            st = lincoll_reduce_scatter_init(w, rin, rrs, blk, LINCOLL_DOUBLE, LINCOLL_SUM, &prr);
        unsetenv("LINCOLL_ALLREDUCE_ALGO");
        unsetenv("LINCOLL_REDUCE_SCATTER_ALGO");
        CHECK(st == LINCOLL_OK, "zcopy rs/ag blk %zu init: %s", blk, lincoll_strerror(st));
        lincoll_plan_stats_t ps;
        int rs_zc = 0, rs_rh = 0;
        if (st == LINCOLL_OK && lincoll_plan_stats(prs, &ps) == LINCOLL_OK) {
            rs_zc = strcmp(ps.algorithm, "zcopy_reduce_scatter") == 0;
            rs_rh = strcmp(ps.algorithm, "zcopy_rh_reduce_scatter") == 0;
            if (me == 0)
                printf("coll_ucx: reduce_scatter over lincoll memory, blk %zu%s: %s\n", blk,
                       ip ? " in place" : "", ps.algorithm);
            /* where allreduce ran zero copy (peers mapped), a power of two
             * runs reduce-scatter zero copy at every size */
            CHECK(zc == 0 || !(P >= 2 && (P & (P - 1)) == 0) || rs_zc || rs_rh,
                  "reduce_scatter blk %zu on %d ranks over lincoll memory: %s", blk, P,
                  ps.algorithm);
        }
        if (st == LINCOLL_OK && lincoll_plan_stats(pag, &ps) == LINCOLL_OK && me == 0)
            printf("coll_ucx: allgather over lincoll memory, blk %zu%s: %s\n", blk,
                   ip ? " in place" : "", ps.algorithm);
        for (int it = 0; st == LINCOLL_OK && it < 3; it++) {
            for (size_t i = 0; i < tot; i++)
                in[i] = rin[i] = (me + 1) * 0.731 + (double)i * 1.7e-3 + it;
            st = lincoll_start(prs);
            if (st == LINCOLL_OK) st = lincoll_wait(prs);
            if (st == LINCOLL_OK) st = lincoll_start(pr);
            if (st == LINCOLL_OK) st = lincoll_wait(pr);
            if (st == LINCOLL_OK) st = lincoll_start(prr);
            if (st == LINCOLL_OK) st = lincoll_wait(prr);
            const double *got = ip ? in : out;
            CHECK(st == LINCOLL_OK && (rs_rh ? memcmp(got, rrs, blk * sizeof(double)) == 0
                                             : same_sums(got, rout + (size_t)me * blk, blk, rs_zc)),
                  "zcopy reduce_scatter blk %zu start %d: %s", blk, it, lincoll_strerror(st));
            double *agin = ip ? out + (size_t)me * blk : in;
            for (size_t i = 0; i < blk; i++)
                agin[i] = me * 1e4 + (double)i + it;
            if (st == LINCOLL_OK) st = lincoll_start(pag);
            if (st == LINCOLL_OK) st = lincoll_wait(pag);
            int ok = st == LINCOLL_OK;
            for (size_t i = 0; ok && i < tot; i++)
                ok = out[i] == (double)(i / blk) * 1e4 + (double)(i % blk) + it;
            CHECK(ok, "zcopy allgather blk %zu start %d: %s", blk, it, lincoll_strerror(st));
        }
        lincoll_plan_free(prs);
        lincoll_plan_free(pag);
        lincoll_plan_free(pr);
        lincoll_plan_free(prr);
        lincoll_mem_free(ctx, in);
        lincoll_mem_free(ctx, out);
        free(rin);
        free(rout);
        free(rrs);
    }
    /* small bcast and reduce over lincoll memory: zcopy_bcast / zcopy_reduce */
    for (int root = 0; P > 1 && root < P; root += P - 1) {
        const size_t sizes[] = {1, 100, 40000}; /* the last: zcopy_direct_bcast */
        for (unsigned si = 0; si < 3; si++) {
            size_t n = sizes[si], bytes = n * sizeof(double);
            double *x, *y, *rx = malloc(bytes), *ry = malloc(bytes);
            lincoll_plan_t *pb = NULL, *pd = NULL, *pr = NULL;
            lincoll_status_t st = lincoll_mem_alloc(ctx, bytes, (void **)&x);
            if (st == LINCOLL_OK) st = lincoll_mem_alloc(ctx, bytes, (void **)&y);
            if (st == LINCOLL_OK) st = lincoll_bcast_init(w, x, n, LINCOLL_DOUBLE, root, &pb);
            if (st == LINCOLL_OK)
                st = lincoll_reduce_init(w, x, y, n, LINCOLL_DOUBLE, LINCOLL_SUM, root, &pd);
            setenv("LINCOLL_ALLREDUCE_ALGO", "rhd", 1);
            if (st == LINCOLL_OK)
                st = lincoll_allreduce_init(w, rx, ry, n, LINCOLL_DOUBLE, LINCOLL_SUM, &pr);
            unsetenv("LINCOLL_ALLREDUCE_ALGO");
            CHECK(st == LINCOLL_OK, "zcopy bcast/reduce n=%zu init: %s", n, lincoll_strerror(st));
            lincoll_plan_stats_t ps;
            if (st == LINCOLL_OK && lincoll_plan_stats(pb, &ps) == LINCOLL_OK && me == 0 &&
                root == 0)
                printf("coll_ucx: bcast of %zu doubles over lincoll memory: %s\n", n, ps.algorithm);
            int rd_zc = st == LINCOLL_OK && lincoll_plan_stats(pd, &ps) == LINCOLL_OK &&
                        strncmp(ps.algorithm, "zcopy", 5) == 0;
            for (int it = 0; st == LINCOLL_OK && it < 5; it++) {
                for (size_t i = 0; i < n; i++)
                    x[i] = rx[i] = (me + 1) * 0.37 + (double)i * 1.3e-3 + it;
                st = lincoll_start(pd);
                if (st == LINCOLL_OK) st = lincoll_wait(pd);
                if (st == LINCOLL_OK) st = lincoll_start(pr);
                if (st == LINCOLL_OK) st = lincoll_wait(pr);
                CHECK(st != LINCOLL_OK || me != root || same_sums(y, ry, n, rd_zc),
                      "zcopy reduce n=%zu root %d start %d: differs from rhd_allreduce", n, root,
                      it);
                for (size_t i = 0; i < n; i++)
                    x[i] = me == root ? 1000.0 * it + (double)i : -1.0;
                if (st == LINCOLL_OK) st = lincoll_start(pb);
                if (st == LINCOLL_OK) st = lincoll_wait(pb);
                CHECK(st == LINCOLL_OK && x[n - 1] == 1000.0 * it + (double)(n - 1),
                      "zcopy bcast n=%zu root %d start %d: %s", n, root, it, lincoll_strerror(st));
            }
            lincoll_plan_free(pb);
            lincoll_plan_free(pd);
            lincoll_plan_free(pr);
            lincoll_mem_free(ctx, x);
            lincoll_mem_free(ctx, y);
            free(rx);
            free(ry);
        }
    }
    return zc;
}

/* ---- every algorithm of the registry through lincoll_coll_opts_t::algo ----------- */

/* The collectives' algorithms as lincoll_info_algorithms() lists them (the
 * registry, in its order): operation, name, plan name, zero copy. */
typedef struct reg_alg {
    int op, zc;
    char name[32], plan[48];
} reg_alg_t;

static int registry_algs(reg_alg_t *out, int max)
{
    static const lincoll_config_id_t vars[5] = {
        LINCOLL_CONFIG_ALLREDUCE_ALGO, LINCOLL_CONFIG_REDUCE_SCATTER_ALGO,
        LINCOLL_CONFIG_ALLGATHER_ALGO, LINCOLL_CONFIG_BCAST_ALGO, LINCOLL_CONFIG_REDUCE_ALGO};
    char *buf = malloc(1 << 16);
    int n = 0;
    if (buf == NULL || lincoll_info_algorithms(buf, 1 << 16) != LINCOLL_OK) {
        free(buf);
        return 0;
    }
    for (char *line = strtok(buf, "\n"); line != NULL && n < max; line = strtok(NULL, "\n")) {
        char var[64], name[32], plan[48], zc[8];
        if (sscanf(line, "%63s %31s %47s %7s", var, name, plan, zc) != 4) continue;
        for (int op = 0; op < 5; op++) {
            lincoll_config_var_t v;
            if (lincoll_config_var(vars[op], &v) != LINCOLL_OK || strcmp(v.name, var) != 0)
                continue;
            out[n].op = op;
            out[n].zc = strcmp(zc, "yes") == 0;
            snprintf(out[n].name, sizeof(out[n].name), "%s", name);
            snprintf(out[n].plan, sizeof(out[n].plan), "%s", plan);
            n++;
        }
    }
    free(buf);
    return n;
}

/* Input of rank r at element i, start it (small integers: exact sums). */
static double opts_in(int r, size_t i, int it)
{
    return r * 1000.0 + (double)i + it;
}

/* One init of op through opts with algo over lincoll memory (in, out),
 * n elements (reduce-scatter/allgather: blocks of b = max(1, n / P)), root
 * P - 1; two starts checked against the closed forms.  Returns 1 when the
 * forced plan ran, 0 when the init fell back (another algorithm ran), -1 on
 * an error.  Every rank must get the same outcome (one allgather). */
static int opts_case(lincoll_comm_t *w, int op, const char *algo, const char *plan, size_t n,
                     double *in, double *out)
{
    const int root = P - 1, vec = op == RS || op == AG;
    const size_t b = n / (size_t)P ? n / (size_t)P : 1, tot = vec ? b * (size_t)P : n;
    lincoll_coll_opts_t o = {.algo = algo};
    lincoll_plan_t *pl = NULL;
    lincoll_status_t st = LINCOLL_ERR_INTERNAL;
    switch (op) {
    case AR:
        st = lincoll_allreduce_init_opts(w, in, out, n, LINCOLL_DOUBLE, LINCOLL_SUM, &o, &pl);
        break;
    case RS:
        st = lincoll_reduce_scatter_init_opts(w, in, out, b, LINCOLL_DOUBLE, LINCOLL_SUM, &o, &pl);
        break;
    case AG:
        st = lincoll_allgather_init_opts(w, in, out, b, LINCOLL_DOUBLE, &o, &pl);
        break;
    case BC:
        st = lincoll_bcast_init_opts(w, out, n, LINCOLL_DOUBLE, root, &o, &pl);
        break;
    case RD:
        st = lincoll_reduce_init_opts(w, in, out, n, LINCOLL_DOUBLE, LINCOLL_SUM, root, &o, &pl);
        break;
    }
    /* LINCOLL_ALGO_FALLBACK=error makes a forced algorithm that cannot serve UNSUPPORTED */
    CHECK(st == LINCOLL_OK || st == LINCOLL_ERR_UNSUPPORTED, "%s opts->algo=%s n=%zu init: %s",
          op_name[op], algo, n, lincoll_strerror(st));
    int ran = -1;
    lincoll_plan_stats_t s;
    if (st == LINCOLL_OK && lincoll_plan_stats(pl, &s) == LINCOLL_OK)
        ran = strcmp(s.algorithm, plan) == 0;
    else if (st == LINCOLL_ERR_UNSUPPORTED)
        ran = 0;
    for (int it = 0; st == LINCOLL_OK && it < 2; it++) {
        const size_t in_n = op == AG ? b : tot;
        for (size_t i = 0; i < in_n; i++)
            in[i] = opts_in(me, op == AG ? (size_t)me * b + i : i, it);
        for (size_t i = 0; i < tot; i++)
            out[i] = op == BC && me == root ? opts_in(root, i, it) : -1.0;
        st = lincoll_start(pl);
        if (st == LINCOLL_OK) st = lincoll_wait(pl);
        CHECK(st == LINCOLL_OK, "%s opts->algo=%s n=%zu start %d: %s", op_name[op], algo, n, it,
              lincoll_strerror(st));
        const double sum_r = 1000.0 * P * (P - 1) / 2;
        const size_t m = op == RS ? b : tot;
        int ok = st == LINCOLL_OK;
        for (size_t i = 0; ok && i < m && (op != RD || me == root); i++) {
            double want = op == RS   ? sum_r + P * ((double)((size_t)me * b + i) + it)
                          : op == AG ? opts_in((int)(i / b), i, it)
                          : op == BC ? opts_in(root, i, it)
                                     : sum_r + P * ((double)i + it);
            ok = out[i] == want;
        }
        CHECK(ok, "%s opts->algo=%s (ran %s) n=%zu start %d: wrong result", op_name[op], algo,
              ran == 1 ? plan : "another", n, it);
    }
    lincoll_plan_free(pl);
    /* the same outcome on every rank */
    int32_t mine = ran, *all = malloc((size_t)P * sizeof(int32_t));
    if (lincoll_allgather(w, &mine, all, 1, LINCOLL_INT32) == LINCOLL_OK) {
        for (int r = 0; r < P; r++)
            CHECK(all[r] == mine, "%s opts->algo=%s n=%zu: rank %d ran %s, rank %d %s", op_name[op],
                  algo, n, r, all[r] == 1 ? "it" : "another", me, mine == 1 ? "it" : "another");
    } else {
        CHECK(0, "allgather of the outcomes");
    }
    free(all);
    return ran;
}

/* Every collective algorithm of the registry forced through opts->algo (by
 * short name at the small size, by plan name at the large one) over
 * lincoll memory, at a small size (3 elements) and a large one (5000):
 * results in closed form, the same outcome on every rank.  Tag algorithms
 * must run at both sizes.  Where zero copy works here (zc: the automatic
 * allreduce ran it) every operation runs at least one of its zero-copy
 * algorithms, and on a power of two every zero-copy algorithm runs at one
 * of the sizes (the registry's restrict the size, a power of two and
 * p <= 65).  A name that is not one of the operation's algorithms is
 * LINCOLL_ERR_INVALID on every rank. */
static void check_opts(lincoll_context_t *ctx, lincoll_comm_t *w, int zc)
{
    reg_alg_t algs[64];
    const int na = registry_algs(algs, 64);
    CHECK(na >= 10, "lincoll_info_algorithms listed %d collective algorithms", na);
    const size_t ns[2] = {3, 5000}, bytes = 5000 * sizeof(double);
    double *in, *out;
    if (lincoll_mem_alloc(ctx, bytes, (void **)&in) != LINCOLL_OK ||
        lincoll_mem_alloc(ctx, bytes, (void **)&out) != LINCOLL_OK) {
        CHECK(0, "opts: lincoll_mem_alloc of %zu bytes", bytes);
        return;
    }
    const int pow2 = P >= 2 && (P & (P - 1)) == 0;
    int zc_ran[5] = {0}, nran = 0;
    for (int a = 0; a < na; a++) {
        int runs = 0;
        for (int ni = 0; ni < 2; ni++) {
            int r = opts_case(w, algs[a].op, ni ? algs[a].plan : algs[a].name, algs[a].plan, ns[ni],
                              in, out);
            runs += r == 1;
            CHECK(algs[a].zc || r == 1, "%s: tag algorithm %s did not run at n=%zu",
                  op_name[algs[a].op], algs[a].name, ns[ni]);
        }
        nran += runs > 0;
        if (algs[a].zc) {
            zc_ran[algs[a].op] += runs > 0;
            CHECK(!zc || !pow2 || runs > 0, "%s: zero-copy %s ran at no size on %d ranks",
                  op_name[algs[a].op], algs[a].name, P);
        }
    }
    for (int op = 0; op < 5; op++)
        CHECK(!zc || zc_ran[op] > 0, "%s: no zero-copy algorithm ran through opts->algo",
              op_name[op]);
    if (me == 0)
        printf("coll_ucx: opts->algo: %d of %d algorithms ran forced (zero copy %s here)\n", nran,
               na, zc ? "works" : "does not work");
    /* names that are not the operation's: refused locally, on every rank */
    for (int op = 0; op < 5; op++) {
        const char *bad[2] = {"nonsense", op >= BC ? "ring" : "binomial"};
        for (int k = 0; k < 2; k++) {
            lincoll_coll_opts_t o = {.algo = bad[k]};
            lincoll_plan_t *pl = NULL;
            lincoll_status_t st = LINCOLL_ERR_INTERNAL;
            switch (op) {
            case AR:
                st = lincoll_allreduce_init_opts(w, in, out, 3, LINCOLL_DOUBLE, LINCOLL_SUM, &o,
                                                 &pl);
                break;
            case RS:
                st = lincoll_reduce_scatter_init_opts(w, in, out, 1, LINCOLL_DOUBLE, LINCOLL_SUM,
                                                      &o, &pl);
                break;
            case AG:
                st = lincoll_allgather_init_opts(w, in, out, 1, LINCOLL_DOUBLE, &o, &pl);
                break;
            case BC:
                st = lincoll_bcast_init_opts(w, out, 3, LINCOLL_DOUBLE, 0, &o, &pl);
                break;
            case RD:
                st = lincoll_reduce_init_opts(w, in, out, 3, LINCOLL_DOUBLE, LINCOLL_SUM, 0, &o,
                                              &pl);
                break;
            }
            CHECK(st == LINCOLL_ERR_INVALID && pl == NULL, "%s opts->algo=%s gave %s", op_name[op],
                  bad[k], lincoll_strerror(st));
        }
    }
    lincoll_mem_free(ctx, in);
    lincoll_mem_free(ctx, out);
}

static void check_bad_input(lincoll_comm_t *w)
{
    float a[8], b[8];
    lincoll_plan_t *pl;
    CHECK(lincoll_allreduce(w, a, NULL, 4, LINCOLL_FLOAT, LINCOLL_SUM) == LINCOLL_ERR_INVALID,
          "NULL rbuf");
    CHECK(lincoll_bcast(w, a, 4, LINCOLL_FLOAT, P) == LINCOLL_ERR_INVALID, "root P");
    CHECK(lincoll_reduce_init(w, a, b, 4, LINCOLL_FLOAT, LINCOLL_SUM, -2, &pl) ==
              LINCOLL_ERR_INVALID,
          "root -2");
    CHECK(lincoll_allreduce(w, a, b, 4, (lincoll_dtype_t)77, LINCOLL_SUM) == LINCOLL_ERR_INVALID,
          "bad dtype");
    CHECK(lincoll_allreduce(w, a, b, 4, LINCOLL_FLOAT, (lincoll_op_t)9) == LINCOLL_ERR_INVALID,
          "bad op");
    CHECK(lincoll_allreduce(w, a, a + 1, 4, LINCOLL_FLOAT, LINCOLL_SUM) == LINCOLL_ERR_INVALID,
          "overlap");
    CHECK(lincoll_allgather(w, a, NULL, 1, LINCOLL_FLOAT) == LINCOLL_ERR_INVALID, "NULL rbuf");
}

static void check_mismatch(lincoll_comm_t *w)
{
    if (P < 2) return;
    /* every rank passes a different count: all of them must fail, none may hang */
    size_t n = 100 + (size_t)me;
    float *x = calloc(200, sizeof(float));
    x[n] = 1234.0f;
    lincoll_status_t st = lincoll_allreduce(w, LINCOLL_IN_PLACE, x, n, LINCOLL_FLOAT, LINCOLL_SUM);
    CHECK(st == LINCOLL_ERR_MISMATCH || st == LINCOLL_ERR_TRUNCATED || st == LINCOLL_ERR_TIMEOUT,
          "mismatched counts gave %s", lincoll_strerror(st));
    CHECK(x[n] == 1234.0f, "mismatch wrote past count");
    free(x);
    /* the ranks left waiting time out after LINCOLL_TIMEOUT; those that failed
     * at once would time out in a barrier first, so this is the last
     * communication of the program (as after a failed MPI collective, the
     * communicator's state is then undefined) */
}

int main(void)
{
    lincoll_context_t *ctx;
    lincoll_comm_t *w;
    lincoll_status_t st = lincoll_init(NULL, &ctx);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "coll_ucx: lincoll_init: %s\n", lincoll_strerror(st));
        return 1;
    }
    lincoll_comm_world(ctx, &w);
    me = lincoll_comm_rank(w);
    P = lincoll_comm_size(w);
    const char *big = getenv("COLL_UCX_BIG");
    check_all(w, big == NULL || strcmp(big, "0") != 0);
    check_blocking_and_persistent(w);
    int zc = check_zcopy(ctx, w);
    check_opts(ctx, w, zc);
    check_blocking_cache(w);
    check_bad_input(w);
    CHECK(lincoll_barrier(w) == LINCOLL_OK, "final barrier");
    check_mismatch(w);
    lincoll_finalize(ctx);
    if (failures == 0)
        printf("coll_ucx: rank %d: %d checks passed\n", me, checks);
    else
        fprintf(stderr, "coll_ucx: rank %d: %d of %d checks FAILED\n", me, failures, checks);
    return failures ? 1 : 0;
}
