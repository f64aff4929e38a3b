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

#include "core/base/log.h"

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

static const char *lc_osdev_kind(hwloc_obj_osdev_type_t type)
{
    switch (type) {
    case HWLOC_OBJ_OSDEV_NETWORK: return "net";
    case HWLOC_OBJ_OSDEV_OPENFABRICS: return "rdma";
    case HWLOC_OBJ_OSDEV_GPU: return "gpu";
    case HWLOC_OBJ_OSDEV_COPROC: return "coproc";
    default: return NULL;
    }
}

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
    lc_text_add(&t, "# topology (hwloc %s)\n", HWLOC_VERSION);
    lc_text_add(&t, "packages: %d\ncores:    %d\npus:      %d\nnuma:     %d\n",
                hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE),
                hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE),
                hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU),
                hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE));
    char set[256];
    hwloc_bitmap_t cur = hwloc_bitmap_alloc();
    if (cur != NULL && hwloc_get_cpubind(topo, cur, HWLOC_CPUBIND_PROCESS) == 0) {
        hwloc_bitmap_list_snprintf(set, sizeof(set), cur);
        int bound = !hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(topo), cur);
        lc_text_add(&t, "binding:  pus %s (%s)\n", set, bound ? "bound" : "unbound");
    }
    int ndev = 0;
    for (hwloc_obj_t o = hwloc_get_next_osdev(topo, NULL); o != NULL;
         o = hwloc_get_next_osdev(topo, o)) {
        const char *kind = lc_osdev_kind(o->attr->osdev.type);
        if (kind == NULL) {
            continue;
        }
        hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, o);
        set[0] = '\0';
        if (anc != NULL && anc->cpuset != NULL) {
            hwloc_bitmap_list_snprintf(set, sizeof(set), anc->cpuset);
        }
        int near = (cur != NULL && anc != NULL && anc->cpuset != NULL &&
                    hwloc_bitmap_intersects(anc->cpuset, cur));
        lc_text_add(&t, "device:   %-5s %-12s near pus %s%s\n", kind, o->name ? o->name : "?",
                    set, near ? " (local to this process)" : "");
        ndev++;
    }
    if (ndev == 0) {
        lc_text_add(&t, "device:   none (no network, RDMA or GPU device found)\n");
    }
    hwloc_bitmap_free(cur);
    hwloc_topology_destroy(topo);
    return LINCOLL_OK;
}
