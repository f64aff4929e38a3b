/*
 * test/unit/test_foundation.c: config table parsing, status strings, the log
 * handler, element-type tables and the tag layout at its bit limits.
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
#include "core/base/log.h"
#include "core/context/context.h"
#include "transports/transport.h"

/* ---- log capture ----------------------------------------------------------- */
static char last_msg[1024];
static int nlines;
static lincoll_log_level_t last_level;

static void capture(lincoll_log_level_t level, int rank, const char *file, int line,
                    const char *msg, void *arg)
{
    (void)rank, (void)file, (void)line;
    (*(int *)arg)++;
    nlines++;
    last_level = level;
    snprintf(last_msg, sizeof(last_msg), "%s", msg);
}

static int setup_capture(void **state)
{
    static int calls;
    calls = 0;
    nlines = 0;
    last_msg[0] = '\0';
    lincoll_log_set_handler(capture, &calls);
    *state = &calls;
    return 0;
}

static int teardown_capture(void **state)
{
    (void)state;
    lincoll_log_set_handler(NULL, NULL);
    return 0;
}

static const lc_config_field_t *field(const char *name)
{
    size_t n;
    const lc_config_field_t *t = lc_config_table(&n);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(t[i].name, name) == 0) return &t[i];
    }
    return NULL;
}

static void test_config_defaults(void **state)
{
    (void)state;
    unsetenv("LINCOLL_TIMEOUT");
    unsetenv("LINCOLL_LOG_LEVEL");
    lc_config_t cfg;
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
    assert_true(cfg.timeout == 60.0);
    assert_int_equal(cfg.log_level, LINCOLL_LOG_WARN);
    char tname[32];
    assert_non_null(lc_transport_configured(&cfg, tname, sizeof(tname)));
    assert_string_equal(tname, "ucx");
    /* every value of LINCOLL_TRANSPORT names one entry of the transport array */
    for (cfg.transport = 0; lc_transport_configured(&cfg, tname, sizeof(tname)); cfg.transport++) {
        int found = 0;
        for (const lc_transport_t *const *t = lc_transports; *t != NULL; t++)
            found += strcmp((*t)->ops->name, tname) == 0;
        assert_int_equal(found, 1);
    }
    assert_int_equal(cfg.transport, 2); /* ucx, sim */
    assert_int_equal(cfg.zcopy_threshold, 2 * 1024);
    assert_int_equal(cfg.rank, -1);
    /* every variable has a name, a default that parses, and a doc */
    size_t n;
    const lc_config_field_t *t = lc_config_table(&n);
    assert_true(n >= 15);
    for (size_t i = 0; i < n; i++) {
        assert_non_null(t[i].doc);
        assert_true(strncmp(t[i].name, "LINCOLL_", 8) == 0);
        assert_int_equal(lc_config_parse_field(&t[i], t[i].dflt, &cfg), LINCOLL_OK);
        lincoll_config_var_t v;
        assert_int_equal(lincoll_config_var(i, &v), LINCOLL_OK);
        assert_string_equal(v.name, t[i].name);
    }
    assert_int_equal(lincoll_config_var(n, NULL), LINCOLL_ERR_INVALID);
}

static void test_config_values(void **state)
{
    int *calls = *state;
    lc_config_t cfg;
    memset(&cfg, 0, sizeof(cfg));
    struct {
        const char *name, *text;
        lincoll_status_t want;
    } cases[] = {
        {"LINCOLL_TIMEOUT", "2.5", LINCOLL_OK},
        {"LINCOLL_TIMEOUT", "-1", LINCOLL_ERR_INVALID},
        {"LINCOLL_TIMEOUT", "abc", LINCOLL_ERR_INVALID},
        {"LINCOLL_TIMEOUT", "inf", LINCOLL_ERR_INVALID},
        {"LINCOLL_LOG_LEVEL", "DEBUG", LINCOLL_OK},
        {"LINCOLL_LOG_LEVEL", "loud", LINCOLL_ERR_INVALID},
        {"LINCOLL_PORTS", "4", LINCOLL_OK},
        {"LINCOLL_PORTS", "65", LINCOLL_ERR_INVALID},
        {"LINCOLL_PORTS", "3x", LINCOLL_ERR_INVALID},
        {"LINCOLL_PLAN_DUMP", "yes", LINCOLL_OK},
        {"LINCOLL_PLAN_DUMP", "maybe", LINCOLL_ERR_INVALID},
        {"LINCOLL_COLL_ZCOPY_THRESHOLD", "1m", LINCOLL_OK},
        {"LINCOLL_COLL_ZCOPY_THRESHOLD", "12q", LINCOLL_ERR_INVALID},
        {"LINCOLL_COLL_ZCOPY_THRESHOLD", "99999999999999999999", LINCOLL_ERR_INVALID},
        {"LINCOLL_MODEL_BW", "0", LINCOLL_ERR_INVALID},
        {"LINCOLL_MODEL_BW", "1e10", LINCOLL_OK},
        {"LINCOLL_KERNEL_ISA", "avx2", LINCOLL_OK},
        {"LINCOLL_KERNEL_ISA", "sse9", LINCOLL_ERR_INVALID},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const lc_config_field_t *f = field(cases[i].name);
        assert_non_null(f);
        int before = *calls;
        assert_int_equal(lc_config_parse_field(f, cases[i].text, &cfg), cases[i].want);
        if (cases[i].want != LINCOLL_OK) {
            /* exactly one log line, and it names the variable */
            assert_int_equal(*calls, before + 1);
            assert_non_null(strstr(last_msg, cases[i].name));
        } else {
            assert_int_equal(*calls, before);
        }
    }
    assert_true(cfg.model_bw == 1e10);
    assert_int_equal(cfg.zcopy_threshold, 1 << 20);
    assert_int_equal(cfg.ports, 4);
    assert_int_equal(cfg.plan_dump, 1);
    /* a string longer than its buffer is refused */
    char long_secret[300];
    memset(long_secret, 'x', sizeof(long_secret) - 1);
    long_secret[sizeof(long_secret) - 1] = '\0';
    assert_int_equal(lc_config_parse_field(field("LINCOLL_JOB_SECRET"), long_secret, &cfg),
                     LINCOLL_ERR_INVALID);
}

static void test_config_env(void **state)
{
    int *calls = *state;
    lc_config_t cfg;
    setenv("LINCOLL_TIMEOUT", "7", 1);
    setenv("LINCOLL_PORTS", "3", 1);
    assert_int_equal(lc_config_load(&cfg), LINCOLL_OK);
    assert_true(cfg.timeout == 7.0);
    assert_int_equal(cfg.ports, 3);
    setenv("LINCOLL_PORTS", "-2", 1);
    setenv("LINCOLL_TRANSPORT", "carrier-pigeon", 1);
    int before = *calls;
    assert_int_equal(lc_config_load(&cfg), LINCOLL_ERR_INVALID);
    assert_int_equal(*calls, before + 2); /* every bad variable is reported */
    assert_int_equal(lincoll_config_check(), LINCOLL_ERR_INVALID);
    /* lincoll_init refuses a bad environment before touching any launcher */
    lincoll_context_t *ctx = NULL;
    assert_int_equal(lincoll_init(NULL, &ctx), LINCOLL_ERR_INVALID);
    assert_null(ctx);
    unsetenv("LINCOLL_PORTS");
    unsetenv("LINCOLL_TRANSPORT");
    unsetenv("LINCOLL_TIMEOUT");
}

static void test_status_strings(void **state)
{
    (void)state;
    const char *seen[32] = {0};
    int n = 0;
    for (int s = LINCOLL_INPROGRESS; s >= LINCOLL_ERR_INTERNAL; s--) {
        const char *str = lincoll_strerror((lincoll_status_t)s);
        assert_non_null(str);
        assert_string_not_equal(str, "unknown status");
        for (int i = 0; i < n; i++)
            assert_string_not_equal(seen[i], str);
        seen[n++] = str;
        assert_true(s >= 0 || LINCOLL_IS_ERR(s));
    }
    assert_string_equal(lincoll_strerror((lincoll_status_t)-9999), "unknown status");
    assert_false(LINCOLL_IS_ERR(LINCOLL_OK));
    assert_false(LINCOLL_IS_ERR(LINCOLL_INPROGRESS));
}

static void test_dtypes(void **state)
{
    (void)state;
    assert_int_equal(lincoll_dtype_size(LINCOLL_INT8), 1);
    assert_int_equal(lincoll_dtype_size(LINCOLL_BFLOAT16), 2);
    assert_int_equal(lincoll_dtype_size(LINCOLL_DOUBLE), 8);
    assert_int_equal(lincoll_dtype_size(LINCOLL_DTYPE_LAST), 0);
    assert_int_equal(lincoll_dtype_size((lincoll_dtype_t)-1), 0);
    assert_string_equal(lincoll_dtype_name(LINCOLL_FLOAT), "float");
    assert_string_equal(lincoll_dtype_name(LINCOLL_DTYPE_LAST), "unknown");
    assert_string_equal(lincoll_op_name(LINCOLL_MAX), "max");
    assert_string_equal(lincoll_op_name(LINCOLL_OP_LAST), "unknown");
}

static void test_log_levels(void **state)
{
    int *calls = *state;
    assert_int_equal(lincoll_log_set_level(LINCOLL_LOG_ERROR), LINCOLL_OK);
    int before = *calls;
    lc_warn("dropped at level error");
    assert_int_equal(*calls, before);
    lc_error("kept %d", 42);
    assert_int_equal(*calls, before + 1);
    assert_int_equal(last_level, LINCOLL_LOG_ERROR);
    assert_string_equal(last_msg, "kept 42");
    assert_int_equal(lincoll_log_set_level((lincoll_log_level_t)9), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_log_set_level(LINCOLL_LOG_WARN), LINCOLL_OK);
}

static void test_tag_layout(void **state)
{
    (void)state;
    const unsigned comm_max = (1u << LC_TAG_COMM_BITS) - 1, seq_max = (1u << LC_TAG_SEQ_BITS) - 1;
    const unsigned src_max = (1u << LC_TAG_SRC_BITS) - 1, round_max = (1u << LC_TAG_ROUND_BITS) - 1;
    uint64_t t = lc_tag_make(comm_max, seq_max, src_max, round_max);
    assert_true((t | LC_TAG_P2P) == UINT64_MAX);
    assert_true((t & LC_TAG_P2P) == 0); /* the point-to-point bit is set only explicitly */
    assert_int_equal(LC_TAG_FIELD(t | LC_TAG_P2P, SRC), src_max);
    assert_int_equal(LC_TAG_FIELD(t | LC_TAG_P2P, SEQ), seq_max);
    assert_int_equal(LC_TAG_FIELD(t, COMM), comm_max);
    assert_int_equal(LC_TAG_FIELD(t, ROUND), round_max);
    t = lc_tag_make(5, 77, 123456, 999);
    assert_int_equal(LC_TAG_FIELD(t, COMM), 5);
    assert_int_equal(LC_TAG_FIELD(t, SEQ), 77);
    assert_int_equal(LC_TAG_FIELD(t, SRC), 123456);
    assert_int_equal(LC_TAG_FIELD(t, ROUND), 999);
    /* values beyond a field wrap inside it and never spill into a neighbour */
    t = lc_tag_make(0, seq_max + 1, 0, round_max + 1);
    assert_true(t == 0);
    assert_int_equal(LC_TAG_COMM_BITS + LC_TAG_SEQ_BITS + LC_TAG_P2P_BITS + LC_TAG_SRC_BITS +
                         LC_TAG_ROUND_BITS,
                     64);
}

static void test_public_null_args(void **state)
{
    int *calls = *state;
    int before = *calls;
    lincoll_comm_t *c;
    assert_int_equal(lincoll_init(NULL, NULL), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_comm_world(NULL, &c), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_comm_rank(NULL), -1);
    assert_int_equal(lincoll_comm_size(NULL), -1);
    assert_int_equal(lincoll_comm_split(NULL, 0, 0, &c), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_barrier(NULL), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_progress(NULL), LINCOLL_ERR_INVALID);
    void *p;
    assert_int_equal(lincoll_mem_alloc(NULL, 64, &p), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_mem_free(NULL, p), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_mem_register(NULL, &p, 8), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_mem_deregister(NULL, &p), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_start(NULL), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_test(NULL), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_wait(NULL), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_plan_free(NULL), LINCOLL_OK);
    assert_int_equal(lincoll_finalize(NULL), LINCOLL_OK);
    assert_int_equal(lincoll_comm_free(NULL), LINCOLL_OK);
    assert_int_equal(lincoll_win_create(NULL, &p, 8, NULL), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_put(NULL, 0, &p, 8, 0, 0), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_win_flush(NULL), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_info_kernel_isa(NULL, NULL), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_info_topology(NULL, 0), LINCOLL_ERR_INVALID);
    /* every rejection logged exactly one line */
    assert_int_equal(*calls - before, 17);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_config_defaults, setup_capture, teardown_capture),
        cmocka_unit_test_setup_teardown(test_config_values, setup_capture, teardown_capture),
        cmocka_unit_test_setup_teardown(test_config_env, setup_capture, teardown_capture),
        cmocka_unit_test(test_status_strings),
        cmocka_unit_test(test_dtypes),
        cmocka_unit_test_setup_teardown(test_log_levels, setup_capture, teardown_capture),
        cmocka_unit_test(test_tag_layout),
        cmocka_unit_test_setup_teardown(test_public_null_args, setup_capture, teardown_capture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
