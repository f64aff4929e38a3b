/*
 * test/reliability/fail_trial.c: one randomized peer-failure trial over UCX.
 *
 * Run under `lincoll-run --keep-going -n P`.  Every rank runs back-to-back
 * operations of one kind (LC_TRIAL_OP: alltoall, ring_shift, allreduce,
 * reduce_scatter, allgather, bcast, reduce; encode_ps: prepare-and-shoot
 * all-to-all encode of a dense P x P matrix over GF(2^8); encode_rs: a
 * systematic [P, k] Reed-Solomon encode; matmul_summa: SUMMA on the most
 * square grid of P ranks; matmul_ring: the 1D ring on P x 1) and checks
 * every result.  The
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
#include <lincoll/encode.h>
#include <lincoll/lincoll.h>
#include <lincoll/matmul.h>

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
    /* encode: GF(2^8), P x P matrix A[j][k] (encode_ps) or N x k generator (encode_rs) */
    lincoll_field_t *field;
    uint64_t *coef;
    int rs_k;
    size_t packet; /* bytes */
    /* matmul: D x D x D doubles, block distribution on a pr x pc grid */
    int64_t D;
    lincoll_matdesc_t da, db, dc;
    double *A, *B, *C;
} trial_t;

static int is_encode(const trial_t *t)
{
    return strncmp(t->op, "encode_", 7) == 0;
}

static int is_matmul(const trial_t *t)
{
    return strncmp(t->op, "matmul_", 7) == 0;
}

/* encode: byte e of rank j's packet; matmul: global A and B entries (small
 * integers: every double sum is exact) */
static uint8_t xbyte(int j, size_t e, long it)
{
    return (uint8_t)((j * 31 + (long)e * 7 + it * 13 + (long)(e >> 8)) & 0xff);
}

static double aval(int64_t i, int64_t k, long it)
{
    return (double)((i * 3 + k * 5 + it) % 7);
}

static double bval(int64_t k, int64_t j, long it)
{
    return (double)((k * 2 + j * 7 + 2 * it) % 5);
}

/* global index of local row li / column lj of descriptor d on this rank */
static int64_t grow(const lincoll_matdesc_t *d, int pi, int64_t li)
{
    return ((li / d->mb) * d->pr + pi) * d->mb + li % d->mb;
}

static int64_t gcol(const lincoll_matdesc_t *d, int pj, int64_t lj)
{
    return ((lj / d->nb) * d->pc + pj) * d->nb + lj % d->nb;
}

/* visit every local entry (li, lj) -> (gi, gj), column-major with ld */
#define FOR_LOCAL(_d, _me, _body)                                                                  \
    do {                                                                                           \
        int64_t _rows, _cols, ld;                                                                  \
        int _pi, _pj;                                                                              \
        lincoll_matdesc_local((_d), (_me), &_rows, &_cols, &ld);                                   \
        lincoll_matdesc_coords((_d), (_me), &_pi, &_pj, NULL);                                     \
        for (int64_t lj = 0; lj < _cols; lj++)                                                     \
            for (int64_t li = 0; li < _rows; li++) {                                               \
                int64_t gi = grow((_d), _pi, li), gj = gcol((_d), _pj, lj);                        \
                size_t at = (size_t)(li + lj * ld);                                                \
                (void)gi, (void)gj;                                                                \
                _body;                                                                             \
            }                                                                                      \
    } while (0)

static void fill(trial_t *t, long it)
{
    size_t n = t->count * (size_t)t->P;
    if (is_encode(t)) {
        uint8_t *in = (uint8_t *)t->in;
        for (size_t e = 0; e < t->packet; e++)
            in[e] = xbyte(t->me, e, it);
        memset(t->out, 0xa5, t->packet);
        return;
    }
    if (is_matmul(t)) {
        FOR_LOCAL(&t->da, t->me, t->A[at] = aval(gi, gj, it));
        FOR_LOCAL(&t->db, t->me, t->B[at] = bval(gi, gj, it));
        FOR_LOCAL(&t->dc, t->me, t->C[at] = -1.0);
        return;
    }
    for (size_t i = 0; i < n; i++)
        t->in[i] = val(t->me, i, it);
    memset(t->out, 0xa5, n * sizeof(int64_t));
}

static int check_encode(trial_t *t, long it)
{
    const uint8_t *out = (const uint8_t *)t->out;
    int rs = strcmp(t->op, "encode_rs") == 0;
    if (rs && t->me < t->rs_k) return 0; /* data ranks get no parity */
    int nsrc = rs ? t->rs_k : t->P;
    /* every byte of a small packet, a sample of a large one */
    size_t step = t->packet > 4096 ? 61 : 1;
    for (size_t e = 0; e < t->packet; e += step) {
        uint64_t acc = 0;
        for (int j = 0; j < nsrc; j++) {
            uint64_t c = rs ? t->coef[t->me * t->rs_k + j] : t->coef[j * t->P + t->me];
            acc = lincoll_gf_add(t->field, acc, lincoll_gf_mul(t->field, c, xbyte(j, e, it)));
        }
        if (out[e] != acc) return -1;
    }
    return 0;
}

static int check_matmul(trial_t *t, long it)
{
    int bad = 0;
    FOR_LOCAL(&t->dc, t->me, {
        double s = 0;
        for (int64_t k = 0; k < t->D; k++)
            s += aval(gi, k, it) * bval(k, gj, it);
        bad |= t->C[at] != s;
    });
    return bad ? -1 : 0;
}

/* 0 when the result of iteration it is right. */
static int check(trial_t *t, long it)
{
    size_t c = t->count;
    int P = t->P, me = t->me;
    if (is_encode(t)) return check_encode(t, it);
    if (is_matmul(t)) return check_matmul(t, it);
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
    if (is_encode(t)) {
        int P = t->P, rs = strcmp(op, "encode_rs") == 0;
        lincoll_status_t st = lincoll_gf_field_create(256, &t->field);
        if (st != LINCOLL_OK) return st;
        t->packet = b;
        t->rs_k = P >= 4 ? P - 2 : 1;
        t->coef = calloc((size_t)P * (size_t)P, sizeof(uint64_t));
        if (t->coef == NULL) return LINCOLL_ERR_NOMEM;
        if (rs) { /* N x k generator: identity on top, parity rows below */
            for (int r = 0; r < P; r++)
                for (int j = 0; j < t->rs_k; j++)
                    t->coef[r * t->rs_k + j] =
                        r < t->rs_k ? (uint64_t)(r == j) : 1 + (uint64_t)((r * 5 + j * 3) % 255);
            return lincoll_encode_rs_init(comm, t->field, t->rs_k, LINCOLL_GF_RS_VANDERMONDE,
                                          t->coef, b, t->in, t->out, NULL, &t->plan);
        }
        for (int j = 0; j < P * P; j++)
            t->coef[j] = 1 + (uint64_t)((j * 7 + 13) % 255); /* dense, non-zero */
        lincoll_encode_opts_t o = {.algo = LINCOLL_ENCODE_ALGO_PREPARE_SHOOT};
        return lincoll_encode_init(comm, t->field, t->coef, P, P, b, t->in, t->out, &o, &t->plan);
    }
    if (is_matmul(t)) {
        int ring = strcmp(op, "matmul_ring") == 0, P = t->P;
        int pr = P, pc = 1;
        if (!ring) { /* the most square grid */
            for (int r = 1; r * r <= P; r++)
                if (P % r == 0) pr = r, pc = P / r;
        }
        t->D = c == 8 ? 12 : 160; /* small messages or rendezvous-size panels */
        int64_t D = t->D;
        lincoll_status_t st = lincoll_matdesc_block(&t->da, D, D, pr, pc, 1, LINCOLL_COL_MAJOR);
        if (st == LINCOLL_OK)
            st = lincoll_matdesc_block(&t->db, D, D, pr, pc, 1, LINCOLL_COL_MAJOR);
        if (st == LINCOLL_OK)
            st = lincoll_matdesc_block(&t->dc, D, D, pr, pc, 1, LINCOLL_COL_MAJOR);
        if (st != LINCOLL_OK) return st;
        if (ring) t->da.nb = D, t->db.nb = D, t->dc.nb = D;
        size_t n = (size_t)(D * D); /* >= any local array */
        t->A = calloc(n, sizeof(double));
        t->B = calloc(n, sizeof(double));
        t->C = calloc(n, sizeof(double));
        if (t->A == NULL || t->B == NULL || t->C == NULL) return LINCOLL_ERR_NOMEM;
        lincoll_matmul_opts_t o = {.algo = ring ? LINCOLL_MATMUL_RING : LINCOLL_MATMUL_SUMMA};
        return lincoll_matmul_init(comm, LINCOLL_DOUBLE, 1.0, t->A, &t->da, t->B, &t->db, 0.0, t->C,
                                   &t->dc, &o, &t->plan);
    }
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
     * without waiting on anyone (so may a data rank of the RS encode, whose
     * packets only leave).  That is not a hang; correct results are
     * required all the same. */
    int leaf_done = st == LINCOLL_OK && iter == 2000000 &&
                    (strcmp(op, "reduce") == 0 || strcmp(op, "encode_rs") == 0);
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
    free(t.coef);
    free(t.A);
    free(t.B);
    free(t.C);
    lincoll_gf_field_destroy(t.field);
    return ok && fin_ok ? 0 : 1;
}
