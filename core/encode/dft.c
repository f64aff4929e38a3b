/*
 * core/encode/dft.c: DFT all-to-all encode (specific algorithm) and the
 * radix-P butterfly compiler that the Vandermonde and Lagrange algorithms
 * reuse.
 *
 * What: K = P^L ranks (P = p + 1), w of order K (K | q - 1); rank k ends with
 * f(w^rev(k)), f(z) = sum_j x_j z^j, rev = base-P digit reversal
 * (decimation in frequency), or with sum_j x_j w^(rev(j) k) (decimation in
 * time, the transpose, used for interpolation).
 * Reference: Wang & Raviv, arXiv 2205.05183 (DFT with C1 = C2 = log_P K,
 * optimal by their Remark 2); the schedule: docs/encode.md, "DFT and butterflies".
 *
 * Round t = 1..L (DIF; DIT runs t = L..1) acts on digit s = L - t: rank k
 * (digit k_s, low = k mod P^s) sends its single packet on port rho to the
 * rank whose digit s is (k_s + rho) mod P and receives from (k_s - rho) mod P,
 * then v_k <- sum_c coef(c) v_{k[s<-c]} with
 *   DIF: coef(c) = w_t^(low k_s) w_P^(c k_s),  DIT: coef(c) = w_t^(low c) w_P^(k_s c),
 * w_t = w^(P^(t-1)), w_P = w^(P^(L-1)) (primitive P-th root).
 * Cost: C1 = C2 = L;  Time = L.(alpha + n.beta) + L.P.n.gamma_gf.
 * Natural order f(w^k) (LINCOLL_ENCODE_DFT_NATURAL): one more round that
 * sends v_k to rank rev(k) when L >= 2 (C1 = C2 = L + 1; L rounds of unit
 * messages cannot give it for K = 4, p = 1: docs/encode.md, "DFT and
 * butterflies"), or a universal algorithm on the natural DFT matrix, whichever
 * the model prefers.
 * Restrictions: specific schedule needs K = (p+1)^L and K | q - 1; GF(2^w)
 * never has p = 1 (2 does not divide 2^w - 1): use a prime field such as
 * 65537 or 998244353.  Scratch: P + 1 packets.
 */
#include <stdlib.h>

#include "core/base/log.h"
#include "core/encode/encode_int.h"
#include "core/exec/exec.h"

int lc_enc_rev(int k, int L, int P)
{
    int r = 0;
    for (int i = 0; i < L; i++) {
        r = r * P + k % P;
        k /= P;
    }
    return r;
}

lincoll_status_t lc_enc_fft_build(lc_enc_b_t *b, const lc_enc_group_t *g, int P, int L,
                                  uint64_t omega, int dit, uint64_t scale, lc_bufref_t in,
                                  lc_bufref_t out, int r0, int *rounds_p)
{
    const lincoll_field_t *f = b->f;
    const int me = g->me;
    const size_t B = b->B;
    lincoll_status_t st = LINCOLL_OK;
    *rounds_p = L;
    if (lc_enc_round(b, r0 + (L > 0 ? L - 1 : 0)) < 0) return LINCOLL_ERR_NOMEM;
    if (L == 0) {
        return lc_enc_lincomb(b, r0, 0, 1, &in, 1, &out, &scale);
    }
    int rs = lc_enc_scratch(b, (size_t)(P - 1));
    int ts = L > 1 ? lc_enc_scratch(b, 2) : 0;
    if (rs < 0 || ts < 0) return LINCOLL_ERR_NOMEM;
    lc_bufref_t src[64];
    uint64_t co[64];
    if (P > 64) return LINCOLL_ERR_INTERNAL;
    long PL1 = 1;
    for (int i = 0; i < L - 1; i++)
        PL1 *= P;
    uint64_t wP = lc_gf_pow(f, omega, (uint64_t)PL1);
    lc_bufref_t cur = in;
    for (int i = 0; st == LINCOLL_OK && i < L; i++) {
        int t = dit ? L - i : i + 1, s = L - t, r = r0 + i;
        long Ps = 1, Pt1 = 1;
        for (int e = 0; e < s; e++)
            Ps *= P;
        for (int e = 0; e < t - 1; e++)
            Pt1 *= P;
        int ks = (int)((me / Ps) % P);
        uint64_t low = (uint64_t)(me % Ps);
        uint64_t wt = lc_gf_pow(f, omega, (uint64_t)Pt1);
        src[0] = cur;
        int cs[64];
        cs[0] = ks;
        for (int rho = 1; st == LINCOLL_OK && rho < P; rho++) {
            int cto = (ks + rho) % P, cfrom = (ks - rho + P) % P;
            int to = me + (int)((cto - ks) * Ps), from = me + (int)((cfrom - ks) * Ps);
            src[rho] = lc_ref(rs, (size_t)(rho - 1) * B);
            cs[rho] = cfrom;
            st = lc_plan_recv(b->plan, r, lc_enc_real(g, from), src[rho], B);
            if (st == LINCOLL_OK) st = lc_plan_send(b->plan, r, lc_enc_real(g, to), cur, B);
        }
        for (int c = 0; c < P; c++) {
            uint64_t a, e1, e2;
            if (!dit) {
                e1 = low * (uint64_t)ks;
                e2 = (uint64_t)cs[c] * (uint64_t)ks;
            } else {
                e1 = low * (uint64_t)cs[c];
                e2 = (uint64_t)ks * (uint64_t)cs[c];
            }
            a = lc_gf_mul(f, lc_gf_pow(f, wt, e1), lc_gf_pow(f, wP, e2));
            co[c] = i == L - 1 ? lc_gf_mul(f, a, scale) : a;
        }
        lc_bufref_t dst = i == L - 1 ? out : lc_ref(ts, (size_t)(i % 2) * B);
        if (st == LINCOLL_OK) st = lc_enc_lincomb(b, r, 1, P, src, 1, &dst, co);
        cur = dst;
    }
    return st;
}

/* ---- lincoll_encode_dft_init ---------------------------------------------------- */

typedef struct lc_dft_mat {
    uint64_t *pw; /* w^0 .. w^(K-1) */
    int *ord;     /* point index of rank k: k or rev(k) */
    uint64_t scale;
    int K;
    const lincoll_field_t *f;
} lc_dft_mat_t;

static uint64_t lc_dft_coef(const void *arg, int j, int k)
{
    const lc_dft_mat_t *d = arg;
    uint64_t e = ((uint64_t)j * (uint64_t)d->ord[k]) % (uint64_t)d->K;
    return lc_gf_mul(d->f, d->pw[e], d->scale);
}

/* the integer n as a field element */
uint64_t lc_enc_int_elem(const lincoll_field_t *f, uint64_t n)
{
    if (f->kind == LC_GF_KIND_GF8 || f->kind == LC_GF_KIND_GF16) return n & 1;
    return n % f->q;
}

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
    lc_enc_b_t b;
    st = lc_enc_begin(comm, specific ? (natural ? "dft_natural" : "dft") : "universal", p, field,
                      packet_bytes, opts, &b);
    if (st != LINCOLL_OK) return st;
    int si = lc_plan_slot_user(b.plan, (void *)in, packet_bytes);
    int so = lc_plan_slot_user(b.plan, out, packet_bytes);
    if (si < 0 || so < 0) return lc_enc_end(&b, LINCOLL_ERR_NOMEM, plan_p);
    if (specific) {
        lc_enc_group_t g = {.K = K, .me = me, .off = 0, .stride = 1};
        int rounds;
        lc_bufref_t dst = lc_ref(so, 0);
        int tmp = -1;
        if (extra) {
            tmp = lc_enc_scratch(&b, 1);
            if (tmp < 0) return lc_enc_end(&b, LINCOLL_ERR_NOMEM, plan_p);
            dst = lc_ref(tmp, 0);
        }
        st = lc_enc_fft_build(&b, &g, P, L, w, 0, scale, lc_ref(si, 0), dst, 0, &rounds);
        if (st == LINCOLL_OK && extra) {
            int partner = lc_enc_rev(me, L, P), r = lc_enc_round(&b, L);
            if (r < 0) {
                st = LINCOLL_ERR_NOMEM;
            } else if (partner == me) {
                st = lc_plan_copy(b.plan, r, 0, lc_ref(so, 0), dst, packet_bytes);
            } else {
                st = lc_plan_recv(b.plan, r, partner, lc_ref(so, 0), packet_bytes);
                if (st == LINCOLL_OK) st = lc_plan_send(b.plan, r, partner, dst, packet_bytes);
            }
        }
        return lc_enc_end(&b, st, plan_p);
    }
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
