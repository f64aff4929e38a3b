/* lincoll_perf: benchmarks (network tests are added with the round engine). */
#include <lincoll/lincoll.h>

#include <stdio.h>
#include <string.h>

#include "perf_local.h"

int main(int argc, char **argv)
{
    const char *test = NULL;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "-t") == 0) {
            test = argv[i + 1];
        }
    }
    if (test != NULL && strcmp(test, "gf") == 0 && lc_perf_gf_main) return lc_perf_gf_main(argc, argv);
    if (test != NULL && strcmp(test, "gemm") == 0 && lc_perf_gemm_main) return lc_perf_gemm_main(argc, argv);
    if (test != NULL && strcmp(test, "reduce") == 0 && lc_perf_reduce_main) return lc_perf_reduce_main(argc, argv);
    fprintf(stderr, "lincoll_perf: unknown test\n");
    return 2;
}
