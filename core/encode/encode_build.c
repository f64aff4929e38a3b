/*
 * core/encode/encode_build.c: the building blocks every all-to-all encode
 * compiler uses: the builder (an IR with the plan-owned coefficient
 * tables), rounds, scratch packets, a zero packet, and the GF steps
 * (linear combinations within the kernel's row and column limits,
 * additions, multiply-adds).  Pure: an IR and its arguments in, steps out.
 */
#include <stdlib.h>
#include <string.h>

#include "core/encode/encode_int.h"

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

lincoll_status_t lc_enc_builder(lc_enc_b_t *b, const lc_env_t *env, const char *name, int ports,
                                const lincoll_field_t *f, size_t B, size_t chunk_req)
{
    memset(b, 0, sizeof(*b));
    b->f = f;
    b->B = B;
    b->p = ports;
    b->scratch_packet = -1;
    b->chunk_req = chunk_req;
    lincoll_status_t st = lc_plan_create(env, name, ports, &b->plan);
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
