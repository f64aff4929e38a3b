/*
 * core/encode/zcopy_split.c: all-to-all encode by loads from the peers' mapped
 * packets and stores into the peers' mapped outputs ("zcopy_split").
 *
 * What: when every rank's output is lincoll memory mapped by all as
 * well (a second window, over the outputs): the packet is cut in K segments
 * (64-byte units when the size allows, else elements; segment k of rank k's
 * choosing is the same on every rank), and rank k computes segment k of
 * *every* output in one GF pass: K sources (segment k of every input) into K
 * destinations (segment k of every output, stored into the peers' memory).
 * Flags go to and come from every peer (everyone reads every input and
 * writes every output).  Per rank the pass reads n bytes and writes n bytes
 * instead of reading K n and writing n, and the kernel's K-output shape
 * loads each source once for K products (lincoll_perf -t gf, GF(2^8), one
 * core: 2+1 over 1 MiB 70 GB/s of input = 30 us, 2+2 over 512 KiB 53 GB/s =
 * 20 us; 16 MiB vs 8 MiB: 1.18 ms vs 0.67 ms; over UCX, K = 2, both plans
 * alternated in one run, medians of 7, loaded VM: 1 MiB zcopy 33-40 us,
 * zcopy_split 21-24 us; 4 MiB 600-660 vs 306-330 us; 16 MiB 5.4-5.7 vs
 * 4.6-4.8 ms).  Same GF work, K n
 * coefficient-bytes per rank.  C2 = 2 (K - 1) segments (read and written
 * between ranks) = one packet at K = 2.
 * Reference: zcopy.c, with the owner-computes split of the direct
 * shared-memory reduce-scatter + allgather (UCC tl/shm).
 * Cost: 2 alpha_mapped + K n gamma (the one GF pass), 2 (K-1)/K n moved.
 * Restrictions: as zcopy, and every output in lincoll memory mapped by every
 * rank too (window key LC_ENC_KEY_OUT; when only the inputs map, the init
 * takes zcopy).
 */
#include <stdlib.h>

#include "core/base/log.h"
#include "core/encode/encode_int.h"

void lc_enc_zc_segment(size_t B, size_t es, int K, int k, size_t *off, size_t *len)
{
    size_t u = (B % 64 == 0 && 64 % es == 0) ? 64 : es;
    size_t n = B / u, q = n / (size_t)K, m = n % (size_t)K, kk = (size_t)k;
    *off = (kk * q + (kk < m ? kk : m)) * u;
    *len = (q + (kk < m)) * u;
}

lincoll_status_t lc_enc_zcopy_split_build(lc_enc_b_t *b, const lc_enc_args_t *a)
{
    lc_plan_t *p = b->plan;
    const size_t B = b->B;
    const int K = a->K, me = a->me;
    const lc_enc_coef_fn_t coef = a->coef;
    const void *arg = a->arg;
    const lc_bufref_t in = a->in, out = a->out;
    if (!lc_enc_zc_applies(&p->env, a)) return LINCOLL_ERR_UNSUPPORTED;
    lc_plan_rename(p, "zcopy_split");
    p->ports = K - 1;
    size_t off, len;
    lc_enc_zc_segment(B, b->f->elem_size, K, me, &off, &len);
    int win = lc_plan_win_user(p, LC_ENC_KEY_IN, (int)in.slot);
    int wout = lc_plan_win_user(p, LC_ENC_KEY_OUT, (int)out.slot);
    lc_bufref_t *src = malloc(sizeof(*src) * (size_t)K), *dst = malloc(sizeof(*dst) * (size_t)K);
    uint64_t *M = malloc(sizeof(uint64_t) * (size_t)K * (size_t)K);
    lincoll_status_t st = LINCOLL_OK;
    if (win < 0 || wout < 0 || src == NULL || dst == NULL || M == NULL || lc_enc_round(b, 1) < 0)
        st = LINCOLL_ERR_NOMEM;
    /* every rank reads segment me of every input and writes it in every
     * output: flags with every peer */
    for (int j = 0; st == LINCOLL_OK && j < K; j++) {
        if (j != me) {
            st = lc_plan_signal(p, 0, j, win);
            if (st == LINCOLL_OK) st = lc_plan_wait(p, 0, j, win, 1, lc_ref(0, 0), 0);
            if (st == LINCOLL_OK) st = lc_plan_signal(p, 1, j, win);
            if (st == LINCOLL_OK) st = lc_plan_wait(p, 1, j, win, 1, lc_ref(0, 0), 0);
        }
        if (st != LINCOLL_OK || len == 0) continue;
        if (j == me) {
            src[j] = lc_ref((int)in.slot, in.off + off);
            dst[j] = lc_ref((int)out.slot, out.off + off);
        } else {
            int sx = lc_plan_slot_peer(p, win, j, in.off, B);
            int sy = lc_plan_slot_peer(p, wout, j, out.off, B);
            if (sx < 0 || sy < 0) {
                st = LINCOLL_ERR_NOMEM;
                break;
            }
            src[j] = lc_ref(sx, off);
            dst[j] = lc_ref(sy, off);
        }
        for (int r = 0; r < K; r++)
            M[(size_t)r * (size_t)K + (size_t)j] = coef(arg, j, r);
    }
    if (st == LINCOLL_OK && len > 0) {
        b->B = len; /* lc_enc_lincomb's steps span b->B bytes: here one segment */
        st = lc_enc_lincomb(b, 0, LC_STEP_POST, K, src, K, dst, M);
        b->B = B;
    }
    free(src);
    free(dst);
    free(M);
    return st;
}

static double lc_enc_zcopy_split_pred(const lc_env_t *env, const lc_enc_args_t *a)
{
    return lc_enc_zc_predict(env->cfg, a->K, a->B);
}

const lc_enc_alg_t lc_enc_alg_zcopy_split = {.name = "zcopy_split",
                                             .applies = lc_enc_zc_applies,
                                             .cost = lc_enc_zcopy_split_pred,
                                             .compile = lc_enc_zcopy_split_build,
                                             .algo = LINCOLL_ENCODE_ALGO_ZCOPY_SPLIT,
                                             .mapped = 1};
