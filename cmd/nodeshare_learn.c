/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeshare-learn - fit the interference model (spread_speedup, slowdown)
 * from sacct --parsable2 dumps of the cluster's own jobs (model/learn.h),
 * and print it as the "programs" section of nodeshare.json. */
#include "config.h"

#include <stdint.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <json-c/json_util.h>

#include "cluster.h"
#include "cmdline.h"
#include "cmdout.h"
#include "history.h"
#include "identity.h"
#include "learn.h"
#include "learned.h"
#include "learnopts.h"
#include "nsconfig.h"
#include "nsranges.h"
#include "nsutil.h"
#include "placeopts.h"
#include "progtab.h"
#include "trace.h"

#define PROG "nodeshare-learn"

static void usage (FILE *f)
{
    fprintf (f,
"Usage: nodeshare-learn [OPTIONS] DUMP...\n"
"       nodeshare-learn [OPTIONS] --state FILE [DUMP...]\n"
"Fit each program's spread_speedup and the pairwise slowdown matrix from\n"
"the cluster's own job history, and print them as the \"programs\" section\n"
"of nodeshare.json (with the evidence behind each figure under \"learned\").\n"
"A DUMP is the output of sacct --parsable2 (plain or gzip, '-' for stdin)\n"
"with the fields JobID (or JobIDRaw), JobName, Submit, Start, End (or\n"
"ElapsedRaw), AllocCPUS, NNodes, NodeList and State; one DUMP is one\n"
"cluster's history (node names are local to it).\n"
"\n"
"  -C, --cores C            cores of one node (required: sacct does not say)\n"
"  -c, --config FILE        nodeshare.json whose identity patterns map job\n"
"                           names to programs (default: names as they are)\n"
"      --min-observations N jobs needed per figure (default 5)\n"
"      --min-exposure F     fraction of a job's run that counts as exposed\n"
"                           (default 0.05)\n"
"      --max-se X           figures less certain stay neutral (default 0.05)\n"
"      --state FILE         also what the select plugin has learned so far\n"
"                           (StateSaveLocation/nodeshare-learn.json; its\n"
"                           node size is used when --cores is not given)\n"
"  -o, --output FILE        write the JSON there (default stdout)\n"
"  -t, --table              a table instead: program, figure, value,\n"
"                           standard error, jobs (learned figures only)\n"
"  -q, --quiet              no summary on stderr\n"
"  -h, --help               this help\n"
"  -V, --version            print the version\n"
"\n"
"A figure is learned only if the history identifies it (the runs seen\n"
"separate it from the other figures), enough jobs were exposed to it and\n"
"its standard error is small enough.  The others are left out (they stay\n"
"neutral, 1.0), listed on stderr with the reason and, for one the history\n"
"does not identify, the runs that would; the JSON has them under\n"
"learned.programs.P.not_learned.  Exit status: 0 figures written, 1 no\n"
"usable job, 2 bad usage.  See nodeshare-learn(1).\n");
}

#define die(...) ns_cmd_die (PROG, __VA_ARGS__)

struct opts {
    int cores;
    const char *config;
    const char *output;
    int quiet;
    int table;
    const char *state;
    ns_learn_opts_t lo;
};

/* Read one dump into l; the summary on stderr.  0, or -1 (said why). */
static int read_dump (const char *path, ns_learn_t *l, ns_config_t *cfg,
                      ns_progtab_t *progs, const struct opts *o,
                      ns_history_t **out)
{
    ns_error_t err;
    ns_history_t *h = ns_history_read (path, cfg ? ns_config_identity (cfg)
                                                 : NULL, progs, &err);
    if (!h)
        return die ("%s", err.text);
    *out = h;
    if (!o->quiet) {
        const struct ns_trace_counts *c = ns_history_counts (h);
        fprintf (stderr, PROG ": %s: %llu jobs read, %d observed (COMPLETED), "
                 "%d co-tenants only (failed, cancelled, timed out), %d "
                 "nodes\n", path, (unsigned long long)c->jobs,
                 ns_history_observed (h), ns_history_context (h),
                 ns_history_nnodes (h));
        for (int r = 0; r < NS_SKIP_NREASONS; r++)
            if (c->skip[r].count)
                fprintf (stderr, PROG ": %s: %llu lines skipped (%s), first "
                         "line %lld: %s\n", path,
                         (unsigned long long)c->skip[r].count,
                         ns_trace_skip_name (r), (long long)c->skip[r].lines[0],
                         c->skip[r].first);
        for (int k = 0; k < NS_HIST_NKINDS; k++) {
            int64_t line;
            const char *first;
            uint64_t n = ns_history_bad (h, k, &line, &first);
            if (n)
                fprintf (stderr, PROG ": %s: %llu jobs left out (%s), first "
                         "line %lld: %s\n", path, (unsigned long long)n,
                         ns_history_bad_name (k), (long long)line, first);
        }
    }
    int n;
    const ns_learn_job_t *jobs = ns_history_jobs (h, &n);
    if (ns_learn_add_history (l, jobs, n, &err) < 0)
        return die ("%s: %s", path, err.text);
    return 0;
}

static int report (const ns_learn_t *l, const ns_progtab_t *progs,
                   const struct opts *o, int ndumps, FILE *out)
{
    struct ns_learned_input in = {
        .prog = PROG,
        .notes_prefix = 1,
        .cores = o->cores,
        .histories = ndumps,
        .lo = &o->lo,
        .notes = o->quiet ? NULL : stderr,
    };
    int nlearned, nleft;
    json_object *root = ns_learned_json (l, progs, &in, &nlearned, &nleft);
    if (!root)
        return die ("out of memory");
    int rc;
    if (o->table)
        rc = ns_learned_table (l, progs, out);
    else
        rc = fprintf (out, "%s\n", ns_learned_text (root)) < 0 ? -1 : 0;
    json_object_put (root);
    if (!o->quiet) {
        fprintf (stderr, PROG ": %d figures learned, %d left neutral",
                 nlearned, nleft);
        const char *sep = " (";
        for (int w = NS_LEARN_UNIDENTIFIED; w <= NS_LEARN_UNCERTAIN; w++) {
            int c = ns_learned_count (l, progs, (ns_learn_why_t)w);
            if (c) {
                fprintf (stderr, "%s%d %s", sep, c, ns_learn_why_name (w));
                sep = ", ";
            }
        }
        fprintf (stderr, "%s\n", *sep == ',' ? ")" : "");
    }
    return rc;
}

enum { OPT_STATE = NS_OPT_LEARN_END };

static const struct option longopts[] = {
    { "cores", required_argument, NULL, 'C' },
    { "config", required_argument, NULL, 'c' },
    NS_LEARN_LONGOPTS,
    { "output", required_argument, NULL, 'o' },
    { "state", required_argument, NULL, OPT_STATE },
    { "quiet", no_argument, NULL, 'q' },
    { "table", no_argument, NULL, 't' },
    NS_CMD_LONGOPTS_END,
};

/* The output is none of the inputs (the dumps from optind on, the
 * configuration, the state) and not write-protected. */
static int check_files (const struct opts *o, int argc, char **argv)
{
    const char *opts[] = { "-o" }, *outs[] = { o->output };
    const char *ins[] = { o->config, o->state };
    return ns_cmd_check_outs (PROG, opts, outs, 1, ins, 2, argv + optind,
                              argc - optind);
}

int main (int argc, char **argv)
{
    struct opts o = { 0 };
    ns_learn_opts_default (&o.lo);
    int ch;
    opterr = 0;
    while ((ch = getopt_long (argc, argv, ":C:c:o:qthV", longopts, NULL))
           != -1) {
        switch (ch) {
        case 'C':
            if (ns_cmd_size_opt (PROG, ch, optarg, NULL, &o.cores) < 0)
                return NS_EXIT_USAGE;
            break;
        case 'c': o.config = optarg; break;
        case OPT_STATE: o.state = optarg; break;
        case 'o': o.output = optarg; break;
        case 'q': o.quiet = 1; break;
        case 't': o.table = 1; break;
        case NS_OPT_MIN_OBS:
        case NS_OPT_MIN_EXP:
        case NS_OPT_MAX_SE:
            if (ns_cmd_learn_opt (PROG, ch, optarg, &o.lo) < 0)
                return NS_EXIT_USAGE;
            break;
        case 'h': usage (stdout); return NS_EXIT_OK;
        case 'V':
            ns_cmd_version (PROG, PACKAGE_VERSION);
            return NS_EXIT_OK;
        default:
            ns_cmd_bad_option (PROG, ch, argv);
            return NS_EXIT_USAGE;
        }
    }
    if (optind == argc && !o.state)
        return die ("no sacct dump given (see --help)"), NS_EXIT_USAGE;
    if (check_files (&o, argc, argv) < 0)
        return NS_EXIT_USAGE;
    ns_error_t err;
    json_object *state = NULL;
    if (o.state) {
        json_object *nc;
        if (ns_json_read_file (o.state, NS_STATE_MAX_BYTES, &state, &err)
            < 0)
            return die ("%s", err.text), NS_EXIT_FAIL;
        if (!json_object_is_type (state, json_type_object)
            || !json_object_object_get_ex (state, "node_cores", &nc)
            || json_object_get_int (nc) < 1) {
            json_object_put (state);
            return die ("%s: not a learning state (no node_cores)", o.state),
                   NS_EXIT_FAIL;
        }
        if (o.cores && o.cores != json_object_get_int (nc)) {
            die ("%s: nodes of %d cores, not --cores %d", o.state,
                 json_object_get_int (nc), o.cores);
            json_object_put (state);
            return NS_EXIT_USAGE;
        }
        o.cores = json_object_get_int (nc);
    }
    if (!o.cores)
        return die ("give --cores C: a sacct dump does not say how many "
                    "cores a node has"), NS_EXIT_USAGE;
    ns_config_t *cfg = NULL;
    if (o.config && !(cfg = ns_config_load_file (o.config, &err)))
        return die ("%s", err.text), NS_EXIT_USAGE;
    /* Configured programs first, in the configuration's order. */
    ns_progtab_t *progs = cfg ? ns_progtab_copy (ns_config_progtab (cfg))
                              : ns_progtab_create ();
    ns_learn_t *l = ns_learn_create (o.cores, &err);
    int ndumps = argc - optind, rc = NS_EXIT_FAIL;
    ns_history_t **h = calloc (ndumps ? ndumps : 1, sizeof (*h));
    if (!progs || !l || !h) {
        die ("out of memory");
        goto out;
    }
    if (state && ns_learn_load (l, state, progs, &err) < 0) {
        die ("%s: %s", o.state, err.text);
        goto out;
    }
    if (state && !o.quiet)
        fprintf (stderr, PROG ": %s: %d observations\n", o.state,
                 ns_learn_nobservations (l));
    for (int i = 0; i < ndumps; i++)
        if (read_dump (argv[optind + i], l, cfg, progs, &o, &h[i]) < 0)
            goto out;
    int observed = 0;
    for (int p = 0; p < ns_progtab_count (progs); p++)
        observed += ns_learn_njobs (l, p);
    if (observed == 0) {
        die ("no completed job with a known program and a node list in %s%s",
             ndumps ? argv[optind] : o.state,
             ndumps > 1 || (ndumps && o.state) ? " and the other inputs" : "");
        goto out;
    }
    if (ns_learn_fit (l, &o.lo, &err) < 0) {
        die ("%s", err.text);
        goto out;
    }
    const char *oname = o.output ? o.output : "-";
    FILE *out = ns_cmd_open_out (PROG, oname);
    if (!out)
        goto out;
    int w = report (l, progs, &o, ndumps, out);
    if (ns_cmd_close_out (PROG, out, oname) == 0) {
        if (w < 0)
            die ("%s: write failed", o.output ? o.output : "stdout");
        else
            rc = NS_EXIT_OK;
    }
out:
    for (int i = 0; h && i < ndumps; i++)
        ns_history_destroy (h[i]);
    free (h);
    ns_learn_destroy (l);
    ns_progtab_destroy (progs);
    ns_config_destroy (cfg);
    json_object_put (state);
    return rc;
}
