/*
 * test/wait/sleep_kill.c: a peer dies by SIGKILL while the other ranks
 * sleep, in an event loop on lincoll_context_fd or in a sleeping
 * lincoll_wait; every survivor must get LINCOLL_ERR_PEER_FAILED well before
 * LINCOLL_TIMEOUT.
 *
 *   LINCOLL_TIMEOUT=30 lincoll-run --keep-going -n 4 sleep_kill eventloop|wait
 *
 * All ranks run an alltoall (every survivor waits on the victim directly)
 * three times together.  Then rank 1 (the victim, a forked child: its parent
 * only reaps it and exits 0) waits 0.5 s and kills itself, while the others
 * start the alltoall again and wait for it:
 *   eventloop: test, lincoll_context_arm (BUSY: test again), poll on the
 *              descriptor (at most 60 s a call), as a daemon does;
 *   wait:      lincoll_wait, run with LINCOLL_WAIT=sleep.
 * Checks on every survivor: the alltoall ends with LINCOLL_ERR_PEER_FAILED
 * within LINCOLL_TIMEOUT / 3 of its start (the victim dies after 0.5 s; the
 * timeout alone would take LINCOLL_TIMEOUT); the rank slept meanwhile
 * (voluntary context switches, which a spinning wait does not make);
 * lincoll_finalize returns.
 */
#include <lincoll/lincoll.h>

#include "../common/fork_victim.h"

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long voluntary_switches(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_nvcsw;
}

static lincoll_status_t event_loop(lincoll_context_t *ctx, lincoll_plan_t *plan)
{
    int fd;
    lincoll_status_t st = lincoll_context_fd(ctx, &fd);
    if (st != LINCOLL_OK) return st;
    for (;;) {
        st = lincoll_test(plan);
        if (st != LINCOLL_INPROGRESS) return st;
        lincoll_status_t a = lincoll_context_arm(ctx);
        if (a == LINCOLL_ERR_BUSY) continue;
        if (a != LINCOLL_OK) return a;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        (void)poll(&p, 1, 60000);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "eventloop") != 0 && strcmp(argv[1], "wait") != 0)) {
        fprintf(stderr, "usage: sleep_kill eventloop|wait   (under lincoll-run --keep-going)\n");
        return 2;
    }
    int victim = lc_test_fork_victim("sleep_kill");
    double timeout = getenv("LINCOLL_TIMEOUT") ? atof(getenv("LINCOLL_TIMEOUT")) : 60.0;
    lincoll_context_t *ctx;
    lincoll_comm_t *world;
    lincoll_status_t st = lincoll_init(NULL, &ctx);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "sleep_kill: lincoll_init: %s\n", lincoll_strerror(st));
        return 1;
    }
    lincoll_comm_world(ctx, &world);
    int me = lincoll_comm_rank(world), P = lincoll_comm_size(world);
    size_t n = 4096;
    char *in = calloc((size_t)P, n), *out = calloc((size_t)P, n);
    lincoll_plan_t *plan;
    if (in == NULL || out == NULL ||
        lincoll_alltoall_init(world, in, out, n, 1, &plan) != LINCOLL_OK) {
        fprintf(stderr, "sleep_kill: setup failed\n");
        return 1;
    }
    for (int it = 0; it < 3; it++) {
        st = lincoll_start(plan);
        if (st == LINCOLL_OK) st = lincoll_wait(plan);
        if (st != LINCOLL_OK) {
            fprintf(stderr, "sleep_kill: rank %d: alltoall %d: %s\n", me, it, lincoll_strerror(st));
            return 1;
        }
    }
    if (victim) {
        struct timespec half = {0, 500000000L};
        nanosleep(&half, NULL);
        raise(SIGKILL);
    }
    long v0 = voluntary_switches();
    double t0 = now();
    st = lincoll_start(plan);
    if (st == LINCOLL_OK) {
        st = strcmp(argv[1], "eventloop") == 0 ? event_loop(ctx, plan) : lincoll_wait(plan);
    }
    double waited = now() - t0;
    long switches = voluntary_switches() - v0;
    int ok = st == LINCOLL_ERR_PEER_FAILED && waited < timeout / 3 && switches > 0;
    printf("sleep_kill: survivor rank %d (%s): %s after %.3f s (the victim died after 0.5 s; "
           "LINCOLL_TIMEOUT %.0f s, limit %.1f s), %ld voluntary context switches: %s\n",
           me, argv[1], lincoll_strerror(st), waited, timeout, timeout / 3, switches,
           ok ? "OK" : "FAILED");
    lincoll_plan_free(plan);
    double f0 = now();
    lincoll_status_t fst = lincoll_finalize(ctx);
    printf("sleep_kill: survivor rank %d: finalize returned %s after %.2f s\n", me,
           lincoll_strerror(fst), now() - f0);
    free(in);
    free(out);
    return ok ? 0 : 1;
}
