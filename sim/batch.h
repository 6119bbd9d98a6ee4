/* SPDX-License-Identifier: GPL-2.0-or-later */
/* batch.h - replays of several policies (at several loads) in threads
 *
 * A batch is every policy of a run replaying one trace, or every policy
 * at every load of a closed experiment (sim/closed.h).  Up to `threads`
 * replays run at once; each has its own simulator, and the jobs, model,
 * program table and configurations are only read while they run.  The
 * outputs are those of one thread: each replay's metrics go to a fixed
 * slot (policy k at load l in slot l * npolicies + k) and CSV rows are
 * written in that order.
 *
 * Nothing is printed from a replay's thread but the progress line, on
 * the stream the caller gives (a terminal): a failure is kept with its
 * task and the first one, in slot order, is what ns_batch_run () says.
 */
#ifndef NODESHARE_BATCH_H
#define NODESHARE_BATCH_H

#include <stdint.h>
#include <stdio.h>

#include "closed.h"
#include "engine.h"
#include "nserror.h"
#include "report.h"

typedef struct {
    const ns_simconf_t *confs;  /* per policy: what its simulator gets */
    const char *const *names;   /* per policy: its name in the outputs */
    int npolicies;
    /* A trace replay when nloads is 0, else a closed experiment */
    const double *loads;
    int nloads;
    /* Trace replays: the jobs in order of submission, and the machine's
     * task slots (the utilisation's denominator) */
    const ns_simjob_t *jobs;
    int64_t njobs;
    int64_t total_cores;
    /* Closed experiments: the mix and the simulated time of each run */
    ns_mix_t mix;
    double horizon;
    int threads;                /* replays at once, >= 1 */
    int check;                  /* ns_sim_set_checking () */
    /* Policy k's schedule is twin_of[k]'s replay (-1: its own); NULL:
     * every policy replays (see ns_batch_twins ()) */
    const int *twin_of;
    FILE *csv;                  /* CSV rows (ns_report_csv_rows ()), or NULL */
    FILE *progress;             /* the progress line, or NULL */
    /* --sacct: the jobs of policy `sacct_policy` as sacct would list
     * them, written to `sacct_path` with time 0 at sacct_epoch */
    const char *sacct_path;
    const char *sacct_policy;
    double sacct_epoch;
    const ns_progtab_t *progs;
} ns_batch_t;

/* Trace replays of policies whose schedule is pack's
 * (ns_sim_schedule_is_packs ()) need not run when pack runs too: pack's
 * replay gives their outputs.  Fills twin_of[0 .. npolicies) (-1: its own
 * replay) and, in list, the names of those that are pack's, ", " between
 * them.  Returns how many are. */
int ns_batch_twins (const ns_batch_t *b, int *twin_of, char *list,
                    size_t size);

/* Run the batch: metrics has npolicies x max (1, nloads) slots.  0, or -1
 * with err filled (the first failed task's message). */
int ns_batch_run (const ns_batch_t *b, ns_metrics_t *metrics,
                  ns_error_t *err);

#endif /* !NODESHARE_BATCH_H */
