/*
 * perf/sim/sim_algos_int.h: what sim_algos.c (the algorithm list, checks,
 * estimates) and sim_job.c (the jobs that compile and run them) share.
 *
 * An operation's algorithms are the library's registry entries (core/coll,
 * core/encode, core/matmul registry.c, core/encode/repair_registry.c), plus
 * the encode family's structured-matrix cases (dft, vandermonde, lagrange),
 * which have their own inits rather than a registry line.
 */
#ifndef LC_SIM_ALGOS_INT_H
#define LC_SIM_ALGOS_INT_H

#include "core/coll/coll_int.h"
#include "core/encode/encode_int.h"
#include "core/encode/repair_int.h"
#include "core/matmul/mm_int.h"
#include "sim_algos.h"

/* How an algorithm is compiled. */
typedef enum sim_kind {
    K_ENC_UNIV, /* lincoll_encode_init, dense random A, opts->algo = the entry's id */
    K_ENC_ZC,   /* a zero-copy universal entry: its compiler over windows bound by hand */
    K_ENC_DFT,  /* lincoll_encode_dft_init, specific */
    K_ENC_VDM,  /* lincoll_encode_vandermonde_init (coset points), specific */
    K_ENC_LAG,  /* lincoll_encode_lagrange_init (roots of unity), specific */
    K_RS,       /* lincoll_encode_rs_init, opts->algo = the entry's id */
    K_REPAIR,   /* lincoll_encode_repair_init, opts->algo = the entry's id */
    K_REPAIR_K, /* lincoll_encode_repair_k_init on survivors + lost, opts->algo = the schedule's */
    K_COLL,     /* the collective registry's entry, compiled through lc_coll_compile[_any] */
    K_MATMUL,   /* lincoll_matmul_init, opts.algo = the entry's */
} sim_kind_t;

/* One algorithm of an operation: its registry entry (one of coll, enc, rep,
 * mm; none for the structured-matrix encodes). */
typedef struct sim_alg {
    sim_kind_t kind;
    const char *name; /* the registry's name (what -A and lincoll_info -a take) */
    const char *plan; /* the plan's algorithm name (checked after compiling), or NULL */
    const lc_coll_alg_t *coll;
    const lc_enc_alg_t *enc;
    const lc_rep_alg_t *rep;
    const lc_mm_alg_t *mm;
} sim_alg_t;

/* algorithm algo of op (NULL when out of range) */
const sim_alg_t *sim_alg(sim_op_t op, int algo);
/* collectives' lc_coll_op_t of a sim operation (sim_is_coll) */
int sim_is_coll(sim_op_t op);
lc_coll_op_t sim_coll_op(sim_op_t op);
/* the field an encode-family algorithm runs over (0: none fits) */
uint64_t sim_field_q(const sim_params_t *prm, const sim_alg_t *a);
/* grid of a matmul algorithm: pr x pc x c; -1 when K does not fit */
int sim_mm_grid(const sim_params_t *prm, const sim_alg_t *a, int *pr, int *pc, int *c);
/* K near-equal shares of the vector (reduce_scatter, allgather) and their
 * exclusive prefix sums (K + 1 entries): 0, or -1 without memory */
int sim_coll_counts(const sim_params_t *p, size_t **counts_p, size_t **displs_p);
/* the collective's arguments on a rank, as lincoll_<op>_init fills them */
lc_coll_args_t sim_coll_args(const sim_params_t *p, const size_t *counts, const size_t *displs,
                             void *in, void *out);
/* a zero-copy encode's coefficient callback for a plan whose values do not matter */
uint64_t sim_coef_one(const void *arg, int j, int k);

#endif
