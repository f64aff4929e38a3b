/*
 * test/coll/coll_expect.c: see coll_expect.h.
 */
#include "coll/coll_expect.h"

#include <stdlib.h>

typedef struct xf {
    int P, k, r, s;
} xf_t;

static xf_t xfold(int p, int s)
{
    xf_t f = {1, 0, 0, s};
    while (2 * f.P <= p) {
        f.P *= 2;
        f.k++;
    }
    f.r = p - f.P;
    return f;
}
static int xvrank(const xf_t *f, int x)
{
    if (x < 2 * f->r) return (x & 1) == f->s ? x / 2 : -1;
    return x - f->r;
}
static int xshift(int p, int root)
{
    xf_t f = xfold(p, 0);
    return (root < 2 * f.r && (root & 1)) ? 1 : 0;
}
static int bitrev(int v, int k)
{
    int o = 0;
    for (int i = 0; i < k; i++) {
        o = (o << 1) | (v & 1);
        v >>= 1;
    }
    return o;
}
static int tz(int u)
{
    int t = 0;
    while (!(u & 1)) {
        u >>= 1;
        t++;
    }
    return t;
}
static int W(int x, int size)
{
    return x - x % size;
}
/* segments of n over P: sum of [lo, lo+w) */
static uint64_t cs(size_t n, int P, int lo, int w)
{
    size_t q = n / (size_t)P, m = n % (size_t)P;
#define OFF(_i) ((size_t)(_i)*q + ((size_t)(_i) < m ? (size_t)(_i) : m))
    return OFF(lo + w) - OFF(lo);
#undef OFF
}
static uint64_t cnt1(size_t n, int P, int i)
{
    return cs(n, P, i, 1);
}

static void x_allreduce(int p, size_t n, int me, xs_t *o)
{
    xf_t f = xfold(p, 0);
    if (me < 2 * f.r && (me & 1)) {
        *o = (xs_t){1, n, 1, n};
        return;
    }
    int v = xvrank(&f, me), own = bitrev(v, f.k);
    uint64_t R = 0;
    for (int j = 1; j <= f.k; j++)
        R += cs(n, f.P, W(own, f.P >> j), f.P >> j);
    uint64_t S = n - cnt1(n, f.P, own), px = me < 2 * f.r;
    *o = (xs_t){2 * (uint64_t)f.k + px, S + R + px * n, 2 * (uint64_t)f.k + px, S + R + px * n};
}

/* group prefix sums: gp[g] = sum of G[0..g) */
static uint64_t *groups(int p, const size_t *c, const xf_t *f)
{
    uint64_t *gp = malloc(((size_t)f->P + 1) * sizeof(*gp));
    gp[0] = 0;
    for (int g = 0; g < f->P; g++) {
        uint64_t G = g < f->r ? c[2 * g] + c[2 * g + 1] : c[g + f->r];
        gp[g + 1] = gp[g] + G;
    }
    (void)p;
    return gp;
}
#define GS(_lo, _w) (gp[(_lo) + (_w)] - gp[(_lo)])

static void x_rs(int p, const size_t *c, int me, xs_t *o, int ag)
{
    xf_t f = xfold(p, 0);
    uint64_t tot = 0;
    for (int i = 0; i < p; i++)
        tot += c[i];
    if (me < 2 * f.r && (me & 1)) {
        *o = ag ? (xs_t){1, c[me], 1, tot} : (xs_t){1, tot, 1, c[me]};
        return;
    }
    uint64_t *gp = groups(p, c, &f);
    int v = xvrank(&f, me), k = f.k;
    uint64_t S = 0, R = 0;
    if (!ag) {
        S = tot - GS(v, 1);
        for (int j = 1; j <= k; j++)
            R += GS(W(v, f.P >> j), f.P >> j);
        if (me < 2 * f.r) {
            *o = (xs_t){(uint64_t)k + 1, S + c[me + 1], (uint64_t)k + 1, R + tot};
        } else {
            *o = (xs_t){(uint64_t)k, S, (uint64_t)k, R};
        }
    } else {
        for (int j = 0; j < k; j++)
            S += GS(W(v, 1 << j), 1 << j);
        R = tot - GS(v, 1);
        if (me < 2 * f.r) {
            *o = (xs_t){(uint64_t)k + 1, S + tot, (uint64_t)k + 1, R + c[me + 1]};
        } else {
            *o = (xs_t){(uint64_t)k, S, (uint64_t)k, R};
        }
    }
    free(gp);
}

static void x_bcast(int p, int root, size_t n, int me, xs_t *o)
{
    xf_t f = xfold(p, xshift(p, root));
    int vr = xvrank(&f, root), v = xvrank(&f, me);
    if (v < 0) {
        *o = (xs_t){0, 0, 1, n};
        return;
    }
    int u = v ^ vr;
    uint64_t rep = me < 2 * f.r, ms = (u == 0 ? (uint64_t)f.k : (uint64_t)tz(u)) + rep;
    *o = u == 0 ? (xs_t){ms, ms * n, 0, 0} : (xs_t){ms, ms * n, 1, n};
}

static void x_bcast_sag(int p, int root, size_t n, int me, xs_t *o)
{
    xf_t f = xfold(p, xshift(p, root));
    int vr = xvrank(&f, root), v = xvrank(&f, me), k = f.k, P = f.P;
    if (v < 0) {
        *o = (xs_t){0, 0, 1, n};
        return;
    }
    int u = v ^ vr;
    uint64_t rep = me < 2 * f.r, agS = 0, agR = n - cnt1(n, P, u);
    for (int j = 0; j < k; j++)
        agS += cs(n, P, W(u, 1 << j), 1 << j);
    uint64_t scS, scM, scR, scRM;
    if (u == 0) {
        scS = n - cnt1(n, P, 0);
        scM = (uint64_t)k;
        scR = scRM = 0;
    } else {
        int lb = u & -u;
        scR = cs(n, P, u, lb);
        scRM = 1;
        scS = scR - cnt1(n, P, u);
        scM = (uint64_t)tz(u);
    }
    *o = (xs_t){scM + (uint64_t)k + rep, scS + agS + rep * n, scRM + (uint64_t)k, scR + agR};
}

static void x_reduce(int p, int root, size_t n, int me, xs_t *o)
{
    xf_t f = xfold(p, xshift(p, root));
    int vr = xvrank(&f, root), v = xvrank(&f, me), k = f.k, P = f.P;
    if (v < 0) {
        *o = (xs_t){1, n, 0, 0};
        return;
    }
    uint64_t rep = me < 2 * f.r, S = n - cnt1(n, P, v), R = 0;
    for (int j = 1; j <= k; j++)
        R += cs(n, P, W(v, P >> j), P >> j);
    int d = v ^ vr;
    uint64_t gS, gM, gR, gRM;
    if (d == 0) {
        gS = gM = 0;
        gR = n - cnt1(n, P, v);
        gRM = (uint64_t)k;
    } else {
        int t = tz(d);
        uint64_t win = cs(n, P, W(v, 1 << t), 1 << t);
        gS = win;
        gM = 1;
        gR = win - cnt1(n, P, v);
        gRM = (uint64_t)t;
    }
    *o = (xs_t){(uint64_t)k + gM, S + gS, (uint64_t)k + gRM + rep, R + gR + rep * n};
}

int xs_expect(int op, int algo, int P, size_t n, const size_t *c, int root, int me, xs_t *o)
{
    *o = (xs_t){0, 0, 0, 0};
    if (P == 1) return 0;
    uint64_t tot = 0;
    if (c != NULL)
        for (int i = 0; i < P; i++)
            tot += c[i];
    int l = (me - 1 + P) % P, rt = (me + 1) % P;
    switch (op * 3 + algo) {
    case X_ALLREDUCE * 3 + XA_RHD:
        x_allreduce(P, n, me, o);
        return 0;
    case X_RS * 3 + XA_RHD:
        x_rs(P, c, me, o, 0);
        return 0;
    case X_AG * 3 + XA_RHD:
        x_rs(P, c, me, o, 1);
        return 0;
    case X_BCAST * 3 + XA_RHD:
        x_bcast_sag(P, root, n, me, o);
        return 0;
    case X_REDUCE * 3 + XA_RHD:
        x_reduce(P, root, n, me, o);
        return 0;
    case X_BCAST * 3 + XA_BINOMIAL:
        x_bcast(P, root, n, me, o);
        return 0;
    case X_REDUCE * 3 + XA_BINOMIAL: {
        xs_t b;
        x_bcast(P, root, n, me, &b);
        *o = (xs_t){b.mr, b.er, b.ms, b.es};
        return 0;
    }
    case X_RS * 3 + XA_RING:
        *o = (xs_t){(uint64_t)P - 1, tot - c[me], (uint64_t)P - 1, tot - c[l]};
        return 0;
    case X_AG * 3 + XA_RING:
        *o = (xs_t){(uint64_t)P - 1, tot - c[rt], (uint64_t)P - 1, tot - c[me]};
        return 0;
    case X_ALLREDUCE * 3 + XA_RING:
        *o = (xs_t){2 * (uint64_t)P - 2, 2 * n - cnt1(n, P, me) - cnt1(n, P, rt),
                    2 * (uint64_t)P - 2, 2 * n - cnt1(n, P, l) - cnt1(n, P, me)};
        return 0;
    default:
        return -1;
    }
}

unsigned xs_rounds(int op, int algo, int P)
{
    if (P == 1) return 0;
    xf_t f = xfold(P, 0);
    unsigned k = (unsigned)f.k, d = f.r > 0;
    if (algo == XA_RING) return op == X_ALLREDUCE ? 2u * (unsigned)(P - 1) : (unsigned)(P - 1);
    if (algo == XA_BINOMIAL) return k + d;
    switch (op) {
    case X_ALLREDUCE:
        return 2 * k + 2 * d;
    case X_RS:
    case X_AG:
        return k + 2 * d;
    default:
        return 2 * k + d; /* bcast SAG, reduce RS + gather */
    }
}
