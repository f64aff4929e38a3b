/*
 * test/reliability/test_api_misuse.c: the public-API misuse table.
 *
 * Every public function (of the families that have landed) is called with
 * each class of bad argument it takes — NULL handle, NULL output pointer,
 * NULL buffer, zero or oversized size, rank/root/peer out of range, unknown
 * enum value, overlapping buffers, meaningless (dtype, op), wrong state — and
 * must return the expected status and write nothing: output pointers keep a
 * sentinel, output buffers keep their fill pattern.  Each row is one line of
 * the table (function, class, expected status); the test prints the failing
 * rows and the row count, and fails if any row failed.
 *
 * "Nothing written" follows context.h ("set only on success"): an output
 * pointer is not cleared on failure either.
 *
 * Handles come from two sim virtual ranks (lc_simh): bad-argument calls
 * return before any communication, so no call can block.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <lincoll/coll.h>
#include <lincoll/lincoll.h>

#include "common/sim_harness.h"

#define NB       64
#define SENT_PTR ((void *)(uintptr_t)0x5e5e5e5e5e5e5e50ull)
#define FILL     0x5a

static unsigned char S[NB * 4], R[NB * 4];
static lincoll_plan_t *PLAN;
static lincoll_comm_t *COMM_OUT;
static lincoll_context_t *CTX_OUT;
static lincoll_win_t *WIN_OUT;
static void *ADDR_OUT;
static lincoll_field_t *FIELD_OUT;
static lincoll_plan_stats_t STATS;
static char TEXT[64];
static int rows, failures;

static void reset(void)
{
    memset(S, FILL, sizeof(S));
    memset(R, FILL, sizeof(R));
    memset(&STATS, FILL, sizeof(STATS));
    memset(TEXT, FILL, sizeof(TEXT));
    PLAN = SENT_PTR;
    COMM_OUT = SENT_PTR;
    CTX_OUT = SENT_PTR;
    WIN_OUT = SENT_PTR;
    ADDR_OUT = SENT_PTR;
    FIELD_OUT = SENT_PTR;
}

static int all_fill(const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        if (c[i] != FILL) return 0;
    return 1;
}

static const char *untouched(void)
{
    if (PLAN != SENT_PTR) return "plan_p written";
    if (COMM_OUT != SENT_PTR) return "comm_p written";
    if (CTX_OUT != SENT_PTR) return "ctx_p written";
    if (WIN_OUT != SENT_PTR) return "win_p written";
    if (ADDR_OUT != SENT_PTR) return "addr_p written";
    if (FIELD_OUT != SENT_PTR) return "field_p written";
    if (!all_fill(S, sizeof(S))) return "send buffer written";
    if (!all_fill(R, sizeof(R))) return "receive buffer written";
    if (!all_fill(&STATS, sizeof(STATS))) return "stats written";
    if (!all_fill(TEXT, sizeof(TEXT))) return "text written";
    return NULL;
}

static void check(const char *fn, const char *cls, long expect, long got, int line)
{
    rows++;
    const char *w = untouched();
    if (got != expect || w != NULL) {
        failures++;
        print_message("MISUSE FAIL line %d: %s [%s]: expected %ld (%s), got %ld (%s)%s%s\n", line,
                      fn, cls, expect, lincoll_strerror((lincoll_status_t)expect), got,
                      lincoll_strerror((lincoll_status_t)got), w ? "; " : "", w ? w : "");
    }
}

/* ROW(function, class, expected status, call) */
#define ROW(fn, cls, expect, call)                                                                 \
    do {                                                                                           \
        reset();                                                                                   \
        long got_ = (long)(call);                                                                  \
        check(fn, cls, (long)(expect), got_, __LINE__);                                            \
    } while (0)
/* a row whose function returns a string: compare it */
#define ROW_STR(fn, cls, expect, call)                                                             \
    do {                                                                                           \
        reset();                                                                                   \
        const char *s_ = (call);                                                                   \
        check(fn, cls, 0, (s_ != NULL && strcmp(s_, expect) == 0) ? 0 : -100, __LINE__);           \
    } while (0)

#define INV   LINCOLL_ERR_INVALID
#define UNSUP LINCOLL_ERR_UNSUPPORTED
#define BADT  ((lincoll_dtype_t)LINCOLL_DTYPE_LAST)
#define BADO  ((lincoll_op_t)LINCOLL_OP_LAST)
#define NEGT  ((lincoll_dtype_t)-1)

static void test_misuse_table(void **state)
{
    (void)state;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, 2, 1), 0);
    lincoll_comm_t *c = h.comm[0];
    lincoll_context_t *ctx = h.ctx[0];
    const size_t counts[2] = {4, 4};
    const size_t huge = SIZE_MAX / 2;

    /* ---- types / status (pure functions) ---- */
    ROW("lincoll_dtype_size", "unknown dtype", 0, lincoll_dtype_size(BADT));
    ROW("lincoll_dtype_size", "negative dtype", 0, lincoll_dtype_size(NEGT));
    ROW_STR("lincoll_dtype_name", "unknown dtype", "unknown", lincoll_dtype_name(BADT));
    ROW_STR("lincoll_dtype_name", "negative dtype", "unknown", lincoll_dtype_name(NEGT));
    ROW_STR("lincoll_op_name", "unknown op", "unknown", lincoll_op_name(BADO));
    ROW_STR("lincoll_op_name", "negative op", "unknown", lincoll_op_name((lincoll_op_t)-7));
    ROW_STR("lincoll_strerror", "unknown status", "unknown status",
            lincoll_strerror((lincoll_status_t)12345));
    ROW_STR("lincoll_strerror", "negative unknown status", "unknown status",
            lincoll_strerror((lincoll_status_t)-12345));

    /* ---- log / info ---- */
    ROW("lincoll_log_set_level", "level out of range", INV,
        lincoll_log_set_level((lincoll_log_level_t)999));
    ROW("lincoll_log_set_level", "negative level", INV,
        lincoll_log_set_level((lincoll_log_level_t)-1));
    ROW("lincoll_config_var", "NULL out", INV, lincoll_config_var(0, NULL));
    {
        lincoll_config_var_t v;
        ROW("lincoll_config_var", "index out of range", INV,
            lincoll_config_var(lincoll_config_var_count(), &v));
    }
    ROW("lincoll_info_topology", "NULL buffer", INV, lincoll_info_topology(NULL, 64));
    ROW("lincoll_info_topology", "zero length", INV, lincoll_info_topology((char *)TEXT, 0));

    /* ---- context ---- */
    ROW("lincoll_init", "NULL ctx_p", INV, lincoll_init(NULL, NULL));
    {
        lincoll_init_params_t p = {.ports = -3, .timeout = -1};
        ROW("lincoll_init", "negative ports", INV, lincoll_init(&p, &CTX_OUT));
        p.ports = 1 << 20;
        ROW("lincoll_init", "ports too large", INV, lincoll_init(&p, &CTX_OUT));
    }
    ROW("lincoll_finalize", "NULL ctx (no-op)", LINCOLL_OK, lincoll_finalize(NULL));
    ROW("lincoll_comm_world", "NULL ctx", INV, lincoll_comm_world(NULL, &COMM_OUT));
    ROW("lincoll_comm_world", "NULL comm_p", INV, lincoll_comm_world(ctx, NULL));
    ROW("lincoll_comm_rank", "NULL comm", -1, lincoll_comm_rank(NULL));
    ROW("lincoll_comm_size", "NULL comm", -1, lincoll_comm_size(NULL));
    ROW("lincoll_comm_split", "NULL comm", INV, lincoll_comm_split(NULL, 0, 0, &COMM_OUT));
    ROW("lincoll_comm_split", "NULL new_p", INV, lincoll_comm_split(c, 0, 0, NULL));
    ROW("lincoll_comm_free", "NULL comm (no-op)", LINCOLL_OK, lincoll_comm_free(NULL));
    ROW("lincoll_comm_free", "the world", INV, lincoll_comm_free(c));
    ROW("lincoll_barrier", "NULL comm", INV, lincoll_barrier(NULL));
    ROW("lincoll_progress", "NULL ctx", INV, lincoll_progress(NULL));
    ROW("lincoll_mem_alloc", "NULL ctx", INV, lincoll_mem_alloc(NULL, 64, &ADDR_OUT));
    ROW("lincoll_mem_alloc", "zero bytes", INV, lincoll_mem_alloc(ctx, 0, &ADDR_OUT));
    ROW("lincoll_mem_alloc", "NULL addr_p", INV, lincoll_mem_alloc(ctx, 64, NULL));
    ROW("lincoll_mem_alloc", "absurd size", INV,
        lincoll_mem_alloc(ctx, SIZE_MAX - 4096, &ADDR_OUT));
    ROW("lincoll_mem_free", "NULL ctx", INV, lincoll_mem_free(NULL, S));
    ROW("lincoll_mem_free", "NULL addr (no-op)", LINCOLL_OK, lincoll_mem_free(ctx, NULL));
    ROW("lincoll_mem_free", "not lincoll memory", INV, lincoll_mem_free(ctx, S));
    ROW("lincoll_mem_register", "NULL ctx", INV, lincoll_mem_register(NULL, S, 64));
    ROW("lincoll_mem_register", "NULL addr", INV, lincoll_mem_register(ctx, NULL, 64));
    ROW("lincoll_mem_register", "zero bytes", INV, lincoll_mem_register(ctx, S, 0));
    ROW("lincoll_mem_deregister", "NULL ctx", INV, lincoll_mem_deregister(NULL, S));
    ROW("lincoll_mem_deregister", "not registered", INV, lincoll_mem_deregister(ctx, S));

    /* ---- plans ---- */
    ROW("lincoll_start", "NULL plan", INV, lincoll_start(NULL));
    ROW("lincoll_test", "NULL plan", INV, lincoll_test(NULL));
    ROW("lincoll_wait", "NULL plan", INV, lincoll_wait(NULL));
    ROW("lincoll_plan_free", "NULL plan (no-op)", LINCOLL_OK, lincoll_plan_free(NULL));
    ROW("lincoll_plan_stats", "NULL plan", INV, lincoll_plan_stats(NULL, &STATS));
    ROW("lincoll_plan_dump", "NULL plan", INV, lincoll_plan_dump(NULL, TEXT, sizeof(TEXT)));
    {
        lincoll_plan_t *ok;
        static unsigned char s2[2 * NB], r2[2 * NB];
        assert_int_equal(lincoll_alltoall_init(c, s2, r2, NB, 1, &ok), LINCOLL_OK);
        ROW("lincoll_plan_stats", "NULL stats", INV, lincoll_plan_stats(ok, NULL));
        ROW("lincoll_plan_dump", "NULL buf", INV, lincoll_plan_dump(ok, NULL, 64));
        ROW("lincoll_plan_dump", "zero len", INV, lincoll_plan_dump(ok, TEXT, 0));
        /* an inactive plan is complete (as an inactive MPI persistent request) */
        ROW("lincoll_test", "never started", LINCOLL_OK, lincoll_test(ok));
        ROW("lincoll_wait", "never started", LINCOLL_OK, lincoll_wait(ok));
        assert_int_equal(lincoll_start(ok), LINCOLL_OK);
        ROW("lincoll_start", "already running", LINCOLL_ERR_BUSY, lincoll_start(ok));
        lincoll_plan_free(ok); /* cancels the running plan */
    }

    /* ---- p2p / all-to-all ---- */
    ROW("lincoll_ring_shift_init", "NULL comm", INV,
        lincoll_ring_shift_init(NULL, S, R, NB, 1, &PLAN));
    ROW("lincoll_ring_shift_init", "NULL plan_p", INV,
        lincoll_ring_shift_init(c, S, R, NB, 1, NULL));
    ROW("lincoll_ring_shift_init", "NULL sbuf", INV,
        lincoll_ring_shift_init(c, NULL, R, NB, 1, &PLAN));
    ROW("lincoll_ring_shift_init", "NULL rbuf", INV,
        lincoll_ring_shift_init(c, S, NULL, NB, 1, &PLAN));
    ROW("lincoll_ring_shift_init", "overlap", INV,
        lincoll_ring_shift_init(c, S, S + 8, NB, 1, &PLAN));
    ROW("lincoll_alltoall_init", "NULL comm", INV, lincoll_alltoall_init(NULL, S, R, NB, 1, &PLAN));
    ROW("lincoll_alltoall_init", "NULL plan_p", INV, lincoll_alltoall_init(c, S, R, NB, 1, NULL));
    ROW("lincoll_alltoall_init", "NULL sbuf", INV, lincoll_alltoall_init(c, NULL, R, NB, 1, &PLAN));
    ROW("lincoll_alltoall_init", "NULL rbuf", INV, lincoll_alltoall_init(c, S, NULL, NB, 1, &PLAN));
    ROW("lincoll_alltoall_init", "overlap", INV, lincoll_alltoall_init(c, S, S + 4, NB, 1, &PLAN));
    ROW("lincoll_alltoall_init", "negative ports", INV,
        lincoll_alltoall_init(c, S, R, NB, -1, &PLAN));
    ROW("lincoll_alltoall_init", "ports too large", INV,
        lincoll_alltoall_init(c, S, R, NB, 65, &PLAN));
    ROW("lincoll_alltoall_init", "size overflow", INV,
        lincoll_alltoall_init(c, S, R, huge, 1, &PLAN));
    ROW("lincoll_sendrecv_init", "NULL comm", INV,
        lincoll_sendrecv_init(NULL, S, 8, 1, R, 8, 1, LINCOLL_SENDRECV_CONCURRENT, &PLAN));
    ROW("lincoll_sendrecv_init", "NULL plan_p", INV,
        lincoll_sendrecv_init(c, S, 8, 1, R, 8, 1, LINCOLL_SENDRECV_CONCURRENT, NULL));
    ROW("lincoll_sendrecv_init", "dst out of range", INV,
        lincoll_sendrecv_init(c, S, 8, 2, R, 8, 1, LINCOLL_SENDRECV_CONCURRENT, &PLAN));
    ROW("lincoll_sendrecv_init", "src out of range", INV,
        lincoll_sendrecv_init(c, S, 8, 1, R, 8, 7, LINCOLL_SENDRECV_CONCURRENT, &PLAN));
    ROW("lincoll_sendrecv_init", "NULL sbuf", INV,
        lincoll_sendrecv_init(c, NULL, 8, 1, R, 8, 1, LINCOLL_SENDRECV_CONCURRENT, &PLAN));
    ROW("lincoll_sendrecv_init", "NULL rbuf", INV,
        lincoll_sendrecv_init(c, S, 8, 1, NULL, 8, 1, LINCOLL_SENDRECV_CONCURRENT, &PLAN));
    ROW("lincoll_sendrecv_init", "self ping (never matches)", INV,
        lincoll_sendrecv_init(c, S, 8, 0, R, 8, 0, LINCOLL_SENDRECV_SEND_FIRST, &PLAN));
    ROW("lincoll_sendrecv_init", "send to self, receive from a peer", INV,
        lincoll_sendrecv_init(c, S, 8, 0, R, 8, 1, LINCOLL_SENDRECV_CONCURRENT, &PLAN));
    ROW("lincoll_sendrecv_init", "unknown order", INV,
        lincoll_sendrecv_init(c, S, 8, 1, R, 8, 1, (lincoll_sendrecv_order_t)9, &PLAN));

    /* ---- reduction collectives (the same classes for each) ---- */
#define COLL_ROWS(name, call_comm, call_plan, call_s, call_r, call_t, call_o)                      \
    ROW(name, "NULL comm", INV, call_comm);                                                        \
    ROW(name, "NULL plan_p", INV, call_plan);                                                      \
    ROW(name, "NULL sbuf", INV, call_s);                                                           \
    ROW(name, "NULL rbuf", INV, call_r);                                                           \
    ROW(name, "unknown dtype", INV, call_t);                                                       \
    ROW(name, "unknown op", INV, call_o)
    COLL_ROWS("lincoll_allreduce_init",
              lincoll_allreduce_init(NULL, S, R, 4, LINCOLL_INT32, LINCOLL_SUM, &PLAN),
              lincoll_allreduce_init(c, S, R, 4, LINCOLL_INT32, LINCOLL_SUM, NULL),
              lincoll_allreduce_init(c, NULL, R, 4, LINCOLL_INT32, LINCOLL_SUM, &PLAN),
              lincoll_allreduce_init(c, S, NULL, 4, LINCOLL_INT32, LINCOLL_SUM, &PLAN),
              lincoll_allreduce_init(c, S, R, 4, BADT, LINCOLL_SUM, &PLAN),
              lincoll_allreduce_init(c, S, R, 4, LINCOLL_INT32, BADO, &PLAN));
    ROW("lincoll_allreduce_init", "bxor on float", UNSUP,
        lincoll_allreduce_init(c, S, R, 4, LINCOLL_FLOAT, LINCOLL_BXOR, &PLAN));
    ROW("lincoll_allreduce_init", "sum on bytes", UNSUP,
        lincoll_allreduce_init(c, S, R, 4, LINCOLL_BYTE, LINCOLL_SUM, &PLAN));
    ROW("lincoll_allreduce_init", "partial overlap", INV,
        lincoll_allreduce_init(c, S, S + 4, 4, LINCOLL_INT32, LINCOLL_SUM, &PLAN));
    ROW("lincoll_allreduce_init", "count overflow", INV,
        lincoll_allreduce_init(c, S, R, huge, LINCOLL_INT64, LINCOLL_SUM, &PLAN));
    ROW("lincoll_allreduce", "NULL comm", INV,
        lincoll_allreduce(NULL, S, R, 4, LINCOLL_INT32, LINCOLL_SUM));
    ROW("lincoll_allreduce", "unknown dtype", INV,
        lincoll_allreduce(c, S, R, 4, NEGT, LINCOLL_SUM));
    COLL_ROWS("lincoll_reduce_scatter_init",
              lincoll_reduce_scatter_init(NULL, S, R, 4, LINCOLL_INT32, LINCOLL_SUM, &PLAN),
              lincoll_reduce_scatter_init(c, S, R, 4, LINCOLL_INT32, LINCOLL_SUM, NULL),
              lincoll_reduce_scatter_init(c, NULL, R, 4, LINCOLL_INT32, LINCOLL_SUM, &PLAN),
              lincoll_reduce_scatter_init(c, S, NULL, 4, LINCOLL_INT32, LINCOLL_SUM, &PLAN),
              lincoll_reduce_scatter_init(c, S, R, 4, BADT, LINCOLL_SUM, &PLAN),
              lincoll_reduce_scatter_init(c, S, R, 4, LINCOLL_INT32, BADO, &PLAN));
    ROW("lincoll_reduce_scatter", "NULL comm", INV,
        lincoll_reduce_scatter(NULL, S, R, 4, LINCOLL_INT32, LINCOLL_SUM));
    COLL_ROWS("lincoll_reduce_scatterv_init",
              lincoll_reduce_scatterv_init(NULL, S, R, counts, LINCOLL_INT32, LINCOLL_SUM, &PLAN),
              lincoll_reduce_scatterv_init(c, S, R, counts, LINCOLL_INT32, LINCOLL_SUM, NULL),
              lincoll_reduce_scatterv_init(c, NULL, R, counts, LINCOLL_INT32, LINCOLL_SUM, &PLAN),
              lincoll_reduce_scatterv_init(c, S, NULL, counts, LINCOLL_INT32, LINCOLL_SUM, &PLAN),
              lincoll_reduce_scatterv_init(c, S, R, counts, BADT, LINCOLL_SUM, &PLAN),
              lincoll_reduce_scatterv_init(c, S, R, counts, LINCOLL_INT32, BADO, &PLAN));
    ROW("lincoll_reduce_scatterv_init", "NULL counts", INV,
        lincoll_reduce_scatterv_init(c, S, R, NULL, LINCOLL_INT32, LINCOLL_SUM, &PLAN));
    {
        const size_t big[2] = {huge, huge};
        ROW("lincoll_reduce_scatterv_init", "counts overflow", INV,
            lincoll_reduce_scatterv_init(c, S, R, big, LINCOLL_INT32, LINCOLL_SUM, &PLAN));
        ROW("lincoll_allgatherv_init", "counts overflow", INV,
            lincoll_allgatherv_init(c, S, R, big, LINCOLL_INT32, &PLAN));
    }
    ROW("lincoll_reduce_scatterv", "NULL counts", INV,
        lincoll_reduce_scatterv(c, S, R, NULL, LINCOLL_INT32, LINCOLL_SUM));
    ROW("lincoll_allgather_init", "NULL comm", INV,
        lincoll_allgather_init(NULL, S, R, 4, LINCOLL_INT32, &PLAN));
    ROW("lincoll_allgather_init", "NULL plan_p", INV,
        lincoll_allgather_init(c, S, R, 4, LINCOLL_INT32, NULL));
    ROW("lincoll_allgather_init", "NULL sbuf", INV,
        lincoll_allgather_init(c, NULL, R, 4, LINCOLL_INT32, &PLAN));
    ROW("lincoll_allgather_init", "NULL rbuf", INV,
        lincoll_allgather_init(c, S, NULL, 4, LINCOLL_INT32, &PLAN));
    ROW("lincoll_allgather_init", "unknown dtype", INV,
        lincoll_allgather_init(c, S, R, 4, BADT, &PLAN));
    ROW("lincoll_allgather_init", "partial overlap", INV,
        lincoll_allgather_init(c, R + 2, R, 4, LINCOLL_INT32, &PLAN));
    ROW("lincoll_allgather", "NULL comm", INV, lincoll_allgather(NULL, S, R, 4, LINCOLL_INT32));
    ROW("lincoll_allgatherv_init", "NULL counts", INV,
        lincoll_allgatherv_init(c, S, R, NULL, LINCOLL_INT32, &PLAN));
    ROW("lincoll_allgatherv_init", "NULL plan_p", INV,
        lincoll_allgatherv_init(c, S, R, counts, LINCOLL_INT32, NULL));
    ROW("lincoll_allgatherv_init", "unknown dtype", INV,
        lincoll_allgatherv_init(c, S, R, counts, NEGT, &PLAN));
    ROW("lincoll_allgatherv", "NULL comm", INV,
        lincoll_allgatherv(NULL, S, R, counts, LINCOLL_INT32));
    ROW("lincoll_bcast_init", "NULL comm", INV,
        lincoll_bcast_init(NULL, S, 4, LINCOLL_INT32, 0, &PLAN));
    ROW("lincoll_bcast_init", "NULL plan_p", INV,
        lincoll_bcast_init(c, S, 4, LINCOLL_INT32, 0, NULL));
    ROW("lincoll_bcast_init", "NULL buf", INV,
        lincoll_bcast_init(c, NULL, 4, LINCOLL_INT32, 0, &PLAN));
    ROW("lincoll_bcast_init", "root out of range", INV,
        lincoll_bcast_init(c, S, 4, LINCOLL_INT32, 2, &PLAN));
    ROW("lincoll_bcast_init", "negative root", INV,
        lincoll_bcast_init(c, S, 4, LINCOLL_INT32, -1, &PLAN));
    ROW("lincoll_bcast_init", "unknown dtype", INV, lincoll_bcast_init(c, S, 4, BADT, 0, &PLAN));
    ROW("lincoll_bcast", "root out of range", INV, lincoll_bcast(c, S, 4, LINCOLL_INT32, 5));
    ROW("lincoll_reduce_init", "NULL comm", INV,
        lincoll_reduce_init(NULL, S, R, 4, LINCOLL_INT32, LINCOLL_SUM, 0, &PLAN));
    ROW("lincoll_reduce_init", "NULL plan_p", INV,
        lincoll_reduce_init(c, S, R, 4, LINCOLL_INT32, LINCOLL_SUM, 0, NULL));
    ROW("lincoll_reduce_init", "NULL sbuf", INV,
        lincoll_reduce_init(c, NULL, R, 4, LINCOLL_INT32, LINCOLL_SUM, 0, &PLAN));
    ROW("lincoll_reduce_init", "NULL rbuf at root", INV,
        lincoll_reduce_init(c, S, NULL, 4, LINCOLL_INT32, LINCOLL_SUM, 0, &PLAN));
    ROW("lincoll_reduce_init", "root out of range", INV,
        lincoll_reduce_init(c, S, R, 4, LINCOLL_INT32, LINCOLL_SUM, 2, &PLAN));
    ROW("lincoll_reduce_init", "unknown dtype", INV,
        lincoll_reduce_init(c, S, R, 4, BADT, LINCOLL_SUM, 0, &PLAN));
    ROW("lincoll_reduce_init", "unknown op", INV,
        lincoll_reduce_init(c, S, R, 4, LINCOLL_INT32, BADO, 0, &PLAN));
    ROW("lincoll_reduce_coll", "root out of range", INV,
        lincoll_reduce_coll(c, S, R, 4, LINCOLL_INT32, LINCOLL_SUM, -2));

    /* ---- local reduce kernels ---- */
    ROW("lincoll_reduce", "NULL dst", INV, lincoll_reduce(NULL, S, 4, LINCOLL_INT32, LINCOLL_SUM));
    ROW("lincoll_reduce", "NULL src", INV, lincoll_reduce(R, NULL, 4, LINCOLL_INT32, LINCOLL_SUM));
    ROW("lincoll_reduce", "unknown dtype", INV, lincoll_reduce(R, S, 4, BADT, LINCOLL_SUM));
    ROW("lincoll_reduce", "unknown op", INV, lincoll_reduce(R, S, 4, LINCOLL_INT32, BADO));
    ROW("lincoll_reduce", "bxor on double", UNSUP,
        lincoll_reduce(R, S, 4, LINCOLL_DOUBLE, LINCOLL_BXOR));
    ROW("lincoll_reduce3", "NULL a", INV,
        lincoll_reduce3(R, NULL, S, 4, LINCOLL_INT32, LINCOLL_SUM));
    ROW("lincoll_reduce3", "NULL b", INV,
        lincoll_reduce3(R, S, NULL, 4, LINCOLL_INT32, LINCOLL_SUM));
    ROW("lincoll_reduce3", "unknown op", INV, lincoll_reduce3(R, S, S, 4, LINCOLL_INT32, BADO));
    ROW("lincoll_reduce_base", "NULL dst", INV,
        lincoll_reduce_base(NULL, S, 4, LINCOLL_INT32, LINCOLL_SUM));
    ROW("lincoll_reduce_base", "unknown dtype", INV,
        lincoll_reduce_base(R, S, 4, NEGT, LINCOLL_SUM));
    ROW("lincoll_reduce3_base", "NULL dst", INV,
        lincoll_reduce3_base(NULL, S, S, 4, LINCOLL_INT32, LINCOLL_SUM));

    /* ---- windows ---- */
    ROW("lincoll_win_create", "NULL comm", INV, lincoll_win_create(NULL, R, NB, &WIN_OUT));
    ROW("lincoll_win_create", "NULL base", INV, lincoll_win_create(c, NULL, NB, &WIN_OUT));
    ROW("lincoll_win_create", "zero bytes", INV, lincoll_win_create(c, R, 0, &WIN_OUT));
    ROW("lincoll_win_create", "NULL win_p", INV, lincoll_win_create(c, R, NB, NULL));
    ROW("lincoll_win_free", "NULL win", LINCOLL_OK, lincoll_win_free(NULL));
    ROW("lincoll_put", "NULL win", INV, lincoll_put(NULL, 1, S, 8, 0, 0));
    ROW("lincoll_win_flush", "NULL win", INV, lincoll_win_flush(NULL));
    ROW("lincoll_win_wait_signal", "NULL win", INV, lincoll_win_wait_signal(NULL, 1, 1));

    /* ---- gemm ---- */
    ROW("lincoll_gemm", "NULL a", INV,
        lincoll_gemm(LINCOLL_ROW_MAJOR, LINCOLL_NO_TRANS, LINCOLL_NO_TRANS, 2, 2, 2, LINCOLL_DOUBLE,
                     1.0, NULL, 2, S, 2, 0.0, R, 2));
    ROW("lincoll_gemm", "NULL c", INV,
        lincoll_gemm(LINCOLL_ROW_MAJOR, LINCOLL_NO_TRANS, LINCOLL_NO_TRANS, 2, 2, 2, LINCOLL_DOUBLE,
                     1.0, S, 2, S, 2, 0.0, NULL, 2));
    ROW("lincoll_gemm", "negative m", INV,
        lincoll_gemm(LINCOLL_ROW_MAJOR, LINCOLL_NO_TRANS, LINCOLL_NO_TRANS, -1, 2, 2,
                     LINCOLL_DOUBLE, 1.0, S, 2, S, 2, 0.0, R, 2));
    ROW("lincoll_gemm", "lda too small", INV,
        lincoll_gemm(LINCOLL_ROW_MAJOR, LINCOLL_NO_TRANS, LINCOLL_NO_TRANS, 2, 2, 2, LINCOLL_DOUBLE,
                     1.0, S, 1, S, 2, 0.0, R, 2));
    ROW("lincoll_gemm", "ldc too small", INV,
        lincoll_gemm(LINCOLL_ROW_MAJOR, LINCOLL_NO_TRANS, LINCOLL_NO_TRANS, 2, 2, 2, LINCOLL_DOUBLE,
                     1.0, S, 2, S, 2, 0.0, R, 1));
    ROW("lincoll_gemm", "unknown layout", INV,
        lincoll_gemm((lincoll_layout_t)7, LINCOLL_NO_TRANS, LINCOLL_NO_TRANS, 2, 2, 2,
                     LINCOLL_DOUBLE, 1.0, S, 2, S, 2, 0.0, R, 2));
    ROW("lincoll_gemm", "unknown trans", INV,
        lincoll_gemm(LINCOLL_ROW_MAJOR, (lincoll_trans_t)7, LINCOLL_NO_TRANS, 2, 2, 2,
                     LINCOLL_DOUBLE, 1.0, S, 2, S, 2, 0.0, R, 2));
    ROW("lincoll_gemm", "unknown dtype", INV,
        lincoll_gemm(LINCOLL_ROW_MAJOR, LINCOLL_NO_TRANS, LINCOLL_NO_TRANS, 2, 2, 2, BADT, 1.0, S,
                     2, S, 2, 0.0, R, 2));
    ROW("lincoll_gemm_base", "NULL b", INV,
        lincoll_gemm_base(LINCOLL_ROW_MAJOR, LINCOLL_NO_TRANS, LINCOLL_NO_TRANS, 2, 2, 2,
                          LINCOLL_DOUBLE, 1.0, S, 2, NULL, 2, 0.0, R, 2));

    /* ---- GF ---- */
    ROW("lincoll_gf_field_create", "NULL field_p", INV, lincoll_gf_field_create(256, NULL));
    ROW("lincoll_gf_field_create", "q = 0", INV, lincoll_gf_field_create(0, &FIELD_OUT));
    ROW("lincoll_gf_field_create", "q = 1", INV, lincoll_gf_field_create(1, &FIELD_OUT));
    ROW("lincoll_gf_field_create", "q not a prime power", INV,
        lincoll_gf_field_create(6, &FIELD_OUT));
    ROW("lincoll_gf_inv", "NULL field", INV, lincoll_gf_inv(NULL, 1, (uint64_t *)(void *)R));
    ROW("lincoll_gf_coeffs_create", "NULL field", INV,
        lincoll_gf_coeffs_create(NULL, 1, 1, (const uint64_t *)(const void *)S,
                                 (lincoll_gf_coeffs_t **)(void *)&ADDR_OUT));
    ROW("lincoll_gf_matrix_vandermonde", "NULL field", INV,
        lincoll_gf_matrix_vandermonde(NULL, 2, 2, (uint64_t *)(void *)R));
    ROW("lincoll_gf_matrix_invert", "NULL field", INV,
        lincoll_gf_matrix_invert(NULL, 2, (const uint64_t *)(const void *)S,
                                 (uint64_t *)(void *)R));
    {
        lincoll_field_t *f;
        assert_int_equal(lincoll_gf_field_create(256, &f), LINCOLL_OK);
        ROW("lincoll_gf_inv", "NULL inv_p", INV, lincoll_gf_inv(f, 1, NULL));
        ROW("lincoll_gf_inv", "zero has no inverse", INV,
            lincoll_gf_inv(f, 0, (uint64_t *)(void *)R));
        ROW("lincoll_gf_inv", "element out of field", INV,
            lincoll_gf_inv(f, 256, (uint64_t *)(void *)R));
        ROW("lincoll_gf_matrix_vandermonde", "NULL out", INV,
            lincoll_gf_matrix_vandermonde(f, 2, 2, NULL));
        ROW("lincoll_gf_matrix_vandermonde", "negative rows", INV,
            lincoll_gf_matrix_vandermonde(f, -2, 2, (uint64_t *)(void *)R));
        ROW("lincoll_gf_matrix_cauchy", "rows + cols > q", INV,
            lincoll_gf_matrix_cauchy(f, 200, 200, (uint64_t *)(void *)R));
        ROW("lincoll_gf_matrix_mul", "NULL a", INV,
            lincoll_gf_matrix_mul(f, 2, 2, 2, NULL, (const uint64_t *)(const void *)S,
                                  (uint64_t *)(void *)R));
        ROW("lincoll_gf_encode", "NULL data", INV,
            lincoll_gf_encode(f, 2, 1, (const uint64_t *)(const void *)S, 8, NULL,
                              (void *const *)&ADDR_OUT));
        ROW("lincoll_gf_lincomb", "NULL coeffs", INV,
            lincoll_gf_lincomb(NULL, 8, (const void *const *)&ADDR_OUT, (void *const *)&ADDR_OUT));
        lincoll_gf_field_destroy(f);
    }

    print_message("misuse table: %d rows, %d failed\n", rows, failures);
    lc_simh_destroy(&h);
    assert_int_equal(failures, 0);
}

int main(void)
{
    lincoll_log_set_level(LINCOLL_LOG_ERROR);
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_misuse_table)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
