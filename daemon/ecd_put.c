/*
 * daemon/ecd_put.c: a put, the coordinator's side: the upload cut into
 * stripes, the data pieces streamed to their nodes, the parity computed by
 * the encode collective, the commit.
 */
#include "daemon/ecd_daemon.h"
#include "daemon/ecd_epoch.h"
#include "daemon/ecd_verify.h"
#include "kernels/crc/crc32c.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- put: a pipeline of stripes ------------------------------------------ */

/* A put streams: the coordinator cuts the upload into stripes of k pieces
 * (ecd_stripe_*) as it arrives and, while the next stripes arrive, sends
 * each data piece to its row's node (a connection of its own, "PIECES"),
 * computes every row's piece locally (the parity rows' for their crcs and
 * its own) and writes its own; the data rows' nodes run lincoll's encode
 * collective once per stripe, so the parity rows' nodes receive their
 * pieces as the upload goes on.  Nothing is committed before every node
 * reported its whole chunk (READY): a put that fails anywhere leaves only
 * temporaries, which are dropped.
 *
 * Links: the coordinator holds a parity row whenever one is live.  It
 * computes that row itself, from the stripes it holds anyway, so its row
 * of the generator the collective gets is zero: with the direct schedule
 * (zero entries move nothing) no byte of the encode enters or leaves the
 * coordinator's link.  Per object of S bytes its link carries S in (the
 * upload) and S out (the k data pieces), a data row's node S/k in and
 * (m-1)S/k out, a parity row's node S in: no link direction carries more
 * than the upload itself. */

const lincoll_encode_opts_t put_encode_opts = {.algo = LINCOLL_ENCODE_ALGO_DIRECT};

static uint64_t put_stripe_width(uint64_t chunk)
{
    uint64_t b = cfg.stripe > 0 ? cfg.stripe : ECD_STRIPE_AUTO;
    return b < chunk ? b : chunk;
}

/* Parity rows the collective computes: the live ones but the coordinator's
 * (crow, its row).  0: no collective. */
int put_remote_parity(int k, int L, int crow)
{
    return L - k - (crow >= k ? 1 : 0);
}

/* The L x k generator the collective gets: G's first L rows, the
 * coordinator's own parity row zeroed. */
uint64_t *put_collective_generator(const uint64_t *G, int L, int k, int crow)
{
    uint64_t *Gz = malloc(sizeof(uint64_t) * (size_t)L * (size_t)k);
    if (Gz == NULL) return NULL;
    memcpy(Gz, G, sizeof(uint64_t) * (size_t)L * (size_t)k);
    if (crow >= k && crow < L)
        memset(Gz + (size_t)crow * (size_t)k, 0, sizeof(uint64_t) * (size_t)k);
    return Gz;
}

/* Read and drop what the client still sends of a refused upload (at
 * --client-rate, like an upload), so that it reads the answer rather than a
 * reset. */
static void drain_upload(ecd_conn_t *c, uint64_t left)
{
    uint8_t buf[65536];
    c->deadline = ecd_now() + cfg.timeout + (double)left / cfg.client_rate;
    while (left > 0) {
        size_t n = left < sizeof(buf) ? (size_t)left : sizeof(buf);
        if (ecd_read(c, buf, n) != 0) return;
        left -= n;
    }
}

typedef struct put_pipe {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* fixed for the put */
    int k, mm, n, L, my_rank, encode;
    int direct;    /* no collective: the parity pieces go out on PIECES streams too */
    int own_later; /* inline: put_compute_stripe leaves this node's piece to the caller */
    uint64_t size, chunk, stripe, nst;
    const int *node_of_row;
    const uint64_t *G;                 /* n x k */
    uint64_t *Gz;                      /* the collective's (put_collective_generator) */
    ecd_conn_t *member[ECD_MAX_NODES]; /* by rank, NULL at this one */
    ecd_conn_t *pieces[ECD_MAX_NODES]; /* by row (data rows; every row if direct), NULL here */
    ecd_epoch_t *ep;                   /* the epoch whose context runs the collective */
    uint64_t tag;                      /* its plans' tags: tag + 32 i */
    int lost;                          /* a member's connection broke or the collective failed */
    ecd_vput_t *vf; /* what crosses UCX is checked (ecd_verify_op.c); NULL: not */
    int nslot;
    uint8_t *ring;    /* nslot stripes of k * stripe bytes */
    uint8_t *par;     /* the parity pieces of one stripe (mm * stripe) */
    uint8_t *scratch; /* the collectives' outputs here (ECD_PUT_INFLIGHT stripes; zeros) */
    /* progress (mu) */
    uint64_t filled, sent, computed;
    uint64_t got; /* bytes of the last stripe read (put_read_stripe) */
    int failed;
    char err[512];
    /* results */
    uint32_t crc[ECD_MAX_NODES];
    ecd_sha256_t sha;
    ecd_temp_t own;
    char own_tmp[1][600];
    double t0, t_setup, t_upload, t_dist, t_encode;
} put_pipe_t;

static void put_fail(put_pipe_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_fail(put_pipe_t *p, const char *fmt, ...)
{
    pthread_mutex_lock(&p->mu);
    int first = !p->failed;
    if (first) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err, sizeof(p->err), fmt, ap);
        va_end(ap);
        p->failed = 1;
    }
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    if (!first) return;
    /* break the group: every blocked read or write of it fails at once */
    for (int r = 0; r < ECD_MAX_NODES; r++) {
        ecd_conn_shutdown(p->member[r]);
        ecd_conn_shutdown(p->pieces[r]);
    }
}

static int put_failed(put_pipe_t *p)
{
    pthread_mutex_lock(&p->mu);
    int f = p->failed;
    pthread_mutex_unlock(&p->mu);
    return f;
}

static uint8_t *put_slot(put_pipe_t *p, uint64_t s)
{
    return p->ring + (size_t)(s % (uint64_t)p->nslot) * (size_t)p->k * p->stripe;
}

/* Wait until *count > s (or the put failed: returns -1). */
static int put_wait(put_pipe_t *p, const uint64_t *count, uint64_t s)
{
    pthread_mutex_lock(&p->mu);
    while (!p->failed && *count <= s)
        pthread_cond_wait(&p->cv, &p->mu);
    int f = p->failed;
    pthread_mutex_unlock(&p->mu);
    return f ? -1 : 0;
}

static void put_advance(put_pipe_t *p, uint64_t *count, uint64_t v)
{
    pthread_mutex_lock(&p->mu);
    *count = v;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* Thread: every data piece to its row's node (direct: the parity pieces
 * too, once put_compute has them; a direct put is one stripe). */
static void *put_distribute(void *arg)
{
    put_pipe_t *p = arg;
    for (uint64_t s = 0; s < p->nst; s++) {
        if (put_wait(p, &p->filled, s) != 0) return NULL;
        if (p->direct && put_wait(p, &p->computed, s) != 0) return NULL;
        uint64_t w = ecd_stripe_width(p->chunk, p->stripe, s);
        const uint8_t *b = put_slot(p, s);
        for (int j = 0; j < (p->direct ? p->L : p->k); j++) {
            if (p->pieces[j] == NULL) continue;
            const uint8_t *piece =
                j < p->k ? b + (size_t)j * w : p->par + (size_t)(j - p->k) * p->stripe;
            if (ecd_write(p->pieces[j], piece, w) != 0) {
                p->lost = 1;
                put_fail(p, "sending node %d its data: %s", p->node_of_row[j], strerror(errno));
                return NULL;
            }
        }
        put_advance(p, &p->sent, s + 1);
    }
    p->t_dist = ecd_now() - p->t0;
    return NULL;
}

/* Stripe s (read in): the object's sha256 of it, every row's piece and
 * crc, this node's piece to its temporary; 0, or -1 (the put failed). */
static int put_compute_stripe(put_pipe_t *p, uint64_t s)
{
    const int k = p->k, mm = p->mm;
    uint64_t w = ecd_stripe_width(p->chunk, p->stripe, s), off;
    uint8_t *b = put_slot(p, s);
    off = ecd_stripe_offset(k, p->stripe, s);
    uint64_t take = p->size > off ? p->size - off : 0;
    if (take > (uint64_t)k * w) take = (uint64_t)k * w;
    ecd_sha256_update(&p->sha, b, take);
    const void *src[ECD_MAX_NODES];
    void *dst[ECD_MAX_NODES];
    for (int j = 0; j < k; j++)
        src[j] = b + (size_t)j * w;
    for (int i = 0; i < mm; i++)
        dst[i] = p->par + (size_t)i * p->stripe;
    if (lincoll_gf_encode(gf, k, mm, p->G + (size_t)k * (size_t)k, w, src, dst) != LINCOLL_OK) {
        put_fail(p, "the local encode of stripe %llu failed", (unsigned long long)s);
        return -1;
    }
    for (int r = 0; r < k + mm; r++)
        p->crc[r] = lc_crc32c(p->crc[r], r < k ? src[r] : dst[r - k], w);
    vput_data(p->vf, src, w);
    const void *mine = p->my_rank < k ? src[p->my_rank] : dst[p->my_rank - k];
    if (!p->own_later && ecd_temp_append(&p->own, mine, w) != 0) {
        put_fail(p, "writing this node's chunk failed");
        return -1;
    }
    return 0;
}

/* Thread: put_compute_stripe for every stripe as it comes in, then this
 * node's temporary durable. */
static void *put_compute(void *arg)
{
    put_pipe_t *p = arg;
    for (uint64_t s = 0; s < p->nst; s++) {
        if (put_wait(p, &p->filled, s) != 0 || put_compute_stripe(p, s) != 0) return NULL;
        put_advance(p, &p->computed, s + 1);
    }
    if (ecd_temp_finish(&p->own, p->own_tmp[0], sizeof(p->own_tmp[0])) != 0)
        put_fail(p, "writing this node's chunk failed");
    return NULL;
}

/* Thread: this node's part of the collective (its row is zero: it moves
 * nothing), on the epoch's context: the operation's group and its tags. */
static void *put_encode(void *arg)
{
    put_pipe_t *p = arg;
    if (!p->encode) return NULL;
    lincoll_comm_t *comm = NULL;
    lincoll_status_t st = ecd_epoch_group(p->ep, p->node_of_row, p->L, &comm);
    /* the members keep ECD_PUT_INFLIGHT stripes' collectives in flight: the
     * same plans, started in the same order */
    lincoll_plan_t *plan[ECD_PUT_INFLIGHT] = {NULL};
    const int nplan = p->nst < ECD_PUT_INFLIGHT ? (int)p->nst : ECD_PUT_INFLIGHT;
    lincoll_encode_opts_t eo = put_encode_opts;
    ecd_epoch_lock(p->ep);
    for (int i = 0; i < nplan && st == LINCOLL_OK; i++) {
        eo.tag = p->tag + 32 * (uint64_t)i;
        st = lincoll_encode_rs_init(comm, gf, p->k, LINCOLL_GF_RS_CAUCHY, p->Gz, p->stripe, NULL,
                                    p->scratch + (size_t)i * p->stripe, &eo, &plan[i]);
    }
    ecd_epoch_unlock(p->ep);
    for (uint64_t s = 0; st == LINCOLL_OK && s <= p->nst && !put_failed(p); s++) {
        if (s < p->nst) {
            ecd_epoch_lock(p->ep);
            st = lincoll_start(plan[s % (uint64_t)nplan]);
            ecd_epoch_unlock(p->ep);
        }
        if (st == LINCOLL_OK && s > 0)
            st = ecd_epoch_drive(p->ep, plan[(s - 1) % (uint64_t)nplan], NULL);
    }
    if (st != LINCOLL_OK) {
        p->lost = 1;
        put_fail(p, "encode on epoch %llu: %s", (unsigned long long)p->ep->seq,
                 lincoll_strerror(st));
        ecd_epoch_fail(p->ep); /* the next put forms a new epoch */
    }
    put_wait(p, &p->sent, p->nst - 1);
    int held = 0; /* a transfer the transport could not stop may use p->scratch */
    ecd_epoch_lock(p->ep);
    for (int i = 0; i < ECD_PUT_INFLIGHT; i++)
        held |= lincoll_plan_free(plan[i]) == LINCOLL_ERR_BUSY;
    lincoll_comm_free(comm);
    ecd_epoch_unlock(p->ep);
    if (held) { /* freed with the epoch's context; the put joins this thread first */
        ecd_epoch_keep(p->ep, p->scratch);
        p->scratch = NULL;
        ecd_epoch_fail(p->ep);
    }
    p->t_encode = ecd_now() - p->t0;
    return NULL;
}

/* Read stripe s of the upload into its slot (zero-padded); its bytes in
 * p->got.  0, or -1 with the reason in p->err. */
static int put_read_stripe(ecd_conn_t *c, put_pipe_t *p, uint64_t s)
{
    uint64_t wd = ecd_stripe_width(p->chunk, p->stripe, s),
             off = ecd_stripe_offset(p->k, p->stripe, s);
    uint64_t take = p->size > off ? p->size - off : 0;
    if (take > (uint64_t)p->k * wd) take = (uint64_t)p->k * wd;
    uint8_t *b = put_slot(p, s);
    p->got = 0;
    if (ecd_read(c, b, take) != 0) {
        int slow = errno == ETIMEDOUT && c->deadline > 0 && ecd_now() >= c->deadline;
        ecd_log("put: the client sent less than the %llu bytes it announced (%s); nothing written",
                (unsigned long long)p->size, slow ? "too slow" : strerror(errno));
        snprintf(p->err, sizeof(p->err), "upload %s; nothing written",
                 slow ? "slower than --client-rate allows (truncated at its deadline)"
                 : errno == ETIMEDOUT ? "truncated (the client went silent)"
                                      : "truncated (the connection closed)");
        return -1;
    }
    p->got = take;
    memset(b + take, 0, (size_t)p->k * wd - take);
    return 0;
}

/* Row j's data stream: "PIECES OPID j" -> "OK" on a kept connection to
 * its node if there is one.  The requests go out together, then the
 * answers are read; a kept connection that its daemon closed meanwhile is
 * replaced by a new one.  0, or -1 (err). */
static int put_open_pieces(put_pipe_t *p, const ecd_cluster_t *cl, const char *opid,
                           const int *node_of_row, char *err, size_t esize)
{
    const int rows = p->direct ? p->L : p->k;
    const double t = cfg.timeout < 3 ? cfg.timeout : 3;
    int asked[ECD_MAX_NODES] = {0};
    for (int j = 0; j < rows; j++) {
        int nd = node_of_row[j];
        if (nd == cfg.node) continue;
        char why[256] = "";
        p->pieces[j] = ecd_peer_connect(cl->addr[nd], t, cfg.timeout, why, sizeof(why));
        if (p->pieces[j] == NULL) {
            p->lost = 1;
            snprintf(err, esize, "opening node %d's data stream: %s", nd, why);
            return -1;
        }
        asked[j] = ecd_printf(p->pieces[j], "PIECES %s %d\n", opid, j) == 0;
    }
    for (int j = 0; j < rows; j++) {
        int nd = node_of_row[j];
        if (p->pieces[j] == NULL) continue;
        char why[256] = "", line[ECD_LINE_MAX] = "";
        int ok = asked[j] && ecd_read_line(p->pieces[j], line, sizeof(line)) >= 0;
        if (!ok && p->pieces[j]->from_pool) { /* closed while it was kept: a new one */
            ecd_conn_close(p->pieces[j]);
            p->pieces[j] = ecd_peer_fresh(cl->addr[nd], t, cfg.timeout, why, sizeof(why));
            ok = p->pieces[j] != NULL && ecd_printf(p->pieces[j], "PIECES %s %d\n", opid, j) == 0 &&
                 ecd_read_line(p->pieces[j], line, sizeof(line)) >= 0;
        }
        if (!ok || strcmp(line, "OK") != 0) {
            p->lost = 1;
            snprintf(err, esize, "opening node %d's data stream: %s", nd,
                     line[0]  ? line
                     : why[0] ? why
                              : strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* Row r's piece of a one-stripe put (after put_compute_stripe). */
static const uint8_t *put_piece(put_pipe_t *p, int r)
{
    const uint64_t w0 = ecd_stripe_width(p->chunk, p->stripe, 0);
    return r < p->k ? put_slot(p, 0) + (size_t)r * w0 : p->par + (size_t)(r - p->k) * p->stripe;
}

/* The put's rows laid out over the live nodes (place); this node's row,
 * a parity row when one is live (see above). */
static int put_layout(ecd_manifest_t *m, const char *name, int nnodes, int n, int k,
                      const int *live, int L)
{
    place(name, nnodes, n, live, m->node);
    int my_rank = -1;
    for (int r = 0; r < L; r++)
        if (m->node[r] == cfg.node) my_rank = r;
    if (L > k && my_rank < k) {
        m->node[my_rank] = m->node[k];
        m->node[k] = cfg.node;
        my_rank = k;
    }
    return my_rank;
}

/* Row r's "ENCODE" line for a member (inline: its piece follows); its
 * length, or -1 when it does not fit. */
static int put_encode_line(char *line, size_t cap, const ecd_manifest_t *m, int L, int r,
                           int direct, int inl, const char *eptag, const char *vword)
{
    char rows[ECD_MAX_NODES * 4] = "";
    for (int i = 0; i < m->k + m->m; i++) {
        size_t l = strlen(rows);
        snprintf(rows + l, sizeof(rows) - l, "%s%d", i ? "," : "", m->node[i]);
    }
    int ln = snprintf(line, cap, "ENCODE %s %llu %llu %d %d %d %d %s %llu%s%s%s%s\n", m->name,
                      (unsigned long long)m->size, (unsigned long long)m->chunk, m->k, m->m, L, r,
                      rows, (unsigned long long)m->stripe, direct ? " direct" : "",
                      inl ? " inline" : "", eptag, vword);
    return ln > 0 && (size_t)ln < cap ? ln : -1;
}

/* A small put's first requests, sent with the OPs (op_begin_pre): stripe 0
 * encoded, and for each member the ENCODE line and piece of the row it
 * gets when every node of the set joins (nodes all live in want).  0, or
 * -1 (out of memory: the put goes without). */
static int put_prepare(put_pipe_t *p, ecd_manifest_t *m, ecd_op_pre_t *pre, const int *want,
                       int nnodes)
{
    const int n = p->n;
    p->L = n;
    p->my_rank = put_layout(m, m->name, nnodes, n, p->k, want, n);
    p->node_of_row = m->node;
    p->filled = 1;
    if (p->my_rank < 0 || put_compute_stripe(p, 0) != 0) return -1;
    p->computed = 1;
    char vword[64];
    vput_word(p->vf, vword, sizeof(vword));
    const uint64_t w0 = ecd_stripe_width(m->chunk, m->stripe, 0);
    for (int r = 0; r < n; r++) {
        int nd = m->node[r];
        if (nd == cfg.node) continue;
        uint8_t *b = malloc(2 * ECD_LINE_MAX + w0);
        int ln =
            b ? put_encode_line((char *)b + ECD_LINE_MAX, ECD_LINE_MAX, m, n, r, 1, 1, "", vword)
              : -1;
        if (ln < 0) {
            free(b);
            return -1;
        }
        memcpy(b + ECD_LINE_MAX + ln, put_piece(p, r), w0);
        pre->buf[nd] = b;
        pre->len[nd] = (size_t)ln + w0;
    }
    return 0;
}

static void put_pre_free(ecd_op_pre_t *pre)
{
    for (int i = 0; i < ECD_MAX_NODES; i++)
        free(pre->buf[i]);
    memset(pre, 0, sizeof(*pre));
}

void client_put(ecd_conn_t *c, char **w, int nw)
{
    double t0 = ecd_now();
    if (nw != 3 || !ecd_name_ok(w[1])) {
        reply_err(c,
                  "usage: PUT NAME SIZE (NAME: 1-%d characters of A-Z a-z 0-9 . _ -, not "
                  "starting with '.')",
                  ECD_NAME_MAX);
        return;
    }
    char *end;
    unsigned long long size = strtoull(w[2], &end, 10);
    if (*end != '\0' || w[2][0] == '-' || size > cfg.max_object) {
        reply_err(c, "PUT %s: size '%s' is not a byte count up to %llu", w[1], w[2],
                  (unsigned long long)cfg.max_object);
        return;
    }
    char name[ECD_NAME_MAX + 1];
    snprintf(name, sizeof(name), "%s", w[1]);
    if (ecd_disk_has(&disk, name)) {
        reply_err(c, "PUT %s: an object of that name exists (objects are immutable)", name);
        drain_upload(c, size);
        return;
    }
    ecd_cluster_t cl;
    char err[512] = "";
    int set[ECD_MAX_NODES], want[ECD_MAX_NODES] = {0}, in_set = 0;
    if (ecd_cluster_load(cfg.cluster, &cl, err, sizeof(err)) != 0) {
        reply_err(c, "PUT %s failed: %s", name, err);
        drain_upload(c, size);
        return;
    }
    placement(name, cl.n, cl.k + cl.m, set);
    for (int i = 0; i < cl.k + cl.m; i++) {
        want[set[i]] = 1;
        in_set |= set[i] == cfg.node;
    }
    if (!in_set) { /* one of the object's nodes coordinates it */
        put_forward(c, &cl, set, name, size);
        return;
    }
    /* the upload's buffers: a ring of stripes, counted against --max-inflight */
    const int k = cl.k, mm = cl.m, n = k + mm;
    uint64_t chunk = size ? (size + (uint64_t)k - 1) / (uint64_t)k : 1,
             stripe = put_stripe_width(chunk), nst = ecd_stripe_count(chunk, stripe);
    size_t stripe_bytes = (size_t)k * stripe;
    int nslot = (int)(ECD_PUT_RING / stripe_bytes);
    if (nslot < 3) nslot = 3;
    if ((uint64_t)nslot > nst) nslot = (int)nst;
    uint64_t held = (uint64_t)nslot * stripe_bytes, inflight;
    if (put_inflight(held, &inflight) != 0) {
        reply_err(c,
                  "PUT %s: %llu bytes of uploads are in flight here (--max-inflight %llu); "
                  "try again",
                  name, (unsigned long long)inflight, (unsigned long long)cfg.max_inflight);
        drain_upload(c, size);
        return;
    }
    op_t op;
    memset(&op, 0, sizeof(op));
    put_pipe_t p;
    memset(&p, 0, sizeof(p));
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    p.own.fd = -1;
    p.t0 = t0;
    ecd_sha256_init(&p.sha);
    ecd_manifest_t m = {0};
    uint64_t *G = NULL;
    pthread_t th[3];
    int nth = 0, ok = 0, committed = 0, truncated = 0, attempt = 0, retryable = 0;
    uint64_t got = 0;        /* upload bytes read */
    uint8_t *inl_buf = NULL; /* an inline ENCODE line and piece */
    ecd_op_pre_t pre;        /* those that go with the OPs (put_prepare) */
    memset(&pre, 0, sizeof(pre));
    int use_pre = 0;
    double t_fsync = 0;
    /* the upload must keep --client-rate; its first stripe (the whole of a
     * small object) comes in before any node is asked to take part */
    c->deadline = ecd_now() + cfg.timeout + (double)size / cfg.client_rate;
    p.k = k, p.size = size, p.chunk = chunk, p.stripe = stripe, p.nst = nst, p.nslot = nslot;
    p.ring = malloc((size_t)nslot * stripe_bytes);
    if (p.ring == NULL) {
        snprintf(err, sizeof(err), "out of memory");
        goto done;
    }
    if (put_read_stripe(c, &p, 0) != 0) {
        truncated = 1;
        snprintf(err, sizeof(err), "%s", p.err);
        goto done;
    }
    got += p.got;
    /* a put of one stripe (the whole object here) that fails on a member
     * before the commit (a node died, its epoch failed) is run once more,
     * over the nodes then live */
again:;
    /* a small direct put sends each member's ENCODE and piece with its OP,
     * laid out as if every node of the set joins (put_prepare); a node busy
     * or down, and the rows are laid out again over the live ones */
    const int inl = size <= cfg.direct_max && nst == 1 && chunk <= ECD_INLINE_MAX;
    snprintf(m.name, sizeof(m.name), "%s", name);
    m.size = size;
    m.k = k;
    m.m = mm;
    m.chunk = chunk;
    m.stripe = stripe;
    p.mm = mm, p.n = n, p.direct = inl, p.own_later = inl;
    if (inl) {
        G = generator(n, k);
        p.G = G;
        p.par = malloc((size_t)mm * p.stripe);
        p.vf = vput_begin(k, 0);
        if (G == NULL || p.par == NULL) {
            snprintf(err, sizeof(err), "out of memory");
            goto done;
        }
        if (attempt == 0) {
            use_pre = put_prepare(&p, &m, &pre, want, cl.n);
            if (use_pre < 0 && p.failed) {
                snprintf(err, sizeof(err), "%s", p.err);
                goto done;
            }
            if (use_pre < 0) put_pre_free(&pre); /* out of memory: without */
            use_pre = use_pre == 0;
        }
    }
    if (op_begin_pre(&op, want, name, use_pre ? &pre : NULL, err, sizeof(err)) != 0) goto done;
    put_pre_free(&pre); /* sent, or of no use now */
    use_pre = 0;
    const int L = op.nlive;
    if (ecd_disk_has(&disk, name)) { /* a put of the same name that held these nodes first */
        snprintf(err, sizeof(err),
                 "an object of that name exists (a concurrent put of it won); nothing written");
        goto done;
    }
    retryable = p.nst == 1 && attempt == 0;
    m.m = op.cl.m;
    snprintf(m.op, sizeof(m.op), "%s", op.id);
    if (L < k) {
        snprintf(err, sizeof(err),
                 "only %d of %d nodes are reachable; RS(%d,%d) needs %d (more than m=%d are "
                 "lost: %s); nothing written",
                 L, n, k, op.cl.m, k, op.cl.m, op.down);
        goto done;
    }
    int my_rank = put_layout(&m, name, op.cl.n, n, k, op.live, L);
    p.L = L, p.my_rank = my_rank;
    p.node_of_row = m.node;
    /* a small object's parity goes straight from here: a group would cost
     * more than the bytes it saves */
    p.direct = size <= cfg.direct_max && nst == 1;
    p.encode = !p.direct && put_remote_parity(k, L, my_rank) > 0;
    if (!inl) {
        p.vf = vput_begin(k, p.encode);
        G = generator(n, k);
        p.G = G;
        p.par = malloc((size_t)op.cl.m * p.stripe);
    }
    char vword[64];
    vput_word(p.vf, vword, sizeof(vword));
    p.Gz = G ? put_collective_generator(G, L, k, my_rank) : NULL;
    p.scratch = malloc((size_t)ECD_PUT_INFLIGHT * p.stripe);
    if (G == NULL || p.Gz == NULL || p.ring == NULL || p.par == NULL || p.scratch == NULL) {
        snprintf(err, sizeof(err), "out of memory");
        goto done;
    }
    ecd_log("put %s (op %s): %llu bytes, chunks of %llu bytes in %llu stripes to %d nodes%s%s",
            name, op.id, size, (unsigned long long)m.chunk, (unsigned long long)p.nst, L,
            p.encode ? "" : " (no parity row to encode remotely)",
            op.pre ? " (ENCODE went with OP)" : "");
    /* tell every member its rank, the placement and the stripes */
    char eptag[64] = "";
    for (int r = 0; r < L; r++)
        p.member[r] = m.node[r] == cfg.node ? NULL : op.conn[m.node[r]];
    if (p.encode) { /* the epoch every member runs the collective on */
        p.ep = ecd_epoch_agree(&op.cl, p.member, m.node, p.L, &p.lost, err, sizeof(err));
        if (p.ep == NULL) goto done;
        p.tag = ecd_epoch_tags(p.ep, ECD_PUT_INFLIGHT);
        snprintf(eptag, sizeof(eptag), " E=%llu/%llu", (unsigned long long)p.ep->seq,
                 (unsigned long long)p.tag);
    }
    /* a small direct put's pieces follow its ENCODE lines ("inline"): no
     * data streams, no threads; this node's piece is durable meanwhile */
    const uint64_t w0 = ecd_stripe_width(m.chunk, m.stripe, 0);
    if (inl) {
        if (ecd_temp_open(&disk, op.id, name, my_rank, &p.own) != 0) {
            snprintf(err, sizeof(err), "writing this node's chunk failed");
            goto done;
        }
        p.filled = 1;
        if (!p.computed && put_compute_stripe(&p, 0) != 0) {
            snprintf(err, sizeof(err), "%s", p.err);
            goto done;
        }
        p.computed = 1;
        if (ecd_temp_append(&p.own, put_piece(&p, my_rank), w0) != 0) {
            snprintf(err, sizeof(err), "writing this node's chunk failed");
            goto done;
        }
        inl_buf = op.pre ? NULL : malloc(ECD_LINE_MAX + w0);
        if (!op.pre && inl_buf == NULL) {
            snprintf(err, sizeof(err), "out of memory");
            goto done;
        }
    }
    for (int r = 0; r < L && !op.pre; r++) {
        int nd = m.node[r];
        if (nd == cfg.node) continue;
        char line[ECD_LINE_MAX];
        int ln = put_encode_line(line, sizeof(line), &m, L, r, p.direct, inl, eptag, vword);
        int sent = ln > 0;
        if (sent && inl) { /* the line and the row's piece in one write */
            memcpy(inl_buf, line, (size_t)ln);
            memcpy(inl_buf + ln, put_piece(&p, r), w0);
            sent = ecd_write(p.member[r], inl_buf, (size_t)ln + w0) == 0;
        } else if (sent) {
            sent = ecd_write(p.member[r], line, (size_t)ln) == 0;
        }
        if (!sent) {
            p.lost = 1;
            snprintf(err, sizeof(err), "sending node %d its part: %s", nd, strerror(errno));
            goto done;
        }
    }
    if (inl) {
        p.t_dist = ecd_now() - t0;
        if (ecd_temp_finish(&p.own, p.own_tmp[0], sizeof(p.own_tmp[0])) != 0) {
            snprintf(err, sizeof(err), "writing this node's chunk failed");
            goto done;
        }
    }
    for (int r = 0; r < L; r++) {
        char line[ECD_LINE_MAX] = "";
        if (p.member[r] == NULL) continue;
        if (ecd_read_line(p.member[r], line, sizeof(line)) < 0 || strcmp(line, "OK") != 0) {
            if (strstr(line, "already has an object") != NULL)
                snprintf(err, sizeof(err),
                         "an object of that name exists (a concurrent put of it won); nothing "
                         "written");
            else
                p.lost = line[0] == '\0';
            snprintf(err, sizeof(err), "node %d refused the put: %s", m.node[r],
                     line[0] ? line : strerror(errno));
            goto done;
        }
    }
    /* the data rows' streams (direct: every live row's) */
    if (!inl && put_open_pieces(&p, &op.cl, op.id, m.node, err, sizeof(err)) != 0) goto done;
    if (!inl && ecd_temp_open(&disk, op.id, name, my_rank, &p.own) != 0) {
        snprintf(err, sizeof(err), "writing this node's chunk failed");
        goto done;
    }
    void *(*fns[3])(void *) = {put_distribute, put_compute, put_encode};
    for (int i = 0; i < 3 && !inl; i++) {
        if (pthread_create(&th[nth], NULL, fns[i], &p) != 0) {
            put_fail(&p, "cannot start a thread");
            break;
        }
        nth++;
    }
    /* the upload, stripe by stripe, as the ring frees up */
    p.t_setup = ecd_now() - t0;
    put_advance(&p, &p.filled, 1); /* stripe 0 came in before the group */
    for (uint64_t s = 1; s < p.nst; s++) {
        pthread_mutex_lock(&p.mu);
        while (!p.failed && s >= (p.sent < p.computed ? p.sent : p.computed) + (uint64_t)p.nslot)
            pthread_cond_wait(&p.cv, &p.mu);
        int f = p.failed;
        pthread_mutex_unlock(&p.mu);
        if (f) break;
        if (put_read_stripe(c, &p, s) != 0) {
            put_fail(&p, "%s", p.err);
            truncated = 1;
            break;
        }
        got += p.got;
        put_advance(&p, &p.filled, s + 1);
    }
    p.t_upload = ecd_now() - t0;
    for (int i = 0; i < nth; i++)
        pthread_join(th[i], NULL);
    nth = 0;
    if (p.failed) {
        snprintf(err, sizeof(err), "%s", p.err);
        goto done;
    }
    ecd_sha256_final(&p.sha, m.sha);
    memcpy(m.crc, p.crc, sizeof(m.crc));
    /* every member's chunk is durable and matches this node's math */
    for (int r = 0; r < L; r++) {
        char line[ECD_LINE_MAX] = "", *ww[4] = {line, NULL, NULL, NULL}, why[256];
        if (p.member[r] == NULL) continue;
        if (ecd_read_line(p.member[r], line, sizeof(line)) < 0) {
            p.lost = 1;
            snprintf(err, sizeof(err), "node %d did not report: %s", m.node[r], strerror(errno));
            goto done;
        }
        char said[ECD_LINE_MAX]; /* the whole line, for the error: splitting cuts it */
        snprintf(said, sizeof(said), "%s", line);
        int nr = ecd_split(line, ww, 4);
        if ((nr != 2 && nr != 3) || strcmp(ww[0], "READY") != 0 ||
            (uint32_t)strtoul(ww[1], NULL, 16) != m.crc[r]) {
            snprintf(err, sizeof(err), "node %d: %s", m.node[r],
                     strcmp(ww[0], "READY") == 0 ? "its chunk differs from the code" : said);
            goto done;
        }
        if (vput_check(p.vf, G, r, ww[2], why, sizeof(why)) != 0) {
            snprintf(err, sizeof(err), "node %d (row %d): %s", m.node[r], r, why);
            goto done;
        }
    }
    t_fsync = ecd_now() - t0;
    retryable = 0; /* from here on members may hold the object */
    /* commit: the manifest to every member, then here */
    char text[ECD_MANIFEST_MAX];
    int tlen = ecd_manifest_format(&m, text, sizeof(text));
    /* every member commits at once, this node meanwhile; "END" goes with
     * the manifest, so a member that commits ends its session at once */
    int sent[ECD_MAX_NODES] = {0};
    char cbuf[ECD_LINE_MAX + ECD_MANIFEST_MAX];
    if (tlen <= 0 || (size_t)tlen >= sizeof(text)) {
        snprintf(err, sizeof(err), "the manifest does not fit in %d bytes", ECD_MANIFEST_MAX);
        goto done;
    }
    int cl0 = snprintf(cbuf, sizeof(cbuf), "COMMIT %d\n", tlen);
    memcpy(cbuf + cl0, text, (size_t)tlen);
    memcpy(cbuf + cl0 + tlen, "END\n", 4);
    for (int r = 0; r < L; r++) {
        sent[r] =
            p.member[r] != NULL && ecd_write(p.member[r], cbuf, (size_t)(cl0 + tlen + 4)) == 0;
        if (sent[r]) op.ended[m.node[r]] = 1;
    }
    int own = ecd_disk_commit(&disk, &m, p.own_tmp, &my_rank, 1);
    for (int r = 0; r < L; r++) {
        char line[ECD_LINE_MAX] = "";
        if (p.member[r] == NULL) continue;
        if (sent[r] && ecd_read_line(p.member[r], line, sizeof(line)) >= 0 &&
            strcmp(line, "OK committed") == 0) {
            committed++;
            p.member[r]->reuse = 1; /* op_end ends the session with END and keeps it */
        } else
            ecd_log("put %s: node %d did not commit (%s); the scrub rebuilds its chunk", name,
                    m.node[r], line[0] ? line : strerror(errno));
    }
    if (own == 0) {
        committed++;
        p.own_tmp[0][0] = '\0';
    }
    if (committed < k) {
        snprintf(err, sizeof(err), "only %d nodes committed (need %d)", committed, k);
        goto done;
    }
    ok = 1;
    if (committed < n) { /* the nodes that missed it get it from the scrub */
        char why[600];
        snprintf(why, sizeof(why), "put %s: committed on %d of %d nodes; down: %s", op.id,
                 committed, n, op.down[0] ? op.down : "-");
        degraded_mark(name, why);
    }
    ecd_log(
        "put %s timing setup %.6f upload %.6f distribute %.6f encode %.6f fsync %.6f commit %.6f",
        name, p.t_setup, p.t_upload, p.t_dist, p.encode ? p.t_encode : p.t_dist, t_fsync,
        ecd_now() - t0);
done:
    if (nth > 0) { /* a setup step failed after some threads started */
        put_fail(&p, "%s", err);
        for (int i = 0; i < nth; i++)
            pthread_join(th[i], NULL);
    }
    put_pre_free(&pre);
    ecd_temp_drop(&p.own);
    ecd_sha256_drop(&p.sha);
    if (!ok) ecd_disk_abort(p.own_tmp, 1);
    /* the streams of rows that committed were read whole: kept */
    for (int j = 0; j < ECD_MAX_NODES; j++) {
        if (p.pieces[j] == NULL) continue;
        p.pieces[j]->reuse = ok && p.member[j] != NULL && p.member[j]->reuse;
        ecd_peer_keep(op.cl.addr[m.node[j]], p.pieces[j]);
    }
    op_end(&op); /* members without a COMMIT drop their temporaries */
    ecd_epoch_release(p.ep);
    p.ep = NULL;
    if (!ok && retryable && p.lost && !truncated) { /* a member left, not a refusal */
        ecd_log("put %s failed (%s); once more over the nodes live now", name, err);
        attempt = 1, retryable = 0, nth = 0, committed = 0;
        p.failed = 0, p.lost = 0, p.err[0] = '\0', p.filled = p.sent = p.computed = 0, p.tag = 0;
        memset(p.crc, 0, sizeof(p.crc));
        memset(p.member, 0, sizeof(p.member));
        memset(p.pieces, 0, sizeof(p.pieces));
        ecd_sha256_init(&p.sha);
        p.own.fd = -1;
        p.own_tmp[0][0] = '\0';
        free(p.par), free(p.scratch), free(p.Gz), free(G), free(inl_buf);
        p.par = NULL, p.scratch = NULL, p.Gz = NULL, G = NULL, inl_buf = NULL;
        vput_end(p.vf);
        p.vf = NULL;
        memset(&m, 0, sizeof(m));
        err[0] = '\0';
        usleep(100000); /* the leader sees a dead member's connection close meanwhile */
        goto again;
    }
    put_inflight_done(held);
    char sha[65];
    ecd_hex(m.sha, 32, sha);
    c->deadline = 0; /* the upload's deadline is not the answer's */
    if (ok) {
        ecd_log("put %s: %llu bytes, chunk %llu, committed on %d of %d nodes%s%s", name, size,
                (unsigned long long)m.chunk, committed, n, op.down[0] ? "; down: " : "", op.down);
        c->reuse = ecd_printf(c, "OK %s %llu %s %d/%d\n", name, size, sha, committed, n) == 0;
    } else {
        ecd_log("put %s failed: %s", name, err);
        reply_err(c, "PUT %s failed: %s", name, err);
        if (!truncated) drain_upload(c, size - got); /* so the client reads this answer */
    }
    free(p.ring);
    free(p.par);
    free(p.scratch);
    free(p.Gz);
    free(G);
    free(inl_buf);
    vput_end(p.vf);
    pthread_mutex_destroy(&p.mu);
    pthread_cond_destroy(&p.cv);
}
