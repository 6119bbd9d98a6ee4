/* SPDX-License-Identifier: GPL-2.0-or-later */
/* learn.c - exposures from job histories, the online record of
 * allocations, the learning state as JSON, the fitted figures and why a
 * figure was not learned (learn.h; the fit itself: learnfit.c). */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn.h"
#include "learn_int.h"

#include <json-c/json.h>

#include "nsutil.h"
#include "progtab.h"

struct alloc {
    uint64_t id;
    int program;
    double start, end;  /* end < 0: live */
    int n;
    int off;            /* nodes at apool[off], cores at apool[off + n] */
    int observable;
};

void ns_learn_opts_default (ns_learn_opts_t *o)
{
    o->min_observations = 5;
    o->min_exposure = 0.05;
    o->max_se = 0.05;
}

ns_learn_t *ns_learn_create (int node_cores, ns_error_t *err)
{
    if (node_cores < 1) {
        ns_error_set (err, EINVAL, "cores per node must be at least 1, "
                      "not %d", node_cores);
        return NULL;
    }
    ns_learn_t *l = calloc (1, sizeof (*l));
    if (!l) {
        ns_error_set (err, ENOMEM, "out of memory");
        return NULL;
    }
    l->node_cores = node_cores;
    l->maxprog = -1;
    return l;
}

static void free_fit (ns_learn_t *l)
{
    for (int p = 0; p < l->nfit; p++) {
        free (l->fit[p].c);
        free (l->fit[p].slow);
        free (l->fit[p].gram);
        free (l->fit[p].active);
    }
    free (l->fit);
    l->fit = NULL;
    l->nfit = 0;
}

void ns_learn_destroy (ns_learn_t *l)
{
    if (!l)
        return;
    int saved = errno;
    free_fit (l);
    free (l->obs);
    free (l->seg);
    free (l->ent);
    free (l->alloc);
    free (l->apool);
    free (l);
    errno = saved;
}

int ns_learn_njobs (const ns_learn_t *l, int p)
{
    int n = 0;
    for (int i = 0; l && i < l->nobs; i++)
        n += l->obs[i].p == p;
    return n;
}

int ns_learn_nprograms (const ns_learn_t *l)
{
    return l ? l->maxprog + 1 : 0;
}

/* ---- exposures ---- */

static int check_job (const ns_learn_job_t *j, int i, ns_error_t *err)
{
    if (j->program < NS_PROGRAM_UNKNOWN)
        return ns_error_set (err, EINVAL, "job %d: program id %d", i,
                             j->program);
    if (!isfinite (j->start) || !isfinite (j->end) || j->end < j->start)
        return ns_error_set (err, EINVAL, "job %d: end %g before start %g",
                             i, j->end, j->start);
    if (j->nnodes < 1 || !j->nodes || !j->cores)
        return ns_error_set (err, EINVAL, "job %d: no nodes", i);
    for (int k = 0; k < j->nnodes; k++) {
        if (j->nodes[k] < 0 || j->cores[k] < 1)
            return ns_error_set (err, EINVAL, "job %d: node %d with %d "
                                 "cores", i, j->nodes[k], j->cores[k]);
        for (int m = 0; m < k; m++)
            if (j->nodes[m] == j->nodes[k])
                return ns_error_set (err, EINVAL, "job %d: node %d listed "
                                     "twice", i, j->nodes[k]);
    }
    return 0;
}

static int cores_on (const ns_learn_job_t *j, int node)
{
    for (int k = 0; k < j->nnodes; k++)
        if (j->nodes[k] == node)
            return j->cores[k];
    return 0;
}

static void drop_oldest (ns_learn_t *l, int k);
static int add_jobs (ns_learn_t *l, const ns_learn_job_t *jobs, int n,
                     int target, ns_error_t *err);

int ns_learn_add_history (ns_learn_t *l, const ns_learn_job_t *jobs, int n,
                          ns_error_t *err)
{
    return add_jobs (l, jobs, n, -1, err);
}

int ns_learn_observe (ns_learn_t *l, const ns_learn_job_t *jobs, int n,
                      int target, ns_error_t *err)
{
    if (target < 0 || target >= n)
        return ns_error_set (err, EINVAL, "job %d of %d", target, n);
    return add_jobs (l, jobs, n, target, err);
}

/* The jobs of a history (target < 0), or only jobs[target] with the
 * others as its context. */
static int add_jobs (ns_learn_t *l, const ns_learn_job_t *jobs, int n,
                     int target, ns_error_t *err)
{
    int maxnode = -1;
    for (int i = 0; i < n; i++) {
        if (check_job (&jobs[i], i, err) < 0)
            return -1;
        for (int k = 0; k < jobs[i].nnodes; k++)
            if (jobs[i].nodes[k] > maxnode)
                maxnode = jobs[i].nodes[k];
    }
    int nobs0 = l->nobs, nseg0 = l->nseg, nent0 = l->nent;
    /* Jobs per node (CSR). */
    int *count = calloc ((size_t)maxnode + 2, sizeof (int));
    int *onnode = NULL;
    double *bp = NULL;
    int capbp = 0, rc = -1, total = 0;
    if (!count)
        goto oom;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < jobs[i].nnodes; k++) {
            count[jobs[i].nodes[k] + 1]++;
            total++;
        }
    for (int v = 0; v <= maxnode; v++)
        count[v + 1] += count[v];
    onnode = malloc (sizeof (int) * (total ? total : 1));
    int *fill = calloc ((size_t)maxnode + 1, sizeof (int));
    if (!onnode || !fill) {
        free (fill);
        goto oom;
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < jobs[i].nnodes; k++) {
            int v = jobs[i].nodes[k];
            onnode[count[v] + fill[v]++] = i;
        }
    free (fill);

    for (int i = 0; i < n; i++) {
        const ns_learn_job_t *j = &jobs[i];
        if (j->program > l->maxprog)
            l->maxprog = j->program;
        if (j->program < 0 || j->context_only || !(j->end > j->start)
            || (target >= 0 && i != target))
            continue;
        /* Breakpoints: its start and end, and every start and end of a
         * co-tenant inside its run. */
        int nbp = 0;
        if (ns_grow (&bp, &capbp, 2, sizeof (double), 64) < 0)
            goto oom;
        bp[nbp++] = j->start;
        bp[nbp++] = j->end;
        for (int k = 0; k < j->nnodes; k++) {
            int v = j->nodes[k];
            for (int x = count[v]; x < count[v + 1]; x++) {
                const ns_learn_job_t *o = &jobs[onnode[x]];
                if (onnode[x] == i || !(o->start < j->end && o->end > j->start))
                    continue;
                if (ns_grow (&bp, &capbp, nbp + 2, sizeof (double), 64) < 0)
                    goto oom;
                if (o->start > j->start)
                    bp[nbp++] = o->start;
                if (o->end < j->end)
                    bp[nbp++] = o->end;
            }
        }
        qsort (bp, nbp, sizeof (double), ns_learn_cmp_double);
        if (ns_grow (&l->obs, &l->capobs, l->nobs + 1, sizeof (*l->obs),
                     256) < 0)
            goto oom;
        struct obs *ob = &l->obs[l->nobs];
        int striped = j->nnodes >= 2;
        for (int k = 0; k < j->nnodes; k++)
            if (j->cores[k] >= l->node_cores)
                striped = 0;
        *ob = (struct obs){ .p = j->program, .runtime = j->end - j->start,
                            .striped = striped, .nnodes = j->nnodes,
                            .first = l->nseg };
        for (int b = 0; b + 1 < nbp; b++) {
            double t0 = bp[b], t1 = bp[b + 1];
            if (!(t1 > t0))
                continue;
            double tm = 0.5 * (t0 + t1);
            if (ns_grow (&l->seg, &l->capseg, l->nseg + 1, sizeof (*l->seg),
                         256) < 0)
                goto oom;
            struct seg *sg = &l->seg[l->nseg];
            sg->dt = t1 - t0;
            sg->first = l->nent;
            sg->n = 0;
            for (int k = 0; k < j->nnodes; k++) {
                int v = j->nodes[k];
                for (int x = count[v]; x < count[v + 1]; x++) {
                    const ns_learn_job_t *o = &jobs[onnode[x]];
                    if (onnode[x] == i || !(o->start <= tm && tm < o->end))
                        continue;
                    if (ns_grow (&l->ent, &l->capent, l->nent + 1,
                                 sizeof (*l->ent), 1024) < 0)
                        goto oom;
                    l->ent[l->nent++] = (struct entry){
                        .k = k, .q = o->program, .cores = cores_on (o, v) };
                    sg->n++;
                }
            }
            l->nseg++;
            ob->nseg++;
        }
        l->nobs++;
    }
    rc = 0;
    /* Over the limit: the oldest go, down to 3/4 of it (amortised). */
    if (l->max_obs > 0 && l->nobs > l->max_obs)
        drop_oldest (l, l->nobs - l->max_obs * 3 / 4);
    goto out;
oom:
    ns_error_set (err, ENOMEM, "out of memory");
    l->nobs = nobs0;
    l->nseg = nseg0;
    l->nent = nent0;
out:
    free (count);
    free (onnode);
    free (bp);
    return rc;
}

static void drop_oldest (ns_learn_t *l, int k)
{
    if (k <= 0)
        return;
    if (k >= l->nobs) {
        l->nobs = l->nseg = l->nent = 0;
        return;
    }
    int s0 = l->obs[k].first;
    int e0 = s0 < l->nseg ? l->seg[s0].first : l->nent;
    memmove (l->obs, l->obs + k, sizeof (*l->obs) * (l->nobs - k));
    l->nobs -= k;
    memmove (l->seg, l->seg + s0, sizeof (*l->seg) * (l->nseg - s0));
    l->nseg -= s0;
    memmove (l->ent, l->ent + e0, sizeof (*l->ent) * (l->nent - e0));
    l->nent -= e0;
    for (int i = 0; i < l->nobs; i++)
        l->obs[i].first -= s0;
    for (int i = 0; i < l->nseg; i++)
        l->seg[i].first -= e0;
}

void ns_learn_set_max (ns_learn_t *l, int max)
{
    l->max_obs = max > 0 ? max : 0;
    if (l->max_obs && l->nobs > l->max_obs)
        drop_oldest (l, l->nobs - l->max_obs);
}

int ns_learn_nobservations (const ns_learn_t *l)
{
    return l ? l->nobs : 0;
}

/* ---- online ---- */

int ns_learn_live (const ns_learn_t *l)
{
    return l ? l->nalloc : 0;
}

int ns_learn_begin (ns_learn_t *l, uint64_t id, int program, double start,
                    const int *nodes, const int *cores, int n,
                    int observable, ns_error_t *err)
{
    ns_learn_job_t j = { .program = program, .start = start, .end = start,
                         .nnodes = n, .nodes = nodes, .cores = cores };
    if (check_job (&j, 0, err) < 0)
        return -1;
    for (int i = 0; i < l->nalloc; i++)
        if (l->alloc[i].id == id && l->alloc[i].end < 0)
            return ns_error_set (err, EEXIST, "job %llu already recorded",
                                 (unsigned long long)id);
    if (ns_grow (&l->alloc, &l->capalloc, l->nalloc + 1, sizeof (*l->alloc),
                 64) < 0
        || ns_grow (&l->apool, &l->capapool, l->napool + 2 * n, sizeof (int),
                    512) < 0)
        return ns_error_set (err, ENOMEM, "out of memory");
    l->alloc[l->nalloc++] = (struct alloc){
        .id = id, .program = program, .start = start, .end = -1, .n = n,
        .off = l->napool, .observable = observable };
    memcpy (l->apool + l->napool, nodes, sizeof (int) * n);
    memcpy (l->apool + l->napool + n, cores, sizeof (int) * n);
    l->napool += 2 * n;
    return 0;
}

static int shares_node (const ns_learn_t *l, const struct alloc *a,
                        const struct alloc *b)
{
    for (int i = 0; i < a->n; i++)
        for (int k = 0; k < b->n; k++)
            if (l->apool[a->off + i] == l->apool[b->off + k])
                return 1;
    return 0;
}

/* Ended allocations nobody live overlaps any more go. */
static void prune (ns_learn_t *l)
{
    double oldest = -1;
    for (int i = 0; i < l->nalloc; i++)
        if (l->alloc[i].end < 0
            && (oldest < 0 || l->alloc[i].start < oldest))
            oldest = l->alloc[i].start;
    int w = 0, wp = 0;
    for (int i = 0; i < l->nalloc; i++) {
        struct alloc a = l->alloc[i];
        if (a.end >= 0 && (oldest < 0 || a.end <= oldest))
            continue;
        memmove (l->apool + wp, l->apool + a.off, sizeof (int) * 2 * a.n);
        a.off = wp;
        wp += 2 * a.n;
        l->alloc[w++] = a;
    }
    l->nalloc = w;
    l->napool = wp;
}

int ns_learn_end (ns_learn_t *l, uint64_t id, double end, int completed,
                  ns_error_t *err)
{
    int t = -1;
    for (int i = 0; i < l->nalloc && t < 0; i++)
        if (l->alloc[i].id == id && l->alloc[i].end < 0)
            t = i;
    if (t < 0)
        return 0;
    struct alloc *a = &l->alloc[t];
    a->end = end > a->start ? end : a->start;
    int rc = 0;
    if (completed && a->observable && a->program >= 0 && a->end > a->start) {
        /* the job first, then what overlapped it on its nodes */
        ns_learn_job_t *jobs = malloc (sizeof (*jobs) * l->nalloc);
        if (!jobs)
            return ns_error_set (err, ENOMEM, "out of memory");
        int n = 0;
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < l->nalloc; i++) {
                const struct alloc *b = &l->alloc[i];
                if ((pass == 0) != (i == t))
                    continue;
                double bend = b->end < 0 ? a->end : b->end;
                if (i != t && !(b->start < a->end && bend > a->start
                                && shares_node (l, a, b)))
                    continue;
                jobs[n++] = (ns_learn_job_t){
                    .program = b->program, .start = b->start, .end = bend,
                    .nnodes = b->n, .nodes = l->apool + b->off,
                    .cores = l->apool + b->off + b->n,
                    .context_only = i != t };
            }
        rc = ns_learn_observe (l, jobs, n, 0, err) < 0 ? -1 : 1;
        free (jobs);
    }
    prune (l);
    return rc;
}

int ns_learn_remap (ns_learn_t *l, const ns_progtab_t *from,
                    ns_progtab_t *to, ns_error_t *err)
{
    int n = ns_progtab_count (from);
    int *map = malloc (sizeof (int) * (n ? n : 1));
    if (!map)
        return ns_error_set (err, ENOMEM, "out of memory");
    for (int p = 0; p < n; p++)
        if ((map[p] = ns_progtab_intern (to, ns_progtab_name (from, p),
                                         err)) < 0) {
            free (map);
            return -1;
        }
#define REMAP(x) ((x) >= 0 && (x) < n ? map[(x)] : NS_PROGRAM_UNKNOWN)
    l->maxprog = -1;
    for (int i = 0; i < l->nobs; i++) {
        l->obs[i].p = REMAP (l->obs[i].p);
        if (l->obs[i].p > l->maxprog)
            l->maxprog = l->obs[i].p;
    }
    for (int i = 0; i < l->nent; i++) {
        l->ent[i].q = REMAP (l->ent[i].q);
        if (l->ent[i].q > l->maxprog)
            l->maxprog = l->ent[i].q;
    }
    for (int i = 0; i < l->nalloc; i++)
        l->alloc[i].program = REMAP (l->alloc[i].program);
#undef REMAP
    free (map);
    free_fit (l);
    return 0;
}

/* ---- state: the observations as JSON ---- */

json_object *ns_learn_save (const ns_learn_t *l, const ns_progtab_t *progs)
{
    return ns_learn_save_from (l, progs, 0);
}

json_object *ns_learn_save_from (const ns_learn_t *l,
                                 const ns_progtab_t *progs, int first)
{
    json_object *arr = json_object_new_array ();
    if (!arr)
        return NULL;
    for (int i = first < 0 ? 0 : first; i < l->nobs; i++) {
        const struct obs *ob = &l->obs[i];
        json_object *o = json_object_new_object ();
        json_object *segs = json_object_new_array ();
        json_object_object_add (o, "program", json_object_new_string (
                                    ns_progtab_name (progs, ob->p)));
        json_object_object_add (o, "runtime",
                                json_object_new_double (ob->runtime));
        json_object_object_add (o, "striped",
                                json_object_new_boolean (ob->striped));
        json_object_object_add (o, "nodes", json_object_new_int (ob->nnodes));
        for (int s = ob->first; s < ob->first + ob->nseg; s++) {
            const struct seg *sg = &l->seg[s];
            json_object *sj = json_object_new_array ();
            json_object_array_add (sj, json_object_new_double (sg->dt));
            for (int e = sg->first; e < sg->first + sg->n; e++) {
                const struct entry *en = &l->ent[e];
                json_object *ej = json_object_new_array ();
                json_object_array_add (ej, json_object_new_int (en->k));
                json_object_array_add (ej, en->q >= 0
                    ? json_object_new_string (ns_progtab_name (progs, en->q))
                    : NULL);
                json_object_array_add (ej, json_object_new_int (en->cores));
                json_object_array_add (sj, ej);
            }
            json_object_array_add (segs, sj);
        }
        json_object_object_add (o, "segments", segs);
        json_object_array_add (arr, o);
    }
    json_object *root = json_object_new_object ();
    if (!root) {
        json_object_put (arr);
        return NULL;
    }
    json_object_object_add (root, "version", json_object_new_int (1));
    json_object_object_add (root, "node_cores",
                            json_object_new_int (l->node_cores));
    json_object_object_add (root, "observations", arr);
    return root;
}

static int bad_state (ns_error_t *err, int i, const char *what)
{
    if (i < 0)
        return ns_error_set (err, EINVAL, "%s", what);
    return ns_error_set (err, EINVAL, "observations[%d]: %s", i, what);
}

static int get_num (json_object *o, double lo, double hi, double *v)
{
    if (!o || !(json_object_is_type (o, json_type_double)
                || json_object_is_type (o, json_type_int)))
        return -1;
    *v = json_object_get_double (o);
    return isfinite (*v) && *v >= lo && *v <= hi ? 0 : -1;
}

int ns_learn_load (ns_learn_t *l, json_object *root, ns_progtab_t *progs,
                   ns_error_t *err)
{
    json_object *v, *arr;
    double d;
    if (!json_object_is_type (root, json_type_object))
        return bad_state (err, -1, "not an object");
    if (!json_object_object_get_ex (root, "version", &v)
        || json_object_get_int (v) != 1)
        return bad_state (err, -1, "version: expected 1");
    if (!json_object_object_get_ex (root, "node_cores", &v)
        || get_num (v, 1, 65536, &d) < 0 || (int)d != l->node_cores)
        return ns_error_set (err, EINVAL, "node_cores: expected %d",
                             l->node_cores);
    if (!json_object_object_get_ex (root, "observations", &arr)
        || !json_object_is_type (arr, json_type_array))
        return bad_state (err, -1, "observations: expected an array");
    int nobs0 = l->nobs, nseg0 = l->nseg, nent0 = l->nent;
    int maxprog0 = l->maxprog;
    size_t n = json_object_array_length (arr);
    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_array_get_idx (arr, i), *segs;
        struct obs ob = { .first = l->nseg };
        double nn;
        const char *name;
        if (!json_object_is_type (o, json_type_object)
            || !json_object_object_get_ex (o, "program", &v)
            || !(name = json_object_get_string (v))
            || !json_object_is_type (v, json_type_string)) {
            bad_state (err, (int)i, "program: expected a name");
            goto fail;
        }
        if ((ob.p = ns_progtab_intern (progs, name, NULL)) < 0) {
            bad_state (err, (int)i, "program: not a valid name");
            goto fail;
        }
        if (!json_object_object_get_ex (o, "runtime", &v)
            || get_num (v, 1e-9, 1e12, &ob.runtime) < 0
            || !json_object_object_get_ex (o, "striped", &v)
            || !json_object_object_get_ex (o, "nodes", &v)
            || get_num (v, 1, 65536, &nn) < 0
            || !json_object_object_get_ex (o, "segments", &segs)
            || !json_object_is_type (segs, json_type_array)) {
            bad_state (err, (int)i, "expected runtime > 0, striped, nodes "
                       "1..65536 and segments");
            goto fail;
        }
        json_object_object_get_ex (o, "striped", &v);
        ob.striped = json_object_get_boolean (v);
        ob.nnodes = (int)nn;
        size_t ns = json_object_array_length (segs);
        for (size_t s = 0; s < ns; s++) {
            json_object *sj = json_object_array_get_idx (segs, s);
            struct seg sg = { .first = l->nent };
            if (!json_object_is_type (sj, json_type_array)
                || json_object_array_length (sj) < 1
                || get_num (json_object_array_get_idx (sj, 0), 0, 1e12,
                            &sg.dt) < 0) {
                bad_state (err, (int)i, "segments: expected [dt, [node, "
                           "program, cores]...]");
                goto fail;
            }
            size_t ne = json_object_array_length (sj);
            for (size_t e = 1; e < ne; e++) {
                json_object *ej = json_object_array_get_idx (sj, e), *q;
                double k, c;
                struct entry en;
                if (!json_object_is_type (ej, json_type_array)
                    || json_object_array_length (ej) != 3
                    || get_num (json_object_array_get_idx (ej, 0), 0,
                                nn - 1, &k) < 0
                    || get_num (json_object_array_get_idx (ej, 2), 1, 65536,
                                &c) < 0) {
                    bad_state (err, (int)i, "segments: expected [node, "
                               "program, cores] entries");
                    goto fail;
                }
                q = json_object_array_get_idx (ej, 1);
                en.k = (int)k;
                en.cores = (int)c;
                en.q = NS_PROGRAM_UNKNOWN;
                if (q && (!json_object_is_type (q, json_type_string)
                          || (en.q = ns_progtab_intern (
                                  progs, json_object_get_string (q),
                                  NULL)) < 0)) {
                    bad_state (err, (int)i, "segments: a co-tenant program "
                               "is a name or null");
                    goto fail;
                }
                if (en.q > l->maxprog)
                    l->maxprog = en.q;
                if (ns_grow (&l->ent, &l->capent, l->nent + 1,
                             sizeof (*l->ent), 1024) < 0)
                    goto oom;
                l->ent[l->nent++] = en;
                sg.n++;
            }
            if (ns_grow (&l->seg, &l->capseg, l->nseg + 1, sizeof (*l->seg),
                         256) < 0)
                goto oom;
            l->seg[l->nseg++] = sg;
            ob.nseg++;
        }
        if (ob.p > l->maxprog)
            l->maxprog = ob.p;
        if (ns_grow (&l->obs, &l->capobs, l->nobs + 1, sizeof (*l->obs),
                     256) < 0)
            goto oom;
        l->obs[l->nobs++] = ob;
    }
    if (l->max_obs && l->nobs > l->max_obs)
        drop_oldest (l, l->nobs - l->max_obs);
    return 0;
oom:
    ns_error_set (err, ENOMEM, "out of memory");
fail:
    l->nobs = nobs0;
    l->nseg = nseg0;
    l->nent = nent0;
    l->maxprog = maxprog0;
    return -1;
}

int ns_learn_apply (const ns_learn_t *l, ns_interf_t *m,
                    const ns_interf_t *given, ns_error_t *err)
{
    int set = 0;
    for (int p = 0; p < l->nfit; p++) {
        ns_learn_fig_t u = ns_learn_speedup (l, p);
        if (u.learned && !ns_interf_given_speedup (given, p)) {
            if (ns_interf_set_speedup (m, p, u.value, err) < 0)
                return -1;
            set++;
        }
        for (int q = 0; q + 1 < l->nq; q++) {
            ns_learn_fig_t s = ns_learn_slowdown (l, p, q);
            if (s.learned && !ns_interf_given_slowdown (given, p, q)) {
                if (ns_interf_set_slowdown (m, p, q, s.value, err) < 0)
                    return -1;
                set++;
            }
        }
    }
    return set;
}

int ns_learn_fit (ns_learn_t *l, const ns_learn_opts_t *opts, ns_error_t *err)
{
    ns_learn_opts_t def;
    if (!opts) {
        ns_learn_opts_default (&def);
        opts = &def;
    }
    free_fit (l);
    int n = l->maxprog + 1;
    l->nq = n + 1;
    l->fit = calloc (n ? n : 1, sizeof (*l->fit));
    if (!l->fit)
        return ns_error_set (err, ENOMEM, "out of memory");
    l->nfit = n;
    for (int p = 0; p < n; p++) {
        l->fit[p].c = calloc (l->nq, sizeof (double));
        l->fit[p].slow = calloc (l->nq, sizeof (ns_learn_fig_t));
        if (!l->fit[p].c || !l->fit[p].slow
            || ns_learn_fit_program (l, p, opts, &l->fit[p]) < 0) {
            free_fit (l);
            return ns_error_set (err, ENOMEM, "out of memory");
        }
    }
    return 0;
}

ns_learn_fig_t ns_learn_speedup (const ns_learn_t *l, int p)
{
    if (!l || p < 0 || p >= l->nfit)
        return ns_learn_neutral (0);
    return l->fit[p].speedup;
}

ns_learn_fig_t ns_learn_slowdown (const ns_learn_t *l, int p, int q)
{
    if (!l || p < 0 || p >= l->nfit || q < NS_PROGRAM_UNKNOWN
        || q + 1 >= l->nq)
        return ns_learn_neutral (0);
    return l->fit[p].slow[q + 1];
}

ns_learn_fig_t ns_learn_base (const ns_learn_t *l, int p)
{
    if (!l || p < 0 || p >= l->nfit)
        return ns_learn_neutral (0);
    return l->fit[p].base;
}

const char *ns_learn_why_name (ns_learn_why_t why)
{
    switch (why) {
    case NS_LEARN_LEARNED: return "learned";
    case NS_LEARN_NO_DATA: return "no job exposed to it";
    case NS_LEARN_UNIDENTIFIED: return "not identified by the history";
    case NS_LEARN_FEW: return "too few jobs";
    case NS_LEARN_NO_RESIDUAL: return "fitted exactly, no residual to "
                                      "measure its error by";
    case NS_LEARN_UNCERTAIN: return "standard error above max_se";
    }
    return "?";
}

/* The name of parameter k of p's fit, e.g. "slowdown(LAM beside ABQ)". */
static void param_name (const ns_progtab_t *progs, int p, int k, char *buf,
                        size_t len)
{
    const char *pn = ns_progtab_name (progs, p);
    if (k == P_BASE)
        snprintf (buf, len, "the runtime of %s", pn ? pn : "?");
    else if (k == P_SPEED)
        snprintf (buf, len, "spread_speedup(%s)", pn ? pn : "?");
    else {
        const char *qn = k == P_SLOW ? NULL
                         : ns_progtab_name (progs, k - P_SLOW - 1);
        snprintf (buf, len, "slowdown(%s beside %s)", pn ? pn : "?",
                  qn ? qn : "unknown programs");
    }
}

/* The run that adds row r to p's design, as advice. */
static void run_name (const ns_progtab_t *progs, int p, int kind, int q,
                      char *buf, size_t len)
{
    const char *pn = ns_progtab_name (progs, p);
    const char *qn = q >= 0 ? ns_progtab_name (progs, q) : "another program";
    switch (kind) {
    case 0:
        snprintf (buf, len, "run %s alone on full nodes", pn);
        break;
    case 1:
        snprintf (buf, len, "run %s striped over two otherwise empty nodes",
                  pn);
        break;
    case 2:
        snprintf (buf, len, "run %s striped beside %s (half of both nodes "
                  "each)", pn, qn);
        break;
    default:
        snprintf (buf, len, "run %s beside %s on one node (half each)", pn,
                  qn);
        break;
    }
}

/* Candidate runs: 0 full nodes, 1 striped alone, 2 striped beside q,
 * 3 one node beside q; their rows (signs as design_row ()). */
static void run_row (int kind, int slot, int np, double *r)
{
    for (int k = 0; k < np; k++)
        r[k] = 0;
    r[P_BASE] = 1;
    r[P_SPEED] = kind == 1 || kind == 2 ? -1 : 0;
    if (kind >= 2)
        r[P_SLOW + slot] = 1;
}

/* Is parameter k identified once the runs of kinds (k1, s1) and, if
 * k2 >= 0, (k2, s2) are added to the design?  -1 out of memory. */
static int identified_with (const struct fit *F, int np, int k, int k1,
                            int s1, int k2, int s2)
{
    double *g = malloc (sizeof (double) * (np * np + np));
    /* calloc: gcc 14's LTO cannot see that every byte read is written */
    unsigned char *act = calloc ((size_t)np * 2, 1);
    if (!g || !act) {
        free (g);
        free (act);
        return -1;
    }
    double *r = g + np * np;
    memcpy (g, F->gram, sizeof (double) * np * np);
    for (int c = 0; c < 2; c++) {
        int kind = c ? k2 : k1, slot = c ? s2 : s1;
        if (kind < 0)
            continue;
        run_row (kind, slot, np, r);
        for (int x = 0; x < np; x++)
            for (int y = 0; y < np; y++)
                g[x * np + y] += r[x] * r[y];
    }
    for (int x = 0; x < np; x++)
        act[x] = g[x * np + x] > 0;
    int rc = ns_learn_identify (g, act, np, act + np);
    if (rc == 0)
        rc = act[np + k];
    free (g);
    free (act);
    return rc;
}

int ns_learn_explain (const ns_learn_t *l, int p, int q,
                      const ns_progtab_t *progs, char *why, size_t whylen,
                      char *need, size_t needlen)
{
    if (!l || p < 0 || p >= l->nfit || q < NS_LEARN_SPEEDUP
        || q + 1 >= l->nq || !l->fit[p].gram)
        return -1;
    const struct fit *F = &l->fit[p];
    int np = P_SLOW + l->nq;
    int k = q == NS_LEARN_SPEEDUP ? P_SPEED : P_SLOW + q + 1;
    if (!F->active[k])
        return -1;
    double *null;
    int nn = ns_learn_null_space (F->gram, F->active, np, &null);
    if (nn < 0)
        return -1;
    /* The parameters that move with k along the directions the design
     * does not see. */
    char part[256] = "", nm[128];
    int npart = 0, partner = -1, base_too = 0;
    for (int j = 0; j < nn; j++) {
        if (fabs (null[j * np + k]) <= NULL_COMP)
            continue;
        for (int x = 0; x < np; x++) {
            if (x == k || fabs (null[j * np + x]) <= NULL_COMP)
                continue;
            if (x == P_BASE) {
                base_too = 1;
                continue;
            }
            param_name (progs, p, x, nm, sizeof (nm));
            if (npart < 4 && !strstr (part, nm)) {
                size_t n = strlen (part);
                snprintf (part + n, sizeof (part) - n, "%s%s",
                          npart ? ", " : "", nm);
                npart++;
                partner = x;
            }
        }
    }
    free (null);
    if (nn == 0 || (npart == 0 && !base_too))
        return -1;
    char self[128];
    param_name (progs, p, k, self, sizeof (self));
    const char *pn = ns_progtab_name (progs, p);
    if (npart == 1 && !base_too
        && ((k == P_SPEED) != (partner == P_SPEED))) {
        /* log u - log s seen, never either: only the ratio u / s */
        char a[128], b[128];
        param_name (progs, p, k == P_SPEED ? k : partner, a, sizeof (a));
        param_name (progs, p, k == P_SPEED ? partner : k, b, sizeof (b));
        snprintf (why, whylen, "only %s/%s observed%s", a, b,
                  F->nalone == 0 ? "; never striped alone" : "");
    } else {
        int speed = k == P_SPEED || strstr (part, "spread_speedup");
        snprintf (why, whylen, "not separable from %s%s%s%s%s%s", part,
                  npart && base_too ? " and " : "",
                  base_too ? "the runtime of " : "", base_too ? pn : "",
                  speed && F->nfull == 0 ? "; never ran on full nodes" : "",
                  speed && F->nalone == 0 ? "; never striped alone" : "");
    }
    /* The simplest run, or pair of runs, that would identify it. */
    int cand[4][2], nc = 0;
    cand[nc][0] = 0, cand[nc++][1] = 0;
    cand[nc][0] = 1, cand[nc++][1] = 0;
    int qslot = k >= P_SLOW ? k - P_SLOW : (partner >= P_SLOW
                                            ? partner - P_SLOW : -1);
    if (qslot >= 0) {
        cand[nc][0] = 2, cand[nc++][1] = qslot;
        cand[nc][0] = 3, cand[nc++][1] = qslot;
    }
    char r1[160], r2[160];
    for (int a = 0; a < nc; a++)
        if (identified_with (F, np, k, cand[a][0], cand[a][1], -1, 0) == 1) {
            run_name (progs, p, cand[a][0], cand[a][1] - 1, r1, sizeof (r1));
            snprintf (need, needlen, "%s", r1);
            return 0;
        }
    for (int a = 0; a < nc; a++)
        for (int b = a + 1; b < nc; b++)
            if (identified_with (F, np, k, cand[a][0], cand[a][1],
                                 cand[b][0], cand[b][1]) == 1) {
                run_name (progs, p, cand[a][0], cand[a][1] - 1, r1,
                          sizeof (r1));
                run_name (progs, p, cand[b][0], cand[b][1] - 1, r2,
                          sizeof (r2));
                snprintf (need, needlen, "%s, and %s", r1, r2);
                return 0;
            }
    snprintf (need, needlen, "run %s alone on full nodes and striped over "
              "two otherwise empty nodes", pn);
    return 0;
}
