/*
 * perf/sim/sim_job.c: one (parameters, algorithm) on K virtual ranks: the
 * shared data, every rank's buffers and plan (see sim_algos.h).
 *
 *  - encode family: the public inits (lincoll_encode_init, _dft_init,
 *    _vandermonde_init, _lagrange_init, _rs_init, _repair_init,
 *    _repair_k_init) with opts->algo the registry entry's; a zero-copy
 *    encode: the entry's compiler on every rank, the plans bound together
 *    (lc_bind_together: the records exchanged by hand);
 *  - collectives: the registry entry compiled for each rank (lc_coll_compile,
 *    a zero-copy entry lc_coll_compile_any over mapped peers, bound
 *    together), bound as the public init binds it;
 *  - matmul: lincoll_matmul_init with opts.algo the entry's.
 * The automatic choice (the "choice" column) is the public init's own.
 * Every context runs with LINCOLL_ALGO_FALLBACK=error semantics (set by the
 * driver), so a forced algorithm that cannot serve a call fails instead of
 * silently compiling another one.
 */
#include <lincoll/coll.h>
#include <lincoll/encode.h>
#include <lincoll/matmul.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exec/exec.h"
#include "sim_algos_int.h"

struct sim_job {
    sim_params_t prm;
    const sim_alg_t *a;
    int K;
    lincoll_context_t **ctx;
    lincoll_comm_t **comm;
    lincoll_field_t *field;
    uint64_t *A; /* encode: K x K; rs/repair: N x k generator */
    int *survivors, *lost;
    void **in, **out;     /* per rank */
    int lincoll_mem;      /* in/out are lincoll_mem_alloc memory */
    lincoll_plan_t **pre; /* zero-copy: every rank's plan, bound together at create */
    size_t *counts;       /* RS/AG per-rank counts */
    size_t *displs;       /* and their exclusive prefix sums */
    lincoll_matdesc_t da, db, dc;
    char note[128];
};

static int sim_is_zc(const sim_alg_t *a)
{
    return a->kind == K_ENC_ZC || (a->kind == K_COLL && a->coll->mapped);
}

static uint64_t sim_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* per-rank byte sizes of in/out for the job */
static void sim_job_sizes(const sim_job_t *j, int r, size_t *inb, size_t *outb)
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
    sim_job_sizes(job, r, &a, &b);
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

static lc_coll_args_t sim_job_coll_args(const sim_job_t *j, int r)
{
    return sim_coll_args(&j->prm, j->counts, j->displs, j->in[r], j->out[r]);
}

/* rank r's IR of a zero-copy algorithm (its registry compiler, peers mapped) */
static lincoll_status_t sim_zc_ir(sim_job_t *j, int r, lc_plan_t **ir_p)
{
    lc_env_t env = lc_exec_env(j->comm[r], 1);
    if (j->a->kind == K_COLL) {
        lc_coll_args_t a = sim_job_coll_args(j, r);
        return lc_coll_compile_any(j->a->coll, &env, &a, ir_p);
    }
    const size_t B = j->prm.size;
    lc_enc_b_t b;
    lincoll_status_t st = lc_enc_builder(&b, &env, "encode", j->prm.ports, j->field, B, 0);
    if (st != LINCOLL_OK) return st;
    b.plan->env.mapped = 1;
    int si = lc_plan_slot_user(b.plan, j->in[r], B), so = lc_plan_slot_user(b.plan, j->out[r], B);
    lc_enc_dense_t d = {.A = j->A, .K = j->K, .q = lincoll_gf_field_order(j->field), .bad_j = -1};
    const lc_enc_args_t ea =
        lc_enc_args(&b, j->K, r, lc_enc_dense_coef, &d, lc_ref(si, 0), lc_ref(so, 0));
    st = si < 0 || so < 0 ? LINCOLL_ERR_NOMEM : j->a->enc->compile(&b, &ea);
    if (st == LINCOLL_OK) st = lc_plan_finalize(b.plan);
    if (st == LINCOLL_OK) {
        *ir_p = b.plan;
    } else {
        lc_plan_destroy(b.plan);
    }
    return st;
}

/* zero-copy: every rank's IR, bound together (the bind records exchanged by hand) */
static lincoll_status_t sim_zc_setup(sim_job_t *j)
{
    const int K = j->K;
    lc_plan_t **irs = calloc((size_t)K, sizeof(*irs));
    lincoll_status_t st = irs ? LINCOLL_OK : LINCOLL_ERR_NOMEM;
    for (int r = 0; r < K && st == LINCOLL_OK; r++) {
        st = sim_job_bufs(j, r);
        if (st == LINCOLL_OK) st = sim_zc_ir(j, r, &irs[r]);
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

/* the encode family's field and data (matrix, generator, survivors) */
static lincoll_status_t sim_job_encode_data(sim_job_t *j, char *why, size_t len)
{
    const sim_params_t *prm = &j->prm;
    const sim_alg_t *a = j->a;
    const int K = j->K;
    uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)K;
    uint64_t q = sim_field_q(prm, a);
    lincoll_status_t st = lincoll_gf_field_create(q, &j->field);
    if (st != LINCOLL_OK) {
        snprintf(why, len, "field q=%llu: %s", (unsigned long long)q, lincoll_strerror(st));
        return st;
    }
    snprintf(j->note, sizeof(j->note), "GF(%llu)", (unsigned long long)q);
    if (a->kind == K_ENC_UNIV || a->kind == K_ENC_ZC) {
        /* a dense random matrix: no zero entry, so direct receives every packet */
        j->A = malloc(8 * (size_t)K * (size_t)K);
        if (j->A == NULL) return LINCOLL_ERR_NOMEM;
        for (size_t i = 0; i < (size_t)K * (size_t)K; i++)
            j->A[i] = 1 + sim_rand(&seed) % (q - 1);
    } else if (a->kind == K_RS || a->kind == K_REPAIR || a->kind == K_REPAIR_K) {
        /* one Cauchy generator for every rank (built once, passed as gen) */
        const int k = prm->data_k;
        j->A = malloc(8 * (size_t)K * (size_t)k);
        st = j->A ? lincoll_gf_matrix_systematic(j->field, K, k, LINCOLL_GF_RS_CAUCHY, j->A)
                  : LINCOLL_ERR_NOMEM;
        if (a->kind == K_RS) {
            snprintf(j->note, sizeof(j->note), "GF(%llu) k=%d", (unsigned long long)q, k);
            return st;
        }
        /* lost: ranks 0 .. n_lost-1; survivors: the next k ranks */
        j->lost = malloc(sizeof(int) * (size_t)prm->n_lost);
        j->survivors = malloc(sizeof(int) * (size_t)k);
        if (j->lost == NULL || j->survivors == NULL) return LINCOLL_ERR_NOMEM;
        for (int i = 0; i < prm->n_lost; i++)
            j->lost[i] = i;
        for (int i = 0; i < k; i++)
            j->survivors[i] = prm->n_lost + i;
        snprintf(j->note, sizeof(j->note), "GF(%llu) k=%d lost=%d", (unsigned long long)q, k,
                 prm->n_lost);
    }
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
    if (st == LINCOLL_OK && prm->op <= SIM_REPAIR) {
        st = sim_job_encode_data(j, why, len);
    } else if (st == LINCOLL_OK && sim_is_coll(prm->op)) {
        if (sim_coll_counts(prm, &j->counts, &j->displs) != 0) st = LINCOLL_ERR_NOMEM;
        snprintf(j->note, sizeof(j->note), "%s", lincoll_dtype_name(prm->dtype));
    } else if (st == LINCOLL_OK) {
        int pr, pc, c;
        if (sim_mm_grid(prm, a, &pr, &pc, &c) != 0) {
            snprintf(why, len, "no grid for K=%d", K);
            st = LINCOLL_ERR_UNSUPPORTED;
            goto fail;
        }
        st = lincoll_matdesc_block(&j->da, prm->mm_n, prm->mm_n, pr, pc, c, LINCOLL_COL_MAJOR);
        j->db = j->dc = j->da;
        snprintf(j->note, sizeof(j->note), "n=%lld grid %dx%dx%d%s", (long long)prm->mm_n, pr, pc,
                 c, prm->comm_only ? " comm-only" : "");
    }
    if (st == LINCOLL_OK && sim_is_zc(a)) {
        j->lincoll_mem = 1;
        st = sim_zc_setup(j);
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

/* the public init of a collective (the library's automatic choice) */
static lincoll_status_t sim_coll_init(sim_job_t *j, int r, lincoll_plan_t **plan_p)
{
    const sim_params_t *p = &j->prm;
    lincoll_comm_t *cm = j->comm[r];
    void *in = j->in[r], *out = j->out[r];
    size_t n = p->size / lincoll_dtype_size(p->dtype);
    switch (p->op) {
    case SIM_ALLREDUCE:
        return lincoll_allreduce_init(cm, in, out, n, p->dtype, LINCOLL_SUM, plan_p);
    case SIM_REDUCE_SCATTER:
        return lincoll_reduce_scatterv_init(cm, in, out, j->counts, p->dtype, LINCOLL_SUM, plan_p);
    case SIM_ALLGATHER:
        return lincoll_allgatherv_init(cm, in, out, j->counts, p->dtype, plan_p);
    case SIM_BCAST:
        return lincoll_bcast_init(cm, out, n, p->dtype, p->root, plan_p);
    default:
        return lincoll_reduce_init(cm, in, out, n, p->dtype, LINCOLL_SUM, p->root, plan_p);
    }
}

/* one tag-plan compile of rank r: the job's algorithm (forced) or the
 * library's automatic choice */
static lincoll_status_t sim_compile_as(sim_job_t *j, int r, int forced, lincoll_plan_t **plan_p)
{
    const sim_params_t *p = &j->prm;
    const sim_alg_t *a = j->a;
    lincoll_comm_t *cm = j->comm[r];
    lincoll_status_t st = sim_job_bufs(j, r);
    if (st != LINCOLL_OK) return st;
    void *in = j->in[r], *out = j->out[r];
    lincoll_encode_opts_t eo = {.ports = p->ports, .algo = LINCOLL_ENCODE_ALGO_AUTO};
    if (forced && a->enc != NULL) eo.algo = (lincoll_encode_algo_t)lc_enc_alg_id(a->enc);
    if (forced && (a->kind == K_ENC_DFT || a->kind == K_ENC_VDM || a->kind == K_ENC_LAG))
        eo.algo = LINCOLL_ENCODE_ALGO_SPECIFIC;
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
        lincoll_repair_opts_t ro = {.ports = p->ports,
                                    .algo = forced ? a->rep->algo : LINCOLL_REPAIR_ALGO_AUTO};
        if (st == LINCOLL_OK)
            st = lincoll_encode_repair_k_init(cm, j->field, j->K, p->data_k, LINCOLL_GF_RS_CAUCHY,
                                              j->A, holds, needs, p->size, in, out, &ro, plan_p);
        free(holds);
        free(needs);
        return st;
    }
    case K_COLL: {
        if (!forced) return sim_coll_init(j, r, plan_p);
        /* the registry's compiler, bound as lincoll_<op>_init binds a tag plan */
        lc_env_t env = lc_exec_env(cm, 0);
        lc_coll_args_t ca = sim_job_coll_args(j, r);
        lc_plan_t *ir = NULL;
        st = lc_coll_compile(a->coll, &env, &ca, &ir);
        return st == LINCOLL_OK ? lc_bind_local(cm, ir, plan_p) : st;
    }
    case K_MATMUL: {
        lincoll_matmul_opts_t mo = {.algo = forced ? a->mm->algo : LINCOLL_MATMUL_AUTO,
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
    if (sim_is_zc(a)) {
        *plan_p = job->pre[r]; /* bound together at create */
        job->pre[r] = NULL;
        st = *plan_p != NULL ? LINCOLL_OK : LINCOLL_ERR_INTERNAL;
    } else {
        st = sim_compile_as(job, r, 1, plan_p);
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

/* the sim's name of a plan: the algorithm of the row's operation that
 * compiles it, else the plan's own name */
static void sim_choice_name(const sim_job_t *job, lincoll_plan_t *plan, char *name, size_t len)
{
    lincoll_plan_stats_t s;
    lincoll_matmul_info_t mi;
    const char *nm = "?";
    if (job->a->kind == K_MATMUL && lincoll_matmul_info(plan, &mi) == LINCOLL_OK) {
        const lc_mm_alg_t *m = lc_mm_alg(mi.algo);
        if (m != NULL) nm = m->name;
    } else if (lincoll_plan_stats(plan, &s) == LINCOLL_OK) {
        nm = s.algorithm;
        for (int i = 0; i < sim_algo_count(job->prm.op); i++) {
            const sim_alg_t *x = sim_alg(job->prm.op, i);
            if (x->plan != NULL && strcmp(x->plan, s.algorithm) == 0) nm = x->name;
        }
    }
    snprintf(name, len, "%s", nm);
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
        sim_choice_name(job, plan, name, len);
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
