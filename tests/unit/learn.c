/* SPDX-License-Identifier: GPL-2.0-or-later */
/* learn.c - the interference-model learner (model/learn.c): exposures
 * reconstructed from hand-made histories, and the closed loop: histories
 * simulated by the engine with a known matrix of 4 programs (speedups and
 * slowdowns above and below 1) give that matrix back within 0.03.
 * Identification: a history never striped alone learns neither factor of
 * spread_speedup / slowdown, and says which run would; an exact fit with
 * no residual learns nothing; and a property over random matrices and
 * random histories (kinds of runs per program, co-tenants for whole or
 * partial runs, noise): no figure the history does not identify is ever
 * learned, every learned one is within 4 standard errors of the truth. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "learn.h"
#include "progtab.h"
#include "tap.h"

static int near (double got, double want, double tol)
{
    return fabs (got - want) <= tol;
}

/* ---- hand-made histories ---- */

static void test_hand (void)
{
    ns_error_t err;
    ns_learn_t *l = ns_learn_create (24, &err);
    ok (l != NULL, "create");
    /* A (0): 5 runs of 100 s on a full node, 5 of 80 s striped alone
     * (speedup 1.25), 5 striped beside B (1) holding half of both nodes
     * for the whole run, 88 s (slowdown 1.1). */
    static int full_nodes[1] = { 0 }, full_cores[1] = { 24 };
    static int pair_nodes[2] = { 2, 3 }, half[2] = { 12, 12 };
    ns_learn_job_t jobs[40];
    int n = 0;
    double t = 0;
    for (int i = 0; i < 5; i++, t += 1000) {
        jobs[n++] = (ns_learn_job_t){ 0, t, t + 100, 1, full_nodes,
                                      full_cores, 0 };
        jobs[n++] = (ns_learn_job_t){ 0, t + 200, t + 280, 2, pair_nodes,
                                      half, 0 };
        jobs[n++] = (ns_learn_job_t){ 0, t + 400, t + 488, 2, pair_nodes,
                                      half, 0 };
        /* B covers A's third run (and a little more), unknown figures */
        jobs[n++] = (ns_learn_job_t){ 1, t + 390, t + 500, 2, pair_nodes,
                                      half, 0 };
    }
    ok (ns_learn_add_history (l, jobs, n, &err) == 0, "add a history");
    is_int (ns_learn_njobs (l, 0), 15, "15 observations of A");
    ok (ns_learn_fit (l, NULL, &err) == 0, "fit");
    ns_learn_fig_t u = ns_learn_speedup (l, 0);
    ok (u.learned && near (u.value, 1.25, 1e-6),
        "A's speedup 1.25 (got %.6f, learned %d)", u.value, u.learned);
    ns_learn_fig_t s = ns_learn_slowdown (l, 0, 1);
    ok (s.learned && near (s.value, 1.1, 1e-6) && s.n == 5,
        "A beside B: slowdown 1.1 from 5 jobs (got %.6f, n %d)", s.value,
        s.n);
    ns_learn_fig_t b = ns_learn_base (l, 0);
    ok (near (b.value, 100, 1e-4), "A's base runtime 100 s (got %.4f)",
        b.value);
    /* B: 5 runs, never alone: nothing to learn but its base. */
    ns_learn_fig_t ub = ns_learn_speedup (l, 1);
    ok (!ub.learned && ub.value == 1.0,
        "B's speedup not learned (no run on full nodes), stays 1.0");
    ns_learn_fig_t sba = ns_learn_slowdown (l, 1, 0);
    ok (!sba.learned && sba.value == 1.0 && isnan (sba.se),
        "B beside A not learned: B's runs cannot separate it from B's base");
    /* Too few observations: min_observations 6 leaves A's figures out. */
    ns_learn_opts_t o;
    ns_learn_opts_default (&o);
    o.min_observations = 6;
    ok (ns_learn_fit (l, &o, &err) == 0, "fit with min_observations 6");
    ok (!ns_learn_slowdown (l, 0, 1).learned
        && ns_learn_slowdown (l, 0, 1).n == 5,
        "5 of 6 observations: A beside B left neutral, n reported");

    /* Malformed jobs: one precise error, nothing kept. */
    int before = ns_learn_njobs (l, 0);
    ns_learn_job_t bad = { 0, 10, 5, 1, full_nodes, full_cores, 0 };
    ok (ns_learn_add_history (l, &bad, 1, &err) == -1
        && strstr (err.text, "end 5 before start 10") != NULL,
        "end before start: %s", err.text);
    static int dup_nodes[2] = { 4, 4 };
    ns_learn_job_t dup = { 0, 0, 5, 2, dup_nodes, half, 0 };
    ok (ns_learn_add_history (l, &dup, 1, &err) == -1
        && strstr (err.text, "listed twice") != NULL,
        "node listed twice: %s", err.text);
    is_int (ns_learn_njobs (l, 0), before, "nothing kept from bad input");

    /* The state: saved, loaded into another learner, the same fit. */
    ns_progtab_t *progs = ns_progtab_create ();
    ns_progtab_intern (progs, "A", NULL);
    ns_progtab_intern (progs, "B", NULL);
    ok (ns_learn_fit (l, NULL, &err) == 0, "fit again (defaults)");
    json_object *st = ns_learn_save (l, progs);
    ok (st != NULL, "save");
    ns_progtab_t *progs2 = ns_progtab_create ();
    ns_progtab_intern (progs2, "B", NULL);   /* other ids: names count */
    ns_learn_t *l2 = ns_learn_create (24, &err);
    ok (ns_learn_load (l2, st, progs2, &err) == 0, "load: %s", err.text);
    int a2 = ns_progtab_lookup (progs2, "A"), b2 = ns_progtab_lookup (progs2, "B");
    is_int (ns_learn_nobservations (l2), ns_learn_nobservations (l),
            "loaded every observation");
    ok (ns_learn_fit (l2, NULL, &err) == 0
        && near (ns_learn_slowdown (l2, a2, b2).value, 1.1, 1e-6)
        && near (ns_learn_speedup (l2, a2).value, 1.25, 1e-6),
        "the loaded state fits the same figures (A beside B %.4f)",
        ns_learn_slowdown (l2, a2, b2).value);
    /* A broken state: one precise message, nothing added. */
    json_object *broken = json_tokener_parse ("{\"version\": 1, \"node_cores\": 24,"
        " \"observations\": [ { \"program\": \"A\", \"runtime\": 10,"
        " \"striped\": false, \"nodes\": 1, \"segments\": [ [ 10 ] ] },"
        " { \"program\": \"A\", \"runtime\": -3, \"striped\": true,"
        " \"nodes\": 2, \"segments\": [] } ] }");
    int before2 = ns_learn_nobservations (l2);
    ok (ns_learn_load (l2, broken, progs2, &err) == -1
        && strstr (err.text, "observations[1]: expected runtime > 0") != NULL,
        "bad state: %s", err.text);
    is_int (ns_learn_nobservations (l2), before2, "nothing added");
    json_object_put (broken);
    broken = json_tokener_parse ("{\"version\": 2}");
    ok (ns_learn_load (l2, broken, progs2, &err) == -1
        && strcmp (err.text, "version: expected 1") == 0, "%s", err.text);
    json_object_put (broken);
    broken = json_tokener_parse ("{\"version\": 1, \"node_cores\": 48, "
                              "\"observations\": []}");
    ok (ns_learn_load (l2, broken, progs2, &err) == -1
        && strcmp (err.text, "node_cores: expected 24") == 0, "%s",
        err.text);
    json_object_put (broken);
    json_object_put (st);

    /* The journal's form: the newest observation alone, which a learner
     * holding the others adds to give the whole state's fit. */
    {
        int nall = ns_learn_nobservations (l);
        json_object *last = ns_learn_save_from (l, progs, nall - 1);
        json_object *head = ns_learn_save (l, progs), *arr;
        json_object_object_get_ex (last, "observations", &arr);
        is_int ((int)json_object_array_length (arr), 1,
                "save_from (the newest): one observation");
        json_object_object_get_ex (head, "observations", &arr);
        json_object_array_del_idx (arr, (size_t)nall - 1, 1);
        ns_progtab_t *progs3 = ns_progtab_create ();
        ns_learn_t *l3 = ns_learn_create (24, &err);
        ok (ns_learn_load (l3, head, progs3, &err) == 0
            && ns_learn_load (l3, last, progs3, &err) == 0,
            "state without the newest, then the newest");
        int a3 = ns_progtab_lookup (progs3, "A");
        int b3 = ns_progtab_lookup (progs3, "B");
        is_int (ns_learn_nobservations (l3), nall, "every observation back");
        ok (ns_learn_fit (l3, NULL, &err) == 0
            && near (ns_learn_slowdown (l3, a3, b3).value, 1.1, 1e-6),
            "the same fit (A beside B %.4f)",
            ns_learn_slowdown (l3, a3, b3).value);
        json_object *none = ns_learn_save_from (l, progs, nall);
        json_object_object_get_ex (none, "observations", &arr);
        is_int ((int)json_object_array_length (arr), 0,
                "save_from (past the newest): none");
        json_object_put (none);
        json_object_put (last);
        json_object_put (head);
        ns_learn_destroy (l3);
        ns_progtab_destroy (progs3);
    }

    /* Learned figures go where the configuration gives none. */
    ns_interf_t *given = ns_interf_create ();
    ns_interf_set_speedup (given, a2, 1.5, NULL);
    ns_interf_t *m = ns_interf_copy (given);
    is_int (ns_learn_apply (l2, m, given, &err), 1,
            "apply: one figure (A beside B), A's given speedup kept");
    ok (near (ns_interf_speedup (m, a2), 1.5, 1e-12)
        && near (ns_interf_slowdown (m, a2, b2), 1.1, 1e-6),
        "model: speedup 1.5 as configured, slowdown 1.1 as learned");
    ns_interf_destroy (m);
    ns_interf_destroy (given);

    /* One job at a time (the select plugin): its context only. */
    int n0 = ns_learn_nobservations (l2);
    ns_learn_job_t two[2] = {
        { 0, 0, 100, 2, pair_nodes, half, 0 },
        { 1, 0, 50, 2, pair_nodes, half, 0 },
    };
    ok (ns_learn_observe (l2, two, 2, 1, &err) == 0
        && ns_learn_nobservations (l2) == n0 + 1, "observe: one more");
    ok (ns_learn_observe (l2, two, 2, 2, &err) == -1, "target out of range");
    /* The limit drops the oldest. */
    ns_learn_set_max (l2, 10);
    is_int (ns_learn_nobservations (l2), 10, "limit 10: 10 kept");
    for (int i = 0; i < 5; i++)
        ns_learn_observe (l2, two, 2, 0, &err);
    ok (ns_learn_nobservations (l2) <= 10 && ns_learn_nobservations (l2) >= 7,
        "still within the limit after 5 more (%d)",
        ns_learn_nobservations (l2));
    ok (ns_learn_fit (l2, NULL, &err) == 0, "fit after dropping");
    ns_learn_destroy (l2);
    ns_progtab_destroy (progs);
    ns_progtab_destroy (progs2);
    ns_learn_destroy (l);
    ok (ns_learn_create (0, &err) == NULL, "0 cores per node refused");
}

/* The online path (begin/end as the select plugin sees them) gives what
 * the history gives. */
static void test_online (void)
{
    ns_error_t err;
    ns_learn_t *l = ns_learn_create (24, &err);
    static int full_nodes[1] = { 0 }, full_cores[1] = { 24 };
    static int pair_nodes[2] = { 2, 3 }, half[2] = { 12, 12 };
    struct ev_ { double t; int begin; uint64_t id; int prog; int full; } ev[80];
    int ne = 0;
    double t = 0;
    uint64_t id = 1;
    for (int i = 0; i < 5; i++, t += 1000) {
        /* A alone on a full node 100 s, striped alone 80 s, beside B 88 s */
        ev[ne++] = (struct ev_){ t, 1, id, 0, 1 };
        ev[ne++] = (struct ev_){ t + 100, 0, id++, 0, 1 };
        ev[ne++] = (struct ev_){ t + 200, 1, id, 0, 0 };
        ev[ne++] = (struct ev_){ t + 280, 0, id++, 0, 0 };
        ev[ne++] = (struct ev_){ t + 390, 1, id + 1, 1, 0 };
        ev[ne++] = (struct ev_){ t + 400, 1, id, 0, 0 };
        ev[ne++] = (struct ev_){ t + 488, 0, id, 0, 0 };
        ev[ne++] = (struct ev_){ t + 500, 0, id + 1, 1, 0 };
        id += 2;
    }
    int bad = 0, observed = 0;
    for (int i = 0; i < ne; i++) {
        int *nodes = ev[i].full ? full_nodes : pair_nodes;
        int *cores = ev[i].full ? full_cores : half;
        int n = ev[i].full ? 1 : 2;
        if (ev[i].begin)
            bad |= ns_learn_begin (l, ev[i].id, ev[i].prog, ev[i].t, nodes,
                                   cores, n, 1, &err) != 0;
        else {
            int rc = ns_learn_end (l, ev[i].id, ev[i].t, 1, &err);
            bad |= rc < 0;
            observed += rc == 1;
        }
    }
    ok (!bad, "begin/end accepted");
    is_int (observed, 20, "20 jobs ended completed: 20 observations");
    is_int (ns_learn_live (l), 0, "nothing live: no allocation kept");
    ok (ns_learn_fit (l, NULL, &err) == 0
        && near (ns_learn_speedup (l, 0).value, 1.25, 1e-6)
        && near (ns_learn_slowdown (l, 0, 1).value, 1.1, 1e-6),
        "online: A's speedup 1.25 and slowdown beside B 1.1");
    ok (ns_learn_begin (l, 99, 0, 0, pair_nodes, half, 2, 1, &err) == 0
        && ns_learn_begin (l, 99, 0, 0, pair_nodes, half, 2, 1, &err) == -1
        && strstr (err.text, "already recorded"), "a live id twice: %s",
        err.text);
    is_int (ns_learn_end (l, 99, 50, 0, &err), 0, "not completed: no "
            "observation");
    is_int (ns_learn_end (l, 12345, 50, 1, &err), 0, "unknown id: nothing");
    ns_learn_begin (l, 100, 0, 0, pair_nodes, half, 2, 0, &err);
    is_int (ns_learn_end (l, 100, 50, 1, &err), 0,
            "not observable (began before recording): no observation");
    /* A configuration reload renumbers programs: names are kept. */
    ns_progtab_t *from = ns_progtab_create (), *to = ns_progtab_create ();
    ns_progtab_intern (from, "A", NULL);
    ns_progtab_intern (from, "B", NULL);
    ns_progtab_intern (to, "Z", NULL);
    ns_progtab_intern (to, "B", NULL);
    ok (ns_learn_remap (l, from, to, &err) == 0, "remap");
    int a = ns_progtab_lookup (to, "A"), b = ns_progtab_lookup (to, "B");
    ok (a == 2 && b == 1 && ns_learn_fit (l, NULL, &err) == 0
        && near (ns_learn_slowdown (l, a, b).value, 1.1, 1e-6)
        && ns_learn_njobs (l, 0) == 0,
        "after the remap A (now 2) beside B (now 1) is still 1.1");
    ns_progtab_destroy (from);
    ns_progtab_destroy (to);
    ns_learn_destroy (l);
}

/* ---- closed loop through the engine ---- */

#define NP 4
#define NODES 8
#define CORES 24

static const double speed[NP] = { 1.30, 1.10, 0.90, 1.05 };
static const double slow[NP][NP] = {
    { 1.05, 1.12, 0.96, 1.02 },
    { 0.94, 1.08, 1.15, 1.00 },
    { 1.18, 0.97, 1.04, 1.10 },
    { 1.01, 1.06, 0.93, 1.16 },
};
static const double base[NP] = { 3000, 2000, 1500, 2500 };

struct capture {
    int n;
    int *nodes;     /* n x NODES */
    int *cores;
    int *nnodes;
    int *seen;
};

static int capture_pass (ns_sim_t *sim, void *arg, ns_error_t *err)
{
    (void)err;
    struct capture *cp = arg;
    const ns_cluster_t *c = ns_sim_cluster (sim);
    for (int j = 0; j < ns_sim_njobs (sim) && j < cp->n; j++) {
        if (cp->seen[j] || ns_sim_result (sim, j)->state != NS_SJ_RUNNING)
            continue;
        int ns;
        const ns_share_t *sh = ns_job_shares_ref (c, (uint64_t)j, &ns);
        if (!sh)
            continue;
        cp->seen[j] = 1;
        cp->nnodes[j] = ns;
        for (int k = 0; k < ns && k < NODES; k++) {
            cp->nodes[j * NODES + k] = sh[k].node;
            cp->cores[j * NODES + k] = sh[k].cores;
        }
    }
    return 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static double urand (void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* Simulate njobs node-sized jobs under the policy; add the history. */
static int simulate (ns_learn_t *l, const ns_interf_t *m,
                     ns_policy_kind_t kind, int njobs, double noise)
{
    ns_error_t err;
    ns_simconf_t conf = {
        .backfill = NS_BACKFILL_EASY,
        .bf_depth = 100,
        .nnodes = NODES,
        .cores = CORES,
        .model = m,
    };
    ns_policy_default (&conf.policy);
    conf.policy.kind = kind;
    conf.policy.stripe_margin = -1.0;   /* stripe every program */
    conf.policy.fallback_after = -1;
    ns_sim_t *sim = ns_sim_create (&conf, &err);
    if (!sim)
        return -1;
    struct capture cp = { .n = njobs };
    cp.nodes = calloc ((size_t)njobs * NODES, sizeof (int));
    cp.cores = calloc ((size_t)njobs * NODES, sizeof (int));
    cp.nnodes = calloc (njobs, sizeof (int));
    cp.seen = calloc (njobs, sizeof (int));
    double t = 0;
    for (int i = 0; i < njobs; i++) {
        int p = (int)(urand () * NP);
        double w = base[p] * (1.0 + noise * (2.0 * urand () - 1.0));
        ns_simjob_t j = { .id = (uint64_t)i + 1, .submit = t, .runtime = w,
                          .req_time = -1, .ntasks = CORES, .program = p,
                          .recorded_wait = -1 };
        ns_sim_add (sim, &j, &err);
        t += urand () * 400;
    }
    ns_sim_set_pass_hook (sim, capture_pass, &cp);
    int rc = ns_sim_run (sim, -1, &err);
    ns_learn_job_t *jobs = calloc (njobs, sizeof (*jobs));
    int n = 0;
    for (int i = 0; rc == 0 && i < njobs; i++) {
        const ns_simresult_t *r = ns_sim_result (sim, i);
        if (r->state != NS_SJ_DONE || !cp.seen[i])
            continue;
        jobs[n++] = (ns_learn_job_t){ ns_sim_job (sim, i)->program,
                                      r->start, r->end, cp.nnodes[i],
                                      &cp.nodes[i * NODES],
                                      &cp.cores[i * NODES], 0 };
    }
    if (rc == 0)
        rc = ns_learn_add_history (l, jobs, n, &err);
    free (jobs);
    free (cp.nodes);
    free (cp.cores);
    free (cp.nnodes);
    free (cp.seen);
    ns_sim_destroy (sim);
    return rc;
}

static void test_closed_loop (double noise, double tol)
{
    ns_error_t err;
    ns_interf_t *m = ns_interf_create ();
    for (int p = 0; p < NP; p++) {
        ns_interf_set_speedup (m, p, speed[p], NULL);
        for (int q = 0; q < NP; q++)
            ns_interf_set_slowdown (m, p, q, slow[p][q], NULL);
    }
    ns_learn_t *l = ns_learn_create (CORES, &err);
    ok (simulate (l, m, NS_POLICY_EXCLUSIVE, 200, noise) == 0
        && simulate (l, m, NS_POLICY_SPREAD, 200, noise) == 0
        && simulate (l, m, NS_POLICY_MIXED, 1500, noise) == 0,
        "noise %.0f%%: histories under exclusive, spread and mixed",
        noise * 100);
    ok (ns_learn_fit (l, NULL, &err) == 0, "fit");
    double worst = 0;
    int learned = 0, figures = 0;
    for (int p = 0; p < NP; p++) {
        ns_learn_fig_t u = ns_learn_speedup (l, p);
        figures++;
        learned += u.learned;
        if (fabs (u.value - speed[p]) > worst)
            worst = fabs (u.value - speed[p]);
        if (!u.learned || !near (u.value, speed[p], tol))
            diag ("speedup of %d: %.4f, want %.2f (learned %d, n %d)", p,
                  u.value, speed[p], u.learned, u.n);
        for (int q = 0; q < NP; q++) {
            ns_learn_fig_t s = ns_learn_slowdown (l, p, q);
            figures++;
            learned += s.learned;
            if (fabs (s.value - slow[p][q]) > worst)
                worst = fabs (s.value - slow[p][q]);
            if (!s.learned || !near (s.value, slow[p][q], tol))
                diag ("slowdown %d beside %d: %.4f +- %.4f, want %.2f "
                      "(learned %d, n %d)", p, q, s.value, s.se,
                      slow[p][q], s.learned, s.n);
        }
    }
    is_int (learned, figures, "noise %.0f%%: all %d figures learned",
            noise * 100, figures);
    ok (worst <= tol, "noise %.0f%%: every figure within %.3f (worst %.4f)",
        noise * 100, tol, worst);
    ns_learn_destroy (l);
    ns_interf_destroy (m);
}

/* ---- identification: what the design of the history determines ---- */

/* The learner's programs are LAM (0) and ABQ (1) here. */
static ns_progtab_t *two_progs (void)
{
    ns_progtab_t *pt = ns_progtab_create ();
    ns_progtab_intern (pt, "LAM", NULL);
    ns_progtab_intern (pt, "ABQ", NULL);
    return pt;
}

/* The history of the issue: LAM alone on full nodes, and striped beside
 * ABQ (which holds the other half of both nodes for the whole run), never
 * striped alone.  Only u / s is identified: neither figure is learned,
 * whatever the counts and the (zero) residuals say. */
static void test_products_only (void)
{
    ns_error_t err;
    ns_learn_t *l = ns_learn_create (24, &err);
    ns_progtab_t *pt = two_progs ();
    static int full_nodes[1] = { 0 }, full_cores[1] = { 24 };
    static int pair[2] = { 2, 3 }, half[2] = { 12, 12 };
    static int pair2[2] = { 4, 5 };
    ns_learn_job_t jobs[64];
    int n = 0;
    double t = 0, u = 1.25, s = 1.1;
    for (int i = 0; i < 8; i++, t += 1000) {
        jobs[n++] = (ns_learn_job_t){ 0, t, t + 100, 1, full_nodes,
                                      full_cores, 0 };
        /* ABQ's job failed: a co-tenant covering LAM's whole run */
        jobs[n++] = (ns_learn_job_t){ 1, t + 190, t + 400, 2, pair, half,
                                      1 };
        jobs[n++] = (ns_learn_job_t){ 0, t + 200, t + 200 + 100 * s / u, 2,
                                      pair, half, 0 };
    }
    ok (ns_learn_add_history (l, jobs, n, &err) == 0
        && ns_learn_fit (l, NULL, &err) == 0, "full nodes and striped "
        "beside ABQ: fitted");
    ns_learn_fig_t fu = ns_learn_speedup (l, 0);
    ns_learn_fig_t fs = ns_learn_slowdown (l, 0, 1);
    ok (!fu.learned && !fu.identified && fu.why == NS_LEARN_UNIDENTIFIED
        && fu.n == 8, "spread_speedup(LAM) not identified, not learned "
        "(n %d, why %d)", fu.n, fu.why);
    ok (!fs.learned && !fs.identified && fs.why == NS_LEARN_UNIDENTIFIED
        && fs.value == 1.0 && isnan (fs.se),
        "slowdown(LAM beside ABQ) not identified: neutral, no se");
    char why[256], need[256];
    ok (ns_learn_explain (l, 0, NS_LEARN_SPEEDUP, pt, why, sizeof (why),
                          need, sizeof (need)) == 0
        && strcmp (why, "only spread_speedup(LAM)/slowdown(LAM beside ABQ) "
                   "observed; never striped alone") == 0
        && strcmp (need, "run LAM striped over two otherwise empty nodes")
           == 0, "explained: %s; needs: %s", why, need);
    ok (ns_learn_explain (l, 0, 1, pt, why, sizeof (why), need,
                          sizeof (need)) == 0
        && strstr (why, "only spread_speedup(LAM)/slowdown(LAM beside ABQ)")
        && strcmp (need, "run LAM striped over two otherwise empty nodes")
           == 0, "the slowdown too: %s; needs: %s", why, need);
    is_int (ns_learn_explain (l, 0, NS_LEARN_SPEEDUP - 1, pt, why,
                              sizeof (why), need, sizeof (need)), -1,
            "explain: a figure index out of range");
    ns_learn_fig_t fb = ns_learn_base (l, 0);
    ok (fb.learned && near (fb.value, 100, 1e-6), "LAM's base runtime is "
        "identified (full nodes): %.3f", fb.value);
    /* Five runs striped alone make both identified, and right. */
    n = 0;
    for (int i = 0; i < 5; i++, t += 1000)
        jobs[n++] = (ns_learn_job_t){ 0, t, t + 100 / u, 2, pair2, half, 0 };
    ok (ns_learn_add_history (l, jobs, n, &err) == 0
        && ns_learn_fit (l, NULL, &err) == 0, "five runs striped alone added");
    fu = ns_learn_speedup (l, 0);
    fs = ns_learn_slowdown (l, 0, 1);
    ok (fu.learned && fu.identified && near (fu.value, u, 1e-6)
        && fs.learned && near (fs.value, s, 1e-6),
        "now identified: spread_speedup %.4f (1.25), beside ABQ %.4f (1.1)",
        fu.value, fs.value);
    ok (fu.se > 0 && fs.se > 0 && fu.se < 0.01,
        "an exact fit still has an error from the 1 s resolution of the "
        "times (se %.2g, %.2g), not 0", fu.se, fs.se);
    is_int (ns_learn_explain (l, 0, NS_LEARN_SPEEDUP, pt, why, sizeof (why),
                              need, sizeof (need)), -1,
            "explain: nothing to explain for an identified figure");
    ns_learn_destroy (l);

    /* Exactly determined: one run on a full node, one striped alone, one
     * observation needed: two runs, two parameters, no residual. */
    l = ns_learn_create (24, &err);
    ns_learn_job_t two[2] = {
        { 0, 0, 100, 1, full_nodes, full_cores, 0 },
        { 0, 200, 280, 2, pair, half, 0 },
    };
    ns_learn_opts_t o;
    ns_learn_opts_default (&o);
    o.min_observations = 1;
    ok (ns_learn_add_history (l, two, 2, &err) == 0
        && ns_learn_fit (l, &o, &err) == 0, "two runs, min_observations 1");
    fu = ns_learn_speedup (l, 0);
    ok (!fu.learned && fu.identified && fu.why == NS_LEARN_NO_RESIDUAL,
        "identified but fitted exactly: not learned (why %d, %s)", fu.why,
        ns_learn_why_name (fu.why));
    /* A third run gives a residual degree of freedom. */
    ns_learn_job_t third = { 0, 400, 500, 1, full_nodes, full_cores, 0 };
    ok (ns_learn_add_history (l, &third, 1, &err) == 0
        && ns_learn_fit (l, &o, &err) == 0
        && ns_learn_speedup (l, 0).learned
        && near (ns_learn_speedup (l, 0).value, 1.25, 1e-6)
        && ns_learn_speedup (l, 0).se > 0,
        "a third run: learned, 1.25, se %.2g > 0", ns_learn_speedup (l, 0).se);
    ns_learn_destroy (l);
    ns_progtab_destroy (pt);
}

/* ---- property: random matrices, random histories ---- */

/* A fixed-seed generator of our own (splitmix64), not rand (). */
static uint64_t prng = 0x243f6a8885a308d3ULL;
static double prand (void)
{
    uint64_t z = (prng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

#define PMAX 4
#define RCORES 24

/* Run kinds: on full nodes; striped alone; striped beside q on both
 * nodes; on one node beside q (half each); striped beside q and r (a
 * quarter of both nodes each). */
enum { K_FULL, K_ALONE, K_STRIPED_Q, K_PACKED_Q, K_STRIPED_QR, K_NKINDS };

struct hist {
    ns_learn_job_t *jobs;
    int n, cap;
    int *pool;          /* nodes and cores of every job */
    int npool, cappool;
    int nextnode;
    /* the oracle's design: per program, rows over (base, speed, q...) */
    double *rows[PMAX];
    int nrows[PMAX];
};

static int *pool_take (struct hist *h, int n)
{
    /* the pool is allocated once large enough (no realloc: jobs point
     * into it) */
    if (h->npool + n > h->cappool)
        return NULL;
    int *p = h->pool + h->npool;
    h->npool += n;
    return p;
}

static void add_job (struct hist *h, int prog, double start, double end,
                     const int *nodes, const int *cores, int nn, int ctx)
{
    int *pn = pool_take (h, 2 * nn);
    if (!pn || h->n >= h->cap)
        return;
    memcpy (pn, nodes, sizeof (int) * nn);
    memcpy (pn + nn, cores, sizeof (int) * nn);
    h->jobs[h->n++] = (ns_learn_job_t){ prog, start, end, nn, pn, pn + nn,
                                        ctx };
}

/* Work W at rate r0 outside [a, b) (times from the start) and r1 inside:
 * the run time. */
static double runtime_of (double W, double r0, double r1, double a, double b)
{
    if (W <= a * r0)
        return W / r0;
    double w = W - a * r0;
    if (w <= (b - a) * r1)
        return a + w / r1;
    return b + (w - (b - a) * r1) / r0;
}

/* One observed job of p of the given kind beside q (and r), its own
 * nodes; co-tenants are context only (their own runs are not observed),
 * present from a to b after its start (b < 0: the whole run). */
static void gen_job (struct hist *h, int p, int kind, int q, int r,
                     double W, double u, double sq, double sr, int partial,
                     double *t)
{
    int nodes[2] = { h->nextnode, h->nextnode + 1 };
    int full[2] = { RCORES, RCORES }, halfc[2] = { RCORES / 2, RCORES / 2 };
    int quarter[2] = { RCORES / 4, RCORES / 4 };
    h->nextnode += 2;
    double start = *t, a = 0, b = 1e18, rt;
    double r0 = kind == K_FULL || kind == K_PACKED_Q ? 1.0 : u, r1 = r0;
    if (kind == K_STRIPED_Q || kind == K_PACKED_Q)
        r1 = r0 / sq;
    else if (kind == K_STRIPED_QR)
        r1 = r0 / ((1 + (sq - 1) * 0.5) * (1 + (sr - 1) * 0.5));
    if (partial && kind >= K_STRIPED_Q) {
        a = prand () * 0.4 * W;
        b = a + (0.2 + prand () * 0.6) * W;
    }
    rt = runtime_of (W, r0, r1, a, b);
    /* the times as sacct gives them: whole seconds */
    double s0 = floor (start), e0 = floor (start + rt + 0.5);
    if (e0 <= s0)
        e0 = s0 + 1;
    double ca = partial ? floor (start + a + 0.5) : s0 - 5;
    double cb = partial ? floor (start + (b < rt ? b : rt + 50) + 0.5)
                        : e0 + 5;
    switch (kind) {
    case K_FULL:
        add_job (h, p, s0, e0, nodes, full, 1, 0);
        break;
    case K_ALONE:
        add_job (h, p, s0, e0, nodes, halfc, 2, 0);
        break;
    case K_STRIPED_Q:
        add_job (h, p, s0, e0, nodes, halfc, 2, 0);
        add_job (h, q, ca, cb, nodes, halfc, 2, 1);
        break;
    case K_PACKED_Q:
        add_job (h, p, s0, e0, nodes, halfc, 1, 0);
        add_job (h, q, ca, cb, nodes, halfc, 1, 1);
        break;
    case K_STRIPED_QR:
        add_job (h, p, s0, e0, nodes, halfc, 2, 0);
        add_job (h, q, ca, cb, nodes, quarter, 2, 1);
        add_job (h, r, ca, cb, nodes, quarter, 2, 1);
        break;
    }
    /* the oracle's row, from what was generated */
    double frac = 1.0;
    if (kind >= K_STRIPED_Q && cb - ca < e0 - s0) {
        double lo = ca > s0 ? ca : s0, hi = cb < e0 ? cb : e0;
        frac = hi > lo ? (hi - lo) / (e0 - s0) : 0;
    }
    double *row = h->rows[p] + (size_t)h->nrows[p]++ * (2 + PMAX);
    for (int k = 0; k < 2 + PMAX; k++)
        row[k] = 0;
    row[0] = 1;
    row[1] = kind == K_ALONE || kind == K_STRIPED_Q || kind == K_STRIPED_QR;
    /* a half-node co-tenant counts 1, a quarter-node one 0.5 (the model
     * linearised at neutral figures) */
    if (kind == K_STRIPED_Q || kind == K_PACKED_Q)
        row[2 + q] += frac;
    if (kind == K_STRIPED_QR) {
        row[2 + q] += 0.5 * frac;
        row[2 + r] += 0.5 * frac;
    }
    *t += 10 + prand () * 50;
}

/* Rank of the m x n rows by Gaussian elimination with full pivoting (not
 * the learner's eigenvalues), columns scaled to unit norm. */
static int rank_of (const double *rows, int m, int n, double *w)
{
    double norm[2 + PMAX + 1] = { 0 };
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            norm[j] += rows[i * n + j] * rows[i * n + j];
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            w[i * n + j] = norm[j] > 0 ? rows[i * n + j] / sqrt (norm[j]) : 0;
    int rank = 0;
    for (int c = 0; c < n && rank < m; c++) {
        int bi = -1, bj = -1;
        double best = 0;
        for (int i = rank; i < m; i++)
            for (int j = 0; j < n; j++)
                if (fabs (w[i * n + j]) > best) {
                    best = fabs (w[i * n + j]);
                    bi = i, bj = j;
                }
        if (best < 1e-6)
            break;
        for (int j = 0; j < n; j++) {
            double x = w[rank * n + j];
            w[rank * n + j] = w[bi * n + j];
            w[bi * n + j] = x;
        }
        for (int i = rank + 1; i < m; i++) {
            double f = w[i * n + bj] / w[rank * n + bj];
            for (int j = 0; j < n; j++)
                w[i * n + j] -= f * w[rank * n + j];
        }
        rank++;
    }
    return rank;
}

/* Does the design of p identify parameter k (oracle)? */
static int oracle_identified (const struct hist *h, int p, int k)
{
    int m = h->nrows[p], n = 2 + PMAX;
    double *rows = malloc (sizeof (double) * (m + 1) * n);
    double *w = malloc (sizeof (double) * (m + 1) * n);
    memcpy (rows, h->rows[p], sizeof (double) * m * n);
    int r0 = rank_of (rows, m, n, w);
    for (int j = 0; j < n; j++)
        rows[m * n + j] = j == k;
    int r1 = rank_of (rows, m + 1, n, w);
    free (rows);
    free (w);
    return r1 == r0;
}

static void test_property (int trials)
{
    ns_error_t err;
    int reported = 0, bad_value = 0, bad_ident = 0, unident = 0;
    int complete_miss = 0, complete_want = 0, disagree = 0;
    double worst_z = 0;
    for (int tr = 0; tr < trials; tr++) {
        int np = 2 + (int)(prand () * (PMAX - 1));
        double u[PMAX], s[PMAX][PMAX], B[PMAX], noise;
        /* every fourth trial: no noise, co-tenants for whole runs (the
         * designs whose identified figures must all be learned) */
        int pure = tr % 4 == 0;
        noise = pure || tr % 3 == 0 ? 0.0 : tr % 3 == 1 ? 0.01 : 0.04;
        for (int p = 0; p < np; p++) {
            u[p] = 0.85 + prand () * 0.5;
            B[p] = 800 + prand () * 2500;
            for (int q = 0; q < np; q++)
                s[p][q] = 0.9 + prand () * 0.3;
        }
        /* the policy: which kinds each program runs, and how often;
         * load: how often a co-tenant stays the whole run */
        double pk[PMAX][K_NKINDS], load = pure ? 2.0 : prand ();
        int jobs_per = 30 + (int)(prand () * 120);
        for (int p = 0; p < np; p++)
            for (int k = 0; k < K_NKINDS; k++)
                pk[p][k] = prand () < 0.55 ? prand () : 0;
        struct hist h = { 0 };
        h.cap = np * jobs_per * 3 + 8;
        h.jobs = calloc (h.cap, sizeof (*h.jobs));
        h.cappool = h.cap * 4;
        h.pool = calloc (h.cappool, sizeof (int));
        for (int p = 0; p < np; p++)
            h.rows[p] = calloc ((size_t)jobs_per * (2 + PMAX), sizeof (double));
        double t = 0;
        for (int p = 0; p < np; p++) {
            double tot = 0;
            for (int k = 0; k < K_NKINDS; k++)
                tot += pk[p][k];
            for (int i = 0; i < jobs_per; i++) {
                int kind = K_FULL;
                if (tot > 0) {
                    double x = prand () * tot;
                    for (kind = 0; kind < K_NKINDS - 1 && x >= pk[p][kind];
                         kind++)
                        x -= pk[p][kind];
                }
                /* co-tenants from a few programs only (mixes) */
                int q = (int)(prand () * np), r = (int)(prand () * np);
                if (r == q)
                    r = (q + 1) % np;
                double W = B[p] * (1 + noise * (2 * prand () - 1));
                gen_job (&h, p, kind, q, r, W, u[p], s[p][q], s[p][r],
                         prand () > load, &t);
            }
        }
        ns_learn_t *l = ns_learn_create (RCORES, &err);
        if (!l || ns_learn_add_history (l, h.jobs, h.n, &err) < 0
            || ns_learn_fit (l, NULL, &err) < 0) {
            ok (0, "trial %d: %s", tr, err.text);
            ns_learn_destroy (l);
            continue;
        }
        for (int p = 0; p < np; p++)
            for (int k = 1; k < 2 + np; k++) {
                ns_learn_fig_t f = k == 1 ? ns_learn_speedup (l, p)
                                          : ns_learn_slowdown (l, p, k - 2);
                double truth = k == 1 ? u[p] : s[p][k - 2];
                int id = oracle_identified (&h, p, k);
                unident += !id;
                if (f.n > 0 && f.identified != id) {
                    disagree++;
                    diag ("trial %d: program %d figure %d: identified %d, "
                          "the oracle says %d", tr, p, k, f.identified, id);
                }
                if (id && f.n >= 5 && pure) {
                    complete_want++;
                    if (!f.learned) {
                        complete_miss++;
                        diag ("trial %d: program %d figure %d identified, "
                              "%d jobs, not learned (why %s; %.4f +- %.4f, "
                              "truth %.4f; kinds %.2f %.2f %.2f %.2f %.2f, "
                              "load %.2f)", tr, p, k, f.n,
                              ns_learn_why_name (f.why), f.value, f.se,
                              truth, pk[p][0], pk[p][1], pk[p][2], pk[p][3],
                              pk[p][4], load);
                    }
                }
                if (!f.learned)
                    continue;
                reported++;
                if (!id) {
                    bad_ident++;
                    diag ("trial %d: program %d figure %d learned (%.4f, "
                          "truth %.4f) but not identified", tr, p, k,
                          f.value, truth);
                }
                double z = fabs (f.value - truth) / (f.se + 0.002);
                if (z > worst_z)
                    worst_z = z;
                if (fabs (f.value - truth) > 4 * f.se + 0.002) {
                    bad_value++;
                    diag ("trial %d (noise %.2f): program %d figure %d: "
                          "%.4f +- %.4f, truth %.4f (kinds %.2f %.2f %.2f "
                          "%.2f %.2f, load %.2f, %d jobs)", tr, noise, p, k,
                          f.value, f.se, truth, pk[p][0], pk[p][1],
                          pk[p][2], pk[p][3], pk[p][4], load, f.n);
                }
            }
        ns_learn_destroy (l);
        free (h.jobs);
        free (h.pool);
        for (int p = 0; p < np; p++)
            free (h.rows[p]);
    }
    diag ("%d trials: %d figures reported, %d not identified by their "
          "history, worst |error| / (se + 0.002) %.2f", trials, reported,
          unident, worst_z);
    ok (reported > 100 && unident > 20, "the trials report figures (%d) "
        "and meet unidentified ones (%d)", reported, unident);
    is_int (bad_ident, 0, "no figure the history does not identify is "
            "ever learned");
    is_int (disagree, 0, "the learner's design and the oracle's rank "
            "agree on every figure a job was exposed to");
    is_int (bad_value, 0, "every learned figure within 4 standard errors "
            "+ 0.002 of the truth");
    is_int (complete_miss, 0, "without noise and with co-tenants for whole "
            "runs, every identified figure with 5 jobs is learned (%d)",
            complete_want);
}

int main (void)
{
    test_hand ();
    test_online ();
    test_closed_loop (0.0, 0.005);
    test_closed_loop (0.05, 0.03);
    test_products_only ();
    /* NS_LEARN_TRIALS=600 for a longer run */
    const char *trials = getenv ("NS_LEARN_TRIALS");
    test_property (trials ? atoi (trials) : 60);
    return done_testing ();
}
