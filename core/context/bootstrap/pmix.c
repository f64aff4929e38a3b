/*
 * core/context/bootstrap/pmix.c: the PMIx bootstrap (Open MPI's mpirun,
 * Slurm's srun --mpi=pmix, any PMIx server).
 *
 * PMIx_Init; job size from PMIX_JOB_SIZE (not PMIX_UNIV_SIZE, which counts
 * slots), local rank and size from PMIX_LOCAL_RANK / PMIX_LOCAL_SIZE.
 * allgather = Put(GLOBAL) of a byte object under a per-operation key,
 * Commit, Fence with PMIX_COLLECT_DATA, Get from every rank; barrier = Fence
 * without data.  PMIX_TIMEOUT carries the bootstrap timeout.  Reference:
 * PMIx 4 standard; the sequence was checked under Open MPI 4.1 and Slurm.
 * Compiled only with LINCOLL_HAVE_PMIX.
 */
#ifdef LINCOLL_HAVE_PMIX

#include "core/context/bootstrap/bootstrap_int.h"
#include "core/base/log.h"

#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lc_pmix {
    pmix_proc_t me;
    pmix_proc_t wild;
    unsigned seq;
} lc_pmix_t;

/* Read an unsigned integer value of whatever width PMIx chose. */
static int lc_pmix_uint(const pmix_value_t *v, unsigned long *out)
{
    switch (v->type) {
    case PMIX_UINT8:
        *out = v->data.uint8;
        return 0;
    case PMIX_UINT16:
        *out = v->data.uint16;
        return 0;
    case PMIX_UINT32:
        *out = v->data.uint32;
        return 0;
    case PMIX_UINT64:
        *out = (unsigned long)v->data.uint64;
        return 0;
    case PMIX_INT:
        *out = v->data.integer < 0 ? 0 : (unsigned long)v->data.integer;
        return 0;
    case PMIX_PROC_RANK:
        *out = v->data.rank;
        return 0;
    default:
        return -1;
    }
}

static lincoll_status_t lc_pmix_get_uint(const pmix_proc_t *p, const char *key, int optional,
                                         unsigned long *out)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS) {
        if (!optional) {
            lc_error("PMIx_Get(%s) failed: %s", key, PMIx_Error_string(rc));
        }
        return LINCOLL_ERR_BOOTSTRAP;
    }
    int bad = lc_pmix_uint(v, out);
    if (bad) {
        lc_error("PMIx_Get(%s): unexpected value type %s", key, PMIx_Data_type_string(v->type));
    }
    PMIX_VALUE_RELEASE(v);
    return bad ? LINCOLL_ERR_BOOTSTRAP : LINCOLL_OK;
}

/* Fence over the job, with data collection or not, bounded by the timeout. */
static lincoll_status_t lc_pmix_fence(lc_bootstrap_t *b, bool collect, const char *what)
{
    lc_pmix_t *p = b->impl;
    pmix_info_t info[2];
    size_t ninfo = 0;
    PMIX_INFO_CONSTRUCT(&info[0]);
    PMIX_INFO_CONSTRUCT(&info[1]);
    if (collect) {
        PMIX_INFO_LOAD(&info[ninfo], PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
        ninfo++;
    }
    int tmo = b->timeout > 0 ? (int)(b->timeout + 0.999) : 0;
    if (tmo > 0) {
        PMIX_INFO_LOAD(&info[ninfo], PMIX_TIMEOUT, &tmo, PMIX_INT);
        ninfo++;
    }
    pmix_status_t rc = PMIx_Fence(&p->wild, 1, ninfo ? info : NULL, ninfo);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != PMIX_SUCCESS) {
        lc_error("bootstrap %s: PMIx_Fence failed: %s", what, PMIx_Error_string(rc));
        return rc == PMIX_ERR_TIMEOUT ? LINCOLL_ERR_TIMEOUT : LINCOLL_ERR_BOOTSTRAP;
    }
    return LINCOLL_OK;
}

static lincoll_status_t lc_pmix_allgather(lc_bootstrap_t *b, const void *in, void *out, size_t len)
{
    lincoll_status_t st = lc_bootstrap_check_allgather(b, in, out, len);
    if (st != LINCOLL_OK) return st;
    lc_pmix_t *p = b->impl;
    char key[PMIX_MAX_KEYLEN + 1];
    snprintf(key, sizeof(key), "lincoll.boot.%u", p->seq++);
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)in;
    v.data.bo.size = len;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v); /* PMIx copies the value */
    if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        lc_error("bootstrap allgather: PMIx_Put/Commit of %zu bytes failed: %s", len,
                 PMIx_Error_string(rc));
        return LINCOLL_ERR_BOOTSTRAP;
    }
    st = lc_pmix_fence(b, true, "allgather");
    if (st != LINCOLL_OK) return st;
    for (int r = 0; r < b->size; r++) {
        pmix_proc_t peer;
        PMIX_LOAD_PROCID(&peer, p->me.nspace, (pmix_rank_t)r);
        pmix_value_t *pv = NULL;
        rc = PMIx_Get(&peer, key, NULL, 0, &pv);
        if (rc != PMIX_SUCCESS) {
            lc_error("bootstrap allgather: PMIx_Get(%s) from rank %d failed: %s", key, r,
                     PMIx_Error_string(rc));
            return LINCOLL_ERR_BOOTSTRAP;
        }
        size_t got = pv->type == PMIX_BYTE_OBJECT ? pv->data.bo.size : (size_t)-1;
        if (got != len) {
            lc_error("bootstrap allgather: rank %d contributed %zu bytes, this rank %zu", r, got,
                     len);
            PMIX_VALUE_RELEASE(pv);
            return LINCOLL_ERR_MISMATCH;
        }
        if (len) memcpy((char *)out + (size_t)r * len, pv->data.bo.bytes, len);
        PMIX_VALUE_RELEASE(pv);
    }
    return LINCOLL_OK;
}

static lincoll_status_t lc_pmix_barrier(lc_bootstrap_t *b)
{
    LC_CHECK_ARG(b != NULL, "bootstrap barrier: b is NULL");
    return lc_pmix_fence(b, false, "barrier");
}

static void lc_pmix_fini(lc_bootstrap_t *b)
{
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        lc_warn("PMIx_Finalize failed: %s", PMIx_Error_string(rc));
    }
    free(b->impl);
    b->impl = NULL;
}

static const lc_bootstrap_ops_t lc_pmix_ops = {
    .name = "pmix",
    .allgather = lc_pmix_allgather,
    .barrier = lc_pmix_barrier,
    .fini = lc_pmix_fini,
};

lincoll_status_t lc_bootstrap_pmix_open(const lc_config_t *cfg, lc_bootstrap_t *b)
{
    (void)cfg;
    lc_pmix_t *p = calloc(1, sizeof(*p));
    if (p == NULL) return LINCOLL_ERR_NOMEM;
    pmix_status_t rc = PMIx_Init(&p->me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        const char *ns = getenv("PMIX_NAMESPACE");
        lc_error("PMIx_Init failed: %s (PMIX_NAMESPACE=%s; a PMIx launcher such as mpirun or "
                 "srun --mpi=pmix must start this process; LINCOLL_BOOTSTRAP_KIND=tcp or single "
                 "bypasses PMIx)",
                 PMIx_Error_string(rc), ns ? ns : "(unset)");
        free(p);
        return LINCOLL_ERR_BOOTSTRAP;
    }
    PMIX_LOAD_PROCID(&p->wild, p->me.nspace, PMIX_RANK_WILDCARD);
    unsigned long size = 0, lrank = 0, lsize = 0;
    lincoll_status_t st = lc_pmix_get_uint(&p->wild, PMIX_JOB_SIZE, 0, &size);
    if (st == LINCOLL_OK && (size < 1 || size > 8388608 || p->me.rank >= size)) {
        lc_error("PMIx: rank %u with job size %lu is out of range", p->me.rank, size);
        st = LINCOLL_ERR_BOOTSTRAP;
    }
    if (st != LINCOLL_OK) {
        PMIx_Finalize(NULL, 0);
        free(p);
        return st;
    }
    b->ops = &lc_pmix_ops;
    b->impl = p;
    b->rank = (int)p->me.rank;
    b->size = (int)size;
    /* locality is optional: unknown stays -1 */
    if (lc_pmix_get_uint(&p->me, PMIX_LOCAL_RANK, 1, &lrank) == LINCOLL_OK &&
        lc_pmix_get_uint(&p->wild, PMIX_LOCAL_SIZE, 1, &lsize) == LINCOLL_OK && lrank < lsize) {
        b->local_rank = (int)lrank;
        b->local_size = (int)lsize;
    } else {
        lc_debug("PMIx: no PMIX_LOCAL_RANK/PMIX_LOCAL_SIZE; locality unknown");
    }
    return LINCOLL_OK;
}

#else
typedef int lc_bootstrap_pmix_unused_t; /* ISO C forbids an empty translation unit */
#endif
