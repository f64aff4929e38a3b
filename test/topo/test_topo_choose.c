/*
 * test/topo/test_topo_choose.c: the pure decisions of core/topo over
 * synthetic machines — NIC choice (multi-NUMA, two NICs on different
 * sockets, GPU-NIC affinity, inactive and slow ports, no RDMA at all),
 * binding choice, host grouping, and the host identity of this process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/topo/topo.h"

static lc_topo_dev_t rdma(const char *name, int port, int active, double gbps, int numa, int pkg,
                          int pci)
{
    lc_topo_dev_t d;
    memset(&d, 0, sizeof(d));
    snprintf(d.name, sizeof(d.name), "%s", name);
    d.kind = LC_TOPO_DEV_RDMA;
    d.port = port;
    d.active = active;
    d.gbps = gbps;
    d.numa = numa;
    d.package = pkg;
    d.pci_group = pci;
    return d;
}

static lc_topo_dev_t dev(lc_topo_dev_kind_t kind, const char *name, int numa, int pkg, int pci)
{
    lc_topo_dev_t d = rdma(name, 0, 1, 0, numa, pkg, pci);
    d.kind = kind;
    return d;
}

static const lc_topo_where_t numa0 = {1, 1}, numa1 = {2, 1}, numa2 = {4, 2}, numa3 = {8, 2};

static void test_no_rdma(void **state)
{
    (void)state;
    lc_topo_nic_choice_t c;
    lc_topo_choose_nic(NULL, 0, &numa0, -1, 0, &c);
    assert_string_equal(c.net_devices, "");
    assert_int_equal(c.ndev, 0);
    assert_int_equal(c.ports, 1);
    assert_int_equal(c.first, -1);
    assert_non_null(strstr(c.reason, "shared memory + tcp"));
    /* Ethernet only (and an RDMA port that is down): still UCX's defaults */
    lc_topo_dev_t d[3] = {dev(LC_TOPO_DEV_NET, "eth0", 0, 0, 1),
                          dev(LC_TOPO_DEV_NET, "lo", -1, -1, -1),
                          rdma("mlx5_0", 1, 0, 100, 0, 0, 2)};
    lc_topo_choose_nic(d, 3, &numa0, -1, 3, &c);
    assert_string_equal(c.net_devices, "");
    assert_int_equal(c.ports, 1);
}

/* 2 sockets x 2 NUMA nodes, mlx5_0 on NUMA 0 (socket 0), mlx5_1 on NUMA 2 (socket 1). */
static void test_two_sockets(void **state)
{
    (void)state;
    lc_topo_dev_t d[3] = {rdma("mlx5_0", 1, 1, 100, 0, 0, 10),
                          dev(LC_TOPO_DEV_NET, "eth0", 0, 0, 10),
                          rdma("mlx5_1", 1, 1, 100, 2, 1, 20)};
    lc_topo_nic_choice_t c;
    lc_topo_choose_nic(d, 3, &numa0, -1, 0, &c);
    assert_string_equal(c.net_devices, "mlx5_0:1");
    assert_int_equal(c.ports, 1);
    assert_non_null(strstr(c.reason, "NUMA"));
    lc_topo_choose_nic(d, 3, &numa2, -1, 0, &c);
    assert_string_equal(c.net_devices, "mlx5_1:1");
    /* NUMA 1 has no NIC: the one on the same socket (NUMA 0's) */
    lc_topo_choose_nic(d, 3, &numa1, -1, 5, &c);
    assert_string_equal(c.net_devices, "mlx5_0:1");
    assert_non_null(strstr(c.reason, "package"));
    lc_topo_choose_nic(d, 3, &numa3, -1, 5, &c);
    assert_string_equal(c.net_devices, "mlx5_1:1");
    /* unbound (whole machine): both are local; rotated by local rank, ports 2 */
    lc_topo_where_t all = {0xf, 3};
    lc_topo_choose_nic(d, 3, &all, -1, 0, &c);
    assert_string_equal(c.net_devices, "mlx5_0:1,mlx5_1:1");
    assert_int_equal(c.ports, 2);
    lc_topo_choose_nic(d, 3, &all, -1, 1, &c);
    assert_string_equal(c.net_devices, "mlx5_1:1,mlx5_0:1");
    assert_int_equal(c.first, 2);
    /* NULL where = anywhere */
    lc_topo_choose_nic(d, 3, NULL, -1, 0, &c);
    assert_int_equal(c.ndev, 2);
}

/* Ports of one device, an inactive port, a slower NIC on the same node. */
static void test_ports_speed(void **state)
{
    (void)state;
    lc_topo_dev_t d[4] = {rdma("mlx5_0", 1, 1, 200, 0, 0, 1), rdma("mlx5_0", 2, 1, 200, 0, 0, 1),
                          rdma("mlx5_1", 1, 0, 200, 0, 0, 1), rdma("bnxt_re0", 1, 1, 25, 0, 0, 2)};
    lc_topo_nic_choice_t c;
    lc_topo_choose_nic(d, 4, &numa0, -1, 0, &c);
    assert_string_equal(c.net_devices, "mlx5_0:1,mlx5_0:2");
    assert_int_equal(c.ports, 2);
    lc_topo_choose_nic(d, 4, &numa0, -1, 3, &c);
    assert_string_equal(c.net_devices, "mlx5_0:2,mlx5_0:1");
    /* only the slow one active */
    d[0].active = d[1].active = 0;
    lc_topo_choose_nic(d, 4, &numa0, -1, 0, &c);
    assert_string_equal(c.net_devices, "bnxt_re0:1");
    assert_int_equal(c.ports, 1);
}

/* GPU-NIC affinity: the GPU's PCI switch wins over the binding's NUMA node. */
static void test_gpu_affinity(void **state)
{
    (void)state;
    lc_topo_dev_t d[5] = {rdma("mlx5_0", 1, 1, 100, 0, 0, 10), rdma("mlx5_1", 1, 1, 100, 0, 0, 11),
                          rdma("mlx5_2", 1, 1, 100, 1, 1, 20),
                          dev(LC_TOPO_DEV_GPU, "cuda0", 0, 0, 11),
                          dev(LC_TOPO_DEV_GPU, "cuda1", 1, 1, 21)};
    lc_topo_nic_choice_t c;
    lc_topo_choose_nic(d, 5, &numa0, 3, 0, &c);
    assert_string_equal(c.net_devices, "mlx5_1:1");
    assert_non_null(strstr(c.reason, "GPU"));
    /* cuda1 shares no switch with a NIC: the NIC on its NUMA node, even
     * though the rank is bound to NUMA 0 */
    lc_topo_choose_nic(d, 5, &numa0, 4, 0, &c);
    assert_string_equal(c.net_devices, "mlx5_2:1");
    /* an index that is not a GPU is ignored */
    lc_topo_choose_nic(d, 5, &numa0, 0, 0, &c);
    assert_string_equal(c.net_devices, "mlx5_0:1,mlx5_1:1");
}

/* Devices whose locality is unknown (single-socket machines): all equal. */
static void test_unknown_locality(void **state)
{
    (void)state;
    lc_topo_dev_t d[2] = {rdma("rxe0", 1, 1, 10, -1, -1, -1), rdma("rxe1", 1, 1, 10, -1, -1, -1)};
    lc_topo_nic_choice_t c;
    lc_topo_choose_nic(d, 2, &numa0, -1, 1, &c);
    assert_string_equal(c.net_devices, "rxe1:1,rxe0:1");
    assert_int_equal(c.ports, 2);
}

static void test_bind(void **state)
{
    (void)state;
    lc_topo_bind_choice_t b;
    lc_topo_choose_bind(LC_TOPO_BIND_AUTO, 0, 8, 2, 3, 4, &b);
    assert_int_equal(b.action, LC_TOPO_TO_CORE);
    assert_int_equal(b.index, 3);
    lc_topo_choose_bind(LC_TOPO_BIND_AUTO, 1, 8, 2, 3, 4, &b); /* launcher bound it */
    assert_int_equal(b.action, LC_TOPO_KEEP);
    assert_non_null(strstr(b.reason, "launcher"));
    lc_topo_choose_bind(LC_TOPO_BIND_AUTO, 0, 2, 1, 3, 4, &b); /* oversubscribed */
    assert_int_equal(b.action, LC_TOPO_KEEP);
    lc_topo_choose_bind(LC_TOPO_BIND_CORE, 1, 2, 1, 3, 4, &b); /* explicit: round robin */
    assert_int_equal(b.action, LC_TOPO_TO_CORE);
    assert_int_equal(b.index, 1);
    /* numa: blocks of local ranks, 8 ranks on 4 nodes -> 0 0 1 1 2 2 3 3 */
    int want[8] = {0, 0, 1, 1, 2, 2, 3, 3};
    for (int r = 0; r < 8; r++) {
        lc_topo_choose_bind(LC_TOPO_BIND_NUMA, 0, 64, 4, r, 8, &b);
        assert_int_equal(b.action, LC_TOPO_TO_NUMA);
        assert_int_equal(b.index, want[r]);
    }
    lc_topo_choose_bind(LC_TOPO_BIND_NUMA, 0, 64, 4, 1, 2, &b); /* fewer ranks than nodes */
    assert_int_equal(b.index, 1);
    lc_topo_choose_bind(LC_TOPO_BIND_NONE, 0, 8, 2, 0, 1, &b);
    assert_int_equal(b.action, LC_TOPO_KEEP);
    lc_topo_choose_bind(LC_TOPO_BIND_CORE, 0, 0, 0, 0, 1, &b);
    assert_int_equal(b.action, LC_TOPO_KEEP);
}

static void test_group_ident(void **state)
{
    (void)state;
    uint64_t keys[7] = {7, 9, 7, 3, 9, 3, 3};
    int host_of[7];
    assert_int_equal(lc_topo_group(7, keys, host_of), 3);
    int want[7] = {0, 1, 0, 2, 1, 2, 2};
    assert_memory_equal(host_of, want, sizeof(want));
    lc_topo_ident_t a, b;
    lc_topo_ident_self(&a);
    lc_topo_ident_self(&b);
    assert_true(a.host_hash == b.host_hash && a.machine_hash == b.machine_hash);
    assert_true(a.host_hash != a.machine_hash);
    assert_non_null(strstr(a.host, "/boot:"));
    assert_non_null(strstr(a.host, "/netns:"));
}

/* ranks per PU: the union of the CPU sets on each machine, the worst machine */
static void test_ranks_per_pu(void **state)
{
    (void)state;
    enum { W = LC_TOPO_CPU_WORDS };
    uint64_t m[6 * W];
    memset(m, 0, sizeof(m));
    int machine[6] = {0, 0, 0, 0, 1, 1};
    int all[6] = {0, 1, 2, 3, 4, 5};
    /* machine 0: 4 unbound ranks on 2 PUs; machine 1: 2 ranks on PUs 0 and 1 */
    for (int r = 0; r < 4; r++)
        m[r * W] = 0x3;
    m[4 * W] = 0x1;
    m[5 * W] = 0x2;
    assert_true(lc_topo_ranks_per_pu(2, machine, m, all, 6) == 2.0);
    /* a communicator of machine 1 alone: a PU each */
    assert_true(lc_topo_ranks_per_pu(2, machine, m, all + 4, 2) == 1.0);
    /* 2 of machine 0's ranks and both of machine 1's: 2 ranks on 2 PUs, 1 on 1 */
    int some[4] = {0, 3, 4, 5};
    assert_true(lc_topo_ranks_per_pu(2, machine, m, some, 4) == 1.0);
    /* machine 0 pinned to PU 0 (taskset -c 0): 4 per PU */
    for (int r = 0; r < 4; r++)
        m[r * W] = 0x1;
    assert_true(lc_topo_ranks_per_pu(2, machine, m, all, 6) == 4.0);
    /* 4 ranks bound to 4 distinct cores, one of them above PU 63 */
    m[0] = 0x1, m[1 * W] = 0x2, m[2 * W] = 0x4, m[3 * W + 1] = 0x1, m[3 * W] = 0;
    assert_true(lc_topo_ranks_per_pu(2, machine, m, all, 4) == 1.0);
    /* unknown CPU sets (empty) make no claim */
    memset(m, 0, sizeof(m));
    assert_true(lc_topo_ranks_per_pu(2, machine, m, all, 6) == 1.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_rdma),          cmocka_unit_test(test_two_sockets),
        cmocka_unit_test(test_ports_speed),      cmocka_unit_test(test_gpu_affinity),
        cmocka_unit_test(test_unknown_locality), cmocka_unit_test(test_bind),
        cmocka_unit_test(test_group_ident),      cmocka_unit_test(test_ranks_per_pu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
