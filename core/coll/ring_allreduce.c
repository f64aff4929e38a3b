/*
 * core/coll/ring_allreduce.c: allreduce as ring reduce-scatter + ring
 * allgather over p near-equal segments; the bandwidth baseline.
 *
 * Rounds 0..p-2: ring reduce-scatter (see ring_reduce_scatter.c) into rbuf,
 * rank i ends with segment i; rounds p-1..2p-3: ring allgather from rbuf
 * into rbuf.  Segments c_i = floor(n/p) + [i < n mod p].
 *
 * Reference: Patarasuk & Yuan, JPDC 69(2), 2009 (bandwidth-optimal ring
 * allreduce, as in Baidu ring-allreduce, NCCL, Gloo ring).
 * Cost (n bytes): 2(p-1).alpha + 2(p-1)/p.n.beta + (p-1)/p.n.gamma
 * Restrictions: commutative operators (all lincoll operators); each element
 * is reduced once then copied, in a fixed order for a given p: bitwise
 * identical on every rank and across runs.  In place and out of place (the
 * first round reads sbuf).  Scratch: one segment.
 */
#include "core/coll/coll_int.h"

static lincoll_status_t lc_ring_allreduce_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, np = p->env.P;
    const size_t es = a->es, n = a->count, bytes = n * es;
    lincoll_status_t st = LINCOLL_OK;
    int out = lc_plan_slot_user(p, a->rbuf, bytes);
    int src = a->inplace ? out : lc_plan_slot_user(p, (void *)a->sbuf, bytes);
    if (out < 0 || src < 0 || lc_coll_round(p, 0) < 0) return LINCOLL_ERR_NOMEM;
    if (np == 1) {
        return src == out ? LINCOLL_OK
                          : lc_plan_copy(p, 0, 0, lc_ref(out, 0), lc_ref(src, 0), bytes);
    }
    const lc_segs_t sg = {n / (size_t)np, n % (size_t)np};
    const size_t c0 = lc_seg_sum(&sg, 0, 1);
    int tmp = lc_plan_slot_scratch(p, (c0 ? c0 : 1) * es);
    if (tmp < 0 || lc_coll_round(p, 2 * np - 3) < 0) return LINCOLL_ERR_NOMEM;
    const int right = (me + 1) % np, left = (me - 1 + np) % np;
    for (int s = 0; s < np - 1 && st == LINCOLL_OK; s++) { /* reduce-scatter */
        const size_t sb = (size_t)(((me - s - 1) % np + np) % np);
        const size_t rb = (size_t)(((me - s - 2) % np + np) % np);
        const size_t rn = lc_seg_sum(&sg, rb, 1), ro = lc_seg_off(&sg, rb) * es;
        LC_COLL_TRY(st,
                    lc_plan_send(p, s, right, lc_ref(s == 0 ? src : out, lc_seg_off(&sg, sb) * es),
                                 lc_seg_sum(&sg, sb, 1) * es));
        LC_COLL_TRY(st, lc_plan_recv(p, s, left, lc_ref(tmp, 0), rn * es));
        if (rn > 0) {
            LC_COLL_TRY(st, lc_plan_reduce(p, s, 1, lc_ref(out, ro), lc_ref(src, ro),
                                           lc_ref(tmp, 0), rn, a->dtype, a->rop));
        }
    }
    for (int s = 0; s < np - 1 && st == LINCOLL_OK; s++) { /* allgather */
        const size_t sb = (size_t)(((me - s) % np + np) % np);
        const size_t rb = (size_t)(((me - s - 1) % np + np) % np);
        const int R = np - 1 + s;
        LC_COLL_TRY(st, lc_plan_recv(p, R, left, lc_ref(out, lc_seg_off(&sg, rb) * es),
                                     lc_seg_sum(&sg, rb, 1) * es));
        LC_COLL_TRY(st, lc_plan_send(p, R, right, lc_ref(out, lc_seg_off(&sg, sb) * es),
                                     lc_seg_sum(&sg, sb, 1) * es));
    }
    return st;
}

static double lc_ring_allreduce_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    lc_coll_model_t m;
    if (lc_coll_model(env, a, &m)) return 0;
    return 2.0 * (m.p - 1) * m.al + 2 * m.fp * m.n * m.be + m.fp * m.n * m.ga;
}

const lc_coll_alg_t lc_alg_ring_allreduce = {.name = "ring",
                                             .plan_name = "ring_allreduce",
                                             .op = LC_COLL_ALLREDUCE,
                                             .cost = lc_ring_allreduce_cost,
                                             .compile = lc_ring_allreduce_build};
