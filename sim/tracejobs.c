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
                     ns_workload_memo_t *memo, const ns_tjob_t *j,
                     ns_error_t *err)
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
    *sj = ns_workload_simjob (j, ns_workload_program_memo (memo, o->identity,
                                                           o->progs, j));
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
    ns_workload_memo_t memo;
    ns_workload_memo_init (&memo);
    int rc;
    while ((rc = ns_trace_next (t, &j, &e)) == 1) {
        tj->jobs_read++;
        if (keep_job (tj, o, &memo, &j, &e) < 0) {
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

static int cmp_submit (const void *a, const void *b)
{
    const ns_simjob_t *x = a, *y = b;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

void ns_tracejobs_sort (ns_tracejobs_t *tj)
{
    int64_t k = 1;
    while (k < tj->njobs && cmp_submit (&tj->jobs[k - 1], &tj->jobs[k]) < 0)
        k++;
    if (k < tj->njobs)
        qsort (tj->jobs, tj->njobs, sizeof (ns_simjob_t), cmp_submit);
}

void ns_tracejobs_print (FILE *f, const ns_tracejobs_t *tj,
                         const char *trace, const ns_sconf_t *machine,
                         int nodes, int cores, int64_t total_cores,
                         const char *nodes_from)
{
    if (machine)
        fprintf (f, "%s: %lld jobs read, %lld used, %llu lines skipped; "
                 "%d nodes, %lld %s in all, %d partition%s, memory %s "
                 "(%s)\n", trace, (long long)tj->jobs_read,
                 (long long)tj->njobs,
                 (unsigned long long)tj->counts.skipped, nodes,
                 (long long)total_cores, machine->cr_cpu ? "CPUs" : "cores",
                 machine->nparts, machine->nparts == 1 ? "" : "s",
                 machine->cr_memory ? "allocated" : "not allocated",
                 nodes_from);
    else
        fprintf (f, "%s: %lld jobs read, %lld used, %llu lines skipped; "
                 "%d nodes x %d cores (%s)\n", trace,
                 (long long)tj->jobs_read, (long long)tj->njobs,
                 (unsigned long long)tj->counts.skipped, nodes, cores,
                 nodes_from);
    for (int i = 0; i < NS_SKIP_NREASONS; i++) {
        const struct ns_trace_skip *s = &tj->counts.skip[i];
        if (!s->count)
            continue;
        fprintf (f, "  skipped %llu %s, lines", (unsigned long long)s->count,
                 ns_trace_skip_name (i));
        for (int k = 0; k < NS_TRACE_SKIP_LINES && s->lines[k]; k++)
            fprintf (f, " %lld", (long long)s->lines[k]);
        fprintf (f, "%s\n", s->count > NS_TRACE_SKIP_LINES ? " ..." : "");
    }
    if (tj->recorded_wait_n)
        fprintf (f, "  recorded mean wait in the trace: %.0f s (%lld jobs)\n",
                 tj->recorded_wait_sum / tj->recorded_wait_n,
                 (long long)tj->recorded_wait_n);
}
