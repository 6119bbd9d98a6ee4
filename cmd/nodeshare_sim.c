/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeshare-sim - replay a job trace under every placement policy
 *
 * main () parses options and calls into sim/ and model/; see
 * cmd/nodeshare-sim.1 for the user's view.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <json-c/json.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "batch.h"
#include "classes.h"
#include "closed.h"
#include "cmdline.h"
#include "cmdout.h"
#include "machsize.h"
#include "metricsdoc.h"
#include "nsconfig.h"
#include "policyset.h"
#include "report.h"
#include "scope.h"
#include "sim_compare.h"
#include "sim_opts.h"
#include "sim_sweep.h"
#include "tracejobs.h"

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

#define die(...) ns_cmd_die ("nodeshare-sim", __VA_ARGS__)
/* What a step returns when the command line must say more (status 2) */
#define USAGE (-2)

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
 * MaxProcs): sim/machsize.h.  0, or USAGE when the options must give it. */
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
        return die ("%s", err.text), USAGE;
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
        if (load_trace (r) < 0)
            return -1;
        int rc = machine_size (r);
        if (rc < 0)
            return rc;
        if (machine_scope (r) < 0)
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
    if (sim_parse_opts (argc, argv, &r.o) < 0)
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
    return rc == USAGE ? NS_EXIT_USAGE : rc < 0 ? NS_EXIT_FAIL : NS_EXIT_OK;
}
