/**
 * @file gf.h
 * @brief Finite-field (GF(q)) arithmetic, linear-combination kernels and
 *        code matrices: the compute core of all-to-all encode and of erasure
 *        coding.
 *
 * Fields
 * ------
 * A field is built once with lincoll_gf_field_create() from its order q:
 * - q = 256: GF(2^8) with polynomial x^8+x^4+x^3+x^2+1 (0x11D, as ISA-L and
 *   Jerasure).  Elements are bytes.
 * - q = 65536: GF(2^16) with polynomial 0x1100B (as gf-complete).  Elements are
 *   16-bit little-endian words.
 * - q a prime below 2^31 (e.g. 65537, 998244353, 2^31-1): elements are 32-bit
 *   little-endian words holding values in [0, q).
 * - q = 2^64 - 2^32 + 1 (Goldilocks): elements are 64-bit little-endian words
 *   holding values in [0, q).
 *
 * Element layout
 * --------------
 * A buffer of @c len bytes holds len / lincoll_gf_field_elem_size() elements,
 * stored contiguously in the host (little-endian) byte order.  @c len must be a
 * multiple of the element size, and buffers of prime-field elements must be
 * aligned to the element size.  Prime-field elements must be reduced (< q):
 * kernels read them as is, and unreduced input gives unspecified (but
 * memory-safe) output.  Outputs are always reduced.
 *
 * Scalars are passed as @c uint64_t whatever the field.
 *
 * Kernels
 * -------
 * A coefficient matrix (r rows, k columns, row-major) is expanded once into a
 * ::lincoll_gf_coeffs_t (the analogue of ISA-L's ec_init_tables; the tables
 * serve every instruction set, so they do not depend on the dispatch).  Then
 * - lincoll_gf_lincomb(): dst_j = sum_i a_ji * src_i, for j < r, i < k
 *   (ISA-L ec_encode_data);
 * - lincoll_gf_mad(): dst_j += a_ji * src for one source column i
 *   (ISA-L ec_encode_data_update), for data that arrives one piece at a time.
 *
 * The instruction set is chosen at run time from the CPU (base, avx2, avx512,
 * gfni); LINCOLL_KERNEL_ISA=base|avx2|avx512|gfni forces a lower one.  All
 * variants give bit-identical results; for GF(2^8) the output equals ISA-L's
 * ec_encode_data for the same matrix.
 *
 * Matrices
 * --------
 * Matrices are row-major arrays of @c uint64_t field elements: Vandermonde,
 * Cauchy, systematic Reed-Solomon generators [I; P], DFT, Lagrange
 * interpolation, inverse, and decoding matrices for a set of surviving rows.
 *
 * Every function that can fail returns a ::lincoll_status_t and logs one line
 * naming the bad argument.  Functions are thread-safe; fields and coefficient
 * tables are immutable after creation and may be shared between threads.
 */
#ifndef LINCOLL_GF_H
#define LINCOLL_GF_H

#include <stddef.h>
#include <stdint.h>
#include <lincoll/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest number of sources (columns k) of a coefficient matrix. */
#define LINCOLL_GF_MAX_K 1024
/** Largest number of outputs (rows r) of a coefficient matrix. */
#define LINCOLL_GF_MAX_R 1024

/** Order of GF(2^8). */
#define LINCOLL_GF_Q_2_8 256u
/** Order of GF(2^16). */
#define LINCOLL_GF_Q_2_16 65536u
/** The Goldilocks prime 2^64 - 2^32 + 1. */
#define LINCOLL_GF_GOLDILOCKS 0xffffffff00000001ull

/** A finite field (opaque, immutable, thread-safe). */
typedef struct lincoll_field lincoll_field_t;

/** An expanded r x k coefficient matrix bound to a field (opaque, immutable). */
typedef struct lincoll_gf_coeffs lincoll_gf_coeffs_t;

/** How a systematic generator matrix is built (see lincoll_gf_matrix_systematic()). */
typedef enum lincoll_gf_rs_kind {
    /** [I; P] from a Vandermonde matrix on the points 0, 1, ..., n-1 (MDS). */
    LINCOLL_GF_RS_VANDERMONDE = 0,
    /** [I; C] with C the Cauchy matrix 1/(x_i - y_j) of lincoll_gf_matrix_cauchy()
     *  (MDS; for GF(2^8) equal to ISA-L gf_gen_cauchy1_matrix). */
    LINCOLL_GF_RS_CAUCHY = 1
} lincoll_gf_rs_kind_t;

/* ---------------------------------------------------------------- fields */

/**
 * @brief Build a field of order @p q.
 * @param [in]  q        256, 65536, a prime below 2^31, or ::LINCOLL_GF_GOLDILOCKS.
 * @param [out] field_p  the new field, destroy with lincoll_gf_field_destroy().
 * @return ::LINCOLL_OK; ::LINCOLL_ERR_INVALID if @p q is not a prime or prime
 *         power, or @p field_p is NULL; ::LINCOLL_ERR_UNSUPPORTED for a valid
 *         order this library does not implement (other powers of 2, primes in
 *         [2^31, 2^64) other than Goldilocks); ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_gf_field_create(uint64_t q, lincoll_field_t **field_p);

/**
 * @brief Release a field.  Coefficient tables built on it must be destroyed first.
 * @param [in] field the field, or NULL (no-op).
 */
LINCOLL_API void lincoll_gf_field_destroy(lincoll_field_t *field);

/**
 * @brief Order q of the field.
 * @param [in] field a field.
 * @return q, or 0 when @p field is NULL.
 */
LINCOLL_API uint64_t lincoll_gf_field_order(const lincoll_field_t *field);

/**
 * @brief Bytes per element in buffers: 1 (GF(2^8)), 2 (GF(2^16)), 4 (primes
 *        below 2^31) or 8 (Goldilocks).
 * @param [in] field a field.
 * @return the element size, or 0 when @p field is NULL.
 */
LINCOLL_API size_t lincoll_gf_field_elem_size(const lincoll_field_t *field);

/**
 * @brief Name of the kernel variant lincoll_gf_lincomb() runs for this field
 *        now, e.g. "gf8_gfni", "gf16_avx512", "gfp32_avx2", "gfp64_base".
 * @param [in] field a field.
 * @return a static string; "none" when @p field is NULL.
 */
LINCOLL_API const char *lincoll_gf_kernel_name(const lincoll_field_t *field);

/* ---------------------------------------------------------- scalar ops */

/**
 * @brief a + b.  Operands must be reduced (< q).
 * @param [in] field a field.
 * @param [in] a     element.
 * @param [in] b     element.
 * @return the sum.
 */
LINCOLL_API uint64_t lincoll_gf_add(const lincoll_field_t *field, uint64_t a, uint64_t b);

/**
 * @brief a - b.  Operands must be reduced (< q).
 * @param [in] field a field.
 * @param [in] a     element.
 * @param [in] b     element.
 * @return the difference (equal to a + b in characteristic 2).
 */
LINCOLL_API uint64_t lincoll_gf_sub(const lincoll_field_t *field, uint64_t a, uint64_t b);

/**
 * @brief a * b.  Operands must be reduced (< q).
 * @param [in] field a field.
 * @param [in] a     element.
 * @param [in] b     element.
 * @return the product.
 */
LINCOLL_API uint64_t lincoll_gf_mul(const lincoll_field_t *field, uint64_t a, uint64_t b);

/**
 * @brief Multiplicative inverse.
 * @param [in]  field a field.
 * @param [in]  a     a non-zero element.
 * @param [out] inv_p 1/a.
 * @return ::LINCOLL_OK; ::LINCOLL_ERR_INVALID when a is 0 or not reduced, or a
 *         pointer is NULL.
 */
LINCOLL_API lincoll_status_t lincoll_gf_inv(const lincoll_field_t *field, uint64_t a,
                                            uint64_t *inv_p);

/**
 * @brief a^e (with 0^0 = 1).
 * @param [in] field a field.
 * @param [in] a     element.
 * @param [in] e     exponent.
 * @return the power.
 */
LINCOLL_API uint64_t lincoll_gf_pow(const lincoll_field_t *field, uint64_t a, uint64_t e);

/**
 * @brief The smallest primitive element (generator of the multiplicative
 *        group): 2 for GF(2^8) and GF(2^16), 3 for 65537 and 998244353, 7 for
 *        Goldilocks.
 * @param [in] field a field.
 * @return the generator, or 0 when @p field is NULL.
 */
LINCOLL_API uint64_t lincoll_gf_primitive(const lincoll_field_t *field);

/**
 * @brief A primitive K-th root of unity: g^((q-1)/K) for the generator g.
 * @param [in]  field   a field.
 * @param [in]  K       order of the root; must divide q - 1.
 * @param [out] omega_p the root.
 * @return ::LINCOLL_OK; ::LINCOLL_ERR_INVALID when K is 0 or does not divide
 *         q - 1 (the log says so), or a pointer is NULL.
 */
LINCOLL_API lincoll_status_t lincoll_gf_root_of_unity(const lincoll_field_t *field, uint64_t K,
                                                      uint64_t *omega_p);

/* ------------------------------------------------- coefficients, kernels */

/**
 * @brief Expand an r x k coefficient matrix into kernel tables.
 * @param [in]  field    the field.
 * @param [in]  r        rows = outputs, 1 .. ::LINCOLL_GF_MAX_R.
 * @param [in]  k        columns = sources, 1 .. ::LINCOLL_GF_MAX_K.
 * @param [in]  matrix   r * k reduced elements, row-major (a_ji at [j*k + i]).
 * @param [out] coeffs_p the tables; destroy with lincoll_gf_coeffs_destroy().
 * @return ::LINCOLL_OK; ::LINCOLL_ERR_INVALID for NULL, r or k out of range or
 *         an unreduced element; ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_gf_coeffs_create(const lincoll_field_t *field, int r, int k,
                                                      const uint64_t *matrix,
                                                      lincoll_gf_coeffs_t **coeffs_p);

/**
 * @brief Release coefficient tables.
 * @param [in] coeffs the tables, or NULL (no-op).
 */
LINCOLL_API void lincoll_gf_coeffs_destroy(lincoll_gf_coeffs_t *coeffs);

/**
 * @brief Linear combination (encode): dst_j = sum_i a_ji * src_i for every
 *        output j < r.  Outputs are overwritten.
 * @param [in] coeffs tables of an r x k matrix.
 * @param [in] len    bytes per buffer, a multiple of the element size (0 is a no-op).
 * @param [in] src    k source buffers of @p len bytes.
 * @param [in] dst    r output buffers of @p len bytes; must not overlap the sources.
 * @return ::LINCOLL_OK; ::LINCOLL_ERR_INVALID for NULL pointers or a length
 *         that is not a multiple of the element size.
 */
LINCOLL_API lincoll_status_t lincoll_gf_lincomb(const lincoll_gf_coeffs_t *coeffs, size_t len,
                                                const void *const *src, void *const *dst);

/**
 * @brief Multiply-accumulate one source: dst_j += a_j,col * src for every j < r.
 *        Starting from zeroed outputs, calling it for col = 0 .. k-1 in any
 *        order gives the same result as lincoll_gf_lincomb().
 * @param [in]     coeffs tables of an r x k matrix.
 * @param [in]     len    bytes per buffer, a multiple of the element size.
 * @param [in]     col    the source's column, 0 .. k-1.
 * @param [in]     src    the source buffer.
 * @param [in,out] dst    r output buffers (reduced elements).
 * @return ::LINCOLL_OK; ::LINCOLL_ERR_INVALID for NULL pointers, a bad column
 *         or length.
 */
LINCOLL_API lincoll_status_t lincoll_gf_mad(const lincoll_gf_coeffs_t *coeffs, size_t len, int col,
                                            const void *src, void *const *dst);

/**
 * @brief One-shot encode of a systematic code: expands @p parity_matrix,
 *        runs lincoll_gf_lincomb() and releases the tables.  For repeated
 *        calls, keep a ::lincoll_gf_coeffs_t instead.
 * @param [in] field         the field.
 * @param [in] k             data buffers.
 * @param [in] m             parity buffers.
 * @param [in] parity_matrix m x k, row-major (the rows of [I; P] below I).
 * @param [in] len           bytes per buffer.
 * @param [in] data          k data buffers.
 * @param [in] parity        m parity buffers (written).
 * @return as lincoll_gf_coeffs_create() and lincoll_gf_lincomb().
 */
LINCOLL_API lincoll_status_t lincoll_gf_encode(const lincoll_field_t *field, int k, int m,
                                               const uint64_t *parity_matrix, size_t len,
                                               const void *const *data, void *const *parity);

/**
 * @brief Rebuild lost rows of a codeword from k survivors.
 *
 * The code is given by its n x k generator @p gen (row i produces buffer i of
 * the codeword: for [I; P], rows 0..k-1 are the data).  The rows listed in
 * @p survivors (k distinct indices, buffers in @p surv) are used to recompute
 * the @p n_lost rows listed in @p lost (buffers in @p out), data or parity.
 *
 * @param [in] field     the field.
 * @param [in] n         rows of the generator (k + m).
 * @param [in] k         columns of the generator.
 * @param [in] gen       n x k generator, row-major.
 * @param [in] survivors k distinct row indices < n.
 * @param [in] surv      k buffers, in the order of @p survivors.
 * @param [in] n_lost    rows to rebuild, 1 .. n.
 * @param [in] lost      row indices < n.
 * @param [in] len       bytes per buffer.
 * @param [in] out       @p n_lost output buffers.
 * @return ::LINCOLL_OK; ::LINCOLL_ERR_SINGULAR when the surviving rows do not
 *         determine the data; ::LINCOLL_ERR_INVALID; ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_gf_decode(const lincoll_field_t *field, int n, int k,
                                               const uint64_t *gen, const int *survivors,
                                               const void *const *surv, int n_lost, const int *lost,
                                               size_t len, void *const *out);

/* ------------------------------------------------------------- matrices */

/**
 * @brief Vandermonde matrix V[i][j] = x_i^j on the points x_i = i (0^0 = 1).
 * @param [in]  field the field.
 * @param [in]  rows  1 .. q (distinct points).
 * @param [in]  cols  >= 1.
 * @param [out] out   rows * cols elements.
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID.
 */
LINCOLL_API lincoll_status_t lincoll_gf_matrix_vandermonde(const lincoll_field_t *field, int rows,
                                                           int cols, uint64_t *out);

/**
 * @brief Cauchy matrix C[i][j] = 1 / (x_i - y_j) with x_i = cols + i and
 *        y_j = j.  Every square sub-matrix is invertible.
 * @param [in]  field the field.
 * @param [in]  rows  >= 1, with rows + cols <= q.
 * @param [in]  cols  >= 1.
 * @param [out] out   rows * cols elements.
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID.
 */
LINCOLL_API lincoll_status_t lincoll_gf_matrix_cauchy(const lincoll_field_t *field, int rows,
                                                      int cols, uint64_t *out);

/**
 * @brief Systematic generator [I; P] (n x k) of an MDS [n, k] code: any k rows
 *        are invertible.
 * @param [in]  field the field.
 * @param [in]  n     rows, k .. q (k + m).
 * @param [in]  k     columns, >= 1.
 * @param [in]  kind  how P is built.
 * @param [out] out   n * k elements; rows k .. n-1 are the parity matrix.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID or ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_gf_matrix_systematic(const lincoll_field_t *field, int n,
                                                          int k, lincoll_gf_rs_kind_t kind,
                                                          uint64_t *out);

/**
 * @brief DFT matrix F[i][j] = w^(i*j) for a primitive n-th root of unity w
 *        (lincoll_gf_root_of_unity()), or its inverse (w^-(i*j) / n).
 * @param [in]  field   the field.
 * @param [in]  n       size; must divide q - 1.
 * @param [in]  inverse non-zero for the inverse DFT.
 * @param [out] out     n * n elements.
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID (n does not divide q - 1).
 */
LINCOLL_API lincoll_status_t lincoll_gf_matrix_dft(const lincoll_field_t *field, int n, int inverse,
                                                   uint64_t *out);

/**
 * @brief Lagrange interpolation matrix: L[i][j] = l_j(y_i), where l_j is the
 *        Lagrange basis polynomial of the points @p x.  Multiplying the values
 *        of a polynomial of degree < k at @p x gives its values at @p y.
 * @param [in]  field the field.
 * @param [in]  k     number of points x, >= 1.
 * @param [in]  x     k distinct reduced elements.
 * @param [in]  r     number of points y, >= 1.
 * @param [in]  y     r reduced elements.
 * @param [out] out   r * k elements.
 * @return ::LINCOLL_OK; ::LINCOLL_ERR_INVALID (also for repeated x) or
 *         ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_gf_matrix_lagrange(const lincoll_field_t *field, int k,
                                                        const uint64_t *x, int r, const uint64_t *y,
                                                        uint64_t *out);

/**
 * @brief Invert an n x n matrix (Gauss-Jordan); @p in is not modified and may
 *        equal @p out.
 * @param [in]  field the field.
 * @param [in]  n     size, >= 1.
 * @param [in]  in    n * n elements.
 * @param [out] out   n * n elements (untouched on error).
 * @return ::LINCOLL_OK; ::LINCOLL_ERR_SINGULAR; ::LINCOLL_ERR_INVALID;
 *         ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_gf_matrix_invert(const lincoll_field_t *field, int n,
                                                      const uint64_t *in, uint64_t *out);

/**
 * @brief Matrix product out = a (r x n) * b (n x c).
 * @param [in]  field the field.
 * @param [in]  r     rows of a.
 * @param [in]  n     columns of a, rows of b.
 * @param [in]  c     columns of b.
 * @param [in]  a     r * n elements.
 * @param [in]  b     n * c elements.
 * @param [out] out   r * c elements; must not overlap a or b.
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID.
 */
LINCOLL_API lincoll_status_t lincoll_gf_matrix_mul(const lincoll_field_t *field, int r, int n,
                                                   int c, const uint64_t *a, const uint64_t *b,
                                                   uint64_t *out);

/**
 * @brief Decoding matrix for a set of surviving rows: the inverse of the
 *        k x k sub-matrix of @p gen made of rows @p survivors.  Data =
 *        out * (surviving buffers, in the order given).
 * @param [in]  field     the field.
 * @param [in]  n         rows of the generator.
 * @param [in]  k         columns of the generator.
 * @param [in]  gen       n x k generator.
 * @param [in]  survivors k distinct row indices < n.
 * @param [out] out       k * k elements.
 * @return ::LINCOLL_OK; ::LINCOLL_ERR_SINGULAR; ::LINCOLL_ERR_INVALID;
 *         ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_gf_matrix_decode(const lincoll_field_t *field, int n, int k,
                                                      const uint64_t *gen, const int *survivors,
                                                      uint64_t *out);

/**
 * @brief Recovery matrix: rows @p lost of @p gen times the decoding matrix of
 *        @p survivors, so that lost buffers = out * surviving buffers
 *        (what lincoll_gf_decode() runs; ISA-L's gf_gen_decode_matrix_simple).
 * @param [in]  field     the field.
 * @param [in]  n         rows of the generator.
 * @param [in]  k         columns of the generator.
 * @param [in]  gen       n x k generator.
 * @param [in]  survivors k distinct row indices < n.
 * @param [in]  n_lost    number of rows to rebuild, >= 1.
 * @param [in]  lost      row indices < n.
 * @param [out] out       n_lost * k elements.
 * @return ::LINCOLL_OK; ::LINCOLL_ERR_SINGULAR; ::LINCOLL_ERR_INVALID;
 *         ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_gf_matrix_recover(const lincoll_field_t *field, int n, int k,
                                                       const uint64_t *gen, const int *survivors,
                                                       int n_lost, const int *lost, uint64_t *out);

#ifdef __cplusplus
}
#endif
#endif
