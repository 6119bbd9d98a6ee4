/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim_opts.c - nodeshare-sim's command line (see sim_opts.h) */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "cmdout.h"
#include "nsutil.h"
#include "placeopts.h"
#include "sim_opts.h"
#include "sweep.h"

#define PROG "nodeshare-sim"
#define die(...) ns_cmd_die (PROG, __VA_ARGS__)

/* --mix: what a program's weight is a share of, in closed experiments. */
static const char *const mix_names[] = {
    [NS_MIX_TIME] = "time", [NS_MIX_WORK] = "work", [NS_MIX_JOBS] = "jobs",
};
#define MIX_COUNT ((int)(sizeof (mix_names) / sizeof (mix_names[0])))

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
    NS_SIZE_LONGOPTS,
    { "max-jobs", required_argument, NULL, OPT_MAX_JOBS },
    { "closed", required_argument, NULL, OPT_CLOSED },
    { "horizon", required_argument, NULL, OPT_HORIZON },
    { "mix", required_argument, NULL, OPT_MIX },
    { "sacct", required_argument, NULL, OPT_SACCT },
    NS_POLICY_LONGOPTS,
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
    NS_CMD_LONGOPTS_END,
};

static int parse_opt (struct opts *o, int ch, const char *arg)
{
    long v = 0;
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
    case 'C': return ns_cmd_size_opt (PROG, ch, arg, &o->nodes, &o->cores);
    case OPT_MAX_JOBS:
        if (ns_cmd_long (PROG, "--max-jobs", arg, 1, 1000000000, &v) < 0)
            return -1;
        o->max_jobs = v;
        return 0;
    case OPT_CLOSED: return parse_loads (o, arg);
    case OPT_HORIZON:
        if (ns_cmd_long (PROG, "--horizon", arg, 1, 1000000000, &v) < 0)
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
        if (ns_cmd_long (PROG, "--jobs", arg, 1, 1024, &v) < 0)
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
        if (ns_cmd_long (PROG, "--bf-depth", arg, 1, 1000000, &v) < 0)
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
        if (ns_cmd_long (PROG, "--seed", arg, 0, 2147483647, &v) < 0)
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
        if (ns_cmd_long (PROG, "--cell", arg, 0, NS_SWEEP_MAX_CELLS - 1, &v)
            < 0)
            return -1;
        o->sweep_cell = (int)v;
        return 0;
    case OPT_SBATCH_ARGS: o->sbatch_args = arg; return 0;
    case 'q': o->quiet = 1; return 0;
    case 'h': usage (stdout); exit (NS_EXIT_OK);
    case 'V': ns_cmd_version ("nodeshare-sim", PACKAGE_VERSION);
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

/* No output file is an input of the run, a write-protected file or
 * another output. */
static int check_files (const struct opts *o)
{
    const char *opts[] = { "--json", "--csv", "--svg", "--sacct" };
    const char *outs[] = { o->json, o->csv, o->svg, o->sacct };
    const char *ins[] = { o->trace, o->config, o->slurm_conf, o->compare,
                          o->sweep };
    return ns_cmd_check_outs ("nodeshare-sim", opts, outs, 4, ins, 5, NULL,
                              0);
}

int sim_parse_opts (int argc, char **argv, struct opts *o)
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
        return sweep_opts (o) < 0 ? -1 : check_files (o);
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
    return check_files (o);
}

