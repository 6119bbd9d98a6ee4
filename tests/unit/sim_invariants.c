/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim_invariants.t - replay the real traces under every policy and check
 * what must hold whatever the policy: every usable job completes exactly
 * once (or is reported as never fitting, when larger than the machine),
 * the cluster invariants hold after every event (no node over its cores),
 * no node holds more jobs than the policy allows, utilisation stays <= 1,
 * and `twins` never pairs a program with itself.
 *
 * The traces are not shipped with the project: they are looked for in
 * $NS_TRACES, else $top_srcdir/../shared/traces; missing ones are skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "report.h"
#include "tap.h"
#include "trace.h"

struct trace_case {
    const char *file;
    int nodes, cores;
    int max_jobs;   /* keep make check fast: a prefix of RICC */
};

static ns_simjob_t *load (const char *path, int max, int *n, ns_progtab_t *pt)
{
    ns_error_t err;
    ns_trace_t *t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    if (!t)
        return NULL;
    ns_simjob_t *jobs = malloc (sizeof (*jobs) * (max ? max : 500000));
    ns_tjob_t j;
    *n = 0;
    while ((!max || *n < max) && ns_trace_next (t, &j, &err) == 1) {
        char name[32];
        if (j.exe >= 0)
            snprintf (name, sizeof (name), "exe%d", j.exe);
        else
            snprintf (name, sizeof (name), "user%d", j.uid);
        jobs[(*n)++] = (ns_simjob_t){ (uint64_t)j.id, (double)j.submit,
                                      (double)j.run, (double)j.req_time,
                                      j.procs,
                                      ns_progtab_intern (pt, name, NULL),
                                      (double)j.wait, 0, 0, 0 };
    }
    ns_trace_close (t);
    return jobs;
}

static void replay (const struct trace_case *tc, const ns_simjob_t *jobs,
                    int n, ns_policy_kind_t kind, ns_interf_t *m)
{
    ns_simconf_t conf = { 0 };
    ns_error_t err;
    ns_policy_default (&conf.policy);
    conf.policy.kind = kind;
    if (kind == NS_POLICY_KEEP)
        conf.policy.keep_program = jobs[0].program;
    conf.backfill = NS_BACKFILL_EASY;
    conf.nnodes = tc->nodes;
    conf.cores = tc->cores;
    conf.model = m;
    ns_sim_t *sim = ns_sim_create (&conf, &err);
    ns_sim_set_checking (sim, 1);
    for (int i = 0; i < n; i++)
        ns_sim_add (sim, &jobs[i], &err);
    const char *pname = ns_policy_kind_name (kind);
    int rc = ns_sim_run (sim, -1, &err);
    if (!ok (rc == 0, "%s %s: replay with invariant checks after every "
             "event", tc->file, pname))
        diag ("%s", err.text);
    int done = 0, never = 0, bad = 0;
    for (int i = 0; i < n; i++) {
        const ns_simresult_t *r = ns_sim_result (sim, i);
        if (r->state == NS_SJ_DONE)
            done++;
        else if (r->state == NS_SJ_NEVER
                 && jobs[i].ntasks > tc->nodes * tc->cores)
            never++;
        else
            bad++;
    }
    if (!ok (bad == 0 && done + never == n, "%s %s: %d jobs done, %d never "
             "fit, none lost", tc->file, pname, done, never))
        diag ("%d jobs neither done nor too large", bad);
    const ns_simstats_t *st = ns_sim_stats (sim);
    ok (st->max_cotenants <= conf.policy.max_cotenants,
        "%s %s: at most %d governed jobs on a node (saw %lld)", tc->file,
        pname, conf.policy.max_cotenants, (long long)st->max_cotenants);
    ns_metrics_t met;
    ns_metrics_compute (sim, 0, &met);
    ok (met.utilization <= 1.0 && met.utilization > 0, "%s %s: utilisation "
        "%.3f in (0, 1]", tc->file, pname, met.utilization);
    if (kind == NS_POLICY_TWINS)
        is_int (st->twin_pairs, 0, "%s twins: no program paired with itself",
                tc->file);
    if (kind == NS_POLICY_EXCLUSIVE || kind == NS_POLICY_SPREAD)
        ok (met.shared_fraction == 0.0, "%s %s: nothing shared", tc->file,
            pname);
    ns_sim_destroy (sim);
}

int main (void)
{
    plan_no_plan ();
    const char *dir = getenv ("NS_TRACES");
    char buf[4096];
    if (!dir) {
        const char *top = getenv ("top_srcdir");
        snprintf (buf, sizeof (buf), "%s/../shared/traces", top ? top : "..");
        dir = buf;
    }
    static const struct trace_case cases[] = {
        { "KTH-SP2-1996-2.1-cln.swf.gz", 100, 1, 0 },
        { "NASA-iPSC-1993-3.1-cln.swf.gz", 128, 1, 0 },
        { "RICC-2010-2.swf.gz", 1024, 8, 15000 },
    };
    ns_interf_t *m = ns_interf_create ();
    for (size_t c = 0; c < sizeof (cases) / sizeof (cases[0]); c++) {
        char path[8192];
        snprintf (path, sizeof (path), "%s/%s", dir, cases[c].file);
        ns_progtab_t *pt = ns_progtab_create ();
        int n = 0;
        ns_simjob_t *jobs = load (path, cases[c].max_jobs, &n, pt);
        if (!jobs) {
            ok (1, "# SKIP %s not found", path);
            ns_progtab_destroy (pt);
            continue;
        }
        /* a mild interference model so that rates really change, and
         * speedups so that some programs are striped (governed) */
        for (int p = 0; p < 8; p++) {
            ns_interf_set_speedup (m, p, 1.0 + 0.1 * (p % 3), NULL);
            for (int q = 0; q < 8; q++)
                ns_interf_set_slowdown (m, p, q, 1.0 + 0.02 * ((p + q) % 5),
                                        NULL);
        }
        for (int k = 0; k < NS_POLICY_COUNT; k++)
            replay (&cases[c], jobs, n, k, m);
        free (jobs);
        ns_progtab_destroy (pt);
    }
    ns_interf_destroy (m);
    return done_testing ();
}
