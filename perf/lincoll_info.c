/*
 * lincoll_info: what this lincoll build is and how it is configured
 * (in the spirit of ucx_info).
 *
 *   lincoll_info        version, build options, transports, kernel dispatch
 *   lincoll_info -c     every LINCOLL_* variable with its type, default, doc;
 *                       then the UCX_* variables lincoll sets, with the value
 *                       UCX gets and why lincoll sets it
 *   lincoll_info -t     the topology as lincoll sees it; under a launcher
 *                       (lincoll-run, mpirun, srun --mpi=pmix) every rank
 *                       initializes lincoll and rank 0 prints one "rank:"
 *                       line per rank (host, binding, NIC, ports)
 *   lincoll_info --calibrate [-o FILE]
 *                       measure this machine's cost model figures and write
 *                       its machine profile (default: the location the
 *                       library reads, $XDG_CACHE_HOME/lincoll/profile)
 */
#include "core/base/profile.h"
#include "perf/calibrate.h"

#include <lincoll/coll.h>
#include <lincoll/lincoll.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>
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
    static const uint64_t fields[] = {256, 65536, 998244353};
    printf("# gf kernels:       ");
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        lincoll_field_t *f;
        if (lincoll_gf_field_create(fields[i], &f) == LINCOLL_OK) {
            printf(" GF(%llu) %s", (unsigned long long)fields[i], lincoll_gf_kernel_name(f));
            lincoll_gf_field_destroy(f);
        }
    }
    printf("\n# gemm kernels:      double %s, float %s\n", lincoll_gemm_kernel_name(LINCOLL_DOUBLE),
           lincoll_gemm_kernel_name(LINCOLL_FLOAT));
    printf("# reduce kernels:    %s\n", lincoll_reduce_variant());
}

/* A UCX variable lincoll sets unless the environment does (type "ucx"):
 * current is the value UCX gets, default_value lincoll's. */
static void print_ucx_var(const lincoll_config_var_t *v, int *header)
{
    if (!*header) {
        printf("#\n# ---- UCX variables lincoll sets before UCX starts, each only when the "
               "environment\n# ---- does not set it (then the environment's value wins)\n");
        *header = 1;
    }
    printf("#\n# %s\n", v->doc);
    printf("# lincoll sets: %s\n", v->default_value);
    const char *env = getenv(v->name);
    if (env != NULL) {
        printf("%s=%s   (from the environment)\n", v->name, env);
    } else if (v->current != NULL && v->current[0] == '(') {
        printf("# %s: set by lincoll: %s\n", v->name, v->current);
    } else if (v->current != NULL) {
        printf("%s=%s   (set by lincoll)\n", v->name, v->current);
    } else {
        printf("# %s: not set by lincoll here (UCX's default)\n", v->name);
    }
}

static int print_config(void)
{
    size_t n = lincoll_config_var_count();
    int bad = lincoll_config_check() != LINCOLL_OK;
    int ucx_header = 0;
    for (size_t i = 0; i < n; i++) {
        lincoll_config_var_t v;
        if (lincoll_config_var(i, &v) != LINCOLL_OK) {
            return 1;
        }
        if (strcmp(v.type, "ucx") == 0) {
            print_ucx_var(&v, &ucx_header);
            continue;
        }
        printf("#\n# %s\n", v.doc);
        printf("# type: %s%s%s\n", v.type, v.values ? ", values: " : "", v.values ? v.values : "");
        if (v.current != NULL && strcmp(v.type, "secret") == 0) {
            printf("# %s is set (a secret: its value is not shown)\n", v.name);
        } else if (v.current != NULL) {
            printf("%s=%s   (default %s)\n", v.name, v.current, v.default_value);
        } else {
            printf("%s=%s\n", v.name, v.default_value);
        }
    }
    return bad;
}

/* The value the environment gives a configuration variable, as the
 * library's table reports it, or NULL. */
static const char *config_value(lincoll_config_id_t id)
{
    lincoll_config_var_t v;
    return lincoll_config_var(id, &v) == LINCOLL_OK ? v.current : NULL;
}

/* Started by a launcher as one of several ranks? */
static int under_launcher(void)
{
    const char *vals[] = {config_value(LINCOLL_CONFIG_RANK), config_value(LINCOLL_CONFIG_BOOTSTRAP),
                          getenv("PMIX_NAMESPACE")};
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
        if (vals[i] != NULL && *vals[i] != '\0') {
            return 1;
        }
    }
    return 0;
}

#define RANK_LINE 512

/* Every rank's "rank:" line, gathered to all and printed by rank 0. */
static int print_ranks(void)
{
    lincoll_context_t *ctx;
    lincoll_comm_t *world;
    lincoll_status_t st = lincoll_init(NULL, &ctx);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "lincoll_info: lincoll_init: %s\n", lincoll_strerror(st));
        return 1;
    }
    lincoll_comm_world(ctx, &world);
    int me = lincoll_comm_rank(world), n = lincoll_comm_size(world);
    static char text[16384];
    char mine[RANK_LINE] = "rank:     ? (no topology record)";
    int rc = lincoll_info_topology(text, sizeof(text)) != LINCOLL_OK;
    const char *line = strstr(text, "\nrank:");
    if (line != NULL) {
        snprintf(mine, sizeof(mine), "%.*s", (int)strcspn(line + 1, "\n"), line + 1);
    }
    char *all = calloc((size_t)n, RANK_LINE);
    st = all != NULL ? lincoll_allgather(world, mine, all, RANK_LINE, LINCOLL_BYTE)
                     : LINCOLL_ERR_NOMEM;
    if (st != LINCOLL_OK) {
        fprintf(stderr, "lincoll_info: allgather: %s\n", lincoll_strerror(st));
        rc = 1;
    } else if (me == 0) {
        print_summary();
        /* rank 0's machine view, without its own rank line, then every rank */
        if (line != NULL) {
            fwrite(text, 1, (size_t)(line + 1 - text), stdout);
        } else {
            fputs(text, stdout);
        }
        printf("ranks:    %d\n", n);
        for (int r = 0; r < n; r++) {
            all[(size_t)r * RANK_LINE + RANK_LINE - 1] = '\0';
            printf("%s\n", all + (size_t)r * RANK_LINE);
        }
        fflush(stdout);
    }
    free(all);
    rc |= lincoll_finalize(ctx) != LINCOLL_OK;
    return rc;
}

static void usage(const char *prog)
{
    printf("usage: %s [-a] [-c] [-t] [-h] | --calibrate [-o FILE]\n"
           "  (none)  version, build options, transports, kernel dispatch\n"
           "  -a      the algorithms each LINCOLL_*_ALGO variable accepts\n"
           "  -c      every LINCOLL_* configuration variable with its documentation, and\n"
           "          the UCX_* variables lincoll sets\n"
           "  -t      topology: cores, NUMA nodes, NICs, GPUs, binding; under a launcher\n"
           "          also the host, binding and NIC of every rank\n"
           "  --calibrate [-o FILE]\n"
           "          measure this machine (about a minute: alpha and beta of shared memory\n"
           "          and of UCX tcp, the kernels' rates, the GEMM rate, the cost of handing\n"
           "          a shared core over) and write the machine profile every lincoll_init\n"
           "          then reads: FILE, default $XDG_CACHE_HOME/lincoll/profile (else\n"
           "          ~/.cache/lincoll/profile); LINCOLL_PROFILE=FILE points the library at\n"
           "          another\n",
           prog);
}

int main(int argc, char **argv)
{
    int opt, want_config = 0, want_topo = 0, want_algos = 0, want_cal = 0;
    const char *out = NULL;
    static const struct option lopts[] = {{"calibrate", no_argument, NULL, 'C'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    while ((opt = getopt_long(argc, argv, "actho:", lopts, NULL)) != -1) {
        switch (opt) {
        case 'C':
            want_cal = 1;
            break;
        case 'o':
            out = optarg;
            break;
        case 'a':
            want_algos = 1;
            break;
        case 'c':
            want_config = 1;
            break;
        case 't':
            want_topo = 1;
            break;
        case 'h':
            usage(argv[0]);
            return 0;
        default:
            usage(argv[0]);
            return 2;
        }
    }
    if (optind < argc || (out != NULL && !want_cal)) {
        usage(argv[0]);
        return 2;
    }
    if (want_cal) {
        char def[4096];
        if (out == NULL && lc_profile_default_path(def, sizeof(def)) != 0) {
            fprintf(stderr, "lincoll_info --calibrate: neither XDG_CACHE_HOME nor HOME is set: "
                            "give -o FILE\n");
            return 2;
        }
        return lc_calibrate(out != NULL ? out : def, stdout);
    }
    if (want_topo && !want_config && under_launcher()) {
        return print_ranks();
    }
    print_summary();
    int rc = 0;
    if (want_config) {
        rc |= print_config();
    }
    if (want_algos) {
        char buf[8192];
        if (lincoll_info_algorithms(buf, sizeof(buf)) == LINCOLL_OK) {
            fputs(buf, stdout);
        } else {
            rc = 1;
        }
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
