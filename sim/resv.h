/* SPDX-License-Identifier: GPL-2.0-or-later */
/* resv.h - EASY reservations counted instead of tried
 *
 * ns_place_after () finds the head's reservation by taking running jobs
 * out of the cluster one by one and asking the policy after each.  When
 * every running job holds its nodes whole (exclusive, spread) on
 * identical nodes, the policy places a job needing `width` nodes exactly
 * when that many nodes are empty, and takes the empty nodes that are busy
 * now before the ones empty now, each group in index order: the answer
 * can be counted from the jobs' node lists without changing the cluster.
 */
#ifndef NODESHARE_RESV_H
#define NODESHARE_RESV_H

#include <stdint.h>

#include "cluster.h"

/* Where the running jobs are: order[0..n-1] are running jobs in the
 * order they are estimated to end, when[] (may be NULL) their estimated
 * ends (jobs with equal when[] end together), count[] (may be NULL) how
 * many nodes (ns_resv_whole) or cores (ns_resv_pack) each holds (an
 * entry holding none is passed over: a job that has ended), and
 * shares (may be NULL) gives a job's nodes and cores as c has them (the
 * caller may know them without a look-up). */
typedef const ns_share_t *(*ns_resv_shares_f) (void *arg, uint64_t job,
                                               int *n);
typedef struct {
    const uint64_t *order;
    const double *when;
    const int *count;
    int n;
    ns_resv_shares_f shares;
    void *arg;
} ns_resv_running_t;

/* The reservation of a job needing `width` empty nodes, when every
 * running job of c holds its nodes whole and every node can hold the
 * job's slot.  Returns k >= 1 when the job fits once order[0..k-1] have
 * ended, *released then the nodes those jobs hold; 0 when it never fits.
 * ns_place () would then give it the released nodes first, then the
 * nodes empty now, each in index order: of the nodes empty now it takes
 * the first width - *released (none when that is not positive). */
int ns_resv_whole (const ns_cluster_t *c, int width,
                   const ns_resv_running_t *run, int64_t *released);

/* Scratch of ns_resv_pack (): ns_resv_scratch_create (nnodes). */
typedef struct ns_resv_scratch ns_resv_scratch_t;
ns_resv_scratch_t *ns_resv_scratch_create (int nnodes);
void ns_resv_scratch_destroy (ns_resv_scratch_t *x);

/* The reservation of a job of `need` one-CPU tasks placed as stock
 * packing places it (policy.c pack_take (): the tightest run of nodes
 * with free cores that holds it, else the largest runs in turn; in a run
 * the best-fitting single node, else the nodes in order), when no running
 * job holds its nodes whole and nothing limits the request (no allowed
 * nodes, memory or cores per node): such a placement succeeds exactly when
 * enough cores are free.  run as for ns_resv_whole ().
 * Returns k >= 1 when the job fits once order[0..k-1] have ended, or 0
 * when it never fits.  c is not changed. */
int ns_resv_pack (const ns_cluster_t *c, int need,
                  const ns_resv_running_t *run);

/* The nodes it then gets, given the k ns_resv_pack () returned for the
 * same state: into nodes[], their number returned.  x keeps the free
 * cores per node then, and how the nodes were chosen. */
int ns_resv_pack_nodes (const ns_cluster_t *c, int need, int k,
                        const ns_resv_running_t *run, ns_resv_scratch_t *x,
                        int *nodes);

/* The same answer found again from x alone, for the same task count and
 * the same jobs ending, after starts and ends given to
 * ns_resv_pack_keep () or ns_resv_pack_apply (): into nodes[], their
 * number returned, or -1 when x does not follow the cluster (found by
 * ns_resv_pack_nodes () then). */
int ns_resv_pack_nodes_again (ns_resv_scratch_t *x, int need, int *nodes);

/* A job holding sh[0..n-1] starts (ends 0) or ends (ends 1), estimated
 * to end after the jobs of the last ns_resv_pack_nodes () answer of x:
 * the free cores then drop (rise) on its nodes, and x follows them.  1
 * when that answer stays the answer for the same task count and the same
 * jobs ending, 0 when it must be found again.  A start keeps it unless
 * the job takes a node of it, or a run it shrinks or splits now holds
 * what the last run taken held more tightly (the tightest run is chosen,
 * earliest on ties), or a node of that run now fits better; an end keeps
 * it if the runs it grows or joins hold none of its nodes and less than
 * that run held.  A share that does not fit what x holds (a start of
 * more cores than are free then) leaves x no longer following the
 * cluster. */
int ns_resv_pack_keep (ns_resv_scratch_t *x, const ns_share_t *sh, int n,
                       int ends);

/* The same change followed without asking whether the answer stays
 * (once it does not): 1, or 0 when x does not follow the cluster. */
int ns_resv_pack_apply (ns_resv_scratch_t *x, const ns_share_t *sh, int n,
                        int ends);

/* x no longer follows the cluster (a change it was not given). */
void ns_resv_pack_forget (ns_resv_scratch_t *x);
#endif /* !NODESHARE_RESV_H */
