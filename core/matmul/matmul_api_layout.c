/*
 * core/matmul/matmul_api_layout.c: the public calls on distributions (api
 * layer): the descriptors (lincoll_matdesc_init, _block, _from_scalapack,
 * _coords, _local: argument checks around layout.c's helpers), the row,
 * column and layer communicators of a grid (lincoll_matdesc_comms) and the
 * scatter and gather plans (compiled by scatter_gather.c).
 */
#include "core/exec/exec.h"
#include "core/matmul/mm_int.h"

/* ---- descriptors (no communicator) ------------------------------------------ */

lincoll_status_t lincoll_matdesc_init(lincoll_matdesc_t *d, int64_t m, int64_t n, int64_t mb,
                                      int64_t nb, int pr, int pc, int layers,
                                      lincoll_layout_t layout)
{
    LC_CHECK_ARG(d != NULL, "lincoll_matdesc_init: d must not be NULL");
    *d = (lincoll_matdesc_t){
        .m = m, .n = n, .mb = mb, .nb = nb, .pr = pr, .pc = pc, .layers = layers, .layout = layout};
    return lc_mm_check_desc(d, "desc", pr * pc * (layers > 0 ? layers : 1));
}

lincoll_status_t lincoll_matdesc_block(lincoll_matdesc_t *d, int64_t m, int64_t n, int pr, int pc,
                                       int layers, lincoll_layout_t layout)
{
    LC_CHECK_ARG(pr >= 1 && pc >= 1, "lincoll_matdesc_block: grid %dx%d must be positive", pr, pc);
    int64_t mb = (m + pr - 1) / pr, nb = (n + pc - 1) / pc;
    return lincoll_matdesc_init(d, m, n, mb > 0 ? mb : 1, nb > 0 ? nb : 1, pr, pc, layers, layout);
}

lincoll_status_t lincoll_matdesc_from_scalapack(lincoll_matdesc_t *d, const int desc[9], int pr,
                                                int pc)
{
    LC_CHECK_ARG(d != NULL && desc != NULL, "lincoll_matdesc_from_scalapack: NULL argument");
    LC_CHECK_ARG(desc[0] == 1,
                 "lincoll_matdesc_from_scalapack: DTYPE_=%d, only 1 (dense) is "
                 "supported",
                 desc[0]);
    *d = (lincoll_matdesc_t){.m = desc[2],
                             .n = desc[3],
                             .mb = desc[4],
                             .nb = desc[5],
                             .rsrc = desc[6],
                             .csrc = desc[7],
                             .lld = desc[8],
                             .pr = pr,
                             .pc = pc,
                             .layers = 1,
                             .layout = LINCOLL_COL_MAJOR};
    return lc_mm_check_desc(d, "desc", pr * pc);
}

lincoll_status_t lincoll_matdesc_coords(const lincoll_matdesc_t *d, int rank, int *row, int *col,
                                        int *layer)
{
    LC_CHECK_ARG(d != NULL, "lincoll_matdesc_coords: d must not be NULL");
    LC_CHECK_ARG(rank >= 0 && rank < d->pr * d->pc * d->layers,
                 "lincoll_matdesc_coords: rank %d outside the %dx%dx%d grid", rank, d->pr, d->pc,
                 d->layers);
    lc_mm_desc_coords(d, rank, row, col, layer);
    return LINCOLL_OK;
}

lincoll_status_t lincoll_matdesc_local(const lincoll_matdesc_t *d, int rank, int64_t *rows,
                                       int64_t *cols, int64_t *ld)
{
    lincoll_status_t st = lincoll_matdesc_coords(d, rank, NULL, NULL, NULL);
    if (st != LINCOLL_OK) return st;
    lc_mm_desc_local(d, rank, rows, cols, ld);
    return LINCOLL_OK;
}

lincoll_status_t lincoll_matdesc_comms(lincoll_comm_t *comm, const lincoll_matdesc_t *d,
                                       lincoll_comm_t **row_p, lincoll_comm_t **col_p,
                                       lincoll_comm_t **layer_p)
{
    LC_CHECK_ARG(comm != NULL, "lincoll_matdesc_comms: comm must not be NULL");
    lincoll_status_t st = lc_mm_check_desc(d, "d", comm->size);
    if (st != LINCOLL_OK) return st;
    int i, j, l;
    lincoll_matdesc_coords(d, comm->rank, &i, &j, &l);
    if (row_p) st = lincoll_comm_split(comm, l * d->pr + i, j, row_p);
    if (st == LINCOLL_OK && col_p) st = lincoll_comm_split(comm, l * d->pc + j, i, col_p);
    if (st == LINCOLL_OK && layer_p) st = lincoll_comm_split(comm, i * d->pc + j, l, layer_p);
    return st;
}

static lincoll_status_t lc_mm_scatter_gather_init(lincoll_comm_t *comm, int root, void *global,
                                                  int64_t ldg, lincoll_dtype_t dtype,
                                                  const lincoll_matdesc_t *d, void *local,
                                                  lincoll_plan_t **plan_p, int gather)
{
    const char *fn = gather ? "lincoll_matrix_gather_init" : "lincoll_matrix_scatter_init";
    LC_CHECK_ARG(comm != NULL && plan_p != NULL, "%s: comm and plan_p must not be NULL", fn);
    lincoll_status_t st = lc_mm_check_desc(d, "d", comm->size);
    if (st != LINCOLL_OK) return st;
    st = lc_mm_check_ld(d, "d", comm->rank, 0);
    if (st != LINCOLL_OK) return st;
    LC_CHECK_ARG(root >= 0 && root < comm->size, "%s: root %d outside the communicator of %d", fn,
                 root, comm->size);
    size_t es = lincoll_dtype_size(dtype);
    LC_CHECK_ARG(es > 0, "%s: dtype %d has no fixed size", fn, (int)dtype);
    const int me = comm->rank;
    int64_t gtight = d->layout == LINCOLL_ROW_MAJOR ? d->n : d->m;
    if (me == root) {
        LC_CHECK_ARG(ldg >= (gtight > 1 ? gtight : 1), "%s: ldg=%lld is smaller than %lld", fn,
                     (long long)ldg, (long long)(gtight > 1 ? gtight : 1));
        LC_CHECK_ARG(global != NULL || d->m == 0 || d->n == 0, "%s: global is NULL on the root",
                     fn);
    }
    int64_t rows, cols, ld;
    lincoll_matdesc_local(d, me, &rows, &cols, &ld);
    LC_CHECK_ARG(local != NULL || rows == 0 || cols == 0, "%s: local is NULL on rank %d", fn, me);
    lc_env_t env = lc_exec_env(comm, 0);
    lc_plan_t *p;
    st = lc_plan_create(&env, gather ? "matrix_gather" : "matrix_scatter", 0, &p);
    if (st != LINCOLL_OK) return st;
    st = lc_mm_scatter_gather_build(p, root, global, ldg, es, d, local, gather);
    if (st == LINCOLL_OK) st = lc_plan_finalize(p);
    if (st != LINCOLL_OK) {
        lc_plan_destroy(p);
        return st;
    }
    return lc_bind_local(comm, p, plan_p);
}

lincoll_status_t lincoll_matrix_scatter_init(lincoll_comm_t *comm, int root, const void *global,
                                             int64_t ldg, lincoll_dtype_t dtype,
                                             const lincoll_matdesc_t *d, void *local,
                                             lincoll_plan_t **plan_p)
{
    return lc_mm_scatter_gather_init(comm, root, (void *)global, ldg, dtype, d, local, plan_p, 0);
}

lincoll_status_t lincoll_matrix_gather_init(lincoll_comm_t *comm, int root, void *global,
                                            int64_t ldg, lincoll_dtype_t dtype,
                                            const lincoll_matdesc_t *d, const void *local,
                                            lincoll_plan_t **plan_p)
{
    return lc_mm_scatter_gather_init(comm, root, global, ldg, dtype, d, (void *)local, plan_p, 1);
}
