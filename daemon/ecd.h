/*
 * daemon/ecd.h: the parts of lincoll-ecd (the erasure-coding storage daemon)
 * and lincoll-ec (its client).  See docs/daemon.md for the design: objects
 * striped RS(k, m) over k + m daemons, parity computed by lincoll's encode
 * collective, lost chunks rebuilt by its repair collective, one new lincoll
 * context per operation built on the daemons' own TCP connections.
 */
#ifndef ECD_H
#define ECD_H

#include <lincoll/lincoll.h>

#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

#define ECD_MAX_NODES    32   /* nodes of a cluster (so also k + m) */
#define ECD_NAME_MAX     128  /* bytes of an object name */
#define ECD_LINE_MAX     1024 /* one protocol line */
#define ECD_MANIFEST_MAX 8192 /* bytes of a manifest */

/* ---- sha256 (ecd_sha256.c) ----------------------------------------------- */
typedef struct ecd_sha256 {
    uint32_t h[8];
    uint64_t bytes;
    uint8_t buf[64];
    size_t fill;
    void *evp;   /* OpenSSL's context (EVP_MD_CTX) when it hashes this one */
    int builtin; /* this one runs in the block functions here */
    int failed;  /* OpenSSL failed: final gives zeros */
} ecd_sha256_t;
void ecd_sha256_init(ecd_sha256_t *s);
void ecd_sha256_update(ecd_sha256_t *s, const void *data, size_t len);
/* Also frees OpenSSL's context. */
void ecd_sha256_final(ecd_sha256_t *s, uint8_t out[32]);
/* A hash abandoned before its final: frees OpenSSL's context (harmless
 * after final). */
void ecd_sha256_drop(ecd_sha256_t *s);
void ecd_sha256(const void *data, size_t len, uint8_t out[32]);
/* What hashes: "openssl" (OpenSSL's EVP, where the build found it), else
 * the block function "sha-ni" (x86 SHA extensions) or "portable". */
const char *ecd_sha256_impl(void);
/* Choose it for the hashes begun after: "openssl", "sha-ni", "portable"
 * (NULL: the default).  0, or -1 when it is not available.  Not
 * thread-safe (tests and benchmarks). */
int ecd_sha256_use(const char *impl);
/* on = 1: use the portable block function even where the CPU has SHA-NI
 * (tests compare the two); 0: back to the default.  Not thread-safe. */
void ecd_sha256_portable(int on);
/* n bytes as 2n lowercase hex digits (out: 2n + 1 bytes); and back (0 / -1). */
void ecd_hex(const uint8_t *b, size_t n, char *out);
int ecd_unhex(const char *s, uint8_t *b, size_t n);

/* A detached thread running fn(arg): 0, or -1 when it could not start. */
int ecd_thread_start(void *(*fn)(void *), void *arg);

/* ---- connections (ecd_net.c) --------------------------------------------- */
/* A TCP connection with a read buffer.  Every read and write waits at most
 * `idle` seconds without progress (a silent peer is dropped after idle
 * seconds) and, when `deadline` is set, never past it (a peer that trickles
 * is dropped at the deadline). */
typedef struct ecd_conn {
    int fd;
    double idle;
    double deadline; /* ecd_now() after which every wait fails (ETIMEDOUT); 0: none */
    size_t pos, len;
    char peer[80];
    /* TLS (ecd_tls.c): the session, NULL for plaintext (--insecure); its
     * calls are serialized by tls_mu (a reader and a writer thread may share
     * one connection).  On the daemon's side, who and caps are the key the
     * peer proved (ECD_CAP_ALL for a plaintext connection of an --insecure
     * daemon). */
    void *tls;
    pthread_mutex_t tls_mu;
    int caps;
    char who[72];
    /* Kept connections (ecd_pool.c, conn_main): keep says the peer asked
     * for a connection that carries many requests ("KEEP"), reuse that the
     * last request ended at a boundary on both sides, so the connection may
     * carry another; from_pool that it was kept (its peer may have closed
     * it in the meantime: the first answer's failure is worth one fresh
     * try). */
    int keep, reuse, from_pool;
    uint8_t buf[65536];
} ecd_conn_t;

double ecd_now(void);
/* "host:port" into host and port; 0 on success. */
int ecd_parse_hostport(const char *text, char *host, size_t hsize, int *port);
/* Listen on host:port (port 0: any); *port_p = the port bound.  -1 + errno. */
int ecd_listen(const char *host, int port, int *port_p);
/* Connect within `timeout` seconds; NULL (with a reason in why) on failure. */
ecd_conn_t *ecd_connect(const char *hostport, double timeout, double idle, char *why, size_t wsize);
ecd_conn_t *ecd_conn_wrap(int fd, double idle);
void ecd_conn_close(ecd_conn_t *c);
/* Make every later read and write of c fail at once (other threads too). */
void ecd_conn_shutdown(ecd_conn_t *c);
/* 0 on success; -1 on EOF, error or idle timeout (errno ETIMEDOUT, EPIPE...). */
int ecd_write(ecd_conn_t *c, const void *buf, size_t len);
int ecd_printf(ecd_conn_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ecd_read(ecd_conn_t *c, void *buf, size_t len);
/* One line without its '\n' (a '\r' before it is dropped), NUL-terminated.
 * Returns its length, or -1 (EOF, timeout, or a line longer than cap - 1:
 * errno EMSGSIZE). */
int ecd_read_line(ecd_conn_t *c, char *line, size_t cap);
/* Split a line into at most max words (in place); returns the count. */
int ecd_split(char *line, char **word, int max);
/* 1 when bytes wait to be read without blocking in poll: the read buffer,
 * or TLS records already taken off the socket (ecd_tls_pending).  Check it
 * wherever code polls c->fd for input. */
int ecd_conn_buffered(ecd_conn_t *c);
/* Without blocking: 1 when c has bytes to read (a whole TLS record's worth
 * is taken into the read buffer), -1 when it is closed (a TLS close_notify
 * too), 0 when it is silent. */
int ecd_conn_state(ecd_conn_t *c);

/* ---- keys and capabilities (ecd_keyring.c) -------------------------------- */
/* A keyring file (mode 0600; refused when group or others may read it):
 *   # comment
 *   key ID GEN CAPS SECRET
 * ID: 1-48 of [A-Za-z0-9._-]; GEN: its generation (rotation adds GEN + 1;
 * the old one is accepted until removed); CAPS: read, write, admin or
 * cluster (the daemons' key, ID "cluster"); SECRET: 64 hex digits (32 random
 * bytes).  On the wire a key is named ID/GEN (the TLS PSK identity). */
#define ECD_KEYS_MAX   256
#define ECD_KEY_ID_MAX 48
#define ECD_CAP_READ   1 /* GET, STAT */
#define ECD_CAP_WRITE  2 /* PUT */
#define ECD_CAP_ADMIN  4 /* REPAIR */
#define ECD_CAP_PEER   8 /* the daemons' own requests: the cluster key only */
#define ECD_CAP_ALL    15
typedef struct ecd_key {
    char id[ECD_KEY_ID_MAX + 1];
    int gen;
    int caps; /* ECD_CAP_* bits: read 1, write 3, admin 7, cluster 15 */
    uint8_t secret[32];
} ecd_key_t;
typedef struct ecd_keyring {
    int n;
    ecd_key_t key[ECD_KEYS_MAX];
} ecd_keyring_t;
/* "read", "write", "admin", "cluster" -> caps bits (-1: none of them). */
int ecd_caps_parse(const char *name);
/* The name of a key's caps ("read" ...), or of the lowest key that holds
 * every bit of caps (what a command needs). */
const char *ecd_caps_name(int caps);
/* Parse keyring text (len bytes, need not be NUL-terminated); 0, or -1 with
 * "LINE: reason" in err. */
int ecd_keyring_parse(const char *text, size_t len, ecd_keyring_t *kr, char *err, size_t esize);
/* Load a keyring file: refused (-1, err says why and how to fix it) when
 * missing, unparsable, or readable or writable by group or others. */
int ecd_keyring_load(const char *path, ecd_keyring_t *kr, char *err, size_t esize);
/* Write it (a temporary of mode 0600, fsync, rename); 0 or -1 (err). */
int ecd_keyring_save(const char *path, const ecd_keyring_t *kr, char *err, size_t esize);
/* The key ID/GEN, or NULL. */
const ecd_key_t *ecd_keyring_find(const ecd_keyring_t *kr, const char *id, int gen);
/* The newest (newest = 1) or oldest generation of ID, or NULL. */
const ecd_key_t *ecd_keyring_pick(const ecd_keyring_t *kr, const char *id, int newest);
/* "ID/GEN" into out; ID and GEN back from it (0 / -1). */
void ecd_key_name(const ecd_key_t *k, char *out, size_t cap);
int ecd_key_name_parse(const char *text, size_t len, char *id, int *gen);
/* 0 when a key with `have` may send a request needing `need`; else -1 and
 * the one-line refusal ("not allowed: ...") in err. */
int ecd_caps_check(const char *cmd, int need, int have, const char *who, char *err, size_t esize);

/* ---- TLS 1.3 with external PSKs (ecd_tls.c) ------------------------------- */
/* The process's security mode, set once at start: ECD_SEC_INSECURE
 * (plaintext; every connection has every capability), or ECD_SEC_TLS with a
 * keyring file: a daemon accepts the keys in it (read again whenever the
 * file changes) and presents `self_id` (its oldest generation: "cluster"),
 * a client presents the newest generation of self_id.  0, or -1 (err). */
enum { ECD_SEC_INSECURE = 0, ECD_SEC_TLS = 1 };
int ecd_tls_setup(int mode, const char *keyring, const char *self_id, int server, char *err,
                  size_t esize);
int ecd_tls_mode(void);
/* "tls1.3-psk" or "insecure" (STAT's security line). */
const char *ecd_tls_mode_name(void);
/* Client side of a fresh connection (ecd_connect calls it): the handshake
 * within `timeout` s; 0, or -1 with a one-line reason (no key, unknown
 * client, wrong key, not TLS). */
int ecd_tls_connect(ecd_conn_t *c, double timeout, char *why, size_t wsize);
/* Daemon side: the handshake within `timeout` s; sets c->who and c->caps.
 * -1 with the reason in why (a plaintext request is answered with one
 * "ERR no key: ..." line before). */
int ecd_tls_accept(ecd_conn_t *c, double timeout, char *why, size_t wsize);
/* Is the key c's peer proved at its handshake still in the keyring, with
 * the same capabilities?  (1 for a plaintext connection.)  A kept
 * connection serves another request only then: a key removed or changed
 * ends the connections it opened. */
int ecd_tls_key_current(ecd_conn_t *c);
/* Bytes moved through TLS: > 0, 0 at EOF, -1 with errno (EAGAIN: wait for
 * *want, POLLIN or POLLOUT). */
long ecd_tls_recv(ecd_conn_t *c, void *buf, size_t len, short *want);
long ecd_tls_send(ecd_conn_t *c, const void *buf, size_t len, short *want);
/* Send what ecd_tls_send left in the connection's write buffer: 0, or -1
 * with errno (EAGAIN: wait for *want). */
int ecd_tls_flush(ecd_conn_t *c, short *want);
/* 1 when TLS holds bytes taken off the socket and not yet read. */
int ecd_tls_pending(ecd_conn_t *c);
void ecd_tls_free(ecd_conn_t *c);
/* Log one refused connection (rate-limited: at most one line a second,
 * with the count of those left out). */
void ecd_auth_log_refusal(const char *peer, const char *why);

/* ---- cluster map ---------------------------------------------------------- */
typedef struct ecd_cluster {
    int k, m, n;                  /* n >= k + m nodes, ids 0 .. n-1 */
    char addr[ECD_MAX_NODES][96]; /* host:port of every node ("" = unknown) */
} ecd_cluster_t;
/* Read the cluster file: "code K M" and "node ID HOST:PORT" lines, '#'
 * comments; the node ids are 0..N-1, N >= K + M.  0 on success, else -1 with the reason in err. */
int ecd_cluster_load(const char *path, ecd_cluster_t *cl, char *err, size_t esize);
/* The `width` nodes (of 0..nnodes-1) an object of that name lives on, by
 * rendezvous hashing, highest weight (the object's owner) first
 * (ecd_place.c). */
void placement(const char *name, int nnodes, int width, int *out);

/* ---- manifests and the chunk directory (ecd_disk.c) ----------------------- */
typedef struct ecd_manifest {
    char name[ECD_NAME_MAX + 1];
    uint64_t size;   /* object bytes */
    uint8_t sha[32]; /* of the object */
    int k, m;
    uint64_t chunk;              /* bytes of every row's chunk */
    uint64_t stripe;             /* bytes of a row in one stripe (ecd_stripe_*), 1..chunk */
    char op[64];                 /* the put that wrote it */
    int node[ECD_MAX_NODES];     /* row -> node id */
    uint32_t crc[ECD_MAX_NODES]; /* crc32c of every row's chunk */
} ecd_manifest_t;

/* Stripes: the object is cut into stripes of k * stripe bytes; stripe s
 * holds object bytes [s * k * stripe, ...) as k consecutive pieces of
 * w_s = min(stripe, chunk - s * stripe) bytes, piece j at offset s * stripe
 * of row j's chunk.  Parity rows are computed piece by piece (the code is
 * bytewise, so a parity row's chunk is still the code of the data rows'
 * chunks).  Bytes past the object's size are zeros.  stripe == chunk is one
 * stripe: row j is bytes [j * chunk, (j + 1) * chunk) of the object. */
uint64_t ecd_stripe_count(uint64_t chunk, uint64_t stripe);
uint64_t ecd_stripe_width(uint64_t chunk, uint64_t stripe, uint64_t s);
/* Object offset of stripe s's first byte (s * k * stripe). */
uint64_t ecd_stripe_offset(int k, uint64_t stripe, uint64_t s);

/* 1 when name is 1..128 bytes of [A-Za-z0-9._-] not starting with '.'. */
int ecd_name_ok(const char *name);
/* Text form; returns its length or -1 (too long). */
int ecd_manifest_format(const ecd_manifest_t *m, char *buf, size_t cap);
/* Parse; 0, or -1 with the reason in err. */
int ecd_manifest_parse(const char *text, size_t len, ecd_manifest_t *m, char *err, size_t esize);
/* The rows node `node` holds (returns the count, rows in out). */
int ecd_manifest_rows_of(const ecd_manifest_t *m, int node, int *out);

typedef enum { ECD_CHUNK_OK = 0, ECD_CHUNK_MISSING, ECD_CHUNK_CORRUPT } ecd_chunk_state_t;

typedef struct ecd_disk {
    char dir[256];
    int self; /* node id */
    pthread_mutex_t mu;
    /* what the startup scan found */
    int scan_objects, scan_bad_manifests, scan_missing, scan_corrupt, scan_orphans, scan_temps;
} ecd_disk_t;

/* Make DIR/{objects,chunks,tmp,bad} and scan: unreadable manifests and
 * chunks without a manifest move to bad/, temporaries of unfinished
 * operations are removed, every chunk is checked against its manifest
 * (counts in the scan_* fields, one log line per problem). */
int ecd_disk_open(ecd_disk_t *d, const char *dir, int self);
/* 1 when a committed manifest of name exists. */
int ecd_disk_has(ecd_disk_t *d, const char *name);
/* 0, or -1 (no such object, or its manifest is unreadable). */
int ecd_disk_manifest(ecd_disk_t *d, const char *name, ecd_manifest_t *m);
/* Names of every committed object (malloc'd array of malloc'd strings). */
int ecd_disk_list(ecd_disk_t *d, char ***names_p);
/* Read row's chunk into buf (m->chunk bytes) and check it against the
 * manifest's crc. */
ecd_chunk_state_t ecd_disk_read_chunk(ecd_disk_t *d, const ecd_manifest_t *m, int row, void *buf);
/* Write a chunk to a temporary file of operation op, fsync'd; the path goes
 * to tmp (for commit or abort).  0 or -1. */
int ecd_disk_write_temp(ecd_disk_t *d, const char *op, const char *name, int row, const void *buf,
                        size_t len, char *tmp, size_t tsize);
/* A chunk written piece by piece (a put's stream): the pieces go to the
 * temporary as they come, their write-back starts every few MiB
 * (sync_file_range), so the final fsync has little left to wait for. */
typedef struct ecd_temp {
    int fd;
    uint64_t written, started; /* bytes written; bytes whose write-back was started */
    char path[600];
} ecd_temp_t;
/* 0, or -1 (a log line says why). */
int ecd_temp_open(ecd_disk_t *d, const char *op, const char *name, int row, ecd_temp_t *t);
int ecd_temp_append(ecd_temp_t *t, const void *buf, size_t len);
/* fsync and close; the path goes to tmp (for commit or abort).  0 or -1 (the
 * temporary is removed). */
int ecd_temp_finish(ecd_temp_t *t, char *tmp, size_t tsize);
/* Close and remove (an aborted put); harmless on a closed or unopened one
 * (fd < 0). */
void ecd_temp_drop(ecd_temp_t *t);
/* Commit: rename every temporary chunk into place, then write the manifest
 * (temp, fsync, rename, fsync of the directory): an object exists on this
 * node only once its manifest does, and then with every chunk written. */
int ecd_disk_commit(ecd_disk_t *d, const ecd_manifest_t *m, char (*tmps)[600], const int *rows,
                    int n);
/* Remove temporaries (an aborted operation). */
void ecd_disk_abort(char (*tmps)[600], int n);
/* Counts over the committed objects: objects, bytes of this node's chunks,
 * chunks missing and corrupt (every chunk is read and checked). */
void ecd_disk_stats(ecd_disk_t *d, long *objects, long long *bytes, long *missing, long *corrupt);

/* ---- lincoll groups over the daemons' connections (ecd_group.c) ---------- */
/* An epoch's group: rank 0 .. size-1.  The leader is the hub of the
 * out-of-band allgather: it holds a connection to every other member
 * (member[r], NULL at its own rank); a member holds one, to the hub. */
typedef struct ecd_group {
    int rank, size;
    int hub;             /* this process is the leader */
    ecd_conn_t *up;      /* member: connection to the leader */
    ecd_conn_t **member; /* leader: connection of every rank */
    double timeout;
    int broken;
} ecd_group_t;

/* lincoll_init over the group (blocking oob callbacks on the connections). */
lincoll_status_t ecd_group_context(ecd_group_t *g, lincoll_context_t **ctx_p);

/* ---- logging -------------------------------------------------------------- */
extern int ecd_self; /* node id for log lines, -1 in the client */
void ecd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
