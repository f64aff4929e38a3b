/*
 * test/daemon/test_ecd_unit.c: the daemon's pure parts: SHA-256 against the
 * FIPS 180-4 examples, manifests (round trip, any damaged byte refused),
 * object names, cluster files, and the chunk directory's scan and commit
 * on a real directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/ecd.h"
#include "kernels/crc/crc32c.h"

static void hexof(const void *data, size_t len, char out[65])
{
    uint8_t h[32];
    ecd_sha256(data, len, h);
    ecd_hex(h, 32, out);
}

static void test_sha256(void **state)
{
    (void)state;
    char h[65];
    hexof("", 0, h);
    assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    hexof("abc", 3, h);
    assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    hexof(two, strlen(two), h);
    assert_string_equal(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* a million 'a' fed in odd pieces equals the one-shot digest */
    char *a = malloc(1000000);
    memset(a, 'a', 1000000);
    ecd_sha256_t s;
    ecd_sha256_init(&s);
    for (size_t off = 0, step = 1; off < 1000000; off += step, step = step * 3 % 997 + 1)
        ecd_sha256_update(&s, a + off, off + step > 1000000 ? 1000000 - off : step);
    uint8_t d[32];
    ecd_sha256_final(&s, d);
    ecd_hex(d, 32, h);
    assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
    uint8_t back[32];
    assert_int_equal(ecd_unhex(h, back, 32), 0);
    assert_memory_equal(back, d, 32);
    assert_int_equal(ecd_unhex("zz", back, 1), -1);
}

/* The block function the CPU gets (SHA-NI where it has it) and the portable
 * one agree on every length around the block and padding edges and on long
 * random messages fed in uneven pieces; the FIPS digests hold for both. */
static void test_sha256_impls(void **state)
{
    (void)state;
    const size_t max = 3 * 1048576 + 77;
    uint8_t *buf = malloc(max), a[32], b[32];
    assert_non_null(buf);
    uint32_t x = 12345;
    for (size_t i = 0; i < max; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (uint8_t)(x >> 16);
    }
    print_message("sha256 block function: %s\n", ecd_sha256_impl());
    size_t lens[] = {0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4096, 65537, max};
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        ecd_sha256(buf, lens[i], a);
        ecd_sha256_portable(1);
        ecd_sha256(buf, lens[i], b);
        ecd_sha256_portable(0);
        assert_memory_equal(a, b, 32);
    }
    ecd_sha256_t s;
    ecd_sha256_init(&s);
    for (size_t off = 0, step = 1; off < max; off += step, step = step * 7 % 65521 + 1)
        ecd_sha256_update(&s, buf + off, off + step > max ? max - off : step);
    ecd_sha256_final(&s, a);
    ecd_sha256_portable(1);
    ecd_sha256(buf, max, b);
    char h[65];
    hexof("abc", 3, h);
    assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    ecd_sha256_portable(0);
    assert_memory_equal(a, b, 32);
    free(buf);
}

/* Every hash in the build (OpenSSL's EVP where found, SHA-NI where the CPU
 * has it, portable) gives the portable one's digests, one-shot and
 * streamed in uneven pieces; an abandoned hash frees its context. */
static void test_sha256_each(void **state)
{
    (void)state;
    const size_t max = 1048576 + 77;
    uint8_t *buf = malloc(max), ref[32], d[32];
    assert_non_null(buf);
    for (size_t i = 0; i < max; i++)
        buf[i] = (uint8_t)(i * 2654435761u >> 13);
    const char *impls[] = {"openssl", "sha-ni", "portable"};
    size_t lens[] = {0, 1, 63, 64, 65, 4095, 4096, 4097, 65537, max};
    int tried = 0;
    for (int t = 0; t < 3; t++) {
        if (ecd_sha256_use(impls[t]) != 0) {
            print_message("sha256 %s: not in this build or CPU\n", impls[t]);
            continue;
        }
        assert_string_equal(ecd_sha256_impl(), impls[t]);
        tried++;
        for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
            ecd_sha256(buf, lens[i], d);
            ecd_sha256_use("portable");
            ecd_sha256(buf, lens[i], ref);
            ecd_sha256_use(impls[t]);
            assert_memory_equal(d, ref, 32);
        }
        ecd_sha256_t s;
        ecd_sha256_init(&s);
        for (size_t off = 0, step = 1; off < max; off += step, step = step * 5 % 40009 + 1)
            ecd_sha256_update(&s, buf + off, off + step > max ? max - off : step);
        ecd_sha256_final(&s, d);
        assert_memory_equal(d, ref, 32);
        ecd_sha256_init(&s);
        ecd_sha256_update(&s, buf, 100000);
        ecd_sha256_drop(&s); /* valgrind: nothing leaks */
    }
    assert_true(tried >= 1);
    assert_int_equal(ecd_sha256_use("md5"), -1);
    ecd_sha256_use(NULL);
    free(buf);
}

static ecd_manifest_t sample(void)
{
    ecd_manifest_t m = {.size = 1000001, .k = 4, .m = 2, .chunk = 250001};
    snprintf(m.name, sizeof(m.name), "some-object_1.bin");
    snprintf(m.op, sizeof(m.op), "n0-1-2-3");
    for (int i = 0; i < 32; i++)
        m.sha[i] = (uint8_t)(i * 7);
    for (int r = 0; r < 6; r++) {
        m.node[r] = (r + 2) % 6;
        m.crc[r] = 0x1000u * (uint32_t)r + 0xabu;
    }
    return m;
}

static void test_manifest(void **state)
{
    (void)state;
    ecd_manifest_t m = sample(), b;
    char text[ECD_MANIFEST_MAX], err[128];
    int len = ecd_manifest_format(&m, text, sizeof(text));
    assert_true(len > 0);
    assert_int_equal(ecd_manifest_parse(text, (size_t)len, &b, err, sizeof(err)), 0);
    assert_string_equal(b.name, m.name);
    assert_true(b.size == m.size && b.chunk == m.chunk && b.k == 4 && b.m == 2);
    assert_memory_equal(b.sha, m.sha, 32);
    assert_memory_equal(b.node, m.node, sizeof(int) * 6);
    assert_memory_equal(b.crc, m.crc, sizeof(uint32_t) * 6);
    int rows[ECD_MAX_NODES];
    assert_int_equal(ecd_manifest_rows_of(&m, 2, rows), 1);
    assert_int_equal(rows[0], 0);
    /* every single damaged byte is refused */
    for (int i = 0; i < len; i++) {
        char bad[ECD_MANIFEST_MAX];
        memcpy(bad, text, (size_t)len);
        bad[i] ^= 0x20;
        if (ecd_manifest_parse(bad, (size_t)len, &b, err, sizeof(err)) == 0)
            fail_msg("byte %d ('%c' -> '%c') damaged, the manifest still parsed", i, text[i],
                     bad[i]);
    }
    /* truncated */
    assert_int_not_equal(ecd_manifest_parse(text, (size_t)len / 2, &b, err, sizeof(err)), 0);
    assert_int_not_equal(ecd_manifest_parse("", 0, &b, err, sizeof(err)), 0);
    /* one stripe: no stripe line, parsed back as stripe == chunk */
    assert_null(strstr(text, "stripe"));
    assert_true(b.stripe == 0 || b.stripe == m.chunk);
    assert_int_equal(ecd_manifest_parse(text, (size_t)len, &b, err, sizeof(err)), 0);
    assert_true(b.stripe == m.chunk);
}

/* Stripes: the manifest keeps the width; the layout places every object
 * byte exactly once, stripe by stripe, and one stripe is the plain layout. */
static void test_stripes(void **state)
{
    (void)state;
    ecd_manifest_t m = sample(), b;
    m.stripe = 65536;
    char text[ECD_MANIFEST_MAX], err[128];
    int len = ecd_manifest_format(&m, text, sizeof(text));
    assert_true(len > 0);
    assert_non_null(strstr(text, "stripe 65536\n"));
    assert_int_equal(ecd_manifest_parse(text, (size_t)len, &b, err, sizeof(err)), 0);
    assert_true(b.stripe == 65536);
    for (int i = 0; i < len; i++) {
        char bad[ECD_MANIFEST_MAX];
        memcpy(bad, text, (size_t)len);
        bad[i] ^= 0x20;
        assert_int_not_equal(ecd_manifest_parse(bad, (size_t)len, &b, err, sizeof(err)), 0);
    }
    /* a width above the chunk, zero or not a number is refused even with a good check */
    const char *widths[] = {"250002", "0", "12x"};
    for (int v = 0; v < 3; v++) {
        char t2[ECD_MANIFEST_MAX], *at = strstr(text, "stripe 65536\n"),
                                   *chk = strstr(text, "check ");
        int n = snprintf(t2, sizeof(t2), "%.*sstripe %s\n%.*s", (int)(at - text), text, widths[v],
                         (int)(chk - at - 13), at + 13);
        n += snprintf(t2 + n, sizeof(t2) - (size_t)n, "check %08x\n", lc_crc32c(0, t2, (size_t)n));
        assert_int_not_equal(ecd_manifest_parse(t2, (size_t)n, &b, err, sizeof(err)), 0);
    }
    const uint64_t chunks[] = {1, 7, 64, 1000, 4096, 250001};
    const uint64_t stripes[] = {1, 3, 64, 1000, 4096, 1 << 20};
    for (size_t ci = 0; ci < 6; ci++) {
        for (size_t si = 0; si < 6; si++) {
            uint64_t chunk = chunks[ci], st = stripes[si] < chunk ? stripes[si] : chunk;
            if (chunk * 4 > 300000) continue;
            for (int k = 1; k <= 4; k += 3) {
                uint64_t total = chunk * (uint64_t)k, n = ecd_stripe_count(chunk, st), at = 0;
                uint8_t *seen = calloc(total, 1);
                assert_non_null(seen);
                assert_true(n == (chunk + st - 1) / st);
                for (uint64_t s = 0; s < n; s++) {
                    uint64_t w = ecd_stripe_width(chunk, st, s);
                    assert_true(w >= 1 && w <= st);
                    assert_true(ecd_stripe_offset(k, st, s) == at);
                    for (int j = 0; j < k; j++)
                        for (uint64_t i = 0; i < w; i++) {
                            uint64_t off = at + (uint64_t)j * w + i;
                            assert_true(off < total && !seen[off]);
                            seen[off] = 1;
                            /* one stripe: row j holds [j * chunk, (j + 1) * chunk) */
                            if (n == 1) assert_true(off == (uint64_t)j * chunk + s * st + i);
                        }
                    at += (uint64_t)k * w;
                }
                assert_true(at == total);
                assert_true(ecd_stripe_width(chunk, st, n) == 0);
                free(seen);
            }
        }
    }
}

static void test_names(void **state)
{
    (void)state;
    assert_true(ecd_name_ok("a"));
    assert_true(ecd_name_ok("obj-1.part_2"));
    assert_false(ecd_name_ok(""));
    assert_false(ecd_name_ok(".hidden"));
    assert_false(ecd_name_ok("../x"));
    assert_false(ecd_name_ok("a b"));
    char longname[200];
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    assert_false(ecd_name_ok(longname));
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_cluster(void **state)
{
    (void)state;
    char dir[] = "/tmp/ecd_unit.XXXXXX", path[64], err[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/cluster", dir);
    ecd_cluster_t cl;
    write_text(path, "# a comment\ncode 2 1\nnode 0 127.0.0.1:1000\nnode 2 h:3\nnode 1 x:2\n");
    assert_int_equal(ecd_cluster_load(path, &cl, err, sizeof(err)), 0);
    assert_int_equal(cl.n, 3);
    assert_string_equal(cl.addr[2], "h:3");
    write_text(path, "code 2 1\nnode 0 a:1\nnode 1 b:2\n");
    assert_int_equal(ecd_cluster_load(path, &cl, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "node 2"));
    /* more nodes than a stripe: ids 0..N-1, none missing */
    write_text(path, "code 2 1\nnode 0 a:1\nnode 1 b:2\nnode 2 c:3\nnode 3 d:4\nnode 4 e:5\n");
    assert_int_equal(ecd_cluster_load(path, &cl, err, sizeof(err)), 0);
    assert_int_equal(cl.n, 5);
    write_text(path, "code 2 1\nnode 0 a:1\nnode 1 b:2\nnode 2 c:3\nnode 4 e:5\n");
    assert_int_equal(ecd_cluster_load(path, &cl, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "node 3"));
    write_text(path, "code 2 1\nnode 0 a\n");
    assert_int_equal(ecd_cluster_load(path, &cl, err, sizeof(err)), -1);
    write_text(path, "nonsense\n");
    assert_int_equal(ecd_cluster_load(path, &cl, err, sizeof(err)), -1);
    assert_int_equal(ecd_cluster_load("/nonexistent/cluster", &cl, err, sizeof(err)), -1);
    unlink(path);
    rmdir(dir);
}

static void test_disk(void **state)
{
    (void)state;
    char dir[] = "/tmp/ecd_unit.XXXXXX", cmd[128];
    assert_non_null(mkdtemp(dir));
    ecd_disk_t d;
    assert_int_equal(ecd_disk_open(&d, dir, 2), 0);
    ecd_manifest_t m = sample();
    m.chunk = 1000;
    m.size = 3000;
    uint8_t chunk[1000];
    for (int i = 0; i < 1000; i++)
        chunk[i] = (uint8_t)(i * 13);
    m.crc[0] = lc_crc32c(0, chunk, sizeof(chunk)); /* row 0 is on node 2 */
    char tmp[1][600];
    int row = 0;
    assert_int_equal(
        ecd_disk_write_temp(&d, m.op, m.name, 0, chunk, sizeof(chunk), tmp[0], sizeof(tmp[0])), 0);
    assert_false(ecd_disk_has(&d, m.name)); /* not before the commit */
    assert_int_equal(ecd_disk_commit(&d, &m, tmp, &row, 1), 0);
    assert_true(ecd_disk_has(&d, m.name));
    uint8_t back[1000];
    assert_int_equal(ecd_disk_read_chunk(&d, &m, 0, back), ECD_CHUNK_OK);
    assert_memory_equal(back, chunk, sizeof(chunk));
    /* a flipped byte is caught */
    char cpath[700];
    snprintf(cpath, sizeof(cpath), "%s/chunks/%s.0", dir, m.name);
    FILE *f = fopen(cpath, "r+b");
    fseek(f, 500, SEEK_SET);
    fputc(chunk[500] ^ 1, f);
    fclose(f);
    assert_int_equal(ecd_disk_read_chunk(&d, &m, 0, back), ECD_CHUNK_CORRUPT);
    /* reopen over stray and damaged files */
    snprintf(cpath, sizeof(cpath), "%s/tmp/op.x.1", dir);
    write_text(cpath, "partial");
    snprintf(cpath, sizeof(cpath), "%s/chunks/ghost.3", dir);
    write_text(cpath, "orphan");
    snprintf(cpath, sizeof(cpath), "%s/objects/broken.mf", dir);
    write_text(cpath, "lincoll-ecd manifest 1\nname broken\n");
    ecd_disk_t d2;
    assert_int_equal(ecd_disk_open(&d2, dir, 2), 0);
    assert_int_equal(d2.scan_objects, 1);
    assert_int_equal(d2.scan_corrupt, 1);
    assert_int_equal(d2.scan_temps, 1);
    assert_int_equal(d2.scan_orphans, 1);
    assert_int_equal(d2.scan_bad_manifests, 1);
    assert_false(ecd_disk_has(&d2, "broken"));
    char **names;
    int n = ecd_disk_list(&d2, &names);
    assert_int_equal(n, 1);
    assert_string_equal(names[0], m.name);
    free(names[0]);
    free(names);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* A chunk streamed to its temporary in uneven pieces across the write-back
 * (4 MiB) and durability (16 MiB) steps reads back whole after the commit;
 * a dropped temporary leaves nothing behind. */
static void test_temp_stream(void **state)
{
    (void)state;
    char dir[] = "/tmp/ecd_unit.XXXXXX", cmd[128], path[700];
    assert_non_null(mkdtemp(dir));
    ecd_disk_t d;
    assert_int_equal(ecd_disk_open(&d, dir, 2), 0);
    const size_t len = (37u << 20) / 2 + 12345, piece = 777777;
    uint8_t *buf = malloc(len), *back = malloc(len);
    assert_non_null(buf);
    assert_non_null(back);
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(i * 2654435761u >> 13);
    ecd_manifest_t m = sample();
    m.chunk = len;
    m.stripe = piece;
    m.size = len * 4;
    m.node[1] = 2;
    m.crc[1] = lc_crc32c(0, buf, len);
    ecd_temp_t t;
    assert_int_equal(ecd_temp_open(&d, m.op, m.name, 1, &t), 0);
    uint32_t crc = 0;
    for (size_t at = 0; at < len; at += piece) {
        size_t n = len - at < piece ? len - at : piece;
        crc = lc_crc32c(crc, buf + at, n);
        assert_int_equal(ecd_temp_append(&t, buf + at, n), 0);
    }
    assert_true(crc == m.crc[1]); /* the crc of the pieces is the chunk's */
    assert_true(t.written == len);
    assert_true(t.started == len / (4u << 20) * (4u << 20));
    char tmp[1][600];
    assert_int_equal(ecd_temp_finish(&t, tmp[0], sizeof(tmp[0])), 0);
    assert_true(t.fd < 0);
    ecd_temp_drop(&t); /* harmless once finished */
    struct stat sb;
    assert_int_equal(stat(tmp[0], &sb), 0);
    assert_true((size_t)sb.st_size == len);
    int row = 1;
    assert_int_equal(ecd_disk_commit(&d, &m, tmp, &row, 1), 0);
    assert_int_equal(ecd_disk_read_chunk(&d, &m, 1, back), ECD_CHUNK_OK);
    assert_memory_equal(back, buf, len);
    /* an aborted stream: the temporary goes away */
    assert_int_equal(ecd_temp_open(&d, "n0-9-9-9", "other", 0, &t), 0);
    assert_int_equal(ecd_temp_append(&t, buf, 5u << 20), 0);
    snprintf(path, sizeof(path), "%s", t.path);
    assert_int_equal(stat(path, &sb), 0);
    ecd_temp_drop(&t);
    assert_int_not_equal(stat(path, &sb), 0);
    /* a directory that cannot take it: a clear failure, no descriptor */
    snprintf(cmd, sizeof(cmd), "rm -rf %s/tmp", dir);
    assert_int_equal(system(cmd), 0);
    assert_int_not_equal(ecd_temp_open(&d, m.op, "third", 0, &t), 0);
    assert_true(t.fd < 0);
    free(buf);
    free(back);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256),      cmocka_unit_test(test_sha256_impls),
        cmocka_unit_test(test_sha256_each), cmocka_unit_test(test_manifest),
        cmocka_unit_test(test_stripes),     cmocka_unit_test(test_names),
        cmocka_unit_test(test_cluster),     cmocka_unit_test(test_disk),
        cmocka_unit_test(test_temp_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
