/* SPDX-License-Identifier: GPL-2.0-or-later */
/* qtree.h - the backfill scan's index of the queue: a min-tree over blocks
 *
 * Leaf b holds the least task count and the least estimated runtime of
 * the queued jobs in block b of queue positions (INT_MAX and INFINITY
 * when it holds none); an inner node the least of its subtree.  The scan
 * asks for the next block from b on where a job may start and passes
 * every block where none can in O(log blocks).
 */
#ifndef NODESHARE_QTREE_H
#define NODESHARE_QTREE_H

#include <stdint.h>

typedef struct {
    int *nt;        /* 2 * n entries; leaf b at n + b */
    double *est;
    int n;          /* leaves, a power of two */
} ns_qtree_t;

/* Room for nblocks leaves; the leaves of blocks [0, used) are taken from
 * nt[], est[] where live[b] is non-zero, the others are empty.  0, or -1
 * out of memory (the tree is unchanged). */
int ns_qtree_grow (ns_qtree_t *t, int nblocks, int used, const int *nt,
                   const double *est, const uint64_t *live);
void ns_qtree_free (ns_qtree_t *t);

/* Leaf b becomes (nt, est): empty is INT_MAX, INFINITY. */
void ns_qtree_set (ns_qtree_t *t, int b, int nt, double est);

/* The first block from b on that may hold a job able to start: one of at
 * most fits tasks, and of at most outside tasks or an estimate of at most
 * lim; -1 if none.  The minima of a subtree rule it out for every block
 * under it. */
int ns_qtree_next (const ns_qtree_t *t, int b, int64_t fits, int64_t outside,
                   double lim);

#endif /* !NODESHARE_QTREE_H */
