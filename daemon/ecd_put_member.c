/*
 * daemon/ecd_put_member.c: a put, a member's side: its row's pieces (a data
 * row's PIECES stream, a small direct put's piece inline after ENCODE, or a
 * parity row's collective outputs) to a temporary, READY with its crc, then
 * COMMIT.
 */
#include "daemon/ecd_daemon.h"
#include "daemon/ecd_epoch.h"
#include "daemon/ecd_verify.h"
#include "kernels/crc/crc32c.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* What a member of a put shares with the connection that streams its data
 * pieces ("PIECES", served by its own thread). */
typedef struct member_pipe {
    struct member_pipe *next; /* pipes (pipe_lock) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char opid[64];
    int row;
    uint64_t chunk, stripe, nst;
    int nslot;
    uint8_t *ring; /* nslot pieces of stripe bytes (zero-padded) */
    uint64_t filled, consumed;
    int failed, attached, detached;
    ecd_conn_t *pc;
    ecd_temp_t tmp;
    uint32_t crc;
} member_pipe_t;

static pthread_mutex_t pipe_lock = PTHREAD_MUTEX_INITIALIZER;
static member_pipe_t *pipes; /* the puts this node takes part in, waiting for their data */

static void pipe_register(member_pipe_t *p)
{
    pthread_mutex_lock(&pipe_lock);
    p->next = pipes;
    pipes = p;
    pthread_mutex_unlock(&pipe_lock);
}

static void pipe_unregister(member_pipe_t *p)
{
    pthread_mutex_lock(&pipe_lock);
    for (member_pipe_t **q = &pipes; *q != NULL; q = &(*q)->next)
        if (*q == p) {
            *q = p->next;
            break;
        }
    pthread_mutex_unlock(&pipe_lock);
}

static void member_fail(member_pipe_t *p)
{
    pthread_mutex_lock(&p->mu);
    p->failed = 1;
    if (p->attached && !p->detached) ecd_conn_shutdown(p->pc);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* "PIECES OPID ROW": the coordinator streams this node's data row, the
 * pieces of every stripe in order (ecd_stripe_width bytes each). */
void peer_pieces(ecd_conn_t *c, char **w, int nw)
{
    char opid[64] = "";
    if (nw == 3) snprintf(opid, sizeof(opid), "%s", w[1]);
    sanitize_opid(opid);
    member_pipe_t *p = NULL;
    pthread_mutex_lock(&pipe_lock);
    for (member_pipe_t *q = pipes; nw == 3 && q != NULL && p == NULL; q = q->next) {
        if (strcmp(q->opid, opid) != 0 || q->row != atoi(w[2])) continue;
        pthread_mutex_lock(&q->mu);
        if (!q->attached && !q->failed) {
            p = q;
            p->attached = 1;
            p->pc = c;
        }
        pthread_mutex_unlock(&q->mu);
    }
    pthread_mutex_unlock(&pipe_lock);
    if (p == NULL) {
        reply_err(c, "PIECES: no put of that operation and row waits for data here");
        return;
    }
    int ok = ecd_printf(c, "OK\n") == 0;
    for (uint64_t s = 0; ok && s < p->nst; s++) {
        pthread_mutex_lock(&p->mu);
        while (!p->failed && s >= p->consumed + (uint64_t)p->nslot)
            pthread_cond_wait(&p->cv, &p->mu);
        ok = !p->failed;
        pthread_mutex_unlock(&p->mu);
        if (!ok) break;
        uint64_t wd = ecd_stripe_width(p->chunk, p->stripe, s);
        uint8_t *b = p->ring + (size_t)(s % (uint64_t)p->nslot) * p->stripe;
        if (ecd_read(c, b, wd) != 0) {
            ecd_log("put (op %s): the coordinator's data stream broke: %s", p->opid,
                    strerror(errno));
            ok = 0;
            break;
        }
        memset(b + wd, 0, p->stripe - wd);
        p->crc = lc_crc32c(p->crc, b, wd);
        if (ecd_temp_append(&p->tmp, b, wd) != 0) {
            ok = 0;
            break;
        }
        pthread_mutex_lock(&p->mu);
        p->filled = s + 1;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
    c->reuse = ok; /* the stream's last byte was read: another request may follow */
    pthread_mutex_lock(&p->mu);
    if (!ok) p->failed = 1;
    p->detached = 1;
    p->pc = NULL;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* Wait until piece s is in (0), or the put failed, the coordinator gave up
 * (its session connection spoke or closed) or nothing came for twice the
 * timeout (-1). */
static int member_wait_piece(member_pipe_t *p, ecd_conn_t *session, uint64_t s)
{
    double deadline = ecd_now() + 2 * cfg.timeout;
    pthread_mutex_lock(&p->mu);
    uint64_t seen = p->filled;
    while (!p->failed && p->filled <= s) {
        wait_until(&p->cv, &p->mu, 0.2);
        if (p->filled != seen) {
            seen = p->filled;
            deadline = ecd_now() + 2 * cfg.timeout;
        }
        struct pollfd pf = {.fd = session->fd, .events = POLLIN};
        if (ecd_conn_buffered(session) || poll(&pf, 1, 0) > 0 || ecd_now() > deadline) {
            ecd_log("put (op %s): %s while waiting for stripe %llu", p->opid,
                    ecd_now() > deadline ? "no data" : "the coordinator gave up",
                    (unsigned long long)s);
            p->failed = 1;
        }
    }
    int f = p->failed;
    pthread_mutex_unlock(&p->mu);
    return f ? -1 : 0;
}

/* A member's side of "ENCODE NAME SIZE CHUNK K M L RANK ROWS STRIPE [direct]
 * [inline] [E=SEQ/TAG]" (in an OP session of coordinator `coord`): the
 * collective runs on epoch SEQ (the session's, ep) with tags TAG + 32 i.
 * "direct inline" (one stripe of at most ECD_INLINE_MAX bytes): the row's
 * piece, STRIPE bytes, follows the line on the session itself. */
int member_encode(ecd_conn_t *c, const char *opid, int coord, char **w, int nw, ecd_epoch_t *ep)
{
    char tmp[1][600] = {{0}};
    uint8_t *pin = NULL, *pout = NULL;
    uint64_t *Gfull = NULL, *Gz = NULL;
    lincoll_comm_t *comm = NULL;
    lincoll_plan_t *plan[ECD_PUT_INFLIGHT] = {NULL};
    member_pipe_t p;
    memset(&p, 0, sizeof(p));
    p.tmp.fd = -1;
    int registered = 0, failed = 0, committed = 0;
    double t0 = ecd_now(), t_init = 0, t_plans = 0;
    ecd_vmember_t *vm = NULL; /* the coordinator's key: what the collective gives is checked */
    const char *vkey = NULL;
    if (vmember_take(w, &nw, &vkey) != 0) {
        reply_err(c, "ENCODE: a malformed verify= key");
        return 0;
    }
    int direct = 0, inl = 0, bad = nw < 10 || nw > 13;
    uint64_t eseq = 0, tag = 0;
    for (int i = 10; i < nw && !bad; i++) {
        if (strcmp(w[i], "direct") == 0)
            direct = 1;
        else if (strcmp(w[i], "inline") == 0)
            inl = 1;
        else if (sscanf(w[i], "E=%" SCNu64 "/%" SCNu64, &eseq, &tag) != 2)
            bad = 1;
    }
    if (bad) {
        reply_err(c, "ENCODE: expected 9 arguments, optional 'direct', 'inline' and 'E=SEQ/TAG'");
        return 0;
    }
    char name[ECD_NAME_MAX + 1];
    snprintf(name, sizeof(name), "%s", w[1]);
    unsigned long long size = strtoull(w[2], NULL, 10);
    uint64_t chunk = strtoull(w[3], NULL, 10), stripe = strtoull(w[9], NULL, 10);
    int k = atoi(w[4]), mm = atoi(w[5]), L = atoi(w[6]), rank = atoi(w[7]), n = k + mm;
    int node_of_row[ECD_MAX_NODES], nr = 0, crow = -1;
    for (char *s = w[8]; nr < ECD_MAX_NODES && *s;) {
        node_of_row[nr++] = (int)strtol(s, &s, 10);
        if (*s == ',') s++;
    }
    for (int r = 0; r < nr && r < L; r++)
        if (node_of_row[r] == coord) crow = r;
    if (!ecd_name_ok(name) || k < 1 || mm < 1 || n > ECD_MAX_NODES || nr != n || L < k || L > n ||
        rank < 0 || rank >= L || node_of_row[rank] != cfg.node || crow < 0 || crow == rank ||
        chunk < 1 || chunk > cfg.max_object || chunk * (uint64_t)k < size || stripe < 1 ||
        stripe > chunk || (inl && (!direct || stripe != chunk || chunk > ECD_INLINE_MAX))) {
        reply_err(c, "ENCODE: inconsistent arguments");
        return 0;
    }
    /* inline: this row's piece (one stripe) follows the line; it is read
     * before any answer, so that a refusal reaches the coordinator whole */
    if (inl && ((p.ring = malloc(stripe)) == NULL || ecd_read(c, p.ring, stripe) != 0)) {
        if (p.ring == NULL) reply_err(c, "ENCODE %s: out of memory", name);
        free(p.ring);
        return 0;
    }
    if (ecd_disk_has(&disk, name)) {
        reply_err(c, "ENCODE %s: this node already has an object of that name", name);
        free(p.ring);
        return 0;
    }
    /* direct: this row's pieces come on a PIECES stream whatever it is */
    const int encode = !direct && put_remote_parity(k, L, crow) > 0, data = rank < k || direct;
    if (encode && (ep == NULL || ep->seq != eseq || tag < 1 ||
                   tag + 32 * ECD_PUT_INFLIGHT > LINCOLL_TAG_MAX)) {
        reply_err(c, "ENCODE %s: no agreed epoch %llu here (EPOCH first) or a bad tag", name,
                  (unsigned long long)eseq);
        free(p.ring);
        return 0;
    }
    vm = vmember_new(vkey);
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    snprintf(p.opid, sizeof(p.opid), "%s", opid);
    p.row = rank;
    p.chunk = chunk, p.stripe = stripe, p.nst = ecd_stripe_count(chunk, stripe);
    p.nslot = (int)(ECD_MEMBER_RING / stripe);
    if (p.nslot < 3) p.nslot = 3;
    if ((uint64_t)p.nslot > p.nst) p.nslot = (int)p.nst;
    if (!inl) p.ring = data ? malloc((size_t)p.nslot * stripe) : NULL;
    /* the stripes whose collectives are in flight at once, one buffer each */
    const int nplan = p.nst < ECD_PUT_INFLIGHT ? (int)p.nst : ECD_PUT_INFLIGHT;
    pin = encode && data ? malloc((size_t)nplan * stripe) : NULL;
    pout = encode ? malloc((size_t)nplan * stripe) : NULL;
    Gfull = generator(n, k);
    Gz = Gfull ? put_collective_generator(Gfull, L, k, crow) : NULL;
    if ((data && p.ring == NULL) || (encode && (pout == NULL || (data && pin == NULL))) ||
        Gz == NULL) {
        reply_err(c, "ENCODE %s: out of memory", name);
        goto out;
    }
    if (ecd_temp_open(&disk, opid, name, rank, &p.tmp) != 0) {
        reply_err(c, "ENCODE %s: cannot write a temporary", name);
        goto out;
    }
    if (inl) { /* the whole row is here */
        p.crc = lc_crc32c(p.crc, p.ring, stripe);
        if (ecd_temp_append(&p.tmp, p.ring, stripe) != 0) {
            reply_err(c, "ENCODE %s: cannot write a temporary", name);
            goto out;
        }
        p.filled = 1;
    } else if (data) {
        pipe_register(&p);
        registered = 1;
    }
    /* inline: nothing comes before the answer, which goes with READY */
    if (!inl && ecd_printf(c, "OK\n") != 0) goto out;
    lincoll_status_t st = LINCOLL_OK;
    if (encode) { /* the operation's group on the epoch's context, its own tags */
        st = ecd_epoch_group(ep, node_of_row, L, &comm);
        lincoll_encode_opts_t eo = put_encode_opts;
        ecd_epoch_lock(ep);
        for (int i = 0; i < nplan && st == LINCOLL_OK; i++) {
            eo.tag = tag + 32 * (uint64_t)i;
            st = lincoll_encode_rs_init(comm, gf, k, LINCOLL_GF_RS_CAUCHY, Gz, stripe,
                                        data ? pin + (size_t)i * stripe : NULL,
                                        data ? NULL : pout + (size_t)i * stripe, &eo, &plan[i]);
        }
        ecd_epoch_unlock(ep);
        if (st != LINCOLL_OK) {
            ecd_log("put %s (op %s): the encode plan on epoch %llu: %s", name, opid,
                    (unsigned long long)eseq, lincoll_strerror(st));
            failed = 1;
        }
    }
    t_init = ecd_now() - t0;
    /* stripe s's collective starts as soon as its piece is in, while stripe
     * s - 1's still runs: the links do not idle between stripes (every rank
     * starts them in the same order, stripe by stripe) */
    for (uint64_t s = 0; !failed && s <= p.nst; s++) {
        if (s < p.nst) {
            int b = (int)(s % (uint64_t)nplan);
            if (data) {
                if (member_wait_piece(&p, c, s) != 0) {
                    failed = 1;
                    break;
                }
                if (encode)
                    memcpy(pin + (size_t)b * stripe,
                           p.ring + (size_t)(s % (uint64_t)p.nslot) * stripe, stripe);
                pthread_mutex_lock(&p.mu);
                p.consumed = s + 1;
                pthread_cond_broadcast(&p.cv);
                pthread_mutex_unlock(&p.mu);
            }
            if (encode) {
                ecd_epoch_lock(ep);
                st = lincoll_start(plan[b]);
                ecd_epoch_unlock(ep);
            }
            if (encode && st != LINCOLL_OK) {
                ecd_log("put %s (op %s): starting the encode of stripe %llu: %s", name, opid,
                        (unsigned long long)s, lincoll_strerror(st));
                failed = 1;
                break;
            }
        }
        if (s == 0 || !encode) continue;
        /* stripe s - 1 completes */
        uint64_t d = s - 1, wd = ecd_stripe_width(chunk, stripe, d);
        int b = (int)(d % (uint64_t)nplan);
        st = ecd_epoch_drive(ep, plan[b], c);
        if (st != LINCOLL_OK) {
            ecd_log("put %s (op %s): encode of stripe %llu: %s", name, opid, (unsigned long long)d,
                    lincoll_strerror(st));
            failed = 1;
            break;
        }
        if (!data) {
            uint8_t *o = pout + (size_t)b * stripe;
            vmember_piece(vm, o, wd, "a parity piece of a put");
            p.crc = lc_crc32c(p.crc, o, wd);
            if (ecd_temp_append(&p.tmp, o, wd) != 0) failed = 1;
        }
    }
    t_plans = ecd_now() - t0;
    if (encode) {
        int held = 0; /* a transfer the transport could not stop may use pin, pout */
        ecd_epoch_lock(ep);
        for (int i = 0; i < ECD_PUT_INFLIGHT; i++) {
            held |= lincoll_plan_free(plan[i]) == LINCOLL_ERR_BUSY; /* a running one is canceled */
            plan[i] = NULL;
        }
        lincoll_comm_free(comm);
        comm = NULL;
        ecd_epoch_unlock(ep);
        if (held) { /* freed with the epoch's context, which is finalized soon */
            ecd_epoch_keep(ep, pin);
            ecd_epoch_keep(ep, pout);
            pin = pout = NULL;
        }
        if (held || (failed && st != LINCOLL_OK && st != LINCOLL_ERR_PEER_FAILED))
            ecd_epoch_fail(ep);
    }
    if (registered) { /* the data stream ends with its last piece, or now */
        pipe_unregister(&p);
        registered = 0;
        if (failed) member_fail(&p);
        pthread_mutex_lock(&p.mu);
        while (p.attached && !p.detached)
            pthread_cond_wait(&p.cv, &p.mu);
        if (p.failed || !p.attached) failed = 1;
        pthread_mutex_unlock(&p.mu);
    }
    if (failed) {
        reply_err(c, "put %s: this node's part failed (see its log)", name);
        goto out;
    }
    if (ecd_temp_finish(&p.tmp, tmp[0], sizeof(tmp[0])) != 0) {
        reply_err(c, "writing the chunk failed");
        goto out;
    }
    ecd_log("put %s (op %s): row %d, %llu stripes: group ready %.3f s, last stripe %.3f s, "
            "durable %.3f s",
            name, opid, rank, (unsigned long long)p.nst, t_init, t_plans, ecd_now() - t0);
    char fpword[64];
    vmember_word(vm, fpword, sizeof(fpword));
    if (ecd_printf(c, "%sREADY %08x%s\n", inl ? "OK\n" : "", p.crc, fpword) != 0) goto out;
    char *text;
    size_t tlen;
    if (read_payload(c, "COMMIT", ECD_MANIFEST_MAX, &text, &tlen) != 0) {
        ecd_log("put %s (op %s): no commit from the coordinator (%s); dropped", name, opid,
                strerror(errno));
        goto out;
    }
    ecd_manifest_t m;
    char err[128];
    int ok = ecd_manifest_parse(text, tlen, &m, err, sizeof(err)) == 0 && !strcmp(m.name, name) &&
             m.node[rank] == cfg.node && m.crc[rank] == p.crc && m.chunk == chunk &&
             m.stripe == stripe;
    free(text);
    if (ok && ecd_disk_commit(&disk, &m, tmp, &rank, 1) == 0) {
        tmp[0][0] = '\0';
        committed = ecd_printf(c, "OK committed\n") == 0;
    } else {
        reply_err(c, "COMMIT refused: %s", ok ? "writing failed" : "the manifest does not match");
    }
out:
    if (registered) {
        pipe_unregister(&p);
        member_fail(&p);
        pthread_mutex_lock(&p.mu);
        while (p.attached && !p.detached)
            pthread_cond_wait(&p.cv, &p.mu);
        pthread_mutex_unlock(&p.mu);
    }
    ecd_temp_drop(&p.tmp);
    ecd_disk_abort(tmp, 1);
    free(p.ring);
    free(pin);
    free(pout);
    free(Gfull);
    free(Gz);
    vmember_end(vm);
    pthread_mutex_destroy(&p.mu);
    pthread_cond_destroy(&p.cv);
    return committed;
}
