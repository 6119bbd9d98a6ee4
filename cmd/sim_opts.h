/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim_opts.h - nodeshare-sim's command line (cmd/nodeshare-sim.1)
 *
 * Every option and how it is checked against the others; what they make
 * run is cmd/nodeshare_sim.c's.
 */
#ifndef NODESHARE_SIM_OPTS_H
#define NODESHARE_SIM_OPTS_H

#include <stdint.h>

#include "closed.h"
#include "engine.h"
#include "trace.h"

#define MAX_LOADS 16

struct opts {
    const char *trace;
    const char *config;
    const char *policies;
    const char *baseline;   /* pack, exclusive; NULL: by mode */
    int jobs;               /* threads running policies (--jobs) */
    ns_trace_format_t format;
    ns_backfill_t backfill;
    int bf_depth;
    ns_overrun_t overrun;
    int nodes, cores;
    int strict;
    int check;
    int quiet;
    int replay_all;         /* --replay-all */
    int assign_classes;
    int64_t max_jobs;
    uint64_t seed;
    double loads[MAX_LOADS];
    int nloads;
    double horizon;
    ns_mix_t mix;           /* --mix */
    int mix_given;
    const char *json, *csv, *svg;
    const char *sacct;      /* --sacct FILE: the history of one policy */
    const char *compare;    /* --compare-placements SACCT_DUMP */
    const char *slurm_conf; /* --slurm-conf FILE: the machine */
    int one_node_first;     /* --slurm-release 26.05 and later */
    /* --sweep FILE (cmd/sim_sweep.c) */
    const char *sweep;
    int sweep_slurm, sweep_collect;
    int sweep_cell;         /* --cell I; -1 if not given */
    const char *sbatch_args;
    const char *not_sweep;  /* an option a sweep file sets instead */
};

/* Parse argv into o (defaults first).  --help and --version print and
 * exit 0; 0, or -1 with the error said on stderr (exit 2). */
int sim_parse_opts (int argc, char **argv, struct opts *o);

#endif /* !NODESHARE_SIM_OPTS_H */
