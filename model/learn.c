/* SPDX-License-Identifier: GPL-2.0-or-later */
/* learn.c - exposures from job histories, and the per-program fit
 * (learn.h says what is fitted and how). */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn.h"

#include <json-c/json.h>

#include "nsutil.h"
#include "progtab.h"

/* A co-tenant on one node of a job, during one stretch of its run. */
struct entry {
    int k;          /* node slot within the job */
    int q;          /* its program (NS_PROGRAM_UNKNOWN allowed) */
    int cores;
};

struct seg {
    double dt;
    int first, n;   /* entries */
};

struct obs {
    int p;
    double runtime;
    int striped;
    int nnodes;
    int first, nseg;    /* segments */
};

struct alloc {
    uint64_t id;
    int program;
    double start, end;  /* end < 0: live */
    int n;
    int off;            /* nodes at apool[off], cores at apool[off + n] */
    int observable;
};

struct fit {
    double logb, a;     /* log base runtime, log speedup */
    double *c;          /* per q slot (q + 1): log slowdown */
    ns_learn_fig_t base, speedup;
    ns_learn_fig_t *slow;   /* per q slot */
    /* the design (identify ()): the Gram matrix X'X of the jobs' rows,
     * np x np, and which parameters any job is exposed to */
    double *gram;
    unsigned char *active;
    int nfull, nalone;  /* jobs on full nodes; striped with time alone */
};

struct ns_learn {
    int node_cores;
    int maxprog;        /* largest program id seen, -1 none */
    struct obs *obs;
    int nobs, capobs;
    struct seg *seg;
    int nseg, capseg;
    struct entry *ent;
    int nent, capent;
    struct fit *fit;    /* per program, after ns_learn_fit () */
    int nfit;
    int nq;             /* q slots in the fit: maxprog + 2 */
    int max_obs;        /* 0: no limit */
    /* online: recorded allocations */
    struct alloc *alloc;
    int nalloc, capalloc;
    int *apool;         /* nodes then cores of every allocation */
    int napool, capapool;
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

static int cmp_double (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
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
        qsort (bp, nbp, sizeof (double), cmp_double);
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
    json_object *root = json_object_new_object ();
    json_object *arr = json_object_new_array ();
    if (!root || !arr) {
        json_object_put (root);
        json_object_put (arr);
        return NULL;
    }
    json_object_object_add (root, "version", json_object_new_int (1));
    json_object_object_add (root, "node_cores",
                            json_object_new_int (l->node_cores));
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

/* ---- the fit ---- */

/* Parameter layout of one program's fit: 0 log base, 1 log speedup,
 * 2 + slot: log slowdown beside program slot - 1 (slot 0: unknown). */
#define P_BASE 0
#define P_SPEED 1
#define P_SLOW 2

/* log W of observation ob, and its gradient (d log W / d param) in g. */
static double log_work (const ns_learn_t *l, const struct obs *ob,
                        const double *theta, const unsigned char *free_,
                        int np, double *g, double *node_sl, double *node_d)
{
    int nq = l->nq;
    double sum = 0;
    for (int k = 0; k < np; k++)
        g[k] = 0;
    double speed = ob->striped ? exp (theta[P_SPEED]) : 1.0;
    for (int s = ob->first; s < ob->first + ob->nseg; s++) {
        const struct seg *sg = &l->seg[s];
        for (int k = 0; k < ob->nnodes; k++)
            node_sl[k] = 0;         /* log of the node's slowdown */
        for (int e = sg->first; e < sg->first + sg->n; e++) {
            const struct entry *en = &l->ent[e];
            double f = 2.0 * en->cores / l->node_cores;
            if (f > 2.0)
                f = 2.0;
            double sv = exp (theta[P_SLOW + en->q + 1]);
            node_sl[en->k] += log (1.0 + (sv - 1.0) * f);
        }
        int worst = 0;
        for (int k = 1; k < ob->nnodes; k++)
            if (node_sl[k] > node_sl[worst])
                worst = k;
        double rate = speed * exp (-node_sl[worst]);
        double w = sg->dt * rate;
        sum += w;
        /* d log rate / d c_q on the worst node */
        for (int q = 0; q < nq; q++)
            node_d[q] = 0;
        for (int e = sg->first; e < sg->first + sg->n; e++) {
            const struct entry *en = &l->ent[e];
            if (en->k != worst)
                continue;
            double f = 2.0 * en->cores / l->node_cores;
            if (f > 2.0)
                f = 2.0;
            double sv = exp (theta[P_SLOW + en->q + 1]);
            node_d[en->q + 1] -= sv * f / (1.0 + (sv - 1.0) * f);
        }
        for (int q = 0; q < nq; q++)
            if (node_d[q] != 0)
                g[P_SLOW + q] += w * node_d[q];
    }
    if (!(sum > 0))
        return NAN;
    for (int k = P_SLOW; k < np; k++)
        g[k] /= sum;
    g[P_BASE] = 0;
    g[P_SPEED] = ob->striped ? 1.0 : 0.0;
    for (int k = 0; k < np; k++)
        if (!free_[k])
            g[k] = 0;
    return log (sum);
}

/* Solve A x = b (n x n symmetric positive definite, only rows/cols with
 * use[k]) by Cholesky in place; 0, or -1 if not positive definite. */
static int cholesky_solve (double *A, double *b, int n,
                           const unsigned char *use)
{
    for (int j = 0; j < n; j++) {
        if (!use[j])
            continue;
        double d = A[j * n + j];
        for (int k = 0; k < j; k++)
            if (use[k])
                d -= A[j * n + k] * A[j * n + k];
        if (!(d > 0))
            return -1;
        d = sqrt (d);
        A[j * n + j] = d;
        for (int i = j + 1; i < n; i++) {
            if (!use[i])
                continue;
            double s = A[i * n + j];
            for (int k = 0; k < j; k++)
                if (use[k])
                    s -= A[i * n + k] * A[j * n + k];
            A[i * n + j] = s / d;
        }
    }
    for (int i = 0; i < n; i++) {
        if (!use[i])
            continue;
        double s = b[i];
        for (int k = 0; k < i; k++)
            if (use[k])
                s -= A[i * n + k] * b[k];
        b[i] = s / A[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
        if (!use[i])
            continue;
        double s = b[i];
        for (int k = i + 1; k < n; k++)
            if (use[k])
                s -= A[k * n + i] * b[k];
        b[i] = s / A[i * n + i];
    }
    return 0;
}

/* Weighted sum of squared residuals at theta. */
static double weighted_cost (const ns_learn_t *l, const int *idx, int nobs,
                             const double *theta, const unsigned char *free_,
                             int np, const double *wt, double *g,
                             double *node_sl, double *node_d)
{
    double c = 0;
    for (int i = 0; i < nobs; i++) {
        double lw = log_work (l, &l->obs[idx[i]], theta, free_, np, g,
                              node_sl, node_d);
        double r = lw - theta[P_BASE];
        c += wt[i] * r * r;
    }
    return c;
}

/* Residuals into r, the normal equations J'WJ (A) and -J'Wr (b); returns
 * the weighted cost. */
static double normal_eq (const ns_learn_t *l, const int *idx, int nobs,
                         const double *theta, const unsigned char *free_,
                         int np, const double *wt, double *g, double *A,
                         double *b, double *r, double *node_sl,
                         double *node_d)
{
    double c = 0;
    memset (A, 0, sizeof (double) * np * np);
    memset (b, 0, sizeof (double) * np);
    for (int i = 0; i < nobs; i++) {
        double lw = log_work (l, &l->obs[idx[i]], theta, free_, np, g,
                              node_sl, node_d);
        r[i] = lw - theta[P_BASE];
        c += wt[i] * r[i] * r[i];
        g[P_BASE] = -1.0;
        for (int x = 0; x < np; x++) {
            if (!free_[x])
                continue;
            b[x] -= wt[i] * g[x] * r[i];
            for (int y = 0; y < np; y++)
                if (free_[y])
                    A[x * np + y] += wt[i] * g[x] * g[y];
        }
    }
    return c;
}

/* The penalty d' pen d, d = theta - ref (pen: np x np, the unidentified
 * directions; ref: the mean log runtime as base, neutral figures): its
 * value; added to A, and its gradient to b (-pen d), when they are
 * given. */
static double penalize (const double *pen, const double *theta,
                        double ref_base, int np, double *A, double *b)
{
    double c = 0;
    for (int x = 0; x < np; x++) {
        double px = 0;
        for (int y = 0; y < np; y++) {
            double d = theta[y] - (y == P_BASE ? ref_base : 0);
            px += pen[x * np + y] * d;
            if (A)
                A[x * np + y] += pen[x * np + y];
        }
        c += (theta[x] - (x == P_BASE ? ref_base : 0)) * px;
        if (b)
            b[x] -= px;
    }
    return c;
}

static int cmp_abs (const void *a, const void *b)
{
    double x = fabs (*(const double *)a), y = fabs (*(const double *)b);
    return (x > y) - (x < y);
}

static ns_learn_fig_t neutral (int n)
{
    return (ns_learn_fig_t){ .value = 1.0, .se = NAN, .n = n, .learned = 0,
                             .why = NS_LEARN_NO_DATA };
}

/* ---- identification: the design of the history ---- */

/* The row of job ob in the log-linear model of p (learn.h), the model
 * linearised at neutral figures: 1 for the base, 1 if striped, and per
 * co-tenant slot the fraction of its run with that program beside it,
 * weighted by f = 2 c_q / C (a half-node co-tenant 1, a quarter 0.5; the
 * largest over its nodes).  Two quarter-node co-tenants Q and R are then
 * the mean of Q and R at half a node each: no new information, as in the
 * model near neutral figures. */
static void design_row (const ns_learn_t *l, const struct obs *ob, int nq,
                        double *row, double *seen)
{
    for (int k = 0; k < P_SLOW + nq; k++)
        row[k] = 0;
    /* signs as the residual's gradient (d/d log B = -1, d/d log u =
     * striped, d/d log s_pq = -fraction), negated: the null vectors are
     * then directions of theta that leave every prediction unchanged */
    row[P_BASE] = 1;
    row[P_SPEED] = ob->striped ? -1 : 0;
    for (int s = ob->first; s < ob->first + ob->nseg; s++) {
        const struct seg *sg = &l->seg[s];
        for (int q = 0; q < nq; q++)
            seen[q] = 0;
        /* f per co-tenant program, summed on each node, largest node */
        for (int e = sg->first; e < sg->first + sg->n; e++) {
            const struct entry *en = &l->ent[e];
            double f = 0;
            for (int x = sg->first; x < sg->first + sg->n; x++)
                if (l->ent[x].k == en->k && l->ent[x].q == en->q)
                    f += 2.0 * l->ent[x].cores / l->node_cores;
            if (f > 2.0)
                f = 2.0;
            if (f > seen[en->q + 1])
                seen[en->q + 1] = f;
        }
        for (int q = 0; q < nq; q++)
            if (seen[q] != 0)
                row[P_SLOW + q] += seen[q] * sg->dt / ob->runtime;
    }
}

/* Eigenvectors of the symmetric n x n matrix a (destroyed) by cyclic
 * Jacobi rotations: v (row-major, column j the vector of eigenvalue
 * ev[j]). */
static void eigen_sym (double *a, int n, double *v, double *ev)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            v[i * n + j] = i == j;
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0, diag = 0;
        for (int i = 0; i < n; i++) {
            diag += a[i * n + i] * a[i * n + i];
            for (int j = i + 1; j < n; j++)
                off += a[i * n + j] * a[i * n + j];
        }
        if (off <= 1e-30 * diag || off == 0)
            break;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++) {
                double apq = a[p * n + q];
                if (apq == 0)
                    continue;
                double th = (a[q * n + q] - a[p * n + p]) / (2 * apq);
                double t = (th >= 0 ? 1.0 : -1.0)
                           / (fabs (th) + sqrt (th * th + 1));
                double c = 1 / sqrt (t * t + 1), sn = t * c;
                for (int k = 0; k < n; k++) {
                    double akp = a[k * n + p], akq = a[k * n + q];
                    a[k * n + p] = c * akp - sn * akq;
                    a[k * n + q] = sn * akp + c * akq;
                }
                for (int k = 0; k < n; k++) {
                    double apk = a[p * n + k], aqk = a[q * n + k];
                    a[p * n + k] = c * apk - sn * aqk;
                    a[q * n + k] = sn * apk + c * aqk;
                }
                for (int k = 0; k < n; k++) {
                    double vkp = v[k * n + p], vkq = v[k * n + q];
                    v[k * n + p] = c * vkp - sn * vkq;
                    v[k * n + q] = sn * vkp + c * vkq;
                }
            }
    }
    for (int i = 0; i < n; i++)
        ev[i] = a[i * n + i];
}

/* An eigenvalue below this fraction of the largest is a direction the
 * design does not see: combinations that only vary by rounding of the
 * times are not evidence. */
#define NULL_TOL 1e-7
/* A parameter whose component in the null space exceeds this is not
 * identified (a unit vector in the row space has none). */
#define NULL_COMP 1e-4
/* The range an unidentified combination of log figures is assumed to
 * lie in when its effect on the identified ones is counted: log 1.25. */
#define NULL_RANGE 0.223

/* The null space of the design gram (np x np) restricted to the active
 * parameters: its vectors in null (np each, row-major by vector), their
 * number returned; -1 out of memory. */
static int null_space (const double *gram, const unsigned char *active,
                       int np, double **null)
{
    int n = 0;
    int *map = malloc (sizeof (int) * np);
    if (!map)
        return -1;
    for (int k = 0; k < np; k++)
        if (active[k])
            map[n++] = k;
    double *a = malloc (sizeof (double) * (n * n + n * n + n + 1));
    *null = calloc ((size_t)np * (n ? n : 1), sizeof (double));
    if (!a || !*null) {
        free (map);
        free (a);
        free (*null);
        *null = NULL;
        return -1;
    }
    double *v = a + n * n, *ev = v + n * n;
    /* scale to unit diagonal: the tolerance is then about the design's
     * shape, not how long the jobs ran */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] = gram[map[i] * np + map[j]]
                           / sqrt (gram[map[i] * np + map[i]]
                                   * gram[map[j] * np + map[j]]);
    eigen_sym (a, n, v, ev);
    double top = 0;
    for (int j = 0; j < n; j++)
        if (ev[j] > top)
            top = ev[j];
    int nn = 0;
    for (int j = 0; j < n; j++) {
        if (ev[j] > NULL_TOL * top)
            continue;
        /* back to the unscaled parameters, normalised */
        double norm = 0;
        for (int i = 0; i < n; i++) {
            double x = v[i * n + j] / sqrt (gram[map[i] * np + map[i]]);
            (*null)[nn * np + map[i]] = x;
            norm += x * x;
        }
        for (int i = 0; i < n; i++)
            (*null)[nn * np + map[i]] /= sqrt (norm);
        nn++;
    }
    free (map);
    free (a);
    return nn;
}

/* ident[k] = 1 for each active parameter the design identifies; 0, or
 * -1 out of memory. */
static int identify (const double *gram, const unsigned char *active,
                     int np, unsigned char *ident)
{
    double *null = NULL;
    int nn = null_space (gram, active, np, &null);
    if (nn < 0)
        return -1;
    for (int k = 0; k < np; k++) {
        double c = 0;
        for (int j = 0; j < nn; j++)
            c += null[j * np + k] * null[j * np + k];
        ident[k] = active[k] && sqrt (c) <= NULL_COMP;
    }
    free (null);
    return 0;
}

/* The scratch of one program's fit: the jobs of p (idx), the parameters
 * (theta; free_: fitted), the normal equations (A, b), the residuals and
 * the weights, the penalty on the directions the design does not see,
 * the standard errors.  work_alloc () takes it all, work_free () frees
 * it. */
struct fitwork {
    int nq, np, nobs;
    int *idx;               /* the jobs of p in l->obs */
    int *nexp;              /* per q slot: jobs exposed to it */
    int nstriped, nfull, nalone;
    double meanlog;         /* mean log runtime of the jobs of p */
    unsigned char *free_, *ident;
    double *theta, *g, *A, *b, *r, *wt, *tmp, *node_sl, *node_d;
    double *L_scratch, *row, *seen;
    int *nzi;
    double *pen;            /* the penalty on unidentified directions */
    double *nullv, *extra;
    int nnull;
    int df;                 /* residual degrees of freedom */
    double floor_s;         /* the times' resolution in a log runtime */
    double *trial, *diagA, *se_arr, *L;
    ns_learn_why_t *why;
};

static void work_free (struct fitwork *w)
{
    free (w->idx);
    free (w->nexp);
    free (w->free_);
    free (w->theta);
    free (w->g);
    free (w->A);
    free (w->b);
    free (w->r);
    free (w->wt);
    free (w->tmp);
    free (w->node_sl);
    free (w->node_d);
    free (w->L_scratch);
    free (w->row);
    free (w->seen);
    free (w->nzi);
    free (w->ident);
    free (w->why);
    free (w->pen);
    free (w->nullv);
    free (w->extra);
    free (w->trial);
    free (w->diagA);
    free (w->se_arr);
    free (w->L);
}

/* Everything zeroed but L_scratch, L and nzi; -1 out of memory (what
 * was taken is freed by work_free ()). */
static int work_alloc (const ns_learn_t *l, int p, struct fitwork *w)
{
    int nq = l->nq, np = P_SLOW + nq, nobs = 0, maxnodes = 1;
    for (int i = 0; i < l->nobs; i++) {
        nobs += l->obs[i].p == p;
        if (l->obs[i].nnodes > maxnodes)
            maxnodes = l->obs[i].nnodes;
    }
    size_t no = nobs ? nobs : 1;
    *w = (struct fitwork){ .nq = nq, .np = np };
    w->idx = malloc (sizeof (int) * no);
    w->nexp = calloc (nq, sizeof (int));
    w->free_ = calloc (np, 1);
    w->theta = calloc (np, sizeof (double));
    w->g = calloc (np, sizeof (double));
    w->A = calloc ((size_t)np * np, sizeof (double));
    w->b = calloc (np, sizeof (double));
    w->r = calloc (no, sizeof (double));
    w->wt = calloc (no, sizeof (double));
    w->tmp = calloc (no, sizeof (double));
    w->node_sl = calloc (maxnodes, sizeof (double));
    w->node_d = calloc (nq, sizeof (double));
    w->L_scratch = malloc (sizeof (double) * np * np);
    w->row = calloc (np, sizeof (double));
    w->seen = calloc (nq, sizeof (double));
    w->nzi = malloc (sizeof (int) * np);
    w->ident = calloc (np, 1);
    w->why = calloc (np, sizeof (*w->why));
    w->pen = calloc ((size_t)np * np, sizeof (double));
    w->extra = calloc (np, sizeof (double));
    w->trial = calloc (np, sizeof (double));
    w->diagA = calloc (np, sizeof (double));
    w->se_arr = calloc (np, sizeof (double));
    w->L = malloc (sizeof (double) * np * np);
    if (!w->idx || !w->nexp || !w->free_ || !w->theta || !w->g || !w->A
        || !w->b || !w->r || !w->wt || !w->tmp || !w->node_sl || !w->node_d
        || !w->L_scratch || !w->row || !w->seen || !w->nzi || !w->ident
        || !w->why || !w->pen || !w->extra || !w->trial || !w->diagA
        || !w->se_arr || !w->L)
        return -1;
    return 0;
}

/* Job ob's time exposed to each co-tenant program (node_d; g: seen in
 * the stretch), counted in nexp when long enough; striped jobs with
 * enough time alone in nalone. */
static void count_exposure (const ns_learn_t *l, const struct obs *ob,
                            const ns_learn_opts_t *o, struct fitwork *w)
{
    int nq = w->nq;
    double *g = w->g, *node_d = w->node_d;
    for (int q = 0; q < nq; q++)
        node_d[q] = 0;
    for (int s = ob->first; s < ob->first + ob->nseg; s++) {
        const struct seg *sg = &l->seg[s];
        for (int q = 0; q < nq; q++)
            g[q] = 0;
        for (int e = sg->first; e < sg->first + sg->n; e++)
            g[l->ent[e].q + 1] = 1;
        for (int q = 0; q < nq; q++)
            if (g[q] != 0)
                node_d[q] += sg->dt;
    }
    for (int q = 0; q < nq; q++)
        if (node_d[q] > 0 && node_d[q] >= o->min_exposure * ob->runtime)
            w->nexp[q]++;
    double alone = 0;
    for (int s = ob->first; s < ob->first + ob->nseg; s++)
        if (l->seg[s].n == 0)
            alone += l->seg[s].dt;
    if (ob->striped && alone >= o->min_exposure * ob->runtime)
        w->nalone++;
}

/* The design of program p's jobs: their rows' Gram matrix (F->gram),
 * their exposures, their mean log runtime; every figure neutral until
 * fitted. */
static void design (const ns_learn_t *l, int p, const ns_learn_opts_t *o,
                    struct fit *F, struct fitwork *w)
{
    int nq = w->nq, np = w->np;
    for (int i = 0; i < l->nobs; i++) {
        const struct obs *ob = &l->obs[i];
        if (ob->p != p)
            continue;
        w->idx[w->nobs++] = i;
        w->meanlog += log (ob->runtime);
        design_row (l, ob, nq, w->row, w->seen);
        /* X'X from the row's nonzero entries (a job meets few programs) */
        const double *row = w->row;
        int *nzi = w->nzi, nz = 0;
        for (int x = 0; x < np; x++)
            if (row[x] != 0)
                nzi[nz++] = x;
        for (int a = 0; a < nz; a++)
            for (int c = 0; c < nz; c++)
                F->gram[nzi[a] * np + nzi[c]] += row[nzi[a]] * row[nzi[c]];
        if (ob->striped)
            w->nstriped++;
        else
            w->nfull++;
        count_exposure (l, ob, o, w);
    }
    F->base = neutral (w->nobs);
    F->speedup = neutral (w->nstriped);
    for (int q = 0; q < nq; q++)
        F->slow[q] = neutral (w->nexp[q]);
    F->nfull = w->nfull;
    F->nalone = w->nalone;
}

/* Which figures the design of the history identifies at all.  Every
 * parameter some job is exposed to is fitted (fixing one at neutral
 * would be an assumption that biases the others), the directions the
 * design does not see held at zero by a penalty on them (the
 * minimum-norm solution: it moves no identified combination); only
 * identified figures can be reported.  -1 out of memory. */
static int identification (struct fit *F, struct fitwork *w)
{
    int np = w->np, nobs = w->nobs;
    for (int k = 0; k < np; k++)
        F->active[k] = F->gram[k * np + k] > 0;
    if (identify (F->gram, F->active, np, w->ident) < 0)
        return -1;
    w->nnull = null_space (F->gram, F->active, np, &w->nullv);
    if (w->nnull < 0)
        return -1;
    for (int j = 0; j < w->nnull; j++)
        for (int x = 0; x < np; x++)
            for (int y = 0; y < np; y++)
                w->pen[x * np + y] += nobs * w->nullv[j * np + x]
                                      * w->nullv[j * np + y];
    return 0;
}

/* The start: the mean log runtime, every active parameter free; the
 * residual degrees of freedom and the times' resolution. */
static void start (const ns_learn_t *l, const struct fit *F,
                   struct fitwork *w)
{
    int np = w->np, nobs = w->nobs;
    w->theta[P_BASE] = w->meanlog;
    int nfree = 0;
    for (int k = 0; k < np; k++) {
        w->free_[k] = F->active[k];
        nfree += w->free_[k];
    }
    /* the residual degrees of freedom: runs less identified dimensions */
    w->df = nobs - (nfree - w->nnull);
    /* What the times' 1 s resolution (start and end rounded) leaves in a
     * log runtime: no residual below it is evidence of anything. */
    for (int i = 0; i < nobs; i++)
        w->tmp[i] = l->obs[w->idx[i]].runtime;
    qsort (w->tmp, nobs, sizeof (double), cmp_double);
    w->floor_s = 0.41 / w->tmp[nobs / 2];
}

/* The weighted squares and the penalty at theta; A and b the normal
 * equations there. */
static double eq_cost (const ns_learn_t *l, struct fitwork *w)
{
    return normal_eq (l, w->idx, w->nobs, w->theta, w->free_, w->np, w->wt,
                      w->g, w->A, w->b, w->r, w->node_sl, w->node_d)
           + penalize (w->pen, w->theta, w->meanlog, w->np, w->A, w->b);
}

/* One Levenberg-Marquardt step from theta: lambda raised until a step
 * lowers the cost (theta moved, 1) or 30 tries fail (0).  *gain: the
 * squared step. */
static int lm_step (const ns_learn_t *l, struct fitwork *w, double cost,
                    double *lambda, double *gain)
{
    int np = w->np;
    double *theta = w->theta, *trial = w->trial;
    const unsigned char *free_ = w->free_;
    for (int k = 0; k < np; k++)
        w->diagA[k] = w->A[k * np + k];
    *gain = 0;
    for (int tries = 0; tries < 30; tries++) {
        double *M = w->L_scratch;
        memcpy (M, w->A, sizeof (double) * np * np);
        memcpy (trial, w->b, sizeof (double) * np);
        for (int k = 0; k < np; k++)
            if (free_[k])
                M[k * np + k] = w->diagA[k] * (1.0 + *lambda) + 1e-12;
        if (cholesky_solve (M, trial, np, free_) < 0) {
            *lambda *= 10;
            continue;
        }
        *gain = 0;
        for (int k = 0; k < np; k++) {
            double v = theta[k];
            if (free_[k]) {
                v += trial[k];
                if (k != P_BASE && v > 2.0)
                    v = 2.0;
                if (k != P_BASE && v < -2.0)
                    v = -2.0;
                *gain += (v - theta[k]) * (v - theta[k]);
            }
            trial[k] = v;
        }
        double c2 = weighted_cost (l, w->idx, w->nobs, trial, free_, np,
                                   w->wt, w->g, w->node_sl, w->node_d)
                    + penalize (w->pen, trial, w->meanlog, np, NULL, NULL);
        if (isfinite (c2) && c2 <= cost) {
            memcpy (theta, trial, sizeof (double) * np);
            *lambda = *lambda / 10 > 1e-12 ? *lambda / 10 : 1e-12;
            return 1;
        }
        *lambda *= 10;
    }
    return 0;
}

/* Huber weights from the residuals' robust scale; 0 when the fit is
 * exact to the times' resolution (nothing to down-weight). */
static int huber_weights (const ns_learn_t *l, struct fitwork *w)
{
    int nobs = w->nobs;
    normal_eq (l, w->idx, nobs, w->theta, w->free_, w->np, w->wt, w->g,
               w->A, w->b, w->r, w->node_sl, w->node_d);
    for (int i = 0; i < nobs; i++)
        w->tmp[i] = w->r[i];
    qsort (w->tmp, nobs, sizeof (double), cmp_abs);
    double scale = 1.4826 * fabs (w->tmp[nobs / 2]);
    if (scale < w->floor_s)
        return 0;
    for (int i = 0; i < nobs; i++) {
        double a = fabs (w->r[i]);
        w->wt[i] = a <= 1.345 * scale ? 1.0 : 1.345 * scale / a;
    }
    return 1;
}

/* Levenberg-Marquardt on the weighted squares; then Huber weights from
 * the residuals and again, a few rounds (IRLS). */
static void robust_fit (const ns_learn_t *l, struct fitwork *w)
{
    for (int i = 0; i < w->nobs; i++)
        w->wt[i] = 1.0;
    for (int k = 0; k < w->np; k++)
        if (!w->free_[k])
            w->theta[k] = 0;
    for (int round = 0; round < 6; round++) {
        double lambda = 1e-3;
        double cost = eq_cost (l, w);
        for (int iter = 0; iter < 200 && isfinite (cost); iter++) {
            double gain;
            if (!lm_step (l, w, cost, &lambda, &gain) || gain < 1e-24)
                break;
            cost = eq_cost (l, w);
        }
        if (!huber_weights (l, w))
            break;
    }
}

/* The design identifies figures in the model linearised at neutral; a
 * co-tenant on a quarter node or for part of a run makes the model
 * curve, so an identified figure may still move with the unidentified
 * combinations.  How much, for each unidentified direction v: the
 * refitted response d theta = -(J'WJ + pen)^-1 J'W J v, times NULL_RANGE
 * (that combination anywhere within a factor 1.25 of neutral), added to
 * the variance (extra). */
static void null_variance (const ns_learn_t *l, struct fitwork *w)
{
    int np = w->np;
    double *trial = w->trial, *g = w->g;
    for (int j = 0; j < w->nnull; j++) {
        const double *v = w->nullv + (size_t)j * np;
        for (int x = 0; x < np; x++)
            trial[x] = 0;
        for (int i = 0; i < w->nobs; i++) {
            log_work (l, &l->obs[w->idx[i]], w->theta, w->free_, np, g,
                      w->node_sl, w->node_d);
            g[P_BASE] = -1.0;
            double jv = 0;
            for (int x = 0; x < np; x++)
                jv += g[x] * v[x];
            for (int x = 0; x < np; x++)
                trial[x] -= w->wt[i] * g[x] * jv;
        }
        memcpy (w->L, w->A, sizeof (double) * np * np);
        if (cholesky_solve (w->L, trial, np, w->free_) == 0)
            for (int k = 0; k < np; k++)
                w->extra[k] += trial[k] * trial[k] * NULL_RANGE
                               * NULL_RANGE;
    }
}

/* Covariance: s^2 (J'WJ)^-1, column by column, in se_arr (NaN: not
 * separable); the residual variance s^2. */
static double std_errors (const ns_learn_t *l, struct fitwork *w)
{
    int np = w->np;
    double ss = normal_eq (l, w->idx, w->nobs, w->theta, w->free_, np, w->wt,
                           w->g, w->A, w->b, w->r, w->node_sl, w->node_d);
    /* (J'WJ + pen)^-1 is the pseudo-inverse of J'WJ on the identified
     * figures: their variances are exact, the others not reported */
    penalize (w->pen, w->theta, w->meanlog, np, w->A, w->b);
    /* The residual variance, pooled over the runs of p, and never below
     * the times' resolution: an exact fit of simulated or repeated runs
     * does not make a figure exact. */
    double s2 = w->df > 0 ? ss / w->df : NAN;
    if (s2 < w->floor_s * w->floor_s)
        s2 = w->floor_s * w->floor_s;
    null_variance (l, w);
    for (int k = 0; k < np; k++) {
        w->se_arr[k] = NAN;
        if (!w->free_[k])
            continue;
        memcpy (w->L, w->A, sizeof (double) * np * np);
        for (int x = 0; x < np; x++)
            w->b[x] = x == k ? 1.0 : 0.0;
        /* A variance inflation above 1e6: not separable from the other
         * figures, whatever the residuals (an exact fit has s2 = 0). */
        if (cholesky_solve (w->L, w->b, np, w->free_) == 0
            && isfinite (w->b[k]) && w->b[k] * w->A[k * np + k] < 1e6)
            w->se_arr[k] = exp (w->theta[k])
                           * sqrt (s2 * (w->b[k] > 0 ? w->b[k] : 0)
                                   + w->extra[k]);
    }
    return s2;
}

/* What is reported: identified, enough jobs exposed, an error that can
 * be measured and is small enough (free_[k] from now: learned). */
static void verdicts (const ns_learn_opts_t *o, const struct fit *F,
                      double s2, struct fitwork *w)
{
    for (int k = P_SPEED; k < w->np; k++) {
        int n = k == P_SPEED ? w->nstriped : w->nexp[k - P_SLOW];
        int enough = n >= o->min_observations
                     && (k != P_SPEED || w->nfull >= 1);
        w->why[k] = !F->active[k] ? NS_LEARN_NO_DATA
                    : !w->ident[k] ? NS_LEARN_UNIDENTIFIED
                    : !enough ? NS_LEARN_FEW
                    : isnan (s2) ? NS_LEARN_NO_RESIDUAL
                    : !(w->se_arr[k] <= o->max_se) ? NS_LEARN_UNCERTAIN
                    : NS_LEARN_LEARNED;
        w->free_[k] = w->why[k] == NS_LEARN_LEARNED;
    }
}

/* The figures into F: learned ones with their value and error, the
 * others neutral with the reason. */
static void store (const struct fitwork *w, struct fit *F)
{
    const double *theta = w->theta;
    for (int k = 0; k < w->np; k++) {
        double v = exp (theta[k]);
        int on = w->free_[k];
        ns_learn_fig_t fig = { .value = on ? v : 1.0,
                               .se = on ? w->se_arr[k] : NAN,
                               .learned = on,
                               .identified = w->ident[k],
                               .why = on ? NS_LEARN_LEARNED : w->why[k] };
        if (k == P_BASE) {
            fig.n = w->nobs;
            F->base = fig;
        } else if (k == P_SPEED) {
            fig.n = w->nstriped;
            F->speedup = fig;
        } else {
            fig.n = w->nexp[k - P_SLOW];
            F->slow[k - P_SLOW] = fig;
        }
    }
    F->logb = theta[P_BASE];
    F->a = theta[P_SPEED];
    for (int q = 0; q < w->nq; q++)
        F->c[q] = theta[P_SLOW + q];
}

/* Program p's figures from its jobs: the design, what it identifies,
 * the robust fit, the errors, the verdicts.  -1 out of memory. */
static int fit_program (ns_learn_t *l, int p, const ns_learn_opts_t *o,
                        struct fit *F)
{
    struct fitwork w;
    int rc = -1;
    int np = P_SLOW + l->nq;
    F->gram = calloc ((size_t)np * np, sizeof (double));
    F->active = calloc (np, 1);
    if (work_alloc (l, p, &w) < 0 || !F->gram || !F->active)
        goto out;
    design (l, p, o, F, &w);
    if (w.nobs == 0) {
        rc = 0;
        goto out;
    }
    w.meanlog /= w.nobs;
    if (identification (F, &w) < 0)
        goto out;
    start (l, F, &w);
    robust_fit (l, &w);
    double s2 = std_errors (l, &w);
    verdicts (o, F, s2, &w);
    store (&w, F);
    rc = 0;
out:
    work_free (&w);
    return rc;
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
            || fit_program (l, p, opts, &l->fit[p]) < 0) {
            free_fit (l);
            return ns_error_set (err, ENOMEM, "out of memory");
        }
    }
    return 0;
}

ns_learn_fig_t ns_learn_speedup (const ns_learn_t *l, int p)
{
    if (!l || p < 0 || p >= l->nfit)
        return neutral (0);
    return l->fit[p].speedup;
}

ns_learn_fig_t ns_learn_slowdown (const ns_learn_t *l, int p, int q)
{
    if (!l || p < 0 || p >= l->nfit || q < NS_PROGRAM_UNKNOWN
        || q + 1 >= l->nq)
        return neutral (0);
    return l->fit[p].slow[q + 1];
}

ns_learn_fig_t ns_learn_base (const ns_learn_t *l, int p)
{
    if (!l || p < 0 || p >= l->nfit)
        return neutral (0);
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
    int rc = identify (g, act, np, act + np);
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
    int nn = null_space (F->gram, F->active, np, &null);
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
