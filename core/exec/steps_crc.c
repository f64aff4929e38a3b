/*
 * core/exec/steps_crc.c: the checksum steps of core/plan/plan_checksum.c.
 *
 * LC_STEP_CRC_MAKE: dst (a uint32_t in plan scratch) <- crc32c of the len
 * bytes at a: the sender's checksum of a message, made after the steps that
 * prepare it.  LC_STEP_CRC_CHECK: the receiver's crc32c of the len bytes at a
 * must equal the uint32_t at b (the checksum the sender sent); otherwise the
 * plan ends with LINCOLL_ERR_CORRUPT and one log line naming the peer.
 */
#include "core/exec/steps.h"

#include <string.h>

#include "core/base/log.h"
#include "kernels/crc/crc32c.h"

lincoll_status_t lc_step_crc_run(lincoll_plan_t *p, const lc_step_t *s)
{
    uint32_t crc = lc_crc32c(0, lc_exec_ptr(p, s->a), s->len);
    if (s->kind == LC_STEP_CRC_MAKE) {
        memcpy(lc_exec_ptr(p, s->dst), &crc, sizeof(crc));
        return LINCOLL_OK;
    }
    uint32_t sent;
    memcpy(&sent, lc_exec_ptr(p, s->b), sizeof(sent));
    if (crc != sent) {
        lc_error("plan %s (comm %u, start %lu): the %zu-byte message from rank %d (round %u) "
                 "fails its crc32c check: computed %08x, sent %08x",
                 p->ir->algorithm, p->comm->id, p->ex.starts, s->len, s->peer,
                 p->ex.round > 0 ? p->ex.round - 1 : 0, (unsigned)crc, (unsigned)sent);
        return LINCOLL_ERR_CORRUPT;
    }
    return LINCOLL_OK;
}
