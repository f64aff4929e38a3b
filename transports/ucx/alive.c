/*
 * transports/ucx/alive.c: liveness of peer processes on this host,
 * from /proc (see alive.h), and peer_status(), which asks it now and then
 * while a wait is stuck; and a pidfd per same-host peer in the event
 * descriptor, so that a rank asleep on it wakes when a peer exits.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Read /proc/<pid>/stat: its state letter and start time (field 22).
 * Returns 0 on success, -ENOENT when the process does not exist, another
 * negative errno when /proc cannot tell. */
static int lc_ucx_proc_stat(int pid, char *state, uint64_t *starttime)
{
    char path[48], buf[1024];
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -errno;
    }
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    int err = errno;
    close(fd);
    if (n <= 0) {
        /* a process that exits between open and read reads as empty/ESRCH */
        return n == 0 || err == ESRCH ? -ENOENT : -err;
    }
    buf[n] = '\0';
    /* "pid (comm) S ppid ...": comm may hold spaces and parentheses */
    char *p = strrchr(buf, ')');
    if (p == NULL || p[1] != ' ' || p[2] == '\0') {
        return -EINVAL;
    }
    *state = p[2];
    p += 3; /* now before field 4 */
    for (int field = 4; field < 22; field++) {
        p = strchr(p + 1, ' ');
        if (p == NULL) {
            return -EINVAL;
        }
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(p + 1, &end, 10);
    if (errno != 0 || end == p + 1) {
        return -EINVAL;
    }
    *starttime = v;
    return 0;
}

void lc_ucx_ident_self(lc_ucx_ident_t *id)
{
    memset(id, 0, sizeof(*id));
    id->magic = LC_UCX_IDENT_MAGIC;
    id->pid = (int32_t)getpid();
    char state;
    uint64_t st;
    if (lc_ucx_proc_stat(id->pid, &state, &st) == 0) {
        id->starttime = st;
    }
    char boot[40] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f != NULL) {
        if (fgets(boot, sizeof(boot), f) == NULL) {
            boot[0] = '\0';
        }
        fclose(f);
    }
    boot[strcspn(boot, "\n")] = '\0';
    struct stat ns;
    if (boot[0] != '\0' && id->starttime != 0 && stat("/proc/self/ns/pid", &ns) == 0) {
        snprintf(id->host, sizeof(id->host), "%s/pidns:%llu:%llu", boot,
                 (unsigned long long)ns.st_dev, (unsigned long long)ns.st_ino);
    }
}

int lc_ucx_ident_probeable(const lc_ucx_ident_t *self, const lc_ucx_ident_t *peer)
{
    return self->host[0] != '\0' && peer->magic == LC_UCX_IDENT_MAGIC && peer->pid > 0 &&
           peer->starttime != 0 && strncmp(self->host, peer->host, sizeof(self->host)) == 0;
}

int lc_ucx_ident_alive(const lc_ucx_ident_t *id)
{
    char state;
    uint64_t st;
    int rc = lc_ucx_proc_stat(id->pid, &state, &st);
    if (rc == -ENOENT || rc == -ESRCH) {
        return 0;
    }
    if (rc != 0) {
        /* /proc hides it (hidepid) or is unreadable: kill(pid, 0) still
         * tells whether the pid exists (EPERM: it does, not ours) */
        return kill(id->pid, 0) == 0 || errno == EPERM;
    }
    if (state == 'Z' || state == 'X' || state == 'x') {
        return 0; /* exited, not yet reaped */
    }
    return st == id->starttime; /* otherwise the pid now names another process */
}

/* The executor asks while a wait is stuck (after a batch of idle progress
 * calls, every microsecond or so when spinning, after every sleep when
 * sleeping): look in /proc when LC_UCX_PROBE_NS have passed since the last
 * look at this peer, each a few microseconds.  Spinning or sleeping, a dead
 * same-host peer is found within about that, plus one sleep. */
#define LC_UCX_PROBE_NS 1000000u

static void lc_ucx_peer_exited(lc_tl_t *tl, int peer)
{
    lc_tl_warn("ucx: peer %d (pid %d on this host) has exited", peer, (int)tl->idents[peer].pid);
    tl->failed[peer] = 1;
    if (tl->pidfds != NULL && tl->pidfds[peer] >= 0) {
        /* readable for ever once exited: out of the event descriptor */
        (void)epoll_ctl(tl->pidep, EPOLL_CTL_DEL, tl->pidfds[peer], NULL);
        close(tl->pidfds[peer]);
        tl->pidfds[peer] = -1;
    }
}

lincoll_status_t lc_ucx_peer_status(lc_tl_t *tl, int peer)
{
    peer = LC_TL_PEER_RANKOF(peer);
    if (peer < 0 || peer >= tl->size) {
        return LINCOLL_ERR_INVALID;
    }
    if (!tl->failed[peer] && peer != tl->rank && tl->idents != NULL && !tl->closing &&
        lc_ucx_ident_probeable(&tl->self, &tl->idents[peer])) {
        uint64_t now = lc_ucx_now_ns();
        if (now - tl->probe_ns[peer] >= LC_UCX_PROBE_NS) {
            tl->probe_ns[peer] = now;
            if (!lc_ucx_ident_alive(&tl->idents[peer])) lc_ucx_peer_exited(tl, peer);
        }
    }
    return tl->failed[peer] ? LINCOLL_ERR_PEER_FAILED : LINCOLL_OK;
}

/* ---- pidfds: a sleeping rank wakes when a same-host peer exits ---------- */

void lc_ucx_pidfds_open(lc_tl_t *tl)
{
    tl->pidfds = malloc((size_t)tl->size * sizeof(int));
    if (tl->pidfds == NULL) return; /* the /proc probe still finds them */
    for (int i = 0; i < tl->size; i++)
        tl->pidfds[i] = -1;
#ifdef SYS_pidfd_open
    for (int i = 0; i < tl->size; i++) {
        if (i == tl->rank || !lc_ucx_ident_probeable(&tl->self, &tl->idents[i])) continue;
        int fd = (int)syscall(SYS_pidfd_open, (pid_t)tl->idents[i].pid, 0);
        if (fd < 0) {
            if (errno == ENOSYS) break; /* an older kernel: the /proc probe only */
            continue;
        }
        /* the pid named the peer when the fd was opened: it still runs with
         * the start time it published (else the pid was reused) */
        if (!lc_ucx_ident_alive(&tl->idents[i])) {
            close(fd);
            continue;
        }
        if (tl->pidep < 0 && (tl->pidep = epoll_create1(EPOLL_CLOEXEC)) < 0) {
            close(fd);
            break;
        }
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        if (epoll_ctl(tl->pidep, EPOLL_CTL_ADD, fd, &ev) != 0) {
            close(fd);
            continue;
        }
        tl->pidfds[i] = fd;
    }
#endif
}

void lc_ucx_pidfds_close(lc_tl_t *tl)
{
    if (tl->pidfds != NULL) {
        for (int i = 0; i < tl->size; i++)
            if (tl->pidfds[i] >= 0) close(tl->pidfds[i]);
        free(tl->pidfds);
        tl->pidfds = NULL;
    }
    if (tl->pidep >= 0) close(tl->pidep);
    tl->pidep = -1;
}

int lc_ucx_pidfds_reap(lc_tl_t *tl)
{
    if (tl->pidep < 0 || tl->closing) return 0;
    struct epoll_event ev[16];
    int n = epoll_wait(tl->pidep, ev, 16, 0), dead = 0;
    for (int i = 0; i < n; i++) {
        int peer = (int)ev[i].data.u32;
        if (peer >= 0 && peer < tl->size && !tl->failed[peer]) {
            lc_ucx_peer_exited(tl, peer);
            dead++;
        }
    }
    return dead;
}
