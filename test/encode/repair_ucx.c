/*
 * test/encode/repair_ucx.c: repair on the k survivors and the rebuilding
 * ranks (lincoll_encode_repair_k_init) over real UCX, one process per rank
 * (lincoll-run -n W, W >= 3).
 *
 * Four repairs, each on a communicator from lincoll_comm_split():
 *  A. one lost data chunk, a replacement and the k = W - 1 others, ranks
 *     ordered by a shuffled key ([W + 2, W - 1] code);
 *  B. two lost chunks (a data and a parity row) rebuilt from k = W - 2
 *     ([W + 2, W - 2]);
 *  C. a degraded read: a reader outside the code decodes a missing data
 *     chunk from k = W - 2 holders, the last world rank opts out of the
 *     split ([W + 1, W - 2]);
 *  D. a degraded read by a member that holds a parity chunk, with W - 2
 *     others ([W + 1, W - 1]), the last world rank opting out.
 * Each with star, tree, chain and the automatic choice, over GF(2^8) and
 * GF(2^16), chunks of 4 KiB, of 64 KiB + 6 bytes and (W <= 5) 1 MiB (the
 * chain in 64 KiB slices), p = 1 and 2.  Plans are started three times.
 * Every rank knows the codeword (data from (row, salt), parity by the
 * one-shot encode), so each checks its own result: the rebuilt chunk equals
 * the codeword row, held chunks are untouched, the plan is the schedule
 * asked for.  Then bad input on every rank (fewer holders than k): every rank
 * fails with LINCOLL_ERR_INVALID at init and the world still completes a
 * barrier.  Exits 0 only if every check passed: "repair_ucx: rank R: N
 * checks passed".
 */
#include <lincoll/encode.h>
#include <lincoll/lincoll.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks, failures, me = -1, W;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "repair_ucx: rank %d: FAILED %s:%d: ", me, __FILE__, __LINE__);        \
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

/* the codeword of an [n, k] Cauchy code: data row j from (j, salt) */
static uint8_t **codeword(const lincoll_field_t *f, int n, int k, size_t B, int salt)
{
    uint64_t q = lincoll_gf_field_order(f);
    size_t es = lincoll_gf_field_elem_size(f);
    uint8_t **cw = calloc((size_t)n, sizeof(*cw));
    for (int i = 0; i < n; i++)
        cw[i] = aligned_alloc(64, (B + 63) & ~(size_t)63);
    for (int j = 0; j < k; j++)
        for (size_t e = 0; e < B / es; e++) {
            uint64_t v = mix((uint64_t)j * 7919u + (uint64_t)salt, e) % q;
            if (es == 1)
                cw[j][e] = (uint8_t)v;
            else
                memcpy(cw[j] + e * 2, &(uint16_t){(uint16_t)v}, 2);
        }
    uint64_t *G = malloc(sizeof(uint64_t) * (size_t)n * (size_t)k);
    lincoll_gf_matrix_systematic(f, n, k, LINCOLL_GF_RS_CAUCHY, G);
    lincoll_gf_encode(f, k, n - k, G + (size_t)k * (size_t)k, B, (const void *const *)cw,
                      (void *const *)(cw + k));
    free(G);
    return cw;
}

static void free_rows(uint8_t **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* one scenario: the code, each world rank's role, and the communicator */
typedef struct scen {
    const char *name;
    int n, k;
    int holds[64], needs[64]; /* by world rank; both -1: not in the communicator */
    int key[64];              /* split key by world rank */
    lincoll_comm_t *comm;
    int crank;                         /* my rank in comm */
    int choles[64], cneeds[64], csize; /* the same by communicator rank */
} scen_t;

static void make_comm(lincoll_comm_t *w, scen_t *s)
{
    int in = s->holds[me] >= 0 || s->needs[me] >= 0;
    lincoll_status_t st = lincoll_comm_split(w, in ? 0 : -1, s->key[me], &s->comm);
    CHECK(st == LINCOLL_OK, "%s: split: %s", s->name, lincoll_strerror(st));
    CHECK(in == (s->comm != NULL), "%s: split gave %s communicator", s->name, s->comm ? "a" : "no");
    /* the communicator's order: by key, then world rank */
    int order[64], n = 0;
    for (int i = 0; i < W; i++)
        if (s->holds[i] >= 0 || s->needs[i] >= 0) order[n++] = i;
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && s->key[order[b]] < s->key[order[b - 1]]; b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    s->csize = n;
    s->crank = -1;
    for (int i = 0; i < n; i++) {
        s->choles[i] = s->holds[order[i]];
        s->cneeds[i] = s->needs[order[i]];
        if (order[i] == me) s->crank = i;
    }
    if (s->comm != NULL) {
        CHECK(lincoll_comm_size(s->comm) == n, "%s: communicator of %d ranks, expected %d", s->name,
              lincoll_comm_size(s->comm), n);
        CHECK(lincoll_comm_rank(s->comm) == s->crank,
              "%s: rank %d in the communicator, expected %d", s->name, lincoll_comm_rank(s->comm),
              s->crank);
    }
}

static int run3(lincoll_plan_t *p)
{
    for (int i = 0; i < 3; i++) {
        lincoll_status_t st = lincoll_start(p);
        if (st == LINCOLL_OK) st = lincoll_wait(p);
        if (st != LINCOLL_OK) {
            fprintf(stderr, "repair_ucx: rank %d: run: %s\n", me, lincoll_strerror(st));
            return 0;
        }
    }
    return 1;
}

static void one(scen_t *s, const lincoll_field_t *f, size_t B, int p, lincoll_repair_algo_t algo,
                int salt)
{
    if (s->comm == NULL) return;
    uint8_t **cw = codeword(f, s->n, s->k, B, salt);
    const int h = s->holds[me], nd = s->needs[me];
    uint8_t *in = aligned_alloc(64, (B + 63) & ~(size_t)63);
    uint8_t *out = aligned_alloc(64, (B + 63) & ~(size_t)63);
    memcpy(in, h >= 0 ? cw[h] : cw[0], B);
    memset(out, 0x5a, B);
    lincoll_repair_opts_t o = {.ports = p, .algo = algo};
    if (B >= ((size_t)1 << 20)) o.slice_bytes = (size_t)64 << 10;
    lincoll_plan_t *plan = NULL;
    lincoll_status_t st =
        lincoll_encode_repair_k_init(s->comm, f, s->n, s->k, LINCOLL_GF_RS_CAUCHY, NULL, s->choles,
                                     s->cneeds, B, in, out, &o, &plan);
    CHECK(st == LINCOLL_OK, "%s %s B=%zu: init: %s", s->name, lincoll_repair_algo_name(algo), B,
          lincoll_strerror(st));
    if (st == LINCOLL_OK) {
        lincoll_plan_stats_t ps;
        lincoll_plan_stats(plan, &ps);
        char want[32];
        snprintf(want, sizeof(want), "repair_%s", lincoll_repair_algo_name(algo));
        CHECK(algo == LINCOLL_REPAIR_ALGO_AUTO || strcmp(ps.algorithm, want) == 0,
              "%s: the plan is %s, asked %s", s->name, ps.algorithm, want);
        if (algo == LINCOLL_REPAIR_ALGO_CHAIN && o.slice_bytes != 0) {
            unsigned nc = 0;
            size_t cb = 0;
            lincoll_encode_chunks(plan, &nc, &cb);
            CHECK(nc == (unsigned)((B + o.slice_bytes - 1) / o.slice_bytes) && cb == o.slice_bytes,
                  "%s chain: %u slices of %zu", s->name, nc, cb);
        }
        CHECK(run3(plan), "%s %s p=%d B=%zu: run", s->name, ps.algorithm, p, B);
        if (nd >= 0)
            CHECK(memcmp(out, cw[nd], B) == 0, "%s %s p=%d B=%zu GF(%llu): row %d not rebuilt",
                  s->name, ps.algorithm, p, B, (unsigned long long)lincoll_gf_field_order(f), nd);
        if (h >= 0)
            CHECK(memcmp(in, cw[h], B) == 0, "%s %s: the held chunk changed", s->name,
                  ps.algorithm);
        if (me == 0 && nd >= 0 && B == 4096 && p == 1)
            printf("repair_ucx: %s: %s ok\n", s->name, ps.algorithm);
        lincoll_plan_free(plan);
    }
    free(in);
    free(out);
    free_rows(cw, s->n);
}

int main(void)
{
    lincoll_context_t *ctx;
    lincoll_comm_t *w;
    if (lincoll_init(NULL, &ctx) != LINCOLL_OK) return 1;
    lincoll_comm_world(ctx, &w);
    me = lincoll_comm_rank(w);
    W = lincoll_comm_size(w);
    if (W < 3 || W > 64) {
        fprintf(stderr, "repair_ucx: needs 3 .. 64 ranks (got %d)\n", W);
        lincoll_finalize(ctx);
        return 2;
    }
    scen_t sc[4]; /* every entry j < W is set below */
    /* A: rank 1 replaces data row 1 from the W - 1 others; shuffled order */
    sc[0] = (scen_t){.name = "A one lost", .n = W + 2, .k = W - 1};
    for (int j = 0; j < W; j++) {
        sc[0].holds[j] = j == 1 ? -1 : j;
        sc[0].needs[j] = j == 1 ? 1 : -1;
        sc[0].key[j] = (int)(mix((uint64_t)j, 3) % 1000);
    }
    /* B: ranks 0 and W - 1 rebuild data row 0 and parity row W from 1 .. W - 2 */
    sc[1] = (scen_t){.name = "B two lost", .n = W + 2, .k = W - 2};
    for (int j = 0; j < W; j++) {
        sc[1].holds[j] = j == 0 || j == W - 1 ? -1 : j;
        sc[1].needs[j] = j == 0 ? 0 : j == W - 1 ? W : -1;
        sc[1].key[j] = W - j;
    }
    /* C: rank 0 (no chunk) reads data row 0 from ranks 1 .. W - 2 (rows 1 .. W - 2
     * and parity W - 1 .. : shifted by one); rank W - 1 opts out */
    sc[2] = (scen_t){.name = "C degraded read", .n = W + 1, .k = W - 2};
    for (int j = 0; j < W; j++) {
        sc[2].holds[j] = j >= 1 && j <= W - 2 ? j + 1 : -1;
        sc[2].needs[j] = j == 0 ? 0 : -1;
        sc[2].key[j] = j;
    }
    /* D: rank 0 holds parity row W and reads data row 0; ranks 1 .. W - 2 hold
     * rows 1 .. W - 2; rank W - 1 opts out */
    sc[3] = (scen_t){.name = "D member read", .n = W + 1, .k = W - 1};
    for (int j = 0; j < W; j++) {
        sc[3].holds[j] = j == 0 ? W : j <= W - 2 ? j : -1;
        sc[3].needs[j] = j == 0 ? 0 : -1;
        sc[3].key[j] = j;
    }
    for (int i = 0; i < 4; i++)
        make_comm(w, &sc[i]);
    lincoll_field_t *f8, *f16;
    lincoll_gf_field_create(256, &f8);
    lincoll_gf_field_create(65536, &f16);
    static const lincoll_repair_algo_t algos[] = {
        LINCOLL_REPAIR_ALGO_STAR, LINCOLL_REPAIR_ALGO_TREE, LINCOLL_REPAIR_ALGO_CHAIN,
        LINCOLL_REPAIR_ALGO_AUTO};
    const size_t sizes[] = {4096, 65536 + 6, (size_t)1 << 20};
    int salt = 1;
    for (int i = 0; i < 4; i++)
        for (int si = 0; si < 3; si++) {
            if (si == 2 && W > 5) continue;
            for (int a = 0; a < 4; a++)
                for (int p = 1; p <= 2; p++) {
                    if (p == 2 && si > 0) continue;
                    one(&sc[i], f8, sizes[si], p, algos[a], salt++);
                    if (si < 2) one(&sc[i], f16, sizes[si], p, algos[a], salt++);
                }
        }
    /* bad input alike on every rank: k = W - 1 with scenario B's W - 2 holders
     * (k + r is not the communicator's size) */
    {
        lincoll_comm_t *c = sc[1].comm;
        uint8_t buf[64] = {0}, out[64];
        lincoll_plan_t *plan = (lincoll_plan_t *)1;
        lincoll_status_t st =
            lincoll_encode_repair_k_init(c, f8, W + 2, W - 1, LINCOLL_GF_RS_CAUCHY, NULL,
                                         sc[1].choles, sc[1].cneeds, 64, buf, out, NULL, &plan);
        CHECK(st == LINCOLL_ERR_INVALID && plan == NULL,
              "fewer holders than k: %s (plan %p), expected LINCOLL_ERR_INVALID",
              lincoll_strerror(st), (void *)plan);
    }
    CHECK(lincoll_barrier(w) == LINCOLL_OK, "barrier");
    for (int i = 0; i < 4; i++)
        lincoll_comm_free(sc[i].comm);
    lincoll_gf_field_destroy(f8);
    lincoll_gf_field_destroy(f16);
    lincoll_finalize(ctx);
    printf("repair_ucx: rank %d: %d checks passed%s\n", me, checks - failures,
           failures ? " (with failures)" : "");
    return failures ? 1 : 0;
}
