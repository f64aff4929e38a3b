/*
 * test/transport/test_tl_ucx_alive.c: the ucx transport's peer liveness
 * probe (transports/ucx/alive.c) against real child processes: a
 * running child is alive, a killed one is dead both as a zombie (not yet
 * reaped) and once reaped, and an identity whose start time does not match
 * the pid (a reused pid) is dead.  Identities from another host or pid
 * namespace, or without a start time, are never probed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "transports/ucx/alive.h"

/* A child that publishes its identity through a pipe, then sleeps. */
static pid_t spawn_child(lc_ucx_ident_t *id)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        lc_ucx_ident_t me;
        lc_ucx_ident_self(&me);
        ssize_t n = write(fds[1], &me, sizeof(me));
        _exit(n == (ssize_t)sizeof(me) && pause() == 0 ? 0 : 0);
    }
    close(fds[1]);
    size_t got = 0;
    while (got < sizeof(*id)) {
        ssize_t n = read(fds[0], (char *)id + got, sizeof(*id) - got);
        assert_true(n > 0);
        got += (size_t)n;
    }
    close(fds[0]);
    assert_int_equal(id->pid, pid);
    return pid;
}

static void test_self_identity(void **state)
{
    (void)state;
    lc_ucx_ident_t me;
    lc_ucx_ident_self(&me);
    assert_int_equal(me.magic, LC_UCX_IDENT_MAGIC);
    assert_int_equal(me.pid, getpid());
    assert_true(me.starttime > 0);
    assert_non_null(strstr(me.host, "/pidns:"));
    assert_true(lc_ucx_ident_alive(&me));
}

static void test_child_alive_then_dead(void **state)
{
    (void)state;
    lc_ucx_ident_t me, child;
    lc_ucx_ident_self(&me);
    pid_t pid = spawn_child(&child);
    assert_true(lc_ucx_ident_probeable(&me, &child));
    assert_true(lc_ucx_ident_alive(&child));

    lc_ucx_ident_t reused = child;
    reused.starttime += 1; /* the same pid, started at another time */
    assert_false(lc_ucx_ident_alive(&reused));

    assert_int_equal(kill(pid, SIGKILL), 0);
    /* a zombie until reaped: dead, although kill(pid, 0) still succeeds */
    siginfo_t si;
    assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
    assert_int_equal(kill(pid, 0), 0);
    assert_false(lc_ucx_ident_alive(&child));

    assert_int_equal(waitpid(pid, NULL, 0), pid);
    assert_false(lc_ucx_ident_alive(&child));
}

static void test_not_probeable(void **state)
{
    (void)state;
    lc_ucx_ident_t me, other;
    lc_ucx_ident_self(&me);
    other = me;
    assert_true(lc_ucx_ident_probeable(&me, &other));
    other.host[0] ^= 1; /* another boot id or pid namespace */
    assert_false(lc_ucx_ident_probeable(&me, &other));
    other = me;
    other.starttime = 0; /* the peer could not read its start time */
    assert_false(lc_ucx_ident_probeable(&me, &other));
    other = me;
    other.magic = 0;
    assert_false(lc_ucx_ident_probeable(&me, &other));
    lc_ucx_ident_t blind = me;
    blind.host[0] = '\0'; /* we could not learn our own host key */
    assert_false(lc_ucx_ident_probeable(&blind, &me));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_self_identity),
        cmocka_unit_test(test_child_alive_then_dead),
        cmocka_unit_test(test_not_probeable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
