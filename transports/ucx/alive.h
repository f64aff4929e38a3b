/*
 * transports/ucx/alive.h: is a peer process on this host still alive?
 *
 * Each rank publishes an lc_ucx_ident_t ahead of its worker address.  A peer
 * whose host key (boot id + pid namespace) equals ours runs under the same
 * kernel and pid namespace, so its pid can be looked up in /proc: gone, a
 * zombie, or a different process under a reused pid (another start time)
 * all mean it died.  This replaces UCX's keepalive, which reads the clock in
 * every ucp_worker_progress call; the check runs only while a wait is stuck.
 */
#ifndef LINCOLL_TL_UCX_ALIVE_H
#define LINCOLL_TL_UCX_ALIVE_H

#include <stdint.h>

#define LC_UCX_IDENT_MAGIC 0x4c43494eu /* "LCIN" */
/* the same identity, published ahead of a lane table (several lanes) */
#define LC_UCX_IDENT_MAGIC_LANES 0x4c434c4eu /* "LCLN" */

typedef struct {
    uint32_t magic;     /* LC_UCX_IDENT_MAGIC */
    int32_t pid;        /* getpid() */
    uint64_t starttime; /* /proc/<pid>/stat field 22 (clock ticks since boot); 0: unknown */
    char host[64];      /* boot id and pid namespace; "" when unknown (never probed) */
} lc_ucx_ident_t;

/** This process's identity (fields it cannot learn are left empty/zero). */
void lc_ucx_ident_self(lc_ucx_ident_t *id);

/** Nonzero when peer's pid can be probed from here (same kernel and pid namespace). */
int lc_ucx_ident_probeable(const lc_ucx_ident_t *self, const lc_ucx_ident_t *peer);

/** 0 when the process named by id is known to be gone, else 1 (alive or unknown). */
int lc_ucx_ident_alive(const lc_ucx_ident_t *id);

#endif
