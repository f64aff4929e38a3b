/*
 * test/exec/test_matching_sim.c: point-to-point plans on subsets of ranks
 * never shift how the communicator's collectives match (sim transport,
 * virtual ranks driven from one thread).
 *
 *  - ranks 0 and 1 exchange a message, then every rank runs an allreduce
 *    (P = 3: this deadlocked when point-to-point starts advanced the
 *    collective sequence);
 *  - asymmetric point-to-point on subsets (0<->1 three times, 1->2 twice,
 *    tagged and untagged streams P-1 -> 0), then every collective family
 *    (allreduce, reduce-scatter, allgather, bcast, reduce, encode, RS
 *    encode, matmul), each checked against its closed form;
 *  - collectives interleaved on two overlapping split communicators;
 *  - 5000 persistent plans started in order (the 12-bit sequence wraps)
 *    with point-to-point plans in between;
 *  - tags: a point-to-point plan's tag carries the point-to-point bit and
 *    its user tag; an untagged receive does not match a tagged send.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/sim_harness.h"
#include "core/context/context.h"

#define KMAX 8

/* Run the plans of the ranks that have one (NULL: sits out), then free them. */
static lincoll_status_t run_free(lc_simh_t *h, lincoll_plan_t **plans)
{
    lincoll_status_t st = lc_simh_run(h, plans);
    for (int r = 0; r < h->K; r++) {
        lincoll_plan_free(plans[r]);
        plans[r] = NULL;
    }
    return st;
}

/* a and b exchange one long on comm[] (a per-rank communicator array). */
static void exchange(lc_simh_t *h, lincoll_comm_t **comm, int a, int b, unsigned tag, long salt)
{
    lincoll_plan_t *plans[KMAX] = {0};
    long out[KMAX], in[KMAX];
    int who[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        int w = -1; /* the virtual rank whose communicator rank is who[i] */
        for (int r = 0; r < h->K; r++)
            if (comm[r] != NULL && lincoll_comm_rank(comm[r]) == who[i]) w = r;
        assert_true(w >= 0);
        int peer = who[1 - i];
        out[w] = 1000L * who[i] + salt;
        in[w] = -1;
        assert_int_equal(lincoll_sendrecv_tagged_init(comm[w], &out[w], sizeof(long), peer, &in[w],
                                                      sizeof(long), peer, tag,
                                                      LINCOLL_SENDRECV_CONCURRENT, &plans[w]),
                         LINCOLL_OK);
    }
    lincoll_status_t st = lc_simh_run(h, plans);
    assert_int_equal(st, LINCOLL_OK);
    for (int r = 0; r < h->K; r++) {
        if (plans[r] == NULL) continue;
        int me = lincoll_comm_rank(comm[r]), peer = me == a ? b : a;
        assert_true(in[r] == 1000L * peer + salt);
        lincoll_plan_free(plans[r]);
    }
}

/* One long from world rank a to world rank b with tag. */
static void one_way(lc_simh_t *h, int a, int b, unsigned tag, long v)
{
    lincoll_plan_t *plans[KMAX] = {0};
    long sbuf = v, rbuf = -1;
    assert_int_equal(lincoll_sendrecv_tagged_init(h->comm[a], &sbuf, sizeof(long), b, NULL, 0, -1,
                                                  tag, LINCOLL_SENDRECV_CONCURRENT, &plans[a]),
                     LINCOLL_OK);
    assert_int_equal(lincoll_sendrecv_tagged_init(h->comm[b], NULL, 0, -1, &rbuf, sizeof(long), a,
                                                  tag, LINCOLL_SENDRECV_CONCURRENT, &plans[b]),
                     LINCOLL_OK);
    assert_int_equal(run_free(h, plans), LINCOLL_OK);
    assert_true(rbuf == v);
}

static void allreduce_all(lc_simh_t *h, lincoll_comm_t **comm, long *x, long *y)
{
    lincoll_plan_t *plans[KMAX] = {0};
    for (int r = 0; r < h->K; r++)
        assert_int_equal(
            lincoll_allreduce_init(comm[r], &x[r], &y[r], 1, LINCOLL_INT64, LINCOLL_SUM, &plans[r]),
            LINCOLL_OK);
    assert_int_equal(run_free(h, plans), LINCOLL_OK);
}

static void test_issue_program(void **state)
{
    (void)state;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, 3, 1), 0);
    exchange(&h, h.comm, 0, 1, 0, 5);
    long x[3] = {1, 2, 3}, y[3] = {0};
    allreduce_all(&h, h.comm, x, y);
    for (int r = 0; r < 3; r++)
        assert_true(y[r] == 6);
    /* the point-to-point starts left the collective sequence alone */
    assert_int_equal(h.comm[0]->seq, h.comm[2]->seq);
    lc_simh_destroy(&h);
}

static void test_families(void **state)
{
    (void)state;
    const int P = 5;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 2), 0);
    for (int i = 0; i < 3; i++)
        exchange(&h, h.comm, 0, 1, 0, 10 + i);
    one_way(&h, 1, 2, 0, 111);
    one_way(&h, 1, 2, 0, 112);
    one_way(&h, P - 1, 0, 9, 901);
    one_way(&h, P - 1, 0, 0, 902);
    lincoll_plan_t *plans[KMAX] = {0};
    enum { N = 300 };
    static int in[KMAX][N * KMAX], out[KMAX][N * KMAX];
    /* allreduce */
    for (int r = 0; r < P; r++) {
        for (int i = 0; i < N; i++)
            in[r][i] = 3 * r + i;
        assert_int_equal(lincoll_allreduce_init(h.comm[r], in[r], out[r], N, LINCOLL_INT32,
                                                LINCOLL_SUM, &plans[r]),
                         LINCOLL_OK);
    }
    assert_int_equal(run_free(&h, plans), LINCOLL_OK);
    for (int r = 0; r < P; r++)
        for (int i = 0; i < N; i++)
            assert_int_equal(out[r][i], 3 * P * (P - 1) / 2 + P * i);
    /* reduce-scatter */
    for (int r = 0; r < P; r++) {
        for (int j = 0; j < P; j++)
            for (int i = 0; i < N; i++)
                in[r][j * N + i] = r + j + i;
        assert_int_equal(lincoll_reduce_scatter_init(h.comm[r], in[r], out[r], N, LINCOLL_INT32,
                                                     LINCOLL_SUM, &plans[r]),
                         LINCOLL_OK);
    }
    assert_int_equal(run_free(&h, plans), LINCOLL_OK);
    for (int r = 0; r < P; r++)
        for (int i = 0; i < N; i++)
            assert_int_equal(out[r][i], P * (P - 1) / 2 + P * (r + i));
    /* allgather */
    for (int r = 0; r < P; r++) {
        for (int i = 0; i < N; i++)
            in[r][i] = 7 * r + i;
        assert_int_equal(
            lincoll_allgather_init(h.comm[r], in[r], out[r], N, LINCOLL_INT32, &plans[r]),
            LINCOLL_OK);
    }
    assert_int_equal(run_free(&h, plans), LINCOLL_OK);
    for (int r = 0; r < P; r++)
        for (int j = 0; j < P; j++)
            for (int i = 0; i < N; i++)
                assert_int_equal(out[r][j * N + i], 7 * j + i);
    /* bcast from the last rank, reduce to rank 1 */
    for (int r = 0; r < P; r++) {
        for (int i = 0; i < N; i++)
            out[r][i] = r == P - 1 ? 5 * i + 1 : -1;
        assert_int_equal(lincoll_bcast_init(h.comm[r], out[r], N, LINCOLL_INT32, P - 1, &plans[r]),
                         LINCOLL_OK);
    }
    assert_int_equal(run_free(&h, plans), LINCOLL_OK);
    for (int r = 0; r < P; r++)
        for (int i = 0; i < N; i++)
            assert_int_equal(out[r][i], 5 * i + 1);
    for (int r = 0; r < P; r++) {
        for (int i = 0; i < N; i++)
            in[r][i] = r - i;
        assert_int_equal(lincoll_reduce_init(h.comm[r], in[r], out[r], N, LINCOLL_INT32,
                                             LINCOLL_MAX, 1, &plans[r]),
                         LINCOLL_OK);
    }
    assert_int_equal(run_free(&h, plans), LINCOLL_OK);
    for (int i = 0; i < N; i++)
        assert_int_equal(out[1][i], P - 1 - i);
    exchange(&h, h.comm, 3, 1, 2, 77);
    /* all-to-all encode over GF(2^8), then a systematic RS encode */
    lincoll_field_t *f;
    assert_int_equal(lincoll_gf_field_create(256, &f), LINCOLL_OK);
    enum { B = 512 };
    uint64_t A[KMAX * KMAX];
    for (int j = 0; j < P; j++)
        for (int k = 0; k < P; k++)
            A[j * P + k] = (uint64_t)((j * 31 + k * 17 + 3) % 255 + 1);
    static unsigned char x[KMAX][B], y[KMAX][B];
    for (int r = 0; r < P; r++) {
        for (int i = 0; i < B; i++)
            x[r][i] = (unsigned char)(r * 13 + i * 7);
        assert_int_equal(lincoll_encode_init(h.comm[r], f, A, P, P, B, x[r], y[r], NULL, &plans[r]),
                         LINCOLL_OK);
    }
    assert_int_equal(run_free(&h, plans), LINCOLL_OK);
    for (int r = 0; r < P; r++)
        for (int i = 0; i < B; i++) {
            unsigned char w = 0;
            for (int j = 0; j < P; j++)
                w ^= (unsigned char)lincoll_gf_mul(f, A[j * P + r], x[j][i]);
            assert_int_equal(y[r][i], w);
        }
    uint64_t G[KMAX * KMAX];
    assert_int_equal(lincoll_gf_matrix_systematic(f, P, P - 1, LINCOLL_GF_RS_CAUCHY, G),
                     LINCOLL_OK);
    for (int r = 0; r < P; r++)
        assert_int_equal(lincoll_encode_rs_init(h.comm[r], f, P - 1, LINCOLL_GF_RS_CAUCHY, NULL, B,
                                                x[r], y[r], NULL, &plans[r]),
                         LINCOLL_OK);
    assert_int_equal(run_free(&h, plans), LINCOLL_OK);
    for (int i = 0; i < B; i++) {
        unsigned char w = 0;
        for (int j = 0; j < P - 1; j++)
            w ^= (unsigned char)lincoll_gf_mul(f, G[(P - 1) * (P - 1) + j], x[j][i]);
        assert_int_equal(y[P - 1][i], w);
    }
    lincoll_gf_field_destroy(f);
    /* matmul, 1D ring on P x 1, integer entries (exact) */
    const int64_t m = 4 * P, k = 6, n = 5;
    lincoll_matdesc_t da, db, dc;
    assert_int_equal(lincoll_matdesc_block(&da, m, k, P, 1, 1, LINCOLL_ROW_MAJOR), LINCOLL_OK);
    assert_int_equal(lincoll_matdesc_block(&db, k, n, P, 1, 1, LINCOLL_ROW_MAJOR), LINCOLL_OK);
    assert_int_equal(lincoll_matdesc_block(&dc, m, n, P, 1, 1, LINCOLL_ROW_MAJOR), LINCOLL_OK);
    static double la[KMAX][64], lb[KMAX][64], lc[KMAX][64];
    lincoll_matmul_opts_t mo;
    memset(&mo, 0, sizeof(mo));
    mo.algo = LINCOLL_MATMUL_RING;
    for (int r = 0; r < P; r++) {
        for (int64_t i = 0; i < da.mb; i++)
            for (int64_t j = 0; j < k; j++)
                la[r][i * k + j] = (double)((r * da.mb + i + 2 * j) % 5);
        for (int64_t i = 0; i < db.mb && r * db.mb + i < k; i++)
            for (int64_t j = 0; j < n; j++)
                lb[r][i * n + j] = (double)((3 * (r * db.mb + i) + j) % 7) - 3;
        assert_int_equal(lincoll_matmul_init(h.comm[r], LINCOLL_DOUBLE, 1.0, la[r], &da, lb[r], &db,
                                             0.0, lc[r], &dc, &mo, &plans[r]),
                         LINCOLL_OK);
    }
    assert_int_equal(run_free(&h, plans), LINCOLL_OK);
    for (int r = 0; r < P; r++)
        for (int64_t i = 0; i < dc.mb; i++)
            for (int64_t j = 0; j < n; j++) {
                double s = 0;
                for (int64_t t = 0; t < k; t++)
                    s += (double)((r * da.mb + i + 2 * t) % 5) * (double)((3 * t + j) % 7 - 3);
                assert_true(lc[r][i * n + j] == s);
            }
    lc_simh_destroy(&h);
}

/* Split every virtual rank's world by color/key (both halves of
 * lincoll_comm_split, the allgather done by hand). */
static void split(lc_simh_t *h, const int *color, const int *key, lincoll_comm_t **out)
{
    lc_split_entry_t all[KMAX];
    for (int r = 0; r < h->K; r++)
        all[r] = lc_comm_split_entry(h->comm[r], color[r], key[r]);
    for (int r = 0; r < h->K; r++)
        assert_int_equal(lc_comm_split_finish(h->comm[r], all, color[r], &out[r]), LINCOLL_OK);
}

static void test_overlapping(void **state)
{
    (void)state;
    const int P = 6;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    int cpar[KMAX], chalf[KMAX], key[KMAX], rkey[KMAX];
    for (int r = 0; r < P; r++) {
        cpar[r] = r % 2;
        chalf[r] = r < P / 2;
        key[r] = r;
        rkey[r] = -r;
    }
    lincoll_comm_t *par[KMAX], *half[KMAX];
    split(&h, cpar, key, par);
    split(&h, chalf, rkey, half);
    for (int r = 0; r < P; r++)
        assert_int_not_equal(par[r]->id, half[r]->id);
    for (int it = 0; it < 10; it++) {
        long x[KMAX], y[KMAX];
        for (int r = 0; r < P; r++)
            x[r] = r;
        /* point-to-point in the even parity group only */
        lincoll_comm_t *even[KMAX] = {0};
        for (int r = 0; r < P; r += 2)
            even[r] = par[r];
        exchange(&h, even, 0, 1, (unsigned)it % 3, it);
        allreduce_all(&h, par, x, y);
        for (int r = 0; r < P; r++) {
            long s = 0;
            for (int q = r % 2; q < P; q += 2)
                s += q;
            assert_true(y[r] == s);
        }
        allreduce_all(&h, half, x, y);
        for (int r = 0; r < P; r++) {
            long s = 0;
            for (int q = 0; q < P; q++)
                s += (q < P / 2) == (r < P / 2) ? q : 0;
            assert_true(y[r] == s);
        }
        if (it % 3 == 0) {
            allreduce_all(&h, h.comm, x, y);
            for (int r = 0; r < P; r++)
                assert_true(y[r] == (long)P * (P - 1) / 2);
        }
    }
    for (int r = 0; r < P; r++) {
        lincoll_comm_free(par[r]);
        lincoll_comm_free(half[r]);
    }
    lc_simh_destroy(&h);
}

static void test_wrap(void **state)
{
    (void)state;
    const int P = 3, NP = 5000;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    lincoll_plan_t **plans = calloc((size_t)(NP * P), sizeof(*plans));
    int *in = malloc(sizeof(int) * (size_t)(NP * P)), *out = malloc(sizeof(int) * (size_t)(NP * P));
    assert_non_null(plans);
    for (int i = 0; i < NP; i++)
        for (int r = 0; r < P; r++) {
            in[i * P + r] = r + i;
            out[i * P + r] = -1;
            assert_int_equal(lincoll_allreduce_init(h.comm[r], &in[i * P + r], &out[i * P + r], 1,
                                                    LINCOLL_INT32, LINCOLL_SUM, &plans[i * P + r]),
                             LINCOLL_OK);
        }
    for (int i = 0; i < NP; i++) {
        if (i % 97 == 0) exchange(&h, h.comm, 0, 1, 0, i);
        assert_int_equal(lc_simh_run(&h, &plans[i * P]), LINCOLL_OK);
        for (int r = 0; r < P; r++)
            assert_int_equal(out[i * P + r], P * (P - 1) / 2 + P * i);
    }
    assert_true(h.comm[0]->seq == (unsigned)NP);
    for (int i = 0; i < NP * P; i++)
        lincoll_plan_free(plans[i]);
    free(plans);
    free(in);
    free(out);
    lc_simh_destroy(&h);
}

/* A tagged send is not received by an untagged receive: the receive times out. */
static void test_tags_separate(void **state)
{
    (void)state;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, 2, 1), 0);
    h.ctx[0]->timeout = h.ctx[1]->timeout = 0.2;
    lincoll_plan_t *plans[2] = {0};
    long s = 1, r = -1;
    assert_int_equal(lincoll_sendrecv_tagged_init(h.comm[0], &s, sizeof(s), 1, NULL, 0, -1, 5,
                                                  LINCOLL_SENDRECV_CONCURRENT, &plans[0]),
                     LINCOLL_OK);
    assert_int_equal(lincoll_sendrecv_tagged_init(h.comm[1], NULL, 0, -1, &r, sizeof(r), 0, 6,
                                                  LINCOLL_SENDRECV_CONCURRENT, &plans[1]),
                     LINCOLL_OK);
    assert_int_equal(run_free(&h, plans), LINCOLL_ERR_TIMEOUT);
    assert_true(r == -1);
    assert_int_equal(lincoll_sendrecv_tagged_init(h.comm[0], &s, sizeof(s), 1, NULL, 0, -1,
                                                  LINCOLL_SENDRECV_TAG_MAX + 1,
                                                  LINCOLL_SENDRECV_CONCURRENT, &plans[0]),
                     LINCOLL_ERR_INVALID);
    lc_simh_destroy(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_issue_program), cmocka_unit_test(test_families),
        cmocka_unit_test(test_overlapping),   cmocka_unit_test(test_wrap),
        cmocka_unit_test(test_tags_separate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
