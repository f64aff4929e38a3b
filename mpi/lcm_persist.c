/*
 * mpi/lcm_persist.c: persistent collectives (MPI-4's MPI_Allreduce_init
 * and the others, as MPICH 4 has them; Open MPI 4.1's MPIX_*_init from
 * mpi-ext.h), run by lincoll's persistent plans (docs/mpi.md, "Persistent
 * collectives").
 *
 * A PMPI library cannot make the MPI's own persistent requests of a kind
 * the MPI does not know, so the handle the program gets is a real MPI
 * persistent request the layer completes itself: a persistent receive of 0
 * bytes (PMPI_Recv_init) from rank 0 of a private duplicate of
 * MPI_COMM_SELF, with a tag of its own.  MPI_Start and MPI_Startall start the
 * receive and lincoll's plan (the cached plan of the call's buffers,
 * lcm_cache.c, as a nonblocking call of lcm_nb.c); when the plan completes,
 * the layer sends the 0-byte message to itself, which completes the
 * receive.  So MPI_Wait, MPI_Test and their all/any/some forms, and
 * MPI_Request_free, work on the handle as on any persistent request: they
 * are the MPI's own (the layer's completion calls drive lincoll meanwhile).
 *
 * The decision is made at the init, from the arguments alone (lcm_prep.c),
 * so it is the same on every rank and at every start; the call is prepared
 * again at each start (a non-contiguous type is packed from the buffer's
 * contents then).  Calls lincoll does not take get the MPI's own persistent
 * request (PMPI_*_init).
 */
#include "lcm.h"

#include <stdlib.h>
#include <string.h>

#if MPI_VERSION >= 4
#define LCM_PERSIST     1
#define LCM_INIT(name)  MPI_##name##_init
#define LCM_PINIT(name) PMPI_##name##_init
#elif defined(OPEN_MPI) && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#ifdef OMPI_HAVE_MPI_EXT_PCOLLREQ
#define LCM_PERSIST     1
#define LCM_INIT(name)  MPIX_##name##_init
#define LCM_PINIT(name) PMPIX_##name##_init
#endif
#endif
#endif

#ifdef LCM_PERSIST

/* A persistent request lincoll runs: its arguments, prepared at each start. */
typedef struct lcm_preq {
    MPI_Request handle;
    int tag;
    lcm_op_t op;
    const void *sbuf;
    void *rbuf;
    int count, scount, root;
    int *counts; /* reduce_scatter: owned */
    MPI_Datatype type, stype;
    MPI_Op rop;
    MPI_Comm comm;
    struct lcm_preq *next;
} lcm_preq_t;

static lcm_preq_t *lcm_preqs;
static int lcm_ptag;

static lcm_why_t lcm_preq_prep(lcm_preq_t *q, lcm_call_t *call)
{
    switch (q->op) {
    case LCM_ALLREDUCE:
        return lcm_prep_allreduce(call, q->sbuf, q->rbuf, q->count, q->type, q->rop, q->comm);
    case LCM_REDUCE:
        return lcm_prep_reduce(call, q->sbuf, q->rbuf, q->count, q->type, q->rop, q->root, q->comm);
    case LCM_BCAST:
        return lcm_prep_bcast(call, q->rbuf, q->count, q->type, q->root, q->comm);
    case LCM_ALLGATHER:
        return lcm_prep_allgather(call, q->sbuf, q->scount, q->stype, q->rbuf, q->count, q->type,
                                  q->comm);
    case LCM_REDUCE_SCATTER_BLOCK:
        return lcm_prep_reduce_scatter_block(call, q->sbuf, q->rbuf, q->count, q->type, q->rop,
                                             q->comm);
    case LCM_REDUCE_SCATTER:
        return lcm_prep_reduce_scatter(call, q->sbuf, q->rbuf, q->counts, q->type, q->rop, q->comm);
    default:
        return lcm_prep_barrier(call, q->comm);
    }
}

/* Decide @p q at its init: lincoll takes it (its handle made, *request set,
 * 1) or not (0: the caller makes the MPI's request; counted). */
static int lcm_preq_make(lcm_preq_t *q, MPI_Request *request, int *rc_p)
{
    lcm_call_t call;
    if (!lcm.on) return 0;
    lcm_why_t why = lcm_preq_prep(q, &call);
    if (why != LCM_WHY_LAST) {
        lcm_stat_fallback(call.op, why, 0);
        return 0;
    }
    free(call.tmp); /* prepared again at each start */
    free(call.vcounts);
    lcm_preq_t *p = malloc(sizeof(*p));
    *rc_p = MPI_SUCCESS;
    if (p != NULL && lcm.pself == MPI_COMM_NULL &&
        PMPI_Comm_dup(MPI_COMM_SELF, &lcm.pself) != MPI_SUCCESS)
        lcm.pself = MPI_COMM_NULL;
    if (p == NULL || lcm.pself == MPI_COMM_NULL) {
        free(p);
        *rc_p = lcm_fail(q->comm, "persistent init", LINCOLL_ERR_NOMEM);
        return 1;
    }
    *p = *q;
    lcm_lock();
    p->tag = 1 + lcm_ptag++ % 30000; /* MPI_TAG_UB is at least 32767 */
    lcm_unlock();
    *rc_p = PMPI_Recv_init(NULL, 0, MPI_BYTE, 0, p->tag, lcm.pself, &p->handle);
    if (*rc_p != MPI_SUCCESS) {
        free(p);
        return 1;
    }
    lcm_lock();
    p->next = lcm_preqs;
    lcm_preqs = p;
    lcm_unlock();
    *request = p->handle;
    return 1;
}

static lcm_preq_t *lcm_preq_find(MPI_Request handle)
{
    if (handle == MPI_REQUEST_NULL) return NULL;
    lcm_lock();
    lcm_preq_t *p = lcm_preqs;
    while (p != NULL && p->handle != handle)
        p = p->next;
    lcm_unlock();
    return p;
}

static int lcm_preq_start(lcm_preq_t *p, MPI_Request *request)
{
    int rc = PMPI_Start(request);
    if (rc != MPI_SUCCESS) return rc;
    lcm_call_t call;
    if (lcm_preq_prep(p, &call) != LCM_WHY_LAST) { /* cannot happen: decided at init */
        PMPI_Send(NULL, 0, MPI_BYTE, 0, p->tag, lcm.pself);
        return lcm_fail(p->comm, "persistent start", LINCOLL_ERR_INTERNAL);
    }
    rc = lcm_nb_start_persist(&call, p->tag);
    if (rc != MPI_SUCCESS) PMPI_Send(NULL, 0, MPI_BYTE, 0, p->tag, lcm.pself); /* never hang */
    return rc;
}

int MPI_Start(MPI_Request *request)
{
    lcm_preq_t *p = lcm_preq_find(*request);
    return p != NULL ? lcm_preq_start(p, request) : PMPI_Start(request);
}

int MPI_Startall(int n, MPI_Request reqs[])
{
    int mine = 0;
    for (int i = 0; i < n && !mine; i++)
        mine = lcm_preq_find(reqs[i]) != NULL;
    if (!mine) return PMPI_Startall(n, reqs);
    for (int i = 0; i < n; i++) {
        int rc = MPI_Start(&reqs[i]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

int MPI_Request_free(MPI_Request *request)
{
    /* an active handle stays posted in the MPI after this: the message of
     * its completion still matches it */
    lcm_lock();
    for (lcm_preq_t **pp = &lcm_preqs; *request != MPI_REQUEST_NULL && *pp != NULL;
         pp = &(*pp)->next) {
        if ((*pp)->handle != *request) continue;
        lcm_preq_t *p = *pp;
        *pp = p->next;
        free(p->counts);
        free(p);
        break;
    }
    lcm_unlock();
    return PMPI_Request_free(request);
}

void lcm_persist_finalize(void)
{
    while (lcm_preqs != NULL) { /* requests the program did not free */
        lcm_preq_t *p = lcm_preqs;
        lcm_preqs = p->next;
        free(p->counts);
        free(p);
    }
    if (lcm.pself != MPI_COMM_NULL) PMPI_Comm_free(&lcm.pself);
}

/* The body of a persistent init: lincoll's handle, or the MPI's request. */
#define LCM_PERSISTENT(fill, pmpi)                                                                 \
    do {                                                                                           \
        lcm_preq_t q;                                                                              \
        memset(&q, 0, sizeof(q));                                                                  \
        fill;                                                                                      \
        int rc_ = MPI_SUCCESS;                                                                     \
        if (lcm_preq_make(&q, request, &rc_)) return rc_;                                          \
        free(q.counts);                                                                            \
        return pmpi;                                                                               \
    } while (0)

int LCM_INIT(Allreduce)(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    LCM_PERSISTENT((q.op = LCM_ALLREDUCE, q.sbuf = sbuf, q.rbuf = rbuf, q.count = count,
                    q.type = type, q.rop = op, q.comm = comm),
                   LCM_PINIT(Allreduce)(sbuf, rbuf, count, type, op, comm, info, request));
}

int LCM_INIT(Reduce)(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                     int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    LCM_PERSISTENT((q.op = LCM_REDUCE, q.sbuf = sbuf, q.rbuf = rbuf, q.count = count, q.type = type,
                    q.rop = op, q.root = root, q.comm = comm),
                   LCM_PINIT(Reduce)(sbuf, rbuf, count, type, op, root, comm, info, request));
}

int LCM_INIT(Bcast)(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request *request)
{
    LCM_PERSISTENT((q.op = LCM_BCAST, q.rbuf = buf, q.count = count, q.type = type, q.root = root,
                    q.comm = comm),
                   LCM_PINIT(Bcast)(buf, count, type, root, comm, info, request));
}

int LCM_INIT(Allgather)(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                        MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    LCM_PERSISTENT(
        (q.op = LCM_ALLGATHER, q.sbuf = sbuf, q.scount = scount, q.stype = stype, q.rbuf = rbuf,
         q.count = rcount, q.type = rtype, q.comm = comm),
        LCM_PINIT(Allgather)(sbuf, scount, stype, rbuf, rcount, rtype, comm, info, request));
}

int LCM_INIT(Reduce_scatter_block)(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
                                   MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    LCM_PERSISTENT(
        (q.op = LCM_REDUCE_SCATTER_BLOCK, q.sbuf = sbuf, q.rbuf = rbuf, q.count = count,
         q.type = type, q.rop = op, q.comm = comm),
        LCM_PINIT(Reduce_scatter_block)(sbuf, rbuf, count, type, op, comm, info, request));
}

/* The counts are copied: the program may change its array after the init. */
static int *lcm_counts_copy(MPI_Comm comm, const int counts[])
{
    int n = 0;
    if (counts == NULL || lcm_comm_get(comm) == NULL || PMPI_Comm_size(comm, &n) != MPI_SUCCESS)
        return NULL;
    int *c = malloc((size_t)n * sizeof(int));
    if (c != NULL) memcpy(c, counts, (size_t)n * sizeof(int));
    return c;
}

int LCM_INIT(Reduce_scatter)(const void *sbuf, void *rbuf, const int counts[], MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    LCM_PERSISTENT((q.op = LCM_REDUCE_SCATTER, q.sbuf = sbuf, q.rbuf = rbuf,
                    q.counts = lcm_counts_copy(comm, counts), q.type = type, q.rop = op,
                    q.comm = comm),
                   LCM_PINIT(Reduce_scatter)(sbuf, rbuf, counts, type, op, comm, info, request));
}

int LCM_INIT(Barrier)(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    LCM_PERSISTENT((q.op = LCM_BARRIER, q.comm = comm), LCM_PINIT(Barrier)(comm, info, request));
}

#else /* no persistent collectives in this MPI: nothing to take */

void lcm_persist_finalize(void)
{
    if (lcm.pself != MPI_COMM_NULL) PMPI_Comm_free(&lcm.pself);
}

#endif
