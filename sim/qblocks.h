/* SPDX-License-Identifier: GPL-2.0-or-later */
/* qblocks.h - the simulator's FCFS queue, in blocks a backfill scan skips
 *
 * Queue positions are given in order of arrival and never move: a job
 * leaving the queue leaves a tombstone, and the head (start) moves past
 * tombstones.  Beside each position, the job's task count and estimated
 * runtime, so that a scan of a long queue passes most jobs without
 * touching their records.  Positions are grouped in blocks of
 * NS_QB_BLOCK: a bit per position says whether it holds a queued job, and
 * a min-tree over the blocks (qtree.h) holds, per class of task count,
 * the least estimate and the least key of each block's jobs, so that
 * ns_qb_next_candidate () finds the next block where a job may start
 * under a scan's bounds in O(log blocks), however many it passes.  A job
 * leaving a block leaves its minima in the tree (lower bounds still);
 * they are counted anew when a scan finds nothing there.
 *
 * Every QTRIM positions the head passes, the pages of the arrays before
 * it go back to the system: a long trace's queue costs what it holds.
 *
 * The caller embeds an ns_qblocks_t, zeroed, sets total (the machine's
 * cores: a job of more tasks has key 0 and must be looked at to be
 * dropped) and frees it with ns_qb_free ().
 */
#ifndef NODESHARE_QBLOCKS_H
#define NODESHARE_QBLOCKS_H

#include <stdint.h>

#include "qtree.h"

#define NS_QB_BLOCK 64

/* A scan's bounds (see ns_qtree_may ()): a job can start only with at most
 * `fits` tasks, and, with more than `outside`, only if its estimate is at
 * most `lim`. */
typedef struct {
    int64_t fits, outside;
    double lim;
} ns_qb_bounds_t;

typedef struct {
    int *job;           /* per position: the job, or -1 (tombstone) */
    int *tasks;         /* its task count, -1 at a tombstone */
    double *est;        /* its estimated runtime */
    int cap, tcap, ecap;
    uint64_t *live;     /* per block: bit i set when position
                           NS_QB_BLOCK * block + i holds a queued job */
    int livecap;
    unsigned char *dirty; /* per block: a job left it since its minima in
                             the tree were counted (they may be low) */
    int dirtycap;
    ns_qtree_t tree;
    int start, end;     /* the live part of the queue: [start, end) */
    int trim;           /* pages before this position are given back */
    int64_t total;      /* the machine's cores (set by the caller) */
    /* The last scan's bounds and the positions of block mblock that may
     * hold a job able to start under them. */
    ns_qb_bounds_t mq;
    ns_qtree_query_t mqt;
    int mblock;
    uint64_t mbits;
} ns_qblocks_t;

/* Room for n positions in all, in whole blocks.  0, or -1 out of memory. */
int ns_qb_reserve (ns_qblocks_t *q, int n);

void ns_qb_free (ns_qblocks_t *q);

/* Queue job j of ntasks tasks estimated to run est seconds at the end (the
 * room reserved).  Its position. */
int ns_qb_push (ns_qblocks_t *q, int j, int ntasks, double est);

/* Leave a tombstone at pos (which holds a queued job). */
void ns_qb_remove (ns_qblocks_t *q, int pos);

/* Queued jobs. */
int ns_qb_count (const ns_qblocks_t *q);

/* A new scan: forget the last one's bounds. */
static inline void ns_qb_scan_reset (ns_qblocks_t *q)
{
    q->mblock = -1;
    q->mq.fits = -1;
}

/* The first position from pos on, before end, that may hold a job able to
 * start under the bounds b, else end.  Between two calls of one scan pos
 * only moves forward and only the job looked at leaves the queue. */
int ns_qb_next_candidate (ns_qblocks_t *q, int pos, int end,
                          const ns_qb_bounds_t *b);

/* The first queued job from pos on, before end, else end. */
static inline int ns_qb_next_live (const ns_qblocks_t *q, int pos, int end)
{
    while (pos < end) {
        uint64_t live = q->live[pos / NS_QB_BLOCK] >> (pos % NS_QB_BLOCK);
        if (live) {
            pos += __builtin_ctzll (live);
            return pos < end ? pos : end;
        }
        pos = (pos / NS_QB_BLOCK + 1) * NS_QB_BLOCK;
    }
    return end;
}

#endif
