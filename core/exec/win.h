/*
 * core/exec/win.h: RMA windows — a registered region on every rank of a
 * communicator, with everyone's remote keys, plus a signal counter per
 * source rank.  A put with signal lands the data, fences, then adds 1 to
 * sig[source] in the target's window; the target reads its own counter.
 */
#ifndef LC_WIN_H
#define LC_WIN_H

#include "core/context/context.h"

typedef struct lc_win {
    lincoll_comm_t *comm;
    void *base;
    size_t len;
    lc_tl_mem_t *mem;       /* own registration, or NULL when base is lincoll memory */
    volatile uint64_t *sig; /* comm->size counters, in transport-allocated memory */
    lc_tl_mem_t *sig_mem;
    lc_tl_rkey_t **rkeys;     /* per peer: its data region */
    lc_tl_rkey_t **sig_rkeys; /* per peer: its signal counters */
    uint64_t *rbase;          /* per peer: remote base address of the data region */
    uint64_t *rsig;           /* per peer: remote address of its counter array */
    uint64_t *consumed;       /* per peer: signals already waited for */
    uint64_t *rlen;           /* per peer: length of its data region */
    /* per peer, when the transport maps it here (rkey_ptr): its data region
     * and this rank's signal counter in it, so a put is a store (else NULL) */
    char **mdata;
    uint64_t **msig;
    lc_tl_req_t **pending; /* puts not yet locally complete */
    unsigned npending, cap_pending;
    /* a device window (docs/accelerators.md, "CUDA IPC"): the data region is
     * device memory, shared through IPC handles instead of transport keys;
     * every peer's region is opened here (ipc_base, closed with the window)
     * and puts are device copies.  dev_own: device memory the window
     * allocated (a scratch window). */
    int dev;
    void **ipc_base;
    void *dev_own;
} lc_win_t;

/* Collective over comm (blocking; exchanges remote keys over the transport). */
lincoll_status_t lc_win_create(lincoll_comm_t *comm, void *base, size_t len, lc_win_t **win_p);
void lc_win_destroy(lc_win_t *win);
/* lc_win_create in two halves, for callers that exchange the key blobs
 * themselves (tests that drive every virtual rank from one thread): prepare
 * registers and packs this rank's blob (caller frees it); attach unpacks
 * every rank's blob (blobs[i], lens[i] for communicator rank i).  A NULL
 * base makes a window over len bytes the transport allocates (true one-sided,
 * mapped by same-node peers), freed with the window; win->base points to it. */
lincoll_status_t lc_win_prepare(lincoll_comm_t *comm, void *base, size_t len, lc_win_t **win_p,
                                void **blob_p, size_t *blob_len_p);
lincoll_status_t lc_win_attach(lc_win_t *win, const void *const *blobs, const size_t *lens);
/* lc_win_prepare of a window of memory type mtype (LC_MEM_DEV: a device
 * window over base, or over len bytes of device memory when base is NULL;
 * LINCOLL_ERR_UNSUPPORTED where the device backend cannot share it). */
lincoll_status_t lc_win_prepare_typed(lincoll_comm_t *comm, void *base, size_t len, int mtype,
                                      lc_win_t **win_p, void **blob_p, size_t *blob_len_p);
/* Bit of a packed blob's first word marking a device window, whose data
 * key is the IPC handle, the offset in its allocation and the IPC domain
 * (LC_WIN_DEV_KEY bytes). */
#define LC_WIN_DEV_BLOB (UINT64_C(1) << 62)
#define LC_WIN_DEV_KEY  (LC_DEV_IPC_BYTES + 16)
/* The IPC domain of a device window's blob (0: not a device blob). */
uint64_t lc_win_blob_domain(const void *blob, size_t len);
/* Local load/store pointer to peer's window base (own base for this rank), or
 * NULL when the transport does not map that peer's memory here. */
void *lc_win_peer_ptr(lc_win_t *win, int peer);
/* Post a put (+ signal); the request is tracked by the window.  Into a peer
 * mapped here (data and counter) the put is a CPU copy, a release fence and
 * an atomic add on the counter, done at once (*req_p = NULL), without a
 * call into the transport; elsewhere the transport's put_nb. */
lincoll_status_t lc_win_put(lc_win_t *win, int peer, const void *src, size_t len, size_t roff,
                            int signal, unsigned round, lc_tl_req_t **req_p);
/* Non-zero once `count` more signals from peer have arrived; consumes them. */
int lc_win_signal_ready(lc_win_t *win, int peer, uint64_t count);

#endif
