/* SPDX-License-Identifier: GPL-2.0-or-later */
/* qtree.h - the backfill scan's index of the queue: a min-tree over blocks
 *
 * Queued jobs fall in classes by their key (their task count, 0 for a job
 * that must be looked at whatever the state): class 0 holds key 0, class
 * c >= 1 the keys of c bits, [2^(c-1), 2^c - 1], the last class every
 * larger key.  Leaf b holds, per class, the least estimated runtime and
 * the least key of the queued jobs of that class in block b of queue
 * positions (INFINITY when none); an inner node the least of its subtree,
 * class by class.
 *
 * A job may start only with at most `fits` tasks, and with more than
 * `outside` tasks only if its estimate is at most `lim`.  A class may
 * hold such a job where its least key is at most fits, and its least key
 * at most outside or its least estimate at most lim; the scan passes
 * every block where no class may, in O(log blocks).  The two minima may
 * come from different jobs: a block found may hold no job able to start
 * (the caller looks at each), a block passed holds none.
 */
#ifndef NODESHARE_QTREE_H
#define NODESHARE_QTREE_H

#include <float.h>
#include <math.h>
#include <stdint.h>

#define NS_QTREE_CLASSES 16

typedef struct {
    float *est;     /* 2 * n nodes of NS_QTREE_CLASSES least estimates,
                       then as many least keys (ns_qtree_key ()); leaf b
                       is node n + b */
    int n;          /* leaves, a power of two */
} ns_qtree_t;

typedef struct {
    float fits, outside, lim;   /* the bounds as the tree compares them:
                                   never below the exact ones */
} ns_qtree_query_t;

/* The class of a key (>= 0).  Inline: the scans ask it of every job
 * they look at. */
static inline int ns_qtree_class (int key)
{
    if (key <= 0)
        return 0;
    int bits = 32 - __builtin_clz ((unsigned)key);
    return bits < NS_QTREE_CLASSES - 1 ? bits : NS_QTREE_CLASSES - 1;
}

/* An estimate as the tree stores it: a float no larger than est. */
static inline float ns_qtree_est (double est)
{
    if (!(est < FLT_MAX))
        return FLT_MAX;
    float f = (float)est;
    if ((double)f > est)
        f = nextafterf (f, -INFINITY);
    return f;
}

/* A key as the tree stores it: a float no larger than key (exact up to
 * 2^24). */
static inline float ns_qtree_key (int64_t key)
{
    return key < (1 << 24) ? (float)key : (float)(1 << 24);
}

/* The tree's least estimates of leaf b (NS_QTREE_CLASSES floats, read
 * only), followed by its least keys (as many). */
static inline const float *ns_qtree_leaf (const ns_qtree_t *t, int b)
{
    return t->est + (size_t)2 * NS_QTREE_CLASSES * (t->n + b);
}

/* Room for nblocks leaves (new ones empty).  0, or -1 out of memory (the
 * tree is unchanged). */
int ns_qtree_grow (ns_qtree_t *t, int nblocks);
void ns_qtree_free (ns_qtree_t *t);


/* Leaf b's minima of class cls become est (a value of ns_qtree_est (),
 * or INFINITY for none) and key (a value of ns_qtree_key (), or
 * INFINITY). */
void ns_qtree_set (ns_qtree_t *t, int b, int cls, float est, float key);

/* The bounds for jobs of at most fits tasks, and of at most outside
 * tasks (outside <= fits) or an estimate of at most lim. */
void ns_qtree_query (ns_qtree_query_t *q, int64_t fits, int64_t outside,
                     double lim);

/* Could a job of key k and estimate est start under q?  The exact test
 * the bounds approximate. */
static inline int ns_qtree_may (int64_t fits, int64_t outside, double lim,
                                int k, double est)
{
    return k <= fits && (k <= outside || est <= lim);
}

/* The first block from b on that may hold a job able to start under q;
 * -1 if none. */
int ns_qtree_next (const ns_qtree_t *t, int b, const ns_qtree_query_t *q);

#endif /* !NODESHARE_QTREE_H */
