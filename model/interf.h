/* SPDX-License-Identifier: GPL-2.0-or-later */
/* interf.h - interference model (design.md section 3)
 *
 * Two numbers per program and one per ordered pair:
 *   spread_speedup[p] = runtime on one full node / runtime alone on two
 *                       half-used nodes (> 1 means striping helps p);
 *   slowdown[p][q]    = runtime of p sharing its nodes with q / runtime of p
 *                       alone on the same half-used nodes (may be < 1).
 * Programs are progtab ids.  Anything not set (an unknown program, an id
 * beyond the table) reads as the defaults, 1.0 unless configured.
 */
#ifndef NODESHARE_INTERF_H
#define NODESHARE_INTERF_H

#include "nserror.h"

typedef struct ns_interf ns_interf_t;

ns_interf_t *ns_interf_create (void);
void ns_interf_destroy (ns_interf_t *m);
ns_interf_t *ns_interf_copy (const ns_interf_t *m);

/* Defaults for programs or pairs without a figure. */
int ns_interf_set_defaults (ns_interf_t *m, double speedup, double slowdown,
                            ns_error_t *err);
int ns_interf_set_speedup (ns_interf_t *m, int p, double speedup,
                           ns_error_t *err);
int ns_interf_set_slowdown (ns_interf_t *m, int p, int q, double slowdown,
                            ns_error_t *err);
/* Relative weight of program p in a program mix (closed experiments). */
int ns_interf_set_weight (ns_interf_t *m, int p, double weight,
                          ns_error_t *err);

/* Let program p borrow the figures of program cls (an interference class):
 * every lookup of p then reads cls's row and column.  cls = -1 undoes it.
 * The simulator uses this to give unknown trace programs a class. */
int ns_interf_set_class (ns_interf_t *m, int p, int cls, ns_error_t *err);
int ns_interf_class (const ns_interf_t *m, int p);

double ns_interf_speedup (const ns_interf_t *m, int p);
double ns_interf_slowdown (const ns_interf_t *m, int p, int q);
double ns_interf_weight (const ns_interf_t *m, int p);
/* Runtime of one job of p on one full node, s (closed experiments);
 * 3600 when not set. */
int ns_interf_set_runtime (ns_interf_t *m, int p, double seconds,
                           ns_error_t *err);
double ns_interf_runtime (const ns_interf_t *m, int p);
/* 1 when the figure was set for p itself (not a default, not a class). */
int ns_interf_given_speedup (const ns_interf_t *m, int p);
int ns_interf_given_slowdown (const ns_interf_t *m, int p, int q);
/* Highest program id that has any figure set, plus one. */
int ns_interf_nprograms (const ns_interf_t *m);
/* The largest spread speedup of any program (the default included): a
 * policy governs no job when it is within the stripe margin. */
double ns_interf_max_speedup (const ns_interf_t *m);

/* 1 when p has no figure of its own or of a class and both defaults are
 * 1.0: p always progresses at rate 1 and changes nobody's rate. */
int ns_interf_neutral (const ns_interf_t *m, int p);

/* Partial co-tenancy (design.md section 3): slowdown[p][q] was measured
 * with q holding half of the node (C/2 of its C cores).  A co-tenant
 * holding c cores contributes 1 + (slowdown[p][q] - 1) * f with
 * f = 2c / C (at most 2, a co-tenant on the whole node): a one-core
 * neighbour on a 24-core node has 1/12 of the measured effect.  Several
 * co-tenants multiply.  1.0 for c or C below 1. */
double ns_interf_partial_slowdown (const ns_interf_t *m, int p, int q,
                                   int cores_q, int node_cores);

/* Predicted mutual slowdown of putting p next to q: the larger of
 * slowdown[p][q] and slowdown[q][p] (min-slowdown's pairing score). */
double ns_interf_mutual (const ns_interf_t *m, int p, int q);

#endif /* !NODESHARE_INTERF_H */
