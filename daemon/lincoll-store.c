/*
 * daemon/lincoll-store.c: a standalone TCP rendezvous store for groups of
 * long-running processes (lincoll_init with LINCOLL_BOOTSTRAP_STORE).
 *
 *   lincoll-store [--listen HOST:PORT] [--port-file FILE] [--size N]
 *                 [--idle-timeout S]
 *
 * The secret comes from LINCOLL_JOB_SECRET-like input on stdin (first line)
 * or the environment variable LINCOLL_STORE_SECRET, never from the command
 * line (other users see command lines).  Without --size it serves any
 * number of named jobs (each group picks a new job name, e.g. per epoch);
 * with --size N one job of N ranks, as lincoll-run.  Serves until SIGINT or
 * SIGTERM.  The port is printed ("lincoll-store: listening on HOST:PORT")
 * and written to --port-file.
 */
#include <lincoll/lincoll.h>

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_signal(int s)
{
    (void)s;
    stop = 1;
}

int main(int argc, char **argv)
{
    const char *listen_at = "0.0.0.0:0", *port_file = NULL;
    int size = 0;
    double idle = 0;
    static const struct option opts[] = {
        {"listen", required_argument, 0, 'l'}, {"port-file", required_argument, 0, 'p'},
        {"size", required_argument, 0, 'n'},   {"idle-timeout", required_argument, 0, 't'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    int o;
    while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (o) {
        case 'l':
            listen_at = optarg;
            break;
        case 'p':
            port_file = optarg;
            break;
        case 'n':
            size = atoi(optarg);
            break;
        case 't':
            idle = atof(optarg);
            break;
        case 'h':
            printf("usage: lincoll-store [--listen HOST:PORT] [--port-file FILE] [--size N] "
                   "[--idle-timeout S]\n(secret: LINCOLL_STORE_SECRET or the first line of "
                   "stdin)\n");
            return 0;
        default:
            return 2;
        }
    }
    char host[256], secret[256] = "";
    const char *colon = strrchr(listen_at, ':');
    if (colon == NULL || (size_t)(colon - listen_at) >= sizeof(host) || size < 0 || idle < 0) {
        fprintf(stderr, "lincoll-store: --listen HOST:PORT, --size >= 0, --idle-timeout >= 0\n");
        return 2;
    }
    memcpy(host, listen_at, (size_t)(colon - listen_at));
    host[colon - listen_at] = '\0';
    /* LINCOLL_STORE_SECRET, as the library's configuration table reads it */
    lincoll_config_var_t var;
    const char *env =
        lincoll_config_var(LINCOLL_CONFIG_STORE_SECRET, &var) == LINCOLL_OK ? var.current : NULL;
    if (env != NULL) {
        snprintf(secret, sizeof(secret), "%s", env);
    } else if (fgets(secret, sizeof(secret), stdin) != NULL) {
        secret[strcspn(secret, "\r\n")] = '\0';
    }
    if (secret[0] == '\0') {
        fprintf(stderr,
                "lincoll-store: no secret (set LINCOLL_STORE_SECRET or give it on stdin)\n");
        return 2;
    }
    lincoll_store_params_t p = {.host = host,
                                .port = atoi(colon + 1),
                                .secret = secret,
                                .size = size,
                                .idle_timeout = idle};
    lincoll_store_t *store;
    lincoll_status_t st = lincoll_store_start(&p, &store);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "lincoll-store: cannot serve on %s: %s\n", listen_at, lincoll_strerror(st));
        return 1;
    }
    int port = lincoll_store_port(store);
    if (port_file != NULL) {
        char tmp[4096];
        snprintf(tmp, sizeof(tmp), "%s.tmp", port_file);
        FILE *f = fopen(tmp, "w");
        if (f == NULL || fprintf(f, "%d\n", port) < 0 || fclose(f) != 0 ||
            rename(tmp, port_file) != 0) {
            fprintf(stderr, "lincoll-store: cannot write %s\n", port_file);
            lincoll_store_stop(store);
            return 1;
        }
    }
    printf("lincoll-store: listening on %s:%d (%s)\n", host, port, size ? "one job" : "named jobs");
    fflush(stdout);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    while (!stop)
        pause();
    lincoll_store_stop(store);
    return 0;
}
