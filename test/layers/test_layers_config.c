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
 *                                      own type names agreeing with core's,
 *                                      the transports' rows nested in the one
 *                                      table (each reachable by its id, no
 *                                      name twice, values reaching the
 *                                      transport's settings)
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
#include "transports/sim/api.h"
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
    const lc_tl_ucx_var_row_t *t = lc_tl_ucx_var_table(&n);
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
    lc_tl_ucx_params_set(tp, &cfg.ucx);
    assert_int_equal(tp->err_mode_peer, strcmp(err_mode, "peer") == 0);
    unsetenv("LINCOLL_UCX_ERR_MODE");
}

static void test_ucx_table(void **state)
{
    (void)state;
    size_t n;
    const lc_tl_ucx_var_row_t *t = lc_tl_ucx_var_table(&n);
    assert_true(n >= 8 && n <= LC_TL_UCX_MAX_VARS);
    static const char *const must[] = {
        "UCX_MM_ERROR_HANDLING", "UCX_TLS",         "UCX_KEEPALIVE_INTERVAL", "UCX_TCP_TX_SEG_SIZE",
        "UCX_TCP_RX_SEG_SIZE",   "UCX_NET_DEVICES", "UCX_MAX_EAGER_LANES",    "UCX_RNDV_THRESH"};
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
    assert_null(find_var(&tp, "UCX_RNDV_THRESH")); /* shared memory: rendezvous kept */
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
    /* tcp only: eager at every size (full-duplex exchanges), either error mode */
    assert_string_equal(find_var(&tp, "UCX_RNDV_THRESH")->value, "inf");
    assert_false(find_var(&tp, "UCX_RNDV_THRESH")->in_env);
    params_for("none", "tcp", &tp);
    assert_string_equal(find_var(&tp, "UCX_RNDV_THRESH")->value, "inf");
    /* a UCX_TLS naming shared memory keeps MM_ERROR_HANDLING */
    params_for("peer", "sm,tcp", &tp);
    assert_non_null(find_var(&tp, "UCX_MM_ERROR_HANDLING"));
    assert_null(find_var(&tp, "UCX_MAX_EAGER_LANES"));
    assert_null(find_var(&tp, "UCX_RNDV_THRESH"));
    clear_ucx_env();
    assert_int_equal(nlines, 0);
}

/* lincoll_info -c's view: the UCX entries follow the LINCOLL_* ones. */
static void test_ucx_config_var(void **state)
{
    (void)state;
    size_t nl, nu;
    lc_config_table(&nl);
    lc_tl_ucx_var_table(&nu);
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
    nlines = 0; /* the line naming the bad index */
    /* the conditions follow the nested row's value: none, then a bad value
     * (its default, peer, and no log line: lincoll_config_check reports) */
    static const struct {
        const char *mode, *eager;
    } modes[] = {{"none", NULL}, {"bogus", "2"}};
    for (size_t m = 0; m < 2; m++) {
        setenv("LINCOLL_UCX_ERR_MODE", modes[m].mode, 1);
        size_t i = nl;
        while (i < nl + nu && (lincoll_config_var(i, &v) != LINCOLL_OK ||
                               strcmp(v.name, "UCX_MAX_EAGER_LANES") != 0))
            i++;
        assert_true(i < nl + nu);
        if (modes[m].eager == NULL) {
            assert_null(v.current);
        } else {
            assert_non_null(v.current);
            assert_string_equal(v.current, modes[m].eager);
        }
    }
    assert_int_equal(nlines, 0);
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

/* ---- the transports' rows, nested in the one table ----------------------------- */

/* Every transport's table, where its settings lie in lc_config_t, their size. */
static const struct {
    const lc_tl_config_t *tl;
    size_t nrows, base, settings_size;
} transports[] = {
    {&lc_tl_ucx_config, LC_TL_UCX_CONFIG_NROWS, offsetof(lc_config_t, ucx),
     sizeof(lc_tl_ucx_settings_t)},
    {&lc_tl_sim_config, LC_TL_SIM_CONFIG_NROWS, 0, 0},
};

/* Is transport row @p r reachable as itself: exactly one row of the table is
 * named LINCOLL_<suffix>, it is @p r's (its doc, default and values, its
 * field at @p base + offset of lc_config_t), and lc_config_name and
 * lincoll_config_var give it by its id?  Else 0, and why in @p why. */
static int nested_row_ok(const lc_tl_config_row_t *r, size_t base, char *why, size_t len)
{
    char name[96];
    snprintf(name, sizeof(name), "LINCOLL_%s", r->suffix);
    size_t n, hits = 0, at = 0;
    const lc_config_field_t *t = lc_config_table(&n);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(t[i].name, name) == 0) {
            hits++;
            at = i;
        }
    }
    if (hits != 1) {
        snprintf(why, len, "%s: %zu rows of the table have this name", name, hits);
        return 0;
    }
    if (t[at].doc != r->doc || t[at].dflt != r->dflt || t[at].values != r->values ||
        t[at].offset != base + r->offset || t[at].size != r->size) {
        snprintf(why, len, "%s: row %zu of the table is another row of that name", name, at);
        return 0;
    }
    lincoll_config_var_t v;
    if (strcmp(lc_config_name((lincoll_config_id_t)at), name) != 0 ||
        lincoll_config_var(at, &v) != LINCOLL_OK || strcmp(v.name, name) != 0 || v.doc != r->doc ||
        strcmp(v.default_value, r->dflt) != 0) {
        snprintf(why, len, "%s: not reachable by its id %zu", name, at);
        return 0;
    }
    return 1;
}

/* The size a row's field must have for its type (transport.h). */
static size_t field_size(lc_tl_config_type_t type)
{
    switch (type) {
    case LC_TL_CONFIG_INT:
        return sizeof(long);
    case LC_TL_CONFIG_SIZE:
        return sizeof(size_t);
    case LC_TL_CONFIG_TIME:
    case LC_TL_CONFIG_DOUBLE:
        return sizeof(double);
    case LC_TL_CONFIG_BOOL:
    case LC_TL_CONFIG_ENUM:
        return sizeof(int);
    case LC_TL_CONFIG_STRING:
        break;
    }
    return 0;
}

static void test_transport_rows(void **state)
{
    (void)state;
    char why[256];
    size_t n;
    const lc_config_field_t *t = lc_config_table(&n);
    assert_int_equal(n, LINCOLL_CONFIG_LAST);
    /* every id reachable, every name once (a transport row named like a
     * core row would be there twice) */
    for (size_t i = 0; i < n; i++) {
        lincoll_config_var_t v;
        assert_int_equal(lincoll_config_var(i, &v), LINCOLL_OK);
        assert_string_equal(v.name, lc_config_name((lincoll_config_id_t)i));
        assert_string_not_equal(v.name, "LINCOLL_?");
        for (size_t j = 0; j < i; j++) {
            if (strcmp(t[i].name, t[j].name) == 0) {
                print_message("%s is rows %zu and %zu\n", t[i].name, j, i);
            }
            assert_string_not_equal(t[i].name, t[j].name);
        }
    }
    size_t nested = 0;
    for (size_t k = 0; k < sizeof(transports) / sizeof(transports[0]); k++) {
        const lc_tl_config_t *tl = transports[k].tl;
        assert_non_null(tl->transport);
        assert_int_equal(tl->n_rows, transports[k].nrows);
        assert_true(tl->n_rows == 0 || tl->rows != NULL);
        for (size_t r = 0; r < tl->n_rows; r++) {
            const lc_tl_config_row_t *row = &tl->rows[r];
            int ok = nested_row_ok(row, transports[k].base, why, sizeof(why));
            if (!ok) print_message("%s transport: %s\n", tl->transport, why);
            assert_true(ok);
            /* its field fits the settings and its type */
            assert_true(row->offset + row->size <= transports[k].settings_size);
            if (row->type == LC_TL_CONFIG_STRING) {
                assert_true(row->size >= 2);
            } else {
                assert_int_equal(row->size, field_size(row->type));
            }
            assert_non_null(row->doc);
            nested++;
        }
    }
    assert_true(nested >= 2);
    /* the public ids of the ucx block are its rows, in order */
    assert_string_equal(lc_config_name(LINCOLL_CONFIG_UCX_ERR_MODE), "LINCOLL_UCX_ERR_MODE");
    assert_string_equal(lc_config_name(LINCOLL_CONFIG_UCX_LANES), "LINCOLL_UCX_LANES");
    assert_ptr_equal(t[LINCOLL_CONFIG_UCX_ERR_MODE].doc,
                     lc_tl_ucx_config.rows[LC_TL_UCX_CONFIG_ERR_MODE].doc);
    assert_ptr_equal(t[LINCOLL_CONFIG_UCX_LANES].doc,
                     lc_tl_ucx_config.rows[LC_TL_UCX_CONFIG_LANES].doc);

    /* the check finds a row named like a core row, and a row not nested */
    const lc_tl_config_row_t clash =
        LC_TL_CONFIG_ROW(TIMEOUT, LC_TL_CONFIG_ENUM, "a", "a|b", lc_tl_ucx_settings_t, err_mode,
                         "a transport row named like core's LINCOLL_TIMEOUT");
    assert_false(nested_row_ok(&clash, offsetof(lc_config_t, ucx), why, sizeof(why)));
    assert_non_null(strstr(why, "LINCOLL_TIMEOUT"));
    const lc_tl_config_row_t stray =
        LC_TL_CONFIG_ROW(UCX_NOT_NESTED, LC_TL_CONFIG_ENUM, "a", "a|b", lc_tl_ucx_settings_t,
                         err_mode, "a transport row no block nests");
    assert_false(nested_row_ok(&stray, offsetof(lc_config_t, ucx), why, sizeof(why)));
    assert_non_null(strstr(why, "0 rows"));
    assert_int_equal(nlines, 0);
}

/* The nested rows parse like core's, and their values reach the transport's
 * parameters through its settings. */
static void test_transport_rows_values(void **state)
{
    (void)state;
    const char *mode = lc_config_name(LINCOLL_CONFIG_UCX_ERR_MODE);
    const char *lanes = lc_config_name(LINCOLL_CONFIG_UCX_LANES);
    lc_config_t cfg;
    unsetenv(mode);
    unsetenv(lanes);
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
    assert_int_equal(cfg.ucx.err_mode, LC_TL_UCX_ERR_PEER); /* the defaults */
    assert_string_equal(cfg.ucx.lanes, "");
    lc_tl_ucx_params_t up = {0};
    lc_tl_ucx_params_set(&up, &cfg.ucx);
    assert_int_equal(up.err_mode_peer, 1);
    assert_null(up.lanes);

    setenv(mode, "NONE", 1);
    setenv(lanes, "emu0,emu1", 1);
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
    assert_int_equal(cfg.ucx.err_mode, LC_TL_UCX_ERR_NONE);
    assert_string_equal(cfg.ucx.lanes, "emu0,emu1");
    lc_tl_ucx_params_set(&up, &cfg.ucx);
    assert_int_equal(up.err_mode_peer, 0);
    assert_ptr_equal(up.lanes, cfg.ucx.lanes);
    for (unsigned i = 0; i < up.n_vars; i++) {
        assert_string_not_equal(up.vars[i].name, "UCX_KEEPALIVE_INTERVAL"); /* peer only */
    }
    assert_int_equal(nlines, 0);

    /* bad values: one error each, naming the variable; the defaults kept */
    char longer[400];
    memset(longer, 'x', sizeof(longer) - 1);
    longer[sizeof(longer) - 1] = '\0';
    setenv(mode, "sometimes", 1);
    setenv(lanes, longer, 1);
    assert_int_equal(lc_config_load(&cfg), LINCOLL_ERR_INVALID);
    assert_int_equal(cfg.ucx.err_mode, LC_TL_UCX_ERR_PEER);
    assert_string_equal(cfg.ucx.lanes, "");
    print_lines();
    assert_int_equal(nlines, 2);
    assert_non_null(strstr(lines[0], "LINCOLL_UCX_ERR_MODE=sometimes"));
    assert_non_null(strstr(lines[1], "LINCOLL_UCX_LANES"));
    assert_int_equal(lincoll_config_check(), LINCOLL_ERR_INVALID);
    assert_int_equal(nlines, 4);
    /* and one of them read again by its id */
    memset(&cfg, 0, sizeof(cfg));
    cfg.ucx.err_mode = 7;
    assert_int_equal(lc_config_reread_id(LINCOLL_CONFIG_UCX_ERR_MODE, &cfg), LINCOLL_ERR_INVALID);
    assert_int_equal(cfg.ucx.err_mode, LC_TL_UCX_ERR_PEER);
    setenv(mode, "none", 1);
    assert_int_equal(lc_config_reread_id(LINCOLL_CONFIG_UCX_ERR_MODE, &cfg), LINCOLL_OK);
    assert_int_equal(cfg.ucx.err_mode, LC_TL_UCX_ERR_NONE);
    unsetenv(mode);
    unsetenv(lanes);
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
        cmocka_unit_test_setup_teardown(test_transport_rows, capture_on, capture_off),
        cmocka_unit_test_setup_teardown(test_transport_rows_values, capture_on, capture_off),
    };
    return cmocka_run_group_tests_name("layers_config", t, NULL, NULL);
}
