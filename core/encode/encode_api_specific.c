/*
 * core/encode/encode_api_specific.c: the public inits of the encodes with a
 * structure (api layer): the DFT (dft.c), the Vandermonde matrix on a coset
 * of roots of unity (vandermonde.c) and Lagrange interpolation and
 * evaluation (lagrange.c).  Each checks its arguments, chooses between its
 * own schedule ("specific", when the structure allows it and the model
 * prefers it) and the universal algorithms on the matrix it defines, and
 * hands the builder to the compilers; references, costs and restrictions
 * are in the compiler files.
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/encode/encode_api.h"

lincoll_status_t lincoll_encode_dft_init(lincoll_comm_t *comm, const lincoll_field_t *field,
                                         int flags, size_t packet_bytes, const void *in, void *out,
                                         const lincoll_encode_opts_t *opts, lincoll_plan_t **plan_p)
{
    static const char *fn = "lincoll_encode_dft_init";
    int p;
    lincoll_status_t st =
        lc_enc_check_common(fn, comm, field, packet_bytes, in, 1, out, 1, opts, plan_p, &p);
    if (st != LINCOLL_OK) return st;
    LC_CHECK_ARG((flags & ~(LINCOLL_ENCODE_DFT_NATURAL | LINCOLL_ENCODE_DFT_INVERSE)) == 0,
                 "%s: flags=0x%x has unknown bits", fn, (unsigned)flags);
    const int K = comm->size, me = comm->rank, P = p + 1;
    LC_CHECK_ARG((field->q - 1) % (uint64_t)K == 0,
                 "%s: field of order %llu has no primitive %d-th root of unity (K=%d must "
                 "divide q-1)",
                 fn, (unsigned long long)field->q, K, K);
    int natural = (flags & LINCOLL_ENCODE_DFT_NATURAL) != 0;
    int L = lc_enc_ceil_log(K, P);
    long PL = 1;
    for (int i = 0; i < L; i++)
        PL *= P;
    int pow_ok = PL == K;
    LC_CHECK_ARG(natural || pow_ok,
                 "%s: digit-reversed order needs K=%d to be a power of p+1=%d (pass "
                 "LINCOLL_ENCODE_DFT_NATURAL or other ports)",
                 fn, K, P);
    lincoll_encode_algo_t algo;
    st = lc_enc_requested_algo(&comm->ctx->cfg, opts, &algo);
    if (st != LINCOLL_OK) return st;
    uint64_t w = lc_gf_pow(field, field->gen, (field->q - 1) / (uint64_t)K), scale = 1;
    if (flags & LINCOLL_ENCODE_DFT_INVERSE) {
        w = lc_gf_inv(field, w);
        scale = lc_gf_inv(field, lc_enc_int_elem(field, (uint64_t)K));
    }
    /* specific vs universal */
    int extra = natural && L >= 2;
    int specific = pow_ok;
    if (algo == LINCOLL_ENCODE_ALGO_SPECIFIC && !specific) {
        if (comm->ctx->cfg.algo_fallback == LC_FALLBACK_ERROR) {
            lc_error("%s: LINCOLL_ENCODE_ALGO=specific: K=%d is not a power of p+1=%d "
                     "(LINCOLL_ALGO_FALLBACK=error)",
                     fn, K, P);
            return LINCOLL_ERR_UNSUPPORTED;
        }
        lc_warn("%s: specific DFT needs K=%d to be a power of p+1=%d; choosing automatically", fn,
                K, P);
        algo = LINCOLL_ENCODE_ALGO_AUTO;
    }
    if (specific && algo == LINCOLL_ENCODE_ALGO_AUTO) {
        double tu;
        lc_enc_pick_universal(&comm->ctx->cfg, K, p, packet_bytes, algo, &tu);
        double ts = lc_enc_predict(&comm->ctx->cfg, (unsigned)(L + extra), (uint64_t)(L + extra),
                                   packet_bytes, (double)L * P * (double)packet_bytes);
        specific = ts <= tu;
    } else if (algo != LINCOLL_ENCODE_ALGO_SPECIFIC) {
        specific = 0;
    }
    lc_enc_call_t b;
    st = lc_enc_begin(comm, specific ? (natural ? "dft_natural" : "dft") : "universal", p, field,
                      packet_bytes, opts, &b);
    if (st != LINCOLL_OK) return st;
    int si = lc_plan_slot_user(b.b.plan, (void *)in, packet_bytes);
    int so = lc_plan_slot_user(b.b.plan, out, packet_bytes);
    if (si < 0 || so < 0) return lc_enc_end(&b, LINCOLL_ERR_NOMEM, plan_p);
    if (specific)
        return lc_enc_end(
            &b, lc_enc_dft_build(&b.b, K, me, P, L, w, scale, extra, lc_ref(si, 0), lc_ref(so, 0)),
            plan_p);
    lc_dft_mat_t d = {.scale = scale, .K = K, .f = field};
    d.pw = malloc(sizeof(uint64_t) * (size_t)K);
    d.ord = malloc(sizeof(int) * (size_t)K);
    if (d.pw == NULL || d.ord == NULL) {
        st = LINCOLL_ERR_NOMEM;
    } else {
        d.pw[0] = 1;
        for (int i = 1; i < K; i++)
            d.pw[i] = lc_gf_mul(field, d.pw[i - 1], w);
        for (int k = 0; k < K; k++)
            d.ord[k] = natural ? k : lc_enc_rev(k, L, P);
        st = lc_enc_universal(&b, algo, K, me, lc_dft_coef, &d, lc_ref(si, 0), lc_ref(so, 0));
    }
    free(d.pw);
    free(d.ord);
    return lc_enc_end(&b, st, plan_p);
}

lincoll_status_t lincoll_encode_vandermonde_init(lincoll_comm_t *comm, const lincoll_field_t *field,
                                                 const uint64_t *points, uint64_t *points_out,
                                                 size_t packet_bytes, const void *in, void *out,
                                                 const lincoll_encode_opts_t *opts,
                                                 lincoll_plan_t **plan_p)
{
    static const char *fn = "lincoll_encode_vandermonde_init";
    int p;
    lincoll_status_t st =
        lc_enc_check_common(fn, comm, field, packet_bytes, in, 1, out, 1, opts, plan_p, &p);
    if (st != LINCOLL_OK) return st;
    const int K = comm->size, me = comm->rank, P = p + 1;
    const uint64_t q = field->q;
    lincoll_encode_algo_t algo;
    st = lc_enc_requested_algo(&comm->ctx->cfg, opts, &algo);
    if (st != LINCOLL_OK) return st;
    if (points != NULL) {
        for (int k = 0; k < K; k++) {
            LC_CHECK_ARG(points[k] < q, "%s: points[%d]=%llu is not a reduced element (q=%llu)", fn,
                         k, (unsigned long long)points[k], (unsigned long long)q);
        }
        uint64_t dup = 0;
        int r = lc_enc_find_repeat(points, K, &dup);
        if (r == -2) return LINCOLL_ERR_NOMEM;
        LC_CHECK_ARG(r < 0, "%s: points are not distinct (points[%d]=%llu repeats)", fn, r,
                     (unsigned long long)dup);
    } else {
        LC_CHECK_ARG((uint64_t)K <= q - 1,
                     "%s: K=%d default points need K <= q-1 (q=%llu); pass points", fn, K,
                     (unsigned long long)q);
    }
    /* the coset structure (also defines the default points) */
    int M = 1, LM = 0;
    while ((K % (M * P)) == 0 && ((q - 1) % (uint64_t)(M * P)) == 0) {
        M *= P;
        LM++;
    }
    int Z = K / M;
    uint64_t *pts = malloc(sizeof(uint64_t) * (size_t)K),
             *beta = malloc(sizeof(uint64_t) * (size_t)Z);
    if (pts == NULL || beta == NULL) {
        free(pts);
        free(beta);
        return LINCOLL_ERR_NOMEM;
    }
    uint64_t w = lc_gf_pow(field, field->gen, (q - 1) / (uint64_t)M);
    for (int z = 0; z < Z; z++)
        beta[z] = lc_gf_pow(field, field->gen, (uint64_t)z);
    for (int k = 0; k < K; k++) {
        pts[k] = points != NULL
                     ? points[k]
                     : lc_gf_mul(field, beta[k / M],
                                 lc_gf_pow(field, w, (uint64_t)lc_enc_rev(k % M, LM, P)));
    }
    if (points_out != NULL) memcpy(points_out, pts, sizeof(uint64_t) * (size_t)K);
    int specific = points == NULL;
    if (algo == LINCOLL_ENCODE_ALGO_SPECIFIC && !specific) {
        lc_warn("%s: specific needs the default (coset) points; choosing automatically", fn);
        algo = LINCOLL_ENCODE_ALGO_AUTO;
    }
    unsigned c1z;
    uint64_t c2z;
    int mz = lc_enc_best_window(Z, p);
    lc_enc_ps_cost(Z, p, mz, &c1z, &c2z);
    if (specific && algo == LINCOLL_ENCODE_ALGO_AUTO) {
        double tu;
        lc_enc_pick_universal(&comm->ctx->cfg, K, p, packet_bytes, algo, &tu);
        int n1 = (Z + mz - 1) / mz;
        double gf = ((double)n1 * mz + n1 + (double)LM * P) * (double)packet_bytes;
        specific = lc_enc_predict(&comm->ctx->cfg, c1z + (unsigned)LM, c2z + (uint64_t)LM,
                                  packet_bytes, gf) <= tu;
    } else if (algo != LINCOLL_ENCODE_ALGO_SPECIFIC) {
        specific = 0;
    }
    lc_enc_call_t b;
    st = lc_enc_begin(comm, specific ? "vandermonde_coset" : "universal", p, field, packet_bytes,
                      opts, &b);
    if (st != LINCOLL_OK) {
        free(pts);
        free(beta);
        return st;
    }
    int si = lc_plan_slot_user(b.b.plan, (void *)in, packet_bytes);
    int so = lc_plan_slot_user(b.b.plan, out, packet_bytes);
    if (si < 0 || so < 0) st = LINCOLL_ERR_NOMEM;
    lc_vdm_t v = {.f = field, .pts = pts, .beta = beta, .M = M, .a = me % M};
    if (st == LINCOLL_OK && specific) {
        st = lc_enc_vdm_build(&b.b, &v, me, Z, mz, LM, P, w, lc_ref(si, 0), lc_ref(so, 0));
    } else if (st == LINCOLL_OK) {
        st = lc_enc_universal(&b, algo, K, me, lc_vdm_coef, &v, lc_ref(si, 0), lc_ref(so, 0));
    }
    free(pts);
    free(beta);
    return lc_enc_end(&b, st, plan_p);
}

lincoll_status_t lincoll_encode_lagrange_init(lincoll_comm_t *comm, const lincoll_field_t *field,
                                              const uint64_t *interp, const uint64_t *eval,
                                              uint64_t *interp_out, uint64_t *eval_out,
                                              size_t packet_bytes, const void *in, void *out,
                                              const lincoll_encode_opts_t *opts,
                                              lincoll_plan_t **plan_p)
{
    static const char *fn = "lincoll_encode_lagrange_init";
    int p;
    lincoll_status_t st =
        lc_enc_check_common(fn, comm, field, packet_bytes, in, 1, out, 1, opts, plan_p, &p);
    if (st != LINCOLL_OK) return st;
    const int K = comm->size, me = comm->rank, P = p + 1;
    const uint64_t q = field->q;
    lincoll_encode_algo_t algo;
    st = lc_enc_requested_algo(&comm->ctx->cfg, opts, &algo);
    if (st != LINCOLL_OK) return st;
    int L = lc_enc_ceil_log(K, P);
    long PL = 1;
    for (int i = 0; i < L; i++)
        PL *= P;
    int eligible = PL == K && (q - 1) % (uint64_t)K == 0 && (q - 1) / (uint64_t)K >= 2;
    LC_CHECK_ARG((interp != NULL && eval != NULL) || eligible,
                 "%s: default points need K=%d = (p+1)^L with K | q-1 and q > 2K (q=%llu, "
                 "p=%d); pass interp and eval",
                 fn, K, (unsigned long long)q, p);
    uint64_t *b = malloc(sizeof(uint64_t) * (size_t)K), *a = malloc(sizeof(uint64_t) * (size_t)K);
    uint64_t *Lm = malloc(sizeof(uint64_t) * (size_t)K * (size_t)K);
    if (a == NULL || b == NULL || Lm == NULL) {
        free(a);
        free(b);
        free(Lm);
        return LINCOLL_ERR_NOMEM;
    }
    uint64_t w = eligible ? lc_gf_pow(field, field->gen, (q - 1) / (uint64_t)K) : 0;
    for (int k = 0; k < K; k++) {
        uint64_t root = eligible ? lc_gf_pow(field, w, (uint64_t)lc_enc_rev(k, L, P)) : 0;
        b[k] = interp != NULL ? interp[k] : root;
        a[k] = eval != NULL ? eval[k] : lc_gf_mul(field, field->gen, root);
    }
    for (int k = 0; k < K && st == LINCOLL_OK; k++) {
        if (b[k] >= q || a[k] >= q) {
            lc_error("%s: %s[%d] is not a reduced element (q=%llu)", fn,
                     b[k] >= q ? "interp" : "eval", k, (unsigned long long)q);
            st = LINCOLL_ERR_INVALID;
        }
    }
    uint64_t dup = 0;
    int r = st == LINCOLL_OK ? lc_enc_find_repeat(b, K, &dup) : -1;
    if (r == -2) st = LINCOLL_ERR_NOMEM;
    if (r >= 0) {
        lc_error("%s: interpolation points are not distinct (interp[%d]=%llu repeats)", fn, r,
                 (unsigned long long)dup);
        st = LINCOLL_ERR_INVALID;
    }
    if (st == LINCOLL_OK) st = lincoll_gf_matrix_lagrange(field, K, b, K, a, Lm);
    if (st == LINCOLL_OK) {
        if (interp_out != NULL) memcpy(interp_out, b, sizeof(uint64_t) * (size_t)K);
        if (eval_out != NULL) memcpy(eval_out, a, sizeof(uint64_t) * (size_t)K);
    }
    int specific = st == LINCOLL_OK && interp == NULL && eval == NULL;
    if (st == LINCOLL_OK && algo == LINCOLL_ENCODE_ALGO_SPECIFIC && !specific) {
        lc_warn("%s: specific needs the default points; choosing automatically", fn);
        algo = LINCOLL_ENCODE_ALGO_AUTO;
    }
    if (specific && algo == LINCOLL_ENCODE_ALGO_AUTO) {
        double tu;
        lc_enc_pick_universal(&comm->ctx->cfg, K, p, packet_bytes, algo, &tu);
        specific = lc_enc_predict(&comm->ctx->cfg, (unsigned)(2 * L), (uint64_t)(2 * L),
                                  packet_bytes, 2.0 * L * P * (double)packet_bytes) <= tu;
    } else if (algo != LINCOLL_ENCODE_ALGO_SPECIFIC) {
        specific = 0;
    }
    lc_enc_call_t bb;
    if (st == LINCOLL_OK)
        st = lc_enc_begin(comm, specific ? "lagrange_dft" : "universal", p, field, packet_bytes,
                          opts, &bb);
    if (st != LINCOLL_OK) {
        free(a);
        free(b);
        free(Lm);
        return st;
    }
    int si = lc_plan_slot_user(bb.b.plan, (void *)in, packet_bytes);
    int so = lc_plan_slot_user(bb.b.plan, out, packet_bytes);
    if (si < 0 || so < 0) st = LINCOLL_ERR_NOMEM;
    if (st == LINCOLL_OK && specific) {
        st = lc_enc_lagrange_build(&bb.b, K, me, P, L, w, lc_ref(si, 0), lc_ref(so, 0));
    } else if (st == LINCOLL_OK) {
        lc_lag_t l = {.Lm = Lm, .K = K};
        st = lc_enc_universal(&bb, algo, K, me, lc_lag_coef, &l, lc_ref(si, 0), lc_ref(so, 0));
    }
    free(a);
    free(b);
    free(Lm);
    return lc_enc_end(&bb, st, plan_p);
}
