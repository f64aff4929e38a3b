/*
 * core/plan/pass_checksum.c: crc32c on every message and every put of a plan.
 *
 * A plan pass (plan in, plan out), run before lc_plan_finalize on any plan
 * (encode turns it on with LINCOLL_ENCODE_CHECKSUM=crc32c).
 * Round r becomes round 2r, followed by a new round r' = 2r+1 that carries
 * the checksums of its messages (every round gets one, also where this rank
 * sends and receives nothing, so the round numbers in the tags agree on
 * every rank):
 *
 *   round r : PRE  the algorithm's steps, then CRC_MAKE of every message or
 *                  put with data it sends (into a 4-byte plan-owned scratch
 *                  slot each);
 *             the algorithm's transfers (and DURING steps), unchanged;
 *   round r': one 4-byte message per data message or put, same peers, same
 *             order: the sender's crc of each one sent in r, and a receive of
 *             the peer's crc for each message received (or put waited for,
 *             with the region it lands in) in r;
 *             POST CRC_CHECK of everything received in r, then the
 *                  algorithm's POST steps of r (moved here, so nothing folds
 *                  data before it is checked).
 * r' runs on the same starts as r (rounds that run every n-th start).
 *
 * Tags: a checksum travels in round r' = a distinct tag round field, so it
 * never matches a data receive: a dropped message is a timeout, a duplicate
 * stays unmatched, and sizes never get confused.  The port limits hold
 * (r' has as many sends and receives as r).  A corrupted message (data or
 * checksum) makes its receiver's CRC_CHECK fail: that rank's plan ends with
 * LINCOLL_ERR_CORRUPT; ranks waiting on it end with LINCOLL_ERR_TIMEOUT.
 *
 * Cost, as the plan stats report it: C1 doubles (one more latency per data
 * round), each message costs 4 more bytes and one more message, and the
 * crc32c passes (sender and receiver) are counted as compute bytes.
 * Signals without data (0-byte puts, waits with no landing region) carry
 * nothing to check; loads from a peer's mapped memory (peer views) are not
 * transfers and are not covered.
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/plan/plan.h"

#define LC_CRC_BYTES 4

/* a transfer with data to check: a message, or a put / the wait for it */
static int lc_xfer_checked(const lc_xfer_t *x)
{
    return x->kind == LC_XFER_SEND || x->kind == LC_XFER_RECV || x->len > 0;
}

static int lc_xfer_outgoing(const lc_xfer_t *x)
{
    return x->kind == LC_XFER_SEND || x->kind == LC_XFER_PUT;
}

static int lc_round_has_msgs(const lc_round_t *R)
{
    for (unsigned i = 0; i < R->nxfers; i++) {
        if (lc_xfer_checked(&R->xfers[i])) return 1;
    }
    return 0;
}

/* Fill the checksum round c (index ci) for data round d (index di). */
static lincoll_status_t lc_checksum_round(lc_plan_t *p, int di, int ci)
{
    unsigned nx = p->rounds[di].nxfers, nrecv = 0;
    for (unsigned i = 0; i < nx; i++) {
        const lc_xfer_t *x = &p->rounds[di].xfers[i];
        nrecv += lc_xfer_checked(x) && !lc_xfer_outgoing(x);
    }
    lc_step_t *checks = calloc(nrecv + 1, sizeof(*checks));
    if (checks == NULL) return LINCOLL_ERR_NOMEM;
    unsigned nchecks = 0;
    lincoll_status_t st = LINCOLL_OK;
    for (unsigned i = 0; st == LINCOLL_OK && i < nx; i++) {
        lc_xfer_t x = p->rounds[di].xfers[i]; /* a copy: the builder may grow the array */
        if (!lc_xfer_checked(&x)) continue;
        int slot = lc_plan_slot_scratch(p, LC_CRC_BYTES);
        if (slot < 0) {
            st = LINCOLL_ERR_NOMEM;
            break;
        }
        lc_bufref_t crc = lc_ref(slot, 0);
        if (lc_xfer_outgoing(&x)) {
            lc_step_t s = {.kind = LC_STEP_CRC_MAKE,
                           .dst = crc,
                           .a = x.buf,
                           .len = x.len,
                           .peer = x.peer,
                           .work = (double)x.len};
            st = lc_plan_step(p, di, LC_STEP_PRE, &s);
            if (st == LINCOLL_OK) st = lc_plan_send(p, ci, x.peer, crc, LC_CRC_BYTES);
        } else {
            st = lc_plan_recv(p, ci, x.peer, crc, LC_CRC_BYTES);
            checks[nchecks++] = (lc_step_t){.kind = LC_STEP_CRC_CHECK,
                                            .dst = crc,
                                            .a = x.buf,
                                            .b = crc,
                                            .len = x.len,
                                            .peer = x.peer,
                                            .work = (double)x.len};
        }
    }
    if (st != LINCOLL_OK) {
        free(checks);
        return st;
    }
    /* POST of r': the checks first, then the algorithm's POST steps of r */
    lc_round_t *D = &p->rounds[di], *C = &p->rounds[ci];
    unsigned n = nchecks + D->npost;
    lc_step_t *post = realloc(checks, (n ? n : 1) * sizeof(*post));
    if (post == NULL) {
        free(checks);
        return LINCOLL_ERR_NOMEM;
    }
    if (D->npost > 0) memcpy(post + nchecks, D->post, D->npost * sizeof(*post));
    free(D->post);
    D->post = NULL;
    D->npost = D->cap_post = 0;
    C->post = post;
    C->npost = C->cap_post = n;
    C->every = D->every;
    C->phase = D->phase;
    return LINCOLL_OK;
}

lincoll_status_t lc_pass_checksum(lc_plan_t *p)
{
    if (p->finalized) {
        lc_error("plan %s: checksums must be added before the plan is finalized", p->algorithm);
        return LINCOLL_ERR_INTERNAL;
    }
    unsigned ndata = 0; /* rounds where this rank has messages */
    for (unsigned r = 0; r < p->nrounds; r++) {
        ndata += lc_round_has_msgs(&p->rounds[r]);
    }
    if (ndata == 0) return LINCOLL_OK; /* nothing to check, no tag to keep in step */
    /* every round gets its checksum round, even one where this rank has no
     * message: round r must stay round 2r on every rank of the plan, or the
     * tags of the ranks that do exchange messages there would not match */
    unsigned old = p->nrounds, total = 2 * old;
    if (total > LC_PLAN_MAX_ROUNDS) {
        lc_error("plan %s: %u rounds with checksum rounds, more than %u", p->algorithm, total,
                 LC_PLAN_MAX_ROUNDS);
        return LINCOLL_ERR_UNSUPPORTED;
    }
    if (total > p->cap_rounds) {
        lc_round_t *nr = realloc(p->rounds, total * sizeof(*nr));
        if (nr == NULL) return LINCOLL_ERR_NOMEM;
        p->rounds = nr;
        p->cap_rounds = total;
    }
    /* data round r moves to 2r, its checksum round (empty for now) is 2r+1 */
    for (unsigned r = old; r-- > 0;) {
        memset(&p->rounds[2 * r + 1], 0, sizeof(p->rounds[0]));
        p->rounds[2 * r + 1].every = 1;
        if (r > 0) {
            p->rounds[2 * r] = p->rounds[r];
            memset(&p->rounds[r], 0, sizeof(p->rounds[0]));
            p->rounds[r].every = 1;
        }
    }
    p->nrounds = total;
    lincoll_status_t st = LINCOLL_OK;
    for (unsigned r = 0; st == LINCOLL_OK && r < old; r++) {
        st = lc_checksum_round(p, (int)(2 * r), (int)(2 * r + 1));
    }
    if (st == LINCOLL_OK) {
        lc_debug("plan %s: crc32c on every message (%u data rounds, %u rounds in all)",
                 p->algorithm, ndata, total);
    }
    return st;
}
