/*
 * core/context/bootstrap/oob.c: the embedder's bootstrap (LINCOLL_BOOTSTRAP_OOB):
 * lincoll's allgathers and barriers run through the callbacks of a
 * lincoll_oob_t (include/lincoll/context.h), in the manner of UCC's
 * ucc_oob_coll_t.
 *
 * A blocking embedder (req_test NULL) returns from allgather with the data
 * in place.  A non-blocking one returns a request that is tested here until
 * it completes, fails or the bootstrap's timeout passes, with sleeps from
 * 10 us doubling to 1 ms between tests (an idle wait costs no CPU to speak
 * of); the request is freed either way.  Any failure is logged once, naming
 * the callback, and makes the bootstrap unusable: later operations fail at
 * once with the same status (a finalize after a failed exchange does not
 * wait a second time).
 */
#include "core/context/bootstrap/bootstrap_int.h"
#include "core/base/log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct lc_oob {
    lincoll_oob_t oob;
    lincoll_status_t broken; /* first failure */
} lc_oob_t;

static double lc_oob_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A callback's return value as a status: errors pass through, anything
 * else that is not OK (or INPROGRESS where allowed) is a bootstrap error. */
static lincoll_status_t lc_oob_status(lincoll_status_t s, int inprogress_ok)
{
    if (s == LINCOLL_OK || (inprogress_ok && s == LINCOLL_INPROGRESS)) return s;
    if (s < 0 && s >= LINCOLL_ERR_INTERNAL) return s;
    return LINCOLL_ERR_BOOTSTRAP;
}

static lincoll_status_t lc_oob_fail(lc_bootstrap_t *b, const char *what, lincoll_status_t raw,
                                    lincoll_status_t st)
{
    lc_oob_t *o = b->impl;
    if (st == LINCOLL_ERR_TIMEOUT && raw == LINCOLL_INPROGRESS) {
        lc_error("bootstrap oob: rank %d: the embedder's %s did not complete within %.1f s",
                 b->rank, what, b->timeout);
    } else {
        lc_error("bootstrap oob: rank %d: the embedder's %s returned %d (%s)", b->rank, what,
                 (int)raw, lincoll_strerror(st));
    }
    if (o->broken == LINCOLL_OK) o->broken = st;
    return st;
}

/* Wait for a request of the embedder (non-blocking mode), then free it. */
static lincoll_status_t lc_oob_finish(lc_bootstrap_t *b, void *req, const char *what)
{
    lc_oob_t *o = b->impl;
    lincoll_status_t raw = LINCOLL_OK, st = LINCOLL_OK;
    if (o->oob.req_test != NULL) {
        double deadline = b->timeout > 0 ? lc_oob_now() + b->timeout : 0;
        long pause_ns = 10000;
        for (;;) {
            raw = o->oob.req_test(req);
            st = lc_oob_status(raw, 1);
            if (st != LINCOLL_INPROGRESS) break;
            if (deadline != 0 && lc_oob_now() >= deadline) {
                st = LINCOLL_ERR_TIMEOUT;
                break;
            }
            struct timespec ts = {0, pause_ns};
            nanosleep(&ts, NULL);
            pause_ns = pause_ns < 1000000 ? pause_ns * 2 : 1000000;
        }
    }
    if (o->oob.req_free != NULL && req != NULL) {
        o->oob.req_free(req);
    }
    return st == LINCOLL_OK ? st : lc_oob_fail(b, what, raw, st);
}

static lincoll_status_t lc_oob_check_usable(lc_bootstrap_t *b, const char *what)
{
    lc_oob_t *o = b->impl;
    if (o->broken != LINCOLL_OK) {
        lc_error("bootstrap oob: rank %d: no %s after an earlier failure (%s)", b->rank, what,
                 lincoll_strerror(o->broken));
    }
    return o->broken;
}

static lincoll_status_t lc_oob_allgather(lc_bootstrap_t *b, const void *in, void *out, size_t len)
{
    lincoll_status_t st = lc_bootstrap_check_allgather(b, in, out, len);
    if (st != LINCOLL_OK) return st;
    if ((st = lc_oob_check_usable(b, "allgather")) != LINCOLL_OK) return st;
    lc_oob_t *o = b->impl;
    void *req = NULL;
    lincoll_status_t raw = o->oob.allgather(in, out, len, o->oob.coll_info, &req);
    st = lc_oob_status(raw, 0);
    if (st != LINCOLL_OK) {
        if (o->oob.req_free != NULL && req != NULL) o->oob.req_free(req);
        return lc_oob_fail(b, "allgather", raw, st);
    }
    return lc_oob_finish(b, req, "allgather");
}

static lincoll_status_t lc_oob_barrier(lc_bootstrap_t *b)
{
    LC_CHECK_ARG(b != NULL, "bootstrap barrier: b is NULL");
    lc_oob_t *o = b->impl;
    if (o->oob.barrier == NULL) {
        uint8_t one = 1, *all = malloc((size_t)b->size);
        if (all == NULL) return LINCOLL_ERR_NOMEM;
        lincoll_status_t st = lc_oob_allgather(b, &one, all, 1);
        free(all);
        return st;
    }
    lincoll_status_t st = lc_oob_check_usable(b, "barrier");
    if (st != LINCOLL_OK) return st;
    void *req = NULL;
    lincoll_status_t raw = o->oob.barrier(o->oob.coll_info, &req);
    st = lc_oob_status(raw, 0);
    if (st != LINCOLL_OK) {
        if (o->oob.req_free != NULL && req != NULL) o->oob.req_free(req);
        return lc_oob_fail(b, "barrier", raw, st);
    }
    return lc_oob_finish(b, req, "barrier");
}

static void lc_oob_fini(lc_bootstrap_t *b)
{
    free(b->impl);
    b->impl = NULL;
}

static const lc_bootstrap_ops_t lc_oob_ops = {
    .name = "oob",
    .allgather = lc_oob_allgather,
    .barrier = lc_oob_barrier,
    .fini = lc_oob_fini,
};

lincoll_status_t lc_bootstrap_oob_open(const lincoll_init_params_t *params, lc_bootstrap_t *b)
{
    LC_CHECK_ARG(params->oob.allgather != NULL,
                 "lincoll_init: params->oob.allgather must not be NULL with "
                 "LINCOLL_BOOTSTRAP_OOB");
    lc_oob_t *o = calloc(1, sizeof(*o));
    if (o == NULL) return LINCOLL_ERR_NOMEM;
    o->oob = params->oob;
    b->ops = &lc_oob_ops;
    b->impl = o;
    b->rank = params->rank;
    b->size = params->size;
    return LINCOLL_OK;
}
