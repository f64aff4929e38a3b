/*
 * core/encode/zcopy.c: all-to-all encode by loads from the peers' mapped
 * packets ("zcopy"): no message carries data and nothing is copied.
 *
 * What: every rank's input packet x_j is lincoll memory (lincoll_mem_alloc)
 * that every rank maps (one node: UCX shared memory, ucp_rkey_ptr), through a
 * window over the inputs.  Rank k:
 *   round 0  "ready": a 0-byte signalled put to every rank j that reads x_k
 *            (A[k][j] != 0), and a wait for the same flag from every rank j
 *            whose packet it reads (A[j][k] != 0): those packets now hold this
 *            start's data; then (POST) one GF lincomb
 *            y_k = sum_j A[j][k] x_j whose sources x_j, j != k, are rank j's
 *            packet itself, loaded from its memory: one pass over K sources;
 *   round 1  "done": a flag to every rank it read from, a wait for a flag from
 *            every rank that reads x_k: nobody reads x_k any more, so the start
 *            completes and the caller may overwrite x_k.
 * Flags are counted per peer (lc_win_signal_ready): a peer's "ready" of the
 * next start may arrive before this start's "done" is consumed; counts keep
 * them apart.
 * Reference: the "ready"/"done" direct shared-memory collectives of
 * core/coll/zcopy_reduce_scatter.c (UCC tl/shm style) applied to the direct encode
 * baseline of Wang & Raviv (arXiv 2205.05183, the trivial algorithm);
 * single-copy through a peer's mapped window as in ucp_rkey_ptr.
 * Cost (n = packet bytes, s = sources of this rank besides itself, K - 1 for
 * a dense column):
 *   C1 = 2 (flag rounds of 0-byte messages);
 *   C2 = s packets: no message carries them, but the GF pass pulls s packets
 *        from the peers' memory into this core in round 0; that volume is
 *        what a round of the alpha-beta-tau model moves, so the plan stats
 *        counts it (c2_bytes = s n) instead of the flags' 0 bytes;
 *   Time = 2 alpha_flag + (s + 1).n.gamma_gf, the pull being the kernel's own
 *        loads (the selection model, lc_enc_zc_predict: 2 alpha + K n gamma);
 *        the alpha-beta-tau prediction of lincoll_perf is C1 alpha + C2 tau.
 *
 * In the IR: a window over the input (key LC_ENC_KEY_IN), a view of each
 * peer's packet it reads, signals and waits for the flags; the plan stats
 * count the packets the GF pass loads from the peers as this round's C2.
 * Restrictions: lincoll_encode_init (an explicit matrix), K >= 2, every rank's
 * input lincoll memory and mapped by every rank (bind agrees at init, one
 * exchange of records; otherwise every rank takes the tag algorithms); the
 * output may be any memory; ports K - 1 (flags to every peer at once); not
 * chunked; not with LINCOLL_ENCODE_CHECKSUM (no message to checksum); ranks
 * of a sim world driven from one thread agree by hand (tests, lincoll_sim).
 */
#include <stdlib.h>

#include "core/base/log.h"
#include "core/encode/encode_int.h"

double lc_enc_zc_predict(const lc_config_t *cfg, int K, size_t B)
{
    return 2.0 * cfg->model_alpha_mapped + (double)K * (double)B / cfg->model_compute_bw;
}

int lc_enc_zc_applies(const lc_env_t *env, const lc_enc_args_t *a)
{
    return env->mapped && a->K >= 2 && env->P == a->K;
}

lincoll_status_t lc_enc_zcopy_build(lc_enc_b_t *b, const lc_enc_args_t *a)
{
    lc_plan_t *p = b->plan;
    const size_t B = b->B;
    const int K = a->K, me = a->me;
    const lc_enc_coef_fn_t coef = a->coef;
    const void *arg = a->arg;
    const lc_bufref_t in = a->in, out = a->out;
    if (!lc_enc_zc_applies(&p->env, a)) return LINCOLL_ERR_UNSUPPORTED;
    lc_plan_rename(p, "zcopy");
    p->ports = K - 1;
    int win = lc_plan_win_user(p, LC_ENC_KEY_IN, (int)in.slot);
    lc_bufref_t *src = malloc(sizeof(*src) * (size_t)K);
    uint64_t *row = malloc(sizeof(uint64_t) * (size_t)K);
    lincoll_status_t st = LINCOLL_OK;
    if (win < 0 || src == NULL || row == NULL || lc_enc_round(b, 1) < 0) st = LINCOLL_ERR_NOMEM;
    int ns = 0;
    for (int j = 0; st == LINCOLL_OK && j < K; j++) {
        uint64_t c = coef(arg, j, me);
        int reads = j != me && c != 0, read_by = j != me && coef(arg, me, j) != 0;
        if (read_by) { /* j loads x_me: tell it the packet is ready, wait until it is done */
            st = lc_plan_signal(p, 0, j, win);
            if (st == LINCOLL_OK) st = lc_plan_wait(p, 1, j, win, 1, lc_ref(0, 0), 0);
        }
        if (st != LINCOLL_OK || c == 0) continue;
        if (j == me) {
            src[ns] = in;
        } else {
            int s = lc_plan_slot_peer(p, win, j, in.off, B);
            if (s < 0) {
                st = LINCOLL_ERR_NOMEM;
                break;
            }
            src[ns] = lc_ref(s, 0);
        }
        row[ns++] = c;
        if (reads) {
            st = lc_plan_wait(p, 0, j, win, 1, lc_ref(0, 0), 0);
            if (st == LINCOLL_OK) st = lc_plan_signal(p, 1, j, win);
        }
    }
    if (st == LINCOLL_OK) {
        if (ns == 0) { /* a zero column: the result is zero */
            lc_bufref_t z;
            st = lc_enc_zero_packet(b, &z);
            if (st == LINCOLL_OK) st = lc_plan_copy(p, 0, LC_STEP_POST, out, z, B);
        } else {
            st = lc_enc_lincomb(b, 0, LC_STEP_POST, ns, src, 1, &out, row);
        }
    }
    free(src);
    free(row);
    return st;
}

static double lc_enc_zcopy_pred(const lc_env_t *env, const lc_enc_args_t *a)
{
    return lc_enc_zc_predict(env->cfg, a->K, a->B);
}

const lc_enc_alg_t lc_enc_alg_zcopy = {.name = "zcopy",
                                       .applies = lc_enc_zc_applies,
                                       .cost = lc_enc_zcopy_pred,
                                       .compile = lc_enc_zcopy_build,
                                       .algo = LINCOLL_ENCODE_ALGO_ZCOPY,
                                       .mapped = 1};
