/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sweep.h - a sweep file (nodeshare-sim --sweep): its keys and its cells
 *
 * A sweep file is one JSON object (doc/simulator.md, "Sweeps"): traces,
 * machines, values of nodeshare.json keys to vary, the policies run in
 * every cell, replay options, where the results go, and extra sbatch
 * lines.  Its cells are the cartesian product traces x machines x the
 * values of each varied key, numbered in that order (the last key varies
 * fastest), so a cell's index and name depend on the file alone.
 *
 * Pure C and json-c: no Slurm, no running.  cmd/sim_sweep.c runs, submits
 * and merges the cells.
 */
#ifndef NODESHARE_SWEEP_H
#define NODESHARE_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "nserror.h"

/* Longest label of a trace, machine or varied value in a cell name. */
#define NS_SWEEP_LABEL_MAX 32
/* A cell name: index, trace, machine and one label per varied key. */
#define NS_SWEEP_NAME_MAX 256
/* At most this many keys in "vary". */
#define NS_SWEEP_MAX_VARY 16
/* Cells in one sweep, at most (a job array of this many is already far
 * beyond what a cluster's MaxArraySize allows by default). */
#define NS_SWEEP_MAX_CELLS 100000

typedef struct {
    char *raw;                  /* as written in the file */
    char *path;                 /* resolved against the file's directory */
    char label[NS_SWEEP_LABEL_MAX];
} ns_sweep_trace_t;

typedef struct {
    int nodes, cores;           /* 0, 0: the trace header's */
    char *slurm_conf_raw;       /* "slurm_conf" as written, or NULL */
    char *slurm_conf;           /* resolved, or NULL */
    char label[NS_SWEEP_LABEL_MAX];
} ns_sweep_machine_t;

typedef struct {
    char *key;                  /* nodeshare.json path, "programs.LAM.weight" */
    char **values;              /* each value as plain JSON text */
    char (*labels)[NS_SWEEP_LABEL_MAX];
    int nvalues;
} ns_sweep_vary_t;

typedef struct {
    char *src;                  /* the file's name, for messages */
    char *dir;                  /* what relative paths are relative to */
    char *output;               /* results directory, resolved */
    char *config_raw;           /* "config" as written, or NULL (built-in) */
    char *config;               /* resolved, or NULL */
    char **policies;            /* names as given ("all" allowed) */
    int npolicies;              /* 0: all */
    ns_sweep_trace_t *traces;
    int ntraces;
    ns_sweep_machine_t *machines;
    int nmachines;
    ns_sweep_vary_t *vary;
    int nvary;
    /* options: empty string / 0 / -1 mean nodeshare-sim's default */
    char backfill[8];           /* "easy", "none" */
    char overrun[8];            /* "kill", "run" */
    char format[8];             /* "swf", "sacct", "auto" */
    char baseline[16];          /* "pack", "exclusive" */
    int bf_depth;               /* 0: the whole queue */
    int64_t max_jobs;           /* 0: every job */
    int assign_classes;
    int64_t seed;               /* -1: nodeshare-sim's (1) */
    char **sbatch;              /* #SBATCH lines (options, e.g. "-p debug") */
    int nsbatch;
    int ncells;
} ns_sweep_t;

/* What one cell replays: indices into traces, machines, and for each
 * varied key the index of its value (vary_value[k], k < nvary). */
typedef struct {
    int index;
    int trace, machine;
    int vary_value[NS_SWEEP_MAX_VARY];
    char name[NS_SWEEP_NAME_MAX];   /* "003-KTH-SP2-1996-2.1-cln-25x4-..." */
} ns_sweep_cell_t;

/* Parse a sweep file's text (len bytes, not necessarily NUL-terminated;
 * NULs inside are an error).  src
 * names it in messages; dir is the directory relative paths in it are
 * taken from (NULL: the current one).  Every failure is one line "SRC:
 * PATH: expected WHAT, got WHAT" (or "SRC:LINE:COL: ..." for JSON
 * syntax) in err, and NULL. */
ns_sweep_t *ns_sweep_parse (const char *text, size_t len, const char *src,
                            const char *dir, ns_error_t *err);

/* Read and parse PATH; relative paths in it are relative to its
 * directory, and the default output is PATH without its extension plus
 * ".out". */
ns_sweep_t *ns_sweep_load (const char *path, ns_error_t *err);

void ns_sweep_free (ns_sweep_t *sw);

/* Cell i (0 <= i < ncells) into *cell; -1 if out of range. */
int ns_sweep_cell (const ns_sweep_t *sw, int i, ns_sweep_cell_t *cell);

/* What identifies a cell's results, newly allocated: its trace, machine,
 * varied values, policies and options as written in the file.  A result
 * whose key differs (the file changed) is not the cell's. */
char *ns_sweep_cell_key (const ns_sweep_t *sw, const ns_sweep_cell_t *cell);

/* The cell's nodeshare.json: base_text (the "config" file's text, or the
 * built-in one; base_src names it) with the cell's varied values set at
 * their key paths (missing objects on the way are created).  Newly
 * allocated JSON text, or NULL and err ("SRC: vary.KEY: ..."). */
char *ns_sweep_cell_config (const ns_sweep_t *sw, const ns_sweep_cell_t *cell,
                            const char *base_text, const char *base_src,
                            ns_error_t *err);

#endif /* !NODESHARE_SWEEP_H */
