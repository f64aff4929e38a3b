/*
 * core/exec/optag.c: operation tags (lincoll_coll_opts_t::tag and the tag
 * of the encode, repair and matmul options) as bind metadata.
 *
 * An api init opens a scope on its communicator (lc_optag_enter) and closes
 * it when the plan is bound (lc_optag_leave).  Every plan bound in the
 * scope, the init's own exchanges (the bind records, the attach statuses)
 * included, takes the scope's tag: lowering gives it the tagged wire bits
 * (transports/transport.h, "Tagged plans") instead of the communicator's
 * start sequence.  The compilers never see a tag.
 *
 * The scope also checks what one rank can see: a tag out of range, a
 * communicator too large for the tagged wire, and a tag that a live plan
 * of this rank holds on the same communicator id (LINCOLL_ERR_BUSY).  A
 * tagged init communicates with no one (lc_exec_can_map is 0 in the scope:
 * no zero-copy candidate, so no agreement on windows), so independent
 * coordinators may make and start their plans in any order.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "core/base/log.h"
#include "core/exec/exec.h"

#define LC_OPTAG_MAX_RANKS (1 << LC_TAG_OPTAG_SRC_BITS)

static const lincoll_plan_t *lc_optag_holder(const lincoll_comm_t *comm, uint64_t tag)
{
    for (const lincoll_plan_t *p = comm->ctx->tagged; p != NULL; p = p->tnext)
        if (p->optag == tag && lc_comm_wire_id(p->comm) == lc_comm_wire_id(comm)) return p;
    return NULL;
}

lincoll_status_t lc_optag_enter(lincoll_comm_t *comm, uint64_t tag, const char *fn, int *nested)
{
    *nested = comm->scope_open || comm->scope_on;
    if (*nested || tag == 0) {
        *nested = 1; /* nothing to close */
        return LINCOLL_OK;
    }
    LC_CHECK_ARG(tag <= LINCOLL_TAG_MAX,
                 "%s: opts->tag=%" PRIu64 " is above LINCOLL_TAG_MAX (%llu)", fn, tag,
                 (unsigned long long)LINCOLL_TAG_MAX);
    LC_CHECK_ARG(tag == 0 || lc_comm_wire_size(comm) <= LC_OPTAG_MAX_RANKS,
                 "%s: opts->tag needs a communicator of at most %d ranks (this one counts in %d)",
                 fn, LC_OPTAG_MAX_RANKS, lc_comm_wire_size(comm));
    const lincoll_plan_t *h = tag != 0 ? lc_optag_holder(comm, tag) : NULL;
    if (h != NULL) {
        lc_error("%s: opts->tag=%" PRIu64 " is held by a live plan (%s) on this communicator "
                 "(or its local groups' parent or sibling): free it first, or take another tag",
                 fn, tag, h->ir->algorithm);
        return LINCOLL_ERR_BUSY;
    }
    comm->scope_tag = tag;
    comm->scope_on = tag != 0;
    comm->scope_open = 1;
    return LINCOLL_OK;
}

void lc_optag_leave(lincoll_comm_t *comm, int nested, lincoll_status_t st, lincoll_plan_t *plan)
{
    if (nested) return;
    comm->scope_tag = 0;
    comm->scope_on = 0;
    comm->scope_open = 0;
    if (st != LINCOLL_OK || plan == NULL || !plan->tagged || plan->optag_live) return;
    plan->optag_live = 1;
    plan->tnext = comm->ctx->tagged;
    comm->ctx->tagged = plan;
}

void lc_optag_forget(lincoll_plan_t *plan)
{
    if (!plan->optag_live) return;
    for (lincoll_plan_t **pp = &plan->ctx->tagged; *pp != NULL; pp = &(*pp)->tnext) {
        if (*pp == plan) {
            *pp = plan->tnext;
            break;
        }
    }
    plan->optag_live = 0;
}

void lc_optag_internal(lincoll_comm_t *comm)
{
    comm->scope_tag = 0;
    comm->scope_on = 1;
}

void lc_optag_close(lincoll_comm_t *comm)
{
    comm->scope_tag = 0;
    comm->scope_on = 0;
}
