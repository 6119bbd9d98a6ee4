/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine_int.h - the replay engine's state, shared by its own files only
 *
 * engine.c (jobs, start and finish, rates, decisions, the event loop) and
 * backfill.c (the head's reservation and the backfill pass) both work on
 * struct ns_sim; its parts with a life of their own are components with
 * their own state and header (eventq.h, byend.h, decmemo.h, qblocks.h,
 * headresv.h, backfill.h).  Nothing outside sim/engine.c and
 * sim/backfill.c (and their unit tests) includes this.
 */
#ifndef NODESHARE_ENGINE_INT_H
#define NODESHARE_ENGINE_INT_H

#include <stdint.h>

#include "backfill.h"
#include "byend.h"
#include "decmemo.h"
#include "engine.h"
#include "eventq.h"
#include "headresv.h"
#include "pool.h"
#include "qblocks.h"
#include "rellog.h"
#include "resv.h"

#define EPS 1e-7

/* Per job, for the whole run. */
struct sj {
    const ns_simjob_t *in;  /* the job as added: the caller's
                               (ns_sim_add_ref) or a copy in s->own */
    ns_simresult_t out;
    uint32_t shoff;         /* its nodes and cores (out.nodes of them):
                               s->shares[shoff ...] once started */
    int live;               /* 1 + its struct waiting in s->wt while
                               queued, 1 + its struct live in s->lv while
                               running, else 0 */
};

/* What only a queued job needs, and what only a running one needs: each
 * kept in a pool (s->wt, s->lv: pool.h) whose entries are reused once the job
 * leaves the queue, or ends. */
struct waiting {
    int64_t fail_log;       /* 1 + release log length when it last could
                               not start (0: no failure known) */
    int fail_have;          /* admissible nodes it had then */
    int fail_width;         /* nodes it needed */
    int shape_w, shape_s;
    signed char shape_known; /* shape_w, shape_s hold ns_place_shape () */
    signed char fits;       /* with a machine: 0 unknown, 1 its partition
                               can hold it, -1 never */
    signed char placed;     /* the policy placed it once: decide () never
                               says D_NEVER of it (that depends on the
                               request and the machine alone) */
    /* with a machine: */
    int64_t mem_cpu, mem_node; /* MB it holds per task and per node */
};

struct live {
    double remaining;   /* work left, s at rate 1 */
    double rate;
    double last;        /* when remaining was last brought up to date */
    double est_end;     /* start + requested time (EASY) */
    int64_t cores;          /* sum of its shares while running */
    int64_t held;           /* cores held for it (whole closed nodes) */
    uint32_t version;
    int stamp;
    int flags;          /* NS_JOB_* it was started with */
    signed char neutral;    /* ns_interf_neutral (): rate always 1 */
};

struct ns_sim {
    ns_simconf_t conf;
    int governed_checked;       /* check_governed () ran */
    ns_cluster_t *c;
    ns_placement_t *pl;
    ns_placement_t *pl_resv;    /* the head's placement in reserve () */
    unsigned char *mask;        /* machine: partition and caller's nodes */
    int *usable;                /* machine: scratch of fits () */
    double now;
    int checking;

    struct sj *jobs;
    int njobs, jobcap;
    ns_pool_t lv;           /* the struct live of running jobs */
    ns_pool_t wt;           /* the struct waiting of queued jobs */
    /* Copies of the jobs ns_sim_add () was given, in blocks of OWNBLOCK
     * (a block never moves: struct sj.in points into it) */
    ns_simjob_t **own;
    int nown, owncap;
    int done;

    ns_share_t *shares;     /* the nodes and cores of every job started, one
                               after the other (struct sj.shoff) */
    int nsharesall, sharescap;
    int forget_shares;      /* ns_sim_set_keep_shares (0): only running
                               jobs' shares are kept */
    ns_evq_t evq;           /* future events (eventq.h) */

    ns_qblocks_t qb;    /* the FCFS queue, in blocks (qblocks.h) */
    int monotone;       /* exclusive, spread, pack (cacheable): if a
                           request of n tasks fails, or fits only on the
                           reserved nodes, so does any larger one */
    int closes;         /* the policy holds whole nodes (exclusive, spread):
                           a job then needs ceil(tasks / cores) empty
                           nodes */
    int whole;          /* closes, identical nodes, no seed: reservations
                           are counted (ns_resv_whole) while every
                           running job holds its nodes whole */
    int nopen;          /* running jobs that do not hold their nodes
                           whole */

    ns_byend_t be;      /* running jobs by estimated end (byend.h): the
                           order ns_place_after () releases them in */

    int stamp;          /* dedupe marker for co-tenant updates */
    int64_t held;           /* cores held for running jobs */
    uint64_t cluster_version;   /* bumped by every start and end */
    ns_rellog_t rlog;           /* the nodes released by ends (rellog.h) */
    uint64_t release_version;   /* bumped by ends only: a start never makes
                                   a failed decision possible (it only
                                   takes cores and adds tenants), so
                                   failures are cached by this */
    ns_bf_t bf;         /* where the last backfill pass stopped */
    ns_hresv_t hr;      /* the queue head's reservation (headresv.h) */

    ns_sim_pass_f pass_fn;
    void *pass_arg;
    ns_sim_progress_f progress_fn;
    int progress_every;
    void *progress_arg;
    ns_sim_usage_f usage_fn;
    void *usage_arg;

    /* Decisions that failed at the current release_version, keyed by what
     * the policy looks at (decmemo.h). */
    ns_decmemo_t memo;
    int cacheable;          /* decisions depend on the state alone */

    ns_simstats_t stats;
};

/* The struct live of job j (running). */
static inline struct live *LV (const ns_sim_t *s, int j)
{
    return (struct live *)s->lv.item + (s->jobs[j].live - 1);
}

/* The struct waiting of job j (queued). */
static inline struct waiting *WT (const ns_sim_t *s, int j)
{
    return (struct waiting *)s->wt.item + (s->jobs[j].live - 1);
}

static inline int64_t free_cores (const ns_sim_t *s)
{
    return ns_cluster_total_cores (s->c) - ns_cluster_used_cores (s->c);
}

/* The failure record of a request of ntasks tasks of job j (whose program
 * is only read when it matters). */
static inline ns_decmemo_rec_t *fail_lookup (ns_sim_t *s, int j, int ntasks)
{
    return ns_decmemo_lookup (&s->memo, ntasks, s->jobs[j].in->program);
}

static inline ns_decmemo_rec_t *fail_slot (ns_sim_t *s, int j)
{
    return fail_lookup (s, j, s->jobs[j].in->ntasks);
}

/* What decide () says. */
enum {
    D_ERROR = -2,       /* ns_place failed: err says why (malformed job) */
    D_NEVER = -1,       /* can never fit the machine: drop it */
    D_WAIT = 0,         /* not now */
    D_PLACED = 1,       /* s->pl holds the placement */
};

/* The request of queued job j in *r (engine.c). */
void ns_eng_fill_request (const ns_sim_t *s, int j, ns_request_t *r);

/* Decide for queued job j into s->pl, on the nodes of allowed (NULL: all
 * the job may use): a D_* value (engine.c). */
int ns_eng_decide (ns_sim_t *s, int j, const unsigned char *allowed,
                   ns_error_t *err);

/* Start job j, which left the queue, with placement pl.  0, or -1. */
int ns_eng_start_job (ns_sim_t *s, int j, const ns_placement_t *pl,
                      ns_error_t *err);

/* Queued job j can never run: it is done, never started. */
void ns_eng_drop_never (ns_sim_t *s, int j);

#endif
