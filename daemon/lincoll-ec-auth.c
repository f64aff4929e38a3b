/*
 * daemon/lincoll-ec-auth.c: the keys of lincoll-ecd (docs/daemon.md,
 * Security).
 *
 *   lincoll-ec-auth create --keyring FILE --id ID [--caps read|write|admin]
 *   lincoll-ec-auth list   --keyring FILE
 *   lincoll-ec-auth rotate --keyring FILE --id ID
 *   lincoll-ec-auth remove --keyring FILE --id ID [--gen G]
 *   lincoll-ec-auth export --keyring FILE --id ID --out FILE
 *
 * create adds key ID generation 1 with 32 random bytes (OpenSSL's RAND);
 * --id cluster is the daemons' key (the peer requests), any other ID a
 * client's with its capabilities (read: GET, STAT; write: and PUT; admin:
 * and REPAIR).  rotate adds generation GEN + 1 of ID; the daemons accept
 * every generation their keyring holds, so the old one keeps working until
 * `remove --gen OLD`.  export writes the newest generation of ID into a
 * client's keyring (created mode 0600, or updated).  Secrets never appear on
 * a command line or in list's output (a fingerprint does: the first 8 bytes
 * of the secret's sha256).  Exit 0, 1 (an error, one line), 2 (usage).
 */
#include "daemon/ecd.h"

#include <openssl/rand.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: lincoll-ec-auth create --keyring FILE --id ID [--caps read|write|admin]\n"
               "       lincoll-ec-auth list   --keyring FILE\n"
               "       lincoll-ec-auth rotate --keyring FILE --id ID\n"
               "       lincoll-ec-auth remove --keyring FILE --id ID [--gen G]\n"
               "       lincoll-ec-auth export --keyring FILE --id ID --out FILE\n"
               "--id cluster: the daemons' key.  docs/daemon.md, Security.\n");
}

static int die(const char *msg)
{
    fprintf(stderr, "lincoll-ec-auth: %s\n", msg);
    return 1;
}

static void fingerprint(const ecd_key_t *k, char *out)
{
    uint8_t h[32];
    ecd_sha256(k->secret, sizeof(k->secret), h);
    ecd_hex(h, 8, out);
}

int main(int argc, char **argv)
{
    const char *keyring = NULL, *id = NULL, *caps_s = NULL, *out = NULL;
    int gen = 0, o;
    static const struct option opts[] = {{"keyring", required_argument, 0, 'k'},
                                         {"id", required_argument, 0, 'i'},
                                         {"caps", required_argument, 0, 'c'},
                                         {"gen", required_argument, 0, 'g'},
                                         {"out", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
        usage(stdout);
        return 0;
    }
    optind = 2;
    while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (o == 'k')
            keyring = optarg;
        else if (o == 'i')
            id = optarg;
        else if (o == 'c')
            caps_s = optarg;
        else if (o == 'g')
            gen = atoi(optarg);
        else if (o == 'o')
            out = optarg;
        else {
            usage(o == 'h' ? stdout : stderr);
            return o == 'h' ? 0 : 2;
        }
    }
    int needs_id = strcmp(cmd, "list") != 0;
    if (optind != argc || keyring == NULL || (needs_id && id == NULL) ||
        (!strcmp(cmd, "export") && out == NULL) ||
        (strcmp(cmd, "create") && strcmp(cmd, "list") && strcmp(cmd, "rotate") &&
         strcmp(cmd, "remove") && strcmp(cmd, "export"))) {
        usage(stderr);
        return 2;
    }
    static ecd_keyring_t kr;
    char err[600], hex[17];
    struct stat st;
    if (!strcmp(cmd, "create") && stat(keyring, &st) != 0 && errno == ENOENT)
        kr.n = 0; /* a new keyring */
    else if (ecd_keyring_load(keyring, &kr, err, sizeof(err)) != 0)
        return die(err);
    if (!strcmp(cmd, "list")) {
        printf("%-24s %5s %-8s %s\n", "ID", "GEN", "CAPS", "FINGERPRINT");
        for (int i = 0; i < kr.n; i++) {
            fingerprint(&kr.key[i], hex);
            printf("%-24s %5d %-8s %s\n", kr.key[i].id, kr.key[i].gen,
                   ecd_caps_name(kr.key[i].caps), hex);
        }
        return 0;
    }
    const ecd_key_t *newest = ecd_keyring_pick(&kr, id, 1);
    if (!strcmp(cmd, "create") || !strcmp(cmd, "rotate")) {
        int create = !strcmp(cmd, "create");
        int caps = !strcmp(id, "cluster") ? ECD_CAP_ALL
                   : caps_s != NULL       ? ecd_caps_parse(caps_s)
                   : newest != NULL       ? newest->caps
                                          : -1;
        if (create && newest != NULL) {
            snprintf(err, sizeof(err), "key %s exists in %s (rotate it, or remove it first)", id,
                     keyring);
            return die(err);
        }
        if (!create && newest == NULL) {
            snprintf(err, sizeof(err), "no key %s in %s", id, keyring);
            return die(err);
        }
        if (caps < 0 || caps == ECD_CAP_ALL) {
            if (caps < 0 || strcmp(id, "cluster") != 0)
                return die("--caps read, write or admin is needed (--id cluster: the daemons' "
                           "key, no --caps)");
        }
        if (kr.n == ECD_KEYS_MAX) return die("the keyring is full");
        ecd_key_t *k = &kr.key[kr.n];
        snprintf(k->id, sizeof(k->id), "%s", id);
        k->gen = create ? 1 : newest->gen + 1;
        k->caps = caps;
        if (RAND_bytes(k->secret, sizeof(k->secret)) != 1) return die("OpenSSL RAND_bytes failed");
        /* check the ID the way a load will */
        char line[200], h2[65];
        ecd_hex(k->secret, 32, h2);
        snprintf(line, sizeof(line), "key %s %d %s %s\n", id, k->gen, ecd_caps_name(caps), h2);
        ecd_keyring_t probe;
        if (ecd_keyring_parse(line, strlen(line), &probe, err, sizeof(err)) != 0) return die(err);
        kr.n++;
        if (ecd_keyring_save(keyring, &kr, err, sizeof(err)) != 0) return die(err);
        fingerprint(k, hex);
        if (create)
            printf("created key %s/1 (%s), fingerprint %s, in %s\n", id, ecd_caps_name(caps), hex,
                   keyring);
        else
            printf("rotated key %s: generation %d added (fingerprint %s); generation %d stays "
                   "accepted until 'lincoll-ec-auth remove --keyring %s --id %s --gen %d'\n",
                   id, k->gen, hex, newest->gen, keyring, id, newest->gen);
        return 0;
    }
    if (!strcmp(cmd, "remove")) {
        int kept = 0, removed = 0;
        for (int i = 0; i < kr.n; i++) {
            if (strcmp(kr.key[i].id, id) == 0 && (gen == 0 || kr.key[i].gen == gen))
                removed++;
            else
                kr.key[kept++] = kr.key[i];
        }
        kr.n = kept;
        if (removed == 0) {
            snprintf(err, sizeof(err), "no key %s%s in %s", id, gen ? " of that generation" : "",
                     keyring);
            return die(err);
        }
        if (ecd_keyring_save(keyring, &kr, err, sizeof(err)) != 0) return die(err);
        printf("removed %d key%s %s from %s\n", removed, removed > 1 ? "s" : "", id, keyring);
        return 0;
    }
    /* export */
    if (newest == NULL) {
        snprintf(err, sizeof(err), "no key %s in %s", id, keyring);
        return die(err);
    }
    static ecd_keyring_t dst;
    ecd_key_t k = *newest;
    if (stat(out, &st) == 0) {
        if (ecd_keyring_load(out, &dst, err, sizeof(err)) != 0) return die(err);
    } else {
        dst.n = 0;
    }
    int kept = 0;
    for (int i = 0; i < dst.n; i++)
        if (strcmp(dst.key[i].id, id) != 0) dst.key[kept++] = dst.key[i];
    dst.n = kept;
    if (dst.n == ECD_KEYS_MAX) return die("the keyring is full");
    dst.key[dst.n++] = k;
    if (ecd_keyring_save(out, &dst, err, sizeof(err)) != 0) return die(err);
    printf("exported key %s/%d (%s) to %s\n", k.id, k.gen, ecd_caps_name(k.caps), out);
    return 0;
}
