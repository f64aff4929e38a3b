/**
 * @file info.h
 * @brief Introspection: configuration variables, build options, kernels.
 *
 * Used by lincoll_info; also useful to print a daemon's settings.
 */
#ifndef LINCOLL_INFO_H
#define LINCOLL_INFO_H

#include <stddef.h>
#include <lincoll/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One LINCOLL_* configuration variable. */
typedef struct lincoll_config_var {
    const char *name;          /**< e.g. "LINCOLL_TIMEOUT" */
    const char *type;          /**< "string", "int", "size", "seconds", "bool", "enum", "number",
                                    "secret" (text that programs never print) or "ucx" */
    const char *default_value; /**< default, as text */
    const char *values;        /**< enum: "a|b|c"; int: "min:max"; otherwise NULL */
    const char *doc;           /**< one-sentence documentation */
    const char *current;       /**< value in the environment, or NULL when unset */
} lincoll_config_var_t;

/**
 * @brief The LINCOLL_* variables, by their index in lincoll_config_var().
 *
 * Programs that need a variable's name or value take it from the library's
 * table with its index (lincoll_config_var(LINCOLL_CONFIG_TIMEOUT, &v): v.name,
 * v.current) instead of spelling the name.  Indices from
 * ::LINCOLL_CONFIG_LAST up to lincoll_config_var_count() are the UCX_*
 * variables lincoll sets.
 */
typedef enum lincoll_config_id {
    LINCOLL_CONFIG_LOG_LEVEL = 0,
    LINCOLL_CONFIG_TIMEOUT,
    LINCOLL_CONFIG_TRANSPORT,
    LINCOLL_CONFIG_PORTS,
    LINCOLL_CONFIG_PLAN_DUMP,
    LINCOLL_CONFIG_KERNEL_ISA,
    LINCOLL_CONFIG_GF_STREAM_BYTES,
    LINCOLL_CONFIG_BOOTSTRAP_KIND,
    LINCOLL_CONFIG_BOOTSTRAP,
    LINCOLL_CONFIG_RANK,
    LINCOLL_CONFIG_SIZE,
    LINCOLL_CONFIG_JOB_SECRET,
    LINCOLL_CONFIG_BOOTSTRAP_TIMEOUT,
    LINCOLL_CONFIG_UCX_ERR_MODE,
    LINCOLL_CONFIG_UCX_LANES,
    LINCOLL_CONFIG_COLL_ZCOPY_THRESHOLD,
    LINCOLL_CONFIG_BIND,
    LINCOLL_CONFIG_WAIT,
    LINCOLL_CONFIG_ALGO_FALLBACK,
    LINCOLL_CONFIG_MODEL_ALPHA,
    LINCOLL_CONFIG_MODEL_ALPHA_MAPPED,
    LINCOLL_CONFIG_MODEL_BW,
    LINCOLL_CONFIG_MODEL_COMPUTE_BW,
    LINCOLL_CONFIG_ALLREDUCE_ALGO,
    LINCOLL_CONFIG_REDUCE_SCATTER_ALGO,
    LINCOLL_CONFIG_ALLGATHER_ALGO,
    LINCOLL_CONFIG_BCAST_ALGO,
    LINCOLL_CONFIG_REDUCE_ALGO,
    LINCOLL_CONFIG_MATMUL_ALGO,
    LINCOLL_CONFIG_ENCODE_ALGO,
    LINCOLL_CONFIG_ENCODE_CHUNK,
    LINCOLL_CONFIG_COLL_CHUNK,
    LINCOLL_CONFIG_MATMUL_MAX_MEM,
    LINCOLL_CONFIG_MODEL_FLOPS,
    LINCOLL_CONFIG_GEMM_THREADS,
    LINCOLL_CONFIG_ENCODE_CHECKSUM,
    LINCOLL_CONFIG_REPAIR_ALGO,
    LINCOLL_CONFIG_REPAIR_SLICE,
    LINCOLL_CONFIG_STORE_SECRET,
    LINCOLL_CONFIG_PROFILE,
    LINCOLL_CONFIG_MODEL_ALPHA_NET,
    LINCOLL_CONFIG_MODEL_BW_NET,
    LINCOLL_CONFIG_MODEL_HANDOFF,
    LINCOLL_CONFIG_MODEL_BW_MAPPED,
    LINCOLL_CONFIG_MODEL_REDUCE_BW,
    LINCOLL_CONFIG_MPI,
    LINCOLL_CONFIG_MPI_STATS,
    LINCOLL_CONFIG_MPI_CACHE,
    LINCOLL_CONFIG_MPI_CACHE_BYTES,
    LINCOLL_CONFIG_MPI_MIN_BYTES,
    LINCOLL_CONFIG_LAST /**< number of LINCOLL_* variables (not a variable) */
} lincoll_config_id_t;

/** @brief Number of variables: the LINCOLL_* ones, then the UCX_* ones lincoll sets. @return the
 * count. */
LINCOLL_API size_t lincoll_config_var_count(void);

/**
 * @brief Describe variable number @p index.
 * @param [in]  index 0 .. lincoll_config_var_count() - 1 (a ::lincoll_config_id_t for a
 *                   LINCOLL_* variable).
 * @param [out] var   filled with static strings.
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID.
 */
LINCOLL_API lincoll_status_t lincoll_config_var(size_t index, lincoll_config_var_t *var);

/**
 * @brief Parse every LINCOLL_* variable of the environment.
 * @return ::LINCOLL_OK, or ::LINCOLL_ERR_INVALID after logging each bad variable.
 */
LINCOLL_API lincoll_status_t lincoll_config_check(void);

/** @brief Build options, e.g. "pmix=on verbs=on ucx=1.13.1". @return static string. */
LINCOLL_API const char *lincoll_info_build(void);

/**
 * @brief Kernel dispatch: the chosen instruction set and the CPU's best.
 * @param [out] active  ISA the kernels use ("base", "avx2", "avx512", "gfni").
 * @param [out] best    best ISA this CPU supports.
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID on NULL.
 */
LINCOLL_API lincoll_status_t lincoll_info_kernel_isa(const char **active, const char **best);

/** @brief Transports compiled in, e.g. "ucx sim". @return static string. */
LINCOLL_API const char *lincoll_info_transports(void);

/**
 * @brief Describe the machine as lincoll sees it (hwloc): cores, NUMA nodes,
 *        network and GPU devices with their locality, and this process's binding.
 * @param [out] buf text, several lines, NUL-terminated (truncated to @p len).
 * @param [in]  len size of @p buf.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID, or ::LINCOLL_ERR_IO if hwloc fails.
 */
LINCOLL_API lincoll_status_t lincoll_info_topology(char *buf, size_t len);

/**
 * @brief The algorithms every LINCOLL_*_ALGO variable accepts, one line each:
 *        variable, name, plan name and whether it runs zero copy (the
 *        registries in the order the cost model breaks ties).
 * @param [out] buf text, NUL-terminated (truncated to fit).
 * @param [in]  len size of @p buf.
 * @return ::LINCOLL_OK, or ::LINCOLL_ERR_INVALID when @p buf is NULL or @p len is 0.
 */
LINCOLL_API lincoll_status_t lincoll_info_algorithms(char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
