/* SPDX-License-Identifier: GPL-2.0-or-later */
/* batch.t - replays of several policies in threads (sim/batch.c): the
 * same metrics and the same CSV bytes in slot order whatever the number
 * of threads, a twin's outputs from pack's replay, closed experiments at
 * several loads, and a failure said by the batch, not printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "nsconfig.h"
#include "tap.h"

static const char config[] =
    "{ \"policy\": \"pack\", \"programs\": {"
    " \"A\": { \"spread_speedup\": 1.5, \"weight\": 1, \"runtime\": 100,"
    "   \"slowdown\": { \"A\": 1.1, \"B\": 1.0 } },"
    " \"B\": { \"spread_speedup\": 1.0, \"weight\": 1, \"runtime\": 50,"
    "   \"slowdown\": { \"A\": 1.0, \"B\": 1.2 } } } }";

#define NJOBS 40
#define NP 3

static ns_config_t *cfg;
static ns_simjob_t jobs[NJOBS];
static ns_simconf_t confs[NP];
static const char *names[NP] = { "pack", "spread", "twins" };

static void setup (int program)
{
    for (int i = 0; i < NP; i++) {
        ns_error_t err;
        confs[i] = (ns_simconf_t){ .nnodes = 4, .cores = 8,
                                   .model = ns_config_interf (cfg),
                                   .progs = ns_config_progtab (cfg) };
        confs[i].policy = *ns_config_policy (cfg);
        if (ns_policy_parse (&confs[i].policy, names[i],
                             ns_config_progtab (cfg), &err) < 0)
            diag ("%s: %s", names[i], err.text);
    }
    for (int i = 0; i < NJOBS; i++)
        jobs[i] = (ns_simjob_t){ .id = 100 + i, .submit = 10.0 * i,
                                 .runtime = 60 + 7 * (i % 5),
                                 .req_time = 200, .ntasks = 4 + 4 * (i % 3),
                                 .program = program, .recorded_wait = -1 };
}

static ns_batch_t batch (int threads, FILE *csv)
{
    return (ns_batch_t){ .confs = confs, .names = names, .npolicies = NP,
                         .jobs = jobs, .njobs = NJOBS, .total_cores = 32,
                         .threads = threads, .check = 1, .csv = csv,
                         .progs = ns_config_progtab (cfg) };
}

/* Run with `threads`; the CSV rows in *csv (malloc'd). */
static int run (ns_batch_t *b, ns_metrics_t *m, char **csv, size_t *len,
                ns_error_t *err)
{
    FILE *f = open_memstream (csv, len);
    b->csv = f;
    int rc = ns_batch_run (b, m, err);
    fclose (f);
    return rc;
}

static int same_metrics (const ns_metrics_t *a, const ns_metrics_t *b)
{
    return a->jobs == b->jobs && a->makespan_s == b->makespan_s
           && a->mean_wait_s == b->mean_wait_s
           && strcmp (a->policy, b->policy) == 0;
}

int main (void)
{
    plan_no_plan ();
    ns_error_t err;
    cfg = ns_config_load_string (config, "test", &err);
    if (!ok (cfg != NULL, "configuration loads"))
        { diag ("%s", err.text); return done_testing (); }

    /* Program A gains from striping: every policy replays. */
    setup (0);
    ns_metrics_t m1[NP], m2[NP];
    char *c1 = NULL, *c2 = NULL;
    size_t l1 = 0, l2 = 0;
    ns_batch_t b = batch (1, NULL);
    is_int (run (&b, m1, &c1, &l1, &err), 0, "one thread: runs");
    b = batch (2, NULL);
    is_int (run (&b, m2, &c2, &l2, &err), 0, "two threads: runs");
    int same = 1;
    for (int i = 0; i < NP; i++)
        same &= same_metrics (&m1[i], &m2[i]);
    ok (same, "the same metrics in the same slots with 1 and 2 threads");
    ok (strcmp (m1[0].policy, "pack") == 0
        && strcmp (m1[1].policy, "spread") == 0
        && strcmp (m1[2].policy, "twins") == 0, "slot k is policy k");
    ok (l1 == l2 && l1 > 0 && memcmp (c1, c2, l1) == 0,
        "the same CSV bytes with 1 and 2 threads (%zu, %zu)", l1, l2);
    char *sp = strstr (c1, "\nspread,");
    ok (strncmp (c1, "pack,", 5) == 0 && sp && !strstr (sp, "\npack,"),
        "pack's rows first, then spread's");
    is_int (m1[0].jobs, NJOBS, "every job ran under pack");
    ok (m1[1].mean_wait_s != m1[0].mean_wait_s || m1[1].makespan_s
                                                  != m1[0].makespan_s,
        "spread's schedule is its own");
    int twin_of[NP];
    char list[64];
    is_int (ns_batch_twins (&b, twin_of, list, sizeof (list)), 0,
            "a program that gains: no twins");
    free (c1);
    free (c2);

    /* Program B gains nothing: twins packs, spread does not. */
    setup (1);
    b = batch (2, NULL);
    is_int (ns_batch_twins (&b, twin_of, list, sizeof (list)), 1,
            "no program gains: one twin of pack");
    ok (twin_of[0] == -1 && twin_of[1] == -1 && twin_of[2] == 0,
        "  twins is pack's (%d %d %d)", twin_of[0], twin_of[1], twin_of[2]);
    is_str (list, "twins", "  named in the list");
    b.twin_of = twin_of;
    c1 = NULL;
    is_int (run (&b, m1, &c1, &l1, &err), 0, "a batch with a twin runs");
    ok (m1[2].jobs == m1[0].jobs && m1[2].mean_wait_s == m1[0].mean_wait_s
        && m1[2].makespan_s == m1[0].makespan_s,
        "  the twin's metrics are pack's");
    is_str (m1[2].policy, "twins", "  under its own name");
    ok (strstr (c1, "\ntwins,") != NULL, "  and CSV rows of its own");
    free (c1);

    /* A closed experiment: 2 policies at 2 loads. */
    double loads[2] = { 1.0, 0.5 };
    ns_metrics_t mc[4];
    b = batch (2, NULL);
    b.npolicies = 2;
    b.loads = loads;
    b.nloads = 2;
    b.horizon = 2000;
    b.mix = NS_MIX_TIME;
    is_int (ns_batch_twins (&b, twin_of, list, sizeof (list)), 0,
            "closed experiments have no twins");
    c1 = NULL;
    is_int (run (&b, mc, &c1, &l1, &err), 0, "closed: runs");
    ok (mc[0].load == 1.0 && mc[1].load == 1.0 && mc[2].load == 0.5
        && mc[3].load == 0.5, "  slot l x 2 + k is load l");
    ok (strcmp (mc[1].policy, "spread") == 0
        && strcmp (mc[2].policy, "pack") == 0, "  and policy k");
    ok (mc[0].jobs > 0 && mc[2].jobs > 0 && mc[0].jobs >= mc[2].jobs,
        "  more jobs at load 1 than 0.5 (%lld, %lld)",
        (long long)mc[0].jobs, (long long)mc[2].jobs);
    free (c1);

    /* exclusive's replay starts after the others (on RICC the cheapest of
     * the study's policies), its outputs still in its slot */
    static const char *xnames[NP] = { "pack", "exclusive", "spread" };
    for (int i = 0; i < NP; i++) {
        ns_error_t perr;
        confs[i].policy = *ns_config_policy (cfg);
        if (ns_policy_parse (&confs[i].policy, xnames[i],
                             ns_config_progtab (cfg), &perr) < 0)
            diag ("%s: %s", xnames[i], perr.text);
    }
    b = batch (1, NULL);
    b.names = xnames;
    char *prog = NULL;
    size_t plen = 0;
    b.progress = open_memstream (&prog, &plen);
    c1 = NULL;
    is_int (run (&b, m1, &c1, &l1, &err), 0, "pack, exclusive, spread: runs");
    fclose (b.progress);
    const char *dp = prog ? strstr (prog, "pack: done") : NULL;
    const char *ds = prog ? strstr (prog, "spread: done") : NULL;
    const char *dx = prog ? strstr (prog, "exclusive: done") : NULL;
    ok (dp && ds && dx && dp < ds && ds < dx,
        "  one thread: pack, spread, then exclusive");
    ok (strcmp (m1[1].policy, "exclusive") == 0
        && strcmp (m1[2].policy, "spread") == 0, "  exclusive in slot 1");
    const char *cx = strstr (c1, "\nexclusive,");
    const char *cs = strstr (c1, "\nspread,");
    ok (strncmp (c1, "pack,", 5) == 0 && cx && cs && cx < cs,
        "  its CSV rows in slot order");
    free (prog);
    free (c1);

    /* A failure: the file of --sacct cannot be written. */
    setup (0);
    b = batch (2, NULL);
    b.sacct_path = "/nonexistent/dir/sacct.txt";
    b.sacct_policy = "spread";
    c1 = NULL;
    is_int (run (&b, m1, &c1, &l1, &err), -1, "a task fails: -1");
    is_str (err.text, "/nonexistent/dir/sacct.txt: No such file or "
               "directory", "  with its message");
    free (c1);

    ns_config_destroy (cfg);
    return done_testing ();
}
