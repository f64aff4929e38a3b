/*
 * test/mpi/check.h: what the MPI layer's check programs share: this rank,
 * the count of failed checks, and CHECK(cond, fmt, ...), which counts a
 * failed condition and prints one line naming the rank, file and line.
 */
#ifndef LC_TEST_MPI_CHECK_H
#define LC_TEST_MPI_CHECK_H

#include <stdio.h>

static int rank, failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__);                    \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

#endif
