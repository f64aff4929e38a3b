/*
 * core/topo/topo_choose.c: the pure decisions of core/topo — NIC, binding,
 * host grouping.  No hwloc, no I/O: the tests feed synthetic machines.
 */
#include "core/topo/topo.h"

#include <stdio.h>
#include <string.h>

/* 0 best: same PCI group as the GPU, same NUMA, same package, elsewhere. */
static int lc_nic_tier(const lc_topo_dev_t *d, const lc_topo_dev_t *gpu, const lc_topo_where_t *w)
{
    if (gpu != NULL) {
        if (gpu->pci_group >= 0 && d->pci_group == gpu->pci_group) return 0;
        if (gpu->numa >= 0 && d->numa == gpu->numa) return 1;
        if (gpu->package >= 0 && d->package == gpu->package) return 2;
        return 3;
    }
    if (d->numa >= 0 && d->numa < 64 && (w->numa_mask >> d->numa) & 1) return 1;
    if (d->package >= 0 && d->package < 64 && (w->pkg_mask >> d->package) & 1) return 2;
    if (d->numa < 0 && d->package < 0) return 2; /* machine-wide device: as near as any */
    return 3;
}

void lc_topo_choose_nic(const lc_topo_dev_t *devs, int ndev, const lc_topo_where_t *where, int gpu,
                        int local_rank, lc_topo_nic_choice_t *out)
{
    memset(out, 0, sizeof(*out));
    out->first = -1;
    out->ports = 1;
    out->reason = "no active RDMA port: UCX defaults (shared memory + tcp)";
    if (devs == NULL || ndev <= 0) {
        return;
    }
    static const lc_topo_where_t anywhere = {~UINT64_C(0), ~UINT64_C(0)};
    const lc_topo_where_t *w = where != NULL ? where : &anywhere;
    const lc_topo_dev_t *g = NULL;
    if (gpu >= 0 && gpu < ndev && devs[gpu].kind == LC_TOPO_DEV_GPU) {
        g = &devs[gpu];
    }
    int best_tier = 4;
    double best_speed = -1;
    for (int i = 0; i < ndev; i++) {
        if (devs[i].kind != LC_TOPO_DEV_RDMA || !devs[i].active) continue;
        int t = lc_nic_tier(&devs[i], g, w);
        if (t < best_tier) {
            best_tier = t;
            best_speed = devs[i].gbps;
        } else if (t == best_tier && devs[i].gbps > best_speed) {
            best_speed = devs[i].gbps;
        }
    }
    if (best_tier == 4) {
        return;
    }
    int cand[LC_TOPO_MAXDEV], nc = 0;
    for (int i = 0; i < ndev && nc < LC_TOPO_MAXDEV; i++) {
        if (devs[i].kind == LC_TOPO_DEV_RDMA && devs[i].active &&
            lc_nic_tier(&devs[i], g, w) == best_tier && devs[i].gbps >= best_speed) {
            cand[nc++] = i;
        }
    }
    int rot = local_rank > 0 ? local_rank % nc : 0;
    size_t used = 0;
    for (int k = 0; k < nc; k++) {
        const lc_topo_dev_t *d = &devs[cand[(rot + k) % nc]];
        int n = snprintf(out->net_devices + used, sizeof(out->net_devices) - used, "%s%s:%d",
                         k ? "," : "", d->name, d->port > 0 ? d->port : 1);
        if (n < 0 || (size_t)n >= sizeof(out->net_devices) - used) {
            out->net_devices[used] = '\0';
            break;
        }
        used += (size_t)n;
        out->ndev++;
    }
    out->first = cand[rot];
    out->ports = out->ndev > 0 ? out->ndev : 1;
    static const char *const why[] = {
        "nearest active RDMA port (same PCI switch as the GPU)",
        "nearest active RDMA port (same NUMA node)",
        "nearest active RDMA port (same package)",
        "active RDMA port (none local to this rank)",
    };
    out->reason = why[best_tier];
}

void lc_topo_choose_bind(lc_topo_bind_t policy, int already_bound, int ncores, int nnuma,
                         int local_rank, int local_size, lc_topo_bind_choice_t *out)
{
    out->action = LC_TOPO_KEEP;
    out->index = -1;
    if (local_rank < 0) local_rank = 0;
    if (local_size < 1) local_size = 1;
    switch (policy) {
    case LC_TOPO_BIND_NONE:
        out->reason = "LINCOLL_BIND=none";
        return;
    case LC_TOPO_BIND_AUTO:
        if (already_bound) {
            out->reason = "kept the launcher's binding";
            return;
        }
        if (ncores < 1 || local_size > ncores) {
            out->reason = "not bound: more ranks than cores on this machine";
            return;
        }
        out->action = LC_TOPO_TO_CORE;
        out->index = local_rank;
        out->reason = "bound to a core (LINCOLL_BIND=auto)";
        return;
    case LC_TOPO_BIND_CORE:
        if (ncores < 1) {
            out->reason = "not bound: no core found";
            return;
        }
        out->action = LC_TOPO_TO_CORE;
        out->index = local_rank % ncores;
        out->reason = "bound to a core (LINCOLL_BIND=core)";
        return;
    case LC_TOPO_BIND_NUMA:
        if (nnuma < 1) {
            out->reason = "not bound: no NUMA node found";
            return;
        }
        out->action = LC_TOPO_TO_NUMA;
        /* blocks of consecutive local ranks per node, as --map-by numa:
         * rank i of s goes to node floor(i * nnuma / s) */
        out->index =
            local_size >= nnuma ? (int)((long)local_rank * nnuma / local_size) : local_rank % nnuma;
        out->reason = "bound to a NUMA node (LINCOLL_BIND=numa)";
        return;
    }
    out->reason = "LINCOLL_BIND: unknown policy";
}

int lc_topo_group(int n, const uint64_t *keys, int *host_of)
{
    int ng = 0;
    for (int r = 0; r < n; r++) {
        host_of[r] = -1;
        for (int q = 0; q < r; q++) {
            if (keys[q] == keys[r]) {
                host_of[r] = host_of[q];
                break;
            }
        }
        if (host_of[r] < 0) {
            host_of[r] = ng++;
        }
    }
    return ng;
}
