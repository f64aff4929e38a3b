/*
 * core/base/profile.c: reading and writing machine profiles (the format is
 * in core/base/profile.h).  The one parser: the library (core/base/config.c),
 * lincoll_info --calibrate and lincoll_sim all use it.
 */
#include "core/base/profile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const lc_profile_keys[LC_PROF_NKEYS] = {
    [LC_PROF_ALPHA] = "alpha",
    [LC_PROF_BETA] = "beta",
    [LC_PROF_GAMMA] = "gamma",
    [LC_PROF_FLOPS] = "flops",
    [LC_PROF_ALPHA_MAPPED] = "alpha_mapped",
    [LC_PROF_ALPHA_NET] = "alpha_net",
    [LC_PROF_BETA_NET] = "beta_net",
    [LC_PROF_GAMMA_GF] = "gamma_gf",
    [LC_PROF_GAMMA_REDUCE] = "gamma_reduce",
    [LC_PROF_HANDOFF] = "handoff",
    [LC_PROF_BETA_MAPPED] = "beta_mapped",
    [LC_PROF_NAME] = "name",
    [LC_PROF_PORTS] = "ports",
};

const char *lc_profile_key_name(lc_profile_key_t key)
{
    return (unsigned)key < LC_PROF_NKEYS ? lc_profile_keys[key] : "?";
}

static int lc_profile_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int lc_profile_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err != NULL && errlen > 0) vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* One "key value" line into prof; 0, or -1 with err set. */
static int lc_profile_line(const char *path, int ln, char *line, lc_profile_t *prof, char *err,
                           size_t errlen)
{
    char *h = strchr(line, '#');
    if (h != NULL) *h = '\0';
    char key[64], val[256], extra[8];
    int nf = sscanf(line, "%63s %255s %7s", key, val, extra);
    if (nf <= 0) return 0;
    if (nf != 2) return lc_profile_fail(err, errlen, "%s:%d: expected \"key value\"", path, ln);
    int k = 0;
    while (k < LC_PROF_NKEYS && strcmp(key, lc_profile_keys[k]) != 0)
        k++;
    if (k == LC_PROF_NKEYS)
        return lc_profile_fail(err, errlen,
                               "%s:%d: unknown key %s (name, alpha, beta, gamma, flops, ports, "
                               "alpha_mapped, alpha_net, beta_net, gamma_gf, gamma_reduce, "
                               "handoff, beta_mapped)",
                               path, ln, key);
    if (prof->have & (1u << k))
        return lc_profile_fail(err, errlen, "%s:%d: %s given twice", path, ln, key);
    char *end;
    errno = 0;
    if (k == LC_PROF_NAME) {
        snprintf(prof->name, sizeof(prof->name), "%.63s", val);
    } else if (k == LC_PROF_PORTS) {
        long l = strtol(val, &end, 10);
        if (errno != 0 || end == val || *end != '\0' || l < 1 || l > 64)
            return lc_profile_fail(err, errlen, "%s:%d: ports %s: expected 1..64", path, ln, val);
        prof->ports = (int)l;
    } else {
        double d = strtod(val, &end);
        if (errno != 0 || end == val || *end != '\0' || !(d >= 0) || isinf(d) ||
            (k == LC_PROF_FLOPS && d <= 0))
            return lc_profile_fail(err, errlen, "%s:%d: %s %s: expected a number >= 0%s", path, ln,
                                   key, val, k == LC_PROF_FLOPS ? " (> 0)" : "");
        prof->v[k] = d;
    }
    prof->have |= 1u << k;
    return 0;
}

int lc_profile_read(const char *path, lc_profile_t *prof, char *err, size_t errlen)
{
    memset(prof, 0, sizeof(*prof));
    FILE *f = fopen(path, "r");
    if (f == NULL) return lc_profile_fail(err, errlen, "%s: %s", path, strerror(errno));
    char line[512];
    int ln = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
        ln++;
        if (strchr(line, '\n') == NULL && !feof(f)) {
            rc = lc_profile_fail(err, errlen, "%s:%d: line longer than %zu characters", path, ln,
                                 sizeof(line) - 1);
            break;
        }
        rc = lc_profile_line(path, ln, line, prof, err, errlen);
    }
    if (rc == 0 && ferror(f)) rc = lc_profile_fail(err, errlen, "%s: read error", path);
    fclose(f);
    const unsigned need = (1u << LC_PROF_ALPHA) | (1u << LC_PROF_BETA) | (1u << LC_PROF_GAMMA);
    if (rc == 0 && (prof->have & need) != need)
        rc = lc_profile_fail(err, errlen, "%s: needs alpha, beta and gamma", path);
    return rc;
}

int lc_profile_write(FILE *f, const lc_profile_t *prof, const char *comment)
{
    for (const char *c = comment; c != NULL && *c != '\0';) {
        const char *nl = strchr(c, '\n');
        int len = nl != NULL ? (int)(nl - c) : (int)strlen(c);
        fprintf(f, "# %.*s\n", len, c);
        c += len + (nl != NULL);
    }
    if (lc_profile_has(prof, LC_PROF_NAME)) fprintf(f, "%-13s %s\n", "name", prof->name);
    for (int k = 0; k < LC_PROF_NFIGURES; k++) {
        if (lc_profile_has(prof, (lc_profile_key_t)k))
            fprintf(f, "%-13s %.6g\n", lc_profile_keys[k], prof->v[k]);
    }
    if (lc_profile_has(prof, LC_PROF_PORTS)) fprintf(f, "%-13s %d\n", "ports", prof->ports);
    return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

int lc_profile_default_path(char *out, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg != NULL && xdg[0] == '/') {
        n = snprintf(out, len, "%s/lincoll/profile", xdg);
    } else if (home != NULL && home[0] != '\0') {
        n = snprintf(out, len, "%s/.cache/lincoll/profile", home);
    } else {
        return -1;
    }
    return n > 0 && (size_t)n < len ? 0 : -1;
}
