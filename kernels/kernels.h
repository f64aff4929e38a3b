/*
 * kernels/kernels.h: what every kernel family shares.
 *
 * CPU feature detection and the ISA ladder (base < avx2 < avx512 < gfni),
 * the kernels' settings, and a log hook.  kernels/ never includes core/ and
 * reads no environment variable: when the library is loaded core installs
 * the log hook (lc_kernels_set_log; without it, errors go to stderr) and the
 * source of the initial settings (lc_kernels_set_settings_source), and at
 * lincoll_init it hands the settings of its configuration table over with
 * lc_kernels_configure().  Kernels name their own types (names.c).
 */
#ifndef LC_KERNELS_H
#define LC_KERNELS_H

#include <lincoll/log.h>
#include <lincoll/status.h>
#include <lincoll/types.h>
#include <stddef.h>

/** Instruction-set levels, in increasing order.  Each includes the ones below. */
typedef enum lc_isa {
    LC_ISA_BASE = 0, /* plain C, the reference */
    LC_ISA_AVX2,     /* AVX2 + FMA */
    LC_ISA_AVX512,   /* AVX-512 F/BW/VL/DQ (+VBMI where a kernel uses it) */
    LC_ISA_GFNI,     /* AVX-512 + GFNI (GF(2^8) affine instructions) */
    LC_ISA_LAST
} lc_isa_t;

/** Individual CPU features (bit flags) detected with cpuid/xgetbv. */
enum {
    LC_CPU_AVX2 = 1u << 0,
    LC_CPU_FMA = 1u << 1,
    LC_CPU_AVX512F = 1u << 2,
    LC_CPU_AVX512BW = 1u << 3,
    LC_CPU_AVX512VL = 1u << 4,
    LC_CPU_AVX512DQ = 1u << 5,
    LC_CPU_AVX512VBMI = 1u << 6,
    LC_CPU_GFNI = 1u << 7,
    LC_CPU_AVX512IFMA = 1u << 8,
    LC_CPU_VPCLMULQDQ = 1u << 9,
    LC_CPU_F16C = 1u << 10,
    LC_CPU_AVX512BF16 = 1u << 11,
};

/** Feature bits of this CPU (LC_CPU_*), with OS support for the registers checked. */
unsigned lc_cpu_features(void);

/** Highest ISA level this CPU supports. */
lc_isa_t lc_cpu_best_isa(void);

/** Non-zero when this CPU can run code of level @p isa. */
int lc_cpu_supports(lc_isa_t isa);

/** Most threads one GEMM call splits into (lc_kernel_settings_t.gemm_threads). */
#define LC_KERNELS_MAX_GEMM_THREADS 64

/** What the kernels can be told (core/base/config.c: LINCOLL_KERNEL_ISA,
 *  LINCOLL_GF_STREAM_BYTES, LINCOLL_GEMM_THREADS). */
typedef struct lc_kernel_settings {
    int isa;                /* an lc_isa_t to dispatch to, or -1: the best the CPU supports
                               (a level above it is clamped to it) */
    size_t gf_stream_bytes; /* GF(2^8) lincomb streams its outputs from this working set
                               ((k + r) * len bytes) on; 0 = 3/4 of the last-level cache,
                               at most 24 MiB */
    int gemm_threads;       /* threads of one GEMM call, 1..LC_KERNELS_MAX_GEMM_THREADS */
} lc_kernel_settings_t;

/**
 * Apply @p s (core calls it each time it loads its configuration: at
 * lincoll_init).  Dispatch choices the families cache at first use (gemm,
 * reduce, crc32c kernels) keep the ISA they were made with.
 */
void lc_kernels_configure(const lc_kernel_settings_t *s);

/** Fills @p s with the settings kernels start from (see lc_kernels_set_settings_source). */
typedef void (*lc_kernels_settings_fn_t)(lc_kernel_settings_t *s);

/**
 * Install the source of the settings kernels start from when they run before
 * anything configured them (the public kernel APIs work without
 * lincoll_init): kernels call it once, lazily, before the first dispatch,
 * with @p s holding the defaults.  Core installs it when the library is
 * loaded (its configuration table reads the variables), as it installs the
 * log hook; without it kernels start from the defaults.  Installing it after
 * the first dispatch has no effect.  The source must not call back into
 * lc_kernel_isa().
 */
void lc_kernels_set_settings_source(lc_kernels_settings_fn_t fn);

/** The settings in force (loading the initial ones first). */
lc_kernel_settings_t lc_kernels_settings(void);

/**
 * The level kernels dispatch to: the configured isa (clamped to what the CPU
 * supports), otherwise lc_cpu_best_isa().
 */
lc_isa_t lc_kernel_isa(void);

/** Force the dispatch level (tests, benchmarks); returns the previous one. */
lc_isa_t lc_kernel_isa_set(lc_isa_t isa);

/** Parse "base|avx2|avx512|gfni" (case-insensitive). */
lincoll_status_t lc_isa_parse(const char *name, lc_isa_t *isa_p);

/** Name of an ISA level. */
const char *lc_isa_name(lc_isa_t isa);

/** Names of an element type and a reduction operator for kernels' log lines
 *  ("float", "sum"; "unknown" out of range), kernels' own (kernels/names.c). */
const char *lc_kdtype_name(lincoll_dtype_t dtype);
const char *lc_kop_name(lincoll_op_t op);

/** Log hook type: same shape as core's logger. */
typedef void (*lc_kernels_log_fn_t)(lincoll_log_level_t level, const char *file, int line,
                                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/** Installed by core at load time. */
void lc_kernels_set_log(lc_kernels_log_fn_t fn);

/** Log through the hook (stderr for errors/warnings when no hook). */
void lc_klog(lincoll_log_level_t level, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define lc_kerror(...) lc_klog(LINCOLL_LOG_ERROR, __FILE__, __LINE__, __VA_ARGS__)
#define lc_kwarn(...)  lc_klog(LINCOLL_LOG_WARN, __FILE__, __LINE__, __VA_ARGS__)
#define lc_kdebug(...) lc_klog(LINCOLL_LOG_DEBUG, __FILE__, __LINE__, __VA_ARGS__)

#endif
