/*
 * test/integration/engine_ucx.c: the round engine over real UCX, one process
 * per rank (run under lincoll-run, mpirun or srun).
 *
 * Checks, on every rank: barrier; ring shift at several sizes and shifts
 * (zero-length, eager, rendezvous, 4 MiB); the p-port all-to-all for p = 1..3,
 * started several times (persistent plans); communicator split (even/odd)
 * with an all-to-all inside each half; an RMA window with put + signal into
 * lincoll_mem_alloc memory; mismatched message sizes give an error.  Exits 0
 * only if every check passed; prints "engine_ucx: rank R: N checks passed".
 */
#include <lincoll/lincoll.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks, failures, me = -1;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "engine_ucx: rank %d: FAILED %s:%d: ", me, __FILE__, __LINE__);        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

static unsigned char pat(int rank, size_t blk, size_t i, int it)
{
    return (unsigned char)(rank * 37 + blk * 11 + i * 3 + it * 71 + 5);
}

static void check_ring_shift(lincoll_comm_t *comm, lincoll_context_t *ctx)
{
    int P = lincoll_comm_size(comm), r = lincoll_comm_rank(comm);
    const size_t sizes[] = {0, 1, 8, 4096, 65536, 1 << 20, 4 << 20};
    const int shifts[] = {1, -1, 2};
    for (unsigned si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        size_t n = sizes[si];
        unsigned char *in, *out;
        CHECK(lincoll_mem_alloc(ctx, n + 1, (void **)&in) == LINCOLL_OK, "mem_alloc");
        out = malloc(n + 1); /* one side lincoll memory, the other malloc */
        for (unsigned k = 0; k < sizeof(shifts) / sizeof(shifts[0]); k++) {
            int s = shifts[k];
            for (size_t i = 0; i < n; i++)
                in[i] = pat(r, (size_t)k, i, 0);
            memset(out, 0xee, n + 1);
            lincoll_plan_t *p;
            lincoll_status_t st = lincoll_ring_shift_init(comm, in, out, n, s, &p);
            CHECK(st == LINCOLL_OK, "ring_shift_init: %s", lincoll_strerror(st));
            if (st != LINCOLL_OK) continue;
            st = lincoll_start(p);
            if (st == LINCOLL_OK) st = lincoll_wait(p);
            CHECK(st == LINCOLL_OK, "ring shift %zu bytes by %d: %s", n, s, lincoll_strerror(st));
            int from = ((r - s) % P + P) % P;
            size_t bad = 0;
            for (size_t i = 0; i < n; i++)
                bad += out[i] != pat(from, (size_t)k, i, 0);
            CHECK(bad == 0 && out[n] == 0xee, "ring shift %zu by %d: %zu wrong bytes", n, s, bad);
            lincoll_plan_free(p);
        }
        lincoll_mem_free(ctx, in);
        free(out);
    }
}

static void check_alltoall(lincoll_comm_t *comm, lincoll_context_t *ctx, size_t n, int ports,
                           int iters)
{
    int P = lincoll_comm_size(comm), r = lincoll_comm_rank(comm);
    size_t tot = n * (size_t)P;
    unsigned char *in, *out;
    CHECK(lincoll_mem_alloc(ctx, tot + 1, (void **)&in) == LINCOLL_OK, "mem_alloc");
    CHECK(lincoll_mem_alloc(ctx, tot + 1, (void **)&out) == LINCOLL_OK, "mem_alloc");
    lincoll_plan_t *p;
    lincoll_status_t st = lincoll_alltoall_init(comm, in, out, n, ports, &p);
    CHECK(st == LINCOLL_OK, "alltoall_init p=%d: %s", ports, lincoll_strerror(st));
    for (int it = 0; st == LINCOLL_OK && it < iters; it++) {
        for (int j = 0; j < P; j++)
            for (size_t i = 0; i < n; i++)
                in[(size_t)j * n + i] = pat(r, (size_t)j, i, it);
        memset(out, 0, tot);
        st = lincoll_start(p);
        if (st == LINCOLL_OK) st = lincoll_wait(p);
        CHECK(st == LINCOLL_OK, "alltoall n=%zu p=%d: %s", n, ports, lincoll_strerror(st));
        size_t bad = 0;
        for (int j = 0; j < P; j++)
            for (size_t i = 0; i < n; i++)
                bad += out[(size_t)j * n + i] != pat(j, (size_t)r, i, it);
        CHECK(bad == 0, "alltoall n=%zu p=%d iter %d: %zu wrong bytes", n, ports, it, bad);
    }
    if (st == LINCOLL_OK) {
        lincoll_plan_stats_t s;
        lincoll_plan_stats(p, &s);
        unsigned c1 = (unsigned)((P - 1 + ports - 1) / ports);
        CHECK(s.rounds == c1, "alltoall stats: C1 %u, expected %u", s.rounds, c1);
        lincoll_plan_free(p);
    }
    lincoll_mem_free(ctx, in);
    lincoll_mem_free(ctx, out);
}

static void check_split(lincoll_comm_t *world, lincoll_context_t *ctx)
{
    int P = lincoll_comm_size(world), r = lincoll_comm_rank(world);
    lincoll_comm_t *half;
    /* reverse order inside each half through the key */
    lincoll_status_t st = lincoll_comm_split(world, r % 2, -r, &half);
    CHECK(st == LINCOLL_OK && half != NULL, "comm_split: %s", lincoll_strerror(st));
    if (st != LINCOLL_OK || half == NULL) return;
    int n = (P + (r % 2 == 0 ? 1 : 0)) / 2;
    CHECK(lincoll_comm_size(half) == n, "split size %d, expected %d", lincoll_comm_size(half), n);
    /* ranks of my color in descending world order */
    int expect = 0;
    for (int q = P - 1; q > r; q--)
        expect += (q % 2 == r % 2);
    CHECK(lincoll_comm_rank(half) == expect, "split rank %d, expected %d", lincoll_comm_rank(half),
          expect);
    check_alltoall(half, ctx, 1000, 2, 2);
    CHECK(lincoll_barrier(half) == LINCOLL_OK, "barrier in the split communicator");
    lincoll_comm_t *none;
    CHECK(lincoll_comm_split(world, -1, 0, &none) == LINCOLL_OK && none == NULL,
          "split with a negative color gives NULL");
    CHECK(lincoll_comm_free(half) == LINCOLL_OK, "comm_free");
    CHECK(lincoll_comm_free(world) == LINCOLL_ERR_INVALID, "the world cannot be freed");
}

static void check_window(lincoll_comm_t *world, lincoll_context_t *ctx)
{
    int P = lincoll_comm_size(world), r = lincoll_comm_rank(world);
    size_t n = 1 << 20;
    unsigned char *win_mem, *src;
    CHECK(lincoll_mem_alloc(ctx, n * (size_t)P, (void **)&win_mem) == LINCOLL_OK, "mem_alloc");
    CHECK(lincoll_mem_alloc(ctx, n, (void **)&src) == LINCOLL_OK, "mem_alloc");
    memset(win_mem, 0, n * (size_t)P);
    lincoll_win_t *win;
    lincoll_status_t st = lincoll_win_create(world, win_mem, n * (size_t)P, &win);
    CHECK(st == LINCOLL_OK, "win_create: %s", lincoll_strerror(st));
    if (st != LINCOLL_OK) return;
    /* everyone puts its pattern into slot r of its right neighbour */
    int right = (r + 1) % P, left = (r - 1 + P) % P;
    for (size_t i = 0; i < n; i++)
        src[i] = pat(r, 9, i, 0);
    st = lincoll_put(win, right, src, n, (size_t)r * n, LINCOLL_PUT_SIGNAL);
    CHECK(st == LINCOLL_OK, "put: %s", lincoll_strerror(st));
    st = lincoll_win_flush(win);
    CHECK(st == LINCOLL_OK, "flush: %s", lincoll_strerror(st));
    st = lincoll_win_wait_signal(win, left, 1);
    CHECK(st == LINCOLL_OK, "wait_signal: %s", lincoll_strerror(st));
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += win_mem[(size_t)left * n + i] != pat(left, 9, i, 0);
    CHECK(bad == 0, "window data from rank %d: %zu wrong bytes", left, bad);
    CHECK(lincoll_barrier(world) == LINCOLL_OK, "barrier after puts");
    lincoll_win_free(win);
    lincoll_mem_free(ctx, win_mem);
    lincoll_mem_free(ctx, src);
}

/* Two windows over one malloc'd buffer (the whole of it, then its second
 * half): the second registration is served by the first (registration cache)
 * and a put at offset 0 of the second window lands in the middle of the buffer. */
static void check_window_subrange(lincoll_comm_t *world)
{
    int P = lincoll_comm_size(world), r = lincoll_comm_rank(world);
    size_t n = 64 * 1024;
    unsigned char *buf = calloc(1, 2 * n), *src = malloc(n);
    lincoll_win_t *whole, *half;
    lincoll_status_t st = lincoll_win_create(world, buf, 2 * n, &whole);
    CHECK(st == LINCOLL_OK, "win_create whole: %s", lincoll_strerror(st));
    st = lincoll_win_create(world, buf + n, n, &half);
    CHECK(st == LINCOLL_OK, "win_create half: %s", lincoll_strerror(st));
    if (st != LINCOLL_OK) return;
    int right = (r + 1) % P, left = (r - 1 + P) % P;
    for (size_t i = 0; i < n; i++)
        src[i] = pat(r, 4, i, 1);
    st = lincoll_put(half, right, src, n, 0, LINCOLL_PUT_SIGNAL);
    if (st == LINCOLL_OK) st = lincoll_win_flush(half);
    if (st == LINCOLL_OK) st = lincoll_win_wait_signal(half, left, 1);
    CHECK(st == LINCOLL_OK, "put into the half window: %s", lincoll_strerror(st));
    size_t bad = 0, stray = 0;
    for (size_t i = 0; i < n; i++) {
        bad += buf[n + i] != pat(left, 4, i, 1);
        stray += buf[i] != 0;
    }
    CHECK(bad == 0 && stray == 0, "half window: %zu wrong bytes, %zu bytes outside it", bad, stray);
    CHECK(lincoll_barrier(world) == LINCOLL_OK, "barrier after the half-window puts");
    lincoll_win_free(half);
    lincoll_win_free(whole);
    free(buf);
    free(src);
}

static void check_mismatch(lincoll_comm_t *world)
{
    int P = lincoll_comm_size(world), r = lincoll_comm_rank(world);
    if (P < 2) return;
    /* rank 0 sends 100 bytes to rank 1, which expects 64: rank 1 sees an error, nobody
     * hangs.  Every rank starts a plan (the others an empty one) so the communicator's
     * operation sequence stays aligned. */
    char buf[128] = {0};
    lincoll_plan_t *p = NULL;
    if (r == 0) {
        lincoll_sendrecv_init(world, buf, 100, 1, NULL, 0, -1, LINCOLL_SENDRECV_CONCURRENT, &p);
    } else if (r == 1) {
        lincoll_sendrecv_init(world, NULL, 0, -1, buf, 64, 0, LINCOLL_SENDRECV_CONCURRENT, &p);
    } else {
        lincoll_sendrecv_init(world, NULL, 0, -1, NULL, 0, -1, LINCOLL_SENDRECV_CONCURRENT, &p);
    }
    CHECK(p != NULL, "sendrecv_init");
    if (p != NULL) {
        lincoll_status_t st = lincoll_start(p);
        if (st == LINCOLL_OK) st = lincoll_wait(p);
        if (r == 1) {
            CHECK(st == LINCOLL_ERR_MISMATCH || st == LINCOLL_ERR_TRUNCATED,
                  "mismatched sizes gave %s", lincoll_strerror(st));
        }
        lincoll_plan_free(p);
    }
    CHECK(lincoll_barrier(world) == LINCOLL_OK, "barrier after the mismatch");
}

int main(void)
{
    lincoll_context_t *ctx;
    lincoll_comm_t *world;
    lincoll_status_t st = lincoll_init(NULL, &ctx);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "engine_ucx: lincoll_init: %s\n", lincoll_strerror(st));
        return 1;
    }
    lincoll_comm_world(ctx, &world);
    me = lincoll_comm_rank(world);
    CHECK(lincoll_barrier(world) == LINCOLL_OK, "barrier");
    check_ring_shift(world, ctx);
    for (int p = 1; p <= 3; p++) {
        check_alltoall(world, ctx, 0, p, 1);
        check_alltoall(world, ctx, 777, p, 3);
        check_alltoall(world, ctx, 300000, p, 2);
    }
    check_split(world, ctx);
    check_window(world, ctx);
    check_window_subrange(world);
    check_mismatch(world);
    st = lincoll_finalize(ctx);
    CHECK(st == LINCOLL_OK, "finalize: %s", lincoll_strerror(st));
    printf("engine_ucx: rank %d: %d checks passed, %d failed\n", me, checks - failures, failures);
    return failures ? 1 : 0;
}
