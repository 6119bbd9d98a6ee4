/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sacct_out.h - simulated jobs as a sacct --parsable2 dump (the history
 * nodeshare-learn reads: closed-loop validation of the learner) */
#ifndef NODESHARE_SACCT_OUT_H
#define NODESHARE_SACCT_OUT_H

#include <stdio.h>

#include "engine.h"

/* The header line, then one line per job that ran, in job order:
 * JobIDRaw|JobName|Submit|Start|End|ElapsedRaw|Timelimit|AllocCPUS|NNodes|
 * NodeList|State.  Simulated time 0 is `epoch` (Unix seconds); times are
 * UTC, rounded to the second as sacct prints them.  Nodes are named
 * PREFIX1..PREFIXn (node index + 1) as a Slurm host list.  State is
 * COMPLETED, or TIMEOUT for a job over its requested time.  0, or -1 if
 * writing failed. */
int ns_report_sacct (FILE *f, const ns_sim_t *sim, const ns_progtab_t *progs,
                     double epoch, const char *prefix);

#endif /* !NODESHARE_SACCT_OUT_H */
