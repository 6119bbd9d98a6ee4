/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim_compare.c - nodeshare-sim --compare-placements SACCT_DUMP
 *
 * Replays the jobs of a real cluster's `sacct --parsable2` dump under one
 * policy and says, job by job, whether the simulator placed each job the
 * way the cluster did: the same shape (node count and cores per node) and
 * the same co-tenants at start (by program).  Node names need not match:
 * the simulator may take ns3+ns4 where the cluster took ns1+ns2.
 *
 * Replay fidelity: jobs are submitted at their recorded Submit times and
 * run for their recorded End - Start, at rate 1 whatever their
 * co-tenants (the engine's wallclock mode: the recorded time already
 * holds whatever sharing cost); the policy still decides with the
 * configuration's figures.  The real cluster starts jobs a scheduling
 * interval late, so start times are printed for context but not judged.
 *
 * sacct does not record cores per node: the real shape is AllocCPUS
 * spread evenly over the NodeList ("2x12"); a real job whose AllocCPUS is
 * not a multiple of its node count is judged by node count and total.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <json-c/json.h>

#include "compare.h"
#include "report.h"
#include "cmdline.h"
#include "cmdout.h"
#include "fileio.h"
#include "sim_compare.h"
#include "trace.h"
#include "workload.h"
#include "nsranges.h"


struct real {
    ns_tjob_t t;            /* as read */
    int program;
    int nnodes;
    ns_share_t *shares;     /* even split of AllocCPUS */
    int even;               /* AllocCPUS is a multiple of the node count */
};

#define die(...) ns_cmd_die ("nodeshare-sim", __VA_ARGS__)

/* The header must name what a comparison needs; the trace reader needs
 * less (a plain replay has no use for NodeList or Start). */
static int check_header (const char *path)
{
    static const char *need[] = { "JobName", "Submit", "Start", "End",
                                  "NodeList", "AllocCPUS" };
    FILE *f = strcmp (path, "-") == 0 ? NULL : fopen (path, "r");
    char line[8192];
    int found[6] = { 0 };
    if (!f)
        return 0;   /* stdin, or the reader says why it cannot open it */
    int got = 0;
    while (fgets (line, sizeof (line), f)) {
        if (line[strspn (line, " \t\r\n")] == '\0')
            continue;
        got = 1;
        break;
    }
    fclose (f);
    if (!got || !strchr (line, '|'))
        return 0;   /* the reader reports what is wrong */
    line[strcspn (line, "\r\n")] = '\0';
    for (char *save = NULL, *tok = strtok_r (line, "|", &save); tok;
         tok = strtok_r (NULL, "|", &save))
        for (int i = 0; i < 6; i++)
            if (strcasecmp (tok, need[i]) == 0)
                found[i] = 1;
    for (int i = 0; i < 6; i++)
        if (!found[i])
            return die ("%s: line 1: sacct header lacks %s: "
                        "--compare-placements needs JobName, Submit, Start, "
                        "End, NodeList and AllocCPUS (sacct --parsable2 "
                        "--allocations --format=JobIDRaw,JobName,Submit,"
                        "Start,End,NodeList,AllocCPUS,NNodes,State,"
                        "Timelimit)", path, need[i]);
    return 0;
}

static int share_cmp (const void *x, const void *y)
{
    const ns_share_t *a = x, *b = y;
    return (a->node > b->node) - (a->node < b->node);
}

static int cmp_real (const void *x, const void *y)
{
    const struct real *a = x, *b = y;
    if (a->t.submit != b->t.submit)
        return a->t.submit < b->t.submit ? -1 : 1;
    return (a->t.id > b->t.id) - (a->t.id < b->t.id);
}

struct loaded {
    struct real *jobs;
    int n, cap;
    int64_t not_run;        /* finished without running (no NodeList) */
    int64_t skipped;        /* lines the reader skipped */
    ns_nodenames_t *names;  /* the nodes named, in natural order */
};

static void free_loaded (struct loaded *l)
{
    for (int i = 0; i < l->n; i++)
        free (l->jobs[i].shares);
    free (l->jobs);
    ns_nodenames_destroy (l->names);
}

static int load (const struct ns_compare_args *a, struct loaded *l)
{
    ns_error_t err = { "" };
    if (!(l->names = ns_nodenames_create ()))
        return die ("out of memory");
    ns_trace_t *t = ns_trace_open (a->dump, NS_TRACE_SACCT,
                                   a->strict ? NS_TRACE_STRICT : 0, &err);
    if (!t)
        return die ("%s", err.text);
    ns_tjob_t j;
    int rc, nodes[NS_JOB_NODES_MAX];
    while ((rc = ns_trace_next (t, &j, &err)) == 1) {
        if (!j.nodelist[0] || j.wait < 0) {
            l->not_run++;
            continue;
        }
        int nn = ns_nodelist_names (j.nodelist, l->names, 0, nodes,
                                    NS_JOB_NODES_MAX, &err);
        if (nn < 0) {
            rc = -1;
            die ("%s: line %lld: field NodeList: %s", a->dump,
                 (long long)j.line, err.text);
            err.text[0] = '\0';
            break;
        }
        if (j.procs < nn) {
            rc = -1;
            die ("%s: line %lld: field AllocCPUS: %d CPUs on %d nodes: "
                 "expected at least one per node", a->dump,
                 (long long)j.line, j.procs, nn);
            break;
        }
        if (l->n == l->cap) {
            int cap = l->cap ? l->cap * 2 : 256;
            struct real *r = realloc (l->jobs, sizeof (*r) * cap);
            if (!r) {
                rc = -1;
                die ("out of memory");
                break;
            }
            l->jobs = r;
            l->cap = cap;
        }
        struct real *r = &l->jobs[l->n];
        memset (r, 0, sizeof (*r));
        r->t = j;
        r->program = ns_workload_program (ns_config_identity (a->cfg), a->progs,
                                         &j);
        r->nnodes = nn;
        r->even = j.procs % nn == 0;
        r->shares = malloc (sizeof (ns_share_t) * nn);
        if (!r->shares) {
            rc = -1;
            die ("out of memory");
            break;
        }
        for (int k = 0; k < nn; k++)
            r->shares[k] = (ns_share_t){ nodes[k],
                                         j.procs / nn + (k < j.procs % nn) };
        if (a->nodes && ns_nodenames_count (l->names) > a->nodes) {
            l->n++;     /* its shares are freed with the others */
            rc = -1;
            die ("%s: line %lld: field NodeList: '%s': the dump names %d "
                 "nodes so far, more than --nodes %d", a->dump,
                 (long long)j.line, j.nodelist,
                 ns_nodenames_count (l->names), a->nodes);
            break;
        }
        l->n++;
    }
    if (rc < 0 && err.text[0])
        die ("%s", err.text);
    l->skipped = (int64_t)ns_trace_skips (t)->skipped;
    ns_trace_close (t);
    if (rc < 0)
        return -1;
    if (l->n == 0)
        return die ("%s: no job that ran (with a NodeList and a Start) to "
                    "compare", a->dump);
    qsort (l->jobs, l->n, sizeof (*l->jobs), cmp_real);
    /* The simulated machine's node i is the dump's i-th name in natural
     * order (ns2 before ns10; gpu01 and cn001 two nodes) */
    int *to = malloc (sizeof (int) * ns_nodenames_count (l->names));
    if (!to || ns_nodenames_sort (l->names, to) < 0) {
        free (to);
        return die ("out of memory");
    }
    for (int i = 0; i < l->n; i++) {
        for (int k = 0; k < l->jobs[i].nnodes; k++)
            l->jobs[i].shares[k].node = to[l->jobs[i].shares[k].node];
        qsort (l->jobs[i].shares, l->jobs[i].nnodes, sizeof (ns_share_t),
               share_cmp);
    }
    free (to);
    return 0;
}

/* "ns3,ns4" from simulator node indices; "(5)" for the fifth node of
 * --nodes when no line of the dump names it. */
static void sim_nodes (const ns_nodenames_t *names, const ns_share_t *sh,
                       int n, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < n; k++) {
        const char *name = ns_nodenames_name (names, sh[k].node);
        int w = name ? snprintf (buf + len, size - len, "%s%s",
                                 k ? "," : "", name)
                     : snprintf (buf + len, size - len, "%s(%d)",
                                 k ? "," : "", sh[k].node + 1);
        if (w < 0 || (size_t)w >= size - len)
            return;
        len += (size_t)w;
    }
}

static json_object *names_json (const ns_cotenants_t *ct, int i,
                                const ns_progtab_t *progs)
{
    json_object *a = json_object_new_array ();
    for (int k = ct->first[i]; k < ct->first[i + 1]; k++) {
        int p = ct->prog[k];
        json_object_array_add (a, json_object_new_string (
            p >= 0 ? ns_progtab_name (progs, p) : "?"));
    }
    return a;
}

static int write_json (const struct ns_compare_args *a, json_object *root)
{
    const char *text = json_object_to_json_string_ext (
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
    FILE *f = ns_cmd_open_out ("nodeshare-sim", a->json);
    if (!f)
        return -1;
    fprintf (f, "%s\n", text);
    return ns_cmd_close_out ("nodeshare-sim", f, a->json);
}

int ns_compare_main (const struct ns_compare_args *a)
{
    struct loaded l = { 0 };
    ns_sim_t *sim = NULL;
    ns_placed_t *placed = NULL;
    ns_cotenants_t real_ct = { 0 }, sim_ct = { 0 };
    json_object *root = NULL, *jobs_json = NULL;
    ns_error_t err;
    int rc = -1;

    if (check_header (a->dump) < 0 || load (a, &l) < 0)
        goto out;
    int nodes = a->nodes > ns_nodenames_count (l.names)
                ? a->nodes : ns_nodenames_count (l.names);
    for (int i = 0; i < l.n; i++)
        if (l.jobs[i].even && l.jobs[i].t.procs / l.jobs[i].nnodes > a->cores) {
            die ("%s: line %lld: job %lld has %d CPUs on %d nodes, more "
                 "than the %d cores per node of --cores", a->dump,
                 (long long)l.jobs[i].t.line, (long long)l.jobs[i].t.id,
                 l.jobs[i].t.procs, l.jobs[i].nnodes, a->cores);
            goto out;
        }

    ns_simconf_t conf = {
        .policy = a->policy,
        .backfill = a->backfill,
        .bf_depth = a->bf_depth,
        .nnodes = nodes,
        .cores = a->cores,
        .model = a->model,
        .progs = a->progs,
        .wallclock = 1,
    };
    sim = ns_sim_create (&conf, &err);
    if (!sim) {
        die ("%s", err.text);
        goto out;
    }
    ns_sim_set_checking (sim, a->check);
    for (int i = 0; i < l.n; i++) {
        const ns_tjob_t *t = &l.jobs[i].t;
        ns_simjob_t sj = {
            .id = (uint64_t)t->id,
            .submit = (double)t->submit,
            .runtime = (double)t->run,
            .req_time = (double)t->req_time,
            .ntasks = t->procs,
            .program = l.jobs[i].program,
            .recorded_wait = (double)t->wait,
        };
        if (ns_sim_add (sim, &sj, &err) < 0) {
            die ("%s", err.text);
            goto out;
        }
    }
    if (ns_sim_run (sim, -1, &err) < 0) {
        die ("%s: %s", a->policy_name, err.text);
        goto out;
    }

    /* The real schedule, judged like the simulated one. */
    placed = malloc (sizeof (*placed) * l.n);
    if (!placed) {
        die ("out of memory");
        goto out;
    }
    for (int i = 0; i < l.n; i++) {
        const ns_tjob_t *t = &l.jobs[i].t;
        placed[i] = (ns_placed_t){
            .start = (double)(t->submit + t->wait),
            .end = (double)(t->submit + t->wait + t->run),
            .program = l.jobs[i].program,
            .nshares = l.jobs[i].nnodes,
            .shares = l.jobs[i].shares,
        };
    }
    if (ns_cotenants_compute (placed, l.n, nodes, &real_ct, &err) < 0
        || ns_sim_cotenants (sim, &sim_ct, &err) < 0) {
        die ("%s", err.text);
        goto out;
    }

    root = json_object_new_object ();
    jobs_json = json_object_new_array ();
    int agree = 0, shape_differs = 0, cot_differs = 0, never = 0;
    double t0 = l.jobs[0].t.submit;
    if (!a->quiet)
        printf ("Placements of %d jobs of %s replayed under policy %s on "
                "%d nodes x %d cores (real vs simulated; start times are "
                "seconds after the first submission, shown, not judged):\n",
                l.n, a->dump, a->policy_name, nodes, a->cores);
    for (int i = 0; i < l.n; i++) {
        const struct real *r = &l.jobs[i];
        const ns_simresult_t *res = ns_sim_result (sim, i);
        int ns;
        const ns_share_t *sh = ns_sim_job_shares (sim, i, &ns);
        char rshape[64], sshape[64], rcot[512], scot[512], snodes[512];
        char prog[NS_PROGRAM_NAME_MAX + 8];
        int ran = res->state == NS_SJ_DONE || res->state == NS_SJ_RUNNING;
        snprintf (prog, sizeof (prog), "%s", r->program >= 0
                  ? ns_progtab_name (a->progs, r->program) : "?");
        if (r->even)
            ns_shape_format (r->shares, r->nnodes, rshape, sizeof (rshape));
        else
            snprintf (rshape, sizeof (rshape), "%d nodes/%d cores",
                      r->nnodes, r->t.procs);
        ns_shape_format (sh, ns, sshape, sizeof (sshape));
        ns_cotenants_format (&real_ct, i, a->progs, "+", rcot, sizeof (rcot));
        ns_cotenants_format (&sim_ct, i, a->progs, "+", scot, sizeof (scot));
        sim_nodes (l.names, sh, ns, snodes, sizeof (snodes));
        int same_shape, same_cot;
        if (!ran)
            same_shape = same_cot = 0;
        else {
            int total = 0;
            for (int k = 0; k < ns; k++)
                total += sh[k].cores;
            same_shape = r->even ? strcmp (rshape, sshape) == 0
                                 : ns == r->nnodes && total == r->t.procs;
            same_cot = ns_cotenants_equal (&real_ct, i, &sim_ct, i);
        }
        int ok = same_shape && same_cot;
        agree += ok;
        never += !ran;
        shape_differs += ran && !same_shape;
        cot_differs += ran && !same_cot;
        double rstart = (double)(r->t.submit + r->t.wait) - t0;
        if (!a->quiet || !ok) {
            printf ("job %lld %s (%d CPUs, submit +%.0f): real %s %s with "
                    "[%s] start +%.0f; sim ", (long long)r->t.id, prog,
                    r->t.procs, (double)r->t.submit - t0, r->t.nodelist,
                    rshape, rcot, rstart);
            if (ran)
                printf ("%s %s with [%s] start +%.0f", snodes, sshape, scot,
                        res->start - t0);
            else
                printf ("never started");
            if (ok)
                printf (": agree\n");
            else if (!ran)
                printf (": DIFFERS: the simulator never started it\n");
            else {
                /* The likely cause: a start apart by more than scheduling
                 * latency means the cluster was in another state. */
                double dt = rstart - (res->start - t0);
                printf (": DIFFERS:%s%s%s (%s", same_shape ? "" : " shape",
                        !same_shape && !same_cot ? " and" : "",
                        same_cot ? "" : " co-tenants",
                        dt > 3 || dt < -3 ? "timing: the cluster started it "
                                          : "the same time, another choice");
                if (dt > 3 || dt < -3)
                    printf ("%.0f s %s", dt > 0 ? dt : -dt,
                            dt > 0 ? "later" : "earlier");
                printf (")\n");
            }
        }
        json_object *jj = json_object_new_object ();
        json_object_object_add (jj, "job", json_object_new_int64 (r->t.id));
        json_object_object_add (jj, "program", json_object_new_string (prog));
        json_object_object_add (jj, "cpus", json_object_new_int (r->t.procs));
        json_object_object_add (jj, "real_nodes",
                                json_object_new_string (r->t.nodelist));
        json_object_object_add (jj, "real_shape",
                                json_object_new_string (rshape));
        json_object_object_add (jj, "real_cotenants",
                                names_json (&real_ct, i, a->progs));
        json_object_object_add (jj, "real_start_s",
                                json_object_new_double (rstart));
        json_object_object_add (jj, "sim_nodes",
                                json_object_new_string (snodes));
        json_object_object_add (jj, "sim_shape",
                                json_object_new_string (sshape));
        json_object_object_add (jj, "sim_cotenants",
                                names_json (&sim_ct, i, a->progs));
        json_object_object_add (jj, "sim_start_s", ran
                                ? json_object_new_double (res->start - t0)
                                : NULL);
        json_object_object_add (jj, "same_shape",
                                json_object_new_boolean (same_shape));
        json_object_object_add (jj, "same_cotenants",
                                json_object_new_boolean (same_cot));
        json_object_array_add (jobs_json, jj);
    }
    double frac = (double)agree / l.n;
    printf ("placement agreement: %d of %d jobs = %.3f (shape differs %d, "
            "co-tenants differ %d, never started %d; left out for want of "
            "nodes: %lld)\n", agree, l.n, frac, shape_differs,
            cot_differs, never, (long long)l.not_run);
    json_object_object_add (root, "dump", json_object_new_string (a->dump));
    json_object_object_add (root, "policy",
                            json_object_new_string (a->policy_name));
    json_object_object_add (root, "nodes", json_object_new_int (nodes));
    json_object_object_add (root, "cores", json_object_new_int (a->cores));
    json_object_object_add (root, "jobs_compared", json_object_new_int (l.n));
    json_object_object_add (root, "jobs_not_run",
                            json_object_new_int64 (l.not_run));
    json_object_object_add (root, "lines_skipped",
                            json_object_new_int64 (l.skipped));
    json_object_object_add (root, "agree", json_object_new_int (agree));
    json_object_object_add (root, "shape_differs",
                            json_object_new_int (shape_differs));
    json_object_object_add (root, "cotenants_differ",
                            json_object_new_int (cot_differs));
    json_object_object_add (root, "never_started", json_object_new_int (never));
    json_object_object_add (root, "placement_agreement",
                            json_object_new_double (frac));
    json_object_object_add (root, "jobs", jobs_json);
    jobs_json = NULL;
    if (a->csv)
        ns_report_csv_rows (a->csv, sim, a->policy_name, a->progs);
    if (a->json && write_json (a, root) < 0)
        goto out;
    if (fflush (stdout) != 0) {
        die ("stdout: %s", strerror (errno));
        goto out;
    }
    rc = 0;
out:
    json_object_put (jobs_json);
    json_object_put (root);
    ns_cotenants_free (&real_ct);
    ns_cotenants_free (&sim_ct);
    free (placed);
    ns_sim_destroy (sim);
    free_loaded (&l);
    return rc;
}
