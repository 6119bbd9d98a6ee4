/* SPDX-License-Identifier: GPL-2.0-or-later */
/* byend.h - the running jobs in order of estimated end
 *
 * The simulator's running jobs sorted by (estimated end, job index): the
 * order in which EASY's reservation (ns_place_after (), sim/resv.c)
 * releases them.  Four arrays side by side, so that a count over the
 * order reads only what it needs: the job, its estimated end, the nodes
 * and the cores it holds.
 *
 * An ended job's entry stays where it was, holding no nodes and no cores
 * (every running job holds some): sums over the order, and the end times
 * it shows, are those without it.  An insertion takes the nearest such
 * entry instead of moving the whole tail (a bitmap marks them, so the
 * nearest on either side is found a word at a time); they are squeezed
 * out when they become as many as the running jobs, or on
 * ns_byend_squeeze ().
 *
 * The caller owns an ns_byend_t (zeroed is empty) and frees it with
 * ns_byend_free ().
 */
#ifndef NODESHARE_BYEND_H
#define NODESHARE_BYEND_H

#include <stdint.h>

typedef struct {
    uint64_t *job;      /* job indices ... */
    double *end;        /* ... their estimated ends ... */
    int *nodes;         /* ... the nodes and cores each holds (0: ended) */
    int *cores;
    uint64_t *dead;     /* bit k: entry k is of an ended job */
    int n, cap;         /* entries, ended ones included */
    int ndead;          /* entries of ended jobs among them */
} ns_byend_t;

void ns_byend_free (ns_byend_t *b);

/* Job j, estimated to end at e, holding nodes nodes and cores cores (both
 * above 0), starts.  0, or -1 out of memory (b unchanged). */
int ns_byend_insert (ns_byend_t *b, int j, double e, int nodes, int cores);

/* Job j, inserted with estimated end e, ends: its entry holds nothing. */
void ns_byend_remove (ns_byend_t *b, int j, double e);

/* The entries of ended jobs squeezed out: every entry a running job. */
void ns_byend_squeeze (ns_byend_t *b);

/* Running jobs. */
static inline int ns_byend_running (const ns_byend_t *b)
{
    return b->n - b->ndead;
}

/* Entries estimated to end by `when` (end <= when). */
static inline int ns_byend_upto (const ns_byend_t *b, double when)
{
    int lo = 0, hi = b->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (b->end[mid] <= when)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#endif
