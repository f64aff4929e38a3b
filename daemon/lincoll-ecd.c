/*
 * daemon/lincoll-ecd.c: the erasure-coding storage daemon, one per storage
 * node.
 *
 *   lincoll-ecd --node ID --dir DIR --cluster FILE [--listen HOST:PORT]
 *               [--port-file FILE] [--timeout S] [--max-object BYTES]
 *               [--stripe BYTES] [--die-with-parent]
 *
 * Objects are striped RS(k, m) over the k + m nodes of the cluster file
 * (docs/daemon.md): every object is split into k data chunks, and m parity
 * chunks are computed by lincoll's encode collective among the stripe's
 * daemons; a lost node's chunks are rebuilt by lincoll's repair collective.
 * Each such operation forms its own lincoll group, a new context built on
 * the daemons' own TCP connections (LINCOLL_BOOTSTRAP_OOB, the coordinator
 * is the hub), over whichever nodes are up at that moment: a replacement
 * joins the next operation without any survivor restarting.
 *
 * One TCP port serves the client (lincoll-ec) and the other daemons, one
 * request per connection, text lines (docs/daemon.md lists them).  Port 0
 * lets the kernel pick one; the port is printed and written to
 * --port-file.  Every wait on a peer is bounded (--timeout, default 10 s,
 * also the lincoll context's timeout).
 */
#include "daemon/ecd.h"
#include "kernels/crc/crc32c.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static struct {
    int node;
    const char *dir, *cluster;
    double timeout;
    uint64_t max_object;
    uint64_t stripe; /* bytes of a row per stripe of a put; 0: ECD_STRIPE_AUTO */
} cfg = {.node = -1, .timeout = 10, .max_object = 1ull << 30};

static ecd_disk_t disk;
static lincoll_field_t *gf;
static pthread_mutex_t op_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long op_counter;
static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- small helpers ------------------------------------------------------ */

static int reply_err(ecd_conn_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int reply_err(ecd_conn_t *c, const char *fmt, ...)
{
    char msg[ECD_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; p++)
        if (*p == '\n') *p = ' ';
    return c != NULL ? ecd_printf(c, "ERR %s\n", msg) : 0;
}

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* Rows to nodes: a rotation by the name's hash (objects spread their data
 * rows over every node), with the live nodes first, so that the dead ones,
 * at most m of them, hold parity rows only. */
static void place(const char *name, int n, const int *live, int *node_of_row)
{
    int rot = (int)(fnv1a(name) % (uint32_t)n), r = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            int nd = (rot + i) % n;
            if ((pass == 0) == (live[nd] != 0)) node_of_row[r++] = nd;
        }
}

static uint64_t *generator(int n, int k)
{
    uint64_t *G = malloc(sizeof(uint64_t) * (size_t)n * (size_t)k);
    if (G != NULL &&
        lincoll_gf_matrix_systematic(gf, n, k, LINCOLL_GF_RS_CAUCHY, G) != LINCOLL_OK) {
        free(G);
        G = NULL;
    }
    return G;
}

/* One row of the code: out = sum_j data_j G[row][j]. */
static int encode_row(const uint64_t *G, int k, int row, const uint8_t *data, size_t chunk,
                      uint8_t *out)
{
    if (row < k) {
        memcpy(out, data + (size_t)row * chunk, chunk);
        return 0;
    }
    const void *src[ECD_MAX_NODES];
    for (int j = 0; j < k; j++)
        src[j] = data + (size_t)j * chunk;
    void *dst[1] = {out};
    return lincoll_gf_encode(gf, k, 1, G + (size_t)row * (size_t)k, chunk, src, dst) == LINCOLL_OK
               ? 0
               : -1;
}

static void new_opid(char *out, size_t cap)
{
    pthread_mutex_lock(&counter_lock);
    unsigned long n = ++op_counter;
    pthread_mutex_unlock(&counter_lock);
    snprintf(out, cap, "n%d-%ld-%d-%lu", cfg.node, (long)time(NULL), (int)getpid(), n);
}

static int read_payload(ecd_conn_t *c, const char *tag, size_t max, char **buf_p, size_t *len_p)
{
    char line[ECD_LINE_MAX] = "", *w[3];
    if (ecd_read_line(c, line, sizeof(line)) < 0) return -1;
    if (ecd_split(line, w, 3) != 2 || strcmp(w[0], tag) != 0) {
        errno = EPROTO;
        return -1;
    }
    size_t len = strtoull(w[1], NULL, 10);
    if (len > max) {
        errno = EMSGSIZE;
        return -1;
    }
    char *b = malloc(len + 1);
    if (b == NULL || ecd_read(c, b, len) != 0) {
        free(b);
        return -1;
    }
    b[len] = '\0';
    *buf_p = b;
    *len_p = len;
    return 0;
}

static int lock_op_coordinator(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)cfg.timeout;
    return pthread_mutex_timedlock(&op_lock, &ts);
}

/* ---- the coordinator's view of an operation's members -------------------- */

typedef struct op {
    char id[64];
    ecd_cluster_t cl;
    int live[ECD_MAX_NODES];
    ecd_conn_t *conn[ECD_MAX_NODES]; /* live peers (never self) */
    int nlive;
    char down[256]; /* "3 (reason), 5 (reason)" */
} op_t;

/* Contact every node: "OP id self" -> "OK ready".  Unreachable or busy
 * nodes are down for this operation. */
static int op_begin(op_t *op, char *err, size_t esize)
{
    memset(op, 0, sizeof(*op));
    if (ecd_cluster_load(cfg.cluster, &op->cl, err, esize) != 0) return -1;
    if (cfg.node >= op->cl.n) {
        snprintf(err, esize, "this daemon is node %d but the cluster file has nodes 0..%d",
                 cfg.node, op->cl.n - 1);
        return -1;
    }
    new_opid(op->id, sizeof(op->id));
    /* a busy node is finishing another operation, which is bounded by its
     * timeouts: ask again for a while before counting it down */
    int pending[ECD_MAX_NODES] = {0}, npending = 0;
    char why[ECD_MAX_NODES][256];
    for (int i = 0; i < op->cl.n; i++) {
        why[i][0] = '\0';
        if (i == cfg.node) {
            op->live[i] = 1;
            op->nlive++;
        } else {
            pending[i] = 1;
            npending++;
        }
    }
    double busy_until = ecd_now() + 4 * cfg.timeout;
    while (npending > 0) {
        int busy = 0;
        for (int i = 0; i < op->cl.n; i++) {
            if (!pending[i]) continue;
            char line[ECD_LINE_MAX] = "";
            why[i][0] = '\0';
            ecd_conn_t *c = ecd_connect(op->cl.addr[i], cfg.timeout < 3 ? cfg.timeout : 3,
                                        cfg.timeout, why[i], sizeof(why[i]));
            if (c != NULL && ecd_printf(c, "OP %s %d\n", op->id, cfg.node) == 0 &&
                ecd_read_line(c, line, sizeof(line)) >= 0 && strcmp(line, "OK ready") == 0) {
                op->conn[i] = c;
                op->live[i] = 1;
                op->nlive++;
                pending[i] = 0;
                npending--;
                continue;
            }
            if (c != NULL) snprintf(why[i], sizeof(why[i]), "%s", line[0] ? line : strerror(errno));
            ecd_conn_close(c);
            if (strstr(line, "busy") != NULL && ecd_now() < busy_until) {
                busy++;
                continue;
            }
            pending[i] = 0;
            npending--;
            size_t l = strlen(op->down);
            snprintf(op->down + l, sizeof(op->down) - l, "%s%d (%s)", l ? ", " : "", i, why[i]);
        }
        if (busy > 0) usleep(300000);
    }
    if (op->down[0]) ecd_log("op %s: nodes down: %s", op->id, op->down);
    return 0;
}

static void op_end(op_t *op)
{
    for (int i = 0; i < ECD_MAX_NODES; i++) {
        ecd_conn_close(op->conn[i]);
        op->conn[i] = NULL;
    }
}

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

#define ECD_STRIPE_AUTO  (1u << 20)  /* bytes of a row per stripe (--stripe 0) */
#define ECD_PUT_RING     (32u << 20) /* coordinator: bytes of stripes in flight */
#define ECD_MEMBER_RING  (16u << 20) /* member: bytes of pieces in flight */
#define ECD_PUT_INFLIGHT 2           /* stripes whose collectives run at once */

static const lincoll_encode_opts_t put_encode_opts = {.algo = LINCOLL_ENCODE_ALGO_DIRECT};

static uint64_t put_stripe_width(uint64_t chunk)
{
    uint64_t b = cfg.stripe > 0 ? cfg.stripe : ECD_STRIPE_AUTO;
    return b < chunk ? b : chunk;
}

/* Parity rows the collective computes: the live ones but the coordinator's
 * (crow, its row).  0: no collective. */
static int put_remote_parity(int k, int L, int crow)
{
    return L - k - (crow >= k ? 1 : 0);
}

/* The L x k generator the collective gets: G's first L rows, the
 * coordinator's own parity row zeroed. */
static uint64_t *put_collective_generator(const uint64_t *G, int L, int k, int crow)
{
    uint64_t *Gz = malloc(sizeof(uint64_t) * (size_t)L * (size_t)k);
    if (Gz == NULL) return NULL;
    memcpy(Gz, G, sizeof(uint64_t) * (size_t)L * (size_t)k);
    if (crow >= k && crow < L)
        memset(Gz + (size_t)crow * (size_t)k, 0, sizeof(uint64_t) * (size_t)k);
    return Gz;
}

/* Read and drop what the client still sends of a refused upload (bounded by
 * the idle timeout), so that it reads the answer rather than a reset. */
static void drain_upload(ecd_conn_t *c, uint64_t left)
{
    uint8_t buf[65536];
    while (left > 0) {
        size_t n = left < sizeof(buf) ? (size_t)left : sizeof(buf);
        if (ecd_read(c, buf, n) != 0) return;
        left -= n;
    }
}

static int wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, double seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long long ns = ts.tv_nsec + (long long)(seconds * 1e9);
    ts.tv_sec += (time_t)(ns / 1000000000LL);
    ts.tv_nsec = (long)(ns % 1000000000LL);
    return pthread_cond_timedwait(cv, mu, &ts);
}

typedef struct put_pipe {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* fixed for the put */
    int k, mm, n, L, my_rank, encode;
    uint64_t size, chunk, stripe, nst;
    const int *node_of_row;
    const uint64_t *G;                 /* n x k */
    uint64_t *Gz;                      /* the collective's (put_collective_generator) */
    ecd_conn_t *member[ECD_MAX_NODES]; /* by rank, NULL at this one */
    ecd_conn_t *pieces[ECD_MAX_NODES]; /* by data row, NULL at this one's */
    ecd_group_t *g;
    int nslot;
    uint8_t *ring;    /* nslot stripes of k * stripe bytes */
    uint8_t *par;     /* the parity pieces of one stripe (mm * stripe) */
    uint8_t *scratch; /* the collectives' outputs here (ECD_PUT_INFLIGHT stripes; zeros) */
    /* progress (mu) */
    uint64_t filled, sent, computed;
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

/* Thread: every data piece to its row's node. */
static void *put_distribute(void *arg)
{
    put_pipe_t *p = arg;
    for (uint64_t s = 0; s < p->nst; s++) {
        if (put_wait(p, &p->filled, s) != 0) return NULL;
        uint64_t w = ecd_stripe_width(p->chunk, p->stripe, s);
        const uint8_t *b = put_slot(p, s);
        for (int j = 0; j < p->k; j++) {
            if (p->pieces[j] == NULL) continue;
            if (ecd_write(p->pieces[j], b + (size_t)j * w, w) != 0) {
                put_fail(p, "sending node %d its data: %s", p->node_of_row[j], strerror(errno));
                return NULL;
            }
        }
        put_advance(p, &p->sent, s + 1);
    }
    p->t_dist = ecd_now() - p->t0;
    return NULL;
}

/* Thread: the object's sha256, every row's piece and crc, this node's
 * piece to its temporary. */
static void *put_compute(void *arg)
{
    put_pipe_t *p = arg;
    const int k = p->k, mm = p->mm;
    for (uint64_t s = 0; s < p->nst; s++) {
        if (put_wait(p, &p->filled, s) != 0) return NULL;
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
            return NULL;
        }
        for (int r = 0; r < k + mm; r++)
            p->crc[r] = lc_crc32c(p->crc[r], r < k ? src[r] : dst[r - k], w);
        const void *mine = p->my_rank < k ? src[p->my_rank] : dst[p->my_rank - k];
        if (ecd_temp_append(&p->own, mine, w) != 0) {
            put_fail(p, "writing this node's chunk failed");
            return NULL;
        }
        put_advance(p, &p->computed, s + 1);
    }
    if (ecd_temp_finish(&p->own, p->own_tmp[0], sizeof(p->own_tmp[0])) != 0)
        put_fail(p, "writing this node's chunk failed");
    return NULL;
}

/* Thread: this node's part of the collective (its row is zero: it moves
 * nothing), then, once every piece is out, lincoll_finalize, which returns
 * when every member is through its last stripe. */
static void *put_encode(void *arg)
{
    put_pipe_t *p = arg;
    if (!p->encode) return NULL;
    lincoll_context_t *ctx;
    lincoll_status_t st = ecd_group_context(p->g, &ctx);
    if (st != LINCOLL_OK) {
        put_fail(p, "lincoll_init of the group: %s", lincoll_strerror(st));
        return NULL;
    }
    lincoll_comm_t *w;
    lincoll_comm_world(ctx, &w);
    /* the members keep ECD_PUT_INFLIGHT stripes' collectives in flight: the
     * same plans, started in the same order */
    lincoll_plan_t *plan[ECD_PUT_INFLIGHT] = {NULL};
    const int nplan = p->nst < ECD_PUT_INFLIGHT ? (int)p->nst : ECD_PUT_INFLIGHT;
    for (int i = 0; i < nplan && st == LINCOLL_OK; i++)
        st = lincoll_encode_rs_init(w, gf, p->k, LINCOLL_GF_RS_CAUCHY, p->Gz, p->stripe, NULL,
                                    p->scratch + (size_t)i * p->stripe, &put_encode_opts, &plan[i]);
    for (uint64_t s = 0; st == LINCOLL_OK && s <= p->nst && !put_failed(p); s++) {
        if (s < p->nst) st = lincoll_start(plan[s % (uint64_t)nplan]);
        if (st == LINCOLL_OK && s > 0)
            st = ecd_drive_plan_watch(ctx, plan[(s - 1) % (uint64_t)nplan], NULL);
    }
    if (st != LINCOLL_OK) put_fail(p, "encode: %s", lincoll_strerror(st));
    put_wait(p, &p->sent, p->nst - 1);
    for (int i = 0; i < ECD_PUT_INFLIGHT; i++)
        lincoll_plan_free(plan[i]);
    lincoll_status_t fin = lincoll_finalize(ctx);
    if (fin != LINCOLL_OK) put_fail(p, "encode: the group's finalize: %s", lincoll_strerror(fin));
    p->t_encode = ecd_now() - p->t0;
    return NULL;
}

static void client_put(ecd_conn_t *c, char **w, int nw)
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
    if (lock_op_coordinator() != 0) {
        reply_err(c, "PUT %s: this node is busy with another operation; try again", name);
        drain_upload(c, size);
        return;
    }
    op_t op;
    char err[512] = "";
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
    int nth = 0, ok = 0, committed = 0, truncated = 0;
    uint64_t got = 0; /* upload bytes read */
    double t_fsync = 0;
    if (op_begin(&op, err, sizeof(err)) != 0) goto done;
    const int n = op.cl.n, k = op.cl.k, L = op.nlive;
    snprintf(m.name, sizeof(m.name), "%s", name);
    m.size = size;
    m.k = k;
    m.m = op.cl.m;
    snprintf(m.op, sizeof(m.op), "%s", op.id);
    if (L < k) {
        snprintf(err, sizeof(err),
                 "only %d of %d nodes are reachable; RS(%d,%d) needs %d (more than m=%d are "
                 "lost: %s); nothing written",
                 L, n, k, op.cl.m, k, op.cl.m, op.down);
        goto done;
    }
    place(name, n, op.live, m.node);
    int my_rank = -1;
    for (int r = 0; r < L; r++)
        if (m.node[r] == cfg.node) my_rank = r;
    if (L > k && my_rank < k) { /* this node takes a live parity row (see above) */
        m.node[my_rank] = m.node[k];
        m.node[k] = cfg.node;
        my_rank = k;
    }
    m.chunk = size ? (size + (uint64_t)k - 1) / (uint64_t)k : 1;
    m.stripe = put_stripe_width(m.chunk);
    p.k = k, p.mm = op.cl.m, p.n = n, p.L = L, p.my_rank = my_rank;
    p.size = size, p.chunk = m.chunk, p.stripe = m.stripe;
    p.nst = ecd_stripe_count(m.chunk, m.stripe);
    p.node_of_row = m.node;
    p.encode = put_remote_parity(k, L, my_rank) > 0;
    size_t stripe_bytes = (size_t)k * p.stripe;
    p.nslot = (int)(ECD_PUT_RING / stripe_bytes);
    if (p.nslot < 3) p.nslot = 3;
    if ((uint64_t)p.nslot > p.nst) p.nslot = (int)p.nst;
    G = generator(n, k);
    p.G = G;
    p.Gz = G ? put_collective_generator(G, L, k, my_rank) : NULL;
    p.ring = malloc((size_t)p.nslot * stripe_bytes);
    p.par = malloc((size_t)op.cl.m * p.stripe);
    p.scratch = malloc((size_t)ECD_PUT_INFLIGHT * p.stripe);
    if (G == NULL || p.Gz == NULL || p.ring == NULL || p.par == NULL || p.scratch == NULL) {
        snprintf(err, sizeof(err), "out of memory");
        goto done;
    }
    ecd_log("put %s (op %s): %llu bytes, chunks of %llu bytes in %llu stripes to %d nodes%s", name,
            op.id, size, (unsigned long long)m.chunk, (unsigned long long)p.nst, L,
            p.encode ? "" : " (no parity row to encode remotely)");
    /* tell every member its rank, the placement and the stripes */
    ecd_group_t g = {.rank = my_rank, .size = L, .hub = 1, .timeout = cfg.timeout};
    g.member = p.member;
    p.g = &g;
    char rows[ECD_MAX_NODES * 4] = "";
    for (int r = 0; r < n; r++) {
        size_t l = strlen(rows);
        snprintf(rows + l, sizeof(rows) - l, "%s%d", r ? "," : "", m.node[r]);
    }
    for (int r = 0; r < L; r++) {
        int nd = m.node[r];
        if (nd == cfg.node) continue;
        p.member[r] = op.conn[nd];
        if (ecd_printf(p.member[r], "ENCODE %s %llu %llu %d %d %d %d %s %llu\n", name, size,
                       (unsigned long long)m.chunk, k, op.cl.m, L, r, rows,
                       (unsigned long long)m.stripe) != 0) {
            snprintf(err, sizeof(err), "sending node %d its part: %s", nd, strerror(errno));
            goto done;
        }
    }
    for (int r = 0; r < L; r++) {
        char line[ECD_LINE_MAX] = "";
        if (p.member[r] == NULL) continue;
        if (ecd_read_line(p.member[r], line, sizeof(line)) < 0 || strcmp(line, "OK") != 0) {
            snprintf(err, sizeof(err), "node %d refused the put: %s", m.node[r],
                     line[0] ? line : strerror(errno));
            goto done;
        }
    }
    /* the data rows' streams */
    for (int j = 0; j < k; j++) {
        int nd = m.node[j];
        if (nd == cfg.node) continue;
        char why[256] = "", line[ECD_LINE_MAX] = "";
        p.pieces[j] = ecd_connect(op.cl.addr[nd], cfg.timeout < 3 ? cfg.timeout : 3, cfg.timeout,
                                  why, sizeof(why));
        if (p.pieces[j] == NULL || ecd_printf(p.pieces[j], "PIECES %s %d\n", op.id, j) != 0 ||
            ecd_read_line(p.pieces[j], line, sizeof(line)) < 0 || strcmp(line, "OK") != 0) {
            snprintf(err, sizeof(err), "opening node %d's data stream: %s", nd,
                     line[0]  ? line
                     : why[0] ? why
                              : strerror(errno));
            goto done;
        }
    }
    if (ecd_temp_open(&disk, op.id, name, my_rank, &p.own) != 0) {
        snprintf(err, sizeof(err), "writing this node's chunk failed");
        goto done;
    }
    void *(*fns[3])(void *) = {put_distribute, put_compute, put_encode};
    for (int i = 0; i < 3; i++) {
        if (pthread_create(&th[nth], NULL, fns[i], &p) != 0) {
            put_fail(&p, "cannot start a thread");
            break;
        }
        nth++;
    }
    /* the upload, stripe by stripe, as the ring frees up */
    p.t_setup = ecd_now() - t0;
    for (uint64_t s = 0; s < p.nst; s++) {
        pthread_mutex_lock(&p.mu);
        while (!p.failed && s >= (p.sent < p.computed ? p.sent : p.computed) + (uint64_t)p.nslot)
            pthread_cond_wait(&p.cv, &p.mu);
        int f = p.failed;
        pthread_mutex_unlock(&p.mu);
        if (f) break;
        uint64_t wd = ecd_stripe_width(m.chunk, m.stripe, s),
                 off = ecd_stripe_offset(k, m.stripe, s);
        uint64_t take = size > off ? size - off : 0;
        if (take > (uint64_t)k * wd) take = (uint64_t)k * wd;
        uint8_t *b = put_slot(&p, s);
        if (ecd_read(c, b, take) != 0) {
            ecd_log("put %s: the client sent less than the %llu bytes it announced (%s); "
                    "nothing written",
                    name, size, strerror(errno));
            put_fail(&p, "upload truncated (%s); nothing written", strerror(errno));
            truncated = 1;
            break;
        }
        got += take;
        memset(b + take, 0, (size_t)k * wd - take);
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
        char line[ECD_LINE_MAX] = "", *ww[3] = {line, NULL, NULL};
        if (p.member[r] == NULL) continue;
        if (ecd_read_line(p.member[r], line, sizeof(line)) < 0) {
            snprintf(err, sizeof(err), "node %d did not report: %s", m.node[r], strerror(errno));
            goto done;
        }
        if (ecd_split(line, ww, 3) != 2 || strcmp(ww[0], "READY") != 0 ||
            (uint32_t)strtoul(ww[1], NULL, 16) != m.crc[r]) {
            snprintf(err, sizeof(err), "node %d: %s", m.node[r],
                     strcmp(ww[0], "READY") == 0 ? "its chunk differs from the code" : line);
            goto done;
        }
    }
    t_fsync = ecd_now() - t0;
    /* commit: the manifest to every member, then here */
    char text[ECD_MANIFEST_MAX];
    int tlen = ecd_manifest_format(&m, text, sizeof(text));
    for (int r = 0; r < L; r++) {
        char line[ECD_LINE_MAX] = "";
        if (p.member[r] == NULL) continue;
        if (ecd_printf(p.member[r], "COMMIT %d\n", tlen) == 0 &&
            ecd_write(p.member[r], text, (size_t)tlen) == 0 &&
            ecd_read_line(p.member[r], line, sizeof(line)) >= 0 &&
            strcmp(line, "OK committed") == 0)
            committed++;
        else
            ecd_log("put %s: node %d did not commit (%s); repair rebuilds its chunk", name,
                    m.node[r], strerror(errno));
    }
    if (ecd_disk_commit(&disk, &m, p.own_tmp, &my_rank, 1) == 0) {
        committed++;
        p.own_tmp[0][0] = '\0';
    }
    if (committed < k) {
        snprintf(err, sizeof(err), "only %d nodes committed (need %d)", committed, k);
        goto done;
    }
    ok = 1;
    ecd_log(
        "put %s timing setup %.3f upload %.3f distribute %.3f encode %.3f fsync %.3f commit %.3f",
        name, p.t_setup, p.t_upload, p.t_dist, p.encode ? p.t_encode : p.t_dist, t_fsync,
        ecd_now() - t0);
done:
    if (nth > 0) { /* a setup step failed after some threads started */
        put_fail(&p, "%s", err);
        for (int i = 0; i < nth; i++)
            pthread_join(th[i], NULL);
    }
    ecd_temp_drop(&p.own);
    if (!ok) ecd_disk_abort(p.own_tmp, 1);
    for (int j = 0; j < ECD_MAX_NODES; j++)
        ecd_conn_close(p.pieces[j]);
    op_end(&op); /* members without a COMMIT drop their temporaries */
    pthread_mutex_unlock(&op_lock);
    char sha[65];
    ecd_hex(m.sha, 32, sha);
    if (ok) {
        ecd_log("put %s: %llu bytes, chunk %llu, committed on %d of %d nodes%s%s", name, size,
                (unsigned long long)m.chunk, committed, op.cl.n, op.down[0] ? "; down: " : "",
                op.down);
        ecd_printf(c, "OK %s %llu %s %d/%d\n", name, size, sha, committed, op.cl.n);
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
    pthread_mutex_destroy(&p.mu);
    pthread_cond_destroy(&p.cv);
}

/* ---- put: a member's side ---------------------------------------------------- */

/* What a member of a put shares with the connection that streams its data
 * pieces ("PIECES", served by its own thread). */
typedef struct member_pipe {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char opid[64];
    int row;
    uint64_t chunk, stripe, nst;
    int nslot;
    uint8_t *ring; /* nslot pieces of stripe bytes (zero-padded) */
    uint64_t filled, consumed;
    int failed, attached, detached;
    ecd_conn_t *pc;
    ecd_temp_t tmp;
    uint32_t crc;
} member_pipe_t;

static pthread_mutex_t pipe_lock = PTHREAD_MUTEX_INITIALIZER;
static member_pipe_t *cur_pipe; /* the put this node takes part in (op_lock: one at a time) */

static void sanitize_opid(char *opid)
{
    for (char *q = opid; *q; q++)
        if (!((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'z') || *q == '-')) *q = '_';
}

static void member_fail(member_pipe_t *p)
{
    pthread_mutex_lock(&p->mu);
    p->failed = 1;
    if (p->attached && !p->detached) ecd_conn_shutdown(p->pc);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* "PIECES OPID ROW": the coordinator streams this node's data row, the
 * pieces of every stripe in order (ecd_stripe_width bytes each). */
static void peer_pieces(ecd_conn_t *c, char **w, int nw)
{
    char opid[64] = "";
    if (nw == 3) snprintf(opid, sizeof(opid), "%s", w[1]);
    sanitize_opid(opid);
    member_pipe_t *p = NULL;
    pthread_mutex_lock(&pipe_lock);
    if (nw == 3 && cur_pipe != NULL && strcmp(cur_pipe->opid, opid) == 0 &&
        cur_pipe->row == atoi(w[2])) {
        pthread_mutex_lock(&cur_pipe->mu);
        if (!cur_pipe->attached && !cur_pipe->failed) {
            p = cur_pipe;
            p->attached = 1;
            p->pc = c;
        }
        pthread_mutex_unlock(&cur_pipe->mu);
    }
    pthread_mutex_unlock(&pipe_lock);
    if (p == NULL) {
        reply_err(c, "PIECES: no put of that operation and row waits for data here");
        return;
    }
    int ok = ecd_printf(c, "OK\n") == 0;
    for (uint64_t s = 0; ok && s < p->nst; s++) {
        pthread_mutex_lock(&p->mu);
        while (!p->failed && s >= p->consumed + (uint64_t)p->nslot)
            pthread_cond_wait(&p->cv, &p->mu);
        ok = !p->failed;
        pthread_mutex_unlock(&p->mu);
        if (!ok) break;
        uint64_t wd = ecd_stripe_width(p->chunk, p->stripe, s);
        uint8_t *b = p->ring + (size_t)(s % (uint64_t)p->nslot) * p->stripe;
        if (ecd_read(c, b, wd) != 0) {
            ecd_log("put (op %s): the coordinator's data stream broke: %s", p->opid,
                    strerror(errno));
            ok = 0;
            break;
        }
        memset(b + wd, 0, p->stripe - wd);
        p->crc = lc_crc32c(p->crc, b, wd);
        if (ecd_temp_append(&p->tmp, b, wd) != 0) {
            ok = 0;
            break;
        }
        pthread_mutex_lock(&p->mu);
        p->filled = s + 1;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
    pthread_mutex_lock(&p->mu);
    if (!ok) p->failed = 1;
    p->detached = 1;
    p->pc = NULL;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* Wait until piece s is in (0), or the put failed, the coordinator gave up
 * (its session connection spoke or closed) or nothing came for twice the
 * timeout (-1). */
static int member_wait_piece(member_pipe_t *p, ecd_conn_t *session, uint64_t s)
{
    double deadline = ecd_now() + 2 * cfg.timeout;
    pthread_mutex_lock(&p->mu);
    uint64_t seen = p->filled;
    while (!p->failed && p->filled <= s) {
        wait_until(&p->cv, &p->mu, 0.2);
        if (p->filled != seen) {
            seen = p->filled;
            deadline = ecd_now() + 2 * cfg.timeout;
        }
        struct pollfd pf = {.fd = session->fd, .events = POLLIN};
        if (session->pos < session->len || poll(&pf, 1, 0) > 0 || ecd_now() > deadline) {
            ecd_log("put (op %s): %s while waiting for stripe %llu", p->opid,
                    ecd_now() > deadline ? "no data" : "the coordinator gave up",
                    (unsigned long long)s);
            p->failed = 1;
        }
    }
    int f = p->failed;
    pthread_mutex_unlock(&p->mu);
    return f ? -1 : 0;
}

/* A member's side of "ENCODE NAME SIZE CHUNK K M L RANK ROWS STRIPE" (in an
 * OP session of coordinator `coord`). */
static void member_encode(ecd_conn_t *c, const char *opid, int coord, char **w, int nw)
{
    char tmp[1][600] = {{0}};
    uint8_t *pin = NULL, *pout = NULL;
    uint64_t *Gfull = NULL, *Gz = NULL;
    lincoll_context_t *ctx = NULL;
    lincoll_plan_t *plan[ECD_PUT_INFLIGHT] = {NULL};
    member_pipe_t p;
    memset(&p, 0, sizeof(p));
    p.tmp.fd = -1;
    int registered = 0, failed = 0;
    double t0 = ecd_now(), t_init = 0, t_plans = 0;
    if (nw != 10) {
        reply_err(c, "ENCODE: expected 9 arguments");
        return;
    }
    char name[ECD_NAME_MAX + 1];
    snprintf(name, sizeof(name), "%s", w[1]);
    unsigned long long size = strtoull(w[2], NULL, 10);
    uint64_t chunk = strtoull(w[3], NULL, 10), stripe = strtoull(w[9], NULL, 10);
    int k = atoi(w[4]), mm = atoi(w[5]), L = atoi(w[6]), rank = atoi(w[7]), n = k + mm;
    int node_of_row[ECD_MAX_NODES], nr = 0, crow = -1;
    for (char *s = w[8]; nr < ECD_MAX_NODES && *s;) {
        node_of_row[nr++] = (int)strtol(s, &s, 10);
        if (*s == ',') s++;
    }
    for (int r = 0; r < nr && r < L; r++)
        if (node_of_row[r] == coord) crow = r;
    if (!ecd_name_ok(name) || k < 1 || mm < 1 || n > ECD_MAX_NODES || nr != n || L < k || L > n ||
        rank < 0 || rank >= L || node_of_row[rank] != cfg.node || crow < 0 || crow == rank ||
        chunk < 1 || chunk > cfg.max_object || chunk * (uint64_t)k < size || stripe < 1 ||
        stripe > chunk) {
        reply_err(c, "ENCODE: inconsistent arguments");
        return;
    }
    if (ecd_disk_has(&disk, name)) {
        reply_err(c, "ENCODE %s: this node already has an object of that name", name);
        return;
    }
    const int encode = put_remote_parity(k, L, crow) > 0, data = rank < k;
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    snprintf(p.opid, sizeof(p.opid), "%s", opid);
    p.row = rank;
    p.chunk = chunk, p.stripe = stripe, p.nst = ecd_stripe_count(chunk, stripe);
    p.nslot = (int)(ECD_MEMBER_RING / stripe);
    if (p.nslot < 3) p.nslot = 3;
    if ((uint64_t)p.nslot > p.nst) p.nslot = (int)p.nst;
    p.ring = data ? malloc((size_t)p.nslot * stripe) : NULL;
    /* the stripes whose collectives are in flight at once, one buffer each */
    const int nplan = p.nst < ECD_PUT_INFLIGHT ? (int)p.nst : ECD_PUT_INFLIGHT;
    pin = encode && data ? malloc((size_t)nplan * stripe) : NULL;
    pout = encode ? malloc((size_t)nplan * stripe) : NULL;
    Gfull = generator(n, k);
    Gz = Gfull ? put_collective_generator(Gfull, L, k, crow) : NULL;
    if ((data && p.ring == NULL) || (encode && (pout == NULL || (data && pin == NULL))) ||
        Gz == NULL) {
        reply_err(c, "ENCODE %s: out of memory", name);
        goto out;
    }
    if (ecd_temp_open(&disk, opid, name, rank, &p.tmp) != 0) {
        reply_err(c, "ENCODE %s: cannot write a temporary", name);
        goto out;
    }
    if (data) {
        pthread_mutex_lock(&pipe_lock);
        cur_pipe = &p;
        pthread_mutex_unlock(&pipe_lock);
        registered = 1;
    }
    if (ecd_printf(c, "OK\n") != 0) goto out;
    ecd_group_t g = {.rank = rank, .size = L, .up = c, .timeout = cfg.timeout};
    lincoll_status_t st = LINCOLL_OK;
    if (encode) {
        st = ecd_group_context(&g, &ctx);
        if (st != LINCOLL_OK) {
            ecd_log("put %s (op %s): lincoll_init of the group: %s", name, opid,
                    lincoll_strerror(st));
            ctx = NULL;
            failed = 1;
        } else {
            lincoll_comm_t *wc;
            lincoll_comm_world(ctx, &wc);
            for (int i = 0; i < nplan && st == LINCOLL_OK; i++)
                st = lincoll_encode_rs_init(wc, gf, k, LINCOLL_GF_RS_CAUCHY, Gz, stripe,
                                            data ? pin + (size_t)i * stripe : NULL,
                                            data ? NULL : pout + (size_t)i * stripe,
                                            &put_encode_opts, &plan[i]);
            if (st != LINCOLL_OK) {
                ecd_log("put %s (op %s): the encode plan: %s", name, opid, lincoll_strerror(st));
                failed = 1;
            }
        }
    }
    t_init = ecd_now() - t0;
    /* stripe s's collective starts as soon as its piece is in, while stripe
     * s - 1's still runs: the links do not idle between stripes (every rank
     * starts them in the same order, stripe by stripe) */
    for (uint64_t s = 0; !failed && s <= p.nst; s++) {
        if (s < p.nst) {
            int b = (int)(s % (uint64_t)nplan);
            if (data) {
                if (member_wait_piece(&p, c, s) != 0) {
                    failed = 1;
                    break;
                }
                if (encode)
                    memcpy(pin + (size_t)b * stripe,
                           p.ring + (size_t)(s % (uint64_t)p.nslot) * stripe, stripe);
                pthread_mutex_lock(&p.mu);
                p.consumed = s + 1;
                pthread_cond_broadcast(&p.cv);
                pthread_mutex_unlock(&p.mu);
            }
            if (encode && (st = lincoll_start(plan[b])) != LINCOLL_OK) {
                ecd_log("put %s (op %s): starting the encode of stripe %llu: %s", name, opid,
                        (unsigned long long)s, lincoll_strerror(st));
                failed = 1;
                break;
            }
        }
        if (s == 0 || !encode) continue;
        /* stripe s - 1 completes */
        uint64_t d = s - 1, wd = ecd_stripe_width(chunk, stripe, d);
        int b = (int)(d % (uint64_t)nplan);
        st = ecd_drive_plan_watch(ctx, plan[b], c);
        if (st != LINCOLL_OK) {
            ecd_log("put %s (op %s): encode of stripe %llu: %s", name, opid, (unsigned long long)d,
                    lincoll_strerror(st));
            failed = 1;
            break;
        }
        if (!data) {
            const uint8_t *o = pout + (size_t)b * stripe;
            p.crc = lc_crc32c(p.crc, o, wd);
            if (ecd_temp_append(&p.tmp, o, wd) != 0) failed = 1;
        }
    }
    t_plans = ecd_now() - t0;
    if (ctx != NULL) {
        for (int i = 0; i < ECD_PUT_INFLIGHT; i++) {
            lincoll_plan_free(plan[i]); /* one still running is canceled */
            plan[i] = NULL;
        }
        lincoll_status_t fin = lincoll_finalize(ctx);
        ctx = NULL;
        if (fin != LINCOLL_OK && !failed) {
            ecd_log("put %s (op %s): the group's finalize: %s", name, opid, lincoll_strerror(fin));
            failed = 1;
        }
    }
    if (registered) { /* the data stream ends with its last piece, or now */
        pthread_mutex_lock(&pipe_lock);
        cur_pipe = NULL;
        pthread_mutex_unlock(&pipe_lock);
        registered = 0;
        if (failed) member_fail(&p);
        pthread_mutex_lock(&p.mu);
        while (p.attached && !p.detached)
            pthread_cond_wait(&p.cv, &p.mu);
        if (p.failed || !p.attached) failed = 1;
        pthread_mutex_unlock(&p.mu);
    }
    if (failed) {
        reply_err(c, "put %s: this node's part failed (see its log)", name);
        goto out;
    }
    if (ecd_temp_finish(&p.tmp, tmp[0], sizeof(tmp[0])) != 0) {
        reply_err(c, "writing the chunk failed");
        goto out;
    }
    ecd_log("put %s (op %s): row %d, %llu stripes: group ready %.3f s, last stripe %.3f s, "
            "durable %.3f s",
            name, opid, rank, (unsigned long long)p.nst, t_init, t_plans, ecd_now() - t0);
    if (ecd_printf(c, "READY %08x\n", p.crc) != 0) goto out;
    char *text;
    size_t tlen;
    if (read_payload(c, "COMMIT", ECD_MANIFEST_MAX, &text, &tlen) != 0) {
        ecd_log("put %s (op %s): no commit from the coordinator (%s); dropped", name, opid,
                strerror(errno));
        goto out;
    }
    ecd_manifest_t m;
    char err[128];
    int ok = ecd_manifest_parse(text, tlen, &m, err, sizeof(err)) == 0 && !strcmp(m.name, name) &&
             m.node[rank] == cfg.node && m.crc[rank] == p.crc && m.chunk == chunk &&
             m.stripe == stripe;
    free(text);
    if (ok && ecd_disk_commit(&disk, &m, tmp, &rank, 1) == 0) {
        tmp[0][0] = '\0';
        ecd_printf(c, "OK committed\n");
    } else {
        reply_err(c, "COMMIT refused: %s", ok ? "writing failed" : "the manifest does not match");
    }
out:
    if (registered) {
        pthread_mutex_lock(&pipe_lock);
        cur_pipe = NULL;
        pthread_mutex_unlock(&pipe_lock);
        member_fail(&p);
        pthread_mutex_lock(&p.mu);
        while (p.attached && !p.detached)
            pthread_cond_wait(&p.cv, &p.mu);
        pthread_mutex_unlock(&p.mu);
    }
    ecd_temp_drop(&p.tmp);
    ecd_disk_abort(tmp, 1);
    free(p.ring);
    free(pin);
    free(pout);
    free(Gfull);
    free(Gz);
    pthread_mutex_destroy(&p.mu);
    pthread_cond_destroy(&p.cv);
}

/* ---- repair --------------------------------------------------------------- */

typedef struct rjob {
    ecd_manifest_t m;
    int lost;                /* row to rebuild (held by the target) */
    int surv[ECD_MAX_NODES]; /* k surviving rows */
} rjob_t;

/* The repair strategy: rebuild job j's lost row on the target from its k
 * survivors.  Today's: lincoll's N-rank repair collective over the whole
 * group (lincoll_encode_repair_init), one plan per object; rank r stands
 * for the row its node holds.  A schedule among the k survivors alone can
 * replace this function without touching the rest of the operation. */
typedef int (*repair_fn_t)(lincoll_context_t *ctx, lincoll_comm_t *w, const int *node_of_rank,
                           const rjob_t *j, const uint8_t *in, uint8_t *out);

static int repair_rs_collective(lincoll_context_t *ctx, lincoll_comm_t *w, const int *node_of_rank,
                                const rjob_t *j, const uint8_t *in, uint8_t *out)
{
    const int L = lincoll_comm_size(w), me = lincoll_comm_rank(w), k = j->m.k, n = j->m.k + j->m.m;
    uint64_t *G = generator(n, k), *Gp = malloc(sizeof(uint64_t) * (size_t)L * (size_t)k);
    int surv[ECD_MAX_NODES], lost = -1, ok = -1;
    if (G == NULL || Gp == NULL) goto out;
    for (int r = 0; r < L; r++) {
        int row = -1;
        for (int i = 0; i < k; i++)
            if (j->m.node[j->surv[i]] == node_of_rank[r]) row = j->surv[i];
        if (j->m.node[j->lost] == node_of_rank[r]) row = j->lost, lost = r;
        if (row < 0) { /* no part in this object: any row will do */
            int rows[ECD_MAX_NODES];
            row = ecd_manifest_rows_of(&j->m, node_of_rank[r], rows) > 0 ? rows[0] : 0;
        }
        memcpy(Gp + (size_t)r * (size_t)k, G + (size_t)row * (size_t)k,
               sizeof(uint64_t) * (size_t)k);
    }
    for (int i = 0; i < k; i++) {
        surv[i] = -1;
        for (int r = 0; r < L; r++)
            if (node_of_rank[r] == j->m.node[j->surv[i]]) surv[i] = r;
    }
    lincoll_plan_t *plan = NULL;
    lincoll_status_t st = lincoll_encode_repair_init(w, gf, k, LINCOLL_GF_RS_CAUCHY, Gp, surv, 1,
                                                     &lost, j->m.chunk, in, out, NULL, &plan);
    if (st == LINCOLL_OK) st = ecd_run_plan(ctx, plan);
    lincoll_plan_free(plan);
    if (st != LINCOLL_OK)
        ecd_log("repair of %s row %d (rank %d): %s", j->m.name, j->lost, me, lincoll_strerror(st));
    ok = st == LINCOLL_OK ? 0 : -1;
out:
    free(G);
    free(Gp);
    return ok;
}

static const repair_fn_t repair_strategy = repair_rs_collective;

/* Every member's part of a repair: the group, one plan per job, the target
 * keeps what it rebuilt in temporaries.  Returns the number of chunks
 * rebuilt (target) or 0, or -1 when the group failed. */
static int repair_member(ecd_group_t *g, const int *node_of_rank, rjob_t *jobs, int nj,
                         char (*tmps)[600], int *rows_out, ecd_manifest_t *ms_out, int *bad_out,
                         const char *opid)
{
    lincoll_context_t *ctx;
    lincoll_status_t st = ecd_group_context(g, &ctx);
    if (st != LINCOLL_OK) {
        ecd_log("repair (op %s): lincoll_init of the group: %s", opid, lincoll_strerror(st));
        return -1;
    }
    lincoll_comm_t *w;
    lincoll_comm_world(ctx, &w);
    int rebuilt = 0, failed = 0;
    *bad_out = 0;
    for (int i = 0; i < nj && !failed; i++) {
        rjob_t *j = &jobs[i];
        uint8_t *in = NULL, *out = NULL;
        int target = j->m.node[j->lost] == cfg.node;
        for (int s = 0; s < j->m.k; s++) {
            if (j->m.node[j->surv[s]] != cfg.node) continue;
            in = calloc(1, j->m.chunk);
            if (in != NULL && ecd_disk_read_chunk(&disk, &j->m, j->surv[s], in) != ECD_CHUNK_OK) {
                /* zeros instead: the target's checksum refuses the result */
                ecd_log("repair of %s: this node's survivor row %d went bad", j->m.name,
                        j->surv[s]);
                memset(in, 0, j->m.chunk);
            }
        }
        if (target) out = malloc(j->m.chunk);
        if (target && out == NULL) failed = 1;
        if (!failed && repair_strategy(ctx, w, node_of_rank, j, in, out) != 0) failed = 1;
        if (!failed && target) {
            if (lc_crc32c(0, out, j->m.chunk) != j->m.crc[j->lost]) {
                ecd_log("repair of %s row %d: the rebuilt chunk fails the manifest's checksum; "
                        "not stored",
                        j->m.name, j->lost);
                (*bad_out)++;
            } else if (ecd_disk_write_temp(&disk, opid, j->m.name, j->lost, out, j->m.chunk,
                                           tmps[rebuilt], sizeof(tmps[0])) == 0) {
                rows_out[rebuilt] = j->lost;
                ms_out[rebuilt] = j->m;
                rebuilt++;
            }
        }
        free(in);
        free(out);
    }
    lincoll_status_t fin = lincoll_finalize(ctx);
    if (failed || fin != LINCOLL_OK) {
        ecd_disk_abort(tmps, rebuilt);
        return -1;
    }
    return rebuilt;
}

/* Inventory of one node: its committed objects with their manifests and
 * the state of its rows.  Lines: "OK n", then per object
 * "OBJ name state mflen" + manifest, state = ok | missing | corrupt of the
 * rows this node holds ("-" for none). */
static void send_inventory(ecd_conn_t *c)
{
    char **names;
    int n = ecd_disk_list(&disk, &names);
    ecd_printf(c, "OK %d\n", n);
    for (int i = 0; i < n; i++) {
        ecd_manifest_t m;
        char text[ECD_MANIFEST_MAX];
        const char *state = "-";
        int tlen = -1;
        if (ecd_disk_manifest(&disk, names[i], &m) == 0) {
            int rows[ECD_MAX_NODES], nr = ecd_manifest_rows_of(&m, cfg.node, rows);
            void *buf = malloc(m.chunk);
            for (int j = 0; j < nr && buf; j++) {
                ecd_chunk_state_t s = ecd_disk_read_chunk(&disk, &m, rows[j], buf);
                state = s == ECD_CHUNK_OK ? "ok" : s == ECD_CHUNK_MISSING ? "missing" : "corrupt";
            }
            free(buf);
            tlen = ecd_manifest_format(&m, text, sizeof(text));
        }
        if (tlen < 0) {
            ecd_printf(c, "OBJ %s corrupt 0\n", names[i]);
        } else {
            ecd_printf(c, "OBJ %s %s %d\n", names[i], state, tlen);
            ecd_write(c, text, (size_t)tlen);
        }
        free(names[i]);
    }
    free(names);
}

typedef struct inv_obj {
    ecd_manifest_t m;
    int have;                 /* a manifest was seen */
    int state[ECD_MAX_NODES]; /* per row: 0 unknown/unavailable, 1 ok, 2 missing, 3 corrupt */
} inv_obj_t;

static inv_obj_t *inv_find(inv_obj_t **objs, int *n, int *cap, const char *name)
{
    for (int i = 0; i < *n; i++)
        if (strcmp((*objs)[i].m.name, name) == 0) return &(*objs)[i];
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        inv_obj_t *no = realloc(*objs, sizeof(inv_obj_t) * (size_t)*cap);
        if (no == NULL) return NULL;
        *objs = no;
    }
    inv_obj_t *o = &(*objs)[(*n)++];
    memset(o, 0, sizeof(*o));
    snprintf(o->m.name, sizeof(o->m.name), "%s", name);
    return o;
}

/* Read one node's inventory into objs. */
static int recv_inventory(ecd_conn_t *c, int node, inv_obj_t **objs, int *n, int *cap)
{
    char line[ECD_LINE_MAX], *w[5];
    if (ecd_read_line(c, line, sizeof(line)) < 0 || ecd_split(line, w, 3) != 2 ||
        strcmp(w[0], "OK") != 0)
        return -1;
    int cnt = atoi(w[1]);
    for (int i = 0; i < cnt; i++) {
        if (ecd_read_line(c, line, sizeof(line)) < 0 || ecd_split(line, w, 5) != 4 ||
            strcmp(w[0], "OBJ") != 0)
            return -1;
        size_t tlen = strtoull(w[3], NULL, 10);
        char text[ECD_MANIFEST_MAX];
        if (tlen >= sizeof(text) || ecd_read(c, text, tlen) != 0) return -1;
        inv_obj_t *o = inv_find(objs, n, cap, w[1]);
        if (o == NULL) return -1;
        ecd_manifest_t m;
        char err[128];
        if (tlen > 0 && ecd_manifest_parse(text, tlen, &m, err, sizeof(err)) == 0) {
            if (!o->have) {
                o->m = m;
                o->have = 1;
            } else if (memcmp(o->m.sha, m.sha, 32) != 0 || o->m.chunk != m.chunk ||
                       o->m.stripe != m.stripe) {
                ecd_log("repair: node %d's manifest of %s differs from another node's", node, w[1]);
            }
        }
        int st = !strcmp(w[2], "ok")        ? 1
                 : !strcmp(w[2], "missing") ? 2
                 : !strcmp(w[2], "corrupt") ? 3
                                            : 0;
        if (o->have) {
            for (int r = 0; r < o->m.k + o->m.m; r++)
                if (o->m.node[r] == node) o->state[r] = st;
        } else {
            /* manifest unreadable here: remember for after the merge */
        }
    }
    return 0;
}

/* This node's inventory, straight into objs. */
static void local_inventory(inv_obj_t **objs, int *n, int *cap)
{
    char **names;
    int cnt = ecd_disk_list(&disk, &names);
    for (int i = 0; i < cnt; i++) {
        ecd_manifest_t m;
        inv_obj_t *o = inv_find(objs, n, cap, names[i]);
        if (o != NULL && ecd_disk_manifest(&disk, names[i], &m) == 0) {
            if (!o->have) {
                o->m = m;
                o->have = 1;
            }
            int rows[ECD_MAX_NODES], nr = ecd_manifest_rows_of(&m, cfg.node, rows);
            void *buf = malloc(m.chunk);
            for (int j = 0; j < nr && buf; j++) {
                ecd_chunk_state_t s = ecd_disk_read_chunk(&disk, &m, rows[j], buf);
                o->state[rows[j]] = s == ECD_CHUNK_OK ? 1 : s == ECD_CHUNK_MISSING ? 2 : 3;
            }
            free(buf);
        }
        free(names[i]);
    }
    free(names);
}

static void client_repair(ecd_conn_t *c, char **w, int nw)
{
    char *end;
    long target = nw == 2 ? strtol(w[1], &end, 10) : -1;
    if (nw != 2 || *end != '\0' || target < 0 || target >= ECD_MAX_NODES) {
        reply_err(c, "usage: REPAIR NODE (a node id of the cluster file)");
        return;
    }
    if (lock_op_coordinator() != 0) {
        reply_err(c, "REPAIR: this node is busy with another operation; try again");
        return;
    }
    op_t op;
    char err[512] = "";
    inv_obj_t *objs = NULL;
    int nobj = 0, cap = 0, ok = 0, rebuilt = 0, unrecoverable = 0, bad = 0, njobs = 0;
    rjob_t *jobs = NULL;
    char(*tmps)[600] = NULL;
    int *rows = NULL;
    ecd_manifest_t *ms = NULL;
    if (op_begin(&op, err, sizeof(err)) != 0) goto done;
    if (target >= op.cl.n) {
        snprintf(err, sizeof(err), "node %ld is not in the cluster (nodes 0..%d)", target,
                 op.cl.n - 1);
        goto done;
    }
    if (!op.live[target]) {
        snprintf(err, sizeof(err),
                 "node %ld is unreachable (%s): start it or its replacement "
                 "first",
                 target, op.down);
        goto done;
    }
    /* every live node's inventory */
    for (int i = 0; i < op.cl.n; i++) {
        if (!op.live[i]) continue;
        if (i == cfg.node) {
            local_inventory(&objs, &nobj, &cap);
            continue;
        }
        if (ecd_printf(op.conn[i], "INVENTORY\n") != 0 ||
            recv_inventory(op.conn[i], i, &objs, &nobj, &cap) != 0) {
            snprintf(err, sizeof(err), "node %d's inventory: %s", i, strerror(errno));
            goto done;
        }
    }
    /* the jobs: objects whose row on the target is not good */
    jobs = calloc((size_t)(nobj ? nobj : 1), sizeof(*jobs));
    if (jobs == NULL) goto done;
    for (int i = 0; i < nobj; i++) {
        inv_obj_t *o = &objs[i];
        if (!o->have) continue;
        int rr[ECD_MAX_NODES], nr = ecd_manifest_rows_of(&o->m, (int)target, rr);
        for (int t = 0; t < nr; t++) {
            if (o->state[rr[t]] == 1) continue;
            rjob_t *j = &jobs[njobs];
            j->m = o->m;
            j->lost = rr[t];
            int ns = 0;
            for (int r = 0; r < o->m.k + o->m.m && ns < o->m.k; r++)
                if (r != rr[t] && o->state[r] == 1 && op.live[o->m.node[r]]) j->surv[ns++] = r;
            if (ns < o->m.k) {
                ecd_log("repair: object %s has only %d good chunks on live nodes (needs %d); "
                        "cannot rebuild row %d now",
                        o->m.name, ns, o->m.k, rr[t]);
                unrecoverable++;
                continue;
            }
            njobs++;
        }
    }
    /* the group: every live node, in node order */
    int node_of_rank[ECD_MAX_NODES], L = 0, my_rank = -1;
    ecd_conn_t *member[ECD_MAX_NODES] = {0};
    for (int i = 0; i < op.cl.n; i++) {
        if (!op.live[i]) continue;
        if (i == cfg.node) my_rank = L;
        member[L] = op.conn[i];
        node_of_rank[L++] = i;
    }
    if (njobs > 0) {
        char members[ECD_MAX_NODES * 4] = "";
        for (int r = 0; r < L; r++) {
            size_t l = strlen(members);
            snprintf(members + l, sizeof(members) - l, "%s%d", r ? "," : "", node_of_rank[r]);
        }
        for (int r = 0; r < L; r++) {
            if (member[r] == NULL) continue;
            if (ecd_printf(member[r], "REPAIR %d %d %d %s\n", L, r, njobs, members) != 0)
                goto send_fail;
            for (int i = 0; i < njobs; i++) {
                char text[ECD_MANIFEST_MAX], sv[ECD_MAX_NODES * 4] = "";
                int tlen = ecd_manifest_format(&jobs[i].m, text, sizeof(text));
                for (int s = 0; s < jobs[i].m.k; s++) {
                    size_t l = strlen(sv);
                    snprintf(sv + l, sizeof(sv) - l, "%s%d", s ? "," : "", jobs[i].surv[s]);
                }
                if (ecd_printf(member[r], "JOB %d %s %d\n", jobs[i].lost, sv, tlen) != 0 ||
                    ecd_write(member[r], text, (size_t)tlen) != 0)
                    goto send_fail;
            }
            char line[ECD_LINE_MAX] = "";
            if (ecd_read_line(member[r], line, sizeof(line)) < 0 || strcmp(line, "OK") != 0) {
                snprintf(err, sizeof(err), "node %d refused the repair: %s", node_of_rank[r],
                         line[0] ? line : strerror(errno));
                goto done;
            }
            continue;
        send_fail:
            snprintf(err, sizeof(err), "sending node %d the jobs: %s", node_of_rank[r],
                     strerror(errno));
            goto done;
        }
        tmps = calloc((size_t)njobs, sizeof(*tmps));
        rows = calloc((size_t)njobs, sizeof(int));
        ms = calloc((size_t)njobs, sizeof(*ms));
        if (tmps == NULL || rows == NULL || ms == NULL) goto done;
        ecd_group_t g = {
            .rank = my_rank, .size = L, .hub = 1, .member = member, .timeout = cfg.timeout};
        int mine = repair_member(&g, node_of_rank, jobs, njobs, tmps, rows, ms, &bad, op.id);
        if (mine < 0) {
            snprintf(err, sizeof(err), "the repair collective failed");
            goto done;
        }
        /* reports, then commit on the target */
        int target_rebuilt = target == cfg.node ? mine : 0;
        for (int r = 0; r < L; r++) {
            char line[ECD_LINE_MAX] = "", *ww[4];
            if (member[r] == NULL) continue;
            if (ecd_read_line(member[r], line, sizeof(line)) < 0 || ecd_split(line, ww, 4) != 3 ||
                strcmp(ww[0], "READY") != 0) {
                snprintf(err, sizeof(err), "node %d: %s", node_of_rank[r],
                         line[0] ? line : strerror(errno));
                goto done;
            }
            if (node_of_rank[r] == target) {
                target_rebuilt = atoi(ww[1]);
                bad += atoi(ww[2]);
            }
        }
        for (int r = 0; r < L; r++) {
            char line[ECD_LINE_MAX] = "";
            if (member[r] == NULL) continue;
            if (ecd_printf(member[r], "COMMIT 0\n") != 0 ||
                ecd_read_line(member[r], line, sizeof(line)) < 0 ||
                strncmp(line, "OK committed", 12) != 0) {
                snprintf(err, sizeof(err), "node %d did not commit: %s", node_of_rank[r],
                         line[0] ? line : strerror(errno));
                goto done;
            }
        }
        if (target == cfg.node) {
            for (int i = 0; i < mine; i++)
                if (ecd_disk_commit(&disk, &ms[i], &tmps[i], &rows[i], 1) == 0) tmps[i][0] = '\0';
        }
        rebuilt = target_rebuilt;
    }
    ok = 1;
done:
    if (tmps != NULL) ecd_disk_abort(tmps, njobs);
    op_end(&op);
    pthread_mutex_unlock(&op_lock);
    if (ok) {
        ecd_log("repair of node %ld: %d objects checked, %d chunks rebuilt, %d unrecoverable, %d "
                "refused by their checksum",
                target, nobj, rebuilt, unrecoverable, bad);
        ecd_printf(c,
                   "OK repaired node %ld: %d objects checked, %d chunks rebuilt, %d "
                   "unrecoverable, %d failed their checksum\n",
                   target, nobj, rebuilt, unrecoverable, bad);
    } else {
        ecd_log("repair of node %ld failed: %s", target, err);
        reply_err(c, "REPAIR %ld failed: %s", target, err);
    }
    free(objs);
    free(jobs);
    free(tmps);
    free(rows);
    free(ms);
}

/* A member's side of "REPAIR L rank njobs members" (in an OP session). */
static void member_repair(ecd_conn_t *c, const char *opid, char **w, int nw)
{
    if (nw != 5) {
        reply_err(c, "REPAIR: expected 4 arguments");
        return;
    }
    int L = atoi(w[1]), rank = atoi(w[2]), nj = atoi(w[3]), node_of_rank[ECD_MAX_NODES], nr = 0;
    for (char *s = w[4]; nr < ECD_MAX_NODES && *s;) {
        node_of_rank[nr++] = (int)strtol(s, &s, 10);
        if (*s == ',') s++;
    }
    if (L < 2 || nr != L || rank < 0 || rank >= L || node_of_rank[rank] != cfg.node || nj < 1 ||
        nj > 1000000) {
        reply_err(c, "REPAIR: inconsistent arguments");
        return;
    }
    rjob_t *jobs = calloc((size_t)nj, sizeof(*jobs));
    char(*tmps)[600] = calloc((size_t)nj, sizeof(*tmps));
    int *rows = calloc((size_t)nj, sizeof(int));
    ecd_manifest_t *ms = calloc((size_t)nj, sizeof(*ms));
    int got = 0, rebuilt = -1, bad = 0;
    if (jobs == NULL || tmps == NULL || rows == NULL || ms == NULL) goto out;
    for (; got < nj; got++) {
        char line[ECD_LINE_MAX], *ww[4], err[128];
        if (ecd_read_line(c, line, sizeof(line)) < 0 || ecd_split(line, ww, 4) != 4 ||
            strcmp(ww[0], "JOB") != 0)
            break;
        size_t tlen = strtoull(ww[3], NULL, 10);
        char text[ECD_MANIFEST_MAX];
        if (tlen >= sizeof(text) || ecd_read(c, text, tlen) != 0 ||
            ecd_manifest_parse(text, tlen, &jobs[got].m, err, sizeof(err)) != 0)
            break;
        jobs[got].lost = atoi(ww[1]);
        int ns = 0;
        for (char *s = ww[2]; ns < ECD_MAX_NODES && *s;) {
            jobs[got].surv[ns++] = (int)strtol(s, &s, 10);
            if (*s == ',') s++;
        }
        if (ns != jobs[got].m.k || jobs[got].lost < 0 ||
            jobs[got].lost >= jobs[got].m.k + jobs[got].m.m)
            break;
    }
    if (got < nj) {
        reply_err(c, "REPAIR: job %d is malformed", got);
        goto out;
    }
    if (ecd_printf(c, "OK\n") != 0) goto out;
    ecd_group_t g = {.rank = rank, .size = L, .up = c, .timeout = cfg.timeout};
    rebuilt = repair_member(&g, node_of_rank, jobs, nj, tmps, rows, ms, &bad, opid);
    if (rebuilt < 0) {
        reply_err(c, "the repair collective failed");
        goto out;
    }
    char *text;
    size_t tlen;
    if (ecd_printf(c, "READY %d %d\n", rebuilt, bad) != 0 ||
        read_payload(c, "COMMIT", 0, &text, &tlen) != 0) {
        ecd_log("repair (op %s): no commit from the coordinator (%s); dropped", opid,
                strerror(errno));
        goto out;
    }
    free(text);
    int done = 0;
    for (int i = 0; i < rebuilt; i++)
        if (ecd_disk_commit(&disk, &ms[i], &tmps[i], &rows[i], 1) == 0) {
            tmps[i][0] = '\0';
            done++;
        }
    if (rebuilt > 0) ecd_log("repair (op %s): %d chunks rebuilt here", opid, done);
    ecd_printf(c, "OK committed %d\n", done);
out:
    if (tmps != NULL) ecd_disk_abort(tmps, rebuilt > 0 ? rebuilt : 0);
    free(jobs);
    free(tmps);
    free(rows);
    free(ms);
}

/* "OP id coordinator": this node takes part in a group operation. */
static void peer_op(ecd_conn_t *c, char **w, int nw)
{
    if (nw != 3) {
        reply_err(c, "usage: OP ID COORDINATOR");
        return;
    }
    if (pthread_mutex_trylock(&op_lock) != 0) {
        reply_err(c, "busy with another operation");
        return;
    }
    char opid[64];
    snprintf(opid, sizeof(opid), "%s", w[1]);
    for (char *p = opid; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || *p == '-')) *p = '_';
    c->idle = 3 * cfg.timeout; /* the coordinator may wait on dead nodes first */
    if (ecd_printf(c, "OK ready\n") == 0) {
        for (;;) {
            char line[ECD_LINE_MAX], *ww[12];
            if (ecd_read_line(c, line, sizeof(line)) < 0) break;
            int n = ecd_split(line, ww, 12);
            if (n >= 1 && strcmp(ww[0], "INVENTORY") == 0) {
                send_inventory(c);
                continue;
            }
            if (n >= 1 && strcmp(ww[0], "ENCODE") == 0)
                member_encode(c, opid, atoi(w[2]), ww, n);
            else if (n >= 1 && strcmp(ww[0], "REPAIR") == 0)
                member_repair(c, opid, ww, n);
            else
                reply_err(c, "unexpected '%s' in an operation", n ? ww[0] : "");
            break;
        }
    }
    pthread_mutex_unlock(&op_lock);
}

/* ---- get ------------------------------------------------------------------ */

/* This node's manifest of name, else the first peer's. */
static int find_manifest(const ecd_cluster_t *cl, const char *name, ecd_manifest_t *m)
{
    if (ecd_disk_manifest(&disk, name, m) == 0) return 0;
    for (int i = 0; i < cl->n; i++) {
        if (i == cfg.node) continue;
        char why[256], *text;
        size_t tlen;
        ecd_conn_t *c = ecd_connect(cl->addr[i], cfg.timeout < 3 ? cfg.timeout : 3, cfg.timeout,
                                    why, sizeof(why));
        if (c == NULL) continue;
        char err[128];
        int ok = ecd_printf(c, "MANIFEST %s\n", name) == 0 &&
                 read_payload(c, "OK", ECD_MANIFEST_MAX, &text, &tlen) == 0;
        ecd_conn_close(c);
        if (!ok) continue;
        ok = ecd_manifest_parse(text, tlen, m, err, sizeof(err)) == 0 && !strcmp(m->name, name);
        free(text);
        if (ok) return 0;
    }
    return -1;
}

/* Row r's chunk from its node, checked against the manifest here too. */
static ecd_chunk_state_t fetch_chunk(const ecd_cluster_t *cl, const ecd_manifest_t *m, int r,
                                     uint8_t *buf, char *why, size_t wsize)
{
    int nd = m->node[r];
    if (nd == cfg.node) {
        ecd_chunk_state_t s = ecd_disk_read_chunk(&disk, m, r, buf);
        snprintf(why, wsize, "%s", s == ECD_CHUNK_MISSING ? "missing" : "corrupt");
        return s;
    }
    ecd_conn_t *c =
        ecd_connect(cl->addr[nd], cfg.timeout < 3 ? cfg.timeout : 3, cfg.timeout, why, wsize);
    if (c == NULL) return ECD_CHUNK_MISSING;
    char line[ECD_LINE_MAX] = "", *w[3];
    ecd_chunk_state_t s = ECD_CHUNK_MISSING;
    if (ecd_printf(c, "FETCH %s %d\n", m->name, r) != 0 ||
        ecd_read_line(c, line, sizeof(line)) < 0) {
        snprintf(why, wsize, "node %d: %s", nd, strerror(errno));
    } else if (strncmp(line, "ERR corrupt", 11) == 0) {
        snprintf(why, wsize, "%s", line + 4);
        s = ECD_CHUNK_CORRUPT;
    } else if (ecd_split(line, w, 3) != 2 || strcmp(w[0], "OK") != 0 ||
               strtoull(w[1], NULL, 10) != m->chunk) {
        snprintf(why, wsize, "%s", line);
    } else if (ecd_read(c, buf, m->chunk) != 0) {
        snprintf(why, wsize, "node %d: %s", nd, strerror(errno));
    } else if (lc_crc32c(0, buf, m->chunk) != m->crc[r]) {
        snprintf(why, wsize, "arrived corrupted");
        s = ECD_CHUNK_CORRUPT;
    } else {
        s = ECD_CHUNK_OK;
    }
    ecd_conn_close(c);
    return s;
}

/* Put a correct chunk back on the node that lost or damaged it. */
static void restore_chunk(const ecd_cluster_t *cl, const ecd_manifest_t *m, int r,
                          const uint8_t *chunk)
{
    char text[ECD_MANIFEST_MAX], why[256];
    int tlen = ecd_manifest_format(m, text, sizeof(text));
    int nd = m->node[r];
    if (nd == cfg.node) {
        char tmp[1][600];
        char op[64];
        new_opid(op, sizeof(op));
        if (ecd_disk_write_temp(&disk, op, m->name, r, chunk, m->chunk, tmp[0], sizeof(tmp[0])) ==
                0 &&
            ecd_disk_commit(&disk, m, tmp, &r, 1) == 0)
            ecd_log("object %s: row %d rewritten here", m->name, r);
        else
            ecd_disk_abort(tmp, 1);
        return;
    }
    ecd_conn_t *c =
        ecd_connect(cl->addr[nd], cfg.timeout < 3 ? cfg.timeout : 3, cfg.timeout, why, sizeof(why));
    char line[ECD_LINE_MAX] = "";
    if (c != NULL &&
        ecd_printf(c, "STORE %s %d %llu %d\n", m->name, r, (unsigned long long)m->chunk, tlen) ==
            0 &&
        ecd_write(c, chunk, m->chunk) == 0 && ecd_write(c, text, (size_t)tlen) == 0 &&
        ecd_read_line(c, line, sizeof(line)) >= 0 && strcmp(line, "OK") == 0)
        ecd_log("object %s: row %d rewritten on node %d", m->name, r, nd);
    else
        ecd_log("object %s: could not rewrite row %d on node %d (%s)", m->name, r, nd,
                line[0] ? line : why);
    ecd_conn_close(c);
}

static void client_get(ecd_conn_t *c, char **w, int nw)
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
    uint8_t *bufs = malloc((size_t)n * chunk), *obj = malloc((size_t)k * chunk);
    uint64_t *G = generator(n, k);
    int good[ECD_MAX_NODES], ng = 0, badrow[ECD_MAX_NODES], nbad = 0;
    if (bufs == NULL || obj == NULL || G == NULL) {
        reply_err(c, "GET %s: out of memory", w[1]);
        goto out;
    }
    /* data rows first (no decode), then parity rows for what failed */
    for (int r = 0; r < n && ng < k; r++) {
        char why[256] = "";
        ecd_chunk_state_t s = fetch_chunk(&cl, &m, r, bufs + (size_t)r * chunk, why, sizeof(why));
        if (s == ECD_CHUNK_OK) {
            good[ng++] = r;
        } else {
            ecd_log("get %s: row %d on node %d unusable (%s)", m.name, r, m.node[r], why);
            badrow[nbad++] = r;
        }
    }
    if (ng < k) {
        reply_err(c, "GET %s: only %d of the %d chunks needed are readable", m.name, ng, k);
        goto out;
    }
    int lost[ECD_MAX_NODES], nl = 0;
    for (int j = 0; j < k; j++) {
        int have = 0;
        for (int i = 0; i < ng; i++)
            have |= good[i] == j;
        if (have)
            memcpy(obj + (size_t)j * chunk, bufs + (size_t)j * chunk, chunk);
        else
            lost[nl++] = j;
    }
    if (nl > 0) {
        const void *src[ECD_MAX_NODES];
        void *dst[ECD_MAX_NODES];
        for (int i = 0; i < k; i++)
            src[i] = bufs + (size_t)good[i] * chunk;
        for (int i = 0; i < nl; i++)
            dst[i] = obj + (size_t)lost[i] * chunk;
        lincoll_status_t st = lincoll_gf_decode(gf, n, k, G, good, src, nl, lost, chunk, dst);
        if (st != LINCOLL_OK) {
            reply_err(c, "GET %s: decode failed: %s", m.name, lincoll_strerror(st));
            goto out;
        }
        ecd_log("get %s: degraded read, %d data chunks decoded", m.name, nl);
    }
    /* obj holds the k data rows; the object is their stripes' pieces in
     * order (ecd_stripe_*), cut at its size: hashed, then sent, piece by piece */
    uint8_t sha[32];
    ecd_sha256_t hs;
    ecd_sha256_init(&hs);
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
                    left = len; /* the client went away: stop */
                left -= len;
            }
        }
        if (pass == 1) break;
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
    for (int i = 0; i < nbad; i++) {
        uint8_t *row = bufs + (size_t)badrow[i] * chunk;
        if (encode_row(G, k, badrow[i], obj, chunk, row) == 0 &&
            lc_crc32c(0, row, chunk) == m.crc[badrow[i]])
            restore_chunk(&cl, &m, badrow[i], row);
    }
out:
    free(bufs);
    free(obj);
    free(G);
}

/* ---- stat and the small peer requests -------------------------------------- */

static void client_stat(ecd_conn_t *c)
{
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
            ecd_conn_t *pc = ecd_connect(cl.addr[i], cfg.timeout < 3 ? cfg.timeout : 3, cfg.timeout,
                                         why, sizeof(why));
            if (pc != NULL &&
                (ecd_printf(pc, "PING\n") != 0 || ecd_read_line(pc, line, sizeof(line)) < 0))
                snprintf(why, sizeof(why), "%s", strerror(errno)), line[0] = '\0';
            ecd_conn_close(pc);
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
    ecd_printf(c, "OK %d\n", cl.n + 1);
    for (int i = 0; i <= cl.n; i++)
        ecd_printf(c, "%s\n", lines[i]);
}

static void peer_fetch(ecd_conn_t *c, char **w, int nw)
{
    ecd_manifest_t m;
    int r = nw == 3 ? atoi(w[2]) : -1;
    if (nw != 3 || !ecd_name_ok(w[1]) || ecd_disk_manifest(&disk, w[1], &m) != 0) {
        reply_err(c, "missing: no manifest of %s here", nw >= 2 ? w[1] : "?");
        return;
    }
    if (r < 0 || r >= m.k + m.m || m.node[r] != cfg.node) {
        reply_err(c, "missing: row %d of %s is not on this node", r, m.name);
        return;
    }
    uint8_t *buf = malloc(m.chunk);
    ecd_chunk_state_t s = buf ? ecd_disk_read_chunk(&disk, &m, r, buf) : ECD_CHUNK_MISSING;
    if (s == ECD_CHUNK_OK) {
        if (ecd_printf(c, "OK %llu\n", (unsigned long long)m.chunk) == 0)
            ecd_write(c, buf, m.chunk);
    } else if (s == ECD_CHUNK_CORRUPT) {
        ecd_log("object %s: row %d fails its checksum; not served", m.name, r);
        reply_err(c, "corrupt: row %d of %s fails its checksum on node %d", r, m.name, cfg.node);
    } else {
        reply_err(c, "missing: row %d of %s is not on node %d", r, m.name, cfg.node);
    }
    free(buf);
}

static void peer_store(ecd_conn_t *c, char **w, int nw)
{
    size_t clen = nw == 5 ? strtoull(w[3], NULL, 10) : 0,
           tlen = nw == 5 ? strtoull(w[4], NULL, 10) : 0;
    int r = nw == 5 ? atoi(w[2]) : -1;
    if (nw != 5 || !ecd_name_ok(w[1]) || clen < 1 || clen > cfg.max_object ||
        tlen >= ECD_MANIFEST_MAX) {
        reply_err(c, "usage: STORE NAME ROW CHUNKLEN MANIFESTLEN");
        return;
    }
    uint8_t *buf = malloc(clen);
    char text[ECD_MANIFEST_MAX], err[128], tmp[1][600] = {{0}}, op[64];
    ecd_manifest_t m;
    if (buf == NULL || ecd_read(c, buf, clen) != 0 || ecd_read(c, text, tlen) != 0) {
        free(buf);
        return;
    }
    if (ecd_manifest_parse(text, tlen, &m, err, sizeof(err)) != 0 || strcmp(m.name, w[1]) ||
        r < 0 || r >= m.k + m.m || m.node[r] != cfg.node || m.chunk != clen ||
        lc_crc32c(0, buf, clen) != m.crc[r]) {
        reply_err(c, "STORE %s: the chunk does not match its manifest", w[1]);
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

/* ---- connections ------------------------------------------------------------ */

static void *conn_main(void *arg)
{
    ecd_conn_t *c = arg;
    char line[ECD_LINE_MAX], *w[10];
    if (ecd_read_line(c, line, sizeof(line)) < 0) {
        if (errno == EMSGSIZE) reply_err(c, "request line longer than %d bytes", ECD_LINE_MAX - 1);
        ecd_conn_close(c);
        return NULL;
    }
    int n = ecd_split(line, w, 10);
    const char *cmd = n > 0 ? w[0] : "";
    if (!strcmp(cmd, "PUT"))
        client_put(c, w, n);
    else if (!strcmp(cmd, "GET"))
        client_get(c, w, n);
    else if (!strcmp(cmd, "STAT") && n == 1)
        client_stat(c);
    else if (!strcmp(cmd, "REPAIR"))
        client_repair(c, w, n);
    else if (!strcmp(cmd, "PING") && n == 1) {
        long o, mi, co;
        long long b;
        ecd_disk_stats(&disk, &o, &b, &mi, &co);
        ecd_printf(c, "OK node %d objects %ld bytes %lld missing %ld corrupt %ld\n", cfg.node, o, b,
                   mi, co);
    } else if (!strcmp(cmd, "MANIFEST") && n == 2) {
        ecd_manifest_t m;
        char text[ECD_MANIFEST_MAX];
        int tlen;
        if (ecd_name_ok(w[1]) && ecd_disk_manifest(&disk, w[1], &m) == 0 &&
            (tlen = ecd_manifest_format(&m, text, sizeof(text))) > 0) {
            if (ecd_printf(c, "OK %d\n", tlen) == 0) ecd_write(c, text, (size_t)tlen);
        } else {
            reply_err(c, "no such object here");
        }
    } else if (!strcmp(cmd, "FETCH"))
        peer_fetch(c, w, n);
    else if (!strcmp(cmd, "STORE"))
        peer_store(c, w, n);
    else if (!strcmp(cmd, "OP"))
        peer_op(c, w, n);
    else if (!strcmp(cmd, "PIECES"))
        peer_pieces(c, w, n);
    else {
        char shown[64];
        size_t i = 0;
        for (; i < sizeof(shown) - 1 && cmd[i]; i++)
            shown[i] = (cmd[i] >= 32 && cmd[i] < 127) ? cmd[i] : '?';
        shown[i] = '\0';
        reply_err(c, "unknown request '%s' (PUT NAME SIZE, GET NAME, STAT, REPAIR NODE)", shown);
    }
    ecd_conn_close(c);
    return NULL;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: lincoll-ecd --node ID --dir DIR --cluster FILE [--listen HOST:PORT]\n"
               "                   [--port-file FILE] [--timeout S] [--max-object BYTES]\n"
               "                   [--stripe BYTES] [--die-with-parent]\n"
               "One erasure-coding storage daemon (docs/daemon.md).  --listen defaults to\n"
               "0.0.0.0:0 (a free port, printed and written to --port-file).\n");
}

int main(int argc, char **argv)
{
    const char *listen_at = "0.0.0.0:0", *port_file = NULL;
    static const struct option opts[] = {{"node", required_argument, 0, 'n'},
                                         {"dir", required_argument, 0, 'd'},
                                         {"cluster", required_argument, 0, 'c'},
                                         {"listen", required_argument, 0, 'l'},
                                         {"port-file", required_argument, 0, 'p'},
                                         {"timeout", required_argument, 0, 't'},
                                         {"max-object", required_argument, 0, 'm'},
                                         {"stripe", required_argument, 0, 's'},
                                         {"die-with-parent", no_argument, 0, 'D'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int o;
    while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (o) {
        case 'n':
            cfg.node = atoi(optarg);
            break;
        case 'd':
            cfg.dir = optarg;
            break;
        case 'c':
            cfg.cluster = optarg;
            break;
        case 'l':
            listen_at = optarg;
            break;
        case 'p':
            port_file = optarg;
            break;
        case 't':
            cfg.timeout = atof(optarg);
            break;
        case 'm':
            cfg.max_object = strtoull(optarg, NULL, 10);
            break;
        case 's': {
            char *end;
            cfg.stripe = strtoull(optarg, &end, 10);
            if (*end != '\0' || optarg[0] == '-' || cfg.stripe > (1ull << 30)) {
                fprintf(stderr, "lincoll-ecd: --stripe %s: expected bytes, 0 (%u) to 2^30\n",
                        optarg, ECD_STRIPE_AUTO);
                return 2;
            }
            break;
        }
        case 'D':
            prctl(PR_SET_PDEATHSIG, SIGTERM); /* tests: never outlive the harness */
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (cfg.node < 0 || cfg.node >= ECD_MAX_NODES || cfg.dir == NULL || cfg.cluster == NULL ||
        !(cfg.timeout > 0) || cfg.max_object < 1) {
        fprintf(stderr,
                "lincoll-ecd: --node (0..%d), --dir and --cluster are required; "
                "--timeout and --max-object must be positive\n",
                ECD_MAX_NODES - 1);
        usage(stderr);
        return 2;
    }
    ecd_self = cfg.node;
    signal(SIGPIPE, SIG_IGN);
    char host[96];
    int port;
    if (ecd_parse_hostport(listen_at, host, sizeof(host), &port) != 0) {
        fprintf(stderr, "lincoll-ecd: --listen %s: expected HOST:PORT\n", listen_at);
        return 2;
    }
    if (ecd_disk_open(&disk, cfg.dir, cfg.node) != 0) return 1;
    if (lincoll_gf_field_create(256, &gf) != LINCOLL_OK) return 1;
    int lfd = ecd_listen(host, port, &port);
    if (lfd < 0) {
        ecd_log("cannot listen on %s: %s", listen_at, strerror(errno));
        return 1;
    }
    if (port_file != NULL) {
        char tmp[600];
        snprintf(tmp, sizeof(tmp), "%s.tmp", port_file);
        FILE *f = fopen(tmp, "w");
        if (f == NULL || fprintf(f, "%d\n", port) < 0 || fclose(f) != 0 ||
            rename(tmp, port_file) != 0) {
            ecd_log("cannot write the port to %s: %s", port_file, strerror(errno));
            return 1;
        }
    }
    printf("lincoll-ecd: node %d listening on %s:%d, dir %s\n", cfg.node, host, port, cfg.dir);
    fflush(stdout);
    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno != EINTR) usleep(10000);
            continue;
        }
        ecd_conn_t *c = ecd_conn_wrap(fd, cfg.timeout);
        pthread_t t;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        if (c == NULL || pthread_create(&t, &a, conn_main, c) != 0) ecd_conn_close(c);
        pthread_attr_destroy(&a);
    }
}
