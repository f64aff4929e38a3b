/*
 * core/matmul/cannon.c: Cannon's algorithm on a q x q grid.
 *
 * Block distribution (one block per process; the last ones may be shorter or
 * empty), A's column split equal to B's row split.  Initial skew: rank (i,j)
 * gets A(i, l0) and B(l0, j), l0 = (i + j + t0) mod q; then q - 1 steps, each
 * multiplying the held blocks into C while A moves one column left and B one
 * row up.  Double buffered: the shift of round s lands in the buffer the
 * GEMM of round s does not read.  lc_mm_cannon_layer() runs steps
 * t0 .. t0+nsteps-1 on one layer, which is what 2.5D (mm25d.c) reuses.
 *
 * Reference: L. E. Cannon, "A cellular computer to implement the Kalman
 * filter algorithm", PhD thesis, Montana State University, 1969.
 * Cost (n x n, q = sqrt P): (q + 1).alpha + 2(q - 1 + 1).n^2/P.beta + 2n^3/P.gamma
 * Exact words sent by rank (i,j): skew [i != 0].mloc_i.kA_j + [j != 0].kB_i.nloc_j,
 * shifts mloc_i.(k - k_{(i+j-1) mod q}) + nloc_j.(k - k_{(i+j-1) mod q}).
 * Memory: 3n^2/P + 4 buffers of one block = 7n^2/P.
 * Transposes: local blocks of A and/or B stored transposed shift as they
 * are and the GEMM reads them with op = T.
 * Restrictions: square grid, one block per process, rsrc = csrc = 0, one
 * layer; anything else is rejected with LINCOLL_ERR_UNSUPPORTED.
 */
#include "core/matmul/mm_int.h"

int lc_mm_cannon_why_not(const lc_env_t *env, const lc_mm_t *mm, char *why, size_t len)
{
    (void)env;
    const lincoll_matdesc_t *a = &mm->da, *b = &mm->db, *c = &mm->dc;
    const int q = c->pr;
    if (c->pr != c->pc) {
        lc_mm_why(why, len, "needs a square grid, the descriptors have %dx%d", c->pr, c->pc);
        return 1;
    }
    const lincoll_matdesc_t *ds[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        const lincoll_matdesc_t *d = ds[i];
        if (d->rsrc != 0 || d->csrc != 0 || d->mb * q < d->m || d->nb * q < d->n) {
            lc_mm_why(why, len,
                      "desc%c must be a block distribution (mb >= ceil(m/q), "
                      "nb >= ceil(n/q), rsrc = csrc = 0)",
                      "abc"[i]);
            return 1;
        }
    }
    if (a->nb != b->mb || a->mb != c->mb || b->nb != c->nb) {
        lc_mm_why(why, len,
                  "blocks must line up: desca.nb=%lld vs descb.mb=%lld, "
                  "desca.mb=%lld vs descc.mb=%lld, descb.nb=%lld vs descc.nb=%lld",
                  (long long)a->nb, (long long)b->mb, (long long)a->mb, (long long)c->mb,
                  (long long)b->nb, (long long)c->nb);
        return 1;
    }
    return 0;
}

lincoll_status_t lc_mm_cannon_layer(lc_plan_t *p, const lc_mm_t *mm, int layer, int round0, int t0,
                                    int nsteps, const lc_mm_region_t *Aown,
                                    const lc_mm_region_t *Bown, const lc_mm_region_t *C,
                                    double beta, int *round_end)
{
    const int q = mm->dc.pr, i = mm->pi, j = mm->pj;
    const size_t es = mm->es;
    const lincoll_layout_t L = mm->dc.layout;
    const int64_t kb = mm->da.nb, mloc = C->rows, nloc = C->cols;
    const int base = layer * q * q;
#define KL(_l)       lc_mm_numroc(mm->k, kb, (_l), 0, q)
#define RANK(_i, _j) (base + ((((_i) % q) + q) % q) * q + ((((_j) % q) + q) % q))
    int64_t maxk = 0;
    for (int l = 0; l < q; l++)
        maxk = KL(l) > maxk ? KL(l) : maxk;
    size_t asz = (size_t)(mloc * maxk) * es, bsz = (size_t)(maxk * nloc) * es;
    int ab[2] = {-1, -1}, bb[2] = {-1, -1};
    for (int x = 0; x < 2 && q > 1; x++) { /* q = 1: no skew, no shift, no buffer */
        ab[x] = lc_plan_slot_scratch(p, asz ? asz : 1);
        bb[x] = lc_plan_slot_scratch(p, bsz ? bsz : 1);
    }
    lincoll_status_t st = lc_mm_round(p, round0 + (nsteps > 1 ? nsteps - 1 : 0));
    if (st != LINCOLL_OK) return st;
        /* tight block regions in buffer x holding A(i, l) / B(l, j) */
#define ABLK(_x, _l) lc_mm_tight(L, ab[_x], mloc, KL(_l), Aown->t)
#define BBLK(_x, _l) lc_mm_tight(L, bb[_x], KL(_l), nloc, Bown->t)
    /* skew: own A(i,j) goes to (i, j - i - t0), own B(i,j) to (i - j - t0, j) */
    const int l0 = ((i + j + t0) % q + q) % q;
    lc_mm_region_t ca = *Aown, cb = *Bown;
    if (l0 != j) {
        lc_mm_region_t src = *Aown;
        if (!lc_mm_contig(L, &src)) {
            src = ABLK(1, j);
            LC_MM_TRY(st, lc_mm_copy(p, round0, 0, L, &src, Aown, es));
        }
        ca = ABLK(0, l0);
        size_t sb = (size_t)(src.rows * src.cols) * es, rb = (size_t)(ca.rows * ca.cols) * es;
        if (rb) LC_MM_TRY(st, lc_plan_recv(p, round0, RANK(i, l0), lc_ref(ca.slot, 0), rb));
        if (sb)
            LC_MM_TRY(st,
                      lc_plan_send(p, round0, RANK(i, j - i - t0), lc_ref(src.slot, src.off), sb));
    } else if (!lc_mm_contig(L, &ca) && nsteps > 1) {
        ca = ABLK(0, l0);
        LC_MM_TRY(st, lc_mm_copy(p, round0, 0, L, &ca, Aown, es));
    }
    if (l0 != i) {
        lc_mm_region_t src = *Bown;
        if (!lc_mm_contig(L, &src)) {
            src = BBLK(1, i);
            LC_MM_TRY(st, lc_mm_copy(p, round0, 0, L, &src, Bown, es));
        }
        cb = BBLK(0, l0);
        size_t sb = (size_t)(src.rows * src.cols) * es, rb = (size_t)(cb.rows * cb.cols) * es;
        if (rb) LC_MM_TRY(st, lc_plan_recv(p, round0, RANK(l0, j), lc_ref(cb.slot, 0), rb));
        if (sb)
            LC_MM_TRY(st,
                      lc_plan_send(p, round0, RANK(i - j - t0, j), lc_ref(src.slot, src.off), sb));
    } else if (!lc_mm_contig(L, &cb) && nsteps > 1) {
        cb = BBLK(0, l0);
        LC_MM_TRY(st, lc_mm_copy(p, round0, 0, L, &cb, Bown, es));
    }
    /* step s multiplies A(i,l) B(l,j), l = l0 + s; round round0 + s + 1 shifts to s + 1 */
    for (int s = 0; s < nsteps && st == LINCOLL_OK; s++) {
        const int l = (l0 + s) % q, ln = (l + 1) % q;
        const int round = s + 1 < nsteps ? round0 + s + 1 : round0 + (s > 0 ? s : 0);
        lc_mm_region_t na = ca, nb = cb;
        if (s + 1 < nsteps) {
            na = ABLK((s + 1) % 2, ln);
            nb = BBLK((s + 1) % 2, ln);
            size_t as = (size_t)(mloc * KL(l)) * es, ar = (size_t)(mloc * KL(ln)) * es;
            size_t bs = (size_t)(KL(l) * nloc) * es, br = (size_t)(KL(ln) * nloc) * es;
            if (ar) LC_MM_TRY(st, lc_plan_recv(p, round, RANK(i, j + 1), lc_ref(na.slot, 0), ar));
            if (br) LC_MM_TRY(st, lc_plan_recv(p, round, RANK(i + 1, j), lc_ref(nb.slot, 0), br));
            if (as)
                LC_MM_TRY(st, lc_plan_send(p, round, RANK(i, j - 1), lc_ref(ca.slot, ca.off), as));
            if (bs)
                LC_MM_TRY(st, lc_plan_send(p, round, RANK(i - 1, j), lc_ref(cb.slot, cb.off), bs));
        }
        /* multiply the current blocks while they are shifted on and the next
         * ones arrive in the other buffers; the last step's blocks arrived in
         * this very round, so its GEMM runs after the round */
        LC_MM_TRY(st, lc_mm_gemm(p, mm, round, s + 1 < nsteps ? LC_STEP_DURING : LC_STEP_POST, mloc,
                                 nloc, KL(l), s == 0 ? beta : 1.0, &ca, &cb, C));
        ca = na;
        cb = nb;
    }
    if (round_end) *round_end = round0 + (nsteps > 1 ? nsteps - 1 : 0);
#undef KL
#undef RANK
#undef ABLK
#undef BBLK
    return st;
}

lincoll_status_t lc_mm_cannon_build(lc_plan_t *p, const lc_mm_t *mm)
{
    lc_mm_region_t A = lc_mm_user(p, mm, &mm->da, mm->a, mm->ta);
    lc_mm_region_t B = lc_mm_user(p, mm, &mm->db, mm->b, mm->tb);
    lc_mm_region_t C = lc_mm_user(p, mm, &mm->dc, mm->c, 0);
    if (A.slot < 0 || B.slot < 0 || C.slot < 0) return LINCOLL_ERR_NOMEM;
    return lc_mm_cannon_layer(p, mm, 0, 0, 0, mm->dc.pr, &A, &B, &C, mm->beta, NULL);
}

/* The closed form of the file comment: predicted seconds, scratch bytes. */
static double lc_mm_cannon_cost(const lc_env_t *env, const lc_mm_t *mm)
{
    const double al = env->cfg->model_alpha, be = (double)mm->es / env->cfg->model_bw;
    const double m = (double)mm->m, n = (double)mm->n, k = (double)mm->k, q = mm->dc.pr;
    return q * al + (m * k + k * n) / (q * q) * q * be;
}

static double lc_mm_cannon_memory(const lc_env_t *env, const lc_mm_t *mm)
{
    (void)env;
    const double m = (double)mm->m, n = (double)mm->n, k = (double)mm->k, q = mm->dc.pr;
    return 2 * (m * k + k * n) / (q * q) * (double)mm->es;
}

static int lc_mm_cannon_applies(const lc_env_t *env, const lc_mm_t *mm)
{
    return !lc_mm_cannon_why_not(env, mm, NULL, 0);
}

const lc_mm_alg_t lc_mm_alg_cannon = {.name = "cannon",
                                      .applies = lc_mm_cannon_applies,
                                      .cost = lc_mm_cannon_cost,
                                      .compile = lc_mm_cannon_build,
                                      .algo = LINCOLL_MATMUL_CANNON,
                                      .why_not = lc_mm_cannon_why_not,
                                      .memory = lc_mm_cannon_memory};
