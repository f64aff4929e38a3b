/*
 * perf/sim/sim_algos.h: how lincoll_sim compiles algorithm X of operation Y
 * for virtual rank r.
 *
 * The driver (lincoll_sim.c) only sees operations, algorithm indices, jobs
 * and plans.  The algorithms of an operation are the library's registries'
 * entries, in the registry's order, under the registry's names
 * (sim_algos.c: lists, checks, estimates); sim_job.c compiles and binds
 * them.  Adding an algorithm to a registry adds it here with no edit.
 */
#ifndef LC_SIM_ALGOS_H
#define LC_SIM_ALGOS_H

#include <lincoll/lincoll.h>
#include <stddef.h>
#include <stdint.h>

typedef enum sim_op {
    SIM_ENCODE = 0,
    SIM_RS_ENCODE,
    SIM_REPAIR,
    SIM_ALLREDUCE,
    SIM_REDUCE_SCATTER,
    SIM_ALLGATHER,
    SIM_BCAST,
    SIM_REDUCE,
    SIM_MATMUL,
    SIM_NOPS
} sim_op_t;

/* What one call looks like (the same on every virtual rank). */
typedef struct sim_params {
    sim_op_t op;
    int K;                 /* virtual ranks */
    int ports;             /* p */
    size_t size;           /* bytes: encode packet; collectives: the vector (see -h) */
    uint64_t field_q;      /* encode family: field order, 0 = the default of each algorithm */
    int data_k;            /* rs_encode/repair: data ranks k, 0 = default */
    int n_lost;            /* repair: lost ranks, 0 = default (1) */
    int root;              /* bcast/reduce */
    lincoll_dtype_t dtype; /* collectives */
    int64_t mm_n;          /* matmul: global n (square n x n x n) */
    int mm_layers;         /* matmul 2.5d: layers c, 0 = automatic */
    int comm_only;         /* matmul: skip the local GEMMs */
} sim_params_t;

const char *sim_op_name(sim_op_t op);
/* 0 and *op on success, -1 for an unknown name. */
int sim_op_parse(const char *name, sim_op_t *op);
/* Largest K the sim can take for the operation (memory permitting). */
int sim_op_max_K(sim_op_t op);
/* Default size in bytes of -s for the operation. */
size_t sim_op_default_size(sim_op_t op);
/* Fill the defaults that depend on the operation and K (data_k, n_lost, ...). */
void sim_params_defaults(sim_params_t *prm);

int sim_algo_count(sim_op_t op);
const char *sim_algo_name(sim_op_t op, int algo);
/* Index of an algorithm by name, -1 if the operation has none of that name. */
int sim_algo_find(sim_op_t op, const char *name);
/* Bytes -s must be a multiple of for this algorithm (field element, dtype). */
size_t sim_algo_unit(const sim_params_t *prm, int algo);

/* 0 when the algorithm can run for these parameters, else -1 and the reason
 * (one line) in why: checked without compiling anything. */
int sim_algo_check(const sim_params_t *prm, int algo, char *why, size_t len);

/* Estimated seconds and bytes a row costs beyond what rank 0's plan shows
 * (zero-copy windows between all K^2 pairs of ranks, matrices), to refuse
 * a row before setting it up; what says where the cost comes from. */
void sim_algo_setup_cost(const sim_params_t *prm, int algo, double *seconds, double *bytes,
                         char *what, size_t len);

/* The shared data of one (parameters, algorithm) on K virtual ranks. */
typedef struct sim_job sim_job_t;

/* Prepare a job over the K contexts/world communicators (field, matrix,
 * zero-copy windows ...).  On failure the reason is in why. */
lincoll_status_t sim_job_create(const sim_params_t *prm, int algo, lincoll_context_t **ctx,
                                lincoll_comm_t **comm, sim_job_t **job_p, char *why, size_t len);
/* Compile rank r's plan (the algorithm forced); the job owns rank r's buffers. */
lincoll_status_t sim_job_compile(sim_job_t *job, int r, lincoll_plan_t **plan_p);
/* Bytes of user buffers rank r needs (for the memory estimate). */
size_t sim_job_rank_bytes(const sim_job_t *job, int r);
/* Shared bytes the job holds (matrices). */
size_t sim_job_shared_bytes(const sim_job_t *job);
/* Algorithm the library picks by itself for the same call (compiled on
 * rank 0 with the automatic choice, tag buffers), written to name. */
lincoll_status_t sim_job_choice(sim_job_t *job, char *name, size_t len);
/* Extra text about the job for the note column (field, grid), may be "". */
const char *sim_job_note(const sim_job_t *job);
void sim_job_destroy(sim_job_t *job);

/* Model inputs the plan keeps besides its transfers: bytes processed by
 * compute steps, bytes zero-copy steps move through mapped memory, GEMM
 * flops (of this rank). */
void sim_plan_model_inputs(const lincoll_plan_t *plan, double *compute_bytes, double *moved_bytes,
                           double *flops);

#endif
