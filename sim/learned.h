/* SPDX-License-Identifier: GPL-2.0-or-later */
/* learned.h - the fitted figures as nodeshare-learn prints them: the
 * "programs" section of nodeshare.json with the evidence under "learned",
 * and the table of --table (nodeshare-learn and nodeshare-report). */
#ifndef NODESHARE_LEARNED_H
#define NODESHARE_LEARNED_H

#include <stdio.h>

#include <json-c/json.h>

#include "learn.h"
#include "progtab.h"

struct ns_learned_input {
    const char *prog;           /* "nodeshare-learn": "by" in "learned" */
    int notes_prefix;           /* notes start "PROG: " */
    int cores;                  /* node size */
    int histories;              /* dumps read */
    const ns_learn_opts_t *lo;
    FILE *notes;                /* "not learned: ..." lines, or NULL */
};

/* After ns_learn_fit (): { "programs": ..., "learned": ... }.  Counts
 * the figures learned and those left neutral.  NULL if out of memory. */
json_object *ns_learned_json (const ns_learn_t *l, const ns_progtab_t *progs,
                              const struct ns_learned_input *in,
                              int *nlearned, int *nleft);

/* After ns_learn_fit (): how many figures of the programs in progs that
 * some job was exposed to (n > 0) are not learned for the reason why. */
int ns_learned_count (const ns_learn_t *l, const ns_progtab_t *progs,
                      ns_learn_why_t why);

/* A figure as JSON with 3 decimals, trailing zeros off (1.12, not
 * 1.1200000000000001), and a standard error with 2 significant digits:
 * as nodeshare-learn and nodeshare-calibrate write them. */
json_object *ns_learned_num3 (double v);
json_object *ns_learned_num_se (double v);
/* { "n": N, "se": SE } (null when SE is NaN): the evidence of a figure. */
json_object *ns_learned_evidence (int n, double se);

/* The JSON text as nodeshare-learn writes it (pretty, spaced, no escaped
 * slashes); valid while root lives. */
const char *ns_learned_text (json_object *root);

/* program, figure, value, standard error, jobs (learned figures only). */
int ns_learned_table (const ns_learn_t *l, const ns_progtab_t *progs,
                      FILE *out);

#endif /* !NODESHARE_LEARNED_H */
