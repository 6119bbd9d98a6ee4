/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsmodel.c - slurmctld's records as model/ state: the nodes (effective
 * CPUs, sockets, memory, weight, GRES) and the running jobs (the CPUs each
 * holds on each node, its program), rebuilt when something changed that
 * the job start and end hooks do not follow and every REBUILD_EVERY
 * seconds, and updated by those hooks in between.  The model and the
 * scratch a decision uses beside it are this file's own state (M), read
 * by the decisions through model_*() with ns_ctld_lock held. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nscompat.h"

#include "src/common/bitstring.h"
#include "src/common/job_resources.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "gres.h"
#include "nsconfig.h"
#include "nsutil.h"
#include "policy.h"

#include "jobmemo.h"
#include "nsctld.h"
#include "nsctld_int.h"
#include "nsrequest.h"

/* Rebuild the model from slurmctld's records at least this often, so that
 * anything the start/end hooks missed cannot last. */
#define REBUILD_EVERY 120

struct running {
    uint32_t id;
    time_t end;         /* expected end, refreshed before each use */
};

/* The model of the cluster and what a decision needs beside it: this
 * file's own state, with ns_ctld_lock held. */
static struct {
    ns_cluster_t *cl;
    int dirty;
    int nnodes;
    ns_placement_t *pl;
    unsigned char *allowed;
    unsigned char *gres_node;   /* nnodes entries: the node has GRES */
    int ngres_nodes;
    ns_share_t *shares;         /* nnodes entries of scratch */
    int64_t *mem;               /* nnodes entries: MB beside shares */
    struct running *run;
    int nrun, caprun;
    time_t built;               /* when the model was last rebuilt */
    ns_jobmemo_t *memo;
    unsigned gen;
} M = { .dirty = 1 };

void model_create (void)
{
    if (!(M.memo = ns_jobmemo_create ()))
        fatal ("nodeshare: out of memory");
    M.dirty = 1;
}

void model_destroy (void)
{
    ns_cluster_destroy (M.cl);
    M.cl = NULL;
    ns_placement_destroy (M.pl);
    M.pl = NULL;
    ns_jobmemo_destroy (M.memo);
    M.memo = NULL;
    free (M.allowed);
    free (M.gres_node);
    free (M.shares);
    free (M.mem);
    free (M.run);
    M.allowed = NULL;
    M.gres_node = NULL;
    M.shares = NULL;
    M.mem = NULL;
    M.run = NULL;
    M.nnodes = M.nrun = M.caprun = 0;
}

void model_mark_dirty (void)
{
    M.dirty = 1;
}

void model_config_changed (void)
{
    ns_jobmemo_forget_programs (M.memo);
    M.dirty = 1;
}

ns_jobmemo_t *model_memo (void)
{
    return M.memo;
}

const ns_cluster_t *model_cluster (void)
{
    return M.cl;
}

ns_cluster_t *model_cl (void)
{
    return M.cl;
}

ns_placement_t *model_pl (void)
{
    return M.pl;
}

int model_nnodes (void)
{
    return M.nnodes;
}

unsigned model_gen (void)
{
    return M.gen;
}

void model_reqctx (ns_reqctx_t *x)
{
    x->nnodes = M.nnodes;
    x->allowed = M.allowed;
    x->gres_node = M.gres_node;
    x->ngres_nodes = M.ngres_nodes;
}

/*
 * The cluster
 */

int node_cpus (const node_record_t *node)
{
    if (!node)
        return 0;
    return node->cpus_efctv ? node->cpus_efctv : node->cpus;
}

static int ensure_scratch (int nn)
{
    if (nn == M.nnodes && M.pl)
        return 0;
    ns_placement_destroy (M.pl);
    free (M.allowed);
    free (M.gres_node);
    free (M.shares);
    free (M.mem);
    M.pl = ns_placement_create (nn);
    M.allowed = calloc (nn, 1);
    M.gres_node = calloc (nn, 1);
    M.shares = calloc (nn, sizeof (ns_share_t));
    M.mem = calloc (nn, sizeof (int64_t));
    M.nnodes = nn;
    if (!M.pl || !M.allowed || !M.gres_node || !M.shares || !M.mem) {
        M.nnodes = 0;
        return -1;
    }
    return 0;
}

static int push_running (job_record_t *job)
{
    if (ns_grow (&M.run, &M.caprun, M.nrun + 1, sizeof (*M.run), 64) < 0)
        return -1;
    M.run[M.nrun++] = (struct running) {
        .id = job->job_id, .end = job->end_time,
    };
    return 0;
}

static void drop_running (uint32_t id)
{
    for (int i = 0; i < M.nrun; i++)
        if (M.run[i].id == id) {
            M.run[i] = M.run[--M.nrun];
            return;
        }
}

/* Is memory a consumable resource (CR_*_Memory)? */
/* The CPUs job holds on each node, into M.shares, and its memory, into
 * M.mem; returns the count. */
static int job_shares (const job_record_t *job)
{
    const job_resources_t *jr = job->job_resrcs;
    int n = 0, k = 0;
    if (!jr || !jr->node_bitmap || !jr->cpus)
        return 0;
    int last = bit_fls (jr->node_bitmap);
    for (int i = bit_ffs (jr->node_bitmap); i >= 0 && i <= last; i++) {
        if (!bit_test (jr->node_bitmap, i))
            continue;
        int cpus = jr->cpus[k];
        uint64_t mem = jr->memory_allocated ? jr->memory_allocated[k] : 0;
        k++;
        if (i >= M.nnodes || cpus <= 0)
            continue;
        int cap = ns_node_cores (M.cl, i);
        M.mem[n] = ns_req_mem_consumed () && mem < INT64_MAX ? (int64_t)mem : 0;
        M.shares[n].node = i;
        M.shares[n].cores = cpus < cap ? cpus : cap;
        n++;
    }
    return n;
}

/* The NS_JOB_* flags of a running job the plugin has no decision of
 * (placed before a restart, or by stock cons_tres): closed nodes for
 * --exclusive and the exclusive/spread policies, striped when the policy
 * governs it and it spans several nodes, else packed. */
static int running_flags (const job_record_t *job, int program, int nnodes)
{
    const ns_policy_t *pol = ns_config_policy (ctld_cfg ());
    const job_details_t *d = job->details;
    if ((d && ns_req_holds_whole_nodes (d))
        || pol->kind == NS_POLICY_EXCLUSIVE || pol->kind == NS_POLICY_SPREAD)
        return NS_JOB_CLOSES_NODES
               | (pol->kind == NS_POLICY_SPREAD ? NS_JOB_STRIPED : 0);
    /* A striped job's details hold the shape this plugin wrote (min_nodes,
     * ntasks_per_node): they cannot tell an explicit request from ours,
     * so the program and size decide (a job that asked for -N counts as
     * governed after a restart, the safe side of the co-tenant limit). */
    if (!d)
        return NS_JOB_PACKED;
    ns_request_t r;
    int cpt = ns_set16 (d->cpus_per_task) ? d->cpus_per_task : 1;
    int ntasks = d->num_tasks && d->num_tasks != NO_VAL
                     ? (int)d->num_tasks : (int)(d->min_cpus / cpt);
    ns_request_init (&r, job->job_id, program, ntasks > 0 ? ntasks : 1);
    r.cpus_per_task = cpt;
    if (!ns_place_governed (M.cl, pol, model_now (), &r))
        return NS_JOB_PACKED;
    return nnodes > 1 ? NS_JOB_STRIPED : 0;
}

/* Add a job that holds resources to the model.  0; -2 when the model
 * cannot hold it (its cores are held already: a partition with
 * OverSubscribe lets cons_tres give them to several jobs), which a
 * rebuild would not change; -1 on other trouble (a rebuild may mend it).
 * A job left out is logged once, and is not seen as a co-tenant. */
static int add_running (job_record_t *job)
{
    ns_error_t err;
    ns_jobinfo_t *ji = ns_jobmemo_get (M.memo, job->job_id);
    if (!ji)
        return -1;
    ji->gen = M.gen;
    int n = job_shares (job);
    if (n == 0)
        return 0;
    int program = program_of (job, ji);
    int flags = ji->placed ? ji->flags : running_flags (job, program, n);
    if (ns_cluster_add_job_mem (M.cl, job->job_id, program, M.shares, n,
                                flags, M.mem, &err) < 0
        && (!flags || ns_cluster_add_job_mem (M.cl, job->job_id, program,
                                              M.shares, n, 0, M.mem,
                                              &err) < 0)) {
        int full = errno == ENOSPC;
        /* Once per job, not again at every rebuild. */
        char *line = xstrdup_printf ("left out of the model: %s",
                                     err.text);
        uint64_t h = ns_fnv1a_str (line);
        if (ji->logged != h) {
            ji->logged = h;
            verbose ("nodeshare: %pJ %s", job, line);
        }
        xfree (line);
        return full ? -2 : -1;
    }
    return push_running (job);
}

/* Does the node have generic resources (slurm.conf Gres=, or as it
 * registered)? */
static int node_has_gres (const node_record_t *node)
{
    return ns_gres_any (node->gres && node->gres[0] ? node->gres
                        : node->config_ptr ? node->config_ptr->gres : NULL);
}

static int rebuild (ns_error_t *err)
{
    int nn = node_record_count;
    if (nn < 1)
        return ns_error_set (err, EINVAL, "no nodes");
    ns_cluster_destroy (M.cl);
    M.cl = NULL;
    M.nrun = 0;
    M.ngres_nodes = 0;
    if (ensure_scratch (nn) < 0)
        return ns_error_set (err, ENOMEM, "out of memory");
    if (!(M.cl = ns_cluster_create (nn, 1, 1, err)))
        return -1;
    ns_cluster_set_tenant_hint (M.cl,
                                ns_config_policy (ctld_cfg ())->max_cotenants);
    for (int i = 0; i < nn; i++) {
        const node_record_t *node = node_record_table_ptr[i];
        int cpus = node_cpus (node);
        int sockets = node && node->tot_sockets ? node->tot_sockets : 1;
        if (cpus < 1)
            cpus = 1;   /* no such node: the candidate bitmaps exclude it */
        if (sockets > cpus)
            sockets = cpus;
        if (ns_cluster_set_node (M.cl, i, cpus, sockets, err) < 0)
            return -1;
        /* What cons_tres allocates besides CPUs, and the order it takes
         * nodes in (design.md 7.2). */
        if (node && ns_req_mem_consumed () && node->real_memory > node->mem_spec_limit
            && node->real_memory < INT64_MAX)
            (void)ns_cluster_set_node_mem (
                M.cl, i, (int64_t)(node->real_memory - node->mem_spec_limit),
                NULL);
        if (node && ns_cluster_set_node_weight (M.cl, i, node->weight, err)
                        < 0)
            return -1;
        /* Explanations (log, squeue's reason) name nodes as Slurm does.
         * A name the model refuses (over 255 bytes, no memory) leaves the
         * index: cosmetic, never a reason to fall back to stock. */
        if (node && node->name)
            (void)ns_cluster_set_node_name (M.cl, i, node->name, NULL);
        M.gres_node[i] = node && node_has_gres (node);
        M.ngres_nodes += M.gres_node[i];
    }
    M.gen++;
    if (job_list) {
        list_itr_t *it = list_iterator_create (job_list);
        job_record_t *job;
        while ((job = list_next (it))) {
            ns_jobinfo_t *ji = ns_jobmemo_get (M.memo, job->job_id);
            if (ji)
                ji->gen = M.gen;
            if (IS_JOB_RUNNING (job))
                add_running (job);
        }
        list_iterator_destroy (it);
        /* Jobs that left slurmctld: forget them. */
        ns_jobmemo_sweep (M.memo, M.gen);
    }
    M.dirty = 0;
    M.built = time (NULL);
    if (learn_start ())
        learn_running (0);
    debug ("nodeshare: model rebuilt: %d nodes, %d running jobs", nn,
           ns_cluster_njobs (M.cl));
    return 0;
}

/* The model as slurmctld's state is now: rebuilt when something changed
 * that the incremental updates do not follow, or every REBUILD_EVERY
 * seconds.  0, or -1 (err set; the next call tries again). */
int model_current (ns_error_t *err)
{
    if (!M.dirty && M.nnodes == node_record_count
        && time (NULL) - M.built <= REBUILD_EVERY)
        return 0;
    if (rebuild (err) < 0) {
        M.dirty = 1;
        return -1;
    }
    return 0;
}

/* Pending jobs that are cancelled never reach job_fini and rebuilds may
 * be rare: forget jobs that left slurmctld once the memo clearly holds
 * more than the jobs there are. */
void model_sweep_memo (void)
{
    if (!job_list
        || ns_jobmemo_count (M.memo) <= 2 * list_count (job_list) + 1024)
        return;
    M.gen++;
    list_itr_t *it = list_iterator_create (job_list);
    job_record_t *job;
    while ((job = list_next (it))) {
        ns_jobinfo_t *ji = ns_jobmemo_find (M.memo, job->job_id);
        if (ji)
            ji->gen = M.gen;
    }
    list_iterator_destroy (it);
    ns_jobmemo_sweep (M.memo, M.gen);
}

void ns_ctld_dirty (void)
{
    pthread_mutex_lock (&ns_ctld_lock);
    M.dirty = 1;
    pthread_mutex_unlock (&ns_ctld_lock);
}

void ns_ctld_job_begin (job_record_t *job)
{
    pthread_mutex_lock (&ns_ctld_lock);
    /* A job the model cannot hold (-2) is left out: rebuilding for it
     * would only leave it out again, at every scheduling call. */
    if (ctld_active () && !M.dirty && M.cl && add_running (job) == -1)
        M.dirty = 1;
    if (ctld_active ()) {
        if (!learn_on () && learn_start ())
            learn_running (job->job_id);
        learn_begin (job, 1);
    }
    pthread_mutex_unlock (&ns_ctld_lock);
}

void ns_ctld_job_fini (job_record_t *job)
{
    pthread_mutex_lock (&ns_ctld_lock);
    if (ctld_active () && !M.dirty && M.cl) {
        if (ns_job_exists (M.cl, job->job_id) > 0)
            ns_cluster_remove_job (M.cl, job->job_id, NULL);
        drop_running (job->job_id);
    }
    if (ctld_active ())
        learn_end (job);
    pthread_mutex_unlock (&ns_ctld_lock);
}

static int by_end (const void *a, const void *b)
{
    const struct running *x = a, *y = b;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Time limits change (scontrol update): read the expected ends again.
 * By id, not by a kept pointer: a record is only safe while looked up. */
static void refresh_ends (void)
{
    if (!find_job_record)
        return;
    for (int i = 0; i < M.nrun; i++) {
        job_record_t *job = find_job_record (M.run[i].id);
        if (job)
            M.run[i].end = job->end_time;
    }
}

/* Where will the job start?  Take running jobs out of the model in the
 * order they end until the policy places the job (ns_place_after: the
 * same "what if these jobs ended" the simulator's reservation uses); that
 * placement is where cons_tres is then asked for a start time, so that
 * backfill's reservation lies on the nodes nodeshare will pick at that
 * time.  1 when a placement was found (M.pl); *not_before is then the end
 * of the last job that had to end for it, before which the policy does
 * not place the job. */
int model_place_after (const ns_request_t *r, time_t from,
                       time_t *not_before)
{
    ns_error_t err;
    refresh_ends ();
    qsort (M.run, M.nrun, sizeof (*M.run), by_end);
    uint64_t *ids = calloc (M.nrun ? M.nrun : 1, sizeof (*ids));
    double *ends = calloc (M.nrun ? M.nrun : 1, sizeof (*ends));
    int found = 0;
    if (ids && ends) {
        for (int k = 0; k < M.nrun; k++) {
            ids[k] = M.run[k].id;
            /* Jobs that end before the window opens end together at
             * its start (the first try is once they all have). */
            ends[k] = (double)(M.run[k].end < from ? from : M.run[k].end);
        }
        ns_request_t q = *r;
        q.flags |= NS_REQ_QUIET;
        int k = ns_place_after (M.cl, ns_config_policy (ctld_cfg ()),
                                model_now (),
                                ns_config_progtab (ctld_cfg ()), &q, ids, ends,
                                M.nrun, M.pl, &err);
        if (k < 0)
            M.dirty = 1;    /* the model could not be restored: rebuild */
        found = k > 0;
        if (found)
            *not_before = (time_t)ends[k - 1];
    }
    free (ids);
    free (ends);
    return found;
}

/* Does a running job end by t? */
int model_any_ends_by (time_t t)
{
    refresh_ends ();
    for (int i = 0; i < M.nrun; i++)
        if (M.run[i].end <= t)
            return 1;
    return 0;
}
