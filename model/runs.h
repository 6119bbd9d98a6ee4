/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runs.h - the order in which cons_tres takes runs of free CPUs
 *
 * A run is a stretch of consecutive usable nodes with free CPUs
 * (cluster.h, ns_cluster_runs).  For a job of rem CPUs cons_tres takes,
 * while no run holds what is still needed, the largest run (earliest on
 * ties) whole; then the tightest run that holds the rest (earliest on
 * ties).  Shared by the policy's pack (policy.c) and the simulator's
 * reservations (sim/resv.c), which must agree node for node.  Inline: both
 * call them once per placement, on their hot path.
 */
#ifndef NODESHARE_RUNS_H
#define NODESHARE_RUNS_H

#include <limits.h>

/* The tightest of nr runs (cpus[i] CPUs each) that holds rem (earliest on
 * ties), or -1. */
static inline int ns_runs_tightest (const int *cpus, int nr, int rem)
{
    int best = -1;
    for (int i = 0; i < nr; i++)
        if (cpus[i] >= rem && (best < 0 || cpus[i] < cpus[best]))
            best = i;
    return best;
}

/* Max-heap of run keys (cpus << 32 | INT_MAX - index): largest first,
 * earliest on ties. */
static inline void ns_runs_sift_ (long long *h, int n, int i)
{
    long long x = h[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h[c + 1] > h[c])
            c++;
        if (h[c] <= x)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

/* For a job of rem CPUs that no single run holds: the largest runs, in
 * order, taken whole until one holds the rest (a max-heap: only the runs
 * taken are ordered).  need[i] is what was still needed when run i was
 * taken (0: not taken) and cpus[i] of a run taken whole becomes 0.
 * Returns the run that holds the rest (its need is the rest), or -1 when
 * all runs together hold less than rem.  heap: room for nr keys. */
static inline int ns_runs_take_largest (int *cpus, int nr, int rem,
                                        int *need, long long *heap)
{
    int b = -1, nh = nr;
    for (int i = 0; i < nr; i++) {
        need[i] = 0;
        heap[i] = ((long long)cpus[i] << 32) | (unsigned)(INT_MAX - i);
    }
    for (int i = nh / 2 - 1; i >= 0; i--)
        ns_runs_sift_ (heap, nh, i);
    while (nh > 0 && b < 0) {
        int l = INT_MAX - (int)(heap[0] & 0xffffffff);
        heap[0] = heap[--nh];
        ns_runs_sift_ (heap, nh, 0);
        if (cpus[l] >= rem)
            b = ns_runs_tightest (cpus, nr, rem);
        else {
            need[l] = rem;
            rem -= cpus[l];
            cpus[l] = 0;
        }
    }
    if (b >= 0)
        need[b] = rem;
    return b;
}

#endif
