/* SPDX-License-Identifier: GPL-2.0-or-later */
/* history.h - a cluster's job history from a sacct --parsable2 dump, as
 * model/learn.h takes it: program, start, end, nodes and cores per node.
 *
 * Node names come from NodeList (Slurm host lists, model/hostlist.h) and
 * are local to one history.  A job's AllocCPUS are spread evenly over its
 * nodes (sacct records only the total).  Jobs that did not complete are
 * co-tenants only.  Jobs that cannot be placed on nodes are left out and
 * counted by kind (never fatal).
 */
#ifndef NODESHARE_HISTORY_H
#define NODESHARE_HISTORY_H

#include <stdint.h>

#include "identity.h"
#include "learn.h"
#include "nserror.h"
#include "progtab.h"
#include "trace.h"

/* Why a job of the dump was left out. */
enum {
    NS_HIST_NO_NODELIST,    /* "no NodeList" */
    NS_HIST_BAD_NODELIST,   /* "NodeList does not parse" */
    NS_HIST_NNODES,         /* "NodeList and NNodes disagree" */
    NS_HIST_NO_START,       /* "no Start" */
    NS_HIST_FEW_CPUS,       /* "fewer AllocCPUS than nodes" */
    NS_HIST_NKINDS
};

typedef struct ns_history ns_history_t;

/* Read path ("-" stdin; plain or gzip).  Programs are JobName mapped
 * through id (may be NULL), interned in progs.  NULL with err (and
 * errno) when the dump cannot be read at all: not found, not a sacct
 * dump, a header without the needed fields, truncated gzip. */
ns_history_t *ns_history_read (const char *path, const ns_identity_t *id,
                               ns_progtab_t *progs, ns_error_t *err);
void ns_history_destroy (ns_history_t *h);

/* The jobs, valid while h lives. */
const ns_learn_job_t *ns_history_jobs (const ns_history_t *h, int *n);
int ns_history_nnodes (const ns_history_t *h);
int ns_history_observed (const ns_history_t *h);     /* COMPLETED */
int ns_history_context (const ns_history_t *h);      /* co-tenants only */

/* Jobs left out of kind k, the line of the first and its message. */
uint64_t ns_history_bad (const ns_history_t *h, int k, int64_t *line,
                         const char **first);
const char *ns_history_bad_name (int k);

/* The reader's own counters (lines skipped by reason: trace.h). */
const struct ns_trace_counts *ns_history_counts (const ns_history_t *h);

#endif /* !NODESHARE_HISTORY_H */
