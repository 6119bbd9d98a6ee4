/* SPDX-License-Identifier: GPL-2.0-or-later */
/* headresv.h - the queue head's reservation under EASY backfilling
 *
 * When the queue head cannot start, its reservation is the earliest
 * estimated end (the shadow time) after which, releasing running jobs in
 * order of estimated end (byend.h), the policy could place it, and the
 * nodes it would get: marked (hmark at mark_id; outside clear).  This
 * holds what that needs from one scheduling pass to the next:
 *
 *  - the reservation of head resv_head, valid while the cluster version is
 *    resv_version (ns_hresv_begin ()); its nodes under pack may be found
 *    later, when a candidate needs them (resv_lazy, ns_hresv_nodes ());
 *  - where the last count ended (ec: [0] cores for ns_resv_pack (), [1]
 *    nodes for ns_resv_whole ()), kept up to date as jobs start and end,
 *    so that the same count is not made again (ns_hresv_again ());
 *  - the nodes ns_resv_pack () last found (fc_*), kept while the jobs
 *    they depend on neither start nor end;
 *  - the free cores outside the marks (ns_hresv_outside_room ()).
 *
 * The caller embeds an ns_hresv_t, sets it up with ns_hresv_init () and
 * frees it with ns_hresv_free ().  Every running job's start and end is
 * told with ns_hresv_job ().
 */
#ifndef NODESHARE_HEADRESV_H
#define NODESHARE_HEADRESV_H

#include <stdint.h>
#include <string.h>

#include "byend.h"
#include "cluster.h"
#include "policy.h"
#include "resv.h"

typedef struct {
    int nnodes;
    int *hmark;         /* node -> mark_id: in the reservation */
    int mark_id;        /* the marks of hmark and outside (new marks) */
    int resv_id;        /* bumped by every reservation made anew */
    unsigned char *avoid;   /* per node: empty now (the reservation takes
                               these last) */
    unsigned char *outside; /* per node: not in the head's reservation */
    uint64_t *obits;        /* outside, a bit per node */
    /* the reservation */
    int resv_head;
    int resv_lazy;      /* 1 + the head whose reservation's nodes are
                           still to be found (ns_hresv_nodes ()), or 0 */
    uint64_t resv_version;
    double shadow;
    int resv_k;         /* ns_hresv_pack (): the running jobs to end */
    int *rnodes;        /* the nodes ns_resv_pack reserves */
    ns_resv_scratch_t *rx;  /* scratch of ns_resv_pack */
    /* Where the last count of a reservation ended ([1] nodes, [0] cores,
     * [2] cores for ns_hresv_shadow_bound ()): jobs estimated to end by
     * `when` release enough for `need`, and those before it not; below
     * and upto are what the running jobs estimated to end before `when`
     * and by `when` hold. */
    struct ns_hresv_count {
        int ok;
        int64_t need;
        double when;
        int64_t below, upto;
    } ec[3];
    /* The nodes of the last reservation ns_resv_pack () found, in rnodes:
     * those of fc_need tasks once the running jobs estimated to end by
     * fc_when have ended.  They depend on the jobs estimated to end later
     * alone: fc_ok until one of those starts or ends. */
    int fc_ok, fc_need, fc_cnt;
    double fc_when;
    int fc_marked;      /* hmark and outside hold those nodes */
    /* ns_hresv_outside_room () at marks oroom_mark and oroom_version */
    int64_t oroom;
    int oroom_mark;
    uint64_t oroom_version;
} ns_hresv_t;

/* No reservation, on nnodes nodes.  0, or -1 out of memory. */
int ns_hresv_init (ns_hresv_t *r, int nnodes);

void ns_hresv_free (ns_hresv_t *r);

/* No node marked. */
static inline void ns_hresv_new_marks (ns_hresv_t *r)
{
    r->mark_id++;
    r->fc_marked = 0;
    memset (r->outside, 1, r->nnodes);
    int nw = (r->nnodes + 63) / 64;
    memset (r->obits, 0xff, sizeof (*r->obits) * (size_t)nw);
    if (r->nnodes & 63)
        r->obits[nw - 1] = (1ULL << (r->nnodes & 63)) - 1;
}

static inline void ns_hresv_mark (ns_hresv_t *r, int node)
{
    r->hmark[node] = r->mark_id;
    r->outside[node] = 0;
    r->obits[node >> 6] &= ~(1ULL << (node & 63));
}

/* A running job estimated to end at e, holding cores cores on the n nodes
 * of sh (whole if closes), starts (ends 0) or ends (1). */
void ns_hresv_job (ns_hresv_t *r, int closes, double e, int64_t cores,
                   const ns_share_t *sh, int n, int ends);

/* Head `head` at cluster version v: 0 if its reservation is still the
 * one made, else 1, the reservation reset (no shadow time, a new id) for
 * the caller to make. */
int ns_hresv_begin (ns_hresv_t *r, int head, uint64_t v);

/* The count of a reservation ([b]: 0 cores, 1 nodes) for `need` when
 * `have` is free now, if the last one still holds: the running jobs to
 * end by its time; else -1. */
int ns_hresv_again (const ns_hresv_t *r, int b, int64_t need, int64_t have,
                    const ns_byend_t *be);

/* A count found k (the first k jobs of be end): remember where it ended. */
void ns_hresv_keep (ns_hresv_t *r, int b, int64_t need, int k,
                    const ns_byend_t *be);

/* The reservation of `width` whole nodes while every running job holds
 * its nodes whole (counted by ns_resv_whole ()): the shadow time, and
 * among the nodes, those empty now marked (the others are held). */
void ns_hresv_whole (ns_hresv_t *r, const ns_cluster_t *c,
                     const ns_byend_t *be, const ns_resv_running_t *run,
                     int width, double now);

/* The reservation of head's `need` tasks under pack (ns_resv_pack ())
 * when `have` cores are free: the shadow time; its nodes are found when
 * needed (ns_hresv_nodes ()).  0, or -1 out of memory. */
int ns_hresv_pack (ns_hresv_t *r, const ns_cluster_t *c,
                   const ns_byend_t *be, const ns_resv_running_t *run,
                   int head, int need, int64_t have, double now);

/* The nodes ns_hresv_pack () left to be found, for the head's need tasks,
 * on the cluster it counted: marked.  0, or -1 (the count failed: cannot
 * happen on the same state). */
int ns_hresv_nodes (ns_hresv_t *r, const ns_cluster_t *c,
                    const ns_byend_t *be, const ns_resv_running_t *run,
                    int need);

/* The free cores of the usable nodes outside the marks, at cluster
 * version v (kept while marks and version stay). */
int64_t ns_hresv_outside_room (ns_hresv_t *r, const ns_cluster_t *c,
                               uint64_t v);

/* A job holding held cores started outside the marks, the cluster moving
 * from version before to v: the reservation and the room outside it
 * (less held) stay valid. */
void ns_hresv_beside (ns_hresv_t *r, uint64_t before, uint64_t v,
                      int64_t held);

/* Does placement pl take a marked node? */
static inline int ns_hresv_touches (const ns_hresv_t *r,
                                    const ns_placement_t *pl)
{
    for (int i = 0; i < pl->n; i++)
        if (r->hmark[pl->shares[i].node] == r->mark_id)
            return 1;
    return 0;
}

/* A cheap lower bound of the shadow time of `need` tasks with `have`
 * cores free now: the estimated end at which enough cores in total are
 * free (INFINITY: never).  Where it was counted is kept (ec[2]): for the
 * same need it holds while the cores free before it stay too few and
 * those by it enough. */
double ns_hresv_shadow_bound (ns_hresv_t *r, const ns_byend_t *be,
                              int64_t have, int64_t need, double now);

#endif
