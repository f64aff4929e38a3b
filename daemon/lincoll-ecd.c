/*
 * daemon/lincoll-ecd.c: the erasure-coding storage daemon, one per storage
 * node.
 *
 *   lincoll-ecd --node ID --dir DIR --cluster FILE (--keyring FILE | --insecure)
 *               [--listen HOST:PORT] [--port-file FILE] [--timeout S] [--max-object BYTES]
 *               [--stripe BYTES] [--max-conns N] [--max-inflight BYTES]
 *               [--client-rate BYTES/S] [--direct-max BYTES] [--scrub-interval S]
 *               [--scrub-rate BYTES/S]
 *               [--die-with-parent]
 *               [--test-alter-transfer N] [--test-no-verify]   (tests only)
 *
 * Objects are striped RS(k, m) over the k + m nodes of the cluster file
 * (docs/daemon.md): every object is split into k data chunks, and m parity
 * chunks are computed by lincoll's encode collective among the stripe's
 * daemons; a lost node's chunks are rebuilt by lincoll's repair collective.
 * Each such operation forms its own lincoll group, a new context built on
 * the daemons' own TCP connections (LINCOLL_BOOTSTRAP_OOB, the coordinator
 * is the hub), over whichever nodes are up at that moment: a replacement
 * joins the next operation without any survivor restarting.
 *
 * One TCP port serves the client (lincoll-ec) and the other daemons, one
 * request per connection, text lines (docs/daemon.md lists them), each
 * connection in TLS 1.3 with a pre-shared key of --keyring (the cluster
 * key between daemons, client keys with capabilities; ecd_tls.c), or
 * plaintext with --insecure.  Port 0
 * lets the kernel pick one; the port is printed and written to
 * --port-file.  Every wait on a peer is bounded (--timeout, default 10 s,
 * also the lincoll context's timeout).
 */
#include "daemon/ecd_daemon.h"
#include "daemon/ecd_epoch.h"
#include "daemon/ecd_verify.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

ecd_cfg_t cfg = {.node = -1,
                 .timeout = 10,
                 .max_object = 1ull << 30,
                 .max_conns = 512,
                 .max_inflight = 1ull << 30,
                 .client_rate = 1 << 20,
                 .direct_max = 65536,
                 .scrub_interval = 30,
                 .scrub_rate = 16 << 20};
ecd_disk_t disk;
lincoll_field_t *gf;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lincoll-ecd --node ID --dir DIR --cluster FILE (--keyring FILE | --insecure)\n"
            "                   [--listen HOST:PORT] [--port-file FILE] [--timeout S] "
            "[--max-object BYTES]\n"
            "                   [--stripe BYTES] [--max-conns N] [--max-inflight BYTES]\n"
            "                   [--client-rate BYTES/S] [--direct-max BYTES]\n"
            "                   [--scrub-interval S]\n"
            "                   [--scrub-rate BYTES/S] [--die-with-parent]\n"
            "One erasure-coding storage daemon (docs/daemon.md).  --listen defaults to\n"
            "0.0.0.0:0 (a free port, printed and written to --port-file).  --keyring: the\n"
            "keys (mode 0600, lincoll-ec-auth) of TLS 1.3 on every connection; --insecure:\n"
            "plaintext, for a trusted private network only.\n"
            "Test hooks, never for production: --test-alter-transfer N alters the N-th\n"
            "piece this daemon receives from a collective (keeping its CRC32C);\n"
            "--test-no-verify stops checking what crosses UCX.\n");
}

int main(int argc, char **argv)
{
    const char *listen_at = "0.0.0.0:0", *port_file = NULL, *keyring = NULL;
    int insecure = 0;
    static const struct option opts[] = {{"node", required_argument, 0, 'n'},
                                         {"dir", required_argument, 0, 'd'},
                                         {"cluster", required_argument, 0, 'c'},
                                         {"listen", required_argument, 0, 'l'},
                                         {"port-file", required_argument, 0, 'p'},
                                         {"timeout", required_argument, 0, 't'},
                                         {"max-object", required_argument, 0, 'm'},
                                         {"stripe", required_argument, 0, 's'},
                                         {"max-conns", required_argument, 0, 'C'},
                                         {"max-inflight", required_argument, 0, 'I'},
                                         {"client-rate", required_argument, 0, 'R'},
                                         {"direct-max", required_argument, 0, 'X'},
                                         {"scrub-interval", required_argument, 0, 'S'},
                                         {"scrub-rate", required_argument, 0, 'B'},
                                         {"die-with-parent", no_argument, 0, 'D'},
                                         {"keyring", required_argument, 0, 'K'},
                                         {"insecure", no_argument, 0, 'U'},
                                         {"test-alter-transfer", required_argument, 0, 1000},
                                         {"test-no-verify", no_argument, 0, 1001},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int o;
    while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (o) {
        case 'n':
            cfg.node = atoi(optarg);
            break;
        case 'd':
            cfg.dir = optarg;
            break;
        case 'c':
            cfg.cluster = optarg;
            break;
        case 'l':
            listen_at = optarg;
            break;
        case 'p':
            port_file = optarg;
            break;
        case 't':
            cfg.timeout = atof(optarg);
            break;
        case 'm':
            cfg.max_object = strtoull(optarg, NULL, 10);
            break;
        case 's': {
            char *end;
            cfg.stripe = strtoull(optarg, &end, 10);
            if (*end != '\0' || optarg[0] == '-' || cfg.stripe > (1ull << 30)) {
                fprintf(stderr, "lincoll-ecd: --stripe %s: expected bytes, 0 (%u) to 2^30\n",
                        optarg, ECD_STRIPE_AUTO);
                return 2;
            }
            break;
        }
        case 'C':
            cfg.max_conns = atoi(optarg);
            break;
        case 'I':
            cfg.max_inflight = strtoull(optarg, NULL, 10);
            break;
        case 'R':
            cfg.client_rate = atof(optarg);
            break;
        case 'X':
            cfg.direct_max = strtoull(optarg, NULL, 10);
            break;
        case 'S':
            cfg.scrub_interval = atof(optarg);
            break;
        case 'B':
            cfg.scrub_rate = atof(optarg);
            break;
        case 'K':
            keyring = optarg;
            break;
        case 'U':
            insecure = 1;
            break;
        case 'D':
            prctl(PR_SET_PDEATHSIG, SIGTERM); /* tests: never outlive the harness */
            break;
        case 1000: {
            char *end;
            ecd_verify_alter_at = strtol(optarg, &end, 10);
            if (*end != '\0' || ecd_verify_alter_at < 1) {
                fprintf(stderr, "lincoll-ecd: --test-alter-transfer %s: expected N >= 1\n", optarg);
                return 2;
            }
            break;
        }
        case 1001:
            ecd_verify_off = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (cfg.node < 0 || cfg.node >= ECD_MAX_NODES || cfg.dir == NULL || cfg.cluster == NULL ||
        !(cfg.timeout > 0) || cfg.max_object < 1 || cfg.max_conns < 1 || cfg.max_inflight < 1 ||
        !(cfg.client_rate > 0) || !(cfg.scrub_interval >= 0) || !(cfg.scrub_rate > 0)) {
        fprintf(stderr,
                "lincoll-ecd: --node (0..%d), --dir and --cluster are required; --timeout, "
                "--max-object, --max-conns, --max-inflight, --client-rate and --scrub-rate "
                "must be positive, --scrub-interval at least 0\n",
                ECD_MAX_NODES - 1);
        usage(stderr);
        return 2;
    }
    ecd_self = cfg.node;
    signal(SIGPIPE, SIG_IGN);
    char err[512];
    if (insecure && keyring != NULL) {
        fprintf(stderr, "lincoll-ecd: --keyring and --insecure exclude each other\n");
        return 2;
    }
    if (ecd_tls_setup(insecure ? ECD_SEC_INSECURE : ECD_SEC_TLS, keyring, NULL, 1, err,
                      sizeof(err)) != 0) {
        ecd_log("%s", err);
        return 2;
    }
    if (insecure)
        ecd_log("WARNING: --insecure: plaintext connections, no keys: anyone who reaches this "
                "port may read, write, repair and rewrite objects; a trusted private network "
                "only");
    if (ecd_verify_off || ecd_verify_alter_at > 0)
        ecd_log("TEST HOOKS ON (never in production):%s%s",
                ecd_verify_off ? " --test-no-verify" : "",
                ecd_verify_alter_at > 0 ? " --test-alter-transfer" : "");
    char host[96];
    int port;
    if (ecd_parse_hostport(listen_at, host, sizeof(host), &port) != 0) {
        fprintf(stderr, "lincoll-ecd: --listen %s: expected HOST:PORT\n", listen_at);
        return 2;
    }
    if (ecd_disk_open(&disk, cfg.dir, cfg.node) != 0 || scrub_start() != 0 ||
        ecd_service_watch_start() != 0)
        return 1;
    if (lincoll_gf_field_create(256, &gf) != LINCOLL_OK) return 1;
    int lfd = ecd_listen(host, port, &port);
    if (lfd < 0) {
        ecd_log("cannot listen on %s: %s", listen_at, strerror(errno));
        return 1;
    }
    if (port_file != NULL) {
        char tmp[600];
        snprintf(tmp, sizeof(tmp), "%s.tmp", port_file);
        FILE *f = fopen(tmp, "w");
        if (f == NULL || fprintf(f, "%d\n", port) < 0 || fclose(f) != 0 ||
            rename(tmp, port_file) != 0) {
            ecd_log("cannot write the port to %s: %s", port_file, strerror(errno));
            return 1;
        }
    }
    printf("lincoll-ecd: node %d listening on %s:%d, dir %s\n", cfg.node, host, port, cfg.dir);
    fflush(stdout);
    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno != EINTR) usleep(10000);
            continue;
        }
        ecd_conn_t *c = ecd_conn_wrap(fd, cfg.timeout);
        int admit = c != NULL ? ecd_conn_admit(c) : -1;
        if (c != NULL && admit < 0) {
            ecd_conn_close(c);
        } else if (admit == 0 && ecd_thread_start(conn_main, c) != 0) {
            ecd_conn_done(c);
        }
    }
}
