/*
 * mpi/lcm_prep.c: decide one call and make it ready to run.
 *
 * Reductions take the predefined types and operators lincoll has arithmetic
 * for (lcm_decide.c): MPI requires the same type, count and operator on
 * every rank, so the local decision is every rank's.  Broadcast and
 * allgather need no arithmetic: they move the type signature's bytes as
 * LINCOLL_BYTE whatever the datatype, packing a non-contiguous one into a
 * temporary buffer, so ranks that describe the same data with different
 * datatypes and counts decide alike.  MPI_IN_PLACE maps to LINCOLL_IN_PLACE.
 * Invalid arguments go to PMPI, which reports them as the MPI does.
 */
#include "lcm.h"

#include <stdlib.h>
#include <string.h>

/* The type's signature bytes per element, and whether count elements lie
 * back to back from buf + *lb_p; 0 size for an invalid type. */
static MPI_Count lcm_type_layout(MPI_Datatype t, int count, int *contig_p, MPI_Aint *lb_p,
                                 MPI_Aint *extent_p)
{
    MPI_Count size = 0, tlb = 0, text = 0, lb = 0, ext = 0;
    *contig_p = 0;
    *lb_p = 0;
    *extent_p = 0;
    if (t == MPI_DATATYPE_NULL || PMPI_Type_size_x(t, &size) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent_x(t, &tlb, &text) != MPI_SUCCESS ||
        PMPI_Type_get_extent_x(t, &lb, &ext) != MPI_SUCCESS)
        return 0;
    *contig_p = text == size && (count <= 1 || ext == size);
    *lb_p = (MPI_Aint)tlb;
    *extent_p = (MPI_Aint)ext;
    return size;
}

static void lcm_call_init(lcm_call_t *call, lcm_op_t op, MPI_Comm comm, lcm_comm_t *c)
{
    memset(call, 0, sizeof(*call));
    call->op = op;
    call->comm = comm;
    call->t0 = lcm_now();
    call->key.op = op;
    call->key.comm = c;
    call->key.comm_id = c != NULL ? c->id : 0;
    call->key.rop = LINCOLL_SUM;
}

/* The checks every reduction shares. */
static lcm_why_t lcm_reduction(lcm_call_t *call, int count, MPI_Datatype type, MPI_Op op,
                               size_t elems)
{
    const lcm_comm_t *c = call->key.comm;
    if (c == NULL) return LCM_WHY_COMM;
    if (count < 0) return LCM_WHY_ARG;
    const int d = lcm_dtype(type), r = lcm_op(op);
    if (d < 0) return LCM_WHY_DTYPE;
    if (r < 0) return LCM_WHY_OP;
    const int flt = d == LINCOLL_FLOAT || d == LINCOLL_DOUBLE;
    if ((flt && r == LINCOLL_BXOR) || (d == LINCOLL_BYTE && r != LINCOLL_BXOR))
        return LCM_WHY_ARG; /* no meaning in MPI either */
    const size_t bytes = elems * lincoll_dtype_size((lincoll_dtype_t)d);
    if (bytes == 0 || !lcm_size_ok(call->op, bytes)) return LCM_WHY_SIZE;
    call->key.dtype = d;
    call->key.rop = r;
    return LCM_WHY_LAST;
}

static const void *lcm_sbuf(const void *sbuf)
{
    return sbuf == MPI_IN_PLACE ? LINCOLL_IN_PLACE : sbuf;
}

lcm_why_t lcm_prep_allreduce(lcm_call_t *call, const void *sbuf, void *rbuf, int count,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    lcm_call_init(call, LCM_ALLREDUCE, comm, lcm_comm_get(comm));
    lcm_why_t why = lcm_reduction(call, count, type, op, (size_t)(count > 0 ? count : 0));
    if (why != LCM_WHY_LAST) return why;
    call->key.sbuf = lcm_sbuf(sbuf);
    call->key.rbuf = rbuf;
    call->key.count = (size_t)count;
    return LCM_WHY_LAST;
}

lcm_why_t lcm_prep_reduce(lcm_call_t *call, const void *sbuf, void *rbuf, int count,
                          MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
    lcm_comm_t *c = lcm_comm_get(comm);
    lcm_call_init(call, LCM_REDUCE, comm, c);
    if (c != NULL && (root < 0 || root >= c->size)) return LCM_WHY_ARG;
    lcm_why_t why = lcm_reduction(call, count, type, op, (size_t)(count > 0 ? count : 0));
    if (why != LCM_WHY_LAST) return why;
    if (c->rank != root && sbuf == MPI_IN_PLACE) return LCM_WHY_ARG;
    call->key.sbuf = lcm_sbuf(sbuf);
    call->key.rbuf = c->rank == root ? rbuf : NULL;
    call->key.count = (size_t)count;
    call->key.root = root;
    return LCM_WHY_LAST;
}

lcm_why_t lcm_prep_reduce_scatter_block(lcm_call_t *call, const void *sbuf, void *rbuf, int count,
                                        MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    lcm_comm_t *c = lcm_comm_get(comm);
    lcm_call_init(call, LCM_REDUCE_SCATTER_BLOCK, comm, c);
    if (c == NULL) return LCM_WHY_COMM;
    lcm_why_t why =
        lcm_reduction(call, count, type, op, (size_t)(count > 0 ? count : 0) * (size_t)c->size);
    if (why != LCM_WHY_LAST) return why;
    call->key.sbuf = lcm_sbuf(sbuf);
    call->key.rbuf = rbuf;
    call->key.count = (size_t)count;
    return LCM_WHY_LAST;
}

lcm_why_t lcm_prep_reduce_scatter(lcm_call_t *call, const void *sbuf, void *rbuf,
                                  const int counts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    lcm_comm_t *c = lcm_comm_get(comm);
    lcm_call_init(call, LCM_REDUCE_SCATTER, comm, c);
    if (c == NULL) return LCM_WHY_COMM;
    if (counts == NULL) return LCM_WHY_ARG;
    size_t total = 0;
    for (int i = 0; i < c->size; i++) {
        if (counts[i] < 0) return LCM_WHY_ARG;
        total += (size_t)counts[i];
    }
    lcm_why_t why = lcm_reduction(call, 0, type, op, total);
    if (why != LCM_WHY_LAST) return why;
    call->vcounts = malloc((size_t)c->size * sizeof(size_t));
    if (call->vcounts == NULL) return LCM_WHY_ARG; /* the MPI reports what it can */
    for (int i = 0; i < c->size; i++)
        call->vcounts[i] = (size_t)counts[i];
    call->key.sbuf = lcm_sbuf(sbuf);
    call->key.rbuf = rbuf;
    call->key.counts = call->vcounts;
    return LCM_WHY_LAST;
}

lcm_why_t lcm_prep_bcast(lcm_call_t *call, void *buf, int count, MPI_Datatype type, int root,
                         MPI_Comm comm)
{
    lcm_comm_t *c = lcm_comm_get(comm);
    lcm_call_init(call, LCM_BCAST, comm, c);
    if (c == NULL) return LCM_WHY_COMM;
    if (count < 0 || root < 0 || root >= c->size) return LCM_WHY_ARG;
    int contig;
    MPI_Aint lb, ext;
    const MPI_Count es = lcm_type_layout(type, count, &contig, &lb, &ext);
    if (es == 0 && type == MPI_DATATYPE_NULL) return LCM_WHY_ARG;
    const size_t bytes = (size_t)es * (size_t)count;
    if (bytes == 0 || !lcm_size_ok(LCM_BCAST, bytes)) return LCM_WHY_SIZE;
    call->key.dtype = LINCOLL_BYTE;
    call->key.count = bytes;
    call->key.root = root;
    if (contig) {
        call->key.rbuf = (char *)buf + lb;
        return LCM_WHY_LAST;
    }
    /* a non-contiguous type: broadcast its packed bytes */
    call->tmp = malloc(bytes);
    if (call->tmp == NULL) return LCM_WHY_ARG;
    if (c->rank == root) {
        int pos = 0;
        PMPI_Pack(buf, count, type, call->tmp, (int)bytes, &pos, comm);
    } else {
        call->ubuf = buf;
        call->ucount = count;
        call->utype = type;
    }
    call->key.rbuf = call->tmp;
    return LCM_WHY_LAST;
}

lcm_why_t lcm_prep_allgather(lcm_call_t *call, const void *sbuf, int scount, MPI_Datatype stype,
                             void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    lcm_comm_t *c = lcm_comm_get(comm);
    lcm_call_init(call, LCM_ALLGATHER, comm, c);
    if (c == NULL) return LCM_WHY_COMM;
    const int inplace = sbuf == MPI_IN_PLACE;
    if (rcount < 0 || (!inplace && scount < 0)) return LCM_WHY_ARG;
    int rcontig, scontig = 1;
    MPI_Aint rlb, rext, slb = 0, sext;
    const MPI_Count res = lcm_type_layout(rtype, rcount, &rcontig, &rlb, &rext);
    const size_t bytes = (size_t)res * (size_t)rcount;
    if (!inplace) {
        const MPI_Count ses = lcm_type_layout(stype, scount, &scontig, &slb, &sext);
        if ((size_t)ses * (size_t)scount != bytes) return LCM_WHY_ARG;
    }
    if (res == 0 && rtype == MPI_DATATYPE_NULL) return LCM_WHY_ARG;
    if (bytes == 0 || !lcm_size_ok(LCM_ALLGATHER, bytes)) return LCM_WHY_SIZE;
    const size_t P = (size_t)c->size, me = (size_t)c->rank;
    call->key.dtype = LINCOLL_BYTE;
    call->key.count = bytes;
    char *out = (char *)rbuf + rlb; /* the result's bytes, where they are contiguous */
    if (!rcontig) {
        call->tmp = malloc(P * bytes);
        if (call->tmp == NULL) return LCM_WHY_ARG;
        out = call->tmp;
        call->ubuf = rbuf;
        call->ucount = (int)P * rcount;
        call->utype = rtype;
    }
    if (inplace && !rcontig) { /* the own block, from its place in rbuf */
        int pos = 0;
        PMPI_Pack((char *)rbuf + (MPI_Aint)me * rcount * rext, rcount, rtype, out + me * bytes,
                  (int)bytes, &pos, comm);
    } else if (!inplace && (!scontig || !rcontig)) {
        int pos = 0;
        PMPI_Pack(sbuf, scount, stype, out + me * bytes, (int)bytes, &pos, comm);
    }
    call->key.sbuf = inplace || !scontig || !rcontig ? LINCOLL_IN_PLACE : (const char *)sbuf + slb;
    call->key.rbuf = out;
    return LCM_WHY_LAST;
}

lcm_why_t lcm_prep_barrier(lcm_call_t *call, MPI_Comm comm)
{
    lcm_comm_t *c = lcm_comm_get(comm);
    lcm_call_init(call, LCM_BARRIER, comm, c);
    if (c == NULL) return LCM_WHY_COMM;
    if (!lcm_size_ok(LCM_BARRIER, 0)) return LCM_WHY_SIZE;
    call->key.sbuf = LINCOLL_IN_PLACE;
    call->key.rbuf = &c->bar;
    call->key.count = 1;
    call->key.dtype = LINCOLL_UINT8;
    call->key.rop = LINCOLL_BXOR;
    return LCM_WHY_LAST;
}
