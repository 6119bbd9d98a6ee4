/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim_compare.h - nodeshare-sim --compare-placements (see sim_compare.c) */
#ifndef NODESHARE_SIM_COMPARE_H
#define NODESHARE_SIM_COMPARE_H

#include "engine.h"
#include "nsconfig.h"

struct ns_compare_args {
    const char *dump;           /* sacct --parsable2 file, "-" stdin */
    int strict;
    const ns_config_t *cfg;     /* identity patterns */
    ns_progtab_t *progs;
    const ns_interf_t *model;
    ns_policy_t policy;
    const char *policy_name;
    ns_backfill_t backfill;
    int bf_depth;
    int nodes;                  /* 0: highest node number in the dump */
    int cores;                  /* required */
    int check;
    int quiet;                  /* only the total line */
    const char *json;           /* NULL, a file, or "-" */
    FILE *csv;                  /* NULL, or header already written */
};

/* Replay the dump under one policy and compare placements.  Prints the
 * per-job lines and the total on stdout.  0, or -1 after printing
 * "nodeshare-sim: ..." on stderr. */
int ns_compare_main (const struct ns_compare_args *a);

#endif /* !NODESHARE_SIM_COMPARE_H */
