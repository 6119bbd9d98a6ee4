/* SPDX-License-Identifier: GPL-2.0-or-later */
/* history.c - job histories from sacct dumps (history.h) */

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "hostlist.h"
#include "nsutil.h"
#include "workload.h"

#define MAX_NODES_PER_JOB 65536

struct ns_history {
    ns_progtab_t *nodes;        /* node names */
    ns_learn_job_t *jobs;
    int njobs, capjobs;
    int *ids, *cores;           /* node ids and cores of all jobs */
    int nids, capids, capcores;
    int observed, context;
    uint64_t bad[NS_HIST_NKINDS];
    int64_t bad_line[NS_HIST_NKINDS];
    char bad_first[NS_HIST_NKINDS][200];
    struct ns_trace_counts counts;
};

static const char *bad_names[NS_HIST_NKINDS] = {
    [NS_HIST_NO_NODELIST] = "no NodeList",
    [NS_HIST_BAD_NODELIST] = "NodeList does not parse",
    [NS_HIST_NNODES] = "NodeList and NNodes disagree",
    [NS_HIST_NO_START] = "no Start",
    [NS_HIST_FEW_CPUS] = "fewer AllocCPUS than nodes",
};

const char *ns_history_bad_name (int k)
{
    return k >= 0 && k < NS_HIST_NKINDS ? bad_names[k] : "?";
}

struct expand_ctx {
    ns_history_t *h;
    int n;
    ns_error_t *err;
};

static int add_node (const char *name, void *arg)
{
    struct expand_ctx *x = arg;
    ns_history_t *h = x->h;
    int id = ns_progtab_intern (h->nodes, name, x->err);
    if (id < 0)
        return -1;
    if (ns_grow (&h->ids, &h->capids, h->nids + 1, sizeof (int), 1024) < 0
        || ns_grow (&h->cores, &h->capcores, h->nids + 1, sizeof (int),
                    1024) < 0)
        return ns_error_set (x->err, ENOMEM, "out of memory");
    h->ids[h->nids++] = id;
    x->n++;
    return 0;
}

static void bad (ns_history_t *h, int kind, int64_t line, const char *fmt,
                 ...) __attribute__ ((format (printf, 4, 5)));
static void bad (ns_history_t *h, int kind, int64_t line, const char *fmt,
                 ...)
{
    if (h->bad[kind]++ == 0) {
        va_list ap;
        va_start (ap, fmt);
        vsnprintf (h->bad_first[kind], sizeof (h->bad_first[kind]), fmt, ap);
        va_end (ap);
        h->bad_line[kind] = line;
    }
}

void ns_history_destroy (ns_history_t *h)
{
    if (!h)
        return;
    int saved = errno;
    ns_progtab_destroy (h->nodes);
    free (h->jobs);
    free (h->ids);
    free (h->cores);
    free (h);
    errno = saved;
}

ns_history_t *ns_history_read (const char *path, const ns_identity_t *id,
                               ns_progtab_t *progs, ns_error_t *err)
{
    ns_trace_t *t = ns_trace_open (path, NS_TRACE_SACCT, 0, err);
    if (!t)
        return NULL;
    ns_history_t *h = calloc (1, sizeof (*h));
    if (!h || !(h->nodes = ns_progtab_create ())) {
        ns_error_set (err, ENOMEM, "%s: out of memory", path);
        goto fail;
    }
    ns_tjob_t j;
    int rc;
    /* Node ids of a job are ids[first ..]: kept as offsets while the
     * arrays grow, turned into pointers at the end. */
    while ((rc = ns_trace_next (t, &j, err)) == 1) {
        if (!j.nodelist[0]) {
            bad (h, NS_HIST_NO_NODELIST, j.line, "job %lld has no NodeList",
                 (long long)j.id);
            continue;
        }
        if (j.wait < 0) {
            bad (h, NS_HIST_NO_START, j.line, "job %lld has no Start",
                 (long long)j.id);
            continue;
        }
        int first = h->nids;
        ns_error_t herr;
        struct expand_ctx x = { .h = h, .err = &herr };
        if (ns_hostlist_expand (j.nodelist, MAX_NODES_PER_JOB, add_node, &x,
                                &herr)
            != 0) {
            h->nids = first;
            if (errno == ENOMEM) {
                ns_error_set (err, ENOMEM, "%s: out of memory", path);
                goto fail;
            }
            bad (h, NS_HIST_BAD_NODELIST, j.line, "job %lld: %s",
                 (long long)j.id, herr.text);
            continue;
        }
        if (j.nodes > 0 && j.nodes != x.n) {
            bad (h, NS_HIST_NNODES, j.line, "job %lld: NNodes %d but NodeList "
                 "'%.60s' names %d", (long long)j.id, j.nodes, j.nodelist,
                 x.n);
            h->nids = first;
            continue;
        }
        if (j.procs < x.n) {
            bad (h, NS_HIST_FEW_CPUS, j.line, "job %lld: %d CPUs on %d nodes",
                 (long long)j.id, j.procs, x.n);
            h->nids = first;
            continue;
        }
        /* A node named twice holds the job once. */
        int dup = 0;
        for (int a = first; a < h->nids && !dup; a++)
            for (int b = first; b < a && !dup; b++)
                dup = h->ids[a] == h->ids[b];
        if (dup) {
            bad (h, NS_HIST_BAD_NODELIST, j.line, "job %lld: NodeList "
                 "'%.60s' names a node twice", (long long)j.id, j.nodelist);
            h->nids = first;
            continue;
        }
        for (int k = 0; k < x.n; k++)
            h->cores[first + k] = j.procs / x.n + (k < j.procs % x.n);
        if (ns_grow (&h->jobs, &h->capjobs, h->njobs + 1, sizeof (*h->jobs),
                     1024) < 0) {
            ns_error_set (err, ENOMEM, "%s: out of memory", path);
            goto fail;
        }
        int observe = j.status == NS_TJOB_COMPLETED;
        h->jobs[h->njobs++] = (ns_learn_job_t){
            .program = ns_workload_program (id, progs, &j),
            .start = (double)(j.submit + j.wait),
            .end = (double)(j.submit + j.wait + j.run),
            .nnodes = x.n,
            .nodes = (const int *)(intptr_t)first,
            .context_only = !observe,
        };
        if (observe)
            h->observed++;
        else
            h->context++;
    }
    if (rc < 0)
        goto fail;
    for (int i = 0; i < h->njobs; i++) {
        intptr_t first = (intptr_t)h->jobs[i].nodes;
        h->jobs[i].nodes = h->ids + first;
        h->jobs[i].cores = h->cores + first;
    }
    h->counts = *ns_trace_skips (t);
    ns_trace_close (t);
    return h;
fail:
    ns_trace_close (t);
    ns_history_destroy (h);
    return NULL;
}

const ns_learn_job_t *ns_history_jobs (const ns_history_t *h, int *n)
{
    *n = h->njobs;
    return h->jobs;
}

int ns_history_nnodes (const ns_history_t *h)
{
    return ns_progtab_count (h->nodes);
}

int ns_history_observed (const ns_history_t *h)
{
    return h->observed;
}

int ns_history_context (const ns_history_t *h)
{
    return h->context;
}

uint64_t ns_history_bad (const ns_history_t *h, int k, int64_t *line,
                         const char **first)
{
    if (k < 0 || k >= NS_HIST_NKINDS)
        return 0;
    if (line)
        *line = h->bad_line[k];
    if (first)
        *first = h->bad_first[k];
    return h->bad[k];
}

const struct ns_trace_counts *ns_history_counts (const ns_history_t *h)
{
    return &h->counts;
}
