/*
 * core/encode/repair_star.c: repair on the k survivors, star schedule: every
 * rebuilding rank gathers the k surviving chunks and decodes them locally.
 *
 * What: sources s_0 .. s_{k-1} (the holders, in rank order, the one that
 * also rebuilds last), targets t_0 .. t_{r-1} (likewise).  Source i sends
 * its chunk to target j (unless they are the same rank) in round
 * c(i, j) / p with the colour c(i, j) = (i + j) mod M, M = max(k_e, r_e)
 * (k_e: chunks a target receives at most, r_e: chunks a source sends at
 * most), a proper edge colouring of the bipartite source-target graph, so
 * no rank sends or receives more than p messages per round.  Each target
 * ends with one GF lincomb out = sum_i R[j][i] x_i of what it received and
 * its own chunk.
 * Reference: the conventional repair of erasure-coded storage, as the
 * baseline of Mitra et al., "Partial-parallel-repair (PPR)", EuroSys '16,
 * and of Li et al., "Repair pipelining (ECPipe)", USENIX ATC '17.
 * Cost (m = chunk bytes):
 *   rounds = ceil(M / p);  time = ceil(M / p) (alpha + m beta) + k m gamma
 *   a target's link carries k_e m: k alpha + k m beta for r = 1, p = 1.
 *   messages k r (less one per pair that is one rank), bytes that times m.
 *   Cut into n round-major chunks (the encode's chunk pipelining, the slice
 *   option or the model): n rounds and messages per round, bytes unchanged,
 *   the lincomb of one chunk beside the next chunk's transfers.
 * Restrictions: none beyond the init's (k >= 1, r >= 1).  Scratch: one
 * chunk per received chunk on a target.
 */
#include <stdlib.h>

#include "core/encode/repair_int.h"

/* messages a target receives and a source sends at most */
static void lc_rep_star_degrees(const lc_rep_shape_t *s, int *ke, int *re)
{
    *ke = s->k - (s->both && s->r == 1);
    *re = s->r - (s->both && s->k == 1);
}

static void lc_rep_star_figures(const lc_env_t *env, const lc_rep_args_t *a,
                                lincoll_repair_cost_t *c)
{
    const lc_config_t *cfg = env->cfg;
    const lc_rep_shape_t *s = &a->shape;
    int ke, re;
    lc_rep_star_degrees(s, &ke, &re);
    const int M = ke > re ? ke : re;
    const uint64_t B = s->B, pairs = (uint64_t)s->k * (uint64_t)s->r - (uint64_t)s->both;
    const unsigned R = (unsigned)lc_rep_cdiv((size_t)M, (size_t)s->p);
    c->msgs_total = pairs;
    c->bytes_total = pairs * B;
    c->max_msgs_sent = (uint64_t)re;
    c->max_bytes_sent = (uint64_t)re * B;
    c->max_msgs_recvd = (uint64_t)ke;
    c->max_bytes_recvd = (uint64_t)ke * B;
    lc_rep_cost_chunked(cfg, s, R, (double)B, (double)s->k * (double)B, c);
}

static double lc_rep_star_cost(const lc_env_t *env, const lc_rep_args_t *a)
{
    return lc_rep_seconds(lc_rep_star_figures, env, a);
}

static lincoll_status_t lc_rep_star_build(lc_enc_b_t *b, const lc_rep_args_t *a)
{
    const lc_rep_t *rp = &a->rep;
    const lc_bufref_t in = a->in, out = a->out;
    const int k = rp->k, r = rp->r, p = b->p;
    const lc_rep_shape_t sh = {.k = k, .r = r, .both = rp->both >= 0};
    int ke, re;
    lc_rep_star_degrees(&sh, &ke, &re);
    const int M = ke > re ? ke : re;
    /* orders: the rank that is both a source and a target last in both */
    int *so = malloc(sizeof(int) * (size_t)k), *to = malloc(sizeof(int) * (size_t)r);
    lc_bufref_t *srcs = malloc(sizeof(*srcs) * (size_t)k);
    uint64_t *row = malloc(sizeof(uint64_t) * (size_t)k);
    lincoll_status_t st = so && to && srcs && row ? LINCOLL_OK : LINCOLL_ERR_NOMEM;
    int ns = 0, nt = 0;
    for (int i = 0; st == LINCOLL_OK && i < k; i++)
        if (rp->src[i] != rp->both) so[ns++] = i;
    for (int j = 0; st == LINCOLL_OK && j < r; j++)
        if (rp->tgt[j] != rp->both) to[nt++] = j;
    if (st == LINCOLL_OK && rp->both >= 0) {
        for (int i = 0; i < k; i++)
            if (rp->src[i] == rp->both) so[ns++] = i;
        for (int j = 0; j < r; j++)
            if (rp->tgt[j] == rp->both) to[nt++] = j;
    }
    const int nrounds = M > 0 ? (M + p - 1) / p : 0;
    if (st == LINCOLL_OK && lc_enc_round(b, nrounds > 0 ? nrounds - 1 : 0) < 0)
        st = LINCOLL_ERR_NOMEM;
    /* sources: the chunk to every target */
    for (int i = 0; st == LINCOLL_OK && rp->my_src >= 0 && i < k; i++) {
        if (so[i] != rp->my_src) continue;
        for (int j = 0; st == LINCOLL_OK && j < r; j++) {
            const int t = rp->tgt[to[j]];
            if (t == rp->me) continue;
            st = lc_plan_send(b->plan, ((i + j) % M) / p, t, in, b->B);
        }
    }
    /* targets: every other source's chunk, then one lincomb */
    for (int j = 0; st == LINCOLL_OK && rp->my_tgt >= 0 && j < r; j++) {
        if (to[j] != rp->my_tgt) continue;
        const int nrecv = k - (rp->my_src >= 0);
        int sc = nrecv > 0 ? lc_enc_scratch(b, (size_t)nrecv) : -1, last = 0, n = 0, nr = 0;
        if (nrecv > 0 && sc < 0) st = LINCOLL_ERR_NOMEM;
        for (int i = 0; st == LINCOLL_OK && i < k; i++) {
            const int sidx = so[i], s = rp->src[sidx];
            row[n] = rp->R[(size_t)to[j] * (size_t)k + (size_t)sidx];
            if (s == rp->me) {
                srcs[n++] = in;
                continue;
            }
            const int rd = ((i + j) % M) / p;
            srcs[n] = lc_ref(sc, (size_t)nr++ * b->B);
            st = lc_plan_recv(b->plan, rd, s, srcs[n], b->B);
            n++;
            last = rd > last ? rd : last;
        }
        if (st == LINCOLL_OK)
            st = lc_enc_lincomb(b, last, nrecv > 0 ? LC_STEP_POST : LC_STEP_PRE, n, srcs, 1, &out,
                                row);
    }
    free(so);
    free(to);
    free(srcs);
    free(row);
    return st;
}

const lc_rep_alg_t lc_rep_alg_star = {.name = "star",
                                      .cost = lc_rep_star_cost,
                                      .compile = lc_rep_star_build,
                                      .plan_name = "repair_star",
                                      .algo = LINCOLL_REPAIR_ALGO_STAR,
                                      .figures = lc_rep_star_figures};
