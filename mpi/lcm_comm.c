/*
 * mpi/lcm_comm.c: which MPI communicators lincoll serves.
 *
 * MPI_COMM_WORLD is lincoll's world (ranks equal: the bootstrap uses the
 * world's).  A communicator made collectively over every rank of a mapped
 * parent (MPI_Comm_dup, _split, _split_type, _create) is mapped when it is
 * made, by lincoll_comm_split of the parent's lincoll communicator with
 * color = the world rank of the new communicator's rank 0 and key = the
 * rank in it, so it has the same members in the same order.  The mapping is
 * an attribute of the MPI communicator: MPI_Comm_free (PMPI's attribute
 * deletion) releases it, and a dup does not copy it.  Every other
 * communicator (intercommunicators, MPI_COMM_SELF, those of
 * MPI_Comm_create_group, of topologies or of other libraries' calls) stays
 * on PMPI: a mapping made at the first collective would need a collective
 * over a parent whose ranks are not all there.
 */
#include "lcm.h"

#include <stdio.h>
#include <stdlib.h>

static void lcm_comm_unlink(lcm_comm_t *c)
{
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        lcm.comms = c->next;
    if (c->next != NULL) c->next->prev = c->prev;
}

static void lcm_comm_drop(lcm_comm_t *c)
{
    lcm_cache_flush(c);
    lcm_stage_flush(c);
    lcm_lock();
    lcm_comm_unlink(c);
    if (!c->world) lincoll_comm_free(c->lc);
    lcm_unlock();
    free(c);
}

static int lcm_comm_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    lcm_comm_drop(attr);
    return MPI_SUCCESS;
}

static int lcm_comm_attach(MPI_Comm comm, lincoll_comm_t *lc, int world)
{
    lcm_comm_t *c = calloc(1, sizeof(*c));
    if (c == NULL) return 0;
    c->mpi = comm;
    c->lc = lc;
    c->world = world;
    c->rank = lincoll_comm_rank(lc);
    c->size = lincoll_comm_size(lc);
    lcm_lock();
    c->id = ++lcm.next_id;
    c->next = lcm.comms;
    if (lcm.comms != NULL) lcm.comms->prev = c;
    lcm.comms = c;
    lcm_unlock();
    if (PMPI_Comm_set_attr(comm, lcm.keyval, c) != MPI_SUCCESS) {
        lcm_lock();
        lcm_comm_unlink(c);
        lcm_unlock();
        free(c);
        return 0;
    }
    return 1;
}

/* Attach @p lc to @p newcomm on every rank of it, or on none (an attachment
 * fails only for memory, locally): collective over @p newcomm.  Takes @p lc. */
static void lcm_comm_attach_agreed(MPI_Comm newcomm, lincoll_comm_t *lc)
{
    int mine = lcm_comm_attach(newcomm, lc, 0), every = 0;
    if (PMPI_Allreduce(&mine, &every, 1, MPI_INT, MPI_MIN, newcomm) != MPI_SUCCESS) every = 0;
    if (every) return;
    fprintf(stderr, "lincoll_mpi: a communicator stays on the MPI (no memory)\n");
    if (!mine || PMPI_Comm_delete_attr(newcomm, lcm.keyval) != MPI_SUCCESS) lincoll_comm_free(lc);
}

int lcm_comm_map_world(lincoll_comm_t *world)
{
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, lcm_comm_delete, &lcm.keyval, NULL) !=
        MPI_SUCCESS)
        return 0;
    return lcm_comm_attach(MPI_COMM_WORLD, world, 1);
}

lcm_comm_t *lcm_comm_get(MPI_Comm comm)
{
    if (!lcm.on || comm == MPI_COMM_NULL) return NULL;
    void *attr = NULL;
    int found = 0;
    if (PMPI_Comm_get_attr(comm, lcm.keyval, &attr, &found) != MPI_SUCCESS || !found) return NULL;
    return attr;
}

void lcm_comm_derive(MPI_Comm parent, MPI_Comm newcomm)
{
    lcm_comm_t *p = lcm_comm_get(parent);
    if (p == NULL) return; /* every rank of parent sees the same */
    int color = -1, key = 0;
    if (newcomm != MPI_COMM_NULL) {
        int inter = 0;
        PMPI_Comm_test_inter(newcomm, &inter);
        MPI_Group g, wg;
        int zero = 0;
        PMPI_Comm_rank(newcomm, &key);
        if (!inter && PMPI_Comm_group(newcomm, &g) == MPI_SUCCESS) {
            PMPI_Comm_group(MPI_COMM_WORLD, &wg);
            PMPI_Group_translate_ranks(g, 1, &zero, wg, &color);
            PMPI_Group_free(&g);
            PMPI_Group_free(&wg);
        }
        if (color == MPI_UNDEFINED) color = -1;
    }
    lincoll_comm_t *lc = NULL;
    lcm_lock();
    lincoll_status_t st = lincoll_comm_split(p->lc, color, key, &lc);
    lcm_unlock();
    /* every rank of the parent keeps its mapping, or none does */
    int ok = st == LINCOLL_OK, all = 0;
    if (PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, parent) != MPI_SUCCESS) all = 0;
    if (all && lc != NULL && newcomm != MPI_COMM_NULL) {
        lcm_comm_attach_agreed(newcomm, lc);
        return;
    }
    lincoll_comm_free(lc);
}

/* MPI_Comm_create_group: only the members of @p newcomm call it. */
static void lcm_comm_derive_group(MPI_Comm parent, MPI_Comm newcomm)
{
    lcm_comm_t *p = lcm_comm_get(parent);
    if (p == NULL || newcomm == MPI_COMM_NULL) return; /* every member sees the same */
    int n = 0, ok = 0, all = 0;
    MPI_Group g = MPI_GROUP_NULL, pg = MPI_GROUP_NULL;
    PMPI_Comm_size(newcomm, &n);
    int *in = malloc(2 * (size_t)n * sizeof(int)), *ranks = in != NULL ? in + n : NULL;
    if (in != NULL && PMPI_Comm_group(newcomm, &g) == MPI_SUCCESS &&
        PMPI_Comm_group(parent, &pg) == MPI_SUCCESS) {
        for (int i = 0; i < n; i++)
            in[i] = i;
        ok = PMPI_Group_translate_ranks(g, n, in, pg, ranks) == MPI_SUCCESS;
        for (int i = 0; ok && i < n; i++)
            ok = ranks[i] != MPI_UNDEFINED;
    }
    if (g != MPI_GROUP_NULL) PMPI_Group_free(&g);
    if (pg != MPI_GROUP_NULL) PMPI_Group_free(&pg);
    /* every member takes part in the agreed creation, or none does */
    if (PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, newcomm) != MPI_SUCCESS) all = 0;
    lincoll_comm_t *lc = NULL;
    lincoll_status_t st = LINCOLL_ERR_INVALID;
    if (all) {
        lcm_lock();
        st = lincoll_comm_create_group(p->lc, ranks, n, 0, &lc);
        lcm_unlock();
    }
    free(in);
    /* the agreed creation fails on every member alike; the attachment is local */
    ok = st == LINCOLL_OK;
    if (all && PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, newcomm) != MPI_SUCCESS) all = 0;
    if (all) {
        lcm_comm_attach_agreed(newcomm, lc);
        return;
    }
    lincoll_comm_free(lc);
}

void lcm_comm_release_all(void)
{
    while (lcm.comms != NULL) {
        MPI_Comm c = lcm.comms->mpi;
        /* PMPI deletes the attribute and calls lcm_comm_delete */
        if (PMPI_Comm_delete_attr(c, lcm.keyval) != MPI_SUCCESS) lcm_comm_drop(lcm.comms);
    }
    PMPI_Comm_free_keyval(&lcm.keyval);
}

/* ---- the calls that make communicators ---- */

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_dup(comm, newcomm);
    if (rc == MPI_SUCCESS) lcm_comm_derive(comm, *newcomm);
    return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    if (rc == MPI_SUCCESS) lcm_comm_derive(comm, *newcomm);
    return rc;
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
    if (rc == MPI_SUCCESS) lcm_comm_derive(comm, *newcomm);
    return rc;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_create(comm, group, newcomm);
    if (rc == MPI_SUCCESS) lcm_comm_derive(comm, *newcomm);
    return rc;
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_create_group(comm, group, tag, newcomm);
    if (rc == MPI_SUCCESS) lcm_comm_derive_group(comm, *newcomm);
    return rc;
}
