/*
 * core/encode/encode_int.h: what the all-to-all encode plan compilers share.
 *
 * The public inits (encode_api.c, dft.c, vandermonde.c, lagrange.c, rs.c)
 * validate arguments, create a plan and an lc_enc_b_t, and call the
 * compilers: lc_enc_ps_build() (prepare_shoot.c, universal, any window),
 * lc_enc_direct_build() (direct.c), lc_enc_fft_build() (dft.c, DIF/DIT
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

/* One compilation in progress.  The compilers see only plan (the IR), f, B,
 * p and priv; comm, bind and the zcopy fields belong to the init that
 * drives the compilation (its bind at lc_enc_end). */
typedef struct lc_enc_b {
    lc_plan_t *plan;
    const lincoll_field_t *f;
    size_t B; /* packet bytes */
    int p;    /* ports */
    lc_enc_priv_t *priv;
    int scratch_packet; /* slot of one zeroed packet (-1 until needed) */
    size_t chunk_req;   /* opts->chunk_bytes, else LINCOLL_ENCODE_CHUNK (0 = model) */
    lincoll_comm_t *comm;
    struct lc_bind *bind; /* zcopy: the agreed windows, bound at lc_enc_end */
    int zc_allowed;       /* lincoll_encode_init: zcopy is a candidate */
    const char *fn;       /* the public init (log lines) */
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

/* ---- builder helpers (encode_common.c) --------------------------------------- */
lincoll_status_t lc_enc_begin(lincoll_comm_t *comm, const char *name, int ports,
                              const lincoll_field_t *f, size_t B, const lincoll_encode_opts_t *opts,
                              lc_enc_b_t *b);
/* Chunk the packet when that pays (encode_chunk.c), add checksums
 * (LINCOLL_ENCODE_CHECKSUM), finalize and bind; or destroy on error.  The one
 * finalisation point of every encode init. */
lincoll_status_t lc_enc_end(lc_enc_b_t *b, lincoll_status_t st, lincoll_plan_t **plan_p);
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

/* ---- closed forms (encode_common.c; docs/encode.md, "Closed forms C1 and C2") - */
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

/* ---- selection (encode_common.c) --------------------------------------------- */
/* Algorithm asked for: opts->algo, else LINCOLL_ENCODE_ALGO, else auto. */
lincoll_status_t lc_enc_requested_algo(const lc_config_t *cfg, const lincoll_encode_opts_t *opts,
                                       lincoll_encode_algo_t *algo_p);
/* Predicted seconds of a (C1, C2, GF coefficient-bytes) triple. */
double lc_enc_predict(const lc_config_t *cfg, unsigned c1, uint64_t c2, size_t B, double gf_bytes);
/* Compile a universal encode (prepare_shoot, best_window or direct; auto picks
 * the cheapest) of an explicit matrix on the group of all ranks of b.  in or
 * out with slot < 0: zero input / no output wanted. */
lincoll_status_t lc_enc_universal(lc_enc_b_t *b, lincoll_encode_algo_t algo, int K, int me,
                                  lc_enc_coef_fn_t coef, const void *arg, lc_bufref_t in,
                                  lc_bufref_t out);
/* Pick among universal algorithms for K, p (algo AUTO: cheapest; zc:
 * zcopy and zcopy_split count too). */
lincoll_encode_algo_t lc_enc_pick_universal(const lc_config_t *cfg, int K, int p, size_t B,
                                            lincoll_encode_algo_t algo, double *pred_p);
lincoll_encode_algo_t lc_enc_pick(const lc_config_t *cfg, int K, int p, size_t B,
                                  lincoll_encode_algo_t algo, int zc, double *pred_p);

/* ---- the universal algorithms' registry (encode_common.c) ---------------------- */
typedef struct lc_enc_alg {
    lincoll_encode_algo_t algo;
    const char *name;
    int mapped; /* zero copy: bind agrees on the windows at init */
    /* closed-form cost (seconds) of one start, K ranks, p ports, B bytes */
    double (*cost)(const lc_config_t *cfg, int K, int p, size_t B);
    /* compile on all ranks of b's plan (K of them, this one me) */
    lincoll_status_t (*compile)(lc_enc_b_t *b, int K, int me, lc_enc_coef_fn_t coef,
                                const void *arg, lc_bufref_t in, lc_bufref_t out);
} lc_enc_alg_t;
const lc_enc_alg_t *lc_enc_alg(lincoll_encode_algo_t algo);
/* the whole table, in preference order */
const lc_enc_alg_t *lc_enc_registry(size_t *n_p);

/* ---- zcopy (zcopy.c, zcopy_split.c) --------------------------------------------- */
/* Window keys of the zero-copy encodes. */
enum { LC_ENC_KEY_IN = 1, LC_ENC_KEY_OUT = 2 };
double lc_enc_zc_predict(const lc_config_t *cfg, int K, size_t B);
lincoll_status_t lc_enc_zcopy_build(lc_enc_b_t *b, int K, int me, lc_enc_coef_fn_t coef,
                                    const void *arg, lc_bufref_t in, lc_bufref_t out);
lincoll_status_t lc_enc_zcopy_split_build(lc_enc_b_t *b, int K, int me, lc_enc_coef_fn_t coef,
                                          const void *arg, lc_bufref_t in, lc_bufref_t out);
/* segment of rank k in a packet of B bytes split K ways (64-byte units when
 * B allows, else element units): *off, *len */
void lc_enc_zc_segment(size_t B, size_t es, int K, int k, size_t *off, size_t *len);
/* Common argument checks of every init; fills *ports. */
lincoll_status_t lc_enc_check_common(const char *fn, lincoll_comm_t *comm,
                                     const lincoll_field_t *field, size_t packet_bytes,
                                     const void *in, int need_in, void *out, int need_out,
                                     const lincoll_encode_opts_t *opts, lincoll_plan_t **plan_p,
                                     int *ports);

/* Matrix held in memory, K x K row-major (coef callback for it). */
typedef struct lc_enc_dense {
    const uint64_t *A;
    int K;
    uint64_t q;       /* entries >= q are recorded in bad_j/bad_k (first one) */
    int bad_j, bad_k; /* -1: none */
} lc_enc_dense_t;
uint64_t lc_enc_dense_coef(const void *arg, int j, int k);

#endif
