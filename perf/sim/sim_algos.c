/*
 * perf/sim/sim_algos.c: the one place where lincoll_sim knows how to compile
 * algorithm X of family Y for virtual rank r (see sim_algos.h).
 *
 * The table below lists every (operation, algorithm) with the way it is
 * built today:
 *  - encode family: the public inits (lincoll_encode_init, _dft_init,
 *    _vandermonde_init, _lagrange_init, _rs_init, _repair_init,
 *    _repair_k_init for star/tree/chain) with opts->algo forced; the zero-copy encodes (zcopy,
 * zcopy_split) with the internal builder over windows exchanged by hand, as one thread drives every
 * rank and the public init's collective agreement would block;
 *  - collectives: the public *_init calls with LINCOLL_<OP>_ALGO set around
 *    the call (how the library forces them); the zero-copy plans with the
 *    internal builders over hand-exchanged windows;
 *  - matmul: lincoll_matmul_init with opts->algo, each algorithm on the
 *    distribution it needs (ring P x 1, SUMMA the squarest pr x pc, Cannon
 *    q x q, 2.5D q x q x c).
 * Every context runs with LINCOLL_ALGO_FALLBACK=error semantics (set by the
 * driver), so a forced algorithm that cannot serve a call fails instead of
 * silently compiling another one; sim_algo_check() rejects the known cases
 * first with a readable reason.
 */
#include "sim_algos.h"

#include <lincoll/coll.h>
#include <lincoll/encode.h>
#include <lincoll/matmul.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/coll/coll_int.h"
#include "core/exec/exec.h"
#include "core/encode/encode_int.h"

/* How an algorithm is compiled. */
typedef enum sim_kind {
    K_ENC_UNIV, /* lincoll_encode_init, dense random A, opts->algo = aux */
    K_ENC_DFT,  /* lincoll_encode_dft_init, specific */
    K_ENC_VDM,  /* lincoll_encode_vandermonde_init (coset points), specific */
    K_ENC_LAG,  /* lincoll_encode_lagrange_init (roots of unity), specific */
    K_ENC_ZC,   /* zcopy encode over windows (aux = 1: zcopy_split) */
    K_RS,       /* lincoll_encode_rs_init, opts->algo = aux */
    K_REPAIR,   /* lincoll_encode_repair_init, opts->algo = aux */
    K_REPAIR_K, /* lincoll_encode_repair_k_init on survivors + lost, opts->algo = aux */
    K_COLL,     /* public collective init, LINCOLL_<OP>_ALGO = aux (lc_coll_algo_t) */
    K_COLL_ZC,  /* zero-copy collective builder aux (sim_zc_t) */
    K_MATMUL,   /* lincoll_matmul_init, opts.algo = aux */
} sim_kind_t;

typedef enum sim_zc {
    ZC_ALLREDUCE,      /* zcopy_allreduce: windows over rbuf and sbuf */
    ZC_RD_ALLREDUCE,   /* zcopy_rd_allreduce: scratch 2 k n, P = 2^k */
    ZC_REDUCE_SCATTER, /* zcopy_reduce_scatter: window over sbuf */
    ZC_RH_RS,          /* zcopy_rh_reduce_scatter: scratch ring, P = 2^k */
    ZC_ALLGATHER,      /* zcopy_allgather: window over rbuf */
    ZC_RD_ALLGATHER,   /* zcopy_rd_allgather: scratch ring, P = 2^k */
    ZC_DIRECT_BCAST,   /* zcopy_direct_bcast: window over the buffer */
    ZC_BCAST,          /* zcopy_bcast: scratch ring, P <= 65 */
    ZC_DIRECT_REDUCE,  /* zcopy_direct_reduce: windows over input and root output */
    ZC_REDUCE,         /* zcopy_reduce: scratch ring, P <= 65 */
} sim_zc_t;

typedef struct sim_alg {
    sim_op_t op;
    const char *name;
    sim_kind_t kind;
    int aux;
    const char *plan; /* the plan's algorithm name (checked after compiling), or NULL */
} sim_alg_t;

static const sim_alg_t sim_algs[] = {
    {SIM_ENCODE, "prepare_shoot", K_ENC_UNIV, LINCOLL_ENCODE_ALGO_PREPARE_SHOOT, "prepare_shoot"},
    {SIM_ENCODE, "best_window", K_ENC_UNIV, LINCOLL_ENCODE_ALGO_BEST_WINDOW, "best_window"},
    {SIM_ENCODE, "direct", K_ENC_UNIV, LINCOLL_ENCODE_ALGO_DIRECT, "direct"},
    {SIM_ENCODE, "dft", K_ENC_DFT, 0, "dft"},
    {SIM_ENCODE, "vandermonde", K_ENC_VDM, 0, "vandermonde_coset"},
    {SIM_ENCODE, "lagrange", K_ENC_LAG, 0, "lagrange_dft"},
    {SIM_ENCODE, "zcopy", K_ENC_ZC, 0, "zcopy"},
    {SIM_ENCODE, "zcopy_split", K_ENC_ZC, 1, "zcopy_split"},
    {SIM_RS_ENCODE, "prepare_shoot", K_RS, LINCOLL_ENCODE_ALGO_PREPARE_SHOOT, "prepare_shoot"},
    {SIM_RS_ENCODE, "best_window", K_RS, LINCOLL_ENCODE_ALGO_BEST_WINDOW, "best_window"},
    {SIM_RS_ENCODE, "direct", K_RS, LINCOLL_ENCODE_ALGO_DIRECT, "direct"},
    {SIM_REPAIR, "prepare_shoot", K_REPAIR, LINCOLL_ENCODE_ALGO_PREPARE_SHOOT, "prepare_shoot"},
    {SIM_REPAIR, "best_window", K_REPAIR, LINCOLL_ENCODE_ALGO_BEST_WINDOW, "best_window"},
    {SIM_REPAIR, "direct", K_REPAIR, LINCOLL_ENCODE_ALGO_DIRECT, "direct"},
    {SIM_REPAIR, "star", K_REPAIR_K, LINCOLL_REPAIR_ALGO_STAR, "repair_star"},
    {SIM_REPAIR, "tree", K_REPAIR_K, LINCOLL_REPAIR_ALGO_TREE, "repair_tree"},
    {SIM_REPAIR, "chain", K_REPAIR_K, LINCOLL_REPAIR_ALGO_CHAIN, "repair_chain"},
    {SIM_ALLREDUCE, "rhd", K_COLL, 1, "rhd_allreduce"},
    {SIM_ALLREDUCE, "ring", K_COLL, 2, "ring_allreduce"},
    {SIM_ALLREDUCE, "zcopy", K_COLL_ZC, ZC_ALLREDUCE, "zcopy_allreduce"},
    {SIM_ALLREDUCE, "zcopy_rd", K_COLL_ZC, ZC_RD_ALLREDUCE, "zcopy_rd_allreduce"},
    {SIM_REDUCE_SCATTER, "rhd", K_COLL, 1, "rhd_reduce_scatter"},
    {SIM_REDUCE_SCATTER, "ring", K_COLL, 2, "ring_reduce_scatter"},
    {SIM_REDUCE_SCATTER, "zcopy", K_COLL_ZC, ZC_REDUCE_SCATTER, "zcopy_reduce_scatter"},
    {SIM_REDUCE_SCATTER, "zcopy_rh", K_COLL_ZC, ZC_RH_RS, "zcopy_rh_reduce_scatter"},
    {SIM_ALLGATHER, "rhd", K_COLL, 1, "rhd_allgather"},
    {SIM_ALLGATHER, "ring", K_COLL, 2, "ring_allgather"},
    {SIM_ALLGATHER, "zcopy", K_COLL_ZC, ZC_ALLGATHER, "zcopy_allgather"},
    {SIM_ALLGATHER, "zcopy_rd", K_COLL_ZC, ZC_RD_ALLGATHER, "zcopy_rd_allgather"},
    {SIM_BCAST, "rhd", K_COLL, 1, "rhd_bcast"},
    {SIM_BCAST, "binomial", K_COLL, 3, "binomial_bcast"},
    {SIM_BCAST, "zcopy_direct", K_COLL_ZC, ZC_DIRECT_BCAST, "zcopy_direct_bcast"},
    {SIM_BCAST, "zcopy", K_COLL_ZC, ZC_BCAST, "zcopy_bcast"},
    {SIM_REDUCE, "rhd", K_COLL, 1, "rhd_reduce"},
    {SIM_REDUCE, "binomial", K_COLL, 3, "binomial_reduce"},
    {SIM_REDUCE, "zcopy_direct", K_COLL_ZC, ZC_DIRECT_REDUCE, "zcopy_direct_reduce"},
    {SIM_REDUCE, "zcopy", K_COLL_ZC, ZC_REDUCE, "zcopy_reduce"},
    {SIM_MATMUL, "ring1d", K_MATMUL, LINCOLL_MATMUL_RING, NULL},
    {SIM_MATMUL, "summa", K_MATMUL, LINCOLL_MATMUL_SUMMA, NULL},
    {SIM_MATMUL, "cannon", K_MATMUL, LINCOLL_MATMUL_CANNON, NULL},
    {SIM_MATMUL, "2.5d", K_MATMUL, LINCOLL_MATMUL_25D, NULL},
};
#define SIM_NALGS (sizeof(sim_algs) / sizeof(sim_algs[0]))

static const char *const sim_op_names[SIM_NOPS] = {"encode",    "rs_encode",      "repair",
                                                   "allreduce", "reduce_scatter", "allgather",
                                                   "bcast",     "reduce",         "matmul"};

static int sim_is_coll(sim_op_t op)
{
    return op >= SIM_ALLREDUCE && op <= SIM_REDUCE;
}

static lc_coll_op_t sim_coll_op(sim_op_t op)
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

int sim_algo_count(sim_op_t op)
{
    int n = 0;
    for (size_t i = 0; i < SIM_NALGS; i++)
        n += sim_algs[i].op == op;
    return n;
}

static const sim_alg_t *sim_alg(sim_op_t op, int algo)
{
    int n = 0;
    for (size_t i = 0; i < SIM_NALGS; i++) {
        if (sim_algs[i].op != op) continue;
        if (n++ == algo) return &sim_algs[i];
    }
    return NULL;
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
        if (strcmp(sim_alg(op, i)->name, name) == 0) return i;
    }
    /* accepted spellings */
    if (op == SIM_MATMUL && (strcmp(name, "25d") == 0 || strcmp(name, "2_5d") == 0))
        return sim_algo_find(op, "2.5d");
    if (op == SIM_MATMUL && strcmp(name, "ring") == 0) return sim_algo_find(op, "ring1d");
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

static int sim_pow_of(int K, int P, int *L_p)
{
    int L = 0;
    long v = 1;
    while (v < K)
        v *= P, L++;
    if (L_p) *L_p = L;
    return v == K;
}

/* the field an encode-family algorithm runs over (0: none fits) */
static uint64_t sim_field_q(const sim_params_t *prm, const sim_alg_t *a)
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

/* grid of an algorithm: pr x pc x c; -1 when K does not fit */
static int sim_mm_grid(const sim_params_t *prm, int algo_enum, int *pr, int *pc, int *c)
{
    const int K = prm->K;
    *c = 1;
    switch (algo_enum) {
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

/* ---- feasibility ---------------------------------------------------------- */

static int sim_log2_exact(int v)
{
    int k = 0;
    while ((1 << k) < v)
        k++;
    return (1 << k) == v ? k : -1;
}

int sim_algo_check(const sim_params_t *prm, int algo, char *why, size_t len)
{
    const sim_alg_t *a = sim_alg(prm->op, algo);
    const int K = prm->K, p = prm->ports;
    if (a == NULL) {
        snprintf(why, len, "no algorithm %d", algo);
        return -1;
    }
    if (prm->op <= SIM_REPAIR) {
        uint64_t q = sim_field_q(prm, a);
        if (q == 0) {
            snprintf(why, len, "no prime field q = cK+1 < 2^31 for K=%d", K);
            return -1;
        }
        switch (a->kind) {
        case K_ENC_DFT:
        case K_ENC_LAG: {
            if (!sim_pow_of(K, p + 1, NULL)) {
                snprintf(why, len, "%s needs K = (p+1)^L (K=%d, p+1=%d)", a->name, K, p + 1);
                return -1;
            }
            if (q < 3 || (q - 1) % (uint64_t)K != 0 ||
                (a->kind == K_ENC_LAG && q <= 2 * (uint64_t)K)) {
                snprintf(why, len, "%s needs K | q-1%s (q=%llu)", a->name,
                         a->kind == K_ENC_LAG ? " and q > 2K" : "", (unsigned long long)q);
                return -1;
            }
            break;
        }
        case K_ENC_VDM:
            if ((uint64_t)K > q - 1) {
                snprintf(why, len, "vandermonde needs K <= q-1 (q=%llu)", (unsigned long long)q);
                return -1;
            }
            break;
        case K_ENC_ZC:
            if (K < 2) {
                snprintf(why, len, "%s needs K >= 2", a->name);
                return -1;
            }
            break;
        case K_RS:
        case K_REPAIR:
        case K_REPAIR_K:
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
                    snprintf(why, len, "repair needs 1 <= lost <= N-k=%d (lost=%d)",
                             K - prm->data_k, prm->n_lost);
                    return -1;
                }
                /* every rank inverts the k x k survivor matrix at init */
                double work = pow((double)prm->data_k, 3) * (double)K;
                if (work > 4e10) {
                    snprintf(
                        why, len,
                        "repair: every rank inverts a k x k matrix at init (k^3 K = %.1e field "
                        "operations); use a smaller --data",
                        work);
                    return -1;
                }
            }
            break;
        default:
            break;
        }
        return 0;
    }
    if (sim_is_coll(prm->op)) {
        if (a->kind != K_COLL_ZC) return 0;
        if (K < 2) {
            snprintf(why, len, "%s needs K >= 2", a->name);
            return -1;
        }
        size_t bytes = prm->size;
        if (bytes == 0) {
            snprintf(why, len, "%s needs a non-empty vector", a->name);
            return -1;
        }
        switch ((sim_zc_t)a->aux) {
        case ZC_RD_ALLREDUCE:
        case ZC_RH_RS:
        case ZC_RD_ALLGATHER:
            if (sim_log2_exact(K) < 0) {
                snprintf(why, len, "%s needs K a power of two", a->name);
                return -1;
            }
            break;
        case ZC_BCAST:
        case ZC_REDUCE:
            if (K > 65) {
                snprintf(why, len, "%s (scratch rings) serves K <= 65", a->name);
                return -1;
            }
            break;
        case ZC_REDUCE_SCATTER:
        case ZC_ALLGATHER:
            if (bytes / lincoll_dtype_size(prm->dtype) < (size_t)K) {
                snprintf(why, len, "%s: fewer elements than ranks", a->name);
                return -1;
            }
            break;
        default:
            break;
        }
        return 0;
    }
    /* matmul */
    int pr, pc, c;
    if (sim_mm_grid(prm, a->aux, &pr, &pc, &c) != 0) {
        if (a->aux == LINCOLL_MATMUL_CANNON)
            snprintf(why, len, "cannon needs K = q^2 (K=%d)", K);
        else
            snprintf(why, len, "2.5d needs K = q^2 c with 2 <= c <= q%s (K=%d)",
                     prm->mm_layers > 0 ? " (--layers)" : "", K);
        return -1;
    }
    return 0;
}

/* zero-copy windows: every rank maps every peer (K^2 pairs per window) */
static int sim_algo_nwins(const sim_alg_t *a)
{
    if (a->kind == K_ENC_ZC) return a->aux ? 2 : 1;
    if (a->kind == K_COLL_ZC) return (a->aux == ZC_ALLREDUCE || a->aux == ZC_DIRECT_REDUCE) ? 2 : 1;
    return 0;
}

void sim_algo_setup_cost(const sim_params_t *prm, int algo, double *seconds, double *bytes,
                         char *what, size_t len)
{
    const sim_alg_t *a = sim_alg(prm->op, algo);
    const double K = prm->K, w = a ? sim_algo_nwins(a) : 0;
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

/* ---- jobs ----------------------------------------------------------------- */

struct sim_job {
    sim_params_t prm;
    const sim_alg_t *a;
    int K;
    lincoll_context_t **ctx;
    lincoll_comm_t **comm;
    lincoll_field_t *field;
    uint64_t *A; /* encode: K x K; rs/repair: N x k generator */
    int *survivors, *lost;
    void **in, **out; /* per rank */
    int lincoll_mem;  /* in/out are lincoll_mem_alloc memory */
    size_t in_bytes, out_bytes;
    lincoll_plan_t **pre; /* zero-copy: every rank's plan, bound together at create */
    size_t *counts;       /* RS/AG per-rank counts */
    size_t *displs;       /* and their exclusive prefix sums */
    lincoll_matdesc_t da, db, dc;
    char note[128];
};

static uint64_t sim_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* per-rank byte sizes of in/out for the job */
static void sim_job_sizes(sim_job_t *j, int r, size_t *inb, size_t *outb)
{
    const sim_params_t *p = &j->prm;
    *inb = *outb = 0;
    if (p->op <= SIM_REPAIR) {
        *inb = *outb = p->size;
        return;
    }
    if (sim_is_coll(p->op)) {
        size_t es = lincoll_dtype_size(p->dtype), n = p->size / es;
        switch (p->op) {
        case SIM_REDUCE_SCATTER:
            *inb = n * es, *outb = j->counts[r] * es;
            break;
        case SIM_ALLGATHER:
            *inb = j->counts[r] * es, *outb = n * es;
            break;
        case SIM_BCAST:
            *outb = n * es;
            break;
        default:
            *inb = *outb = n * es;
        }
        return;
    }
    /* matmul: local A, B, C */
    int64_t rows, cols, ld;
    size_t tot = 0;
    const lincoll_matdesc_t *ds[3] = {&j->da, &j->db, &j->dc};
    for (int x = 0; x < 3; x++) {
        if (lincoll_matdesc_local(ds[x], r, &rows, &cols, &ld) == LINCOLL_OK)
            tot += (size_t)(rows * cols) * 8;
    }
    *inb = tot;
}

size_t sim_job_rank_bytes(const sim_job_t *job, int r)
{
    size_t a, b;
    sim_job_sizes((sim_job_t *)job, r, &a, &b);
    return a + b;
}

size_t sim_job_shared_bytes(const sim_job_t *job)
{
    if (job->A == NULL) return 0;
    if (job->prm.op == SIM_ENCODE) return 8 * (size_t)job->K * (size_t)job->K;
    return 8 * (size_t)job->K * (size_t)job->prm.data_k;
}

const char *sim_job_note(const sim_job_t *job)
{
    return job->note;
}

static void *sim_alloc(size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    if (p != NULL) memset(p, 0, bytes);
    return p;
}

/* buffers of rank r (allocated once) */
static lincoll_status_t sim_job_bufs(sim_job_t *j, int r)
{
    if (j->in[r] != NULL || j->out[r] != NULL) return LINCOLL_OK;
    size_t inb, outb;
    sim_job_sizes(j, r, &inb, &outb);
    if (j->lincoll_mem) {
        if (lincoll_mem_alloc(j->ctx[r], inb ? inb : 64, &j->in[r]) != LINCOLL_OK ||
            lincoll_mem_alloc(j->ctx[r], outb ? outb : 64, &j->out[r]) != LINCOLL_OK)
            return LINCOLL_ERR_NOMEM;
        memset(j->in[r], 0, inb ? inb : 64);
        memset(j->out[r], 0, outb ? outb : 64);
    } else {
        j->in[r] = sim_alloc(inb ? inb : 64);
        j->out[r] = sim_alloc(outb ? outb : 64);
        if (j->in[r] == NULL || j->out[r] == NULL) return LINCOLL_ERR_NOMEM;
    }
    return LINCOLL_OK;
}

static lc_coll_args_t sim_coll_args(const sim_job_t *j, int r)
{
    const sim_params_t *p = &j->prm;
    size_t es = lincoll_dtype_size(p->dtype), n = p->size / es;
    lc_coll_args_t a = {.op = sim_coll_op(p->op),
                        .sbuf = j->in[r],
                        .rbuf = j->out[r],
                        .count = n,
                        .total = n,
                        .dtype = p->dtype,
                        .rop = LINCOLL_SUM,
                        .root = p->root,
                        .es = es};
    if (p->op == SIM_REDUCE_SCATTER || p->op == SIM_ALLGATHER) {
        a.counts = j->counts;
        a.displs = j->displs;
    }
    if (p->op == SIM_BCAST) a.sbuf = NULL;
    return a;
}

/* zero-copy collective: every rank's IR from the registry (compiled for
 * mapped peers), bound together (the bind records exchanged by hand) */
static lincoll_status_t sim_zc_coll_setup(sim_job_t *j)
{
    const int K = j->K;
    const lc_coll_alg_t *alg = NULL;
    lc_plan_t **irs = calloc((size_t)K, sizeof(*irs));
    lincoll_status_t st = irs ? LINCOLL_OK : LINCOLL_ERR_NOMEM;
    for (int r = 0; r < K && st == LINCOLL_OK; r++) {
        st = sim_job_bufs(j, r);
        if (st != LINCOLL_OK) break;
        lc_coll_args_t a = sim_coll_args(j, r);
        if (alg == NULL) alg = lc_coll_find(a.op, j->a->plan);
        if (alg == NULL) {
            st = LINCOLL_ERR_INTERNAL;
            break;
        }
        lc_env_t env = lc_exec_env(j->comm[r], 1);
        st = lc_coll_compile_any(alg, &env, &a, &irs[r]);
    }
    if (st == LINCOLL_OK) {
        st = lc_bind_together(j->comm, K, irs, j->pre);
    } else {
        for (int r = 0; irs != NULL && r < K; r++)
            lc_plan_destroy(irs[r]);
    }
    free(irs);
    return st;
}

/* zero-copy encode: every rank's zcopy (zcopy_split) IR, bound together */
static lincoll_status_t sim_zc_enc_setup(sim_job_t *j)
{
    const int K = j->K;
    const size_t B = j->prm.size;
    lc_plan_t **irs = calloc((size_t)K, sizeof(*irs));
    lincoll_status_t st = irs ? LINCOLL_OK : LINCOLL_ERR_NOMEM;
    for (int r = 0; r < K && st == LINCOLL_OK; r++) {
        st = sim_job_bufs(j, r);
        if (st != LINCOLL_OK) break;
        lc_enc_b_t b;
        lc_env_t env = lc_exec_env(j->comm[r], 1);
        st = lc_enc_builder(&b, &env, "encode", j->prm.ports, j->field, B, 0);
        if (st != LINCOLL_OK) break;
        b.plan->env.mapped = 1;
        int si = lc_plan_slot_user(b.plan, j->in[r], B),
            so = lc_plan_slot_user(b.plan, j->out[r], B);
        lc_enc_dense_t d = {.A = j->A, .K = K, .q = lincoll_gf_field_order(j->field), .bad_j = -1};
        st = si < 0 || so < 0 ? LINCOLL_ERR_NOMEM
             : j->a->aux ? lc_enc_zcopy_split_build(&b, K, r, lc_enc_dense_coef, &d, lc_ref(si, 0),
                                                    lc_ref(so, 0))
                         : lc_enc_zcopy_build(&b, K, r, lc_enc_dense_coef, &d, lc_ref(si, 0),
                                              lc_ref(so, 0));
        if (st == LINCOLL_OK) st = lc_plan_finalize(b.plan);
        if (st == LINCOLL_OK) {
            irs[r] = b.plan;
        } else {
            lc_plan_destroy(b.plan);
        }
    }
    if (st == LINCOLL_OK) {
        st = lc_bind_together(j->comm, K, irs, j->pre);
    } else {
        for (int r = 0; irs != NULL && r < K; r++)
            lc_plan_destroy(irs[r]);
    }
    free(irs);
    return st;
}

lincoll_status_t sim_job_create(const sim_params_t *prm, int algo, lincoll_context_t **ctx,
                                lincoll_comm_t **comm, sim_job_t **job_p, char *why, size_t len)
{
    const sim_alg_t *a = sim_alg(prm->op, algo);
    if (a == NULL) return LINCOLL_ERR_INVALID;
    sim_job_t *j = calloc(1, sizeof(*j));
    if (j == NULL) return LINCOLL_ERR_NOMEM;
    j->prm = *prm;
    j->a = a;
    j->K = prm->K;
    j->ctx = ctx;
    j->comm = comm;
    const int K = prm->K;
    j->in = calloc((size_t)K, sizeof(void *));
    j->out = calloc((size_t)K, sizeof(void *));
    j->pre = calloc((size_t)K, sizeof(*j->pre));
    lincoll_status_t st = (j->in && j->out && j->pre) ? LINCOLL_OK : LINCOLL_ERR_NOMEM;
    uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)K;
    if (st == LINCOLL_OK && prm->op <= SIM_REPAIR) {
        uint64_t q = sim_field_q(prm, a);
        st = lincoll_gf_field_create(q, &j->field);
        if (st != LINCOLL_OK) {
            snprintf(why, len, "field q=%llu: %s", (unsigned long long)q, lincoll_strerror(st));
            goto fail;
        }
        snprintf(j->note, sizeof(j->note), "GF(%llu)", (unsigned long long)q);
        if (a->kind == K_ENC_UNIV || a->kind == K_ENC_ZC) {
            /* a dense random matrix: no zero entry, so direct receives every packet */
            j->A = malloc(8 * (size_t)K * (size_t)K);
            if (j->A == NULL) st = LINCOLL_ERR_NOMEM;
            for (size_t i = 0; st == LINCOLL_OK && i < (size_t)K * (size_t)K; i++)
                j->A[i] = 1 + sim_rand(&seed) % (q - 1);
        } else if (a->kind == K_RS || a->kind == K_REPAIR || a->kind == K_REPAIR_K) {
            /* one Cauchy generator for every rank (built once, passed as gen) */
            const int k = prm->data_k;
            j->A = malloc(8 * (size_t)K * (size_t)k);
            st = j->A ? lincoll_gf_matrix_systematic(j->field, K, k, LINCOLL_GF_RS_CAUCHY, j->A)
                      : LINCOLL_ERR_NOMEM;
            if ((a->kind == K_REPAIR || a->kind == K_REPAIR_K) && st == LINCOLL_OK) {
                /* lost: ranks 0 .. n_lost-1; survivors: the next k ranks */
                j->lost = malloc(sizeof(int) * (size_t)prm->n_lost);
                j->survivors = malloc(sizeof(int) * (size_t)k);
                if (j->lost == NULL || j->survivors == NULL) st = LINCOLL_ERR_NOMEM;
                for (int i = 0; st == LINCOLL_OK && i < prm->n_lost; i++)
                    j->lost[i] = i;
                for (int i = 0; st == LINCOLL_OK && i < k; i++)
                    j->survivors[i] = prm->n_lost + i;
            }
            if (a->kind == K_REPAIR || a->kind == K_REPAIR_K)
                snprintf(j->note, sizeof(j->note), "GF(%llu) k=%d lost=%d", (unsigned long long)q,
                         k, prm->n_lost);
            else
                snprintf(j->note, sizeof(j->note), "GF(%llu) k=%d", (unsigned long long)q, k);
        }
        if (st == LINCOLL_OK && a->kind == K_ENC_ZC) {
            j->lincoll_mem = 1;
            st = sim_zc_enc_setup(j);
        }
    } else if (st == LINCOLL_OK && sim_is_coll(prm->op)) {
        size_t es = lincoll_dtype_size(prm->dtype), n = prm->size / es;
        j->counts = calloc((size_t)K, sizeof(size_t));
        j->displs = calloc((size_t)K + 1, sizeof(size_t));
        if (j->counts == NULL || j->displs == NULL) st = LINCOLL_ERR_NOMEM;
        for (int r = 0; st == LINCOLL_OK && r < K; r++) {
            j->counts[r] = n / (size_t)K + ((size_t)r < n % (size_t)K);
            j->displs[r + 1] = j->displs[r] + j->counts[r];
        }
        snprintf(j->note, sizeof(j->note), "%s", lincoll_dtype_name(prm->dtype));
        if (st == LINCOLL_OK && a->kind == K_COLL_ZC) {
            j->lincoll_mem = 1;
            st = sim_zc_coll_setup(j);
        }
    } else if (st == LINCOLL_OK) {
        int pr, pc, c;
        if (sim_mm_grid(prm, a->aux, &pr, &pc, &c) != 0) {
            snprintf(why, len, "no grid for K=%d", K);
            st = LINCOLL_ERR_UNSUPPORTED;
            goto fail;
        }
        st = lincoll_matdesc_block(&j->da, prm->mm_n, prm->mm_n, pr, pc, c, LINCOLL_COL_MAJOR);
        j->db = j->dc = j->da;
        snprintf(j->note, sizeof(j->note), "n=%lld grid %dx%dx%d%s", (long long)prm->mm_n, pr, pc,
                 c, prm->comm_only ? " comm-only" : "");
    }
    if (st != LINCOLL_OK) {
        if (why[0] == '\0') snprintf(why, len, "setup: %s", lincoll_strerror(st));
        goto fail;
    }
    *job_p = j;
    return LINCOLL_OK;
fail:
    sim_job_destroy(j);
    return st != LINCOLL_OK ? st : LINCOLL_ERR_INTERNAL;
}

/* one tag-plan compile of rank r with encode algo / coll algo / matmul algo given */
static lincoll_status_t sim_compile_as(sim_job_t *j, int r, int forced, lincoll_plan_t **plan_p)
{
    const sim_params_t *p = &j->prm;
    const sim_alg_t *a = j->a;
    lincoll_comm_t *cm = j->comm[r];
    lincoll_status_t st = sim_job_bufs(j, r);
    if (st != LINCOLL_OK) return st;
    void *in = j->in[r], *out = j->out[r];
    lincoll_encode_opts_t eo = {.ports = p->ports, .algo = (lincoll_encode_algo_t)forced};
    switch (a->kind) {
    case K_ENC_UNIV:
    case K_ENC_ZC: /* the automatic choice of a zcopy job: the tag algorithms */
        return lincoll_encode_init(cm, j->field, j->A, j->K, j->K, p->size, in, out, &eo, plan_p);
    case K_ENC_DFT:
        return lincoll_encode_dft_init(cm, j->field, 0, p->size, in, out, &eo, plan_p);
    case K_ENC_VDM:
        return lincoll_encode_vandermonde_init(cm, j->field, NULL, NULL, p->size, in, out, &eo,
                                               plan_p);
    case K_ENC_LAG:
        return lincoll_encode_lagrange_init(cm, j->field, NULL, NULL, NULL, NULL, p->size, in, out,
                                            &eo, plan_p);
    case K_RS:
        return lincoll_encode_rs_init(cm, j->field, p->data_k, LINCOLL_GF_RS_CAUCHY, j->A, p->size,
                                      in, out, &eo, plan_p);
    case K_REPAIR:
        return lincoll_encode_repair_init(cm, j->field, p->data_k, LINCOLL_GF_RS_CAUCHY, j->A,
                                          j->survivors, p->n_lost, j->lost, p->size, in, out, &eo,
                                          plan_p);
    case K_REPAIR_K: {
        /* ranks 0 .. n_lost-1 rebuild their rows, the others give theirs */
        int *holds = malloc(sizeof(int) * (size_t)j->K),
            *needs = malloc(sizeof(int) * (size_t)j->K);
        if (holds == NULL || needs == NULL) st = LINCOLL_ERR_NOMEM;
        for (int i = 0; st == LINCOLL_OK && i < j->K; i++) {
            holds[i] = i >= p->n_lost ? i : -1;
            needs[i] = i < p->n_lost ? i : -1;
        }
        lincoll_repair_opts_t ro = {.ports = p->ports, .algo = (lincoll_repair_algo_t)forced};
        if (st == LINCOLL_OK)
            st = lincoll_encode_repair_k_init(cm, j->field, j->K, p->data_k, LINCOLL_GF_RS_CAUCHY,
                                              j->A, holds, needs, p->size, in, out, &ro, plan_p);
        free(holds);
        free(needs);
        return st;
    }
    case K_COLL:
    case K_COLL_ZC: {
        /* forced: the registry's plan name; 0: the automatic choice */
        const char *var = lc_coll_op_var(sim_coll_op(p->op)); /* LINCOLL_<OP>_ALGO */
        if (setenv(var, forced && a->kind == K_COLL ? a->plan : "auto", 1) != 0)
            return LINCOLL_ERR_NOMEM;
        size_t es = lincoll_dtype_size(p->dtype), n = p->size / es;
        switch (p->op) {
        case SIM_ALLREDUCE:
            st = lincoll_allreduce_init(cm, in, out, n, p->dtype, LINCOLL_SUM, plan_p);
            break;
        case SIM_REDUCE_SCATTER:
            st =
                lincoll_reduce_scatterv_init(cm, in, out, j->counts, p->dtype, LINCOLL_SUM, plan_p);
            break;
        case SIM_ALLGATHER:
            st = lincoll_allgatherv_init(cm, in, out, j->counts, p->dtype, plan_p);
            break;
        case SIM_BCAST:
            st = lincoll_bcast_init(cm, out, n, p->dtype, p->root, plan_p);
            break;
        default:
            st = lincoll_reduce_init(cm, in, out, n, p->dtype, LINCOLL_SUM, p->root, plan_p);
        }
        unsetenv(var);
        return st;
    }
    case K_MATMUL: {
        lincoll_matmul_opts_t mo = {.algo = (lincoll_matmul_algo_t)forced,
                                    .flags = p->comm_only ? LINCOLL_MATMUL_COMM_ONLY : 0};
        int64_t rows, cols, ld;
        char *base = in;
        void *bufs[3] = {NULL, NULL, NULL};
        const lincoll_matdesc_t *ds[3] = {&j->da, &j->db, &j->dc};
        for (int x = 0; x < 3; x++) {
            if (lincoll_matdesc_local(ds[x], r, &rows, &cols, &ld) != LINCOLL_OK) continue;
            if (rows * cols > 0) bufs[x] = base;
            base += (size_t)(rows * cols) * 8;
        }
        return lincoll_matmul_init(cm, LINCOLL_DOUBLE, 1.0, bufs[0], &j->da, bufs[1], &j->db, 0.0,
                                   bufs[2], &j->dc, &mo, plan_p);
    }
    }
    return LINCOLL_ERR_INTERNAL;
}

lincoll_status_t sim_job_compile(sim_job_t *job, int r, lincoll_plan_t **plan_p)
{
    const sim_alg_t *a = job->a;
    lincoll_status_t st;
    *plan_p = NULL;
    if (a->kind == K_ENC_ZC || a->kind == K_COLL_ZC) {
        *plan_p = job->pre[r]; /* bound together at create */
        job->pre[r] = NULL;
        st = *plan_p != NULL ? LINCOLL_OK : LINCOLL_ERR_INTERNAL;
    } else {
        int forced = a->aux;
        if (a->kind == K_ENC_DFT || a->kind == K_ENC_VDM || a->kind == K_ENC_LAG)
            forced = LINCOLL_ENCODE_ALGO_SPECIFIC;
        st = sim_compile_as(job, r, forced, plan_p);
    }
    if (st != LINCOLL_OK) return st;
    /* the plan must be the algorithm asked for (no silent fallback) */
    lincoll_plan_stats_t s;
    if (a->plan != NULL && lincoll_plan_stats(*plan_p, &s) == LINCOLL_OK &&
        strcmp(s.algorithm, a->plan) != 0) {
        lincoll_plan_free(*plan_p);
        *plan_p = NULL;
        return LINCOLL_ERR_UNSUPPORTED;
    }
    return LINCOLL_OK;
}

lincoll_status_t sim_job_choice(sim_job_t *job, char *name, size_t len)
{
    lincoll_plan_t *plan = NULL;
    /* a zero-copy job's buffers are lincoll memory: the automatic choice over
     * them would run the collective agreement; the tag choice uses malloc'ed
     * copies of rank 0's buffers instead */
    void *sin = job->in[0], *sout = job->out[0];
    int lm = job->lincoll_mem;
    if (lm) {
        job->in[0] = job->out[0] = NULL;
        job->lincoll_mem = 0;
    }
    lincoll_status_t st = sim_compile_as(job, 0, 0, &plan);
    if (st == LINCOLL_OK) {
        lincoll_plan_stats_t s;
        lincoll_matmul_info_t mi;
        if (job->a->kind == K_MATMUL && lincoll_matmul_info(plan, &mi) == LINCOLL_OK) {
            int idx = -1;
            for (int i = 0; i < sim_algo_count(SIM_MATMUL); i++)
                if (sim_alg(SIM_MATMUL, i)->aux == (int)mi.algo) idx = i;
            snprintf(name, len, "%s", idx >= 0 ? sim_algo_name(SIM_MATMUL, idx) : "?");
        } else if (lincoll_plan_stats(plan, &s) == LINCOLL_OK) {
            /* report it under lincoll_sim's algorithm names */
            const char *nm = s.algorithm;
            for (int i = 0; i < sim_algo_count(job->prm.op); i++) {
                const sim_alg_t *x = sim_alg(job->prm.op, i);
                if (x->plan != NULL && strcmp(x->plan, s.algorithm) == 0) nm = x->name;
            }
            snprintf(name, len, "%s", nm);
        }
        lincoll_plan_free(plan);
    }
    if (lm) {
        free(job->in[0]);
        free(job->out[0]);
        job->in[0] = sin, job->out[0] = sout;
        job->lincoll_mem = 1;
    }
    return st;
}

void sim_plan_model_inputs(const lincoll_plan_t *plan, double *compute_bytes, double *moved_bytes,
                           double *flops)
{
    /* the IR's steps (compute: their work; bytes through peer views: moved) */
    const lc_plan_t *ir = lc_plan_of(plan);
    double w = 0, f = 0;
    for (unsigned r = 0; r < ir->nrounds; r++) {
        const lc_round_t *R = &ir->rounds[r];
        const lc_step_t *lists[3] = {R->pre, R->during, R->post};
        const unsigned ns[3] = {R->npre, R->nduring, R->npost};
        for (int l = 0; l < 3; l++)
            for (unsigned i = 0; i < ns[l]; i++) {
                w += lists[l][i].work;
                f += lists[l][i].flops;
            }
    }
    *moved_bytes = (double)ir->stats.moved_bytes;
    *compute_bytes = w - *moved_bytes > 0 ? w - *moved_bytes : 0;
    *flops = f;
}

void sim_job_destroy(sim_job_t *j)
{
    if (j == NULL) return;
    for (int r = 0; r < j->K; r++) {
        if (j->pre) lincoll_plan_free(j->pre[r]);
        if (j->lincoll_mem) {
            if (j->in && j->in[r]) lincoll_mem_free(j->ctx[r], j->in[r]);
            if (j->out && j->out[r]) lincoll_mem_free(j->ctx[r], j->out[r]);
        } else {
            if (j->in) free(j->in[r]);
            if (j->out) free(j->out[r]);
        }
    }
    free(j->in);
    free(j->out);
    free(j->pre);
    free(j->A);
    free(j->lost);
    free(j->survivors);
    free(j->counts);
    free(j->displs);
    if (j->field) lincoll_gf_field_destroy(j->field);
    free(j);
}
