/*
 * test/reliability/fail_trial.c: one randomized peer-failure trial over UCX.
 *
 * Run under `lincoll-run --keep-going -n P`.  Every rank runs back-to-back
 * operations of one kind (LC_TRIAL_OP: alltoall, ring_shift, allreduce,
 * reduce_scatter, allgather, bcast, reduce) and checks every result.  The
 * victim rank (LC_TRIAL_VICTIM) forks: the child is the rank, and a timer
 * with a random delay (LC_TRIAL_SEED) delivers LC_TRIAL_SIG (KILL or STOP) to
 * it in the middle of whatever it is doing; the parent waits for it, SIGKILLs
 * a frozen child once the survivors have had LINCOLL_TIMEOUT + 4 s to notice,
 * and exits 0 so lincoll-run keeps the survivors running.
 *
 * A survivor passes when its pending operation ended with
 * LINCOLL_ERR_PEER_FAILED or LINCOLL_ERR_TIMEOUT within LINCOLL_TIMEOUT +
 * LC_TRIAL_SLACK seconds of its last success, no completed operation
 * delivered a wrong result, and lincoll_finalize() returned within a bound.
 * LC_TRIAL_DELAY_MS / LC_TRIAL_START_SLEEP_MS pin the moment (see main).
 * Output: one "TRIAL survivor ..." line per survivor (the driver parses it).
 */
#include <lincoll/coll.h>
#include <lincoll/lincoll.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int trial_sig = SIGKILL;

static void on_alarm(int sig)
{
    (void)sig;
    raise(trial_sig);
}

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v != NULL && *v != '\0' ? v : dflt;
}

/* Value of element i of rank r's input in iteration it (small integers so
 * int64 sums are exact). */
static int64_t val(int r, size_t i, long it)
{
    return (int64_t)((r * 7919 + (long)i * 31 + it * 17) % 1000);
}

typedef struct trial {
    const char *op;
    int me, P;
    size_t count; /* elements (int64) per block */
    int64_t *in, *out;
    lincoll_plan_t *plan;
} trial_t;

static void fill(trial_t *t, long it)
{
    size_t n = t->count * (size_t)t->P;
    for (size_t i = 0; i < n; i++)
        t->in[i] = val(t->me, i, it);
    memset(t->out, 0xa5, n * sizeof(int64_t));
}

/* 0 when the result of iteration it is right. */
static int check(trial_t *t, long it)
{
    size_t c = t->count;
    int P = t->P, me = t->me;
    if (strcmp(t->op, "alltoall") == 0) {
        for (int j = 0; j < P; j++)
            for (size_t i = 0; i < c; i++)
                if (t->out[(size_t)j * c + i] != val(j, (size_t)me * c + i, it)) return -1;
    } else if (strcmp(t->op, "ring_shift") == 0) {
        int src = (me - 1 + P) % P;
        for (size_t i = 0; i < c; i++)
            if (t->out[i] != val(src, i, it)) return -1;
    } else if (strcmp(t->op, "allreduce") == 0) {
        for (size_t i = 0; i < c; i++) {
            int64_t s = 0;
            for (int r = 0; r < P; r++)
                s += val(r, i, it);
            if (t->out[i] != s) return -1;
        }
    } else if (strcmp(t->op, "reduce_scatter") == 0) {
        for (size_t i = 0; i < c; i++) {
            int64_t s = 0;
            for (int r = 0; r < P; r++)
                s += val(r, (size_t)me * c + i, it);
            if (t->out[i] != s) return -1;
        }
    } else if (strcmp(t->op, "allgather") == 0) {
        for (int j = 0; j < P; j++)
            for (size_t i = 0; i < c; i++)
                if (t->out[(size_t)j * c + i] != val(j, i, it)) return -1;
    } else if (strcmp(t->op, "bcast") == 0) {
        /* in place on `in`: everybody ends with root 0's data */
        for (size_t i = 0; i < c; i++)
            if (t->in[i] != val(0, i, it)) return -1;
    } else if (strcmp(t->op, "reduce") == 0) {
        if (me == 0) {
            for (size_t i = 0; i < c; i++) {
                int64_t s = 0;
                for (int r = 0; r < P; r++)
                    s += val(r, i, it);
                if (t->out[i] != s) return -1;
            }
        }
    }
    return 0;
}

static lincoll_status_t make_plan(trial_t *t, lincoll_comm_t *comm)
{
    size_t c = t->count, b = c * sizeof(int64_t);
    const char *op = t->op;
    if (strcmp(op, "alltoall") == 0)
        return lincoll_alltoall_init(comm, t->in, t->out, b, 0, &t->plan);
    if (strcmp(op, "ring_shift") == 0)
        return lincoll_ring_shift_init(comm, t->in, t->out, b, 1, &t->plan);
    if (strcmp(op, "allreduce") == 0)
        return lincoll_allreduce_init(comm, t->in, t->out, c, LINCOLL_INT64, LINCOLL_SUM, &t->plan);
    if (strcmp(op, "reduce_scatter") == 0)
        return lincoll_reduce_scatter_init(comm, t->in, t->out, c, LINCOLL_INT64, LINCOLL_SUM,
                                           &t->plan);
    if (strcmp(op, "allgather") == 0)
        return lincoll_allgather_init(comm, t->in, t->out, c, LINCOLL_INT64, &t->plan);
    if (strcmp(op, "bcast") == 0)
        return lincoll_bcast_init(comm, t->in, c, LINCOLL_INT64, 0, &t->plan);
    if (strcmp(op, "reduce") == 0)
        return lincoll_reduce_init(comm, t->in, t->out, c, LINCOLL_INT64, LINCOLL_SUM, 0, &t->plan);
    fprintf(stderr, "fail_trial: unknown LC_TRIAL_OP %s\n", op);
    return LINCOLL_ERR_INVALID;
}

/* The victim's parent: wait for the child, unfreeze nothing, leave no process. */
static int victim_parent(pid_t child, int sig, double timeout)
{
    int status;
    pid_t w = waitpid(child, &status, WUNTRACED);
    if (w == child && WIFSTOPPED(status)) {
        printf("TRIAL victim frozen by SIGSTOP\n");
        fflush(stdout);
        usleep((useconds_t)((timeout + 4.0) * 1e6));
        kill(child, SIGKILL);
        w = waitpid(child, &status, 0);
        return (w == child && WIFSIGNALED(status)) ? 0 : 1;
    }
    if (w == child && WIFSIGNALED(status) && WTERMSIG(status) == sig) {
        printf("TRIAL victim died by SIG%s\n", sig == SIGKILL ? "KILL" : "?");
        return 0;
    }
    /* The child finished without being hit (the timer came too late): the
     * trial is void, not a failure of the library. */
    printf("TRIAL victim not hit (status 0x%x)\n", (unsigned)status);
    return 0;
}

int main(void)
{
    const char *op = env_or("LC_TRIAL_OP", "alltoall");
    const char *sig_name = env_or("LC_TRIAL_SIG", "KILL");
    unsigned seed = (unsigned)strtoul(env_or("LC_TRIAL_SEED", "1"), NULL, 10);
    int victim = atoi(env_or("LC_TRIAL_VICTIM", "1"));
    double slack = atof(env_or("LC_TRIAL_SLACK", "10"));
    double timeout = atof(env_or("LINCOLL_TIMEOUT", "60"));
    int rank = atoi(env_or("LINCOLL_RANK", "0"));
    trial_sig = strcmp(sig_name, "STOP") == 0 ? SIGSTOP : SIGKILL;
    srand(seed * 2654435761u + 12345u);
    size_t count = (rand() % 2) ? 8 : 32768; /* 64 B or 256 KiB blocks: eager and rendezvous */
    unsigned delay_ms = 20 + (unsigned)(rand() % 400);
    /* LC_TRIAL_DELAY_MS=0: the victim dies as soon as its plan exists, and
     * survivors start LC_TRIAL_START_SLEEP_MS later (a peer dead before the
     * first message, i.e. before any endpoint to it was created). */
    if (getenv("LC_TRIAL_DELAY_MS") != NULL) delay_ms = (unsigned)atoi(getenv("LC_TRIAL_DELAY_MS"));
    unsigned start_sleep_ms = (unsigned)atoi(env_or("LC_TRIAL_START_SLEEP_MS", "0"));
    int is_victim = rank == victim;

    if (is_victim) {
        pid_t child = fork();
        if (child < 0) {
            perror("fork");
            return 1;
        }
        if (child > 0) return victim_parent(child, trial_sig, timeout);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
    }

    lincoll_context_t *ctx;
    lincoll_comm_t *world;
    lincoll_status_t st = lincoll_init(NULL, &ctx);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "fail_trial: lincoll_init: %s\n", lincoll_strerror(st));
        return 1;
    }
    lincoll_comm_world(ctx, &world);
    trial_t t = {
        .op = op, .me = lincoll_comm_rank(world), .P = lincoll_comm_size(world), .count = count};
    t.in = malloc(count * (size_t)t.P * sizeof(int64_t));
    t.out = malloc(count * (size_t)t.P * sizeof(int64_t));
    if (t.in == NULL || t.out == NULL || (st = make_plan(&t, world)) != LINCOLL_OK) {
        fprintf(stderr, "fail_trial: plan %s: %s\n", op, lincoll_strerror(st));
        return 1;
    }
    if (is_victim && delay_ms == 0) {
        raise(trial_sig);
    } else if (is_victim) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_alarm;
        sigaction(SIGALRM, &sa, NULL);
        struct itimerval it = {
            .it_value = {.tv_sec = delay_ms / 1000, .tv_usec = (delay_ms % 1000) * 1000}};
        setitimer(ITIMER_REAL, &it, NULL);
    }
    if (!is_victim && start_sleep_ms > 0) usleep(start_sleep_ms * 1000u);
    double t0 = now(), last_ok = t0;
    long iter, wrong = 0;
    for (iter = 0; iter < 2000000; iter++) {
        fill(&t, iter);
        st = lincoll_start(t.plan);
        if (st == LINCOLL_OK) st = lincoll_wait(t.plan);
        if (st != LINCOLL_OK) break;
        if (check(&t, iter) != 0) wrong++;
        last_ok = now();
        if (is_victim && last_ok - t0 > 30.0) break; /* timer never fired: give up */
    }
    double waited = now() - last_ok;
    /* A leaf of a rooted reduce only sends: its eager sends complete locally
     * even when the root is dead or frozen, so it may run every iteration
     * without waiting on anyone.  That is not a hang; correct results are
     * required all the same. */
    int leaf_done = st == LINCOLL_OK && iter == 2000000 && strcmp(op, "reduce") == 0;
    int ok = (st == LINCOLL_ERR_PEER_FAILED || st == LINCOLL_ERR_TIMEOUT || leaf_done) &&
             (waited <= timeout + slack || leaf_done) && wrong == 0;
    lincoll_plan_free(t.plan);
    double f0 = now();
    lincoll_status_t fst = lincoll_finalize(ctx);
    double fin = now() - f0;
    /* finalize may wait for the frozen victim's store connection: the victim's
     * parent kills it LINCOLL_TIMEOUT + 4 s after the freeze. */
    int fin_ok = fin <= 2.0 * timeout + slack + 4.0;
    printf("TRIAL survivor rank=%d op=%s sig=%s count=%zu delay_ms=%u iter=%ld status=%s "
           "waited=%.2f wrong=%ld finalize=%s finalize_s=%.2f result=%s\n",
           t.me, op, sig_name, count, delay_ms, iter, lincoll_strerror(st), waited, wrong,
           lincoll_strerror(fst), fin, ok && fin_ok ? "OK" : "FAIL");
    free(t.in);
    free(t.out);
    return ok && fin_ok ? 0 : 1;
}
