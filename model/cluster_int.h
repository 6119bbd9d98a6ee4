/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cluster_int.h - inside the cluster state: the records of nodes, jobs
 * and tenants, and the small tests on them that model/cluster.c (nodes,
 * jobs, their changes), model/cluster_runs.c (pack's runs of free nodes,
 * the scans placement makes) and model/cluster_check.c (the invariant
 * checker) share.  Not an interface: those files only.
 */
#ifndef NODESHARE_CLUSTER_INT_H
#define NODESHARE_CLUSTER_INT_H

#include <stdint.h>

#include "cluster.h"
#include "nsutil.h"

#define NS_OPEN_LEVELS 24

struct tenant {
    uint64_t job;
    int program;
    int cores;
    int flags;          /* the job's NS_JOB_* */
    int64_t mem;        /* MB the job holds on this node */
};

struct node {
    char *name;         /* for explanations; NULL: the index */
    int cores;
    int sockets;
    uint32_t weight;    /* Slurm's node weight: lower is used first */
    int64_t mem;        /* MB of memory; 0: not tracked */
    int64_t mem_used;   /* sum of tenants' memory */
    int used;           /* sum of tenants' cores */
    int closed;         /* tenants holding NS_JOB_CLOSES_NODES */
    int npacked;        /* tenants added with NS_JOB_PACKED */
    int ntenants;
    int cap;
    struct tenant *t;
};

#define INLINE_SHARES 4

struct job {
    uint64_t id;
    int program;
    int flags;
    int nshares;
    ns_share_t *shares;     /* inl, or malloc'd above INLINE_SHARES */
    ns_share_t inl[INLINE_SHARES];
    int64_t *mem;           /* MB per share, or NULL: none */
};

struct ns_cluster {
    uint64_t version;   /* see ns_cluster_version () */
    int nnodes;
    int max_cores;
    int64_t total_cores;
    int64_t used_cores;
    struct node *nodes;
    uint64_t *empty;    /* bit i set: node i has no tenant */
    uint64_t *open[NS_OPEN_LEVELS]; /* open[k] bit i: node i has tenants,
                                       is not held whole, and has at least
                                       2^k free cores */
    uint64_t *avail;    /* bit i set: node i is not held whole and has a
                           free core (where stock packing may go) */
    int *freec;         /* node i's free cores (cores - used), side by
                           side: the scans of packing read these alone */
    struct runset {     /* [busy_only]: ns_cluster_runs () of a request
                           without limits, kept by every change */
        int n;
        int *start, *end;
        int64_t *cpus;
        int last;       /* the run the last change looked up: the
                           nodes of one job are mostly in one run */
    } runs[2];
    int kept[2];        /* runs[b] is kept by every change (1, the
                           default), else counted when asked (0:
                           ns_cluster_keep_busy_runs, _keep_free_runs) */
    int open_kept;      /* the open bitmaps are kept (1, the default),
                           else a node's free cores are looked at when
                           asked (0: ns_cluster_keep_open) */
    int nlevels;
    int tenant_hint;    /* nodes with this many governed tenants are not
                           open */
    unsigned *mark;     /* node -> markgen when seen (duplicate check) */
    unsigned markgen;
    int nwords;
    int nempty;
    /* distinct node weights, ascending, with their node counts */
    uint32_t *weights;
    int *wcount;
    int nweights;

    struct job *jobs;
    int njobs;
    int jobcap;
    ns_idmap_t index;   /* job id -> index into jobs */
};

static inline int valid_node (const ns_cluster_t *c, int node)
{
    return c && node >= 0 && node < c->nnodes;
}

static inline struct job *find_job (const ns_cluster_t *c, uint64_t id)
{
    int j = ns_idmap_get (&c->index, id);
    return j >= 0 ? &c->jobs[j] : NULL;
}

static inline int node_free_for_open (const ns_cluster_t *c,
                                      const struct node *nd)
{
    if (nd->ntenants == 0 || nd->closed
        || nd->ntenants - nd->npacked >= c->tenant_hint)
        return 0;
    return nd->cores - nd->used;
}

static inline int node_avail (const struct node *nd)
{
    return !nd->closed && nd->used < nd->cores;
}

static inline int usable (const struct node *nd, int unit,
                          const ns_node_limits_t *lim)
{
    int a = nd->closed ? 0 : nd->cores - nd->used;
    if (lim) {
        if (lim->max_cores > 0 && a > lim->max_cores)
            a = lim->max_cores;
        if (nd->mem > 0 && (lim->mem_per_node > 0 || lim->mem_per_cpu > 0)) {
            int64_t fm = nd->mem > nd->mem_used ? nd->mem - nd->mem_used : 0;
            if (lim->mem_per_node > fm)
                return 0;
            fm -= lim->mem_per_node;
            if (lim->mem_per_cpu > 0 && fm / lim->mem_per_cpu < a)
                a = (int)(fm / lim->mem_per_cpu);
        }
    }
    return a > 0 ? a / unit * unit : 0;
}

/* Pack's runs kept up to date: runs[b] holds the runs of consecutive
 * nodes in the avail bitmap (b = 1: less the empty nodes) with their free
 * cores.  A change of one node touches the run it is in or borders. */
static inline int in_runs (const ns_cluster_t *c, int n, int b)
{
    uint64_t bit = 1ULL << (n & 63);
    return (c->avail[n >> 6] & bit) && !(b && (c->empty[n >> 6] & bit));
}

/* A node's membership of runs[0] and runs[1] before a change. */
static inline void runs_was (const ns_cluster_t *c, int n, int *was)
{
    was[0] = in_runs (c, n, 0);
    was[1] = in_runs (c, n, 1);
}

/* Node n changed (it was in runs[b] as was[b], with oldfree free cores):
 * patch the kept runs (model/cluster_runs.c). */
void ns_cl_runs_patch (ns_cluster_t *c, int n, const int *was, int oldfree);

/* ns_cl_runs_patch () where runs are kept: exclusive and spread keep none,
 * and every start and end calls this for each of its nodes. */
static inline void ns_cl_runs_note (ns_cluster_t *c, int n, const int *was,
                                    int oldfree)
{
    if (c->kept[0] || c->kept[1])
        ns_cl_runs_patch (c, n, was, oldfree);
}

#endif /* !NODESHARE_CLUSTER_INT_H */
