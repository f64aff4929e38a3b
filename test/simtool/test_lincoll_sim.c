/*
 * test/simtool/test_lincoll_sim.c: the lincoll_sim program, run as a user
 * runs it (argv[1] is its path), its CSV parsed and checked against closed
 * forms written independently of the program:
 *  - encode: C1 and C2 of prepare_shoot, best_window and direct equal
 *    lincoll_encode_cost() (dense matrix: direct sends and receives K - 1
 *    packets per rank); dft C1 = C2 = L, lagrange 2L, vandermonde's C1 =
 *    ceil(log_{p+1} K); K powers and non-powers of p+1, p = 1..3;
 *  - collectives: rounds, and the largest and mean messages and bytes sent
 *    and received per rank, of rhd, ring and binomial equal the closed forms
 *    of test/coll/coll_expect.c (the C port of the RHD model), for K = 2, 3,
 *    7, 12, 16, 33, 100 and vector lengths that do not divide evenly; the
 *    zero-copy allreduce: 2 rounds and 2 (K - 1) zero-byte puts per rank;
 *  - matmul: ring K - 1 rounds and n (n - n/K) words sent by every rank;
 *    cannon q rounds carrying messages ((q + 1) alpha in cannon.c counts the
 *    final multiply too) and 2 n^2/q words per rank; 25d 2 log2 c + q/c;
 *  - pred_us = rounds alpha + (c2 + moved) beta + compute gamma + flops/F
 *    with the figures given by flags and by a profile file;
 *  - the CSV header, the -q output, sweeps over K and s;
 *  - repair on the survivors: star k rounds, tree ceil(log2(k + 1)), chain
 *    k + S - 1 with one chunk per survivor link;
 *  - bad input: exit status 2 and one line on stderr naming the argument;
 *    an algorithm that cannot run at these K is a row that says infeasible.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <lincoll/encode.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coll/coll_expect.h"

static const char *sim_bin;

#define MAXROWS 64
#define MAXCOLS 32

typedef struct csv {
    int nrows, ncols;
    char *hdr[MAXCOLS];
    char *cell[MAXROWS][MAXCOLS];
    char buf[1 << 16];
    int status;
    char err[4096];
} csv_t;

/* run lincoll_sim with args (a shell word list); stdout in out, stderr in err */
static int run(const char *args, char *out, size_t outlen, char *err, size_t errlen)
{
    char cmd[2048], errfile[] = "/tmp/test_lincoll_sim_errXXXXXX";
    int fd = mkstemp(errfile);
    assert_true(fd >= 0);
    close(fd);
    snprintf(cmd, sizeof(cmd), "'%s' %s 2>'%s'", sim_bin, args, errfile);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, outlen - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    FILE *e = fopen(errfile, "r");
    n = e ? fread(err, 1, errlen - 1, e) : 0;
    err[n] = '\0';
    if (e) fclose(e);
    unlink(errfile);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void run_csv(csv_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run_csv(csv_t *c, const char *fmt, ...)
{
    char args[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof(args), fmt, ap);
    va_end(ap);
    char full[1100];
    snprintf(full, sizeof(full), "%s -f csv", args);
    memset(c, 0, sizeof(*c));
    c->status = run(full, c->buf, sizeof(c->buf), c->err, sizeof(c->err));
    if (c->status != 0) fail_msg("lincoll_sim %s: exit %d: %s", full, c->status, c->err);
    char *save = NULL, *line = strtok_r(c->buf, "\n", &save);
    assert_non_null(line);
    for (char *f = line; f != NULL && c->ncols < MAXCOLS;) {
        c->hdr[c->ncols++] = f;
        f = strchr(f, ',');
        if (f) *f++ = '\0';
    }
    while ((line = strtok_r(NULL, "\n", &save)) != NULL && c->nrows < MAXROWS) {
        int n = 0;
        for (char *f = line; f != NULL && n < MAXCOLS;) {
            c->cell[c->nrows][n++] = f;
            f = strchr(f, ',');
            if (f) *f++ = '\0';
        }
        if (n != c->ncols)
            fail_msg("lincoll_sim %s: row with %d fields, header %d", full, n, c->ncols);
        c->nrows++;
    }
}

static const char *get(const csv_t *c, int row, const char *col)
{
    for (int i = 0; i < c->ncols; i++)
        if (strcmp(c->hdr[i], col) == 0) return c->cell[row][i];
    fail_msg("no column %s", col);
    return NULL;
}

static double getd(const csv_t *c, int row, const char *col)
{
    return strtod(get(c, row, col), NULL);
}

static unsigned long long getu(const csv_t *c, int row, const char *col)
{
    const char *v = get(c, row, col);
    if (strcmp(v, "nan") == 0)
        fail_msg("row %d (%s) %s is nan: %s", row, get(c, row, "algo"), col, get(c, row, "note"));
    return strtoull(v, NULL, 10);
}

static int find_row(const csv_t *c, const char *algo)
{
    for (int r = 0; r < c->nrows; r++)
        if (strcmp(get(c, r, "algo"), algo) == 0) return r;
    fail_msg("no row for %s", algo);
    return -1;
}

static void expect_ok(const csv_t *c, int r)
{
    if (strcmp(get(c, r, "status"), "ok") != 0)
        fail_msg("%s K=%s: %s: %s", get(c, r, "algo"), get(c, r, "K"), get(c, r, "status"),
                 get(c, r, "note"));
}

/* ---- encode ------------------------------------------------------------------ */

static int ceil_log(int K, int P, int *exact)
{
    int L = 0;
    long v = 1;
    while (v < K)
        v *= P, L++;
    if (exact) *exact = v == K;
    return L;
}

static void test_encode_counts(void **state)
{
    (void)state;
    static const int Ks[] = {2, 5, 9, 12, 16, 27, 64, 100, 257};
    const size_t B = 8; /* GF(2^8) universal, prime fields for dft/lagrange: 2 elements */
    int checked = 0;
    for (int p = 1; p <= 3; p++) {
        for (size_t i = 0; i < sizeof(Ks) / sizeof(Ks[0]); i++) {
            const int K = Ks[i];
            csv_t c;
            run_csv(&c, "-t encode -K %d -p %d -s %zu -A all", K, p, B);
            static const struct {
                const char *name;
                lincoll_encode_algo_t a;
            } u[] = {{"prepare_shoot", LINCOLL_ENCODE_ALGO_PREPARE_SHOOT},
                     {"best_window", LINCOLL_ENCODE_ALGO_BEST_WINDOW},
                     {"direct", LINCOLL_ENCODE_ALGO_DIRECT}};
            for (int x = 0; x < 3; x++) {
                int r = find_row(&c, u[x].name);
                expect_ok(&c, r);
                unsigned c1;
                uint64_t c2;
                assert_int_equal(lincoll_encode_cost(K, p, u[x].a, &c1, &c2, NULL), LINCOLL_OK);
                if (getu(&c, r, "rounds") != c1 || getu(&c, r, "c2") != c2 * B)
                    fail_msg(
                        "encode %s K=%d p=%d: sim C1=%llu C2=%llu B, closed form C1=%u C2=%llu "
                        "packets of %zu B",
                        u[x].name, K, p, getu(&c, r, "rounds"), getu(&c, r, "c2"), c1,
                        (unsigned long long)c2, B);
                assert_int_equal(atoi(get(&c, r, "K")), K);
                assert_int_equal(atoi(get(&c, r, "p")), p);
                assert_int_equal(atoi(get(&c, r, "size")), (int)B);
                if (u[x].a == LINCOLL_ENCODE_ALGO_DIRECT) {
                    /* dense A: every rank sends its packet to K - 1 ranks */
                    assert_int_equal(getu(&c, r, "msgs_max"), K - 1);
                    assert_int_equal(getu(&c, r, "rmsgs_max"), K - 1);
                    assert_int_equal(getu(&c, r, "bytes_max"), (K - 1) * B);
                    assert_true(fabs(getd(&c, r, "msgs_mean") - (K - 1)) < 1e-9);
                }
                checked++;
            }
            int exact, L = ceil_log(K, p + 1, &exact);
            int rd = find_row(&c, "dft"), rl = find_row(&c, "lagrange"),
                rv = find_row(&c, "vandermonde");
            if (exact && K > 1) {
                expect_ok(&c, rd);
                assert_int_equal(getu(&c, rd, "rounds"), L);
                assert_int_equal(getu(&c, rd, "c2"), L * B);
                expect_ok(&c, rl);
                assert_int_equal(getu(&c, rl, "rounds"), 2 * L);
                assert_int_equal(getu(&c, rl, "c2"), 2 * L * B);
            } else {
                /* not (p+1)^L: a row that says why, not a number */
                assert_string_equal(get(&c, rd, "status"), "infeasible");
                assert_non_null(strstr(get(&c, rd, "note"), "(p+1)^L"));
                assert_string_equal(get(&c, rd, "rounds"), "nan");
                assert_string_equal(get(&c, rl, "status"), "infeasible");
            }
            expect_ok(&c, rv);
            assert_int_equal(getu(&c, rv, "rounds"), L);
            checked++;
        }
    }
    printf("encode: %d rows checked\n", checked);
}

/* rs_encode and repair run the universal schedules on N = K ranks */
static void test_rs_counts(void **state)
{
    (void)state;
    static const int Ks[] = {6, 10, 17};
    for (size_t i = 0; i < 3; i++) {
        const int K = Ks[i], p = 2;
        csv_t c;
        run_csv(&c, "-t rs_encode -K %d -p %d -s 16 -A all --data %d", K, p, K / 2);
        for (int x = 0; x < 2; x++) {
            int r = find_row(&c, x ? "best_window" : "prepare_shoot");
            expect_ok(&c, r);
            unsigned c1;
            uint64_t c2;
            lincoll_encode_cost(
                K, p, x ? LINCOLL_ENCODE_ALGO_BEST_WINDOW : LINCOLL_ENCODE_ALGO_PREPARE_SHOOT, &c1,
                &c2, NULL);
            assert_int_equal(getu(&c, r, "rounds"), c1);
            assert_int_equal(getu(&c, r, "c2"), c2 * 16);
        }
        /* direct: the K/2 parity ranks receive the K/2 data packets */
        int r = find_row(&c, "direct");
        expect_ok(&c, r);
        assert_int_equal(getu(&c, r, "rmsgs_max"), K / 2);
        assert_int_equal(getu(&c, r, "msgs_max"), K - K / 2);
        run_csv(&c, "-t repair -K %d -p %d -s 16 -A direct --data %d --lost 2", K, p, K / 2);
        expect_ok(&c, 0);
        /* two lost ranks rebuilt from k survivors: each survivor sends to both */
        assert_int_equal(getu(&c, 0, "rmsgs_max"), K / 2);
        assert_int_equal(getu(&c, 0, "msgs_max"), 2);
    }
}

/* repair on the survivors and the lost ranks only (-A star|tree|chain):
 * star gathers k chunks in k rounds, tree ceil(log2(k + 1)) rounds, chain
 * k + r - 1 + S - 1 rounds of slices, one chunk per survivor link (r = 1) */
static void test_repair_schedules(void **state)
{
    (void)state;
    static const int Ks[] = {5, 11, 33};
    const size_t B = (size_t)1 << 20;
    for (size_t i = 0; i < 3; i++) {
        for (int r = 1; r <= 2; r++) {
            const int K = Ks[i], k = K - r;
            csv_t c;
            run_csv(&c, "-t repair -K %d -s 1m -A all --lost %d", K, r);
            int rs = find_row(&c, "star"), rt = find_row(&c, "tree"), rc = find_row(&c, "chain");
            expect_ok(&c, rs);
            expect_ok(&c, rt);
            expect_ok(&c, rc);
            int L = 0;
            while ((1 << L) < k + 1)
                L++;
            assert_int_equal(getu(&c, rs, "rounds"), k > r ? k : r);
            assert_int_equal(getu(&c, rs, "rmsgs_max"), k);
            assert_int_equal(getu(&c, rs, "rbytes_max"), (uint64_t)k * B);
            assert_int_equal(getu(&c, rt, "rounds"), L + r - 1);
            lincoll_repair_cost_t cc;
            assert_int_equal(lincoll_encode_repair_cost(NULL, k, r, 0, 1, B,
                                                        LINCOLL_REPAIR_ALGO_CHAIN, 0, NULL, &cc),
                             LINCOLL_OK);
            assert_true(cc.slices >= 2);
            assert_int_equal(getu(&c, rc, "rounds"), k + r - 1 + cc.slices - 1);
            assert_int_equal(getu(&c, rc, "bytes_max"), (uint64_t)r * B);
            assert_int_equal(getu(&c, rc, "msgs_max"), cc.slices);
            printf("repair K=%d lost=%d: star %s, tree %s, chain %s rounds (%u slices)\n", K, r,
                   get(&c, rs, "rounds"), get(&c, rt, "rounds"), get(&c, rc, "rounds"), cc.slices);
        }
    }
    /* not survivors + lost: the three say why, the N-rank encodes run */
    csv_t c;
    run_csv(&c, "-t repair -K 12 -s 8 -A all --data 6 --lost 2");
    int rc = find_row(&c, "chain");
    assert_string_equal(get(&c, rc, "status"), "infeasible");
    assert_non_null(strstr(get(&c, rc, "note"), "--data + --lost"));
    expect_ok(&c, find_row(&c, "direct"));
}

/* ---- collectives --------------------------------------------------------------- */

static void test_coll_counts(void **state)
{
    (void)state;
    static const int Ks[] = {2, 3, 7, 12, 16, 33, 100};
    static const struct {
        const char *op;
        int x;
        const char *algos[2];
        int xa[2];
    } ops[] = {
        {"allreduce", X_ALLREDUCE, {"rhd", "ring"}, {XA_RHD, XA_RING}},
        {"reduce_scatter", X_RS, {"rhd", "ring"}, {XA_RHD, XA_RING}},
        {"allgather", X_AG, {"rhd", "ring"}, {XA_RHD, XA_RING}},
        {"bcast", X_BCAST, {"rhd", "binomial"}, {XA_RHD, XA_BINOMIAL}},
        {"reduce", X_REDUCE, {"rhd", "binomial"}, {XA_RHD, XA_BINOMIAL}},
    };
    const size_t es = 4; /* float */
    int checked = 0;
    for (size_t i = 0; i < sizeof(Ks) / sizeof(Ks[0]); i++) {
        const int P = Ks[i];
        const size_t n = 3 * (size_t)P + 5; /* never a multiple of P */
        size_t *counts = calloc((size_t)P, sizeof(size_t));
        for (int r = 0; r < P; r++)
            counts[r] = n / (size_t)P + ((size_t)r < n % (size_t)P);
        for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
            const int root = ops[o].x == X_BCAST || ops[o].x == X_REDUCE ? P / 3 : 0;
            csv_t c;
            run_csv(&c, "-t %s -K %d -s %zu -A all --root %d", ops[o].op, P, n * es, root);
            for (int a = 0; a < 2; a++) {
                int row = find_row(&c, ops[o].algos[a]);
                expect_ok(&c, row);
                uint64_t ms = 0, bs = 0, mr = 0, br = 0;
                double msum = 0, bsum = 0;
                for (int me = 0; me < P; me++) {
                    xs_t x;
                    assert_int_equal(xs_expect(ops[o].x, ops[o].xa[a], P, n, counts, root, me, &x),
                                     0);
                    ms = x.ms > ms ? x.ms : ms;
                    mr = x.mr > mr ? x.mr : mr;
                    bs = x.es * es > bs ? x.es * es : bs;
                    br = x.er * es > br ? x.er * es : br;
                    msum += (double)x.ms, bsum += (double)(x.es * es);
                }
                unsigned rounds = P > 1 ? xs_rounds(ops[o].x, ops[o].xa[a], P) : 0;
                if (getu(&c, row, "rounds") != rounds || getu(&c, row, "msgs_max") != ms ||
                    getu(&c, row, "bytes_max") != bs || getu(&c, row, "rmsgs_max") != mr ||
                    getu(&c, row, "rbytes_max") != br)
                    fail_msg("%s %s P=%d n=%zu: sim rounds %llu msgs %llu/%llu bytes %llu/%llu, "
                             "closed form %u, %llu/%llu, %llu/%llu",
                             ops[o].op, ops[o].algos[a], P, n, getu(&c, row, "rounds"),
                             getu(&c, row, "msgs_max"), getu(&c, row, "rmsgs_max"),
                             getu(&c, row, "bytes_max"), getu(&c, row, "rbytes_max"), rounds,
                             (unsigned long long)ms, (unsigned long long)mr, (unsigned long long)bs,
                             (unsigned long long)br);
                assert_true(fabs(getd(&c, row, "msgs_mean") - msum / P) < 1e-3);
                assert_true(fabs(getd(&c, row, "bytes_mean") - bsum / P) < 1e-3 * (1 + bsum / P));
                checked++;
            }
            if (ops[o].x == X_ALLREDUCE && P >= 2) {
                int row = find_row(&c, "zcopy");
                expect_ok(&c, row);
                assert_int_equal(getu(&c, row, "rounds"), 2);
                assert_int_equal(getu(&c, row, "msgs_max"), 2 * (P - 1));
                assert_int_equal(getu(&c, row, "bytes_max"), 0);
                row = find_row(&c, "zcopy_rd");
                if ((P & (P - 1)) == 0) {
                    expect_ok(&c, row);
                } else {
                    assert_string_equal(get(&c, row, "status"), "infeasible");
                }
            }
        }
        free(counts);
    }
    printf("collectives: %d rows checked against coll_expect.c\n", checked);
}

/* ---- matmul ------------------------------------------------------------------------ */

static void test_matmul_counts(void **state)
{
    (void)state;
    static const int Ks[] = {3, 4, 7, 16};
    for (size_t i = 0; i < 4; i++) {
        const int P = Ks[i];
        const long n = 12L * P; /* every rank holds n/P rows */
        csv_t c;
        run_csv(&c, "-t matmul -K %d -n %ld -A ring", P, n);
        expect_ok(&c, 0);
        assert_int_equal(getu(&c, 0, "rounds"), P - 1);
        assert_int_equal(getu(&c, 0, "bytes_max"), 8 * n * (n - n / P));
        assert_int_equal(getu(&c, 0, "msgs_max"), P - 1);
        /* every rank multiplies n/P x n by n x n: 2 n^3 / P flops */
        assert_true(fabs(getd(&c, 0, "flops") - 2.0 * n * n * n / P) < 1.0);
    }
    static const int qs[] = {2, 3, 4, 6};
    for (size_t i = 0; i < 4; i++) {
        const int q = qs[i], P = q * q;
        const long n = 8L * q;
        csv_t c;
        run_csv(&c, "-t matmul -K %d -n %ld -A cannon", P, n);
        expect_ok(&c, 0);
        /* the skew round and q - 1 shifts; a block of b = n/q each way per round */
        assert_int_equal(getu(&c, 0, "rounds"), q);
        const long b = n / q;
        assert_int_equal(getu(&c, 0, "bytes_max"), 8 * (2 * b * b + 2 * b * (n - b)));
    }
    /* 25d on 4 x 4 x 4: broadcast (2 rounds), skew, q/c - 1 shifts, reduction (2 rounds) */
    csv_t c;
    run_csv(&c, "-t matmul -K 64 -n 64 -A 25d");
    expect_ok(&c, 0);
    assert_int_equal(getu(&c, 0, "rounds"), 2 * 2 + 4 / 4);
    run_csv(&c, "-t matmul -K 128 -n 64 -A 2.5d --layers 2"); /* the old name of 25d */
    assert_string_equal(get(&c, 0, "algo"), "25d");
    expect_ok(&c, 0);
    assert_int_equal(getu(&c, 0, "rounds"), 2 * 1 + 8 / 2);
    /* K = 12: no square grid */
    run_csv(&c, "-t matmul -K 12 -n 48 -A all");
    assert_string_equal(get(&c, find_row(&c, "cannon"), "status"), "infeasible");
    expect_ok(&c, find_row(&c, "summa"));
}

/* ---- model -------------------------------------------------------------------------- */

static void check_pred(const csv_t *c, int r, double al, double be, double ga, double fl)
{
    double want = 1e6 * (getd(c, r, "rounds") * al + (getd(c, r, "c2") + getd(c, r, "moved")) * be +
                         getd(c, r, "compute") * ga + getd(c, r, "flops") / fl);
    double got = getd(c, r, "pred_us");
    if (fabs(got - want) > 1e-3 * want + 1e-9)
        fail_msg("%s %s: pred_us %g, formula %g", get(c, r, "op"), get(c, r, "algo"), got, want);
}

static void test_pred_formula(void **state)
{
    (void)state;
    csv_t c;
    run_csv(&c, "-t encode -K 27 -p 2 -s 64 -A all --alpha 1e-6 --beta 2e-9 --gamma 3e-10");
    for (int r = 0; r < c.nrows; r++)
        if (strcmp(get(&c, r, "status"), "ok") == 0) check_pred(&c, r, 1e-6, 2e-9, 3e-10, 1);
    /* the plan's own model runs with the same figures: equal for unchunked plans */
    int r = find_row(&c, "prepare_shoot");
    assert_true(fabs(getd(&c, r, "pred_us") - getd(&c, r, "plan_us")) <
                1e-3 * getd(&c, r, "pred_us"));
    /* alpha alone: rounds * alpha */
    run_csv(&c, "-t allreduce -K 12 -s 4k -A rhd --alpha 1e-3 --beta 0 --gamma 0");
    assert_true(fabs(getd(&c, 0, "pred_us") - 1e3 * getd(&c, 0, "rounds")) < 1e-6);
    /* a profile file: its figures */
    char path[] = "/tmp/test_lincoll_sim_profXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "# test\nname testbox\nalpha 3e-6 # per round\nbeta 1e-10\ngamma 2e-10\n"
               "flops 1e9\nports 3\n");
    fclose(f);
    run_csv(&c, "-t matmul -K 16 -n 64 -A cannon --profile %s", path);
    check_pred(&c, 0, 3e-6, 1e-10, 2e-10, 1e9);
    assert_int_equal(atoi(get(&c, 0, "p")), 3); /* ports from the profile */
    assert_true(getd(&c, 0, "flops") > 0);
    unlink(path);
    /* the shipped profiles are found next to the binary */
    run_csv(&c, "-t allreduce -K 8 -A rhd --profile ib200");
    check_pred(&c, 0, 2e-6, 4e-11, 1e-10, 5e10);
    assert_int_equal(atoi(get(&c, 0, "p")), 2);
    run_csv(&c, "-t allreduce -K 8 -A rhd --profile eth100");
    check_pred(&c, 0, 5e-6, 8e-11, 1e-10, 5e10);
    /* choice: the library's pick under these figures (latency-bound: rd, one
     * message a round, over rhd and ring) */
    run_csv(&c, "-t allreduce -K 64 -s 64 -A all --alpha 1e-3 --beta 1e-12 --gamma 0");
    assert_string_equal(get(&c, find_row(&c, "ring"), "choice"), "rd");
    /* bandwidth-bound off a power of two: the fold costs rhd a full vector more */
    run_csv(&c, "-t allreduce -K 12 -s 48k -A ring --alpha 0 --beta 1e-9 --gamma 1e-9");
    expect_ok(&c, 0);
    assert_string_equal(get(&c, 0, "choice"), "ring");
}

/* ---- format ---------------------------------------------------------------------------- */

static void test_csv_format(void **state)
{
    (void)state;
    char out[1 << 14], err[4096];
    assert_int_equal(run("-t allreduce -K 6 -A all -f csv", out, sizeof(out), err, sizeof(err)), 0);
    const char *want = "op,algo,K,p,size,rounds,c2,bytes_max,msgs_max,pred_us,choice";
    assert_memory_equal(out, want, strlen(want));
    assert_true(out[strlen(want)] == ',' || out[strlen(want)] == '\n');
    csv_t c;
    run_csv(&c, "-t allreduce -K 6 -A all");
    assert_int_equal(c.nrows, 5); /* rhd rd ring zcopy_rd zcopy */
    /* -q: one value per row, nothing else */
    assert_int_equal(
        run("-t encode -K 9 -p 2 -s 16 -A all -q rounds", out, sizeof(out), err, sizeof(err)), 0);
    int lines = 0;
    for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"), lines++) {
        char *end;
        double v = strtod(l, &end);
        assert_true(*end == '\0');
        assert_true(v == 2 || v == 8 || isnan(v) || v == 4); /* log3 9 = 2; direct 4; zcopy 2 */
    }
    assert_int_equal(lines, 8);
    /* sweeps */
    run_csv(&c, "-t bcast -A binomial --sweep K=4:32");
    assert_int_equal(c.nrows, 4);
    for (int r = 0; r < 4; r++) {
        assert_int_equal(atoi(get(&c, r, "K")), 4 << r);
        assert_int_equal(getu(&c, r, "rounds"), 2 + r); /* log2 K */
    }
    run_csv(&c, "-t allgather -K 8 -A rhd --sweep s=1k:8k");
    assert_int_equal(c.nrows, 4);
    for (int r = 0; r < 4; r++) {
        assert_int_equal(atoi(get(&c, r, "size")), 1024 << r);
        /* the largest RHD allgather message is half the vector */
        assert_int_equal(getu(&c, r, "rounds"), 3);
        assert_int_equal(getu(&c, r, "c2"), (1024u << r) * 7 / 8);
    }
    /* -h is the manual */
    assert_int_equal(run("-h", out, sizeof(out), err, sizeof(err)), 0);
    assert_non_null(strstr(out, "SYNOPSIS"));
    assert_non_null(strstr(out, "pred_us"));
}

/* ---- bad input ------------------------------------------------------------------------------ */

static void expect_bad(const char *args, const char *needle)
{
    char out[1 << 14], err[4096];
    int st = run(args, out, sizeof(out), err, sizeof(err));
    if (st != 2) fail_msg("lincoll_sim %s: exit %d (want 2), stderr: %s", args, st, err);
    int nl = 0;
    for (char *x = err; *x; x++)
        nl += *x == '\n';
    if (nl != 1 || strstr(err, needle) == NULL)
        fail_msg("lincoll_sim %s: want one line naming '%s', got: %s", args, needle, err);
    assert_string_equal(out, "");
}

static void test_bad_input(void **state)
{
    (void)state;
    expect_bad("-t alltoall -K 4", "-t alltoall");
    expect_bad("-K 4", "-t");
    expect_bad("-t encode -K 4 -A quick", "-A quick");
    expect_bad("-t bcast -K 4 -A ring", "-A ring");
    expect_bad("-t encode -K 0", "-K 0");
    expect_bad("-t allreduce -K -3", "-K -3");
    expect_bad("-t encode -K 5000", "-K 5000");
    expect_bad("-t encode", "-K");
    expect_bad("-t encode -K 4 -A dft -s 6", "-s 6");
    expect_bad("-t allreduce -K 4 -s 6", "-s 6");
    expect_bad("-t allreduce -K 4 -s 12x", "-s 12x");
    expect_bad("-t encode -K 4 --profile /nonexistent/x.profile", "--profile");
    expect_bad("-t encode -K 4 --profile no_such_profile", "--profile no_such_profile");
    expect_bad("-t encode -K 4 --alpha fast", "--alpha fast");
    expect_bad("-t encode -K 4 -p 0", "-p 0");
    expect_bad("-t encode -K 4 -q speed", "-q speed");
    expect_bad("-t encode -K 4 -f json", "-f json");
    expect_bad("-t encode --sweep K=8:4", "--sweep K=8:4");
    expect_bad("-t encode -K 4 --plot x.png", "--plot");
    expect_bad("-t bcast -K 4 --root 4", "--root 4");
    expect_bad("-t rs_encode -K 4 --data 4", "--data 4");
    expect_bad("-t encode -K 4 --field 100", "--field 100");
    expect_bad("-t encode -K 4 --bogus", "--bogus");
    /* a profile with a bad line names the file and the line */
    char path[] = "/tmp/test_lincoll_sim_badXXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "alpha 1e-6\nbeta 1e-10\nlatency 3\n");
    fclose(f);
    char args[256], needle[128];
    snprintf(args, sizeof(args), "-t encode -K 4 --profile %s", path);
    snprintf(needle, sizeof(needle), "%s:3", path);
    expect_bad(args, needle);
    unlink(path);
}

/* an infeasible algorithm is a row, quickly, never a hang */
static void test_infeasible_rows(void **state)
{
    (void)state;
    csv_t c;
    run_csv(&c, "-t encode -K 200 -p 1 -s 8 -A direct --time-limit 0.001");
    assert_string_equal(get(&c, 0, "status"), "infeasible");
    assert_non_null(strstr(get(&c, 0, "note"), "--time-limit"));
    run_csv(&c, "-t allreduce -K 64 -s 1m -A rhd --max-mem 1m");
    assert_string_equal(get(&c, 0, "status"), "infeasible");
    assert_non_null(strstr(get(&c, 0, "note"), "--max-mem"));
    run_csv(&c, "-t repair -K 12 -s 8 -A all --data 8 --lost 4");
    for (int r = 0; r < c.nrows; r++)
        expect_ok(&c, r);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH_TO_lincoll_sim\n", argv[0]);
        return 2;
    }
    sim_bin = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_format),       cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_pred_formula),     cmocka_unit_test(test_infeasible_rows),
        cmocka_unit_test(test_coll_counts),      cmocka_unit_test(test_matmul_counts),
        cmocka_unit_test(test_rs_counts),        cmocka_unit_test(test_encode_counts),
        cmocka_unit_test(test_repair_schedules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
