/* SPDX-License-Identifier: GPL-2.0-or-later */
/* batch.c - replays of several policies (at several loads) in threads
 *
 * The tasks are taken in slot order by up to b->threads threads (the
 * calling thread is one of them), exclusive's last: of the study's
 * policies its replay costs least on RICC, the largest real trace
 * (doc/performance.md), so the costlier ones run side by side.  A task
 * keeps its error, its CSV rows (buffered, so that they are written in
 * slot order) and, under the pool's lock, its progress.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"
#include "fileio.h"
#include "progress.h"
#include "sacct_out.h"

enum { TASK_WAITING = 0, TASK_RUNNING, TASK_DONE, TASK_FAILED };

struct pool;

struct task {
    struct pool *pool;
    int k;                  /* policy index */
    double load;            /* closed experiments; < 0 for traces */
    ns_metrics_t *m;        /* its slot */
    char label[80];         /* policy name (and load) for progress */
    char *csv;              /* CSV rows, until written in slot order */
    size_t csv_len;
    ns_error_t err;         /* why it failed */
    /* progress (under pool.lock) */
    int state;
    int done_jobs, total_jobs;
    int twin_of;            /* the task whose replay gives its outputs */
};

struct pool {
    pthread_mutex_t lock;
    const ns_batch_t *b;
    struct task *tasks;
    int ntasks;
    int *order;             /* the slots in the order they start */
    int next;               /* next of order to start */
    int written;            /* tasks whose CSV rows are out */
    int failed;
    double last_draw;
    int drawn;              /* length of the line on the terminal */
};

static double wall (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the progress line ----
 *
 * One line for all the tasks running, "2/8 done; running: twins 45%,
 * mixed 30%", redrawn at most ten times a second, and a line of its own
 * per finished task.  Called with pool->lock held. */
#define PROGRESS_COLUMNS 79
#define PROGRESS_ITEMS 512

static void progress_erase (struct pool *p)
{
    if (p->drawn)
        fprintf (p->b->progress, "\r%*s\r", p->drawn, "");
    p->drawn = 0;
}

static void progress_draw (struct pool *p)
{
    char line[512];
    ns_progress_item_t items[PROGRESS_ITEMS];
    int n = p->ntasks < PROGRESS_ITEMS ? p->ntasks : PROGRESS_ITEMS;
    for (int i = 0; i < n; i++) {
        const struct task *t = &p->tasks[i];
        items[i] = (ns_progress_item_t){
            .label = t->label,
            .running = t->state == TASK_RUNNING,
            .done = t->state == TASK_DONE,
            .done_units = t->done_jobs,
            .total_units = t->total_jobs,
        };
    }
    int len = ns_progress_line (line, sizeof (line), PROGRESS_COLUMNS,
                                items, n);
    if (len < 0)
        return;
    fprintf (p->b->progress, "\r%s%*s", line,
             p->drawn > len ? p->drawn - len : 0, "");
    p->drawn = len;
    p->last_draw = wall ();
}

/* A finished task's own line above the progress line. */
static void progress_done (struct pool *p, const char *line)
{
    if (!p->b->progress)
        return;
    progress_erase (p);
    fprintf (p->b->progress, "%s\n", line);
    progress_draw (p);
}

/* Engine callback: every 2000 completed jobs of one task.  In closed
 * experiments total grows with the replacements; the share is then of
 * simulated time over the horizon. */
static void progress (ns_sim_t *sim, int done, int total, void *arg)
{
    struct task *t = arg;
    struct pool *p = t->pool;
    pthread_mutex_lock (&p->lock);
    if (t->load >= 0) {
        t->done_jobs = (int)(1000 * ns_sim_now (sim) / p->b->horizon);
        t->total_jobs = 1000;
    }
    else {
        t->done_jobs = done;
        t->total_jobs = total;
    }
    if (wall () - p->last_draw >= 0.1)
        progress_draw (p);
    pthread_mutex_unlock (&p->lock);
}

/* CSV rows of the finished tasks, in slot order, as far as the first
 * task still running.  Called with pool->lock held. */
static void write_csv_in_order (struct pool *p)
{
    while (p->written < p->ntasks
           && p->tasks[p->written].state == TASK_DONE) {
        struct task *t = &p->tasks[p->written++];
        if (t->csv_len)
            fwrite (t->csv, 1, t->csv_len, p->b->csv);
        free (t->csv);
        t->csv = NULL;
    }
}

/* ---- one task ---- */

/* Does task t write the outputs of policy `name` (its own or a twin's)? */
static int writes_for (const struct task *t, const char *name)
{
    const struct pool *p = t->pool;
    int me = (int)(t - p->tasks);
    for (int i = 0; i < p->ntasks; i++)
        if ((i == me || p->tasks[i].twin_of == me)
            && strcmp (p->b->names[p->tasks[i].k], name) == 0)
            return 1;
    return 0;
}

static ns_sim_t *new_sim (struct task *t)
{
    const ns_batch_t *b = t->pool->b;
    ns_simconf_t conf = b->confs[t->k];
    /* The study's strategies are strict: nothing falls back to packing
     * (closed experiments, where a job every rule admits always exists
     * at full load). */
    if (t->load >= 0)
        conf.policy.fallback_after = -1;
    ns_sim_t *sim = ns_sim_create (&conf, &t->err);
    if (!sim)
        return NULL;
    ns_sim_set_checking (sim, b->check);
    /* The nodes of finished jobs only for the reports that list them */
    ns_sim_set_keep_shares (sim, b->csv
                                 || (b->sacct_path
                                     && writes_for (t, b->sacct_policy)));
    if (b->progress)
        ns_sim_set_progress (sim, progress, 2000, t);
    return sim;
}

/* Metrics into the task's slot, CSV rows into its buffer. */
static int finish_run (struct task *t, ns_sim_t *sim, double window,
                       ns_timeline_t *tl, double t0)
{
    const ns_batch_t *b = t->pool->b;
    const char *name = b->names[t->k];
    ns_metrics_t *m = t->m;
    if (ns_metrics_compute (sim, window, m) < 0)
        return ns_error_set (&t->err, ENOMEM, "out of memory");
    snprintf (m->policy, sizeof (m->policy), "%s", name);
    m->load = t->load;
    m->wall_s = wall () - t0;
    ns_timeline_finish (tl, m);
    if (b->sacct_path && strcmp (name, b->sacct_policy) == 0) {
        FILE *f = ns_open_out (b->sacct_path, &t->err);
        if (!f)
            return -1;
        int bad = ns_report_sacct (f, sim, b->progs, b->sacct_epoch,
                                   "ns") < 0;
        if (ns_close_out (f, b->sacct_path, &t->err) < 0)
            return -1;
        if (bad)
            return ns_error_set (&t->err, EIO, "%s: write failed",
                                 b->sacct_path);
    }
    if (b->csv) {
        FILE *f = open_memstream (&t->csv, &t->csv_len);
        if (!f)
            return ns_error_set (&t->err, ENOMEM, "out of memory");
        ns_report_csv_rows (f, sim, name, b->progs);
        if (ferror (f) | fclose (f))
            return ns_error_set (&t->err, ENOMEM, "out of memory");
    }
    return 0;
}

/* The twins of task t (policies whose schedule is its replay): their
 * outputs from it, each timed on its own. */
static int finish_twins (struct task *t, ns_sim_t *sim, ns_timeline_t *tl)
{
    struct pool *p = t->pool;
    int me = (int)(t - p->tasks);
    for (int i = 0; i < p->ntasks; i++) {
        struct task *u = &p->tasks[i];
        if (u->twin_of != me)
            continue;
        pthread_mutex_lock (&p->lock);
        u->state = TASK_RUNNING;
        pthread_mutex_unlock (&p->lock);
        int rc = finish_run (u, sim, 0, tl, wall ());
        pthread_mutex_lock (&p->lock);
        u->state = rc < 0 ? TASK_FAILED : TASK_DONE;
        if (rc == 0 && p->b->csv)
            write_csv_in_order (p);
        if (rc == 0) {
            char line[200];
            snprintf (line, sizeof (line), "%s: done with %s's replay",
                      u->label, t->label);
            progress_done (p, line);
        }
        pthread_mutex_unlock (&p->lock);
        if (rc < 0) {
            t->err = u->err;
            return -1;
        }
    }
    return 0;
}

static int run_trace_policy (struct task *t)
{
    const ns_batch_t *b = t->pool->b;
    double t0 = wall ();
    ns_sim_t *sim = new_sim (t);
    if (!sim)
        return -1;
    ns_timeline_t tl;
    double first = b->jobs[0].submit, last = first;
    for (int64_t i = 0; i < b->njobs; i++) {
        if (ns_sim_add_ref (sim, &b->jobs[i], &t->err) < 0) {
            ns_sim_destroy (sim);
            return -1;
        }
        double end = b->jobs[i].submit + b->jobs[i].runtime;
        if (end > last)
            last = end;
    }
    ns_timeline_init (&tl, first, last, (double)b->total_cores);
    ns_sim_set_usage_hook (sim, ns_timeline_hook, &tl);
    ns_error_t err;
    int rc = ns_sim_run (sim, -1, &err);
    if (rc < 0)
        ns_error_set (&t->err, EINVAL, "%s: %s", t->label, err.text);
    else
        rc = finish_run (t, sim, 0, &tl, t0);
    if (rc == 0)
        rc = finish_twins (t, sim, &tl);
    ns_sim_destroy (sim);
    return rc;
}

static int run_closed_policy (struct task *t)
{
    const ns_batch_t *b = t->pool->b;
    const ns_simconf_t *c = &b->confs[t->k];
    ns_error_t err;
    double t0 = wall ();
    ns_sim_t *sim = new_sim (t);
    if (!sim)
        return -1;
    int rc = -1;
    ns_closed_t *cl = ns_closed_create (
        c->model, &c->policy, b->mix, c->cores, b->horizon,
        ns_closed_population (t->load, c->nnodes), &t->err);
    if (!cl)
        goto out;
    if (ns_closed_start (cl, sim, &err) < 0) {
        ns_error_set (&t->err, EINVAL, "%s: %s", t->label, err.text);
        goto out;
    }
    ns_timeline_t tl;
    ns_timeline_init (&tl, 0, b->horizon, (double)c->nnodes * c->cores);
    ns_sim_set_usage_hook (sim, ns_timeline_hook, &tl);
    rc = ns_sim_run (sim, b->horizon, &err);
    if (rc < 0)
        ns_error_set (&t->err, EINVAL, "%s: %s", t->label, err.text);
    else
        rc = finish_run (t, sim, b->horizon, &tl, t0);
out:
    ns_closed_destroy (cl);
    ns_sim_destroy (sim);
    return rc;
}

/* ---- the pool ---- */

/* Each thread takes the next task in p->order until none is left or one
 * has failed. */
static void *worker (void *arg)
{
    struct pool *p = arg;
    pthread_mutex_lock (&p->lock);
    while (!p->failed && p->next < p->ntasks) {
        struct task *t = &p->tasks[p->order[p->next++]];
        if (t->twin_of >= 0)
            continue;   /* the task it is the twin of writes it */
        t->state = TASK_RUNNING;
        if (p->b->progress)
            progress_draw (p);
        pthread_mutex_unlock (&p->lock);
        int rc = t->load >= 0 ? run_closed_policy (t) : run_trace_policy (t);
        pthread_mutex_lock (&p->lock);
        if (rc < 0) {
            t->state = TASK_FAILED;
            p->failed = 1;
            continue;
        }
        t->state = TASK_DONE;
        if (p->b->csv)
            write_csv_in_order (p);
        char line[120];
        snprintf (line, sizeof (line), "%s: done in %.1f s", t->label,
                  t->m->wall_s);
        progress_done (p, line);
    }
    pthread_mutex_unlock (&p->lock);
    return NULL;
}

int ns_batch_twins (const ns_batch_t *b, int *twin_of, char *list,
                    size_t size)
{
    int pk = -1, n = 0;
    size_t len = 0;
    for (int i = 0; i < b->npolicies; i++) {
        twin_of[i] = -1;
        if (pk < 0 && b->confs[i].policy.kind == NS_POLICY_PACK)
            pk = i;
    }
    if (size)
        list[0] = '\0';
    if (pk < 0 || b->nloads)
        return 0;
    const ns_policy_t *pack = &b->confs[pk].policy;
    for (int i = 0; i < b->npolicies; i++) {
        const ns_policy_t *pol = &b->confs[i].policy;
        if (i == pk || pol->fallback_after != pack->fallback_after
            || pol->seed != pack->seed
            || pol->max_cotenants != pack->max_cotenants
            || !ns_sim_schedule_is_packs (&b->confs[i], b->jobs, b->njobs))
            continue;
        twin_of[i] = pk;
        if (len < size)
            len += (size_t)snprintf (list + len, size - len, "%s%s",
                                     n ? ", " : "", b->names[i]);
        n++;
    }
    return n;
}

int ns_batch_run (const ns_batch_t *b, ns_metrics_t *metrics,
                  ns_error_t *err)
{
    int np = b->npolicies, n = b->nloads ? b->nloads * np : np;
    struct pool p = { .b = b, .ntasks = n };
    p.tasks = calloc (n, sizeof (*p.tasks));
    p.order = calloc (n, sizeof (*p.order));
    int nthreads = b->threads < n ? b->threads : n;
    if (nthreads < 1)
        nthreads = 1;
    pthread_t *tid = calloc (nthreads, sizeof (*tid));
    if (!p.tasks || !p.order || !tid) {
        free (p.tasks);
        free (p.order);
        free (tid);
        return ns_error_set (err, ENOMEM, "out of memory");
    }
    /* slot order, exclusive's replays last (see the file comment) */
    int no = 0;
    for (int last = 0; last < 2; last++)
        for (int i = 0; i < n; i++)
            if ((b->confs[i % np].policy.kind == NS_POLICY_EXCLUSIVE)
                == last)
                p.order[no++] = i;
    for (int i = 0; i < n; i++) {
        struct task *t = &p.tasks[i];
        *t = (struct task){
            .pool = &p,
            .k = i % np,
            .load = b->nloads ? b->loads[i / np] : -1,
            .m = &metrics[i],
            .twin_of = !b->nloads && b->twin_of ? b->twin_of[i] : -1,
        };
        if (b->nloads)
            snprintf (t->label, sizeof (t->label), "%s@%.2f",
                      b->names[t->k], t->load);
        else
            snprintf (t->label, sizeof (t->label), "%s", b->names[t->k]);
    }
    pthread_mutex_init (&p.lock, NULL);
    /* This thread is a worker too: if a thread cannot be created, the
     * others do its share. */
    int started = 0;
    while (started < nthreads - 1
           && pthread_create (&tid[started], NULL, worker, &p) == 0)
        started++;
    worker (&p);
    for (int i = 0; i < started; i++)
        pthread_join (tid[i], NULL);
    pthread_mutex_destroy (&p.lock);
    if (b->progress)
        progress_erase (&p);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (!rc && p.tasks[i].state == TASK_FAILED) {
            if (err)
                *err = p.tasks[i].err;
            rc = -1;
        }
        free (p.tasks[i].csv);
    }
    free (p.tasks);
    free (p.order);
    free (tid);
    return rc;
}
