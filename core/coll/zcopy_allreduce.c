/*
 * core/coll/zcopy_allreduce.c: allreduce by direct loads and stores in the
 * peers' buffers (zero copy), for ranks whose memory is mapped into each
 * other's address space (UCX-allocated shared memory on one node).
 *
 * What: every rank's input and output buffers are windows (keys IN and OUT);
 * each rank views every peer's windows.  With P near-equal segments, rank i
 * owns segment i:
 *   round 0  flag "ready" to every peer (a signal) and wait for theirs: every
 *            peer has entered this start, so its input is valid and its
 *            output free; then (POST) reduce segment i reading every peer's
 *            input in place, into its own output, and store it into every
 *            peer's output;
 *   round 1  flag "done" to every peer and wait for theirs: nobody reads my
 *            input or writes my output any more, so the call may return.
 * No data message is sent and no intermediate copy is made: per rank, the
 * reduction reads P segments and writes one, the stores write P-1.
 * Reduction order: rhd_allreduce's bracketing (zcopy_tree.c): bitwise
 * identical to rhd_allreduce for every P and count, on every rank.
 *
 * Reference: the shared-memory "direct" reduce-scatter + allgather of
 * intra-node collectives (e.g. UCC tl/shm, NCCL's one-process-per-GPU P2P
 * read kernels), with RHD's bracketing for determinism.
 * Cost (n bytes): 2 alpha_mapped + (P-1)/P n beta (the stores into the peers'
 * outputs) + (P-1)/P n gamma (the reduction of n/P elements from P inputs).
 * Restrictions: P >= 2, count > 0, every peer mapped (bind agrees at init:
 * every rank's buffers lincoll memory on one node); not below
 * LINCOLL_COLL_ZCOPY_THRESHOLD on a power of two (zcopy_rd_allreduce
 * serves those); P - 1 ports (flags to every peer at once).
 */
#include <stdlib.h>

#include "core/coll/coll_int.h"

static int lc_zc_allreduce_applies(const lc_env_t *env, const lc_coll_args_t *a)
{
    const size_t bytes = lc_coll_bytes(a);
    return env->mapped && env->P >= 2 && a->count > 0 &&
           !(bytes < env->cfg->zcopy_threshold && lc_zc_log2(env->P) >= 0);
}

static double lc_zc_allreduce_cost(const lc_env_t *env, const lc_coll_args_t *a)
{
    const lc_config_t *c = env->cfg;
    const double n = (double)lc_coll_bytes(a), f = (double)(env->P - 1) / env->P;
    return 2 * c->model_alpha_mapped + f * n / c->model_bw_mapped + 2 * f * n / c->model_reduce_bw;
}

static lincoll_status_t lc_zc_allreduce_build(lc_plan_t *p, const lc_coll_args_t *a)
{
    const int me = p->env.rank, np = p->env.P;
    const size_t es = a->es, n = a->count, bytes = n * es;
    const lc_segs_t sg = {n / (size_t)np, n % (size_t)np};
    const size_t off = lc_seg_off(&sg, (size_t)me), cnt = lc_seg_sum(&sg, (size_t)me, 1);
    int mine = lc_plan_slot_user(p, a->rbuf, bytes);
    int src_me = a->inplace ? mine : lc_plan_slot_user(p, (void *)a->sbuf, bytes);
    int wout = mine >= 0 ? lc_plan_win_user(p, LC_ZC_KEY_OUT, mine) : -1;
    int win = a->inplace ? wout : (src_me >= 0 ? lc_plan_win_user(p, LC_ZC_KEY_IN, src_me) : -1);
    int *src = calloc((size_t)np, sizeof(int)), *out = calloc((size_t)np, sizeof(int));
    lincoll_status_t st = (src && out && win >= 0 && wout >= 0) ? LINCOLL_OK : LINCOLL_ERR_NOMEM;
    for (int j = 0; j < np && st == LINCOLL_OK; j++) {
        out[j] = j == me ? mine : lc_plan_slot_peer(p, wout, j, 0, bytes);
        src[j] = j == me ? src_me : (a->inplace ? out[j] : lc_plan_slot_peer(p, win, j, 0, bytes));
        if (out[j] < 0 || src[j] < 0) st = LINCOLL_ERR_NOMEM;
    }
    if (st == LINCOLL_OK && lc_coll_round(p, 1) < 0) st = LINCOLL_ERR_NOMEM;
    LC_COLL_TRY(st, lc_zc_flags(p, 0, wout));
    LC_COLL_TRY(st, lc_zc_flags(p, 1, wout));
    if (st == LINCOLL_OK && cnt > 0) {
        lc_bufref_t seg = lc_ref(mine, off * es);
        st = lc_zc_reduce_tree(p, a, 0, src, off, cnt, seg);
        for (int j = 0; j < np && st == LINCOLL_OK; j++) {
            if (j == me) continue;
            st = lc_plan_copy(p, 0, LC_STEP_POST, lc_ref(out[j], off * es), seg, cnt * es);
        }
    }
    free(src);
    free(out);
    return st;
}

const lc_coll_alg_t lc_alg_zcopy_allreduce = {.name = "zcopy",
                                              .plan_name = "zcopy_allreduce",
                                              .op = LC_COLL_ALLREDUCE,
                                              .mapped = 1,
                                              .ports = -1,
                                              .applies = lc_zc_allreduce_applies,
                                              .cost = lc_zc_allreduce_cost,
                                              .compile = lc_zc_allreduce_build};
