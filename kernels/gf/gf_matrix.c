/*
 * kernels/gf/gf_matrix.c: code matrices over any lincoll field.
 *
 * What: Vandermonde, Cauchy, systematic MDS generators [I; P], DFT and
 * inverse DFT, Lagrange interpolation, Gauss-Jordan inverse, product, and the
 * decode/recovery matrices for a set of surviving rows.
 * Reference: ISA-L ec_base.c (gf_gen_cauchy1_matrix, gf_invert_matrix) and
 * examples/ec/ec_simple_example.c (decode matrix); MacWilliams-Sloane for
 * the MDS property of Vandermonde/Cauchy constructions.
 * Cost: inverse O(n^3) scalar field ops; generators O(n*k) (systematic
 * Vandermonde O(k^3 + n*k^2)); Lagrange O(r*k^2).
 * Restrictions: matrices are row-major uint64_t elements; sizes must fit the
 * field (distinct points).
 */
#include "gf_kernels.h"

#include <stdlib.h>
#include <string.h>

static int lc_gf_mx_check(const lincoll_field_t *f, const void *out, int rows, int cols,
                          const char *what)
{
    if (f == NULL || out == NULL) {
        lc_kerror("gf: %s: %s is NULL", what, f == NULL ? "field" : "output");
        return 0;
    }
    if (rows < 1 || cols < 1 || rows > 65536 || cols > 65536) {
        lc_kerror("gf: %s: size %d x %d out of range", what, rows, cols);
        return 0;
    }
    return 1;
}

lincoll_status_t lincoll_gf_matrix_vandermonde(const lincoll_field_t *field, int rows, int cols,
                                               uint64_t *out)
{
    if (!lc_gf_mx_check(field, out, rows, cols, "vandermonde")) return LINCOLL_ERR_INVALID;
    if ((uint64_t)rows > field->q) {
        lc_kerror("gf: vandermonde: %d rows need distinct points but q = %llu", rows,
                  (unsigned long long)field->q);
        return LINCOLL_ERR_INVALID;
    }
    for (int i = 0; i < rows; i++) {
        uint64_t x = 1;
        for (int j = 0; j < cols; j++) {
            out[(size_t)i * cols + j] = x;
            x = lc_gf_mul(field, x, (uint64_t)i);
        }
    }
    return LINCOLL_OK;
}

lincoll_status_t lincoll_gf_matrix_cauchy(const lincoll_field_t *field, int rows, int cols,
                                          uint64_t *out)
{
    if (!lc_gf_mx_check(field, out, rows, cols, "cauchy")) return LINCOLL_ERR_INVALID;
    if ((uint64_t)rows + (uint64_t)cols > field->q) {
        lc_kerror("gf: cauchy: %d + %d points exceed q = %llu", rows, cols,
                  (unsigned long long)field->q);
        return LINCOLL_ERR_INVALID;
    }
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++) {
            uint64_t d = lc_gf_sub(field, (uint64_t)(cols + i), (uint64_t)j);
            out[(size_t)i * cols + j] = lc_gf_inv(field, d);
        }
    }
    return LINCOLL_OK;
}

/* Gauss-Jordan on an n x n copy; out untouched on failure (no log line:
 * callers name the argument themselves). */
lincoll_status_t lc_gf_invert(const lincoll_field_t *f, int n, const uint64_t *in, uint64_t *out)
{
    size_t nn = (size_t)n * n;
    uint64_t *a = malloc(2 * nn * sizeof(uint64_t));
    if (a == NULL) {
        lc_kerror("gf: invert: out of memory for %d x %d", n, n);
        return LINCOLL_ERR_NOMEM;
    }
    uint64_t *b = a + nn;
    memcpy(a, in, nn * sizeof(uint64_t));
    memset(b, 0, nn * sizeof(uint64_t));
    for (int i = 0; i < n; i++)
        b[(size_t)i * n + i] = 1;
    for (int c = 0; c < n; c++) {
        int piv = c;
        while (piv < n && a[(size_t)piv * n + c] == 0)
            piv++;
        if (piv == n) {
            free(a);
            return LINCOLL_ERR_SINGULAR;
        }
        if (piv != c) {
            for (int j = 0; j < n; j++) {
                uint64_t t = a[(size_t)c * n + j];
                a[(size_t)c * n + j] = a[(size_t)piv * n + j];
                a[(size_t)piv * n + j] = t;
                t = b[(size_t)c * n + j];
                b[(size_t)c * n + j] = b[(size_t)piv * n + j];
                b[(size_t)piv * n + j] = t;
            }
        }
        uint64_t inv = lc_gf_inv(f, a[(size_t)c * n + c]);
        for (int j = 0; j < n; j++) {
            a[(size_t)c * n + j] = lc_gf_mul(f, a[(size_t)c * n + j], inv);
            b[(size_t)c * n + j] = lc_gf_mul(f, b[(size_t)c * n + j], inv);
        }
        for (int i = 0; i < n; i++) {
            uint64_t m = a[(size_t)i * n + c];
            if (i == c || m == 0) continue;
            for (int j = 0; j < n; j++) {
                a[(size_t)i * n + j] =
                    lc_gf_sub(f, a[(size_t)i * n + j], lc_gf_mul(f, m, a[(size_t)c * n + j]));
                b[(size_t)i * n + j] =
                    lc_gf_sub(f, b[(size_t)i * n + j], lc_gf_mul(f, m, b[(size_t)c * n + j]));
            }
        }
    }
    memcpy(out, b, nn * sizeof(uint64_t));
    free(a);
    return LINCOLL_OK;
}

lincoll_status_t lincoll_gf_matrix_invert(const lincoll_field_t *field, int n, const uint64_t *in,
                                          uint64_t *out)
{
    if (!lc_gf_mx_check(field, out, n, n, "invert")) return LINCOLL_ERR_INVALID;
    if (in == NULL) {
        lc_kerror("gf: invert: input is NULL");
        return LINCOLL_ERR_INVALID;
    }
    lincoll_status_t status = lc_gf_invert(field, n, in, out);
    if (status == LINCOLL_ERR_SINGULAR) {
        lc_kerror("gf: invert: the %d x %d matrix is singular", n, n);
    }
    return status;
}

static void lc_gf_mx_mul(const lincoll_field_t *f, int r, int n, int c, const uint64_t *a,
                         const uint64_t *b, uint64_t *out)
{
    for (int i = 0; i < r; i++) {
        for (int j = 0; j < c; j++) {
            uint64_t s = 0;
            for (int t = 0; t < n; t++) {
                s = lc_gf_add(f, s, lc_gf_mul(f, a[(size_t)i * n + t], b[(size_t)t * c + j]));
            }
            out[(size_t)i * c + j] = s;
        }
    }
}

lincoll_status_t lincoll_gf_matrix_mul(const lincoll_field_t *field, int r, int n, int c,
                                       const uint64_t *a, const uint64_t *b, uint64_t *out)
{
    if (!lc_gf_mx_check(field, out, r, c, "matrix_mul")) return LINCOLL_ERR_INVALID;
    if (a == NULL || b == NULL || n < 1) {
        lc_kerror("gf: matrix_mul: %s", n < 1 ? "inner size < 1" : "an operand is NULL");
        return LINCOLL_ERR_INVALID;
    }
    lc_gf_mx_mul(field, r, n, c, a, b, out);
    return LINCOLL_OK;
}

lincoll_status_t lincoll_gf_matrix_systematic(const lincoll_field_t *field, int n, int k,
                                              lincoll_gf_rs_kind_t kind, uint64_t *out)
{
    if (!lc_gf_mx_check(field, out, n, k, "systematic")) return LINCOLL_ERR_INVALID;
    if (n < k) {
        lc_kerror("gf: systematic: n %d < k %d", n, k);
        return LINCOLL_ERR_INVALID;
    }
    int m = n - k;
    for (int i = 0; i < k; i++) {
        for (int j = 0; j < k; j++)
            out[(size_t)i * k + j] = (i == j);
    }
    if (m == 0) return LINCOLL_OK;
    if (kind == LINCOLL_GF_RS_CAUCHY) {
        return lincoll_gf_matrix_cauchy(field, m, k, out + (size_t)k * k);
    }
    if (kind != LINCOLL_GF_RS_VANDERMONDE) {
        lc_kerror("gf: systematic: unknown kind %d", (int)kind);
        return LINCOLL_ERR_INVALID;
    }
    if ((uint64_t)n > field->q) {
        lc_kerror("gf: systematic: n %d exceeds q = %llu", n, (unsigned long long)field->q);
        return LINCOLL_ERR_INVALID;
    }
    /* G = V * inv(V_top): every k rows of V are independent, so are G's. */
    uint64_t *v = malloc(((size_t)n * k + (size_t)k * k) * sizeof(uint64_t));
    if (v == NULL) {
        lc_kerror("gf: systematic: out of memory");
        return LINCOLL_ERR_NOMEM;
    }
    uint64_t *tinv = v + (size_t)n * k;
    lincoll_gf_matrix_vandermonde(field, n, k, v);
    lincoll_status_t status = lc_gf_invert(field, k, v, tinv);
    if (status == LINCOLL_OK) {
        lc_gf_mx_mul(field, m, k, k, v + (size_t)k * k, tinv, out + (size_t)k * k);
    } else {
        lc_kerror("gf: systematic: Vandermonde top block is singular");
        status = LINCOLL_ERR_INTERNAL;
    }
    free(v);
    return status;
}

lincoll_status_t lincoll_gf_matrix_dft(const lincoll_field_t *field, int n, int inverse,
                                       uint64_t *out)
{
    if (!lc_gf_mx_check(field, out, n, n, "dft")) return LINCOLL_ERR_INVALID;
    uint64_t w;
    lincoll_status_t status = lincoll_gf_root_of_unity(field, (uint64_t)n, &w);
    if (status != LINCOLL_OK) return status;
    uint64_t scale = 1;
    if (inverse) {
        w = lc_gf_inv(field, w);
        /* n < q - 1 divides q - 1, so n mod char is non-zero; in
         * characteristic 2, n is odd and equals 1. */
        uint64_t nf = (field->kind == LC_GF_KIND_GF8 || field->kind == LC_GF_KIND_GF16)
                          ? (uint64_t)(n & 1)
                          : (uint64_t)n % field->q;
        scale = lc_gf_inv(field, nf);
    }
    for (int i = 0; i < n; i++) {
        uint64_t wi = lc_gf_pow(field, w, (uint64_t)i), x = scale;
        for (int j = 0; j < n; j++) {
            out[(size_t)i * n + j] = x;
            x = lc_gf_mul(field, x, wi);
        }
    }
    return LINCOLL_OK;
}

lincoll_status_t lincoll_gf_matrix_lagrange(const lincoll_field_t *field, int k, const uint64_t *x,
                                            int r, const uint64_t *y, uint64_t *out)
{
    if (!lc_gf_mx_check(field, out, r, k, "lagrange")) return LINCOLL_ERR_INVALID;
    if (x == NULL || y == NULL) {
        lc_kerror("gf: lagrange: %s points are NULL", x == NULL ? "x" : "y");
        return LINCOLL_ERR_INVALID;
    }
    for (int j = 0; j < k; j++) {
        if (x[j] >= field->q) {
            lc_kerror("gf: lagrange: x[%d] is not reduced", j);
            return LINCOLL_ERR_INVALID;
        }
        for (int t = 0; t < j; t++) {
            if (x[t] == x[j]) {
                lc_kerror("gf: lagrange: x[%d] == x[%d]: points must be distinct", t, j);
                return LINCOLL_ERR_INVALID;
            }
        }
    }
    for (int i = 0; i < r; i++) {
        if (y[i] >= field->q) {
            lc_kerror("gf: lagrange: y[%d] is not reduced", i);
            return LINCOLL_ERR_INVALID;
        }
    }
    uint64_t *den = malloc((size_t)k * sizeof(uint64_t));
    if (den == NULL) {
        lc_kerror("gf: lagrange: out of memory");
        return LINCOLL_ERR_NOMEM;
    }
    for (int j = 0; j < k; j++) {
        uint64_t d = 1;
        for (int t = 0; t < k; t++) {
            if (t != j) d = lc_gf_mul(field, d, lc_gf_sub(field, x[j], x[t]));
        }
        den[j] = lc_gf_inv(field, d);
    }
    for (int i = 0; i < r; i++) {
        for (int j = 0; j < k; j++) {
            uint64_t v = den[j];
            for (int t = 0; t < k; t++) {
                if (t != j) v = lc_gf_mul(field, v, lc_gf_sub(field, y[i], x[t]));
            }
            out[(size_t)i * k + j] = v;
        }
    }
    free(den);
    return LINCOLL_OK;
}

static lincoll_status_t lc_gf_check_rows(int n, int k, const int *rows, int cnt, int distinct,
                                         const char *what)
{
    if (rows == NULL) {
        lc_kerror("gf: %s: row list is NULL", what);
        return LINCOLL_ERR_INVALID;
    }
    for (int i = 0; i < cnt; i++) {
        if (rows[i] < 0 || rows[i] >= n) {
            lc_kerror("gf: %s: row %d = %d outside 0..%d", what, i, rows[i], n - 1);
            return LINCOLL_ERR_INVALID;
        }
        for (int j = 0; distinct && j < i; j++) {
            if (rows[j] == rows[i]) {
                lc_kerror("gf: %s: row %d listed twice", what, rows[i]);
                return LINCOLL_ERR_INVALID;
            }
        }
    }
    (void)k;
    return LINCOLL_OK;
}

lincoll_status_t lincoll_gf_matrix_decode(const lincoll_field_t *field, int n, int k,
                                          const uint64_t *gen, const int *survivors, uint64_t *out)
{
    if (!lc_gf_mx_check(field, out, n, k, "decode")) return LINCOLL_ERR_INVALID;
    if (gen == NULL || n < k) {
        lc_kerror("gf: decode: %s", gen == NULL ? "generator is NULL" : "n < k");
        return LINCOLL_ERR_INVALID;
    }
    lincoll_status_t status = lc_gf_check_rows(n, k, survivors, k, 1, "decode");
    if (status != LINCOLL_OK) return status;
    uint64_t *sub = malloc((size_t)k * k * sizeof(uint64_t));
    if (sub == NULL) {
        lc_kerror("gf: decode: out of memory");
        return LINCOLL_ERR_NOMEM;
    }
    for (int i = 0; i < k; i++) {
        memcpy(sub + (size_t)i * k, gen + (size_t)survivors[i] * k, (size_t)k * sizeof(uint64_t));
    }
    status = lc_gf_invert(field, k, sub, out);
    if (status == LINCOLL_ERR_SINGULAR) {
        lc_kerror("gf: decode: the %d surviving rows do not determine the data", k);
    }
    free(sub);
    return status;
}

lincoll_status_t lincoll_gf_matrix_recover(const lincoll_field_t *field, int n, int k,
                                           const uint64_t *gen, const int *survivors, int n_lost,
                                           const int *lost, uint64_t *out)
{
    if (!lc_gf_mx_check(field, out, n_lost, k, "recover")) return LINCOLL_ERR_INVALID;
    if (gen == NULL || n < k) {
        lc_kerror("gf: recover: %s", gen == NULL ? "generator is NULL" : "n < k");
        return LINCOLL_ERR_INVALID;
    }
    lincoll_status_t status = lc_gf_check_rows(n, k, lost, n_lost, 0, "recover");
    if (status != LINCOLL_OK) return status;
    uint64_t *dec = malloc(((size_t)k * k + (size_t)n_lost * k) * sizeof(uint64_t));
    if (dec == NULL) {
        lc_kerror("gf: recover: out of memory");
        return LINCOLL_ERR_NOMEM;
    }
    uint64_t *rows = dec + (size_t)k * k;
    status = lincoll_gf_matrix_decode(field, n, k, gen, survivors, dec);
    if (status == LINCOLL_OK) {
        for (int i = 0; i < n_lost; i++) {
            memcpy(rows + (size_t)i * k, gen + (size_t)lost[i] * k, (size_t)k * sizeof(uint64_t));
        }
        lc_gf_mx_mul(field, n_lost, k, k, rows, dec, out);
    }
    free(dec);
    return status;
}
