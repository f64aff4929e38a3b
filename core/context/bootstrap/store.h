/*
 * core/context/bootstrap/store.h: the TCP rendezvous store (server side) and
 * its wire protocol, shared by the TCP bootstrap client (tcp.c), rank 0 when
 * it hosts the store itself, and lincoll-run.
 *
 * Wire protocol (version 1).  Every message is a 16-byte header in network
 * byte order followed by `len` payload bytes:
 *
 *   u32 magic 'LCST' | u16 version | u16 type | u32 arg | u32 len
 *
 *   HELLO        c->s  arg=rank  payload: u32 size, then the job secret
 *   HELLO_JOB    c->s  arg=rank  payload: u32 size, u8 secret length, the
 *                                secret, then the job name (1..64 bytes)
 *   WELCOME      s->c  arg=size
 *   GATHER       c->s  arg=seq   payload: this rank's blob (<= LC_STORE_MAX_PAYLOAD)
 *   GATHER_DONE  s->c  arg=seq   payload: u32 len[size], then the blobs in rank order
 *   BARRIER      c->s  arg=seq
 *   BARRIER_DONE s->c  arg=seq
 *   BYE          c->s  clean leave (a rank that disconnects without it failed)
 *   ERROR        s->c  arg=-lincoll_status_t, payload: text; the server closes
 *
 * The first message must be HELLO with the job secret (compared in constant
 * time), a rank below the job size not already connected, and the server's
 * size.  Lengths are bounded per type before any allocation; a client silent
 * for idle_timeout seconds before HELLO or in the middle of a message is
 * dropped.  A registered rank that disconnects without BYE fails the job:
 * every waiting and later operation gets LINCOLL_ERR_PEER_FAILED.
 *
 * Jobs.  A single-job server (lincoll-run, rank 0 of a job) serves one job of
 * a size fixed at creation: HELLO only.  A multi-job server (lincoll-store,
 * lincoll_store_start() with size 0: groups of long-running daemons) makes a
 * job when the first rank names it (HELLO_JOB; HELLO is the job named "")
 * with the size that rank announces, and forgets it once every rank has
 * joined and left, once it failed and its members are gone (a failure
 * closes every member's connection), or idle_timeout after its last member
 * left before all had joined.  A name can then be used again; every epoch
 * of a daemon group should take a new one.  All jobs share the server's
 * secret.
 *
 * Restrictions: the secret travels in clear text, so the store is meant for
 * a trusted network (loopback under lincoll-run, a cluster's private one).
 */
#ifndef LC_BOOTSTRAP_STORE_H
#define LC_BOOTSTRAP_STORE_H

#include <lincoll/status.h>
#include <stddef.h>
#include <stdint.h>

#define LC_STORE_MAGIC        0x4c435354u /* "LCST" */
#define LC_STORE_VERSION      1u
#define LC_STORE_HDR_SIZE     16u
#define LC_STORE_MAX_PAYLOAD  (1u << 20)   /* one rank's blob */
#define LC_STORE_MAX_SECRET   127u         /* bytes of job secret */
#define LC_STORE_MAX_REPLY    (256u << 20) /* one GATHER_DONE */
#define LC_STORE_MAX_ERRTEXT  256u
#define LC_STORE_MAX_SIZE     8388608u /* ranks: LINCOLL_SIZE's limit, the tag's 2^23 */
#define LC_STORE_MAX_JOB      64u      /* bytes of a job name */
#define LC_STORE_MAX_JOB_SIZE 1048576u /* ranks of one job of a multi-job server */
#define LC_STORE_MAX_CONNS    65536u   /* connections of a multi-job server */

typedef enum lc_store_type {
    LC_STORE_HELLO = 1,
    LC_STORE_WELCOME = 2,
    LC_STORE_GATHER = 3,
    LC_STORE_GATHER_DONE = 4,
    LC_STORE_BARRIER = 5,
    LC_STORE_BARRIER_DONE = 6,
    LC_STORE_BYE = 7,
    LC_STORE_ERROR = 8,
    LC_STORE_HELLO_JOB = 9,
} lc_store_type_t;

typedef struct lc_store_hdr {
    uint32_t magic;
    uint16_t version;
    uint16_t type;
    uint32_t arg;
    uint32_t len;
} lc_store_hdr_t;

/* Header (de)serialization. */
void lc_store_hdr_pack(uint8_t out[LC_STORE_HDR_SIZE], uint16_t type, uint32_t arg, uint32_t len);
void lc_store_hdr_unpack(const uint8_t in[LC_STORE_HDR_SIZE], lc_store_hdr_t *hdr);

/* Monotonic clock in seconds; deadlines are absolute times on it (0 = none). */
double lc_store_now(void);
double lc_store_deadline(double timeout);

/* Blocking I/O with a deadline on a socket.  read_full returns
 * LINCOLL_ERR_PEER_FAILED on EOF before the first byte, LINCOLL_ERR_TRUNCATED
 * on EOF after it, LINCOLL_ERR_TIMEOUT past the deadline. */
lincoll_status_t lc_store_write_full(int fd, const void *buf, size_t len, double deadline);
lincoll_status_t lc_store_read_full(int fd, void *buf, size_t len, double deadline);

/* Constant-time comparison of two secrets (time depends only on lengths'
 * maximum, bounded by LC_STORE_MAX_SECRET). Returns 1 when equal. */
int lc_store_secret_equal(const char *a, size_t alen, const char *b, size_t blen);

/* Split "host:port" or "[v6addr]:port".  host receives at most host_size-1
 * characters.  allow_zero accepts port 0. */
lincoll_status_t lc_store_parse_addr(const char *text, char *host, size_t host_size, int *port,
                                     int allow_zero);

/* ---- server ------------------------------------------------------------ */

typedef struct lc_store_server lc_store_server_t;

typedef struct lc_store_params {
    const char *host;    /* interface address or name to bind; NULL or "" = all */
    int port;            /* 0 = the kernel picks a free one (see lc_store_server_port) */
    int size;            /* ranks of the job, 1..LC_STORE_MAX_SIZE; 0 with multi_job */
    const char *secret;  /* job secret, 1..LC_STORE_MAX_SECRET bytes */
    double idle_timeout; /* seconds; 0 = 30 */
    int multi_job;       /* serve any number of named jobs (HELLO_JOB) */
} lc_store_params_t;

lincoll_status_t lc_store_server_create(const lc_store_params_t *params, lc_store_server_t **s_p);

/* The port actually bound. */
int lc_store_server_port(const lc_store_server_t *s);

/* Serve for at most timeout_ms (-1 = until something happens).  Not to be
 * mixed with lc_store_server_start. */
lincoll_status_t lc_store_server_progress(lc_store_server_t *s, int timeout_ms);

/* Serve from a background thread (signals blocked in it) until destroy. */
lincoll_status_t lc_store_server_start(lc_store_server_t *s);

/* Wait until every rank has joined once and all have left (BYE or
 * disconnect), or the job failed.  Requires lc_store_server_start; a
 * single-job server only. */
lincoll_status_t lc_store_server_wait_done(lc_store_server_t *s, double timeout);

/* Stop the thread (if any), close every connection, free. */
void lc_store_server_destroy(lc_store_server_t *s);

#endif
