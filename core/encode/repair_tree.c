/*
 * core/encode/repair_tree.c: repair on the k survivors, tree schedule
 * (partial-parallel repair): each survivor scales its chunk by its decoding
 * coefficient and the partial sums are added up a (p+1)-nomial tree rooted
 * at the rebuilding rank.
 *
 * What: nodes v = 0 .. V-1, V = u + 1: v = 0 is the root (the target that is
 * also a source, else the lowest target rank), v = 1 .. u the other sources
 * (u = k, or k - 1 when the root is a source), in rank order.  With
 * P = p + 1, node v > 0 whose lowest non-zero base-P digit is d at position
 * t sends in round t to v - d P^t; it first receives, in rounds t' < t (the
 * root: t' < L), from its children v + rho P^t' (rho = 1 .. p, < V).  A node
 * folds its own term R[.][s] x_s and its children's vectors with one GF
 * lincomb per partial after its last receive (a leaf: before its send).
 * With r > 1 targets every message carries the r partials (a vector of
 * coefficients); the root keeps the first and sends the others to the
 * other targets in ceil((r - 1) / p) more rounds.
 * Reference: S. Mitra, R. Panta, M.-R. Ra, S. Bagchi, "Partial-parallel-
 * repair (PPR): a distributed technique for repairing erasure coded
 * storage", EuroSys '16 (binary tree, p = 1: ceil(log2(k + 1)) rounds).
 * Cost (m = chunk bytes, L = ceil(log_P V)):
 *   rounds = L + ceil((r - 1) / p);
 *   time = L (alpha + r m beta + (p + 1) r m gamma) + ceil((r - 1) / p)(alpha + m beta);
 *   messages u + r - 1, bytes u r m + (r - 1) m; the root receives one vector
 *   per child (at most p L).  Cut into n round-major chunks as star.
 * Restrictions: none beyond the init's.  Scratch: r chunks per child and r
 * for the node's own partial sums.
 */
#include <stdlib.h>

#include "core/encode/repair_int.h"

/* position and value of the lowest non-zero base-P digit of v > 0 */
static void lc_rep_tree_low(int v, int P, int *t, int *d, long *w)
{
    long pw = 1;
    int pos = 0;
    while ((v / pw) % P == 0) {
        pw *= P;
        pos++;
    }
    *t = pos;
    *d = (int)((v / pw) % P);
    *w = pw;
}

/* children of v (in round order), count returned; rounds in rnd[] */
static int lc_rep_tree_children(int v, int V, int P, int L, int *ch, int *rnd)
{
    int top = L, n = 0;
    if (v > 0) {
        int d;
        long w;
        lc_rep_tree_low(v, P, &top, &d, &w);
    }
    long pw = 1;
    for (int t = 0; t < top; t++, pw *= P) {
        for (int rho = 1; rho < P; rho++) {
            long c = v + rho * pw;
            if (c >= V) break;
            if (ch) ch[n] = (int)c;
            if (rnd) rnd[n] = t;
            n++;
        }
    }
    return n;
}

static void lc_rep_tree_figures(const lc_env_t *env, const lc_rep_args_t *a,
                                lincoll_repair_cost_t *c)
{
    const lc_config_t *cfg = env->cfg;
    const lc_rep_shape_t *s = &a->shape;
    const int P = s->p + 1, u = s->k - s->both, V = u + 1, L = lc_enc_ceil_log(V, P);
    const uint64_t B = s->B, r = (uint64_t)s->r;
    const int fan = (s->r - 1 + s->p - 1) / s->p;
    const int ch0 = lc_rep_tree_children(0, V, P, L, NULL, NULL);
    c->msgs_total = (uint64_t)u + r - 1;
    c->bytes_total = (uint64_t)u * r * B + (r - 1) * B;
    /* a source sends one vector of r chunks, the root r - 1 chunks; the root
     * receives a vector from each of its children (the most of any node),
     * another target one chunk */
    const uint64_t sv = u >= 1 ? 1 : 0, fr = r > 1 ? 1 : 0;
    c->max_msgs_sent = sv > r - 1 ? sv : r - 1;
    c->max_bytes_sent = sv * r * B > (r - 1) * B ? sv * r * B : (r - 1) * B;
    c->max_msgs_recvd = (uint64_t)ch0 > fr ? (uint64_t)ch0 : fr;
    c->max_bytes_recvd = (uint64_t)ch0 * r * B > fr * B ? (uint64_t)ch0 * r * B : fr * B;
    /* per round: a vector of r chunks (the root's fan-out rounds: one chunk;
     * counted as r here, an upper bound), folds of (p + 1) r chunks */
    lc_rep_cost_chunked(cfg, s, (unsigned)(L + fan), (double)(r * B),
                        (double)L * P * (double)(r * B), c);
}

static double lc_rep_tree_cost(const lc_env_t *env, const lc_rep_args_t *a)
{
    return lc_rep_seconds(lc_rep_tree_figures, env, a);
}

static lincoll_status_t lc_rep_tree_build(lc_enc_b_t *b, const lc_rep_args_t *a)
{
    const lc_rep_t *rp = &a->rep;
    const lc_bufref_t in = a->in, out = a->out;
    const int k = rp->k, r = rp->r, p = b->p, P = p + 1;
    const int u = k - (rp->both >= 0), V = u + 1, L = lc_enc_ceil_log(V, P);
    const size_t B = b->B;
    /* targets in tree order: the root first; nodes: root, then the other sources */
    int *tord = malloc(sizeof(int) * (size_t)r), *node = malloc(sizeof(int) * (size_t)V);
    int *nsrc = malloc(sizeof(int) * (size_t)V); /* node -> source index (-1: none) */
    int *ch = malloc(sizeof(int) * (size_t)V), *chr = malloc(sizeof(int) * (size_t)V);
    lc_bufref_t *srcs = malloc(sizeof(*srcs) * (size_t)(V + 1));
    uint64_t *row = malloc(sizeof(uint64_t) * (size_t)(V + 1));
    lincoll_status_t st =
        tord && node && nsrc && ch && chr && srcs && row ? LINCOLL_OK : LINCOLL_ERR_NOMEM;
    if (st == LINCOLL_OK) {
        int root = 0;
        for (int j = 0; j < r; j++)
            if (rp->tgt[j] == rp->both) root = j;
        tord[0] = root;
        for (int j = 0, n = 1; j < r; j++)
            if (j != root) tord[n++] = j;
        node[0] = rp->tgt[root];
        nsrc[0] = -1;
        for (int i = 0, v = 1; i < k; i++) {
            if (rp->src[i] == rp->both)
                nsrc[0] = i;
            else
                node[v] = rp->src[i], nsrc[v++] = i;
        }
    }
    const int fan = (r - 1 + p - 1) / p;
    if (st == LINCOLL_OK && lc_enc_round(b, L + fan > 0 ? L + fan - 1 : 0) < 0)
        st = LINCOLL_ERR_NOMEM;
    int me = -1;
    for (int v = 0; st == LINCOLL_OK && v < V; v++)
        if (node[v] == rp->me) me = v;
    if (st == LINCOLL_OK && me >= 0) {
        /* children's vectors, then the fold into this node's r partials */
        const int nch = lc_rep_tree_children(me, V, P, L, ch, chr);
        int cs = nch > 0 ? lc_enc_scratch(b, (size_t)nch * (size_t)r) : -1;
        int acc = me > 0 || r > 1 ? lc_enc_scratch(b, (size_t)r) : -1;
        if ((nch > 0 && cs < 0) || ((me > 0 || r > 1) && acc < 0)) st = LINCOLL_ERR_NOMEM;
        int last = 0;
        for (int c = 0; st == LINCOLL_OK && c < nch; c++) {
            st = lc_plan_recv(b->plan, chr[c], node[ch[c]], lc_ref(cs, (size_t)c * r * B),
                              (size_t)r * B);
            last = chr[c] > last ? chr[c] : last;
        }
        int ts = 0, d = 0;
        long w = 1;
        if (me > 0) lc_rep_tree_low(me, P, &ts, &d, &w);
        const int fold_round = nch > 0 ? last : ts;
        const int when = nch > 0 ? LC_STEP_POST : LC_STEP_PRE;
        for (int t = 0; st == LINCOLL_OK && t < r; t++) {
            /* partial t: the own term and the children's partial t */
            int n = 0;
            if (nsrc[me] >= 0) {
                row[n] = rp->R[(size_t)tord[t] * (size_t)k + (size_t)nsrc[me]];
                srcs[n++] = in;
            }
            for (int c = 0; c < nch; c++) {
                row[n] = 1;
                srcs[n++] = lc_ref(cs, ((size_t)c * r + (size_t)t) * B);
            }
            lc_bufref_t dst =
                me == 0 && t == 0 ? out : lc_ref(acc, (size_t)(me == 0 ? t - 1 : t) * B);
            if (n > 0) st = lc_enc_lincomb(b, fold_round, when, n, srcs, 1, &dst, row);
        }
        if (st == LINCOLL_OK && me > 0)
            st = lc_plan_send(b->plan, ts, node[me - d * w], lc_ref(acc, 0), (size_t)r * B);
        /* the root hands the other targets their rows */
        for (int t = 1; st == LINCOLL_OK && me == 0 && t < r; t++)
            st = lc_plan_send(b->plan, L + (t - 1) / p, rp->tgt[tord[t]],
                              lc_ref(acc, (size_t)(t - 1) * B), B);
    }
    /* a target that is not the root receives its row from the root */
    for (int t = 1; st == LINCOLL_OK && t < r; t++)
        if (rp->tgt[tord[t]] == rp->me)
            st = lc_plan_recv(b->plan, L + (t - 1) / p, node[0], out, B);
    free(tord);
    free(node);
    free(nsrc);
    free(ch);
    free(chr);
    free(srcs);
    free(row);
    return st;
}

const lc_rep_alg_t lc_rep_alg_tree = {.name = "tree",
                                      .cost = lc_rep_tree_cost,
                                      .compile = lc_rep_tree_build,
                                      .plan_name = "repair_tree",
                                      .algo = LINCOLL_REPAIR_ALGO_TREE,
                                      .figures = lc_rep_tree_figures};
