/*
 * test/common/group_ops.h: what the groups-and-tags tests share (over UCX,
 * test/integration/groups_ucx.c; over sim, test/exec/test_groups_sim.c):
 * overlapping groups drawn by a seeded RNG, and the tagged operations run
 * on them (allreduce, bcast, Reed-Solomon encode) with their closed forms.
 */
#ifndef LC_TEST_GROUP_OPS_H
#define LC_TEST_GROUP_OPS_H

#include <lincoll/lincoll.h>

#include <stdint.h>

#define GT_NOPS  3    /* operations per group: allreduce, bcast, RS encode */
#define GT_NELEM 1000 /* allreduce and bcast elements */
#define GT_RS_B  1024 /* RS packet bytes */

/* A group: n parent ranks in the order of its ranks; made local or agreed. */
typedef struct gt_group {
    int n, list[4], local;
} gt_group_t;

/* One operation of group g (kind: 0 allreduce, 1 bcast, 2 RS encode). */
typedef struct gt_op {
    int g, kind, local;
    lincoll_plan_t *plan;
    lincoll_status_t st;
    int64_t *in, *out;
    unsigned char *x, *y;
} gt_op_t;

uint64_t gt_rng(uint64_t *s);
void gt_shuffle(int *a, int n, uint64_t *s);
/* ng distinct lists of 3 or 4 of P ranks (P >= 3) from seed, the same on
 * every rank; even groups local. */
void gt_draw(int P, uint64_t seed, gt_group_t *G, int ng);
/* The tag of op kind of group g: agreed groups (ids of their own) share
 * three tags (1, one that differs from it above bit 11 only, the largest);
 * local groups' tags (their plans travel as the parent's) differ. */
uint64_t gt_tag(int g, int local, int kind);
/* Init o on c (o->g, o->kind, o->local set); the buffers are o's. */
lincoll_status_t gt_op_init(gt_op_t *o, lincoll_comm_t *c, lincoll_field_t *f);
/* Elements or bytes of o's result that differ from the closed form. */
int gt_op_wrong(const gt_op_t *o, lincoll_comm_t *c, lincoll_field_t *f);
void gt_op_free(gt_op_t *o);
/* Test every op until none is LINCOLL_INPROGRESS (the ops started). */
void gt_poll(gt_op_t **ops, int n);

#endif
