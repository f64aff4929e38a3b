/*
 * daemon/ecd_verify_op.c: what crosses UCX is checked before it is
 * committed (ecd_verify.h has the fingerprint).  The hooks the put and the
 * repair call:
 *
 *   put     the coordinator draws a key and sends it in its ENCODE lines;
 *           it fingerprints the k data rows as it encodes them; every member
 *           whose chunk comes out of the collective (a parity row)
 *           fingerprints what it receives and sends the value in READY;
 *           the coordinator compares it with the code row applied to the
 *           data rows' values before any COMMIT: a mismatch fails the put,
 *           nothing is stored.
 *   repair  the key travels in the REPAIR line; every survivor fingerprints
 *           the chunk it feeds the collective, the target the chunk it
 *           rebuilt; all send theirs after READY (VERIFY payload); the
 *           coordinator compares the target's with the recovery row applied
 *           to the survivors' and the target drops at COMMIT every rebuilt
 *           chunk that does not match (the scrub or the next repair tries
 *           again).
 */
#include "daemon/ecd_daemon.h"
#include "daemon/ecd_verify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- put ------------------------------------------------------------------ */

struct ecd_vput {
    ecd_vkey_t key;
    int k, done, failed;
    ecd_fp_acc_t acc[ECD_MAX_NODES];
    ecd_fp_t fp[ECD_MAX_NODES]; /* of the data rows */
};

ecd_vput_t *vput_begin(int k, int collective)
{
    if (ecd_verify_off || !collective) return NULL;
    ecd_vput_t *v = malloc(sizeof(*v));
    if (v == NULL) return NULL; /* the put then fails: see vput_check */
    memset(v, 0, sizeof(*v));
    v->k = k;
    if (ecd_vkey_new(&v->key) != 0) v->failed = 1;
    for (int j = 0; j < k; j++)
        ecd_fp_init(&v->acc[j], gf, &v->key);
    return v;
}

/* " verify=KEY" for a request line, or "" without a key. */
static void verify_word(const ecd_vkey_t *key, char *out, size_t cap)
{
    char hex[2 * ECD_VKEY + 1] = "";
    if (key != NULL) ecd_vkey_hex(key, hex);
    snprintf(out, cap, "%s%s", key != NULL ? " verify=" : "", hex);
}

void vput_word(const ecd_vput_t *v, char *out, size_t cap)
{
    verify_word(v != NULL ? &v->key : NULL, out, cap);
}

void vput_data(ecd_vput_t *v, const void *const *src, uint64_t w)
{
    if (v == NULL) return;
    for (int j = 0; j < v->k; j++)
        if (ecd_fp_update(&v->acc[j], src[j], w) != 0) v->failed = 1;
}

int vput_check(ecd_vput_t *v, const uint64_t *G, int row, const char *word, char *why, size_t wsize)
{
    if (v == NULL || row < v->k) return 0; /* data rows come over TCP: their crc is checked */
    if (!v->done) {
        for (int j = 0; j < v->k; j++)
            if (ecd_fp_final(&v->acc[j], &v->fp[j]) != 0) v->failed = 1;
        v->done = 1;
    }
    ecd_fp_t got, want;
    if (v->failed) {
        snprintf(why, wsize, "the fingerprints of the data rows could not be computed");
        return -1;
    }
    if (word == NULL || strncmp(word, "fp=", 3) != 0 || ecd_fp_parse(&got, word + 3) != 0) {
        snprintf(why, wsize, "it sent no fingerprint of its chunk");
        return -1;
    }
    ecd_fp_combine(gf, G + (size_t)row * (size_t)v->k, v->k, v->fp, &want);
    if (!ecd_fp_equal(&got, &want)) {
        snprintf(why, wsize,
                 "the fingerprint of its chunk differs from the code's (a transfer across UCX "
                 "was altered or damaged); nothing committed");
        return -1;
    }
    return 0;
}

void vput_end(ecd_vput_t *v)
{
    free(v);
}

/* ---- a put's member -------------------------------------------------------- */

struct ecd_vmember {
    ecd_vkey_t key;
    ecd_fp_acc_t acc;
};

int vmember_take(char **w, int *nw, const char **key_word)
{
    *key_word = NULL;
    if (*nw < 1 || strncmp(w[*nw - 1], "verify=", 7) != 0) return 0;
    const char *hex = w[*nw - 1] + 7;
    uint8_t probe[ECD_VKEY];
    if (strlen(hex) != 2 * ECD_VKEY || ecd_unhex(hex, probe, ECD_VKEY) != 0) return -1;
    *key_word = w[--*nw];
    return 0;
}

ecd_vmember_t *vmember_new(const char *key_word)
{
    if (key_word == NULL) return NULL;
    ecd_vmember_t *vm = malloc(sizeof(*vm));
    int have;
    char *w[1] = {(char *)key_word};
    if (vm == NULL || ecd_verify_take_key(w, 1, &vm->key, &have) != 0 || !have) {
        ecd_log("put: cannot check what crosses UCX (out of memory): the put fails");
        free(vm);
        return NULL;
    }
    ecd_fp_init(&vm->acc, gf, &vm->key);
    return vm;
}

void vmember_piece(ecd_vmember_t *vm, void *buf, size_t len, const char *what)
{
    ecd_verify_test_alter(buf, len, what);
    if (vm != NULL) ecd_fp_update(&vm->acc, buf, len);
}

void vmember_word(ecd_vmember_t *vm, char *out, size_t cap)
{
    ecd_fp_t f;
    char hex[2 * ECD_FP_T + 1];
    if (vm == NULL || ecd_fp_final(&vm->acc, &f) != 0) {
        snprintf(out, cap, "%s", "");
        return;
    }
    ecd_fp_hex(&f, hex);
    snprintf(out, cap, " fp=%s", hex);
}

void vmember_end(ecd_vmember_t *vm)
{
    free(vm);
}

/* ---- repair ---------------------------------------------------------------- */

typedef struct vrep_entry {
    int job, row;
    ecd_fp_t fp;
} vrep_entry_t;

struct ecd_vrepair {
    ecd_vkey_t key;
    int nj;
    vrep_entry_t *e;
    int ne, cap, sorted;
    char *drops; /* the target's COMMIT payload: "NAME ROW" lines */
    size_t dlen, dcap;
};

ecd_vrepair_t *vrep_coordinator(int nj)
{
    if (ecd_verify_off || nj < 1) return NULL;
    ecd_vrepair_t *vr = calloc(1, sizeof(*vr));
    if (vr == NULL) return NULL;
    vr->nj = nj;
    if (ecd_vkey_new(&vr->key) != 0) {
        free(vr);
        return NULL;
    }
    return vr;
}

int vrep_member(char **w, int *nw, ecd_vrepair_t **vr_p)
{
    *vr_p = NULL;
    ecd_vrepair_t *vr = calloc(1, sizeof(*vr));
    if (vr == NULL) return -1;
    int have, n = ecd_verify_take_key(w, *nw, &vr->key, &have);
    if (n < 0 || !have) {
        free(vr);
        return n < 0 ? -1 : 0;
    }
    *nw = n;
    *vr_p = vr;
    return 0;
}

void vrep_word(const ecd_vrepair_t *vr, char *out, size_t cap)
{
    verify_word(vr != NULL ? &vr->key : NULL, out, cap);
}

static void vrep_add(ecd_vrepair_t *vr, int job, int row, const ecd_fp_t *fp)
{
    if (vr->ne == vr->cap) {
        int nc = vr->cap ? 2 * vr->cap : 64;
        vrep_entry_t *ne = realloc(vr->e, sizeof(*ne) * (size_t)nc);
        if (ne == NULL) return; /* a missing value: the job's chunk is dropped */
        vr->e = ne;
        vr->cap = nc;
    }
    vr->e[vr->ne++] = (vrep_entry_t){.job = job, .row = row, .fp = *fp};
}

void vrep_chunk(ecd_vrepair_t *vr, int job, int row, const void *buf, size_t len)
{
    ecd_fp_t f;
    if (vr != NULL && ecd_fp(gf, &vr->key, buf, len, &f) == 0) vrep_add(vr, job, row, &f);
}

int vrep_send(ecd_vrepair_t *vr, ecd_conn_t *c)
{
    if (vr == NULL) return 0;
    size_t cap = (size_t)vr->ne * 48 + 1, len = 0;
    char *t = malloc(cap), hex[2 * ECD_FP_T + 1];
    if (t == NULL) return -1;
    t[0] = '\0';
    for (int i = 0; i < vr->ne; i++) {
        ecd_fp_hex(&vr->e[i].fp, hex);
        len += (size_t)snprintf(t + len, cap - len, "%d %d %s\n", vr->e[i].job, vr->e[i].row, hex);
    }
    int rc = ecd_printf(c, "VERIFY %zu\n", len) == 0 && ecd_write(c, t, len) == 0 ? 0 : -1;
    free(t);
    return rc;
}

int vrep_recv(ecd_vrepair_t *vr, ecd_conn_t *c)
{
    if (vr == NULL) return 0;
    char *t;
    size_t len;
    if (read_payload(c, "VERIFY", (size_t)vr->nj * 2 * 48 + 64, &t, &len) != 0) return -1;
    for (char *s = t; *s;) {
        char *nl = strchr(s, '\n'), hex[2 * ECD_FP_T + 1];
        if (nl == NULL) break;
        *nl = '\0';
        int job, row;
        ecd_fp_t f;
        if (sscanf(s, "%d %d %16s", &job, &row, hex) == 3 && job >= 0 && job < vr->nj && row >= 0 &&
            row < ECD_MAX_NODES && ecd_fp_parse(&f, hex) == 0)
            vrep_add(vr, job, row, &f);
        s = nl + 1;
    }
    free(t);
    return 0;
}

static int cmp_entry(const void *a, const void *b)
{
    const vrep_entry_t *x = a, *y = b;
    return x->job != y->job ? (x->job > y->job) - (x->job < y->job)
                            : (x->row > y->row) - (x->row < y->row);
}

/* The value of (job, row), NULL when none came (entries sorted). */
static const ecd_fp_t *vrep_find(const ecd_vrepair_t *vr, int job, int row)
{
    vrep_entry_t want = {.job = job, .row = row};
    const vrep_entry_t *e = bsearch(&want, vr->e, (size_t)vr->ne, sizeof(*vr->e), cmp_entry);
    return e != NULL ? &e->fp : NULL;
}

int vrep_check_job(ecd_vrepair_t *vr, int j, const ecd_manifest_t *m, int lost, const int *surv)
{
    if (vr == NULL) return 0;
    if (!vr->sorted) {
        qsort(vr->e, (size_t)vr->ne, sizeof(*vr->e), cmp_entry);
        vr->sorted = 1;
    }
    const ecd_fp_t *got = vrep_find(vr, j, lost);
    if (got == NULL) return 0; /* not rebuilt (its crc failed): nothing to commit */
    const int k = m->k, n = m->k + m->m;
    ecd_fp_t sf[ECD_MAX_NODES], want;
    uint64_t *G = generator(n, k), R[ECD_MAX_NODES];
    int ok = G != NULL && lincoll_gf_matrix_recover(gf, n, k, G, surv, 1, &lost, R) == LINCOLL_OK;
    for (int i = 0; ok && i < k; i++) {
        const ecd_fp_t *f = vrep_find(vr, j, surv[i]);
        if (f == NULL)
            ok = 0;
        else
            sf[i] = *f;
    }
    free(G);
    if (ok) ecd_fp_combine(gf, R, k, sf, &want);
    if (ok && ecd_fp_equal(&want, got)) return 0;
    ecd_log("repair of %s row %d: %s; dropped", m->name, lost,
            ok ? "the rebuilt chunk's fingerprint differs from the survivors' (a transfer "
                 "across UCX was altered or damaged)"
               : "a survivor's fingerprint is missing");
    size_t need = vr->dlen + strlen(m->name) + 16;
    if (need > vr->dcap) {
        size_t nc = 2 * need;
        char *nd = realloc(vr->drops, nc);
        if (nd == NULL) return 1; /* the target then keeps nothing: see vrep_dropped */
        vr->drops = nd;
        vr->dcap = nc;
    }
    vr->dlen +=
        (size_t)snprintf(vr->drops + vr->dlen, vr->dcap - vr->dlen, "%s %d\n", m->name, lost);
    return 1;
}

const char *vrep_drops(const ecd_vrepair_t *vr, size_t *len)
{
    *len = vr != NULL ? vr->dlen : 0;
    return vr != NULL && vr->drops != NULL ? vr->drops : "";
}

int vrep_dropped(const char *drops, const char *name, int row)
{
    char want[ECD_NAME_MAX + 16];
    size_t l = (size_t)snprintf(want, sizeof(want), "%s %d\n", name, row);
    for (const char *s = drops; s != NULL && *s;) {
        if (strncmp(s, want, l) == 0) return 1;
        s = strchr(s, '\n');
        if (s != NULL) s++;
    }
    return 0;
}

void vrep_end(ecd_vrepair_t *vr)
{
    if (vr == NULL) return;
    free(vr->e);
    free(vr->drops);
    free(vr);
}
