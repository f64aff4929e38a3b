/*
 * transports/ucx/internal.h: what the files of the UCX transport share.
 * The sim transport has the same file names for the same concerns.
 *
 *   init.c       init (and the UCX variables of its parameters), fini,
 *                address, lanes, memory types, counters, the ops table
 *   config.c     the LINCOLL_UCX_* rows (nested by core's table) and their
 *                settings, the UCX variables it sets and when, the
 *                parameters from the settings
 *   progress.c   progress of every lane, the event descriptor, arm
 *   ep.c         endpoints: address exchange, lazy creation, failures,
 *                disconnect, describe (ucx only)
 *   alive.c      peer liveness: peer_status, and same-host processes
 *                looked up in /proc (alive.h)
 *   tag.c        tag messages: send, receive (+ triggered send), and
 *                test/release of every request (the hot path, one file)
 *   mem.c        registration (and its cache), remote keys
 *   rma.c        puts with a remote signal, flush
 *
 * Helpers the hot path inlines across files are static inline here.
 */
#ifndef LC_TL_UCX_INT_H
#define LC_TL_UCX_INT_H

#include "api.h"
#include "alive.h"

#include <stdlib.h>
#include <time.h>
#include <ucp/api/ucp.h>

/* A RECV completes through a UCX callback that records status and length
 * and frees the UCX request (ucx_perftest's way: testing it then calls
 * nothing); a SEND that UCX could not finish inside the call is polled
 * (ucp_request_check_status); PUT (data + signal) and FLUSH count their UCX
 * operations through callbacks. */
enum { LC_UCX_REQ_SEND, LC_UCX_REQ_RECV, LC_UCX_REQ_PUT, LC_UCX_REQ_FLUSH, LC_UCX_REQ_RECV_ANY };

/* One lane's UCX receive of a RECV_ANY request (its callback's user data). */
typedef struct lc_ucx_sub {
    struct lc_tl_req *r;
    unsigned lane;
    int live;   /* posted and not yet completed */
    void *ureq; /* the UCX request while it is in flight */
} lc_ucx_sub_t;

struct lc_tl_req {
    struct lc_tl_req *next_free;
    struct lc_tl_req *all_next; /* every request this transport allocated */
    lc_tl_t *tl;
    lincoll_status_t status;
    int kind;
    int orphaned;
    int pending;       /* UCX requests still outstanding (put + signal = 2) */
    unsigned done_ops; /* UCX requests completed so far */
    void *ucx_req[2];
    size_t length;
    uint64_t one; /* operand of the signal atomic */
    /* a put whose signal waits for the data's remote completion (flush) */
    int sig_stage;
    ucp_ep_h sig_ep;
    ucp_rkey_h sig_rkey;
    uint64_t sig_raddr;
    /* a receive with a triggered send (recv_chain_nb): posted length */
    lc_tl_chain_t *chain;
    size_t cap;
    ucp_worker_h worker; /* RECV: the worker (lane) it is posted on */
    int peer;            /* RECV, RECV_ANY: the sender's world rank */
    int *landed;         /* NULL, except inside a release() that waits for this receive:
                            the callback sets it (and clears landed) when UCX is done */
    /* RECV_ANY: one receive posted on every lane shared with the peer; the
     * first to match wins and the others are canceled; the request is done
     * (status set) once no lane's receive is in flight any more */
    unsigned nlive;
    int winner; /* lane whose message arrived, -1: none yet */
    int in_cb;  /* posting or canceling: completion is decided afterwards */
    lincoll_status_t outcome;
    lc_ucx_sub_t sub[LC_TL_MAX_LANES];
};

/* A registered region.  Registrations of user memory are shared: a second
 * mem_reg() of a range that an existing registration covers takes a
 * reference on it instead of registering again (the registration cache), so
 * persistent plans and windows over the same buffers register it once. */
struct lc_tl_mem {
    struct lc_tl_mem *next; /* registration cache (user memory only) */
    ucp_mem_h memh;
    void *addr;
    size_t len;
    int allocated;
    unsigned refs;
};

struct lc_tl_rkey {
    ucp_rkey_h rkey;
    int allocated; /* the region is UCX-allocated memory */
    uint64_t base;
    uint64_t len;
    int peer;
    void *mapped; /* local address of base when UCX maps the region here (shm), else NULL */
};

/* Lanes 1.. (lane 0 is the context and worker of struct lc_tl itself): each
 * its own UCX context restricted to one device (NET_DEVICES), with tag
 * matching only (puts and remote keys stay on lane 0). */
typedef struct lc_ucx_lane {
    ucp_context_h context;
    ucp_worker_h worker;
    ucp_address_t *address;
    size_t address_len;
    ucp_ep_h *eps;     /* per peer, lazily created */
    void **err_args;   /* per peer: the endpoint's error-callback argument */
    void **peer_addrs; /* per peer: its worker address on this lane (NULL: it has no such lane) */
    int efd;
} lc_ucx_lane_t;

struct lc_tl {
    ucp_context_h context;
    ucp_worker_h worker;
    ucp_address_t *address;
    size_t address_len;
    int rank;
    int size;
    int err_mode_peer;
    ucp_ep_h *eps;         /* lazily created */
    void **peer_addrs;     /* copies of every rank's worker address */
    unsigned char *failed; /* peer known dead */
    void *blob;            /* what address() publishes: self, then the worker address */
    size_t blob_len;
    lc_ucx_ident_t self;    /* this process (pid, start time, host key) */
    lc_ucx_ident_t *idents; /* every rank's, from connect() */
    uint64_t *probe_ns;     /* per peer: when /proc was last looked at (CLOCK_MONOTONIC ns) */
    int *pidfds;            /* per peer: a pidfd of a same-host peer, -1 none (alive.c) */
    int pidep;              /* epoll over the pidfds (in the event descriptor), -1 none */
    lc_tl_req_t *free_reqs;
    lc_tl_req_t *all_reqs;
    lc_tl_mem_t *reg_cache; /* registrations of user memory, by reference */
    int efd;
    int closing;            /* disconnect started: peers' errors are expected */
    double drain_timeout_s; /* lc_tl_ucx_params_t.drain_timeout_s */
    lc_tl_counters_t counters;
    /* lanes (LINCOLL_UCX_LANES): nlanes >= 1; lane[l] for 1 <= l < nlanes */
    int nlanes;
    lc_ucx_lane_t lane[LC_TL_MAX_LANES];
    char lane_dev[LC_TL_MAX_LANES][64];
    unsigned char *peer_lanes; /* per peer: the lanes it offers (from connect) */
    int epfd; /* several lanes or pidfds: epoll over every worker's event fd and pidep */
};

/* The lanes this rank and peer both have (>= 1). */
static inline int lc_ucx_shared_lanes(const lc_tl_t *tl, int peer)
{
    int n = tl->peer_lanes != NULL ? tl->peer_lanes[peer] : 1;
    return n < tl->nlanes ? (n > 0 ? n : 1) : tl->nlanes;
}

static inline ucp_worker_h lc_ucx_lane_worker(const lc_tl_t *tl, unsigned lane)
{
    return lane == 0 ? tl->worker : tl->lane[lane].worker;
}

/* ---- status mapping (only the ucx transport knows ucs_status_t) -------- */

static inline lincoll_status_t lc_ucx_status(ucs_status_t s)
{
    switch (s) {
    case UCS_OK:
        return LINCOLL_OK;
    case UCS_INPROGRESS:
        return LINCOLL_INPROGRESS;
    case UCS_ERR_NO_MEMORY:
        return LINCOLL_ERR_NOMEM;
    case UCS_ERR_INVALID_PARAM:
        return LINCOLL_ERR_INVALID;
    case UCS_ERR_UNSUPPORTED:
        return LINCOLL_ERR_UNSUPPORTED;
    case UCS_ERR_MESSAGE_TRUNCATED:
        return LINCOLL_ERR_TRUNCATED;
    case UCS_ERR_CANCELED:
        return LINCOLL_ERR_CANCELED;
    case UCS_ERR_TIMED_OUT:
        return LINCOLL_ERR_TIMEOUT;
    case UCS_ERR_UNREACHABLE:
    case UCS_ERR_CONNECTION_RESET:
    case UCS_ERR_ENDPOINT_TIMEOUT:
    case UCS_ERR_REJECTED:
    case UCS_ERR_NOT_CONNECTED:
    case UCS_ERR_SHMEM_SEGMENT: /* a dead peer's shared-memory segment went away */
        return LINCOLL_ERR_PEER_FAILED;
    default:
        return LINCOLL_ERR_TRANSPORT;
    }
}

/* CLOCK_MONOTONIC in nanoseconds (peer probes, drains, disconnect). */
static inline uint64_t lc_ucx_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* ---- requests (tag.c) ----------------------------------------------------- */

lc_tl_req_t *lc_ucx_req_get(lc_tl_t *tl, int kind);

static inline void lc_ucx_req_put_back(lc_tl_req_t *r)
{
    lc_tl_t *tl = r->tl;
    r->next_free = tl->free_reqs;
    tl->free_reqs = r;
}

/* ---- endpoints (ep.c) ----------------------------------------------------- */

/* The first message to a peer: check it, create its endpoint.  Kept out of
 * line so the per-message lookup (lc_ucx_ep) stays a few instructions. */
__attribute__((noinline, cold)) lincoll_status_t lc_ucx_ep_slow(lc_tl_t *tl, int peer,
                                                                ucp_ep_h *ep_p);

static inline lincoll_status_t lc_ucx_ep(lc_tl_t *tl, int peer, ucp_ep_h *ep_p)
{
    /* eps[] is allocated at init; a failed peer keeps its endpoint, so
     * failed[] is checked too (the slow path reports it) */
    if (__builtin_expect((unsigned)peer < (unsigned)tl->size, 1)) {
        ucp_ep_h ep = tl->eps[peer];
        if (__builtin_expect(ep != NULL && !tl->failed[peer], 1)) {
            *ep_p = ep;
            return LINCOLL_OK;
        }
    }
    return lc_ucx_ep_slow(tl, peer, ep_p);
}

/* The endpoint of a peer argument that may carry a lane (transport.h,
 * "lanes"): a plain rank is lc_ucx_ep; a lane resolves to the endpoint on
 * that lane (modulo the lanes both ends have; ANY means lane 0 here), made
 * on first use.  *lane_p (may be NULL) gets the lane. */
lincoll_status_t lc_ucx_lane_ep(lc_tl_t *tl, int peer, ucp_ep_h *ep_p, unsigned *lane_p);

/* ---- the ops, by file ------------------------------------------------------ */

/* ep.c */
void lc_ucx_disconnect(lc_tl_t *tl);
void lc_ucx_lanes_free(lc_tl_t *tl);
lincoll_status_t lc_ucx_connect(lc_tl_t *tl, const void *const *addrs, const size_t *lens);
void lc_ucx_describe(lc_tl_t *tl, int peer, char *buf, size_t len);

/* progress.c */
int lc_ucx_progress(lc_tl_t *tl);
int lc_ucx_event_fd(lc_tl_t *tl);
lincoll_status_t lc_ucx_arm(lc_tl_t *tl);

/* alive.c */
lincoll_status_t lc_ucx_peer_status(lc_tl_t *tl, int peer);
/* a pidfd per same-host peer (connect), gathered in tl->pidep; closed at fini */
void lc_ucx_pidfds_open(lc_tl_t *tl);
void lc_ucx_pidfds_close(lc_tl_t *tl);
/* mark the peers whose pidfd became readable (exited) failed; returns how many */
int lc_ucx_pidfds_reap(lc_tl_t *tl);

/* mem.c */
lincoll_status_t lc_ucx_mem_alloc(lc_tl_t *tl, size_t len, lc_tl_mem_t **mem_p, void **addr_p);
lincoll_status_t lc_ucx_mem_reg(lc_tl_t *tl, void *addr, size_t len, lc_tl_mem_t **mem_p);
void lc_ucx_mem_dereg(lc_tl_t *tl, lc_tl_mem_t *mem);
lincoll_status_t lc_ucx_rkey_pack(lc_tl_t *tl, lc_tl_mem_t *mem, void **buf_p, size_t *len_p);
lincoll_status_t lc_ucx_rkey_unpack(lc_tl_t *tl, int peer, const void *buf, size_t len,
                                    lc_tl_rkey_t **rkey_p);
void lc_ucx_rkey_destroy(lc_tl_t *tl, lc_tl_rkey_t *k);
void *lc_ucx_rkey_ptr(lc_tl_t *tl, lc_tl_rkey_t *k, uint64_t raddr);

/* tag.c */
lincoll_status_t lc_ucx_send_nb(lc_tl_t *tl, int peer, const void *buf, size_t len, uint64_t tag,
                                lc_tl_req_t **req_p);
lincoll_status_t lc_ucx_recv_nb(lc_tl_t *tl, int peer, void *buf, size_t len, uint64_t tag,
                                lc_tl_req_t **req_p);
lincoll_status_t lc_ucx_recv_chain_nb(lc_tl_t *tl, int peer, void *buf, size_t len, uint64_t tag,
                                      lc_tl_chain_t *then, lc_tl_req_t **req_p);
lincoll_status_t lc_ucx_test(lc_tl_t *tl, lc_tl_req_t *r, size_t *len_p);
int lc_ucx_release(lc_tl_t *tl, lc_tl_req_t *r);
lincoll_status_t lc_ucx_test_release(lc_tl_t *tl, lc_tl_req_t *r, size_t *len_p);
/* recv_nb / recv_chain_nb of a peer with a lane (tag.c) */
lincoll_status_t lc_ucx_recv_lane(lc_tl_t *tl, int peer, void *buf, size_t len, uint64_t tag,
                                  lc_tl_chain_t *then, lc_tl_req_t **req_p);

/* rma.c */
lincoll_status_t lc_ucx_put_nb(lc_tl_t *tl, int peer, const void *buf, size_t len,
                               lc_tl_rkey_t *rkey, uint64_t raddr, lc_tl_rkey_t *sig_rkey,
                               uint64_t sig_raddr, uint64_t tag, lc_tl_req_t **req_p);
lincoll_status_t lc_ucx_flush_nb(lc_tl_t *tl, int peer, lc_tl_req_t **req_p);
/* The signal of a put whose data is remotely complete (test() of a put
 * that had to flush first). */
void lc_ucx_post_signal(lc_tl_req_t *r);

#endif
