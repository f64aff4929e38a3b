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

#include "common/group_ops.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NG     8 /* groups */
#define ROUNDS 3 /* the tags are reused ROUNDS - 1 times */

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

typedef struct {
    gt_group_t spec;
    lincoll_comm_t *comm; /* NULL where this rank is not a member */
} group_t;

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

/* Local groups in a random order of this rank, then agreed ones in order. */
static void make_groups(lincoll_comm_t *w, int P, uint64_t seed, group_t *G)
{
    gt_group_t spec[NG];
    gt_draw(P, seed, spec, NG);
    uint64_t mine = seed * 1000 + (uint64_t)me + 7;
    int order[NG];
    for (int g = 0; g < NG; g++) {
        order[g] = g;
        G[g].spec = spec[g];
        G[g].comm = NULL;
    }
    gt_shuffle(order, NG, &mine);
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < NG; k++) {
            const int g = pass == 0 ? order[k] : k;
            const gt_group_t *sp = &G[g].spec;
            int member = 0;
            for (int i = 0; i < sp->n; i++)
                member |= sp->list[i] == me;
            if (sp->local != (pass == 0) || !member) continue;
            lincoll_status_t st = lincoll_comm_create_group(
                w, sp->list, sp->n, sp->local ? LINCOLL_GROUP_LOCAL : 0, &G[g].comm);
            lincoll_comm_t *c = G[g].comm;
            CHECK(st == LINCOLL_OK && c != NULL && lincoll_comm_size(c) == sp->n &&
                      sp->list[lincoll_comm_rank(c)] == me &&
                      lincoll_comm_translate(c, lincoll_comm_rank(c), w) == me,
                  "create_group %d (%s): %s", g, sp->local ? "local" : "agreed",
                  lincoll_strerror(st));
        }
    }
}

/* Every op of this rank's groups: inited in one random order, started in
 * another, polled together, checked, freed. */
static void run_ops(group_t *G, lincoll_field_t *f, uint64_t seed, int round)
{
    gt_op_t ops[NG * GT_NOPS];
    gt_op_t *live[NG * GT_NOPS];
    int n = 0;
    memset(ops, 0, sizeof(ops));
    for (int g = 0; g < NG; g++)
        for (int k = 0; G[g].comm != NULL && k < GT_NOPS; k++, n++) {
            ops[n].g = g;
            ops[n].kind = k;
            ops[n].local = G[g].spec.local;
        }
    uint64_t s = seed * 7919 + (uint64_t)me * 104729 + (uint64_t)round + 3;
    int order[NG * GT_NOPS];
    for (int i = 0; i < n; i++)
        order[i] = i;
    gt_shuffle(order, n, &s);
    for (int i = 0; i < n; i++) {
        gt_op_t *o = &ops[order[i]];
        o->st = gt_op_init(o, G[o->g].comm, f);
        CHECK(o->st == LINCOLL_OK, "init group %d op %d: %s", o->g, o->kind,
              lincoll_strerror(o->st));
    }
    gt_shuffle(order, n, &s);
    for (int i = 0; i < n; i++) {
        gt_op_t *o = &ops[order[i]];
        if (o->st == LINCOLL_OK) o->st = lincoll_start(o->plan);
        if (o->st == LINCOLL_OK) o->st = LINCOLL_INPROGRESS;
        live[i] = o;
    }
    gt_poll(live, n);
    for (int i = 0; i < n; i++) {
        gt_op_t *o = &ops[i];
        int bad = gt_op_wrong(o, G[o->g].comm, f);
        CHECK(o->st == LINCOLL_OK && bad == 0, "round %d: group %d op %d (tag %llu): %s, %d wrong",
              round, o->g, o->kind, (unsigned long long)gt_tag(o->g, o->local, o->kind),
              lincoll_strerror(o->st), bad);
        gt_op_free(o);
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
