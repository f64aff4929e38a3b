/*
 * core/exec/bind.c: from an IR to a plan that can run on a communicator
 * (docs/architecture.md, "Bind").
 *
 * Every plan: its scratch slots get one block of memory (zeroed where the
 * IR asks), user slots keep their pointers, and the rounds are lowered.
 *
 * Plans that declare windows also need every rank's remote keys: one
 * exchange of fixed-size bind records (LC_BIND_REC_BYTES) over the
 * communicator.  A record holds the call's shape (so ranks that passed
 * other arguments fail alike with LINCOLL_ERR_MISMATCH), this host's
 * identity, the window keys this rank offers, and their packed remote keys.
 * A rank offers a window when its memory allows it (a user slot must be
 * lincoll memory; the transport maps it into this process through
 * rkey_ptr), a scratch window only when every buffer of the plan is
 * lincoll memory (zero copy is for calls over lincoll memory; scratch
 * windows cost shared-memory segments), and its keys fit the record.  Every rank computes the same
 * verdict from the same records: the AND of the offered keys, and nothing at
 * all unless every record comes from this host.  The family then binds the
 * candidate whose windows were agreed (or a tag plan when none was), so
 * every rank takes the same path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/log.h"
#include "core/exec/exec.h"

#define LC_BIND_MAGIC    UINT64_C(0x6c63626e64726563) /* "lcbndrec" */
#define LC_BIND_MAX_KEYS 16
#define LC_BIND_HDR      56

struct lc_bind {
    lincoll_comm_t *comm;
    lc_bind_shape_t shape;
    lc_win_t *win[LC_BIND_MAX_KEYS];
    unsigned offered, agreed;
    unsigned char *recs; /* every rank's record (gathered) */
};

/* ---- the bound plan -------------------------------------------------------- */

static lincoll_status_t lc_bind_alloc(lincoll_comm_t *comm, lc_plan_t *ir, lincoll_plan_t **plan_p)
{
    lincoll_plan_t *p = calloc(1, sizeof(*p));
    if (p == NULL) return LINCOLL_ERR_NOMEM;
    p->ir = ir;
    p->comm = comm;
    p->ctx = comm->ctx;
    p->sptr = calloc(ir->nslots ? ir->nslots : 1, sizeof(*p->sptr));
    p->sbase = calloc(ir->nslots ? ir->nslots : 1, sizeof(*p->sbase));
    p->wins = calloc(ir->nwins ? ir->nwins : 1, sizeof(*p->wins));
    p->nwins = ir->nwins;
    if (p->sptr == NULL || p->sbase == NULL || p->wins == NULL) {
        free(p->sptr);
        free(p->sbase);
        free(p->wins);
        free(p);
        return LINCOLL_ERR_NOMEM;
    }
    p->optag = comm->scope_tag;
    p->tagged = comm->scope_on;
    comm->ctx->live_plans++;
    *plan_p = p;
    return LINCOLL_OK;
}

/* Bytes a scratch slot takes in its block: 64-byte aligned on the host,
 * 256 in device and page-locked blocks (the device copies' alignment). */
static size_t lc_scratch_round(size_t size, int mtype)
{
    size_t a = mtype == LC_MEM_HOST ? 64 : 256;
    return (size + a - 1) & ~(a - 1);
}

/* Scratch, user slots and peer views to pointers; credits; lowering. */
static lincoll_status_t lc_bind_resolve(lincoll_plan_t *p)
{
    lc_plan_t *ir = p->ir;
    /* scratch: one block per memory type (host, device, page-locked) */
    size_t total[3] = {0, 0, 0};
    for (unsigned i = 0; i < ir->nslots; i++) {
        if (ir->slots[i].kind == LC_SLOT_SCRATCH)
            total[ir->slots[i].mtype] += lc_scratch_round(ir->slots[i].size, ir->slots[i].mtype);
    }
    if (total[LC_MEM_HOST] > 0 && posix_memalign(&p->scratch_mem, 64, total[LC_MEM_HOST]) != 0) {
        p->scratch_mem = NULL;
        return LINCOLL_ERR_NOMEM;
    }
    char *block[3] = {p->scratch_mem, NULL, NULL};
    if (ir->has_dev || total[LC_MEM_DEV] > 0 || total[LC_MEM_PINNED] > 0) {
        lincoll_status_t st = lc_exec_dev_bind(p, total[LC_MEM_DEV], total[LC_MEM_PINNED]);
        if (st != LINCOLL_OK) return st;
        block[LC_MEM_DEV] = lc_exec_dev_mem(p, 0);
        block[LC_MEM_PINNED] = lc_exec_dev_mem(p, 1);
    }
    size_t off[3] = {0, 0, 0};
    for (unsigned i = 0; i < ir->nslots; i++) {
        const lc_slot_t *s = &ir->slots[i];
        char *ptr = NULL;
        switch (s->kind) {
        case LC_SLOT_USER:
            ptr = s->ptr;
            break;
        case LC_SLOT_SCRATCH:
            ptr = block[s->mtype] + off[s->mtype];
            off[s->mtype] += lc_scratch_round(s->size, s->mtype);
            if (s->zero && s->mtype == LC_MEM_DEV) {
                lincoll_status_t st = lc_exec_dev_memset(p, ptr, s->size);
                if (st != LINCOLL_OK) return st;
                p->ex.dev_pending = 1;
            } else if (s->zero) {
                memset(ptr, 0, s->size);
            }
            break;
        case LC_SLOT_PEER: {
            lc_win_t *w = p->wins[s->win];
            char *base = w != NULL ? lc_win_peer_ptr(w, s->peer) : NULL;
            if (base == NULL) {
                lc_error("plan %s: rank %d's window %d is not mapped here", ir->algorithm, s->peer,
                         s->win);
                return LINCOLL_ERR_UNSUPPORTED;
            }
            ptr = base + s->off;
            break;
        }
        }
        p->sbase[i] = p->sptr[i] = ptr;
    }
    for (unsigned i = 0; i < ir->ncredits; i++) {
        const lc_credit_t *c = &ir->credits[i];
        p->wins[c->win]->consumed[c->peer] -= c->n;
    }
    if (p->dev != NULL) { /* the zeroed device scratch */
        lincoll_status_t st = lc_exec_dev_wait(p);
        if (st != LINCOLL_OK) return st;
    }
    return lc_lower(p);
}

void lc_exec_free(lincoll_plan_t *p)
{
    if (p == NULL) return;
    if (p->ex.running) lc_exec_cancel(p);
    lc_optag_forget(p);
    lc_lower_free(p->low);
    lc_exec_dev_free(p);
    for (unsigned i = 0; i < p->nwins; i++)
        lc_win_destroy(p->wins[i]);
    free(p->wins);
    free(p->sptr);
    free(p->sbase);
    if (p->ex.orphans && p->scratch_mem != NULL) {
        /* sends released by a failure may still read it: kept until
         * lincoll_finalize has closed the transport */
        lc_context_keep(p->ctx, p->scratch_mem);
    } else {
        free(p->scratch_mem);
    }
    free(p->ex.reqs);
    free(p->ex.next);
    free(p->ex.ringoff);
    p->ctx->live_plans--;
    lc_plan_destroy(p->ir);
    free(p);
}

lincoll_status_t lc_bind_local(lincoll_comm_t *comm, lc_plan_t *ir, lincoll_plan_t **plan_p)
{
    if (!ir->finalized || ir->nwins > 0 || ir->env.P != comm->size || ir->env.rank != comm->rank) {
        lc_error("plan %s cannot be bound here (%s)", ir->algorithm,
                 !ir->finalized ? "not finalized"
                 : ir->nwins    ? "it declares windows"
                                : "compiled for another communicator");
        lc_plan_destroy(ir);
        return LINCOLL_ERR_INTERNAL;
    }
    lincoll_plan_t *p;
    lincoll_status_t st = lc_bind_alloc(comm, ir, &p);
    if (st != LINCOLL_OK) {
        lc_plan_destroy(ir);
        return st;
    }
    st = lc_bind_resolve(p);
    if (st != LINCOLL_OK) {
        lc_exec_free(p);
        return st;
    }
    *plan_p = p;
    return LINCOLL_OK;
}

/* ---- windows: records, agreement ----------------------------------------- */

unsigned lc_bind_keys(const lc_plan_t *ir)
{
    unsigned k = 0;
    for (unsigned i = 0; i < ir->nwins; i++)
        k |= 1u << ir->wins[i].key;
    return k;
}

/* This host and the namespaces that decide whether its processes can map
 * each other's shared memory, as a number every process that can computes
 * alike: the host name, the boot id, and the IPC, PID and mount namespaces
 * (System V segments live in an IPC namespace, POSIX ones under a mount
 * namespace's /dev/shm, and UCX opens a peer's segment through
 * /proc/PID, which needs the PID namespace).  Ranks in two containers, or
 * one started under `unshare --ipc`, differ here, so no key of theirs is
 * ever unpacked for mapping (docs/architecture.md, "Window lifetime"). */
static uint64_t lc_host_id(void)
{
    char buf[512] = {0};
    if (gethostname(buf, 255) != 0) buf[0] = '\0';
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f != NULL) {
        size_t n = strlen(buf);
        if (fgets(buf + n, (int)(sizeof(buf) - n), f) == NULL) buf[n] = '\0';
        fclose(f);
    }
    static const char *const ns[] = {"/proc/self/ns/ipc", "/proc/self/ns/pid", "/proc/self/ns/mnt"};
    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
        size_t n = strlen(buf);
        if (n + 1 >= sizeof(buf)) break;
        ssize_t r = readlink(ns[i], buf + n, sizeof(buf) - n - 1);
        buf[n + (r > 0 ? (size_t)r : 0)] = '\0';
    }
    uint64_t h = UINT64_C(1469598103934665603);
    for (const char *c = buf; *c != '\0'; c++)
        h = (h ^ (unsigned char)*c) * UINT64_C(1099511628211);
    return h;
}

/* Does this process map the memory behind its own packed key?  (The
 * transport maps a peer's memory only when it maps its own: UCX without a
 * shared-memory transport maps neither.) */
static int lc_bind_self_maps(lincoll_comm_t *comm, const void *blob, size_t len)
{
    lincoll_context_t *ctx = comm->ctx;
    if (ctx->tl_ops->rkey_ptr == NULL || len < 40) return 0;
    uint64_t h[4];
    memcpy(h, blob, 32);
    lc_tl_rkey_t *rk = NULL;
    int wself = comm->to_world[comm->rank];
    /* a device window: its data goes through IPC, its signal counters must
     * map (the executor adds to them directly) */
    const int dev = (h[0] & LC_WIN_DEV_BLOB) != 0;
    const uint64_t dl = h[0] & ~LC_WIN_DEV_BLOB;
    const char *key = (const char *)blob + 32 + (dev ? dl : 0);
    size_t kl = dev ? h[1] : dl;
    if (32 + dl + h[1] > len ||
        ctx->tl_ops->rkey_unpack(ctx->tl, wself, key, kl, &rk) != LINCOLL_OK)
        return 0;
    uint64_t at;
    memcpy(&at, key, 8); /* packed keys start with their base */
    int ok = ctx->tl_ops->rkey_ptr(ctx->tl, rk, dev ? at : h[2]) != NULL;
    ctx->tl_ops->rkey_destroy(ctx->tl, rk);
    return ok;
}

void lc_bind_drop(lc_bind_t *b)
{
    if (b == NULL) return;
    for (int k = 0; k < LC_BIND_MAX_KEYS; k++)
        lc_win_destroy(b->win[k]);
    free(b->recs);
    free(b);
}

lincoll_status_t lc_bind_prepare(lincoll_comm_t *comm, const lc_plan_t *ir,
                                 const lc_bind_shape_t *shape, lc_bind_t **bind_p, void **rec_p)
{
    lincoll_context_t *ctx = comm->ctx;
    lc_bind_t *b = calloc(1, sizeof(*b));
    unsigned char *rec = calloc(1, LC_BIND_REC_BYTES);
    if (b == NULL || rec == NULL) {
        free(b);
        free(rec);
        return LINCOLL_ERR_NOMEM;
    }
    b->comm = comm;
    b->shape = *shape;
    size_t used = LC_BIND_HDR;
    uint32_t nblobs = 0;
    lincoll_status_t st = LINCOLL_OK;
    /* zero copy is for calls over lincoll memory: scratch windows (each costs
     * shared-memory segments per plan) only where every buffer of the plan is
     * lincoll memory; a window over a user slot where that slot is */
    int lincoll_mem = 1; /* device buffers count: peers open them through IPC */
    for (unsigned i = 0; i < ir->nslots; i++) {
        const lc_slot_t *sl = &ir->slots[i];
        if (sl->kind == LC_SLOT_USER && sl->size > 0 && sl->mtype != LC_MEM_DEV &&
            (sl->ptr == NULL || lc_mem_find(ctx, sl->ptr, sl->size) == NULL))
            lincoll_mem = 0;
    }
    for (unsigned i = 0; st == LINCOLL_OK && i < ir->nwins; i++) {
        const lc_win_decl_t *d = &ir->wins[i];
        if (d->key < 0 || d->key >= LC_BIND_MAX_KEYS || b->win[d->key] != NULL) {
            lc_error("plan %s: window key %d is out of range or repeated", ir->algorithm, d->key);
            st = LINCOLL_ERR_INTERNAL;
            break;
        }
        void *base = NULL;
        if (d->kind == LC_WIN_SCRATCH && !lincoll_mem) continue;
        if (d->kind == LC_WIN_USER) {
            base = ir->slots[d->slot].ptr;
            /* only lincoll memory is mapped by the peers (device memory
             * through IPC) */
            if (d->len == 0 || base == NULL ||
                (d->mtype != LC_MEM_DEV && lc_mem_find(ctx, base, d->len) == NULL))
                continue;
        }
        lc_win_t *w = NULL;
        void *blob = NULL;
        size_t bl = 0;
        if (lc_win_prepare_typed(comm, base, d->len ? d->len : 1, d->mtype, &w, &blob, &bl) !=
            LINCOLL_OK) {
            continue; /* not offered: the peers learn it from the record */
        }
        if (used + 8 + bl > LC_BIND_REC_BYTES || !lc_bind_self_maps(comm, blob, bl)) {
            lc_win_destroy(w);
            free(blob);
            continue;
        }
        uint32_t kl[2] = {(uint32_t)d->key, (uint32_t)bl};
        memcpy(rec + used, kl, 8);
        memcpy(rec + used + 8, blob, bl);
        used += 8 + bl;
        nblobs++;
        free(blob);
        b->win[d->key] = w;
        b->offered |= 1u << d->key;
    }
    if (st != LINCOLL_OK) {
        lc_bind_drop(b);
        free(rec);
        return st;
    }
    uint64_t h[7] = {LC_BIND_MAGIC, shape->w[0], shape->w[1], shape->w[2],
                     lc_host_id(),  b->offered,  nblobs};
    memcpy(rec, h, LC_BIND_HDR);
    *bind_p = b;
    *rec_p = rec;
    return LINCOLL_OK;
}

/* The blob of key k in record r, or NULL. */
static const unsigned char *lc_rec_blob(const unsigned char *r, int key, size_t *len_p)
{
    uint64_t h[7];
    memcpy(h, r, LC_BIND_HDR);
    size_t at = LC_BIND_HDR;
    for (uint64_t i = 0; i < h[6] && at + 8 <= LC_BIND_REC_BYTES; i++) {
        uint32_t kl[2];
        memcpy(kl, r + at, 8);
        if (at + 8 + kl[1] > LC_BIND_REC_BYTES) return NULL;
        if ((int)kl[0] == key) {
            *len_p = kl[1];
            return r + at + 8;
        }
        at += 8 + kl[1];
    }
    return NULL;
}

lincoll_status_t lc_bind_gathered(lc_bind_t *b, const void *recs, unsigned *keys_p)
{
    lincoll_comm_t *comm = b->comm;
    const int P = comm->size;
    const unsigned char *all = recs;
    unsigned agreed = b->offered;
    uint64_t mine[7];
    memcpy(mine, all + (size_t)comm->rank * LC_BIND_REC_BYTES, LC_BIND_HDR);
    lincoll_status_t st = LINCOLL_OK;
    for (int i = 0; i < P; i++) {
        uint64_t h[7];
        memcpy(h, all + (size_t)i * LC_BIND_REC_BYTES, LC_BIND_HDR);
        if (h[0] != LC_BIND_MAGIC || h[1] != mine[1] || h[2] != mine[2] || h[3] != mine[3]) {
            lc_error("rank %d passed other arguments to this call (or took another path): every "
                     "rank of the communicator must make the same call",
                     i);
            st = LINCOLL_ERR_MISMATCH;
        }
        if (h[4] != mine[4]) agreed = 0; /* ranks on other hosts map nothing */
        agreed &= (unsigned)h[5];
    }
    if (st != LINCOLL_OK) agreed = 0;
    /* device windows: every rank's handles must open in every other rank
     * (one IPC domain), else the key is not agreed */
    for (int k = 0; k < LC_BIND_MAX_KEYS; k++) {
        if (!((agreed >> k) & 1)) continue;
        uint64_t dom0 = 0;
        for (int i = 0; i < P; i++) {
            size_t bl = 0;
            const unsigned char *blob = lc_rec_blob(all + (size_t)i * LC_BIND_REC_BYTES, k, &bl);
            uint64_t dom = blob != NULL ? lc_win_blob_domain(blob, bl) : 0;
            if (i == 0) dom0 = dom;
            if (dom != dom0) agreed &= ~(1u << k);
        }
    }
    /* windows nobody else will use go now; the agreed ones are attached by
     * lc_bind_finish (every rank computed the same set from the same records,
     * so no peer unpacks a key of a window this rank drops) */
    for (int k = 0; k < LC_BIND_MAX_KEYS; k++) {
        if (b->win[k] != NULL && !((agreed >> k) & 1)) {
            lc_win_destroy(b->win[k]);
            b->win[k] = NULL;
        }
    }
    if (agreed != 0) {
        b->recs = malloc((size_t)P * LC_BIND_REC_BYTES);
        if (b->recs == NULL) return LINCOLL_ERR_NOMEM;
        memcpy(b->recs, all, (size_t)P * LC_BIND_REC_BYTES);
    }
    b->agreed = agreed;
    *keys_p = agreed;
    return st;
}

/* Attach the agreed window of key k: every peer's keys, every peer mapped. */
static lincoll_status_t lc_bind_attach_key(lc_bind_t *b, int k)
{
    const int P = b->comm->size;
    const void **blobs = calloc((size_t)P, sizeof(*blobs));
    size_t *lens = calloc((size_t)P, sizeof(*lens));
    lincoll_status_t st = blobs != NULL && lens != NULL ? LINCOLL_OK : LINCOLL_ERR_NOMEM;
    for (int i = 0; st == LINCOLL_OK && i < P; i++) {
        blobs[i] = lc_rec_blob(b->recs + (size_t)i * LC_BIND_REC_BYTES, k, &lens[i]);
        if (blobs[i] == NULL) st = LINCOLL_ERR_INTERNAL;
    }
    if (st == LINCOLL_OK) st = lc_win_attach(b->win[k], blobs, lens);
    for (int i = 0; st == LINCOLL_OK && i < P; i++) {
        if (lc_win_peer_ptr(b->win[k], i) == NULL) st = LINCOLL_ERR_INTERNAL;
    }
    if (st != LINCOLL_OK)
        lc_error("window key %d: a peer's memory is not mapped here although every rank "
                 "offered it (%s)",
                 k, lincoll_strerror(st));
    free(blobs);
    free(lens);
    return st;
}

lincoll_status_t lc_bind_agree(lincoll_comm_t *comm, const lc_plan_t *ir,
                               const lc_bind_shape_t *shape, lc_bind_t **bind_p, unsigned *keys_p)
{
    void *rec = NULL;
    lc_bind_t *b = NULL;
    *bind_p = NULL;
    *keys_p = 0;
    lincoll_status_t st = lc_bind_prepare(comm, ir, shape, &b, &rec);
    if (st != LINCOLL_OK) {
        /* still take part in the exchange, offering nothing, so no peer hangs */
        lc_bind_shape_t none = {{0, 0, 0}};
        st = lc_bind_prepare(comm, &(lc_plan_t){.env = ir->env}, &none, &b, &rec);
        if (st != LINCOLL_OK) return st;
    }
    void *all = malloc((size_t)comm->size * LC_BIND_REC_BYTES);
    if (all == NULL) {
        free(rec);
        lc_bind_drop(b);
        return LINCOLL_ERR_NOMEM;
    }
    st = lc_comm_allgather_bytes(comm, rec, all, LC_BIND_REC_BYTES);
    if (st == LINCOLL_OK) st = lc_bind_gathered(b, all, keys_p);
    free(rec);
    free(all);
    if (st != LINCOLL_OK) {
        lc_bind_drop(b);
        *keys_p = 0;
        return st;
    }
    *bind_p = b;
    return LINCOLL_OK;
}

/* Attach the agreed windows ir uses (every peer's keys unpacked). */
static lincoll_status_t lc_bind_attach_ir(lc_bind_t *b, const lc_plan_t *ir)
{
    lincoll_comm_t *comm = b->comm;
    lincoll_status_t st = LINCOLL_OK;
    if (!ir->finalized || ir->env.P != comm->size || ir->env.rank != comm->rank) {
        st = LINCOLL_ERR_INTERNAL;
    }
    for (unsigned i = 0; st == LINCOLL_OK && i < ir->nwins; i++) {
        int k = ir->wins[i].key;
        if (k < 0 || k >= LC_BIND_MAX_KEYS || b->win[k] == NULL || !((b->agreed >> k) & 1)) {
            lc_error("plan %s: window key %d was not agreed", ir->algorithm, k);
            st = LINCOLL_ERR_INTERNAL;
        } else {
            st = lc_bind_attach_key(b, k);
        }
    }
    return st;
}

/* The plan over the attached windows, once every rank has reported its
 * attach (st: the verdict, the same on every rank). */
static lincoll_status_t lc_bind_build(lc_bind_t *b, lc_plan_t *ir, lincoll_status_t st,
                                      lincoll_plan_t **plan_p)
{
    lincoll_comm_t *comm = b->comm;
    lincoll_plan_t *p = NULL;
    if (st == LINCOLL_OK) st = lc_bind_alloc(comm, ir, &p);
    if (st != LINCOLL_OK) {
        lc_plan_destroy(ir);
        lc_bind_drop(b);
        return st;
    }
    for (unsigned i = 0; i < ir->nwins; i++) { /* the plan takes the windows it uses */
        p->wins[i] = b->win[ir->wins[i].key];
        b->win[ir->wins[i].key] = NULL;
    }
    lc_bind_drop(b);
    st = lc_bind_resolve(p);
    if (st != LINCOLL_OK) {
        lc_exec_free(p);
        return st;
    }
    *plan_p = p;
    return LINCOLL_OK;
}

/* Attach, then one more allgather of every rank's attach status: no rank
 * leaves before every peer has unpacked its keys (so none frees a window a
 * peer is still attaching), and a failed attach anywhere fails the call on
 * every rank alike. */
lincoll_status_t lc_bind_finish(lc_bind_t *b, lc_plan_t *ir, lincoll_plan_t **plan_p)
{
    lincoll_comm_t *comm = b->comm;
    lincoll_status_t st =
        lc_comm_agree_status(comm, lc_bind_attach_ir(b, ir), "mapping the peers' windows");
    return lc_bind_build(b, ir, st, plan_p);
}

/* ---- the environment ------------------------------------------------------- */

/* Does the transport move device memory itself (a UCX built with CUDA)?  A
 * test may force the answer (lc_dev_force_tl_direct). */
static int lc_exec_tl_dev(const lincoll_context_t *ctx)
{
    int forced = lc_dev_tl_direct_forced();
    if (forced >= 0) return forced;
    return ctx->tl_ops->mem_types != NULL && lc_dev() != NULL &&
           (ctx->tl_ops->mem_types(ctx->tl) & LC_TL_MEM_TYPE_CUDA) != 0 &&
           lc_dev() != &lc_dev_fake_ops;
}

lc_env_t lc_exec_env(const lincoll_comm_t *comm, int mapped)
{
    lc_env_t e = {.P = comm->size,
                  .rank = comm->rank,
                  .ports = comm->ctx->ports,
                  .mapped = mapped,
                  .cfg = &comm->ctx->cfg,
                  .mem_type = lc_dev_mem_type,
                  .dev = lc_dev() != NULL,
                  .tl_dev = lc_exec_tl_dev(comm->ctx)};
    return e;
}

int lc_exec_can_map(const lincoll_comm_t *comm)
{
    const lincoll_context_t *ctx = comm->ctx;
    /* a real bootstrap (sim ranks driven from one thread cannot agree at
     * init), a transport whose puts into mapped memory are stores, and a job
     * that may live on one host (every rank sees the same local_size); not
     * a tagged init (core/exec/optag.c), which never communicates, so that
     * independent coordinators may make its plans in any order */
    return comm->size >= 2 && !comm->scope_on && ctx->boot != NULL &&
           ctx->tl_ops->rkey_ptr != NULL && ctx->tl_ops->mapped_put_is_store &&
           (ctx->boot->local_size < 0 || ctx->boot->local_size == ctx->size);
}

lincoll_status_t lc_bind_together(lincoll_comm_t **comms, int n, lc_plan_t **irs,
                                  lincoll_plan_t **plans)
{
    int wins = 0;
    for (int r = 0; r < n; r++) {
        plans[r] = NULL;
        wins |= irs[r] != NULL && irs[r]->nwins > 0;
    }
    lincoll_status_t first = LINCOLL_OK;
    if (!wins) {
        for (int r = 0; r < n; r++) {
            lincoll_status_t st = irs[r] ? lc_bind_local(comms[r], irs[r], &plans[r]) : LINCOLL_OK;
            irs[r] = NULL;
            if (st != LINCOLL_OK && first == LINCOLL_OK) first = st;
        }
    } else {
        lc_bind_t **b = calloc((size_t)n, sizeof(*b));
        char *recs = calloc((size_t)n, LC_BIND_REC_BYTES);
        lc_bind_shape_t shape = {{1, 2, 3}};
        if (b == NULL || recs == NULL) first = LINCOLL_ERR_NOMEM;
        for (int r = 0; r < n && first == LINCOLL_OK; r++) {
            void *rec = NULL;
            first = irs[r] != NULL ? lc_bind_prepare(comms[r], irs[r], &shape, &b[r], &rec)
                                   : LINCOLL_ERR_INTERNAL;
            if (first == LINCOLL_OK)
                memcpy(recs + (size_t)r * LC_BIND_REC_BYTES, rec, LC_BIND_REC_BYTES);
            free(rec);
        }
        for (int r = 0; r < n && first == LINCOLL_OK; r++) {
            unsigned keys;
            first = lc_bind_gathered(b[r], recs, &keys);
            if (first == LINCOLL_OK && (keys & lc_bind_keys(irs[r])) != lc_bind_keys(irs[r]))
                first = LINCOLL_ERR_UNSUPPORTED;
        }
        int32_t *att = first == LINCOLL_OK ? calloc((size_t)n, sizeof(int32_t)) : NULL;
        if (first == LINCOLL_OK && att == NULL) first = LINCOLL_ERR_NOMEM;
        for (int r = 0; r < n && first == LINCOLL_OK; r++)
            att[r] = lc_bind_attach_ir(b[r], irs[r]);
        for (int r = 0; r < n && first == LINCOLL_OK; r++) {
            lincoll_status_t st = lc_bind_build(
                b[r], irs[r], lc_status_verdict(att, n, r, "mapping the peers' windows"),
                &plans[r]);
            b[r] = NULL;
            irs[r] = NULL;
            if (st != LINCOLL_OK) first = st;
        }
        free(att);
        for (int r = 0; r < n; r++) { /* what was not built */
            if (b != NULL) lc_bind_drop(b[r]);
            lc_plan_destroy(irs[r]);
            irs[r] = NULL;
        }
        free(b);
        free(recs);
    }
    if (first != LINCOLL_OK) {
        for (int r = 0; r < n; r++) {
            lc_exec_free(plans[r]);
            plans[r] = NULL;
        }
    }
    return first;
}
