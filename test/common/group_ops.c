/*
 * test/common/group_ops.c: groups drawn by a seeded RNG and the tagged
 * operations the groups-and-tags tests run on them (group_ops.h).
 */
#include "common/group_ops.h"

#include <stdlib.h>
#include <string.h>

static const uint64_t gt_shared_tags[GT_NOPS] = {1, 1 + (UINT64_C(5) << 12), LINCOLL_TAG_MAX};

uint64_t gt_rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

void gt_shuffle(int *a, int n, uint64_t *s)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(gt_rng(s) % (uint64_t)(i + 1)), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

void gt_draw(int P, uint64_t seed, gt_group_t *G, int ng)
{
    uint64_t s = seed * 2654435761u + 1;
    for (int g = 0; g < ng; g++) {
        int again;
        do {
            int perm[64];
            for (int i = 0; i < P; i++)
                perm[i] = i;
            gt_shuffle(perm, P, &s);
            memset(G[g].list, 0, sizeof(G[g].list));
            G[g].n = P >= 4 ? 3 + (int)(gt_rng(&s) % 2) : 3;
            memcpy(G[g].list, perm, sizeof(int) * (size_t)G[g].n);
            again = 0;
            for (int h = 0; h < g; h++)
                again |= G[h].n == G[g].n && memcmp(G[h].list, G[g].list, sizeof(G[g].list)) == 0;
        } while (again);
        G[g].local = g % 2 == 0;
    }
}

uint64_t gt_tag(int g, int local, int kind)
{
    const uint64_t i = (uint64_t)(g * GT_NOPS + kind);
    return local ? 2 + i + (i << 12) : gt_shared_tags[kind];
}

static unsigned char gt_byte(int g, int j, size_t i)
{
    return (unsigned char)(j * 13 + (int)i * 7 + g * 5 + 1);
}

lincoll_status_t gt_op_init(gt_op_t *o, lincoll_comm_t *c, lincoll_field_t *f)
{
    const int n = lincoll_comm_size(c), r = lincoll_comm_rank(c), g = o->g;
    const uint64_t tag = gt_tag(g, o->local, o->kind);
    lincoll_coll_opts_t copts = {.tag = tag};
    switch (o->kind) {
    case 0:
        o->in = malloc(sizeof(int64_t) * GT_NELEM);
        o->out = malloc(sizeof(int64_t) * GT_NELEM);
        for (int i = 0; i < GT_NELEM; i++) {
            o->in[i] = (int64_t)(r + 1) * (i + 1) + g;
            o->out[i] = -1;
        }
        return lincoll_allreduce_init_opts(c, o->in, o->out, GT_NELEM, LINCOLL_INT64, LINCOLL_SUM,
                                           &copts, &o->plan);
    case 1:
        o->out = malloc(sizeof(int64_t) * GT_NELEM);
        for (int i = 0; i < GT_NELEM; i++)
            o->out[i] = r == g % n ? (int64_t)g * 100000 + 3 * i + r : -1;
        return lincoll_bcast_init_opts(c, o->out, GT_NELEM, LINCOLL_INT64, g % n, &copts, &o->plan);
    default: {
        lincoll_encode_opts_t eopts = {.tag = tag};
        o->x = malloc(GT_RS_B);
        o->y = calloc(1, GT_RS_B);
        for (size_t i = 0; i < GT_RS_B; i++)
            o->x[i] = gt_byte(g, r, i);
        return lincoll_encode_rs_init(c, f, n - 1, LINCOLL_GF_RS_CAUCHY, NULL, GT_RS_B, o->x, o->y,
                                      &eopts, &o->plan);
    }
    }
}

int gt_op_wrong(const gt_op_t *o, lincoll_comm_t *c, lincoll_field_t *f)
{
    const int n = lincoll_comm_size(c), r = lincoll_comm_rank(c), g = o->g;
    int bad = 0;
    if (o->kind == 0) {
        for (int i = 0; i < GT_NELEM; i++)
            bad += o->out[i] != (int64_t)n * (n + 1) / 2 * (i + 1) + (int64_t)n * g;
    } else if (o->kind == 1) {
        for (int i = 0; i < GT_NELEM; i++)
            bad += o->out[i] != (int64_t)g * 100000 + 3 * i + g % n;
    } else if (r == n - 1) {
        const int k = n - 1;
        uint64_t G[4 * 3];
        if (n > 4 || lincoll_gf_matrix_systematic(f, n, k, LINCOLL_GF_RS_CAUCHY, G) != LINCOLL_OK)
            return GT_RS_B;
        for (size_t i = 0; i < GT_RS_B; i++) {
            unsigned want = 0;
            for (int j = 0; j < k; j++)
                want ^= (unsigned)lincoll_gf_mul(f, G[k * k + j], gt_byte(g, j, i));
            bad += o->y[i] != want;
        }
    }
    return bad;
}

void gt_op_free(gt_op_t *o)
{
    lincoll_plan_free(o->plan);
    free(o->in);
    free(o->out);
    free(o->x);
    free(o->y);
    o->plan = NULL;
    o->in = o->out = NULL;
    o->x = o->y = NULL;
}

void gt_poll(gt_op_t **ops, int n)
{
    for (int busy = 1; busy;) {
        busy = 0;
        for (int i = 0; i < n; i++) {
            if (ops[i]->st != LINCOLL_INPROGRESS) continue;
            ops[i]->st = lincoll_test(ops[i]->plan);
            busy |= ops[i]->st == LINCOLL_INPROGRESS;
        }
    }
}
