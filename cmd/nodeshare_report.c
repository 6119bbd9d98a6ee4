/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeshare-report - what a cluster's own history says about adopting
 * nodeshare: which programs run most, the interference figures learned
 * from it (model/learn.h, printed as nodeshare-learn prints them), the
 * replay of the same jobs under pack and under the configured policy
 * with those figures, the jobs the policy places differently and why,
 * the select plugin's shadow records and the nodeshare.json to start
 * with.  Text on stdout, and one self-contained HTML file with inline
 * SVG charts (--html).  The options and the order of the steps; the
 * steps are sim/rep.h's.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "calib.h"
#include "cmdline.h"
#include "cmdout.h"
#include "fileio.h"
#include "learned.h"
#include "learnopts.h"
#include "nsranges.h"
#include "placeopts.h"
#include "policy.h"
#include "progtab.h"
#include "rep.h"

#define PROG NS_REP_PROG

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

#define open_out(path) ns_cmd_open_out (PROG, path)
#define close_out(f, path) ns_cmd_close_out (PROG, f, path)

enum { OPT_STATE = NS_OPT_LEARN_END, OPT_SHADOW,
       OPT_HTML, OPT_JSON_OUT, OPT_FAILURES, OPT_REPEATS };

static const struct option longopts[] = {
    NS_SIZE_LONGOPTS,
    { "slurm-conf", required_argument, NULL, 'S' },
    { "node-failures-per-year", required_argument, NULL, OPT_FAILURES },
    { "calibration-repeats", required_argument, NULL, OPT_REPEATS },
    NS_POLICY_LONGOPTS,
    NS_LEARN_LONGOPTS,
    { "state", required_argument, NULL, OPT_STATE },
    { "shadow", required_argument, NULL, OPT_SHADOW },
    { "html", required_argument, NULL, OPT_HTML },
    { "json-out", required_argument, NULL, OPT_JSON_OUT },
    { "output", required_argument, NULL, 'o' },
    { "quiet", no_argument, NULL, 'q' },
    NS_CMD_LONGOPTS_END,
};

/* No output file is an input (the dumps from optind on, the shadow
 * files, the configuration, the state, slurm.conf), a write-protected
 * file or another output. */
static int check_files (const struct ns_rep_opts *o, int argc, char **argv)
{
    const char *opts[] = { "-o", "--html", "--json-out" };
    const char *outs[] = { o->output, o->html, o->json_out };
    const char *ins[NS_REP_MAX_SHADOW + 3] = { o->config, o->state,
                                               o->slurm_conf };
    for (int i = 0; i < o->nshadow; i++)
        ins[3 + i] = o->shadow[i];
    return ns_cmd_check_outs (PROG, opts, outs, 3, ins, 3 + o->nshadow,
                              argv + optind, argc - optind);
}

/* --policy's name, before any dump is read: a keep:PROGRAM names any
 * program (the history says which exist). */
static int check_policy (const char *name)
{
    ns_progtab_t *t = ns_progtab_create ();
    if (!t)
        return die ("out of memory");
    ns_policy_t p;
    ns_error_t err;
    ns_policy_default (&p);
    int rc = ns_policy_parse (&p, name, t, &err);
    ns_progtab_destroy (t);
    return rc < 0 ? die ("--policy: %s", err.text) : 0;
}

static int parse_opts (int argc, char **argv, struct ns_rep_opts *o)
{
    int ch;
    opterr = 0;
    while ((ch = getopt_long (argc, argv, ":C:n:S:c:p:o:qhV", longopts, NULL))
           != -1) {
        switch (ch) {
        case 'C':
        case 'n':
            if (ns_cmd_size_opt (PROG, ch, optarg, &o->nodes, &o->cores) < 0)
                return -1;
            break;
        case 'S': o->slurm_conf = optarg; break;
        case OPT_FAILURES:
            if (ns_cmd_double (PROG, "--node-failures-per-year", optarg, 0,
                               1e6, &o->fail_per_year) < 0)
                return -1;
            break;
        case OPT_REPEATS:
            if (ns_cmd_int (PROG, "--calibration-repeats", optarg, 1,
                            NS_CALIB_MAX_REPEATS, &o->repeats) < 0)
                return -1;
            break;
        case 'c': o->config = optarg; break;
        case 'p':
            if (check_policy (optarg) < 0)
                return -1;
            o->policy = optarg;
            break;
        case 'o': o->output = optarg; break;
        case 'q': o->quiet = 1; break;
        case OPT_STATE: o->state = optarg; break;
        case OPT_HTML: o->html = optarg; break;
        case OPT_JSON_OUT: o->json_out = optarg; break;
        case OPT_SHADOW:
            if (o->nshadow == NS_REP_MAX_SHADOW)
                return die ("--shadow: more than %d files", NS_REP_MAX_SHADOW);
            o->shadow[o->nshadow++] = optarg;
            break;
        case NS_OPT_MIN_OBS:
        case NS_OPT_MIN_EXP:
        case NS_OPT_MAX_SE:
            if (ns_cmd_learn_opt (PROG, ch, optarg, &o->lo) < 0)
                return -1;
            break;
        case 'h': usage (stdout); exit (NS_EXIT_OK);
        case 'V':
            ns_cmd_version (PROG, PACKAGE_VERSION);
            exit (NS_EXIT_OK);
        default:
            ns_cmd_bad_option (PROG, ch, argv);
            return -1;
        }
    }
    return 0;
}

/* What nodeshare-learn writes from the fitted figures (sim/learned.h):
 * the JSON, the notes on the figures left neutral, the table. */
static int learned_outputs (struct ns_rep *r)
{
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

/* The steps up to the report, in order; r->err says why one failed. */
static int run_steps (struct ns_rep *r)
{
    for (int i = 0; i < r->ndumps; i++)
        if (strcmp (r->dumps[i], "-") == 0 && ns_rep_spool_stdin (r, i) < 0)
            return -1;
    if (ns_rep_learn_all (r) < 0)
        return -1;
    if (learned_outputs (r) < 0)
        return -2;      /* said */
    if (ns_rep_replay_config (r) < 0 || ns_rep_replay_all (r) < 0
        || ns_rep_read_shadow (r) < 0 || ns_rep_node_failures (r) < 0)
        return -1;
    return 0;
}

/* The text report, the nodeshare.json to start with, the HTML. */
static int write_outputs (struct ns_rep *r)
{
    FILE *f = r->o.output ? open_out (r->o.output) : stdout;
    if (!f)
        return -1;
    ns_rep_write_text (r, f);
    if (close_out (f, r->o.output ? r->o.output : "stdout") < 0)
        return -1;
    if (r->o.json_out) {
        FILE *j = open_out (r->o.json_out);
        if (!j)
            return -1;
        fprintf (j, "%s\n", r->start);
        if (close_out (j, r->o.json_out) < 0)
            return -1;
    }
    if (r->o.html) {
        FILE *h = open_out (r->o.html);
        if (!h)
            return -1;
        ns_rep_write_html (r, h);
        if (close_out (h, r->o.html) < 0)
            return -1;
        ns_rep_progress_line (r, "%s: written", r->o.html);
    }
    return 0;
}

int main (int argc, char **argv)
{
    struct ns_rep r = { 0 };
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
    if (check_files (&r.o, argc, argv) < 0)
        return NS_EXIT_USAGE;
    r.tty = isatty (STDERR_FILENO);
    int rc = NS_EXIT_FAIL;
    int li = ns_rep_load_inputs (&r);
    if (li < 0) {
        die ("%s", r.err);
        rc = li == -2 ? NS_EXIT_USAGE : NS_EXIT_FAIL;
        goto out;
    }
    int st = run_steps (&r);
    if (st < 0) {
        if (st == -1 && r.err[0])
            die ("%s", r.err);
        goto out;
    }
    /* what nodeshare-learn writes, with the scope */
    json_object *start = ns_rep_start_config (&r);
    r.start = ns_learned_text (start ? start : r.learned);
    if (write_outputs (&r) == 0)
        rc = NS_EXIT_OK;
    json_object_put (start);
out:
    ns_rep_free (&r);
    return rc;
}
