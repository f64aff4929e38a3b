/*
 * kernels/crc/crc32c.h: CRC-32C (Castagnoli, reflected polynomial
 * 0x82F63B78, initial value and final xor 0xFFFFFFFF; iSCSI, ext4, SCTP).
 *
 * lc_crc32c(0, buf, len) is the checksum of buf; lc_crc32c(c, more, n)
 * continues a checksum c over more bytes.  Both variants give the same value:
 * _base is table driven (slicing by 8, any CPU), _sse42 uses the crc32
 * instruction and may only be called when lc_crc32c_sse42_ok() says so.
 * lc_crc32c() picks SSE4.2 unless the CPU lacks it or LINCOLL_KERNEL_ISA=base.
 */
#ifndef LC_CRC32C_H
#define LC_CRC32C_H

#include <stddef.h>
#include <stdint.h>

uint32_t lc_crc32c(uint32_t crc, const void *buf, size_t len);
uint32_t lc_crc32c_base(uint32_t crc, const void *buf, size_t len);
uint32_t lc_crc32c_sse42(uint32_t crc, const void *buf, size_t len);
/** Non-zero when this CPU has SSE4.2 (the crc32 instruction). */
int lc_crc32c_sse42_ok(void);
/** Name of the variant lc_crc32c() runs: "sse42" or "base". */
const char *lc_crc32c_impl(void);

#endif
