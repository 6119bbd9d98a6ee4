/* SPDX-License-Identifier: GPL-2.0-or-later */
/* qtree.c - the backfill scan's min-tree over queue blocks (see qtree.h) */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qtree.h"

#define K NS_QTREE_CLASSES

/* Node i's least estimates (K floats), then its least keys (K). */
#define NODE(e, i) ((e) + (size_t)2 * K * (i))

int ns_qtree_grow (ns_qtree_t *t, int nblocks)
{
    if (nblocks <= t->n)
        return 0;
    int n = t->n ? t->n : 64;
    while (n < nblocks)
        n *= 2;
    float *e = malloc (sizeof (*e) * 2 * K * 2 * (size_t)n);
    if (!e)
        return -1;
    for (size_t i = 0; i < (size_t)2 * K * 2 * n; i++)
        e[i] = INFINITY;
    if (t->n)
        memcpy (NODE (e, n), NODE (t->est, t->n),
                sizeof (*e) * 2 * K * (size_t)t->n);
    for (int i = n - 1; i >= 1; i--)
        for (int c = 0; c < 2 * K; c++) {
            float l = NODE (e, 2 * i)[c], r = NODE (e, 2 * i + 1)[c];
            NODE (e, i)[c] = l < r ? l : r;
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

void ns_qtree_set (ns_qtree_t *t, int b, int cls, float est, float key)
{
    int i = t->n + b;
    NODE (t->est, i)[cls] = est;
    NODE (t->est, i)[K + cls] = key;
    for (i >>= 1; i >= 1; i >>= 1) {
        const float *l = NODE (t->est, 2 * i), *r = NODE (t->est, 2 * i + 1);
        float *m = NODE (t->est, i);
        float me = l[cls] < r[cls] ? l[cls] : r[cls];
        float mk = l[K + cls] < r[K + cls] ? l[K + cls] : r[K + cls];
        if (m[cls] == me && m[K + cls] == mk)
            break;      /* the ancestors do not change either */
        m[cls] = me;
        m[K + cls] = mk;
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
    /* a negative bound: no key (>= 0) is at most it */
    q->fits = fits < 0 ? -1.0f : ns_qtree_key (fits);
    if (outside > fits)
        outside = fits;
    q->outside = outside < 0 ? -1.0f : ns_qtree_key (outside);
    q->lim = flim;
}

/* May any class of node e hold a job able to start under q?  Eight
 * classes at a time (GCC's vector extension: two SSE registers each, or
 * one AVX register in the clone of ns_qtree_next () for processors that
 * have AVX2); every scan step of the tree asks it. */
typedef float v8f __attribute__ ((vector_size (32)));
typedef int v8i __attribute__ ((vector_size (32)));

_Static_assert (K == 16, "hit () compares 16 classes");

static inline int hit (const float *e, v8f f, v8f o, v8f l)
{
    v8f e0, e1, k0, k1;
    memcpy (&e0, e, sizeof (v8f));
    memcpy (&e1, e + 8, sizeof (v8f));
    memcpy (&k0, e + K, sizeof (v8f));
    memcpy (&k1, e + K + 8, sizeof (v8f));
    /* outside <= fits: a key at most outside is at most fits */
    v8i r = (k0 <= o) | ((k0 <= f) & (e0 <= l));
    r |= (k1 <= o) | ((k1 <= f) & (e1 <= l));
    uint64_t w[4];
    memcpy (w, &r, sizeof (w));
    return (w[0] | w[1] | w[2] | w[3]) != 0;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) \
    && !defined(__SANITIZE_ADDRESS__)
__attribute__ ((target_clones ("avx2", "default")))
#endif
int ns_qtree_next (const ns_qtree_t *t, int b, const ns_qtree_query_t *q)
{
    if (b >= t->n)
        return -1;
    int i = t->n + b;
    v8f f = { q->fits, q->fits, q->fits, q->fits,
              q->fits, q->fits, q->fits, q->fits };
    v8f o = { q->outside, q->outside, q->outside, q->outside,
              q->outside, q->outside, q->outside, q->outside };
    v8f l = { q->lim, q->lim, q->lim, q->lim, q->lim, q->lim, q->lim,
              q->lim };
    for (;;) {
        if (hit (NODE (t->est, i), f, o, l)) {
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
