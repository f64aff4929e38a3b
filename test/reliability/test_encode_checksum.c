/*
 * test/reliability/test_encode_checksum.c: LINCOLL_ENCODE_CHECKSUM=crc32c on
 * the sim transport (core/plan/plan_checksum.c).
 *
 * Encodes on P = 4 virtual ranks over GF(2^8): prepare-and-shoot and direct
 * with a dense random K x K matrix, and a systematic [4, 3] Reed-Solomon
 * encode.  Every result is checked against a serial reference.
 *   clean:  results right with the checksum off and on; the plan stats with
 *           it on account the extra traffic: twice the rounds and messages,
 *           4 more bytes per message, the same C2 + 4 bytes per round, more
 *           compute bytes, and the sim measures exactly the bytes the stats
 *           announce.
 *   faults: one message (the n-th data message, or the n-th 4-byte checksum
 *           message) is corrupted, dropped, delayed or duplicated:
 *     corrupt, checksum on:  the rank that received it ends with
 *                            LINCOLL_ERR_CORRUPT; no rank reports OK with a
 *                            wrong result; every other rank ends OK (right)
 *                            or with CORRUPT / TIMEOUT (nothing hangs);
 *     corrupt, checksum off: every rank reports OK and, with the dense
 *                            matrices, some result is wrong (the injection
 *                            reaches the data: without the checksum this
 *                            test would fail);
 *     drop:                  someone times out, no wrong result;
 *     delay, duplicate:      all right, and three clean runs after it too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <lincoll/encode.h>
#include <lincoll/lincoll.h>

#include "common/sim_harness.h"

#define P       4
#define RS_K    3
#define B       96
#define TIMEOUT "0.3"

/* p = 1 and 2.  The RS encode by the direct algorithm on 2 ports gives data
 * ranks rounds without any message while other ranks exchange messages in
 * them: the checksum rounds must not shift any rank's round numbers (the
 * tags must still agree). */
typedef enum { OP_PS, OP_DIRECT, OP_RS, OP_PS2, OP_DIRECT2, OP_RS2, OP_COUNT } op_t;
static const char *op_names[OP_COUNT] = {"prepare_shoot",     "direct",     "rs[4,3]",
                                         "prepare_shoot p=2", "direct p=2", "rs[4,3] direct p=2"};
static op_t base_op(op_t op)
{
    return op >= OP_PS2 ? (op_t)(op - OP_PS2) : op;
}

typedef struct world {
    lc_simh_t h;
    lincoll_field_t *f;
    op_t op;
    int checksum;
    uint64_t A[P * P];    /* universal: A[j][k] */
    uint64_t G[P * RS_K]; /* RS generator: identity on top, parity rows below */
    uint8_t in[P][B], out[P][B];
    lincoll_plan_t *plans[P];
} world_t;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint8_t xval(int r, size_t e, int it)
{
    return (uint8_t)((r * 131 + (int)e * 29 + it * 71 + (int)(e * e) % 7) & 0xff);
}

static void fill(world_t *w, int it)
{
    for (int r = 0; r < P; r++) {
        for (size_t e = 0; e < B; e++)
            w->in[r][e] = xval(r, e, it);
        memset(w->out[r], 0xa5, B);
    }
}

/* rank me's output of iteration it is right (data ranks of RS have none) */
static int right(world_t *w, int me, int it)
{
    if (base_op(w->op) == OP_RS && me < RS_K) return 1;
    for (size_t e = 0; e < B; e++) {
        uint64_t acc = 0;
        if (base_op(w->op) == OP_RS) {
            for (int j = 0; j < RS_K; j++)
                acc = lincoll_gf_add(w->f, acc,
                                     lincoll_gf_mul(w->f, w->G[me * RS_K + j], xval(j, e, it)));
        } else {
            for (int j = 0; j < P; j++)
                acc = lincoll_gf_add(w->f, acc,
                                     lincoll_gf_mul(w->f, w->A[j * P + me], xval(j, e, it)));
        }
        if (w->out[me][e] != acc) return 0;
    }
    return 1;
}

static world_t *world_new(op_t op, int checksum)
{
    world_t *w = calloc(1, sizeof(*w));
    assert_non_null(w);
    w->op = op;
    w->checksum = checksum;
    assert_int_equal(lincoll_gf_field_create(256, &w->f), LINCOLL_OK);
    uint64_t s = 0x9e3779b97f4a7c15ull + (uint64_t)op;
    for (int i = 0; i < P * P; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        w->A[i] = 1 + s % 255; /* dense: every input reaches every output */
    }
    for (int r = 0; r < P; r++)
        for (int j = 0; j < RS_K; j++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            w->G[r * RS_K + j] = r < RS_K ? (uint64_t)(r == j) : 1 + s % 255;
        }
    setenv("LINCOLL_TIMEOUT", TIMEOUT, 1);
    if (checksum) setenv("LINCOLL_ENCODE_CHECKSUM", "crc32c", 1);
    assert_int_equal(lc_simh_create(&w->h, P, 1), 0);
    unsetenv("LINCOLL_TIMEOUT");
    unsetenv("LINCOLL_ENCODE_CHECKSUM");
    for (int r = 0; r < P; r++) {
        lincoll_encode_opts_t o = {.ports = op >= OP_PS2 ? 2 : 1,
                                   .algo = base_op(op) == OP_DIRECT || op == OP_RS2
                                               ? LINCOLL_ENCODE_ALGO_DIRECT
                                               : LINCOLL_ENCODE_ALGO_PREPARE_SHOOT};
        lincoll_status_t st;
        if (base_op(op) == OP_RS)
            st = lincoll_encode_rs_init(w->h.comm[r], w->f, RS_K, LINCOLL_GF_RS_VANDERMONDE, w->G,
                                        B, w->in[r], w->out[r], &o, &w->plans[r]);
        else
            st = lincoll_encode_init(w->h.comm[r], w->f, w->A, P, P, B, w->in[r], w->out[r], &o,
                                     &w->plans[r]);
        assert_int_equal(st, LINCOLL_OK);
    }
    return w;
}

static void world_free(world_t *w)
{
    for (int r = 0; r < P; r++)
        lincoll_plan_free(w->plans[r]);
    lc_simh_destroy(&w->h);
    lincoll_gf_field_destroy(w->f);
    free(w);
}

/* start every plan and drive all to an end (bounded wall clock) */
static void run(world_t *w, lincoll_status_t st[P])
{
    int done[P] = {0};
    for (int r = 0; r < P; r++) {
        st[r] = lincoll_start(w->plans[r]);
        done[r] = st[r] != LINCOLL_OK;
        if (!done[r]) st[r] = LINCOLL_INPROGRESS;
    }
    double t0 = now();
    for (;;) {
        int busy = 0;
        for (int r = 0; r < P; r++) {
            if (done[r]) continue;
            st[r] = lincoll_test(w->plans[r]);
            if (st[r] == LINCOLL_INPROGRESS)
                busy = 1;
            else
                done[r] = 1;
        }
        if (!busy) break;
        if (now() - t0 > 30.0) fail_msg("%s: hang (30 s)", op_names[w->op]);
    }
}

static void test_clean_and_stats(void **state)
{
    (void)state;
    for (int op = 0; op < OP_COUNT; op++) {
        world_t *off = world_new((op_t)op, 0), *on = world_new((op_t)op, 1);
        lincoll_status_t st[P];
        for (int it = 0; it < 3; it++) {
            world_t *ws[2] = {off, on};
            for (int i = 0; i < 2; i++) {
                fill(ws[i], it);
                lc_sim_world_reset_stats(ws[i]->h.world);
                run(ws[i], st);
                for (int r = 0; r < P; r++) {
                    assert_int_equal(st[r], LINCOLL_OK);
                    assert_true(right(ws[i], r, it));
                }
            }
        }
        for (int r = 0; r < P; r++) {
            lincoll_plan_stats_t a, b;
            assert_int_equal(lincoll_plan_stats(off->plans[r], &a), LINCOLL_OK);
            assert_int_equal(lincoll_plan_stats(on->plans[r], &b), LINCOLL_OK);
            assert_int_equal(b.rounds, 2 * a.rounds);
            assert_int_equal(b.msgs_sent, 2 * a.msgs_sent);
            assert_int_equal(b.msgs_recvd, 2 * a.msgs_recvd);
            assert_int_equal(b.bytes_sent, a.bytes_sent + 4 * a.msgs_sent);
            assert_int_equal(b.bytes_recvd, a.bytes_recvd + 4 * a.msgs_recvd);
            assert_int_equal(b.c2_bytes, a.c2_bytes + 4 * a.rounds);
            assert_true(b.compute_elems >= a.compute_elems + a.bytes_sent + a.bytes_recvd);
            if (a.rounds > 0) assert_true(b.predicted_us > a.predicted_us);
            /* what the sim measured (last run) is what the stats announce */
            uint64_t ms, bs, mr, br;
            lc_sim_world_rank_stats(on->h.world, r, &ms, &bs, &mr, &br);
            assert_int_equal(ms, b.msgs_sent);
            assert_int_equal(bs, b.bytes_sent);
            assert_int_equal(br, b.bytes_recvd);
            if (r == 0)
                print_message("%-14s rank 0: off C1=%u msgs=%llu bytes=%llu | crc32c C1=%u "
                              "msgs=%llu bytes=%llu\n",
                              op_names[op], a.rounds, (unsigned long long)a.msgs_sent,
                              (unsigned long long)a.bytes_sent, b.rounds,
                              (unsigned long long)b.msgs_sent, (unsigned long long)b.bytes_sent);
        }
        world_free(off);
        world_free(on);
    }
}

typedef struct fault {
    lc_sim_fault_t kind;
    int crc_msgs; /* target the 4-byte checksum messages instead of data */
    int skip;     /* matching messages to let through first */
    int fired, src, dst;
} fault_t;

static lc_sim_fault_t fault_fn(void *arg, int src, int dst, unsigned round, size_t len)
{
    (void)round;
    fault_t *f = arg;
    if (f->fired || len == 0) return LC_SIM_FAULT_NONE;
    if (f->crc_msgs ? len != 4 : len == 4) return LC_SIM_FAULT_NONE;
    if (f->skip-- > 0) return LC_SIM_FAULT_NONE;
    f->fired = 1;
    f->src = src;
    f->dst = dst;
    return f->kind;
}

static const char *fault_names[] = {"none", "drop", "corrupt", "delay", "duplicate"};
static int corrupt_wrong_without_checksum, corrupt_detected;

static void one_fault(op_t op, int checksum, lc_sim_fault_t kind, int crc_msgs, int skip)
{
    world_t *w = world_new(op, checksum);
    fault_t f = {.kind = kind, .crc_msgs = crc_msgs, .skip = skip};
    lc_sim_world_set_fault(w->h.world, fault_fn, &f, 3);
    lincoll_status_t st[P];
    fill(w, 0);
    run(w, st);
    lc_sim_world_set_fault(w->h.world, NULL, NULL, 0);
    int errors = 0, wrong = 0, timeouts = 0, corrupt = 0;
    for (int r = 0; r < P; r++) {
        if (st[r] == LINCOLL_OK) {
            wrong += !right(w, r, 0);
        } else {
            errors++;
            timeouts += st[r] == LINCOLL_ERR_TIMEOUT;
            corrupt += st[r] == LINCOLL_ERR_CORRUPT;
            assert_true(st[r] == LINCOLL_ERR_TIMEOUT || st[r] == LINCOLL_ERR_CORRUPT);
        }
    }
    if (!f.fired) { /* fewer matching messages than skip: a clean run */
        assert_int_equal(errors + wrong, 0);
        world_free(w);
        return;
    }
    print_message("%-14s crc=%d %-9s %s msg %d (%d->%d): errors=%d (corrupt %d timeout %d) "
                  "wrong=%d\n",
                  op_names[op], checksum, fault_names[kind], crc_msgs ? "crc " : "data", skip,
                  f.src, f.dst, errors, corrupt, timeouts, wrong);
    switch (kind) {
    case LC_SIM_FAULT_CORRUPT:
        if (checksum) {
            assert_int_equal(st[f.dst], LINCOLL_ERR_CORRUPT);
            assert_int_equal(wrong, 0);
            corrupt_detected++;
        } else {
            /* a dense matrix carries every byte to some output; an RS data
             * rank may forward a packet that only zero coefficients use */
            assert_int_equal(errors, 0);
            if (base_op(op) != OP_RS) assert_true(wrong > 0);
            corrupt_wrong_without_checksum += wrong > 0;
        }
        break;
    case LC_SIM_FAULT_DROP:
        assert_true(timeouts > 0);
        assert_int_equal(wrong, 0);
        break;
    case LC_SIM_FAULT_DELAY:
    case LC_SIM_FAULT_DUPLICATE:
        assert_int_equal(errors, 0);
        assert_int_equal(wrong, 0);
        break;
    default:
        break;
    }
    if (errors == 0) { /* later clean runs are right (no stale duplicate matched) */
        for (int it = 1; it <= 3; it++) {
            fill(w, it);
            run(w, st);
            for (int r = 0; r < P; r++) {
                assert_int_equal(st[r], LINCOLL_OK);
                assert_true(right(w, r, it));
            }
        }
    }
    world_free(w);
}

static void test_faults(void **state)
{
    (void)state;
    const lc_sim_fault_t kinds[] = {LC_SIM_FAULT_CORRUPT, LC_SIM_FAULT_DROP, LC_SIM_FAULT_DELAY,
                                    LC_SIM_FAULT_DUPLICATE};
    unsigned seed = 4242;
    for (int op = 0; op < OP_COUNT; op++) {
        for (int k = 0; k < 4; k++) {
            for (int rep = 0; rep < 3; rep++) {
                seed = seed * 1103515245u + 12345u;
                int skip = (int)((seed >> 8) % 5);
                one_fault((op_t)op, 1, kinds[k], 0, skip);
                one_fault((op_t)op, 1, kinds[k], 1, skip);
                if (kinds[k] == LC_SIM_FAULT_CORRUPT) one_fault((op_t)op, 0, kinds[k], 0, skip);
            }
        }
    }
    /* the fault reached the data: without the checksum it gives wrong parity */
    assert_true(corrupt_wrong_without_checksum > 0);
    assert_true(corrupt_detected > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_and_stats),
        cmocka_unit_test(test_faults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
