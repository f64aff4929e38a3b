/*
 * deploy/examples/lincoll_ec_file.c: erasure-code a file across N ranks,
 * lose one rank's shard and rebuild it, checked by SHA-256.
 *
 *   lincoll-run -n 4 ./lincoll_ec_file --file README.md [--parity m] [--lose r]
 *               [--out path] [--chunk bytes] [--reps n] [--ports p]
 *
 * A systematic Reed-Solomon code RS(k, m) over GF(2^8) (Cauchy generator,
 * ISA-L compatible) with k = N - m data ranks and m parity ranks (default
 * m = 1: RS(3,1) on 4 ranks).  The file is cut into stripes of k chunks;
 * data rank j holds chunk j of every stripe (its shard; each reads its own
 * slices of the file, a shared file system on one host), parity rank k + i
 * receives parity chunk i of every stripe from one persistent encode plan.
 * Then rank --lose (default 1) loses its shard (wiped), and a repair plan
 * rebuilds it from the first k other ranks.  Finally rank 0 reassembles the
 * file from the k data shards (one allgather per stripe), writes it to
 * --out when given, and compares its SHA-256 with the original's; the lost
 * rank's shard is compared with the digest it had before the loss.
 *
 * Every plan is started --reps times (default 20; encode and repair give
 * the same bytes every time); rank 0 prints, per plan, the median time of
 * one start (the slowest rank's median) beside the plan's cost-model
 * prediction (lincoll_plan_stats().predicted_us).  Exit status 0 when the
 * reassembled file and the rebuilt shard are byte-identical, 1 when they are
 * not or a plan failed, 2 for bad arguments.
 */
#include <lincoll/lincoll.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- SHA-256 (FIPS 180-4) --------------------------------------------------------- */

typedef struct sha256 {
    uint32_t h[8];
    uint64_t bytes;
    uint8_t block[64];
    size_t fill;
} sha256_t;

static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t ror32(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

static void sha256_init(sha256_t *s)
{
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, h0, sizeof(h0));
    s->bytes = 0;
    s->fill = 0;
}

static void sha256_block(sha256_t *s, const uint8_t *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
    uint32_t e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25)) + ((e & f) ^ (~e & g)) +
                      sha256_k[i] + w[i];
        uint32_t t2 = (ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g, g = f, f = e, e = d + t1;
        d = c, c = b, b = a, a = t1 + t2;
    }
    s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
    s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

static void sha256_update(sha256_t *s, const void *data, size_t n)
{
    const uint8_t *p = data;
    s->bytes += n;
    while (n > 0) {
        size_t take = 64 - s->fill < n ? 64 - s->fill : n;
        memcpy(s->block + s->fill, p, take);
        s->fill += take, p += take, n -= take;
        if (s->fill == 64) {
            sha256_block(s, s->block);
            s->fill = 0;
        }
    }
}

static void sha256_final(sha256_t *s, uint8_t out[32])
{
    uint64_t bits = s->bytes * 8;
    uint8_t pad[72] = {0x80};
    size_t npad = (s->fill < 56 ? 56 : 120) - s->fill;
    for (int i = 0; i < 8; i++)
        pad[npad + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
    sha256_update(s, pad, npad + 8);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++)
            out[4 * i + j] = (uint8_t)(s->h[i] >> (24 - 8 * j));
}

static void hex32(const uint8_t d[32], char out[65])
{
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* ---- helpers ------------------------------------------------------------------------ */

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e6 * (double)t.tv_sec + 1e-3 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* a non-negative integer with an optional k/m suffix; -1 when malformed */
static long long parse_num(const char *s)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || v < 0) return -1;
    if (*end == 'k' || *end == 'K') v <<= 10, end++;
    if (*end == 'm' || *end == 'M') v <<= 20, end++;
    return *end == '\0' ? v : -1;
}

/* bytes [off, off + n) of the file into buf, zeros past its end; -1 on a read error */
static int read_slice(int fd, uint64_t off, uint8_t *buf, size_t n)
{
    memset(buf, 0, n);
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        got += (size_t)r;
    }
    return 0;
}

/* Runs `plan` reps x stripes times: before each start copy_in moves this
 * rank's shard chunk into `in` (when `give`), after the wait the result is
 * copied into the shard (when `take`).  *median_us: the median of one start
 * on the slowest rank.  Returns the plan's status (the same on all ranks
 * unless one failed). */
static lincoll_status_t run_plan(lincoll_comm_t *w, lincoll_plan_t *plan, int reps, int stripes,
                                 uint8_t *shard, size_t chunk, uint8_t *in, int give,
                                 const uint8_t *out, int take, double *median_us)
{
    size_t n = (size_t)reps * (size_t)stripes;
    double *t = malloc(sizeof(double) * n);
    lincoll_status_t st = t != NULL ? LINCOLL_OK : LINCOLL_ERR_NOMEM;
    for (size_t i = 0; i < n && st == LINCOLL_OK; i++) {
        size_t s = i % (size_t)stripes;
        if (give) memcpy(in, shard + s * chunk, chunk);
        double t0 = now_us();
        st = lincoll_start(plan);
        if (st == LINCOLL_OK) st = lincoll_wait(plan);
        t[i] = now_us() - t0;
        if (st == LINCOLL_OK && take) memcpy(shard + s * chunk, out, chunk);
    }
    double med = 0;
    if (st == LINCOLL_OK) {
        qsort(t, n, sizeof(double), cmp_double);
        med = t[n / 2];
    }
    free(t);
    if (st != LINCOLL_OK) return st;
    return lincoll_allreduce(w, &med, median_us, 1, LINCOLL_DOUBLE, LINCOLL_MAX);
}

static void usage(void)
{
    fprintf(stderr, "usage: lincoll-run -n N lincoll_ec_file --file PATH [--parity m] [--lose r] "
                    "[--out PATH] [--chunk bytes] [--reps n] [--ports p]\n");
}

int main(int argc, char **argv)
{
    const char *path = NULL, *out_path = NULL;
    long long m = 1, lose = 1, chunk_opt = 0, reps = 20, ports = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long long *num = !strcmp(a, "--parity")  ? &m
                         : !strcmp(a, "--lose")  ? &lose
                         : !strcmp(a, "--chunk") ? &chunk_opt
                         : !strcmp(a, "--reps")  ? &reps
                         : !strcmp(a, "--ports") ? &ports
                                                 : NULL;
        if (v != NULL && !strcmp(a, "--file")) {
            path = v, i++;
        } else if (v != NULL && !strcmp(a, "--out")) {
            out_path = v, i++;
        } else if (v != NULL && num != NULL) {
            *num = parse_num(v), i++;
            if (*num < 0) {
                fprintf(stderr, "lincoll_ec_file: bad value for %s: %s\n", a, v);
                return 2;
            }
        } else {
            fprintf(stderr, "lincoll_ec_file: unknown or incomplete option %s\n", a);
            usage();
            return 2;
        }
    }
    if (path == NULL) {
        fprintf(stderr, "lincoll_ec_file: --file is required\n");
        usage();
        return 2;
    }
    if (reps < 1 || reps > 100000 || ports > 64 || chunk_opt > (1ll << 30)) {
        fprintf(stderr, "lincoll_ec_file: --reps (1..100000), --ports (0..64) or --chunk "
                        "(up to 1 GiB) out of range\n");
        return 2;
    }
    lincoll_context_t *ctx;
    lincoll_comm_t *w;
    lincoll_status_t st = lincoll_init(NULL, &ctx);
    if (st != LINCOLL_OK) {
        fprintf(stderr, "lincoll_ec_file: lincoll_init: %s\n", lincoll_strerror(st));
        return 1;
    }
    lincoll_comm_world(ctx, &w);
    const int me = lincoll_comm_rank(w), N = lincoll_comm_size(w);
    const int k = N - (int)m;
    if (m < 1 || k < 1 || N > 256 || lose >= N) {
        if (me == 0)
            fprintf(stderr,
                    "lincoll_ec_file: need 1 <= --parity < N <= 256 and --lose < N (N = %d, "
                    "parity %lld, lose %lld)\n",
                    N, m, lose);
        lincoll_finalize(ctx);
        return 2;
    }

    /* rank 0 reads the file's size and digest; every rank learns both (hdr) */
    uint8_t hdr[48] = {0}; /* size (8 bytes), SHA-256 (32), status (1) */
    if (me == 0) {
        int fd = open(path, O_RDONLY);
        uint64_t size = 0;
        sha256_t sh;
        sha256_init(&sh);
        uint8_t buf[65536];
        ssize_t r = fd < 0 ? -1 : 0;
        while (fd >= 0 && (r = read(fd, buf, sizeof(buf))) > 0) {
            sha256_update(&sh, buf, (size_t)r);
            size += (uint64_t)r;
        }
        if (fd < 0 || r < 0) {
            fprintf(stderr, "lincoll_ec_file: cannot read --file %s: %s\n", path, strerror(errno));
            hdr[40] = 1;
        }
        if (fd >= 0) close(fd);
        memcpy(hdr, &size, 8);
        sha256_final(&sh, hdr + 8);
    }
    st = lincoll_bcast(w, hdr, sizeof(hdr), LINCOLL_BYTE, 0);
    if (st != LINCOLL_OK || hdr[40] != 0) {
        if (st != LINCOLL_OK)
            fprintf(stderr, "lincoll_ec_file: rank %d: bcast: %s\n", me, lincoll_strerror(st));
        lincoll_finalize(ctx);
        return st != LINCOLL_OK ? 1 : 2;
    }
    uint64_t size;
    memcpy(&size, hdr, 8);

    /* geometry: stripes of k chunks; by default one stripe up to k MiB */
    uint64_t per = (size + (uint64_t)k - 1) / (uint64_t)k;
    size_t chunk = chunk_opt > 0 ? (size_t)chunk_opt : (size_t)(per < (1u << 20) ? per : 1u << 20);
    chunk = (chunk + 63) / 64 * 64;
    if (chunk == 0) chunk = 64;
    uint64_t stripes64 = (size + (uint64_t)k * chunk - 1) / ((uint64_t)k * chunk);
    int stripes = stripes64 > 0 ? (int)stripes64 : 1;

    int fd = me < k ? open(path, O_RDONLY) : -1;
    uint8_t *shard = malloc((size_t)stripes * chunk), *all = malloc((size_t)N * chunk);
    uint8_t *in = NULL, *out = NULL;
    lincoll_mem_alloc(ctx, chunk, (void **)&in); /* registered: zero-copy transfers */
    lincoll_mem_alloc(ctx, chunk, (void **)&out);
    int ok = shard != NULL && all != NULL && in != NULL && out != NULL && (me >= k || fd >= 0);
    if (shard != NULL) memset(shard, 0, (size_t)stripes * chunk);
    for (int s = 0; ok && me < k && s < stripes; s++) {
        uint64_t off = ((uint64_t)s * (uint64_t)k + (uint64_t)me) * chunk;
        ok = read_slice(fd, off, shard + (size_t)s * chunk, chunk) == 0;
    }
    if (fd >= 0) close(fd);
    if (!ok) fprintf(stderr, "lincoll_ec_file: rank %d: cannot load its shard\n", me);

    lincoll_field_t *gf = NULL;
    lincoll_plan_t *enc = NULL, *rep = NULL;
    lincoll_encode_opts_t o = {.ports = (int)ports};
    int lost = (int)lose, surv[256], ns = 0;
    for (int j = 0; j < N && ns < k; j++)
        if (j != lost) surv[ns++] = j;
    st = lincoll_gf_field_create(256, &gf);
    if (st == LINCOLL_OK)
        st = lincoll_encode_rs_init(w, gf, k, LINCOLL_GF_RS_CAUCHY, NULL, chunk, in, out, &o, &enc);
    if (st == LINCOLL_OK)
        st = lincoll_encode_repair_init(w, gf, k, LINCOLL_GF_RS_CAUCHY, NULL, surv, 1, &lost, chunk,
                                        in, out, &o, &rep);
    /* agree that every rank is ready (loaded, plans built) */
    int fine = ok && st == LINCOLL_OK, all_fine = 0;
    lincoll_status_t ast = lincoll_allreduce(w, &fine, &all_fine, 1, LINCOLL_INT32, LINCOLL_MIN);
    if (st != LINCOLL_OK)
        fprintf(stderr, "lincoll_ec_file: rank %d: plans: %s\n", me, lincoll_strerror(st));
    int rc = 1;
    if (ast != LINCOLL_OK || !all_fine) goto out;

    /* encode: data ranks give their chunk, parity ranks keep the result */
    double enc_us = 0, rep_us = 0;
    st = run_plan(w, enc, (int)reps, stripes, shard, chunk, in, me < k, out, me >= k, &enc_us);
    if (st != LINCOLL_OK) goto fail;

    /* every rank's digest of its shard; then the lost rank's disk is gone */
    uint8_t dig[64] = {0}; /* before the loss, after the repair */
    sha256_t sh;
    sha256_init(&sh);
    sha256_update(&sh, shard, (size_t)stripes * chunk);
    sha256_final(&sh, dig);
    if (me == lost) memset(shard, 0, (size_t)stripes * chunk);

    /* repair: the survivors give their chunk, the lost rank keeps the rebuilt one */
    int survivor = 0;
    for (int j = 0; j < ns; j++)
        survivor |= surv[j] == me;
    st = run_plan(w, rep, (int)reps, stripes, shard, chunk, in, survivor, out, me == lost, &rep_us);
    if (st != LINCOLL_OK) goto fail;
    sha256_init(&sh);
    sha256_update(&sh, shard, (size_t)stripes * chunk);
    sha256_final(&sh, dig + 32);
    st = lincoll_bcast(w, dig, sizeof(dig), LINCOLL_BYTE, lost);
    if (st != LINCOLL_OK) goto fail;

    /* reassemble on rank 0 from the data shards (chunk j of a stripe is data rank j's) */
    FILE *of = NULL;
    if (me == 0 && out_path != NULL && (of = fopen(out_path, "wb")) == NULL)
        fprintf(stderr, "lincoll_ec_file: cannot write --out %s: %s\n", out_path, strerror(errno));
    sha256_t fsh;
    sha256_init(&fsh);
    uint64_t left = size;
    int wrote = of != NULL || out_path == NULL;
    for (int s = 0; s < stripes && st == LINCOLL_OK; s++) {
        st = lincoll_allgather(w, shard + (size_t)s * chunk, all, chunk, LINCOLL_BYTE);
        size_t n = (size_t)k * chunk < left ? (size_t)k * chunk : (size_t)left;
        if (st == LINCOLL_OK && me == 0) {
            sha256_update(&fsh, all, n);
            if (of != NULL && fwrite(all, 1, n, of) != n) wrote = 0;
        }
        left -= n;
    }
    if (of != NULL && fclose(of) != 0) wrote = 0;
    if (st != LINCOLL_OK) goto fail;

    rc = 0;
    if (me == 0) {
        lincoll_plan_stats_t es, rs;
        lincoll_plan_stats(enc, &es);
        lincoll_plan_stats(rep, &rs);
        uint8_t got[32];
        sha256_final(&fsh, got);
        char h_orig[65], h_got[65], h_before[65], h_after[65];
        hex32(hdr + 8, h_orig), hex32(got, h_got), hex32(dig, h_before), hex32(dig + 32, h_after);
        int same_file = memcmp(got, hdr + 8, 32) == 0, same_shard = memcmp(dig, dig + 32, 32) == 0;
        char dr[32], pr[32];
        if (k > 1)
            snprintf(dr, sizeof(dr), "ranks 0-%d", k - 1);
        else
            snprintf(dr, sizeof(dr), "rank 0");
        if (N - k > 1)
            snprintf(pr, sizeof(pr), "ranks %d-%d", k, N - 1);
        else
            snprintf(pr, sizeof(pr), "rank %d", k);
        printf("lincoll_ec_file: %s, %llu bytes, on %d ranks: RS(%d,%lld) over GF(2^8), Cauchy "
               "generator: %s data, %s parity; %d stripe%s of %d x %zu bytes\n",
               path, (unsigned long long)size, N, k, m, dr, pr, stripes, stripes > 1 ? "s" : "", k,
               chunk);
        printf("+--------+----------------+--------+------------+----------------+------------"
               "----+----------+\n"
               "| plan   | algorithm      | rounds |   C2 bytes | measured (us)  | predicted "
               "(us) | ratio    |\n"
               "+--------+----------------+--------+------------+----------------+------------"
               "----+----------+\n");
        const struct {
            const char *name;
            const lincoll_plan_stats_t *s;
            double us;
        } rows[2] = {{"encode", &es, enc_us}, {"repair", &rs, rep_us}};
        for (int i = 0; i < 2; i++)
            printf("| %-6s | %-14s | %6u | %10llu | %14.2f | %14.2f | %8.2f |\n", rows[i].name,
                   rows[i].s->algorithm, rows[i].s->rounds, (unsigned long long)rows[i].s->c2_bytes,
                   rows[i].us, rows[i].s->predicted_us,
                   rows[i].s->predicted_us > 0 ? rows[i].us / rows[i].s->predicted_us : 0.0);
        printf("(measured: median of %lld x %d starts of one plan, on its slowest rank; predicted: "
               "lincoll_plan_stats().predicted_us)\n",
               reps, stripes);
        printf("rank %d lost its shard and rebuilt it from ranks", lost);
        for (int j = 0; j < ns; j++)
            printf("%s%d", j ? "," : " ", surv[j]);
        printf(": shard sha256 %.16s... before, %.16s... after: %s\n", h_before, h_after,
               same_shard ? "identical" : "DIFFERENT");
        printf("original     sha256 %s  %s\n", h_orig, path);
        printf("reassembled  sha256 %s  %s\n", h_got, out_path != NULL ? out_path : "(memory)");
        printf("lincoll_ec_file: %s\n",
               same_file && same_shard ? "OK: the reassembled file is identical to the original"
                                       : "FAILED: the file did not come back intact");
        if (!wrote) fprintf(stderr, "lincoll_ec_file: writing %s failed\n", out_path);
        rc = same_file && same_shard && wrote ? 0 : 1;
    }
    fflush(stdout);
    goto out;
fail:
    fprintf(stderr, "lincoll_ec_file: rank %d: %s\n", me, lincoll_strerror(st));
    rc = 1;
out:
    lincoll_plan_free(enc);
    lincoll_plan_free(rep);
    lincoll_gf_field_destroy(gf);
    lincoll_mem_free(ctx, in);
    lincoll_mem_free(ctx, out);
    free(shard);
    free(all);
    lincoll_finalize(ctx);
    return rc;
}
