/* SPDX-License-Identifier: GPL-2.0-or-later */
/* machsize.h - the size of the machine a trace is replayed on: a
 * slurm.conf's nodes, else --nodes and --cores, else what the SWF header
 * says (MaxNodes, MaxProcs); and the jobs a slurm.conf would give all of
 * their nodes' memory.
 */
#ifndef NODESHARE_MACHSIZE_H
#define NODESHARE_MACHSIZE_H

#include <stdint.h>

#include "engine.h"
#include "nserror.h"
#include "slurmconf.h"
#include "trace.h"

typedef struct {
    int nodes;
    int cores;              /* per node; on a slurm.conf the largest */
    int64_t total_cores;    /* the machine's task slots */
} ns_machsize_t;

/* m's size: CPUs per node if it counts CPUs (CR_CPU), else cores. */
void ns_machsize_sconf (const ns_sconf_t *m, ns_machsize_t *out);

/* nodes and cores as given (0: not given), the rest from h: cores is
 * MaxProcs / MaxNodes, nodes MaxNodes (else MaxProcs / cores).  -1 with
 * err naming trace when neither says, when MaxProcs is not a multiple of
 * MaxNodes, or when the header gives no node or over 1,000,000. */
int ns_machsize_header (const struct ns_trace_header *h, int nodes,
                        int cores, const char *trace, ns_machsize_t *out,
                        ns_error_t *err);

/* With memory consumable and no default memory (global or of the job's
 * partition), Slurm gives a job that asks for no memory all the memory of
 * each of its nodes.  How many of jobs[0, n) it is on m; *first: the
 * partition of the first (unchanged if none). */
int64_t ns_machsize_all_memory_jobs (const ns_sconf_t *m,
                                     const ns_simjob_t *jobs, int64_t n,
                                     const char **first);

#endif /* !NODESHARE_MACHSIZE_H */
