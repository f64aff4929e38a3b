/*
 * core/matmul/summa.c: SUMMA on any Pr x Pc grid, any m, n, k.
 *
 * A (m x k), B (k x n), C (m x n) are block-cyclic on one Pr x Pc grid; A and
 * C share the row distribution, B and C the column distribution; A's column
 * blocks (NB_A) and B's row blocks (MB_B) may differ.  k is cut into panels of
 * width at most s that never cross a block boundary of either.  For panel t
 * the owner column of A(:, panel) broadcasts its mloc x w slice along every
 * grid row, the owner row of B(panel, :) broadcasts its w x nloc slice along
 * every grid column, and every rank adds A_t B_t into its C block.
 *
 * Broadcasts: binomial tree (ceil(log2 q) rounds per panel; a rank at
 * relative position v receives in round hibit(v) and sends in the rounds
 * after it) or bucket/ring (the panel moves one hop per round and successive
 * panels pipeline around the ring).  A scheduler gives panel t a start round
 * S_t, the smallest one such that on every rank its receives come after
 * those of panel t-1, its sends after those of panel t-1 and its buffer
 * (two per operand, alternating) is no longer used by panel t-2.  The GEMM
 * of panel t runs in the round after both slices are in, as a DURING step:
 * it overlaps the broadcast of panel t+1 (double-buffered panels; its
 * buffers count as in use through that round, so panel t+2 never lands in
 * them early), never before the GEMM of panel t-1; the last panel's GEMM
 * runs after its round (POST).  Words and messages are those of the
 * broadcasts alone, unchanged by the overlap.
 *
 * Reference: van de Geijn & Watts, "SUMMA: scalable universal matrix
 * multiplication algorithm", CPE 9(4), 1997; the seed ("2-d network").
 * Cost (n x n, sqrt P x sqrt P, panel s):
 *   tree:   (n/s).log2(sqrt P).alpha + 2(sqrt P - 1)/sqrt P.n^2/sqrt P.beta + 2n^3/P.gamma
 *   bucket: (n/s + 2 sqrt P).alpha    + the same words               + 2n^3/P.gamma
 * Exact words received by rank (i,j): mloc_i.(k - kA_j) + nloc_j.(k - kB_i);
 * sent (bucket): mloc_i.(k - kA_{j+1}) + nloc_j.(k - kB_{i+1}); sent (tree):
 * sum over owners o of children(j - o).mloc_i.kA_o (+ the B analogue).
 * Memory: 3n^2/P + 4.s.n/sqrt P (two buffers per operand).
 * Transposes: a transposed operand's panels are cut from, sent and received
 * as the stored transpose (w x mloc for A); the GEMM reads them with op = T.
 * Restrictions: one layer.
 */
#include <stdlib.h>
#include <string.h>

#include "core/matmul/mm_int.h"

static int lc_mm_summa_why_not(const lc_env_t *env, const lc_mm_t *mm, char *why, size_t len)
{
    (void)env;
    const lincoll_matdesc_t *a = &mm->da, *b = &mm->db, *c = &mm->dc;
    if (a->layers != 1) {
        lc_mm_why(why, len, "needs one layer, desc has %d", a->layers);
        return 1;
    }
    if (a->mb != c->mb || a->rsrc != c->rsrc || b->nb != c->nb || b->csrc != c->csrc) {
        lc_mm_why(why, len,
                  "desca must share descc's rows (mb %lld/%lld, rsrc %d/%d) "
                  "and descb descc's columns (nb %lld/%lld, csrc %d/%d)",
                  (long long)a->mb, (long long)c->mb, a->rsrc, c->rsrc, (long long)b->nb,
                  (long long)c->nb, b->csrc, c->csrc);
        return 1;
    }
    return 0;
}

int64_t lc_mm_summa_default_panel(const lc_mm_t *mm)
{
    /* GEMM efficiency wants s >= kc (256); the per-panel latency alpha.log q
     * should stay below 1% of the panel's 2.mloc.nloc.s flops at ~50 GFLOP/s;
     * memory: the four panel buffers should not exceed the local C block. */
    const lincoll_matdesc_t *c = &mm->dc;
    double mloc = (double)(c->m + c->pr - 1) / c->pr, nloc = (double)(c->n + c->pc - 1) / c->pc;
    double alpha = mm->env.cfg->model_alpha, rate = 5e10;
    int64_t s = 256;
    if (mloc * nloc > 0) {
        double s_lat =
            100.0 * alpha * lc_mm_hibit(c->pr > c->pc ? c->pr : c->pc) * rate / (2.0 * mloc * nloc);
        if (s_lat > (double)s) s = (int64_t)s_lat;
        double s_mem = mloc * nloc / (4.0 * (mloc + nloc));
        if ((double)s > s_mem && s_mem > 256) s = (int64_t)s_mem;
    }
    if (s > mm->k) s = mm->k;
    return s > 0 ? s : 1;
}

/* Rounds one rank uses for one panel along one grid dimension of q ranks. */
typedef struct {
    int recv;  /* offset of the receive, -1 for the root */
    int nsend; /* sends at offsets send[0..nsend) */
    int send[32];
    int to[32]; /* relative position of each child */
} lc_mm_bc_t;

static void lc_mm_bc(int v, int q, int tree, lc_mm_bc_t *b)
{
    b->nsend = 0;
    if (tree) {
        b->recv = v == 0 ? -1 : lc_mm_hibit(v);
        for (int t = v == 0 ? 0 : lc_mm_hibit(v) + 1; t < 31 && (1 << t) < q; t++) {
            if (v + (1 << t) < q) {
                b->send[b->nsend] = t;
                b->to[b->nsend++] = v + (1 << t);
            }
        }
    } else {
        b->recv = v == 0 ? -1 : v - 1;
        if (v + 1 < q) {
            b->send[0] = v;
            b->to[0] = v + 1;
            b->nsend = 1;
        }
    }
}

/* Per-rank, per-dimension scheduling state. */
typedef struct {
    int last_recv, last_send;
    int end[2]; /* last round that uses buffer 0 / 1 */
} lc_mm_dim_t;

/* A panel GEMM waiting for its place: round g has both slices. */
typedef struct {
    int have, g;
    int64_t w;
    double beta;
    lc_mm_region_t At, Bt;
} lc_mm_pending_t;

static lincoll_status_t lc_mm_summa_flush(lc_plan_t *p, const lc_mm_t *mm, lc_mm_pending_t *x,
                                          const lc_mm_region_t *C, int when)
{
    if (!x->have) return LINCOLL_OK;
    x->have = 0;
    int round = when == LC_STEP_DURING ? x->g + 1 : x->g;
    lincoll_status_t st = lc_mm_round(p, round);
    LC_MM_TRY(st,
              lc_mm_gemm(p, mm, round, when, C->rows, C->cols, x->w, x->beta, &x->At, &x->Bt, C));
    return st;
}

lincoll_status_t lc_mm_summa_build(lc_plan_t *p, const lc_mm_t *mm)
{
    const lincoll_matdesc_t *da = &mm->da, *db = &mm->db;
    const lincoll_layout_t L = mm->dc.layout;
    const int pr = mm->dc.pr, pc = mm->dc.pc, P = pr * pc;
    const size_t es = mm->es;
    lc_mm_priv_t *pv = p->priv;
    int64_t s = mm->opts.panel > 0 ? mm->opts.panel : lc_mm_summa_default_panel(mm);
    if (pr == 1 && pc == 1 && mm->opts.panel <= 0) s = mm->k > 0 ? mm->k : 1;
    int tree = mm->opts.bcast == LINCOLL_MATMUL_BCAST_TREE;
    if (mm->opts.bcast == LINCOLL_MATMUL_BCAST_AUTO) {
        int q = pr > pc ? pr : pc;
        double npan = (double)(mm->k + s - 1) / (double)s;
        tree = npan * (lc_mm_hibit(q - 1) + 1) <= npan + 2.0 * (q - 1);
    }
    pv->info.panel = s;
    pv->info.bcast = tree ? LINCOLL_MATMUL_BCAST_TREE : LINCOLL_MATMUL_BCAST_RING;
    lc_mm_region_t A = lc_mm_user(p, mm, da, mm->a, mm->ta);
    lc_mm_region_t B = lc_mm_user(p, mm, db, mm->b, mm->tb);
    lc_mm_region_t C = lc_mm_user(p, mm, &mm->dc, mm->c, 0);
    if (A.slot < 0 || B.slot < 0 || C.slot < 0) return LINCOLL_ERR_NOMEM;
    const int64_t mloc = C.rows, nloc = C.cols;
    int abuf[2] = {-1, -1}, bbuf[2] = {-1, -1};
    for (int i = 0; i < 2; i++) {
        size_t asz = (size_t)(mloc * s) * es, bsz = (size_t)(nloc * s) * es;
        if (pc > 1 || !lc_mm_contig(L, &A)) abuf[i] = lc_plan_slot_scratch(p, asz ? asz : 1);
        if (pr > 1 || !lc_mm_contig(L, &B)) bbuf[i] = lc_plan_slot_scratch(p, bsz ? bsz : 1);
    }
    lc_mm_dim_t *sa = malloc(sizeof(*sa) * (size_t)P), *sb = malloc(sizeof(*sb) * (size_t)P);
    int *gem = malloc(sizeof(int) * (size_t)P);
    if (sa == NULL || sb == NULL || gem == NULL) {
        free(sa), free(sb), free(gem);
        return LINCOLL_ERR_NOMEM;
    }
    for (int r = 0; r < P; r++) {
        sa[r] = sb[r] = (lc_mm_dim_t){-1, -1, {-1, -1}};
        gem[r] = -1;
    }
    lincoll_status_t st = lc_mm_round(p, 0);
    lc_mm_pending_t pend = {0, 0, 0, 0, A, B};
    int S = -1, t = 0;
    for (int64_t kk = 0; kk < mm->k && st == LINCOLL_OK; t++) {
        int64_t w = s;
        if (da->nb - kk % da->nb < w) w = da->nb - kk % da->nb;
        if (db->mb - kk % db->mb < w) w = db->mb - kk % db->mb;
        if (mm->k - kk < w) w = mm->k - kk;
        const int rc = lc_mm_owner(kk, da->nb, da->csrc, pc);
        const int rr = lc_mm_owner(kk, db->mb, db->rsrc, pr);
        const int64_t la = lc_mm_g2l(kk, da->nb, pc), lb = lc_mm_g2l(kk, db->mb, pr);
        const int bi = t % 2;
        /* start round: the smallest S that keeps every rank's order and buffers */
        int S0 = S + 1;
        for (int d = 0; d < 2; d++) {
            int q = d == 0 ? pc : pr, root = d == 0 ? rc : rr;
            if (q == 1) continue;
            for (int pos = 0; pos < q; pos++) {
                lc_mm_bc_t bc;
                lc_mm_bc((pos - root + q) % q, q, tree, &bc);
                for (int o = 0; o < (d == 0 ? pr : pc); o++) {
                    int r = d == 0 ? o * pc + pos : pos * pc + o;
                    lc_mm_dim_t *x = d == 0 ? &sa[r] : &sb[r];
                    int first = bc.recv >= 0 ? bc.recv : 0;
                    if (bc.recv >= 0 && x->last_recv - bc.recv + 1 > S0)
                        S0 = x->last_recv - bc.recv + 1;
                    if (bc.nsend > 0 && x->last_send - bc.send[0] + 1 > S0)
                        S0 = x->last_send - bc.send[0] + 1;
                    if (x->end[bi] - first + 1 > S0) S0 = x->end[bi] - first + 1;
                }
            }
        }
        S = S0;
        /* commit the schedule of every rank; emit my own operations */
        for (int r = 0; r < P; r++) {
            int ri = r / pc, rj = r % pc, g = S;
            lc_mm_bc_t ba = {-1, 0, {0}, {0}}, bb = {-1, 0, {0}, {0}};
            if (pc > 1) lc_mm_bc((rj - rc + pc) % pc, pc, tree, &ba);
            if (pr > 1) lc_mm_bc((ri - rr + pr) % pr, pr, tree, &bb);
            if (ba.recv >= 0 && S + ba.recv > g) g = S + ba.recv;
            if (bb.recv >= 0 && S + bb.recv > g) g = S + bb.recv;
            if (gem[r] > g) g = gem[r];
            gem[r] = g;
            if (ba.recv >= 0) sa[r].last_recv = S + ba.recv;
            if (ba.nsend > 0) sa[r].last_send = S + ba.send[ba.nsend - 1];
            if (bb.recv >= 0) sb[r].last_recv = S + bb.recv;
            if (bb.nsend > 0) sb[r].last_send = S + bb.send[bb.nsend - 1];
            /* the GEMM of this panel runs during round g + 1 (overlap) */
            sa[r].end[bi] = g + 1 > sa[r].last_send ? g + 1 : sa[r].last_send;
            sb[r].end[bi] = g + 1 > sb[r].last_send ? g + 1 : sb[r].last_send;
            if (r != mm->me) continue;
            int need = g;
            if (ba.nsend > 0 && S + ba.send[ba.nsend - 1] > need) need = S + ba.send[ba.nsend - 1];
            if (bb.nsend > 0 && S + bb.send[bb.nsend - 1] > need) need = S + bb.send[bb.nsend - 1];
            st = lc_mm_round(p, need);
            /* A slice: mloc x w */
            lc_mm_region_t At = lc_mm_sub(L, &A, 0, la, mloc, w, es);
            lc_mm_region_t Ab = lc_mm_tight(L, abuf[bi], mloc, w, mm->ta);
            size_t abytes = (size_t)(mloc * w) * es;
            if (pc > 1) {
                if (ba.recv < 0 && !lc_mm_contig(L, &At)) {
                    LC_MM_TRY(st, lc_mm_copy(p, S, 0, L, &Ab, &At, es));
                    At = Ab;
                } else if (ba.recv >= 0) {
                    At = Ab;
                    int v = (rj - rc + pc) % pc, par = v - (tree ? (1 << ba.recv) : 1);
                    if (abytes > 0)
                        LC_MM_TRY(st, lc_plan_recv(p, S + ba.recv, ri * pc + (rc + par) % pc,
                                                   lc_ref(Ab.slot, 0), abytes));
                }
                for (int x = 0; x < ba.nsend && abytes > 0; x++) {
                    int dst = ri * pc + (rc + ba.to[x]) % pc;
                    LC_MM_TRY(
                        st, lc_plan_send(p, S + ba.send[x], dst, lc_ref(At.slot, At.off), abytes));
                }
            }
            /* B slice: w x nloc */
            lc_mm_region_t Bt = lc_mm_sub(L, &B, lb, 0, w, nloc, es);
            lc_mm_region_t Bb = lc_mm_tight(L, bbuf[bi], w, nloc, mm->tb);
            size_t bbytes = (size_t)(w * nloc) * es;
            if (pr > 1) {
                if (bb.recv < 0 && !lc_mm_contig(L, &Bt)) {
                    LC_MM_TRY(st, lc_mm_copy(p, S, 0, L, &Bb, &Bt, es));
                    Bt = Bb;
                } else if (bb.recv >= 0) {
                    Bt = Bb;
                    int v = (ri - rr + pr) % pr, par = v - (tree ? (1 << bb.recv) : 1);
                    if (bbytes > 0)
                        LC_MM_TRY(st, lc_plan_recv(p, S + bb.recv, ((rr + par) % pr) * pc + rj,
                                                   lc_ref(Bb.slot, 0), bbytes));
                }
                for (int x = 0; x < bb.nsend && bbytes > 0; x++) {
                    int dst = ((rr + bb.to[x]) % pr) * pc + rj;
                    LC_MM_TRY(
                        st, lc_plan_send(p, S + bb.send[x], dst, lc_ref(Bt.slot, Bt.off), bbytes));
                }
            }
            /* the previous panel's GEMM overlaps this one's broadcast: it runs
             * during round (its g) + 1; this one waits for the next panel */
            LC_MM_TRY(st, lc_mm_summa_flush(p, mm, &pend, &C, LC_STEP_DURING));
            pend = (lc_mm_pending_t){1, g, w, t == 0 ? mm->beta : 1.0, At, Bt};
        }
        kk += w;
    }
    /* the last panel's GEMM runs after its round */
    LC_MM_TRY(st, lc_mm_summa_flush(p, mm, &pend, &C, LC_STEP_POST));
    free(sa), free(sb), free(gem);
    if (st == LINCOLL_OK && mm->k == 0) {
        st = lc_mm_gemm(p, mm, 0, 1, mloc, nloc, 0, mm->beta, &A, &B, &C);
    }
    return st;
}

/* The closed form of the file comment: predicted seconds, scratch bytes. */
static double lc_mm_summa_cost(const lc_env_t *env, const lc_mm_t *mm)
{
    const double al = env->cfg->model_alpha, be = (double)mm->es / env->cfg->model_bw;
    const double m = (double)mm->m, n = (double)mm->n, k = (double)mm->k;
    const double pr = mm->dc.pr, pc = mm->dc.pc;
    double s = (double)lc_mm_summa_default_panel(mm), panels = k / s;
    double Q = pr > pc ? pr : pc;
    double tree = panels * (lc_mm_hibit((int)Q - 1) + 1), ring = panels + 2 * (Q - 1);
    return (tree < ring ? tree : ring) * al +
           (m * k * (pc - 1) / (pr * pc) + k * n * (pr - 1) / (pr * pc)) * be;
}

static double lc_mm_summa_memory(const lc_env_t *env, const lc_mm_t *mm)
{
    (void)env;
    const double s = (double)lc_mm_summa_default_panel(mm);
    return 2 * s * ((double)mm->m / mm->dc.pr + (double)mm->n / mm->dc.pc) * (double)mm->es;
}

static int lc_mm_summa_applies(const lc_env_t *env, const lc_mm_t *mm)
{
    return !lc_mm_summa_why_not(env, mm, NULL, 0);
}

const lc_mm_alg_t lc_mm_alg_summa = {.name = "summa",
                                     .applies = lc_mm_summa_applies,
                                     .cost = lc_mm_summa_cost,
                                     .compile = lc_mm_summa_build,
                                     .algo = LINCOLL_MATMUL_SUMMA,
                                     .why_not = lc_mm_summa_why_not,
                                     .memory = lc_mm_summa_memory};
