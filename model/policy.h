/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.h - placement policies (design.md section 2)
 *
 * One call, ns_place(): given the cluster state, a policy and a job request,
 * return a placement (nodes and cores on each) or "not now" with a reason,
 * plus a one-line explanation.  The select plugin and the simulator both
 * call exactly this.
 */
#ifndef NODESHARE_POLICY_H
#define NODESHARE_POLICY_H

#include <stdint.h>

#include "cluster.h"
#include "interf.h"
#include "nserror.h"
#include "progtab.h"

typedef enum {
    NS_POLICY_EXCLUSIVE = 0, /* alone on minimal whole nodes */
    NS_POLICY_SPREAD,        /* stripe, nodes never shared */
    NS_POLICY_MIXED,         /* stripe, empty first, then share with anyone */
    NS_POLICY_TWINS,         /* mixed, never next to the same program */
    NS_POLICY_SAME,          /* mixed, share only with the same program */
    NS_POLICY_KEEP,          /* keep:P - P only with P, others never with P */
    NS_POLICY_MIN_SLOWDOWN,  /* mixed, best predicted co-tenant, limit */
    NS_POLICY_PACK,          /* stock Slurm: select/cons_tres, CR_Core */
    NS_POLICY_COUNT
} ns_policy_kind_t;

typedef struct {
    ns_policy_kind_t kind;
    int keep_program;     /* NS_POLICY_KEEP: the program P (progtab id) */
    int stripe_width;     /* width multiplier, default 2 (half nodes) */
    int max_cotenants;    /* jobs per node at most, default 2 (pairs) */
    double max_slowdown;  /* min-slowdown: refuse pairs above, default 1.15 */
    int64_t fallback_after; /* s of waiting before the sharing rules give
                               way to packing; 0 at once, -1 never */
    uint64_t seed;        /* 0: lowest index wins ties; else seeded order */
    int small_job_cores;  /* jobs of fewer cores are packed; -1: half of
                             the largest node, 0: no job is small */
    double stripe_margin; /* stripe only when spread_speedup > 1 + this */
    int ungoverned;       /* 1: the caller knows no job of its workload
                             gains from striping (the simulator checks its
                             trace): nothing keeps empty nodes, every job
                             is placed as pack places it; 0: ask the
                             figures (ns_policy_keeps_empty) */
    int stock_one_node_first; /* the stock placement modelled is that of
                             Slurm 26.05's cons_tres: a job that may use
                             one node only (max_nodes 1, or a single task
                             without a node count) takes the first node,
                             in weight and index order, that holds it,
                             not the best fit; 0: 22.05 to 25.11 */
    int stripe_no_requeue; /* 1: a job that cannot be requeued
                             (NS_REQ_NO_REQUEUE) may be striped; 0: it is
                             packed, since a stripe depends on twice the
                             nodes (nodeshare.json "stripe_no_requeue") */
} ns_policy_t;

/* twins, width 2, pairs, fallback at once (0), no seed, small jobs below
 * half a node, stripe margin 0.02. */
void ns_policy_default (ns_policy_t *p);

/* Parse "twins", "keep:LAM", ... ; keep:P interns P in progs.  Only the
 * kind and keep_program are set. */
int ns_policy_parse (ns_policy_t *p, const char *name, ns_progtab_t *progs,
                     ns_error_t *err);
/* "twins", "keep:LAM" (needs the progtab for keep:P; may be NULL). */
const char *ns_policy_kind_name (ns_policy_kind_t kind);
int ns_policy_name (const ns_policy_t *p, const ns_progtab_t *progs, char *buf,
                    int len);

enum {
    NS_REQ_WHOLE_NODES = 1, /* --exclusive: whole nodes, nobody else */
    NS_REQ_QUIET = 2,       /* no explanation wanted (the simulator decides
                               millions of times; what-if tries) */
    NS_REQ_NO_REQUEUE = 4,  /* the job cannot be requeued (--no-requeue,
                               JobRequeue=0): packed unless the policy's
                               stripe_no_requeue allows a stripe */
    NS_REQ_OUT_OF_SCOPE = 8, /* outside nodeshare's scope (its partition,
                               account or QOS): placed as pack places it */
    NS_REQ_EXPLORE = 16,    /* the program has no spread_speedup given and
                               nothing waits that could use the nodes:
                               striped over empty nodes only, as if it
                               gained, so that its figure is learned (the
                               caller packs it when that fails) */
};

typedef struct {
    uint64_t id;
    int program;          /* progtab id or NS_PROGRAM_UNKNOWN */
    int ntasks;           /* ranks, >= 1 */
    int cpus_per_task;    /* >= 1; cores asked n = ntasks * cpus_per_task */
    int flags;            /* NS_REQ_* */
    int nodes;            /* explicit node count (-N), 0 if not given */
    int ntasks_per_node;  /* explicit, 0 if not given */
    const int *nodelist;  /* explicit node list (indices), NULL if none */
    int nnodelist;
    const unsigned char *allowed; /* per node: may be used (up, in
                                     partition...); NULL = all nodes */
    int64_t waited;       /* seconds queued so far (for fallback_after) */
    const unsigned char *avoid; /* per node: an empty node marked here is
                                   taken only when the unmarked empty nodes
                                   do not suffice (a preference, never a
                                   refusal); NULL = none.  The simulator's
                                   EASY reservation avoids the nodes free
                                   now, leaving them to backfill */
    /* What slurmctld limits besides cores (design.md section 7.2);
     * 0: no limit.  A placement never breaks them. */
    int64_t mem_per_node; /* MB per node on the job's minimal width
                             (--mem); a stripe splits the job's total
                             memory over its nodes */
    int64_t mem_per_cpu;  /* MB per core (--mem-per-cpu, DefMemPerCPU) */
    int max_nodes;        /* nodes at most (partition MaxNodes, -N max) */
    int max_cpus_per_node; /* cores per node at most (MaxCPUsPerNode) */
    const unsigned char *no_stripe; /* per node: the sharing rules leave
                                       it alone for this job (a node with
                                       GRES, for a job asking for none);
                                       packing, fallback and explicit
                                       shapes use it as stock does; NULL:
                                       none */
} ns_request_t;

void ns_request_init (ns_request_t *r, uint64_t id, int program, int ntasks);

typedef enum {
    NS_PLACED = 0,
    NS_WAIT_RESOURCES,  /* not enough free nodes/cores right now */
    NS_WAIT_TWIN,       /* only nodes running the same program are free */
    NS_WAIT_PAIRING,    /* same/keep:P rule refuses the free nodes */
    NS_WAIT_SLOWDOWN,   /* min-slowdown: every pair is above the limit */
    NS_WAIT_COTENANTS,  /* free cores exist but nodes hold k jobs already */
    NS_NEVER,           /* cannot ever fit this cluster */
} ns_verdict_t;

const char *ns_verdict_name (ns_verdict_t v);

/* How the decision was taken. */
typedef enum {
    NS_RULE_NONE = 0,
    NS_RULE_EXCLUSIVE,  /* whole minimal nodes */
    NS_RULE_STRIPE_EMPTY, /* striped over empty nodes */
    NS_RULE_STRIPE_SHARE, /* striped, co-scheduled with running jobs */
    NS_RULE_AS_ASKED,   /* explicit request or unsplittable job */
    NS_RULE_FALLBACK,   /* the sharing rules made it wait fallback_after:
                           placed as pack would place it */
    NS_RULE_PACK,       /* placed as stock Slurm would (pack policy, small
                           job, one task, or no predicted gain) */
} ns_rule_t;

/* Why a job is packed rather than governed by the sharing rules. */
typedef enum {
    NS_PACK_NONE = 0,   /* governed (or exclusive/spread/as asked) */
    NS_PACK_POLICY,     /* the policy is pack */
    NS_PACK_SMALL,      /* fewer cores than small_job_cores */
    NS_PACK_ONE_TASK,   /* one task: nothing to stripe */
    NS_PACK_NO_GAIN,    /* spread_speedup <= 1 + stripe_margin */
    NS_PACK_AS_ASKED,   /* explicit shape: stock's shape, no pairing rules */
    NS_PACK_NO_REQUEUE, /* cannot be requeued, and stripe_no_requeue is off */
    NS_PACK_SCOPE,      /* outside nodeshare's scope (NS_REQ_OUT_OF_SCOPE) */
    NS_PACK_KINDS
} ns_pack_why_t;

const char *ns_pack_why_name (ns_pack_why_t w);

const char *ns_rule_name (ns_rule_t r);

typedef struct {
    ns_verdict_t verdict;
    ns_rule_t rule;
    int flags;          /* NS_JOB_* to pass to ns_cluster_add_job() */
    int n;              /* nodes in the placement */
    int cap;
    ns_share_t *shares; /* n entries, ascending node index */
    int shared;         /* nodes that already had a tenant */
    int width;          /* nodes the shape needed (also when not placed) */
    int slot;           /* free cores it needed on each of them */
    int found;          /* not placed: admissible nodes there were */
    int capacity_short; /* not placed, and would not be even without the
                           pairing rules: any job of this policy needing
                           >= width nodes with >= slot cores fails too */
    ns_pack_why_t why;  /* rule NS_RULE_PACK / AS_ASKED: why packed */
    char explain[512];  /* one line, no newline ("" for NS_REQ_QUIET) */
    int64_t mem_per_node; /* placed: MB per node the shape holds (the
                             request's --mem on its minimal width, split
                             over a stripe); 0 when none */
    int *scratch;       /* private: 4 x cap ints for pack's node runs */
    unsigned char *tier; /* private: cap bytes, the nodes of a weight tier */
    long long *order;   /* private: cap entries to order them */
    struct ns_pack_cache *cache; /* private: pack's runs and best-fit
                                    nodes of the last cluster state */
} ns_placement_t;

/* Room for up to cap nodes (use the cluster's node count). */
ns_placement_t *ns_placement_create (int cap);
void ns_placement_destroy (ns_placement_t *pl);

/* Is the policy one that may stripe jobs and let them share nodes (mixed,
 * twins, same, keep, min-slowdown)?  0 for pack, exclusive and spread. */
int ns_policy_is_sharing (ns_policy_kind_t kind);

/* May a governed job of program p share a node with one of q under the
 * policy (both ways; min-slowdown: mutual slowdown within its limit)?
 * 0 for policies that never share (exclusive, spread, pack). */
int ns_policy_pair_allowed (const ns_policy_t *pol, const ns_interf_t *m,
                            int p, int q);

/* Does the policy keep empty nodes for striped jobs, packing small jobs
 * onto nodes in use first?  Only a sharing policy, and only when some
 * program (or the default) gains from striping: otherwise no job is ever
 * governed, and every job is placed exactly as pack places it. */
int ns_policy_keeps_empty (const ns_policy_t *pol, const ns_interf_t *m);

/* Decide.  Returns 0 with pl->verdict == NS_PLACED and the shares filled,
 * 0 with another verdict ("not now"/never; pl->explain says why), or -1
 * with errno (EINVAL: malformed request) and err filled.  Never changes c:
 * the caller adds the job with ns_cluster_add_job(..., pl->flags, ...).
 * progs (may be NULL) only names programs in the explanation. */
int ns_place (const ns_cluster_t *c, const ns_policy_t *pol,
              const ns_interf_t *m, const ns_progtab_t *progs,
              const ns_request_t *req, ns_placement_t *pl, ns_error_t *err);

/* The shape ns_place would look for: width nodes with slot free cores
 * each; for a job the policy packs, the minimal width and slot 0 (any
 * free core will do).  0, or -1 with errno for a malformed request. */
int ns_place_shape (const ns_cluster_t *c, const ns_policy_t *pol,
                    const ns_interf_t *m, const ns_request_t *req, int *width,
                    int *slot, ns_error_t *err);

/* Would the policy govern req by its sharing rules (stripe it, count it
 * toward max_cotenants, apply the pairing rules)?  0 when it packs the
 * job as stock Slurm would, also for exclusive, spread and explicit
 * shapes.  The select plugin asks this for running jobs it has no
 * decision of (after a restart). */
int ns_place_governed (const ns_cluster_t *c, const ns_policy_t *pol,
                       const ns_interf_t *m, const ns_request_t *req);

/* Seconds from now until the sharing rules give way to packing for req
 * (fallback_after, counted from req->waited): 0 when they already have,
 * -1 when they never do (fallback_after -1, a policy without sharing
 * rules, an explicit shape).  The select plugin's will-run answer for a
 * job the rules hold back is the earlier of this and ns_place_after(). */
int64_t ns_place_fallback_in (const ns_policy_t *pol,
                              const ns_request_t *req);

/* How many of nodes[0..n-1] would the policy accept for req (with the
 * shape it would look for)?  Counting stops at stop_at; "cannot tell"
 * (explicit node lists) counts as stop_at.  A caller that knows a decision
 * failed with `found` admissible nodes, and that since then only starts
 * happened and these nodes were released, knows it still fails when
 * found plus this count stays below the width (the simulator's cache). */
int ns_place_admits (const ns_cluster_t *c, const ns_policy_t *pol,
                     const ns_interf_t *m, const ns_request_t *req,
                     const int *nodes, int n, int stop_at);

/* "What if these jobs ended": take the running jobs order[0..n-1] out of
 * c one by one until the policy places req, then put every one back.
 * The first try comes after order[0] ended: callers ask when req cannot
 * start now
 * (c is unchanged on return, whatever happens).  Jobs with equal when[]
 * (may be NULL) end together: a placement is tried only after the last of
 * them.  A try is skipped while fewer cores are free than req asks, and
 * while the nodes released since the last failed try cannot make up its
 * shortfall (ns_place_admits).  Returns k >= 1 when the policy places req
 * once order[0..k-1] have ended (pl holds that placement), 0 when it does
 * not even then, -1 with errno and err on an error (c restored).  The
 * simulator's EASY reservation and the select plugin's will-run answer
 * are both this (design.md section 5). */
int ns_place_after (ns_cluster_t *c, const ns_policy_t *pol,
                    const ns_interf_t *m, const ns_progtab_t *progs,
                    const ns_request_t *req, const uint64_t *order,
                    const double *when, int n, ns_placement_t *pl,
                    ns_error_t *err);

/* Progress rate of a running job: its spread speedup (1 unless striped)
 * divided by the worst slowdown among its nodes, where a node's slowdown
 * multiplies the partial slowdowns of all its other tenants (interf.h:
 * ns_interf_partial_slowdown).  0 for an unknown id. */
double ns_job_rate (const ns_cluster_t *c, const ns_interf_t *m,
                    uint64_t id);

#endif /* !NODESHARE_POLICY_H */
