/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench_tree - time placing one rank in the space-bounded cache tree
 *
 * A 256-core node with 32 L3 domains of 8 cores in 4 packages.  Another
 * job holds 28M of every second L3, so ranks whose own L3 is taken must
 * look at their neighbours.  One iteration places a rank (footprints from
 * 16K to 24M, origins over all cores) and releases it, which is what the
 * SPANK plugin does per rank plus the ledger update.  The worst case has
 * every L3 full, so each placement scans all L3s and packages before
 * falling back to memory.  Prints "name value unit" lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench.h"
#include "cachetree.h"
#include "cachetree_test.h"

#define NODE "pack:4 l3:8(size=32MiB) l2:8(size=1MiB) l1d:1(size=48KiB) " \
             "core:1 pu:2"

/* Best of 3 rounds, in microseconds per place + release. */
static double time_place (ns_cachetree_t *t, int count)
{
    static const uint64_t sizes[] = { 16 << 10, 600 << 10, 8 << 20, 24 << 20 };
    ns_error_t err;
    double best = 1e30;
    for (int round = 0; round < 3; round++) {
        double t0 = bench_seconds (CLOCK_MONOTONIC) * 1e6;
        for (int i = 0; i < count; i++) {
            int id = ns_cachetree_place (t, sizes[i & 3], (i * 7) & 255, 1.0,
                                         NULL, &err);
            if (id < 0 || ns_cachetree_release (t, id, &err) < 0) {
                fprintf (stderr, "bench_tree: %s\n", err.text);
                exit (1);
            }
        }
        double us = (bench_seconds (CLOCK_MONOTONIC) * 1e6 - t0) / count;
        if (us < best)
            best = us;
    }
    return best;
}

static int occupy_l3s (ns_cachetree_t *t, int step, uint64_t bytes)
{
    ns_error_t err;
    for (int i = 0; i < 32; i += step)
        if (ns_cachetree_occupy (t, NS_CT_L3, i, bytes, &err) < 0) {
            fprintf (stderr, "bench_tree: %s\n", err.text);
            return -1;
        }
    return 0;
}

int main (void)
{
    ns_error_t err;
    ns_cachetree_t *t = ns_cachetree_load (NODE, NULL, &err);
    if (!t) {
        fprintf (stderr, "bench_tree: %s\n", err.text);
        return 1;
    }
    if (occupy_l3s (t, 2, 28 << 20) < 0)
        return 1;
    printf ("tree_place_us %.3f us\n", time_place (t, 1000000));
    if (occupy_l3s (t, 1, 30 << 20) < 0)
        return 1;
    printf ("tree_place_worst_us %.3f us\n", time_place (t, 200000));
    if (ns_cachetree_check (t, &err) < 0) {
        fprintf (stderr, "bench_tree: %s\n", err.text);
        return 1;
    }
    ns_cachetree_destroy (t);
    return 0;
}
