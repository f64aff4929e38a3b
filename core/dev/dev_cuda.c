/*
 * core/dev/dev_cuda.c: the cuda device backend, the ops table over
 * kernels/cuda (built with LINCOLL_WITH_CUDA).
 */
#include "core/dev/dev.h"

#ifdef LINCOLL_HAVE_CUDA

#include "kernels/cuda/cuda_kernels.h"

#define LC_S(_s) ((lc_cuda_stream_t *)(_s))

static lincoll_status_t lc_dc_stream_create(lc_dev_stream_t **s)
{
    return lc_cuda_stream_create((lc_cuda_stream_t **)s);
}
static void lc_dc_stream_destroy(lc_dev_stream_t *s)
{
    lc_cuda_stream_destroy(LC_S(s));
}
static lincoll_status_t lc_dc_copy(lc_dev_stream_t *s, void *d, const void *a, size_t n)
{
    return lc_cuda_copy(LC_S(s), d, a, n);
}
static lincoll_status_t lc_dc_memset(lc_dev_stream_t *s, void *d, int v, size_t n)
{
    return lc_cuda_memset(LC_S(s), d, v, n);
}
static lincoll_status_t lc_dc_query(lc_dev_stream_t *s)
{
    return lc_cuda_query(LC_S(s));
}
static lincoll_status_t lc_dc_sync(lc_dev_stream_t *s)
{
    return lc_cuda_sync(LC_S(s));
}
static lincoll_status_t lc_dc_reduce(lc_dev_stream_t *s, void *d, const void *a, const void *b,
                                     size_t n, lincoll_dtype_t dt, lincoll_op_t op)
{
    return lc_cuda_reduce(LC_S(s), d, a, b, n, dt, op);
}
static lincoll_status_t lc_dc_gf_prepare(const lincoll_gf_coeffs_t *c, int col, void **tab_p)
{
    return lc_cuda_gf_tab_create(c->field->q, c->r, c->k, c->m, col, (lc_cuda_gf_tab_t **)tab_p);
}
static void lc_dc_gf_release(void *tab)
{
    lc_cuda_gf_tab_destroy(tab);
}
static lincoll_status_t lc_dc_gf_run(lc_dev_stream_t *s, void *tab, const lincoll_gf_coeffs_t *c,
                                     int col, size_t len, const void *const *src, void *const *dst)
{
    (void)c;
    (void)col;
    return lc_cuda_gf_run(LC_S(s), tab, len, src, dst);
}
static lincoll_status_t lc_dc_gemm(lc_dev_stream_t *s, lincoll_layout_t layout, lincoll_trans_t ta,
                                   lincoll_trans_t tb, int64_t m, int64_t n, int64_t k,
                                   lincoll_dtype_t dtype, double alpha, const void *a, int64_t lda,
                                   const void *b, int64_t ldb, double beta, void *c, int64_t ldc)
{
    return lc_cuda_gemm(LC_S(s), layout, ta, tb, m, n, k, dtype, alpha, a, lda, b, ldb, beta, c,
                        ldc);
}

static uint64_t lc_dc_ipc_domain(void)
{
    return 1; /* every process of one host (the bind records check the host) */
}

_Static_assert(LC_DEV_IPC_BYTES == LC_CUDA_IPC_BYTES, "IPC handle sizes agree");

const lc_dev_ops_t lc_dev_cuda_ops = {.name = "cuda",
                                      .is_device = lc_cuda_ptr_is_device,
                                      .alloc = lc_cuda_malloc,
                                      .free = lc_cuda_free,
                                      .host_alloc = lc_cuda_host_alloc,
                                      .host_free = lc_cuda_host_free,
                                      .stream_create = lc_dc_stream_create,
                                      .stream_destroy = lc_dc_stream_destroy,
                                      .copy = lc_dc_copy,
                                      .memset = lc_dc_memset,
                                      .query = lc_dc_query,
                                      .sync = lc_dc_sync,
                                      .reduce_ok = lc_cuda_reduce_supported,
                                      .reduce = lc_dc_reduce,
                                      .gf_prepare = lc_dc_gf_prepare,
                                      .gf_release = lc_dc_gf_release,
                                      .gf_run = lc_dc_gf_run,
                                      .gemm = lc_dc_gemm,
                                      .ipc_export = lc_cuda_ipc_export,
                                      .ipc_domain = lc_dc_ipc_domain,
                                      .ipc_open = lc_cuda_ipc_open,
                                      .ipc_close = lc_cuda_ipc_close};

#else
typedef int lc_dev_cuda_unused_t; /* ISO C: a translation unit is not empty */
#endif
