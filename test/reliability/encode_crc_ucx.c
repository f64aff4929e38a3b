/*
 * test/reliability/encode_crc_ucx.c: LINCOLL_ENCODE_CHECKSUM=crc32c over
 * real UCX (run under lincoll-run with the variable set; see CMakeLists.txt).
 *
 * On K ranks, GF(2^8): prepare-and-shoot, best_window and direct with a dense
 * K x K matrix, and a systematic [K, K-1] RS encode, for p = 1, 2 and packets
 * of 4 KiB and 256 KiB (eager and rendezvous).  Each plan runs three times
 * and every output byte is checked against the serial reference.  The plan
 * stats must show the checksum rounds: for the universal algorithms on the
 * small packets C1 is twice the closed form of lincoll_encode_cost, and
 * every message has its
 * 4-byte checksum twin (messages even, bytes = data + 4 per checksum).
 * Prints "encode_crc_ucx: rank R: N checks passed"; exit 0 only if all did.
 */
#include <lincoll/encode.h>
#include <lincoll/lincoll.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks, failures, me;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "encode_crc_ucx: rank %d: FAILED line %d: ", me, __LINE__);            \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

static uint8_t xbyte(int j, size_t e, int it)
{
    return (uint8_t)((j * 37 + (int)(e % 251) * 11 + it * 5 + (int)(e >> 9)) & 0xff);
}

int main(void)
{
    lincoll_context_t *ctx;
    lincoll_comm_t *world;
    lincoll_status_t st = lincoll_init(NULL, &ctx);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "encode_crc_ucx: lincoll_init: %s\n", lincoll_strerror(st));
        return 1;
    }
    lincoll_comm_world(ctx, &world);
    me = lincoll_comm_rank(world);
    int K = lincoll_comm_size(world);
    lincoll_field_t *f;
    lincoll_gf_field_create(256, &f);
    uint64_t *A = malloc(sizeof(uint64_t) * (size_t)K * (size_t)K);
    uint64_t *G = malloc(sizeof(uint64_t) * (size_t)K * (size_t)K);
    int k = K > 1 ? K - 1 : 1;
    for (int i = 0; i < K * K; i++)
        A[i] = 1 + (uint64_t)((i * 53 + 7) % 255);
    for (int r = 0; r < K; r++)
        for (int j = 0; j < k; j++)
            G[r * k + j] = r < k ? (uint64_t)(r == j) : 1 + (uint64_t)((r * 3 + j * 17) % 255);
    const size_t sizes[] = {4096, 256 * 1024};
    uint8_t *in, *out;
    lincoll_mem_alloc(ctx, sizes[1], (void **)&in);
    lincoll_mem_alloc(ctx, sizes[1], (void **)&out);
    static const lincoll_encode_algo_t algos[] = {LINCOLL_ENCODE_ALGO_PREPARE_SHOOT,
                                                  LINCOLL_ENCODE_ALGO_BEST_WINDOW,
                                                  LINCOLL_ENCODE_ALGO_DIRECT};
    for (int p = 1; p <= 2; p++) {
        for (int si = 0; si < 2; si++) {
            size_t B = sizes[si];
            for (int a = 0; a < 4 && K >= 2; a++) {
                int rs = a == 3;
                lincoll_encode_opts_t o = {.ports = p, .algo = rs ? 0 : algos[a]};
                lincoll_plan_t *plan = NULL;
                st = rs ? lincoll_encode_rs_init(world, f, k, LINCOLL_GF_RS_VANDERMONDE, G, B, in,
                                                 out, &o, &plan)
                        : lincoll_encode_init(world, f, A, K, K, B, in, out, &o, &plan);
                CHECK(st == LINCOLL_OK, "init p=%d B=%zu algo %d: %s", p, B, a,
                      lincoll_strerror(st));
                if (st != LINCOLL_OK) continue;
                lincoll_plan_stats_t ps;
                lincoll_plan_stats(plan, &ps);
                CHECK(ps.msgs_sent % 2 == 0 && ps.msgs_recvd % 2 == 0,
                      "%s: %llu/%llu messages: each needs its checksum twin", ps.algorithm,
                      (unsigned long long)ps.msgs_sent, (unsigned long long)ps.msgs_recvd);
                CHECK(ps.bytes_sent % B == 4 * (ps.msgs_sent / 2) % B,
                      "%s: %llu bytes sent for %llu messages", ps.algorithm,
                      (unsigned long long)ps.bytes_sent, (unsigned long long)ps.msgs_sent);
                if (!rs && B < 128 * 1024) { /* unchunked packets: C1 is the schedule's */
                    unsigned c1 = 0;
                    lincoll_encode_cost(K, p, algos[a], &c1, NULL, NULL);
                    CHECK(ps.rounds == 2 * c1, "%s K=%d p=%d: C1=%u, closed form %u x 2",
                          ps.algorithm, K, p, ps.rounds, c1);
                }
                for (int it = 0; it < 3; it++) {
                    for (size_t e = 0; e < B; e++)
                        in[e] = xbyte(me, e, it);
                    memset(out, 0xa5, B);
                    st = lincoll_start(plan);
                    if (st == LINCOLL_OK) st = lincoll_wait(plan);
                    CHECK(st == LINCOLL_OK, "%s run: %s", ps.algorithm, lincoll_strerror(st));
                    if (st != LINCOLL_OK) break;
                    if (rs && me < k) continue; /* data ranks get no parity */
                    size_t bad = 0;
                    for (size_t e = 0; e < B; e++) {
                        uint64_t acc = 0;
                        int n = rs ? k : K;
                        for (int j = 0; j < n; j++) {
                            uint64_t c = rs ? G[me * k + j] : A[j * K + me];
                            acc = lincoll_gf_add(f, acc, lincoll_gf_mul(f, c, xbyte(j, e, it)));
                        }
                        bad += out[e] != acc;
                    }
                    CHECK(bad == 0, "%s p=%d B=%zu start %d: %zu wrong bytes", ps.algorithm, p, B,
                          it, bad);
                }
                lincoll_plan_free(plan);
            }
        }
    }
    lincoll_mem_free(ctx, in);
    lincoll_mem_free(ctx, out);
    lincoll_gf_field_destroy(f);
    free(A);
    free(G);
    st = lincoll_finalize(ctx);
    CHECK(st == LINCOLL_OK, "finalize: %s", lincoll_strerror(st));
    printf("encode_crc_ucx: rank %d: %d checks passed, %d failed\n", me, checks - failures,
           failures);
    return failures ? 1 : 0;
}
