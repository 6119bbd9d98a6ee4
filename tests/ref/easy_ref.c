/* SPDX-License-Identifier: GPL-2.0-or-later */
/* easy_ref.c - an independent, count-based EASY backfilling reference
 *
 * Textbook EASY (Lifka 1995; Mu'alem and Feitelson, TPDS 2001) on N
 * identical nodes of C cores, one job per node: a job needs
 * ceil(procs / C) nodes, and since nodes are interchangeable only counts
 * matter.  Written from the papers for the tests, sharing no code with
 * nodeshare (no project header): it replays the jobs of a nodeshare-sim
 * --csv file (one policy) and compares its start times with the file's.
 *
 * Rules, which nodeshare-sim -p exclusive must follow too:
 *  - FCFS queue in submit order (ties: order of the rows).
 *  - At an instant, jobs that end are taken out first, then jobs submitted
 *    are queued, then one scheduling pass.  A job started with a run time
 *    of 0 ends at the same instant and causes one more pass there.
 *  - Pass: start queued jobs in order while the first fits the free nodes.
 *    The first that does not is the head: its shadow time is the earliest
 *    estimated end (start + requested time, or + run time when the request
 *    is unknown) at which, releasing running jobs by estimated end (equal
 *    ends together), enough nodes are free; never before now.  extra = the
 *    nodes free then minus the head's.  Then each later queued job (at most
 *    `depth` of them; 0 = all) that fits the free nodes now starts if its
 *    estimated end is by the shadow time, or else if it needs no more than
 *    extra nodes (extra shrinks by its nodes).  One scan.
 *  - A job wider than the machine is never started; it is dropped when it
 *    is the head or is examined (an examined slot all the same).
 *  - Overrun: "kill" (default) ends a job with a requested time at
 *    start + min(run time, requested time); "run" at start + run time.
 *    Jobs without a requested time always run their run time.
 *
 * Usage: easy_ref --nodes N --cores C [--depth D] [--overrun kill|run]
 *                 [--show K] FILE.csv
 * Prints the jobs, how many start times differ, both mean waits, and the
 * first K differing jobs (default 10); exit 0 when none differ, 1 when
 * some do, 2 on bad input.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct job {
    long long id;
    double submit, runtime, req;    /* req <= 0: unknown */
    int procs;
    int width;                      /* nodes needed */
    int never;                      /* wider than the machine */
    double sim_start;               /* from the file; NAN if none */
    double start;                   /* ours; NAN if none */
    double end, est_end;
    int row;
};

static struct job *jobs;
static int njobs;

static void die (const char *file, int line, const char *msg)
{
    if (line > 0)
        fprintf (stderr, "easy_ref: %s:%d: %s\n", file, line, msg);
    else
        fprintf (stderr, "easy_ref: %s: %s\n", file, msg);
    exit (2);
}

/* Split a CSV line (no quoted commas in the fields used: the program name
 * may be quoted, and is skipped) into at most max fields. */
static int split (char *s, char **f, int max)
{
    int n = 0;
    while (n < max) {
        f[n++] = s;
        int quoted = *s == '"';
        if (quoted)
            for (s++; *s && !(*s == '"' && s[1] != '"'); s += *s == '"' ? 2 : 1)
                ;
        s = strchr (s, ',');
        if (!s)
            break;
        *s++ = '\0';
    }
    return n;
}

static double num (const char *file, int line, const char *field,
                   const char *s, int empty_ok)
{
    if (!*s) {
        if (empty_ok)
            return NAN;
        fprintf (stderr, "easy_ref: %s:%d: field %s: expected a number, got "
                 "nothing\n", file, line, field);
        exit (2);
    }
    char *e;
    double v = strtod (s, &e);
    if (*e || !isfinite (v)) {
        fprintf (stderr, "easy_ref: %s:%d: field %s: expected a number, got "
                 "'%s'\n", file, line, field, s);
        exit (2);
    }
    return v;
}

static void read_csv (const char *file, int cores, int nodes)
{
    FILE *f = fopen (file, "r");
    if (!f)
        die (file, 0, "cannot open");
    char buf[4096];
    int line = 0, cap = 0;
    const char *policy = NULL;
    char pol[128] = "";
    while (fgets (buf, sizeof (buf), f)) {
        line++;
        buf[strcspn (buf, "\r\n")] = '\0';
        char *fl[32];
        int n = split (buf, fl, 32);
        if (line == 1) {
            /* policy,job,program,procs,submit_s,start_s,end_s,wait_s,
             * trace_runtime_s,runtime_s,requested_s,... */
            if (n < 11 || strcmp (fl[1], "job") || strcmp (fl[3], "procs")
                || strcmp (fl[4], "submit_s") || strcmp (fl[5], "start_s")
                || strcmp (fl[8], "trace_runtime_s")
                || strcmp (fl[10], "requested_s"))
                die (file, line, "not a nodeshare-sim --csv header");
            continue;
        }
        if (n < 11)
            die (file, line, "expected at least 11 fields");
        if (!policy) {
            snprintf (pol, sizeof (pol), "%s", fl[0]);
            policy = pol;
        }
        else if (strcmp (policy, fl[0]))
            die (file, line, "more than one policy in the file");
        if (njobs == cap) {
            cap = cap ? 2 * cap : 4096;
            jobs = realloc (jobs, sizeof (*jobs) * cap);
            if (!jobs)
                die (file, 0, "out of memory");
        }
        struct job *j = &jobs[njobs];
        memset (j, 0, sizeof (*j));
        j->row = njobs;
        j->id = (long long)num (file, line, "job", fl[1], 0);
        j->procs = (int)num (file, line, "procs", fl[3], 0);
        j->submit = num (file, line, "submit_s", fl[4], 0);
        j->sim_start = num (file, line, "start_s", fl[5], 1);
        j->runtime = num (file, line, "trace_runtime_s", fl[8], 0);
        double r = num (file, line, "requested_s", fl[10], 1);
        j->req = isnan (r) ? -1 : r;
        if (j->procs < 1 || j->runtime < 0)
            die (file, line, "procs >= 1 and runtime >= 0 expected");
        j->width = (j->procs + cores - 1) / cores;
        j->never = j->width > nodes;
        j->start = NAN;
        njobs++;
    }
    fclose (f);
    if (njobs == 0)
        die (file, 0, "no jobs");
}

static int by_submit (const void *a, const void *b)
{
    const struct job *x = a, *y = b;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return x->row - y->row;
}

/* ---- the schedule ---- */

static int *queue, qn;          /* indices into jobs, FCFS */
static int *run, rn;            /* running jobs */
static int freenodes;
static int depth;
static int kill_overrun = 1;

static void start (int i, double now)
{
    struct job *j = &jobs[i];
    j->start = now;
    double len = j->runtime;
    if (kill_overrun && j->req > 0 && j->req < len)
        len = j->req;
    j->end = now + len;
    j->est_end = now + (j->req > 0 ? j->req : j->runtime);
    freenodes -= j->width;
    run[rn++] = i;
}

static int by_est (const void *a, const void *b)
{
    double x = jobs[*(const int *)a].est_end, y = jobs[*(const int *)b].est_end;
    return x < y ? -1 : x > y;
}

static void schedule (double now)
{
    /* FCFS while the first fits */
    int q = 0;
    while (q < qn) {
        struct job *h = &jobs[queue[q]];
        if (h->never) {
            q++;
            continue;
        }
        if (h->width > freenodes)
            break;
        start (queue[q], now);
        q++;
    }
    memmove (queue, queue + q, sizeof (int) * (qn - q));
    qn -= q;
    if (qn == 0)
        return;
    /* shadow time and extra nodes of the head */
    int need = jobs[queue[0]].width;
    int *order = malloc (sizeof (int) * (rn ? rn : 1));
    memcpy (order, run, sizeof (int) * rn);
    qsort (order, rn, sizeof (int), by_est);
    double shadow = INFINITY;
    int extra = 0, avail = freenodes;
    for (int k = 0; k < rn; k++) {
        avail += jobs[order[k]].width;
        if (k + 1 < rn && jobs[order[k + 1]].est_end == jobs[order[k]].est_end)
            continue;
        if (avail >= need) {
            double e = jobs[order[k]].est_end;
            shadow = e > now ? e : now;
            extra = avail - need;
            break;
        }
    }
    free (order);
    /* one scan behind the head */
    int out = 1, scanned = 0;
    for (int p = 1; p < qn; p++) {
        int i = queue[p];
        struct job *c = &jobs[i];
        if (depth > 0 && scanned >= depth) {
            queue[out++] = i;
            continue;
        }
        scanned++;
        if (c->never)
            continue;   /* dropped */
        if (c->width <= freenodes) {
            double end = now + (c->req > 0 ? c->req : c->runtime);
            if (end <= shadow) {
                start (i, now);
                continue;
            }
            if (c->width <= extra) {
                extra -= c->width;
                start (i, now);
                continue;
            }
        }
        queue[out++] = i;
    }
    qn = out;
}

int main (int argc, char **argv)
{
    int nodes = 0, cores = 0, show = 10;
    const char *file = NULL;
    for (int a = 1; a < argc; a++) {
        if (!strcmp (argv[a], "--nodes") && a + 1 < argc)
            nodes = atoi (argv[++a]);
        else if (!strcmp (argv[a], "--cores") && a + 1 < argc)
            cores = atoi (argv[++a]);
        else if (!strcmp (argv[a], "--depth") && a + 1 < argc)
            depth = atoi (argv[++a]);
        else if (!strcmp (argv[a], "--show") && a + 1 < argc)
            show = atoi (argv[++a]);
        else if (!strcmp (argv[a], "--overrun") && a + 1 < argc) {
            a++;
            if (!strcmp (argv[a], "kill"))
                kill_overrun = 1;
            else if (!strcmp (argv[a], "run"))
                kill_overrun = 0;
            else {
                fprintf (stderr, "easy_ref: --overrun '%s': expected kill "
                         "or run\n", argv[a]);
                return 2;
            }
        }
        else if (argv[a][0] != '-' && !file)
            file = argv[a];
        else {
            fprintf (stderr, "usage: easy_ref --nodes N --cores C "
                     "[--depth D] [--overrun kill|run] [--show K] "
                     "FILE.csv\n");
            return 2;
        }
    }
    if (!file || nodes < 1 || cores < 1 || depth < 0) {
        fprintf (stderr, "easy_ref: expected --nodes N >= 1, --cores C >= 1 "
                 "and a CSV file\n");
        return 2;
    }
    read_csv (file, cores, nodes);
    /* The file's rows are in the simulator's order; FCFS goes by submit. */
    struct job *byrow = malloc (sizeof (*jobs) * njobs);
    qsort (jobs, njobs, sizeof (*jobs), by_submit);
    queue = malloc (sizeof (int) * njobs);
    run = malloc (sizeof (int) * njobs);
    if (!byrow || !queue || !run)
        die (file, 0, "out of memory");
    freenodes = nodes;
    int next = 0;       /* next job to submit */
    for (;;) {
        double t = INFINITY;
        if (next < njobs)
            t = jobs[next].submit;
        for (int k = 0; k < rn; k++)
            if (jobs[run[k]].end < t)
                t = jobs[run[k]].end;
        if (isinf (t))
            break;
        int out = 0;
        for (int k = 0; k < rn; k++) {
            if (jobs[run[k]].end <= t)
                freenodes += jobs[run[k]].width;
            else
                run[out++] = run[k];
        }
        rn = out;
        while (next < njobs && jobs[next].submit <= t)
            queue[qn++] = next++;
        schedule (t);
    }
    /* compare, in the file's row order */
    for (int i = 0; i < njobs; i++)
        byrow[jobs[i].row] = jobs[i];
    long long ndiff = 0, nref = 0, nsim = 0;
    double wref = 0, wsim = 0;
    for (int i = 0; i < njobs; i++) {
        const struct job *j = &byrow[i];
        if (!isnan (j->start)) {
            nref++;
            wref += j->start - j->submit;
        }
        if (!isnan (j->sim_start)) {
            nsim++;
            wsim += j->sim_start - j->submit;
        }
        int same = isnan (j->start) ? isnan (j->sim_start)
                                    : !isnan (j->sim_start)
                                          && fabs (j->start - j->sim_start)
                                                 < 1e-3;
        if (!same && ndiff++ < show)
            printf ("differ: job %lld (%d procs, %d nodes, submit %.0f, "
                    "run %.0f, req %.0f): reference start %.0f, simulator "
                    "%.3f\n", j->id, j->procs, j->width, j->submit,
                    j->runtime, j->req, j->start, j->sim_start);
    }
    printf ("jobs %d, started: reference %lld, simulator %lld; start times "
            "differing: %lld; mean wait: reference %.1f s, simulator %.1f s\n",
            njobs, nref, nsim, ndiff, nref ? wref / nref : 0,
            nsim ? wsim / nsim : 0);
    free (byrow);
    free (jobs);
    free (queue);
    free (run);
    return ndiff ? 1 : 0;
}
