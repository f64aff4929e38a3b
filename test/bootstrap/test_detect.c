/*
 * test/bootstrap/test_detect.c: config-driven bootstrap detection and bad
 * input.  Each case sets LINCOLL_* (and launcher) variables, loads the
 * config, opens the bootstrap and checks the backend or the status and that
 * the one error line names the variable at fault.  No case reaches the network.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/base/config.h"
#include "core/base/log.h"
#include "core/context/bootstrap/bootstrap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char last_error[1024];
static int n_errors;

static void capture(lincoll_log_level_t level, int rank, const char *file, int line,
                    const char *msg, void *arg)
{
    (void)rank;
    (void)file;
    (void)line;
    (void)arg;
    if (level == LINCOLL_LOG_ERROR) {
        snprintf(last_error, sizeof(last_error), "%s", msg);
        n_errors++;
    }
}

static const char *const managed[] = {"LINCOLL_BOOTSTRAP_KIND", "LINCOLL_BOOTSTRAP",
                                      "LINCOLL_RANK",           "LINCOLL_SIZE",
                                      "LINCOLL_JOB_SECRET",     "LINCOLL_BOOTSTRAP_TIMEOUT",
                                      "PMIX_NAMESPACE",         "PMIX_RANK",
                                      "OMPI_COMM_WORLD_SIZE",   "PMI_SIZE",
                                      "SLURM_STEP_NUM_TASKS",   "SLURM_PROCID"};

static void clear_env(void)
{
    for (size_t i = 0; i < sizeof(managed) / sizeof(managed[0]); i++)
        unsetenv(managed[i]);
    last_error[0] = '\0';
    n_errors = 0;
}

/* "A=1;B=2" */
static void set_env(const char *spec)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", spec);
    for (char *save, *kv = strtok_r(buf, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(kv, '=');
        assert_non_null(eq);
        *eq = '\0';
        setenv(kv, eq + 1, 1);
    }
}

static int setup(void **state)
{
    (void)state;
    lincoll_log_set_handler(capture, NULL);
    return 0;
}

static void test_singleton_when_nothing_set(void **state)
{
    (void)state;
    clear_env();
    lc_config_t cfg;
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
    lc_bootstrap_t *b = NULL;
    assert_int_equal(lc_bootstrap_open(&cfg, &b), LINCOLL_OK);
    assert_string_equal(b->ops->name, "single");
    assert_int_equal(b->rank, 0);
    assert_int_equal(b->size, 1);
    assert_int_equal(b->local_rank, 0);
    assert_int_equal(b->local_size, 1);
    int x = 42, y = 0;
    assert_int_equal(b->ops->allgather(b, &x, &y, sizeof(x)), LINCOLL_OK);
    assert_int_equal(y, 42);
    assert_int_equal(b->ops->barrier(b), LINCOLL_OK);
    void *out;
    void **ptrs;
    size_t *lens;
    assert_int_equal(lc_bootstrap_allgatherv(b, "hello", 5, &out, &ptrs, &lens), LINCOLL_OK);
    assert_int_equal(lens[0], 5);
    assert_memory_equal(ptrs[0], "hello", 5);
    free(out);
    free(ptrs);
    free(lens);
    assert_int_equal(lc_bootstrap_allgatherv(b, NULL, 0, &out, &ptrs, &lens), LINCOLL_OK);
    assert_int_equal(lens[0], 0);
    free(out);
    free(ptrs);
    free(lens);
    lc_bootstrap_close(b);
    assert_int_equal(n_errors, 0);
}

static void test_forced_single_under_launcher(void **state)
{
    (void)state;
    clear_env();
    set_env("OMPI_COMM_WORLD_SIZE=4;LINCOLL_BOOTSTRAP_KIND=single");
    lc_config_t cfg;
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
    lc_bootstrap_t *b = NULL;
    assert_int_equal(lc_bootstrap_open(&cfg, &b), LINCOLL_OK);
    assert_string_equal(b->ops->name, "single");
    lc_bootstrap_close(b);
}

/* Each case: environment, expected status, text the error line must contain. */
static const struct {
    const char *env;
    lincoll_status_t status;
    const char *names;
} bad_cases[] = {
    {"LINCOLL_BOOTSTRAP=nohostport;LINCOLL_RANK=0;LINCOLL_SIZE=2;LINCOLL_JOB_SECRET=s",
     LINCOLL_ERR_INVALID, "LINCOLL_BOOTSTRAP=nohostport"},
    {"LINCOLL_BOOTSTRAP=host:;LINCOLL_RANK=0;LINCOLL_SIZE=2;LINCOLL_JOB_SECRET=s",
     LINCOLL_ERR_INVALID, "LINCOLL_BOOTSTRAP=host:"},
    {"LINCOLL_BOOTSTRAP=:4000;LINCOLL_RANK=0;LINCOLL_SIZE=2;LINCOLL_JOB_SECRET=s",
     LINCOLL_ERR_INVALID, "LINCOLL_BOOTSTRAP=:4000"},
    {"LINCOLL_BOOTSTRAP=host:0;LINCOLL_RANK=0;LINCOLL_SIZE=2;LINCOLL_JOB_SECRET=s",
     LINCOLL_ERR_INVALID, "LINCOLL_BOOTSTRAP=host:0"},
    {"LINCOLL_BOOTSTRAP=host:70000;LINCOLL_RANK=0;LINCOLL_SIZE=2;LINCOLL_JOB_SECRET=s",
     LINCOLL_ERR_INVALID, "LINCOLL_BOOTSTRAP=host:70000"},
    {"LINCOLL_BOOTSTRAP=host:80x;LINCOLL_RANK=0;LINCOLL_SIZE=2;LINCOLL_JOB_SECRET=s",
     LINCOLL_ERR_INVALID, "LINCOLL_BOOTSTRAP=host:80x"},
    {"LINCOLL_BOOTSTRAP=fe80::1:80;LINCOLL_RANK=0;LINCOLL_SIZE=2;LINCOLL_JOB_SECRET=s",
     LINCOLL_ERR_INVALID, "LINCOLL_BOOTSTRAP=fe80::1:80"},
    {"LINCOLL_BOOTSTRAP=host:4000;LINCOLL_SIZE=2;LINCOLL_JOB_SECRET=s", LINCOLL_ERR_INVALID,
     "LINCOLL_RANK"},
    {"LINCOLL_BOOTSTRAP=host:4000;LINCOLL_RANK=0;LINCOLL_JOB_SECRET=s", LINCOLL_ERR_INVALID,
     "LINCOLL_SIZE"},
    {"LINCOLL_BOOTSTRAP=host:4000;LINCOLL_RANK=2;LINCOLL_SIZE=2;LINCOLL_JOB_SECRET=s",
     LINCOLL_ERR_INVALID, "LINCOLL_RANK=2"},
    {"LINCOLL_RANK=0;LINCOLL_SIZE=2;LINCOLL_JOB_SECRET=s", LINCOLL_ERR_INVALID,
     "LINCOLL_BOOTSTRAP is not set"},
    {"LINCOLL_BOOTSTRAP=host:4000;LINCOLL_RANK=0;LINCOLL_SIZE=2", LINCOLL_ERR_AUTH,
     "LINCOLL_JOB_SECRET"},
    {"LINCOLL_BOOTSTRAP_KIND=tcp", LINCOLL_ERR_INVALID, "LINCOLL_SIZE"},
    {"OMPI_COMM_WORLD_SIZE=3", LINCOLL_ERR_BOOTSTRAP, "OMPI_COMM_WORLD_SIZE=3"},
    {"SLURM_STEP_NUM_TASKS=3;SLURM_PROCID=1", LINCOLL_ERR_BOOTSTRAP, "SLURM_STEP_NUM_TASKS=3"},
    {"PMI_SIZE=2", LINCOLL_ERR_BOOTSTRAP, "PMI_SIZE=2"},
#ifdef LINCOLL_HAVE_PMIX
    /* a PMIx launcher's namespace without its server: PMIx_Init fails, no fallback */
    {"PMIX_NAMESPACE=lincoll-test-nowhere;PMIX_RANK=0", LINCOLL_ERR_BOOTSTRAP, "PMIX_NAMESPACE"},
#endif
};

static void test_bad_environment(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        clear_env();
        set_env(bad_cases[i].env);
        lc_config_t cfg;
        assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
        lc_bootstrap_t *b = (lc_bootstrap_t *)&cfg; /* must be reset to NULL */
        lincoll_status_t st = lc_bootstrap_open(&cfg, &b);
        if (st != bad_cases[i].status || strstr(last_error, bad_cases[i].names) == NULL) {
            print_error("case %zu (%s): status %d (%s), error line '%s'\n", i, bad_cases[i].env, st,
                        lincoll_strerror(st), last_error);
        }
        assert_int_equal(st, bad_cases[i].status);
        assert_null(b);
        assert_non_null(strstr(last_error, bad_cases[i].names));
        assert_int_equal(n_errors, 1); /* one line, where the error was found */
    }
}

static void test_bad_kind_value(void **state)
{
    (void)state;
    clear_env();
    set_env("LINCOLL_BOOTSTRAP_KIND=carrier-pigeon");
    lc_config_t cfg;
    assert_int_equal(lc_config_load(&cfg), LINCOLL_ERR_INVALID);
    assert_non_null(strstr(last_error, "LINCOLL_BOOTSTRAP_KIND"));
    clear_env();
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
    cfg.bootstrap_kind = 17;
    lc_bootstrap_t *b;
    assert_int_equal(lc_bootstrap_open(&cfg, &b), LINCOLL_ERR_INVALID);
    assert_non_null(strstr(last_error, "LINCOLL_BOOTSTRAP_KIND"));
}

static void test_bad_arguments(void **state)
{
    (void)state;
    clear_env();
    lc_config_t cfg;
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
    lc_bootstrap_t *b;
    assert_int_equal(lc_bootstrap_open(NULL, &b), LINCOLL_ERR_INVALID);
    assert_null(b);
    assert_non_null(strstr(last_error, "cfg"));
    assert_int_equal(lc_bootstrap_open(&cfg, NULL), LINCOLL_ERR_INVALID);
    assert_non_null(strstr(last_error, "b_p"));
    assert_int_equal(lc_bootstrap_open(&cfg, &b), LINCOLL_OK);
    int x = 1, y[1];
    assert_int_equal(b->ops->allgather(b, NULL, y, sizeof(x)), LINCOLL_ERR_INVALID);
    assert_int_equal(b->ops->allgather(b, &x, NULL, sizeof(x)), LINCOLL_ERR_INVALID);
    assert_int_equal(b->ops->allgather(b, NULL, NULL, 0), LINCOLL_OK);
    void *out;
    void **ptrs;
    size_t *lens;
    assert_int_equal(lc_bootstrap_allgatherv(NULL, &x, 4, &out, &ptrs, &lens), LINCOLL_ERR_INVALID);
    assert_int_equal(lc_bootstrap_allgatherv(b, NULL, 4, &out, &ptrs, &lens), LINCOLL_ERR_INVALID);
    assert_non_null(strstr(last_error, "in is NULL"));
    assert_int_equal(lc_bootstrap_allgatherv(b, &x, 4, NULL, &ptrs, &lens), LINCOLL_ERR_INVALID);
    assert_int_equal(lc_bootstrap_allgatherv(b, &x, 4, &out, NULL, &lens), LINCOLL_ERR_INVALID);
    assert_int_equal(lc_bootstrap_allgatherv(b, &x, 4, &out, &ptrs, NULL), LINCOLL_ERR_INVALID);
    lc_bootstrap_close(b);
    lc_bootstrap_close(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_singleton_when_nothing_set),
        cmocka_unit_test(test_forced_single_under_launcher),
        cmocka_unit_test(test_bad_environment),
        cmocka_unit_test(test_bad_kind_value),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
