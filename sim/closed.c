/* SPDX-License-Identifier: GPL-2.0-or-later */
/* closed.c - the workload of closed experiments (see closed.h)
 *
 * A pass hook of the engine: after every scheduling pass it adds at most
 * one job, and the engine schedules it and calls again at the same
 * instant.  For the time mix, the core-seconds each pairing has held are
 * brought up to date from the cluster's tenants before every choice.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "closed.h"
#include "nsutil.h"

/* One run's generator. */
struct ns_closed {
    const ns_interf_t *model;
    ns_mix_t mix;
    int ntasks;             /* per job: one full node */
    double horizon;
    int population;         /* jobs in the system below load 1; 0: saturated */
    const ns_policy_t *pol;
    int sharing;            /* the policy co-schedules */
    uint64_t next_id;
    int np;                 /* programs */
    int *pairing;           /* scratch: per program, its pairing now */
    double *given;          /* work/jobs: per program, cost submitted */
    /* time: per pairing id (p < np: p alone; else pair_id ()) */
    double *held;           /* core-seconds held so far */
    int64_t *cores;         /* cores held now */
    double last;            /* time of the last update */
    int *job_pairing;       /* per sim job: the pairing it is charged to */
    int njp;
    int capjp;
};

static int pair_id (const ns_closed_t *cl, int p, int q)
{
    if (p > q) {
        int t = p;
        p = q;
        q = t;
    }
    return cl->np + p * cl->np + q;
}

static double pairing_weight (const ns_closed_t *cl, int id)
{
    const ns_interf_t *m = cl->model;
    if (id < cl->np)
        return ns_interf_weight (m, id);
    id -= cl->np;
    return ns_interf_weight (m, id / cl->np) * ns_interf_weight (m, id % cl->np);
}

/* time mix: bring held[] up to now and recount cores[] from the cluster;
 * a job charged to a pairing stays in it while it runs alone (a partner
 * left: its successor arrives at once at full load), and moves to the
 * pairing of the partner it has. */
static void time_update (ns_closed_t *cl, ns_sim_t *sim)
{
    int npair = cl->np + cl->np * cl->np;
    double now = ns_sim_now (sim);
    for (int i = 0; i < npair; i++) {
        cl->held[i] += (double)cl->cores[i] * (now - cl->last);
        cl->cores[i] = 0;
    }
    cl->last = now;
    const ns_cluster_t *c = ns_sim_cluster (sim);
    for (int n = 0; n < ns_cluster_nnodes (c); n++) {
        int nt = ns_node_ntenants (c, n), gov[2], ng = 0;
        for (int i = 0; i < nt && ng < 2; i++)
            if (!(ns_node_tenant_flags (c, n, i) & NS_JOB_PACKED))
                gov[ng++] = i;
        if (ng == 2) {
            int j0 = (int)ns_node_tenant_job (c, n, gov[0]);
            int j1 = (int)ns_node_tenant_job (c, n, gov[1]);
            int id = pair_id (cl, ns_node_tenant_program (c, n, gov[0]),
                              ns_node_tenant_program (c, n, gov[1]));
            if (j0 < cl->njp)
                cl->job_pairing[j0] = id;
            if (j1 < cl->njp)
                cl->job_pairing[j1] = id;
        }
        /* Every tenant counts, packed ones (pack: all) as themselves. */
        for (int i = 0; i < nt; i++) {
            int j = (int)ns_node_tenant_job (c, n, i);
            if (j >= 0 && j < cl->njp && cl->job_pairing[j] >= 0)
                cl->cores[cl->job_pairing[j]] +=
                    ns_node_tenant_cores (c, n, i);
        }
    }
}

/* Projected share of pairing id if a job holding `add` more cores joins
 * it now. */
static double time_key (const ns_closed_t *cl, int id, double now,
                        int64_t add)
{
    double w = pairing_weight (cl, id);
    double left = cl->horizon - now;
    return (cl->held[id] + left * (double)(cl->cores[id] + add))
           / (w > 0 ? w : 1e-300);
}

/* The pairing a job of p forms beside partner q (NS_SIM_NO_PARTNER:
 * alone; at full load under a sharing policy, the least served pairing p
 * may form, which it will form). */
static int time_pairing (const ns_closed_t *cl, int p, int q, double now)
{
    if (q != NS_SIM_NO_PARTNER)
        return q >= 0 ? pair_id (cl, p, q) : p;
    if (cl->population || !cl->sharing)
        return p;
    int best = -1;
    double bk = 0;
    for (int r = 0; r < cl->np; r++) {
        if (ns_interf_weight (cl->model, r) <= 0
            || !ns_policy_pair_allowed (cl->pol, cl->model, p, r))
            continue;
        double k = time_key (cl, pair_id (cl, p, r), now, cl->ntasks);
        if (best < 0 || k < bk) {
            best = pair_id (cl, p, r);
            bk = k;
        }
    }
    return best < 0 ? p : best;
}

/* Key of a new job of program p: the share it would bring its program
 * (work, jobs) or pairing (time) to; smaller is further behind. */
static double closed_key (const ns_closed_t *cl, int p, int pairing,
                          double now)
{
    if (cl->mix == NS_MIX_TIME)
        return time_key (cl, pairing, now, cl->ntasks);
    double cost = cl->mix == NS_MIX_JOBS ? 1.0
                  : ns_interf_runtime (cl->model, p);
    return (cl->given[p] + cost) / ns_interf_weight (cl->model, p);
}

static int closed_submit (ns_sim_t *sim, ns_closed_t *cl, int program,
                          int pairing, ns_error_t *err)
{
    ns_simjob_t j = {
        .id = ++cl->next_id,
        .submit = ns_sim_now (sim),
        .runtime = ns_interf_runtime (cl->model, program),
        .req_time = -1,
        .ntasks = cl->ntasks,
        .program = program,
        .recorded_wait = -1,
    };
    int i = ns_sim_add (sim, &j, err);
    if (i < 0)
        return -1;
    if (ns_grow (&cl->job_pairing, &cl->capjp, i + 1, sizeof (int),
                 4096) < 0) {
        return ns_error_set (err, ENOMEM, "out of memory");
    }
    while (cl->njp <= i)
        cl->job_pairing[cl->njp++] = -1;
    cl->job_pairing[i] = pairing;
    cl->given[program] += cl->mix == NS_MIX_JOBS
                          ? 1.0 : ns_interf_runtime (cl->model, program);
    return 0;
}

/* After every scheduling pass: add the next job if the mix wants one.
 * The engine schedules it and calls again, so this adds one at a time. */
static int closed_fill (ns_sim_t *sim, void *arg, ns_error_t *err)
{
    ns_closed_t *cl = arg;
    double now = ns_sim_now (sim);
    if (cl->mix == NS_MIX_TIME)
        time_update (cl, sim);
    if (now >= cl->horizon)
        return 0;
    if (cl->population && ns_sim_live (sim) >= cl->population)
        return 0;
    /* A queued job waits for its turn (below load 1). */
    if (ns_sim_queued (sim) > 0)
        return 0;
    int best = -1, bestw = -1;
    double bk = 0, bwk = 0;
    for (int p = 0; p < cl->np; p++) {
        if (ns_interf_weight (cl->model, p) <= 0)
            continue;
        int partner;
        int ok = ns_sim_would_start (sim, p, cl->ntasks, &partner, err);
        if (ok < 0)
            return -1;
        int pairing = time_pairing (cl, p, ok ? partner : NS_SIM_NO_PARTNER,
                                    now);
        double k = closed_key (cl, p, pairing, now);
        if (ok && (best < 0 || k < bk)) {
            best = p;
            bk = k;
            cl->pairing[p] = pairing;
        }
        if (bestw < 0 || k < bwk) {
            bestw = p;
            bwk = k;
            if (!ok)
                cl->pairing[p] = pairing;
        }
    }
    if (best >= 0)
        return closed_submit (sim, cl, best, cl->pairing[best], err);
    if (cl->population && bestw >= 0)
        return closed_submit (sim, cl, bestw, cl->pairing[bestw], err);
    return 0;
}

int ns_closed_population (double load, int nnodes)
{
    if (load >= 1.0)
        return 0;
    int population = (int)lround (load * nnodes);
    return population < 1 ? 1 : population;
}

ns_closed_t *ns_closed_create (const ns_interf_t *model,
                               const ns_policy_t *pol, ns_mix_t mix,
                               int cores, double horizon, int population,
                               ns_error_t *err)
{
    int np = ns_interf_nprograms (model);
    int npair = np + np * np;
    ns_closed_t *cl = calloc (1, sizeof (*cl));
    if (!cl) {
        ns_error_set (err, ENOMEM, "out of memory");
        return NULL;
    }
    *cl = (ns_closed_t){
        .model = model,
        .mix = mix,
        .ntasks = cores,
        .pol = pol,
        .horizon = horizon,
        .population = population,
        .np = np,
        .given = calloc (np, sizeof (double)),
        .pairing = calloc (np, sizeof (int)),
        .held = calloc (npair, sizeof (double)),
        .cores = calloc (npair, sizeof (int64_t)),
    };
    for (int p = 0; p < np && !cl->sharing; p++)
        for (int q = 0; q < np && !cl->sharing; q++)
            cl->sharing = ns_policy_pair_allowed (pol, model, p, q);
    if (!cl->given || !cl->pairing || !cl->held || !cl->cores) {
        ns_closed_destroy (cl);
        ns_error_set (err, ENOMEM, "out of memory");
        return NULL;
    }
    return cl;
}

int ns_closed_start (ns_closed_t *cl, ns_sim_t *sim, ns_error_t *err)
{
    ns_sim_set_pass_hook (sim, closed_fill, cl);
    /* The first job; the engine runs from events, and the fill hook adds
     * the rest at the same instant. */
    if (closed_fill (sim, cl, err) < 0)
        return -1;
    if (ns_sim_njobs (sim) == 0)
        return ns_error_set (err, EINVAL, "no program has a weight above 0");
    return 0;
}

void ns_closed_destroy (ns_closed_t *cl)
{
    if (!cl)
        return;
    free (cl->given);
    free (cl->pairing);
    free (cl->held);
    free (cl->cores);
    free (cl->job_pairing);
    free (cl);
}

void ns_closed_print (FILE *f, const ns_interf_t *model,
                      const ns_progtab_t *progs, int nodes, int cores,
                      double horizon)
{
    fprintf (f, "Closed experiment on %d nodes x %d cores, %.0f h "
             "simulated per load, programs:", nodes, cores, horizon / 3600);
    for (int p = 0; p < ns_interf_nprograms (model); p++)
        fprintf (f, " %s (weight %g, %g s)", ns_progtab_name (progs, p),
                 ns_interf_weight (model, p), ns_interf_runtime (model, p));
    fprintf (f, "\n");
}
