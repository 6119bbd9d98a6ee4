/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine.t - golden schedules worked out by hand
 *
 * Unless said otherwise: policy exclusive on nodes of 1 core, so a job of
 * n processors takes n whole nodes, lowest index first.  Times in s.
 */
#include <math.h>
#include <stdio.h>

#include "engine.h"
#include "tap.h"

static ns_sim_t *sim;

static int64_t fallback_after = 0;     /* the policy default */
static ns_overrun_t overrun = NS_OVERRUN_KILL;  /* the default */

static void setup (int nodes, int cores, ns_policy_kind_t kind,
                   ns_backfill_t bf, const ns_interf_t *m)
{
    ns_simconf_t conf = { 0 };
    ns_error_t err;
    ns_policy_default (&conf.policy);
    conf.policy.kind = kind;
    conf.policy.fallback_after = fallback_after;
    conf.backfill = bf;
    conf.overrun = overrun;
    conf.nnodes = nodes;
    conf.cores = cores;
    conf.model = m;
    ns_sim_destroy (sim);
    sim = ns_sim_create (&conf, &err);
    ns_sim_set_checking (sim, 1);
}

/* id, submit, runtime, requested time, processors, program */
static void job (int id, double submit, double run, double req, int n,
                 int program)
{
    /* trace ids differ from indices, as in real traces */
    ns_simjob_t j = { (uint64_t)id + 1000, submit, run, req, n, program, -1,
                      0, 0, 0 };
    ns_error_t err;
    if (ns_sim_add (sim, &j, &err) < 0)
        diag ("add: %s", err.text);
}

static void run (const char *name)
{
    ns_error_t err;
    if (!ok (ns_sim_run (sim, -1, &err) == 0, "%s: runs", name))
        diag ("%s", err.text);
}

static int near (double a, double b)
{
    return fabs (a - b) < 1e-6;
}

static void expect (int i, double start, double end, const char *what)
{
    const ns_simresult_t *r = ns_sim_result (sim, i);
    if (!ok (r->state == NS_SJ_DONE && near (r->start, start)
             && near (r->end, end), "%s", what))
        diag ("state %d start %g end %g, expected %g..%g", r->state, r->start,
              r->end, start, end);
}

/* A schedule worked out by hand: the machine, the policy, the jobs
 * (job (): id, submit, runtime, requested time, processors, program), and
 * where jobs must run (index, start, end). */
struct sched_case {
    const char *name;
    int nodes, cores;
    ns_policy_kind_t kind;
    ns_backfill_t bf;
    ns_overrun_t overrun;
    double jobs[5][6];
    int njobs;
    struct { int i; double start, end; const char *what; } want[3];
    int nwant;
};

#define EXCL NS_POLICY_EXCLUSIVE
#define EASY NS_BACKFILL_EASY
#define NOBF NS_BACKFILL_NONE
#define KILL NS_OVERRUN_KILL

static const struct sched_case cases[] = {
    /* FCFS, 2 nodes.  J0 takes both until 10; J1 and J2 wait and start
     * together at 10. */
    { "fcfs", 2, 1, EXCL, NOBF, KILL,
      { { 0, 0, 10, 10, 2, 0 }, { 1, 0, 5, 5, 1, 0 }, { 2, 1, 5, 5, 1, 0 } },
      3, { { 0, 0, 10, "J0 0..10" }, { 1, 10, 15, "J1 waits for J0, 10..15" },
           { 2, 10, 15, "J2 10..15 beside J1" } }, 3 },
    /* A job ending at exactly the instant another is submitted: ends are
     * processed first, so J1 starts at 10 with no wait. */
    { "instant", 1, 1, EXCL, EASY, KILL,
      { { 0, 0, 10, 10, 1, 0 }, { 1, 10, 5, 5, 1, 0 } },
      2, { { 1, 10, 15, "J1 starts at J0's end, 10..15" } }, 1 },
    /* EASY backfill.  2 nodes.  J0 1 node 0..10 (req 10).  J1 (2 nodes) at
     * 1 is blocked: reservation at 10.  J2 (1 node, req 5) at 2 ends by
     * 7 <= 10: backfills 2..7.  J1 10..20. */
    { "easy", 2, 1, EXCL, EASY, KILL,
      { { 0, 0, 10, 10, 1, 0 }, { 1, 1, 10, 10, 2, 0 }, { 2, 2, 5, 5, 1, 0 } },
      3, { { 2, 2, 7, "J2 backfills 2..7" },
           { 1, 10, 20, "J1 keeps its reservation 10..20" } }, 2 },
    /* The same, plain FCFS: J2 waits behind J1 until 20. */
    { "fcfs-no-bf", 2, 1, EXCL, NOBF, KILL,
      { { 0, 0, 10, 10, 1, 0 }, { 1, 1, 10, 10, 2, 0 }, { 2, 2, 5, 5, 1, 0 } },
      3, { { 2, 20, 25, "J2 does not jump the queue, 20..25" } }, 1 },
    /* A backfill that would delay the head must not happen: J2 asks for
     * 20 s (runs 5): 2 + 20 = 22 > 10 and the free node is one of the two
     * J1 needs at 10.  J1 10..20, J2 20..25. */
    { "no-delay", 2, 1, EXCL, EASY, KILL,
      { { 0, 0, 10, 10, 1, 0 }, { 1, 1, 10, 10, 2, 0 },
        { 2, 2, 5, 20, 1, 0 } },
      3, { { 1, 10, 20, "head J1 still starts at 10" },
           { 2, 20, 25, "J2 not backfilled" } }, 2 },
    /* Backfill beside the reservation: 3 nodes.  J0 nodes 0,1 0..10.  J1
     * (2 nodes) blocked, reserved on nodes 0,1 at 10.  J2 (1 node, 100 s)
     * lands on node 2, outside the reservation: starts at 2. */
    { "beside", 3, 1, EXCL, EASY, KILL,
      { { 0, 0, 10, 10, 2, 0 }, { 1, 1, 10, 10, 2, 0 },
        { 2, 2, 100, 100, 1, 0 } },
      3, { { 2, 2, 102, "long J2 backfills on node 2" },
           { 1, 10, 20, "J1 on time at 10" } }, 2 },
    /* Zero runtime: J0 starts and ends at 0; J1 (same node) then starts at
     * 0 too. */
    { "zero", 1, 1, EXCL, EASY, KILL,
      { { 0, 0, 0, 10, 1, 0 }, { 1, 0, 5, 10, 1, 0 } },
      2, { { 0, 0, 0, "J0 0..0" }, { 1, 0, 5, "J1 0..5" } }, 2 },
    /* Missing requested time: the estimate is the runtime (5), so J2
     * backfills as in "easy". */
    { "no-req", 2, 1, EXCL, EASY, KILL,
      { { 0, 0, 10, 10, 1, 0 }, { 1, 1, 10, 10, 2, 0 },
        { 2, 2, 5, -1, 1, 0 } },
      3, { { 2, 2, 7, "J2 backfills on its runtime estimate" } }, 1 },
    /* Estimates are pessimistic: J0 asks 100 s but runs 10.  J1's
     * reservation is at 100; J2 (req 50, ends by 52 <= 100) backfills
     * 2..7; J0 really ends at 10 and J1 starts then, 10..20. */
    { "pessimistic", 2, 1, EXCL, EASY, KILL,
      { { 0, 0, 10, 100, 1, 0 }, { 1, 1, 10, 10, 2, 0 },
        { 2, 2, 5, 50, 1, 0 } },
      3, { { 2, 2, 7, "J2 backfills 2..7 (52 <= 100)" },
           { 1, 10, 20, "J1 starts when J0 really ends" } }, 2 },
    /* Kill frees the node for the queue: J0 asks 50 s and would run 100;
     * J1 starts at 50 (kill) or 100 (run). */
    { "kill-frees", 1, 1, EXCL, EASY, KILL,
      { { 0, 0, 100, 50, 1, 0 }, { 1, 0, 10, 10, 1, 0 } },
      2, { { 0, 0, 50, "J0 killed at 50" }, { 1, 50, 60, "J1 starts at 50" } },
      2 },
    { "run-on", 1, 1, EXCL, EASY, NS_OVERRUN_RUN,
      { { 0, 0, 100, 50, 1, 0 }, { 1, 0, 10, 10, 1, 0 } },
      2, { { 0, 0, 100, "J0 runs its 100 s" },
           { 1, 100, 110, "J1 waits for it" } },
      2 },
    /* Steering (KTH job 152): 4 nodes.  J0 holds nodes 0,1 until 100; head
     * J1 needs 3 and reserves nodes 0,1 (busy now) and 2.  Long J2 (1 node,
     * 500 s) does not end by 100: the lowest free node 2 is reserved, but
     * node 3 is free outside the reservation, so it starts there at once. */
    { "steer", 4, 1, EXCL, EASY, KILL,
      { { 0, 0, 100, 100, 2, 0 }, { 1, 1, 50, 50, 3, 0 },
        { 2, 1, 500, 500, 1, 0 } },
      3, { { 1, 100, 150, "head J1 on time at 100" },
           { 2, 1, 501, "long J2 backfills on node 3 at once" } }, 2 },
    /* The reservation takes the nodes busy now first: 5 nodes.  J0 (node
     * 0) ends at 10; J1 holds nodes 1-3 until 100.  At 20 head J2 needs 3:
     * J1's nodes at 100.  Textbook EASY: extra = 2 + 3 - 3 = 2, so both
     * long one-node jobs J3 and J4 start now, on the free nodes 0 and 4.
     * Reserving the lowest nodes 0-2 would have left only node 4. */
    { "extra", 5, 1, EXCL, EASY, KILL,
      { { 0, 0, 10, 10, 1, 0 }, { 1, 0, 100, 100, 3, 0 },
        { 2, 20, 50, 50, 3, 0 }, { 3, 20, 1000, 1000, 1, 0 },
        { 4, 20, 1000, 1000, 1, 0 } },
      5, { { 2, 100, 150, "head J2 on time at 100" },
           { 3, 20, 1020, "J3 starts at 20" },
           { 4, 20, 1020, "J4 starts at 20 too" } }, 3 },
};

static void run_case (const struct sched_case *c)
{
    overrun = c->overrun;
    setup (c->nodes, c->cores, c->kind, c->bf, NULL);
    overrun = NS_OVERRUN_KILL;
    for (int k = 0; k < c->njobs; k++) {
        const double *j = c->jobs[k];
        job ((int)j[0], j[1], j[2], j[3], (int)j[4], (int)j[5]);
    }
    run (c->name);
    for (int k = 0; k < c->nwant; k++) {
        char what[160];
        snprintf (what, sizeof (what), "%s: %s", c->name, c->want[k].what);
        expect (c->want[k].i, c->want[k].start, c->want[k].end, what);
    }
}

int main (void)
{
    plan_no_plan ();

    /* Schedules worked out by hand (the table above) */
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
        run_case (&cases[i]);

    /* 7. A job larger than the machine is dropped, not blocking: */
    setup (2, 1, NS_POLICY_EXCLUSIVE, NS_BACKFILL_NONE, NULL);
    job (0, 0, 10, 10, 3, 0);
    job (1, 0, 5, 5, 1, 0);
    run ("too-big");
    is_int (ns_sim_result (sim, 0)->state, NS_SJ_NEVER,
            "too-big: 3 nodes on a 2-node machine never runs");
    expect (1, 0, 5, "too-big: J1 is not held up by it");

    /* 11. Interference.  2 nodes x 24 cores, twins, LAM (1) and LSD (2).
     *     LAM 24 tasks 100 s striped 12+12: rate 109/95.  LSD joins both
     *     nodes at 0: LAM rate (109/95)/0.979, LSD rate 1.4/1.178.  LAM
     *     ends at 100/((109/95)/0.979); LSD then runs alone at 1.4. */
    ns_interf_t *m = ns_interf_create ();
    ns_interf_set_speedup (m, 1, 109.0 / 95.0, NULL);
    ns_interf_set_speedup (m, 2, 28.0 / 20.0, NULL);
    ns_interf_set_slowdown (m, 1, 2, 0.979, NULL);
    ns_interf_set_slowdown (m, 2, 1, 1.178, NULL);
    setup (2, 24, NS_POLICY_TWINS, NS_BACKFILL_EASY, m);
    job (0, 0, 100, 1000, 24, 1);
    job (1, 0, 200, 1000, 24, 2);
    run ("rates");
    double lam_end = 100.0 / ((109.0 / 95.0) / 0.979);
    double lsd_done = lam_end * (1.4 / 1.178);
    double lsd_end = lam_end + (200.0 - lsd_done) / 1.4;
    expect (0, 0, lam_end, "rates: LAM sped up by LSD (slowdown 0.979)");
    expect (1, 0, lsd_end, "rates: LSD slowed while LAM runs, then 1.4");
    ok (ns_sim_result (sim, 0)->shared && ns_sim_result (sim, 1)->shared,
        "rates: both ran shared");

    /* 12. Twins, strict (fallback_after -1): a second LAM waits for the
     *     first instead of pairing. */
    fallback_after = -1;
    setup (2, 24, NS_POLICY_TWINS, NS_BACKFILL_EASY, m);
    fallback_after = 0;
    job (0, 0, 100, 1000, 24, 1);
    job (1, 0, 100, 1000, 24, 1);
    run ("twins");
    double end0 = 100.0 / (109.0 / 95.0);
    expect (1, end0, 2 * end0, "twins: second LAM starts when the first ends");
    is_int (ns_sim_stats (sim)->twin_pairs, 0, "twins: no twin pairing");

    /* 12b. Twins as a preference (the default, fallback_after 0): the
     *      second LAM is packed into the free halves at once, beside its
     *      twin (slowdown 1.024 on each node, not striped). */
    setup (2, 24, NS_POLICY_TWINS, NS_BACKFILL_EASY, m);
    ns_interf_set_slowdown (m, 1, 1, 1.024, NULL);
    job (0, 0, 100, 1000, 24, 1);
    job (1, 0, 100, 1000, 24, 1);
    run ("twins-preference");
    /* J1 packed 12+12 onto the halves: both slowed by 1.024 while both
     * run; J0 (striped) ends first, then J1 runs alone at rate 1. */
    double r0 = (109.0 / 95.0) / 1.024;
    double e0 = 100.0 / r0;
    double e1 = e0 + (100.0 - e0 / 1.024) / 1.0;
    expect (0, 0, e0, "twins-preference: J0 striped, slowed by its twin");
    expect (1, 0, e1, "twins-preference: J1 starts at once, packed");
    ok (!ns_sim_result (sim, 1)->striped, "twins-preference: J1 not striped");
    ns_interf_set_slowdown (m, 1, 1, 1.0, NULL);

    /* 13. Over the requested time: LSD slowed past its 100 s request.
     *     --overrun run: it runs on. */
    overrun = NS_OVERRUN_RUN;
    setup (2, 24, NS_POLICY_MIXED, NS_BACKFILL_EASY, m);
    job (0, 0, 1000, 2000, 24, 1);
    job (1, 0, 140, 100, 24, 2);   /* alone 140/1.4 = 100; slowed: more */
    run ("over");
    ok (ns_sim_result (sim, 1)->over_limit, "over: LSD ran past its request");
    ok (!ns_sim_result (sim, 0)->over_limit, "over: LAM within its request");
    ok (!ns_sim_result (sim, 1)->killed, "over: run, not killed");
    is_int (ns_sim_stats (sim)->killed, 0, "over: nobody killed");
    ok (ns_sim_stats (sim)->invariant_checks > 0, "invariants were checked");
    overrun = NS_OVERRUN_KILL;

    /* 13b. The same under kill (the default): LSD is killed at 100 s of
     *      wall clock, though slowed it has work left. */
    setup (2, 24, NS_POLICY_MIXED, NS_BACKFILL_EASY, m);
    job (0, 0, 1000, 2000, 24, 1);
    job (1, 0, 140, 100, 24, 2);
    run ("kill");
    expect (1, 0, 100, "kill: LSD ends at its limit, 0..100");
    ok (ns_sim_result (sim, 1)->killed, "kill: LSD killed");
    ok (!ns_sim_result (sim, 1)->over_limit, "kill: not over its limit");
    ok (!ns_sim_result (sim, 0)->killed, "kill: LAM ends its work");
    is_int (ns_sim_stats (sim)->killed, 1, "kill: one job killed");

    /* 13c. A job whose work ends exactly at its limit is not killed
     *      (kill-frees above: J1, 10 of 10). */
    setup (1, 1, NS_POLICY_EXCLUSIVE, NS_BACKFILL_EASY, NULL);
    job (0, 0, 100, 50, 1, 0);
    job (1, 0, 10, 10, 1, 0);
    run ("kill-frees");
    ok (!ns_sim_result (sim, 1)->killed, "kill-frees: J1 ends on its own");

    /* 16. Utilisation: exclusive holds the whole 4-core node for a 1-task
     *     job; the task uses one core. */
    setup (1, 4, NS_POLICY_EXCLUSIVE, NS_BACKFILL_EASY, NULL);
    job (0, 0, 100, 100, 1, 0);
    run ("held");
    ok (near (ns_sim_stats (sim)->busy_core_seconds, 100),
        "held: 100 core-s used (%g)", ns_sim_stats (sim)->busy_core_seconds);
    ok (near (ns_sim_stats (sim)->held_core_seconds, 400),
        "held: 400 core-s held (%g)", ns_sim_stats (sim)->held_core_seconds);
    setup (1, 4, NS_POLICY_PACK, NS_BACKFILL_EASY, NULL);
    job (0, 0, 100, 100, 1, 0);
    run ("held-pack");
    ok (near (ns_sim_stats (sim)->held_core_seconds, 100),
        "held: pack holds what it allocates (%g)",
        ns_sim_stats (sim)->held_core_seconds);

    ns_interf_destroy (m);
    ns_sim_destroy (sim);
    return done_testing ();
}
