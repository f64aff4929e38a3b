/*
 * core/context/context.h: the context, communicators and registered memory
 * (internal view of the opaque public types).
 */
#ifndef LC_CONTEXT_H
#define LC_CONTEXT_H

#include <lincoll/context.h>
#include <lincoll/plan.h>

#include "core/base/config.h"
#include "core/context/bootstrap/bootstrap.h"
#include "transports/transport.h"

/* A region lincoll_mem_alloc()ed or lincoll_mem_register()ed. */
typedef struct lc_mem_entry {
    struct lc_mem_entry *next;
    void *addr;
    size_t len;
    lc_tl_mem_t *mem;
    int allocated;
} lc_mem_entry_t;

struct lincoll_context {
    lc_config_t cfg;
    lc_bootstrap_t *boot; /* NULL for a sim virtual rank */
    const lc_tl_ops_t *tl_ops;
    lc_tl_t *tl;
    int rank;
    int size;
    int ports;
    /* ranks sharing processing units (core/topo/topo_share.c): per world
     * rank its machine and the PUs of its CPU set after binding, the same
     * on every rank; ranks_per_pu of the world; oversubscribed when > 1 */
    int *cpu_machine;
    uint64_t *cpu_masks; /* LC_TOPO_CPU_WORDS words per world rank */
    double ranks_per_pu;
    int oversubscribed;
    /* blocking waits sleep (LINCOLL_WAIT, auto: oversubscribed): see
     * core/exec/wait.c; writers of mapped flags then wake their waiters */
    int wait_sleep;
    /* how long test() looks at a round that waits on mapped peers' stores
     * before it returns: progress calls and counter reads per wait
     * (core/exec/exec.c; 0: its defaults); one each where ranks share
     * processing units, so that a rank hands its PU to the peer whose
     * store it waits for at once */
    unsigned exec_spins, wait_spins;
    double timeout; /* seconds, 0 = never */
    lincoll_comm_t *world;
    unsigned next_comm_id; /* the next counted comm id (core/api/comm.c) */
    lc_mem_entry_t *mems;
    int live_plans;
    int live_comms;              /* besides the world */
    struct lincoll_plan *tagged; /* live plans with an operation tag (core/exec/optag.c) */
    void **kept;                 /* memory the transport may still read (lc_context_keep) */
    unsigned nkept, capkept;
};

struct lincoll_comm {
    lincoll_context_t *ctx;
    int rank; /* my rank in the communicator */
    int size;
    int *to_world;    /* communicator rank -> transport (world) rank */
    unsigned id;      /* comm id in the tag */
    unsigned seq;     /* operations started so far */
    unsigned shrinks; /* lincoll_comm_shrink calls so far (the tag of their messages) */
    int local;        /* made by lincoll_comm_create_group(LINCOLL_GROUP_LOCAL) */
    /* a local group: the id of its nearest counted ancestor, whose
     * operation tags it shares (core/api/group.c, lc_comm_tag_space) */
    unsigned tag_space;
    /* the operation tag of the init in progress on this communicator (every
     * plan bound meanwhile takes it: core/exec/optag.c); on: tagged wire */
    uint64_t scope_tag;
    int scope_on;
    int scope_open; /* an init's scope is open (lc_optag_enter) */
};

/* The communicator id whose operation tags @p c shares: a local group's
 * counted ancestor's, every other communicator's own. */
static inline unsigned lc_comm_tag_space(const lincoll_comm_t *c)
{
    return c->local ? c->tag_space : c->id;
}

/* Communicator ids (the tag's comm id field): split, shrink and agreed
 * groups count in [1, LC_COMM_ID_LOCAL), local groups hash into
 * [LC_COMM_ID_LOCAL, 4096) (core/api/group.c). */
#define LC_COMM_ID_LOCAL 2048u
/* The id that follows @p id among counted ids (wraps to 1). */
static inline unsigned lc_comm_id_next(unsigned id)
{
    return id + 1 >= LC_COMM_ID_LOCAL ? 1u : id + 1;
}

/* A communicator of @p size ranks of ctx, its rank map allocated (filled
 * by the caller), everything else zero; NULL when out of memory. */
lincoll_comm_t *lc_comm_new(lincoll_context_t *ctx, int size);

/* What holds on to a context's or communicator's resources (the plan cache
 * of the blocking collectives) registers a flush callback; lincoll_finalize
 * (comm NULL) and lincoll_comm_free call every one.  At most 8. */
typedef void (*lc_flush_fn_t)(lincoll_context_t *ctx, lincoll_comm_t *comm);
void lc_context_on_flush(lc_flush_fn_t fn);
void lc_context_flush(lincoll_context_t *ctx, lincoll_comm_t *comm);

/* Take @p mem (malloc()ed) that the transport may still read: sends a
 * failed plan released go on until UCX is done with them.  Freed by
 * lincoll_finalize once the transport is closed. */
void lc_context_keep(lincoll_context_t *ctx, void *mem);

/* lincoll_comm_split in two halves: every member's entry (what the split
 * allgathers), then the new communicator from all of them (entries[i] of
 * rank i of comm).  Tests that drive sim virtual ranks from one thread call
 * the halves themselves. */
typedef struct lc_split_entry {
    int32_t color;
    int32_t key;
    int32_t rank;
    uint32_t next_id;
} lc_split_entry_t;
lc_split_entry_t lc_comm_split_entry(lincoll_comm_t *comm, int color, int key);
lincoll_status_t lc_comm_split_finish(lincoll_comm_t *comm, const lc_split_entry_t *entries,
                                      int color, lincoll_comm_t **new_p);

/* A sim virtual rank: context over the in-process sim transport (the world:
 * transports/sim/api.h). */
struct lc_sim_world;
lincoll_status_t lc_context_create_sim(struct lc_sim_world *world, int rank, int size, int ports,
                                       lincoll_context_t **ctx_p);

/* ---- the transport array (core/context/transports.c) -------------------- */

/* What a context starts its transport for. */
typedef struct lc_tl_launch {
    const lincoll_init_params_t *params; /* lincoll_init's (may be NULL) */
    const char *nics;           /* the topology's NIC choice (UCX_NET_DEVICES syntax), or NULL */
    struct lc_sim_world *world; /* virtual ranks of one process: their world; NULL: processes */
} lc_tl_launch_t;

/* One transport: its ops (ops->name is a value of LINCOLL_TRANSPORT), whether
 * it can serve a launch, and how core starts it: fill the transport's own
 * parameters (transports/<name>/api.h) from the context and call init(). */
typedef struct lc_transport {
    const lc_tl_ops_t *ops;
    const char *serves; /* what it runs, for messages */
    int (*probe)(const lc_tl_launch_t *launch);
    lincoll_status_t (*start)(lincoll_context_t *ctx, const lc_tl_launch_t *launch);
} lc_transport_t;

/* Every transport, in order of preference; NULL-terminated. */
extern const lc_transport_t *const lc_transports[];

/* The name LINCOLL_TRANSPORT selects under @p cfg (written to @p buf), or NULL. */
const char *lc_transport_configured(const lc_config_t *cfg, char *buf, size_t len);
/* The transport named @p name when its probe accepts @p launch (else an
 * error is logged and NULL returned); @p name NULL: the first, in order of
 * preference, that accepts it. */
const lc_transport_t *lc_transport_pick(const char *name, const lc_tl_launch_t *launch);
/* Start @p t for ctx: sets ctx->tl_ops and ctx->tl. */
lincoll_status_t lc_transport_start(lincoll_context_t *ctx, const lc_transport_t *t,
                                    const lc_tl_launch_t *launch);

/* The memory entry containing [addr, addr+len), or NULL. */
lc_mem_entry_t *lc_mem_find(lincoll_context_t *ctx, const void *addr, size_t len);
/* Add an entry: allocate len bytes through the transport (allocate; the
 * address in *addr_p) or register [addr, addr+len) (addr_p may be NULL). */
lincoll_status_t lc_mem_add(lincoll_context_t *ctx, void *addr, size_t len, int allocate,
                            void **addr_p);
/* Drop the entry at addr made the same way (allocated or registered) and
 * release it; LINCOLL_ERR_INVALID (one log line naming fn) when there is none. */
lincoll_status_t lc_mem_remove(lincoll_context_t *ctx, void *addr, int allocated, const char *fn);

/* Seconds on a monotonic clock. */
double lc_now(void);

#endif
