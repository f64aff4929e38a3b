/*
 * core/topo/topo_place.c: rank orders that keep heavy exchanges on one host
 * (pure functions; test/topo measures them on real plans in the sim).
 *
 * The problem: p positions of a communication pattern (RHD: fold pairs and
 * butterfly partners; a grid: rows), hosts with given rank counts; assign
 * hosts to positions so that the bytes on edges between different hosts are
 * small.  RHD order: start from ranks grouped by host, larger hosts first (a
 * host of 2^a ranks then fills an aligned butterfly block, whose first a
 * exchanges - the largest - stay inside it), then improve by swapping the
 * hosts of two positions while that lowers the cross-host bytes (the fold
 * pairs (2i, 2i+1) are what the swaps fix most often: a host with an odd
 * count ends a block on an odd position).
 */
#include "core/topo/topo.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/log.h"

lincoll_status_t lc_topo_rhd_edges(int p, double n, lc_topo_edge_t **edges_p, int *nedges_p)
{
    LC_CHECK_ARG(p >= 1, "lc_topo_rhd_edges: p=%d must be >= 1", p);
    LC_CHECK_ARG(edges_p != NULL && nedges_p != NULL, "lc_topo_rhd_edges: NULL output");
    int P = 1, k = 0;
    while (2 * P <= p) {
        P *= 2;
        k++;
    }
    int r = p - P;
    int ne = r + k * (P / 2);
    lc_topo_edge_t *e = malloc((size_t)(ne > 0 ? ne : 1) * sizeof(*e));
    if (e == NULL) {
        return LINCOLL_ERR_NOMEM;
    }
    int m = 0;
    for (int i = 0; i < r; i++) {
        e[m++] = (lc_topo_edge_t){2 * i, 2 * i + 1, 2.0 * n}; /* fold + unfold */
    }
    for (int j = 0; j < k; j++) {
        double each = n / (double)(2 << j); /* one way, one phase */
        for (int v = 0; v < P; v++) {
            int u = v ^ (1 << j);
            if (u > v) {
                int a = v < r ? 2 * v : v + r, b = u < r ? 2 * u : u + r;
                e[m++] = (lc_topo_edge_t){a, b, 4.0 * each}; /* RS + AG, both ways */
            }
        }
    }
    *edges_p = e;
    *nedges_p = m;
    return LINCOLL_OK;
}

double lc_topo_cross_bytes(const lc_topo_edge_t *edges, int nedges, const int *order,
                           const int *host_of)
{
    double x = 0;
    for (int i = 0; i < nedges; i++) {
        int ra = order != NULL ? order[edges[i].a] : edges[i].a;
        int rb = order != NULL ? order[edges[i].b] : edges[i].b;
        if (host_of[ra] != host_of[rb]) {
            x += edges[i].bytes;
        }
    }
    return x;
}

/* Hosts by rank count, larger first (ties: lower host index first). */
typedef struct {
    int host, count;
} lc_hc_t;

static int lc_hc_cmp(const void *a, const void *b)
{
    const lc_hc_t *x = a, *y = b;
    if (x->count != y->count) return y->count - x->count;
    return x->host - y->host;
}

/* lab[pos] = host of each position, hosts contiguous, larger hosts first. */
static lincoll_status_t lc_host_blocks(int p, const int *host_of, int *lab, int *nh_p)
{
    int nh = 0;
    for (int r = 0; r < p; r++) {
        if (host_of[r] < 0) {
            lc_error("placement: host_of[%d]=%d is negative", r, host_of[r]);
            return LINCOLL_ERR_INVALID;
        }
        nh = host_of[r] + 1 > nh ? host_of[r] + 1 : nh;
    }
    lc_hc_t *hc = calloc((size_t)nh, sizeof(*hc));
    if (hc == NULL) return LINCOLL_ERR_NOMEM;
    for (int h = 0; h < nh; h++)
        hc[h].host = h;
    for (int r = 0; r < p; r++)
        hc[host_of[r]].count++;
    qsort(hc, (size_t)nh, sizeof(*hc), lc_hc_cmp);
    int pos = 0;
    for (int i = 0; i < nh; i++) {
        for (int c = 0; c < hc[i].count; c++)
            lab[pos++] = hc[i].host;
    }
    free(hc);
    *nh_p = nh;
    return LINCOLL_OK;
}

/* order[pos]: the ranks of each host, in increasing world rank, onto that
 * host's positions in increasing position. */
static lincoll_status_t lc_labels_to_order(int p, int nh, const int *host_of, const int *lab,
                                           int *order)
{
    int *next = calloc((size_t)nh, sizeof(int)); /* scan cursor per host */
    if (next == NULL) return LINCOLL_ERR_NOMEM;
    for (int pos = 0; pos < p; pos++) {
        int h = lab[pos], r = next[h];
        while (r < p && host_of[r] != h)
            r++;
        order[pos] = r;
        next[h] = r + 1;
    }
    free(next);
    return LINCOLL_OK;
}

typedef struct {
    int other;
    double w;
} lc_adj_t;

lincoll_status_t lc_topo_rhd_order(int p, const int *host_of, int *order)
{
    LC_CHECK_ARG(p >= 1, "lc_topo_rhd_order: p=%d must be >= 1", p);
    LC_CHECK_ARG(host_of != NULL && order != NULL, "lc_topo_rhd_order: host_of or order is NULL");
    lc_topo_edge_t *e = NULL;
    int ne = 0, nh = 0;
    int *lab = malloc((size_t)p * sizeof(int)), *ident = malloc((size_t)p * sizeof(int));
    int *deg = calloc((size_t)p + 1, sizeof(int));
    lc_adj_t *adj = NULL;
    lincoll_status_t st = LINCOLL_ERR_NOMEM;
    if (lab == NULL || ident == NULL || deg == NULL) goto out;
    st = lc_host_blocks(p, host_of, lab, &nh);
    if (st != LINCOLL_OK) goto out;
    st = lc_topo_rhd_edges(p, 1.0, &e, &ne);
    if (st != LINCOLL_OK) goto out;
    /* adjacency in CSR form: deg[pos]..deg[pos+1] */
    for (int i = 0; i < ne; i++) {
        deg[e[i].a + 1]++;
        deg[e[i].b + 1]++;
    }
    for (int i = 0; i < p; i++)
        deg[i + 1] += deg[i];
    adj = malloc((size_t)(2 * ne + 1) * sizeof(*adj));
    if (adj == NULL) {
        st = LINCOLL_ERR_NOMEM;
        goto out;
    }
    {
        int *fill = ident; /* scratch, rebuilt below */
        memcpy(fill, deg, (size_t)p * sizeof(int));
        for (int i = 0; i < ne; i++) {
            adj[fill[e[i].a]++] = (lc_adj_t){e[i].b, e[i].bytes};
            adj[fill[e[i].b]++] = (lc_adj_t){e[i].a, e[i].bytes};
        }
    }
    /* swaps: O(p^2 deg) per pass, so only up to 1024 positions */
    for (int pass = 0; p <= 1024 && pass < 32; pass++) {
        int improved = 0;
        for (int a = 0; a < p; a++) {
            for (int b = a + 1; b < p; b++) {
                int ha = lab[a], hb = lab[b];
                if (ha == hb) continue;
                double d = 0;
                for (int q = deg[a]; q < deg[a + 1]; q++) {
                    int x = adj[q].other;
                    if (x == b) continue;
                    d += adj[q].w * ((hb != lab[x]) - (ha != lab[x]));
                }
                for (int q = deg[b]; q < deg[b + 1]; q++) {
                    int x = adj[q].other;
                    if (x == a) continue;
                    d += adj[q].w * ((ha != lab[x]) - (hb != lab[x]));
                }
                if (d < -1e-12) {
                    lab[a] = hb;
                    lab[b] = ha;
                    improved = 1;
                }
            }
        }
        if (!improved) break;
    }
    st = lc_labels_to_order(p, nh, host_of, lab, order);
    if (st != LINCOLL_OK) goto out;
    for (int i = 0; i < p; i++)
        ident[i] = i;
    if (lc_topo_cross_bytes(e, ne, ident, host_of) <= lc_topo_cross_bytes(e, ne, order, host_of)) {
        memcpy(order, ident, (size_t)p * sizeof(int)); /* already as good: keep it */
    }
out:
    free(e);
    free(adj);
    free(deg);
    free(ident);
    free(lab);
    return st;
}

lincoll_status_t lc_topo_grid_order(int rows, int cols, const int *host_of, int *order,
                                    int *split_rows_p)
{
    LC_CHECK_ARG(rows >= 1 && cols >= 1, "lc_topo_grid_order: rows=%d cols=%d must be >= 1", rows,
                 cols);
    LC_CHECK_ARG(host_of != NULL && order != NULL, "lc_topo_grid_order: host_of or order is NULL");
    int p = rows * cols, nh = 0;
    int *lab = malloc((size_t)p * sizeof(int));
    if (lab == NULL) return LINCOLL_ERR_NOMEM;
    lincoll_status_t st = lc_host_blocks(p, host_of, lab, &nh);
    if (st == LINCOLL_OK) st = lc_labels_to_order(p, nh, host_of, lab, order);
    if (st == LINCOLL_OK && split_rows_p != NULL) {
        int split = 0;
        for (int i = 0; i < rows; i++) {
            for (int j = 1; j < cols; j++) {
                if (lab[i * cols + j] != lab[i * cols]) {
                    split++;
                    break;
                }
            }
        }
        *split_rows_p = split;
    }
    free(lab);
    return st;
}
