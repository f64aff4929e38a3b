/*
 * daemon/ecd_daemon.h: what the files of lincoll-ecd share (the daemon,
 * not its client): its options, its directory, the field, and the entry
 * points of every concern.
 *
 *   lincoll-ecd.c     options, the listening loop
 *   ecd_proto.c       the protocol: request lines, the command table
 *   ecd_op.c          membership and groups: OP sessions, rows to nodes
 *   ecd_put.c         a put, the coordinator's side
 *   ecd_put_member.c  a put, a member's side
 *   ecd_get.c         get, stat, the small peer requests
 *   ecd_repair.c      repair
 *   ecd_scrub.c       self-healing
 *   ecd_epoch.c       membership epochs: one lincoll context each (ecd_epoch.h)
 *   ecd_service.c     the threads that drive them
 *   ecd_verify_op.c   what crosses UCX is checked (ecd_verify.h)
 *   ecd_store_auth.c  a STORE is taken only from a repair this cluster started
 */
#ifndef ECD_DAEMON_H
#define ECD_DAEMON_H

#include "daemon/ecd.h"

#include <pthread.h>

typedef struct ecd_cfg {
    int node;
    const char *dir, *cluster;
    double timeout;
    uint64_t max_object;
    uint64_t stripe;       /* bytes of a row per stripe of a put; 0: ECD_STRIPE_AUTO */
    int max_conns;         /* connections served at once */
    uint64_t max_inflight; /* bytes of uploads buffered by the puts this node coordinates */
    double client_rate;    /* bytes/s an upload must keep up (its deadline) */
    uint64_t direct_max;   /* puts up to this size send their parity directly, no group */
    double scrub_interval; /* seconds between background scrubs; 0: none */
    double scrub_rate;     /* bytes/s a scrub reads at most */
} ecd_cfg_t;

extern ecd_cfg_t cfg;
extern ecd_disk_t disk;
extern lincoll_field_t *gf;

/* ---- protocol (ecd_proto.c) ---------------------------------------------- */
/* "ERR message" (newlines flattened); c may be NULL. */
int reply_err(ecd_conn_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A line "TAG LEN" then LEN bytes (at most max), NUL-terminated, malloc'd. */
int read_payload(ecd_conn_t *c, const char *tag, size_t max, char **buf_p, size_t *len_p);
/* Count a new connection in (0), or refuse it when --max-conns are being
 * served: with a clear error line, said in plaintext under --insecure (-1:
 * the caller closes it) or by a thread after the TLS handshake (1: that
 * thread owns and closes it; at most 8 at once, beyond them -1 without a
 * word). */
int ecd_conn_admit(ecd_conn_t *c);
/* Thread: serve one admitted connection (one request), then ecd_conn_done. */
void *conn_main(void *arg);
/* Close an admitted connection and count it out. */
void ecd_conn_done(ecd_conn_t *c);
/* Take `bytes` of upload buffers (0), or -1 when that would pass
 * --max-inflight (one put alone always may); *now_p: bytes held before. */
int put_inflight(uint64_t bytes, uint64_t *now_p);
void put_inflight_done(uint64_t bytes);

/* ---- membership and groups (ecd_op.c) ------------------------------------- */
/* An operation's hold on this node: on object `name` (others run beside
 * it), or on the whole node (name NULL or "": a repair).  0, or -1 (busy). */
int op_lock_try(const char *name);
void op_unlock(const char *name);
void new_opid(char *out, size_t cap);
void sanitize_opid(char *opid);
/* Its rows on those nodes: live ones first (the dead take parity rows). */
void place(const char *name, int nnodes, int width, const int *live, int *node_of_row);
/* The n x k systematic generator (malloc'd), NULL on failure. */
uint64_t *generator(int n, int k);
/* One row of the code: out = sum_j data_j G[row][j]. */
int encode_row(const uint64_t *G, int k, int row, const uint8_t *data, size_t chunk, uint8_t *out);
int wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, double seconds);

/* The coordinator's view of an operation's members. */
typedef struct op {
    char id[64];
    ecd_cluster_t cl;
    int live[ECD_MAX_NODES];
    ecd_conn_t *conn[ECD_MAX_NODES]; /* live peers (never self) */
    int nlive;
    char name[ECD_NAME_MAX + 1]; /* the object ("": the whole node) */
    int self_locked;             /* this node's operation lock is held */
    char down[512];              /* "3 (reason), 5 (reason)" */
    int pre;                     /* op_begin_pre: every member took its first request */
    int ended[ECD_MAX_NODES];    /* "END" went out with the last request (a put's COMMIT) */
} op_t;
/* A first request for each node, sent with its OP in one write (a small
 * put's ENCODE line and piece): buf[node] holds len[node] bytes at offset
 * ECD_LINE_MAX, the room before them is for the OP line; buf NULL: none. */
typedef struct ecd_op_pre {
    uint8_t *buf[ECD_MAX_NODES];
    size_t len[ECD_MAX_NODES];
} ecd_op_pre_t;
/* The nodes of want[] (indexed by node id; NULL: every node) and this one
 * joined into an operation; -1 (err) when the cluster file is unreadable or
 * busy nodes kept the operation below k for 3T.  op_end lets go. */
int op_begin(op_t *op, const int *want, char *err, size_t esize);
/* The same for an operation on one object: its nodes hold only its name. */
int op_begin_named(op_t *op, const int *want, const char *name, char *err, size_t esize);
/* op_begin_named that sends pre's first requests with the OPs when it
 * asks every node at once, and keeps them only if every node of want
 * joined at once (op->pre = 1: each member is in its first request now).
 * Otherwise none of them stands (their sessions are closed), and the
 * operation is formed as op_begin_named forms it (op->pre = 0). */
int op_begin_pre(op_t *op, const int *want, const char *name, const ecd_op_pre_t *pre, char *err,
                 size_t esize);
/* Let go of the operation's sessions: a session marked reuse (the member
 * answered its last request) is ended with "END" and kept for the next
 * operation (ecd_pool.c); the others are closed. */
void op_end(op_t *op);
void peer_op(ecd_conn_t *c, char **w, int nw);
/* Relay a put to the first reachable node of its placement `set`. */
void put_forward(ecd_conn_t *c, const ecd_cluster_t *cl, const int *set, const char *name,
                 uint64_t size);

/* ---- kept connections to other daemons (ecd_pool.c) ----------------------- */
#define ECD_POOL_PER_PEER 8    /* idle connections kept per address */
#define ECD_POOL_AGE      10.0 /* seconds one is kept */
#define ECD_KEEP_IDLE     30.0 /* seconds a daemon waits for a kept one's next request */
#define ECD_ADDR_MAX      96
/* A connection to addr: a kept one if any (from_pool = 1), else a new one
 * (ecd_connect's arguments and failures). */
ecd_conn_t *ecd_peer_connect(const char *addr, double timeout, double idle, char *why,
                             size_t wsize);
/* A new connection to addr whose daemon is asked ("KEEP") to serve more
 * than one request on it (ecd_connect's arguments and failures). */
ecd_conn_t *ecd_peer_fresh(const char *addr, double timeout, double idle, char *why, size_t wsize);
/* Send one request line req ("...\n") to addr on a kept connection if
 * there is one, and read the answer's first line into line.  A kept
 * connection whose daemon closed it meanwhile is replaced by a new one.
 * The connection (the caller reads the rest of the answer, sets reuse when
 * it has, and gives it to ecd_peer_keep), or NULL with why. */
ecd_conn_t *ecd_peer_request(const char *addr, const char *req, char *line, size_t lsize, char *why,
                             size_t wsize);
/* ecd_peer_request in two halves, so that requests to several peers are
 * all on their way before the first answer is read: ecd_peer_send sends
 * req (the connection, or NULL with why); ecd_peer_answer reads the first
 * line of its answer into line, and when the kept connection *cp turns out
 * closed by its daemon, sends req again on a new one (*cp replaced).  0, or
 * -1 with why and *cp closed and NULL. */
ecd_conn_t *ecd_peer_send(const char *addr, const char *req, char *why, size_t wsize);
int ecd_peer_answer(const char *addr, const char *req, ecd_conn_t **cp, char *line, size_t lsize,
                    char *why, size_t wsize);
/* Keep c for the next ecd_peer_connect(addr) if c->reuse says it is at a
 * request boundary and there is room; otherwise close it. */
void ecd_peer_keep(const char *addr, ecd_conn_t *c);
void ecd_pool_stats(unsigned long *hits, unsigned long *misses, int *idle);
/* Connections this daemon accepted since it started (ecd_proto.c). */
unsigned long ecd_conns_accepted(void);

/* ---- put (ecd_put.c, ecd_put_member.c) ------------------------------------ */
#define ECD_STRIPE_AUTO  (1u << 20)  /* bytes of a row per stripe (--stripe 0) */
#define ECD_PUT_RING     (32u << 20) /* coordinator: bytes of stripes in flight */
#define ECD_MEMBER_RING  (16u << 20) /* member: bytes of pieces in flight */
#define ECD_PUT_INFLIGHT 2           /* stripes whose collectives run at once */
#define ECD_INLINE_MAX   (1u << 20)  /* a direct put's pieces up to this size follow ENCODE */
extern const lincoll_encode_opts_t put_encode_opts;
int put_remote_parity(int k, int L, int crow);
uint64_t *put_collective_generator(const uint64_t *G, int L, int k, int crow);
void client_put(ecd_conn_t *c, char **w, int nw);
struct ecd_epoch;
/* ep: the epoch the session agreed on ("EPOCH"), NULL if none.  Returns 1
 * when the put committed here and the session is at a request boundary. */
int member_encode(ecd_conn_t *c, const char *opid, int coord, char **w, int nw,
                  struct ecd_epoch *ep);
void peer_pieces(ecd_conn_t *c, char **w, int nw);

/* ---- get, stat, peer requests (ecd_get.c) ---------------------------------- */
void client_get(ecd_conn_t *c, char **w, int nw);
void client_stat(ecd_conn_t *c, char **w, int nw);
void peer_ping(ecd_conn_t *c, char **w, int nw);
void peer_manifest(ecd_conn_t *c, char **w, int nw);
/* This node's manifest of name, else the first peer's (the object's nodes
 * first); 0 or -1. */
int find_manifest(const ecd_cluster_t *cl, const char *name, ecd_manifest_t *m);
/* Write a correct chunk (and the manifest) to row r's node; 0 or -1. */
int restore_chunk(const ecd_cluster_t *cl, const ecd_manifest_t *m, int r, const uint8_t *chunk);
/* The object's k data rows into obj (k * chunk bytes) from k good chunks:
 * data rows are read into their place, parity rows into par (m * chunk
 * bytes of room), and lost data rows decoded; the unusable rows in badrow.
 * 0, or -1 (err). */
int object_data(const ecd_cluster_t *cl, const ecd_manifest_t *m, const uint64_t *G, uint8_t *par,
                uint8_t *obj, int *badrow, int *nbad, char *err, size_t esize);
void peer_fetch(ecd_conn_t *c, char **w, int nw);
void peer_store(ecd_conn_t *c, char **w, int nw);

/* ---- rewrites of a row (ecd_store_auth.c) --------------------------------- */
/* Register a rewrite of name's row (its chunk's crc) about to be sent with
 * STORE; rid: 32 hex digits (cap >= 33).  0 or -1 (table full). */
int store_auth_begin(const char *name, int row, uint32_t crc, char *rid, size_t cap);
void store_auth_end(const char *rid);
/* Ask node (the STORE's FROM) whether it is rewriting that row with that
 * chunk; 0, or -1 with the reason. */
int store_auth_confirm(int node, const char *rid, const char *name, int row, uint32_t crc,
                       char *why, size_t wsize);
void peer_repairing(ecd_conn_t *c, char **w, int nw);

/* ---- repair (ecd_repair.c) ------------------------------------------------- */
void client_repair(ecd_conn_t *c, char **w, int nw);
void member_repair(ecd_conn_t *c, const char *opid, char **w, int nw, struct ecd_epoch *ep);
void send_inventory(ecd_conn_t *c);

/* ---- self-healing (ecd_scrub.c) -------------------------------------------- */
/* DIR/degraded and, with --scrub-interval > 0, the background scrub. */
int scrub_start(void);
/* One pass over the objects recorded degraded here (full: every object this
 * node holds); returns the chunks rebuilt. */
int scrub_once(int full);
/* Record an object as degraded here (why: one line). */
void degraded_mark(const char *name, const char *why);
/* Objects recorded degraded by any reachable node (-1: a node's records
 * could not be read). */
int degraded_count(const ecd_cluster_t *cl);
/* A client request starts (+1) or ends (-1): the scrub gives way. */
void client_active(int delta);
void peer_check(ecd_conn_t *c, char **w, int nw);
void peer_degraded(ecd_conn_t *c, char **w, int nw);

#endif
