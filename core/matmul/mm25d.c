/*
 * core/matmul/mm25d.c: 2.5D matrix multiply (c replicated layers of Cannon).
 *
 * P = q x q x c.  A, B and C live on layer 0 in Cannon's block distribution;
 * layers 1..c-1 hold copies.  (1) Binomial broadcast of A(i,j) and B(i,j)
 * from layer 0 to the other layers (ceil(log2 c) rounds).  (2) Layer l runs
 * Cannon steps [l q / c, (l+1) q / c): its own skew, then shifts, into a
 * partial C (layer 0 into the user's C with beta, the others into scratch
 * with beta = 0).  (3) Binomial reduction (sum) of the partial C blocks onto
 * layer 0.  c = 1 is exactly Cannon.
 *
 * Reference: E. Solomonik and J. Demmel, "Communication-optimal parallel 2.5D
 * matrix multiplication and LU factorization algorithms", Euro-Par 2011
 * (TR UCB/EECS-2011-72).
 * Cost (n x n): (2 log2 c + q/c + 1).alpha
 *             + (2 log2 c . n^2/q^2 + 2 (q/c) n^2/q^2 + log2 c . n^2/q^2).beta + 2n^3/P.gamma
 *   = O(sqrt(P/c^3) + log c) messages and O(n^2/sqrt(cP)) words per rank.
 * Memory: c copies: about 7n^2/q^2 = 7c.n^2/P per rank.
 * Transposes: as Cannon (local blocks stored transposed, GEMM with op = T).
 * Restrictions: square layers, Cannon's block distribution, 1 <= c <= q.
 */
#include "core/matmul/mm_int.h"

static int lc_mm_25d_why_not(const lc_env_t *env, const lc_mm_t *mm, char *why, size_t len)
{
    const lincoll_matdesc_t *c = &mm->dc;
    lc_mm_t flat = *mm;
    flat.da.layers = flat.db.layers = flat.dc.layers = 1;
    if (lc_mm_cannon_why_not(env, &flat, why, len)) return 1;
    if (c->layers > c->pr) {
        lc_mm_why(why, len, "c=%d layers exceed q=%d (c <= P^(1/3) is the useful range)", c->layers,
                  c->pr);
        return 1;
    }
    return 0;
}

/* dst += src elementwise over a region (one REDUCE when both are contiguous) */
static lincoll_status_t lc_mm_add(lc_plan_t *p, const lc_mm_t *mm, int round,
                                  const lc_mm_region_t *dst, const lc_mm_region_t *src)
{
    const lincoll_layout_t L = mm->dc.layout;
    if (dst->rows == 0 || dst->cols == 0) return LINCOLL_OK;
    if (lc_mm_contig(L, dst) && lc_mm_contig(L, src)) {
        return lc_plan_reduce(p, round, 1, lc_ref(dst->slot, dst->off), lc_ref(dst->slot, dst->off),
                              lc_ref(src->slot, src->off), (size_t)(dst->rows * dst->cols),
                              mm->dtype, LINCOLL_SUM);
    }
    int row = L == LINCOLL_ROW_MAJOR;
    int64_t nvec = row ? dst->rows : dst->cols, len = row ? dst->cols : dst->rows;
    lincoll_status_t st = LINCOLL_OK;
    for (int64_t v = 0; v < nvec && st == LINCOLL_OK; v++) {
        lc_bufref_t d = lc_ref(dst->slot, dst->off + (size_t)(v * dst->ld) * mm->es);
        lc_bufref_t s = lc_ref(src->slot, src->off + (size_t)(v * src->ld) * mm->es);
        st = lc_plan_reduce(p, round, 1, d, d, s, (size_t)len, mm->dtype, LINCOLL_SUM);
    }
    return st;
}

lincoll_status_t lc_mm_25d_build(lc_plan_t *p, const lc_mm_t *mm)
{
    const int q = mm->dc.pr, c = mm->dc.layers, l = mm->pl, i = mm->pi, j = mm->pj;
    const size_t es = mm->es;
    const lincoll_layout_t L = mm->dc.layout;
    lc_mm_region_t A = lc_mm_user(p, mm, &mm->da, mm->a, mm->ta);
    lc_mm_region_t B = lc_mm_user(p, mm, &mm->db, mm->b, mm->tb);
    lc_mm_region_t C = lc_mm_user(p, mm, &mm->dc, mm->c, 0);
    if (A.slot < 0 || B.slot < 0 || C.slot < 0) return LINCOLL_ERR_NOMEM;
    /* my blocks' geometry (the same on every layer) */
    lc_mm_region_t Ag = lc_mm_local(&mm->da, -1, i, j, 0), Bg = lc_mm_local(&mm->db, -1, i, j, 0);
    lc_mm_region_t Cg = lc_mm_local(&mm->dc, -1, i, j, 0);
    const int lc = lc_mm_hibit(c - 1) + 1; /* ceil(log2 c) */
    lincoll_status_t st = lc_mm_round(p, 0);
    size_t abytes = (size_t)(Ag.rows * Ag.cols) * es, bbytes = (size_t)(Bg.rows * Bg.cols) * es;
    size_t cbytes = (size_t)(Cg.rows * Cg.cols) * es;
    lc_mm_region_t Ao = A, Bo = B, Cp = C;
    if (c > 1) {
        /* (1) broadcast A(i,j), B(i,j) over layers, root layer 0 */
        lc_mm_region_t As =
            lc_mm_tight(L, lc_plan_slot_scratch(p, abytes ? abytes : 1), Ag.rows, Ag.cols, mm->ta);
        lc_mm_region_t Bs =
            lc_mm_tight(L, lc_plan_slot_scratch(p, bbytes ? bbytes : 1), Bg.rows, Bg.cols, mm->tb);
        LC_MM_TRY(st, lc_mm_round(p, lc));
        if (l == 0) {
            if (!lc_mm_contig(L, &A)) {
                LC_MM_TRY(st, lc_mm_copy(p, 0, 0, L, &As, &A, es));
                Ao = As;
            }
            if (!lc_mm_contig(L, &B)) {
                LC_MM_TRY(st, lc_mm_copy(p, 0, 0, L, &Bs, &B, es));
                Bo = Bs;
            }
        } else {
            Ao = As;
            Bo = Bs;
            int par = l - (1 << lc_mm_hibit(l));
            int from = (par * q + i) * q + j;
            if (abytes)
                LC_MM_TRY(st, lc_plan_recv(p, lc_mm_hibit(l), from, lc_ref(As.slot, 0), abytes));
            if (bbytes)
                LC_MM_TRY(st, lc_plan_recv(p, lc_mm_hibit(l), from, lc_ref(Bs.slot, 0), bbytes));
        }
        for (int t = l == 0 ? 0 : lc_mm_hibit(l) + 1; (1 << t) < c && st == LINCOLL_OK; t++) {
            if (l + (1 << t) >= c) continue;
            int to = ((l + (1 << t)) * q + i) * q + j;
            if (abytes) LC_MM_TRY(st, lc_plan_send(p, t, to, lc_ref(Ao.slot, Ao.off), abytes));
            if (bbytes) LC_MM_TRY(st, lc_plan_send(p, t, to, lc_ref(Bo.slot, Bo.off), bbytes));
        }
        if (l > 0) {
            Cp = Cg;
            Cp.slot = lc_plan_slot_scratch(p, cbytes ? cbytes : 1);
        }
    }
    /* (2) my layer's share of Cannon's steps */
    const int t0 = l * q / c, t1 = (l + 1) * q / c, r1 = c > 1 ? lc : 0;
    int rend = r1;
    LC_MM_TRY(st, lc_mm_cannon_layer(p, mm, l, r1, t0, t1 - t0, &Ao, &Bo, &Cp,
                                     l == 0 ? mm->beta : 0.0, &rend));
    if (c > 1 && st == LINCOLL_OK) {
        /* (3) binomial reduction onto layer 0, after every layer's last step */
        int smax = 0;
        for (int x = 0; x < c; x++) {
            int n = (x + 1) * q / c - x * q / c;
            smax = n > smax ? n : smax;
        }
        const int r2 = r1 + (smax > 1 ? smax - 1 : 0) + 1;
        int tmp = -1;
        for (int t = 0; (1 << t) < c && st == LINCOLL_OK; t++) {
            LC_MM_TRY(st, lc_mm_round(p, r2 + t));
            if (l % (1 << (t + 1)) == (1 << t)) {
                int to = ((l - (1 << t)) * q + i) * q + j;
                if (cbytes)
                    LC_MM_TRY(st, lc_plan_send(p, r2 + t, to, lc_ref(Cp.slot, Cp.off), cbytes));
                break;
            }
            if (l % (1 << (t + 1)) == 0 && l + (1 << t) < c && cbytes) {
                if (tmp < 0) tmp = lc_plan_slot_scratch(p, cbytes);
                int from = ((l + (1 << t)) * q + i) * q + j;
                lc_mm_region_t T = Cg;
                T.slot = tmp;
                LC_MM_TRY(st, lc_plan_recv(p, r2 + t, from, lc_ref(tmp, 0), cbytes));
                LC_MM_TRY(st, lc_mm_add(p, mm, r2 + t, &Cp, &T));
            }
        }
    }
    (void)rend;
    return st;
}

/* The closed form of the file comment: predicted seconds, scratch bytes. */
static double lc_mm_25d_cost(const lc_env_t *env, const lc_mm_t *mm)
{
    const double al = env->cfg->model_alpha, be = (double)mm->es / env->cfg->model_bw;
    const double m = (double)mm->m, n = (double)mm->n, k = (double)mm->k;
    const double c = mm->dc.layers, q = mm->dc.pr;
    const double logc = lc_mm_hibit(mm->dc.layers - 1) + 1;
    return (2 * logc + q / c) * al + (m * k + k * n) / (q * q) * (q / c + logc) * be +
           m * n / (q * q) * logc * be;
}

static double lc_mm_25d_memory(const lc_env_t *env, const lc_mm_t *mm)
{
    (void)env;
    const double m = (double)mm->m, n = (double)mm->n, k = (double)mm->k, q = mm->dc.pr;
    return (3 * (m * k + k * n) + 2 * m * n) / (q * q) * (double)mm->es;
}

static int lc_mm_25d_applies(const lc_env_t *env, const lc_mm_t *mm)
{
    return !lc_mm_25d_why_not(env, mm, NULL, 0);
}

const lc_mm_alg_t lc_mm_alg_25d = {.name = "25d",
                                   .applies = lc_mm_25d_applies,
                                   .cost = lc_mm_25d_cost,
                                   .compile = lc_mm_25d_build,
                                   .algo = LINCOLL_MATMUL_25D,
                                   .why_not = lc_mm_25d_why_not,
                                   .memory = lc_mm_25d_memory};
