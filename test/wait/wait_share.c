/*
 * test/wait/wait_share.c: blocking collectives on ranks that share
 * processing units wait the way LINCOLL_WAIT says, and are right.
 *
 *   LINCOLL_LOG_LEVEL=info [taskset -c 0] lincoll-run -n 4 wait_share sleep|spin
 *
 * Checks on every rank:
 *   - lincoll_init logged "wait: sleep" (or "wait: spin"), the mode the
 *     argument expects (with taskset -c 0 the ranks share one PU, whatever
 *     the machine: auto must sleep), and that zero-copy rounds look once
 *     per test (either mode: the peer that stores needs the PU);
 *   - allreduce, reduce_scatter, allgather, bcast and reduce of 8 B, 4 KiB
 *     and 1 MiB over malloc'd buffers and over lincoll_mem_alloc buffers
 *     (the zero-copy plans, which wait on flags peers store) give exact
 *     results, 20 times each;
 *   - sleeping: the ranks blocked in the kernel (voluntary context switches
 *     during the collectives, getrusage), which a spinning wait never does.
 */
#include <lincoll/lincoll.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static char wait_line[256];

static void on_log(lincoll_log_level_t level, int rank, const char *file, int line, const char *msg,
                   void *arg)
{
    (void)level, (void)rank, (void)file, (void)line, (void)arg;
    if (strncmp(msg, "wait: ", 6) == 0) snprintf(wait_line, sizeof(wait_line), "%s", msg);
}

static long voluntary_switches(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_nvcsw;
}

enum { ALLREDUCE, REDUCE_SCATTER, ALLGATHER, BCAST, REDUCE, NOPS };
static const char *const names[] = {"allreduce", "reduce_scatter", "allgather", "bcast", "reduce"};

/* one operation, n floats in total (a block of n / P for the scatter/gather
 * families); returns the number of wrong elements */
static long run(lincoll_comm_t *w, int op, float *s, float *d, size_t n)
{
    int me = lincoll_comm_rank(w), P = lincoll_comm_size(w);
    size_t blk = n / (size_t)P > 0 ? n / (size_t)P : 1;
    size_t sn = op == ALLGATHER ? blk : op == REDUCE_SCATTER ? blk * (size_t)P : n;
    for (size_t i = 0; i < sn; i++)
        s[i] = (float)(me + 1 + (int)((i + (op == ALLGATHER ? blk * (size_t)me : 0)) % 7));
    lincoll_plan_t *plan;
    lincoll_status_t st;
    switch (op) {
    case ALLREDUCE:
        st = lincoll_allreduce_init(w, s, d, n, LINCOLL_FLOAT, LINCOLL_SUM, &plan);
        break;
    case REDUCE_SCATTER:
        st = lincoll_reduce_scatter_init(w, s, d, blk, LINCOLL_FLOAT, LINCOLL_SUM, &plan);
        break;
    case ALLGATHER:
        st = lincoll_allgather_init(w, s, d, blk, LINCOLL_FLOAT, &plan);
        break;
    case BCAST:
        st = lincoll_bcast_init(w, s, n, LINCOLL_FLOAT, 0, &plan);
        break;
    default:
        st = lincoll_reduce_init(w, s, d, n, LINCOLL_FLOAT, LINCOLL_SUM, 0, &plan);
        break;
    }
    if (st != LINCOLL_OK) {
        fprintf(stderr, "wait_share: %s init: %s\n", names[op], lincoll_strerror(st));
        return 1;
    }
    long bad = 0;
    for (int it = 0; it < 20 && st == LINCOLL_OK; it++) {
        if (op == BCAST && me != 0) memset(s, 0, n * sizeof(float));
        st = lincoll_start(plan);
        if (st == LINCOLL_OK) st = lincoll_wait(plan);
    }
    lincoll_plan_free(plan);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "wait_share: %s: %s\n", names[op], lincoll_strerror(st));
        return 1;
    }
    /* expected: the sum over ranks r of r + 1 + (global index mod 7) */
    const float *res = op == BCAST ? s : d;
    size_t rn = op == REDUCE_SCATTER ? blk : op == ALLGATHER ? blk * (size_t)P : n;
    if (op == REDUCE && me != 0) return 0;
    for (size_t i = 0; i < rn; i++) {
        size_t g = op == REDUCE_SCATTER ? i + blk * (size_t)me : i;
        float want;
        if (op == BCAST) {
            want = (float)(1 + (int)(g % 7));
        } else if (op == ALLGATHER) {
            want = (float)((int)(i / blk) + 1 + (int)(g % 7));
        } else {
            want = (float)(P * (P + 1) / 2 + P * (int)(g % 7));
        }
        bad += res[i] != want;
    }
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "sleep") != 0 && strcmp(argv[1], "spin") != 0)) {
        fprintf(stderr, "usage: wait_share sleep|spin   (under lincoll-run)\n");
        return 2;
    }
    lincoll_log_set_handler(on_log, NULL);
    lincoll_context_t *ctx;
    lincoll_comm_t *w;
    lincoll_status_t st = lincoll_init(NULL, &ctx);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "wait_share: lincoll_init: %s\n", lincoll_strerror(st));
        return 1;
    }
    lincoll_log_set_handler(NULL, NULL);
    lincoll_comm_world(ctx, &w);
    int me = lincoll_comm_rank(w), fail = 0;
    char want[16];
    snprintf(want, sizeof(want), "wait: %s ", argv[1]);
    if (strncmp(wait_line, want, strlen(want)) != 0) {
        fprintf(stderr, "wait_share: rank %d: expected \"%s...\", lincoll_init logged \"%s\"\n", me,
                want, wait_line[0] ? wait_line : "(no wait line: LINCOLL_LOG_LEVEL=info?)");
        fail = 1;
    }
    /* 4 ranks on one PU: a zero-copy round's wait looks once per test and
     * gives the PU away, in either mode */
    if (strstr(wait_line, "zero-copy rounds: one look per test") == NULL) {
        fprintf(stderr,
                "wait_share: rank %d: expected \"zero-copy rounds: one look per test\" in "
                "\"%s\"\n",
                me, wait_line);
        fail = 1;
    }
    const size_t max = (1u << 20) / sizeof(float);
    float *hs = malloc(max * sizeof(float)), *hd = malloc(max * sizeof(float)), *ms, *md;
    if (lincoll_mem_alloc(ctx, max * sizeof(float), (void **)&ms) != LINCOLL_OK ||
        lincoll_mem_alloc(ctx, max * sizeof(float), (void **)&md) != LINCOLL_OK || !hs || !hd) {
        fprintf(stderr, "wait_share: out of memory\n");
        return 1;
    }
    const size_t sizes[] = {2, 1024, max};
    long v0 = voluntary_switches();
    for (int mem = 0; mem < 2; mem++) {
        for (int op = 0; op < NOPS; op++) {
            for (int k = 0; k < 3; k++) {
                long bad = run(w, op, mem ? ms : hs, mem ? md : hd, sizes[k]);
                if (bad != 0) {
                    fprintf(stderr, "wait_share: rank %d: %s of %zu bytes (%s memory): %ld wrong\n",
                            me, names[op], sizes[k] * sizeof(float), mem ? "lincoll" : "host", bad);
                    fail = 1;
                }
            }
        }
    }
    long switches = voluntary_switches() - v0;
    if (strcmp(argv[1], "sleep") == 0 && switches < 10) {
        fprintf(stderr,
                "wait_share: rank %d: %ld voluntary context switches: the waits did not "
                "sleep\n",
                me, switches);
        fail = 1;
    }
    printf("wait_share: rank %d: %s; %ld voluntary context switches: %s\n", me, wait_line, switches,
           fail ? "FAILED" : "OK");
    lincoll_mem_free(ctx, ms);
    lincoll_mem_free(ctx, md);
    free(hs);
    free(hd);
    st = lincoll_finalize(ctx);
    return fail || st != LINCOLL_OK;
}
