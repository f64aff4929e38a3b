/*
 * test/integration/shrink_ucx.c: going on with the survivors.  Run under
 * `lincoll-run --keep-going -n N` (N >= 4).
 *
 * Before the failure every rank runs an allreduce on the world and on a
 * "pair" communicator (ranks 2i, 2i+1).  Then the victim, rank N-1, fails:
 *   SHRINK_MODE=kill   it dies by SIGKILL;
 *   SHRINK_MODE=stop   it stops (SIGSTOP: alive but silent, as behind a cut
 *                      link); after the survivors are done it is resumed
 *                      and must itself return from its calls within the
 *                      bounds below (it is dropped, or ends alone);
 *   SHRINK_MODE=kill2  as kill, and rank 1 dies too, 0-20 ms after it entered
 *                      lincoll_comm_shrink (a member lost during the
 *                      agreement; if the agreement ended first, rank 1
 *                      waits for the kill without sending, the group's
 *                      next operation fails and a second shrink must drop
 *                      it).
 * The survivors check:
 *   - the world allreduce after the failure fails (peer failed or timeout)
 *     within LINCOLL_TIMEOUT + slack;
 *   - lincoll_comm_shrink returns a communicator of exactly the survivors,
 *     in their old order (lincoll_comm_translate both ways), within
 *     3 x LINCOLL_TIMEOUT + slack, and every survivor got the same group
 *     (an allreduce of the member list's MIN and MAX on it agree);
 *   - an allreduce on it sums exactly the survivors' contributions;
 *   - a communicator without the victim (pair {0, 1} in kill/stop mode)
 *     still works, and buffers written before the failure are intact;
 *   - a shrink without failures keeps every member;
 *   - lincoll_finalize returns within 2 x LINCOLL_TIMEOUT + slack.
 * Each victim forks: the child is the rank, the parent only watches it (and
 * resumes a stopped child once the survivors are done, then checks that it
 * exits by itself), so lincoll-run keeps the survivors running.
 */
#include <lincoll/lincoll.h>

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N_ELEM 4096

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int fails;
#define CHECK(_c, ...)                                                                             \
    do {                                                                                           \
        if (!(_c)) {                                                                               \
            fprintf(stderr, "shrink_ucx: rank %d: FAILED %s: ", g_rank, #_c);                      \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            fails++;                                                                               \
        }                                                                                          \
    } while (0)

static int g_rank = -1;

static void done_file(char *buf, size_t len, pid_t launcher)
{
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(buf, len, "%s/lincoll-shrink-test-%ld.done", tmp, (long)launcher);
}

/* The victim's parent: watch the rank; in stop mode resume it once the
 * survivors are done and give it `bound` seconds to exit by itself. */
static int watch(pid_t child, int stop, double bound)
{
    int status;
    if (!stop) {
        waitpid(child, &status, 0);
        int died = WIFSIGNALED(status);
        printf("shrink_ucx: victim %s\n", died ? "died as planned" : "did not die");
        return died ? 0 : 1;
    }
    if (waitpid(child, &status, WUNTRACED) < 0 || !WIFSTOPPED(status)) {
        printf("shrink_ucx: victim did not stop\n");
        return 1;
    }
    char path[512];
    done_file(path, sizeof path, getppid());
    double t0 = now();
    while (access(path, F_OK) != 0 && now() - t0 < bound * 3)
        usleep(100000);
    printf("shrink_ucx: survivors %s after %.1f s; resuming the victim\n",
           access(path, F_OK) == 0 ? "done" : "NOT done", now() - t0);
    kill(child, SIGCONT);
    t0 = now();
    for (;;) {
        pid_t w = waitpid(child, &status, WNOHANG);
        if (w == child && WIFEXITED(status)) {
            printf("shrink_ucx: resumed victim exited with %d after %.1f s\n", WEXITSTATUS(status),
                   now() - t0);
            unlink(path);
            return WEXITSTATUS(status);
        }
        if (w == child && WIFSIGNALED(status)) {
            printf("shrink_ucx: resumed victim died by signal %d\n", WTERMSIG(status));
            unlink(path);
            return 1;
        }
        if (now() - t0 > bound) {
            printf("shrink_ucx: resumed victim still running after %.0f s: killed\n", bound);
            kill(child, SIGKILL);
            waitpid(child, &status, 0);
            unlink(path);
            return 1;
        }
        usleep(100000);
    }
}

static void *die_soon(void *arg)
{
    (void)arg;
    srand((unsigned)getpid());
    usleep((useconds_t)(rand() % 20000));
    raise(SIGKILL);
    return NULL;
}

static void fill(double *v, int who)
{
    for (int i = 0; i < N_ELEM; i++)
        v[i] = (double)(who + 1) * 1000.0 + (double)i;
}

int main(void)
{
    const char *mode = getenv("SHRINK_MODE") ? getenv("SHRINK_MODE") : "kill";
    int stop = strcmp(mode, "stop") == 0, kill2 = strcmp(mode, "kill2") == 0;
    double T = getenv("LINCOLL_TIMEOUT") ? atof(getenv("LINCOLL_TIMEOUT")) : 60.0;
    int wrank = getenv("LINCOLL_RANK") ? atoi(getenv("LINCOLL_RANK")) : 0;
    int wsize = getenv("LINCOLL_SIZE") ? atoi(getenv("LINCOLL_SIZE")) : 1;
    if (wsize < 4) {
        fprintf(stderr, "shrink_ucx: needs at least 4 ranks (got %d)\n", wsize);
        return 1;
    }
    int victim = wsize - 1, victim2 = kill2 ? 1 : -1;
    if (wrank == victim || wrank == victim2) {
        pid_t child = fork();
        if (child < 0) {
            perror("fork");
            return 1;
        }
        if (child > 0) return watch(child, stop, 4 * T + 30);
    }
    lincoll_context_t *ctx;
    lincoll_comm_t *world, *pair;
    if (lincoll_init(NULL, &ctx) != LINCOLL_OK) return 1;
    lincoll_comm_world(ctx, &world);
    int me = lincoll_comm_rank(world), P = lincoll_comm_size(world);
    g_rank = me;
    double *in = malloc(N_ELEM * sizeof(double)), *out = malloc(N_ELEM * sizeof(double));
    double *keep = malloc(N_ELEM * sizeof(double));
    fill(in, me);
    fill(keep, me + 100);
    lincoll_status_t st = lincoll_comm_split(world, me / 2, me, &pair);
    CHECK(st == LINCOLL_OK, "split: %s", lincoll_strerror(st));
    st = lincoll_allreduce(world, in, out, N_ELEM, LINCOLL_DOUBLE, LINCOLL_SUM);
    CHECK(st == LINCOLL_OK && out[7] == (double)P * (P + 1) / 2 * 1000.0 + 7.0 * P,
          "world allreduce before the failure: %s", lincoll_strerror(st));
    st = lincoll_allreduce(pair, in, out, N_ELEM, LINCOLL_DOUBLE, LINCOLL_SUM);
    CHECK(st == LINCOLL_OK, "pair allreduce before the failure: %s", lincoll_strerror(st));

    /* a rank whose sends completed may still hold their bytes (tcp): the
     * victim fails only once everyone is past the allreduces above (a
     * dissemination barrier ends on a rank once every rank entered it);
     * the survivors' barrier may then fail or not */
    (void)lincoll_barrier(world);
    if (me == victim) {
        raise(stop ? SIGSTOP : SIGKILL);
    }
    /* the failure: the world allreduce cannot complete */
    double t0 = now();
    st = lincoll_allreduce(world, in, out, N_ELEM, LINCOLL_DOUBLE, LINCOLL_SUM);
    double t_fail = now() - t0;
    if (me == victim) {
        /* resumed after the survivors went on: whatever it gets, it must
         * return, and so must shrink and finalize */
        lincoll_comm_t *alone = NULL;
        t0 = now();
        lincoll_status_t s2 = lincoll_comm_shrink(world, &alone);
        printf("shrink_ucx: resumed victim: allreduce %s, shrink %s (%d members) after %.1f s\n",
               lincoll_strerror(st), lincoll_strerror(s2), alone ? lincoll_comm_size(alone) : 0,
               now() - t0);
        int ok =
            s2 == LINCOLL_ERR_PEER_FAILED || (s2 == LINCOLL_OK && lincoll_comm_size(alone) == 1);
        lincoll_comm_free(alone);
        lincoll_comm_free(pair);
        lincoll_finalize(ctx);
        free(in);
        free(out);
        free(keep);
        return ok ? 0 : 1;
    }
    CHECK(st == LINCOLL_ERR_PEER_FAILED || st == LINCOLL_ERR_TIMEOUT,
          "world allreduce after the failure returned %s", lincoll_strerror(st));
    CHECK(t_fail < T + 15, "world allreduce failed after %.1f s (timeout %.0f)", t_fail, T);

    if (me == victim2) {
        pthread_t th;
        pthread_create(&th, NULL, die_soon, NULL);
    }
    lincoll_comm_t *surv = NULL;
    t0 = now();
    st = lincoll_comm_shrink(world, &surv);
    double t_shrink = now() - t0;
    if (me == victim2) {
        /* the agreement ended before the kill: wait for it without sending.
         * A process killed while it writes a message into a peer's UCX
         * shared-memory FIFO leaves that FIFO blocked for good (the reader
         * waits on the element it reserved): the peer then hears no one
         * over shared memory, ends a shrink alone, and the others drop it
         * (docs/reliability.md).  Killed here, between calls, rank 1 fails
         * the others' next operation as a crash does. */
        for (;;)
            pause();
    }
    CHECK(st == LINCOLL_OK, "shrink: %s", lincoll_strerror(st));
    CHECK(t_shrink < 3 * T + 15, "shrink took %.1f s (timeout %.0f)", t_shrink, T);
    /* rank 1 may have died after the agreement ended: then the group still
     * has it; go on with it (every allreduce that succeeds must sum the
     * group exactly) until an operation fails and a shrink drops it */
    for (int round = 0;
         st == LINCOLL_OK && victim2 >= 0 && lincoll_comm_translate(world, victim2, surv) >= 0;
         round++) {
        CHECK(round < 10000, "rank %d still alive after %d operations", victim2, round);
        if (round >= 10000) break;
        double want = 0;
        for (int i = 0; i < lincoll_comm_size(surv); i++)
            want += (double)(lincoll_comm_translate(surv, i, world) + 1) * 1000.0 + 5.0;
        st = lincoll_allreduce(surv, in, out, N_ELEM, LINCOLL_DOUBLE, LINCOLL_SUM);
        if (st == LINCOLL_OK) {
            CHECK(out[5] == want, "allreduce with rank %d still in: %g vs %g", victim2, out[5],
                  want);
            continue;
        }
        CHECK(st == LINCOLL_ERR_PEER_FAILED || st == LINCOLL_ERR_TIMEOUT,
              "allreduce with a dead member returned %s", lincoll_strerror(st));
        printf("shrink_ucx: rank %d: rank %d died after the shrink (%d operations later); "
               "shrinking again\n",
               me, victim2, round);
        lincoll_comm_t *again = NULL;
        t0 = now();
        st = lincoll_comm_shrink(surv, &again);
        t_shrink = now() - t0;
        CHECK(st == LINCOLL_OK, "second shrink: %s", lincoll_strerror(st));
        CHECK(t_shrink < 3 * T + 15, "second shrink took %.1f s (timeout %.0f)", t_shrink, T);
        lincoll_comm_free(surv);
        surv = again;
    }
    int expect = P - 1 - (victim2 >= 0);
    if (st == LINCOLL_OK) {
        int n = lincoll_comm_size(surv);
        CHECK(n == expect, "shrink kept %d members, expected %d", n, expect);
        int k = 0;
        for (int r = 0; r < P; r++) {
            if (r == victim || r == victim2) {
                CHECK(lincoll_comm_translate(world, r, surv) == -1, "failed rank %d kept", r);
                continue;
            }
            CHECK(lincoll_comm_translate(world, r, surv) == k, "rank %d -> %d, expected %d", r,
                  lincoll_comm_translate(world, r, surv), k);
            CHECK(lincoll_comm_translate(surv, k, world) == r, "new rank %d -> %d", k,
                  lincoll_comm_translate(surv, k, world));
            k++;
        }
        /* the same group everywhere: MIN and MAX of a member-list code */
        int64_t code = 0;
        for (int i = 0; i < n; i++)
            code = code * 131 + lincoll_comm_translate(surv, i, world) + 1;
        int64_t lo, hi;
        st = lincoll_allreduce(surv, &code, &lo, 1, LINCOLL_INT64, LINCOLL_MIN);
        if (st == LINCOLL_OK)
            st = lincoll_allreduce(surv, &code, &hi, 1, LINCOLL_INT64, LINCOLL_MAX);
        CHECK(st == LINCOLL_OK && lo == code && hi == code, "groups differ: %s, %lld..%lld vs %lld",
              lincoll_strerror(st), (long long)lo, (long long)hi, (long long)code);
        st = lincoll_allreduce(surv, in, out, N_ELEM, LINCOLL_DOUBLE, LINCOLL_SUM);
        double want = 0;
        for (int r = 0; r < P; r++) {
            if (r != victim && r != victim2) want += (double)(r + 1) * 1000.0 + 5.0;
        }
        CHECK(st == LINCOLL_OK && out[5] == want, "survivors' allreduce: %s, %g vs %g",
              lincoll_strerror(st), out[5], want);
        /* a shrink with nobody failing keeps everyone */
        lincoll_comm_t *same = NULL;
        st = lincoll_comm_shrink(surv, &same);
        CHECK(st == LINCOLL_OK && lincoll_comm_size(same) == n, "second shrink: %s, %d members",
              lincoll_strerror(st), same ? lincoll_comm_size(same) : -1);
        if (st == LINCOLL_OK) {
            st = lincoll_allreduce(same, in, out, N_ELEM, LINCOLL_DOUBLE, LINCOLL_SUM);
            CHECK(st == LINCOLL_OK && out[5] == want, "allreduce after the second shrink: %s",
                  lincoll_strerror(st));
        }
        lincoll_comm_free(same);
    }
    /* another communicator of survivors only still works */
    if (!kill2 && me < 2) {
        st = lincoll_allreduce(pair, in, out, N_ELEM, LINCOLL_DOUBLE, LINCOLL_SUM);
        CHECK(st == LINCOLL_OK && out[3] == 3000.0 + 6.0, "pair {0,1} after the failure: %s",
              lincoll_strerror(st));
    }
    double ref[N_ELEM];
    fill(ref, me + 100);
    CHECK(memcmp(ref, keep, sizeof ref) == 0, "a buffer changed");
    printf("shrink_ucx: rank %d (%s): failure seen after %.2f s, shrink to %d members in %.2f s\n",
           me, mode, t_fail, surv ? lincoll_comm_size(surv) : 0, t_shrink);
    lincoll_comm_free(surv);
    lincoll_comm_free(pair);
    if (me == 0 && stop) {
        char path[512];
        done_file(path, sizeof path, getppid());
        FILE *f = fopen(path, "w");
        if (f) fclose(f);
    }
    t0 = now();
    st = lincoll_finalize(ctx);
    double t_fin = now() - t0;
    CHECK(t_fin < 2 * T + 15, "finalize took %.1f s", t_fin);
    printf("shrink_ucx: rank %d: finalize %s after %.2f s; %s\n", me, lincoll_strerror(st), t_fin,
           fails ? "FAILED" : "OK");
    free(in);
    free(out);
    free(keep);
    return fails ? 1 : 0;
}
