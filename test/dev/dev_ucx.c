/*
 * test/dev/dev_ucx.c: device buffers across real processes over UCX,
 * without a GPU (docs/accelerators.md, "The fake device").
 *
 * Every rank selects the fake device (host memory that plays device
 * memory), so its buffers are device memory to lincoll: tag plans stage
 * every message through page-locked buffers over the real UCX transport.
 * Checked on every rank: allreduce (rhd and ring forced), bcast and an
 * encode (prepare_shoot forced) on device buffers equal the same calls on
 * host buffers bit for bit, and the bytes copied device to host equal the
 * bytes the plan sends, host to device the bytes it receives.  (Zero copy is
 * not forced: the fake device's IPC handles are good within one process
 * only, so it is the sim tests that check IPC windows.)
 *   lincoll-run -n N dev_ucx
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lincoll/lincoll.h>

#include "core/dev/dev.h"

static int rank, failed, passed;

static void check(int ok, const char *what)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL rank %d: %s\n", rank, what);
    }
}

static lincoll_status_t run(lincoll_plan_t *p)
{
    lincoll_status_t st = lincoll_start(p);
    return st == LINCOLL_OK ? lincoll_wait(p) : st;
}

/* host plan h and device plan d of one call: run both, compare, account */
static void compare(lincoll_plan_t *h, lincoll_plan_t *d, const void *hout, const void *dout,
                    size_t n, const char *what)
{
    lincoll_plan_stats_t st;
    lincoll_plan_stats(d, &st);
    check(run(h) == LINCOLL_OK, what);
    lc_dev_fake_counters_t c0 = lc_dev_fake_counters();
    check(run(d) == LINCOLL_OK, what);
    lc_dev_fake_counters_t c = lc_dev_fake_counters();
    check(memcmp(hout, dout, n) == 0, what);
    char line[160];
    snprintf(line, sizeof(line), "%s: d2h %llu == sent %llu, h2d %llu == received %llu", what,
             (unsigned long long)(c.d2h - c0.d2h), (unsigned long long)st.bytes_sent,
             (unsigned long long)(c.h2d - c0.h2d), (unsigned long long)st.bytes_recvd);
    check(c.d2h - c0.d2h == st.bytes_sent && c.h2d - c0.h2d == st.bytes_recvd, line);
    if (rank == 0) printf("%s\n", line);
    lincoll_plan_free(h);
    lincoll_plan_free(d);
}

int main(void)
{
    lc_dev_use_fake(1, 2);
    lincoll_context_t *ctx;
    lincoll_comm_t *w;
    if (lincoll_init(NULL, &ctx) != LINCOLL_OK || lincoll_comm_world(ctx, &w) != LINCOLL_OK)
        return 1;
    rank = lincoll_comm_rank(w);
    const int P = lincoll_comm_size(w);
    const size_t n = 50003, B = 8192;
    float *hs = malloc(n * 4), *hr = malloc(n * 4), *ds, *dr;
    lincoll_mem_alloc_type(ctx, n * 4, LINCOLL_MEM_CUDA, (void **)&ds);
    lincoll_mem_alloc_type(ctx, n * 4, LINCOLL_MEM_CUDA, (void **)&dr);
    for (size_t i = 0; i < n; i++)
        hs[i] = ds[i] = (float)((i * 31 + (size_t)rank * 7) % 1001) / 4.0f;
    const char *algos[] = {"rhd", "ring"};
    for (int a = 0; a < 2; a++) {
        setenv("LINCOLL_ALLREDUCE_ALGO", algos[a], 1);
        lincoll_plan_t *h = NULL, *d = NULL;
        check(lincoll_allreduce_init(w, hs, hr, n, LINCOLL_FLOAT, LINCOLL_SUM, &h) == LINCOLL_OK &&
                  lincoll_allreduce_init(w, ds, dr, n, LINCOLL_FLOAT, LINCOLL_SUM, &d) ==
                      LINCOLL_OK,
              "allreduce init");
        char what[64];
        snprintf(what, sizeof(what), "allreduce %s", algos[a]);
        compare(h, d, hr, dr, n * 4, what);
    }
    unsetenv("LINCOLL_ALLREDUCE_ALGO");
    lincoll_plan_t *h = NULL, *d = NULL;
    check(lincoll_bcast_init(w, hs, n, LINCOLL_FLOAT, P - 1, &h) == LINCOLL_OK &&
              lincoll_bcast_init(w, ds, n, LINCOLL_FLOAT, P - 1, &d) == LINCOLL_OK,
          "bcast init");
    compare(h, d, hs, ds, n * 4, "bcast");
    /* encode GF(2^8), prepare-and-shoot */
    setenv("LINCOLL_ENCODE_ALGO", "prepare_shoot", 1);
    lincoll_field_t *f;
    lincoll_gf_field_create(256, &f);
    uint64_t *A = malloc(sizeof(uint64_t) * (size_t)(P * P));
    lincoll_gf_matrix_vandermonde(f, P, P, A);
    unsigned char *hi = malloc(B), *ho = malloc(B), *di, *dout;
    lincoll_mem_alloc_type(ctx, B, LINCOLL_MEM_CUDA, (void **)&di);
    lincoll_mem_alloc_type(ctx, B, LINCOLL_MEM_CUDA, (void **)&dout);
    for (size_t i = 0; i < B; i++)
        hi[i] = di[i] = (unsigned char)(i * 13 + (size_t)rank);
    check(lincoll_encode_init(w, f, A, P, P, B, hi, ho, NULL, &h) == LINCOLL_OK &&
              lincoll_encode_init(w, f, A, P, P, B, di, dout, NULL, &d) == LINCOLL_OK,
          "encode init");
    compare(h, d, ho, dout, B, "encode gf8 prepare_shoot");
    lincoll_gf_field_destroy(f);
    lincoll_mem_free(ctx, ds);
    lincoll_mem_free(ctx, dr);
    lincoll_mem_free(ctx, di);
    lincoll_mem_free(ctx, dout);
    check(lc_dev_fake_counters().live == 0, "device memory freed");
    free(hs), free(hr), free(A), free(hi), free(ho);
    lincoll_finalize(ctx);
    printf("rank %d: %d passed, %d failed\n", rank, passed, failed);
    return failed != 0;
}
