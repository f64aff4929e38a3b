/*
 * mpi/lcm_decide.c: what lincoll takes, and the statistics of what it took.
 *
 * Every rule decides from what MPI makes equal on every rank of the call
 * (docs/mpi.md, "Decisions"): the communicator (mapped on all its ranks or
 * on none), the reduction's datatype and operator (the standard requires the
 * same on every rank; types of one signature map to one lincoll type, so
 * MPI_INT on one rank and MPI_INT32_T on another agree), and the message's
 * bytes (count times the type's size: the type signature's length).
 */
#include "lcm.h"

#include <lincoll/status.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const lcm_op_names[LCM_OP_LAST] = {
    "allreduce",      "reduce", "bcast", "allgather", "reduce_scatter_block",
    "reduce_scatter", "barrier"};

static const char *const lcm_why_names[LCM_WHY_LAST] = {
    "off", "communicator", "datatype", "operator", "size", "argument", "memory"};

const char *lcm_op_name(lcm_op_t op)
{
    return op < LCM_OP_LAST ? lcm_op_names[op] : "unknown";
}

static int lcm_int_dtype(size_t size, int is_signed)
{
    switch (size) {
    case 1:
        return is_signed ? LINCOLL_INT8 : LINCOLL_UINT8;
    case 2:
        return is_signed ? LINCOLL_INT16 : LINCOLL_UINT16;
    case 4:
        return is_signed ? LINCOLL_INT32 : LINCOLL_UINT32;
    case 8:
        return is_signed ? LINCOLL_INT64 : LINCOLL_UINT64;
    default:
        return -1;
    }
}

int lcm_dtype(MPI_Datatype t)
{
    if (t == MPI_DATATYPE_NULL) return -1;
    if (t == MPI_FLOAT) return LINCOLL_FLOAT;
    if (t == MPI_DOUBLE) return LINCOLL_DOUBLE;
    if (t == MPI_BYTE) return LINCOLL_BYTE;
    if (t == MPI_INT8_T || t == MPI_SIGNED_CHAR) return LINCOLL_INT8;
    if (t == MPI_UINT8_T || t == MPI_UNSIGNED_CHAR) return LINCOLL_UINT8;
    if (t == MPI_INT16_T) return LINCOLL_INT16;
    if (t == MPI_UINT16_T) return LINCOLL_UINT16;
    if (t == MPI_INT32_T) return LINCOLL_INT32;
    if (t == MPI_UINT32_T) return LINCOLL_UINT32;
    if (t == MPI_INT64_T) return LINCOLL_INT64;
    if (t == MPI_UINT64_T) return LINCOLL_UINT64;
    if (t == MPI_SHORT) return lcm_int_dtype(sizeof(short), 1);
    if (t == MPI_UNSIGNED_SHORT) return lcm_int_dtype(sizeof(short), 0);
    if (t == MPI_INT) return lcm_int_dtype(sizeof(int), 1);
    if (t == MPI_UNSIGNED) return lcm_int_dtype(sizeof(int), 0);
    if (t == MPI_LONG) return lcm_int_dtype(sizeof(long), 1);
    if (t == MPI_UNSIGNED_LONG) return lcm_int_dtype(sizeof(long), 0);
    if (t == MPI_LONG_LONG_INT || t == MPI_LONG_LONG) return lcm_int_dtype(sizeof(long long), 1);
    if (t == MPI_UNSIGNED_LONG_LONG) return lcm_int_dtype(sizeof(long long), 0);
    return -1;
}

int lcm_op(MPI_Op op)
{
    if (op == MPI_SUM) return LINCOLL_SUM;
    if (op == MPI_PROD) return LINCOLL_PROD;
    if (op == MPI_MIN) return LINCOLL_MIN;
    if (op == MPI_MAX) return LINCOLL_MAX;
    if (op == MPI_BXOR) return LINCOLL_BXOR;
    return -1;
}

/* ---- statistics ---- */

typedef struct lcm_stat {
    double taken, taken_s, fallback, fallback_s, staged;
    double why[LCM_WHY_LAST];
} lcm_stat_t;

#define LCM_STAT_DOUBLES (sizeof(lcm_stat_t) / sizeof(double))
static lcm_stat_t lcm_stats[LCM_OP_LAST];

void lcm_stat_taken(lcm_op_t op, double t)
{
    lcm_lock();
    lcm_stats[op].taken += 1;
    lcm_stats[op].taken_s += t;
    lcm_unlock();
}

void lcm_stat_fallback(lcm_op_t op, lcm_why_t why, double t)
{
    lcm_lock();
    lcm_stats[op].fallback += 1;
    lcm_stats[op].fallback_s += t;
    lcm_stats[op].why[why] += 1;
    lcm_unlock();
}

void lcm_stat_staged(lcm_op_t op)
{
    lcm_lock();
    lcm_stats[op].staged += 1;
    lcm_unlock();
}

/* This rank's counts so far, for programs that check the layer's decisions
 * (test/mpi/decide_check.c finds it with dlsym): @p out[0] the calls of
 * operation @p name lincoll took, out[1] those handed to the MPI, out[2]
 * those of out[0] staged through lincoll memory.  0, or -1 for an unknown
 * name. */
__attribute__((visibility("default"))) int lincoll_mpi_stat_get(const char *name, double out[3]);
int lincoll_mpi_stat_get(const char *name, double out[3])
{
    for (int i = 0; i < LCM_OP_LAST; i++) {
        if (name == NULL || strcmp(name, lcm_op_names[i]) != 0) continue;
        lcm_lock();
        out[0] = lcm_stats[i].taken;
        out[1] = lcm_stats[i].fallback;
        out[2] = lcm_stats[i].staged;
        lcm_unlock();
        return 0;
    }
    return -1;
}

void lcm_stat_print(void)
{
    lcm_stat_t sum[LCM_OP_LAST];
    int rank = 0, size = 1;
    PMPI_Comm_rank(lcm.boot, &rank);
    PMPI_Comm_size(lcm.boot, &size);
    if (PMPI_Reduce(lcm_stats, sum, (int)(LCM_OP_LAST * LCM_STAT_DOUBLES), MPI_DOUBLE, MPI_SUM, 0,
                    lcm.boot) != MPI_SUCCESS ||
        rank != 0)
        return;
    fprintf(stderr, "lincoll_mpi: statistics, summed over %d ranks (time: seconds in the calls)\n",
            size);
    fprintf(stderr, "lincoll_mpi: %-21s %10s %10s %10s %10s  reasons\n", "operation", "taken",
            "time", "fallback", "time");
    for (int i = 0; i < LCM_OP_LAST; i++) {
        char why[256] = "";
        size_t n = 0;
        for (int w = 0; w < LCM_WHY_LAST && n < sizeof(why); w++)
            if (sum[i].why[w] > 0)
                n += (size_t)snprintf(why + n, sizeof(why) - n, "%s%s=%.0f", n ? " " : "",
                                      lcm_why_names[w], sum[i].why[w]);
        fprintf(stderr, "lincoll_mpi: %-21s %10.0f %10.4f %10.0f %10.4f  %s\n", lcm_op_names[i],
                sum[i].taken, sum[i].taken_s, sum[i].fallback, sum[i].fallback_s, n ? why : "-");
    }
}

int lcm_fail(MPI_Comm comm, const char *what, lincoll_status_t st)
{
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "lincoll_mpi: rank %d: %s: %s\n", rank, what, lincoll_strerror(st));
    int code = MPI_ERR_OTHER;
    if (st == LINCOLL_ERR_NOMEM)
        code = MPI_ERR_NO_MEM;
    else if (st == LINCOLL_ERR_INVALID || st == LINCOLL_ERR_MISMATCH)
        code = MPI_ERR_ARG;
    else if (st == LINCOLL_ERR_INTERNAL)
        code = MPI_ERR_INTERN;
    PMPI_Comm_call_errhandler(comm, code);
    return code;
}
