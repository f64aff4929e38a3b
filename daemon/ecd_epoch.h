/*
 * daemon/ecd_epoch.h: one lincoll context per membership epoch of the
 * daemons (docs/daemon.md, "Epochs").
 *
 * An epoch is a lincoll context over the daemons that answered its leader
 * (the lowest-numbered reachable node of the cluster file) when it was
 * formed: ranks in node order, the leader rank 0 and the hub of the
 * out-of-band allgather (ecd_group.c).  Operations do not build contexts:
 * each makes a communicator over its members with
 * lincoll_comm_create_group(LINCOLL_GROUP_LOCAL) and tags its plans with
 * tags its coordinator draws (ecd_epoch_tags), so many operations of many
 * coordinators run at once on one context.  A new epoch is formed when a
 * node needs one and has none, when the cluster file changed, when an
 * operation needs a node the epoch lacks, and when a member dies (its
 * leader sees its connection close).  Installing a newer epoch retires the
 * older one: it takes no new operations, and once the operations on it are
 * through every member finalizes it (two barriers over the leader's
 * connections, which stay open for the epoch's life).
 *
 * A context is used from one thread at a time: every lincoll call on an
 * epoch's context is made under its mutex (ecd_epoch_lock); the service
 * thread (ecd_service.c) drives its progress meanwhile and wakes the
 * operations that wait on their plans (ecd_epoch_drive).
 */
#ifndef ECD_EPOCH_H
#define ECD_EPOCH_H

#include "daemon/ecd.h"

#include <pthread.h>

typedef struct ecd_epoch {
    uint64_t seq; /* epoch number: every installed one is newer than the last */
    int leader;   /* node that formed it (rank 0) */
    int n, rank;  /* ranks, this node's rank */
    int node_of_rank[ECD_MAX_NODES];
    int rank_of_node[ECD_MAX_NODES]; /* -1: not a member */
    uint64_t sig;                    /* the cluster file it was formed on (ecd_cluster_sig) */
    lincoll_context_t *ctx;
    lincoll_comm_t *world;
    pthread_mutex_t mu; /* the context: one thread at a time */
    pthread_cond_t cv;  /* broadcast after every progress of the service thread */
    /* state (ecd_epoch's own lock) */
    int refs;    /* operations using it */
    int retired; /* a newer one is installed, or it failed: no new operations */
    int stop;    /* the service thread ends */
    pthread_t service;
    int service_on;
    double t_formed; /* seconds lincoll_init took here */
    /* memory the transport may still touch (ecd_epoch_keep; ep_lock) */
    void **kept;
    int nkept, capkept;
} ecd_epoch_t;

/* A signature of the cluster file's code and addresses. */
uint64_t ecd_cluster_sig(const ecd_cluster_t *cl);

/* The current epoch, referenced (ecd_epoch_release), such that it is formed
 * on cl and holds every node i with need[i] set (need may be NULL).  When
 * there is none, or `stale` is its number (an operation on it failed), a
 * new one is asked of the leader and waited for (within 3T).  NULL with the
 * reason in err. */
ecd_epoch_t *ecd_epoch_get(const ecd_cluster_t *cl, const int *need, uint64_t stale, char *err,
                           size_t esize);
/* An epoch holding nodes[0..n-1] on which the members of an operation agree:
 * "EPOCH SEQ" on each member[i] (NULL: this node), each answering "OK" when
 * SEQ is its current epoch; when one has another, a newer epoch is asked
 * for and agreed on once more (one retry).  The epoch, referenced, or NULL
 * with the reason in err (and *lost set to 1 when a member's connection
 * failed). */
ecd_epoch_t *ecd_epoch_agree(const ecd_cluster_t *cl, ecd_conn_t *const *member, const int *nodes,
                             int n, int *lost, char *err, size_t esize);
/* The current epoch if it is number seq (a member of an operation); waits
 * up to T for one being installed.  NULL when this node has another. */
ecd_epoch_t *ecd_epoch_find(uint64_t seq);
void ecd_epoch_release(ecd_epoch_t *e);
/* Free mem once e's context is finalized, not before: buffers of a plan
 * whose lincoll_plan_free answered LINCOLL_ERR_BUSY (a transfer the
 * transport could not stop may still read or write them).  The caller also
 * fails e (ecd_epoch_fail), so that it is finalized once its operations
 * end. */
void ecd_epoch_keep(ecd_epoch_t *e, void *mem);
/* Operations on e failed in a way that points at its membership: it takes
 * no new ones (the next ecd_epoch_get forms another). */
void ecd_epoch_fail(ecd_epoch_t *e);
/* `count` tags for an operation this node coordinates on e: base + 32 i,
 * i < count, distinct from every other coordinator's (the node id is in
 * them) and from this node's recent ones. */
uint64_t ecd_epoch_tags(ecd_epoch_t *e, int count);
/* The communicator of an operation over nodes[0..n-1] (its rank i is
 * nodes[i]), made locally; all members pass the same list. */
lincoll_status_t ecd_epoch_group(ecd_epoch_t *e, const int *nodes, int n, lincoll_comm_t **comm_p);
/* Drive a started plan of e to its end (the service thread progresses the
 * context meanwhile); give up (LINCOLL_ERR_PEER_FAILED) as soon as watch,
 * a connection that must stay silent, speaks or closes. */
lincoll_status_t ecd_epoch_drive(ecd_epoch_t *e, lincoll_plan_t *plan, ecd_conn_t *watch);
void ecd_epoch_lock(ecd_epoch_t *e);
void ecd_epoch_unlock(ecd_epoch_t *e);
/* With no epoch here, or one formed on another cluster file, ask the
 * leader for one (the watch thread calls it every 2 s). */
void ecd_epoch_check(void);
/* One line describing the current epoch, for EPOCHSTAT and the log. */
void ecd_epoch_describe(char *out, size_t cap);

/* ---- the service thread (ecd_service.c) ---------------------------------- */
int ecd_service_start(ecd_epoch_t *e);
void ecd_service_stop(ecd_epoch_t *e);
/* Thread: every few seconds, the leader checks the cluster file and forms a
 * new epoch when it changed (nothing to do elsewhere). */
int ecd_service_watch_start(void);

/* ---- protocol lines (ecd_epoch.c) ----------------------------------------- */
/* "EPOCHREQ STALE NODE": NODE asks this node, the leader, for an epoch newer
 * than STALE (0: any) that holds NODE: "OK SEQ" once it is installed. */
void peer_epochreq(ecd_conn_t *c, char **w, int nw);
/* "EPOCHJOIN LEADER": the leader forms an epoch; "OK ready MAXSEQ" (the
 * newest epoch number seen here), then "RANKS SEQ RANK SIZE NODES SIG" and
 * the allgathers of lincoll_init; the connection then stays open for the
 * epoch's life ("RETIRE", or its close, ends it). */
void peer_epochjoin(ecd_conn_t *c, char **w, int nw);
/* "EPOCHSTAT": "OK epoch SEQ leader L ranks N nodes a,b,.. ops R" or
 * "OK epoch none". */
void peer_epochstat(ecd_conn_t *c, char **w, int nw);

#endif
