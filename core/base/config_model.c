/*
 * core/base/config_model.c: the cost model's figures in lc_config_t: a
 * machine profile's (core/base/profile.h) between the table's defaults and
 * the environment, and their fit to the job (hosts, ranks sharing cores).
 */
#include "core/base/config.h"
#include "core/base/log.h"
#include "core/base/profile.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The profile's figures into the model's fields of @p cfg. */
static void lc_config_apply_profile(lc_config_t *cfg, const lc_profile_t *p)
{
    /* a figure of 0 (a free resource) becomes a tiny positive one: the model divides */
    const double tiny = 1e-30;
#define LC_FIG(_k) (p->v[_k] > tiny ? p->v[_k] : tiny)
    cfg->model_alpha = LC_FIG(LC_PROF_ALPHA);
    cfg->model_bw = 1.0 / LC_FIG(LC_PROF_BETA);
    cfg->model_compute_bw = 1.0 / LC_FIG(LC_PROF_GAMMA);
    if (lc_profile_has(p, LC_PROF_FLOPS)) cfg->model_flops = p->v[LC_PROF_FLOPS];
    if (lc_profile_has(p, LC_PROF_ALPHA_MAPPED))
        cfg->model_alpha_mapped = LC_FIG(LC_PROF_ALPHA_MAPPED);
    if (lc_profile_has(p, LC_PROF_ALPHA_NET)) {
        cfg->model_alpha_net = LC_FIG(LC_PROF_ALPHA_NET);
        cfg->model_given |= LC_MODEL_GIVEN_ALPHA_NET;
    }
    if (lc_profile_has(p, LC_PROF_BETA_NET)) {
        cfg->model_bw_net = 1.0 / LC_FIG(LC_PROF_BETA_NET);
        cfg->model_given |= LC_MODEL_GIVEN_BW_NET;
    }
    if (lc_profile_has(p, LC_PROF_HANDOFF)) cfg->model_handoff = LC_FIG(LC_PROF_HANDOFF);
    /* zero copy moves at the copy rate; a profile without it: the messages' */
    if (lc_profile_has(p, LC_PROF_GAMMA_REDUCE)) {
        cfg->model_reduce_bw = 1.0 / LC_FIG(LC_PROF_GAMMA_REDUCE);
        cfg->model_given |= LC_MODEL_GIVEN_REDUCE_BW;
    }
    if (lc_profile_has(p, LC_PROF_BETA_MAPPED)) {
        cfg->model_bw_mapped = 1.0 / LC_FIG(LC_PROF_BETA_MAPPED);
        cfg->model_given |= LC_MODEL_GIVEN_BW_MAPPED;
    }
#undef LC_FIG
}

lincoll_status_t lc_config_profile(lc_config_t *cfg, const char *v, int quiet)
{
    char path[1024], err[1400];
    int named = v != NULL && v[0] != '\0';
    if (named && strcmp(v, "none") == 0) return LINCOLL_OK;
    if (named) {
        snprintf(path, sizeof(path), "%s", v);
    } else {
        struct stat sb;
        if (lc_profile_default_path(path, sizeof(path)) != 0 || stat(path, &sb) != 0)
            return LINCOLL_OK; /* no profile: the built-in figures */
    }
    lc_profile_t prof;
    if (lc_profile_read(path, &prof, err, sizeof(err)) != 0) {
        static atomic_int warned;
        if (named && !quiet) {
            lc_error("%s: %s", lc_config_name(LINCOLL_CONFIG_PROFILE), err);
        } else if (!named && !quiet && atomic_exchange(&warned, 1) == 0) {
            lc_warn("machine profile %s; using the built-in model figures (rerun lincoll_info "
                    "--calibrate, or set %s=none)",
                    err, lc_config_name(LINCOLL_CONFIG_PROFILE));
        }
        return named ? LINCOLL_ERR_INVALID : LINCOLL_OK;
    }
    lc_config_apply_profile(cfg, &prof);
    snprintf(cfg->profile_used, sizeof(cfg->profile_used), "%s", path);
    if (!quiet) lc_debug("cost model figures from machine profile %s", path);
    return LINCOLL_OK;
}

void lc_config_model_job(lc_config_t *cfg, int nhosts, double ranks_per_core)
{
    const unsigned g = cfg->model_given;
    if (nhosts > 1 && !cfg->model_hosts) {
        cfg->model_hosts = 1;
        /* the figures across hosts, unless only the local ones came from the user */
        if ((g & LC_MODEL_GIVEN_ALPHA_NET) &&
            (!(g & LC_MODEL_GIVEN_ALPHA_E) || (g & LC_MODEL_GIVEN_ALPHA_NET_E)))
            cfg->model_alpha = cfg->model_alpha_net;
        if ((g & LC_MODEL_GIVEN_BW_NET) &&
            (!(g & LC_MODEL_GIVEN_BW_E) || (g & LC_MODEL_GIVEN_BW_NET_E)))
            cfg->model_bw = cfg->model_bw_net;
    }
    if (ranks_per_core > 1 && !cfg->model_shared) {
        cfg->model_shared = 1;
        cfg->model_alpha += cfg->model_handoff;
        cfg->model_alpha_mapped += cfg->model_handoff;
        /* the work a rank's own processing unit does (copies, reductions,
         * GF and GEMM kernels) gets 1 / ranks_per_core of a unit; the wire
         * between hosts does not */
        const double share = 1.0 / ranks_per_core;
        if (!cfg->model_hosts) cfg->model_bw *= share;
        cfg->model_bw_mapped *= share;
        cfg->model_compute_bw *= share;
        cfg->model_reduce_bw *= share;
        cfg->model_flops *= share;
    }
}
