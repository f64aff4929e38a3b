/*
 * core/topo/topo_setup.c: the topology step of lincoll_init (between the
 * bootstrap and the transport) and the process-wide record it leaves.
 *
 *   1. allgather {host hash, machine hash} over the bootstrap: host_of[] for
 *      every world rank, and this rank's index among the ranks sharing its
 *      machine's cores (same boot id: several network namespaces of one
 *      kernel count once per core);
 *   2. bind per LINCOLL_BIND before UCX creates its threads and memory
 *      (auto keeps a launcher's binding and leaves an oversubscribed machine
 *      unbound);
 *   3. pick the NIC(s) near the binding (or the rank's GPU) for
 *      UCX_NET_DEVICES, and the default port count from them.
 */
#include "core/topo/topo.h"

#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"

static lc_topo_record_t lc_rec;

const lc_topo_record_t *lc_topo_record(void)
{
    return lc_rec.valid ? &lc_rec : NULL;
}

int lc_topo_world_hosts(const lincoll_context_t *ctx, int *host_of)
{
    if (ctx == NULL || host_of == NULL) return 0;
    if (lc_rec.valid && lc_rec.host_of != NULL && lc_rec.size == ctx->size &&
        lc_rec.rank == ctx->rank && ctx->boot != NULL) {
        memcpy(host_of, lc_rec.host_of, (size_t)ctx->size * sizeof(int));
        return lc_rec.nhosts;
    }
    for (int r = 0; r < ctx->size; r++)
        host_of[r] = 0;
    return 1;
}

/* The NUMA nodes and packages a CPU set touches. */
static void lc_where(hwloc_topology_t t, hwloc_const_bitmap_t set, lc_topo_where_t *w)
{
    w->numa_mask = w->pkg_mask = 0;
    int nn = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < nn; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, (unsigned)i);
        if (o->os_index < 64 && hwloc_bitmap_intersects(o->cpuset, set)) {
            w->numa_mask |= UINT64_C(1) << o->os_index;
        }
    }
    int np = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
    for (int i = 0; i < np && i < 64; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, (unsigned)i);
        if (hwloc_bitmap_intersects(o->cpuset, set)) w->pkg_mask |= UINT64_C(1) << i;
    }
}

/* Bind per the choice; returns what happened as text in how. */
static void lc_bind(hwloc_topology_t t, const lc_topo_bind_choice_t *c, char *how, size_t len)
{
    snprintf(how, len, "%s", c->reason);
    if (c->action == LC_TOPO_KEEP) return;
    hwloc_obj_t o = hwloc_get_obj_by_type(
        t, c->action == LC_TOPO_TO_CORE ? HWLOC_OBJ_CORE : HWLOC_OBJ_NUMANODE, (unsigned)c->index);
    if (o == NULL || o->cpuset == NULL) {
        snprintf(how, len, "not bound: %s %d not found",
                 c->action == LC_TOPO_TO_CORE ? "core" : "numa", c->index);
        lc_warn("LINCOLL_BIND: %s", how);
        return;
    }
    hwloc_bitmap_t set = hwloc_bitmap_dup(o->cpuset);
    if (set == NULL) return;
    if (c->action == LC_TOPO_TO_CORE) {
        hwloc_bitmap_singlify(set); /* one PU: no migration between SMT siblings */
    }
    if (hwloc_set_cpubind(t, set, HWLOC_CPUBIND_PROCESS) != 0) {
        snprintf(how, len, "not bound: hwloc_set_cpubind refused %s %d",
                 c->action == LC_TOPO_TO_CORE ? "core" : "numa", c->index);
        lc_warn("LINCOLL_BIND: %s", how);
    } else if (c->action == LC_TOPO_TO_NUMA) {
        /* memory follows the node (best effort) */
        hwloc_set_membind(t, o->nodeset, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET);
    }
    hwloc_bitmap_free(set);
}

typedef struct {
    uint64_t host_hash;
    uint64_t machine_hash;
} lc_topo_wire_t;

lincoll_status_t lc_topo_setup(lincoll_context_t *ctx, const lincoll_init_params_t *params,
                               const char **nics_p)
{
    LC_CHECK_ARG(ctx != NULL && ctx->boot != NULL && nics_p != NULL,
                 "lc_topo_setup: ctx, ctx->boot and nics_p must not be NULL");
    lc_topo_record_t *rec = &lc_rec;
    free(rec->host_of);
    memset(rec, 0, sizeof(*rec));
    const int n = ctx->size, me = ctx->rank;
    rec->rank = me;
    rec->size = n;
    lc_topo_ident_self(&rec->ident);

    /* 1. who shares my host, who shares my cores */
    lc_topo_wire_t mine = {rec->ident.host_hash, rec->ident.machine_hash};
    lc_topo_wire_t *all = malloc((size_t)n * sizeof(*all));
    uint64_t *keys = malloc((size_t)n * sizeof(*keys));
    rec->host_of = malloc((size_t)n * sizeof(int));
    if (all == NULL || keys == NULL || rec->host_of == NULL) {
        free(all);
        free(keys);
        free(rec->host_of);
        rec->host_of = NULL;
        return LINCOLL_ERR_NOMEM;
    }
    lincoll_status_t st = ctx->boot->ops->allgather(ctx->boot, &mine, all, sizeof(mine));
    if (st != LINCOLL_OK) {
        lc_error("topology: exchanging host identities through the %s bootstrap failed: %s",
                 ctx->boot->ops->name, lincoll_strerror(st));
        free(all);
        free(keys);
        free(rec->host_of);
        rec->host_of = NULL;
        return st;
    }
    for (int r = 0; r < n; r++)
        keys[r] = all[r].host_hash;
    rec->nhosts = lc_topo_group(n, keys, rec->host_of);
    int host_rank = 0;
    for (int r = 0; r < n; r++) {
        if (all[r].machine_hash == mine.machine_hash) {
            rec->machine_size++;
            if (r < me) rec->machine_rank++;
        }
        if (r < me && rec->host_of[r] == rec->host_of[me]) host_rank++;
    }
    free(all);
    free(keys);

    /* 2. binding */
    hwloc_topology_t t = NULL;
    int have_topo = hwloc_topology_init(&t) == 0;
    if (have_topo) {
        hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
        if (hwloc_topology_load(t) != 0) {
            hwloc_topology_destroy(t);
            have_topo = 0;
        }
    }
    lc_topo_where_t where = {~UINT64_C(0), ~UINT64_C(0)};
    uint64_t mask[LC_TOPO_CPU_WORDS] = {0};
    if (have_topo) {
        hwloc_bitmap_t cur = hwloc_bitmap_alloc();
        int got = cur != NULL && hwloc_get_cpubind(t, cur, HWLOC_CPUBIND_PROCESS) == 0;
        int bound = got && !hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(t), cur);
        lc_topo_bind_choice_t bc;
        lc_topo_choose_bind((lc_topo_bind_t)ctx->cfg.bind, bound,
                            hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE),
                            hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE), rec->machine_rank,
                            rec->machine_size, &bc);
        lc_bind(t, &bc, rec->bind_how, sizeof(rec->bind_how));
        if (cur != NULL && hwloc_get_cpubind(t, cur, HWLOC_CPUBIND_PROCESS) == 0) {
            hwloc_bitmap_list_snprintf(rec->binding, sizeof(rec->binding), cur);
            lc_where(t, cur, &where);
            for (int w = 0; w < LC_TOPO_CPU_WORDS; w++)
                mask[w] = hwloc_bitmap_to_ith_ulong(cur, (unsigned)w);
        }
        hwloc_bitmap_free(cur);
    } else {
        snprintf(rec->bind_how, sizeof(rec->bind_how), "not bound: hwloc could not load");
        lc_warn("topology: hwloc could not load the topology; not binding");
    }

    /* who shares my PUs, from every rank's CPU set after binding */
    st = lc_topo_share_setup(ctx, rec->ident.machine_hash, mask);
    if (st != LINCOLL_OK) {
        if (have_topo) hwloc_topology_destroy(t);
        return st;
    }

    /* 3. NIC */
    lc_topo_dev_t *devs = calloc(LC_TOPO_MAXDEV, sizeof(*devs));
    int ndev = devs != NULL ? lc_topo_probe_devices(have_topo ? t : NULL, devs, LC_TOPO_MAXDEV) : 0;
    int ngpu = 0, gpu = -1;
    for (int i = 0; i < ndev; i++)
        ngpu += devs[i].kind == LC_TOPO_DEV_GPU;
    for (int i = 0, g = 0; ngpu > 0 && i < ndev; i++) {
        if (devs[i].kind == LC_TOPO_DEV_GPU && g++ == host_rank % ngpu) gpu = i;
    }
    lc_topo_choose_nic(devs, ndev, &where, gpu, host_rank, &rec->nic);
    free(devs);
    if (have_topo) hwloc_topology_destroy(t);
    const char *user = getenv("UCX_NET_DEVICES");
    if (user != NULL && *user != '\0') {
        rec->nic.reason = "UCX_NET_DEVICES set in the environment (kept)";
        snprintf(rec->nic.net_devices, sizeof(rec->nic.net_devices), "%s", user);
    } else if (rec->nic.ndev > 0) {
        *nics_p = rec->nic.net_devices;
    }
    int ports_given = ctx->cfg.ports > 0 || (params != NULL && params->ports > 0);
    if (!ports_given) {
        ctx->ports = rec->nic.ports;
    }
    rec->ports = ctx->ports;
    rec->valid = 1;
    lc_info("topology: host %d of %d (%s), %s: pus %s; NET_DEVICES=%s (%s); ports %d%s",
            rec->host_of[me], rec->nhosts, rec->ident.host, rec->bind_how, rec->binding,
            rec->nic.net_devices[0] ? rec->nic.net_devices : "(UCX default)", rec->nic.reason,
            ctx->ports, ports_given ? " (given)" : " (from the NIC count)");
    return LINCOLL_OK;
}
