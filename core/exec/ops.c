/*
 * core/exec/ops.c: the executor's own collective, the allgather of a few
 * bytes per rank that bind (bind records) and lincoll_comm_split use.
 *
 * Ring allgather: P-1 rounds, each forwards the block received the round
 * before (cost (P-1)(alpha + len beta)).  Compiled with the plan builder,
 * bound and run like every plan, so it gets timeouts and peer-failure
 * detection like every operation.
 *
 * lc_comm_exchange_among: some members of the communicator only (an agreed
 * lincoll_comm_create_group, on the parent) send their block to each other
 * directly, in one round of n - 1 ports, so every member gets every other
 * member's own block even where the members' lists differ (in order or
 * in ranks).
 *
 * lc_comm_agree_status: the same allgather over one status per rank, so a
 * step that may fail on some ranks (attaching peers' windows) ends alike
 * on every rank.
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/exec/exec.h"

lincoll_status_t lc_comm_allgather_bytes(lincoll_comm_t *comm, const void *in, void *out,
                                         size_t len)
{
    int P = comm->size, me = comm->rank;
    memcpy((char *)out + (size_t)me * len, in, len);
    if (P == 1) {
        return LINCOLL_OK;
    }
    lc_env_t env = lc_exec_env(comm, 0);
    lc_plan_t *p;
    lincoll_status_t st = lc_plan_create(&env, "ring_allgather_bytes", 1, &p);
    if (st != LINCOLL_OK) {
        return st;
    }
    int slot = lc_plan_slot_user(p, out, (size_t)P * len);
    int right = (me + 1) % P, left = (me - 1 + P) % P;
    if (slot < 0) st = LINCOLL_ERR_NOMEM;
    for (int r = 0; r < P - 1 && st == LINCOLL_OK; r++) {
        int round = lc_plan_round(p);
        size_t sblk = (size_t)((me - r + P) % P), rblk = (size_t)((me - r - 1 + P) % P);
        st = round < 0 ? LINCOLL_ERR_NOMEM
                       : lc_plan_send(p, round, right, lc_ref(slot, sblk * len), len);
        if (st == LINCOLL_OK) st = lc_plan_recv(p, round, left, lc_ref(slot, rblk * len), len);
    }
    if (st != LINCOLL_OK) {
        lc_plan_destroy(p);
        return st;
    }
    return lc_exec_run_ir(comm, p);
}

lincoll_status_t lc_comm_exchange_among(lincoll_comm_t *comm, const int *members, int n,
                                        const void *in, void *out, size_t len)
{
    int me = 0;
    while (me < n && members[me] != comm->rank)
        me++;
    if (me == n) return LINCOLL_ERR_INTERNAL;
    memcpy((char *)out + (size_t)me * len, in, len);
    if (n == 1) return LINCOLL_OK;
    lc_env_t env = lc_exec_env(comm, 0);
    lc_plan_t *p;
    lincoll_status_t st = lc_plan_create(&env, "exchange_among", n - 1, &p);
    if (st != LINCOLL_OK) return st;
    int slot = lc_plan_slot_user(p, out, (size_t)n * len);
    int round = lc_plan_round(p);
    if (slot < 0 || round < 0) st = LINCOLL_ERR_NOMEM;
    for (int i = 0; i < n && st == LINCOLL_OK; i++) {
        if (i == me) continue;
        st = lc_plan_send(p, round, members[i], lc_ref(slot, (size_t)me * len), len);
        if (st == LINCOLL_OK)
            st = lc_plan_recv(p, round, members[i], lc_ref(slot, (size_t)i * len), len);
    }
    if (st != LINCOLL_OK) {
        lc_plan_destroy(p);
        return st;
    }
    return lc_exec_run_ir(comm, p);
}

lincoll_status_t lc_status_verdict(const int32_t *all, int P, int me, const char *what)
{
    for (int i = 0; i < P; i++) {
        if (all[i] == LINCOLL_OK) continue;
        if (all[me] == LINCOLL_OK)
            lc_error("%s failed on rank %d (%s), so it fails on every rank", what, i,
                     lincoll_strerror((lincoll_status_t)all[i]));
        return (lincoll_status_t)all[i];
    }
    return LINCOLL_OK;
}

lincoll_status_t lc_comm_agree_status(lincoll_comm_t *comm, lincoll_status_t st, const char *what)
{
    int32_t mine = (int32_t)st, *all = calloc((size_t)comm->size, sizeof(int32_t));
    if (all == NULL) return LINCOLL_ERR_NOMEM;
    lincoll_status_t xs = lc_comm_allgather_bytes(comm, &mine, all, sizeof(mine));
    if (xs == LINCOLL_OK) xs = lc_status_verdict(all, comm->size, comm->rank, what);
    free(all);
    return xs;
}
