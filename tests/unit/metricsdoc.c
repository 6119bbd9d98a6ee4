/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metricsdoc.t - the metrics document (sim/metricsdoc.c): what is written
 * is read back by the same keys; a missing baseline ratio is null and
 * reads as NAN; "load" only for a closed experiment; the input's
 * trace-only and closed-only keys. */
#include <math.h>
#include <string.h>

#include "metricsdoc.h"
#include "tap.h"

static json_object *get (json_object *o, const char *key)
{
    json_object *v = NULL;
    json_object_object_get_ex (o, key, &v);
    return v;
}

int main (void)
{
    plan_no_plan ();
    ns_metrics_t m[2];
    memset (m, 0, sizeof (m));
    snprintf (m[0].policy, sizeof (m[0].policy), "pack");
    m[0].load = -1;
    m[0].jobs = 5000000000LL;       /* past 32 bits */
    m[0].killed = 3;
    m[0].throughput_ratio = NAN;
    m[0].mean_wait_s = 12.5;
    snprintf (m[1].policy, sizeof (m[1].policy), "twins");
    m[1].load = -1;
    m[1].throughput_ratio = 1.25;
    m[1].work_per_h = 7;
    struct ns_trace_counts counts;
    memset (&counts, 0, sizeof (counts));
    counts.skip[0].count = 4;
    ns_metricsdoc_input_t in = {
        .trace = "t.swf", .nodes = 4, .cores = 8, .backfill_easy = 1,
        .baseline = "pack", .note = "", .jobs_read = 10, .jobs_used = 6,
        .counts = &counts, .recorded_mean_wait_s = NAN, .peak_rss_mb = -1,
    };
    json_object *doc = ns_metricsdoc_create (&in, m, 2);
    ok (doc && ns_metricsdoc_check (doc) == 0, "a document of two policies");
    is_int (ns_metricsdoc_npolicies (doc), 2, "  with two entries");
    json_object *p0 = ns_metricsdoc_policy (doc, 0);
    json_object *p1 = ns_metricsdoc_policy (doc, 1);
    is_str (ns_metricsdoc_str (p1, "policy"), "twins", "  in order");
    ok (ns_metricsdoc_policy (doc, 2) == NULL, "  no third");
    ok (ns_metricsdoc_num (p0, "jobs") == 5e9, "jobs past 32 bits");
    ok (json_object_is_type (get (p0, "jobs"), json_type_int),
        "  written as an integer");
    ok (get (p0, "throughput_ratio") == NULL
        && json_object_object_get_ex (p0, "throughput_ratio", NULL),
        "no baseline ratio: the key is there, null");
    ok (isnan (ns_metricsdoc_num (p0, "throughput_ratio")),
        "  and reads as NAN");
    ok (ns_metricsdoc_num (p1, "throughput_ratio") == 1.25, "a ratio 1.25");
    ok (ns_metricsdoc_num (p1, "work_core_h_per_h") == 7,
        "work_per_h is written as work_core_h_per_h");
    ok (ns_metricsdoc_num (p0, "never") != ns_metricsdoc_num (p0, "never"),
        "  an unknown key reads as NAN");
    ok (!json_object_object_get_ex (p0, "load", NULL),
        "a trace's entry has no load");
    is_str (ns_metricsdoc_baseline (doc), "pack", "the baseline, read back");
    json_object *i = get (doc, "input");
    ok (get (i, "note") == NULL && get (i, "recorded_mean_wait_s") == NULL,
        "input: an empty note and no recorded wait are null");
    ok (!json_object_object_get_ex (i, "horizon_s", NULL)
        && !json_object_object_get_ex (i, "peak_rss_mb", NULL),
        "  no horizon for a trace, no peak memory when not said");
    is_str (ns_metricsdoc_str (i, "backfill"), "easy", "  backfill easy");
    is_str (ns_metricsdoc_str (i, "overrun"), "run", "  overrun run");
    is_int (json_object_object_length (get (i, "jobs_skipped")), 1,
            "  one skip reason with a count");
    /* the order of a policy's keys is the document's */
    const char *want[] = { "policy", "jobs", "never_fit", "unfinished",
                           "makespan_s" };
    int k = 0, inorder = 1;
    json_object_object_foreach (p0, key, val) {
        (void)val;
        if (k < 5 && strcmp (key, want[k]) != 0)
            inorder = 0;
        k++;
    }
    ok (inorder && k == 21, "keys in the written order, 21 of them (%d)", k);
    json_object_put (doc);

    m[0].load = 0.5;
    ns_metricsdoc_input_t cl = { .nodes = 2, .cores = 2, .baseline = "pack",
                                 .horizon_s = 3600, .peak_rss_mb = 12 };
    doc = ns_metricsdoc_create (&cl, m, 1);
    p0 = ns_metricsdoc_policy (doc, 0);
    ok (ns_metricsdoc_num (p0, "load") == 0.5, "closed: the entry's load");
    i = get (doc, "input");
    is_str (ns_metricsdoc_str (i, "mode"), "closed", "  mode closed");
    ok (get (i, "trace") == NULL && ns_metricsdoc_num (i, "horizon_s") == 3600
        && !json_object_object_get_ex (i, "jobs_read", NULL),
        "  trace null, a horizon, no trace counts");
    json_object_put (doc);
    ok (ns_metricsdoc_check (NULL) < 0, "no document is not one");
    return done_testing ();
}
