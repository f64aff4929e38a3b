/*
 * mpi/lcm_coll.c: the blocking collectives of liblincoll_mpi.so.
 *
 * Each decides its call (lcm_prep.c); lincoll runs the calls it takes with a
 * cached persistent plan (lcm_cache.c), large ones staged through lincoll
 * memory (lcm_stage.c), PMPI_* runs the others unchanged.
 */
#include "lcm.h"

#include <stdlib.h>

int lcm_call_start(lcm_call_t *call)
{
    lincoll_status_t st = lcm_cache_get(&call->key, &call->plan, &call->cached);
    if (st == LINCOLL_OK) {
        lcm_lock();
        st = lincoll_start(call->plan);
        lcm_unlock();
        if (st == LINCOLL_OK) return MPI_SUCCESS;
        lcm_cache_put(call->plan, call->cached, 1);
        call->plan = NULL;
    }
    free(call->tmp);
    free(call->vcounts);
    call->tmp = NULL;
    call->vcounts = NULL;
    return lcm_fail(call->comm, lcm_op_name(call->op), st);
}

int lcm_call_finish(lcm_call_t *call, lincoll_status_t st)
{
    if (call->plan != NULL) lcm_cache_put(call->plan, call->cached, st != LINCOLL_OK);
    call->plan = NULL;
    if (st == LINCOLL_OK && call->ubuf != NULL) {
        int pos = 0;
        MPI_Count bytes = 0;
        PMPI_Type_size_x(call->utype, &bytes);
        PMPI_Unpack(call->tmp, (int)(bytes * call->ucount), &pos, call->ubuf, call->ucount,
                    call->utype, call->comm);
    }
    free(call->tmp);
    free(call->vcounts);
    call->tmp = NULL;
    call->vcounts = NULL;
    if (st != LINCOLL_OK) return lcm_fail(call->comm, lcm_op_name(call->op), st);
    lcm_stat_taken(call->op, lcm_now() - call->t0);
    return MPI_SUCCESS;
}

int lcm_call_run(lcm_call_t *call)
{
    int rc = MPI_SUCCESS;
    if (call->op != LCM_BARRIER && lcm_stage_ok(call->op, lcm_call_bytes(call)) &&
        lcm_stage_run(call, &rc))
        return rc;
    rc = lcm_call_start(call);
    if (rc != MPI_SUCCESS) return rc;
    lincoll_status_t st = LINCOLL_OK;
    if (lcm.thread_multiple || lcm_nb_busy()) {
        /* test under the lock, so that other threads progress too, and
         * drive the nonblocking calls a peer may need to finish first */
        do {
            lcm_lock();
            st = lincoll_test(call->plan);
            lcm_unlock();
            if (st == LINCOLL_INPROGRESS && lcm_nb_busy()) lcm_nb_progress();
        } while (st == LINCOLL_INPROGRESS);
    } else {
        st = lincoll_wait(call->plan);
    }
    return lcm_call_finish(call, st);
}

/* A blocking collective: lincoll runs it to completion, or PMPI does. */
#define LCM_BLOCKING(prep, pmpi) LCM_COLLECTIVE(prep, return lcm_call_run(&call), pmpi)

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    LCM_BLOCKING(lcm_prep_allreduce(&call, sbuf, rbuf, count, type, op, comm),
                 PMPI_Allreduce(sbuf, rbuf, count, type, op, comm));
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm)
{
    LCM_BLOCKING(lcm_prep_reduce(&call, sbuf, rbuf, count, type, op, root, comm),
                 PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm));
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    LCM_BLOCKING(lcm_prep_bcast(&call, buf, count, type, root, comm),
                 PMPI_Bcast(buf, count, type, root, comm));
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm)
{
    LCM_BLOCKING(lcm_prep_allgather(&call, sbuf, scount, stype, rbuf, rcount, rtype, comm),
                 PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm));
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm)
{
    LCM_BLOCKING(lcm_prep_reduce_scatter_block(&call, sbuf, rbuf, count, type, op, comm),
                 PMPI_Reduce_scatter_block(sbuf, rbuf, count, type, op, comm));
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int counts[], MPI_Datatype type,
                       MPI_Op op, MPI_Comm comm)
{
    LCM_BLOCKING(lcm_prep_reduce_scatter(&call, sbuf, rbuf, counts, type, op, comm),
                 PMPI_Reduce_scatter(sbuf, rbuf, counts, type, op, comm));
}

int MPI_Barrier(MPI_Comm comm)
{
    LCM_BLOCKING(lcm_prep_barrier(&call, comm), PMPI_Barrier(comm));
}
