/*
 * test/bootstrap/test_lincoll_run.c: lincoll-run as a black box.  Each test
 * starts lincoll-run with run_helper ranks, captures its stdout and stderr,
 * and checks the exit status, the rank prefixes, and that no rank or
 * grandchild outlives it.  This process is a child subreaper so orphans come
 * back to it.  Every wait is bounded (a hung lincoll-run fails the test).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef LINCOLL_RUN
#error LINCOLL_RUN must name the lincoll-run binary
#endif

typedef struct run {
    pid_t pid;
    char out_path[64], err_path[64];
    char *out, *err;
    int status; /* exit code, or 128 + signal */
    double seconds;
} run_t;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *buf = calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Start lincoll-run with argv (NULL-terminated, without argv[0]). */
static void start(run_t *r, const char *const *args)
{
    memset(r, 0, sizeof(*r));
    strcpy(r->out_path, "/tmp/lr-test-out-XXXXXX");
    strcpy(r->err_path, "/tmp/lr-test-err-XXXXXX");
    int fo = mkstemp(r->out_path), fe = mkstemp(r->err_path);
    assert_true(fo >= 0 && fe >= 0);
    const char *argv[32] = {LINCOLL_RUN};
    int n = 1;
    while (args[n - 1] != NULL && n < 31) {
        argv[n] = args[n - 1];
        n++;
    }
    argv[n] = NULL;
    r->seconds = now();
    r->pid = fork();
    if (r->pid == 0) {
        dup2(fo, 1);
        dup2(fe, 2);
        execv(argv[0], (char *const *)argv);
        _exit(126);
    }
    close(fo);
    close(fe);
}

/* Wait (at most 120 s) for lincoll-run, then read what it printed. */
static void finish(run_t *r)
{
    int st = 0;
    double deadline = now() + 120;
    while (waitpid(r->pid, &st, WNOHANG) == 0) {
        if (now() > deadline) {
            kill(r->pid, SIGKILL);
            waitpid(r->pid, &st, 0);
            fail_msg("lincoll-run did not finish within 120 s");
        }
        usleep(10000);
    }
    r->seconds = now() - r->seconds;
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r->out = slurp(r->out_path);
    r->err = slurp(r->err_path);
    unlink(r->out_path);
    unlink(r->err_path);
}

static void run(run_t *r, const char *const *args)
{
    start(r, args);
    finish(r);
}

static void release(run_t *r)
{
    free(r->out);
    free(r->err);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/* Alive = exists and is not a zombie.  Zombies that were orphaned to this
 * subreaper are reaped on the way. */
static int alive(pid_t pid)
{
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
    char path[64], buf[256];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL) return 0;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    return p != NULL && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/* Every "pid=P gc=G" in the output names processes that must be gone. */
static void assert_nothing_left(const char *out, int expect_ready)
{
    int seen = 0;
    for (const char *p = out; (p = strstr(p, "ready pid=")) != NULL; p++) {
        int pid, gc;
        assert_int_equal(sscanf(p, "ready pid=%d gc=%d", &pid, &gc), 2);
        double deadline = now() + 10; /* SIGKILL delivery is asynchronous */
        while ((alive(pid) || alive(gc)) && now() < deadline)
            usleep(10000);
        if (alive(pid) || alive(gc)) {
            fail_msg("rank pid %d or its child %d outlived lincoll-run", pid, gc);
        }
        seen++;
    }
    assert_int_equal(seen, expect_ready);
}

static void test_usage(void **state)
{
    (void)state;
    run_t r;
    run(&r, (const char *[]){"-h", NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "--timeout"));
    assert_non_null(strstr(r.out, "--ports"));
    assert_non_null(strstr(r.out, "Exit status"));
    release(&r);
    static const char *const bad[][4] = {
        {"-n", "0", HELPER, NULL},
        {"-n", "x", HELPER, NULL},
        {"-n", "2", NULL},
        {HELPER, NULL},
        {"-n", "2", "--timeout", "-1"},
        {"--bogus", NULL},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        run(&r, bad[i]);
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.err, "lincoll-run"));
        release(&r);
    }
}

static void test_prefix_and_env(void **state)
{
    (void)state;
    run_t r;
    run(&r, (const char *[]){"-n", "3", "--", HELPER, "ok", NULL});
    assert_int_equal(r.status, 0);
    for (int i = 0; i < 3; i++) {
        char line[64];
        snprintf(line, sizeof(line), "[%d] out rank %d\n", i, i);
        assert_non_null(strstr(r.out, line));
        snprintf(line, sizeof(line), "[%d] part-a part-b\n", i);
        assert_non_null(strstr(r.out, line)); /* written in two pieces, one line */
        snprintf(line, sizeof(line), "[%d] no newline at the end\n", i);
        assert_non_null(strstr(r.out, line));
        snprintf(line, sizeof(line), "[%d] err rank %d\n", i, i);
        assert_non_null(strstr(r.err, line));
        assert_null(strstr(r.out, "err rank"));
    }
    /* every line carries a prefix: nothing interleaved mid-line */
    for (const char *p = r.out; *p; p = strchr(p, '\n') + 1) {
        assert_true(p[0] == '[' && p[2] == ']' && p[3] == ' ');
    }
    release(&r);
    run(&r, (const char *[]){"-n", "2", "--ports", "3", HELPER, "env", NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "[1] rank=1 size=2 kind=tcp ports=3 secret_len=64 "
                                  "bootstrap=127.0.0.1:"));
    assert_non_null(strstr(r.out, "[0] rank=0 size=2"));
    release(&r);
}

static void test_worst_status(void **state)
{
    (void)state;
    run_t r;
    /* nobody is stopped: the worst of 0, 3, 5, 1 */
    run(&r, (const char *[]){"-n", "4", "--keep-going", HELPER, "exit", "0", "3", "5", "1", NULL});
    assert_int_equal(r.status, 5);
    release(&r);
    run(&r, (const char *[]){"-n", "3", HELPER, "exit", "0", "0", "0", NULL});
    assert_int_equal(r.status, 0);
    release(&r);
    /* rank 1 exits with 3: the sleeping others are stopped and do not count */
    run(&r, (const char *[]){"-n", "3", HELPER, "exitsleep", "-", "3", "-", NULL});
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.err, "rank 1 (pid"));
    assert_non_null(strstr(r.err, "exited with status 3; stopping the other ranks"));
    assert_nothing_left(r.out, 3);
    release(&r);
}

static void test_crash_stops_others(void **state)
{
    (void)state;
    run_t r;
    run(&r, (const char *[]){"-n", "4", HELPER, "crash", "2", NULL});
    assert_int_equal(r.status, 128 + SIGSEGV);
    assert_non_null(strstr(r.err, "rank 2 (pid"));
    assert_non_null(strstr(r.err, "killed by signal 11 (SIGSEGV)"));
    assert_int_equal(count(r.err, "stopping the other ranks"), 1);
    assert_nothing_left(r.out, 4);
    release(&r);
}

static void test_timeout(void **state)
{
    (void)state;
    run_t r;
    run(&r, (const char *[]){"-n", "2", "--timeout", "1", HELPER, "sleep", NULL});
    assert_int_equal(r.status, 124);
    assert_non_null(strstr(r.err, "timeout"));
    assert_true(r.seconds >= 0.9 && r.seconds < 60);
    assert_nothing_left(r.out, 2);
    release(&r);
    /* ranks that ignore SIGTERM get SIGKILL after the grace period */
    run(&r, (const char *[]){"-n", "2", "--timeout", "1", "--grace", "0.5", HELPER, "ignore-term",
                             NULL});
    assert_int_equal(r.status, 124);
    assert_non_null(strstr(r.err, "did not stop within 0.5 s; SIGKILL"));
    assert_nothing_left(r.out, 2);
    release(&r);
}

static void test_signal_forwarding(void **state)
{
    (void)state;
    run_t r;
    start(&r, (const char *[]){"-n", "3", HELPER, "sleep", NULL});
    /* wait until every rank is up: no fixed sleep */
    double deadline = now() + 60;
    for (;;) {
        char *out = slurp(r.out_path);
        int n = count(out, "ready pid=");
        free(out);
        if (n == 3) break;
        assert_true(now() < deadline);
        usleep(20000);
    }
    kill(r.pid, SIGTERM);
    finish(&r);
    assert_int_equal(r.status, 128 + SIGTERM);
    assert_nothing_left(r.out, 3);
    release(&r);
}

static void test_exec_failure(void **state)
{
    (void)state;
    run_t r;
    run(&r, (const char *[]){"-n", "2", "/nonexistent/lincoll-program", NULL});
    assert_int_equal(r.status, 127);
    assert_non_null(strstr(r.err, "cannot execute '/nonexistent/lincoll-program'"));
    release(&r);
}

int main(void)
{
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usage),        cmocka_unit_test(test_prefix_and_env),
        cmocka_unit_test(test_worst_status), cmocka_unit_test(test_crash_stops_others),
        cmocka_unit_test(test_timeout),      cmocka_unit_test(test_signal_forwarding),
        cmocka_unit_test(test_exec_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
