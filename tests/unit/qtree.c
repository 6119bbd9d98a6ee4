/* SPDX-License-Identifier: GPL-2.0-or-later */
/* qtree.t - sim/qtree.c's min-tree against a look at every job: on random
 * queues of random jobs (keys and estimates), for random bounds, the
 * blocks ns_qtree_next () passes hold no job ns_qtree_may () admits, and
 * where the least key and the least estimate of each class come from the
 * same job it finds exactly the blocks that hold one.  Also: the keys and
 * estimates as stored are never above the exact ones, and bounds past
 * 2^24 pass every key.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "qtree.h"
#include "tap.h"

#define BLOCK 8
#define MAXB 300

struct job {
    int key;
    double est;
    int live;
};

static unsigned rnd (unsigned *seed, unsigned n)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 8) % n;
}

/* A key of any class: mostly small, some large, some past 2^24. */
static int rnd_key (unsigned *seed)
{
    switch (rnd (seed, 8)) {
        case 0:
            return 0;
        case 1:
            return (int)rnd (seed, 1u << 20);
        case 2:
            return (1 << 24) + (int)rnd (seed, 1000);
        default:
            return 1 + (int)rnd (seed, 300);
    }
}

static void leaf_anew (ns_qtree_t *t, const struct job *q, int b)
{
    float m[NS_QTREE_CLASSES], mk[NS_QTREE_CLASSES];
    for (int c = 0; c < NS_QTREE_CLASSES; c++)
        m[c] = mk[c] = INFINITY;
    for (int i = b * BLOCK; i < (b + 1) * BLOCK; i++) {
        if (!q[i].live)
            continue;
        int c = ns_qtree_class (q[i].key);
        float e = ns_qtree_est (q[i].est), k = ns_qtree_key (q[i].key);
        m[c] = e < m[c] ? e : m[c];
        mk[c] = k < mk[c] ? k : mk[c];
    }
    for (int c = 0; c < NS_QTREE_CLASSES; c++)
        ns_qtree_set (t, b, c, m[c], mk[c]);
}

static int block_holds (const struct job *q, int b, int64_t fits,
                        int64_t outside, double lim)
{
    for (int i = b * BLOCK; i < (b + 1) * BLOCK; i++)
        if (q[i].live && ns_qtree_may (fits, outside, lim, q[i].key, q[i].est))
            return 1;
    return 0;
}

/* One random queue of nb blocks (one job per block and class when
 * single), queried `rounds` times; 1 if every answer was right. */
static int trial (unsigned seed, int nb, int single, int rounds,
                  int *exact_misses)
{
    static struct job q[MAXB * BLOCK];
    ns_qtree_t t = { 0 };
    int good = 1;
    if (ns_qtree_grow (&t, nb) < 0)
        return 0;
    for (int b = 0; b < nb; b++) {
        int used[NS_QTREE_CLASSES] = { 0 };
        for (int i = b * BLOCK; i < (b + 1) * BLOCK; i++) {
            q[i].key = rnd_key (&seed);
            q[i].est = rnd (&seed, 4) == 0 ? 1e40 : rnd (&seed, 100000) / 7.0;
            int c = ns_qtree_class (q[i].key);
            q[i].live = rnd (&seed, 3) != 0 && !(single && used[c]);
            used[c] |= q[i].live;
        }
        leaf_anew (&t, q, b);
    }
    for (int r = 0; r < rounds; r++) {
        int64_t fits = rnd (&seed, 10) == 0 ? (int64_t)1 << 30
                                            : (int64_t)rnd (&seed, 400);
        int64_t outside = rnd (&seed, 2) ? fits : (int64_t)rnd (&seed, 300);
        double lim = rnd (&seed, 8) == 0 ? INFINITY
                                         : rnd (&seed, 100000) / 7.0;
        if (outside > fits)
            outside = fits;
        ns_qtree_query_t qq;
        ns_qtree_query (&qq, fits, outside, lim);
        int b = 0;
        while (b < nb) {
            int nx = ns_qtree_next (&t, b, &qq);
            int stop = nx < 0 || nx >= nb ? nb : nx;
            if (nx >= 0 && nx < b)
                good = 0;
            for (int p = b; p < stop; p++)
                if (block_holds (q, p, fits, outside, lim))
                    good = 0;   /* passed a block that holds one */
            if (stop < nb && !block_holds (q, stop, fits, outside, lim))
                ++*exact_misses;
            b = stop + 1;
        }
    }
    ns_qtree_free (&t);
    return good;
}

int main (void)
{
    plan_no_plan ();
    int misses = 0, all = 1;
    for (unsigned s = 1; s <= 200; s++)
        all &= trial (s, 1 + (int)(s * 7 % MAXB), 0, 40, &misses);
    ok (all, "200 random queues: no block passed holds a job able to start");
    diag ("blocks found holding none (minima of different jobs): %d", misses);
    misses = 0;
    all = 1;
    for (unsigned s = 1; s <= 200; s++)
        all &= trial (1000 + s, 1 + (int)(s * 13 % MAXB), 1, 40, &misses);
    ok (all, "one job per class and block: no block passed holds one");
    is_int (misses, 0, "one job per class and block: every block found "
                       "holds one");

    ok (ns_qtree_key (7) == 7.0f && ns_qtree_key (1 << 24) == 16777216.0f
        && ns_qtree_key ((1 << 24) + 1) <= (float)((1 << 24) + 1)
        && ns_qtree_key (INT32_MAX) <= (float)INT32_MAX,
        "keys as stored: exact to 2^24, never above");
    ok ((double)ns_qtree_est (0.1) <= 0.1 && (double)ns_qtree_est (1e300)
        <= 1e300, "estimates as stored: never above");
    ns_qtree_query_t qq;
    ns_qtree_query (&qq, (int64_t)1 << 40, (int64_t)1 << 40, 0);
    ok (ns_qtree_key (INT32_MAX) <= qq.fits
        && ns_qtree_key (INT32_MAX) <= qq.outside,
        "a bound past 2^24 passes every key");
    ns_qtree_query (&qq, -1, -1, INFINITY);
    ok (!(ns_qtree_key (0) <= qq.fits), "a negative bound passes none");
    return done_testing ();
}
