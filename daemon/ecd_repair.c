/*
 * daemon/ecd_repair.c: repair: inventories of every live node, the jobs
 * (objects whose row on the target is missing or corrupt), the repair
 * collective, the commit on the target.
 */
#include "daemon/ecd_daemon.h"
#include "daemon/ecd_epoch.h"
#include "daemon/ecd_verify.h"
#include "kernels/crc/crc32c.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct rjob {
    ecd_manifest_t m;
    int lost;                /* row to rebuild (held by the target) */
    int surv[ECD_MAX_NODES]; /* k surviving rows */
} rjob_t;

/* Jobs whose collectives run at once on each member (their tags: the
 * repair's TAG + 32 (i mod ECD_REPAIR_INFLIGHT) for job i), as long as
 * their chunks add up to at most ECD_REPAIR_WINDOW bytes (one job always). */
#define ECD_REPAIR_INFLIGHT 4
#define ECD_REPAIR_WINDOW   (16u << 20)

/* The repair strategy: the plan that rebuilds job j's lost row on the
 * target from its k survivors, on communicator w whose rank r is node
 * node_of_rank[r] (a compiler: it builds the plan, the caller starts and
 * drives it).  Today's: lincoll_encode_repair_init with the job's tag;
 * rank r stands for the row its node holds (any row of the object for a
 * node that has no part in this job).  On a group of exactly the k
 * survivors and the target (repair_group) it takes lincoll's star, tree or
 * chain schedule among them.  Called under the epoch's lock. */
typedef lincoll_status_t (*repair_fn_t)(lincoll_comm_t *w, uint64_t tag, const int *node_of_rank,
                                        const rjob_t *j, const uint8_t *in, uint8_t *out,
                                        lincoll_plan_t **plan);

static lincoll_status_t repair_rs_collective(lincoll_comm_t *w, uint64_t tag,
                                             const int *node_of_rank, const rjob_t *j,
                                             const uint8_t *in, uint8_t *out, lincoll_plan_t **plan)
{
    const int L = lincoll_comm_size(w), k = j->m.k, n = j->m.k + j->m.m;
    uint64_t *G = generator(n, k), *Gp = malloc(sizeof(uint64_t) * (size_t)L * (size_t)k);
    int surv[ECD_MAX_NODES], lost = -1;
    lincoll_status_t st = LINCOLL_ERR_NOMEM;
    if (G == NULL || Gp == NULL) goto out;
    for (int r = 0; r < L; r++) {
        int row = -1;
        for (int i = 0; i < k; i++)
            if (j->m.node[j->surv[i]] == node_of_rank[r]) row = j->surv[i];
        if (j->m.node[j->lost] == node_of_rank[r]) row = j->lost, lost = r;
        if (row < 0) { /* no part in this object: any row will do */
            int rows[ECD_MAX_NODES];
            row = ecd_manifest_rows_of(&j->m, node_of_rank[r], rows) > 0 ? rows[0] : 0;
        }
        memcpy(Gp + (size_t)r * (size_t)k, G + (size_t)row * (size_t)k,
               sizeof(uint64_t) * (size_t)k);
    }
    for (int i = 0; i < k; i++) {
        surv[i] = -1;
        for (int r = 0; r < L; r++)
            if (node_of_rank[r] == j->m.node[j->surv[i]]) surv[i] = r;
    }
    const lincoll_encode_opts_t eo = {.tag = tag};
    st = lincoll_encode_repair_init(w, gf, k, LINCOLL_GF_RS_CAUCHY, Gp, surv, 1, &lost, j->m.chunk,
                                    in, out, &eo, plan);
out:
    free(G);
    free(Gp);
    return st;
}

static const repair_fn_t repair_strategy = repair_rs_collective;

/* Job j's group: its k survivors' nodes in survivor order, then the
 * target's, when these k + 1 nodes are distinct (placement puts an
 * object's rows on distinct nodes); 0 otherwise (a manifest with two rows
 * on one node): the job then runs over every live node. */
static int repair_group(const rjob_t *j, int *nodes)
{
    int n = 0;
    for (int s = 0; s <= j->m.k; s++) {
        int node = j->m.node[s < j->m.k ? j->surv[s] : j->lost];
        for (int t = 0; t < n; t++)
            if (nodes[t] == node) return 0;
        nodes[n++] = node;
    }
    return n;
}

/* This node takes part in job j. */
static int repair_mine(const rjob_t *j)
{
    int nodes[ECD_MAX_NODES], n = repair_group(j, nodes);
    for (int t = 0; t < n; t++)
        if (nodes[t] == cfg.node) return 1;
    return n == 0;
}

/* One job in flight on this member. */
typedef struct rslot {
    int job;
    uint8_t *in, *out;    /* this node's survivor chunk, the rebuilt one (target) */
    lincoll_comm_t *comm; /* the job's group, NULL: every live node's */
    lincoll_plan_t *plan;
} rslot_t;

/* Job i's buffers, group and started plan (w: every live node's group, its
 * rank r node_of_rank[r]), or -1 (the reason logged). */
static int repair_start(ecd_epoch_t *e, lincoll_comm_t *w, uint64_t tag, const int *node_of_rank,
                        rjob_t *jobs, int i, rslot_t *sl, ecd_vrepair_t *vr)
{
    rjob_t *j = &jobs[i];
    *sl = (rslot_t){.job = i};
    for (int s = 0; s < j->m.k; s++) {
        if (j->m.node[j->surv[s]] != cfg.node) continue;
        sl->in = calloc(1, j->m.chunk);
        if (sl->in == NULL) return -1;
        if (ecd_disk_read_chunk(&disk, &j->m, j->surv[s], sl->in) != ECD_CHUNK_OK) {
            /* zeros instead: the target's checksum refuses the result */
            ecd_log("repair of %s: this node's survivor row %d went bad", j->m.name, j->surv[s]);
            memset(sl->in, 0, j->m.chunk);
        }
        vrep_chunk(vr, i, j->surv[s], sl->in, j->m.chunk);
    }
    if (j->m.node[j->lost] == cfg.node && (sl->out = malloc(j->m.chunk)) == NULL) return -1;
    int nodes[ECD_MAX_NODES], n = repair_group(j, nodes);
    lincoll_status_t st = n > 0 ? ecd_epoch_group(e, nodes, n, &sl->comm) : LINCOLL_OK;
    ecd_epoch_lock(e);
    if (st == LINCOLL_OK)
        st = repair_strategy(
            sl->comm != NULL ? sl->comm : w, tag + 32 * (uint64_t)(i % ECD_REPAIR_INFLIGHT),
            sl->comm != NULL ? nodes : node_of_rank, j, sl->in, sl->out, &sl->plan);
    if (st == LINCOLL_OK) st = lincoll_start(sl->plan);
    ecd_epoch_unlock(e);
    if (st != LINCOLL_OK) {
        ecd_log("repair of %s row %d (epoch %llu): %s", j->m.name, j->lost,
                (unsigned long long)e->seq, lincoll_strerror(st));
        return -1;
    }
    return 0;
}

/* Free a slot's plan, group and buffers; a plan the transport could not
 * stop leaves its buffers to the epoch (freed with its context) and fails
 * it. */
static void repair_slot_free(ecd_epoch_t *e, rslot_t *sl, lincoll_status_t st)
{
    ecd_epoch_lock(e);
    int held = lincoll_plan_free(sl->plan) == LINCOLL_ERR_BUSY; /* a running one is canceled */
    lincoll_comm_free(sl->comm);
    ecd_epoch_unlock(e);
    if (held) {
        ecd_epoch_keep(e, sl->in);
        ecd_epoch_keep(e, sl->out);
        sl->in = sl->out = NULL;
    }
    if (held || (st != LINCOLL_OK && st != LINCOLL_ERR_PEER_FAILED)) ecd_epoch_fail(e);
    free(sl->in);
    free(sl->out);
    *sl = (rslot_t){.job = -1};
}

/* Every member's part of a repair on epoch e (node_of_rank[0..L-1]: every
 * live node): each job runs on its group (repair_group) and this node
 * takes part in its own jobs only, up to ECD_REPAIR_INFLIGHT of them in
 * flight (job i's tag is the repair's TAG + 32 (i mod ECD_REPAIR_INFLIGHT):
 * a job starts here once every job ECD_REPAIR_INFLIGHT or more before it
 * has completed here), completed in job order; the target keeps what it
 * rebuilt in temporaries.  watch: the coordinator's connection, silent
 * until the members report (NULL on the coordinator).  Returns the number
 * of chunks rebuilt (target) or 0, or -1 when the group failed. */
static int repair_member(ecd_epoch_t *e, uint64_t tag, ecd_conn_t *watch, const int *node_of_rank,
                         int L, rjob_t *jobs, int nj, char (*tmps)[600], int *rows_out,
                         ecd_manifest_t *ms_out, int *bad_out, const char *opid, ecd_vrepair_t *vr)
{
    int *mine = malloc(sizeof(int) * (size_t)(nj > 0 ? nj : 1)), nm = 0;
    lincoll_comm_t *w = NULL;
    lincoll_status_t st =
        mine == NULL ? LINCOLL_ERR_NOMEM : ecd_epoch_group(e, node_of_rank, L, &w);
    if (st != LINCOLL_OK) {
        ecd_log("repair (op %s): its group on epoch %llu: %s", opid, (unsigned long long)e->seq,
                lincoll_strerror(st));
        free(mine);
        return -1;
    }
    for (int i = 0; i < nj; i++)
        if (repair_mine(&jobs[i])) mine[nm++] = i;
    rslot_t sl[ECD_REPAIR_INFLIGHT];
    int rebuilt = 0, failed = 0, next = 0; /* the next of mine to start */
    uint64_t window = 0;                   /* chunk bytes of the jobs in flight */
    for (int s = 0; s < ECD_REPAIR_INFLIGHT; s++)
        sl[s].job = -1;
    *bad_out = 0;
    for (int q = 0; q < nm && !failed; q++) {
        const int i = mine[q];
        /* start jobs up to the window (job i's at least); slot = job mod W:
         * free, since every job in flight is within W of job i */
        while (next < nm && mine[next] < i + ECD_REPAIR_INFLIGHT &&
               (next == q || window + jobs[mine[next]].m.chunk <= ECD_REPAIR_WINDOW)) {
            rslot_t *n = &sl[mine[next] % ECD_REPAIR_INFLIGHT];
            if (repair_start(e, w, tag, node_of_rank, jobs, mine[next], n, vr) != 0) {
                repair_slot_free(e, n, LINCOLL_OK); /* nothing of it started */
                failed = 1;
                break;
            }
            window += jobs[mine[next++]].m.chunk;
        }
        if (failed) break;
        /* job i completes */
        rslot_t *c = &sl[i % ECD_REPAIR_INFLIGHT];
        rjob_t *j = &jobs[i];
        st = ecd_epoch_drive(e, c->plan, watch);
        if (st != LINCOLL_OK) {
            ecd_log("repair of %s row %d (epoch %llu): %s", j->m.name, j->lost,
                    (unsigned long long)e->seq, lincoll_strerror(st));
            failed = 1;
            break;
        }
        if (c->out != NULL) {
            ecd_verify_test_alter(c->out, j->m.chunk, "a rebuilt chunk of a repair");
            if (lc_crc32c(0, c->out, j->m.chunk) != j->m.crc[j->lost]) {
                ecd_log("repair of %s row %d: the rebuilt chunk fails the manifest's checksum; "
                        "not stored",
                        j->m.name, j->lost);
                (*bad_out)++;
            } else if (ecd_disk_write_temp(&disk, opid, j->m.name, j->lost, c->out, j->m.chunk,
                                           tmps[rebuilt], sizeof(tmps[0])) == 0) {
                rows_out[rebuilt] = j->lost;
                ms_out[rebuilt] = j->m;
                rebuilt++;
                vrep_chunk(vr, i, j->lost, c->out, j->m.chunk);
            }
        }
        repair_slot_free(e, c, LINCOLL_OK);
        window -= j->m.chunk;
    }
    for (int s = 0; s < ECD_REPAIR_INFLIGHT; s++) /* a failure leaves jobs in flight */
        if (sl[s].job >= 0) repair_slot_free(e, &sl[s], failed ? st : LINCOLL_OK);
    ecd_epoch_lock(e);
    lincoll_comm_free(w);
    ecd_epoch_unlock(e);
    free(mine);
    if (failed) {
        ecd_disk_abort(tmps, rebuilt);
        return -1;
    }
    return rebuilt;
}

/* Inventory of one node: its committed objects with their manifests and
 * the state of its rows.  Lines: "OK n", then per object
 * "OBJ name state mflen" + manifest, state = ok | missing | corrupt of the
 * rows this node holds ("-" for none). */
void send_inventory(ecd_conn_t *c)
{
    char **names;
    int n = ecd_disk_list(&disk, &names);
    ecd_printf(c, "OK %d\n", n);
    for (int i = 0; i < n; i++) {
        ecd_manifest_t m;
        char text[ECD_MANIFEST_MAX];
        const char *state = "-";
        int tlen = -1;
        if (ecd_disk_manifest(&disk, names[i], &m) == 0) {
            int rows[ECD_MAX_NODES], nr = ecd_manifest_rows_of(&m, cfg.node, rows);
            void *buf = malloc(m.chunk);
            for (int j = 0; j < nr && buf; j++) {
                ecd_chunk_state_t s = ecd_disk_read_chunk(&disk, &m, rows[j], buf);
                state = s == ECD_CHUNK_OK ? "ok" : s == ECD_CHUNK_MISSING ? "missing" : "corrupt";
            }
            free(buf);
            tlen = ecd_manifest_format(&m, text, sizeof(text));
        }
        if (tlen < 0) {
            ecd_printf(c, "OBJ %s corrupt 0\n", names[i]);
        } else {
            ecd_printf(c, "OBJ %s %s %d\n", names[i], state, tlen);
            ecd_write(c, text, (size_t)tlen);
        }
        free(names[i]);
    }
    free(names);
}

typedef struct inv_obj {
    ecd_manifest_t m;
    int have;                 /* a manifest was seen */
    int state[ECD_MAX_NODES]; /* per row: 0 unknown/unavailable, 1 ok, 2 missing, 3 corrupt */
} inv_obj_t;

static inv_obj_t *inv_find(inv_obj_t **objs, int *n, int *cap, const char *name)
{
    for (int i = 0; i < *n; i++)
        if (strcmp((*objs)[i].m.name, name) == 0) return &(*objs)[i];
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        inv_obj_t *no = realloc(*objs, sizeof(inv_obj_t) * (size_t)*cap);
        if (no == NULL) return NULL;
        *objs = no;
    }
    inv_obj_t *o = &(*objs)[(*n)++];
    memset(o, 0, sizeof(*o));
    snprintf(o->m.name, sizeof(o->m.name), "%s", name);
    return o;
}

/* Read one node's inventory into objs. */
static int recv_inventory(ecd_conn_t *c, int node, inv_obj_t **objs, int *n, int *cap)
{
    char line[ECD_LINE_MAX], *w[5];
    if (ecd_read_line(c, line, sizeof(line)) < 0 || ecd_split(line, w, 3) != 2 ||
        strcmp(w[0], "OK") != 0)
        return -1;
    int cnt = atoi(w[1]);
    for (int i = 0; i < cnt; i++) {
        if (ecd_read_line(c, line, sizeof(line)) < 0 || ecd_split(line, w, 5) != 4 ||
            strcmp(w[0], "OBJ") != 0)
            return -1;
        size_t tlen = strtoull(w[3], NULL, 10);
        char text[ECD_MANIFEST_MAX];
        if (tlen >= sizeof(text) || ecd_read(c, text, tlen) != 0) return -1;
        inv_obj_t *o = inv_find(objs, n, cap, w[1]);
        if (o == NULL) return -1;
        ecd_manifest_t m;
        char err[128];
        if (tlen > 0 && ecd_manifest_parse(text, tlen, &m, err, sizeof(err)) == 0) {
            if (!o->have) {
                o->m = m;
                o->have = 1;
            } else if (memcmp(o->m.sha, m.sha, 32) != 0 || o->m.chunk != m.chunk ||
                       o->m.stripe != m.stripe) {
                ecd_log("repair: node %d's manifest of %s differs from another node's", node, w[1]);
            }
        }
        int st = !strcmp(w[2], "ok")        ? 1
                 : !strcmp(w[2], "missing") ? 2
                 : !strcmp(w[2], "corrupt") ? 3
                                            : 0;
        if (o->have) {
            for (int r = 0; r < o->m.k + o->m.m; r++)
                if (o->m.node[r] == node) o->state[r] = st;
        } else {
            /* manifest unreadable here: remember for after the merge */
        }
    }
    return 0;
}

/* This node's inventory, straight into objs. */
static void local_inventory(inv_obj_t **objs, int *n, int *cap)
{
    char **names;
    int cnt = ecd_disk_list(&disk, &names);
    for (int i = 0; i < cnt; i++) {
        ecd_manifest_t m;
        inv_obj_t *o = inv_find(objs, n, cap, names[i]);
        if (o != NULL && ecd_disk_manifest(&disk, names[i], &m) == 0) {
            if (!o->have) {
                o->m = m;
                o->have = 1;
            }
            int rows[ECD_MAX_NODES], nr = ecd_manifest_rows_of(&m, cfg.node, rows);
            void *buf = malloc(m.chunk);
            for (int j = 0; j < nr && buf; j++) {
                ecd_chunk_state_t s = ecd_disk_read_chunk(&disk, &m, rows[j], buf);
                o->state[rows[j]] = s == ECD_CHUNK_OK ? 1 : s == ECD_CHUNK_MISSING ? 2 : 3;
            }
            free(buf);
        }
        free(names[i]);
    }
    free(names);
}

void client_repair(ecd_conn_t *c, char **w, int nw)
{
    char *end;
    long target = nw == 2 ? strtol(w[1], &end, 10) : -1;
    if (nw != 2 || *end != '\0' || target < 0 || target >= ECD_MAX_NODES) {
        reply_err(c, "usage: REPAIR NODE (a node id of the cluster file)");
        return;
    }
    op_t op;
    char err[512] = "";
    inv_obj_t *objs = NULL;
    int nobj = 0, cap = 0, ok = 0, rebuilt = 0, unrecoverable = 0, bad = 0, njobs = 0;
    int dropped = 0;          /* rebuilt chunks whose fingerprint did not match */
    ecd_vrepair_t *vr = NULL; /* what crosses UCX is checked (ecd_verify_op.c) */
    rjob_t *jobs = NULL;
    char(*tmps)[600] = NULL;
    int *rows = NULL;
    ecd_manifest_t *ms = NULL;
    ecd_epoch_t *ep = NULL; /* the epoch the repair's collective runs on */
    uint64_t tag = 0;
    if (op_begin(&op, NULL, err, sizeof(err)) != 0) goto done;
    if (target >= op.cl.n) {
        snprintf(err, sizeof(err), "node %ld is not in the cluster (nodes 0..%d)", target,
                 op.cl.n - 1);
        goto done;
    }
    if (!op.live[target]) {
        snprintf(err, sizeof(err),
                 "node %ld is unreachable (%s): start it or its replacement "
                 "first",
                 target, op.down);
        goto done;
    }
    /* every live node's inventory */
    for (int i = 0; i < op.cl.n; i++) {
        if (!op.live[i]) continue;
        if (i == cfg.node) {
            local_inventory(&objs, &nobj, &cap);
            continue;
        }
        if (ecd_printf(op.conn[i], "INVENTORY\n") != 0 ||
            recv_inventory(op.conn[i], i, &objs, &nobj, &cap) != 0) {
            snprintf(err, sizeof(err), "node %d's inventory: %s", i, strerror(errno));
            goto done;
        }
    }
    /* the jobs: objects whose row on the target is not good */
    jobs = calloc((size_t)(nobj ? nobj : 1), sizeof(*jobs));
    if (jobs == NULL) goto done;
    for (int i = 0; i < nobj; i++) {
        inv_obj_t *o = &objs[i];
        if (!o->have) continue;
        int rr[ECD_MAX_NODES], nr = ecd_manifest_rows_of(&o->m, (int)target, rr);
        for (int t = 0; t < nr; t++) {
            if (o->state[rr[t]] == 1) continue;
            rjob_t *j = &jobs[njobs];
            j->m = o->m;
            j->lost = rr[t];
            int ns = 0;
            for (int r = 0; r < o->m.k + o->m.m && ns < o->m.k; r++)
                if (r != rr[t] && o->state[r] == 1 && op.live[o->m.node[r]]) j->surv[ns++] = r;
            if (ns < o->m.k) {
                ecd_log("repair: object %s has only %d good chunks on live nodes (needs %d); "
                        "cannot rebuild row %d now",
                        o->m.name, ns, o->m.k, rr[t]);
                unrecoverable++;
                continue;
            }
            njobs++;
        }
    }
    /* the group: every live node, in node order */
    int node_of_rank[ECD_MAX_NODES], L = 0;
    ecd_conn_t *member[ECD_MAX_NODES] = {0};
    for (int i = 0; i < op.cl.n; i++) {
        if (!op.live[i]) continue;
        member[L] = op.conn[i];
        node_of_rank[L++] = i;
    }
    if (njobs > 0) {
        char members[ECD_MAX_NODES * 4] = "", vword[64];
        int lost = 0;
        /* the epoch every member runs the collective on, and its tag */
        ep = ecd_epoch_agree(&op.cl, member, node_of_rank, L, &lost, err, sizeof(err));
        if (ep == NULL) goto done;
        tag = ecd_epoch_tags(ep, ECD_REPAIR_INFLIGHT);
        ecd_log("repair of node %ld (op %s): %d chunks to rebuild, on epoch %llu over %d nodes "
                "(tag %llu)",
                target, op.id, njobs, (unsigned long long)ep->seq, L, (unsigned long long)tag);
        vr = vrep_coordinator(njobs);
        vrep_word(vr, vword, sizeof(vword));
        for (int r = 0; r < L; r++) {
            size_t l = strlen(members);
            snprintf(members + l, sizeof(members) - l, "%s%d", r ? "," : "", node_of_rank[r]);
        }
        for (int r = 0; r < L; r++) {
            if (member[r] == NULL) continue;
            if (ecd_printf(member[r], "REPAIR %d %d %d %s E=%llu/%llu%s\n", L, r, njobs, members,
                           (unsigned long long)ep->seq, (unsigned long long)tag, vword) != 0)
                goto send_fail;
            for (int i = 0; i < njobs; i++) {
                char text[ECD_MANIFEST_MAX], sv[ECD_MAX_NODES * 4] = "";
                int tlen = ecd_manifest_format(&jobs[i].m, text, sizeof(text));
                for (int s = 0; s < jobs[i].m.k; s++) {
                    size_t l = strlen(sv);
                    snprintf(sv + l, sizeof(sv) - l, "%s%d", s ? "," : "", jobs[i].surv[s]);
                }
                if (ecd_printf(member[r], "JOB %d %s %d\n", jobs[i].lost, sv, tlen) != 0 ||
                    ecd_write(member[r], text, (size_t)tlen) != 0)
                    goto send_fail;
            }
            char line[ECD_LINE_MAX] = "";
            if (ecd_read_line(member[r], line, sizeof(line)) < 0 || strcmp(line, "OK") != 0) {
                snprintf(err, sizeof(err), "node %d refused the repair: %s", node_of_rank[r],
                         line[0] ? line : strerror(errno));
                goto done;
            }
            continue;
        send_fail:
            snprintf(err, sizeof(err), "sending node %d the jobs: %s", node_of_rank[r],
                     strerror(errno));
            goto done;
        }
        tmps = calloc((size_t)njobs, sizeof(*tmps));
        rows = calloc((size_t)njobs, sizeof(int));
        ms = calloc((size_t)njobs, sizeof(*ms));
        if (tmps == NULL || rows == NULL || ms == NULL) goto done;
        int mine = repair_member(ep, tag, NULL, node_of_rank, L, jobs, njobs, tmps, rows, ms, &bad,
                                 op.id, vr);
        if (mine < 0) {
            snprintf(err, sizeof(err), "the repair collective failed");
            goto done;
        }
        /* reports, then commit on the target */
        int target_rebuilt = target == cfg.node ? mine : 0;
        for (int r = 0; r < L; r++) {
            char line[ECD_LINE_MAX] = "", said[ECD_LINE_MAX], *ww[4];
            if (member[r] == NULL) continue;
            int got = ecd_read_line(member[r], line, sizeof(line));
            snprintf(said, sizeof(said), "%s", got < 0 ? strerror(errno) : line);
            if (got < 0 || ecd_split(line, ww, 4) != 3 || strcmp(ww[0], "READY") != 0) {
                snprintf(err, sizeof(err), "node %d: %s", node_of_rank[r], said);
                goto done;
            }
            if (node_of_rank[r] == target) {
                target_rebuilt = atoi(ww[1]);
                bad += atoi(ww[2]);
            }
            if (vrep_recv(vr, member[r]) != 0) {
                snprintf(err, sizeof(err), "node %d sent no fingerprints: %s", node_of_rank[r],
                         strerror(errno));
                goto done;
            }
        }
        /* a rebuilt chunk whose fingerprint differs is dropped at COMMIT */
        for (int i = 0; i < njobs; i++)
            dropped += vrep_check_job(vr, i, &jobs[i].m, jobs[i].lost, jobs[i].surv);
        size_t dlen;
        const char *drops = vrep_drops(vr, &dlen);
        for (int r = 0; r < L; r++) {
            char line[ECD_LINE_MAX] = "";
            if (member[r] == NULL) continue;
            if (ecd_printf(member[r], "COMMIT %zu\n", dlen) != 0 ||
                ecd_write(member[r], drops, dlen) != 0 ||
                ecd_read_line(member[r], line, sizeof(line)) < 0 ||
                strncmp(line, "OK committed", 12) != 0) {
                snprintf(err, sizeof(err), "node %d did not commit: %s", node_of_rank[r],
                         line[0] ? line : strerror(errno));
                goto done;
            }
        }
        if (target == cfg.node) {
            for (int i = 0; i < mine; i++)
                if (!vrep_dropped(drops, ms[i].name, rows[i]) &&
                    ecd_disk_commit(&disk, &ms[i], &tmps[i], &rows[i], 1) == 0)
                    tmps[i][0] = '\0';
        }
        rebuilt = target_rebuilt - dropped;
    }
    ok = 1;
done:
    if (tmps != NULL) ecd_disk_abort(tmps, njobs);
    op_end(&op);
    ecd_epoch_release(ep);
    if (ok) {
        ecd_log("repair of node %ld: %d objects checked, %d chunks rebuilt, %d unrecoverable, %d "
                "refused by their checksum, %d dropped by their fingerprint",
                target, nobj, rebuilt, unrecoverable, bad, dropped);
        ecd_printf(c,
                   "OK repaired node %ld: %d objects checked, %d chunks rebuilt, %d "
                   "unrecoverable, %d failed their checksum, %d failed their fingerprint (altered "
                   "across UCX; not stored)\n",
                   target, nobj, rebuilt, unrecoverable, bad, dropped);
    } else {
        ecd_log("repair of node %ld failed: %s", target, err);
        reply_err(c, "REPAIR %ld failed: %s", target, err);
    }
    free(objs);
    free(jobs);
    free(tmps);
    free(rows);
    free(ms);
    vrep_end(vr);
}

/* A member's side of "REPAIR L rank njobs members" (in an OP session). */
void member_repair(ecd_conn_t *c, const char *opid, char **w, int nw, ecd_epoch_t *ep)
{
    ecd_vrepair_t *vr = NULL; /* the coordinator's key: what crosses UCX is checked */
    uint64_t eseq = 0, tag = 0;
    if (vrep_member(w, &nw, &vr) != 0 || nw != 6 ||
        sscanf(w[5], "E=%" SCNu64 "/%" SCNu64, &eseq, &tag) != 2) {
        reply_err(c, "REPAIR: expected L RANK JOBS NODES E=SEQ/TAG and an optional verify= key");
        vrep_end(vr);
        return;
    }
    if (ep == NULL || ep->seq != eseq || tag < 1 ||
        tag + 32 * (ECD_REPAIR_INFLIGHT - 1) > LINCOLL_TAG_MAX) {
        reply_err(c, "REPAIR: no agreed epoch %llu here (EPOCH first) or a bad tag",
                  (unsigned long long)eseq);
        vrep_end(vr);
        return;
    }
    int L = atoi(w[1]), rank = atoi(w[2]), nj = atoi(w[3]), node_of_rank[ECD_MAX_NODES], nr = 0;
    for (char *s = w[4]; nr < ECD_MAX_NODES && *s;) {
        node_of_rank[nr++] = (int)strtol(s, &s, 10);
        if (*s == ',') s++;
    }
    if (L < 2 || nr != L || rank < 0 || rank >= L || node_of_rank[rank] != cfg.node || nj < 1 ||
        nj > 1000000) {
        reply_err(c, "REPAIR: inconsistent arguments");
        vrep_end(vr);
        return;
    }
    rjob_t *jobs = calloc((size_t)nj, sizeof(*jobs));
    char(*tmps)[600] = calloc((size_t)nj, sizeof(*tmps));
    int *rows = calloc((size_t)nj, sizeof(int));
    ecd_manifest_t *ms = calloc((size_t)nj, sizeof(*ms));
    int got = 0, rebuilt = -1, bad = 0;
    if (jobs == NULL || tmps == NULL || rows == NULL || ms == NULL) goto out;
    for (; got < nj; got++) {
        char line[ECD_LINE_MAX], *ww[4], err[128];
        if (ecd_read_line(c, line, sizeof(line)) < 0 || ecd_split(line, ww, 4) != 4 ||
            strcmp(ww[0], "JOB") != 0)
            break;
        size_t tlen = strtoull(ww[3], NULL, 10);
        char text[ECD_MANIFEST_MAX];
        if (tlen >= sizeof(text) || ecd_read(c, text, tlen) != 0 ||
            ecd_manifest_parse(text, tlen, &jobs[got].m, err, sizeof(err)) != 0)
            break;
        jobs[got].lost = atoi(ww[1]);
        int ns = 0;
        for (char *s = ww[2]; ns < ECD_MAX_NODES && *s;) {
            jobs[got].surv[ns++] = (int)strtol(s, &s, 10);
            if (*s == ',') s++;
        }
        if (ns != jobs[got].m.k || jobs[got].lost < 0 ||
            jobs[got].lost >= jobs[got].m.k + jobs[got].m.m)
            break;
    }
    if (got < nj) {
        reply_err(c, "REPAIR: job %d is malformed", got);
        goto out;
    }
    if (ecd_printf(c, "OK\n") != 0) goto out;
    rebuilt = repair_member(ep, tag, c, node_of_rank, L, jobs, nj, tmps, rows, ms, &bad, opid, vr);
    if (rebuilt < 0) {
        reply_err(c, "the repair collective failed");
        goto out;
    }
    char *text;
    size_t tlen;
    if (ecd_printf(c, "READY %d %d\n", rebuilt, bad) != 0 || vrep_send(vr, c) != 0 ||
        read_payload(c, "COMMIT", (size_t)nj * (ECD_NAME_MAX + 16), &text, &tlen) != 0) {
        ecd_log("repair (op %s): no commit from the coordinator (%s); dropped", opid,
                strerror(errno));
        goto out;
    }
    int done = 0; /* but the chunks whose fingerprint did not match */
    for (int i = 0; i < rebuilt; i++)
        if (!vrep_dropped(text, ms[i].name, rows[i]) &&
            ecd_disk_commit(&disk, &ms[i], &tmps[i], &rows[i], 1) == 0) {
            tmps[i][0] = '\0';
            done++;
        }
    free(text);
    if (rebuilt > 0) ecd_log("repair (op %s): %d chunks rebuilt here", opid, done);
    ecd_printf(c, "OK committed %d\n", done);
out:
    if (tmps != NULL) ecd_disk_abort(tmps, rebuilt > 0 ? rebuilt : 0);
    free(jobs);
    free(tmps);
    free(rows);
    free(ms);
    vrep_end(vr);
}
