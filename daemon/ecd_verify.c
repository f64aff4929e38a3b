/*
 * daemon/ecd_verify.c: secret linear fingerprints of the chunks that cross
 * UCX (the construction and its bound: ecd_verify.h), and the test hooks
 * that alter a transfer or turn the check off.
 */
#include "daemon/ecd_verify.h"
#include "daemon/ecd.h"
#include "kernels/crc/crc32c.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ecd_verify_off;
long ecd_verify_alter_at;

/* GF(2^8) products for the final fold (8 KiB of scalar products per
 * fingerprint): one table, built once from the library's field. */
static uint8_t fp_mul[256][256];
static pthread_once_t fp_mul_once = PTHREAD_ONCE_INIT;
static int fp_mul_ok;
static void fp_mul_build(void)
{
    lincoll_field_t *f;
    if (lincoll_gf_field_create(256, &f) != LINCOLL_OK) return;
    for (int a = 0; a < 256; a++)
        for (int b = 0; b < 256; b++)
            fp_mul[a][b] = (uint8_t)lincoll_gf_mul(f, (uint64_t)a, (uint64_t)b);
    lincoll_gf_field_destroy(f);
    fp_mul_ok = 1;
}

/* SHA-256 of key || tag || le64(ctr): 32 coefficient bytes. */
static void vkey_block(const uint8_t key[ECD_VKEY], char tag, uint64_t ctr, uint8_t out[32])
{
    uint8_t in[ECD_VKEY + 9];
    memcpy(in, key, ECD_VKEY);
    in[ECD_VKEY] = (uint8_t)tag;
    for (int i = 0; i < 8; i++)
        in[ECD_VKEY + 1 + i] = (uint8_t)(ctr >> (8 * i));
    ecd_sha256(in, sizeof(in), out);
}

void ecd_vkey_expand(ecd_vkey_t *k)
{
    uint8_t *d = &k->d[0][0];
    for (uint64_t b = 0; b < sizeof(k->d) / 32; b++)
        vkey_block(k->key, 'd', b, d + 32 * b);
}

int ecd_vkey_new(ecd_vkey_t *k)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, k->key, ECD_VKEY);
    close(fd);
    if (n != ECD_VKEY) return -1;
    ecd_vkey_expand(k);
    return 0;
}

void ecd_vkey_hex(const ecd_vkey_t *k, char *out)
{
    ecd_hex(k->key, ECD_VKEY, out);
}

int ecd_vkey_parse(ecd_vkey_t *k, const char *hex)
{
    if (strlen(hex) != 2 * ECD_VKEY || ecd_unhex(hex, k->key, ECD_VKEY) != 0) return -1;
    ecd_vkey_expand(k);
    return 0;
}

void ecd_fp_init(ecd_fp_acc_t *a, const lincoll_field_t *gf, const ecd_vkey_t *key)
{
    memset(a, 0, sizeof(*a));
    a->gf = gf;
    a->key = key;
    pthread_once(&fp_mul_once, fp_mul_build);
    a->failed = !fp_mul_ok;
}

/* Y_i += sum over n whole segments at base (the next ones of the chunk). */
static void fp_segments(ecd_fp_acc_t *a, const uint8_t *base, int n)
{
    uint64_t M[ECD_FP_T * ECD_FP_BATCH];
    uint8_t blk[32], tmp[ECD_FP_T][ECD_FP_W];
    uint64_t have = UINT64_MAX;
    for (int j = 0; j < n; j++) {
        uint64_t s = a->seg + (uint64_t)j; /* 4 segments' coefficients per block */
        if (s / 4 != have) {
            have = s / 4;
            vkey_block(a->key->key, 'c', have, blk);
        }
        for (int i = 0; i < ECD_FP_T; i++)
            M[i * n + j] = blk[(s % 4) * ECD_FP_T + (uint64_t)i];
    }
    const void *src[ECD_FP_BATCH];
    void *dst[ECD_FP_T];
    for (int j = 0; j < n; j++)
        src[j] = base + (size_t)j * ECD_FP_W;
    for (int i = 0; i < ECD_FP_T; i++)
        dst[i] = tmp[i];
    lincoll_gf_coeffs_t *co = NULL;
    if (lincoll_gf_coeffs_create(a->gf, ECD_FP_T, n, M, &co) != LINCOLL_OK ||
        lincoll_gf_lincomb(co, ECD_FP_W, src, dst) != LINCOLL_OK) {
        a->failed = 1;
    } else {
        for (int i = 0; i < ECD_FP_T; i++)
            for (int w = 0; w < ECD_FP_W; w++)
                a->y[i][w] ^= tmp[i][w];
    }
    lincoll_gf_coeffs_destroy(co);
    a->seg += (uint64_t)n;
}

int ecd_fp_update(ecd_fp_acc_t *a, const void *data, size_t len)
{
    const uint8_t *p = data;
    if (a->fill > 0) {
        size_t take = ECD_FP_W - a->fill < len ? ECD_FP_W - a->fill : len;
        memcpy(a->part + a->fill, p, take);
        a->fill += take;
        p += take;
        len -= take;
        if (a->fill == ECD_FP_W) {
            fp_segments(a, a->part, 1);
            a->fill = 0;
        }
    }
    while (len >= ECD_FP_W) {
        size_t n = len / ECD_FP_W;
        if (n > ECD_FP_BATCH) n = ECD_FP_BATCH;
        fp_segments(a, p, (int)n);
        p += n * ECD_FP_W;
        len -= n * ECD_FP_W;
    }
    if (len > 0) {
        memcpy(a->part, p, len);
        a->fill = len;
    }
    return a->failed ? -1 : 0;
}

int ecd_fp_final(ecd_fp_acc_t *a, ecd_fp_t *out)
{
    if (a->fill > 0) { /* zero padding adds nothing */
        memset(a->part + a->fill, 0, ECD_FP_W - a->fill);
        fp_segments(a, a->part, 1);
        a->fill = 0;
    }
    for (int i = 0; i < ECD_FP_T; i++) {
        uint8_t v = 0;
        for (int w = 0; w < ECD_FP_W; w++)
            v ^= fp_mul[a->key->d[i][w]][a->y[i][w]];
        out->v[i] = v;
    }
    return a->failed ? -1 : 0;
}

int ecd_fp(const lincoll_field_t *gf, const ecd_vkey_t *key, const void *data, size_t len,
           ecd_fp_t *out)
{
    ecd_fp_acc_t *a = malloc(sizeof(*a));
    if (a == NULL) return -1;
    ecd_fp_init(a, gf, key);
    int rc = ecd_fp_update(a, data, len);
    if (ecd_fp_final(a, out) != 0) rc = -1;
    free(a);
    return rc;
}

void ecd_fp_combine(const lincoll_field_t *gf, const uint64_t *coef, int n, const ecd_fp_t *in,
                    ecd_fp_t *out)
{
    for (int i = 0; i < ECD_FP_T; i++) {
        uint64_t v = 0;
        for (int j = 0; j < n; j++)
            v ^= lincoll_gf_mul(gf, coef[j], in[j].v[i]);
        out->v[i] = (uint8_t)v;
    }
}

void ecd_fp_hex(const ecd_fp_t *f, char *out)
{
    ecd_hex(f->v, ECD_FP_T, out);
}

int ecd_fp_parse(ecd_fp_t *f, const char *hex)
{
    return strlen(hex) == 2 * ECD_FP_T ? ecd_unhex(hex, f->v, ECD_FP_T) : -1;
}

int ecd_fp_equal(const ecd_fp_t *a, const ecd_fp_t *b)
{
    return memcmp(a->v, b->v, ECD_FP_T) == 0;
}

int ecd_verify_take_key(char **w, int nw, ecd_vkey_t *key, int *have)
{
    *have = 0;
    if (nw < 1 || strncmp(w[nw - 1], "verify=", 7) != 0) return nw;
    if (ecd_vkey_parse(key, w[nw - 1] + 7) != 0) return -1;
    *have = 1;
    return nw - 1;
}

/* ---- test hook: a transfer altered as by someone on the wire -------------- */

/* The CRC32C of a 5-byte window, less its affine part. */
static uint32_t crc_lin5(const uint8_t v[5])
{
    static const uint8_t zero[5];
    return lc_crc32c(0, v, 5) ^ lc_crc32c(0, zero, 5);
}

/* e[1..4] such that the window e[0..4] (e[0] given) adds nothing to a
 * CRC32C: a CRC is linear over GF(2), and the 32 bits of e[1..4] reach
 * every remainder, so the system always has one solution. */
static void crc_keeping(uint8_t e[5])
{
    uint32_t vec[32], comb[32], t;
    for (int b = 0; b < 32; b++) {
        uint8_t v[5] = {0};
        v[1 + b / 8] = (uint8_t)(1u << (b % 8));
        vec[b] = crc_lin5(v);
        comb[b] = 1u << b;
    }
    uint8_t v0[5] = {e[0], 0, 0, 0, 0};
    t = crc_lin5(v0);
    int rank = 0, pivot[32];
    for (int pos = 31; pos >= 0 && rank < 32; pos--) {
        int r = rank;
        while (r < 32 && !((vec[r] >> pos) & 1u))
            r++;
        if (r == 32) continue;
        uint32_t tv = vec[r], tc = comb[r];
        vec[r] = vec[rank], comb[r] = comb[rank];
        vec[rank] = tv, comb[rank] = tc;
        for (int q = 0; q < 32; q++)
            if (q != rank && ((vec[q] >> pos) & 1u)) vec[q] ^= vec[rank], comb[q] ^= comb[rank];
        pivot[rank++] = pos;
    }
    uint32_t sol = 0;
    for (int r = 0; r < rank; r++)
        if ((t >> pivot[r]) & 1u) t ^= vec[r], sol ^= comb[r];
    for (int i = 0; i < 4; i++)
        e[1 + i] = (uint8_t)(sol >> (8 * i));
}

int ecd_verify_test_alter(void *buf, size_t len, const char *what)
{
    static atomic_long seen;
    if (ecd_verify_alter_at <= 0 || len == 0) return 0;
    if (atomic_fetch_add(&seen, 1) + 1 != ecd_verify_alter_at) return 0;
    uint8_t *b = buf, e[5] = {0xa5, 0, 0, 0, 0};
    if (len < 5) {
        b[0] ^= e[0];
    } else {
        crc_keeping(e);
        size_t off = len / 2 <= len - 5 ? len / 2 : len - 5;
        for (int i = 0; i < 5; i++)
            b[off + (size_t)i] ^= e[i];
    }
    ecd_log("TEST HOOK --test-alter-transfer %ld: altered %s (%zu bytes) as on the wire, %s",
            ecd_verify_alter_at, what, len, len < 5 ? "one byte" : "5 bytes that keep its CRC32C");
    return 1;
}
