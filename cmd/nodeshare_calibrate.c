/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeshare-calibrate - measure a site's programs with Slurm itself before
 * nodeshare is enabled: each program packed on whole nodes, striped alone
 * over half-used nodes, and striped beside chosen co-tenants, submitted as
 * ordinary sbatch jobs of explicit shapes (stock cons_tres places them as
 * asked); the ratios of their run times are written as the "programs"
 * section of nodeshare.json with their evidence under "learned".
 *
 * The options and main: the plan and the figures are sim/calib.c's, the
 * runs with Slurm cmd/calib_run.c's. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "calib.h"
#include "calib_run.h"
#include "cmdline.h"
#include "cmdout.h"
#include "nsconfig.h"

#define PROG "nodeshare-calibrate"
#define die(...) ns_cmd_die (PROG, __VA_ARGS__)

static void usage (FILE *f)
{
    fprintf (f,
"Usage: nodeshare-calibrate [OPTIONS] --budget CORE_HOURS SCRIPT...\n"
"       nodeshare-calibrate [OPTIONS] --budget CORE_HOURS --list FILE\n"
"       nodeshare-calibrate [OPTIONS] --dry-run SCRIPT...\n"
"Measure programs with Slurm before nodeshare is enabled: each job script\n"
"is submitted with sbatch packed on whole nodes (-N NODES --exclusive\n"
"--ntasks-per-node=CORES), striped alone over twice as many nodes, half\n"
"used (-N 2*NODES --exclusive --ntasks-per-node=CORES/2), and, for each\n"
"--beside program Q, striped on the same nodes as a job of Q that runs\n"
"throughout.  Writes spread_speedup = packed time / striped time and\n"
"slowdown Q = time beside Q / striped time, means over the repeats, as\n"
"the \"programs\" section of nodeshare.json, with runs and standard\n"
"errors under \"learned\".  A SCRIPT's program is its file name up to the\n"
"first '.'; the script needs a \"#!\" line, like any sbatch script.\n"
"\n"
"  -b, --budget CORE_HOURS  refuse a plan that may cost more (each job\n"
"                           counted at its time limit)\n"
"  -n, --dry-run            print the plan and its cost, submit nothing\n"
"  -l, --list FILE          \"PROGRAM SCRIPT\" lines (# comments)\n"
"  -r, --repeats N          runs of each shape (default 3, 1..100)\n"
"  -t, --time MINUTES       time limit of every job (default 60)\n"
"  -N, --nodes N            nodes of a packed run (default 1)\n"
"  -c, --cores C            cores of one node (default: sinfo, all nodes\n"
"                           of the partition must agree; even)\n"
"  -p, --partition NAME     partition of the jobs (default Slurm's)\n"
"  -B, --beside Q           also measure every program beside Q (one of\n"
"                           the programs; repeatable; \"all\": every pair)\n"
"  -H, --have FILE          nodeshare.json or an earlier output: figures it\n"
"                           gives are not measured again\n"
"  -w, --workdir DIR        wrappers, job output and times (default\n"
"                           ./nodeshare-calibrate.RUN; on a file system\n"
"                           the nodes see)\n"
"      --max-wait SECONDS   give up (and cancel the jobs) after this long\n"
"                           (default: every job at its limit, one after\n"
"                           the other, plus an hour)\n"
"  -o, --output FILE        write the JSON there (default stdout)\n"
"  -q, --quiet              no progress on stderr\n"
"  -h, --help               this help\n"
"  -V, --version            print the version\n"
"\n"
"Jobs are named after their program and carry the comment\n"
"\"nodeshare-calibrate RUN PROGRAM SHAPE REPEAT\".  Exit status: 0 figures\n"
"written (or the plan printed), 1 a job failed or the wait ended,\n"
"2 bad usage or input.  See nodeshare-calibrate(1).\n");
}

struct opts {
    double budget;
    int have_budget;
    int dry_run;
    const char *list;
    int repeats;
    int minutes;
    int nodes;
    int cores;
    const char *partition;
    const char *beside[NS_CALIB_MAX_PROGS];
    int nbeside;
    const char *have;
    const char *workdir;
    long max_wait;
    const char *output;
    int quiet;
};

/* ---- main ---- */

static int parse_opts (int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        { "budget", required_argument, NULL, 'b' },
        { "dry-run", no_argument, NULL, 'n' },
        { "list", required_argument, NULL, 'l' },
        { "repeats", required_argument, NULL, 'r' },
        { "time", required_argument, NULL, 't' },
        { "nodes", required_argument, NULL, 'N' },
        { "cores", required_argument, NULL, 'c' },
        { "partition", required_argument, NULL, 'p' },
        { "beside", required_argument, NULL, 'B' },
        { "have", required_argument, NULL, 'H' },
        { "workdir", required_argument, NULL, 'w' },
        { "max-wait", required_argument, NULL, 'W' },
        { "output", required_argument, NULL, 'o' },
        { "quiet", no_argument, NULL, 'q' },
        NS_CMD_LONGOPTS_END,
    };
    int c, mw = -1;
    char *end;
    opterr = 0;
    while ((c = getopt_long (argc, argv, ":b:nl:r:t:N:c:p:B:H:w:o:qhV", lo,
                             NULL)) != -1) {
        switch (c) {
        case 'b':
            errno = 0;
            o->budget = strtod (optarg, &end);
            if (errno || end == optarg || *end || !(o->budget > 0)
                || !isfinite (o->budget))
                return die ("--budget '%s': expected core-hours, a number "
                            "above 0", optarg);
            o->have_budget = 1;
            break;
        case 'n': o->dry_run = 1; break;
        case 'l': o->list = optarg; break;
        case 'r':
            if (ns_cmd_int (PROG, "--repeats", optarg, 1, NS_CALIB_MAX_REPEATS,
                            &o->repeats))
                return -1;
            break;
        case 't':
            if (ns_cmd_int (PROG, "--time", optarg, 1, 525600, &o->minutes))
                return -1;
            break;
        case 'N':
            if (ns_cmd_int (PROG, "--nodes", optarg, 1, NS_CLUSTER_NODES_MAX,
                            &o->nodes))
                return -1;
            break;
        case 'c':
            /* even: the largest even count of a node's cores at most */
            if (ns_cmd_int (PROG, "--cores", optarg, 2,
                            NS_NODE_CORES_MAX & ~1, &o->cores))
                return -1;
            if (o->cores % 2)
                return die ("--cores '%s': expected an even number (a "
                            "striped run uses half of each node)", optarg);
            break;
        case 'p': o->partition = optarg; break;
        case 'B':
            if (o->nbeside == NS_CALIB_MAX_PROGS)
                return die ("--beside: more than %d", NS_CALIB_MAX_PROGS);
            o->beside[o->nbeside++] = optarg;
            break;
        case 'H': o->have = optarg; break;
        case 'w': o->workdir = optarg; break;
        case 'W':
            if (ns_cmd_int (PROG, "--max-wait", optarg, 1, INT_MAX, &mw))
                return -1;
            o->max_wait = mw;
            break;
        case 'o': o->output = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'h': usage (stdout); exit (NS_EXIT_OK);
        case 'V':
            ns_cmd_version (PROG, PACKAGE_VERSION);
            exit (NS_EXIT_OK);
        default:
            ns_cmd_bad_option (PROG, c, argv);
            return -1;
        }
    }
    return 0;
}

/* The output is none of the inputs (the scripts from optind on, the
 * list, the figures the site has) and not write-protected. */
static int check_files (const struct opts *o, int argc, char **argv)
{
    const char *opts[] = { "-o" }, *outs[] = { o->output };
    const char *ins[] = { o->list, o->have };
    return ns_cmd_check_outs (PROG, opts, outs, 1, ins, 2, argv + optind,
                              argc - optind);
}

/* The programs: SCRIPT arguments or --list.  0, or -1 (said why). */
static int read_programs (ns_calib_t *c, const struct opts *o, int argc,
                          char **argv)
{
    ns_error_t err;
    if (o->list && optind < argc)
        return die ("give SCRIPT arguments or --list FILE, not both");
    if (!o->list && optind == argc)
        return die ("no job script (give SCRIPT... or --list FILE; see "
                    "--help)");
    if (o->list && ns_calib_read_list (c, o->list, &err) < 0)
        return die ("%s", err.text);
    for (int i = o->list ? argc : optind; i < argc; i++)
        if (ns_calib_add_script (c, argv[i], &err) < 0)
            return die ("%s", err.text);
    return 0;
}

/* c->beside[q] = 1 for each --beside program.  0, or -1 (said why). */
static int resolve_beside (ns_calib_t *c, const struct opts *o)
{
    for (int i = 0; i < o->nbeside; i++) {
        if (!strcmp (o->beside[i], "all")) {
            for (int q = 0; q < c->nprogs; q++)
                c->beside[q] = 1;
            continue;
        }
        int q = ns_calib_find (c, o->beside[i]);
        if (q < 0)
            return die ("--beside %s: not one of the programs measured "
                        "(its job script is needed)", o->beside[i]);
        c->beside[q] = 1;
    }
    return 0;
}

/* The plan and its cost printed (unless quiet), checked against the
 * budget.  0, or -1 (said why). */
static int check_plan (const ns_calib_t *c, const struct opts *o)
{
    double cost = 0;
    if (o->dry_run || !o->quiet)
        cost = ns_calib_print_plan (c, o->dry_run ? stdout : stderr);
    else
        cost = ns_calib_cost (c);
    if (o->have_budget && cost > o->budget + 1e-9)
        return die ("the plan may cost %.2f core-hours, over the budget of "
                    "%g (--budget): fewer --repeats, a shorter --time, fewer "
                    "programs or --beside, or --have with the figures known",
                    cost, o->budget);
    return 0;
}

/* The plan of c, less what --have gives.  0; 1 nothing to measure; -1
 * (said why): bad --have (*status NS_EXIT_USAGE) or out of memory. */
static int plan (ns_calib_t *c, const struct opts *o, int *status)
{
    ns_config_t *have = NULL;
    ns_error_t err;
    *status = NS_EXIT_USAGE;
    if (o->have && !(have = ns_config_load_file (o->have, &err)))
        return die ("--have %s", err.text);
    if (!o->cores && (c->cores = ns_calrun_sinfo_cores (o->partition)) < 0)
        goto error;
    if (c->cores % 2) {
        die ("nodes of %d cores: a striped run needs an even number (give "
             "--cores)", c->cores);
        goto error;
    }
    snprintf (c->runid, sizeof (c->runid), "%lx%04x",
              (unsigned long) time (NULL), (unsigned) getpid () & 0xffff);
    int planned = ns_calib_plan (c, have, &err);
    ns_config_destroy (have);
    *status = NS_EXIT_FAIL;
    if (planned < 0)
        return die ("%s", err.text);
    if (c->nruns == 0) {
        fprintf (stderr, PROG ": nothing to measure: %s gives every figure "
                 "asked for\n", o->have ? o->have : "--have");
        *status = NS_EXIT_OK;
        return 1;
    }
    return 0;
error:
    ns_config_destroy (have);
    return -1;
}

/* 1.3 MB of paths: not on the stack. */
static ns_calib_t calib;

int main (int argc, char **argv)
{
    struct opts o = { .repeats = 3, .minutes = 60, .nodes = 1 };
    ns_calib_t *c = &calib;
    int status;
    if (parse_opts (argc, argv, &o) < 0
        || read_programs (c, &o, argc, argv) < 0 || resolve_beside (c, &o) < 0)
        return NS_EXIT_USAGE;
    if (!o.dry_run && !o.have_budget)
        return die ("no --budget: give the core-hours the runs may take, or "
                    "--dry-run to see the plan"), NS_EXIT_USAGE;
    c->repeats = o.repeats;
    c->minutes = o.minutes;
    c->nodes = o.nodes;
    c->cores = o.cores;
    if (plan (c, &o, &status) != 0)
        return status;
    if (check_plan (c, &o) < 0 || check_files (&o, argc, argv) < 0)
        return NS_EXIT_USAGE;
    if (o.dry_run)
        return NS_EXIT_OK;
    struct ns_calrun_opts ro = { .partition = o.partition,
                                 .workdir = o.workdir,
                                 .max_wait = o.max_wait, .quiet = o.quiet };
    if (!ro.max_wait) {
        int jobs = 0;
        for (int i = 0; i < c->nruns; i++)
            jobs += ns_calib_run_jobs (&c->runs[i]);
        ro.max_wait = (long) jobs * c->minutes * 60 + 3600;
    }
    if (ns_calrun_prepare (c, &ro) < 0 || ns_calrun_execute (c, &ro) < 0)
        return NS_EXIT_FAIL;
    char by[128];
    ns_error_t err;
    snprintf (by, sizeof (by), PROG " %s", PACKAGE_VERSION);
    json_object *root = ns_calib_figures (c, by);
    int rc = ns_calib_write (root, o.output, &err);
    if (rc < 0)
        die ("%s", err.text);
    json_object_put (root);
    ns_calib_free (c);
    return rc < 0 ? NS_EXIT_FAIL : NS_EXIT_OK;
}
