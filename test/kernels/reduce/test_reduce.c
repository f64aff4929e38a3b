/*
 * test/kernels/reduce/test_reduce.c: reduction kernels.
 *
 * - Every SIMD variant the CPU supports against the reference for every valid
 *   (dtype, op): counts 0..200 and a few larger ones, misaligned pointers,
 *   out of place and in place (dst == a, dst == b), guard elements after dst.
 *   Integers must match bit for bit; float/double too (the documented bound
 *   is "identical", NaN payloads excepted); inputs include NaN, +-inf, +-0
 *   and subnormals.
 * - float16/bfloat16 against an independent float/double reference: the exact
 *   result rounded to the 16-bit format with nearbyint (round to nearest even).
 * - Conversions against F16C hardware (float16) over a sweep of all floats.
 * - Bad input gives the documented status; dispatch honours LINCOLL_KERNEL_ISA.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/reduce/reduce_kernels.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t rnd64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static const lincoll_op_t all_ops[] = {LINCOLL_SUM, LINCOLL_PROD, LINCOLL_MIN, LINCOLL_MAX,
                                       LINCOLL_BXOR};

static int is_float(lincoll_dtype_t dt)
{
    return dt == LINCOLL_FLOAT || dt == LINCOLL_DOUBLE || dt == LINCOLL_FLOAT16 ||
           dt == LINCOLL_BFLOAT16;
}

static int valid_pair(lincoll_dtype_t dt, lincoll_op_t op)
{
    if (dt == LINCOLL_BYTE) return op == LINCOLL_BXOR;
    if (is_float(dt)) return op != LINCOLL_BXOR;
    return 1;
}

/* Random element values; for floating types mostly ordinary numbers with specials mixed in. */
static void fill(void *p, size_t count, lincoll_dtype_t dt)
{
    size_t es = lincoll_dtype_size(dt);
    for (size_t i = 0; i < count; i++) {
        uint64_t r = rnd64();
        unsigned pick = (unsigned)(r >> 56);
        if (dt == LINCOLL_FLOAT || dt == LINCOLL_DOUBLE) {
            double v = ((double)(r & 0xffffff) / 0x1000000 - 0.5) * 64;
            if (pick < 4)
                v = NAN;
            else if (pick < 8)
                v = (pick & 1) ? INFINITY : -INFINITY;
            else if (pick < 12)
                v = (pick & 1) ? 0.0 : -0.0;
            else if (pick < 16)
                v = (dt == LINCOLL_FLOAT ? 1e-40 : 1e-310) * (double)(pick - 11);
            else if (pick < 24)
                v *= 1e30;
            if (dt == LINCOLL_FLOAT) {
                float f = (float)v;
                memcpy((char *)p + i * es, &f, es);
            } else {
                memcpy((char *)p + i * es, &v, es);
            }
        } else {
            /* Integers and 16-bit floats: random bits cover every class, NaN included. */
            memcpy((char *)p + i * es, &r, es);
        }
    }
}

/* Equal bits, or both NaN for floating types. */
static int same_elem(const void *x, const void *y, lincoll_dtype_t dt)
{
    size_t es = lincoll_dtype_size(dt);
    if (memcmp(x, y, es) == 0) return 1;
    if (dt == LINCOLL_FLOAT) {
        float a, b;
        memcpy(&a, x, 4);
        memcpy(&b, y, 4);
        return isnan(a) && isnan(b);
    }
    if (dt == LINCOLL_DOUBLE) {
        double a, b;
        memcpy(&a, x, 8);
        memcpy(&b, y, 8);
        return isnan(a) && isnan(b);
    }
    if (dt == LINCOLL_FLOAT16 || dt == LINCOLL_BFLOAT16) {
        uint16_t a, b;
        memcpy(&a, x, 2);
        memcpy(&b, y, 2);
        float fa = dt == LINCOLL_FLOAT16 ? lc_f16_to_f32(a) : lc_bf16_to_f32(a);
        float fb = dt == LINCOLL_FLOAT16 ? lc_f16_to_f32(b) : lc_bf16_to_f32(b);
        return isnan(fa) && isnan(fb);
    }
    return 0;
}

static void expect_same(const char *what, const void *got, const void *want, size_t count,
                        lincoll_dtype_t dt, lincoll_op_t op)
{
    size_t es = lincoll_dtype_size(dt);
    for (size_t i = 0; i < count; i++) {
        if (!same_elem((const char *)got + i * es, (const char *)want + i * es, dt)) {
            fail_msg("%s %s %s: element %zu of %zu differs from the reference", what,
                     lincoll_dtype_name(dt), lincoll_op_name(op), i, count);
        }
    }
}

#define GUARD 0xa5

static void check_variant(lc_isa_t isa, lincoll_dtype_t dt, lincoll_op_t op, size_t count,
                          size_t mis)
{
    size_t es = lincoll_dtype_size(dt), bytes = count * es, pad = 64 + mis * es;
    unsigned char *a = malloc(bytes + pad), *b = malloc(bytes + pad), *ref = malloc(bytes + pad);
    unsigned char *out = malloc(bytes + pad + 64), *ina = malloc(bytes + pad),
                  *inb = malloc(bytes + pad);
    assert_true(a && b && ref && out && ina && inb);
    void *pa = a + mis * es, *pb = b + (mis ? (mis + 1) % 4 : 0) * es;
    fill(pa, count, dt);
    fill(pb, count, dt);
    void *po = out + mis * es;
    memset(out, GUARD, bytes + pad + 64);
    assert_int_equal(lc_reduce3_base(ref, pa, pb, count, dt, op), LINCOLL_OK);
    assert_int_equal(lc_reduce3_isa(isa, po, pa, pb, count, dt, op), LINCOLL_OK);
    char what[64];
    snprintf(what, sizeof(what), "%s out-of-place n=%zu mis=%zu", lc_isa_name(isa), count, mis);
    expect_same(what, po, ref, count, dt, op);
    for (size_t g = 0; g < 64; g++) {
        if (((unsigned char *)po)[bytes + g] != GUARD) fail_msg("%s: wrote past dst", what);
    }
    /* In place: dst == a, and dst == b. */
    memcpy(ina, pa, bytes);
    assert_int_equal(lc_reduce3_isa(isa, ina, ina, pb, count, dt, op), LINCOLL_OK);
    snprintf(what, sizeof(what), "%s dst==a n=%zu", lc_isa_name(isa), count);
    expect_same(what, ina, ref, count, dt, op);
    memcpy(inb, pb, bytes);
    assert_int_equal(lc_reduce3_isa(isa, inb, pa, inb, count, dt, op), LINCOLL_OK);
    snprintf(what, sizeof(what), "%s dst==b n=%zu", lc_isa_name(isa), count);
    expect_same(what, inb, ref, count, dt, op);
    free(a);
    free(b);
    free(ref);
    free(out);
    free(ina);
    free(inb);
}

static int simd_levels(lc_isa_t *isas)
{
    int n = 0;
    for (lc_isa_t isa = LC_ISA_AVX2; isa <= LC_ISA_AVX512; isa++) {
        if (lc_cpu_supports(isa)) {
            isas[n++] = isa;
        } else {
            print_message("reduce: %s not supported by this CPU (only base is tested there)\n",
                          lc_isa_name(isa));
        }
    }
    return n;
}

static void test_reduce_variants_vs_base(void **state)
{
    (void)state;
    lc_isa_t isas[4];
    int nisa = simd_levels(isas);
    static const size_t big[] = {1000, 4097, 65536 + 13};
    int checks = 0;
    for (int v = 0; v < nisa; v++) {
        for (int d = 0; d < LINCOLL_DTYPE_LAST; d++) {
            lincoll_dtype_t dt = (lincoll_dtype_t)d;
            for (size_t o = 0; o < 5; o++) {
                lincoll_op_t op = all_ops[o];
                if (!valid_pair(dt, op)) continue;
                assert_non_null(lc_reduce_fn(isas[v], dt, op));
                for (size_t n = 0; n <= 200; n++) {
                    check_variant(isas[v], dt, op, n, n % 3);
                    checks++;
                }
                for (size_t i = 0; i < 3; i++) {
                    check_variant(isas[v], dt, op, big[i], i);
                    checks++;
                }
            }
        }
    }
    print_message("reduce: %d variant(s), %d comparisons against base\n", nisa, checks);
}

/* The dispatched entry points give the reference result too (dst = dst (+) src form). */
static void test_reduce_dispatched(void **state)
{
    (void)state;
    size_t n = 777;
    for (int d = 0; d < LINCOLL_DTYPE_LAST; d++) {
        lincoll_dtype_t dt = (lincoll_dtype_t)d;
        size_t es = lincoll_dtype_size(dt);
        for (size_t o = 0; o < 5; o++) {
            lincoll_op_t op = all_ops[o];
            if (!valid_pair(dt, op)) continue;
            unsigned char *x = malloc(n * es), *y = malloc(n * es), *r1 = malloc(n * es),
                          *r2 = malloc(n * es), *r3 = malloc(n * es);
            assert_true(x && y && r1 && r2 && r3);
            fill(x, n, dt);
            fill(y, n, dt);
            memcpy(r1, x, n * es);
            memcpy(r2, x, n * es);
            assert_int_equal(lincoll_reduce(r1, y, n, dt, op), LINCOLL_OK);
            assert_int_equal(lincoll_reduce_base(r2, y, n, dt, op), LINCOLL_OK);
            expect_same("lincoll_reduce", r1, r2, n, dt, op);
            assert_int_equal(lincoll_reduce3(r3, x, y, n, dt, op), LINCOLL_OK);
            expect_same("lincoll_reduce3", r3, r2, n, dt, op);
            /* Deterministic: same inputs, same bits (NaN payloads included). */
            assert_int_equal(lc_reduce3(r2, x, y, n, dt, op), LINCOLL_OK);
            assert_memory_equal(r2, r3, n * es);
            assert_int_equal(lincoll_reduce3_base(r2, x, y, n, dt, op), LINCOLL_OK);
            memcpy(r1, x, n * es);
            assert_int_equal(lc_reduce(r1, y, n, dt, op), LINCOLL_OK);
            expect_same("lc_reduce", r1, r2, n, dt, op);
            free(x);
            free(y);
            free(r1);
            free(r2);
            free(r3);
        }
    }
}

/* Closed-form integer cases: wrap-around, signedness of min/max, XOR. */
static void test_reduce_int_semantics(void **state)
{
    (void)state;
    lc_isa_t isas[4] = {LC_ISA_BASE};
    int nisa = 1 + simd_levels(isas + 1);
    for (int v = 0; v < nisa; v++) {
        enum { N = 70 };
        int8_t a8[N], b8[N], r8[N];
        uint8_t ua[N], ub[N], ur[N];
        int64_t a64[N], b64[N], r64[N];
        uint64_t c64[N], d64[N], s64[N];
        for (int i = 0; i < N; i++) {
            a8[i] = 127, b8[i] = (int8_t)(i % 3 - 1);
            ua[i] = 16, ub[i] = (uint8_t)(16 + i);
            a64[i] = -1, b64[i] = i;
            c64[i] = ~0ull, d64[i] = (uint64_t)i;
        }
        assert_int_equal(lc_reduce3_isa(isas[v], r8, a8, b8, N, LINCOLL_INT8, LINCOLL_SUM), 0);
        for (int i = 0; i < N; i++)
            assert_int_equal(r8[i], i % 3 == 2 ? -128 : 127 + i % 3 - 1);
        assert_int_equal(lc_reduce3_isa(isas[v], ur, ua, ub, N, LINCOLL_UINT8, LINCOLL_PROD), 0);
        for (int i = 0; i < N; i++)
            assert_int_equal(ur[i], (uint8_t)(16u * (16u + i)));
        assert_int_equal(lc_reduce3_isa(isas[v], r64, a64, b64, N, LINCOLL_INT64, LINCOLL_MIN), 0);
        for (int i = 0; i < N; i++)
            assert_true(r64[i] == -1);
        assert_int_equal(lc_reduce3_isa(isas[v], s64, c64, d64, N, LINCOLL_UINT64, LINCOLL_MIN), 0);
        for (int i = 0; i < N; i++)
            assert_true(s64[i] == (uint64_t)i);
        assert_int_equal(lc_reduce3_isa(isas[v], s64, c64, d64, N, LINCOLL_UINT64, LINCOLL_BXOR),
                         0);
        for (int i = 0; i < N; i++)
            assert_true(s64[i] == ~(uint64_t)i);
        assert_int_equal(lc_reduce3_isa(isas[v], ur, ua, ub, N, LINCOLL_BYTE, LINCOLL_BXOR), 0);
        for (int i = 0; i < N; i++)
            assert_int_equal(ur[i], (uint8_t)(16 ^ (16 + i)));
    }
}

/* Independent rounding of an exact double to a binary format with p significand bits
 * and minimum normal exponent emin, round to nearest even (nearbyint), then to float. */
static float round_to_format(double v, int p, int emin, int emax)
{
    if (isnan(v) || isinf(v) || v == 0) return (float)v;
    int e;
    frexp(v, &e); /* v = f * 2^e, |f| in [0.5, 1) */
    e -= 1;
    if (e < emin) e = emin;
    double q = ldexp(1.0, e - (p - 1));
    double r = nearbyint(v / q) * q;
    double maxfin = ldexp(2.0 - ldexp(1.0, 1 - p), emax);
    if (fabs(r) > maxfin) r = copysign(INFINITY, v);
    return (float)r;
}

static void check_half(lincoll_dtype_t dt, lc_isa_t isa, size_t n)
{
    uint16_t *a = malloc(n * 2), *b = malloc(n * 2), *r = malloc(n * 2);
    assert_true(a && b && r);
    int f16 = dt == LINCOLL_FLOAT16;
    int p = f16 ? 11 : 8, emin = f16 ? -14 : -126, emax = f16 ? 15 : 127;
    for (size_t o = 0; o < 4; o++) {
        lincoll_op_t op = all_ops[o];
        fill(a, n, dt);
        fill(b, n, dt);
        if (isa == LC_ISA_BASE) {
            assert_int_equal(lc_reduce3_base(r, a, b, n, dt, op), LINCOLL_OK);
        } else {
            assert_int_equal(lc_reduce3_isa(isa, r, a, b, n, dt, op), LINCOLL_OK);
        }
        for (size_t i = 0; i < n; i++) {
            float x = f16 ? lc_f16_to_f32(a[i]) : lc_bf16_to_f32(a[i]);
            float y = f16 ? lc_f16_to_f32(b[i]) : lc_bf16_to_f32(b[i]);
            float got = f16 ? lc_f16_to_f32(r[i]) : lc_bf16_to_f32(r[i]);
            double exact;
            switch (op) {
            case LINCOLL_SUM:
                exact = (double)x + (double)y;
                break;
            case LINCOLL_PROD:
                exact = (double)x * (double)y;
                break;
            case LINCOLL_MIN:
                exact = y < x ? y : x;
                break;
            default:
                exact = y > x ? y : x;
                break;
            }
            float want = round_to_format(exact, p, emin, emax);
            if (isnan(want) ? !isnan(got) : memcmp(&want, &got, 4) != 0) {
                fail_msg("%s %s %s: %g op %g = %g (0x%04x), want %g", lc_isa_name(isa),
                         lincoll_dtype_name(dt), lincoll_op_name(op), x, y, got, r[i], want);
            }
        }
    }
    free(a);
    free(b);
    free(r);
}

static void test_reduce_half_vs_float_reference(void **state)
{
    (void)state;
    lc_isa_t isas[4] = {LC_ISA_BASE};
    int nisa = 1 + simd_levels(isas + 1);
    for (int v = 0; v < nisa; v++) {
        check_half(LINCOLL_FLOAT16, isas[v], 20000);
        check_half(LINCOLL_BFLOAT16, isas[v], 20000);
    }
}

__attribute__((target("f16c"))) static uint16_t hw_f32_to_f16(float f)
{
    return (uint16_t)_mm_extract_epi16(_mm_cvtps_ph(_mm_set_ss(f), _MM_FROUND_TO_NEAREST_INT), 0);
}

__attribute__((target("f16c"))) static float hw_f16_to_f32(uint16_t h)
{
    return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h)));
}

static void test_reduce_conversions(void **state)
{
    (void)state;
    /* Against the independent rounding, for every 16-bit pattern and a float sweep. */
    for (uint32_t h = 0; h < 65536; h++) {
        float f = lc_f16_to_f32((uint16_t)h), g = lc_bf16_to_f32((uint16_t)h);
        if (!isnan(f)) assert_int_equal(lc_f32_to_f16(f), h); /* exact round trip */
        if (!isnan(g)) assert_int_equal(lc_f32_to_bf16(g), h);
    }
    for (uint64_t u = 0; u < (1ull << 32); u += 65521) {
        uint32_t bits = (uint32_t)u;
        float f;
        memcpy(&f, &bits, 4);
        if (isnan(f)) {
            assert_true(isnan(lc_f16_to_f32(lc_f32_to_f16(f))));
            assert_true(isnan(lc_bf16_to_f32(lc_f32_to_bf16(f))));
            continue;
        }
        float w16 = round_to_format(f, 11, -14, 15), wb = round_to_format(f, 8, -126, 127);
        float g16 = lc_f16_to_f32(lc_f32_to_f16(f)), gb = lc_bf16_to_f32(lc_f32_to_bf16(f));
        if (memcmp(&w16, &g16, 4) != 0) fail_msg("f16(%a) = %a, want %a", f, g16, w16);
        if (memcmp(&wb, &gb, 4) != 0) fail_msg("bf16(%a) = %a, want %a", f, gb, wb);
    }
    if (!(lc_cpu_features() & LC_CPU_F16C)) {
        print_message("reduce: no F16C, hardware cross-check not run\n");
        return;
    }
    for (uint32_t h = 0; h < 65536; h++) {
        float s = lc_f16_to_f32((uint16_t)h), hw = hw_f16_to_f32((uint16_t)h);
        if (!(isnan(s) && isnan(hw))) assert_memory_equal(&s, &hw, 4);
    }
    for (uint64_t u = 0; u < (1ull << 32); u += 4099) {
        uint32_t bits = (uint32_t)u;
        float f;
        memcpy(&f, &bits, 4);
        uint16_t s = lc_f32_to_f16(f), hw = hw_f32_to_f16(f);
        if (s != hw) fail_msg("f16(%a): 0x%04x, F16C 0x%04x", f, s, hw);
    }
}

typedef lincoll_status_t (*red3_fn)(void *, const void *, const void *, size_t, lincoll_dtype_t,
                                    lincoll_op_t);

static void test_reduce_bad_input(void **state)
{
    (void)state;
    float x[4] = {1, 2, 3, 4}, y[4] = {1, 1, 1, 1};
    const red3_fn fns[] = {lincoll_reduce3, lincoll_reduce3_base};
    for (int f = 0; f < 2; f++) {
        assert_int_equal(fns[f](x, x, y, 4, (lincoll_dtype_t)99, LINCOLL_SUM), LINCOLL_ERR_INVALID);
        assert_int_equal(fns[f](x, x, y, 4, (lincoll_dtype_t)-1, LINCOLL_SUM), LINCOLL_ERR_INVALID);
        assert_int_equal(fns[f](x, x, y, 4, LINCOLL_FLOAT, (lincoll_op_t)17), LINCOLL_ERR_INVALID);
        assert_int_equal(fns[f](x, x, y, 4, LINCOLL_FLOAT, LINCOLL_OP_LAST), LINCOLL_ERR_INVALID);
        assert_int_equal(fns[f](x, x, y, 4, LINCOLL_FLOAT, LINCOLL_BXOR), LINCOLL_ERR_UNSUPPORTED);
        assert_int_equal(fns[f](x, x, y, 4, LINCOLL_BFLOAT16, LINCOLL_BXOR),
                         LINCOLL_ERR_UNSUPPORTED);
        assert_int_equal(fns[f](x, x, y, 4, LINCOLL_BYTE, LINCOLL_SUM), LINCOLL_ERR_UNSUPPORTED);
        assert_int_equal(fns[f](NULL, x, y, 4, LINCOLL_FLOAT, LINCOLL_SUM), LINCOLL_ERR_INVALID);
        assert_int_equal(fns[f](x, NULL, y, 4, LINCOLL_FLOAT, LINCOLL_SUM), LINCOLL_ERR_INVALID);
        assert_int_equal(fns[f](x, x, NULL, 4, LINCOLL_FLOAT, LINCOLL_SUM), LINCOLL_ERR_INVALID);
        assert_int_equal(fns[f](NULL, NULL, NULL, 0, LINCOLL_FLOAT, LINCOLL_SUM), LINCOLL_OK);
    }
    assert_true(x[0] == 1 && x[3] == 4); /* nothing written */
    assert_int_equal(lincoll_reduce(x, NULL, 4, LINCOLL_FLOAT, LINCOLL_SUM), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_reduce(NULL, y, 4, LINCOLL_FLOAT, LINCOLL_SUM), LINCOLL_ERR_INVALID);
    assert_int_equal(lincoll_reduce_base(x, y, 4, LINCOLL_DOUBLE, LINCOLL_BXOR),
                     LINCOLL_ERR_UNSUPPORTED);
    assert_int_equal(lc_reduce(x, y, 4, LINCOLL_FLOAT, (lincoll_op_t)5), LINCOLL_ERR_INVALID);
    assert_int_equal(lc_reduce3_isa(LC_ISA_LAST, x, x, y, 4, LINCOLL_FLOAT, LINCOLL_SUM),
                     LINCOLL_ERR_UNSUPPORTED);
    assert_null(lc_reduce_fn(LC_ISA_BASE, LINCOLL_DOUBLE, LINCOLL_BXOR));
    assert_null(lc_reduce_fn(LC_ISA_BASE, LINCOLL_DTYPE_LAST, LINCOLL_SUM));
    assert_int_equal(lincoll_reduce(x, y, 4, LINCOLL_FLOAT, LINCOLL_SUM), LINCOLL_OK);
    assert_true(x[0] == 2 && x[3] == 5);
}

static void test_reduce_dispatch_env(void **state)
{
    (void)state;
    const char *env = getenv("LINCOLL_KERNEL_ISA");
    lc_isa_t want = lc_cpu_best_isa();
    if (env != NULL && lc_isa_parse(env, &want) == LINCOLL_OK && !lc_cpu_supports(want)) {
        want = lc_cpu_best_isa();
    }
    if (want > LC_ISA_AVX512) want = LC_ISA_AVX512;
    assert_int_equal(lc_reduce_isa(), want);
    assert_string_equal(lincoll_reduce_variant(), lc_isa_name(want));
    print_message("reduce dispatch (%s): %s\n", env ? env : "unset", lincoll_reduce_variant());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_dispatch_env),
        cmocka_unit_test(test_reduce_bad_input),
        cmocka_unit_test(test_reduce_int_semantics),
        cmocka_unit_test(test_reduce_conversions),
        cmocka_unit_test(test_reduce_half_vs_float_reference),
        cmocka_unit_test(test_reduce_variants_vs_base),
        cmocka_unit_test(test_reduce_dispatched),
    };
    size_t ntests = getenv("LC_TEST_DISPATCH_ONLY") ? 1 : sizeof(tests) / sizeof(tests[0]);
    return _cmocka_run_group_tests("kernels_reduce", tests, ntests, NULL, NULL);
}
