/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cluster.h - the state a placement policy looks at
 *
 * Nodes (cores, sockets) indexed 0..nnodes-1 and the running jobs with the
 * cores they hold on each node and the program they run.  Jobs are keyed by
 * a 64-bit id chosen by the caller (Slurm job id, trace job number).
 *
 * A job added with NS_JOB_CLOSES_NODES owns its nodes outright: nobody else
 * may be placed there while it runs, whatever cores it actually uses
 * (`exclusive`, `spread`, and user --exclusive requests).
 *
 * Cost: add/remove are O(width log runs) (they keep pack's runs, below,
 * up to date); per-node queries are O(1) or O(tenants).  An empty-node
 * bitmap lets a policy find the lowest empty nodes with a word scan, so a
 * decision on 10,000 nodes does not walk every node.
 */
#ifndef NODESHARE_CLUSTER_H
#define NODESHARE_CLUSTER_H

#include <stdint.h>

#include "nserror.h"

typedef struct ns_cluster ns_cluster_t;

enum {
    NS_JOB_CLOSES_NODES = 1, /* no co-tenant may join this job's nodes */
    NS_JOB_STRIPED = 2,      /* placed striped: gets spread_speedup */
    NS_JOB_PACKED = 4,       /* placed as stock Slurm packs it (small job,
                                no predicted gain, pack policy, fallback,
                                explicit shape): invisible to the co-tenant
                                limit and the pairing rules (design.md
                                section 2) */
};

/* One node of an allocation. */
typedef struct {
    int node;
    int cores;
} ns_share_t;

/* The most cores one node has where nodeshare's programs take a node
 * size (--cores, slurm.conf's CPUs=): Slurm counts a node's CPUs in 16
 * bits.  The model itself takes any int. */
#define NS_NODE_CORES_MAX 65535
#define NS_NODE_CORES_RANGE "1..65535"
/* The most nodes a machine has in nodeshare's programs (--nodes,
 * slurm.conf's NodeName lines, a trace's header). */
#define NS_CLUSTER_NODES_MAX 1000000

/* All nodes get `cores` cores in `sockets` sockets; change single nodes
 * with ns_cluster_set_node() before adding jobs. */
ns_cluster_t *ns_cluster_create (int nnodes, int cores, int sockets,
                                 ns_error_t *err);
void ns_cluster_destroy (ns_cluster_t *c);

/* Only allowed while the node has no tenant. */
int ns_cluster_set_node (ns_cluster_t *c, int node, int cores, int sockets,
                         ns_error_t *err);

/* A node's name (copied; at most NS_NODE_NAME_MAX bytes), used instead of
 * its index in explanations; NULL or "" clears it. */
#define NS_NODE_NAME_MAX 255
int ns_cluster_set_node_name (ns_cluster_t *c, int node, const char *name,
                              ns_error_t *err);
const char *ns_node_name (const ns_cluster_t *c, int node); /* or NULL */

/* Memory (MB) of a node; 0, the default: not tracked (never short). */
int ns_cluster_set_node_mem (ns_cluster_t *c, int node, int64_t mem,
                             ns_error_t *err);
int64_t ns_node_mem (const ns_cluster_t *c, int node);

/* Slurm's node weight (default 1): placements use the nodes of the
 * lowest weight that suffice first (select/cons_tres's order). */
int ns_cluster_set_node_weight (ns_cluster_t *c, int node, uint32_t weight,
                                ns_error_t *err);
uint32_t ns_node_weight (const ns_cluster_t *c, int node);
/* The distinct weights, ascending: i in 0..ns_cluster_nweights()-1. */
int ns_cluster_nweights (const ns_cluster_t *c);
uint32_t ns_cluster_weight (const ns_cluster_t *c, int i);

/* What limits the cores one job may hold on a node besides its free
 * cores: a partition's MaxCPUsPerNode and the job's memory (design.md
 * section 7.2).  Zero fields limit nothing. */
typedef struct {
    int64_t mem_per_cpu;  /* MB the job holds per core (--mem-per-cpu) */
    int64_t mem_per_node; /* MB the job holds on each of its nodes (--mem) */
    int max_cores;        /* cores per node at most (MaxCPUsPerNode) */
} ns_node_limits_t;

/* Cores the job could hold on node now, in whole units: its free cores
 * (0 when held whole), at most lim->max_cores, and no more than the
 * node's free memory pays for (0 when it cannot hold mem_per_node).
 * lim NULL: the free cores. */
int ns_node_usable_cores (const ns_cluster_t *c, int node, int unit,
                          const ns_node_limits_t *lim);

/* Add a running job.  Fails (EEXIST, EINVAL, ENOSPC) without changing the
 * state when the id is taken, a share is malformed, a node lacks the cores
 * or is closed, or (NS_JOB_CLOSES_NODES) a node already has a tenant.
 * The same node may not appear twice in shares. */
int ns_cluster_add_job (ns_cluster_t *c, uint64_t id, int program,
                        const ns_share_t *shares, int nshares, int flags,
                        ns_error_t *err);
/* The same, the job holding mem[i] MB on shares[i].node (mem NULL:
 * none).  Fails with EINVAL for negative memory; a node's memory may be
 * overcommitted (the caller's state is the truth, as in the select
 * plugin after a reconfigure), ns_node_free_mem (cluster_test.h) then
 * says 0. */
int ns_cluster_add_job_mem (ns_cluster_t *c, uint64_t id, int program,
                            const ns_share_t *shares, int nshares, int flags,
                            const int64_t *mem, ns_error_t *err);
int ns_cluster_remove_job (ns_cluster_t *c, uint64_t id, ns_error_t *err);

int ns_cluster_nnodes (const ns_cluster_t *c);
int ns_cluster_njobs (const ns_cluster_t *c);
int ns_cluster_max_cores (const ns_cluster_t *c); /* largest node */
int64_t ns_cluster_total_cores (const ns_cluster_t *c);
int64_t ns_cluster_used_cores (const ns_cluster_t *c);

int ns_node_cores (const ns_cluster_t *c, int node);
int ns_node_free_cores (const ns_cluster_t *c, int node);
int ns_node_ntenants (const ns_cluster_t *c, int node);
/* Tenants not added with NS_JOB_PACKED: those the co-tenant limit and
 * the pairing rules count. */
int ns_node_ngoverned (const ns_cluster_t *c, int node);
int ns_node_is_empty (const ns_cluster_t *c, int node);
int ns_node_is_closed (const ns_cluster_t *c, int node);
/* Tenant i (0 <= i < ntenants) of node: job id, program, cores held. */
uint64_t ns_node_tenant_job (const ns_cluster_t *c, int node, int i);
int ns_node_tenant_program (const ns_cluster_t *c, int node, int i);
int ns_node_tenant_cores (const ns_cluster_t *c, int node, int i);
int ns_node_tenant_flags (const ns_cluster_t *c, int node, int i);

/* A number that changes with every change of c (jobs added or removed,
 * nodes set), unique among all clusters of the process: a cache of
 * anything derived from c's state is valid while it stays the same. */
uint64_t ns_cluster_version (const ns_cluster_t *c);

/* Every node's free cores (cores less those its tenants hold), in place
 * (nnodes entries), valid while c lives; kept up to date by every add
 * and remove. */
const int *ns_cluster_free_cores_ref (const ns_cluster_t *c);
/* (nnodes + 63) / 64 words, bit n set when node n is not held whole and
 * has a free core; in place, as ns_cluster_free_cores_ref (). */
const uint64_t *ns_cluster_avail_bits (const ns_cluster_t *c);

/* (nnodes + 63) / 64 words, bit n set when node n is empty (no tenant);
 * in place, as ns_cluster_free_cores_ref (). */
const uint64_t *ns_cluster_empty_bits (const ns_cluster_t *c);

int ns_cluster_nempty (const ns_cluster_t *c);
/* Runs of consecutive usable nodes, the unit select/cons_tres chooses
 * from: nodes allowed (allowed may be NULL), not held whole, with tenants
 * when busy_only, and at least `unit` usable cores (counted in whole
 * units; ns_node_usable_cores with lim, which may be NULL).
 * Run i spans nodes start[i]..end[i] with cpus[i] usable cores in total
 * (at most INT_MAX: no job needs more, so a run that large holds any).
 * The arrays need room for (nodes + 1) / 2 runs; returns the count.
 * Without allowed and lim, with unit 1, the runs are kept by every add
 * and remove and only copied: O(runs), not O(nodes). */
int ns_cluster_runs (const ns_cluster_t *c, const unsigned char *allowed,
                     int busy_only, int unit, const ns_node_limits_t *lim,
                     int *start, int *end, int *cpus);

/* The runs ns_cluster_runs () gives a request without allowed and lim,
 * unit 1, read in place where the cluster keeps them: their count, with
 * *start, *end and *cpus pointing at them (cpus not capped at INT_MAX)
 * until the cluster next changes; -1 when they are not kept. */
int ns_cluster_runs_view (const ns_cluster_t *c, int busy_only,
                          const int **start, const int **end,
                          const int64_t **cpus);

/* In nodes from..to, usable as for ns_cluster_runs, the one with the
 * fewest usable cores that still has need (lowest index on ties), or -1:
 * select/cons_tres's best-fit single node. */
int ns_cluster_best_fit (const ns_cluster_t *c, const unsigned char *allowed,
                         int busy_only, int unit, const ns_node_limits_t *lim,
                         int from, int to, int need);
/* Whether the runs of nodes in use (busy_only) are kept by every add and
 * remove (keep 1, the default) or counted when asked (0): a caller that
 * never asks for them saves their upkeep.  Turned back on, they are
 * counted anew. */
void ns_cluster_keep_busy_runs (ns_cluster_t *c, int keep);
/* The same for the runs of all usable nodes (busy_only 0), which only
 * pack's placement asks for. */
void ns_cluster_keep_free_runs (ns_cluster_t *c, int keep);
/* Whether the open bitmaps behind ns_cluster_next_open () are kept by
 * every change (1, the default) or the nodes looked at when asked (0): a
 * caller whose policy never co-schedules saves their upkeep.  Turned back
 * on, they are set anew.  ns_cluster_next_open () answers the same
 * either way. */
void ns_cluster_keep_open (ns_cluster_t *c, int keep);

/* Hint: no node will ever take a governed job once it holds k governed
 * jobs (the policy's max_cotenants; jobs added with NS_JOB_PACKED do not
 * count).  Such nodes then drop out of the open bitmaps, so
 * ns_cluster_next_open skips them.  Default: no limit.  Only allowed
 * while no job runs. */
int ns_cluster_set_tenant_hint (ns_cluster_t *c, int k);
int ns_cluster_tenant_hint (const ns_cluster_t *c);

/* First "open" node with index >= from, or -1: it has tenants, none holds
 * it whole, fewer governed jobs than the tenant hint, and at least mincores free
 * cores.  Only open nodes can
 * take a co-tenant, so co-scheduling scans these alone (bitmaps by powers
 * of two of free cores keep the scan short on a full cluster). */
int ns_cluster_next_open (const ns_cluster_t *c, int from, int mincores);

/* Job queries; -1 with ENOENT for an unknown id. */
int ns_job_exists (const ns_cluster_t *c, uint64_t id);
int ns_job_program (const ns_cluster_t *c, uint64_t id);
int ns_job_flags (const ns_cluster_t *c, uint64_t id);

/* The job's shares in place, valid until the next add or remove of any
 * job; NULL with ENOENT for an unknown id. */
const ns_share_t *ns_job_shares_ref (const ns_cluster_t *c, uint64_t id,
                                     int *nshares);
/* The job's memory per share in place (as ns_job_shares_ref), or NULL
 * when it holds none or is unknown. */
const int64_t *ns_job_mem_ref (const ns_cluster_t *c, uint64_t id);

/* Verify every internal sum and index: per-node used cores equal the sum
 * of the shares, tenant lists match the job table, the empty bitmap matches,
 * nothing exceeds its node.  0 when consistent, else -1 and a description. */
int ns_cluster_check (const ns_cluster_t *c, ns_error_t *err);

#endif /* !NODESHARE_CLUSTER_H */
