/*
 * core/topo/topo_share.c: ranks that share processing units.
 *
 * After lc_topo_setup has bound this rank, every rank publishes its machine
 * (boot id) and the PUs of its CPU set (hwloc, os indices below
 * 64 * LC_TOPO_CPU_WORDS); the allgather leaves the same table on every
 * rank.  On each machine the ranks of a group are compared with the PUs
 * their CPU sets cover together: 4 ranks on a 2-PU machine, or 4 ranks
 * pinned with taskset to 2 PUs of a larger one, give 2 ranks per PU; 4
 * ranks bound to 4 distinct cores give 1.  The most crowded machine is the
 * group's figure, so every member computes the same one.  LINCOLL_WAIT=auto
 * makes blocking waits sleep where the world's figure is above 1.
 */
#include "core/topo/topo.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"

double lc_topo_ranks_per_pu(int nmachines_max, const int *machine_of, const uint64_t *masks,
                            const int *members, int m)
{
    double worst = 0;
    for (int i = 0; i < m; i++) {
        int mach = machine_of[members[i]];
        int first = 1; /* the first member of its machine does the count */
        for (int j = 0; j < i && first; j++)
            first = machine_of[members[j]] != mach;
        if (!first || mach < 0 || mach >= nmachines_max) continue;
        uint64_t u[LC_TOPO_CPU_WORDS] = {0};
        int ranks = 0;
        for (int j = i; j < m; j++) {
            if (machine_of[members[j]] != mach) continue;
            ranks++;
            for (int w = 0; w < LC_TOPO_CPU_WORDS; w++)
                u[w] |= masks[(size_t)members[j] * LC_TOPO_CPU_WORDS + (size_t)w];
        }
        int pus = 0;
        for (int w = 0; w < LC_TOPO_CPU_WORDS; w++)
            pus += __builtin_popcountll(u[w]);
        double r = pus > 0 ? (double)ranks / pus : 1.0; /* unknown CPU sets: no claim */
        if (r > worst) worst = r;
    }
    return worst;
}

typedef struct {
    uint64_t machine_hash;
    uint64_t mask[LC_TOPO_CPU_WORDS];
} lc_topo_share_wire_t;

lincoll_status_t lc_topo_share_setup(lincoll_context_t *ctx, uint64_t machine_hash,
                                     const uint64_t *mask)
{
    const int n = ctx->size;
    lc_topo_share_wire_t mine = {.machine_hash = machine_hash};
    memcpy(mine.mask, mask, sizeof(mine.mask));
    lc_topo_share_wire_t *all = malloc((size_t)n * sizeof(*all));
    uint64_t *keys = malloc((size_t)n * sizeof(*keys));
    int *members = malloc((size_t)n * sizeof(int));
    free(ctx->cpu_machine);
    free(ctx->cpu_masks);
    ctx->cpu_machine = malloc((size_t)n * sizeof(int));
    ctx->cpu_masks = malloc((size_t)n * LC_TOPO_CPU_WORDS * sizeof(uint64_t));
    lincoll_status_t st = LINCOLL_ERR_NOMEM;
    if (all != NULL && keys != NULL && members != NULL && ctx->cpu_machine != NULL &&
        ctx->cpu_masks != NULL) {
        st = ctx->boot->ops->allgather(ctx->boot, &mine, all, sizeof(mine));
        if (st != LINCOLL_OK) {
            lc_error("topology: exchanging CPU sets through the %s bootstrap failed: %s",
                     ctx->boot->ops->name, lincoll_strerror(st));
        }
    }
    if (st == LINCOLL_OK) {
        for (int r = 0; r < n; r++) {
            keys[r] = all[r].machine_hash;
            members[r] = r;
            memcpy(ctx->cpu_masks + (size_t)r * LC_TOPO_CPU_WORDS, all[r].mask,
                   sizeof(all[r].mask));
        }
        lc_topo_group(n, keys, ctx->cpu_machine);
        ctx->ranks_per_pu = lc_topo_ranks_per_pu(n, ctx->cpu_machine, ctx->cpu_masks, members, n);
        ctx->oversubscribed = ctx->ranks_per_pu > 1.0;
    } else {
        free(ctx->cpu_machine);
        free(ctx->cpu_masks);
        ctx->cpu_machine = NULL;
        ctx->cpu_masks = NULL;
    }
    free(all);
    free(keys);
    free(members);
    return st;
}

void lc_topo_share_free(lincoll_context_t *ctx)
{
    free(ctx->cpu_machine);
    free(ctx->cpu_masks);
    ctx->cpu_machine = NULL;
    ctx->cpu_masks = NULL;
}

double lc_comm_ranks_per_pu(const lincoll_comm_t *comm)
{
    const lincoll_context_t *ctx = comm->ctx;
    if (ctx->cpu_machine == NULL) return 0; /* a sim rank, or no table */
    if (comm == ctx->world) return ctx->ranks_per_pu;
    return lc_topo_ranks_per_pu(ctx->size, ctx->cpu_machine, ctx->cpu_masks, comm->to_world,
                                comm->size);
}

int lc_comm_oversubscribed(const lincoll_comm_t *comm)
{
    return lc_comm_ranks_per_pu(comm) > 1.0;
}
