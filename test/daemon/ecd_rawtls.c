/*
 * test/daemon/ecd_rawtls.c: the daemon tests' raw client over the same
 * connections as lincoll-ec (TLS 1.3 with a key, or --insecure), for
 * requests no client sends: peer requests, and a forged STORE.
 *
 *   ecd_rawtls KEYS --to HOST:PORT                 stdin as the request, raw
 *   ecd_rawtls KEYS --to HOST:PORT forge MANIFEST ROW [FROM NODE RID]
 *   ecd_rawtls KEYS --to HOST:PORT kept COMMAND
 *
 * KEYS: --keyring FILE [--key-id ID] or --insecure.  forge: a STORE of a
 * zeroed chunk for ROW with MANIFEST (an object's manifest file) rewritten
 * so that its crcs match (the outsider's attack of issue #34), in the old
 * form or with a made-up FROM.  Prints every byte the daemon answers; a
 * connection refused in the handshake prints "CONNECT FAILED: why" and
 * exits 1.  A plaintext connection's sending side is closed once the
 * request is sent (the daemon then closes at once after a refusal).
 * kept: a kept connection ("KEEP", docs/daemon.md): PING, its answer
 * printed; then COMMAND runs (sh -c); then PING once more on the same
 * connection: its answer, or "CLOSED" when the daemon closed it instead.
 */
#include <sys/socket.h>
#include "daemon/ecd.h"
#include "kernels/crc/crc32c.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *slurp(FILE *f, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    for (size_t got; b != NULL && (got = fread(b + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) b = realloc(b, cap *= 2);
    }
    *len = n;
    return b;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    const char *keyring = NULL, *key_id = NULL, *server = NULL;
    int insecure = 0, a = 1;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (!strcmp(argv[a], "--keyring") && a + 1 < argc)
            keyring = argv[++a];
        else if (!strcmp(argv[a], "--key-id") && a + 1 < argc)
            key_id = argv[++a];
        else if (!strcmp(argv[a], "--to") && a + 1 < argc)
            server = argv[++a];
        else if (!strcmp(argv[a], "--insecure"))
            insecure = 1;
        else
            break;
    }
    if (server == NULL) {
        fprintf(stderr, "usage: ecd_rawtls (--keyring F [--key-id ID] | --insecure) --to HOST:PORT "
                        "[forge MANIFEST ROW [FROM NODE RID]]\n");
        return 2;
    }
    char why[600];
    if (ecd_tls_setup(insecure ? ECD_SEC_INSECURE : ECD_SEC_TLS, keyring, key_id, 0, why,
                      sizeof(why)) != 0) {
        printf("SETUP FAILED: %s\n", why);
        return 1;
    }
    size_t len = 0;
    char *req = NULL;
    if (a < argc && !strcmp(argv[a], "kept") && argc - a == 2) {
        ecd_conn_t *c = ecd_connect(server, 10, 30, why, sizeof(why));
        if (c == NULL) {
            printf("CONNECT FAILED: %s\n", why);
            return 1;
        }
        char line[ECD_LINE_MAX];
        for (int i = 0; i < 2; i++) {
            if (i == 1) {
                fflush(stdout);
                if (system(argv[a + 1]) != 0) printf("COMMAND FAILED\n");
            }
            int ok = ecd_printf(c, i == 0 ? "KEEP\nPING\n" : "PING\n") == 0 &&
                     ecd_read_line(c, line, sizeof(line)) >= 0;
            printf("%s\n", ok ? line : "CLOSED");
        }
        ecd_conn_close(c);
        return 0;
    }
    if (a < argc && !strcmp(argv[a], "forge") && (argc - a == 3 || argc - a == 6)) {
        FILE *f = fopen(argv[a + 1], "r");
        size_t tlen;
        char *text = f != NULL ? slurp(f, &tlen) : NULL, err[200], mtext[ECD_MANIFEST_MAX];
        if (f != NULL) fclose(f);
        ecd_manifest_t m;
        if (text == NULL || ecd_manifest_parse(text, tlen, &m, err, sizeof(err)) != 0) {
            printf("cannot read manifest %s\n", argv[a + 1]);
            free(text);
            return 1;
        }
        int row = atoi(argv[a + 2]);
        uint8_t *zero = calloc(1, m.chunk);
        m.crc[row] = lc_crc32c(0, zero, m.chunk); /* the checksum the forger chose */
        int mlen = ecd_manifest_format(&m, mtext, sizeof(mtext));
        char line[ECD_LINE_MAX];
        int ll = argc - a == 6 ? snprintf(line, sizeof(line), "STORE %s %d %llu %d %s %s %s\n",
                                          m.name, row, (unsigned long long)m.chunk, mlen,
                                          argv[a + 3], argv[a + 4], argv[a + 5])
                               : snprintf(line, sizeof(line), "STORE %s %d %llu %d\n", m.name, row,
                                          (unsigned long long)m.chunk, mlen);
        len = (size_t)ll + m.chunk + (size_t)mlen;
        req = malloc(len);
        memcpy(req, line, (size_t)ll);
        memcpy(req + ll, zero, m.chunk);
        memcpy(req + ll + m.chunk, mtext, (size_t)mlen);
        free(zero);
        free(text);
    } else if (a == argc) {
        req = slurp(stdin, &len);
    } else {
        fprintf(stderr, "ecd_rawtls: unknown arguments\n");
        return 2;
    }
    ecd_conn_t *c = ecd_connect(server, 10, 30, why, sizeof(why));
    if (c == NULL) {
        printf("CONNECT FAILED: %s\n", why);
        free(req);
        return 1;
    }
    /* a daemon may answer (and close) before it read everything */
    int sent = ecd_write(c, req, len) == 0;
    free(req);
    if (c->tls == NULL) shutdown(c->fd, SHUT_WR);
    char buf[4096];
    for (;;) {
        size_t n = c->len - c->pos;
        if (n == 0) {
            if (ecd_read(c, buf, 1) != 0) break;
            fwrite(buf, 1, 1, stdout);
            continue;
        }
        fwrite(c->buf + c->pos, 1, n, stdout);
        c->pos = c->len;
    }
    if (!sent) printf("(the daemon closed before the whole request was sent)\n");
    ecd_conn_close(c);
    return 0;
}
