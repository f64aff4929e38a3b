/*
 * transports/ucx/config.c: the ucx transport's configuration (internal.h
 * lists its files): the LINCOLL_UCX_* rows, which core's configuration table
 * nests and parses into lc_tl_ucx_settings_t, and the UCX variables the
 * transport sets for UCX, with their conditions.  lincoll_info -c prints
 * both.
 */
#include "api.h"

#include <stdlib.h>
#include <string.h>

/* ---- LINCOLL_UCX_* rows ------------------------------------------------- */

static const lc_tl_config_row_t lc_tl_ucx_rows[LC_TL_UCX_CONFIG_NROWS] = {
    [LC_TL_UCX_CONFIG_ERR_MODE] = LC_TL_CONFIG_ROW(
        UCX_ERR_MODE, LC_TL_CONFIG_ENUM, "peer", "peer|none", lc_tl_ucx_settings_t, err_mode,
        "UCX endpoint error handling: peer turns a dead peer into an error (shared memory "
        "stays on through UCX_MM_ERROR_HANDLING=y); none is UCX's default"),
    [LC_TL_UCX_CONFIG_LANES] = LC_TL_CONFIG_ROW(
        UCX_LANES, LC_TL_CONFIG_STRING, "", "comma-separated network devices", lc_tl_ucx_settings_t,
        lanes,
        "one lane per listed device (e.g. emu0,emu1 or mlx5_0:1,mlx5_1:1): each lane is a UCX "
        "context and worker of its own restricted to that device (NET_DEVICES), and the p "
        "sends and receives of a round travel on lanes by their port index, so p ports are p "
        "links.  Empty: one lane, the devices UCX_NET_DEVICES or the topology choose.  Every "
        "rank should list the same number of lanes (a pair uses the lanes both have)"),
};

const lc_tl_config_t lc_tl_ucx_config = {
    .transport = "ucx",
    .rows = lc_tl_ucx_rows,
    .n_rows = LC_TL_UCX_CONFIG_NROWS,
};

/* ---- UCX variables the transport sets ----------------------------------- */

/* Each is set only when the environment does not set it (a user's value
 * wins), and only under its condition, in this order. */
static const lc_tl_ucx_var_row_t lc_tl_ucx_vars[] = {
    {"UCX_MM_ERROR_HANDLING", "y", LC_TL_UCX_WHEN_ERR_PEER | LC_TL_UCX_WHEN_SHM, 1,
     "keeps posix/sysv shared memory under endpoint error handling (UCX 1.13 drops it "
     "otherwise); set with LINCOLL_UCX_ERR_MODE=peer when UCX_TLS is unset or names shared "
     "memory (mm, sm, posix, sysv, all)"},
    {"UCX_TLS", "^posix", LC_TL_UCX_WHEN_ALWAYS, 1,
     "shared memory through sysv only: with the RMA and AMO features UCX 1.13 gives every "
     "endpoint lanes on both sysv and posix, and each ucp_worker_progress then polls a second, "
     "always empty receive FIFO (~50 instructions, ~5 ns per 8-byte message); "
     "lincoll_mem_alloc memory is sysv first anyway (UCX_ALLOC_PRIO)"},
    {"UCX_KEEPALIVE_INTERVAL", "inf", LC_TL_UCX_WHEN_ERR_PEER, 1,
     "with error handling UCX's keepalive reads the clock in every ucp_worker_progress (5-10 "
     "ns per 8-byte ping-pong) to find a dead shared-memory peer after 20-40 s; the "
     "executor's no-progress timeout (LINCOLL_TIMEOUT) and the /proc liveness check already "
     "end such waits, and tcp reports a dead peer through its socket.  Set with "
     "LINCOLL_UCX_ERR_MODE=peer"},
    {"UCX_TCP_TX_SEG_SIZE", "256k", LC_TL_UCX_WHEN_ALWAYS, 1,
     "tcp moves large messages as fragments of one segment each (8 KiB by default in UCX "
     "1.13); 256 KiB segments carry a 4 MiB tag message at 6.5-7.3 GB/s over loopback against "
     "3.8-4.4 GB/s, small-message latency unchanged, resident memory within 0.5 MiB"},
    {"UCX_TCP_RX_SEG_SIZE", "256k", LC_TL_UCX_WHEN_ALWAYS, 1,
     "the receive side of UCX_TCP_TX_SEG_SIZE"},
    {"UCX_NET_DEVICES", NULL, LC_TL_UCX_WHEN_ALWAYS, 0,
     "the NIC(s) nearest to each rank, chosen at lincoll_init by the topology (lincoll_info -t "
     "shows the choice); left to UCX when the topology finds none"},
    {"UCX_MAX_EAGER_LANES", "2", LC_TL_UCX_WHEN_ERR_PEER | LC_TL_UCX_WHEN_NO_SHM, 0,
     "with error handling UCX 1.13 selects no rendezvous RMA lanes on tcp, so large messages "
     "travel as active-message fragments on one lane; two active-message bandwidth lanes win "
     "back most of it (+25-40% at 4 MiB over loopback).  Set with LINCOLL_UCX_ERR_MODE=peer "
     "when UCX_TLS excludes shared memory (else UCX would add a tcp lane to local peers)"},
    {"UCX_RNDV_THRESH", "inf", LC_TL_UCX_WHEN_NO_SHM, 0,
     "over tcp a rendezvous waits for the receiver's reply (RTR), which queues behind the "
     "receiver's own outgoing data on the same connection: two ranks that send each other "
     "large messages at once take turns, at half the link rate each way (4 MiB between two "
     "hosts at 100 Mbit/s: 0.52-0.71 s against 0.36 s eager); eager fragments flow both ways at "
     "once.  Set when UCX_TLS excludes shared memory (with shared memory in the job, rendezvous "
     "keeps same-host messages single-copy; set UCX_RNDV_THRESH=inf yourself for full-duplex "
     "tcp exchanges there)"},
};
_Static_assert(sizeof(lc_tl_ucx_vars) / sizeof(lc_tl_ucx_vars[0]) <= LC_TL_UCX_MAX_VARS,
               "lc_tl_ucx_params_t.vars holds every variable");

const lc_tl_ucx_var_row_t *lc_tl_ucx_var_table(size_t *count_p)
{
    *count_p = sizeof(lc_tl_ucx_vars) / sizeof(lc_tl_ucx_vars[0]);
    return lc_tl_ucx_vars;
}

int lc_tl_ucx_var_applies(const lc_tl_ucx_var_row_t *v, const lc_tl_ucx_settings_t *s)
{
    const char *tls = getenv("UCX_TLS");
    int shm = tls == NULL || strstr(tls, "mm") || strstr(tls, "sm") || strstr(tls, "posix") ||
              strstr(tls, "sysv") || strstr(tls, "all");
    if ((v->when & LC_TL_UCX_WHEN_ERR_PEER) && s->err_mode != LC_TL_UCX_ERR_PEER) return 0;
    if ((v->when & LC_TL_UCX_WHEN_SHM) && !shm) return 0;
    if ((v->when & LC_TL_UCX_WHEN_NO_SHM) && shm) return 0;
    return 1;
}

/* ---- parameters from the settings --------------------------------------- */

void lc_tl_ucx_params_set(lc_tl_ucx_params_t *up, const lc_tl_ucx_settings_t *s)
{
    size_t n;
    const lc_tl_ucx_var_row_t *t = lc_tl_ucx_var_table(&n);
    up->err_mode_peer = s->err_mode == LC_TL_UCX_ERR_PEER;
    up->lanes = s->lanes[0] != '\0' ? s->lanes : NULL;
    up->n_vars = 0;
    for (size_t i = 0; i < n && up->n_vars < LC_TL_UCX_MAX_VARS; i++) {
        if (lc_tl_ucx_var_applies(&t[i], s)) {
            up->vars[up->n_vars++] =
                (lc_tl_ucx_var_t){.name = t[i].name, .value = t[i].value, .in_env = t[i].in_env};
        }
    }
}
