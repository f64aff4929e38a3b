/*
 * daemon/ecd_get.c: get (k good chunks, a decode when data rows are
 * missing, the sha256 check, damaged chunks written back), stat, and the
 * small peer requests (FETCH, STORE).
 */
#include "daemon/ecd_daemon.h"
#include "kernels/crc/crc32c.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* This node's manifest of name, else the first peer's. */
int find_manifest(const ecd_cluster_t *cl, const char *name, ecd_manifest_t *m)
{
    if (ecd_disk_manifest(&disk, name, m) == 0) return 0;
    int order[ECD_MAX_NODES]; /* the object's nodes first (rendezvous order), then the rest */
    placement(name, cl->n, cl->n, order);
    for (int o = 0; o < cl->n; o++) {
        int i = order[o];
        if (i == cfg.node) continue;
        char why[256], *text = NULL, req[ECD_LINE_MAX], line[ECD_LINE_MAX], *w[3];
        snprintf(req, sizeof(req), "MANIFEST %s\n", name);
        ecd_conn_t *c = ecd_peer_request(cl->addr[i], req, line, sizeof(line), why, sizeof(why));
        if (c == NULL) continue;
        char err[128];
        size_t tlen = 0;
        int ok = ecd_split(line, w, 3) == 2 && strcmp(w[0], "OK") == 0 &&
                 (tlen = strtoull(w[1], NULL, 10)) < ECD_MANIFEST_MAX &&
                 (text = malloc(tlen + 1)) != NULL && ecd_read(c, text, tlen) == 0;
        c->reuse = ok || strncmp(line, "ERR ", 4) == 0; /* the whole answer was read */
        ecd_peer_keep(cl->addr[i], c);
        if (!ok) {
            free(text);
            continue;
        }
        text[tlen] = '\0';
        ok = ecd_manifest_parse(text, tlen, m, err, sizeof(err)) == 0 && !strcmp(m->name, name);
        free(text);
        if (ok) return 0;
    }
    return -1;
}

#define ECD_FETCH_AHEAD (4u << 20) /* a get asks for chunks up to this size at once */

/* One row's FETCH: its request line, and the connection it went out on
 * (NULL: the row is here, or the request could not be sent, why in
 * reason). */
typedef struct fetch {
    char req[ECD_NAME_MAX + 32];
    ecd_conn_t *c;
    char reason[128];
} fetch_t;

/* Send row r's FETCH to its node. */
static void fetch_start(const ecd_cluster_t *cl, const ecd_manifest_t *m, int r, fetch_t *f)
{
    f->c = NULL;
    f->reason[0] = '\0';
    if (m->node[r] == cfg.node) return;
    snprintf(f->req, sizeof(f->req), "FETCH %s %d\n", m->name, r);
    f->c = ecd_peer_send(cl->addr[m->node[r]], f->req, f->reason, sizeof(f->reason));
}

/* Row r's chunk into buf: read here, or the answer to fetch_start's
 * request, checked against the manifest here too. */
static ecd_chunk_state_t fetch_end(const ecd_cluster_t *cl, const ecd_manifest_t *m, int r,
                                   fetch_t *f, uint8_t *buf, char *why, size_t wsize)
{
    int nd = m->node[r];
    if (nd == cfg.node) {
        ecd_chunk_state_t s = ecd_disk_read_chunk(&disk, m, r, buf);
        snprintf(why, wsize, "%s", s == ECD_CHUNK_MISSING ? "missing" : "corrupt");
        return s;
    }
    char line[ECD_LINE_MAX] = "", *w[3], err[256] = "";
    ecd_conn_t *c = f->c;
    ecd_chunk_state_t s = ECD_CHUNK_MISSING;
    int whole = 1; /* the whole answer was read: the connection may be kept */
    if (c == NULL) {
        snprintf(why, wsize, "node %d: %s", nd, f->reason[0] ? f->reason : "not reachable");
        return s;
    }
    if (ecd_peer_answer(cl->addr[nd], f->req, &c, line, sizeof(line), err, sizeof(err)) != 0) {
        snprintf(why, wsize, "node %d: %s", nd, err);
        return s;
    }
    snprintf(why, wsize, "%s", line); /* the answer whole: splitting cuts it */
    if (strncmp(line, "ERR corrupt", 11) == 0) {
        snprintf(why, wsize, "%s", line + 4);
        s = ECD_CHUNK_CORRUPT;
    } else if (ecd_split(line, w, 3) != 2 || strcmp(w[0], "OK") != 0 ||
               strtoull(w[1], NULL, 10) != m->chunk) {
        whole = strncmp(why, "ERR ", 4) == 0;
    } else if (ecd_read(c, buf, m->chunk) != 0) {
        whole = 0;
        snprintf(why, wsize, "node %d: %s", nd, strerror(errno));
    } else if (lc_crc32c(0, buf, m->chunk) != m->crc[r]) {
        snprintf(why, wsize, "arrived corrupted");
        s = ECD_CHUNK_CORRUPT;
    } else {
        s = ECD_CHUNK_OK;
    }
    c->reuse = whole;
    ecd_peer_keep(cl->addr[nd], c);
    return s;
}

/* Put a correct chunk back on the node that lost or damaged it. */
int restore_chunk(const ecd_cluster_t *cl, const ecd_manifest_t *m, int r, const uint8_t *chunk)
{
    char text[ECD_MANIFEST_MAX], why[256];
    int tlen = ecd_manifest_format(m, text, sizeof(text));
    int nd = m->node[r];
    if (nd == cfg.node) {
        char tmp[1][600];
        char op[64];
        new_opid(op, sizeof(op));
        if (ecd_disk_write_temp(&disk, op, m->name, r, chunk, m->chunk, tmp[0], sizeof(tmp[0])) !=
                0 ||
            ecd_disk_commit(&disk, m, tmp, &r, 1) != 0) {
            ecd_disk_abort(tmp, 1);
            return -1;
        }
        ecd_log("object %s: row %d rewritten here", m->name, r);
        return 0;
    }
    ecd_conn_t *c =
        ecd_connect(cl->addr[nd], cfg.timeout < 3 ? cfg.timeout : 3, cfg.timeout, why, sizeof(why));
    char line[ECD_LINE_MAX] = "", rid[33] = "";
    int ok = -1;
    if (c != NULL && store_auth_begin(m->name, r, m->crc[r], rid, sizeof(rid)) == 0 &&
        ecd_printf(c, "STORE %s %d %llu %d FROM %d %s\n", m->name, r, (unsigned long long)m->chunk,
                   tlen, cfg.node, rid) == 0 &&
        ecd_write(c, chunk, m->chunk) == 0 && ecd_write(c, text, (size_t)tlen) == 0 &&
        ecd_read_line(c, line, sizeof(line)) >= 0 && strcmp(line, "OK") == 0) {
        ok = 0;
        ecd_log("object %s: row %d rewritten on node %d", m->name, r, nd);
    } else {
        ecd_log("object %s: could not rewrite row %d on node %d (%s)", m->name, r, nd,
                line[0] ? line : why);
    }
    if (rid[0]) store_auth_end(rid);
    ecd_conn_close(c);
    return ok;
}

/* The object's k data rows into obj (k * chunk bytes): k good chunks, data
 * rows first (read into their place in obj), parity rows into par for the
 * ones that fail, and a decode when a data row is missing.  The rows found
 * missing or corrupt go to badrow.  0, or -1 (err). */
int object_data(const ecd_cluster_t *cl, const ecd_manifest_t *m, const uint64_t *G, uint8_t *par,
                uint8_t *obj, int *badrow, int *nbad, char *err, size_t esize)
{
    const int k = m->k, n = m->k + m->m;
    size_t chunk = m->chunk;
    int good[ECD_MAX_NODES], ng = 0;
    *nbad = 0;
    /* data rows first (no decode; chunks of up to ECD_FETCH_AHEAD bytes
     * all asked for before the first answer is read, so that the nodes
     * read and send at once: their answers wait in the sockets' buffers,
     * where a larger chunk's sender could stall past its timeout while the
     * rows before it are read), then parity rows, one at a time, for what
     * failed */
    fetch_t f[ECD_MAX_NODES];
    const int ahead = chunk <= ECD_FETCH_AHEAD ? k : 0;
    for (int r = 0; r < ahead; r++)
        fetch_start(cl, m, r, &f[r]);
    for (int r = 0; r < n && ng < k; r++) {
        char why[256] = "";
        if (r >= ahead) fetch_start(cl, m, r, &f[r]);
        /* a data row straight into its place in the object */
        uint8_t *dst = r < k ? obj + (size_t)r * chunk : par + (size_t)(r - k) * chunk;
        ecd_chunk_state_t s = fetch_end(cl, m, r, &f[r], dst, why, sizeof(why));
        if (s == ECD_CHUNK_OK) {
            good[ng++] = r;
        } else {
            ecd_log("%s: row %d on node %d unusable (%s)", m->name, r, m->node[r], why);
            badrow[(*nbad)++] = r;
        }
    }
    if (ng < k) {
        snprintf(err, esize, "only %d of the %d chunks needed are readable", ng, k);
        return -1;
    }
    int lost[ECD_MAX_NODES], nl = 0;
    for (int j = 0; j < k; j++) {
        int have = 0;
        for (int i = 0; i < ng; i++)
            have |= good[i] == j;
        if (!have) lost[nl++] = j;
    }
    if (nl > 0) { /* good data rows are in obj, good parity rows in par */
        const void *src[ECD_MAX_NODES];
        void *dst[ECD_MAX_NODES];
        for (int i = 0; i < k; i++)
            src[i] =
                good[i] < k ? obj + (size_t)good[i] * chunk : par + (size_t)(good[i] - k) * chunk;
        for (int i = 0; i < nl; i++)
            dst[i] = obj + (size_t)lost[i] * chunk;
        lincoll_status_t st = lincoll_gf_decode(gf, n, k, G, good, src, nl, lost, chunk, dst);
        if (st != LINCOLL_OK) {
            snprintf(err, esize, "decode failed: %s", lincoll_strerror(st));
            return -1;
        }
        ecd_log("%s: degraded read, %d data chunks decoded", m->name, nl);
    }
    return 0;
}

void client_get(ecd_conn_t *c, char **w, int nw)
{
    if (nw != 2 || !ecd_name_ok(w[1])) {
        reply_err(c, "usage: GET NAME");
        return;
    }
    ecd_cluster_t cl;
    char err[512];
    if (ecd_cluster_load(cfg.cluster, &cl, err, sizeof(err)) != 0) {
        reply_err(c, "GET %s: %s", w[1], err);
        return;
    }
    ecd_manifest_t m;
    if (find_manifest(&cl, w[1], &m) != 0) {
        reply_err(c, "GET %s: no such object", w[1]);
        return;
    }
    const int k = m.k, n = m.k + m.m;
    size_t chunk = m.chunk;
    uint8_t *par = malloc((size_t)m.m * chunk), *obj = malloc((size_t)k * chunk);
    uint64_t *G = generator(n, k);
    int badrow[ECD_MAX_NODES], nbad = 0;
    if (par == NULL || obj == NULL || G == NULL) {
        reply_err(c, "GET %s: out of memory", w[1]);
        goto out;
    }
    if (object_data(&cl, &m, G, par, obj, badrow, &nbad, err, sizeof(err)) != 0) {
        reply_err(c, "GET %s: %s", m.name, err);
        goto out;
    }
    /* obj holds the k data rows; the object is their stripes' pieces in
     * order (ecd_stripe_*), cut at its size: hashed, then sent, piece by piece */
    uint8_t sha[32];
    ecd_sha256_t hs;
    ecd_sha256_init(&hs);
    int wfail = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint64_t left = m.size, nst = ecd_stripe_count(chunk, m.stripe);
        for (uint64_t s = 0; s < nst && left > 0; s++) {
            uint64_t wd = ecd_stripe_width(chunk, m.stripe, s);
            for (int j = 0; j < k && left > 0; j++) {
                const uint8_t *piece = obj + (size_t)j * chunk + (size_t)(s * m.stripe);
                size_t len = left < wd ? (size_t)left : (size_t)wd;
                if (pass == 0)
                    ecd_sha256_update(&hs, piece, len);
                else if (ecd_write(c, piece, len) != 0)
                    left = len, wfail = 1; /* the client went away: stop */
                left -= len;
            }
        }
        if (pass == 1) {
            c->reuse = !wfail; /* the whole object went out: another request may follow */
            break;
        }
        ecd_sha256_final(&hs, sha);
        char hex[65];
        ecd_hex(m.sha, 32, hex);
        if (memcmp(sha, m.sha, 32) != 0) {
            ecd_log("get %s: the reassembled object fails its sha256; not returned", m.name);
            reply_err(c, "GET %s: the object fails its sha256 check; not returned", m.name);
            goto out;
        }
        if (ecd_printf(c, "OK %llu %s\n", (unsigned long long)m.size, hex) != 0) break;
    }
    /* what was found damaged is rewritten from the good data */
    for (int i = 0; i < nbad; i++) { /* a data row is obj's; a parity row is encoded */
        const int r = badrow[i];
        uint8_t *row = r < k ? obj + (size_t)r * chunk : par + (size_t)(r - k) * chunk;
        if ((r < k || encode_row(G, k, r, obj, chunk, row) == 0) &&
            lc_crc32c(0, row, chunk) == m.crc[r])
            restore_chunk(&cl, &m, r, row);
    }
out:
    free(par);
    free(obj);
    free(G);
}

/* ---- stat and the small peer requests -------------------------------------- */

void client_stat(ecd_conn_t *c, char **w, int nw)
{
    (void)w, (void)nw;
    ecd_cluster_t cl;
    char err[512], lines[ECD_MAX_NODES + 1][400];
    if (ecd_cluster_load(cfg.cluster, &cl, err, sizeof(err)) != 0) {
        reply_err(c, "STAT: %s", err);
        return;
    }
    int up = 0;
    for (int i = 0; i < cl.n; i++) {
        char line[ECD_LINE_MAX] = "", why[256] = "";
        if (i == cfg.node) {
            long o, mi, co;
            long long b;
            ecd_disk_stats(&disk, &o, &b, &mi, &co);
            snprintf(line, sizeof(line),
                     "OK node %d objects %ld bytes %lld missing %ld corrupt %ld", i, o, b, mi, co);
        } else {
            ecd_conn_t *pc =
                ecd_peer_request(cl.addr[i], "PING\n", line, sizeof(line), why, sizeof(why));
            if (pc != NULL) pc->reuse = 1;
            ecd_peer_keep(cl.addr[i], pc);
        }
        if (strncmp(line, "OK node ", 8) == 0) {
            up++;
            snprintf(lines[i + 1], sizeof(lines[0]), "node %d %s up%s", i, cl.addr[i],
                     strchr(line + 8, ' ') ? strchr(line + 8, ' ') : "");
        } else {
            snprintf(lines[i + 1], sizeof(lines[0]), "node %d %s down (%s)", i, cl.addr[i],
                     why[0] ? why : line);
        }
    }
    snprintf(lines[0], sizeof(lines[0]), "code RS(%d,%d) nodes %d up %d", cl.k, cl.m, cl.n, up);
    int degraded = degraded_count(&cl);
    ecd_printf(c, "OK %d\n", cl.n + 4);
    for (int i = 0; i <= cl.n; i++)
        ecd_printf(c, "%s\n", lines[i]);
    if (degraded >= 0)
        ecd_printf(c, "degraded objects %d\n", degraded);
    else
        ecd_printf(c, "degraded objects unknown (a node's records could not be read)\n");
    if (ecd_tls_mode() == ECD_SEC_TLS)
        ecd_printf(c, "security %s (this request: key %s, %s)\n", ecd_tls_mode_name(), c->who,
                   ecd_caps_name(c->caps));
    else
        ecd_printf(c, "security %s (plaintext, no keys: a trusted network only)\n",
                   ecd_tls_mode_name());
    unsigned long hits, misses;
    int idle;
    ecd_pool_stats(&hits, &misses, &idle);
    c->reuse = ecd_printf(c,
                          "peer connections kept %d, reused %lu of %lu asked for; connections "
                          "accepted %lu\n",
                          idle, hits, hits + misses, ecd_conns_accepted()) == 0;
}

void peer_fetch(ecd_conn_t *c, char **w, int nw)
{
    ecd_manifest_t m;
    int r = nw == 3 ? atoi(w[2]) : -1;
    if (nw != 3 || !ecd_name_ok(w[1]) || ecd_disk_manifest(&disk, w[1], &m) != 0) {
        c->reuse = reply_err(c, "missing: no manifest of %s here", nw >= 2 ? w[1] : "?") == 0;
        return;
    }
    if (r < 0 || r >= m.k + m.m || m.node[r] != cfg.node) {
        c->reuse = reply_err(c, "missing: row %d of %s is not on this node", r, m.name) == 0;
        return;
    }
    uint8_t *buf = malloc(m.chunk);
    ecd_chunk_state_t s = buf ? ecd_disk_read_chunk(&disk, &m, r, buf) : ECD_CHUNK_MISSING;
    if (s == ECD_CHUNK_OK) {
        c->reuse = ecd_printf(c, "OK %llu\n", (unsigned long long)m.chunk) == 0 &&
                   ecd_write(c, buf, m.chunk) == 0;
    } else if (s == ECD_CHUNK_CORRUPT) {
        ecd_log("object %s: row %d fails its checksum; not served", m.name, r);
        c->reuse = reply_err(c, "corrupt: row %d of %s fails its checksum on node %d", r, m.name,
                             cfg.node) == 0;
    } else {
        c->reuse =
            reply_err(c, "missing: row %d of %s is not on node %d", r, m.name, cfg.node) == 0;
    }
    free(buf);
}

void peer_store(ecd_conn_t *c, char **w, int nw)
{
    size_t clen = nw == 8 ? strtoull(w[3], NULL, 10) : 0,
           tlen = nw == 8 ? strtoull(w[4], NULL, 10) : 0;
    int r = nw == 8 ? atoi(w[2]) : -1;
    if (nw != 8 || !ecd_name_ok(w[1]) || clen < 1 || clen > cfg.max_object ||
        tlen >= ECD_MANIFEST_MAX || strcmp(w[5], "FROM") != 0 || strlen(w[7]) != 32) {
        reply_err(c, "usage: STORE NAME ROW CHUNKLEN MANIFESTLEN FROM NODE RID");
        return;
    }
    uint8_t *buf = malloc(clen);
    char text[ECD_MANIFEST_MAX], err[512], tmp[1][600] = {{0}}, op[64];
    ecd_manifest_t m;
    if (buf == NULL || ecd_read(c, buf, clen) != 0 || ecd_read(c, text, tlen) != 0) {
        free(buf);
        return;
    }
    if (ecd_manifest_parse(text, tlen, &m, err, sizeof(err)) != 0 || strcmp(m.name, w[1]) ||
        r < 0 || r >= m.k + m.m || m.node[r] != cfg.node || m.chunk != clen ||
        lc_crc32c(0, buf, clen) != m.crc[r]) {
        reply_err(c, "STORE %s: the chunk does not match its manifest", w[1]);
    } else if (store_auth_confirm(atoi(w[6]), w[7], m.name, r, m.crc[r], err, sizeof(err)) != 0) {
        /* never on the word of a checksum its sender chose */
        ecd_auth_log_refusal(c->peer, "STORE not confirmed by a repair of this cluster");
        reply_err(c, "STORE %s row %d refused: not a repair this cluster started (%s)", m.name, r,
                  err);
    } else {
        new_opid(op, sizeof(op));
        if (ecd_disk_write_temp(&disk, op, m.name, r, buf, clen, tmp[0], sizeof(tmp[0])) == 0 &&
            ecd_disk_commit(&disk, &m, tmp, &r, 1) == 0) {
            ecd_log("object %s: row %d rewritten", m.name, r);
            ecd_printf(c, "OK\n");
        } else {
            ecd_disk_abort(tmp, 1);
            reply_err(c, "STORE %s: writing failed", m.name);
        }
    }
    free(buf);
}

void peer_ping(ecd_conn_t *c, char **w, int nw)
{
    (void)w, (void)nw;
    long o, mi, co;
    long long b;
    ecd_disk_stats(&disk, &o, &b, &mi, &co);
    c->reuse = ecd_printf(c, "OK node %d objects %ld bytes %lld missing %ld corrupt %ld\n",
                          cfg.node, o, b, mi, co) == 0;
}

void peer_manifest(ecd_conn_t *c, char **w, int nw)
{
    (void)nw;
    ecd_manifest_t m;
    char text[ECD_MANIFEST_MAX];
    int tlen;
    if (ecd_name_ok(w[1]) && ecd_disk_manifest(&disk, w[1], &m) == 0 &&
        (tlen = ecd_manifest_format(&m, text, sizeof(text))) > 0) {
        c->reuse = ecd_printf(c, "OK %d\n", tlen) == 0 && ecd_write(c, text, (size_t)tlen) == 0;
    } else {
        c->reuse = reply_err(c, "no such object here") == 0;
    }
}
