/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracejobs.c - a trace read into simulated jobs (sim/tracejobs.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracejobs.h"
#include "workload.h"

/* A job on the machine: its partition by name (sacct) or number (SWF);
 * 0 and counted if the machine lacks it. */
static void partition (ns_tracejobs_t *tj, const ns_tjob_t *j,
                       const ns_sconf_t *m, ns_simjob_t *sj)
{
    if (j->part_name[0]) {
        /* sacct: a job submitted to several partitions lists them all;
         * the first is taken */
        char name[NS_TJOB_PROGRAM_MAX];
        ns_workload_partition (j, name, sizeof (name));
        sj->partition = ns_sconf_part_index (m, name) + 1;
        if (sj->partition == 0 && tj->unknown_parts++ == 0)
            snprintf (tj->first_unknown_part,
                      sizeof (tj->first_unknown_part), "%s", name);
    }
    else if (j->partition >= 1) {
        /* SWF partitions are numbered from 1: the slurm.conf's
         * PartitionName lines in order */
        sj->partition = j->partition <= m->nparts ? j->partition : 0;
        if (sj->partition == 0 && tj->unknown_parts++ == 0)
            snprintf (tj->first_unknown_part,
                      sizeof (tj->first_unknown_part), "number %d",
                      j->partition);
    }
}

static int keep_job (ns_tracejobs_t *tj, const ns_tracejobs_opts_t *o,
                     const ns_tjob_t *j, ns_error_t *err)
{
    if (tj->njobs % 65536 == 0) {
        ns_simjob_t *jobs = realloc (tj->jobs, sizeof (*jobs)
                                     * (size_t)(tj->njobs + 65536));
        if (!jobs)
            return ns_error_set (err, ENOMEM, "out of memory after %lld jobs",
                                 (long long)tj->njobs);
        tj->jobs = jobs;
    }
    ns_simjob_t *sj = &tj->jobs[tj->njobs++];
    *sj = ns_workload_simjob (j, ns_workload_program (o->identity, o->progs,
                                                      j));
    if (o->machine)
        partition (tj, j, o->machine, sj);
    if (j->wait >= 0) {
        tj->recorded_wait_sum += (double)j->wait;
        tj->recorded_wait_n++;
    }
    return 0;
}

int ns_tracejobs_load (ns_tracejobs_t *tj, const ns_tracejobs_opts_t *o,
                       ns_error_t *err)
{
    memset (tj, 0, sizeof (*tj));
    ns_error_t e = { "" };
    ns_trace_t *t = ns_trace_open (o->path, o->format,
                                   o->strict ? NS_TRACE_STRICT : 0, &e);
    if (!t)
        return ns_error_set (err, errno, "%s", e.text);
    ns_tjob_t j;
    int rc;
    while ((rc = ns_trace_next (t, &j, &e)) == 1) {
        tj->jobs_read++;
        if (keep_job (tj, o, &j, &e) < 0) {
            rc = -1;
            break;
        }
        if (o->max_jobs && tj->njobs >= o->max_jobs)
            break;
    }
    tj->counts = *ns_trace_skips (t);
    tj->header = *ns_trace_header (t);
    ns_trace_close (t);
    if (rc < 0)
        return ns_error_set (err, EINVAL, "%s", e.text);
    if (tj->njobs == 0)
        return ns_error_set (err, EINVAL, "%s: no usable job (%llu lines "
                             "skipped)", o->path,
                             (unsigned long long)tj->counts.skipped);
    return 0;
}
