/* SPDX-License-Identifier: GPL-2.0-or-later */
/* calib_run.h - nodeshare-calibrate's runs with Slurm: the nodes' cores
 * from sinfo, the work directory with the job wrappers, and the plan run
 * with sbatch, squeue, sacct and scancel (the plan and the figures:
 * sim/calib.h).  Every failure is said on stderr, as the command's. */
#ifndef NODESHARE_CALIB_RUN_H
#define NODESHARE_CALIB_RUN_H

#include "calib.h"

struct ns_calrun_opts {
    const char *partition;      /* of the jobs, or NULL: Slurm's default */
    const char *workdir;        /* or NULL: ./nodeshare-calibrate.RUN */
    long max_wait;              /* seconds before the jobs are cancelled */
    int quiet;                  /* no progress on stderr */
};

/* The cores of every node of the partition, from sinfo; -1 (said why)
 * when sinfo fails, shows no node or nodes of different sizes. */
int ns_calrun_sinfo_cores (const char *partition);

/* The work directory made (c->workdir, absolute) with times/ and each
 * program's copy, wrapper and filler.  0, or -1 (said why). */
int ns_calrun_prepare (ns_calib_t *c, const struct ns_calrun_opts *o);

/* Every run of the plan submitted and waited for (pairs one at a time),
 * its seconds read.  SIGINT, SIGTERM and SIGHUP, a failed job or the end
 * of max_wait cancel the run's jobs.  0, or -1 (said why). */
int ns_calrun_execute (ns_calib_t *c, const struct ns_calrun_opts *o);

#endif /* !NODESHARE_CALIB_RUN_H */
