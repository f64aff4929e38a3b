/*
 * core/topo/topo_info.c: the machine as lincoll sees it, for lincoll_info -t.
 *
 * hwloc 2.x with I/O devices kept (they are dropped by default): cores, PUs,
 * NUMA nodes, network/OpenFabrics/GPU OS devices with the CPU set of their
 * nearest non-I/O ancestor, and the calling process's binding.
 */
#include <lincoll/info.h>

#include <hwloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/topo/topo.h"

typedef struct {
    char *buf;
    size_t len;
    size_t used;
} lc_text_t;

static void lc_text_add(lc_text_t *t, const char *fmt, ...)
{
    if (t->used >= t->len) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->used, t->len - t->used, fmt, ap);
    va_end(ap);
    if (n > 0) {
        t->used += (size_t)n < t->len - t->used ? (size_t)n : t->len - t->used - 1;
    }
}

static const char *const lc_kind_names[] = {"net", "rdma", "gpu"};

lincoll_status_t lincoll_info_topology(char *buf, size_t len)
{
    if (buf == NULL || len == 0) {
        lc_error("lincoll_info_topology: buf must not be NULL and len must be > 0");
        return LINCOLL_ERR_INVALID;
    }
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) {
        lc_error("hwloc_topology_init failed");
        return LINCOLL_ERR_IO;
    }
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(topo) != 0) {
        lc_error("hwloc_topology_load failed");
        hwloc_topology_destroy(topo);
        return LINCOLL_ERR_IO;
    }
    lc_text_t t = {buf, len, 0};
    buf[0] = '\0';
    lc_topo_ident_t id;
    lc_topo_ident_self(&id);
    lc_text_add(&t, "# topology (hwloc %s)\n", HWLOC_VERSION);
    lc_text_add(&t, "host:     %s\n", id.host);
    lc_text_add(&t, "packages: %d\ncores:    %d\npus:      %d\nnuma:     %d\n",
                hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE),
                hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE),
                hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU),
                hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE));
    char set[256] = "";
    lc_topo_where_t where = {~UINT64_C(0), ~UINT64_C(0)};
    hwloc_bitmap_t cur = hwloc_bitmap_alloc();
    if (cur != NULL && hwloc_get_cpubind(topo, cur, HWLOC_CPUBIND_PROCESS) == 0) {
        hwloc_bitmap_list_snprintf(set, sizeof(set), cur);
        int bound = !hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(topo), cur);
        lc_text_add(&t, "binding:  pus %s (%s)\n", set, bound ? "bound" : "unbound");
        where.numa_mask = where.pkg_mask = 0;
        for (int i = 0; i < hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE); i++) {
            hwloc_obj_t o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
            if (o->os_index < 64 && hwloc_bitmap_intersects(o->cpuset, cur))
                where.numa_mask |= UINT64_C(1) << o->os_index;
        }
        for (int i = 0; i < hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE) && i < 64; i++) {
            hwloc_obj_t o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, (unsigned)i);
            if (hwloc_bitmap_intersects(o->cpuset, cur)) where.pkg_mask |= UINT64_C(1) << i;
        }
    }
    lc_topo_dev_t *devs = calloc(LC_TOPO_MAXDEV, sizeof(*devs));
    int ndev = devs != NULL ? lc_topo_probe_devices(topo, devs, LC_TOPO_MAXDEV) : 0;
    int shown = 0;
    for (int i = 0; i < ndev; i++) {
        const lc_topo_dev_t *d = &devs[i];
        if (d->kind == LC_TOPO_DEV_NET && d->loopback) continue;
        char name[LC_TOPO_NAMELEN + 8], speed[32] = "speed ?", loc[64] = "";
        if (d->kind == LC_TOPO_DEV_RDMA) {
            snprintf(name, sizeof(name), "%s:%d", d->name, d->port);
        } else {
            snprintf(name, sizeof(name), "%s", d->name);
        }
        if (d->gbps > 0) snprintf(speed, sizeof(speed), "%g Gb/s", d->gbps);
        if (d->numa >= 0) snprintf(loc, sizeof(loc), " numa %d", d->numa);
        if (d->package >= 0)
            snprintf(loc + strlen(loc), sizeof(loc) - strlen(loc), " package %d", d->package);
        lc_text_add(&t, "device:   %-4s %-14s %-6s %-10s %s%s near pus %s\n",
                    lc_kind_names[d->kind], name,
                    d->kind == LC_TOPO_DEV_GPU ? "-" : (d->active ? "up" : "down"),
                    d->kind == LC_TOPO_DEV_GPU ? "" : speed,
                    d->kind != LC_TOPO_DEV_NET ? "pci" : (d->virt ? "virtual" : "physical"), loc,
                    d->pus[0] ? d->pus : "?");
        shown++;
    }
    if (shown == 0) {
        lc_text_add(&t, "device:   none (no network, RDMA or GPU device found)\n");
    }
    const lc_topo_record_t *rec = lc_topo_record();
    lc_topo_nic_choice_t nic;
    if (rec != NULL) {
        nic = rec->nic;
    } else {
        lc_topo_choose_nic(devs, ndev, &where, -1, 0, &nic);
    }
    const char *user = getenv("UCX_NET_DEVICES");
    if (rec == NULL && user != NULL && *user != '\0') {
        snprintf(nic.net_devices, sizeof(nic.net_devices), "%s", user);
        nic.reason = "UCX_NET_DEVICES set in the environment (kept)";
    }
    lc_text_add(&t, "nic:      %s (%s)\n", nic.net_devices[0] ? nic.net_devices : "UCX default",
                nic.reason);
    lc_text_add(&t, "ports:    %d (%s)\n", rec != NULL ? rec->ports : nic.ports,
                rec != NULL ? "this context" : "default from the NIC count");
    if (rec != NULL) {
        lc_text_add(&t,
                    "rank:     %d/%d host %d/%d %s machine-local %d/%d binding pus %s (%s) "
                    "nic %s ports %d\n",
                    rec->rank, rec->size, rec->host_of[rec->rank], rec->nhosts, rec->ident.host,
                    rec->machine_rank, rec->machine_size, rec->binding, rec->bind_how,
                    rec->nic.net_devices[0] ? rec->nic.net_devices : "default", rec->ports);
    }
    free(devs);
    hwloc_bitmap_free(cur);
    hwloc_topology_destroy(topo);
    return LINCOLL_OK;
}
