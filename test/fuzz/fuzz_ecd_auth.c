/*
 * test/fuzz/fuzz_ecd_auth.c: what lincoll-ecd reads before it trusts a
 * peer (daemon/ecd_tls.c, daemon/ecd_keyring.c).  Input: one byte choosing
 * the parser, then its bytes:
 *   0  a keyring file's text (ecd_keyring_parse);
 *   1  a TLS handshake from the network: the bytes arrive on a socket and
 *      the daemon's side runs (ecd_tls_accept: the first-byte test, the
 *      ClientHello, the PSK identity looked up in a keyring of this
 *      process), never accepted without a key's secret;
 *   2  an authenticated request line: the key's capabilities (the next
 *      byte), then the line, split and checked against the capability its
 *      command needs (ecd_caps_check), and a PSK identity (ID/GEN) parsed.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/ecd.h"
#include "fuzz/fuzz.h"

static void setup_once(void)
{
    static int done;
    if (done) return;
    done = 1;
    ecd_self = 0;
    /* stderr stays: ecd_log is rate-limited for refusals */
    char path[] = "/tmp/fuzz_ecd_auth.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) abort();
    fchmod(fd, 0600);
    const char *kr = "key cluster 1 cluster "
                     "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n"
                     "key app 1 write "
                     "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100\n";
    if (write(fd, kr, strlen(kr)) != (ssize_t)strlen(kr)) abort();
    close(fd);
    char err[512];
    if (ecd_tls_setup(ECD_SEC_TLS, path, NULL, 1, err, sizeof(err)) != 0) {
        fprintf(stderr, "fuzz_ecd_auth: %s\n", err);
        abort();
    }
    unlink(path); /* the keys stay loaded; a change of the file is not read */
}

static void handshake(const uint8_t *data, size_t size)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return;
    int big = 1 << 20;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
    setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
    if (size > 0 && write(sv[0], data, size) != (ssize_t)size) {
        close(sv[0]);
        close(sv[1]);
        return;
    }
    shutdown(sv[0], SHUT_WR); /* the peer sent all it will */
    ecd_conn_t *c = ecd_conn_wrap(sv[1], 0.05);
    if (c != NULL) {
        char why[256];
        if (ecd_tls_accept(c, 0.05, why, sizeof(why)) == 0) {
            /* only a key's secret gets here (or nothing at all) */
            if (c->caps == 0) abort();
        }
        ecd_conn_close(c);
    }
    close(sv[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lc_fuzz_quiet();
    if (size < 1 || size > 4096) return 0;
    setup_once();
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    if (data[0] % 3 == 0) {
        static ecd_keyring_t kr;
        char err[256];
        if (ecd_keyring_parse((const char *)p, n, &kr, err, sizeof(err)) == 0) {
            for (int i = 0; i < kr.n; i++)
                if (kr.key[i].gen < 1 || ecd_caps_name(kr.key[i].caps)[0] == '?') abort();
        } else if (memchr(err, '\0', sizeof(err)) == NULL) {
            abort();
        }
    } else if (data[0] % 3 == 1) {
        handshake(p, n);
    } else if (n >= 1) {
        int have = p[0] & ECD_CAP_ALL;
        char line[ECD_LINE_MAX], *w[10], err[256], id[ECD_KEY_ID_MAX + 1];
        size_t ll = n - 1 < sizeof(line) - 1 ? n - 1 : sizeof(line) - 1;
        memcpy(line, p + 1, ll);
        line[ll] = '\0';
        int gen = 0;
        if (ecd_key_name_parse(line, strlen(line), id, &gen) == 0 && gen < 1) abort();
        int nw = ecd_split(line, w, 10);
        static const int need[] = {ECD_CAP_READ, ECD_CAP_WRITE, ECD_CAP_ADMIN, ECD_CAP_PEER};
        for (size_t i = 0; nw > 0 && i < sizeof(need) / sizeof(need[0]); i++) {
            int rc = ecd_caps_check(w[0], need[i], have, "fuzz/1", err, sizeof(err));
            if ((rc == 0) != ((have & need[i]) == need[i])) abort();
        }
    }
    return 0;
}
