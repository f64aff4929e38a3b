/*
 * test/reliability/test_sim_faults.c: transfer faults and dead peers on the
 * sim transport, for every collective with a result check.
 *
 * One message of an operation (the k-th with a payload, k from a seed) is
 * dropped, corrupted, delayed or duplicated, then the operation runs three
 * more times clean.  Expected:
 *   drop      every rank ends; at least one with LINCOLL_ERR_TIMEOUT, none OK
 *             with a wrong result;
 *   delay     all OK, results right;
 *   duplicate all OK, results right (the extra copy is never matched later);
 *   corrupt   an error, or (no checksum on these plans) a wrong result: the
 *             injection reached the data.  Where a checksum exists the row
 *             says so and then only an error is accepted.
 * and the clean runs after a non-fatal fault are right.  A rank killed with
 * lc_sim_world_kill() at a random point makes every survivor end with
 * LINCOLL_ERR_PEER_FAILED or LINCOLL_ERR_TIMEOUT.  Nothing may hang: every
 * drive loop has a wall-clock bound far above LINCOLL_TIMEOUT.
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

#include <lincoll/coll.h>
#include <lincoll/lincoll.h>

#include "common/sim_harness.h"
#include "core/context/context.h"

#define P       5
#define MAXC    4096
#define TIMEOUT "0.3"

typedef enum {
    OP_ALLTOALL,
    OP_RING_SHIFT,
    OP_ALLREDUCE,
    OP_REDUCE_SCATTER,
    OP_ALLGATHER,
    OP_BCAST,
    OP_REDUCE,
    OP_COUNT
} op_t;

static const char *op_names[OP_COUNT] = {"alltoall",  "ring_shift", "allreduce", "reduce_scatter",
                                         "allgather", "bcast",      "reduce"};
/* Plans whose transfers carry a checksum (a corrupted transfer must be an
 * error).  None of these collectives has one; encode has one
 * (LINCOLL_ENCODE_CHECKSUM, test_encode_checksum). */
static const int op_checksummed[OP_COUNT] = {0};

typedef struct world {
    lc_simh_t h;
    size_t count;
    int64_t in[P][P * MAXC], out[P][P * MAXC];
    lincoll_plan_t *plans[P];
    op_t op;
} world_t;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int64_t val(int r, size_t i, int it)
{
    return (int64_t)((r * 7919 + (long)i * 31 + it * 17) % 1000);
}

static void fill(world_t *w, int it)
{
    for (int r = 0; r < P; r++) {
        for (size_t i = 0; i < (size_t)P * w->count; i++)
            w->in[r][i] = val(r, i, it);
        memset(w->out[r], 0xa5, sizeof(w->out[r]));
    }
}

/* Rank r's result of iteration it is right. */
static int right(world_t *w, int me, int it)
{
    size_t c = w->count;
    for (size_t i = 0; i < c; i++) {
        int64_t s = 0, s2 = 0;
        for (int r = 0; r < P; r++) {
            s += val(r, i, it);
            s2 += val(r, (size_t)me * c + i, it);
        }
        switch (w->op) {
        case OP_ALLTOALL:
            for (int j = 0; j < P; j++)
                if (w->out[me][(size_t)j * c + i] != val(j, (size_t)me * c + i, it)) return 0;
            break;
        case OP_RING_SHIFT:
            if (w->out[me][i] != val((me + P - 1) % P, i, it)) return 0;
            break;
        case OP_ALLREDUCE:
            if (w->out[me][i] != s) return 0;
            break;
        case OP_REDUCE_SCATTER:
            if (w->out[me][i] != s2) return 0;
            break;
        case OP_ALLGATHER:
            for (int j = 0; j < P; j++)
                if (w->out[me][(size_t)j * c + i] != val(j, i, it)) return 0;
            break;
        case OP_BCAST:
            if (w->in[me][i] != val(0, i, it)) return 0;
            break;
        case OP_REDUCE:
            if (me == 0 && w->out[me][i] != s) return 0;
            break;
        default:
            return 0;
        }
    }
    return 1;
}

static void make_plans(world_t *w)
{
    size_t c = w->count;
    for (int r = 0; r < P; r++) {
        lincoll_comm_t *cm = w->h.comm[r];
        lincoll_plan_t **pp = &w->plans[r];
        lincoll_status_t st = LINCOLL_ERR_INTERNAL;
        switch (w->op) {
        case OP_ALLTOALL:
            st = lincoll_alltoall_init(cm, w->in[r], w->out[r], c * 8, 1, pp);
            break;
        case OP_RING_SHIFT:
            st = lincoll_ring_shift_init(cm, w->in[r], w->out[r], c * 8, 1, pp);
            break;
        case OP_ALLREDUCE:
            st = lincoll_allreduce_init(cm, w->in[r], w->out[r], c, LINCOLL_INT64, LINCOLL_SUM, pp);
            break;
        case OP_REDUCE_SCATTER:
            st = lincoll_reduce_scatter_init(cm, w->in[r], w->out[r], c, LINCOLL_INT64, LINCOLL_SUM,
                                             pp);
            break;
        case OP_ALLGATHER:
            st = lincoll_allgather_init(cm, w->in[r], w->out[r], c, LINCOLL_INT64, pp);
            break;
        case OP_BCAST:
            st = lincoll_bcast_init(cm, w->in[r], c, LINCOLL_INT64, 0, pp);
            break;
        case OP_REDUCE:
            st = lincoll_reduce_init(cm, w->in[r], w->out[r], c, LINCOLL_INT64, LINCOLL_SUM, 0, pp);
            break;
        default:
            break;
        }
        assert_int_equal(st, LINCOLL_OK);
    }
}

/* Start every plan and drive all to an end; kill_rank >= 0 is killed after
 * kill_after test() sweeps.  st[r] receives each rank's final status. */
static void run(world_t *w, lincoll_status_t st[P], int kill_rank, int kill_after)
{
    int done[P] = {0};
    for (int r = 0; r < P; r++) {
        st[r] = lincoll_start(w->plans[r]);
        done[r] = st[r] != LINCOLL_OK;
        if (!done[r]) st[r] = LINCOLL_INPROGRESS;
    }
    double t0 = now();
    for (int sweep = 0;; sweep++) {
        int busy = 0;
        if (sweep == kill_after && kill_rank >= 0) {
            lc_sim_world_kill(w->h.world, kill_rank);
            done[kill_rank] = 1; /* a dead rank is never driven again */
            st[kill_rank] = LINCOLL_ERR_CANCELED;
        }
        for (int r = 0; r < P; r++) {
            if (done[r]) continue;
            st[r] = lincoll_test(w->plans[r]);
            if (st[r] == LINCOLL_INPROGRESS) {
                busy = 1;
            } else {
                done[r] = 1;
            }
        }
        if (!busy && (kill_rank < 0 || sweep >= kill_after)) break;
        if (now() - t0 > 30.0)
            fail_msg("%s: hang (30 s, LINCOLL_TIMEOUT " TIMEOUT ")", op_names[w->op]);
    }
}

typedef struct fault {
    lc_sim_fault_t kind;
    int skip; /* payload messages to let through first */
    int fired;
} fault_t;

static lc_sim_fault_t fault_fn(void *arg, int src, int dst, unsigned round, size_t len)
{
    (void)src, (void)dst, (void)round;
    fault_t *f = arg;
    if (f->fired || len == 0) return LC_SIM_FAULT_NONE;
    if (f->skip-- > 0) return LC_SIM_FAULT_NONE;
    f->fired = 1;
    return f->kind;
}

static world_t *world_new(op_t op, size_t count)
{
    world_t *w = calloc(1, sizeof(*w));
    assert_non_null(w);
    setenv("LINCOLL_TIMEOUT", TIMEOUT, 1);
    assert_int_equal(lc_simh_create(&w->h, P, 1), 0);
    unsetenv("LINCOLL_TIMEOUT");
    w->op = op;
    w->count = count;
    make_plans(w);
    return w;
}

static void world_free(world_t *w)
{
    for (int r = 0; r < P; r++)
        lincoll_plan_free(w->plans[r]);
    lc_simh_destroy(&w->h);
    free(w);
}

static const char *fault_names[] = {"none", "drop", "corrupt", "delay", "duplicate"};

static void one_fault(op_t op, size_t count, lc_sim_fault_t kind, int skip)
{
    world_t *w = world_new(op, count);
    fault_t f = {.kind = kind, .skip = skip};
    lc_sim_world_set_fault(w->h.world, fault_fn, &f, 3);
    lincoll_status_t st[P];
    fill(w, 0);
    run(w, st, -1, 0);
    lc_sim_world_set_fault(w->h.world, NULL, NULL, 0);
    int errors = 0, wrong = 0, timeouts = 0;
    for (int r = 0; r < P; r++) {
        if (st[r] == LINCOLL_OK) {
            wrong += !right(w, r, 0);
        } else {
            errors++;
            timeouts += st[r] == LINCOLL_ERR_TIMEOUT;
            assert_true(LINCOLL_IS_ERR(st[r]));
        }
    }
    if (!f.fired) {
        /* fewer payload messages than skip: a clean run */
        assert_int_equal(errors + wrong, 0);
        world_free(w);
        return;
    }
    print_message("%-14s count=%-5zu %-9s (msg %d): errors=%d wrong=%d\n", op_names[op], count,
                  fault_names[kind], skip, errors, wrong);
    switch (kind) {
    case LC_SIM_FAULT_DROP:
        assert_true(timeouts > 0);
        assert_int_equal(wrong, 0);
        break;
    case LC_SIM_FAULT_DELAY:
    case LC_SIM_FAULT_DUPLICATE:
        assert_int_equal(errors, 0);
        assert_int_equal(wrong, 0);
        break;
    case LC_SIM_FAULT_CORRUPT:
        if (op_checksummed[op]) {
            assert_true(errors > 0);
            assert_int_equal(wrong, 0);
        } else {
            assert_true(errors + wrong > 0);
        }
        break;
    default:
        break;
    }
    if (errors == 0) {
        /* the clean runs after it are right (no stale duplicate is matched) */
        for (int it = 1; it <= 3; it++) {
            fill(w, it);
            run(w, st, -1, 0);
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
    unsigned seed = 12345;
    const lc_sim_fault_t kinds[] = {LC_SIM_FAULT_DROP, LC_SIM_FAULT_CORRUPT, LC_SIM_FAULT_DELAY,
                                    LC_SIM_FAULT_DUPLICATE};
    const size_t counts[] = {8, MAXC};
    for (int op = 0; op < OP_COUNT; op++) {
        for (int k = 0; k < 4; k++) {
            for (int c = 0; c < 2; c++) {
                for (int rep = 0; rep < 2; rep++) {
                    seed = seed * 1103515245u + 12345u;
                    one_fault((op_t)op, counts[c], kinds[k], (int)((seed >> 8) % 6));
                }
            }
        }
    }
}

static void test_sim_kill(void **state)
{
    (void)state;
    unsigned seed = 777;
    for (int op = 0; op < OP_COUNT; op++) {
        for (int rep = 0; rep < 4; rep++) {
            seed = seed * 1103515245u + 12345u;
            int victim = (int)((seed >> 8) % P);
            int after = (int)((seed >> 16) % 4);
            world_t *w = world_new((op_t)op, rep % 2 ? MAXC : 8);
            lincoll_status_t st[P];
            fill(w, 0);
            run(w, st, victim, after);
            int failed = 0;
            for (int r = 0; r < P; r++) {
                if (r == victim) continue;
                /* a rank that finished before the kill is fine; the others fail */
                assert_true(st[r] == LINCOLL_OK || st[r] == LINCOLL_ERR_PEER_FAILED ||
                            st[r] == LINCOLL_ERR_TIMEOUT);
                if (st[r] == LINCOLL_OK) {
                    assert_true(right(w, r, 0));
                } else {
                    failed++;
                }
            }
            /* afterwards every survivor that needs the victim fails */
            fill(w, 1);
            run(w, st, -1, 0);
            int later = 0;
            for (int r = 0; r < P; r++) {
                if (r == victim) continue;
                assert_true(st[r] == LINCOLL_ERR_PEER_FAILED || st[r] == LINCOLL_ERR_TIMEOUT ||
                            (st[r] == LINCOLL_OK && right(w, r, 1)));
                later += st[r] != LINCOLL_OK;
            }
            assert_true(later > 0);
            print_message("%-14s kill rank %d after %d sweeps: %d failed at once, %d next run\n",
                          op_names[op], victim, after, failed, later);
            world_free(w);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_sim_kill),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
