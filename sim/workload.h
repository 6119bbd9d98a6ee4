/* SPDX-License-Identifier: GPL-2.0-or-later */
/* workload.h - a trace's jobs as the simulator, the report, the learner
 * and the comparison take them: one meaning of a job's program, one
 * conversion of a trace job into a simulated job.
 *
 * A job's program is, in this order: its name (sacct JobName, or the
 * name an SWF trace's executable number was given), else "exeN" (an SWF
 * executable number N without a name), else "userN" (the job's user N:
 * a user's jobs stand for one program), else NS_PROGRAM_UNKNOWN.  The
 * name is then mapped through the site's identity rules
 * (nodeshare.json "identity", model/identity.h) and interned.
 */
#ifndef NODESHARE_WORKLOAD_H
#define NODESHARE_WORKLOAD_H

#include <stddef.h>

#include "engine.h"
#include "identity.h"
#include "progtab.h"
#include "trace.h"

/* The job's program, as above: a progtab id of progs, or
 * NS_PROGRAM_UNKNOWN (no name, executable or user; or a name progs
 * cannot take).  id may be NULL (names unmapped). */
int ns_workload_program (const ns_identity_t *id, ns_progtab_t *progs,
                         const ns_tjob_t *j);

/* ns_workload_program () for the jobs of one trace, remembered by
 * executable or user number: a trace has few of them, and a job without
 * a name then costs no formatting and no lookup of its name.  The
 * answers are ns_workload_program ()'s, for the id and progs the memo is
 * used with (always the same ones). */
#define NS_WORKLOAD_MEMO 256
typedef struct {
    struct {
        int kind;       /* 0 empty, 1 executable, 2 user */
        int num, prog;
    } slot[NS_WORKLOAD_MEMO];
} ns_workload_memo_t;

void ns_workload_memo_init (ns_workload_memo_t *m);
int ns_workload_program_memo (ns_workload_memo_t *m,
                              const ns_identity_t *id, ns_progtab_t *progs,
                              const ns_tjob_t *j);

/* The trace job as a simulated job of that program: submit, run and
 * requested time, tasks, recorded wait and memory.  Its partition is 0
 * (the default one): the caller sets it from its slurm.conf. */
ns_simjob_t ns_workload_simjob (const ns_tjob_t *j, int program);

/* The job's partition name: the first of sacct's comma-separated list
 * (a job submitted to several partitions lists them all), into buf;
 * "" when it has none. */
void ns_workload_partition (const ns_tjob_t *j, char *buf, size_t size);

#endif
