/*
 * daemon/ecd_tls.c: every TCP connection of lincoll-ecd and lincoll-ec in
 * TLS 1.3 (OpenSSL) with external pre-shared keys from a keyring
 * (ecd_keyring.c): mutual authentication, integrity, encryption and no
 * replay in one handshake, no certificates.  The PSK identity is the key's
 * name ID/GEN; the daemon finds its secret in its keyring (read again when
 * the file changes, so a rotation or a removal needs no restart) and the
 * connection gets that key's capabilities (ecd_conn_t.caps), which the
 * command table checks (daemon/ecd_proto.c).  The handshake is (EC)DHE +
 * PSK, so a key that leaks later does not open recorded traffic.
 */
#include "daemon/ecd.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static int sec_mode = ECD_SEC_INSECURE, sec_server;
static SSL_CTX *ctx;
static char kr_path[512], self_id[ECD_KEY_ID_MAX + 1];
static pthread_mutex_t kr_mu = PTHREAD_MUTEX_INITIALIZER;
static ecd_keyring_t *kr;    /* the keyring as last read */
static struct stat kr_stamp; /* of the file it was read from */

/* A TLS record carries at most 16 KiB, and OpenSSL writes and reads one
 * record per system call unless told otherwise: a 1 MiB transfer then
 * costs 64 sends and 64 recvs on each side, where plaintext costs a few.
 * The records a connection writes go through a buffer of ECD_TLS_WBUF
 * bytes (sent when full, and at the end of each ecd_write), and each recv
 * takes up to ECD_TLS_RBUF bytes of records (read-ahead). */
#define ECD_TLS_WBUF (128 * 1024)
#define ECD_TLS_RBUF (128 * 1024)

int ecd_tls_mode(void)
{
    return sec_mode;
}

const char *ecd_tls_mode_name(void)
{
    return sec_mode == ECD_SEC_TLS ? "tls1.3-psk" : "insecure";
}

/* Read the keyring again if its file changed (caller holds kr_mu). */
static void kr_refresh(void)
{
    struct stat st;
    if (stat(kr_path, &st) != 0) return;
    if (st.st_ino == kr_stamp.st_ino && st.st_size == kr_stamp.st_size &&
        st.st_mtim.tv_sec == kr_stamp.st_mtim.tv_sec &&
        st.st_mtim.tv_nsec == kr_stamp.st_mtim.tv_nsec && st.st_mode == kr_stamp.st_mode)
        return;
    ecd_keyring_t *fresh = malloc(sizeof(*fresh));
    char err[512];
    if (fresh != NULL && ecd_keyring_load(kr_path, fresh, err, sizeof(err)) == 0) {
        free(kr);
        kr = fresh;
        kr_stamp = st;
        return;
    }
    free(fresh);
    kr_stamp = st; /* log it once; the keys last read stay in force */
    ecd_log("%s; keeping the keys read before", err);
}

/* A copy of the key ID/GEN (gen 0: the generation this process presents). */
static int key_get(const char *id, int gen, ecd_key_t *out)
{
    pthread_mutex_lock(&kr_mu);
    kr_refresh();
    const ecd_key_t *k =
        gen > 0 ? ecd_keyring_find(kr, id, gen) : ecd_keyring_pick(kr, id, !sec_server);
    if (k != NULL) *out = *k;
    pthread_mutex_unlock(&kr_mu);
    return k != NULL ? 0 : -1;
}

static SSL_SESSION *psk_session(SSL *ssl, const ecd_key_t *k)
{
    static const unsigned char aes128gcm_sha256[2] = {0x13, 0x01};
    const SSL_CIPHER *cipher = SSL_CIPHER_find(ssl, aes128gcm_sha256);
    SSL_SESSION *s = cipher != NULL ? SSL_SESSION_new() : NULL;
    if (s == NULL) return NULL;
    if (!SSL_SESSION_set1_master_key(s, k->secret, sizeof(k->secret)) ||
        !SSL_SESSION_set_cipher(s, cipher) ||
        !SSL_SESSION_set_protocol_version(s, TLS1_3_VERSION)) {
        SSL_SESSION_free(s);
        return NULL;
    }
    return s;
}

int ecd_tls_key_current(ecd_conn_t *c)
{
    if (c->tls == NULL) return 1;
    char id[ECD_KEY_ID_MAX + 1];
    int gen;
    ecd_key_t k;
    return ecd_key_name_parse(c->who, strlen(c->who), id, &gen) == 0 && key_get(id, gen, &k) == 0 &&
           k.caps == c->caps;
}

/* Client: present this process's key. */
static int use_session_cb(SSL *ssl, const EVP_MD *md, const unsigned char **id, size_t *idlen,
                          SSL_SESSION **sess)
{
    ecd_conn_t *c = SSL_get_app_data(ssl);
    ecd_key_t k;
    *sess = NULL;
    if (c == NULL || key_get(self_id, 0, &k) != 0) return 1;
    SSL_SESSION *s = psk_session(ssl, &k);
    if (s == NULL) return 0;
    if (md != NULL && md != SSL_CIPHER_get_handshake_digest(SSL_SESSION_get0_cipher(s))) {
        SSL_SESSION_free(s);
        return 1;
    }
    ecd_key_name(&k, c->who, sizeof(c->who));
    *id = (const unsigned char *)c->who;
    *idlen = strlen(c->who);
    *sess = s;
    return 1;
}

/* Daemon: find the key the peer names. */
static int find_session_cb(SSL *ssl, const unsigned char *identity, size_t identity_len,
                           SSL_SESSION **sess)
{
    ecd_conn_t *c = SSL_get_app_data(ssl);
    char id[ECD_KEY_ID_MAX + 1];
    int gen;
    ecd_key_t k;
    *sess = NULL;
    if (c == NULL) return 0;
    /* what the peer claimed, for the log (printable only) */
    size_t n = identity_len < sizeof(c->who) - 1 ? identity_len : sizeof(c->who) - 1;
    for (size_t i = 0; i < n; i++)
        c->who[i] = identity[i] >= 0x20 && identity[i] < 0x7f ? (char)identity[i] : '?';
    c->who[n] = '\0';
    c->caps = 0;
    if (ecd_key_name_parse((const char *)identity, identity_len, id, &gen) != 0 ||
        key_get(id, gen, &k) != 0)
        return 1; /* unknown: no PSK, and without a certificate the handshake fails */
    *sess = psk_session(ssl, &k);
    if (*sess == NULL) return 0;
    c->caps = k.caps; /* in force only once the handshake proved the secret */
    return 1;
}

int ecd_tls_setup(int mode, const char *keyring, const char *id, int server, char *err,
                  size_t esize)
{
    sec_mode = mode;
    sec_server = server;
    if (mode == ECD_SEC_INSECURE) return 0;
    if (keyring == NULL) {
        snprintf(err, esize,
                 "no key: pass --keyring FILE (lincoll-ec-auth create / export), or --insecure "
                 "for plaintext on a trusted network");
        return -1;
    }
    snprintf(kr_path, sizeof(kr_path), "%s", keyring);
    kr = malloc(sizeof(*kr));
    if (kr == NULL || ecd_keyring_load(keyring, kr, err, esize) != 0) return -1;
    stat(keyring, &kr_stamp);
    if (server) id = "cluster";
    if (id == NULL) {
        for (int i = 1; i < kr->n; i++)
            if (strcmp(kr->key[i].id, kr->key[0].id) != 0) {
                snprintf(err, esize, "keyring %s holds several keys: choose one with --key-id ID",
                         keyring);
                return -1;
            }
        if (kr->n == 0) {
            snprintf(err, esize, "no key: keyring %s is empty", keyring);
            return -1;
        }
        id = kr->key[0].id;
    }
    if (ecd_keyring_pick(kr, id, 1) == NULL) {
        snprintf(err, esize, "no key: keyring %s has no key '%s'%s", keyring, id,
                 server ? " (a daemon needs the cluster key: lincoll-ec-auth create --id cluster)"
                        : "");
        return -1;
    }
    snprintf(self_id, sizeof(self_id), "%s", id);
    ctx = SSL_CTX_new(TLS_method());
    if (ctx == NULL || !SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) ||
        !SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION) ||
        !SSL_CTX_set_ciphersuites(ctx, "TLS_AES_128_GCM_SHA256") ||
        !SSL_CTX_set_num_tickets(ctx, 0)) {
        snprintf(err, esize, "OpenSSL: cannot set up TLS 1.3: %s",
                 ERR_reason_error_string(ERR_get_error()));
        return -1;
    }
    SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* one recv takes every record the socket holds, not a header then a
     * body (what is taken and not yet read counts in ecd_tls_pending) */
    SSL_CTX_set_read_ahead(ctx, 1);
    SSL_CTX_set_default_read_buffer_len(ctx, ECD_TLS_RBUF);
    SSL_CTX_set_psk_use_session_callback(ctx, use_session_cb);
    SSL_CTX_set_psk_find_session_callback(ctx, find_session_cb);
    return 0;
}

/* Wait until fd is ready for ev or the deadline passes (0 / -1 ETIMEDOUT). */
static int wait_fd(int fd, short ev, double deadline)
{
    for (;;) {
        double left = deadline - ecd_now();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd p = {.fd = fd, .events = ev};
        int rc = poll(&p, 1, (int)(left * 1000) + 1);
        if (rc > 0) return 0;
        if (rc < 0 && errno != EINTR) return -1;
    }
}

/* After a refusal: end the sending side and read what the peer still
 * sends (up to 1 s, 1 MiB), so that closing does not reset the connection
 * before the peer read the refusal. */
static void drain(ecd_conn_t *c, double deadline)
{
    char sink[4096];
    double until = ecd_now() + 1.0;
    if (until > deadline) until = deadline;
    shutdown(c->fd, SHUT_WR);
    for (size_t total = 0; total < (1u << 20);) {
        ssize_t n = recv(c->fd, sink, sizeof(sink), 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return;
        if (n > 0) {
            total += (size_t)n;
            continue;
        }
        if (wait_fd(c->fd, POLLIN, until) != 0) return;
    }
}

/* Drive SSL_connect / SSL_accept to its end before the deadline. */
static int handshake(ecd_conn_t *c, int server, double deadline, unsigned long *reason)
{
    SSL *ssl = c->tls;
    *reason = 0;
    for (;;) {
        ERR_clear_error();
        int r = server ? SSL_accept(ssl) : SSL_connect(ssl);
        if (r == 1) return 0;
        int e = SSL_get_error(ssl, r);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
            if (wait_fd(c->fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline) != 0)
                return -1;
            continue;
        }
        *reason = ERR_GET_REASON(ERR_peek_last_error());
        errno = EPROTO;
        return -1;
    }
}

static int tls_attach(ecd_conn_t *c, char *why, size_t wsize)
{
    SSL *ssl = SSL_new(ctx);
    /* reads straight from the socket; writes through a buffer in front of
     * it (the socket BIO is in both: two references) */
    BIO *sock = BIO_new_socket(c->fd, BIO_NOCLOSE), *buf = BIO_new(BIO_f_buffer());
    if (ssl == NULL || sock == NULL || buf == NULL ||
        BIO_set_write_buffer_size(buf, ECD_TLS_WBUF) <= 0 || !BIO_up_ref(sock)) {
        SSL_free(ssl);
        BIO_free(buf);
        BIO_free(sock);
        snprintf(why, wsize, "OpenSSL: cannot make a TLS session");
        return -1;
    }
    SSL_set_bio(ssl, sock, BIO_push(buf, sock));
    SSL_set_app_data(ssl, c);
    c->tls = ssl;
    return 0;
}

int ecd_tls_connect(ecd_conn_t *c, double timeout, char *why, size_t wsize)
{
    if (sec_mode != ECD_SEC_TLS) return 0;
    ecd_key_t k;
    if (key_get(self_id, 0, &k) != 0) {
        snprintf(why, wsize, "no key: keyring %s no longer has a key '%s'", kr_path, self_id);
        return -1;
    }
    if (tls_attach(c, why, wsize) != 0) return -1;
    unsigned long reason;
    if (handshake(c, 0, ecd_now() + timeout, &reason) == 0) return 0;
    char key[80];
    ecd_key_name(&k, key, sizeof(key));
    if (errno == ETIMEDOUT)
        snprintf(why, wsize, "%s: no TLS handshake within %g s", c->peer, timeout);
    else if (reason == SSL_R_TLSV1_ALERT_DECRYPT_ERROR ||
             reason == SSL_R_SSLV3_ALERT_ILLEGAL_PARAMETER) /* the binder did not verify */
        snprintf(why, wsize,
                 "wrong key: %s refused the secret of key %s (a mistyped or replaced key? "
                 "lincoll-ec-auth export it again)",
                 c->peer, key);
    else if (reason == SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE ||
             reason == SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED)
        snprintf(why, wsize,
                 "unknown client: %s has no key %s in its keyring (removed after a rotation? "
                 "lincoll-ec-auth list)",
                 c->peer, key);
    else
        snprintf(why, wsize,
                 "%s did not complete a TLS 1.3 handshake (%s): a daemon started with "
                 "--insecure (then pass --insecure here too), or one serving --max-conns "
                 "connections already (try again)",
                 c->peer, reason ? ERR_reason_error_string(ERR_peek_last_error()) : "closed");
    return -1;
}

int ecd_tls_accept(ecd_conn_t *c, double timeout, char *why, size_t wsize)
{
    double deadline = ecd_now() + timeout;
    unsigned char first = 0;
    ssize_t n;
    c->caps = 0;
    /* the first byte tells a TLS ClientHello (a handshake record, 0x16) from
     * a plaintext request */
    for (;;) {
        n = recv(c->fd, &first, 1, MSG_PEEK);
        if (n >= 0 || (errno != EAGAIN && errno != EINTR)) break;
        if (wait_fd(c->fd, POLLIN, deadline) != 0) {
            snprintf(why, wsize, "no request within %g s", timeout);
            if (sec_mode == ECD_SEC_INSECURE)
                ecd_printf(c, "ERR no whole request line within %g s; connection closed\n",
                           timeout);
            return -1;
        }
    }
    if (n <= 0) {
        snprintf(why, wsize, "closed before a request");
        return -1;
    }
    if (sec_mode == ECD_SEC_INSECURE) {
        if (first == 0x16) {
            snprintf(why, wsize, "TLS handshake, but this daemon runs --insecure (plaintext)");
            return -1;
        }
        c->caps = ECD_CAP_ALL;
        snprintf(c->who, sizeof(c->who), "(insecure)");
        return 0;
    }
    if (first != 0x16) {
        ecd_printf(c, "ERR no key: this daemon takes TLS 1.3 connections with a key of its "
                      "keyring only (lincoll-ec --keyring FILE; docs/daemon.md, Security)\n");
        drain(c, deadline);
        snprintf(why, wsize, "plaintext request (no key)");
        return -1;
    }
    if (tls_attach(c, why, wsize) != 0) return -1;
    c->who[0] = '\0';
    unsigned long reason;
    if (handshake(c, 1, deadline, &reason) == 0) return 0;
    int caps = c->caps;
    c->caps = 0;
    if (errno == ETIMEDOUT)
        snprintf(why, wsize, "no TLS handshake within %g s%s%s", timeout, c->who[0] ? ", key " : "",
                 c->who);
    else if (c->who[0] == '\0')
        snprintf(why, wsize, "no key offered (TLS without a pre-shared key: %s)",
                 reason ? ERR_reason_error_string(ERR_peek_last_error()) : "closed");
    else if (caps == 0)
        snprintf(why, wsize, "unknown client: key %s is not in the keyring", c->who);
    else
        snprintf(why, wsize, "wrong key: key %s did not prove its secret (%s)", c->who,
                 reason ? ERR_reason_error_string(ERR_peek_last_error()) : "closed");
    return -1;
}

long ecd_tls_recv(ecd_conn_t *c, void *buf, size_t len, short *want)
{
    size_t got = 0;
    pthread_mutex_lock(&c->tls_mu);
    ERR_clear_error();
    int r = SSL_read_ex(c->tls, buf, len, &got);
    int e = r ? SSL_ERROR_NONE : SSL_get_error(c->tls, r);
    pthread_mutex_unlock(&c->tls_mu);
    if (r) return (long)got;
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        *want = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
        errno = EAGAIN;
        return -1;
    }
    if (e == SSL_ERROR_ZERO_RETURN) return 0;
    errno = e == SSL_ERROR_SYSCALL && errno != 0 ? errno : EPIPE;
    return -1;
}

long ecd_tls_send(ecd_conn_t *c, const void *buf, size_t len, short *want)
{
    size_t put = 0;
    pthread_mutex_lock(&c->tls_mu);
    ERR_clear_error();
    int r = SSL_write_ex(c->tls, buf, len, &put);
    int e = r ? SSL_ERROR_NONE : SSL_get_error(c->tls, r);
    pthread_mutex_unlock(&c->tls_mu);
    if (r) return (long)put;
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        *want = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
        errno = EAGAIN;
        return -1;
    }
    errno = e == SSL_ERROR_SYSCALL && errno != 0 ? errno : EPIPE;
    return -1;
}

int ecd_tls_flush(ecd_conn_t *c, short *want)
{
    pthread_mutex_lock(&c->tls_mu);
    BIO *w = SSL_get_wbio(c->tls);
    int r = BIO_flush(w), retry = r <= 0 && BIO_should_retry(w);
    pthread_mutex_unlock(&c->tls_mu);
    if (r > 0) return 0;
    *want = POLLOUT;
    errno = retry ? EAGAIN : EPIPE;
    return -1;
}

int ecd_tls_pending(ecd_conn_t *c)
{
    if (c->tls == NULL) return 0;
    pthread_mutex_lock(&c->tls_mu);
    int p = SSL_has_pending(c->tls);
    pthread_mutex_unlock(&c->tls_mu);
    return p;
}

void ecd_tls_free(ecd_conn_t *c)
{
    if (c->tls == NULL) return;
    pthread_mutex_lock(&c->tls_mu);
    ERR_clear_error();
    SSL_shutdown(c->tls); /* close_notify, without waiting for the peer's */
    SSL_free(c->tls);
    c->tls = NULL;
    ERR_clear_error();
    pthread_mutex_unlock(&c->tls_mu);
}

void ecd_auth_log_refusal(const char *peer, const char *why)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static double last;
    static long left_out;
    pthread_mutex_lock(&mu);
    double now = ecd_now();
    if (now - last >= 1.0) {
        if (left_out > 0)
            ecd_log("refused %s: %s (and %ld more refusals since the last such line)", peer, why,
                    left_out);
        else
            ecd_log("refused %s: %s", peer, why);
        last = now;
        left_out = 0;
    } else {
        left_out++;
    }
    pthread_mutex_unlock(&mu);
}
