/*
 * test/exec/test_groups_sim.c: groups and operation tags on the sim
 * transport (virtual ranks driven from one thread; over UCX:
 * test/integration/groups_ucx.c).
 *
 *  - the tagged wire bits: the marker and the point-to-point bit set, no
 *    source bit touched, every tag bit kept (distinct tags never share bits);
 *  - overlapping local groups drawn by a seeded RNG, plus two split
 *    communicators (counted ids) that share tags, and a local group of a
 *    split communicator; a tagged allreduce, bcast and RS encode on each,
 *    inited and started in one random order over every (rank, operation)
 *    pair, polled together; every result against its closed form; three
 *    rounds, the tags reused after the free;
 *  - a tag held by a live plan (on the communicator, on a sibling local
 *    group) is LINCOLL_ERR_BUSY; a local group's members that passed other
 *    lists time out, never exchange data.
 * (An agreed group exchanges during the call, which one thread cannot drive
 * for several ranks: the UCX test makes them.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/group_ops.h"
#include "common/sim_harness.h"
#include "core/context/context.h"

#define P  6
#define NG 8

static void test_wire_bits(void **state)
{
    (void)state;
    const uint64_t src = LC_TAG_MASK(LC_TAG_OPTAG_SRC_BITS) << LC_TAG_SRC_SHIFT;
    const uint64_t mark = LC_TAG_P2P | LC_TAG_OPTAG_MARK;
    uint64_t prev = lc_tag_optag_bits(0);
    assert_true((prev & mark) == mark);
    for (uint64_t t = 1; t <= LINCOLL_TAG_MAX; t = t * 3 + 1) {
        uint64_t b = lc_tag_optag_bits(t);
        assert_true((b & mark) == mark);
        assert_true((b & src) == 0);
        assert_true((b & LC_TAG_MASK(LC_TAG_ROUND_BITS)) == 0);
        assert_true((b >> LC_TAG_COMM_SHIFT) == 0);
        /* every tag bit is kept: the tag comes back from the bits */
        uint64_t back = LC_TAG_FIELD(b, SEQ) | ((b >> (LC_TAG_SRC_SHIFT + LC_TAG_OPTAG_SRC_BITS)) &
                                                LC_TAG_MASK(LC_TAG_OPTAG_BITS - LC_TAG_SEQ_BITS))
                                                   << LC_TAG_SEQ_BITS;
        assert_true(back == t);
        assert_true(b != prev);
        prev = b;
    }
    /* a user point-to-point tag never looks like a tagged plan's */
    assert_true((lc_tag_make(5, 7, LC_TAG_MAX_SRC >> 1, 1) & LC_TAG_OPTAG_MARK) == 0);
}

/* Split every virtual rank's world (lincoll_comm_split's halves by hand). */
static void split(lc_simh_t *h, const int *color, lincoll_comm_t **out)
{
    lc_split_entry_t all[P];
    for (int r = 0; r < h->K; r++)
        all[r] = lc_comm_split_entry(h->comm[r], color[r], r);
    for (int r = 0; r < h->K; r++)
        assert_int_equal(lc_comm_split_finish(h->comm[r], all, color[r], &out[r]), LINCOLL_OK);
}

typedef struct {
    int n;                        /* communicators */
    int local[NG + 3];            /* local (its tags differ) or counted (shared tags) */
    lincoll_comm_t *c[NG + 3][P]; /* per virtual rank, NULL: not a member */
} comms_t;

static void run_round(comms_t *C, lincoll_field_t *f, uint64_t seed)
{
    enum { MAXOPS = (NG + 3) * GT_NOPS * P };
    gt_op_t *ops = calloc(MAXOPS, sizeof(gt_op_t));
    gt_op_t *live[MAXOPS];
    int rank_of[MAXOPS], order[MAXOPS], n = 0;
    for (int g = 0; g < C->n; g++)
        for (int r = 0; r < P; r++)
            for (int k = 0; C->c[g][r] != NULL && k < GT_NOPS; k++, n++) {
                ops[n].g = g;
                ops[n].kind = k;
                ops[n].local = C->local[g];
                rank_of[n] = r;
            }
    for (int i = 0; i < n; i++)
        order[i] = i;
    gt_shuffle(order, n, &seed);
    for (int i = 0; i < n; i++) {
        gt_op_t *o = &ops[order[i]];
        o->st = gt_op_init(o, C->c[o->g][rank_of[order[i]]], f);
        assert_int_equal(o->st, LINCOLL_OK);
    }
    gt_shuffle(order, n, &seed);
    for (int i = 0; i < n; i++) {
        gt_op_t *o = &ops[order[i]];
        assert_int_equal(lincoll_start(o->plan), LINCOLL_OK);
        o->st = LINCOLL_INPROGRESS;
        live[i] = o;
    }
    gt_poll(live, n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(ops[i].st, LINCOLL_OK);
        assert_int_equal(gt_op_wrong(&ops[i], C->c[ops[i].g][rank_of[i]], f), 0);
        gt_op_free(&ops[i]);
    }
    free(ops);
}

static void test_overlapping_random(void **state)
{
    (void)state;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, P, 1), 0);
    comms_t C;
    memset(&C, 0, sizeof(C));
    gt_group_t spec[NG];
    gt_draw(P, 28, spec, NG);
    for (int g = 0; g < NG; g++) {
        /* every virtual rank makes its local groups in its own order: the
         * call communicates with no one */
        C.local[g] = 1;
        for (int i = 0; i < spec[g].n; i++) {
            int r = spec[g].list[i];
            assert_int_equal(lincoll_comm_create_group(h.comm[r], spec[g].list, spec[g].n,
                                                       LINCOLL_GROUP_LOCAL, &C.c[g][r]),
                             LINCOLL_OK);
        }
    }
    /* two split communicators (counted ids) with the same tags on both, and
     * a local group of the second */
    int parity[P], halves[P];
    for (int r = 0; r < P; r++) {
        parity[r] = r % 2;
        halves[r] = r < P / 2 ? 0 : -1;
    }
    split(&h, parity, C.c[NG]);
    split(&h, halves, C.c[NG + 1]);
    C.local[NG] = C.local[NG + 1] = 0;
    const int sub[3] = {2, 0, 1};
    for (int r = 0; r < P / 2; r++)
        assert_int_equal(
            lincoll_comm_create_group(C.c[NG + 1][r], sub, 3, LINCOLL_GROUP_LOCAL, &C.c[NG + 2][r]),
            LINCOLL_OK);
    C.local[NG + 2] = 1;
    C.n = NG + 3;
    lincoll_field_t *f = NULL;
    assert_int_equal(lincoll_gf_field_create(256, &f), LINCOLL_OK);
    for (int round = 0; round < 3; round++)
        run_round(&C, f, 28 + (uint64_t)round * 17);
    lincoll_gf_field_destroy(f);
    for (int g = 0; g < C.n; g++)
        for (int r = 0; r < P; r++)
            assert_int_equal(lincoll_comm_free(C.c[g][r]), LINCOLL_OK);
    lc_simh_destroy(&h);
}

static void test_busy_and_mismatch(void **state)
{
    (void)state;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, 3, 1), 0);
    for (int r = 0; r < 3; r++)
        h.ctx[r]->timeout = 0.3;
    const int all[3] = {0, 1, 2}, rev[3] = {2, 1, 0};
    lincoll_comm_t *a[3], *b[3];
    lincoll_plan_t *p[3] = {0}, *q = NULL;
    int64_t x[3] = {1, 2, 3}, y[3] = {0};
    lincoll_coll_opts_t o = {.tag = 9};
    for (int r = 0; r < 3; r++) {
        assert_int_equal(lincoll_comm_create_group(h.comm[r], all, 3, LINCOLL_GROUP_LOCAL, &a[r]),
                         LINCOLL_OK);
        assert_int_equal(lincoll_comm_create_group(h.comm[r], rev, 3, LINCOLL_GROUP_LOCAL, &b[r]),
                         LINCOLL_OK);
    }
    assert_int_equal(
        lincoll_allreduce_init_opts(a[0], &x[0], &y[0], 1, LINCOLL_INT64, LINCOLL_SUM, &o, &p[0]),
        LINCOLL_OK);
    /* held: on the group, on its sibling, on the parent */
    assert_int_equal(lincoll_bcast_init_opts(a[0], &y[0], 1, LINCOLL_INT64, 0, &o, &q),
                     LINCOLL_ERR_BUSY);
    assert_int_equal(lincoll_bcast_init_opts(b[0], &y[0], 1, LINCOLL_INT64, 0, &o, &q),
                     LINCOLL_ERR_BUSY);
    assert_int_equal(lincoll_bcast_init_opts(h.comm[0], &y[0], 1, LINCOLL_INT64, 0, &o, &q),
                     LINCOLL_ERR_BUSY);
    assert_null(q);
    /* another tag on the parent is free; the other ranks' plans: tag 9 */
    o.tag = 10;
    assert_int_equal(lincoll_bcast_init_opts(h.comm[0], &y[0], 1, LINCOLL_INT64, 0, &o, &q),
                     LINCOLL_OK);
    lincoll_plan_free(q);
    o.tag = 9;
    for (int r = 1; r < 3; r++)
        assert_int_equal(lincoll_allreduce_init_opts(a[r], &x[r], &y[r], 1, LINCOLL_INT64,
                                                     LINCOLL_SUM, &o, &p[r]),
                         LINCOLL_OK);
    assert_int_equal(lc_simh_run(&h, p), LINCOLL_OK);
    for (int r = 0; r < 3; r++) {
        assert_true(y[r] == 6);
        lincoll_plan_free(p[r]);
        p[r] = NULL;
    }
    /* rank 0 uses the reversed list, ranks 1 and 2 the plain one: no data
     * crosses, the plans time out */
    for (int r = 0; r < 3; r++) {
        y[r] = -1;
        assert_int_equal(lincoll_bcast_init_opts(r == 0 ? b[r] : a[r], &y[r], 1, LINCOLL_INT64,
                                                 r == 0 ? 2 : 0, &o, &p[r]),
                         LINCOLL_OK);
    }
    y[0] = 77; /* rank 0 is the root of its view (rank 2 of b) */
    lincoll_status_t st = lc_simh_run(&h, p);
    assert_true(st == LINCOLL_ERR_TIMEOUT || st == LINCOLL_ERR_MISMATCH);
    assert_true(y[1] != 77 && y[2] != 77);
    for (int r = 0; r < 3; r++) {
        lincoll_plan_free(p[r]);
        lincoll_comm_free(a[r]);
        lincoll_comm_free(b[r]);
    }
    lc_simh_destroy(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wire_bits),
        cmocka_unit_test(test_overlapping_random),
        cmocka_unit_test(test_busy_and_mismatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
