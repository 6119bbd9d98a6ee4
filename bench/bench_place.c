/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench_place - time placement decisions on large, half-full clusters
 *
 * Builds a cluster of N nodes x 24 cores, fills it to 50% of its cores with
 * jobs of random size (1..48 tasks) and program (8 programs) placed by the
 * policy itself, then times decisions for a stream of random requests
 * (decided, not added, so the state stays at 50%).  Prints
 * "name value unit" lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench.h"
#include "cluster.h"
#include "interf.h"
#include "policy.h"

static unsigned rng = 12345;

static unsigned next_rand (void)
{
    rng = rng * 1103515245u + 12345u;
    return (rng >> 8) & 0xffffff;
}

static ns_cluster_t *fill_half (int nnodes, const ns_policy_t *pol,
                                const ns_interf_t *m, ns_placement_t *pl)
{
    ns_error_t err;
    ns_cluster_t *c = ns_cluster_create (nnodes, 24, 2, &err);
    int64_t target = ns_cluster_total_cores (c) / 2;
    uint64_t id = 1;
    int misses = 0;
    while (ns_cluster_used_cores (c) < target && misses < 1000) {
        ns_request_t r;
        ns_request_init (&r, id, next_rand () % 8, 1 + next_rand () % 48);
        if (ns_place (c, pol, m, NULL, &r, pl, &err) == 0
            && pl->verdict == NS_PLACED
            && ns_cluster_add_job (c, id, r.program, pl->shares, pl->n,
                                   pl->flags, &err) == 0)
            id++;
        else
            misses++;
    }
    return c;
}

static double time_decisions (const ns_cluster_t *c, const ns_policy_t *pol,
                              const ns_interf_t *m, ns_placement_t *pl,
                              int count)
{
    ns_request_t *reqs = malloc (sizeof (*reqs) * count);
    for (int i = 0; i < count; i++)
        ns_request_init (&reqs[i], 1000000 + i, next_rand () % 8,
                         1 + next_rand () % 48);
    ns_error_t err;
    int placed = 0;
    double t0 = bench_seconds (CLOCK_MONOTONIC) * 1e6;
    for (int i = 0; i < count; i++)
        if (ns_place (c, pol, m, NULL, &reqs[i], pl, &err) == 0
            && pl->verdict == NS_PLACED)
            placed++;
    double t = (bench_seconds (CLOCK_MONOTONIC) * 1e6 - t0) / count;
    free (reqs);
    if (placed == 0)
        fprintf (stderr, "bench_place: no request could be placed\n");
    return t;
}

static void run (int nnodes, ns_policy_kind_t kind, const char *suffix)
{
    ns_policy_t pol;
    ns_policy_default (&pol);
    pol.kind = kind;
    pol.max_slowdown = 1.5;
    ns_interf_t *m = ns_interf_create ();
    for (int p = 0; p < 8; p++)
        for (int q = 0; q < 8; q++)
            ns_interf_set_slowdown (m, p, q, 1.0 + 0.01 * ((p * 7 + q) % 13),
                                    NULL);
    ns_placement_t *pl = ns_placement_create (nnodes);
    ns_cluster_t *c = fill_half (nnodes, &pol, m, pl);
    int count = nnodes > 5000 ? 20000 : 100000;
    double best = 1e30;
    for (int round = 0; round < 3; round++) {
        double t = time_decisions (c, &pol, m, pl, count);
        if (t < best)
            best = t;
    }
    printf ("place_us_%dnodes%s %.3f us\n", nnodes, suffix, best);
    ns_cluster_destroy (c);
    ns_placement_destroy (pl);
    ns_interf_destroy (m);
}

int main (void)
{
    run (1024, NS_POLICY_TWINS, "");
    run (10000, NS_POLICY_TWINS, "");
    run (1024, NS_POLICY_MIN_SLOWDOWN, "_min_slowdown");
    run (10000, NS_POLICY_MIN_SLOWDOWN, "_min_slowdown");
    return 0;
}
