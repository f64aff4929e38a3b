/*
 * core/dev/dev.c: which device backend serves the process, memory-type
 * detection, the init-time checks of buffer arguments, and the device
 * allocations behind lincoll_mem_alloc_type (the public memory calls are
 * core/api/mem_api.c).  docs/accelerators.md.
 */
#include "core/dev/dev.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/base/log.h"

#ifdef LINCOLL_HAVE_CUDA
#include "kernels/cuda/cuda_kernels.h"
#endif

static int lc_dev_fake_on;
static int lc_dev_direct = -1;
void lc_dev_fake_select(int on, unsigned busy); /* dev_fake.c */

void lc_dev_use_fake(int on, unsigned busy)
{
    lc_dev_fake_select(on, busy);
    lc_dev_fake_on = on;
}

void lc_dev_force_tl_direct(int direct)
{
    lc_dev_direct = direct;
}

int lc_dev_tl_direct_forced(void)
{
    return lc_dev_direct;
}

const lc_dev_ops_t *lc_dev(void)
{
    if (lc_dev_fake_on == 2) return NULL; /* device memory, no backend */
    if (lc_dev_fake_on) return &lc_dev_fake_ops;
#ifdef LINCOLL_HAVE_CUDA
    if (lc_cuda_usable(NULL)) return &lc_dev_cuda_ops;
#endif
    return NULL;
}

const char *lc_dev_why(void)
{
    if (lc_dev_fake_on == 2) return "no device backend (the tests' fake device without one)";
    if (lc_dev_fake_on) return "fake device (host memory, tests)";
#ifdef LINCOLL_HAVE_CUDA
    const char *why = NULL;
    static char line[200];
    int ok = lc_cuda_usable(&why);
    snprintf(line, sizeof(line), "%s%s", ok ? "cuda: " : "built with CUDA, but ", why);
    return line;
#else
    return "built without CUDA (LINCOLL_WITH_CUDA=OFF)";
#endif
}

#ifndef LINCOLL_HAVE_CUDA
/* A build without CUDA asks the driver, where one is installed, so device
 * memory is refused at init (cuPointerGetAttribute, memory type 2 =
 * device). */
typedef int (*lc_cu_init_fn)(unsigned);
typedef int (*lc_cu_attr_fn)(void *, int, unsigned long long);
static lc_cu_attr_fn lc_cu_attr;
static pthread_once_t lc_cu_once = PTHREAD_ONCE_INIT;
static void lc_cu_open(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) return;
    lc_cu_init_fn init = (lc_cu_init_fn)dlsym(h, "cuInit");
    lc_cu_attr_fn attr = (lc_cu_attr_fn)dlsym(h, "cuPointerGetAttribute");
    if (init != NULL && attr != NULL && init(0) == 0) lc_cu_attr = attr;
}
static int lc_dev_driver_says_device(const void *p)
{
    pthread_once(&lc_cu_once, lc_cu_open);
    unsigned type = 0;
    return lc_cu_attr != NULL &&
           lc_cu_attr(&type, 2 /* CU_POINTER_ATTRIBUTE_MEMORY_TYPE */,
                      (unsigned long long)(uintptr_t)p) == 0 &&
           type == 2 /* CU_MEMORYTYPE_DEVICE */;
}
#endif

int lc_dev_mem_type(const void *p, size_t len)
{
    (void)len;
    if (p == NULL) return LC_MEM_HOST;
    if (lc_dev_fake_on) return lc_dev_fake_ops.is_device(p) ? LC_MEM_DEV : LC_MEM_HOST;
    const lc_dev_ops_t *d = lc_dev();
    if (d != NULL) return d->is_device(p) ? LC_MEM_DEV : LC_MEM_HOST;
#ifndef LINCOLL_HAVE_CUDA
    if (lc_dev_driver_says_device(p)) return LC_MEM_DEV;
#endif
    return LC_MEM_HOST;
}

lincoll_status_t lc_dev_check_arg(const char *fn, const char *arg, const void *p, size_t len,
                                  const char *why_not)
{
    if (p == NULL || len == 0 || lc_dev_mem_type(p, len) != LC_MEM_DEV) return LINCOLL_OK;
    if (lc_dev() == NULL) {
        lc_error("%s: %s is CUDA device memory, which this lincoll cannot use (%s)", fn, arg,
                 lc_dev_why());
        return LINCOLL_ERR_UNSUPPORTED;
    }
    if (why_not != NULL) {
        lc_error("%s: %s is CUDA device memory, which %s cannot take yet", fn, arg, why_not);
        return LINCOLL_ERR_UNSUPPORTED;
    }
    return LINCOLL_OK;
}

lincoll_status_t lc_dev_check_args(const char *fn, const lc_dev_arg_t *args, int n,
                                   const char *why_not)
{
    int first = -1, type = LC_MEM_HOST;
    for (int i = 0; i < n; i++) {
        if (args[i].ptr == NULL || args[i].len == 0) continue;
        lincoll_status_t st = lc_dev_check_arg(fn, args[i].name, args[i].ptr, args[i].len, why_not);
        if (st != LINCOLL_OK) return st;
        int t = lc_dev_mem_type(args[i].ptr, args[i].len);
        if (first < 0) {
            first = i;
            type = t;
        } else if (t != type) {
            lc_error("%s: %s is %s memory and %s %s memory: the buffers of one call must be of "
                     "one memory type",
                     fn, args[first].name, type == LC_MEM_DEV ? "CUDA device" : "host",
                     args[i].name, t == LC_MEM_DEV ? "CUDA device" : "host");
            return LINCOLL_ERR_UNSUPPORTED;
        }
    }
    return LINCOLL_OK;
}

/* ---- device allocations of lincoll_mem_alloc_type (core/api/mem_api.c) ------ */

typedef struct lc_dev_alloc {
    struct lc_dev_alloc *next;
    const void *ctx;
    void *addr;
    const lc_dev_ops_t *ops;
} lc_dev_alloc_t;

static lc_dev_alloc_t *lc_dev_allocs;
static pthread_mutex_t lc_dev_alloc_lock = PTHREAD_MUTEX_INITIALIZER;

lincoll_status_t lc_dev_mem_release(struct lincoll_context *ctx, void *addr)
{
    pthread_mutex_lock(&lc_dev_alloc_lock);
    for (lc_dev_alloc_t **pp = &lc_dev_allocs; *pp != NULL; pp = &(*pp)->next) {
        lc_dev_alloc_t *a = *pp;
        if (a->ctx == ctx && a->addr == addr) {
            *pp = a->next;
            pthread_mutex_unlock(&lc_dev_alloc_lock);
            a->ops->free(a->addr);
            free(a);
            return LINCOLL_OK;
        }
    }
    pthread_mutex_unlock(&lc_dev_alloc_lock);
    return LINCOLL_ERR_NOT_FOUND;
}

void lc_dev_mem_release_all(struct lincoll_context *ctx)
{
    for (;;) {
        void *addr = NULL;
        pthread_mutex_lock(&lc_dev_alloc_lock);
        for (lc_dev_alloc_t *a = lc_dev_allocs; a != NULL && addr == NULL; a = a->next)
            if (a->ctx == ctx) addr = a->addr;
        pthread_mutex_unlock(&lc_dev_alloc_lock);
        if (addr == NULL) return;
        lc_warn("lincoll_finalize: device memory %p was not freed (freed now)", addr);
        (void)lc_dev_mem_release(ctx, addr);
    }
}

lincoll_status_t lc_dev_mem_alloc(struct lincoll_context *ctx, const char *fn, size_t bytes,
                                  void **addr_p)
{
    const lc_dev_ops_t *d = lc_dev();
    if (d == NULL) {
        lc_error("%s: type=cuda: %s", fn, lc_dev_why());
        return LINCOLL_ERR_UNSUPPORTED;
    }
    lc_dev_alloc_t *a = calloc(1, sizeof(*a));
    if (a == NULL) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = d->alloc(bytes, &a->addr);
    if (st != LINCOLL_OK) {
        lc_error("%s: %zu bytes of device memory: %s", fn, bytes, lincoll_strerror(st));
        free(a);
        return st;
    }
    a->ctx = ctx;
    a->ops = d;
    pthread_mutex_lock(&lc_dev_alloc_lock);
    a->next = lc_dev_allocs;
    lc_dev_allocs = a;
    pthread_mutex_unlock(&lc_dev_alloc_lock);
    *addr_p = a->addr;
    return LINCOLL_OK;
}
