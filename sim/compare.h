/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare.h - placement parity: where jobs ran and next to whom
 *
 * Pieces of `nodeshare-sim --compare-placements` (and of the node and
 * co-tenant columns of --csv), kept free of I/O so that unit tests reach
 * them:
 *
 *  - Slurm host lists ("ns[1-2,4],ns7") to node indices by whole names
 *    in a table of the machine's nodes (ns_nodenames_t: the slurm.conf's,
 *    or every name met, then put in natural order: gpu01 and cn001 are
 *    two nodes, ns2 comes before ns10).
 *  - Co-tenants at start: for every job that ran, the distinct programs
 *    of the other jobs on one of its nodes just after it started (a job
 *    k is one when start_k <= start_j < end_k and they share a node).  A
 *    job ending at t has left before one starting at t, as in the engine
 *    and in Slurm.  The same function serves the simulated schedule and
 *    the real one read back from sacct, so both sides are judged alike.
 *  - Shapes: "1x24", "2x12", or per node "20+4" when uneven.
 */
#ifndef NODESHARE_COMPARE_H
#define NODESHARE_COMPARE_H

#include <stddef.h>

#include "cluster.h"
#include "engine.h"
#include "nserror.h"
#include "progtab.h"

/* One job of a schedule: when and where it ran. */
typedef struct {
    double start, end;        /* start < 0: never ran (no co-tenants) */
    int program;              /* progtab id, or NS_PROGRAM_UNKNOWN */
    int nshares;
    const ns_share_t *shares; /* node and cores on it */
} ns_placed_t;

/* Co-tenant programs of every job: job i's are prog[first[i]] ..
 * prog[first[i + 1] - 1], sorted ascending, without duplicates
 * (NS_PROGRAM_UNKNOWN sorts first when present). */
typedef struct {
    int n;
    int *first;     /* n + 1 offsets */
    int *prog;
} ns_cotenants_t;

/* Compute co-tenants at start for jobs[0..n) on a machine of nnodes
 * nodes.  0, or -1 with err set (ENOMEM; EINVAL for a node index outside
 * 0..nnodes-1). */
int ns_cotenants_compute (const ns_placed_t *jobs, int n, int nnodes,
                          ns_cotenants_t *out, ns_error_t *err);
void ns_cotenants_free (ns_cotenants_t *ct);

/* Job i's co-tenant programs as names joined by sep ("ABQ;LAM"), "?" for
 * an unknown program; "" when it had none.  Cut to fit size. */
void ns_cotenants_format (const ns_cotenants_t *ct, int i,
                          const ns_progtab_t *progs, const char *sep,
                          char *buf, size_t size);

/* 1 when jobs a (of ca) and b (of cb) had the same co-tenant programs. */
int ns_cotenants_equal (const ns_cotenants_t *ca, int a,
                        const ns_cotenants_t *cb, int b);

/* Node names, whole, each with an index (the order they were added). */
typedef struct ns_nodenames ns_nodenames_t;
ns_nodenames_t *ns_nodenames_create (void);     /* NULL: ENOMEM */
void ns_nodenames_destroy (ns_nodenames_t *t);  /* NULL is fine */
/* The index of name, or -1 when it is not there. */
int ns_nodenames_find (const ns_nodenames_t *t, const char *name);
/* The index of name, added when new; -1 (ENOMEM). */
int ns_nodenames_add (ns_nodenames_t *t, const char *name);
int ns_nodenames_count (const ns_nodenames_t *t);
const char *ns_nodenames_name (const ns_nodenames_t *t, int i);

/* Natural order of node names: runs of digits by value (ns2 < ns10),
 * the rest by byte.  <0, 0, >0 as strcmp. */
int ns_nodename_cmp (const char *a, const char *b);

/* Put t's names in natural order: to[i] (t's count ints) is the new
 * index of the name that had index i.  0, or -1 (ENOMEM, t unchanged). */
int ns_nodenames_sort (ns_nodenames_t *t, int *to);

/* Parse a Slurm host list into the indices of its whole names in t,
 * sorted ascending, duplicates removed; names t lacks are added, or,
 * when fixed, an error ("host list 'X': node 'Y' is not a node of the
 * machine").  The count (<= max), or -1 with err set: "host list 'X': expected ..."
 * for malformed text, or more than max nodes. */
int ns_nodelist_names (const char *s, ns_nodenames_t *t, int fixed,
                       int *nodes, int max, ns_error_t *err);

/* "2x12" for an even shape of 2 nodes with 12 cores each, "20+4" for an
 * uneven one (largest first), "-" for none. */
void ns_shape_format (const ns_share_t *shares, int n, char *buf,
                      size_t size);

/* Co-tenants at start of every job of a run (by job index); jobs still
 * running count as running for ever. */
int ns_sim_cotenants (const ns_sim_t *sim, ns_cotenants_t *out,
                      ns_error_t *err);

#endif /* !NODESHARE_COMPARE_H */
