/*
 * daemon/ecd_service.c: the threads that keep epochs alive.  Every epoch
 * has a service thread that drives its context's progress (a peer's
 * message arriving before its operation here started, sends to flush,
 * the liveness probe) and wakes the operations waiting on their plans
 * (ecd_epoch_drive); it sleeps on the context's event descriptor.  One
 * watch thread per daemon lets the leader form a new epoch when the
 * cluster file changes.
 */
#include "daemon/ecd_daemon.h"
#include "daemon/ecd_epoch.h"

#include <poll.h>
#include <sched.h>
#include <unistd.h>

static void *service_main(void *arg)
{
    ecd_epoch_t *e = arg;
    int fd = -1;
    ecd_epoch_lock(e);
    if (lincoll_context_fd(e->ctx, &fd) != LINCOLL_OK) fd = -1;
    while (!e->stop) {
        lincoll_progress(e->ctx);
        lincoll_status_t a = fd >= 0 ? lincoll_context_arm(e->ctx) : LINCOLL_ERR_UNSUPPORTED;
        pthread_cond_broadcast(&e->cv);
        ecd_epoch_unlock(e);
        if (a == LINCOLL_OK) {
            struct pollfd p = {.fd = fd, .events = POLLIN};
            poll(&p, 1, 50); /* events, or the liveness probe's next turn */
        } else if (a == LINCOLL_ERR_BUSY) {
            sched_yield(); /* events pending: progress again */
        } else {
            usleep(1000);
        }
        ecd_epoch_lock(e);
    }
    ecd_epoch_unlock(e);
    return NULL;
}

int ecd_service_start(ecd_epoch_t *e)
{
    e->stop = 0;
    if (pthread_create(&e->service, NULL, service_main, e) != 0) return -1;
    e->service_on = 1;
    return 0;
}

void ecd_service_stop(ecd_epoch_t *e)
{
    if (!e->service_on) return;
    ecd_epoch_lock(e);
    e->stop = 1;
    ecd_epoch_unlock(e);
    pthread_join(e->service, NULL);
    e->service_on = 0;
}

static void *watch_main(void *arg)
{
    (void)arg;
    for (;;) {
        sleep(2);
        ecd_epoch_check();
    }
    return NULL;
}

int ecd_service_watch_start(void)
{
    return ecd_thread_start(watch_main, NULL);
}
