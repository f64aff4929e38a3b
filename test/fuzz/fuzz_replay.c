/*
 * test/fuzz/fuzz_replay.c: runs a fuzz target's LLVMFuzzerTestOneInput over
 * every file of the given directories (the kept corpus and the crash
 * regression inputs), so they replay as ordinary tests with any compiler.
 *   fuzz_replay_<target> DIR...
 * Exit status 0 when every input ran (a crash or sanitizer report fails it);
 * an empty or missing directory list fails too (no silent skip).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz/fuzz.h"

/* Outside the sanitizers, every allocation above 1 GiB aborts the replay: the
 * largest legitimate one is a 256 MiB store reply, so a bigger request means
 * a length from outside reached malloc() unchecked (libFuzzer reports these
 * as out-of-memory; a plain build would just try). */
#if defined(__SANITIZE_ADDRESS__)
#define LC_REPLAY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LC_REPLAY_ASAN 1
#endif
#endif
#ifndef LC_REPLAY_ASAN
#include <unistd.h>
#define LC_REPLAY_CAP ((size_t)1 << 30)
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static void lc_replay_too_big(size_t n)
{
    char msg[96];
    int len = snprintf(msg, sizeof(msg), "fuzz_replay: allocation of %zu bytes (> 1 GiB)\n", n);
    ssize_t w = write(2, msg, (size_t)len);
    (void)w;
    abort();
}

void *malloc(size_t n)
{
    if (n > LC_REPLAY_CAP) lc_replay_too_big(n);
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
    if (m != 0 && n > LC_REPLAY_CAP / m) lc_replay_too_big(n * m);
    return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
    if (n > LC_REPLAY_CAP) lc_replay_too_big(n);
    return __libc_realloc(p, n);
}
#endif

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf == NULL || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
        fclose(f);
        free(buf);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)n);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0;
    for (int i = 1; i < argc; i++) {
        DIR *d = opendir(argv[i]);
        if (d == NULL) {
            fprintf(stderr, "fuzz_replay: cannot open %s\n", argv[i]);
            return 1;
        }
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            char path[4096];
            snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
            struct stat st;
            if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
            if (replay_file(path) != 0) {
                fprintf(stderr, "fuzz_replay: cannot read %s\n", path);
                closedir(d);
                return 1;
            }
            files++;
        }
        closedir(d);
    }
    printf("fuzz_replay: %d inputs replayed\n", files);
    return files > 0 ? 0 : 1;
}
