/*
 * core/base/config.h: the one declared table of LINCOLL_* variables.
 *
 * Every variable has a name, a type, a default and a doc string, and is
 * parsed once (lc_config_load) into an lc_config_t; lc_config_reread parses
 * one again where a variable is read at every call.  A bad value is an error
 * that names the variable.  Nothing else reads LINCOLL_* variables.  The
 * table holds core's own rows and nests every transport's rows
 * (lc_tl_config_t, transports/<name>/config.c) as a block: their values land
 * in the transport's settings inside lc_config_t (ucx: lc_config_t.ucx),
 * which core hands down when it starts the transport
 * (core/context/transports.c).  Kernels get theirs through
 * lc_config_push_kernels and the settings source the table installs at load
 * (lc_config_install_hooks).  lincoll_info -c prints every row, then the UCX
 * variables the ucx transport sets (transports/ucx/config.c).
 */
#ifndef LC_CONFIG_H
#define LC_CONFIG_H

#include "transports/ucx/api.h"

#include <lincoll/info.h>
#include <lincoll/status.h>
#include <stddef.h>

typedef enum lc_cfg_type {
    LC_CFG_STRING, /* free text (bounded length) */
    LC_CFG_INT,    /* signed integer within [min, max] */
    LC_CFG_SIZE,   /* byte count with optional k/m/g suffix (powers of 1024) */
    LC_CFG_TIME,   /* seconds, fractional allowed, >= 0 */
    LC_CFG_BOOL,   /* 1/0, y/n, yes/no, true/false, on/off */
    LC_CFG_ENUM,   /* one of a '|' separated list; stored as its index */
    LC_CFG_DOUBLE, /* positive real number */
    LC_CFG_SECRET  /* free text that is never shown (lincoll_info -c prints that it is set) */
} lc_cfg_type_t;

typedef struct lc_config {
    int log_level;            /* LINCOLL_LOG_LEVEL (lincoll_log_level_t) */
    double timeout;           /* LINCOLL_TIMEOUT, seconds; 0 = wait forever */
    int transport;            /* LINCOLL_TRANSPORT: index into the table's values; the
                                 transport array (core/context/transports.c) has the names */
    long ports;               /* LINCOLL_PORTS; 0 = automatic */
    int plan_dump;            /* LINCOLL_PLAN_DUMP */
    int kernel_isa;           /* LINCOLL_KERNEL_ISA: 0 auto, 1.. = lc_isa_t + 1 */
    size_t gf_stream_bytes;   /* LINCOLL_GF_STREAM_BYTES (to the kernels: lc_config_push_kernels) */
    int bootstrap_kind;       /* LINCOLL_BOOTSTRAP_KIND: auto|pmix|tcp|single */
    char bootstrap[256];      /* LINCOLL_BOOTSTRAP host:port of the TCP store */
    long rank;                /* LINCOLL_RANK, -1 unset */
    long size;                /* LINCOLL_SIZE, -1 unset */
    char job_secret[128];     /* LINCOLL_JOB_SECRET */
    double bootstrap_timeout; /* LINCOLL_BOOTSTRAP_TIMEOUT seconds */
    lc_tl_ucx_settings_t ucx; /* LINCOLL_UCX_*: the ucx transport's rows (transports/ucx) */
    size_t zcopy_threshold;   /* LINCOLL_COLL_ZCOPY_THRESHOLD bytes */
    int bind;                 /* LINCOLL_BIND: auto|core|numa|none */
    int wait;                 /* LINCOLL_WAIT: auto|spin|sleep (lc_wait_mode_t) */
    int algo_fallback;        /* LINCOLL_ALGO_FALLBACK: warn|error */
    double model_alpha;       /* LINCOLL_MODEL_ALPHA: seconds per message round */
    double model_alpha_mapped; /* LINCOLL_MODEL_ALPHA_MAPPED: seconds per round of stores/flags */
    double model_bw;           /* LINCOLL_MODEL_BW: bytes/s per port */
    double model_compute_bw;   /* LINCOLL_MODEL_COMPUTE_BW: bytes/s of local compute */
    double model_flops;        /* LINCOLL_MODEL_FLOPS: flop/s of the local GEMM */
    long gemm_threads;         /* LINCOLL_GEMM_THREADS (to the kernels: lc_config_push_kernels) */
    /* Forced algorithms by name ("auto" or a registry name): each family
     * rereads its variable through the table (lc_config_reread) when it
     * compiles a plan, so a program may change it between calls. */
    char algo_allreduce[32], algo_reduce_scatter[32], algo_allgather[32], algo_bcast[32];
    char algo_reduce[32], algo_matmul[32], algo_encode[32];
    size_t matmul_max_mem;  /* LINCOLL_MATMUL_MAX_MEM bytes; 0 = no limit */
    size_t encode_chunk;    /* LINCOLL_ENCODE_CHUNK bytes; 0 = cost model */
    size_t coll_chunk;      /* LINCOLL_COLL_CHUNK bytes; 0 = no pipelining */
    int encode_checksum;    /* LINCOLL_ENCODE_CHECKSUM: 0 off, 1 crc32c */
    int repair_algo;        /* LINCOLL_REPAIR_ALGO: a lincoll_repair_algo_t */
    size_t repair_slice;    /* LINCOLL_REPAIR_SLICE bytes; 0 = cost model */
    char store_secret[256]; /* LINCOLL_STORE_SECRET (read by lincoll-store only) */
    char profile[1024];     /* LINCOLL_PROFILE: a machine profile's path; "" default, "none" */
    double model_alpha_net; /* LINCOLL_MODEL_ALPHA_NET: seconds per round across hosts */
    double model_bw_net;    /* LINCOLL_MODEL_BW_NET: bytes/s per port across hosts */
    double model_handoff;   /* LINCOLL_MODEL_HANDOFF: seconds to hand a shared core over */
    double model_bw_mapped; /* LINCOLL_MODEL_BW_MAPPED: bytes/s of loads/stores in peers' memory */
    double model_reduce_bw; /* LINCOLL_MODEL_REDUCE_BW: bytes/s of a reduction (collectives) */
    /* not variables: what lc_config_load made of the profile and the job */
    char profile_used[1024]; /* the profile whose figures the model holds; "" none */
    unsigned model_given;    /* bit LC_MODEL_GIVEN_*: a figure the profile or environment set */
    int model_hosts;         /* lc_config_model_job: hosts > 1 (the _net figures apply) */
    int model_shared;        /* lc_config_model_job: ranks share cores (+ handoff, the
                                local rates / ranks per core) */
    /* the MPI layer (mpi/, liblincoll_mpi.so; read there through lincoll_config_var) */
    int mpi;                 /* LINCOLL_MPI: on|off */
    int mpi_stats;           /* LINCOLL_MPI_STATS */
    long mpi_cache;          /* LINCOLL_MPI_CACHE: cached plans */
    size_t mpi_cache_bytes;  /* LINCOLL_MPI_CACHE_BYTES: their scratch memory */
    char mpi_min_bytes[256]; /* LINCOLL_MPI_MIN_BYTES: op=ranges,... overrides */
} lc_config_t;

/* lc_config_t.model_given: which figures a profile (P) or the environment (E) gave */
enum {
    LC_MODEL_GIVEN_ALPHA_E = 1u << 0,
    LC_MODEL_GIVEN_BW_E = 1u << 1,
    LC_MODEL_GIVEN_ALPHA_NET = 1u << 2, /* profile or environment */
    LC_MODEL_GIVEN_BW_NET = 1u << 3,
    LC_MODEL_GIVEN_ALPHA_NET_E = 1u << 4,
    LC_MODEL_GIVEN_BW_NET_E = 1u << 5,
    LC_MODEL_GIVEN_BW_MAPPED = 1u << 6, /* profile or environment */
    LC_MODEL_GIVEN_REDUCE_BW = 1u << 7, /* profile or environment */
};

enum { LC_BOOT_AUTO = 0, LC_BOOT_PMIX, LC_BOOT_TCP, LC_BOOT_SINGLE };
enum { LC_FALLBACK_WARN = 0, LC_FALLBACK_ERROR = 1 };
typedef enum { LC_WAIT_AUTO = 0, LC_WAIT_SPIN = 1, LC_WAIT_SLEEP = 2 } lc_wait_mode_t;

typedef struct lc_config_field {
    const char *name; /* full variable name, LINCOLL_... */
    lc_cfg_type_t type;
    const char *dflt;   /* default, as text */
    const char *values; /* ENUM: "a|b|c"; INT: "min:max" */
    const char *doc;
    size_t offset; /* into lc_config_t (a transport's row: into its settings there) */
    size_t size;   /* STRING: buffer size */
} lc_config_field_t;

/** The table and its length (row i is variable i of lincoll_config_id_t): core's
 *  rows and the transports' nested ones, each named in full ("LINCOLL_..."). */
const lc_config_field_t *lc_config_table(size_t *count_p);

/** The name of variable @p id ("LINCOLL_..."), from the table: code that
 *  prints, sets or looks up a variable takes its name here instead of
 *  spelling it (test/layers/check_getenv.py checks). */
const char *lc_config_name(lincoll_config_id_t id);

/** Parse every variable from the environment into @p cfg (defaults first). */
lincoll_status_t lc_config_load(lc_config_t *cfg);

/** Parse one value of @p field from @p text into @p cfg (tests and fuzzers use it). */
lincoll_status_t lc_config_parse_field(const lc_config_field_t *field, const char *text,
                                       lc_config_t *cfg);

/** Parse "64", "64k", "4M", "1g" into bytes. */
lincoll_status_t lc_parse_size(const char *text, size_t *out);

/**
 * Parse the one variable @p name (full name, "LINCOLL_...") from the
 * environment into its field of @p cfg, by the table's parser and rules, for
 * variables read at every call (LINCOLL_<OP>_ALGO at every *_init).  Unset:
 * the default, LINCOLL_OK.  A bad value: logged (naming the variable), the
 * default stored, LINCOLL_ERR_INVALID.  Other fields of @p cfg are untouched.
 */
lincoll_status_t lc_config_reread(const char *name, lc_config_t *cfg);

/** lc_config_reread of variable @p id. */
lincoll_status_t lc_config_reread_id(lincoll_config_id_t id, lc_config_t *cfg);

/**
 * The machine profile into @p cfg's model figures (lc_config_load calls it
 * between the defaults and the environment): @p value is LINCOLL_PROFILE's
 * value (NULL: unset).  A path: that profile; NULL or "": the default
 * location's when it exists (lc_profile_default_path); "none": no profile.
 * The rule for a bad profile: one named by LINCOLL_PROFILE is an error (one
 * log line naming the file and line, unless @p quiet) and
 * LINCOLL_ERR_INVALID, so lincoll_init fails; a bad one at the default
 * location is warned about once per process and the built-in figures stay.
 */
lincoll_status_t lc_config_profile(lc_config_t *cfg, const char *value, int quiet);

/**
 * Fit the model's figures to the job, once its shape is known (lincoll_init
 * calls it; idempotent): @p nhosts > 1 makes model_alpha and model_bw the
 * figures across hosts (model_alpha_net, model_bw_net); @p ranks_per_core >
 * 1 (ranks that share cores: each round waits for the peer's time slice)
 * adds model_handoff to model_alpha and model_alpha_mapped.  Figures set in
 * the environment (LINCOLL_MODEL_ALPHA, _BW) are the user's: kept.
 */
void lc_config_model_job(lc_config_t *cfg, int nhosts, double ranks_per_core);

/** Hand the kernel settings of @p cfg (ISA, GF streaming, GEMM threads) to kernels/. */
void lc_config_push_kernels(const lc_config_t *cfg);

/** Install the table's hooks into the layers below (kernels' initial settings);
 *  runs as a constructor when the library is loaded. */
void lc_config_install_hooks(void);

#endif
