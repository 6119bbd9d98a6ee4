/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsctld_int.h - what the parts of the select plugin's slurmctld side
 * share: its state (one mutex, S.lock) and the helpers one part calls in
 * another.  nsctld.c: configuration, the model of the cluster, decisions;
 * nslearn.c: online learning and its journal.  Not installed, not for
 * other code.
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

/* Only slurmctld defines these; slurmd and the client commands load this
 * plugin too (design.md section 7), so they are weak and checked. */
#pragma weak job_list
#pragma weak last_job_update
#pragma weak get_job_script
#pragma weak find_job_record

struct running {
    uint32_t id;
    time_t end;         /* expected end, refreshed before each use */
};

/* nsstats.c: job_test calls by kind. */
enum { NS_CALL_RUN_NOW, NS_CALL_WILL_RUN, NS_CALL_TEST_ONLY, NS_CALL_KINDS };
/* Decisions of jobs started, by mode, kind and reason (fixed strings). */
#define NS_DECISION_KINDS 96
struct ns_decision_count {
    const char *mode, *kind, *reason;
    uint64_t n;
};
struct ns_stats {
    uint64_t calls[NS_CALL_KINDS];
    struct ns_decision_count dec[NS_DECISION_KINDS];
    int ndec;
    uint64_t dec_other;         /* beyond NS_DECISION_KINDS pairs */
    time_t metrics_written;
    int metrics_dirty;          /* counts changed since it was written */
    int metrics_warned;
    pthread_t metrics_thread;
    int metrics_running;
    pthread_cond_t metrics_cond;
    int64_t own_ns[NS_CALL_KINDS], own_max_ns[NS_CALL_KINDS];
    int64_t stock_ns[NS_CALL_KINDS], stock_max_ns[NS_CALL_KINDS];
    time_t reported;
    int dirty;
};

struct ns_ctld_state {
    pthread_mutex_t lock;
    int active;                 /* in slurmctld, configuration loaded */
    ns_config_t *cfg;
    char path[PATH_MAX];
    struct stat st;             /* of the last load attempt */
    int st_ok;
    int jobs_inited;            /* job_init seen: later ones = reconfigure */
    int force_reload;

    ns_cluster_t *cl;
    int dirty;
    int nnodes;
    ns_placement_t *pl;
    unsigned char *allowed;
    unsigned char *gres_node;   /* nnodes entries: the node has GRES */
    int ngres_nodes;
    ns_share_t *shares;         /* nnodes entries of scratch */
    int64_t *mem;               /* nnodes entries: MB beside shares */
    struct running *run;
    int nrun, caprun;

    /* Online learning (design.md section 7): learn != NULL when on. */
    ns_learn_t *learn;
    ns_interf_t *merged;        /* configured + learned figures, or NULL */
    char learn_path[PATH_MAX];  /* StateSaveLocation/nodeshare-learn.json */
    time_t learn_saved;         /* last state write */
    int learn_unsaved;          /* observations since */
    int learn_unfitted;         /* observations since the last fit */
    char journal_path[PATH_MAX + 16]; /* learn_path + ".journal" */
    uint64_t learn_seq;         /* observations ever journalled */

    time_t built;               /* when the model was last rebuilt */
    ns_jobmemo_t *memo;
    unsigned gen;
    uint64_t last_error;        /* hash of the last internal error logged */
    struct ns_stats stats;      /* nsstats.c */
};

extern struct ns_ctld_state ns_ctld_state;
#define S ns_ctld_state

/* nsctld.c */
int program_of (const job_record_t *job, ns_jobinfo_t *ji);
int node_cpus (const node_record_t *node);

/* nslearn.c (all with S.lock held) */
const ns_interf_t *model_now (void);
int learn_start (void);
void learn_running (uint32_t except);
void learn_save (int force);
void learn_refit (void);
void learn_stop (void);
void learn_begin (job_record_t *job, int observable);
void learn_end (job_record_t *job);

/* nsstats.c (stats_add, stats_report with S.lock held) */
int64_t stats_now_ns (void);
void stats_add (int kind, int64_t total_ns, int64_t stock_ns);
void stats_report (int force);
/* A job started: how nodeshare placed it (mode "normal" or "shadow";
 * kind and reason are string constants). */
void stats_decision (const char *mode, const char *kind, const char *reason);
/* nodeshare.json's "metrics_file", rewritten now (S.lock held). */
void stats_metrics (void);
/* The thread that rewrites it every METRICS_EVERY seconds (S.lock not
 * held). */
void stats_metrics_start (void);
void stats_metrics_stop (void);

/* nsshadow.c (with S.lock held): one shadow-mode record. */
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

#endif /* !NODESHARE_NSCTLD_INT_H */
