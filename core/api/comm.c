/*
 * core/api/comm.c: communicator split/free and the barrier — compiled to
 * plans and run by the executor, so they get timeouts and peer-failure
 * detection like every operation.
 *
 * Communicator ids (the 12-bit field of the tag): each process counts the
 * ids it has used; a split allgathers every member's counter and takes the
 * maximum, so two communicators that share a process never share an id
 * (until the counted space, ids 1 to 2047, wraps after 2047 splits; local
 * groups take the ids above it: core/api/group.c).
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/coll/coll_int.h"
#include "core/exec/exec.h"

lincoll_status_t lincoll_barrier(lincoll_comm_t *comm)
{
    LC_CHECK_ARG(comm != NULL, "lincoll_barrier: comm must not be NULL");
    if (comm->size == 1) {
        return LINCOLL_OK;
    }
    lc_env_t env = lc_exec_env(comm, 0);
    lc_plan_t *p;
    lincoll_status_t st = lc_plan_create(&env, "dissemination_barrier", 1, &p);
    if (st != LINCOLL_OK) {
        return st;
    }
    st = lc_dissemination_barrier_build(p);
    if (st != LINCOLL_OK) {
        lc_plan_destroy(p);
        return st;
    }
    return lc_exec_run_ir(comm, p);
}

static int lc_split_cmp(const void *a, const void *b)
{
    const lc_split_entry_t *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

lincoll_status_t lc_comm_split_finish(lincoll_comm_t *comm, const lc_split_entry_t *entries,
                                      int color, lincoll_comm_t **new_p)
{
    lincoll_context_t *ctx = comm->ctx;
    int P = comm->size;
    lc_split_entry_t *all = malloc((size_t)P * sizeof(*all));
    if (all == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    unsigned id = 0;
    int n = 0;
    for (int i = 0; i < P; i++) {
        id = entries[i].next_id > id ? entries[i].next_id : id;
        if (color >= 0 && entries[i].color == color) {
            all[n++] = entries[i];
        }
    }
    ctx->next_comm_id = lc_comm_id_next(id);
    if (color < 0) {
        free(all);
        *new_p = NULL;
        return LINCOLL_OK;
    }
    qsort(all, (size_t)n, sizeof(*all), lc_split_cmp);
    lincoll_comm_t *c = calloc(1, sizeof(*c));
    int *map = malloc((size_t)n * sizeof(int));
    if (c == NULL || map == NULL) {
        free(c);
        free(map);
        free(all);
        return LINCOLL_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        map[i] = comm->to_world[all[i].rank];
        if (all[i].rank == comm->rank) {
            c->rank = i;
        }
    }
    free(all);
    c->ctx = ctx;
    c->size = n;
    c->to_world = map;
    c->id = id & LC_TAG_MASK(LC_TAG_COMM_BITS);
    ctx->live_comms++;
    lc_debug("comm split: color %d -> rank %d of %d, id %u", color, c->rank, n, c->id);
    *new_p = c;
    return LINCOLL_OK;
}

lc_split_entry_t lc_comm_split_entry(lincoll_comm_t *comm, int color, int key)
{
    lc_split_entry_t e = {color < 0 ? -1 : color, key, comm->rank, comm->ctx->next_comm_id};
    return e;
}

lincoll_status_t lincoll_comm_split(lincoll_comm_t *comm, int color, int key,
                                    lincoll_comm_t **new_p)
{
    LC_CHECK_ARG(comm != NULL, "lincoll_comm_split: comm must not be NULL");
    LC_CHECK_ARG(new_p != NULL, "lincoll_comm_split: new_p must not be NULL");
    int P = comm->size;
    lc_split_entry_t mine = lc_comm_split_entry(comm, color, key);
    lc_split_entry_t *all = malloc((size_t)P * sizeof(*all));
    if (all == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    lincoll_status_t st = lc_comm_allgather_bytes(comm, &mine, all, sizeof(mine));
    if (st == LINCOLL_OK) st = lc_comm_split_finish(comm, all, color, new_p);
    free(all);
    return st;
}

lincoll_status_t lincoll_comm_free(lincoll_comm_t *comm)
{
    if (comm == NULL) {
        return LINCOLL_OK;
    }
    LC_CHECK_ARG(comm != comm->ctx->world, "lincoll_comm_free: the world communicator is "
                                           "owned by the context");
    lc_context_flush(comm->ctx, comm); /* e.g. plans the blocking collectives kept */
    comm->ctx->live_comms--;
    free(comm->to_world);
    free(comm->wire_rank);
    free(comm);
    return LINCOLL_OK;
}
