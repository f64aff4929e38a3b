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

uint64_t lc_rs_encode_coef(const void *arg, int j, int c)
{
    const lc_rs_t *r = arg;
    return (j < r->k && c >= r->k) ? r->G[(size_t)c * (size_t)r->k + (size_t)j] : 0;
}

uint64_t lc_rs_repair_coef(const void *arg, int j, int c)
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
