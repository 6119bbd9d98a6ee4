/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backfill.t - sim/backfill.c: what a pass starts behind a head that
 * cannot start, case by case (table-driven): a job ending by the shadow
 * time starts anywhere; a longer one only off the reserved nodes (steered
 * there) or not at all; a job refused the reserved nodes is looked at
 * again once a start has moved the reservation; a depth limits the jobs
 * looked at.  Then the state a pass leaves (engine_int.h): the head's
 * shadow time and where the pass stopped.
 *
 * Policy exclusive on nodes of 1 core: a job of n processors takes n
 * whole nodes.  Times in s.
 */
#include <math.h>
#include <stdio.h>

#include "engine_int.h"
#include "tap.h"

struct tjob {
    double submit, run, req;
    int n;
    double start;       /* expected */
};

struct tcase {
    const char *name;
    int nodes;
    int depth;          /* bf_depth (0: the whole queue) */
    struct tjob jobs[6];
    int njobs;
};

static const struct tcase cases[] = {
    { "before: a short job starts on the head's nodes", 4, 0,
      { { 0, 100, 100, 3, 0 },      /* J0 holds 3 of 4 nodes to 100 */
        { 1, 50, 50, 4, 100 },      /* head: all 4 at 100 */
        { 2, 50, 50, 1, 2 },        /* ends at 52, by the shadow time */
        { 3, 500, 500, 1, 150 } },  /* would delay the head: waits */
      4 },
    { "beside: a long job is steered off the reservation", 4, 0,
      { { 0, 100, 100, 2, 0 },      /* J0 on nodes 0-1 to 100 */
        { 1, 50, 50, 3, 100 },      /* head: 0, 1 and one free node */
        { 2, 500, 500, 1, 2 } },    /* on the other free node, now */
      3 },
    { "refused: no room outside, the head first", 4, 0,
      { { 0, 100, 100, 2, 0 },
        { 1, 50, 50, 3, 100 },
        { 2, 500, 500, 2, 150 } },  /* 2 nodes: would take a reserved one */
      3 },
    { "depth 1: the job behind the refused one is not looked at", 4, 1,
      { { 0, 100, 100, 3, 0 },
        { 1, 50, 50, 4, 100 },
        { 2, 500, 500, 1, 150 },    /* looked at, refused */
        { 3, 10, 10, 1, 150 } },    /* not looked at before 100 */
      4 },
    { "whole queue: the short job behind the refused one starts", 4, 0,
      { { 0, 100, 100, 3, 0 },
        { 1, 50, 50, 4, 100 },
        { 2, 500, 500, 1, 150 },
        { 3, 10, 10, 1, 3 } },
      4 },
    { "never: a job larger than the machine is dropped, not waited for", 2, 0,
      { { 0, 100, 100, 2, 0 },
        { 1, 10, 10, 1, 100 },      /* head */
        { 2, 10, 10, 3, -1 },       /* dropped */
        { 3, 10, 10, 1, 100 } },
      4 },
};

static ns_sim_t *setup (int nodes, int depth)
{
    ns_simconf_t conf = { 0 };
    ns_error_t err;
    ns_policy_default (&conf.policy);
    conf.policy.kind = NS_POLICY_EXCLUSIVE;
    conf.backfill = NS_BACKFILL_EASY;
    conf.bf_depth = depth;
    conf.nnodes = nodes;
    conf.cores = 1;
    ns_sim_t *s = ns_sim_create (&conf, &err);
    if (s)
        ns_sim_set_checking (s, 1);
    return s;
}

static void add (ns_sim_t *s, int i, const struct tjob *t)
{
    ns_simjob_t j = { (uint64_t)i + 1000, t->submit, t->run, t->req, t->n,
                      0, -1, 0, 0, 0 };
    ns_error_t err;
    if (ns_sim_add (s, &j, &err) < 0)
        diag ("add: %s", err.text);
}

static void run_case (const struct tcase *c)
{
    ns_sim_t *s = setup (c->nodes, c->depth);
    ns_error_t err;
    for (int i = 0; i < c->njobs; i++)
        add (s, i, &c->jobs[i]);
    int rc = ns_sim_run (s, -1, &err), bad = 0;
    for (int i = 0; i < c->njobs; i++) {
        const ns_simresult_t *r = ns_sim_result (s, i);
        double want = c->jobs[i].start;
        int good = want < 0 ? r->state == NS_SJ_NEVER
                            : r->state == NS_SJ_DONE
                                  && fabs (r->start - want) < 1e-6;
        if (!good) {
            diag ("%s: J%d state %d start %g, expected %g", c->name, i,
                  r->state, r->start, want);
            bad++;
        }
    }
    ok (rc == 0 && bad == 0, "%s", c->name);
    ns_sim_destroy (s);
}

/* The state a pass leaves: the head's reservation and where it stopped. */
static void state (void)
{
    const struct tcase *c = &cases[0];
    ns_sim_t *s = setup (c->nodes, 0);
    ns_error_t err;
    for (int i = 0; i < c->njobs; i++)
        add (s, i, &c->jobs[i]);
    ok (ns_sim_run (s, 3, &err) == 0, "state: runs to 3");
    is_int (s->hr.resv_head, -1,
            "J2 ended by the least shadow time possible (100): no "
            "reservation was made");
    is_int (s->bf.head, 1,
            "the pass at 3 started nothing: the next resumes behind J1");
    is_int (s->bf.pos, 2, "no room at 3: the scan stopped at once (2)");
    ok (ns_sim_run (s, 60, &err) == 0, "runs to 60");
    ok (s->hr.resv_head == 1 && s->hr.shadow == 100,
        "J3 at 52 needed the reservation: J1's, at J0's estimated end 100");
    ok (s->hr.outside[3] == 0 && s->hr.hmark[3] == s->hr.mark_id,
        "node 3 (J2's, free at 52) is in it");
    is_int (s->bf.head, 1, "J3 refused (it would end at 552): nothing "
            "started, the next pass resumes");
    is_int (s->bf.pos, 4, "past J3 (position 3)");
    ns_sim_destroy (s);
}

int main (void)
{
    plan_no_plan ();
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
        run_case (&cases[i]);
    state ();
    return done_testing ();
}
