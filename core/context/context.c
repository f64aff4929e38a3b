/*
 * core/context/context.c: lincoll_init/finalize, the world communicator and
 * the context's list of registered memory (the public memory calls are
 * core/api/mem_api.c).
 *
 * init: parse the LINCOLL_* table once -> open the bootstrap (PMIx, TCP store
 * or singleton; or the embedder's from the params: oob callbacks or a store
 * at an address) -> bind and pick NICs -> start the transport LINCOLL_TRANSPORT
 * names (the transport array, transports.c) -> allgather transport addresses ->
 * connect (endpoints are created lazily on first use) -> bound the
 * bootstrap's later waits by the context timeout.
 * finalize: a bootstrap barrier so no rank tears down its endpoints while a
 * peer still flushes to it, then the transport and the bootstrap.
 * event loop: lincoll_context_fd/arm expose the transport's wakeup
 * descriptor (UCX: the worker's efd, UCP_FEATURE_WAKEUP).
 */
#include "core/context/context.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/log.h"
#include "core/dev/dev.h"
#include "core/topo/topo.h"
#include "kernels/kernels.h"

double lc_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

lincoll_comm_t *lc_comm_new(lincoll_context_t *ctx, int size)
{
    lincoll_comm_t *c = calloc(1, sizeof(*c));
    int *map = malloc((size_t)(size > 0 ? size : 1) * sizeof(int));
    if (c == NULL || map == NULL) {
        free(c);
        free(map);
        return NULL;
    }
    c->ctx = ctx;
    c->size = size;
    c->to_world = map;
    return c;
}

static lincoll_status_t lc_comm_world_create(lincoll_context_t *ctx)
{
    lincoll_comm_t *w = lc_comm_new(ctx, ctx->size);
    if (w == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    for (int i = 0; i < ctx->size; i++) {
        w->to_world[i] = i;
    }
    w->rank = ctx->rank;
    w->id = 0;
    ctx->next_comm_id = 1;
    ctx->world = w;
    return LINCOLL_OK;
}

static void lc_apply_config(lincoll_context_t *ctx, const lincoll_init_params_t *params)
{
    ctx->ports = ctx->cfg.ports > 0 ? (int)ctx->cfg.ports : 1;
    ctx->timeout = ctx->cfg.timeout;
    if (params != NULL) {
        if (params->ports > 0) {
            ctx->ports = params->ports;
        }
        if (params->timeout > 0) {
            ctx->timeout = params->timeout;
        } else if (params->timeout < 0) {
            ctx->timeout = 0; /* LINCOLL_TIMEOUT_NEVER */
        }
        if (params->bootstrap != LINCOLL_BOOTSTRAP_LAUNCHER && ctx->cfg.bind == LC_TOPO_BIND_AUTO) {
            /* an embedder's process: its threads are its own (LINCOLL_BIND=core|numa
             * still binds) */
            ctx->cfg.bind = LC_TOPO_BIND_NONE;
        }
    }
    lc_config_push_kernels(&ctx->cfg);
}

static lincoll_status_t lc_exchange_addresses(lincoll_context_t *ctx)
{
    const void *addr;
    size_t len;
    lincoll_status_t st = ctx->tl_ops->address(ctx->tl, &addr, &len);
    if (st != LINCOLL_OK) {
        return st;
    }
    void *all, **ptrs;
    size_t *lens;
    st = lc_bootstrap_allgatherv(ctx->boot, addr, len, &all, &ptrs, &lens);
    if (st != LINCOLL_OK) {
        lc_error("exchanging transport addresses through the %s bootstrap failed: %s",
                 ctx->boot->ops->name, lincoll_strerror(st));
        return st;
    }
    st = ctx->tl_ops->connect(ctx->tl, (const void *const *)ptrs, lens);
    free(all);
    free(ptrs);
    free(lens);
    return st;
}

/* LINCOLL_WAIT against what the topology found (ctx->oversubscribed) */
static void lc_context_wait_mode(lincoll_context_t *ctx)
{
    ctx->wait_sleep =
        ctx->cfg.wait == LC_WAIT_SLEEP || (ctx->cfg.wait == LC_WAIT_AUTO && ctx->oversubscribed);
    /* A rank that shares its PU must not look long for a peer's store: it
     * comes from a peer that runs only once this rank gives the PU away
     * (the executor's defaults, 32 progress calls of 64 counter reads with
     * a pause each, last about 80 us on a Zen VM; 4 ranks on 2 PUs: an
     * 8-byte zcopy_rd_allreduce took 90 us at the median, 11 us with one
     * look).  Message rounds keep the defaults: there the transport's
     * progress calls themselves move data.  0: the defaults. */
    ctx->exec_spins = ctx->oversubscribed ? 1 : 0;
    ctx->wait_spins = ctx->oversubscribed ? 1 : 0;
    lc_info("wait: %s (%s %s; %.2f ranks per processing unit on the most crowded machine; "
            "zero-copy rounds: %s)",
            ctx->wait_sleep ? "sleep" : "spin", lc_config_name(LINCOLL_CONFIG_WAIT),
            ctx->cfg.wait == LC_WAIT_AUTO    ? "auto"
            : ctx->cfg.wait == LC_WAIT_SLEEP ? "sleep"
                                             : "spin",
            ctx->ranks_per_pu, ctx->exec_spins == 1 ? "one look per test" : "a spin per test");
}

/* The cost model's figures, fit to the job's hosts (lc_config_model_job),
 * then rank 0's on every rank: each rank read its own host's profile, and
 * automatic choices must agree or the ranks' plans would not match. */
static lincoll_status_t lc_model_agree(lincoll_context_t *ctx)
{
    lc_config_t *c = &ctx->cfg;
    int *host_of = malloc((size_t)ctx->size * sizeof(int));
    if (host_of == NULL) return LINCOLL_ERR_NOMEM;
    int nhosts = lc_topo_world_hosts(ctx, host_of);
    free(host_of);
    /* ranks per processing unit on the most crowded machine (the same on
     * every rank, core/topo/topo_share.c): above 1 the hand-off joins alpha */
    lc_config_model_job(c, nhosts, ctx->ranks_per_pu > 1.0 ? ctx->ranks_per_pu : 1.0);
    double *fig[] = {&c->model_alpha,      &c->model_alpha_mapped, &c->model_bw,
                     &c->model_compute_bw, &c->model_flops,        &c->model_handoff,
                     &c->model_bw_mapped,  &c->model_reduce_bw};
    enum { NFIG = sizeof(fig) / sizeof(fig[0]) };
    double mine[NFIG];
    for (int i = 0; i < NFIG; i++)
        mine[i] = *fig[i];
    void *all, **ptrs;
    size_t *lens;
    lincoll_status_t st =
        lc_bootstrap_allgatherv(ctx->boot, mine, sizeof(mine), &all, &ptrs, &lens);
    if (st != LINCOLL_OK) return st;
    if (lens[0] == sizeof(mine)) {
        const double *r0 = ptrs[0];
        for (int i = 0; i < NFIG; i++)
            *fig[i] = r0[i];
    }
    free(all);
    free(ptrs);
    free(lens);
    lc_debug("cost model: alpha %.3g s, alpha_mapped %.3g s, bw %.3g B/s, compute %.3g B/s, "
             "flops %.3g, %d host(s)%s%s",
             c->model_alpha, c->model_alpha_mapped, c->model_bw, c->model_compute_bw,
             c->model_flops, nhosts, c->profile_used[0] ? ", profile " : "", c->profile_used);
    return LINCOLL_OK;
}

lincoll_status_t lincoll_init(const lincoll_init_params_t *params, lincoll_context_t **ctx_p)
{
    LC_CHECK_ARG(ctx_p != NULL, "lincoll_init: ctx_p must not be NULL");
    if (params != NULL) {
        LC_CHECK_ARG(params->ports >= 0 && params->ports <= 64,
                     "lincoll_init: params->ports=%d is outside [0, 64]", params->ports);
        LC_CHECK_ARG(params->timeout == params->timeout,
                     "lincoll_init: params->timeout is not a number");
    }
    lincoll_context_t *ctx = calloc(1, sizeof(*ctx));
    if (ctx == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    lincoll_status_t st = lc_config_load(&ctx->cfg);
    lc_log_level = (lincoll_log_level_t)ctx->cfg.log_level;
    if (st != LINCOLL_OK) {
        free(ctx);
        return st;
    }
    lc_apply_config(ctx, params);
    /* the transport LINCOLL_TRANSPORT names, if it serves processes */
    lc_tl_launch_t launch = {.params = params};
    char name[32];
    const lc_transport_t *tport =
        lc_transport_pick(lc_transport_configured(&ctx->cfg, name, sizeof(name)), &launch);
    if (tport == NULL) {
        free(ctx);
        return LINCOLL_ERR_INVALID;
    }
    st = lc_bootstrap_open_params(&ctx->cfg, params, &ctx->boot);
    if (st != LINCOLL_OK) {
        free(ctx);
        return st;
    }
    ctx->rank = ctx->boot->rank;
    ctx->size = ctx->boot->size;
    lc_log_set_rank(ctx->rank);
    lc_info("bootstrap %s: rank %d of %d", ctx->boot->ops->name, ctx->rank, ctx->size);

    /* bind, pick the NIC, before the transport starts */
    st = lc_topo_setup(ctx, params, &launch.nics);
    if (st != LINCOLL_OK) {
        goto err_boot;
    }
    lc_context_wait_mode(ctx);
    st = lc_transport_start(ctx, tport, &launch);
    if (st != LINCOLL_OK) {
        goto err_boot;
    }
    st = lc_exchange_addresses(ctx);
    if (st != LINCOLL_OK) {
        goto err_tl;
    }
    st = lc_model_agree(ctx);
    if (st != LINCOLL_OK) {
        goto err_tl;
    }
    st = lc_comm_world_create(ctx);
    if (st != LINCOLL_OK) {
        goto err_tl;
    }
    /* from now on the bootstrap (finalize's barriers) follows the context
     * timeout T: 2 T, since a healthy peer may reach finalize up to T late,
     * still waiting out a plan that failed elsewhere first */
    lc_bootstrap_set_timeout(ctx->boot, 2 * ctx->timeout);
    *ctx_p = ctx;
    return LINCOLL_OK;

err_tl:
    ctx->tl_ops->fini(ctx->tl);
err_boot:
    lc_bootstrap_close(ctx->boot);
    lc_topo_share_free(ctx);
    free(ctx);
    return st;
}

lincoll_status_t lc_context_create_sim(struct lc_sim_world *world, int rank, int size, int ports,
                                       lincoll_context_t **ctx_p)
{
    /* whatever LINCOLL_TRANSPORT says: the first transport that serves
     * virtual ranks sharing a world */
    lc_tl_launch_t launch = {.world = world};
    const lc_transport_t *tport = lc_transport_pick(NULL, &launch);
    if (tport == NULL) {
        return LINCOLL_ERR_INVALID;
    }
    lincoll_context_t *ctx = calloc(1, sizeof(*ctx));
    if (ctx == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    lincoll_status_t st = lc_config_load(&ctx->cfg);
    if (st != LINCOLL_OK) {
        free(ctx);
        return st;
    }
    lc_apply_config(ctx, NULL);
    if (ports > 0) {
        ctx->ports = ports;
    }
    ctx->rank = rank;
    ctx->size = size;
    lc_context_wait_mode(ctx);
    st = lc_transport_start(ctx, tport, &launch);
    if (st == LINCOLL_OK) {
        st = lc_comm_world_create(ctx);
        if (st != LINCOLL_OK) {
            ctx->tl_ops->fini(ctx->tl);
        }
    }
    if (st != LINCOLL_OK) {
        free(ctx);
        return st;
    }
    *ctx_p = ctx;
    return LINCOLL_OK;
}

static lc_flush_fn_t lc_flush_fns[8];
static unsigned lc_nflush;

void lc_context_on_flush(lc_flush_fn_t fn)
{
    for (unsigned i = 0; i < lc_nflush; i++)
        if (lc_flush_fns[i] == fn) return;
    if (lc_nflush < sizeof(lc_flush_fns) / sizeof(lc_flush_fns[0])) lc_flush_fns[lc_nflush++] = fn;
}

void lc_context_flush(lincoll_context_t *ctx, lincoll_comm_t *comm)
{
    for (unsigned i = 0; i < lc_nflush; i++)
        lc_flush_fns[i](ctx, comm);
}

void lc_context_keep(lincoll_context_t *ctx, void *mem)
{
    if (ctx->nkept == ctx->capkept) {
        unsigned cap = ctx->capkept ? 2 * ctx->capkept : 8;
        void **k = realloc(ctx->kept, cap * sizeof(*k));
        if (k == NULL) {
            /* out of memory: leaked rather than freed under the transport */
            lc_warn("lincoll: cannot keep %p for the transport; leaving it allocated", mem);
            return;
        }
        ctx->kept = k;
        ctx->capkept = cap;
    }
    ctx->kept[ctx->nkept++] = mem;
}

lincoll_status_t lincoll_finalize(lincoll_context_t *ctx)
{
    if (ctx == NULL) {
        return LINCOLL_OK;
    }
    lincoll_status_t st = LINCOLL_OK;
    lc_context_flush(ctx, NULL); /* e.g. plans the blocking collectives kept */
    if (ctx->live_plans > 0) {
        lc_warn("lincoll_finalize: %d plan(s) were not freed", ctx->live_plans);
    }
    if (ctx->live_comms > 0) {
        lc_warn("lincoll_finalize: %d communicator(s) were not freed", ctx->live_comms);
    }
    lc_dev_mem_release_all(ctx); /* lincoll_mem_alloc_type device memory left */
    while (ctx->mems != NULL) {
        lc_mem_entry_t *e = ctx->mems;
        ctx->mems = e->next;
        lc_warn("lincoll_finalize: memory at %p (%zu bytes) was not freed", e->addr, e->len);
        ctx->tl_ops->mem_dereg(ctx->tl, e->mem);
        free(e);
    }
    if (ctx->boot != NULL) {
        /* every rank is done sending; then close endpoints while all peers still
         * progress; then nobody destroys its worker before everyone closed */
        st = ctx->boot->ops->barrier(ctx->boot);
        if (ctx->tl_ops->disconnect != NULL) {
            ctx->tl_ops->disconnect(ctx->tl);
        }
        /* after a failed barrier (a peer died or is unreachable) a second one
         * could only wait out the timeout again */
        if (st == LINCOLL_OK) {
            st = ctx->boot->ops->barrier(ctx->boot);
        }
        if (st != LINCOLL_OK) {
            lc_warn("lincoll_finalize: bootstrap barrier failed (%s); closing anyway",
                    lincoll_strerror(st));
        }
    }
    ctx->tl_ops->fini(ctx->tl);
    for (unsigned i = 0; i < ctx->nkept; i++)
        free(ctx->kept[i]);
    free(ctx->kept);
    if (ctx->boot != NULL) {
        lc_bootstrap_close(ctx->boot);
    }
    free(ctx->world->to_world);
    free(ctx->world);
    lc_topo_share_free(ctx);
    free(ctx);
    return st;
}

lincoll_status_t lincoll_comm_world(lincoll_context_t *ctx, lincoll_comm_t **comm_p)
{
    LC_CHECK_ARG(ctx != NULL, "lincoll_comm_world: ctx must not be NULL");
    LC_CHECK_ARG(comm_p != NULL, "lincoll_comm_world: comm_p must not be NULL");
    *comm_p = ctx->world;
    return LINCOLL_OK;
}

int lincoll_comm_rank(const lincoll_comm_t *comm)
{
    return comm != NULL ? comm->rank : -1;
}

int lincoll_comm_size(const lincoll_comm_t *comm)
{
    return comm != NULL ? comm->size : -1;
}

lincoll_status_t lincoll_progress(lincoll_context_t *ctx)
{
    LC_CHECK_ARG(ctx != NULL, "lincoll_progress: ctx must not be NULL");
    ctx->tl_ops->progress(ctx->tl);
    return LINCOLL_OK;
}

/* ---- event loop: the transport's wakeup descriptor ------------------------ */

lincoll_status_t lincoll_context_fd(lincoll_context_t *ctx, int *fd_p)
{
    LC_CHECK_ARG(ctx != NULL, "lincoll_context_fd: ctx must not be NULL");
    LC_CHECK_ARG(fd_p != NULL, "lincoll_context_fd: fd_p must not be NULL");
    int fd = ctx->tl_ops->event_fd != NULL ? ctx->tl_ops->event_fd(ctx->tl) : -1;
    if (fd < 0) {
        lc_error("lincoll_context_fd: the %s transport has no event descriptor", ctx->tl_ops->name);
        return LINCOLL_ERR_UNSUPPORTED;
    }
    *fd_p = fd;
    return LINCOLL_OK;
}

lincoll_status_t lincoll_context_arm(lincoll_context_t *ctx)
{
    LC_CHECK_ARG(ctx != NULL, "lincoll_context_arm: ctx must not be NULL");
    if (ctx->tl_ops->arm == NULL ||
        (ctx->tl_ops->event_fd != NULL && ctx->tl_ops->event_fd(ctx->tl) < 0)) {
        lc_error("lincoll_context_arm: the %s transport has no event descriptor",
                 ctx->tl_ops->name);
        return LINCOLL_ERR_UNSUPPORTED;
    }
    lincoll_status_t st = ctx->tl_ops->arm(ctx->tl);
    if (st != LINCOLL_OK && st != LINCOLL_ERR_BUSY) {
        lc_error("lincoll_context_arm: the %s transport could not arm its descriptor: %s",
                 ctx->tl_ops->name, lincoll_strerror(st));
    }
    return st;
}

/* ---- memory: the regions of a context (the public calls: core/api/mem_api.c) */

lc_mem_entry_t *lc_mem_find(lincoll_context_t *ctx, const void *addr, size_t len)
{
    const char *a = addr;
    for (lc_mem_entry_t *e = ctx->mems; e != NULL; e = e->next) {
        const char *b = e->addr;
        if (a >= b && a - b <= (ptrdiff_t)e->len && len <= e->len - (size_t)(a - b)) {
            return e;
        }
    }
    return NULL;
}

lincoll_status_t lc_mem_add(lincoll_context_t *ctx, void *addr, size_t len, int allocate,
                            void **addr_p)
{
    lc_mem_entry_t *e = calloc(1, sizeof(*e));
    if (e == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    lincoll_status_t st;
    if (allocate) {
        st = ctx->tl_ops->mem_alloc(ctx->tl, len, &e->mem, &e->addr);
    } else {
        e->addr = addr;
        st = ctx->tl_ops->mem_reg(ctx->tl, addr, len, &e->mem);
    }
    if (st != LINCOLL_OK) {
        free(e);
        return st;
    }
    e->len = len;
    e->allocated = allocate;
    e->next = ctx->mems;
    ctx->mems = e;
    if (addr_p != NULL) {
        *addr_p = e->addr;
    }
    return LINCOLL_OK;
}

lincoll_status_t lc_mem_remove(lincoll_context_t *ctx, void *addr, int allocated, const char *fn)
{
    for (lc_mem_entry_t **pp = &ctx->mems; *pp != NULL; pp = &(*pp)->next) {
        lc_mem_entry_t *e = *pp;
        if (e->addr == addr && e->allocated == allocated) {
            *pp = e->next;
            ctx->tl_ops->mem_dereg(ctx->tl, e->mem);
            free(e);
            return LINCOLL_OK;
        }
    }
    lc_error("%s: %p was not %s by lincoll", fn, addr, allocated ? "allocated" : "registered");
    return LINCOLL_ERR_INVALID;
}
