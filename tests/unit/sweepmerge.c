/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sweepmerge.t - a sweep's results merged (sim/sweepmerge.c) and its
 * Slurm script (sim/sweepslurm.c): the counts move as cells are done or
 * fail, a policy is listed once however many cells have it, an error is
 * cut at its first line, quotes in a path survive sh. */
#include <stdlib.h>
#include <string.h>

#include "metricsdoc.h"
#include "sweepmerge.h"
#include "sweepslurm.h"
#include "tap.h"

static json_object *result (const char *p1, const char *p2)
{
    ns_metrics_t m[2];
    memset (m, 0, sizeof (m));
    snprintf (m[0].policy, sizeof (m[0].policy), "%s", p1);
    snprintf (m[1].policy, sizeof (m[1].policy), "%s", p2);
    m[0].load = m[1].load = -1;
    m[0].throughput_ratio = 1;
    m[1].throughput_ratio = 1.5;
    m[0].jobs = m[1].jobs = 7;
    ns_metricsdoc_input_t in = { .trace = "a.swf", .baseline = "pack",
                                 .recorded_mean_wait_s = 0,
                                 .peak_rss_mb = -1 };
    return ns_metricsdoc_create (&in, m, 2);
}

int main (void)
{
    plan_no_plan ();
    const char *text = "{ \"traces\": [ \"a.swf\", \"b.swf\", \"c.swf\" ] }";
    ns_error_t err;
    ns_sweep_t *sw = ns_sweep_parse (text, strlen (text), "s.json", "/d",
                                     &err);
    ok (sw != NULL, "a sweep of three cells");
    if (!sw)
        return done_testing ();
    ns_sweep_merged_t mg;
    ok (ns_sweep_merged_init (&mg, sw, "/d/s.json") == 0 && mg.n == 3
        && mg.missing == 3 && mg.done == 0, "init: three cells, none run");
    ns_sweep_merged_done (&mg, 0, result ("pack", "twins"));
    ns_sweep_merged_done (&mg, 2, result ("twins", "mixed"));
    ok (mg.done == 2 && mg.missing == 1, "two done, one not run");
    is_int (mg.npolicies, 3, "  pack, twins, mixed: each policy once");
    is_str (mg.policies[2], "mixed", "  in the order first seen");
    ns_sweep_merged_failed (&mg, 1, strdup ("exit status 1\nmore"));
    ok (mg.failed == 1 && mg.missing == 0, "the third failed");
    is_str (mg.error[1], "exit status 1", "  its error cut at the newline");
    char *t = ns_sweep_merged_table (&mg), want[NS_SWEEP_NAME_MAX + 64];
    snprintf (want, sizeof (want), "FAILED  %s: exit status 1\n",
              mg.cells[1].name);
    ok (t && strstr (t, "): 2 done, 1 failed, 0 not run\n")
        && strstr (t, "relative to pack") && strstr (t, want),
        "the table: counts, baseline, the failure (%s)", mg.cells[1].name);
    ok (t && strstr (t, "  1.500 "), "  a ratio with three decimals");
    free (t);
    json_object *j = ns_sweep_merged_json (&mg);
    json_object *res = NULL, *c1 = NULL, *st = NULL;
    json_object_object_get_ex (j, "results", &res);
    c1 = json_object_array_get_idx (res, 1);
    json_object_object_get_ex (c1, "status", &st);
    is_str (json_object_get_string (st), "failed",
            "JSON: the second cell's status");
    json_object_put (j);
    char *svg = ns_sweep_merged_svg (&mg);
    ok (svg && strstr (svg, ">failed</text>") && strstr (svg, "</svg>\n"),
        "SVG: the failed cell is marked");
    free (svg);
    ns_sweep_merged_free (&mg);

    char *sh = ns_sweep_script (sw, "/bin/it's", "/d/s.json", "the array",
                                "--cell $SLURM_ARRAY_TASK_ID");
    ok (sh && strstr (sh, "exec '/bin/it'\\''s' --sweep '/d/s.json' "
                      "--cell $SLURM_ARRAY_TASK_ID\n")
        && strncmp (sh, "#!/bin/sh\n", 10) == 0,
        "script: a quote in the program's path survives sh");
    free (sh);
    ns_sweep_free (sw);
    return done_testing ();
}
