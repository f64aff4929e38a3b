/*
 * daemon/ecd_group.c: a lincoll context over the daemons of an epoch,
 * bootstrapped over their own TCP connections (LINCOLL_BOOTSTRAP_OOB).
 *
 * The epoch's leader is the hub of the out-of-band allgather: every member
 * sends "AG <len>\n" and its bytes on its connection to the leader, which
 * answers every member with
 * "AGR <size*len>\n" and the blocks in rank order.  The callbacks are
 * blocking and bounded by the connections' idle timeout.  A failure
 * anywhere (a member that closed or went silent) shuts every connection of
 * the group down, so every member's callback fails at once instead of
 * waiting: lincoll_init or lincoll_finalize then return an error on every
 * rank.
 */
#include "daemon/ecd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static lincoll_status_t ecd_io_status(void)
{
    return errno == ETIMEDOUT ? LINCOLL_ERR_TIMEOUT : LINCOLL_ERR_PEER_FAILED;
}

static void ecd_group_break(ecd_group_t *g)
{
    g->broken = 1;
    if (g->hub) {
        for (int r = 0; r < g->size; r++)
            ecd_conn_shutdown(g->member[r]);
    } else {
        ecd_conn_shutdown(g->up);
    }
}

static lincoll_status_t ecd_hub_allgather(ecd_group_t *g, const void *sbuf, uint8_t *rbuf,
                                          size_t len)
{
    memcpy(rbuf + (size_t)g->rank * len, sbuf, len);
    for (int r = 0; r < g->size; r++) {
        if (r == g->rank) continue;
        char line[ECD_LINE_MAX], *w[3];
        if (ecd_read_line(g->member[r], line, sizeof(line)) < 0) {
            lincoll_status_t st = ecd_io_status();
            ecd_log("group: rank %d (%s) did not send its allgather block: %s", r,
                    g->member[r]->peer, strerror(errno));
            return st;
        }
        if (ecd_split(line, w, 3) != 2 || strcmp(w[0], "AG") != 0 ||
            strtoull(w[1], NULL, 10) != len) {
            ecd_log("group: rank %d sent '%s' where AG %zu was due", r, line, len);
            return LINCOLL_ERR_MISMATCH;
        }
        if (ecd_read(g->member[r], rbuf + (size_t)r * len, len) != 0) return ecd_io_status();
    }
    for (int r = 0; r < g->size; r++) {
        if (r == g->rank) continue;
        if (ecd_printf(g->member[r], "AGR %zu\n", len * (size_t)g->size) != 0 ||
            ecd_write(g->member[r], rbuf, len * (size_t)g->size) != 0)
            return ecd_io_status();
    }
    return LINCOLL_OK;
}

static lincoll_status_t ecd_member_allgather(ecd_group_t *g, const void *sbuf, uint8_t *rbuf,
                                             size_t len)
{
    if (ecd_printf(g->up, "AG %zu\n", len) != 0 || ecd_write(g->up, sbuf, len) != 0)
        return ecd_io_status();
    char line[ECD_LINE_MAX], *w[3];
    int got;
    /* an epoch's leader may say RETIRE while this member already finalizes */
    while ((got = ecd_read_line(g->up, line, sizeof(line))) >= 0 && strcmp(line, "RETIRE") == 0)
        ;
    if (got < 0) {
        lincoll_status_t st = ecd_io_status();
        ecd_log("group: no allgather reply from the coordinator: %s", strerror(errno));
        return st;
    }
    if (ecd_split(line, w, 3) != 2 || strcmp(w[0], "AGR") != 0 ||
        strtoull(w[1], NULL, 10) != len * (size_t)g->size) {
        ecd_log("group: the coordinator sent '%s' where AGR was due", line);
        return LINCOLL_ERR_MISMATCH;
    }
    return ecd_read(g->up, rbuf, len * (size_t)g->size) == 0 ? LINCOLL_OK : ecd_io_status();
}

static lincoll_status_t ecd_oob_allgather(const void *sbuf, void *rbuf, size_t len, void *info,
                                          void **req_p)
{
    ecd_group_t *g = info;
    *req_p = NULL;
    if (g->broken) return LINCOLL_ERR_PEER_FAILED;
    lincoll_status_t st =
        g->hub ? ecd_hub_allgather(g, sbuf, rbuf, len) : ecd_member_allgather(g, sbuf, rbuf, len);
    if (st != LINCOLL_OK) ecd_group_break(g);
    return st;
}

/* lincoll_init runs in one thread at a time */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

lincoll_status_t ecd_group_context(ecd_group_t *g, lincoll_context_t **ctx_p)
{
    lincoll_init_params_t p = {
        .bootstrap = LINCOLL_BOOTSTRAP_OOB,
        .rank = g->rank,
        .size = g->size,
        .timeout = g->timeout,
        .bootstrap_timeout = g->timeout,
        .oob = {.allgather = ecd_oob_allgather, .coll_info = g},
    };
    pthread_mutex_lock(&init_lock);
    lincoll_status_t st = lincoll_init(&p, ctx_p);
    pthread_mutex_unlock(&init_lock);
    return st;
}
