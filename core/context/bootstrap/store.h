/*
 * core/context/bootstrap/store.h: the TCP rendezvous store server (rank 0
 * of a job when it hosts the store itself, lincoll-run, lincoll-store and
 * lincoll_store_start()).  The wire protocol and its limits: store_proto.h.
 */
#ifndef LC_BOOTSTRAP_STORE_H
#define LC_BOOTSTRAP_STORE_H

#include "core/context/bootstrap/store_proto.h"

/* ---- server ------------------------------------------------------------ */

typedef struct lc_store_server lc_store_server_t;

typedef struct lc_store_params {
    const char *host;    /* interface address or name to bind; NULL or "" = all */
    int port;            /* 0 = the kernel picks a free one (see lc_store_server_port) */
    int size;            /* ranks of the job, 1..LC_STORE_MAX_SIZE; 0 with multi_job */
    const char *secret;  /* job secret, 1..LC_STORE_MAX_SECRET bytes */
    double idle_timeout; /* seconds; 0 = 30 */
    int multi_job;       /* serve any number of named jobs (HELLO_JOB) */
} lc_store_params_t;

lincoll_status_t lc_store_server_create(const lc_store_params_t *params, lc_store_server_t **s_p);

/* The port actually bound. */
int lc_store_server_port(const lc_store_server_t *s);

/* Serve for at most timeout_ms (-1 = until something happens).  Not to be
 * mixed with lc_store_server_start. */
lincoll_status_t lc_store_server_progress(lc_store_server_t *s, int timeout_ms);

/* Serve from a background thread (signals blocked in it) until destroy. */
lincoll_status_t lc_store_server_start(lc_store_server_t *s);

/* Wait until every rank has joined once and all have left (BYE or
 * disconnect), or the job failed.  Requires lc_store_server_start; a
 * single-job server only. */
lincoll_status_t lc_store_server_wait_done(lc_store_server_t *s, double timeout);

/* Stop the thread (if any), close every connection, free. */
void lc_store_server_destroy(lc_store_server_t *s);

#endif
