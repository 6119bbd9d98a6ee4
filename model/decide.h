/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decide.h - the working state of one placement decision (private)
 *
 * Shared by policy.c, which decides, and the parts of the decision kept
 * in their own files: constres.c (pack: select/cons_tres's node choice)
 * and explain.c (the one-line explanation).  Not for callers of
 * policy.h: nothing here is a contract outside model/.
 */
#ifndef NODESHARE_DECIDE_H
#define NODESHARE_DECIDE_H

#include "cluster.h"
#include "interf.h"
#include "policy.h"
#include "progtab.h"

/* Why a node was not taken; the order is the priority of the verdict. */
enum refusal {
    REF_TWIN,      /* runs the same program (twins) */
    REF_PAIRING,   /* same / keep:P rule */
    REF_SLOWDOWN,  /* min-slowdown limit */
    REF_COTENANTS, /* holds max_cotenants jobs */
    REF_BUSY,      /* "busy": too few free cores, held whole, not allowed */
    REF_GRES,      /* has GRES, the job none (req->no_stripe) */
    REF_COUNT
};

#define REF_SHOW 3

/* Working state of one decision. */
struct decide {
    const ns_cluster_t *c;
    const ns_policy_t *pol;
    const ns_interf_t *m;
    const ns_request_t *req;
    ns_placement_t *pl;
    const unsigned char *mask; /* nodes allowed: req->allowed, or those
                                  of a weight tier */
    ns_node_limits_t lim;      /* memory and cores per node for the
                                  shape */
    const ns_node_limits_t *limp; /* &lim, or NULL when nothing limits */
    const unsigned char *no_stripe; /* req->no_stripe while the sharing
                                       rules choose (stripe-empty), else
                                       NULL */

    int width;          /* nodes to find */
    int tasks_hi;       /* tasks on the fullest node */
    int slot;           /* cores needed on every node: tasks_hi * cpt */
    int closes;         /* the job holds its nodes whole */
    int shares_nodes;   /* may join running jobs */
    int striped;
    int packed;         /* not governed: NS_JOB_PACKED, no pairing rules,
                           no co-tenant limit */
    ns_pack_why_t why;
    ns_rule_t rule;

    int found;
    double *score;      /* min-slowdown: score of each found node */
    double *score_buf;  /* 64 entries (ns_place (): its own, not zeroed
                           with the rest) */
    int nrefused[REF_COUNT];
    int shown[REF_COUNT][REF_SHOW];
};

/* Is node one the decision may take (its mask, and no_stripe)? */
static inline int allowed (const struct decide *d, int node)
{
    return (!d->mask || d->mask[node])
           && !(d->no_stripe && d->no_stripe[node]);
}

/* Cores the job could hold on node now: its free cores, within the
 * request's limits (memory, cores per node). */
static inline int room (const struct decide *d, int node)
{
    return d->limp ? ns_node_usable_cores (d->c, node, 1, d->limp)
                   : ns_node_free_cores (d->c, node);
}

/* constres.c: pack's cache of node runs and best-fit nodes for one
 * cluster state (one per ns_placement_t, pl->cache).  Create: NULL on
 * ENOMEM; destroy accepts NULL. */
struct ns_pack_cache *ns_pack_cache_create (int cap);
void ns_pack_cache_destroy (struct ns_pack_cache *pc);

/* constres.c: place d's request as select/cons_tres would (rules
 * NS_RULE_PACK and NS_RULE_FALLBACK).  1 with d->found shares filled in
 * pl in node order (their cores set), 0 when it does not fit now. */
int ns_decide_pack (struct decide *d);

/* explain.c: write d's verdict into d->pl->explain (one line); progs (may
 * be NULL) names programs. */
void ns_decide_explain (struct decide *d, const ns_progtab_t *progs);

#endif /* !NODESHARE_DECIDE_H */
