/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cluster_runs.c - pack's runs of free nodes and the scans placement
 * makes of the cluster state (cluster.h): the runs of consecutive nodes
 * with free cores, kept as sorted arrays that every change of a node
 * patches (its run's count, or a run grown, merged, shrunk or split),
 * or counted when asked; the best fit in a range of nodes; the next
 * empty or open node.
 */
#include <limits.h>
#include <string.h>

#include "cluster.h"
#include "cluster_int.h"
#include "cluster_test.h"

/* The last run starting at or before n, or -1.  The run looked up last
 * is tried first. */
static int run_at (struct runset *r, int n)
{
    int h = r->last;
    if (h >= 0 && h < r->n && r->start[h] <= n
        && (h + 1 == r->n || r->start[h + 1] > n))
        return h;
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
void ns_cl_runs_patch (ns_cluster_t *c, int n, const int *was, int oldfree)
{
    int nowfree = c->freec[n];
    for (int b = 0; b < 2; b++) {
        if (!c->kept[b])
            continue;
        struct runset *r = &c->runs[b];
        int is = in_runs (c, n, b);
        if (!was[b] && !is)
            continue;
        int i = r->last = run_at (r, n);
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
