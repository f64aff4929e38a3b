/*
 * kernels/gf/gf_field.c: field descriptors and scalar arithmetic.
 *
 * What: GF(2^8) (0x11d) and GF(2^16) (0x1100b) with log/exp tables, primes
 * below 2^31 (Miller-Rabin checked, Shoup constants for the kernels) and the
 * Goldilocks prime with its shift/add reduction; pow, inverse, primitive
 * element, K-th roots of unity.
 * Reference: ISA-L ec_base.c (log/exp tables), gf-complete default
 * polynomials, plonky2 Goldilocks reduction.
 * Cost: create is O(q) for binary fields (384 KiB of tables for GF(2^16)),
 * O(sqrt(q)) for primes (factoring q - 1); scalar ops O(1), pow O(log e).
 * Restrictions: other prime powers and primes in [2^31, 2^64) other than
 * Goldilocks are rejected as unsupported.
 */
#include "gf_kernels.h"

#include <stdlib.h>
#include <string.h>

static uint64_t lc_powmod_u64(uint64_t a, uint64_t e, uint64_t m)
{
    unsigned __int128 r = 1 % m, b = a % m;
    while (e) {
        if (e & 1) r = r * b % m;
        b = b * b % m;
        e >>= 1;
    }
    return (uint64_t)r;
}

/* Deterministic for n < 3,215,031,751 with bases 2, 3, 5, 7. */
static int lc_is_prime_u32(uint64_t n)
{
    if (n < 2) return 0;
    static const uint64_t small[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
    for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++) {
        if (n == small[i]) return 1;
        if (n % small[i] == 0) return 0;
    }
    uint64_t d = n - 1;
    int s = 0;
    while ((d & 1) == 0) {
        d >>= 1;
        s++;
    }
    static const uint64_t bases[] = {2, 3, 5, 7};
    for (size_t i = 0; i < 4; i++) {
        uint64_t x = lc_powmod_u64(bases[i], d, n);
        if (x == 1 || x == n - 1) continue;
        int comp = 1;
        for (int r = 1; r < s; r++) {
            x = (uint64_t)((unsigned __int128)x * x % n);
            if (x == n - 1) {
                comp = 0;
                break;
            }
        }
        if (comp) return 0;
    }
    return 1;
}

static int lc_is_power_of_prime_or_prime(uint64_t q)
{
    if (q < 2) return 0;
    if ((q & (q - 1)) == 0) return 1;
    if (q < (1ull << 32)) {
        /* smallest factor, then check q is a power of it */
        uint64_t p = 0;
        for (uint64_t d = 2; d * d <= q; d++) {
            if (q % d == 0) {
                p = d;
                break;
            }
        }
        if (p == 0) return 1;
        while (q % p == 0)
            q /= p;
        return q == 1;
    }
    return 0; /* large non-Goldilocks orders: treated as not supported below */
}

static void lc_factor(lincoll_field_t *f, uint64_t n)
{
    f->nfac = 0;
    for (uint64_t d = 2; d * d <= n && d < (1ull << 32); d++) {
        if (n % d == 0) {
            f->fac[f->nfac++] = d;
            while (n % d == 0)
                n /= d;
        }
    }
    if (n > 1) f->fac[f->nfac++] = n;
}

uint64_t lc_gf_pow(const lincoll_field_t *f, uint64_t a, uint64_t e)
{
    if (f->kind == LC_GF_KIND_GF8 || f->kind == LC_GF_KIND_GF16) {
        if (e == 0) return 1;
        if (a == 0) return 0;
        uint64_t ord = f->q - 1;
        return f->exp[(uint64_t)f->log[a] * (e % ord) % ord];
    }
    uint64_t r = 1, b = a;
    while (e) {
        if (e & 1) r = lc_gf_mul(f, r, b);
        b = lc_gf_mul(f, b, b);
        e >>= 1;
    }
    return r;
}

uint64_t lc_gf_inv(const lincoll_field_t *f, uint64_t a)
{
    if (a == 0) return 0;
    if (f->kind == LC_GF_KIND_GF8 || f->kind == LC_GF_KIND_GF16) {
        uint64_t ord = f->q - 1;
        return f->exp[(ord - f->log[a]) % ord];
    }
    return lc_gf_pow(f, a, f->q - 2);
}

static uint64_t lc_find_generator(const lincoll_field_t *f)
{
    if (f->q == 2) return 1;
    for (uint64_t g = 2; g < f->q; g++) {
        int ok = 1;
        for (int i = 0; i < f->nfac && ok; i++) {
            if (lc_gf_pow(f, g, (f->q - 1) / f->fac[i]) == 1) ok = 0;
        }
        if (ok) return g;
    }
    return 0;
}

static lincoll_status_t lc_gf_binary_tables(lincoll_field_t *f, unsigned w, uint32_t poly)
{
    uint64_t q = 1ull << w;
    f->poly = poly;
    f->log = calloc(q, sizeof(uint16_t));
    f->exp = calloc(2 * q, sizeof(uint16_t));
    if (f->log == NULL || f->exp == NULL) {
        lc_kerror("gf: out of memory for GF(2^%u) tables", w);
        return LINCOLL_ERR_NOMEM;
    }
    uint32_t x = 1;
    for (uint64_t i = 0; i < q - 1; i++) {
        f->exp[i] = (uint16_t)x;
        f->exp[i + q - 1] = (uint16_t)x;
        f->log[x] = (uint16_t)i;
        x <<= 1;
        if (x & q) x ^= poly;
    }
    return LINCOLL_OK;
}

lincoll_status_t lc_gf_field_create(uint64_t q, lincoll_field_t **field_p)
{
    lincoll_field_t *f = calloc(1, sizeof(*f));
    lincoll_status_t status;
    if (f == NULL) {
        lc_kerror("gf: out of memory for a field");
        return LINCOLL_ERR_NOMEM;
    }
    f->q = q;
    if (q == 256 || q == 65536) {
        f->kind = q == 256 ? LC_GF_KIND_GF8 : LC_GF_KIND_GF16;
        f->elem_size = q == 256 ? 1 : 2;
        status = lc_gf_binary_tables(f, q == 256 ? 8 : 16, q == 256 ? LC_GF_POLY8 : LC_GF_POLY16);
        if (status != LINCOLL_OK) goto err_free;
    } else if (q == LINCOLL_GF_GOLDILOCKS) {
        f->kind = LC_GF_KIND_P64;
        f->elem_size = 8;
    } else if (q < (1ull << 31) && lc_is_prime_u32(q)) {
        f->kind = LC_GF_KIND_P32;
        f->elem_size = 4;
        f->p = (uint32_t)q;
        f->r32 = (uint32_t)((1ull << 32) % q);
        f->r32_shoup = (uint32_t)(((uint64_t)f->r32 << 32) / q);
        f->one_shoup = (uint32_t)((1ull << 32) / q);
        /* acc < p, plus T products of at most (p-1)^2, must stay below 2^64 */
        unsigned __int128 pm1sq = (unsigned __int128)(q - 1) * (q - 1);
        unsigned __int128 room = (unsigned __int128)UINT64_MAX - (q - 1);
        unsigned __int128 t = pm1sq ? room / pm1sq : (unsigned __int128)1 << 30;
        f->max_terms = t > (1u << 30) ? (1u << 30) : (unsigned)t;
    } else if (!lc_is_power_of_prime_or_prime(q) && q < (1ull << 32)) {
        lc_kerror("gf: field order %llu is not a prime or a prime power", (unsigned long long)q);
        status = LINCOLL_ERR_INVALID;
        goto err_free;
    } else {
        lc_kerror("gf: field order %llu is not supported (256, 65536, primes < 2^31 "
                  "and 2^64-2^32+1 are)",
                  (unsigned long long)q);
        status = LINCOLL_ERR_UNSUPPORTED;
        goto err_free;
    }
    lc_factor(f, q - 1);
    f->gen = lc_find_generator(f);
    *field_p = f;
    return LINCOLL_OK;

err_free:
    lc_gf_field_destroy(f);
    return status;
}

void lc_gf_field_destroy(lincoll_field_t *f)
{
    if (f == NULL) return;
    free(f->log);
    free(f->exp);
    free(f);
}

uint64_t lc_gf_affine_matrix(const lincoll_field_t *f, uint64_t c, int in_byte, int out_byte)
{
    uint64_t m = 0;
    for (int i = 0; i < 8; i++) {
        uint64_t row = 0;
        for (int j = 0; j < 8; j++) {
            uint64_t prod = lc_gf_mul(f, c, 1ull << (8 * in_byte + j));
            row |= ((prod >> (8 * out_byte + i)) & 1) << j;
        }
        m |= row << (8 * (7 - i));
    }
    return m;
}

/* ------------------------------------------------------- public wrappers */

lincoll_status_t lincoll_gf_field_create(uint64_t q, lincoll_field_t **field_p)
{
    if (field_p == NULL) {
        lc_kerror("gf: field_p is NULL");
        return LINCOLL_ERR_INVALID;
    }
    return lc_gf_field_create(q, field_p);
}

void lincoll_gf_field_destroy(lincoll_field_t *field)
{
    lc_gf_field_destroy(field);
}

uint64_t lincoll_gf_field_order(const lincoll_field_t *field)
{
    return field ? field->q : 0;
}

size_t lincoll_gf_field_elem_size(const lincoll_field_t *field)
{
    return field ? field->elem_size : 0;
}

const char *lincoll_gf_kernel_name(const lincoll_field_t *field)
{
    return field ? lc_gf_variant_dispatch(field->kind)->name : "none";
}

uint64_t lincoll_gf_add(const lincoll_field_t *field, uint64_t a, uint64_t b)
{
    return lc_gf_add(field, a, b);
}

uint64_t lincoll_gf_sub(const lincoll_field_t *field, uint64_t a, uint64_t b)
{
    return lc_gf_sub(field, a, b);
}

uint64_t lincoll_gf_mul(const lincoll_field_t *field, uint64_t a, uint64_t b)
{
    return lc_gf_mul(field, a, b);
}

lincoll_status_t lincoll_gf_inv(const lincoll_field_t *field, uint64_t a, uint64_t *inv_p)
{
    if (field == NULL || inv_p == NULL) {
        lc_kerror("gf: inv: %s is NULL", field == NULL ? "field" : "inv_p");
        return LINCOLL_ERR_INVALID;
    }
    if (a == 0 || a >= field->q) {
        lc_kerror("gf: inv: element %llu has no inverse in GF(%llu)", (unsigned long long)a,
                  (unsigned long long)field->q);
        return LINCOLL_ERR_INVALID;
    }
    *inv_p = lc_gf_inv(field, a);
    return LINCOLL_OK;
}

uint64_t lincoll_gf_pow(const lincoll_field_t *field, uint64_t a, uint64_t e)
{
    return lc_gf_pow(field, a, e);
}

uint64_t lincoll_gf_primitive(const lincoll_field_t *field)
{
    return field ? field->gen : 0;
}

lincoll_status_t lincoll_gf_root_of_unity(const lincoll_field_t *field, uint64_t K,
                                          uint64_t *omega_p)
{
    if (field == NULL || omega_p == NULL) {
        lc_kerror("gf: root_of_unity: %s is NULL", field == NULL ? "field" : "omega_p");
        return LINCOLL_ERR_INVALID;
    }
    if (K == 0 || (field->q - 1) % K != 0) {
        lc_kerror("gf: no %llu-th root of unity in GF(%llu): K must divide q-1 = %llu",
                  (unsigned long long)K, (unsigned long long)field->q,
                  (unsigned long long)(field->q - 1));
        return LINCOLL_ERR_INVALID;
    }
    *omega_p = lc_gf_pow(field, field->gen, (field->q - 1) / K);
    return LINCOLL_OK;
}
