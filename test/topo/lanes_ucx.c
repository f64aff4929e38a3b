/*
 * test/topo/lanes_ucx.c: p ports as p links, on two ranks of the emulated
 * cluster (deploy/emucluster -L 2; test/topo/lanes_test.sh drives it).
 *
 *   lanes_ucx bw BYTES ITERS   rank 0 sends a round of m messages of BYTES
 *                              to rank 1 (m = 1, then 2; distinct buffers),
 *                              rank 1 answers with 8 bytes in the next round;
 *                              one warm-up and ITERS timed starts each, after
 *                              a barrier.  Rank 0 prints
 *                              "lanes_ucx: lanes L t1 S t2 S ratio R" (medians
 *                              in seconds, R = t2 / t1).  Rank 1 checks every
 *                              buffer holds its own message (no swap).
 *   lanes_ucx fail M           rank 1 exits (no finalize) a second after a
 *                              barrier while rank 0 waits for M messages from
 *                              it in one round (M = 1: a receive on any lane;
 *                              M = 2: lanes 0 and 1).  Rank 0 must fail with
 *                              LINCOLL_ERR_PEER_FAILED within 30 s (run with
 *                              LINCOLL_TIMEOUT well above that) and prints
 *                              "lanes_ucx: peer failure seen after S s".
 *
 * The plans are built with the plan IR directly (core/plan), bound and run by
 * the executor, so the lowering (core/exec/lower.c) picks the lanes exactly as
 * for every algorithm: sends by port index, receives ANY, or lane k for the
 * k-th of several messages between one pair in a round.
 */
#include <lincoll/lincoll.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/context/context.h"
#include "core/exec/exec.h"
#include "core/plan/plan.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Round 0: rank `from` -> the other rank, m messages of n bytes (buf[j]);
 * round 1: an 8-byte answer back.  NULL on failure (logged). */
static lincoll_plan_t *round_plan(lincoll_comm_t *w, int from, int m, size_t n, unsigned char **buf,
                                  unsigned char *ack)
{
    int me = lincoll_comm_rank(w), other = 1 - me;
    lc_env_t env = lc_exec_env(w, 0);
    lc_plan_t *ir;
    if (lc_plan_create(&env, "lanes_round", m, &ir) != LINCOLL_OK) return NULL;
    int as = lc_plan_slot_user(ir, ack, 8);
    lincoll_status_t st = lc_plan_rounds_upto(ir, 1) == 1 ? LINCOLL_OK : LINCOLL_ERR_NOMEM;
    for (int j = 0; j < m && st == LINCOLL_OK; j++) {
        int s = lc_plan_slot_user(ir, buf[j], n);
        st = me == from ? lc_plan_send(ir, 0, other, lc_ref(s, 0), n)
                        : lc_plan_recv(ir, 0, other, lc_ref(s, 0), n);
    }
    if (st == LINCOLL_OK)
        st = me == from ? lc_plan_recv(ir, 1, other, lc_ref(as, 0), 8)
                        : lc_plan_send(ir, 1, other, lc_ref(as, 0), 8);
    if (st == LINCOLL_OK) st = lc_plan_finalize(ir);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "lanes_ucx: building the plan: %s\n", lincoll_strerror(st));
        lc_plan_destroy(ir);
        return NULL;
    }
    lincoll_plan_t *p;
    if ((st = lc_bind_local(w, ir, &p)) != LINCOLL_OK) {
        fprintf(stderr, "lanes_ucx: bind: %s\n", lincoll_strerror(st));
        return NULL;
    }
    return p;
}

static int run_bw(lincoll_context_t *ctx, lincoll_comm_t *w, size_t n, int iters)
{
    int me = lincoll_comm_rank(w), rc = 0;
    unsigned char *buf[2], ack[8] = {0};
    for (int j = 0; j < 2; j++) {
        buf[j] = malloc(n);
        if (buf[j] == NULL) return 1;
        memset(buf[j], me == 0 ? 0x40 + j : 0, n);
    }
    double med[3] = {0, 0, 0};
    double *t = calloc((size_t)iters, sizeof(double));
    for (int m = 1; m <= 2 && rc == 0; m++) {
        lincoll_plan_t *p = round_plan(w, 0, m, n, buf, ack);
        if (p == NULL) {
            rc = 1;
            break;
        }
        for (int i = -1; i < iters && rc == 0; i++) {
            if (me == 1)
                for (int j = 0; j < m; j++)
                    memset(buf[j], 0, n);
            if (lincoll_barrier(w) != LINCOLL_OK) rc = 1;
            double t0 = now_s();
            lincoll_status_t st = rc ? LINCOLL_ERR_INTERNAL : lincoll_start(p);
            if (st == LINCOLL_OK) st = lincoll_wait(p);
            if (st != LINCOLL_OK) {
                fprintf(stderr, "lanes_ucx: rank %d: round of %d: %s\n", me, m,
                        lincoll_strerror(st));
                rc = 1;
            }
            if (i >= 0) t[i] = now_s() - t0;
            for (int j = 0; me == 1 && rc == 0 && j < m; j++) {
                for (size_t k = 0; k < n; k++) {
                    if (buf[j][k] != 0x40 + j) {
                        fprintf(stderr, "lanes_ucx: buffer %d of %d holds byte 0x%02x at %zu\n", j,
                                m, buf[j][k], k);
                        rc = 1;
                        break;
                    }
                }
            }
        }
        qsort(t, (size_t)iters, sizeof(double), cmp_double);
        med[m] = t[iters / 2];
        lincoll_plan_free(p);
    }
    if (me == 0 && rc == 0) {
        printf("lanes_ucx: lanes %d t1 %.4f t2 %.4f ratio %.3f\n", ctx->tl_ops->lanes(ctx->tl),
               med[1], med[2], med[2] / med[1]);
        fflush(stdout);
    }
    free(t);
    free(buf[0]);
    free(buf[1]);
    return rc;
}

static int run_fail(lincoll_context_t *ctx, lincoll_comm_t *w, int m)
{
    (void)ctx;
    int me = lincoll_comm_rank(w);
    unsigned char *buf[2], ack[8] = {0};
    for (int j = 0; j < 2; j++)
        buf[j] = calloc(1, 4096);
    /* rank 1 would send the m messages; it never starts the plan */
    lincoll_plan_t *p = round_plan(w, 1, m, 4096, buf, ack);
    if (p == NULL || lincoll_barrier(w) != LINCOLL_OK) return 1;
    if (me == 1) {
        sleep(1);
        _exit(0); /* dies: no finalize, its sockets close */
    }
    double t0 = now_s();
    lincoll_status_t st = lincoll_start(p);
    if (st == LINCOLL_OK) st = lincoll_wait(p);
    double dt = now_s() - t0;
    printf("lanes_ucx: peer failure seen after %.2f s: %s\n", dt, lincoll_strerror(st));
    fflush(stdout);
    lincoll_plan_free(p);
    free(buf[0]);
    free(buf[1]);
    return st == LINCOLL_ERR_PEER_FAILED && dt < 30.0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], "bw") != 0 && strcmp(argv[1], "fail") != 0)) {
        fprintf(stderr, "usage: lanes_ucx bw BYTES ITERS | lanes_ucx fail M\n");
        return 2;
    }
    lincoll_context_t *ctx;
    lincoll_comm_t *w;
    lincoll_status_t st = lincoll_init(NULL, &ctx);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "lanes_ucx: lincoll_init: %s\n", lincoll_strerror(st));
        return 1;
    }
    lincoll_comm_world(ctx, &w);
    if (lincoll_comm_size(w) != 2) {
        fprintf(stderr, "lanes_ucx: needs exactly 2 ranks\n");
        lincoll_finalize(ctx);
        return 2;
    }
    int rc;
    if (strcmp(argv[1], "bw") == 0) {
        long n = atol(argv[2]);
        int iters = argc > 3 ? atoi(argv[3]) : 3;
        if (n <= 0 || iters <= 0) {
            fprintf(stderr, "lanes_ucx: bw BYTES ITERS: both must be positive\n");
            lincoll_finalize(ctx);
            return 2;
        }
        rc = run_bw(ctx, w, (size_t)n, iters);
    } else {
        int m = atoi(argv[2]);
        if (m < 1 || m > 2) {
            fprintf(stderr, "lanes_ucx: fail M: M is 1 or 2\n");
            lincoll_finalize(ctx);
            return 2;
        }
        rc = run_fail(ctx, w, m);
    }
    lincoll_finalize(ctx);
    return rc;
}
