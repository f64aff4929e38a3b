/*
 * test/kernels/gf/test_gf_variants.c: every compiled GF kernel variant the
 * CPU supports, not only the dispatched one, against the _base reference,
 * byte for byte: lincomb and mad, lengths 0 .. 3*256+1 bytes (three of the
 * widest blocks, 4 x 64 bytes for GF(2^8) with r <= 2), unaligned
 * (element-aligned for wide fields) pointers with guard bytes, random
 * coefficients including 0, 1 and q-1, row counts below and above the
 * register blocks, and long buffers that take the L2-chunked path; the
 * prefetching loops (working set above L2) with the distance swept; and
 * Goldilocks at its edge values against an __int128 reference.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "kernels/gf/gf_test_util.h"

typedef struct {
    int r, k;
    int full_sweep; /* every length 0 .. 3*256+1 bytes, else a list */
} lc_shape_t;

static const lc_shape_t shapes[] = {
    {4, 10, 1}, {3, 2, 1},   {2, 3, 1},  {1, 1, 0},  {8, 8, 0},  {9, 5, 0},
    {14, 3, 0}, {16, 16, 0}, {2, 21, 0}, {6, 19, 0}, {17, 7, 0}, {10, 9, 1},
};
static const size_t spot_lens[] = {0,   1,   2,   4,    8,    60,        63,        64,
                                   65,  127, 128, 129,  192,  255,       256,       257,
                                   384, 385, 388, 4096, 4100, 8192 + 24, 65536 + 8, 200000};

/* An r x k coefficient set of random field elements (r * k <= 64). */
static lincoll_gf_coeffs_t *lc_random_coeffs(const lincoll_field_t *f, int r, int k, uint64_t *seed)
{
    uint64_t m[64];
    assert_true(r * k <= 64);
    for (int e = 0; e < r * k; e++)
        m[e] = lc_test_elem(f, seed);
    lincoll_gf_coeffs_t *c;
    assert_int_equal(lc_gf_coeffs_create(f, r, k, m, &c), LINCOLL_OK);
    return c;
}

/* Compare one variant with base for one (field, shape, length, offset). */
static int lc_check_one(const lincoll_field_t *f, const lc_gf_variant_t *v,
                        const lincoll_gf_coeffs_t *c, size_t len, size_t off, uint64_t *seed)
{
    const lc_gf_variant_t *base = lc_gf_variant(f->kind, LC_ISA_BASE);
    int r = c->r, k = c->k, bad = 0;
    lc_test_buf_t *sb = calloc((size_t)k, sizeof(*sb));
    lc_test_buf_t *db = calloc((size_t)r, sizeof(*db));
    lc_test_buf_t *rb = calloc((size_t)r, sizeof(*rb));
    const void **src = calloc((size_t)k, sizeof(void *));
    void **dst = calloc((size_t)r, sizeof(void *)), **ref = calloc((size_t)r, sizeof(void *));
    for (int i = 0; i < k; i++) {
        lc_test_buf_alloc(&sb[i], len, off * (size_t)(i % 3));
        lc_test_fill(f, sb[i].p, len, seed);
        src[i] = sb[i].p;
    }
    for (int j = 0; j < r; j++) {
        lc_test_buf_alloc(&db[j], len, off * (size_t)((j + 1) % 3));
        lc_test_buf_alloc(&rb[j], len, 0);
        dst[j] = db[j].p;
        ref[j] = rb[j].p;
    }
    /* lincomb */
    v->lincomb(c, len, src, dst);
    base->lincomb(c, len, src, ref);
    for (int j = 0; j < r && !bad; j++) {
        if (memcmp(dst[j], ref[j], len) != 0 || !lc_test_buf_guards_ok(&db[j])) {
            fprintf(stderr, "lincomb %s q=%llu r=%d k=%d len=%zu off=%zu: output %d differs\n",
                    v->name, (unsigned long long)f->q, r, k, len, off, j);
            bad = 1;
        }
    }
    /* mad on random reduced outputs */
    int col = (int)(lc_test_rand(seed) % (uint64_t)k);
    for (int j = 0; j < r; j++) {
        lc_test_fill(f, dst[j], len, seed);
        memcpy(ref[j], dst[j], len);
    }
    v->mad(c, len, col, src[col], dst);
    base->mad(c, len, col, src[col], ref);
    for (int j = 0; j < r && !bad; j++) {
        if (memcmp(dst[j], ref[j], len) != 0 || !lc_test_buf_guards_ok(&db[j])) {
            fprintf(stderr, "mad %s q=%llu r=%d k=%d col=%d len=%zu: output %d differs\n", v->name,
                    (unsigned long long)f->q, r, k, col, len, j);
            bad = 1;
        }
    }
    for (int i = 0; i < k; i++) {
        if (!lc_test_buf_guards_ok(&sb[i])) bad = 1;
        lc_test_buf_free(&sb[i]);
    }
    for (int j = 0; j < r; j++) {
        lc_test_buf_free(&db[j]);
        lc_test_buf_free(&rb[j]);
    }
    free(sb);
    free(db);
    free(rb);
    free(src);
    free(dst);
    free(ref);
    return bad;
}

static void lc_test_field_variants(uint64_t q)
{
    lincoll_field_t *f;
    assert_int_equal(lincoll_gf_field_create(q, &f), LINCOLL_OK);
    uint64_t seed = q * 7919;
    int tested = 0;
    for (int isa = LC_ISA_AVX2; isa < LC_ISA_LAST; isa++) {
        const lc_gf_variant_t *v = lc_gf_variant(f->kind, (lc_isa_t)isa);
        if (v == NULL) {
            printf("q=%llu: no %s variant compiled (dispatch uses the next lower one)\n",
                   (unsigned long long)q, lc_isa_name((lc_isa_t)isa));
            continue;
        }
        if (!lc_cpu_supports((lc_isa_t)isa)) {
            printf("q=%llu: %s NOT TESTED: this CPU does not support %s\n", (unsigned long long)q,
                   v->name, lc_isa_name((lc_isa_t)isa));
            continue;
        }
        tested++;
        int fails = 0;
        for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
            int r = shapes[s].r, k = shapes[s].k;
            uint64_t *m = malloc((size_t)r * k * sizeof(uint64_t));
            for (int e = 0; e < r * k; e++)
                m[e] = lc_test_elem(f, &seed);
            m[0] = 1;
            if (r * k > 1) m[1 % (r * k)] = 0;
            if (r * k > 2) m[2] = q - 1;
            lincoll_gf_coeffs_t *c;
            assert_int_equal(lc_gf_coeffs_create(f, r, k, m, &c), LINCOLL_OK);
            size_t es = f->elem_size;
            if (shapes[s].full_sweep) {
                for (size_t len = 0; len <= 3 * 256 + es; len += es) {
                    fails += lc_check_one(f, v, c, len, es * (1 + len % 5), &seed);
                }
            } else {
                for (size_t l = 0; l < sizeof(spot_lens) / sizeof(spot_lens[0]); l++) {
                    size_t len = spot_lens[l] / es * es;
                    if (len > 70000 && r * k > 64) continue;
                    fails += lc_check_one(f, v, c, len, es * (l % 4), &seed);
                }
            }
            lc_gf_coeffs_destroy(c);
            free(m);
        }
        printf("q=%llu: %s matches %s\n", (unsigned long long)q, v->name,
               lc_gf_variant(f->kind, LC_ISA_BASE)->name);
        assert_int_equal(fails, 0);
    }
    printf("q=%llu: %d SIMD variant(s) tested\n", (unsigned long long)q, tested);
    lincoll_gf_field_destroy(f);
}

/* Worst case for the prime accumulators: all elements q-1. */
static void lc_test_prime_extremes(uint64_t q)
{
    lincoll_field_t *f;
    assert_int_equal(lincoll_gf_field_create(q, &f), LINCOLL_OK);
    const int r = 5, k = 37;
    const size_t len = 64 * 5 + 4 * f->elem_size;
    uint64_t *m = malloc((size_t)r * k * sizeof(uint64_t));
    for (int e = 0; e < r * k; e++)
        m[e] = q - 1;
    lincoll_gf_coeffs_t *c;
    assert_int_equal(lc_gf_coeffs_create(f, r, k, m, &c), LINCOLL_OK);
    const void *src[37];
    void *dst[5], *ref[5];
    uint8_t *sbuf = lc_test_alloc(len);
    for (size_t e = 0; e < len / f->elem_size; e++) {
        uint64_t v = q - 1;
        memcpy(sbuf + e * f->elem_size, &v, f->elem_size);
    }
    for (int i = 0; i < k; i++)
        src[i] = sbuf;
    for (int j = 0; j < r; j++) {
        dst[j] = lc_test_alloc(len);
        ref[j] = lc_test_alloc(len);
    }
    /* sum of k terms (q-1)^2 = k mod q */
    uint64_t want = (uint64_t)k % q;
    for (int isa = LC_ISA_BASE; isa < LC_ISA_LAST; isa++) {
        const lc_gf_variant_t *v = lc_gf_variant(f->kind, (lc_isa_t)isa);
        if (v == NULL || !lc_cpu_supports((lc_isa_t)isa)) continue;
        v->lincomb(c, len, src, dst);
        for (int j = 0; j < r; j++) {
            for (size_t e = 0; e < len / f->elem_size; e++) {
                uint64_t got = 0;
                memcpy(&got, (uint8_t *)dst[j] + e * f->elem_size, f->elem_size);
                assert_int_equal(got, want);
            }
        }
        /* mad: (q-1) + (q-1)(q-1) = 0 */
        for (int j = 0; j < r; j++)
            memcpy(dst[j], sbuf, len);
        v->mad(c, len, 3, sbuf, dst);
        for (int j = 0; j < r; j++) {
            for (size_t e = 0; e < len / f->elem_size; e++) {
                uint64_t got = 1;
                memcpy(&got, (uint8_t *)dst[j] + e * f->elem_size, f->elem_size);
                if (f->elem_size == 4) got &= 0xffffffffu;
                assert_int_equal(got, 0);
            }
        }
    }
    for (int j = 0; j < r; j++) {
        free(dst[j]);
        free(ref[j]);
    }
    free(sbuf);
    free(m);
    lc_gf_coeffs_destroy(c);
    lincoll_gf_field_destroy(f);
}

static void test_variants_gf8(void **state)
{
    (void)state;
    lc_test_field_variants(256);
}

static void test_variants_gf16(void **state)
{
    (void)state;
    lc_test_field_variants(65536);
}

static void test_variants_primes(void **state)
{
    (void)state;
    for (size_t i = 2; i < LC_TEST_NORDERS; i++)
        lc_test_field_variants(lc_test_orders[i]);
}

static void test_prime_extremes(void **state)
{
    (void)state;
    lc_test_prime_extremes(998244353);
    lc_test_prime_extremes(2147483647);
    lc_test_prime_extremes(65537);
    lc_test_prime_extremes(LINCOLL_GF_GOLDILOCKS);
}

/* Goldilocks edge values: 0, 1, p-1, p-2, values around 2^32 and 2^63, and
 * elements with only the high or low 32 bits set; products whose 128-bit
 * value hits each branch of the reduction. */
static uint64_t lc_gl_edge(uint64_t *seed)
{
    static const uint64_t edge[] = {0,
                                    1,
                                    2,
                                    LINCOLL_GF_GOLDILOCKS - 1,
                                    LINCOLL_GF_GOLDILOCKS - 2,
                                    0xffffffffull,
                                    0x100000000ull,
                                    0x100000001ull,
                                    0xfffffffe00000001ull,
                                    0xffffffff00000000ull,
                                    0x8000000000000000ull,
                                    0x7fffffffffffffffull,
                                    0xfffffffeffffffffull};
    uint64_t r = lc_test_rand(seed);
    if (r % 3 == 0) return edge[(r >> 8) % (sizeof(edge) / sizeof(edge[0]))];
    if (r % 3 == 1) return (lc_test_rand(seed) & 0xffffffff00000000ull) % LINCOLL_GF_GOLDILOCKS;
    return lc_test_rand(seed) % LINCOLL_GF_GOLDILOCKS;
}

/* Independent reference: sum of a_i x_i mod p with __int128 and %. */
static uint64_t lc_gl_ref(const uint64_t *a, const uint64_t *x, int k)
{
    unsigned __int128 acc = 0;
    for (int i = 0; i < k; i++)
        acc = (acc + (unsigned __int128)a[i] * x[i]) % LINCOLL_GF_GOLDILOCKS;
    return (uint64_t)acc;
}

static void test_goldilocks_edges(void **state)
{
    (void)state;
    lincoll_field_t *f;
    assert_int_equal(lincoll_gf_field_create(LINCOLL_GF_GOLDILOCKS, &f), LINCOLL_OK);
    uint64_t seed = 2024;
    const int r = 5, k = 13;
    const size_t n = 8 * 37 + 3, len = n * 8; /* vector blocks and a base tail */
    uint64_t m[5 * 13];
    for (int e = 0; e < r * k; e++)
        m[e] = lc_gl_edge(&seed);
    lincoll_gf_coeffs_t *c;
    assert_int_equal(lc_gf_coeffs_create(f, r, k, m, &c), LINCOLL_OK);
    uint64_t *src[13], *dst[5], *want[5], *mad_in[5];
    for (int i = 0; i < k; i++) {
        src[i] = lc_test_alloc(len);
        for (size_t e = 0; e < n; e++)
            src[i][e] = lc_gl_edge(&seed);
    }
    for (int j = 0; j < r; j++) {
        dst[j] = lc_test_alloc(len);
        want[j] = lc_test_alloc(len);
        mad_in[j] = lc_test_alloc(len);
        for (size_t e = 0; e < n; e++) {
            uint64_t x[13];
            for (int i = 0; i < k; i++)
                x[i] = src[i][e];
            want[j][e] = lc_gl_ref(m + (size_t)j * k, x, k);
            mad_in[j][e] = lc_gl_edge(&seed);
        }
    }
    int tested = 0;
    for (int isa = LC_ISA_BASE; isa < LC_ISA_LAST; isa++) {
        const lc_gf_variant_t *v = lc_gf_variant(f->kind, (lc_isa_t)isa);
        if (v == NULL || !lc_cpu_supports((lc_isa_t)isa)) continue;
        if (isa > LC_ISA_BASE && v == lc_gf_variant(f->kind, (lc_isa_t)(isa - 1))) continue;
        tested++;
        v->lincomb(c, len, (const void *const *)src, (void *const *)dst);
        for (int j = 0; j < r; j++)
            assert_memory_equal(dst[j], want[j], len);
        /* mad: d + a_j,col * s against the reference */
        const int col = 7;
        for (int j = 0; j < r; j++)
            memcpy(dst[j], mad_in[j], len);
        v->mad(c, len, col, src[col], (void *const *)dst);
        for (int j = 0; j < r; j++) {
            for (size_t e = 0; e < n; e++) {
                uint64_t a2[2] = {1, m[(size_t)j * k + col]}, x2[2] = {mad_in[j][e], src[col][e]};
                assert_int_equal(dst[j][e], lc_gl_ref(a2, x2, 2));
            }
        }
        printf("goldilocks edges: %s matches the __int128 reference\n", v->name);
    }
    assert_true(tested >= 1);
    /* the largest k with every element p-1: the lazy sums reach their bound */
    {
        const int kk = LINCOLL_GF_MAX_K, rr = 2;
        const size_t nn = 8 * 3 + 1;
        uint64_t *mm = malloc((size_t)rr * kk * sizeof(uint64_t));
        for (int e = 0; e < rr * kk; e++)
            mm[e] = LINCOLL_GF_GOLDILOCKS - 1;
        lincoll_gf_coeffs_t *cc;
        assert_int_equal(lc_gf_coeffs_create(f, rr, kk, mm, &cc), LINCOLL_OK);
        uint64_t *x = lc_test_alloc(nn * 8), *o[2] = {lc_test_alloc(nn * 8), lc_test_alloc(nn * 8)};
        const void **ss = malloc((size_t)kk * sizeof(void *));
        for (size_t e = 0; e < nn; e++)
            x[e] = LINCOLL_GF_GOLDILOCKS - 1;
        for (int i = 0; i < kk; i++)
            ss[i] = x;
        for (int isa = LC_ISA_BASE; isa < LC_ISA_LAST; isa++) {
            const lc_gf_variant_t *v = lc_gf_variant(f->kind, (lc_isa_t)isa);
            if (v == NULL || !lc_cpu_supports((lc_isa_t)isa)) continue;
            v->lincomb(cc, nn * 8, ss, (void *const *)o);
            for (int j = 0; j < rr; j++) {
                for (size_t e = 0; e < nn; e++)
                    assert_int_equal(o[j][e], (uint64_t)kk); /* sum of kk (p-1)^2 = kk */
            }
        }
        free(ss);
        free(x);
        free(o[0]);
        free(o[1]);
        free(mm);
        lc_gf_coeffs_destroy(cc);
    }
    for (int i = 0; i < k; i++)
        free(src[i]);
    for (int j = 0; j < r; j++) {
        free(dst[j]);
        free(want[j]);
        free(mad_in[j]);
    }
    lc_gf_coeffs_destroy(c);
    lincoll_gf_field_destroy(f);
}

/* Working sets above L2 take the prefetching loops: every variant against
 * base with the prefetch distance swept (0 = the loops without prefetch). */
static void test_prefetch_paths(void **state)
{
    (void)state;
    static const size_t dists[] = {0, 64, 2048};
    const int r = 4, k = 10;
    const size_t len = LC_GF_L2_BYTES / 8 + 8 * 24; /* (k+r)*len > L2, plus a tail */
    size_t saved[LC_ISA_LAST];
    memcpy(saved, lc_gf_tune_pf, sizeof(saved));
    for (size_t t = 0; t < LC_TEST_NORDERS; t++) {
        lincoll_field_t *f;
        assert_int_equal(lincoll_gf_field_create(lc_test_orders[t], &f), LINCOLL_OK);
        uint64_t seed = 99 + t;
        lincoll_gf_coeffs_t *c = lc_random_coeffs(f, r, k, &seed);
        for (int isa = LC_ISA_AVX2; isa < LC_ISA_LAST; isa++) {
            const lc_gf_variant_t *v = lc_gf_variant(f->kind, (lc_isa_t)isa);
            if (v == NULL || !lc_cpu_supports((lc_isa_t)isa)) continue;
            for (size_t d = 0; d < sizeof(dists) / sizeof(dists[0]); d++) {
                lc_gf_tune_pf[isa] = dists[d];
                assert_int_equal(lc_check_one(f, v, c, len, f->elem_size, &seed), 0);
            }
            lc_gf_tune_pf[isa] = saved[isa];
        }
        lc_gf_coeffs_destroy(c);
        lincoll_gf_field_destroy(f);
    }
    memcpy(lc_gf_tune_pf, saved, sizeof(saved));
}

/* Working sets from lc_gf_nt_bytes on stream the GF(2^8) outputs: with the
 * threshold at 0, every variant against base for one row block (r = 1..8),
 * outputs 64-byte aligned (the streaming loops) and at offsets 1 and 64 + 3
 * (plain stores), lengths with and without a tail. */
static void test_stream_store_paths(void **state)
{
    (void)state;
    size_t saved = lc_gf_nt_bytes;
    lincoll_field_t *f;
    assert_int_equal(lincoll_gf_field_create(256, &f), LINCOLL_OK);
    uint64_t seed = 4242;
    static const size_t lens[] = {64, 4096, 4096 + 64 * 5 + 7, 65536 + 256 * 3};
    static const size_t offs[] = {0, 1, 67};
    for (int r = 1; r <= 8; r++) {
        lincoll_gf_coeffs_t *c = lc_random_coeffs(f, r, 3 + r % 4, &seed);
        for (int isa = LC_ISA_AVX2; isa < LC_ISA_LAST; isa++) {
            const lc_gf_variant_t *v = lc_gf_variant(f->kind, (lc_isa_t)isa);
            if (v == NULL || !lc_cpu_supports((lc_isa_t)isa)) continue;
            for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
                for (size_t o = 0; o < sizeof(offs) / sizeof(offs[0]); o++) {
                    lc_gf_nt_bytes = 0;
                    int bad = lc_check_one(f, v, c, lens[l], offs[o], &seed);
                    lc_gf_nt_bytes = saved;
                    assert_int_equal(bad, 0);
                }
            }
        }
        lc_gf_coeffs_destroy(c);
    }
    lincoll_gf_field_destroy(f);
}

/* Summing mad over every column from zero equals lincomb (dispatched path). */
static void test_mad_sums_to_lincomb(void **state)
{
    (void)state;
    for (size_t t = 0; t < LC_TEST_NORDERS; t++) {
        lincoll_field_t *f;
        assert_int_equal(lincoll_gf_field_create(lc_test_orders[t], &f), LINCOLL_OK);
        uint64_t seed = 42 + t;
        const int r = 6, k = 11;
        const size_t len = 1000 * f->elem_size;
        uint64_t m[66];
        for (int e = 0; e < r * k; e++)
            m[e] = lc_test_elem(f, &seed);
        lincoll_gf_coeffs_t *c;
        assert_int_equal(lincoll_gf_coeffs_create(f, r, k, m, &c), LINCOLL_OK);
        void *src[11], *a[6], *b[6];
        for (int i = 0; i < k; i++) {
            src[i] = lc_test_alloc(len);
            lc_test_fill(f, src[i], len, &seed);
        }
        for (int j = 0; j < r; j++) {
            a[j] = lc_test_alloc(len);
            b[j] = calloc(1, len);
        }
        assert_int_equal(lincoll_gf_lincomb(c, len, (const void *const *)src, a), LINCOLL_OK);
        for (int i = k - 1; i >= 0; i--) {
            assert_int_equal(lincoll_gf_mad(c, len, i, src[i], b), LINCOLL_OK);
        }
        for (int j = 0; j < r; j++)
            assert_memory_equal(a[j], b[j], len);
        for (int i = 0; i < k; i++)
            free(src[i]);
        for (int j = 0; j < r; j++) {
            free(a[j]);
            free(b[j]);
        }
        lincoll_gf_coeffs_destroy(c);
        lincoll_gf_field_destroy(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants_gf8),        cmocka_unit_test(test_variants_gf16),
        cmocka_unit_test(test_variants_primes),     cmocka_unit_test(test_prime_extremes),
        cmocka_unit_test(test_mad_sums_to_lincomb), cmocka_unit_test(test_goldilocks_edges),
        cmocka_unit_test(test_prefetch_paths),      cmocka_unit_test(test_stream_store_paths),
    };
    return cmocka_run_group_tests_name("kernels_gf_variants", tests, NULL, NULL);
}
