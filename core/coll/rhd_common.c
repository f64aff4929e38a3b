/*
 * core/coll/rhd_common.c: helpers the collective plan compilers share —
 * the non-power-of-two fold (design/RHD.md §6.1) and global round indices.
 */
#include "core/coll/coll_int.h"

void lc_fold_init(lc_fold_t *f, int p, int s)
{
    int P = 1, k = 0;
    while (2 * P <= p) {
        P *= 2;
        k++;
    }
    f->p = p;
    f->P = P;
    f->k = k;
    f->r = p - P;
    f->s = s;
}

int lc_coll_round(lincoll_plan_t *plan, int idx)
{
    while ((int)plan->nrounds <= idx) {
        if (lc_plan_round(plan) < 0) {
            return -1;
        }
    }
    return idx;
}
