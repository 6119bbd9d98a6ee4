/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cluster.t - cluster state: add/remove, queries, invariants */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "cluster.h"
#include "cluster_test.h"
#include "progtab.h"
#include "tap.h"

static ns_cluster_t *c;

static void check (const char *what)
{
    ns_error_t err = { "" };
    int rc = ns_cluster_check (c, &err);
    if (!ok (rc == 0, "invariants after %s", what))
        diag ("%s", err.text);
}

static void test_basic (void)
{
    ns_error_t err;
    c = ns_cluster_create (4, 24, 2, &err);
    ok (c != NULL, "4 x 24 cluster");
    is_int (ns_cluster_nempty (c), 4, "all empty");
    is_int (ns_cluster_total_cores (c), 96, "96 cores");
    ns_share_t a[2] = { { 0, 12 }, { 1, 12 } };
    is_int (ns_cluster_add_job (c, 10, 1, a, 2, NS_JOB_STRIPED, &err), 0,
            "add job 10 on 0,1");
    check ("add");
    is_int (ns_cluster_nempty (c), 2, "two empty");
    is_int (ns_cluster_next_empty (c, 0), 2, "first empty is node 2");
    is_int (ns_node_free_cores (c, 0), 12, "node 0 has 12 free");
    is_int (ns_node_ntenants (c, 1), 1, "node 1 one tenant");
    ok (ns_node_runs_program (c, 1, 1), "node 1 runs program 1");
    ok (!ns_node_runs_program (c, 1, 2), "node 1 does not run program 2");
    ok (!ns_node_runs_program (c, 1, NS_PROGRAM_UNKNOWN),
        "unknown program never runs anywhere");

    is_int (ns_cluster_add_job (c, 10, 1, a, 2, 0, &err), -1, "duplicate id");
    is_int (errno, EEXIST, "EEXIST");
    ns_share_t big[2] = { { 2, 12 }, { 0, 13 } };
    is_int (ns_cluster_add_job (c, 11, 2, big, 2, 0, &err), -1,
            "13 cores on a node with 12 free");
    is_int (errno, ENOSPC, "ENOSPC");
    is_str (err.text, "node 0: 13 cores asked, 12 free", "error text");
    is_int (ns_node_ntenants (c, 2), 0, "failed add left node 2 untouched");
    check ("failed add");
    ns_share_t twice[2] = { { 2, 1 }, { 2, 1 } };
    is_int (ns_cluster_add_job (c, 12, 2, twice, 2, 0, &err), -1,
            "same node twice rejected");
    ns_share_t whole[1] = { { 0, 4 } };
    is_int (ns_cluster_add_job (c, 13, 2, whole, 1, NS_JOB_CLOSES_NODES, &err),
            -1, "cannot hold an occupied node whole");
    ns_share_t w3[1] = { { 3, 4 } };
    is_int (ns_cluster_add_job (c, 14, 2, w3, 1, NS_JOB_CLOSES_NODES, &err), 0,
            "hold empty node 3 whole with 4 cores");
    ok (ns_node_is_closed (c, 3), "node 3 closed");
    ns_share_t j3[1] = { { 3, 1 } };
    is_int (ns_cluster_add_job (c, 15, 2, j3, 1, 0, &err), -1,
            "closed node refuses a co-tenant");
    check ("closed");
    is_int (ns_cluster_remove_job (c, 10, &err), 0, "remove job 10");
    is_int (ns_cluster_remove_job (c, 10, &err), -1, "remove twice");
    is_int (errno, ENOENT, "ENOENT");
    check ("remove");
    is_int (ns_cluster_nempty (c), 3, "three empty after removal");
    ok (ns_job_exists (c, 14) && !ns_job_exists (c, 10), "job table");
    is_int (ns_job_program (c, 14), 2, "program of job 14");
    is_int (ns_cluster_set_node (c, 3, 48, 2, &err), -1,
            "cannot reshape an occupied node");
    is_int (ns_cluster_set_node (c, 2, 48, 4, &err), 0, "reshape node 2");
    is_int (ns_cluster_max_cores (c), 48, "max cores follows");
    is_int (ns_cluster_total_cores (c), 120, "total cores follows");
    ns_cluster_destroy (c);
}

/* Random churn on 1000 nodes: the checker must stay happy and the hash
 * table must find every job after thousands of backward-shift deletes. */
static void test_churn (void)
{
    ns_error_t err;
    c = ns_cluster_create (1000, 8, 2, &err);
    uint64_t live[3000];
    int nlive = 0, failures = 0, adds = 0, bad_bits = 0, bad_fit = 0;
    srand (42);
    for (int step = 0; step < 20000; step++) {
        if (nlive < 3000 && (nlive == 0 || rand () % 3 != 0)) {
            ns_share_t s[2];
            s[0].node = rand () % 1000;
            s[1].node = (s[0].node + 1 + rand () % 999) % 1000;
            s[0].cores = 1 + rand () % 4;
            s[1].cores = 1 + rand () % 4;
            uint64_t id = 1000000ULL + step;
            if (ns_cluster_add_job (c, id, rand () % 7, s, 2, 0, &err) == 0) {
                live[nlive++] = id;
                adds++;
            }
        }
        else {
            int k = rand () % nlive;
            if (ns_cluster_remove_job (c, live[k], &err) < 0)
                failures++;
            live[k] = live[--nlive];
        }
        if (step % 5000 == 0 && ns_cluster_check (c, &err) < 0) {
            diag ("step %d: %s", step, err.text);
            failures++;
        }
        if (step % 1000 == 0) {
            /* best fit: the node of fewest free cores >= need (the first
             * on ties) among those not held whole, counted node by node */
            for (int q = 0; q < 40; q++) {
                int from = rand () % 1000, to = from + rand () % 300;
                int need = 1 + rand () % 8, busy = rand () % 2, want = -1;
                for (int n = from; n <= to && n < 1000; n++) {
                    int a = ns_node_free_cores (c, n);
                    if (ns_node_is_closed (c, n)
                        || (busy && ns_node_is_empty (c, n)) || a < need)
                        continue;
                    if (want < 0 || a < ns_node_free_cores (c, want))
                        want = n;
                }
                if (ns_cluster_best_fit (c, NULL, busy, 1, NULL, from, to,
                                         need) != want)
                    bad_fit++;
            }
            const uint64_t *e = ns_cluster_empty_bits (c);
            for (int n = 0; n < 1000; n++)
                if ((int)(e[n >> 6] >> (n & 63) & 1)
                    != ns_node_is_empty (c, n))
                    bad_bits++;
        }
    }
    ok (adds > 5000, "churn added %d jobs", adds);
    is_int (bad_bits, 0, "the empty bitmap in place marks the empty nodes");
    is_int (bad_fit, 0, "best fit from the bitmaps: the node counted node "
                        "by node");
    is_int (failures, 0, "no failed removal, invariants held");
    is_int (ns_cluster_njobs (c), nlive, "job count matches");
    int missing = 0;
    for (int i = 0; i < nlive; i++)
        missing += !ns_job_exists (c, live[i]);
    is_int (missing, 0, "every live job found");
    check ("churn");
    for (int i = 0; i < nlive; i++)
        ns_cluster_remove_job (c, live[i], &err);
    is_int (ns_cluster_used_cores (c), 0, "no cores used after draining");
    is_int (ns_cluster_nempty (c), 1000, "all empty after draining");
    check ("drain");
    ns_cluster_destroy (c);
}

/* A run of more than INT_MAX cores (the simulator allows 10^6 nodes of
 * 4096 cores) used to overflow its int sum: it saturates instead. */
static void test_huge_runs (void)
{
    ns_error_t err;
    ns_cluster_t *big = ns_cluster_create (3, 1 << 30, 2, &err);
    int start[2], end[2], cpus[2];
    int n = ns_cluster_runs (big, NULL, 0, 1, NULL, start, end, cpus);
    ok (n == 1 && start[0] == 0 && end[0] == 2 && cpus[0] == INT_MAX,
        "3 nodes of 2^30 cores: one run of INT_MAX cores (saturated)");
    ns_cluster_destroy (big);
}

/* The runs kept by every change (no allowed nodes, no limits) equal
 * those counted from the nodes (an allowed array of every node). */
static int runs_agree (ns_cluster_t *k, int nn, const unsigned char *all)
{
    static int s0[200], e0[200], c0[200], s1[200], e1[200], c1[200];
    for (int b = 0; b < 2; b++) {
        int n0 = ns_cluster_runs (k, NULL, b, 1, NULL, s0, e0, c0);
        int n1 = ns_cluster_runs (k, all, b, 1, NULL, s1, e1, c1);
        if (n0 != n1)
            return 0;
        for (int i = 0; i < n0; i++)
            if (s0[i] != s1[i] || e0[i] != e1[i] || c0[i] != c1[i])
                return 0;
    }
    (void)nn;
    return 1;
}

/* ns_cluster_next_open () of k equals ref's for every core count and a
 * few starting nodes. */
static int open_agree (const ns_cluster_t *k, const ns_cluster_t *ref)
{
    static const int from[] = { 0, 1, 63, 64, 150, 299 };
    for (int m = 1; m <= 8; m++)
        for (size_t f = 0; f < sizeof (from) / sizeof (from[0]); f++)
            if (ns_cluster_next_open (k, from[f], m)
                != ns_cluster_next_open (ref, from[f], m))
                return 0;
    return 1;
}

static void test_kept_runs (void)
{
    ns_error_t err;
    enum { NN = 300 };
    ns_cluster_t *k = ns_cluster_create (NN, 8, 2, &err);
    /* the same jobs on a cluster that keeps everything, always */
    ns_cluster_t *ref = ns_cluster_create (NN, 8, 2, &err);
    unsigned char all[NN];
    for (int i = 0; i < NN; i++)
        all[i] = 1;
    for (int i = 0; i < NN; i += 7) {
        ns_cluster_set_node (k, i, 4 + i % 5, 2, &err);
        ns_cluster_set_node (ref, i, 4 + i % 5, 2, &err);
    }
    uint64_t live[400];
    int nlive = 0, bad = 0, checked = 0, bad_open = 0;
    srand (7);
    for (int step = 0; step < 20000; step++) {
        if (nlive < 400 && (nlive == 0 || rand () % 2)) {
            ns_share_t sh[12];
            int w = 1 + rand () % 12, first = rand () % NN, ns = 0;
            int whole = rand () % 10 == 0;
            for (int i = 0; i < w && first + i < NN; i++) {
                int n = first + i;
                int fr = ns_node_free_cores (k, n);
                if (fr <= 0 || ns_node_is_closed (k, n)
                    || (whole && !ns_node_is_empty (k, n)))
                    continue;
                sh[ns].node = n;
                sh[ns].cores = rand () % 3 ? fr : 1 + rand () % fr;
                ns++;
            }
            uint64_t id = 1 + (uint64_t)step;
            int fl = whole ? NS_JOB_CLOSES_NODES : 0;
            if (ns > 0 && ns_cluster_add_job (k, id, 0, sh, ns, fl, &err) == 0) {
                live[nlive++] = id;
                ns_cluster_add_job (ref, id, 0, sh, ns, fl, &err);
            }
        }
        else if (nlive > 0) {
            int i = rand () % nlive;
            ns_cluster_remove_job (k, live[i], &err);
            ns_cluster_remove_job (ref, live[i], &err);
            live[i] = live[--nlive];
        }
        /* the runs of nodes in use, the runs of all usable nodes and the
         * open bitmaps counted when asked, then kept again (counted
         * anew), in turns of different lengths */
        if (step % 500 == 250)
            ns_cluster_keep_busy_runs (k, (step / 500) % 2);
        if (step % 700 == 350)
            ns_cluster_keep_free_runs (k, (step / 700) % 2);
        if (step % 900 == 450)
            ns_cluster_keep_open (k, (step / 900) % 2);
        if (step % 97 == 0) {
            checked++;
            if (!runs_agree (k, NN, all) || ns_cluster_check (k, &err) < 0)
                bad++;
            bad_open += !open_agree (k, ref);
        }
    }
    ok (bad == 0 && checked > 100, "kept runs equal counted runs (%d of %d "
        "states differ; each kind kept in turns)", bad, checked);
    ok (bad_open == 0, "ns_cluster_next_open: the same with the open bitmaps "
        "kept or not (%d of %d states differ)", bad_open, checked);
    /* off, then on: counted anew from nodes with jobs on them */
    ns_cluster_keep_free_runs (k, 0);
    ns_cluster_keep_open (k, 0);
    ns_cluster_keep_free_runs (k, 1);
    ns_cluster_keep_open (k, 1);
    int rc = ns_cluster_check (k, &err);
    ok (rc == 0 && runs_agree (k, NN, all) && open_agree (k, ref),
        "kept again with %d jobs running: invariants, runs and next_open "
        "hold (%s)", nlive, rc == 0 ? "checked" : err.text);
    while (nlive > 0) {
        ns_cluster_remove_job (ref, live[nlive - 1], &err);
        ns_cluster_remove_job (k, live[--nlive], &err);
    }
    ok (runs_agree (k, NN, all) && ns_cluster_check (k, &err) == 0,
        "kept runs after draining");
    ns_cluster_destroy (k);
    ns_cluster_destroy (ref);
}

int main (void)
{
    plan_no_plan ();
    ns_error_t err;
    ok (ns_cluster_create (0, 24, 2, &err) == NULL, "0 nodes rejected");
    is_str (err.text, "node count 0 out of range 1..10000000", "message");
    ok (ns_cluster_create (4, 2, 3, &err) == NULL, "3 sockets of 2 cores");
    test_basic ();
    test_churn ();
    test_huge_runs ();
    test_kept_runs ();
    return done_testing ();
}
