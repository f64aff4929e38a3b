/*
 * core/encode/encode_api.h: the api side of an encode compilation (the
 * public inits of encode_api.c, encode_api_specific.c and repair_api.c).
 *
 * An init checks its arguments (lc_enc_check_common), starts a builder on
 * the communicator (lc_enc_begin), has the compilers fill it (they see the
 * builder c->b only: no communicator, no bind), and ends with lc_enc_end:
 * chunking, checksums, finalize and bind (agreeing with the peers on the
 * windows of a zero-copy candidate, lc_enc_universal).
 */
#ifndef LC_ENCODE_API_H
#define LC_ENCODE_API_H

#include "core/encode/encode_int.h"
#include "core/exec/exec.h"

struct lc_bind;

/* One public init's compilation: the builder and what only the api sees. */
typedef struct lc_enc_call {
    lc_enc_b_t b;
    lincoll_comm_t *comm;
    struct lc_bind *bind; /* zcopy: the agreed windows, bound at lc_enc_end */
    int zc_allowed;       /* lincoll_encode_init: zcopy is a candidate */
    const char *fn;       /* the public init (log lines) */
    int tag_nested;       /* lc_optag_enter's: lc_enc_end closes the tag scope */
} lc_enc_call_t;

/* Common argument checks of every init; fills *ports. */
lincoll_status_t lc_enc_check_common(const char *fn, lincoll_comm_t *comm,
                                     const lincoll_field_t *field, size_t packet_bytes,
                                     const void *in, int need_in, void *out, int need_out,
                                     const lincoll_encode_opts_t *opts, lincoll_plan_t **plan_p,
                                     int *ports);
/* Algorithm asked for: opts->algo, else LINCOLL_ENCODE_ALGO, else auto. */
lincoll_status_t lc_enc_requested_algo(const lc_config_t *cfg, const lincoll_encode_opts_t *opts,
                                       lincoll_encode_algo_t *algo_p);
/* A builder on comm's environment (chunk: opts->chunk_bytes, else LINCOLL_ENCODE_CHUNK). */
lincoll_status_t lc_enc_begin(lincoll_comm_t *comm, const char *name, int ports,
                              const lincoll_field_t *f, size_t B, const lincoll_encode_opts_t *opts,
                              lc_enc_call_t *c);
/* Chunk the packet when that pays (encode_chunk.c), add checksums
 * (LINCOLL_ENCODE_CHECKSUM), finalize and bind; or destroy on error.  The one
 * finalisation point of every encode init. */
lincoll_status_t lc_enc_end(lc_enc_call_t *c, lincoll_status_t st, lincoll_plan_t **plan_p);
/* Compile a universal encode (a registry algorithm; auto picks the cheapest,
 * zero copy agreed with the peers) of an explicit matrix on the group of all
 * ranks.  in or out with slot < 0: zero input / no output wanted. */
lincoll_status_t lc_enc_universal(lc_enc_call_t *c, lincoll_encode_algo_t algo, int K, int me,
                                  lc_enc_coef_fn_t coef, const void *arg, lc_bufref_t in,
                                  lc_bufref_t out);

/* Pick among the registry's tag (not zero-copy) universal algorithms for K
 * ranks, p ports and B-byte packets (algo AUTO: the cheapest by its closed
 * form); *pred_p: its predicted seconds. */
lincoll_encode_algo_t lc_enc_pick_universal(const lc_config_t *cfg, int K, int p, size_t B,
                                            lincoll_encode_algo_t algo, double *pred_p);
/* Pick among the registry's entries that apply to a on env (env->mapped:
 * the zero-copy ones may): algo itself, or with AUTO the cheapest by its
 * cost; best_window when none does. */
lincoll_encode_algo_t lc_enc_pick(const lc_env_t *env, const lc_enc_args_t *a,
                                  lincoll_encode_algo_t algo, double *pred_p);

#endif
