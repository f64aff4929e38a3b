/*
 * mpi/lcm_nb.c: the nonblocking collectives of liblincoll_mpi.so.
 *
 * A call lincoll takes starts its plan and returns a generalized request
 * (MPI_Grequest_start), so MPI_Wait, MPI_Test and their all/any/some forms
 * accept it, mixed with the MPI's own requests.  lincoll's plans progress
 * when the program is inside one of those completion calls (the layer
 * defines them: while any lincoll request is active they poll the plans
 * and the MPI's requests in turn, so a wait on a receive never stalls a
 * collective that a peer needs to finish first) or inside another
 * collective.  A plan that completes completes its request
 * (MPI_Grequest_complete); the MPI then returns it as done.  The others go
 * to PMPI_I* unchanged.
 */
#include "lcm.h"

#include <stdlib.h>

typedef struct lcm_nb {
    lcm_call_t call;
    MPI_Request req;
    int rc;   /* the call's MPI error code, once done */
    int ptag; /* > 0: a persistent request's start (lcm_persist.c), completed
               * by a message of this tag to its handle on lcm.pself */
    struct lcm_nb *next;
} lcm_nb_t;

static lcm_nb_t *lcm_active;

static int lcm_nb_query(void *extra, MPI_Status *status)
{
    lcm_nb_t *nb = extra;
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    return nb->rc;
}

static int lcm_nb_free(void *extra)
{
    free(extra);
    return MPI_SUCCESS;
}

static int lcm_nb_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS; /* a started collective cannot be canceled: it completes */
}

/* Drive every active plan once; complete the requests of those that ended. */
void lcm_nb_progress(void)
{
    lcm_nb_t *done = NULL;
    lcm_lock();
    for (lcm_nb_t **pp = &lcm_active; *pp != NULL;) {
        lcm_nb_t *nb = *pp;
        lincoll_status_t st = lincoll_test(nb->call.plan);
        if (st == LINCOLL_INPROGRESS) {
            pp = &nb->next;
            continue;
        }
        *pp = nb->next;
        nb->rc = st; /* the status, until it is finished below */
        nb->next = done;
        done = nb;
    }
    lcm_unlock();
    while (done != NULL) {
        lcm_nb_t *nb = done;
        done = nb->next;
        nb->rc = lcm_call_finish(&nb->call, (lincoll_status_t)nb->rc);
        if (nb->ptag > 0) {
            PMPI_Send(NULL, 0, MPI_BYTE, 0, nb->ptag, lcm.pself);
            free(nb);
            continue;
        }
        PMPI_Grequest_complete(nb->req);
    }
}

int lcm_nb_busy(void)
{
    return lcm_active != NULL;
}

/* Start a prepared call as a request. */
/* Make a started call one of those lcm_nb_progress drives. */
static void lcm_nb_enlist(lcm_nb_t *nb)
{
    lcm_lock();
    nb->next = lcm_active;
    lcm_active = nb;
    lcm_unlock();
}

static int lcm_nb_start(lcm_call_t *call, MPI_Request *request)
{
    lcm_nb_t *nb = calloc(1, sizeof(*nb));
    if (nb == NULL) {
        free(call->tmp);
        free(call->vcounts);
        return lcm_fail(call->comm, lcm_op_name(call->op), LINCOLL_ERR_NOMEM);
    }
    nb->call = *call;
    int rc = lcm_call_start(&nb->call);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Grequest_start(lcm_nb_query, lcm_nb_free, lcm_nb_cancel, nb, &nb->req);
    if (rc != MPI_SUCCESS) {
        free(nb);
        return rc;
    }
    lcm_nb_enlist(nb);
    *request = nb->req;
    lcm_nb_progress();
    return MPI_SUCCESS;
}

int lcm_nb_start_persist(lcm_call_t *call, int tag)
{
    lcm_nb_t *nb = calloc(1, sizeof(*nb));
    if (nb == NULL) {
        free(call->tmp);
        free(call->vcounts);
        return lcm_fail(call->comm, lcm_op_name(call->op), LINCOLL_ERR_NOMEM);
    }
    nb->call = *call;
    nb->ptag = tag;
    int rc = lcm_call_start(&nb->call);
    if (rc != MPI_SUCCESS) {
        free(nb);
        return rc;
    }
    lcm_nb_enlist(nb);
    lcm_nb_progress();
    return MPI_SUCCESS;
}

void lcm_nb_finalize(void)
{
    while (lcm_nb_busy())
        lcm_nb_progress();
}

/* A nonblocking collective: lincoll's as a generalized request, or PMPI's. */
#define LCM_NB(prep, pmpi) LCM_COLLECTIVE(prep, return lcm_nb_start(&call, request), pmpi)

int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request)
{
    LCM_NB(lcm_prep_allreduce(&call, sbuf, rbuf, count, type, op, comm),
           PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, request));
}

int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *request)
{
    LCM_NB(lcm_prep_reduce(&call, sbuf, rbuf, count, type, op, root, comm),
           PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm, request));
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
               MPI_Request *request)
{
    LCM_NB(lcm_prep_bcast(&call, buf, count, type, root, comm),
           PMPI_Ibcast(buf, count, type, root, comm, request));
}

int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                   MPI_Datatype rtype, MPI_Comm comm, MPI_Request *request)
{
    LCM_NB(lcm_prep_allgather(&call, sbuf, scount, stype, rbuf, rcount, rtype, comm),
           PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, request));
}

int MPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                              MPI_Comm comm, MPI_Request *request)
{
    LCM_NB(lcm_prep_reduce_scatter_block(&call, sbuf, rbuf, count, type, op, comm),
           PMPI_Ireduce_scatter_block(sbuf, rbuf, count, type, op, comm, request));
}

int MPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int counts[], MPI_Datatype type,
                        MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    LCM_NB(lcm_prep_reduce_scatter(&call, sbuf, rbuf, counts, type, op, comm),
           PMPI_Ireduce_scatter(sbuf, rbuf, counts, type, op, comm, request));
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    LCM_NB(lcm_prep_barrier(&call, comm), PMPI_Ibarrier(comm, request));
}

/* ---- completion: poll lincoll's plans and the MPI's requests in turn ---- */

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (lcm_nb_busy()) lcm_nb_progress();
    return PMPI_Test(request, flag, status);
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    if (lcm_nb_busy()) lcm_nb_progress();
    return PMPI_Testall(n, reqs, flag, statuses);
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    if (lcm_nb_busy()) lcm_nb_progress();
    return PMPI_Testany(n, reqs, index, flag, status);
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    if (lcm_nb_busy()) lcm_nb_progress();
    return PMPI_Testsome(n, reqs, outcount, indices, statuses);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    int flag = 0, rc = MPI_SUCCESS;
    while (lcm_nb_busy() && !flag && rc == MPI_SUCCESS) {
        lcm_nb_progress();
        rc = PMPI_Test(request, &flag, status);
    }
    return flag || rc != MPI_SUCCESS ? rc : PMPI_Wait(request, status);
}

/* MPI_Waitall while lincoll has calls running: MPI_Testsome polls, keeping
 * each request's status as it completes, then PMPI_Waitall.  Not
 * PMPI_Testall: MPICH 4.0.2's fails with MPI_ERR_IN_STATUS (MPI_ERR_PENDING)
 * where some requests of the array are complete and some are not. */
int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    if (!lcm_nb_busy() || n <= 0) return PMPI_Waitall(n, reqs, statuses);
    const int keep = statuses != MPI_STATUSES_IGNORE;
    int *idx = malloc((size_t)n * sizeof(int)), *done = calloc((size_t)n, sizeof(int));
    MPI_Status *sts = malloc((size_t)n * sizeof(MPI_Status));
    if (idx == NULL || done == NULL || sts == NULL) {
        free(idx), free(done), free(sts);
        while (lcm_nb_busy()) /* no memory: finish lincoll's calls first */
            lcm_nb_progress();
        return PMPI_Waitall(n, reqs, statuses);
    }
    int rc = MPI_SUCCESS, out = 0;
    while (lcm_nb_busy() && rc == MPI_SUCCESS && out != MPI_UNDEFINED) {
        lcm_nb_progress();
        rc = PMPI_Testsome(n, reqs, &out, idx, sts);
        for (int k = 0; rc == MPI_SUCCESS && out != MPI_UNDEFINED && k < out; k++) {
            done[idx[k]] = 1;
            if (keep) statuses[idx[k]] = sts[k];
        }
    }
    if (rc == MPI_SUCCESS && out != MPI_UNDEFINED) {
        rc = PMPI_Waitall(n, reqs, sts);
        for (int i = 0; keep && i < n; i++)
            if (!done[i]) statuses[i] = sts[i];
    }
    free(idx), free(done), free(sts);
    return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    int flag = 0, rc = MPI_SUCCESS;
    while (lcm_nb_busy() && !flag && rc == MPI_SUCCESS) {
        lcm_nb_progress();
        rc = PMPI_Testany(n, reqs, index, &flag, status);
    }
    return flag || rc != MPI_SUCCESS ? rc : PMPI_Waitany(n, reqs, index, status);
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    int rc = MPI_SUCCESS;
    *outcount = 0;
    while (lcm_nb_busy() && *outcount == 0 && rc == MPI_SUCCESS) {
        lcm_nb_progress();
        rc = PMPI_Testsome(n, reqs, outcount, indices, statuses);
    }
    return *outcount != 0 || rc != MPI_SUCCESS
               ? rc
               : PMPI_Waitsome(n, reqs, outcount, indices, statuses);
}
