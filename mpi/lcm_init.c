/*
 * mpi/lcm_init.c: MPI_Init, MPI_Init_thread and MPI_Finalize of
 * liblincoll_mpi.so; the lincoll context they create and free.
 *
 * The context is bootstrapped by the embedder's allgather (docs/embedding.md,
 * LINCOLL_BOOTSTRAP_OOB): PMPI_Allgather on a private duplicate of
 * MPI_COMM_WORLD, rank and size those of MPI_COMM_WORLD, so it works under
 * any launcher.  Options come from lincoll's configuration table
 * (lincoll_config_var: LINCOLL_MPI, LINCOLL_MPI_STATS, LINCOLL_MPI_CACHE,
 * LINCOLL_MPI_CACHE_BYTES, LINCOLL_MPI_MIN_BYTES), whose parser has checked
 * them when lincoll_init returns.
 */
#include "lcm.h"

#include <lincoll/info.h>
#include <lincoll/log.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

lcm_state_t lcm = {
    .lock = PTHREAD_MUTEX_INITIALIZER, .keyval = MPI_KEYVAL_INVALID, .pself = MPI_COMM_NULL};

void lcm_lock(void)
{
    if (lcm.thread_multiple) pthread_mutex_lock(&lcm.lock);
}

void lcm_unlock(void)
{
    if (lcm.thread_multiple) pthread_mutex_unlock(&lcm.lock);
}

double lcm_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The option's text from the environment, through lincoll's table. */
static const char *lcm_opt(lincoll_config_id_t id, const char **name_p)
{
    lincoll_config_var_t v;
    if (lincoll_config_var(id, &v) != LINCOLL_OK) return NULL;
    if (name_p != NULL) *name_p = v.name;
    return v.current != NULL ? v.current : v.default_value;
}

/* The table's forms of true (lc_cfg BOOL: 1, y, yes, true, on). */
static int lcm_opt_bool(lincoll_config_id_t id)
{
    const char *t = lcm_opt(id, NULL);
    if (t == NULL) return 0;
    static const char *const yes[] = {"1", "y", "yes", "true", "on"};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        if (strcasecmp(t, yes[i]) == 0) return 1;
    return 0;
}

/* An integer or a size with a k/m/g suffix (the table has checked it). */
static size_t lcm_opt_size(lincoll_config_id_t id)
{
    const char *t = lcm_opt(id, NULL);
    size_t v = 0;
    return t != NULL && lcm_parse_bytes(t, &v) == 0 ? v : 0;
}

/* ---- the bootstrap: PMPI_Allgather on the private communicator ---- */

static lincoll_status_t lcm_oob_allgather(const void *sbuf, void *rbuf, size_t len, void *info,
                                          void **req_p)
{
    (void)info;
    *req_p = NULL;
    if (len > (size_t)INT32_MAX) return LINCOLL_ERR_INVALID;
    return PMPI_Allgather(sbuf, (int)len, MPI_BYTE, rbuf, (int)len, MPI_BYTE, lcm.boot) ==
                   MPI_SUCCESS
               ? LINCOLL_OK
               : LINCOLL_ERR_BOOTSTRAP;
}

static lincoll_status_t lcm_oob_barrier(void *info, void **req_p)
{
    (void)info;
    *req_p = NULL;
    return PMPI_Barrier(lcm.boot) == MPI_SUCCESS ? LINCOLL_OK : LINCOLL_ERR_BOOTSTRAP;
}

void lcm_start(void)
{
    lcm.on = 0;
    const char *name = NULL;
    const char *onoff = lcm_opt(LINCOLL_CONFIG_MPI, &name);
    if (onoff != NULL && strcasecmp(onoff, "off") == 0) return; /* as if not loaded */
    int rank, size;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &lcm.boot) != MPI_SUCCESS) return;
    PMPI_Comm_set_errhandler(lcm.boot, MPI_ERRORS_RETURN);
    lincoll_init_params_t p = {.bootstrap = LINCOLL_BOOTSTRAP_OOB, .rank = rank, .size = size};
    p.oob.allgather = lcm_oob_allgather;
    p.oob.barrier = lcm_oob_barrier;
    lincoll_status_t st = lincoll_init(&p, &lcm.ctx);
    lincoll_comm_t *world = NULL;
    if (st == LINCOLL_OK) st = lincoll_comm_world(lcm.ctx, &world);
    /* every rank goes on with lincoll, or none does */
    int ok = st == LINCOLL_OK, all = 0;
    if (PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, lcm.boot) != MPI_SUCCESS) all = 0;
    if (all) all = lcm_comm_map_world(world);
    if (!all) {
        if (rank == 0)
            fprintf(stderr,
                    "lincoll_mpi: lincoll did not start (%s): every collective goes to "
                    "the MPI\n",
                    st != LINCOLL_OK ? lincoll_strerror(st) : "on another rank");
        if (lcm.ctx != NULL) lincoll_finalize(lcm.ctx);
        lcm.ctx = NULL;
        PMPI_Comm_free(&lcm.boot);
        return;
    }
    lcm.stats = lcm_opt_bool(LINCOLL_CONFIG_MPI_STATS);
    if (lcm_table_agree(lcm_opt(LINCOLL_CONFIG_MPI_MIN_BYTES, NULL),
                        (long)lcm_opt_size(LINCOLL_CONFIG_MPI_CACHE),
                        lcm_opt_size(LINCOLL_CONFIG_MPI_CACHE_BYTES)) != 0)
        lcm_table_default(&lcm.table); /* MPI failed: every rank alike */
    lcm.on = 1;
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) lcm_start();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc != MPI_SUCCESS) return rc;
    lcm.thread_multiple = *provided == MPI_THREAD_MULTIPLE;
    lcm_start();
    return rc;
}

int MPI_Finalize(void)
{
    if (lcm.ctx != NULL) {
        lcm_nb_finalize();
        lcm_persist_finalize();
        if (lcm.stats) lcm_stat_print();
        lcm.on = 0;
        lcm_cache_flush(NULL);
        lcm_comm_release_all();
        lincoll_status_t st = lincoll_finalize(lcm.ctx);
        if (st != LINCOLL_OK)
            fprintf(stderr, "lincoll_mpi: lincoll_finalize: %s\n", lincoll_strerror(st));
        lcm.ctx = NULL;
        PMPI_Comm_free(&lcm.boot);
    }
    return PMPI_Finalize();
}
