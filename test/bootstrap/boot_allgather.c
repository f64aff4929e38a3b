/*
 * test/bootstrap/boot_allgather.c: integration check of the bootstrap under a
 * real launcher (lincoll-run, mpirun, srun --mpi=pmix).
 *
 * Every rank opens the bootstrap, allgathers a rank-specific blob whose
 * length differs per rank (allgatherv) and checks every other rank's blob,
 * allgathers its rank (fixed length), and barriers; a few rounds of that.
 * Exit 0 when all checks pass, 1 otherwise.
 *   boot_allgather [--expect pmix|tcp|single] [--size N] [--rounds R]
 */
#include "core/base/config.h"
#include "core/context/bootstrap/bootstrap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t blob_len(int rank, int round)
{
    return (size_t)(1 + (rank * 37 + round * 11) % 97 + rank * 3);
}

static uint8_t blob_byte(int rank, int round, size_t i)
{
    return (uint8_t)(rank * 131 + round * 17 + i * 7 + (i >> 8));
}

int main(int argc, char **argv)
{
    const char *expect = NULL;
    long want_size = -1;
    int rounds = 3;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--expect") == 0 && i + 1 < argc) {
            expect = argv[++i];
        } else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            want_size = strtol(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
            rounds = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--expect pmix|tcp|single] [--size N] [--rounds R]\n",
                    argv[0]);
            return 2;
        }
    }
    lc_config_t cfg;
    if (lc_config_load(&cfg) != LINCOLL_OK) {
        fprintf(stderr, "boot_allgather: bad LINCOLL_* configuration\n");
        return 1;
    }
    lc_bootstrap_t *b;
    lincoll_status_t st = lc_bootstrap_open(&cfg, &b);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "boot_allgather: lc_bootstrap_open: %s\n", lincoll_strerror(st));
        return 1;
    }
    int fail = 0;
    if (expect != NULL && strcmp(expect, b->ops->name) != 0) {
        fprintf(stderr, "boot_allgather: bootstrap is %s, expected %s\n", b->ops->name, expect);
        fail = 1;
    }
    if (want_size >= 0 && b->size != want_size) {
        fprintf(stderr, "boot_allgather: size %d, expected %ld\n", b->size, want_size);
        fail = 1;
    }
    for (int round = 0; round < rounds && !fail; round++) {
        size_t len = blob_len(b->rank, round);
        uint8_t *mine = malloc(len);
        for (size_t i = 0; i < len; i++)
            mine[i] = blob_byte(b->rank, round, i);
        void *out;
        void **ptrs;
        size_t *lens;
        st = lc_bootstrap_allgatherv(b, mine, len, &out, &ptrs, &lens);
        free(mine);
        if (st != LINCOLL_OK) {
            fprintf(stderr, "rank %d: allgatherv: %s\n", b->rank, lincoll_strerror(st));
            fail = 1;
            break;
        }
        for (int r = 0; r < b->size; r++) {
            if (lens[r] != blob_len(r, round)) {
                fprintf(stderr, "rank %d round %d: rank %d blob has %zu bytes, expected %zu\n",
                        b->rank, round, r, lens[r], blob_len(r, round));
                fail = 1;
                continue;
            }
            const uint8_t *p = ptrs[r];
            for (size_t i = 0; i < lens[r]; i++) {
                if (p[i] != blob_byte(r, round, i)) {
                    fprintf(stderr, "rank %d round %d: rank %d blob differs at byte %zu\n", b->rank,
                            round, r, i);
                    fail = 1;
                    break;
                }
            }
        }
        free(out);
        free(ptrs);
        free(lens);
        int32_t me = b->rank * 1000 + round;
        int32_t *all = malloc(sizeof(int32_t) * (size_t)b->size);
        st = b->ops->allgather(b, &me, all, sizeof(me));
        for (int r = 0; st == LINCOLL_OK && r < b->size; r++) {
            if (all[r] != r * 1000 + round) {
                fprintf(stderr, "rank %d: allgather slot %d holds %d\n", b->rank, r, all[r]);
                fail = 1;
            }
        }
        free(all);
        if (st == LINCOLL_OK) st = b->ops->barrier(b);
        if (st != LINCOLL_OK) {
            fprintf(stderr, "rank %d: allgather/barrier: %s\n", b->rank, lincoll_strerror(st));
            fail = 1;
        }
    }
    if (!fail) {
        printf("rank %d of %d via %s (local %d of %d): %d rounds of allgatherv, allgather, "
               "barrier ok\n",
               b->rank, b->size, b->ops->name, b->local_rank, b->local_size, rounds);
    }
    fflush(stdout);
    lc_bootstrap_close(b);
    return fail;
}
