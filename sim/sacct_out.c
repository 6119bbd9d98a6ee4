/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sacct_out.c - simulated jobs as a sacct --parsable2 dump (sacct_out.h) */
#define _DEFAULT_SOURCE /* gmtime_r */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sacct_out.h"

static void put_time (FILE *f, double t)
{
    time_t s = (time_t)llround (t);
    struct tm tm;
    char buf[32];
    if (!gmtime_r (&s, &tm)
        || strftime (buf, sizeof (buf), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
        snprintf (buf, sizeof (buf), "%lld", (long long)s);
    fputs (buf, f);
}

static int cmp_int (const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* PREFIX[1-2,5] (or PREFIX3 for one node). */
static void put_nodelist (FILE *f, const ns_share_t *sh, int n,
                          const char *prefix, int *scratch)
{
    for (int i = 0; i < n; i++)
        scratch[i] = sh[i].node + 1;
    qsort (scratch, n, sizeof (int), cmp_int);
    if (n == 1) {
        fprintf (f, "%s%d", prefix, scratch[0]);
        return;
    }
    fprintf (f, "%s[", prefix);
    for (int i = 0; i < n; ) {
        int k = i;
        while (k + 1 < n && scratch[k + 1] == scratch[k] + 1)
            k++;
        fprintf (f, i ? ",%d" : "%d", scratch[i]);
        if (k > i)
            fprintf (f, "-%d", scratch[k]);
        i = k + 1;
    }
    fputc (']', f);
}

int ns_report_sacct (FILE *f, const ns_sim_t *sim, const ns_progtab_t *progs,
                     double epoch, const char *prefix)
{
    int n = ns_sim_njobs (sim);
    int *scratch = malloc (sizeof (int) * (ns_cluster_nnodes (
                                               ns_sim_cluster (sim)) + 1));
    if (!scratch)
        return -1;
    fputs ("JobIDRaw|JobName|Submit|Start|End|ElapsedRaw|Timelimit|AllocCPUS|"
           "NNodes|NodeList|State\n", f);
    for (int i = 0; i < n; i++) {
        const ns_simjob_t *j = ns_sim_job (sim, i);
        const ns_simresult_t *r = ns_sim_result (sim, i);
        int nsh;
        const ns_share_t *sh = ns_sim_job_shares (sim, i, &nsh);
        if (r->state != NS_SJ_DONE || !sh || nsh < 1)
            continue;
        int cpus = 0;
        for (int k = 0; k < nsh; k++)
            cpus += sh[k].cores;
        const char *name = j->program >= 0 && progs
                           ? ns_progtab_name (progs, j->program) : NULL;
        fprintf (f, "%llu|%s|", (unsigned long long)j->id,
                 name ? name : "job");
        put_time (f, epoch + j->submit);
        fputc ('|', f);
        put_time (f, epoch + r->start);
        fputc ('|', f);
        put_time (f, epoch + r->end);
        fprintf (f, "|%lld|", llround (r->end) - llround (r->start));
        if (j->req_time > 0)
            fprintf (f, "%lld", (long long)ceil (j->req_time / 60.0));
        else
            fputs ("UNLIMITED", f);
        fprintf (f, "|%d|%d|", cpus, nsh);
        put_nodelist (f, sh, nsh, prefix, scratch);
        fprintf (f, "|%s\n", r->over_limit ? "TIMEOUT" : "COMPLETED");
    }
    free (scratch);
    return ferror (f) ? -1 : 0;
}
