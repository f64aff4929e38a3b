/*
 * lincoll_info: what this lincoll build is and how it is configured
 * (in the spirit of ucx_info).
 *
 *   lincoll_info        version, build options, transports, kernel dispatch
 *   lincoll_info -c     every LINCOLL_* variable with its type, default, doc
 *   lincoll_info -t     the topology as lincoll sees it
 */
#include <lincoll/lincoll.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void print_summary(void)
{
    const char *active, *best;
    printf("# lincoll version:   %s\n", LINCOLL_VERSION_STRING);
    printf("# build options:     %s\n", lincoll_info_build());
    printf("# transports:        %s\n", lincoll_info_transports());
    if (lincoll_info_kernel_isa(&active, &best) == LINCOLL_OK) {
        printf("# kernel dispatch:   %s (cpu supports up to %s; LINCOLL_KERNEL_ISA forces)\n",
               active, best);
    }
}

static int print_config(void)
{
    size_t n = lincoll_config_var_count();
    int bad = lincoll_config_check() != LINCOLL_OK;
    for (size_t i = 0; i < n; i++) {
        lincoll_config_var_t v;
        if (lincoll_config_var(i, &v) != LINCOLL_OK) {
            return 1;
        }
        printf("#\n# %s\n", v.doc);
        printf("# type: %s%s%s\n", v.type, v.values ? ", values: " : "", v.values ? v.values : "");
        if (v.current != NULL) {
            printf("%s=%s   (default %s)\n", v.name, v.current, v.default_value);
        } else {
            printf("%s=%s\n", v.name, v.default_value);
        }
    }
    return bad;
}

static void usage(const char *prog)
{
    printf("usage: %s [-c] [-t] [-h]\n"
           "  (none)  version, build options, transports, kernel dispatch\n"
           "  -c      every LINCOLL_* configuration variable with its documentation\n"
           "  -t      topology: cores, NUMA nodes, NICs, GPUs, binding\n",
           prog);
}

int main(int argc, char **argv)
{
    int opt, want_config = 0, want_topo = 0;
    while ((opt = getopt(argc, argv, "cth")) != -1) {
        switch (opt) {
        case 'c': want_config = 1; break;
        case 't': want_topo = 1; break;
        case 'h': usage(argv[0]); return 0;
        default: usage(argv[0]); return 2;
        }
    }
    print_summary();
    int rc = 0;
    if (want_config) {
        rc |= print_config();
    }
    if (want_topo) {
        char buf[8192];
        if (lincoll_info_topology(buf, sizeof(buf)) == LINCOLL_OK) {
            fputs(buf, stdout);
        } else {
            rc = 1;
        }
    }
    return rc;
}
