/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsctld_int.h - what the parts of the select plugin's slurmctld side
 * share: one lock and the functions one part calls in another (each part's
 * state is its own).  Not installed, not for other code.
 */
#ifndef NODESHARE_NSCTLD_INT_H
#define NODESHARE_NSCTLD_INT_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "nscompat.h"

#include "learn.h"
#include "nsconfig.h"
#include "policy.h"

#include "jobmemo.h"
#include "nsrequest.h"

/* Only slurmctld defines these; slurmd and the client commands load this
 * plugin too (design.md section 7), so they are weak and checked. */
#pragma weak job_list
#pragma weak last_job_update
#pragma weak get_job_script
#pragma weak find_job_record

/* nsstats.c: job_test calls by kind. */
enum { NS_CALL_RUN_NOW, NS_CALL_WILL_RUN, NS_CALL_TEST_ONLY, NS_CALL_KINDS };

/* One lock, ns_ctld_lock, for the slurmctld side: slurmctld calls the
 * plugin from several threads (job_test from the scheduler and backfill,
 * job begin and end from others; the metrics thread is nodeshare's own).
 * Every function below runs with it held unless its comment says
 * otherwise.  Each part keeps its own state, static in its file:
 *   nsconf.c    the configuration (ctld_cfg, ctld_active)
 *   nsmodel.c   the model of the cluster (model_*)
 *   nsctld.c    the decisions and what they leave (reasons, logs)
 *   nslearn.c   online learning and its journal (learn_*)
 *   nsstats.c   counters, the overhead report and the metrics file
 *   nsshadow.c  shadow records
 *   nsident.c   no state: a job's program, kept in its memo
 *   nsrequest.c no state: the request (nsrequest.h) */
extern pthread_mutex_t ns_ctld_lock;

/* nsconf.c */
/* The configuration in force; NULL outside slurmctld or before init. */
ns_config_t *ctld_cfg (void);
/* In slurmctld with a configuration loaded. */
int ctld_active (void);

/* nsmodel.c: the model */
void model_create (void);           /* at init: the job memo (fatal on ENOMEM) */
void model_destroy (void);
void model_mark_dirty (void);       /* rebuilt at the next use */
void model_config_changed (void);   /* program ids changed: forget them */
ns_jobmemo_t *model_memo (void);
const ns_cluster_t *model_cluster (void);   /* NULL until built */
/* nsmodel.c: what a decision uses */
ns_cluster_t *model_cl (void);      /* the model, NULL until built */
ns_placement_t *model_pl (void);    /* scratch for the placement */
int model_nnodes (void);
unsigned model_gen (void);          /* the memo's generation */
/* The model's nodes in a request's context: candidates (scratch), GRES
 * nodes. */
void model_reqctx (ns_reqctx_t *x);
/* The model as slurmctld's state is now (rebuilt when needed).  0, or -1
 * (err set; the next call tries again). */
int model_current (ns_error_t *err);
/* Forget memo entries of jobs that left slurmctld, when there are many. */
void model_sweep_memo (void);
/* Where will the request start: running jobs taken out of the model in
 * the order they end until the policy places it (ns_place_after), into
 * model_pl ().  1 when placed (*not_before: the end of the last job that
 * had to end), 0 when not; the model is marked for a rebuild when it could
 * not be restored. */
int model_place_after (const ns_request_t *r, time_t from,
                       time_t *not_before);
/* Does a running job end by t? */
int model_any_ends_by (time_t t);

/* nsident.c: the job's program id in the configuration's table (resolved
 * once, kept in ji). */
int program_of (const job_record_t *job, ns_jobinfo_t *ji);
/* nsmodel.c: the node's CPUs as cons_tres counts them. */
int node_cpus (const node_record_t *node);

/* nslearn.c */
const ns_interf_t *model_now (void);    /* configured + learned figures */
int learn_on (void);                    /* learning runs */
/* A configuration is replacing the one in force: what was learned follows
 * its program table, or learning stops (disabled, or no remap). */
void learn_config_changing (ns_config_t *next);
/* ... and is in force: limits and figures refitted. */
void learn_config_changed (void);
int learn_start (void);
void learn_running (uint32_t except);
void learn_save (int force);
void learn_refit (void);
void learn_stop (void);
void learn_begin (job_record_t *job, int observable);
void learn_end (job_record_t *job);

/* nsstats.c */
int64_t stats_now_ns (void);
void stats_add (int kind, int64_t total_ns, int64_t stock_ns);
void stats_report (int force);
/* A job started: how nodeshare placed it (mode "normal" or "shadow";
 * kind and reason are string constants). */
void stats_decision (const char *mode, const char *kind, const char *reason);
/* nodeshare.json's "metrics_file", rewritten now. */
void stats_metrics (void);
/* The thread that rewrites it every METRICS_EVERY seconds (called
 * without ns_ctld_lock held). */
void stats_metrics_start (void);
void stats_metrics_stop (void);

/* nsshadow.c: one shadow-mode record. */
struct shadow_rec {
    int64_t time;
    uint32_t job;
    const char *program;    /* "" unknown */
    int cores;
    const char *policy;
    const char *would;      /* stripe|place|pack|wait|as-asked|stock */
    const char *nodes;      /* the policy's nodes, "" when none */
    const char *shape;      /* "12+12", "" when none */
    const char *rule;       /* ns_rule_name, or "" */
    const char *stock;      /* the nodes cons_tres chose */
    int differs;
    const char *why;        /* the decision line */
};
void shadow_record (const struct shadow_rec *r);
/* slurmctld stops: wait (at most 30 s) for a compression to end; called
 * without ns_ctld_lock held. */
void shadow_stop (void);

#endif /* !NODESHARE_NSCTLD_INT_H */
