/*
 * test/transport/test_tl_ucx_lanes.c: the ucx transport with two lanes
 * (LINCOLL_UCX_LANES, two UCX contexts each restricted to one device; ctest
 * runs it with LINCOLL_UCX_LANES=lo,lo and UCX_TLS=tcp,self) across real
 * processes (ct_env_multiproc: rank 0 and forked ranks 1..2).
 *
 * What the lanes promise (transports/transport.h, "lanes"):
 *  - lanes() is 2, describe() names both, peer_status() takes a lane;
 *  - a message sent on lane 1 is received by a receive on lane 1 and by
 *    one on ANY, never by a receive posted on lane 0 (each lane is its own
 *    matching domain: a lane-0 receive with the same tag stays pending);
 *  - ANY receives work posted before and after the send, on either lane,
 *    for eager and 8 MiB messages, and release() cancels one cleanly (a
 *    later message with its tag goes to the next receive);
 *  - equal tags: the k-th message on lane k % 2, received by exact lanes in
 *    posting order, each lands in its own buffer;
 *  - a triggered send (recv_chain_nb) leaves on the lane its peer names.
 */
#include "ct.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ct_env_t env;

CT_TEST(t_lanes_count)
{
    for (int r = 0; r < e->nranks; r++) {
        if (!CT_LOCAL(e, r)) continue;
        assert_non_null(e->ops->lanes);
        assert_int_equal(e->ops->lanes(e->tl[r]), 2);
        int q = (r + 1) % e->nranks;
        assert_int_equal(e->ops->peer_status(e->tl[r], LC_TL_PEER(q, 1)), LINCOLL_OK);
        assert_int_equal(e->ops->peer_status(e->tl[r], LC_TL_PEER_ANY(q)), LINCOLL_OK);
        char d[8192] = {0};
        e->ops->describe(e->tl[r], q, d, sizeof(d));
        assert_non_null(strstr(d, "lane 1 of 2"));
    }
}

/* A lane-1 message: a lane-0 receive of its tag stays pending, the lane-1
 * receive gets it. */
CT_TEST(t_lane_exact)
{
    char out[300], in0[300], in1[300];
    ct_op_t op[3];
    ct_fill(out, sizeof(out), 21);
    memset(in0, 0, sizeof(in0));
    memset(in1, 0, sizeof(in1));
    uint64_t tag = ct_tag(e, 0, 1);
    ct_recv(e, 1, 0, in0, sizeof(in0), tag, &op[0]);
    ct_recv(e, 1, LC_TL_PEER(0, 1), in1, sizeof(in1), tag, &op[1]);
    ct_barrier(e);
    ct_send(e, 0, LC_TL_PEER(1, 1), out, sizeof(out), tag, &op[2]);
    ct_wait(e, &op[1], 2);
    ct_progress(e, 50);
    if (CT_LOCAL(e, 1)) {
        assert_int_equal(op[1].st, LINCOLL_OK);
        assert_int_equal(op[1].len, sizeof(out));
        assert_true(ct_check(in1, sizeof(in1), 21));
        assert_int_equal(e->ops->test(op[0].tl, op[0].req, NULL), LINCOLL_INPROGRESS);
        e->ops->release(op[0].tl, op[0].req); /* cancels it */
        for (size_t i = 0; i < sizeof(in0); i++)
            assert_int_equal(in0[i], 0);
    }
}

/* ANY receives: posted first or after the message, message on lane 0 or 1,
 * eager and 8 MiB. */
static void lanes_any(ct_env_t *e, int lane, size_t len, int recv_first, unsigned seed)
{
    unsigned char *out = malloc(len), *in = calloc(1, len);
    assert_true(out != NULL && in != NULL);
    ct_fill(out, len, seed);
    ct_op_t op[2];
    uint64_t tag = ct_tag(e, 0, 2 + (unsigned)lane);
    int dst = lane == 0 ? 1 : LC_TL_PEER(1, lane);
    if (recv_first) {
        ct_recv(e, 1, LC_TL_PEER_ANY(0), in, len, tag, &op[0]);
        ct_barrier(e);
        ct_send(e, 0, dst, out, len, tag, &op[1]);
    } else {
        ct_send(e, 0, dst, out, len, tag, &op[1]);
        ct_barrier(e);
        ct_progress(e, 20);
        ct_recv(e, 1, LC_TL_PEER_ANY(0), in, len, tag, &op[0]);
    }
    ct_wait(e, op, 2);
    if (CT_LOCAL(e, 1)) {
        assert_int_equal(op[0].st, LINCOLL_OK);
        assert_int_equal(op[0].len, len);
        assert_true(ct_check(in, len, seed));
    }
    if (CT_LOCAL(e, 0)) assert_int_equal(op[1].st, LINCOLL_OK);
    free(out);
    free(in);
}

CT_TEST(t_lane_any)
{
    unsigned seed = 100;
    for (int lane = 0; lane < 2; lane++) {
        for (int first = 0; first < 2; first++) {
            lanes_any(e, lane, 1000, first, seed++);
            lanes_any(e, lane, 8u << 20, first, seed++);
            ct_barrier(e);
            e->seq++; /* fresh tags for the next combination */
        }
    }
}

/* release() of an ANY receive before anything arrived cancels it; the
 * message sent afterwards with that tag goes to the next receive. */
CT_TEST(t_lane_any_cancel)
{
    char out[64], in[64], gone[64];
    ct_op_t op[3];
    ct_fill(out, sizeof(out), 31);
    memset(in, 0, sizeof(in));
    memset(gone, 0, sizeof(gone));
    uint64_t tag = ct_tag(e, 0, 7);
    ct_recv(e, 1, LC_TL_PEER_ANY(0), gone, sizeof(gone), tag, &op[0]);
    if (CT_LOCAL(e, 1)) {
        ct_progress(e, 5);
        assert_int_equal(e->ops->test(op[0].tl, op[0].req, NULL), LINCOLL_INPROGRESS);
        e->ops->release(op[0].tl, op[0].req);
    }
    ct_recv(e, 1, LC_TL_PEER_ANY(0), in, sizeof(in), tag, &op[1]);
    ct_barrier(e);
    ct_send(e, 0, LC_TL_PEER(1, 1), out, sizeof(out), tag, &op[2]);
    ct_wait(e, &op[1], 2);
    if (CT_LOCAL(e, 1)) {
        assert_int_equal(op[1].st, LINCOLL_OK);
        assert_true(ct_check(in, sizeof(in), 31));
        for (size_t i = 0; i < sizeof(gone); i++)
            assert_int_equal(gone[i], 0);
    }
}

/* Equal tags between one pair: message k on lane k % 2, receive k posted on
 * lane k % 2 (what core/exec/lower.c does for several messages to one peer
 * in a round); each lands in its own buffer, posted before or after. */
#define LANES_NORD 64
static void lanes_ordering(ct_env_t *e, int recv_first)
{
    unsigned char *sb[LANES_NORD], *rb[LANES_NORD];
    ct_op_t so[LANES_NORD], ro[LANES_NORD];
    uint64_t tag = ct_tag(e, 0, 9);
    for (int i = 0; i < LANES_NORD; i++) {
        size_t l = i % 9 == 4 ? 256 * 1024 : 100 + (size_t)i;
        sb[i] = malloc(l);
        rb[i] = calloc(1, l);
        assert_true(sb[i] && rb[i]);
        ct_fill(sb[i], l, 500u + (unsigned)i);
    }
#define LEN(i) ((i) % 9 == 4 ? (size_t)256 * 1024 : (size_t)100 + (size_t)(i))
    for (int pass = 0; pass < 2; pass++) {
        int do_recv = recv_first ? pass == 0 : pass == 1;
        for (int i = 0; i < LANES_NORD; i++) {
            int lane = i % 2;
            if (do_recv)
                ct_recv(e, 1, lane ? LC_TL_PEER(0, i) : 0, rb[i], LEN(i), tag, &ro[i]);
            else
                ct_send(e, 0, lane ? LC_TL_PEER(1, i) : 1, sb[i], LEN(i), tag, &so[i]);
        }
        if (pass == 0) {
            ct_barrier(e);
            ct_progress(e, 20);
        }
    }
    ct_wait(e, so, LANES_NORD);
    ct_wait(e, ro, LANES_NORD);
    for (int i = 0; i < LANES_NORD; i++) {
        if (CT_LOCAL(e, 1)) {
            if (ro[i].st != LINCOLL_OK || ro[i].len != LEN(i))
                fail_msg("receive %d: status %d len %zu (expected %zu)", i, ro[i].st, ro[i].len,
                         LEN(i));
            if (!ct_check(rb[i], LEN(i), 500u + (unsigned)i))
                fail_msg("receive %d holds another message's data", i);
        }
        free(sb[i]);
        free(rb[i]);
    }
#undef LEN
}

CT_TEST(t_lane_ordering_expected)
{
    lanes_ordering(e, 1);
}

CT_TEST(t_lane_ordering_unexpected)
{
    lanes_ordering(e, 0);
}

/* 0 -> 1 (ANY), and 1's completion sends on to 2 on lane 1 (ANY at 2). */
CT_TEST(t_lane_chain)
{
    char a[128], b[128], c[128];
    ct_op_t op[3];
    ct_fill(a, sizeof(a), 41);
    memset(b, 0, sizeof(b));
    memset(c, 0, sizeof(c));
    uint64_t t1 = ct_tag(e, 0, 11), t2 = ct_tag(e, 1, 12);
    lc_tl_chain_t then = {.peer = LC_TL_PEER(2, 1), .buf = b, .len = sizeof(b), .tag = t2};
    memset(op, 0, sizeof(op));
    if (CT_LOCAL(e, 1)) {
        op[0].tl = e->tl[1];
        assert_int_equal(
            e->ops->recv_chain_nb(e->tl[1], LC_TL_PEER_ANY(0), b, sizeof(b), t1, &then, &op[0].req),
            LINCOLL_OK);
        assert_non_null(op[0].req);
    }
    ct_recv(e, 2, LC_TL_PEER_ANY(1), c, sizeof(c), t2, &op[1]);
    ct_barrier(e);
    ct_send(e, 0, LC_TL_PEER(1, 1), a, sizeof(a), t1, &op[2]);
    ct_wait(e, op, 3);
    if (CT_LOCAL(e, 1)) {
        assert_int_equal(op[0].st, LINCOLL_OK);
        assert_int_equal(then.fired, 1);
        assert_int_equal(then.status, LINCOLL_OK);
        if (then.req != NULL) {
            ct_op_t s = {.tl = e->tl[1], .req = then.req};
            ct_wait(e, &s, 1);
            assert_int_equal(s.st, LINCOLL_OK);
        }
    } else {
        ct_progress(e, 1);
    }
    if (CT_LOCAL(e, 2)) {
        assert_int_equal(op[1].st, LINCOLL_OK);
        assert_true(ct_check(c, sizeof(c), 41));
    }
}

static const struct CMUnitTest lane_tests[] = {
    cmocka_unit_test_setup_teardown(t_lanes_count, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_lane_exact, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_lane_any, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_lane_any_cancel, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_lane_ordering_expected, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_lane_ordering_unexpected, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_lane_chain, ct_setup, ct_teardown),
};

static int group_setup(void **state)
{
    *state = &env;
    return 0;
}

int main(void)
{
    if (ct_env_multiproc(&env, &lc_tl_ucx_ops, CT_NRANKS) != 0) {
        fprintf(stderr, "ct: rank %d: cannot set up the ucx processes with lanes\n", env.me);
        return ct_env_multiproc_fini(&env, 1) ? 1 : 1;
    }
    char name[64];
    snprintf(name, sizeof(name), "ucx lanes: rank %d", env.me);
    /* then the whole conformance suite on plain peers (lane 0) */
    int failed = _cmocka_run_group_tests(
        name, lane_tests, sizeof(lane_tests) / sizeof(lane_tests[0]), group_setup, NULL);
    snprintf(name, sizeof(name), "transport conformance with 2 lanes: ucx rank %d", env.me);
    failed += _cmocka_run_group_tests(name, ct_tests, ct_ntests, group_setup, NULL);
    return ct_env_multiproc_fini(&env, failed);
}
