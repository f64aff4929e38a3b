/*
 * core/dev/dev_fake.c: the fake device backend (tests; core/dev/dev.h).
 *
 * Host memory plays device memory: its allocations are recorded, and a
 * pointer inside one is "device" memory to lc_dev_mem_type.  Copies are
 * memmove and counted by direction (h2d, d2h, d2d, h2h), kernels run the CPU
 * kernels (lc_reduce3, lc_gf_lincomb/lc_gf_mad, lincoll_gemm) with the same
 * operand rules as the cuda backend (GF(2^8) and GF(2^16) only, float and
 * double GEMM), IPC handles name an allocation by its address and process
 * (virtual sim ranks share one address space; another process cannot open
 * them) and opens are counted.  A stream reports
 * its work as still running for `busy` queries after each enqueue, so tests
 * exercise the executor's polling of device work.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/log.h"
#include "core/dev/dev.h"
#include "kernels/reduce/reduce_kernels.h"

#define LC_FAKE_IPC_MAGIC UINT64_C(0x6c63666b69706321) /* "lcfkipc!" */

typedef struct lc_fake_alloc {
    struct lc_fake_alloc *next;
    char *addr;
    size_t len;
    int pinned;
} lc_fake_alloc_t;

struct lc_dev_stream {
    unsigned busy_left;
};

static pthread_mutex_t lc_fake_lock = PTHREAD_MUTEX_INITIALIZER;
static lc_fake_alloc_t *lc_fake_allocs;
static lc_dev_fake_counters_t lc_fake_cnt;
static unsigned lc_fake_busy;

void lc_dev_fake_select(int on, unsigned busy)
{
    pthread_mutex_lock(&lc_fake_lock);
    lc_fake_busy = busy;
    if (!on) {
        while (lc_fake_allocs != NULL) {
            lc_fake_alloc_t *a = lc_fake_allocs;
            lc_fake_allocs = a->next;
            free(a);
        }
    }
    pthread_mutex_unlock(&lc_fake_lock);
}

lc_dev_fake_counters_t lc_dev_fake_counters(void)
{
    pthread_mutex_lock(&lc_fake_lock);
    lc_dev_fake_counters_t c = lc_fake_cnt;
    pthread_mutex_unlock(&lc_fake_lock);
    return c;
}

void lc_dev_fake_reset(void)
{
    pthread_mutex_lock(&lc_fake_lock);
    uint64_t live = lc_fake_cnt.live;
    memset(&lc_fake_cnt, 0, sizeof(lc_fake_cnt));
    lc_fake_cnt.live = live;
    pthread_mutex_unlock(&lc_fake_lock);
}

/* The device allocation holding p (lock held), or NULL. */
static lc_fake_alloc_t *lc_fake_find(const void *p)
{
    const char *c = p;
    for (lc_fake_alloc_t *a = lc_fake_allocs; a != NULL; a = a->next)
        if (!a->pinned && c >= a->addr && c < a->addr + a->len) return a;
    return NULL;
}

static int lc_fake_is_device(const void *p)
{
    pthread_mutex_lock(&lc_fake_lock);
    int d = lc_fake_find(p) != NULL;
    pthread_mutex_unlock(&lc_fake_lock);
    return d;
}

static lincoll_status_t lc_fake_alloc_any(size_t len, void **p, int pinned)
{
    lc_fake_alloc_t *a = calloc(1, sizeof(*a));
    void *m = NULL;
    if (a == NULL || posix_memalign(&m, 256, len ? len : 1) != 0) {
        free(a);
        return LINCOLL_ERR_NOMEM;
    }
    /* device memory is not zeroed: make that visible to tests */
    memset(m, pinned ? 0 : 0xa5, len);
    a->addr = m;
    a->len = len ? len : 1;
    a->pinned = pinned;
    pthread_mutex_lock(&lc_fake_lock);
    a->next = lc_fake_allocs;
    lc_fake_allocs = a;
    if (pinned)
        lc_fake_cnt.pinned_allocs++;
    else
        lc_fake_cnt.allocs++;
    lc_fake_cnt.live++;
    pthread_mutex_unlock(&lc_fake_lock);
    *p = m;
    return LINCOLL_OK;
}

static void lc_fake_free_any(void *p)
{
    if (p == NULL) return;
    pthread_mutex_lock(&lc_fake_lock);
    for (lc_fake_alloc_t **pp = &lc_fake_allocs; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->addr == p) {
            lc_fake_alloc_t *a = *pp;
            *pp = a->next;
            free(a);
            lc_fake_cnt.live--;
            break;
        }
    }
    pthread_mutex_unlock(&lc_fake_lock);
    free(p);
}

static lincoll_status_t lc_fake_alloc(size_t len, void **p)
{
    return lc_fake_alloc_any(len, p, 0);
}
static lincoll_status_t lc_fake_host_alloc(size_t len, void **p)
{
    return lc_fake_alloc_any(len, p, 1);
}

static lincoll_status_t lc_fake_stream_create(lc_dev_stream_t **s)
{
    *s = calloc(1, sizeof(**s));
    return *s != NULL ? LINCOLL_OK : LINCOLL_ERR_NOMEM;
}

static void lc_fake_stream_destroy(lc_dev_stream_t *s)
{
    free(s);
}

static void lc_fake_enqueued(lc_dev_stream_t *s)
{
    s->busy_left = lc_fake_busy;
}

static lincoll_status_t lc_fake_copy(lc_dev_stream_t *s, void *d, const void *a, size_t n)
{
    if (n == 0) return LINCOLL_OK;
    pthread_mutex_lock(&lc_fake_lock);
    int dd = lc_fake_find(d) != NULL, sd = lc_fake_find(a) != NULL;
    uint64_t *c = dd ? (sd ? &lc_fake_cnt.d2d : &lc_fake_cnt.h2d)
                     : (sd ? &lc_fake_cnt.d2h : &lc_fake_cnt.h2h);
    *c += n;
    lc_fake_cnt.copies++;
    pthread_mutex_unlock(&lc_fake_lock);
    memmove(d, a, n);
    lc_fake_enqueued(s);
    return LINCOLL_OK;
}

static lincoll_status_t lc_fake_memset(lc_dev_stream_t *s, void *d, int v, size_t n)
{
    memset(d, v, n);
    lc_fake_enqueued(s);
    return LINCOLL_OK;
}

static lincoll_status_t lc_fake_query(lc_dev_stream_t *s)
{
    if (s->busy_left > 0) {
        s->busy_left--;
        pthread_mutex_lock(&lc_fake_lock);
        lc_fake_cnt.queries++;
        pthread_mutex_unlock(&lc_fake_lock);
        return LINCOLL_INPROGRESS;
    }
    return LINCOLL_OK;
}

static lincoll_status_t lc_fake_sync(lc_dev_stream_t *s)
{
    s->busy_left = 0;
    pthread_mutex_lock(&lc_fake_lock);
    lc_fake_cnt.syncs++;
    pthread_mutex_unlock(&lc_fake_lock);
    return LINCOLL_OK;
}

static void lc_fake_kernel(lc_dev_stream_t *s, uint64_t bytes)
{
    pthread_mutex_lock(&lc_fake_lock);
    lc_fake_cnt.kernels++;
    lc_fake_cnt.kernel_bytes += bytes;
    pthread_mutex_unlock(&lc_fake_lock);
    lc_fake_enqueued(s);
}

static int lc_fake_reduce_ok(lincoll_dtype_t dt, lincoll_op_t op)
{
    return lc_reduce_fn(LC_ISA_BASE, dt, op) != NULL;
}

static lincoll_status_t lc_fake_reduce(lc_dev_stream_t *s, void *d, const void *a, const void *b,
                                       size_t n, lincoll_dtype_t dt, lincoll_op_t op)
{
    lc_fake_kernel(s, (uint64_t)n * lincoll_dtype_size(dt));
    return lc_reduce3(d, a, b, n, dt, op);
}

static lincoll_status_t lc_fake_gf_prepare(const lincoll_gf_coeffs_t *c, int col, void **tab_p)
{
    (void)col;
    if (c->field->kind != LC_GF_KIND_GF8 && c->field->kind != LC_GF_KIND_GF16) {
        lc_error("device GF kernels: fields of order %llu are not supported",
                 (unsigned long long)c->field->q);
        return LINCOLL_ERR_UNSUPPORTED;
    }
    *tab_p = (void *)c;
    return LINCOLL_OK;
}

static void lc_fake_gf_release(void *tab)
{
    (void)tab;
}

static lincoll_status_t lc_fake_gf_run(lc_dev_stream_t *s, void *tab, const lincoll_gf_coeffs_t *c,
                                       int col, size_t len, const void *const *src,
                                       void *const *dst)
{
    (void)tab;
    lc_fake_kernel(s, (uint64_t)len * (uint64_t)c->r);
    if (col >= 0)
        lc_gf_mad(c, len, col, src[0], dst);
    else
        lc_gf_lincomb(c, len, src, dst);
    return LINCOLL_OK;
}

static lincoll_status_t lc_fake_gemm(lc_dev_stream_t *s, lincoll_layout_t layout,
                                     lincoll_trans_t ta, lincoll_trans_t tb, int64_t m, int64_t n,
                                     int64_t k, lincoll_dtype_t dtype, double alpha, const void *a,
                                     int64_t lda, const void *b, int64_t ldb, double beta, void *c,
                                     int64_t ldc)
{
    lc_fake_kernel(s, (uint64_t)(m * n) * lincoll_dtype_size(dtype));
    return lincoll_gemm(layout, ta, tb, m, n, k, dtype, alpha, a, lda, b, ldb, beta, c, ldc);
}

static lincoll_status_t lc_fake_ipc_export(const void *p, void *handle, size_t *off_p)
{
    pthread_mutex_lock(&lc_fake_lock);
    lc_fake_alloc_t *a = lc_fake_find(p);
    if (a != NULL) lc_fake_cnt.ipc_exports++;
    pthread_mutex_unlock(&lc_fake_lock);
    if (a == NULL) return LINCOLL_ERR_UNSUPPORTED;
    uint64_t h[LC_DEV_IPC_BYTES / 8] = {LC_FAKE_IPC_MAGIC, (uint64_t)(uintptr_t)a->addr, a->len,
                                        (uint64_t)getpid()};
    memcpy(handle, h, sizeof(h));
    *off_p = (size_t)((const char *)p - a->addr);
    return LINCOLL_OK;
}

static lincoll_status_t lc_fake_ipc_open(const void *handle, void **base_p)
{
    uint64_t h[LC_DEV_IPC_BYTES / 8];
    memcpy(h, handle, sizeof(h));
    /* an address means something only in the process that exported it */
    if (h[0] != LC_FAKE_IPC_MAGIC || h[3] != (uint64_t)getpid()) return LINCOLL_ERR_INVALID;
    pthread_mutex_lock(&lc_fake_lock);
    lc_fake_alloc_t *a = lc_fake_find((void *)(uintptr_t)h[1]);
    if (a != NULL) lc_fake_cnt.ipc_opens++;
    pthread_mutex_unlock(&lc_fake_lock);
    if (a == NULL) return LINCOLL_ERR_INVALID;
    *base_p = a->addr;
    return LINCOLL_OK;
}

static uint64_t lc_fake_ipc_domain(void)
{
    return (uint64_t)getpid();
}

static void lc_fake_ipc_close(void *base)
{
    (void)base;
    pthread_mutex_lock(&lc_fake_lock);
    lc_fake_cnt.ipc_closes++;
    pthread_mutex_unlock(&lc_fake_lock);
}

const lc_dev_ops_t lc_dev_fake_ops = {.name = "fake",
                                      .is_device = lc_fake_is_device,
                                      .alloc = lc_fake_alloc,
                                      .free = lc_fake_free_any,
                                      .host_alloc = lc_fake_host_alloc,
                                      .host_free = lc_fake_free_any,
                                      .stream_create = lc_fake_stream_create,
                                      .stream_destroy = lc_fake_stream_destroy,
                                      .copy = lc_fake_copy,
                                      .memset = lc_fake_memset,
                                      .query = lc_fake_query,
                                      .sync = lc_fake_sync,
                                      .reduce_ok = lc_fake_reduce_ok,
                                      .reduce = lc_fake_reduce,
                                      .gf_prepare = lc_fake_gf_prepare,
                                      .gf_release = lc_fake_gf_release,
                                      .gf_run = lc_fake_gf_run,
                                      .gemm = lc_fake_gemm,
                                      .ipc_export = lc_fake_ipc_export,
                                      .ipc_domain = lc_fake_ipc_domain,
                                      .ipc_open = lc_fake_ipc_open,
                                      .ipc_close = lc_fake_ipc_close};
