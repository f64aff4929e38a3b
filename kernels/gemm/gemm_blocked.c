/*
 * kernels/gemm/gemm_blocked.c: the blocked GEMM driver, dispatch and the
 * public lincoll_gemm().
 *
 * What: C := alpha * op(A) * op(B) + beta * C as the five GotoBLAS/BLIS loops
 *       around a register-blocked micro-kernel, with packing of A and B.
 * Reference: Goto & van de Geijn, TOMS 34(3) 2008; Van Zee & van de Geijn,
 *       TOMS 41(3) 2015 (frame/3/gemm/bli_gemm_blk_var*.c, bli_gemm_ker_var2.c).
 * Cost: 2 m n k flops; packing reads A ceil(n/NC) times and B once, and
 *       writes mc*kc + kc*nc elements of buffer (per thread, kept between calls).
 * Restrictions: float and double; C must not overlap A or B.
 *
 * Assumptions (for the loop nest in gemm_blocked_tmpl.h):
 *   - C is column-major (row-major calls were swapped to C^T = B^T A^T);
 *   - mc % mr == 0 and nc % nr == 0 (the registration tables guarantee it);
 *   - packed A panels are MR x kb, column after column, zero-padded to MR rows;
 *     packed B panels are kb x NR, row after row, zero-padded to NR columns;
 *   - beta is applied by the first kc block only (pc == 0), later blocks
 *     accumulate with beta = 1;
 *   - k == 0 or alpha == 0 is C := beta * C, never reading A or B.
 *
 * Loops:   jc (nc cols)  -> pc (kc)  : pack B~ (kc x nc, L3)
 *                        -> ic (mc)  : pack A~ (mc x kc, L2)
 *                        -> jr (nr)  : B micro-panel (L1)
 *                        -> ir (mr)  : A micro-panel, micro-kernel
 *
 * Threads: the kernels' gemm_threads (LINCOLL_GEMM_THREADS) = N splits C into N bands (columns when
 * n >= m, rows otherwise, aligned to NR/MR) that run the loop nest independently, each with its own
 * packing buffers.  Calls below ~8 Mflop stay single-threaded.
 */
#include "gemm_kernels.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---- per-thread packing buffer, grown on demand, freed at thread exit ---- */

static pthread_key_t lc_gemm_buf_key;
static pthread_once_t lc_gemm_buf_once = PTHREAD_ONCE_INIT;
static _Thread_local void *lc_gemm_buf_ptr;
static _Thread_local size_t lc_gemm_buf_size;

static void lc_gemm_buf_key_init(void)
{
    (void)pthread_key_create(&lc_gemm_buf_key, free);
}

static void *lc_gemm_buffer(size_t bytes)
{
    if (bytes <= lc_gemm_buf_size) return lc_gemm_buf_ptr;
    pthread_once(&lc_gemm_buf_once, lc_gemm_buf_key_init);
    free(lc_gemm_buf_ptr);
    lc_gemm_buf_ptr = NULL;
    lc_gemm_buf_size = 0;
    (void)pthread_setspecific(lc_gemm_buf_key, NULL);
    /* Large buffers: 2 MiB aligned so transparent huge pages can back them. */
    size_t align = bytes >= (4u << 20) ? (2u << 20) : 4096;
    bytes = (bytes + align - 1) / align * align;
    void *p = NULL;
    if (posix_memalign(&p, align, bytes) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    if (align > 4096) (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
    lc_gemm_buf_ptr = p;
    lc_gemm_buf_size = bytes;
    (void)pthread_setspecific(lc_gemm_buf_key, p);
    return p;
}

/* ---- the loop nest, once per element type ---- */

/* progress hook (gemm_kernels.h), per thread */
static _Thread_local lc_gemm_hook_t lc_gemm_hook_fn;
static _Thread_local void *lc_gemm_hook_arg;

void lc_gemm_set_hook(lc_gemm_hook_t fn, void *arg)
{
    lc_gemm_hook_fn = fn;
    lc_gemm_hook_arg = arg;
}

#define LC_T     double
#define LC_FN(x) lc_d##x
#include "gemm_blocked_tmpl.h"
#undef LC_T
#undef LC_FN
#define LC_T     float
#define LC_FN(x) lc_s##x
#include "gemm_blocked_tmpl.h"
#undef LC_T
#undef LC_FN

/* ---- threads: independent bands of C ---- */

typedef struct lc_gemm_band {
    const lc_gemm_kernel_t *kr;
    lincoll_trans_t ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    double alpha, beta;
    const void *a, *b;
    void *c;
    lincoll_status_t status;
} lc_gemm_band_t;

static void lc_gemm_band_run(lc_gemm_band_t *w)
{
    if (w->kr->dtype == LINCOLL_DOUBLE) {
        w->status = lc_dgemm_st(w->kr, w->ta, w->tb, w->m, w->n, w->k, w->alpha, w->a, w->lda, w->b,
                                w->ldb, w->beta, w->c, w->ldc);
    } else {
        w->status = lc_sgemm_st(w->kr, w->ta, w->tb, w->m, w->n, w->k, (float)w->alpha, w->a,
                                w->lda, w->b, w->ldb, (float)w->beta, w->c, w->ldc);
    }
}

static void *lc_gemm_band_thread(void *arg)
{
    lc_gemm_band_run(arg);
    return NULL;
}

#define LC_GEMM_MAX_THREADS LC_KERNELS_MAX_GEMM_THREADS

lincoll_status_t lc_gemm_blocked(const lc_gemm_kernel_t *kr, int threads, lincoll_trans_t ta,
                                 lincoll_trans_t tb, int64_t m, int64_t n, int64_t k, double alpha,
                                 const void *a, int64_t lda, const void *b, int64_t ldb,
                                 double beta, void *c, int64_t ldc)
{
    lc_gemm_band_t w = {kr, ta, tb, m, n, k, lda, ldb, ldc, alpha, beta, a, b, c, LINCOLL_OK};
    double flops = 2.0 * (double)m * (double)n * (double)k;
    if (threads > LC_GEMM_MAX_THREADS) threads = LC_GEMM_MAX_THREADS;
    int split_n = n >= m;
    int64_t dim = split_n ? n : m, unit = split_n ? kr->nr : kr->mr;
    int64_t units = (dim + unit - 1) / unit;
    if (threads > units) threads = (int)units;
    if (threads <= 1 || flops < 8e6) {
        lc_gemm_band_run(&w);
        return w.status;
    }
    lc_gemm_band_t band[LC_GEMM_MAX_THREADS];
    pthread_t tid[LC_GEMM_MAX_THREADS];
    int started[LC_GEMM_MAX_THREADS] = {0};
    size_t esz = kr->dtype == LINCOLL_DOUBLE ? sizeof(double) : sizeof(float);
    int64_t a_is = ta == LINCOLL_NO_TRANS ? 1 : lda, b_js = tb == LINCOLL_NO_TRANS ? ldb : 1;
    int64_t done = 0;
    for (int t = 0; t < threads; t++) {
        int64_t share = (units * (t + 1) / threads) * unit;
        if (share > dim) share = dim;
        band[t] = w;
        if (split_n) {
            band[t].n = share - done;
            band[t].b = (const char *)b + (size_t)(done * b_js) * esz;
            band[t].c = (char *)c + (size_t)(done * ldc) * esz;
        } else {
            band[t].m = share - done;
            band[t].a = (const char *)a + (size_t)(done * a_is) * esz;
            band[t].c = (char *)c + (size_t)done * esz;
        }
        done = share;
    }
    for (int t = 1; t < threads; t++) {
        started[t] = pthread_create(&tid[t], NULL, lc_gemm_band_thread, &band[t]) == 0;
        if (!started[t]) lc_gemm_band_run(&band[t]); /* no thread: do it here */
    }
    lc_gemm_band_run(&band[0]);
    lincoll_status_t st = band[0].status;
    for (int t = 1; t < threads; t++) {
        if (started[t]) pthread_join(tid[t], NULL);
        if (band[t].status != LINCOLL_OK) st = band[t].status;
    }
    return st;
}

/* ---- dispatch ---- */

static int lc_gemm_dtype_index(lincoll_dtype_t dtype)
{
    return dtype == LINCOLL_DOUBLE ? 0 : dtype == LINCOLL_FLOAT ? 1 : -1;
}

const lc_gemm_kernel_t *lc_gemm_kernel(lc_isa_t isa, lincoll_dtype_t dtype)
{
    int d = lc_gemm_dtype_index(dtype);
    if (d < 0 || !lc_cpu_supports(isa)) return NULL;
    switch (isa) {
    case LC_ISA_BASE:
        return &lc_gemm_kernels_base[d];
    case LC_ISA_AVX2:
        return &lc_gemm_kernels_avx2[d];
    case LC_ISA_AVX512:
    case LC_ISA_GFNI:
        return &lc_gemm_kernels_avx512[d];
    default:
        return NULL;
    }
}

static const lc_gemm_kernel_t *lc_gemm_active[2];
static pthread_once_t lc_gemm_dispatch_once = PTHREAD_ONCE_INIT;
static int lc_gemm_nthreads = 1;

static void lc_gemm_dispatch_init(void)
{
    lc_isa_t isa = lc_kernel_isa();
    for (int d = 0; d < 2; d++) {
        lincoll_dtype_t dt = d == 0 ? LINCOLL_DOUBLE : LINCOLL_FLOAT;
        lc_isa_t i = isa;
        while (lc_gemm_kernel(i, dt) == NULL && i > LC_ISA_BASE)
            i--;
        lc_gemm_active[d] = lc_gemm_kernel(i, dt);
    }
    lc_kdebug("gemm: double kernel %s, float kernel %s, %d thread(s)", lc_gemm_active[0]->name,
              lc_gemm_active[1]->name, lc_gemm_nthreads);
}

void lc_gemm_set_threads(int threads)
{
    lc_gemm_nthreads = threads < 1                     ? 1
                       : threads > LC_GEMM_MAX_THREADS ? LC_GEMM_MAX_THREADS
                                                       : threads;
}

const lc_gemm_kernel_t *lc_gemm_kernel_active(lincoll_dtype_t dtype)
{
    int d = lc_gemm_dtype_index(dtype);
    if (d < 0) return NULL;
    pthread_once(&lc_gemm_dispatch_once, lc_gemm_dispatch_init);
    return lc_gemm_active[d];
}

int lc_gemm_threads(void)
{
    pthread_once(&lc_gemm_dispatch_once, lc_gemm_dispatch_init);
    return lc_gemm_nthreads;
}

/* ---- entry points ---- */

lincoll_status_t lc_gemm_with(const lc_gemm_kernel_t *kr, int threads, lincoll_layout_t layout,
                              lincoll_trans_t ta, lincoll_trans_t tb, int64_t m, int64_t n,
                              int64_t k, double alpha, const void *a, int64_t lda, const void *b,
                              int64_t ldb, double beta, void *c, int64_t ldc)
{
    if (kr == NULL) {
        lc_kerror("gemm: no kernel");
        return LINCOLL_ERR_INVALID;
    }
    lincoll_status_t st =
        lc_gemm_check(layout, ta, tb, m, n, k, kr->dtype, alpha, a, lda, b, ldb, beta, c, ldc);
    if (st != LINCOLL_OK || m == 0 || n == 0) return st;
    if (layout == LINCOLL_ROW_MAJOR) {
        return lc_gemm_blocked(kr, threads, tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
    }
    return lc_gemm_blocked(kr, threads, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

LINCOLL_API lincoll_status_t lincoll_gemm(lincoll_layout_t layout, lincoll_trans_t transa,
                                          lincoll_trans_t transb, int64_t m, int64_t n, int64_t k,
                                          lincoll_dtype_t dtype, double alpha, const void *a,
                                          int64_t lda, const void *b, int64_t ldb, double beta,
                                          void *c, int64_t ldc)
{
    const lc_gemm_kernel_t *kr = lc_gemm_kernel_active(dtype);
    if (kr == NULL) {
        /* Let the checks name the problem (unknown or unsupported dtype). */
        return lc_gemm_check(layout, transa, transb, m, n, k, dtype, alpha, a, lda, b, ldb, beta, c,
                             ldc);
    }
    return lc_gemm_with(kr, lc_gemm_threads(), layout, transa, transb, m, n, k, alpha, a, lda, b,
                        ldb, beta, c, ldc);
}

LINCOLL_API const char *lincoll_gemm_kernel_name(lincoll_dtype_t dtype)
{
    const lc_gemm_kernel_t *kr = lc_gemm_kernel_active(dtype);
    return kr != NULL ? kr->name : "none";
}
