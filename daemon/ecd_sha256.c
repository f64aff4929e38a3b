/*
 * daemon/ecd_sha256.c: SHA-256 (FIPS 180-4), written from the standard:
 * 64-byte blocks, a 64-word message schedule, 64 rounds, big-endian words.
 *
 * Two block functions give the same result: a portable one, and one for
 * x86 CPUs with the SHA extensions (SHA256RNDS2 does two rounds on the
 * state held as ABEF/CDGH, SHA256MSG1/MSG2 extend the message schedule four
 * words at a time), about ten times faster; the object hashes of a put or a
 * get then cost a fraction of what the link takes to carry the bytes.
 * ecd_sha256_update picks the second when CPUID says the CPU has it
 * (leaf 7, EBX bit 29); ecd_sha256_portable(1) forces the first (tests
 * compare the two).
 *
 * Where the build found OpenSSL (ECD_HAVE_OPENSSL), a streamed hash runs in
 * OpenSSL's EVP SHA-256 instead, its own SHA-NI/AVX2 code: measured 1.16 to
 * 1.33 times the speed of the SHA-NI block function above on this project's
 * machine (perf/daemon/sha256_bench.c, docs/perf/2026-12-06-daemon-verify.md).
 * The context is allocated at the first update and freed by final (or
 * ecd_sha256_drop); when it cannot be allocated the hash goes on here.
 * Short one-shot hashes (under 4 KiB: the fingerprint keys' expansion) stay
 * here, where they cost no allocation.
 */
#include "daemon/ecd.h"

#include <string.h>

#ifdef ECD_HAVE_OPENSSL
#include <openssl/evp.h>
#include <pthread.h>
static EVP_MD *ecd_evp_sha256;
static pthread_once_t ecd_evp_once = PTHREAD_ONCE_INIT;
static void ecd_evp_fetch(void)
{
    ecd_evp_sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define ECD_SHA_X86 1
#endif

static const uint32_t ecd_k256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void ecd_sha256_block_portable(uint32_t *hv, const uint8_t *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = hv[0], b = hv[1], c = hv[2], d = hv[3], e = hv[4], f = hv[5], g = hv[6], h = hv[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 =
            h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + ecd_k256[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    hv[0] += a, hv[1] += b, hv[2] += c, hv[3] += d;
    hv[4] += e, hv[5] += f, hv[6] += g, hv[7] += h;
}

static void ecd_sha256_blocks_portable(uint32_t *hv, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ecd_sha256_block_portable(hv, p + 64 * i);
}

#ifdef ECD_SHA_X86
/* n blocks with the SHA extensions.  The state lives in two registers,
 * ABEF and CDGH (the order SHA256RNDS2 takes); message words are
 * byte-swapped to big endian, four at a time. */
__attribute__((target("sha,sse4.1,ssse3"))) static void
ecd_sha256_blocks_shani(uint32_t *hv, const uint8_t *p, size_t n)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&hv[0]), 0xB1);   /* CDAB */
    __m128i st1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&hv[4]), 0x1B); /* EFGH */
    __m128i st0 = _mm_alignr_epi8(t, st1, 8);                                        /* ABEF */
    st1 = _mm_blend_epi16(st1, t, 0xF0);                                             /* CDGH */
    for (size_t b = 0; b < n; b++, p += 64) {
        __m128i save0 = st0, save1 = st1, w[4];
        for (int g = 0; g < 16; g++) {
            if (g < 4) {
                w[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)), bswap);
            } else {
                /* W[t] = W[t-16] + s0(W[t-15]) + W[t-7] + s1(W[t-2]), t = 4g .. 4g+3 */
                __m128i x = _mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]);
                x = _mm_add_epi32(x, _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4));
                w[g & 3] = _mm_sha256msg2_epu32(x, w[(g + 3) & 3]);
            }
            __m128i msg =
                _mm_add_epi32(w[g & 3], _mm_loadu_si128((const __m128i *)&ecd_k256[4 * g]));
            st1 = _mm_sha256rnds2_epu32(st1, st0, msg);
            st0 = _mm_sha256rnds2_epu32(st0, st1, _mm_shuffle_epi32(msg, 0x0E));
        }
        st0 = _mm_add_epi32(st0, save0);
        st1 = _mm_add_epi32(st1, save1);
    }
    t = _mm_shuffle_epi32(st0, 0x1B);    /* FEBA */
    st1 = _mm_shuffle_epi32(st1, 0xB1);  /* DCHG */
    st0 = _mm_blend_epi16(t, st1, 0xF0); /* DCBA */
    st1 = _mm_alignr_epi8(st1, t, 8);    /* HGFE */
    _mm_storeu_si128((__m128i *)&hv[0], st0);
    _mm_storeu_si128((__m128i *)&hv[4], st1);
}

static int ecd_sha256_shani_ok(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & (1u << 29))) return 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    return (c & bit_SSE4_1) && (c & bit_SSSE3);
}
#endif

typedef void (*ecd_sha256_blocks_fn)(uint32_t *hv, const uint8_t *p, size_t n);
static int ecd_sha256_force_portable;
static int ecd_sha256_no_openssl; /* ecd_sha256_use("sha-ni") or "portable" */

static ecd_sha256_blocks_fn ecd_sha256_pick(void)
{
#ifdef ECD_SHA_X86
    static int hw = -1; /* the same value from any thread */
    if (hw < 0) hw = ecd_sha256_shani_ok();
    if (hw && !ecd_sha256_force_portable) return ecd_sha256_blocks_shani;
#endif
    return ecd_sha256_blocks_portable;
}

void ecd_sha256_portable(int on)
{
    ecd_sha256_force_portable = on;
    ecd_sha256_no_openssl = on;
}

static int ecd_sha256_openssl(void)
{
#ifdef ECD_HAVE_OPENSSL
    if (ecd_sha256_no_openssl) return 0;
    pthread_once(&ecd_evp_once, ecd_evp_fetch);
    return ecd_evp_sha256 != NULL;
#else
    return 0;
#endif
}

int ecd_sha256_use(const char *impl)
{
    if (impl == NULL || strcmp(impl, "openssl") == 0) {
        ecd_sha256_force_portable = ecd_sha256_no_openssl = 0;
        return impl == NULL || ecd_sha256_openssl() ? 0 : -1;
    }
    if (strcmp(impl, "portable") == 0) {
        ecd_sha256_force_portable = ecd_sha256_no_openssl = 1;
        return 0;
    }
    if (strcmp(impl, "sha-ni") == 0) {
        ecd_sha256_force_portable = 0;
        ecd_sha256_no_openssl = 1;
        return ecd_sha256_pick() == ecd_sha256_blocks_portable ? -1 : 0;
    }
    return -1;
}

const char *ecd_sha256_impl(void)
{
    if (ecd_sha256_openssl()) return "openssl";
    return ecd_sha256_pick() == ecd_sha256_blocks_portable ? "portable" : "sha-ni";
}

void ecd_sha256_init(ecd_sha256_t *s)
{
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, h0, sizeof(h0));
    s->bytes = 0;
    s->fill = 0;
    s->evp = NULL;
    s->builtin = 0;
    s->failed = 0;
}

void ecd_sha256_drop(ecd_sha256_t *s)
{
#ifdef ECD_HAVE_OPENSSL
    EVP_MD_CTX_free(s->evp);
#endif
    s->evp = NULL;
}

void ecd_sha256_update(ecd_sha256_t *s, const void *data, size_t len)
{
    const uint8_t *p = data;
#ifdef ECD_HAVE_OPENSSL
    if (s->evp == NULL && s->bytes == 0 && !s->builtin && ecd_sha256_openssl()) {
        EVP_MD_CTX *x = EVP_MD_CTX_new();
        if (x != NULL && EVP_DigestInit_ex(x, ecd_evp_sha256, NULL) == 1)
            s->evp = x;
        else
            EVP_MD_CTX_free(x);
    }
    if (s->evp != NULL) {
        s->bytes += len;
        if (EVP_DigestUpdate(s->evp, data, len) != 1) s->failed = 1;
        return;
    }
#endif
    s->builtin = 1;
    s->bytes += len;
    if (s->fill > 0) {
        size_t take = 64 - s->fill < len ? 64 - s->fill : len;
        memcpy(s->buf + s->fill, p, take);
        s->fill += take;
        p += take;
        len -= take;
        if (s->fill < 64) return;
        ecd_sha256_pick()(s->h, s->buf, 1);
        s->fill = 0;
    }
    if (len >= 64) {
        ecd_sha256_pick()(s->h, p, len / 64);
        p += len / 64 * 64;
        len %= 64;
    }
    memcpy(s->buf, p, len);
    s->fill = len;
}

void ecd_sha256_final(ecd_sha256_t *s, uint8_t out[32])
{
#ifdef ECD_HAVE_OPENSSL
    if (s->evp != NULL) {
        unsigned int n = 0;
        if (EVP_DigestFinal_ex(s->evp, out, &n) != 1 || n != 32 || s->failed)
            memset(out, 0, 32); /* matches no object: the caller's check fails */
        ecd_sha256_drop(s);
        return;
    }
#endif
    s->builtin = 1;
    uint64_t bits = s->bytes * 8;
    uint8_t pad[72] = {0x80};
    size_t padlen = (s->fill < 56 ? 56 : 120) - s->fill;
    for (int i = 0; i < 8; i++)
        pad[padlen + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
    ecd_sha256_update(s, pad, padlen + 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(s->h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
        out[4 * i + 3] = (uint8_t)s->h[i];
    }
}

void ecd_sha256(const void *data, size_t len, uint8_t out[32])
{
    ecd_sha256_t s;
    ecd_sha256_init(&s);
    s.builtin = len < 4096; /* no allocation for a short one */
    ecd_sha256_update(&s, data, len);
    ecd_sha256_final(&s, out);
}

void ecd_hex(const uint8_t *b, size_t n, char *out)
{
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = d[b[i] >> 4];
        out[2 * i + 1] = d[b[i] & 15];
    }
    out[2 * n] = '\0';
}

int ecd_unhex(const char *s, uint8_t *b, size_t n)
{
    if (strlen(s) != 2 * n) return -1;
    for (size_t i = 0; i < 2 * n; i++) {
        int v = s[i] >= '0' && s[i] <= '9'   ? s[i] - '0'
                : s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10
                                             : -1;
        if (v < 0) return -1;
        if (i % 2 == 0)
            b[i / 2] = (uint8_t)(v << 4);
        else
            b[i / 2] |= (uint8_t)v;
    }
    return 0;
}
