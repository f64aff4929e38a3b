/*
 * mpi/lcm_table.c: the size table, agreed from world rank 0 at start.
 *
 * Per operation, the message sizes lincoll takes (a few ranges of bytes, as
 * MPI makes them equal on every rank: allreduce, reduce, bcast and both
 * reduce_scatters the whole vector, allgather one rank's block, barrier 0),
 * and the size from which blocking calls are staged through lincoll memory
 * (lcm_stage.c).  The built-in table is overridden by LINCOLL_MPI_MIN_BYTES
 * (docs/mpi.md, "The size table"):
 *
 *   entry[,entry...]   entry: op=off | op=RANGE[+RANGE...] | stage=SIZE|off
 *   RANGE: FROM (FROM and up) or FROM-TO (both included); sizes as 64, 8k, 4m
 *
 * An environment can differ from rank to rank (a launcher that exports it to
 * some ranks only), and a decision made from a different table on one rank
 * would send that rank to PMPI while the others wait in lincoll.  So world
 * rank 0 parses its text and broadcasts the table (PMPI_Bcast on the
 * bootstrap's private communicator); every rank decides from that one, and
 * a rank whose own text disagrees says so once.  The plan cache's bounds
 * (LINCOLL_MPI_CACHE, _CACHE_BYTES) travel with it: the staged plans' inits
 * communicate, so every rank must hit and evict alike.
 */
#include "lcm.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const lcm_table_names[LCM_OP_LAST] = {
    "allreduce",      "reduce", "bcast", "allgather", "reduce_scatter_block",
    "reduce_scatter", "barrier"};

/* Smallest message lincoll takes by default, per operation.  Below them
 * Open MPI 4.1's own algorithms measured as fast or faster than lincoll's
 * tag algorithms on one host, 2 ranks, quiet machine
 * (docs/perf/2026-12-03-report.md: allgather 1.02-1.91x up to 2 KiB, bcast
 * 1.29x and reduce 1.04x at 128 B). */
static const uint64_t lcm_min_default[LCM_OP_LAST] = {[LCM_ALLREDUCE] = 0,
                                                      [LCM_REDUCE] = 512,
                                                      [LCM_BCAST] = 512,
                                                      [LCM_ALLGATHER] = 4096,
                                                      [LCM_REDUCE_SCATTER_BLOCK] = 0,
                                                      [LCM_REDUCE_SCATTER] = 0,
                                                      [LCM_BARRIER] = 0};

/* Staging from this size (lcm_stage.c): the copies in and out cost less
 * than the zero-copy plan saves, for the operations that reduce.  bcast and
 * allgather are not staged by default: there the MPI moves the data in one
 * single-copy transfer, and the copies in and out made the staged call
 * 1.1-2.2x slower than the unstaged one (8 MiB, 2 ranks, quiet machine:
 * docs/perf/2026-12-06-mpi-preload-speed.md).  stage=SIZE sets every
 * operation. */
#define LCM_STAGE_DEFAULT (256u << 10)
static const uint64_t lcm_stage_default[LCM_OP_LAST] = {[LCM_ALLREDUCE] = LCM_STAGE_DEFAULT,
                                                        [LCM_REDUCE] = LCM_STAGE_DEFAULT,
                                                        [LCM_BCAST] = UINT64_MAX,
                                                        [LCM_ALLGATHER] = UINT64_MAX,
                                                        [LCM_REDUCE_SCATTER_BLOCK] =
                                                            LCM_STAGE_DEFAULT,
                                                        [LCM_REDUCE_SCATTER] = LCM_STAGE_DEFAULT,
                                                        [LCM_BARRIER] = UINT64_MAX};

void lcm_table_default(lcm_table_t *t)
{
    memset(t, 0, sizeof(*t));
    for (int op = 0; op < LCM_OP_LAST; op++) {
        t->n[op] = 1;
        t->lo[op][0] = lcm_min_default[op];
        t->hi[op][0] = UINT64_MAX;
    }
    for (int op = 0; op < LCM_OP_LAST; op++)
        t->stage[op] = lcm_stage_default[op];
}

int lcm_parse_bytes(const char *s, size_t *out)
{
    static const char units[] = "kKmMgG"; /* powers of 1024, as lincoll's table */
    char *end;
    if (*s < '0' || *s > '9') return -1;
    unsigned long long v = strtoull(s, &end, 10);
    const char *u = *end != '\0' ? strchr(units, *end) : NULL;
    if (u != NULL) v <<= 10 * (1 + (u - units) / 2), end++;
    if (end == s || *end != '\0') return -1;
    *out = (size_t)v;
    return 0;
}

/* One operation's ranges: "off" or RANGE[+RANGE...]. */
static int lcm_table_ranges(char *spec, lcm_table_t *t, int op)
{
    t->n[op] = 0;
    if (strcmp(spec, "off") == 0) return 0;
    char *save = NULL;
    for (char *r = strtok_r(spec, "+", &save); r != NULL; r = strtok_r(NULL, "+", &save)) {
        if (t->n[op] == LCM_TABLE_RANGES) return -1;
        char *dash = strchr(r, '-');
        size_t lo = 0, hi = SIZE_MAX;
        if (dash != NULL) *dash = '\0';
        if (lcm_parse_bytes(r, &lo) != 0) return -1;
        if (dash != NULL && (lcm_parse_bytes(dash + 1, &hi) != 0 || hi < lo)) return -1;
        t->lo[op][t->n[op]] = lo;
        t->hi[op][t->n[op]] = dash != NULL ? hi : UINT64_MAX;
        t->n[op]++;
    }
    return t->n[op] > 0 ? 0 : -1;
}

int lcm_table_parse(const char *text, lcm_table_t *t, int quiet)
{
    lcm_table_default(t);
    if (text == NULL || *text == '\0') return 0;
    char buf[256];
    if (strlen(text) >= sizeof(buf)) {
        if (!quiet) fprintf(stderr, "lincoll_mpi: LINCOLL_MPI_MIN_BYTES: too long\n");
        return -1;
    }
    snprintf(buf, sizeof(buf), "%s", text);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        int op = -1, bad = eq == NULL;
        if (!bad) {
            *eq = '\0';
            for (int i = 0; i < LCM_OP_LAST; i++)
                if (strcmp(tok, lcm_table_names[i]) == 0) op = i;
            if (op >= 0) {
                bad = lcm_table_ranges(eq + 1, t, op) != 0;
            } else if (strcmp(tok, "stage") == 0) {
                size_t v = 0;
                uint64_t all = UINT64_MAX;
                if (strcmp(eq + 1, "off") != 0 && lcm_parse_bytes(eq + 1, &v) == 0)
                    all = v;
                else if (strcmp(eq + 1, "off") != 0)
                    bad = 1;
                for (int i = 0; !bad && i < LCM_OP_LAST; i++)
                    t->stage[i] = all;
            } else {
                bad = 1;
            }
        }
        if (bad) {
            if (!quiet) {
                if (eq != NULL) *eq = '=';
                fprintf(stderr,
                        "lincoll_mpi: LINCOLL_MPI_MIN_BYTES: bad entry '%s' (op=FROM[-TO][+...], "
                        "op=off or stage=SIZE|off)\n",
                        tok);
            }
            lcm_table_default(t);
            return -1;
        }
    }
    return 0;
}

int lcm_table_agree(const char *text, long cache_max, size_t cache_bytes)
{
    int rank = 0;
    PMPI_Comm_rank(lcm.boot, &rank);
    lcm_table_t mine, agreed;
    const int bad = lcm_table_parse(text, &mine, rank != 0);
    mine.cache_max = (uint64_t)cache_max;
    mine.cache_bytes = (uint64_t)cache_bytes;
    if (bad && rank == 0) fprintf(stderr, "lincoll_mpi: the built-in size table is used\n");
    agreed = mine;
    if (PMPI_Bcast(&agreed, (int)sizeof(agreed), MPI_BYTE, 0, lcm.boot) != MPI_SUCCESS) return -1;
    if (rank != 0 && memcmp(&agreed, &mine, sizeof(mine)) != 0)
        fprintf(stderr,
                "lincoll_mpi: rank %d: LINCOLL_MPI_MIN_BYTES or LINCOLL_MPI_CACHE* differ from "
                "rank 0's: rank 0's are used\n",
                rank);
    /* staged plans are made and found in call order: not where threads race */
    int multiple = lcm.thread_multiple, any = 0;
    if (PMPI_Allreduce(&multiple, &any, 1, MPI_INT, MPI_MAX, lcm.boot) != MPI_SUCCESS) return -1;
    for (int op = 0; any && op < LCM_OP_LAST; op++)
        agreed.stage[op] = UINT64_MAX;
    lcm.table = agreed;
    lcm.cache_max = (long)agreed.cache_max;
    lcm.cache_bytes = (size_t)agreed.cache_bytes;
    return 0;
}

int lcm_size_ok(lcm_op_t op, size_t bytes)
{
    const lcm_table_t *t = &lcm.table;
    for (uint64_t i = 0; i < t->n[op]; i++)
        if (bytes >= t->lo[op][i] && bytes <= t->hi[op][i]) return 1;
    return 0;
}

int lcm_stage_ok(lcm_op_t op, size_t bytes)
{
    return bytes >= lcm.table.stage[op];
}
