/*
 * test/transport/ct_suite.c: the conformance test bodies, run unchanged on
 * every transport (see ct.h for how ranks map to processes).
 *
 * Covers: peer status and describe, receive posted before and after the
 * send, per-sender ordering of equal tags (expected and unexpected, mixed
 * eager/rendezvous sizes), tags differing in round/seq/comm and sources not
 * crossing, zero-length messages, 8 MiB messages both ways, truncation,
 * cancel by release of a posted receive, release of a receive mid-message
 * (nothing lands after it), triggered sends (recv_chain_nb:
 * fired on completion, not on a short message nor after release), put + signal into mem_alloc and
 * mem_reg memory, rkey_ptr, flush, traffic counters; ct_wait completes
 * requests alternately through test_release and test + release.  Needs 3 ranks.
 */
#include "ct.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

CT_TEST(t_peer_status)
{
    for (int r = 0; r < e->nranks; r++) {
        if (!CT_LOCAL(e, r)) {
            continue;
        }
        for (int p = 0; p < e->nranks; p++) {
            assert_int_equal(e->ops->peer_status(e->tl[r], p), LINCOLL_OK);
        }
        char d[256] = {0};
        e->ops->describe(e->tl[r], (r + 1) % e->nranks, d, sizeof(d));
        assert_true(strlen(d) > 0);
        assert_true(e->ops->event_fd(e->tl[r]) >= -1);
    }
}

CT_TEST(t_recv_before_send)
{
    char out[64], in[64];
    ct_op_t op[2];
    ct_fill(out, sizeof(out), 11);
    memset(in, 0, sizeof(in));
    ct_recv(e, 1, 0, in, sizeof(in), ct_tag(e, 0, 0), &op[0]);
    ct_progress(e, 3);
    if (CT_LOCAL(e, 1)) {
        assert_int_equal(e->ops->test(op[0].tl, op[0].req, NULL), LINCOLL_INPROGRESS);
    }
    ct_barrier(e); /* the receive is posted everywhere before the send */
    ct_send(e, 0, 1, out, sizeof(out), ct_tag(e, 0, 0), &op[1]);
    ct_wait(e, op, 2);
    if (CT_LOCAL(e, 1)) {
        assert_int_equal(op[0].st, LINCOLL_OK);
        assert_int_equal(op[0].len, sizeof(in));
        assert_true(ct_check(in, sizeof(in), 11));
    }
    if (CT_LOCAL(e, 0)) {
        assert_int_equal(op[1].st, LINCOLL_OK);
    }
}

CT_TEST(t_send_before_recv)
{
    char out[200], in[256];
    ct_op_t op[2];
    ct_fill(out, sizeof(out), 12);
    memset(in, 0, sizeof(in));
    ct_send(e, 0, 1, out, sizeof(out), ct_tag(e, 0, 3), &op[0]);
    ct_wait(e, &op[0], 1); /* small: completes without the receiver */
    ct_barrier(e);
    ct_progress(e, 10);
    ct_recv(e, 1, 0, in, sizeof(in), ct_tag(e, 0, 3), &op[1]);
    ct_wait(e, &op[1], 1);
    if (CT_LOCAL(e, 1)) {
        assert_int_equal(op[1].st, LINCOLL_OK);
        assert_int_equal(op[1].len, sizeof(out));
        assert_true(ct_check(in, sizeof(out), 12));
    }
}

#define CT_NORD 400

static size_t ct_ord_len(int i)
{
    if (i % 50 == 7) {
        return 128 * 1024 + (size_t)i; /* rendezvous-sized */
    }
    return (size_t)(i * 37) % 2000 + 8;
}

/* CT_NORD messages with one tag from 0 to 1: receive i gets message i. */
static void ct_ordering(ct_env_t *e, int recv_first)
{
    unsigned char **sb = calloc(CT_NORD, sizeof(*sb));
    unsigned char **rb = calloc(CT_NORD, sizeof(*rb));
    ct_op_t *so = calloc(CT_NORD, sizeof(*so));
    ct_op_t *ro = calloc(CT_NORD, sizeof(*ro));
    assert_true(sb && rb && so && ro);
    uint64_t tag = ct_tag(e, 0, 5);
    for (int i = 0; i < CT_NORD; i++) {
        size_t l = ct_ord_len(i);
        sb[i] = malloc(l);
        rb[i] = calloc(1, l);
        assert_true(sb[i] && rb[i]);
        ct_fill(sb[i], l, 1000u + (unsigned)i);
    }
    if (recv_first) {
        for (int i = 0; i < CT_NORD; i++) {
            ct_recv(e, 1, 0, rb[i], ct_ord_len(i), tag, &ro[i]);
        }
        ct_barrier(e);
        for (int i = 0; i < CT_NORD; i++) {
            ct_send(e, 0, 1, sb[i], ct_ord_len(i), tag, &so[i]);
        }
    } else {
        for (int i = 0; i < CT_NORD; i++) {
            ct_send(e, 0, 1, sb[i], ct_ord_len(i), tag, &so[i]);
        }
        ct_barrier(e);
        ct_progress(e, 100);
        for (int i = 0; i < CT_NORD; i++) {
            ct_recv(e, 1, 0, rb[i], ct_ord_len(i), tag, &ro[i]);
        }
    }
    ct_wait(e, so, CT_NORD);
    ct_wait(e, ro, CT_NORD);
    for (int i = 0; i < CT_NORD; i++) {
        if (CT_LOCAL(e, 0)) {
            assert_int_equal(so[i].st, LINCOLL_OK);
        }
        if (CT_LOCAL(e, 1)) {
            if (ro[i].st != LINCOLL_OK || ro[i].len != ct_ord_len(i)) {
                fail_msg("receive %d: status %d len %zu (expected %zu)", i, ro[i].st, ro[i].len,
                         ct_ord_len(i));
            }
            if (!ct_check(rb[i], ct_ord_len(i), 1000u + (unsigned)i)) {
                fail_msg("receive %d holds another message's data", i);
            }
        }
    }
    for (int i = 0; i < CT_NORD; i++) {
        free(sb[i]);
        free(rb[i]);
    }
    free(sb);
    free(rb);
    free(so);
    free(ro);
}

CT_TEST(t_ordering_expected)
{
    ct_ordering(e, 1);
}

CT_TEST(t_ordering_unexpected)
{
    ct_ordering(e, 0);
}

/* Tags that differ only in round, in op seq or in comm id never match. */
CT_TEST(t_tags_do_not_cross)
{
    uint64_t tags[4] = {
        ct_tag(e, 0, 1),
        ct_tag(e, 0, 2),
        lc_tag_make(1, e->seq + 1000, 0, 1),
        lc_tag_make(3, e->seq, 0, 1),
    };
    char out[4][32], in[4][32], never[32];
    ct_op_t so[4], ro[4], nv;
    for (int i = 0; i < 4; i++) {
        ct_fill(out[i], 32, 20u + (unsigned)i);
    }
    memset(in, 0, sizeof(in));
    memset(never, 0x77, sizeof(never));
    /* a receive whose tag is never sent stays pending */
    ct_recv(e, 1, 0, never, sizeof(never), ct_tag(e, 0, 9), &nv);
    /* receives of tags 0,1 posted before, in reverse order; 2,3 after */
    ct_recv(e, 1, 0, in[1], 32, tags[1], &ro[1]);
    ct_recv(e, 1, 0, in[0], 32, tags[0], &ro[0]);
    ct_barrier(e);
    for (int i = 0; i < 4; i++) {
        ct_send(e, 0, 1, out[i], 32, tags[i], &so[i]);
    }
    ct_wait(e, so, 4);
    ct_barrier(e);
    ct_recv(e, 1, 0, in[3], 32, tags[3], &ro[3]);
    ct_recv(e, 1, 0, in[2], 32, tags[2], &ro[2]);
    ct_wait(e, ro, 4);
    if (CT_LOCAL(e, 1)) {
        for (int i = 0; i < 4; i++) {
            assert_int_equal(ro[i].st, LINCOLL_OK);
            assert_int_equal(ro[i].len, 32);
            if (!ct_check(in[i], 32, 20u + (unsigned)i)) {
                fail_msg("tag %d received another tag's message", i);
            }
        }
        ct_progress(e, 50);
        assert_int_equal(e->ops->test(nv.tl, nv.req, NULL), LINCOLL_INPROGRESS);
        e->ops->release(nv.tl, nv.req);
        for (size_t i = 0; i < sizeof(never); i++) {
            assert_int_equal((unsigned char)never[i], 0x77);
        }
    }
}

/* Ranks 0 and 2 send to rank 1 with tags that differ only in the source
 * field (the layout of transport.h: on ucx the tag alone decides the match). */
CT_TEST(t_sources_do_not_cross)
{
    assert_true(e->nranks >= 3);
    char o0[48], o2[48], i0[48], i2[48];
    ct_op_t op[4];
    ct_fill(o0, sizeof(o0), 30);
    ct_fill(o2, sizeof(o2), 32);
    memset(i0, 0, sizeof(i0));
    memset(i2, 0, sizeof(i2));
    ct_recv(e, 1, 2, i2, sizeof(i2), ct_tag(e, 2, 4), &op[0]);
    ct_barrier(e);
    ct_send(e, 0, 1, o0, sizeof(o0), ct_tag(e, 0, 4), &op[1]);
    ct_send(e, 2, 1, o2, sizeof(o2), ct_tag(e, 2, 4), &op[2]);
    ct_wait(e, &op[1], 2);
    ct_barrier(e);
    ct_recv(e, 1, 0, i0, sizeof(i0), ct_tag(e, 0, 4), &op[3]);
    ct_wait(e, op, 4);
    if (CT_LOCAL(e, 1)) {
        assert_int_equal(op[0].st, LINCOLL_OK);
        assert_int_equal(op[3].st, LINCOLL_OK);
        assert_true(ct_check(i2, sizeof(i2), 32));
        assert_true(ct_check(i0, sizeof(i0), 30));
    }
}

CT_TEST(t_zero_length)
{
    char out[8], in[16];
    ct_op_t op[4];
    ct_fill(out, sizeof(out), 40);
    memset(in, 0xaa, sizeof(in));
    uint64_t tag = ct_tag(e, 0, 0);
    ct_recv(e, 1, 0, in, sizeof(in), tag, &op[0]);
    ct_send(e, 0, 1, out, 0, tag, &op[1]);
    ct_send(e, 0, 1, out, 5, tag, &op[2]);
    ct_wait(e, op, 3);
    if (CT_LOCAL(e, 1)) {
        assert_int_equal(op[0].st, LINCOLL_OK);
        assert_int_equal(op[0].len, 0);
        for (size_t i = 0; i < sizeof(in); i++) {
            assert_int_equal((unsigned char)in[i], 0xaa);
        }
    }
    ct_recv(e, 1, 0, in, sizeof(in), tag, &op[3]);
    ct_wait(e, &op[3], 1);
    if (CT_LOCAL(e, 1)) {
        assert_int_equal(op[3].st, LINCOLL_OK);
        assert_int_equal(op[3].len, 5);
        assert_true(ct_check(in, 5, 40));
        assert_int_equal((unsigned char)in[5], 0xaa);
    }
}

/* 8 MiB + 3 bytes each way at once. */
CT_TEST(t_large_messages)
{
    const size_t n = (8u << 20) + 3;
    unsigned char *s0 = malloc(n), *s1 = malloc(n), *r0 = calloc(1, n), *r1 = calloc(1, n);
    assert_true(s0 && s1 && r0 && r1);
    ct_fill(s0, n, 50);
    ct_fill(s1, n, 51);
    ct_op_t op[4];
    ct_recv(e, 1, 0, r1, n, ct_tag(e, 0, 1), &op[0]);
    ct_recv(e, 0, 1, r0, n, ct_tag(e, 1, 1), &op[1]);
    ct_send(e, 0, 1, s0, n, ct_tag(e, 0, 1), &op[2]);
    ct_send(e, 1, 0, s1, n, ct_tag(e, 1, 1), &op[3]);
    ct_wait(e, op, 4);
    for (int i = 0; i < 4; i++) {
        if (op[i].tl) {
            assert_int_equal(op[i].st, LINCOLL_OK);
        }
    }
    if (CT_LOCAL(e, 1)) {
        assert_int_equal(op[0].len, n);
        assert_true(ct_check(r1, n, 50));
    }
    if (CT_LOCAL(e, 0)) {
        assert_int_equal(op[1].len, n);
        assert_true(ct_check(r0, n, 51));
    }
    free(s0);
    free(s1);
    free(r0);
    free(r1);
}

/* A message longer than the receive buffer: LINCOLL_ERR_TRUNCATED, from
 * recv_nb itself (then without a request) or from test().  Both orders:
 * receive posted first, and message already there (unexpected). */
CT_TEST(t_truncation)
{
    char out[100], in[40];
    ct_op_t op[6];
    ct_fill(out, sizeof(out), 60);
    uint64_t tag = ct_tag(e, 0, 2);
    /* posted first */
    ct_recv(e, 1, 0, in, sizeof(in), tag, &op[0]);
    ct_barrier(e);
    ct_send(e, 0, 1, out, 100, tag, &op[1]);
    ct_wait(e, op, 2);
    if (CT_LOCAL(e, 1)) {
        assert_int_equal(op[0].st, LINCOLL_ERR_TRUNCATED);
    }
    if (CT_LOCAL(e, 0)) {
        assert_int_equal(op[1].st, LINCOLL_OK);
    }
    /* already arrived */
    ct_send(e, 0, 1, out, 100, tag, &op[2]);
    ct_wait(e, &op[2], 1);
    ct_barrier(e);
    ct_progress(e, 100);
    ct_recv(e, 1, 0, in, sizeof(in), tag, &op[3]);
    ct_wait(e, &op[3], 1);
    if (CT_LOCAL(e, 1)) {
        assert_int_equal(op[3].st, LINCOLL_ERR_TRUNCATED);
    }
    /* the pair stays usable */
    memset(in, 0, sizeof(in));
    ct_recv(e, 1, 0, in, sizeof(in), tag, &op[4]);
    ct_send(e, 0, 1, out, 30, tag, &op[5]);
    ct_wait(e, &op[4], 2);
    if (CT_LOCAL(e, 1)) {
        assert_int_equal(op[4].st, LINCOLL_OK);
        assert_int_equal(op[4].len, 30);
        assert_true(ct_check(in, 30, 60));
    }
}

/* Releasing a posted receive cancels it: it never takes a later message. */
CT_TEST(t_cancel_by_release)
{
    char stale[32], in[32], out[32];
    ct_op_t op[3];
    uint64_t tag = ct_tag(e, 0, 6);
    memset(stale, 0x5a, sizeof(stale));
    memset(in, 0, sizeof(in));
    ct_fill(out, sizeof(out), 70);
    ct_recv(e, 1, 0, stale, sizeof(stale), tag, &op[0]);
    if (CT_LOCAL(e, 1)) {
        assert_int_equal(e->ops->test(op[0].tl, op[0].req, NULL), LINCOLL_INPROGRESS);
        e->ops->release(op[0].tl, op[0].req);
    }
    ct_barrier(e);
    ct_send(e, 0, 1, out, sizeof(out), tag, &op[1]);
    ct_wait(e, &op[1], 1);
    ct_barrier(e);
    ct_progress(e, 20);
    ct_recv(e, 1, 0, in, sizeof(in), tag, &op[2]);
    ct_wait(e, &op[2], 1);
    if (CT_LOCAL(e, 1)) {
        assert_int_equal(op[2].st, LINCOLL_OK);
        assert_true(ct_check(in, sizeof(in), 70));
        for (size_t i = 0; i < sizeof(stale); i++) {
            assert_int_equal((unsigned char)stale[i], 0x5a);
        }
    }
}

/* Releasing a receive whose message is arriving (a rendezvous the
 * transport can no longer cancel) returns only once nothing more lands in
 * its buffer: whatever the caller writes there after release() stays. */
CT_TEST(t_release_mid_message)
{
    const size_t n = (size_t)16 << 20;
    unsigned char *buf = malloc(n);
    assert_non_null(buf);
    ct_op_t op[2];
    uint64_t tag = ct_tag(e, 0, 7);
    memset(buf, CT_LOCAL(e, 0) ? 0xa5 : 0, n);
    ct_barrier(e);
    ct_send(e, 0, 1, buf, n, tag, &op[0]);
    ct_recv(e, 1, 0, buf, n, tag, &op[1]);
    if (CT_LOCAL(e, 1) && op[1].req != NULL) {
        /* progress until the first bytes are in (or it is all done) */
        lincoll_status_t st = LINCOLL_INPROGRESS;
        for (long i = 0; i < 100000000L && st == LINCOLL_INPROGRESS; i++) {
            ct_progress(e, 1);
            if (buf[0] == 0xa5) break;
            st = e->ops->test(op[1].tl, op[1].req, NULL);
        }
        e->ops->release(op[1].tl, op[1].req);
        op[1].req = NULL;
        op[1].done = 1;
        memset(buf, 0x11, n);
    }
    ct_wait(e, &op[0], 1);
    ct_barrier(e);
    ct_progress(e, 200);
    if (CT_LOCAL(e, 1)) {
        size_t bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += buf[i] != 0x11;
        assert_int_equal(bad, 0);
    }
    free(buf);
}

/* Triggered send: rank 1's receive from 0 carries a send to 2, which leaves
 * when the receive completes (rank 1 never calls send_nb).  A short message
 * completes the receive but fires nothing; a released receive fires nothing. */
static void ct_recv_chain(ct_env_t *e, int dst, int src, void *buf, size_t len, uint64_t tag,
                          lc_tl_chain_t *then, ct_op_t *op)
{
    memset(op, 0, sizeof(*op));
    if (!CT_LOCAL(e, dst)) {
        return;
    }
    assert_non_null(e->ops->recv_chain_nb);
    op->tl = e->tl[dst];
    assert_int_equal(e->ops->recv_chain_nb(op->tl, src, buf, len, tag, then, &op->req), LINCOLL_OK);
    assert_non_null(op->req);
}

/* A chain descriptor: send len bytes of buf to peer with tag. */
static lc_tl_chain_t ct_chain(int peer, const void *buf, size_t len, uint64_t tag)
{
    lc_tl_chain_t t;
    memset(&t, 0, sizeof(t));
    t.peer = peer;
    t.buf = buf;
    t.len = len;
    t.tag = tag;
    return t;
}

/* Wait for (and release) the send a chain posted at rank r. */
static void ct_wait_chain(ct_env_t *e, int r, lc_tl_chain_t *then)
{
    ct_op_t op;
    memset(&op, 0, sizeof(op));
    if (CT_LOCAL(e, r) && then->req != NULL) {
        op.tl = e->tl[r];
        op.req = then->req;
        then->req = NULL;
    }
    ct_wait(e, &op, 1);
    if (op.tl != NULL) {
        assert_int_equal(op.st, LINCOLL_OK);
    }
}

CT_TEST(t_recv_chain)
{
    char out[48], fwd[48], in[48], other[48];
    ct_op_t op[8];
    lc_tl_chain_t then;
    for (int size = 0; size < 2; size++) {
        size_t len = size ? 48 : 0;
        ct_fill(out, sizeof(out), 80 + (unsigned)size);
        memset(fwd, 0, sizeof(fwd));
        memset(in, 0, sizeof(in));
        then = ct_chain(2, fwd, len, ct_tag(e, 1, 11));
        /* posted before the message, and after it (unexpected) */
        ct_recv(e, 2, 1, in, sizeof(in), ct_tag(e, 1, 11), &op[0]);
        if (size == 0) {
            ct_recv_chain(e, 1, 0, fwd, len, ct_tag(e, 0, 10), &then, &op[1]);
            ct_barrier(e);
            ct_send(e, 0, 1, out, len, ct_tag(e, 0, 10), &op[2]);
        } else {
            ct_send(e, 0, 1, out, len, ct_tag(e, 0, 10), &op[2]);
            ct_wait(e, &op[2], 1);
            ct_barrier(e);
            ct_progress(e, 20);
            ct_recv_chain(e, 1, 0, fwd, len, ct_tag(e, 0, 10), &then, &op[1]);
        }
        ct_wait(e, op, 3);
        if (CT_LOCAL(e, 1)) {
            assert_int_equal(op[1].st, LINCOLL_OK);
            assert_int_equal(then.fired, 1);
            assert_int_equal(then.status, LINCOLL_OK);
        }
        if (CT_LOCAL(e, 2)) {
            assert_int_equal(op[0].st, LINCOLL_OK);
            assert_int_equal(op[0].len, len);
            assert_true(ct_check(in, len, 80 + (unsigned)size));
        }
        ct_wait_chain(e, 1, &then);
        ct_barrier(e);
    }
    /* a shorter message: received, nothing fired */
    then = ct_chain(2, fwd, sizeof(fwd), ct_tag(e, 1, 13));
    ct_recv_chain(e, 1, 0, fwd, sizeof(fwd), ct_tag(e, 0, 12), &then, &op[3]);
    ct_barrier(e);
    ct_send(e, 0, 1, out, 20, ct_tag(e, 0, 12), &op[4]);
    ct_wait(e, &op[3], 2);
    if (CT_LOCAL(e, 1)) {
        assert_int_equal(op[3].st, LINCOLL_OK);
        assert_int_equal(op[3].len, 20);
        assert_int_equal(then.fired, 0);
    }
    /* released before its message: canceled, nothing fires later */
    then = ct_chain(2, fwd, sizeof(fwd), ct_tag(e, 1, 15));
    ct_recv_chain(e, 1, 0, fwd, sizeof(fwd), ct_tag(e, 0, 14), &then, &op[5]);
    if (CT_LOCAL(e, 1)) {
        e->ops->release(op[5].tl, op[5].req);
    }
    ct_barrier(e);
    ct_send(e, 0, 1, out, sizeof(out), ct_tag(e, 0, 14), &op[6]);
    ct_recv(e, 1, 0, other, sizeof(other), ct_tag(e, 0, 14), &op[7]);
    ct_wait(e, &op[6], 2);
    ct_recv(e, 2, 1, in, sizeof(in), ct_tag(e, 1, 15), &op[0]);
    ct_barrier(e);
    ct_progress(e, 50);
    if (CT_LOCAL(e, 1)) {
        assert_int_equal(then.fired, 0);
    }
    if (CT_LOCAL(e, 2)) {
        assert_int_equal(e->ops->test(op[0].tl, op[0].req, NULL), LINCOLL_INPROGRESS);
        e->ops->release(op[0].tl, op[0].req);
    }
}

/* Put + signal: the data is there once the counter moves. */
static void ct_put_signal(ct_env_t *e, int allocated)
{
    const size_t n = 1u << 20;
    ct_win_t w;
    ct_win_create(e, &w, 1, 0, n + 64, allocated);
    unsigned char *src = malloc(n);
    assert_non_null(src);
    ct_fill(src, n, 80);
    uint64_t sig_off = n + 8;
    if (CT_LOCAL(e, 0)) {
        ct_op_t op = {.tl = e->tl[0]};
        lincoll_status_t st = e->ops->put_nb(e->tl[0], 1, src, n, w.rkey, w.raddr, w.rkey,
                                             w.raddr + sig_off, ct_tag(e, 0, 0), &op.req);
        assert_int_equal(st, LINCOLL_OK);
        op.done = op.req == NULL;
        ct_wait(e, &op, 1);
        assert_int_equal(op.st, LINCOLL_OK);
        /* a second, small put into the middle, signalled too */
        op = (ct_op_t){.tl = e->tl[0]};
        st = e->ops->put_nb(e->tl[0], 1, src + 100, 1000, w.rkey, w.raddr + n / 2, w.rkey,
                            w.raddr + sig_off, ct_tag(e, 0, 1), &op.req);
        assert_int_equal(st, LINCOLL_OK);
        op.done = op.req == NULL;
        ct_wait(e, &op, 1);
        assert_int_equal(op.st, LINCOLL_OK);
    }
    if (CT_LOCAL(e, 1)) {
        volatile uint64_t *sig = (volatile uint64_t *)(w.base + sig_off);
        ct_wait_u64(e, sig, 1);
        assert_true(*sig >= 1);
        /* after the first signal the first put is complete */
        assert_true(ct_check(w.base, n / 2, 80));
        ct_wait_u64(e, sig, 2);
        assert_int_equal(*sig, 2);
        assert_true(ct_check(w.base, n / 2, 80));
        assert_memory_equal(w.base + n / 2, src + 100, 1000);
        assert_memory_equal(w.base + n / 2 + 1000, src + n / 2 + 1000, n / 2 - 1000);
        for (size_t i = n; i < n + 64; i++) {
            if (i < sig_off || i >= sig_off + 8) {
                assert_int_equal(w.base[i], 0); /* nothing beyond the put */
            }
        }
    }
    ct_win_destroy(e, &w);
    free(src);
}

CT_TEST(t_put_signal_alloc)
{
    ct_put_signal(e, 1);
}

CT_TEST(t_put_signal_reg)
{
    ct_put_signal(e, 0);
}

/* Puts without signal, flush, then a tag message says "look now". */
CT_TEST(t_flush)
{
    const size_t chunk = 4096, nchunk = 16;
    ct_win_t w;
    ct_win_create(e, &w, 1, 0, chunk * nchunk, 1);
    unsigned char *src = malloc(chunk * nchunk);
    assert_non_null(src);
    ct_fill(src, chunk * nchunk, 90);
    char go = 'g', got = 0;
    ct_op_t op[3];
    if (CT_LOCAL(e, 0)) {
        for (size_t i = 0; i < nchunk; i++) {
            ct_op_t p = {.tl = e->tl[0]};
            assert_int_equal(e->ops->put_nb(e->tl[0], 1, src + i * chunk, chunk, w.rkey,
                                            w.raddr + i * chunk, NULL, 0, ct_tag(e, 0, 0), &p.req),
                             LINCOLL_OK);
            if (p.req) {
                e->ops->release(p.tl, p.req); /* orphaned: flush covers it */
            }
        }
        op[0] = (ct_op_t){.tl = e->tl[0]};
        assert_int_equal(e->ops->flush_nb(e->tl[0], 1, &op[0].req), LINCOLL_OK);
        op[0].done = op[0].req == NULL;
        op[1] = (ct_op_t){.tl = e->tl[0]};
        assert_int_equal(e->ops->flush_nb(e->tl[0], -1, &op[1].req), LINCOLL_OK);
        op[1].done = op[1].req == NULL;
        ct_wait(e, op, 2);
        assert_int_equal(op[0].st, LINCOLL_OK);
        assert_int_equal(op[1].st, LINCOLL_OK);
    }
    ct_send(e, 0, 1, &go, 1, ct_tag(e, 0, 1), &op[0]);
    ct_recv(e, 1, 0, &got, 1, ct_tag(e, 0, 1), &op[2]);
    ct_wait(e, op, 1);
    ct_wait(e, &op[2], 1);
    if (CT_LOCAL(e, 1)) {
        assert_int_equal(got, 'g');
        assert_true(ct_check(w.base, chunk * nchunk, 90));
    }
    ct_win_destroy(e, &w);
    free(src);
}

/* rkey_ptr: sim always maps; elsewhere, when it maps, stores land. */
CT_TEST(t_rkey_ptr)
{
    const size_t n = 8192;
    ct_win_t w;
    ct_win_create(e, &w, 1, 0, n, 1);
    char mapped = 0, got = -1;
    ct_op_t op[2];
    if (CT_LOCAL(e, 0)) {
        unsigned char *p = e->ops->rkey_ptr(e->tl[0], w.rkey, w.raddr);
        if (e->sim) {
            assert_non_null(p);
        }
        if (p) {
            ct_fill(p, n, 95);
            mapped = 1;
        } else {
            print_message("rank 0: rkey_ptr: window of rank 1 not mapped here (%s)\n",
                          e->ops->name);
        }
    }
    ct_send(e, 0, 1, &mapped, 1, ct_tag(e, 0, 0), &op[0]);
    ct_recv(e, 1, 0, &got, 1, ct_tag(e, 0, 0), &op[1]);
    ct_wait(e, op, 2);
    if (CT_LOCAL(e, 1)) {
        assert_true(got == 0 || got == 1);
        if (got) {
            assert_true(ct_check(w.base, n, 95));
        } else {
            for (size_t i = 0; i < n; i++) {
                assert_int_equal(w.base[i], 0);
            }
        }
    }
    ct_win_destroy(e, &w);
}

CT_TEST(t_counters)
{
    lc_tl_counters_t a = {0}, b = {0};
    char buf[3][100];
    ct_op_t op[6];
    if (CT_LOCAL(e, 0)) {
        e->ops->counters(e->tl[0], &a);
    }
    for (int i = 0; i < 3; i++) {
        ct_fill(buf[i], 100, 99);
        ct_recv(e, 1, 0, buf[i], 100, ct_tag(e, 0, 0), &op[3 + i]);
        ct_send(e, 0, 1, buf[i], 10u * (unsigned)(i + 1), ct_tag(e, 0, 0), &op[i]);
    }
    ct_wait(e, op, 6);
    if (CT_LOCAL(e, 0)) {
        e->ops->counters(e->tl[0], &b);
        assert_int_equal(b.msgs_sent - a.msgs_sent, 3);
        assert_int_equal(b.bytes_sent - a.bytes_sent, 60);
    }
}

const struct CMUnitTest ct_tests[] = {
    cmocka_unit_test_setup_teardown(t_peer_status, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_recv_before_send, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_send_before_recv, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_ordering_expected, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_ordering_unexpected, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_tags_do_not_cross, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_sources_do_not_cross, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_zero_length, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_large_messages, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_truncation, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_cancel_by_release, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_release_mid_message, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_recv_chain, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_put_signal_alloc, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_put_signal_reg, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_flush, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_rkey_ptr, ct_setup, ct_teardown),
    cmocka_unit_test_setup_teardown(t_counters, ct_setup, ct_teardown),
};
const size_t ct_ntests = sizeof(ct_tests) / sizeof(ct_tests[0]);
