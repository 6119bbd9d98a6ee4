/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare.c - host lists, co-tenants at start, shapes (see compare.h) */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "hostlist.h"

/* ---- co-tenants at start ---- */

struct ord {
    double t;
    int job;
};

static int ord_cmp (const void *a, const void *b)
{
    const struct ord *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->job > y->job) - (x->job < y->job);
}

static int int_cmp (const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Per node, the jobs running on it. */
struct nodelist {
    int *job;
    int n, cap;
};

static int node_add (struct nodelist *nl, int job)
{
    if (nl->n == nl->cap) {
        int cap = nl->cap ? nl->cap * 2 : 4;
        int *j = realloc (nl->job, sizeof (int) * cap);
        if (!j)
            return -1;
        nl->job = j;
        nl->cap = cap;
    }
    nl->job[nl->n++] = job;
    return 0;
}

static void node_remove (struct nodelist *nl, int job)
{
    for (int i = 0; i < nl->n; i++)
        if (nl->job[i] == job) {
            nl->job[i] = nl->job[--nl->n];
            return;
        }
}

void ns_cotenants_free (ns_cotenants_t *ct)
{
    if (!ct)
        return;
    free (ct->first);
    free (ct->prog);
    ct->first = NULL;
    ct->prog = NULL;
    ct->n = 0;
}

int ns_cotenants_compute (const ns_placed_t *jobs, int n, int nnodes,
                          ns_cotenants_t *out, ns_error_t *err)
{
    struct ord *starts = NULL, *ends = NULL;
    struct nodelist *nodes = NULL;
    int *found = NULL, nfound = 0, capfound = 0;
    int **lists = NULL, *counts = NULL;
    int nstarted = 0, rc = -1;

    memset (out, 0, sizeof (*out));
    for (int i = 0; i < n; i++) {
        if (jobs[i].start < 0)
            continue;
        for (int k = 0; k < jobs[i].nshares; k++)
            if (jobs[i].shares[k].node < 0
                || jobs[i].shares[k].node >= nnodes)
                return ns_error_set (err, EINVAL, "job %d runs on node "
                                     "index %d, outside the %d nodes of "
                                     "the machine", i,
                                     jobs[i].shares[k].node, nnodes);
        nstarted++;
    }
    starts = malloc (sizeof (*starts) * (nstarted + 1));
    ends = malloc (sizeof (*ends) * (nstarted + 1));
    nodes = calloc ((size_t)nnodes + 1, sizeof (*nodes));
    lists = calloc ((size_t)n + 1, sizeof (*lists));
    counts = calloc ((size_t)n + 1, sizeof (*counts));
    if (!starts || !ends || !nodes || !lists || !counts)
        goto nomem;
    nstarted = 0;
    for (int i = 0; i < n; i++) {
        if (jobs[i].start < 0)
            continue;
        starts[nstarted] = (struct ord){ jobs[i].start, i };
        ends[nstarted] = (struct ord){ jobs[i].end, i };
        nstarted++;
    }
    qsort (starts, nstarted, sizeof (*starts), ord_cmp);
    qsort (ends, nstarted, sizeof (*ends), ord_cmp);
    int e = 0;
    for (int s = 0; s < nstarted; ) {
        double t = starts[s].t;
        /* Ends at or before t first: they have left. */
        for (; e < nstarted && ends[e].t <= t; e++) {
            const ns_placed_t *j = &jobs[ends[e].job];
            for (int k = 0; k < j->nshares; k++)
                node_remove (&nodes[j->shares[k].node], ends[e].job);
        }
        int s0 = s;
        for (; s < nstarted && starts[s].t == t; s++) {
            const ns_placed_t *j = &jobs[starts[s].job];
            /* a job of 0 s has left as it came: nobody's co-tenant */
            if (j->end <= j->start)
                continue;
            for (int k = 0; k < j->nshares; k++)
                if (node_add (&nodes[j->shares[k].node], starts[s].job) < 0)
                    goto nomem;
        }
        for (int q = s0; q < s; q++) {
            int ji = starts[q].job;
            const ns_placed_t *j = &jobs[ji];
            nfound = 0;
            for (int k = 0; k < j->nshares; k++) {
                const struct nodelist *nl = &nodes[j->shares[k].node];
                for (int m = 0; m < nl->n; m++) {
                    if (nl->job[m] == ji)
                        continue;
                    if (nfound == capfound) {
                        int cap = capfound ? capfound * 2 : 16;
                        int *f = realloc (found, sizeof (int) * cap);
                        if (!f)
                            goto nomem;
                        found = f;
                        capfound = cap;
                    }
                    found[nfound++] = jobs[nl->job[m]].program;
                }
            }
            if (nfound > 1)
                qsort (found, nfound, sizeof (int), int_cmp);
            int u = 0;
            for (int m = 0; m < nfound; m++)
                if (u == 0 || found[u - 1] != found[m])
                    found[u++] = found[m];
            if (u) {
                lists[ji] = malloc (sizeof (int) * u);
                if (!lists[ji])
                    goto nomem;
                memcpy (lists[ji], found, sizeof (int) * u);
                counts[ji] = u;
            }
        }
    }
    /* Flatten. */
    out->first = malloc (sizeof (int) * ((size_t)n + 1));
    if (!out->first)
        goto nomem;
    int total = 0;
    for (int i = 0; i < n; i++) {
        out->first[i] = total;
        total += counts[i];
    }
    out->first[n] = total;
    out->prog = malloc (sizeof (int) * ((size_t)total + 1));
    if (!out->prog)
        goto nomem;
    for (int i = 0; i < n; i++)
        if (counts[i])
            memcpy (out->prog + out->first[i], lists[i],
                    sizeof (int) * counts[i]);
    out->n = n;
    rc = 0;
    goto done;
nomem:
    ns_cotenants_free (out);
    ns_error_set (err, ENOMEM, "out of memory");
done:
    if (nodes)
        for (int i = 0; i < nnodes; i++)
            free (nodes[i].job);
    if (lists)
        for (int i = 0; i < n; i++)
            free (lists[i]);
    free (nodes);
    free (lists);
    free (counts);
    free (starts);
    free (ends);
    free (found);
    return rc;
}

void ns_cotenants_format (const ns_cotenants_t *ct, int i,
                          const ns_progtab_t *progs, const char *sep,
                          char *buf, size_t size)
{
    size_t len = 0;
    if (size == 0)
        return;
    buf[0] = '\0';
    for (int k = ct->first[i]; k < ct->first[i + 1]; k++) {
        int p = ct->prog[k];
        const char *name = p >= 0 && progs ? ns_progtab_name (progs, p) : NULL;
        int w = snprintf (buf + len, size - len, "%s%s",
                          k > ct->first[i] ? sep : "", name ? name : "?");
        if (w < 0 || (size_t)w >= size - len)
            return;
        len += (size_t)w;
    }
}

int ns_cotenants_equal (const ns_cotenants_t *ca, int a,
                        const ns_cotenants_t *cb, int b)
{
    int na = ca->first[a + 1] - ca->first[a];
    int nb = cb->first[b + 1] - cb->first[b];
    if (na != nb)
        return 0;
    return na == 0 || memcmp (ca->prog + ca->first[a], cb->prog + cb->first[b],
                              sizeof (int) * na) == 0;
}

/* ---- host lists ---- */

struct nl_ctx {
    const char *list;
    int *nodes, max, n;
    ns_error_t *err;
    ns_nodenames_t *names;
    int fixed;
};

/* ---- whole node names ---- */

struct ns_nodenames {
    char **name;
    int n, cap;
    int *slot;              /* open addressing: index + 1, 0 empty */
    int nslots;             /* a power of two, > 2 n */
};

static unsigned name_hash (const char *s)
{
    unsigned h = 2166136261u;       /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

ns_nodenames_t *ns_nodenames_create (void)
{
    ns_nodenames_t *t = calloc (1, sizeof (*t));
    if (t && !(t->slot = calloc (64, sizeof (int)))) {
        free (t);
        return NULL;
    }
    if (t)
        t->nslots = 64;
    return t;
}

void ns_nodenames_destroy (ns_nodenames_t *t)
{
    if (!t)
        return;
    int e = errno;
    for (int i = 0; i < t->n; i++)
        free (t->name[i]);
    free (t->name);
    free (t->slot);
    free (t);
    errno = e;
}

static int *find_slot (const ns_nodenames_t *t, const char *name)
{
    unsigned m = (unsigned)t->nslots - 1, k = name_hash (name) & m;
    while (t->slot[k] && strcmp (t->name[t->slot[k] - 1], name) != 0)
        k = (k + 1) & m;
    return &t->slot[k];
}

int ns_nodenames_find (const ns_nodenames_t *t, const char *name)
{
    return *find_slot (t, name) - 1;
}

int ns_nodenames_add (ns_nodenames_t *t, const char *name)
{
    int *s = find_slot (t, name);
    if (*s)
        return *s - 1;
    if (2 * (t->n + 1) >= t->nslots) {
        int *ns = calloc ((size_t)t->nslots * 2, sizeof (int));
        if (!ns)
            return -1;
        free (t->slot);
        t->slot = ns;
        t->nslots *= 2;
        for (int i = 0; i < t->n; i++)
            *find_slot (t, t->name[i]) = i + 1;
        s = find_slot (t, name);
    }
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        char **nn = realloc (t->name, sizeof (*nn) * cap);
        if (!nn)
            return -1;
        t->name = nn;
        t->cap = cap;
    }
    if (!(t->name[t->n] = strdup (name)))
        return -1;
    *s = ++t->n;
    return t->n - 1;
}

int ns_nodenames_count (const ns_nodenames_t *t)
{
    return t->n;
}

const char *ns_nodenames_name (const ns_nodenames_t *t, int i)
{
    return i >= 0 && i < t->n ? t->name[i] : NULL;
}

/* Natural order: runs of digits compare by value ("ns2" < "ns10"), the
 * rest by byte; equal values with more leading zeros after. */
int ns_nodename_cmp (const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit ((unsigned char)*a) && isdigit ((unsigned char)*b)) {
            const char *x = a, *y = b;
            while (*x == '0')
                x++;
            while (*y == '0')
                y++;
            size_t nx = strspn (x, "0123456789");
            size_t ny = strspn (y, "0123456789");
            if (nx != ny)
                return nx < ny ? -1 : 1;
            int c = memcmp (x, y, nx);
            if (c)
                return c < 0 ? -1 : 1;
            size_t za = (size_t)(x - a), zb = (size_t)(y - b);
            if (za != zb)
                return za < zb ? -1 : 1;
            a = x + nx;
            b = y + ny;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

static int name_cmp (const void *x, const void *y)
{
    return ns_nodename_cmp (*(char *const *)x, *(char *const *)y);
}

int ns_nodenames_sort (ns_nodenames_t *t, int *to)
{
    char **old = malloc (sizeof (*old) * (t->n ? t->n : 1));
    if (!old)
        return -1;
    memcpy (old, t->name, sizeof (*old) * t->n);
    qsort (t->name, t->n, sizeof (*t->name), name_cmp);
    for (int i = 0; i < t->n; i++)
        *find_slot (t, t->name[i]) = i + 1;
    for (int i = 0; i < t->n; i++)
        to[i] = ns_nodenames_find (t, old[i]);
    free (old);
    return 0;
}

static int nl_whole (const char *name, void *arg)
{
    struct nl_ctx *x = arg;
    int i = x->fixed ? ns_nodenames_find (x->names, name)
                     : ns_nodenames_add (x->names, name);
    if (i < 0 && x->fixed)
        return ns_error_set (x->err, EINVAL, "host list '%s': node '%s' is "
                             "not a node of the machine", x->list, name);
    if (i < 0)
        return ns_error_set (x->err, ENOMEM, "out of memory");
    if (x->n >= x->max)
        return ns_error_set (x->err, EINVAL, "host list '%s': more than %d "
                             "nodes", x->list, x->max);
    x->nodes[x->n++] = i;
    return 0;
}

int ns_nodelist_names (const char *list, ns_nodenames_t *t, int fixed,
                       int *nodes, int max, ns_error_t *err)
{
    struct nl_ctx x = { .list = list, .nodes = nodes, .max = max,
                        .err = err, .names = t, .fixed = fixed };
    if (ns_hostlist_expand (list, max + 1, nl_whole, &x, err) != 0)
        return -1;
    qsort (nodes, x.n, sizeof (int), int_cmp);
    int u = 0;
    for (int i = 0; i < x.n; i++)
        if (u == 0 || nodes[u - 1] != nodes[i])
            nodes[u++] = nodes[i];
    return u;
}

/* ---- shapes ---- */

static int cores_desc (const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x < y) - (x > y);
}

void ns_shape_format (const ns_share_t *shares, int n, char *buf,
                      size_t size)
{
    if (size == 0)
        return;
    if (n <= 0 || !shares) {
        snprintf (buf, size, "-");
        return;
    }
    int even = 1;
    for (int i = 1; i < n; i++)
        even &= shares[i].cores == shares[0].cores;
    if (even) {
        snprintf (buf, size, "%dx%d", n, shares[0].cores);
        return;
    }
    int *c = malloc (sizeof (int) * n);
    if (!c) {
        snprintf (buf, size, "%d nodes", n);
        return;
    }
    for (int i = 0; i < n; i++)
        c[i] = shares[i].cores;
    qsort (c, n, sizeof (int), cores_desc);
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        int w = snprintf (buf + len, size - len, "%s%d", i ? "+" : "", c[i]);
        if (w < 0 || (size_t)w >= size - len)
            break;
        len += (size_t)w;
    }
    free (c);
}

/* ---- the engine's schedule ---- */

int ns_sim_cotenants (const ns_sim_t *sim, ns_cotenants_t *out,
                      ns_error_t *err)
{
    int n = ns_sim_njobs (sim);
    ns_placed_t *p = malloc (sizeof (*p) * ((size_t)n + 1));
    if (!p)
        return ns_error_set (err, ENOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        const ns_simresult_t *r = ns_sim_result (sim, i);
        int started = r->state == NS_SJ_RUNNING || r->state == NS_SJ_DONE;
        p[i] = (ns_placed_t){
            .start = started ? r->start : -1,
            .end = r->state == NS_SJ_DONE ? r->end : 1e300,
            .program = ns_sim_job (sim, i)->program,
        };
        p[i].shares = ns_sim_job_shares (sim, i, &p[i].nshares);
    }
    int rc = ns_cotenants_compute (p, n, ns_cluster_nnodes (ns_sim_cluster (sim)),
                                   out, err);
    free (p);
    return rc;
}
