/* SPDX-License-Identifier: GPL-2.0-or-later */
/* interf.c - speedups and pairwise slowdowns (design.md section 3)
 *
 * Dense n x n matrix over progtab ids, grown on demand; NaN marks "not
 * set" so that a lookup falls back to the configured default.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "interf.h"
#include "interf_test.h"
#include "nsutil.h"

struct ns_interf {
    int n;              /* ids 0..n-1 have storage */
    double *speedup;    /* n */
    double *weight;     /* n */
    double *runtime;    /* n */
    double *slowdown;   /* n * n, row = program slowed */
    int *cls;           /* ncls: program -> class, -1 = itself */
    int ncls;
    double def_speedup;
    double max_speedup; /* largest speedup set, default included */
    double def_slowdown;
};

ns_interf_t *ns_interf_create (void)
{
    ns_interf_t *m = calloc (1, sizeof (*m));
    if (!m)
        return NULL;
    m->def_speedup = 1.0;
    m->max_speedup = 1.0;
    m->def_slowdown = 1.0;
    return m;
}

void ns_interf_destroy (ns_interf_t *m)
{
    int saved = errno;   /* a destroy never changes errno */
    if (!m)
        return;
    free (m->speedup);
    free (m->weight);
    free (m->runtime);
    free (m->slowdown);
    free (m->cls);
    free (m);
    errno = saved;
}

static int grow (ns_interf_t *m, int need)
{
    if (need <= m->n)
        return 0;
    int n = m->n ? m->n : 4;
    while (n < need)
        n *= 2;
    double *sp = malloc (sizeof (double) * n);
    double *w = malloc (sizeof (double) * n);
    double *rt = malloc (sizeof (double) * n);
    double *sl = malloc (sizeof (double) * n * n);
    if (!sp || !w || !sl || !rt) {
        free (sp);
        free (w);
        free (rt);
        free (sl);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        sp[i] = i < m->n ? m->speedup[i] : NAN;
        w[i] = i < m->n ? m->weight[i] : NAN;
        rt[i] = i < m->n ? m->runtime[i] : NAN;
        for (int j = 0; j < n; j++)
            sl[i * n + j] = i < m->n && j < m->n ? m->slowdown[i * m->n + j]
                                                 : NAN;
    }
    free (m->speedup);
    free (m->weight);
    free (m->runtime);
    free (m->slowdown);
    m->speedup = sp;
    m->weight = w;
    m->runtime = rt;
    m->slowdown = sl;
    m->n = n;
    return 0;
}

ns_interf_t *ns_interf_copy (const ns_interf_t *m)
{
    ns_interf_t *c = ns_interf_create ();
    if (!c || !m)
        return c;
    if (grow (c, m->n) < 0) {
        ns_interf_destroy (c);
        return NULL;
    }
    if (m->n > 0) {     /* without programs the arrays are NULL */
        memcpy (c->speedup, m->speedup, sizeof (double) * m->n);
        memcpy (c->weight, m->weight, sizeof (double) * m->n);
        memcpy (c->runtime, m->runtime, sizeof (double) * m->n);
        memcpy (c->slowdown, m->slowdown, sizeof (double) * m->n * m->n);
    }
    if (m->ncls) {
        c->cls = malloc (sizeof (int) * m->ncls);
        if (!c->cls) {
            ns_interf_destroy (c);
            return NULL;
        }
        memcpy (c->cls, m->cls, sizeof (int) * m->ncls);
        c->ncls = m->ncls;
    }
    c->def_speedup = m->def_speedup;
    c->max_speedup = m->max_speedup;
    c->def_slowdown = m->def_slowdown;
    return c;
}

static double recompute_max (const ns_interf_t *m);

static int check_value (double v, const char *what, ns_error_t *err)
{
    if (!isfinite (v) || v < 0.01 || v > 100.0)
        return ns_error_set (err, ERANGE,
                             "%s %g out of range 0.01..100", what, v);
    return 0;
}

static int check_id (ns_interf_t *m, int p, ns_error_t *err)
{
    if (!m || p < 0 || p > 65535)
        return ns_error_set (err, EINVAL, "program id %d out of range", p);
    if (grow (m, p + 1) < 0)
        return ns_error_set (err, ENOMEM, "out of memory");
    return 0;
}

int ns_interf_set_defaults (ns_interf_t *m, double speedup, double slowdown,
                            ns_error_t *err)
{
    if (!m)
        return ns_error_set (err, EINVAL, "no model");
    if (check_value (speedup, "default speedup", err) < 0
        || check_value (slowdown, "default slowdown", err) < 0)
        return -1;
    m->def_speedup = speedup;
    m->def_slowdown = slowdown;
    m->max_speedup = recompute_max (m);
    return 0;
}

int ns_interf_set_speedup (ns_interf_t *m, int p, double speedup,
                           ns_error_t *err)
{
    if (check_value (speedup, "speedup", err) < 0 || check_id (m, p, err) < 0)
        return -1;
    m->speedup[p] = speedup;
    m->max_speedup = speedup > m->max_speedup ? speedup : recompute_max (m);
    return 0;
}

int ns_interf_set_slowdown (ns_interf_t *m, int p, int q, double slowdown,
                            ns_error_t *err)
{
    if (check_value (slowdown, "slowdown", err) < 0 || check_id (m, p, err) < 0
        || check_id (m, q, err) < 0)
        return -1;
    m->slowdown[p * m->n + q] = slowdown;
    return 0;
}

int ns_interf_set_weight (ns_interf_t *m, int p, double weight,
                          ns_error_t *err)
{
    if (!isfinite (weight) || weight < 0 || weight > 1e9)
        return ns_error_set (err, ERANGE, "weight %g out of range 0..1e9",
                             weight);
    if (check_id (m, p, err) < 0)
        return -1;
    m->weight[p] = weight;
    return 0;
}

int ns_interf_set_class (ns_interf_t *m, int p, int cls, ns_error_t *err)
{
    if (!m || p < 0 || p > 10000000 || cls < -1 || cls > 65535)
        return ns_error_set (err, EINVAL, "class %d of program %d out of range",
                             cls, p);
    if (p >= m->ncls) {
        int old = m->ncls;
        if (ns_grow (&m->cls, &m->ncls, p + 1, sizeof (*m->cls), 16) < 0)
            return ns_error_set (err, ENOMEM, "out of memory");
        for (int i = old; i < m->ncls; i++)
            m->cls[i] = -1;
    }
    m->cls[p] = cls;
    return 0;
}

int ns_interf_class (const ns_interf_t *m, int p)
{
    if (!m || p < 0 || p >= m->ncls || m->cls[p] < 0)
        return p;
    return m->cls[p];
}

int ns_interf_set_runtime (ns_interf_t *m, int p, double seconds,
                           ns_error_t *err)
{
    if (!isfinite (seconds) || seconds < 1 || seconds > 1e9)
        return ns_error_set (err, ERANGE, "runtime %g out of range 1..1e9",
                             seconds);
    if (check_id (m, p, err) < 0)
        return -1;
    m->runtime[p] = seconds;
    return 0;
}

double ns_interf_runtime (const ns_interf_t *m, int p)
{
    if (!m || p < 0 || p >= m->n || isnan (m->runtime[p]))
        return 3600.0;
    return m->runtime[p];
}

double ns_interf_speedup (const ns_interf_t *m, int p)
{
    if (!m)
        return 1.0;
    p = ns_interf_class (m, p);
    if (p < 0 || p >= m->n || isnan (m->speedup[p]))
        return m->def_speedup;
    return m->speedup[p];
}

double ns_interf_slowdown (const ns_interf_t *m, int p, int q)
{
    if (!m)
        return 1.0;
    p = ns_interf_class (m, p);
    q = ns_interf_class (m, q);
    if (p < 0 || q < 0 || p >= m->n || q >= m->n
        || isnan (m->slowdown[p * m->n + q]))
        return m->def_slowdown;
    return m->slowdown[p * m->n + q];
}

int ns_interf_given_speedup (const ns_interf_t *m, int p)
{
    return m && p >= 0 && p < m->n && !isnan (m->speedup[p]);
}

int ns_interf_given_slowdown (const ns_interf_t *m, int p, int q)
{
    return m && p >= 0 && q >= 0 && p < m->n && q < m->n
           && !isnan (m->slowdown[p * m->n + q]);
}

double ns_interf_weight (const ns_interf_t *m, int p)
{
    if (!m || p < 0 || p >= m->n || isnan (m->weight[p]))
        return 0.0;
    return m->weight[p];
}

double ns_interf_max_speedup (const ns_interf_t *m)
{
    return m ? m->max_speedup : 1.0;
}

static double recompute_max (const ns_interf_t *m)
{
    double best = m->def_speedup;
    for (int i = 0; i < m->n; i++)
        if (!isnan (m->speedup[i]) && m->speedup[i] > best)
            best = m->speedup[i];
    return best;
}

int ns_interf_nprograms (const ns_interf_t *m)
{
    int top = 0;
    for (int i = 0; m && i < m->n; i++) {
        int set = !isnan (m->speedup[i]) || !isnan (m->weight[i])
                  || !isnan (m->runtime[i]);
        for (int j = 0; j < m->n && !set; j++)
            set = !isnan (m->slowdown[i * m->n + j])
                  || !isnan (m->slowdown[j * m->n + i]);
        if (set)
            top = i + 1;
    }
    return top;
}

int ns_interf_neutral (const ns_interf_t *m, int p)
{
    if (!m)
        return 1;
    if (m->def_speedup != 1.0 || m->def_slowdown != 1.0)
        return 0;
    p = ns_interf_class (m, p);
    if (p < 0)
        return 1;   /* unknown program */
    if (p >= m->n)
        return 1;
    if (!isnan (m->speedup[p]))
        return 0;
    for (int q = 0; q < m->n; q++)
        if (!isnan (m->slowdown[p * m->n + q])
            || !isnan (m->slowdown[q * m->n + p]))
            return 0;
    return 1;
}

double ns_interf_node_slowdown (const ns_interf_t *m, int p,
                                const int *cotenants, int n)
{
    double s = 1.0;
    for (int i = 0; i < n; i++)
        s *= ns_interf_slowdown (m, p, cotenants[i]);
    return s;
}

double ns_interf_partial_slowdown (const ns_interf_t *m, int p, int q,
                                   int cores_q, int node_cores)
{
    double s = ns_interf_slowdown (m, p, q);
    if (node_cores < 1 || cores_q < 1)
        return 1.0;
    double f = 2.0 * (double)cores_q / (double)node_cores;
    if (f > 2.0)
        f = 2.0;
    return 1.0 + (s - 1.0) * f;
}

double ns_interf_mutual (const ns_interf_t *m, int p, int q)
{
    double a = ns_interf_slowdown (m, p, q);
    double b = ns_interf_slowdown (m, q, p);
    return a > b ? a : b;
}
