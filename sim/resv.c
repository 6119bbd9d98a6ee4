/* SPDX-License-Identifier: GPL-2.0-or-later */
/* resv.c - EASY reservations counted instead of tried (see resv.h) */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "resv.h"
#include "runs.h"

/* Job k's nodes and cores. */
static const ns_share_t *shares_of (const ns_cluster_t *c,
                                    const ns_resv_running_t *run, int k,
                                    int *ns)
{
    if (run->shares)
        return run->shares (run->arg, run->order[k], ns);
    return ns_job_shares_ref (c, run->order[k], ns);
}

/* How many nodes (cores: 0) job k holds. */
static int64_t count_of (const ns_cluster_t *c, const ns_resv_running_t *run,
                         int k, int nodes)
{
    if (run->count)
        return run->count[k];
    int ns;
    const ns_share_t *sh = shares_of (c, run, k, &ns);
    if (nodes || !sh)
        return sh ? ns : 0;
    int64_t sum = 0;
    for (int s = 0; s < ns; s++)
        sum += sh[s].cores;
    return sum;
}

int ns_resv_whole (const ns_cluster_t *c, int width,
                   const ns_resv_running_t *run, int64_t *released)
{
    const double *when = run->when;
    int n = run->n;
    int64_t empty = ns_cluster_nempty (c);
    int64_t rel = 0;
    /* Each node has at most one tenant: a job's end empties its nodes.
     * A try comes only after the last of the jobs ending together. */
    for (int k = 0; k < n; k++) {
        rel += count_of (c, run, k, 1);
        if (when && k + 1 < n && when[k + 1] == when[k])
            continue;
        if (empty + rel >= width) {
            *released = rel;
            return k + 1;
        }
    }
    return 0;
}

/* The most free cores of a run that take_largest () orders by counting */
#define COUNT_CPUS 4096

struct ns_resv_scratch {
    int *vfree;             /* per node: free cores once the jobs ended
                               (set for the nodes of bits alone) */
    uint64_t *bits;         /* nodes with free cores once they ended */
    uint64_t *rel;          /* nodes of the jobs ended */
    int nwords, nnodes;
    int *start, *end, *cpus, *need; /* runs of nodes with free cores */
    long long *heap;
    int *count;             /* take_largest ()'s counts */
    /* The last answer of ns_resv_pack_nodes (), for ns_resv_pack_keep ():
     * vfree and bits stay the free cores then (bits: the nodes with
     * some), rbits the nodes it gave; the run it took last (the tightest
     * that held what was left, rem) holds the given node anchor: the
     * best-fitting node fit (fit_free cores), else (fit < 0) the first of
     * the nodes taken in order. */
    uint64_t *rbits;
    int anchor, fit, fit_free, rem;
    /* vfree and bits follow the cluster (every start and end of a job
     * estimated to end after the jobs of the last answer was applied):
     * the answer for the same jobs ending can be found from them alone */
    int synced;
};

ns_resv_scratch_t *ns_resv_scratch_create (int nnodes)
{
    ns_resv_scratch_t *x = calloc (1, sizeof (*x));
    if (!x)
        return NULL;
    size_t runs = (size_t)nnodes / 2 + 1;
    x->nwords = (nnodes + 63) / 64;
    x->nnodes = nnodes;
    x->vfree = calloc ((size_t)nnodes, sizeof (int));
    x->bits = calloc ((size_t)x->nwords * 3, sizeof (uint64_t));
    x->start = calloc (runs * 4, sizeof (int));
    x->heap = calloc (runs, sizeof (long long));
    x->count = calloc (COUNT_CPUS + 1, sizeof (int));
    if (!x->vfree || !x->bits || !x->start || !x->heap || !x->count) {
        ns_resv_scratch_destroy (x);
        return NULL;
    }
    x->end = x->start + runs;
    x->cpus = x->start + 2 * runs;
    x->need = x->start + 3 * runs;
    x->rel = x->bits + x->nwords;
    x->rbits = x->bits + 2 * x->nwords;
    return x;
}

void ns_resv_scratch_destroy (ns_resv_scratch_t *x)
{
    if (!x)
        return;
    free (x->vfree);
    free (x->bits);
    free (x->start);
    free (x->heap);
    free (x->count);
    free (x);
}

int ns_resv_pack (const ns_cluster_t *c, int need,
                  const ns_resv_running_t *run)
{
    const double *when = run->when;
    int n = run->n;
    int64_t free = ns_cluster_total_cores (c) - ns_cluster_used_cores (c);
    for (int k = 0; k < n; k++) {
        free += count_of (c, run, k, 0);
        if (when && k + 1 < n && when[k + 1] == when[k])
            continue;
        if (free >= need)
            return k + 1;
    }
    return 0;
}

/* ns_runs_take_largest () with the runs in order of free cores by
 * counting (a run's free cores, up to COUNT_CPUS, index a table of
 * counts): largest first, earliest on ties, as the heap pops them.  A
 * reservation's head takes most runs of the free cores then (two thirds
 * on RICC under pack), so the order is needed nearly whole; counting
 * costs a pass over the runs and one over the counts up to the largest
 * (RICC under pack: 0.13 G instructions fewer than a sort by insertion
 * up to 64 runs and the heap above).  Runs of more free cores go to the
 * heap. */
static int take_largest (int *cpus, int nr, int rem, int *need,
                         long long *heap, int *count)
{
    int most = 0;
    for (int i = 0; i < nr; i++) {
        need[i] = 0;
        if (cpus[i] > most)
            most = cpus[i];
    }
    if (most > COUNT_CPUS)
        return ns_runs_take_largest (cpus, nr, rem, need, heap);
    memset (count, 0, sizeof (*count) * (size_t)(most + 1));
    for (int i = 0; i < nr; i++)
        count[cpus[i]]++;
    /* where each count's runs begin, the largest first */
    for (int c = most, p = 0; c >= 0; c--) {
        int n = count[c];
        count[c] = p;
        p += n;
    }
    int *order = (int *)heap;   /* room for nr keys: for nr indices too */
    for (int i = 0; i < nr; i++)
        order[count[cpus[i]]++] = i;
    for (int t = 0; t < nr; t++) {
        int l = order[t];
        if (cpus[l] >= rem) {
            int b = ns_runs_tightest (cpus, nr, rem);
            need[b] = rem;
            return b;
        }
        need[l] = rem;
        rem -= cpus[l];
        cpus[l] = 0;
    }
    return -1;
}

/* The nodes a job of `need` tasks gets from the free cores then, x's vfree
 * on the nodes of bits: into nodes[], their number returned. */
static int choose (ns_resv_scratch_t *x, int need, int *nodes)
{
    int nw = x->nwords;
    /* runs of consecutive nodes with free cores */
    int nr = 0, prev = -2;
    for (int w = 0; w < nw; w++) {
        for (uint64_t word = x->bits[w]; word; word &= word - 1) {
            int i = (w << 6) + __builtin_ctzll (word);
            int a = x->vfree[i];
            if (a <= 0)
                continue;
            if (nr > 0 && prev == i - 1) {
                x->end[nr - 1] = i;
                x->cpus[nr - 1] = x->cpus[nr - 1] > INT_MAX - a
                                      ? INT_MAX : x->cpus[nr - 1] + a;
            }
            else {
                x->start[nr] = x->end[nr] = i;
                x->cpus[nr] = a;
                nr++;
            }
            prev = i;
        }
    }
    int rem = need, got = 0;
    int b = ns_runs_tightest (x->cpus, nr, rem);
    if (b >= 0) {
        for (int i = 0; i < nr; i++)
            x->need[i] = 0;
        x->need[b] = rem;
    }
    else if ((b = take_largest (x->cpus, nr, rem, x->need, x->heap,
                                x->count)) < 0)
        return 0;           /* cannot happen: free >= need */
    rem = x->need[b];
    x->rem = rem;
    memset (x->rbits, 0, sizeof (uint64_t) * (size_t)x->nwords);
    for (int r = 0; r < nr; r++) {
        int left = x->need[r];
        if (left <= 0)
            continue;
        /* the best-fitting single node (lowest index on ties); a run
         * taken whole (not b) held less than what was left, so none of
         * its nodes holds it */
        int fit = -1, fit_free = 0;
        for (int i = x->start[r]; r == b && i <= x->end[r]; i++) {
            int a = x->vfree[i];
            if (a >= left && (fit < 0 || a < fit_free)) {
                fit = i;
                fit_free = a;
                if (a == left)
                    break;
            }
        }
        int from = fit >= 0 ? fit : x->start[r];
        int to = fit >= 0 ? fit : x->end[r];
        if (r == b) {
            x->anchor = from;
            x->fit = fit;
            x->fit_free = fit_free;
        }
        for (int i = from; i <= to && left > 0; i++) {
            int a = x->vfree[i];
            if (a <= 0)
                continue;
            nodes[got++] = i;
            x->rbits[i >> 6] |= 1ULL << (i & 63);
            left -= a < left ? a : left;
        }
    }
    return got;
}

int ns_resv_pack_nodes (const ns_cluster_t *c, int need, int kk,
                        const ns_resv_running_t *run, ns_resv_scratch_t *x,
                        int *nodes)
{
    int k = kk - 1;
    /* Free cores once order[0..k] ended, kept for the nodes with free
     * cores now (no node is held whole: those of the avail bitmap) and
     * the released ones: the nodes that have free cores then. */
    const int *fc = ns_cluster_free_cores_ref (c);
    const uint64_t *avail = ns_cluster_avail_bits (c);
    int nw = x->nwords;
    for (int i = 0; i <= k; i++) {
        if (run->count && run->count[i] == 0)
            continue;       /* holds nothing */
        int ns;
        const ns_share_t *sh = shares_of (c, run, i, &ns);
        for (int s = 0; sh && s < ns; s++) {
            int nd = sh[s].node;
            uint64_t bit = 1ULL << (nd & 63);
            if (!(x->rel[nd >> 6] & bit)) {
                x->rel[nd >> 6] |= bit;
                x->vfree[nd] = fc[nd];
            }
            x->vfree[nd] += sh[s].cores;
        }
    }
    for (int w = 0; w < nw; w++) {
        for (uint64_t word = avail[w] & ~x->rel[w]; word; word &= word - 1) {
            int nd = (w << 6) + __builtin_ctzll (word);
            x->vfree[nd] = fc[nd];
        }
        x->bits[w] = avail[w] | x->rel[w];
        x->rel[w] = 0;
    }
    x->synced = 1;
    return choose (x, need, nodes);
}

int ns_resv_pack_nodes_again (ns_resv_scratch_t *x, int need, int *nodes)
{
    return x->synced ? choose (x, need, nodes) : -1;
}

void ns_resv_pack_forget (ns_resv_scratch_t *x)
{
    x->synced = 0;
}

/* Is node i among those with free cores then? */
static inline int has_free (const ns_resv_scratch_t *x, int i)
{
    return i >= 0 && i < x->nnodes && (x->bits[i >> 6] >> (i & 63) & 1)
           && x->vfree[i] > 0;
}

/* The run of nodes with free cores then around node i: its first node
 * and its free cores (as ns_resv_pack_nodes () counts them). */
static int run_around (const ns_resv_scratch_t *x, int i, int *first)
{
    int a = i, cpus = 0;
    while (has_free (x, a - 1))
        a--;
    *first = a;
    for (int k = a; has_free (x, k); k++)
        cpus = cpus > INT_MAX - x->vfree[k] ? INT_MAX : cpus + x->vfree[k];
    return cpus;
}

/* ns_resv_pack_keep () of an end: the runs it grows or joins must hold
 * none of the nodes given and less than what the last run taken held
 * (then, growing no taken run, they are taken neither: the runs taken
 * whole are taken first as before, and the next run looked at still
 * holds what is left).  Its shares are checked already. */
static int keep_end (ns_resv_scratch_t *x, const ns_share_t *sh, int n)
{
    for (int s = 0; s < n; s++) {
        int first, cpus = run_around (x, sh[s].node, &first);
        if (cpus >= x->rem)
            return 0;
        for (int k = first; has_free (x, k); k++)
            if (x->rbits[k >> 6] >> (k & 63) & 1)
                return 0;
    }
    return 1;
}

/* Do the shares fit what x holds (a start takes no more than the free
 * cores then)? */
static int shares_fit (const ns_resv_scratch_t *x, const ns_share_t *sh,
                       int n, int ends)
{
    for (int s = 0; s < n; s++) {
        int i = sh[s].node;
        if (i < 0 || i >= x->nnodes || sh[s].cores < 0
            || (!ends && (!has_free (x, i) || x->vfree[i] < sh[s].cores)))
            return 0;
    }
    return 1;
}

/* The free cores then drop (a start) or rise (an end) on the shares'
 * nodes. */
static void shares_apply (ns_resv_scratch_t *x, const ns_share_t *sh, int n,
                          int ends)
{
    for (int s = 0; s < n; s++) {
        int i = sh[s].node;
        if (ends) {
            if (!has_free (x, i)) {
                x->vfree[i] = 0;
                x->bits[i >> 6] |= 1ULL << (i & 63);
            }
            x->vfree[i] += sh[s].cores;
        }
        else {
            x->vfree[i] -= sh[s].cores;
            if (x->vfree[i] == 0)
                x->bits[i >> 6] &= ~(1ULL << (i & 63));
        }
    }
}

int ns_resv_pack_apply (ns_resv_scratch_t *x, const ns_share_t *sh, int n,
                        int ends)
{
    if (!x->synced)
        return 0;
    if (!shares_fit (x, sh, n, ends)) {
        x->synced = 0;
        return 0;
    }
    shares_apply (x, sh, n, ends);
    return 1;
}

int ns_resv_pack_keep (ns_resv_scratch_t *x, const ns_share_t *sh, int n,
                       int ends)
{
    if (!ns_resv_pack_apply (x, sh, n, ends))
        return 0;
    /* a node given */
    for (int s = 0; s < n; s++) {
        int i = sh[s].node;
        if (x->rbits[i >> 6] >> (i & 63) & 1)
            return 0;
    }
    if (ends)
        return keep_end (x, sh, n);
    /* The run the reservation ends in, as it is now: still the tightest
     * that holds what is left (it lost cores, and no other run gained). */
    int bfirst, bcpus = run_around (x, x->anchor, &bfirst);
    for (int s = 0; s < n; s++) {
        int i = sh[s].node;
        /* the runs that changed: the one around i, or the two beside it */
        for (int side = -1; side <= 1; side++) {
            int k = i + side;
            if (side != 0 && has_free (x, i))
                continue;
            if (side == 0 && !has_free (x, i))
                continue;
            if (!has_free (x, k))
                continue;
            int first, cpus = run_around (x, k, &first);
            if (first == bfirst) {
                /* the same run: a node of it may now fit better */
                if (x->fit >= 0 && has_free (x, i)) {
                    int a = x->vfree[i];
                    if (a >= x->rem && (a < x->fit_free
                                        || (a == x->fit_free
                                            && i < x->fit)))
                        return 0;
                }
                continue;
            }
            /* another run must not hold what is left more tightly */
            if (cpus >= x->rem && (cpus < bcpus
                                   || (cpus == bcpus && first < bfirst)))
                return 0;
        }
    }
    return 1;
}
