/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeshare-sim - replay a job trace under every placement policy
 *
 * main () parses options and calls into sim/ and model/; see
 * cmd/nodeshare-sim.1 for the user's view.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "classes.h"
#include "batch.h"
#include "closed.h"
#include "cmdline.h"
#include "cmdout.h"
#include "engine.h"
#include "fileio.h"
#include "gres.h"
#include "machsize.h"
#include "metricsdoc.h"
#include "nsutil.h"
#include "nsconfig.h"
#include "policyset.h"
#include "report.h"
#include "sacct_out.h"
#include "scope.h"
#include "sim_compare.h"
#include "sim_sweep.h"
#include "sweep.h"
#include "trace.h"
#include "tracejobs.h"

#define MAX_LOADS 16

/* The study's figures (examples/abq-lam-lsd.json), built in so that the
 * simulator runs on a machine with no files at all. */
static const char builtin_config[] =
    "{ \"policy\": \"twins\", \"programs\": {"
    " \"ABQ\": { \"spread_speedup\": 1.255, \"weight\": 1, \"runtime\": 14760,"
    "   \"slowdown\": { \"ABQ\": 1.012, \"LAM\": 1.024, \"LSD\": 1.035 } },"
    " \"LAM\": { \"spread_speedup\": 1.147, \"weight\": 1, \"runtime\": 6540,"
    "   \"slowdown\": { \"ABQ\": 0.978, \"LAM\": 1.024, \"LSD\": 0.979 } },"
    " \"LSD\": { \"spread_speedup\": 1.400, \"weight\": 1, \"runtime\": 1680,"
    "   \"slowdown\": { \"ABQ\": 1.071, \"LAM\": 1.178, \"LSD\": 1.102 } } } }";

/* --mix: what a program's weight is a share of, in closed experiments. */
static const char *const mix_names[] = {
    [NS_MIX_TIME] = "time", [NS_MIX_WORK] = "work", [NS_MIX_JOBS] = "jobs",
};
#define MIX_COUNT ((int)(sizeof (mix_names) / sizeof (mix_names[0])))

struct opts {
    const char *trace;
    const char *config;
    const char *policies;
    const char *baseline;   /* pack, exclusive; NULL: by mode */
    int jobs;               /* threads running policies (--jobs) */
    ns_trace_format_t format;
    ns_backfill_t backfill;
    int bf_depth;
    ns_overrun_t overrun;
    int nodes, cores;
    int strict;
    int check;
    int quiet;
    int replay_all;         /* --replay-all */
    int assign_classes;
    int64_t max_jobs;
    uint64_t seed;
    double loads[MAX_LOADS];
    int nloads;
    double horizon;
    ns_mix_t mix;           /* --mix */
    int mix_given;
    const char *json, *csv, *svg;
    const char *sacct;      /* --sacct FILE: the history of one policy */
    const char *compare;    /* --compare-placements SACCT_DUMP */
    const char *slurm_conf; /* --slurm-conf FILE: the machine */
    int one_node_first;     /* --slurm-release 26.05 and later */
    /* --sweep FILE (cmd/sim_sweep.c) */
    const char *sweep;
    int sweep_slurm, sweep_collect;
    int sweep_cell;         /* --cell I; -1 if not given */
    const char *sbatch_args;
    const char *not_sweep;  /* an option a sweep file sets instead */
};

struct run {
    struct opts o;
    ns_config_t *cfg;
    ns_progtab_t *progs;
    ns_interf_t *model;
    ns_policyset_t ps;      /* -p, and the baseline */
    const char *baseline;   /* name of the policy thr is relative to */
    char sacct_policy[64];  /* --sacct: the policy whose jobs it gets */
    char note[512];         /* one-core machine note, or "" */
    /* trace mode */
    ns_tracejobs_t tj;      /* the jobs, what the trace says of itself */
    const char *nodes_from;
    ns_sconf_t *machine;    /* --slurm-conf */
    unsigned char *out_of_scope; /* machine->nparts bytes, or NULL */
    unsigned char *no_stripe;    /* machine's GRES nodes, or NULL */
    int64_t total_cores;    /* the machine's task slots */
    /* results */
    ns_metrics_t *metrics;
    int nmetrics;
    FILE *csv;
    int progress;
};

static void usage (FILE *f)
{
    fprintf (f,
"Usage: nodeshare-sim [OPTIONS] [TRACE]\n"
"Replay a job trace (SWF 2.2, plain or gzip, or a sacct --parsable2 dump)\n"
"under nodeshare's placement policies and compare them side by side.\n"
"Without a TRACE, run the closed experiment of the built-in study\n"
"(ABQ, LAM, LSD) at loads 1.0, 0.75, 0.5 and 0.25.\n"
"\n"
"Workload:\n"
"  -f, --format FMT       swf, sacct or auto (default auto)\n"
"      --strict           stop at the first malformed trace line\n"
"  -n, --nodes N          nodes in the machine (default: trace header)\n"
"  -C, --cores C          cores per node (default: trace header)\n"
"      --slurm-conf FILE  the machine of a real slurm.conf: its NodeName\n"
"                         lines (sizes, memory, weights), PartitionName\n"
"                         lines (nodes, MaxNodes, MaxCPUsPerNode, memory\n"
"                         defaults and limits) and SelectTypeParameters;\n"
"                         jobs use the trace's requested memory and\n"
"                         partition\n"
"      --slurm-release R  the Slurm release whose stock placement is\n"
"                         modelled (MAJOR.MINOR, default 25.11): from\n"
"                         26.05 cons_tres gives a job that may use one\n"
"                         node the first node that holds it, not the\n"
"                         best fit\n"
"      --max-jobs N       replay only the first N usable jobs\n"
"      --closed LOADS     closed experiment at LOADS (comma list in (0, 1],\n"
"                         e.g. 1,0.75,0.5,0.25): LOAD x nodes one-node\n"
"                         jobs at all times, 1 = saturated (a backlog of\n"
"                         every program); the mix is exact by weight\n"
"      --mix KIND         closed experiments: what a program's weight is\n"
"                         a share of: time (machine time; with sharing,\n"
"                         of each pairing; default: the study's), work\n"
"                         (runtime on full nodes) or jobs\n"
"      --horizon S        closed experiments: seconds simulated\n"
"                         (default 200 x the longest program runtime)\n"
"Policy:\n"
"  -c, --config FILE      nodeshare.json (programs, figures, patterns)\n"
"  -p, --policy LIST      policies, comma separated, or all (default all):\n"
"                         pack exclusive spread mixed twins same\n"
"                         min-slowdown keep:P\n"
"      --baseline P       pack or exclusive: the policy throughput is\n"
"                         relative to (run first if not listed; default\n"
"                         pack for a trace, exclusive for --closed)\n"
"  -b, --backfill MODE    easy (default) or none (plain FCFS)\n"
"      --bf-depth N       queued jobs examined per backfill pass behind\n"
"                         the head (default: all, textbook EASY; N as\n"
"                         Slurm's bf_max_job_test)\n"
"      --overrun MODE     a job still running at its requested time is\n"
"                         killed there (kill, default, as Slurm does) or\n"
"                         runs to the end of its trace runtime (run)\n"
"      --assign-classes   give trace programs not named in the\n"
"                         configuration an interference class, drawn by\n"
"                         the configured weights (seeded)\n"
"      --seed N           seed of the draws (default 1)\n"
"Placement parity:\n"
"      --compare-placements DUMP\n"
"                         replay a real cluster's sacct --parsable2 dump\n"
"                         (JobName, Submit, Start, End, NodeList,\n"
"                         AllocCPUS) under one policy (-p P, default the\n"
"                         configuration's); report per job whether the\n"
"                         simulator chose the same shape and co-tenants\n"
"                         as the cluster (needs --cores)\n"
"Output:\n"
"      --json FILE        results as JSON ('-' for stdout)\n"
"      --csv FILE         one row per job and policy\n"
"      --sacct FILE       the jobs of the one policy given with -p as a\n"
"                         sacct --parsable2 dump (nodeshare-learn reads it)\n"
"      --svg FILE         comparison charts\n"
"  -j, --jobs N           policies run in parallel threads (default: the\n"
"                         number of online cores); outputs do not change\n"
"Sweeps (a sweep file: traces x machines x values of nodeshare.json keys):\n"
"      --sweep FILE       run every cell of FILE not yet done, --jobs at a\n"
"                         time, then merge them into one table, JSON and\n"
"                         SVG in the sweep's output directory\n"
"      --slurm            with --sweep: submit the cells not yet done as an\n"
"                         sbatch job array and a dependent job that merges\n"
"      --sbatch-args ARGS with --slurm: more sbatch options (blank-separated)\n"
"      --collect          with --sweep: merge the cells there are; report\n"
"                         the failed and the missing\n"
"      --cell I           with --sweep: run cell I only (an array task)\n"
"      --check            verify cluster invariants after every event\n"
"      --replay-all       replay every policy, also those whose schedule is\n"
"                         pack's on this trace (no job gains from\n"
"                         striping): by default they take pack's replay\n"
"  -q, --quiet            no progress line\n"
"  -h, --help             this help\n"
"  -V, --version          print the version\n");
}

#define die(...) ns_cmd_die ("nodeshare-sim", __VA_ARGS__)

static int parse_long (const char *opt, const char *s, long lo, long hi,
                       long *out)
{
    char *end;
    errno = 0;
    long v = strtol (s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return die ("%s '%s': expected an integer %ld..%ld", opt, s, lo, hi);
    *out = v;
    return 0;
}

static int parse_loads (struct opts *o, const char *s)
{
    char *copy = strdup (s), *save = NULL;
    int rc = 0;
    o->nloads = 0;
    for (char *tok = strtok_r (copy, ",", &save); tok && rc == 0;
         tok = strtok_r (NULL, ",", &save)) {
        char *end;
        double v = strtod (tok, &end);
        if (end == tok || *end || !(v > 0) || v > 1 || o->nloads == MAX_LOADS)
            rc = die ("--closed '%s': expected up to %d loads in (0, 1], "
                      "e.g. 1,0.75,0.5,0.25", s, MAX_LOADS);
        else
            o->loads[o->nloads++] = v;
    }
    if (rc == 0 && o->nloads == 0)
        rc = die ("--closed: no load given");
    free (copy);
    return rc;
}

enum {
    OPT_STRICT = 256, OPT_MAX_JOBS, OPT_CLOSED, OPT_HORIZON, OPT_BF_DEPTH,
    OPT_OVERRUN,
    OPT_ASSIGN, OPT_SEED, OPT_JSON, OPT_CSV, OPT_SVG, OPT_CHECK,
    OPT_BASELINE, OPT_MIX, OPT_SACCT, OPT_COMPARE, OPT_SLURM_CONF,
    OPT_SWEEP, OPT_SLURM, OPT_COLLECT, OPT_CELL, OPT_SBATCH_ARGS,
    OPT_REPLAY_ALL, OPT_SLURM_RELEASE,
};

static const struct option longopts[] = {
    { "format", required_argument, NULL, 'f' },
    { "strict", no_argument, NULL, OPT_STRICT },
    { "nodes", required_argument, NULL, 'n' },
    { "cores", required_argument, NULL, 'C' },
    { "max-jobs", required_argument, NULL, OPT_MAX_JOBS },
    { "closed", required_argument, NULL, OPT_CLOSED },
    { "horizon", required_argument, NULL, OPT_HORIZON },
    { "mix", required_argument, NULL, OPT_MIX },
    { "sacct", required_argument, NULL, OPT_SACCT },
    { "config", required_argument, NULL, 'c' },
    { "policy", required_argument, NULL, 'p' },
    { "baseline", required_argument, NULL, OPT_BASELINE },
    { "jobs", required_argument, NULL, 'j' },
    { "backfill", required_argument, NULL, 'b' },
    { "bf-depth", required_argument, NULL, OPT_BF_DEPTH },
    { "overrun", required_argument, NULL, OPT_OVERRUN },
    { "assign-classes", no_argument, NULL, OPT_ASSIGN },
    { "seed", required_argument, NULL, OPT_SEED },
    { "json", required_argument, NULL, OPT_JSON },
    { "csv", required_argument, NULL, OPT_CSV },
    { "svg", required_argument, NULL, OPT_SVG },
    { "check", no_argument, NULL, OPT_CHECK },
    { "replay-all", no_argument, NULL, OPT_REPLAY_ALL },
    { "compare-placements", required_argument, NULL, OPT_COMPARE },
    { "slurm-conf", required_argument, NULL, OPT_SLURM_CONF },
    { "slurm-release", required_argument, NULL, OPT_SLURM_RELEASE },
    { "sweep", required_argument, NULL, OPT_SWEEP },
    { "slurm", no_argument, NULL, OPT_SLURM },
    { "collect", no_argument, NULL, OPT_COLLECT },
    { "cell", required_argument, NULL, OPT_CELL },
    { "sbatch-args", required_argument, NULL, OPT_SBATCH_ARGS },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
};

static int parse_opt (struct opts *o, int ch, const char *arg)
{
    long v;
    switch (ch) {
    case 'f':
        if (strcmp (arg, "swf") == 0)
            o->format = NS_TRACE_SWF;
        else if (strcmp (arg, "sacct") == 0)
            o->format = NS_TRACE_SACCT;
        else if (strcmp (arg, "auto") == 0)
            o->format = NS_TRACE_AUTO;
        else
            return die ("--format '%s': expected swf, sacct or auto", arg);
        return 0;
    case OPT_STRICT: o->strict = 1; return 0;
    case 'n':
        if (parse_long ("--nodes", arg, 1, 1000000, &v) < 0)
            return -1;
        o->nodes = (int)v;
        return 0;
    case 'C':
        if (parse_long ("--cores", arg, 1, NS_NODE_CORES_MAX, &v) < 0)
            return -1;
        o->cores = (int)v;
        return 0;
    case OPT_MAX_JOBS:
        if (parse_long ("--max-jobs", arg, 1, 1000000000, &v) < 0)
            return -1;
        o->max_jobs = v;
        return 0;
    case OPT_CLOSED: return parse_loads (o, arg);
    case OPT_HORIZON:
        if (parse_long ("--horizon", arg, 1, 1000000000, &v) < 0)
            return -1;
        o->horizon = (double)v;
        return 0;
    case OPT_MIX:
        for (v = 0; v < MIX_COUNT && strcmp (arg, mix_names[v]) != 0; v++)
            ;
        if (v == MIX_COUNT)
            return die ("--mix '%s': expected time (weights are shares of "
                        "machine time), work (shares of the work) or jobs "
                        "(shares of the jobs)", arg);
        o->mix = (ns_mix_t)v;
        o->mix_given = 1;
        return 0;
    case OPT_SACCT: o->sacct = arg; return 0;
    case 'c': o->config = arg; return 0;
    case 'p': o->policies = arg; return 0;
    case OPT_BASELINE:
        if (strcmp (arg, "pack") != 0 && strcmp (arg, "exclusive") != 0)
            return die ("--baseline '%s': expected pack (stock Slurm) or "
                        "exclusive (one job per node)", arg);
        o->baseline = arg;
        return 0;
    case 'j':
        if (parse_long ("--jobs", arg, 1, 1024, &v) < 0)
            return -1;
        o->jobs = (int)v;
        return 0;
    case 'b':
        if (strcmp (arg, "easy") == 0)
            o->backfill = NS_BACKFILL_EASY;
        else if (strcmp (arg, "none") == 0)
            o->backfill = NS_BACKFILL_NONE;
        else
            return die ("--backfill '%s': expected easy or none", arg);
        return 0;
    case OPT_BF_DEPTH:
        if (parse_long ("--bf-depth", arg, 1, 1000000, &v) < 0)
            return -1;
        o->bf_depth = (int)v;
        return 0;
    case OPT_OVERRUN:
        if (strcmp (arg, "kill") == 0)
            o->overrun = NS_OVERRUN_KILL;
        else if (strcmp (arg, "run") == 0)
            o->overrun = NS_OVERRUN_RUN;
        else
            return die ("--overrun '%s': expected kill (at the requested "
                        "time) or run (to the end of the trace runtime)",
                        arg);
        return 0;
    case OPT_ASSIGN: o->assign_classes = 1; return 0;
    case OPT_SEED:
        if (parse_long ("--seed", arg, 0, 2147483647, &v) < 0)
            return -1;
        o->seed = (uint64_t)v;
        return 0;
    case OPT_JSON: o->json = arg; return 0;
    case OPT_CSV: o->csv = arg; return 0;
    case OPT_SVG: o->svg = arg; return 0;
    case OPT_CHECK: o->check = 1; return 0;
    case OPT_REPLAY_ALL: o->replay_all = 1; return 0;
    case OPT_COMPARE: o->compare = arg; return 0;
    case OPT_SLURM_CONF: o->slurm_conf = arg; return 0;
    case OPT_SLURM_RELEASE: {
        unsigned ma, mi;
        char end;
        if (sscanf (arg, "%u.%u%c", &ma, &mi, &end) != 2 || ma < 20 || ma > 99
            || mi > 12)
            return die ("--slurm-release: expected MAJOR.MINOR of a Slurm "
                        "release (e.g. 24.11 or 26.05), got '%s'", arg);
        o->one_node_first = ma * 100 + mi >= 2605;
        return 0;
    }
    case OPT_SWEEP: o->sweep = arg; return 0;
    case OPT_SLURM: o->sweep_slurm = 1; return 0;
    case OPT_COLLECT: o->sweep_collect = 1; return 0;
    case OPT_CELL:
        if (parse_long ("--cell", arg, 0, NS_SWEEP_MAX_CELLS - 1, &v) < 0)
            return -1;
        o->sweep_cell = (int)v;
        return 0;
    case OPT_SBATCH_ARGS: o->sbatch_args = arg; return 0;
    case 'q': o->quiet = 1; return 0;
    case 'h': usage (stdout); exit (NS_EXIT_OK);
    case 'V': printf ("nodeshare-sim %s\n", PACKAGE_VERSION);
              exit (NS_EXIT_OK);
    default: return -1;     /* parse_opts () said which option */
    }
}

/* --sweep FILE: the file says what to run; here only how. */
static int sweep_opts (const struct opts *o)
{
    if (o->trace)
        return die ("--sweep takes its traces from the sweep file: give no "
                    "TRACE (got '%s')", o->trace);
    if (o->not_sweep)
        return die ("--sweep: --%s is not an option of a sweep run (the "
                    "sweep file says what every cell runs; see \"Sweeps\" "
                    "in nodeshare-sim(1))", o->not_sweep);
    if (o->sweep_slurm + o->sweep_collect + (o->sweep_cell >= 0) > 1)
        return die ("--slurm, --collect and --cell exclude each other");
    if (o->sbatch_args && !o->sweep_slurm)
        return die ("--sbatch-args goes with --slurm");
    return 0;
}

static int parse_opts (int argc, char **argv, struct opts *o)
{
    *o = (struct opts){ .backfill = NS_BACKFILL_EASY, .seed = 1,
                        .sweep_cell = -1 };
    long cores = sysconf (_SC_NPROCESSORS_ONLN);
    o->jobs = cores > 1 ? (cores < 1024 ? (int)cores : 1024) : 1;
    int ch;
    opterr = 0;     /* ns_cmd_bad_option () says it, without argv[0] */
    while ((ch = getopt_long (argc, argv, ":f:n:C:c:p:b:j:qhV", longopts,
                              NULL))
           != -1) {
        if (ch == '?' || ch == ':') {
            ns_cmd_bad_option ("nodeshare-sim", ch, argv);
            return -1;
        }
        if (parse_opt (o, ch, optarg) < 0)
            return -1;
        /* What a sweep file says for every cell cannot be given too. */
        if (ch != 'j' && ch != 'q' && ch != OPT_SWEEP && ch != OPT_SLURM
            && ch != OPT_COLLECT && ch != OPT_CELL && ch != OPT_SBATCH_ARGS)
            for (const struct option *lo = longopts; lo->name; lo++)
                if (lo->val == ch)
                    o->not_sweep = lo->name;
    }
    if (optind < argc)
        o->trace = argv[optind++];
    if (o->sweep)
        return sweep_opts (o);
    if (o->sweep_slurm || o->sweep_collect || o->sweep_cell >= 0
        || o->sbatch_args)
        return die ("%s goes with --sweep FILE",
                    o->sweep_slurm ? "--slurm" : o->sweep_collect
                    ? "--collect" : o->sweep_cell >= 0 ? "--cell"
                    : "--sbatch-args");
    if (optind < argc)
        return die ("one trace at a time (got '%s' too)", argv[optind]);
    if (o->trace && o->nloads)
        return die ("--closed runs a generated workload: give no trace");
    if (o->trace && (o->mix_given || o->horizon))
        return die ("%s applies to the closed experiment only: give no "
                    "trace", o->mix_given ? "--mix" : "--horizon");
    if (o->compare && (o->trace || o->nloads))
        return die ("--compare-placements replays its own dump: give no "
                    "trace and no --closed");
    if (o->compare && !o->cores)
        return die ("--compare-placements: give --cores C (sacct does not "
                    "record the size of a node)");
    if (o->slurm_conf && (o->nodes || o->cores))
        return die ("--slurm-conf describes the machine: give no --nodes "
                    "or --cores");
    if (o->slurm_conf && !o->trace)
        return die ("--slurm-conf replays a trace on that machine: give a "
                    "TRACE");
    if (o->compare && o->svg)
        return die ("--compare-placements writes no --svg");
    if (o->compare && o->sacct)
        return die ("--compare-placements writes no --sacct");
    return 0;
}

/* ---- policies ---- */

static int parse_policies (struct run *r)
{
    ns_error_t err;
    const ns_policy_t *base = ns_config_policy (r->cfg);
    if (ns_policyset_parse (&r->ps, base, r->o.policies, r->progs, r->model,
                            &err) < 0)
        return die ("%s", err.text);
    if (r->o.sacct) {
        if (r->ps.n != 1)
            return die ("--sacct writes the history of one policy: give "
                        "exactly one with -p (got %d)", r->ps.n);
        if (r->o.nloads > 1)
            return die ("--sacct writes the history of one run: give one "
                        "load with --closed");
        snprintf (r->sacct_policy, sizeof (r->sacct_policy), "%s",
                  r->ps.names[0]);
    }
    /* The baseline: what a stock cluster runs when a trace is replayed,
     * one job per node in the closed experiment (the study's reference). */
    r->baseline = r->o.baseline;
    if (!r->baseline)
        r->baseline = r->o.trace ? "pack" : "exclusive";
    if (ns_policyset_baseline (&r->ps, base, r->baseline, r->progs,
                               &err) < 0)
        return die ("%s", err.text);
    return 0;
}

/* What the baseline stands for, in the line above the table. */
static const char *baseline_what (const char *baseline)
{
    return strcmp (baseline, "pack") == 0 ? "stock Slurm" : "one job per node";
}

/* ---- trace loading ---- */

static int load_trace (struct run *r)
{
    ns_tracejobs_opts_t o = {
        .path = r->o.trace,
        .format = r->o.format,
        .strict = r->o.strict,
        .max_jobs = r->o.max_jobs,
        .identity = ns_config_identity (r->cfg),
        .progs = r->progs,
        .machine = r->machine,
    };
    ns_error_t err = { "" };
    if (ns_tracejobs_load (&r->tj, &o, &err) < 0)
        return err.text[0] ? die ("%s", err.text) : -1;
    return 0;
}

/* With memory consumable, Slurm gives a job that asks for no memory, in a
 * partition with neither DefMemPerCPU nor DefMemPerNode (its own or the
 * global one), all the memory of each of its nodes: one such job per
 * node.  The simulator does not: it lets such a job share nodes as if it
 * asked for none.  Say so, with how many jobs it concerns. */
static void note_all_memory (const struct run *r)
{
    const char *first = NULL;
    int64_t n = ns_machsize_all_memory_jobs (r->machine, r->tj.jobs,
                                             r->tj.njobs, &first);
    if (n)
        fprintf (stderr, "nodeshare-sim: note: %s: memory is consumable and "
                 "partition %s has neither DefMemPerCPU nor DefMemPerNode: "
                 "Slurm gives a job that asks for no memory all the memory "
                 "of each of its nodes (one such job per node); the "
                 "simulator lets the %lld such jobs of the trace share "
                 "nodes as if they needed none\n",
                 r->o.slurm_conf, first, (long long)n);
}

/* Machine size: a slurm.conf, else flags, else the SWF header (MaxNodes,
 * MaxProcs): sim/machsize.h. */
static int machine_size (struct run *r)
{
    ns_machsize_t ms = { 0 };
    ns_error_t err;
    r->nodes_from = "options";
    if (r->machine) {
        const ns_sconf_t *m = r->machine;
        ns_machsize_sconf (m, &ms);
        r->o.nodes = ms.nodes;
        r->o.cores = ms.cores;
        r->total_cores = ms.total_cores;
        r->nodes_from = r->o.slurm_conf;
        if (r->tj.unknown_parts)
            fprintf (stderr, "nodeshare-sim: note: %lld jobs name a "
                     "partition %s lacks (the first: %s): they run in its "
                     "default partition\n", (long long)r->tj.unknown_parts,
                     r->o.slurm_conf, r->tj.first_unknown_part);
        note_all_memory (r);
        if (m->cr_socket)
            fprintf (stderr, "nodeshare-sim: note: %s: CR_Socket: Slurm "
                     "gives jobs whole sockets; the simulator counts cores "
                     "(as CR_Core), and the select plugin leaves every job "
                     "to cons_tres there\n", r->o.slurm_conf);
        return 0;
    }
    if (r->o.nodes && r->o.cores) {
        r->total_cores = (int64_t)r->o.nodes * r->o.cores;
        return 0;
    }
    if (ns_machsize_header (&r->tj.header, r->o.nodes, r->o.cores,
                            r->o.trace, &ms, &err) < 0)
        return die ("%s", err.text);
    r->o.nodes = ms.nodes;
    r->o.cores = ms.cores;
    r->total_cores = ms.total_cores;
    r->nodes_from = "trace header";
    return 0;
}

/* --assign-classes: programs the configuration does not name get the
 * figures of a configured program, drawn by weight with a fixed seed. */
static void assign_classes (struct run *r, int first_unknown)
{
    ns_classes_assign (r->model, first_unknown, ns_progtab_count (r->progs),
                       r->o.seed);
}

/* nodeshare.json's scope ("partitions") and GRES nodes on the machine
 * of --slurm-conf, as the select plugin applies them. */
static int machine_scope (struct run *r)
{
    const ns_sconf_t *m = r->machine;
    int nscope = ns_config_scope_count (r->cfg, NS_SCOPE_PARTITION);
    if (!m) {
        if (nscope >= 0)
            fprintf (stderr, "nodeshare-sim: note: %s names partitions; "
                     "without --slurm-conf every job is in scope\n",
                     r->o.config ? r->o.config : "the configuration");
        return 0;
    }
    ns_error_t err;
    if (ns_scope_masks (r->cfg, m, &r->out_of_scope, &r->no_stripe,
                        &err) < 0)
        return die ("%s", err.text);
    return 0;
}

/* ---- running (sim/batch.h) ---- */

/* The configuration of a replay of policy k. */
static ns_simconf_t sim_conf (const struct run *r, int k)
{
    ns_policy_t pol = r->ps.policies[k];
    pol.stock_one_node_first = r->o.one_node_first;
    return (ns_simconf_t){
        .policy = pol,
        .backfill = r->o.backfill,
        .bf_depth = r->o.bf_depth,
        .overrun = r->o.overrun,
        .nnodes = r->o.nodes,
        .cores = r->o.cores,
        .model = r->model,
        .progs = r->progs,
        .machine = r->machine,
        .out_of_scope = r->out_of_scope,
        .no_stripe = r->no_stripe,
    };
}

/* Every policy (at every load) in up to --jobs threads. */
static int run_tasks (struct run *r, const double *loads, int nloads)
{
    ns_simconf_t confs[NS_POLICYSET_MAX];
    const char *names[NS_POLICYSET_MAX];
    int twin_of[NS_POLICYSET_MAX];
    for (int k = 0; k < r->ps.n; k++) {
        confs[k] = sim_conf (r, k);
        names[k] = r->ps.names[k];
    }
    ns_batch_t b = {
        .confs = confs,
        .names = names,
        .npolicies = r->ps.n,
        .loads = loads,
        .nloads = nloads,
        .jobs = r->tj.jobs,
        .njobs = r->tj.njobs,
        .total_cores = r->total_cores,
        .mix = r->o.mix,
        .horizon = r->o.horizon,
        .threads = r->o.jobs,
        .check = r->o.check,
        .csv = r->csv,
        .progress = r->progress ? stderr : NULL,
        .sacct_path = r->o.sacct,
        .sacct_policy = r->sacct_policy,
        /* 2026-01-01T00:00:00Z is time 0 unless the trace says when it
         * started */
        .sacct_epoch = r->tj.header.unix_start_time > 0
                       ? (double)r->tj.header.unix_start_time : 1767225600.0,
        .progs = r->progs,
    };
    /* Not with --check (every replay checks its invariants) or
     * --replay-all */
    char list[512];
    int n;
    if (!nloads && !r->o.check && !r->o.replay_all
        && (n = ns_batch_twins (&b, twin_of, list, sizeof (list))) > 0) {
        b.twin_of = twin_of;
        fprintf (stderr, "nodeshare-sim: note: no job of the trace gains "
                 "from striping: %s place%s every job as pack does, so %s "
                 "pack's replay (--replay-all replays %s too)\n", list,
                 n > 1 ? "" : "s", n > 1 ? "their schedules are"
                                         : "its schedule is",
                 n > 1 ? "them" : "it");
    }
    int nm = nloads ? nloads * r->ps.n : r->ps.n;
    if (!(r->metrics = calloc (nm, sizeof (*r->metrics))))
        return die ("out of memory");
    ns_error_t err;
    if (ns_batch_run (&b, r->metrics, &err) < 0)
        return die ("%s", err.text);
    r->nmetrics = nm;
    return 0;
}

static int setup_closed (struct run *r)
{
    int n = ns_interf_nprograms (r->model);
    if (n == 0)
        return die ("%s: the closed experiment needs programs with weights "
                    "in the configuration", r->o.config ? r->o.config
                                                        : "built-in");
    if (!r->o.nodes)
        r->o.nodes = 16;
    if (!r->o.cores)
        r->o.cores = 24;
    if (!r->o.horizon) {
        double longest = 0;
        for (int p = 0; p < n; p++)
            if (ns_interf_runtime (r->model, p) > longest)
                longest = ns_interf_runtime (r->model, p);
        r->o.horizon = 200 * longest;
    }
    r->nodes_from = "closed experiment";
    return 0;
}

/* ---- output ---- */

/* The metrics document's "input" (sim/metricsdoc.h). */
static ns_metricsdoc_input_t doc_input (const struct run *r)
{
    ns_metricsdoc_input_t in = {
        .trace = r->o.trace,
        .nodes = r->o.nodes,
        .cores = r->o.cores,
        .backfill_easy = r->o.backfill == NS_BACKFILL_EASY,
        .overrun_kill = r->o.overrun == NS_OVERRUN_KILL,
        .baseline = r->baseline,
        .note = r->note,
        .jobs_read = r->tj.jobs_read,
        .jobs_used = r->tj.njobs,
        .counts = &r->tj.counts,
        .recorded_mean_wait_s = r->tj.recorded_wait_n
            ? r->tj.recorded_wait_sum / r->tj.recorded_wait_n : NAN,
        .horizon_s = r->o.horizon,
        .peak_rss_mb = -1,
    };
    struct rusage ru;
    if (getrusage (RUSAGE_SELF, &ru) == 0)
        in.peak_rss_mb = ru.ru_maxrss / 1024.0;
    return in;
}

#define open_out(path) ns_cmd_open_out ("nodeshare-sim", path)
#define close_out(f, path) ns_cmd_close_out ("nodeshare-sim", f, path)

static int write_json (const struct run *r)
{
    ns_metricsdoc_input_t in = doc_input (r);
    json_object *doc = ns_metricsdoc_create (&in, r->metrics, r->nmetrics);
    if (!doc)
        return die ("out of memory");
    FILE *f = open_out (r->o.json);
    int rc = -1;
    if (f) {
        ns_metricsdoc_print (f, doc);
        rc = close_out (f, r->o.json);
    }
    json_object_put (doc);
    return rc;
}

static int write_svg (const struct run *r)
{
    char title[512];
    if (r->o.trace)
        snprintf (title, sizeof (title), "%s: %lld jobs on %d nodes x %d "
                  "cores (%s backfill)", r->o.trace, (long long)r->tj.njobs,
                  r->o.nodes, r->o.cores,
                  r->o.backfill == NS_BACKFILL_EASY ? "EASY" : "no");
    else
        snprintf (title, sizeof (title), "Closed experiment: %d nodes x %d "
                  "cores, %.0f h per load", r->o.nodes, r->o.cores,
                  r->o.horizon / 3600);
    FILE *f = open_out (r->o.svg);
    if (!f)
        return -1;
    ns_report_svg (f, r->metrics, r->nmetrics, title, r->baseline);
    return close_out (f, r->o.svg);
}

static int outputs (struct run *r)
{
    int rc = 0;
    ns_metrics_ratios (r->metrics, r->nmetrics, r->baseline);
    if (!r->o.json || strcmp (r->o.json, "-") != 0) {
        if (r->o.trace)
            ns_tracejobs_print (stdout, &r->tj, r->o.trace, r->machine,
                                r->o.nodes, r->o.cores, r->total_cores,
                                r->nodes_from);
        else
            ns_closed_print (stdout, r->model, r->progs, r->o.nodes,
                             r->o.cores, r->o.horizon);
        printf ("thr: work per hour relative to %s (%s)%s\n", r->baseline,
                baseline_what (r->baseline),
                r->o.trace ? "" : " at the same load");
        ns_report_table (stdout, r->metrics, r->nmetrics);
        for (int i = 0; i < r->nmetrics; i++)
            if (r->metrics[i].never)
                printf ("  %s: %lld jobs larger than the machine were not "
                        "run\n", r->metrics[i].policy,
                        (long long)r->metrics[i].never);
    }
    if (r->o.json && write_json (r) < 0)
        rc = -1;
    if (r->o.svg && write_svg (r) < 0)
        rc = -1;
    return rc;
}

static int load_config (struct run *r)
{
    ns_error_t err;
    if (r->o.config)
        r->cfg = ns_config_load_file (r->o.config, &err);
    else
        r->cfg = ns_config_load_string (builtin_config, "built-in", &err);
    if (!r->cfg)
        return die ("%s", err.text);
    r->progs = ns_config_progtab (r->cfg);
    r->model = ns_interf_copy (ns_config_interf (r->cfg));
    if (!r->model)
        return die ("out of memory");
    return 0;
}

/* Machines with one core per node: nothing can be shared or striped.
 * Policies still pick different nodes (pack takes runs of nodes as
 * cons_tres does), and EASY backfilling keeps off the nodes reserved for
 * the queue head, so with EASY the schedules may differ through that
 * alone; without backfilling they are the same.
 * from_header: the SWF header gave the node size, not --cores. */
static void one_core_note (struct run *r, int from_header)
{
    if (r->o.cores != 1)
        return;
    const char *why = from_header ? "trace header MaxNodes = MaxProcs"
                                  : "--cores 1";
    const char *differ = r->o.backfill == NS_BACKFILL_NONE
        ? ", so every policy gives the same schedule"
        : "; schedules differ only where a policy's choice of nodes changes "
          "what EASY backfilling can start (with --backfill none, every "
          "policy gives the same schedule)";
    snprintf (r->note, sizeof (r->note), "nodes have 1 core each (%s): no "
              "policy can share or stripe a node%s; give %s to replay on "
              "nodes of C cores", why, differ,
              r->o.trace ? "--nodes N --cores C" : "--cores C");
    fprintf (stderr, "nodeshare-sim: note: %s\n", r->note);
}

static int run_all (struct run *r)
{
    if (r->o.trace) {
        int nconf = ns_progtab_count (r->progs);
        int cores_from_header = !r->o.cores;
        if (r->o.slurm_conf) {
            ns_error_t err = { "" };
            if (!(r->machine = ns_sconf_load (r->o.slurm_conf, &err)))
                return die ("%s", err.text);
        }
        if (load_trace (r) < 0 || machine_size (r) < 0
            || machine_scope (r) < 0)
            return -1;
        ns_tracejobs_sort (&r->tj);
        if (r->o.assign_classes)
            assign_classes (r, nconf);
        one_core_note (r, cores_from_header);
        /* From here on r is only read until every policy has run. */
        return run_tasks (r, NULL, 0);
    }
    if (!r->o.nloads) {
        static const double study[] = { 1.0, 0.75, 0.5, 0.25 };
        printf ("No trace given: running the closed experiment of the "
                "%s configuration at loads 1.0, 0.75, 0.5, 0.25.\n",
                r->o.config ? r->o.config : "built-in ABQ/LAM/LSD study");
        memcpy (r->o.loads, study, sizeof (study));
        r->o.nloads = 4;
    }
    if (setup_closed (r) < 0)
        return -1;
    one_core_note (r, 0);
    return run_tasks (r, r->o.loads, r->o.nloads);
}

/* --compare-placements: one policy, the configuration's unless -p. */
static int compare_placements (struct run *r)
{
    int rc = 2;     /* bad usage until the replay runs */
    if (load_config (r) < 0)
        goto out;
    if (r->o.policies && strchr (r->o.policies, ',')) {
        die ("--compare-placements replays one policy, not '%s'",
             r->o.policies);
        goto out;
    }
    if (r->o.policies && strcmp (r->o.policies, "all") == 0) {
        die ("--compare-placements replays one policy, not 'all'");
        goto out;
    }
    if (r->o.policies) {
        ns_error_t err;
        if (ns_policyset_add (&r->ps, ns_config_policy (r->cfg), "--policy",
                              r->o.policies, r->progs, &err) < 0) {
            die ("%s", err.text);
            goto out;
        }
    }
    else {
        r->ps.policies[0] = *ns_config_policy (r->cfg);
        ns_policy_name (&r->ps.policies[0], r->progs, r->ps.names[0],
                        NS_POLICYSET_NAME);
        r->ps.n = 1;
    }
    r->ps.policies[0].stock_one_node_first = r->o.one_node_first;
    struct ns_compare_args a = {
        .dump = r->o.compare,
        .strict = r->o.strict,
        .cfg = r->cfg,
        .progs = r->progs,
        .model = r->model,
        .policy = r->ps.policies[0],
        .policy_name = r->ps.names[0],
        .backfill = r->o.backfill,
        .bf_depth = r->o.bf_depth,
        .nodes = r->o.nodes,
        .cores = r->o.cores,
        .check = r->o.check,
        .quiet = r->o.quiet,
        .json = r->o.json,
    };
    if (r->o.csv) {
        if (!(r->csv = open_out (r->o.csv)))
            goto out;
        ns_report_csv_header (r->csv);
        a.csv = r->csv;
    }
    rc = ns_compare_main (&a) < 0 ? 1 : 0;
    if (r->csv && close_out (r->csv, r->o.csv) < 0)
        rc = 1;
out:
    ns_interf_destroy (r->model);
    ns_config_destroy (r->cfg);
    return rc;
}

int main (int argc, char **argv)
{
    struct run r = { 0 };
#ifdef M_MMAP_THRESHOLD
    /* Large arrays (a simulator's per-job records, its queue) always in
     * their own mappings: they grow in place (mremap) and go back to the
     * system when freed.  glibc otherwise raises the threshold after the
     * first such array is freed (the baseline's run), and the next run's
     * arrays then grow by copying in the heap, which keeps what they
     * leave behind. */
    mallopt (M_MMAP_THRESHOLD, 128 * 1024);
#endif
    if (parse_opts (argc, argv, &r.o) < 0)
        return 2;
    if (r.o.sweep) {
        struct ns_sweep_args sa = {
            .file = r.o.sweep,
            .mode = r.o.sweep_slurm ? NS_SWEEP_SLURM
                    : r.o.sweep_collect ? NS_SWEEP_COLLECT
                    : r.o.sweep_cell >= 0 ? NS_SWEEP_CELL : NS_SWEEP_RUN,
            .cell = r.o.sweep_cell,
            .jobs = r.o.jobs,
            .quiet = r.o.quiet,
            .sbatch_args = r.o.sbatch_args,
            .builtin_config = builtin_config,
        };
        return ns_sim_sweep_main (&sa);
    }
    if (r.o.compare)
        return compare_placements (&r);
    if (load_config (&r) < 0 || parse_policies (&r) < 0) {
        ns_config_destroy (r.cfg);
        ns_interf_destroy (r.model);
        return 2;
    }
    r.progress = !r.o.quiet && isatty (STDERR_FILENO);
    int rc = 0;
    if (r.o.csv) {
        r.csv = open_out (r.o.csv);
        if (!r.csv)
            rc = -1;
        else
            ns_report_csv_header (r.csv);
    }
    if (rc == 0)
        rc = run_all (&r);
    if (rc == 0)
        rc = outputs (&r);
    if (r.csv && close_out (r.csv, r.o.csv) < 0)
        rc = -1;
    free (r.tj.jobs);
    free (r.metrics);
    ns_sconf_free (r.machine);
    free (r.out_of_scope);
    free (r.no_stripe);
    ns_interf_destroy (r.model);
    ns_config_destroy (r.cfg);
    return rc < 0 ? 1 : 0;
}
