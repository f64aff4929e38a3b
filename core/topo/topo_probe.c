/*
 * core/topo/topo_probe.c: what this machine has — NICs (hwloc OpenFabrics
 * and network OS devices, libibverbs ports, /sys/class/net), GPUs (hwloc),
 * their locality — and who this host is.
 *
 * Host identity = boot_id + hostname + network namespace: two containers or
 * network namespaces on one kernel are two hosts for traffic (their own
 * interfaces), while the boot id alone says which ranks share the cores.
 */
#include "core/topo/topo.h"

#include <dirent.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef LINCOLL_HAVE_VERBS
#include <infiniband/verbs.h>
#endif

#include "core/base/log.h"

static uint64_t lc_fnv(uint64_t h, const char *s)
{
    for (; s != NULL && *s; s++) {
        h ^= (unsigned char)*s;
        h *= UINT64_C(1099511628211);
    }
    return h;
}

static int lc_read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        buf[0] = '\0';
        return -1;
    }
    if (fgets(buf, (int)len, f) == NULL) {
        buf[0] = '\0';
    }
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return buf[0] ? 0 : -1;
}

void lc_topo_ident_self(lc_topo_ident_t *id)
{
    char boot[64], host[64] = "", ns[64] = "";
    lc_read_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
    if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
    host[sizeof(host) - 1] = '\0';
    ssize_t n = readlink("/proc/self/ns/net", ns, sizeof(ns) - 1);
    ns[n > 0 ? n : 0] = '\0';
    const uint64_t basis = UINT64_C(14695981039346656037);
    id->machine_hash = lc_fnv(basis, boot);
    id->host_hash = lc_fnv(lc_fnv(lc_fnv(basis, boot), "|"), host);
    id->host_hash = lc_fnv(lc_fnv(id->host_hash, "|"), ns);
    /* "net:[4026531833]" -> "4026531833" */
    char *digits = strchr(ns, '[');
    if (digits != NULL) {
        digits++;
        digits[strcspn(digits, "]")] = '\0';
    }
    snprintf(id->host, sizeof(id->host), "%s/boot:%.8s/netns:%s", host[0] ? host : "?",
             boot[0] ? boot : "?", digits != NULL ? digits : (ns[0] ? ns : "?"));
}

/* ---- hwloc locality of an I/O object ------------------------------------ */
static void lc_locality(hwloc_topology_t t, hwloc_obj_t o, lc_topo_dev_t *d)
{
    d->numa = d->package = d->pci_group = -1;
    d->pus[0] = '\0';
    if (o == NULL) return;
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t, o);
    if (anc != NULL && anc->cpuset != NULL) {
        hwloc_bitmap_list_snprintf(d->pus, sizeof(d->pus), anc->cpuset);
        if (anc->nodeset != NULL && hwloc_bitmap_weight(anc->nodeset) == 1 &&
            hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE) > 1) {
            d->numa = hwloc_bitmap_first(anc->nodeset);
        }
        hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, anc);
        if (pkg == NULL && anc->type == HWLOC_OBJ_PACKAGE) pkg = anc;
        if (pkg != NULL && hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE) > 1) {
            d->package = (int)pkg->logical_index;
        }
    }
    /* the outermost I/O ancestor (host bridge) names the PCI group */
    hwloc_obj_t io = o;
    while (io->parent != NULL && hwloc_obj_type_is_io(io->parent->type))
        io = io->parent;
    if (io != o) d->pci_group = (int)io->gp_index;
}

static hwloc_obj_t lc_find_osdev(hwloc_topology_t t, const char *name)
{
    for (hwloc_obj_t o = hwloc_get_next_osdev(t, NULL); o != NULL; o = hwloc_get_next_osdev(t, o)) {
        if (o->name != NULL && strcmp(o->name, name) == 0) return o;
    }
    return NULL;
}

static lc_topo_dev_t *lc_add(lc_topo_dev_t *devs, int *n, int max)
{
    if (*n >= max) return NULL;
    lc_topo_dev_t *d = &devs[(*n)++];
    memset(d, 0, sizeof(*d));
    d->numa = d->package = d->pci_group = -1;
    return d;
}

#ifdef LINCOLL_HAVE_VERBS
static double lc_ib_gbps(const struct ibv_port_attr *a)
{
    double lane;
    switch (a->active_speed) {
    case 1:
        lane = 2.5;
        break;
    case 2:
        lane = 5;
        break;
    case 4:
    case 8:
        lane = 10;
        break;
    case 16:
        lane = 14;
        break;
    case 32:
        lane = 25;
        break;
    case 64:
        lane = 50;
        break;
    case 128:
        lane = 100;
        break;
    default:
        lane = 0;
    }
    int w;
    switch (a->active_width) {
    case 1:
        w = 1;
        break;
    case 2:
        w = 4;
        break;
    case 4:
        w = 8;
        break;
    case 8:
        w = 12;
        break;
    case 16:
        w = 2;
        break;
    default:
        w = 0;
    }
    return lane * w;
}

static void lc_probe_verbs(hwloc_topology_t t, lc_topo_dev_t *devs, int *n, int max)
{
    int nd = 0;
    struct ibv_device **list = ibv_get_device_list(&nd);
    if (list == NULL) return;
    for (int i = 0; i < nd; i++) {
        const char *name = ibv_get_device_name(list[i]);
        struct ibv_context *c = ibv_open_device(list[i]);
        if (c == NULL || name == NULL) {
            continue;
        }
        struct ibv_device_attr da;
        if (ibv_query_device(c, &da) == 0) {
            for (int p = 1; p <= da.phys_port_cnt; p++) {
                struct ibv_port_attr pa;
                if (ibv_query_port(c, (uint8_t)p, &pa) != 0) continue;
                lc_topo_dev_t *d = lc_add(devs, n, max);
                if (d == NULL) break;
                snprintf(d->name, sizeof(d->name), "%.63s", name);
                d->kind = LC_TOPO_DEV_RDMA;
                d->port = p;
                d->active = pa.state == IBV_PORT_ACTIVE;
                d->gbps = lc_ib_gbps(&pa);
                lc_locality(t, t != NULL ? lc_find_osdev(t, name) : NULL, d);
            }
        }
        ibv_close_device(c);
    }
    ibv_free_device_list(list);
}
#else
/* Without libibverbs: /sys/class/infiniband/<dev>/ports/<p>/state ("4: ACTIVE"). */
static void lc_probe_verbs(hwloc_topology_t t, lc_topo_dev_t *devs, int *n, int max)
{
    DIR *dir = opendir("/sys/class/infiniband");
    if (dir == NULL) return;
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        if (de->d_name[0] == '.') continue;
        for (int p = 1; p <= 8; p++) {
            char path[512], line[64];
            snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/state", de->d_name, p);
            if (lc_read_line(path, line, sizeof(line)) != 0) break;
            lc_topo_dev_t *d = lc_add(devs, n, max);
            if (d == NULL) break;
            snprintf(d->name, sizeof(d->name), "%.63s", de->d_name);
            d->kind = LC_TOPO_DEV_RDMA;
            d->port = p;
            d->active = strstr(line, "ACTIVE") != NULL;
            snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/rate", de->d_name, p);
            if (lc_read_line(path, line, sizeof(line)) == 0) d->gbps = atof(line);
            lc_locality(t, t != NULL ? lc_find_osdev(t, de->d_name) : NULL, d);
        }
    }
    closedir(dir);
}
#endif

/* Network interfaces of this network namespace (sysfs follows the netns of
 * `ip netns exec`, which remounts /sys). */
static void lc_probe_netdevs(hwloc_topology_t t, lc_topo_dev_t *devs, int *n, int max)
{
    DIR *dir = opendir("/sys/class/net");
    if (dir == NULL) return;
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        if (de->d_name[0] == '.') continue;
        char path[512], line[64];
        lc_topo_dev_t *d = lc_add(devs, n, max);
        if (d == NULL) break;
        snprintf(d->name, sizeof(d->name), "%.63s", de->d_name);
        d->kind = LC_TOPO_DEV_NET;
        snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", de->d_name);
        lc_read_line(path, line, sizeof(line));
        d->loopback = strcmp(de->d_name, "lo") == 0;
        d->active = strcmp(line, "up") == 0 || (d->loopback && strcmp(line, "unknown") == 0);
        snprintf(path, sizeof(path), "/sys/class/net/%s/device", de->d_name);
        d->virt = access(path, F_OK) != 0;
        snprintf(path, sizeof(path), "/sys/class/net/%s/speed", de->d_name);
        if (lc_read_line(path, line, sizeof(line)) == 0 && atof(line) > 0) {
            d->gbps = atof(line) / 1000.0;
        }
        lc_locality(t, t != NULL ? lc_find_osdev(t, de->d_name) : NULL, d);
    }
    closedir(dir);
}

int lc_topo_probe_devices(void *hwloc_topology, lc_topo_dev_t *devs, int max)
{
    hwloc_topology_t t = hwloc_topology;
    int n = 0;
    lc_probe_verbs(t, devs, &n, max);
    lc_probe_netdevs(t, devs, &n, max);
    for (hwloc_obj_t o = t != NULL ? hwloc_get_next_osdev(t, NULL) : NULL; o != NULL;
         o = hwloc_get_next_osdev(t, o)) {
        if (o->attr->osdev.type != HWLOC_OBJ_OSDEV_GPU &&
            o->attr->osdev.type != HWLOC_OBJ_OSDEV_COPROC) {
            continue;
        }
        lc_topo_dev_t *d = lc_add(devs, &n, max);
        if (d == NULL) break;
        snprintf(d->name, sizeof(d->name), "%.63s", o->name ? o->name : "gpu?");
        d->kind = LC_TOPO_DEV_GPU;
        d->active = 1;
        lc_locality(t, o, d);
    }
    return n;
}
