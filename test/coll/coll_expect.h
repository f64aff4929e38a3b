/*
 * test/coll/coll_expect.h: closed forms of the messages and elements every
 * rank sends and receives, and the rounds, for each collective algorithm.
 *
 * RHD: the table of docs/collectives.md, "Per-rank messages and elements";
 * ring and binomial reduce are derived here (the binomial reduce is the time
 * reverse of the binomial broadcast: sent and received swap).  The
 * test_coll_model ctest checks every line against the executable schedules
 * of test/coll/model/ (check_expect.py).
 */
#ifndef LC_TEST_COLL_EXPECT_H
#define LC_TEST_COLL_EXPECT_H

#include <stddef.h>
#include <stdint.h>

typedef struct xs {
    uint64_t ms, es, mr, er; /* messages/elements sent, messages/elements received */
} xs_t;

enum { X_ALLREDUCE, X_RS, X_AG, X_BCAST, X_REDUCE };
enum { XA_RHD, XA_RING, XA_BINOMIAL };

/* Expected counts of rank `me`.  n = count (allreduce/bcast/reduce), counts[]
 * per rank (RS/AG; P entries).  Returns 0, or -1 for an unknown (op, algo). */
int xs_expect(int op, int algo, int P, size_t n, const size_t *counts, int root, int me, xs_t *out);
/* Global rounds (highest round carrying a message + 1). */
unsigned xs_rounds(int op, int algo, int P);

#endif
