/*
 * core/dev/dev.h: memory types and the device backend (docs/accelerators.md).
 *
 * A layer beside core/context (it includes only core/base, core/dev and
 * kernels/): the plan layer asks it for the type of a user buffer (through
 * the environment's oracle, lc_env_t.mem_type), the executor runs device
 * steps and copies through its ops table, and the context frees device
 * allocations through it.
 *
 * One backend serves the process:
 *   cuda  kernels/cuda (built with LINCOLL_WITH_CUDA, chosen when a device is
 *         usable);
 *   fake  host memory that plays a device: allocations are recorded as
 *         "device" memory, copies and kernels run on the CPU (the CPU kernels)
 *         and every byte moved is counted by direction.  Tests select it
 *         (lc_dev_use_fake) to compile and run device plans — typing,
 *         staging, device steps, IPC windows — on a machine without a GPU,
 *         with exact byte accounting.
 * Without a backend every buffer is host memory, except that a build without
 * CUDA still asks the driver (dlopen libcuda.so.1, when present) so device
 * memory given to it fails at init instead of crashing in memcpy.
 */
#ifndef LC_DEV_H
#define LC_DEV_H

#include <lincoll/gemm.h>
#include <lincoll/mem.h>
#include <lincoll/types.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/memtype.h"
#include "kernels/gf/gf_kernels.h"

typedef struct lc_dev_stream lc_dev_stream_t;

/* Bytes of an IPC handle in bind records. */
#define LC_DEV_IPC_BYTES 64

typedef struct lc_dev_ops {
    const char *name; /* "cuda", "fake" */
    int (*is_device)(const void *p);
    lincoll_status_t (*alloc)(size_t len, void **p);
    void (*free)(void *p);
    lincoll_status_t (*host_alloc)(size_t len, void **p); /* page-locked */
    void (*host_free)(void *p);
    lincoll_status_t (*stream_create)(lc_dev_stream_t **s);
    void (*stream_destroy)(lc_dev_stream_t *s);
    lincoll_status_t (*copy)(lc_dev_stream_t *s, void *dst, const void *src, size_t n);
    lincoll_status_t (*memset)(lc_dev_stream_t *s, void *dst, int v, size_t n);
    /* LINCOLL_OK once everything enqueued has finished, LINCOLL_INPROGRESS */
    lincoll_status_t (*query)(lc_dev_stream_t *s);
    lincoll_status_t (*sync)(lc_dev_stream_t *s);
    int (*reduce_ok)(lincoll_dtype_t dtype, lincoll_op_t op);
    lincoll_status_t (*reduce)(lc_dev_stream_t *s, void *dst, const void *a, const void *b,
                               size_t count, lincoll_dtype_t dtype, lincoll_op_t op);
    /* GF(2^8) / GF(2^16) tables of coefficient matrix c (col >= 0: a mad of
     * that column), then lincomb (mad) runs over len bytes */
    lincoll_status_t (*gf_prepare)(const lincoll_gf_coeffs_t *c, int col, void **tab_p);
    void (*gf_release)(void *tab);
    lincoll_status_t (*gf_run)(lc_dev_stream_t *s, void *tab, const lincoll_gf_coeffs_t *c, int col,
                               size_t len, const void *const *src, void *const *dst);
    lincoll_status_t (*gemm)(lc_dev_stream_t *s, lincoll_layout_t layout, lincoll_trans_t ta,
                             lincoll_trans_t tb, int64_t m, int64_t n, int64_t k,
                             lincoll_dtype_t dtype, double alpha, const void *a, int64_t lda,
                             const void *b, int64_t ldb, double beta, void *c, int64_t ldc);
    /* IPC: a handle of LC_DEV_IPC_BYTES naming the allocation of p and p's
     * offset in it; a peer process of this host opens it */
    lincoll_status_t (*ipc_export)(const void *p, void *handle, size_t *off_p);
    /* processes with the same domain can open each other's handles (cuda:
     * every process of the host, which bind checks; fake: one process) */
    uint64_t (*ipc_domain)(void);
    lincoll_status_t (*ipc_open)(const void *handle, void **base_p);
    void (*ipc_close)(void *base);
} lc_dev_ops_t;

/* The backend in use, or NULL (no CUDA build, no usable device). */
const lc_dev_ops_t *lc_dev(void);
/* Why there is none, or what there is (a static line). */
const char *lc_dev_why(void);

/* Memory type of [p, p + len): LC_MEM_DEV or LC_MEM_HOST. */
int lc_dev_mem_type(const void *p, size_t len);

/* The check of one buffer argument of an init call: LINCOLL_OK for host
 * memory, or device memory where a backend runs and the operation takes it
 * (why_not NULL); else LINCOLL_ERR_UNSUPPORTED and one log line naming fn
 * and arg (why_not: what the operation cannot do on device memory). */
lincoll_status_t lc_dev_check_arg(const char *fn, const char *arg, const void *p, size_t len,
                                  const char *why_not);

/* The buffers of one call: each checked as lc_dev_check_arg, and all of
 * one memory type (a call mixing host and device buffers is
 * LINCOLL_ERR_UNSUPPORTED, the line naming two of them).  NULL pointers and
 * empty buffers are skipped. */
typedef struct lc_dev_arg {
    const char *name;
    const void *ptr;
    size_t len;
} lc_dev_arg_t;
lincoll_status_t lc_dev_check_args(const char *fn, const lc_dev_arg_t *args, int n,
                                   const char *why_not);

/* Device memory of ctx (lincoll_mem_alloc_type): bytes from the backend,
 * recorded under ctx; without a backend or memory, one log line naming fn.
 * lc_dev_mem_release (lincoll_mem_free): LINCOLL_OK when addr was one of
 * ctx's (and is freed now), else LINCOLL_ERR_NOT_FOUND.
 * lc_dev_mem_release_all frees ctx's (finalize). */
struct lincoll_context;
lincoll_status_t lc_dev_mem_alloc(struct lincoll_context *ctx, const char *fn, size_t bytes,
                                  void **addr_p);
lincoll_status_t lc_dev_mem_release(struct lincoll_context *ctx, void *addr);
void lc_dev_mem_release_all(struct lincoll_context *ctx);

/* ---- the fake device (tests) ---------------------------------------------- */

typedef struct lc_dev_fake_counters {
    uint64_t h2d, d2h, d2d, h2h; /* bytes copied, by direction */
    uint64_t copies;             /* copy calls */
    uint64_t kernels;            /* reduce, GF and GEMM launches */
    uint64_t kernel_bytes;       /* bytes the kernels wrote */
    uint64_t syncs, queries;     /* stream syncs; queries that found work still running */
    uint64_t ipc_exports, ipc_opens, ipc_closes;
    uint64_t allocs, pinned_allocs, live; /* device and pinned allocations; still live */
} lc_dev_fake_counters_t;

/* Select (1) or drop (0) the fake device for this process; dropping it
 * forgets its allocations (free them first).  2: its memory is device
 * memory but no backend runs (what a build without CUDA meets).  busy: how many queries of a
 * stream report work still running after each enqueue (exercises the
 * executor's polling of device work). */
void lc_dev_use_fake(int on, unsigned busy);
lc_dev_fake_counters_t lc_dev_fake_counters(void);
void lc_dev_fake_reset(void);
/* Transports that take device memory directly (tests of the lowering
 * without staging): -1 asks the transport (the default), 0 or 1 force. */
void lc_dev_force_tl_direct(int direct);
int lc_dev_tl_direct_forced(void);

extern const lc_dev_ops_t lc_dev_fake_ops;
#ifdef LINCOLL_HAVE_CUDA
extern const lc_dev_ops_t lc_dev_cuda_ops;
#endif

#endif
