/* SPDX-License-Identifier: GPL-2.0-or-later */
/* qtree.c - the backfill scan's min-tree over queue blocks (see qtree.h) */
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "qtree.h"

static void pull (ns_qtree_t *t, int i)
{
    int l = 2 * i, r = l + 1;
    t->nt[i] = t->nt[l] < t->nt[r] ? t->nt[l] : t->nt[r];
    t->est[i] = t->est[l] < t->est[r] ? t->est[l] : t->est[r];
}

int ns_qtree_grow (ns_qtree_t *t, int nblocks, int used, const int *nt,
                   const double *est, const uint64_t *live)
{
    if (nblocks <= t->n)
        return 0;
    int n = t->n ? t->n : 64;
    while (n < nblocks)
        n *= 2;
    int *tnt = realloc (t->nt, sizeof (*tnt) * 2 * (size_t)n);
    if (!tnt)
        return -1;
    t->nt = tnt;
    double *test = realloc (t->est, sizeof (*test) * 2 * (size_t)n);
    if (!test)
        return -1;
    t->est = test;
    t->n = n;
    for (int b = 0; b < n; b++) {
        int on = b < used && live[b];
        t->nt[n + b] = on ? nt[b] : INT_MAX;
        t->est[n + b] = on ? est[b] : INFINITY;
    }
    for (int i = n - 1; i >= 1; i--)
        pull (t, i);
    return 0;
}

void ns_qtree_free (ns_qtree_t *t)
{
    free (t->nt);
    free (t->est);
    t->nt = NULL;
    t->est = NULL;
    t->n = 0;
}

void ns_qtree_set (ns_qtree_t *t, int b, int nt, double est)
{
    int i = t->n + b;
    t->nt[i] = nt;
    t->est[i] = est;
    for (i >>= 1; i >= 1; i >>= 1) {
        int pnt = t->nt[i];
        double pest = t->est[i];
        pull (t, i);
        if (t->nt[i] == pnt && t->est[i] == pest)
            break;      /* the ancestors do not change either */
    }
}

int ns_qtree_next (const ns_qtree_t *t, int b, int64_t fits, int64_t outside,
                   double lim)
{
    if (b >= t->n)
        return -1;
    int i = t->n + b;
    for (;;) {
        if (!(t->nt[i] > fits || (t->nt[i] > outside && t->est[i] > lim))) {
            if (i >= t->n)
                return i - t->n;
            i = 2 * i;      /* the leftmost child that may hold one */
            continue;
        }
        while (i & 1) {     /* a right child: up, past its parent */
            if (i == 1)
                return -1;
            i >>= 1;
        }
        i++;                /* the next subtree to the right */
    }
}
