/*
 * core/context/bootstrap/store_proto.h: the TCP rendezvous store's wire
 * protocol, shared by its server (store.h; rank 0 when it hosts the store,
 * lincoll-run, lincoll-store) and its client, the TCP bootstrap (tcp.c).
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
#ifndef LC_BOOTSTRAP_STORE_PROTO_H
#define LC_BOOTSTRAP_STORE_PROTO_H

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

/* Big-endian 32-bit fields. */
static inline void lc_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline uint32_t lc_get32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

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

#endif
