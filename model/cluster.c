/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cluster.c - nodes, running jobs and the queries placement needs
 *
 * Jobs live in a dense array (swap-remove) indexed by an open-addressing
 * hash on the id (linear probing, backward-shift delete: no tombstones, so
 * 100,000 add/remove cycles do not degrade lookups).  Each node keeps its
 * own small tenant array, and a bitmap marks empty nodes.  The free cores
 * of all nodes sit in one array; every change of a node patches pack's
 * runs of nodes with free cores (model/cluster_runs.c, with the scans
 * placement makes).  The records are in model/cluster_int.h, the
 * invariant checker in model/cluster_check.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "cluster_int.h"
#include "cluster_test.h"
#include "nsutil.h"
#include "progtab.h"

/* jobs[] moves on growth and swap-remove: re-point inline storage. */
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

static inline void update_open (ns_cluster_t *c, int n)
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
    ns_cl_runs_note (c, node, was, old);
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
        ns_cl_runs_note (c, shares[i].node, was, oldfree);
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
        ns_cl_runs_note (c, n, was, oldfree);
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

const uint64_t *ns_cluster_empty_bits (const ns_cluster_t *c)
{
    return c->empty;
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
