/*
 * kernels/crc/crc32c_sse42.c: CRC-32C with the SSE4.2 crc32 instruction,
 * 8 bytes per instruction (compiled with -msse4.2; called only on CPUs that
 * have it, see crc32c.c).
 */
#include "crc32c.h"

#include <nmmintrin.h>
#include <string.h>

uint32_t lc_crc32c_sse42(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uint64_t c = ~crc;
    while (len > 0 && ((uintptr_t)p & 7) != 0) {
        c = _mm_crc32_u8((uint32_t)c, *p++);
        len--;
    }
    while (len >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = _mm_crc32_u64(c, v);
        p += 8;
        len -= 8;
    }
    while (len > 0) {
        c = _mm_crc32_u8((uint32_t)c, *p++);
        len--;
    }
    return ~(uint32_t)c;
}
