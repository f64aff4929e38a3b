/*
 * core/context/bootstrap/bootstrap.c: pick the bootstrap backend and build
 * the variable-length allgather on top of its fixed-length one.
 *
 * Detection (LINCOLL_BOOTSTRAP_KIND=auto): PMIx when PMIX_NAMESPACE is set
 * (mpirun, srun --mpi=pmix), else the TCP store when any of LINCOLL_BOOTSTRAP,
 * LINCOLL_RANK, LINCOLL_SIZE is set (lincoll-run), else a singleton.  A
 * process that a launcher started as one of several ranks but that found no
 * way to reach the others fails instead of running as a lonely singleton.
 * An explicit kind is used or fails; it never falls back.
 */
#include "core/context/bootstrap/bootstrap_int.h"
#include "core/base/log.h"
#include "core/context/bootstrap/store.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const lc_boot_kind_names[] = {"auto", "pmix", "tcp", "single"};

lincoll_status_t lc_bootstrap_check_allgather(const lc_bootstrap_t *b, const void *in, void *out,
                                              size_t len)
{
    LC_CHECK_ARG(b != NULL, "bootstrap allgather: b is NULL");
    LC_CHECK_ARG(len == 0 || (in != NULL && out != NULL),
                 "bootstrap allgather: in or out is NULL with len %zu", len);
    LC_CHECK_ARG(len <= SIZE_MAX / (size_t)b->size,
                 "bootstrap allgather: len %zu times %d ranks overflows", len, b->size);
    return LINCOLL_OK;
}

/* A launcher variable that says this process is one rank of several. */
static const char *lc_bootstrap_launcher_hint(long *n_p)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        long n = v ? strtol(v, NULL, 10) : 0;
        if (n > 1 && (i != 2 || getenv("SLURM_PROCID") != NULL)) {
            *n_p = n;
            return vars[i];
        }
    }
    return NULL;
}

static lincoll_status_t lc_bootstrap_pick(const lc_config_t *cfg, lc_bootstrap_t *b)
{
    const char *ns = getenv("PMIX_NAMESPACE");
    int have_ns = ns != NULL && *ns != '\0';
    int tcp_set = cfg->bootstrap[0] != '\0' || cfg->rank >= 0 || cfg->size >= 0;

    switch (cfg->bootstrap_kind) {
    case LC_BOOT_PMIX:
#ifdef LINCOLL_HAVE_PMIX
        return lc_bootstrap_pmix_open(cfg, b);
#else
        lc_error("LINCOLL_BOOTSTRAP_KIND=pmix: this build has no PMIx support "
                 "(configure with -DLINCOLL_WITH_PMIX=ON)");
        return LINCOLL_ERR_UNSUPPORTED;
#endif
    case LC_BOOT_TCP:
        return lc_bootstrap_tcp_open(cfg, b);
    case LC_BOOT_SINGLE:
        return lc_bootstrap_single_open(cfg, b);
    case LC_BOOT_AUTO:
        break;
    default:
        lc_error("LINCOLL_BOOTSTRAP_KIND: unknown kind %d", cfg->bootstrap_kind);
        return LINCOLL_ERR_INVALID;
    }

    if (have_ns) {
#ifdef LINCOLL_HAVE_PMIX
        return lc_bootstrap_pmix_open(cfg, b); /* its error names PMIX_NAMESPACE */
#else
        if (!tcp_set) {
            lc_error("PMIX_NAMESPACE=%s is set but this build has no PMIx support "
                     "(configure with -DLINCOLL_WITH_PMIX=ON, or start the job with lincoll-run)",
                     ns);
            return LINCOLL_ERR_UNSUPPORTED;
        }
#endif
    }
    if (tcp_set) {
        return lc_bootstrap_tcp_open(cfg, b);
    }
    long n = 0;
    const char *hint = lc_bootstrap_launcher_hint(&n);
    if (hint != NULL) {
        lc_error("%s=%ld: started as one of %ld ranks, but there is no PMIx server "
                 "(PMIX_NAMESPACE unset) and no TCP store (LINCOLL_BOOTSTRAP unset); use "
                 "srun --mpi=pmix, mpirun, or lincoll-run, or set LINCOLL_BOOTSTRAP_KIND=single",
                 hint, n, n);
        return LINCOLL_ERR_BOOTSTRAP;
    }
    return lc_bootstrap_single_open(cfg, b);
}

lincoll_status_t lc_bootstrap_open(const lc_config_t *cfg, lc_bootstrap_t **b_p)
{
    LC_CHECK_ARG(b_p != NULL, "lc_bootstrap_open: b_p is NULL");
    *b_p = NULL;
    LC_CHECK_ARG(cfg != NULL, "lc_bootstrap_open: cfg is NULL");
    LC_CHECK_ARG(cfg->bootstrap_kind >= LC_BOOT_AUTO && cfg->bootstrap_kind <= LC_BOOT_SINGLE,
                 "LINCOLL_BOOTSTRAP_KIND: unknown kind %d", cfg->bootstrap_kind);
    lc_bootstrap_t *b = calloc(1, sizeof(*b));
    if (b == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    b->timeout = cfg->bootstrap_timeout;
    b->local_rank = b->local_size = -1;
    lincoll_status_t st = lc_bootstrap_pick(cfg, b);
    if (st != LINCOLL_OK) {
        free(b);
        return st;
    }
    lc_log_set_rank(b->rank);
    lc_info("bootstrap: %s (asked %s), rank %d of %d, local %d of %d", b->ops->name,
            lc_boot_kind_names[cfg->bootstrap_kind], b->rank, b->size, b->local_rank,
            b->local_size);
    *b_p = b;
    return LINCOLL_OK;
}

static lincoll_status_t lc_bootstrap_check_params(const lincoll_init_params_t *p)
{
    LC_CHECK_ARG(p->bootstrap == LINCOLL_BOOTSTRAP_OOB || p->bootstrap == LINCOLL_BOOTSTRAP_STORE,
                 "lincoll_init: params->bootstrap=%d is not a lincoll_bootstrap_kind_t",
                 (int)p->bootstrap);
    LC_CHECK_ARG(p->size >= 1 && p->size <= (int)LC_STORE_MAX_SIZE,
                 "lincoll_init: params->size=%d must be in [1, %d] with an embedder's bootstrap",
                 p->size, (int)LC_STORE_MAX_SIZE);
    LC_CHECK_ARG(p->rank >= 0 && p->rank < p->size,
                 "lincoll_init: params->rank=%d is outside [0, size=%d)", p->rank, p->size);
    LC_CHECK_ARG(p->bootstrap_timeout >= 0,
                 "lincoll_init: params->bootstrap_timeout=%g must be >= 0 (0 = "
                 "LINCOLL_BOOTSTRAP_TIMEOUT)",
                 p->bootstrap_timeout);
    return LINCOLL_OK;
}

lincoll_status_t lc_bootstrap_open_params(const lc_config_t *cfg,
                                          const lincoll_init_params_t *params, lc_bootstrap_t **b_p)
{
    if (params == NULL || params->bootstrap == LINCOLL_BOOTSTRAP_LAUNCHER) {
        return lc_bootstrap_open(cfg, b_p);
    }
    LC_CHECK_ARG(b_p != NULL, "lc_bootstrap_open_params: b_p is NULL");
    *b_p = NULL;
    lincoll_status_t st = lc_bootstrap_check_params(params);
    if (st != LINCOLL_OK) return st;
    lc_bootstrap_t *b = calloc(1, sizeof(*b));
    if (b == NULL) return LINCOLL_ERR_NOMEM;
    b->timeout = params->bootstrap_timeout > 0 ? params->bootstrap_timeout : cfg->bootstrap_timeout;
    b->local_rank = b->local_size = -1;
    st = params->bootstrap == LINCOLL_BOOTSTRAP_OOB ? lc_bootstrap_oob_open(params, b)
                                                    : lc_bootstrap_store_open(params, b);
    if (st != LINCOLL_OK) {
        free(b);
        return st;
    }
    lc_log_set_rank(b->rank);
    lc_info("bootstrap: %s (the embedder's), rank %d of %d, local %d of %d", b->ops->name, b->rank,
            b->size, b->local_rank, b->local_size);
    *b_p = b;
    return LINCOLL_OK;
}

void lc_bootstrap_set_timeout(lc_bootstrap_t *b, double timeout)
{
    if (b != NULL) {
        b->timeout = timeout > 0 ? timeout : 0;
    }
}

void lc_bootstrap_close(lc_bootstrap_t *b)
{
    if (b == NULL) {
        return;
    }
    b->ops->fini(b);
    free(b);
}

lincoll_status_t lc_bootstrap_allgatherv(lc_bootstrap_t *b, const void *in, size_t len,
                                         void **out_p, void ***ptrs_p, size_t **lens_p)
{
    LC_CHECK_ARG(b != NULL, "lc_bootstrap_allgatherv: b is NULL");
    LC_CHECK_ARG(out_p != NULL && ptrs_p != NULL && lens_p != NULL,
                 "lc_bootstrap_allgatherv: out_p, ptrs_p or lens_p is NULL");
    LC_CHECK_ARG(in != NULL || len == 0, "lc_bootstrap_allgatherv: in is NULL with len %zu", len);
    *out_p = NULL;
    *ptrs_p = NULL;
    *lens_p = NULL;
    size_t n = (size_t)b->size;
    uint64_t *all_lens = malloc(n * sizeof(uint64_t));
    uint8_t *padded = NULL, *mine = NULL, *out = NULL;
    void **ptrs = NULL;
    size_t *lens = NULL;
    lincoll_status_t st = LINCOLL_ERR_NOMEM;
    if (all_lens == NULL) {
        goto out;
    }
    /* Phase 1: every length (rank order).  Phase 2: blobs padded to the longest. */
    uint64_t my_len = len;
    st = b->ops->allgather(b, &my_len, all_lens, sizeof(my_len));
    if (st != LINCOLL_OK) {
        goto out;
    }
    if (all_lens[b->rank] != len) {
        lc_error("lc_bootstrap_allgatherv: the bootstrap returned %llu bytes for this rank's "
                 "%zu-byte blob",
                 (unsigned long long)all_lens[b->rank], len);
        st = LINCOLL_ERR_MISMATCH;
        goto out;
    }
    uint64_t max = 0, total = 0;
    for (size_t r = 0; r < n; r++) {
        max = all_lens[r] > max ? all_lens[r] : max;
        total += all_lens[r];
    }
    /* lengths come from other processes: bound them before allocating (the
     * bootstrap carries addresses and keys, a few KiB per rank) */
    if (max > LC_BOOTSTRAP_MAX_BLOB || max > SIZE_MAX / n ||
        (uint64_t)n * max > LC_BOOTSTRAP_MAX_TOTAL) {
        lc_error("lc_bootstrap_allgatherv: a rank announced a %llu-byte blob (%d ranks); the "
                 "limits are %u bytes per rank and %u in all",
                 (unsigned long long)max, b->size, (unsigned)LC_BOOTSTRAP_MAX_BLOB,
                 (unsigned)LC_BOOTSTRAP_MAX_TOTAL);
        st = LINCOLL_ERR_BOOTSTRAP;
        goto out;
    }
    st = LINCOLL_ERR_NOMEM;
    out = malloc(total ? (size_t)total : 1);
    ptrs = malloc(n * sizeof(void *));
    lens = malloc(n * sizeof(size_t));
    if (out == NULL || ptrs == NULL || lens == NULL) {
        goto out;
    }
    if (max > 0) {
        padded = malloc(n * (size_t)max);
        mine = calloc(1, (size_t)max);
        if (padded == NULL || mine == NULL) {
            goto out;
        }
        if (len) memcpy(mine, in, len);
        st = b->ops->allgather(b, mine, padded, (size_t)max);
        if (st != LINCOLL_OK) {
            goto out;
        }
    }
    size_t off = 0;
    for (size_t r = 0; r < n; r++) {
        lens[r] = (size_t)all_lens[r];
        ptrs[r] = out + off;
        if (lens[r]) memcpy(out + off, padded + r * (size_t)max, lens[r]);
        off += lens[r];
    }
    *out_p = out;
    *ptrs_p = ptrs;
    *lens_p = lens;
    out = NULL;
    ptrs = NULL;
    lens = NULL;
    st = LINCOLL_OK;
out:
    free(all_lens);
    free(padded);
    free(mine);
    free(out);
    free(ptrs);
    free(lens);
    return st;
}
