/*
 * core/matmul/ring1d.c: 1D ring matrix multiply (the seed's algorithm).
 *
 * A, B, C are distributed by rows over a P x 1 grid (row blocks or
 * block-cyclic rows; A and C share MB).  Each rank keeps its A rows and C
 * rows; the row blocks of B travel around the ring: in round L rank r holds
 * the B rows of rank (r + L) mod P, multiplies them into C with the matching
 * columns of its A, and at the same time passes them to rank r - 1 while the
 * next ones arrive from r + 1 (two scratch buffers: the transfer of round L
 * and the GEMM of round L touch different buffers, so the GEMM is a DURING
 * step that runs while the round's shift is in flight; steps_gemm.c
 * progresses the transport from inside it so rendezvous transfers move).
 * The last block arrives in the last round and is multiplied after it.
 *
 * Reference: the seed (lecture notes, "linear network"); Fox, Johnson et al.,
 * "Solving Problems on Concurrent Processors" (1988), ch. 10.
 * Cost (n x n, P | n) = (P-1).alpha + (P-1).n^2/P.beta + 2n^3/P.gamma
 * Exact words sent by rank r: n.(k - kloc(r-1)); received: n.(k - kloc(r)).
 * Memory: A, B, C rows + 2 buffers of the largest B row block = 5n^2/P.
 * Transposes: A and/or B local arrays may hold the transpose of their op()
 * block (B blocks travel as stored); the GEMMs use op = T.
 * Restrictions: grid P x 1 on one layer.
 */
#include "core/matmul/mm_int.h"

static int lc_mm_ring1d_why_not(const lc_env_t *env, const lc_mm_t *mm, char *why, size_t len)
{
    (void)env;
    const lincoll_matdesc_t *a = &mm->da, *c = &mm->dc;
    if (a->pc != 1 || a->layers != 1) {
        lc_mm_why(why, len, "needs a P x 1 grid on one layer, desc has %dx%dx%d", a->pr, a->pc,
                  a->layers);
        return 1;
    }
    if (a->mb != c->mb || a->rsrc != c->rsrc) {
        lc_mm_why(why, len,
                  "desca and descc must share the row distribution (mb %lld vs "
                  "%lld, rsrc %d vs %d)",
                  (long long)a->mb, (long long)c->mb, a->rsrc, c->rsrc);
        return 1;
    }
    return 0;
}

lincoll_status_t lc_mm_ring1d_build(lc_plan_t *p, const lc_mm_t *mm)
{
    const int P = mm->P, me = mm->me;
    const size_t es = mm->es;
    const lincoll_matdesc_t *db = &mm->db;
    const lincoll_layout_t L = mm->dc.layout;
    lc_mm_region_t A = lc_mm_user(p, mm, &mm->da, mm->a, mm->ta);
    lc_mm_region_t Bown = lc_mm_user(p, mm, db, mm->b, mm->tb);
    lc_mm_region_t C = lc_mm_user(p, mm, &mm->dc, mm->c, 0);
    if (A.slot < 0 || Bown.slot < 0 || C.slot < 0) return LINCOLL_ERR_NOMEM;
    int64_t maxk = 0;
    for (int q = 0; q < P; q++) {
        int64_t kq = lc_mm_numroc(mm->k, db->mb, q, db->rsrc, P);
        maxk = kq > maxk ? kq : maxk;
    }
    int buf[2] = {-1, -1};
    size_t bufsz = (size_t)(maxk * mm->n) * es;
    lincoll_status_t st = lc_mm_round(p, P > 1 ? P - 2 : 0);
    if (st != LINCOLL_OK) return st;
    int need_pack = !lc_mm_contig(L, &Bown);
    if (P > 1 || need_pack) buf[0] = lc_plan_slot_scratch(p, bufsz ? bufsz : 1);
    if (P > 1) buf[1] = lc_plan_slot_scratch(p, bufsz ? bufsz : 1);
        /* the B rows of rank q as a tight array in buffer b */
#define BBLOCK(_b, _q)                                                                             \
    lc_mm_tight(L, buf[_b], lc_mm_numroc(mm->k, db->mb, (_q), db->rsrc, P), mm->n, mm->tb)
    lc_mm_region_t cur = Bown;
    if (need_pack) {
        cur = BBLOCK(0, me);
        st = lc_mm_copy(p, 0, 0, L, &cur, &Bown, es);
    }
    int first = 1;
    for (int Ls = 0; Ls < P && st == LINCOLL_OK; Ls++) {
        const int q = (me + Ls) % P;
        const int round = Ls < P - 1 ? Ls : (P > 1 ? P - 2 : 0);
        lc_mm_region_t next = cur;
        if (Ls < P - 1) {
            const int qn = (me + Ls + 1) % P;
            next = BBLOCK((Ls + 1) % 2, qn);
            size_t sbytes = (size_t)(cur.rows * cur.cols) * es;
            size_t rbytes = (size_t)(next.rows * next.cols) * es;
            if (rbytes > 0) st = lc_plan_recv(p, round, (me + 1) % P, lc_ref(next.slot, 0), rbytes);
            if (sbytes > 0)
                LC_MM_TRY(st, lc_plan_send(p, round, (me - 1 + P) % P, lc_ref(cur.slot, cur.off),
                                           sbytes));
        }
        /* C += A(:, rows of B that q owns) * cur, one GEMM per row block */
        for (int64_t g0 = (int64_t)((q - db->rsrc + P) % P) * db->mb; g0 < mm->k && st == 0;
             g0 += db->mb * P) {
            int64_t h = mm->k - g0 < db->mb ? mm->k - g0 : db->mb;
            lc_mm_region_t As = lc_mm_sub(L, &A, 0, g0, A.rows, h, es);
            lc_mm_region_t Bs = lc_mm_sub(L, &cur, lc_mm_g2l(g0, db->mb, P), 0, h, mm->n, es);
            /* runs while this round's shift of `cur` and receive into `next` fly;
             * the last block arrived in the last round: its GEMM runs after it */
            st = lc_mm_gemm(p, mm, round, Ls < P - 1 ? LC_STEP_DURING : LC_STEP_POST, C.rows,
                            C.cols, h, first ? mm->beta : 1.0, &As, &Bs, &C);
            first = 0;
        }
        cur = next;
    }
    if (st == LINCOLL_OK && first) {
        /* k == 0: C := beta C */
        st = lc_mm_gemm(p, mm, 0, 1, C.rows, C.cols, 0, mm->beta, &A, &Bown, &C);
    }
#undef BBLOCK
    return st;
}

/* The closed form of the file comment: predicted seconds, scratch bytes. */
static double lc_mm_ring1d_cost(const lc_env_t *env, const lc_mm_t *mm)
{
    const double al = env->cfg->model_alpha, be = (double)mm->es / env->cfg->model_bw;
    const double n = (double)mm->n, k = (double)mm->k, P = mm->P;
    return (P - 1) * al + k * n * (P - 1) / P * be;
}

static double lc_mm_ring1d_memory(const lc_env_t *env, const lc_mm_t *mm)
{
    (void)env;
    return 2 * (double)mm->k * (double)mm->n / mm->P * (double)mm->es;
}

static int lc_mm_ring1d_applies(const lc_env_t *env, const lc_mm_t *mm)
{
    return !lc_mm_ring1d_why_not(env, mm, NULL, 0);
}

const lc_mm_alg_t lc_mm_alg_ring1d = {.name = "ring",
                                      .applies = lc_mm_ring1d_applies,
                                      .cost = lc_mm_ring1d_cost,
                                      .compile = lc_mm_ring1d_build,
                                      .algo = LINCOLL_MATMUL_RING,
                                      .why_not = lc_mm_ring1d_why_not,
                                      .memory = lc_mm_ring1d_memory};
