/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cluster.c - nodes, running jobs and the queries placement needs
 *
 * Jobs live in a dense array (swap-remove) indexed by an open-addressing
 * hash on the id (linear probing, backward-shift delete: no tombstones, so
 * 100,000 add/remove cycles do not degrade lookups).  Each node keeps its
 * own small tenant array, and a bitmap marks empty nodes.  The free cores
 * of all nodes sit in one array, and pack's runs of nodes with free cores
 * (with and without the empty ones) are kept as sorted arrays that every
 * change of a node patches: its run's count, or a run grown, merged,
 * shrunk or split.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "cluster_test.h"
#include "nsutil.h"
#include "progtab.h"

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

/* jobs[] moves on growth and swap-remove: re-point inline storage. */
static struct job *find_job (const ns_cluster_t *c, uint64_t id);

static void fix_inline (struct job *j)
{
    if (j->nshares <= INLINE_SHARES)
        j->shares = j->inl;
}

static void free_shares (struct job *j)
{
    if (j->nshares > INLINE_SHARES)
        free (j->shares);
    free (j->mem);
    j->mem = NULL;
}

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

/* Versions are drawn from one sequence for every cluster of the process:
 * two states of any clusters never share one. */
static uint64_t version_seq;

static void bump (ns_cluster_t *c)
{
    c->version = __atomic_add_fetch (&version_seq, 1, __ATOMIC_RELAXED);
}

uint64_t ns_cluster_version (const ns_cluster_t *c)
{
    return c ? c->version : 0;
}

/* Levels 2^0 .. 2^k <= cores: more would always be empty. */
static int levels_for (int cores)
{
    int k = 32 - __builtin_clz ((unsigned)cores);
    return k < NS_OPEN_LEVELS ? k : NS_OPEN_LEVELS;
}

static int node_free_for_open (const ns_cluster_t *c, const struct node *nd)
{
    if (nd->ntenants == 0 || nd->closed
        || nd->ntenants - nd->npacked >= c->tenant_hint)
        return 0;
    return nd->cores - nd->used;
}

static int node_avail (const struct node *nd)
{
    return !nd->closed && nd->used < nd->cores;
}

static void update_open (ns_cluster_t *c, int n)
{
    uint64_t bit = 1ULL << (n & 63);
    if (node_avail (&c->nodes[n]))
        c->avail[n >> 6] |= bit;
    else
        c->avail[n >> 6] &= ~bit;
    if (!c->open_kept)
        return;
    int free = node_free_for_open (c, &c->nodes[n]);
    for (int k = 0; k < c->nlevels; k++) {
        if (free >= (1 << k))
            c->open[k][n >> 6] |= bit;
        else
            c->open[k][n >> 6] &= ~bit;
    }
}

static void set_empty (ns_cluster_t *c, int n, int empty)
{
    uint64_t bit = 1ULL << (n & 63);
    int was = (c->empty[n >> 6] & bit) != 0;
    if (was == empty)
        return;
    if (empty)
        c->empty[n >> 6] |= bit;
    else
        c->empty[n >> 6] &= ~bit;
    c->nempty += empty ? 1 : -1;
}

/* Pack's runs kept up to date: runs[b] holds the runs of consecutive
 * nodes in the avail bitmap (b = 1: less the empty nodes) with their free
 * cores.  A change of one node touches the run it is in or borders. */
static int in_runs (const ns_cluster_t *c, int n, int b)
{
    uint64_t bit = 1ULL << (n & 63);
    return (c->avail[n >> 6] & bit) && !(b && (c->empty[n >> 6] & bit));
}

/* The last run starting at or before n, or -1. */
static int run_at (const struct runset *r, int n)
{
    int lo = 0, hi = r->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (r->start[mid] <= n)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

static void run_insert (struct runset *r, int i, int start, int end,
                        int64_t cpus)
{
    size_t tail = (size_t)(r->n - i);
    memmove (&r->start[i + 1], &r->start[i], tail * sizeof (int));
    memmove (&r->end[i + 1], &r->end[i], tail * sizeof (int));
    memmove (&r->cpus[i + 1], &r->cpus[i], tail * sizeof (int64_t));
    r->start[i] = start;
    r->end[i] = end;
    r->cpus[i] = cpus;
    r->n++;
}

static void run_delete (struct runset *r, int i)
{
    size_t tail = (size_t)(r->n - i - 1);
    memmove (&r->start[i], &r->start[i + 1], tail * sizeof (int));
    memmove (&r->end[i], &r->end[i + 1], tail * sizeof (int));
    memmove (&r->cpus[i], &r->cpus[i + 1], tail * sizeof (int64_t));
    r->n--;
}

/* Node n changed (it was in runs[b] as was[b], with oldfree free cores);
 * the other nodes' free cores are those their runs count. */
static void runs_note (ns_cluster_t *c, int n, const int *was, int oldfree)
{
    int nowfree = c->freec[n];
    for (int b = 0; b < 2; b++) {
        if (!c->kept[b])
            continue;
        struct runset *r = &c->runs[b];
        int is = in_runs (c, n, b);
        if (!was[b] && !is)
            continue;
        int i = run_at (r, n);
        if (was[b] && is)
            r->cpus[i] += nowfree - oldfree;
        else if (is) {
            int left = i >= 0 && r->end[i] == n - 1;
            int right = i + 1 < r->n && r->start[i + 1] == n + 1;
            if (left && right) {
                r->end[i] = r->end[i + 1];
                r->cpus[i] += nowfree + r->cpus[i + 1];
                run_delete (r, i + 1);
            }
            else if (left) {
                r->end[i] = n;
                r->cpus[i] += nowfree;
            }
            else if (right) {
                r->start[i + 1] = n;
                r->cpus[i + 1] += nowfree;
            }
            else
                run_insert (r, i + 1, n, n, nowfree);
        }
        else if (r->start[i] == r->end[i])
            run_delete (r, i);
        else if (n == r->start[i]) {
            r->start[i]++;
            r->cpus[i] -= oldfree;
        }
        else if (n == r->end[i]) {
            r->end[i]--;
            r->cpus[i] -= oldfree;
        }
        else {
            /* split: count the shorter side */
            int64_t rest = r->cpus[i] - oldfree, lsum = 0;
            if (n - r->start[i] <= r->end[i] - n)
                for (int k = r->start[i]; k < n; k++)
                    lsum += c->freec[k];
            else {
                int64_t rsum = 0;
                for (int k = n + 1; k <= r->end[i]; k++)
                    rsum += c->freec[k];
                lsum = rest - rsum;
            }
            run_insert (r, i + 1, n + 1, r->end[i], rest - lsum);
            r->end[i] = n - 1;
            r->cpus[i] = lsum;
        }
    }
}

/* A node's membership of runs[0] and runs[1] before a change. */
static void runs_was (const ns_cluster_t *c, int n, int *was)
{
    was[0] = in_runs (c, n, 0);
    was[1] = in_runs (c, n, 1);
}

ns_cluster_t *ns_cluster_create (int nnodes, int cores, int sockets,
                                 ns_error_t *err)
{
    if (nnodes < 1 || nnodes > 10000000) {
        ns_error_set (err, EINVAL, "node count %d out of range 1..10000000",
                      nnodes);
        return NULL;
    }
    if (cores < 1 || sockets < 1 || sockets > cores) {
        ns_error_set (err, EINVAL,
                      "node shape %d cores in %d sockets is impossible",
                      cores, sockets);
        return NULL;
    }
    ns_cluster_t *c = calloc (1, sizeof (*c));
    if (!c)
        goto nomem;
    c->nnodes = nnodes;
    c->nwords = (nnodes + 63) / 64;
    c->nodes = calloc (nnodes, sizeof (*c->nodes));
    c->empty = calloc (c->nwords, sizeof (uint64_t));
    c->avail = calloc (c->nwords, sizeof (uint64_t));
    c->freec = calloc (nnodes, sizeof (int));
    for (int b = 0; b < 2; b++) {
        size_t cap = (size_t)nnodes / 2 + 2;
        c->runs[b].start = calloc (cap * 2, sizeof (int));
        c->runs[b].cpus = calloc (cap, sizeof (int64_t));
        if (!c->runs[b].start || !c->runs[b].cpus)
            goto nomem;
        c->runs[b].end = c->runs[b].start + cap;
    }
    c->mark = calloc (nnodes, sizeof (unsigned));
    c->nlevels = levels_for (cores);
    c->tenant_hint = 1 << 30;
    for (int k = 0; k < NS_OPEN_LEVELS; k++)
        if (!(c->open[k] = calloc (c->nwords, sizeof (uint64_t))))
            goto nomem;
    c->weights = calloc (1, sizeof (*c->weights));
    c->wcount = calloc (1, sizeof (*c->wcount));
    if (!c->nodes || !c->empty || !c->avail || !c->freec || !c->mark || !c->weights
        || !c->wcount || ns_idmap_init (&c->index) < 0)
        goto nomem;
    c->weights[0] = 1;
    c->wcount[0] = nnodes;
    c->nweights = 1;
    for (int i = 0; i < nnodes; i++) {
        c->nodes[i].weight = 1;
        c->nodes[i].cores = cores;
        c->nodes[i].sockets = sockets;
        c->freec[i] = cores;
        set_empty (c, i, 1);
        c->avail[i >> 6] |= 1ULL << (i & 63);
    }
    c->max_cores = cores;
    c->total_cores = (int64_t)cores * nnodes;
    c->kept[0] = c->kept[1] = 1;
    c->open_kept = 1;
    c->runs[0].n = 1;   /* every node, all empty */
    c->runs[0].start[0] = 0;
    c->runs[0].end[0] = nnodes - 1;
    c->runs[0].cpus[0] = c->total_cores;
    bump (c);
    return c;
nomem:
    ns_cluster_destroy (c);
    ns_error_set (err, ENOMEM, "out of memory for %d nodes", nnodes);
    return NULL;
}

void ns_cluster_destroy (ns_cluster_t *c)
{
    int saved = errno;   /* a destroy never changes errno */
    if (!c)
        return;
    for (int i = 0; c->nodes && i < c->nnodes; i++) {
        free (c->nodes[i].t);
        free (c->nodes[i].name);
    }
    for (int j = 0; j < c->njobs; j++)
        free_shares (&c->jobs[j]);
    free (c->nodes);
    free (c->empty);
    free (c->avail);
    free (c->freec);
    for (int b = 0; b < 2; b++) {
        free (c->runs[b].start);
        free (c->runs[b].cpus);
    }
    free (c->mark);
    free (c->weights);
    free (c->wcount);
    for (int k = 0; k < NS_OPEN_LEVELS; k++)
        free (c->open[k]);
    free (c->jobs);
    ns_idmap_free (&c->index);
    free (c);
    errno = saved;
}

static int valid_node (const ns_cluster_t *c, int node)
{
    return c && node >= 0 && node < c->nnodes;
}

int ns_cluster_set_node_name (ns_cluster_t *c, int node, const char *name,
                              ns_error_t *err)
{
    if (!valid_node (c, node))
        return ns_error_set (err, EINVAL, "node %d does not exist", node);
    char *copy = NULL;
    if (name && *name) {
        size_t len = strnlen (name, NS_NODE_NAME_MAX + 1);
        if (len > NS_NODE_NAME_MAX)
            return ns_error_set (err, EINVAL,
                                 "node %d: name longer than %d bytes", node,
                                 NS_NODE_NAME_MAX);
        if (!(copy = strndup (name, len)))
            return ns_error_set (err, ENOMEM, "out of memory");
    }
    free (c->nodes[node].name);
    c->nodes[node].name = copy;
    return 0;
}

const char *ns_node_name (const ns_cluster_t *c, int node)
{
    return valid_node (c, node) ? c->nodes[node].name : NULL;
}

int ns_cluster_set_node (ns_cluster_t *c, int node, int cores, int sockets,
                         ns_error_t *err)
{
    if (!valid_node (c, node))
        return ns_error_set (err, EINVAL, "node %d does not exist", node);
    if (cores < 1 || sockets < 1 || sockets > cores)
        return ns_error_set (err, EINVAL,
                             "node %d: %d cores in %d sockets is impossible",
                             node, cores, sockets);
    if (c->nodes[node].ntenants > 0)
        return ns_error_set (err, EBUSY, "node %d has running jobs", node);
    int old = c->nodes[node].cores;
    c->total_cores += cores - old;
    bump (c);
    int was[2];
    runs_was (c, node, was);
    c->nodes[node].cores = cores;
    c->nodes[node].sockets = sockets;
    c->freec[node] = cores;
    runs_note (c, node, was, old);
    if (cores > c->max_cores)
        c->max_cores = cores;
    else if (old == c->max_cores && cores < old) {
        /* the largest node shrank: look again (rare; setting up a
         * cluster node by node stays linear) */
        c->max_cores = 0;
        for (int i = 0; i < c->nnodes; i++)
            if (c->nodes[i].cores > c->max_cores)
                c->max_cores = c->nodes[i].cores;
    }
    int levels = levels_for (c->max_cores);
    if (levels != c->nlevels) {
        c->nlevels = levels;
        for (int i = 0; i < c->nnodes; i++)
            update_open (c, i);
    }
    return 0;
}

int ns_cluster_set_node_mem (ns_cluster_t *c, int node, int64_t mem,
                             ns_error_t *err)
{
    if (!valid_node (c, node))
        return ns_error_set (err, EINVAL, "node %d does not exist", node);
    if (mem < 0)
        return ns_error_set (err, EINVAL, "node %d: %lld MB of memory", node,
                             (long long)mem);
    bump (c);
    c->nodes[node].mem = mem;
    return 0;
}

int64_t ns_node_mem (const ns_cluster_t *c, int node)
{
    return valid_node (c, node) ? c->nodes[node].mem : 0;
}

int64_t ns_node_free_mem (const ns_cluster_t *c, int node)
{
    if (!valid_node (c, node))
        return 0;
    const struct node *nd = &c->nodes[node];
    if (!nd->mem)
        return INT64_MAX;
    return nd->mem > nd->mem_used ? nd->mem - nd->mem_used : 0;
}

int ns_cluster_set_node_weight (ns_cluster_t *c, int node, uint32_t weight,
                                ns_error_t *err)
{
    if (!valid_node (c, node))
        return ns_error_set (err, EINVAL, "node %d does not exist", node);
    uint32_t old = c->nodes[node].weight;
    if (old == weight)
        return 0;
    int k = 0;
    while (k < c->nweights && c->weights[k] < weight)
        k++;
    if (k == c->nweights || c->weights[k] != weight) {
        uint32_t *w = realloc (c->weights,
                               sizeof (*w) * (size_t)(c->nweights + 1));
        if (w)
            c->weights = w;
        int *n = w ? realloc (c->wcount,
                              sizeof (*n) * (size_t)(c->nweights + 1))
                   : NULL;
        if (!w || !n)
            return ns_error_set (err, ENOMEM, "out of memory");
        c->wcount = n;
        memmove (c->weights + k + 1, c->weights + k,
                 sizeof (*w) * (size_t)(c->nweights - k));
        memmove (c->wcount + k + 1, c->wcount + k,
                 sizeof (*n) * (size_t)(c->nweights - k));
        c->weights[k] = weight;
        c->wcount[k] = 0;
        c->nweights++;
    }
    c->wcount[k]++;
    for (int i = 0; i < c->nweights; i++)
        if (c->weights[i] == old && --c->wcount[i] == 0) {
            memmove (c->weights + i, c->weights + i + 1,
                     sizeof (*c->weights) * (size_t)(c->nweights - i - 1));
            memmove (c->wcount + i, c->wcount + i + 1,
                     sizeof (*c->wcount) * (size_t)(c->nweights - i - 1));
            c->nweights--;
            break;
        }
    bump (c);
    c->nodes[node].weight = weight;
    return 0;
}

uint32_t ns_node_weight (const ns_cluster_t *c, int node)
{
    return valid_node (c, node) ? c->nodes[node].weight : 0;
}

int ns_cluster_nweights (const ns_cluster_t *c)
{
    return c ? c->nweights : 0;
}

uint32_t ns_cluster_weight (const ns_cluster_t *c, int i)
{
    return c && i >= 0 && i < c->nweights ? c->weights[i] : 0;
}

static int usable (const struct node *nd, int unit,
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

int ns_node_usable_cores (const ns_cluster_t *c, int node, int unit,
                          const ns_node_limits_t *lim)
{
    if (!valid_node (c, node) || unit < 1)
        return 0;
    return usable (&c->nodes[node], unit, lim);
}

const int64_t *ns_job_mem_ref (const ns_cluster_t *c, uint64_t id)
{
    const struct job *j = c ? find_job (c, id) : NULL;
    return j ? j->mem : NULL;
}

static struct job *find_job (const ns_cluster_t *c, uint64_t id)
{
    int j = ns_idmap_get (&c->index, id);
    return j >= 0 ? &c->jobs[j] : NULL;
}

/* Room for one more tenant. */
static int tenant_reserve (struct node *n)
{
    if (n->ntenants < n->cap)
        return 0;
    return ns_grow (&n->t, &n->cap, n->ntenants + 1, sizeof (*n->t), 2);
}

static int check_shares (ns_cluster_t *c, const ns_share_t *shares,
                         int nshares, int flags, ns_error_t *err)
{
    if (nshares < 1 || !shares)
        return ns_error_set (err, EINVAL, "a job needs at least one node");
    if (++c->markgen == 0) {    /* wrapped: forget old marks */
        memset (c->mark, 0, sizeof (unsigned) * c->nnodes);
        c->markgen = 1;
    }
    for (int i = 0; i < nshares; i++) {
        int n = shares[i].node;
        if (!valid_node (c, n))
            return ns_error_set (err, EINVAL, "node %d does not exist", n);
        const struct node *nd = &c->nodes[n];
        if (shares[i].cores < 1)
            return ns_error_set (err, EINVAL, "node %d: %d cores", n,
                                 shares[i].cores);
        if (c->mark[n] == c->markgen)
            return ns_error_set (err, EINVAL, "node %d given twice", n);
        c->mark[n] = c->markgen;
        if (nd->closed)
            return ns_error_set (err, ENOSPC,
                                 "node %d is held whole by another job", n);
        if ((flags & NS_JOB_CLOSES_NODES) && nd->ntenants > 0)
            return ns_error_set (err, ENOSPC,
                                 "node %d has a tenant; cannot hold it whole",
                                 n);
        if (nd->used + shares[i].cores > nd->cores)
            return ns_error_set (err, ENOSPC,
                                 "node %d: %d cores asked, %d free", n,
                                 shares[i].cores, nd->cores - nd->used);
    }
    return 0;
}

int ns_cluster_add_job (ns_cluster_t *c, uint64_t id, int program,
                        const ns_share_t *shares, int nshares, int flags,
                        ns_error_t *err)
{
    return ns_cluster_add_job_mem (c, id, program, shares, nshares, flags,
                                   NULL, err);
}

int ns_cluster_add_job_mem (ns_cluster_t *c, uint64_t id, int program,
                            const ns_share_t *shares, int nshares, int flags,
                            const int64_t *mem, ns_error_t *err)
{
    if (!c)
        return ns_error_set (err, EINVAL, "no cluster");
    if (find_job (c, id))
        return ns_error_set (err, EEXIST, "job %llu is already running",
                             (unsigned long long)id);
    if (check_shares (c, shares, nshares, flags, err) < 0)
        return -1;
    int any_mem = 0;
    for (int i = 0; mem && i < nshares; i++) {
        if (mem[i] < 0)
            return ns_error_set (err, EINVAL, "node %d: %lld MB",
                                 shares[i].node, (long long)mem[i]);
        any_mem |= mem[i] > 0;
    }
    if (c->njobs == c->jobcap) {
        if (ns_grow (&c->jobs, &c->jobcap, c->njobs + 1, sizeof (*c->jobs),
                     64) < 0)
            return ns_error_set (err, ENOMEM, "out of memory");
        for (int k = 0; k < c->njobs; k++)
            fix_inline (&c->jobs[k]);
    }
    /* Reserve every tenant slot first so a failure changes nothing. */
    for (int i = 0; i < nshares; i++)
        if (tenant_reserve (&c->nodes[shares[i].node]) < 0)
            return ns_error_set (err, ENOMEM, "out of memory");
    int j = c->njobs;
    struct job *jb = &c->jobs[j];
    jb->nshares = nshares;
    if (nshares > INLINE_SHARES) {
        jb->shares = malloc (sizeof (ns_share_t) * nshares);
        if (!jb->shares)
            return ns_error_set (err, ENOMEM, "out of memory");
    }
    else
        jb->shares = jb->inl;
    jb->mem = NULL;
    if (any_mem) {
        jb->mem = malloc (sizeof (int64_t) * nshares);
        if (!jb->mem) {
            free_shares (jb);
            return ns_error_set (err, ENOMEM, "out of memory");
        }
        memcpy (jb->mem, mem, sizeof (int64_t) * nshares);
    }
    if (ns_idmap_put (&c->index, id, j) < 0) {
        free_shares (jb);
        return ns_error_set (err, ENOMEM, "out of memory");
    }
    memcpy (jb->shares, shares, sizeof (ns_share_t) * nshares);

    for (int i = 0; i < nshares; i++) {
        struct node *nd = &c->nodes[shares[i].node];
        int64_t m = jb->mem ? jb->mem[i] : 0;
        int was[2], oldfree = c->freec[shares[i].node];
        runs_was (c, shares[i].node, was);
        nd->t[nd->ntenants++] = (struct tenant){ id, program,
                                                 shares[i].cores, flags, m };
        nd->mem_used += m;
        nd->used += shares[i].cores;
        c->freec[shares[i].node] -= shares[i].cores;
        c->used_cores += shares[i].cores;
        if (flags & NS_JOB_CLOSES_NODES)
            nd->closed++;
        if (flags & NS_JOB_PACKED)
            nd->npacked++;
        set_empty (c, shares[i].node, 0);
        update_open (c, shares[i].node);
        runs_note (c, shares[i].node, was, oldfree);
    }
    c->njobs++;
    bump (c);
    jb->id = id;
    jb->program = program;
    jb->flags = flags;
    return 0;
}

int ns_cluster_remove_job (ns_cluster_t *c, uint64_t id, ns_error_t *err)
{
    if (!c)
        return ns_error_set (err, EINVAL, "no cluster");
    int j = ns_idmap_get (&c->index, id);
    if (j < 0)
        return ns_error_set (err, ENOENT, "job %llu is not running",
                             (unsigned long long)id);
    struct job *jb = &c->jobs[j];
    for (int i = 0; i < jb->nshares; i++) {
        int n = jb->shares[i].node;
        struct node *nd = &c->nodes[n];
        int was[2], oldfree = c->freec[n];
        runs_was (c, n, was);
        for (int k = 0; k < nd->ntenants; k++) {
            if (nd->t[k].job == id) {
                nd->t[k] = nd->t[--nd->ntenants];
                break;
            }
        }
        nd->used -= jb->shares[i].cores;
        c->freec[n] += jb->shares[i].cores;
        if (jb->mem)
            nd->mem_used -= jb->mem[i];
        c->used_cores -= jb->shares[i].cores;
        if (jb->flags & NS_JOB_CLOSES_NODES)
            nd->closed--;
        if (jb->flags & NS_JOB_PACKED)
            nd->npacked--;
        if (nd->ntenants == 0)
            set_empty (c, n, 1);
        update_open (c, n);
        runs_note (c, n, was, oldfree);
    }
    bump (c);
    free_shares (jb);
    ns_idmap_del (&c->index, id);
    int last = --c->njobs;
    if (j != last) {
        c->jobs[j] = c->jobs[last];
        fix_inline (&c->jobs[j]);
        /* replaces a present key: cannot fail */
        ns_idmap_put (&c->index, c->jobs[j].id, j);
    }
    return 0;
}

/* runs[b] kept (keep) or counted when asked; counted anew from the
 * nodes when turned back on. */
static void keep_runs (ns_cluster_t *c, int b, int keep)
{
    if (!c || c->kept[b] == (keep != 0))
        return;
    c->kept[b] = keep != 0;
    if (!keep)
        return;
    struct runset *r = &c->runs[b];
    int prev = -2;
    r->n = 0;
    for (int n = 0; n < c->nnodes; n++) {
        if (!in_runs (c, n, b))
            continue;
        if (r->n > 0 && prev == n - 1) {
            r->end[r->n - 1] = n;
            r->cpus[r->n - 1] += c->freec[n];
        }
        else {
            r->start[r->n] = r->end[r->n] = n;
            r->cpus[r->n++] = c->freec[n];
        }
        prev = n;
    }
}

void ns_cluster_keep_busy_runs (ns_cluster_t *c, int keep)
{
    keep_runs (c, 1, keep);
}

void ns_cluster_keep_free_runs (ns_cluster_t *c, int keep)
{
    keep_runs (c, 0, keep);
}

void ns_cluster_keep_open (ns_cluster_t *c, int keep)
{
    if (!c || c->open_kept == (keep != 0))
        return;
    c->open_kept = keep != 0;
    for (int n = 0; keep && n < c->nnodes; n++)
        update_open (c, n);
}

int ns_cluster_set_tenant_hint (ns_cluster_t *c, int k)
{
    if (!c || k < 1) {
        errno = EINVAL;
        return -1;
    }
    if (c->njobs > 0) {
        errno = EBUSY;
        return -1;
    }
    bump (c);
    c->tenant_hint = k;
    return 0;
}

int ns_cluster_tenant_hint (const ns_cluster_t *c)
{
    return c ? c->tenant_hint : 0;
}

int ns_cluster_nnodes (const ns_cluster_t *c)
{
    return c ? c->nnodes : 0;
}

int ns_cluster_njobs (const ns_cluster_t *c)
{
    return c ? c->njobs : 0;
}

int ns_cluster_max_cores (const ns_cluster_t *c)
{
    return c ? c->max_cores : 0;
}

int64_t ns_cluster_total_cores (const ns_cluster_t *c)
{
    return c ? c->total_cores : 0;
}

int64_t ns_cluster_used_cores (const ns_cluster_t *c)
{
    return c ? c->used_cores : 0;
}

int ns_node_cores (const ns_cluster_t *c, int node)
{
    return valid_node (c, node) ? c->nodes[node].cores : 0;
}

const int *ns_cluster_free_cores_ref (const ns_cluster_t *c)
{
    return c ? c->freec : NULL;
}

const uint64_t *ns_cluster_avail_bits (const ns_cluster_t *c)
{
    return c ? c->avail : NULL;
}

int ns_node_free_cores (const ns_cluster_t *c, int node)
{
    if (!valid_node (c, node))
        return 0;
    return c->freec[node];  /* cores less used, kept beside the nodes */
}

int ns_node_ntenants (const ns_cluster_t *c, int node)
{
    return valid_node (c, node) ? c->nodes[node].ntenants : 0;
}

int ns_node_ngoverned (const ns_cluster_t *c, int node)
{
    return valid_node (c, node)
               ? c->nodes[node].ntenants - c->nodes[node].npacked : 0;
}

int ns_node_is_empty (const ns_cluster_t *c, int node)
{
    return valid_node (c, node) && (c->empty[node >> 6] >> (node & 63) & 1);
}

int ns_node_is_closed (const ns_cluster_t *c, int node)
{
    return valid_node (c, node) && c->nodes[node].closed > 0;
}

static const struct tenant *tenant (const ns_cluster_t *c, int node, int i)
{
    if (!valid_node (c, node) || i < 0 || i >= c->nodes[node].ntenants)
        return NULL;
    return &c->nodes[node].t[i];
}

uint64_t ns_node_tenant_job (const ns_cluster_t *c, int node, int i)
{
    const struct tenant *t = tenant (c, node, i);
    return t ? t->job : 0;
}

int ns_node_tenant_program (const ns_cluster_t *c, int node, int i)
{
    const struct tenant *t = tenant (c, node, i);
    return t ? t->program : NS_PROGRAM_UNKNOWN;
}

int ns_node_tenant_cores (const ns_cluster_t *c, int node, int i)
{
    const struct tenant *t = tenant (c, node, i);
    return t ? t->cores : 0;
}

int ns_node_tenant_flags (const ns_cluster_t *c, int node, int i)
{
    const struct tenant *t = tenant (c, node, i);
    return t ? t->flags : 0;
}

int ns_node_runs_program (const ns_cluster_t *c, int node, int program)
{
    if (!valid_node (c, node) || program == NS_PROGRAM_UNKNOWN)
        return 0;
    const struct node *nd = &c->nodes[node];
    for (int i = 0; i < nd->ntenants; i++)
        if (nd->t[i].program == program)
            return 1;
    return 0;
}

static int next_bit (const ns_cluster_t *c, const uint64_t *bits, int from)
{
    if (!c || from >= c->nnodes)
        return -1;
    if (from < 0)
        from = 0;
    int w = from >> 6;
    uint64_t word = bits[w] & (~0ULL << (from & 63));
    for (;;) {
        if (word)
            return (w << 6) + __builtin_ctzll (word);
        if (++w >= c->nwords)
            return -1;
        word = bits[w];
    }
}

const uint64_t *ns_cluster_empty_bits (const ns_cluster_t *c)
{
    return c->empty;
}

int ns_cluster_next_empty (const ns_cluster_t *c, int from)
{
    return c ? next_bit (c, c->empty, from) : -1;
}


/* Scan the level whose threshold 2^k is the largest not above mincores:
 * every hit has at least half the cores asked, so few are rejected. */
int ns_cluster_next_open (const ns_cluster_t *c, int from, int mincores)
{
    if (!c || from >= c->nnodes)
        return -1;
    if (from < 0)
        from = 0;
    if (mincores < 1)
        mincores = 1;
    if (!c->open_kept) {
        for (int n = from; n < c->nnodes; n++)
            if (node_free_for_open (c, &c->nodes[n]) >= mincores)
                return n;
        return -1;
    }
    int k = 31 - __builtin_clz ((unsigned)mincores);
    if (k >= c->nlevels)
        k = c->nlevels - 1;
    const uint64_t *bits = c->open[k];
    int w = from >> 6;
    uint64_t word = bits[w] & (~0ULL << (from & 63));
    for (;;) {
        while (word) {
            int n = (w << 6) + __builtin_ctzll (word);
            if (node_free_for_open (c, &c->nodes[n]) >= mincores)
                return n;
            word &= word - 1;
        }
        if (++w >= c->nwords)
            return -1;
        word = bits[w];
    }
}

/* ns_cluster_runs () of an unrestricted request, one core a task: the
 * runs kept by every change. */
static int runs_kept (const ns_cluster_t *c, int busy_only, int *start,
                      int *end, int *cpus)
{
    const struct runset *r = &c->runs[busy_only ? 1 : 0];
    memcpy (start, r->start, sizeof (int) * (size_t)r->n);
    memcpy (end, r->end, sizeof (int) * (size_t)r->n);
    for (int i = 0; i < r->n; i++)
        cpus[i] = r->cpus[i] > INT_MAX ? INT_MAX : (int)r->cpus[i];
    return r->n;
}

int ns_cluster_runs_view (const ns_cluster_t *c, int busy_only,
                          const int **start, const int **end,
                          const int64_t **cpus)
{
    int b = busy_only ? 1 : 0;
    if (!c || !c->kept[b])
        return -1;
    *start = c->runs[b].start;
    *end = c->runs[b].end;
    *cpus = c->runs[b].cpus;
    return c->runs[b].n;
}

int ns_cluster_runs (const ns_cluster_t *c, const unsigned char *allowed,
                     int busy_only, int unit, const ns_node_limits_t *lim,
                     int *start, int *end, int *cpus)
{
    if (!c || unit < 1)
        return 0;
    if (!allowed && !lim && unit == 1 && c->kept[busy_only ? 1 : 0])
        return runs_kept (c, busy_only, start, end, cpus);
    int nr = 0, prev = -2;
    for (int w = 0; w < c->nwords; w++) {
        uint64_t word = c->avail[w];
        if (busy_only)
            word &= ~c->empty[w];       /* nodes in use only */
        while (word) {
            int n = (w << 6) + __builtin_ctzll (word);
            word &= word - 1;
            const struct node *nd = &c->nodes[n];
            if (allowed && !allowed[n])
                continue;
            int a = lim ? usable (nd, unit, lim)
                        : (nd->cores - nd->used) / unit * unit;
            if (a <= 0)
                continue;
            if (nr > 0 && n == prev + 1) {
                end[nr - 1] = n;
                cpus[nr - 1] = cpus[nr - 1] > INT_MAX - a ? INT_MAX
                               : cpus[nr - 1] + a;
            }
            else {
                start[nr] = end[nr] = n;
                cpus[nr] = a;
                nr++;
            }
            prev = n;
        }
    }
    return nr;
}

/* The cores node n offers a best-fit request, or INT_MIN where it is
 * not a candidate.  plain (no allowed mask, no limits, one core a unit,
 * need >= 1): only the nodes with a free core, not held whole (avail),
 * can hold it, so the bitmaps and free cores answer without the node
 * records. */
static int fit_room (const ns_cluster_t *c, int n, int plain,
                     const unsigned char *allowed, int busy_only, int unit,
                     const ns_node_limits_t *lim)
{
    if (plain) {
        uint64_t bit = 1ULL << (n & 63);
        if (!(c->avail[n >> 6] & bit)
            || (busy_only && (c->empty[n >> 6] & bit)))
            return INT_MIN;
        return c->freec[n];
    }
    const struct node *nd = &c->nodes[n];
    if (nd->closed || (allowed && !allowed[n])
        || (busy_only && !nd->ntenants))
        return INT_MIN;
    return lim ? usable (nd, unit, lim) : (nd->cores - nd->used) / unit * unit;
}

int ns_cluster_best_fit (const ns_cluster_t *c, const unsigned char *allowed,
                         int busy_only, int unit, const ns_node_limits_t *lim,
                         int from, int to, int need)
{
    int best = -1, best_free = 0;
    /* no node has more free cores than the largest node has cores */
    if (!c || unit < 1 || need > c->max_cores)
        return -1;
    if (from < 0)
        from = 0;
    int plain = !allowed && !lim && unit == 1 && need >= 1;
    for (int n = from; n <= to && n < c->nnodes; n++) {
        int a = fit_room (c, n, plain, allowed, busy_only, unit, lim);
        if (a != INT_MIN && a >= need && (best < 0 || a < best_free)) {
            best = n;
            best_free = a;
            if (a == need)
                break;
        }
    }
    return best;
}

int ns_cluster_nempty (const ns_cluster_t *c)
{
    return c ? c->nempty : 0;
}

int ns_job_exists (const ns_cluster_t *c, uint64_t id)
{
    return c && find_job (c, id) != NULL;
}

int ns_job_program (const ns_cluster_t *c, uint64_t id)
{
    const struct job *j = c ? find_job (c, id) : NULL;
    if (!j) {
        errno = ENOENT;
        return -1;
    }
    return j->program;
}

int ns_job_flags (const ns_cluster_t *c, uint64_t id)
{
    const struct job *j = c ? find_job (c, id) : NULL;
    if (!j) {
        errno = ENOENT;
        return -1;
    }
    return j->flags;
}

const ns_share_t *ns_job_shares_ref (const ns_cluster_t *c, uint64_t id,
                                     int *nshares)
{
    const struct job *j = c ? find_job (c, id) : NULL;
    if (!j) {
        errno = ENOENT;
        *nshares = 0;
        return NULL;
    }
    *nshares = j->nshares;
    return j->shares;
}

static int check_nodes (const ns_cluster_t *c, int *tenants_total,
                        ns_error_t *err)
{
    int nempty = 0;
    int64_t used = 0;
    *tenants_total = 0;
    for (int n = 0; n < c->nnodes; n++) {
        const struct node *nd = &c->nodes[n];
        int sum = 0, closed = 0, packed = 0;
        int64_t msum = 0;
        for (int i = 0; i < nd->ntenants; i++) {
            const struct job *j = find_job (c, nd->t[i].job);
            if (!j)
                return ns_error_set (err, EPROTO,
                                     "node %d: tenant job %llu not in table",
                                     n, (unsigned long long)nd->t[i].job);
            if (j->flags != nd->t[i].flags)
                return ns_error_set (err, EPROTO,
                                     "node %d: tenant job %llu flags %d, "
                                     "job has %d", n,
                                     (unsigned long long)nd->t[i].job,
                                     nd->t[i].flags, j->flags);
            if (j->flags & NS_JOB_CLOSES_NODES)
                closed++;
            if (j->flags & NS_JOB_PACKED)
                packed++;
            sum += nd->t[i].cores;
            msum += nd->t[i].mem;
        }
        if (msum != nd->mem_used)
            return ns_error_set (err, EPROTO,
                                 "node %d: %lld MB used but tenants hold %lld",
                                 n, (long long)nd->mem_used, (long long)msum);
        if (sum != nd->used)
            return ns_error_set (err, EPROTO,
                                 "node %d: used %d but tenants hold %d", n,
                                 nd->used, sum);
        if (c->freec[n] != nd->cores - nd->used)
            return ns_error_set (err, EPROTO, "node %d: %d free cores kept, "
                                 "%d of %d used", n, c->freec[n], nd->used,
                                 nd->cores);
        if (nd->used > nd->cores || nd->used < 0)
            return ns_error_set (err, EPROTO, "node %d: %d of %d cores used",
                                 n, nd->used, nd->cores);
        if (closed != nd->closed)
            return ns_error_set (err, EPROTO, "node %d: closed %d, expected %d",
                                 n, nd->closed, closed);
        if (packed != nd->npacked)
            return ns_error_set (err, EPROTO, "node %d: packed %d, expected %d",
                                 n, nd->npacked, packed);
        int abit = (c->avail[n >> 6] >> (n & 63)) & 1;
        if (abit != node_avail (nd))
            return ns_error_set (err, EPROTO, "node %d: avail bit %d wrong", n,
                                 abit);
        if (closed && nd->ntenants != 1)
            return ns_error_set (err, EPROTO,
                                 "node %d: held whole but has %d tenants", n,
                                 nd->ntenants);
        int bit = (c->empty[n >> 6] >> (n & 63)) & 1;
        if (bit != (nd->ntenants == 0))
            return ns_error_set (err, EPROTO, "node %d: empty bit %d wrong", n,
                                 bit);
        nempty += bit;
        for (int k = 0; c->open_kept && k < c->nlevels; k++) {
            int obit = (c->open[k][n >> 6] >> (n & 63)) & 1;
            if (obit != (node_free_for_open (c, nd) >= (1 << k)))
                return ns_error_set (err, EPROTO,
                                     "node %d: open bit %d of level %d wrong",
                                     n, obit, k);
        }
        used += nd->used;
        *tenants_total += nd->ntenants;
    }
    if (nempty != c->nempty)
        return ns_error_set (err, EPROTO, "empty count %d, bitmap says %d",
                             c->nempty, nempty);
    if (used != c->used_cores)
        return ns_error_set (err, EPROTO, "used cores %lld, nodes say %lld",
                             (long long)c->used_cores, (long long)used);
    return 0;
}

/* The kept runs against the nodes. */
static int check_runs (const ns_cluster_t *c, ns_error_t *err)
{
    for (int b = 0; b < 2; b++) {
        if (!c->kept[b])
            continue;
        const struct runset *r = &c->runs[b];
        int i = -1, prev = -2;
        int64_t sum = 0;
        for (int n = 0; n <= c->nnodes; n++) {
            int in = n < c->nnodes && in_runs (c, n, b);
            if (in && prev == n - 1) {
                sum += c->freec[n];
                prev = n;
                continue;
            }
            if (i >= 0 && (i >= r->n || r->start[i] > prev || r->end[i] != prev
                           || r->cpus[i] != sum))
                return ns_error_set (err, EPROTO,
                                     "runs[%d]: run %d wrong (nodes end at "
                                     "%d, %lld cores)", b, i, prev,
                                     (long long)sum);
            if (in) {
                i++;
                sum = c->freec[n];
                prev = n;
                if (i >= r->n || r->start[i] != n)
                    return ns_error_set (err, EPROTO,
                                         "runs[%d]: run %d should start at "
                                         "node %d", b, i, n);
            }
        }
        if (i + 1 != r->n)
            return ns_error_set (err, EPROTO, "runs[%d]: %d runs kept, %d "
                                 "found", b, r->n, i + 1);
    }
    return 0;
}

int ns_cluster_check (const ns_cluster_t *c, ns_error_t *err)
{
    if (!c)
        return ns_error_set (err, EINVAL, "no cluster");
    int tenants_total;
    if (check_nodes (c, &tenants_total, err) < 0)
        return -1;
    if (check_runs (c, err) < 0)
        return -1;
    int shares_total = 0, occupied = 0;
    occupied = c->index.count;
    if (occupied != c->njobs)
        return ns_error_set (err, EPROTO, "%d hash slots for %d jobs",
                             occupied, c->njobs);
    for (int j = 0; j < c->njobs; j++) {
        const struct job *jb = &c->jobs[j];
        if (find_job (c, jb->id) != jb)
            return ns_error_set (err, EPROTO, "job %llu not found by id",
                                 (unsigned long long)jb->id);
        for (int i = 0; i < jb->nshares; i++) {
            const struct node *nd = &c->nodes[jb->shares[i].node];
            int found = 0;
            for (int k = 0; k < nd->ntenants; k++)
                if (nd->t[k].job == jb->id
                    && nd->t[k].cores == jb->shares[i].cores)
                    found = 1;
            if (!found)
                return ns_error_set (err, EPROTO,
                                     "job %llu missing from node %d",
                                     (unsigned long long)jb->id,
                                     jb->shares[i].node);
        }
        shares_total += jb->nshares;
    }
    if (shares_total != tenants_total)
        return ns_error_set (err, EPROTO, "%d shares but %d tenants",
                             shares_total, tenants_total);
    return 0;
}
