/*
 * test/kernels/gf/gf_test_util.h: shared helpers of the GF(q) kernel tests:
 * a deterministic RNG, random reduced elements, guarded buffers.
 */
#ifndef LC_GF_TEST_UTIL_H
#define LC_GF_TEST_UTIL_H

#include "kernels/gf/gf_kernels.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Orders every kernel test runs over: both binary fields, NTT primes, the
 * largest 31-bit prime (4 products per u64 accumulator), a tiny prime and
 * Goldilocks. */
static const uint64_t lc_test_orders[] = {
    256, 65536, 65537, 998244353, 2147483647, 13, LINCOLL_GF_GOLDILOCKS};
#define LC_TEST_NORDERS (sizeof(lc_test_orders) / sizeof(lc_test_orders[0]))

static inline uint64_t lc_test_rand(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Random reduced element; one in 8 is 0, 1 or q-1 (edge values). */
static inline uint64_t lc_test_elem(const lincoll_field_t *f, uint64_t *s)
{
    uint64_t r = lc_test_rand(s);
    switch (r & 15) {
    case 0:
        return 0;
    case 1:
        return 1;
    case 2:
        return f->q - 1;
    default:
        return lc_test_rand(s) % f->q;
    }
}

/* Fill len bytes with reduced elements. */
static inline void lc_test_fill(const lincoll_field_t *f, void *buf, size_t len, uint64_t *s)
{
    uint8_t *b = buf;
    for (size_t e = 0; e < len / f->elem_size; e++) {
        uint64_t v = lc_test_elem(f, s);
        memcpy(b + e * f->elem_size, &v, f->elem_size);
    }
}

#define LC_TEST_GUARD      64
#define LC_TEST_GUARD_BYTE 0xa5

/* 64-byte aligned allocation of at least len bytes (C11 aligned_alloc wants
 * a multiple of the alignment). */
static inline void *lc_test_alloc(size_t len)
{
    return aligned_alloc(64, len < 64 ? 64 : (len + 63) & ~(size_t)63);
}

/* A buffer with LC_TEST_GUARD bytes of 0xa5 on both sides of [off, off+len). */
typedef struct {
    uint8_t *mem;
    uint8_t *p;
    size_t len, off;
} lc_test_buf_t;

static inline void lc_test_buf_alloc(lc_test_buf_t *b, size_t len, size_t off)
{
    size_t total = len + off + 2 * LC_TEST_GUARD;
    b->mem = aligned_alloc(64, (total + 63) & ~(size_t)63);
    memset(b->mem, LC_TEST_GUARD_BYTE, (total + 63) & ~(size_t)63);
    b->p = b->mem + LC_TEST_GUARD + off;
    b->len = len;
    b->off = off;
}

static inline int lc_test_buf_guards_ok(const lc_test_buf_t *b)
{
    for (uint8_t *q = b->mem; q < b->p; q++) {
        if (*q != LC_TEST_GUARD_BYTE) return 0;
    }
    for (size_t i = 0; i < LC_TEST_GUARD; i++) {
        if (b->p[b->len + i] != LC_TEST_GUARD_BYTE) return 0;
    }
    return 1;
}

static inline void lc_test_buf_free(lc_test_buf_t *b)
{
    free(b->mem);
}

#endif
