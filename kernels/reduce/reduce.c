/*
 * kernels/reduce/reduce.c: reduction dispatch and the public entry points.
 *
 * What: builds one function table per ISA level at first use (base, then each
 *       SIMD level over a copy of the level below), picks the table of
 *       lc_kernel_isa() once, and validates arguments.
 * Reference: ISA-L multibinary dispatch, done in C with a table
 * (docs/kernels.md, "CPU dispatch").
 * Cost: one table lookup and a few compares per call on top of the kernel.
 * Restrictions: dst may equal a or b; no partial overlap.
 */
#include "reduce_kernels.h"

#include <pthread.h>
#include <string.h>

static lc_reduce_table_t lc_reduce_tables[LC_ISA_AVX512 + 1];
static const lc_reduce_fn_t (*lc_reduce_active)[LINCOLL_OP_LAST];
static lc_isa_t lc_reduce_active_isa;
static pthread_once_t lc_reduce_once = PTHREAD_ONCE_INIT;

static void lc_reduce_init(void)
{
    lc_reduce_fill_base(lc_reduce_tables[LC_ISA_BASE]);
    memcpy(lc_reduce_tables[LC_ISA_AVX2], lc_reduce_tables[LC_ISA_BASE], sizeof(lc_reduce_table_t));
    /* the fill functions are compiled for their ISA (the compiler may use its
     * instructions even to store pointers): call only what this CPU runs */
    if (lc_cpu_supports(LC_ISA_AVX2)) lc_reduce_fill_avx2(lc_reduce_tables[LC_ISA_AVX2]);
    memcpy(lc_reduce_tables[LC_ISA_AVX512], lc_reduce_tables[LC_ISA_AVX2],
           sizeof(lc_reduce_table_t));
    if (lc_cpu_supports(LC_ISA_AVX512)) lc_reduce_fill_avx512(lc_reduce_tables[LC_ISA_AVX512]);
    lc_isa_t isa = lc_kernel_isa();
    if (isa > LC_ISA_AVX512) isa = LC_ISA_AVX512; /* gfni adds nothing here */
    lc_reduce_active_isa = isa;
    lc_reduce_active = (const lc_reduce_fn_t(*)[LINCOLL_OP_LAST])lc_reduce_tables[isa];
    lc_kdebug("reduce: %s variant", lc_isa_name(isa));
}

lc_isa_t lc_reduce_isa(void)
{
    pthread_once(&lc_reduce_once, lc_reduce_init);
    return lc_reduce_active_isa;
}

LINCOLL_API const char *lincoll_reduce_variant(void)
{
    return lc_isa_name(lc_reduce_isa());
}

lc_reduce_fn_t lc_reduce_fn(lc_isa_t isa, lincoll_dtype_t dtype, lincoll_op_t op)
{
    if ((unsigned)dtype >= LINCOLL_DTYPE_LAST || (unsigned)op >= LINCOLL_OP_LAST) return NULL;
    if (!lc_cpu_supports(isa)) return NULL;
    pthread_once(&lc_reduce_once, lc_reduce_init);
    if (isa > LC_ISA_AVX512) isa = LC_ISA_AVX512;
    return lc_reduce_tables[isa][dtype][op];
}

/* Resolve (dtype, op) in table tab and check the buffers; logs the problem. */
static lincoll_status_t lc_reduce_lookup(const lc_reduce_fn_t (*tab)[LINCOLL_OP_LAST],
                                         lincoll_dtype_t dtype, lincoll_op_t op, size_t count,
                                         const void *dst, const void *a, const void *b,
                                         lc_reduce_fn_t *fn)
{
    if ((unsigned)dtype >= LINCOLL_DTYPE_LAST) {
        lc_kerror("reduce: unknown dtype %d", (int)dtype);
        return LINCOLL_ERR_INVALID;
    }
    if ((unsigned)op >= LINCOLL_OP_LAST) {
        lc_kerror("reduce: unknown op %d", (int)op);
        return LINCOLL_ERR_INVALID;
    }
    *fn = tab[dtype][op];
    if (*fn == NULL) {
        lc_kerror("reduce: op %s is not defined on dtype %s", lc_kop_name(op),
                  lc_kdtype_name(dtype));
        return LINCOLL_ERR_UNSUPPORTED;
    }
    if (count > 0 && (dst == NULL || a == NULL || b == NULL)) {
        lc_kerror("reduce: %s is NULL with count %zu",
                  dst == NULL ? "dst" : (a == NULL ? "a/dst" : "b/src"), count);
        return LINCOLL_ERR_INVALID;
    }
    return LINCOLL_OK;
}

static inline lincoll_status_t lc_reduce_run(const lc_reduce_fn_t (*tab)[LINCOLL_OP_LAST],
                                             void *dst, const void *a, const void *b, size_t count,
                                             lincoll_dtype_t dtype, lincoll_op_t op)
{
    lc_reduce_fn_t fn;
    lincoll_status_t st = lc_reduce_lookup(tab, dtype, op, count, dst, a, b, &fn);
    if (st == LINCOLL_OK && count > 0) fn(dst, a, b, count);
    return st;
}

lincoll_status_t lc_reduce(void *dst, const void *src, size_t count, lincoll_dtype_t dtype,
                           lincoll_op_t op)
{
    pthread_once(&lc_reduce_once, lc_reduce_init);
    return lc_reduce_run(lc_reduce_active, dst, dst, src, count, dtype, op);
}

lincoll_status_t lc_reduce3(void *dst, const void *a, const void *b, size_t count,
                            lincoll_dtype_t dtype, lincoll_op_t op)
{
    pthread_once(&lc_reduce_once, lc_reduce_init);
    return lc_reduce_run(lc_reduce_active, dst, a, b, count, dtype, op);
}

lincoll_status_t lc_reduce_base(void *dst, const void *src, size_t count, lincoll_dtype_t dtype,
                                lincoll_op_t op)
{
    pthread_once(&lc_reduce_once, lc_reduce_init);
    return lc_reduce_run((const lc_reduce_fn_t(*)[LINCOLL_OP_LAST])lc_reduce_tables[LC_ISA_BASE],
                         dst, dst, src, count, dtype, op);
}

lincoll_status_t lc_reduce3_base(void *dst, const void *a, const void *b, size_t count,
                                 lincoll_dtype_t dtype, lincoll_op_t op)
{
    pthread_once(&lc_reduce_once, lc_reduce_init);
    return lc_reduce_run((const lc_reduce_fn_t(*)[LINCOLL_OP_LAST])lc_reduce_tables[LC_ISA_BASE],
                         dst, a, b, count, dtype, op);
}

lincoll_status_t lc_reduce3_isa(lc_isa_t isa, void *dst, const void *a, const void *b, size_t count,
                                lincoll_dtype_t dtype, lincoll_op_t op)
{
    if (!lc_cpu_supports(isa)) {
        lc_kerror("reduce: this CPU cannot run the %s variant", lc_isa_name(isa));
        return LINCOLL_ERR_UNSUPPORTED;
    }
    pthread_once(&lc_reduce_once, lc_reduce_init);
    if (isa > LC_ISA_AVX512) isa = LC_ISA_AVX512;
    return lc_reduce_run((const lc_reduce_fn_t(*)[LINCOLL_OP_LAST])lc_reduce_tables[isa], dst, a, b,
                         count, dtype, op);
}

LINCOLL_API lincoll_status_t lincoll_reduce(void *dst, const void *src, size_t count,
                                            lincoll_dtype_t dtype, lincoll_op_t op)
{
    return lc_reduce(dst, src, count, dtype, op);
}

LINCOLL_API lincoll_status_t lincoll_reduce3(void *dst, const void *a, const void *b, size_t count,
                                             lincoll_dtype_t dtype, lincoll_op_t op)
{
    return lc_reduce3(dst, a, b, count, dtype, op);
}

LINCOLL_API lincoll_status_t lincoll_reduce_base(void *dst, const void *src, size_t count,
                                                 lincoll_dtype_t dtype, lincoll_op_t op)
{
    return lc_reduce_base(dst, src, count, dtype, op);
}

LINCOLL_API lincoll_status_t lincoll_reduce3_base(void *dst, const void *a, const void *b,
                                                  size_t count, lincoll_dtype_t dtype,
                                                  lincoll_op_t op)
{
    return lc_reduce3_base(dst, a, b, count, dtype, op);
}
