/*
 * test/encode/test_repair_sim.c: repair on the k survivors and the
 * rebuilding ranks only (lincoll_encode_repair_k_init), on the sim
 * transport (exact per-round and per-rank accounting).
 *
 * For every schedule (star, tree, chain) and the automatic choice:
 *  - k = 2..10 holders, r = 1..4 rebuilding ranks of a [k + 4, k] Cauchy
 *    code, with and without a rank that both holds and rebuilds, rows
 *    assigned to communicator ranks at random; GF(2^8) and GF(2^16); chunks
 *    of one element, of odd sizes and cut into slices (asked and the
 *    model's); p = 1 and 2: every rebuilt chunk equals the codeword row
 *    (computed by the one-shot encode and spot-checked element by element),
 *    the holders' chunks are untouched, and what the sim measures (global
 *    rounds, messages and bytes in all, the most any rank sends and
 *    receives) equals lincoll_encode_repair_cost()'s closed forms, as do
 *    the plan stats' global rounds and lincoll_encode_chunks();
 *  - large k (32, 64, 100; GF(2^16) for 200): the same checks;
 *  - the chain's pipeline: T + S - 1 rounds, no round carries more than r
 *    slices, fewer rounds' worth of bytes on the critical path than star;
 *  - degraded reads: a reader outside the code, and a member that holds a
 *    chunk, decode a missing data chunk;
 *  - selection: auto compiles what lincoll_encode_repair_cost() picks
 *    (tree for 4 KiB chunks, chain for 4 MiB at k = 6 under the default
 *    model), LINCOLL_REPAIR_ALGO forces and opts->algo overrides it;
 *  - lincoll_encode_repair_init() on exactly the survivors and the lost
 *    ranks takes these schedules, and keeps the N-rank encode when a
 *    universal algorithm is forced;
 *  - LINCOLL_ENCODE_CHECKSUM=crc32c: twice the rounds, right rows; a
 *    corrupted message is LINCOLL_ERR_CORRUPT, never a wrong row;
 *  - bad input: repeated rows, a row held and needed, a singular set, a
 *    rank that neither holds nor needs a row, holders other than k (k + r
 *    not the communicator's size), two ranks that hold and need, rows out
 *    of range, a bad algorithm in the options or in LINCOLL_REPAIR_ALGO:
 *    the same status on every rank and one log line naming the argument
 *    on each.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "encode/enc_common.h"

#define MAXP 256

/* one repair: the code, the roles of the communicator's ranks, the options */
typedef struct rcase {
    const lincoll_field_t *f;
    int n, k, P;
    int holds[MAXP], needs[MAXP];
    size_t B;
    int p;
    lincoll_repair_algo_t algo;
    size_t slice;
    const uint64_t *gen;
} rcase_t;

typedef struct rres {
    lincoll_status_t init_st, run_st;
    unsigned rounds;                         /* sim: global rounds */
    uint64_t msgs, bytes;                    /* sim: sent by all ranks */
    uint64_t max_ms, max_bs, max_mr, max_br; /* sim: the most one rank */
    uint64_t max_round_bytes;                /* sim: the largest message */
    lincoll_plan_stats_t st0;                /* rank 0's plan stats */
    unsigned nchunks;                        /* lincoll_encode_chunks */
    size_t chunk;
} rres_t;

static lincoll_status_t init_k(lincoll_comm_t *comm, int r, const void *in, void *out, void *arg,
                               lincoll_plan_t **plan)
{
    rcase_t *c = arg;
    (void)r;
    lincoll_repair_opts_t o = {.ports = c->p, .algo = c->algo, .slice_bytes = c->slice};
    return lincoll_encode_repair_k_init(comm, c->f, c->n, c->k, LINCOLL_GF_RS_CAUCHY, c->gen,
                                        c->holds, c->needs, c->B, in, out, &o, plan);
}

/* Compile on P virtual ranks, run twice, measure the second start. */
static void run_case(rcase_t *c, uint8_t **in, uint8_t **out, enc_init_fn fn, rres_t *res)
{
    lc_simh_t h;
    memset(res, 0, sizeof(*res));
    assert_int_equal(lc_simh_create(&h, c->P, c->p), 0);
    lincoll_plan_t **plans = calloc((size_t)c->P, sizeof(*plans));
    for (int r = 0; r < c->P; r++) {
        lincoll_status_t st = fn(h.comm[r], r, in[r], out[r], c, &plans[r]);
        if (st != LINCOLL_OK && res->init_st == LINCOLL_OK) res->init_st = st;
    }
    for (int s = 0; s < 2 && res->init_st == LINCOLL_OK && res->run_st == LINCOLL_OK; s++) {
        lc_sim_world_reset_stats(h.world);
        res->run_st = lc_simh_run(&h, plans);
    }
    if (res->init_st == LINCOLL_OK) {
        res->rounds = lc_sim_world_rounds(h.world);
        for (unsigned t = 0; t < res->rounds; t++) {
            uint64_t mb = lc_sim_world_round(h.world, t).max_bytes;
            res->max_round_bytes = mb > res->max_round_bytes ? mb : res->max_round_bytes;
        }
        for (int r = 0; r < c->P; r++) {
            uint64_t ms, bs, mr, br;
            lc_sim_world_rank_stats(h.world, r, &ms, &bs, &mr, &br);
            res->msgs += ms, res->bytes += bs;
            res->max_ms = ms > res->max_ms ? ms : res->max_ms;
            res->max_bs = bs > res->max_bs ? bs : res->max_bs;
            res->max_mr = mr > res->max_mr ? mr : res->max_mr;
            res->max_br = br > res->max_br ? br : res->max_br;
        }
        lincoll_plan_stats(plans[0], &res->st0);
        assert_int_equal(lincoll_encode_chunks(plans[0], &res->nchunks, &res->chunk), LINCOLL_OK);
    }
    for (int r = 0; r < c->P; r++)
        lincoll_plan_free(plans[r]);
    free(plans);
    lc_simh_destroy(&h);
}

/* the codeword of random data: rows 0..k-1 data, k..n-1 parity */
static uint8_t **codeword(const lincoll_field_t *f, int n, int k, const uint64_t *G, size_t B,
                          uint64_t *seed)
{
    uint8_t **cw = enc_bufs(f, n, B, seed, 1);
    assert_int_equal(lincoll_gf_encode(f, k, n - k, G + (size_t)k * (size_t)k, B,
                                       (const void *const *)cw, (void *const *)(cw + k)),
                     LINCOLL_OK);
    /* spot check the one-shot encode element by element */
    size_t es = lincoll_gf_field_elem_size(f), ne = B / es;
    for (int i = k; i < n; i++) {
        for (size_t e = 0; e < ne; e += 1 + ne / 7) {
            uint64_t acc = 0;
            for (int j = 0; j < k; j++)
                acc = lincoll_gf_add(
                    f, acc,
                    lincoll_gf_mul(f, G[(size_t)i * (size_t)k + (size_t)j], enc_get(cw[j], es, e)));
            assert_int_equal(acc, enc_get(cw[i], es, e));
        }
    }
    return cw;
}

static void shuffle(int *v, int n, uint64_t *seed)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(enc_rand(seed) % (uint64_t)(i + 1)), t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* Roles: r rebuilt rows and k held rows of [0, n) at random, dealt to the
 * ranks of a communicator in random order; with both, one rebuilding rank
 * also holds one of the k rows.  Fills c->P, holds, needs. */
static void deal(rcase_t *c, int r, int both, uint64_t *seed)
{
    int rows[MAXP], ranks[MAXP];
    for (int i = 0; i < c->n; i++)
        rows[i] = i;
    shuffle(rows, c->n, seed);
    c->P = c->k + r - both;
    assert_true(c->P <= MAXP);
    for (int i = 0; i < c->P; i++) {
        ranks[i] = i;
        c->holds[i] = c->needs[i] = -1;
    }
    shuffle(ranks, c->P, seed);
    /* ranks[0 .. r): rebuild rows[0 .. r); ranks[r - both ..): hold rows[r ..] */
    for (int t = 0; t < r; t++)
        c->needs[ranks[t]] = rows[t];
    for (int s = 0; s < c->k; s++)
        c->holds[ranks[r - both + s]] = rows[r + s];
}

static int algo_is(const char *plan, lincoll_repair_algo_t a)
{
    char want[40];
    snprintf(want, sizeof(want), "repair_%s", lincoll_repair_algo_name(a));
    return strcmp(plan, want) == 0;
}

/* Run one case and check it against the codeword and the closed forms. */
static void check_case(rcase_t *c, uint8_t **cw, const char *what)
{
    const int P = c->P;
    uint8_t **in = calloc((size_t)P, sizeof(*in)),
            **out = enc_bufs(c->f, P, c->B, &(uint64_t){7}, 0);
    uint8_t **keep = calloc((size_t)P, sizeof(*keep));
    int r = 0, both = 0;
    for (int i = 0; i < P; i++) {
        r += c->needs[i] >= 0;
        both += c->needs[i] >= 0 && c->holds[i] >= 0;
        in[i] = aligned_alloc(64, (c->B + 63) & ~(size_t)63);
        memcpy(in[i], c->holds[i] >= 0 ? cw[c->holds[i]] : cw[0], c->B);
        keep[i] = malloc(c->B);
        memcpy(keep[i], in[i], c->B);
    }
    rres_t res;
    run_case(c, in, out, init_k, &res);
    if (res.init_st != LINCOLL_OK || res.run_st != LINCOLL_OK)
        fail_msg("%s: init %s run %s", what, lincoll_strerror(res.init_st),
                 lincoll_strerror(res.run_st));
    for (int i = 0; i < P; i++) {
        if (c->needs[i] >= 0 && memcmp(out[i], cw[c->needs[i]], c->B) != 0)
            fail_msg("%s: rank %d did not rebuild row %d", what, i, c->needs[i]);
        if (memcmp(in[i], keep[i], c->B) != 0) fail_msg("%s: rank %d's chunk changed", what, i);
    }
    /* the closed forms of the schedule that ran */
    lincoll_repair_cost_t cost;
    lincoll_repair_algo_t a;
    assert_int_equal(
        lincoll_encode_repair_cost(NULL, c->k, r, both, c->p, c->B, c->algo, c->slice, &a, &cost),
        LINCOLL_OK);
    if (!algo_is(res.st0.algorithm, a))
        fail_msg("%s: the plan is %s, the model's figures are %s's", what, res.st0.algorithm,
                 lincoll_repair_algo_name(a));
    if (res.rounds != cost.rounds || res.msgs != cost.msgs_total || res.bytes != cost.bytes_total ||
        res.max_ms != cost.max_msgs_sent || res.max_bs != cost.max_bytes_sent ||
        res.max_mr != cost.max_msgs_recvd || res.max_br != cost.max_bytes_recvd)
        fail_msg("%s (%s): measured rounds %u msgs %llu bytes %llu max sent %llu/%llu recvd "
                 "%llu/%llu; closed forms %u %llu %llu %llu/%llu %llu/%llu",
                 what, res.st0.algorithm, res.rounds, (unsigned long long)res.msgs,
                 (unsigned long long)res.bytes, (unsigned long long)res.max_ms,
                 (unsigned long long)res.max_bs, (unsigned long long)res.max_mr,
                 (unsigned long long)res.max_br, cost.rounds, (unsigned long long)cost.msgs_total,
                 (unsigned long long)cost.bytes_total, (unsigned long long)cost.max_msgs_sent,
                 (unsigned long long)cost.max_bytes_sent, (unsigned long long)cost.max_msgs_recvd,
                 (unsigned long long)cost.max_bytes_recvd);
    /* the IR says the same: its global rounds (one local round when nothing moves) */
    assert_int_equal(res.st0.global_rounds, cost.rounds > 0 ? cost.rounds : 1);
    if (a == LINCOLL_REPAIR_ALGO_CHAIN) {
        assert_int_equal(res.nchunks, cost.slices);
        assert_int_equal(res.chunk, cost.slice_bytes);
        /* no round carries more than the r partial sums of one slice */
        assert_true(res.max_round_bytes <= (uint64_t)r * cost.slice_bytes);
    }
    enc_free_bufs(in, P);
    enc_free_bufs(out, P);
    enc_free_bufs(keep, P);
}

static const lincoll_repair_algo_t algos[] = {LINCOLL_REPAIR_ALGO_STAR, LINCOLL_REPAIR_ALGO_TREE,
                                              LINCOLL_REPAIR_ALGO_CHAIN, LINCOLL_REPAIR_ALGO_AUTO};

static void test_schedules(void **state)
{
    (void)state;
    static const uint64_t qs[] = {256, 65536};
    uint64_t seed = 12345;
    unsigned cases = 0;
    for (int qi = 0; qi < 2; qi++) {
        lincoll_field_t *f;
        assert_int_equal(lincoll_gf_field_create(qs[qi], &f), LINCOLL_OK);
        const size_t es = lincoll_gf_field_elem_size(f);
        const size_t sizes[] = {es, 333 * es, 4099 * es};
        for (int k = 2; k <= 10; k++) {
            const int n = k + 4;
            uint64_t *G = malloc(sizeof(uint64_t) * (size_t)n * (size_t)k);
            assert_int_equal(lincoll_gf_matrix_systematic(f, n, k, LINCOLL_GF_RS_CAUCHY, G),
                             LINCOLL_OK);
            for (int si = 0; si < 3; si++) {
                const size_t B = sizes[si];
                uint8_t **cw = codeword(f, n, k, G, B, &seed);
                for (int r = 1; r <= 4; r++) {
                    for (int both = 0; both <= 1; both++) {
                        for (int ai = 0; ai < 4; ai++) {
                            rcase_t c = {.f = f, .n = n, .k = k, .B = B, .gen = G};
                            c.p = (k + r + ai) % 3 == 0 ? 2 : 1;
                            c.algo = algos[ai];
                            /* slices: the model's, or 1000 bytes (rounded to 1024) */
                            c.slice = si == 2 && (r + ai) % 2 ? 1000 : 0;
                            deal(&c, r, both, &seed);
                            char what[160];
                            snprintf(what, sizeof(what),
                                     "GF(%llu) k=%d r=%d%s p=%d B=%zu slice=%zu %s",
                                     (unsigned long long)qs[qi], k, r, both ? " both" : "", c.p, B,
                                     c.slice, lincoll_repair_algo_name(c.algo));
                            check_case(&c, cw, what);
                            cases++;
                        }
                    }
                }
                enc_free_bufs(cw, n);
            }
            free(G);
        }
        lincoll_gf_field_destroy(f);
    }
    printf("%u repairs on the survivors: rebuilt rows and measured counts as the closed forms\n",
           cases);
}

static void test_large_k(void **state)
{
    (void)state;
    static const struct {
        uint64_t q;
        int k, r;
    } cs[] = {{256, 32, 1}, {256, 64, 3}, {256, 100, 2}, {65536, 200, 1}};
    uint64_t seed = 77;
    for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
        lincoll_field_t *f;
        assert_int_equal(lincoll_gf_field_create(cs[i].q, &f), LINCOLL_OK);
        const int k = cs[i].k, n = k + 4;
        const size_t B = 2048 * lincoll_gf_field_elem_size(f);
        uint64_t *G = malloc(sizeof(uint64_t) * (size_t)n * (size_t)k);
        assert_int_equal(lincoll_gf_matrix_systematic(f, n, k, LINCOLL_GF_RS_CAUCHY, G),
                         LINCOLL_OK);
        uint8_t **cw = codeword(f, n, k, G, B, &seed);
        for (int ai = 0; ai < 3; ai++) {
            rcase_t c = {.f = f, .n = n, .k = k, .B = B, .gen = G, .p = 1, .algo = algos[ai]};
            c.slice = 256;
            deal(&c, cs[i].r, 0, &seed);
            char what[96];
            snprintf(what, sizeof(what), "large GF(%llu) k=%d r=%d %s", (unsigned long long)cs[i].q,
                     k, cs[i].r, lincoll_repair_algo_name(c.algo));
            check_case(&c, cw, what);
            printf("%s: ok\n", what);
        }
        enc_free_bufs(cw, n);
        free(G);
        lincoll_gf_field_destroy(f);
    }
}

/* the chain's pipeline against star and tree on one call: rounds T + S - 1
 * of slices, the busiest link carries one chunk (r = 1), star's k */
static void test_chain_pipeline(void **state)
{
    (void)state;
    lincoll_field_t *f;
    assert_int_equal(lincoll_gf_field_create(256, &f), LINCOLL_OK);
    const int k = 6, n = 9;
    const size_t B = 64 * 1024, S = 4096;
    uint64_t *G = malloc(sizeof(uint64_t) * n * k), seed = 4;
    assert_int_equal(lincoll_gf_matrix_systematic(f, n, k, LINCOLL_GF_RS_CAUCHY, G), LINCOLL_OK);
    uint8_t **cw = codeword(f, n, k, G, B, &seed);
    rres_t rs[3];
    for (int ai = 0; ai < 3; ai++) {
        rcase_t c = {.f = f, .n = n, .k = k, .B = B, .gen = G, .p = 1, .algo = algos[ai]};
        c.slice = ai == 2 ? S : LINCOLL_ENCODE_CHUNK_NONE;
        deal(&c, 1, 0, &seed);
        uint8_t **in = enc_bufs(f, c.P, B, &seed, 0), **out = enc_bufs(f, c.P, B, &seed, 0);
        for (int i = 0; i < c.P; i++)
            if (c.holds[i] >= 0) memcpy(in[i], cw[c.holds[i]], B);
        run_case(&c, in, out, init_k, &rs[ai]);
        assert_int_equal(rs[ai].run_st, LINCOLL_OK);
        for (int i = 0; i < c.P; i++)
            if (c.needs[i] >= 0) assert_memory_equal(out[i], cw[c.needs[i]], B);
        enc_free_bufs(in, c.P);
        enc_free_bufs(out, c.P);
    }
    /* star: k rounds, the replacement receives k chunks; tree: 3 rounds; chain:
     * k + 16 - 1 rounds of 4 KiB, every link one chunk */
    assert_int_equal(rs[0].rounds, k);
    assert_int_equal(rs[0].max_br, (uint64_t)k * B);
    assert_int_equal(rs[1].rounds, 3);
    assert_int_equal(rs[2].rounds, k + B / S - 1);
    assert_int_equal(rs[2].max_br, B);
    assert_int_equal(rs[2].max_bs, B);
    assert_int_equal(rs[2].max_round_bytes, S);
    assert_int_equal(rs[2].nchunks, B / S);
    printf("k=6, 64 KiB: star %u rounds (%llu bytes into the replacement), tree %u, chain %u of "
           "4 KiB (%llu bytes on the busiest link)\n",
           rs[0].rounds, (unsigned long long)rs[0].max_br, rs[1].rounds, rs[2].rounds,
           (unsigned long long)rs[2].max_br);
    enc_free_bufs(cw, n);
    free(G);
    lincoll_gf_field_destroy(f);
}

/* degraded read: data row 2 is gone; a reader (not in the code) decodes it
 * from 6 holders; then a member holding parity row 7 reads it with 5 others */
static void test_degraded_read(void **state)
{
    (void)state;
    lincoll_field_t *f;
    assert_int_equal(lincoll_gf_field_create(256, &f), LINCOLL_OK);
    const int n = 10, k = 6;
    const size_t B = 3000;
    uint64_t *G = malloc(sizeof(uint64_t) * n * k), seed = 99;
    assert_int_equal(lincoll_gf_matrix_systematic(f, n, k, LINCOLL_GF_RS_CAUCHY, G), LINCOLL_OK);
    uint8_t **cw = codeword(f, n, k, G, B, &seed);
    for (int member = 0; member <= 1; member++) {
        for (int ai = 0; ai < 4; ai++) {
            rcase_t c = {.f = f, .n = n, .k = k, .B = B, .gen = G, .p = 1, .algo = algos[ai]};
            static const int rows[] = {0, 1, 3, 7, 8, 9};
            c.P = member ? k : k + 1;
            for (int i = 0; i < c.P; i++)
                c.holds[i] = c.needs[i] = -1;
            /* the reader is rank 0 (outside the code) or rank 2 (holds row 7) */
            int reader = member ? 2 : 0, s = 0;
            c.needs[reader] = 2;
            if (member) c.holds[reader] = 7;
            for (int i = 0; i < c.P; i++) {
                if (c.holds[i] >= 0 || i == reader) continue;
                while (rows[s] == 7 && member)
                    s++;
                c.holds[i] = rows[s++];
            }
            char what[80];
            snprintf(what, sizeof(what), "degraded read by a %s, %s",
                     member ? "member" : "reader outside the code",
                     lincoll_repair_algo_name(c.algo));
            check_case(&c, cw, what);
        }
    }
    enc_free_bufs(cw, n);
    free(G);
    lincoll_gf_field_destroy(f);
}

/* the plan's name on rank 0 for a k = 6, r = 1 repair of B bytes */
static void plan_name(size_t B, lincoll_repair_algo_t algo, char *name, size_t len)
{
    lincoll_field_t *f;
    assert_int_equal(lincoll_gf_field_create(256, &f), LINCOLL_OK);
    rcase_t c = {.f = f, .n = 9, .k = 6, .B = B, .p = 1, .algo = algo, .P = 7};
    for (int i = 0; i < 7; i++) {
        c.holds[i] = i < 6 ? i : -1;
        c.needs[i] = i < 6 ? -1 : 8;
    }
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, 7, 1), 0);
    void *in = calloc(1, B), *out = calloc(1, B);
    lincoll_plan_t *p;
    assert_int_equal(init_k(h.comm[0], 0, in, out, &c, &p), LINCOLL_OK);
    lincoll_plan_stats_t st;
    lincoll_plan_stats(p, &st);
    snprintf(name, len, "%s", st.algorithm);
    lincoll_plan_free(p);
    free(in);
    free(out);
    lc_simh_destroy(&h);
    lincoll_gf_field_destroy(f);
}

static void test_selection(void **state)
{
    (void)state;
    char name[40];
    const size_t sizes[] = {64, 4096, 65536, (size_t)4 << 20};
    for (int i = 0; i < 4; i++) {
        lincoll_repair_cost_t cost;
        lincoll_repair_algo_t a;
        assert_int_equal(lincoll_encode_repair_cost(NULL, 6, 1, 0, 1, sizes[i],
                                                    LINCOLL_REPAIR_ALGO_AUTO, 0, &a, &cost),
                         LINCOLL_OK);
        plan_name(sizes[i], LINCOLL_REPAIR_ALGO_AUTO, name, sizeof(name));
        assert_true(algo_is(name, a));
        /* the pick is the cheapest of the three */
        for (int j = 0; j < 3; j++) {
            lincoll_repair_cost_t cj;
            assert_int_equal(
                lincoll_encode_repair_cost(NULL, 6, 1, 0, 1, sizes[i], algos[j], 0, NULL, &cj),
                LINCOLL_OK);
            assert_true(cost.seconds <= cj.seconds);
        }
        printf("k=6 r=1 %8zu bytes: auto picks %s (%.1f us predicted)\n", sizes[i], name,
               cost.seconds * 1e6);
    }
    plan_name(4096, LINCOLL_REPAIR_ALGO_AUTO, name, sizeof(name));
    assert_string_equal(name, "repair_tree");
    plan_name((size_t)4 << 20, LINCOLL_REPAIR_ALGO_AUTO, name, sizeof(name));
    assert_string_equal(name, "repair_chain");
    /* the environment forces, the options override it */
    setenv("LINCOLL_REPAIR_ALGO", "star", 1);
    plan_name((size_t)4 << 20, LINCOLL_REPAIR_ALGO_AUTO, name, sizeof(name));
    assert_string_equal(name, "repair_star");
    plan_name((size_t)4 << 20, LINCOLL_REPAIR_ALGO_TREE, name, sizeof(name));
    assert_string_equal(name, "repair_tree");
    setenv("LINCOLL_REPAIR_ALGO", "chain", 1);
    plan_name(64, LINCOLL_REPAIR_ALGO_AUTO, name, sizeof(name));
    assert_string_equal(name, "repair_chain");
    unsetenv("LINCOLL_REPAIR_ALGO");
    /* closed forms of the brief's shapes: star k rounds, tree ceil(log2(k+1)), chain k+S-1 */
    for (int k = 2; k <= 10; k++) {
        lincoll_repair_cost_t s, t, ch;
        size_t B = 1 << 20;
        lincoll_encode_repair_cost(NULL, k, 1, 0, 1, B, LINCOLL_REPAIR_ALGO_STAR, 0, NULL, &s);
        lincoll_encode_repair_cost(NULL, k, 1, 0, 1, B, LINCOLL_REPAIR_ALGO_TREE, 0, NULL, &t);
        lincoll_encode_repair_cost(NULL, k, 1, 0, 1, B, LINCOLL_REPAIR_ALGO_CHAIN, 65536, NULL,
                                   &ch);
        int L = 0;
        while ((1 << L) < k + 1)
            L++;
        assert_int_equal(s.rounds, k);
        assert_int_equal(s.max_bytes_recvd, (uint64_t)k * B);
        assert_int_equal(t.rounds, L);
        assert_int_equal(ch.slices, 16);
        assert_int_equal(ch.rounds, k + 16 - 1);
        assert_int_equal(ch.max_bytes_recvd, B);
    }
}

/* lincoll_encode_repair_init on the survivors and the lost ranks only */
typedef struct largs {
    const lincoll_field_t *f;
    int k, nl;
    int surv[16], lost[4];
    size_t B;
    lincoll_encode_algo_t algo;
} largs_t;

static lincoll_status_t init_legacy(lincoll_comm_t *comm, int r, const void *in, void *out,
                                    void *arg, lincoll_plan_t **plan)
{
    largs_t *a = arg;
    (void)r;
    lincoll_encode_opts_t o = {.ports = 1, .algo = a->algo};
    return lincoll_encode_repair_init(comm, a->f, a->k, LINCOLL_GF_RS_CAUCHY, NULL, a->surv, a->nl,
                                      a->lost, a->B, in, out, &o, plan);
}

static void test_legacy_route(void **state)
{
    (void)state;
    lincoll_field_t *f;
    assert_int_equal(lincoll_gf_field_create(256, &f), LINCOLL_OK);
    const int N = 7, k = 5;
    const size_t B = (size_t)1 << 20;
    uint64_t *G = malloc(sizeof(uint64_t) * N * k), seed = 5;
    assert_int_equal(lincoll_gf_matrix_systematic(f, N, k, LINCOLL_GF_RS_CAUCHY, G), LINCOLL_OK);
    uint8_t **cw = codeword(f, N, k, G, B, &seed);
    for (int forced = 0; forced <= 1; forced++) {
        largs_t a = {.f = f, .k = k, .nl = 2, .surv = {0, 2, 3, 4, 6}, .lost = {1, 5}, .B = B};
        a.algo = forced ? LINCOLL_ENCODE_ALGO_DIRECT : LINCOLL_ENCODE_ALGO_AUTO;
        uint8_t **out = enc_bufs(f, N, B, &seed, 0);
        enc_run_t res;
        assert_int_equal(enc_run(N, 1, cw, out, init_legacy, &a, 2, &res), 0);
        assert_int_equal(res.init_st, LINCOLL_OK);
        assert_int_equal(res.run_st, LINCOLL_OK);
        assert_memory_equal(out[1], cw[1], B);
        assert_memory_equal(out[5], cw[5], B);
        if (forced)
            assert_string_equal(res.algo, "direct");
        else
            assert_true(strncmp(res.algo, "repair_", 7) == 0);
        printf("lincoll_encode_repair_init on survivors + lost, %s: %s\n",
               forced ? "direct forced" : "auto", res.algo);
        enc_free_bufs(out, N);
    }
    enc_free_bufs(cw, N);
    free(G);
    lincoll_gf_field_destroy(f);
}

/* LINCOLL_ENCODE_CHECKSUM=crc32c: every schedule's rounds doubled (a crc32c
 * round after each), the result right; one corrupted message ends the plan
 * with LINCOLL_ERR_CORRUPT on the rank that received it, never a wrong row */
typedef struct cfault {
    int seen, hit;
} cfault_t;

static lc_sim_fault_t corrupt_one(void *arg, int src, int dst, unsigned round, size_t len)
{
    cfault_t *f = arg;
    (void)src, (void)dst, (void)round;
    if (len > 4 && f->seen++ == 3) { /* the fourth data message */
        f->hit = 1;
        return LC_SIM_FAULT_CORRUPT;
    }
    return LC_SIM_FAULT_NONE;
}

static void test_checksum(void **state)
{
    (void)state;
    lincoll_field_t *f;
    assert_int_equal(lincoll_gf_field_create(256, &f), LINCOLL_OK);
    const int n = 9, k = 6;
    const size_t B = 8192;
    uint64_t *G = malloc(sizeof(uint64_t) * n * k), seed = 8;
    assert_int_equal(lincoll_gf_matrix_systematic(f, n, k, LINCOLL_GF_RS_CAUCHY, G), LINCOLL_OK);
    uint8_t **cw = codeword(f, n, k, G, B, &seed);
    setenv("LINCOLL_ENCODE_CHECKSUM", "crc32c", 1);
    for (int ai = 0; ai < 3; ai++) {
        for (int faulty = 0; faulty <= 1; faulty++) {
            rcase_t c = {.f = f, .n = n, .k = k, .B = B, .gen = G, .p = 1, .algo = algos[ai]};
            c.slice = ai == 2 ? 2048 : LINCOLL_ENCODE_CHUNK_NONE;
            deal(&c, 2, 0, &seed);
            lc_simh_t h;
            assert_int_equal(lc_simh_create(&h, c.P, 1), 0);
            uint8_t **in = enc_bufs(f, c.P, B, &seed, 0), **out = enc_bufs(f, c.P, B, &seed, 0);
            lincoll_plan_t *plans[MAXP];
            for (int i = 0; i < c.P; i++) {
                if (c.holds[i] >= 0) memcpy(in[i], cw[c.holds[i]], B);
                assert_int_equal(init_k(h.comm[i], i, in[i], out[i], &c, &plans[i]), LINCOLL_OK);
            }
            cfault_t cf = {0, 0};
            if (faulty) lc_sim_world_set_fault(h.world, corrupt_one, &cf, 0);
            lincoll_status_t st = lc_simh_run(&h, plans);
            lincoll_repair_cost_t cost;
            lincoll_encode_repair_cost(NULL, k, 2, 0, 1, B, algos[ai], c.slice, NULL, &cost);
            if (!faulty) {
                assert_int_equal(st, LINCOLL_OK);
                assert_int_equal(lc_sim_world_rounds(h.world), 2 * cost.rounds);
                for (int i = 0; i < c.P; i++)
                    if (c.needs[i] >= 0) assert_memory_equal(out[i], cw[c.needs[i]], B);
            } else {
                assert_true(cf.hit);
                assert_int_equal(st, LINCOLL_ERR_CORRUPT);
            }
            for (int i = 0; i < c.P; i++)
                lincoll_plan_free(plans[i]);
            lc_simh_destroy(&h);
            enc_free_bufs(in, c.P);
            enc_free_bufs(out, c.P);
        }
    }
    unsetenv("LINCOLL_ENCODE_CHECKSUM");
    enc_free_bufs(cw, n);
    free(G);
    lincoll_gf_field_destroy(f);
}

/* ---- bad input: every rank the same status, one log line naming the argument ---- */

typedef struct logcap {
    int lines;
    int match; /* lines that contain want */
    const char *want;
} logcap_t;

static void capture(lincoll_log_level_t level, int rank, const char *file, int line,
                    const char *msg, void *arg)
{
    logcap_t *c = arg;
    (void)rank, (void)file, (void)line;
    if (level != LINCOLL_LOG_ERROR) return;
    c->lines++;
    c->match += strstr(msg, c->want) != NULL;
}

static const char *bad_env, *bad_val; /* a variable set for the inits only */

/* every rank's init status is want, and (text not NULL) every rank logs
 * exactly one error line, which contains text */
static void expect_bad(rcase_t *c, lincoll_status_t want, const char *text)
{
    lc_simh_t h;
    assert_int_equal(lc_simh_create(&h, c->P, 1), 0);
    uint64_t seed = 3;
    uint8_t **x = enc_bufs(c->f, c->P, c->B, &seed, 1), **y = enc_bufs(c->f, c->P, c->B, &seed, 0);
    logcap_t cap = {0, 0, text != NULL ? text : ""};
    if (bad_env != NULL) setenv(bad_env, bad_val, 1); /* after the contexts read the table */
    lincoll_log_set_handler(capture, &cap);
    int same = 0;
    for (int r = 0; r < c->P; r++) {
        lincoll_plan_t *p = (lincoll_plan_t *)1;
        lincoll_status_t st = init_k(h.comm[r], r, x[r], y[r], c, &p);
        same += st == want;
        if (st == LINCOLL_OK) lincoll_plan_free(p);
        if (st != LINCOLL_OK) assert_null(p); /* no plan on failure */
    }
    lincoll_log_set_handler(NULL, NULL);
    if (bad_env != NULL) unsetenv(bad_env);
    const int lines = text != NULL ? c->P : 0;
    if (same != c->P || cap.lines != lines || cap.match != lines)
        fail_msg("input \"%s\": %d of %d ranks got %s, %d error lines, %d naming it",
                 text ? text : "(good)", same, c->P, lincoll_strerror(want), cap.lines, cap.match);
    enc_free_bufs(x, c->P);
    enc_free_bufs(y, c->P);
    lc_simh_destroy(&h);
}

static void test_bad_input(void **state)
{
    (void)state;
    lincoll_field_t *f, *f16;
    assert_int_equal(lincoll_gf_field_create(256, &f), LINCOLL_OK);
    assert_int_equal(lincoll_gf_field_create(65536, &f16), LINCOLL_OK);
    /* [7, 4]: ranks 0..3 hold rows 0, 1, 2, 4; rank 4 rebuilds row 3 */
    rcase_t g = {.f = f, .n = 7, .k = 4, .P = 5, .B = 64, .p = 1};
    const int h0[6] = {0, 1, 2, 4, -1, -1}, n0[6] = {-1, -1, -1, -1, 3, -1};
    memcpy(g.holds, h0, sizeof(h0));
    memcpy(g.needs, n0, sizeof(n0));
    rcase_t c = g;
    expect_bad(&c, LINCOLL_OK, NULL);
    for (int ai = 0; ai < 4; ai++) { /* every schedule compiles the good call */
        c = g, c.algo = algos[ai];
        expect_bad(&c, LINCOLL_OK, NULL);
    }
    c = g, c.holds[1] = 0; /* a repeated held row */
    expect_bad(&c, LINCOLL_ERR_INVALID, "holds[1]=0 repeats holds[0]");
    c = g, c.holds[3] = -1, c.needs[3] = 3; /* two ranks rebuild row 3 */
    expect_bad(&c, LINCOLL_ERR_INVALID, "needs[4]=3 repeats needs[3]");
    c = g, c.needs[4] = 2; /* rebuild a row someone holds */
    expect_bad(&c, LINCOLL_ERR_INVALID, "needs[4]=2 is held by rank 2");
    c = g, c.P = 6; /* a sixth rank with no role: the communicator is not k + r ranks */
    expect_bad(&c, LINCOLL_ERR_INVALID, "rank 5 neither holds nor needs a row");
    c = g, c.k = 5; /* k = 5 but 4 holders: k + r = 6 is not the 5 ranks */
    expect_bad(&c, LINCOLL_ERR_INVALID, "holds names 4 rows, k=5");
    c = g, c.k = 3; /* more holders than k */
    expect_bad(&c, LINCOLL_ERR_INVALID, "holds names more than k=3 rows");
    c = g, c.needs[0] = 5, c.needs[1] = 6; /* two ranks hold and need */
    expect_bad(&c, LINCOLL_ERR_INVALID, "ranks 0 and 1 both hold and need a row");
    c = g, c.holds[2] = 7;
    expect_bad(&c, LINCOLL_ERR_INVALID, "holds[2]=7 is not a row of the code");
    c = g, c.needs[4] = -2;
    expect_bad(&c, LINCOLL_ERR_INVALID, "needs[4]=-2 is not a row of the code");
    c = g, c.needs[4] = -1, c.holds[4] = 5, c.k = 5; /* nobody rebuilds */
    expect_bad(&c, LINCOLL_ERR_INVALID, "needs names no row");
    c = g, c.k = 7;
    expect_bad(&c, LINCOLL_ERR_INVALID, "k=7 must be in [1, n-1]");
    c = g, c.algo = (lincoll_repair_algo_t)9;
    expect_bad(&c, LINCOLL_ERR_INVALID, "opts->algo=9");
    c = g, c.f = f16, c.B = 63;
    expect_bad(&c, LINCOLL_ERR_INVALID, "packet_bytes=63");
    bad_env = "LINCOLL_REPAIR_ALGO", bad_val = "fast";
    c = g;
    expect_bad(&c, LINCOLL_ERR_INVALID, "LINCOLL_REPAIR_ALGO=fast");
    bad_env = NULL;
    /* a singular set: generator rows 4 and 0 equal */
    uint64_t G[7 * 4];
    assert_int_equal(lincoll_gf_matrix_systematic(f, 7, 4, LINCOLL_GF_RS_VANDERMONDE, G),
                     LINCOLL_OK);
    memcpy(G + 16, G, 4 * sizeof(uint64_t));
    c = g, c.gen = G;
    expect_bad(&c, LINCOLL_ERR_SINGULAR, "singular");
    c.holds[3] = 5; /* rows 0, 1, 2, 5 are fine */
    expect_bad(&c, LINCOLL_OK, NULL);
    /* a rank-local argument: the rebuilding rank without an output buffer */
    {
        lc_simh_t h;
        assert_int_equal(lc_simh_create(&h, 5, 1), 0);
        uint8_t in[64] = {0}, out[64];
        logcap_t cap = {0, 0, "out must not be NULL"};
        lincoll_log_set_handler(capture, &cap);
        c = g;
        lincoll_plan_t *p = NULL;
        assert_int_equal(init_k(h.comm[4], 4, in, NULL, &c, &p), LINCOLL_ERR_INVALID);
        assert_null(p);
        assert_int_equal(init_k(h.comm[0], 0, in, out, &c, &p), LINCOLL_OK);
        lincoll_plan_free(p);
        lincoll_log_set_handler(NULL, NULL);
        assert_int_equal(cap.match, 1);
        lc_simh_destroy(&h);
    }
    /* the cost query */
    lincoll_repair_cost_t cost;
    assert_int_equal(
        lincoll_encode_repair_cost(NULL, 0, 1, 0, 1, 64, LINCOLL_REPAIR_ALGO_STAR, 0, NULL, &cost),
        LINCOLL_ERR_INVALID);
    assert_int_equal(
        lincoll_encode_repair_cost(NULL, 3, 1, 2, 1, 64, LINCOLL_REPAIR_ALGO_STAR, 0, NULL, &cost),
        LINCOLL_ERR_INVALID);
    assert_int_equal(
        lincoll_encode_repair_cost(NULL, 3, 1, 0, 1, 64, LINCOLL_REPAIR_ALGO_LAST, 0, NULL, &cost),
        LINCOLL_ERR_INVALID);
    assert_string_equal(lincoll_repair_algo_name(LINCOLL_REPAIR_ALGO_LAST), "unknown");
    lincoll_gf_field_destroy(f);
    lincoll_gf_field_destroy(f16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schedules),      cmocka_unit_test(test_large_k),
        cmocka_unit_test(test_chain_pipeline), cmocka_unit_test(test_degraded_read),
        cmocka_unit_test(test_selection),      cmocka_unit_test(test_legacy_route),
        cmocka_unit_test(test_checksum),       cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
