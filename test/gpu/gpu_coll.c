/*
 * test/gpu/gpu_coll.c: lincoll operations on CUDA device buffers, several
 * processes sharing one GPU (run under lincoll-run; docs/accelerators.md).
 *
 *   gpu_coll check          every rank: allreduce (the automatic choice, which
 *                           is zero copy over CUDA IPC on one host, and rhd
 *                           forced: staged through page-locked buffers over
 *                           UCX), reduce_scatter, bcast, a sendrecv ring and a
 *                           GF(2^8) encode on device buffers, each against the
 *                           same call on host buffers (bit for bit), on
 *                           lincoll_mem_alloc_type memory and on plain
 *                           cudaMalloc memory; closing line "N passed, N failed"
 *   gpu_coll bench MiB REPS CSV
 *                           allreduce (float sum) of MiB-MiB device buffers,
 *                           the automatic algorithm and rhd, REPS timed starts
 *                           after 2 warm-ups, median; beside it the device's
 *                           cudaMemcpy device-to-device bandwidth on buffers of
 *                           the same size (the anchor); rank 0 appends CSV rows
 * A rank without a usable GPU prints why and exits 77.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lincoll/lincoll.h>

static int passed, failed, rank, size;

static void check(int ok, const char *what)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL rank %d: %s\n", rank, what);
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *dev(lincoll_context_t *ctx, size_t n, int plain)
{
    void *p = NULL;
    if (plain) {
        if (cudaMalloc(&p, n) != cudaSuccess) p = NULL;
    } else if (lincoll_mem_alloc_type(ctx, n, LINCOLL_MEM_CUDA, &p) != LINCOLL_OK) {
        p = NULL;
    }
    if (p == NULL) {
        printf("FAIL rank %d: device allocation of %zu bytes\n", rank, n);
        exit(1);
    }
    return p;
}

static void undev(lincoll_context_t *ctx, void *p, int plain)
{
    if (plain)
        cudaFree(p);
    else
        lincoll_mem_free(ctx, p);
}

static lincoll_status_t run(lincoll_plan_t *p, int times)
{
    lincoll_status_t st = LINCOLL_OK;
    for (int i = 0; i < times && st == LINCOLL_OK; i++) {
        st = lincoll_start(p);
        if (st == LINCOLL_OK) st = lincoll_wait(p);
    }
    return st;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (unsigned char)(seed >> 16);
    }
}

static void fill_f(float *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (float)((int)((seed >> 8) % 2001u) - 1000) / 8.0f;
    }
}

static const char *algo_of(lincoll_plan_t *p)
{
    static lincoll_plan_stats_t st;
    lincoll_plan_stats(p, &st);
    return st.algorithm;
}

/* allreduce of n floats: device result == host result */
static void check_allreduce(lincoll_context_t *ctx, lincoll_comm_t *w, size_t n, int plain,
                            const char *algo)
{
    char what[160];
    setenv("LINCOLL_ALLREDUCE_ALGO", algo, 1);
    float *hs = malloc(n * 4), *hr = malloc(n * 4), *got = malloc(n * 4);
    fill_f(hs, n, (unsigned)rank * 7919u + (unsigned)n);
    float *ds = dev(ctx, n * 4, plain), *dr = dev(ctx, n * 4, plain);
    cudaMemcpy(ds, hs, n * 4, cudaMemcpyHostToDevice);
    cudaMemset(dr, 0xff, n * 4);
    lincoll_plan_t *hp = NULL, *dp = NULL;
    int ok = lincoll_allreduce_init(w, hs, hr, n, LINCOLL_FLOAT, LINCOLL_SUM, &hp) == LINCOLL_OK &&
             lincoll_allreduce_init(w, ds, dr, n, LINCOLL_FLOAT, LINCOLL_SUM, &dp) == LINCOLL_OK;
    const char *name = ok ? algo_of(dp) : "none";
    ok = ok && run(hp, 1) == LINCOLL_OK && run(dp, 3) == LINCOLL_OK;
    cudaMemcpy(got, dr, n * 4, cudaMemcpyDeviceToHost);
    snprintf(what, sizeof(what), "allreduce n=%zu %s memory, %s -> %s", n,
             plain ? "cudaMalloc" : "lincoll_mem_alloc_type", algo, name);
    check(ok && memcmp(got, hr, n * 4) == 0, what);
    if (rank == 0) printf("checked %s\n", what);
    lincoll_plan_free(hp);
    lincoll_plan_free(dp);
    undev(ctx, ds, plain);
    undev(ctx, dr, plain);
    free(hs), free(hr), free(got);
    unsetenv("LINCOLL_ALLREDUCE_ALGO");
}

static void check_others(lincoll_context_t *ctx, lincoll_comm_t *w)
{
    char what[128];
    const size_t n = 100003;
    /* reduce_scatter (int32 max), bcast (bytes), sendrecv ring */
    int32_t *hs = malloc(n * 4 * (size_t)size), *hr = malloc(n * 4), *got = malloc(n * 4);
    fill((unsigned char *)hs, n * 4 * (size_t)size, (unsigned)rank + 5);
    int32_t *ds = dev(ctx, n * 4 * (size_t)size, 0), *dr = dev(ctx, n * 4, 0);
    cudaMemcpy(ds, hs, n * 4 * (size_t)size, cudaMemcpyHostToDevice);
    lincoll_plan_t *hp = NULL, *dp = NULL;
    int ok =
        lincoll_reduce_scatter_init(w, hs, hr, n, LINCOLL_INT32, LINCOLL_MAX, &hp) == LINCOLL_OK &&
        lincoll_reduce_scatter_init(w, ds, dr, n, LINCOLL_INT32, LINCOLL_MAX, &dp) == LINCOLL_OK &&
        run(hp, 1) == LINCOLL_OK && run(dp, 2) == LINCOLL_OK;
    cudaMemcpy(got, dr, n * 4, cudaMemcpyDeviceToHost);
    check(ok && memcmp(got, hr, n * 4) == 0, "reduce_scatter int32 max");
    lincoll_plan_free(hp);
    lincoll_plan_free(dp);
    unsigned char *hb = malloc(n), *gb = malloc(n), *db = dev(ctx, n, 1);
    fill(hb, n, 77);
    cudaMemset(db, 0, n);
    if (rank == 1 % size) cudaMemcpy(db, hb, n, cudaMemcpyHostToDevice);
    ok = lincoll_bcast_init(w, db, n, LINCOLL_BYTE, 1 % size, &dp) == LINCOLL_OK &&
         run(dp, 2) == LINCOLL_OK;
    cudaMemcpy(gb, db, n, cudaMemcpyDeviceToHost);
    check(ok && memcmp(gb, hb, n) == 0, "bcast bytes from rank 1");
    lincoll_plan_free(dp);
    unsigned char *sb = dev(ctx, n, 0), *rb = dev(ctx, n, 0), *want = malloc(n);
    fill(hb, n, (unsigned)rank * 3 + 1);
    fill(want, n, (unsigned)((rank + size - 1) % size) * 3 + 1);
    cudaMemcpy(sb, hb, n, cudaMemcpyHostToDevice);
    ok = lincoll_sendrecv_init(w, sb, n, (rank + 1) % size, rb, n, (rank + size - 1) % size,
                               LINCOLL_SENDRECV_CONCURRENT, &dp) == LINCOLL_OK &&
         run(dp, 2) == LINCOLL_OK;
    cudaMemcpy(gb, rb, n, cudaMemcpyDeviceToHost);
    snprintf(what, sizeof(what), "sendrecv ring of %zu bytes", n);
    check(ok && memcmp(gb, want, n) == 0, what);
    lincoll_plan_free(dp);
    /* encode GF(2^8), Vandermonde K x K */
    lincoll_field_t *f = NULL;
    lincoll_gf_field_create(256, &f);
    uint64_t *A = malloc(sizeof(uint64_t) * (size_t)(size * size));
    lincoll_gf_matrix_vandermonde(f, size, size, A);
    const size_t B = 1 << 20;
    unsigned char *hi = malloc(B), *ho = malloc(B), *go = malloc(B);
    unsigned char *di = dev(ctx, B, 0), *dout = dev(ctx, B, 0);
    fill(hi, B, (unsigned)rank + 40);
    cudaMemcpy(di, hi, B, cudaMemcpyHostToDevice);
    ok = lincoll_encode_init(w, f, A, size, size, B, hi, ho, NULL, &hp) == LINCOLL_OK &&
         lincoll_encode_init(w, f, A, size, size, B, di, dout, NULL, &dp) == LINCOLL_OK &&
         run(hp, 1) == LINCOLL_OK && run(dp, 2) == LINCOLL_OK;
    cudaMemcpy(go, dout, B, cudaMemcpyDeviceToHost);
    snprintf(what, sizeof(what), "encode GF(2^8) %dx%d of 1 MiB packets (%s)", size, size,
             ok ? algo_of(dp) : "none");
    check(ok && memcmp(go, ho, B) == 0, what);
    if (rank == 0) printf("checked %s\n", what);
    lincoll_plan_free(hp);
    lincoll_plan_free(dp);
    lincoll_gf_field_destroy(f);
    undev(ctx, ds, 0), undev(ctx, dr, 0), undev(ctx, db, 1), undev(ctx, sb, 0), undev(ctx, rb, 0),
        undev(ctx, di, 0), undev(ctx, dout, 0);
    free(hs), free(hr), free(got), free(hb), free(gb), free(want), free(A), free(hi), free(ho),
        free(go);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void bench(lincoll_context_t *ctx, lincoll_comm_t *w, size_t mib, int reps, const char *csv)
{
    const size_t bytes = mib << 20, n = bytes / 4;
    float *s = dev(ctx, bytes, 0), *r = dev(ctx, bytes, 0);
    cudaMemset(s, 0, bytes);
    double *t = calloc((size_t)reps, sizeof(double));
    /* the anchor: device-to-device cudaMemcpy of the same size, this process */
    cudaDeviceSynchronize();
    for (int i = 0; i < reps + 2; i++) {
        double t0 = now();
        cudaMemcpy(r, s, bytes, cudaMemcpyDeviceToDevice);
        cudaDeviceSynchronize();
        if (i >= 2) t[i - 2] = now() - t0;
    }
    qsort(t, (size_t)reps, sizeof(double), cmp_d);
    const double copy_bw = (double)bytes / t[reps / 2]; /* bytes copied per second */
    lincoll_barrier(w);
    const char *algos[2] = {"auto", "rhd"};
    FILE *out = rank == 0 ? fopen(csv, "a") : NULL;
    for (int a = 0; a < 2; a++) {
        setenv("LINCOLL_ALLREDUCE_ALGO", algos[a], 1);
        lincoll_plan_t *p = NULL;
        if (lincoll_allreduce_init(w, s, r, n, LINCOLL_FLOAT, LINCOLL_SUM, &p) != LINCOLL_OK) {
            check(0, "bench allreduce init");
            continue;
        }
        lincoll_status_t st = run(p, 2);
        for (int i = 0; i < reps && st == LINCOLL_OK; i++) {
            lincoll_barrier(w);
            double t0 = now();
            st = run(p, 1);
            t[i] = now() - t0;
        }
        check(st == LINCOLL_OK, "bench allreduce runs");
        double tm[1] = {0};
        /* the slowest rank's median */
        qsort(t, (size_t)reps, sizeof(double), cmp_d);
        double mine = t[reps / 2], *all = calloc((size_t)size, sizeof(double));
        lincoll_allgather(w, &mine, all, 1, LINCOLL_DOUBLE);
        for (int i = 0; i < size; i++)
            tm[0] = all[i] > tm[0] ? all[i] : tm[0];
        const double algbw = (double)bytes / tm[0];
        const double busbw = algbw * 2.0 * (size - 1) / size;
        if (rank == 0) {
            printf("allreduce %zu MiB P=%d %s (%s): %.3f ms, algbw %.1f GB/s, busbw %.1f GB/s; "
                   "cudaMemcpy D2D %.1f GB/s; busbw/copy %.3f\n",
                   mib, size, algos[a], algo_of(p), tm[0] * 1e3, algbw / 1e9, busbw / 1e9,
                   copy_bw / 1e9, busbw / copy_bw);
            if (out != NULL)
                fprintf(out, "allreduce_%zuMiB_P%d_%s,%s,busbw_GBps,%.2f,%.2f,%.3f,\n", mib, size,
                        algos[a], algo_of(p), busbw / 1e9, copy_bw / 1e9, busbw / copy_bw);
        }
        free(all);
        lincoll_plan_free(p);
    }
    unsetenv("LINCOLL_ALLREDUCE_ALGO");
    if (out != NULL) fclose(out);
    free(t);
    lincoll_mem_free(ctx, s);
    lincoll_mem_free(ctx, r);
}

int main(int argc, char **argv)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
        printf("SKIP gpu_coll: no usable CUDA device (%s)\n",
               cudaGetErrorString(cudaGetLastError()));
        return 77;
    }
    cudaSetDevice(0);
    lincoll_context_t *ctx = NULL;
    lincoll_comm_t *w = NULL;
    if (lincoll_init(NULL, &ctx) != LINCOLL_OK || lincoll_comm_world(ctx, &w) != LINCOLL_OK) {
        printf("FAIL lincoll_init\n");
        return 1;
    }
    rank = lincoll_comm_rank(w);
    size = lincoll_comm_size(w);
    const char *why = NULL;
    check(lincoll_mem_type_supported(LINCOLL_MEM_CUDA, &why), "CUDA memory supported");
    if (rank == 0) printf("gpu_coll: %d ranks, %s\n", size, why);
    if (argc > 1 && strcmp(argv[1], "bench") == 0) {
        bench(ctx, w, argc > 2 ? (size_t)atol(argv[2]) : 256, argc > 3 ? atoi(argv[3]) : 5,
              argc > 4 ? argv[4] : "gpu.csv");
    } else {
        for (int plain = 0; plain <= 1; plain++) {
            check_allreduce(ctx, w, 1, plain, "auto");
            check_allreduce(ctx, w, 1000, plain, "auto");
            check_allreduce(ctx, w, (1 << 20) + 3, plain, "auto");
            check_allreduce(ctx, w, (1 << 20) + 3, plain, "rhd");
        }
        check_allreduce(ctx, w, 4099, 0, "ring");
        check_others(ctx, w);
    }
    lincoll_finalize(ctx);
    printf("rank %d: %d passed, %d failed\n", rank, passed, failed);
    return failed != 0;
}
