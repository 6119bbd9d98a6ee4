/* SPDX-License-Identifier: GPL-2.0-or-later */
/* learn.h - fit the interference model from the cluster's own job history
 *
 * Input: job histories, each a set of jobs of one cluster with program,
 * start, end and the cores held on each node.  For every job the history
 * gives its exposure: the stretches of its run and, on each of its nodes,
 * who else ran there with how many cores.  The model (section 3 of
 * doc/design.md) says a job of program p progresses at
 *
 *     rate = u_p^striped / max over its nodes of prod_q g(s_pq, 2 c_q / C)
 *     g(s, f) = 1 + (s - 1) min(f, 2)
 *
 * and its work is a per-program constant B_p (repeated production inputs):
 * B_p = sum over stretches of dt x rate.  The fit is per program, by
 * Gauss-Newton on log B_p(job) - log B_p = 0 with Huber weights (robust to
 * outlier runs), parameters log B_p, log u_p, log s_pq.  A figure needs
 * min_observations jobs exposed to it for at least min_exposure of their
 * run (u_p: striped jobs, and at least one job of p on full nodes to
 * compare with), and a standard error within max_se; the others stay
 * neutral and are reported as not learned (the least certain is fixed
 * first and the rest fitted again).
 *
 * Before any fit, each figure must be identified by the design of the
 * history: every job of p is a row (1, striped, fraction of its run
 * beside each program q) of the log-linear model log B_p = log runtime
 * + log u_p [striped] - sum_q log s_pq x fraction; a figure is
 * identified iff its unit vector lies in the row space of these rows
 * (no direction of the parameters that leaves every run's prediction
 * unchanged moves it).  Runs only striped beside Q next to runs on full
 * nodes give one row kind (1, 1, 1 at Q): only u_p / s_pQ is identified,
 * neither figure is learned.
 *
 * Pure and deterministic: no I/O, no Slurm, no hwloc.
 */
#ifndef NODESHARE_LEARN_H
#define NODESHARE_LEARN_H

#include <json-c/json.h>

#include "interf.h"
#include "nserror.h"
#include "progtab.h"

typedef struct ns_learn ns_learn_t;

typedef struct {
    int program;          /* progtab id >= 0, or NS_PROGRAM_UNKNOWN */
    double start, end;    /* s; end >= start */
    int nnodes;
    const int *nodes;     /* node indices within the history, distinct */
    const int *cores;     /* cores held on each (>= 1) */
    int context_only;     /* a co-tenant only, not an observation (it
                             failed or was cancelled: its runtime is not
                             its work) */
} ns_learn_job_t;

/* The bounds of those settings, the same in nodeshare.json's "learn"
 * and on every program's command line. */
#define NS_LEARN_MIN_OBS_MAX 1000000
#define NS_LEARN_MIN_OBS_RANGE "1..1000000"
#define NS_LEARN_MAX_SE_MAX 10.0
#define NS_LEARN_MAX_SE_RANGE "0..10"

typedef struct {
    int min_observations; /* jobs needed per figure (default 5) */
    double min_exposure;  /* fraction of a job's run (default 0.05) */
    double max_se;        /* figures less certain stay neutral (0.05) */
} ns_learn_opts_t;

/* Why a figure is or is not learned (ns_learn_fig_t.why). */
typedef enum {
    NS_LEARN_LEARNED = 0,     /* identified, fitted, certain enough */
    NS_LEARN_NO_DATA,         /* no job exposed to it */
    NS_LEARN_UNIDENTIFIED,    /* the history's design cannot separate it
                                 (ns_learn_explain () says from what and
                                 which runs would) */
    NS_LEARN_FEW,             /* fewer than min_observations jobs */
    NS_LEARN_NO_RESIDUAL,     /* as many distinct run kinds as figures:
                                 fitted exactly, no residual to measure
                                 its error */
    NS_LEARN_UNCERTAIN,       /* standard error above max_se */
} ns_learn_why_t;

typedef struct {
    double value;         /* the figure (neutral 1.0 if not learned) */
    double se;            /* standard error, NAN if not learned */
    int n;                /* jobs exposed to it */
    int learned;          /* 1: fitted with enough evidence */
    int identified;       /* 1: the history's design determines it (a
                             learned figure always is) */
    ns_learn_why_t why;
} ns_learn_fig_t;

void ns_learn_opts_default (ns_learn_opts_t *o);

/* node_cores: cores of a full node (the pair figures are for half of it). */
ns_learn_t *ns_learn_create (int node_cores, ns_error_t *err);
void ns_learn_destroy (ns_learn_t *l);

/* Add the jobs of one history (node indices are local to it).  A job is
 * striped when it holds fewer than node_cores cores on each of two or
 * more nodes.  Jobs of unknown program are co-tenants only.  -1 with err
 * (EINVAL) on a malformed job; nothing of the call is kept then. */
int ns_learn_add_history (ns_learn_t *l, const ns_learn_job_t *jobs, int n,
                          ns_error_t *err);

/* Only jobs[target] becomes an observation (a job that just ended, in
 * the select plugin); the others are its context. */
int ns_learn_observe (ns_learn_t *l, const ns_learn_job_t *jobs, int n,
                      int target, ns_error_t *err);

/* Keep at most max observations (0: no limit): past it the oldest go,
 * down to 3/4 of max. */
void ns_learn_set_max (ns_learn_t *l, int max);
int ns_learn_nobservations (const ns_learn_t *l);

/* The observations as JSON (the select plugin's state file), programs by
 * name; NULL if out of memory.  ns_learn_load () adds those of a saved
 * state (names interned in progs); -1 with err (EINVAL: where and what is
 * wrong) and nothing added. */
json_object *ns_learn_save (const ns_learn_t *l, const ns_progtab_t *progs);
/* The same for the observations from index `first` on (the newest is
 * nobservations - 1): the select plugin journals each new observation. */
json_object *ns_learn_save_from (const ns_learn_t *l,
                                 const ns_progtab_t *progs, int first);
int ns_learn_load (ns_learn_t *l, json_object *state, ns_progtab_t *progs,
                   ns_error_t *err);

/* After ns_learn_fit (): set in m every learned figure that `given` (the
 * configuration) does not give.  Returns how many, or -1 with err. */
int ns_learn_apply (const ns_learn_t *l, ns_interf_t *m,
                    const ns_interf_t *given, ns_error_t *err);

/* Online (the select plugin): allocations as they begin and end.  A job
 * that ends completed becomes an observation, its context the recorded
 * allocations that overlapped it on its nodes.  Ended allocations are kept
 * while a live one began before they ended.  observable = 0 for a job
 * whose history is incomplete (it was running before the learner began
 * recording, e.g. at a slurmctld restart): a co-tenant only.
 * ns_learn_begin: 0, or -1 with err (EINVAL bad allocation, EEXIST id
 * recorded and live, ENOMEM).  ns_learn_end: 1 observed, 0 not (unknown
 * id, not completed, not observable, unknown program), -1 with err. */
int ns_learn_begin (ns_learn_t *l, uint64_t id, int program, double start,
                    const int *nodes, const int *cores, int n,
                    int observable, ns_error_t *err);
int ns_learn_end (ns_learn_t *l, uint64_t id, double end, int completed,
                  ns_error_t *err);
int ns_learn_live (const ns_learn_t *l);   /* allocations recorded */
/* Renumber programs by name (a configuration reload renumbers them):
 * every id of `from` becomes the id of its name in `to` (interned). */
int ns_learn_remap (ns_learn_t *l, const ns_progtab_t *from,
                    ns_progtab_t *to, ns_error_t *err);

/* Jobs of program p kept as observations (runtime > 0). */
int ns_learn_njobs (const ns_learn_t *l, int p);
/* Largest program id seen + 1. */
int ns_learn_nprograms (const ns_learn_t *l);

/* Fit every program.  0, or -1 with err (ENOMEM). */
int ns_learn_fit (ns_learn_t *l, const ns_learn_opts_t *o, ns_error_t *err);

/* After ns_learn_fit(): the figures of p (and its runtime on one full
 * node, base).  Out-of-range ids give a neutral, unlearned figure. */
ns_learn_fig_t ns_learn_speedup (const ns_learn_t *l, int p);
ns_learn_fig_t ns_learn_slowdown (const ns_learn_t *l, int p, int q);
ns_learn_fig_t ns_learn_base (const ns_learn_t *l, int p);

/* After ns_learn_fit (): for a figure that is not identified (q =
 * NS_LEARN_SPEEDUP for the spread_speedup of p, else its slowdown beside
 * q), what the history confounds it with (why) and the runs that would
 * separate it (need), e.g. why "only spread_speedup(LAM)/slowdown(LAM
 * beside ABQ) observed: LAM never ran striped alone" and need "run LAM
 * striped over two otherwise empty nodes".  Names from progs.  0, or -1
 * if the figure is identified or out of range (buffers untouched). */
#define NS_LEARN_SPEEDUP (-2)
int ns_learn_explain (const ns_learn_t *l, int p, int q,
                      const ns_progtab_t *progs, char *why, size_t whylen,
                      char *need, size_t needlen);
const char *ns_learn_why_name (ns_learn_why_t why);

#endif /* !NODESHARE_LEARN_H */
