/**
 * @file context.h
 * @brief Context, communicators, registered memory, the embedder's
 *        bootstrap and event loop.
 *
 * lincoll_init() finds the other ranks, starts the transport and exchanges
 * addresses.  The world communicator spans every rank of the context;
 * lincoll_comm_split() makes sub-communicators.
 *
 * How a context finds its ranks (lincoll_init_params_t::bootstrap)
 * ----------------------------------------------------------------
 * - ::LINCOLL_BOOTSTRAP_LAUNCHER (the default): a job started by a launcher.
 *   PMIx under mpirun or srun --mpi=pmix, the TCP store of lincoll-run
 *   (LINCOLL_RANK, LINCOLL_SIZE, LINCOLL_BOOTSTRAP, LINCOLL_JOB_SECRET), or
 *   a single process (LINCOLL_BOOTSTRAP_KIND chooses).
 * - ::LINCOLL_BOOTSTRAP_OOB: the embedder's own out-of-band allgather
 *   (::lincoll_oob_t), in the manner of UCC's ucc_oob_coll_t.  For programs
 *   that already connect their processes: storage daemons, services, other
 *   runtimes.
 * - ::LINCOLL_BOOTSTRAP_STORE: a TCP store at a known address shared by
 *   long-running processes (lincoll-store, lincoll_store_start()), joined
 *   under a job name, so one store serves many groups over time.
 *
 * With either embedder bootstrap the caller gives rank and size; the context
 * is independent of any other: a process may hold several at once, each
 * with its own group (see docs/embedding.md for the new-epoch pattern: a
 * fresh context per membership change, no process restarted).  lincoll_init
 * then never binds the process to cores unless LINCOLL_BIND says core or
 * numa (the embedder owns its threads).
 *
 * Timeouts
 * --------
 * Every blocking call returns within a bound set by the context timeout T
 * (lincoll_init_params_t::timeout, else LINCOLL_TIMEOUT) when peers stop
 * answering, whether they died or became unreachable: a plan fails with
 * ::LINCOLL_ERR_TIMEOUT once a round made no progress for T, and
 * lincoll_finalize() returns within 2 T.  Its bootstrap barrier waits up to
 * 2 T because a healthy peer may arrive up to T late: it was still waiting
 * out the timeout of a plan that had already failed elsewhere.  After a
 * failed barrier the second one is skipped.  A peer is never declared dead
 * before T has passed: a link that comes back sooner is no failure.  Only
 * lincoll_init()'s first rendezvous, where ranks may still be starting,
 * waits the bootstrap timeout instead (lincoll_init_params_t::bootstrap_timeout,
 * else LINCOLL_BOOTSTRAP_TIMEOUT).
 *
 * Event loop
 * ----------
 * lincoll_context_fd() gives a descriptor that becomes readable when the
 * context has progress to make; lincoll_context_arm() arms it.  A program
 * with its own poll/epoll loop drives plans with lincoll_start() and
 * lincoll_test() and sleeps in between without polling:
 *
 * @code
 *   int fd;
 *   lincoll_context_fd(ctx, &fd);          // add fd to the epoll set, EPOLLIN
 *   lincoll_start(plan);
 *   for (;;) {
 *       lincoll_status_t st = lincoll_test(plan);     // makes progress
 *       if (st != LINCOLL_INPROGRESS) break;          // done, or failed
 *       if (lincoll_context_arm(ctx) == LINCOLL_ERR_BUSY)
 *           continue;                                 // events came in: test again
 *       epoll_wait(ep, evs, n, timeout_ms);           // sleeps until fd is readable
 *   }
 * @endcode
 *
 * The race: an event that arrives after the last lincoll_test() but before
 * the sleep must not be lost.  lincoll_context_arm() closes it: it returns
 * ::LINCOLL_ERR_BUSY when events are already pending (progress again, do not
 * sleep), and ::LINCOLL_OK when the descriptor is armed, i.e. any later event
 * makes it readable.  Never sleep without an arm that returned OK after the
 * last progress.  Arm drains the descriptor itself; do not read it.  The
 * plan's timeout is measured while lincoll_test() is being called, so give
 * epoll_wait a finite timeout (a fraction of the context timeout) while a
 * plan runs; an idle program may sleep without one.
 */
#ifndef LINCOLL_CONTEXT_H
#define LINCOLL_CONTEXT_H

#include <stddef.h>
#include <lincoll/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque per-process context. */
typedef struct lincoll_context lincoll_context_t;
/** Opaque communicator: an ordered group of ranks. */
typedef struct lincoll_comm lincoll_comm_t;

/** lincoll_init_params_t::timeout: never time out. */
#define LINCOLL_TIMEOUT_NEVER (-1.0)

/** How lincoll_init() finds the other ranks (see the file documentation). */
typedef enum lincoll_bootstrap_kind {
    /** PMIx, lincoll-run's store or a single process, from the environment */
    LINCOLL_BOOTSTRAP_LAUNCHER = 0,
    /** the embedder's out-of-band allgather: lincoll_init_params_t::oob */
    LINCOLL_BOOTSTRAP_OOB = 1,
    /** a TCP store: lincoll_init_params_t::store_addr, store_secret, store_job */
    LINCOLL_BOOTSTRAP_STORE = 2
} lincoll_bootstrap_kind_t;

/**
 * @brief The embedder's out-of-band collectives (::LINCOLL_BOOTSTRAP_OOB).
 *
 * lincoll calls them only from lincoll_init() (three allgathers: host
 * identities, then the transport addresses' lengths and the addresses) and
 * from lincoll_finalize() (two barriers), in the calling thread, in the same
 * order on every rank; they carry a few KiB.  The embedder's channel must
 * stay usable until lincoll_finalize() has returned.
 *
 * Blocking or non-blocking, the embedder chooses:
 * - blocking: @c req_test is NULL; @c allgather returns when rbuf is
 *   complete.  It must bound its own wait (a peer that never answers is the
 *   embedder's to time out); lincoll cannot interrupt it.
 * - non-blocking: @c allgather starts the exchange and sets *req_p; lincoll
 *   then calls @c req_test(*req_p) until it returns ::LINCOLL_OK or an error,
 *   sleeping a little between calls (from 10 us growing to 1 ms), and gives
 *   up with ::LINCOLL_ERR_TIMEOUT after the bootstrap timeout (in
 *   lincoll_init) or the context timeout (in lincoll_finalize).  Either way
 *   it then calls @c req_free(*req_p) (when not NULL), which must release the
 *   request and cancel it if it is still running.
 *
 * A callback that returns an error (any negative ::lincoll_status_t; other
 * values count as ::LINCOLL_ERR_BOOTSTRAP) fails lincoll_init() on that rank
 * with that status after one log line naming the callback, the rank and the
 * status; nothing is left allocated.  The other ranks then fail in their own
 * callbacks (their exchange cannot complete) or by the timeout.
 */
typedef struct lincoll_oob {
    /**
     * Every rank contributes @p len bytes from @p sbuf; @p rbuf receives
     * size * len bytes, rank r's at offset r * len (ranks as given in
     * lincoll_init_params_t::rank).  @p len is the same on every rank.
     */
    lincoll_status_t (*allgather)(const void *sbuf, void *rbuf, size_t len, void *coll_info,
                                  void **req_p);
    /** ::LINCOLL_OK when the request is complete, ::LINCOLL_INPROGRESS, or an
     *  error; NULL = @c allgather and @c barrier are blocking. */
    lincoll_status_t (*req_test)(void *req);
    /** Release a request (cancel it if still running); may be NULL. */
    void (*req_free)(void *req);
    /** Optional barrier (same request rules); NULL = an allgather of one byte. */
    lincoll_status_t (*barrier)(void *coll_info, void **req_p);
    /** Passed to every callback. */
    void *coll_info;
} lincoll_oob_t;

/**
 * Optional parameters of lincoll_init(); zero-initialize and set what you
 * need (zero is every field's default).
 */
typedef struct lincoll_init_params {
    /** Ports p (sends and receives in flight per round); 0 = LINCOLL_PORTS. */
    int ports;
    /** Seconds T before a stuck operation fails (lincoll_finalize() waits at
     *  most 2 T); 0 = LINCOLL_TIMEOUT; ::LINCOLL_TIMEOUT_NEVER (any negative
     *  value) = never. */
    double timeout;
    /** How the ranks find each other; ::LINCOLL_BOOTSTRAP_LAUNCHER = from
     *  the environment (rank, size, oob and store_* are then ignored). */
    lincoll_bootstrap_kind_t bootstrap;
    /** This process's rank, 0 .. size-1 (::LINCOLL_BOOTSTRAP_OOB, _STORE). */
    int rank;
    /** Ranks of the context, >= 1 (::LINCOLL_BOOTSTRAP_OOB, _STORE). */
    int size;
    /** The embedder's callbacks (::LINCOLL_BOOTSTRAP_OOB). */
    lincoll_oob_t oob;
    /** "host:port" (or "[v6addr]:port") of the store (::LINCOLL_BOOTSTRAP_STORE). */
    const char *store_addr;
    /** Secret the store was started with, 1 to 127 bytes. */
    const char *store_secret;
    /** Job name, 1 to 64 printable bytes without spaces, shared by the
     *  group's ranks and new for every group (a multi-job store); NULL or ""
     *  = the store's only job (lincoll-run, a store started with a size). */
    const char *store_job;
    /** Seconds lincoll_init() waits for every rank to reach the bootstrap
     *  (connect, first exchange); 0 = LINCOLL_BOOTSTRAP_TIMEOUT. */
    double bootstrap_timeout;
} lincoll_init_params_t;

/**
 * @brief Create a context: bootstrap, transport, world communicator.
 *
 * Collective over every rank of the new context (the job's processes, or the
 * embedder's group).  Reads the LINCOLL_* variables once; a bad value fails
 * with ::LINCOLL_ERR_INVALID and a log line naming it, and so does a bad
 * field of @p params.  Contexts are independent: a process may create
 * several, each with its own bootstrap and group, and use each of them from
 * one thread at a time (lincoll_init() itself from one thread at a time).
 * @param [in]  params optional (NULL = defaults from the environment).
 * @param [out] ctx_p  the new context, set only on success.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID, ::LINCOLL_ERR_BOOTSTRAP,
 *         ::LINCOLL_ERR_TRANSPORT, ::LINCOLL_ERR_TIMEOUT or ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_init(const lincoll_init_params_t *params,
                                          lincoll_context_t **ctx_p);

/**
 * @brief Destroy a context (collective; waits for peers to finish, within
 *        twice the context timeout even when peers are unreachable: see
 *        "Timeouts" above).  Communicators, plans
 * and memory of the context must have been freed; any left are freed here with a warning.
 * @param [in] ctx context, or NULL (no-op).
 * @return ::LINCOLL_OK, or the first error met while shutting down.
 */
LINCOLL_API lincoll_status_t lincoll_finalize(lincoll_context_t *ctx);

/**
 * @brief The world communicator (owned by the context; do not free).
 * @param [in]  ctx    context.
 * @param [out] comm_p world communicator.
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID.
 */
LINCOLL_API lincoll_status_t lincoll_comm_world(lincoll_context_t *ctx, lincoll_comm_t **comm_p);

/**
 * @brief Rank of the calling process in @p comm.
 * @return the rank (0 .. size-1), or -1 if @p comm is NULL.
 */
LINCOLL_API int lincoll_comm_rank(const lincoll_comm_t *comm);

/**
 * @brief Number of ranks in @p comm.
 * @return the size, or -1 if @p comm is NULL.
 */
LINCOLL_API int lincoll_comm_size(const lincoll_comm_t *comm);

/**
 * @brief Split @p comm by color; ranks are ordered by (key, old rank).
 *
 * Collective over @p comm.  Ranks passing a negative color get *new_p = NULL.
 * @param [in]  comm  parent communicator.
 * @param [in]  color group selector (>= 0), or negative to opt out.
 * @param [in]  key   ordering key within the new group.
 * @param [out] new_p new communicator (free with lincoll_comm_free()).
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID, ::LINCOLL_ERR_TIMEOUT,
 *         ::LINCOLL_ERR_PEER_FAILED or ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_comm_split(lincoll_comm_t *comm, int color, int key,
                                                lincoll_comm_t **new_p);

/** lincoll_comm_create_group() flag: make the communicator locally, with no
 *  communication at all (see there). */
#define LINCOLL_GROUP_LOCAL 0x1u

/**
 * @brief A communicator over the ranks @p ranks of @p parent, made by those
 *        ranks only (like MPI_Comm_create_group): never collective over
 *        @p parent.
 *
 * Rank i of the new communicator is rank ranks[i] of @p parent.  Only the
 * members call it, each with the same list; the other ranks of @p parent
 * take no part and may be busy with anything else.  It works on every
 * communicator (the world, lincoll_comm_split(), lincoll_comm_shrink(),
 * lincoll_comm_create_group()).
 *
 * - @p flags = 0 (agreed): one exchange among the members.  Every member
 *   learns whether all passed the same list; a member that passed another
 *   list makes the call fail with ::LINCOLL_ERR_MISMATCH on every member
 *   (or ::LINCOLL_ERR_TIMEOUT where the lists name other processes), within
 *   the context timeout.  Like any blocking collective, two agreed
 *   creations that share two or more members must be called in the same
 *   order by those members; coordinators that cannot agree on an order use
 *   ::LINCOLL_GROUP_LOCAL.
 * - @p flags = ::LINCOLL_GROUP_LOCAL: no communication; every member
 *   computes the same communicator from the same list.  The caller
 *   guarantees that every member passes the same list.  If they do not,
 *   the members address other ranks and sources: their operations' messages
 *   do not meet, and the operations fail with ::LINCOLL_ERR_TIMEOUT (or
 *   ::LINCOLL_ERR_MISMATCH where a message of another size arrives).
 *
 * Identity on the wire.  An agreed group takes, like lincoll_comm_split(),
 * an id larger than every id any member has used (the members exchange
 * their counters), so it never shares an id with a communicator of any of
 * its members, and its tags are its own.  A local group cannot ask for an
 * id.  Its tagged operations (lincoll_coll_opts_t::tag) travel as
 * operations of its nearest agreed ancestor (@p parent, or the parent's
 * own ancestor when @p parent is local too), with the members' ranks
 * there, so their tag names them across that ancestor and all its local
 * groups: a rank holds one live plan per tag among them (an init with a
 * held tag is ::LINCOLL_ERR_BUSY), and independent coordinators take tags
 * that differ across the groups they make at once (e.g. the coordinator's
 * rank and a counter).  No hash decides whether two tagged operations
 * meet.  Its untagged operations (ordered collectives, point-to-point,
 * barrier) use an id of its own, a hash of the ancestor's id and the list
 * (as world ranks) into a range (2048 ids) that split, shrink and agreed
 * groups never use: two local groups sharing two or more members may meet
 * in one such id (one chance in 2048 per pair), so untagged operations on
 * local groups are for groups known apart; tagged ones are always safe.
 * Tagged operations on groups are what independent coordinators use
 * (docs/collectives.md, "Groups and tags").
 *
 * @param [in]  parent the communicator whose ranks are listed.
 * @param [in]  ranks  n distinct ranks of @p parent, 0 <= ranks[i] < size;
 *                     the caller's own rank among them.
 * @param [in]  n      number of members, >= 1.
 * @param [in]  flags  0 (agreed) or ::LINCOLL_GROUP_LOCAL.
 * @param [out] new_p  the new communicator (free with lincoll_comm_free()).
 * @return ::LINCOLL_OK; ::LINCOLL_ERR_INVALID (one log line naming the
 *         argument: NULL pointers, n < 1, a rank out of range or listed
 *         twice, the caller not listed, unknown flags);
 *         ::LINCOLL_ERR_MISMATCH, ::LINCOLL_ERR_TIMEOUT,
 *         ::LINCOLL_ERR_PEER_FAILED (agreed only) or ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_comm_create_group(lincoll_comm_t *parent, const int *ranks,
                                                       int n, unsigned flags,
                                                       lincoll_comm_t **new_p);

/**
 * @brief Go on with the survivors: the members of @p comm that are alive
 *        agree on who they are and get a communicator of themselves.
 *
 * Call it on every surviving member after an operation on @p comm failed
 * (::LINCOLL_ERR_PEER_FAILED or ::LINCOLL_ERR_TIMEOUT).  A member the
 * transport reports dead is dropped at once; a member that stays silent
 * (stopped, or its link cut) is dropped after twice the context timeout
 * T (LINCOLL_TIMEOUT; the survivors may call it up to T apart, as their
 * failed operations may end by the timeout), and so is a member that
 * another survivor cannot hear.  With f members failing the agreement
 * takes at most f + 2 exchanges with every member (2 without failures);
 * a later exchange that loses a silent member lasts T.
 *
 * The new communicator holds the survivors in their order in @p comm (use
 * lincoll_comm_translate() to map ranks); @p comm, the survivors' other
 * communicators, plans on them and their buffers stay valid (plans of
 * @p comm fail again where they need a dead member).  Every member that
 * returns ::LINCOLL_OK gets the same group when the failures are crashes
 * or members unreachable from every survivor; a partition that splits
 * the survivors while they agree can leave two groups, and so can a member
 * that stalls for longer than the timeout in the middle of the agreement;
 * the next operation of such a group fails: shrink again.  A member cut off from every other
 * one ends with a communicator of itself alone, and one that the others
 * dropped returns ::LINCOLL_ERR_PEER_FAILED.
 * @param [in]  comm   communicator with failed members (or none: then the
 *                     result has every member).
 * @param [out] new_p  the survivors' communicator (free with lincoll_comm_free()).
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID, ::LINCOLL_ERR_PEER_FAILED (this
 *         member was dropped), ::LINCOLL_ERR_TIMEOUT or ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_comm_shrink(lincoll_comm_t *comm, lincoll_comm_t **new_p);

/**
 * @brief Rank in @p to of rank @p rank of @p from (same context).
 * @return the rank in @p to, or -1 when that process is not a member of
 *         @p to (or an argument is invalid).
 */
LINCOLL_API int lincoll_comm_translate(const lincoll_comm_t *from, int rank,
                                       const lincoll_comm_t *to);

/**
 * @brief Free a communicator made by lincoll_comm_split(), lincoll_comm_shrink()
 *        or lincoll_comm_create_group().
 * @param [in] comm communicator, or NULL (no-op). The world is refused.
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID.
 */
LINCOLL_API lincoll_status_t lincoll_comm_free(lincoll_comm_t *comm);

/**
 * @brief Barrier over @p comm (through the data transport).
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_TIMEOUT or ::LINCOLL_ERR_PEER_FAILED.
 */
LINCOLL_API lincoll_status_t lincoll_barrier(lincoll_comm_t *comm);

/**
 * @brief Drive communication once (for programs with their own event loop).
 *
 * lincoll_test() progresses too; this call is for a context with no plan of
 * the caller's running (a peer's message arriving early, a send to flush).
 * @param [in] ctx context.
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID.
 */
LINCOLL_API lincoll_status_t lincoll_progress(lincoll_context_t *ctx);

/**
 * @brief A file descriptor that becomes readable when the context has
 *        progress to make (a message arrived, a send completed).
 *
 * Poll it for reading (poll, select, epoll: level or edge triggered), after
 * lincoll_context_arm() returned ::LINCOLL_OK; never read it.  Owned by the
 * context: valid until lincoll_finalize(), not to be closed.  With UCX it is
 * the worker's event descriptor (UCP's wakeup feature).  See the file
 * documentation for the loop and its race.
 * @param [in]  ctx  context.
 * @param [out] fd_p the descriptor.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID, or ::LINCOLL_ERR_UNSUPPORTED when
 *         the transport has no such descriptor.
 */
LINCOLL_API lincoll_status_t lincoll_context_fd(lincoll_context_t *ctx, int *fd_p);

/**
 * @brief Arm the descriptor of lincoll_context_fd() before sleeping on it.
 * @param [in] ctx context.
 * @return ::LINCOLL_OK: armed, sleeping is safe (any new event makes the
 *         descriptor readable); ::LINCOLL_ERR_BUSY: events are pending,
 *         progress (lincoll_test(), lincoll_progress()) and arm again instead
 *         of sleeping; ::LINCOLL_ERR_INVALID; ::LINCOLL_ERR_UNSUPPORTED;
 *         ::LINCOLL_ERR_TRANSPORT.
 */
LINCOLL_API lincoll_status_t lincoll_context_arm(lincoll_context_t *ctx);

/* ---- a TCP store for groups of long-running processes ------------------- */

/** Opaque TCP rendezvous store (lincoll_store_start()). */
typedef struct lincoll_store lincoll_store_t;

/** Parameters of lincoll_store_start(); zero-initialize and set what you need. */
typedef struct lincoll_store_params {
    /** Address or name to listen on; NULL or "" = every interface. */
    const char *host;
    /** Port; 0 = a free one the kernel picks (lincoll_store_port() tells). */
    int port;
    /** Secret every rank presents (1 to 127 bytes); required. */
    const char *secret;
    /** 0: serve any number of named jobs, each made by its first rank with
     *  the size it announces (lincoll_init_params_t::store_job); > 0: one
     *  job of this many ranks, without a name (as lincoll-run). */
    int size;
    /** Seconds a connection may sit silent before its HELLO or in the middle
     *  of a message, and a job may wait with no member connected; 0 = 30. */
    double idle_timeout;
} lincoll_store_params_t;

/**
 * @brief Serve a TCP rendezvous store from a background thread (the
 *        lincoll-store program serves one from its own process).
 *
 * Ranks join it with ::LINCOLL_BOOTSTRAP_STORE.  A rank that leaves a job
 * without lincoll_finalize() (it died) fails that job: its other ranks get
 * ::LINCOLL_ERR_PEER_FAILED at once.  The secret travels in clear text:
 * serve on a trusted network only.
 * @param [in]  params  parameters (secret required).
 * @param [out] store_p the store; stop it with lincoll_store_stop().
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID, ::LINCOLL_ERR_BUSY (the port is
 *         taken), ::LINCOLL_ERR_IO or ::LINCOLL_ERR_NOMEM.
 */
LINCOLL_API lincoll_status_t lincoll_store_start(const lincoll_store_params_t *params,
                                                 lincoll_store_t **store_p);

/**
 * @brief The port the store listens on.
 * @return the port, or -1 if @p store is NULL.
 */
LINCOLL_API int lincoll_store_port(const lincoll_store_t *store);

/**
 * @brief Stop serving and free the store (its connections are closed; ranks
 *        still using it fail their next bootstrap step).
 * @param [in] store the store, or NULL (no-op).
 * @return ::LINCOLL_OK.
 */
LINCOLL_API lincoll_status_t lincoll_store_stop(lincoll_store_t *store);

/**
 * @brief Allocate memory registered with the transport: the zero-copy path.
 *
 * Peers can put into it directly (true one-sided RMA over shared memory).
 * Plans whose buffers come from here skip registration and copies.
 * @param [in]  ctx    context.
 * @param [in]  bytes  size (> 0).
 * @param [out] addr_p the memory, 64-byte aligned.
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID, ::LINCOLL_ERR_NOMEM or ::LINCOLL_ERR_TRANSPORT.
 */
LINCOLL_API lincoll_status_t lincoll_mem_alloc(lincoll_context_t *ctx, size_t bytes, void **addr_p);

/**
 * @brief Free memory from lincoll_mem_alloc().
 * @param [in] ctx  context.
 * @param [in] addr address returned by lincoll_mem_alloc(), or NULL (no-op).
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID (not lincoll memory).
 */
LINCOLL_API lincoll_status_t lincoll_mem_free(lincoll_context_t *ctx, void *addr);

/**
 * @brief Register user memory with the transport (kept until deregistered).
 * @param [in] ctx   context.
 * @param [in] addr  start (not NULL).
 * @param [in] bytes size (> 0).
 * @return ::LINCOLL_OK, ::LINCOLL_ERR_INVALID or ::LINCOLL_ERR_TRANSPORT.
 */
LINCOLL_API lincoll_status_t lincoll_mem_register(lincoll_context_t *ctx, void *addr, size_t bytes);

/**
 * @brief Drop a registration made by lincoll_mem_register().
 * @return ::LINCOLL_OK or ::LINCOLL_ERR_INVALID (not registered).
 */
LINCOLL_API lincoll_status_t lincoll_mem_deregister(lincoll_context_t *ctx, void *addr);

#ifdef __cplusplus
}
#endif
#endif
