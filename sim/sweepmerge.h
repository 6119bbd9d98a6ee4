/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sweepmerge.h - a sweep's results merged: each cell done (its metrics
 * document, sim/metricsdoc.h), failed (its error) or not run, written as
 * one table, one JSON document and one SVG chart.  Nothing in them depends
 * on where or when the cells ran.
 */
#ifndef NODESHARE_SWEEPMERGE_H
#define NODESHARE_SWEEPMERGE_H

#include <json-c/json.h>

#include "sweep.h"

enum { NS_CELL_DONE, NS_CELL_FAILED, NS_CELL_MISSING };

#define NS_SWEEP_MERGE_POLICIES 64

typedef struct {
    const ns_sweep_t *sw;
    const char *file;       /* the sweep file, as the JSON names it */
    int n;                  /* sw->ncells */
    int *state;             /* NS_CELL_* */
    json_object **result;   /* NS_CELL_DONE: the cell's result */
    char **error;           /* NS_CELL_FAILED: one line */
    ns_sweep_cell_t *cells;
    int done, failed, missing;
    const char *policies[NS_SWEEP_MERGE_POLICIES];  /* in order seen */
    int npolicies;
} ns_sweep_merged_t;

/* Every cell of sw, not run; -1 with errno ENOMEM.  file is kept, not
 * copied. */
int ns_sweep_merged_init (ns_sweep_merged_t *mg, const ns_sweep_t *sw,
                          const char *file);

/* Cell i is done with result (taken over) / failed with error (taken
 * over, cut at its first newline). */
void ns_sweep_merged_done (ns_sweep_merged_t *mg, int i, json_object *result);
void ns_sweep_merged_failed (ns_sweep_merged_t *mg, int i, char *error);

/* Frees what mg holds (not mg); safe on a zeroed mg. */
void ns_sweep_merged_free (ns_sweep_merged_t *mg);

/* The table, the JSON document, the SVG chart; NULL if out of memory.
 * The caller frees the texts and puts the JSON. */
char *ns_sweep_merged_table (const ns_sweep_merged_t *mg);
json_object *ns_sweep_merged_json (const ns_sweep_merged_t *mg);
char *ns_sweep_merged_svg (const ns_sweep_merged_t *mg);

/* A result's "cell": index, name, key, trace, machine (its name and size
 * if full, else its label), vary.  NULL if out of memory. */
json_object *ns_sweep_cell_json (const ns_sweep_t *sw,
                                 const ns_sweep_cell_t *c, const char *key,
                                 int full);

#endif /* !NODESHARE_SWEEPMERGE_H */
