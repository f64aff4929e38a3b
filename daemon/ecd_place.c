/*
 * daemon/ecd_place.c: where an object lives, for the daemons and for the
 * client alike (lincoll-ec -c routes each request to its object's owner).
 */
#include "daemon/ecd.h"

#include <stdint.h>

/* Rendezvous (highest random weight) hashing: node i's weight for a name is
 * a 64-bit mix of the name's FNV-1a hash and i; an object lives on the k + m
 * nodes of highest weight.  Adding or removing a node moves only the objects
 * whose top k + m it enters or leaves. */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 14695981039346656037ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

void placement(const char *name, int nnodes, int width, int *out)
{
    uint64_t h = name_hash(name), wt[ECD_MAX_NODES];
    int idx[ECD_MAX_NODES];
    for (int i = 0; i < nnodes; i++) {
        wt[i] = mix64(h ^ mix64((uint64_t)i + 1));
        idx[i] = i;
    }
    for (int i = 1; i < nnodes; i++) /* by weight, highest first (n <= 32) */
        for (int j = i; j > 0 && wt[idx[j]] > wt[idx[j - 1]]; j--) {
            int t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    for (int i = 0; i < width && i < nnodes; i++)
        out[i] = idx[i];
}
