/*
 * core/base/config.c: the LINCOLL_* variable table and its parsers, and the
 * kernels' settings taken from it.  The only reader of LINCOLL_* variables.
 *
 * The table is core's own rows with every transport's rows nested as a block
 * (lc_tl_config_t: transports/ucx/config.c, transports/sim/config.c), whose
 * values land in that transport's settings inside lc_config_t.  It is
 * flattened once into one row per lincoll_config_id_t, each named in full;
 * every reader (parsing, lc_config_name, lincoll_config_var, lincoll_info -c)
 * sees the flat rows.
 */
#include "core/base/config.h"
#include "core/base/log.h"
#include "kernels/kernels.h"
#include "transports/sim/api.h"
#include "transports/ucx/api.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <errno.h>
#include <lincoll/info.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* An entry of the declared table: a row of core's own, or a block that
 * nests the rows of a transport's table. */
typedef struct lc_config_decl {
    lincoll_config_id_t id;       /* the row's id; a block: the id of its first row */
    lc_config_field_t row;        /* core's row */
    const lc_tl_config_t *nested; /* a block: the transport's table */
    size_t base;                  /* a block: where the transport's settings lie in lc_config_t */
} lc_config_decl_t;

/* One row: the variable LINCOLL_<_id>, at index LINCOLL_CONFIG_<_id>
 * (include/lincoll/info.h).  The only place a variable's name is written
 * (a transport's rows: LC_TL_CONFIG_ROW in its config.c): everyone else
 * takes it from here (lc_config_name, lincoll_config_var). */
#define LC_F(_id, _type, _dflt, _values, _field, _doc)                                             \
    {                                                                                              \
        .id = LINCOLL_CONFIG_##_id,                                                                \
        .row = {.name = "LINCOLL_" #_id,                                                           \
                .type = (_type),                                                                   \
                .dflt = (_dflt),                                                                   \
                .values = (_values),                                                               \
                .doc = (_doc),                                                                     \
                .offset = offsetof(lc_config_t, _field),                                           \
                .size = sizeof(((lc_config_t *)0)->_field)},                                       \
    }

/* A block: the rows of transport table _tl, with ids from
 * LINCOLL_CONFIG_<_first> on in the table's order, their values in the
 * transport's settings at offset _base of lc_config_t. */
#define LC_NEST(_first, _tl, _base)                                                                \
    {                                                                                              \
        .id = LINCOLL_CONFIG_##_first, .nested = &(_tl), .base = (_base)                           \
    }

static const lc_config_decl_t lc_config_decls[] = {
    LC_F(LOG_LEVEL, LC_CFG_ENUM, "warn", "error|warn|info|debug|trace", log_level,
         "log lines at or above this severity go to stderr (or the installed handler)"),
    LC_F(TIMEOUT, LC_CFG_TIME, "60", NULL, timeout,
         "seconds a plan may wait on its peers before it fails with LINCOLL_ERR_TIMEOUT "
         "(0 waits forever); lincoll_finalize waits at most twice this for unreachable peers"),
    LC_F(TRANSPORT, LC_CFG_ENUM, "ucx", "ucx|sim", transport,
         "transport for data: ucx (UCP tag + RMA), sim (in-process virtual ranks, tests only)"),
    LC_F(PORTS, LC_CFG_INT, "0", "0:64", ports,
         "ports p: sends and receives a rank keeps in flight per round (0 = one per usable "
         "NIC, at least 1)"),
    LC_F(PLAN_DUMP, LC_CFG_BOOL, "n", NULL, plan_dump,
         "print every compiled plan (rounds, ports, peers, sizes, C1/C2) at log level info"),
    LC_F(KERNEL_ISA, LC_CFG_ENUM, "auto", "auto|base|avx2|avx512|gfni", kernel_isa,
         "force the compute-kernel instruction set (auto = best the CPU supports)"),
    LC_F(GF_STREAM_BYTES, LC_CFG_SIZE, "0", NULL, gf_stream_bytes,
         "GF(2^8) lincomb (AVX-512/GFNI, up to 8 outputs) writes its outputs with "
         "non-temporal stores from this working set ((k + r) * len bytes) on; 0 = 3/4 of the "
         "last-level cache, at most 24 MiB"),
    LC_F(BOOTSTRAP_KIND, LC_CFG_ENUM, "auto", "auto|pmix|tcp|single", bootstrap_kind,
         "how ranks find each other: auto tries PMIx, then the TCP store, then a singleton"),
    LC_F(BOOTSTRAP, LC_CFG_STRING, "", NULL, bootstrap,
         "host:port of the TCP rendezvous store (set by lincoll-run)"),
    LC_F(RANK, LC_CFG_INT, "-1", "-1:8388607", rank, "rank of this process with the TCP store"),
    LC_F(SIZE, LC_CFG_INT, "-1", "-1:8388608", size, "number of ranks with the TCP store"),
    LC_F(JOB_SECRET, LC_CFG_SECRET, "", NULL, job_secret,
         "shared secret every rank presents to the TCP store (set by lincoll-run)"),
    LC_F(BOOTSTRAP_TIMEOUT, LC_CFG_TIME, "120", NULL, bootstrap_timeout,
         "seconds lincoll_init waits for all ranks to reach the bootstrap (later bootstrap "
         "waits follow LINCOLL_TIMEOUT)"),
    /* LINCOLL_UCX_*: the ucx transport's rows (transports/ucx/config.c) */
    LC_NEST(UCX_ERR_MODE, lc_tl_ucx_config, offsetof(lc_config_t, ucx)),
    LC_F(COLL_ZCOPY_THRESHOLD, LC_CFG_SIZE, "2k", NULL, zcopy_threshold,
         "collectives over lincoll_mem_alloc buffers on ranks that map each other's memory "
         "(one node): allreduce, reduce-scatter, allgather, bcast and reduce of at least this many "
         "bytes load/store the peers' buffers directly (zcopy_*: two flag rounds, no "
         "messages); smaller allreduce (power of two), bcast and reduce put the vector into "
         "the peer's mapped scratch (zcopy_rd_allreduce, zcopy_bcast, zcopy_reduce).  Other "
         "buffers and blocking calls use tag messages; a forced zcopy* algorithm runs where "
         "every rank maps the others' buffers, else falls back (LINCOLL_ALGO_FALLBACK)"),
    LC_F(BIND, LC_CFG_ENUM, "auto", "auto|core|numa|none", bind,
         "bind each rank before UCX starts: auto binds to a core unless the launcher bound it"),
    LC_F(WAIT, LC_CFG_ENUM, "spin", "auto|spin|sleep", wait,
         "how a blocking wait (lincoll_wait, the blocking collectives, lincoll_comm_shrink) "
         "waits: spin polls the transport; sleep hands the core away, in the kernel, on the "
         "context's descriptor or on the flag a peer stores into (a futex); auto sleeps where "
         "ranks share processing units (more ranks on a machine than PUs in their CPU sets, "
         "the same answer on every rank) and spins otherwise.  Spin is the default: with 4 "
         "ranks on 2 otherwise idle cores sleeping measured up to 2x slower; auto pays where "
         "other processes load the machine (docs/topology.md)"),
    LC_F(ALGO_FALLBACK, LC_CFG_ENUM, "warn", "warn|error", algo_fallback,
         "what a forced algorithm that cannot serve a call does: warn and fall back, or fail"),
    LC_F(MODEL_ALPHA, LC_CFG_DOUBLE, "2e-6", NULL, model_alpha,
         "cost model: seconds of latency per message round (alpha)"),
    LC_F(MODEL_ALPHA_MAPPED, LC_CFG_DOUBLE, "2e-7", NULL, model_alpha_mapped,
         "cost model: seconds per round whose transfers are all stores into peers' mapped "
         "memory and flags (zero-copy plans on one node)"),
    LC_F(MODEL_BW, LC_CFG_DOUBLE, "10e9", NULL, model_bw,
         "cost model: bytes per second one port moves (1/beta)"),
    LC_F(MODEL_COMPUTE_BW, LC_CFG_DOUBLE, "20e9", NULL, model_compute_bw,
         "cost model: bytes per second a local reduction or copy processes (1/gamma)"),
    LC_F(ALLREDUCE_ALGO, LC_CFG_STRING, "auto", "auto or an algorithm (lincoll_info -a)",
         algo_allreduce,
         "force the allreduce algorithm by name: rhd, ring, zcopy, zcopy_rd (or the plan "
         "name, e.g. rhd_allreduce); auto: the cost model chooses.  Read at every *_init"),
    LC_F(REDUCE_SCATTER_ALGO, LC_CFG_STRING, "auto", "auto or an algorithm (lincoll_info -a)",
         algo_reduce_scatter, "force the reduce-scatter algorithm: rhd, ring, zcopy, zcopy_rh"),
    LC_F(ALLGATHER_ALGO, LC_CFG_STRING, "auto", "auto or an algorithm (lincoll_info -a)",
         algo_allgather, "force the allgather algorithm: rhd, ring, zcopy, zcopy_rd"),
    LC_F(BCAST_ALGO, LC_CFG_STRING, "auto", "auto or an algorithm (lincoll_info -a)", algo_bcast,
         "force the broadcast algorithm: rhd, binomial, zcopy, zcopy_direct"),
    LC_F(REDUCE_ALGO, LC_CFG_STRING, "auto", "auto or an algorithm (lincoll_info -a)", algo_reduce,
         "force the reduce algorithm: rhd, binomial, zcopy, zcopy_direct"),
    LC_F(MATMUL_ALGO, LC_CFG_STRING, "auto", "auto or an algorithm (lincoll_info -a)", algo_matmul,
         "force the distributed matrix multiply algorithm: ring, summa, cannon, 25d"),
    LC_F(ENCODE_ALGO, LC_CFG_STRING, "auto", "auto or an algorithm (lincoll_info -a)", algo_encode,
         "force the all-to-all encode algorithm: prepare_shoot, best_window, direct, zcopy, "
         "zcopy_split, or specific (the DFT/Vandermonde/Lagrange schedules)"),
    LC_F(ENCODE_CHUNK, LC_CFG_SIZE, "0", NULL, encode_chunk,
         "all-to-all encode: bytes per pipelined chunk of a large packet (transfers of chunk "
         "c+1 overlap the GF work of chunk c); 0 = the cost model chooses (chunks >= 1 MiB: "
         "no chunking below 2 MiB packets); a value >= the packet size turns chunking off"),
    LC_F(COLL_CHUNK, LC_CFG_SIZE, "0", NULL, coll_chunk,
         "allreduce, bcast and reduce (tag and zero-copy plans): cut vectors longer than this "
         "many bytes into pieces of this size (at most 64 pieces) and pipeline them (the "
         "reduction of one piece overlaps the transfers of the next); 0 = off"),
    LC_F(MATMUL_MAX_MEM, LC_CFG_SIZE, "0", NULL, matmul_max_mem,
         "automatic matmul choice skips algorithms whose scratch per rank exceeds this (0: no "
         "limit)"),
    LC_F(MODEL_FLOPS, LC_CFG_DOUBLE, "30e9", NULL, model_flops,
         "cost model: floating-point operations per second of the local GEMM"),
    LC_F(GEMM_THREADS, LC_CFG_INT, "1", "1:64", gemm_threads,
         "threads of the local GEMM kernel (parallel over the NC/MC loops); 1 is the reference"),
    LC_F(ENCODE_CHECKSUM, LC_CFG_ENUM, "off", "off|crc32c", encode_checksum,
         "all-to-all encode: crc32c on every packet a plan sends, checked on arrival; a "
         "corrupted transfer ends the plan with LINCOLL_ERR_CORRUPT instead of wrong parity "
         "(costs one 4-byte message per packet and one latency per round)"),
    LC_F(REPAIR_ALGO, LC_CFG_ENUM, "auto", "auto|star|tree|chain", repair_algo,
         "force the repair schedule of lincoll_encode_repair_k_init (k survivors and the "
         "rebuilding ranks): star (gather k chunks), tree (partial sums up a tree), chain "
         "(pipelined slices survivor to survivor); auto: the cost model.  Read at every init"),
    LC_F(REPAIR_SLICE, LC_CFG_SIZE, "0", NULL, repair_slice,
         "repair: bytes per slice of the chain schedule (and per chunk of star and tree); 0 = "
         "the cost model chooses; a value >= the chunk size: one slice.  Read at every init"),
    LC_F(STORE_SECRET, LC_CFG_SECRET, "", NULL, store_secret,
         "lincoll-store (daemon/lincoll-store.c): the secret its clients must present, when "
         "it is not given as the first line of stdin (never on the command line)"),
    LC_F(PROFILE, LC_CFG_STRING, "", NULL, profile,
         "machine profile whose measured figures the cost model uses (lincoll_info --calibrate "
         "writes one): a path; unset or empty: $XDG_CACHE_HOME/lincoll/profile (else "
         "~/.cache/lincoll/profile) when it exists; none: the built-in figures.  A bad profile "
         "named here fails lincoll_init (LINCOLL_ERR_INVALID, one log line naming file and "
         "line); a bad one at the default location is warned about once and ignored.  "
         "LINCOLL_MODEL_* variables override its figures"),
    LC_F(MODEL_ALPHA_NET, LC_CFG_DOUBLE, "2e-6", NULL, model_alpha_net,
         "cost model: seconds of latency per message round when the ranks span hosts "
         "(replaces LINCOLL_MODEL_ALPHA there)"),
    LC_F(MODEL_BW_NET, LC_CFG_DOUBLE, "10e9", NULL, model_bw_net,
         "cost model: bytes per second one port moves between hosts (replaces LINCOLL_MODEL_BW "
         "when the ranks span hosts)"),
    LC_F(MODEL_HANDOFF, LC_CFG_DOUBLE, "20e-6", NULL, model_handoff,
         "cost model: seconds to hand a core to a peer rank that shares it (a context switch); "
         "added to every round's latency when ranks share cores"),
    LC_F(MODEL_BW_MAPPED, LC_CFG_DOUBLE, "10e9", NULL, model_bw_mapped,
         "cost model: bytes per second a rank copies from or into a peer's mapped memory "
         "(the zero-copy algorithms' beta)"),
    LC_F(MODEL_REDUCE_BW, LC_CFG_DOUBLE, "20e9", NULL, model_reduce_bw,
         "cost model: bytes per second a reduction of the collectives processes (their gamma; "
         "unset: LINCOLL_MODEL_COMPUTE_BW, the GF kernels' rate)"),
    LC_F(MPI, LC_CFG_ENUM, "on", "on|off", mpi,
         "liblincoll_mpi.so (docs/mpi.md): off hands every MPI call to the MPI library "
         "unchanged, as if the library were not loaded"),
    LC_F(MPI_STATS, LC_CFG_BOOL, "n", NULL, mpi_stats,
         "liblincoll_mpi.so: print per MPI operation the calls lincoll took, those handed to "
         "the MPI with the reason, and the time spent, at MPI_Finalize (rank 0 of the world)"),
    LC_F(MPI_CACHE, LC_CFG_INT, "32", "0:4096", mpi_cache,
         "liblincoll_mpi.so: persistent plans kept per process for repeated calls "
         "(least recently used evicted; 0 = compile every call)"),
    LC_F(MPI_CACHE_BYTES, LC_CFG_SIZE, "256m", NULL, mpi_cache_bytes,
         "liblincoll_mpi.so: scratch memory the cached plans may hold together"),
    LC_F(MPI_MIN_BYTES, LC_CFG_STRING, "", NULL, mpi_min_bytes,
         "liblincoll_mpi.so: the message sizes (bytes, as the size table measures them) lincoll "
         "takes per operation, and where blocking calls are staged through lincoll memory, "
         "overriding the built-in table; world rank 0's value holds on every rank: "
         "entry[,entry...], entry op=FROM[-TO][+FROM[-TO]...] (ranges taken, at most 8), "
         "op=off, or stage=SIZE|off; op one of allreduce, reduce, bcast, allgather, "
         "reduce_scatter_block, reduce_scatter, barrier (barrier: 0 takes it)"),
    /* the sim transport's rows (transports/sim/config.c: none, no settings) */
    LC_NEST(LAST, lc_tl_sim_config, 0),
};
#define LC_CONFIG_BLOCKS 2 /* the LC_NEST entries above */
_Static_assert(sizeof(lc_config_decls) / sizeof(lc_config_decls[0]) - LC_CONFIG_BLOCKS +
                       LC_TL_UCX_CONFIG_NROWS + LC_TL_SIM_CONFIG_NROWS ==
                   LINCOLL_CONFIG_LAST,
               "one row per lincoll_config_id_t (include/lincoll/info.h): core's and the "
               "transports'");
_Static_assert(LC_TL_UCX_CONFIG_ERR_MODE == 0 &&
                   LINCOLL_CONFIG_UCX_ERR_MODE + LC_TL_UCX_CONFIG_LANES ==
                       LINCOLL_CONFIG_UCX_LANES &&
                   LC_TL_UCX_CONFIG_NROWS == 2,
               "the ids of the ucx block follow the rows of lc_tl_ucx_config");

/* ---- the flat table ------------------------------------------------------ */

#define LC_CONFIG_NAME_MAX 64

static lc_config_field_t lc_config_rows[LINCOLL_CONFIG_LAST];
static char lc_config_nested_names[LINCOLL_CONFIG_LAST][LC_CONFIG_NAME_MAX];
static pthread_once_t lc_config_once = PTHREAD_ONCE_INIT;

static const lc_cfg_type_t lc_config_tl_types[] = {
    [LC_TL_CONFIG_STRING] = LC_CFG_STRING, [LC_TL_CONFIG_INT] = LC_CFG_INT,
    [LC_TL_CONFIG_SIZE] = LC_CFG_SIZE,     [LC_TL_CONFIG_TIME] = LC_CFG_TIME,
    [LC_TL_CONFIG_BOOL] = LC_CFG_BOOL,     [LC_TL_CONFIG_ENUM] = LC_CFG_ENUM,
    [LC_TL_CONFIG_DOUBLE] = LC_CFG_DOUBLE,
};
_Static_assert(sizeof(lc_config_tl_types) / sizeof(lc_config_tl_types[0]) ==
                   LC_TL_CONFIG_DOUBLE + 1,
               "every transport row type has a core type");

/* Row @p r of block @p e (a transport's row), named LINCOLL_<suffix>. */
static void lc_config_nested_row(const lc_config_decl_t *e, size_t r, lc_config_field_t *f)
{
    const lc_tl_config_row_t *tr = &e->nested->rows[r];
    char *name = lc_config_nested_names[e->id + r];
    int len = snprintf(name, LC_CONFIG_NAME_MAX, "LINCOLL_%s", tr->suffix);
    if (len < 0 || len >= LC_CONFIG_NAME_MAX || (unsigned)tr->type > LC_TL_CONFIG_DOUBLE) {
        lc_error("configuration table: row %zu of the %s transport (%s) has a name longer than "
                 "%d characters or an unknown type",
                 r, e->nested->transport, name, LC_CONFIG_NAME_MAX - 1);
    }
    *f = (lc_config_field_t){
        .name = name,
        .type = (unsigned)tr->type <= LC_TL_CONFIG_DOUBLE ? lc_config_tl_types[tr->type]
                                                          : LC_CFG_STRING,
        .dflt = tr->dflt,
        .values = tr->values,
        .doc = tr->doc,
        .offset = e->base + tr->offset,
        .size = tr->size,
    };
}

/* Core's rows and the transports' blocks, each row at its id; a table that
 * breaks that (two rows on one id, an id without a row, a name twice) is
 * logged: test_layers_config finds it too. */
static void lc_config_flatten(void)
{
    for (size_t d = 0; d < sizeof(lc_config_decls) / sizeof(lc_config_decls[0]); d++) {
        const lc_config_decl_t *e = &lc_config_decls[d];
        size_t n = e->nested != NULL ? e->nested->n_rows : 1;
        for (size_t r = 0; r < n; r++) {
            size_t id = (size_t)e->id + r;
            if (id >= LINCOLL_CONFIG_LAST || lc_config_rows[id].name != NULL) {
                lc_error("configuration table: entry %zu row %zu: id %zu is out of range or "
                         "taken by %s",
                         d, r, id, id < LINCOLL_CONFIG_LAST ? lc_config_rows[id].name : "-");
                continue;
            }
            if (e->nested != NULL) {
                lc_config_nested_row(e, r, &lc_config_rows[id]);
            } else {
                lc_config_rows[id] = e->row;
            }
        }
    }
    for (size_t i = 0; i < LINCOLL_CONFIG_LAST; i++) {
        if (lc_config_rows[i].name == NULL) {
            lc_error("configuration table: no row has id %zu", i);
            /* a row no value fits: lc_config_load fails instead of crashing */
            lc_config_rows[i] = (lc_config_field_t){"LINCOLL_?", LC_CFG_ENUM, "", "", "", 0, 0};
        }
        for (size_t j = 0; j < i; j++) {
            if (strcmp(lc_config_rows[i].name, lc_config_rows[j].name) == 0) {
                lc_error("configuration table: %s is declared twice (ids %zu and %zu)",
                         lc_config_rows[i].name, j, i);
            }
        }
    }
}

const lc_config_field_t *lc_config_table(size_t *count_p)
{
    pthread_once(&lc_config_once, lc_config_flatten);
    *count_p = LINCOLL_CONFIG_LAST;
    return lc_config_rows;
}

const char *lc_config_name(lincoll_config_id_t id)
{
    size_t n;
    const lc_config_field_t *t = lc_config_table(&n);
    return (unsigned)id < n ? t[id].name : "LINCOLL_?";
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

/* Parse @p text into @p f's field of @p cfg; a bad value is logged unless
 * @p quiet, and leaves the field as it was. */
static lincoll_status_t lc_config_parse(const lc_config_field_t *f, const char *text,
                                        lc_config_t *cfg, int quiet)
{
#define LC_PARSE_ERROR(...)                                                                        \
    do {                                                                                           \
        if (!quiet) lc_error(__VA_ARGS__);                                                         \
    } while (0)
    char *dst = (char *)cfg + f->offset;
    char *end;
    switch (f->type) {
    case LC_CFG_STRING:
    case LC_CFG_SECRET:
        if (strlen(text) >= f->size) {
            LC_PARSE_ERROR("%s: value is longer than %zu characters", f->name, f->size - 1);
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
            LC_PARSE_ERROR("%s=%s: expected an integer in [%ld, %ld]", f->name, text, lo, hi);
            return LINCOLL_ERR_INVALID;
        }
        *(long *)dst = v;
        return LINCOLL_OK;
    }
    case LC_CFG_SIZE: {
        size_t v;
        if (lc_parse_size(text, &v) != LINCOLL_OK) {
            LC_PARSE_ERROR("%s=%s: expected a byte count such as 4096, 64k or 1m", f->name, text);
            return LINCOLL_ERR_INVALID;
        }
        *(size_t *)dst = v;
        return LINCOLL_OK;
    }
    case LC_CFG_TIME: {
        errno = 0;
        double v = strtod(text, &end);
        if (errno != 0 || end == text || *end != '\0' || !(v >= 0.0) || isinf(v)) {
            LC_PARSE_ERROR("%s=%s: expected a non-negative number of seconds", f->name, text);
            return LINCOLL_ERR_INVALID;
        }
        *(double *)dst = v;
        return LINCOLL_OK;
    }
    case LC_CFG_DOUBLE: {
        errno = 0;
        double v = strtod(text, &end);
        if (errno != 0 || end == text || *end != '\0' || !(v > 0.0) || isinf(v)) {
            LC_PARSE_ERROR("%s=%s: expected a positive number", f->name, text);
            return LINCOLL_ERR_INVALID;
        }
        *(double *)dst = v;
        return LINCOLL_OK;
    }
    case LC_CFG_BOOL: {
        int v = lc_parse_bool(text);
        if (v < 0) {
            LC_PARSE_ERROR("%s=%s: expected y or n", f->name, text);
            return LINCOLL_ERR_INVALID;
        }
        *(int *)dst = v;
        return LINCOLL_OK;
    }
    case LC_CFG_ENUM: {
        int v = lc_enum_index(f->values, text);
        if (v < 0) {
            LC_PARSE_ERROR("%s=%s: expected one of %s", f->name, text, f->values);
            return LINCOLL_ERR_INVALID;
        }
        *(int *)dst = v;
        return LINCOLL_OK;
    }
    }
#undef LC_PARSE_ERROR
    return LINCOLL_ERR_INTERNAL;
}

lincoll_status_t lc_config_parse_field(const lc_config_field_t *f, const char *text,
                                       lc_config_t *cfg)
{
    return lc_config_parse(f, text, cfg, 0);
}

/* Which model figures the environment sets (they override the profile's). */
static unsigned lc_config_model_env(void)
{
    static const struct {
        lincoll_config_id_t id;
        unsigned bit;
    } m[] = {
        {LINCOLL_CONFIG_MODEL_ALPHA, LC_MODEL_GIVEN_ALPHA_E},
        {LINCOLL_CONFIG_MODEL_BW, LC_MODEL_GIVEN_BW_E},
        {LINCOLL_CONFIG_MODEL_ALPHA_NET, LC_MODEL_GIVEN_ALPHA_NET_E | LC_MODEL_GIVEN_ALPHA_NET},
        {LINCOLL_CONFIG_MODEL_BW_NET, LC_MODEL_GIVEN_BW_NET_E | LC_MODEL_GIVEN_BW_NET},
        {LINCOLL_CONFIG_MODEL_BW_MAPPED, LC_MODEL_GIVEN_BW_MAPPED},
        {LINCOLL_CONFIG_MODEL_REDUCE_BW, LC_MODEL_GIVEN_REDUCE_BW}};
    unsigned bits = 0;
    for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
        if (getenv(lc_config_name(m[i].id)) != NULL) bits |= m[i].bit;
    return bits;
}

/* Every row of the table into @p cfg: its default, then the environment's
 * value (a bad one logged unless @p quiet, and its default kept). */
static lincoll_status_t lc_config_fill(lc_config_t *cfg, int quiet)
{
    size_t n;
    const lc_config_field_t *t = lc_config_table(&n);
    memset(cfg, 0, sizeof(*cfg));
    lincoll_status_t status = LINCOLL_OK;
    for (size_t i = 0; i < n; i++) {
        if (lc_config_parse(&t[i], t[i].dflt, cfg, quiet) != LINCOLL_OK) {
            return LINCOLL_ERR_INTERNAL;
        }
    }
    /* the machine profile's figures, between the defaults and the environment */
    if (lc_config_profile(cfg, getenv(lc_config_name(LINCOLL_CONFIG_PROFILE)), quiet) != LINCOLL_OK)
        status = LINCOLL_ERR_INVALID;
    for (size_t i = 0; i < n; i++) {
        const char *v = getenv(t[i].name);
        if (v != NULL && lc_config_parse(&t[i], v, cfg, quiet) != LINCOLL_OK) {
            status = LINCOLL_ERR_INVALID; /* keep going: report every bad variable */
        } else if (v != NULL && !quiet) {
            lc_debug("%s set by environment to %s", t[i].name, v);
        }
    }
    cfg->model_given |= lc_config_model_env();
    /* zero copy moves at the messages' rate unless told its own */
    if (!(cfg->model_given & LC_MODEL_GIVEN_BW_MAPPED)) cfg->model_bw_mapped = cfg->model_bw;
    if (!(cfg->model_given & LC_MODEL_GIVEN_REDUCE_BW))
        cfg->model_reduce_bw = cfg->model_compute_bw;
    return status;
}

lincoll_status_t lc_config_load(lc_config_t *cfg)
{
    return lc_config_fill(cfg, 0);
}

static const lc_config_field_t *lc_config_find(const char *name)
{
    size_t n;
    const lc_config_field_t *t = lc_config_table(&n);
    for (size_t i = 0; name != NULL && i < n; i++) {
        if (strcmp(t[i].name, name) == 0) return &t[i];
    }
    return NULL;
}

lincoll_status_t lc_config_reread(const char *name, lc_config_t *cfg)
{
    const lc_config_field_t *f = lc_config_find(name);
    if (f == NULL || cfg == NULL) {
        lc_error("lc_config_reread: %s is not a variable of the table (or cfg is NULL)",
                 name != NULL ? name : "(null)");
        return LINCOLL_ERR_INVALID;
    }
    const char *v = getenv(f->name);
    if (v != NULL && lc_config_parse_field(f, v, cfg) == LINCOLL_OK) {
        return LINCOLL_OK;
    }
    /* unset, or bad (logged): the default */
    if (lc_config_parse_field(f, f->dflt, cfg) != LINCOLL_OK) {
        return LINCOLL_ERR_INTERNAL;
    }
    return v == NULL ? LINCOLL_OK : LINCOLL_ERR_INVALID;
}

lincoll_status_t lc_config_reread_id(lincoll_config_id_t id, lc_config_t *cfg)
{
    if ((unsigned)id >= LINCOLL_CONFIG_LAST) {
        lc_error("lc_config_reread_id: %d is not a lincoll_config_id_t", (int)id);
        return LINCOLL_ERR_INVALID;
    }
    return lc_config_reread(lc_config_name(id), cfg);
}

/* ---- kernels' settings ------------------------------------------------- */

static void lc_config_kernel_settings(const lc_config_t *cfg, lc_kernel_settings_t *s)
{
    s->isa = cfg->kernel_isa > 0 ? cfg->kernel_isa - 1 : -1; /* 0 is auto */
    s->gf_stream_bytes = cfg->gf_stream_bytes;
    s->gemm_threads = (int)cfg->gemm_threads;
    if (s->isa >= 0 && !lc_cpu_supports((lc_isa_t)s->isa)) {
        /* once per value: the lazy load and every lincoll_init come here */
        static int warned = -1;
        if (__atomic_exchange_n(&warned, s->isa, __ATOMIC_RELAXED) != s->isa) {
            lc_warn("%s=%s is not supported by this CPU; using %s",
                    lc_config_name(LINCOLL_CONFIG_KERNEL_ISA), lc_isa_name((lc_isa_t)s->isa),
                    lc_isa_name(lc_cpu_best_isa()));
        }
    }
}

void lc_config_push_kernels(const lc_config_t *cfg)
{
    lc_kernel_settings_t s;
    lc_config_kernel_settings(cfg, &s);
    lc_kernels_configure(&s);
}

/* Kernels used before (or without) lincoll_init ask for this once (the
 * source lc_config_install_hooks installs): the table's kernel variables,
 * each parsed by the table's rules (a bad value is logged and its default
 * used). */
static void lc_config_initial_kernel_settings(lc_kernel_settings_t *s)
{
    static const lincoll_config_id_t vars[] = {
        LINCOLL_CONFIG_KERNEL_ISA, LINCOLL_CONFIG_GF_STREAM_BYTES, LINCOLL_CONFIG_GEMM_THREADS};
    lc_config_t cfg;
    memset(&cfg, 0, sizeof(cfg));
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        (void)lc_config_reread_id(vars[i], &cfg);
    }
    lc_config_kernel_settings(&cfg, s);
}

/* Runs when the library is loaded: kernels get their initial settings from
 * the table through this hook (the log hooks are installed by
 * core/base/log.c).  Not static: programs linking the static library keep
 * this object through -u lc_config_install_hooks (CMakeLists.txt,
 * lincoll.pc), as nothing else may reference it. */
__attribute__((constructor)) void lc_config_install_hooks(void)
{
    lc_kernels_set_settings_source(lc_config_initial_kernel_settings);
}

/* ---- public introspection (lincoll_info -c) ---------------------------- */

/* The LINCOLL_* variables (core's and the transports' rows), then the UCX_*
 * variables the ucx transport sets (type "ucx": default_value is lincoll's
 * value, current the value UCX gets: the environment's, else lincoll's when
 * its condition holds under this configuration, else NULL for UCX's own
 * default; a value in parentheses describes one lincoll_init works out). */
size_t lincoll_config_var_count(void)
{
    size_t n, nu;
    lc_config_table(&n);
    lc_tl_ucx_var_table(&nu);
    return n + nu;
}

static lincoll_status_t lc_config_ucx_var(size_t index, lincoll_config_var_t *var)
{
    size_t nu;
    const lc_tl_ucx_var_row_t *u = &lc_tl_ucx_var_table(&nu)[index];
    /* the configuration now, without logging: lincoll_config_check reports */
    lc_config_t cfg;
    (void)lc_config_fill(&cfg, 1);
    var->name = u->name;
    var->type = "ucx";
    var->default_value = u->value != NULL ? u->value : "(the topology's choice at lincoll_init)";
    var->values = NULL;
    var->doc = u->doc;
    var->current = getenv(u->name);
    if (var->current == NULL && lc_tl_ucx_var_applies(u, &cfg.ucx)) {
        var->current = var->default_value; /* "(...)": known only at lincoll_init */
    }
    return LINCOLL_OK;
}

lincoll_status_t lincoll_config_var(size_t index, lincoll_config_var_t *var)
{
    size_t n, nu;
    const lc_config_field_t *t = lc_config_table(&n);
    lc_tl_ucx_var_table(&nu);
    if (var == NULL || index >= n + nu) {
        lc_error("lincoll_config_var: index %zu out of range [0, %zu) or var NULL", index, n + nu);
        return LINCOLL_ERR_INVALID;
    }
    if (index >= n) {
        return lc_config_ucx_var(index - n, var);
    }
    static const char *const type_names[] = {"string", "int",  "size",   "seconds",
                                             "bool",   "enum", "number", "secret"};
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
