/*
 * core/exec/wait.c: lincoll_wait, spinning or sleeping (wait.h).
 *
 * Spinning (every rank has its own PU, or LINCOLL_WAIT=spin): test until
 * done, with a sched_yield every 64 idle tests (every one where ranks share
 * PUs).  Sleeping (ranks share PUs, LINCOLL_WAIT=sleep or auto): after
 * LC_WAIT_SPIN_TESTS idle tests, sleep once — on the flag the current round
 * waits for when a mapped peer stores it, 20 us behind a send in flight,
 * else on the transport's descriptor — and test again.  Each
 * test after a sleep runs the usual stuck checks (peer liveness, timeout),
 * so a sleeping wait fails as a spinning one does.
 */
#include "core/exec/wait.h"

#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/base/log.h"
#include "core/exec/low.h"

/* idle tests (each polls the transport a batch of times) before a sleep */
#define LC_WAIT_SPIN_TESTS 2

void lc_wait_wake_flag(uint64_t *sig)
{
    /* the low half of the little-endian counter: its address is the word's */
    syscall(SYS_futex, (uint32_t *)sig, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void lc_wait_sleep_flag(volatile uint64_t *sig, uint64_t seen)
{
    struct timespec nap = {0, LC_WAIT_NAP_FLAG_NS};
    syscall(SYS_futex, (uint32_t *)(uintptr_t)sig, FUTEX_WAIT, (uint32_t)seen, &nap, NULL, 0);
}

void lc_wait_nap_short(void)
{
    static __thread int slack_set;
    if (!slack_set) { /* a 1 us timer slack: the nap is what was asked, not 50 us more */
        (void)prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
        slack_set = 1;
    }
    struct timespec nap = {0, LC_WAIT_NAP_SHORT_NS};
    nanosleep(&nap, NULL);
}

void lc_wait_nap(lincoll_context_t *ctx)
{
    int fd = ctx->tl_ops->event_fd != NULL ? ctx->tl_ops->event_fd(ctx->tl) : -1;
    if (fd < 0) {
        sched_yield();
        return;
    }
    lincoll_status_t st = ctx->tl_ops->arm(ctx->tl);
    if (st == LINCOLL_ERR_BUSY) return; /* events already pending: test again */
    if (st != LINCOLL_OK) {
        sched_yield();
        return;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    (void)poll(&p, 1, LC_WAIT_NAP_FD_MS);
}

/* What the current round still waits for, in the order a sleep serves
 * it: a flag a mapped peer stores (the futex: *flag_p, *seen_p), a send
 * (its progress may need room the receiver frees, which raises no event:
 * a short nap), else receives (the descriptor). */
enum { LC_WAIT_ON_FD = 0, LC_WAIT_ON_FLAG, LC_WAIT_ON_SEND, LC_WAIT_ON_NOTHING };

static int lc_wait_on(const lincoll_plan_t *p, volatile uint64_t **flag_p, uint64_t *seen_p)
{
    if (!p->ex.running || !p->ex.posted) return LC_WAIT_ON_NOTHING;
    const lc_lround_t *F = &p->low->r[p->ex.round];
    for (unsigned i = F->nout; i < F->n; i++) {
        const lc_lx_t *x = &F->x[i];
        if (p->ex.reqs[i] != LC_WAIT_PENDING || !x->mapped) continue;
        uint64_t v = __atomic_load_n(x->sig, __ATOMIC_ACQUIRE);
        if (v - *x->consumed >= x->count) return LC_WAIT_ON_NOTHING; /* arrived: test */
        *flag_p = x->sig;
        *seen_p = v;
        return LC_WAIT_ON_FLAG;
    }
    for (unsigned i = F->nrecv; i < F->nout; i++) {
        if (p->ex.reqs[i] != NULL) return LC_WAIT_ON_SEND;
    }
    return LC_WAIT_ON_FD;
}

static lincoll_status_t lc_wait_sleeping(lincoll_plan_t *plan)
{
    lincoll_status_t st;
    unsigned idle = 0;
    while ((st = lc_exec_test(plan)) == LINCOLL_INPROGRESS) {
        if (++idle < LC_WAIT_SPIN_TESTS) continue;
        idle = 0;
        volatile uint64_t *flag = NULL;
        uint64_t seen = 0;
        switch (lc_wait_on(plan, &flag, &seen)) {
        case LC_WAIT_ON_FLAG:
            lc_wait_sleep_flag(flag, seen);
            break;
        case LC_WAIT_ON_SEND:
            lc_wait_nap_short();
            break;
        case LC_WAIT_ON_FD:
            lc_wait_nap(plan->ctx);
            break;
        default:
            break;
        }
    }
    return st;
}

lincoll_status_t lincoll_wait(lincoll_plan_t *plan)
{
    LC_CHECK_ARG(plan != NULL, "lincoll_wait: plan must not be NULL");
    if (plan->ctx->wait_sleep) return lc_wait_sleeping(plan);
    lincoll_status_t st;
    /* spin, but give the core away now and then (after every idle test
     * where ranks share PUs and LINCOLL_WAIT=spin) */
    const unsigned every = plan->ctx->oversubscribed ? 1 : 64;
    unsigned left = every;
    while ((st = lc_exec_test(plan)) == LINCOLL_INPROGRESS) {
        if (--left == 0) {
            sched_yield();
            left = every;
        }
    }
    return st;
}
