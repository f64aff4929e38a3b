/*
 * core/context/bootstrap/single.c: the singleton bootstrap (one process, no
 * launcher).  allgather is a copy and barrier returns at once.
 */
#include "core/context/bootstrap/bootstrap_int.h"

#include <string.h>

static lincoll_status_t lc_single_allgather(lc_bootstrap_t *b, const void *in, void *out,
                                            size_t len)
{
    lincoll_status_t st = lc_bootstrap_check_allgather(b, in, out, len);
    if (st != LINCOLL_OK) {
        return st;
    }
    if (len > 0 && out != in) {
        memmove(out, in, len);
    }
    return LINCOLL_OK;
}

static lincoll_status_t lc_single_barrier(lc_bootstrap_t *b)
{
    (void)b;
    return LINCOLL_OK;
}

static void lc_single_fini(lc_bootstrap_t *b)
{
    (void)b;
}

static const lc_bootstrap_ops_t lc_single_ops = {
    .name = "single",
    .allgather = lc_single_allgather,
    .barrier = lc_single_barrier,
    .fini = lc_single_fini,
};

lincoll_status_t lc_bootstrap_single_open(const lc_config_t *cfg, lc_bootstrap_t *b)
{
    (void)cfg;
    b->ops = &lc_single_ops;
    b->rank = 0;
    b->size = 1;
    b->local_rank = 0;
    b->local_size = 1;
    return LINCOLL_OK;
}
