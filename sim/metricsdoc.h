/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metricsdoc.h - the metrics document: the JSON that nodeshare-sim --json
 * writes and that a sweep reads back from each cell's result.
 *
 *   { "input":    { "trace", "mode", "nodes", "cores", "backfill",
 *                   "overrun", "baseline", "note", ... },
 *     "policies": [ { "policy", "load"?, "jobs", ..., "wall_s" }, ... ] }
 *
 * The keys of a policy's entry and their order are defined once, in
 * metricsdoc.c, for the writer and the reader alike.  A closed
 * experiment's entries have "load"; a trace's do not.  A throughput ratio
 * without a baseline is null.
 */
#ifndef NODESHARE_METRICSDOC_H
#define NODESHARE_METRICSDOC_H

#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "report.h"
#include "trace.h"

/* What the run was given and read: the "input" object. */
typedef struct {
    const char *trace;          /* NULL: a closed experiment */
    int nodes, cores;
    int backfill_easy;          /* "easy", else "none" */
    int overrun_kill;           /* "kill", else "run" */
    const char *baseline;
    const char *note;           /* NULL or "": null */
    /* a trace */
    int64_t jobs_read, jobs_used;
    const struct ns_trace_counts *counts;   /* jobs_skipped by reason */
    double recorded_mean_wait_s;            /* NAN: null */
    /* a closed experiment */
    double horizon_s;
    /* the process's peak resident memory; < 0: not said */
    double peak_rss_mb;
} ns_metricsdoc_input_t;

/* The document of a run: in, and n policies' metrics.  NULL if out of
 * memory.  Release with json_object_put (). */
json_object *ns_metricsdoc_create (const ns_metricsdoc_input_t *in,
                                   const ns_metrics_t *m, int n);

/* The document as nodeshare-sim --json prints it (pretty, spaced, one
 * newline at the end); -1 if f has an error. */
int ns_metricsdoc_print (FILE *f, json_object *doc);

/* ---- reading ---- */

/* 0 if doc is a metrics document (an object with a "policies" array),
 * else -1 with errno EINVAL. */
int ns_metricsdoc_check (json_object *doc);

/* The number of policy entries of doc (0 if it has none). */
int ns_metricsdoc_npolicies (json_object *doc);

/* The k-th policy entry, NULL if there is none. */
json_object *ns_metricsdoc_policy (json_object *doc, int k);

/* A number of a policy entry by key ("jobs", "mean_wait_s", ...); NAN if
 * it is absent or null (a throughput ratio without a baseline). */
double ns_metricsdoc_num (json_object *entry, const char *key);

/* A string of an object by key ("policy"; or of "input"), NULL if absent
 * or not a string. */
const char *ns_metricsdoc_str (json_object *o, const char *key);

/* The baseline policy doc's ratios are against, NULL if not said. */
const char *ns_metricsdoc_baseline (json_object *doc);

#endif /* !NODESHARE_METRICSDOC_H */
