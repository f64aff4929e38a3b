/*
 * transports/sim/api.h: what a user of the sim transport needs beyond the
 * contract (transport.h): its ops table, its own parameters (the world,
 * which lc_tl_params_t.ext points to), its configuration rows (config.c)
 * and the world itself: created once for K virtual ranks of one process, it
 * records every round, injects faults and kills ranks.
 */
#ifndef LC_TL_SIM_API_H
#define LC_TL_SIM_API_H

#include "../transport.h"

extern const lc_tl_ops_t lc_tl_sim_ops;

/* ---- sim world (shared by all virtual ranks of one process) ----------- */
typedef struct lc_sim_world lc_sim_world_t;

/** Per-round record the sim keeps: the largest message and the count. */
typedef struct lc_sim_round_stat {
    uint64_t max_bytes; /* largest message (or put) sent in this round by any rank */
    uint64_t msgs;      /* messages (and puts) in this round */
    uint64_t bytes;     /* bytes in this round */
} lc_sim_round_stat_t;

/** Fault injection, applied to messages as they are delivered. */
typedef enum lc_sim_fault {
    LC_SIM_FAULT_NONE = 0,
    LC_SIM_FAULT_DROP,      /* the message vanishes */
    LC_SIM_FAULT_CORRUPT,   /* one byte is flipped */
    LC_SIM_FAULT_DELAY,     /* delivered only after `delay` further progress calls */
    LC_SIM_FAULT_DUPLICATE, /* delivered twice */
} lc_sim_fault_t;

typedef lc_sim_fault_t (*lc_sim_fault_fn_t)(void *arg, int src, int dst, unsigned round,
                                            size_t len);

lincoll_status_t lc_sim_world_create(int nranks, lc_sim_world_t **world_p);
void lc_sim_world_destroy(lc_sim_world_t *world);
/** Forget every record (between measured operations). */
void lc_sim_world_reset_stats(lc_sim_world_t *world);
/** Rounds recorded so far (highest round index + 1 that carried a message). */
unsigned lc_sim_world_rounds(lc_sim_world_t *world);
/** Statistics of round @p r (zeros when it carried nothing). */
lc_sim_round_stat_t lc_sim_world_round(lc_sim_world_t *world, unsigned r);
/** Messages/bytes sent and received by one rank. */
void lc_sim_world_rank_stats(lc_sim_world_t *world, int rank, uint64_t *msgs_sent,
                             uint64_t *bytes_sent, uint64_t *msgs_recvd, uint64_t *bytes_recvd);
void lc_sim_world_set_fault(lc_sim_world_t *world, lc_sim_fault_fn_t fn, void *arg, unsigned delay);
/** Mark a virtual rank dead: its peers see LINCOLL_ERR_PEER_FAILED. */
void lc_sim_world_kill(lc_sim_world_t *world, int rank);

/* ---- configuration (config.c) ------------------------------------------ */

/* The rows of lc_tl_sim_config (core's table nests them as one block). */
enum { LC_TL_SIM_CONFIG_NROWS = 0 };

/** The sim transport's configuration rows (none). */
extern const lc_tl_config_t lc_tl_sim_config;

/** The sim transport's own parameters (lc_tl_params_t.ext; required). */
typedef struct lc_tl_sim_params {
    lc_sim_world_t *world; /* the shared world (lc_sim_world_create) */
} lc_tl_sim_params_t;

#endif
