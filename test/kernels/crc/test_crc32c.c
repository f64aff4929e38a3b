/*
 * test/kernels/crc/test_crc32c.c: the CRC-32C kernels (kernels/crc).
 *
 * Known vectors (RFC 3720 B.4 and the "123456789" check value), the SSE4.2
 * variant against the table-driven base twin on random buffers of every
 * length 0..300 at every alignment 0..7 plus large ones, incremental
 * computation equal to one pass, and a single flipped bit always changing
 * the value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/crc/crc32c.h"

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

static void check_vectors(crc_fn f)
{
    unsigned char b[48];
    assert_int_equal(f(0, "123456789", 9), 0xE3069283u);
    assert_int_equal(f(0, "", 0), 0u);
    memset(b, 0, 32);
    assert_int_equal(f(0, b, 32), 0x8A9136AAu);
    memset(b, 0xff, 32);
    assert_int_equal(f(0, b, 32), 0x62A8AB43u);
    for (int i = 0; i < 32; i++)
        b[i] = (unsigned char)i;
    assert_int_equal(f(0, b, 32), 0x46DD794Eu);
    for (int i = 0; i < 32; i++)
        b[i] = (unsigned char)(31 - i);
    assert_int_equal(f(0, b, 32), 0x113FDB5Cu);
}

static void test_vectors(void **state)
{
    (void)state;
    check_vectors(lc_crc32c_base);
    check_vectors(lc_crc32c);
    if (lc_crc32c_sse42_ok()) {
        check_vectors(lc_crc32c_sse42);
    } else {
        print_message("no SSE4.2 on this CPU: base only\n");
    }
    print_message("lc_crc32c runs %s\n", lc_crc32c_impl());
}

static void test_twins(void **state)
{
    (void)state;
    size_t big = (1u << 20) + 13;
    unsigned char *buf = malloc(big + 8);
    assert_non_null(buf);
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < big + 8; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        buf[i] = (unsigned char)s;
    }
    int hw = lc_crc32c_sse42_ok();
    for (size_t al = 0; al < 8; al++) {
        for (size_t len = 0; len <= 300; len++) {
            uint32_t ref = lc_crc32c_base(0, buf + al, len);
            assert_int_equal(lc_crc32c(0, buf + al, len), ref);
            if (hw) assert_int_equal(lc_crc32c_sse42(0, buf + al, len), ref);
            /* incremental = one pass, split anywhere */
            size_t cut = len / 3;
            assert_int_equal(
                lc_crc32c_base(lc_crc32c_base(0, buf + al, cut), buf + al + cut, len - cut), ref);
            if (hw)
                assert_int_equal(
                    lc_crc32c_sse42(lc_crc32c_sse42(0, buf + al, cut), buf + al + cut, len - cut),
                    ref);
        }
    }
    uint32_t ref = lc_crc32c_base(0, buf + 3, big);
    assert_int_equal(lc_crc32c(0, buf + 3, big), ref);
    if (hw) assert_int_equal(lc_crc32c_sse42(0, buf + 3, big), ref);
    /* one flipped bit anywhere changes the checksum */
    for (size_t i = 0; i < 4096; i += 37) {
        for (int bit = 0; bit < 8; bit += 3) {
            buf[i] ^= (unsigned char)(1u << bit);
            uint32_t flipped = lc_crc32c(0, buf, 4096);
            buf[i] ^= (unsigned char)(1u << bit);
            assert_int_not_equal(flipped, lc_crc32c(0, buf, 4096));
        }
    }
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_twins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
