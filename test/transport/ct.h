/*
 * test/transport/ct.h: the transport conformance suite ("ct").
 *
 * The test bodies are written once against a `const lc_tl_ops_t *` and run
 * on every transport.  Ranks 0..CT_NRANKS-1 take part; a body runs the part
 * of rank r only when `CT_LOCAL(e, r)` (its lc_tl_t lives in this process):
 *  - sim: all ranks are virtual ranks of one process, every wait steps the
 *    progress of all of them;
 *  - multi-process (ucx): rank 0 is the parent, ranks 1.. are fork()ed
 *    children, each running the same cmocka group for its own rank.
 *    Addresses go through socketpairs to the parent (the hub), which also
 *    serves barriers.  A failing process sends 'F' on its sockets; every
 *    wait and barrier watches for it, so a failure never hangs the others:
 *    the run is then "broken" and every later test fails at once.
 *
 * Bodies post non-blocking operations and then wait for them with ct_wait,
 * which drives the progress of every local rank, so one sequential body
 * works for one process and for several.  Cost: a wait polls the sockets
 * once per progress sweep in multi-process mode.
 */
#ifndef LC_TEST_TRANSPORT_CT_H
#define LC_TEST_TRANSPORT_CT_H

#include "transports/sim/api.h"
#include "transports/ucx/api.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <cmocka.h>

#define CT_NRANKS 3

typedef struct ct_env {
    const lc_tl_ops_t *ops;
    int nranks;
    int sim;                /* all ranks in this process (sim transport) */
    lc_sim_world_t *world;  /* sim only */
    lc_tl_t *tl[CT_NRANKS]; /* local instances; NULL: rank lives in another process */
    int me;                 /* multi-process: this process's rank; sim: -1 */
    int fd[CT_NRANKS];      /* multi-process: hub has fd[child]; a child has fd[0] */
    pid_t pid[CT_NRANKS];   /* hub: children's pids */
    int broken;             /* some process failed: every later test fails */
    int body_done;          /* the current body ran to its end */
    unsigned seq;           /* test counter: op seq of every tag of the test */
} ct_env_t;

typedef struct ct_op {
    lc_tl_t *tl; /* owner; NULL: not posted here */
    lc_tl_req_t *req;
    lincoll_status_t st;
    size_t len;
    int done;
} ct_op_t;

#define CT_LOCAL(_e, _r) ((_e)->tl[(_r)] != NULL)

/* A test body: `CT_TEST(name) { ... }` defines the cmocka test `name`. */
#define CT_TEST(_name)                                                                             \
    static void _name##_body(ct_env_t *e);                                                         \
    static void _name(void **state)                                                                \
    {                                                                                              \
        ct_env_t *e_ = *state;                                                                     \
        _name##_body(e_);                                                                          \
        e_->body_done = 1;                                                                         \
    }                                                                                              \
    static void _name##_body(ct_env_t *e)

/* Tag of this test: comm 1, op seq = test number, source, round. */
static inline uint64_t ct_tag(const ct_env_t *e, int src, unsigned round)
{
    return lc_tag_make(1, e->seq, (unsigned)src, round);
}

/* Environments. */
int ct_env_sim(ct_env_t *e, int nranks);
void ct_env_sim_fini(ct_env_t *e);
/* Forks nranks-1 children; returns in every process with e->me set. */
int ct_env_multiproc(ct_env_t *e, const lc_tl_ops_t *ops, int nranks);
/* Child: fini and report; hub: fini, reap children.  Returns the exit code. */
int ct_env_multiproc_fini(ct_env_t *e, int failed);

/* cmocka per-test setup/teardown (barrier + failure propagation). */
int ct_setup(void **state);
int ct_teardown(void **state);

/* Post operations when the rank is local (else op->tl stays NULL). */
void ct_send(ct_env_t *e, int src, int dst, const void *buf, size_t len, uint64_t tag, ct_op_t *op);
void ct_recv(ct_env_t *e, int dst, int src, void *buf, size_t len, uint64_t tag, ct_op_t *op);
/* Wait until every posted op completed, driving all local ranks; releases them. */
void ct_wait(ct_env_t *e, ct_op_t *ops, size_t n);
/* Wait until *p >= v (rank r's memory), driving all local ranks. */
void ct_wait_u64(ct_env_t *e, volatile uint64_t *p, uint64_t v);
/* Drive all local ranks a few times (no completion implied). */
void ct_progress(ct_env_t *e, int sweeps);
/* All processes reach this point (no-op for sim). */
void ct_barrier(ct_env_t *e);

/* One window of rank `owner`, known to rank `user` through a packed rkey
 * sent over the transport itself. */
typedef struct ct_win {
    int owner, user;
    lc_tl_mem_t *mem; /* owner side */
    unsigned char *base;
    size_t len;
    int allocated;      /* mem_alloc (1) or mem_reg of malloc memory (0) */
    lc_tl_rkey_t *rkey; /* user side */
    uint64_t raddr;     /* user side: owner's base address */
} ct_win_t;

void ct_win_create(ct_env_t *e, ct_win_t *w, int owner, int user, size_t len, int allocated);
void ct_win_destroy(ct_env_t *e, ct_win_t *w);

void ct_fill(void *buf, size_t len, unsigned seed);
int ct_check(const void *buf, size_t len, unsigned seed); /* 1 when it matches */

extern const struct CMUnitTest ct_tests[];
extern const size_t ct_ntests;

#endif
