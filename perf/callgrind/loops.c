/*
 * perf/callgrind/loops.c: two loops whose instruction counts (callgrind)
 * compare builds of lincoll exactly, whatever the machine is doing:
 *
 *   loops self N    one process, a CONCURRENT point-to-point plan to itself
 *                   (8 bytes), N starts + waits: the executor's and the
 *                   transport's cost of one send + receive, no waiting;
 *   loops bcast N   under a launcher (2 ranks), an 8-byte bcast from rank 0
 *                   over lincoll_mem_alloc memory (the zero-copy plan where
 *                   the peers map each other), N starts + waits, a barrier
 *                   every 4: the peer is never more than 4 starts behind,
 *                   so the root's credits are always there and its start +
 *                   wait never spin.
 *
 * Only the public API: the same source builds against any version.
 * perf/callgrind/compare.sh runs it under callgrind collecting only inside
 * loops_iter (one start + wait) and prints the instructions per iteration of
 * rank 0.
 */
#include <lincoll/lincoll.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* one start + wait: what compare.sh counts (--toggle-collect=loops_iter) */
__attribute__((noinline)) lincoll_status_t loops_iter(lincoll_plan_t *p);
__attribute__((noinline)) lincoll_status_t loops_iter(lincoll_plan_t *p)
{
    lincoll_status_t st = lincoll_start(p);
    if (st == LINCOLL_OK) st = lincoll_wait(p);
    return st;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "self") != 0 && strcmp(argv[1], "bcast") != 0)) {
        fprintf(stderr, "usage: %s self|bcast N\n", argv[0]);
        return 2;
    }
    long n = atol(argv[2]);
    lincoll_context_t *ctx;
    lincoll_comm_t *w;
    if (lincoll_init(NULL, &ctx) != LINCOLL_OK) return 1;
    lincoll_comm_world(ctx, &w);
    const int me = lincoll_comm_rank(w);
    lincoll_plan_t *p = NULL;
    lincoll_status_t st;
    char *a = NULL, *b = NULL;
    if (lincoll_mem_alloc(ctx, 64, (void **)&a) != LINCOLL_OK ||
        lincoll_mem_alloc(ctx, 64, (void **)&b) != LINCOLL_OK)
        return 1;
    memset(a, 1, 64);
    if (strcmp(argv[1], "self") == 0) {
        st = lincoll_sendrecv_init(w, a, 8, me, b, 8, me, LINCOLL_SENDRECV_CONCURRENT, &p);
    } else {
        st = lincoll_bcast_init(w, a, 1, LINCOLL_DOUBLE, 0, &p);
    }
    if (st != LINCOLL_OK) {
        fprintf(stderr, "loops: init: %s\n", lincoll_strerror(st));
        return 1;
    }
    for (long i = 0; i < n && st == LINCOLL_OK; i++) {
        st = loops_iter(p);
        if (strcmp(argv[1], "bcast") == 0 && i % 4 == 3) lincoll_barrier(w);
    }
    lincoll_plan_stats_t s;
    lincoll_plan_stats(p, &s);
    if (me == 0)
        printf("loops %s: %ld iterations of %s: %s\n", argv[1], n, s.algorithm,
               lincoll_strerror(st));
    lincoll_plan_free(p);
    lincoll_mem_free(ctx, a);
    lincoll_mem_free(ctx, b);
    lincoll_finalize(ctx);
    return st != LINCOLL_OK;
}
