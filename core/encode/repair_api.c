/*
 * core/encode/repair_api.c: repair on the k survivors and the rebuilding
 * ranks only (lincoll_encode_repair_k_init), the registry of its schedules
 * and their selection (lincoll_encode_repair_cost).
 *
 * The init checks the arguments (the same verdict and one log line on every
 * rank, which pass the same arguments), computes the decoding coefficients
 * R = rows `needs` of G x (rows `holds` of G)^-1 (lincoll_gf_matrix_recover,
 * ISA-L's gf_gen_decode_matrix_simple), describes the repair (lc_rep_t,
 * repair_int.h) and compiles one schedule of the registry:
 *   star   core/encode/repair_star.c   gather k chunks, decode;
 *   tree   core/encode/repair_tree.c   PPR, partial sums up a tree;
 *   chain  core/encode/repair_chain.c  ECPipe, pipelined slices.
 * Selection: opts->algo, else LINCOLL_REPAIR_ALGO, else the least closed-form
 * time (ties to star, tree, chain in that order).  The chain is cut into the
 * slices its cost assumed and merged as a wavefront; star and tree take the
 * encode's round-major chunking (lc_enc_end) with the asked slice as chunk.
 * Everything depends only on arguments that match on every rank and on the
 * configuration.
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"
#include "core/encode/encode_api.h"
#include "core/encode/repair_int.h"
#include "core/exec/exec.h"

const char *lincoll_repair_algo_name(lincoll_repair_algo_t algo)
{
    if (algo == LINCOLL_REPAIR_ALGO_AUTO) return "auto";
    size_t n;
    const lc_rep_alg_t *const *reg = lc_rep_registry(&n);
    for (size_t i = 0; i < n; i++)
        if (reg[i]->algo == algo) return reg[i]->name;
    return "unknown";
}

/* opts->algo, else LINCOLL_REPAIR_ALGO (reread at every init) */
static lincoll_status_t lc_rep_requested(const lc_config_t *cfg, const lincoll_repair_opts_t *opts,
                                         lincoll_repair_algo_t *algo_p, size_t *slice_p)
{
    lc_config_t c = *cfg;
    lincoll_status_t st = LINCOLL_OK;
    *algo_p = LINCOLL_REPAIR_ALGO_AUTO;
    if (opts != NULL && opts->algo != LINCOLL_REPAIR_ALGO_AUTO) {
        *algo_p = opts->algo;
    } else {
        st = lc_config_reread_id(LINCOLL_CONFIG_REPAIR_ALGO, &c);
        if (st == LINCOLL_OK) *algo_p = (lincoll_repair_algo_t)c.repair_algo;
    }
    if (opts != NULL && opts->slice_bytes != 0) {
        *slice_p = opts->slice_bytes;
    } else if (st == LINCOLL_OK) {
        st = lc_config_reread_id(LINCOLL_CONFIG_REPAIR_SLICE, &c);
        *slice_p = c.repair_slice;
    }
    return st;
}

/* The schedule to run (algo AUTO: the cheapest applicable one by its cost)
 * and its figures; args->shape gets the asked slice and the schedule's. */
static const lc_rep_alg_t *lc_rep_pick(const lc_env_t *env, lc_rep_args_t *args, size_t asked,
                                       lincoll_repair_algo_t algo, lincoll_repair_cost_t *cost)
{
    const lc_rep_alg_t *best = NULL;
    double bt = 0;
    lc_rep_args_t bs = *args;
    size_t n;
    const lc_rep_alg_t *const *reg = lc_rep_registry(&n);
    for (size_t i = 0; i < n; i++) {
        const lc_rep_alg_t *a = reg[i];
        if (algo != LINCOLL_REPAIR_ALGO_AUTO && algo != a->algo) continue;
        lc_rep_args_t s = *args;
        s.shape.asked = asked;
        s.shape.slice =
            a->sliced ? lc_rep_chain_slice(env->cfg, &args->shape, asked) : args->shape.B;
        if (!LC_ALG_APPLIES(a, env, &s)) continue;
        const double t = a->cost(env, &s);
        if (best == NULL || t < bt) {
            best = a;
            bt = t;
            bs = s;
        }
    }
    *args = bs;
    memset(cost, 0, sizeof(*cost));
    if (best != NULL) best->figures(env, args, cost);
    return best;
}

void lc_rep_cost_chunked(const lc_config_t *cfg, const lc_rep_shape_t *s, unsigned R, double x,
                         double W, lincoll_repair_cost_t *c)
{
    const double a = cfg->model_alpha, be = 1.0 / cfg->model_bw, ga = 1.0 / cfg->model_compute_bw;
    const size_t S = R > 0 ? lc_enc_chunk_size(cfg, R, s->B, s->asked) : s->B;
    const unsigned n = (unsigned)lc_rep_cdiv(s->B, S);
    c->rounds = n * R;
    c->slices = n;
    c->slice_bytes = S;
    c->msgs_total *= n;
    c->max_msgs_sent *= n;
    c->max_msgs_recvd *= n;
    if (n <= 1) {
        c->seconds = R * (a + x * be) + W * ga;
        return;
    }
    /* the compute of one chunk overlaps the next chunk's transfers */
    const double w = R > 0 ? W * ga / R / n : 0, t = x * be / n;
    c->seconds = (double)n * R * (a + (t > w ? t : w)) + w;
}

lincoll_status_t lincoll_encode_repair_cost(lincoll_context_t *ctx, int k, int r, int both,
                                            int ports, size_t packet_bytes,
                                            lincoll_repair_algo_t algo, size_t slice_bytes,
                                            lincoll_repair_algo_t *algo_p,
                                            lincoll_repair_cost_t *cost)
{
    static const char *fn = "lincoll_encode_repair_cost";
    LC_CHECK_ARG(cost != NULL, "%s: cost must not be NULL", fn);
    LC_CHECK_ARG(k >= 1, "%s: k=%d must be >= 1", fn, k);
    LC_CHECK_ARG(r >= 1, "%s: r=%d must be >= 1", fn, r);
    LC_CHECK_ARG(both == 0 || both == 1, "%s: both=%d must be 0 or 1", fn, both);
    LC_CHECK_ARG(ports >= 1 && ports <= 64, "%s: ports=%d outside [1, 64]", fn, ports);
    LC_CHECK_ARG(packet_bytes > 0, "%s: packet_bytes must be > 0", fn);
    LC_CHECK_ARG((unsigned)algo < LINCOLL_REPAIR_ALGO_LAST,
                 "%s: algo=%d is not a lincoll_repair_algo_t", fn, (int)algo);
    lc_config_t local;
    const lc_config_t *cfg = ctx != NULL ? &ctx->cfg : NULL;
    if (cfg == NULL) {
        if (lc_config_load(&local) != LINCOLL_OK) return LINCOLL_ERR_INVALID;
        cfg = &local;
    }
    /* a price: the shape only, on the k + r - both ranks that take part */
    const lc_env_t env = {.P = k + r - both, .ports = ports, .cfg = cfg};
    lc_rep_args_t args = {.shape = {.k = k, .r = r, .both = both, .p = ports, .B = packet_bytes}};
    const lc_rep_alg_t *a = lc_rep_pick(&env, &args, slice_bytes, algo, cost);
    if (a == NULL) {
        lc_error("%s: no repair schedule serves k=%d r=%d (%s)", fn, k, r,
                 lincoll_repair_algo_name(algo));
        return LINCOLL_ERR_UNSUPPORTED;
    }
    if (algo_p) *algo_p = a->algo;
    return LINCOLL_OK;
}

/* The roles of the ranks: src/tgt/rows filled, or a log line and INVALID. */
static lincoll_status_t lc_rep_roles(const char *fn, int P, int n, int k, const int *holds,
                                     const int *needs, int *src, int *srow, int *tgt, int *trow,
                                     int *r_p, int *both_p)
{
    int *owner = malloc(sizeof(int) * (size_t)n); /* row -> rank holding it, -1 */
    int *want = malloc(sizeof(int) * (size_t)n);  /* row -> rank rebuilding it, -1 */
    if (owner == NULL || want == NULL) {
        free(owner);
        free(want);
        return LINCOLL_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++)
        owner[i] = want[i] = -1;
    lincoll_status_t st = LINCOLL_OK;
    int nh = 0, nn = 0, both = -1;
    for (int i = 0; st == LINCOLL_OK && i < P; i++) {
        const int h = holds[i], w = needs[i];
        if (h < -1 || h >= n) {
            lc_error("%s: holds[%d]=%d is not a row of the code ([0, %d) or -1)", fn, i, h, n);
            st = LINCOLL_ERR_INVALID;
        } else if (w < -1 || w >= n) {
            lc_error("%s: needs[%d]=%d is not a row of the code ([0, %d) or -1)", fn, i, w, n);
            st = LINCOLL_ERR_INVALID;
        } else if (h < 0 && w < 0) {
            lc_error("%s: rank %d neither holds nor needs a row (holds[%d] = needs[%d] = -1): "
                     "the communicator must hold only the k holders and the rebuilding ranks",
                     fn, i, i, i);
            st = LINCOLL_ERR_INVALID;
        } else if (h >= 0 && owner[h] >= 0) {
            lc_error("%s: holds[%d]=%d repeats holds[%d]: every holder gives another row", fn, i, h,
                     owner[h]);
            st = LINCOLL_ERR_INVALID;
        } else if (w >= 0 && want[w] >= 0) {
            lc_error("%s: needs[%d]=%d repeats needs[%d]", fn, i, w, want[w]);
            st = LINCOLL_ERR_INVALID;
        } else if (h >= 0 && w >= 0 && both >= 0) {
            lc_error("%s: ranks %d and %d both hold and need a row: at most one rank may", fn, both,
                     i);
            st = LINCOLL_ERR_INVALID;
        } else if (h >= 0 && nh >= k) {
            lc_error("%s: holds names more than k=%d rows (rank %d): the communicator must hold "
                     "exactly the k holders and the rebuilding ranks",
                     fn, k, i);
            st = LINCOLL_ERR_INVALID;
        } else {
            if (h >= 0) owner[h] = i, src[nh] = i, srow[nh++] = h;
            if (w >= 0) want[w] = i, tgt[nn] = i, trow[nn++] = w;
            if (h >= 0 && w >= 0) both = i;
        }
    }
    for (int t = 0; st == LINCOLL_OK && t < nn; t++) {
        if (owner[trow[t]] >= 0) {
            lc_error("%s: needs[%d]=%d is held by rank %d (holds[%d]): nothing to rebuild", fn,
                     tgt[t], trow[t], owner[trow[t]], owner[trow[t]]);
            st = LINCOLL_ERR_INVALID;
        }
    }
    if (st == LINCOLL_OK && nh != k) {
        lc_error("%s: holds names %d rows, k=%d: the communicator (%d ranks) must hold exactly the "
                 "k holders and the rebuilding ranks",
                 fn, nh, k, P);
        st = LINCOLL_ERR_INVALID;
    }
    if (st == LINCOLL_OK && nn == 0) {
        lc_error("%s: needs names no row: nothing to rebuild", fn);
        st = LINCOLL_ERR_INVALID;
    }
    free(owner);
    free(want);
    *r_p = nn;
    *both_p = both;
    return st;
}

/* R = rows trow of G times the inverse of rows srow (what
 * lincoll_gf_matrix_recover computes), SINGULAR without a log line */
static lincoll_status_t lc_rep_recover(const lincoll_field_t *f, int k, const uint64_t *G,
                                       const int *srow, int r, const int *trow, uint64_t *R)
{
    const size_t kk = (size_t)k * (size_t)k;
    uint64_t *sub = malloc(2 * kk * sizeof(uint64_t)), *dec = sub + kk;
    if (sub == NULL) return LINCOLL_ERR_NOMEM;
    for (int i = 0; i < k; i++)
        memcpy(sub + (size_t)i * k, G + (size_t)srow[i] * k, sizeof(uint64_t) * (size_t)k);
    lincoll_status_t st = lc_gf_invert(f, k, sub, dec);
    for (int t = 0; st == LINCOLL_OK && t < r; t++) {
        const uint64_t *g = G + (size_t)trow[t] * k;
        for (int j = 0; j < k; j++) {
            uint64_t acc = 0;
            for (int i = 0; i < k; i++)
                acc = lc_gf_add(f, acc, lc_gf_mul(f, g[i], dec[(size_t)i * k + j]));
            R[(size_t)t * k + j] = acc;
        }
    }
    free(sub);
    return st;
}

/* Initialise on comm: the common body of lincoll_encode_repair_k_init and of
 * lincoll_encode_repair_init's route (fn names the public call in log
 * lines; the arguments are checked as lincoll_encode_repair_k_init's). */
static lincoll_status_t lc_rep_init(const char *fn, lincoll_comm_t *comm,
                                    const lincoll_field_t *field, int n, int k,
                                    lincoll_gf_rs_kind_t kind, const uint64_t *gen,
                                    const int *holds, const int *needs, size_t packet_bytes,
                                    const void *in, void *out, const lincoll_repair_opts_t *opts,
                                    lincoll_plan_t **plan_p)
{
    LC_CHECK_ARG(plan_p != NULL, "%s: plan_p must not be NULL", fn);
    *plan_p = NULL;
    LC_CHECK_ARG(comm != NULL, "%s: comm must not be NULL", fn);
    LC_CHECK_ARG(field != NULL, "%s: field must not be NULL", fn);
    LC_CHECK_ARG(n >= 2, "%s: n=%d codeword rows must be >= 2", fn, n);
    LC_CHECK_ARG(k >= 1 && k < n, "%s: k=%d must be in [1, n-1] (n=%d)", fn, k, n);
    LC_CHECK_ARG(holds != NULL, "%s: holds must not be NULL", fn);
    LC_CHECK_ARG(needs != NULL, "%s: needs must not be NULL", fn);
    LC_CHECK_ARG(opts == NULL || (opts->ports >= 0 && opts->ports <= 64),
                 "%s: opts->ports=%d outside [0, 64]", fn, opts ? opts->ports : 0);
    LC_CHECK_ARG(opts == NULL || (unsigned)opts->algo < LINCOLL_REPAIR_ALGO_LAST,
                 "%s: opts->algo=%d is not a lincoll_repair_algo_t", fn,
                 opts ? (int)opts->algo : 0);
    const int P = comm->size, me = comm->rank;
    int *src = malloc(sizeof(int) * (size_t)P), *srow = malloc(sizeof(int) * (size_t)P);
    int *tgt = malloc(sizeof(int) * (size_t)P), *trow = malloc(sizeof(int) * (size_t)P);
    uint64_t *G = NULL, *R = NULL;
    int r = 0, both = -1, p = 1, begun = 0;
    lincoll_status_t st = src && srow && tgt && trow ? LINCOLL_OK : LINCOLL_ERR_NOMEM;
    if (st == LINCOLL_OK)
        st = lc_rep_roles(fn, P, n, k, holds, needs, src, srow, tgt, trow, &r, &both);
    const int has_in = st == LINCOLL_OK && holds[me] >= 0;
    const int has_out = st == LINCOLL_OK && needs[me] >= 0;
    lincoll_encode_opts_t eo = {.ports = opts != NULL ? opts->ports : 0,
                                .tag = opts != NULL ? opts->tag : 0};
    if (st == LINCOLL_OK)
        st = lc_enc_check_common(fn, comm, field, packet_bytes, in, has_in, out, has_out, &eo,
                                 plan_p, &p);
    if (st == LINCOLL_OK) st = lc_enc_rs_generator(fn, field, n, k, kind, gen, &G);
    if (st == LINCOLL_OK) {
        R = malloc(sizeof(uint64_t) * (size_t)r * (size_t)k);
        st = R != NULL ? lc_rep_recover(field, k, G, srow, r, trow, R) : LINCOLL_ERR_NOMEM;
        if (st == LINCOLL_ERR_SINGULAR)
            lc_error("%s: the generator rows the holders give (holds) are singular: they cannot "
                     "rebuild the rows in needs",
                     fn);
    }
    lincoll_repair_algo_t algo = LINCOLL_REPAIR_ALGO_AUTO;
    size_t asked = 0;
    if (st == LINCOLL_OK) st = lc_rep_requested(&comm->ctx->cfg, opts, &algo, &asked);
    lc_rep_args_t args = {.shape = {.k = k, .r = r, .both = both >= 0, .p = p, .B = packet_bytes}};
    lincoll_repair_cost_t cost;
    const lc_rep_alg_t *a = NULL;
    if (st == LINCOLL_OK) {
        const lc_env_t env = lc_exec_env(comm, 0);
        a = lc_rep_pick(&env, &args, asked, algo, &cost);
        if (a == NULL) {
            lc_error("%s: no repair schedule serves k=%d r=%d (%s)", fn, k, r,
                     lincoll_repair_algo_name(algo));
            st = LINCOLL_ERR_UNSUPPORTED;
        }
    }
    lc_enc_call_t b;
    if (st == LINCOLL_OK) {
        st = lc_enc_begin(comm, a->plan_name, p, field, packet_bytes, &eo, &b);
        begun = st == LINCOLL_OK;
    }
    if (st == LINCOLL_OK) {
        b.fn = fn;
        int si = has_in ? lc_plan_slot_user(b.b.plan, (void *)in, packet_bytes) : -1;
        int so = has_out ? lc_plan_slot_user(b.b.plan, out, packet_bytes) : -1;
        if ((has_in && si < 0) || (has_out && so < 0)) st = LINCOLL_ERR_NOMEM;
        int ms = -1, mt = -1;
        for (int i = 0; i < k; i++)
            if (src[i] == me) ms = i;
        for (int t = 0; t < r; t++)
            if (tgt[t] == me) mt = t;
        args.rep = (lc_rep_t){.nranks = P,
                              .k = k,
                              .r = r,
                              .src = src,
                              .tgt = tgt,
                              .both = both,
                              .R = R,
                              .me = me,
                              .my_src = ms,
                              .my_tgt = mt};
        args.in = lc_ref(si, 0);
        args.out = lc_ref(so, 0);
        if (st == LINCOLL_OK) st = a->compile(&b.b, &args);
        if (st == LINCOLL_OK && a->sliced) {
            st = lc_enc_slice_plan(&b.b, args.shape.slice);
        } else {
            b.b.chunk_req = asked; /* star, tree: round-major chunks of the asked slice */
        }
        lc_debug("%s: k=%d r=%d%s p=%d chunk %zu bytes: %s, %u rounds, %u slice(s), predicted "
                 "%.2f us",
                 fn, k, r, both >= 0 ? " (one rebuilds and holds)" : "", p, packet_bytes,
                 a->plan_name, cost.rounds, cost.slices, cost.seconds * 1e6);
    }
    free(src);
    free(srow);
    free(tgt);
    free(trow);
    free(G);
    free(R);
    if (!begun) return st;
    return lc_enc_end(&b, st, plan_p);
}

lincoll_status_t lincoll_encode_repair_k_init(lincoll_comm_t *comm, const lincoll_field_t *field,
                                              int n, int k, lincoll_gf_rs_kind_t kind,
                                              const uint64_t *gen, const int *holds,
                                              const int *needs, size_t packet_bytes, const void *in,
                                              void *out, const lincoll_repair_opts_t *opts,
                                              lincoll_plan_t **plan_p)
{
    return lc_rep_init("lincoll_encode_repair_k_init", comm, field, n, k, kind, gen, holds, needs,
                       packet_bytes, in, out, opts, plan_p);
}

lincoll_status_t lincoll_encode_repair_init(lincoll_comm_t *comm, const lincoll_field_t *field,
                                            int k, lincoll_gf_rs_kind_t kind, const uint64_t *gen,
                                            const int *survivors, int n_lost, const int *lost,
                                            size_t packet_bytes, const void *in, void *out,
                                            const lincoll_encode_opts_t *opts,
                                            lincoll_plan_t **plan_p)
{
    static const char *fn = "lincoll_encode_repair_init";
    LC_CHECK_ARG(comm != NULL, "%s: comm must not be NULL", fn);
    LC_CHECK_ARG(plan_p != NULL, "%s: plan_p must not be NULL", fn);
    const int N = comm->size, me = comm->rank;
    LC_CHECK_ARG(k >= 1 && k < N, "%s: k=%d must be in [1, N-1] (N=%d ranks)", fn, k, N);
    LC_CHECK_ARG(survivors != NULL, "%s: survivors must not be NULL", fn);
    LC_CHECK_ARG(lost != NULL && n_lost >= 1 && n_lost <= N - k,
                 "%s: lost must list n_lost=%d ranks, 1 .. N-k=%d", fn, n_lost, N - k);
    lc_rs_t r = {.N = N, .k = k};
    r.sidx = malloc(sizeof(int) * (size_t)N);
    r.lidx = malloc(sizeof(int) * (size_t)N);
    uint64_t *R = malloc(sizeof(uint64_t) * (size_t)n_lost * (size_t)k), *G = NULL;
    lincoll_status_t st = LINCOLL_OK;
    if (r.sidx == NULL || r.lidx == NULL || R == NULL) st = LINCOLL_ERR_NOMEM;
    for (int i = 0; st == LINCOLL_OK && i < N; i++)
        r.sidx[i] = r.lidx[i] = -1;
    for (int i = 0; st == LINCOLL_OK && i < k; i++) {
        int s = survivors[i];
        if (s < 0 || s >= N || r.sidx[s] >= 0) {
            lc_error("%s: survivors[%d]=%d is outside [0, %d) or repeated", fn, i, s, N);
            st = LINCOLL_ERR_INVALID;
        } else {
            r.sidx[s] = i;
        }
    }
    for (int i = 0; st == LINCOLL_OK && i < n_lost; i++) {
        int l = lost[i];
        if (l < 0 || l >= N || r.lidx[l] >= 0 || r.sidx[l] >= 0) {
            lc_error("%s: lost[%d]=%d is outside [0, %d), repeated or a survivor", fn, i, l, N);
            st = LINCOLL_ERR_INVALID;
        } else {
            r.lidx[l] = i;
        }
    }
    int has_in = st == LINCOLL_OK && r.sidx[me] >= 0, has_out = st == LINCOLL_OK && r.lidx[me] >= 0;
    int p = 1;
    if (st == LINCOLL_OK)
        st = lc_enc_check_common(fn, comm, field, packet_bytes, in, has_in, out, has_out, opts,
                                 plan_p, &p);
    lincoll_encode_algo_t algo = LINCOLL_ENCODE_ALGO_AUTO;
    if (st == LINCOLL_OK) st = lc_enc_requested_algo(&comm->ctx->cfg, opts, &algo);
    if (algo == LINCOLL_ENCODE_ALGO_SPECIFIC) algo = LINCOLL_ENCODE_ALGO_AUTO;
    if (st == LINCOLL_OK && algo == LINCOLL_ENCODE_ALGO_AUTO && k + n_lost == N) {
        /* the communicator is exactly the survivors and the lost ranks: the
         * schedules on the k survivors (star, tree, chain; repair_api.c),
         * the chunk option as their slice */
        int *holds = malloc(sizeof(int) * (size_t)N), *needs = malloc(sizeof(int) * (size_t)N);
        if (holds == NULL || needs == NULL) st = LINCOLL_ERR_NOMEM;
        for (int i = 0; st == LINCOLL_OK && i < N; i++) {
            holds[i] = r.sidx[i] >= 0 ? i : -1;
            needs[i] = r.lidx[i] >= 0 ? i : -1;
        }
        lincoll_repair_opts_t ro = {.ports = opts != NULL ? opts->ports : 0,
                                    .tag = opts != NULL ? opts->tag : 0,
                                    .slice_bytes = opts != NULL && opts->chunk_bytes != 0
                                                       ? opts->chunk_bytes
                                                       : comm->ctx->cfg.encode_chunk};
        if (st == LINCOLL_OK)
            st = lc_rep_init(fn, comm, field, N, k, kind, gen, holds, needs, packet_bytes, in, out,
                             &ro, plan_p);
        free(holds);
        free(needs);
        free(r.sidx);
        free(r.lidx);
        free(R);
        return st;
    }
    if (st == LINCOLL_OK) st = lc_enc_rs_generator(fn, field, N, k, kind, gen, &G);
    if (st == LINCOLL_OK) {
        st = lincoll_gf_matrix_recover(field, N, k, G, survivors, n_lost, lost, R);
        if (st == LINCOLL_ERR_SINGULAR)
            lc_error("%s: the generator rows of the survivors are singular: they cannot "
                     "rebuild the lost packets",
                     fn);
    }
    lc_enc_call_t b;
    int begun = 0;
    if (st == LINCOLL_OK) {
        st = lc_enc_begin(comm, "rs_repair", p, field, packet_bytes, opts, &b);
        begun = st == LINCOLL_OK;
    }
    if (st == LINCOLL_OK) {
        int si = has_in ? lc_plan_slot_user(b.b.plan, (void *)in, packet_bytes) : -1;
        int so = has_out ? lc_plan_slot_user(b.b.plan, out, packet_bytes) : -1;
        if ((has_in && si < 0) || (has_out && so < 0)) st = LINCOLL_ERR_NOMEM;
        r.R = R;
        if (st == LINCOLL_OK)
            st = lc_enc_universal(&b, algo, N, me, lc_rs_repair_coef, &r, lc_ref(si, 0),
                                  lc_ref(so, 0));
    }
    free(r.sidx);
    free(r.lidx);
    free(R);
    free(G);
    if (!begun) return st;
    return lc_enc_end(&b, st, plan_p);
}
