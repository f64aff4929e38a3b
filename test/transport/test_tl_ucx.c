/*
 * test/transport/test_tl_ucx.c: the conformance suite on the ucx transport
 * across real processes: this process is rank 0 and forks ranks 1..2; each
 * runs the same cmocka group for its own rank (ct_env_multiproc).  ctest
 * runs it under the default transports (shm) and under UCX_TLS=tcp,self.
 * The exit code is non-zero when any process failed a test or crashed.
 */
#include "ct.h"

#include <stdio.h>
#include <stdlib.h>

static ct_env_t env;

static int group_setup(void **state)
{
    *state = &env;
    return 0;
}

int main(void)
{
    if (ct_env_multiproc(&env, &lc_tl_ucx_ops, CT_NRANKS) != 0) {
        fprintf(stderr, "ct: rank %d: cannot set up the ucx processes\n", env.me);
        return ct_env_multiproc_fini(&env, 1) ? 1 : 1;
    }
    char name[64];
    snprintf(name, sizeof(name), "transport conformance: ucx rank %d", env.me);
    int failed = _cmocka_run_group_tests(name, ct_tests, ct_ntests, group_setup, NULL);
    return ct_env_multiproc_fini(&env, failed);
}
