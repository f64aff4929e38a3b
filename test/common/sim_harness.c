/*
 * test/common/sim_harness.c: see sim_harness.h.
 */
#include "common/sim_harness.h"

#include <stdlib.h>
#include <string.h>

#include "core/exec/exec.h"

int lc_simh_create(lc_simh_t *h, int K, int ports)
{
    h->K = K;
    h->ctx = NULL;
    h->comm = NULL;
    if (lc_sim_world_create(K, &h->world) != LINCOLL_OK) {
        h->world = NULL;
        return -1;
    }
    h->ctx = calloc((size_t)K, sizeof(*h->ctx));
    h->comm = calloc((size_t)K, sizeof(*h->comm));
    if (h->ctx == NULL || h->comm == NULL) {
        lc_simh_destroy(h);
        return -1;
    }
    for (int r = 0; r < K; r++) {
        if (lc_context_create_sim(h->world, r, K, ports, &h->ctx[r]) != LINCOLL_OK ||
            lincoll_comm_world(h->ctx[r], &h->comm[r]) != LINCOLL_OK) {
            h->ctx[r] = NULL;
            lc_simh_destroy(h); /* nothing leaks when a context cannot be made */
            return -1;
        }
    }
    return 0;
}

void lc_simh_destroy(lc_simh_t *h)
{
    for (int r = 0; r < h->K; r++) {
        if (h->ctx != NULL && h->ctx[r] != NULL) {
            lincoll_finalize(h->ctx[r]);
        }
    }
    free(h->ctx);
    free(h->comm);
    if (h->world != NULL) {
        lc_sim_world_destroy(h->world);
    }
    h->ctx = NULL;
    h->comm = NULL;
    h->world = NULL;
}

lincoll_status_t lc_simh_run(lc_simh_t *h, lincoll_plan_t **plans)
{
    lincoll_status_t first = LINCOLL_OK;
    for (int r = 0; r < h->K; r++) {
        if (plans[r] != NULL) {
            lincoll_status_t st = lincoll_start(plans[r]);
            if (st != LINCOLL_OK) return st;
        }
    }
    int busy = 1;
    while (busy) {
        busy = 0;
        for (int r = 0; r < h->K; r++) {
            if (plans[r] == NULL) continue;
            lincoll_status_t st = lincoll_test(plans[r]);
            if (st == LINCOLL_INPROGRESS) {
                busy = 1;
            } else if (st != LINCOLL_OK && first == LINCOLL_OK) {
                first = st;
            }
        }
        if (first != LINCOLL_OK) {
            break;
        }
    }
    return first;
}

lincoll_status_t lc_simh_bind(lc_simh_t *h, lc_plan_t **irs, lincoll_plan_t **plans)
{
    return lc_bind_together(h->comm, h->K, irs, plans);
}
