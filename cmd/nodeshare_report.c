/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeshare-report - what a cluster's own history says about adopting
 * nodeshare: which programs run most, the interference figures learned
 * from it (model/learn.h, printed as nodeshare-learn prints them), the
 * replay of the same jobs under pack and under the configured policy
 * with those figures (sim/engine.h), the jobs the policy places
 * differently and why, the select plugin's shadow records (sim/shadow.h)
 * and the nodeshare.json to start with.  Text on stdout, and one
 * self-contained HTML file with inline SVG charts (--html).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <json-c/json_util.h>

#include "cmdline.h"
#include "compare.h"
#include "engine.h"
#include "history.h"
#include "identity.h"
#include "learn.h"
#include "learned.h"
#include "nsconfig.h"
#include "nodefail.h"
#include "nsutil.h"
#include "progtab.h"
#include "report.h"
#include "shadow.h"
#include "slurmconf.h"
#include "trace.h"
#include "workload.h"
#include "nsranges.h"

#define PROG "nodeshare-report"
#define MAX_SHADOW 64
#define MAX_SHADOW_FILES 4096
#define HOURS_PER_YEAR 8766.0
#define MAX_PARTS 256

#define die(...) ns_cmd_die (PROG, __VA_ARGS__)

static void usage (FILE *f)
{
    fprintf (f,
"Usage: nodeshare-report [OPTIONS] (--cores C | --slurm-conf FILE) DUMP...\n"
"What the cluster's own job history says about placing its jobs with\n"
"nodeshare: the programs that run most, the interference figures learned\n"
"from the history (as nodeshare-learn learns them) and how sure they are,\n"
"the replay of the same jobs under pack (stock Slurm) and under the\n"
"configured policy with those figures, the jobs placed differently and\n"
"why, the select plugin's shadow records, and the nodeshare.json to\n"
"start with.  A DUMP is the output of sacct --parsable2 (plain or gzip,\n"
"'-' for stdin) as nodeshare-learn and nodeshare-sim read it; several\n"
"dumps are one cluster's history, replayed as one queue.\n"
"\n"
"  -C, --cores C            cores of one node (sacct does not say; not with\n"
"                           --slurm-conf)\n"
"  -n, --nodes N            nodes of the machine replayed (default: the\n"
"                           distinct node names in the dumps)\n"
"  -S, --slurm-conf FILE    the machine as slurm.conf describes it: node\n"
"                           types (cores, memory, weights, features),\n"
"                           partitions; jobs run in their partitions\n"
"  -c, --config FILE        nodeshare.json: its identity patterns map job\n"
"                           names to programs; the replay runs it with the\n"
"                           learned figures in place of its own\n"
"  -p, --policy P           the policy compared with pack (default: the\n"
"                           configuration's, twins without one)\n"
"      --min-observations N jobs needed per figure (default 5)\n"
"      --min-exposure F     fraction of a job's run that counts as exposed\n"
"                           (default 0.05)\n"
"      --max-se X           figures less certain stay neutral (default 0.05)\n"
"      --state FILE         also what the select plugin has learned so far\n"
"                           (StateSaveLocation/nodeshare-learn.json)\n"
"      --shadow FILE        the select plugin's shadow records (JSON lines,\n"
"                           plain or gzip; its rotated files FILE.N(.gz)\n"
"                           are read too, oldest first; repeatable; a\n"
"                           quoted pattern: the files it matches)\n"
"      --node-failures-per-year F\n"
"                           node failures a node has in a year (default:\n"
"                           from the NODE_FAIL jobs of the dumps)\n"
"      --calibration-repeats N\n"
"                           runs of each shape a calibration takes\n"
"                           (default 3, as nodeshare-calibrate)\n"
"      --html FILE          also the report as one HTML file with charts\n"
"      --json-out FILE      the nodeshare.json to start with, as a file\n"
"  -o, --output FILE        the text report there (default stdout)\n"
"  -q, --quiet              no progress on stderr\n"
"  -h, --help               this help\n"
"  -V, --version            print the version\n"
"\n"
"Exit status: 0 report written, 1 no usable job or a file cannot be read\n"
"or written, 2 bad usage.  See nodeshare-report(1).\n");
}

struct opts {
    int cores, nodes;
    const char *config, *policy, *state, *html, *json_out, *output;
    const char *slurm_conf;
    double fail_per_year;       /* < 0: from the dumps */
    int repeats;
    const char *shadow[MAX_SHADOW];
    int nshadow;
    int quiet;
    ns_learn_opts_t lo;
};

/* What the history holds, per program of the replay's table. */
struct progstat {
    int64_t jobs, completed;
    double core_s;          /* AllocCPUS x elapsed */
    double run_s;
    int64_t differ;         /* placed differently by the policy */
    int64_t shadow, shadow_differ;
};

#define NRULES (NS_RULE_PACK + 1)

struct replay {
    char name[64];
    ns_metrics_t m;
    double held_core_h, busy_core_h;
};

/* Per partition, pack [0] and the policy [1]: core-hours the jobs held
 * (cores x elapsed) and their turnaround (end - submit). */
struct partstat {
    int64_t jobs;
    double core_h[2], turn_s[2];
};

struct shadow_sum {
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

struct rep {
    struct opts o;
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
    struct progstat *ps;        /* per replay program, + unknown last */
    int nps;
    struct replay rp[3];        /* pack, the policy, the policy with the
                                   learned figures 2 se against it */
    int pessimistic;            /* rp[2] ran (a figure was learned) */
    ns_sconf_t *machine;        /* --slurm-conf */
    ns_nodenames_t *names;      /* node names, whole */
    int64_t names_outside;      /* names the slurm.conf lacks */
    char *pnames[MAX_PARTS];    /* partitions: the slurm.conf's first */
    int npnames;
    struct partstat parts[MAX_PARTS + 1];   /* + unknown last */
    double node_h;              /* node-hours the jobs held (history) */
    ns_nodefail_t nf;           /* NODE_FAIL jobs in the dumps */
    int64_t striped;            /* jobs striped by the policy */
    double extra_node_h;        /* node-hours striping adds */
    int64_t differ, shape_differ, cot_differ, never_differ;
    int64_t rule_n[NRULES];
    int64_t why_n[NS_PACK_KINDS];
    int64_t compared;
    /* shadow */
    struct shadow_sum sh;
    /* output */
    int tty;
};

/* ---- small helpers ---- */

static int parse_num (const char *opt, const char *s, double lo, double hi,
                      int integer, double *out)
{
    char *end;
    errno = 0;
    double v = strtod (s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi)
        || (integer && v != floor (v))) {
        if (integer)
            return die ("%s '%s': expected an integer %.0f..%.0f", opt, s, lo,
                        hi);
        return die ("%s '%s': expected a number in [%g, %g]", opt, s, lo, hi);
    }
    *out = v;
    return 0;
}

static void progress_line (struct rep *r, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
static void progress_line (struct rep *r, const char *fmt, ...)
{
    if (r->o.quiet)
        return;
    char buf[512];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    if (r->tty)
        fprintf (stderr, "\r%-79.79s\n", buf);
    else
        fprintf (stderr, PROG ": %s\n", buf);
}

/* A report file: a symbolic link at the name is refused, not followed. */
static FILE *open_out (const char *path)
{
    if (strcmp (path, "-") == 0)
        return stdout;
    int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW
                         | O_CLOEXEC, 0666);
    if (fd < 0) {
        die ("%s: %s", path, errno == ELOOP
             ? "is a symbolic link: refusing to write through it"
             : strerror (errno));
        return NULL;
    }
    FILE *f = fdopen (fd, "w");
    if (!f) {
        die ("%s: %s", path, strerror (errno));
        close (fd);
    }
    return f;
}

static int close_out (FILE *f, const char *path)
{
    if (f == stdout)
        return fflush (f) == 0 ? 0 : die ("stdout: %s", strerror (errno));
    if (ferror (f) | fclose (f))
        return die ("%s: write failed: %s", path, strerror (errno));
    return 0;
}

/* "-": stdin is read twice (the learner's reader and the replay's), so it
 * is copied to a file first. */
static int spool_stdin (struct rep *r, int i)
{
    if (r->spooled)
        return die ("'-' (stdin) given twice");
    const char *dir = getenv ("TMPDIR");
    char path[4096];
    snprintf (path, sizeof (path), "%s/nodeshare-report.XXXXXX",
              dir && *dir ? dir : "/tmp");
    int fd = mkstemp (path);
    if (fd < 0)
        return die ("%s: %s", path, strerror (errno));
    r->spooled = strdup (path);
    char buf[65536];
    ssize_t n;
    while ((n = read (STDIN_FILENO, buf, sizeof (buf))) > 0)
        if (write (fd, buf, (size_t)n) != n) {
            close (fd);
            return die ("%s: %s", path, strerror (errno));
        }
    close (fd);
    if (n < 0)
        return die ("stdin: %s", strerror (errno));
    r->dumps[i] = r->spooled;
    return 0;
}

/* ---- learning: what nodeshare-learn does ---- */

static int learn_all (struct rep *r)
{
    ns_error_t err;
    r->lprogs = r->ucfg ? ns_progtab_copy (ns_config_progtab (r->ucfg))
                        : ns_progtab_create ();
    r->learn = ns_learn_create (r->o.cores, &err);
    r->hist = calloc (r->ndumps, sizeof (*r->hist));
    if (!r->lprogs || !r->learn || !r->hist)
        return die ("out of memory");
    if (r->state && ns_learn_load (r->learn, r->state, r->lprogs, &err) < 0)
        return die ("%s: %s", r->o.state, err.text);
    for (int i = 0; i < r->ndumps; i++) {
        const char *path = r->dumps[i];
        progress_line (r, "%s: reading the history", path);
        r->hist[i] = ns_history_read (path, r->ucfg
                                      ? ns_config_identity (r->ucfg) : NULL,
                                      r->lprogs, &err);
        if (!r->hist[i])
            return die ("%s", err.text);
        int n;
        const ns_learn_job_t *jobs = ns_history_jobs (r->hist[i], &n);
        r->hist_jobs += n;
        r->observed += ns_history_observed (r->hist[i]);
        r->context += ns_history_context (r->hist[i]);
        if (ns_learn_add_history (r->learn, jobs, n, &err) < 0)
            return die ("%s: %s", path, err.text);
    }
    int observed = 0;
    for (int p = 0; p < ns_progtab_count (r->lprogs); p++)
        observed += ns_learn_njobs (r->learn, p);
    if (observed == 0)
        return die ("no completed job with a known program and a node list "
                    "in %s%s", r->dumps[0],
                    r->ndumps > 1 ? " and the other dumps" : "");
    progress_line (r, "learning the figures from %d completed jobs",
                   observed);
    if (ns_learn_fit (r->learn, &r->o.lo, &err) < 0)
        return die ("%s", err.text);
    FILE *notes = open_memstream (&r->notes, &r->notes_len);
    if (!notes)
        return die ("out of memory");
    struct ns_learned_input in = {
        .prog = PROG,
        .cores = r->o.cores,
        .histories = r->ndumps,
        .lo = &r->o.lo,
        .notes = notes,
    };
    r->learned = ns_learned_json (r->learn, r->lprogs, &in, &r->nlearned,
                                  &r->nleft);
    if (fclose (notes) != 0 || !r->learned)
        return die ("out of memory");
    FILE *t = open_memstream (&r->table, &r->table_len);
    if (!t)
        return die ("out of memory");
    ns_learned_table (r->learn, r->lprogs, t);
    if (fclose (t) != 0)
        return die ("out of memory");
    return 0;
}

/* Deep copy, NULL stays NULL; -1 if out of memory. */
static int copy_json (json_object *v, json_object **out)
{
    *out = NULL;
    return v && (json_object_deep_copy (v, out, NULL) < 0 || !*out) ? -1 : 0;
}

/* The replay's configuration: --config (its settings and figures) with
 * every learned figure put in, the learned ones winning; without
 * --config, the learned figures alone. */
static int replay_config (struct rep *r)
{
    ns_error_t err;
    json_object *root = NULL, *lp, *progs = NULL;
    int oom = 0;
    if (r->ucfg_json) {
        oom |= copy_json (r->ucfg_json, &root);
        json_object_object_del (root, "learned");
    } else
        root = json_object_new_object ();
    if (!root)
        return die ("out of memory");
    if (!json_object_object_get_ex (root, "programs", &progs) || !progs
        || !json_object_is_type (progs, json_type_object)) {
        progs = json_object_new_object ();
        json_object_object_add (root, "programs", progs);
    }
    json_object_object_get_ex (r->learned, "programs", &lp);
    json_object_object_foreach (lp, name, fig) {
        json_object *dst;
        if (!json_object_object_get_ex (progs, name, &dst) || !dst
            || !json_object_is_type (dst, json_type_object)) {
            dst = json_object_new_object ();
            json_object_object_add (progs, name, dst);
        }
        json_object_object_foreach (fig, k, v) {
            json_object *sl;
            if (strcmp (k, "slowdown") == 0
                && json_object_object_get_ex (dst, "slowdown", &sl) && sl
                && json_object_is_type (sl, json_type_object)) {
                json_object_object_foreach (v, q, x) {
                    json_object *c;
                    oom |= copy_json (x, &c);
                    json_object_object_add (sl, q, c);
                }
                continue;
            }
            json_object *c;
            oom |= copy_json (v, &c);
            json_object_object_add (dst, k, c);
        }
    }
    if (oom) {
        json_object_put (root);
        return die ("out of memory");
    }
    r->rcfg = ns_config_load_string (json_object_to_json_string (root),
                                     r->o.config ? r->o.config
                                                 : "the learned figures",
                                     &err);
    json_object_put (root);
    if (!r->rcfg)
        return die ("the learned figures with %s: %s",
                    r->o.config ? r->o.config : "no configuration", err.text);
    r->rprogs = ns_config_progtab (r->rcfg);
    r->rmodel = ns_interf_copy (ns_config_interf (r->rcfg));
    if (!r->rmodel)
        return die ("out of memory");
    return 0;
}

/* ---- the replay: what nodeshare-sim does with a sacct trace ---- */

static int cmp_submit (const void *a, const void *b)
{
    const ns_simjob_t *x = a, *y = b;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* 1 + the partition's index (the slurm.conf's first), 0 unknown. */
static int partition_of (struct rep *r, const ns_tjob_t *j)
{
    char name[NS_TJOB_PROGRAM_MAX];
    ns_workload_partition (j, name, sizeof (name));
    if (!name[0])
        return 0;
    for (int i = 0; i < r->npnames; i++)
        if (strcmp (r->pnames[i], name) == 0)
            return i + 1;
    if (r->npnames == MAX_PARTS || !(r->pnames[r->npnames] = strdup (name)))
        return 0;
    return ++r->npnames;
}

static int load_jobs (struct rep *r)
{
    int64_t cap = 0;
    int *nodes = malloc (sizeof (int) * NS_JOB_NODES_MAX);
    if (!nodes)
        return die ("out of memory");
    r->t_first = INFINITY;
    r->t_last = -INFINITY;
    for (int i = 0; i < r->ndumps; i++) {
        ns_error_t err = { "" };
        ns_trace_t *t = ns_trace_open (r->dumps[i], NS_TRACE_SACCT, 0, &err);
        if (!t) {
            free (nodes);
            return die ("%s", err.text);
        }
        ns_tjob_t j;
        int rc;
        while ((rc = ns_trace_next (t, &j, &err)) == 1) {
            r->jobs_read++;
            if (r->njobs == cap) {
                cap = cap ? cap * 2 : 4096;
                ns_simjob_t *nj = realloc (r->jobs, sizeof (*nj) * cap);
                if (!nj) {
                    rc = -1;
                    die ("out of memory");
                    break;
                }
                r->jobs = nj;
            }
            ns_simjob_t *sj = &r->jobs[r->njobs++];
            *sj = ns_workload_simjob (
                &j, ns_workload_program (
                        r->ucfg ? ns_config_identity (r->ucfg) : NULL,
                        r->rprogs, &j));
            if (!r->machine)
                sj->mem_per_cpu = sj->mem_per_node = 0;
            /* past the slurm.conf's partitions: its default one */
            sj->partition = partition_of (r, &j);
            if ((double)j.submit < r->t_first)
                r->t_first = (double)j.submit;
            double end = (double)j.submit + (j.wait > 0 ? j.wait : 0) + j.run;
            if (end > r->t_last)
                r->t_last = end;
            if (j.nodelist[0]) {
                ns_error_t e;
                /* whole names: gpu01 and cn001 are two nodes */
                int nn = ns_nodelist_names (j.nodelist, r->names, 0, nodes,
                                            NS_JOB_NODES_MAX, &e);
                /* a list that does not parse is counted by the learner's
                 * reader; the replay needs only the machine's size */
                if (nn > 0)
                    r->node_h += (double)nn * (double)j.run / 3600;
            } else if (j.nodes > 0)
                r->node_h += (double)j.nodes * (double)j.run / 3600;
        }
        if (rc < 0 && err.text[0])
            die ("%s", err.text);
        r->skipped += (int64_t)ns_trace_skips (t)->skipped;
        ns_trace_close (t);
        if (rc < 0) {
            free (nodes);
            return -1;
        }
    }
    free (nodes);
    if (r->njobs == 0)
        return die ("%s: no usable job to replay", r->dumps[0]);
    qsort (r->jobs, r->njobs, sizeof (*r->jobs), cmp_submit);
    r->nodes = ns_nodenames_count (r->names);
    if (r->machine) {
        r->names_outside = r->nodes - r->machine->nnodes;
        r->nodes = r->machine->nnodes;
    } else if (r->o.nodes) {
        if (r->o.nodes < r->nodes)
            return die ("--nodes %d: the dumps name %d distinct nodes",
                        r->o.nodes, r->nodes);
        r->nodes = r->o.nodes;
    }
    if (r->nodes == 0)
        return die ("no NodeList in the dumps: give --nodes N");
    /* per program */
    r->nps = ns_progtab_count (r->rprogs) + 1;
    r->ps = calloc (r->nps, sizeof (*r->ps));
    if (!r->ps)
        return die ("out of memory");
    for (int64_t i = 0; i < r->njobs; i++) {
        const ns_simjob_t *j = &r->jobs[i];
        struct progstat *p = &r->ps[j->program >= 0 ? j->program
                                                    : r->nps - 1];
        p->jobs++;
        p->core_s += j->runtime * j->ntasks;
        p->run_s += j->runtime;
    }
    return 0;
}

struct prog_arg {
    struct rep *r;
    const char *name;
    int quarter;            /* not a terminal: quarters said */
};

/* On a terminal, one line redrawn every 2000 jobs; else (a log) one line
 * per quarter of the jobs. */
static void sim_progress (ns_sim_t *sim, int done, int total, void *arg)
{
    struct prog_arg *a = arg;
    (void)sim;
    if (a->r->tty) {
        fprintf (stderr, "\rreplaying under %s: %d of %d jobs (%.0f%%)   ",
                 a->name, done, total, total ? 100.0 * done / total : 0.0);
        return;
    }
    int q = total ? (int)(4LL * done / total) : 0;
    if (q > a->quarter && q < 4) {
        a->quarter = q;
        fprintf (stderr, PROG ": replaying under %s: %d of %d jobs\n",
                 a->name, done, total);
    }
}

static int run_one (struct rep *r, int k, const ns_policy_t *pol,
                    const ns_interf_t *model, ns_sim_t **out)
{
    ns_error_t err;
    ns_simconf_t conf = {
        .policy = *pol,
        .backfill = NS_BACKFILL_EASY,
        .overrun = NS_OVERRUN_KILL,
        .nnodes = r->nodes,
        .cores = r->o.cores,
        .model = model,
        .progs = r->rprogs,
        .machine = r->machine,
    };
    ns_sim_t *sim = ns_sim_create (&conf, &err);
    if (!sim)
        return die ("%s", err.text);
    *out = sim;
    struct prog_arg pa = { r, r->rp[k].name, 0 };
    if (!r->o.quiet)
        ns_sim_set_progress (sim, sim_progress, 2000, &pa);
    double last = r->jobs[0].submit;
    for (int64_t i = 0; i < r->njobs; i++) {
        if (ns_sim_add (sim, &r->jobs[i], &err) < 0)
            return die ("%s", err.text);
        if (r->jobs[i].submit + r->jobs[i].runtime > last)
            last = r->jobs[i].submit + r->jobs[i].runtime;
    }
    ns_timeline_t tl;
    ns_timeline_init (&tl, r->jobs[0].submit, last,
                      (double)r->nodes * r->o.cores);
    ns_sim_set_usage_hook (sim, ns_timeline_hook, &tl);
    struct timespec t0, t1;
    clock_gettime (CLOCK_MONOTONIC, &t0);
    if (ns_sim_run (sim, -1, &err) < 0)
        return die ("%s: %s", r->rp[k].name, err.text);
    clock_gettime (CLOCK_MONOTONIC, &t1);
    ns_metrics_t *m = &r->rp[k].m;
    if (ns_metrics_compute (sim, 0, m) < 0)
        return die ("out of memory");
    /* Both arrays are 64 bytes (strlen < 64); memcpy, as GCC's -Wrestrict
     * at -O1 takes two members of *r for one object under snprintf. */
    _Static_assert (sizeof (m->policy) == sizeof (r->rp[k].name),
                    "policy and name arrays differ in size");
    memcpy (m->policy, r->rp[k].name, sizeof (m->policy));
    m->load = -1;
    m->wall_s = (double)(t1.tv_sec - t0.tv_sec)
                + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    ns_timeline_finish (&tl, m);
    const ns_simstats_t *st = ns_sim_stats (sim);
    r->rp[k].held_core_h = st->held_core_seconds / 3600.0;
    r->rp[k].busy_core_h = st->busy_core_seconds / 3600.0;
    if (!r->o.quiet && r->tty)
        fprintf (stderr, "\r%79s\r", "");
    progress_line (r, "replayed %lld jobs under %s in %.1f s",
                   (long long)r->njobs, r->rp[k].name, m->wall_s);
    return 0;
}

/* Jobs the policy placed otherwise than pack: another shape (nodes and
 * cores per node) or other co-tenant programs at start. */
static int compare_runs (struct rep *r, ns_sim_t *pack, ns_sim_t *pol)
{
    ns_cotenants_t ca = { 0 }, cb = { 0 };
    ns_error_t err;
    if (ns_sim_cotenants (pack, &ca, &err) < 0
        || ns_sim_cotenants (pol, &cb, &err) < 0) {
        ns_cotenants_free (&ca);
        return die ("%s", err.text);
    }
    for (int i = 0; i < ns_sim_njobs (pol); i++) {
        const ns_simresult_t *a = ns_sim_result (pack, i);
        const ns_simresult_t *b = ns_sim_result (pol, i);
        int ran_a = a->state == NS_SJ_DONE || a->state == NS_SJ_RUNNING;
        int ran_b = b->state == NS_SJ_DONE || b->state == NS_SJ_RUNNING;
        if (!ran_a && !ran_b)
            continue;
        r->compared++;
        const ns_simjob_t *sj = ns_sim_job (pol, i);
        struct partstat *ps = &r->parts[sj->partition > 0
                                        ? sj->partition - 1 : MAX_PARTS];
        if (ran_a && ran_b) {
            ps->jobs++;
            ps->core_h[0] += sj->ntasks * (a->end - a->start) / 3600;
            ps->core_h[1] += sj->ntasks * (b->end - b->start) / 3600;
            ps->turn_s[0] += a->end - sj->submit;
            ps->turn_s[1] += b->end - sj->submit;
        }
        if (ran_b && b->striped) {
            /* a striped job depends on more nodes than packed */
            r->striped++;
            int na = ran_a ? a->nodes : 1;
            if (b->nodes > na)
                r->extra_node_h += (b->nodes - na) * (b->end - b->start)
                                   / 3600;
        }
        int same;
        if (ran_a != ran_b) {
            same = 0;
            r->never_differ++;
        } else {
            int na, nb;
            const ns_share_t *sa = ns_sim_job_shares (pack, i, &na);
            const ns_share_t *sb = ns_sim_job_shares (pol, i, &nb);
            char ha[64], hb[64];
            ns_shape_format (sa, na, ha, sizeof (ha));
            ns_shape_format (sb, nb, hb, sizeof (hb));
            int same_shape = strcmp (ha, hb) == 0;
            int same_cot = ns_cotenants_equal (&ca, i, &cb, i);
            same = same_shape && same_cot;
            r->shape_differ += !same_shape;
            r->cot_differ += same_shape && !same_cot;
        }
        if (same)
            continue;
        r->differ++;
        if (ran_b && b->rule < NRULES) {
            r->rule_n[b->rule]++;
            if (b->rule == NS_RULE_PACK && b->why < NS_PACK_KINDS)
                r->why_n[b->why]++;
        }
        const ns_simjob_t *j = ns_sim_job (pol, i);
        r->ps[j->program >= 0 ? j->program : r->nps - 1].differ++;
    }
    ns_cotenants_free (&ca);
    ns_cotenants_free (&cb);
    return 0;
}

/* A copy of the replay's model with each learned figure two standard
 * errors against nodeshare; NULL when no figure was learned. */
static ns_interf_t *pessimistic_model (struct rep *r)
{
    ns_interf_t *m = ns_interf_copy (r->rmodel);
    int np = ns_progtab_count (r->lprogs), changed = 0;
    for (int p = 0; m && p < np; p++) {
        int rp = ns_progtab_lookup (r->rprogs,
                                    ns_progtab_name (r->lprogs, p));
        if (rp < 0)
            continue;
        ns_learn_fig_t g = ns_learn_speedup (r->learn, p);
        if (g.learned && !isnan (g.se)) {
            double v = g.value - 2 * g.se;
            changed += ns_interf_set_speedup (m, rp, v > 0.1 ? v : 0.1,
                                              NULL) == 0;
        }
        for (int q = 0; q < np; q++) {
            ns_learn_fig_t h = ns_learn_slowdown (r->learn, p, q);
            int rq = ns_progtab_lookup (r->rprogs,
                                        ns_progtab_name (r->lprogs, q));
            if (h.learned && !isnan (h.se) && rq >= 0)
                changed += ns_interf_set_slowdown (m, rp, rq,
                                                   h.value + 2 * h.se,
                                                   NULL) == 0;
        }
    }
    if (!changed) {
        ns_interf_destroy (m);
        return NULL;
    }
    return m;
}

static int replay_all (struct rep *r)
{
    ns_error_t err;
    ns_policy_t pols[2];
    pols[0] = *ns_config_policy (r->rcfg);
    pols[1] = *ns_config_policy (r->rcfg);
    if (ns_policy_parse (&pols[0], "pack", r->rprogs, &err) < 0)
        return die ("%s", err.text);
    if (r->o.policy && ns_policy_parse (&pols[1], r->o.policy, r->rprogs,
                                        &err) < 0)
        return die ("--policy: %s", err.text);
    for (int k = 0; k < 2; k++)
        ns_policy_name (&pols[k], r->rprogs, r->rp[k].name,
                        sizeof (r->rp[k].name));
    if (load_jobs (r) < 0)
        return -1;
    ns_sim_t *sims[3] = { NULL, NULL, NULL };
    int rc = 0;
    for (int k = 0; k < 2 && rc == 0; k++)
        rc = run_one (r, k, &pols[k], r->rmodel, &sims[k]);
    /* the uncertainty: the policy again with every learned figure two
     * standard errors against it (speedups lower, slowdowns higher) */
    ns_interf_t *worse = rc == 0 ? pessimistic_model (r) : NULL;
    if (worse) {
        snprintf (r->rp[2].name, sizeof (r->rp[2].name), "%.40s, -2 se",
                  r->rp[1].name);
        rc = run_one (r, 2, &pols[1], worse, &sims[2]);
        r->pessimistic = rc == 0;
        ns_interf_destroy (worse);
        ns_sim_destroy (sims[2]);
    }
    if (rc == 0) {
        ns_metrics_t m[2] = { r->rp[0].m, r->rp[1].m };
        ns_metrics_ratios (m, 2, "pack");
        r->rp[0].m.throughput_ratio = m[0].throughput_ratio;
        r->rp[1].m.throughput_ratio = m[1].throughput_ratio;
        rc = compare_runs (r, sims[0], sims[1]);
    }
    ns_sim_destroy (sims[0]);
    ns_sim_destroy (sims[1]);
    return rc;
}

/* ---- node failures ---- */

/* NODE_FAIL jobs of every dump (unless a rate was given). */
static int node_failures (struct rep *r)
{
    if (r->o.fail_per_year >= 0)
        return 0;
    for (int i = 0; i < r->ndumps; i++) {
        ns_nodefail_t nf;
        ns_error_t err;
        if (ns_nodefail_read (r->dumps[i], &nf, &err) < 0)
            return die ("%s", err.text);
        r->nf.jobs += nf.jobs;
        r->nf.node_fail += nf.node_fail;
    }
    return 0;
}

/* ---- shadow records ---- */

static int slot (char (*names)[48], int64_t *counts, int *n, int max,
                 const char *name)
{
    int k;
    for (k = 0; k < *n && strcmp (names[k], name) != 0; k++)
        ;
    if (k == *n) {
        if (*n == max)
            k = max - 1;     /* the last slot gathers the rest */
        else {
            snprintf (names[k], 48, "%s", name);
            (*n)++;
        }
    }
    counts[k]++;
    return k;
}

static int shadow_rec (const ns_shadow_rec_t *rec, int64_t line, void *arg,
                       ns_error_t *err)
{
    struct shadow_sum *s = arg;
    (void)line;
    (void)err;
    if (rec->dropped[0]) {
        s->dropped_files++;
        if (rec->dropped_records > 0)
            s->dropped_records += rec->dropped_records;
        if (rec->dropped_last > s->dropped_last)
            s->dropped_last = rec->dropped_last;
        return 0;
    }
    s->records++;
    if (rec->time >= 0) {
        if (s->first_time < 0 || rec->time < s->first_time)
            s->first_time = rec->time;
        if (rec->time > s->last_time)
            s->last_time = rec->time;
    }
    int k;
    const char *pn = rec->program[0] ? rec->program : "?";
    for (k = 0; k < s->nprogs && strcmp (s->progs[k], pn) != 0; k++)
        ;
    if (k == s->nprogs) {
        if (s->nprogs == 64)
            k = 63;
        else
            snprintf (s->progs[s->nprogs++], NS_SHADOW_TEXT_MAX, "%s", pn);
    }
    s->prog_n[k]++;
    if (!rec->differs)
        return 0;
    s->differ++;
    s->prog_d[k]++;
    slot (s->rules, s->rule_n, &s->nrules, 32,
          rec->rule[0] ? rec->rule : "?");
    slot (s->woulds, s->would_n, &s->nwoulds, 32,
          rec->would[0] ? rec->would : "?");
    if (!s->first_why[0] && rec->why[0]) {
        snprintf (s->first_why, sizeof (s->first_why), "%s", rec->why);
        s->first_why_job = rec->job;
    }
    return 0;
}

/* Oldest first: the highest rotation number first, live files last. */
static int cmp_rotated (const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    int nx = ns_shadow_rotated_number (x), ny = ns_shadow_rotated_number (y);
    return nx != ny ? (nx < ny) - (nx > ny) : strcmp (x, y);
}

/* A --shadow argument with a pattern ('*', '?', '[': quoted, so that
 * the shell leaves it) as the files it matches, oldest first; without
 * one, itself.  The count, or -1 (nothing matches: said). */
static int shadow_args (const char *arg, glob_t *g, char ***out)
{
    static char *one[1];
    if (!strpbrk (arg, "*?[")) {
        one[0] = (char *)arg;
        *out = one;
        return 1;
    }
    int e = glob (arg, 0, NULL, g);
    if (e == GLOB_NOMATCH)
        return die ("--shadow '%s': no file matches", arg);
    if (e != 0)
        return die ("--shadow '%s': %s", arg, e == GLOB_NOSPACE
                    ? "out of memory" : "a directory cannot be read");
    qsort (g->gl_pathv, g->gl_pathc, sizeof (char *), cmp_rotated);
    *out = g->gl_pathv;
    return (int)g->gl_pathc;
}

struct seen {
    char *name[MAX_SHADOW_FILES];
    int n;
};

/* One file and its rotated ones, each unless seen already. */
static int read_shadow_file (struct rep *r, const char *path,
                             struct seen *sn)
{
    ns_error_t err;
    char **files;
    int n = ns_shadow_files (path, &files, &err), rc = 0;
    if (n < 0)
        return die ("%s", err.text);
    for (int k = 0; k < n && rc == 0; k++) {
        int dup = 0;
        for (int j = 0; j < sn->n && !dup; j++)
            dup = strcmp (sn->name[j], files[k]) == 0;
        if (dup)
            continue;
        if (sn->n == MAX_SHADOW_FILES)
            rc = die ("--shadow: more than %d files", MAX_SHADOW_FILES);
        else if (!(sn->name[sn->n++] = strdup (files[k])))
            rc = die ("out of memory");
        else {
            progress_line (r, "%s: reading the shadow records", files[k]);
            if (ns_shadow_read (files[k], shadow_rec, &r->sh, &err) < 0)
                rc = die ("%s", err.text);
        }
    }
    ns_shadow_files_free (files, n);
    return rc;
}

/* Every --shadow FILE (or pattern) with its rotated files, oldest
 * first; a file named twice (FILE and FILE.1.gz both given) is read
 * once. */
static int read_shadow (struct rep *r)
{
    r->sh.first_time = -1;
    r->sh.last_time = -1;
    r->sh.dropped_last = -1;
    struct seen *sn = calloc (1, sizeof (*sn));
    if (!sn)
        return die ("out of memory");
    int rc = 0;
    for (int a = 0; a < r->o.nshadow && rc == 0; a++) {
        glob_t g;
        memset (&g, 0, sizeof (g));
        char **args = NULL;
        int nargs = shadow_args (r->o.shadow[a], &g, &args);
        if (nargs < 0)
            rc = -1;
        for (int i = 0; i < nargs && rc == 0; i++)
            rc = read_shadow_file (r, args[i], sn);
        if (args && args == g.gl_pathv)
            globfree (&g);
    }
    r->sh.nfiles = sn->n;
    for (int j = 0; j < sn->n; j++)
        free (sn->name[j]);
    free (sn);
    return rc;
}

/* ---- text ---- */

static const char *rule_what (int rule)
{
    switch (rule) {
    case NS_RULE_EXCLUSIVE: return "alone on whole nodes";
    case NS_RULE_STRIPE_EMPTY: return "striped over empty nodes";
    case NS_RULE_STRIPE_SHARE: return "striped next to a running job";
    case NS_RULE_AS_ASKED: return "its own shape, as asked";
    case NS_RULE_FALLBACK: return "packed after waiting (fallback)";
    case NS_RULE_PACK: return "packed as stock Slurm packs it";
    default: return "never started";
    }
}

static const char *prog_name (const struct rep *r, int p)
{
    return p < r->nps - 1 ? ns_progtab_name (r->rprogs, p) : "(no name)";
}

static const struct rep *order_rep;     /* prog_order ()'s sort */

static int cmp_ps_desc (const void *a, const void *b)
{
    const struct rep *r = order_rep;
    double x = r->ps[*(const int *)a].core_s, y = r->ps[*(const int *)b].core_s;
    return x < y ? 1 : x > y ? -1 : *(const int *)a - *(const int *)b;
}

/* Programs in order of core-hours, largest first. */
static int *prog_order (struct rep *r)
{
    int *ord = malloc (sizeof (int) * r->nps);
    if (!ord)
        return NULL;
    for (int i = 0; i < r->nps; i++)
        ord[i] = i;
    order_rep = r;
    qsort (ord, r->nps, sizeof (int), cmp_ps_desc);
    return ord;
}

static double total_core_s (const struct rep *r)
{
    double t = 0;
    for (int i = 0; i < r->nps; i++)
        t += r->ps[i].core_s;
    return t > 0 ? t : 1;
}

static void fmt_time (char *buf, size_t size, double t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r (&tt, &tm);
    strftime (buf, size, "%Y-%m-%d %H:%M", &tm);
}

static void fmt_dur (char *buf, size_t size, double s)
{
    if (s < 120)
        snprintf (buf, size, "%.0f s", s);
    else if (s < 7200)
        snprintf (buf, size, "%.1f min", s / 60);
    else
        snprintf (buf, size, "%.2f h", s / 3600);
}

/* The replay's rows: label, the value of pack and of the policy. */
struct row {
    const char *label;
    double v[2];
    int kind;           /* 0 duration, 1 %.2f, 2 count, 3 %.1f, 4 share */
};

static int replay_table (const struct rep *r, struct row *rows)
{
    const ns_metrics_t *a = &r->rp[0].m, *b = &r->rp[1].m;
    int n = 0;
#define ROW(label, kind, x, y) \
    rows[n++] = (struct row){ label, { (double)(x), (double)(y) }, kind }
    ROW ("jobs completed", 2, a->jobs, b->jobs);
    ROW ("mean wait", 0, a->mean_wait_s, b->mean_wait_s);
    ROW ("median wait", 0, a->median_wait_s, b->median_wait_s);
    ROW ("95th percentile wait", 0, a->p95_wait_s, b->p95_wait_s);
    ROW ("mean bounded slowdown", 1, a->mean_bsld, b->mean_bsld);
    ROW ("core-hours held", 3, r->rp[0].held_core_h, r->rp[1].held_core_h);
    ROW ("core-hours used by tasks", 3, r->rp[0].busy_core_h,
         r->rp[1].busy_core_h);
    ROW ("makespan", 0, a->makespan_s, b->makespan_s);
    ROW ("work per hour vs pack", 1,
         isnan (a->throughput_ratio) ? 1.0 : a->throughput_ratio,
         isnan (b->throughput_ratio) ? 1.0 : b->throughput_ratio);
    ROW ("jobs sharing a node", 4, a->shared_fraction, b->shared_fraction);
    ROW ("jobs killed at their limit", 2, a->killed, b->killed);
    ROW ("jobs never fitting", 2, a->never, b->never);
#undef ROW
    return n;
}

static void fmt_val (char *buf, size_t size, const struct row *w, int k)
{
    double v = w->v[k];
    switch (w->kind) {
    case 0: fmt_dur (buf, size, v); break;
    case 1: snprintf (buf, size, "%.2f", v); break;
    case 2: snprintf (buf, size, "%.0f", v); break;
    case 3: snprintf (buf, size, "%.1f", v); break;
    default: snprintf (buf, size, "%.1f%%", 100 * v); break;
    }
}

static double pct_change (double from, double to)
{
    return from != 0 ? 100.0 * (to - from) / from : 0.0;
}

/* The findings in a few sentences, one per line. */
static char *summary (struct rep *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);
    if (!f)
        return NULL;
    const ns_metrics_t *a = &r->rp[0].m, *b = &r->rp[1].m;
    const char *pol = r->rp[1].name;
    char wa[32], wb[32];
    fmt_dur (wa, sizeof (wa), a->mean_wait_s);
    fmt_dur (wb, sizeof (wb), b->mean_wait_s);
    int *ord = prog_order (r);
    if (ord && r->ps[ord[0]].jobs)
        fprintf (f, "%s holds the most core-hours (%.0f%% of %.1f).\n",
                 prog_name (r, ord[0]), 100 * r->ps[ord[0]].core_s
                 / total_core_s (r), total_core_s (r) / 3600);
    free (ord);
    fprintf (f, "%d interference figures learned from %lld completed jobs, "
             "%d left neutral for want of evidence.\n", r->nlearned,
             (long long)r->observed, r->nleft);
    char dw[32] = "", dh[32] = "";
    if (a->mean_wait_s > 0)
        snprintf (dw, sizeof (dw), ", %+.0f%%",
                  pct_change (a->mean_wait_s, b->mean_wait_s));
    if (r->rp[0].held_core_h > 0)
        snprintf (dh, sizeof (dh), ", %+.1f%%",
                  pct_change (r->rp[0].held_core_h, r->rp[1].held_core_h));
    fprintf (f, "Replayed under %s: mean wait %s (pack %s%s), mean bounded "
             "slowdown %.2f (pack %.2f), core-hours held %.1f (pack %.1f%s), "
             "%lld jobs killed at their limit (pack %lld).\n", pol, wb, wa,
             dw, b->mean_bsld, a->mean_bsld, r->rp[1].held_core_h,
             r->rp[0].held_core_h, dh, (long long)b->killed,
             (long long)a->killed);
    fprintf (f, "%s places %lld of %lld jobs (%.1f%%) otherwise than pack.\n",
             pol, (long long)r->differ, (long long)r->compared,
             r->compared ? 100.0 * r->differ / r->compared : 0.0);
    if (r->o.nshadow)
        fprintf (f, "In shadow mode nodeshare would have placed %lld of %lld "
                 "jobs (%.1f%%) otherwise than stock Slurm did.\n",
                 (long long)r->sh.differ, (long long)r->sh.records,
                 r->sh.records ? 100.0 * r->sh.differ / r->sh.records : 0.0);
    if (fclose (f) != 0) {
        free (buf);
        return NULL;
    }
    return buf;
}

/* Partition i shows a gain: fewer core-hours held under the policy and
 * no longer mean turnaround. */
static int part_gains (const struct rep *r, int i)
{
    const struct partstat *p = &r->parts[i];
    return p->jobs > 0 && p->core_h[1] < p->core_h[0] * (1 - 1e-3)
           && p->turn_s[1] <= p->turn_s[0] * (1 + 1e-3);
}

static int ngains (const struct rep *r)
{
    int n = 0;
    for (int i = 0; i < r->npnames; i++)
        n += part_gains (r, i);
    return n;
}

/* What nodeshare-learn writes, with the scope to start with: the
 * partitions where the replay shows gains; none: shadow mode. */
static json_object *start_config (const struct rep *r)
{
    json_object *root = NULL;
    if (copy_json (r->learned, &root) < 0 || !root)
        return NULL;
    if (r->npnames == 0)
        return root;
    if (ngains (r) == 0) {
        json_object_object_add (root, "mode",
                                json_object_new_string ("shadow"));
        return root;
    }
    json_object *a = json_object_new_array ();
    for (int i = 0; i < r->npnames; i++)
        if (part_gains (r, i))
            json_object_array_add (a, json_object_new_string (r->pnames[i]));
    json_object_object_add (root, "partitions", a);
    return root;
}

static const char *start_text (const struct rep *r, json_object **keep)
{
    *keep = start_config (r);
    if (!*keep)
        return ns_learned_text (r->learned);
    return ns_learned_text (*keep);
}

/* Expected jobs a year hit by a node failure because striping spans
 * more nodes; *how says where the rate came from.  -1: no rate. */
/* Is a spread_speedup of program NAME given in --config (measured by
 * nodeshare-calibrate, or written by hand)?  Such a program needs no
 * calibration. */
static int given_speedup (const struct rep *r, const char *name)
{
    if (!r->ucfg)
        return 0;
    int p = ns_progtab_lookup (ns_config_progtab (r->ucfg), name);
    return p >= 0 && ns_interf_given_speedup (ns_config_interf (r->ucfg), p);
}

static int given_speedups (const struct rep *r)
{
    if (!r->ucfg)
        return 0;
    const ns_progtab_t *pt = ns_config_progtab (r->ucfg);
    for (int p = 0; p < ns_progtab_count (pt); p++)
        if (ns_interf_given_speedup (ns_config_interf (r->ucfg), p))
            return 1;
    return 0;
}

static double failures_a_year (const struct rep *r, char *how, size_t size,
                               int *upper)
{
    double span_h = (r->t_last - r->t_first) / 3600;
    double lambda;
    *upper = 0;
    if (span_h <= 0)
        return -1;
    if (r->o.fail_per_year >= 0) {
        lambda = r->o.fail_per_year / HOURS_PER_YEAR;
        snprintf (how, size, "%g failures per node a year (given)",
                  r->o.fail_per_year);
    } else if (r->node_h > 0 && r->nf.jobs > 0 && r->nf.node_fail > 0) {
        lambda = (double)r->nf.node_fail / r->node_h;
        snprintf (how, size, "%lld NODE_FAIL jobs in %.0f node-hours of "
                  "jobs in the dumps, %.2f per node a year",
                  (long long)r->nf.node_fail, r->node_h,
                  lambda * HOURS_PER_YEAR);
    } else if (r->node_h >= HOURS_PER_YEAR && r->nf.jobs > 0) {
        /* none seen: the 95% upper bound (rule of three), from a node-year
         * of jobs on; below that the bound says nothing */
        lambda = 3.0 / r->node_h;
        *upper = 1;
        snprintf (how, size, "no NODE_FAIL job in %.0f node-hours of jobs "
                  "in the dumps: at most %.2f per node a year (95%%)",
                  r->node_h, lambda * HOURS_PER_YEAR);
    } else
        return -1;
    return r->extra_node_h * lambda * HOURS_PER_YEAR / span_h;
}

static int same_str (const char *a, const char *b)
{
    return a == b || (a && b && strcmp (a, b) == 0);
}

/* The slurm.conf's node types (CPUs, memory, weight, features, GRES)
 * with their counts, and its partitions, on one line. */
static void machine_line (const struct rep *r, FILE *f)
{
    const ns_sconf_t *m = r->machine;
    int type[16], count[16], nt = 0, more = 0;
    for (int i = 0; i < m->nnodes; i++) {
        const ns_sconf_node_t *a = &m->nodes[i];
        int k;
        for (k = 0; k < nt; k++) {
            const ns_sconf_node_t *b = &m->nodes[type[k]];
            if (a->cpus == b->cpus && a->mem == b->mem
                && a->weight == b->weight
                && same_str (a->features, b->features)
                && same_str (a->gres, b->gres))
                break;
        }
        if (k < nt)
            count[k]++;
        else if (nt < 16) {
            type[nt] = i;
            count[nt++] = 1;
        } else
            more++;
    }
    fprintf (f, "Machine (%s): %d nodes:", r->o.slurm_conf, m->nnodes);
    for (int k = 0; k < nt; k++) {
        const ns_sconf_node_t *b = &m->nodes[type[k]];
        fprintf (f, "%s %d x %d CPUs, %lld MB, weight %u%s%s%s%s", k ? ";" : "",
                 count[k], b->cpus, (long long)b->mem, b->weight,
                 b->features ? ", features " : "",
                 b->features ? b->features : "", b->gres ? ", GRES " : "",
                 b->gres ? b->gres : "");
    }
    if (more)
        fprintf (f, "; %d more of other types", more);
    fprintf (f, "; partitions");
    for (int k = 0; k < m->nparts; k++)
        fprintf (f, "%s %s (%d nodes)", k ? "," : "", m->parts[k].name,
                 m->parts[k].nnodes_in);
    fprintf (f, "%s.\n", m->nparts ? "" : " none");
}

/* The first section: what an administrator can act on, one item a
 * line. */
static char *act_on (struct rep *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);
    if (!f)
        return NULL;
    const struct replay *a = &r->rp[0], *b = &r->rp[1], *w = &r->rp[2];
    char wa[32], wb[32], ww[32];
    if (r->machine)
        machine_line (r, f);
    fmt_dur (wa, sizeof (wa), a->m.mean_wait_s);
    fmt_dur (wb, sizeof (wb), b->m.mean_wait_s);
    fprintf (f, "Enabling %s on this history: core-hours held %.1f instead "
             "of %.1f (%+.1f%%), mean wait %s instead of %s", b->name,
             b->held_core_h, a->held_core_h,
             pct_change (a->held_core_h, b->held_core_h), wb, wa);
    if (r->pessimistic) {
        fmt_dur (ww, sizeof (ww), w->m.mean_wait_s);
        fprintf (f, "; with every learned figure two standard errors "
                 "against nodeshare: %.1f (%+.1f%%), mean wait %s.\n",
                 w->held_core_h, pct_change (a->held_core_h, w->held_core_h),
                 ww);
    } else if (given_speedups (r))
        fprintf (f, "; no figure was learned: this rests on the "
                 "configuration's figures.\n");
    else
        fprintf (f, "; no figure was learned, so this rests on neutral "
                 "figures: calibrate first (below).\n");
    char how[200];
    int upper;
    double fy = failures_a_year (r, how, sizeof (how), &upper);
    double days = (r->t_last - r->t_first) / 86400;
    if (fy >= 0)
        fprintf (f, "Node failures: the %lld jobs striped in %.1f days hold "
                 "%.1f node-hours more than packed; at the rate of %s, "
                 "%s%.2f more jobs a year would be requeued or lost.\n",
                 (long long)r->striped, days, r->extra_node_h, how,
                 upper ? "at most " : "about ", fy);
    else
        fprintf (f, "Node failures: the %lld jobs striped hold %.1f "
                 "node-hours more than packed; the dumps hold %s (%.1f "
                 "node-hours of jobs): give --node-failures-per-year for "
                 "the jobs a year this would requeue or lose.\n",
                 (long long)r->striped, r->extra_node_h,
                 r->nf.jobs ? "too little history to bound the failure "
                 "rate" : "no State column", r->node_h);
    /* programs whose spread_speedup the history does not give */
    double total = 0;
    int n = 0;
    int *ord = prog_order (r);
    for (int i = 0; ord && i < r->nps - 1; i++) {
        int p = ord[i];
        if (!r->ps[p].jobs)
            continue;
        const char *name = ns_progtab_name (r->rprogs, p);
        int lp = ns_progtab_lookup (r->lprogs, name);
        ns_learn_fig_t g = lp >= 0 ? ns_learn_speedup (r->learn, lp)
                                   : (ns_learn_fig_t){ .why =
                                                       NS_LEARN_NO_DATA };
        if (g.learned || given_speedup (r, name))
            continue;
        double ch = r->o.repeats * 2.0 * r->ps[p].core_s / r->ps[p].jobs
                    / 3600;
        total += ch;
        if (n++ < 12)
            fprintf (f, "Calibrate %s (%s): %d packed and %d striped runs "
                     "of a typical job, %.1f core-hours.\n", name,
                     ns_learn_why_name (g.why), r->o.repeats, r->o.repeats,
                     ch);
    }
    free (ord);
    if (n)
        fprintf (f, "Calibrating the %d program%s without a "
                 "spread_speedup (learned, or in the configuration) takes "
                 "about %.1f core-hours (nodeshare-calibrate).\n", n,
                 n == 1 ? "" : "s", total);
    else
        fprintf (f, "Every program of the history has a learned "
                 "spread_speedup, or one in the configuration: no "
                 "calibration needed.\n");
    if (r->npnames == 0)
        fprintf (f, "Scope: the dumps name no partition; start with the "
                 "nodeshare.json below.\n");
    else if (ngains (r) == 0)
        fprintf (f, "Scope: no partition shows a gain in the replay; start "
                 "with \"mode\": \"shadow\" (the nodeshare.json below) and "
                 "calibrate.\n");
    else {
        fprintf (f, "Scope: \"partitions\": [");
        for (int i = 0, k = 0; i < r->npnames; i++)
            if (part_gains (r, i))
                fprintf (f, "%s\"%s\"", k++ ? ", " : "", r->pnames[i]);
        fprintf (f, "], the partitions where the replay shows fewer "
                 "core-hours held and no longer turnaround; everything else "
                 "stays stock (the nodeshare.json below).\n");
    }
    if (r->machine && r->names_outside > 0)
        fprintf (f, "%lld node names of the dumps are not in %s (ignored "
                 "by the replay).\n", (long long)r->names_outside,
                 r->o.slurm_conf);
    if (r->sh.dropped_files)
        fprintf (f, "Shadow records: %lld records up to %s UTC were dropped "
                 "by rotation (%lld file%s); raise shadow.keep or "
                 "shadow.max_bytes to keep more.\n",
                 (long long)r->sh.dropped_records,
                 (fmt_time (how, sizeof (how), (double)r->sh.dropped_last),
                  how), (long long)r->sh.dropped_files,
                 r->sh.dropped_files == 1 ? "" : "s");
    if (fclose (f) != 0) {
        free (buf);
        return NULL;
    }
    return buf;
}

static void write_text (struct rep *r, FILE *f)
{
    char a[64], b[64];
    fmt_time (a, sizeof (a), r->t_first);
    fmt_time (b, sizeof (b), r->t_last);
    fprintf (f, "nodeshare-report: %d dump%s, %lld jobs from %s to %s UTC, "
             "replayed on %d nodes x %d cores\n", r->ndumps,
             r->ndumps == 1 ? "" : "s", (long long)r->njobs, a, b, r->nodes,
             r->o.cores);
    fprintf (f, "  history: %lld jobs with nodes, %lld completed (observed), "
             "%lld co-tenants only; %lld lines skipped\n",
             (long long)r->hist_jobs, (long long)r->observed,
             (long long)r->context, (long long)r->skipped);
    char *act = act_on (r);
    if (act) {
        fprintf (f, "\nBefore enabling\n");
        char *save = NULL;
        for (char *l = strtok_r (act, "\n", &save); l;
             l = strtok_r (NULL, "\n", &save))
            fprintf (f, "  - %s\n", l);
        free (act);
    }
    char *sum = summary (r);
    if (sum) {
        fprintf (f, "\nIn short\n");
        char *save = NULL;
        for (char *l = strtok_r (sum, "\n", &save); l;
             l = strtok_r (NULL, "\n", &save))
            fprintf (f, "  - %s\n", l);
        free (sum);
    }

    fprintf (f, "\n1. Programs by core-hours (AllocCPUS x elapsed)\n");
    fprintf (f, "  %-20s %8s %12s %7s %12s\n", "program", "jobs",
             "core-hours", "share", "mean run");
    int *ord = prog_order (r);
    double tot = total_core_s (r);
    for (int i = 0; ord && i < r->nps; i++) {
        const struct progstat *p = &r->ps[ord[i]];
        if (!p->jobs)
            continue;
        char d[32];
        fmt_dur (d, sizeof (d), p->run_s / p->jobs);
        fprintf (f, "  %-20s %8lld %12.1f %6.1f%% %12s\n",
                 prog_name (r, ord[i]), (long long)p->jobs,
                 p->core_s / 3600, 100 * p->core_s / tot, d);
    }

    fprintf (f, "\n2. Figures learned (as nodeshare-learn learns them: "
             "value, standard error, jobs)\n");
    if (r->table) {
        char *save = NULL, *copy = strdup (r->table);
        for (char *l = copy ? strtok_r (copy, "\n", &save) : NULL; l;
             l = strtok_r (NULL, "\n", &save))
            fprintf (f, "  %s\n", l);
        free (copy);
    }
    fprintf (f, "  %d figures learned, %d left neutral (1.0)%s\n",
             r->nlearned, r->nleft, r->nleft ? ":" : "");
    if (r->notes && r->notes_len) {
        char *save = NULL, *copy = strdup (r->notes);
        for (char *l = copy ? strtok_r (copy, "\n", &save) : NULL; l;
             l = strtok_r (NULL, "\n", &save))
            fprintf (f, "    %s\n", l);
        free (copy);
    }

    fprintf (f, "\n3. Replay of the same jobs (EASY backfill, killed at "
             "their time limit; runtimes are work at rate 1; the learned "
             "figures%s)\n", r->ucfg ? ", the configuration's where none "
             "was learned" : "");
    struct row rows[16];
    int n = replay_table (r, rows);
    fprintf (f, "  %-28s %14s %14s\n", "", r->rp[0].name, r->rp[1].name);
    for (int i = 0; i < n; i++) {
        fmt_val (a, sizeof (a), &rows[i], 0);
        fmt_val (b, sizeof (b), &rows[i], 1);
        fprintf (f, "  %-28s %14s %14s\n", rows[i].label, a, b);
    }

    fprintf (f, "\n4. Placed differently under %s than under pack: %lld of "
             "%lld jobs (%.1f%%)\n", r->rp[1].name, (long long)r->differ,
             (long long)r->compared,
             r->compared ? 100.0 * r->differ / r->compared : 0.0);
    fprintf (f, "  another shape %lld, the same shape next to other "
             "programs %lld, started under one only %lld\n",
             (long long)r->shape_differ, (long long)r->cot_differ,
             (long long)r->never_differ);
    fprintf (f, "  how %s placed them:\n", r->rp[1].name);
    for (int k = 0; k < NRULES; k++) {
        if (!r->rule_n[k])
            continue;
        fprintf (f, "    %-36s %8lld  (%s)\n", rule_what (k),
                 (long long)r->rule_n[k], ns_rule_name (k));
        if (k == NS_RULE_PACK)
            for (int w = 1; w < NS_PACK_KINDS; w++)
                if (r->why_n[w])
                    fprintf (f, "      %-34s %8lld\n", ns_pack_why_name (w),
                             (long long)r->why_n[w]);
    }
    fprintf (f, "  by program:");
    for (int i = 0; ord && i < r->nps; i++)
        if (r->ps[ord[i]].jobs)
            fprintf (f, " %s %lld/%lld", prog_name (r, ord[i]),
                     (long long)r->ps[ord[i]].differ,
                     (long long)r->ps[ord[i]].jobs);
    fprintf (f, "\n");
    free (ord);

    if (r->o.nshadow) {
        const struct shadow_sum *s = &r->sh;
        fprintf (f, "\n5. Shadow records (%d file%s): %lld jobs, %lld placed "
                 "differently from stock (%.1f%%)\n", s->nfiles,
                 s->nfiles == 1 ? "" : "s", (long long)s->records,
                 (long long)s->differ,
                 s->records ? 100.0 * s->differ / s->records : 0.0);
        if (s->first_time >= 0) {
            fmt_time (a, sizeof (a), (double)s->first_time);
            fmt_time (b, sizeof (b), (double)s->last_time);
            fprintf (f, "  from %s to %s UTC\n", a, b);
        }
        if (s->dropped_files) {
            fmt_time (a, sizeof (a), (double)s->dropped_last);
            fprintf (f, "  records before %s UTC were dropped by rotation: "
                     "%lld records in %lld file%s\n", a,
                     (long long)s->dropped_records,
                     (long long)s->dropped_files,
                     s->dropped_files == 1 ? "" : "s");
        }
        for (int k = 0; k < s->nrules; k++)
            fprintf (f, "    by rule %-26s %8lld\n", s->rules[k],
                     (long long)s->rule_n[k]);
        for (int k = 0; k < s->nwoulds; k++)
            fprintf (f, "    would %-28s %8lld\n", s->woulds[k],
                     (long long)s->would_n[k]);
        fprintf (f, "  by program:");
        for (int k = 0; k < s->nprogs; k++)
            fprintf (f, " %s %lld/%lld", s->progs[k],
                     (long long)s->prog_d[k], (long long)s->prog_n[k]);
        fprintf (f, "\n");
        if (s->first_why[0])
            fprintf (f, "  e.g. job %lld: %s\n", (long long)s->first_why_job,
                     s->first_why);
    }

    fprintf (f, "\n%d. nodeshare.json to start with (what nodeshare-learn "
             "writes, with the scope%s%s)\n", r->o.nshadow ? 6 : 5,
             r->o.json_out ? "; also in " : "",
             r->o.json_out ? r->o.json_out : "");
    json_object *keep;
    fprintf (f, "%s\n", start_text (r, &keep));
    json_object_put (keep);
}

/* ---- HTML ---- */

static const char *palette[] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
};

/* Horizontal bars: labels[i], values[i]; text after each bar. */
static void hbars (FILE *f, const char *title, const char **labels,
                   const double *v, const char **after, int n, int color)
{
    double vmax = 0;
    for (int i = 0; i < n; i++)
        if (v[i] > vmax)
            vmax = v[i];
    if (vmax <= 0)
        vmax = 1;
    int h = 40 + 24 * n;
    fprintf (f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" "
             "height=\"%d\" viewBox=\"0 0 640 %d\" font-family=\"sans-serif\" "
             "role=\"img\"><title>", h, h);
    ns_xml_text (f, title);
    fprintf (f, "</title>\n<text x=\"0\" y=\"18\" font-size=\"14\" "
             "font-weight=\"bold\">");
    ns_xml_text (f, title);
    fprintf (f, "</text>\n");
    for (int i = 0; i < n; i++) {
        double y = 32 + 24 * i, w = 300 * v[i] / vmax;
        fprintf (f, "<text x=\"200\" y=\"%.0f\" font-size=\"12\" "
                 "text-anchor=\"end\">", y + 14);
        ns_xml_text (f, labels[i]);
        fprintf (f, "</text><rect x=\"208\" y=\"%.0f\" width=\"%.1f\" "
                 "height=\"18\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.0f\" "
                 "font-size=\"12\">", y, w < 1 ? 1 : w,
                 palette[(color >= 0 ? color : i) % 10], 214 + w, y + 14);
        ns_xml_text (f, after[i]);
        fprintf (f, "</text>\n");
    }
    fprintf (f, "</svg>\n");
}

/* Learned figures with 2 standard errors either side, around 1.0. */
static void figure_chart (FILE *f, const struct rep *r)
{
    struct fig { char label[160]; double v, se; int speedup; } *figs;
    int np = ns_progtab_count (r->lprogs), n = 0, cap = 64;
    figs = malloc (sizeof (*figs) * cap);
    if (!figs)
        return;
    for (int p = 0; p < np; p++) {
        if (!ns_learn_njobs (r->learn, p))
            continue;
        for (int q = -1; q < np; q++) {
            ns_learn_fig_t g = q < 0 ? ns_learn_speedup (r->learn, p)
                                     : ns_learn_slowdown (r->learn, p, q);
            if (!g.learned)
                continue;
            if (n == cap) {
                void *x = realloc (figs, sizeof (*figs) * cap * 2);
                if (!x)
                    break;
                figs = x;
                cap *= 2;
            }
            if (q < 0)
                snprintf (figs[n].label, sizeof (figs[n].label),
                          "%s striped", ns_progtab_name (r->lprogs, p));
            else
                snprintf (figs[n].label, sizeof (figs[n].label),
                          "%s beside %s", ns_progtab_name (r->lprogs, p),
                          ns_progtab_name (r->lprogs, q));
            figs[n].v = g.value;
            figs[n].se = isnan (g.se) ? 0 : g.se;
            figs[n].speedup = q < 0;
            n++;
        }
    }
    if (n == 0) {
        free (figs);
        return;
    }
    double lo = 1, hi = 1;
    for (int i = 0; i < n; i++) {
        if (figs[i].v - 2 * figs[i].se < lo)
            lo = figs[i].v - 2 * figs[i].se;
        if (figs[i].v + 2 * figs[i].se > hi)
            hi = figs[i].v + 2 * figs[i].se;
    }
    lo = floor (lo * 20) / 20;
    hi = ceil (hi * 20) / 20;
    if (hi - lo < 0.1)
        hi = lo + 0.1;
    int h = 70 + 18 * n;
    double x0 = 130, w = 420;
#define X(v) (x0 + w * ((v) - lo) / (hi - lo))
    fprintf (f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"620\" "
             "height=\"%d\" viewBox=\"0 0 620 %d\" font-family=\"sans-serif\" "
             "role=\"img\"><title>Learned figures</title>\n"
             "<text x=\"0\" y=\"18\" font-size=\"14\" font-weight=\"bold\">"
             "Learned figures, with two standard errors either side"
             "</text>\n", h, h);
    double ytop = 36, ybot = 36 + 18 * n;
    for (double t = lo; t <= hi + 1e-9; t += (hi - lo) > 0.6 ? 0.1 : 0.05) {
        fprintf (f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" "
                 "stroke=\"#e5e5e5\"/><text x=\"%.1f\" y=\"%.0f\" "
                 "font-size=\"11\" text-anchor=\"middle\">%.2f</text>\n",
                 X (t), ytop, X (t), ybot, X (t), ybot + 14, t);
    }
    fprintf (f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" "
             "stroke=\"#333\" stroke-dasharray=\"4 3\"/>\n", X (1.0), ytop,
             X (1.0), ybot);
    for (int i = 0; i < n; i++) {
        double y = ytop + 18 * i + 9;
        const char *c = figs[i].speedup ? palette[4] : palette[0];
        fprintf (f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" "
                 "text-anchor=\"end\">", x0 - 8, y + 4);
        ns_xml_text (f, figs[i].label);
        fprintf (f, "</text><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                 "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>"
                 "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\">"
                 "<title>%.3f, se %.4f</title></circle>"
                 "<text x=\"%.1f\" y=\"%.0f\" font-size=\"11\" "
                 "fill=\"#555\">%.3f</text>\n",
                 X (figs[i].v - 2 * figs[i].se), y,
                 X (figs[i].v + 2 * figs[i].se), y, c, X (figs[i].v), y, c,
                 figs[i].v, figs[i].se, X (hi) + 8, y + 4, figs[i].v);
    }
    fprintf (f, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"11\" "
             "text-anchor=\"middle\" fill=\"#555\">green: spread_speedup "
             "(above 1: faster striped); blue: slowdown beside a "
             "program</text>\n", x0 + w / 2, ybot + 32);
#undef X
    fprintf (f, "</svg>\n");
    free (figs);
}

static const char css[] =
    "body{font-family:sans-serif;max-width:1160px;margin:24px auto;"
    "padding:0 16px;color:#222;line-height:1.4}"
    "h1{font-size:22px;margin-bottom:4px}"
    "h2{font-size:18px;border-bottom:1px solid #ccc;padding-bottom:4px;"
    "margin-top:32px}"
    "p.sub{color:#555;margin-top:0}"
    "table{border-collapse:collapse;margin:8px 0 16px}"
    "th,td{padding:3px 10px;border-bottom:1px solid #e5e5e5;"
    "text-align:right}"
    "th:first-child,td:first-child{text-align:left}"
    "th{background:#f4f4f4}"
    "td.better{color:#1a7f37;font-weight:bold}"
    "td.worse{color:#b42318}"
    "svg{max-width:100%;height:auto;display:block;margin:8px 0}"
    "pre{background:#f6f8fa;padding:12px;overflow:auto;font-size:12px;"
    "border:1px solid #e5e5e5}"
    ".flex{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}"
    ".note{color:#555;font-size:14px}";

static void th_td (FILE *f, const char *tag, const char *s)
{
    fprintf (f, "<%s>", tag);
    ns_xml_text (f, s);
    fprintf (f, "</%s>", tag);
}

/* A two-column table: NAMES[k] and COUNTS[k]. */
static void count_table (FILE *f, const char *head, const char *count_head,
                         const char names[][48], const int64_t *counts,
                         int n)
{
    fprintf (f, "<table>\n<tr><th>%s</th><th>%s</th></tr>\n", head,
             count_head);
    for (int k = 0; k < n; k++) {
        fprintf (f, "<tr>");
        th_td (f, "td", names[k]);
        fprintf (f, "<td>%lld</td></tr>\n", (long long)counts[k]);
    }
    fprintf (f, "</table>\n");
}

static int write_html (struct rep *r)
{
    FILE *f = open_out (r->o.html);
    if (!f)
        return -1;
    char a[64], b[64], buf[256];
    fmt_time (a, sizeof (a), r->t_first);
    fmt_time (b, sizeof (b), r->t_last);
    fprintf (f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
             "<meta charset=\"utf-8\">\n<title>nodeshare report</title>\n"
             "<style>%s</style>\n</head>\n<body>\n"
             "<h1>nodeshare report</h1>\n<p class=\"sub\">", css);
    for (int i = 0; i < r->ndumps; i++) {
        ns_xml_text (f, r->dumps[i] == r->spooled ? "stdin" : r->dumps[i]);
        fputs (i + 1 < r->ndumps ? ", " : ": ", f);
    }
    fprintf (f, "%lld jobs from %s to %s UTC, replayed on %d nodes &times; "
             "%d cores. %lld jobs with nodes in the history, %lld completed "
             "(observed), %lld co-tenants only; %lld lines skipped. "
             "Written by " PROG " " PACKAGE_VERSION ".</p>\n",
             (long long)r->njobs, a, b, r->nodes, r->o.cores,
             (long long)r->hist_jobs, (long long)r->observed,
             (long long)r->context, (long long)r->skipped);

    char *act = act_on (r);
    if (act) {
        fprintf (f, "<h2>Before enabling</h2>\n<ul>\n");
        char *save = NULL;
        for (char *l = strtok_r (act, "\n", &save); l;
             l = strtok_r (NULL, "\n", &save)) {
            fprintf (f, "<li>");
            ns_xml_text (f, l);
            fprintf (f, "</li>\n");
        }
        fprintf (f, "</ul>\n");
        free (act);
    }
    char *sum = summary (r);
    if (sum) {
        fprintf (f, "<h2>In short</h2>\n<ul>\n");
        char *save = NULL;
        for (char *l = strtok_r (sum, "\n", &save); l;
             l = strtok_r (NULL, "\n", &save)) {
            fprintf (f, "<li>");
            ns_xml_text (f, l);
            fprintf (f, "</li>\n");
        }
        fprintf (f, "</ul>\n");
        free (sum);
    }

    /* 1. programs */
    fprintf (f, "<h2>1. Programs that run most</h2>\n<p class=\"note\">"
             "Core-hours are AllocCPUS &times; elapsed time. Programs are "
             "job names%s.</p>\n<div class=\"flex\"><table>\n<tr><th>program"
             "</th><th>jobs</th><th>core-hours</th><th>share</th>"
             "<th>mean run</th></tr>\n",
             r->ucfg ? " mapped by the configuration's identity patterns"
                     : "");
    int *ord = prog_order (r);
    double tot = total_core_s (r);
    const char *labels[12], *after[12];
    char afterbuf[12][64];
    double vals[12];
    int nb = 0;
    for (int i = 0; ord && i < r->nps; i++) {
        const struct progstat *p = &r->ps[ord[i]];
        if (!p->jobs)
            continue;
        char d[32];
        fmt_dur (d, sizeof (d), p->run_s / p->jobs);
        fprintf (f, "<tr>");
        th_td (f, "td", prog_name (r, ord[i]));
        fprintf (f, "<td>%lld</td><td>%.1f</td><td>%.1f%%</td><td>%s</td>"
                 "</tr>\n", (long long)p->jobs, p->core_s / 3600,
                 100 * p->core_s / tot, d);
        if (nb < 12) {
            labels[nb] = prog_name (r, ord[i]);
            vals[nb] = p->core_s / 3600;
            snprintf (afterbuf[nb], sizeof (afterbuf[nb]), "%.0f (%.0f%%)",
                      vals[nb], 100 * p->core_s / tot);
            after[nb] = afterbuf[nb];
            nb++;
        }
    }
    fprintf (f, "</table>\n");
    hbars (f, "Core-hours by program", labels, vals, after, nb, -1);
    fprintf (f, "</div>\n");

    /* 2. figures */
    fprintf (f, "<h2>2. Interference figures learned</h2>\n<p class=\"note\">"
             "As nodeshare-learn learns them: a figure needs %d jobs exposed "
             "to it for at least %.0f%% of their run and a standard error "
             "within %g; the others stay neutral (1.0). %d figures learned, "
             "%d left neutral.</p>\n<div class=\"flex\"><table>\n<tr><th>"
             "program</th><th>figure</th><th>value</th><th>standard error"
             "</th><th>jobs</th></tr>\n", r->o.lo.min_observations,
             100 * r->o.lo.min_exposure, r->o.lo.max_se, r->nlearned,
             r->nleft);
    if (r->table) {
        char *save = NULL, *copy = strdup (r->table);
        int first = 1;
        for (char *l = copy ? strtok_r (copy, "\n", &save) : NULL; l;
             l = strtok_r (NULL, "\n", &save)) {
            if (first) {        /* the table's header */
                first = 0;
                continue;
            }
            char p[160], fig[160], v[32], se[32], jobs[32];
            if (sscanf (l, "%159s %159s %31s %31s %31s", p, fig, v, se, jobs)
                != 5)
                continue;
            fprintf (f, "<tr>");
            th_td (f, "td", p);
            th_td (f, "td", fig);
            th_td (f, "td", v);
            th_td (f, "td", strcmp (fig, "runtime") == 0 ? "" : se);
            th_td (f, "td", jobs);
            fprintf (f, "</tr>\n");
        }
        free (copy);
    }
    fprintf (f, "</table>\n");
    figure_chart (f, r);
    fprintf (f, "</div>\n");
    if (r->notes && r->notes_len) {
        fprintf (f, "<p class=\"note\">Left neutral:</p>\n<pre>");
        ns_xml_text (f, r->notes);
        fprintf (f, "</pre>\n");
    }

    /* 3. replay */
    fprintf (f, "<h2>3. Replay of the same jobs: pack and %s</h2>\n"
             "<p class=\"note\">Every job is submitted at its recorded time "
             "and runs its recorded elapsed time as work on a full node, "
             "slowed or sped up by the learned figures%s; EASY backfilling; "
             "a job still running at its time limit is killed there. "
             "pack places jobs as stock Slurm (cons_tres) does.</p>\n"
             "<table>\n<tr><th></th>", r->rp[1].name,
             r->ucfg ? " (the configuration's where none was learned)" : "");
    th_td (f, "th", r->rp[0].name);
    th_td (f, "th", r->rp[1].name);
    fprintf (f, "</tr>\n");
    struct row rows[16];
    int n = replay_table (r, rows);
    for (int i = 0; i < n; i++) {
        char va[64], vb[64];
        fmt_val (va, sizeof (va), &rows[i], 0);
        fmt_val (vb, sizeof (vb), &rows[i], 1);
        /* lower is better except throughput, completed, sharing */
        int higher_better = strstr (rows[i].label, "per hour")
                            || strstr (rows[i].label, "completed");
        const char *cls = "";
        if (rows[i].kind != 4 && strstr (rows[i].label, "makespan") == NULL
            && strstr (rows[i].label, "used by") == NULL) {
            double d = rows[i].v[1] - rows[i].v[0];
            double rel = fabs (d) / (fabs (rows[i].v[0]) > 0
                                         ? fabs (rows[i].v[0]) : 1);
            if (rel > 0.005)
                cls = (d > 0) == higher_better ? " class=\"better\""
                                               : " class=\"worse\"";
        }
        fprintf (f, "<tr>");
        th_td (f, "td", rows[i].label);
        fprintf (f, "<td>%s</td><td%s>%s</td></tr>\n", va, cls, vb);
    }
    fprintf (f, "</table>\n");
    {
        char *svg = NULL;
        size_t len = 0;
        FILE *m = open_memstream (&svg, &len);
        if (m) {
            ns_metrics_t mm[2] = { r->rp[0].m, r->rp[1].m };
            snprintf (buf, sizeof (buf), "%lld jobs on %d nodes x %d cores "
                      "(EASY backfill)", (long long)r->njobs, r->nodes,
                      r->o.cores);
            ns_report_svg (m, mm, 2, buf, "pack");
            if (fclose (m) == 0 && svg) {
                /* inline: without the XML declaration */
                const char *s = strstr (svg, "<svg");
                fputs (s ? s : "", f);
            }
            free (svg);
        }
    }

    /* 4. differences */
    fprintf (f, "<h2>4. Jobs %s places differently</h2>\n<p>%lld of %lld "
             "jobs (%.1f%%) got another shape or other co-tenants under "
             "%s than under pack in the replay: another shape (nodes and "
             "cores per node) %lld, the same shape next to other programs "
             "%lld, started under one policy only %lld.</p>\n",
             r->rp[1].name, (long long)r->differ, (long long)r->compared,
             r->compared ? 100.0 * r->differ / r->compared : 0.0,
             r->rp[1].name, (long long)r->shape_differ,
             (long long)r->cot_differ, (long long)r->never_differ);
    fprintf (f, "<div class=\"flex\"><table>\n<tr><th>how %s placed them"
             "</th><th>rule</th><th>jobs</th></tr>\n", r->rp[1].name);
    nb = 0;
    for (int k = 0; k < NRULES; k++) {
        if (!r->rule_n[k])
            continue;
        fprintf (f, "<tr>");
        th_td (f, "td", rule_what (k));
        th_td (f, "td", ns_rule_name (k));
        fprintf (f, "<td>%lld</td></tr>\n", (long long)r->rule_n[k]);
        if (k == NS_RULE_PACK)
            for (int w = 1; w < NS_PACK_KINDS; w++)
                if (r->why_n[w]) {
                    fprintf (f, "<tr><td>&nbsp;&nbsp;");
                    ns_xml_text (f, ns_pack_why_name (w));
                    fprintf (f, "</td><td></td><td>%lld</td></tr>\n",
                             (long long)r->why_n[w]);
                }
        if (nb < 12) {
            labels[nb] = rule_what (k);
            vals[nb] = (double)r->rule_n[k];
            snprintf (afterbuf[nb], sizeof (afterbuf[nb]), "%lld",
                      (long long)r->rule_n[k]);
            after[nb] = afterbuf[nb];
            nb++;
        }
    }
    fprintf (f, "</table>\n");
    if (nb)
        hbars (f, "Jobs placed differently, by how", labels, vals, after,
               nb, 1);
    fprintf (f, "</div>\n<table>\n<tr><th>program</th><th>jobs</th>"
             "<th>placed differently</th><th>share</th></tr>\n");
    for (int i = 0; ord && i < r->nps; i++) {
        const struct progstat *p = &r->ps[ord[i]];
        if (!p->jobs)
            continue;
        fprintf (f, "<tr>");
        th_td (f, "td", prog_name (r, ord[i]));
        fprintf (f, "<td>%lld</td><td>%lld</td><td>%.1f%%</td></tr>\n",
                 (long long)p->jobs, (long long)p->differ,
                 100.0 * p->differ / p->jobs);
    }
    fprintf (f, "</table>\n");
    free (ord);

    /* 5. shadow */
    int sec = 5;
    if (r->o.nshadow) {
        const struct shadow_sum *s = &r->sh;
        fprintf (f, "<h2>%d. Shadow records</h2>\n<p>", sec++);
        for (int i = 0; i < r->o.nshadow; i++) {
            ns_xml_text (f, r->o.shadow[i]);
            fputs (i + 1 < r->o.nshadow ? ", " : ": ", f);
        }
        fprintf (f, "%lld jobs placed by stock Slurm while nodeshare "
                 "recorded its decision; it would have placed %lld of them "
                 "(%.1f%%) differently.", (long long)s->records,
                 (long long)s->differ,
                 s->records ? 100.0 * s->differ / s->records : 0.0);
        if (s->first_time >= 0) {
            fmt_time (a, sizeof (a), (double)s->first_time);
            fmt_time (b, sizeof (b), (double)s->last_time);
            fprintf (f, " From %s to %s UTC.", a, b);
        }
        if (s->dropped_files) {
            fmt_time (a, sizeof (a), (double)s->dropped_last);
            fprintf (f, " Records before %s UTC were dropped by rotation "
                     "(%lld records in %lld file%s).", a,
                     (long long)s->dropped_records,
                     (long long)s->dropped_files,
                     s->dropped_files == 1 ? "" : "s");
        }
        fprintf (f, "</p>\n<div class=\"flex\">");
        count_table (f, "rule", "jobs placed differently", s->rules,
                     s->rule_n, s->nrules);
        count_table (f, "would", "jobs", s->woulds, s->would_n, s->nwoulds);
        fprintf (f, "<table>\n<tr><th>program</th><th>jobs</th>"
                 "<th>differently</th></tr>\n");
        for (int k = 0; k < s->nprogs; k++) {
            fprintf (f, "<tr>");
            th_td (f, "td", s->progs[k]);
            fprintf (f, "<td>%lld</td><td>%lld</td></tr>\n",
                     (long long)s->prog_n[k], (long long)s->prog_d[k]);
        }
        fprintf (f, "</table></div>\n");
        if (s->first_why[0]) {
            fprintf (f, "<p class=\"note\">For example, job %lld: ",
                     (long long)s->first_why_job);
            ns_xml_text (f, s->first_why);
            fprintf (f, "</p>\n");
        }
    }

    /* 6. configuration */
    fprintf (f, "<h2>%d. nodeshare.json to start with</h2>\n<p class=\"note\">"
             "What nodeshare-learn writes from the same history: the "
             "learned figures under \"programs\", the evidence behind each "
             "under \"learned\". Add the identity patterns and the policy "
             "of your configuration; \"partitions\" (the scope) names "
             "the partitions where the replay shows gains.</p>\n<pre>", sec);
    json_object *keep;
    ns_xml_text (f, start_text (r, &keep));
    json_object_put (keep);
    fprintf (f, "</pre>\n</body>\n</html>\n");
    return close_out (f, r->o.html);
}

/* ---- main ---- */


enum { OPT_MIN_OBS = 256, OPT_MIN_EXP, OPT_MAX_SE, OPT_STATE, OPT_SHADOW,
       OPT_HTML, OPT_JSON_OUT, OPT_FAILURES, OPT_REPEATS };

static const struct option longopts[] = {
    { "cores", required_argument, NULL, 'C' },
    { "nodes", required_argument, NULL, 'n' },
    { "slurm-conf", required_argument, NULL, 'S' },
    { "node-failures-per-year", required_argument, NULL, OPT_FAILURES },
    { "calibration-repeats", required_argument, NULL, OPT_REPEATS },
    { "config", required_argument, NULL, 'c' },
    { "policy", required_argument, NULL, 'p' },
    { "min-observations", required_argument, NULL, OPT_MIN_OBS },
    { "min-exposure", required_argument, NULL, OPT_MIN_EXP },
    { "max-se", required_argument, NULL, OPT_MAX_SE },
    { "state", required_argument, NULL, OPT_STATE },
    { "shadow", required_argument, NULL, OPT_SHADOW },
    { "html", required_argument, NULL, OPT_HTML },
    { "json-out", required_argument, NULL, OPT_JSON_OUT },
    { "output", required_argument, NULL, 'o' },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
};

static int parse_opts (int argc, char **argv, struct opts *o)
{
    int ch;
    double v;
    opterr = 0;
    while ((ch = getopt_long (argc, argv, ":C:n:S:c:p:o:qhV", longopts, NULL))
           != -1) {
        switch (ch) {
        case 'C':
            if (parse_num ("--cores", optarg, 1, NS_NODE_CORES_MAX, 1, &v) < 0)
                return -1;
            o->cores = (int)v;
            break;
        case 'n':
            if (parse_num ("--nodes", optarg, 1, 1000000, 1, &v) < 0)
                return -1;
            o->nodes = (int)v;
            break;
        case 'S': o->slurm_conf = optarg; break;
        case OPT_FAILURES:
            if (parse_num ("--node-failures-per-year", optarg, 0, 1e6, 0,
                           &o->fail_per_year) < 0)
                return -1;
            break;
        case OPT_REPEATS:
            if (parse_num ("--calibration-repeats", optarg, 1, 100, 1, &v)
                < 0)
                return -1;
            o->repeats = (int)v;
            break;
        case 'c': o->config = optarg; break;
        case 'p': o->policy = optarg; break;
        case 'o': o->output = optarg; break;
        case 'q': o->quiet = 1; break;
        case OPT_STATE: o->state = optarg; break;
        case OPT_HTML: o->html = optarg; break;
        case OPT_JSON_OUT: o->json_out = optarg; break;
        case OPT_SHADOW:
            if (o->nshadow == MAX_SHADOW)
                return die ("--shadow: more than %d files", MAX_SHADOW);
            o->shadow[o->nshadow++] = optarg;
            break;
        case OPT_MIN_OBS:
            if (parse_num ("--min-observations", optarg, 1, 1e9, 1, &v) < 0)
                return -1;
            o->lo.min_observations = (int)v;
            break;
        case OPT_MIN_EXP:
            if (parse_num ("--min-exposure", optarg, 0, 1, 0,
                           &o->lo.min_exposure) < 0)
                return -1;
            break;
        case OPT_MAX_SE:
            if (parse_num ("--max-se", optarg, 0, 10, 0, &o->lo.max_se) < 0)
                return -1;
            break;
        case 'h': usage (stdout); exit (NS_EXIT_OK);
        case 'V': printf (PROG " %s\n", PACKAGE_VERSION); exit (NS_EXIT_OK);
        default:
            ns_cmd_bad_option (PROG, ch, argv);
            return -1;
        }
    }
    return 0;
}

/* -1: a file cannot be used (exit 1); -2: the configuration is wrong
 * (exit 2, as nodeshare-learn). */
static int load_inputs (struct rep *r)
{
    ns_error_t err;
    if (!(r->names = ns_nodenames_create ()))
        return die ("out of memory");
    if (r->o.slurm_conf) {
        if (!(r->machine = ns_sconf_load (r->o.slurm_conf, &err)))
            return die ("%s", err.text), -2;
        const ns_sconf_t *m = r->machine;
        /* the machine's nodes first, in its order: the replay's nodes */
        for (int i = 0; i < m->nnodes; i++) {
            int u = m->cr_cpu ? m->nodes[i].cpus : m->nodes[i].cores;
            if (u > r->o.cores)
                r->o.cores = u;
            if (ns_nodenames_add (r->names, m->nodes[i].name) != i)
                return die ("out of memory");
        }
        for (int i = 0; i < m->nparts && i < MAX_PARTS; i++)
            if (!(r->pnames[r->npnames++] = strdup (m->parts[i].name)))
                return die ("out of memory");
    }
    if (r->o.state) {
        json_object *nc;
        if (!(r->state = json_object_from_file (r->o.state)))
            return die ("%s: cannot read it as JSON (%s)", r->o.state,
                        json_util_get_last_err ()
                            ? json_util_get_last_err () : "?");
        if (!json_object_object_get_ex (r->state, "node_cores", &nc)
            || json_object_get_int (nc) < 1)
            return die ("%s: not a learning state (no node_cores)",
                        r->o.state);
        if (r->o.cores != json_object_get_int (nc))
            return die ("%s: nodes of %d cores, not --cores %d", r->o.state,
                        json_object_get_int (nc), r->o.cores), -2;
    }
    if (r->o.config) {
        if (!(r->ucfg = ns_config_load_file (r->o.config, &err)))
            return die ("%s", err.text), -2;
        if (!(r->ucfg_json = json_object_from_file (r->o.config)))
            return die ("%s: cannot read it as JSON", r->o.config);
    }
    return 0;
}

int main (int argc, char **argv)
{
    struct rep r = { 0 };
    ns_learn_opts_default (&r.o.lo);
    r.o.fail_per_year = -1;
    r.o.repeats = 3;
    if (parse_opts (argc, argv, &r.o) < 0)
        return NS_EXIT_USAGE;
    if (optind == argc)
        return die ("no sacct dump given (see --help)"), NS_EXIT_USAGE;
    if (!r.o.cores && !r.o.slurm_conf)
        return die ("give --cores C or --slurm-conf FILE: a sacct dump does "
                    "not say how many cores a node has"), NS_EXIT_USAGE;
    if (r.o.slurm_conf && (r.o.cores || r.o.nodes))
        return die ("--slurm-conf gives the nodes and their cores: not with "
                    "--cores or --nodes"), NS_EXIT_USAGE;
    r.ndumps = argc - optind;
    r.dumps = argv + optind;
    r.tty = isatty (STDERR_FILENO);
    int rc = NS_EXIT_FAIL;
    int li = load_inputs (&r);
    if (li < 0) {
        rc = li == -2 ? NS_EXIT_USAGE : NS_EXIT_FAIL;
        goto out;
    }
    for (int i = 0; i < r.ndumps; i++)
        if (strcmp (r.dumps[i], "-") == 0 && spool_stdin (&r, i) < 0)
            goto out;
    if (learn_all (&r) < 0 || replay_config (&r) < 0)
        goto out;
    if (replay_all (&r) < 0 || read_shadow (&r) < 0 || node_failures (&r) < 0)
        goto out;
    FILE *f = r.o.output ? open_out (r.o.output) : stdout;
    if (!f)
        goto out;
    write_text (&r, f);
    if (close_out (f, r.o.output ? r.o.output : "stdout") < 0)
        goto out;
    if (r.o.json_out) {
        FILE *j = open_out (r.o.json_out);
        if (!j)
            goto out;
        json_object *keep;
        fprintf (j, "%s\n", start_text (&r, &keep));
        json_object_put (keep);
        if (close_out (j, r.o.json_out) < 0)
            goto out;
    }
    if (r.o.html && write_html (&r) < 0)
        goto out;
    if (r.o.html)
        progress_line (&r, "%s: written", r.o.html);
    rc = NS_EXIT_OK;
out:
    if (r.spooled) {
        unlink (r.spooled);
        free (r.spooled);
    }
    for (int i = 0; r.hist && i < r.ndumps; i++)
        ns_history_destroy (r.hist[i]);
    free (r.hist);
    free (r.jobs);
    free (r.ps);
    free (r.notes);
    free (r.table);
    json_object_put (r.learned);
    json_object_put (r.state);
    json_object_put (r.ucfg_json);
    ns_interf_destroy (r.rmodel);
    ns_config_destroy (r.rcfg);
    ns_learn_destroy (r.learn);
    ns_progtab_destroy (r.lprogs);
    ns_config_destroy (r.ucfg);
    ns_sconf_free (r.machine);
    ns_nodenames_destroy (r.names);
    for (int i = 0; i < r.npnames; i++)
        free (r.pnames[i]);
    return rc;
}
