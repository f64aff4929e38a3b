/*
 * kernels/cpu.c: CPU feature detection, the kernel ISA level and the
 * kernels' settings.
 *
 * cpuid leaf 7 gives the AVX2/AVX-512/GFNI bits; xgetbv checks that the OS
 * saves the YMM/ZMM state (a hypervisor may hide it).  The settings (a forced
 * lower ISA for bisecting and benchmarking, the GF streaming threshold, GEMM
 * threads) come from core: the source core installs
 * (lc_kernels_set_settings_source) once before the first dispatch, then
 * whatever lc_kernels_configure() passes.
 */
#include "kernels.h"

#include "gemm/gemm_kernels.h"
#include "gf/gf_kernels.h"

#include <cpuid.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <strings.h>

static unsigned lc_cpu_feature_bits;
static lc_isa_t lc_active_isa = LC_ISA_BASE;
static pthread_once_t lc_cpu_once = PTHREAD_ONCE_INIT;
static pthread_once_t lc_settings_once = PTHREAD_ONCE_INIT;
static lc_kernel_settings_t lc_settings = {.isa = -1, .gf_stream_bytes = 0, .gemm_threads = 1};
static lc_kernels_log_fn_t lc_klog_hook;
static lc_kernels_settings_fn_t lc_settings_source;

static const char *const lc_isa_names[LC_ISA_LAST] = {"base", "avx2", "avx512", "gfni"};

static unsigned long long lc_xgetbv0(void)
{
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}

static unsigned lc_cpu_detect(void)
{
    unsigned a, b, c, d, bits = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) {
        return 0;
    }
    int osxsave = (c >> 27) & 1;
    if (c & (1u << 12)) bits |= LC_CPU_FMA;
    if (c & (1u << 29)) bits |= LC_CPU_F16C;
    if (!osxsave) {
        return 0;
    }
    unsigned long long xcr0 = lc_xgetbv0();
    int ymm_ok = (xcr0 & 0x6) == 0x6;
    int zmm_ok = (xcr0 & 0xe6) == 0xe6;
    if (!ymm_ok || !__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        return 0;
    }
    if (b & (1u << 5)) bits |= LC_CPU_AVX2;
    if (zmm_ok) {
        if (b & (1u << 16)) bits |= LC_CPU_AVX512F;
        if (b & (1u << 17)) bits |= LC_CPU_AVX512DQ;
        if (b & (1u << 21)) bits |= LC_CPU_AVX512IFMA;
        if (b & (1u << 30)) bits |= LC_CPU_AVX512BW;
        if (b & (1u << 31)) bits |= LC_CPU_AVX512VL;
        if (c & (1u << 1)) bits |= LC_CPU_AVX512VBMI;
        unsigned a1, b1, c1, d1;
        if (__get_cpuid_count(7, 1, &a1, &b1, &c1, &d1) && (a1 & (1u << 5))) {
            bits |= LC_CPU_AVX512BF16;
        }
    }
    if (c & (1u << 8)) bits |= LC_CPU_GFNI;
    if (c & (1u << 10)) bits |= LC_CPU_VPCLMULQDQ;
    return bits;
}

static lc_isa_t lc_isa_from_bits(unsigned bits)
{
    const unsigned avx2 = LC_CPU_AVX2 | LC_CPU_FMA;
    const unsigned avx512 =
        avx2 | LC_CPU_AVX512F | LC_CPU_AVX512BW | LC_CPU_AVX512VL | LC_CPU_AVX512DQ;
    if ((bits & (avx512 | LC_CPU_GFNI)) == (avx512 | LC_CPU_GFNI)) return LC_ISA_GFNI;
    if ((bits & avx512) == avx512) return LC_ISA_AVX512;
    if ((bits & avx2) == avx2) return LC_ISA_AVX2;
    return LC_ISA_BASE;
}

static void lc_cpu_init_once(void)
{
    lc_cpu_feature_bits = lc_cpu_detect();
}

unsigned lc_cpu_features(void)
{
    pthread_once(&lc_cpu_once, lc_cpu_init_once);
    return lc_cpu_feature_bits;
}

lc_isa_t lc_cpu_best_isa(void)
{
    return lc_isa_from_bits(lc_cpu_features());
}

int lc_cpu_supports(lc_isa_t isa)
{
    return isa >= LC_ISA_BASE && isa <= lc_cpu_best_isa();
}

/* Hand each setting to what uses it (runs under no lock: like
 * lc_kernel_isa_set, callers configure before they compute). */
static void lc_settings_apply(const lc_kernel_settings_t *s)
{
    lc_isa_t best = lc_cpu_best_isa();
    lc_settings = *s;
    if (lc_settings.gemm_threads < 1) lc_settings.gemm_threads = 1;
    if (lc_settings.gemm_threads > LC_KERNELS_MAX_GEMM_THREADS) {
        lc_settings.gemm_threads = LC_KERNELS_MAX_GEMM_THREADS;
    }
    lc_active_isa = s->isa >= LC_ISA_BASE && s->isa < (int)best ? (lc_isa_t)s->isa : best;
    lc_gf_set_stream_bytes(lc_settings.gf_stream_bytes);
    lc_gemm_set_threads(lc_settings.gemm_threads);
}

static void lc_settings_init_once(void)
{
    lc_kernel_settings_t s = lc_settings;
    if (lc_settings_source != NULL) {
        lc_settings_source(&s);
    }
    lc_settings_apply(&s);
}

void lc_kernels_configure(const lc_kernel_settings_t *s)
{
    /* the initial settings first, so they never land on top of these */
    pthread_once(&lc_settings_once, lc_settings_init_once);
    if (s != NULL) {
        lc_settings_apply(s);
    }
}

lc_kernel_settings_t lc_kernels_settings(void)
{
    pthread_once(&lc_settings_once, lc_settings_init_once);
    return lc_settings;
}

lc_isa_t lc_kernel_isa(void)
{
    pthread_once(&lc_settings_once, lc_settings_init_once);
    return lc_active_isa;
}

lc_isa_t lc_kernel_isa_set(lc_isa_t isa)
{
    lc_isa_t prev = lc_kernel_isa();
    if (lc_cpu_supports(isa)) {
        lc_active_isa = isa;
    }
    return prev;
}

lincoll_status_t lc_isa_parse(const char *name, lc_isa_t *isa_p)
{
    if (name == NULL || isa_p == NULL) {
        return LINCOLL_ERR_INVALID;
    }
    for (int i = 0; i < LC_ISA_LAST; i++) {
        if (strcasecmp(name, lc_isa_names[i]) == 0) {
            *isa_p = (lc_isa_t)i;
            return LINCOLL_OK;
        }
    }
    return LINCOLL_ERR_INVALID;
}

const char *lc_isa_name(lc_isa_t isa)
{
    return (isa >= 0 && isa < LC_ISA_LAST) ? lc_isa_names[isa] : "unknown";
}

void lc_kernels_set_settings_source(lc_kernels_settings_fn_t fn)
{
    lc_settings_source = fn;
}

void lc_kernels_set_log(lc_kernels_log_fn_t fn)
{
    lc_klog_hook = fn;
}

void lc_klog(lincoll_log_level_t level, const char *file, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (lc_klog_hook != NULL) {
        lc_klog_hook(level, file, line, "%s", msg);
    } else if (level <= LINCOLL_LOG_WARN) {
        fprintf(stderr, "[lincoll %s] %s:%d %s\n", level == LINCOLL_LOG_ERROR ? "error" : "warn",
                file, line, msg);
    }
}
