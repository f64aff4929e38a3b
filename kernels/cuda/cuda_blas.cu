/*
 * kernels/cuda/cuda_blas.cu: the GEMM steps of matmul on the device, through
 * cuBLAS.
 *
 * cuBLAS is opened with dlopen at the first call (libcublas.so.13, then
 * libcublas.so), so the library neither links nor needs it until a device
 * GEMM runs; a machine without it gets LINCOLL_ERR_UNSUPPORTED and one log
 * line.  One handle per process, used under a mutex (the stream is set per
 * call).  Row-major calls are the column-major product of the transposes:
 * C^T = op(B)^T op(A)^T, i.e. the operands and m, n swapped, the
 * transposition flags kept.
 */
#include "cuda_kernels.h"
#include "cuda_int.h"

#include <cublas_v2.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

namespace {

struct lc_blas {
    decltype(&cublasCreate_v2) create;
    decltype(&cublasSetStream_v2) set_stream;
    decltype(&cublasSgemm_v2) sgemm;
    decltype(&cublasDgemm_v2) dgemm;
    cublasHandle_t h;
    int ok;
    char why[192];
};

lc_blas lc_bl = {};
pthread_once_t lc_bl_once = PTHREAD_ONCE_INIT;
pthread_mutex_t lc_bl_lock = PTHREAD_MUTEX_INITIALIZER;

void lc_blas_open(void)
{
    void *h = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) h = dlopen("libcublas.so", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        snprintf(lc_bl.why, sizeof(lc_bl.why), "cuBLAS not found (%s)", dlerror());
        return;
    }
    lc_bl.create = (decltype(lc_bl.create))dlsym(h, "cublasCreate_v2");
    lc_bl.set_stream = (decltype(lc_bl.set_stream))dlsym(h, "cublasSetStream_v2");
    lc_bl.sgemm = (decltype(lc_bl.sgemm))dlsym(h, "cublasSgemm_v2");
    lc_bl.dgemm = (decltype(lc_bl.dgemm))dlsym(h, "cublasDgemm_v2");
    if (!lc_bl.create || !lc_bl.set_stream || !lc_bl.sgemm || !lc_bl.dgemm) {
        snprintf(lc_bl.why, sizeof(lc_bl.why), "cuBLAS lacks the GEMM entry points");
        return;
    }
    cublasStatus_t s = lc_bl.create(&lc_bl.h);
    if (s != CUBLAS_STATUS_SUCCESS) {
        snprintf(lc_bl.why, sizeof(lc_bl.why), "cublasCreate failed (status %d)", (int)s);
        return;
    }
    snprintf(lc_bl.why, sizeof(lc_bl.why), "cublas");
    lc_bl.ok = 1;
}

} // namespace

extern "C" const char *lc_cuda_blas_status(void)
{
    if (!lc_cuda_usable(NULL)) return "no usable CUDA device";
    pthread_once(&lc_bl_once, lc_blas_open);
    return lc_bl.why;
}

extern "C" lincoll_status_t lc_cuda_gemm(lc_cuda_stream_t *s, lincoll_layout_t layout,
                                         lincoll_trans_t ta, lincoll_trans_t tb, int64_t m,
                                         int64_t n, int64_t k, lincoll_dtype_t dtype, double alpha,
                                         const void *a, int64_t lda, const void *b, int64_t ldb,
                                         double beta, void *c, int64_t ldc)
{
    if (!lc_cuda_usable(NULL)) return LINCOLL_ERR_UNSUPPORTED;
    pthread_once(&lc_bl_once, lc_blas_open);
    if (!lc_bl.ok) {
        lc_kerror("device GEMM: %s", lc_bl.why);
        return LINCOLL_ERR_UNSUPPORTED;
    }
    if (dtype != LINCOLL_FLOAT && dtype != LINCOLL_DOUBLE) {
        lc_kerror("device GEMM: dtype %d is not float or double", (int)dtype);
        return LINCOLL_ERR_UNSUPPORTED;
    }
    if (m == 0 || n == 0) return LINCOLL_OK;
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX || lda > INT32_MAX || ldb > INT32_MAX ||
        ldc > INT32_MAX) {
        lc_kerror("device GEMM: a dimension above 2^31");
        return LINCOLL_ERR_UNSUPPORTED;
    }
    cublasOperation_t oa = ta == LINCOLL_TRANS ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t ob = tb == LINCOLL_TRANS ? CUBLAS_OP_T : CUBLAS_OP_N;
    int M = (int)m, N = (int)n, K = (int)k, LA = (int)lda, LB = (int)ldb, LC = (int)ldc;
    const void *A = a, *B = b;
    if (layout == LINCOLL_ROW_MAJOR) { /* C^T = op(B)^T op(A)^T in column-major terms */
        cublasOperation_t o = oa;
        oa = ob;
        ob = o;
        M = (int)n;
        N = (int)m;
        A = b;
        B = a;
        LA = (int)ldb;
        LB = (int)lda;
    }
    if (K == 0) A = B = c; /* not read */
    pthread_mutex_lock(&lc_bl_lock);
    cublasStatus_t st = lc_bl.set_stream(lc_bl.h, lc_cuda_raw(s));
    if (st == CUBLAS_STATUS_SUCCESS) {
        if (dtype == LINCOLL_FLOAT) {
            float al = (float)alpha, be = (float)beta;
            st = lc_bl.sgemm(lc_bl.h, oa, ob, M, N, K, &al, (const float *)A, LA,
                             (const float *)B, LB, &be, (float *)c, LC);
        } else {
            st = lc_bl.dgemm(lc_bl.h, oa, ob, M, N, K, &alpha, (const double *)A, LA,
                             (const double *)B, LB, &beta, (double *)c, LC);
        }
    }
    pthread_mutex_unlock(&lc_bl_lock);
    if (st != CUBLAS_STATUS_SUCCESS) {
        lc_kerror("device GEMM: cuBLAS status %d", (int)st);
        return LINCOLL_ERR_TRANSPORT;
    }
    return LINCOLL_OK;
}
