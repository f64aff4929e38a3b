/*
 * Machine profiles (core/base/profile.c) and how the configuration takes
 * them (core/base/config_model.c): a profile written and read back holds
 * every figure; bad profiles are errors naming the file and the line; the
 * table's load takes LINCOLL_PROFILE's figures, else the default location's
 * ($XDG_CACHE_HOME/lincoll/profile), with LINCOLL_MODEL_* overriding them;
 * a bad profile named by LINCOLL_PROFILE fails the load, a bad one at the
 * default location does not; the job's fit (hosts, shared cores).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/config.h"
#include "core/base/profile.h"

static char tmpdir[] = "/tmp/test_profile_XXXXXX";

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-5 * fabs(b);
}

static void test_round_trip(void **state)
{
    (void)state;
    lc_profile_t p, q;
    memset(&p, 0, sizeof(p));
    snprintf(p.name, sizeof(p.name), "box-1");
    for (int k = 0; k < LC_PROF_NFIGURES; k++) {
        p.v[k] = 1.5e-7 * (k + 1) * (k == LC_PROF_FLOPS ? 1e17 : 1);
        p.have |= 1u << k;
    }
    p.ports = 3;
    p.have |= (1u << LC_PROF_NAME) | (1u << LC_PROF_PORTS);
    char path[128], err[512];
    snprintf(path, sizeof(path), "%s/rt.profile", tmpdir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(lc_profile_write(f, &p, "line one\nline two"), 0);
    fclose(f);
    assert_int_equal(lc_profile_read(path, &q, err, sizeof(err)), 0);
    assert_int_equal(q.have, p.have);
    assert_string_equal(q.name, "box-1");
    assert_int_equal(q.ports, 3);
    for (int k = 0; k < LC_PROF_NFIGURES; k++)
        assert_true(near(q.v[k], p.v[k]));
    /* only some keys: the others stay absent */
    p.have = (1u << LC_PROF_ALPHA) | (1u << LC_PROF_BETA) | (1u << LC_PROF_GAMMA);
    f = fopen(path, "w");
    assert_int_equal(lc_profile_write(f, &p, NULL), 0);
    fclose(f);
    assert_int_equal(lc_profile_read(path, &q, err, sizeof(err)), 0);
    assert_int_equal(q.have, p.have);
    assert_false(lc_profile_has(&q, LC_PROF_HANDOFF));
}

/* a bad profile: -1 and an error naming PATH:LINE (line 0: PATH alone) */
static void expect_bad(const char *text, int line, const char *what)
{
    char path[128], err[512], want[160];
    snprintf(path, sizeof(path), "%s/bad.profile", tmpdir);
    write_file(path, text);
    lc_profile_t q;
    err[0] = '\0';
    assert_int_equal(lc_profile_read(path, &q, err, sizeof(err)), -1);
    if (line > 0) {
        snprintf(want, sizeof(want), "%s:%d: ", path, line);
    } else {
        snprintf(want, sizeof(want), "%s: ", path);
    }
    if (strstr(err, want) == NULL || strstr(err, what) == NULL)
        fail_msg("error '%s' lacks '%s' or '%s'", err, want, what);
}

static void test_bad(void **state)
{
    (void)state;
    expect_bad("alpha 1e-6\nbeta 1e-10\nlatency 3\ngamma 1\n", 3, "unknown key latency");
    expect_bad("# c\n\nalpha -1e-6\n", 3, "alpha -1e-6");
    expect_bad("alpha 1e-6\nbeta fast\n", 2, "beta fast");
    expect_bad("alpha nan\n", 1, "alpha nan");
    expect_bad("alpha inf\n", 1, "alpha inf");
    expect_bad("alpha 1e-6 2e-6\n", 1, "key value");
    expect_bad("alpha 1e-6\nalpha 2e-6\n", 2, "given twice");
    expect_bad("alpha 1\nbeta 1\ngamma 1\nports 0\n", 4, "ports 0");
    expect_bad("alpha 1\nbeta 1\ngamma 1\nflops 0\n", 4, "flops 0");
    expect_bad("alpha 1e-6\nbeta 1e-10\n", 0, "needs alpha, beta and gamma");
    expect_bad("", 0, "needs alpha");
    char longline[700];
    memset(longline, 'x', sizeof(longline) - 2);
    longline[sizeof(longline) - 2] = '\n';
    longline[sizeof(longline) - 1] = '\0';
    expect_bad(longline, 1, "longer than");
    char err[512];
    lc_profile_t q;
    assert_int_equal(lc_profile_read("/nonexistent/x.profile", &q, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "/nonexistent/x.profile: "));
}

static void test_config_takes_profile(void **state)
{
    (void)state;
    const char *pv = lc_config_name(LINCOLL_CONFIG_PROFILE);
    char path[128], xdg[128], dflt[160];
    snprintf(path, sizeof(path), "%s/named.profile", tmpdir);
    write_file(path, "alpha 3e-6\nbeta 1e-9\ngamma 4e-10\nflops 7e9\nalpha_mapped 5e-7\n"
                     "handoff 4e-5\nalpha_net 3e-5\nbeta_net 2e-9\n");
    lc_config_t cfg;
    /* none: the built-in figures */
    setenv(pv, "none", 1);
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
    const double alpha0 = cfg.model_alpha, bw0 = cfg.model_bw;
    assert_string_equal(cfg.profile_used, "");
    /* named */
    setenv(pv, path, 1);
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
    assert_true(near(cfg.model_alpha, 3e-6));
    assert_true(near(cfg.model_bw, 1e9));
    assert_true(near(cfg.model_compute_bw, 2.5e9));
    assert_true(near(cfg.model_flops, 7e9));
    assert_true(near(cfg.model_alpha_mapped, 5e-7));
    assert_true(near(cfg.model_handoff, 4e-5));
    assert_string_equal(cfg.profile_used, path);
    assert_false(near(cfg.model_alpha, alpha0));
    /* the environment's figures win over the profile's */
    setenv(lc_config_name(LINCOLL_CONFIG_MODEL_ALPHA), "9e-6", 1);
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
    assert_true(near(cfg.model_alpha, 9e-6));
    assert_true(near(cfg.model_bw, 1e9));
    unsetenv(lc_config_name(LINCOLL_CONFIG_MODEL_ALPHA));
    /* a bad profile named: the load fails */
    char bad[128];
    snprintf(bad, sizeof(bad), "%s/bad2.profile", tmpdir);
    write_file(bad, "alpha 1\nbeta x\ngamma 1\n");
    setenv(pv, bad, 1);
    assert_int_equal(lc_config_load(&cfg), LINCOLL_ERR_INVALID);
    setenv(pv, "/nonexistent/y.profile", 1);
    assert_int_equal(lc_config_load(&cfg), LINCOLL_ERR_INVALID);
    /* unset: the default location under XDG_CACHE_HOME */
    unsetenv(pv);
    snprintf(xdg, sizeof(xdg), "%s/cache", tmpdir);
    setenv("XDG_CACHE_HOME", xdg, 1);
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK); /* none there yet */
    assert_true(near(cfg.model_alpha, alpha0));
    assert_int_equal(lc_profile_default_path(dflt, sizeof(dflt)), 0);
    char want[160];
    snprintf(want, sizeof(want), "%s/lincoll/profile", xdg);
    assert_string_equal(dflt, want);
    mkdir(xdg, 0700);
    char dir[160];
    snprintf(dir, sizeof(dir), "%s/lincoll", xdg);
    mkdir(dir, 0700);
    write_file(dflt, "alpha 6e-6\nbeta 2e-9\ngamma 1e-10\n");
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
    assert_true(near(cfg.model_alpha, 6e-6));
    assert_true(near(cfg.model_bw, 5e8));
    assert_string_equal(cfg.profile_used, dflt);
    /* a bad one there: the built-in figures, and the load succeeds */
    write_file(dflt, "alpha 6e-6\nbeta -2\ngamma 1e-10\n");
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
    assert_true(near(cfg.model_alpha, alpha0) && near(cfg.model_bw, bw0));
    /* no XDG_CACHE_HOME: $HOME/.cache */
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", tmpdir, 1);
    assert_int_equal(lc_profile_default_path(dflt, sizeof(dflt)), 0);
    snprintf(want, sizeof(want), "%s/.cache/lincoll/profile", tmpdir);
    assert_string_equal(dflt, want);
    unlink(dflt);
    unlink(path);
    unlink(bad);
    setenv(pv, "none", 1);
}

static void test_model_job(void **state)
{
    (void)state;
    const char *pv = lc_config_name(LINCOLL_CONFIG_PROFILE);
    char path[128];
    snprintf(path, sizeof(path), "%s/job.profile", tmpdir);
    write_file(path, "alpha 1e-6\nbeta 1e-10\ngamma 1e-10\nalpha_mapped 2e-7\nalpha_net 3e-5\n"
                     "beta_net 1e-9\nhandoff 5e-5\n");
    setenv(pv, path, 1);
    lc_config_t cfg;
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
    lc_config_model_job(&cfg, 1, 1.0); /* one host, a core per rank: unchanged */
    assert_true(near(cfg.model_alpha, 1e-6) && near(cfg.model_bw, 1e10));
    lc_config_model_job(&cfg, 4, 1.0); /* hosts: the network's figures */
    assert_true(near(cfg.model_alpha, 3e-5) && near(cfg.model_bw, 1e9));
    double cbw = cfg.model_compute_bw, mbw = cfg.model_bw_mapped, fl = cfg.model_flops;
    lc_config_model_job(&cfg, 4, 2.0); /* shared cores: + the hand-off, once */
    lc_config_model_job(&cfg, 4, 2.0);
    assert_true(near(cfg.model_alpha, 8e-5));
    assert_true(near(cfg.model_alpha_mapped, 5.02e-5));
    /* half a core per rank: its own work at half the rate, once; the
     * network's bandwidth between hosts unchanged */
    assert_true(near(cfg.model_compute_bw, cbw / 2) && near(cfg.model_bw_mapped, mbw / 2));
    assert_true(near(cfg.model_flops, fl / 2) && near(cfg.model_bw, 1e9));
    /* one host, shared cores: the local bandwidth at half the rate */
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
    lc_config_model_job(&cfg, 1, 2.0);
    assert_true(near(cfg.model_bw, 5e9) && near(cfg.model_alpha, 5.1e-5));
    /* the user's LINCOLL_MODEL_ALPHA stays across hosts when the network's is not set */
    write_file(path, "alpha 1e-6\nbeta 1e-10\ngamma 1e-10\n");
    setenv(lc_config_name(LINCOLL_CONFIG_MODEL_ALPHA), "7e-6", 1);
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
    lc_config_model_job(&cfg, 2, 1.0);
    assert_true(near(cfg.model_alpha, 7e-6));
    unsetenv(lc_config_name(LINCOLL_CONFIG_MODEL_ALPHA));
    unlink(path);
    setenv(pv, "none", 1);
}

int main(void)
{
    if (mkdtemp(tmpdir) == NULL) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_bad),
        cmocka_unit_test(test_config_takes_profile),
        cmocka_unit_test(test_model_job),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[160];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
    if (system(cmd) != 0) rc = rc ? rc : 1;
    return rc;
}
