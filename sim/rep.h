/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rep.h - nodeshare-report's library: what a cluster's own history says
 * about adopting nodeshare.  The steps, in the order nodeshare-report
 * runs them: the inputs (ns_rep_load_inputs, ns_rep_spool_stdin), the
 * figures learned from the sacct dumps (ns_rep_learn_all, rep_load.c),
 * the replay's configuration and the replay under pack and the policy
 * (rep_replay.c), the shadow records (rep_shadow.c), the node failures;
 * then the findings (rep_findings.c) written as text (rep_text.c) and as
 * one self-contained HTML file (rep_html.c).
 *
 * Errors: a step that fails returns -1 with one line in r->err, which
 * the program prints.  Progress goes to stderr unless o.quiet.
 */
#ifndef NODESHARE_REP_H
#define NODESHARE_REP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "compare.h"
#include "engine.h"
#include "history.h"
#include "learn.h"
#include "nodefail.h"
#include "nsconfig.h"
#include "progtab.h"
#include "report.h"
#include "shadow.h"
#include "slurmconf.h"

#define NS_REP_PROG "nodeshare-report"
#define NS_REP_MAX_SHADOW 64        /* --shadow arguments */
#define NS_REP_MAX_PARTS 256        /* partitions counted apart */

/* The command line. */
struct ns_rep_opts {
    int cores, nodes;
    const char *config, *policy, *state, *html, *json_out, *output;
    const char *slurm_conf;
    double fail_per_year;       /* < 0: from the dumps */
    int repeats;
    const char *shadow[NS_REP_MAX_SHADOW];
    int nshadow;
    int quiet;
    ns_learn_opts_t lo;
};

/* What the history holds, per program of the replay's table. */
struct ns_rep_prog {
    int64_t jobs, completed;
    double core_s;          /* AllocCPUS x elapsed */
    double run_s;
    int64_t differ;         /* placed differently by the policy */
    int64_t shadow, shadow_differ;
};

#define NS_REP_NRULES (NS_RULE_PACK + 1)

/* One replay: its policy's name, its metrics, core-hours held and
 * used. */
struct ns_rep_run {
    char name[64];
    ns_metrics_t m;
    double held_core_h, busy_core_h;
};

/* Per partition, pack [0] and the policy [1]: core-hours the jobs held
 * (cores x elapsed) and their turnaround (end - submit). */
struct ns_rep_part {
    int64_t jobs;
    double core_h[2], turn_s[2];
};

/* The shadow records, counted. */
struct ns_rep_shadow {
    int64_t records, differ;
    int64_t dropped_files, dropped_records; /* rotation: said by the
                                               plugin ("dropped") */
    int64_t dropped_last;       /* newest record dropped, -1 */
    int nfiles;
    char rules[32][48];
    int64_t rule_n[32];
    int nrules;
    char woulds[32][48];
    int64_t would_n[32];
    int nwoulds;
    char progs[64][NS_SHADOW_TEXT_MAX];
    int64_t prog_n[64], prog_d[64];
    int nprogs;
    int64_t first_time, last_time;
    char first_why[NS_SHADOW_TEXT_MAX];
    int64_t first_why_job;
};

/* The report: its inputs, what was learned, the replays, the shadow
 * records.  Zeroed, then o set, by the caller; freed by
 * ns_rep_free (). */
struct ns_rep {
    struct ns_rep_opts o;
    char **dumps;
    int ndumps;
    char *spooled;              /* stdin copied to a file */
    /* learning */
    ns_config_t *ucfg;          /* --config */
    json_object *ucfg_json;
    ns_progtab_t *lprogs;
    ns_learn_t *learn;
    json_object *state;
    ns_history_t **hist;
    int64_t hist_jobs, observed, context;
    json_object *learned;       /* what nodeshare-learn writes */
    int nlearned, nleft;
    char *notes;                /* "not learned: ..." lines */
    size_t notes_len;
    char *table;                /* nodeshare-learn --table */
    size_t table_len;
    /* replay */
    ns_config_t *rcfg;          /* learned figures + --config settings */
    ns_interf_t *rmodel;
    ns_progtab_t *rprogs;
    ns_simjob_t *jobs;
    int64_t njobs, jobs_read, skipped;
    double t_first, t_last;     /* first submission, last end (Unix s) */
    int nodes;
    struct ns_rep_prog *ps;     /* per replay program, + unknown last */
    int nps;
    struct ns_rep_run rp[3];    /* pack, the policy, the policy with the
                                   learned figures 2 se against it */
    int pessimistic;            /* rp[2] ran (a figure was learned) */
    ns_sconf_t *machine;        /* --slurm-conf */
    ns_nodenames_t *names;      /* node names, whole */
    int64_t names_outside;      /* names the slurm.conf lacks */
    char *pnames[NS_REP_MAX_PARTS];  /* partitions: the slurm.conf's
                                       first */
    int npnames;
    struct ns_rep_part parts[NS_REP_MAX_PARTS + 1]; /* + unknown last */
    double node_h;              /* node-hours the jobs held (history) */
    ns_nodefail_t nf;           /* NODE_FAIL jobs in the dumps */
    int64_t striped;            /* jobs striped by the policy */
    double extra_node_h;        /* node-hours striping adds */
    int64_t differ, shape_differ, cot_differ, never_differ;
    int64_t rule_n[NS_REP_NRULES];
    int64_t why_n[NS_PACK_KINDS];
    int64_t compared;
    /* shadow */
    struct ns_rep_shadow sh;
    /* output */
    int tty;
    const char *start;          /* the nodeshare.json to start with, as
                                   text (set by the caller) */
    char err[1024];             /* the last error, one line */
};

/* ---- rep_load.c: the inputs, learning, the replay's configuration ---- */

/* One line "nodeshare-report: ..." in r->err; returns -1. */
int ns_rep_errf (struct ns_rep *r, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* A progress line on stderr, unless o.quiet (redrawn on a terminal). */
void ns_rep_progress_line (struct ns_rep *r, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* --slurm-conf, --state, --config.  -1: a file cannot be used; -2: the
 * configuration is wrong (the program exits 2). */
int ns_rep_load_inputs (struct ns_rep *r);

/* Dump I is "-": stdin copied to a temporary file (it is read twice),
 * r->spooled, removed by ns_rep_free (). */
int ns_rep_spool_stdin (struct ns_rep *r, int i);

/* The figures fitted from every dump (ns_learn_fit ()); r->learn. */
int ns_rep_learn_all (struct ns_rep *r);

/* The replay's configuration: --config with r->learned's figures put in
 * (the caller sets r->learned, as nodeshare-learn writes it). */
int ns_rep_replay_config (struct ns_rep *r);

/* The NODE_FAIL jobs of the dumps (unless a rate was given). */
int ns_rep_node_failures (struct ns_rep *r);

/* Deep copy, NULL stays NULL; -1 if out of memory. */
int ns_rep_copy_json (json_object *v, json_object **out);

/* Frees what r holds (not r); removes the spooled stdin. */
void ns_rep_free (struct ns_rep *r);

/* ---- rep_replay.c ---- */

/* The jobs of the dumps replayed under pack, under the policy, and under
 * the policy with every learned figure two standard errors against it;
 * the jobs placed differently counted. */
int ns_rep_replay_all (struct ns_rep *r);

/* ---- rep_shadow.c ---- */

/* Every --shadow file or pattern, with its rotated files, counted in
 * r->sh. */
int ns_rep_read_shadow (struct ns_rep *r);

/* The shadow records' period and what rotation dropped of them: in the
 * HTML report sentences of a paragraph, in the text report a line each. */
void ns_rep_shadow_span (FILE *f, const struct ns_rep_shadow *s, int html);

/* ---- rep_findings.c: what the text and the HTML both say ---- */

/* The replay's rows: label, the value of pack and of the policy. */
struct ns_rep_row {
    const char *label;
    double v[2];
    int kind;           /* 0 duration, 1 %.2f, 2 count, 3 %.1f, 4 share */
};

/* How the policy placed a job, in words. */
const char *ns_rep_rule_what (int rule);
/* Program p of the replay's table; the last: "(no name)". */
const char *ns_rep_prog_name (const struct ns_rep *r, int p);
/* The programs that have jobs, in order of core-hours (largest first,
 * then in table order), then -1; malloc'd, NULL if out of memory. */
int *ns_rep_prog_order (const struct ns_rep *r);
/* Core-seconds of every job (1 if none). */
double ns_rep_total_core_s (const struct ns_rep *r);
/* "YYYY-MM-DD HH:MM" (UTC). */
void ns_rep_fmt_time (char *buf, size_t size, double t);
/* "N s", "N.N min" or "N.NN h". */
void ns_rep_fmt_dur (char *buf, size_t size, double s);
/* The replay's rows (at most 16); their count. */
int ns_rep_replay_table (const struct ns_rep *r, struct ns_rep_row *rows);
/* Value k (0 pack, 1 the policy) of a row, formatted. */
void ns_rep_fmt_val (char *buf, size_t size, const struct ns_rep_row *w,
                     int k);
/* The findings in a few sentences, one a line; malloc'd, NULL if out of
 * memory. */
char *ns_rep_summary (const struct ns_rep *r);
/* What an administrator can act on before enabling, one item a line;
 * malloc'd, NULL if out of memory. */
char *ns_rep_act_on (const struct ns_rep *r);
/* What nodeshare-learn writes with the scope to start with: the
 * partitions where the replay gains, or shadow mode; NULL if out of
 * memory.  The caller puts it. */
json_object *ns_rep_start_config (const struct ns_rep *r);

/* ---- rep_text.c, rep_html.c ---- */

/* The report as text. */
void ns_rep_write_text (const struct ns_rep *r, FILE *f);

/* The sections of the report in order, each written by its style's
 * function (rep_text.c's and rep_html.c's): the heading, "Before
 * enabling" and "In short", 1. programs, 2. figures, 3. the replay, 4.
 * placements that differ, 5. the shadow records (when given), and the
 * nodeshare.json to start with under the next number. */
struct ns_rep_style {
    void (*heading) (const struct ns_rep *r, FILE *f);
    void (*items) (FILE *f, const char *head, char *text);
    void (*programs) (const struct ns_rep *r, const int *ord, FILE *f);
    void (*figures) (const struct ns_rep *r, FILE *f);
    void (*replay) (const struct ns_rep *r, FILE *f);
    void (*differ) (const struct ns_rep *r, const int *ord, FILE *f);
    void (*shadow) (const struct ns_rep *r, FILE *f);
    void (*start) (const struct ns_rep *r, int section, FILE *f);
};
void ns_rep_write (const struct ns_rep *r, const struct ns_rep_style *s,
                   FILE *f);
/* The report as one HTML file with inline SVG charts, no script. */
void ns_rep_write_html (const struct ns_rep *r, FILE *f);

#endif /* !NODESHARE_REP_H */
