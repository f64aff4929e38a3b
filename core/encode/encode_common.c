/*
 * core/encode/encode_common.c: builder helpers, closed-form costs and
 * algorithm selection shared by the all-to-all encode plan compilers.
 *
 * Closed forms (docs/encode.md, "Closed forms C1 and C2" and "Windows and
 * best_window"; P = p + 1):
 *   prepare-and-shoot with window m (1 <= m <= K):
 *     prepare: w = 1, P, P^2, ... until m; round sends min(w, m - w) packets
 *              (the largest port), w <- min(wP, m);
 *     shoot:   n' = ceil(K/m) leaves, T_s = ceil(log_P n') rounds, round t
 *              sends ceil((n' - P^(t-1)) / P^t) packets (port 1);
 *     C1 = ceil(log_P m) + ceil(log_P n') (= ceil(log_P K) for the windows
 *     we use), C2 = sum of the above.  With the paper's m = P^T_p this is
 *     the "pruned" C2 = (m-1)/p + sum_t ceil((n' - P^(t-1))/P^t).
 *   direct: C1 = C2 = ceil((K-1)/p).
 * Selection: the requested algorithm (options, then LINCOLL_ENCODE_ALGO),
 * otherwise the least C1*alpha + C2*B*beta + gf*gamma (model of the plan
 * stats, LINCOLL_MODEL_ALPHA / _BW / _COMPUTE_BW; zcopy: lc_enc_zc_predict),
 * ties to the first of direct, best_window, prepare_shoot, zcopy (a window
 * that one prepare round fills is the direct schedule: at K = 2 the two are
 * the same plan, and direct names it).  The choice depends only on
 * arguments that match on every rank and on the configuration.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/log.h"
#include "core/exec/exec.h"
#include "core/encode/encode_int.h"

static const char *const lc_enc_algo_names[LINCOLL_ENCODE_ALGO_LAST] = {
    "auto", "prepare_shoot", "best_window", "direct", "specific", "zcopy", "zcopy_split"};

const char *lincoll_encode_algo_name(lincoll_encode_algo_t algo)
{
    return (unsigned)algo < LINCOLL_ENCODE_ALGO_LAST ? lc_enc_algo_names[algo] : "unknown";
}

/* ---- plan-owned data ---------------------------------------------------------- */

void lc_enc_priv_free(void *arg)
{
    lc_enc_priv_t *pv = arg;
    if (pv == NULL) return;
    for (unsigned i = 0; i < pv->ncoeffs; i++) {
        lc_gf_coeffs_destroy(pv->coeffs[i]);
    }
    free(pv->coeffs);
    free(pv);
}

static lincoll_status_t lc_enc_keep(lc_enc_b_t *b, lincoll_gf_coeffs_t *c)
{
    lc_enc_priv_t *pv = b->priv;
    if (pv->ncoeffs == pv->cap) {
        unsigned nc = pv->cap ? 2 * pv->cap : 8;
        void *n = realloc(pv->coeffs, nc * sizeof(*pv->coeffs));
        if (n == NULL) {
            lc_gf_coeffs_destroy(c);
            return LINCOLL_ERR_NOMEM;
        }
        pv->coeffs = n;
        pv->cap = nc;
    }
    pv->coeffs[pv->ncoeffs++] = c;
    return LINCOLL_OK;
}

lincoll_status_t lc_enc_begin(lincoll_comm_t *comm, const char *name, int ports,
                              const lincoll_field_t *f, size_t B, const lincoll_encode_opts_t *opts,
                              lc_enc_b_t *b)
{
    memset(b, 0, sizeof(*b));
    b->f = f;
    b->B = B;
    b->p = ports;
    b->comm = comm;
    b->scratch_packet = -1;
    b->chunk_req =
        opts != NULL && opts->chunk_bytes != 0 ? opts->chunk_bytes : comm->ctx->cfg.encode_chunk;
    lc_env_t env = lc_exec_env(comm, 0);
    lincoll_status_t st = lc_plan_create(&env, name, ports, &b->plan);
    if (st != LINCOLL_OK) return st;
    b->plan->elem_size = B; /* C2 in packets */
    b->priv = calloc(1, sizeof(*b->priv));
    if (b->priv == NULL) {
        lc_plan_destroy(b->plan);
        return LINCOLL_ERR_NOMEM;
    }
    b->plan->priv = b->priv;
    b->plan->priv_free = lc_enc_priv_free;
    uint64_t one = 1;
    lincoll_gf_coeffs_t *c;
    st = lc_gf_coeffs_create(f, 1, 1, &one, &c);
    if (st == LINCOLL_OK) st = lc_enc_keep(b, c);
    if (st != LINCOLL_OK) {
        lc_plan_destroy(b->plan);
        return st;
    }
    b->priv->one = c;
    b->priv->nchunks = 1;
    b->priv->chunk = B;
    return LINCOLL_OK;
}

lincoll_status_t lc_enc_end(lc_enc_b_t *b, lincoll_status_t st, lincoll_plan_t **plan_p)
{
    lc_bind_t *bind = b->bind;
    b->bind = NULL;
    if (st == LINCOLL_OK && !b->priv->zc && !b->priv->sliced) st = lc_enc_chunk_plan(b);
    /* LINCOLL_ENCODE_CHECKSUM=crc32c: crc32c on every packet (core/plan/pass_checksum.c) */
    if (st == LINCOLL_OK && b->comm->ctx->cfg.encode_checksum) st = lc_pass_checksum(b->plan);
    if (st == LINCOLL_OK) st = lc_plan_finalize(b->plan);
    lc_plan_t *ir = b->plan;
    b->plan = NULL;
    if (st != LINCOLL_OK) {
        lc_bind_drop(bind);
        lc_plan_destroy(ir);
        return st;
    }
    return bind != NULL ? lc_bind_finish(bind, ir, plan_p) : lc_bind_local(b->comm, ir, plan_p);
}

int lc_enc_round(lc_enc_b_t *b, int idx)
{
    while ((int)b->plan->nrounds <= idx) {
        if (lc_plan_round(b->plan) < 0) return -1;
    }
    return idx;
}

int lc_enc_scratch(lc_enc_b_t *b, size_t npackets)
{
    return lc_plan_slot_scratch(b->plan, npackets * b->B);
}

lincoll_status_t lc_enc_zero_packet(lc_enc_b_t *b, lc_bufref_t *ref)
{
    if (b->scratch_packet < 0) {
        int s = lc_plan_slot_zero(b->plan, b->B);
        if (s < 0) return LINCOLL_ERR_NOMEM;
        b->scratch_packet = s;
    }
    *ref = lc_ref(b->scratch_packet, 0);
    return LINCOLL_OK;
}

lincoll_status_t lc_enc_lincomb(lc_enc_b_t *b, int round, int post, int nsrc,
                                const lc_bufref_t *srcs, int ndst, const lc_bufref_t *dsts,
                                const uint64_t *M)
{
    const int RMAX = LINCOLL_GF_MAX_R, KMAX = LINCOLL_GF_MAX_K;
    lincoll_status_t st = LINCOLL_OK;
    int kc = nsrc < KMAX ? nsrc : KMAX;
    uint64_t *sub = malloc(sizeof(uint64_t) * (size_t)(ndst < RMAX ? ndst : RMAX) * (size_t)kc);
    if (sub == NULL) return LINCOLL_ERR_NOMEM;
    for (int r0 = 0; st == LINCOLL_OK && r0 < ndst; r0 += RMAX) {
        int rn = ndst - r0 < RMAX ? ndst - r0 : RMAX;
        for (int c0 = 0; st == LINCOLL_OK && c0 < nsrc; c0 += KMAX) {
            int cn = nsrc - c0 < KMAX ? nsrc - c0 : KMAX;
            for (int r = 0; r < rn; r++) {
                memcpy(sub + (size_t)r * (size_t)cn, M + (size_t)(r0 + r) * (size_t)nsrc + c0,
                       sizeof(uint64_t) * (size_t)cn);
            }
            lincoll_gf_coeffs_t *c;
            st = lc_gf_coeffs_create(b->f, rn, cn, sub, &c);
            if (st == LINCOLL_OK) st = lc_enc_keep(b, c);
            if (st != LINCOLL_OK) break;
            if (c0 == 0) {
                st = lc_plan_gf_step(b->plan, round, post, LC_STEP_GF_LINCOMB, c, 0, cn, srcs, rn,
                                     dsts + r0, b->B);
            } else {
                /* beyond the kernel's column limit: fold the rest in one source at a time */
                for (int i = 0; st == LINCOLL_OK && i < cn; i++) {
                    st = lc_plan_gf_step(b->plan, round, post, LC_STEP_GF_MAD, c, i, 1,
                                         &srcs[c0 + i], rn, dsts + r0, b->B);
                }
            }
        }
    }
    free(sub);
    return st;
}

lincoll_status_t lc_enc_add(lc_enc_b_t *b, int round, int post, lc_bufref_t dst, lc_bufref_t src)
{
    return lc_plan_gf_step(b->plan, round, post, LC_STEP_GF_MAD, b->priv->one, 0, 1, &src, 1, &dst,
                           b->B);
}

lincoll_status_t lc_enc_mad(lc_enc_b_t *b, int round, int when, lc_bufref_t src, int ndst,
                            const lc_bufref_t *dsts, const uint64_t *c)
{
    lincoll_status_t st = LINCOLL_OK;
    for (int j0 = 0; st == LINCOLL_OK && j0 < ndst; j0 += LINCOLL_GF_MAX_R) {
        int n = ndst - j0 < LINCOLL_GF_MAX_R ? ndst - j0 : LINCOLL_GF_MAX_R;
        lincoll_gf_coeffs_t *t;
        st = lc_gf_coeffs_create(b->f, n, 1, c + j0, &t);
        if (st == LINCOLL_OK) st = lc_enc_keep(b, t);
        if (st == LINCOLL_OK)
            st = lc_plan_gf_step(b->plan, round, when, LC_STEP_GF_MAD, t, 0, 1, &src, n, dsts + j0,
                                 b->B);
    }
    return st;
}

uint64_t lc_enc_dense_coef(const void *arg, int j, int k)
{
    lc_enc_dense_t *d = (lc_enc_dense_t *)arg;
    uint64_t a = d->A[(size_t)j * (size_t)d->K + (size_t)k];
    if (a >= d->q) {
        if (d->bad_j < 0) {
            d->bad_j = j;
            d->bad_k = k;
        }
        return 0;
    }
    return a;
}

/* ---- closed forms --------------------------------------------------------------- */

int lc_enc_ceil_log(int K, int P)
{
    int L = 0;
    long v = 1;
    while (v < K) {
        v *= P;
        L++;
    }
    return L;
}

int lc_enc_paper_window(int K, int p)
{
    int P = p + 1, L = 0;
    long v = P;
    while (v < K) { /* largest L with P^L < K */
        v *= P;
        L++;
    }
    int Tp = (L % 2 == 0) ? L / 2 + 1 : (L + 1) / 2;
    long m = 1;
    for (int i = 0; i < Tp && m < K; i++)
        m *= P;
    return m < K ? (int)m : K;
}

void lc_enc_ps_cost(int K, int p, int m, unsigned *c1, uint64_t *c2)
{
    int P = p + 1;
    unsigned r = 0;
    uint64_t c = 0;
    long w = 1;
    while (w < m) {
        long cnt = m - w < w ? m - w : w;
        c += (uint64_t)cnt;
        r++;
        w = w * P < m ? w * P : m;
    }
    int n1 = (K + m - 1) / m;
    int Ts = lc_enc_ceil_log(n1, P);
    long u = 1;
    for (int t = 1; t <= Ts; t++) {
        long up = u * P;
        c += (uint64_t)((n1 - u + up - 1) / up);
        r++;
        u = up;
    }
    if (c1) *c1 = r;
    if (c2) *c2 = c;
}

int lc_enc_best_window(int K, int p)
{
    int P = p + 1, L1 = lc_enc_ceil_log(K, P), best = 1;
    uint64_t bc = UINT64_MAX;
    for (int m = 1; m <= K; m++) {
        int n1 = (K + m - 1) / m;
        if (lc_enc_ceil_log(m, P) + lc_enc_ceil_log(n1, P) != L1) continue;
        uint64_t c;
        lc_enc_ps_cost(K, p, m, NULL, &c);
        if (c < bc) {
            bc = c;
            best = m;
        }
    }
    return best;
}

void lc_enc_direct_cost(int K, int p, unsigned *c1, uint64_t *c2)
{
    unsigned r = (unsigned)((K - 1 + p - 1) / p);
    if (c1) *c1 = r;
    if (c2) *c2 = r;
}

lincoll_status_t lincoll_encode_cost(int K, int ports, lincoll_encode_algo_t algo, unsigned *c1_p,
                                     uint64_t *c2_p, int *window_p)
{
    LC_CHECK_ARG(K >= 1, "lincoll_encode_cost: K=%d must be >= 1", K);
    LC_CHECK_ARG(ports >= 1, "lincoll_encode_cost: ports=%d must be >= 1", ports);
    int m = 0;
    switch (algo) {
    case LINCOLL_ENCODE_ALGO_PREPARE_SHOOT:
    case LINCOLL_ENCODE_ALGO_BEST_WINDOW:
        m = algo == LINCOLL_ENCODE_ALGO_BEST_WINDOW ? lc_enc_best_window(K, ports)
                                                    : lc_enc_paper_window(K, ports);
        lc_enc_ps_cost(K, ports, m, c1_p, c2_p);
        break;
    case LINCOLL_ENCODE_ALGO_DIRECT:
        lc_enc_direct_cost(K, ports, c1_p, c2_p);
        break;
    case LINCOLL_ENCODE_ALGO_ZCOPY: /* two flag rounds; K - 1 packets read from peers */
        if (c1_p) *c1_p = K > 1 ? 2 : 0;
        if (c2_p) *c2_p = (uint64_t)(K - 1);
        break;
    case LINCOLL_ENCODE_ALGO_ZCOPY_SPLIT: /* two flag rounds; 2 (K-1)/K packets moved */
        if (c1_p) *c1_p = K > 1 ? 2 : 0;
        if (c2_p) *c2_p = K > 1 ? 1 : 0;
        break;
    default:
        lc_error("lincoll_encode_cost: algo=%d is not prepare_shoot, best_window, direct, zcopy "
                 "or zcopy_split",
                 (int)algo);
        return LINCOLL_ERR_INVALID;
    }
    if (window_p) *window_p = m;
    return LINCOLL_OK;
}

/* ---- selection ------------------------------------------------------------------ */

lincoll_status_t lc_enc_requested_algo(const lc_config_t *cfg, const lincoll_encode_opts_t *opts,
                                       lincoll_encode_algo_t *algo_p)
{
    *algo_p = LINCOLL_ENCODE_ALGO_AUTO;
    if (opts != NULL && opts->algo != LINCOLL_ENCODE_ALGO_AUTO) {
        *algo_p = opts->algo;
        return LINCOLL_OK;
    }
    lc_config_t c = *cfg; /* LINCOLL_ENCODE_ALGO is read at every init */
    if (lc_config_reread("LINCOLL_ENCODE_ALGO", &c) != LINCOLL_OK) return LINCOLL_ERR_INVALID;
    for (int i = 0; i < LINCOLL_ENCODE_ALGO_LAST; i++) {
        if (strcasecmp(c.algo_encode, lc_enc_algo_names[i]) == 0) {
            *algo_p = (lincoll_encode_algo_t)i;
            return LINCOLL_OK;
        }
    }
    lc_error("LINCOLL_ENCODE_ALGO=%s: expected one of "
             "auto|prepare_shoot|best_window|direct|specific|zcopy|zcopy_split",
             c.algo_encode);
    return LINCOLL_ERR_INVALID;
}

double lc_enc_predict(const lc_config_t *cfg, unsigned c1, uint64_t c2, size_t B, double gf_bytes)
{
    return (double)c1 * cfg->model_alpha + (double)c2 * (double)B / cfg->model_bw +
           gf_bytes / cfg->model_compute_bw;
}

/* Local work of one rank in bytes (GF coefficient x bytes, as lc_plan_gf_step
 * counts it, plus copies): prepare-and-shoot copies its own packet into the
 * window when the window needs more than one prepare round (m > p + 1). */
static double lc_enc_gf_work(int K, int p, int m, lincoll_encode_algo_t a, size_t B)
{
    if (a == LINCOLL_ENCODE_ALGO_DIRECT) return (double)K * (double)B;
    int n1 = (K + m - 1) / m;
    double copy = m > p + 1 ? 1.0 : 0.0;
    return ((double)n1 * (double)m + (double)(n1 - 1) + copy) * (double)B;
}

/* ---- the registry of the universal algorithms ------------------------------- */

static double lc_enc_cost_of(lincoll_encode_algo_t a, const lc_config_t *cfg, int K, int p,
                             size_t B)
{
    unsigned c1;
    uint64_t c2;
    int m;
    lincoll_encode_cost(K, p, a, &c1, &c2, &m);
    return lc_enc_predict(cfg, c1, c2, B, lc_enc_gf_work(K, p, m, a, B));
}
static double lc_enc_direct_pred(const lc_config_t *cfg, int K, int p, size_t B)
{
    return lc_enc_cost_of(LINCOLL_ENCODE_ALGO_DIRECT, cfg, K, p, B);
}
static double lc_enc_best_pred(const lc_config_t *cfg, int K, int p, size_t B)
{
    return lc_enc_cost_of(LINCOLL_ENCODE_ALGO_BEST_WINDOW, cfg, K, p, B);
}
static double lc_enc_ps_pred(const lc_config_t *cfg, int K, int p, size_t B)
{
    return lc_enc_cost_of(LINCOLL_ENCODE_ALGO_PREPARE_SHOOT, cfg, K, p, B);
}
static double lc_enc_zc_pred(const lc_config_t *cfg, int K, int p, size_t B)
{
    (void)p;
    return lc_enc_zc_predict(cfg, K, B);
}
static lincoll_status_t lc_enc_direct_c(lc_enc_b_t *b, int K, int me, lc_enc_coef_fn_t coef,
                                        const void *arg, lc_bufref_t in, lc_bufref_t out)
{
    lc_enc_group_t g = {.K = K, .me = me, .off = 0, .stride = 1};
    int rounds;
    return lc_enc_direct_build(b, &g, coef, arg, in, out, 0, &rounds);
}
static lincoll_status_t lc_enc_ps_c(lc_enc_b_t *b, int K, int me, lc_enc_coef_fn_t coef,
                                    const void *arg, lc_bufref_t in, lc_bufref_t out, int best)
{
    lc_enc_group_t g = {.K = K, .me = me, .off = 0, .stride = 1};
    int rounds, m = best ? lc_enc_best_window(K, b->p) : lc_enc_paper_window(K, b->p);
    return lc_enc_ps_build(b, &g, m, coef, arg, in, out, 0, &rounds);
}
static lincoll_status_t lc_enc_best_c(lc_enc_b_t *b, int K, int me, lc_enc_coef_fn_t coef,
                                      const void *arg, lc_bufref_t in, lc_bufref_t out)
{
    return lc_enc_ps_c(b, K, me, coef, arg, in, out, 1);
}
static lincoll_status_t lc_enc_paper_c(lc_enc_b_t *b, int K, int me, lc_enc_coef_fn_t coef,
                                       const void *arg, lc_bufref_t in, lc_bufref_t out)
{
    return lc_enc_ps_c(b, K, me, coef, arg, in, out, 0);
}

/* Candidates in preference order: ties go to the first (a window that one
 * prepare round fills is the direct schedule: at K = 2 the two are the same
 * plan, and direct names it). */
static const lc_enc_alg_t lc_enc_algs[] = {
    {LINCOLL_ENCODE_ALGO_DIRECT, "direct", 0, lc_enc_direct_pred, lc_enc_direct_c},
    {LINCOLL_ENCODE_ALGO_BEST_WINDOW, "best_window", 0, lc_enc_best_pred, lc_enc_best_c},
    {LINCOLL_ENCODE_ALGO_PREPARE_SHOOT, "prepare_shoot", 0, lc_enc_ps_pred, lc_enc_paper_c},
    {LINCOLL_ENCODE_ALGO_ZCOPY_SPLIT, "zcopy_split", 1, lc_enc_zc_pred, lc_enc_zcopy_split_build},
    {LINCOLL_ENCODE_ALGO_ZCOPY, "zcopy", 1, lc_enc_zc_pred, lc_enc_zcopy_build},
};
#define LC_ENC_NALGS (sizeof(lc_enc_algs) / sizeof(lc_enc_algs[0]))

const lc_enc_alg_t *lc_enc_registry(size_t *n_p)
{
    *n_p = LC_ENC_NALGS;
    return lc_enc_algs;
}

const lc_enc_alg_t *lc_enc_alg(lincoll_encode_algo_t algo)
{
    for (size_t i = 0; i < LC_ENC_NALGS; i++)
        if (lc_enc_algs[i].algo == algo) return &lc_enc_algs[i];
    return NULL;
}

lincoll_encode_algo_t lc_enc_pick_universal(const lc_config_t *cfg, int K, int p, size_t B,
                                            lincoll_encode_algo_t algo, double *pred_p)
{
    return lc_enc_pick(cfg, K, p, B, algo, 0, pred_p);
}

lincoll_encode_algo_t lc_enc_pick(const lc_config_t *cfg, int K, int p, size_t B,
                                  lincoll_encode_algo_t algo, int zc, double *pred_p)
{
    lincoll_encode_algo_t best = LINCOLL_ENCODE_ALGO_BEST_WINDOW;
    double bt = -1;
    for (size_t i = 0; i < LC_ENC_NALGS; i++) {
        const lc_enc_alg_t *a = &lc_enc_algs[i];
        if (algo != LINCOLL_ENCODE_ALGO_AUTO && algo != a->algo) continue;
        if (a->mapped && (!zc || K < 2)) continue;
        double t = a->cost(cfg, K, p, B);
        if (bt < 0 || t < bt) {
            bt = t;
            best = a->algo;
        }
    }
    if (pred_p) *pred_p = bt;
    return best;
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
static lincoll_status_t lc_enc_zc_compile(lc_enc_b_t *b, lincoll_encode_algo_t algo, int K, int me,
                                          lc_enc_coef_fn_t coef, const void *arg, lc_bufref_t in,
                                          lc_bufref_t out, lc_plan_t **z_p)
{
    lc_env_t env = lc_exec_env(b->comm, 1);
    lc_plan_t *z, *keep = b->plan;
    lincoll_status_t st = lc_enc_fresh(b, &env, &z);
    if (st != LINCOLL_OK) return st;
    /* the compilers write into b->plan: point it at z meanwhile */
    const int sp = b->scratch_packet;
    b->plan = z;
    st = lc_enc_alg(algo)->compile(b, K, me, coef, arg, in, out);
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
 * zcopy when only the inputs do, unless split_only) and b->bind holds the
 * agreement; else b is
 * as it was and *used is 0, on every rank alike. */
static lincoll_status_t lc_enc_try_zcopy(lc_enc_b_t *b, int split_only, int K, int me,
                                         lc_enc_coef_fn_t coef, const void *arg, lc_bufref_t in,
                                         lc_bufref_t out, int *used)
{
    const lincoll_encode_algo_t algo = LINCOLL_ENCODE_ALGO_ZCOPY_SPLIT;
    *used = 0;
    const int sp = b->scratch_packet;
    lc_plan_t *z = NULL;
    /* a rank whose compile fails (memory) still takes part in the
     * agreement, offering nothing, so that every rank falls back alike */
    if (lc_enc_zc_compile(b, algo, K, me, coef, arg, in, out, &z) != LINCOLL_OK) {
        z = NULL;
        b->scratch_packet = sp;
    }
    lc_plan_t none = {.env = b->plan->env};
    unsigned keys = 0;
    lc_bind_t *bind = NULL;
    lc_bind_shape_t shape = lc_enc_shape(b, K, LINCOLL_ENCODE_ALGO_ZCOPY);
    lincoll_status_t st = lc_bind_agree(b->comm, z != NULL ? z : &none, &shape, &bind, &keys);
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
            st = lc_enc_zc_compile(b, LINCOLL_ENCODE_ALGO_ZCOPY, K, me, coef, arg, in, out, &z);
            if (st != LINCOLL_OK) z = NULL;
        }
    }
    if (z == NULL) {
        /* no zero copy: bind a tag plan with this agreement later (it
         * declares no window, so every rank drops the windows alike) */
        b->bind = bind;
        return st;
    }
    lc_enc_swap(b, z);
    b->bind = bind;
    b->priv->zc = 1;
    *used = 1;
    return LINCOLL_OK;
}

lincoll_status_t lc_enc_universal(lc_enc_b_t *b, lincoll_encode_algo_t algo, int K, int me,
                                  lc_enc_coef_fn_t coef, const void *arg, lc_bufref_t in,
                                  lc_bufref_t out)
{
    lincoll_status_t st = LINCOLL_OK;
    const lc_config_t *cfg = &b->comm->ctx->cfg;
    double pred;
    /* zero copy: lincoll_encode_init only, a node that may map every peer,
     * no checksum (no message to check) and an output to write */
    const int zc = b->zc_allowed && lc_exec_can_map(b->comm) && !cfg->encode_checksum &&
                   out.slot != (uint32_t)-1 && in.slot != (uint32_t)-1;
    lincoll_encode_algo_t want = algo;
    if ((algo == LINCOLL_ENCODE_ALGO_ZCOPY || algo == LINCOLL_ENCODE_ALGO_ZCOPY_SPLIT) && !zc)
        algo = LINCOLL_ENCODE_ALGO_AUTO;
    algo = lc_enc_pick(cfg, K, b->p, b->B, algo, zc, &pred);
    if (algo == LINCOLL_ENCODE_ALGO_ZCOPY || algo == LINCOLL_ENCODE_ALGO_ZCOPY_SPLIT) {
        int used;
        /* zcopy (forced or chosen) takes the split form when the outputs map
         * too; a forced zcopy_split alone does not take plain zcopy */
        st = lc_enc_try_zcopy(b, want == LINCOLL_ENCODE_ALGO_ZCOPY_SPLIT, K, me, coef, arg, in, out,
                              &used);
        if (st != LINCOLL_OK) return st;
        if (used) {
            lc_debug("encode K=%d packet %zu bytes: %s (peers' memory mapped)", K, b->B,
                     b->plan->algorithm);
            return LINCOLL_OK;
        }
        algo = lc_enc_pick(cfg, K, b->p, b->B, LINCOLL_ENCODE_ALGO_AUTO, 0, &pred);
    }
    if (want == LINCOLL_ENCODE_ALGO_ZCOPY || want == LINCOLL_ENCODE_ALGO_ZCOPY_SPLIT) {
        if (cfg->algo_fallback == LC_FALLBACK_ERROR) {
            lc_error("%s: algorithm %s needs every rank's packet in lincoll memory mapped by "
                     "every rank (LINCOLL_ALGO_FALLBACK=error)",
                     b->fn ? b->fn : "encode", lincoll_encode_algo_name(want));
            return LINCOLL_ERR_UNSUPPORTED;
        }
        static int warned;
        if (!warned) {
            warned = 1;
            lc_warn("%s: algorithm %s needs every rank's packet in lincoll memory mapped by "
                    "every rank; choosing automatically",
                    b->fn ? b->fn : "encode", lincoll_encode_algo_name(want));
        }
    }
    lc_plan_rename(b->plan, lincoll_encode_algo_name(algo));
    lc_debug("encode K=%d p=%d packet %zu bytes: %s (predicted %.2f us)", K, b->p, b->B,
             lincoll_encode_algo_name(algo), pred * 1e6);
    if (out.slot == (uint32_t)-1) { /* no output wanted: a scratch sink */
        int s = lc_enc_scratch(b, 1);
        if (s < 0) return LINCOLL_ERR_NOMEM;
        out = lc_ref(s, 0);
    }
    if (in.slot == (uint32_t)-1) {
        st = lc_enc_zero_packet(b, &in);
        if (st != LINCOLL_OK) return st;
    }
    return lc_enc_alg(algo)->compile(b, K, me, coef, arg, in, out);
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
    LC_CHECK_ARG(opts == NULL || (unsigned)opts->algo < LINCOLL_ENCODE_ALGO_LAST,
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
