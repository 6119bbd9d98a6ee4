/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracejobs.h - a trace read into the simulated jobs of a replay: each
 * job with its program (sim/workload.h) and, on a machine of a
 * slurm.conf, its partition's index; with what the trace says of itself
 * (header, lines skipped, the waits it recorded).
 */
#ifndef NODESHARE_TRACEJOBS_H
#define NODESHARE_TRACEJOBS_H

#include <stdint.h>
#include <stdio.h>

#include "engine.h"
#include "identity.h"
#include "nserror.h"
#include "progtab.h"
#include "slurmconf.h"
#include "trace.h"

typedef struct {
    ns_simjob_t *jobs;          /* in trace order; the caller frees it */
    int64_t njobs;
    int64_t jobs_read;          /* jobs the reader gave (kept or not) */
    struct ns_trace_counts counts;
    struct ns_trace_header header;
    double recorded_wait_sum;   /* over the jobs with a recorded wait */
    int64_t recorded_wait_n;
    /* with a machine: jobs naming a partition it lacks, the first name */
    int64_t unknown_parts;
    char first_unknown_part[NS_TJOB_PROGRAM_MAX];
} ns_tracejobs_t;

/* What to read and how. */
typedef struct {
    const char *path;
    ns_trace_format_t format;
    int strict;                 /* NS_TRACE_STRICT */
    int64_t max_jobs;           /* 0: all */
    const ns_identity_t *identity;  /* program names (NULL: as read) */
    ns_progtab_t *progs;        /* programs are added to it */
    const ns_sconf_t *machine;  /* NULL: no partitions */
} ns_tracejobs_opts_t;

/* Read o->path into tj (zeroed first).  -1 with err set: it cannot be
 * read, a line is malformed (strict), out of memory, or no job is usable;
 * tj then holds what was read (free tj->jobs). */
int ns_tracejobs_load (ns_tracejobs_t *tj, const ns_tracejobs_opts_t *o,
                       ns_error_t *err);

/* Put tj's jobs in order of submission, then of trace id.  A trace is
 * usually in that order already: it is then a pass of comparisons. */
void ns_tracejobs_sort (ns_tracejobs_t *tj);

/* What was read and the machine it replays on, above a replay's table:
 * "TRACE: N jobs read, M used, K lines skipped; ..." and a line per
 * reason jobs were skipped, with their first lines.  machine: the
 * slurm.conf's (its partitions and memory), or NULL for nodes x cores;
 * nodes_from: where the machine's size came from. */
void ns_tracejobs_print (FILE *f, const ns_tracejobs_t *tj,
                         const char *trace, const ns_sconf_t *machine,
                         int nodes, int cores, int64_t total_cores,
                         const char *nodes_from);

#endif /* !NODESHARE_TRACEJOBS_H */
