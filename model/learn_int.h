/* SPDX-License-Identifier: GPL-2.0-or-later */
/* learn_int.h - inside the learner: the observations learn.c records
 * and the per-program fit model/learnfit.c makes of them (learn.h says
 * what is fitted and how).  Not an interface: learn.c and learnfit.c
 * only. */
#ifndef NODESHARE_LEARN_INT_H
#define NODESHARE_LEARN_INT_H

#include <math.h>

#include "learn.h"

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

/* Parameter layout of one program's fit: 0 log base, 1 log speedup,
 * 2 + slot: log slowdown beside program slot - 1 (slot 0: unknown). */
#define P_BASE 0
#define P_SPEED 1
#define P_SLOW 2

/* A parameter whose component in the null space exceeds this is not
 * identified (a unit vector in the row space has none). */
#define NULL_COMP 1e-4

static inline int ns_learn_cmp_double (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A figure left neutral, with n jobs exposed to it. */
static inline ns_learn_fig_t ns_learn_neutral (int n)
{
    return (ns_learn_fig_t){ .value = 1.0, .se = NAN, .n = n, .learned = 0,
                             .why = NS_LEARN_NO_DATA };
}

/* The null space of the design gram (np x np) restricted to the active
 * parameters: its vectors in *null (np each, row-major by vector,
 * malloc'd), their number returned; -1 out of memory. */
int ns_learn_null_space (const double *gram, const unsigned char *active,
                         int np, double **null);

/* ident[k] = 1 for each active parameter the design identifies; 0, or
 * -1 out of memory. */
int ns_learn_identify (const double *gram, const unsigned char *active,
                       int np, unsigned char *ident);

/* Program p's figures from its jobs in l into F (F->c and F->slow
 * allocated by the caller; F->gram and F->active allocated here, freed
 * with the fit).  -1 out of memory. */
int ns_learn_fit_program (ns_learn_t *l, int p, const ns_learn_opts_t *o,
                          struct fit *F);

#endif /* !NODESHARE_LEARN_INT_H */
