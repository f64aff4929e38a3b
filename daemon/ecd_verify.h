/*
 * daemon/ecd_verify.h: secret linear fingerprints of the chunks that cross
 * UCX (docs/daemon.md, "What crosses UCX").
 *
 * UCX neither encrypts nor authenticates: a byte changed on the wire during
 * a put's encode collective or a repair collective would reach a chunk whose
 * CRC32C the receiver computes itself, and a CRC is linear, so anyone who can
 * change bytes can keep it.  Every group operation therefore draws a fresh
 * secret key (128 bits, /dev/urandom) that travels only on the TCP control
 * connections (the daemons' protected connections), never over UCX.  From it
 * both sides compute a fingerprint of a chunk:
 *
 *   the chunk (zero-padded) is cut into segments of ECD_FP_W bytes,
 *   Y_i = sum_s c_{i,s} * segment_s       (i < ECD_FP_T; the GF(2^8) kernel)
 *   fp_i = sum_w d_{i,w} * Y_i[w]
 *
 * with the coefficients c and d expanded from the key by SHA-256 in counter
 * mode.  fp is GF(2^8)-linear in the chunk, so the fingerprint of a parity
 * row is that code row applied to the data rows' fingerprints: the
 * coordinator checks every chunk computed by a collective from what it
 * already holds.  For any alteration e != 0 chosen without the key, each
 * fp_i of e is zero with probability at most 2/256 (c^T E = 0 with
 * probability <= 1/256, then (c^T E) d = 0 with probability 1/256), so a
 * forged or damaged chunk passes with probability at most (2/256)^8 = 2^-56.
 */
#ifndef ECD_VERIFY_H
#define ECD_VERIFY_H

#include "daemon/ecd.h"

#include <lincoll/lincoll.h>

#include <stddef.h>
#include <stdint.h>

#define ECD_FP_T     8    /* outputs (bytes of a fingerprint) */
#define ECD_FP_W     4096 /* bytes per segment (the kernel's speed: 1 KiB ran 4x slower) */
#define ECD_FP_BATCH 32   /* segments per kernel call */
#define ECD_VKEY     16   /* bytes of an operation's key */

/** An operation's key and the coefficients expanded from it (the d's). */
typedef struct ecd_vkey {
    uint8_t key[ECD_VKEY];
    uint8_t d[ECD_FP_T][ECD_FP_W];
} ecd_vkey_t;

typedef struct ecd_fp {
    uint8_t v[ECD_FP_T];
} ecd_fp_t;

/** A fingerprint computed as the chunk streams in (pieces of any size). */
typedef struct ecd_fp_acc {
    const ecd_vkey_t *key;
    const lincoll_field_t *gf;
    uint64_t seg;                  /* segments consumed */
    uint8_t y[ECD_FP_T][ECD_FP_W]; /* the Y_i */
    uint8_t part[ECD_FP_W];        /* a segment begun */
    size_t fill;
    int failed;
} ecd_fp_acc_t;

/** A fresh random key (from /dev/urandom); 0, or -1. */
int ecd_vkey_new(ecd_vkey_t *k);
/** Expand key bytes (k->key filled) into the coefficients. */
void ecd_vkey_expand(ecd_vkey_t *k);
/** Hex text of the key (2 * ECD_VKEY + 1 bytes) and back (0 / -1). */
void ecd_vkey_hex(const ecd_vkey_t *k, char *out);
int ecd_vkey_parse(ecd_vkey_t *k, const char *hex);

void ecd_fp_init(ecd_fp_acc_t *a, const lincoll_field_t *gf, const ecd_vkey_t *key);
/** The next len bytes of the chunk.  0, or -1 (a kernel failed; the
 * fingerprint is then unusable and ecd_fp_final fails too). */
int ecd_fp_update(ecd_fp_acc_t *a, const void *data, size_t len);
int ecd_fp_final(ecd_fp_acc_t *a, ecd_fp_t *out);
/** The fingerprint of a whole buffer. */
int ecd_fp(const lincoll_field_t *gf, const ecd_vkey_t *key, const void *data, size_t len,
           ecd_fp_t *out);
/** out = sum_j coef[j] * in[j] (a code row applied to fingerprints). */
void ecd_fp_combine(const lincoll_field_t *gf, const uint64_t *coef, int n, const ecd_fp_t *in,
                    ecd_fp_t *out);
void ecd_fp_hex(const ecd_fp_t *f, char *out); /* 2 * ECD_FP_T + 1 bytes */
int ecd_fp_parse(ecd_fp_t *f, const char *hex);
int ecd_fp_equal(const ecd_fp_t *a, const ecd_fp_t *b);

/* ---- protocol words ---------------------------------------------------------
 * The coordinator adds "verify=KEYHEX" as the last word of an operation's
 * ENCODE or REPAIR line (on the TCP session); a member that finds it there
 * takes it off (returns the new word count) and fingerprints what it
 * receives from the collective. */
int ecd_verify_take_key(char **w, int nw, ecd_vkey_t *key, int *have);

/* ---- test hooks (lincoll-ecd --test-alter-transfer N, --test-no-verify) --- */
/** --test-no-verify: coordinators send no key (nothing is checked). */
extern int ecd_verify_off;
/** --test-alter-transfer N: the N-th piece of a chunk this daemon receives
 * from a collective (1-based; 0: none) has bytes changed as if on the wire,
 * keeping its CRC32C (a forgery, not noise). */
extern long ecd_verify_alter_at;
/** Called on every piece received from a collective; alters the N-th.
 * Returns 1 when it altered this one. */
int ecd_verify_test_alter(void *buf, size_t len, const char *what);

/* ---- the daemon's hooks (ecd_verify_op.c; lincoll-ecd only) ---------------
 * Every function accepts NULL for "not verified" (--test-no-verify, or no
 * collective in the operation) and then does nothing. */
typedef struct ecd_vput ecd_vput_t;
typedef struct ecd_vmember ecd_vmember_t;
typedef struct ecd_vrepair ecd_vrepair_t;

/** Coordinator of a put: a fresh key when a collective runs. */
ecd_vput_t *vput_begin(int k, int collective);
/** " verify=KEY" for the ENCODE lines, or "". */
void vput_word(const ecd_vput_t *v, char *out, size_t cap);
/** The k data pieces of the next stripe (w bytes each). */
void vput_data(ecd_vput_t *v, const void *const *src, uint64_t w);
/** Row's READY: its third word ("fp=HEX"; NULL when none) against the code
 * row G[row] applied to the data rows' values.  0, or -1 (why). */
int vput_check(ecd_vput_t *v, const uint64_t *G, int row, const char *word, char *why,
               size_t wsize);
void vput_end(ecd_vput_t *v);

/** Member of a put: takes "verify=KEY" off the ENCODE words (*key_word:
 * the word, NULL when there is none); -1 for a malformed key. */
int vmember_take(char **w, int *nw, const char **key_word);
/** Its state (NULL for a NULL word; NULL too when out of memory: READY then
 * carries no fingerprint and the coordinator fails the put). */
ecd_vmember_t *vmember_new(const char *key_word);
/** A piece received from the collective (the test hook may alter it here,
 * as on the wire), then fingerprinted. */
void vmember_piece(ecd_vmember_t *vm, void *buf, size_t len, const char *what);
/** " fp=HEX" for READY, or "". */
void vmember_word(ecd_vmember_t *vm, char *out, size_t cap);
void vmember_end(ecd_vmember_t *vm);

/** Coordinator of a repair of nj jobs: a fresh key (NULL: not verified). */
ecd_vrepair_t *vrep_coordinator(int nj);
/** Member: takes "verify=KEY" off the REPAIR words; -1 for a malformed key. */
int vrep_member(char **w, int *nw, ecd_vrepair_t **vr_p);
void vrep_word(const ecd_vrepair_t *vr, char *out, size_t cap);
/** A chunk of job's row this node feeds to (survivor) or got from (target)
 * the collective. */
void vrep_chunk(ecd_vrepair_t *vr, int job, int row, const void *buf, size_t len);
/** Member: its values after READY ("VERIFY LEN" + lines); coordinator:
 * reads them.  0 or -1. */
int vrep_send(ecd_vrepair_t *vr, ecd_conn_t *c);
int vrep_recv(ecd_vrepair_t *vr, ecd_conn_t *c);
/** Coordinator, once every value is in: 1 when job j's rebuilt chunk (row
 * lost, from rows surv) does not match and is to be dropped (added to the
 * COMMIT payload, vrep_drops), else 0. */
int vrep_check_job(ecd_vrepair_t *vr, int j, const ecd_manifest_t *m, int lost, const int *surv);
const char *vrep_drops(const ecd_vrepair_t *vr, size_t *len);
/** Target: 1 when the COMMIT payload drops (name, row). */
int vrep_dropped(const char *drops, const char *name, int row);
void vrep_end(ecd_vrepair_t *vr);

#endif
