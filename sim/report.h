/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h - per-policy metrics and the reports of nodeshare-sim
 *
 * Metrics (design.md section 5): jobs completed, makespan, utilisation,
 * throughput (jobs/h, work/h in core-hours of trace runtime per hour) and
 * its ratio to a baseline policy (pack or exclusive), mean/median/p95
 * wait, mean response, mean bounded slowdown (runtime floor 10 s), share
 * of jobs that ran with a co-tenant, twin pairings, jobs over their
 * requested time (--overrun run) or killed at it (--overrun kill).
 * Utilisation is two figures: what the policy holds for jobs (whole nodes
 * under exclusive) and what the jobs' tasks use.
 */
#ifndef NODESHARE_REPORT_H
#define NODESHARE_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "engine.h"

#define NS_TIMELINE_BUCKETS 240

typedef struct {
    char policy[64];
    double load;             /* closed experiments; < 0 for traces */
    int64_t jobs;            /* completed */
    int64_t never;           /* could never fit the machine */
    int64_t unfinished;      /* still queued or running at the horizon */
    double makespan_s;
    double utilization;      /* cores the jobs' tasks use (procs x time)
                                over cores x makespan */
    double utilization_held; /* cores the policy holds for jobs: whole
                                nodes for exclusive/spread, else the
                                cores allocated */
    double jobs_per_h;
    double work_per_h;       /* core-hours of trace runtime per hour */
    double throughput_ratio; /* work_per_h / the baseline's; NAN if none */
    double mean_wait_s;
    double median_wait_s;
    double p95_wait_s;
    double mean_response_s;
    double mean_bsld;
    double shared_fraction;
    int64_t twin_pairs;
    int64_t over_limit;      /* ran past their requested time (run) */
    int64_t killed;          /* killed at their requested time (kill) */
    int64_t max_cotenants;
    double wall_s;           /* time the replay took */
    /* utilisation over time: share of cores used per bucket of
     * (t1 - t0) / NS_TIMELINE_BUCKETS; t_end: when the last core freed */
    double t0, t1, t_end;
    double timeline[NS_TIMELINE_BUCKETS];
} ns_metrics_t;

/* Compute from a finished run.  window > 0: closed experiment measured
 * over [0, window] (only jobs ending inside count); else over the run. */
int ns_metrics_compute (const ns_sim_t *sim, double window,
                        ns_metrics_t *out);

/* Fill throughput_ratio of every entry against the entry of policy
 * `baseline` (e.g. "pack", "exclusive") with the same load. */
void ns_metrics_ratios (ns_metrics_t *m, int n, const char *baseline);

/* Timeline accumulation: pass ns_timeline_hook and a ns_timeline_t to
 * ns_sim_set_usage_hook before the run. */
/* The span is a first guess; when usage runs past it, the buckets merge
 * pairwise and the span doubles, so the whole run is covered whatever its
 * length, in fixed memory. */
typedef struct {
    double t0, t1;          /* span covered by the buckets */
    double last;            /* end of the last interval with cores used */
    double total_cores;
    double busy[NS_TIMELINE_BUCKETS]; /* core-seconds per bucket */
} ns_timeline_t;

void ns_timeline_init (ns_timeline_t *tl, double t0, double t1,
                       double total_cores);
void ns_timeline_hook (double a, double b, int64_t used, void *arg);
void ns_timeline_finish (const ns_timeline_t *tl, ns_metrics_t *m);

void ns_report_table (FILE *f, const ns_metrics_t *m, int n);

/* s with < > & " escaped, for XML text and attribute values (SVG, HTML). */
void ns_xml_text (FILE *f, const char *s);

/* CSV, one row per job: header once, then rows of one policy. */
void ns_report_csv_header (FILE *f);
void ns_report_csv_rows (FILE *f, const ns_sim_t *sim, const char *policy,
                         const ns_progtab_t *progs);

/* SVG charts: throughput ratio against `baseline`, mean wait and bounded
 * slowdown per policy, and utilisation over time.  title names the
 * workload. */
int ns_report_svg (FILE *f, const ns_metrics_t *m, int n, const char *title,
                   const char *baseline);

#endif /* !NODESHARE_REPORT_H */
