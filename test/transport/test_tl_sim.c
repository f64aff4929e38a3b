/*
 * test/transport/test_tl_sim.c: the conformance suite on the sim transport
 * (3 virtual ranks in this process), then what only sim has: measured round
 * statistics, fault injection, killed ranks, stale keys, cleanup of live
 * requests at fini.  Runs under valgrind too (transport_sim_valgrind).
 */
#include "ct.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int group_setup(void **state)
{
    static ct_env_t env;
    if (ct_env_sim(&env, CT_NRANKS) != 0) {
        return -1;
    }
    *state = &env;
    return 0;
}

static int group_teardown(void **state)
{
    ct_env_sim_fini(*state);
    return 0;
}

/* ---- sim-only tests, each on its own world ------------------------------ */

typedef struct sim_w {
    lc_sim_world_t *w;
    lc_tl_t *tl[8];
    int n;
} sim_w_t;

static void sw_open(sim_w_t *s, int n)
{
    memset(s, 0, sizeof(*s));
    s->n = n;
    assert_int_equal(lc_sim_world_create(n, &s->w), LINCOLL_OK);
    for (int r = 0; r < n; r++) {
        lc_tl_sim_params_t sp = {.world = s->w};
        lc_tl_params_t p = {.rank = r, .size = n, .ext = &sp};
        assert_int_equal(lc_tl_sim_ops.init(&p, &s->tl[r]), LINCOLL_OK);
    }
}

static void sw_close(sim_w_t *s)
{
    for (int r = 0; r < s->n; r++) {
        lc_tl_sim_ops.fini(s->tl[r]);
    }
    lc_sim_world_destroy(s->w);
}

static lincoll_status_t sw_send(sim_w_t *s, int src, int dst, const void *b, size_t l,
                                unsigned round)
{
    lc_tl_req_t *r = NULL;
    lincoll_status_t st =
        lc_tl_sim_ops.send_nb(s->tl[src], dst, b, l, lc_tag_make(1, 1, (unsigned)src, round), &r);
    if (r) {
        lincoll_status_t t = lc_tl_sim_ops.test(s->tl[src], r, NULL);
        lc_tl_sim_ops.release(s->tl[src], r);
        assert_int_equal(t, LINCOLL_OK);
    }
    return st;
}

static lc_tl_req_t *sw_recv(sim_w_t *s, int dst, int src, void *b, size_t l, unsigned round)
{
    lc_tl_req_t *r = NULL;
    assert_int_equal(
        lc_tl_sim_ops.recv_nb(s->tl[dst], src, b, l, lc_tag_make(1, 1, (unsigned)src, round), &r),
        LINCOLL_OK);
    assert_non_null(r);
    return r;
}

static lincoll_status_t sw_test(sim_w_t *s, int rank, lc_tl_req_t *r, size_t *len)
{
    return lc_tl_sim_ops.test(s->tl[rank], r, len);
}

static void test_round_stats(void **state)
{
    (void)state;
    sim_w_t s;
    sw_open(&s, 4);
    char buf[256] = {0}, in[256];
    assert_int_equal(lc_sim_world_rounds(s.w), 0);
    /* round 0: 10 + 20 + 30 bytes; round 2: 100 bytes; round 1: a 50-byte put */
    assert_int_equal(sw_send(&s, 0, 1, buf, 10, 0), LINCOLL_OK);
    assert_int_equal(sw_send(&s, 1, 2, buf, 20, 0), LINCOLL_OK);
    assert_int_equal(sw_send(&s, 2, 3, buf, 30, 0), LINCOLL_OK);
    assert_int_equal(sw_send(&s, 3, 0, buf, 100, 2), LINCOLL_OK);
    lc_tl_mem_t *mem;
    void *base, *key;
    size_t klen;
    lc_tl_rkey_t *rk;
    assert_int_equal(lc_tl_sim_ops.mem_alloc(s.tl[1], 64, &mem, &base), LINCOLL_OK);
    assert_int_equal(lc_tl_sim_ops.rkey_pack(s.tl[1], mem, &key, &klen), LINCOLL_OK);
    assert_int_equal(lc_tl_sim_ops.rkey_unpack(s.tl[0], 1, key, klen, &rk), LINCOLL_OK);
    free(key);
    lc_tl_req_t *pr = NULL;
    assert_int_equal(lc_tl_sim_ops.put_nb(s.tl[0], 1, buf, 50, rk, (uint64_t)(uintptr_t)base, NULL,
                                          0, lc_tag_make(1, 1, 0, 1), &pr),
                     LINCOLL_OK);
    assert_null(pr);

    assert_int_equal(lc_sim_world_rounds(s.w), 3);
    lc_sim_round_stat_t r0 = lc_sim_world_round(s.w, 0), r1 = lc_sim_world_round(s.w, 1),
                        r2 = lc_sim_world_round(s.w, 2), r9 = lc_sim_world_round(s.w, 9);
    assert_int_equal(r0.msgs, 3);
    assert_int_equal(r0.bytes, 60);
    assert_int_equal(r0.max_bytes, 30);
    assert_int_equal(r1.msgs, 1);
    assert_int_equal(r1.max_bytes, 50);
    assert_int_equal(r2.msgs, 1);
    assert_int_equal(r2.bytes, 100);
    assert_int_equal(r9.msgs, 0);
    uint64_t ms, bs, mr, br;
    lc_sim_world_rank_stats(s.w, 0, &ms, &bs, &mr, &br);
    assert_int_equal(ms, 2);
    assert_int_equal(bs, 60);
    assert_int_equal(mr, 1);
    assert_int_equal(br, 100);
    lc_sim_world_rank_stats(s.w, 1, &ms, &bs, &mr, &br);
    assert_int_equal(mr, 2); /* a message and a put */
    assert_int_equal(br, 60);
    lc_tl_counters_t c;
    lc_tl_sim_ops.counters(s.tl[0], &c);
    assert_int_equal(c.msgs_sent, 1);
    assert_int_equal(c.puts, 1);
    assert_int_equal(c.bytes_put, 50);
    lc_tl_sim_ops.counters(s.tl[1], &c);
    assert_int_equal(c.mem_registered, 64);

    /* the queued messages still match after the reset */
    lc_sim_world_reset_stats(s.w);
    assert_int_equal(lc_sim_world_rounds(s.w), 0);
    assert_int_equal(lc_sim_world_round(s.w, 0).msgs, 0);
    lc_tl_req_t *r = sw_recv(&s, 0, 3, in, sizeof(in), 2);
    size_t len = 0;
    assert_int_equal(sw_test(&s, 0, r, &len), LINCOLL_OK);
    assert_int_equal(len, 100);
    lc_tl_sim_ops.release(s.tl[0], r);
    lc_tl_sim_ops.rkey_destroy(s.tl[0], rk);
    lc_tl_sim_ops.mem_dereg(s.tl[1], mem);
    lc_tl_sim_ops.counters(s.tl[1], &c);
    assert_int_equal(c.mem_registered, 0);
    sw_close(&s); /* messages never received are freed by the world */
}

typedef struct fault_plan {
    lc_sim_fault_t kind;
    int nth; /* apply to the nth message seen (0-based) */
    int seen;
    unsigned last_round;
    size_t last_len;
} fault_plan_t;

static lc_sim_fault_t fault_fn(void *arg, int src, int dst, unsigned round, size_t len)
{
    fault_plan_t *f = arg;
    (void)src;
    (void)dst;
    f->last_round = round;
    f->last_len = len;
    return f->seen++ == f->nth ? f->kind : LC_SIM_FAULT_NONE;
}

static void test_fault_drop_corrupt_dup(void **state)
{
    (void)state;
    sim_w_t s;
    sw_open(&s, 2);
    char out[3][16], in[16];
    for (int i = 0; i < 3; i++) {
        memset(out[i], 'a' + i, 16);
    }
    size_t len;
    /* drop the first of three */
    fault_plan_t f = {.kind = LC_SIM_FAULT_DROP, .nth = 0};
    lc_sim_world_set_fault(s.w, fault_fn, &f, 0);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(sw_send(&s, 0, 1, out[i], 16, 7), LINCOLL_OK);
    }
    assert_int_equal(f.seen, 3);
    assert_int_equal(f.last_round, 7);
    assert_int_equal(f.last_len, 16);
    lc_tl_req_t *r = sw_recv(&s, 1, 0, in, 16, 7);
    assert_int_equal(sw_test(&s, 1, r, &len), LINCOLL_OK);
    assert_memory_equal(in, out[1], 16);
    lc_tl_sim_ops.release(s.tl[1], r);
    r = sw_recv(&s, 1, 0, in, 16, 7);
    assert_int_equal(sw_test(&s, 1, r, &len), LINCOLL_OK);
    assert_memory_equal(in, out[2], 16);
    lc_tl_sim_ops.release(s.tl[1], r);
    r = sw_recv(&s, 1, 0, in, 16, 7);
    assert_int_equal(sw_test(&s, 1, r, &len), LINCOLL_INPROGRESS); /* nothing left */
    lc_tl_sim_ops.release(s.tl[1], r);

    /* corrupt: exactly one byte differs */
    f = (fault_plan_t){.kind = LC_SIM_FAULT_CORRUPT, .nth = 0};
    r = sw_recv(&s, 1, 0, in, 16, 8);
    assert_int_equal(sw_send(&s, 0, 1, out[0], 16, 8), LINCOLL_OK);
    assert_int_equal(sw_test(&s, 1, r, &len), LINCOLL_OK);
    lc_tl_sim_ops.release(s.tl[1], r);
    int diff = 0;
    for (int i = 0; i < 16; i++) {
        diff += in[i] != out[0][i];
    }
    assert_int_equal(diff, 1);
    assert_memory_equal(out[0], "aaaaaaaaaaaaaaaa", 16); /* the sender's buffer is intact */

    /* duplicate: two copies arrive */
    f = (fault_plan_t){.kind = LC_SIM_FAULT_DUPLICATE, .nth = 0};
    assert_int_equal(sw_send(&s, 0, 1, out[2], 16, 9), LINCOLL_OK);
    for (int k = 0; k < 2; k++) {
        memset(in, 0, 16);
        r = sw_recv(&s, 1, 0, in, 16, 9);
        assert_int_equal(sw_test(&s, 1, r, &len), LINCOLL_OK);
        assert_memory_equal(in, out[2], 16);
        lc_tl_sim_ops.release(s.tl[1], r);
    }
    r = sw_recv(&s, 1, 0, in, 16, 9);
    assert_int_equal(sw_test(&s, 1, r, &len), LINCOLL_INPROGRESS);
    lc_tl_sim_ops.release(s.tl[1], r);
    sw_close(&s);
}

static void test_fault_delay(void **state)
{
    (void)state;
    sim_w_t s;
    sw_open(&s, 2);
    char a[8] = "delayed", b[8] = "prompt!", in1[8], in2[8];
    size_t len;
    fault_plan_t f = {.kind = LC_SIM_FAULT_DELAY, .nth = 0};
    lc_sim_world_set_fault(s.w, fault_fn, &f, 3);
    lc_tl_req_t *r1 = sw_recv(&s, 1, 0, in1, 8, 1);
    lc_tl_req_t *r2 = sw_recv(&s, 1, 0, in2, 8, 1);
    assert_int_equal(sw_send(&s, 0, 1, a, 8, 1), LINCOLL_OK); /* delayed */
    assert_int_equal(sw_send(&s, 0, 1, b, 8, 1), LINCOLL_OK); /* overtakes it */
    assert_int_equal(sw_test(&s, 1, r1, &len), LINCOLL_OK);
    assert_memory_equal(in1, "prompt!", 8);
    assert_int_equal(sw_test(&s, 1, r2, &len), LINCOLL_INPROGRESS);
    /* the sender's progress does not deliver; the destination's third does */
    for (int i = 0; i < 10; i++) {
        assert_int_equal(lc_tl_sim_ops.progress(s.tl[0]), 0);
    }
    assert_int_equal(lc_tl_sim_ops.progress(s.tl[1]), 0);
    assert_int_equal(lc_tl_sim_ops.progress(s.tl[1]), 0);
    assert_int_equal(sw_test(&s, 1, r2, &len), LINCOLL_INPROGRESS);
    assert_int_equal(lc_tl_sim_ops.progress(s.tl[1]), 1);
    assert_int_equal(sw_test(&s, 1, r2, &len), LINCOLL_OK);
    assert_memory_equal(in2, "delayed", 8);
    lc_tl_sim_ops.release(s.tl[1], r1);
    lc_tl_sim_ops.release(s.tl[1], r2);

    /* a delayed put: request and flush pend until it lands; an orphaned
     * delayed put still lands and is freed */
    lc_tl_mem_t *mem;
    void *base, *key;
    size_t klen;
    lc_tl_rkey_t *rk;
    assert_int_equal(lc_tl_sim_ops.mem_alloc(s.tl[1], 64, &mem, &base), LINCOLL_OK);
    assert_int_equal(lc_tl_sim_ops.rkey_pack(s.tl[1], mem, &key, &klen), LINCOLL_OK);
    assert_int_equal(lc_tl_sim_ops.rkey_unpack(s.tl[0], 1, key, klen, &rk), LINCOLL_OK);
    free(key);
    uint64_t raddr = (uint64_t)(uintptr_t)base;
    f = (fault_plan_t){.kind = LC_SIM_FAULT_DELAY, .nth = 0};
    lc_sim_world_set_fault(s.w, fault_fn, &f, 2);
    lc_tl_req_t *pr = NULL, *fr = NULL, *pr2 = NULL;
    assert_int_equal(lc_tl_sim_ops.put_nb(s.tl[0], 1, "abcdefgh", 8, rk, raddr, rk, raddr + 56,
                                          lc_tag_make(1, 1, 0, 0), &pr),
                     LINCOLL_OK);
    assert_non_null(pr);
    assert_int_equal(lc_tl_sim_ops.test(s.tl[0], pr, NULL), LINCOLL_INPROGRESS);
    assert_int_equal(lc_tl_sim_ops.flush_nb(s.tl[0], 1, &fr), LINCOLL_OK);
    assert_non_null(fr);
    assert_int_equal(((uint64_t *)base)[7], 0);
    lc_tl_sim_ops.progress(s.tl[1]);
    assert_int_equal(lc_tl_sim_ops.test(s.tl[0], fr, NULL), LINCOLL_INPROGRESS);
    lc_tl_sim_ops.progress(s.tl[1]);
    assert_int_equal(lc_tl_sim_ops.test(s.tl[0], pr, NULL), LINCOLL_OK);
    assert_int_equal(lc_tl_sim_ops.test(s.tl[0], fr, NULL), LINCOLL_OK);
    assert_memory_equal(base, "abcdefgh", 8);
    assert_int_equal(((uint64_t *)base)[7], 1);
    lc_tl_sim_ops.release(s.tl[0], pr);
    lc_tl_sim_ops.release(s.tl[0], fr);

    f = (fault_plan_t){.kind = LC_SIM_FAULT_DELAY, .nth = 0};
    assert_int_equal(lc_tl_sim_ops.put_nb(s.tl[0], 1, "ABCDEFGH", 8, rk, raddr + 8, NULL, 0,
                                          lc_tag_make(1, 1, 0, 0), &pr2),
                     LINCOLL_OK);
    assert_non_null(pr2);
    lc_tl_sim_ops.release(s.tl[0], pr2); /* orphaned */
    lc_tl_sim_ops.progress(s.tl[1]);
    lc_tl_sim_ops.progress(s.tl[1]);
    assert_memory_equal((char *)base + 8, "ABCDEFGH", 8);
    fr = NULL;
    assert_int_equal(lc_tl_sim_ops.flush_nb(s.tl[0], -1, &fr), LINCOLL_OK);
    assert_null(fr); /* nothing in flight any more */

    /* a delayed put left in flight at fini is cleaned up by the world */
    f = (fault_plan_t){.kind = LC_SIM_FAULT_DELAY, .nth = 0};
    assert_int_equal(lc_tl_sim_ops.put_nb(s.tl[0], 1, "xxxxxxxx", 8, rk, raddr + 16, NULL, 0,
                                          lc_tag_make(1, 1, 0, 0), &pr2),
                     LINCOLL_OK);
    assert_non_null(pr2);
    lc_tl_sim_ops.rkey_destroy(s.tl[0], rk);
    lc_tl_sim_ops.mem_dereg(s.tl[1], mem);
    lc_sim_world_set_fault(s.w, NULL, NULL, 0);
    sw_close(&s);
}

static void test_kill(void **state)
{
    (void)state;
    sim_w_t s;
    sw_open(&s, 3);
    char in[8], out[8] = "payload";
    size_t len;
    /* a message from 2 already queued at 1 is still received after the kill */
    assert_int_equal(sw_send(&s, 2, 1, out, 8, 0), LINCOLL_OK);
    lc_tl_req_t *pending = sw_recv(&s, 0, 2, in, 8, 5);
    lc_tl_mem_t *mem;
    void *base, *key;
    size_t klen;
    lc_tl_rkey_t *rk;
    assert_int_equal(lc_tl_sim_ops.mem_alloc(s.tl[2], 64, &mem, &base), LINCOLL_OK);
    assert_int_equal(lc_tl_sim_ops.rkey_pack(s.tl[2], mem, &key, &klen), LINCOLL_OK);
    assert_int_equal(lc_tl_sim_ops.rkey_unpack(s.tl[0], 2, key, klen, &rk), LINCOLL_OK);
    free(key);

    lc_sim_world_kill(s.w, 2);
    assert_int_equal(lc_tl_sim_ops.peer_status(s.tl[0], 2), LINCOLL_ERR_PEER_FAILED);
    assert_int_equal(lc_tl_sim_ops.peer_status(s.tl[1], 2), LINCOLL_ERR_PEER_FAILED);
    assert_int_equal(lc_tl_sim_ops.peer_status(s.tl[0], 1), LINCOLL_OK);
    assert_int_equal(sw_test(&s, 0, pending, &len), LINCOLL_ERR_PEER_FAILED);
    lc_tl_sim_ops.release(s.tl[0], pending);
    assert_int_equal(sw_send(&s, 0, 2, out, 8, 0), LINCOLL_ERR_PEER_FAILED);
    lc_tl_req_t *r = NULL;
    assert_int_equal(lc_tl_sim_ops.recv_nb(s.tl[0], 2, in, 8, lc_tag_make(1, 1, 2, 0), &r),
                     LINCOLL_ERR_PEER_FAILED);
    assert_null(r);
    assert_int_equal(
        lc_tl_sim_ops.put_nb(s.tl[0], 2, out, 8, rk, (uint64_t)(uintptr_t)base, NULL, 0, 0, &r),
        LINCOLL_ERR_PEER_FAILED);
    assert_int_equal(lc_tl_sim_ops.flush_nb(s.tl[0], 2, &r), LINCOLL_ERR_PEER_FAILED);
    r = sw_recv(&s, 1, 2, in, 8, 0);
    assert_int_equal(sw_test(&s, 1, r, &len), LINCOLL_OK);
    assert_memory_equal(in, "payload", 8);
    lc_tl_sim_ops.release(s.tl[1], r);
    /* the survivors still talk */
    r = sw_recv(&s, 1, 0, in, 8, 0);
    assert_int_equal(sw_send(&s, 0, 1, "alive!!", 8, 0), LINCOLL_OK);
    assert_int_equal(sw_test(&s, 1, r, &len), LINCOLL_OK);
    assert_memory_equal(in, "alive!!", 8);
    lc_tl_sim_ops.release(s.tl[1], r);
    lc_tl_sim_ops.rkey_destroy(s.tl[0], rk);
    sw_close(&s); /* rank 2's region is deregistered by its fini */
}

static void test_keys_and_errors(void **state)
{
    (void)state;
    sim_w_t s;
    sw_open(&s, 2);
    lc_tl_t *tl = NULL;
    lc_tl_sim_params_t sp = {.world = s.w};
    lc_tl_params_t p = {.rank = 0, .size = 2, .ext = &sp};
    assert_int_equal(lc_tl_sim_ops.init(&p, &tl), LINCOLL_ERR_BUSY);
    p.rank = 2;
    assert_int_equal(lc_tl_sim_ops.init(&p, &tl), LINCOLL_ERR_INVALID);
    p.rank = 0;
    sp.world = NULL;
    assert_int_equal(lc_tl_sim_ops.init(&p, &tl), LINCOLL_ERR_INVALID);
    p.ext = NULL;
    assert_int_equal(lc_tl_sim_ops.init(&p, &tl), LINCOLL_ERR_INVALID);
    assert_int_equal(lc_tl_sim_ops.event_fd(s.tl[0]), -1);

    /* address blobs: connect checks each names its rank */
    const void *a[2];
    size_t l[2];
    lc_tl_sim_ops.address(s.tl[0], &a[0], &l[0]);
    lc_tl_sim_ops.address(s.tl[1], &a[1], &l[1]);
    assert_int_equal(lc_tl_sim_ops.connect(s.tl[0], a, l), LINCOLL_OK);
    const void *sw[2] = {a[1], a[0]};
    assert_int_equal(lc_tl_sim_ops.connect(s.tl[0], sw, l), LINCOLL_ERR_INVALID);

    char buf[64] = {0};
    lc_tl_mem_t *mem;
    void *key;
    size_t klen;
    lc_tl_rkey_t *rk, *bad;
    assert_int_equal(lc_tl_sim_ops.mem_reg(s.tl[1], buf, sizeof(buf), &mem), LINCOLL_OK);
    assert_int_equal(lc_tl_sim_ops.rkey_pack(s.tl[1], mem, &key, &klen), LINCOLL_OK);
    assert_int_equal(lc_tl_sim_ops.rkey_unpack(s.tl[0], 0, key, klen, &bad),
                     LINCOLL_ERR_INVALID); /* not rank 0's region */
    assert_int_equal(lc_tl_sim_ops.rkey_unpack(s.tl[0], 1, key, klen - 1, &bad),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(lc_tl_sim_ops.rkey_unpack(s.tl[0], 1, key, klen, &rk), LINCOLL_OK);
    uint64_t raddr = (uint64_t)(uintptr_t)buf;
    assert_ptr_equal(lc_tl_sim_ops.rkey_ptr(s.tl[0], rk, raddr + 5), buf + 5);
    assert_null(lc_tl_sim_ops.rkey_ptr(s.tl[0], rk, raddr + 64));
    lc_tl_req_t *r = NULL;
    /* out of bounds, unaligned signal */
    assert_int_equal(lc_tl_sim_ops.put_nb(s.tl[0], 1, "x", 1, rk, raddr + 64, NULL, 0, 0, &r),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(lc_tl_sim_ops.put_nb(s.tl[0], 1, "x", 1, rk, raddr, rk, raddr + 3, 0, &r),
                     LINCOLL_ERR_INVALID);
    assert_int_equal(lc_tl_sim_ops.put_nb(s.tl[0], 0, "x", 1, rk, raddr, NULL, 0, 0, &r),
                     LINCOLL_ERR_INVALID); /* rkey of another rank */
    /* a stale key after dereg (even if the slot is reused) */
    lc_tl_sim_ops.mem_dereg(s.tl[1], mem);
    lc_tl_mem_t *mem2;
    assert_int_equal(lc_tl_sim_ops.mem_reg(s.tl[1], buf, sizeof(buf), &mem2), LINCOLL_OK);
    assert_int_equal(lc_tl_sim_ops.put_nb(s.tl[0], 1, "x", 1, rk, raddr, NULL, 0, 0, &r),
                     LINCOLL_ERR_INVALID);
    assert_null(lc_tl_sim_ops.rkey_ptr(s.tl[0], rk, raddr));
    assert_int_equal(lc_tl_sim_ops.rkey_unpack(s.tl[0], 1, key, klen, &bad), LINCOLL_ERR_INVALID);
    free(key);
    lc_tl_sim_ops.rkey_destroy(s.tl[0], rk);
    assert_int_equal(lc_tl_sim_ops.send_nb(s.tl[0], 5, buf, 1, 0, &r), LINCOLL_ERR_INVALID);
    assert_int_equal(lc_tl_sim_ops.recv_nb(s.tl[0], -1, buf, 1, 0, &r), LINCOLL_ERR_INVALID);
    assert_int_equal(lc_tl_sim_ops.peer_status(s.tl[0], 7), LINCOLL_ERR_INVALID);
    (void)mem2; /* left registered: fini deregisters it */

    /* requests still held at fini are freed by it (valgrind checks) */
    r = sw_recv(&s, 0, 1, buf, 8, 3);
    (void)r;
    sw_close(&s);
}

int main(void)
{
    const struct CMUnitTest sim_tests[] = {
        cmocka_unit_test(test_round_stats),     cmocka_unit_test(test_fault_drop_corrupt_dup),
        cmocka_unit_test(test_fault_delay),     cmocka_unit_test(test_kill),
        cmocka_unit_test(test_keys_and_errors),
    };
    int failed = _cmocka_run_group_tests("transport conformance: sim", ct_tests, ct_ntests,
                                         group_setup, group_teardown);
    failed += cmocka_run_group_tests_name("sim transport", sim_tests, NULL, NULL);
    return failed ? 1 : 0;
}
