/*
 * transports/ucx/progress.c: progress and wakeup of the UCX transport:
 * ucp_worker_progress of every lane, the event descriptor (a worker's efd,
 * or with several lanes or same-host peers an epoll descriptor over all of
 * them and the peers' pidfds) and arm.
 */
#include "internal.h"

#include <sys/epoll.h>
#include <unistd.h>

static __attribute__((noinline)) int lc_ucx_progress_lanes(lc_tl_t *tl)
{
    int n = 0;
    for (int l = 0; l < tl->nlanes; l++) {
        n += (int)ucp_worker_progress(lc_ucx_lane_worker(tl, (unsigned)l));
    }
    return n;
}

/* one lane: a tail call into UCX, nothing else on the hot path */
int lc_ucx_progress(lc_tl_t *tl)
{
    if (__builtin_expect(tl->nlanes <= 1, 1)) {
        return (int)ucp_worker_progress(tl->worker);
    }
    return lc_ucx_progress_lanes(tl);
}

/* With several lanes or pidfds: an epoll descriptor over every worker's
 * event fd and the pidfds' epoll (alive.c). */
static int lc_ucx_lanes_epoll(lc_tl_t *tl)
{
    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) {
        return -1;
    }
    for (int l = 0; l <= tl->nlanes; l++) {
        int fd = l == tl->nlanes ? tl->pidep : tl->efd;
        if (l > 0 && l < tl->nlanes &&
            (ucp_worker_get_efd(tl->lane[l].worker, &tl->lane[l].efd) != UCS_OK ||
             (fd = tl->lane[l].efd) < 0)) {
            close(ep);
            return -1;
        }
        if (fd < 0) continue; /* no pidfds */
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)l};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
            close(ep);
            return -1;
        }
    }
    return ep;
}

int lc_ucx_event_fd(lc_tl_t *tl)
{
    if (tl->efd < 0 && ucp_worker_get_efd(tl->worker, &tl->efd) != UCS_OK) {
        tl->efd = -1;
    }
    if ((tl->nlanes == 1 && tl->pidep < 0) || tl->efd < 0) {
        return tl->efd;
    }
    if (tl->epfd < 0) {
        tl->epfd = lc_ucx_lanes_epoll(tl);
    }
    return tl->epfd;
}

lincoll_status_t lc_ucx_arm(lc_tl_t *tl)
{
    /* a peer that exited made the descriptor readable: mark it failed, and
     * let the caller test again instead of sleeping */
    if (lc_ucx_pidfds_reap(tl) > 0) return LINCOLL_ERR_BUSY;
    for (int l = 0; l < tl->nlanes; l++) {
        ucs_status_t s = ucp_worker_arm(lc_ucx_lane_worker(tl, (unsigned)l));
        if (s != UCS_OK) {
            return s == UCS_ERR_BUSY ? LINCOLL_ERR_BUSY : lc_ucx_status(s);
        }
    }
    return LINCOLL_OK;
}
