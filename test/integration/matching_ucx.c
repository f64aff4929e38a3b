/*
 * test/integration/matching_ucx.c: point-to-point and collectives on one
 * communicator never cross-match, over real UCX (one process per rank, run
 * under lincoll-run or mpirun, any P >= 2).
 *
 * Checks, on every rank:
 *  1. ranks 0 and 1 exchange one message (lincoll_sendrecv_init), then every
 *     rank runs lincoll_allreduce on one double;
 *  2. asymmetric point-to-point on subsets (0<->1 three times, 1->2 twice,
 *     a tagged stream P-1 -> 0 interleaved with an untagged one), then every
 *     collective family: allreduce, reduce-scatter, allgather, bcast, reduce,
 *     an all-to-all encode, a Reed-Solomon encode and a matmul; each result
 *     is checked against its closed form;
 *  3. collectives interleaved on two overlapping communicators from
 *     lincoll_comm_split (by parity and by halves) and the world;
 *  4. 5000 persistent allreduce plans made, then started in the same order
 *     (the 12-bit collective sequence wraps), with point-to-point plans
 *     between ranks 0 and 1 started in between.
 * Exits 0 only if every check passed; prints "matching_ucx: rank R: N checks passed".
 */
#include <lincoll/lincoll.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks, failures, me = -1;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "matching_ucx: rank %d: FAILED %s:%d: ", me, __FILE__, __LINE__);      \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

static lincoll_status_t run(lincoll_status_t st, lincoll_plan_t *p)
{
    if (st == LINCOLL_OK) st = lincoll_start(p);
    if (st == LINCOLL_OK) st = lincoll_wait(p);
    lincoll_plan_free(p);
    return st;
}

/* One exchange between a and b (both call it; others return at once). */
static void exchange(lincoll_comm_t *c, int a, int b, unsigned tag, int salt)
{
    int r = lincoll_comm_rank(c);
    if (r != a && r != b) return;
    if (lincoll_comm_size(c) <= (a > b ? a : b)) return; /* a group too small for the pair */
    int peer = r == a ? b : a;
    long out = 1000L * r + salt, in = -1;
    lincoll_plan_t *p = NULL;
    lincoll_status_t st = lincoll_sendrecv_tagged_init(c, &out, sizeof(out), peer, &in, sizeof(in),
                                                       peer, tag, LINCOLL_SENDRECV_CONCURRENT, &p);
    st = run(st, p);
    CHECK(st == LINCOLL_OK && in == 1000L * peer + salt, "exchange %d<->%d tag %u: %s, got %ld", a,
          b, tag, lincoll_strerror(st), in);
}

/* One message from a to b. */
static void one_way(lincoll_comm_t *c, int a, int b, unsigned tag, long v)
{
    int r = lincoll_comm_rank(c);
    if (r != a && r != b) return;
    long buf = r == a ? v : -1;
    lincoll_plan_t *p = NULL;
    lincoll_status_t st = r == a
                              ? lincoll_sendrecv_tagged_init(c, &buf, sizeof(buf), b, NULL, 0, -1,
                                                             tag, LINCOLL_SENDRECV_CONCURRENT, &p)
                              : lincoll_sendrecv_tagged_init(c, NULL, 0, -1, &buf, sizeof(buf), a,
                                                             tag, LINCOLL_SENDRECV_CONCURRENT, &p);
    st = run(st, p);
    CHECK(st == LINCOLL_OK && buf == v, "one way %d->%d tag %u: %s, got %ld want %ld", a, b, tag,
          lincoll_strerror(st), buf, v);
}

static void check_issue_program(lincoll_comm_t *w)
{
    int P = lincoll_comm_size(w);
    exchange(w, 0, 1, 0, 7);
    double x = (double)(me + 1), s = 0;
    lincoll_status_t st = lincoll_allreduce(w, &x, &s, 1, LINCOLL_DOUBLE, LINCOLL_SUM);
    CHECK(st == LINCOLL_OK && s == (double)P * (P + 1) / 2, "allreduce after 0<->1: %s, %g",
          lincoll_strerror(st), s);
}

static void check_families(lincoll_context_t *ctx, lincoll_comm_t *w)
{
    const int P = lincoll_comm_size(w);
    /* asymmetric point-to-point first */
    for (int i = 0; i < 3; i++)
        exchange(w, 0, 1, 0, 10 + i);
    if (P >= 3) {
        one_way(w, 1, 2, 0, 111);
        one_way(w, 1, 2, 0, 112);
    }
    if (P >= 3) { /* a tagged and an untagged stream between the same pair, interleaved */
        one_way(w, P - 1, 0, 9, 901);
        one_way(w, P - 1, 0, 0, 902);
        one_way(w, P - 1, 0, 9, 903);
    }
    lincoll_status_t st;
    /* allreduce */
    enum { N = 1000 };
    int *in = malloc(sizeof(int) * N * (size_t)P), *out = malloc(sizeof(int) * N * (size_t)P);
    for (int i = 0; i < N; i++)
        in[i] = me * 3 + i;
    st = lincoll_allreduce(w, in, out, N, LINCOLL_INT32, LINCOLL_SUM);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += out[i] != 3 * P * (P - 1) / 2 + P * i;
    CHECK(st == LINCOLL_OK && bad == 0, "allreduce: %s, %d wrong", lincoll_strerror(st), bad);
    /* reduce-scatter: block j of rank r holds r + j + i */
    for (int j = 0; j < P; j++)
        for (int i = 0; i < N; i++)
            in[j * N + i] = me + j + i;
    st = lincoll_reduce_scatter(w, in, out, N, LINCOLL_INT32, LINCOLL_SUM);
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += out[i] != P * (P - 1) / 2 + P * (me + i);
    CHECK(st == LINCOLL_OK && bad == 0, "reduce_scatter: %s, %d wrong", lincoll_strerror(st), bad);
    /* allgather */
    for (int i = 0; i < N; i++)
        in[i] = 7 * me + i;
    st = lincoll_allgather(w, in, out, N, LINCOLL_INT32);
    bad = 0;
    for (int j = 0; j < P; j++)
        for (int i = 0; i < N; i++)
            bad += out[j * N + i] != 7 * j + i;
    CHECK(st == LINCOLL_OK && bad == 0, "allgather: %s, %d wrong", lincoll_strerror(st), bad);
    /* bcast from the last rank */
    for (int i = 0; i < N; i++)
        out[i] = me == P - 1 ? 5 * i + 1 : -1;
    st = lincoll_bcast(w, out, N, LINCOLL_INT32, P - 1);
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += out[i] != 5 * i + 1;
    CHECK(st == LINCOLL_OK && bad == 0, "bcast: %s, %d wrong", lincoll_strerror(st), bad);
    /* reduce to rank 1 */
    for (int i = 0; i < N; i++) {
        in[i] = me - i;
        out[i] = -7;
    }
    st = lincoll_reduce_coll(w, in, out, N, LINCOLL_INT32, LINCOLL_MAX, 1);
    bad = 0;
    for (int i = 0; me == 1 && i < N; i++)
        bad += out[i] != P - 1 - i;
    CHECK(st == LINCOLL_OK && bad == 0, "reduce: %s, %d wrong", lincoll_strerror(st), bad);
    free(in);
    free(out);

    /* all-to-all encode over GF(2^8): out_k = sum_j A[j][k] x_j */
    lincoll_field_t *f = NULL;
    CHECK(lincoll_gf_field_create(256, &f) == LINCOLL_OK, "field");
    if (f != NULL) {
        const size_t B = 4096;
        uint64_t *A = malloc(sizeof(uint64_t) * (size_t)(P * P));
        for (int j = 0; j < P; j++)
            for (int k = 0; k < P; k++)
                A[j * P + k] = (uint64_t)((j * 31 + k * 17 + 3) % 255 + 1);
        unsigned char *x = malloc(B), *y = malloc(B), *want = calloc(1, B);
        for (size_t i = 0; i < B; i++)
            x[i] = (unsigned char)(me * 13 + i * 7);
        for (int j = 0; j < P; j++)
            for (size_t i = 0; i < B; i++)
                want[i] ^= (unsigned char)lincoll_gf_mul(f, A[j * P + me],
                                                         (unsigned char)(j * 13 + i * 7));
        lincoll_plan_t *p = NULL;
        st = lincoll_encode_init(w, f, A, P, P, B, x, y, NULL, &p);
        st = run(st, p);
        CHECK(st == LINCOLL_OK && memcmp(y, want, B) == 0, "encode: %s", lincoll_strerror(st));
        /* systematic RS: k = P - 1 data ranks, one parity */
        if (P >= 2) {
            uint64_t *G = malloc(sizeof(uint64_t) * (size_t)(P * (P - 1)));
            st = lincoll_gf_matrix_systematic(f, P, P - 1, LINCOLL_GF_RS_CAUCHY, G);
            CHECK(st == LINCOLL_OK, "systematic: %s", lincoll_strerror(st));
            memset(y, 0, B);
            p = NULL;
            st = lincoll_encode_rs_init(w, f, P - 1, LINCOLL_GF_RS_CAUCHY, NULL, B, x, y, NULL, &p);
            st = run(st, p);
            if (me == P - 1) {
                memset(want, 0, B);
                for (int j = 0; j < P - 1; j++)
                    for (size_t i = 0; i < B; i++)
                        want[i] ^= (unsigned char)lincoll_gf_mul(f, G[(P - 1) * (P - 1) + j],
                                                                 (unsigned char)(j * 13 + i * 7));
            }
            CHECK(st == LINCOLL_OK && (me != P - 1 || memcmp(y, want, B) == 0), "rs encode: %s",
                  lincoll_strerror(st));
            free(G);
        }
        free(A);
        free(x);
        free(y);
        free(want);
        lincoll_gf_field_destroy(f);
    }

    /* matmul, 1D ring on P x 1: integer entries, exact in double */
    const int64_t m = 8 * P, k = 12, n = 10;
    lincoll_matdesc_t da, db, dc;
    CHECK(lincoll_matdesc_block(&da, m, k, P, 1, 1, LINCOLL_ROW_MAJOR) == LINCOLL_OK, "desc A");
    CHECK(lincoll_matdesc_block(&db, k, n, P, 1, 1, LINCOLL_ROW_MAJOR) == LINCOLL_OK, "desc B");
    CHECK(lincoll_matdesc_block(&dc, m, n, P, 1, 1, LINCOLL_ROW_MAJOR) == LINCOLL_OK, "desc C");
    const int64_t ra = da.mb, rb = db.mb; /* rows per rank */
    const int64_t a0 = ra * me, b0 = rb * me;
    const int64_t an = a0 >= m ? 0 : (m - a0 < ra ? m - a0 : ra);
    const int64_t bn = b0 >= k ? 0 : (k - b0 < rb ? k - b0 : rb);
    double *la = calloc((size_t)(ra * k) + 1, sizeof(double));
    double *lb = calloc((size_t)(rb * n) + 1, sizeof(double));
    double *lc = calloc((size_t)(ra * n) + 1, sizeof(double));
    for (int64_t i = 0; i < an; i++)
        for (int64_t j = 0; j < k; j++)
            la[i * k + j] = (double)((a0 + i + 2 * j) % 5);
    for (int64_t i = 0; i < bn; i++)
        for (int64_t j = 0; j < n; j++)
            lb[i * n + j] = (double)((3 * (b0 + i) + j) % 7) - 3;
    lincoll_matmul_opts_t mo;
    memset(&mo, 0, sizeof(mo));
    mo.algo = LINCOLL_MATMUL_RING;
    st = lincoll_matmul(w, LINCOLL_DOUBLE, 1.0, la, &da, lb, &db, 0.0, lc, &dc, &mo);
    bad = 0;
    for (int64_t i = 0; i < an; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            for (int64_t t = 0; t < k; t++)
                s += (double)((a0 + i + 2 * t) % 5) * (double)((3 * t + j) % 7 - 3);
            bad += lc[i * n + j] != s;
        }
    CHECK(st == LINCOLL_OK && bad == 0, "matmul ring: %s, %d wrong", lincoll_strerror(st), bad);
    free(la);
    free(lb);
    free(lc);
    (void)ctx;
}

static void check_overlapping(lincoll_comm_t *w)
{
    const int P = lincoll_comm_size(w);
    lincoll_comm_t *par = NULL, *half = NULL;
    lincoll_status_t st = lincoll_comm_split(w, me % 2, me, &par);
    CHECK(st == LINCOLL_OK && par != NULL, "split by parity: %s", lincoll_strerror(st));
    st = lincoll_comm_split(w, me < P / 2, -me, &half); /* reversed order inside */
    CHECK(st == LINCOLL_OK && half != NULL, "split by halves: %s", lincoll_strerror(st));
    if (par == NULL || half == NULL) return;
    /* the expected sums over each group */
    long spar = 0, shalf = 0, sall = (long)P * (P - 1) / 2;
    for (int r = 0; r < P; r++) {
        spar += r % 2 == me % 2 ? r : 0;
        shalf += (r < P / 2) == (me < P / 2) ? r : 0;
    }
    for (int it = 0; it < 20; it++) {
        long x = me, y = 0;
        /* point-to-point inside the parity group between its first two members */
        exchange(par, 0, 1, (unsigned)it % 3, it);
        st = lincoll_allreduce(par, &x, &y, 1, LINCOLL_INT64, LINCOLL_SUM);
        CHECK(st == LINCOLL_OK && y == spar, "it %d parity allreduce: %s %ld", it,
              lincoll_strerror(st), y);
        st = lincoll_allreduce(half, &x, &y, 1, LINCOLL_INT64, LINCOLL_SUM);
        CHECK(st == LINCOLL_OK && y == shalf, "it %d half allreduce: %s %ld", it,
              lincoll_strerror(st), y);
        if (it % 3 == 0) {
            st = lincoll_allreduce(w, &x, &y, 1, LINCOLL_INT64, LINCOLL_SUM);
            CHECK(st == LINCOLL_OK && y == sall, "it %d world allreduce: %s %ld", it,
                  lincoll_strerror(st), y);
        }
        long b = lincoll_comm_rank(half) == 0 ? 100 + it : -1;
        st = lincoll_bcast(half, &b, 1, LINCOLL_INT64, 0);
        CHECK(st == LINCOLL_OK && b == 100 + it, "it %d half bcast: %s %ld", it,
              lincoll_strerror(st), b);
        exchange(half, 0, lincoll_comm_size(half) - 1, 1, it);
    }
    lincoll_comm_free(par);
    lincoll_comm_free(half);
}

static void check_wrap(lincoll_comm_t *w)
{
    const int P = lincoll_comm_size(w), NP = 5000;
    lincoll_plan_t **plans = calloc(NP, sizeof(*plans));
    int *in = malloc(sizeof(int) * NP), *out = malloc(sizeof(int) * NP);
    int made = 0;
    for (int i = 0; i < NP; i++) {
        in[i] = me + i;
        out[i] = -1;
        lincoll_status_t st =
            lincoll_allreduce_init(w, &in[i], &out[i], 1, LINCOLL_INT32, LINCOLL_SUM, &plans[i]);
        if (st != LINCOLL_OK) {
            CHECK(0, "allreduce_init %d: %s", i, lincoll_strerror(st));
            break;
        }
        made++;
    }
    int bad = 0, errs = 0;
    for (int i = 0; i < made; i++) {
        if (i % 97 == 0) exchange(w, 0, 1, 0, i);
        lincoll_status_t st = lincoll_start(plans[i]);
        if (st == LINCOLL_OK) st = lincoll_wait(plans[i]);
        errs += st != LINCOLL_OK;
        bad += out[i] != P * (P - 1) / 2 + P * i;
        if (st != LINCOLL_OK) break;
    }
    CHECK(made == NP && errs == 0 && bad == 0, "%d persistent plans: %d errors, %d wrong", made,
          errs, bad);
    for (int i = 0; i < made; i++)
        lincoll_plan_free(plans[i]);
    free(plans);
    free(in);
    free(out);
}

int main(void)
{
    lincoll_context_t *ctx;
    lincoll_status_t st = lincoll_init(NULL, &ctx);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "matching_ucx: lincoll_init: %s\n", lincoll_strerror(st));
        return 1;
    }
    lincoll_comm_t *w;
    lincoll_comm_world(ctx, &w);
    me = lincoll_comm_rank(w);
    if (lincoll_comm_size(w) < 2) {
        fprintf(stderr, "matching_ucx: needs at least 2 ranks\n");
        lincoll_finalize(ctx);
        return 1;
    }
    check_issue_program(w);
    check_families(ctx, w);
    check_overlapping(w);
    check_wrap(w);
    st = lincoll_finalize(ctx);
    CHECK(st == LINCOLL_OK, "finalize: %s", lincoll_strerror(st));
    if (failures == 0) printf("matching_ucx: rank %d: %d checks passed\n", me, checks);
    return failures != 0;
}
