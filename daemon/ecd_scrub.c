/*
 * daemon/ecd_scrub.c: self-healing.  Every node keeps a record of the
 * objects it knows to be degraded (DIR/degraded/NAME: the put that wrote
 * it missed nodes, or a scrub found a row missing or corrupt), and a
 * background scrub checks every object it holds a manifest of:
 *
 *   - the object's scrub owner is the node of its first row whose chunk is
 *     good (every holder asks the rows before its own, CHECK, and stops at
 *     the first good one elsewhere), so one node per object does the work;
 *   - the owner checks every row, rebuilds each missing or corrupt one from
 *     k good chunks (object_data, encode_row) and writes it to its node
 *     (restore_chunk: a node that lost its disk or replaces one gets the
 *     manifest with it); what it cannot rebuild now (a node down) stays
 *     recorded and is tried at the next scrub;
 *   - a node's record of an object it holds is cleared once every row is
 *     good.
 *
 * Recorded objects are retried every second, every object is checked
 * every --scrub-interval.  Client traffic keeps priority: the scrub waits while puts or gets run
 * here, and reads at most --scrub-rate bytes a second.
 */
#include "daemon/ecd_daemon.h"
#include "kernels/crc/crc32c.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t active_lock = PTHREAD_MUTEX_INITIALIZER;
static int active_clients;

void client_active(int delta)
{
    pthread_mutex_lock(&active_lock);
    active_clients += delta;
    pthread_mutex_unlock(&active_lock);
}

static int clients_active(void)
{
    pthread_mutex_lock(&active_lock);
    int a = active_clients;
    pthread_mutex_unlock(&active_lock);
    return a;
}

static void record_path(const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/degraded/%s", cfg.dir, name);
}

void degraded_mark(const char *name, const char *why)
{
    char path[600], tmp[640];
    record_path(name, path, sizeof(path));
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL || fprintf(f, "%s\n", why) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
        ecd_log("cannot record %s as degraded: %s", name, strerror(errno));
        return;
    }
}

static int degraded_has(const char *name)
{
    char path[600];
    record_path(name, path, sizeof(path));
    return access(path, F_OK) == 0;
}

static void degraded_clear(const char *name)
{
    char path[600];
    record_path(name, path, sizeof(path));
    if (unlink(path) == 0) ecd_log("object %s: every row good again; no longer degraded", name);
}

/* The recorded names (malloc'd strings); returns the count. */
static int degraded_list(char ***names_p)
{
    char dir[600];
    snprintf(dir, sizeof(dir), "%s/degraded", cfg.dir);
    DIR *d = opendir(dir);
    int n = 0, cap = 0;
    char **names = NULL;
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        if (!ecd_name_ok(e->d_name) || strstr(e->d_name, ".tmp") != NULL) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **nn = realloc(names, sizeof(char *) * (size_t)cap);
            if (nn == NULL) break;
            names = nn;
        }
        names[n++] = strdup(e->d_name);
    }
    if (d != NULL) closedir(d);
    *names_p = names;
    return n;
}

int degraded_open(void)
{
    char dir[600];
    snprintf(dir, sizeof(dir), "%s/degraded", cfg.dir);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        ecd_log("cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* "DEGRADED": the names this node records, "OK n" then one per line. */
void peer_degraded(ecd_conn_t *c, char **w, int nw)
{
    (void)w, (void)nw;
    char **names;
    int n = degraded_list(&names);
    ecd_printf(c, "OK %d\n", n);
    for (int i = 0; i < n; i++) {
        ecd_printf(c, "%s\n", names[i]);
        free(names[i]);
    }
    free(names);
}

/* "CHECK NAME ROW": "OK ok", "OK missing" or "OK corrupt" (no manifest of
 * it here: missing). */
void peer_check(ecd_conn_t *c, char **w, int nw)
{
    (void)nw;
    ecd_manifest_t m;
    int r = atoi(w[2]);
    const char *state = "missing";
    if (ecd_name_ok(w[1]) && ecd_disk_manifest(&disk, w[1], &m) == 0 && r >= 0 && r < m.k + m.m &&
        m.node[r] == cfg.node) {
        void *buf = malloc(m.chunk);
        ecd_chunk_state_t s = buf ? ecd_disk_read_chunk(&disk, &m, r, buf) : ECD_CHUNK_MISSING;
        state = s == ECD_CHUNK_OK ? "ok" : s == ECD_CHUNK_CORRUPT ? "corrupt" : "missing";
        free(buf);
    }
    ecd_printf(c, "OK %s\n", state);
}

/* Row r's state: 1 ok, 2 missing, 3 corrupt, 0 its node is unreachable. */
static int row_state(const ecd_cluster_t *cl, const ecd_manifest_t *m, int r)
{
    int nd = m->node[r];
    if (nd == cfg.node) {
        void *buf = malloc(m->chunk);
        ecd_chunk_state_t s = buf ? ecd_disk_read_chunk(&disk, m, r, buf) : ECD_CHUNK_MISSING;
        free(buf);
        return s == ECD_CHUNK_OK ? 1 : s == ECD_CHUNK_CORRUPT ? 3 : 2;
    }
    if (nd >= cl->n) return 0;
    char why[256], line[ECD_LINE_MAX] = "";
    ecd_conn_t *c =
        ecd_connect(cl->addr[nd], cfg.timeout < 3 ? cfg.timeout : 3, cfg.timeout, why, sizeof(why));
    int st = 0;
    if (c != NULL && ecd_printf(c, "CHECK %s %d\n", m->name, r) == 0 &&
        ecd_read_line(c, line, sizeof(line)) >= 0)
        st = !strcmp(line, "OK ok") ? 1 : !strcmp(line, "OK corrupt") ? 3 : 2;
    ecd_conn_close(c);
    return st;
}

/* Sleep as long as reading `bytes` takes at --scrub-rate, and while client
 * requests run here (at most a few seconds: the scrub is never starved). */
static void scrub_pace(uint64_t bytes)
{
    usleep((useconds_t)((double)bytes / cfg.scrub_rate * 1e6));
    for (int i = 0; i < 100 && clients_active() > 0; i++)
        usleep(20000);
}

/* Check one object; rebuild its bad rows when this node is its owner.
 * Returns the chunks rebuilt. */
static int scrub_object(const ecd_cluster_t *cl, const char *name)
{
    ecd_manifest_t m;
    char mf[600];
    struct stat sb;
    snprintf(mf, sizeof(mf), "%s/objects/%s.mf", cfg.dir, name);
    /* a put commits node by node: an object younger than its timeouts is left for later */
    if (stat(mf, &sb) != 0 || (double)(time(NULL) - sb.st_mtime) < 2 * cfg.timeout + 1) return 0;
    if (ecd_disk_manifest(&disk, name, &m) != 0) return 0;
    const int n = m.k + m.m;
    int state[ECD_MAX_NODES] = {0}, owner = 0, recorded = degraded_has(name);
    for (int r = 0; r < n; r++) {
        state[r] = row_state(cl, &m, r);
        scrub_pace(m.chunk);
        if (state[r] == 1 && !owner) {
            if (m.node[r] != cfg.node && !recorded) return 0; /* that node owns it */
            owner = 1;
        }
    }
    int bad[ECD_MAX_NODES], nbad = 0, unreachable = 0;
    for (int r = 0; r < n; r++) {
        if (state[r] == 2 || state[r] == 3) bad[nbad++] = r;
        unreachable += state[r] == 0;
    }
    if (nbad == 0 && unreachable == 0) {
        degraded_clear(name);
        return 0;
    }
    char why[128];
    snprintf(why, sizeof(why), "%d rows bad, %d on unreachable nodes", nbad, unreachable);
    degraded_mark(name, why);
    if (nbad == 0) return 0;
    /* rebuild from k good chunks */
    uint8_t *par = malloc((size_t)m.m * m.chunk), *obj = malloc((size_t)m.k * m.chunk),
            *row = malloc(m.chunk);
    uint64_t *G = generator(n, m.k);
    int seen[ECD_MAX_NODES], nseen, rebuilt = 0;
    char err[256];
    if (par != NULL && obj != NULL && row != NULL && G != NULL &&
        object_data(cl, &m, G, par, obj, seen, &nseen, err, sizeof(err)) == 0) {
        scrub_pace((uint64_t)m.k * m.chunk);
        for (int i = 0; i < nbad; i++) {
            if (encode_row(G, m.k, bad[i], obj, m.chunk, row) != 0 ||
                lc_crc32c(0, row, m.chunk) != m.crc[bad[i]])
                continue;
            if (restore_chunk(cl, &m, bad[i], row) == 0) rebuilt++;
        }
        ecd_log("scrub: object %s: %d of %d bad rows rebuilt", name, rebuilt, nbad);
    } else {
        ecd_log("scrub: object %s cannot be rebuilt now: %s", name,
                par && obj && row && G ? err : "out of memory");
    }
    free(par);
    free(obj);
    free(row);
    free(G);
    if (rebuilt == nbad && unreachable == 0) degraded_clear(name);
    return rebuilt;
}

int scrub_once(int full)
{
    ecd_cluster_t cl;
    char err[512];
    if (ecd_cluster_load(cfg.cluster, &cl, err, sizeof(err)) != 0) return 0;
    char **names;
    int n = full ? ecd_disk_list(&disk, &names) : degraded_list(&names), rebuilt = 0;
    for (int i = 0; i < n; i++) {
        if (full || ecd_disk_has(&disk, names[i])) rebuilt += scrub_object(&cl, names[i]);
        free(names[i]);
    }
    free(names);
    /* records of objects this node holds no manifest of: its peers' scrubs
     * heal them; the record goes once a peer wrote the object back here or
     * none of its nodes holds it any more */
    n = degraded_list(&names);
    for (int i = 0; i < n; i++) {
        if (!ecd_disk_has(&disk, names[i])) {
            ecd_manifest_t m;
            if (find_manifest(&cl, names[i], &m) != 0) degraded_clear(names[i]);
        }
        free(names[i]);
    }
    free(names);
    return rebuilt;
}

/* The objects recorded degraded are retried every second (at most every
 * --scrub-interval); every object is checked every --scrub-interval. */
static void *scrub_main(void *arg)
{
    (void)arg;
    double tick = cfg.scrub_interval < 1 ? cfg.scrub_interval : 1, next_full = ecd_now();
    for (;;) {
        usleep((useconds_t)(tick * 1e6));
        int full = ecd_now() >= next_full + cfg.scrub_interval;
        if (full) next_full = ecd_now();
        int r = scrub_once(full);
        if (r > 0) ecd_log("scrub: %d chunks rebuilt", r);
    }
    return NULL;
}

int scrub_start(void)
{
    if (degraded_open() != 0) return -1;
    if (cfg.scrub_interval <= 0) return 0;
    return ecd_thread_start(scrub_main, NULL);
}

int degraded_count(const ecd_cluster_t *cl)
{
    char **all = NULL, line[ECD_LINE_MAX];
    int nall = 0, cap = 0, failed = 0;
    for (int i = 0; i < cl->n; i++) {
        char **names = NULL;
        int n = 0;
        if (i == cfg.node) {
            n = degraded_list(&names);
        } else {
            char why[256];
            ecd_conn_t *c = ecd_connect(cl->addr[i], cfg.timeout < 3 ? cfg.timeout : 3, cfg.timeout,
                                        why, sizeof(why));
            if (c == NULL) continue; /* down: stat says so on its line */
            if (ecd_printf(c, "DEGRADED\n") != 0 || ecd_read_line(c, line, sizeof(line)) < 0 ||
                strncmp(line, "OK ", 3) != 0) {
                failed = 1;
            } else {
                int cnt = atoi(line + 3);
                names = calloc((size_t)(cnt > 0 ? cnt : 1), sizeof(char *));
                for (; names != NULL && n < cnt && ecd_read_line(c, line, sizeof(line)) >= 0; n++)
                    names[n] = strdup(line);
                failed |= n < cnt;
            }
            ecd_conn_close(c);
        }
        for (int j = 0; j < n; j++) { /* the union */
            int dup = names[j] == NULL;
            for (int q = 0; q < nall && !dup; q++)
                dup = strcmp(all[q], names[j]) == 0;
            if (!dup && nall == cap) {
                cap = cap ? 2 * cap : 64;
                char **na = realloc(all, sizeof(char *) * (size_t)cap);
                if (na == NULL)
                    dup = 1, failed = 1;
                else
                    all = na;
            }
            if (dup)
                free(names[j]);
            else
                all[nall++] = names[j];
        }
        free(names);
    }
    for (int q = 0; q < nall; q++)
        free(all[q]);
    free(all);
    return failed ? -1 : nall;
}
