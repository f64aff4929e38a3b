/*
 * test/embed/embed_cut.c: ranks that become unreachable, not dead, in the
 * middle of a run of encodes.  Every rank must return an error within the
 * timeout, lincoll_finalize must return within the timeout too, and a
 * pause shorter than the timeout must not be a failure at all.
 *
 * Rank mode (under a launcher: deploy/emucluster, lincoll-run):
 *   embed_cut [--seconds S] [--packet B] [--marker FILE]
 * loops "rank 0 broadcasts go / stop, then every rank runs one RS [N, N-2]
 * encode" for S seconds (default 30) or until a collective fails, then
 * finalizes and prints one line:
 *   embed_cut: RESULT rank=R iters=I status=S err_at=T last_ok=T fin_s=D fin=F (names)
 * (S, F: the lincoll_status_t of the last collective and of finalize; times
 * in CLOCK_REALTIME seconds, shared by every network namespace).
 * Rank 0 creates FILE once 3 encodes went through (the harness cuts then).
 *
 * Local mode (no root needed):
 *   embed_cut --local PAUSE [--timeout T]
 * serves a multi-job store itself (lincoll_store_start), forks 3 ranks that
 * join it (LINCOLL_BOOTSTRAP_STORE, params.timeout = T, default 5) and
 * stops the last one with SIGSTOP once encodes run: its process is alive,
 * its sockets open, it just does not answer.  PAUSE < T: it is continued
 * after PAUSE seconds and every rank must finish every encode with OK.
 * PAUSE >= T: the others must fail in [T - 0.5, T + 5] s after the stop and
 * finalize within 2 T + 3 s (a finalize barrier waits up to 2 T); then the
 * stopped rank is continued and must fail
 * and finalize within T + 5 s as well.  Every process is reaped (killed
 * after a deadline); exit 0 when every check passed.
 *
 * Member mode (what local mode execs; also test/embed/store_program.sh):
 *   embed_cut --member R --store HOST:PORT [--job NAME] [--secret S]
 *             [--seconds S] [--timeout T] [--result-fd FD]
 * rank R of 3 joining the store's job NAME (default "cut", secret
 * "embed-cut"), as rank mode otherwise.
 */
#include <lincoll/encode.h>
#include <lincoll/lincoll.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct result {
    int rank;
    long iters;
    lincoll_status_t status;
    double err_at, last_ok, fin_s;
    lincoll_status_t fin;
} result_t;

static void run_rank(lincoll_context_t *ctx, double seconds, size_t packet, const char *marker,
                     result_t *r)
{
    lincoll_comm_t *w;
    lincoll_comm_world(ctx, &w);
    int me = lincoll_comm_rank(w), N = lincoll_comm_size(w), k = N > 2 ? N - 2 : 1;
    r->rank = me;
    lincoll_field_t *gf;
    lincoll_gf_field_create(256, &gf);
    uint8_t *in = malloc(packet), *out = malloc(packet);
    for (size_t i = 0; i < packet; i++)
        in[i] = (uint8_t)(i * 31 + (size_t)me);
    lincoll_plan_t *enc = NULL, *go = NULL;
    uint8_t flag = 1;
    lincoll_status_t st = N > 1 ? lincoll_encode_rs_init(w, gf, k, LINCOLL_GF_RS_CAUCHY, NULL,
                                                         packet, in, out, NULL, &enc)
                                : LINCOLL_ERR_INVALID;
    if (st == LINCOLL_OK) st = lincoll_bcast_init(w, &flag, 1, LINCOLL_UINT8, 0, &go);
    double t0 = wall();
    r->last_ok = t0;
    while (st == LINCOLL_OK) {
        if (me == 0) flag = wall() - t0 < seconds;
        st = lincoll_start(go);
        if (st == LINCOLL_OK) st = lincoll_wait(go);
        if (st != LINCOLL_OK || !flag) break;
        st = lincoll_start(enc);
        if (st == LINCOLL_OK) st = lincoll_wait(enc);
        if (st != LINCOLL_OK) break;
        r->iters++;
        r->last_ok = wall();
        if (me == 0 && r->iters == 3 && marker != NULL) {
            int fd = open(marker, O_CREAT | O_WRONLY, 0644);
            if (fd >= 0) close(fd);
        }
    }
    r->status = st;
    r->err_at = st == LINCOLL_OK ? 0 : wall();
    lincoll_plan_free(enc);
    lincoll_plan_free(go);
    lincoll_gf_field_destroy(gf);
    free(in);
    free(out);
    double f0 = wall();
    r->fin = lincoll_finalize(ctx);
    r->fin_s = wall() - f0;
}

static void print_result(FILE *f, const result_t *r)
{
    fprintf(f,
            "embed_cut: RESULT rank=%d iters=%ld status=%d err_at=%.3f last_ok=%.3f fin_s=%.3f "
            "fin=%d (%s; finalize: %s)\n",
            r->rank, r->iters, (int)r->status, r->err_at, r->last_ok, r->fin_s, (int)r->fin,
            lincoll_strerror(r->status), lincoll_strerror(r->fin));
    fflush(f);
}

static int fails;
#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "embed_cut: FAIL: " __VA_ARGS__);                                      \
            fprintf(stderr, "\n");                                                                 \
            fails++;                                                                               \
        }                                                                                          \
    } while (0)

#define NR 3

static int local_mode(const char *self, double pause_s, double T)
{
    lincoll_store_t *store;
    lincoll_store_params_t sp = {.host = "127.0.0.1", .secret = "embed-cut", .idle_timeout = 30};
    if (lincoll_store_start(&sp, &store) != LINCOLL_OK) return 1;
    char addr[64], marker[64];
    snprintf(addr, sizeof(addr), "127.0.0.1:%d", lincoll_store_port(store));
    snprintf(marker, sizeof(marker), "/tmp/embed_cut.%d.marker", (int)getpid());
    unlink(marker);
    int res[2];
    if (pipe(res) != 0) return 1;
    pid_t pid[NR];
    for (int i = 0; i < NR; i++) {
        fflush(NULL);
        pid[i] = fork();
        if (pid[i] == 0) {
            /* exec: a fork of this multi-threaded process (the store's thread)
             * may inherit locks held by that thread */
            close(res[0]);
            char a_rank[16], a_fd[16], a_t[32], a_s[32];
            snprintf(a_rank, sizeof(a_rank), "%d", i);
            snprintf(a_fd, sizeof(a_fd), "%d", res[1]);
            snprintf(a_t, sizeof(a_t), "%g", T);
            snprintf(a_s, sizeof(a_s), "%g", pause_s < T ? pause_s + T : 60);
            execl(self, self, "--member", a_rank, "--store", addr, "--timeout", a_t, "--seconds",
                  a_s, "--marker", marker, "--result-fd", a_fd, (char *)NULL);
            _exit(127);
        }
    }
    close(res[1]);
    double dl = wall() + 60;
    while (access(marker, F_OK) != 0 && wall() < dl)
        usleep(10000);
    CHECK(access(marker, F_OK) == 0, "the encodes never got going");
    usleep(300000);
    const int victim = NR - 1;
    double t_cut = wall(), t_cont = 0;
    kill(pid[victim], SIGSTOP);
    printf("embed_cut: rank %d stopped for %s %.1f s (timeout %.1f s)\n", victim,
           pause_s < T ? "" : "at least", pause_s, T);
    fflush(stdout);
    int status[NR], left = NR;
    for (int i = 0; i < NR; i++)
        status[i] = -1;
    if (pause_s < T) {
        usleep((useconds_t)(pause_s * 1e6));
        t_cont = wall();
        kill(pid[victim], SIGCONT);
    }
    dl = wall() + 3 * T + 60;
    while (left > 0 && wall() < dl) {
        for (int i = 0; i < NR; i++) {
            if (status[i] == -1 && waitpid(pid[i], &status[i], WNOHANG) == pid[i]) left--;
        }
        if (t_cont == 0 && status[0] != -1 && status[1] != -1) {
            t_cont = wall(); /* the survivors are done: let the stopped rank run again */
            kill(pid[victim], SIGCONT);
        }
        usleep(10000);
    }
    for (int i = 0; i < NR; i++) {
        if (status[i] == -1) {
            CHECK(0, "rank %d still running at the deadline: killed", i);
            kill(pid[i], SIGKILL);
            waitpid(pid[i], &status[i], 0);
        }
    }
    FILE *f = fdopen(res[0], "r");
    result_t r[NR];
    int got = 0;
    char line[512];
    while (got < NR && fgets(line, sizeof(line), f) != NULL) {
        result_t x = {0};
        int s1, s2;
        if (sscanf(line,
                   "embed_cut: RESULT rank=%d iters=%ld status=%d err_at=%lf last_ok=%lf "
                   "fin_s=%lf fin=%d",
                   &x.rank, &x.iters, &s1, &x.err_at, &x.last_ok, &x.fin_s, &s2) == 7 &&
            x.rank >= 0 && x.rank < NR) {
            x.status = (lincoll_status_t)s1;
            x.fin = (lincoll_status_t)s2;
            r[x.rank] = x;
            got++;
        }
    }
    fclose(f);
    unlink(marker);
    lincoll_store_stop(store);
    CHECK(got == NR, "%d of %d ranks reported", got, NR);
    if (got < NR) return 1;
    if (pause_s < T) {
        for (int i = 0; i < NR; i++) {
            CHECK(r[i].status == LINCOLL_OK && r[i].fin == LINCOLL_OK,
                  "rank %d failed although the pause (%.1f s) was shorter than the timeout", i,
                  pause_s);
            CHECK(r[i].iters == r[0].iters, "rank %d ran %ld encodes, rank 0 %ld", i, r[i].iters,
                  r[0].iters);
        }
        CHECK(r[0].iters > 3, "only %ld encodes", r[0].iters);
        printf("embed_cut: a %.1f s pause under a %.1f s timeout: every rank ran %ld encodes "
               "and finalized ok\n",
               pause_s, T, r[0].iters);
    } else {
        for (int i = 0; i < NR; i++) {
            double since = i == victim ? r[i].err_at - t_cont : r[i].err_at - t_cut;
            CHECK(r[i].status != LINCOLL_OK, "rank %d: no error", i);
            if (i != victim) {
                CHECK(since >= T - 0.5 && since <= T + 5,
                      "rank %d failed %.2f s after the stop (timeout %.1f s)", i, since, T);
                CHECK(r[i].fin_s <= 2 * T + 3, "rank %d: finalize took %.2f s (timeout %.1f s)", i,
                      r[i].fin_s, T);
            } else {
                CHECK(since <= T + 5 && r[i].fin_s <= T + 5,
                      "the stopped rank failed %.2f s after SIGCONT, finalize %.2f s", since,
                      r[i].fin_s);
            }
            printf("embed_cut: rank %d: %s %.2f s after the %s, finalize %.2f s\n", i,
                   i == victim ? "failed" : "failed", since, i == victim ? "SIGCONT" : "SIGSTOP",
                   r[i].fin_s);
        }
    }
    for (int i = 0; i < NR; i++)
        CHECK(WIFEXITED(status[i]) && WEXITSTATUS(status[i]) == 0, "rank %d: exit status 0x%x", i,
              status[i]);
    printf("embed_cut: %s\n", fails ? "FAILED" : "every check passed");
    return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
    double seconds = 30, T = 5, pause_s = -1;
    size_t packet = 256 << 10;
    const char *marker = NULL, *store = NULL, *job = "cut", *secret = "embed-cut";
    int member = -1, result_fd = -1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seconds"))
            seconds = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--packet"))
            packet = (size_t)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--marker"))
            marker = argv[i + 1];
        else if (!strcmp(argv[i], "--local"))
            pause_s = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--timeout"))
            T = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--member"))
            member = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--store"))
            store = argv[i + 1];
        else if (!strcmp(argv[i], "--result-fd"))
            result_fd = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--job"))
            job = argv[i + 1];
        else if (!strcmp(argv[i], "--secret"))
            secret = argv[i + 1];
        else {
            fprintf(stderr, "embed_cut: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    signal(SIGPIPE, SIG_IGN);
    if (pause_s >= 0) return local_mode("/proc/self/exe", pause_s, T);
    if (member >= 0) {
        /* one rank of local mode, exec'd by it */
        lincoll_init_params_t p = {.bootstrap = LINCOLL_BOOTSTRAP_STORE,
                                   .rank = member,
                                   .size = NR,
                                   .timeout = T,
                                   .store_addr = store,
                                   .store_secret = secret,
                                   .store_job = job,
                                   .bootstrap_timeout = 30};
        lincoll_context_t *ctx;
        result_t r = {.rank = member};
        r.status = lincoll_init(&p, &ctx);
        if (r.status == LINCOLL_OK) run_rank(ctx, seconds, packet, marker, &r);
        FILE *f = result_fd >= 0 ? fdopen(result_fd, "w") : NULL;
        if (f != NULL) {
            print_result(f, &r);
            fclose(f);
        }
        print_result(stdout, &r);
        return 0;
    }
    lincoll_context_t *ctx;
    result_t r = {.rank = -1};
    r.status = lincoll_init(NULL, &ctx);
    if (r.status != LINCOLL_OK) {
        print_result(stdout, &r);
        return 1;
    }
    run_rank(ctx, seconds, packet, marker, &r);
    print_result(stdout, &r);
    return 0;
}
