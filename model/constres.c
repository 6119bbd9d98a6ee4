/* SPDX-License-Identifier: GPL-2.0-or-later */
/* constres.c - the stock placement, pack: a copy of select/cons_tres's
 * node evaluation (decide.h: ns_decide_pack()), and the cache that lets
 * the decisions between two changes of the cluster share its node runs
 * and best-fit nodes
 *
 * Policy pack places every job this way; the sharing policies place so
 * the jobs they do not govern (small, out of scope, fallback).
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"
#include "runs.h"

/* What pack looks at, for one cluster state (ns_cluster_version), of
 * unrestricted requests (no allowed nodes, no limits, one CPU a task):
 * the runs of usable nodes, with and without empty nodes, and the
 * best-fit nodes asked for lately.  Decisions between two changes of the
 * cluster (a scheduling cycle, a backfill pass, the requests of a
 * benchmark) then build them once. */
#define FIT_SLOTS 64
struct ns_pack_cache {
    uint64_t version[2];    /* [busy_only]: 0 never matches */
    int n[2];
    long long total[2];     /* the sum of cpus[b] */
    int *start[2], *end[2], *cpus[2];
    struct fit {
        uint64_t version;
        int busy_only, from, to, need, node;
    } fit[FIT_SLOTS];
};

void ns_pack_cache_destroy (struct ns_pack_cache *pc)
{
    if (!pc)
        return;
    for (int b = 0; b < 2; b++)
        free (pc->start[b]);
    free (pc);
}

struct ns_pack_cache *ns_pack_cache_create (int cap)
{
    struct ns_pack_cache *pc = calloc (1, sizeof (*pc));
    if (!pc)
        return NULL;
    for (int b = 0; b < 2; b++) {
        pc->start[b] = calloc ((size_t)cap * 3, sizeof (int));
        if (!pc->start[b]) {
            ns_pack_cache_destroy (pc);
            return NULL;
        }
        pc->end[b] = pc->start[b] + cap;
        pc->cpus[b] = pc->start[b] + 2 * (size_t)cap;
    }
    return pc;
}

/*
 * pack: select/cons_tres's node choice (_eval_nodes in Slurm 22.05's
 * src/plugins/select/cons_tres/job_test.c) for a job without topology,
 * node weights, generic resources or an explicit shape.  Usable nodes
 * (allowed, not held whole, a free task slot) form runs of consecutive
 * indices.  Until the job has its CPUs: pick the run that is the first
 * large enough, or a tighter one (fewest CPUs), or, when none is large
 * enough, the largest; in it take the single node with the fewest free
 * CPUs that fits the rest (best fit) or, when none does, nodes in index
 * order, each giving what it has up to what is still needed.
 */
struct runs {
    int *start, *end, *cpus;
    int n;
};

static int pack_avail (const struct decide *d, int n, int busy_only)
{
    const ns_cluster_t *c = d->c;
    if (!allowed (d, n) || (busy_only && ns_node_is_empty (c, n)))
        return 0;
    int cpt = d->req->cpus_per_task;
    return room (d, n) / cpt * cpt;
}

/* Are the pack cache's entries this request's (see ns_pack_cache)? */
static int pack_cached (const struct decide *d)
{
    return d->pl->cache && !d->mask && !d->limp
           && d->req->cpus_per_task == 1;
}

/* The runs pack takes from, in *r, and their total of CPUs.  Through the
 * cache, r points at the cache's arrays (read only: pack_take () copies
 * them before it spends their CPUs); else they are built in r's own
 * arrays. */
static long long pack_runs (const struct decide *d, int busy_only,
                            struct runs *r)
{
    if (!pack_cached (d)) {
        r->n = ns_cluster_runs (d->c, d->mask, busy_only,
                                d->req->cpus_per_task, d->limp, r->start,
                                r->end, r->cpus);
        long long total = 0;
        for (int i = 0; i < r->n; i++)
            total += r->cpus[i];
        return total;
    }
    struct ns_pack_cache *pc = d->pl->cache;
    uint64_t v = ns_cluster_version (d->c);
    if (pc->version[busy_only] != v) {
        int n = ns_cluster_runs (d->c, NULL, busy_only, 1, NULL,
                                 pc->start[busy_only], pc->end[busy_only],
                                 pc->cpus[busy_only]);
        long long total = 0;
        for (int i = 0; i < n; i++)
            total += pc->cpus[busy_only][i];
        pc->n[busy_only] = n;
        pc->total[busy_only] = total;
        pc->version[busy_only] = v;
    }
    r->start = pc->start[busy_only];
    r->end = pc->end[busy_only];
    r->cpus = pc->cpus[busy_only];
    r->n = pc->n[busy_only];
    return pc->total[busy_only];
}

/* ns_cluster_best_fit () through the pack cache when it applies. */
static int pack_best_fit (const struct decide *d, int busy_only, int from,
                          int to, int need)
{
    if (!pack_cached (d))
        return ns_cluster_best_fit (d->c, d->mask, busy_only,
                                    d->req->cpus_per_task, d->limp, from, to,
                                    need);
    uint64_t v = ns_cluster_version (d->c);
    unsigned h = ((unsigned)need * 31u + (unsigned)from * 7u
                  + (unsigned)busy_only) % FIT_SLOTS;
    struct fit *f = &d->pl->cache->fit[h];
    if (f->version == v && f->busy_only == busy_only && f->from == from
        && f->to == to && f->need == need)
        return f->node;
    int node = ns_cluster_best_fit (d->c, NULL, busy_only, 1, NULL, from, to,
                                    need);
    *f = (struct fit){ v, busy_only, from, to, need, node };
    return node;
}

/* Take from run b: the best-fitting single node, else nodes in order. */
static void pack_from_run (struct decide *d, int first, int last,
                           int busy_only, int *rem)
{
    ns_placement_t *pl = d->pl;
    int fit = pack_best_fit (d, busy_only, first, last, *rem);
    int from = fit >= 0 ? fit : first;
    int to = fit >= 0 ? fit : last;
    for (int n = from; n <= to && *rem > 0; n++) {
        int a = pack_avail (d, n, busy_only);
        if (a <= 0)
            continue;
        if (a > *rem)
            a = *rem;
        pl->shares[d->found].node = n;
        pl->shares[d->found].cores = a;
        d->found++;
        *rem -= a;
    }
}

/* pack_take ()'s usual case, on the runs the cluster keeps, read in
 * place: one run holds the job.  1 taken, 0 no run holds it (the caller
 * decides on copies), -1 the free CPUs do not suffice. */
static int pack_take_one (struct decide *d, int busy_only, int rem)
{
    const int *start, *end;
    const int64_t *cpus;
    int n = ns_cluster_runs_view (d->c, busy_only, &start, &end, &cpus);
    if (n < 0)
        return 0;
    long long total = 0;
    int best = -1;
    int64_t bc = 0;
    for (int i = 0; i < n; i++) {
        /* as ns_runs_tightest () on the runs capped at INT_MAX */
        int64_t x = cpus[i] > INT_MAX ? INT_MAX : cpus[i];
        total += x;
        if (x >= rem && (best < 0 || x < bc)) {
            best = i;
            bc = x;
        }
    }
    if (total < rem)
        return -1;
    if (best < 0)
        return 0;
    pack_from_run (d, start[best], end[best], busy_only, &rem);
    return 1;
}

/* Slurm 26.05's cons_tres for a job that may use one node only: the
 * first node (the caller's weight tier, in index order) with room for the
 * whole job (job_test.c, _get_one_res). */
static int pack_first_fit (struct decide *d, int busy_only, int rem)
{
    int nn = ns_cluster_nnodes (d->c);
    for (int n = 0; n < nn; n++)
        if (pack_avail (d, n, busy_only) >= rem) {
            d->pl->shares[0].node = n;
            d->pl->shares[0].cores = rem;
            d->found = 1;
            return 1;
        }
    return 0;
}

/* 1 when the job got its CPUs (shares filled in node order, d->found
 * nodes).  While no run suffices cons_tres takes the largest (earliest on
 * ties) whole; the run that finally holds the rest is the tightest that
 * does.  Runs are recorded with what was still needed when taken, then
 * emitted in node order. */
static int pack_take (struct decide *d, int busy_only)
{
    ns_placement_t *pl = d->pl;
    struct runs r = { pl->scratch, pl->scratch + pl->cap,
                      pl->scratch + 2 * pl->cap, 0 };
    int *need = pl->scratch + 3 * pl->cap;     /* 0: run not taken */
    int rem = d->req->ntasks * d->req->cpus_per_task;
    d->found = 0;
    int max = d->req->max_nodes;
    if (d->pol->stock_one_node_first
        && (max == 1 || (max <= 0 && d->req->ntasks == 1)))
        return pack_first_fit (d, busy_only, rem);
    if (pack_cached (d)) {
        int one = pack_take_one (d, busy_only, rem);
        if (one != 0)
            return one > 0;
    }
    long long total = pack_runs (d, busy_only, &r);
    if (total < rem)
        return 0;
    int b = ns_runs_tightest (r.cpus, r.n, rem);
    if (b >= 0) {
        /* One run holds it (the usual case): only that run is taken */
        pack_from_run (d, r.start[b], r.end[b], busy_only, &rem);
        return 1;
    }
    /* No run holds it: the largest runs, in order, until one does (a
     * max-heap: only the runs taken are ordered).  Their CPUs are spent
     * as they are taken: the runs are copied to the scratch first. */
    if (r.start != pl->scratch) {
        size_t sz = sizeof (int) * (size_t)r.n;
        memcpy (pl->scratch, r.start, sz);
        memcpy (pl->scratch + pl->cap, r.end, sz);
        memcpy (pl->scratch + 2 * pl->cap, r.cpus, sz);
        r.start = pl->scratch;
        r.end = pl->scratch + pl->cap;
        r.cpus = pl->scratch + 2 * pl->cap;
    }
    if (ns_runs_take_largest (r.cpus, r.n, rem, need, pl->order) < 0)
        return 0;       /* cannot happen: total >= rem */
    for (int i = 0; i < r.n; i++)
        if (need[i] > 0)
            pack_from_run (d, r.start[i], r.end[i], busy_only, &need[i]);
    return 1;
}

/* Small jobs go to nodes already in use first, keeping empty nodes for
 * the jobs that gain from them; then anywhere, as stock would.  When no
 * program gains from striping, no job ever needs an empty node kept: a
 * small job is placed exactly as pack places it. */
int ns_decide_pack (struct decide *d)
{
    int max = d->req->max_nodes;
    if (d->why == NS_PACK_SMALL && ns_policy_keeps_empty (d->pol, d->m)
        && pack_take (d, 1)
        && (max <= 0 || d->found <= max))
        return 1;
    /* more nodes than slurmctld allows: not now */
    return pack_take (d, 0) && (max <= 0 || d->found <= max);
}
