/*
 * test/common/fork_victim.h: the victim of a kill test under
 * `lincoll-run --keep-going`.
 *
 * lc_test_fork_victim(name): on rank 1 (LINCOLL_RANK) fork; the child goes
 * on as the rank (returns 1: it is the victim and will SIGKILL itself), the
 * parent only reaps it, prints whether it died by SIGKILL and exits 0 or 1,
 * so that lincoll-run keeps the survivors running and the job's status is
 * theirs.  Other ranks: returns 0.
 */
#ifndef LC_TEST_FORK_VICTIM_H
#define LC_TEST_FORK_VICTIM_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static inline int lc_test_fork_victim(const char *name)
{
    const char *rank_env = getenv("LINCOLL_RANK");
    if (rank_env == NULL || atoi(rank_env) != 1) return 0;
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        exit(1);
    }
    if (child == 0) return 1;
    int status;
    waitpid(child, &status, 0);
    int killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    printf("%s: victim %s\n", name, killed ? "died by SIGKILL as planned" : "did not die");
    exit(killed ? 0 : 1);
}

#endif
