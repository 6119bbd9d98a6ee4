/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine.c - discrete-event replay (see engine.h)
 *
 * One binary heap holds every future event (ends before submits at the
 * same instant, then insertion order).  An end event carries the job's
 * version; a rate change bumps the version and pushes a new end, so stale
 * ends are skipped when popped (lazy deletion).
 *
 * Textbook EASY backfilling (Lifka 1995; Mu'alem and Feitelson, TPDS
 * 2001): when the queue head cannot start, its reservation is the earliest
 * instant at which, releasing running jobs in order of their estimated
 * ends (start + requested time), the policy could place it; the nodes it
 * would get (taken among those busy now first) are marked.  A later job
 * may start now if it is estimated to end by then, or else on nodes
 * outside the marked ones, where it is steered: either way the head's
 * nodes are in the same state at the reservation.  See backfill ().
 *
 * The engine's parts, each with its own state and header:
 *   eventq.c   the future events: a heap beside the in-order submits
 *   byend.c    the running jobs in order of estimated end
 *   decmemo.c  the memo of failed decisions
 *   qblocks.c  the FCFS queue in blocks, and a scan's next candidate
 *   qtree.c    the min-tree over those blocks
 *   headresv.c the queue head's reservation: marks, counts, shadow time
 *   resv.c     reservations counted without taking jobs out (EASY)
 *   pool.c     the pools of queued and of running jobs' records
 *   rellog.c   the nodes released by ends, for failed jobs' rechecks
 *   backfill.c the head's reservation made, and the backfill pass: its
 *              scan (bf_scan ()) and its start (bf_start ())
 * This file holds the jobs, start and finish, rates, decisions and the
 * event loop; engine_int.h is the state it shares with backfill.c.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backfill.h"
#include "engine_int.h"
#include "nsutil.h"

#define OWNBLOCK 1024

/* Give queued job j a struct waiting, zeroed.  0, or -1 out of memory. */
static int waiting_take (ns_sim_t *s, int j)
{
    int k = ns_pool_take (&s->wt);
    if (k < 0)
        return -1;
    s->jobs[j].live = k + 1;
    return 0;
}

/* Give running job j a struct live, zeroed.  0, or -1 out of memory. */
static int live_take (ns_sim_t *s, int j)
{
    int k = ns_pool_take (&s->lv);
    if (k < 0)
        return -1;
    s->jobs[j].live = k + 1;
    return 0;
}

/* Job j left the queue: started or dropped. */
static void waiting_give (ns_sim_t *s, int j)
{
    ns_pool_give (&s->wt, s->jobs[j].live - 1);
    s->jobs[j].live = 0;
}

/* Job j ended. */
static void live_give (ns_sim_t *s, int j)
{
    ns_pool_give (&s->lv, s->jobs[j].live - 1);
    s->jobs[j].live = 0;
}

/* The next event (ns_evq_next ()): 2 from the heap, 1 a submit, 0 none. */
static inline int ev_next (const ns_sim_t *s, ns_ev_t *e)
{
    int j = ns_evq_sub_head (&s->evq);
    return ns_evq_next (&s->evq, j >= 0 ? s->jobs[j].in->submit : 0, e);
}

/* ---- creation ---- */

/* A real machine: node sizes, memory, weights (design.md 7.2). */
static int set_machine (ns_sim_t *s, ns_error_t *err)
{
    const ns_sconf_t *m = s->conf.machine;
    if (m->nnodes != s->conf.nnodes)
        return ns_error_set (err, EINVAL, "machine has %d nodes, not %d",
                             m->nnodes, s->conf.nnodes);
    s->mask = calloc ((size_t)m->nnodes, 1);
    s->usable = calloc ((size_t)m->nnodes, sizeof (int));
    if (!s->mask || !s->usable)
        return ns_error_set (err, ENOMEM, "out of memory");
    for (int i = 0; i < m->nnodes; i++) {
        const ns_sconf_node_t *nd = &m->nodes[i];
        int units = m->cr_cpu ? nd->cpus : nd->cores;
        int sockets = nd->sockets < units ? nd->sockets : units;
        if (ns_cluster_set_node (s->c, i, units, sockets > 0 ? sockets : 1,
                                 err) < 0
            || ns_cluster_set_node_name (s->c, i, nd->name, err) < 0
            || ns_cluster_set_node_weight (s->c, i, nd->weight, err) < 0
            || (m->cr_memory
                && ns_cluster_set_node_mem (s->c, i, nd->mem, err) < 0))
            return -1;
    }
    return 0;
}

ns_sim_t *ns_sim_create (const ns_simconf_t *conf, ns_error_t *err)
{
    ns_sim_t *s = calloc (1, sizeof (*s));
    if (!s) {
        ns_error_set (err, ENOMEM, "out of memory");
        return NULL;
    }
    s->conf = *conf;
    ns_pool_init (&s->lv, sizeof (struct live));
    ns_pool_init (&s->wt, sizeof (struct waiting));
    if (s->conf.bf_depth <= 0)
        s->conf.bf_depth = INT_MAX;     /* the whole queue (textbook) */
    s->c = ns_cluster_create (conf->nnodes, conf->cores, 1, err);
    if (!s->c)
        goto fail;
    if (conf->machine && set_machine (s, err) < 0)
        goto fail;
    s->qb.total = ns_cluster_total_cores (s->c);
    s->pl = ns_placement_create (conf->nnodes);
    s->pl_resv = ns_placement_create (conf->nnodes);
    if (!s->pl || !s->pl_resv || ns_hresv_init (&s->hr, conf->nnodes) < 0) {
        ns_error_set (err, ENOMEM, "out of memory");
        goto fail;
    }
    ns_cluster_set_tenant_hint (s->c, conf->policy.max_cotenants);
    /* Decisions depend on the state alone unless a wait bound or a seeded
     * tie-break (which depends on the job id) takes part. */
    /* A fallback at once (0) keeps decisions a function of the state:
     * the packing it falls back to fails only for want of cores. */
    s->cacheable = conf->policy.fallback_after <= 0 && conf->policy.seed == 0
                   && !conf->machine; /* partitions, memory: per job */
    /* Sharing policies look at the program (pairing rules, and whether
     * its predicted speedup earns it striping). */
    ns_decmemo_init (&s->memo, ns_policy_is_sharing (conf->policy.kind));
    s->closes = conf->policy.kind == NS_POLICY_EXCLUSIVE
                || conf->policy.kind == NS_POLICY_SPREAD;
    /* On identical nodes these need ceil-shaped widths of empty nodes
     * (exclusive, spread) or free cores (pack): never less for more
     * tasks. */
    s->monotone = s->cacheable
                  && (s->closes || conf->policy.kind == NS_POLICY_PACK);
    s->whole = s->cacheable && s->closes;
    if (s->cacheable && !s->memo.program_matters
        && ns_decmemo_fast (&s->memo, ns_cluster_total_cores (s->c)) < 0) {
        ns_error_set (err, ENOMEM, "out of memory");
        goto fail;
    }
    s->bf.head = -1;
    s->stats.first_submit = -1;
    return s;
fail:
    ns_sim_destroy (s);
    return NULL;
}

void ns_sim_destroy (ns_sim_t *s)
{
    int saved = errno;   /* a destroy never changes errno */
    if (!s)
        return;
    free (s->jobs);
    ns_pool_free (&s->lv);
    ns_pool_free (&s->wt);
    for (int i = 0; i < s->nown; i += OWNBLOCK)
        free (s->own[i / OWNBLOCK]);
    free (s->own);
    free (s->shares);
    ns_evq_free (&s->evq);
    ns_qb_free (&s->qb);
    ns_decmemo_free (&s->memo);
    ns_byend_free (&s->be);
    ns_rellog_free (&s->rlog);
    ns_hresv_free (&s->hr);
    free (s->mask);
    free (s->usable);
    ns_placement_destroy (s->pl);
    ns_placement_destroy (s->pl_resv);
    ns_cluster_destroy (s->c);
    free (s);
    errno = saved;
}

/* A copy of job, with its submit time submit, that stays where it is. */
static const ns_simjob_t *own_copy (ns_sim_t *s, const ns_simjob_t *job,
                                    double submit)
{
    if (s->nown % OWNBLOCK == 0) {
        int nb = s->nown / OWNBLOCK;
        if (ns_grow (&s->own, &s->owncap, nb + 1, sizeof (*s->own), 16) < 0)
            return NULL;
        if (!(s->own[nb] = malloc (sizeof (ns_simjob_t) * OWNBLOCK)))
            return NULL;
    }
    ns_simjob_t *c = &s->own[s->nown / OWNBLOCK][s->nown % OWNBLOCK];
    s->nown++;
    *c = *job;
    c->submit = submit;
    return c;
}

static int add_job (ns_sim_t *s, const ns_simjob_t *job, int copy,
                    ns_error_t *err)
{
    if (job->ntasks < 1 || job->runtime < 0 || !isfinite (job->runtime)
        || !isfinite (job->submit))
        return ns_error_set (err, EINVAL, "job %llu: malformed",
                             (unsigned long long)job->id);
    /* jobs[] and the queue grow together (every job is queued once). */
    if (ns_qb_reserve (&s->qb, s->njobs + 1) < 0
        || ns_grow (&s->jobs, &s->jobcap, s->qb.cap, sizeof (*s->jobs),
                    1024) < 0)
        return ns_error_set (err, ENOMEM, "out of memory");
    int i = s->njobs;
    double submit = job->submit < s->now ? s->now : job->submit;
    const ns_simjob_t *in = job;
    if ((copy || submit != job->submit)
        && !(in = own_copy (s, job, submit)))
        return ns_error_set (err, ENOMEM, "out of memory");
    if (ns_evq_submit (&s->evq, i, submit) < 0)
        return ns_error_set (err, ENOMEM, "out of memory");
    s->jobs[i] = (struct sj){ .in = in };
    s->njobs++;
    return i;
}

int ns_sim_add (ns_sim_t *s, const ns_simjob_t *job, ns_error_t *err)
{
    return add_job (s, job, 1, err);
}

int ns_sim_add_ref (ns_sim_t *s, const ns_simjob_t *job, ns_error_t *err)
{
    return add_job (s, job, 0, err);
}

void ns_sim_set_pass_hook (ns_sim_t *s, ns_sim_pass_f fn, void *arg)
{
    s->pass_fn = fn;
    s->pass_arg = arg;
}

void ns_sim_set_progress (ns_sim_t *s, ns_sim_progress_f fn, int every,
                          void *arg)
{
    s->progress_fn = fn;
    s->progress_every = every;
    s->progress_arg = arg;
}

void ns_sim_set_usage_hook (ns_sim_t *s, ns_sim_usage_f fn, void *arg)
{
    s->usage_fn = fn;
    s->usage_arg = arg;
}

void ns_sim_set_checking (ns_sim_t *s, int on)
{
    s->checking = on;
}

double ns_sim_now (const ns_sim_t *s)
{
    return s->now;
}

int ns_sim_njobs (const ns_sim_t *s)
{
    return s->njobs;
}

const ns_simjob_t *ns_sim_job (const ns_sim_t *s, int i)
{
    return i >= 0 && i < s->njobs ? s->jobs[i].in : NULL;
}

const ns_simresult_t *ns_sim_result (const ns_sim_t *s, int i)
{
    return i >= 0 && i < s->njobs ? &s->jobs[i].out : NULL;
}

const ns_cluster_t *ns_sim_cluster (const ns_sim_t *s)
{
    return s->c;
}

const ns_simstats_t *ns_sim_stats (const ns_sim_t *s)
{
    return &s->stats;
}

/* ---- rates ---- */

static int push_end (ns_sim_t *s, int j)
{
    struct live *lv = LV (s, j);
    double rate = lv->rate > 1e-9 ? lv->rate : 1e-9;
    return ns_evq_push (&s->evq, s->now + lv->remaining / rate, NS_EV_END, j,
                      ++lv->version);
}

static int update_rate (ns_sim_t *s, int j)
{
    struct sj *jb = &s->jobs[j];
    struct live *lv = LV (s, j);
    if (lv->neutral && lv->rate == 1.0) {
        /* rate stays 1: only the shared flag can change */
        const ns_share_t *sh = s->shares + jb->shoff;
        for (int i = 0; i < jb->out.nodes && !jb->out.shared; i++)
            if (ns_node_ntenants (s->c, sh[i].node) > 1)
                jb->out.shared = 1;
        return 0;
    }
    lv->remaining -= (s->now - lv->last) * lv->rate;
    if (lv->remaining < 0)
        lv->remaining = 0;
    lv->last = s->now;
    /* A neutral program runs at 1 whatever its co-tenants (its slowdowns
     * and speedup are all 1): ns_job_rate () would say so. */
    double rate = s->conf.wallclock || lv->neutral
                  ? 1.0 : ns_job_rate (s->c, s->conf.model, (uint64_t)j);
    const ns_share_t *sh = s->shares + jb->shoff;
    for (int i = 0; i < jb->out.nodes && !jb->out.shared; i++)
        if (ns_node_ntenants (s->c, sh[i].node) > 1)
            jb->out.shared = 1;
    if (rate == lv->rate)
        return 0;
    lv->rate = rate;
    return push_end (s, j);
}

/* Recompute the rate of every job sharing a node with job j, which is
 * not neutral: a neutral job's arrival changes only its co-tenants'
 * shared flags, set in ns_eng_start_job (), and its departure nothing. */
static int update_cotenants (ns_sim_t *s, int j)
{
    struct sj *jb = &s->jobs[j];
    s->stamp++;
    for (int i = 0; i < jb->out.nodes; i++) {
        int node = s->shares[jb->shoff + i].node;
        int nt = ns_node_ntenants (s->c, node);
        for (int k = 0; k < nt; k++) {
            uint64_t id = ns_node_tenant_job (s->c, node, k);
            int other = (int)id;   /* sim ids are job indices */
            if (other == j || LV (s, other)->stamp == s->stamp)
                continue;
            LV (s, other)->stamp = s->stamp;
            if (update_rate (s, other) < 0)
                return -1;
        }
    }
    return 0;
}

/* ---- start and finish ---- */

static double est_runtime (const struct sj *jb)
{
    return jb->in->req_time > 0 ? jb->in->req_time : jb->in->runtime;
}

/* Finished jobs' shares forgotten: the running jobs' shares moved to a
 * new array with room for need more (twice what they hold, so that
 * compactions stay rare).  0, or -1 out of memory. */
static int shares_compact (ns_sim_t *s, int need)
{
    int64_t used = need;
    for (int k = 0; k < s->be.n; k++)
        used += s->be.nodes[k];
    int64_t cap = 2 * used > 4096 ? 2 * used : 4096;
    if (cap < s->sharescap)
        cap = s->sharescap;
    if (cap > INT_MAX)
        return -1;
    ns_share_t *sh = malloc (sizeof (*sh) * (size_t)cap);
    if (!sh)
        return -1;
    int n = 0;
    for (int k = 0; k < s->be.n; k++) {
        if (s->be.nodes[k] == 0)
            continue;
        struct sj *jb = &s->jobs[s->be.job[k]];
        memcpy (sh + n, s->shares + jb->shoff,
                sizeof (*sh) * (size_t)jb->out.nodes);
        jb->shoff = (uint32_t)n;
        n += jb->out.nodes;
    }
    free (s->shares);
    s->shares = sh;
    s->sharescap = (int)cap;
    s->nsharesall = n;
    return 0;
}

int ns_eng_start_job (ns_sim_t *s, int j, const ns_placement_t *pl,
                      ns_error_t *err)
{
    struct sj *jb = &s->jobs[j];
    /* It leaves the queue: what it needed there, for what it needs now */
    int64_t mem_cpu = WT (s, j)->mem_cpu;
    waiting_give (s, j);
    if (live_take (s, j) < 0)
        return ns_error_set (err, ENOMEM, "out of memory");
    struct live *lv = LV (s, j);
    /* Twin pairs among the jobs the sharing rules govern: packed jobs
     * (small, no predicted gain, fallback) are outside the rule. */
    for (int i = 0; i < pl->n && !(pl->flags & NS_JOB_PACKED); i++) {
        int node = pl->shares[i].node;
        int nt = ns_node_ntenants (s->c, node);
        for (int k = 0; k < nt; k++)
            if (jb->in->program != NS_PROGRAM_UNKNOWN
                && !(ns_node_tenant_flags (s->c, node, k) & NS_JOB_PACKED)
                && ns_node_tenant_program (s->c, node, k)
                       == jb->in->program)
                s->stats.twin_pairs++;
    }
    int64_t *mem = NULL;
    if (s->conf.machine && (mem_cpu || pl->mem_per_node)) {
        mem = malloc (sizeof (int64_t) * (size_t)pl->n);
        if (!mem)
            return ns_error_set (err, ENOMEM, "out of memory");
        for (int i = 0; i < pl->n; i++)
            mem[i] = pl->mem_per_node + mem_cpu * pl->shares[i].cores;
    }
    int rc = ns_cluster_add_job_mem (s->c, (uint64_t)j, jb->in->program,
                                     pl->shares, pl->n, pl->flags, mem, err);
    free (mem);
    if (rc < 0)
        return -1;
    if (s->forget_shares && s->nsharesall + pl->n > s->sharescap
        && shares_compact (s, pl->n) < 0)
        return ns_error_set (err, ENOMEM, "out of memory");
    if (ns_grow (&s->shares, &s->sharescap, s->nsharesall + pl->n,
                 sizeof (*s->shares), 4096) < 0)
        return ns_error_set (err, ENOMEM, "out of memory");
    memcpy (s->shares + s->nsharesall, pl->shares,
            sizeof (ns_share_t) * pl->n);
    jb->shoff = (uint32_t)s->nsharesall;
    s->nsharesall += pl->n;
    jb->out.nodes = pl->n;
    lv->flags = pl->flags;
    if (!(pl->flags & NS_JOB_CLOSES_NODES))
        s->nopen++;
    lv->cores = 0;
    lv->held = 0;
    for (int i = 0; i < pl->n; i++) {
        lv->cores += pl->shares[i].cores;
        lv->held += pl->flags & NS_JOB_CLOSES_NODES
                        ? ns_node_cores (s->c, pl->shares[i].node)
                        : pl->shares[i].cores;
    }
    s->held += lv->held;
    lv->neutral = s->conf.wallclock
                  || ns_interf_neutral (s->conf.model, jb->in->program);
    for (int i = 0; i < pl->n; i++) {
        int node = pl->shares[i].node;
        int ng = ns_node_ngoverned (s->c, node);
        if (ng > s->stats.max_cotenants)
            s->stats.max_cotenants = ng;
        /* A neutral job's shared flag and its co-tenants' (update_rate ()
         * and update_cotenants () would set the same), in this pass. */
        int nt = lv->neutral ? ns_node_ntenants (s->c, node) : 1;
        if (nt > 1) {
            jb->out.shared = 1;
            for (int k = 0; k < nt; k++) {
                int other = (int)ns_node_tenant_job (s->c, node, k);
                if (other != j)
                    s->jobs[other].out.shared = 1;
            }
        }
    }
    jb->out.state = NS_SJ_RUNNING;
    jb->out.start = s->now;
    jb->out.nodes = pl->n;
    jb->out.striped = (pl->flags & NS_JOB_STRIPED) != 0;
    jb->out.rule = pl->rule;
    jb->out.why = pl->why;
    lv->remaining = jb->in->runtime;
    lv->last = s->now;
    lv->rate = 0;
    lv->est_end = s->now + est_runtime (jb);
    s->stats.placements++;
    s->cluster_version++;
    ns_hresv_job (&s->hr, (lv->flags & NS_JOB_CLOSES_NODES) != 0,
                  lv->est_end, lv->cores, pl->shares, pl->n, 0);
    if (ns_byend_insert (&s->be, j, lv->est_end, jb->out.nodes,
                         (int)lv->cores) < 0)
        return ns_error_set (err, ENOMEM, "out of memory");
    if (lv->neutral) {
        /* rate 1 from now: update_rate ()'s first step without its
         * look at the nodes, done above */
        if (lv->remaining < 0)
            lv->remaining = 0;
        lv->rate = 1.0;
        if (push_end (s, j) < 0)
            return ns_error_set (err, ENOMEM, "out of memory");
    }
    else if (update_rate (s, j) < 0 || update_cotenants (s, j) < 0)
        return ns_error_set (err, ENOMEM, "out of memory");
    /* Pushed after the end event: at the same instant the end wins.  A
     * job whose rate stays 1 (neutral) ends at start + runtime: by its
     * limit when runtime <= req_time, and the limit would change nothing
     * (not pushed; a pass hook still sees every instant). */
    if (s->conf.overrun == NS_OVERRUN_KILL && jb->in->req_time > 0
        && !(lv->neutral && !s->pass_fn
             && jb->in->runtime <= jb->in->req_time)
        && ns_evq_push (&s->evq, s->now + jb->in->req_time, NS_EV_LIMIT,
                        j, 0) < 0)
        return ns_error_set (err, ENOMEM, "out of memory");
    return 0;
}

static int finish_job (ns_sim_t *s, int j, ns_error_t *err)
{
    struct sj *jb = &s->jobs[j];
    struct live *lv = LV (s, j);
    if (ns_cluster_remove_job (s->c, (uint64_t)j, err) < 0)
        return -1;
    ns_byend_remove (&s->be, j, lv->est_end);
    ns_hresv_job (&s->hr, (lv->flags & NS_JOB_CLOSES_NODES) != 0,
                  lv->est_end, lv->cores, s->shares + jb->shoff,
                  jb->out.nodes, 1);
    if (!(lv->flags & NS_JOB_CLOSES_NODES))
        s->nopen--;
    s->held -= lv->held;
    jb->out.state = NS_SJ_DONE;
    jb->out.end = s->now;
    if (jb->in->req_time > 0
        && s->now - jb->out.start > jb->in->req_time + EPS)
        jb->out.over_limit = 1;
    s->cluster_version++;
    s->release_version++;
    if (ns_rellog_add (&s->rlog, s->shares + jb->shoff, jb->out.nodes) < 0)
        return ns_error_set (err, ENOMEM, "out of memory");
    s->done++;
    if (s->now > s->stats.last_end)
        s->stats.last_end = s->now;
    /* A neutral job's co-tenants keep their rates, and their shared flags
     * are set already (they shared a node with it). */
    if (!lv->neutral && update_cotenants (s, j) < 0)
        return ns_error_set (err, ENOMEM, "out of memory");
    live_give (s, j);
    /* Its shares stay (unless forgotten, ns_sim_set_keep_shares ()):
     * ns_sim_job_shares () reports where it ran. */
    if (s->progress_fn && s->progress_every > 0
        && s->done % s->progress_every == 0)
        s->progress_fn (s, s->done, s->njobs, s->progress_arg);
    return 0;
}

/* ---- scheduling ---- */

static const ns_sconf_part_t *job_part (const ns_sim_t *s,
                                        const struct sj *jb)
{
    const ns_sconf_t *m = s->conf.machine;
    int p = jb->in->partition > 0 && jb->in->partition <= m->nparts
                ? jb->in->partition - 1
                : ns_sconf_default_part (m);
    return p >= 0 ? &m->parts[p] : NULL;
}

void ns_eng_fill_request (const ns_sim_t *s, int j, ns_request_t *r)
{
    const struct sj *jb = &s->jobs[j];
    const struct waiting *lv = WT (s, j);
    ns_request_init (r, (uint64_t)j, jb->in->program, jb->in->ntasks);
    r->flags = NS_REQ_QUIET;
    r->waited = (int64_t)(s->now - jb->in->submit);
    r->no_stripe = s->conf.no_stripe;
    if (s->conf.machine) {
        const ns_sconf_part_t *p = job_part (s, jb);
        if (p && s->conf.out_of_scope
            && s->conf.out_of_scope[p - s->conf.machine->parts])
            r->flags |= NS_REQ_OUT_OF_SCOPE;
        if (p) {
            r->allowed = p->nodes;
            r->max_nodes = p->max_nodes;
            r->max_cpus_per_node = p->max_cpus_per_node;
        }
        r->mem_per_cpu = lv->mem_cpu;
        r->mem_per_node = lv->mem_node;
    }
}

/* Tasks a job could hold on node i when it is empty. */
static int cores_within (const ns_cluster_t *c, int i,
                            const ns_node_limits_t *lim)
{
    int a = ns_node_cores (c, i);
    if (lim->max_cores > 0 && a > lim->max_cores)
        a = lim->max_cores;
    int64_t mem = ns_node_mem (c, i);
    if (mem > 0) {
        if (lim->mem_per_node > mem)
            return 0;
        if (lim->mem_per_cpu > 0
            && (mem - lim->mem_per_node) / lim->mem_per_cpu < a)
            a = (int)((mem - lim->mem_per_node) / lim->mem_per_cpu);
    }
    return a;
}

/* With a machine: the job's memory (its own request, else the
 * partition's default, else the global one; none: not limited by memory)
 * and whether its partition can ever hold it.  1, or -1 never. */
static int fits (ns_sim_t *s, int j)
{
    struct sj *jb = &s->jobs[j];
    struct waiting *lv = WT (s, j);
    if (lv->fits)
        return lv->fits;
    const ns_sconf_t *m = s->conf.machine;
    const ns_sconf_part_t *p = job_part (s, jb);
    lv->fits = -1;
    if (!p || !p->up)
        return -1;
    if (m->cr_memory) {
        int64_t dc = p->def_mem_per_cpu ? p->def_mem_per_cpu
                                        : m->def_mem_per_cpu;
        int64_t dn = p->def_mem_per_node ? p->def_mem_per_node
                                         : m->def_mem_per_node;
        lv->mem_cpu = jb->in->mem_per_cpu;
        lv->mem_node = jb->in->mem_per_node;
        if (!lv->mem_cpu && !lv->mem_node) {
            lv->mem_cpu = dc;
            lv->mem_node = dc ? 0 : dn;
        }
        int64_t mc = p->max_mem_per_cpu ? p->max_mem_per_cpu
                                        : m->max_mem_per_cpu;
        int64_t mn = p->max_mem_per_node ? p->max_mem_per_node
                                         : m->max_mem_per_node;
        if ((mc && lv->mem_cpu > mc) || (mn && lv->mem_node > mn))
            return -1;  /* slurmctld rejects it at submission */
    }
    /* The most tasks it could hold on its partition's empty nodes. */
    ns_node_limits_t lim = { .mem_per_cpu = lv->mem_cpu,
                             .mem_per_node = lv->mem_node,
                             .max_cores = p->max_cpus_per_node };
    int n = 0;
    for (int i = 0; i < m->nnodes; i++) {
        if (!p->nodes[i])
            continue;
        int a = cores_within (s->c, i, &lim);
        if (a > 0)
            s->usable[n++] = a;
    }
    int take = p->max_nodes > 0 && p->max_nodes < n ? p->max_nodes : n;
    /* the largest `take` of them */
    int64_t sum = 0;
    for (int k = 0; k < take; k++) {
        int best = k;
        for (int i = k + 1; i < n; i++)
            if (s->usable[i] > s->usable[best])
                best = i;
        int x = s->usable[k];
        s->usable[k] = s->usable[best];
        s->usable[best] = x;
        sum += s->usable[k];
    }
    if (sum >= jb->in->ntasks)
        lv->fits = 1;
    return lv->fits;
}

/* Does a capacity failure at this cluster state imply r fails too? */
static int dominated (ns_sim_t *s, struct waiting *lv, const ns_request_t *r)
{
    if (!ns_decmemo_has_shorts (&s->memo, s->release_version))
        return 0;
    /* The shape depends on the request and the machine only: once. */
    if (!lv->shape_known) {
        if (ns_place_shape (s->c, &s->conf.policy, s->conf.model, r,
                            &lv->shape_w, &lv->shape_s, NULL) < 0)
            return 0;
        lv->shape_known = 1;
    }
    return ns_decmemo_short_covers (&s->memo, lv->shape_w, lv->shape_s,
                                    s->release_version);
}

/* A job that failed earlier still fails if the nodes released since then
 * cannot make up its shortfall: starts never make a placement possible,
 * and only the released nodes can have become admissible. */

static int still_fails (ns_sim_t *s, struct waiting *lv, const ns_request_t *r)
{
    if (!lv->fail_log)
        return 0;
    const int *rel;
    int nrel = ns_rellog_since (&s->rlog, lv->fail_log - 1, &rel);
    if (nrel < 0)
        return 0;
    int need = lv->fail_width - lv->fail_have;
    int gained = ns_place_admits (s->c, &s->conf.policy, s->conf.model, r,
                                  rel, nrel, need);
    if (gained >= need)
        return 0;
    /* Still an upper bound of its admissible nodes: move it forward so the
     * next check only looks at newer releases. */
    lv->fail_have += gained;
    lv->fail_log = ns_rellog_count (&s->rlog) + 1;
    return 1;
}

/* Decide for job j into s->pl: a D_* value.
 * Within one cluster state a failed decision is not repeated: neither for
 * the same job nor for another job the policy cannot tell apart.
 * allowed (may be NULL) restricts the nodes: the caches of failed
 * decisions then still reject (fewer nodes cannot help), but a failure is
 * not recorded (it says nothing of the unrestricted decision). */
int ns_eng_decide (ns_sim_t *s, int j, const unsigned char *allowed,
                   ns_error_t *err)
{
    ns_request_t r;
    struct sj *jb = &s->jobs[j];
    struct waiting *lv = WT (s, j);
    if (jb->in->ntasks > free_cores (s)
        && jb->in->ntasks <= ns_cluster_total_cores (s->c))
        return D_WAIT;
    ns_decmemo_rec_t *f = NULL;
    /* Cheapest exact rejections first: the same policy-visible request
     * failed at this release version; then the release log; then a
     * capacity failure of a smaller shape. */
    if (s->cacheable) {
        f = fail_slot (s, j);
        if (f->version == s->release_version)
            return D_WAIT;
    }
    ns_eng_fill_request (s, j, &r);
    if (f && (still_fails (s, lv, &r) || dominated (s, lv, &r)))
        return D_WAIT;
    if (s->conf.machine) {
        if (fits (s, j) < 0)
            return D_NEVER;
        if (allowed) {
            for (int n = 0; n < s->conf.nnodes; n++)
                s->mask[n] = allowed[n] && (!r.allowed || r.allowed[n]);
            allowed = s->mask;
        }
        else
            allowed = r.allowed;
    }
    r.allowed = allowed;
    if (ns_place (s->c, &s->conf.policy, s->conf.model, s->conf.progs, &r,
                  s->pl, err) < 0)
        return D_ERROR;
    if (s->pl->verdict == NS_PLACED) {
        lv->placed = 1;
        return D_PLACED;
    }
    if (s->pl->verdict == NS_NEVER)
        return D_NEVER;
    if (f && !allowed) {
        f->version = s->release_version;
        /* Packing fails for want of cores, not of admissible nodes: the
         * release log cannot tell more than the free-core count does. */
        if (s->pl->rule == NS_RULE_PACK || s->pl->rule == NS_RULE_FALLBACK)
            return D_WAIT;
        lv->fail_log = ns_rellog_count (&s->rlog) + 1;
        lv->fail_have = s->pl->found;
        lv->fail_width = s->pl->width;
        if (s->pl->capacity_short)
            ns_decmemo_short (&s->memo, s->pl->width, s->pl->slot,
                              s->release_version);
    }
    return D_WAIT;
}

int ns_sim_would_start (ns_sim_t *s, int program, int ntasks, int *partner,
                        ns_error_t *err)
{
    ns_request_t r;
    ns_request_init (&r, UINT64_MAX, program, ntasks);
    r.flags = NS_REQ_QUIET;
    if (partner)
        *partner = NS_SIM_NO_PARTNER;
    if (ns_place (s->c, &s->conf.policy, s->conf.model, s->conf.progs, &r,
                  s->pl, err) < 0)
        return -1;
    if (s->pl->verdict != NS_PLACED)
        return 0;
    for (int k = 0; partner && k < s->pl->n; k++) {
        int n = s->pl->shares[k].node;
        for (int i = 0; i < ns_node_ntenants (s->c, n); i++)
            if (!(ns_node_tenant_flags (s->c, n, i) & NS_JOB_PACKED)) {
                *partner = ns_node_tenant_program (s->c, n, i);
                return 1;
            }
    }
    return 1;
}

void ns_sim_set_keep_shares (ns_sim_t *s, int keep)
{
    s->forget_shares = !keep;
}

const ns_share_t *ns_sim_job_shares (const ns_sim_t *s, int i, int *n)
{
    if (i < 0 || i >= s->njobs || s->jobs[i].out.nodes == 0
        || (s->forget_shares && s->jobs[i].out.state != NS_SJ_RUNNING)) {
        *n = 0;
        return NULL;
    }
    *n = s->jobs[i].out.nodes;
    return s->shares + s->jobs[i].shoff;
}

int ns_sim_queued (const ns_sim_t *s)
{
    return ns_qb_count (&s->qb);
}

int ns_sim_live (const ns_sim_t *s)
{
    return s->njobs - s->done;
}

void ns_eng_drop_never (ns_sim_t *s, int j)
{
    waiting_give (s, j);
    s->jobs[j].out.state = NS_SJ_NEVER;
    s->done++;
}

static int schedule (ns_sim_t *s, ns_error_t *err)
{
    while (s->qb.start < s->qb.end) {
        int head = s->qb.job[s->qb.start];
        int d = ns_eng_decide (s, head, NULL, err);
        if (d == D_ERROR)
            return -1;
        if (d == D_WAIT)
            break;
        ns_qb_remove (&s->qb, s->qb.start);
        if (d == D_NEVER)
            ns_eng_drop_never (s, head);
        else if (ns_eng_start_job (s, head, s->pl, err) < 0)
            return -1;
    }
    if (s->qb.start < s->qb.end && s->conf.backfill == NS_BACKFILL_EASY)
        return ns_backfill (s, err);
    return 0;
}

static int enqueue (ns_sim_t *s, int j)
{
    if (waiting_take (s, j) < 0)
        return -1;
    /* Every job is queued once, so end <= njobs <= the queue's size. */
    ns_qb_push (&s->qb, j, s->jobs[j].in->ntasks, est_runtime (&s->jobs[j]));
    s->jobs[j].out.state = NS_SJ_QUEUED;
    if (s->stats.first_submit < 0 || s->now < s->stats.first_submit)
        s->stats.first_submit = s->now;
    return 0;
}

static void account_usage (ns_sim_t *s, double t)
{
    if (t <= s->now)
        return;
    int64_t used = ns_cluster_used_cores (s->c);
    s->stats.busy_core_seconds += (double)used * (t - s->now);
    s->stats.held_core_seconds += (double)s->held * (t - s->now);
    if (s->usage_fn)
        s->usage_fn (s->now, t, used, s->usage_arg);
}

/* Does a job of this program gain from striping (design.md section 2)? */
static int gains (const ns_simconf_t *conf, int program)
{
    return ns_interf_speedup (conf->model, program)
           > 1.0 + conf->policy.stripe_margin;
}

int ns_sim_schedule_is_packs (const ns_simconf_t *conf,
                              const ns_simjob_t *jobs, int64_t njobs)
{
    const ns_policy_t *pol = &conf->policy;
    if (!ns_policy_is_sharing (pol->kind) || pol->fallback_after > 0
        || pol->seed != 0 || conf->machine
        || njobs <= 0)
        return 0;
    for (int64_t j = 0; j < njobs; j++)
        if (gains (conf, jobs[j].program))
            return 0;
    return 1;
}

/* No job of the workload gains from striping: a sharing policy then
 * keeps no empty nodes for stripes and places every job as pack does
 * (design.md section 2). */
static void check_governed (ns_sim_t *s)
{
    if (s->governed_checked || s->njobs == 0)
        return;
    s->governed_checked = 1;
    for (int j = 0; j < s->njobs; j++)
        if (gains (&s->conf, s->jobs[j].in->program))
            return;
    s->conf.policy.ungoverned = 1;
    /* A sharing policy then places every job as pack does, whatever its
     * program (design.md section 2): its decisions are pack's, cached by
     * task count and monotone. */
    if (s->cacheable && s->memo.program_matters
        && ns_decmemo_fast (&s->memo, ns_cluster_total_cores (s->c)) == 0)
        s->monotone = 1;
}

int ns_sim_run (ns_sim_t *s, double until, ns_error_t *err)
{
    check_governed (s);
    /* Only a policy that keeps empty nodes packs on nodes in use first */
    ns_cluster_keep_busy_runs (s->c, ns_policy_keeps_empty (&s->conf.policy,
                                                            s->conf.model));
    /* What the policy never asks of the cluster is not kept up to date
     * (the answers are the same, counted when asked): exclusive and
     * spread never pack (the runs of free nodes), and a policy that looks
     * at no program never co-schedules (the open bitmaps) */
    ns_cluster_keep_free_runs (s->c, !s->closes);
    ns_cluster_keep_open (s->c, s->memo.program_matters);
    ns_ev_t e;
    int src;
    while ((src = ev_next (s, &e)) > 0) {
        double t = e.t;
        if (until >= 0 && t > until) {
            account_usage (s, until);
            s->now = until;
            break;
        }
        account_usage (s, t);
        s->now = t;
        /* Only a submit, an end or a kill calls for a scheduling pass: a
         * stale event (an end moved by a rate change, the limit of a job
         * that ended) changes nothing, and a pass then would give EASY
         * extra scheduling instants that no real event caused. */
        int changed = 0;
        while ((src = ev_next (s, &e)) > 0 && e.t <= t + EPS) {
            ns_evq_take (&s->evq, src);
            if (e.type == NS_EV_SUBMIT) {
                if (enqueue (s, e.job) < 0)
                    return ns_error_set (err, ENOMEM, "out of memory");
                changed = 1;
            }
            else if (e.type == NS_EV_LIMIT) {
                /* Still running at its requested time: killed. */
                if (s->jobs[e.job].out.state == NS_SJ_RUNNING) {
                    s->jobs[e.job].out.killed = 1;
                    s->stats.killed++;
                    if (finish_job (s, e.job, err) < 0)
                        return -1;
                    changed = 1;
                }
            }
            else if (s->jobs[e.job].out.state == NS_SJ_RUNNING
                     && e.version == LV (s, e.job)->version) {
                if (finish_job (s, e.job, err) < 0)
                    return -1;
                changed = 1;
            }
        }
        if (changed && schedule (s, err) < 0)
            return -1;
        if (s->pass_fn && s->pass_fn (s, s->pass_arg, err) < 0)
            return -1;
        if (s->checking) {
            s->stats.invariant_checks++;
            if (ns_cluster_check (s->c, err) < 0)
                return -1;
            ns_hresv_t *r = &s->hr;
            if (r->oroom_mark == r->mark_id
                && r->oroom_version == s->cluster_version) {
                int64_t kept = r->oroom;
                r->oroom_mark = -1;
                if (ns_hresv_outside_room (r, s->c, s->cluster_version)
                    != kept)
                    return ns_error_set (err, EPROTO, "free cores outside "
                                         "the reservation: %lld kept, %lld "
                                         "counted", (long long)kept,
                                         (long long)r->oroom);
            }
        }
    }
    return 0;
}
