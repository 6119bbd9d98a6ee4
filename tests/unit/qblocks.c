/* SPDX-License-Identifier: GPL-2.0-or-later */
/* qblocks.t - sim/qblocks.c: positions given in order and never moved, a
 * removed job leaving a tombstone the head moves past, the count of
 * queued jobs across blocks, the next live position, and the next
 * candidate under a scan's bounds against a look at every job, with jobs
 * leaving blocks between scans (stale minima in the tree) and jobs larger
 * than the machine (key 0: always looked at).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "qblocks.h"
#include "tap.h"

static void order (void)
{
    ns_qblocks_t q = { .total = 100 };
    ok (ns_qb_reserve (&q, 200) == 0 && q.cap >= 200, "room for 200");
    int at = 0;
    for (int j = 0; j < 150; j++)
        at += ns_qb_push (&q, 1000 + j, 1 + j % 7, 10.0 * j) == j;
    is_int (at, 150, "each job at the next position");
    ok (q.start == 0 && q.end == 150 && ns_qb_count (&q) == 150,
        "150 queued, [0, 150)");
    ns_qb_remove (&q, 1);
    ok (q.start == 0 && q.job[1] == -1 && q.tasks[1] == -1,
        "a removed job leaves a tombstone; the head stays");
    ns_qb_remove (&q, 0);
    is_int (q.start, 2, "the head moves past tombstones");
    is_int (q.job[2], 1002, "positions never move");
    ns_qb_remove (&q, 64);
    ns_qb_remove (&q, 65);
    is_int (ns_qb_count (&q), 146, "the count across blocks");
    is_int (ns_qb_next_live (&q, 64, 150), 66, "next live skips tombstones");
    is_int (ns_qb_next_live (&q, 149, 149), 149, "an empty range: its end");
    for (int p = 66; p < 128; p++)
        ns_qb_remove (&q, p);
    is_int (ns_qb_next_live (&q, 64, 140), 128,
            "next live passes an empty block");
    is_int (ns_qb_next_live (&q, 64, 100), 100, "or stops at the end");
    ns_qb_free (&q);
    ok (q.job == NULL && q.cap == 0, "freed");
}

static unsigned rnd (unsigned *seed, unsigned n)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 8) % n;
}

/* Could the job at position p start under b (the tree's rule)? */
static int may (const ns_qblocks_t *q, int p, const ns_qb_bounds_t *b)
{
    int key = q->tasks[p] > q->total ? 0 : q->tasks[p];
    return ns_qtree_may (b->fits, b->outside, b->lim, key, q->est[p]);
}

static void candidates (void)
{
    enum { N = 3000 };
    ns_qblocks_t q = { .total = 512 };
    unsigned seed = 42;
    int bad = 0, found = 0, scans = 0;
    if (ns_qb_reserve (&q, N) < 0)
        bad++;
    for (int j = 0; j < N; j++) {
        int nt = rnd (&seed, 20) == 0 ? 600 + (int)rnd (&seed, 100)
                                      : 1 + (int)rnd (&seed, 300);
        /* estimates past any bound, and a task count of the machine */
        double est = rnd (&seed, 50) == 0 ? INFINITY
                                          : (double)rnd (&seed, 100000);
        if (rnd (&seed, 50) == 0)
            nt = (int)q.total;
        ns_qb_push (&q, j, nt, est);
    }
    for (int round = 0; round < 80; round++) {
        /* some jobs leave: their blocks' minima go stale */
        for (int k = 0; k < 60; k++) {
            int p = q.start + (int)rnd (&seed, (unsigned)(q.end - q.start));
            if (q.tasks[p] >= 0)
                ns_qb_remove (&q, p);
        }
        ns_qb_bounds_t b = { 1 + rnd (&seed, 200), 0, INFINITY };
        b.outside = rnd (&seed, 2) ? b.fits : (int64_t)rnd (&seed, 50);
        b.lim = rnd (&seed, 2) ? INFINITY : (double)rnd (&seed, 50000);
        /* bounds at and past the range of a task count, none at all, an
         * estimate bound no estimate meets */
        switch (round % 8) {
            case 1:
                b.fits = (int64_t)INT_MAX + rnd (&seed, 3);
                break;
            case 3:
                b.outside = rnd (&seed, 2) ? -1 : (int64_t)INT_MIN - 1;
                break;
            case 5:
                b.lim = rnd (&seed, 2) ? NAN : -INFINITY;
                break;
            case 7:
                b.fits = rnd (&seed, 2) ? 0 : INT_MIN;
                break;
        }
        if (b.outside > b.fits)
            b.outside = b.fits;
        ns_qb_scan_reset (&q);
        scans++;
        int want = q.start;
        for (int pos = q.start;; pos++) {
            pos = ns_qb_next_candidate (&q, pos, q.end, &b);
            while (want < q.end && !(q.tasks[want] >= 0 && may (&q, want, &b)))
                want++;
            if (pos != want) {
                bad++;
                break;
            }
            if (pos >= q.end)
                break;
            found++;
            want++;
            /* the scan starts some of the jobs it looks at */
            if (rnd (&seed, 4) == 0)
                ns_qb_remove (&q, pos);
        }
    }
    ok (bad == 0, "%d scans: every candidate found, in order, none passed "
        "(%d found)", scans, found);
    ns_qb_free (&q);
}

int main (void)
{
    plan_no_plan ();
    order ();
    candidates ();
    return done_testing ();
}
