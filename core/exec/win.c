/*
 * core/exec/win.c: RMA windows (see win.h) and the public lincoll_win_* API.
 *
 * Each rank packs the remote keys of its data region and of its signal
 * counters (lc_win_prepare); with everyone's keys a window is attached, the
 * keys unpacked once per peer (lc_win_attach).  A plan's windows get the
 * peers' keys from the one exchange of bind records (bind.c); a public
 * window (lincoll_win_create, lc_win_create) from two allgathers over the
 * communicator (lengths, then blobs padded to the longest).
 */
#include "core/exec/exec.h"

#include <lincoll/rma.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/config.h"
#include "core/base/log.h"
#include "core/exec/wait.h"

static void lc_win_free_keys(lc_win_t *w)
{
    lincoll_context_t *ctx = w->comm->ctx;
    for (int i = 0; i < w->comm->size; i++) {
        if (w->rkeys != NULL && w->rkeys[i] != NULL)
            ctx->tl_ops->rkey_destroy(ctx->tl, w->rkeys[i]);
        if (w->sig_rkeys != NULL && w->sig_rkeys[i] != NULL)
            ctx->tl_ops->rkey_destroy(ctx->tl, w->sig_rkeys[i]);
    }
}

void lc_win_destroy(lc_win_t *w)
{
    if (w == NULL) {
        return;
    }
    lincoll_context_t *ctx = w->comm->ctx;
    for (unsigned i = 0; i < w->npending; i++) {
        (void)ctx->tl_ops->release(ctx->tl, w->pending[i]);
    }
    lc_win_free_keys(w);
    if (w->dev) {
        const lc_dev_ops_t *d = lc_dev();
        for (int i = 0; d != NULL && w->ipc_base != NULL && i < w->comm->size; i++)
            if (w->ipc_base[i] != NULL) d->ipc_close(w->ipc_base[i]);
        if (d != NULL && w->dev_own != NULL) d->free(w->dev_own);
    }
    free(w->ipc_base);
    if (w->mem != NULL) ctx->tl_ops->mem_dereg(ctx->tl, w->mem);
    if (w->sig_mem != NULL) ctx->tl_ops->mem_dereg(ctx->tl, w->sig_mem);
    free(w->rkeys);
    free(w->sig_rkeys);
    free(w->rbase);
    free(w->rsig);
    free(w->consumed);
    free(w->rlen);
    free(w->mdata);
    free(w->msig);
    free(w->pending);
    free(w);
}

/* Blob: [u64 data_key_len][u64 sig_key_len][u64 window base][u64 window
 * length][data key][sig key].  The window base and length travel explicitly:
 * a registration may cover more than the window (the transport shares
 * registrations of overlapping user memory). */
#define LC_WIN_HDR 32
static lincoll_status_t lc_win_pack(lc_win_t *w, lc_tl_mem_t *data_mem, void **blob_p,
                                    size_t *len_p)
{
    lincoll_context_t *ctx = w->comm->ctx;
    void *dk = NULL, *sk = NULL;
    size_t dl = 0, sl = 0;
    unsigned char *mine = NULL;
    lincoll_status_t st = ctx->tl_ops->rkey_pack(ctx->tl, data_mem, &dk, &dl);
    if (st == LINCOLL_OK) st = ctx->tl_ops->rkey_pack(ctx->tl, w->sig_mem, &sk, &sl);
    if (st == LINCOLL_OK && (mine = malloc(LC_WIN_HDR + dl + sl)) == NULL) st = LINCOLL_ERR_NOMEM;
    if (st == LINCOLL_OK) {
        uint64_t h[4] = {dl, sl, (uint64_t)(uintptr_t)w->base, w->len};
        memcpy(mine, h, LC_WIN_HDR);
        memcpy(mine + LC_WIN_HDR, dk, dl);
        memcpy(mine + LC_WIN_HDR + dl, sk, sl);
        *blob_p = mine;
        *len_p = LC_WIN_HDR + dl + sl;
    }
    free(dk);
    free(sk);
    return st;
}

uint64_t lc_win_blob_domain(const void *blob, size_t len)
{
    uint64_t h[4], dom = 0;
    if (len < LC_WIN_HDR + LC_WIN_DEV_KEY) return 0;
    memcpy(h, blob, LC_WIN_HDR);
    if (!(h[0] & LC_WIN_DEV_BLOB)) return 0;
    memcpy(&dom, (const char *)blob + LC_WIN_HDR + LC_DEV_IPC_BYTES + 8, 8);
    return dom;
}

/* Open rank i's device region (not this rank's own: its base is w->base). */
static lincoll_status_t lc_win_attach_dev(lc_win_t *w, int i, const unsigned char *key)
{
    if (i == w->comm->rank) return LINCOLL_OK;
    const lc_dev_ops_t *d = lc_dev();
    uint64_t off;
    memcpy(&off, key + LC_DEV_IPC_BYTES, 8);
    void *base = NULL;
    lincoll_status_t st = d != NULL ? d->ipc_open(key, &base) : LINCOLL_ERR_UNSUPPORTED;
    if (st != LINCOLL_OK) {
        lc_error("window: rank %d's device memory cannot be opened here (%s)", i,
                 lincoll_strerror(st));
        return st;
    }
    w->ipc_base[i] = base;
    w->mdata[i] = (char *)base + off;
    return LINCOLL_OK;
}

lincoll_status_t lc_win_attach(lc_win_t *w, const void *const *blobs, const size_t *lens)
{
    lincoll_comm_t *comm = w->comm;
    lincoll_context_t *ctx = comm->ctx;
    lincoll_status_t st = LINCOLL_OK;
    for (int i = 0; st == LINCOLL_OK && i < comm->size; i++) {
        const unsigned char *b = blobs[i];
        uint64_t h[4];
        if (lens[i] < LC_WIN_HDR || lens[i] > (1u << 20)) {
            lc_error("window: rank %d published a %zu-byte key blob", i, lens[i]);
            return LINCOLL_ERR_MISMATCH;
        }
        memcpy(h, b, LC_WIN_HDR);
        const int dev = (h[0] & LC_WIN_DEV_BLOB) != 0;
        h[0] &= ~LC_WIN_DEV_BLOB;
        if (dev != w->dev || h[0] > lens[i] || h[1] > lens[i] ||
            h[0] + h[1] + LC_WIN_HDR != lens[i] || (dev && h[0] != LC_WIN_DEV_KEY)) {
            lc_error("window: rank %d published a malformed key blob (or one of another memory "
                     "type)",
                     i);
            return LINCOLL_ERR_MISMATCH;
        }
        int wpeer = comm->to_world[i];
        if (dev) { /* device data: the IPC handle and the offset in its allocation */
            st = lc_win_attach_dev(w, i, b + LC_WIN_HDR);
            if (st == LINCOLL_OK)
                st = ctx->tl_ops->rkey_unpack(ctx->tl, wpeer, b + LC_WIN_HDR + h[0], h[1],
                                              &w->sig_rkeys[i]);
            if (st != LINCOLL_OK) return st;
            w->rbase[i] = h[2];
            w->rlen[i] = h[3];
            memcpy(&w->rsig[i], b + LC_WIN_HDR + h[0], 8);
            if (i != comm->rank && ctx->tl_ops->rkey_ptr != NULL)
                w->msig[i] = ctx->tl_ops->rkey_ptr(ctx->tl, w->sig_rkeys[i],
                                                   w->rsig[i] + 8 * (uint64_t)comm->rank);
            continue;
        }
        st = ctx->tl_ops->rkey_unpack(ctx->tl, wpeer, b + LC_WIN_HDR, h[0], &w->rkeys[i]);
        if (st == LINCOLL_OK)
            st = ctx->tl_ops->rkey_unpack(ctx->tl, wpeer, b + LC_WIN_HDR + h[0], h[1],
                                          &w->sig_rkeys[i]);
        if (st == LINCOLL_OK) {
            w->rbase[i] = h[2];
            w->rlen[i] = h[3];
            memcpy(&w->rsig[i], b + LC_WIN_HDR + h[0], 8); /* packed keys start with their base */
        }
        /* only where the transport's own put into a mapped region is this
         * same store (not sim: it measures every put) */
        if (st == LINCOLL_OK && i != comm->rank && ctx->tl_ops->rkey_ptr != NULL &&
            ctx->tl_ops->mapped_put_is_store) {
            void *d = ctx->tl_ops->rkey_ptr(ctx->tl, w->rkeys[i], w->rbase[i]);
            void *g = ctx->tl_ops->rkey_ptr(ctx->tl, w->sig_rkeys[i],
                                            w->rsig[i] + 8 * (uint64_t)comm->rank);
            if (d != NULL && g != NULL) {
                w->mdata[i] = d;
                w->msig[i] = g;
            }
        }
    }
    return st;
}

lincoll_status_t lc_win_prepare(lincoll_comm_t *comm, void *base, size_t len, lc_win_t **win_p,
                                void **blob_p, size_t *blob_len_p)
{
    return lc_win_prepare_typed(comm, base, len, LC_MEM_HOST, win_p, blob_p, blob_len_p);
}

/* The blob of a device window: the header, the IPC handle and offset, the
 * signal counters' key. */
static lincoll_status_t lc_win_pack_dev(lc_win_t *w, void **blob_p, size_t *len_p)
{
    lincoll_context_t *ctx = w->comm->ctx;
    const lc_dev_ops_t *d = lc_dev();
    unsigned char key[LC_WIN_DEV_KEY];
    size_t off = 0;
    lincoll_status_t st = d != NULL ? d->ipc_export(w->base, key, &off) : LINCOLL_ERR_UNSUPPORTED;
    if (st != LINCOLL_OK) return st;
    uint64_t o = off, dom = d->ipc_domain();
    memcpy(key + LC_DEV_IPC_BYTES, &o, 8);
    memcpy(key + LC_DEV_IPC_BYTES + 8, &dom, 8);
    void *sk = NULL;
    size_t sl = 0;
    st = ctx->tl_ops->rkey_pack(ctx->tl, w->sig_mem, &sk, &sl);
    unsigned char *mine = st == LINCOLL_OK ? malloc(LC_WIN_HDR + sizeof(key) + sl) : NULL;
    if (st == LINCOLL_OK && mine == NULL) st = LINCOLL_ERR_NOMEM;
    if (st == LINCOLL_OK) {
        uint64_t h[4] = {sizeof(key) | LC_WIN_DEV_BLOB, sl, (uint64_t)(uintptr_t)w->base, w->len};
        memcpy(mine, h, LC_WIN_HDR);
        memcpy(mine + LC_WIN_HDR, key, sizeof(key));
        memcpy(mine + LC_WIN_HDR + sizeof(key), sk, sl);
        *blob_p = mine;
        *len_p = LC_WIN_HDR + sizeof(key) + sl;
    }
    free(sk);
    return st;
}

lincoll_status_t lc_win_prepare_typed(lincoll_comm_t *comm, void *base, size_t len, int mtype,
                                      lc_win_t **win_p, void **blob_p, size_t *blob_len_p)
{
    lincoll_context_t *ctx = comm->ctx;
    int P = comm->size;
    lc_win_t *w = calloc(1, sizeof(*w));
    if (w == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    w->comm = comm;
    w->base = base;
    w->len = len;
    w->rkeys = calloc((size_t)P, sizeof(*w->rkeys));
    w->sig_rkeys = calloc((size_t)P, sizeof(*w->sig_rkeys));
    w->rbase = calloc((size_t)P, sizeof(uint64_t));
    w->rsig = calloc((size_t)P, sizeof(uint64_t));
    w->consumed = calloc((size_t)P, sizeof(uint64_t));
    w->rlen = calloc((size_t)P, sizeof(uint64_t));
    w->mdata = calloc((size_t)P, sizeof(char *));
    w->msig = calloc((size_t)P, sizeof(uint64_t *));
    w->dev = mtype == LC_MEM_DEV;
    w->ipc_base = w->dev ? calloc((size_t)P, sizeof(void *)) : NULL;
    lincoll_status_t st = LINCOLL_OK;
    if (!w->rkeys || !w->sig_rkeys || !w->rbase || !w->rsig || !w->consumed || !w->rlen ||
        !w->mdata || !w->msig || (w->dev && !w->ipc_base)) {
        st = LINCOLL_ERR_NOMEM;
    }
    void *sig = NULL;
    if (st == LINCOLL_OK) {
        st = ctx->tl_ops->mem_alloc(ctx->tl, (size_t)P * sizeof(uint64_t), &w->sig_mem, &sig);
    }
    lc_tl_mem_t *data_mem = NULL;
    if (st == LINCOLL_OK) {
        memset(sig, 0, (size_t)P * sizeof(uint64_t));
        w->sig = sig;
        lc_mem_entry_t *e = base != NULL && !w->dev ? lc_mem_find(ctx, base, len) : NULL;
        if (w->dev) { /* device memory: shared through IPC, not the transport */
            const lc_dev_ops_t *d = lc_dev();
            st = d == NULL ? LINCOLL_ERR_UNSUPPORTED : LINCOLL_OK;
            if (st == LINCOLL_OK && base == NULL) {
                st = d->alloc(len, &w->dev_own);
                w->base = w->dev_own;
            }
        } else if (base == NULL) { /* window over memory the transport allocates (and frees) */
            st = ctx->tl_ops->mem_alloc(ctx->tl, len, &w->mem, &w->base);
            data_mem = w->mem;
        } else if (e != NULL) {
            data_mem = e->mem;
        } else {
            st = ctx->tl_ops->mem_reg(ctx->tl, base, len, &w->mem);
            data_mem = w->mem;
        }
    }
    if (st == LINCOLL_OK) {
        st = w->dev ? lc_win_pack_dev(w, blob_p, blob_len_p)
                    : lc_win_pack(w, data_mem, blob_p, blob_len_p);
    }
    if (st != LINCOLL_OK) {
        lc_win_destroy(w);
        return st;
    }
    *win_p = w;
    return LINCOLL_OK;
}

/* Two allgathers over the communicator: blob lengths, then blobs padded to the longest. */
lincoll_status_t lc_win_create(lincoll_comm_t *comm, void *base, size_t len, lc_win_t **win_p)
{
    int P = comm->size;
    lc_win_t *w = NULL;
    void *blob = NULL;
    size_t bl = 0;
    lincoll_status_t st = lc_win_prepare(comm, base, len, &w, &blob, &bl);
    if (st != LINCOLL_OK) {
        return st;
    }
    uint64_t mylen = bl, *lens = calloc((size_t)P, sizeof(uint64_t));
    size_t *szs = calloc((size_t)P, sizeof(size_t));
    const void **ptrs = calloc((size_t)P, sizeof(void *));
    if (lens == NULL || szs == NULL || ptrs == NULL) st = LINCOLL_ERR_NOMEM;
    if (st == LINCOLL_OK) st = lc_comm_allgather_bytes(comm, &mylen, lens, sizeof(uint64_t));
    size_t maxlen = 0;
    for (int i = 0; st == LINCOLL_OK && i < P; i++) {
        if (lens[i] < LC_WIN_HDR || lens[i] > (1u << 20)) {
            lc_error("window: rank %d published a %llu-byte key blob", i,
                     (unsigned long long)lens[i]);
            st = LINCOLL_ERR_MISMATCH;
        }
        maxlen = lens[i] > maxlen ? lens[i] : maxlen;
    }
    unsigned char *mine = NULL, *all = NULL;
    if (st == LINCOLL_OK) {
        mine = calloc(1, maxlen);
        all = malloc(maxlen * (size_t)P);
        if (mine == NULL || all == NULL) st = LINCOLL_ERR_NOMEM;
    }
    if (st == LINCOLL_OK) {
        memcpy(mine, blob, bl);
        st = lc_comm_allgather_bytes(comm, mine, all, maxlen);
    }
    for (int i = 0; st == LINCOLL_OK && i < P; i++) {
        ptrs[i] = all + (size_t)i * maxlen;
        szs[i] = (size_t)lens[i];
    }
    /* every rank reports its attach before any returns: no rank frees its
     * window while a peer is still unpacking its keys */
    if (st == LINCOLL_OK)
        st = lc_comm_agree_status(comm, lc_win_attach(w, ptrs, szs), "attaching a window");
    free(blob);
    free(lens);
    free(szs);
    free(ptrs);
    free(mine);
    free(all);
    if (st != LINCOLL_OK) {
        lc_win_destroy(w);
        return st;
    }
    *win_p = w;
    return LINCOLL_OK;
}

void *lc_win_peer_ptr(lc_win_t *w, int peer)
{
    if (peer == w->comm->rank) {
        return w->base;
    }
    if (w->dev) return w->mdata[peer];
    lincoll_context_t *ctx = w->comm->ctx;
    if (w->rkeys[peer] == NULL || ctx->tl_ops->rkey_ptr == NULL) {
        return NULL;
    }
    return ctx->tl_ops->rkey_ptr(ctx->tl, w->rkeys[peer], w->rbase[peer]);
}

lincoll_status_t lc_win_put(lc_win_t *w, int peer, const void *src, size_t len, size_t roff,
                            int signal, unsigned round, lc_tl_req_t **req_p)
{
    char *d = w->mdata[peer];
    if (d != NULL && (signal || len > 0)) {
        if (roff > w->rlen[peer] || len > w->rlen[peer] - roff) {
            lc_error("window: put of %zu bytes at offset %zu is outside peer %d's %llu bytes", len,
                     roff, peer, (unsigned long long)w->rlen[peer]);
            return LINCOLL_ERR_INVALID;
        }
        if (len > 0) memcpy(d + roff, src, len);
        if (signal) {
            __atomic_fetch_add(w->msig[peer], 1, __ATOMIC_RELEASE);
            if (w->comm->ctx->wait_sleep) lc_wait_wake_flag(w->msig[peer]);
        }
        *req_p = NULL;
        return LINCOLL_OK;
    }
    lincoll_context_t *ctx = w->comm->ctx;
    uint64_t tag = lc_tag_make(w->comm->id, 0, (unsigned)w->comm->rank, round);
    return ctx->tl_ops->put_nb(ctx->tl, w->comm->to_world[peer], src, len, w->rkeys[peer],
                               w->rbase[peer] + roff, signal ? w->sig_rkeys[peer] : NULL,
                               w->rsig[peer] + 8 * (uint64_t)w->comm->rank, tag, req_p);
}

/* A signal that is about to land (the peer stores it in shared memory) is
 * cheaper to wait for here (64 pause instructions, a few microseconds at most) than after a round
 * of transport progress (which may enter the kernel). */
#define LC_WIN_SPIN 64

int lc_win_signal_ready(lc_win_t *w, int peer, uint64_t count)
{
    for (int i = 0; i < LC_WIN_SPIN; i++) {
        uint64_t arrived = __atomic_load_n(&w->sig[peer], __ATOMIC_ACQUIRE);
        if (arrived - w->consumed[peer] >= count) {
            w->consumed[peer] += count;
            return 1;
        }
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    return 0;
}

/* ---- public API ------------------------------------------------------------------ */

lincoll_status_t lincoll_win_create(lincoll_comm_t *comm, void *base, size_t bytes,
                                    lincoll_win_t **win_p)
{
    LC_CHECK_ARG(comm != NULL, "lincoll_win_create: comm must not be NULL");
    LC_CHECK_ARG(base != NULL, "lincoll_win_create: base must not be NULL");
    LC_CHECK_ARG(bytes > 0, "lincoll_win_create: bytes must be > 0");
    LC_CHECK_ARG(win_p != NULL, "lincoll_win_create: win_p must not be NULL");
    lincoll_status_t st = lc_dev_check_arg("lincoll_win_create", "base", base, bytes,
                                           "a one-sided window (lincoll_win_create)");
    if (st != LINCOLL_OK) return st;
    return lc_win_create(comm, base, bytes, win_p);
}

lincoll_status_t lincoll_win_free(lincoll_win_t *win)
{
    lc_win_destroy(win);
    return LINCOLL_OK;
}

/* Drop completed puts from the pending list; first error wins. */
static lincoll_status_t lc_win_reap(lc_win_t *w)
{
    lincoll_context_t *ctx = w->comm->ctx;
    lincoll_status_t first = LINCOLL_OK;
    unsigned k = 0;
    for (unsigned i = 0; i < w->npending; i++) {
        lincoll_status_t st = ctx->tl_ops->test(ctx->tl, w->pending[i], NULL);
        if (st == LINCOLL_INPROGRESS) {
            w->pending[k++] = w->pending[i];
            continue;
        }
        (void)ctx->tl_ops->release(ctx->tl, w->pending[i]);
        if (st != LINCOLL_OK && first == LINCOLL_OK) {
            first = st;
        }
    }
    w->npending = k;
    return first;
}

lincoll_status_t lincoll_put(lincoll_win_t *w, int peer, const void *src, size_t bytes,
                             size_t offset, unsigned flags)
{
    LC_CHECK_ARG(w != NULL, "lincoll_put: win must not be NULL");
    LC_CHECK_ARG(peer >= 0 && peer < w->comm->size, "lincoll_put: peer %d outside [0, %d)", peer,
                 w->comm->size);
    LC_CHECK_ARG(src != NULL || bytes == 0, "lincoll_put: src must not be NULL");
    LC_CHECK_ARG((flags & ~LINCOLL_PUT_SIGNAL) == 0, "lincoll_put: unknown flags 0x%x", flags);
    if (w->npending == w->cap_pending) {
        lincoll_status_t st = lc_win_reap(w);
        if (st != LINCOLL_OK) {
            return st;
        }
        if (w->npending == w->cap_pending) {
            unsigned cap = w->cap_pending ? 2 * w->cap_pending : 16;
            void *p = realloc(w->pending, cap * sizeof(*w->pending));
            if (p == NULL) {
                return LINCOLL_ERR_NOMEM;
            }
            w->pending = p;
            w->cap_pending = cap;
        }
    }
    lc_tl_req_t *req = NULL;
    lincoll_status_t st =
        lc_win_put(w, peer, src, bytes, offset, flags & LINCOLL_PUT_SIGNAL, 0, &req);
    if (st == LINCOLL_OK && req != NULL) {
        w->pending[w->npending++] = req;
    }
    return st;
}

static lincoll_status_t lc_win_wait_req(lc_win_t *w, lc_tl_req_t *req)
{
    lincoll_context_t *ctx = w->comm->ctx;
    double deadline = ctx->timeout > 0 ? lc_now() + ctx->timeout : 0;
    lincoll_status_t st;
    while ((st = ctx->tl_ops->test(ctx->tl, req, NULL)) == LINCOLL_INPROGRESS) {
        ctx->tl_ops->progress(ctx->tl);
        if (deadline > 0 && lc_now() > deadline) {
            lc_error("window flush: no completion within LINCOLL_TIMEOUT");
            st = LINCOLL_ERR_TIMEOUT;
            break;
        }
    }
    (void)ctx->tl_ops->release(ctx->tl, req);
    return st;
}

lincoll_status_t lincoll_win_flush(lincoll_win_t *w)
{
    LC_CHECK_ARG(w != NULL, "lincoll_win_flush: win must not be NULL");
    lincoll_context_t *ctx = w->comm->ctx;
    lincoll_status_t st = LINCOLL_OK;
    for (unsigned i = 0; i < w->npending; i++) {
        lincoll_status_t s = lc_win_wait_req(w, w->pending[i]);
        if (s != LINCOLL_OK && st == LINCOLL_OK) st = s;
    }
    w->npending = 0;
    lc_tl_req_t *req = NULL;
    lincoll_status_t s = ctx->tl_ops->flush_nb(ctx->tl, -1, &req);
    if (s == LINCOLL_OK && req != NULL) s = lc_win_wait_req(w, req);
    return st != LINCOLL_OK ? st : s;
}

lincoll_status_t lincoll_win_wait_signal(lincoll_win_t *w, int peer, size_t count)
{
    LC_CHECK_ARG(w != NULL, "lincoll_win_wait_signal: win must not be NULL");
    LC_CHECK_ARG(peer >= 0 && peer < w->comm->size,
                 "lincoll_win_wait_signal: peer %d outside [0, %d)", peer, w->comm->size);
    lincoll_context_t *ctx = w->comm->ctx;
    double deadline = ctx->timeout > 0 ? lc_now() + ctx->timeout : 0;
    while (!lc_win_signal_ready(w, peer, count)) {
        ctx->tl_ops->progress(ctx->tl);
        if (ctx->tl_ops->peer_status(ctx->tl, w->comm->to_world[peer]) != LINCOLL_OK) {
            lc_error("lincoll_win_wait_signal: rank %d failed", peer);
            return LINCOLL_ERR_PEER_FAILED;
        }
        if (deadline > 0 && lc_now() > deadline) {
            lc_error("lincoll_win_wait_signal: %zu signal(s) from rank %d did not arrive within %s",
                     count, peer, lc_config_name(LINCOLL_CONFIG_TIMEOUT));
            return LINCOLL_ERR_TIMEOUT;
        }
        if (ctx->wait_sleep) { /* ranks share PUs: hand this one over (wait.h) */
            if (w->mdata[peer] != NULL) {
                lc_wait_sleep_flag(&w->sig[peer], __atomic_load_n(&w->sig[peer], __ATOMIC_ACQUIRE));
            } else {
                lc_wait_nap(ctx);
            }
        }
    }
    return LINCOLL_OK;
}
