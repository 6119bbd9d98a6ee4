/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine.h - discrete-event replay of jobs through model/'s placement
 *
 * Events: submit, end, time limit, and rate change (a co-tenant arrives or
 * leaves, so a running job's projected end moves).  Queue order FCFS; EASY
 * backfilling lets a job jump ahead when it does not delay the queue
 * head's reservation, computed from requested times (design.md section 5).
 * At one instant, ends are processed before time limits and submits, then
 * one scheduling pass: a job ending at t frees its nodes for a job starting
 * at t.
 *
 * A job's work is its trace runtime; it advances at the model's progress
 * rate (ns_job_rate: spread speedup / worst co-tenant slowdown), recomputed
 * whenever co-tenancy on any of its nodes changes.
 */
#ifndef NODESHARE_ENGINE_H
#define NODESHARE_ENGINE_H

#include <stdint.h>

#include "cluster.h"
#include "interf.h"
#include "nserror.h"
#include "policy.h"
#include "progtab.h"
#include "slurmconf.h"

typedef enum {
    NS_BACKFILL_NONE = 0,
    NS_BACKFILL_EASY,
} ns_backfill_t;

/* A job still running at its requested time (wall clock since its start):
 * killed there, as Slurm does with OverTimeLimit=0 (the default), or left
 * to run to the end of its work.  Jobs without a requested time run on. */
typedef enum {
    NS_OVERRUN_KILL = 0,
    NS_OVERRUN_RUN,
} ns_overrun_t;

typedef struct {
    uint64_t id;          /* trace job number (for reports) */
    double submit;        /* s */
    double runtime;       /* s, work at rate 1 (>= 0) */
    double req_time;      /* s, requested time; <= 0 unknown */
    int ntasks;           /* processors asked */
    int program;          /* progtab id or NS_PROGRAM_UNKNOWN */
    double recorded_wait; /* s, -1 unknown (fidelity figure only) */
    /* With a machine (ns_simconf_t.machine): */
    int64_t mem_per_cpu;  /* MB per task asked, 0: the partition's or
                             the global DefMemPerCPU */
    int64_t mem_per_node; /* MB per node asked, 0: as above */
    int partition;        /* 1 + index into machine->parts, 0: the
                             default partition */
} ns_simjob_t;

typedef enum {
    NS_SJ_PENDING = 0,  /* not yet submitted */
    NS_SJ_QUEUED,
    NS_SJ_RUNNING,
    NS_SJ_DONE,
    NS_SJ_NEVER,        /* can never fit the machine: dropped */
} ns_sjstate_t;

/* Per-job outcome, valid after the run (one per job for the whole run:
 * kept small). */
typedef struct {
    double start;
    double end;
    int nodes;            /* width it ran at */
    unsigned char state;  /* ns_sjstate_t */
    unsigned char shared; /* 1 if it ever had a co-tenant */
    unsigned char striped;
    unsigned char over_limit; /* ran longer than its requested time */
    unsigned char killed; /* killed at its requested time (overrun kill)
                             before its work was done */
    unsigned char rule;   /* ns_rule_t: how the policy placed it
                             (NS_RULE_NONE if it never started) */
    unsigned char why;    /* ns_pack_why_t: rule pack or as asked: why
                             packed */
} ns_simresult_t;

typedef struct {
    ns_policy_t policy;
    ns_backfill_t backfill;
    int bf_depth;         /* queued jobs behind the head examined per
                             pass; <= 0: all of them (textbook EASY, the
                             default); N mimics Slurm's bf_max_job_test */
    ns_overrun_t overrun; /* default (0): kill at the requested time */
    int nnodes;
    int cores;
    const ns_interf_t *model;
    const ns_progtab_t *progs;  /* names in explanations (may be NULL) */
    int wallclock;        /* every job runs at rate 1: its runtime is
                             wall-clock time already (a replay of a real
                             cluster's jobs); the model still decides */
    const ns_sconf_t *machine; /* a real slurm.conf's nodes (sizes,
                             memory, weights) and partitions (nodes,
                             limits), or NULL: nnodes identical nodes of
                             cores.  nnodes must be its node count; a
                             task is a core (CR_Core, CR_Socket) or a CPU
                             (CR_CPU) of a node */
    const unsigned char *out_of_scope; /* with a machine: machine->nparts
                             bytes, 1 where nodeshare.json's "partitions"
                             leaves the partition out: its jobs are placed
                             as pack places them; NULL: all in scope */
    const unsigned char *no_stripe; /* nnodes bytes: nodes the sharing
                             rules leave alone (GRES nodes: the trace's
                             jobs ask for none); NULL: none */
} ns_simconf_t;

typedef struct ns_sim ns_sim_t;

/* Called after every scheduling pass, at the pass's instant (closed
 * experiments keep the machine saturated from it).  Jobs it adds with
 * submit == now are scheduled in another pass at the same instant, after
 * which it is called again.  0, or -1 with err filled (the run fails). */
typedef int (*ns_sim_pass_f) (ns_sim_t *sim, void *arg, ns_error_t *err);

ns_sim_t *ns_sim_create (const ns_simconf_t *conf, ns_error_t *err);

/* Is the replay of these jobs under conf the replay under pack with
 * conf's other settings, job for job?  So it is for a sharing policy
 * (mixed, twins, same, keep:P, min-slowdown) when no job's program gains
 * from striping (design.md section 2: it then places every job as pack
 * places it), its decisions are a function of the cluster's state
 * (fallback at once, no seed) and no machine is given.  Then a caller
 * replaying both may replay pack only. */
int ns_sim_schedule_is_packs (const ns_simconf_t *conf,
                              const ns_simjob_t *jobs, int64_t njobs);
void ns_sim_destroy (ns_sim_t *sim);

/* Add a job; returns its index.  Jobs may be added in any submit order
 * before ns_sim_run(), and from a pass hook with submit >= now. */
int ns_sim_add (ns_sim_t *sim, const ns_simjob_t *job, ns_error_t *err);
/* The same without a copy: *job is read in place until the simulator is
 * destroyed and must stay there, unchanged (several simulators may share
 * one array of jobs, read-only).  A job submitted before the simulator's
 * present time is copied (its submit time becomes the present). */
int ns_sim_add_ref (ns_sim_t *sim, const ns_simjob_t *job, ns_error_t *err);
void ns_sim_set_pass_hook (ns_sim_t *sim, ns_sim_pass_f fn, void *arg);
/* Would the policy start a job of this program and width right now, on
 * the cluster as it is?  1 yes, 0 no, -1 error (err filled).  Changes
 * nothing.  partner (may be NULL): the program of a job the sharing rules
 * govern on the nodes it would get, NS_SIM_NO_PARTNER if none. */
#define NS_SIM_NO_PARTNER (-2)
int ns_sim_would_start (ns_sim_t *sim, int program, int ntasks, int *partner,
                        ns_error_t *err);
/* The nodes and cores job i held (running or done; NULL, *n = 0 if it
 * never started, or ended while finished jobs' shares are not kept). */
const ns_share_t *ns_sim_job_shares (const ns_sim_t *sim, int i, int *n);
/* Keep the shares of finished jobs for ns_sim_job_shares () (1, the
 * default), or only those of running jobs (0: a run whose report needs
 * no job's nodes then holds no memory per job for them).  Set before
 * ns_sim_run (). */
void ns_sim_set_keep_shares (ns_sim_t *sim, int keep);
/* Jobs submitted and not yet started. */
int ns_sim_queued (const ns_sim_t *sim);
/* Jobs added and neither finished nor dropped (queued, running, or about
 * to be submitted). */
int ns_sim_live (const ns_sim_t *sim);
/* Progress callback every `every` completed jobs (0 disables). */
typedef void (*ns_sim_progress_f) (ns_sim_t *sim, int done, int total,
                                   void *arg);
void ns_sim_set_progress (ns_sim_t *sim, ns_sim_progress_f fn, int every,
                          void *arg);

/* Run until no event is left or simulated time reaches `until` (< 0: no
 * limit).  0 on success, -1 on an internal inconsistency (err says). */
int ns_sim_run (ns_sim_t *sim, double until, ns_error_t *err);

double ns_sim_now (const ns_sim_t *sim);
int ns_sim_njobs (const ns_sim_t *sim);
const ns_simjob_t *ns_sim_job (const ns_sim_t *sim, int i);
const ns_simresult_t *ns_sim_result (const ns_sim_t *sim, int i);
const ns_cluster_t *ns_sim_cluster (const ns_sim_t *sim);

/* Aggregates maintained while running. */
typedef struct {
    int64_t placements;       /* jobs started */
    int64_t twin_pairs;       /* governed jobs joining a node where a
                                 governed job of the same program runs */
    int64_t max_cotenants;    /* largest count of governed tenants seen on
                                 a node (packed jobs do not count) */
    double busy_core_seconds; /* integral of used cores over time: the
                                 cores the jobs' tasks use */
    double held_core_seconds; /* integral of the cores the policy holds
                                 for jobs: whole nodes for a job that
                                 closes its nodes (exclusive, spread),
                                 else the cores allocated */
    int64_t killed;           /* jobs killed at their requested time */
    double first_submit;
    double last_end;
    int64_t invariant_checks; /* ns_cluster_check calls (check mode) */
} ns_simstats_t;

const ns_simstats_t *ns_sim_stats (const ns_sim_t *sim);

/* Verify the cluster invariants after every event (slow; tests). */
void ns_sim_set_checking (ns_sim_t *sim, int on);

/* Utilisation timeline: callback with (t0, t1, used cores) for every
 * interval of constant usage (SVG charts); used counts tasks' cores. */
typedef void (*ns_sim_usage_f) (double t0, double t1, int64_t used,
                                void *arg);
void ns_sim_set_usage_hook (ns_sim_t *sim, ns_sim_usage_f fn, void *arg);

#endif /* !NODESHARE_ENGINE_H */
