/*
 * kernels/kernels.h: what every kernel family shares.
 *
 * CPU feature detection and the ISA ladder (base < avx2 < avx512 < gfni),
 * the LINCOLL_KERNEL_ISA override, and a log hook.  kernels/ never includes
 * core/: core installs the log hook (lc_kernels_set_log) when the library is
 * loaded; without it, errors go to stderr.
 */
#ifndef LC_KERNELS_H
#define LC_KERNELS_H

#include <lincoll/log.h>
#include <lincoll/status.h>

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

/**
 * The level kernels dispatch to: LINCOLL_KERNEL_ISA when set (clamped to what
 * the CPU supports, with a warning), otherwise lc_cpu_best_isa().  Read once.
 */
lc_isa_t lc_kernel_isa(void);

/** Force the dispatch level (tests, benchmarks); returns the previous one. */
lc_isa_t lc_kernel_isa_set(lc_isa_t isa);

/** Parse "base|avx2|avx512|gfni" (case-insensitive). */
lincoll_status_t lc_isa_parse(const char *name, lc_isa_t *isa_p);

/** Name of an ISA level. */
const char *lc_isa_name(lc_isa_t isa);

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
