/*
 * test/bootstrap/run_helper.c: a rank program for the lincoll-run tests.
 *
 *   run_helper ok               print to stdout and stderr (one line in pieces), exit 0
 *   run_helper env              print the LINCOLL_* variables lincoll-run set
 *   run_helper exit C0 C1 ...   exit with C<rank>
 *   run_helper exitsleep C0 ... after a bootstrap barrier: exit C<rank>, or sleep when "-"
 *   run_helper crash R          after a barrier rank R dies of SIGSEGV, the others sleep
 *   run_helper sleep            sleep forever
 *   run_helper ignore-term      ignore SIGTERM and sleep forever
 * Sleeping modes first fork a grandchild that sleeps too and print
 * "ready pid=P gc=G", so the tests can check nothing is left behind.
 */
#include "core/base/config.h"
#include "core/context/bootstrap/bootstrap.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static int rank_of_env(void)
{
    const char *r = getenv("LINCOLL_RANK");
    return r ? atoi(r) : 0;
}

static void ready(void)
{
    pid_t gc = fork();
    if (gc == 0) {
        for (;;)
            pause();
    }
    printf("ready pid=%d gc=%d\n", (int)getpid(), (int)gc);
    fflush(stdout);
}

static void sleep_forever(void)
{
    for (;;)
        pause();
}

static lc_bootstrap_t *boot(void)
{
    lc_config_t cfg;
    lc_bootstrap_t *b;
    if (lc_config_load(&cfg) != LINCOLL_OK || lc_bootstrap_open(&cfg, &b) != LINCOLL_OK) {
        fprintf(stderr, "run_helper: bootstrap failed\n");
        exit(90);
    }
    return b;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    int rank = rank_of_env();
    if (strcmp(mode, "ok") == 0) {
        printf("out rank %d\n", rank);
        fflush(stdout);
        fprintf(stderr, "err rank %d\n", rank);
        ssize_t w = write(STDOUT_FILENO, "part-a ", 7);
        usleep(50000);
        w = write(STDOUT_FILENO, "part-b\nno newline at the end", 28);
        (void)w;
        return 0;
    }
    if (strcmp(mode, "env") == 0) {
        const char *secret = getenv("LINCOLL_JOB_SECRET");
        printf("rank=%s size=%s kind=%s ports=%s secret_len=%zu bootstrap=%s\n",
               getenv("LINCOLL_RANK"), getenv("LINCOLL_SIZE"), getenv("LINCOLL_BOOTSTRAP_KIND"),
               getenv("LINCOLL_PORTS") ? getenv("LINCOLL_PORTS") : "-", secret ? strlen(secret) : 0,
               getenv("LINCOLL_BOOTSTRAP"));
        return 0;
    }
    if (strcmp(mode, "exit") == 0) {
        return 2 + rank < argc ? atoi(argv[2 + rank]) : 0;
    }
    if (strcmp(mode, "exitsleep") == 0) {
        lc_bootstrap_t *b = boot();
        ready();
        b->ops->barrier(b);
        if (2 + rank < argc && strcmp(argv[2 + rank], "-") != 0) {
            lc_bootstrap_close(b);
            exit(atoi(argv[2 + rank]));
        }
        sleep_forever();
    }
    if (strcmp(mode, "crash") == 0) {
        lc_bootstrap_t *b = boot();
        ready();
        b->ops->barrier(b);
        if (argc > 2 && rank == atoi(argv[2])) {
            struct rlimit no_core = {0, 0};
            setrlimit(RLIMIT_CORE, &no_core);
            signal(SIGSEGV, SIG_DFL); /* a real crash, also under a sanitizer */
            raise(SIGSEGV);
        }
        sleep_forever();
    }
    if (strcmp(mode, "sleep") == 0) {
        ready();
        sleep_forever();
    }
    if (strcmp(mode, "ignore-term") == 0) {
        signal(SIGTERM, SIG_IGN);
        ready();
        sleep_forever();
    }
    fprintf(stderr, "run_helper: unknown mode %s\n", mode);
    return 99;
}
