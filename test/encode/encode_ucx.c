/*
 * test/encode/encode_ucx.c: all-to-all encode over real UCX, one process per
 * rank (lincoll-run, mpirun).
 *
 * Every rank derives every rank's input from (rank, seed), so it can check
 * its own output alone.  For p = 1, 2, 3 and packets of 4 KiB and 64 KiB (and
 * 1 MiB for p = 1):
 * the universal algorithms (prepare_shoot, best_window, direct, auto) on a
 * random K x K matrix over GF(2^8) and over the prime 65537; the DFT
 * (natural order, prime 65537; specific when K = (p+1)^L); coset Vandermonde
 * (GF(2^8)); the [K, k] systematic RS encode and a repair of lost ranks.
 * Plans are started three times (persistent).  Exits 0 only if every check
 * passed; prints "encode_ucx: rank R: N checks passed".
 * zcopy (packets read in place from the peers' lincoll memory): forced and
 * automatic, a rank whose packet is malloc memory (everyone falls back), and
 * mismatched packet sizes (LINCOLL_ERR_MISMATCH on every rank at init).
 * --small: 4 KiB packets only (K = 12, 16 oversubscribe two cores).
 * --chunked: 4 MiB packets pipelined in 512 KiB chunks (8 per packet, checked
 * with lincoll_encode_chunks()) for every family above, p = 1 and 2, then the
 * cost model's own chunking of the same packets.
 */
#include <lincoll/encode.h>
#include <lincoll/lincoll.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks, failures, me = -1, K;
static size_t g_chunk; /* opts.chunk_bytes of every plan (0: LINCOLL_ENCODE_CHUNK / model) */

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "encode_ucx: rank %d: FAILED %s:%d: ", me, __FILE__, __LINE__);        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

static uint64_t mix(uint64_t a, uint64_t b)
{
    uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 29);
}

static uint64_t get(const void *b, size_t es, size_t i)
{
    if (es == 1) return ((const uint8_t *)b)[i];
    return ((const uint32_t *)b)[i];
}

static void put(void *b, size_t es, size_t i, uint64_t v)
{
    if (es == 1)
        ((uint8_t *)b)[i] = (uint8_t)v;
    else
        ((uint32_t *)b)[i] = (uint32_t)v;
}

/* element e of rank j's input */
static uint64_t xval(const lincoll_field_t *f, int j, size_t e, int salt)
{
    return mix((uint64_t)j * 1000003u + (uint64_t)salt, e) % lincoll_gf_field_order(f);
}

static void fill(const lincoll_field_t *f, void *buf, size_t B, int j, int salt)
{
    size_t es = lincoll_gf_field_elem_size(f);
    for (size_t e = 0; e < B / es; e++)
        put(buf, es, e, xval(f, j, e, salt));
}

/* check out == sum_j coef(j) x_j on a sample of elements (all when small) */
static int check_out(const lincoll_field_t *f, const uint64_t *col, const void *out, size_t B,
                     int salt)
{
    size_t es = lincoll_gf_field_elem_size(f), n = B / es, step = n > 4096 ? 97 : 1;
    for (size_t e = 0; e < n; e += step) {
        uint64_t acc = 0;
        for (int j = 0; j < K; j++)
            if (col[j])
                acc = lincoll_gf_add(f, acc, lincoll_gf_mul(f, col[j], xval(f, j, e, salt)));
        if (acc != get(out, es, e)) return 0;
    }
    return 1;
}

/* --chunked with an explicit chunk: the plan must be cut as asked */
static void check_chunks(lincoll_plan_t *p, size_t B, const char *what)
{
    unsigned n = 0;
    size_t c = 0;
    CHECK(lincoll_encode_chunks(p, &n, &c) == LINCOLL_OK, "%s: lincoll_encode_chunks", what);
    lincoll_plan_stats_t st;
    lincoll_plan_stats(p, &st);
    if (strcmp(st.algorithm, "zcopy") == 0) /* no transfer to overlap: never chunked */
        CHECK(n == 1 && c == B, "%s B=%zu: zcopy in %u chunks of %zu", what, B, n, c);
    else if (g_chunk != 0 && g_chunk < B && K > 1)
        CHECK(n == (unsigned)((B + g_chunk - 1) / g_chunk) && c == g_chunk,
              "%s B=%zu: %u chunks of %zu, asked %zu", what, B, n, c, g_chunk);
    else if (g_chunk == 0 && me == 0 && B > (1u << 20))
        printf("encode_ucx: %s B=%zu: the model chose %u chunk(s) of %zu bytes\n", what, B, n, c);
}

static int run3(lincoll_plan_t *p)
{
    for (int i = 0; i < 3; i++) {
        lincoll_status_t st = lincoll_start(p);
        if (st == LINCOLL_OK) st = lincoll_wait(p);
        if (st != LINCOLL_OK) {
            fprintf(stderr, "encode_ucx: rank %d: run: %s\n", me, lincoll_strerror(st));
            return 0;
        }
    }
    return 1;
}

static void universal(lincoll_comm_t *w, lincoll_context_t *ctx, const lincoll_field_t *f, int p,
                      size_t B)
{
    uint64_t q = lincoll_gf_field_order(f);
    uint64_t *A = malloc(8 * (size_t)K * K), *col = malloc(8 * (size_t)K);
    for (int i = 0; i < K * K; i++)
        A[i] = mix((uint64_t)i, q + (uint64_t)p) % q;
    for (int j = 0; j < K; j++)
        col[j] = A[(size_t)j * K + me];
    void *in, *out;
    CHECK(lincoll_mem_alloc(ctx, B, &in) == LINCOLL_OK, "mem_alloc");
    out = aligned_alloc(64, (B + 63) & ~(size_t)63);
    static const lincoll_encode_algo_t algos[] = {
        LINCOLL_ENCODE_ALGO_PREPARE_SHOOT, LINCOLL_ENCODE_ALGO_BEST_WINDOW,
        LINCOLL_ENCODE_ALGO_DIRECT, LINCOLL_ENCODE_ALGO_AUTO};
    for (int a = 0; a < 4; a++) {
        int salt = a + p * 10;
        fill(f, in, B, me, salt);
        memset(out, 0, B);
        lincoll_encode_opts_t o = {.ports = p, .algo = algos[a], .chunk_bytes = g_chunk};
        lincoll_plan_t *plan;
        lincoll_status_t st = lincoll_encode_init(w, f, A, K, K, B, in, out, &o, &plan);
        CHECK(st == LINCOLL_OK, "encode_init %s: %s", lincoll_encode_algo_name(algos[a]),
              lincoll_strerror(st));
        if (st != LINCOLL_OK) continue;
        check_chunks(plan, B, lincoll_encode_algo_name(algos[a]));
        CHECK(run3(plan), "encode %s p=%d B=%zu", lincoll_encode_algo_name(algos[a]), p, B);
        CHECK(check_out(f, col, out, B, salt), "encode %s p=%d B=%zu q=%llu: wrong result",
              lincoll_encode_algo_name(algos[a]), p, B, (unsigned long long)q);
        lincoll_plan_free(plan);
    }
    lincoll_mem_free(ctx, in);
    free(out);
    free(A);
    free(col);
}

static void dft_vdm(lincoll_comm_t *w, const lincoll_field_t *fp, const lincoll_field_t *f8, int p,
                    size_t B)
{
    uint64_t *col = malloc(8 * (size_t)K), *pts = malloc(8 * (size_t)K);
    void *in = aligned_alloc(64, B), *out = aligned_alloc(64, B);
    lincoll_plan_t *plan;
    /* DFT, natural order, over 65537 when K | 65536 */
    if (65536 % K == 0) {
        uint64_t om;
        lincoll_gf_root_of_unity(fp, (uint64_t)K, &om);
        for (int j = 0; j < K; j++)
            col[j] = lincoll_gf_pow(fp, om, (uint64_t)j * (uint64_t)me);
        fill(fp, in, B, me, 7);
        lincoll_encode_opts_t o = {.ports = p, .chunk_bytes = g_chunk};
        lincoll_status_t st =
            lincoll_encode_dft_init(w, fp, LINCOLL_ENCODE_DFT_NATURAL, B, in, out, &o, &plan);
        CHECK(st == LINCOLL_OK, "dft_init: %s", lincoll_strerror(st));
        if (st == LINCOLL_OK) {
            check_chunks(plan, B, "dft");
            CHECK(run3(plan), "dft p=%d", p);
            CHECK(check_out(fp, col, out, B, 7), "dft p=%d B=%zu: wrong result", p, B);
            lincoll_plan_free(plan);
        }
    }
    /* coset Vandermonde over GF(2^8) */
    fill(f8, in, B, me, 8);
    lincoll_encode_opts_t o = {.ports = p, .chunk_bytes = g_chunk};
    lincoll_status_t st = lincoll_encode_vandermonde_init(w, f8, NULL, pts, B, in, out, &o, &plan);
    CHECK(st == LINCOLL_OK, "vandermonde_init: %s", lincoll_strerror(st));
    if (st == LINCOLL_OK) {
        check_chunks(plan, B, "vandermonde");
        for (int j = 0; j < K; j++)
            col[j] = lincoll_gf_pow(f8, pts[me], (uint64_t)j);
        CHECK(run3(plan), "vandermonde p=%d", p);
        CHECK(check_out(f8, col, out, B, 8), "vandermonde p=%d B=%zu: wrong result", p, B);
        lincoll_plan_free(plan);
    }
    free(in);
    free(out);
    free(col);
    free(pts);
}

static void rs_repair(lincoll_comm_t *w, const lincoll_field_t *f8, int p, size_t B)
{
    if (K < 2) return;
    int k = K >= 4 ? K - 2 : K - 1;
    uint64_t *G = malloc(8 * (size_t)K * k);
    lincoll_gf_matrix_systematic(f8, K, k, LINCOLL_GF_RS_CAUCHY, G);
    uint8_t *data = malloc(B), *parity = malloc(B), *rebuilt = malloc(B);
    if (me < k) fill(f8, data, B, me, 9);
    lincoll_encode_opts_t o = {.ports = p, .chunk_bytes = g_chunk};
    lincoll_plan_t *plan;
    lincoll_status_t st =
        lincoll_encode_rs_init(w, f8, k, LINCOLL_GF_RS_CAUCHY, NULL, B, data, parity, &o, &plan);
    CHECK(st == LINCOLL_OK, "rs_init: %s", lincoll_strerror(st));
    if (st != LINCOLL_OK) goto out;
    check_chunks(plan, B, "rs_encode");
    CHECK(run3(plan), "rs encode p=%d", p);
    lincoll_plan_free(plan);
    if (me >= k) { /* parity = G[me] . data */
        int ok = 1;
        for (size_t e = 0; e < B && ok; e += (B > 4096 ? 61 : 1)) {
            uint64_t acc = 0;
            for (int j = 0; j < k; j++)
                acc ^= lincoll_gf_mul(f8, G[(size_t)me * k + j], xval(f8, j, e, 9));
            ok = acc == parity[e];
        }
        CHECK(ok, "rs encode p=%d B=%zu: wrong parity", p, B);
    }
    /* lose rank 0 (and rank K-1 when there are two parities); survivors: the rest */
    int lost[2] = {0, K - 1}, nl = K - k >= 2 ? 2 : 1, surv[64], ns = 0;
    for (int j = 0; j < K && ns < k; j++)
        if (j != lost[0] && (nl < 2 || j != lost[1])) surv[ns++] = j;
    const uint8_t *mine = me < k ? data : parity;
    st = lincoll_encode_repair_init(w, f8, k, LINCOLL_GF_RS_CAUCHY, NULL, surv, nl, lost, B, mine,
                                    rebuilt, &o, &plan);
    CHECK(st == LINCOLL_OK, "repair_init: %s", lincoll_strerror(st));
    if (st != LINCOLL_OK) goto out;
    check_chunks(plan, B, "rs_repair");
    memset(rebuilt, 0, B);
    CHECK(run3(plan), "repair p=%d", p);
    lincoll_plan_free(plan);
    if (me == 0) {
        int ok = 1;
        for (size_t e = 0; e < B && ok; e++)
            ok = rebuilt[e] == (uint8_t)xval(f8, 0, e, 9);
        CHECK(ok, "repair p=%d B=%zu: rank 0's data not rebuilt", p, B);
    }
    if (nl == 2 && me == K - 1) {
        CHECK(memcmp(rebuilt, parity, B) == 0, "repair p=%d B=%zu: parity not rebuilt", p, B);
    }
out:
    free(G);
    free(data);
    free(parity);
    free(rebuilt);
}

/* zcopy (every rank's packet lincoll memory, peers mapped: one node):
 *  - forced zcopy runs where K > 1 (stats C1 = 2, C2 = K - 1 packets) and
 *    gives x A; auto picks it for 1 MiB packets (the model: no copy); with
 *    every output in lincoll memory too, zcopy_split (C2 = 2 (K - 1)
 *    segments); one rank's output in malloc memory: zcopy;
 *  - rank 0's packet in malloc memory: every rank falls back to the same tag
 *    algorithm (not zcopy) and the result is right;
 *  - rank 0 passes another packet size: LINCOLL_ERR_MISMATCH on every rank. */
static void zcopy(lincoll_comm_t *w, lincoll_context_t *ctx, const lincoll_field_t *f, size_t B)
{
    const char *cv = getenv("LINCOLL_ENCODE_CHECKSUM");
    const int crc = cv != NULL && strcmp(cv, "crc32c") == 0;
    uint64_t q = lincoll_gf_field_order(f);
    uint64_t *A = malloc(8 * (size_t)K * K), *col = malloc(8 * (size_t)K);
    for (int i = 0; i < K * K; i++)
        A[i] = mix((uint64_t)i, q + 77) % q;
    for (int j = 0; j < K; j++)
        col[j] = A[(size_t)j * K + me];
    void *in, *lout, *hin = aligned_alloc(64, B), *hout = aligned_alloc(64, B);
    CHECK(lincoll_mem_alloc(ctx, B, &in) == LINCOLL_OK, "mem_alloc");
    CHECK(lincoll_mem_alloc(ctx, B, &lout) == LINCOLL_OK, "mem_alloc");
    for (int c = 0; c < 5; c++) {
        /* c = 0, 1: forced / automatic, output malloc memory (zcopy); c = 2: rank 0's
         * input malloc memory (fallback); c = 3, 4: outputs lincoll memory too
         * (zcopy_split), c = 4 with rank 0's output malloc memory (zcopy) */
        lincoll_encode_algo_t algo = c == 1 ? LINCOLL_ENCODE_ALGO_AUTO : LINCOLL_ENCODE_ALGO_ZCOPY;
        void *x = c == 2 && me == 0 ? hin : in;
        void *out = c == 3 || (c == 4 && me != 0) ? lout : hout;
        const char *want = c == 3 ? "zcopy_split" : "zcopy";
        int salt = 500 + c;
        fill(f, x, B, me, salt);
        memset(out, 0, B);
        lincoll_encode_opts_t o = {.ports = 1, .algo = algo};
        lincoll_plan_t *plan;
        lincoll_status_t st = lincoll_encode_init(w, f, A, K, K, B, x, out, &o, &plan);
        CHECK(st == LINCOLL_OK, "zcopy case %d: encode_init: %s", c, lincoll_strerror(st));
        if (st != LINCOLL_OK) continue;
        lincoll_plan_stats_t s;
        lincoll_plan_stats(plan, &s);
        int zc = strcmp(s.algorithm, want) == 0;
        if (crc) { /* LINCOLL_ENCODE_CHECKSUM: no zcopy (no message to checksum) */
            CHECK(strncmp(s.algorithm, "zcopy", 5) != 0, "zcopy under the checksum: %s",
                  s.algorithm);
            zc = 1; /* nothing more to check about the algorithm */
        }
        /* zcopy_split: rank me moves segment me (64-byte units) K - 1 times each way */
        size_t u = B / 64, seg = (u / (size_t)K + ((size_t)me < u % (size_t)K)) * 64;
        uint64_t c2 = c == 3 ? 2 * (uint64_t)(K - 1) * seg : (uint64_t)(K - 1) * B;
        if (!crc && c != 2 && K > 1) {
            CHECK(zc, "zcopy case %d B=%zu: the plan is %s, not %s", c, B, s.algorithm, want);
            CHECK(!zc || (s.rounds == 2 && s.c2_bytes == c2 && s.c2_elems == c2 / B &&
                          s.bytes_sent == 0),
                  "%s stats: C1=%u C2=%llu bytes (want %llu) bytes_sent=%llu", want, s.rounds,
                  (unsigned long long)s.c2_bytes, (unsigned long long)c2,
                  (unsigned long long)s.bytes_sent);
        } else if (!crc) {
            CHECK(strncmp(s.algorithm, "zcopy", 5) != 0,
                  "zcopy case %d: rank 0's packet is malloc memory, yet the plan is %s", c,
                  s.algorithm);
        }
        CHECK(run3(plan), "zcopy case %d B=%zu", c, B);
        CHECK(check_out(f, col, out, B, salt), "zcopy case %d (%s) B=%zu: wrong result", c,
              s.algorithm, B);
        lincoll_plan_free(plan);
    }
    if (K > 1 && !crc) { /* other packet sizes: every rank learns it at init */
        lincoll_encode_opts_t o = {.ports = 1, .algo = LINCOLL_ENCODE_ALGO_ZCOPY};
        lincoll_plan_t *plan = NULL;
        lincoll_status_t st =
            lincoll_encode_init(w, f, A, K, K, me == 0 ? B / 2 : B, in, hout, &o, &plan);
        CHECK(st == LINCOLL_ERR_MISMATCH, "zcopy with mismatched packet sizes: %s",
              lincoll_strerror(st));
        if (st == LINCOLL_OK) lincoll_plan_free(plan);
    }
    lincoll_mem_free(ctx, in);
    lincoll_mem_free(ctx, lout);
    free(hin);
    free(hout);
    free(A);
    free(col);
}

int main(int argc, char **argv)
{
    int small = 0, chunked = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--small") == 0) {
            small = 1;
        } else if (strcmp(argv[i], "--chunked") == 0) {
            chunked = 1;
        } else {
            fprintf(stderr, "encode_ucx: unknown option %s (--small, --chunked)\n", argv[i]);
            return 2;
        }
    }
    lincoll_context_t *ctx;
    lincoll_comm_t *w;
    if (lincoll_init(NULL, &ctx) != LINCOLL_OK) return 1;
    lincoll_comm_world(ctx, &w);
    me = lincoll_comm_rank(w);
    K = lincoll_comm_size(w);
    lincoll_field_t *f8, *fp;
    lincoll_gf_field_create(256, &f8);
    lincoll_gf_field_create(65537, &fp);
    /* every algorithm at 4 KiB and 64 KiB for p = 1..3; 1 MiB (rendezvous,
     * several GF blocks) for p = 1 only: this runs oversubscribed on 2 cores */
    const size_t sizes[] = {4096, 65536, 1 << 20};
    for (int p = 1; p <= 3 && !chunked; p++) {
        for (int s = 0; s < 3; s++) {
            if ((s == 2 && p > 1) || (small && s > 0)) continue;
            universal(w, ctx, f8, p, sizes[s]);
            if (s < 2) universal(w, ctx, fp, p, sizes[s]);
            dft_vdm(w, fp, f8, p, sizes[s]);
            rs_repair(w, f8, p, sizes[s]);
        }
    }
    if (!chunked) {
        zcopy(w, ctx, f8, small ? 4096 : (size_t)1 << 20);
        zcopy(w, ctx, fp, 65536);
    }
    /* multi-MiB packets in chunks: 8 asked-for chunks, then the model's choice */
    const size_t big = (size_t)4 << 20;
    for (int c = 0; c < 2 && chunked; c++) {
        g_chunk = c == 0 ? (size_t)512 << 10 : 0;
        for (int p = 1; p <= 2; p++) {
            if (c == 1 && p > 1) break;
            universal(w, ctx, f8, p, big);
            dft_vdm(w, fp, f8, p, big);
            rs_repair(w, f8, p, big);
        }
    }
    CHECK(lincoll_barrier(w) == LINCOLL_OK, "barrier");
    lincoll_gf_field_destroy(f8);
    lincoll_gf_field_destroy(fp);
    lincoll_finalize(ctx);
    printf("encode_ucx: rank %d: %d checks passed%s\n", me, checks - failures,
           failures ? " (with failures)" : "");
    return failures ? 1 : 0;
}
