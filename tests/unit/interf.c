/* SPDX-License-Identifier: GPL-2.0-or-later */
/* interf.t - interference model lookups and job progress rates */
#include <errno.h>
#include <math.h>

#include "cluster.h"
#include "interf.h"
#include "interf_test.h"
#include "policy.h"
#include "progtab.h"
#include "tap.h"

static int near (double a, double b)
{
    return fabs (a - b) < 1e-9;
}

int main (void)
{
    plan_no_plan ();
    ns_error_t err;
    ns_interf_t *m = ns_interf_create ();
    enum { ABQ, LAM, LSD };
    ok (near (ns_interf_speedup (m, ABQ), 1.0), "unknown speedup is 1.0");
    ok (near (ns_interf_slowdown (m, 3, 4), 1.0), "unknown slowdown is 1.0");
    ok (ns_interf_set_speedup (m, ABQ, 246.0 / 196.0, &err) == 0, "set ABQ");
    ok (ns_interf_set_speedup (m, LSD, 28.0 / 20.0, &err) == 0, "set LSD");
    ok (ns_interf_set_slowdown (m, LSD, LAM, 1.178, &err) == 0, "set LSD/LAM");
    ok (ns_interf_set_slowdown (m, LAM, LSD, 0.979, &err) == 0, "set LAM/LSD");
    ok (near (ns_interf_slowdown (m, LSD, LAM), 1.178), "LSD next to LAM");
    ok (near (ns_interf_slowdown (m, LAM, LSD), 0.979),
        "LAM next to LSD (below 1)");
    ok (near (ns_interf_slowdown (m, LAM, ABQ), 1.0), "unset pair default");
    ok (near (ns_interf_mutual (m, LAM, LSD), 1.178), "mutual is the max");
    ok (ns_interf_set_defaults (m, 1.1, 1.05, &err) == 0, "set defaults");
    ok (near (ns_interf_slowdown (m, LAM, ABQ), 1.05), "new default slowdown");
    ok (near (ns_interf_speedup (m, 9), 1.1), "new default speedup");
    is_int (ns_interf_set_slowdown (m, LSD, LAM, 0.0, &err), -1, "0 rejected");
    is_int (errno, ERANGE, "ERANGE");
    is_int (ns_interf_set_speedup (m, -1, 1.0, &err), -1, "bad id rejected");
    is_int (ns_interf_nprograms (m), 3, "three programs have figures");
    int two[2] = { LAM, LAM };
    ok (near (ns_interf_node_slowdown (m, LSD, two, 2), 1.178 * 1.178),
        "node slowdown multiplies co-tenants");
    ok (near (ns_interf_node_slowdown (m, LSD, two, 0), 1.0), "alone is 1.0");

    /* Progress rate: LSD striped on nodes 0,1; LAM joins node 1 only. */
    ns_cluster_t *c = ns_cluster_create (4, 24, 2, &err);
    ns_share_t lsd[2] = { { 0, 12 }, { 1, 12 } };
    ns_share_t lam[2] = { { 1, 12 }, { 2, 12 } };
    ns_cluster_add_job (c, 1, LSD, lsd, 2, NS_JOB_STRIPED, &err);
    ok (near (ns_job_rate (c, m, 1), 1.4), "LSD alone striped: 28/20");
    ns_cluster_add_job (c, 2, LAM, lam, 2, 0, &err);
    ok (near (ns_job_rate (c, m, 1), 1.4 / 1.178),
        "LSD slowed by LAM on one of its nodes");
    ok (near (ns_job_rate (c, m, 2), 1.0),
        "LAM: node 1 would speed it up (0.979) but node 2 sets the pace");
    ns_cluster_remove_job (c, 2, &err);
    ok (near (ns_job_rate (c, m, 1), 1.4), "rate restored when LAM leaves");
    ok (near (ns_job_rate (c, m, 99), 0.0), "unknown job rate is 0");

    is_int (ns_interf_set_class (m, 40, LSD, &err), 0, "program 40 class LSD");
    ok (near (ns_interf_slowdown (m, 40, LAM), 1.178), "class row used");
    ok (near (ns_interf_speedup (m, 40), 1.4), "class speedup used");
    is_int (ns_interf_class (m, 41), 41, "unclassed program is itself");
    ns_interf_t *plain = ns_interf_create ();
    ok (ns_interf_neutral (plain, 5), "no figures: neutral");
    ns_interf_set_slowdown (plain, 2, 1, 1.1, NULL);
    ok (!ns_interf_neutral (plain, 1), "slowed by someone: not neutral");
    ok (!ns_interf_neutral (plain, 2), "slowed: not neutral");
    ok (ns_interf_neutral (plain, 0), "other program still neutral");
    ok (ns_interf_neutral (plain, NS_PROGRAM_UNKNOWN), "unknown: neutral");
    ns_interf_set_defaults (plain, 1.0, 1.05, NULL);
    ok (!ns_interf_neutral (plain, 0), "default slowdown 1.05: none neutral");
    ns_interf_destroy (plain);
    ns_interf_t *cp = ns_interf_copy (m);
    ok (near (ns_interf_slowdown (cp, 40, LAM), 1.178), "copy keeps classes");
    ok (near (ns_interf_slowdown (cp, LSD, LAM), 1.178), "copy keeps figures");
    ns_interf_destroy (cp);
    /* A model without programs (every configuration that names none) has
     * no arrays: copying it passed NULL to memcpy (UBSan). */
    ns_interf_t *none = ns_interf_create ();
    ns_interf_set_defaults (none, 1.0, 1.05, NULL);
    cp = ns_interf_copy (none);
    ok (cp && near (ns_interf_slowdown (cp, 3, 4), 1.05)
        && near (ns_interf_speedup (cp, 3), 1.0),
        "copy of a model without programs keeps its defaults");
    ns_interf_destroy (cp);
    ns_interf_destroy (none);
    ns_cluster_destroy (c);
    ns_interf_destroy (m);
    return done_testing ();
}
