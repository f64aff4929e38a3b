/*
 * test/dev/test_dev_sim.c: memory types without a GPU (docs/accelerators.md).
 *
 * The fake device of core/dev (host memory that plays device memory, every
 * byte moved counted by direction) lets the device plans be compiled and run
 * over the sim transport:
 *  - detection: host memory is host; without a backend (this machine has no
 *    GPU) CUDA allocation is refused with a reason; fake allocations are
 *    device memory to lincoll_mem_type_of;
 *  - bad mixes fail at init with LINCOLL_ERR_UNSUPPORTED: device memory with
 *    no backend, host and device buffers in one call, an encode over a
 *    prime field or with checksums, a one-sided window over device memory;
 *  - compilation: an allreduce over device buffers gets device scratch,
 *    device steps, and one page-locked staging slot per message (PRE copy
 *    before a send, POST copy after a receive); with a transport that takes
 *    device memory, none;
 *  - execution: allreduce, bcast, sendrecv, encode GF(2^8) and GF(2^16) and
 *    matmul on device buffers give the host results, and the copies between
 *    host and device equal exactly the bytes the plans send and receive;
 *  - pipelining moves the staging copies beside other pieces' transfers
 *    (DURING) and stays exact;
 *  - zero copy: the zcopy allreduce over device buffers shares them through
 *    (fake) IPC handles: K (K - 1) opens per window, no host staging, the
 *    result exact.
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

#include "common/sim_harness.h"
#include "core/coll/coll_int.h"
#include "core/dev/dev.h"
#include "core/exec/exec.h"

#define K 4

static void *dev_alloc(lincoll_context_t *ctx, size_t n)
{
    void *p = NULL;
    assert_int_equal(lincoll_mem_alloc_type(ctx, n, LINCOLL_MEM_CUDA, &p), LINCOLL_OK);
    return p;
}

static void fill_f(float *x, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (float)((seed * 131u + (unsigned)i * 7u) % 1000u) * 0.25f;
}

/* ---- detection and the errors of bad mixes ---------------------------------- */

static void test_detection_no_backend(void **state)
{
    (void)state;
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, 1, 1), 0);
    char host[64];
    lincoll_mem_type_t t = LINCOLL_MEM_CUDA;
    assert_int_equal(lincoll_mem_type_of(h.ctx[0], host, sizeof(host), &t), LINCOLL_OK);
    assert_int_equal(t, LINCOLL_MEM_HOST);
    const char *why = NULL;
    if (lc_dev() == NULL) { /* no GPU here: CUDA allocation refused, with the reason */
        assert_int_equal(lincoll_mem_type_supported(LINCOLL_MEM_CUDA, &why), 0);
        assert_non_null(why);
        printf("no device backend: %s\n", why);
        void *p = NULL;
        assert_int_equal(lincoll_mem_alloc_type(h.ctx[0], 64, LINCOLL_MEM_CUDA, &p),
                         LINCOLL_ERR_UNSUPPORTED);
        assert_null(p);
    } else {
        assert_int_equal(lincoll_mem_type_supported(LINCOLL_MEM_CUDA, &why), 1);
        printf("device backend present: %s\n", why);
    }
    assert_int_equal(lincoll_mem_type_supported(LINCOLL_MEM_HOST, NULL), 1);
    void *hp = NULL;
    assert_int_equal(lincoll_mem_alloc_type(h.ctx[0], 64, LINCOLL_MEM_HOST, &hp), LINCOLL_OK);
    assert_int_equal(lincoll_mem_type_of(h.ctx[0], hp, 64, &t), LINCOLL_OK);
    assert_int_equal(t, LINCOLL_MEM_HOST);
    assert_int_equal(lincoll_mem_free(h.ctx[0], hp), LINCOLL_OK);
    assert_int_equal(lincoll_mem_alloc_type(h.ctx[0], 64, (lincoll_mem_type_t)7, &hp),
                     LINCOLL_ERR_INVALID);
    assert_string_equal(lincoll_mem_type_name(LINCOLL_MEM_CUDA), "cuda");
    lc_simh_destroy(&h);
}

static void test_bad_mixes(void **state)
{
    (void)state;
    lc_dev_use_fake(1, 0);
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, 1, 1), 0);
    lincoll_context_t *ctx = h.ctx[0];
    lincoll_comm_t *comm = h.comm[0];
    const size_t n = 256;
    float *d = dev_alloc(ctx, n * 4), *d2 = dev_alloc(ctx, n * 4);
    float host[256];
    lincoll_mem_type_t t;
    assert_int_equal(lincoll_mem_type_of(ctx, d + 3, 4, &t), LINCOLL_OK);
    assert_int_equal(t, LINCOLL_MEM_CUDA);
    lincoll_plan_t *p = NULL;
    /* host and device in one call */
    assert_int_equal(lincoll_allreduce_init(comm, host, d, n, LINCOLL_FLOAT, LINCOLL_SUM, &p),
                     LINCOLL_ERR_UNSUPPORTED);
    assert_null(p);
    /* an encode over a prime field, and a checksummed one */
    lincoll_field_t *fp = NULL, *f8 = NULL;
    assert_int_equal(lincoll_gf_field_create(65537, &fp), LINCOLL_OK);
    assert_int_equal(lincoll_gf_field_create(256, &f8), LINCOLL_OK);
    uint64_t A[1] = {3};
    assert_int_equal(lincoll_encode_init(comm, fp, A, 1, 1, 64, d, d2, NULL, &p),
                     LINCOLL_ERR_UNSUPPORTED);
    ctx->cfg.encode_checksum = 1;
    assert_int_equal(lincoll_encode_init(comm, f8, A, 1, 1, 64, d, d2, NULL, &p),
                     LINCOLL_ERR_UNSUPPORTED);
    ctx->cfg.encode_checksum = 0;
    /* one-sided windows over device memory */
    lincoll_win_t *w = NULL;
    assert_int_equal(lincoll_win_create(comm, d, n * 4, &w), LINCOLL_ERR_UNSUPPORTED);
    /* device memory where no backend runs (a build without CUDA meets this) */
    lc_dev_use_fake(2, 0);
    assert_int_equal(lincoll_mem_type_of(ctx, d, 4, &t), LINCOLL_OK);
    assert_int_equal(t, LINCOLL_MEM_CUDA);
    assert_int_equal(lincoll_allreduce_init(comm, d, d2, n, LINCOLL_FLOAT, LINCOLL_SUM, &p),
                     LINCOLL_ERR_UNSUPPORTED);
    assert_int_equal(
        lincoll_sendrecv_init(comm, d, 64, 0, d2, 64, 0, LINCOLL_SENDRECV_CONCURRENT, &p),
        LINCOLL_ERR_UNSUPPORTED);
    lc_dev_use_fake(1, 0);
    /* with a backend the same call compiles */
    assert_int_equal(lincoll_allreduce_init(comm, d, d2, n, LINCOLL_FLOAT, LINCOLL_SUM, &p),
                     LINCOLL_OK);
    lincoll_plan_free(p);
    lincoll_gf_field_destroy(fp);
    lincoll_gf_field_destroy(f8);
    assert_int_equal(lincoll_mem_free(ctx, d), LINCOLL_OK);
    assert_int_equal(lincoll_mem_free(ctx, d2), LINCOLL_OK);
    assert_int_equal(lc_dev_fake_counters().live, 0);
    lc_simh_destroy(&h);
    lc_dev_use_fake(0, 0);
}

/* ---- compilation ------------------------------------------------------------ */

static unsigned count_slots(const lc_plan_t *ir, int mtype, int kind)
{
    unsigned n = 0;
    for (unsigned i = 0; i < ir->nslots; i++)
        n += ir->slots[i].mtype == mtype && ir->slots[i].kind == kind;
    return n;
}

static void test_compile_staging(void **state)
{
    (void)state;
    lc_dev_use_fake(1, 0);
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, K, 1), 0);
    const size_t n = 1000;
    float *s = dev_alloc(h.ctx[1], n * 4), *r = dev_alloc(h.ctx[1], n * 4);
    lc_coll_args_t a = {.op = LC_COLL_ALLREDUCE,
                        .sbuf = s,
                        .rbuf = r,
                        .count = n,
                        .total = n,
                        .dtype = LINCOLL_FLOAT,
                        .rop = LINCOLL_SUM,
                        .es = 4};
    const lc_coll_alg_t *rhd = lc_coll_find(LC_COLL_ALLREDUCE, "rhd");
    assert_non_null(rhd);
    for (int direct = 0; direct <= 1; direct++) {
        lc_dev_force_tl_direct(direct);
        lc_env_t env = lc_exec_env(h.comm[1], 0);
        lc_plan_t *ir = NULL;
        assert_int_equal(lc_coll_compile_any(rhd, &env, &a, &ir), LINCOLL_OK);
        assert_int_equal(count_slots(ir, LC_MEM_DEV, LC_SLOT_USER), 2);
        assert_int_equal(count_slots(ir, LC_MEM_HOST, LC_SLOT_SCRATCH), 0);
        unsigned xfers = 0, dev_bufs = 0, pinned_bufs = 0, dev_steps = 0, steps = 0;
        for (unsigned g = 0; g < ir->nrounds; g++) {
            const lc_round_t *R = &ir->rounds[g];
            for (unsigned i = 0; i < R->nxfers; i++) {
                int mt = ir->slots[R->xfers[i].buf.slot].mtype;
                xfers += R->xfers[i].len > 0;
                dev_bufs += mt == LC_MEM_DEV;
                pinned_bufs += mt == LC_MEM_PINNED;
            }
            for (unsigned i = 0; i < R->npre + R->npost; i++) {
                const lc_step_t *st = i < R->npre ? &R->pre[i] : &R->post[i - R->npre];
                steps++;
                dev_steps += st->dev;
            }
        }
        assert_true(xfers > 0);
        assert_int_equal(steps, dev_steps); /* every step touches device memory */
        if (direct) {
            assert_int_equal(pinned_bufs, 0);
            assert_int_equal(dev_bufs, xfers);
            assert_int_equal(count_slots(ir, LC_MEM_PINNED, LC_SLOT_SCRATCH), 0);
        } else {
            assert_int_equal(dev_bufs, 0);
            assert_int_equal(pinned_bufs, xfers); /* one staging slot per message */
            assert_int_equal(count_slots(ir, LC_MEM_PINNED, LC_SLOT_SCRATCH), xfers);
        }
        lc_plan_destroy(ir);
    }
    lc_dev_force_tl_direct(-1);
    lincoll_mem_free(h.ctx[1], s);
    lincoll_mem_free(h.ctx[1], r);
    lc_simh_destroy(&h);
    lc_dev_use_fake(0, 0);
}

/* ---- execution over sim ----------------------------------------------------- */

/* Allreduce on device buffers of every rank; the copies between host and
 * device are exactly the plans' bytes; the result equals the host's. */
static void run_allreduce(size_t n, size_t chunk, int direct, unsigned busy)
{
    lc_dev_use_fake(1, busy);
    lc_dev_force_tl_direct(direct);
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, K, 1), 0);
    float *s[K], *r[K], *want = calloc(n, 4), *got = malloc(n * 4);
    lincoll_plan_t *plans[K];
    uint64_t sent = 0, recvd = 0;
    for (int k = 0; k < K; k++) {
        h.ctx[k]->cfg.coll_chunk = chunk;
        s[k] = dev_alloc(h.ctx[k], n * 4);
        r[k] = dev_alloc(h.ctx[k], n * 4);
        fill_f(got, n, (unsigned)k);
        memcpy(s[k], got, n * 4); /* "cudaMemcpy" into the fake device */
        for (size_t i = 0; i < n; i++)
            want[i] += got[i];
    }
    /* the host reference in rhd's bracketing: run the same on host buffers */
    float *hs[K], *hr[K];
    lincoll_plan_t *hp[K];
    for (int k = 0; k < K; k++) {
        hs[k] = malloc(n * 4);
        hr[k] = malloc(n * 4);
        memcpy(hs[k], s[k], n * 4);
        assert_int_equal(
            lincoll_allreduce_init(h.comm[k], hs[k], hr[k], n, LINCOLL_FLOAT, LINCOLL_SUM, &hp[k]),
            LINCOLL_OK);
    }
    assert_int_equal(lc_simh_run(&h, hp), LINCOLL_OK);
    lc_dev_fake_reset();
    for (int k = 0; k < K; k++) {
        assert_int_equal(
            lincoll_allreduce_init(h.comm[k], s[k], r[k], n, LINCOLL_FLOAT, LINCOLL_SUM, &plans[k]),
            LINCOLL_OK);
        lincoll_plan_stats_t st;
        assert_int_equal(lincoll_plan_stats(plans[k], &st), LINCOLL_OK);
        sent += st.bytes_sent;
        recvd += st.bytes_recvd;
    }
    for (int rep = 0; rep < 2; rep++) {
        lc_dev_fake_counters_t c0 = lc_dev_fake_counters();
        assert_int_equal(lc_simh_run(&h, plans), LINCOLL_OK);
        lc_dev_fake_counters_t c = lc_dev_fake_counters();
        for (int k = 0; k < K; k++) {
            assert_memory_equal(r[k], hr[k], n * 4); /* bitwise the host result */
        }
        if (direct) {
            assert_int_equal(c.d2h - c0.d2h, 0);
            assert_int_equal(c.h2d - c0.h2d, 0);
        } else {
            assert_int_equal(c.d2h - c0.d2h, sent); /* every byte sent was staged once */
            assert_int_equal(c.h2d - c0.h2d, recvd);
        }
        assert_true(c.kernels > c0.kernels);
        if (busy) assert_true(c.queries > c0.queries || c.syncs > c0.syncs);
    }
    for (size_t i = 0; i < n; i++)
        assert_true(r[0][i] == hr[0][i] && (double)r[0][i] - (double)want[i] < 1e-2 &&
                    (double)want[i] - (double)r[0][i] < 1e-2);
    for (int k = 0; k < K; k++) {
        lincoll_plan_free(plans[k]);
        lincoll_plan_free(hp[k]);
        lincoll_mem_free(h.ctx[k], s[k]);
        lincoll_mem_free(h.ctx[k], r[k]);
        free(hs[k]);
        free(hr[k]);
    }
    assert_int_equal(lc_dev_fake_counters().live, 0); /* staging and scratch freed */
    free(want);
    free(got);
    lc_simh_destroy(&h);
    lc_dev_force_tl_direct(-1);
    lc_dev_use_fake(0, 0);
}

static void test_allreduce_staged(void **state)
{
    (void)state;
    run_allreduce(1000, 0, 0, 3);
    run_allreduce(5, 0, 0, 0);
}

static void test_allreduce_direct(void **state)
{
    (void)state;
    run_allreduce(1000, 0, 1, 1);
}

/* Pipelined: staging copies of one piece run beside another piece's
 * transfers (DURING), and the accounting stays exact. */
static void test_allreduce_pipelined(void **state)
{
    (void)state;
    lc_dev_use_fake(1, 2);
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, K, 1), 0);
    const size_t n = 4096;
    h.ctx[0]->cfg.coll_chunk = 4096;
    float *s = dev_alloc(h.ctx[0], n * 4), *r = dev_alloc(h.ctx[0], n * 4);
    lc_coll_args_t a = {.op = LC_COLL_ALLREDUCE,
                        .sbuf = s,
                        .rbuf = r,
                        .count = n,
                        .total = n,
                        .dtype = LINCOLL_FLOAT,
                        .rop = LINCOLL_SUM,
                        .es = 4};
    lc_env_t env = lc_exec_env(h.comm[0], 0);
    lc_plan_t *ir = NULL;
    assert_int_equal(lc_coll_compile_any(lc_coll_find(LC_COLL_ALLREDUCE, "rhd"), &env, &a, &ir),
                     LINCOLL_OK);
    unsigned during_copies = 0;
    for (unsigned g = 0; g < ir->nrounds; g++)
        for (unsigned i = 0; i < ir->rounds[g].nduring; i++) {
            const lc_step_t *st = &ir->rounds[g].during[i];
            if (st->kind == LC_STEP_COPY && st->dev &&
                (ir->slots[st->dst.slot].mtype == LC_MEM_PINNED ||
                 ir->slots[st->a.slot].mtype == LC_MEM_PINNED))
                during_copies++;
        }
    printf("pipelined rhd allreduce: %u rounds, %u staging copies beside transfers\n", ir->nrounds,
           during_copies);
    assert_true(during_copies > 0);
    lc_plan_destroy(ir);
    lincoll_mem_free(h.ctx[0], s);
    lincoll_mem_free(h.ctx[0], r);
    lc_simh_destroy(&h);
    lc_dev_use_fake(0, 0);
    run_allreduce(n, 4096, 0, 2); /* and it runs, exactly */
}

static void test_bcast_sendrecv(void **state)
{
    (void)state;
    lc_dev_use_fake(1, 1);
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, K, 1), 0);
    const size_t n = 3000;
    unsigned char *b[K], *s[K], *r[K];
    lincoll_plan_t *plans[K];
    for (int k = 0; k < K; k++) {
        b[k] = dev_alloc(h.ctx[k], n);
        s[k] = dev_alloc(h.ctx[k], n);
        r[k] = dev_alloc(h.ctx[k], n);
        for (size_t i = 0; i < n; i++) {
            b[k][i] = k == 2 ? (unsigned char)(i * 13u) : 0;
            s[k][i] = (unsigned char)(k * 31 + i);
        }
        assert_int_equal(lincoll_bcast_init(h.comm[k], b[k], n, LINCOLL_BYTE, 2, &plans[k]),
                         LINCOLL_OK);
    }
    lc_dev_fake_reset();
    assert_int_equal(lc_simh_run(&h, plans), LINCOLL_OK);
    for (int k = 0; k < K; k++) {
        for (size_t i = 0; i < n; i++)
            assert_int_equal(b[k][i], (unsigned char)(i * 13u));
        lincoll_plan_free(plans[k]);
    }
    assert_true(lc_dev_fake_counters().d2h > 0);
    /* ring of sendrecv: rank k sends to k + 1 */
    lc_dev_fake_reset();
    for (int k = 0; k < K; k++)
        assert_int_equal(lincoll_sendrecv_init(h.comm[k], s[k], n, (k + 1) % K, r[k], n,
                                               (k + K - 1) % K, LINCOLL_SENDRECV_CONCURRENT,
                                               &plans[k]),
                         LINCOLL_OK);
    assert_int_equal(lc_simh_run(&h, plans), LINCOLL_OK);
    lc_dev_fake_counters_t c = lc_dev_fake_counters();
    assert_int_equal(c.d2h, (uint64_t)K * n);
    assert_int_equal(c.h2d, (uint64_t)K * n);
    for (int k = 0; k < K; k++)
        assert_memory_equal(r[k], s[(k + K - 1) % K], n);
    for (int k = 0; k < K; k++) {
        lincoll_plan_free(plans[k]);
        lincoll_mem_free(h.ctx[k], b[k]);
        lincoll_mem_free(h.ctx[k], s[k]);
        lincoll_mem_free(h.ctx[k], r[k]);
    }
    lc_simh_destroy(&h);
    lc_dev_use_fake(0, 0);
}

/* Encode over device packets equals the same encode over host packets. */
static void run_encode(uint64_t q)
{
    lc_dev_use_fake(1, 1);
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, K, 2), 0);
    lincoll_field_t *f = NULL;
    assert_int_equal(lincoll_gf_field_create(q, &f), LINCOLL_OK);
    uint64_t A[K * K];
    assert_int_equal(lincoll_gf_matrix_vandermonde(f, K, K, A), LINCOLL_OK);
    const size_t B = 4096;
    unsigned char *din[K], *dout[K], *hin[K], *hout[K];
    lincoll_plan_t *dp[K], *hp[K];
    for (int k = 0; k < K; k++) {
        din[k] = dev_alloc(h.ctx[k], B);
        dout[k] = dev_alloc(h.ctx[k], B);
        hin[k] = malloc(B);
        hout[k] = malloc(B);
        for (size_t i = 0; i < B; i++)
            hin[k][i] = (unsigned char)(k * 77 + i * 5 + (i >> 7));
        memcpy(din[k], hin[k], B);
    }
    for (int k = 0; k < K; k++) {
        assert_int_equal(
            lincoll_encode_init(h.comm[k], f, A, K, K, B, hin[k], hout[k], NULL, &hp[k]),
            LINCOLL_OK);
        assert_int_equal(
            lincoll_encode_init(h.comm[k], f, A, K, K, B, din[k], dout[k], NULL, &dp[k]),
            LINCOLL_OK);
    }
    assert_int_equal(lc_simh_run(&h, hp), LINCOLL_OK);
    lc_dev_fake_reset();
    assert_int_equal(lc_simh_run(&h, dp), LINCOLL_OK);
    lc_dev_fake_counters_t c = lc_dev_fake_counters();
    printf("encode q=%llu on device: %llu kernels, %llu bytes to and %llu from the host\n",
           (unsigned long long)q, (unsigned long long)c.kernels, (unsigned long long)c.h2d,
           (unsigned long long)c.d2h);
    assert_true(c.kernels > 0);
    for (int k = 0; k < K; k++) {
        assert_memory_equal(dout[k], hout[k], B);
        lincoll_plan_free(hp[k]);
        lincoll_plan_free(dp[k]);
        lincoll_mem_free(h.ctx[k], din[k]);
        lincoll_mem_free(h.ctx[k], dout[k]);
        free(hin[k]);
        free(hout[k]);
    }
    lincoll_gf_field_destroy(f);
    lc_simh_destroy(&h);
    lc_dev_use_fake(0, 0);
}

static void test_encode_gf8(void **state)
{
    (void)state;
    run_encode(256);
}

static void test_encode_gf16(void **state)
{
    (void)state;
    run_encode(65536);
}

/* Matmul with device operands: GEMM steps on the device, equal to the host. */
static void test_matmul(void **state)
{
    (void)state;
    lc_dev_use_fake(1, 1);
    for (int P = 1; P <= 2; P++) {
        lc_simh_t h;
        assert_int_equal(lc_simh_create(&h, P, 1), 0);
        const int64_t m = 24, n = 20, kk = 16;
        lincoll_matdesc_t da, db, dc;
        assert_int_equal(lincoll_matdesc_init(&da, m, kk, 8, 8, P, 1, 1, LINCOLL_COL_MAJOR),
                         LINCOLL_OK);
        assert_int_equal(lincoll_matdesc_init(&db, kk, n, 8, 8, P, 1, 1, LINCOLL_COL_MAJOR),
                         LINCOLL_OK);
        assert_int_equal(lincoll_matdesc_init(&dc, m, n, 8, 8, P, 1, 1, LINCOLL_COL_MAJOR),
                         LINCOLL_OK);
        double *ha[2], *hb[2], *hc[2], *xa[2], *xb[2], *xc[2];
        size_t la[2], lb[2], lcz[2];
        lincoll_plan_t *hp[2], *dp[2];
        for (int r = 0; r < P; r++) {
            int64_t rr, cc;
            assert_int_equal(lincoll_matdesc_local(&da, r, &rr, &cc, NULL), LINCOLL_OK);
            la[r] = (size_t)(rr * cc) * 8;
            assert_int_equal(lincoll_matdesc_local(&db, r, &rr, &cc, NULL), LINCOLL_OK);
            lb[r] = (size_t)(rr * cc) * 8;
            assert_int_equal(lincoll_matdesc_local(&dc, r, &rr, &cc, NULL), LINCOLL_OK);
            lcz[r] = (size_t)(rr * cc) * 8;
            ha[r] = malloc(la[r]);
            hb[r] = malloc(lb[r]);
            hc[r] = calloc(1, lcz[r]);
            xa[r] = dev_alloc(h.ctx[r], la[r]);
            xb[r] = dev_alloc(h.ctx[r], lb[r]);
            xc[r] = dev_alloc(h.ctx[r], lcz[r]);
            for (size_t i = 0; i < la[r] / 8; i++)
                ha[r][i] = (double)((i * 7 + (size_t)r) % 11) - 5;
            for (size_t i = 0; i < lb[r] / 8; i++)
                hb[r][i] = (double)((i * 3 + (size_t)r) % 13) - 6;
            memcpy(xa[r], ha[r], la[r]);
            memcpy(xb[r], hb[r], lb[r]);
            memset(xc[r], 0, lcz[r]);
        }
        for (int r = 0; r < P; r++) {
            assert_int_equal(lincoll_matmul_init(h.comm[r], LINCOLL_DOUBLE, 1.0, ha[r], &da, hb[r],
                                                 &db, 0.0, hc[r], &dc, NULL, &hp[r]),
                             LINCOLL_OK);
            assert_int_equal(lincoll_matmul_init(h.comm[r], LINCOLL_DOUBLE, 1.0, xa[r], &da, xb[r],
                                                 &db, 0.0, xc[r], &dc, NULL, &dp[r]),
                             LINCOLL_OK);
        }
        assert_int_equal(lc_simh_run(&h, hp), LINCOLL_OK);
        lc_dev_fake_reset();
        assert_int_equal(lc_simh_run(&h, dp), LINCOLL_OK);
        assert_true(lc_dev_fake_counters().kernels > 0);
        for (int r = 0; r < P; r++) {
            assert_memory_equal(xc[r], hc[r], lcz[r]);
            lincoll_plan_free(hp[r]);
            lincoll_plan_free(dp[r]);
            lincoll_mem_free(h.ctx[r], xa[r]);
            lincoll_mem_free(h.ctx[r], xb[r]);
            lincoll_mem_free(h.ctx[r], xc[r]);
            free(ha[r]);
            free(hb[r]);
            free(hc[r]);
        }
        lc_simh_destroy(&h);
    }
    lc_dev_use_fake(0, 0);
}

/* Zero copy over device buffers: windows shared through IPC handles. */
static void test_zcopy_ipc(void **state)
{
    (void)state;
    lc_dev_use_fake(1, 1);
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, K, K - 1), 0);
    const size_t n = 1001;
    float *s[K], *r[K], *hs[K], *hr[K];
    lc_coll_args_t a[K];
    lincoll_plan_t *plans[K], *hp[K];
    for (int k = 0; k < K; k++) {
        s[k] = dev_alloc(h.ctx[k], n * 4);
        r[k] = dev_alloc(h.ctx[k], n * 4);
        hs[k] = malloc(n * 4);
        hr[k] = malloc(n * 4);
        fill_f(hs[k], n, (unsigned)k + 9);
        memcpy(s[k], hs[k], n * 4);
        a[k] = (lc_coll_args_t){.op = LC_COLL_ALLREDUCE,
                                .sbuf = s[k],
                                .rbuf = r[k],
                                .count = n,
                                .total = n,
                                .dtype = LINCOLL_FLOAT,
                                .rop = LINCOLL_SUM,
                                .es = 4};
        /* the host reference: rhd (zcopy_allreduce has rhd's bracketing) */
        assert_int_equal(
            lincoll_allreduce_init(h.comm[k], hs[k], hr[k], n, LINCOLL_FLOAT, LINCOLL_SUM, &hp[k]),
            LINCOLL_OK);
    }
    assert_int_equal(lc_simh_run(&h, hp), LINCOLL_OK);
    const lc_coll_alg_t *alg = lc_coll_find(LC_COLL_ALLREDUCE, "zcopy");
    assert_non_null(alg);
    lc_plan_t *irs[K];
    for (int k = 0; k < K; k++) {
        lc_env_t env = lc_exec_env(h.comm[k], 1);
        assert_int_equal(lc_coll_compile_any(alg, &env, &a[k], &irs[k]), LINCOLL_OK);
        for (unsigned w = 0; w < irs[k]->nwins; w++)
            assert_int_equal(irs[k]->wins[w].mtype, LC_MEM_DEV);
    }
    const unsigned nwins = irs[0]->nwins;
    lc_dev_fake_reset();
    assert_int_equal(lc_simh_bind(&h, irs, plans), LINCOLL_OK);
    lc_dev_fake_counters_t c = lc_dev_fake_counters();
    assert_int_equal(c.ipc_opens, (uint64_t)nwins * K * (K - 1));
    for (int rep = 0; rep < 3; rep++) {
        lc_dev_fake_reset();
        assert_int_equal(lc_simh_run(&h, plans), LINCOLL_OK);
        c = lc_dev_fake_counters();
        assert_int_equal(c.h2d + c.d2h, 0); /* device to device only */
        assert_true(c.d2d > 0 && c.kernels > 0);
        for (int k = 0; k < K; k++)
            assert_memory_equal(r[k], hr[k], n * 4);
    }
    for (int k = 0; k < K; k++)
        lincoll_plan_free(plans[k]);
    assert_int_equal(lc_dev_fake_counters().ipc_closes, (uint64_t)nwins * K * (K - 1));
    for (int k = 0; k < K; k++) {
        lincoll_plan_free(hp[k]);
        lincoll_mem_free(h.ctx[k], s[k]);
        lincoll_mem_free(h.ctx[k], r[k]);
        free(hs[k]);
        free(hr[k]);
    }
    lc_simh_destroy(&h);
    lc_dev_use_fake(0, 0);
}

/* Every test starts from no fake device and the transport's own answer. */
static int reset(void **state)
{
    (void)state;
    lc_dev_use_fake(0, 0);
    lc_dev_force_tl_direct(-1);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_detection_no_backend, reset),
        cmocka_unit_test_setup(test_bad_mixes, reset),
        cmocka_unit_test_setup(test_compile_staging, reset),
        cmocka_unit_test_setup(test_allreduce_staged, reset),
        cmocka_unit_test_setup(test_allreduce_direct, reset),
        cmocka_unit_test_setup(test_allreduce_pipelined, reset),
        cmocka_unit_test_setup(test_bcast_sendrecv, reset),
        cmocka_unit_test_setup(test_encode_gf8, reset),
        cmocka_unit_test_setup(test_encode_gf16, reset),
        cmocka_unit_test_setup(test_matmul, reset),
        cmocka_unit_test_setup(test_zcopy_ipc, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
