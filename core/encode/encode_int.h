/*
 * core/encode/encode_int.h: what the all-to-all encode plan compilers share.
 *
 * The public inits (encode_api.c, encode_api_specific.c, repair_api.c: api
 * layer, encode_api.h) validate arguments, create a plan and an lc_enc_b_t,
 * and call the compilers (which see the lc_enc_b_t only): lc_enc_ps_build() (prepare_shoot.c,
 * universal, any window), lc_enc_direct_build() (direct.c), lc_enc_fft_build() (dft.c, DIF/DIT
 * butterflies).  Each compiler works on a *group* of virtual ranks
 * v = 0..K-1 mapped to communicator ranks off + stride*v, so that composite
 * algorithms (coset Vandermonde, Lagrange) run several instances in
 * parallel on disjoint ranks, and stage after stage in consecutive rounds.
 *
 * Rounds are global: a message sent in round r is received in round r, and
 * every rank of a group uses the same number of rounds (they depend only on
 * K and p), so stages line up.
 *
 * GF compute steps: LC_STEP_GF_LINCOMB / LC_STEP_GF_MAD with ext =
 * lc_gf_step_ext_t (run by core/exec/steps_gf.c).  Coefficient tables are
 * owned by the plan's priv (lc_enc_priv_t) and shared by steps.
 */
#ifndef LC_ENCODE_INT_H
#define LC_ENCODE_INT_H

#include <lincoll/encode.h>
#include <stddef.h>
#include <stdint.h>

#include "core/plan/alg.h"
#include "core/plan/plan.h"
#include "core/plan/plan_steps.h"
#include "kernels/gf/gf_kernels.h"

/* ---- plan-owned data ---------------------------------------------------------- */
typedef struct lc_enc_priv {
    lincoll_gf_coeffs_t **coeffs;
    unsigned ncoeffs, cap;
    lincoll_gf_coeffs_t *one; /* 1x1 [1]: packet additions */
    /* chunk pipelining (encode_chunk.c) */
    unsigned nchunks; /* 1: not chunked */
    size_t chunk;     /* bytes of every chunk but the last */
    int zc;           /* a zero-copy plan (never chunked) */
    int sliced;       /* cut into slices already (lc_enc_slice_plan): lc_enc_end does not chunk */
} lc_enc_priv_t;

/* One compilation in progress: all the compilers see (no communicator, no
 * bind; the public init that drives it holds those, encode_api.h). */
typedef struct lc_enc_b {
    lc_plan_t *plan;
    const lincoll_field_t *f;
    size_t B; /* packet bytes */
    int p;    /* ports */
    lc_enc_priv_t *priv;
    int scratch_packet; /* slot of one zeroed packet (-1 until needed) */
    size_t chunk_req;   /* opts->chunk_bytes, else LINCOLL_ENCODE_CHUNK (0 = model) */
} lc_enc_b_t;

/* A group of virtual ranks: v -> communicator rank off + stride * v. */
typedef struct lc_enc_group {
    int K;
    int me; /* my virtual rank */
    int off, stride;
} lc_enc_group_t;

static inline int lc_enc_real(const lc_enc_group_t *g, int v)
{
    return g->off + g->stride * (((v % g->K) + g->K) % g->K);
}

/* Coefficient of virtual input j in virtual output k (A[j][k]). */
typedef uint64_t (*lc_enc_coef_fn_t)(const void *arg, int j, int k);

/* ---- building blocks (encode_build.c) ----------------------------------------- */
/* A builder: a new IR on env named name, the plan-owned coefficient tables,
 * packets of B bytes, chunk_req as chunk_req above. */
lincoll_status_t lc_enc_builder(lc_enc_b_t *b, const lc_env_t *env, const char *name, int ports,
                                const lincoll_field_t *f, size_t B, size_t chunk_req);
/* Make sure round idx exists; returns idx or -1. */
int lc_enc_round(lc_enc_b_t *b, int idx);
/* A scratch area of n packets; returns its slot (or -1). */
int lc_enc_scratch(lc_enc_b_t *b, size_t npackets);
/* A packet-sized reference that reads as zero for the whole life of the plan. */
lincoll_status_t lc_enc_zero_packet(lc_enc_b_t *b, lc_bufref_t *ref);
/* dsts[r] = sum_i M[r*nsrc + i] * srcs[i] (any sizes: split in <= 1024 blocks;
 * dsts must not overlap srcs). */
lincoll_status_t lc_enc_lincomb(lc_enc_b_t *b, int round, int post, int nsrc,
                                const lc_bufref_t *srcs, int ndst, const lc_bufref_t *dsts,
                                const uint64_t *M);
/* dst += src */
lincoll_status_t lc_enc_add(lc_enc_b_t *b, int round, int post, lc_bufref_t dst, lc_bufref_t src);
/* dsts[j] += c[j] * src for j < ndst (one GF mad per block of outputs) */
lincoll_status_t lc_enc_mad(lc_enc_b_t *b, int round, int when, lc_bufref_t src, int ndst,
                            const lc_bufref_t *dsts, const uint64_t *c);

/* ---- chunk pipelining (encode_chunk.c) ----------------------------------------- */
/* Replace b->plan (built for whole packets, not finalized) by its chunked,
 * pipelined version when b->chunk_req or the cost model asks for chunks. */
lincoll_status_t lc_enc_chunk_plan(lc_enc_b_t *b);
/* The chunk size lc_enc_chunk_plan cuts a template of T rounds over B-byte
 * packets into, for req = b->chunk_req (0: the model; B: not cut). */
size_t lc_enc_chunk_size(const lc_config_t *cfg, unsigned T, size_t B, size_t req);
/* Replace b->plan (whole packets, not finalized) by its cut into slices of
 * S bytes (the last shorter) merged as a wavefront (lc_pass_wavefront):
 * T + n - 1 rounds.  Marks the plan sliced (lc_enc_end does not chunk it). */
lincoll_status_t lc_enc_slice_plan(lc_enc_b_t *b, size_t S);
void lc_enc_priv_free(void *arg);

/* ---- closed forms (encode_model.c; docs/encode.md, "Closed forms C1 and C2") -- */
int lc_enc_ceil_log(int K, int P); /* smallest L with P^L >= K */
/* the paper's window m = P^T_p, capped at K */
int lc_enc_paper_window(int K, int p);
/* rounds and C2 (packets) of prepare-and-shoot with window m (any m in [1, K]) */
void lc_enc_ps_cost(int K, int p, int m, unsigned *c1, uint64_t *c2);
/* the best window: least C2 at C1 = ceil(log_P K), smallest m on ties
 * (docs/encode.md, "Windows and best_window") */
int lc_enc_best_window(int K, int p);
/* The [N, k] systematic generator: gen checked (reduced entries), or built
 * from kind (N <= q); *G_p is malloc'ed (rs.c). */
lincoll_status_t lc_enc_rs_generator(const char *fn, const lincoll_field_t *field, int N, int k,
                                     lincoll_gf_rs_kind_t kind, const uint64_t *gen,
                                     uint64_t **G_p);
/* direct: rounds = C2 = ceil((K-1)/p) */
void lc_enc_direct_cost(int K, int p, unsigned *c1, uint64_t *c2);
/* C1, C2 and window of a universal algorithm (lincoll_encode_cost()). */
lincoll_status_t lc_enc_closed_cost(int K, int ports, lincoll_encode_algo_t algo, unsigned *c1_p,
                                    uint64_t *c2_p, int *window_p);
/* Local GF work of one rank in bytes (prepare-and-shoot with window m, or direct). */
double lc_enc_gf_work(int K, int p, int m, lincoll_encode_algo_t a, size_t B);
/* Predicted seconds of one start of a universal algorithm with a closed form. */
double lc_enc_cost_of(lincoll_encode_algo_t a, const lc_config_t *cfg, int K, int p, size_t B);

/* ---- compilers ----------------------------------------------------------------- */
/* Universal prepare-and-shoot on group g with window m, from round r0; in/out
 * are this rank's packet and result (in.slot < 0: a zero packet).  Uses
 * exactly *rounds_p rounds (the same on every rank of the group). */
lincoll_status_t lc_enc_ps_build(lc_enc_b_t *b, const lc_enc_group_t *g, int m,
                                 lc_enc_coef_fn_t coef, const void *arg, lc_bufref_t in,
                                 lc_bufref_t out, int r0, int *rounds_p);
/* Direct: every rank receives the packets j with A[j][me] != 0. */
lincoll_status_t lc_enc_direct_build(lc_enc_b_t *b, const lc_enc_group_t *g, lc_enc_coef_fn_t coef,
                                     const void *arg, lc_bufref_t in, lc_bufref_t out, int r0,
                                     int *rounds_p);
/* Radix-P butterflies on a group of K = P^L ranks (P - 1 <= p ports), omega of
 * order K.  dit = 0: decimation in frequency, rank k gets sum_j x_j w^(j rev(k));
 * dit = 1: decimation in time, rank k gets sum_j x_j w^(rev(j) k).  The result
 * is multiplied by scale.  Uses L rounds (one, with a local step, when L = 0). */
lincoll_status_t lc_enc_fft_build(lc_enc_b_t *b, const lc_enc_group_t *g, int P, int L,
                                  uint64_t omega, int dit, uint64_t scale, lc_bufref_t in,
                                  lc_bufref_t out, int r0, int *rounds_p);
/* Index of a repeated element of v[0..n) (its value in *dup), -1 if none,
 * -2 when out of memory (vandermonde.c). */
int lc_enc_find_repeat(const uint64_t *v, int n, uint64_t *dup);
/* The integer n as a field element (dft.c). */
uint64_t lc_enc_int_elem(const lincoll_field_t *f, uint64_t n);
/* Base-P digit reversal of k < P^L. */
int lc_enc_rev(int k, int L, int P);

/* ---- selection (encode_model.c) ---------------------------------------------- */
/* Predicted seconds of a (C1, C2, GF coefficient-bytes) triple. */
double lc_enc_predict(const lc_config_t *cfg, unsigned c1, uint64_t c2, size_t B, double gf_bytes);

/* ---- the universal algorithms' registry (registry.c) --------------------------- */
/* One universal encode on this rank: y_k = sum_j A[j][k] x_j over K ranks
 * (communicator ranks 0..K-1), A given by coef(arg, j, k).  f, B and p
 * are the builder's (lc_enc_args() copies them), so that applies and cost
 * read them without one; applies and cost read only K, B and p (a price,
 * lc_enc_pick_universal, sets nothing else). */
typedef struct lc_enc_args {
    int K;  /* ranks of the encode */
    int me; /* this rank */
    const lincoll_field_t *f;
    size_t B; /* packet bytes */
    int p;    /* ports */
    lc_enc_coef_fn_t coef;
    const void *arg;
    lc_bufref_t in, out; /* this rank's packet and result in the plan (slots) */
} lc_enc_args_t;
/* The arguments of an encode compiled into b. */
static inline lc_enc_args_t lc_enc_args(const lc_enc_b_t *b, int K, int me, lc_enc_coef_fn_t coef,
                                        const void *arg, lc_bufref_t in, lc_bufref_t out)
{
    lc_enc_args_t a = {.K = K,
                       .me = me,
                       .f = b->f,
                       .B = b->B,
                       .p = b->p,
                       .coef = coef,
                       .arg = arg,
                       .in = in,
                       .out = out};
    return a;
}
/* An algorithm: the shape of every family's entry (core/plan/alg.h: name as
 * LINCOLL_ENCODE_ALGO takes it, which is also its plan's name; applies,
 * NULL = any call; closed-form cost; compiler into the builder), then the
 * encode extras. */
typedef struct lc_enc_alg {
    LC_ALG_SHAPE(lc_enc_b_t, lc_enc_args_t);
    int algo;   /* its lincoll_encode_algo_t, or -1: none public (lc_enc_alg_id) */
    int mapped; /* zero copy: bind agrees on the windows at init */
} lc_enc_alg_t;
const lc_enc_alg_t *lc_enc_alg(lincoll_encode_algo_t algo);
/* the whole table, in preference order */
const lc_enc_alg_t *const *lc_enc_registry(size_t *n_p);
/* the number an algorithm answers to (its lincoll_encode_algo_t, or
 * LINCOLL_ENCODE_ALGO_LAST + its position) */
int lc_enc_alg_id(const lc_enc_alg_t *a);
/* "auto", "specific" or the registry name of algo ("unknown" otherwise) */
const char *lc_enc_algo_name(lincoll_encode_algo_t algo);
/* the algorithm named name ("auto", "specific" or a registry name): 1, else 0 */
int lc_enc_algo_named(const char *name, lincoll_encode_algo_t *algo_p);

/* ---- zcopy (zcopy.c, zcopy_split.c) --------------------------------------------- */
/* Window keys of the zero-copy encodes. */
enum { LC_ENC_KEY_IN = 1, LC_ENC_KEY_OUT = 2 };
double lc_enc_zc_predict(const lc_config_t *cfg, int K, size_t B);
/* the zero-copy compilers (their entries' compile) */
lincoll_status_t lc_enc_zcopy_build(lc_enc_b_t *b, const lc_enc_args_t *a);
lincoll_status_t lc_enc_zcopy_split_build(lc_enc_b_t *b, const lc_enc_args_t *a);
/* their applies: every peer mapped (env->mapped), K = P >= 2 */
int lc_enc_zc_applies(const lc_env_t *env, const lc_enc_args_t *a);
/* segment of rank k in a packet of B bytes split K ways (64-byte units when
 * B allows, else element units): *off, *len */
void lc_enc_zc_segment(size_t B, size_t es, int K, int k, size_t *off, size_t *len);
/* Matrix held in memory, K x K row-major (coef callback for it). */
typedef struct lc_enc_dense {
    const uint64_t *A;
    int K;
    uint64_t q;       /* entries >= q are recorded in bad_j/bad_k (first one) */
    int bad_j, bad_k; /* -1: none */
} lc_enc_dense_t;
uint64_t lc_enc_dense_coef(const void *arg, int j, int k);

/* ---- structured matrices: coefficients and their own schedules ---------------- */
/* The DFT as a matrix (dft.c). */
typedef struct lc_dft_mat {
    uint64_t *pw; /* w^0 .. w^(K-1) */
    int *ord;     /* point index of rank k: k or rev(k) */
    uint64_t scale;
    int K;
    const lincoll_field_t *f;
} lc_dft_mat_t;
uint64_t lc_dft_coef(const void *arg, int j, int k);
/* The DFT's butterflies on all K = P^L ranks (extra: one more round to put
 * the digit-reversed result in natural order). */
lincoll_status_t lc_enc_dft_build(lc_enc_b_t *b, int K, int me, int P, int L, uint64_t w,
                                  uint64_t scale, int extra, lc_bufref_t in, lc_bufref_t out);
/* The Vandermonde matrix of points (vandermonde.c). */
typedef struct lc_vdm {
    const lincoll_field_t *f;
    const uint64_t *pts; /* universal: a_k */
    uint64_t *beta;      /* specific stage 1: b_z */
    int M, a;            /* specific stage 1: class a */
} lc_vdm_t;
uint64_t lc_vdm_coef(const void *arg, int j, int k);
/* Coset Vandermonde: prepare-and-shoot on Z = K / M classes (window mz),
 * then LM = log_P M butterfly rounds within each class (root w of order M). */
lincoll_status_t lc_enc_vdm_build(lc_enc_b_t *b, const lc_vdm_t *v, int me, int Z, int mz, int LM,
                                  int P, uint64_t w, lc_bufref_t in, lc_bufref_t out);
/* Lagrange interpolation and evaluation as a matrix (lagrange.c). */
typedef struct lc_lag {
    const uint64_t *Lm; /* K x K: Lm[k][i] = l_i(a_k) (lincoll_gf_matrix_lagrange) */
    int K;
} lc_lag_t;
uint64_t lc_lag_coef(const void *arg, int i, int k);
/* Lagrange on the default points: an inverse DFT, a scaling, a DFT. */
lincoll_status_t lc_enc_lagrange_build(lc_enc_b_t *b, int K, int me, int P, int L, uint64_t w,
                                       lc_bufref_t in, lc_bufref_t out);
/* Systematic RS encode and repair as sparse matrices (rs.c). */
typedef struct lc_rs {
    const uint64_t *G; /* N x k generator (encode) */
    const uint64_t *R; /* n_lost x k recovery matrix (repair) */
    int N, k;
    int *sidx, *lidx; /* repair: survivor / lost index of a rank, or -1 */
} lc_rs_t;
uint64_t lc_rs_encode_coef(const void *arg, int j, int c);
uint64_t lc_rs_repair_coef(const void *arg, int j, int c);

#endif
