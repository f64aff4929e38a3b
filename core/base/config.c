/*
 * core/base/config.c: the LINCOLL_* variable table and its parsers.
 */
#include "core/base/config.h"
#include "core/base/log.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <errno.h>
#include <lincoll/info.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LC_F(_name, _type, _dflt, _values, _field, _doc)                                           \
    {                                                                                              \
        "LINCOLL_" _name, _type, _dflt, _values, _doc, offsetof(lc_config_t, _field),              \
            sizeof(((lc_config_t *)0)->_field)                                                     \
    }

static const lc_config_field_t lc_config_fields[] = {
    LC_F("LOG_LEVEL", LC_CFG_ENUM, "warn", "error|warn|info|debug|trace", log_level,
         "log lines at or above this severity go to stderr (or the installed handler)"),
    LC_F("TIMEOUT", LC_CFG_TIME, "60", NULL, timeout,
         "seconds a plan may wait on its peers before it fails with LINCOLL_ERR_TIMEOUT "
         "(0 waits forever); lincoll_finalize waits at most twice this for unreachable peers"),
    LC_F("TRANSPORT", LC_CFG_ENUM, "ucx", "ucx|sim", transport,
         "transport for data: ucx (UCP tag + RMA), sim (in-process virtual ranks, tests only)"),
    LC_F("PORTS", LC_CFG_INT, "0", "0:64", ports,
         "ports p: sends and receives a rank keeps in flight per round (0 = one per usable "
         "NIC, at least 1)"),
    LC_F("PLAN_DUMP", LC_CFG_BOOL, "n", NULL, plan_dump,
         "print every compiled plan (rounds, ports, peers, sizes, C1/C2) at log level info"),
    LC_F("KERNEL_ISA", LC_CFG_ENUM, "auto", "auto|base|avx2|avx512|gfni", kernel_isa,
         "force the compute-kernel instruction set (auto = best the CPU supports)"),
    LC_F("GF_STREAM_BYTES", LC_CFG_SIZE, "0", NULL, gf_stream_bytes,
         "GF(2^8) lincomb (AVX-512/GFNI, up to 8 outputs) writes its outputs with "
         "non-temporal stores from this working set ((k + r) * len bytes) on; 0 = 3/4 of the "
         "last-level cache, at most 24 MiB"),
    LC_F("BOOTSTRAP_KIND", LC_CFG_ENUM, "auto", "auto|pmix|tcp|single", bootstrap_kind,
         "how ranks find each other: auto tries PMIx, then the TCP store, then a singleton"),
    LC_F("BOOTSTRAP", LC_CFG_STRING, "", NULL, bootstrap,
         "host:port of the TCP rendezvous store (set by lincoll-run)"),
    LC_F("RANK", LC_CFG_INT, "-1", "-1:16777215", rank, "rank of this process with the TCP store"),
    LC_F("SIZE", LC_CFG_INT, "-1", "-1:16777216", size, "number of ranks with the TCP store"),
    LC_F("JOB_SECRET", LC_CFG_STRING, "", NULL, job_secret,
         "shared secret every rank presents to the TCP store (set by lincoll-run)"),
    LC_F("BOOTSTRAP_TIMEOUT", LC_CFG_TIME, "120", NULL, bootstrap_timeout,
         "seconds lincoll_init waits for all ranks to reach the bootstrap (later bootstrap "
         "waits follow LINCOLL_TIMEOUT)"),
    LC_F("UCX_ERR_MODE", LC_CFG_ENUM, "peer", "peer|none", ucx_err_mode,
         "UCX endpoint error handling: peer turns a dead peer into an error (shared memory "
         "stays on through UCX_MM_ERROR_HANDLING=y); none is UCX's default"),
    LC_F("COLL_ZCOPY_THRESHOLD", LC_CFG_SIZE, "2k", NULL, zcopy_threshold,
         "collectives over lincoll_mem_alloc buffers on ranks that map each other's memory "
         "(one node): allreduce, reduce-scatter, allgather, bcast and reduce of at least this many "
         "bytes load/store the peers' buffers directly (zcopy_*: two flag rounds, no "
         "messages); smaller allreduce (power of two), bcast and reduce put the vector into "
         "the peer's mapped scratch (zcopy_rd_allreduce, zcopy_bcast, zcopy_reduce).  Other "
         "buffers, blocking calls and forced algorithms use tag messages"),
    LC_F("BIND", LC_CFG_ENUM, "auto", "auto|core|numa|none", bind,
         "bind each rank before UCX starts: auto binds to a core unless the launcher bound it"),
    LC_F("ALGO_FALLBACK", LC_CFG_ENUM, "warn", "warn|error", algo_fallback,
         "what a forced algorithm that cannot serve a call does: warn and fall back, or fail"),
    LC_F("MODEL_ALPHA", LC_CFG_DOUBLE, "2e-6", NULL, model_alpha,
         "cost model: seconds of latency per message round (alpha)"),
    LC_F("MODEL_BW", LC_CFG_DOUBLE, "10e9", NULL, model_bw,
         "cost model: bytes per second one port moves (1/beta)"),
    LC_F("MODEL_COMPUTE_BW", LC_CFG_DOUBLE, "20e9", NULL, model_compute_bw,
         "cost model: bytes per second a local reduction or copy processes (1/gamma)"),
    LC_F("ALLREDUCE_ALGO", LC_CFG_ENUM, "auto", "auto|rhd|ring|binomial", algo_allreduce,
         "force the allreduce algorithm (auto: the cost model chooses)"),
    LC_F("REDUCE_SCATTER_ALGO", LC_CFG_ENUM, "auto", "auto|rhd|ring|binomial", algo_reduce_scatter,
         "force the reduce-scatter algorithm"),
    LC_F("ALLGATHER_ALGO", LC_CFG_ENUM, "auto", "auto|rhd|ring|binomial", algo_allgather,
         "force the allgather algorithm"),
    LC_F("BCAST_ALGO", LC_CFG_ENUM, "auto", "auto|rhd|ring|binomial", algo_bcast,
         "force the broadcast algorithm"),
    LC_F("REDUCE_ALGO", LC_CFG_ENUM, "auto", "auto|rhd|ring|binomial", algo_reduce,
         "force the reduce algorithm"),
    LC_F("MATMUL_ALGO", LC_CFG_ENUM, "auto", "auto|ring|summa|cannon|25d", algo_matmul,
         "force the distributed matrix multiply algorithm"),
    LC_F("ENCODE_ALGO", LC_CFG_ENUM, "auto", "auto|prepare_shoot|best_window|direct|specific|zcopy",
         algo_encode, "force the all-to-all encode algorithm"),
    LC_F("ENCODE_CHUNK", LC_CFG_SIZE, "0", NULL, encode_chunk,
         "all-to-all encode: bytes per pipelined chunk of a large packet (transfers of chunk "
         "c+1 overlap the GF work of chunk c); 0 = the cost model chooses (chunks >= 1 MiB: "
         "no chunking below 2 MiB packets); a value >= the packet size turns chunking off"),
    LC_F("MATMUL_MAX_MEM", LC_CFG_SIZE, "0", NULL, matmul_max_mem,
         "automatic matmul choice skips algorithms whose scratch per rank exceeds this (0: no "
         "limit)"),
    LC_F("MODEL_FLOPS", LC_CFG_DOUBLE, "30e9", NULL, model_flops,
         "cost model: floating-point operations per second of the local GEMM"),
    LC_F("GEMM_THREADS", LC_CFG_INT, "1", "1:64", gemm_threads,
         "threads of the local GEMM kernel (parallel over the NC/MC loops); 1 is the reference"),
    LC_F("ENCODE_CHECKSUM", LC_CFG_ENUM, "off", "off|crc32c", encode_checksum,
         "all-to-all encode: crc32c on every packet a plan sends, checked on arrival; a "
         "corrupted transfer ends the plan with LINCOLL_ERR_CORRUPT instead of wrong parity "
         "(costs one 4-byte message per packet and one latency per round)"),
};

const lc_config_field_t *lc_config_table(size_t *count_p)
{
    *count_p = sizeof(lc_config_fields) / sizeof(lc_config_fields[0]);
    return lc_config_fields;
}

static int lc_enum_index(const char *values, const char *text)
{
    size_t tlen = strlen(text);
    int idx = 0;
    for (const char *p = values; *p != '\0'; idx++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == tlen && strncasecmp(p, text, len) == 0) {
            return idx;
        }
        if (bar == NULL) {
            break;
        }
        p = bar + 1;
    }
    return -1;
}

lincoll_status_t lc_parse_size(const char *text, size_t *out)
{
    if (text == NULL || *text == '\0' || *text == '-') {
        return LINCOLL_ERR_INVALID;
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || end == text) {
        return LINCOLL_ERR_INVALID;
    }
    unsigned shift = 0;
    switch (tolower((unsigned char)*end)) {
    case '\0':
        break;
    case 'k':
        shift = 10;
        break;
    case 'm':
        shift = 20;
        break;
    case 'g':
        shift = 30;
        break;
    default:
        return LINCOLL_ERR_INVALID;
    }
    if (*end != '\0') {
        end++;
        if (tolower((unsigned char)*end) == 'b') end++;
        if (*end != '\0') return LINCOLL_ERR_INVALID;
    }
    if (shift && v > (SIZE_MAX >> shift)) {
        return LINCOLL_ERR_INVALID;
    }
    *out = (size_t)(v << shift);
    return LINCOLL_OK;
}

static int lc_parse_bool(const char *t)
{
    static const char *const yes[] = {"1", "y", "yes", "true", "on"};
    static const char *const no[] = {"0", "n", "no", "false", "off"};
    for (size_t i = 0; i < 5; i++) {
        if (strcasecmp(t, yes[i]) == 0) return 1;
        if (strcasecmp(t, no[i]) == 0) return 0;
    }
    return -1;
}

lincoll_status_t lc_config_parse_field(const lc_config_field_t *f, const char *text,
                                       lc_config_t *cfg)
{
    char *dst = (char *)cfg + f->offset;
    char *end;
    switch (f->type) {
    case LC_CFG_STRING:
        if (strlen(text) >= f->size) {
            lc_error("%s: value is longer than %zu characters", f->name, f->size - 1);
            return LINCOLL_ERR_INVALID;
        }
        memcpy(dst, text, strlen(text) + 1);
        return LINCOLL_OK;
    case LC_CFG_INT: {
        long lo = LONG_MIN, hi = LONG_MAX;
        if (f->values != NULL) {
            sscanf(f->values, "%ld:%ld", &lo, &hi);
        }
        errno = 0;
        long v = strtol(text, &end, 10);
        if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) {
            lc_error("%s=%s: expected an integer in [%ld, %ld]", f->name, text, lo, hi);
            return LINCOLL_ERR_INVALID;
        }
        *(long *)dst = v;
        return LINCOLL_OK;
    }
    case LC_CFG_SIZE: {
        size_t v;
        if (lc_parse_size(text, &v) != LINCOLL_OK) {
            lc_error("%s=%s: expected a byte count such as 4096, 64k or 1m", f->name, text);
            return LINCOLL_ERR_INVALID;
        }
        *(size_t *)dst = v;
        return LINCOLL_OK;
    }
    case LC_CFG_TIME: {
        errno = 0;
        double v = strtod(text, &end);
        if (errno != 0 || end == text || *end != '\0' || !(v >= 0.0) || isinf(v)) {
            lc_error("%s=%s: expected a non-negative number of seconds", f->name, text);
            return LINCOLL_ERR_INVALID;
        }
        *(double *)dst = v;
        return LINCOLL_OK;
    }
    case LC_CFG_DOUBLE: {
        errno = 0;
        double v = strtod(text, &end);
        if (errno != 0 || end == text || *end != '\0' || !(v > 0.0) || isinf(v)) {
            lc_error("%s=%s: expected a positive number", f->name, text);
            return LINCOLL_ERR_INVALID;
        }
        *(double *)dst = v;
        return LINCOLL_OK;
    }
    case LC_CFG_BOOL: {
        int v = lc_parse_bool(text);
        if (v < 0) {
            lc_error("%s=%s: expected y or n", f->name, text);
            return LINCOLL_ERR_INVALID;
        }
        *(int *)dst = v;
        return LINCOLL_OK;
    }
    case LC_CFG_ENUM: {
        int v = lc_enum_index(f->values, text);
        if (v < 0) {
            lc_error("%s=%s: expected one of %s", f->name, text, f->values);
            return LINCOLL_ERR_INVALID;
        }
        *(int *)dst = v;
        return LINCOLL_OK;
    }
    }
    return LINCOLL_ERR_INTERNAL;
}

lincoll_status_t lc_config_load(lc_config_t *cfg)
{
    size_t n;
    const lc_config_field_t *t = lc_config_table(&n);
    memset(cfg, 0, sizeof(*cfg));
    lincoll_status_t status = LINCOLL_OK;
    for (size_t i = 0; i < n; i++) {
        if (lc_config_parse_field(&t[i], t[i].dflt, cfg) != LINCOLL_OK) {
            return LINCOLL_ERR_INTERNAL;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const char *v = getenv(t[i].name);
        if (v != NULL && lc_config_parse_field(&t[i], v, cfg) != LINCOLL_OK) {
            status = LINCOLL_ERR_INVALID; /* keep going: report every bad variable */
        } else if (v != NULL) {
            lc_debug("%s set by environment to %s", t[i].name, v);
        }
    }
    return status;
}

/* ---- public introspection (lincoll_info -c) ---------------------------- */

size_t lincoll_config_var_count(void)
{
    size_t n;
    lc_config_table(&n);
    return n;
}

lincoll_status_t lincoll_config_var(size_t index, lincoll_config_var_t *var)
{
    size_t n;
    const lc_config_field_t *t = lc_config_table(&n);
    if (var == NULL || index >= n) {
        lc_error("lincoll_config_var: index %zu out of range [0, %zu) or var NULL", index, n);
        return LINCOLL_ERR_INVALID;
    }
    static const char *const type_names[] = {"string", "int",  "size",  "seconds",
                                             "bool",   "enum", "number"};
    var->name = t[index].name;
    var->type = type_names[t[index].type];
    var->default_value = t[index].dflt;
    var->values = t[index].values;
    var->doc = t[index].doc;
    var->current = getenv(t[index].name);
    return LINCOLL_OK;
}

lincoll_status_t lincoll_config_check(void)
{
    lc_config_t cfg;
    return lc_config_load(&cfg);
}
