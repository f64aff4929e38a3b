/*
 * kernels/cuda/cuda_int.h: what the .cu files of kernels/cuda share.
 */
#ifndef LC_CUDA_INT_H
#define LC_CUDA_INT_H

#include <cuda_runtime.h>

extern "C" {
#include "../kernels.h"
}

/* LINCOLL_OK, or one log line naming what failed and its CUDA error. */
lincoll_status_t lc_cuda_err(cudaError_t e, const char *what);
/* The stream to enqueue on (marks the completion event stale). */
cudaStream_t lc_cuda_raw(lc_cuda_stream_t *s);
/* Multiprocessors of the current device (grid sizes). */
int lc_cuda_sm_count(void);

#endif
