/*
 * core/context/bootstrap/bootstrap.h: how ranks of one job find each other.
 *
 * Detection order (LINCOLL_BOOTSTRAP_KIND=auto): PMIx (PMIX_NAMESPACE in the
 * environment: mpirun, srun --mpi=pmix) -> TCP store (LINCOLL_RANK,
 * LINCOLL_SIZE, LINCOLL_BOOTSTRAP=host:port, LINCOLL_JOB_SECRET; served by
 * lincoll-run) -> singleton.  An embedder chooses instead through
 * lincoll_init_params_t: its own out-of-band allgather (oob.c) or a TCP
 * store at a given address under a job name (tcp.c).  The bootstrap only
 * carries small metadata (transport addresses, host identities); data moves
 * over the transport.
 *
 * Timeouts: b->timeout bounds every operation.  It starts as the bootstrap
 * timeout (ranks may still be starting) and becomes twice the context
 * timeout once lincoll_init has succeeded (lc_bootstrap_set_timeout): a
 * finalize barrier waits for a peer that may still be waiting out one plan
 * timeout, and no longer.
 */
#ifndef LC_BOOTSTRAP_H
#define LC_BOOTSTRAP_H

#include <lincoll/context.h>
#include <lincoll/status.h>
#include <stddef.h>

#include "core/base/config.h"

typedef struct lc_bootstrap lc_bootstrap_t;

typedef struct lc_bootstrap_ops {
    const char *name; /* "pmix", "tcp", "single", "oob" */
    /* Every rank contributes len bytes; out receives size*len bytes in rank order. */
    lincoll_status_t (*allgather)(lc_bootstrap_t *b, const void *in, void *out, size_t len);
    lincoll_status_t (*barrier)(lc_bootstrap_t *b);
    void (*fini)(lc_bootstrap_t *b);
} lc_bootstrap_ops_t;

struct lc_bootstrap {
    const lc_bootstrap_ops_t *ops;
    int rank;       /* world rank */
    int size;       /* world size */
    int local_rank; /* rank among the processes of this host (-1 if unknown) */
    int local_size; /* processes of this job on this host (-1 if unknown) */
    double timeout; /* seconds any one operation may wait */
    void *impl;     /* backend state */
};

/* Detect and open the bootstrap (collective over the job). */
lincoll_status_t lc_bootstrap_open(const lc_config_t *cfg, lc_bootstrap_t **b_p);

/* The bootstrap lincoll_init's params ask for: the launcher's (as
 * lc_bootstrap_open) unless params->bootstrap names an embedder's; checks
 * the params' bootstrap fields (one log line naming a bad one). */
lincoll_status_t lc_bootstrap_open_params(const lc_config_t *cfg,
                                          const lincoll_init_params_t *params,
                                          lc_bootstrap_t **b_p);

/* Bound every later operation by `timeout` seconds (0 = none). */
void lc_bootstrap_set_timeout(lc_bootstrap_t *b, double timeout);
void lc_bootstrap_close(lc_bootstrap_t *b);

/* Bounds on what lc_bootstrap_allgatherv accepts from other ranks. */
#define LC_BOOTSTRAP_MAX_BLOB  (16u << 20)
#define LC_BOOTSTRAP_MAX_TOTAL (256u << 20)

/* Allgather of variable-length blobs: *out_p is one malloc'd block holding
 * every blob, (*ptrs_p)[r] points at rank r's blob and (*lens_p)[r] is its
 * length.  Free *out_p, *ptrs_p and *lens_p with free(). */
lincoll_status_t lc_bootstrap_allgatherv(lc_bootstrap_t *b, const void *in, size_t len,
                                         void **out_p, void ***ptrs_p, size_t **lens_p);

#endif
