/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.t - exact placements for every policy on small clusters
 *
 * Programs: ABQ = 0, LAM = 1, LSD = 2 with the study's slowdowns
 * (design.md section 3).  Placements are written "node:cores,...".
 * setup() gives the study's strict rules (no fallback, no small jobs) so
 * that the rules themselves are tested; setup_defaults() keeps the
 * policy defaults (fallback at once, small jobs below half a node).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cluster.h"
#include "cluster_test.h"
#include "interf.h"
#include "policy.h"
#include "progtab.h"
#include "tap.h"

enum { ABQ, LAM, LSD };

static ns_cluster_t *c;
static ns_interf_t *m;
static ns_progtab_t *progs;
static ns_policy_t pol;
static ns_placement_t *pl;
static char got[1024];

static void setup (int nnodes, int cores, ns_policy_kind_t kind)
{
    ns_error_t err;
    ns_cluster_destroy (c);
    ns_placement_destroy (pl);
    c = ns_cluster_create (nnodes, cores, 2, &err);
    pl = ns_placement_create (nnodes);
    ns_policy_default (&pol);
    pol.kind = kind;
    pol.fallback_after = -1;
    pol.small_job_cores = 0;
}

static void setup_defaults (int nnodes, int cores, ns_policy_kind_t kind)
{
    setup (nnodes, cores, kind);
    ns_policy_t def;
    ns_policy_default (&def);
    pol.fallback_after = def.fallback_after;
    pol.small_job_cores = def.small_job_cores;
}

static void model_setup (void)
{
    static const double sl[3][3] = {
        { 1.012, 1.024, 1.035 },
        { 0.978, 1.024, 0.979 },
        { 1.071, 1.178, 1.102 },
    };
    m = ns_interf_create ();
    progs = ns_progtab_create ();
    ns_progtab_intern (progs, "ABQ", NULL);
    ns_progtab_intern (progs, "LAM", NULL);
    ns_progtab_intern (progs, "LSD", NULL);
    for (int p = 0; p < 3; p++)
        for (int q = 0; q < 3; q++)
            ns_interf_set_slowdown (m, p, q, sl[p][q], NULL);
    ns_interf_set_speedup (m, ABQ, 246.0 / 196.0, NULL);
    ns_interf_set_speedup (m, LAM, 109.0 / 95.0, NULL);
    ns_interf_set_speedup (m, LSD, 28.0 / 20.0, NULL);
}

/* Decide for req; on success add the job.  Returns the placement as text,
 * or "wait:<verdict>" / "error". */
static const char *place_req (const ns_request_t *req)
{
    ns_error_t err;
    if (ns_place (c, &pol, m, progs, req, pl, &err) < 0) {
        snprintf (got, sizeof (got), "error: %s", err.text);
        return got;
    }
    if (pl->verdict != NS_PLACED) {
        snprintf (got, sizeof (got), "wait:%s", ns_verdict_name (pl->verdict));
        return got;
    }
    size_t o = 0;
    got[0] = '\0';
    for (int i = 0; i < pl->n; i++)
        o += snprintf (got + o, sizeof (got) - o, "%s%d:%d", i ? "," : "",
                       pl->shares[i].node, pl->shares[i].cores);
    if (ns_cluster_add_job (c, req->id, req->program, pl->shares, pl->n,
                            pl->flags, &err) < 0) {
        snprintf (got, sizeof (got), "add failed: %s", err.text);
        return got;
    }
    ns_error_t cerr;
    if (ns_cluster_check (c, &cerr) < 0)
        snprintf (got, sizeof (got), "invariant: %s", cerr.text);
    return got;
}

static const char *place (uint64_t id, int program, int ntasks)
{
    ns_request_t r;
    ns_request_init (&r, id, program, ntasks);
    return place_req (&r);
}

static void test_twins (void)
{
    setup (4, 24, NS_POLICY_TWINS);
    is_str (place (1, ABQ, 24), "0:12,1:12", "twins: ABQ striped 12+12 on "
            "the first empty pair");
    is_int (pl->rule, NS_RULE_STRIPE_EMPTY, "rule stripe-empty");
    is_int (pl->flags, NS_JOB_STRIPED, "striped flag, nodes not closed");
    is_str (place (2, LAM, 24), "2:12,3:12", "twins: LAM on the next empty "
            "pair, not next to ABQ");
    is_str (place (3, LAM, 24), "0:12,1:12",
            "twins: no empty node left, LAM co-scheduled with ABQ");
    is_int (pl->rule, NS_RULE_STRIPE_SHARE, "rule stripe-share");
    is_int (pl->shared, 2, "both nodes shared");
    is_str (place (4, LAM, 24), "wait:twin",
            "twins: a third LAM refuses to pair with LAM");
    is_str (pl->explain,
            "job 4 (LAM, 24 cores) [twins]: waits (twin): needs 2 nodes with "
            "12 free cores (stripe-empty), 0 admissible; refused twin 2 nodes "
            "(2 3), busy 2 nodes (0 1)",
            "explanation of the twin refusal");
    is_str (place (5, ABQ, 24), "2:12,3:12", "twins: ABQ may join LAM");
    is_str (place (6, LSD, 2), "wait:resources", "full cluster: resources");
}

static void test_widths (void)
{
    setup (8, 24, NS_POLICY_TWINS);
    is_str (place (1, ABQ, 48), "0:12,1:12,2:12,3:12",
            "48 tasks: twice the minimal width of 2");
    is_str (place (2, LAM, 30), "4:8,5:8,6:7,7:7",
            "30 tasks on 4 nodes: 8+8+7+7");
    setup (8, 24, NS_POLICY_TWINS);
    is_str (place (1, ABQ, 10), "0:5,1:5", "10 tasks: 5+5");
    is_str (place (2, ABQ, 7), "2:4,3:3", "7 tasks: 4+3");
    is_str (place (3, ABQ, 1), "0:1",
            "1 task cannot be split: packed, best fit (node 0 has 19 free)");
    is_int (pl->rule, NS_RULE_PACK, "rule pack");
    is_int (pl->why, NS_PACK_ONE_TASK, "why: one task");
    is_int (pl->flags, NS_JOB_PACKED, "packed, not striped");
    is_str (place (4, ABQ, 200), "wait:never", "200 tasks never fit 8x24 "
            "at half width");
    ns_request_t r;
    ns_request_init (&r, 5, LAM, 2);
    r.cpus_per_task = 25;
    is_str (place_req (&r), "wait:never", "a 25-cpu task never fits");
    ns_request_init (&r, 6, LAM, 2);
    r.cpus_per_task = 6;
    is_str (place_req (&r), "4:6,5:6", "2 tasks x 6 cpus: one task a node");
    setup (2, 24, NS_POLICY_TWINS);
    is_str (place (1, LSD, 48), "0:24,1:24",
            "48 tasks on a 2-node cluster: striping capped at the cluster");
}

static void test_mixed_same_keep (void)
{
    setup (4, 24, NS_POLICY_MIXED);
    place (1, ABQ, 24);
    place (2, LAM, 24);
    is_str (place (3, LAM, 24), "0:12,1:12", "mixed: shares with anyone");
    is_str (place (4, LAM, 24), "2:12,3:12", "mixed: twins allowed");

    setup (4, 24, NS_POLICY_SAME);
    place (1, ABQ, 24);
    place (2, LAM, 24);
    is_str (place (3, LSD, 24), "wait:pairing",
            "same: LSD refuses ABQ and LAM");
    is_str (place (4, LAM, 24), "2:12,3:12", "same: LAM joins LAM");

    setup (4, 24, NS_POLICY_KEEP);
    pol.keep_program = LAM;
    place (1, ABQ, 24);
    place (2, LAM, 24);
    is_str (place (3, LAM, 24), "2:12,3:12", "keep:LAM: LAM joins LAM");
    is_str (place (4, LAM, 24), "wait:pairing",
            "keep:LAM: LAM refuses ABQ's nodes");
    is_str (place (5, LSD, 24), "0:12,1:12", "keep:LAM: LSD joins ABQ");
    /* The others never pair with their own program either (the study's
     * Keep: P with P, the rest mixed among themselves). */
    setup (4, 24, NS_POLICY_KEEP);
    pol.keep_program = LAM;
    place (1, ABQ, 24);
    place (2, LSD, 24);
    is_str (place (3, ABQ, 24), "2:12,3:12",
            "keep:LAM: ABQ refuses ABQ's nodes, joins LSD");
    setup (4, 24, NS_POLICY_KEEP);
    pol.keep_program = LAM;
    place (1, ABQ, 24);
    place (2, LAM, 24);
    is_str (place (3, ABQ, 24), "wait:twin",
            "keep:LAM: ABQ refuses ABQ (twin) and LAM (keep)");
    ok (strstr (pl->explain, "; refused twin 2 nodes (0 1), pairing 2 nodes (2 3)")
        != NULL, "without names, nodes are indices (%s)", pl->explain);
    char name[32];
    ns_policy_name (&pol, progs, name, sizeof (name));
    is_str (name, "keep:LAM", "policy name");
}

/* With node names (the plugin sets Slurm's), explanations use them: the
 * log and squeue's reason speak of ns3, not of index 2. */
static void test_node_names (void)
{
    ns_error_t err;
    setup (4, 24, NS_POLICY_KEEP);
    pol.keep_program = LAM;
    const char *names[4] = { "ns1", "ns2", "ns3", "ns4" };
    for (int i = 0; i < 4; i++)
        ns_cluster_set_node_name (c, i, names[i], &err);
    is_str (ns_node_name (c, 2), "ns3", "ns_node_name");
    is_int (ns_node_name (c, 4) == NULL, 1, "no such node: NULL");
    place (1, ABQ, 24);
    is_str (pl->explain,
            "job 1 (ABQ, 24 cores) [keep:LAM]: nodes ns1,ns2 (12+12 cores) by stripe-empty",
            "placement names its nodes");
    place (2, LAM, 24);
    is_str (place (3, ABQ, 24), "wait:twin", "ABQ waits");
    ok (strstr (pl->explain, "; refused twin 2 nodes (ns1 ns2), pairing 2 nodes (ns3 ns4)")
        != NULL, "refused nodes are named (%s)", pl->explain);
    is_int (ns_cluster_set_node_name (c, 0, NULL, &err), 0, "NULL clears");
    is_int (ns_node_name (c, 0) == NULL, 1, "  cleared");
    ns_cluster_set_node_name (c, 1, "", &err);
    is_int (ns_node_name (c, 1) == NULL, 1, "\"\" clears");
    char longname[NS_NODE_NAME_MAX + 2];
    memset (longname, 'x', sizeof (longname) - 1);
    longname[sizeof (longname) - 1] = '\0';
    is_int (ns_cluster_set_node_name (c, 2, longname, &err), -1,
            "a name longer than NS_NODE_NAME_MAX is refused");
    is_str (err.text, "node 2: name longer than 255 bytes", "  why");
    is_str (ns_node_name (c, 2), "ns3", "  the old name stays");
    is_int (ns_cluster_set_node_name (c, 9, "x", &err), -1, "no node 9");
}

/* The pair table closed experiments count pairings by. */
static void test_pair_allowed (void)
{
    static const struct {
        ns_policy_kind_t kind;
        int keep;
        const char *want;   /* AA AL AS LL LS SS */
    } t[] = {
        { NS_POLICY_MIXED, -1, "111111" },
        { NS_POLICY_TWINS, -1, "011010" },
        { NS_POLICY_SAME, -1, "100101" },
        { NS_POLICY_KEEP, ABQ, "100010" },
        { NS_POLICY_KEEP, LAM, "001100" },
        { NS_POLICY_KEEP, LSD, "010001" },
        { NS_POLICY_MIN_SLOWDOWN, -1, "111101" },  /* LAM+LSD 1.178 > 1.15 */
        { NS_POLICY_EXCLUSIVE, -1, "000000" },
        { NS_POLICY_SPREAD, -1, "000000" },
        { NS_POLICY_PACK, -1, "000000" },
    };
    for (size_t i = 0; i < sizeof (t) / sizeof (t[0]); i++) {
        ns_policy_t p;
        ns_policy_default (&p);
        p.kind = t[i].kind;
        p.keep_program = t[i].keep;
        char got6[7] = "", name[32];
        int k = 0;
        for (int a = 0; a < 3; a++)
            for (int b = a; b < 3; b++) {
                int ab = ns_policy_pair_allowed (&p, m, a, b);
                int ba = ns_policy_pair_allowed (&p, m, b, a);
                got6[k++] = ab == ba ? (char)('0' + ab) : '?';
            }
        ns_policy_name (&p, progs, name, sizeof (name));
        is_str (got6, t[i].want, "pairs allowed by %s", name);
    }
    /* min-slowdown refuses pairs above its limit: LAM+LSD is 1.178 for
     * LSD, LSD+LSD 1.102. */
    ns_policy_t p;
    ns_policy_default (&p);
    p.kind = NS_POLICY_MIN_SLOWDOWN;
    p.max_slowdown = 1.15;
    is_int (ns_policy_pair_allowed (&p, m, LAM, LSD), 0,
            "min-slowdown 1.15: LAM+LSD refused");
    is_int (ns_policy_pair_allowed (&p, m, LSD, LSD), 1,
            "min-slowdown 1.15: LSD+LSD allowed");
}

static void test_min_slowdown (void)
{
    setup (4, 24, NS_POLICY_MIN_SLOWDOWN);
    pol.max_slowdown = 1.2;
    place (1, LAM, 24); /* 0,1 */
    place (2, ABQ, 24); /* 2,3 */
    /* LSD next to LAM: max(1.178, 0.979) = 1.178; next to ABQ:
     * max(1.071, 1.035) = 1.071.  ABQ's nodes win despite higher index. */
    is_str (place (3, LSD, 24), "2:12,3:12",
            "min-slowdown: LSD picks ABQ (1.071) over LAM (1.178)");
    setup (4, 24, NS_POLICY_MIN_SLOWDOWN);
    pol.max_slowdown = 1.15;
    place (1, LAM, 24);
    place (2, LAM, 24);
    is_str (place (3, LSD, 24), "wait:slowdown",
            "min-slowdown: LSD+LAM 1.178 above the 1.15 limit");
    is_str (place (4, ABQ, 24), "0:12,1:12", "min-slowdown: ABQ+LAM 1.024");
    /* Mixed scores: one node each (no striping).  Three nodes of 24; LAM
     * on 0, ABQ on 1 and 2. */
    setup (3, 24, NS_POLICY_MIN_SLOWDOWN);
    pol.max_slowdown = 1.2;
    pol.stripe_width = 1;
    is_str (place (1, LAM, 12), "0:12", "min-slowdown width 1: LAM on 0");
    is_str (place (2, ABQ, 12), "1:12", "ABQ on empty 1");
    is_str (place (3, ABQ, 12), "2:12", "ABQ on empty 2");
    is_str (place (4, LSD, 12), "1:12",
            "min-slowdown: LSD next to ABQ (1.071), not LAM (1.178)");
}

static void test_exclusive_spread (void)
{
    setup (4, 24, NS_POLICY_EXCLUSIVE);
    is_str (place (1, ABQ, 24), "0:24", "exclusive: one whole node");
    is_int (pl->flags, NS_JOB_CLOSES_NODES, "exclusive closes the node");
    is_str (place (2, ABQ, 10), "1:10", "exclusive: 10 tasks own node 1");
    is_str (place (3, LAM, 30), "2:15,3:15", "exclusive: 30 tasks 15+15");
    is_str (place (4, LSD, 1), "wait:resources", "exclusive: nothing shared");

    setup (4, 24, NS_POLICY_SPREAD);
    is_str (place (1, ABQ, 24), "0:12,1:12", "spread: half of two nodes");
    is_int (pl->flags, NS_JOB_CLOSES_NODES | NS_JOB_STRIPED,
            "spread closes and stripes");
    is_str (place (2, ABQ, 24), "2:12,3:12", "spread: next pair");
    is_str (place (3, LAM, 2), "wait:resources", "spread: never shares");

    /* A request with a limit per node takes empty nodes through the
     * general test (the usual request's nodes are tested apart). */
    setup (4, 24, NS_POLICY_SPREAD);
    ns_request_t r;
    ns_request_init (&r, 1, ABQ, 24);
    r.max_cpus_per_node = 24;
    is_str (place_req (&r), "0:12,1:12",
            "spread, MaxCPUsPerNode: half of two nodes of four empty");
    ns_request_init (&r, 2, ABQ, 24);
    r.mem_per_cpu = 100;
    is_str (place_req (&r), "2:12,3:12",
            "spread, --mem-per-cpu: the next pair");
}

static void test_explicit (void)
{
    setup (4, 24, NS_POLICY_TWINS);
    ns_request_t r;
    ns_request_init (&r, 1, ABQ, 12);
    r.flags = NS_REQ_WHOLE_NODES;
    is_str (place_req (&r), "0:12", "--exclusive: minimal width, not striped");
    is_int (pl->flags, NS_JOB_CLOSES_NODES, "--exclusive closes the node");
    ns_request_init (&r, 2, ABQ, 24);
    r.nodes = 1;
    is_str (place_req (&r), "1:24", "-N 1 honoured");
    ns_request_init (&r, 3, ABQ, 12);
    r.ntasks_per_node = 6;
    is_str (place_req (&r), "2:6,3:6", "--ntasks-per-node=6 honoured");
    int list[1] = { 3 };
    ns_request_init (&r, 4, ABQ, 4);
    r.nodelist = list;
    r.nnodelist = 1;
    is_str (place_req (&r), "3:4",
            "node list honoured even next to the same program");
    int busy[1] = { 0 };
    ns_request_init (&r, 5, LAM, 4);
    r.nodelist = busy;
    r.nnodelist = 1;
    is_str (place_req (&r), "wait:resources", "listed node held whole");
    ns_request_init (&r, 6, LAM, 5);
    r.ntasks_per_node = 2;
    is_str (place_req (&r), "wait:resources",
            "3 nodes needed: only nodes 2 and 3 have room");
    ok (strstr (pl->explain, "; refused busy 2 nodes (0 1)") != NULL
        && !strstr (pl->explain, "cotenants"),
        "explicit shapes are packed: no co-tenant limit (%s)", pl->explain);
    ns_request_init (&r, 7, LAM, 2);
    r.nodes = 3;
    is_str (place_req (&r), "error: job 7: 3 nodes for 2 tasks",
            "more nodes than tasks is an error");
    int bad[1] = { 9 };
    ns_request_init (&r, 8, LAM, 2);
    r.nodelist = bad;
    r.nnodelist = 1;
    is_str (place_req (&r),
            "error: job 8: node list names node 9, cluster has 0..3",
            "node list out of range is an error");
}

static void test_cotenants_allowed (void)
{
    setup (2, 24, NS_POLICY_MIXED);
    is_str (place (1, ABQ, 2), "0:1,1:1", "two single-core halves");
    is_str (place (2, LAM, 2), "0:1,1:1", "second job pairs");
    is_str (place (3, LSD, 2), "wait:cotenants", "third refused: k = 2");
    pol.max_cotenants = 3;
    is_str (place (4, LSD, 2), "0:1,1:1", "k = 3 admits a third");

    setup (4, 24, NS_POLICY_TWINS);
    unsigned char allowed[4] = { 0, 1, 1, 1 };
    ns_request_t r;
    ns_request_init (&r, 1, ABQ, 24);
    r.allowed = allowed;
    is_str (place_req (&r), "1:12,2:12", "node 0 not allowed (down)");
}

/* avoid: a preference among empty nodes, never a refusal (the
 * simulator's EASY reservation avoids the nodes free now). */
static void test_avoid (void)
{
    unsigned char avoid[5] = { 1, 1, 0, 0, 1 };
    ns_request_t r;
    setup (5, 4, NS_POLICY_EXCLUSIVE);
    ns_request_init (&r, 1, ABQ, 8);
    r.avoid = avoid;
    is_str (place_req (&r), "2:4,3:4", "avoid: 2 nodes on the unmarked 2,3");
    ns_request_init (&r, 2, ABQ, 8);
    r.avoid = avoid;
    is_str (place_req (&r), "0:4,1:4",
            "avoid: then the marked ones, lowest first");
    ns_request_init (&r, 3, ABQ, 8);
    r.avoid = avoid;
    is_str (place_req (&r), "wait:resources",
            "avoid: one marked node left, two needed: waits");
    setup (5, 4, NS_POLICY_EXCLUSIVE);
    ns_request_init (&r, 4, ABQ, 12);
    r.avoid = avoid;
    is_str (place_req (&r), "0:4,2:4,3:4",
            "avoid: 3 nodes: both unmarked and the lowest marked");
    setup (5, 4, NS_POLICY_EXCLUSIVE);
    ns_request_init (&r, 5, ABQ, 8);
    is_str (place_req (&r), "0:4,1:4", "no avoid: the lowest nodes");
}

static void test_fallback_seed (void)
{
    setup (3, 24, NS_POLICY_TWINS);
    pol.fallback_after = 60;
    place (1, ABQ, 24); /* 0,1 */
    ns_request_t r;
    ns_request_init (&r, 2, ABQ, 24);
    r.waited = 30;
    is_str (place_req (&r), "wait:twin", "before the bound: waits as a twin");
    r.waited = 60;
    is_str (place_req (&r), "2:24", "after 60 s: plain packing, 1 node");
    is_int (pl->rule, NS_RULE_FALLBACK, "rule fallback");

    setup (64, 8, NS_POLICY_TWINS);
    pol.seed = 7;
    int moved = 0, same = 1;
    for (uint64_t id = 1; id <= 10; id++) {
        ns_request_t q;
        ns_request_init (&q, id, ABQ, 2);
        ns_error_t err;
        ns_place (c, &pol, m, progs, &q, pl, &err);
        int first = pl->shares[0].node;
        ns_place (c, &pol, m, progs, &q, pl, &err);
        same &= pl->shares[0].node == first;
        moved += first != 0;
    }
    ok (same, "seeded choice is repeatable");
    ok (moved >= 8, "seed rotates the start (%d of 10 not on node 0)", moved);
}


/* Put a job on exact nodes ("node:cores,..." as placed by hand). */
static void put (uint64_t id, int program, int flags, const char *spec)
{
    ns_share_t sh[16];
    int n = 0;
    const char *p = spec;
    while (*p && n < 16) {
        int node, cores, len;
        if (sscanf (p, "%d:%d%n", &node, &cores, &len) != 2)
            break;
        sh[n++] = (ns_share_t){ node, cores };
        p += len;
        if (*p == ',')
            p++;
    }
    ns_error_t err;
    if (ns_cluster_add_job (c, id, program, sh, n, flags, &err) < 0)
        diag ("put %s: %s", spec, err.text);
}

/* pack: select/cons_tres's choice (_eval_nodes): runs of consecutive
 * usable nodes, the tightest sufficient run (else the largest), in it the
 * best-fitting single node, else nodes in index order. */
static void test_pack (void)
{
    setup (6, 8, NS_POLICY_PACK);
    is_str (place (1, ABQ, 3), "0:3", "pack: empty cluster, node 0");
    is_int (pl->rule, NS_RULE_PACK, "rule pack");
    is_int (pl->flags, NS_JOB_PACKED, "packed flag, nothing closed");
    is_str (pl->explain,
            "job 1 (ABQ, 3 cores) [pack]: nodes 0 (3 cores) by pack "
            "(stock Slurm)", "explanation");
    is_str (place (2, LAM, 4), "0:4", "best fit: node 0 has 5 free");
    is_str (place (3, LSD, 2), "1:2", "node 0 has 1 free: node 1");
    is_str (place (4, LAM, 10), "0:1,1:6,2:3",
            "no node fits 10: nodes in index order, each what it has");
    is_str (place (5, LAM, 3), "2:3",
            "best fit: node 2 (5 free); twins are fine under pack");
    is_str (place (6, ABQ, 30), "wait:resources", "30 cores, 24 free");
    is_str (pl->explain,
            "job 6 (ABQ, 30 cores) [pack]: waits (resources): needs 30 "
            "free cores (pack, stock Slurm), 26 free", "explanation of a wait");
    is_str (place (7, ABQ, 49), "wait:never", "more cores than the cluster");

    /* Runs: {0} 4 free, {2} 8 free, {4} 2 free (1 and 3 full). */
    setup (5, 8, NS_POLICY_PACK);
    put (100, ABQ, NS_JOB_PACKED, "0:4");
    put (101, ABQ, NS_JOB_PACKED, "1:8");
    put (102, ABQ, NS_JOB_PACKED, "3:8");
    put (103, ABQ, NS_JOB_PACKED, "4:6");
    is_str (place (1, LAM, 2), "4:2", "tightest sufficient run: node 4");
    is_str (place (2, LAM, 3), "0:3", "then node 0 (4 free) over node 2 (8)");
    is_str (place (3, LAM, 9), "0:1,2:8",
            "no run suffices: the largest first, then the next");

    /* A tight run of two partly used nodes beats an empty node: stock
     * splits a 5-core job 3+2 although node 3 has 8 free. */
    setup (4, 8, NS_POLICY_PACK);
    put (100, ABQ, NS_JOB_PACKED, "0:5");
    put (101, ABQ, NS_JOB_PACKED, "1:5");
    put (102, ABQ, NS_JOB_PACKED, "2:8");
    is_str (place (1, LSD, 5), "0:3,1:2", "run {0,1} (6) beats run {3} (8)");

    /* cpus per task: only whole tasks count. */
    setup (2, 8, NS_POLICY_PACK);
    put (100, ABQ, NS_JOB_PACKED, "0:5");
    ns_request_t r;
    ns_request_init (&r, 1, LAM, 2);
    r.cpus_per_task = 2;
    is_str (place_req (&r), "1:4", "3 free cores hold one 2-cpu task: node 1");
}

/* The default policy (twins, fallback at once, small jobs below half a
 * node): the example of six one-core jobs on 2 x 24. */
/* Slurm 26.05's cons_tres (pol.stock_one_node_first): a job that may use
 * one node only takes the first node that holds it; other jobs, and every
 * job of the earlier releases, the best fit. */
static void test_one_node_first (void)
{
    static const struct {
        int ntasks, max_nodes;
        const char *want[2];    /* up to 25.11, 26.05 */
        const char *what;
    } t[] = {
        { 1, 0, { "1:1", "0:1" }, "one task, no node count" },
        { 2, 0, { "1:2", "1:2" }, "two tasks, no node count" },
        { 2, 1, { "1:2", "0:2" }, "two tasks, -N 1" },
        { 4, 1, { "1:4", "0:4" }, "four tasks, -N 1" },
        { 5, 1, { "0:5", "0:5" }, "five tasks, -N 1 (node 1 has 4 free)" },
    };
    for (size_t k = 0; k < sizeof (t) / sizeof (t[0]); k++)
        for (int first = 0; first <= 1; first++) {
            setup (3, 24, NS_POLICY_PACK);
            pol.stock_one_node_first = first;
            put (1, ABQ, NS_JOB_PACKED, "0:4");     /* node 0: 20 free */
            put (2, LAM, NS_JOB_PACKED, "1:20");    /* node 1: 4 free */
            ns_request_t r;
            ns_request_init (&r, 3, LSD, t[k].ntasks);
            r.max_nodes = t[k].max_nodes;
            is_str (place_req (&r), t[k].want[first], "%s, %s: %s", t[k].what,
                    first ? "26.05" : "up to 25.11", t[k].want[first]);
        }
}

static void test_small_jobs (void)
{
    setup_defaults (2, 24, NS_POLICY_TWINS);
    const char *want[6] = { "0:1", "0:1", "0:1", "0:1", "0:1", "0:1" };
    int placed = 0;
    for (int i = 0; i < 6; i++)
        placed += strcmp (place (i + 1, i % 3, 1), want[i]) == 0;
    is_int (placed, 6, "six one-core jobs all start, densely on node 0");
    is_int (pl->rule, NS_RULE_PACK, "rule pack");
    is_int (pl->why, NS_PACK_SMALL, "why: small job");
    is_int (pl->flags, NS_JOB_PACKED, "packed: no co-tenant limit");
    is_str (pl->explain, "job 6 (LSD, 1 cores) [twins]: nodes 0 (1 cores) by "
            "pack (small job), sharing 1 node", "explanation names the rule");

    /* Two striped jobs, then 40 one-core jobs beside them (4 x 24). */
    setup_defaults (4, 24, NS_POLICY_TWINS);
    is_str (place (1, LAM, 24), "0:12,1:12", "LAM striped on an empty pair");
    is_str (place (2, ABQ, 24), "2:12,3:12", "ABQ striped on the next pair");
    int ok_small = 0;
    for (int i = 0; i < 40; i++) {
        const char *g = place (10 + i, i % 3, 1);
        ok_small += strncmp (g, "wait", 4) != 0 && strncmp (g, "add", 3) != 0;
    }
    is_int (ok_small, 40, "40 one-core jobs start beside the striped jobs");
    is_int (ns_node_free_cores (c, 0) + ns_node_free_cores (c, 1)
                + ns_node_free_cores (c, 2) + ns_node_free_cores (c, 3),
            8, "8 cores left");
    is_int (ns_node_free_cores (c, 0), 0, "densely: node 0 full first");
    is_int (ns_node_ngoverned (c, 0), 1, "node 0: one governed tenant");
    is_int (ns_node_ntenants (c, 0), 13, "node 0: LAM and 12 small jobs");

    /* Small jobs keep empty nodes for the jobs that gain from them. */
    setup_defaults (3, 24, NS_POLICY_TWINS);
    place (1, LAM, 24);             /* 0,1 */
    is_str (place (2, ABQ, 4), "0:4", "small job on a busy node, not on 2");
    is_str (place (3, LSD, 24), "1:12,2:12",
            "LSD striped: empty node 2 and LAM's half of node 1 (node 0 "
            "has 8 free)");
}

static void test_no_gain (void)
{
    setup_defaults (4, 24, NS_POLICY_TWINS);
    int other = 7;      /* a program without figures: neutral */
    is_str (place (1, other, 24), "0:24", "no predicted gain: one node");
    is_int (pl->rule, NS_RULE_PACK, "rule pack");
    is_int (pl->why, NS_PACK_NO_GAIN, "why: no predicted gain");
    is_str (place (2, other, 24), "1:24", "its twin is not refused");
    pol.stripe_margin = 0.3;
    is_str (place (3, ABQ, 24), "2:24", "ABQ (1.255) under a 0.3 margin");
    is_str (place (4, LSD, 24), "3:24",
            "LSD (1.40) would stripe: one empty node, so pack's choice");
    is_int (pl->rule, NS_RULE_FALLBACK, "rule fallback");
    ns_request_t r;
    ns_request_init (&r, 5, LSD, 24);
    ok (ns_place_governed (c, &pol, m, &r), "LSD is governed");
    ns_request_init (&r, 6, ABQ, 24);
    ok (!ns_place_governed (c, &pol, m, &r), "ABQ is not under margin 0.3");
    ns_request_init (&r, 7, LSD, 4);
    ok (!ns_place_governed (c, &pol, m, &r), "small jobs are not governed");
}

/* Where the select plugin's site settings reach the model: scope, jobs
 * that cannot be requeued, GRES nodes, exploring a program without a
 * figure. */
static void test_site_flags (void)
{
    ns_request_t r;
    unsigned char gres[4] = { 1, 1, 0, 0 };

    setup_defaults (4, 24, NS_POLICY_TWINS);
    ns_request_init (&r, 1, LAM, 24);
    r.flags = NS_REQ_OUT_OF_SCOPE;
    is_str (place_req (&r), "0:24", "out of scope: LAM packed on one node");
    is_int (pl->why, NS_PACK_SCOPE, "  why: outside nodeshare's scope");
    is_str (ns_pack_why_name (pl->why), "outside nodeshare's scope",
            "  named");
    ns_request_init (&r, 2, LAM, 24);
    r.flags = NS_REQ_NO_REQUEUE;
    is_str (place_req (&r), "1:24", "cannot be requeued: packed");
    is_int (pl->why, NS_PACK_NO_REQUEUE, "  why: cannot be requeued");
    pol.stripe_no_requeue = 1;
    ns_request_init (&r, 3, LAM, 24);
    r.flags = NS_REQ_NO_REQUEUE;
    is_str (place_req (&r), "2:12,3:12",
            "stripe_no_requeue: striped all the same");
    pol.stripe_no_requeue = 0;

    /* GRES nodes 0 and 1: a stripe takes 2 and 3; with those busy it
     * waits (stripe-empty refuses the GRES nodes), and the fallback packs
     * it on node 0 as stock would. */
    setup_defaults (4, 24, NS_POLICY_TWINS);
    ns_request_init (&r, 1, LAM, 24);
    r.no_stripe = gres;
    is_str (place_req (&r), "2:12,3:12", "GRES nodes 0, 1: LAM striped "
            "over 2 and 3");
    ns_request_init (&r, 2, ABQ, 24);
    r.no_stripe = gres;
    pol.fallback_after = -1;
    is_str (place_req (&r), "2:12,3:12", "ABQ joins LAM on 2 and 3");
    ns_request_init (&r, 3, LSD, 24);
    r.no_stripe = gres;
    is_str (place_req (&r), "wait:resources",
            "strict rules: LSD waits rather than stripe onto GRES nodes");
    ok (strstr (pl->explain, "refused busy 2 nodes (2 3), GRES 2 nodes (0 1)")
            != NULL,
        "  the explanation names the GRES nodes: %s", pl->explain);
    pol.fallback_after = 0;
    ns_request_init (&r, 4, LSD, 24);
    r.no_stripe = gres;
    is_str (place_req (&r), "0:24", "fallback 0: packed onto GRES node 0 "
            "at once, as stock");
    is_int (pl->rule, NS_RULE_FALLBACK, "  rule fallback");

    /* Explore: program 7 has no figure. */
    setup_defaults (4, 24, NS_POLICY_TWINS);
    ns_request_init (&r, 1, 7, 24);
    is_str (place_req (&r), "0:24", "no figure: packed");
    ns_request_init (&r, 2, 7, 24);
    r.flags = NS_REQ_EXPLORE;
    is_str (place_req (&r), "1:12,2:12", "explore: striped over empty nodes");
    ns_request_init (&r, 3, 7, 24);
    r.flags = NS_REQ_EXPLORE;
    is_str (place_req (&r), "3:24",
            "explore: never beside another job: one empty node left, so "
            "packed there (fallback)");
    is_int (pl->rule, NS_RULE_FALLBACK, "  rule fallback");
    ns_request_init (&r, 4, LAM, 24);
    r.flags = NS_REQ_EXPLORE;
    is_str (place_req (&r), "1:12,2:12", "a program with a figure: "
            "explore changes nothing (stripe-share beside the explored "
            "job)");
    is_int (pl->rule, NS_RULE_STRIPE_SHARE, "  rule stripe-share");
}

/* When the sharing rules give way to packing (the will-run answer). */
static void test_fallback_in (void)
{
    ns_policy_t p;
    ns_request_t r;
    ns_policy_default (&p);
    p.kind = NS_POLICY_TWINS;
    ns_request_init (&r, 1, LAM, 24);
    p.fallback_after = 300;
    r.waited = 0;
    is_int ((int)ns_place_fallback_in (&p, &r), 300, "fallback in 300 s");
    r.waited = 120;
    is_int ((int)ns_place_fallback_in (&p, &r), 180,
            "after 120 s of waiting: in 180 s");
    r.waited = 300;
    is_int ((int)ns_place_fallback_in (&p, &r), 0, "after 300 s: now");
    r.waited = 1000;
    is_int ((int)ns_place_fallback_in (&p, &r), 0, "after 1000 s: now");
    p.fallback_after = -1;
    is_int ((int)ns_place_fallback_in (&p, &r), -1, "-1: never");
    p.fallback_after = 0;
    r.waited = 0;
    is_int ((int)ns_place_fallback_in (&p, &r), 0, "0: now");
    r.nodes = 2;
    is_int ((int)ns_place_fallback_in (&p, &r), -1,
            "an explicit shape never falls back");
    r.nodes = 0;
    p.kind = NS_POLICY_EXCLUSIVE;
    p.fallback_after = 0;
    is_int ((int)ns_place_fallback_in (&p, &r), -1,
            "exclusive (a baseline) never falls back");
    ok (ns_place_fallback_in (NULL, &r) == -1, "NULL policy: -1");
}

/* The twin rule as a preference: fallback_after 0 (the default) places
 * the job as pack would instead of leaving it waiting. */
static void test_preference_fallback (void)
{
    setup_defaults (3, 24, NS_POLICY_TWINS);
    is_str (place (1, LAM, 24), "0:12,1:12", "LAM striped");
    is_str (place (2, LAM, 24), "2:24", "twin: pack's choice, node 2");
    is_int (pl->rule, NS_RULE_FALLBACK, "rule fallback");
    is_int (pl->flags, NS_JOB_PACKED, "a fallback job is packed");
    is_str (place (3, LAM, 24), "0:12,1:12",
            "only the twin's halves are free: they are used");
    is_str (place (4, LAM, 1), "wait:resources", "full");

    setup_defaults (3, 24, NS_POLICY_TWINS);
    pol.fallback_after = 600;
    place (1, LAM, 24);
    ns_request_t r;
    ns_request_init (&r, 2, LAM, 24);
    r.waited = 599;
    is_str (place_req (&r), "wait:twin", "fallback_after 600: waits at 599 s");
    r.waited = 600;
    is_str (place_req (&r), "2:24", "and packs at 600 s");
}

/* Partial co-tenancy (interf.h): the figures were measured with the
 * co-tenant on half the node; a c-core co-tenant of a C-core node counts
 * 2c/C of the effect. */
static void test_partial (void)
{
    ok (fabs (ns_interf_partial_slowdown (m, LSD, LAM, 12, 24) - 1.178)
            < 1e-12, "half a node: the measured 1.178");
    ok (fabs (ns_interf_partial_slowdown (m, LSD, LAM, 1, 24)
              - (1.0 + 0.178 / 12)) < 1e-12, "one core of 24: 1/12 of it");
    ok (fabs (ns_interf_partial_slowdown (m, LSD, LAM, 24, 24) - 1.356)
            < 1e-12, "the whole node: twice the effect");
    ok (fabs (ns_interf_partial_slowdown (m, LAM, ABQ, 6, 24)
              - (1.0 - 0.022 / 2)) < 1e-12, "below 1 scales too");
    setup_defaults (2, 24, NS_POLICY_TWINS);
    place (1, LSD, 24);               /* 0:12, 1:12 striped */
    place (2, LAM, 1);                /* small, node 0 */
    double want = (28.0 / 20.0) / (1.0 + 0.178 / 12);
    ok (fabs (ns_job_rate (c, m, 1) - want) < 1e-12,
        "LSD striped next to a one-core LAM: %.6f", ns_job_rate (c, m, 1));
    ok (fabs (ns_job_rate (c, m, 2) - 1.0 / 0.979) < 1e-12,
        "the one-core LAM next to 12 cores of LSD: 1/0.979, not striped");
}

/* ns_place_after: "what if these jobs ended", with the cluster restored. */
static void test_place_after (void)
{
    setup (3, 24, NS_POLICY_TWINS);
    put (1, LAM, 0, "0:12,1:12");
    put (2, ABQ, 0, "2:24");
    put (3, LSD, 0, "0:12,1:12");
    ns_request_t r;
    ns_request_init (&r, 10, LAM, 24);
    r.flags = NS_REQ_QUIET;
    ns_error_t err;
    uint64_t order[3] = { 3, 2, 1 };
    double when[3] = { 100, 200, 300 };
    is_int (ns_place_after (c, &pol, m, progs, &r, order, when, 3, pl, &err),
            3, "strict twins: LAM places only once its twin ended too");
    is_str (pl->explain, "", "quiet: no explanation");
    ok (pl->verdict == NS_PLACED && pl->n == 2 && pl->shares[0].node == 0
        && pl->shares[1].node == 1, "on the empty pair 0,1 (%d nodes: %d %d)",
        pl->n, pl->shares[0].node, pl->n > 1 ? pl->shares[1].node : -1);
    is_int (ns_cluster_njobs (c), 3, "every job put back");
    ns_error_t cerr;
    ok (ns_cluster_check (c, &cerr) == 0, "invariants after the what-if");
    is_int (ns_node_free_cores (c, 2), 0, "node 2 full again");
    ns_request_init (&r, 12, ABQ, 24);
    r.flags = NS_REQ_QUIET;
    is_int (ns_place_after (c, &pol, m, progs, &r, order, when, 3, pl, &err),
            1, "ABQ places next to LAM once LSD ended");
    double same[3] = { 100, 100, 300 };
    is_int (ns_place_after (c, &pol, m, progs, &r, order, same, 3, pl, &err),
            2, "jobs ending together are released together");
    ns_request_init (&r, 10, LAM, 24);
    r.flags = NS_REQ_QUIET;
    uint64_t one[1] = { 3 };
    is_int (ns_place_after (c, &pol, m, progs, &r, one, NULL, 1, pl, &err),
            0, "not even after LSD alone: 0");
    is_int (ns_cluster_njobs (c), 3, "still 3 jobs");
    ns_request_init (&r, 11, LAM, 100);
    r.flags = NS_REQ_QUIET;
    is_int (ns_place_after (c, &pol, m, progs, &r, order, when, 3, pl, &err),
            0, "more cores than the cluster: never, 0");
    is_int (ns_place_after (c, &pol, m, progs, &r, NULL, NULL, 1, pl, &err),
            -1, "missing order: error");
}

/* Destroy functions never change errno (callers report the error that
 * made them clean up). */
/* Property: whatever the state, the will-run answer (ns_place_after) is a
 * time at which the run-now path admits the job on the reported nodes:
 * with the first k jobs ended, ns_place places it, on exactly those
 * nodes; with fewer ended it does not (the answer is the earliest). */
static uint64_t rng_state = 88172645463325252ULL;
static unsigned rnd (unsigned n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

static void test_will_run_agrees (void)
{
    static const ns_policy_kind_t kinds[] = {
        NS_POLICY_TWINS, NS_POLICY_MIXED, NS_POLICY_SAME, NS_POLICY_PACK,
        NS_POLICY_EXCLUSIVE, NS_POLICY_SPREAD, NS_POLICY_MIN_SLOWDOWN,
    };
    int trials = 0, placed_after = 0, agree = 0, earliest = 0;
    for (int t = 0; t < 300; t++) {
        setup (8, 8, kinds[t % 7]);
        pol.fallback_after = t % 2 ? 0 : -1;
        pol.small_job_cores = t % 3 ? -1 : 0;
        uint64_t order[64];
        int n = 0;
        for (int j = 0; j < 40 && n < 64; j++) {
            ns_request_t r;
            ns_request_init (&r, 100 + j, (int)rnd (3), 1 + (int)rnd (12));
            r.flags = NS_REQ_QUIET;
            ns_error_t err;
            if (ns_place (c, &pol, m, progs, &r, pl, &err) == 0
                && pl->verdict == NS_PLACED
                && ns_cluster_add_job (c, r.id, r.program, pl->shares, pl->n,
                                       pl->flags, &err) == 0)
                order[n++] = r.id;
        }
        /* a random order of ends */
        for (int i = n - 1; i > 0; i--) {
            int k = (int)rnd ((unsigned)i + 1);
            uint64_t x = order[i];
            order[i] = order[k];
            order[k] = x;
        }
        ns_request_t q;
        ns_request_init (&q, 999, (int)rnd (3), 1 + (int)rnd (16));
        q.flags = NS_REQ_QUIET;
        ns_error_t err;
        int k = ns_place_after (c, &pol, m, progs, &q, order, NULL, n, pl,
                                &err);
        trials++;
        if (k <= 0)
            continue;
        placed_after++;
        ns_share_t want[16];
        int nw = pl->n < 16 ? pl->n : 16;
        memcpy (want, pl->shares, sizeof (*want) * (size_t)nw);
        /* run now, with order[0..k-1] ended */
        ns_share_t saved[64][16];
        int savedn[64], prog[64], flg[64];
        for (int i = 0; i < k; i++) {
            const ns_share_t *sh = ns_job_shares_ref (c, order[i],
                                                      &savedn[i]);
            if (sh)
                memcpy (saved[i], sh,
                        sizeof (*sh) * (size_t)(savedn[i] < 16 ? savedn[i]
                                                                : 16));
            prog[i] = ns_job_program (c, order[i]);
            flg[i] = ns_job_flags (c, order[i]);
            ns_cluster_remove_job (c, order[i], NULL);
        }
        int ok_now = ns_place (c, &pol, m, progs, &q, pl, &err) == 0
                     && pl->verdict == NS_PLACED && pl->n == nw;
        for (int i = 0; ok_now && i < nw; i++)
            ok_now = pl->shares[i].node == want[i].node
                     && pl->shares[i].cores == want[i].cores;
        agree += ok_now;
        /* one job fewer ended: not placed */
        for (int i = k - 1; i >= 0; i--) {
            if (i == k - 1) {
                ns_cluster_add_job (c, order[i], prog[i], saved[i], savedn[i],
                                    flg[i], NULL);
                /* k == 1: the first try comes after one end (callers ask
                 * when the job cannot start now) */
                int before = k > 1
                             && ns_place (c, &pol, m, progs, &q, pl, &err) == 0
                             && pl->verdict == NS_PLACED;
                earliest += !before;
                continue;
            }
            ns_cluster_add_job (c, order[i], prog[i], saved[i], savedn[i],
                                flg[i], NULL);
        }
        ns_error_t cerr;
        if (ns_cluster_check (c, &cerr) < 0)
            diag ("trial %d: %s", t, cerr.text);
    }
    ok (placed_after > 50, "%d of %d random trials place after some ends",
        placed_after, trials);
    is_int (agree, placed_after,
            "will-run's nodes are where run-now places it at that time");
    is_int (earliest, placed_after,
            "and one end fewer does not place it: the earliest time");
}

/* Decide for req and add the job holding the placement's memory. */
static const char *place_mem (const ns_request_t *req)
{
    ns_error_t err;
    if (ns_place (c, &pol, m, progs, req, pl, &err) < 0)
        return "error";
    if (pl->verdict != NS_PLACED) {
        snprintf (got, sizeof (got), "wait:%s", ns_verdict_name (pl->verdict));
        return got;
    }
    int64_t mem[64];
    size_t o = 0;
    got[0] = '\0';
    for (int i = 0; i < pl->n && i < 64; i++) {
        mem[i] = pl->mem_per_node + req->mem_per_cpu * pl->shares[i].cores;
        o += snprintf (got + o, sizeof (got) - o, "%s%d:%d", i ? "," : "",
                       pl->shares[i].node, pl->shares[i].cores);
    }
    if (ns_cluster_add_job_mem (c, req->id, req->program, pl->shares, pl->n,
                                pl->flags, mem, &err) < 0)
        snprintf (got, sizeof (got), "add failed: %s", err.text);
    else if (ns_cluster_check (c, &err) < 0)
        snprintf (got, sizeof (got), "invariant: %s", err.text);
    return got;
}

/* What slurmctld limits besides cores (design.md 7.2): memory, node and
 * per-node CPU limits, node weights, allowed nodes. */
static void test_limits (void)
{
    ns_request_t r;
    setup_defaults (4, 24, NS_POLICY_TWINS);
    for (int n = 0; n < 4; n++)
        ns_cluster_set_node_mem (c, n, 64000, NULL);
    ns_request_init (&r, 1, LAM, 24);
    r.mem_per_node = 60000;
    is_str (place_mem (&r), "0:12,1:12",
            "--mem=60000: striped, the job's memory split");
    is_int ((int)pl->mem_per_node, 30000, "30000 MB on each of 2 nodes");
    is_int ((int)ns_node_free_mem (c, 1), 34000, "node 1 has 34000 MB left");
    ns_request_init (&r, 2, ABQ, 24);
    r.mem_per_node = 60000;
    is_str (place_mem (&r), "2:12,3:12", "second job: the other pair");
    ns_request_init (&r, 3, ABQ, 24);
    r.mem_per_node = 60000;
    is_str (place_mem (&r), "0:12,1:12", "third: beside LAM, 30000 each");
    ns_request_init (&r, 4, LAM, 24);
    r.mem_per_node = 60000;
    is_str (place_mem (&r), "2:12,3:12", "fourth: beside ABQ: all four run");
    ns_request_init (&r, 5, LSD, 1);
    r.mem_per_node = 5000;
    is_str (place_mem (&r), "wait:resources",
            "no node has 5000 MB left: waits (cores are all taken too)");

    /* Busy memory: nodes 0 and 1 have free cores but no memory. */
    setup_defaults (4, 24, NS_POLICY_TWINS);
    for (int n = 0; n < 4; n++)
        ns_cluster_set_node_mem (c, n, 64000, NULL);
    int64_t big[1] = { 62000 };
    ns_share_t one[1] = { { 0, 1 } };
    ns_cluster_add_job_mem (c, 100, LSD, one, 1, NS_JOB_PACKED, big, NULL);
    one[0].node = 1;
    ns_cluster_add_job_mem (c, 101, LSD, one, 1, NS_JOB_PACKED, big, NULL);
    ns_request_init (&r, 1, LAM, 24);
    r.mem_per_cpu = 100;
    is_str (place_mem (&r), "2:12,3:12", "stripe on the nodes with memory");
    ns_request_init (&r, 2, ABQ, 24);
    r.mem_per_cpu = 200;
    is_str (place_mem (&r), "2:12,3:12",
            "ABQ beside LAM: nodes 0 and 1 have 23 cores but 2000 MB");
    ns_request_init (&r, 3, ABQ, 4);
    r.mem_per_cpu = 1000;
    is_str (place_mem (&r), "0:2,1:2",
            "4 tasks at 1000 MB: 2 fit in node 0's 2000 MB, 2 in node 1's");

    /* Partition limits. */
    setup_defaults (4, 24, NS_POLICY_TWINS);
    ns_request_init (&r, 1, LAM, 24);
    r.max_nodes = 1;
    is_str (place_mem (&r), "0:24", "MaxNodes=1: not striped");
    ns_request_init (&r, 2, LAM, 24);
    r.max_cpus_per_node = 8;
    is_str (place_mem (&r), "1:8,2:8,3:8",
            "MaxCPUsPerNode=8 beside a full node: 8 on each of 3 nodes");
    is_int (pl->rule, NS_RULE_FALLBACK, "(the 4-node stripe does not fit)");
    setup_defaults (4, 24, NS_POLICY_TWINS);
    ns_request_init (&r, 1, LAM, 24);
    r.max_cpus_per_node = 8;
    is_str (place_mem (&r), "0:6,1:6,2:6,3:6",
            "MaxCPUsPerNode=8 on an empty cluster: striped 6 per node");
    ns_request_init (&r, 2, ABQ, 4);
    r.max_nodes = 1;
    r.max_cpus_per_node = 2;
    is_str (place_mem (&r), "wait:resources",
            "4 cores on 1 node of at most 2: never placed");

    /* Node weights: the lowest weight that suffices first. */
    setup_defaults (4, 24, NS_POLICY_TWINS);
    ns_cluster_set_node_weight (c, 0, 10, NULL);
    ns_cluster_set_node_weight (c, 1, 10, NULL);
    is_int (ns_cluster_nweights (c), 2, "two weights");
    is_int ((int)ns_cluster_weight (c, 0), 1, "lowest first");
    is_str (place_mem (&(ns_request_t){ .id = 1, .program = LAM,
                                         .ntasks = 24, .cpus_per_task = 1 }),
            "2:12,3:12", "striped over the weight-1 nodes");
    is_str (place (2, ABQ, 4), "2:4", "a small job packed on weight 1");
    is_str (place (3, LAM, 24), "0:24",
            "a twin of LAM: weight 1 refuses it, packed on weight 10");
    is_int (pl->rule, NS_RULE_FALLBACK, "(heavier nodes are never striped)");
    is_str (place (4, ABQ, 24), "1:24", "ABQ packed on weight 10 too");
    ns_cluster_set_node_weight (c, 0, 1, NULL);
    ns_cluster_set_node_weight (c, 1, 1, NULL);
    is_int (ns_cluster_nweights (c), 1, "one weight again");

    /* Big-memory nodes kept last (weight), reachable by a constraint
     * (allowed). */
    setup_defaults (4, 24, NS_POLICY_TWINS);
    ns_cluster_set_node_weight (c, 2, 100, NULL);
    ns_cluster_set_node_weight (c, 3, 100, NULL);
    is_str (place (1, LAM, 24), "0:12,1:12", "LAM on the light nodes");
    is_str (place (2, ABQ, 24), "0:12,1:12", "ABQ beside it");
    unsigned char big_only[4] = { 0, 0, 1, 1 };
    ns_request_init (&r, 3, LSD, 24);
    r.allowed = big_only;
    is_str (place_mem (&r), "2:12,3:12", "-C bigmem: the big nodes");

    /* A third job that needs the heavy nodes takes one, as stock does,
     * leaving the other whole for a -C bigmem -N 1 job. */
    setup_defaults (4, 24, NS_POLICY_TWINS);
    ns_cluster_set_node_weight (c, 2, 100, NULL);
    ns_cluster_set_node_weight (c, 3, 100, NULL);
    place (1, LAM, 24);
    place (2, ABQ, 24);
    is_str (place (3, LAM, 24), "2:24", "third job: one heavy node, packed");
    ns_request_init (&r, 4, LSD, 24);
    r.allowed = big_only;
    is_str (place_mem (&r), "3:24", "-C bigmem: the other heavy node");
    pol.fallback_after = -1;
    ns_cluster_remove_job (c, 3, NULL);
    is_str (place (3, LAM, 24), "wait:resources",
            "strict rules may stripe over heavy nodes: node 3 is taken");
}

/* The floor (design.md 7.2): over random clusters with node sizes,
 * memory, weights, allowed nodes and partition limits, whatever pack
 * starts now every sharing policy starts now too (fallback at once), and
 * no placement breaks a limit. */
static void test_limits_floor (void)
{
    static const ns_policy_kind_t kinds[] = {
        NS_POLICY_TWINS, NS_POLICY_MIXED, NS_POLICY_SAME, NS_POLICY_KEEP,
        NS_POLICY_MIN_SLOWDOWN,
    };
    int states = 0, pack_starts = 0, floor_kept = 0, limits_kept = 0,
        decisions = 0, strict_waits = 0;
    char first_bad[256] = "";
    for (int t = 0; t < 2000; t++) {
        int nn = 2 + (int)rnd (9);
        setup_defaults (nn, 8, NS_POLICY_PACK);
        unsigned char allow[16];
        for (int n = 0; n < nn; n++) {
            ns_cluster_set_node (c, n, 4 + 4 * (int)rnd (6), 2, NULL);
            if (rnd (4))
                ns_cluster_set_node_mem (c, n, 1000 * (4 + (int)rnd (60)),
                                         NULL);
            if (t % 3 == 0)
                ns_cluster_set_node_weight (c, n, 1 + rnd (3), NULL);
            allow[n] = t % 4 == 0 ? rnd (5) != 0 : 1;
        }
        /* Running jobs, packed with memory as stock would place them. */
        int running = (int)rnd (9);
        for (int j = 0; j < running; j++) {
            ns_request_t r;
            ns_request_init (&r, 100 + j, (int)rnd (3), 1 + (int)rnd (20));
            r.flags = NS_REQ_QUIET;
            if (rnd (2))
                r.mem_per_cpu = 100 * (1 + rnd (20));
            else if (rnd (2))
                r.mem_per_node = 1000 * (1 + rnd (40));
            ns_error_t err;
            pol.kind = kinds[rnd (5)];
            if (ns_place (c, &pol, m, progs, &r, pl, &err) == 0
                && pl->verdict == NS_PLACED) {
                int64_t mem[16];
                for (int i = 0; i < pl->n && i < 16; i++)
                    mem[i] = pl->mem_per_node
                             + r.mem_per_cpu * pl->shares[i].cores;
                ns_cluster_add_job_mem (c, r.id, r.program, pl->shares,
                                        pl->n, pl->flags, mem, NULL);
            }
        }
        states++;
        ns_request_t q;
        ns_request_init (&q, 999, (int)rnd (3), 1 + (int)rnd (24));
        q.flags = NS_REQ_QUIET;
        q.allowed = allow;
        if (rnd (2))
            q.mem_per_cpu = 100 * (1 + rnd (30));
        else if (rnd (2))
            q.mem_per_node = 1000 * (1 + rnd (40));
        if (rnd (3) == 0)
            q.max_nodes = 1 + (int)rnd (3);
        if (rnd (3) == 0)
            q.max_cpus_per_node = 2 + (int)rnd (10);
        pol.kind = NS_POLICY_PACK;
        ns_error_t err;
        if (ns_place (c, &pol, m, progs, &q, pl, &err) < 0
            || pl->verdict != NS_PLACED)
            continue;
        pack_starts++;
        for (int k = 0; k < 5; k++) {
            pol.kind = kinds[k];
            pol.keep_program = LAM;
            pol.fallback_after = 0;
            decisions++;
            if (ns_place (c, &pol, m, progs, &q, pl, &err) < 0
                || pl->verdict != NS_PLACED) {
                if (!first_bad[0])
                    snprintf (first_bad, sizeof (first_bad),
                              "state %d, %s: %s", t,
                              ns_policy_kind_name (pol.kind),
                              ns_verdict_name (pl->verdict));
                continue;
            }
            floor_kept++;
            int okl = q.max_nodes <= 0 || pl->n <= q.max_nodes;
            int held = 0;
            for (int i = 0; i < pl->n; i++) {
                int n = pl->shares[i].node;
                int64_t need = pl->mem_per_node
                               + q.mem_per_cpu * pl->shares[i].cores;
                held += pl->shares[i].cores;
                okl = okl && allow[n]
                      && pl->shares[i].cores <= ns_node_free_cores (c, n)
                      && (q.max_cpus_per_node <= 0
                          || pl->shares[i].cores <= q.max_cpus_per_node)
                      && need <= ns_node_free_mem (c, n);
            }
            /* the job's memory in all: at least what it asked for on its
             * minimal width (a stripe splits it, rounding up) */
            okl = okl && held == q.ntasks;
            limits_kept += okl;
            if (!okl && !first_bad[0])
                snprintf (first_bad, sizeof (first_bad),
                          "state %d, %s: a limit broken", t,
                          ns_policy_kind_name (pol.kind));
            /* strict rules may wait, never break a limit */
            pol.fallback_after = -1;
            if (ns_place (c, &pol, m, progs, &q, pl, &err) == 0
                && pl->verdict != NS_PLACED)
                strict_waits++;
        }
    }
    diag ("%d states, pack starts the job in %d; %d decisions; strict "
          "rules wait in %d", states, pack_starts, decisions, strict_waits);
    ok (pack_starts > 500, "pack starts the job in %d of %d random states",
        pack_starts, states);
    is_int (floor_kept, decisions,
            "every sharing policy starts what pack starts (%s)",
            first_bad[0] ? first_bad : "none refused");
    is_int (limits_kept, floor_kept,
            "on allowed nodes, within MaxNodes, MaxCPUsPerNode and memory");
    ok (strict_waits > 0, "strict rules (fallback_after -1) do wait: %d",
        strict_waits);
}

/* Small jobs keep empty nodes free only where some program gains from
 * striping; with no figures a sharing policy places exactly as pack. */
static void test_no_figures (void)
{
    setup_defaults (3, 24, NS_POLICY_TWINS);
    put (100, ABQ, NS_JOB_PACKED, "0:18");
    put (101, ABQ, NS_JOB_PACKED, "2:18");
    ok (ns_policy_keeps_empty (&pol, m), "the study's figures: keeps empty");
    is_str (place (1, LSD, 10), "0:6,2:4",
            "with figures: a small job on the nodes in use");
    ns_cluster_remove_job (c, 1, NULL);
    ns_interf_t *none = ns_interf_create ();
    ns_interf_t *saved = m;
    m = none;
    ok (!ns_policy_keeps_empty (&pol, m), "no figures: keeps nothing");
    is_str (place (2, LSD, 10), "1:10",
            "no figures: pack's best fit, the empty node");
    pol.kind = NS_POLICY_PACK;
    ns_cluster_remove_job (c, 2, NULL);
    is_str (place (3, LSD, 10), "1:10", "as pack places it");
    ok (!ns_policy_keeps_empty (&pol, saved), "pack never keeps empty nodes");
    ns_interf_set_defaults (none, 1.2, 1.0, NULL);
    pol.kind = NS_POLICY_TWINS;
    ok (ns_policy_keeps_empty (&pol, none), "a default speedup of 1.2 does");
    m = saved;
    ns_interf_destroy (none);
}

static void test_destroy_errno (void)
{
    errno = EXDEV;
    ns_placement_destroy (ns_placement_create (4));
    ns_cluster_destroy (ns_cluster_create (4, 8, 1, NULL));
    ns_interf_destroy (ns_interf_create ());
    ns_progtab_destroy (ns_progtab_create ());
    ns_placement_destroy (NULL);
    is_int (errno, EXDEV, "errno survives every destroy");
}

static void test_errors (void)
{
    ns_error_t err;
    ns_policy_t p;
    ns_policy_default (&p);
    is_int (p.kind, NS_POLICY_TWINS, "default policy is twins");
    is_int (p.stripe_width, 2, "default width 2");
    is_int (p.max_cotenants, 2, "default pairs");
    is_int (ns_policy_parse (&p, "min-slowdown", progs, &err), 0, "parse");
    is_int (p.kind, NS_POLICY_MIN_SLOWDOWN, "min-slowdown parsed");
    is_int (ns_policy_parse (&p, "keep:LSD", progs, &err), 0, "parse keep");
    is_int (p.keep_program, LSD, "keep:LSD uses LSD's id");
    is_int (ns_policy_parse (&p, "keep:", progs, &err), -1, "keep: empty");
    is_int (ns_policy_parse (&p, "fair", progs, &err), -1, "unknown name");
    is_str (err.text, "unknown policy 'fair' (expected pack, exclusive, "
            "spread, mixed, twins, same, keep:PROGRAM or min-slowdown)",
            "message");
    is_int (ns_policy_parse (&p, "pack", progs, &err), 0, "parse pack");
    is_int (p.kind, NS_POLICY_PACK, "pack parsed");
    ns_policy_default (&p);
    is_int ((int)p.fallback_after, 0, "default fallback_after 0: at once");
    is_int (p.small_job_cores, -1, "default small_job_cores: half a node");
    ok (p.stripe_margin == 0.02, "default stripe_margin 0.02");
    setup (2, 24, NS_POLICY_TWINS);
    ns_request_t r;
    ns_request_init (&r, 1, ABQ, 0);
    is_int (ns_place (c, &pol, m, progs, &r, pl, &err), -1, "0 tasks");
    is_int (errno, EINVAL, "EINVAL");

    /* minimal width x stripe_width used to overflow an int (UBSan). */
    setup (100, 2, NS_POLICY_TWINS);
    pol.stripe_width = 16;
    is_str (place (2, ABQ, INT_MAX), "wait:never",
            "INT_MAX tasks, stripe_width 16: never");
}

int main (void)
{
    plan_no_plan ();
    model_setup ();
    test_twins ();
    test_site_flags ();
    test_widths ();
    test_mixed_same_keep ();
    test_node_names ();
    test_pair_allowed ();
    test_min_slowdown ();
    test_exclusive_spread ();
    test_explicit ();
    test_cotenants_allowed ();
    test_avoid ();
    test_fallback_seed ();
    test_pack ();
    test_one_node_first ();
    test_small_jobs ();
    test_no_gain ();
    test_fallback_in ();
    test_preference_fallback ();
    test_partial ();
    test_place_after ();
    test_will_run_agrees ();
    test_limits ();
    test_limits_floor ();
    test_no_figures ();
    test_destroy_errno ();
    test_errors ();
    ns_cluster_destroy (c);
    ns_placement_destroy (pl);
    ns_interf_destroy (m);
    ns_progtab_destroy (progs);
    return done_testing ();
}
