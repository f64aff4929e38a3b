/*
 * core/encode/encode_api_select.c: what every public encode init shares
 * (api layer): the argument checks, the algorithm asked for, the start and
 * the end of a compilation (a builder on the communicator's environment;
 * chunking, checksums, finalize and bind), and the universal selection,
 * whose zero-copy candidates are agreed with the peers at bind
 * (docs/architecture.md, "Bind").  The compilers it calls (registry.c)
 * see only the builder.
 *
 * Selection: the requested algorithm (options, then LINCOLL_ENCODE_ALGO),
 * otherwise the least predicted time of the registry's candidates
 * (encode_model.c); zero copy only for lincoll_encode_init on a node that
 * may map every peer, without checksums, and only when every rank offers
 * its windows (one exchange of bind records; else every rank takes the
 * tag algorithm alike).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/log.h"
#include "core/encode/encode_api.h"
#include "core/exec/exec.h"

lincoll_encode_algo_t lc_enc_pick_universal(const lc_config_t *cfg, int K, int p, size_t B,
                                            lincoll_encode_algo_t algo, double *pred_p)
{
    /* a price: the costs read K, p and B only */
    const lc_env_t env = {.P = K, .ports = p, .cfg = cfg};
    const lc_enc_args_t a = {.K = K, .p = p, .B = B};
    return lc_enc_pick(&env, &a, algo, pred_p);
}

lincoll_encode_algo_t lc_enc_pick(const lc_env_t *env, const lc_enc_args_t *args,
                                  lincoll_encode_algo_t algo, double *pred_p)
{
    lincoll_encode_algo_t best = LINCOLL_ENCODE_ALGO_BEST_WINDOW;
    double bt = -1;
    size_t n;
    const lc_enc_alg_t *const *reg = lc_enc_registry(&n);
    for (size_t i = 0; i < n; i++) {
        const lc_enc_alg_t *a = reg[i];
        if (algo != LINCOLL_ENCODE_ALGO_AUTO && (int)algo != lc_enc_alg_id(a)) continue;
        /* a zero-copy entry only where the peers may map (the caller's env) */
        if ((a->mapped && !env->mapped) || !LC_ALG_APPLIES(a, env, args)) continue;
        double t = a->cost(env, args);
        if (bt < 0 || t < bt) {
            bt = t;
            best = (lincoll_encode_algo_t)lc_enc_alg_id(a);
        }
    }
    if (pred_p) *pred_p = bt;
    return best;
}

lincoll_status_t lc_enc_check_common(const char *fn, lincoll_comm_t *comm,
                                     const lincoll_field_t *field, size_t packet_bytes,
                                     const void *in, int need_in, void *out, int need_out,
                                     const lincoll_encode_opts_t *opts, lincoll_plan_t **plan_p,
                                     int *ports)
{
    LC_CHECK_ARG(plan_p != NULL, "%s: plan_p must not be NULL", fn);
    *plan_p = NULL;
    LC_CHECK_ARG(comm != NULL, "%s: comm must not be NULL", fn);
    LC_CHECK_ARG(field != NULL, "%s: field must not be NULL", fn);
    LC_CHECK_ARG(packet_bytes > 0 && packet_bytes % field->elem_size == 0,
                 "%s: packet_bytes=%zu must be > 0 and a multiple of the element size %u", fn,
                 packet_bytes, field->elem_size);
    LC_CHECK_ARG(packet_bytes <= ((size_t)1 << 40), "%s: packet_bytes=%zu is too large", fn,
                 packet_bytes);
    LC_CHECK_ARG(!need_in || in != NULL, "%s: in must not be NULL", fn);
    LC_CHECK_ARG(!need_out || out != NULL, "%s: out must not be NULL", fn);
    LC_CHECK_ARG(!(need_in && need_out) || (const char *)in + packet_bytes <= (const char *)out ||
                     (const char *)out + packet_bytes <= (const char *)in,
                 "%s: in and out overlap", fn);
    LC_CHECK_ARG(opts == NULL || (opts->ports >= 0 && opts->ports <= 64),
                 "%s: opts->ports=%d outside [0, 64]", fn, opts ? opts->ports : 0);
    LC_CHECK_ARG(opts == NULL || opts->algo == LINCOLL_ENCODE_ALGO_AUTO ||
                     opts->algo == LINCOLL_ENCODE_ALGO_SPECIFIC || lc_enc_alg(opts->algo) != NULL,
                 "%s: opts->algo=%d is not a lincoll_encode_algo_t", fn,
                 opts ? (int)opts->algo : 0);
    /* memory types (docs/accelerators.md): the device GF kernels serve
     * GF(2^8) and GF(2^16); device memory cannot be checksummed */
    char why[96];
    const char *why_not = NULL;
    if (field->kind != LC_GF_KIND_GF8 && field->kind != LC_GF_KIND_GF16) {
        snprintf(why, sizeof(why), "an encode over GF(%llu) (device kernels: GF(2^8), GF(2^16))",
                 (unsigned long long)field->q);
        why_not = why;
    } else if (comm->ctx->cfg.encode_checksum) {
        why_not = "a checksummed encode (LINCOLL_ENCODE_CHECKSUM=crc32c)";
    }
    const lc_dev_arg_t args[2] = {{"in", need_in ? in : NULL, packet_bytes},
                                  {"out", need_out ? out : NULL, packet_bytes}};
    lincoll_status_t st = lc_dev_check_args(fn, args, 2, why_not);
    if (st != LINCOLL_OK) return st;
    int p = opts != NULL && opts->ports > 0 ? opts->ports : comm->ctx->ports;
    *ports = p > 0 ? p : 1;
    return LINCOLL_OK;
}

lincoll_status_t lc_enc_requested_algo(const lc_config_t *cfg, const lincoll_encode_opts_t *opts,
                                       lincoll_encode_algo_t *algo_p)
{
    *algo_p = LINCOLL_ENCODE_ALGO_AUTO;
    if (opts != NULL && opts->algo != LINCOLL_ENCODE_ALGO_AUTO) {
        *algo_p = opts->algo;
        return LINCOLL_OK;
    }
    lc_config_t c = *cfg; /* LINCOLL_ENCODE_ALGO is read at every init */
    if (lc_config_reread_id(LINCOLL_CONFIG_ENCODE_ALGO, &c) != LINCOLL_OK)
        return LINCOLL_ERR_INVALID;
    if (lc_enc_algo_named(c.algo_encode, algo_p)) return LINCOLL_OK;
    lc_error("%s=%s: expected auto, specific or an algorithm of lincoll_info -a",
             lc_config_name(LINCOLL_CONFIG_ENCODE_ALGO), c.algo_encode);
    return LINCOLL_ERR_INVALID;
}

lincoll_status_t lc_enc_begin(lincoll_comm_t *comm, const char *name, int ports,
                              const lincoll_field_t *f, size_t B, const lincoll_encode_opts_t *opts,
                              lc_enc_call_t *c)
{
    memset(c, 0, sizeof(*c));
    c->comm = comm;
    /* the operation tag: every plan bound until lc_enc_end takes it */
    lincoll_status_t st = lc_optag_enter(comm, opts != NULL ? opts->tag : 0, name, &c->tag_nested);
    if (st != LINCOLL_OK) return st;
    lc_env_t env = lc_exec_env(comm, 0);
    st = lc_enc_builder(&c->b, &env, name, ports, f, B,
                        opts != NULL && opts->chunk_bytes != 0 ? opts->chunk_bytes
                                                               : comm->ctx->cfg.encode_chunk);
    if (st != LINCOLL_OK) lc_optag_leave(comm, c->tag_nested, st, NULL);
    return st;
}

lincoll_status_t lc_enc_end(lc_enc_call_t *c, lincoll_status_t st, lincoll_plan_t **plan_p)
{
    lc_enc_b_t *b = &c->b;
    lc_bind_t *bind = c->bind;
    c->bind = NULL;
    if (st == LINCOLL_OK && !b->priv->zc && !b->priv->sliced) st = lc_enc_chunk_plan(b);
    /* LINCOLL_ENCODE_CHECKSUM=crc32c: crc32c on every packet (core/plan/pass_checksum.c) */
    if (st == LINCOLL_OK && c->comm->ctx->cfg.encode_checksum) st = lc_pass_checksum(b->plan);
    if (st == LINCOLL_OK) st = lc_plan_finalize(b->plan);
    lc_plan_t *ir = b->plan;
    b->plan = NULL;
    if (st != LINCOLL_OK) {
        lc_bind_drop(bind);
        lc_plan_destroy(ir);
        lc_optag_leave(c->comm, c->tag_nested, st, NULL);
        return st;
    }
    lincoll_plan_t *plan = NULL;
    st = bind != NULL ? lc_bind_finish(bind, ir, &plan) : lc_bind_local(c->comm, ir, &plan);
    lc_optag_leave(c->comm, c->tag_nested, st, plan);
    if (st == LINCOLL_OK) *plan_p = plan;
    return st;
}

/* The call's shape for the bind agreement of a zcopy candidate. */
static lc_bind_shape_t lc_enc_shape(const lc_enc_b_t *b, int K, lincoll_encode_algo_t algo)
{
    lc_bind_shape_t s = {{UINT64_C(0x656e637a63707931) ^ (uint64_t)K, /* "enczcpy1" */
                          (uint64_t)b->B, (uint64_t)b->p | (uint64_t)algo << 16}};
    return s;
}

/* A fresh IR with b->plan's slots (the init's user slots), so refs stay valid. */
static lincoll_status_t lc_enc_fresh(lc_enc_b_t *b, const lc_env_t *env, lc_plan_t **out)
{
    lc_plan_t *n;
    lincoll_status_t st = lc_plan_create(env, b->plan->algorithm, b->p, &n);
    if (st != LINCOLL_OK) return st;
    n->elem_size = b->plan->elem_size;
    for (unsigned i = 0; i < b->plan->nslots; i++) {
        const lc_slot_t *sl = &b->plan->slots[i];
        int r = sl->kind == LC_SLOT_USER ? lc_plan_slot_user(n, sl->ptr, sl->size)
                                         : lc_plan_slot_scratch(n, sl->size);
        if (r != (int)i) {
            lc_plan_destroy(n);
            return LINCOLL_ERR_NOMEM;
        }
        n->slots[i].zero = sl->zero;
    }
    *out = n;
    return LINCOLL_OK;
}

/* b->plan becomes n (the priv moves along). */
static void lc_enc_swap(lc_enc_b_t *b, lc_plan_t *n)
{
    n->priv = b->plan->priv;
    n->priv_free = b->plan->priv_free;
    b->plan->priv = NULL;
    b->plan->priv_free = NULL;
    lc_plan_destroy(b->plan);
    b->plan = n;
}

/* A zcopy candidate compiled for mapped peers into a fresh IR. */
static lincoll_status_t lc_enc_zc_compile(lc_enc_call_t *c, lincoll_encode_algo_t algo, int K,
                                          int me, lc_enc_coef_fn_t coef, const void *arg,
                                          lc_bufref_t in, lc_bufref_t out, lc_plan_t **z_p)
{
    lc_enc_b_t *b = &c->b;
    lc_env_t env = lc_exec_env(c->comm, 1);
    lc_plan_t *z, *keep = b->plan;
    lincoll_status_t st = lc_enc_fresh(b, &env, &z);
    if (st != LINCOLL_OK) return st;
    /* the compilers write into b->plan: point it at z meanwhile */
    const int sp = b->scratch_packet;
    b->plan = z;
    const lc_enc_args_t a = lc_enc_args(b, K, me, coef, arg, in, out);
    st = lc_enc_alg(algo)->compile(b, &a);
    b->plan = keep;
    if (st != LINCOLL_OK) {
        lc_plan_destroy(z);
        b->scratch_packet = sp;
        return st;
    }
    *z_p = z;
    return LINCOLL_OK;
}

/* Agree with the peers on a zcopy candidate's windows (one exchange): on
 * success b->plan is the zcopy IR (zcopy_split when the outputs map too,
 * zcopy when only the inputs do, unless split_only) and c->bind holds the
 * agreement; else b is
 * as it was and *used is 0, on every rank alike. */
static lincoll_status_t lc_enc_try_zcopy(lc_enc_call_t *c, int split_only, int K, int me,
                                         lc_enc_coef_fn_t coef, const void *arg, lc_bufref_t in,
                                         lc_bufref_t out, int *used)
{
    lc_enc_b_t *b = &c->b;
    const lincoll_encode_algo_t algo = LINCOLL_ENCODE_ALGO_ZCOPY_SPLIT;
    *used = 0;
    const int sp = b->scratch_packet;
    lc_plan_t *z = NULL;
    /* a rank whose compile fails (memory) still takes part in the
     * agreement, offering nothing, so that every rank falls back alike */
    if (lc_enc_zc_compile(c, algo, K, me, coef, arg, in, out, &z) != LINCOLL_OK) {
        z = NULL;
        b->scratch_packet = sp;
    }
    lc_plan_t none = {.env = b->plan->env};
    unsigned keys = 0;
    lc_bind_t *bind = NULL;
    lc_bind_shape_t shape = lc_enc_shape(b, K, LINCOLL_ENCODE_ALGO_ZCOPY);
    lincoll_status_t st = lc_bind_agree(c->comm, z != NULL ? z : &none, &shape, &bind, &keys);
    if (st != LINCOLL_OK) {
        lc_plan_destroy(z);
        b->scratch_packet = sp;
        return st;
    }
    if (z == NULL) {
        keys = 0; /* this rank has no zero-copy plan: the tag plan below */
    } else if ((keys & lc_bind_keys(z)) != lc_bind_keys(z)) {
        lc_plan_destroy(z);
        z = NULL;
        b->scratch_packet = sp;
        if (!split_only && (keys & (1u << LC_ENC_KEY_IN))) {
            /* the inputs map, the outputs do not: zcopy over the inputs, with
             * the windows just agreed */
            st = lc_enc_zc_compile(c, LINCOLL_ENCODE_ALGO_ZCOPY, K, me, coef, arg, in, out, &z);
            if (st != LINCOLL_OK) z = NULL;
        }
    }
    if (z == NULL) {
        /* no zero copy: bind a tag plan with this agreement later (it
         * declares no window, so every rank drops the windows alike) */
        c->bind = bind;
        return st;
    }
    lc_enc_swap(b, z);
    c->bind = bind;
    b->priv->zc = 1;
    *used = 1;
    return LINCOLL_OK;
}

lincoll_status_t lc_enc_universal(lc_enc_call_t *c, lincoll_encode_algo_t algo, int K, int me,
                                  lc_enc_coef_fn_t coef, const void *arg, lc_bufref_t in,
                                  lc_bufref_t out)
{
    lc_enc_b_t *b = &c->b;
    lincoll_status_t st = LINCOLL_OK;
    const lc_config_t *cfg = &c->comm->ctx->cfg;
    double pred;
    /* zero copy: lincoll_encode_init only, a node that may map every peer,
     * no checksum (no message to check) and an output to write */
    const int zc = c->zc_allowed && lc_exec_can_map(c->comm) && !cfg->encode_checksum &&
                   out.slot != (uint32_t)-1 && in.slot != (uint32_t)-1;
    lincoll_encode_algo_t want = algo;
    if ((algo == LINCOLL_ENCODE_ALGO_ZCOPY || algo == LINCOLL_ENCODE_ALGO_ZCOPY_SPLIT) && !zc)
        algo = LINCOLL_ENCODE_ALGO_AUTO;
    lc_env_t env = b->plan->env;
    env.mapped = zc;
    lc_enc_args_t a = lc_enc_args(b, K, me, coef, arg, in, out);
    algo = lc_enc_pick(&env, &a, algo, &pred);
    if (algo == LINCOLL_ENCODE_ALGO_ZCOPY || algo == LINCOLL_ENCODE_ALGO_ZCOPY_SPLIT) {
        int used;
        /* zcopy (forced or chosen) takes the split form when the outputs map
         * too; a forced zcopy_split alone does not take plain zcopy */
        st = lc_enc_try_zcopy(c, want == LINCOLL_ENCODE_ALGO_ZCOPY_SPLIT, K, me, coef, arg, in, out,
                              &used);
        if (st != LINCOLL_OK) return st;
        if (used) {
            lc_debug("encode K=%d packet %zu bytes: %s (peers' memory mapped)", K, b->B,
                     b->plan->algorithm);
            return LINCOLL_OK;
        }
        env.mapped = 0;
        algo = lc_enc_pick(&env, &a, LINCOLL_ENCODE_ALGO_AUTO, &pred);
    }
    if (want == LINCOLL_ENCODE_ALGO_ZCOPY || want == LINCOLL_ENCODE_ALGO_ZCOPY_SPLIT) {
        if (cfg->algo_fallback == LC_FALLBACK_ERROR) {
            lc_error("%s: algorithm %s needs every rank's packet in lincoll memory mapped by "
                     "every rank (LINCOLL_ALGO_FALLBACK=error)",
                     c->fn ? c->fn : "encode", lc_enc_algo_name(want));
            return LINCOLL_ERR_UNSUPPORTED;
        }
        static int warned;
        if (!warned) {
            warned = 1;
            lc_warn("%s: algorithm %s needs every rank's packet in lincoll memory mapped by "
                    "every rank; choosing automatically",
                    c->fn ? c->fn : "encode", lc_enc_algo_name(want));
        }
    }
    lc_plan_rename(b->plan, lc_enc_algo_name(algo));
    lc_debug("encode K=%d p=%d packet %zu bytes: %s (predicted %.2f us)", K, b->p, b->B,
             lc_enc_algo_name(algo), pred * 1e6);
    if (out.slot == (uint32_t)-1) { /* no output wanted: a scratch sink */
        int s = lc_enc_scratch(b, 1);
        if (s < 0) return LINCOLL_ERR_NOMEM;
        out = lc_ref(s, 0);
    }
    if (in.slot == (uint32_t)-1) {
        st = lc_enc_zero_packet(b, &in);
        if (st != LINCOLL_OK) return st;
    }
    a.in = in, a.out = out;
    return lc_enc_alg(algo)->compile(b, &a);
}
