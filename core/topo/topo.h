/*
 * core/topo/topo.h: the machine, the host, the binding, the NIC, placement.
 *
 * Three layers:
 *   - pure functions over plain descriptions (no hwloc, no I/O): which CPU
 *     set to bind to, which NIC(s) to hand to UCX and how many ports follow
 *     from them, and rank orders that keep heavy exchanges on one host.
 *     Tests feed them synthetic machines (test/topo/).
 *   - probes (topo_probe.c): hwloc with I/O devices, libibverbs when built
 *     with LINCOLL_HAVE_VERBS, /sys/class/net, and the host identity
 *     (boot_id + hostname + network namespace).
 *   - lc_topo_setup(): the step of lincoll_init between the bootstrap and
 *     the transport.  It exchanges host identities, binds (LINCOLL_BIND),
 *     picks UCX_NET_DEVICES and the default port count, and keeps a
 *     process-wide record that lincoll_info -t and placement callers read.
 */
#ifndef LC_TOPO_H
#define LC_TOPO_H

#include <lincoll/status.h>
#include <stddef.h>
#include <stdint.h>

#include "core/context/context.h"

#define LC_TOPO_NAMELEN 64
#define LC_TOPO_HOSTLEN 160
#define LC_TOPO_MAXDEV  64

/* ---- devices (what the probes find, what the tests synthesize) ---------- */
typedef enum lc_topo_dev_kind {
    LC_TOPO_DEV_NET = 0, /* Ethernet-like netdev (eth0, enp1s0, veth-h1) */
    LC_TOPO_DEV_RDMA,    /* one port of an OpenFabrics device (mlx5_0 port 1) */
    LC_TOPO_DEV_GPU,     /* a GPU / coprocessor */
} lc_topo_dev_kind_t;

typedef struct lc_topo_dev {
    char name[LC_TOPO_NAMELEN]; /* "mlx5_0", "eth0", "cuda0" */
    lc_topo_dev_kind_t kind;
    int port;      /* RDMA: port number (1-based); others 0 */
    int active;    /* link up (RDMA port ACTIVE, netdev operstate up) */
    int virt;      /* netdev without a physical device (veth, bridge, lo) */
    int loopback;  /* lo */
    double gbps;   /* link speed in Gbit/s, 0 unknown */
    int numa;      /* NUMA node of the device, -1 unknown (or machine-wide) */
    int package;   /* package (socket) of the device, -1 unknown */
    int pci_group; /* PCI host bridge / switch id (GPU-NIC affinity), -1 unknown */
    char pus[128]; /* PU list near the device (text, for lincoll_info) */
} lc_topo_dev_t;

/* Where this process runs: the NUMA nodes and packages its binding touches. */
typedef struct lc_topo_where {
    uint64_t numa_mask; /* bit i = NUMA node i (nodes >= 64 not tracked) */
    uint64_t pkg_mask;  /* bit i = package i */
} lc_topo_where_t;

/* ---- NIC choice (pure) -------------------------------------------------- */
typedef struct lc_topo_nic_choice {
    char net_devices[512]; /* UCX_NET_DEVICES value, "" = leave UCX's default (shm+tcp) */
    int ndev;              /* devices in net_devices (0 when "") */
    int ports;             /* default LINCOLL_PORTS: ndev, at least 1 */
    int first;             /* index in devs[] of the first chosen device, -1 none */
    const char *reason;    /* one short phrase for the log and lincoll_info */
} lc_topo_nic_choice_t;

/*
 * Choose the NIC(s) for this rank.  Usable = an RDMA port that is active.
 * Nearness, best first: same PCI group as the rank's GPU (gpu >= 0 is an index
 * into devs[] of kind GPU), same NUMA node as the binding, same package,
 * anything.  Among the nearest tier the fastest links are kept and rotated by
 * local_rank so ranks sharing a tier spread over the NICs; net_devices lists
 * them in that order as "name:port" (UCX's spelling for RDMA).  Without a
 * usable RDMA port the choice is empty: UCX keeps its defaults (shared memory
 * within a host, tcp across hosts).
 */
void lc_topo_choose_nic(const lc_topo_dev_t *devs, int ndev, const lc_topo_where_t *where, int gpu,
                        int local_rank, lc_topo_nic_choice_t *out);

/* ---- binding choice (pure) --------------------------------------------- */
typedef enum {
    LC_TOPO_BIND_AUTO = 0,
    LC_TOPO_BIND_CORE,
    LC_TOPO_BIND_NUMA,
    LC_TOPO_BIND_NONE
} lc_topo_bind_t;

typedef enum lc_topo_bind_action {
    LC_TOPO_KEEP = 0, /* do nothing (none, launcher bound, oversubscribed auto) */
    LC_TOPO_TO_CORE,  /* bind to core `index` */
    LC_TOPO_TO_NUMA,  /* bind to NUMA node `index` */
} lc_topo_bind_action_t;

typedef struct lc_topo_bind_choice {
    lc_topo_bind_action_t action;
    int index;
    const char *reason;
} lc_topo_bind_choice_t;

/*
 * What to bind to.  local_rank/local_size count the ranks sharing this
 * machine's cores (same boot id, whatever the network namespace).  Cores
 * are spread NUMA node by NUMA node: core i of the machine for rank i when
 * the ranks fit, round-robin otherwise (explicit core/numa only; auto does
 * not bind an oversubscribed machine, like mpirun).  already_bound = the
 * launcher gave this process less than the whole machine: auto keeps it.
 */
void lc_topo_choose_bind(lc_topo_bind_t policy, int already_bound, int ncores, int nnuma,
                         int local_rank, int local_size, lc_topo_bind_choice_t *out);

/* ---- host identity and grouping ----------------------------------------- */
typedef struct lc_topo_ident {
    char host[LC_TOPO_HOSTLEN]; /* "hostname/boot-id-prefix/netns" */
    uint64_t host_hash;         /* hash of boot_id + hostname + netns inode */
    uint64_t machine_hash;      /* hash of boot_id: ranks sharing the same cores */
} lc_topo_ident_t;

/* This process's identity (never fails: missing pieces are left out). */
void lc_topo_ident_self(lc_topo_ident_t *id);

/*
 * Group n ranks by key: host_of[r] = index of r's group, numbered in order of
 * first appearance (rank 0's group is 0).  Returns the number of groups.
 */
int lc_topo_group(int n, const uint64_t *keys, int *host_of);

/* ---- placement (pure) ---------------------------------------------------- */
/* One weighted exchange between positions a and b (bytes, both directions). */
typedef struct lc_topo_edge {
    int a, b;
    double bytes;
} lc_topo_edge_t;

/*
 * The traffic of the RHD allreduce (docs/collectives.md, "RHD allreduce";
 * placement: docs/topology.md, "Placement") over p positions
 * for n bytes: the fold pairs (2i, 2i+1) for i < r (n each way), then the
 * distance-doubling butterfly on vranks (n/2^(j+1) each way at step j, once
 * in the reduce-scatter and once in the allgather).  *edges_p is malloc'd.
 */
lincoll_status_t lc_topo_rhd_edges(int p, double n, lc_topo_edge_t **edges_p, int *nedges_p);

/* Bytes crossing hosts when position i is held by world rank order[i]. */
double lc_topo_cross_bytes(const lc_topo_edge_t *edges, int nedges, const int *order,
                           const int *host_of);

/*
 * A rank order (order[position] = world rank) for p ranks on the hosts of
 * host_of[] that keeps RHD's folded pairs and first (largest) butterfly
 * exchanges on one host: ranks grouped by host (larger hosts first, which
 * aligns power-of-two host sizes with butterfly blocks), then improved by
 * pairwise swaps that lower the cross-host bytes of lc_topo_rhd_edges().
 * Never worse than the identity order under that measure.  Deterministic:
 * every rank computing it from the same host_of gets the same order.
 */
lincoll_status_t lc_topo_rhd_order(int p, const int *host_of, int *order);

/*
 * Grid placement for SUMMA/Cannon: a rows x cols process grid, row-major
 * (grid position i*cols + j holds world rank order[i*cols + j]), filled host
 * by host (larger hosts first) so that a host holding a multiple of cols
 * ranks holds whole grid rows.  Returns the number of grid rows split across
 * hosts in *split_rows_p (may be NULL).
 */
lincoll_status_t lc_topo_grid_order(int rows, int cols, const int *host_of, int *order,
                                    int *split_rows_p);

/* ---- the process record and the init step ------------------------------ */
typedef struct lc_topo_record {
    int valid;
    int rank, size;
    int nhosts;
    int *host_of;                   /* size entries: host index of each world rank */
    int machine_rank, machine_size; /* among ranks on the same machine (boot id) */
    lc_topo_ident_t ident;
    char binding[128]; /* PU list after setup */
    char bind_how[96]; /* what setup did and why */
    lc_topo_nic_choice_t nic;
    int ports; /* ports the context ended with */
} lc_topo_record_t;

/*
 * Between bootstrap and transport in lincoll_init: allgather host identities
 * over ctx->boot, bind per ctx->cfg.bind, pick the NIC; sets
 * *nics_p to the NICs chosen, in UCX_NET_DEVICES syntax (left alone when
 * UCX_NET_DEVICES is in the environment, which wins, or no NIC was found)
 * and ctx->ports when neither LINCOLL_PORTS nor params->ports chose it.
 * Failing to bind or to probe only logs; a failed allgather is an error.
 */
lincoll_status_t lc_topo_setup(lincoll_context_t *ctx, const lincoll_init_params_t *params,
                               const char **nics_p);

/* ---- ranks sharing processing units (topo_share.c) --------------------- */
/* PUs tracked per rank: os indices 0 .. 64 * LC_TOPO_CPU_WORDS - 1 */
#define LC_TOPO_CPU_WORDS 16

/*
 * Ranks per processing unit on the most crowded machine among the m world
 * ranks members[] (pure): on each machine (machine_of[r], below
 * nmachines_max), the members there divided by the PUs their CPU sets
 * (masks[r * LC_TOPO_CPU_WORDS ...]) cover together.  A machine whose CPU
 * sets are unknown (empty) counts 1.  Above 1.0: ranks take turns on a PU.
 */
double lc_topo_ranks_per_pu(int nmachines_max, const int *machine_of, const uint64_t *masks,
                            const int *members, int m);

/* Part of lc_topo_setup, after binding: allgather (machine, CPU set) and
 * set ctx->cpu_machine, cpu_masks, ranks_per_pu and oversubscribed. */
lincoll_status_t lc_topo_share_setup(lincoll_context_t *ctx, uint64_t machine_hash,
                                     const uint64_t *mask);
/* Frees what lc_topo_share_setup allocated (lincoll_finalize). */
void lc_topo_share_free(lincoll_context_t *ctx);

/*
 * The figure for a communicator: lc_topo_ranks_per_pu over its members,
 * the same value on every member (from the allgathered table; no
 * communication).  0 where there is no table (sim ranks).  The cost model
 * adds a handoff (a context switch) per dependent step when it is above 1;
 * lc_comm_oversubscribed() is that test.
 */
double lc_comm_ranks_per_pu(const lincoll_comm_t *comm);
int lc_comm_oversubscribed(const lincoll_comm_t *comm);

/* The record of the last lc_topo_setup() in this process, or NULL. */
const lc_topo_record_t *lc_topo_record(void);

/*
 * host_of[] for the world of ctx (size ctx->size): from the record when it
 * belongs to this context's job, else every rank on host 0.  Returns the
 * number of hosts.  Algorithms call it with lc_topo_rhd_order() or
 * lc_topo_grid_order().
 */
int lc_topo_world_hosts(const lincoll_context_t *ctx, int *host_of);

/* ---- probes (topo_probe.c) --------------------------------------------- */
/* Devices of this machine (hwloc + verbs + sysfs); returns the count. */
int lc_topo_probe_devices(void *hwloc_topology, lc_topo_dev_t *devs, int max);

#endif
