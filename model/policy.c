/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.c - placement policies (design.md section 2)
 *
 * A decision has three steps:
 *   1. shape: how many nodes (width) and how many tasks on each.  Striping
 *      doubles the minimal width (stripe_width x); explicit requests and
 *      jobs that cannot be split keep the shape the user asked for;
 *   2. choice: empty nodes first (lowest index, or a seeded rotation), then,
 *      if the policy shares, admissible half-used nodes in index order or,
 *      for min-slowdown, by predicted mutual slowdown;
 *   3. verdict and a one-line explanation, including refused nodes.
 * Nothing here changes the cluster: the caller adds the job.
 *
 * Parts live in their own files: constres.c (pack, select/cons_tres's
 * node choice), explain.c (the explanation), whatif.c (ns_place_after),
 * policyname.c (names of policies, verdicts and rules); decide.h is the
 * working state they share.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"
#include "nsutil.h"
#include "policy.h"

void ns_policy_default (ns_policy_t *p)
{
    *p = (ns_policy_t){
        .kind = NS_POLICY_TWINS,
        .keep_program = NS_PROGRAM_UNKNOWN,
        .stripe_width = 2,
        .max_cotenants = 2,
        .max_slowdown = 1.15,
        .fallback_after = 0,
        .seed = 0,
        .small_job_cores = -1,
        .stripe_margin = 0.02,
    };
}

void ns_request_init (ns_request_t *r, uint64_t id, int program, int ntasks)
{
    *r = (ns_request_t){
        .id = id,
        .program = program,
        .ntasks = ntasks,
        .cpus_per_task = 1,
    };
}

ns_placement_t *ns_placement_create (int cap)
{
    if (cap < 1) {
        errno = EINVAL;
        return NULL;
    }
    ns_placement_t *pl = calloc (1, sizeof (*pl));
    if (!pl)
        return NULL;
    pl->shares = calloc (cap, sizeof (*pl->shares));
    pl->scratch = calloc ((size_t)cap * 4, sizeof (int));
    pl->order = calloc ((size_t)cap, sizeof (long long));
    pl->tier = calloc ((size_t)cap, 1);
    pl->cache = ns_pack_cache_create (cap);
    if (!pl->shares || !pl->scratch || !pl->order || !pl->tier
        || !pl->cache) {
        ns_pack_cache_destroy (pl->cache);
        free (pl->shares);
        free (pl->scratch);
        free (pl->order);
        free (pl->tier);
        free (pl);
        return NULL;
    }
    pl->cap = cap;
    return pl;
}

void ns_placement_destroy (ns_placement_t *pl)
{
    int saved = errno;   /* a destroy never changes errno */
    if (pl) {
        free (pl->shares);
        free (pl->scratch);
        free (pl->order);
        free (pl->tier);
        ns_pack_cache_destroy (pl->cache);
        free (pl);
    }
    errno = saved;
}

static void refuse (struct decide *d, enum refusal why, int node)
{
    if (d->nrefused[why] < REF_SHOW)
        d->shown[why][d->nrefused[why]] = node;
    d->nrefused[why]++;
}

/* The start of the scan: 0, or a per-job rotation when a seed is set. */
static int scan_start (const struct decide *d)
{
    if (!d->pol->seed)
        return 0;
    uint64_t x = d->pol->seed ^ (d->req->id * 0x9e3779b97f4a7c15ULL);
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 29;
    return (int)(x % (uint64_t)ns_cluster_nnodes (d->c));
}

static void take (struct decide *d, int node, double score)
{
    d->pl->shares[d->found].node = node;
    if (d->score)
        d->score[d->found] = score;
    d->found++;
}

/* The empty nodes of [from, to) in index order, those of this round
 * (with req->avoid: round 0 the unmarked ones, round 1 the marked), until
 * the job has its width. */
static void take_empty_range (struct decide *d, int from, int to, int round)
{
    const uint64_t *bits = ns_cluster_empty_bits (d->c);
    const int *fc = ns_cluster_free_cores_ref (d->c);
    const unsigned char *avoid = d->req->avoid, *mask = d->mask;
    /* The usual request: no node avoided or kept from striping, nothing
     * but free cores limits a node, no score kept; its nodes are tested
     * apart, and the count of nodes found is held here until the end
     * (RICC under spread: 0.39 G instructions to 0.33 G). */
    int plain = !avoid && !d->no_stripe && !d->limp && !d->score;
    ns_share_t *sh = d->pl->shares;
    int found = d->found, width = d->width, slot = d->slot;
    if (from >= to || found >= width)
        return;
    for (int w = from >> 6; w <= (to - 1) >> 6; w++) {
        uint64_t word = bits[w];
        if (w == from >> 6)
            word &= ~0ULL << (from & 63);
        for (; word; word &= word - 1) {
            int n = (w << 6) + __builtin_ctzll (word);
            if (n >= to)
                goto out;
            enum refusal why = REF_COUNT;   /* none: taken */
            if (plain) {
                if ((mask && !mask[n]) || fc[n] < slot)
                    why = REF_BUSY;
            }
            else if (avoid && !avoid[n] != (round == 0))
                continue;   /* this node's round is the other one */
            else if (d->no_stripe && d->no_stripe[n])
                why = REF_GRES;
            else if (!allowed (d, n)
                     || (d->limp ? room (d, n) : fc[n]) < slot)
                why = REF_BUSY;
            if (why != REF_COUNT) {
                refuse (d, why, n);
                continue;
            }
            if (d->score)
                d->score[found] = 0.0;
            sh[found++].node = n;
            if (found >= width)
                goto out;
        }
    }
out:
    d->found = found;
}

/* Empty nodes first: word-scan the empty bitmap from the start offset.
 * With req->avoid, a first round takes the unmarked nodes only and a
 * second the marked ones. */
static void take_empty (struct decide *d)
{
    int nn = ns_cluster_nnodes (d->c);
    int start = scan_start (d);
    for (int round = d->req->avoid ? 0 : 1; round < 2; round++) {
        if (d->found < d->width)
            take_empty_range (d, start, nn, round);
        if (d->found < d->width)
            take_empty_range (d, 0, start, round);
    }
}

/* Pairing rule of the policy for program p joining node n. */
/* Tenant i of node n is governed by the sharing rules (packed jobs are
 * invisible to the pairing rules and the co-tenant limit). */
static int governed_tenant (const ns_cluster_t *c, int n, int i)
{
    return !(ns_node_tenant_flags (c, n, i) & NS_JOB_PACKED);
}

/* The pairing rule for a governed job of program p beside one of q: -1
 * (allowed) or the REF_* reason. */
static int pair_refusal (const ns_policy_t *pol, int p, int q)
{
    int pk = pol->keep_program;
    switch (pol->kind) {
    case NS_POLICY_TWINS:
        if (q == p && p != NS_PROGRAM_UNKNOWN)
            return REF_TWIN;
        break;
    case NS_POLICY_SAME:
        if (q != p || p == NS_PROGRAM_UNKNOWN)
            return REF_PAIRING;
        break;
    case NS_POLICY_KEEP:
        /* P only with P; the others with each other, never twins */
        if ((p == pk) != (q == pk))
            return REF_PAIRING;
        if (p != pk && q == p && p != NS_PROGRAM_UNKNOWN)
            return REF_TWIN;
        break;
    default:
        break;
    }
    return -1;
}

/* Pairing rule of the policy for program p joining node n. */
static int pairing_refusal (const struct decide *d, int n)
{
    const ns_cluster_t *c = d->c;
    int nt = ns_node_ntenants (c, n);
    for (int i = 0; i < nt; i++) {
        if (!governed_tenant (c, n, i))
            continue;
        int why = pair_refusal (d->pol, d->req->program,
                                ns_node_tenant_program (c, n, i));
        if (why >= 0)
            return why;
    }
    return -1;
}

/* Worst predicted mutual slowdown of p with the tenants of n. */
static double pair_score (const struct decide *d, int n)
{
    double worst = 1.0;
    int nt = ns_node_ntenants (d->c, n), any = 0;
    for (int i = 0; i < nt; i++) {
        if (!governed_tenant (d->c, n, i))
            continue;
        double s = ns_interf_mutual (d->m, d->req->program,
                                     ns_node_tenant_program (d->c, n, i));
        if (!any || s > worst)
            worst = s;
        any = 1;
    }
    return worst;
}

/* Keep the best `need` candidates by (score, scan order): insertion into
 * the tail of the found array, which is tiny (a job needs few nodes). */
static void take_ranked (struct decide *d, int base, int n, double s)
{
    int need = d->width - base;
    int have = d->found - base;
    if (have == need && s >= d->score[d->found - 1])
        return;
    int i = have < need ? d->found++ : d->found - 1;
    while (i > base && d->score[i - 1] > s) {
        d->pl->shares[i] = d->pl->shares[i - 1];
        d->score[i] = d->score[i - 1];
        i--;
    }
    d->pl->shares[i].node = n;
    d->score[i] = s;
}

/* One candidate for co-scheduling: 1 if taken or ranked. */
static void consider_shared (struct decide *d, int base, int n)
{
    const ns_cluster_t *c = d->c;
    if (d->no_stripe && d->no_stripe[n]) {
        refuse (d, REF_GRES, n);
        return;
    }
    if (!allowed (d, n) || room (d, n) < d->slot) {
        refuse (d, REF_BUSY, n);
        return;
    }
    if (d->packed) {            /* as asked: any node with the cores */
        take (d, n, 0.0);
        return;
    }
    if (ns_node_ngoverned (c, n) >= d->pol->max_cotenants) {
        refuse (d, REF_COTENANTS, n);
        return;
    }
    int why = pairing_refusal (d, n);
    if (why >= 0) {
        refuse (d, why, n);
        return;
    }
    if (d->score) {
        double s = pair_score (d, n);
        if (s > d->pol->max_slowdown)
            refuse (d, REF_SLOWDOWN, n);
        else
            take_ranked (d, base, n, s);
    }
    else
        take (d, n, 0.0);
}

/* Nodes with tenants that cannot take anyone (full or held whole) are
 * "busy"; count them for the explanation without visiting them all. */
static void count_closed_busy (struct decide *d)
{
    const ns_cluster_t *c = d->c;
    int nn = ns_cluster_nnodes (c);
    for (int n = 0; n < nn && d->nrefused[REF_BUSY] < REF_SHOW; n++)
        if (!ns_node_is_empty (c, n)
            && ns_cluster_next_open (c, n, d->slot) != n)
            refuse (d, REF_BUSY, n);
}

/* Co-schedule: admissible nodes among the open ones (see cluster.h), in
 * index order from the scan start, or ranked for min-slowdown. */
static void take_shared_slow (struct decide *d);

static void take_shared (struct decide *d)
{
    const ns_cluster_t *c = d->c;
    if (d->packed || ns_cluster_tenant_hint (c) < d->pol->max_cotenants) {
        /* The bitmaps hide nodes this policy would still use. */
        take_shared_slow (d);
        return;
    }
    int nn = ns_cluster_nnodes (c);
    int start = scan_start (d);
    int base = d->found;
    int visited = 0;
    for (int pass = 0; pass < 2; pass++) {
        int from = pass == 0 ? start : 0;
        int to = pass == 0 ? nn : start;
        for (int n = ns_cluster_next_open (c, from, d->slot); n >= 0 && n < to;
             n = ns_cluster_next_open (c, n + 1, d->slot)) {
            if (!d->score && d->found == d->width)
                return;
            consider_shared (d, base, n);
            visited++;
        }
    }
    if (!(d->req->flags & NS_REQ_QUIET)) {
        int busy = nn - ns_cluster_nempty (c) - visited;
        int before = d->nrefused[REF_BUSY];
        count_closed_busy (d);
        d->nrefused[REF_BUSY] = before + busy;
    }
}

/* Every non-empty node in scan order (hint smaller than the policy's k). */
static void take_shared_slow (struct decide *d)
{
    const ns_cluster_t *c = d->c;
    int nn = ns_cluster_nnodes (c);
    int start = scan_start (d);
    int base = d->found;
    for (int k = 0; k < nn; k++) {
        int n = start + k < nn ? start + k : start + k - nn;
        if (ns_node_is_empty (c, n))
            continue;
        if (!d->score && d->found == d->width)
            return;
        if (ns_node_is_closed (c, n)) {
            refuse (d, REF_BUSY, n);
            continue;
        }
        consider_shared (d, base, n);
    }
}

static int by_node (const void *a, const void *b)
{
    const ns_share_t *x = a, *y = b;
    return (x->node > y->node) - (x->node < y->node);
}

/* Shares in node order (their cores are not set yet): insertion sort for
 * the usual handful of nodes, else a bitmap of the nodes in pl's scratch
 * (nodes are distinct), read back in order. */
static void sort_shares (ns_placement_t *pl, int n)
{
    ns_share_t *s = pl->shares;
    int sorted = 1, top = n > 0 ? s[0].node : 0;
    for (int i = 1; i < n; i++) {
        sorted &= s[i - 1].node < s[i].node;
        if (s[i].node > top)
            top = s[i].node;
    }
    if (sorted)
        return;     /* the usual case: nodes were taken in index order */
    int nwords = top / 64 + 1;
    if (n > 16 && (size_t)nwords * sizeof (uint64_t)
                      <= (size_t)pl->cap * 4 * sizeof (int)) {
        uint64_t *bits = (uint64_t *)(void *)pl->scratch;
        memset (bits, 0, sizeof (*bits) * (size_t)nwords);
        for (int i = 0; i < n; i++)
            bits[s[i].node >> 6] |= 1ULL << (s[i].node & 63);
        int k = 0;
        for (int w = 0; w < nwords; w++)
            for (uint64_t word = bits[w]; word; word &= word - 1)
                s[k++].node = (w << 6) + __builtin_ctzll (word);
        return;
    }
    if (n > 16) {
        qsort (s, n, sizeof (*s), by_node);
        return;
    }
    for (int i = 1; i < n; i++) {
        ns_share_t x = s[i];
        int k = i;
        while (k > 0 && s[k - 1].node > x.node) {
            s[k] = s[k - 1];
            k--;
        }
        s[k] = x;
    }
}

/* Tasks: the first (ntasks - (hi-1) * width) nodes get hi tasks, the rest
 * hi - 1, so the sum is exactly ntasks. */
static void fill_cores (struct decide *d)
{
    const ns_request_t *r = d->req;
    ns_placement_t *pl = d->pl;
    if (d->rule == NS_RULE_PACK || d->rule == NS_RULE_FALLBACK) {
        /* pack () left the shares in node order */
        pl->shared = 0;
        for (int i = 0; i < d->width; i++)
            pl->shared += !ns_node_is_empty (d->c, pl->shares[i].node);
        pl->n = d->width;
        return;
    }
    sort_shares (pl, d->width);
    int fixed = r->ntasks_per_node > 0 && r->nodes == 0 && !r->nodelist;
    int rich = r->ntasks - (d->tasks_hi - 1) * d->width;
    int left = r->ntasks;
    pl->shared = 0;
    for (int i = 0; i < d->width; i++) {
        int t = fixed ? (left < d->tasks_hi ? left : d->tasks_hi)
                      : (i < rich ? d->tasks_hi : d->tasks_hi - 1);
        left -= t;
        pl->shares[i].cores = t * r->cpus_per_task;
        if (!ns_node_is_empty (d->c, pl->shares[i].node))
            pl->shared++;
    }
    pl->n = d->width;
}

static int ceil_div (int a, int b)
{
    return (int)(((long long)a + b - 1) / b);
}

static int validate (const ns_cluster_t *c, const ns_request_t *r,
                     ns_error_t *err)
{
    if (r->ntasks < 1)
        return ns_error_set (err, EINVAL, "job %llu: %d tasks",
                             (unsigned long long)r->id, r->ntasks);
    if (r->cpus_per_task < 1)
        return ns_error_set (err, EINVAL, "job %llu: %d cpus per task",
                             (unsigned long long)r->id, r->cpus_per_task);
    if ((long long)r->ntasks * r->cpus_per_task > INT_MAX)
        return ns_error_set (err, EINVAL, "job %llu: too many cores",
                             (unsigned long long)r->id);
    if (r->nodes < 0 || r->ntasks_per_node < 0 || r->nnodelist < 0)
        return ns_error_set (err, EINVAL, "job %llu: negative shape",
                             (unsigned long long)r->id);
    if (r->nodes > 0 && r->nodes > r->ntasks)
        return ns_error_set (err, EINVAL, "job %llu: %d nodes for %d tasks",
                             (unsigned long long)r->id, r->nodes, r->ntasks);
    for (int i = 0; r->nodelist && i < r->nnodelist; i++) {
        int n = r->nodelist[i];
        if (n < 0 || n >= ns_cluster_nnodes (c))
            return ns_error_set (err, EINVAL,
                                 "job %llu: node list names node %d, "
                                 "cluster has 0..%d",
                                 (unsigned long long)r->id, n,
                                 ns_cluster_nnodes (c) - 1);
        for (int k = 0; k < i; k++)
            if (r->nodelist[k] == n)
                return ns_error_set (err, EINVAL,
                                     "job %llu: node %d listed twice",
                                     (unsigned long long)r->id, n);
    }
    if (r->nodelist && r->nnodelist > r->ntasks)
        return ns_error_set (err, EINVAL, "job %llu: %d nodes for %d tasks",
                             (unsigned long long)r->id, r->nnodelist,
                             r->ntasks);
    return 0;
}

int ns_policy_is_sharing (ns_policy_kind_t k)
{
    return k == NS_POLICY_MIXED || k == NS_POLICY_TWINS || k == NS_POLICY_SAME
           || k == NS_POLICY_KEEP || k == NS_POLICY_MIN_SLOWDOWN;
}

int ns_policy_keeps_empty (const ns_policy_t *pol, const ns_interf_t *m)
{
    return pol && ns_policy_is_sharing (pol->kind) && !pol->ungoverned && m
           && ns_interf_max_speedup (m) > 1.0 + pol->stripe_margin;
}

int ns_policy_pair_allowed (const ns_policy_t *pol, const ns_interf_t *m,
                            int p, int q)
{
    if (!ns_policy_is_sharing (pol->kind))
        return 0;
    if (pair_refusal (pol, p, q) >= 0 || pair_refusal (pol, q, p) >= 0)
        return 0;
    if (pol->kind == NS_POLICY_MIN_SLOWDOWN
        && ns_interf_mutual (m, p, q) > pol->max_slowdown)
        return 0;
    return 1;
}

static int explicit_shape (const ns_request_t *r)
{
    return (r->flags & NS_REQ_WHOLE_NODES) || r->nodes > 0
           || r->ntasks_per_node > 0 || r->nodelist;
}

/* May a job the sharing rules hold back be packed instead?  Only under
 * the sharing policies: exclusive and spread are the study's baselines. */
static int falls_back (const ns_policy_t *pol, const ns_request_t *r)
{
    return ns_policy_is_sharing (pol->kind) && pol->fallback_after >= 0
           && r->waited >= pol->fallback_after && !explicit_shape (r);
}

/* An exploring request (NS_REQ_EXPLORE) of a program without a given
 * spread_speedup. */
static int exploring (const struct decide *d)
{
    const ns_request_t *r = d->req;
    return (r->flags & NS_REQ_EXPLORE) && r->program != NS_PROGRAM_UNKNOWN
           && d->m && !ns_interf_given_speedup (d->m, r->program);
}

/* Does the sharing policy leave this job to packing, and why?
 * (design.md section 2: the rules apply where the model predicts a gain) */
static ns_pack_why_t pack_reason (const struct decide *d)
{
    const ns_request_t *r = d->req;
    const ns_policy_t *pol = d->pol;
    if (pol->kind == NS_POLICY_PACK)
        return explicit_shape (r) ? NS_PACK_AS_ASKED : NS_PACK_POLICY;
    if (r->flags & NS_REQ_OUT_OF_SCOPE)
        return explicit_shape (r) ? NS_PACK_AS_ASKED : NS_PACK_SCOPE;
    if (!ns_policy_is_sharing (pol->kind))
        return NS_PACK_NONE;
    if (explicit_shape (r))
        return NS_PACK_AS_ASKED;
    int small = pol->small_job_cores >= 0 ? pol->small_job_cores
                                          : ns_cluster_max_cores (d->c) / 2;
    if ((long long)r->ntasks * r->cpus_per_task < small)
        return NS_PACK_SMALL;
    if (r->ntasks == 1)
        return NS_PACK_ONE_TASK;
    double speedup = d->m ? ns_interf_speedup (d->m, r->program) : 1.0;
    if (!(speedup > 1.0 + pol->stripe_margin) && !exploring (d))
        return NS_PACK_NO_GAIN;
    if ((r->flags & NS_REQ_NO_REQUEUE) && !pol->stripe_no_requeue)
        return NS_PACK_NO_REQUEUE;
    return NS_PACK_NONE;
}

/* Step 1: width and tasks per node.  Returns 0, or NS_NEVER when no empty
 * cluster could hold the shape. */
static ns_verdict_t shape (struct decide *d, int fallback)
{
    const ns_request_t *r = d->req;
    const ns_policy_t *pol = d->pol;
    int nn = ns_cluster_nnodes (d->c);
    int most = ns_cluster_max_cores (d->c);
    if (r->max_cpus_per_node > 0 && r->max_cpus_per_node < most)
        most = r->max_cpus_per_node;
    int per_node = most / r->cpus_per_task;
    if (per_node < 1)
        return NS_NEVER;
    int minimal = ceil_div (r->ntasks, per_node);

    d->closes = pol->kind == NS_POLICY_EXCLUSIVE
                || pol->kind == NS_POLICY_SPREAD
                || (r->flags & NS_REQ_WHOLE_NODES);
    d->shares_nodes = !d->closes;
    d->striped = 0;
    d->packed = 0;
    d->why = NS_PACK_NONE;
    if (r->nodelist)
        d->width = r->nnodelist;
    else if (r->nodes > 0)
        d->width = r->nodes;
    else if (r->ntasks_per_node > 0)
        d->width = ceil_div (r->ntasks, r->ntasks_per_node);
    else
        d->width = minimal;

    ns_pack_why_t why = fallback ? NS_PACK_NONE : pack_reason (d);
    if (fallback) {
        d->rule = NS_RULE_FALLBACK;
        d->closes = 0;
        d->packed = 1;
    }
    else if (why == NS_PACK_AS_ASKED) {
        d->rule = NS_RULE_AS_ASKED;
        d->packed = !d->closes;
        d->why = why;
    }
    else if (why != NS_PACK_NONE) {
        d->rule = NS_RULE_PACK;
        d->packed = 1;
        d->why = why;
    }
    else if (explicit_shape (r) || r->ntasks == 1) {
        d->rule = NS_RULE_AS_ASKED;
    }
    else if (pol->kind == NS_POLICY_EXCLUSIVE) {
        d->rule = NS_RULE_EXCLUSIVE;
    }
    else {
        long long w = (long long)minimal * pol->stripe_width;
        if (w > nn)
            w = nn;
        if (w > r->ntasks)
            w = r->ntasks;
        if (r->max_nodes > 0 && w > r->max_nodes)
            w = r->max_nodes;   /* never wider than slurmctld allows */
        if (w < minimal)
            w = minimal;
        d->striped = w > minimal;
        d->width = (int)w;
        d->rule = NS_RULE_STRIPE_EMPTY;
        if (exploring (d))
            d->shares_nodes = 0;    /* alone: what the figure needs */
    }
    d->no_stripe = d->rule == NS_RULE_STRIPE_EMPTY ? r->no_stripe : NULL;
    /* Memory and cores per node (design.md 7.2): --mem is the job's
     * memory per node on its minimal width; a stripe holds that total,
     * split over its nodes. */
    d->lim = (ns_node_limits_t){ .mem_per_cpu = r->mem_per_cpu,
                                 .mem_per_node = r->mem_per_node,
                                 .max_cores = r->max_cpus_per_node };
    if (d->striped && r->mem_per_node > 0)
        d->lim.mem_per_node = (r->mem_per_node * minimal + d->width - 1)
                              / d->width;
    d->limp = d->lim.mem_per_cpu > 0 || d->lim.mem_per_node > 0
                      || d->lim.max_cores > 0
                  ? &d->lim
                  : NULL;
    d->pl->mem_per_node = d->lim.mem_per_node;
    if (d->packed && d->rule != NS_RULE_AS_ASKED) {
        /* pack: any free task slot will do, on as many nodes as it
         * takes; no per-node slot (0) */
        d->tasks_hi = 1;
        d->slot = 0;
        if ((long long)r->ntasks * r->cpus_per_task
            > ns_cluster_total_cores (d->c))
            return NS_NEVER;
        return d->width > d->pl->cap ? NS_NEVER : NS_PLACED;
    }
    if (r->ntasks_per_node > 0 && !r->nodes && !r->nodelist)
        d->tasks_hi = r->ntasks_per_node;
    else
        d->tasks_hi = ceil_div (r->ntasks, d->width);
    d->slot = d->tasks_hi * r->cpus_per_task;
    if (d->width > nn || d->width > d->pl->cap
        || d->slot > ns_cluster_max_cores (d->c))
        return NS_NEVER;
    return NS_PLACED;
}

/* An explicit node list: check each listed node, take all or none. */
static void take_listed (struct decide *d)
{
    const ns_request_t *r = d->req;
    for (int i = 0; i < r->nnodelist; i++) {
        int n = r->nodelist[i];
        if (!allowed (d, n) || ns_node_is_closed (d->c, n)
            || room (d, n) < d->slot
            || (d->closes && !ns_node_is_empty (d->c, n)))
            refuse (d, REF_BUSY, n);
        else if (!d->packed && !ns_node_is_empty (d->c, n)
                 && ns_node_ngoverned (d->c, n) >= d->pol->max_cotenants)
            refuse (d, REF_COTENANTS, n);
        else
            take (d, n, 0.0);
    }
}

static void choose (struct decide *d)
{
    if (d->req->nodelist) {
        take_listed (d);
        return;
    }
    if (d->rule == NS_RULE_FALLBACK || d->rule == NS_RULE_PACK) {
        if (ns_decide_pack (d))
            d->width = d->found;
        else
            d->found = 0;
        return;
    }
    take_empty (d);
    if (d->found < d->width && d->shares_nodes)
        take_shared (d);
}

static ns_verdict_t shortfall_verdict (const struct decide *d)
{
    int missing = d->width - d->found;
    for (int why = 0; why < REF_BUSY; why++)
        if (d->nrefused[why] >= missing)
            return (ns_verdict_t)(NS_WAIT_TWIN + why);
    return NS_WAIT_RESOURCES;
}

static void decide_once (struct decide *d, int fallback)
{
    ns_placement_t *pl = d->pl;
    memset (d->nrefused, 0, sizeof (d->nrefused));
    d->found = 0;
    pl->n = 0;
    pl->shared = 0;
    pl->verdict = shape (d, fallback);
    pl->rule = d->rule;
    if (pl->verdict == NS_NEVER)
        return;
    /* min-slowdown ranks in a 64-entry stack array; wider jobs take
     * admissible nodes in scan order. */
    d->score = d->pol->kind == NS_POLICY_MIN_SLOWDOWN && d->width <= 64
                   ? d->score_buf : NULL;
    pl->width = d->width;
    pl->slot = d->slot;
    pl->capacity_short = 0;
    pl->found = 0;
    choose (d);
    if (d->rule == NS_RULE_PACK || d->rule == NS_RULE_FALLBACK) {
        if (d->found == 0 || d->width != d->found) {
            /* pack fails only for want of free cores */
            pl->found = 0;
            pl->verdict = NS_WAIT_RESOURCES;
            return;
        }
        pl->width = d->width;
    }
    else if (d->found < d->width) {
        pl->found = d->found;
        pl->verdict = shortfall_verdict (d);
        pl->capacity_short = !d->req->nodelist && !d->req->allowed
                             && !d->mask && !d->limp && !d->no_stripe
                             && d->rule != NS_RULE_FALLBACK
                             && d->found + d->nrefused[REF_TWIN]
                                    + d->nrefused[REF_PAIRING]
                                    + d->nrefused[REF_SLOWDOWN]
                                < d->width;
        return;
    }
    fill_cores (d);
    pl->verdict = NS_PLACED;
    if (pl->rule == NS_RULE_STRIPE_EMPTY && pl->shared)
        pl->rule = NS_RULE_STRIPE_SHARE;
    pl->flags = (d->closes ? NS_JOB_CLOSES_NODES : 0)
                | (d->striped ? NS_JOB_STRIPED : 0)
                | (d->packed ? NS_JOB_PACKED : 0);
    pl->why = d->why;
}

int ns_place (const ns_cluster_t *c, const ns_policy_t *pol,
              const ns_interf_t *m, const ns_progtab_t *progs,
              const ns_request_t *req, ns_placement_t *pl, ns_error_t *err)
{
    if (!c || !pol || !req || !pl)
        return ns_error_set (err, EINVAL, "ns_place: missing argument");
    if (pol->kind < 0 || pol->kind >= NS_POLICY_COUNT
        || pol->stripe_width < 1 || pol->max_cotenants < 1)
        return ns_error_set (err, EINVAL, "ns_place: malformed policy");
    if (validate (c, req, err) < 0)
        return -1;
    double score_buf[64];
    struct decide d = {
        .c = c, .pol = pol, .m = m, .req = req, .pl = pl,
        .mask = req->allowed, .score_buf = score_buf,
    };
    pl->flags = 0;
    pl->why = NS_PACK_NONE;
    pl->mem_per_node = 0;
    int tiers = ns_cluster_nweights (c);
    if (tiers <= 1 || req->nodelist) {
        decide_once (&d, 0);
        if (pl->verdict != NS_PLACED && pl->verdict != NS_NEVER
            && falls_back (pol, req) && !d.packed)
            decide_once (&d, 1);
    }
    else {
        /* Node weights: the nodes of the lowest weights that suffice,
         * as select/cons_tres orders them.  The sharing rules stripe
         * only over the lightest nodes the job may use: nodes an
         * administrator keeps for last (heavier) are used as stock uses
         * them, one job packed on as few as it needs, unless the rules
         * are strict.  The rules are tried before they give way to
         * packing. */
        int heavy_pack = ns_policy_is_sharing (pol->kind) && pol->fallback_after >= 0
                         && !explicit_shape (req);
        int lightest = -1;
        for (int fb = 0; fb < 2; fb++) {
            if (fb && (pl->verdict == NS_PLACED || pl->verdict == NS_NEVER
                       || !falls_back (pol, req) || d.packed))
                break;
            for (int t = 0; t < tiers; t++) {
                int nn = ns_cluster_nnodes (c), any = 0;
                uint32_t w = ns_cluster_weight (c, t);
                for (int n = 0; n < nn; n++) {
                    pl->tier[n] = (!req->allowed || req->allowed[n])
                                  && ns_node_weight (c, n) <= w;
                    any |= pl->tier[n];
                }
                if (!any)
                    continue;
                if (lightest < 0)
                    lightest = t;
                d.mask = t + 1 < tiers ? pl->tier : req->allowed;
                if (!fb && heavy_pack && t > lightest && !d.packed)
                    break;  /* heavier nodes: packed, in the second round */
                decide_once (&d, fb);
                if (pl->verdict == NS_PLACED || pl->verdict == NS_NEVER)
                    break;
            }
        }
    }
    if (req->flags & NS_REQ_QUIET)
        pl->explain[0] = '\0';
    else
        ns_decide_explain (&d, progs);
    return 0;
}

/* A placement for shape () alone, which reads its cap and sets its
 * mem_per_node: the rest (512 bytes of explanation among them) is not
 * zeroed, on the paths that ask for a shape many times a pass. */
static void shape_only (ns_placement_t *pl, const ns_cluster_t *c)
{
    pl->cap = ns_cluster_nnodes (c);
    pl->mem_per_node = 0;
    pl->shares = NULL;
    pl->scratch = NULL;
    pl->tier = NULL;
    pl->order = NULL;
    pl->cache = NULL;
}

int ns_place_shape (const ns_cluster_t *c, const ns_policy_t *pol,
                    const ns_interf_t *m, const ns_request_t *req, int *width,
                    int *slot, ns_error_t *err)
{
    if (!c || !pol || !req)
        return ns_error_set (err, EINVAL, "ns_place_shape: missing argument");
    if (validate (c, req, err) < 0)
        return -1;
    ns_placement_t pl;
    shape_only (&pl, c);
    struct decide d = { .c = c, .pol = pol, .m = m, .req = req, .pl = &pl,
                        .mask = req->allowed };
    shape (&d, 0);
    *width = d.width;
    *slot = d.slot;
    return 0;
}

int ns_place_governed (const ns_cluster_t *c, const ns_policy_t *pol,
                       const ns_interf_t *m, const ns_request_t *req)
{
    if (!c || !pol || !req || validate (c, req, NULL) < 0)
        return 0;
    ns_placement_t pl;
    shape_only (&pl, c);
    struct decide d = { .c = c, .pol = pol, .m = m, .req = req, .pl = &pl,
                        .mask = req->allowed };
    return ns_policy_is_sharing (pol->kind) && pack_reason (&d) == NS_PACK_NONE;
}

int64_t ns_place_fallback_in (const ns_policy_t *pol,
                              const ns_request_t *req)
{
    if (!pol || !req || !ns_policy_is_sharing (pol->kind) || pol->fallback_after < 0
        || explicit_shape (req))
        return -1;
    return req->waited >= pol->fallback_after
               ? 0
               : pol->fallback_after - (req->waited > 0 ? req->waited : 0);
}

static int admits_one (struct decide *d, int node)
{
    const ns_cluster_t *c = d->c;
    if (node < 0 || node >= ns_cluster_nnodes (c) || !allowed (d, node))
        return 0;
    if (ns_node_is_empty (c, node))
        return room (d, node) >= d->slot;
    if (!d->shares_nodes || ns_node_is_closed (c, node)
        || room (d, node) < d->slot)
        return 0;
    if (d->packed)
        return 1;
    if (ns_node_ngoverned (c, node) >= d->pol->max_cotenants
        || pairing_refusal (d, node) >= 0)
        return 0;
    if (d->pol->kind == NS_POLICY_MIN_SLOWDOWN
        && pair_score (d, node) > d->pol->max_slowdown)
        return 0;
    return 1;
}

int ns_place_admits (const ns_cluster_t *c, const ns_policy_t *pol,
                     const ns_interf_t *m, const ns_request_t *req,
                     const int *nodes, int n, int stop_at)
{
    if (!c || !pol || !req || !nodes)
        return stop_at;
    ns_placement_t pl;
    shape_only (&pl, c);
    struct decide d = { .c = c, .pol = pol, .m = m, .req = req, .pl = &pl,
                        .mask = req->allowed };
    if (validate (c, req, NULL) < 0 || shape (&d, 0) == NS_NEVER)
        return 0;
    /* Node lists are not worth modelling, and packing (also as a
     * fallback) fails for want of cores, not of nodes: say "maybe". */
    if (req->nodelist || d.rule == NS_RULE_PACK || falls_back (pol, req))
        return stop_at;
    int count = 0;
    for (int i = 0; i < n && count < stop_at; i++)
        count += admits_one (&d, nodes[i]);
    return count;
}

double ns_job_rate (const ns_cluster_t *c, const ns_interf_t *m, uint64_t id)
{
    int flags = ns_job_flags (c, id);
    if (flags < 0)
        return 0.0;
    int p = ns_job_program (c, id);
    int nshares;
    const ns_share_t *shares = ns_job_shares_ref (c, id, &nshares);
    double worst = 1.0;
    for (int i = 0; i < nshares; i++) {
        int node = shares[i].node;
        int nt = ns_node_ntenants (c, node), cores = ns_node_cores (c, node);
        double sl = 1.0;
        for (int t = 0; t < nt; t++)
            if (ns_node_tenant_job (c, node, t) != id)
                sl *= ns_interf_partial_slowdown (
                    m, p, ns_node_tenant_program (c, node, t),
                    ns_node_tenant_cores (c, node, t), cores);
        if (sl > worst || i == 0)
            worst = sl;
    }
    double speedup = (flags & NS_JOB_STRIPED) ? ns_interf_speedup (m, p) : 1.0;
    return speedup / worst;
}
