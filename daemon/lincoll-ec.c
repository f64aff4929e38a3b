/*
 * daemon/lincoll-ec.c: the client of lincoll-ecd.
 *
 *   lincoll-ec -s HOST:PORT KEYS [-t SECONDS] put FILE [NAME]
 *   lincoll-ec -s HOST:PORT KEYS [-t SECONDS] get NAME OUT
 *   lincoll-ec -s HOST:PORT KEYS [-t SECONDS] stat
 *   lincoll-ec -s HOST:PORT KEYS [-t SECONDS] repair NODE
 *   lincoll-ec -s HOST:PORT KEYS [-t SECONDS] batch
 *   KEYS: --keyring FILE [--key-id ID]   or   --insecure
 *   -c CLUSTER may stand for -s HOST:PORT everywhere.
 *
 * The connection is TLS 1.3 with the newest generation of key ID from the
 * keyring (lincoll-ec-auth export; --key-id may be left out when the
 * keyring holds one ID), or plaintext with --insecure (a daemon started
 * --insecure).  A refusal is one line: no key, unknown client, wrong key,
 * or not allowed (the capability the key lacks).
 *
 * Any daemon of the cluster serves any request (it coordinates the others).
 * -c CLUSTER (the daemons' cluster file) instead of -s sends each put and
 * get to its object's owner (placement, docs/daemon.md), so that no daemon
 * relays it; when the owner does not answer, to the next node of the
 * object's placement, and so on (stat and repair: node 0, 1, ...).
 * put streams FILE (NAME defaults to its base name), hashing it on the way,
 * and checks the sha256 the daemon reports; get writes OUT only once the
 * whole object arrived and its sha256 matches (OUT.part meanwhile).  Exit 0 on success; 1 with the
 * daemon's or the local error on stderr; 2 for bad usage.  -t: seconds
 * without progress before giving up (default 300).
 *
 * batch: the requests are lines of stdin ("put FILE [NAME]", "get NAME
 * OUT", "stat"), run one after the other on one connection ("KEEP": one
 * handshake for all of them; a connection the daemon closed meanwhile is
 * opened again; with -c, one connection per node asked).  After each, a line "done CMD ARG rc=RC
 * ms=MS" (its time from the request to the checked answer).  Exit 0 when every request succeeded.
 */
#include "daemon/ecd.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: lincoll-ec -s HOST:PORT KEYS [-t SECONDS] put FILE [NAME]\n"
               "       lincoll-ec -s HOST:PORT KEYS [-t SECONDS] get NAME OUT\n"
               "       lincoll-ec -s HOST:PORT KEYS [-t SECONDS] stat\n"
               "       lincoll-ec -s HOST:PORT KEYS [-t SECONDS] repair NODE\n"
               "       lincoll-ec -s HOST:PORT KEYS [-t SECONDS] batch   (requests on stdin)\n"
               "KEYS: --keyring FILE [--key-id ID] (TLS 1.3; lincoll-ec-auth export), or\n"
               "      --insecure (plaintext, a daemon started --insecure)\n"
               "-c CLUSTER (the daemons' cluster file) instead of -s: each put and get goes\n"
               "      to its object's owner, or the next node of its placement that answers\n");
}

static int fail(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "lincoll-ec: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n");
    return 1;
}

static int reply_line(ecd_conn_t *c, char *line, size_t cap)
{
    if (ecd_read_line(c, line, cap) < 0) {
        fprintf(stderr, "lincoll-ec: no reply from the daemon: %s\n", strerror(errno));
        return -1;
    }
    if (strncmp(line, "OK", 2) != 0) {
        fprintf(stderr, "lincoll-ec: %s\n", strncmp(line, "ERR ", 4) == 0 ? line + 4 : line);
        return -1;
    }
    return 0;
}

static int do_put(ecd_conn_t *c, const char *file, const char *name)
{
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0) close(fd);
        return fail("put: cannot read %s: %s", file, fd < 0 ? strerror(errno) : "not a file");
    }
    /* the file streams: read, hashed and sent 1 MiB at a time */
    size_t size = (size_t)st.st_size, left = size, bsz = 1 << 20;
    uint8_t *buf = malloc(bsz), sha[32];
    char hex[65], line[ECD_LINE_MAX];
    if (buf == NULL) {
        close(fd);
        return fail("put: out of memory for the buffer reading %s%s", file, "");
    }
    ecd_sha256_t s;
    ecd_sha256_init(&s);
    int rc = 1, sent = ecd_printf(c, "PUT %s %zu\n", name, size) == 0, short_read = 0;
    while (sent && left > 0) {
        ssize_t n = read(fd, buf, left < bsz ? left : bsz);
        if (n <= 0) {
            short_read = 1; /* the file shrank: the daemon sees a truncated upload */
            break;
        }
        ecd_sha256_update(&s, buf, (size_t)n);
        if (ecd_write(c, buf, (size_t)n) != 0) sent = 0;
        left -= (size_t)n;
    }
    close(fd);
    free(buf);
    ecd_sha256_final(&s, sha);
    ecd_hex(sha, 32, hex);
    if (short_read) {
        ecd_conn_shutdown(c);
        return fail("put: reading %s failed before its end%s", file, "");
    }
    if (!sent) {
        /* the daemon may have refused early: show its reason if it sent one */
        if (reply_line(c, line, sizeof(line)) == 0) fprintf(stderr, "lincoll-ec: %s\n", line);
    } else if (reply_line(c, line, sizeof(line)) == 0) {
        char *w[6];
        int n = ecd_split(line, w, 6);
        if (n >= 4 && strcmp(w[3], hex) == 0) {
            printf("put %s: %zu bytes, sha256 %s, on %s nodes\n", name, size, hex,
                   n >= 5 ? w[4] : "?");
            rc = 0;
        } else {
            fprintf(stderr, "lincoll-ec: put %s: the daemon stored sha256 %s, the file has %s\n",
                    name, n >= 4 ? w[3] : "?", hex);
        }
    }
    return rc;
}

static int do_get(ecd_conn_t *c, const char *name, const char *out)
{
    char line[ECD_LINE_MAX], *w[4], part[4096];
    if (ecd_printf(c, "GET %s\n", name) != 0 || reply_line(c, line, sizeof(line)) != 0) return 1;
    uint8_t want[32];
    if (ecd_split(line, w, 4) != 3 || ecd_unhex(w[2], want, 32) != 0)
        return fail("get %s: malformed reply '%s'", name, line);
    unsigned long long size = strtoull(w[1], NULL, 10);
    snprintf(part, sizeof(part), "%s.part", out);
    int fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return fail("get: cannot write %s: %s", part, strerror(errno));
    ecd_sha256_t s;
    ecd_sha256_init(&s);
    uint8_t *buf = malloc(1 << 20);
    unsigned long long left = size;
    int ok = buf != NULL;
    while (ok && left > 0) {
        size_t n = left < (1u << 20) ? (size_t)left : (1u << 20);
        if (ecd_read(c, buf, n) != 0 || write(fd, buf, n) != (ssize_t)n) ok = 0;
        ecd_sha256_update(&s, buf, n);
        left -= n;
    }
    free(buf);
    uint8_t sha[32];
    ecd_sha256_final(&s, sha);
    if (fsync(fd) != 0) ok = 0;
    close(fd);
    if (!ok || memcmp(sha, want, 32) != 0) {
        unlink(part);
        return fail("get %s: %s", name,
                    ok ? "the data does not match its sha256" : "transfer failed");
    }
    if (rename(part, out) != 0) return fail("get: cannot rename to %s: %s", out, strerror(errno));
    printf("get %s: %llu bytes, sha256 %s\n", name, size, w[2]);
    return 0;
}

/* A request's words: 0 when whole (a put's object name in name), else
 * the exit status (2: usage, 1: a bad name). */
static int check_request(int argc, char **argv, char *name)
{
    const char *cmd = argv[0];
    if (!strcmp(cmd, "put") && (argc == 2 || argc == 3)) {
        const char *base = strrchr(argv[1], '/');
        snprintf(name, ECD_NAME_MAX + 1, "%s", argc == 3 ? argv[2] : base ? base + 1 : argv[1]);
        if (!ecd_name_ok(name))
            return fail("put: '%s' is not an object name (1-128 of A-Z a-z 0-9 . _ -, not "
                        "starting with '.')%s",
                        name, "");
    } else if (!((!strcmp(cmd, "get") && argc == 3) || (!strcmp(cmd, "stat") && argc == 1) ||
                 (!strcmp(cmd, "repair") && argc == 2))) {
        usage(stderr);
        return 2;
    }
    return 0;
}

/* One request on c; 0 on success. */
static int run_request(ecd_conn_t *c, int argc, char **argv, const char *name)
{
    const char *cmd = argv[0];
    char line[ECD_LINE_MAX];
    int rc = 1;
    (void)argc;
    if (!strcmp(cmd, "put")) {
        rc = do_put(c, argv[1], name);
    } else if (!strcmp(cmd, "get")) {
        rc = do_get(c, argv[1], argv[2]);
    } else if (!strcmp(cmd, "stat")) {
        if (ecd_printf(c, "STAT\n") == 0 && reply_line(c, line, sizeof(line)) == 0) {
            int n = atoi(line + 3);
            rc = 0;
            for (int i = 0; i < n; i++) {
                if (ecd_read_line(c, line, sizeof(line)) < 0) {
                    rc = 1;
                    break;
                }
                printf("%s\n", line);
            }
        }
    } else {
        if (ecd_printf(c, "REPAIR %s\n", argv[1]) == 0 && reply_line(c, line, sizeof(line)) == 0) {
            printf("%s\n", line + 3);
            rc = 0;
        }
    }
    return rc;
}

/* Where requests go: one daemon (-s), or the cluster (-c), each request to
 * the first node of its order that answers.  In a batch, the connections
 * stay open (KEEP), one per node. */
typedef struct route {
    const char *server; /* -s, or NULL */
    ecd_cluster_t cl;   /* -c */
    double idle;        /* -t */
    int keep;           /* batch */
    ecd_conn_t *conn[ECD_MAX_NODES];
} route_t;

/* The nodes to ask for a request, in order: a put's or get's object's
 * placement, else every node. */
static int route_order(const route_t *rt, int argc, char **argv, const char *name, int *order)
{
    const char *obj = !strcmp(argv[0], "put") ? name : !strcmp(argv[0], "get") ? argv[1] : NULL;
    if (obj != NULL && argc > 1) {
        placement(obj, rt->cl.n, rt->cl.k + rt->cl.m, order);
        return rt->cl.k + rt->cl.m;
    }
    for (int i = 0; i < rt->cl.n; i++)
        order[i] = i;
    return rt->cl.n;
}

/* A connection for the request (kept one or new, "KEEP" sent on a new one
 * in a batch), its slot in *slot; NULL with why when no node answers. */
static ecd_conn_t *route_conn(route_t *rt, int argc, char **argv, const char *name, int *slot,
                              char *why, size_t wsize)
{
    int order[ECD_MAX_NODES], n = 1;
    if (rt->server == NULL)
        n = route_order(rt, argc, argv, name, order);
    else
        order[0] = 0;
    why[0] = '\0';
    for (int i = 0; i < n; i++) {
        int s = order[i];
        ecd_conn_t *c = rt->conn[s];
        /* a kept connection the daemon closed (idle, or its key left the
         * keyring) is opened again before the request goes out */
        if (c != NULL && ecd_conn_state(c) != 0) {
            ecd_conn_close(c);
            c = rt->conn[s] = NULL;
        }
        if (c == NULL) {
            char w[512];
            const char *addr = rt->server != NULL ? rt->server : rt->cl.addr[s];
            c = ecd_connect(addr, 10, rt->idle, w, sizeof(w));
            if (c != NULL && rt->keep && ecd_write(c, "KEEP\n", 5) != 0) {
                snprintf(w, sizeof(w), "%s: %s", addr, strerror(errno));
                ecd_conn_close(c);
                c = NULL;
            }
            if (c == NULL) {
                size_t l = strlen(why);
                snprintf(why + l, wsize - l, "%s%s", l ? "; " : "", w);
                continue;
            }
        }
        *slot = s;
        if (rt->keep) rt->conn[s] = c;
        return c;
    }
    return NULL;
}

/* batch: stdin's requests on kept connections. */
static int run_batch(route_t *rt)
{
    char in[4096], why[4096], name[ECD_NAME_MAX + 1];
    int failed = 0;
    while (fgets(in, sizeof(in), stdin) != NULL) {
        char *w[4];
        in[strcspn(in, "\r\n")] = '\0';
        int n = ecd_split(in, w, 4);
        if (n == 0 || w[0][0] == '#') continue;
        if (!strcmp(w[0], "repair") || check_request(n, w, name) != 0) {
            fprintf(stderr,
                    "lincoll-ec: batch: '%s' is not put FILE [NAME], get NAME OUT or stat\n", w[0]);
            failed = 1;
            continue;
        }
        double t0 = ecd_now();
        int slot = 0;
        ecd_conn_t *c = route_conn(rt, n, w, name, &slot, why, sizeof(why));
        if (c == NULL) {
            fprintf(stderr, "lincoll-ec: %s\n", why);
            failed = 1;
            break;
        }
        int rc = run_request(c, n, w, name);
        printf("done %s %s rc=%d ms=%.3f\n", w[0], n > 1 ? w[1] : "-", rc, (ecd_now() - t0) * 1e3);
        fflush(stdout);
        failed |= rc != 0;
        if (rc != 0) { /* the daemon closes after a failed request */
            ecd_conn_close(c);
            rt->conn[slot] = NULL;
        }
    }
    for (int i = 0; i < ECD_MAX_NODES; i++)
        ecd_conn_close(rt->conn[i]);
    return failed;
}

int main(int argc, char **argv)
{
    const char *server = NULL, *cluster = NULL, *keyring = NULL, *key_id = NULL;
    double idle = 300;
    int o, insecure = 0;
    static const struct option opts[] = {{"keyring", required_argument, 0, 'K'},
                                         {"key-id", required_argument, 0, 'I'},
                                         {"insecure", no_argument, 0, 'U'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    while ((o = getopt_long(argc, argv, "+s:c:t:h", opts, NULL)) != -1) {
        if (o == 's')
            server = optarg;
        else if (o == 'c')
            cluster = optarg;
        else if (o == 't')
            idle = atof(optarg);
        else if (o == 'K')
            keyring = optarg;
        else if (o == 'I')
            key_id = optarg;
        else if (o == 'U')
            insecure = 1;
        else if (o == 'h') {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    argc -= optind;
    argv += optind;
    if ((server == NULL) == (cluster == NULL) || argc < 1 || !(idle > 0)) {
        if (server != NULL && cluster != NULL)
            fprintf(stderr, "lincoll-ec: -s and -c exclude each other\n");
        usage(stderr);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    int batch = !strcmp(argv[0], "batch") && argc == 1;
    char name[ECD_NAME_MAX + 1] = "";
    if (!batch) {
        int u = check_request(argc, argv, name);
        if (u != 0) return u;
    }
    char why[512];
    if (insecure && (keyring != NULL || key_id != NULL)) {
        fprintf(stderr, "lincoll-ec: --insecure excludes --keyring and --key-id\n");
        return 2;
    }
    if (ecd_tls_setup(insecure ? ECD_SEC_INSECURE : ECD_SEC_TLS, keyring, key_id, 0, why,
                      sizeof(why)) != 0)
        return fail("%s%s", why, "");
    static route_t rt; /* its cluster map is large */
    rt.server = server;
    rt.idle = idle;
    rt.keep = batch;
    char err[512];
    if (cluster != NULL && ecd_cluster_load(cluster, &rt.cl, err, sizeof(err)) != 0)
        return fail("-c %s: %s", cluster, err);
    if (batch) return run_batch(&rt);
    int slot;
    char whys[4096];
    ecd_conn_t *c = route_conn(&rt, argc, argv, name, &slot, whys, sizeof(whys));
    if (c == NULL) return fail("%s%s", whys, "");
    int rc = run_request(c, argc, argv, name);
    ecd_conn_close(c);
    return rc;
}
