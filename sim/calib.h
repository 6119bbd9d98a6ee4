/* SPDX-License-Identifier: GPL-2.0-or-later */
/* calib.h - nodeshare-calibrate's experiment without Slurm: the programs
 * and their job scripts (arguments or a --list file), the plan of runs
 * (packed, striped alone, striped beside a co-tenant; what --have gives
 * left out), its cost, the sbatch wrappers' text, and the figures of the
 * measured runs (ratios of run times, means over the repeats with their
 * standard errors) as the JSON nodeshare-calibrate writes.
 *
 * Submitting and watching the jobs is cmd/calib_run.c's.  Functions that
 * can fail return -1 (or NULL) and fill err with the message the command
 * prints after "nodeshare-calibrate: ".
 */
#ifndef NODESHARE_CALIB_H
#define NODESHARE_CALIB_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include <json-c/json.h>

#include "nsconfig.h"
#include "nserror.h"

#define NS_CALIB_MAX_PROGS 64
#define NS_CALIB_MAX_REPEATS 100
#define NS_CALIB_NAME_MAX 127

enum ns_calib_shape { NS_CALIB_PACKED, NS_CALIB_STRIPED, NS_CALIB_BESIDE };

/* Where a run is: planned, its co-tenant submitted (beside), the measured
 * job submitted, its time read. */
enum ns_calib_state {
    NS_CALIB_PLANNED,
    NS_CALIB_FILLER,
    NS_CALIB_RUNNING,
    NS_CALIB_DONE,
};

struct ns_calib_prog {
    char name[NS_CALIB_NAME_MAX + 1];
    char script[PATH_MAX];          /* absolute */
    char job[PATH_MAX];             /* WORKDIR/NAME.job: the script's copy */
    char wrap[PATH_MAX];            /* WORKDIR/NAME.sbatch: runs it once */
    char fill[PATH_MAX];            /* WORKDIR/NAME.filler: again and again */
};

struct ns_calib_run {
    int p;                          /* index in progs */
    enum ns_calib_shape shape;
    int q;                          /* NS_CALIB_BESIDE: the co-tenant */
    int rep;                        /* 1..repeats */
    enum ns_calib_state st;
    long job;
    long filler;
    char nodes[256];                /* of the filler */
    double secs;                    /* the measured run time */
    char start[32], end[32];        /* squeue's, once the job ended */
};

/* One experiment.  The caller sets repeats, minutes, nodes and cores
 * before ns_calib_plan (); the rest is filled by the functions below. */
typedef struct {
    int repeats;                    /* runs of each shape */
    int minutes;                    /* time limit of every job */
    int nodes;                      /* nodes of a packed run */
    int cores;                      /* of one node, even */
    struct ns_calib_prog progs[NS_CALIB_MAX_PROGS];
    int nprogs;
    int beside[NS_CALIB_MAX_PROGS]; /* 1: measure every program beside it */
    struct ns_calib_run *runs;
    int nruns;
    char runid[32];
    char workdir[PATH_MAX];         /* absolute, once prepared */
} ns_calib_t;

/* Frees c's runs (not c). */
void ns_calib_free (ns_calib_t *c);

/* "packed", "striped", "beside". */
const char *ns_calib_shape_name (enum ns_calib_shape s);

/* The index of the program NAME, or -1. */
int ns_calib_find (const ns_calib_t *c, const char *name);

/* Adds program NAME run by SCRIPT, which must be readable and start with
 * "#!"; WHERE names the source in messages.  0, or -1 with err. */
int ns_calib_add (ns_calib_t *c, const char *name, const char *script,
                  const char *where, ns_error_t *err);

/* Adds SCRIPT as the program of its file name up to the first '.'. */
int ns_calib_add_script (ns_calib_t *c, const char *script, ns_error_t *err);

/* Adds the "PROGRAM SCRIPT" lines of PATH ('#' starts a comment); at
 * least one is needed.  0, or -1 with err. */
int ns_calib_read_list (ns_calib_t *c, const char *path, ns_error_t *err);

/* Plans the runs needed, repeat after repeat (the first repeat of
 * everything first, so that a plan cut short still has every figure
 * once): per program packed (unless HAVE gives its spread_speedup),
 * striped (if any of its figures is wanted) and beside each co-tenant Q
 * with beside[Q] (unless HAVE gives that slowdown).  HAVE may be NULL.
 * 0, or -1 with err (out of memory). */
int ns_calib_plan (ns_calib_t *c, ns_config_t *have, ns_error_t *err);

/* Core-hours of R at its time limit: packed nodes x cores, striped and
 * beside twice the nodes (whole nodes; beside, half of each for the
 * co-tenant). */
double ns_calib_run_cost (const ns_calib_t *c, const struct ns_calib_run *r);

/* Jobs of R: 2 beside (the co-tenant), else 1. */
int ns_calib_run_jobs (const struct ns_calib_run *r);

/* sbatch's -N and --ntasks-per-node of R as text. */
void ns_calib_shape_args (const ns_calib_t *c, const struct ns_calib_run *r,
                          char *nodes, size_t nsz, char *tpn, size_t tsz);

/* The plan as a table and its total on F; returns the total core-hours. */
double ns_calib_print_plan (const ns_calib_t *c, FILE *f);

/* The total core-hours of the plan. */
double ns_calib_cost (const ns_calib_t *c);

/* "lmp packed, repeat 2" or "lmp beside abq, repeat 2", in buf. */
const char *ns_calib_run_label (const ns_calib_t *c,
                                const struct ns_calib_run *r, char *buf,
                                size_t n);

/* The #SBATCH lines of SCRIPT's header (after "#!", up to the first line
 * that is not a comment) without the shape options, into out.  0, or -1
 * with err (unreadable, or longer than size). */
int ns_calib_sbatch_header (const char *script, char *out, size_t size,
                            ns_error_t *err);

/* Sets the paths of program i in c->workdir (job, wrap, fill). */
void ns_calib_prog_paths (ns_calib_t *c, int i);

/* The text of program i's wrapper (runs the job once and writes its
 * start, end and status to WORKDIR/times/JOBID) and of its filler (runs
 * it again and again), with HEADER's #SBATCH lines. */
void ns_calib_wrapper_text (const ns_calib_t *c, int i, const char *header,
                            char *text, size_t size);
void ns_calib_filler_text (const ns_calib_t *c, int i, const char *header,
                           char *text, size_t size);

/* { "programs": ..., "learned": ... } of the measured runs, figures with
 * 3 decimals; BY is "learned"'s "by" (the program and its version).  The
 * caller puts the object. */
json_object *ns_calib_figures (const ns_calib_t *c, const char *by);

/* ROOT's text (pretty, spaced, no escaped slashes) and a newline to PATH,
 * or stdout if NULL.  0, or -1 with err. */
int ns_calib_write (json_object *root, const char *path, ns_error_t *err);

#endif /* !NODESHARE_CALIB_H */
