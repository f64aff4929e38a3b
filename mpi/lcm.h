/*
 * mpi/lcm.h: liblincoll_mpi.so, the PMPI layer (docs/mpi.md).
 *
 * The library defines MPI's collectives; a program that loads it ahead of
 * the MPI library (LD_PRELOAD, or -llincoll_mpi before -lmpi) runs them
 * through lincoll where lincoll can serve them and hands every other call to
 * PMPI_* unchanged.  It sits above lincoll's public API only (<lincoll/...>
 * and mpi.h; test/layers/layers_test.sh checks).
 *
 * Files: lcm_init.c (MPI_Init*, MPI_Finalize, the bootstrap, options),
 * lcm_comm.c (communicators: mapping and release), lcm_decide.c (types,
 * operators, statistics), lcm_table.c (the size table, agreed), lcm_cache.c (the plan cache),
 * lcm_coll.c (the blocking collectives), lcm_nb.c (nonblocking collectives
 * and the completion calls that drive them), lcm_stage.c (large blocking
 * calls through lincoll memory and zero-copy plans), lcm_persist.c (MPI-4
 * persistent collectives, or Open MPI's MPIX_*_init).
 */
#ifndef LCM_H
#define LCM_H

#include <mpi.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <lincoll/coll.h>
#include <lincoll/context.h>
#include <lincoll/plan.h>
#include <lincoll/types.h>

/* The operations the layer takes (statistics and the size table). */
typedef enum lcm_op {
    LCM_ALLREDUCE = 0,
    LCM_REDUCE,
    LCM_BCAST,
    LCM_ALLGATHER,
    LCM_REDUCE_SCATTER_BLOCK,
    LCM_REDUCE_SCATTER,
    LCM_BARRIER,
    LCM_OP_LAST
} lcm_op_t;

/* Why a call went to PMPI. */
typedef enum lcm_why {
    LCM_WHY_OFF = 0, /* LINCOLL_MPI=off or lincoll could not start */
    LCM_WHY_COMM,    /* communicator not mapped (intercommunicator, created without a parent) */
    LCM_WHY_DTYPE,   /* datatype lincoll has no arithmetic for (derived, logical, pairs) */
    LCM_WHY_OP,      /* user-defined, logical or location operator */
    LCM_WHY_SIZE,    /* below the size where lincoll is faster (the size table) */
    LCM_WHY_ARG,     /* invalid argument: the MPI reports it */
    LCM_WHY_DEVICE,  /* buffer lincoll cannot take (device memory without CUDA) */
    LCM_WHY_LAST
} lcm_why_t;

/* The size table (lcm_table.c), agreed from world rank 0: per operation the
 * byte ranges lincoll takes, the size from which blocking calls are staged,
 * and the plan cache's bounds.  Only uint64_t: broadcast as bytes. */
#define LCM_TABLE_RANGES 8
typedef struct lcm_table {
    uint64_t n[LCM_OP_LAST]; /* ranges per operation (0: never taken) */
    uint64_t lo[LCM_OP_LAST][LCM_TABLE_RANGES], hi[LCM_OP_LAST][LCM_TABLE_RANGES];
    uint64_t stage[LCM_OP_LAST]; /* per operation; UINT64_MAX: never staged */
    uint64_t cache_max, cache_bytes;
} lcm_table_t;

/* A communicator lincoll serves: the MPI communicator's attribute. */
typedef struct lcm_comm {
    MPI_Comm mpi;
    lincoll_comm_t *lc;
    unsigned id; /* never reused: part of the cache keys */
    int rank, size;
    int world;         /* lc is the context's world (not freed) */
    unsigned char bar; /* the barrier's one-byte allreduce */
    /* staged plans (lcm_stage.c): found and evicted alike on every rank */
    struct lcm_staged *staged;
    size_t staged_n, staged_bytes;
    unsigned long staged_clock;
    struct lcm_comm *prev, *next;
} lcm_comm_t;

/* The process's state. */
typedef struct lcm_state {
    int on;              /* collectives may go to lincoll */
    int stats;           /* LINCOLL_MPI_STATS */
    int thread_multiple; /* lincoll calls are serialized by lock (never held across a wait) */
    lincoll_context_t *ctx;
    MPI_Comm boot;     /* private dup of MPI_COMM_WORLD: the bootstrap's allgather */
    int keyval;        /* communicator attribute holding an lcm_comm_t */
    MPI_Comm pself;    /* dup of MPI_COMM_SELF: persistent requests' handles */
    lcm_comm_t *comms; /* every mapped communicator */
    unsigned next_id;
    long cache_max;
    size_t cache_bytes;
    lcm_table_t table; /* agreed at start */
    pthread_mutex_t lock;
} lcm_state_t;

extern lcm_state_t lcm;

void lcm_lock(void);
void lcm_unlock(void);

/* ---- lcm_init.c ---- */
/* Start lincoll after PMPI_Init*: options, context, world.  Never fails: on
 * any problem (agreed by every rank) the layer stays off. */
void lcm_start(void);
/* Seconds, monotonic. */
double lcm_now(void);

/* ---- lcm_comm.c ---- */
/* The mapping of @p comm, or NULL (unmapped: PMPI). */
lcm_comm_t *lcm_comm_get(MPI_Comm comm);
/* Map @p comm, the world (at start). */
int lcm_comm_map_world(lincoll_comm_t *world);
/* @p newcomm was made collectively over every rank of @p parent (dup,
 * split, split_type, create): map it by splitting parent's lincoll
 * communicator alike; every rank of parent calls it. */
void lcm_comm_derive(MPI_Comm parent, MPI_Comm newcomm);
/* Release every mapping (MPI_Finalize). */
void lcm_comm_release_all(void);

/* ---- lcm_decide.c ---- */
/* lincoll's element type for a predefined MPI type with arithmetic; -1 if none. */
int lcm_dtype(MPI_Datatype type);
/* lincoll's operator for @p op; -1 if none. */
int lcm_op(MPI_Op op);
/* Name of an operation ("allreduce", ...). */
const char *lcm_op_name(lcm_op_t op);
/* Statistics. */
void lcm_stat_taken(lcm_op_t op, double t);
void lcm_stat_fallback(lcm_op_t op, lcm_why_t why, double t);
void lcm_stat_staged(lcm_op_t op);
/* Print them on world rank 0 (summed over the world), before lincoll stops. */
void lcm_stat_print(void);
/* Report a lincoll failure through @p comm's error handler. */
int lcm_fail(MPI_Comm comm, const char *what, lincoll_status_t st);

/* ---- lcm_table.c ---- */
/* "64", "64k", "4m", "1g" in bytes; 0 or -1. */
int lcm_parse_bytes(const char *s, size_t *out);
/* The built-in table. */
void lcm_table_default(lcm_table_t *t);
/* LINCOLL_MPI_MIN_BYTES over the built-in table into @p t; 0, or -1 (one
 * line unless @p quiet) with @p t the built-in table. */
int lcm_table_parse(const char *text, lcm_table_t *t, int quiet);
/* Parse on every rank, take world rank 0's table (PMPI_Bcast on lcm.boot)
 * into lcm.table and lcm.cache_*; 0 or -1 (MPI failed). */
int lcm_table_agree(const char *text, long cache_max, size_t cache_bytes);
/* Whether lincoll takes a call of @p bytes (equal on every rank). */
int lcm_size_ok(lcm_op_t op, size_t bytes);
/* Whether a blocking call of @p op moving @p bytes is staged (lcm_stage.c). */
int lcm_stage_ok(lcm_op_t op, size_t bytes);

/* ---- lcm_cache.c ---- */
/* What a plan is for: everything it depends on. */
typedef struct lcm_key {
    lcm_op_t op;
    const lcm_comm_t *comm;
    unsigned comm_id;
    const void *sbuf;
    void *rbuf;
    size_t count; /* elements (per rank where the operation says so) */
    int dtype, rop, root;
    const size_t *counts; /* reduce_scatter v: comm size counts (compared, copied) */
} lcm_key_t;

/* A plan for @p key: cached (*cached_p = 1; hand it back with
 * lcm_cache_put) or compiled for this call only.  Local: no communication. */
lincoll_status_t lcm_cache_get(const lcm_key_t *key, lincoll_plan_t **plan_p, int *cached_p);
/* The call is over: a cached plan is free again (dropped after a failure). */
void lcm_cache_put(lincoll_plan_t *plan, int cached, int failed);
/* Drop the plans of @p comm (NULL: all). */
void lcm_cache_flush(const lcm_comm_t *comm);

/* ---- lcm_prep.c: one call, decided and ready to run ---- */
typedef struct lcm_call {
    lcm_op_t op;
    MPI_Comm comm;
    lcm_key_t key;
    size_t *vcounts; /* reduce_scatter: owned */
    void *tmp;       /* packed bytes of a non-contiguous type (owned) */
    void *ubuf;      /* after the run: unpack tmp into ubuf (ucount of utype) */
    int ucount;
    MPI_Datatype utype;
    lincoll_plan_t *plan;
    int cached;
    double t0;
} lcm_call_t;

/* Each decides a call (LCM_WHY_LAST: lincoll takes it, and @p call is
 * ready; otherwise the reason it goes to PMPI, with nothing allocated). */
lcm_why_t lcm_prep_allreduce(lcm_call_t *call, const void *sbuf, void *rbuf, int count,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm);
lcm_why_t lcm_prep_reduce(lcm_call_t *call, const void *sbuf, void *rbuf, int count,
                          MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm);
lcm_why_t lcm_prep_bcast(lcm_call_t *call, void *buf, int count, MPI_Datatype type, int root,
                         MPI_Comm comm);
lcm_why_t lcm_prep_allgather(lcm_call_t *call, const void *sbuf, int scount, MPI_Datatype stype,
                             void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm);
lcm_why_t lcm_prep_reduce_scatter_block(lcm_call_t *call, const void *sbuf, void *rbuf, int count,
                                        MPI_Datatype type, MPI_Op op, MPI_Comm comm);
lcm_why_t lcm_prep_reduce_scatter(lcm_call_t *call, const void *sbuf, void *rbuf,
                                  const int counts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm);
lcm_why_t lcm_prep_barrier(lcm_call_t *call, MPI_Comm comm);
/* Get the call's plan and start it (MPI_SUCCESS or an error code, reported). */
int lcm_call_start(lcm_call_t *call);
/* The plan completed with @p st: unpack, hand the plan back, count it. */
int lcm_call_finish(lcm_call_t *call, lincoll_status_t st);
/* Start, wait, finish. */
int lcm_call_run(lcm_call_t *call);

/* The body of an MPI collective: @p prep decides the call into `call`
 * (lcm_prep.c); lincoll runs it with @p take (a statement using `call`),
 * or @p pmpi runs it (an expression: the MPI's own call), counted with the
 * reason.  LINCOLL_MPI=off or no context: @p pmpi alone. */
#define LCM_COLLECTIVE(prep, take, pmpi)                                                           \
    do {                                                                                           \
        if (!lcm.on) return pmpi;                                                                  \
        lcm_call_t call;                                                                           \
        lcm_why_t why = prep;                                                                      \
        if (why == LCM_WHY_LAST) take;                                                             \
        int rc_ = pmpi;                                                                            \
        lcm_stat_fallback(call.op, why, lcm_now() - call.t0);                                      \
        return rc_;                                                                                \
    } while (0)

/* ---- lcm_stage.c ---- */
/* The call's bytes as the size table measures them (equal on every rank). */
size_t lcm_call_bytes(const lcm_call_t *call);
/* Run a blocking call staged through lincoll memory (lcm_stage_ok said so,
 * on every rank alike): 1 and *rc_p the call's MPI code, or 0 (every rank
 * alike, nothing changed) where the call goes unstaged. */
int lcm_stage_run(lcm_call_t *call, int *rc_p);
/* Free the staged plans of @p c. */
void lcm_stage_flush(lcm_comm_t *c);

/* ---- lcm_nb.c ---- */
/* Whether nonblocking calls are active; drive them once. */
int lcm_nb_busy(void);
void lcm_nb_progress(void);
/* Complete every active call (MPI_Finalize). */
void lcm_nb_finalize(void);
/* Start a prepared call for a persistent request: when it completes, a
 * message of @p tag to rank 0 of lcm.pself completes the request's handle. */
int lcm_nb_start_persist(lcm_call_t *call, int tag);

/* ---- lcm_persist.c ---- */
/* Free the persistent requests' state (MPI_Finalize). */
void lcm_persist_finalize(void);

#endif
