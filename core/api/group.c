/*
 * core/api/group.c: lincoll_comm_create_group — a communicator over a list
 * of the parent's ranks, made by those ranks only.
 *
 * Agreed (flags 0): the members exchange one record each on the parent,
 * among themselves only (each to each, lc_comm_exchange_among),
 * in the tagged space's tag 0, which only this exchange uses, with the
 * parent's ranks as sources: two agreed creations that share members and
 * are called in the same order by them never cross (messages of one tag
 * between one pair match in order).  A record holds a digest of the list
 * (as world ranks) and the member's id counter; the group takes the
 * largest counter, as a split does (core/api/comm.c), so it shares no id
 * with any communicator of a member.  A member whose digest differs fails
 * the call with LINCOLL_ERR_MISMATCH on every member that sees it: on
 * every member when the lists hold the same ranks in another order; where
 * they hold other ranks, a member that waits for a rank that never comes
 * times out.
 *
 * Local (LINCOLL_GROUP_LOCAL): no communication, so no id every member
 * could agree on.  Its tagged plans travel as plans of its nearest counted
 * ancestor (the parent, or the parent's): that communicator's id, the
 * members' ranks there as sources, and the tag, which therefore names the
 * operation across the ancestor and all its local groups (a rank holds one
 * live plan per tag among them: LINCOLL_ERR_BUSY).  No hash decides
 * whether two tagged plans meet.  Its untagged plans (ordered collectives,
 * point-to-point, barrier) take an id of its own, a hash of the ancestor's
 * id and the list (world ranks) into [LC_COMM_ID_LOCAL, 4096), which
 * counted ids never reach; two local groups that share two members may
 * meet in one such id (one chance in 2048), which is why
 * independent coordinators use tags on local groups.  Members that
 * computed other lists send to other sources (tagged) or ids (untagged):
 * their messages never meet (a timeout), except where hashes meet.
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/exec/exec.h"

#define LC_GROUP_MAGIC 0x6c636772u /* "lcgr" */

typedef struct {
    uint32_t magic;
    uint32_t next_id;
    uint64_t digest;
} lc_group_rec_t;

static uint64_t lc_group_digest(const lincoll_comm_t *parent, const int *world, int n)
{
    uint64_t h = UINT64_C(1469598103934665603);
    h = (h ^ parent->id) * UINT64_C(1099511628211);
    h = (h ^ (uint64_t)n) * UINT64_C(1099511628211);
    for (int i = 0; i < n; i++) {
        h = (h ^ (uint64_t)(uint32_t)world[i]) * UINT64_C(1099511628211);
        h ^= h >> 29;
    }
    return h;
}

static lincoll_status_t lc_group_check(lincoll_comm_t *parent, const int *ranks, int n,
                                       unsigned flags, lincoll_comm_t **new_p, int *me_p)
{
    const char *fn = "lincoll_comm_create_group";
    LC_CHECK_ARG(parent != NULL, "%s: parent must not be NULL", fn);
    LC_CHECK_ARG(new_p != NULL, "%s: new_p must not be NULL", fn);
    LC_CHECK_ARG(ranks != NULL, "%s: ranks must not be NULL", fn);
    LC_CHECK_ARG(n >= 1 && n <= parent->size, "%s: n=%d outside [1, %d] (the parent's size)", fn, n,
                 parent->size);
    LC_CHECK_ARG((flags & ~LINCOLL_GROUP_LOCAL) == 0,
                 "%s: flags=0x%x: only LINCOLL_GROUP_LOCAL is defined", fn, flags);
    unsigned char *seen = calloc((size_t)parent->size, 1);
    if (seen == NULL) return LINCOLL_ERR_NOMEM;
    int me = -1, bad = -1, dup = 0;
    for (int i = 0; i < n && bad < 0; i++) {
        if (ranks[i] < 0 || ranks[i] >= parent->size) {
            bad = i;
        } else if (seen[ranks[i]]++) {
            bad = i;
            dup = 1;
        } else if (ranks[i] == parent->rank) {
            me = i;
        }
    }
    free(seen);
    LC_CHECK_ARG(bad < 0 || dup, "%s: ranks[%d]=%d outside [0, %d)", fn, bad, ranks[bad],
                 parent->size);
    LC_CHECK_ARG(bad < 0, "%s: ranks[%d]=%d is listed twice", fn, bad, ranks[bad]);
    LC_CHECK_ARG(me >= 0, "%s: ranks does not list the caller (rank %d of the parent)", fn,
                 parent->rank);
    *me_p = me;
    return LINCOLL_OK;
}

/* The agreed id: the largest counter of the members (records checked). */
static lincoll_status_t lc_group_agree(lincoll_comm_t *parent, const int *ranks, int n,
                                       uint64_t digest, unsigned *id_p)
{
    lincoll_context_t *ctx = parent->ctx;
    lc_group_rec_t mine = {LC_GROUP_MAGIC, ctx->next_comm_id, digest};
    LC_CHECK_ARG(lc_comm_wire_size(parent) <= (1 << LC_TAG_OPTAG_SRC_BITS),
                 "lincoll_comm_create_group: flags=0 needs a parent of at most %d ranks (this "
                 "one counts in %d): use LINCOLL_GROUP_LOCAL",
                 1 << LC_TAG_OPTAG_SRC_BITS, lc_comm_wire_size(parent));
    lc_group_rec_t *all = calloc((size_t)n, sizeof(*all));
    if (all == NULL) return LINCOLL_ERR_NOMEM;
    lc_optag_internal(parent);
    lincoll_status_t st = lc_comm_exchange_among(parent, ranks, n, &mine, all, sizeof(mine));
    lc_optag_close(parent);
    unsigned id = 0;
    for (int i = 0; st == LINCOLL_OK && i < n; i++) {
        if (all[i].magic != LC_GROUP_MAGIC || all[i].digest != digest) {
            lc_error("lincoll_comm_create_group: member %d (rank %d of the parent) passed "
                     "another list of ranks",
                     i, ranks[i]);
            st = LINCOLL_ERR_MISMATCH;
        }
        id = all[i].next_id > id ? all[i].next_id : id;
    }
    free(all);
    if (st != LINCOLL_OK) return st;
    if (id == 0 || id >= LC_COMM_ID_LOCAL) id = 1;
    ctx->next_comm_id = lc_comm_id_next(id);
    *id_p = id;
    return LINCOLL_OK;
}

lincoll_status_t lincoll_comm_create_group(lincoll_comm_t *parent, const int *ranks, int n,
                                           unsigned flags, lincoll_comm_t **new_p)
{
    int me;
    lincoll_status_t st = lc_group_check(parent, ranks, n, flags, new_p, &me);
    if (st != LINCOLL_OK) return st;
    lincoll_comm_t *c = calloc(1, sizeof(*c));
    int *map = malloc((size_t)n * sizeof(int));
    if (c == NULL || map == NULL) {
        free(c);
        free(map);
        return LINCOLL_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++)
        map[i] = parent->to_world[ranks[i]];
    const uint64_t digest = lc_group_digest(parent, map, n);
    unsigned id = LC_COMM_ID_LOCAL + (unsigned)(digest % (4096u - LC_COMM_ID_LOCAL));
    if (!(flags & LINCOLL_GROUP_LOCAL)) st = lc_group_agree(parent, ranks, n, digest, &id);
    if (st != LINCOLL_OK) {
        free(c);
        free(map);
        return st;
    }
    c->ctx = parent->ctx;
    c->rank = me;
    c->size = n;
    c->to_world = map;
    c->id = id;
    c->local = (flags & LINCOLL_GROUP_LOCAL) != 0;
    if (c->local) { /* tagged plans travel as the nearest counted ancestor's */
        c->wire_rank = malloc((size_t)n * sizeof(int));
        if (c->wire_rank == NULL) {
            free(c);
            free(map);
            return LINCOLL_ERR_NOMEM;
        }
        for (int i = 0; i < n; i++)
            c->wire_rank[i] = (int)lc_comm_wire_rank(parent, ranks[i]);
        c->wire_id = lc_comm_wire_id(parent);
        c->wire_size = lc_comm_wire_size(parent);
    }
    parent->ctx->live_comms++;
    lc_debug("comm create_group (%s): rank %d of %d, id %u", c->local ? "local" : "agreed", me, n,
             id);
    *new_p = c;
    return LINCOLL_OK;
}
