/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim_sweep.h - nodeshare-sim --sweep: run, submit and merge the cells of
 * a sweep file (the file and its cells: sim/sweep.h) */
#ifndef NODESHARE_SIM_SWEEP_H
#define NODESHARE_SIM_SWEEP_H

typedef enum {
    NS_SWEEP_RUN,       /* every cell not done, on this machine, then merge */
    NS_SWEEP_SLURM,     /* a job array of the cells not done + a collect job */
    NS_SWEEP_COLLECT,   /* merge what is there */
    NS_SWEEP_CELL,      /* one cell (an array task) */
} ns_sweep_mode_t;

struct ns_sweep_args {
    const char *file;
    ns_sweep_mode_t mode;
    int cell;               /* NS_SWEEP_CELL */
    int jobs;               /* cells at once (NS_SWEEP_RUN) */
    int quiet;              /* no progress lines */
    const char *sbatch_args;    /* extra sbatch options, space separated */
    const char *builtin_config; /* nodeshare.json text when none is given */
};

/* Returns the exit status: 0 every cell done (or submitted), 1 a cell
 * failed or is missing (or submission failed), 2 a bad sweep file. */
int ns_sim_sweep_main (const struct ns_sweep_args *a);

#endif /* !NODESHARE_SIM_SWEEP_H */
