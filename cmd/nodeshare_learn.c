/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeshare-learn - fit the interference model (spread_speedup, slowdown)
 * from sacct --parsable2 dumps of the cluster's own jobs (model/learn.h),
 * and print it as the "programs" section of nodeshare.json. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <json-c/json_util.h>

#include "cmdline.h"
#include "history.h"
#include "identity.h"
#include "learn.h"
#include "nsconfig.h"
#include "nsutil.h"
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
"Figures without enough evidence are left out (they stay neutral, 1.0)\n"
"and listed on stderr.  Exit status: 0 figures written, 1 no usable\n"
"job, 2 bad usage.  See nodeshare-learn(1).\n");
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

/* A figure as JSON, written with 3 decimals (1.12, not
 * 1.1200000000000001). */
static json_object *num3 (double v)
{
    char text[32];
    snprintf (text, sizeof (text), "%.3f", v);
    /* trailing zeros off, one digit after the point kept */
    size_t n = strlen (text);
    while (n > 2 && text[n - 1] == '0' && text[n - 2] != '.')
        text[--n] = '\0';
    return json_object_new_double_s (v, text);
}

static json_object *num_se (double v)
{
    char text[32];
    snprintf (text, sizeof (text), "%.2g", v);
    return json_object_new_double_s (v, text);
}

static json_object *fig_json (ns_learn_fig_t f)
{
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "n", json_object_new_int (f.n));
    json_object_object_add (o, "se", isnan (f.se) ? NULL : num_se (f.se));
    return o;
}

static int report (const ns_learn_t *l, const ns_progtab_t *progs,
                   const struct opts *o, int ndumps, FILE *out)
{
    json_object *root = json_object_new_object ();
    json_object *programs = json_object_new_object ();
    json_object *learned = json_object_new_object ();
    json_object *lprog = json_object_new_object ();
    int np = ns_progtab_count (progs), nlearned = 0, nleft = 0;
    for (int p = 0; p < np; p++) {
        const char *name = ns_progtab_name (progs, p);
        int nj = ns_learn_njobs (l, p);
        if (nj == 0)
            continue;
        json_object *pr = json_object_new_object ();
        json_object *ev = json_object_new_object ();
        json_object_object_add (ev, "jobs", json_object_new_int (nj));
        ns_learn_fig_t b = ns_learn_base (l, p);
        json_object_object_add (pr, "runtime",
                                json_object_new_int64 (llround (b.value)));
        json_object_object_add (ev, "runtime", fig_json (b));
        ns_learn_fig_t u = ns_learn_speedup (l, p);
        if (u.learned) {
            json_object_object_add (pr, "spread_speedup",
                                    num3 (u.value));
            json_object_object_add (ev, "spread_speedup", fig_json (u));
            nlearned++;
        } else if (u.n > 0) {
            nleft++;
            if (!o->quiet)
                fprintf (stderr, PROG ": not learned: %s spread_speedup "
                         "(%d striped jobs%s)\n", name, u.n,
                         isnan (u.se) ? "; needs runs on full nodes and "
                         "striped runs alone, or more jobs" : "");
        }
        json_object *sl = json_object_new_object ();
        json_object *sev = json_object_new_object ();
        for (int q = 0; q < np; q++) {
            ns_learn_fig_t s = ns_learn_slowdown (l, p, q);
            const char *qn = ns_progtab_name (progs, q);
            if (s.learned) {
                json_object_object_add (sl, qn,
                                        num3 (s.value));
                json_object_object_add (sev, qn, fig_json (s));
                nlearned++;
            } else if (s.n > 0) {
                nleft++;
                if (!o->quiet)
                    fprintf (stderr, PROG ": not learned: %s beside %s (%d "
                             "jobs exposed, %d needed, or not separable)\n",
                             name, qn, s.n, o->lo.min_observations);
            }
        }
        if (json_object_object_length (sl))
            json_object_object_add (pr, "slowdown", sl);
        else
            json_object_put (sl);
        if (json_object_object_length (sev))
            json_object_object_add (ev, "slowdown", sev);
        else
            json_object_put (sev);
        json_object_object_add (programs, name, pr);
        json_object_object_add (lprog, name, ev);
    }
    json_object_object_add (root, "programs", programs);
    json_object_object_add (learned, "by", json_object_new_string (
                                PROG " " PACKAGE_VERSION));
    json_object_object_add (learned, "histories", json_object_new_int (ndumps));
    json_object_object_add (learned, "node_cores", json_object_new_int (o->cores));
    json_object_object_add (learned, "min_observations",
                            json_object_new_int (o->lo.min_observations));
    json_object_object_add (learned, "min_exposure",
                            num_se (o->lo.min_exposure));
    json_object_object_add (learned, "max_se", num_se (o->lo.max_se));
    json_object_object_add (learned, "programs", lprog);
    json_object_object_add (root, "learned", learned);
    const char *text = json_object_to_json_string_ext (
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
                  | JSON_C_TO_STRING_NOSLASHESCAPE);
    int rc = fprintf (out, "%s\n", text) < 0 ? -1 : 0;
    json_object_put (root);
    if (!o->quiet)
        fprintf (stderr, PROG ": %d figures learned, %d left neutral\n",
                 nlearned, nleft);
    return rc;
}

static int table (const ns_learn_t *l, const ns_progtab_t *progs, FILE *out)
{
    int np = ns_progtab_count (progs);
    fprintf (out, "%-16s %-24s %8s %8s %6s\n", "program", "figure", "value",
             "se", "jobs");
    for (int p = 0; p < np; p++) {
        if (ns_learn_njobs (l, p) == 0)
            continue;
        const char *name = ns_progtab_name (progs, p);
        ns_learn_fig_t b = ns_learn_base (l, p);
        fprintf (out, "%-16s %-24s %8.0f %8.1f %6d\n", name, "runtime",
                 b.value, isnan (b.se) ? 0.0 : b.se, b.n);
        ns_learn_fig_t u = ns_learn_speedup (l, p);
        if (u.learned)
            fprintf (out, "%-16s %-24s %8.3f %8.4f %6d\n", name,
                     "spread_speedup", u.value, u.se, u.n);
        for (int q = 0; q < np; q++) {
            ns_learn_fig_t s = ns_learn_slowdown (l, p, q);
            char fig[NS_PROGRAM_NAME_MAX + 16];
            snprintf (fig, sizeof (fig), "slowdown:%s",
                      ns_progtab_name (progs, q));
            if (s.learned)
                fprintf (out, "%-16s %-24s %8.3f %8.4f %6d\n", name, fig,
                         s.value, s.se, s.n);
        }
    }
    return ferror (out) ? -1 : 0;
}

static int parse_double (const char *opt, const char *s, double lo,
                         double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod (s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi))
        return die ("%s '%s': expected a number in [%g, %g]", opt, s, lo, hi);
    *out = v;
    return 0;
}

enum { OPT_MIN_OBS = 256, OPT_MIN_EXP, OPT_MAX_SE, OPT_STATE };

static const struct option longopts[] = {
    { "cores", required_argument, NULL, 'C' },
    { "config", required_argument, NULL, 'c' },
    { "min-observations", required_argument, NULL, OPT_MIN_OBS },
    { "min-exposure", required_argument, NULL, OPT_MIN_EXP },
    { "max-se", required_argument, NULL, OPT_MAX_SE },
    { "output", required_argument, NULL, 'o' },
    { "state", required_argument, NULL, OPT_STATE },
    { "quiet", no_argument, NULL, 'q' },
    { "table", no_argument, NULL, 't' },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
};

int main (int argc, char **argv)
{
    struct opts o = { 0 };
    ns_learn_opts_default (&o.lo);
    int ch;
    double v;
    opterr = 0;
    while ((ch = getopt_long (argc, argv, ":C:c:o:qthV", longopts, NULL))
           != -1) {
        switch (ch) {
        case 'C':
            if (parse_double ("--cores", optarg, 1, 65536, &v) < 0
                || v != floor (v))
                return die ("--cores '%s': expected an integer 1..65536",
                            optarg), NS_EXIT_USAGE;
            o.cores = (int)v;
            break;
        case 'c': o.config = optarg; break;
        case OPT_STATE: o.state = optarg; break;
        case 'o': o.output = optarg; break;
        case 'q': o.quiet = 1; break;
        case 't': o.table = 1; break;
        case OPT_MIN_OBS:
            if (parse_double ("--min-observations", optarg, 1, 1e9, &v) < 0
                || v != floor (v))
                return die ("--min-observations '%s': expected an integer "
                            ">= 1", optarg), NS_EXIT_USAGE;
            o.lo.min_observations = (int)v;
            break;
        case OPT_MIN_EXP:
            if (parse_double ("--min-exposure", optarg, 0, 1,
                              &o.lo.min_exposure) < 0)
                return NS_EXIT_USAGE;
            break;
        case OPT_MAX_SE:
            if (parse_double ("--max-se", optarg, 0, 10, &o.lo.max_se) < 0)
                return NS_EXIT_USAGE;
            break;
        case 'h': usage (stdout); return NS_EXIT_OK;
        case 'V': printf (PROG " %s\n", PACKAGE_VERSION); return NS_EXIT_OK;
        default:
            ns_cmd_bad_option (PROG, ch, argv);
            return NS_EXIT_USAGE;
        }
    }
    if (optind == argc && !o.state)
        return die ("no sacct dump given (see --help)"), NS_EXIT_USAGE;
    ns_error_t err;
    json_object *state = NULL;
    if (o.state) {
        json_object *nc;
        if (!(state = json_object_from_file (o.state)))
            return die ("%s: cannot read it as JSON (%s)", o.state,
                        json_util_get_last_err ()
                            ? json_util_get_last_err () : "?"),
                   NS_EXIT_FAIL;
        if (!json_object_object_get_ex (state, "node_cores", &nc)
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
    FILE *out = stdout;
    if (o.output && !(out = fopen (o.output, "w"))) {
        die ("%s: %s", o.output, strerror (errno));
        goto out;
    }
    int w = o.table ? table (l, progs, out) : report (l, progs, &o, ndumps,
                                                       out);
    if (out != stdout && fclose (out) != 0)
        w = -1;
    if (w < 0)
        die ("%s: write failed", o.output ? o.output : "stdout");
    else
        rc = NS_EXIT_OK;
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
