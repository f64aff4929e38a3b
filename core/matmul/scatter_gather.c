/*
 * core/matmul/scatter_gather.c: a global matrix on one rank to and from its
 * block-cyclic distribution (lincoll_matrix_scatter_init,
 * lincoll_matrix_gather_init).
 *
 * What: the root packs every other rank's blocks of the global matrix into
 * one contiguous message (its own blocks are copied locally) and sends the
 * P - 1 messages p at a time (gather: receives them and unpacks); a rank
 * whose local array is not contiguous goes through one scratch block.
 * Reference: ScaLAPACK's PxGEMR2D for one source grid of 1 x 1.
 * Cost: ceil((P - 1) / p) rounds at the root; (P - 1)/P m n es bytes leave
 * (enter) the root: ceil((P-1)/p) alpha + (P-1)/P m n es beta.
 * Restrictions: one layer (2.5D replicas are not scattered); the root holds
 * the whole matrix.
 */
#include "core/matmul/mm_int.h"

/* Copy every block rank (row, col) owns between the global matrix G and a
 * local array Lr (direction: to_local). */
static lincoll_status_t lc_mm_blocks(lc_plan_t *p, int round, int post, const lincoll_matdesc_t *d,
                                     int row, int col, const lc_mm_region_t *G,
                                     const lc_mm_region_t *Lr, size_t es, int to_local)
{
    lincoll_status_t st = LINCOLL_OK;
    for (int64_t g0 = (int64_t)((row - d->rsrc + d->pr) % d->pr) * d->mb; g0 < d->m && st == 0;
         g0 += d->mb * d->pr) {
        int64_t h = d->m - g0 < d->mb ? d->m - g0 : d->mb, l0 = lc_mm_g2l(g0, d->mb, d->pr);
        for (int64_t c0 = (int64_t)((col - d->csrc + d->pc) % d->pc) * d->nb; c0 < d->n && st == 0;
             c0 += d->nb * d->pc) {
            int64_t w = d->n - c0 < d->nb ? d->n - c0 : d->nb, k0 = lc_mm_g2l(c0, d->nb, d->pc);
            lc_mm_region_t gs = lc_mm_sub(d->layout, G, g0, c0, h, w, es);
            lc_mm_region_t ls = lc_mm_sub(d->layout, Lr, l0, k0, h, w, es);
            st = to_local ? lc_mm_copy(p, round, post, d->layout, &ls, &gs, es)
                          : lc_mm_copy(p, round, post, d->layout, &gs, &ls, es);
        }
    }
    return st;
}

lincoll_status_t lc_mm_scatter_gather_build(lc_plan_t *p, int root, void *global, int64_t ldg,
                                            size_t es, const lincoll_matdesc_t *d, void *local,
                                            int gather)
{
    lincoll_status_t st = LINCOLL_OK;
    const int me = p->env.rank, P2 = d->pr * d->pc;
    int64_t gtight = d->layout == LINCOLL_ROW_MAJOR ? d->n : d->m;
    p->elem_size = es;
    lc_mm_t mm = {.env = p->env, .es = es, .me = me, .P = p->env.P};
    lc_mm_desc_coords(d, me, &mm.pi, &mm.pj, &mm.pl);
    lc_mm_region_t Lr = lc_mm_user(p, &mm, d, local, 0);
    const int ports = p->ports;
    if (me == root) {
        lc_mm_region_t G = {-1, 0, ldg, d->m, d->n, 0};
        size_t gsize =
            d->m > 0 && d->n > 0
                ? (size_t)(((d->layout == LINCOLL_ROW_MAJOR ? d->m : d->n) - 1) * ldg + gtight) * es
                : 0;
        G.slot = lc_plan_slot_user(p, gsize ? global : NULL, gsize);
        size_t total = 0;
        for (int q = 0; q < P2; q++) {
            int64_t r, c;
            lc_mm_desc_local(d, q, &r, &c, NULL);
            total += q == root ? 0 : (size_t)(r * c) * es;
        }
        int buf = lc_plan_slot_scratch(p, total);
        int nround = (P2 - (root < P2 ? 1 : 0) + ports - 1) / ports;
        for (int i = 0; i < nround; i++)
            lc_plan_round(p);
        if (nround == 0) lc_plan_round(p);
        size_t off = 0;
        int idx = 0;
        for (int q = 0; q < P2 && st == LINCOLL_OK; q++) {
            int qi, qj;
            lc_mm_desc_coords(d, q, &qi, &qj, NULL);
            if (q == root) {
                st = lc_mm_blocks(p, 0, gather, d, qi, qj, &G, &Lr, es, !gather);
                continue;
            }
            int rnd = idx++ / ports;
            lc_mm_region_t Q = lc_mm_local(d, buf, qi, qj, 0);
            Q.off = off;
            size_t bytes = (size_t)(Q.rows * Q.cols) * es;
            off += bytes;
            if (bytes == 0) continue;
            if (gather) {
                LC_MM_TRY(st, lc_plan_recv(p, rnd, q, lc_ref(buf, Q.off), bytes));
                LC_MM_TRY(st, lc_mm_blocks(p, rnd, 1, d, qi, qj, &G, &Q, es, 0));
            } else {
                LC_MM_TRY(st, lc_mm_blocks(p, rnd, 0, d, qi, qj, &G, &Q, es, 1));
                LC_MM_TRY(st, lc_plan_send(p, rnd, q, lc_ref(buf, Q.off), bytes));
            }
        }
    } else if (me < P2 && Lr.rows > 0 && Lr.cols > 0) {
        int idx = me < root ? me : me - 1;
        if (root >= P2) idx = me;
        int rnd = idx / ports;
        for (int i = 0; i <= rnd; i++)
            lc_plan_round(p);
        size_t bytes = (size_t)(Lr.rows * Lr.cols) * es;
        if (lc_mm_contig(d->layout, &Lr)) {
            st = gather ? lc_plan_send(p, rnd, root, lc_ref(Lr.slot, 0), bytes)
                        : lc_plan_recv(p, rnd, root, lc_ref(Lr.slot, 0), bytes);
        } else {
            lc_mm_region_t T = lc_mm_local(d, lc_plan_slot_scratch(p, bytes), mm.pi, mm.pj, 0);
            if (gather) {
                LC_MM_TRY(st, lc_mm_copy(p, rnd, 0, d->layout, &T, &Lr, es));
                LC_MM_TRY(st, lc_plan_send(p, rnd, root, lc_ref(T.slot, 0), bytes));
            } else {
                LC_MM_TRY(st, lc_plan_recv(p, rnd, root, lc_ref(T.slot, 0), bytes));
                LC_MM_TRY(st, lc_mm_copy(p, rnd, 1, d->layout, &Lr, &T, es));
            }
        }
    }
    return st;
}
