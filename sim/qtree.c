/* SPDX-License-Identifier: GPL-2.0-or-later */
/* qtree.c - the backfill scan's min-tree over queue blocks (see qtree.h) */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qtree.h"

#define K NS_QTREE_CLASSES

int ns_qtree_grow (ns_qtree_t *t, int nblocks)
{
    if (nblocks <= t->n)
        return 0;
    int n = t->n ? t->n : 64;
    while (n < nblocks)
        n *= 2;
    float *e = malloc (sizeof (*e) * K * 2 * (size_t)n);
    if (!e)
        return -1;
    for (size_t i = 0; i < (size_t)K * 2 * n; i++)
        e[i] = INFINITY;
    if (t->n)
        memcpy (e + (size_t)K * n, t->est + (size_t)K * t->n,
                sizeof (*e) * K * (size_t)t->n);
    for (int i = n - 1; i >= 1; i--)
        for (int c = 0; c < K; c++) {
            float l = e[K * 2 * i + c], r = e[K * (2 * i + 1) + c];
            e[K * i + c] = l < r ? l : r;
        }
    free (t->est);
    t->est = e;
    t->n = n;
    return 0;
}

void ns_qtree_free (ns_qtree_t *t)
{
    free (t->est);
    t->est = NULL;
    t->n = 0;
}

void ns_qtree_set (ns_qtree_t *t, int b, int cls, float est)
{
    int i = t->n + b;
    t->est[K * i + cls] = est;
    for (i >>= 1; i >= 1; i >>= 1) {
        float l = t->est[K * 2 * i + cls], r = t->est[K * (2 * i + 1) + cls];
        float m = l < r ? l : r;
        if (t->est[K * i + cls] == m)
            break;      /* the ancestors do not change either */
        t->est[K * i + cls] = m;
    }
}

void ns_qtree_query (ns_qtree_query_t *q, int64_t fits, int64_t outside,
                     double lim)
{
    float flim = FLT_MAX;
    if (lim < FLT_MAX) {
        flim = (float)lim;
        if ((double)flim < lim)
            flim = nextafterf (flim, INFINITY);
        if (flim > FLT_MAX)
            flim = FLT_MAX;
    }
    for (int c = 0; c < K; c++) {
        int64_t lo = c == 0 ? 0 : (int64_t)1 << (c - 1);
        if (lo > fits)
            q->bound[c] = -INFINITY;    /* every key of the class is
                                           larger than fits */
        else if (lo <= outside)
            q->bound[c] = FLT_MAX;      /* some may start anywhere */
        else
            q->bound[c] = flim;
    }
}

/* Does any class of node e hold an estimate within its bound?  Four
 * classes at a time (GCC's vector extension: SIMD where the target has
 * it); every scan step of the tree asks it. */
typedef float v4f __attribute__ ((vector_size (16)));
typedef int v4i __attribute__ ((vector_size (16)));

_Static_assert (K == 16, "hit () compares 16 classes");

static inline int hit (const float *e, const float *bound)
{
    v4f a[4], b[4];
    memcpy (a, e, sizeof (a));
    memcpy (b, bound, sizeof (b));
    v4i r = (a[0] <= b[0]) | (a[1] <= b[1]) | (a[2] <= b[2])
            | (a[3] <= b[3]);
    uint64_t w[2];
    memcpy (w, &r, sizeof (w));
    return (w[0] | w[1]) != 0;
}

int ns_qtree_next (const ns_qtree_t *t, int b, const ns_qtree_query_t *q)
{
    if (b >= t->n)
        return -1;
    int i = t->n + b;
    for (;;) {
        if (hit (t->est + (size_t)K * i, q->bound)) {
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
