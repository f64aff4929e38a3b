/*
 * daemon/ecd_disk.c: manifests and a daemon's chunk directory.
 *
 *   DIR/objects/NAME.mf   committed manifest (the object exists on this node)
 *   DIR/chunks/NAME.ROW   this node's chunk of row ROW (raw bytes)
 *   DIR/tmp/OP.NAME.ROW   a chunk written by operation OP, not committed yet
 *   DIR/bad/              what a scan found unreadable, kept for inspection
 *
 * A manifest is text ending with "check CRC", the crc32c of every line
 * before it, so a damaged manifest is never mistaken for a good one.  It
 * lists the crc32c of every row's chunk: any node can verify any chunk, and
 * the stripe width when the object is cut into more than one stripe (no
 * "stripe" line: one stripe).
 * Writes go to temporaries that are fsync'd, renamed into place and
 * followed by the manifest (temp, fsync, rename, fsync of the directory).
 */
#include "daemon/ecd.h"
#include "kernels/crc/crc32c.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int ecd_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > ECD_NAME_MAX || name[0] == '.') return 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

uint64_t ecd_stripe_count(uint64_t chunk, uint64_t stripe)
{
    return stripe == 0 || stripe >= chunk ? 1 : (chunk + stripe - 1) / stripe;
}

uint64_t ecd_stripe_width(uint64_t chunk, uint64_t stripe, uint64_t s)
{
    if (stripe == 0 || stripe >= chunk) return s == 0 ? chunk : 0;
    uint64_t at = s * stripe;
    return at >= chunk ? 0 : chunk - at < stripe ? chunk - at : stripe;
}

uint64_t ecd_stripe_offset(int k, uint64_t stripe, uint64_t s)
{
    return s * (uint64_t)k * stripe;
}

int ecd_manifest_format(const ecd_manifest_t *m, char *buf, size_t cap)
{
    char sha[65];
    ecd_hex(m->sha, 32, sha);
    size_t n = 0;
    int w = snprintf(buf, cap,
                     "lincoll-ecd manifest 1\nname %s\nsize %llu\nsha256 %s\ncode %d %d\nchunk "
                     "%llu\nop %s\n",
                     m->name, (unsigned long long)m->size, sha, m->k, m->m,
                     (unsigned long long)m->chunk, m->op);
    if (w < 0 || (size_t)w >= cap) return -1;
    n = (size_t)w;
    if (m->stripe > 0 && m->stripe < m->chunk) {
        w = snprintf(buf + n, cap - n, "stripe %llu\n", (unsigned long long)m->stripe);
        if (w < 0 || (size_t)w >= cap - n) return -1;
        n += (size_t)w;
    }
    for (int r = 0; r < m->k + m->m; r++) {
        w = snprintf(buf + n, cap - n, "row %d %d %08x\n", r, m->node[r], m->crc[r]);
        if (w < 0 || (size_t)w >= cap - n) return -1;
        n += (size_t)w;
    }
    w = snprintf(buf + n, cap - n, "check %08x\n", lc_crc32c(0, buf, n));
    if (w < 0 || (size_t)w >= cap - n) return -1;
    return (int)(n + (size_t)w);
}

int ecd_manifest_parse(const char *text, size_t len, ecd_manifest_t *m, char *err, size_t esize)
{
    memset(m, 0, sizeof(*m));
    if (len >= ECD_MANIFEST_MAX) {
        snprintf(err, esize, "manifest of %zu bytes is too long", len);
        return -1;
    }
    char buf[ECD_MANIFEST_MAX];
    memcpy(buf, text, len);
    buf[len] = '\0';
    char *chk = strstr(buf, "check ");
    if (chk == NULL || (chk != buf && chk[-1] != '\n')) {
        snprintf(err, esize, "no check line");
        return -1;
    }
    /* exactly "check " + 8 lowercase hex digits + "\n", the end of the text */
    unsigned want = 0;
    int good = strlen(chk) == 15 && chk[14] == '\n';
    for (int i = 6; good && i < 14; i++) {
        char ch = chk[i];
        good = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
        want = want << 4 | (unsigned)(ch <= '9' ? ch - '0' : ch - 'a' + 10);
    }
    if (!good) {
        snprintf(err, esize, "bad check line");
        return -1;
    }
    if (lc_crc32c(0, buf, (size_t)(chk - buf)) != want) {
        snprintf(err, esize, "checksum mismatch (the manifest is damaged)");
        return -1;
    }
    *chk = '\0';
    int have = 0, rows_seen[ECD_MAX_NODES] = {0}, nrows = 0;
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        char *w[5];
        int n = ecd_split(line, w, 5);
        if (n == 3 && !strcmp(w[0], "lincoll-ecd") && !strcmp(w[1], "manifest") &&
            !strcmp(w[2], "1")) {
            have |= 1;
        } else if (n == 2 && !strcmp(w[0], "name") && ecd_name_ok(w[1])) {
            snprintf(m->name, sizeof(m->name), "%s", w[1]);
            have |= 2;
        } else if (n == 2 && !strcmp(w[0], "size")) {
            m->size = strtoull(w[1], NULL, 10);
            have |= 4;
        } else if (n == 2 && !strcmp(w[0], "sha256") && ecd_unhex(w[1], m->sha, 32) == 0) {
            have |= 8;
        } else if (n == 3 && !strcmp(w[0], "code")) {
            m->k = atoi(w[1]);
            m->m = atoi(w[2]);
            have |= 16;
        } else if (n == 2 && !strcmp(w[0], "chunk")) {
            m->chunk = strtoull(w[1], NULL, 10);
            have |= 32;
        } else if (n == 2 && !strcmp(w[0], "stripe") && !(have & 128)) {
            char *end;
            m->stripe = strtoull(w[1], &end, 10);
            if (*end != '\0' || m->stripe == 0) {
                snprintf(err, esize, "bad stripe line");
                return -1;
            }
            have |= 128;
        } else if (n == 2 && !strcmp(w[0], "op")) {
            snprintf(m->op, sizeof(m->op), "%s", w[1]);
            have |= 64;
        } else if (n == 4 && !strcmp(w[0], "row")) {
            int r = atoi(w[1]), node = atoi(w[2]);
            if (r < 0 || r >= ECD_MAX_NODES || rows_seen[r] || node < 0 || node >= ECD_MAX_NODES) {
                snprintf(err, esize, "bad row line");
                return -1;
            }
            rows_seen[r] = 1;
            m->node[r] = node;
            m->crc[r] = (uint32_t)strtoul(w[3], NULL, 16);
            nrows++;
        } else {
            snprintf(err, esize, "unexpected line '%.40s'", line);
            return -1;
        }
    }
    if ((have & 127) != 127) {
        snprintf(err, esize, "fields missing");
        return -1;
    }
    if (!(have & 128)) m->stripe = m->chunk;
    if (m->k < 1 || m->m < 1 || m->k + m->m > ECD_MAX_NODES || nrows != m->k + m->m ||
        m->chunk < 1 || m->chunk * (uint64_t)m->k < m->size || m->stripe > m->chunk) {
        snprintf(err, esize, "inconsistent code, rows or sizes");
        return -1;
    }
    for (int r = 0; r < nrows; r++) {
        if (!rows_seen[r]) {
            snprintf(err, esize, "row %d missing", r);
            return -1;
        }
    }
    return 0;
}

int ecd_manifest_rows_of(const ecd_manifest_t *m, int node, int *out)
{
    int n = 0;
    for (int r = 0; r < m->k + m->m; r++)
        if (m->node[r] == node) out[n++] = r;
    return n;
}

/* ---- files -------------------------------------------------------------- */

static int ecd_fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

static int ecd_write_file(const char *path, const void *buf, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            close(fd);
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    if (fsync(fd) != 0) {
        close(fd);
        return -1;
    }
    return close(fd);
}

/* Whole file into a malloc'd buffer (at most max bytes); -1 if bigger. */
static ssize_t ecd_read_file(const char *path, void *buf, size_t max)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t got = 0;
    for (;;) {
        ssize_t n = read(fd, (char *)buf + got, max - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            close(fd);
            return -1;
        }
        if (n == 0) break;
        got += (size_t)n;
        if (got == max) {
            char extra;
            n = read(fd, &extra, 1);
            close(fd);
            return n == 0 ? (ssize_t)got : -2;
        }
    }
    close(fd);
    return (ssize_t)got;
}

static void ecd_path(const ecd_disk_t *d, char *out, size_t cap, const char *sub, const char *name,
                     const char *suffix)
{
    snprintf(out, cap, "%s/%s/%s%s", d->dir, sub, name, suffix);
}

static int ecd_load_manifest_file(const char *path, ecd_manifest_t *m, char *err, size_t esize)
{
    char text[ECD_MANIFEST_MAX];
    ssize_t n = ecd_read_file(path, text, sizeof(text) - 1);
    if (n < 0) {
        snprintf(err, esize, "%s", n == -2 ? "too long" : strerror(errno));
        return -1;
    }
    return ecd_manifest_parse(text, (size_t)n, m, err, esize);
}

int ecd_disk_has(ecd_disk_t *d, const char *name)
{
    char p[600];
    ecd_path(d, p, sizeof(p), "objects", name, ".mf");
    return access(p, F_OK) == 0;
}

int ecd_disk_manifest(ecd_disk_t *d, const char *name, ecd_manifest_t *m)
{
    char p[600], err[128];
    ecd_path(d, p, sizeof(p), "objects", name, ".mf");
    if (access(p, F_OK) != 0) return -1;
    if (ecd_load_manifest_file(p, m, err, sizeof(err)) != 0) {
        ecd_log("manifest %s is unreadable: %s", p, err);
        return -1;
    }
    if (strcmp(m->name, name) != 0) {
        ecd_log("manifest %s names another object (%s)", p, m->name);
        return -1;
    }
    return 0;
}

ecd_chunk_state_t ecd_disk_read_chunk(ecd_disk_t *d, const ecd_manifest_t *m, int row, void *buf)
{
    char p[600], suf[16];
    snprintf(suf, sizeof(suf), ".%d", row);
    ecd_path(d, p, sizeof(p), "chunks", m->name, suf);
    ssize_t n = ecd_read_file(p, buf, m->chunk);
    if (n == -1 && errno == ENOENT) return ECD_CHUNK_MISSING;
    if (n != (ssize_t)m->chunk) return ECD_CHUNK_CORRUPT;
    return lc_crc32c(0, buf, m->chunk) == m->crc[row] ? ECD_CHUNK_OK : ECD_CHUNK_CORRUPT;
}

int ecd_disk_write_temp(ecd_disk_t *d, const char *op, const char *name, int row, const void *buf,
                        size_t len, char *tmp, size_t tsize)
{
    char base[300];
    snprintf(base, sizeof(base), "%s.%s.%d", op, name, row);
    ecd_path(d, tmp, tsize, "tmp", base, "");
    if (ecd_write_file(tmp, buf, len) != 0) {
        ecd_log("writing %s: %s", tmp, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int ecd_temp_open(ecd_disk_t *d, const char *op, const char *name, int row, ecd_temp_t *t)
{
    char base[300];
    snprintf(base, sizeof(base), "%s.%s.%d", op, name, row);
    ecd_path(d, t->path, sizeof(t->path), "tmp", base, "");
    t->written = t->started = 0;
    t->fd = open(t->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (t->fd < 0) {
        ecd_log("creating %s: %s", t->path, strerror(errno));
        return -1;
    }
    return 0;
}

int ecd_temp_append(ecd_temp_t *t, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(t->fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ecd_log("writing %s: %s", t->path, n < 0 ? strerror(errno) : "short write");
            return -1;
        }
        p += n;
        len -= (size_t)n;
        t->written += (uint64_t)n;
    }
    /* start the write-back of every full 4 MiB written so far, and make
     * every 16 MiB durable: the final fsync then has at most that left,
     * and a disk shared by several writers is not flushed all at once */
    const uint64_t step = 4u << 20, durable = 16u << 20;
    if (t->written - t->started >= step) {
        uint64_t upto = t->written / step * step;
        if (upto / durable > t->started / durable) {
            if (fdatasync(t->fd) != 0) {
                ecd_log("fdatasync of %s: %s", t->path, strerror(errno));
                return -1;
            }
        } else {
            sync_file_range(t->fd, (off_t)t->started, (off_t)(upto - t->started),
                            SYNC_FILE_RANGE_WRITE);
        }
        t->started = upto;
    }
    return 0;
}

int ecd_temp_finish(ecd_temp_t *t, char *tmp, size_t tsize)
{
    int rc = fsync(t->fd);
    if (rc != 0) ecd_log("fsync of %s: %s", t->path, strerror(errno));
    if (close(t->fd) != 0) rc = -1;
    t->fd = -1;
    if (rc != 0) {
        unlink(t->path);
        return -1;
    }
    snprintf(tmp, tsize, "%s", t->path);
    return 0;
}

void ecd_temp_drop(ecd_temp_t *t)
{
    if (t->fd >= 0) {
        close(t->fd);
        t->fd = -1;
        unlink(t->path);
    }
}

int ecd_disk_commit(ecd_disk_t *d, const ecd_manifest_t *m, char (*tmps)[600], const int *rows,
                    int n)
{
    char text[ECD_MANIFEST_MAX], p[600], t[600], dir[600];
    int len = ecd_manifest_format(m, text, sizeof(text));
    if (len < 0) return -1;
    pthread_mutex_lock(&d->mu);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        char suf[16];
        snprintf(suf, sizeof(suf), ".%d", rows[i]);
        ecd_path(d, p, sizeof(p), "chunks", m->name, suf);
        if (rename(tmps[i], p) != 0) {
            ecd_log("commit of %s: rename %s: %s", m->name, tmps[i], strerror(errno));
            rc = -1;
        }
    }
    snprintf(dir, sizeof(dir), "%s/chunks", d->dir);
    if (rc == 0 && n > 0 && ecd_fsync_dir(dir) != 0) rc = -1;
    if (rc == 0) {
        snprintf(t, sizeof(t), "%s/tmp/%s.%s.mf", d->dir, m->op, m->name);
        ecd_path(d, p, sizeof(p), "objects", m->name, ".mf");
        if (ecd_write_file(t, text, (size_t)len) != 0 || rename(t, p) != 0) {
            ecd_log("commit of %s: writing the manifest: %s", m->name, strerror(errno));
            unlink(t);
            rc = -1;
        }
        snprintf(dir, sizeof(dir), "%s/objects", d->dir);
        if (rc == 0 && ecd_fsync_dir(dir) != 0) rc = -1;
    }
    pthread_mutex_unlock(&d->mu);
    return rc;
}

void ecd_disk_abort(char (*tmps)[600], int n)
{
    for (int i = 0; i < n; i++)
        if (tmps[i][0]) unlink(tmps[i]);
}

int ecd_disk_list(ecd_disk_t *d, char ***names_p)
{
    char p[600];
    snprintf(p, sizeof(p), "%s/objects", d->dir);
    pthread_mutex_lock(&d->mu);
    DIR *dir = opendir(p);
    int n = 0, cap = 16;
    char **names = malloc(sizeof(char *) * (size_t)cap);
    struct dirent *e;
    while (dir != NULL && names != NULL && (e = readdir(dir)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 4 || strcmp(e->d_name + l - 3, ".mf") != 0) continue;
        if (n == cap) {
            cap *= 2;
            char **nn = realloc(names, sizeof(char *) * (size_t)cap);
            if (nn == NULL) break;
            names = nn;
        }
        names[n] = strndup(e->d_name, l - 3);
        if (names[n] != NULL) n++;
    }
    if (dir) closedir(dir);
    pthread_mutex_unlock(&d->mu);
    *names_p = names;
    return n;
}

void ecd_disk_stats(ecd_disk_t *d, long *objects, long long *bytes, long *missing, long *corrupt)
{
    char **names;
    int n = ecd_disk_list(d, &names);
    *objects = 0, *bytes = 0, *missing = 0, *corrupt = 0;
    for (int i = 0; i < n; i++) {
        ecd_manifest_t m;
        if (ecd_disk_manifest(d, names[i], &m) == 0) {
            (*objects)++;
            int rows[ECD_MAX_NODES], nr = ecd_manifest_rows_of(&m, d->self, rows);
            void *buf = malloc(m.chunk);
            for (int j = 0; j < nr && buf != NULL; j++) {
                ecd_chunk_state_t s = ecd_disk_read_chunk(d, &m, rows[j], buf);
                *missing += s == ECD_CHUNK_MISSING;
                *corrupt += s == ECD_CHUNK_CORRUPT;
                if (s == ECD_CHUNK_OK) *bytes += (long long)m.chunk;
            }
            free(buf);
        }
        free(names[i]);
    }
    free(names);
}

/* ---- open and scan ------------------------------------------------------ */

static void ecd_quarantine(ecd_disk_t *d, const char *sub, const char *file, const char *why)
{
    char from[600], to[700];
    snprintf(from, sizeof(from), "%s/%s/%s", d->dir, sub, file);
    snprintf(to, sizeof(to), "%s/bad/%s.%s.%ld", d->dir, sub, file, (long)time(NULL));
    ecd_log("%s: %s; moved to %s", from, why, to);
    if (rename(from, to) != 0) unlink(from);
}

int ecd_disk_open(ecd_disk_t *d, const char *dir, int self)
{
    memset(d, 0, sizeof(*d));
    if (strlen(dir) >= sizeof(d->dir)) {
        ecd_log("--dir %s: longer than %zu characters", dir, sizeof(d->dir) - 1);
        return -1;
    }
    snprintf(d->dir, sizeof(d->dir), "%s", dir);
    d->self = self;
    pthread_mutex_init(&d->mu, NULL);
    static const char *const subs[] = {"", "objects", "chunks", "tmp", "bad"};
    for (int i = 0; i < 5; i++) {
        char p[600];
        snprintf(p, sizeof(p), "%s/%s", dir, subs[i]);
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            ecd_log("cannot create %s: %s", p, strerror(errno));
            return -1;
        }
    }
    char p[600];
    /* temporaries: operations that never committed here */
    snprintf(p, sizeof(p), "%s/tmp", dir);
    DIR *dd = opendir(p);
    struct dirent *e;
    while (dd != NULL && (e = readdir(dd)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char f[900];
        snprintf(f, sizeof(f), "%s/%s", p, e->d_name);
        unlink(f);
        d->scan_temps++;
    }
    if (dd) closedir(dd);
    if (d->scan_temps) ecd_log("removed %d temporaries of unfinished operations", d->scan_temps);
    /* manifests */
    snprintf(p, sizeof(p), "%s/objects", dir);
    dd = opendir(p);
    while (dd != NULL && (e = readdir(dd)) != NULL) {
        if (e->d_name[0] == '.') continue;
        size_t l = strlen(e->d_name);
        char f[900], err[160];
        snprintf(f, sizeof(f), "%s/%s", p, e->d_name);
        ecd_manifest_t m;
        char name[300];
        snprintf(name, sizeof(name), "%.*s", (int)(l > 3 ? l - 3 : 0), e->d_name);
        if (l < 4 || strcmp(e->d_name + l - 3, ".mf") != 0) {
            ecd_quarantine(d, "objects", e->d_name, "not a manifest");
        } else if (ecd_load_manifest_file(f, &m, err, sizeof(err)) != 0) {
            ecd_quarantine(d, "objects", e->d_name, err);
            d->scan_bad_manifests++;
        } else if (strcmp(m.name, name) != 0) {
            ecd_quarantine(d, "objects", e->d_name, "the manifest names another object");
            d->scan_bad_manifests++;
        } else {
            d->scan_objects++;
            int rows[ECD_MAX_NODES], nr = ecd_manifest_rows_of(&m, self, rows);
            void *buf = malloc(m.chunk);
            for (int j = 0; j < nr && buf != NULL; j++) {
                ecd_chunk_state_t s = ecd_disk_read_chunk(d, &m, rows[j], buf);
                if (s == ECD_CHUNK_MISSING) {
                    ecd_log("object %s: chunk of row %d is missing (repair rebuilds it)", m.name,
                            rows[j]);
                    d->scan_missing++;
                } else if (s == ECD_CHUNK_CORRUPT) {
                    ecd_log("object %s: chunk of row %d fails its checksum (it is never served; "
                            "repair rebuilds it)",
                            m.name, rows[j]);
                    d->scan_corrupt++;
                }
            }
            free(buf);
        }
    }
    if (dd) closedir(dd);
    /* chunks nobody's manifest on this node claims */
    snprintf(p, sizeof(p), "%s/chunks", dir);
    dd = opendir(p);
    while (dd != NULL && (e = readdir(dd)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char name[300];
        snprintf(name, sizeof(name), "%s", e->d_name);
        char *dot = strrchr(name, '.');
        ecd_manifest_t m;
        int row = dot ? atoi(dot + 1) : -1;
        if (dot) *dot = '\0';
        int mine = dot != NULL && ecd_name_ok(name) && ecd_disk_manifest(d, name, &m) == 0 &&
                   row >= 0 && row < m.k + m.m && m.node[row] == self;
        if (!mine) {
            ecd_quarantine(d, "chunks", e->d_name, "no manifest here claims this chunk");
            d->scan_orphans++;
        }
    }
    if (dd) closedir(dd);
    ecd_log("%s: %d objects; %d damaged manifests, %d chunks missing, %d corrupt, %d orphans", dir,
            d->scan_objects, d->scan_bad_manifests, d->scan_missing, d->scan_corrupt,
            d->scan_orphans);
    return 0;
}
