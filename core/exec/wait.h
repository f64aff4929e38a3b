/*
 * core/exec/wait.h: sleeping waits (wait.c) and the wake-ups their writers
 * owe them.
 *
 * Where ranks share processing units (ctx->wait_sleep, LINCOLL_WAIT) a
 * waiting rank gives its PU to the peer it waits for, in the kernel: on the
 * transport's event descriptor (armed first, as lincoll_context_arm), or,
 * when the round waits for a flag a mapped peer stores into shared memory,
 * on that flag (a futex on its low 32 bits; the counter's every increment
 * changes them).  A writer that stored a flag then wakes the futex
 * (lc_wait_wake_flag): the flag word lies in shared memory, so the wake
 * reaches the waiter in the other process.  Every sleep is bounded
 * (LC_WAIT_NAP_*): a wake that cannot arrive (a mapping the kernel does not
 * key as shared) costs a nap, never a hang, and a stuck wait still looks at
 * its peers' liveness and the timeout after each one.
 */
#ifndef LC_EXEC_WAIT_H
#define LC_EXEC_WAIT_H

#include <stdint.h>

#include "core/context/context.h"

/* the longest sleep on a flag, and on the transport's descriptor (the
 * descriptor also wakes for a dead same-host peer: transports/ucx/alive.c) */
#define LC_WAIT_NAP_FLAG_NS  1000000L
#define LC_WAIT_NAP_FD_MS    10
#define LC_WAIT_NAP_SHORT_NS 20000L

/* Wake every process sleeping on the flag word at @p sig (after the store). */
void lc_wait_wake_flag(uint64_t *sig);

/* Sleep until the flag at @p sig no longer holds @p seen (its low 32 bits),
 * a wake, or LC_WAIT_NAP_FLAG_NS. */
void lc_wait_sleep_flag(volatile uint64_t *sig, uint64_t seen);

/* A short nap (LC_WAIT_NAP_SHORT_NS) for a rank whose sends wait for room
 * at the receiver: the receiver's progress frees it without an event. */
void lc_wait_nap_short(void);

/* One bounded sleep of a rank with nothing to do but wait for the
 * transport: arm its descriptor and poll it (LC_WAIT_NAP_FD_MS at most);
 * returns at once when arming finds work (BUSY).  Transports without a
 * descriptor: sched_yield. */
void lc_wait_nap(lincoll_context_t *ctx);

#endif
