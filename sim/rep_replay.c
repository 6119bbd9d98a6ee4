/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rep_replay.c - nodeshare-report's replay (sim/rep.h): the jobs of the
 * sacct dumps replayed as nodeshare-sim replays a trace, under pack,
 * under the policy and under the policy with the learned figures two
 * standard errors against it; the jobs the policy places otherwise than
 * pack counted by rule, program and partition.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nsranges.h"
#include "rep.h"
#include "trace.h"
#include "workload.h"

static int cmp_submit (const void *a, const void *b)
{
    const ns_simjob_t *x = a, *y = b;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* 1 + the partition's index (the slurm.conf's first), 0 unknown. */
static int partition_of (struct ns_rep *r, const ns_tjob_t *j)
{
    char name[NS_TJOB_PROGRAM_MAX];
    ns_workload_partition (j, name, sizeof (name));
    if (!name[0])
        return 0;
    for (int i = 0; i < r->npnames; i++)
        if (strcmp (r->pnames[i], name) == 0)
            return i + 1;
    if (r->npnames == NS_REP_MAX_PARTS
        || !(r->pnames[r->npnames] = strdup (name)))
        return 0;
    return ++r->npnames;
}

static int load_jobs (struct ns_rep *r)
{
    int64_t cap = 0;
    int *nodes = malloc (sizeof (int) * NS_JOB_NODES_MAX);
    if (!nodes)
        return ns_rep_errf (r, "out of memory");
    r->t_first = INFINITY;
    r->t_last = -INFINITY;
    for (int i = 0; i < r->ndumps; i++) {
        ns_error_t err = { "" };
        ns_trace_t *t = ns_trace_open (r->dumps[i], NS_TRACE_SACCT, 0, &err);
        if (!t) {
            free (nodes);
            return ns_rep_errf (r, "%s", err.text);
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
                    ns_rep_errf (r, "out of memory");
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
            ns_rep_errf (r, "%s", err.text);
        r->skipped += (int64_t)ns_trace_skips (t)->skipped;
        ns_trace_close (t);
        if (rc < 0) {
            free (nodes);
            return -1;
        }
    }
    free (nodes);
    if (r->njobs == 0)
        return ns_rep_errf (r, "%s: no usable job to replay", r->dumps[0]);
    qsort (r->jobs, r->njobs, sizeof (*r->jobs), cmp_submit);
    r->nodes = ns_nodenames_count (r->names);
    if (r->machine) {
        r->names_outside = r->nodes - r->machine->nnodes;
        r->nodes = r->machine->nnodes;
    } else if (r->o.nodes) {
        if (r->o.nodes < r->nodes)
            return ns_rep_errf (r, "--nodes %d: the dumps name %d distinct "
                                "nodes",
                                r->o.nodes, r->nodes);
        r->nodes = r->o.nodes;
    }
    if (r->nodes == 0)
        return ns_rep_errf (r, "no NodeList in the dumps: give --nodes N");
    /* per program */
    r->nps = ns_progtab_count (r->rprogs) + 1;
    r->ps = calloc (r->nps, sizeof (*r->ps));
    if (!r->ps)
        return ns_rep_errf (r, "out of memory");
    for (int64_t i = 0; i < r->njobs; i++) {
        const ns_simjob_t *j = &r->jobs[i];
        struct ns_rep_prog *p = &r->ps[j->program >= 0 ? j->program
                                                    : r->nps - 1];
        p->jobs++;
        p->core_s += j->runtime * j->ntasks;
        p->run_s += j->runtime;
    }
    return 0;
}

struct prog_arg {
    struct ns_rep *r;
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
        fprintf (stderr, NS_REP_PROG ": replaying under %s: %d of %d jobs\n",
                 a->name, done, total);
    }
}

static int run_one (struct ns_rep *r, int k, const ns_policy_t *pol,
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
        return ns_rep_errf (r, "%s", err.text);
    *out = sim;
    struct prog_arg pa = { r, r->rp[k].name, 0 };
    if (!r->o.quiet)
        ns_sim_set_progress (sim, sim_progress, 2000, &pa);
    double last = r->jobs[0].submit;
    for (int64_t i = 0; i < r->njobs; i++) {
        if (ns_sim_add (sim, &r->jobs[i], &err) < 0)
            return ns_rep_errf (r, "%s", err.text);
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
        return ns_rep_errf (r, "%s: %s", r->rp[k].name, err.text);
    clock_gettime (CLOCK_MONOTONIC, &t1);
    ns_metrics_t *m = &r->rp[k].m;
    if (ns_metrics_compute (sim, 0, m) < 0)
        return ns_rep_errf (r, "out of memory");
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
    ns_rep_progress_line (r, "replayed %lld jobs under %s in %.1f s",
                          (long long)r->njobs, r->rp[k].name, m->wall_s);
    return 0;
}

/* Jobs the policy placed otherwise than pack: another shape (nodes and
 * cores per node) or other co-tenant programs at start. */
static int compare_runs (struct ns_rep *r, ns_sim_t *pack, ns_sim_t *pol)
{
    ns_cotenants_t ca = { 0 }, cb = { 0 };
    ns_error_t err;
    if (ns_sim_cotenants (pack, &ca, &err) < 0
        || ns_sim_cotenants (pol, &cb, &err) < 0) {
        ns_cotenants_free (&ca);
        return ns_rep_errf (r, "%s", err.text);
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
        struct ns_rep_part *ps = &r->parts[sj->partition > 0
                                           ? sj->partition - 1
                                           : NS_REP_MAX_PARTS];
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
        if (ran_b && b->rule < NS_REP_NRULES) {
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
static ns_interf_t *pessimistic_model (struct ns_rep *r)
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

int ns_rep_replay_all (struct ns_rep *r)
{
    ns_error_t err;
    ns_policy_t pols[2];
    pols[0] = *ns_config_policy (r->rcfg);
    pols[1] = *ns_config_policy (r->rcfg);
    if (ns_policy_parse (&pols[0], "pack", r->rprogs, &err) < 0)
        return ns_rep_errf (r, "%s", err.text);
    if (r->o.policy && ns_policy_parse (&pols[1], r->o.policy, r->rprogs,
                                        &err) < 0)
        return ns_rep_errf (r, "--policy: %s", err.text);
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
