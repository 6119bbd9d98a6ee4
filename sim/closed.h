/* SPDX-License-Identifier: GPL-2.0-or-later */
/* closed.h - the workload of closed experiments (nodeshare-sim --closed)
 *
 * The study's conditions (design.md section 5).  Every job is one node
 * wide (`cores` tasks) and its work is its program's configured runtime.
 * The program mix is exact by weight and deterministic (no draw): each
 * new job is of the program furthest behind its share.  What a weight is
 * a share of (ns_mix_t, --mix):
 *
 *   time  machine time (core-seconds held), counted per program for jobs
 *         alone and per pairing {p, q} for jobs that share nodes, pairing
 *         weight w_p * w_q.  Equal weights give every program, and every
 *         pairing the policy allows, the same share of the machine: the
 *         accounting behind the study's table, whose figures are the plain
 *         averages of the pair figures each strategy allows.  A job about
 *         to start alone on empty nodes at full load is charged to the
 *         pairing it will form (the least served one its program allows):
 *         under same and keep:P that pairing never changes.
 *   work  work, a job's runtime on one full node ("an even amount of work
 *         of each job type" read literally);
 *   jobs  jobs.
 *
 * "Furthest behind": smallest projected share, (held + the time to the
 * horizon x cores held now, including the new job) / weight for time;
 * (given + the new job's cost) / weight for work and jobs.  Ties go to
 * the lower program id.
 *
 * At load 1 the machine is saturated: after every scheduling pass, a job
 * is added as long as the policy admits one right now, of the program
 * furthest behind among those it admits (a backlog with a job of every
 * program, from which the scheduler starts what fits).  Below load 1 the
 * population is LOAD x nodes jobs; each one that ends is replaced the same
 * way, else (nothing admitted) by the program furthest behind, which
 * waits.  The sharing rules are strict: the caller creates the simulator
 * with fallback_after -1, since the study's strategies never fall back to
 * packing.
 */
#ifndef NODESHARE_CLOSED_H
#define NODESHARE_CLOSED_H

#include <stdio.h>

#include "engine.h"
#include "interf.h"
#include "nserror.h"
#include "policy.h"

/* What a program's weight is a share of. */
typedef enum {
    NS_MIX_TIME = 0,
    NS_MIX_WORK,
    NS_MIX_JOBS,
} ns_mix_t;

typedef struct ns_closed ns_closed_t;

/* Jobs in the system at `load` (in (0, 1]) on nnodes nodes: 0 (saturated)
 * at load 1, else round(load x nnodes), at least 1. */
int ns_closed_population (double load, int nnodes);

/* A generator for one run: jobs of `cores` tasks (one full node) of the
 * programs of `model` by weight, under policy `pol` (which decides which
 * pairings exist), until `horizon` s; population as above.  model and pol
 * are read while the run goes on and must outlive it.  NULL with err
 * filled if out of memory. */
ns_closed_t *ns_closed_create (const ns_interf_t *model,
                               const ns_policy_t *pol, ns_mix_t mix,
                               int cores, double horizon, int population,
                               ns_error_t *err);

/* Drive sim, a new simulator with no jobs and the same model, policy and
 * cores per node: install the pass hook and submit the first job(s) at
 * time 0; ns_sim_run (sim, horizon, ...) then runs the experiment.  0, or
 * -1 with err filled: adding the first jobs failed, or none was added (no
 * program has a weight above 0).  cl must outlive the run. */
int ns_closed_start (ns_closed_t *cl, ns_sim_t *sim, ns_error_t *err);

void ns_closed_destroy (ns_closed_t *cl);

/* The experiment above its table: "Closed experiment on N nodes x C
 * cores, H h simulated per load, programs: P (weight W, R s) ...". */
void ns_closed_print (FILE *f, const ns_interf_t *model,
                      const ns_progtab_t *progs, int nodes, int cores,
                      double horizon);

#endif /* !NODESHARE_CLOSED_H */
