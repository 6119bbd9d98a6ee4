/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rep.t - nodeshare-report's findings (sim/rep_findings.c) on a report
 * built in the test: durations, times and values as the report writes
 * them, programs by core-hours, the replay's rows, the scope of the
 * nodeshare.json to start with, the error line. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "rep.h"
#include "tap.h"

static void formats (void)
{
    static const struct {
        double s;
        const char *want;
    } durs[] = {
        { 0, "0 s" },
        { 59, "59 s" },
        { 119.4, "119 s" },
        { 120, "2.0 min" },
        { 7199, "120.0 min" },
        { 7200, "2.00 h" },
        { 90000, "25.00 h" },
    };
    char buf[64];
    for (size_t i = 0; i < sizeof (durs) / sizeof (durs[0]); i++) {
        ns_rep_fmt_dur (buf, sizeof (buf), durs[i].s);
        is_str (buf, durs[i].want, "duration %g s: %s", durs[i].s,
                durs[i].want);
    }
    ns_rep_fmt_time (buf, sizeof (buf), 1767225600);
    is_str (buf, "2026-01-01 00:00", "a time: UTC, to the minute");

    static const struct {
        int kind;
        double v;
        const char *want;
    } vals[] = {
        { 0, 3600, "60.0 min" },
        { 1, 1.234, "1.23" },
        { 2, 2100, "2100" },
        { 3, 12.34, "12.3" },
        { 4, 0.125, "12.5%" },
    };
    for (size_t i = 0; i < sizeof (vals) / sizeof (vals[0]); i++) {
        struct ns_rep_row w = { "x", { vals[i].v, 0 }, vals[i].kind };
        ns_rep_fmt_val (buf, sizeof (buf), &w, 0);
        is_str (buf, vals[i].want, "a value of kind %d: %s", vals[i].kind,
                vals[i].want);
    }
    is_str (ns_rep_rule_what (NS_RULE_PACK), "packed as stock Slurm packs it",
            "rule pack in words");
    is_str (ns_rep_rule_what (-1), "never started", "no rule: never started");
}

static void programs (struct ns_rep *r)
{
    struct ns_rep_prog ps[3] = {
        { .jobs = 1, .core_s = 3600 },
        { .jobs = 2, .core_s = 7200 },
        { .jobs = 2, .core_s = 7200 },
    };
    r->ps = ps;
    r->nps = 3;
    int *ord = ns_rep_prog_order (r);
    ok (ord && ord[0] == 1 && ord[1] == 2 && ord[2] == 0 && ord[3] == -1,
        "programs by core-hours, largest first, ties in table order");
    free (ord);
    ps[2].jobs = 0;
    ord = ns_rep_prog_order (r);
    ok (ord && ord[0] == 1 && ord[1] == 0 && ord[2] == -1,
        "a program without jobs is left out of the order");
    free (ord);
    ps[2].jobs = 2;
    ok (ns_rep_total_core_s (r) == 18000, "core-seconds of every job");
    is_str (ns_rep_prog_name (r, 2), "(no name)",
            "the last program: jobs without a name");
    memset (ps, 0, sizeof (ps));
    ok (ns_rep_total_core_s (r) == 1, "no core-second: 1 (a divisor)");
    r->ps = NULL;
    r->nps = 0;
}

/* The programs to calibrate: every named program with jobs and no
 * figure, whatever its place by core-hours; never the jobs without a
 * name. */
static void calibrate (struct ns_rep *r)
{
    ns_error_t err;
    ns_progtab_t *t = ns_progtab_create ();
    ok (t && ns_progtab_intern (t, "LAM", &err) == 0
        && ns_progtab_intern (t, "CP2K", &err) == 1, "a table of two");
    /* by core-hours: LAM, the nameless jobs, then CP2K */
    struct ns_rep_prog ps[3] = {
        { .jobs = 2, .core_s = 7200 },
        { .jobs = 1, .core_s = 360 },
        { .jobs = 1, .core_s = 3600 },
    };
    r->rprogs = t;
    r->ps = ps;
    r->nps = 3;
    r->o.repeats = 3;
    char *text = ns_rep_act_on (r);
    ok (text && strstr (text, "Calibrate LAM (") != NULL,
        "the largest program is to calibrate");
    ok (text && strstr (text, "Calibrate CP2K (") != NULL,
        "the smallest, after the jobs without a name, is too");
    ok (text && strstr (text, "Calibrate ?") == NULL
        && strstr (text, "Calibrate (no name)") == NULL,
        "the jobs without a name are not a program to calibrate");
    ok (text && strstr (text, "Calibrating the 2 programs ") != NULL,
        "two programs counted");
    free (text);
    r->rprogs = NULL;
    r->ps = NULL;
    r->nps = 0;
    ns_progtab_destroy (t);
}

static void rows (struct ns_rep *r)
{
    struct ns_rep_row w[16];
    r->rp[0].m.jobs = 10;
    r->rp[1].m.jobs = 9;
    r->rp[0].m.throughput_ratio = NAN;
    r->rp[1].held_core_h = 12.5;
    int n = ns_rep_replay_table (r, w);
    ok (n == 12 && n <= 16, "12 rows (at most 16)");
    ok (strcmp (w[0].label, "jobs completed") == 0 && w[0].v[0] == 10
        && w[0].v[1] == 9, "first row: jobs completed, pack and policy");
    int k;
    for (k = 0; k < n && strcmp (w[k].label, "work per hour vs pack"); k++)
        ;
    ok (k < n && w[k].v[0] == 1.0, "no throughput ratio: 1.0");
    for (k = 0; k < n && strcmp (w[k].label, "core-hours held"); k++)
        ;
    ok (k < n && w[k].v[1] == 12.5, "core-hours held of the policy");
}

/* The partitions of the nodeshare.json to start with. */
static const char *scope (struct ns_rep *r, char *buf, size_t size)
{
    json_object *root = ns_rep_start_config (r), *v;
    buf[0] = '\0';
    if (!root)
        return "NULL";
    if (json_object_object_get_ex (root, "partitions", &v))
        snprintf (buf, size, "partitions %s",
                  json_object_to_json_string_ext (v, JSON_C_TO_STRING_PLAIN));
    else if (json_object_object_get_ex (root, "mode", &v))
        snprintf (buf, size, "mode %s", json_object_get_string (v));
    else
        snprintf (buf, size, "stock");
    json_object_put (root);
    return buf;
}

static void start (struct ns_rep *r)
{
    char buf[256], a[] = "batch", b[] = "debug";
    r->learned = json_tokener_parse ("{\"programs\":{\"LAM\":"
                                     "{\"spread_speedup\":1.1}}}");
    is_str (scope (r, buf, sizeof (buf)), "stock",
            "no partition in the dumps: no scope");
    r->pnames[0] = a;
    r->pnames[1] = b;
    r->npnames = 2;
    /* batch: fewer core-hours held, the same turnaround; debug: more */
    r->parts[0] = (struct ns_rep_part){ 10, { 100, 90 }, { 50, 50 } };
    r->parts[1] = (struct ns_rep_part){ 10, { 100, 110 }, { 50, 40 } };
    is_str (scope (r, buf, sizeof (buf)), "partitions [\"batch\"]",
            "the partitions where the replay gains");
    r->parts[0].turn_s[1] = 60;
    is_str (scope (r, buf, sizeof (buf)), "mode shadow",
            "a longer turnaround is no gain: none gains, shadow mode");
    json_object *root = ns_rep_start_config (r), *p;
    ok (root && json_object_object_get_ex (root, "programs", &p)
        && json_object_object_length (p) == 1,
        "what nodeshare-learn writes is kept");
    json_object_put (root);
    json_object_put (r->learned);
    r->learned = NULL;
    r->npnames = 0;
}

int main (void)
{
    plan_no_plan ();
    struct ns_rep *r = calloc (1, sizeof (*r));
    if (!r)
        return 1;
    formats ();
    programs (r);
    calibrate (r);
    rows (r);
    start (r);
    ok (ns_rep_errf (r, "%s: %d", "x.txt", 3) == -1
        && strcmp (r->err, "x.txt: 3") == 0, "an error: -1, one line");
    ns_rep_free (r);
    ok (1, "a report with nothing in it is freed");
    free (r);
    return done_testing ();
}
