/* SPDX-License-Identifier: GPL-2.0-or-later */
/* calib_run.c - nodeshare-calibrate's runs with Slurm (calib_run.h): the
 * work directory, then every run submitted with sbatch and watched with
 * squeue (sacct for a job squeue forgot), pairs one at a time (the
 * co-tenant first, the measured job on its nodes once it runs).
 *
 * Timing: every job runs a wrapper that records the script's own start
 * and end (date +%s.%N) in WORKDIR/times/JOBID, so neither accounting nor
 * Slurm's one-second times are needed; a job whose file is missing falls
 * back to the StartTime/EndTime squeue reported while it was known. */
#define _GNU_SOURCE             /* strptime */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "calib.h"
#include "calib_run.h"
#include "cmdline.h"

#define PROG "nodeshare-calibrate"
#define die(...) ns_cmd_die (PROG, __VA_ARGS__)

static volatile sig_atomic_t interrupted;

static void on_signal (int sig)
{
    interrupted = sig;
}

/* ---- running commands ---- */

/* What run_cmd () does with the command's stderr: passes it through, or
 * sends it to /dev/null. */
enum { ERR_PASS, ERR_QUIET };

/* Runs argv; its stdout into out (cut at size); its stderr as err_to
 * says, or into the file errf if not NULL.  The exit status, or -1 (said
 * why). */
static int run_cmd_err (char *const argv[], char *out, size_t size,
                        int err_to, FILE *errf)
{
    int fd[2];
    if (pipe (fd) < 0)
        return die ("pipe: %s", strerror (errno));
    pid_t pid = fork ();
    if (pid < 0) {
        close (fd[0]);
        close (fd[1]);
        return die ("fork: %s", strerror (errno));
    }
    if (pid == 0) {
        dup2 (fd[1], 1);
        if (errf)
            dup2 (fileno (errf), 2);
        close (fd[0]);
        close (fd[1]);
        if (!errf && err_to == ERR_QUIET) {
            int null = open ("/dev/null", O_WRONLY);
            if (null >= 0)
                dup2 (null, 2);
        }
        execvp (argv[0], argv);
        fprintf (stderr, PROG ": cannot run %s: %s\n", argv[0],
                 strerror (errno));
        _exit (127);
    }
    close (fd[1]);
    size_t n = 0;
    for (;;) {
        char sink[4096];
        char *dst = n + 1 < size ? out + n : sink;
        size_t room = n + 1 < size ? size - 1 - n : sizeof (sink);
        ssize_t k = read (fd[0], dst, room);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        if (dst != sink)
            n += (size_t) k;
    }
    close (fd[0]);
    if (size)
        out[n] = '\0';
    int status;
    while (waitpid (pid, &status, 0) < 0)
        if (errno != EINTR)
            return die ("waitpid: %s", strerror (errno));
    if (WIFEXITED (status))
        return WEXITSTATUS (status);
    return 128 + (WIFSIGNALED (status) ? WTERMSIG (status) : 0);
}

static int run_cmd (char *const argv[], char *out, size_t size, int err_to)
{
    return run_cmd_err (argv, out, size, err_to, NULL);
}

int ns_calrun_sinfo_cores (const char *partition)
{
    char out[4096];
    char *argv[] = { "sinfo", "-h", "-o", "%c", NULL, NULL, NULL };
    if (partition) {
        argv[4] = "-p";
        argv[5] = (char *) partition;
    }
    FILE *errf = tmpfile ();
    int rc = run_cmd_err (argv, out, sizeof (out), ERR_PASS, errf);
    if (rc != 0) {
        /* its first line of stderr says why (no slurm.conf, no
         * controller) */
        char why[512] = "";
        if (errf) {
            rewind (errf);
            if (!fgets (why, sizeof (why), errf))
                why[0] = '\0';
        }
        why[strcspn (why, "\n")] = '\0';
        if (errf)
            fclose (errf);
        return die ("sinfo failed%s%s: give --cores", why[0] ? ": " : "",
                    why);
    }
    if (errf)
        fclose (errf);
    int cores = 0;
    char *save, *tok;
    for (tok = strtok_r (out, " \n", &save); tok;
         tok = strtok_r (NULL, " \n", &save)) {
        int c = atoi (tok);
        if (c <= 0)
            continue;
        if (cores && c != cores)
            return die ("the nodes%s%s have %d and %d cores: give --cores "
                        "(and --partition)", partition ? " of " : "",
                        partition ? partition : "", cores, c);
        cores = c;
    }
    if (!cores)
        return die ("sinfo shows no nodes%s%s: give --cores",
                    partition ? " in " : "",
                    partition ? partition : "");
    return cores;
}

/* ---- the work directory ---- */

static int write_file (const char *path, const char *text, mode_t mode)
{
    int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0)
        return die ("%s: cannot create: %s", path, strerror (errno));
    size_t n = strlen (text);
    ssize_t k = write (fd, text, n);
    int e = errno;
    if (close (fd) < 0 || k != (ssize_t) n)
        return die ("%s: cannot write: %s", path, strerror (e));
    return 0;
}

static int copy_file (const char *from, const char *to, mode_t mode)
{
    FILE *f = fopen (from, "r");
    if (!f)
        return die ("%s: cannot open: %s", from, strerror (errno));
    int fd = open (to, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0) {
        fclose (f);
        return die ("%s: cannot create: %s", to, strerror (errno));
    }
    char buf[8192];
    size_t k;
    int rc = 0;
    while ((k = fread (buf, 1, sizeof (buf), f)) > 0)
        if (write (fd, buf, k) != (ssize_t) k) {
            rc = die ("%s: cannot write: %s", to, strerror (errno));
            break;
        }
    fclose (f);
    if (close (fd) < 0 && rc == 0)
        rc = die ("%s: cannot write: %s", to, strerror (errno));
    return rc;
}

int ns_calrun_prepare (ns_calib_t *c, const struct ns_calrun_opts *o)
{
    if (o->workdir)
        snprintf (c->workdir, sizeof (c->workdir), "%s", o->workdir);
    else
        snprintf (c->workdir, sizeof (c->workdir), "nodeshare-calibrate.%s",
                  c->runid);
    if (mkdir (c->workdir, 0755) < 0 && errno != EEXIST)
        return die ("%s: cannot create: %s", c->workdir, strerror (errno));
    char abs[PATH_MAX];
    if (!realpath (c->workdir, abs))
        return die ("%s: %s", c->workdir, strerror (errno));
    snprintf (c->workdir, sizeof (c->workdir), "%s", abs);
    /* The wrappers quote paths with '...'. */
    if (strchr (c->workdir, '\''))
        return die ("%s: expected a work directory without a ' in its path "
                    "(give --workdir)", c->workdir);
    char times[PATH_MAX + 8];
    snprintf (times, sizeof (times), "%s/times", c->workdir);
    if (mkdir (times, 0755) < 0 && errno != EEXIST)
        return die ("%s: cannot create: %s", times, strerror (errno));
    for (int i = 0; i < c->nprogs; i++) {
        struct ns_calib_prog *p = &c->progs[i];
        char header[16384], text[32768];
        ns_error_t err;
        ns_calib_prog_paths (c, i);
        if (copy_file (p->script, p->job, 0755) < 0)
            return -1;
        if (ns_calib_sbatch_header (p->script, header, sizeof (header), &err)
            < 0)
            return die ("%s", err.text);
        ns_calib_wrapper_text (c, i, header, text, sizeof (text));
        if (write_file (p->wrap, text, 0755) < 0)
            return -1;
        ns_calib_filler_text (c, i, header, text, sizeof (text));
        if (write_file (p->fill, text, 0755) < 0)
            return -1;
    }
    return 0;
}

/* ---- submitting and watching ---- */

static long submit (const ns_calib_t *c, const struct ns_calib_run *r,
                    const struct ns_calrun_opts *o, int filler,
                    const char *nodelist)
{
    const struct ns_calib_prog *p = &c->progs[filler ? r->q : r->p];
    char nodes[16], tpn[16], t[16], comment[512], out[PATH_MAX + 16];
    ns_calib_shape_args (c, r, nodes, sizeof (nodes), tpn, sizeof (tpn));
    snprintf (t, sizeof (t), "%d", c->minutes);
    if (r->shape == NS_CALIB_BESIDE)
        snprintf (comment, sizeof (comment), "nodeshare-calibrate %s %s "
                  "%s:%s %d%s", c->runid, c->progs[r->p].name,
                  ns_calib_shape_name (r->shape), c->progs[r->q].name, r->rep,
                  filler ? " co-tenant" : "");
    else
        snprintf (comment, sizeof (comment), "nodeshare-calibrate %s %s %s %d",
                  c->runid, p->name, ns_calib_shape_name (r->shape), r->rep);
    snprintf (out, sizeof (out), "%.*s/%%x-%%j.out", PATH_MAX - 16,
              c->workdir);
    char *argv[32];
    int n = 0;
    argv[n++] = "sbatch";
    argv[n++] = "--parsable";
    argv[n++] = "-J";
    argv[n++] = (char *) p->name;
    argv[n++] = "--comment";
    argv[n++] = comment;
    argv[n++] = "-o";
    argv[n++] = out;
    argv[n++] = "-t";
    argv[n++] = t;
    argv[n++] = "-N";
    argv[n++] = nodes;
    argv[n++] = "--ntasks-per-node";
    argv[n++] = tpn;
    /* Alone: whole nodes, nobody else there.  Beside: the nodes are
     * shared with this user's jobs only, i.e. the pair. */
    argv[n++] = r->shape == NS_CALIB_BESIDE ? "--exclusive=user"
                                            : "--exclusive";
    if (o->partition) {
        argv[n++] = "-p";
        argv[n++] = (char *) o->partition;
    }
    if (nodelist) {
        argv[n++] = "-w";
        argv[n++] = (char *) nodelist;
    }
    argv[n++] = (char *) (filler ? p->fill : p->wrap);
    argv[n] = NULL;
    char res[256];
    if (run_cmd (argv, res, sizeof (res), ERR_PASS) != 0)
        return die ("sbatch failed for %s (%s)", p->name, comment);
    char *end;
    long id = strtol (res, &end, 10);
    if (id <= 0 || (*end != '\n' && *end != ';' && *end != '\0'))
        return die ("sbatch printed '%s', expected a job id", res);
    return id;
}

static void cancel_jobs (const ns_calib_t *c)
{
    char *argv[4 + 2 * 1024];
    char ids[1024][24];
    int n = 0, k = 0;
    argv[n++] = "scancel";
    for (int i = 0; i < c->nruns && k < 1022; i++) {
        const struct ns_calib_run *r = &c->runs[i];
        if (r->st == NS_CALIB_DONE || r->st == NS_CALIB_PLANNED)
            continue;
        if (r->job > 0) {
            snprintf (ids[k], sizeof (ids[k]), "%ld", r->job);
            argv[n++] = ids[k++];
        }
        if (r->filler > 0) {
            snprintf (ids[k], sizeof (ids[k]), "%ld", r->filler);
            argv[n++] = ids[k++];
        }
    }
    argv[n] = NULL;
    char out[64];
    if (k)
        run_cmd (argv, out, sizeof (out), ERR_QUIET);
}

static void cancel_one (long id)
{
    char s[24], out[64];
    snprintf (s, sizeof (s), "%ld", id);
    char *argv[] = { "scancel", s, NULL };
    run_cmd (argv, out, sizeof (out), ERR_QUIET);
}

struct jobinfo {
    char state[32];
    char nodes[256];
    char start[32], end[32];
};

/* squeue's view of one job; 0, or 1 when Slurm no longer knows it. */
static int job_info (long id, struct jobinfo *ji)
{
    char s[24], out[1024];
    snprintf (s, sizeof (s), "%ld", id);
    char *argv[] = { "squeue", "-h", "-t", "all", "-j", s, "-o",
                     "%T %S %e %N", NULL };
    memset (ji, 0, sizeof (*ji));
    if (run_cmd (argv, out, sizeof (out), ERR_QUIET) != 0 || !out[0])
        return 1;
    if (sscanf (out, "%31s %31s %31s %255s", ji->state, ji->start, ji->end,
                ji->nodes) < 3)
        return 1;
    return 0;
}

static int final_state (const char *st)
{
    static const char *const fin[] = {
        "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
        "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "PREEMPTED", NULL
    };
    for (int i = 0; fin[i]; i++)
        if (!strcmp (st, fin[i]))
            return 1;
    return 0;
}

static int slurm_time (const char *s, time_t *t)
{
    struct tm tm;
    memset (&tm, 0, sizeof (tm));
    const char *e = strptime (s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!e || *e)
        return -1;
    tm.tm_isdst = -1;
    *t = mktime (&tm);
    return 0;
}

/* A job Slurm no longer shows: its state, start and end from sacct.
 * -1 (said why) when it did not complete or accounting does not know it. */
static int sacct_times (const ns_calib_t *c, struct ns_calib_run *r)
{
    char s[24], out[1024], state[32] = "";
    snprintf (s, sizeof (s), "%ld", r->job);
    char *argv[] = { "sacct", "-n", "-X", "-P", "-j", s, "-o",
                     "State,Start,End", NULL };
    if (run_cmd (argv, out, sizeof (out), ERR_QUIET) != 0
        || sscanf (out, "%31[^|]|%31[^|]|%31[^|\n]", state, r->start,
                   r->end) != 3)
        return die ("job %ld: Slurm no longer shows it, and sacct does not "
                    "know it (no accounting?)", r->job);
    if (strncmp (state, "COMPLETED", 9))
        return die ("job %ld ended %s: see %s/%s-%ld.out", r->job, state,
                    c->workdir, c->progs[r->p].name, r->job);
    return 0;
}

/* The run's seconds: the wrapper's record, else squeue's times (to the
 * second).  -1 (said why) when neither, or the script failed. */
static int read_seconds (const ns_calib_t *c, struct ns_calib_run *r)
{
    char path[PATH_MAX + 40];
    snprintf (path, sizeof (path), "%.*s/times/%ld", PATH_MAX - 40, c->workdir,
              r->job);
    FILE *f = fopen (path, "r");
    if (f) {
        double t0, t1;
        int rc;
        int k = fscanf (f, "%lf %lf %d", &t0, &t1, &rc);
        fclose (f);
        if (k != 3)
            return die ("%s: expected \"START END STATUS\"", path);
        if (rc != 0)
            return die ("job %ld (%s %s): the script exited with %d", r->job,
                        c->progs[r->p].name, ns_calib_shape_name (r->shape),
                        rc);
        r->secs = t1 - t0;
        return 0;
    }
    /* No time file (a work directory the node could not write): squeue's
     * times of the ended job, else accounting's. */
    if (!r->start[0] && sacct_times (c, r) < 0)
        return -1;
    time_t a, b;
    if (slurm_time (r->start, &a) == 0 && slurm_time (r->end, &b) == 0
        && b >= a) {
        r->secs = (double) (b - a);
        return 0;
    }
    return die ("job %ld: no time (neither %s nor Slurm's start and end)",
                r->job, path);
}

static double now_s (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One step of a run; 0 going on, -1 failed (said why). */
static int step (const ns_calib_t *c, struct ns_calib_run *r,
                 const struct ns_calrun_opts *o, int *pair_busy)
{
    struct jobinfo ji;
    char label[300];
    switch (r->st) {
    case NS_CALIB_PLANNED:
        if (r->shape != NS_CALIB_BESIDE) {
            if ((r->job = submit (c, r, o, 0, NULL)) < 0)
                return -1;
            r->st = NS_CALIB_RUNNING;
        } else if (!*pair_busy) {
            /* Pairs one at a time: a co-tenant first, then the measured
             * job on its nodes once it runs. */
            if ((r->filler = submit (c, r, o, 1, NULL)) < 0)
                return -1;
            r->st = NS_CALIB_FILLER;
            *pair_busy = 1;
        }
        return 0;
    case NS_CALIB_FILLER:
        *pair_busy = 1;
        if (job_info (r->filler, &ji) != 0 || final_state (ji.state))
            return die ("co-tenant job %ld (%s) ended before the measured "
                        "job started (%s): see %s", r->filler,
                        ns_calib_run_label (c, r, label, sizeof (label)),
                        ji.state[0] ? ji.state : "gone", c->workdir);
        if (strcmp (ji.state, "RUNNING"))
            return 0;
        snprintf (r->nodes, sizeof (r->nodes), "%s", ji.nodes);
        if ((r->job = submit (c, r, o, 0, r->nodes)) < 0)
            return -1;
        r->st = NS_CALIB_RUNNING;
        return 0;
    case NS_CALIB_RUNNING:
        if (r->shape == NS_CALIB_BESIDE)
            *pair_busy = 1;
        /* (A job Slurm no longer shows - MinJobAge passed between two
         * polls - is judged by its time file, else by sacct.) */
        if (job_info (r->job, &ji) == 0) {
            if (!final_state (ji.state))
                return 0;
            if (strcmp (ji.state, "COMPLETED"))
                return die ("job %ld (%s) ended %s: see %s/%s-%ld.out",
                            r->job,
                            ns_calib_run_label (c, r, label, sizeof (label)),
                            ji.state, c->workdir, c->progs[r->p].name,
                            r->job);
            snprintf (r->start, sizeof (r->start), "%s", ji.start);
            snprintf (r->end, sizeof (r->end), "%s", ji.end);
        }
        if (r->shape == NS_CALIB_BESIDE) {
            /* The co-tenant must have run throughout. */
            if (job_info (r->filler, &ji) != 0
                || strcmp (ji.state, "RUNNING"))
                return die ("co-tenant job %ld (%s) ended (%s) before the "
                            "measured job %ld: see %s", r->filler,
                            ns_calib_run_label (c, r, label, sizeof (label)),
                            ji.state[0] ? ji.state : "gone", r->job,
                            c->workdir);
            cancel_one (r->filler);
        }
        if (read_seconds (c, r) < 0)
            return -1;
        r->st = NS_CALIB_DONE;
        if (r->shape == NS_CALIB_BESIDE)
            *pair_busy = 0;
        if (!o->quiet)
            fprintf (stderr, PROG ": job %ld (%s): %.2f s\n", r->job,
                     ns_calib_run_label (c, r, label, sizeof (label)),
                     r->secs);
        return 0;
    case NS_CALIB_DONE:
        return 0;
    }
    return 0;
}

/* The co-tenants cancelled: until Slurm has ended them (COMPLETING lasts
 * until their processes are gone), so that the command leaves no job of
 * its run behind.  At most a minute; then it says which one remains. */
static void wait_cotenants (const ns_calib_t *c)
{
    double t0 = now_s ();
    for (int i = 0; i < c->nruns; i++) {
        struct jobinfo ji;
        if (c->runs[i].filler <= 0)
            continue;
        while (job_info (c->runs[i].filler, &ji) == 0
               && !final_state (ji.state)) {
            if (now_s () - t0 > 60) {
                fprintf (stderr, PROG ": co-tenant job %ld still %s after "
                         "its scancel\n", c->runs[i].filler, ji.state);
                break;
            }
            usleep (200000);
        }
    }
}

int ns_calrun_execute (ns_calib_t *c, const struct ns_calrun_opts *o)
{
    struct sigaction sa;
    memset (&sa, 0, sizeof (sa));
    sa.sa_handler = on_signal;
    sigaction (SIGINT, &sa, NULL);
    sigaction (SIGTERM, &sa, NULL);
    sigaction (SIGHUP, &sa, NULL);
    double t0 = now_s (), last = -1e9;
    int lastdone = -1;
    if (!o->quiet)
        fprintf (stderr, PROG ": run %s: %d runs, job files in %s, waiting "
                 "at most %ld s\n", c->runid, c->nruns, c->workdir,
                 o->max_wait);
    for (;;) {
        int pair_busy = 0, done = 0, active = 0;
        for (int i = 0; i < c->nruns; i++)
            if (c->runs[i].shape == NS_CALIB_BESIDE
                && (c->runs[i].st == NS_CALIB_FILLER
                    || c->runs[i].st == NS_CALIB_RUNNING))
                pair_busy = 1;
        for (int i = 0; i < c->nruns; i++) {
            if (step (c, &c->runs[i], o, &pair_busy) < 0) {
                cancel_jobs (c);
                return -1;
            }
            done += c->runs[i].st == NS_CALIB_DONE;
            active += c->runs[i].st == NS_CALIB_FILLER
                      || c->runs[i].st == NS_CALIB_RUNNING;
        }
        double el = now_s () - t0;
        if (done == c->nruns)
            break;
        if (!o->quiet && (done != lastdone || el - last >= 60)) {
            fprintf (stderr, PROG ": %d of %d runs done, %d submitted, "
                     "%.0f s\n", done, c->nruns, active, el);
            lastdone = done;
            last = el;
        }
        if (interrupted) {
            cancel_jobs (c);
            return die ("interrupted (signal %d): the run's jobs are "
                        "cancelled", (int) interrupted);
        }
        if (el > o->max_wait) {
            cancel_jobs (c);
            return die ("%d of %d runs done after %.0f s (--max-wait %ld): "
                        "the others are cancelled", done, c->nruns, el,
                        o->max_wait);
        }
        sleep (1);
    }
    wait_cotenants (c);
    if (!o->quiet)
        fprintf (stderr, PROG ": all %d runs done in %.0f s\n", c->nruns,
                 now_s () - t0);
    return 0;
}

