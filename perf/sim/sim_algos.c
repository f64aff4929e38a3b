/*
 * perf/sim/sim_algos.c: lincoll_sim's operations and their algorithms, read
 * from the library's registries (see sim_algos_int.h), with what the sim
 * checks and estimates before it sets a row up.
 *
 *  - encode: the universal algorithms of lc_enc_registry() (a zero-copy
 *    entry over windows bound by hand, as one thread drives every rank and
 *    the public init's collective agreement would block), then dft,
 *    vandermonde and lagrange (their own inits, no registry line);
 *  - rs_encode: the registry's tag (not zero-copy) universal algorithms;
 *    repair: those (N-rank encode) and lc_rep_registry()'s schedules;
 *  - collectives: lc_coll_registry()'s entries of the operation;
 *  - matmul: lc_mm_registry(), each algorithm on the distribution it needs
 *    (ring P x 1, SUMMA the squarest pr x pc, Cannon q x q, 2.5D q x q x c).
 * Applicability is the registry entry's own applies() (core/plan/alg.h);
 * what remains here is the sim's setup (fields, grids, the data a call
 * needs).
 */
#include <lincoll/coll.h>
#include <lincoll/encode.h>
#include <lincoll/matmul.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim_algos_int.h"

static const char *const sim_op_names[SIM_NOPS] = {"encode",    "rs_encode",      "repair",
                                                   "allreduce", "reduce_scatter", "allgather",
                                                   "bcast",     "reduce",         "matmul"};

/* The structured-matrix encodes: a specific init each, no registry line. */
static const struct {
    const char *name, *plan;
    sim_kind_t kind;
} sim_specific[] = {{"dft", "dft", K_ENC_DFT},
                    {"vandermonde", "vandermonde_coset", K_ENC_VDM},
                    {"lagrange", "lagrange_dft", K_ENC_LAG}};

/* Names the sim took before it read the registries. */
static const struct {
    sim_op_t op;
    const char *old, *name;
} sim_aliases[] = {
    {SIM_MATMUL, "ring1d", "ring"}, {SIM_MATMUL, "2.5d", "25d"}, {SIM_MATMUL, "2_5d", "25d"}};

int sim_is_coll(sim_op_t op)
{
    return op >= SIM_ALLREDUCE && op <= SIM_REDUCE;
}

lc_coll_op_t sim_coll_op(sim_op_t op)
{
    return (lc_coll_op_t)(op - SIM_ALLREDUCE);
}

const char *sim_op_name(sim_op_t op)
{
    return (unsigned)op < SIM_NOPS ? sim_op_names[op] : "?";
}

int sim_op_parse(const char *name, sim_op_t *op)
{
    for (int i = 0; i < SIM_NOPS; i++) {
        if (strcmp(name, sim_op_names[i]) == 0) {
            *op = (sim_op_t)i;
            return 0;
        }
    }
    return -1;
}

int sim_op_max_K(sim_op_t op)
{
    /* the encode family is validated up to 4096 virtual ranks; collectives and
     * matmul plans are O(log K) or O(sqrt K) per rank and go further, as far as
     * the sim's tag layout (24-bit source rank) and memory allow */
    return (op <= SIM_REPAIR) ? 4096 : 65536;
}

size_t sim_op_default_size(sim_op_t op)
{
    if (op <= SIM_REPAIR) return 256;
    if (op == SIM_MATMUL) return 8; /* element size of double; -s is not used */
    return 65536;
}

void sim_params_defaults(sim_params_t *prm)
{
    if (prm->n_lost <= 0) prm->n_lost = 1;
    if (prm->data_k <= 0 && prm->op == SIM_REPAIR) {
        /* every rank a survivor or lost: the schedules on the survivors run too */
        prm->data_k = prm->K - prm->n_lost >= 1 ? prm->K - prm->n_lost : 1;
    }
    if (prm->data_k <= 0) {
        int k = prm->K - prm->K / 4;
        if (k >= prm->K) k = prm->K - 1;
        prm->data_k = k < 1 ? 1 : k;
    }
    if (prm->mm_n <= 0) prm->mm_n = 1024;
}

/* ---- the algorithm lists, from the registries ---------------------------- */

#define SIM_MAX_PER_OP 64
static sim_alg_t sim_tab[SIM_NOPS][SIM_MAX_PER_OP];
static int sim_ntab[SIM_NOPS] = {-1};

static void sim_add(sim_op_t op, sim_alg_t a)
{
    if (sim_ntab[op] < SIM_MAX_PER_OP) sim_tab[op][sim_ntab[op]++] = a;
}

/* the universal encode algorithms as kind (tag ones only unless zc) */
static void sim_add_enc(sim_op_t op, sim_kind_t kind, int zc)
{
    size_t n;
    const lc_enc_alg_t *const *reg = lc_enc_registry(&n);
    for (size_t i = 0; i < n; i++) {
        if (reg[i]->mapped && !zc) continue;
        sim_add(op, (sim_alg_t){.kind = reg[i]->mapped ? K_ENC_ZC : kind,
                                .name = reg[i]->name,
                                .plan = reg[i]->name,
                                .enc = reg[i]});
    }
}

static void sim_build(void)
{
    if (sim_ntab[0] >= 0) return;
    memset(sim_ntab, 0, sizeof(sim_ntab));
    size_t n;
    sim_add_enc(SIM_ENCODE, K_ENC_UNIV, 1);
    for (size_t i = 0; i < sizeof(sim_specific) / sizeof(sim_specific[0]); i++)
        sim_add(SIM_ENCODE, (sim_alg_t){.kind = sim_specific[i].kind,
                                        .name = sim_specific[i].name,
                                        .plan = sim_specific[i].plan});
    sim_add_enc(SIM_RS_ENCODE, K_RS, 0);
    sim_add_enc(SIM_REPAIR, K_REPAIR, 0);
    const lc_rep_alg_t *const *rep = lc_rep_registry(&n);
    for (size_t i = 0; i < n; i++)
        sim_add(SIM_REPAIR, (sim_alg_t){.kind = K_REPAIR_K,
                                        .name = rep[i]->name,
                                        .plan = rep[i]->plan_name,
                                        .rep = rep[i]});
    const lc_coll_alg_t *const *coll = lc_coll_registry(&n);
    for (int op = SIM_ALLREDUCE; op <= SIM_REDUCE; op++)
        for (size_t i = 0; i < n; i++)
            if (coll[i]->op == sim_coll_op((sim_op_t)op))
                sim_add((sim_op_t)op, (sim_alg_t){.kind = K_COLL,
                                                  .name = coll[i]->name,
                                                  .plan = coll[i]->plan_name,
                                                  .coll = coll[i]});
    const lc_mm_alg_t *const *mm = lc_mm_registry(&n);
    for (size_t i = 0; i < n; i++)
        sim_add(SIM_MATMUL, (sim_alg_t){.kind = K_MATMUL, .name = mm[i]->name, .mm = mm[i]});
}

int sim_algo_count(sim_op_t op)
{
    sim_build();
    return (unsigned)op < SIM_NOPS ? sim_ntab[op] : 0;
}

const sim_alg_t *sim_alg(sim_op_t op, int algo)
{
    return algo >= 0 && algo < sim_algo_count(op) ? &sim_tab[op][algo] : NULL;
}

const char *sim_algo_name(sim_op_t op, int algo)
{
    const sim_alg_t *a = sim_alg(op, algo);
    return a ? a->name : "?";
}

int sim_algo_find(sim_op_t op, const char *name)
{
    int n = sim_algo_count(op);
    for (int i = 0; i < n; i++) {
        if (strcasecmp(sim_alg(op, i)->name, name) == 0) return i;
    }
    for (size_t i = 0; i < sizeof(sim_aliases) / sizeof(sim_aliases[0]); i++)
        if (op == sim_aliases[i].op && strcasecmp(name, sim_aliases[i].old) == 0)
            return sim_algo_find(op, sim_aliases[i].name);
    return -1;
}

/* ---- fields -------------------------------------------------------------- */

static int sim_is_prime(uint64_t q)
{
    if (q < 2) return 0;
    for (uint64_t d = 2; d * d <= q; d++)
        if (q % d == 0) return 0;
    return 1;
}

/* smallest prime q = c K + 1 > lo below 2^31 (0 if none) */
static uint64_t sim_prime_for(int K, uint64_t lo)
{
    for (uint64_t c = 1; c * (uint64_t)K + 1 < (UINT64_C(1) << 31); c++) {
        uint64_t q = c * (uint64_t)K + 1;
        if (q > lo && sim_is_prime(q)) return q;
    }
    return 0;
}

static int sim_pow_of(int K, int P)
{
    long v = 1;
    while (v < K)
        v *= P;
    return v == K;
}

uint64_t sim_field_q(const sim_params_t *prm, const sim_alg_t *a)
{
    if (prm->field_q != 0) return prm->field_q;
    switch (a->kind) {
    case K_ENC_DFT:
    case K_ENC_VDM:
        return sim_prime_for(prm->K, 2);
    case K_ENC_LAG:
        return sim_prime_for(prm->K, 2 * (uint64_t)prm->K);
    case K_RS:
    case K_REPAIR:
    case K_REPAIR_K:
        return prm->K <= 256 ? 256 : 65536; /* systematic codes need N <= q */
    default:
        return 256; /* GF(2^8): any matrix, the cheapest coefficient tables */
    }
}

static size_t sim_q_elem_size(uint64_t q)
{
    if (q == 256) return 1;
    if (q == 65536) return 2;
    if (q == LINCOLL_GF_GOLDILOCKS) return 8;
    return 4;
}

size_t sim_algo_unit(const sim_params_t *prm, int algo)
{
    const sim_alg_t *a = sim_alg(prm->op, algo);
    if (a == NULL) return 1;
    if (prm->op <= SIM_REPAIR) return sim_q_elem_size(sim_field_q(prm, a));
    if (sim_is_coll(prm->op)) return lincoll_dtype_size(prm->dtype);
    return 1;
}

/* ---- matmul grids -------------------------------------------------------- */

static int sim_isqrt(int v)
{
    int q = (int)sqrt((double)v);
    while (q * q > v)
        q--;
    while ((q + 1) * (q + 1) <= v)
        q++;
    return q;
}

int sim_mm_grid(const sim_params_t *prm, const sim_alg_t *a, int *pr, int *pc, int *c)
{
    const int K = prm->K;
    *c = 1;
    switch (a->mm->algo) {
    case LINCOLL_MATMUL_RING:
        *pr = K, *pc = 1;
        return 0;
    case LINCOLL_MATMUL_SUMMA: {
        int r = sim_isqrt(K);
        while (K % r != 0)
            r--;
        *pr = r, *pc = K / r;
        return 0;
    }
    case LINCOLL_MATMUL_CANNON: {
        int q = sim_isqrt(K);
        if (q * q != K) return -1;
        *pr = *pc = q;
        return 0;
    }
    case LINCOLL_MATMUL_25D: {
        if (prm->mm_layers > 0) {
            int cc = prm->mm_layers, q = K % cc == 0 ? sim_isqrt(K / cc) : 0;
            if (q == 0 || q * q * cc != K || cc > q) return -1;
            *pr = *pc = q, *c = cc;
            return 0;
        }
        /* the largest c <= K^(1/3) with K / c a square (c = 1 is Cannon) */
        for (int cc = (int)cbrt((double)K) + 1; cc >= 2; cc--) {
            if (K % cc != 0) continue;
            int q = sim_isqrt(K / cc);
            if (q * q * cc == K && cc <= q) {
                *pr = *pc = q, *c = cc;
                return 0;
            }
        }
        return -1;
    }
    default:
        return -1;
    }
}

/* ---- collectives' calls --------------------------------------------------- */

int sim_coll_counts(const sim_params_t *p, size_t **counts_p, size_t **displs_p)
{
    const size_t K = (size_t)p->K, n = p->size / lincoll_dtype_size(p->dtype);
    size_t *counts = calloc(K, sizeof(size_t)), *displs = calloc(K + 1, sizeof(size_t));
    if (counts == NULL || displs == NULL) {
        free(counts);
        free(displs);
        return -1;
    }
    for (size_t r = 0; r < K; r++) {
        counts[r] = n / K + (r < n % K);
        displs[r + 1] = displs[r] + counts[r];
    }
    *counts_p = counts, *displs_p = displs;
    return 0;
}

lc_coll_args_t sim_coll_args(const sim_params_t *p, const size_t *counts, const size_t *displs,
                             void *in, void *out)
{
    size_t es = lincoll_dtype_size(p->dtype), n = p->size / es;
    /* as lincoll_<op>_init fills them for (in, out) */
    lc_coll_args_t a = {.op = sim_coll_op(p->op),
                        .sbuf = in,
                        .rbuf = out,
                        .count = n,
                        .total = n,
                        .dtype = p->dtype,
                        .rop = LINCOLL_SUM,
                        .root = p->root,
                        .es = es};
    if (p->op == SIM_REDUCE_SCATTER || p->op == SIM_ALLGATHER) {
        a.count = 0, a.root = 0;
        a.counts = counts;
        a.displs = displs;
        if (p->op == SIM_ALLGATHER) a.rop = 0;
    } else if (p->op == SIM_BCAST) {
        a.sbuf = NULL, a.inplace = 1, a.rop = 0;
    } else if (p->op == SIM_ALLREDUCE) {
        a.root = 0;
    }
    return a;
}

/* The configuration the checks and estimates see (the environment's). */
static const lc_config_t *sim_cfg(void)
{
    static lc_config_t cfg;
    static int loaded;
    if (!loaded) {
        if (lc_config_load(&cfg) != LINCOLL_OK) {
            /* the driver refuses a bad environment first; the defaults then */
        }
        loaded = 1;
    }
    return &cfg;
}

/* rank 0's environment with every peer mapped */
static lc_env_t sim_env(const sim_params_t *p, const lc_config_t *cfg)
{
    return (lc_env_t){.P = p->K, .rank = 0, .ports = p->ports, .mapped = 1, .cfg = cfg};
}

/* The entry's applies() without the selection's size thresholds: whether
 * it serves the call for some zero-copy threshold (lincoll_sim runs zero-copy
 * plans at every size, compiled with lc_coll_compile_any). */
static int sim_coll_applies(const sim_params_t *p, const lc_coll_alg_t *alg)
{
    if (alg->applies == NULL) return 1;
    lc_config_t cfg = *sim_cfg();
    lc_env_t env = sim_env(p, &cfg);
    lc_coll_args_t a = sim_coll_args(p, NULL, NULL, NULL, NULL);
    static const size_t thresholds[] = {0, SIZE_MAX / 16};
    for (size_t i = 0; i < sizeof(thresholds) / sizeof(thresholds[0]); i++) {
        cfg.zcopy_threshold = thresholds[i];
        if (alg->applies(&env, &a)) return 1;
    }
    return 0;
}

/* ---- feasibility ---------------------------------------------------------- */

static int sim_check_encode(const sim_params_t *prm, const sim_alg_t *a, char *why, size_t len)
{
    const int K = prm->K, p = prm->ports;
    uint64_t q = sim_field_q(prm, a);
    if (q == 0) {
        snprintf(why, len, "no prime field q = cK+1 < 2^31 for K=%d", K);
        return -1;
    }
    switch (a->kind) {
    case K_ENC_DFT:
    case K_ENC_LAG:
        if (!sim_pow_of(K, p + 1)) {
            snprintf(why, len, "%s needs K = (p+1)^L (K=%d, p+1=%d)", a->name, K, p + 1);
            return -1;
        }
        if (q < 3 || (q - 1) % (uint64_t)K != 0 || (a->kind == K_ENC_LAG && q <= 2 * (uint64_t)K)) {
            snprintf(why, len, "%s needs K | q-1%s (q=%llu)", a->name,
                     a->kind == K_ENC_LAG ? " and q > 2K" : "", (unsigned long long)q);
            return -1;
        }
        return 0;
    case K_ENC_VDM:
        if ((uint64_t)K > q - 1) {
            snprintf(why, len, "vandermonde needs K <= q-1 (q=%llu)", (unsigned long long)q);
            return -1;
        }
        return 0;
    case K_ENC_ZC: { /* the entry's applies, every peer mapped */
        const lc_env_t env = sim_env(prm, sim_cfg());
        const lc_enc_args_t ea = {.K = K, .p = p, .B = prm->size};
        if (!LC_ALG_APPLIES(a->enc, &env, &ea)) {
            snprintf(why, len, "%s cannot serve K=%d (the registry's applies: K >= 2)", a->name, K);
            return -1;
        }
        return 0;
    }
    case K_RS:
    case K_REPAIR:
    case K_REPAIR_K:
        break;
    default:
        return 0;
    }
    if (a->kind == K_REPAIR_K && prm->data_k + prm->n_lost != K) {
        snprintf(why, len,
                 "%s runs on the k survivors and the lost ranks only: K must be "
                 "--data + --lost (K=%d, k=%d, lost=%d)",
                 a->name, K, prm->data_k, prm->n_lost);
        return -1;
    }
    if (K < 2 || prm->data_k < 1 || prm->data_k >= K) {
        snprintf(why, len, "%s needs 1 <= k < N (k=%d, N=%d)",
                 prm->op == SIM_RS_ENCODE ? "rs_encode" : "repair", prm->data_k, K);
        return -1;
    }
    if ((uint64_t)K > q) {
        snprintf(why, len, "N=%d exceeds the field order q=%llu", K, (unsigned long long)q);
        return -1;
    }
    if (a->kind == K_REPAIR || a->kind == K_REPAIR_K) {
        if (prm->n_lost < 1 || prm->n_lost > K - prm->data_k) {
            snprintf(why, len, "repair needs 1 <= lost <= N-k=%d (lost=%d)", K - prm->data_k,
                     prm->n_lost);
            return -1;
        }
        /* every rank inverts the k x k survivor matrix at init */
        double work = pow((double)prm->data_k, 3) * (double)K;
        if (work > 4e10) {
            snprintf(why, len,
                     "repair: every rank inverts a k x k matrix at init (k^3 K = %.1e field "
                     "operations); use a smaller --data",
                     work);
            return -1;
        }
    }
    return 0;
}

static int sim_check_matmul(const sim_params_t *prm, const sim_alg_t *a, char *why, size_t len)
{
    int pr, pc, c;
    if (sim_mm_grid(prm, a, &pr, &pc, &c) != 0) {
        if (a->mm->algo == LINCOLL_MATMUL_CANNON)
            snprintf(why, len, "%s needs K = q^2 (K=%d)", a->name, prm->K);
        else
            snprintf(why, len, "%s needs K = q^2 c with 2 <= c <= q%s (K=%d)", a->name,
                     prm->mm_layers > 0 ? " (--layers)" : "", prm->K);
        return -1;
    }
    /* the registry's applies on the row's distribution */
    lc_mm_t mm = {.env = sim_env(prm, sim_cfg()),
                  .P = prm->K,
                  .dtype = LINCOLL_DOUBLE,
                  .es = 8,
                  .m = prm->mm_n,
                  .n = prm->mm_n,
                  .k = prm->mm_n};
    if (lincoll_matdesc_block(&mm.da, prm->mm_n, prm->mm_n, pr, pc, c, LINCOLL_COL_MAJOR) !=
            LINCOLL_OK ||
        (mm.db = mm.dc = mm.da, !LC_ALG_APPLIES(a->mm, &mm.env, &mm))) {
        snprintf(why, len, "%s cannot serve n=%lld on grid %dx%dx%d", a->name, (long long)prm->mm_n,
                 pr, pc, c);
        return -1;
    }
    return 0;
}

int sim_algo_check(const sim_params_t *prm, int algo, char *why, size_t len)
{
    const sim_alg_t *a = sim_alg(prm->op, algo);
    if (a == NULL) {
        snprintf(why, len, "no algorithm %d", algo);
        return -1;
    }
    if (prm->op <= SIM_REPAIR) return sim_check_encode(prm, a, why, len);
    if (prm->op == SIM_MATMUL) return sim_check_matmul(prm, a, why, len);
    if (!sim_coll_applies(prm, a->coll)) {
        snprintf(why, len, "%s cannot serve K=%d and %zu bytes (the registry's applies)", a->name,
                 prm->K, prm->size);
        return -1;
    }
    return 0;
}

/* ---- estimates ------------------------------------------------------------- */

uint64_t sim_coef_one(const void *arg, int j, int k)
{
    (void)arg, (void)j, (void)k;
    return 1;
}

/* Windows of a zero-copy algorithm: those rank 0's plan declares (compiled
 * here over placeholder buffers, which compilers only record), 0 otherwise. */
static int sim_algo_nwins(const sim_params_t *prm, const sim_alg_t *a)
{
    static char in[64], out[64];
    lc_env_t env = sim_env(prm, sim_cfg());
    lc_plan_t *ir = NULL;
    int w = 2; /* when the compile fails: the job's setup says why */
    if (a->kind == K_COLL && a->coll->mapped) {
        size_t *counts, *displs;
        if (sim_coll_counts(prm, &counts, &displs) != 0) return w;
        lc_coll_args_t ca = sim_coll_args(prm, counts, displs, in, out);
        if (lc_coll_compile_any(a->coll, &env, &ca, &ir) == LINCOLL_OK) w = (int)ir->nwins;
        free(counts);
        free(displs);
    } else if (a->kind == K_ENC_ZC) {
        lincoll_field_t *f = NULL;
        lc_enc_b_t b;
        if (lincoll_gf_field_create(sim_field_q(prm, a), &f) != LINCOLL_OK) return w;
        if (lc_enc_builder(&b, &env, "encode", prm->ports, f, prm->size, 0) == LINCOLL_OK) {
            ir = b.plan;
            int si = lc_plan_slot_user(ir, in, prm->size),
                so = lc_plan_slot_user(ir, out, prm->size);
            const lc_enc_args_t ea =
                lc_enc_args(&b, prm->K, 0, sim_coef_one, NULL, lc_ref(si, 0), lc_ref(so, 0));
            if (si >= 0 && so >= 0 && a->enc->compile(&b, &ea) == LINCOLL_OK) w = (int)ir->nwins;
        }
        lincoll_gf_field_destroy(f);
    } else {
        return 0;
    }
    lc_plan_destroy(ir);
    return w;
}

void sim_algo_setup_cost(const sim_params_t *prm, int algo, double *seconds, double *bytes,
                         char *what, size_t len)
{
    const sim_alg_t *a = sim_alg(prm->op, algo);
    const double K = prm->K, w = a ? sim_algo_nwins(prm, a) : 0;
    /* measured on the sim: ~200 bytes per (rank, peer) pair of a window (keys,
     * signal counters, mapped pointers), and ~30 us per pair of run time: a
     * wait on a peer's flag spins (core/exec/exec.c) before it gives up,
     * and in the one-thread sim the peer cannot set it meanwhile */
    *seconds = w * K * K * 30e-6;
    *bytes = w * K * K * 200.0;
    snprintf(what, len, "%s",
             w > 0 ? "zero-copy: K^2 mapped peer pairs, flag waits the one-thread sim spins on"
                   : "matrices");
    if (a != NULL && (a->kind == K_ENC_UNIV || a->kind == K_ENC_ZC)) *bytes += 8.0 * K * K;
    /* lincoll_encode_lagrange_init builds the K x K Lagrange matrix on every
     * rank (lincoll_gf_matrix_lagrange, ~K^3 field operations, ~7 ns each
     * here): K^4 for the K virtual ranks */
    if (a != NULL && a->kind == K_ENC_LAG) {
        *seconds += 7e-9 * K * K * K * K;
        snprintf(what, len, "every rank builds the K x K Lagrange matrix at init, ~K^3");
    }
}
