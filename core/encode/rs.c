/*
 * core/encode/rs.c: storage collectives: systematic [N, k] Reed-Solomon
 * encode (k data holders, N - k parity receivers) and repair of lost
 * packets from any k survivors.
 *
 * What: both are N-rank all-to-all encodes of a sparse N x N matrix:
 *   encode: A[j][c] = G[c][j] for data rank j < k and parity rank c >= k;
 *   repair: A[s_i][l_t] = R[t][i], R = lincoll_gf_matrix_recover(G, survivors,
 *           lost) (rows `lost` of G times the inverse of rows `survivors`);
 * every other entry is zero.  Ranks without input send zero packets
 * (prepare-and-shoot is universal and oblivious to the sparsity); ranks
 * without output write to scratch.  The cost model picks best_window,
 * prepare_shoot or direct (direct skips the zero entries: every parity rank
 * receives the k data packets, C1 = ceil((N-1)/p) global rounds).
 * Reference: Wang & Raviv, "On the Encoding Process in Decentralized
 * Systems" (arXiv 2408.15203, [N, K] systematic codes); ISA-L
 * ec_encode_data / gf_gen_decode_matrix_simple for the matrices.
 * Cost: as prepare_shoot.c / direct.c with K = N:
 *   C1 = ceil(log_P N), C2 = C2_universal(N)  |  C1 = C2 = ceil((N-1)/p).
 * When the communicator is exactly the k survivors and the lost ranks and
 * no universal algorithm is forced, repair runs the schedules on the k
 * survivors instead (star, tree, chain: repair_api.c).
 * Group-wise schedules with fewer useless packets when N - k << k are not
 * implemented (docs/encode.md, "Reed-Solomon encode and repair").
 * Restrictions: 1 <= k < N <= q (systematic generators); repair: k distinct
 * survivors, lost ranks distinct and not survivors; the survivors' rows
 * must be invertible (LINCOLL_ERR_SINGULAR otherwise, on every rank).
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/encode/encode_int.h"
#include "core/encode/repair_int.h"
#include "core/exec/exec.h"

typedef struct lc_rs {
    const uint64_t *G; /* N x k generator (encode) */
    const uint64_t *R; /* n_lost x k recovery matrix (repair) */
    int N, k;
    int *sidx, *lidx; /* repair: survivor / lost index of a rank, or -1 */
} lc_rs_t;

static uint64_t lc_rs_encode_coef(const void *arg, int j, int c)
{
    const lc_rs_t *r = arg;
    return (j < r->k && c >= r->k) ? r->G[(size_t)c * (size_t)r->k + (size_t)j] : 0;
}

static uint64_t lc_rs_repair_coef(const void *arg, int j, int c)
{
    const lc_rs_t *r = arg;
    int s = r->sidx[j], t = r->lidx[c];
    return (s >= 0 && t >= 0) ? r->R[(size_t)t * (size_t)r->k + (size_t)s] : 0;
}

/* gen given: check it; otherwise build it.  *G_p is malloc'ed. */
lincoll_status_t lc_enc_rs_generator(const char *fn, const lincoll_field_t *field, int N, int k,
                                     lincoll_gf_rs_kind_t kind, const uint64_t *gen, uint64_t **G_p)
{
    LC_CHECK_ARG(k >= 1 && k < N, "%s: k=%d must be in [1, N-1] (N=%d codeword rows)", fn, k, N);
    uint64_t *G = malloc(sizeof(uint64_t) * (size_t)N * (size_t)k);
    if (G == NULL) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = LINCOLL_OK;
    if (gen != NULL) {
        for (size_t i = 0; i < (size_t)N * (size_t)k && st == LINCOLL_OK; i++) {
            if (gen[i] >= field->q) {
                lc_error("%s: gen[%zu][%zu]=%llu is not a reduced element", fn, i / (size_t)k,
                         i % (size_t)k, (unsigned long long)gen[i]);
                st = LINCOLL_ERR_INVALID;
            }
        }
        memcpy(G, gen, sizeof(uint64_t) * (size_t)N * (size_t)k);
    } else if ((uint64_t)N > field->q) {
        lc_error("%s: N=%d codeword rows exceed the field order q=%llu", fn, N,
                 (unsigned long long)field->q);
        st = LINCOLL_ERR_INVALID;
    } else if (kind != LINCOLL_GF_RS_VANDERMONDE && kind != LINCOLL_GF_RS_CAUCHY) {
        lc_error("%s: kind=%d is not a lincoll_gf_rs_kind_t", fn, (int)kind);
        st = LINCOLL_ERR_INVALID;
    } else {
        st = lincoll_gf_matrix_systematic(field, N, k, kind, G);
    }
    if (st != LINCOLL_OK) {
        free(G);
        return st;
    }
    *G_p = G;
    return LINCOLL_OK;
}

lincoll_status_t lincoll_encode_rs_init(lincoll_comm_t *comm, const lincoll_field_t *field, int k,
                                        lincoll_gf_rs_kind_t kind, const uint64_t *gen,
                                        size_t packet_bytes, const void *in, void *out,
                                        const lincoll_encode_opts_t *opts, lincoll_plan_t **plan_p)
{
    static const char *fn = "lincoll_encode_rs_init";
    int p;
    LC_CHECK_ARG(comm != NULL, "%s: comm must not be NULL", fn);
    int data = comm->rank < k;
    lincoll_status_t st =
        lc_enc_check_common(fn, comm, field, packet_bytes, in, data, out, !data, opts, plan_p, &p);
    if (st != LINCOLL_OK) return st;
    lincoll_encode_algo_t algo;
    st = lc_enc_requested_algo(&comm->ctx->cfg, opts, &algo);
    if (st != LINCOLL_OK) return st;
    if (algo == LINCOLL_ENCODE_ALGO_SPECIFIC) algo = LINCOLL_ENCODE_ALGO_AUTO;
    const int N = comm->size;
    uint64_t *G;
    st = lc_enc_rs_generator(fn, field, N, k, kind, gen, &G);
    if (st != LINCOLL_OK) return st;
    lc_enc_b_t b;
    st = lc_enc_begin(comm, "rs_encode", p, field, packet_bytes, opts, &b);
    if (st != LINCOLL_OK) {
        free(G);
        return st;
    }
    int si = data ? lc_plan_slot_user(b.plan, (void *)in, packet_bytes) : -1;
    int so = data ? -1 : lc_plan_slot_user(b.plan, out, packet_bytes);
    if ((data && si < 0) || (!data && so < 0)) st = LINCOLL_ERR_NOMEM;
    lc_rs_t r = {.G = G, .N = N, .k = k};
    if (st == LINCOLL_OK)
        st = lc_enc_universal(&b, algo, N, comm->rank, lc_rs_encode_coef, &r, lc_ref(si, 0),
                              lc_ref(so, 0));
    free(G);
    return lc_enc_end(&b, st, plan_p);
}

lincoll_status_t lincoll_encode_repair_init(lincoll_comm_t *comm, const lincoll_field_t *field,
                                            int k, lincoll_gf_rs_kind_t kind, const uint64_t *gen,
                                            const int *survivors, int n_lost, const int *lost,
                                            size_t packet_bytes, const void *in, void *out,
                                            const lincoll_encode_opts_t *opts,
                                            lincoll_plan_t **plan_p)
{
    static const char *fn = "lincoll_encode_repair_init";
    LC_CHECK_ARG(comm != NULL, "%s: comm must not be NULL", fn);
    LC_CHECK_ARG(plan_p != NULL, "%s: plan_p must not be NULL", fn);
    const int N = comm->size, me = comm->rank;
    LC_CHECK_ARG(k >= 1 && k < N, "%s: k=%d must be in [1, N-1] (N=%d ranks)", fn, k, N);
    LC_CHECK_ARG(survivors != NULL, "%s: survivors must not be NULL", fn);
    LC_CHECK_ARG(lost != NULL && n_lost >= 1 && n_lost <= N - k,
                 "%s: lost must list n_lost=%d ranks, 1 .. N-k=%d", fn, n_lost, N - k);
    lc_rs_t r = {.N = N, .k = k};
    r.sidx = malloc(sizeof(int) * (size_t)N);
    r.lidx = malloc(sizeof(int) * (size_t)N);
    uint64_t *R = malloc(sizeof(uint64_t) * (size_t)n_lost * (size_t)k), *G = NULL;
    lincoll_status_t st = LINCOLL_OK;
    if (r.sidx == NULL || r.lidx == NULL || R == NULL) st = LINCOLL_ERR_NOMEM;
    for (int i = 0; st == LINCOLL_OK && i < N; i++)
        r.sidx[i] = r.lidx[i] = -1;
    for (int i = 0; st == LINCOLL_OK && i < k; i++) {
        int s = survivors[i];
        if (s < 0 || s >= N || r.sidx[s] >= 0) {
            lc_error("%s: survivors[%d]=%d is outside [0, %d) or repeated", fn, i, s, N);
            st = LINCOLL_ERR_INVALID;
        } else {
            r.sidx[s] = i;
        }
    }
    for (int i = 0; st == LINCOLL_OK && i < n_lost; i++) {
        int l = lost[i];
        if (l < 0 || l >= N || r.lidx[l] >= 0 || r.sidx[l] >= 0) {
            lc_error("%s: lost[%d]=%d is outside [0, %d), repeated or a survivor", fn, i, l, N);
            st = LINCOLL_ERR_INVALID;
        } else {
            r.lidx[l] = i;
        }
    }
    int has_in = st == LINCOLL_OK && r.sidx[me] >= 0, has_out = st == LINCOLL_OK && r.lidx[me] >= 0;
    int p = 1;
    if (st == LINCOLL_OK)
        st = lc_enc_check_common(fn, comm, field, packet_bytes, in, has_in, out, has_out, opts,
                                 plan_p, &p);
    lincoll_encode_algo_t algo = LINCOLL_ENCODE_ALGO_AUTO;
    if (st == LINCOLL_OK) st = lc_enc_requested_algo(&comm->ctx->cfg, opts, &algo);
    if (algo == LINCOLL_ENCODE_ALGO_SPECIFIC) algo = LINCOLL_ENCODE_ALGO_AUTO;
    if (st == LINCOLL_OK && algo == LINCOLL_ENCODE_ALGO_AUTO && k + n_lost == N) {
        /* the communicator is exactly the survivors and the lost ranks: the
         * schedules on the k survivors (star, tree, chain; repair_api.c),
         * the chunk option as their slice */
        int *holds = malloc(sizeof(int) * (size_t)N), *needs = malloc(sizeof(int) * (size_t)N);
        if (holds == NULL || needs == NULL) st = LINCOLL_ERR_NOMEM;
        for (int i = 0; st == LINCOLL_OK && i < N; i++) {
            holds[i] = r.sidx[i] >= 0 ? i : -1;
            needs[i] = r.lidx[i] >= 0 ? i : -1;
        }
        lincoll_repair_opts_t ro = {.ports = opts != NULL ? opts->ports : 0,
                                    .slice_bytes = opts != NULL && opts->chunk_bytes != 0
                                                       ? opts->chunk_bytes
                                                       : comm->ctx->cfg.encode_chunk};
        if (st == LINCOLL_OK)
            st = lc_rep_init(fn, comm, field, N, k, kind, gen, holds, needs, packet_bytes, in, out,
                             &ro, plan_p);
        free(holds);
        free(needs);
        free(r.sidx);
        free(r.lidx);
        free(R);
        return st;
    }
    if (st == LINCOLL_OK) st = lc_enc_rs_generator(fn, field, N, k, kind, gen, &G);
    if (st == LINCOLL_OK) {
        st = lincoll_gf_matrix_recover(field, N, k, G, survivors, n_lost, lost, R);
        if (st == LINCOLL_ERR_SINGULAR)
            lc_error("%s: the generator rows of the survivors are singular: they cannot "
                     "rebuild the lost packets",
                     fn);
    }
    lc_enc_b_t b;
    int begun = 0;
    if (st == LINCOLL_OK) {
        st = lc_enc_begin(comm, "rs_repair", p, field, packet_bytes, opts, &b);
        begun = st == LINCOLL_OK;
    }
    if (st == LINCOLL_OK) {
        int si = has_in ? lc_plan_slot_user(b.plan, (void *)in, packet_bytes) : -1;
        int so = has_out ? lc_plan_slot_user(b.plan, out, packet_bytes) : -1;
        if ((has_in && si < 0) || (has_out && so < 0)) st = LINCOLL_ERR_NOMEM;
        r.R = R;
        if (st == LINCOLL_OK)
            st = lc_enc_universal(&b, algo, N, me, lc_rs_repair_coef, &r, lc_ref(si, 0),
                                  lc_ref(so, 0));
    }
    free(r.sidx);
    free(r.lidx);
    free(R);
    free(G);
    if (!begun) return st;
    return lc_enc_end(&b, st, plan_p);
}
