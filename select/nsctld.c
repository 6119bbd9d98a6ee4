/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsctld.c - slurmctld's records as model/ state, and the answer back
 *
 * See nsctld.h.  The decision itself is ns_place() (model/policy.c); this
 * file only translates:
 *   nodes      node_record_table_ptr[i]          -> model node i, with its
 *              effective CPUs (Slurm's allocation unit) and sockets;
 *   jobs       running jobs' job_resrcs (CPUs held on each node) and the
 *              program each runs (identity.h: SPANK tag, batch script,
 *              job name)                          -> model jobs;
 *   request    job_details (tasks, cpus per task) and the candidate
 *              bitmap -> ns_request_t; explicit shapes (--exclusive,
 *              -N, --ntasks-per-node, --nodelist) and jobs the policy
 *              packs go to cons_tres unchanged;
 *   answer     placement -> the candidate bitmap restricted to the chosen
 *              nodes and, for a striped job, min_nodes, ntasks_per_node and
 *              pn_min_cpus (design.md section 7), or "not now" -> the job
 *              waits with the model's reason in squeue/scontrol.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nscompat.h"

#include "src/common/bitstring.h"
#include "src/common/job_resources.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/pack.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "gres.h"
#include "identity.h"
#include "learn.h"
#include "nsconfig.h"
#include "nsplugin.h"
#include "nsutil.h"
#include "policy.h"

#include "jobmemo.h"
#include "nsctld.h"
#include "nsctld_int.h"
#include "nsrequest.h"


/* One lock for the slurmctld side (nsctld_int.h). */
pthread_mutex_t ns_ctld_lock = PTHREAD_MUTEX_INITIALIZER;

/* The hash of the last internal error logged (log_error_once). */
static uint64_t last_error;

/*
 * The request
 */

/* "learn": {"explore": true}: may this job, of a program without a
 * spread_speedup given or learned, be striped to learn it?  Only when no
 * other job waits (pending, not held) in a partition that shares a node
 * with the job's: then the stripe takes nothing from a waiting job. */
static int explores (const job_record_t *job, int program)
{
    const ns_learn_conf_t *lc = ns_config_learn (ctld_cfg ());
    if (!lc->enabled || !lc->explore || !learn_on ()
        || program == NS_PROGRAM_UNKNOWN
        || ns_interf_given_speedup (model_now (), program) || !job_list
        || !job->part_ptr || !job->part_ptr->node_bitmap)
        return 0;
    list_itr_t *it = list_iterator_create (job_list);
    job_record_t *other;
    int waits = 0;
    while (!waits && (other = list_next (it))) {
        if (other == job || !IS_JOB_PENDING (other) || !other->priority)
            continue;
        waits = !other->part_ptr || !other->part_ptr->node_bitmap
                || bit_overlap_any (other->part_ptr->node_bitmap,
                                    job->part_ptr->node_bitmap);
    }
    list_iterator_destroy (it);
    return !waits;
}

/* One job_test call: what slurmctld passed, to hand on to cons_tres. */
struct call {
    ns_job_test_f stock;
    job_record_t *job;
    bitstr_t *bitmap;
    uint32_t min_nodes, max_nodes, req_nodes;
    uint16_t mode;
    list_t *cand;
    list_t **preempt;
    ns_exc_t exc;
    int64_t *stock_ns;      /* time spent in cons_tres (nsstats.c) */
};

/* The job's request (nsrequest.c), with the model's nodes. */
static void build_request (job_record_t *job, ns_jobinfo_t *ji,
                           const struct call *c, ns_request_t *r)
{
    ns_reqctx_t x = { .cfg = ctld_cfg (), .now = time (NULL) };
    model_reqctx (&x);
    ns_req_build (&x, job, program_of (job, ji), c->bitmap, c->max_nodes, r);
}

/*
 * The answer
 */

static void touch_jobs (void)
{
    if (&last_job_update)
        last_job_update = time (NULL);
}

/* Why the job waits (nsrequest.c), or nothing. */
static void clear_reason (job_record_t *job)
{
    if (ns_req_clear_reason (job))
        touch_jobs ();
}

static void set_reason (job_record_t *job, const char *explain)
{
    if (ns_req_set_reason (job, explain))
        touch_jobs ();
}

/* The decision of the job_test call in progress, for the job's
 * AdminComment and the metrics: its kind (stripe, place, pack, as-asked,
 * stock, fallback, error), a reason from a fixed set, and the line
 * logged for it. */
static struct {
    const char *kind, *reason;
    char line[1024];
} dec;

static void decision (const char *kind, const char *reason)
{
    dec.kind = kind;
    dec.reason = reason;
}

/* Log line once per distinct decision of a job. */
static void log_once (ns_jobinfo_t *ji, const char *line)
{
    snprintf (dec.line, sizeof (dec.line), "%s", line);
    uint64_t h = ns_fnv1a_str (line);
    if (ji->logged == h)
        return;
    ji->logged = h;
    info ("nodeshare: %s", line);
}

/* log_once (HEAD -> the nodes of BITMAP). */
static void log_once_nodes (ns_jobinfo_t *ji, const char *head,
                            bitstr_t *bitmap)
{
    char *names = bitmap2node_name (bitmap);
    char *line = xstrdup_printf ("%s -> %s", head, names);
    log_once (ji, line);
    xfree (line);
    xfree (names);
}

/* log_once_nodes () of a formatted line; bitmap NULL: log_once (). */
__attribute__ ((format (printf, 3, 4)))
static void log_oncef (ns_jobinfo_t *ji, bitstr_t *bitmap, const char *fmt,
                       ...)
{
    va_list ap;
    va_start (ap, fmt);
    int n = vsnprintf (NULL, 0, fmt, ap);
    va_end (ap);
    if (n < 0)
        return;
    char *line = xmalloc ((size_t)n + 1);
    va_start (ap, fmt);
    vsnprintf (line, (size_t)n + 1, fmt, ap);
    va_end (ap);
    if (bitmap)
        log_once_nodes (ji, line, bitmap);
    else
        log_once (ji, line);
    xfree (line);
}

static void log_error_once (const job_record_t *job, const char *what)
{
    char *line = xstrdup_printf ("JobId=%u: %s; stock cons_tres places it",
                                 job->job_id, what);
    snprintf (dec.line, sizeof (dec.line), "%s", line);
    decision ("error", "internal");
    uint64_t h = ns_fnv1a_str (line);
    if (last_error != h) {
        last_error = h;
        error ("nodeshare: %s", line);
    }
    xfree (line);
}

/* "job 7 (LAM, 1 cores) [twins]: " of an explanation. */
static int explain_head_len (const char *explain)
{
    const char *p = strstr (explain, "]: ");
    return p ? (int)(p - explain) + 3 : 0;
}

/* The policy left the job to stock packing: cons_tres placed it. */
static void log_stock (ns_jobinfo_t *ji, const ns_placement_t *pl,
                       bitstr_t *bitmap)
{
    log_oncef (ji, bitmap,
               "%.*splaced by cons_tres as stock Slurm would (%s%s%s)",
               explain_head_len (pl->explain), pl->explain,
               ns_rule_name (pl->rule), pl->why ? ": " : "",
               ns_pack_why_name (pl->why));
}

static int is_striped (const ns_placement_t *pl)
{
    return (pl->rule == NS_RULE_STRIPE_EMPTY
            || pl->rule == NS_RULE_STRIPE_SHARE) && pl->n > 1;
}


static int call_stock (const struct call *c, uint32_t min, uint32_t max,
                       uint32_t req)
{
    int64_t t0 = stats_now_ns ();
    int rc = c->stock (c->job, c->bitmap, min, max, req, c->mode, c->cand,
                       c->preempt, NS_EXC_ARGS (c->exc));
    if (c->stock_ns)
        *c->stock_ns += stats_now_ns () - t0;
    return rc;
}

/* Mark in used (a cluster core bitmap, cr_get_coremap_offset) the cores
 * that the jobs holding resources have on the placement's nodes.  0, or
 * -1 when a job's core layout does not match its node's. */
static int used_cores (const ns_placement_t *pl, bitstr_t *used)
{
    if (!job_list)
        return -1;
    bitstr_t *ours = bit_alloc (node_record_count);
    for (int i = 0; i < pl->n; i++)
        if (pl->shares[i].node < node_record_count)
            bit_set (ours, pl->shares[i].node);
    int rc = 0;
    list_itr_t *it = list_iterator_create (job_list);
    job_record_t *job;
    while (rc == 0 && (job = list_next (it))) {
        job_resources_t *jr = job->job_resrcs;
        if (!(IS_JOB_RUNNING (job) || IS_JOB_SUSPENDED (job)) || !jr
            || !jr->node_bitmap || !jr->core_bitmap)
            continue;
        int last = bit_fls (jr->node_bitmap), k = 0;
        for (int i = bit_ffs (jr->node_bitmap); i >= 0 && i <= last; i++) {
            if (!bit_test (jr->node_bitmap, i))
                continue;
            int host = k++;
            if (i >= node_record_count || !bit_test (ours, i))
                continue;
            uint16_t socks = 0, cps = 0;
            int off = get_job_resources_offset (jr, host, 0, 0);
            if (off < 0
                || get_job_resources_cnt (jr, host, &socks, &cps)
                       != SLURM_SUCCESS
                || socks * cps != node_record_table_ptr[i]->tot_cores
                || off + socks * cps > bit_size (jr->core_bitmap)) {
                rc = -1;
                break;
            }
            int base = (int)cr_get_coremap_offset (i);
            for (int x = 0; x < socks * cps; x++)
                if (bit_test (jr->core_bitmap, off + x))
                    bit_set (used, base + x);
        }
    }
    list_iterator_destroy (it);
    FREE_NULL_BITMAP (ours);
    return rc;
}

/* The cores of a stripe that starts now.  An uneven stripe (8+8+7+7 for
 * 30 tasks): cons_tres asked for 8 tasks per node would hold 32 CPUs; an
 * even one (12+12 on nodes of 2 x 12 cores): cons_tres from 24.11 gives
 * the first twelve cores, one socket.  Instead it is left, on each of the
 * placement's nodes, exactly the free cores of that node's share (the
 * rest excluded, as a reservation excludes cores), socket by socket in
 * turn as stock spreads a job over sockets; asked for the job's own task
 * count on that many nodes, it then allocates the shares.  NULL when the
 * free cores cannot be read (the caller falls back to tasks per node). */
static bitstr_t *stripe_exclude (const struct call *c,
                                 const ns_placement_t *pl)
{
    int total = (int)cr_get_coremap_offset (node_record_count);
    if (total <= 0)
        return NULL;
    bitstr_t *exc = ns_exc_to_bitmap (&c->exc, total);
    if (!exc)
        return NULL;
    bitstr_t *used = bit_alloc (total);
    if (used_cores (pl, used) < 0) {
        FREE_NULL_BITMAP (used);
        FREE_NULL_BITMAP (exc);
        return NULL;
    }
    for (int j = 0; j < pl->n; j++) {
        int i = pl->shares[j].node;
        const node_record_t *node = i < node_record_count
                                        ? node_record_table_ptr[i] : NULL;
        if (!node || !node->tot_cores) {
            FREE_NULL_BITMAP (exc);
            break;
        }
        int base = (int)cr_get_coremap_offset (i);
        int ncores = node->tot_cores;
        int socks = node->tot_sockets > 0 ? node->tot_sockets : 1;
        int cps = ncores / socks;
        int tpc = node->tpc > 0 ? node->tpc : 1;
        int want = (pl->shares[j].cores + tpc - 1) / tpc;
        if (cps * socks != ncores) {
            socks = 1;
            cps = ncores;
        }
        for (int x = 0; x < ncores; x++) {
            bool spec = node->node_spec_bitmap
                        && !bit_test (node->node_spec_bitmap, x);
            if (spec || bit_test (used, base + x))
                bit_set (exc, base + x);
        }
        /* Keep `want` free cores, one socket after the other. */
        for (int k = 0; k < cps; k++)
            for (int s = 0; s < socks; s++) {
                int x = s * cps + k;
                if (bit_test (exc, base + x))
                    continue;
                if (want > 0)
                    want--;
                else
                    bit_set (exc, base + x);
            }
        if (want > 0) {   /* fewer free cores than the model saw */
            FREE_NULL_BITMAP (exc);
            break;
        }
    }
    FREE_NULL_BITMAP (used);
    return exc;
}

/* Let cons_tres allocate on the placement's nodes, with the placement's
 * shape.  run_now: keep the shape when it succeeds (the job starts). */
static int allocate_on (const struct call *c, ns_jobinfo_t *ji,
                        const ns_request_t *r, const ns_placement_t *pl,
                        int run_now)
{
    bitstr_t *mask = bit_alloc (bit_size (c->bitmap));
    for (int i = 0; i < pl->n; i++)
        if (pl->shares[i].node < bit_size (mask))
            bit_set (mask, pl->shares[i].node);
    bitstr_t *saved = bit_copy (c->bitmap);
    bit_and (c->bitmap, mask);

    uint32_t min = c->min_nodes, max = c->max_nodes, req = c->req_nodes;
    int rc = SLURM_ERROR, done = 0;
    if (is_striped (pl)) {
        int most = 0, least = INT_MAX;
        for (int i = 0; i < pl->n; i++) {
            if (pl->shares[i].cores > most)
                most = pl->shares[i].cores;
            if (pl->shares[i].cores < least)
                least = pl->shares[i].cores;
        }
        min = max = req = (uint32_t)pl->n;
        /* Run now: the exact cores of each share, half of them on each
         * socket (cons_tres from 24.11 would give an even stripe's 12
         * cores of a 2 x 12 node all on one socket). */
        bitstr_t *exc = run_now ? stripe_exclude (c, pl) : NULL;
        if (exc) {
            struct call u = *c;
            ns_exc_owned_t owned;
            ns_exc_with_cores (&c->exc, exc, &owned);
            u.exc = owned.exc;
            /* An even stripe keeps its tasks per node (srun and
             * SLURM_NTASKS_PER_NODE see 12); an uneven one leaves them to
             * cons_tres. */
            ns_req_apply_shape (c->job, ji, pl->n,
                         least == most ? most / r->cpus_per_task : 0,
                         r->cpus_per_task, pl->mem_per_node);
            rc = call_stock (&u, min, max, req);
            ns_exc_release (&owned);   /* frees exc */
            exc = NULL;
            done = rc == SLURM_SUCCESS;
            if (!done) {
                ns_req_undo_shape (c->job, ji);
                bit_copybits (c->bitmap, saved);
                bit_and (c->bitmap, mask);
                debug ("nodeshare: %pJ: cons_tres refused the stripe's "
                       "cores, asking for %d tasks per node",
                       c->job, most / r->cpus_per_task);
            }
        }
        /* Even, a will-run test (whose cores are free later, not now) or
         * no exact cores: the model's fullest node sets the tasks per
         * node (a will-run answer then asks, per node, for at most one
         * task's CPUs more than the run-now answer, never fewer). */
        if (!done)
            ns_req_apply_shape (c->job, ji, pl->n, most / r->cpus_per_task,
                         r->cpus_per_task, pl->mem_per_node);
    }
    if (!done)
        rc = call_stock (c, min, max, req);
    if (rc != SLURM_SUCCESS) {
        bit_copybits (c->bitmap, saved);
        ns_req_undo_shape (c->job, ji);
    }
    else if (!run_now) {
        ns_req_undo_shape (c->job, ji);   /* a will-run test starts nothing */
    }
    FREE_NULL_BITMAP (saved);
    FREE_NULL_BITMAP (mask);
    return rc;
}

/* Does the placement break a limit slurmctld passed to job_test?  The
 * plugin never overrides them (a partition's MaxNodes, the job's -N
 * range): the reason, or NULL. */
static const char *beyond_limits (const struct call *c,
                                  const ns_placement_t *pl)
{
    if (is_striped (pl) && c->max_nodes && (uint32_t)pl->n > c->max_nodes)
        return "the stripe's nodes exceed the job's or partition's node "
               "limit";
    return NULL;
}

static int decide_now (const struct call *c, ns_jobinfo_t *ji,
                       const ns_request_t *r, int *waits)
{
    ns_placement_t *pl = model_pl ();
    int rc;

    if (pl->verdict == NS_PLACED) {
        const char *limit = beyond_limits (c, pl);
        rc = limit ? SLURM_ERROR : allocate_on (c, ji, r, pl, 1);
        if (rc == SLURM_SUCCESS) {
            ji->placed = 1;
            ji->flags = pl->flags;
            int explored = (r->flags & NS_REQ_EXPLORE) && is_striped (pl);
            decision (is_striped (pl) ? "stripe" : "place",
                      explored ? "explore" : ns_rule_name (pl->rule));
            if (explored)
                log_oncef (ji, c->bitmap, "%s (exploring: no spread_speedup "
                           "for its program, and no waiting job could use "
                           "these nodes)", pl->explain);
            else
                log_once_nodes (ji, pl->explain, c->bitmap);
            return rc;
        }
        /* The floor: slurmctld knows more than the model (memory, cores
         * a reservation holds, partition limits, features).  Unless the
         * rules are strict (fallback_after -1), the job is placed in this
         * very call as stock Slurm would place it. */
        const char *why = limit ? limit
                                : "cons_tres cannot allocate there now "
                                  "(memory, reserved or specialized cores, "
                                  "partition limits or generic resources)";
        if (ns_place_fallback_in (ns_config_policy (ctld_cfg ()), r) < 0) {
            log_oncef (ji, NULL, "%s; %s, the job waits (strict rules)",
                       pl->explain, why);
            return rc;
        }
        rc = call_stock (c, c->min_nodes, c->max_nodes, c->req_nodes);
        if (rc == SLURM_SUCCESS) {
            ji->placed = 1;
            ji->flags = NS_JOB_PACKED;
            decision ("fallback", limit ? "node limit" : "cons_tres refused");
            log_oncef (ji, c->bitmap, "%s; %s: placed by cons_tres as "
                       "stock Slurm would", pl->explain, why);
        }
        return rc;
    }
    log_once (ji, pl->explain);
    set_reason (c->job, pl->explain);
    *waits = 1;
    return SLURM_ERROR;
}

/* cons_tres on the candidate nodes that already run a job (the model's
 * busy-first order for small jobs, design.md section 2); the bitmap is
 * restored when it cannot place the job there. */
static int stock_on_busy (const struct call *c)
{
    bitstr_t *saved = bit_copy (c->bitmap);
    int any = 0;
    for (int i = 0; i < model_nnodes () && i < bit_size (c->bitmap); i++) {
        if (!bit_test (c->bitmap, i))
            continue;
        if (ns_node_is_empty (model_cl (), i))
            bit_clear (c->bitmap, i);
        else
            any = 1;
    }
    int rc = any ? call_stock (c, c->min_nodes, c->max_nodes, c->req_nodes)
                 : SLURM_ERROR;
    if (rc != SLURM_SUCCESS)
        bit_copybits (c->bitmap, saved);
    FREE_NULL_BITMAP (saved);
    return rc;
}

static int stocks (const ns_placement_t *pl)
{
    return pl->rule == NS_RULE_PACK || pl->rule == NS_RULE_FALLBACK;
}

/* A will-run test: when and where would the job start?  Backfill (24.11)
 * tests it in a window that opens at `from` (later than now): the answer
 * is the placement on the cluster as it will be then, the jobs that end
 * before it gone, as a run-now test at that moment would answer. */
static int decide_will_run (const struct call *c, ns_jobinfo_t *ji,
                            const ns_request_t *r)
{
    time_t not_before = 0, now = time (NULL);
    time_t from = ns_exc_window_start (&c->exc);
    int later = from > now && model_any_ends_by (from);
    if (model_pl ()->verdict == NS_PLACED && !later) {
        int rc = beyond_limits (c, model_pl ()) ? SLURM_ERROR
                                         : allocate_on (c, ji, r, model_pl (), 0);
        /* The floor, as in decide_now(). */
        if (rc != SLURM_SUCCESS
            && ns_place_fallback_in (ns_config_policy (ctld_cfg ()), r) >= 0)
            rc = call_stock (c, c->min_nodes, c->max_nodes, c->req_nodes);
        return rc;
    }
    int found = model_place_after (r, later ? from : 0, &not_before);
    if (found && not_before < from)
        not_before = from;
    int64_t fb = ns_place_fallback_in (ns_config_policy (ctld_cfg ()), r);
    if (fb >= 0 && (!found || now + fb < not_before)) {
        /* fallback_after runs out first: from then on cons_tres places
         * the job as stock Slurm would (decide: stocks). */
        int rc = call_stock (c, c->min_nodes, c->max_nodes, c->req_nodes);
        if (rc == SLURM_SUCCESS && c->job->start_time < now + fb)
            c->job->start_time = now + fb;
        return rc;
    }
    if (found) {
        int rc = stocks (model_pl ()) ? call_stock (c, c->min_nodes, c->max_nodes,
                                             c->req_nodes)
                               : allocate_on (c, ji, r, model_pl (), 0);
        /* The floor: cons_tres refuses the future nodes (memory, reserved
         * cores, limits the model does not see): answer as stock does. */
        if (rc != SLURM_SUCCESS && !stocks (model_pl ()) && fb >= 0)
            return call_stock (c, c->min_nodes, c->max_nodes, c->req_nodes);
        /* cons_tres answers when the cores are free, and a job the policy
         * holds back (a twin next to its twin) may find them free now:
         * "now" would make backfill try to start it every pass, fail,
         * and reserve its nodes from now on, pushing back every job
         * that could run there until then.  It starts when the policy
         * places it. */
        if (rc == SLURM_SUCCESS && c->job->start_time < not_before)
            c->job->start_time = not_before;
        return rc;
    }
    /* Not even on an emptied cluster within these nodes: let cons_tres
     * answer for the nodes as they are. */
    return call_stock (c, c->min_nodes, c->max_nodes, c->req_nodes);
}

/* *waits is set when the job waits with nodeshare's reason. */
static int decide (const struct call *c, int run_now, int *waits)
{
    ns_error_t err;
    ns_request_t r;
    job_record_t *job = c->job;

    if (model_current (&err) < 0) {
        log_error_once (job, err.text);
        return call_stock (c, c->min_nodes, c->max_nodes, c->req_nodes);
    }
    if (bit_size (c->bitmap) < model_nnodes ()
        || (job->details->req_node_bitmap
            && bit_size (job->details->req_node_bitmap) < model_nnodes ())) {
        log_error_once (job, "node bitmap smaller than the node table");
        return call_stock (c, c->min_nodes, c->max_nodes, c->req_nodes);
    }
    model_sweep_memo ();
    ns_jobinfo_t *ji = ns_jobmemo_get (model_memo (), job->job_id);
    if (!ji) {
        log_error_once (job, "out of memory");
        return call_stock (c, c->min_nodes, c->max_nodes, c->req_nodes);
    }
    ji->gen = model_gen ();
    ns_req_undo_shape (job, ji);

    const char *why = ns_req_beyond_model (job);
    if (why) {
        decision ("stock", why);
        if (run_now)
            log_oncef (ji, NULL, "JobId=%u asks for %s: cons_tres places it "
                       "as asked", job->job_id, why);
        return call_stock (c, c->min_nodes, c->max_nodes, c->req_nodes);
    }

    why = ns_req_explicit (job);
    if (why) {
        /* Stock's shape and stock's nodes (design.md section 2). */
        ji->placed = 1;
        ji->flags = ns_req_holds_whole_nodes (job->details)
                        ? NS_JOB_CLOSES_NODES : NS_JOB_PACKED;
        decision ("as-asked", why);
        int rc = call_stock (c, c->min_nodes, c->max_nodes, c->req_nodes);
        if (run_now && rc == SLURM_SUCCESS) {
            log_oncef (ji, c->bitmap, "JobId=%u asks for %s: placed by "
                       "cons_tres as asked", job->job_id, why);
        }
        return rc;
    }

    build_request (job, ji, c, &r);
    if (run_now && explores (job, r.program))
        r.flags |= NS_REQ_EXPLORE;
    if (ns_place (model_cl (), ns_config_policy (ctld_cfg ()), model_now (),
                  ns_config_progtab (ctld_cfg ()), &r, model_pl (), &err) < 0) {
        log_error_once (job, err.text);
        return call_stock (c, c->min_nodes, c->max_nodes, c->req_nodes);
    }
    if ((r.flags & NS_REQ_EXPLORE) && model_pl ()->verdict != NS_PLACED) {
        /* No empty nodes for it alone: as if it had not explored. */
        r.flags &= ~NS_REQ_EXPLORE;
        if (ns_place (model_cl (), ns_config_policy (ctld_cfg ()), model_now (),
                      ns_config_progtab (ctld_cfg ()), &r, model_pl (), &err) < 0) {
            log_error_once (job, err.text);
            return call_stock (c, c->min_nodes, c->max_nodes, c->req_nodes);
        }
    }
    if (stocks (model_pl ())) {
        /* Packed as stock Slurm packs it: cons_tres decides, whether it
         * can start now or not; a small job on nodes in use first. */
        ji->placed = 1;
        ji->flags = NS_JOB_PACKED;
        decision ("pack", model_pl ()->why ? ns_pack_why_name (model_pl ()->why)
                                    : ns_rule_name (model_pl ()->rule));
        int rc = SLURM_ERROR;
        if (run_now && model_pl ()->why == NS_PACK_SMALL
            && ns_policy_keeps_empty (ns_config_policy (ctld_cfg ()),
                                      model_now ()))
            rc = stock_on_busy (c);
        if (rc != SLURM_SUCCESS)
            rc = call_stock (c, c->min_nodes, c->max_nodes, c->req_nodes);
        if (run_now && rc == SLURM_SUCCESS)
            log_stock (ji, model_pl (), c->bitmap);
        return rc;
    }
    if (model_pl ()->verdict == NS_NEVER) {
        /* The policy's shape never fits these nodes: cons_tres decides
         * (and says "never" itself when the job cannot run as asked). */
        decision ("stock", "shape never fits");
        if (run_now)
            log_once (ji, model_pl ()->explain);
        return call_stock (c, c->min_nodes, c->max_nodes, c->req_nodes);
    }
    return run_now ? decide_now (c, ji, &r, waits)
                   : decide_will_run (c, ji, &r);
}

/*
 * Shadow mode (nodeshare.json "mode": "shadow", design.md 7.5): cons_tres
 * places every job as stock Slurm does; for each job it starts, the
 * policy's decision on the cluster as it was is logged and recorded.
 */

struct would {
    const char *what;       /* struct shadow_rec's would */
    const char *reason;     /* for the metrics: a fixed string */
    char line[640];         /* the decision line, "would" in it */
    int placed;             /* model_pl () holds the policy's nodes */
};

/* "job 7 (LAM, 24 cores) [twins]: " + "would " + VERB + the rest. */
static void would_line (struct would *w, const char *explain,
                        const char *verb, const char *rest)
{
    snprintf (w->line, sizeof (w->line), "%.*swould %s%s",
              explain_head_len (explain), explain, verb, rest);
}

/* What the policy would decide for c->job now (c->bitmap: the candidate
 * nodes), without touching the job or the bitmap. */
static void shadow_decide (const struct call *c, ns_jobinfo_t *ji,
                           struct would *w)
{
    ns_error_t err;
    ns_request_t r;
    job_record_t *job = c->job;
    const char *why;

    w->placed = 0;
    w->what = "stock";
    w->reason = "internal";
    if ((why = ns_req_beyond_model (job))) {
        w->reason = why;
        snprintf (w->line, sizeof (w->line), "JobId=%u asks for %s: would "
                  "leave it to cons_tres as asked", job->job_id, why);
        return;
    }
    if ((why = ns_req_explicit (job))) {
        w->what = "as-asked";
        w->reason = why;
        snprintf (w->line, sizeof (w->line), "JobId=%u asks for %s: would "
                  "place it by cons_tres as asked", job->job_id, why);
        return;
    }
    build_request (job, ji, c, &r);
    if (ns_place (model_cl (), ns_config_policy (ctld_cfg ()), model_now (),
                  ns_config_progtab (ctld_cfg ()), &r, model_pl (), &err) < 0) {
        snprintf (w->line, sizeof (w->line), "JobId=%u: %s; would leave it "
                  "to cons_tres", job->job_id, err.text);
        return;
    }
    const ns_placement_t *pl = model_pl ();
    const char *tail = ns_req_explain_tail (pl->explain);
    w->reason = pl->why ? ns_pack_why_name (pl->why)
                        : ns_rule_name (pl->rule);
    if (stocks (pl)) {
        char rest[128];
        w->what = "pack";
        snprintf (rest, sizeof (rest), "as stock Slurm would (%s%s%s)",
                  ns_rule_name (pl->rule), pl->why ? ": " : "",
                  ns_pack_why_name (pl->why));
        would_line (w, pl->explain, "place ", rest);
    }
    else if (pl->verdict == NS_PLACED && beyond_limits (c, pl)) {
        would_line (w, pl->explain, "place as stock Slurm would: ",
                    beyond_limits (c, pl));
    }
    else if (pl->verdict == NS_PLACED) {
        w->placed = 1;
        w->what = is_striped (pl) ? "stripe" : "place";
        would_line (w, pl->explain, is_striped (pl) ? "stripe " : "place ",
                    tail);
    }
    else if (pl->verdict == NS_NEVER) {
        w->reason = "shape never fits";
        would_line (w, pl->explain, "leave it to cons_tres: ", tail);
    }
    else {
        w->what = "wait";
        w->reason = ns_verdict_name (pl->verdict);
        if (!strncmp (tail, "waits ", 6))
            would_line (w, pl->explain, "wait ", tail + 6);
        else
            would_line (w, pl->explain, "wait: ", tail);
    }
}

/* Do the policy's nodes differ from the ones cons_tres chose? */
static int shadow_differs (const struct would *w, bitstr_t *chosen)
{
    if (!strcmp (w->what, "wait"))
        return 1;
    if (!w->placed)
        return 0;
    int n = 0;
    for (int i = 0; i < model_pl ()->n; i++) {
        int node = model_pl ()->shares[i].node;
        if (node >= bit_size (chosen) || !bit_test (chosen, node))
            return 1;
        n++;
    }
    return n != bit_set_count (chosen);
}

static void shadow_note (const struct call *c, ns_jobinfo_t *ji,
                         const struct would *w)
{
    char pname[NS_PROGRAM_NAME_MAX + 8], shape[256] = "";
    char *names = bitmap2node_name (c->bitmap);
    char *nodes = NULL;
    int len = 0;
    if (w->placed) {
        bitstr_t *b = bit_alloc (bit_size (c->bitmap));
        for (int i = 0; i < model_pl ()->n; i++) {
            if (model_pl ()->shares[i].node < bit_size (b))
                bit_set (b, model_pl ()->shares[i].node);
            if (len < (int)sizeof (shape))
                len += snprintf (shape + len, sizeof (shape) - len, "%s%d",
                                 i ? "+" : "", model_pl ()->shares[i].cores);
        }
        nodes = bitmap2node_name (b);
        FREE_NULL_BITMAP (b);
    }
    int differs = shadow_differs (w, c->bitmap);
    info ("nodeshare: shadow: %s; cons_tres placed it as stock Slurm "
          "does -> %s", w->line, names);
    ns_policy_name (ns_config_policy (ctld_cfg ()), ns_config_progtab (ctld_cfg ()),
                    pname, sizeof (pname));
    struct shadow_rec rec = {
        .time = (int64_t)time (NULL),
        .job = c->job->job_id,
        .program = ji->program,
        .cores = (int)c->job->details->min_cpus,
        .policy = pname,
        .would = w->what,
        .nodes = nodes ? nodes : "",
        .shape = shape,
        .rule = w->placed ? ns_rule_name (model_pl ()->rule) : "",
        .stock = names,
        .differs = differs,
        .why = w->line,
    };
    shadow_record (&rec);
    stats_decision ("shadow", w->what, w->reason);
    snprintf (dec.line, sizeof (dec.line), "shadow: %.640s; cons_tres "
              "placed it -> %.300s", w->line, names);
    dec.kind = "shadow";
    xfree (names);
    xfree (nodes);
}

/* Shadow mode's job_test: cons_tres answers; a job it starts now gets the
 * policy's decision, taken on the candidate nodes slurmctld passed. */
static int shadow_test (const struct call *c, int run_now)
{
    ns_error_t err;
    /* A shape written in normal mode, before a reconfigure. */
    ns_jobinfo_t *was = model_memo () ? ns_jobmemo_find (model_memo (), c->job->job_id)
                               : NULL;
    if (was)
        ns_req_undo_shape (c->job, was);
    if (!run_now)
        return call_stock (c, c->min_nodes, c->max_nodes, c->req_nodes);
    bitstr_t *cand = bit_copy (c->bitmap);
    int rc = call_stock (c, c->min_nodes, c->max_nodes, c->req_nodes);
    job_record_t *job = c->job;
    if (rc != SLURM_SUCCESS) {
        FREE_NULL_BITMAP (cand);
        return rc;
    }
    struct would w = { .what = "stock", .reason = "internal", .line = "",
                       .placed = 0 };
    ns_jobinfo_t *ji = NULL;
    if (model_current (&err) < 0) {
        snprintf (w.line, sizeof (w.line), "JobId=%u: %s", job->job_id,
                  err.text);
    }
    else if (bit_size (cand) < model_nnodes ()) {
        snprintf (w.line, sizeof (w.line), "JobId=%u: node bitmap smaller "
                  "than the node table", job->job_id);
    }
    else {
        model_sweep_memo ();
        ji = ns_jobmemo_get (model_memo (), job->job_id);
    }
    if (ji) {
        struct call dry = *c;
        dry.bitmap = cand;
        ji->gen = model_gen ();
        shadow_decide (&dry, ji, &w);
        /* It runs where cons_tres put it: packed, for the model. */
        ji->placed = 1;
        ji->flags = ns_req_holds_whole_nodes (job->details) ? NS_JOB_CLOSES_NODES
                                                     : NS_JOB_PACKED;
        shadow_note (c, ji, &w);
    }
    else {
        info ("nodeshare: shadow: %s; cons_tres placed it", w.line);
    }
    FREE_NULL_BITMAP (cand);
    return rc;
}

/* The decision in accounting (nsrequest.c): "[nodeshare] LINE" in the
 * job's AdminComment, when nodeshare.json asks for it. */
static void note_admin_comment (job_record_t *job, const char *line)
{
    if (ns_config_admin_comment (ctld_cfg ())
        && ns_req_admin_comment (job, line))
        touch_jobs ();
}

int ns_ctld_job_test (ns_job_test_f stock, job_record_t *job_ptr,
                      bitstr_t *bitmap, uint32_t min_nodes,
                      uint32_t max_nodes, uint32_t req_nodes, uint16_t mode,
                      list_t *preemptee_candidates,
                      list_t **preemptee_job_list, const ns_exc_t *exc)
{
    int64_t t0 = stats_now_ns (), stock_ns = 0;
    struct call c = {
        .stock = stock, .job = job_ptr, .bitmap = bitmap,
        .min_nodes = min_nodes, .max_nodes = max_nodes,
        .req_nodes = req_nodes, .mode = mode,
        .cand = preemptee_candidates, .preempt = preemptee_job_list,
        .exc = *exc, .stock_ns = &stock_ns,
    };
    int run_now = SELECT_IS_MODE_RUN_NOW (mode)
                  && !(mode & SELECT_MODE_FLAGS);
    int will_run = (mode & SELECT_MODE_BASE) == SELECT_MODE_WILL_RUN
                   && !(mode & SELECT_MODE_FLAGS);

    /* Nodeshare has no say in "could it ever run" tests, reservations,
     * preemption and jobs without nodes. */
    /* ... nor in the stand-in job (id 0) slurmctld tests a core
     * reservation with (24.11's _resv_select). */
    if (!ctld_active () || !job_ptr || !job_ptr->job_id || !job_ptr->details
        || !bitmap
        || !(run_now || will_run) || (min_nodes == 0 && max_nodes == 0)
        || (preemptee_candidates && list_count (preemptee_candidates))) {
        int rc = call_stock (&c, min_nodes, max_nodes, req_nodes);
        if (ctld_active ()) {
            pthread_mutex_lock (&ns_ctld_lock);
            stats_add (NS_CALL_TEST_ONLY, stats_now_ns () - t0, stock_ns);
            pthread_mutex_unlock (&ns_ctld_lock);
        }
        return rc;
    }

    pthread_mutex_lock (&ns_ctld_lock);
    int rc;
    dec.kind = dec.reason = NULL;
    dec.line[0] = '\0';
    if (ns_config_mode (ctld_cfg ()) == NS_MODE_SHADOW) {
        rc = shadow_test (&c, run_now);
        if (run_now)
            clear_reason (job_ptr);
    }
    else {
        int waits = 0;
        rc = decide (&c, run_now, &waits);
        /* A reason of ours from an earlier pass no longer holds (and left
         * in place, select_nodes() would keep showing it). */
        if (run_now && !waits)
            clear_reason (job_ptr);
        if (run_now && rc == SLURM_SUCCESS) {
            stats_decision ("normal", dec.kind ? dec.kind : "stock",
                            dec.reason ? dec.reason : "other");
        }
    }
    if (run_now && rc == SLURM_SUCCESS && dec.line[0])
        note_admin_comment (job_ptr, dec.line);
    stats_add (run_now ? NS_CALL_RUN_NOW : NS_CALL_WILL_RUN,
               stats_now_ns () - t0, stock_ns);
    pthread_mutex_unlock (&ns_ctld_lock);
    return rc;
}
