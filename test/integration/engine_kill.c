/*
 * test/integration/engine_kill.c: a rank dies by SIGKILL in the middle of a
 * run of all-to-all exchanges; every survivor must see LINCOLL_ERR_PEER_FAILED
 * or LINCOLL_ERR_TIMEOUT within LINCOLL_TIMEOUT (+ slack), never hang, and
 * finalize cleanly.  With ENGINE_KILL_DETECT=S the survivors must see
 * LINCOLL_ERR_PEER_FAILED itself within S seconds (run with a LINCOLL_TIMEOUT
 * well above S, so only the transport's own detection can pass).
 *
 * Run under `lincoll-run --keep-going -n N`.  The victim (rank 1) forks: the
 * child is the rank and kills itself with SIGKILL at a pseudo-random
 * iteration; the parent only waits for it and exits 0, so lincoll-run keeps
 * the survivors running and the exit status reflects the survivors' checks.
 */
#include <lincoll/lincoll.h>

#include "../common/fork_victim.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void)
{
    int victim = lc_test_fork_victim("engine_kill");
    double timeout = getenv("LINCOLL_TIMEOUT") ? atof(getenv("LINCOLL_TIMEOUT")) : 60.0;
    lincoll_context_t *ctx;
    lincoll_comm_t *world;
    lincoll_status_t st = lincoll_init(NULL, &ctx);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "engine_kill: lincoll_init: %s\n", lincoll_strerror(st));
        return 1;
    }
    lincoll_comm_world(ctx, &world);
    int me = lincoll_comm_rank(world), P = lincoll_comm_size(world);
    size_t n = 64 * 1024;
    char *in = calloc((size_t)P, n), *out = calloc((size_t)P, n);
    lincoll_plan_t *plan;
    if (lincoll_alltoall_init(world, in, out, n, 1, &plan) != LINCOLL_OK) {
        return 1;
    }
    srand((unsigned)getpid());
    int die_at = 20 + rand() % 200;
    double last_ok = now();
    long iter;
    for (iter = 0;; iter++) {
        if (victim && iter == die_at) {
            raise(SIGKILL);
        }
        st = lincoll_start(plan);
        if (st == LINCOLL_OK) st = lincoll_wait(plan);
        if (st != LINCOLL_OK) break;
        last_ok = now();
    }
    double waited = now() - last_ok;
    const char *detect = getenv("ENGINE_KILL_DETECT");
    int ok = detect != NULL ? st == LINCOLL_ERR_PEER_FAILED && waited <= atof(detect)
                            : (st == LINCOLL_ERR_PEER_FAILED || st == LINCOLL_ERR_TIMEOUT) &&
                                  waited <= timeout + 15.0;
    printf("engine_kill: survivor rank %d: iteration %ld ended with %s after %.2f s "
           "(LINCOLL_TIMEOUT %.0f s, %s %s s): %s\n",
           me, iter, lincoll_strerror(st), waited, timeout,
           detect != NULL ? "peer failure required within" : "either error within",
           detect != NULL ? detect : "timeout + 15", ok ? "OK" : "FAILED");
    lincoll_plan_free(plan);
    double t0 = now();
    lincoll_status_t fst = lincoll_finalize(ctx);
    printf("engine_kill: survivor rank %d: finalize returned %s after %.2f s\n", me,
           lincoll_strerror(fst), now() - t0);
    free(in);
    free(out);
    return ok ? 0 : 1;
}
