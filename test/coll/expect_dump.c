/*
 * test/coll/expect_dump.c: prints coll_expect.c's closed forms for a grid of
 * cases, one line per rank: "op algo P n root rank ms es mr er rounds"
 * (RS/AG use counts[i] = (7i + n) mod 4).  check_expect.py runs the
 * schedules of test/coll/model/ on every case and compares.
 */
#include <stdio.h>
#include <stdlib.h>

#include "coll/coll_expect.h"

int main(void)
{
    static const char *const ops[] = {"allreduce", "rs", "ag", "bcast", "reduce"};
    static const char *const algos[] = {"rhd", "ring", "binomial"};
    const int Ps[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  11, 12,
                      13, 16, 17, 23, 24, 31, 32, 33, 40, 64, 100};
    for (unsigned pi = 0; pi < sizeof(Ps) / sizeof(Ps[0]); pi++) {
        int P = Ps[pi];
        size_t ns[] = {0, 1, (size_t)P - 1, (size_t)P, (size_t)P + 1, 2 * (size_t)P + 3, 64};
        size_t *c = malloc((size_t)P * sizeof(size_t));
        for (int op = 0; op < 5; op++) {
            for (int algo = 0; algo < 3; algo++) {
                for (unsigned ni = 0; ni < 7; ni++) {
                    size_t n = ns[ni];
                    for (int i = 0; i < P; i++)
                        c[i] = (size_t)((7 * i + (int)n) % 4);
                    for (int root = 0; root < (op >= 3 ? P : 1); root++) {
                        for (int me = 0; me < P; me++) {
                            xs_t x;
                            if (xs_expect(op, algo, P, n, c, root, me, &x) != 0) break;
                            printf("%s %s %d %zu %d %d %llu %llu %llu %llu %u\n", ops[op],
                                   algos[algo], P, n, root, me, (unsigned long long)x.ms,
                                   (unsigned long long)x.es, (unsigned long long)x.mr,
                                   (unsigned long long)x.er, xs_rounds(op, algo, P));
                        }
                    }
                }
            }
        }
        free(c);
    }
    return 0;
}
