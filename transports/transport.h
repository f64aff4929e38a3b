/*
 * transports/transport.h: the whole contract between core/ and a transport.
 *
 * Only what every transport implements: one const ops table per transport,
 * declared with the transport's own parameters in its own header
 * (transports/ucx/api.h, transports/sim/api.h; the sim world API is sim's).
 * The files of each transport are named by concern, the same name in every
 * transport (init.c, progress.c, alive.c, tag.c, mem.c, rma.c, config.c).
 * core/ picks one from its transport array (core/context/transports.c).  A
 * transport never includes core/: its logger and parameters come through
 * lc_tl_set_log() and lc_tl_params_t, the values of its configuration rows
 * (below) through its own parameters.
 *
 * Completion model: send_nb/recv_nb/put_nb return a request owned by the
 * transport.  The caller polls it with test() and hands it back with
 * release(); releasing a request that is still in flight cancels it (a
 * receive) or orphans it (a send or put): the transport frees it when UCX is
 * done, so no callback ever writes into caller memory after release().  A
 * receive that can no longer be canceled (its message is arriving) is waited
 * for inside release(): at most the drain timeout (LINCOLL_TIMEOUT), less
 * once its sender is known dead and nothing more arrives.  If it still has
 * not landed then (a sender cut off mid-message whose link comes back
 * later), release() returns 1: the transport may write into that receive's
 * memory until it is closed, so the caller keeps the memory until then.
 *
 * Tag layout (64 bits, exact match, no wildcards):
 *
 *    63          52 51          40  39  38                  16 15            0
 *   +--------------+--------------+----+----------------------+---------------+
 *   | comm id (12) | op seq (12)  | pp |   source rank (23)   |  round (16)   |
 *   +--------------+--------------+----+----------------------+---------------+
 *
 * comm id: agreed by all members when a communicator is created; pp: 0 for
 * collective plans, 1 for point-to-point plans.  Collectives: op seq is the
 * communicator's collective counter (every member increments it identically
 * at each collective start, wraps at 4096).  Point-to-point: op seq is the
 * plan's user tag (0 by default) and the communicator's counter is left
 * alone, so any subset of ranks may talk point to point without moving the
 * next collective's tags; point-to-point messages between one pair with
 * equal tags match in posting order (below).  source: rank of the sender
 * *in the communicator*; round: the plan round (sim uses it for round
 * accounting).  Matching is on the tag
 * alone (UCX tag matching knows no sender): the peer argument of recv_nb()
 * does not disambiguate, so two senders must never use the same tag towards
 * one receiver — (comm id, source) in the tag guarantees it.  Two messages from one sender
 * with equal tags match in posting order (UCX's per-sender tag ordering).
 *
 * Tagged plans (an operation tag chosen by the caller, 1 to 2^20 - 1,
 * lincoll_coll_opts_t::tag) use the point-to-point space with the top bit
 * of the source field set, which no communicator rank reaches (ranks of a
 * tagged plan's communicator fit 14 bits):
 *
 *    63          52 51          40  39  38  37     30 29      16 15            0
 *   +--------------+--------------+----+---+---------+----------+---------------+
 *   | comm id (12) | tag 0..11    | 1  | 1 | tag     | source   |  round (16)   |
 *   |              |              |    |   | 12..19  | (14)     |               |
 *   +--------------+--------------+----+---+---------+----------+---------------+
 *
 * Tag 0 in this space is lincoll's own (the exchange of an agreed
 * lincoll_comm_create_group among its members, on the parent).  The
 * messages of one tag between one pair match in posting order, so a tagged
 * plan's init exchanges, its starts, and a later plan that reuses the tag
 * follow one another; tagged plans stay on lane 0 for that reason.
 *
 * RMA: put_nb writes into a peer's window (memory from mem_alloc or mem_reg,
 * described by a packed remote key).  With a signal address it then fences and
 * atomically adds 1 to a 64-bit counter in the peer's window, so the target
 * learns that the data has landed by reading its own memory.
 */
#ifndef LC_TRANSPORT_H
#define LC_TRANSPORT_H

#include <lincoll/log.h>
#include <lincoll/status.h>
#include <stddef.h>
#include <stdint.h>

/* ---- tag layout ------------------------------------------------------- */
#define LC_TAG_COMM_BITS   12
#define LC_TAG_SEQ_BITS    12
#define LC_TAG_P2P_BITS    1
#define LC_TAG_SRC_BITS    23
#define LC_TAG_ROUND_BITS  16
#define LC_TAG_ROUND_SHIFT 0
#define LC_TAG_SRC_SHIFT   (LC_TAG_ROUND_SHIFT + LC_TAG_ROUND_BITS)
#define LC_TAG_P2P_SHIFT   (LC_TAG_SRC_SHIFT + LC_TAG_SRC_BITS)
#define LC_TAG_SEQ_SHIFT   (LC_TAG_P2P_SHIFT + LC_TAG_P2P_BITS)
#define LC_TAG_COMM_SHIFT  (LC_TAG_SEQ_SHIFT + LC_TAG_SEQ_BITS)
#define LC_TAG_MASK(_bits) ((UINT64_C(1) << (_bits)) - 1)
#define LC_TAG_MAX_ROUND   LC_TAG_MASK(LC_TAG_ROUND_BITS)
#define LC_TAG_MAX_SRC     LC_TAG_MASK(LC_TAG_SRC_BITS)
/* the point-to-point bit (pp) */
#define LC_TAG_P2P (UINT64_C(1) << LC_TAG_P2P_SHIFT)
/* Point-to-point tags with round field LC_TAG_CTRL_ROUND and above carry
 * lincoll's own control messages (lincoll_comm_shrink); user point-to-point
 * plans use rounds 0 and 1. */
#define LC_TAG_CTRL_ROUND 0x8000u

/* tagged plans (above): the marker, the source bits, the tag bits */
#define LC_TAG_OPTAG_BITS     20
#define LC_TAG_OPTAG_SRC_BITS 14
#define LC_TAG_OPTAG_MARK     (UINT64_C(1) << (LC_TAG_SRC_SHIFT + LC_TAG_SRC_BITS - 1))
/* The bits a tagged plan's messages carry besides comm id, source and round. */
static inline uint64_t lc_tag_optag_bits(uint64_t optag)
{
    return LC_TAG_P2P | LC_TAG_OPTAG_MARK |
           (optag & LC_TAG_MASK(LC_TAG_SEQ_BITS)) << LC_TAG_SEQ_SHIFT |
           ((optag >> LC_TAG_SEQ_BITS) & LC_TAG_MASK(LC_TAG_OPTAG_BITS - LC_TAG_SEQ_BITS))
               << (LC_TAG_SRC_SHIFT + LC_TAG_OPTAG_SRC_BITS);
}

static inline uint64_t lc_tag_make(unsigned comm, unsigned seq, unsigned src, unsigned round)
{
    return ((uint64_t)(comm & LC_TAG_MASK(LC_TAG_COMM_BITS)) << LC_TAG_COMM_SHIFT) |
           ((uint64_t)(seq & LC_TAG_MASK(LC_TAG_SEQ_BITS)) << LC_TAG_SEQ_SHIFT) |
           ((uint64_t)(src & LC_TAG_MASK(LC_TAG_SRC_BITS)) << LC_TAG_SRC_SHIFT) |
           ((uint64_t)(round & LC_TAG_MASK(LC_TAG_ROUND_BITS)) << LC_TAG_ROUND_SHIFT);
}
#define LC_TAG_FIELD(_tag, _name)                                                                  \
    ((unsigned)(((_tag) >> LC_TAG_##_name##_SHIFT) & LC_TAG_MASK(LC_TAG_##_name##_BITS)))

/* ---- lanes ------------------------------------------------------------ */
/*
 * A transport may offer several lanes: independent paths to every peer (one
 * network link each), so that the p transfers of a round can travel on p
 * links at once.  lanes() says how many this instance has (NULL or 1: one,
 * and then a peer argument never carries a lane).  Where it has more, the
 * peer argument of send_nb, recv_nb, recv_chain_nb (and then.peer) may
 * carry one in bits 24..30 above the world rank (ranks fit 23 bits, the
 * tag's source field):
 *
 *   LC_TL_PEER(rank, lane)    send on lane `lane`, or receive a message the
 *                             sender put on that lane;
 *   LC_TL_PEER_ANY(rank)      receive the message on whichever lane the
 *                             sender chose;
 *   a plain rank              lane 0.
 *
 * A lane number is taken modulo the lanes both ends have, so the two sides
 * of one message agree whatever their counts.  Equal-tag messages between a
 * pair keep their order within one lane only: a sender that sends several
 * messages with one tag to a peer puts the k-th on lane k and the receiver
 * posts its k-th receive on lane k (core/exec/lower.c does exactly this),
 * or both use one lane.  peer_status() and describe() accept a peer with a
 * lane too.  Puts, flushes and remote keys always use lane 0.
 */
#define LC_TL_LANE_SHIFT     24
#define LC_TL_MAX_LANES      8
#define LC_TL_LANE_ANY_CODE  0x7fu
#define LC_TL_PEER_RANK_MASK ((1 << LC_TL_LANE_SHIFT) - 1)
/* lane code: 0 = lane 0 (a plain rank), 1 + lane, or LC_TL_LANE_ANY_CODE */
#define LC_TL_PEER(_rank, _lane)                                                                   \
    ((int)((unsigned)(_rank) | (((unsigned)(_lane) + 1u) << LC_TL_LANE_SHIFT)))
#define LC_TL_PEER_ANY(_rank)    ((int)((unsigned)(_rank) | (LC_TL_LANE_ANY_CODE << LC_TL_LANE_SHIFT)))
#define LC_TL_PEER_RANKOF(_peer) ((_peer) < 0 ? (_peer) : ((_peer)&LC_TL_PEER_RANK_MASK))
#define LC_TL_PEER_CODE(_peer)   ((_peer) < 0 ? 0u : ((unsigned)(_peer) >> LC_TL_LANE_SHIFT))

/* ---- objects ---------------------------------------------------------- */
typedef struct lc_tl lc_tl_t;           /* one transport instance (per context) */
typedef struct lc_tl_req lc_tl_req_t;   /* an in-flight operation */
typedef struct lc_tl_mem lc_tl_mem_t;   /* a registered memory region */
typedef struct lc_tl_rkey lc_tl_rkey_t; /* a peer's region, unpacked */

typedef void (*lc_tl_log_fn_t)(lincoll_log_level_t level, const char *file, int line,
                               const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/** Installed by core at load time. */
void lc_tl_set_log(lc_tl_log_fn_t fn);
extern lc_tl_log_fn_t lc_tl_log;
#define lc_tl_error(...) lc_tl_log(LINCOLL_LOG_ERROR, __FILE__, __LINE__, __VA_ARGS__)
#define lc_tl_warn(...)  lc_tl_log(LINCOLL_LOG_WARN, __FILE__, __LINE__, __VA_ARGS__)
#define lc_tl_info(...)  lc_tl_log(LINCOLL_LOG_INFO, __FILE__, __LINE__, __VA_ARGS__)
#define lc_tl_debug(...) lc_tl_log(LINCOLL_LOG_DEBUG, __FILE__, __LINE__, __VA_ARGS__)

/* ---- configuration rows ---------------------------------------------- */
/*
 * A transport declares the LINCOLL_* variables it takes in a table of its
 * own (transports/<name>/config.c): one row each, LINCOLL_<suffix>, whose
 * value lands in a field of the transport's settings struct (declared in its
 * api.h).  core/base/config.c, the only reader of LINCOLL_* variables, nests
 * every transport's table as a block of its one table: it parses, checks and
 * lists these rows like its own, and hands the parsed settings down to the
 * transport when it starts it.  A row's field has the C type of its type:
 */
typedef enum lc_tl_config_type {
    LC_TL_CONFIG_STRING, /* char[size]: text, NUL-terminated, shorter than size */
    LC_TL_CONFIG_INT,    /* long, within values "min:max" (NULL: any) */
    LC_TL_CONFIG_SIZE,   /* size_t: bytes, with an optional k/m/g suffix */
    LC_TL_CONFIG_TIME,   /* double: seconds, >= 0 */
    LC_TL_CONFIG_BOOL,   /* int: 0 or 1 (y/n, yes/no, true/false, on/off) */
    LC_TL_CONFIG_ENUM,   /* int: the index of the value in values "a|b|c" */
    LC_TL_CONFIG_DOUBLE, /* double: > 0 */
} lc_tl_config_type_t;

/** One configuration row of a transport: the variable LINCOLL_<suffix>. */
typedef struct lc_tl_config_row {
    const char *suffix; /* the name after "LINCOLL_", e.g. "UCX_LANES" */
    lc_tl_config_type_t type;
    const char *dflt;   /* default, as text */
    const char *values; /* ENUM: "a|b|c"; INT: "min:max"; otherwise a hint or NULL */
    const char *doc;    /* what it does (lincoll_info -c prints it) */
    size_t offset;      /* of its field in the transport's settings struct */
    size_t size;        /* of that field */
} lc_tl_config_row_t;

/** A transport's configuration table: its rows, in the order of their public
 *  ids (lincoll_config_id_t); rows NULL when n_rows is 0. */
typedef struct lc_tl_config {
    const char *transport; /* the transport's name (its ops table's) */
    const lc_tl_config_row_t *rows;
    size_t n_rows;
} lc_tl_config_t;

/** A row of @p _suffix (the variable LINCOLL_<_suffix>, the name written
 *  once) stored in field @p _field of settings struct @p _settings_t. */
#define LC_TL_CONFIG_ROW(_suffix, _type, _dflt, _values, _settings_t, _field, _doc)                \
    {                                                                                              \
        .suffix = #_suffix, .type = (_type), .dflt = (_dflt), .values = (_values), .doc = (_doc),  \
        .offset = offsetof(_settings_t, _field), .size = sizeof(((_settings_t *)0)->_field)        \
    }

/** Parameters of init(): what every transport takes, and a pointer to the
 *  transport's own (declared in its transports/<name>/api.h, never here). */
typedef struct lc_tl_params {
    int rank;        /* this process's (or virtual rank's) world rank */
    int size;        /* world size */
    const void *ext; /* the transport's own parameters: lc_tl_ucx_params_t
                        (ucx, NULL: defaults), lc_tl_sim_params_t (sim, required) */
} lc_tl_params_t;

/** Counters a transport keeps (sim measures rounds; ucx counts traffic). */
typedef struct lc_tl_counters {
    uint64_t msgs_sent;
    uint64_t bytes_sent;
    uint64_t puts;
    uint64_t bytes_put;
    uint64_t mem_registered; /* bytes currently registered */
    uint64_t reg_cache_hits; /* mem_reg calls served by an existing registration */
} lc_tl_counters_t;

/** Flags of a memory region. */
enum {
    LC_TL_MEM_ALLOCATED = 1, /* transport allocated it: true one-sided RMA */
};

/** A send the transport posts itself the moment a receive completes
 *  (a triggered send): the reply of a ping-pong, or the forward of a
 *  pipeline, leaves from the transport's completion path instead of waiting
 *  for the caller's next test().  The caller fills the first four fields,
 *  keeps the descriptor alive while the receive is in flight, and reads the
 *  outcome once the receive has completed.  The send is posted only when the
 *  receive completes successfully with exactly its posted length; a receive
 *  that fails, is truncated or short, or is released (canceled) first leaves
 *  fired at 0 and the caller posts the send itself if it still wants it.
 *  Once fired, req belongs to the caller like any send_nb request (NULL when
 *  the send completed at once). */
typedef struct lc_tl_chain {
    int peer;
    const void *buf;
    size_t len;
    uint64_t tag;
    int fired;               /* out: the send was posted */
    lincoll_status_t status; /* out: what posting it returned */
    lc_tl_req_t *req;        /* out: its request */
} lc_tl_chain_t;

/** Memory types a transport may take directly (mem_types). */
#define LC_TL_MEM_TYPE_HOST 1u
#define LC_TL_MEM_TYPE_CUDA 2u

typedef struct lc_tl_ops {
    const char *name;
    lincoll_status_t (*init)(const lc_tl_params_t *params, lc_tl_t **tl_p);
    void (*fini)(lc_tl_t *tl);
    /* Optional (may be NULL): close every endpoint, flushing what is in
     * flight, while peers still progress.  The context calls it, then a
     * bootstrap barrier, then fini(), so no rank destroys its worker while a
     * peer still flushes towards it. */
    void (*disconnect)(lc_tl_t *tl);

    /* Address blob to hand to every peer (bootstrap allgather). */
    lincoll_status_t (*address)(lc_tl_t *tl, const void **addr_p, size_t *len_p);
    /* Learn every rank's address; endpoints are created lazily on first use. */
    lincoll_status_t (*connect)(lc_tl_t *tl, const void *const *addrs, const size_t *lens);

    /* Memory: allocate registered (one-sided) memory, or register user memory. */
    lincoll_status_t (*mem_alloc)(lc_tl_t *tl, size_t len, lc_tl_mem_t **mem_p, void **addr_p);
    lincoll_status_t (*mem_reg)(lc_tl_t *tl, void *addr, size_t len, lc_tl_mem_t **mem_p);
    void (*mem_dereg)(lc_tl_t *tl, lc_tl_mem_t *mem);
    /* Packed remote key of a region (caller frees with free()).  The blob
     * starts with the region's base address as a native uint64_t: peers
     * compute remote addresses (raddr) from it. */
    lincoll_status_t (*rkey_pack)(lc_tl_t *tl, lc_tl_mem_t *mem, void **buf_p, size_t *len_p);
    lincoll_status_t (*rkey_unpack)(lc_tl_t *tl, int peer, const void *buf, size_t len,
                                    lc_tl_rkey_t **rkey_p);
    void (*rkey_destroy)(lc_tl_t *tl, lc_tl_rkey_t *rkey);
    /* Direct load/store pointer to a peer's region when it is mapped here
     * (shared memory), else NULL. */
    void *(*rkey_ptr)(lc_tl_t *tl, lc_tl_rkey_t *rkey, uint64_t raddr);
    /* Nonzero when put_nb into a region rkey_ptr maps is nothing but a store
     * through that pointer (plus, with a signal, an atomic add on the peer's
     * counter), so callers may do the stores themselves and skip the call.
     * Zero for a transport that must see every put (sim counts them). */
    int mapped_put_is_store;

    /* Point to point; *req_p is NULL when the operation completed at once. */
    lincoll_status_t (*send_nb)(lc_tl_t *tl, int peer, const void *buf, size_t len, uint64_t tag,
                                lc_tl_req_t **req_p);
    lincoll_status_t (*recv_nb)(lc_tl_t *tl, int peer, void *buf, size_t len, uint64_t tag,
                                lc_tl_req_t **req_p);
    /* recv_nb whose completion posts then's send (see lc_tl_chain_t).
     * Optional: NULL when the transport cannot post from its completion
     * path; callers then post the send after testing the receive. */
    lincoll_status_t (*recv_chain_nb)(lc_tl_t *tl, int peer, void *buf, size_t len, uint64_t tag,
                                      lc_tl_chain_t *then, lc_tl_req_t **req_p);
    /* Put len bytes to raddr in the peer's region; with sig_rkey != NULL then
     * fence and add 1 to the uint64_t at sig_raddr.  tag carries the round
     * (accounting only). */
    lincoll_status_t (*put_nb)(lc_tl_t *tl, int peer, const void *buf, size_t len,
                               lc_tl_rkey_t *rkey, uint64_t raddr, lc_tl_rkey_t *sig_rkey,
                               uint64_t sig_raddr, uint64_t tag, lc_tl_req_t **req_p);
    /* Wait until every put to peer has landed remotely (peer < 0: all peers). */
    lincoll_status_t (*flush_nb)(lc_tl_t *tl, int peer, lc_tl_req_t **req_p);

    /* Drive communication; returns non-zero if anything happened. */
    int (*progress)(lc_tl_t *tl);
    /* LINCOLL_INPROGRESS, LINCOLL_OK (*len_p = bytes received) or an error. */
    lincoll_status_t (*test)(lc_tl_t *tl, lc_tl_req_t *req, size_t *len_p);
    /* Hand a request back (cancels or orphans it if still in flight; waits
     * for a receive whose data is arriving, see above).  0, or 1 when a
     * receive's memory may still be written until the transport closes. */
    int (*release)(lc_tl_t *tl, lc_tl_req_t *req);
    /* test() and, when that returns anything but LINCOLL_INPROGRESS, release()
     * in one call: the request is handed back and must not be used again.
     * While it returns LINCOLL_INPROGRESS the caller still owns the request.
     * Same results as test() (*len_p set on completion). */
    lincoll_status_t (*test_release)(lc_tl_t *tl, lc_tl_req_t *req, size_t *len_p);
    /* LINCOLL_OK, or LINCOLL_ERR_PEER_FAILED once the peer is known dead.
     * Callers ask while a wait is stuck; a transport may then look for
     * itself now and then (ucx: same-host peers in /proc, at most every
     * millisecond per peer), so this is not for a fast path. */
    lincoll_status_t (*peer_status)(lc_tl_t *tl, int peer);
    /* File descriptor that becomes readable when progress may be needed
     * (-1 if none), and arm it before blocking on it.  It also becomes
     * readable when a peer the transport can watch dies (ucx: a pidfd per
     * same-host peer); arm() then marks it failed and returns
     * LINCOLL_ERR_BUSY, so the caller tests again and sees the failure. */
    int (*event_fd)(lc_tl_t *tl);
    lincoll_status_t (*arm)(lc_tl_t *tl);
    void (*counters)(lc_tl_t *tl, lc_tl_counters_t *out);
    /* Optional (may be NULL: host memory only): the memory types whose
     * buffers send_nb/recv_nb/put_nb take directly, LC_TL_MEM_TYPE_* bits
     * (ucx: the memory types of ucp_context_query, i.e. a UCX built with
     * CUDA).  Device buffers are staged through host memory otherwise. */
    unsigned (*mem_types)(lc_tl_t *tl);
    /* One line describing the transport in use (lanes, devices). */
    void (*describe)(lc_tl_t *tl, int peer, char *buf, size_t len);
    /* Optional (may be NULL: one lane): the lanes this instance offers (see
     * "lanes" above); at least 1. */
    int (*lanes)(lc_tl_t *tl);
} lc_tl_ops_t;

#endif
