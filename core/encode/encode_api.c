/*
 * core/encode/encode_api.c: lincoll_encode_init, all-to-all encode of any
 * K x K matrix with the universal algorithms.
 *
 * What: validate (K x K shape, packet size, every entry of A reduced: each
 * rank scans the whole matrix, so a bad entry fails every rank with the same
 * status; the scan of one matrix is remembered, so K virtual ranks of a sim
 * sharing it scan it once), pick prepare_shoot / best_window / direct /
 * zcopy / zcopy_split (options, LINCOLL_ENCODE_ALGO, or the cost model of
 * encode_common.c; zcopy when the peers agree at bind) and compile.  "specific" has no meaning for
 * an arbitrary matrix: it falls back to auto with one warning (error under
 * LINCOLL_ALGO_FALLBACK=error).
 * Reference and costs: prepare_shoot.c, direct.c, zcopy.c.
 * Restrictions: none beyond the arguments' (in and out do not overlap).
 */
#include "core/base/log.h"
#include "core/encode/encode_int.h"
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
    lc_enc_b_t b;
    st = lc_enc_begin(comm, "encode", p, field, packet_bytes, opts, &b);
    if (st != LINCOLL_OK) return st;
    b.zc_allowed = 1; /* zcopy is a candidate (decided with the peers, lc_enc_universal) */
    b.fn = fn;
    int si = lc_plan_slot_user(b.plan, (void *)in, packet_bytes);
    int so = lc_plan_slot_user(b.plan, out, packet_bytes);
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
