/*
 * perf/sim/lincoll_sim.c: lincoll_sim, the real plans of an operation on K
 * virtual ranks of the sim transport, with the rounds, C2, bytes and
 * messages the sim measures and an alpha-beta-gamma prediction from a
 * machine profile.  See usage() for the command line and the output; the
 * algorithms come from the library's registries (sim_algos.c) and are
 * compiled in sim_job.c.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <lincoll/lincoll.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/base/profile.h"
#include "core/context/context.h"
#include "transports/sim/api.h"
#include "sim_algos.h"

#define SIM_MAX_ALGOS 64

/* ---- model ------------------------------------------------------------------ */

typedef struct sim_model {
    double alpha;        /* s per round */
    double beta;         /* s per byte per port */
    double gamma;        /* s per byte of local compute */
    double flops;        /* flop/s of the local GEMM */
    double alpha_mapped; /* s per round of stores and flags (zero copy) */
    double beta_mapped;  /* s/B of zero-copy loads and stores (0: beta) */
    double gamma_reduce; /* s/B of a reduction (0: gamma) */
    int ports;           /* default p (0: none given) */
    char name[64];
    int have_alpha, have_beta, have_gamma, have_flops;
} sim_model_t;

/* ---- one row of output ----------------------------------------------------- */

typedef struct sim_row {
    const char *op, *algo;
    int K, p;
    size_t size;
    int ok;          /* counts valid */
    char status[16]; /* ok | infeasible | error */
    char note[256];
    unsigned rounds;
    uint64_t c2;
    uint64_t bytes_max, msgs_max, rbytes_max, rmsgs_max;
    double bytes_mean, msgs_mean;
    double compute, moved, flops;
    double pred_us, plan_us;
    char choice[40];
    double wall_s;
} sim_row_t;

/* the csv columns, in order; -q takes any of these names */
static const char *const sim_cols[] = {
    "op",        "algo",       "K",         "p",       "size",   "rounds",
    "c2",        "bytes_max",  "msgs_max",  "pred_us", "choice", "bytes_mean",
    "msgs_mean", "rbytes_max", "rmsgs_max", "compute", "moved",  "flops",
    "plan_us",   "wall_s",     "status",    "note"};
#define SIM_NCOLS ((int)(sizeof(sim_cols) / sizeof(sim_cols[0])))

/* ---- small helpers ------------------------------------------------------------- */

static const char *prog = "lincoll_sim";

/* one line on stderr naming the argument, exit status 2 */
static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "64", "4k", "1m", "2g" (powers of 1024); -1 on error */
static int parse_size(const char *t, size_t *out)
{
    if (t == NULL || *t == '\0' || *t == '-') return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(t, &end, 10);
    if (errno != 0 || end == t) return -1;
    unsigned sh = 0;
    if (*end != '\0') {
        switch (*end) {
        case 'k':
        case 'K':
            sh = 10;
            break;
        case 'm':
        case 'M':
            sh = 20;
            break;
        case 'g':
        case 'G':
            sh = 30;
            break;
        default:
            return -1;
        }
        end++;
        if (*end == 'b' || *end == 'B') end++;
        if (*end != '\0') return -1;
    }
    if (sh && v > (ULLONG_MAX >> sh)) return -1;
    *out = (size_t)(v << sh);
    return 0;
}

static int parse_int(const char *t, long lo, long hi, long *out)
{
    if (t == NULL || *t == '\0') return -1;
    errno = 0;
    char *end;
    long v = strtol(t, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static int parse_pos_double(const char *t, double *out)
{
    if (t == NULL || *t == '\0') return -1;
    errno = 0;
    char *end;
    double v = strtod(t, &end);
    if (errno != 0 || *end != '\0' || !(v >= 0) || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* ---- profiles ------------------------------------------------------------------ */

static int file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Resolve a profile name: a path as given, else NAME or NAME.profile in
 * <bin>/../share/lincoll/profiles (install tree and build tree alike). */
static int find_profile(const char *name, char *out, size_t len)
{
    if (file_exists(name)) {
        snprintf(out, len, "%s", name);
        return 0;
    }
    if (strchr(name, '/') != NULL) return -1;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL) return -1;
    *slash = '\0';
    static const char *const sfx[] = {"", ".profile"};
    for (int i = 0; i < 2; i++) {
        snprintf(out, len, "%s/../share/lincoll/profiles/%s%s", exe, name, sfx[i]);
        if (file_exists(out)) return 0;
    }
    return -1;
}

/* A profile (core/base/profile.h, the library's parser) into the model. */
static void load_profile(const char *arg, sim_model_t *m)
{
    char path[PATH_MAX + 64], err[PATH_MAX + 256];
    if (find_profile(arg, path, sizeof(path)) != 0)
        die("--profile %s: no such file (nor %s[.profile] under share/lincoll/profiles)", arg, arg);
    lc_profile_t prof;
    if (lc_profile_read(path, &prof, err, sizeof(err)) != 0) die("--profile %s", err);
    m->alpha = prof.v[LC_PROF_ALPHA], m->have_alpha = 1;
    m->beta = prof.v[LC_PROF_BETA], m->have_beta = 1;
    m->gamma = prof.v[LC_PROF_GAMMA], m->have_gamma = 1;
    if (lc_profile_has(&prof, LC_PROF_FLOPS)) m->flops = prof.v[LC_PROF_FLOPS], m->have_flops = 1;
    if (lc_profile_has(&prof, LC_PROF_ALPHA_MAPPED)) m->alpha_mapped = prof.v[LC_PROF_ALPHA_MAPPED];
    if (lc_profile_has(&prof, LC_PROF_BETA_MAPPED)) m->beta_mapped = prof.v[LC_PROF_BETA_MAPPED];
    if (lc_profile_has(&prof, LC_PROF_GAMMA_REDUCE)) m->gamma_reduce = prof.v[LC_PROF_GAMMA_REDUCE];
    if (prof.ports > 0) m->ports = prof.ports;
    snprintf(m->name, sizeof(m->name), "%.63s", prof.name[0] ? prof.name : arg);
}

/* ---- log capture: the library's first error line of a row becomes its note ---- */

static char sim_last_log[256];
static int sim_verbose;

static void sim_log(lincoll_log_level_t level, int rank, const char *file, int line,
                    const char *msg, void *arg)
{
    (void)file, (void)line, (void)arg;
    if (level <= LINCOLL_LOG_WARN && sim_last_log[0] == '\0')
        snprintf(sim_last_log, sizeof(sim_last_log), "%s", msg);
    if (sim_verbose) fprintf(stderr, "[%d] %s\n", rank, msg);
}

/* ---- the virtual ranks ---------------------------------------------------------- */

typedef struct sim_world {
    int K, p;
    lc_sim_world_t *w;
    lincoll_context_t **ctx;
    lincoll_comm_t **comm;
} sim_world_t;

static void world_destroy(sim_world_t *sw)
{
    for (int r = 0; sw->ctx != NULL && r < sw->K; r++)
        if (sw->ctx[r] != NULL) lincoll_finalize(sw->ctx[r]);
    free(sw->ctx);
    free(sw->comm);
    if (sw->w != NULL) lc_sim_world_destroy(sw->w);
    memset(sw, 0, sizeof(*sw));
}

static int world_create(sim_world_t *sw, int K, int p, const sim_model_t *m)
{
    memset(sw, 0, sizeof(*sw));
    sw->K = K, sw->p = p;
    if (lc_sim_world_create(K, &sw->w) != LINCOLL_OK) return -1;
    sw->ctx = calloc((size_t)K, sizeof(*sw->ctx));
    sw->comm = calloc((size_t)K, sizeof(*sw->comm));
    if (sw->ctx == NULL || sw->comm == NULL) goto fail;
    for (int r = 0; r < K; r++) {
        if (lc_context_create_sim(sw->w, r, K, p, &sw->ctx[r]) != LINCOLL_OK) goto fail;
        if (lincoll_comm_world(sw->ctx[r], &sw->comm[r]) != LINCOLL_OK) goto fail;
        lc_config_t *c = &sw->ctx[r]->cfg;
        /* the library's own model runs with the profile's figures, so its
         * automatic choice and predicted_us answer for this machine */
        c->model_alpha = m->alpha > 0 ? m->alpha : 1e-30;
        c->model_bw = m->beta > 0 ? 1.0 / m->beta : 1e30;
        c->model_compute_bw = m->gamma > 0 ? 1.0 / m->gamma : 1e30;
        c->model_flops = m->flops;
        c->model_alpha_mapped = m->alpha_mapped > 0 ? m->alpha_mapped : 1e-30;
        c->model_bw_mapped = m->beta_mapped > 0 ? 1.0 / m->beta_mapped : c->model_bw;
        c->model_reduce_bw = m->gamma_reduce > 0 ? 1.0 / m->gamma_reduce : c->model_compute_bw;
        c->algo_fallback = LC_FALLBACK_ERROR; /* a forced algorithm never turns into another */
        sw->ctx[r]->timeout = 0;              /* lincoll_sim keeps its own deadline */
    }
    lincoll_log_set_level(sim_verbose ? LINCOLL_LOG_INFO : LINCOLL_LOG_WARN);
    return 0;
fail:
    world_destroy(sw);
    return -1;
}

/* ---- one row --------------------------------------------------------------------- */

typedef struct sim_limits {
    double mem_bytes; /* budget for one row */
    double time_s;    /* compile + run of one row */
    double gf_rate;   /* bytes/s of local compute assumed by the estimate */
    double msg_s;     /* seconds per message (send + receive in the sim) assumed */
    double round_s;   /* seconds per rank and round (the executor's steps) assumed */
    double flop_rate; /* flop/s of the local GEMMs assumed */
} sim_limits_t;

static void row_fail(sim_row_t *row, const char *status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void row_fail(sim_row_t *row, const char *status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    row->ok = 0;
    snprintf(row->status, sizeof(row->status), "%s", status);
    vsnprintf(row->note, sizeof(row->note), fmt, ap);
    va_end(ap);
}

static void run_row(sim_world_t *sw, const sim_params_t *prm, int algo, const sim_model_t *m,
                    const sim_limits_t *lim, sim_row_t *row)
{
    const int K = prm->K;
    memset(row, 0, sizeof(*row));
    row->op = sim_op_name(prm->op);
    row->algo = sim_algo_name(prm->op, algo);
    row->K = K, row->p = prm->ports, row->size = prm->op == SIM_MATMUL ? 0 : prm->size;
    snprintf(row->choice, sizeof(row->choice), "?");
    char why[256] = "";
    const double t0 = now_s();
    if (sim_algo_check(prm, algo, why, sizeof(why)) != 0) {
        row_fail(row, "infeasible", "%s", why);
        return;
    }
    double setup_s, setup_b;
    char what[128] = "";
    sim_algo_setup_cost(prm, algo, &setup_s, &setup_b, what, sizeof(what));
    if (setup_s > lim->time_s || setup_b > lim->mem_bytes) {
        row_fail(row, "infeasible",
                 "would take ~%.0f s and ~%.1f GiB (%s), over the limits (--time-limit %.0f, "
                 "--max-mem)",
                 setup_s, setup_b / 1073741824.0, what, lim->time_s);
        return;
    }
    sim_last_log[0] = '\0';
    sim_job_t *job = NULL;
    lincoll_status_t st = sim_job_create(prm, algo, sw->ctx, sw->comm, &job, why, sizeof(why));
    if (st != LINCOLL_OK) {
        row_fail(row, st == LINCOLL_ERR_UNSUPPORTED ? "infeasible" : "error", "%s%s%s", why,
                 sim_last_log[0] ? ": " : "", sim_last_log);
        return;
    }
    lincoll_plan_t **plans = calloc((size_t)K, sizeof(*plans));
    if (plans == NULL) {
        sim_job_destroy(job);
        row_fail(row, "error", "out of memory");
        return;
    }
    /* rank 0 first: its cost sizes the whole row */
    double tc = now_s();
    st = sim_job_compile(job, 0, &plans[0]);
    tc = now_s() - tc;
    if (st != LINCOLL_OK) {
        row_fail(row, st == LINCOLL_ERR_UNSUPPORTED ? "infeasible" : "error", "rank 0: %s%s%s",
                 lincoll_strerror(st), sim_last_log[0] ? ": " : "", sim_last_log);
        goto out;
    }
    lincoll_plan_stats_t s0;
    lincoll_plan_stats(plans[0], &s0);
    double cb0, mv0, fl0;
    sim_plan_model_inputs(plans[0], &cb0, &mv0, &fl0);
    const double per_rank = (double)s0.scratch_bytes + (double)sim_job_rank_bytes(job, 0) +
                            64.0 * (double)(s0.msgs_sent + s0.msgs_recvd);
    const double mem = per_rank * K + (double)sim_job_shared_bytes(job);
    if (mem > lim->mem_bytes) {
        row_fail(row, "infeasible",
                 "needs ~%.1f GiB (K x %.1f MiB per rank), over the %.1f GiB "
                 "budget (--max-mem)",
                 mem / 1073741824.0, per_rank / 1048576.0, lim->mem_bytes / 1073741824.0);
        goto out;
    }
    /* the time estimate: compile (rank 0 is often slower than the rest: cold
     * tables; ranks 1..16 give the rate), local compute, messages, rounds x K */
    const double nmsg = (double)s0.msgs_sent * K;
    const double rest = cb0 * K / lim->gf_rate + fl0 * K / lim->flop_rate + nmsg * lim->msg_s +
                        (double)s0.rounds * K * lim->round_s;
    const int nsample = K - 1 < 16 ? K - 1 : 16;
    double tl = now_s();
    for (int r = 1; r < K; r++) {
        /* rank 0 alone says hopeless: do not sample further */
        int check = (r == 1 && tc * K + rest > 4 * lim->time_s) || r == nsample + 1;
        if (check) {
            double per = r == 1 ? tc : (now_s() - tl) / nsample;
            double est = per * K + rest;
            if (est > lim->time_s) {
                row_fail(row, "infeasible",
                         "estimated %.0f s (compile %.4f s per rank, %.2g B of local compute, %.2g "
                         "flops, %.3g messages, %u rounds x K), over the %.0f s limit "
                         "(--time-limit)",
                         est, per, cb0 * K, fl0 * K, nmsg, s0.rounds, lim->time_s);
                goto out;
            }
        }
        st = sim_job_compile(job, r, &plans[r]);
        if (st != LINCOLL_OK) {
            row_fail(row, st == LINCOLL_ERR_UNSUPPORTED ? "infeasible" : "error", "rank %d: %s%s%s",
                     r, lincoll_strerror(st), sim_last_log[0] ? ": " : "", sim_last_log);
            goto out;
        }
        if ((r & 63) == 0 && now_s() - t0 > lim->time_s) {
            row_fail(row, "infeasible", "compiling stopped at rank %d after %.0f s (--time-limit)",
                     r, now_s() - t0);
            goto out;
        }
    }
    if (K == 1 && tc + rest > lim->time_s) {
        row_fail(row, "infeasible", "estimated %.0f s, over the %.0f s limit (--time-limit)",
                 tc + rest, lim->time_s);
        goto out;
    }
    /* run: every rank started, then tested round robin until all complete */
    lc_sim_world_reset_stats(sw->w);
    for (int r = 0; r < K; r++) {
        st = lincoll_start(plans[r]);
        if (st != LINCOLL_OK) {
            row_fail(row, "error", "start rank %d: %s", r, lincoll_strerror(st));
            goto out;
        }
    }
    for (int busy = 1, sweep = 0; busy; sweep++) {
        busy = 0;
        for (int r = 0; r < K; r++) {
            st = lincoll_test(plans[r]);
            if (st == LINCOLL_INPROGRESS) {
                busy = 1;
            } else if (st != LINCOLL_OK) {
                row_fail(row, "error", "rank %d: %s%s%s", r, lincoll_strerror(st),
                         sim_last_log[0] ? ": " : "", sim_last_log);
                goto out;
            }
        }
        if (busy && (sweep & 15) == 15 && now_s() - t0 > lim->time_s) {
            row_fail(row, "infeasible", "run stopped after %.0f s (--time-limit)", now_s() - t0);
            goto out;
        }
    }
    /* what the sim measured */
    row->rounds = lc_sim_world_rounds(sw->w);
    for (unsigned t = 0; t < row->rounds; t++)
        row->c2 += lc_sim_world_round(sw->w, t).max_bytes;
    double sb = 0, sm = 0;
    for (int r = 0; r < K; r++) {
        uint64_t ms, bs, mr, br;
        lc_sim_world_rank_stats(sw->w, r, &ms, &bs, &mr, &br);
        row->bytes_max = bs > row->bytes_max ? bs : row->bytes_max;
        row->msgs_max = ms > row->msgs_max ? ms : row->msgs_max;
        row->rbytes_max = br > row->rbytes_max ? br : row->rbytes_max;
        row->rmsgs_max = mr > row->rmsgs_max ? mr : row->rmsgs_max;
        sb += (double)bs, sm += (double)ms;
        double cb, mv, fl;
        sim_plan_model_inputs(plans[r], &cb, &mv, &fl);
        row->compute = cb > row->compute ? cb : row->compute;
        row->moved = mv > row->moved ? mv : row->moved;
        row->flops = fl > row->flops ? fl : row->flops;
        lincoll_plan_stats_t s;
        if (lincoll_plan_stats(plans[r], &s) == LINCOLL_OK && s.predicted_us > row->plan_us)
            row->plan_us = s.predicted_us;
    }
    row->bytes_mean = sb / K, row->msgs_mean = sm / K;
    row->pred_us =
        1e6 * ((double)row->rounds * m->alpha + ((double)row->c2 + row->moved) * m->beta +
               row->compute * m->gamma + (m->flops > 0 ? row->flops / m->flops : 0));
    row->ok = 1;
    snprintf(row->status, sizeof(row->status), "ok");
    snprintf(row->note, sizeof(row->note), "%s", sim_job_note(job));
    if (sim_job_choice(job, row->choice, sizeof(row->choice)) != LINCOLL_OK)
        snprintf(row->choice, sizeof(row->choice), "?");
out:
    for (int r = 0; r < K; r++)
        lincoll_plan_free(plans[r]);
    free(plans);
    sim_job_destroy(job);
    row->wall_s = now_s() - t0;
}

/* ---- output ------------------------------------------------------------------------ */

/* value of column c of a row as text (numeric columns of a failed row: "nan") */
static void col_text(const sim_row_t *w, int c, char *b, size_t n)
{
    const char *name = sim_cols[c];
    int numeric = c >= 5 && c <= 19 && c != 10;
    if (numeric && !w->ok) {
        snprintf(b, n, "nan");
        return;
    }
    if (!strcmp(name, "op"))
        snprintf(b, n, "%s", w->op);
    else if (!strcmp(name, "algo"))
        snprintf(b, n, "%s", w->algo);
    else if (!strcmp(name, "K"))
        snprintf(b, n, "%d", w->K);
    else if (!strcmp(name, "p"))
        snprintf(b, n, "%d", w->p);
    else if (!strcmp(name, "size"))
        snprintf(b, n, "%zu", w->size);
    else if (!strcmp(name, "rounds"))
        snprintf(b, n, "%u", w->rounds);
    else if (!strcmp(name, "c2"))
        snprintf(b, n, "%llu", (unsigned long long)w->c2);
    else if (!strcmp(name, "bytes_max"))
        snprintf(b, n, "%llu", (unsigned long long)w->bytes_max);
    else if (!strcmp(name, "msgs_max"))
        snprintf(b, n, "%llu", (unsigned long long)w->msgs_max);
    else if (!strcmp(name, "pred_us"))
        snprintf(b, n, "%.4g", w->pred_us);
    else if (!strcmp(name, "choice"))
        snprintf(b, n, "%s", w->ok ? w->choice : "");
    else if (!strcmp(name, "bytes_mean"))
        snprintf(b, n, "%.6g", w->bytes_mean);
    else if (!strcmp(name, "msgs_mean"))
        snprintf(b, n, "%.6g", w->msgs_mean);
    else if (!strcmp(name, "rbytes_max"))
        snprintf(b, n, "%llu", (unsigned long long)w->rbytes_max);
    else if (!strcmp(name, "rmsgs_max"))
        snprintf(b, n, "%llu", (unsigned long long)w->rmsgs_max);
    else if (!strcmp(name, "compute"))
        snprintf(b, n, "%.6g", w->compute);
    else if (!strcmp(name, "moved"))
        snprintf(b, n, "%.6g", w->moved);
    else if (!strcmp(name, "flops"))
        snprintf(b, n, "%.6g", w->flops);
    else if (!strcmp(name, "plan_us"))
        snprintf(b, n, "%.4g", w->plan_us);
    else if (!strcmp(name, "wall_s"))
        snprintf(b, n, "%.3f", w->wall_s);
    else if (!strcmp(name, "status"))
        snprintf(b, n, "%s", w->status);
    else
        snprintf(b, n, "%s", w->note);
}

static void print_csv_header(void)
{
    for (int c = 0; c < SIM_NCOLS; c++)
        printf("%s%s", c ? "," : "", sim_cols[c]);
    printf("\n");
}

static void print_csv(const sim_row_t *w)
{
    char b[300];
    for (int c = 0; c < SIM_NCOLS; c++) {
        col_text(w, c, b, sizeof(b));
        for (char *x = b; *x; x++)
            if (*x == ',' || *x == '\n') *x = ';';
        printf("%s%s", c ? "," : "", b);
    }
    printf("\n");
    fflush(stdout);
}

static void print_table_header(const sim_model_t *m)
{
    printf("# model %s: alpha %.3g s, beta %.3g s/B (%.3g GB/s per port), gamma %.3g s/B, "
           "flops %.3g/s\n",
           m->name, m->alpha, m->beta, m->beta > 0 ? 1e-9 / m->beta : INFINITY, m->gamma, m->flops);
    printf("# pred_us = rounds*alpha + (c2 + moved)*beta + compute*gamma + flops/F (measured "
           "rounds and c2; compute, moved, flops: the busiest rank's plan)\n");
    printf("%-15s %-14s %6s %2s %9s %7s %12s %12s %12s %9s %9s %12s %10s %-14s %s\n", "op", "algo",
           "K", "p", "size", "rounds", "c2", "bytes_max", "bytes_mean", "msgs_max", "msgs_mean",
           "pred_us", "plan_us", "choice", "note");
}

static void print_table(const sim_row_t *w)
{
    if (!w->ok) {
        printf("%-15s %-14s %6d %2d %9zu %s: %s\n", w->op, w->algo, w->K, w->p, w->size, w->status,
               w->note);
    } else {
        printf("%-15s %-14s %6d %2d %9zu %7u %12llu %12llu %12.6g %9llu %9.6g %12.4g %10.4g %-14s "
               "%s\n",
               w->op, w->algo, w->K, w->p, w->size, w->rounds, (unsigned long long)w->c2,
               (unsigned long long)w->bytes_max, w->bytes_mean, (unsigned long long)w->msgs_max,
               w->msgs_mean, w->pred_us, w->plan_us, w->choice, w->note);
    }
    fflush(stdout);
}

/* ---- sweeps ---------------------------------------------------------------------------- */

typedef struct sim_sweep {
    char var; /* 0: none, 'K', 's' */
    size_t *vals;
    int n;
} sim_sweep_t;

static void sweep_add(sim_sweep_t *sw, size_t v)
{
    sw->vals = realloc(sw->vals, sizeof(size_t) * (size_t)(sw->n + 1));
    if (sw->vals == NULL) die("out of memory");
    sw->vals[sw->n++] = v;
}

/* K=4:4096 (doubling), K=3,5,100 (list), s=1k:64m */
static void parse_sweep(const char *arg, sim_sweep_t *sw)
{
    if ((arg[0] != 'K' && arg[0] != 's') || arg[1] != '=')
        die("--sweep %s: expected K=MIN:MAX, K=a,b,c, s=MIN:MAX or s=a,b,c", arg);
    sw->var = arg[0];
    const char *v = arg + 2;
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", v);
    char *colon = strchr(buf, ':');
    size_t lo, hi;
    if (colon != NULL) {
        *colon = '\0';
        if (parse_size(buf, &lo) != 0 || parse_size(colon + 1, &hi) != 0 || lo < 1 || hi < lo)
            die("--sweep %s: MIN:MAX needs 1 <= MIN <= MAX", arg);
        for (size_t x = lo; x <= hi; x *= 2) {
            sweep_add(sw, x);
            if (x > SIZE_MAX / 2) break;
        }
    } else {
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
            if (parse_size(tok, &lo) != 0 || lo < 1) die("--sweep %s: bad value %s", arg, tok);
            sweep_add(sw, lo);
        }
    }
    if (sw->n == 0) die("--sweep %s: no values", arg);
}

/* ---- plot --------------------------------------------------------------------------------- */

static int plot_rows(const char *png, const sim_row_t *rows, int nrows, char var, const char *op,
                     const sim_model_t *m)
{
    char dir[] = "/tmp/lincoll_sim_plotXXXXXX";
    if (mkdtemp(dir) == NULL) {
        fprintf(stderr, "%s: --plot: cannot make a temporary directory: %s\n", prog,
                strerror(errno));
        return -1;
    }
    char path[PATH_MAX], gp[PATH_MAX];
    snprintf(gp, sizeof(gp), "%s/plot.gp", dir);
    FILE *g = fopen(gp, "w");
    if (g == NULL) return -1;
    fprintf(g, "set terminal pngcairo size 1000,650 noenhanced\n");
    fprintf(g, "set output '%s'\n", png);
    fprintf(g, "set title 'lincoll_sim %s: predicted time (%s)'\n", op, m->name);
    fprintf(g, "set xlabel '%s'\nset ylabel 'predicted time (us)'\n",
            var == 'K' ? "K (virtual ranks)" : "size (bytes)");
    fprintf(g, "set logscale x 2\nset logscale y 10\nset grid\nset key left top\n");
    if (var != 'K') fprintf(g, "set format x '%%.0b %%BB'\n"); /* 1 KiB ... 64 MiB */
    /* one series per algorithm, in the order they first appear */
    const char *algos[64];
    int na = 0;
    for (int i = 0; i < nrows; i++) {
        int seen = 0;
        for (int a = 0; a < na; a++)
            seen |= strcmp(algos[a], rows[i].algo) == 0;
        if (!seen && na < 64) algos[na++] = rows[i].algo;
    }
    int plotted = 0;
    fprintf(g, "plot ");
    for (int a = 0; a < na; a++) {
        snprintf(path, sizeof(path), "%s/s%d.dat", dir, a);
        FILE *d = fopen(path, "w");
        if (d == NULL) continue;
        int pts = 0;
        for (int i = 0; i < nrows; i++) {
            if (strcmp(rows[i].algo, algos[a]) != 0 || !rows[i].ok || rows[i].pred_us <= 0)
                continue;
            fprintf(d, "%zu %.6g\n", var == 'K' ? (size_t)rows[i].K : rows[i].size,
                    rows[i].pred_us);
            pts++;
        }
        fclose(d);
        if (pts == 0) continue;
        fprintf(g, "%s'%s' using 1:2 with linespoints lw 2 title '%s'", plotted ? ", " : "", path,
                algos[a]);
        plotted++;
    }
    fprintf(g, "\n");
    fclose(g);
    int rc = -1;
    if (plotted == 0) {
        fprintf(stderr, "%s: --plot: no feasible row to plot\n", prog);
    } else {
        char cmd[PATH_MAX + 64];
        snprintf(cmd, sizeof(cmd), "gnuplot '%s'", gp);
        int s = system(cmd);
        if (s == -1 || !WIFEXITED(s) || WEXITSTATUS(s) != 0)
            fprintf(stderr,
                    "%s: --plot: gnuplot failed (is it installed? deploy/install-deps.sh)\n", prog);
        else
            rc = 0;
    }
    for (int a = 0; a < na; a++) {
        snprintf(path, sizeof(path), "%s/s%d.dat", dir, a);
        unlink(path);
    }
    unlink(gp);
    rmdir(dir);
    return rc;
}

/* ---- usage ----------------------------------------------------------------------------------- */

/* "    op              name name ...": the operation's algorithms, wrapped */
static void usage_algos(FILE *f, sim_op_t op)
{
    int col = fprintf(f, "    %-15s", sim_op_name(op));
    for (int i = 0; i < sim_algo_count(op); i++) {
        const char *nm = sim_algo_name(op, i);
        if (col + 1 + (int)strlen(nm) > 92) col = fprintf(f, "\n%19s", "") - 1;
        col += fprintf(f, " %s", nm);
    }
    fprintf(f, "\n");
}

static void usage(FILE *f)
{
    fprintf(
        f,
        "NAME\n"
        "    lincoll_sim - the real plans of a lincoll operation on K virtual ranks, measured\n"
        "\n"
        "SYNOPSIS\n"
        "    lincoll_sim -t OP -K ranks [-p ports] [-s bytes] [-A algo|all] [-q field] [-f csv]\n"
        "                [--profile FILE | --alpha S --beta S/B --gamma S/B [--flops F]]\n"
        "                [--sweep K=4:4096 | --sweep s=1k:64m] [--plot out.png]\n"
        "    lincoll_sim [-t OP] --list\n"
        "\n"
        "DESCRIPTION\n"
        "    Compiles the plan of every virtual rank exactly as lincoll_*_init does for a real\n"
        "    rank, runs them together over the sim transport (one process, one thread) and\n"
        "    prints what the sim measured: global rounds, C2 (sum over rounds of the largest\n"
        "    message), bytes and messages per rank, with a prediction of the time under the\n"
        "    alpha-beta-gamma model and the algorithm the library picks by itself.\n"
        "\n"
        "OPERATIONS (-t) AND ALGORITHMS (-A, default all)\n"
        "    The algorithms are the library's registries (lincoll_info -a), under their names.\n");
    usage_algos(f, SIM_ENCODE);
    fprintf(
        f, "                    -s = packet bytes (default 256).  The universal algorithms\n"
           "                    (LINCOLL_ENCODE_ALGO; zero copy: every rank maps every peer) on a\n"
           "                    dense random K x K matrix over GF(2^8); the structured matrices\n"
           "                    dft (K = (p+1)^L), vandermonde (coset points) and lagrange\n"
           "                    (K = (p+1)^L) over a prime field q = cK+1 (--field Q overrides).\n"
           "                    K <= 4096.\n");
    usage_algos(f, SIM_RS_ENCODE);
    fprintf(
        f,
        "                    the tag universal algorithms: a systematic [N=K, k] Cauchy code\n"
        "                    over GF(2^8) (GF(2^16) above K = 256); --data k (default K - K/4).\n");
    usage_algos(f, SIM_REPAIR);
    fprintf(
        f, "                    rebuild --lost n ranks (default 1: ranks 0..n-1) from the k ranks\n"
           "                    after them (--data k, default K - n).  The universal algorithms:\n"
           "                    the N-rank encode (lincoll_encode_repair_init); the repair\n"
           "                    schedules (LINCOLL_REPAIR_ALGO): on the survivors and the lost\n"
           "                    ranks only (lincoll_encode_repair_k_init), so K = k + n.\n");
    for (int op = SIM_ALLREDUCE; op <= SIM_REDUCE; op++)
        usage_algos(f, (sim_op_t)op);
    fprintf(
        f, "                    the LINCOLL_<OP>_ALGO names; zcopy*: zero copy, every rank maps\n"
           "                    every peer, as on one node, at any size.  -s = bytes of the whole\n"
           "                    vector (default 64k): allreduce/bcast/reduce count,\n"
           "                    reduce_scatter input (output: its near-equal share), allgather\n"
           "                    output.  --dtype float|double|int32|int64|uint8 (default float),\n"
           "                    SUM; --root r (default 0).  K up to 65536, memory permitting.\n");
    usage_algos(f, SIM_MATMUL);
    fprintf(
        f,
        "                    ring (K x 1), summa (squarest pr x pc), cannon (K = q^2), 25d\n"
        "                    (K = q^2 c, c <= q; --layers c, default the largest c <= K^(1/3)):\n"
        "                    C = A B, doubles, n x n block distributions, -n N (default 1024);\n"
        "                    --comm-only skips the local GEMMs (flops are then 0).\n"
        "\n"
        "OPTIONS\n"
        "    -K ranks        virtual ranks (required).\n"
        "    -p ports        ports p per rank (default: the profile's, else 1).\n"
        "    -s bytes        size, with k/m/g suffixes; a multiple of the element size.\n"
        "    -A algo|all     one algorithm, or all of the operation (matmul also takes the old\n"
        "                    names ring1d and 2.5d).\n"
        "    --list          the operations' algorithms, one 'operation algorithm' line each\n"
        "                    (with -t: that operation's), and exit.\n"
        "    -f csv          CSV: op,algo,K,p,size,rounds,c2,bytes_max,msgs_max,pred_us,choice,\n"
        "                    bytes_mean,msgs_mean,rbytes_max,rmsgs_max,compute,moved,flops,\n"
        "                    plan_us,wall_s,status,note.\n"
        "    -q field        print only that column's value, one line per row (scripts).\n"
        "    --profile FILE  machine profile: a path, or a name under share/lincoll/profiles\n"
        "                    next to the binary (ib200, eth100, ...).\n"
        "    --alpha S --beta S/B --gamma S/B --flops F\n"
        "                    model figures (override the profile).  Default: the library's\n"
        "                    model (LINCOLL_MODEL_ALPHA, 1/LINCOLL_MODEL_BW, ...).\n"
        "    --sweep K=MIN:MAX | s=MIN:MAX    doubling sweep (or a comma list: K=3,5,7).\n"
        "    --plot out.png  render the sweep's pred_us per algorithm with gnuplot.\n"
        "    --field Q       field order for the encode family (256, 65536, a prime < 2^31).\n"
        "    --max-mem BYTES memory budget of one row (default 80%% of MemAvailable).\n"
        "    --time-limit S  compile + run limit of one row (default 20): a row estimated to take\n"
        "                    longer (from rank 0's compile time, its messages and compute\n"
        "                    times K) is reported infeasible instead of run; a row that\n"
        "                    overruns is stopped and reported so.\n"
        "    -v              the library's log lines on stderr.\n"
        "    -h              this text.\n"
        "\n"
        "OUTPUT\n"
        "    size       -s in bytes (matmul: 0; n and the grid are in the note).\n"
        "    rounds     global rounds that carried a message (lc_sim_world_rounds).\n"
        "    c2         sum over those rounds of the largest message or put, bytes.\n"
        "    bytes_max, msgs_max, bytes_mean, msgs_mean: sent per rank (max and mean over\n"
        "               ranks); rbytes_max, rmsgs_max: received.  Zero-copy flags are\n"
        "               0-byte puts; the data they read is 'moved'.\n"
        "    compute    bytes the busiest rank's compute steps process (GF, reduce, copy).\n"
        "    moved      bytes zero-copy steps move through mapped memory (busiest rank).\n"
        "    flops      GEMM flops of the busiest rank (matmul).\n"
        "    pred_us    rounds*alpha + (c2 + moved)*beta + compute*gamma + flops/F, in us:\n"
        "               the measured rounds and C2 with the model figures; no overlap of\n"
        "               compute and transfers is assumed.\n"
        "    plan_us    the library's own prediction (lincoll_plan_stats predicted_us, the\n"
        "               largest over ranks) under the same figures; for chunked encodes it\n"
        "               is the pipelined estimate.\n"
        "    choice     what the library picks with the automatic choice for the same call\n"
        "               on the tag transport (zero-copy needs lincoll memory on one node);\n"
        "               for matmul, for the row's distribution.\n"
        "    status     ok, or infeasible (the note says why: K, field, memory, time) or\n"
        "               error.  Numeric columns of such rows read nan (also with -q).\n"
        "    note       the field (encode family), dtype (collectives), n and grid (matmul),\n"
        "               or why the row did not run.\n"
        "\n"
        "PROFILES\n"
        "    Text, one 'key value' per line, '#' comments: name, alpha (s per round),\n"
        "    beta (s per byte per port), gamma (s per byte of local compute), flops\n"
        "    (flop/s of the local GEMM), ports.  perf/calibrate_profile.sh writes one for\n"
        "    this machine from lincoll_perf.\n"
        "\n"
        "EXIT STATUS\n"
        "    0 when every row ran or was reported infeasible; 1 when a row failed with an\n"
        "    error; 2 for bad arguments (one line naming the argument).\n"
        "\n"
        "EXAMPLE\n"
        "    lincoll_sim -t encode -K 4096 -p 2 -A all --profile ib200\n"
        "    lincoll_sim -t allreduce -K 1000 -s 1m -A rhd -q pred_us --profile eth100\n"
        "    lincoll_sim -t encode -A prepare_shoot --sweep K=4:4096 -p 2 --plot ps.png\n");
}

/* ---- main ---------------------------------------------------------------------------------------
 */

/* --list: "operation algorithm" per line, of op_s or of every operation */
static int list_algos(const char *op_s)
{
    sim_op_t one;
    if (op_s != NULL && sim_op_parse(op_s, &one) != 0) die("-t %s: unknown operation", op_s);
    for (int op = 0; op < SIM_NOPS; op++) {
        if (op_s != NULL && op != (int)one) continue;
        for (int i = 0; i < sim_algo_count((sim_op_t)op); i++)
            printf("%s %s\n", sim_op_name((sim_op_t)op), sim_algo_name((sim_op_t)op, i));
    }
    return 0;
}

/* The variables that force an algorithm (their default is "auto") would
 * change the library's automatic choice the choice column reports: the
 * rows force theirs with -A, so lincoll_sim refuses them. */
static void check_no_forced_algos(void)
{
    lc_config_t cfg;
    if (lc_config_load(&cfg) != LINCOLL_OK) die("LINCOLL_* environment: invalid value");
    static const size_t forced[] = {
        offsetof(lc_config_t, algo_allreduce), offsetof(lc_config_t, algo_reduce_scatter),
        offsetof(lc_config_t, algo_allgather), offsetof(lc_config_t, algo_bcast),
        offsetof(lc_config_t, algo_reduce),    offsetof(lc_config_t, algo_matmul),
        offsetof(lc_config_t, algo_encode),    offsetof(lc_config_t, repair_algo)};
    lc_config_t dflt;
    size_t n;
    const lc_config_field_t *tab = lc_config_table(&n);
    for (size_t i = 0; i < n; i++) {
        int is_forced = 0;
        for (size_t k = 0; k < sizeof(forced) / sizeof(forced[0]); k++)
            is_forced |= tab[i].offset == forced[k];
        if (!is_forced) continue;
        memcpy(&dflt, &cfg, sizeof(cfg));
        if (lc_config_parse_field(&tab[i], tab[i].dflt, &dflt) != LINCOLL_OK) continue;
        const char *d = (const char *)&dflt + tab[i].offset,
                   *v = (const char *)&cfg + tab[i].offset;
        if (tab[i].type == LC_CFG_STRING ? strcasecmp(d, v) != 0 : memcmp(d, v, sizeof(int)) != 0)
            die("%s is set: lincoll_sim forces algorithms with -A only (and reports the "
                "library's own choice); unset it",
                tab[i].name);
    }
}

static double mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    double kb = 0;
    char line[256];
    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
    }
    if (f) fclose(f);
    return kb > 0 ? kb * 1024.0 : 4.0 * 1073741824.0;
}

static int parse_dtype(const char *t, lincoll_dtype_t *dt)
{
    static const struct {
        const char *n;
        lincoll_dtype_t d;
    } m[] = {{"float", LINCOLL_FLOAT},
             {"double", LINCOLL_DOUBLE},
             {"int32", LINCOLL_INT32},
             {"int64", LINCOLL_INT64},
             {"uint8", LINCOLL_UINT8}};
    for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
        if (strcmp(t, m[i].n) == 0) {
            *dt = m[i].d;
            return 0;
        }
    }
    return -1;
}

int main(int argc, char **argv)
{
    const char *op_s = NULL, *algo_s = "all", *field_s = NULL, *fmt = NULL, *profile = NULL;
    const char *plot = NULL, *alpha_s = NULL, *beta_s = NULL, *gamma_s = NULL, *flops_s = NULL;
    long K = 0, p = 0, have_K = 0, data_k = 0, n_lost = 0, root = 0, layers = 0;
    int64_t mm_n = 0;
    size_t size = 0;
    int have_size = 0, comm_only = 0, list = 0;
    sim_sweep_t sweep = {0, NULL, 0};
    lincoll_dtype_t dtype = LINCOLL_FLOAT;
    sim_limits_t lim = {mem_available() * 0.8, 20.0, 1e9, 1.5e-6, 4e-6, 5e9};
    enum {
        O_PROFILE = 256,
        O_ALPHA,
        O_BETA,
        O_GAMMA,
        O_FLOPS,
        O_SWEEP,
        O_PLOT,
        O_FIELD,
        O_DATA,
        O_LOST,
        O_ROOT,
        O_DTYPE,
        O_LAYERS,
        O_COMMONLY,
        O_MAXMEM,
        O_TLIMIT,
        O_LIST
    };
    static const struct option lopts[] = {{"profile", required_argument, NULL, O_PROFILE},
                                          {"alpha", required_argument, NULL, O_ALPHA},
                                          {"beta", required_argument, NULL, O_BETA},
                                          {"gamma", required_argument, NULL, O_GAMMA},
                                          {"flops", required_argument, NULL, O_FLOPS},
                                          {"sweep", required_argument, NULL, O_SWEEP},
                                          {"plot", required_argument, NULL, O_PLOT},
                                          {"field", required_argument, NULL, O_FIELD},
                                          {"data", required_argument, NULL, O_DATA},
                                          {"lost", required_argument, NULL, O_LOST},
                                          {"root", required_argument, NULL, O_ROOT},
                                          {"dtype", required_argument, NULL, O_DTYPE},
                                          {"layers", required_argument, NULL, O_LAYERS},
                                          {"comm-only", no_argument, NULL, O_COMMONLY},
                                          {"max-mem", required_argument, NULL, O_MAXMEM},
                                          {"time-limit", required_argument, NULL, O_TLIMIT},
                                          {"list", no_argument, NULL, O_LIST},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    const char *q_field = NULL;
    int c;
    opterr = 0;
    lincoll_log_set_handler(sim_log, NULL); /* library lines: -v, or a row's note */
    while ((c = getopt_long(argc, argv, ":t:K:p:s:A:q:f:n:vh", lopts, NULL)) != -1) {
        switch (c) {
        case 't':
            op_s = optarg;
            break;
        case 'K':
            if (parse_int(optarg, LONG_MIN, LONG_MAX, &K) != 0)
                die("-K %s: expected an integer", optarg);
            have_K = 1;
            break;
        case 'p':
            if (parse_int(optarg, 1, 64, &p) != 0) die("-p %s: expected 1..64 ports", optarg);
            break;
        case 's':
            if (parse_size(optarg, &size) != 0) die("-s %s: expected bytes (64, 4k, 1m)", optarg);
            have_size = 1;
            break;
        case 'A':
            algo_s = optarg;
            break;
        case 'q':
            q_field = optarg;
            break;
        case 'f':
            fmt = optarg;
            if (strcmp(fmt, "csv") != 0) die("-f %s: the only format is csv", optarg);
            break;
        case 'n': {
            long v;
            if (parse_int(optarg, 1, 1 << 20, &v) != 0) die("-n %s: expected 1..1048576", optarg);
            mm_n = v;
            break;
        }
        case 'v':
            sim_verbose = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case O_PROFILE:
            profile = optarg;
            break;
        case O_ALPHA:
            alpha_s = optarg;
            break;
        case O_BETA:
            beta_s = optarg;
            break;
        case O_GAMMA:
            gamma_s = optarg;
            break;
        case O_FLOPS:
            flops_s = optarg;
            break;
        case O_SWEEP:
            if (sweep.var) die("--sweep %s: only one sweep per run", optarg);
            parse_sweep(optarg, &sweep);
            break;
        case O_PLOT:
            plot = optarg;
            break;
        case O_FIELD:
            field_s = optarg;
            break;
        case O_DATA:
            if (parse_int(optarg, 1, INT_MAX, &data_k) != 0)
                die("--data %s: expected k >= 1", optarg);
            break;
        case O_LOST:
            if (parse_int(optarg, 1, INT_MAX, &n_lost) != 0)
                die("--lost %s: expected n >= 1", optarg);
            break;
        case O_ROOT:
            if (parse_int(optarg, 0, INT_MAX, &root) != 0)
                die("--root %s: expected a rank >= 0", optarg);
            break;
        case O_DTYPE:
            if (parse_dtype(optarg, &dtype) != 0)
                die("--dtype %s: expected float, double, int32, int64 or uint8", optarg);
            break;
        case O_LAYERS:
            if (parse_int(optarg, 1, 4096, &layers) != 0)
                die("--layers %s: expected 1..4096", optarg);
            break;
        case O_COMMONLY:
            comm_only = 1;
            break;
        case O_MAXMEM: {
            size_t v;
            if (parse_size(optarg, &v) != 0 || v == 0)
                die("--max-mem %s: expected bytes (8g)", optarg);
            lim.mem_bytes = (double)v;
            break;
        }
        case O_LIST:
            list = 1;
            break;
        case O_TLIMIT:
            if (parse_pos_double(optarg, &lim.time_s) != 0 || lim.time_s <= 0)
                die("--time-limit %s: expected seconds > 0", optarg);
            break;
        case ':':
            die("%s: missing value", argv[optind - 1]);
        default:
            die("%s: unknown option (lincoll_sim -h)", argv[optind - 1]);
        }
    }
    if (optind < argc) die("%s: unexpected argument (lincoll_sim -h)", argv[optind]);
    if (list) return list_algos(op_s);
    if (op_s == NULL)
        die("-t: missing (encode, rs_encode, repair, allreduce, reduce_scatter, "
            "allgather, bcast, reduce, matmul)");
    sim_op_t op;
    if (sim_op_parse(op_s, &op) != 0)
        die("-t %s: unknown operation (encode, rs_encode, repair, allreduce, reduce_scatter, "
            "allgather, bcast, reduce, matmul)",
            op_s);
    if (sweep.var != 'K' && !have_K) die("-K: missing (number of virtual ranks)");
    if (sweep.var == 'K' && have_K) die("-K %ld: give either -K or --sweep K=..., not both", K);
    if (sweep.var == 's' && have_size) die("-s: give either -s or --sweep s=..., not both");
    if (plot != NULL && sweep.var == 0) die("--plot %s: needs --sweep", plot);
    if (q_field != NULL) {
        int ok = 0;
        for (int i = 0; i < SIM_NCOLS; i++)
            ok |= strcmp(q_field, sim_cols[i]) == 0;
        if (!ok)
            die("-q %s: unknown field (a CSV column: op, algo, rounds, c2, pred_us, ...)", q_field);
    }
    /* algorithms */
    /* a fixed array: die() on a later argument leaves nothing allocated */
    int nalg = sim_algo_count(op), algos[SIM_MAX_ALGOS], na = 0;
    if (nalg > SIM_MAX_ALGOS) die("-t %s: %d algorithms, at most %d", op_s, nalg, SIM_MAX_ALGOS);
    if (strcmp(algo_s, "all") == 0) {
        for (int i = 0; i < nalg; i++)
            algos[na++] = i;
    } else {
        int a = sim_algo_find(op, algo_s);
        if (a < 0) {
            char list[512] = "";
            for (int i = 0; i < nalg; i++)
                snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
                         sim_algo_name(op, i));
            die("-A %s: %s has no such algorithm (%s, all)", algo_s, op_s, list);
        }
        algos[na++] = a;
    }
    /* model: library defaults, then the profile, then the flags */
    sim_model_t m = {0};
    {
        lc_config_t cfg;
        if (lc_config_load(&cfg) != LINCOLL_OK) die("LINCOLL_* environment: invalid value");
        m.alpha = cfg.model_alpha, m.beta = 1.0 / cfg.model_bw;
        m.gamma = 1.0 / cfg.model_compute_bw, m.flops = cfg.model_flops;
        m.alpha_mapped = cfg.model_alpha_mapped;
        /* the library's figures: its machine profile's (LINCOLL_PROFILE or the
         * default location), else the built-in ones */
        snprintf(m.name, sizeof(m.name), "%s", cfg.profile_used[0] ? "profile" : "library-default");
    }
    if (profile != NULL) load_profile(profile, &m);
    const char *vals[4] = {alpha_s, beta_s, gamma_s, flops_s};
    const char *flag[4] = {"--alpha", "--beta", "--gamma", "--flops"};
    double *dst[4] = {&m.alpha, &m.beta, &m.gamma, &m.flops};
    int custom = 0;
    for (int i = 0; i < 4; i++) {
        if (vals[i] == NULL) continue;
        if (parse_pos_double(vals[i], dst[i]) != 0 || (i == 3 && *dst[i] <= 0))
            die("%s %s: expected a number >= 0%s", flag[i], vals[i], i == 3 ? " (> 0)" : "");
        custom = 1;
        if (i == 1) m.beta_mapped = 0;  /* --beta: zero copy at it too */
        if (i == 2) m.gamma_reduce = 0; /* --gamma: the reductions too */
    }
    if (custom) {
        char nm[80];
        snprintf(nm, sizeof(nm), "%.56s%s", profile ? m.name : "", profile ? "+flags" : "flags");
        snprintf(m.name, sizeof(m.name), "%.63s", nm);
    }
    if (p == 0) p = m.ports > 0 ? m.ports : 1;
    uint64_t field_q = 0;
    if (field_s != NULL) {
        long long fq;
        char *end;
        errno = 0;
        fq = strtoll(field_s, &end, 10);
        lincoll_field_t *f;
        if (errno != 0 || *end != '\0' || fq < 2 ||
            lincoll_gf_field_create((uint64_t)fq, &f) != LINCOLL_OK)
            die("--field %s: expected 256, 65536, a prime below 2^31 or 18446744069414584321",
                field_s);
        lincoll_gf_field_destroy(f);
        field_q = (uint64_t)fq;
        if (op > SIM_REPAIR)
            die("--field %s: only the encode family (-t encode, rs_encode, repair) "
                "runs over a field",
                field_s);
    }
    if (!have_size) size = sim_op_default_size(op);
    if (op == SIM_MATMUL && (have_size || sweep.var == 's'))
        die("-s: matmul takes -n N (global n x n matrices), not -s");
    /* the values the run goes over */
    int nv = sweep.var ? sweep.n : 1;
    sim_row_t *rows = calloc((size_t)nv * (size_t)na, sizeof(sim_row_t));
    if (rows == NULL) die("out of memory");
    for (int v = 0; v < nv; v++) {
        long Kv = sweep.var == 'K' ? (long)sweep.vals[v] : K;
        size_t sv = sweep.var == 's' ? sweep.vals[v] : size;
        if (Kv < 1) die("-K %ld: needs K >= 1", Kv);
        if (Kv > sim_op_max_K(op))
            die("-K %ld: %s runs on at most %d virtual ranks", Kv, op_s, sim_op_max_K(op));
        if ((op == SIM_BCAST || op == SIM_REDUCE) && root >= Kv)
            die("--root %ld: outside [0, K=%ld)", root, Kv);
        if (op <= SIM_REPAIR && sv == 0)
            die("-s 0: the encode family needs a packet of >= 1 element");
        sim_params_t prm = {.op = op,
                            .K = (int)Kv,
                            .ports = (int)p,
                            .size = sv,
                            .field_q = field_q,
                            .data_k = (int)data_k,
                            .n_lost = (int)n_lost,
                            .root = (int)root,
                            .dtype = dtype,
                            .mm_n = mm_n,
                            .mm_layers = (int)layers,
                            .comm_only = comm_only};
        sim_params_defaults(&prm);
        if (op == SIM_RS_ENCODE || op == SIM_REPAIR) {
            if (prm.data_k >= prm.K) die("--data %d: needs k < N = K = %d", prm.data_k, prm.K);
            if (op == SIM_REPAIR && prm.n_lost > prm.K - prm.data_k)
                die("--lost %d: at most N - k = %d", prm.n_lost, prm.K - prm.data_k);
        }
        for (int i = 0; i < na; i++) {
            size_t u = sim_algo_unit(&prm, algos[i]);
            if (u > 1 && sv % u != 0)
                die("-s %zu: not a multiple of the element size %zu of %s %s", sv, u, op_s,
                    sim_algo_name(op, algos[i]));
        }
    }
    /* a forced algorithm comes from -A only */
    check_no_forced_algos();
    if (fmt != NULL && q_field == NULL)
        print_csv_header();
    else if (q_field == NULL)
        print_table_header(&m);
    int errors = 0, nrows = 0;
    for (int v = 0; v < nv; v++) {
        long Kv = sweep.var == 'K' ? (long)sweep.vals[v] : K;
        size_t sv = sweep.var == 's' ? sweep.vals[v] : size;
        sim_params_t prm = {.op = op,
                            .K = (int)Kv,
                            .ports = (int)p,
                            .size = sv,
                            .field_q = field_q,
                            .data_k = (int)data_k,
                            .n_lost = (int)n_lost,
                            .root = (int)root,
                            .dtype = dtype,
                            .mm_n = mm_n,
                            .mm_layers = (int)layers,
                            .comm_only = comm_only};
        sim_params_defaults(&prm);
        sim_world_t sw;
        if (world_create(&sw, (int)Kv, (int)p, &m) != 0) {
            fprintf(stderr, "%s: -K %ld: cannot create %ld virtual ranks (memory?)\n", prog, Kv,
                    Kv);
            return 1;
        }
        for (int i = 0; i < na; i++) {
            sim_row_t *row = &rows[nrows++];
            run_row(&sw, &prm, algos[i], &m, &lim, row);
            errors += strcmp(row->status, "error") == 0;
            if (q_field != NULL) {
                char b[300];
                for (int cc = 0; cc < SIM_NCOLS; cc++)
                    if (strcmp(sim_cols[cc], q_field) == 0) col_text(row, cc, b, sizeof(b));
                printf("%s\n", b);
                fflush(stdout);
            } else if (fmt != NULL) {
                print_csv(row);
            } else {
                print_table(row);
            }
        }
        world_destroy(&sw);
    }
    int rc = errors ? 1 : 0;
    if (plot != NULL && plot_rows(plot, rows, nrows, sweep.var, op_s, &m) != 0) rc = 1;
    free(rows);
    free(sweep.vals);
    return rc;
}
