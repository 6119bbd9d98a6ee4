/* SPDX-License-Identifier: GPL-2.0-or-later */
/* learnfit.c - the learner's fit of one program (learn.h says what is
 * fitted and how): the log-linear model and its gradient, the normal
 * equations, the design of the history and what it identifies (its null
 * space), then the fit in steps: the design and the exposures, the
 * identification, Levenberg-Marquardt with Huber rounds (IRLS), the
 * standard errors and the verdicts. */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "learn.h"
#include "learn_int.h"

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
/* The range an unidentified combination of log figures is assumed to
 * lie in when its effect on the identified ones is counted: log 1.25. */
#define NULL_RANGE 0.223

/* The null space of the design gram (np x np) restricted to the active
 * parameters: its vectors in null (np each, row-major by vector), their
 * number returned; -1 out of memory. */
int ns_learn_null_space (const double *gram, const unsigned char *active,
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
int ns_learn_identify (const double *gram, const unsigned char *active,
                       int np, unsigned char *ident)
{
    double *null = NULL;
    int nn = ns_learn_null_space (gram, active, np, &null);
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
    F->base = ns_learn_neutral (w->nobs);
    F->speedup = ns_learn_neutral (w->nstriped);
    for (int q = 0; q < nq; q++)
        F->slow[q] = ns_learn_neutral (w->nexp[q]);
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
    if (ns_learn_identify (F->gram, F->active, np, w->ident) < 0)
        return -1;
    w->nnull = ns_learn_null_space (F->gram, F->active, np, &w->nullv);
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
    qsort (w->tmp, nobs, sizeof (double), ns_learn_cmp_double);
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
int ns_learn_fit_program (ns_learn_t *l, int p, const ns_learn_opts_t *o,
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
