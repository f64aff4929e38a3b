/*
 * test/integration/groups_ucx.c: groups and operation tags over real UCX
 * (one process per rank, run under lincoll-run, P >= 3; docs/collectives.md,
 * "Groups and tags").
 *
 * Checks, on every rank:
 *  1. bad arguments of lincoll_comm_create_group and bad tags are
 *     LINCOLL_ERR_INVALID; a second live plan with a tag that a live plan
 *     holds on the same communicator is LINCOLL_ERR_BUSY, and the tag is
 *     free again once that plan is freed;
 *  2. overlapping groups of 3 or 4 ranks (lists drawn by a seeded RNG, the
 *     same on every rank), half made with LINCOLL_GROUP_LOCAL in a random
 *     order per rank, half agreed (flags 0) in one order;
 *  3. on every group a tagged allreduce, bcast and Reed-Solomon encode, the
 *     same three tags on every group, inited and started in a random order
 *     per rank (so ranks start the operations of overlapping groups in
 *     different orders), waited for with lincoll_test over all of them; every
 *     result against its closed form; then all freed and the same tags
 *     reused (new plans, another order), twice;
 *  4. an agreed group whose list rank 0 passes in another order:
 *     LINCOLL_ERR_MISMATCH on every rank.
 * GROUPS_SEED picks the lists and orders (default 28).  Exits 0 only if every
 * check passed; prints "groups_ucx: rank R: N checks passed".
 */
#include <lincoll/lincoll.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NG     8    /* groups */
#define NOPS   3    /* operations per group: allreduce, bcast, RS encode */
#define NELEM  1000 /* allreduce and bcast elements */
#define RS_B   1024 /* RS packet bytes */
#define ROUNDS 3    /* the tags are reused ROUNDS - 1 times */

static int checks, failures, me = -1;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "groups_ucx: rank %d: FAILED %s:%d: ", me, __FILE__, __LINE__);        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void shuffle(int *a, int n, uint64_t *s)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rng_next(s) % (uint64_t)(i + 1)), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* Agreed groups have ids of their own: the same three tags on every one (1,
 * one that differs from it only above bit 11, the largest).  Local groups'
 * tagged plans travel as the parent's: tags differ across them. */
static const uint64_t op_tags[NOPS] = {1, 1 + (UINT64_C(5) << 12), LINCOLL_TAG_MAX};

static uint64_t tag_of(int g, int local, int kind)
{
    const uint64_t i = (uint64_t)(g * NOPS + kind);
    return local ? 2 + i + (i << 12) : op_tags[kind];
}

typedef struct {
    int n, list[4], local;
    lincoll_comm_t *comm; /* NULL where this rank is not a member */
} group_t;

typedef struct {
    int g, kind;
    lincoll_plan_t *plan;
    lincoll_status_t st;
    int64_t *in, *out;
    unsigned char *x, *y;
} op_t;

static void check_bad_args(lincoll_comm_t *w, int P)
{
    lincoll_comm_t *c = NULL;
    int all[64], dup[2] = {me, me}, out_of_range[2] = {me, P}, neg[1] = {-1};
    for (int i = 0; i < P; i++)
        all[i] = i;
    int other[1] = {(me + 1) % P};
    struct {
        lincoll_comm_t *parent;
        const int *ranks;
        int n;
        unsigned flags;
        lincoll_comm_t **newp;
        const char *what;
    } bad[] = {
        {NULL, all, P, 0, &c, "parent NULL"},
        {w, NULL, P, 0, &c, "ranks NULL"},
        {w, all, P, 0, NULL, "new_p NULL"},
        {w, all, 0, 0, &c, "n = 0"},
        {w, all, -2, LINCOLL_GROUP_LOCAL, &c, "n < 0"},
        {w, dup, 2, 0, &c, "a duplicate"},
        {w, out_of_range, 2, LINCOLL_GROUP_LOCAL, &c, "rank = size"},
        {w, neg, 1, 0, &c, "rank -1"},
        {w, other, 1, 0, &c, "caller not listed"},
        {w, all, P, 0x80u, &c, "unknown flags"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        lincoll_status_t st = lincoll_comm_create_group(bad[i].parent, bad[i].ranks, bad[i].n,
                                                        bad[i].flags, bad[i].newp);
        CHECK(st == LINCOLL_ERR_INVALID && c == NULL, "create_group with %s: %s", bad[i].what,
              lincoll_strerror(st));
    }
    /* tags: out of range; one live plan per tag and communicator */
    int64_t a = me, b = 0;
    lincoll_coll_opts_t o = {.tag = LINCOLL_TAG_MAX + 1};
    lincoll_plan_t *p1 = NULL, *p2 = NULL;
    lincoll_status_t st =
        lincoll_allreduce_init_opts(w, &a, &b, 1, LINCOLL_INT64, LINCOLL_SUM, &o, &p1);
    CHECK(st == LINCOLL_ERR_INVALID && p1 == NULL, "tag above LINCOLL_TAG_MAX: %s",
          lincoll_strerror(st));
    o.tag = 77;
    st = lincoll_allreduce_init_opts(w, &a, &b, 1, LINCOLL_INT64, LINCOLL_SUM, &o, &p1);
    CHECK(st == LINCOLL_OK, "tag 77: %s", lincoll_strerror(st));
    st = lincoll_bcast_init_opts(w, &b, 1, LINCOLL_INT64, 0, &o, &p2);
    CHECK(st == LINCOLL_ERR_BUSY && p2 == NULL, "tag 77 held by a live plan: %s",
          lincoll_strerror(st));
    if (st == LINCOLL_OK) lincoll_plan_free(p2);
    p2 = NULL;
    if (p1 != NULL) {
        st = lincoll_start(p1);
        if (st == LINCOLL_OK) st = lincoll_wait(p1);
        CHECK(st == LINCOLL_OK && b == (int64_t)P * (P - 1) / 2, "tagged allreduce: %s, got %lld",
              lincoll_strerror(st), (long long)b);
        lincoll_plan_free(p1);
    }
    /* local groups share the parent's tags: a tag held on one is held on
     * the parent and on every other local group of it */
    int rev[64];
    for (int i = 0; i < P; i++)
        rev[i] = P - 1 - i;
    lincoll_comm_t *la = NULL, *lb = NULL;
    st = lincoll_comm_create_group(w, all, P, LINCOLL_GROUP_LOCAL, &la);
    CHECK(st == LINCOLL_OK, "local group of all: %s", lincoll_strerror(st));
    st = lincoll_comm_create_group(w, rev, P, LINCOLL_GROUP_LOCAL, &lb);
    CHECK(st == LINCOLL_OK, "local group of all, reversed: %s", lincoll_strerror(st));
    lincoll_plan_t *q = NULL;
    if (la != NULL && lb != NULL) {
        o.tag = 55;
        st = lincoll_bcast_init_opts(lb, &b, 1, LINCOLL_INT64, 0, &o, &q);
        CHECK(st == LINCOLL_OK, "tag 55 on a local group: %s", lincoll_strerror(st));
        st = lincoll_allreduce_init_opts(la, &a, &b, 1, LINCOLL_INT64, LINCOLL_SUM, &o, &p1);
        CHECK(st == LINCOLL_ERR_BUSY, "tag 55 held on a sibling local group: %s",
              lincoll_strerror(st));
        st = lincoll_allreduce_init_opts(w, &a, &b, 1, LINCOLL_INT64, LINCOLL_SUM, &o, &p1);
        CHECK(st == LINCOLL_ERR_BUSY, "tag 55 held on a local group of the parent: %s",
              lincoll_strerror(st));
        lincoll_plan_free(q);
        /* freed: the tag is free on the other group (and reversed ranks) */
        b = me == P - 1 ? 555 : 0;
        st = lincoll_bcast_init_opts(la, &b, 1, LINCOLL_INT64, P - 1, &o, &q);
        if (st == LINCOLL_OK) st = lincoll_start(q);
        if (st == LINCOLL_OK) st = lincoll_wait(q);
        CHECK(st == LINCOLL_OK && b == 555, "tag 55 on the sibling after the free: %s, got %lld",
              lincoll_strerror(st), (long long)b);
        lincoll_plan_free(q);
    }
    lincoll_comm_free(la);
    lincoll_comm_free(lb);
    /* the tag is free again */
    b = 5;
    if (me == 0) b = 123;
    st = lincoll_bcast_init_opts(w, &b, 1, LINCOLL_INT64, 0, &o, &p2);
    if (st == LINCOLL_OK) st = lincoll_start(p2);
    if (st == LINCOLL_OK) st = lincoll_wait(p2);
    CHECK(st == LINCOLL_OK && b == 123, "tag 77 reused by a bcast: %s, got %lld",
          lincoll_strerror(st), (long long)b);
    lincoll_plan_free(p2);
}

/* Groups: distinct lists of 3 or 4 ranks, in a random order of ranks. */
static void make_groups(lincoll_comm_t *w, int P, uint64_t seed, group_t *G)
{
    uint64_t s = seed * 2654435761u + 1;
    for (int g = 0; g < NG; g++) {
        int again;
        do {
            int perm[64];
            for (int i = 0; i < P; i++)
                perm[i] = i;
            shuffle(perm, P, &s);
            G[g].n = P >= 4 ? 3 + (int)(rng_next(&s) % 2) : 3;
            memcpy(G[g].list, perm, sizeof(int) * (size_t)G[g].n);
            again = 0;
            for (int h = 0; h < g; h++)
                again |= G[h].n == G[g].n && memcmp(G[h].list, G[g].list, sizeof(int) * 4) == 0;
        } while (again);
        G[g].local = g % 2 == 0;
        G[g].comm = NULL;
    }
    /* local groups in a random order of this rank, then agreed ones in order */
    uint64_t mine = seed * 1000 + (uint64_t)me + 7;
    int order[NG];
    for (int g = 0; g < NG; g++)
        order[g] = g;
    shuffle(order, NG, &mine);
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < NG; k++) {
            int g = pass == 0 ? order[k] : k;
            if (G[g].local != (pass == 0)) continue;
            int member = 0;
            for (int i = 0; i < G[g].n; i++)
                member |= G[g].list[i] == me;
            if (!member) continue;
            lincoll_status_t st = lincoll_comm_create_group(
                w, G[g].list, G[g].n, G[g].local ? LINCOLL_GROUP_LOCAL : 0, &G[g].comm);
            CHECK(st == LINCOLL_OK && G[g].comm != NULL && lincoll_comm_size(G[g].comm) == G[g].n &&
                      G[g].list[lincoll_comm_rank(G[g].comm)] == me &&
                      lincoll_comm_translate(G[g].comm, lincoll_comm_rank(G[g].comm), w) == me,
                  "create_group %d (%s): %s", g, G[g].local ? "local" : "agreed",
                  lincoll_strerror(st));
        }
    }
}

static unsigned char data_byte(int g, int j, size_t i)
{
    return (unsigned char)(j * 13 + (int)i * 7 + g * 5 + 1);
}

static lincoll_status_t op_init(op_t *o, const group_t *gr, lincoll_field_t *f)
{
    lincoll_comm_t *c = gr->comm;
    const int n = gr->n, r = lincoll_comm_rank(c), g = o->g;
    const uint64_t tag = tag_of(g, gr->local, o->kind);
    switch (o->kind) {
    case 0: {
        lincoll_coll_opts_t opts = {.tag = tag};
        o->in = malloc(sizeof(int64_t) * NELEM);
        o->out = malloc(sizeof(int64_t) * NELEM);
        for (int i = 0; i < NELEM; i++) {
            o->in[i] = (int64_t)(r + 1) * (i + 1) + g;
            o->out[i] = -1;
        }
        (void)n;
        return lincoll_allreduce_init_opts(c, o->in, o->out, NELEM, LINCOLL_INT64, LINCOLL_SUM,
                                           &opts, &o->plan);
    }
    case 1: {
        lincoll_coll_opts_t opts = {.tag = tag};
        o->out = malloc(sizeof(int64_t) * NELEM);
        for (int i = 0; i < NELEM; i++)
            o->out[i] = r == g % n ? (int64_t)g * 100000 + 3 * i + r : -1;
        return lincoll_bcast_init_opts(c, o->out, NELEM, LINCOLL_INT64, g % n, &opts, &o->plan);
    }
    default: {
        lincoll_encode_opts_t opts = {.tag = tag};
        o->x = malloc(RS_B);
        o->y = calloc(1, RS_B);
        for (size_t i = 0; i < RS_B; i++)
            o->x[i] = data_byte(g, r, i);
        return lincoll_encode_rs_init(c, f, n - 1, LINCOLL_GF_RS_CAUCHY, NULL, RS_B, o->x, o->y,
                                      &opts, &o->plan);
    }
    }
}

static void op_check(op_t *o, const group_t *gr, lincoll_field_t *f, int round)
{
    const int n = gr->n, r = lincoll_comm_rank(gr->comm), g = o->g;
    int bad = 0;
    if (o->kind == 0) {
        for (int i = 0; i < NELEM; i++)
            bad += o->out[i] != (int64_t)n * (n + 1) / 2 * (i + 1) + (int64_t)n * g;
    } else if (o->kind == 1) {
        for (int i = 0; i < NELEM; i++)
            bad += o->out[i] != (int64_t)g * 100000 + 3 * i + g % n;
    } else if (r == n - 1) {
        const int k = n - 1;
        uint64_t G[4 * 3];
        lincoll_status_t st = lincoll_gf_matrix_systematic(f, n, k, LINCOLL_GF_RS_CAUCHY, G);
        CHECK(st == LINCOLL_OK, "systematic: %s", lincoll_strerror(st));
        for (size_t i = 0; i < RS_B; i++) {
            unsigned want = 0;
            for (int j = 0; j < k; j++)
                want ^= (unsigned)lincoll_gf_mul(f, G[k * k + j], data_byte(g, j, i));
            bad += o->y[i] != want;
        }
    }
    CHECK(o->st == LINCOLL_OK && bad == 0, "round %d: group %d op %d (tag %llu): %s, %d wrong",
          round, g, o->kind, (unsigned long long)tag_of(g, gr->local, o->kind),
          lincoll_strerror(o->st), bad);
}

static void op_free(op_t *o)
{
    lincoll_plan_free(o->plan);
    free(o->in);
    free(o->out);
    free(o->x);
    free(o->y);
    memset(o, 0, sizeof(*o));
}

static void run_ops(group_t *G, lincoll_field_t *f, uint64_t seed, int round)
{
    op_t ops[NG * NOPS];
    int n = 0;
    memset(ops, 0, sizeof(ops));
    for (int g = 0; g < NG; g++)
        for (int k = 0; G[g].comm != NULL && k < NOPS; k++) {
            ops[n].g = g;
            ops[n].kind = k;
            n++;
        }
    uint64_t s = seed * 7919 + (uint64_t)me * 104729 + (uint64_t)round + 3;
    int order[NG * NOPS];
    for (int i = 0; i < n; i++)
        order[i] = i;
    shuffle(order, n, &s);
    /* init in one random order, start in another */
    for (int i = 0; i < n; i++) {
        op_t *o = &ops[order[i]];
        o->st = op_init(o, &G[o->g], f);
        CHECK(o->st == LINCOLL_OK, "init group %d op %d: %s", o->g, o->kind,
              lincoll_strerror(o->st));
    }
    shuffle(order, n, &s);
    for (int i = 0; i < n; i++) {
        op_t *o = &ops[order[i]];
        if (o->st == LINCOLL_OK) o->st = lincoll_start(o->plan);
        if (o->st == LINCOLL_OK) o->st = LINCOLL_INPROGRESS;
    }
    for (int busy = 1; busy;) {
        busy = 0;
        for (int i = 0; i < n; i++) {
            if (ops[i].st != LINCOLL_INPROGRESS) continue;
            ops[i].st = lincoll_test(ops[i].plan);
            busy |= ops[i].st == LINCOLL_INPROGRESS;
        }
    }
    for (int i = 0; i < n; i++) {
        op_check(&ops[i], &G[ops[i].g], f, round);
        op_free(&ops[i]);
    }
}

static void check_mismatch(lincoll_comm_t *w, int P)
{
    int list[64];
    for (int i = 0; i < P; i++)
        list[i] = me == 0 ? P - 1 - i : i;
    lincoll_comm_t *c = NULL;
    lincoll_status_t st = lincoll_comm_create_group(w, list, P, 0, &c);
    CHECK(st == LINCOLL_ERR_MISMATCH && c == NULL, "rank 0 passed the list reversed: %s",
          lincoll_strerror(st));
    lincoll_comm_free(c);
}

int main(void)
{
    lincoll_context_t *ctx;
    lincoll_status_t st = lincoll_init(NULL, &ctx);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "groups_ucx: lincoll_init: %s\n", lincoll_strerror(st));
        return 1;
    }
    lincoll_comm_t *w;
    lincoll_comm_world(ctx, &w);
    me = lincoll_comm_rank(w);
    const int P = lincoll_comm_size(w);
    if (P < 3 || P > 64) {
        fprintf(stderr, "groups_ucx: needs 3 to 64 ranks\n");
        lincoll_finalize(ctx);
        return 1;
    }
    const char *e = getenv("GROUPS_SEED");
    const uint64_t seed = e != NULL ? strtoull(e, NULL, 10) : 28;
    check_bad_args(w, P);
    group_t G[NG];
    make_groups(w, P, seed, G);
    lincoll_field_t *f = NULL;
    CHECK(lincoll_gf_field_create(256, &f) == LINCOLL_OK, "field");
    for (int round = 0; f != NULL && round < ROUNDS; round++)
        run_ops(G, f, seed, round);
    lincoll_gf_field_destroy(f);
    for (int g = 0; g < NG; g++)
        CHECK(lincoll_comm_free(G[g].comm) == LINCOLL_OK, "free group %d", g);
    check_mismatch(w, P);
    st = lincoll_barrier(w);
    CHECK(st == LINCOLL_OK, "barrier: %s", lincoll_strerror(st));
    st = lincoll_finalize(ctx);
    CHECK(st == LINCOLL_OK, "finalize: %s", lincoll_strerror(st));
    if (failures == 0) printf("groups_ucx: rank %d: %d checks passed\n", me, checks);
    return failures != 0;
}
