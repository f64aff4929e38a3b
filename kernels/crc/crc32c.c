/*
 * kernels/crc/crc32c.c: CRC-32C reference (slicing by 8) and dispatch.
 *
 * The tables are built once from the polynomial (no 8 KiB literal); the
 * SSE4.2 variant is chosen when the CPU has it and LINCOLL_KERNEL_ISA does
 * not force base (lc_kernel_isa()).
 */
#include "crc32c.h"

#include <pthread.h>

#include "../kernels.h"

#define LC_CRC32C_POLY 0x82F63B78u

static uint32_t lc_crc_tab[8][256];
static pthread_once_t lc_crc_once = PTHREAD_ONCE_INIT;
static int lc_crc_hw;

static void lc_crc_init(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) {
            c = (c & 1) ? (c >> 1) ^ LC_CRC32C_POLY : c >> 1;
        }
        lc_crc_tab[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = lc_crc_tab[0][n];
        for (int t = 1; t < 8; t++) {
            c = lc_crc_tab[0][c & 0xff] ^ (c >> 8);
            lc_crc_tab[t][n] = c;
        }
    }
    lc_crc_hw = lc_crc32c_sse42_ok() && lc_kernel_isa() != LC_ISA_BASE;
}

int lc_crc32c_sse42_ok(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2");
}

uint32_t lc_crc32c_base(uint32_t crc, const void *buf, size_t len)
{
    pthread_once(&lc_crc_once, lc_crc_init);
    const unsigned char *p = buf;
    uint32_t c = ~crc;
    while (len > 0 && ((uintptr_t)p & 7) != 0) {
        c = lc_crc_tab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
        len--;
    }
    while (len >= 8) {
        uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                           (uint32_t)p[3] << 24);
        uint32_t hi =
            (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
        c = lc_crc_tab[7][lo & 0xff] ^ lc_crc_tab[6][(lo >> 8) & 0xff] ^
            lc_crc_tab[5][(lo >> 16) & 0xff] ^ lc_crc_tab[4][lo >> 24] ^ lc_crc_tab[3][hi & 0xff] ^
            lc_crc_tab[2][(hi >> 8) & 0xff] ^ lc_crc_tab[1][(hi >> 16) & 0xff] ^
            lc_crc_tab[0][hi >> 24];
        p += 8;
        len -= 8;
    }
    while (len > 0) {
        c = lc_crc_tab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
        len--;
    }
    return ~c;
}

uint32_t lc_crc32c(uint32_t crc, const void *buf, size_t len)
{
    pthread_once(&lc_crc_once, lc_crc_init);
    return lc_crc_hw ? lc_crc32c_sse42(crc, buf, len) : lc_crc32c_base(crc, buf, len);
}

const char *lc_crc32c_impl(void)
{
    pthread_once(&lc_crc_once, lc_crc_init);
    return lc_crc_hw ? "sse42" : "base";
}
