/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jobmemo.h - what the select plugin remembers about each Slurm job
 *
 * slurmctld asks the select plugin about the same pending job many times
 * (every scheduling pass, every backfill test).  Per job id the plugin
 * keeps: the program the job runs (resolved once, because resolving may
 * read the batch script from disk), the shape it wrote into the job's
 * details for a split (so it can undo it when the job did not start), and
 * a hash of the decision it last logged (so the log gets one line per
 * decision, not one per scheduling pass).
 *
 * Pure C, no Slurm headers: entries in a dense array found through the
 * id map of model/nsutil.h.  Entry pointers stay valid until the next
 * ns_jobmemo_get() that adds an entry, or the next remove or sweep.
 */
#ifndef NODESHARE_JOBMEMO_H
#define NODESHARE_JOBMEMO_H

#include <stdint.h>

#include "progtab.h"

typedef struct ns_jobmemo ns_jobmemo_t;

typedef struct {
    uint32_t job_id;

    /* Program identity. */
    int resolved;          /* program/idsource are valid */
    int idsource;          /* ns_idsource_t that named it */
    char program[NS_PROGRAM_NAME_MAX]; /* "" = unknown */

    /* Shape written into the job's details for a split. */
    int applied;
    uint32_t orig_min_nodes;
    uint32_t orig_max_nodes;
    uint32_t orig_pn_min_cpus;
    uint16_t orig_ntasks_per_node;
    uint32_t set_min_nodes;
    uint32_t set_pn_min_cpus;
    uint16_t set_ntasks_per_node;
    uint64_t orig_pn_min_memory;   /* --mem per node, split over a stripe */
    uint64_t set_pn_min_memory;

    /* How the job was placed, for the model once it runs. */
    int placed;            /* flags below are known */
    int flags;             /* NS_JOB_* it runs with */

    uint64_t logged;       /* ns_fnv1a_str() of the last logged line */
    unsigned gen;          /* sweep generation that last saw the job */
} ns_jobinfo_t;

/* NULL with errno ENOMEM. */
ns_jobmemo_t *ns_jobmemo_create (void);
/* Accepts NULL; preserves errno. */
void ns_jobmemo_destroy (ns_jobmemo_t *m);

/* The entry of job_id, or NULL (errno ENOENT) when there is none. */
ns_jobinfo_t *ns_jobmemo_find (ns_jobmemo_t *m, uint32_t job_id);
/* The entry of job_id, added zeroed (job_id set) when new; NULL with errno
 * ENOMEM, or EINVAL for a NULL memo or job id 0. */
ns_jobinfo_t *ns_jobmemo_get (ns_jobmemo_t *m, uint32_t job_id);
/* 0, or -1 with errno ENOENT. */
int ns_jobmemo_remove (ns_jobmemo_t *m, uint32_t job_id);
int ns_jobmemo_count (const ns_jobmemo_t *m);

/* Forget every resolved program (the identity rules changed). */
void ns_jobmemo_forget_programs (ns_jobmemo_t *m);
/* Remove every entry whose gen differs from gen (jobs that left
 * slurmctld); returns how many were removed. */
int ns_jobmemo_sweep (ns_jobmemo_t *m, unsigned gen);

#endif /* !NODESHARE_JOBMEMO_H */
