/*
 * core/encode/encode_api.c: the public inits of the all-to-all encode of any
 * K x K matrix (lincoll_encode_init) and of the systematic Reed-Solomon
 * encode (lincoll_encode_rs_init, rs.c), the algorithm names, the closed
 * forms and the chunking of a plan (api layer).
 *
 * What: validate (K x K shape, packet size, every entry of A reduced: each
 * rank scans the whole matrix, so a bad entry fails every rank with the same
 * status; the scan of one matrix is remembered, so K virtual ranks of a sim
 * sharing it scan it once), pick prepare_shoot / best_window / direct /
 * zcopy / zcopy_split (options, LINCOLL_ENCODE_ALGO, or the cost model of
 * encode_model.c; zcopy when the peers agree at bind) and compile.  "specific" has no meaning for
 * an arbitrary matrix: it falls back to auto with one warning (error under
 * LINCOLL_ALGO_FALLBACK=error).
 * Reference and costs: prepare_shoot.c, direct.c, zcopy.c.
 * Restrictions: none beyond the arguments' (in and out do not overlap).
 */
#include <stdlib.h>

#include "core/base/log.h"
#include "core/encode/encode_api.h"
#include "core/exec/exec.h"

/* Every entry of the K x K matrix A below q; the last matrix found good is
 * remembered (pointer, K, q and the first and last entries), so a sim of K
 * virtual ranks sharing one A scans it once instead of K times. */
static lincoll_status_t lc_enc_check_matrix(const char *fn, const lincoll_field_t *f,
                                            const uint64_t *A, int K)
{
    static _Thread_local const uint64_t *last;
    static _Thread_local int last_k;
    static _Thread_local uint64_t last_q, last_first, last_end;
    const size_t n = (size_t)K * (size_t)K;
    if (A == last && K == last_k && f->q == last_q && A[0] == last_first && A[n - 1] == last_end)
        return LINCOLL_OK;
    for (size_t i = 0; i < n; i++) {
        if (A[i] >= f->q) {
            lc_error("%s: A[%zu][%zu]=%llu is not a reduced element (q=%llu)", fn, i / (size_t)K,
                     i % (size_t)K, (unsigned long long)A[i], (unsigned long long)f->q);
            return LINCOLL_ERR_INVALID;
        }
    }
    last = A;
    last_k = K;
    last_q = f->q;
    last_first = A[0];
    last_end = A[n - 1];
    return LINCOLL_OK;
}

/* "specific" asked where there is none: warn once and go automatic, or fail */
static lincoll_status_t lc_enc_no_specific(lincoll_comm_t *comm, const char *fn,
                                           lincoll_encode_algo_t *algo)
{
    if (*algo != LINCOLL_ENCODE_ALGO_SPECIFIC) return LINCOLL_OK;
    if (comm->ctx->cfg.algo_fallback == LC_FALLBACK_ERROR) {
        lc_error("%s: algorithm specific does not apply to an arbitrary matrix "
                 "(LINCOLL_ALGO_FALLBACK=error)",
                 fn);
        return LINCOLL_ERR_UNSUPPORTED;
    }
    static int warned;
    if (!warned) {
        warned = 1;
        lc_warn("%s: algorithm specific does not apply to an arbitrary matrix; choosing "
                "automatically",
                fn);
    }
    *algo = LINCOLL_ENCODE_ALGO_AUTO;
    return LINCOLL_OK;
}

lincoll_status_t lincoll_encode_init(lincoll_comm_t *comm, const lincoll_field_t *field,
                                     const uint64_t *A, int rows, int cols, size_t packet_bytes,
                                     const void *in, void *out, const lincoll_encode_opts_t *opts,
                                     lincoll_plan_t **plan_p)
{
    static const char *fn = "lincoll_encode_init";
    int p;
    lincoll_status_t st =
        lc_enc_check_common(fn, comm, field, packet_bytes, in, 1, out, 1, opts, plan_p, &p);
    if (st != LINCOLL_OK) return st;
    const int K = comm->size;
    LC_CHECK_ARG(A != NULL, "%s: A must not be NULL", fn);
    LC_CHECK_ARG(rows == K && cols == K,
                 "%s: A is %d x %d but the communicator has K=%d ranks (A must be K x K)", fn, rows,
                 cols, K);
    lincoll_encode_algo_t algo;
    st = lc_enc_requested_algo(&comm->ctx->cfg, opts, &algo);
    if (st == LINCOLL_OK) st = lc_enc_no_specific(comm, fn, &algo);
    if (st != LINCOLL_OK) return st;
    /* every rank checks the whole matrix, so a bad entry fails every rank alike */
    st = lc_enc_check_matrix(fn, field, A, K);
    if (st != LINCOLL_OK) return st;
    lc_enc_call_t b;
    st = lc_enc_begin(comm, "encode", p, field, packet_bytes, opts, &b);
    if (st != LINCOLL_OK) return st;
    b.zc_allowed = 1; /* zcopy is a candidate (decided with the peers, lc_enc_universal) */
    b.fn = fn;
    int si = lc_plan_slot_user(b.b.plan, (void *)in, packet_bytes);
    int so = lc_plan_slot_user(b.b.plan, out, packet_bytes);
    if (si < 0 || so < 0) return lc_enc_end(&b, LINCOLL_ERR_NOMEM, plan_p);
    lc_enc_dense_t d = {.A = A, .K = K, .q = field->q, .bad_j = -1};
    st = lc_enc_universal(&b, algo, K, comm->rank, lc_enc_dense_coef, &d, lc_ref(si, 0),
                          lc_ref(so, 0));
    if (st == LINCOLL_OK && d.bad_j >= 0) {
        lc_error("%s: A[%d][%d]=%llu is not a reduced element (q=%llu)", fn, d.bad_j, d.bad_k,
                 (unsigned long long)A[(size_t)d.bad_j * (size_t)K + (size_t)d.bad_k],
                 (unsigned long long)field->q);
        st = LINCOLL_ERR_INVALID;
    }
    return lc_enc_end(&b, st, plan_p);
}

const char *lincoll_encode_algo_name(lincoll_encode_algo_t algo)
{
    return lc_enc_algo_name(algo);
}

lincoll_status_t lincoll_encode_cost(int K, int ports, lincoll_encode_algo_t algo, unsigned *c1_p,
                                     uint64_t *c2_p, int *window_p)
{
    return lc_enc_closed_cost(K, ports, algo, c1_p, c2_p, window_p);
}

lincoll_status_t lincoll_encode_chunks(const lincoll_plan_t *plan, unsigned *nchunks_p,
                                       size_t *chunk_bytes_p)
{
    LC_CHECK_ARG(plan != NULL, "lincoll_encode_chunks: plan must not be NULL");
    const lc_plan_t *ir = lc_plan_of(plan);
    LC_CHECK_ARG(ir->priv_free == lc_enc_priv_free && ir->priv != NULL,
                 "lincoll_encode_chunks: plan %s is not an encode plan", ir->algorithm);
    const lc_enc_priv_t *pv = ir->priv;
    if (nchunks_p) *nchunks_p = pv->nchunks;
    if (chunk_bytes_p) *chunk_bytes_p = pv->chunk;
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
    lc_enc_call_t b;
    st = lc_enc_begin(comm, "rs_encode", p, field, packet_bytes, opts, &b);
    if (st != LINCOLL_OK) {
        free(G);
        return st;
    }
    int si = data ? lc_plan_slot_user(b.b.plan, (void *)in, packet_bytes) : -1;
    int so = data ? -1 : lc_plan_slot_user(b.b.plan, out, packet_bytes);
    if ((data && si < 0) || (!data && so < 0)) st = LINCOLL_ERR_NOMEM;
    lc_rs_t r = {.G = G, .N = N, .k = k};
    if (st == LINCOLL_OK)
        st = lc_enc_universal(&b, algo, N, comm->rank, lc_rs_encode_coef, &r, lc_ref(si, 0),
                              lc_ref(so, 0));
    free(G);
    return lc_enc_end(&b, st, plan_p);
}
