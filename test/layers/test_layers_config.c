/*
 * test/layers/test_layers_config.c: the configuration table as the only
 * reader of LINCOLL_* variables, seen from the layers it feeds.
 *
 *   test_layers_config kernels-auto    LINCOLL_KERNEL_ISA=auto: the first
 *                                      kernel call logs nothing
 *   test_layers_config kernels-bad     bad kernel variables: one error each,
 *                                      naming the variable; defaults used
 *   test_layers_config kernels-good    the table's values reach the kernels
 *                                      without lincoll_init; a reload moves them
 *   test_layers_config                 lc_config_reread, the UCX variables
 *                                      (table, lincoll_config_var, and the real
 *                                      ucx transport applying them), kernels'
 *                                      own type names agreeing with core's
 *
 * The kernels-* modes run in their own process (ctest sets the environment)
 * because kernels load their initial settings once per process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lincoll/lincoll.h>

#include "core/base/config.h"
#include "kernels/gemm/gemm_kernels.h"
#include "kernels/gf/gf_kernels.h"
#include "kernels/kernels.h"
#include "transports/ucx/api.h"

/* ---- log capture ----------------------------------------------------------- */

#define MAX_LINES 32
static char lines[MAX_LINES][512];
static lincoll_log_level_t levels[MAX_LINES];
static int nlines;

static void capture(lincoll_log_level_t level, int rank, const char *file, int line,
                    const char *msg, void *arg)
{
    (void)rank, (void)file, (void)line, (void)arg;
    if (nlines < MAX_LINES) {
        levels[nlines] = level;
        snprintf(lines[nlines], sizeof(lines[0]), "%s", msg);
    }
    nlines++;
}

static int capture_on(void **state)
{
    (void)state;
    nlines = 0;
    lincoll_log_set_handler(capture, NULL);
    lincoll_log_set_level(LINCOLL_LOG_INFO);
    return 0;
}

static int capture_off(void **state)
{
    (void)state;
    lincoll_log_set_handler(NULL, NULL);
    lincoll_log_set_level(LINCOLL_LOG_WARN);
    return 0;
}

static void print_lines(void)
{
    for (int i = 0; i < nlines && i < MAX_LINES; i++) {
        print_message("log[%d] (level %d): %s\n", i, (int)levels[i], lines[i]);
    }
}

/* Every kernel family's first dispatch (each loads or reads the settings). */
static void use_every_kernel(void)
{
    lincoll_field_t *f;
    assert_int_equal(lincoll_gf_field_create(256, &f), LINCOLL_OK);
    assert_non_null(lincoll_gf_kernel_name(f));
    lincoll_gf_field_destroy(f);
    assert_non_null(lincoll_gemm_kernel_name(LINCOLL_DOUBLE));
    assert_non_null(lincoll_reduce_variant());
    double a = 1, b = 2;
    assert_int_equal(lincoll_reduce(&a, &b, 1, LINCOLL_DOUBLE, LINCOLL_SUM), LINCOLL_OK);
    assert_true(a == 3.0);
    (void)lc_kernel_isa();
}

/* ---- kernels-auto ---------------------------------------------------------- */

static void test_kernels_auto_silent(void **state)
{
    (void)state;
    const char *env = getenv("LINCOLL_KERNEL_ISA");
    assert_non_null(env); /* the ctest registration sets it */
    assert_string_equal(env, "auto");
    use_every_kernel();
    print_lines();
    assert_int_equal(nlines, 0);
    assert_int_equal(lc_kernel_isa(), lc_cpu_best_isa());
    assert_int_equal(lc_kernels_settings().isa, -1);
}

/* ---- kernels-bad ----------------------------------------------------------- */

static void test_kernels_bad_values(void **state)
{
    (void)state;
    static const char *const vars[] = {"LINCOLL_KERNEL_ISA", "LINCOLL_GEMM_THREADS",
                                       "LINCOLL_GF_STREAM_BYTES"};
    for (size_t i = 0; i < 3; i++) {
        assert_non_null(getenv(vars[i])); /* the ctest registration sets them */
    }
    use_every_kernel();
    print_lines();
    /* one error per bad variable, each naming it and its value */
    assert_int_equal(nlines, 3);
    for (size_t i = 0; i < 3; i++) {
        int found = 0;
        for (int l = 0; l < nlines; l++) {
            char want[128];
            snprintf(want, sizeof(want), "%s=%s", vars[i], getenv(vars[i]));
            found += levels[l] == LINCOLL_LOG_ERROR && strstr(lines[l], want) != NULL;
        }
        assert_int_equal(found, 1);
    }
    /* and the kernels run on the defaults */
    lc_kernel_settings_t s = lc_kernels_settings();
    assert_int_equal(s.isa, -1);
    assert_int_equal(s.gemm_threads, 1);
    assert_int_equal(s.gf_stream_bytes, 0);
    assert_int_equal(lc_kernel_isa(), lc_cpu_best_isa());
    assert_int_equal(lc_gemm_threads(), 1);
}

/* ---- kernels-good ---------------------------------------------------------- */

static void test_kernels_good_values(void **state)
{
    (void)state;
    assert_non_null(getenv("LINCOLL_KERNEL_ISA"));
    assert_string_equal(getenv("LINCOLL_KERNEL_ISA"), "base");
    use_every_kernel();
    print_lines();
    assert_int_equal(nlines, 0);
    assert_int_equal(lc_kernel_isa(), LC_ISA_BASE);
    assert_string_equal(lincoll_reduce_variant(), "base");
    assert_int_equal(lc_gemm_threads(), 3);
    assert_int_equal(lc_gf_nt_bytes, (size_t)1 << 20);

    /* what lincoll_init does: load the table, push it */
    assert_int_equal(setenv("LINCOLL_GEMM_THREADS", "2", 1), 0);
    assert_int_equal(setenv("LINCOLL_GF_STREAM_BYTES", "0", 1), 0);
    assert_int_equal(setenv("LINCOLL_KERNEL_ISA", "auto", 1), 0);
    lc_config_t cfg;
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
    lc_config_push_kernels(&cfg);
    assert_int_equal(lc_gemm_threads(), 2);
    assert_int_equal(lc_kernel_isa(), lc_cpu_best_isa());
    assert_true(lc_gf_nt_bytes > 0 && lc_gf_nt_bytes <= (size_t)24 << 20);
    assert_int_equal(nlines, 0);

    /* an ISA this CPU lacks: one warning naming the variable, the best used */
    lc_isa_t best = lc_cpu_best_isa();
    if (best == LC_ISA_GFNI) {
        print_message("this CPU runs every ISA (gfni): no unsupported LINCOLL_KERNEL_ISA value "
                      "to try; checking that gfni is accepted silently instead\n");
    }
    lc_isa_t above = best == LC_ISA_GFNI ? LC_ISA_GFNI : (lc_isa_t)(best + 1);
    assert_int_equal(setenv("LINCOLL_KERNEL_ISA", lc_isa_name(above), 1), 0);
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
    lc_config_push_kernels(&cfg);
    lc_config_push_kernels(&cfg); /* a second init: no second warning */
    print_lines();
    assert_int_equal(lc_kernel_isa(), best);
    if (above > best) {
        assert_int_equal(nlines, 1);
        assert_int_equal(levels[0], LINCOLL_LOG_WARN);
        assert_non_null(strstr(lines[0], "LINCOLL_KERNEL_ISA="));
        assert_non_null(strstr(lines[0], lc_isa_name(above)));
    } else {
        assert_int_equal(nlines, 0);
    }
    unsetenv("LINCOLL_KERNEL_ISA");
    unsetenv("LINCOLL_GEMM_THREADS");
    unsetenv("LINCOLL_GF_STREAM_BYTES");
}

/* ---- lc_config_reread -------------------------------------------------------- */

static void test_reread(void **state)
{
    (void)state;
    lc_config_t cfg;
    memset(&cfg, 0x5a, sizeof(cfg));
    long ports = cfg.ports;
    unsetenv("LINCOLL_ALLREDUCE_ALGO");
    assert_int_equal(lc_config_reread("LINCOLL_ALLREDUCE_ALGO", &cfg), LINCOLL_OK);
    assert_string_equal(cfg.algo_allreduce, "auto");
    assert_int_equal(setenv("LINCOLL_ALLREDUCE_ALGO", "RING", 1), 0);
    assert_int_equal(lc_config_reread("LINCOLL_ALLREDUCE_ALGO", &cfg), LINCOLL_OK);
    assert_string_equal(cfg.algo_allreduce, "RING"); /* names are checked by the registry */
    assert_int_equal(cfg.ports, ports);              /* nothing else touched */
    unsetenv("LINCOLL_ALLREDUCE_ALGO");

    /* a bad value: one error naming the variable, the default stored */
    assert_int_equal(setenv("LINCOLL_ALGO_FALLBACK", "strassen", 1), 0);
    assert_int_equal(lc_config_reread("LINCOLL_ALGO_FALLBACK", &cfg), LINCOLL_ERR_INVALID);
    assert_int_equal(cfg.algo_fallback, 0);
    assert_int_equal(nlines, 1);
    assert_non_null(strstr(lines[0], "LINCOLL_ALGO_FALLBACK=strassen"));
    unsetenv("LINCOLL_ALGO_FALLBACK");

    assert_int_equal(setenv("LINCOLL_TIMEOUT", "2.5", 1), 0);
    assert_int_equal(lc_config_reread("LINCOLL_TIMEOUT", &cfg), LINCOLL_OK);
    assert_true(cfg.timeout == 2.5);
    unsetenv("LINCOLL_TIMEOUT");

    /* not a variable of the table */
    assert_int_equal(lc_config_reread("LINCOLL_NO_SUCH_THING", &cfg), LINCOLL_ERR_INVALID);
    assert_int_equal(lc_config_reread("LINCOLL_TIMEOUT", NULL), LINCOLL_ERR_INVALID);
    assert_int_equal(lc_config_reread(NULL, &cfg), LINCOLL_ERR_INVALID);
    assert_int_equal(nlines, 4);
    assert_non_null(strstr(lines[1], "LINCOLL_NO_SUCH_THING"));
}

/* ---- UCX variables ------------------------------------------------------------ */

static void clear_ucx_env(void)
{
    size_t n;
    const lc_config_ucx_var_t *t = lc_config_ucx_table(&n);
    for (size_t i = 0; i < n; i++) {
        unsetenv(t[i].name);
    }
}

static const lc_tl_ucx_var_t *find_var(const lc_tl_ucx_params_t *tp, const char *name)
{
    for (unsigned i = 0; i < tp->n_vars; i++) {
        if (strcmp(tp->vars[i].name, name) == 0) return &tp->vars[i];
    }
    return NULL;
}

static void params_for(const char *err_mode, const char *tls, lc_tl_ucx_params_t *tp)
{
    clear_ucx_env();
    if (tls != NULL) setenv("UCX_TLS", tls, 1);
    setenv("LINCOLL_UCX_ERR_MODE", err_mode, 1);
    lc_config_t cfg;
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
    memset(tp, 0, sizeof(*tp));
    lc_config_ucx_params(&cfg, tp);
    unsetenv("LINCOLL_UCX_ERR_MODE");
}

static void test_ucx_table(void **state)
{
    (void)state;
    size_t n;
    const lc_config_ucx_var_t *t = lc_config_ucx_table(&n);
    assert_true(n >= 7 && n <= LC_TL_UCX_MAX_VARS);
    static const char *const must[] = {
        "UCX_MM_ERROR_HANDLING", "UCX_TLS",         "UCX_KEEPALIVE_INTERVAL", "UCX_TCP_TX_SEG_SIZE",
        "UCX_TCP_RX_SEG_SIZE",   "UCX_NET_DEVICES", "UCX_MAX_EAGER_LANES"};
    for (size_t m = 0; m < sizeof(must) / sizeof(must[0]); m++) {
        size_t i = 0;
        while (i < n && strcmp(t[i].name, must[m]) != 0)
            i++;
        assert_true(i < n);
        assert_true(strlen(t[i].doc) > 20);
    }

    lc_tl_ucx_params_t tp;
    /* the defaults: error mode peer, UCX_TLS unset */
    params_for("peer", NULL, &tp);
    assert_string_equal(find_var(&tp, "UCX_MM_ERROR_HANDLING")->value, "y");
    assert_string_equal(find_var(&tp, "UCX_TLS")->value, "^posix");
    assert_string_equal(find_var(&tp, "UCX_KEEPALIVE_INTERVAL")->value, "inf");
    assert_string_equal(find_var(&tp, "UCX_TCP_TX_SEG_SIZE")->value, "256k");
    assert_true(find_var(&tp, "UCX_TCP_TX_SEG_SIZE")->in_env);
    assert_null(find_var(&tp, "UCX_NET_DEVICES")->value); /* the topology's */
    assert_false(find_var(&tp, "UCX_NET_DEVICES")->in_env);
    assert_null(find_var(&tp, "UCX_MAX_EAGER_LANES"));
    /* no error handling: no shared-memory or keepalive settings */
    params_for("none", NULL, &tp);
    assert_null(find_var(&tp, "UCX_MM_ERROR_HANDLING"));
    assert_null(find_var(&tp, "UCX_KEEPALIVE_INTERVAL"));
    assert_null(find_var(&tp, "UCX_MAX_EAGER_LANES"));
    assert_non_null(find_var(&tp, "UCX_TCP_RX_SEG_SIZE"));
    /* tcp only, error handling: two eager lanes, no MM_ERROR_HANDLING */
    params_for("peer", "tcp,self", &tp);
    assert_null(find_var(&tp, "UCX_MM_ERROR_HANDLING"));
    assert_string_equal(find_var(&tp, "UCX_MAX_EAGER_LANES")->value, "2");
    assert_false(find_var(&tp, "UCX_MAX_EAGER_LANES")->in_env);
    /* a UCX_TLS naming shared memory keeps MM_ERROR_HANDLING */
    params_for("peer", "sm,tcp", &tp);
    assert_non_null(find_var(&tp, "UCX_MM_ERROR_HANDLING"));
    assert_null(find_var(&tp, "UCX_MAX_EAGER_LANES"));
    clear_ucx_env();
    assert_int_equal(nlines, 0);
}

/* lincoll_info -c's view: the UCX entries follow the LINCOLL_* ones. */
static void test_ucx_config_var(void **state)
{
    (void)state;
    size_t nl, nu;
    lc_config_table(&nl);
    lc_config_ucx_table(&nu);
    assert_int_equal(lincoll_config_var_count(), nl + nu);
    clear_ucx_env();
    setenv("UCX_TLS", "tcp", 1);
    setenv("LINCOLL_UCX_ERR_MODE", "peer", 1);
    int seen = 0;
    for (size_t i = nl; i < nl + nu; i++) {
        lincoll_config_var_t v;
        assert_int_equal(lincoll_config_var(i, &v), LINCOLL_OK);
        assert_string_equal(v.type, "ucx");
        assert_true(strncmp(v.name, "UCX_", 4) == 0);
        assert_non_null(v.default_value);
        assert_non_null(v.doc);
        if (strcmp(v.name, "UCX_TLS") == 0) {
            assert_string_equal(v.current, "tcp"); /* the environment's wins */
            assert_string_equal(v.default_value, "^posix");
            seen++;
        } else if (strcmp(v.name, "UCX_MAX_EAGER_LANES") == 0) {
            assert_string_equal(v.current, "2"); /* lincoll's, its condition holds */
            seen++;
        } else if (strcmp(v.name, "UCX_MM_ERROR_HANDLING") == 0) {
            assert_null(v.current); /* UCX's default: tcp only */
            seen++;
        }
    }
    assert_int_equal(seen, 3);
    lincoll_config_var_t v;
    assert_int_equal(lincoll_config_var(nl + nu, &v), LINCOLL_ERR_INVALID);
    unsetenv("LINCOLL_UCX_ERR_MODE");
    clear_ucx_env();
}

/* The real ucx transport sets what the table passes, and leaves a user's value. */
static void test_ucx_transport_applies(void **state)
{
    (void)state;
    lc_tl_ucx_params_t up;
    params_for("peer", NULL, &up);
    setenv("UCX_TCP_TX_SEG_SIZE", "64k", 1); /* the user's */
    up.err_mode_peer = 1;
    lc_tl_params_t tp = {.rank = 0, .size = 1, .ext = &up};
    lc_tl_t *tl = NULL;
    assert_int_equal(lc_tl_ucx_ops.init(&tp, &tl), LINCOLL_OK);
    assert_non_null(getenv("UCX_TLS"));
    assert_string_equal(getenv("UCX_TLS"), "^posix");
    assert_string_equal(getenv("UCX_MM_ERROR_HANDLING"), "y");
    assert_string_equal(getenv("UCX_KEEPALIVE_INTERVAL"), "inf");
    assert_string_equal(getenv("UCX_TCP_TX_SEG_SIZE"), "64k");
    assert_string_equal(getenv("UCX_TCP_RX_SEG_SIZE"), "256k");
    assert_null(getenv("UCX_MAX_EAGER_LANES")); /* a ucp_config_modify one, not applied here */
    lc_tl_ucx_ops.fini(tl);
    clear_ucx_env();
}

/* ---- variables by id: row i of the table is lincoll_config_id_t i ------------- */

static void test_config_ids(void **state)
{
    (void)state;
    size_t n;
    const lc_config_field_t *t = lc_config_table(&n);
    assert_int_equal(n, LINCOLL_CONFIG_LAST);
    for (int i = 0; i < LINCOLL_CONFIG_LAST; i++) {
        lincoll_config_var_t v;
        assert_non_null(t[i].name);
        assert_ptr_equal(lc_config_name((lincoll_config_id_t)i), t[i].name);
        assert_int_equal(lincoll_config_var((size_t)i, &v), LINCOLL_OK);
        assert_ptr_equal(v.name, t[i].name);
        assert_int_equal(strncmp(t[i].name, "LINCOLL_", 8), 0);
    }
    assert_string_equal(lc_config_name(LINCOLL_CONFIG_LAST), "LINCOLL_?");
    /* lc_config_reread_id parses by the table's rules, like lc_config_reread */
    lc_config_t cfg;
    memset(&cfg, 0, sizeof(cfg));
    setenv(lc_config_name(LINCOLL_CONFIG_PORTS), "3", 1);
    assert_int_equal(lc_config_reread_id(LINCOLL_CONFIG_PORTS, &cfg), LINCOLL_OK);
    assert_int_equal(cfg.ports, 3);
    unsetenv(lc_config_name(LINCOLL_CONFIG_PORTS));
    assert_int_equal(lc_config_reread_id(LINCOLL_CONFIG_LAST, &cfg), LINCOLL_ERR_INVALID);
    nlines = 0; /* the line that names the bad id */
}

/* ---- kernels name their own types ------------------------------------------ */

static void test_kernel_names(void **state)
{
    (void)state;
    for (int d = -1; d <= LINCOLL_DTYPE_LAST; d++)
        assert_string_equal(lc_kdtype_name((lincoll_dtype_t)d),
                            lincoll_dtype_name((lincoll_dtype_t)d));
    for (int o = -1; o <= LINCOLL_OP_LAST; o++)
        assert_string_equal(lc_kop_name((lincoll_op_t)o), lincoll_op_name((lincoll_op_t)o));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "kernels-auto") == 0) {
        const struct CMUnitTest t[] = {
            cmocka_unit_test_setup_teardown(test_kernels_auto_silent, capture_on, capture_off)};
        return cmocka_run_group_tests_name("kernels-auto", t, NULL, NULL);
    }
    if (strcmp(mode, "kernels-bad") == 0) {
        const struct CMUnitTest t[] = {
            cmocka_unit_test_setup_teardown(test_kernels_bad_values, capture_on, capture_off)};
        return cmocka_run_group_tests_name("kernels-bad", t, NULL, NULL);
    }
    if (strcmp(mode, "kernels-good") == 0) {
        const struct CMUnitTest t[] = {
            cmocka_unit_test_setup_teardown(test_kernels_good_values, capture_on, capture_off)};
        return cmocka_run_group_tests_name("kernels-good", t, NULL, NULL);
    }
    if (*mode != '\0') {
        fprintf(stderr, "usage: %s [kernels-auto|kernels-bad|kernels-good]\n", argv[0]);
        return 2;
    }
    const struct CMUnitTest t[] = {
        cmocka_unit_test_setup_teardown(test_reread, capture_on, capture_off),
        cmocka_unit_test_setup_teardown(test_ucx_table, capture_on, capture_off),
        cmocka_unit_test_setup_teardown(test_ucx_config_var, capture_on, capture_off),
        cmocka_unit_test_setup_teardown(test_ucx_transport_applies, capture_on, capture_off),
        cmocka_unit_test(test_kernel_names),
        cmocka_unit_test_setup_teardown(test_config_ids, capture_on, capture_off),
    };
    return cmocka_run_group_tests_name("layers_config", t, NULL, NULL);
}
