/*
 * core/context/bootstrap/bootstrap_int.h: what bootstrap.c needs from each
 * backend (pmix.c, tcp.c, single.c, oob.c).  Each open fills b->ops, rank, size,
 * local_rank, local_size and impl; b->timeout is set before the call.
 */
#ifndef LC_BOOTSTRAP_INT_H
#define LC_BOOTSTRAP_INT_H

#include "core/context/bootstrap/bootstrap.h"

lincoll_status_t lc_bootstrap_single_open(const lc_config_t *cfg, lc_bootstrap_t *b);
lincoll_status_t lc_bootstrap_tcp_open(const lc_config_t *cfg, lc_bootstrap_t *b);
/* The embedder's bootstraps (lincoll_init_params_t): rank and size given. */
lincoll_status_t lc_bootstrap_store_open(const lincoll_init_params_t *params, lc_bootstrap_t *b);
lincoll_status_t lc_bootstrap_oob_open(const lincoll_init_params_t *params, lc_bootstrap_t *b);
#ifdef LINCOLL_HAVE_PMIX
lincoll_status_t lc_bootstrap_pmix_open(const lc_config_t *cfg, lc_bootstrap_t *b);
#endif

/* Shared argument check of the allgather operation (logs once). */
lincoll_status_t lc_bootstrap_check_allgather(const lc_bootstrap_t *b, const void *in, void *out,
                                              size_t len);

#endif
