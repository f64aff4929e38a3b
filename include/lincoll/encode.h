/**
 * @file encode.h
 * @brief All-to-all encode over finite fields (Wang & Raviv, "All-to-All
 *        Encode in Synchronous Systems", arXiv 2205.05183), and the storage
 *        collectives built on it: systematic Reed-Solomon encode and repair.
 *
 * Model
 * -----
 * A communicator of K ranks; rank j holds a packet x_j of @c packet_bytes
 * bytes (a vector of field elements, layout as in gf.h).  A K x K matrix A
 * over the field is known to every rank; rank k ends with
 *
 *     y_k = sum_j x_j * A[j][k]          (y = x A: column k of A is rank k's)
 *
 * Matrices are row-major arrays of @c uint64_t reduced elements:
 * A[j][k] is at index j*K + k.
 *
 * Every operation is a persistent plan (lincoll_plan.h): compiled once by an
 * `*_init` call, started with lincoll_start(), completed with lincoll_test()
 * or lincoll_wait(), started again any number of times (one plan encodes
 * millions of stripes).  Buffers are bound at init and must stay valid
 * while the plan lives; the field must outlive the plan.  All ranks must
 * make the same calls in the same order with the same arguments (field,
 * matrix, points, packet size, options).
 *
 * Cost
 * ----
 * lincoll_plan_stats() reports C1 (rounds) and C2 (sum over rounds of the
 * largest message) of the calling rank's plan; for encode plans the plan's
 * element is the packet, so @c c2_elems is C2 in packets, the unit of the
 * paper, and @c c2_bytes is C2 * packet_bytes.  The predicted time is
 * C1 * LINCOLL_MODEL_ALPHA + c2_bytes / LINCOLL_MODEL_BW + GF work /
 * LINCOLL_MODEL_COMPUTE_BW.
 *
 * Algorithms (::lincoll_encode_algo_t, or LINCOLL_ENCODE_ALGO)
 * -----------------------------------------------------------
 * - prepare_shoot: universal (any K, any p, any A) with the every-K fix of
 *   docs/encode.md, "Prepare-and-shoot" (pruned leaves, partition initialisation; the paper's
 *   final correction is wrong for e.g. K = 9..12, p = 1).
 *   C1 = ceil(log_{p+1} K).
 * - best_window: prepare-and-shoot with the window size m that minimises C2
 *   at the same C1 (docs/encode.md, "Windows and best_window"), e.g. K = 9,
 *   p = 1: C2 = 4 instead of 5.
 * - direct: baseline, every rank receives the packets it needs
 *   (ceil((K-1)/p) rounds of one packet) and encodes locally.
 * - specific: the schedule of the matrix family (DFT butterflies, coset
 *   Vandermonde, Lagrange by inverse DFT + DFT); only for the family inits.
 * - zcopy (lincoll_encode_init only): every rank's input packet is
 *   lincoll_mem_alloc memory and every rank maps every other's (one node,
 *   UCX shared memory): a "ready" flag round, one GF pass per rank reading
 *   the peers' packets straight out of their memory, a "done" flag round.
 *   No data message, no copy.  C1 = 2; C2 = the packets read from peers
 *   (K - 1 for a dense column), counted as moved data although no message
 *   carries them.  The choice is collective: at init every rank reports
 *   whether its packet is lincoll memory and whether it maps every peer
 *   (one allgather, a window exchange); unless all do, every rank takes
 *   the tag algorithms.  When every rank's output is lincoll memory too,
 *   the plan is "zcopy_split": rank k computes segment k (of K) of every
 *   output, reading segment k of every input and storing into the peers'
 *   outputs: each rank's pass reads and writes one packet's worth instead
 *   of reading K packets (C2 = 2 (K - 1) segments, one packet at K = 2).  Not with
 * LINCOLL_ENCODE_CHECKSUM, never chunked; ranks driven from one thread (sim) never agree at init,
 * so there the public init falls back.
 * - auto (default): the cheapest prediction among those that apply.
 * LINCOLL_ENCODE_ALGO=auto|prepare_shoot|best_window|direct|specific|zcopy forces
 * one when the options leave the algorithm at ::LINCOLL_ENCODE_ALGO_AUTO; an
 * unknown value is ::LINCOLL_ERR_INVALID naming the variable.  "specific"
 * or "zcopy" on a call where it cannot run falls back to auto with one
 * warning (or ::LINCOLL_ERR_UNSUPPORTED under LINCOLL_ALGO_FALLBACK=error).
 *
 * Chunk pipelining
 * ----------------
 * A large packet is split into chunks of @c chunk_bytes (the last one may be
 * shorter) and the schedule runs once per chunk, round-major: global round
 * t*n + c carries round t of chunk c (n chunks).  The GF work that follows a
 * round of chunk c (the `mad` folds of the shoot phase, the local lincombs)
 * runs while the next global round's transfers, those of another chunk, are
 * in flight (LC_STEP_DURING), so compute and communication overlap.  Bytes
 * moved and C2 in bytes are unchanged; the message rounds become n * C1.
 * lincoll_plan_stats() still reports the schedule's per-packet C1 and C2 (the
 * paper's figures); its msgs_sent/msgs_recvd count the real messages, and
 * predicted_us is the pipelined prediction.  lincoll_encode_chunks() tells the
 * chunking of a plan.  Chunk size: lincoll_encode_opts_t::chunk_bytes, else
 * LINCOLL_ENCODE_CHUNK, else (0) the cost model: the n that minimises
 * sum over global rounds of alpha + max(transfer, overlapped GF work) for one
 * packet moved and folded per round (the same on every rank; about
 * sqrt(B min(beta, gamma) / (C1 alpha)) chunks), with chunks of at least
 * 1 MiB (so packets under 2 MiB are never chunked).
 * Chunks are buffers' byte ranges: scratch packets are laid out chunk-major
 * so every message of a chunk stays one contiguous block.
 *
 * Repair with the k survivors only
 * --------------------------------
 * lincoll_encode_repair_k_init() runs on a communicator that holds exactly
 * the k surviving chunk holders of an [n, k] code and the r ranks that
 * rebuild (replacements, or a reader that decodes a missing data chunk: a
 * degraded read), e.g. from lincoll_comm_split().  Three schedules
 * (::lincoll_repair_algo_t, or LINCOLL_REPAIR_ALGO), m = packet bytes:
 * - star: every rebuilding rank gathers the k chunks and decodes;
 *   ceil(k/p) rounds of alpha + m beta at its link.
 * - tree (PPR, Mitra et al., EuroSys '16): each survivor scales its chunk by
 *   its decoding coefficient and partial sums are added up a (p+1)-nomial
 *   tree rooted at the rebuilding rank: ceil(log_{p+1}(k+1)) rounds of
 *   alpha + m beta.
 * - chain (ECPipe, Li et al., USENIX ATC '17): the chunk is cut into S
 *   slices that flow survivor -> survivor -> rebuilding rank, each survivor
 *   adding its term; slice c + 1 arrives while slice c leaves:
 *   (k + S - 1)(alpha + m beta / S), about one chunk's transfer time.
 * With r > 1 the messages of tree and chain carry the r partial sums (a
 * vector of coefficients); the chain then runs on through the rebuilding
 * ranks, each keeping its own.  lincoll_encode_repair_cost() gives the
 * closed forms; auto (the default) takes the cheapest.
 * lincoll_encode_repair_init() (every rank of the stripe) takes these
 * schedules when its communicator is exactly the survivors and the lost
 * ranks and no universal algorithm is forced.
 *
 * Errors
 * ------
 * Bad arguments give ::LINCOLL_ERR_INVALID and one log line naming the
 * argument, on every rank that passed them (every rank, when the arguments
 * match as they must); a singular repair set gives ::LINCOLL_ERR_SINGULAR.
 * Ranks whose packet sizes disagree get ::LINCOLL_ERR_MISMATCH, or
 * ::LINCOLL_ERR_TIMEOUT after LINCOLL_TIMEOUT on ranks left waiting.
 */
#ifndef LINCOLL_ENCODE_H
#define LINCOLL_ENCODE_H

#include <stddef.h>
#include <stdint.h>
#include <lincoll/context.h>
#include <lincoll/gf.h>
#include <lincoll/plan.h>
#include <lincoll/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Encode algorithm (see the file documentation). */
typedef enum lincoll_encode_algo {
    LINCOLL_ENCODE_ALGO_AUTO = 0,      /**< cost model, or LINCOLL_ENCODE_ALGO */
    LINCOLL_ENCODE_ALGO_PREPARE_SHOOT, /**< universal, paper's window m = (p+1)^T_p, every-K fix */
    LINCOLL_ENCODE_ALGO_BEST_WINDOW,   /**< universal, window minimising C2 */
    LINCOLL_ENCODE_ALGO_DIRECT,        /**< baseline: gather what is needed, encode locally */
    LINCOLL_ENCODE_ALGO_SPECIFIC,      /**< the matrix family's own schedule (DFT, ...) */
    LINCOLL_ENCODE_ALGO_ZCOPY, /**< one node, lincoll memory: read the peers' packets in place */
    LINCOLL_ENCODE_ALGO_ZCOPY_SPLIT, /**< zcopy, outputs in lincoll memory too: rank k computes
                                          segment k of every output */
    LINCOLL_ENCODE_ALGO_LAST
} lincoll_encode_algo_t;

/** lincoll_encode_opts_t::chunk_bytes: never split the packet into chunks. */
#define LINCOLL_ENCODE_CHUNK_NONE ((size_t)-1)

/** Options common to every encode init (NULL = all defaults). */
typedef struct lincoll_encode_opts {
    int ports;                  /**< p >= 1; 0 = the context's default */
    lincoll_encode_algo_t algo; /**< ::LINCOLL_ENCODE_ALGO_AUTO = model or environment */
    /** bytes per pipelined chunk (rounded up to a multiple of 64); 0 = LINCOLL_ENCODE_CHUNK
     *  (whose 0 = the cost model's choice); ::LINCOLL_ENCODE_CHUNK_NONE or a value
     *  >= packet_bytes: one chunk.  Must be equal on every rank. */
    size_t chunk_bytes;
    /** operation tag: 0 = the communicator's start order; 1..::LINCOLL_TAG_MAX =
     *  this operation's name on the communicator (see ::LINCOLL_TAG_MAX).  Equal on
     *  every rank. */
    uint64_t tag;
} lincoll_encode_opts_t;

/** Flags of lincoll_encode_dft_init(). */
enum {
    /** rank k gets f(w^k) instead of f(w^rev(k)) (rev: base-(p+1) digit reversal) */
    LINCOLL_ENCODE_DFT_NATURAL = 1,
    /** the inverse transform: w^-1 and a factor 1/K */
    LINCOLL_ENCODE_DFT_INVERSE = 2
};

/**
 * @brief Name of an algorithm ("auto", "prepare_shoot", "best_window",
 *        "direct", "specific", "zcopy").
 * @param [in] algo any value.
 * @return a static string ("unknown" for values out of range).
 */
LINCOLL_API const char *lincoll_encode_algo_name(lincoll_encode_algo_t algo);

/**
 * @brief All-to-all encode with any K x K matrix (universal algorithms).
 *
 * Rank k ends with out = sum_j x_j A[j][k].  The schedule depends only on K
 * and p (direct: also on the zero pattern of A); the coefficients are
 * computed from A at init.
 * @param [in]  comm         communicator of K ranks.
 * @param [in]  field        the field (must outlive the plan).
 * @param [in]  A            K x K reduced elements, row-major (A[j*K + k]); each
 *                           rank checks the entries it uses (an unreduced one
 *                           fails those ranks with ::LINCOLL_ERR_INVALID).
 * @param [in]  rows         rows of @p A; must equal K.
 * @param [in]  cols         columns of @p A; must equal K.
 * @param [in]  packet_bytes bytes of every packet, > 0, a multiple of the
 *                           field's element size; equal on every rank.
 * @param [in]  in           this rank's packet x_k (@p packet_bytes).
 * @param [out] out          this rank's result y_k; must not overlap @p in.
 * @param [in]  opts         options, or NULL.
 * @param [out] plan_p       the plan.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID, ::LINCOLL_ERR_UNSUPPORTED or
 *         ::LINCOLL_ERR_NOMEM; when the zcopy agreement runs (see above),
 *         ::LINCOLL_ERR_MISMATCH if ranks passed other K, packet sizes or
 *         options, or a transport error (::LINCOLL_ERR_PEER_FAILED for a dead
 *         peer, ::LINCOLL_ERR_TIMEOUT for one that does not reach the init
 *         within LINCOLL_TIMEOUT), the same on every rank.
 */
LINCOLL_API lincoll_status_t lincoll_encode_init(lincoll_comm_t *comm, const lincoll_field_t *field,
                                                 const uint64_t *A, int rows, int cols,
                                                 size_t packet_bytes, const void *in, void *out,
                                                 const lincoll_encode_opts_t *opts,
                                                 lincoll_plan_t **plan_p);

/**
 * @brief DFT: rank k ends with f(w^rev(k)) where f(z) = sum_j x_j z^j, w =
 *        lincoll_gf_root_of_unity(field, K) and rev reverses the L base-(p+1)
 *        digits of k (K = (p+1)^L); with ::LINCOLL_ENCODE_DFT_NATURAL, f(w^k).
 *
 * Specific algorithm: radix-(p+1) decimation in frequency, one packet per
 * port per round, C1 = C2 = L (optimal); the natural order adds one
 * permutation round when L >= 2.  Digit-reversed order needs K = (p+1)^L.
 * Example (K = 4, p = 1, q = 5, w = 2): x = (1,2,3,4) gives (0,3,4,2);
 * natural order gives (0,4,3,2).
 * @param [in]  comm         communicator of K ranks, K | q - 1.
 * @param [in]  field        the field.
 * @param [in]  flags        ::LINCOLL_ENCODE_DFT_NATURAL, ::LINCOLL_ENCODE_DFT_INVERSE.
 * @param [in]  packet_bytes as lincoll_encode_init().
 * @param [in]  in           x_k.
 * @param [out] out          the transform at this rank's point.
 * @param [in]  opts         options, or NULL.
 * @param [out] plan_p       the plan.
 * @return ::LINCOLL_OK; ::LINCOLL_ERR_INVALID when the field has no K-th root
 *         of unity (K does not divide q - 1), or digit-reversed order is asked
 *         for K not a power of p + 1, or another argument is bad;
 *         ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_encode_dft_init(lincoll_comm_t *comm,
                                                     const lincoll_field_t *field, int flags,
                                                     size_t packet_bytes, const void *in, void *out,
                                                     const lincoll_encode_opts_t *opts,
                                                     lincoll_plan_t **plan_p);

/**
 * @brief Vandermonde (Reed-Solomon evaluation): rank k ends with f(a_k) =
 *        sum_j x_j a_k^j.
 *
 * With @p points NULL the points are a union of Z cosets of the M-th roots of
 * unity, M = the largest power of p+1 dividing K and q - 1 (K = Z M):
 * a_{zM+l} = g^z w^rev(l), g the field's generator; the specific algorithm
 * runs prepare-and-shoot inside each residue class then size-M DFTs inside
 * each block: C1 = ceil(log_{p+1} K), C2 = C2_best(Z) + log_{p+1} M.  Given
 * points use a universal algorithm.
 * @param [in]  comm         communicator of K ranks.
 * @param [in]  field        the field (K <= q - 1 when @p points is NULL).
 * @param [in]  points       K distinct reduced elements, or NULL.
 * @param [out] points_out   K elements: the points used (may be NULL).
 * @param [in]  packet_bytes as lincoll_encode_init().
 * @param [in]  in           x_k.
 * @param [out] out          f(a_k).
 * @param [in]  opts         options, or NULL.
 * @param [out] plan_p       the plan.
 * @return ::LINCOLL_OK; ::LINCOLL_ERR_INVALID (also for repeated points);
 *         ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_encode_vandermonde_init(
    lincoll_comm_t *comm, const lincoll_field_t *field, const uint64_t *points,
    uint64_t *points_out, size_t packet_bytes, const void *in, void *out,
    const lincoll_encode_opts_t *opts, lincoll_plan_t **plan_p);

/**
 * @brief Lagrange encode (Lagrange coded computing): rank i holds u(b_i) of
 *        the polynomial u of degree < K and ends with u(a_i).
 *
 * A[i][k] = l_i(a_k), l_i the Lagrange basis of the points b.  With both
 * point sets NULL, K = (p+1)^L and K | q - 1 with q > 2K: b_i = w^rev(i),
 * a_k = g w^rev(k); the specific algorithm is an inverse DFT then a DFT,
 * C1 = C2 = 2L.  Otherwise a universal algorithm on A (C1 = ceil(log_{p+1} K)).
 * @param [in]  comm         communicator of K ranks.
 * @param [in]  field        the field.
 * @param [in]  interp       K distinct points b, or NULL (both NULL: roots of unity).
 * @param [in]  eval         K points a, or NULL (both NULL: a coset).
 * @param [out] interp_out   K elements: the b used (may be NULL).
 * @param [out] eval_out     K elements: the a used (may be NULL).
 * @param [in]  packet_bytes as lincoll_encode_init().
 * @param [in]  in           u(b_k).
 * @param [out] out          u(a_k).
 * @param [in]  opts         options, or NULL.
 * @param [out] plan_p       the plan.
 * @return ::LINCOLL_OK; ::LINCOLL_ERR_INVALID (repeated interpolation points,
 *         only one point set NULL with K not eligible for the default, ...);
 *         ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_encode_lagrange_init(
    lincoll_comm_t *comm, const lincoll_field_t *field, const uint64_t *interp,
    const uint64_t *eval, uint64_t *interp_out, uint64_t *eval_out, size_t packet_bytes,
    const void *in, void *out, const lincoll_encode_opts_t *opts, lincoll_plan_t **plan_p);

/**
 * @brief Systematic [N, k] Reed-Solomon encode for storage: ranks 0..k-1 hold
 *        data packets, ranks k..N-1 (N = communicator size) each receive one
 *        parity packet: parity_r = sum_j data_j G[k+r][j], G = @p gen or
 *        lincoll_gf_matrix_systematic(field, N, k, kind).
 *
 * Runs as an N-rank all-to-all encode whose matrix is zero except the
 * parity block (universal algorithms or direct, by the cost model).
 * @param [in]  comm         communicator of N ranks, k < N.
 * @param [in]  field        the field (N <= q).
 * @param [in]  k            data ranks, 1 .. N-1.
 * @param [in]  kind         how the generator is built when @p gen is NULL.
 * @param [in]  gen          N x k generator (rows k.. are the parity matrix), or NULL.
 * @param [in]  packet_bytes as lincoll_encode_init().
 * @param [in]  in           data ranks: the data packet; ignored on parity ranks.
 * @param [out] out          parity ranks: the parity packet; ignored on data ranks.
 * @param [in]  opts         options, or NULL.
 * @param [out] plan_p       the plan.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID or ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_encode_rs_init(lincoll_comm_t *comm,
                                                    const lincoll_field_t *field, int k,
                                                    lincoll_gf_rs_kind_t kind, const uint64_t *gen,
                                                    size_t packet_bytes, const void *in, void *out,
                                                    const lincoll_encode_opts_t *opts,
                                                    lincoll_plan_t **plan_p);

/**
 * @brief Repair: rebuild the packets of lost ranks of an [N, k] systematic
 *        code (as lincoll_encode_rs_init()) from k surviving ranks.
 *
 * Rank i of the communicator stands for codeword row i.  The decoding
 * matrix (rows @p lost of G times the inverse of rows @p survivors,
 * lincoll_gf_matrix_recover()) is computed at init on every rank; then an
 * N-rank all-to-all encode moves and combines the packets.  When the
 * communicator is exactly the survivors and the lost ranks (k + n_lost = N)
 * and no universal algorithm is forced (@p opts and LINCOLL_ENCODE_ALGO
 * auto or specific), the repair runs as lincoll_encode_repair_k_init() does
 * (star, tree or chain; plan names "repair_*"), with @c chunk_bytes (else
 * LINCOLL_ENCODE_CHUNK) as the slice.
 * @param [in]  comm         communicator of N ranks.
 * @param [in]  field        the field.
 * @param [in]  k            data rows.
 * @param [in]  kind         as in lincoll_encode_rs_init().
 * @param [in]  gen          as in lincoll_encode_rs_init() (NULL: built from @p kind).
 * @param [in]  survivors    k distinct ranks whose packets are used.
 * @param [in]  n_lost       number of ranks to rebuild, >= 1.
 * @param [in]  lost         distinct ranks, none of them a survivor.
 * @param [in]  packet_bytes as lincoll_encode_init().
 * @param [in]  in           survivors: their packet; ignored elsewhere.
 * @param [out] out          lost ranks: the rebuilt packet; ignored elsewhere.
 * @param [in]  opts         options, or NULL.
 * @param [out] plan_p       the plan.
 * @return ::LINCOLL_OK; ::LINCOLL_ERR_SINGULAR when the survivors do not
 *         determine the data; ::LINCOLL_ERR_INVALID; ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_encode_repair_init(
    lincoll_comm_t *comm, const lincoll_field_t *field, int k, lincoll_gf_rs_kind_t kind,
    const uint64_t *gen, const int *survivors, int n_lost, const int *lost, size_t packet_bytes,
    const void *in, void *out, const lincoll_encode_opts_t *opts, lincoll_plan_t **plan_p);

/** Repair schedule of lincoll_encode_repair_k_init() (see "Repair with the k survivors only"). */
typedef enum lincoll_repair_algo {
    LINCOLL_REPAIR_ALGO_AUTO = 0, /**< the cost model, or LINCOLL_REPAIR_ALGO */
    LINCOLL_REPAIR_ALGO_STAR,     /**< every rebuilding rank gathers the k chunks and decodes */
    LINCOLL_REPAIR_ALGO_TREE,     /**< PPR: scaled chunks summed up a (p+1)-nomial tree */
    LINCOLL_REPAIR_ALGO_CHAIN,    /**< ECPipe: slices pass along the survivors, adding terms */
    LINCOLL_REPAIR_ALGO_LAST
} lincoll_repair_algo_t;

/** Options of lincoll_encode_repair_k_init() (NULL = all defaults). */
typedef struct lincoll_repair_opts {
    int ports;                  /**< p >= 1; 0 = the context's default */
    lincoll_repair_algo_t algo; /**< ::LINCOLL_REPAIR_ALGO_AUTO = model or LINCOLL_REPAIR_ALGO */
    /** bytes per slice of the chain (per pipelined chunk of star and tree), rounded up to a
     *  multiple of 64; 0 = LINCOLL_REPAIR_SLICE (whose 0 = the cost model);
     *  ::LINCOLL_ENCODE_CHUNK_NONE or a value >= packet_bytes: one slice.  Equal on every
     *  rank. */
    size_t slice_bytes;
    /** operation tag: 0 = the communicator's start order; 1..::LINCOLL_TAG_MAX =
     *  this operation's name on the communicator (see ::LINCOLL_TAG_MAX).  Equal on
     *  every rank. */
    uint64_t tag;
} lincoll_repair_opts_t;

/** Closed-form figures of a repair schedule (lincoll_encode_repair_cost()). */
typedef struct lincoll_repair_cost {
    unsigned rounds;          /**< global message rounds */
    unsigned slices;          /**< S: pieces the chunk is cut into (1: not cut) */
    size_t slice_bytes;       /**< bytes of every slice but the last */
    uint64_t msgs_total;      /**< messages all ranks send per start */
    uint64_t bytes_total;     /**< bytes all ranks send per start */
    uint64_t max_msgs_sent;   /**< the most messages one rank sends */
    uint64_t max_bytes_sent;  /**< the most bytes one rank sends (its link out) */
    uint64_t max_msgs_recvd;  /**< the most messages one rank receives */
    uint64_t max_bytes_recvd; /**< the most bytes one rank receives (its link in) */
    double seconds;           /**< predicted time of one start (LINCOLL_MODEL_*) */
} lincoll_repair_cost_t;

/**
 * @brief Name of a repair schedule ("auto", "star", "tree", "chain").
 * @param [in] algo any value.
 * @return a static string ("unknown" for values out of range).
 */
LINCOLL_API const char *lincoll_repair_algo_name(lincoll_repair_algo_t algo);

/**
 * @brief Repair on the k survivors and the rebuilding ranks only: rebuild
 *        codeword rows of an [n, k] systematic code (as
 *        lincoll_encode_rs_init()) from k surviving rows.
 *
 * The communicator holds exactly the ranks that take part: k ranks that
 * hold a surviving row (@p holds) and r >= 1 ranks that rebuild one
 * (@p needs): replacements of lost chunks, or a reader that decodes a
 * missing data chunk (a degraded read; the reader need not be a member of
 * the code).  One rank may both hold a row and need another (a member that
 * reads a lost data chunk).  The decoding coefficients (rows @p needs of G
 * times the inverse of rows @p holds, lincoll_gf_matrix_recover()) are
 * computed at init on every rank; the schedule (star, tree or chain, see
 * the file documentation) comes from @p opts, LINCOLL_REPAIR_ALGO or the
 * cost model (lincoll_encode_repair_cost()).  Plan names: "repair_star",
 * "repair_tree", "repair_chain".
 * @param [in]  comm         the k holders and the r rebuilding ranks, nothing else
 *                           (e.g. from lincoll_comm_split()).
 * @param [in]  field        the field (must outlive the plan).
 * @param [in]  n            codeword rows (rows of the generator), 2 .. q for
 *                           generated matrices.
 * @param [in]  k            data rows, 1 .. n-1.
 * @param [in]  kind         how the generator is built when @p gen is NULL.
 * @param [in]  gen          n x k generator, or NULL.
 * @param [in]  holds        one entry per communicator rank: the codeword row it
 *                           holds and gives, or -1; exactly k entries are rows,
 *                           all distinct.
 * @param [in]  needs        one entry per communicator rank: the codeword row it
 *                           rebuilds, or -1; distinct, none held by a rank.  Every
 *                           rank holds or needs a row; at most one rank does both.
 * @param [in]  packet_bytes bytes of every chunk, > 0, a multiple of the
 *                           field's element size; equal on every rank.
 * @param [in]  in           holders: their chunk; ignored elsewhere.
 * @param [out] out          rebuilding ranks: the rebuilt chunk (must not overlap
 *                           @p in); ignored elsewhere.
 * @param [in]  opts         options, or NULL.
 * @param [out] plan_p       the plan.
 * @return ::LINCOLL_OK; ::LINCOLL_ERR_SINGULAR when the held rows do not
 *         determine the data; ::LINCOLL_ERR_INVALID (a bad argument, a
 *         repeated row, a rank that neither holds nor needs a row, a count of
 *         holders other than k), with one log line naming the argument, alike
 *         on every rank; ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_encode_repair_k_init(
    lincoll_comm_t *comm, const lincoll_field_t *field, int n, int k, lincoll_gf_rs_kind_t kind,
    const uint64_t *gen, const int *holds, const int *needs, size_t packet_bytes, const void *in,
    void *out, const lincoll_repair_opts_t *opts, lincoll_plan_t **plan_p);

/**
 * @brief Closed-form figures of a repair schedule without building a plan
 *        (what lincoll_encode_repair_k_init() compares, and what the sim
 *        transport measures for its plans).
 * @param [in]  ctx          context whose model (LINCOLL_MODEL_*) prices the
 *                           schedule, or NULL: the configuration table read now.
 * @param [in]  k            holders >= 1.
 * @param [in]  r            rebuilding ranks >= 1.
 * @param [in]  both         1 when one rebuilding rank is also a holder, else 0.
 * @param [in]  ports        p >= 1.
 * @param [in]  packet_bytes chunk bytes > 0.
 * @param [in]  algo         a schedule, or ::LINCOLL_REPAIR_ALGO_AUTO for the one
 *                           the model picks (its figures).
 * @param [in]  slice_bytes  as lincoll_repair_opts_t::slice_bytes, except that 0
 *                           means the model's choice.
 * @param [out] algo_p       the schedule described (may be NULL).
 * @param [out] cost         the figures.
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID.
 */
LINCOLL_API lincoll_status_t lincoll_encode_repair_cost(lincoll_context_t *ctx, int k, int r,
                                                        int both, int ports, size_t packet_bytes,
                                                        lincoll_repair_algo_t algo,
                                                        size_t slice_bytes,
                                                        lincoll_repair_algo_t *algo_p,
                                                        lincoll_repair_cost_t *cost);

/**
 * @brief Closed-form cost of an algorithm, without building a plan (the
 *        figures lincoll_plan_stats() reports for the plan, and what the
 *        selection compares).
 * @param [in]  K      group size >= 1.
 * @param [in]  ports  p >= 1.
 * @param [in]  algo   ::LINCOLL_ENCODE_ALGO_PREPARE_SHOOT, _BEST_WINDOW, _DIRECT or
 *                     _ZCOPY (C1 = 2 flag rounds, C2 = K - 1 packets read from peers).
 * @param [out] c1_p   rounds (may be NULL).
 * @param [out] c2_p   C2 in packets (may be NULL).
 * @param [out] window_p prepare-and-shoot window m (may be NULL; 0 for direct).
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID.
 */
LINCOLL_API lincoll_status_t lincoll_encode_cost(int K, int ports, lincoll_encode_algo_t algo,
                                                 unsigned *c1_p, uint64_t *c2_p, int *window_p);

/**
 * @brief Chunking of an encode plan (see "Chunk pipelining" above).
 * @param [in]  plan        a plan from one of the encode inits.
 * @param [out] nchunks_p   chunks (1: not chunked); may be NULL.
 * @param [out] chunk_bytes_p bytes of every chunk but the last (the packet size
 *                          when not chunked); may be NULL.
 * @return ::LINCOLL_OK, or ::LINCOLL_ERR_INVALID when @p plan is NULL or not an
 *         encode plan.
 */
LINCOLL_API lincoll_status_t lincoll_encode_chunks(const lincoll_plan_t *plan, unsigned *nchunks_p,
                                                   size_t *chunk_bytes_p);

#ifdef __cplusplus
}
#endif
#endif
