/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeshare-calibrate - measure a site's programs with Slurm itself before
 * nodeshare is enabled: each program packed on whole nodes, striped alone
 * over half-used nodes, and striped beside chosen co-tenants, submitted as
 * ordinary sbatch jobs of explicit shapes (stock cons_tres places them as
 * asked); the ratios of their run times are written as the "programs"
 * section of nodeshare.json with their evidence under "learned".
 *
 * Timing: every job runs a wrapper that records the script's own start
 * and end (date +%s.%N) in WORKDIR/times/JOBID, so neither accounting nor
 * Slurm's one-second times are needed; a job whose file is missing falls
 * back to the StartTime/EndTime squeue reported while it was known. */
#define _GNU_SOURCE             /* strptime */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cmdline.h"
#include "learned.h"
#include "interf.h"
#include "nsconfig.h"
#include "progtab.h"

#define PROG "nodeshare-calibrate"
#define die(...) ns_cmd_die (PROG, __VA_ARGS__)

#define MAX_PROGS 64
#define MAX_REPEATS 100
#define NAME_MAX_LEN 127

static void usage (FILE *f)
{
    fprintf (f,
"Usage: nodeshare-calibrate [OPTIONS] --budget CORE_HOURS SCRIPT...\n"
"       nodeshare-calibrate [OPTIONS] --budget CORE_HOURS --list FILE\n"
"       nodeshare-calibrate [OPTIONS] --dry-run SCRIPT...\n"
"Measure programs with Slurm before nodeshare is enabled: each job script\n"
"is submitted with sbatch packed on whole nodes (-N NODES --exclusive\n"
"--ntasks-per-node=CORES), striped alone over twice as many nodes, half\n"
"used (-N 2*NODES --exclusive --ntasks-per-node=CORES/2), and, for each\n"
"--beside program Q, striped on the same nodes as a job of Q that runs\n"
"throughout.  Writes spread_speedup = packed time / striped time and\n"
"slowdown Q = time beside Q / striped time, means over the repeats, as\n"
"the \"programs\" section of nodeshare.json, with runs and standard\n"
"errors under \"learned\".  A SCRIPT's program is its file name up to the\n"
"first '.'; the script needs a \"#!\" line, like any sbatch script.\n"
"\n"
"  -b, --budget CORE_HOURS  refuse a plan that may cost more (each job\n"
"                           counted at its time limit)\n"
"  -n, --dry-run            print the plan and its cost, submit nothing\n"
"  -l, --list FILE          \"PROGRAM SCRIPT\" lines (# comments)\n"
"  -r, --repeats N          runs of each shape (default 3, 1..100)\n"
"  -t, --time MINUTES       time limit of every job (default 60)\n"
"  -N, --nodes N            nodes of a packed run (default 1)\n"
"  -c, --cores C            cores of one node (default: sinfo, all nodes\n"
"                           of the partition must agree; even)\n"
"  -p, --partition NAME     partition of the jobs (default Slurm's)\n"
"  -B, --beside Q           also measure every program beside Q (one of\n"
"                           the programs; repeatable; \"all\": every pair)\n"
"  -H, --have FILE          nodeshare.json or an earlier output: figures it\n"
"                           gives are not measured again\n"
"  -w, --workdir DIR        wrappers, job output and times (default\n"
"                           ./nodeshare-calibrate.RUN; on a file system\n"
"                           the nodes see)\n"
"      --max-wait SECONDS   give up (and cancel the jobs) after this long\n"
"                           (default: every job at its limit, one after\n"
"                           the other, plus an hour)\n"
"  -o, --output FILE        write the JSON there (default stdout)\n"
"  -q, --quiet              no progress on stderr\n"
"  -h, --help               this help\n"
"  -V, --version            print the version\n"
"\n"
"Jobs are named after their program and carry the comment\n"
"\"nodeshare-calibrate RUN PROGRAM SHAPE REPEAT\".  Exit status: 0 figures\n"
"written (or the plan printed), 1 a job failed or the wait ended,\n"
"2 bad usage or input.  See nodeshare-calibrate(1).\n");
}

enum shape { SH_PACKED, SH_STRIPED, SH_BESIDE };
static const char *shape_name[] = { "packed", "striped", "beside" };

enum rstate { R_PLANNED, R_FILLER, R_RUNNING, R_DONE };

struct prog {
    char name[NAME_MAX_LEN + 1];
    char script[PATH_MAX];
    char job[PATH_MAX];          /* WORKDIR/NAME.job: the script's copy */
    char wrap[PATH_MAX];         /* WORKDIR/NAME.sbatch: runs it once */
    char fill[PATH_MAX];         /* WORKDIR/NAME.filler: again and again */
};

struct run {
    int p;
    enum shape shape;
    int q;                       /* SH_BESIDE: the co-tenant */
    int rep;
    enum rstate st;
    long job;
    long filler;
    char nodes[256];             /* of the filler */
    double secs;
    char start[32], end[32];     /* squeue's, once the job ended */
};

struct opts {
    double budget;
    int have_budget;
    int dry_run;
    const char *list;
    int repeats;
    int minutes;
    int nodes;
    int cores;
    const char *partition;
    const char *beside[MAX_PROGS];
    int nbeside;
    const char *have;
    const char *workdir;
    long max_wait;
    const char *output;
    int quiet;
};

static struct prog progs[MAX_PROGS];
static int nprogs;
static struct run *runs;
static int nruns;
static char runid[32];
static char workdir[PATH_MAX];
static volatile sig_atomic_t interrupted;

static void on_signal (int sig)
{
    interrupted = sig;
}

/* ---- running commands ---- */

/* Runs argv; its stdout into out (cut at size), stderr passes through
 * unless quiet_err.  The exit status, or -1 (said why). */
static int run_cmd (char *const argv[], char *out, size_t size, int quiet_err)
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
        close (fd[0]);
        close (fd[1]);
        if (quiet_err) {
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

/* ---- input ---- */

static int valid_name (const char *s)
{
    size_t n = strlen (s);
    if (n == 0 || n > NAME_MAX_LEN)
        return 0;
    for (const char *c = s; *c; c++)
        if (*c <= ' ' || *c == '"' || *c == '\\' || *c == 0x7f)
            return 0;
    return 1;
}

static int find_prog (const char *name)
{
    for (int i = 0; i < nprogs; i++)
        if (!strcmp (progs[i].name, name))
            return i;
    return -1;
}

/* The script must be readable and start with "#!". */
static int add_prog (const char *name, const char *script, const char *where)
{
    if (nprogs == MAX_PROGS)
        return die ("%s: more than %d programs", where, MAX_PROGS);
    if (!valid_name (name))
        return die ("%s: program '%s': expected a name of 1..%d characters "
                    "without spaces or quotes", where, name, NAME_MAX_LEN);
    if (find_prog (name) >= 0)
        return die ("%s: program %s given twice", where, name);
    FILE *f = fopen (script, "r");
    if (!f)
        return die ("%s: cannot open: %s", script, strerror (errno));
    char first[3] = "";
    size_t k = fread (first, 1, 2, f);
    fclose (f);
    if (k != 2 || first[0] != '#' || first[1] != '!')
        return die ("%s:1: expected a first line \"#!INTERPRETER\" (sbatch "
                    "needs one)", script);
    struct prog *p = &progs[nprogs];
    snprintf (p->name, sizeof (p->name), "%s", name);
    if (!realpath (script, p->script))
        return die ("%s: %s", script, strerror (errno));
    nprogs++;
    return 0;
}

static int add_script (const char *script)
{
    const char *base = strrchr (script, '/');
    base = base ? base + 1 : script;
    char name[NAME_MAX_LEN + 1];
    snprintf (name, sizeof (name), "%.*s", (int) strcspn (base, "."), base);
    return add_prog (name, script, script);
}

static int read_list (const char *path)
{
    FILE *f = fopen (path, "r");
    if (!f)
        return die ("%s: cannot open: %s", path, strerror (errno));
    char line[4096];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets (line, sizeof (line), f)) {
        lineno++;
        char where[PATH_MAX + 32];
        snprintf (where, sizeof (where), "%s:%d", path, lineno);
        char *hash = strchr (line, '#');
        if (hash)
            *hash = '\0';
        char *save, *name = strtok_r (line, " \t\r\n", &save);
        if (!name)
            continue;
        char *script = strtok_r (NULL, " \t\r\n", &save);
        char *extra = script ? strtok_r (NULL, " \t\r\n", &save) : NULL;
        if (!script || extra)
            rc = die ("%s: expected \"PROGRAM SCRIPT\", got %s",
                      where, script ? "more fields" : "one field");
        else
            rc = add_prog (name, script, where);
    }
    fclose (f);
    if (rc == 0 && nprogs == 0)
        rc = die ("%s: no \"PROGRAM SCRIPT\" line", path);
    return rc;
}

/* Cores of every node of the partition, from sinfo. */
static int sinfo_cores (const struct opts *o)
{
    char out[4096];
    char *argv[] = { "sinfo", "-h", "-o", "%c", NULL, NULL, NULL };
    if (o->partition) {
        argv[4] = "-p";
        argv[5] = (char *) o->partition;
    }
    if (run_cmd (argv, out, sizeof (out), 0) != 0)
        return die ("sinfo failed: give --cores");
    int cores = 0;
    char *save, *tok;
    for (tok = strtok_r (out, " \n", &save); tok;
         tok = strtok_r (NULL, " \n", &save)) {
        int c = atoi (tok);
        if (c <= 0)
            continue;
        if (cores && c != cores)
            return die ("the nodes%s%s have %d and %d cores: give --cores "
                        "(and --partition)", o->partition ? " of " : "",
                        o->partition ? o->partition : "", cores, c);
        cores = c;
    }
    if (!cores)
        return die ("sinfo shows no nodes%s%s: give --cores",
                    o->partition ? " in " : "",
                    o->partition ? o->partition : "");
    return cores;
}

/* ---- the plan ---- */

static int plan_add (int p, enum shape s, int q, int rep)
{
    struct run *r = realloc (runs, (size_t) (nruns + 1) * sizeof (*runs));
    if (!r)
        return die ("out of memory");
    runs = r;
    memset (&runs[nruns], 0, sizeof (*runs));
    runs[nruns].p = p;
    runs[nruns].shape = s;
    runs[nruns].q = q;
    runs[nruns].rep = rep;
    nruns++;
    return 0;
}

/* What --have FILE gives: is the figure there (the program known to it
 * and the figure stated)? */
struct have {
    ns_config_t *cfg;
};

static int have_speedup (const struct have *h, int p)
{
    if (!h->cfg)
        return 0;
    int id = ns_progtab_lookup (ns_config_progtab (h->cfg), progs[p].name);
    return id >= 0 && ns_interf_given_speedup (ns_config_interf (h->cfg), id);
}

static int have_slowdown (const struct have *h, int p, int q)
{
    if (!h->cfg)
        return 0;
    const ns_progtab_t *t = ns_config_progtab (h->cfg);
    int a = ns_progtab_lookup (t, progs[p].name);
    int b = ns_progtab_lookup (t, progs[q].name);
    return a >= 0 && b >= 0
           && ns_interf_given_slowdown (ns_config_interf (h->cfg), a, b);
}

/* The runs needed, repeat after repeat (the first repeat of everything
 * comes first, so a plan cut short still has every figure once). */
static int make_plan (const struct opts *o, const int *beside,
                      const struct have *h)
{
    for (int rep = 1; rep <= o->repeats; rep++)
        for (int p = 0; p < nprogs; p++) {
            int speed = !have_speedup (h, p), slow = 0;
            for (int q = 0; q < nprogs; q++)
                slow |= beside[q] && !have_slowdown (h, p, q);
            if (speed && plan_add (p, SH_PACKED, -1, rep) < 0)
                return -1;
            if ((speed || slow) && plan_add (p, SH_STRIPED, -1, rep) < 0)
                return -1;
            for (int q = 0; q < nprogs; q++)
                if (beside[q] && !have_slowdown (h, p, q)
                    && plan_add (p, SH_BESIDE, q, rep) < 0)
                    return -1;
        }
    return 0;
}

/* Core-hours of a run at its time limit: packed N x C; striped 2N x C
 * (whole nodes, --exclusive); beside: 2N nodes, half of each for the
 * program and half for its co-tenant. */
static double run_cost (const struct run *r, const struct opts *o)
{
    double nodes = r->shape == SH_PACKED ? o->nodes : 2.0 * o->nodes;
    return nodes * o->cores * o->minutes / 60.0;
}

static int run_jobs (const struct run *r)
{
    return r->shape == SH_BESIDE ? 2 : 1;
}

static void shape_args (const struct run *r, const struct opts *o,
                        char *nodes, size_t nsz, char *tpn, size_t tsz)
{
    if (r->shape == SH_PACKED) {
        snprintf (nodes, nsz, "%d", o->nodes);
        snprintf (tpn, tsz, "%d", o->cores);
    } else {
        snprintf (nodes, nsz, "%d", 2 * o->nodes);
        snprintf (tpn, tsz, "%d", o->cores / 2);
    }
}

static double print_plan (FILE *f, const struct opts *o)
{
    double total = 0;
    int jobs = 0;
    fprintf (f, "%-4s %-16s %-8s %-16s %6s %7s %4s %10s\n", "run", "program",
             "shape", "beside", "repeat", "nodes", "tpn", "core-hours");
    for (int i = 0; i < nruns; i++) {
        const struct run *r = &runs[i];
        char nodes[16], tpn[16];
        shape_args (r, o, nodes, sizeof (nodes), tpn, sizeof (tpn));
        double c = run_cost (r, o);
        total += c;
        jobs += run_jobs (r);
        fprintf (f, "%-4d %-16s %-8s %-16s %6d %7s %4s %10.2f\n", i + 1,
                 progs[r->p].name, shape_name[r->shape],
                 r->shape == SH_BESIDE ? progs[r->q].name : "-", r->rep,
                 nodes, tpn, c);
    }
    fprintf (f, "total: %d runs, %d jobs of at most %d min on nodes of %d "
             "cores, at most %.2f core-hours\n", nruns, jobs, o->minutes,
             o->cores, total);
    return total;
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

/* Is this #SBATCH option one the shapes set? (The script's other
 * directives - account, memory, modules - are kept.) */
static int shape_option (const char *opt)
{
    static const char *const set[] = {
        "-N", "--nodes", "-n", "--ntasks", "--ntasks-per-node",
        "--ntasks-per-socket", "--ntasks-per-core", "--exclusive", "-w",
        "--nodelist", "-s", "--oversubscribe", "-J", "--job-name",
        "--comment", "-o", "--output", "-e", "--error", "-t", "--time",
        "-p", "--partition", NULL
    };
    size_t n = strcspn (opt, "= \t");
    for (int i = 0; set[i]; i++) {
        size_t m = strlen (set[i]);
        if (set[i][1] != '-' ? !strncmp (opt, set[i], 2)
                             : n == m && !strncmp (opt, set[i], m))
            return 1;
    }
    return 0;
}

/* The #SBATCH lines of the script's header, without the shape options. */
static int sbatch_header (const char *script, char *out, size_t size)
{
    FILE *f = fopen (script, "r");
    if (!f)
        return die ("%s: cannot open: %s", script, strerror (errno));
    char line[4096];
    size_t n = 0;
    out[0] = '\0';
    int first = 1;
    while (fgets (line, sizeof (line), f)) {
        if (first) {
            first = 0;
            continue;                   /* #! */
        }
        const char *s = line + strspn (line, " \t");
        if (*s == '\n' || *s == '\0')
            continue;
        if (*s != '#')
            break;                      /* sbatch stops here too */
        if (strncmp (s, "#SBATCH", 7))
            continue;
        const char *opt = s + 7 + strspn (s + 7, " \t");
        if (shape_option (opt))
            continue;
        int k = snprintf (out + n, size - n, "%s", s);
        if (k < 0 || (size_t) k >= size - n) {
            fclose (f);
            return die ("%s: #SBATCH header longer than %zu bytes", script,
                        size);
        }
        n += (size_t) k;
    }
    fclose (f);
    return 0;
}

static int prepare_workdir (const struct opts *o)
{
    if (o->workdir)
        snprintf (workdir, sizeof (workdir), "%s", o->workdir);
    else
        snprintf (workdir, sizeof (workdir), "nodeshare-calibrate.%s", runid);
    if (mkdir (workdir, 0755) < 0 && errno != EEXIST)
        return die ("%s: cannot create: %s", workdir, strerror (errno));
    char abs[PATH_MAX];
    if (!realpath (workdir, abs))
        return die ("%s: %s", workdir, strerror (errno));
    snprintf (workdir, sizeof (workdir), "%s", abs);
    /* The wrappers quote paths with '...'. */
    if (strchr (workdir, '\''))
        return die ("%s: expected a work directory without a ' in its path "
                    "(give --workdir)", workdir);
    char times[PATH_MAX + 8];
    snprintf (times, sizeof (times), "%s/times", workdir);
    if (mkdir (times, 0755) < 0 && errno != EEXIST)
        return die ("%s: cannot create: %s", times, strerror (errno));
    for (int i = 0; i < nprogs; i++) {
        struct prog *p = &progs[i];
        char header[16384], text[32768];
        /* Precisions bound every part (the name is at most NAME_MAX_LEN):
         * the compiler sees that nothing is cut. */
        snprintf (p->job, sizeof (p->job), "%.*s/%.*s.job", PATH_MAX - 200,
                  workdir, NAME_MAX_LEN, p->name);
        snprintf (p->wrap, sizeof (p->wrap), "%.*s/%.*s.sbatch",
                  PATH_MAX - 200, workdir, NAME_MAX_LEN, p->name);
        snprintf (p->fill, sizeof (p->fill), "%.*s/%.*s.filler",
                  PATH_MAX - 200, workdir, NAME_MAX_LEN, p->name);
        if (copy_file (p->script, p->job, 0755) < 0
            || sbatch_header (p->script, header, sizeof (header)) < 0)
            return -1;
        /* The time is written to a temporary name and renamed: a reader
         * never sees half a line. */
        snprintf (text, sizeof (text),
"#!/bin/sh\n"
"# written by nodeshare-calibrate: runs %s once and records its time\n"
"%s"
"t0=$(date +%%s.%%N)\n"
"'%s'\n"
"rc=$?\n"
"t1=$(date +%%s.%%N)\n"
"echo \"$t0 $t1 $rc\" >'%s/times/'$SLURM_JOB_ID.tmp &&\n"
"    mv '%s/times/'$SLURM_JOB_ID.tmp '%s/times/'$SLURM_JOB_ID\n"
"exit $rc\n", p->script, header, p->job, workdir, workdir, workdir);
        if (write_file (p->wrap, text, 0755) < 0)
            return -1;
        snprintf (text, sizeof (text),
"#!/bin/sh\n"
"# written by nodeshare-calibrate: runs %s again and again as the\n"
"# co-tenant of a measured job; nodeshare-calibrate cancels it when the\n"
"# measured job ends\n"
"%s"
"while '%s'; do :; done\n"
"exit 1\n", p->script, header, p->job);
        if (write_file (p->fill, text, 0755) < 0)
            return -1;
    }
    return 0;
}

/* ---- submitting and watching ---- */

static long submit (const struct run *r, const struct opts *o, int filler,
                    const char *nodelist)
{
    const struct prog *p = &progs[filler ? r->q : r->p];
    char nodes[16], tpn[16], t[16], comment[512], out[PATH_MAX + 16];
    shape_args (r, o, nodes, sizeof (nodes), tpn, sizeof (tpn));
    snprintf (t, sizeof (t), "%d", o->minutes);
    if (r->shape == SH_BESIDE)
        snprintf (comment, sizeof (comment), "nodeshare-calibrate %s %s "
                  "%s:%s %d%s", runid, progs[r->p].name, shape_name[r->shape],
                  progs[r->q].name, r->rep, filler ? " co-tenant" : "");
    else
        snprintf (comment, sizeof (comment), "nodeshare-calibrate %s %s %s %d",
                  runid, p->name, shape_name[r->shape], r->rep);
    snprintf (out, sizeof (out), "%.*s/%%x-%%j.out", PATH_MAX - 16, workdir);
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
    argv[n++] = r->shape == SH_BESIDE ? "--exclusive=user" : "--exclusive";
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
    if (run_cmd (argv, res, sizeof (res), 0) != 0)
        return die ("sbatch failed for %s (%s)", p->name, comment);
    char *end;
    long id = strtol (res, &end, 10);
    if (id <= 0 || (*end != '\n' && *end != ';' && *end != '\0'))
        return die ("sbatch printed '%s', expected a job id", res);
    return id;
}

static void cancel_jobs (void)
{
    char *argv[4 + 2 * 1024];
    char ids[1024][24];
    int n = 0, k = 0;
    argv[n++] = "scancel";
    for (int i = 0; i < nruns && k < 1022; i++) {
        const struct run *r = &runs[i];
        if (r->st == R_DONE || r->st == R_PLANNED)
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
        run_cmd (argv, out, sizeof (out), 1);
}

static void cancel_one (long id)
{
    char s[24], out[64];
    snprintf (s, sizeof (s), "%ld", id);
    char *argv[] = { "scancel", s, NULL };
    run_cmd (argv, out, sizeof (out), 1);
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
    if (run_cmd (argv, out, sizeof (out), 1) != 0 || !out[0])
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
static int sacct_times (struct run *r)
{
    char s[24], out[1024], state[32] = "";
    snprintf (s, sizeof (s), "%ld", r->job);
    char *argv[] = { "sacct", "-n", "-X", "-P", "-j", s, "-o",
                     "State,Start,End", NULL };
    if (run_cmd (argv, out, sizeof (out), 1) != 0
        || sscanf (out, "%31[^|]|%31[^|]|%31[^|\n]", state, r->start,
                   r->end) != 3)
        return die ("job %ld: Slurm no longer shows it, and sacct does not "
                    "know it (no accounting?)", r->job);
    if (strncmp (state, "COMPLETED", 9))
        return die ("job %ld ended %s: see %s/%s-%ld.out", r->job, state,
                    workdir, progs[r->p].name, r->job);
    return 0;
}

/* The run's seconds: the wrapper's record, else squeue's times (to the
 * second).  -1 (said why) when neither, or the script failed. */
static int read_seconds (struct run *r)
{
    char path[PATH_MAX + 40];
    snprintf (path, sizeof (path), "%.*s/times/%ld", PATH_MAX - 40, workdir,
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
                        progs[r->p].name, shape_name[r->shape], rc);
        r->secs = t1 - t0;
        return 0;
    }
    /* No time file (a work directory the node could not write): squeue's
     * times of the ended job, else accounting's. */
    if (!r->start[0] && sacct_times (r) < 0)
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

static const char *run_label (const struct run *r, char *buf, size_t n)
{
    if (r->shape == SH_BESIDE)
        snprintf (buf, n, "%s beside %s, repeat %d", progs[r->p].name,
                  progs[r->q].name, r->rep);
    else
        snprintf (buf, n, "%s %s, repeat %d", progs[r->p].name,
                  shape_name[r->shape], r->rep);
    return buf;
}

/* One step of a run; 0 going on, -1 failed (said why). */
static int step (struct run *r, const struct opts *o, int *pair_busy)
{
    struct jobinfo ji;
    char label[300];
    switch (r->st) {
    case R_PLANNED:
        if (r->shape != SH_BESIDE) {
            if ((r->job = submit (r, o, 0, NULL)) < 0)
                return -1;
            r->st = R_RUNNING;
        } else if (!*pair_busy) {
            /* Pairs one at a time: a co-tenant first, then the measured
             * job on its nodes once it runs. */
            if ((r->filler = submit (r, o, 1, NULL)) < 0)
                return -1;
            r->st = R_FILLER;
            *pair_busy = 1;
        }
        return 0;
    case R_FILLER:
        *pair_busy = 1;
        if (job_info (r->filler, &ji) != 0 || final_state (ji.state))
            return die ("co-tenant job %ld (%s) ended before the measured "
                        "job started (%s): see %s", r->filler,
                        run_label (r, label, sizeof (label)),
                        ji.state[0] ? ji.state : "gone", workdir);
        if (strcmp (ji.state, "RUNNING"))
            return 0;
        snprintf (r->nodes, sizeof (r->nodes), "%s", ji.nodes);
        if ((r->job = submit (r, o, 0, r->nodes)) < 0)
            return -1;
        r->st = R_RUNNING;
        return 0;
    case R_RUNNING:
        if (r->shape == SH_BESIDE)
            *pair_busy = 1;
        /* (A job Slurm no longer shows - MinJobAge passed between two
         * polls - is judged by its time file, else by sacct.) */
        if (job_info (r->job, &ji) == 0) {
            if (!final_state (ji.state))
                return 0;
            if (strcmp (ji.state, "COMPLETED"))
                return die ("job %ld (%s) ended %s: see %s/%s-%ld.out",
                            r->job, run_label (r, label, sizeof (label)),
                            ji.state, workdir, progs[r->p].name, r->job);
            snprintf (r->start, sizeof (r->start), "%s", ji.start);
            snprintf (r->end, sizeof (r->end), "%s", ji.end);
        }
        if (r->shape == SH_BESIDE) {
            /* The co-tenant must have run throughout. */
            if (job_info (r->filler, &ji) != 0
                || strcmp (ji.state, "RUNNING"))
                return die ("co-tenant job %ld (%s) ended (%s) before the "
                            "measured job %ld: see %s", r->filler,
                            run_label (r, label, sizeof (label)),
                            ji.state[0] ? ji.state : "gone", r->job,
                            workdir);
            cancel_one (r->filler);
        }
        if (read_seconds (r) < 0)
            return -1;
        r->st = R_DONE;
        if (r->shape == SH_BESIDE)
            *pair_busy = 0;
        if (!o->quiet)
            fprintf (stderr, PROG ": job %ld (%s): %.2f s\n", r->job,
                     run_label (r, label, sizeof (label)), r->secs);
        return 0;
    case R_DONE:
        return 0;
    }
    return 0;
}

/* The co-tenants cancelled: until Slurm has ended them (COMPLETING lasts
 * until their processes are gone), so that the command leaves no job of
 * its run behind.  At most a minute; then it says which one remains. */
static void wait_cotenants (const struct opts *o)
{
    double t0 = now_s ();
    for (int i = 0; i < nruns; i++) {
        struct jobinfo ji;
        if (runs[i].filler <= 0)
            continue;
        while (job_info (runs[i].filler, &ji) == 0 && !final_state (ji.state)) {
            if (now_s () - t0 > 60) {
                fprintf (stderr, PROG ": co-tenant job %ld still %s after "
                         "its scancel\n", runs[i].filler, ji.state);
                break;
            }
            usleep (200000);
        }
    }
}

static int execute (const struct opts *o)
{
    double t0 = now_s (), last = -1e9;
    int lastdone = -1;
    if (!o->quiet)
        fprintf (stderr, PROG ": run %s: %d runs, job files in %s, waiting "
                 "at most %ld s\n", runid, nruns, workdir, o->max_wait);
    for (;;) {
        int pair_busy = 0, done = 0, active = 0;
        for (int i = 0; i < nruns; i++)
            if (runs[i].shape == SH_BESIDE
                && (runs[i].st == R_FILLER || runs[i].st == R_RUNNING))
                pair_busy = 1;
        for (int i = 0; i < nruns; i++) {
            if (step (&runs[i], o, &pair_busy) < 0) {
                cancel_jobs ();
                return -1;
            }
            done += runs[i].st == R_DONE;
            active += runs[i].st == R_FILLER || runs[i].st == R_RUNNING;
        }
        double el = now_s () - t0;
        if (done == nruns)
            break;
        if (!o->quiet && (done != lastdone || el - last >= 60)) {
            fprintf (stderr, PROG ": %d of %d runs done, %d submitted, "
                     "%.0f s\n", done, nruns, active, el);
            lastdone = done;
            last = el;
        }
        if (interrupted) {
            cancel_jobs ();
            return die ("interrupted (signal %d): the run's jobs are "
                        "cancelled", (int) interrupted);
        }
        if (el > o->max_wait) {
            cancel_jobs ();
            return die ("%d of %d runs done after %.0f s (--max-wait %ld): "
                        "the others are cancelled", done, nruns, el,
                        o->max_wait);
        }
        sleep (1);
    }
    wait_cotenants (o);
    if (!o->quiet)
        fprintf (stderr, PROG ": all %d runs done in %.0f s\n", nruns,
                 now_s () - t0);
    return 0;
}

/* ---- the figures ---- */

static const struct run *find_run (int p, enum shape s, int q, int rep)
{
    for (int i = 0; i < nruns; i++)
        if (runs[i].p == p && runs[i].shape == s && runs[i].rep == rep
            && (s != SH_BESIDE || runs[i].q == q))
            return &runs[i];
    return NULL;
}

/* The mean over the repeats of num/den (each repeat's pair of runs), its
 * standard error (NaN for one repeat) and the mean seconds of num. */
struct fig {
    int n;
    double mean, se, secs;
};

static struct fig ratio (int p, enum shape num, int q, const struct opts *o)
{
    struct fig f = { 0, 0, NAN, 0 };
    double x[MAX_REPEATS], sum = 0;
    for (int rep = 1; rep <= o->repeats; rep++) {
        const struct run *a = find_run (p, num, q, rep);
        const struct run *b = find_run (p, SH_STRIPED, -1, rep);
        if (!a || !b || b->secs <= 0)
            continue;
        double r = a->secs / b->secs;
        x[f.n++] = r;
        sum += r;
        f.secs += a->secs;
    }
    if (!f.n)
        return f;
    f.mean = sum / f.n;
    f.secs /= f.n;
    if (f.n > 1) {
        double ss = 0;
        for (int i = 0; i < f.n; i++)
            ss += (x[i] - f.mean) * (x[i] - f.mean);
        f.se = sqrt (ss / (f.n - 1)) / sqrt (f.n);
    }
    return f;
}

static json_object *evidence (struct fig f)
{
    return ns_learned_evidence (f.n, f.se);
}

/* o[key] = v with 3 decimals, as nodeshare-learn writes figures. */
static void put3 (json_object *o, const char *key, double v)
{
    json_object_object_add (o, key, ns_learned_num3 (v));
}

static json_object *figures (const struct opts *o, const int *beside)
{
    json_object *root = json_object_new_object ();
    json_object *pj = json_object_new_object ();
    json_object *learned = json_object_new_object ();
    json_object *lp = json_object_new_object ();
    for (int p = 0; p < nprogs; p++) {
        json_object *pr = json_object_new_object ();
        json_object *ev = json_object_new_object ();
        json_object *secs = json_object_new_object ();
        int jobs = 0;
        for (int i = 0; i < nruns; i++)
            jobs += runs[i].p == p;
        struct fig st = ratio (p, SH_STRIPED, -1, o);
        if (st.n)
            put3 (secs, "striped", st.secs);
        struct fig u = ratio (p, SH_PACKED, -1, o);
        if (u.n) {
            put3 (pr, "spread_speedup", u.mean);
            json_object_object_add (ev, "spread_speedup", evidence (u));
            put3 (secs, "packed", u.secs);
        }
        json_object *sl = json_object_new_object ();
        json_object *sev = json_object_new_object ();
        for (int q = 0; q < nprogs; q++) {
            if (!beside[q])
                continue;
            struct fig s = ratio (p, SH_BESIDE, q, o);
            if (!s.n)
                continue;
            put3 (sl, progs[q].name, s.mean);
            json_object_object_add (sev, progs[q].name, evidence (s));
            char key[NAME_MAX_LEN + 16];
            snprintf (key, sizeof (key), "beside %s", progs[q].name);
            put3 (secs, key, s.secs);
        }
        if (json_object_object_length (sl)) {
            json_object_object_add (pr, "slowdown", sl);
            json_object_object_add (ev, "slowdown", sev);
        } else {
            json_object_put (sl);
            json_object_put (sev);
        }
        if (!jobs) {
            json_object_put (pr);
            json_object_put (ev);
            json_object_put (secs);
            continue;
        }
        json_object_object_add (ev, "jobs", json_object_new_int (jobs));
        json_object_object_add (ev, "seconds", secs);
        json_object_object_add (pj, progs[p].name, pr);
        json_object_object_add (lp, progs[p].name, ev);
    }
    json_object_object_add (root, "programs", pj);
    char by[128];
    snprintf (by, sizeof (by), PROG " %s", PACKAGE_VERSION);
    json_object_object_add (learned, "by", json_object_new_string (by));
    json_object_object_add (learned, "run", json_object_new_string (runid));
    json_object_object_add (learned, "node_cores",
                            json_object_new_int (o->cores));
    json_object_object_add (learned, "packed_nodes",
                            json_object_new_int (o->nodes));
    json_object_object_add (learned, "repeats",
                            json_object_new_int (o->repeats));
    json_object_object_add (learned, "programs", lp);
    json_object_object_add (root, "learned", learned);
    return root;
}

static int write_output (json_object *root, const char *path)
{
    const char *text = json_object_to_json_string_ext (
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
                  | JSON_C_TO_STRING_NOSLASHESCAPE);
    FILE *f = path ? fopen (path, "w") : stdout;
    if (!f)
        return die ("%s: cannot create: %s", path, strerror (errno));
    fprintf (f, "%s\n", text);
    if (fflush (f) != 0 || ferror (f)) {
        if (path)
            fclose (f);
        return die ("%s: cannot write: %s", path ? path : "stdout",
                    strerror (errno));
    }
    if (path && fclose (f) != 0)
        return die ("%s: cannot write: %s", path, strerror (errno));
    return 0;
}

/* ---- main ---- */

static int parse_int (const char *opt, const char *s, int lo, int hi,
                      int *out)
{
    char *end;
    errno = 0;
    long v = strtol (s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return die ("%s '%s': expected an integer %d..%d", opt, s, lo, hi);
    *out = (int) v;
    return 0;
}

static int parse_opts (int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        { "budget", required_argument, NULL, 'b' },
        { "dry-run", no_argument, NULL, 'n' },
        { "list", required_argument, NULL, 'l' },
        { "repeats", required_argument, NULL, 'r' },
        { "time", required_argument, NULL, 't' },
        { "nodes", required_argument, NULL, 'N' },
        { "cores", required_argument, NULL, 'c' },
        { "partition", required_argument, NULL, 'p' },
        { "beside", required_argument, NULL, 'B' },
        { "have", required_argument, NULL, 'H' },
        { "workdir", required_argument, NULL, 'w' },
        { "max-wait", required_argument, NULL, 'W' },
        { "output", required_argument, NULL, 'o' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    int c, mw = -1;
    char *end;
    opterr = 0;
    while ((c = getopt_long (argc, argv, ":b:nl:r:t:N:c:p:B:H:w:o:qhV", lo,
                             NULL)) != -1) {
        switch (c) {
        case 'b':
            errno = 0;
            o->budget = strtod (optarg, &end);
            if (errno || end == optarg || *end || !(o->budget > 0)
                || !isfinite (o->budget))
                return die ("--budget '%s': expected core-hours, a number "
                            "above 0", optarg);
            o->have_budget = 1;
            break;
        case 'n': o->dry_run = 1; break;
        case 'l': o->list = optarg; break;
        case 'r':
            if (parse_int ("--repeats", optarg, 1, MAX_REPEATS, &o->repeats))
                return -1;
            break;
        case 't':
            if (parse_int ("--time", optarg, 1, 525600, &o->minutes))
                return -1;
            break;
        case 'N':
            if (parse_int ("--nodes", optarg, 1, 100000, &o->nodes))
                return -1;
            break;
        case 'c':
            if (parse_int ("--cores", optarg, 2, 100000, &o->cores))
                return -1;
            if (o->cores % 2)
                return die ("--cores '%s': expected an even number (a "
                            "striped run uses half of each node)", optarg);
            break;
        case 'p': o->partition = optarg; break;
        case 'B':
            if (o->nbeside == MAX_PROGS)
                return die ("--beside: more than %d", MAX_PROGS);
            o->beside[o->nbeside++] = optarg;
            break;
        case 'H': o->have = optarg; break;
        case 'w': o->workdir = optarg; break;
        case 'W':
            if (parse_int ("--max-wait", optarg, 1, INT_MAX, &mw))
                return -1;
            o->max_wait = mw;
            break;
        case 'o': o->output = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'h': usage (stdout); exit (NS_EXIT_OK);
        case 'V': printf (PROG " %s\n", PACKAGE_VERSION); exit (NS_EXIT_OK);
        default:
            ns_cmd_bad_option (PROG, c, argv);
            return -1;
        }
    }
    return 0;
}

/* The programs: SCRIPT arguments or --list.  0, or -1 (said why). */
static int read_programs (const struct opts *o, int argc, char **argv)
{
    if (o->list && optind < argc)
        return die ("give SCRIPT arguments or --list FILE, not both");
    if (!o->list && optind == argc)
        return die ("no job script (give SCRIPT... or --list FILE; see "
                    "--help)");
    if (o->list)
        return read_list (o->list);
    for (int i = optind; i < argc; i++)
        if (add_script (argv[i]) < 0)
            return -1;
    return 0;
}

/* beside[q] = 1 for each --beside program.  0, or -1 (said why). */
static int resolve_beside (const struct opts *o, int *beside)
{
    for (int i = 0; i < o->nbeside; i++) {
        if (!strcmp (o->beside[i], "all")) {
            for (int q = 0; q < nprogs; q++)
                beside[q] = 1;
            continue;
        }
        int q = find_prog (o->beside[i]);
        if (q < 0)
            return die ("--beside %s: not one of the programs measured "
                        "(its job script is needed)", o->beside[i]);
        beside[q] = 1;
    }
    return 0;
}

/* The plan and its cost printed (unless quiet), checked against the
 * budget.  0, or -1 (said why). */
static int check_plan (const struct opts *o)
{
    double cost = 0;
    if (o->dry_run || !o->quiet)
        cost = print_plan (o->dry_run ? stdout : stderr, o);
    else
        for (int i = 0; i < nruns; i++)
            cost += run_cost (&runs[i], o);
    if (o->have_budget && cost > o->budget + 1e-9)
        return die ("the plan may cost %.2f core-hours, over the budget of "
                    "%g (--budget): fewer --repeats, a shorter --time, fewer "
                    "programs or --beside, or --have with the figures known",
                    cost, o->budget);
    return 0;
}

int main (int argc, char **argv)
{
    struct opts o = { .repeats = 3, .minutes = 60, .nodes = 1 };
    struct have h = { NULL };
    int beside[MAX_PROGS] = { 0 };
    if (parse_opts (argc, argv, &o) < 0 || read_programs (&o, argc, argv) < 0
        || resolve_beside (&o, beside) < 0)
        return NS_EXIT_USAGE;
    if (!o.dry_run && !o.have_budget)
        return die ("no --budget: give the core-hours the runs may take, or "
                    "--dry-run to see the plan"), NS_EXIT_USAGE;
    if (o.have) {
        ns_error_t err;
        if (!(h.cfg = ns_config_load_file (o.have, &err)))
            return die ("--have %s", err.text), NS_EXIT_USAGE;
    }
    if (!o.cores && (o.cores = sinfo_cores (&o)) < 0)
        return NS_EXIT_USAGE;
    if (o.cores % 2)
        return die ("nodes of %d cores: a striped run needs an even number "
                    "(give --cores)", o.cores), NS_EXIT_USAGE;
    snprintf (runid, sizeof (runid), "%lx%04x", (unsigned long) time (NULL),
              (unsigned) getpid () & 0xffff);
    int planned = make_plan (&o, beside, &h);
    ns_config_destroy (h.cfg);
    if (planned < 0)
        return NS_EXIT_FAIL;
    if (nruns == 0) {
        fprintf (stderr, PROG ": nothing to measure: %s gives every figure "
                 "asked for\n", o.have ? o.have : "--have");
        return NS_EXIT_OK;
    }
    if (check_plan (&o) < 0)
        return NS_EXIT_USAGE;
    if (o.dry_run)
        return NS_EXIT_OK;
    if (!o.max_wait) {
        int jobs = 0;
        for (int i = 0; i < nruns; i++)
            jobs += run_jobs (&runs[i]);
        o.max_wait = (long) jobs * o.minutes * 60 + 3600;
    }
    if (prepare_workdir (&o) < 0)
        return NS_EXIT_FAIL;
    struct sigaction sa;
    memset (&sa, 0, sizeof (sa));
    sa.sa_handler = on_signal;
    sigaction (SIGINT, &sa, NULL);
    sigaction (SIGTERM, &sa, NULL);
    sigaction (SIGHUP, &sa, NULL);
    if (execute (&o) < 0)
        return NS_EXIT_FAIL;
    json_object *root = figures (&o, beside);
    int rc = write_output (root, o.output);
    json_object_put (root);
    free (runs);
    return rc < 0 ? NS_EXIT_FAIL : NS_EXIT_OK;
}
