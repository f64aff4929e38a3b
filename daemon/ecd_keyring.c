/*
 * daemon/ecd_keyring.c: keyring files (the cluster key and the client keys
 * with their capabilities) and the capability check of a request.  The
 * format is in daemon/ecd.h; docs/daemon.md, Security, says how keys are
 * made, handed out and rotated (lincoll-ec-auth).
 */
#include "daemon/ecd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
    const char *name;
    int caps;
} cap_names[] = {{"read", ECD_CAP_READ},
                 {"write", ECD_CAP_READ | ECD_CAP_WRITE},
                 {"admin", ECD_CAP_READ | ECD_CAP_WRITE | ECD_CAP_ADMIN},
                 {"cluster", ECD_CAP_ALL}};

int ecd_caps_parse(const char *name)
{
    for (size_t i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++)
        if (strcmp(name, cap_names[i].name) == 0) return cap_names[i].caps;
    return -1;
}

const char *ecd_caps_name(int caps)
{
    for (size_t i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++)
        if ((cap_names[i].caps & caps) == caps) return cap_names[i].name;
    return "?";
}

static int id_ok(const char *id, size_t len)
{
    if (len < 1 || len > ECD_KEY_ID_MAX || id[0] == '.') return 0;
    for (size_t i = 0; i < len; i++) {
        char ch = id[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '.' || ch == '_' || ch == '-'))
            return 0;
    }
    return 1;
}

int ecd_keyring_parse(const char *text, size_t len, ecd_keyring_t *kr, char *err, size_t esize)
{
    kr->n = 0;
    size_t at = 0;
    int lineno = 0;
    while (at < len) {
        size_t end = at;
        while (end < len && text[end] != '\n')
            end++;
        char line[512];
        size_t ll = end - at;
        lineno++;
        if (ll >= sizeof(line)) {
            snprintf(err, esize, "line %d: longer than %zu bytes", lineno, sizeof(line) - 1);
            return -1;
        }
        memcpy(line, text + at, ll);
        line[ll] = '\0';
        at = end + 1;
        if (memchr(line, '\0', ll) != NULL) {
            snprintf(err, esize, "line %d: a NUL byte", lineno);
            return -1;
        }
        char *hash = strchr(line, '#'), *w[6];
        if (hash) *hash = '\0';
        int n = ecd_split(line, w, 6);
        if (n == 0) continue;
        char *gend;
        long gen = n == 5 ? strtol(w[2], &gend, 10) : 0;
        if (n != 5 || strcmp(w[0], "key") != 0 || !id_ok(w[1], strlen(w[1])) || *gend != '\0' ||
            gen < 1 || gen > 1000000 || ecd_caps_parse(w[3]) < 0 || strlen(w[4]) != 64) {
            snprintf(err, esize,
                     "line %d: expected 'key ID GEN CAPS SECRET' (ID 1-%d of A-Z a-z 0-9 . _ -, "
                     "GEN >= 1, CAPS read|write|admin|cluster, SECRET 64 hex digits)",
                     lineno, ECD_KEY_ID_MAX);
            return -1;
        }
        if (kr->n == ECD_KEYS_MAX) {
            snprintf(err, esize, "line %d: more than %d keys", lineno, ECD_KEYS_MAX);
            return -1;
        }
        ecd_key_t *k = &kr->key[kr->n];
        if (ecd_unhex(w[4], k->secret, 32) != 0) {
            snprintf(err, esize, "line %d: the secret is not 64 hex digits", lineno);
            return -1;
        }
        if (ecd_keyring_find(kr, w[1], (int)gen) != NULL) {
            snprintf(err, esize, "line %d: key %s/%ld appears twice", lineno, w[1], gen);
            return -1;
        }
        snprintf(k->id, sizeof(k->id), "%s", w[1]);
        k->gen = (int)gen;
        k->caps = ecd_caps_parse(w[3]);
        if ((k->caps == ECD_CAP_ALL) != (strcmp(k->id, "cluster") == 0)) {
            snprintf(err, esize, "line %d: caps 'cluster' go with the ID 'cluster' and only there",
                     lineno);
            return -1;
        }
        kr->n++;
    }
    return 0;
}

int ecd_keyring_load(const char *path, ecd_keyring_t *kr, char *err, size_t esize)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, esize, "keyring %s: %s (create one with lincoll-ec-auth create)", path,
                 strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode) || (st.st_mode & 077) != 0) {
        snprintf(err, esize,
                 "keyring %s refused: mode %03o lets group or others read or write it (keys must "
                 "stay secret: chmod 600 %s)",
                 path, (unsigned)(st.st_mode & 0777), path);
        close(fd);
        return -1;
    }
    if (st.st_size > 1 << 20) {
        snprintf(err, esize, "keyring %s: larger than 1 MiB", path);
        close(fd);
        return -1;
    }
    char *text = malloc((size_t)st.st_size + 1);
    ssize_t got = text != NULL ? read(fd, text, (size_t)st.st_size) : -1;
    close(fd);
    if (got != st.st_size) {
        snprintf(err, esize, "keyring %s: cannot read it", path);
        free(text);
        return -1;
    }
    char why[256];
    int rc = ecd_keyring_parse(text, (size_t)got, kr, why, sizeof(why));
    free(text);
    if (rc != 0) snprintf(err, esize, "keyring %s: %s", path, why);
    return rc;
}

int ecd_keyring_save(const char *path, const ecd_keyring_t *kr, char *err, size_t esize)
{
    char tmp[600];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL) {
        snprintf(err, esize, "cannot write %s: %s", tmp, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    fchmod(fd, 0600);
    fprintf(f, "# lincoll-ecd keyring (lincoll-ec-auth; keep it mode 0600)\n");
    for (int i = 0; i < kr->n; i++) {
        char hex[65];
        ecd_hex(kr->key[i].secret, 32, hex);
        fprintf(f, "key %s %d %s %s\n", kr->key[i].id, kr->key[i].gen,
                ecd_caps_name(kr->key[i].caps), hex);
    }
    int ok = fflush(f) == 0 && fsync(fd) == 0;
    if (fclose(f) != 0) ok = 0;
    if (!ok || rename(tmp, path) != 0) {
        snprintf(err, esize, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

const ecd_key_t *ecd_keyring_find(const ecd_keyring_t *kr, const char *id, int gen)
{
    for (int i = 0; i < kr->n; i++)
        if (kr->key[i].gen == gen && strcmp(kr->key[i].id, id) == 0) return &kr->key[i];
    return NULL;
}

const ecd_key_t *ecd_keyring_pick(const ecd_keyring_t *kr, const char *id, int newest)
{
    const ecd_key_t *best = NULL;
    for (int i = 0; i < kr->n; i++)
        if (strcmp(kr->key[i].id, id) == 0 &&
            (best == NULL || (newest ? kr->key[i].gen > best->gen : kr->key[i].gen < best->gen)))
            best = &kr->key[i];
    return best;
}

void ecd_key_name(const ecd_key_t *k, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%d", k->id, k->gen);
}

int ecd_key_name_parse(const char *text, size_t len, char *id, int *gen)
{
    const char *slash = memchr(text, '/', len);
    if (slash == NULL || !id_ok(text, (size_t)(slash - text))) return -1;
    size_t glen = len - (size_t)(slash - text) - 1;
    if (glen < 1 || glen > 7) return -1;
    int g = 0;
    for (size_t i = 0; i < glen; i++) {
        if (slash[1 + i] < '0' || slash[1 + i] > '9') return -1;
        g = g * 10 + (slash[1 + i] - '0');
    }
    if (g < 1) return -1;
    memcpy(id, text, (size_t)(slash - text));
    id[slash - text] = '\0';
    *gen = g;
    return 0;
}

int ecd_caps_check(const char *cmd, int need, int have, const char *who, char *err, size_t esize)
{
    if ((need & have) == need) return 0;
    if (need & ECD_CAP_PEER)
        snprintf(err, esize,
                 "not allowed: %.40s is a daemon's request (cluster key only); key %s has %s", cmd,
                 who, ecd_caps_name(have));
    else
        snprintf(err, esize, "not allowed: %.40s needs the %s capability; key %s has %s", cmd,
                 ecd_caps_name(need), who, ecd_caps_name(have));
    return -1;
}
