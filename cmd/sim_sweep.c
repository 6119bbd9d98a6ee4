/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim_sweep.c - nodeshare-sim --sweep: the cells of a sweep file run here
 * (--jobs at once), as a Slurm job array (--slurm), one at a time (--cell
 * I, what an array task runs) and merged into one table, JSON and SVG
 * (--collect, and after a local run).
 *
 * A cell is one nodeshare-sim run: this program is executed again
 * (/proc/self/exe) with the cell's options, its output in the cell's log,
 * its JSON in a part file.  Its result becomes OUTPUT/CELL/result.json
 * only by a rename, with the cell's identity added, so a result that
 * exists is complete; a cell that fails leaves OUTPUT/CELL/error.txt
 * instead.  Cells whose result exists (for the same definition) are not
 * run again.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
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
#include "fileio.h"
#include "metricsdoc.h"
#include "nsconfig.h"
#include "nsutil.h"
#include "sim_sweep.h"
#include "sweep.h"
#include "sweepmerge.h"
#include "sweepslurm.h"
#include "nsranges.h"

#define die(...) ns_cmd_die ("nodeshare-sim", __VA_ARGS__)


struct sweep {
    const struct ns_sweep_args *a;
    ns_sweep_t *sw;
    char *file;             /* the sweep file, absolute */
    char *base;             /* the base nodeshare.json text */
    const char *base_src;   /* its name in messages */
    uint64_t base_hash;     /* part of every cell key */
    char exe[PATH_MAX];     /* this program */
};

/* ---- files ---- */

/* path gets data in one step (sim/fileio.h); a failure is said here. */
static int write_atomic (const char *path, const char *data, size_t len)
{
    ns_error_t err;
    if (ns_write_atomic (path, data, len, &err) < 0)
        return die ("%s", err.text);
    return 0;
}

static int write_json_atomic (const char *path, json_object *o)
{
    const char *s = json_object_to_json_string_ext (
        o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
              | JSON_C_TO_STRING_NOSLASHESCAPE);
    char *text;
    if (asprintf (&text, "%s\n", s) < 0)
        return die ("out of memory");
    int rc = write_atomic (path, text, strlen (text));
    free (text);
    return rc;
}

static int mkdir_p (const char *path)
{
    ns_error_t err;
    return ns_mkdir_p (path, &err) < 0 ? die ("%s", err.text) : 0;
}

/* OUTPUT/CELL/NAME */
static void cell_path (const struct sweep *s, const ns_sweep_cell_t *c,
                       const char *name, char *buf, size_t len)
{
    snprintf (buf, len, "%s/%s%s%s", s->sw->output, c->name,
              name ? "/" : "", name ? name : "");
}

/* ---- the sweep file and what it refers to ---- */

static char *cell_key (const struct sweep *s, const ns_sweep_cell_t *c)
{
    char *k = ns_sweep_cell_key (s->sw, c), *out = NULL;
    if (k && asprintf (&out, "%s config-fnv=%016llx", k,
                       (unsigned long long)s->base_hash) < 0)
        out = NULL;
    free (k);
    return out;
}

/* The cell's nodeshare.json text, newly allocated; NULL (and a message)
 * if the varied values do not make a configuration nodeshare-sim
 * accepts. */
static char *cell_config (const struct sweep *s, const ns_sweep_cell_t *c)
{
    ns_error_t err = { "" };
    char *text = ns_sweep_cell_config (s->sw, c, s->base, s->base_src, &err);
    if (!text) {
        die ("%s", err.text);
        return NULL;
    }
    char src[NS_SWEEP_NAME_MAX + 32];
    snprintf (src, sizeof (src), "%s/nodeshare.json", c->name);
    ns_config_t *cfg = ns_config_load_string (text, src, &err);
    if (!cfg) {
        die ("%s: vary: %s", s->sw->src, err.text);
        free (text);
        return NULL;
    }
    ns_config_destroy (cfg);
    return text;
}

/* Policies (and the baseline) against the base configuration. */
static int check_policies (const struct sweep *s, const char *cfg_text)
{
    ns_error_t err = { "" };
    ns_config_t *cfg = ns_config_load_string (cfg_text, s->base_src, &err);
    if (!cfg)
        return die ("%s: config: %s", s->sw->src, err.text);
    int rc = 0;
    for (int i = 0; i < s->sw->npolicies && rc == 0; i++) {
        ns_policy_t p = *ns_config_policy (cfg);
        if (strcmp (s->sw->policies[i], "all") == 0)
            continue;
        if (ns_policy_parse (&p, s->sw->policies[i], ns_config_progtab (cfg),
                             &err) < 0)
            rc = die ("%s: policies[%d]: %s", s->sw->src, i, err.text);
    }
    ns_config_destroy (cfg);
    return rc;
}

static int check_readable (const struct sweep *s, const char *what,
                           int i, const char *path)
{
    if (access (path, R_OK) == 0)
        return 0;
    if (i >= 0)
        return die ("%s: %s[%d]: cannot read %s: %s", s->sw->src, what, i,
                    path, strerror (errno));
    return die ("%s: %s: cannot read %s: %s", s->sw->src, what, path,
                strerror (errno));
}

/* Load the file; with check, also what running cells needs: the
 * configuration, the policies, the traces and slurm.conf files, and the
 * configuration of every combination of varied values (only_cell >= 0:
 * that cell's).  Returns 0, or 2 after a message. */
static int prepare (struct sweep *s, int check, int only_cell)
{
    char abs[PATH_MAX];
    if (!realpath (s->a->file, abs))
        return die ("%s: %s", s->a->file, strerror (errno)), 2;
    if (!(s->file = strdup (abs)))
        return die ("out of memory"), 2;
    ns_error_t err = { "" };
    /* Messages name the file as the user gave it. */
    s->sw = ns_sweep_load (s->a->file, &err);
    if (!s->sw)
        return die ("%s", err.text), 2;
    /* Paths the file names are taken from its real directory, so that
     * array tasks find them whatever their working directory. */
    ns_sweep_free (s->sw);
    s->sw = ns_sweep_load (s->file, &err);
    if (!s->sw)
        return die ("%s", err.text), 2;
    free (s->sw->src);
    if (!(s->sw->src = strdup (s->a->file)))
        return die ("out of memory"), 2;
    if (s->sw->config) {
        size_t len;
        s->base = ns_read_file (s->sw->config, NS_CONFIG_MAX_BYTES, &len, NULL);
        if (!s->base)
            return die ("%s: config: cannot read %s: %s", s->sw->src,
                        s->sw->config, strerror (errno)), 2;
        s->base_src = s->sw->config_raw;
    }
    else {
        if (!(s->base = strdup (s->a->builtin_config)))
            return die ("out of memory"), 2;
        s->base_src = "built-in";
    }
    s->base_hash = ns_fnv1a_str (s->base);
    if (s->sw->ncells > 0 && s->a->mode == NS_SWEEP_CELL
        && s->a->cell >= s->sw->ncells)
        return die ("--cell %d: %s has %d cells (0..%d)", s->a->cell,
                    s->sw->src, s->sw->ncells, s->sw->ncells - 1), 2;
    if (!check)
        return 0;
    for (int i = 0; i < s->sw->ntraces; i++)
        if (check_readable (s, "traces", i, s->sw->traces[i].path) < 0)
            return 2;
    for (int i = 0; i < s->sw->nmachines; i++)
        if (s->sw->machines[i].slurm_conf
            && check_readable (s, "machines", i,
                               s->sw->machines[i].slurm_conf) < 0)
            return 2;
    /* Every combination of varied values is one of cells 0..combos-1
     * (trace 0, machine 0); one cell needs only its own.  The policies
     * are checked against the first. */
    int combos = s->sw->ncells / (s->sw->ntraces * s->sw->nmachines);
    int first = only_cell >= 0 ? only_cell : 0;
    int end = only_cell >= 0 ? only_cell + 1 : combos;
    for (int i = first; i < end; i++) {
        ns_sweep_cell_t c;
        ns_sweep_cell (s->sw, i, &c);
        char *text = cell_config (s, &c);
        if (!text)
            return 2;
        int rc = i == first ? check_policies (s, text) : 0;
        free (text);
        if (rc < 0)
            return 2;
    }
    if (mkdir_p (s->sw->output) < 0)
        return 2;
    return 0;
}

/* ---- one cell ---- */

/* The cell's result, if it is there, complete, and of this definition. */
static json_object *cell_result (const struct sweep *s,
                                 const ns_sweep_cell_t *c)
{
    char path[PATH_MAX];
    cell_path (s, c, "result.json", path, sizeof (path));
    if (access (path, F_OK) < 0)
        return NULL;
    json_object *o = json_object_from_file (path);
    json_object *cell, *key;
    char *want = cell_key (s, c);
    int good = o && want && json_object_object_get_ex (o, "cell", &cell)
               && json_object_object_get_ex (cell, "key", &key)
               && json_object_is_type (key, json_type_string)
               && strcmp (json_object_get_string (key), want) == 0
               && ns_metricsdoc_check (o) == 0;
    free (want);
    if (!good) {
        json_object_put (o);
        return NULL;
    }
    return o;
}

static int cell_done (const struct sweep *s, const ns_sweep_cell_t *c)
{
    json_object *o = cell_result (s, c);
    json_object_put (o);
    return o != NULL;
}

/* Why the cell's run failed: the last "nodeshare-sim: " line of its log
 * that is not a note, else its last line. */
static void failure_text (const char *log, int status, char *buf, size_t len)
{
    char *text = ns_read_file (log, 1 << 24, NULL, NULL);
    char last[1024] = "", ours[1024] = "";
    if (text) {
        char *save = NULL;
        for (char *l = strtok_r (text, "\n", &save); l;
             l = strtok_r (NULL, "\n", &save)) {
            snprintf (last, sizeof (last), "%s", l);
            if (strncmp (l, "nodeshare-sim: ", 15) == 0
                && strncmp (l, "nodeshare-sim: note:", 20) != 0)
                snprintf (ours, sizeof (ours), "%s", l);
        }
        free (text);
    }
    const char *why = ours[0] ? ours : last;
    if (WIFSIGNALED (status))
        snprintf (buf, len, "killed by signal %d%s%s", WTERMSIG (status),
                  why[0] ? ": " : "", why);
    else
        snprintf (buf, len, "exit status %d%s%s", WEXITSTATUS (status),
                  why[0] ? ": " : "", why);
}

static void add_arg (char **argv, int *argc, const char *s)
{
    argv[(*argc)++] = (char *)s;
}

/* Start the cell's run; its pid, or -1 after a message. */
static pid_t cell_start (const struct sweep *s, const ns_sweep_cell_t *c,
                         int jobs)
{
    const ns_sweep_t *sw = s->sw;
    char dir[PATH_MAX], log[PATH_MAX], part[PATH_MAX], cfg[PATH_MAX];
    cell_path (s, c, NULL, dir, sizeof (dir));
    cell_path (s, c, "log.txt", log, sizeof (log));
    cell_path (s, c, "result.part", part, sizeof (part));
    cell_path (s, c, "nodeshare.json", cfg, sizeof (cfg));
    if (mkdir_p (dir) < 0)
        return -1;
    const char *config = sw->config;
    if (sw->nvary) {
        char *text = cell_config (s, c);
        if (!text)
            return -1;
        int rc = write_atomic (cfg, text, strlen (text));
        free (text);
        if (rc < 0)
            return -1;
        config = cfg;
    }
    unlink (part);
    char *argv[64], nodes[16], cores[16], depth[16], maxj[32], seed[32];
    char jobsbuf[16], policies[64 * 33] = "";
    int argc = 0;
    add_arg (argv, &argc, "nodeshare-sim");
    add_arg (argv, &argc, "-q");
    snprintf (jobsbuf, sizeof (jobsbuf), "%d", jobs);
    add_arg (argv, &argc, "-j");
    add_arg (argv, &argc, jobsbuf);
    if (config) {
        add_arg (argv, &argc, "-c");
        add_arg (argv, &argc, config);
    }
    if (sw->npolicies) {
        size_t len = 0;
        for (int i = 0; i < sw->npolicies; i++)
            len += (size_t)snprintf (policies + len, sizeof (policies) - len,
                                     "%s%s", i ? "," : "", sw->policies[i]);
        add_arg (argv, &argc, "-p");
        add_arg (argv, &argc, policies);
    }
    const ns_sweep_machine_t *m = &sw->machines[c->machine];
    if (m->slurm_conf) {
        add_arg (argv, &argc, "--slurm-conf");
        add_arg (argv, &argc, m->slurm_conf);
    }
    else if (m->nodes) {
        snprintf (nodes, sizeof (nodes), "%d", m->nodes);
        snprintf (cores, sizeof (cores), "%d", m->cores);
        add_arg (argv, &argc, "--nodes");
        add_arg (argv, &argc, nodes);
        add_arg (argv, &argc, "--cores");
        add_arg (argv, &argc, cores);
    }
    if (sw->backfill[0]) {
        add_arg (argv, &argc, "--backfill");
        add_arg (argv, &argc, sw->backfill);
    }
    if (sw->bf_depth) {
        snprintf (depth, sizeof (depth), "%d", sw->bf_depth);
        add_arg (argv, &argc, "--bf-depth");
        add_arg (argv, &argc, depth);
    }
    if (sw->max_jobs) {
        snprintf (maxj, sizeof (maxj), "%lld", (long long)sw->max_jobs);
        add_arg (argv, &argc, "--max-jobs");
        add_arg (argv, &argc, maxj);
    }
    if (sw->overrun[0]) {
        add_arg (argv, &argc, "--overrun");
        add_arg (argv, &argc, sw->overrun);
    }
    if (sw->format[0]) {
        add_arg (argv, &argc, "--format");
        add_arg (argv, &argc, sw->format);
    }
    if (sw->baseline[0]) {
        add_arg (argv, &argc, "--baseline");
        add_arg (argv, &argc, sw->baseline);
    }
    if (sw->assign_classes)
        add_arg (argv, &argc, "--assign-classes");
    if (sw->seed >= 0) {
        snprintf (seed, sizeof (seed), "%lld", (long long)sw->seed);
        add_arg (argv, &argc, "--seed");
        add_arg (argv, &argc, seed);
    }
    add_arg (argv, &argc, "--json");
    add_arg (argv, &argc, part);
    add_arg (argv, &argc, "--");
    add_arg (argv, &argc, sw->traces[c->trace].path);
    argv[argc] = NULL;

    int fd = open (log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return die ("%s: %s", log, strerror (errno));
    fflush (NULL);
    pid_t pid = fork ();
    if (pid < 0) {
        close (fd);
        return die ("fork: %s", strerror (errno));
    }
    if (pid == 0) {
        int null = open ("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2 (null, STDIN_FILENO);
        dup2 (fd, STDOUT_FILENO);
        dup2 (fd, STDERR_FILENO);
        execv (s->exe, argv);
        fprintf (stderr, "nodeshare-sim: %s: %s\n", s->exe, strerror (errno));
        _exit (127);
    }
    close (fd);
    return pid;
}

/* After the cell's run ended with status: its result in place, or its
 * error.  Returns 0 if the cell is done; err gets why not. */
static int cell_finish (const struct sweep *s, const ns_sweep_cell_t *c,
                        int status, char *err, size_t errlen)
{
    char part[PATH_MAX], result[PATH_MAX], errpath[PATH_MAX], log[PATH_MAX];
    cell_path (s, c, "result.part", part, sizeof (part));
    cell_path (s, c, "result.json", result, sizeof (result));
    cell_path (s, c, "error.txt", errpath, sizeof (errpath));
    cell_path (s, c, "log.txt", log, sizeof (log));
    json_object *o = NULL;
    if (WIFEXITED (status) && WEXITSTATUS (status) == 0) {
        o = json_object_from_file (part);
        if (!o || !json_object_is_type (o, json_type_object)) {
            json_object_put (o);
            o = NULL;
            snprintf (err, errlen, "exit status 0 but no JSON result (%s)",
                      "result.part");
        }
    }
    else
        failure_text (log, status, err, errlen);
    int rc = -1;
    if (o) {
        char *key = cell_key (s, c);
        json_object *cell = ns_sweep_cell_json (s->sw, c, key, 1);
        free (key);
        /* the cell first */
        json_object *out = json_object_new_object ();
        json_object_object_add (out, "cell", cell);
        json_object_object_foreach (o, k, v)
            json_object_object_add (out, k, json_object_get (v));
        json_object_put (o);
        if (write_json_atomic (result, out) == 0) {
            rc = 0;
            unlink (part);
            unlink (errpath);
        }
        else
            snprintf (err, errlen, "cannot write result.json");
        json_object_put (out);
    }
    if (rc < 0) {
        char line[1200];
        int n = snprintf (line, sizeof (line), "%s\n", err);
        write_atomic (errpath, line, (size_t)n < sizeof (line)
                                         ? (size_t)n : sizeof (line) - 1);
    }
    return rc;
}

static double now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- merging ---- */

/* Every cell's result or error, as the files say (sim/sweepmerge.h). */
static int gather (const struct sweep *s, ns_sweep_merged_t *mg)
{
    if (ns_sweep_merged_init (mg, s->sw, s->file) < 0)
        return die ("out of memory");
    for (int i = 0; i < mg->n; i++) {
        const ns_sweep_cell_t *c = &mg->cells[i];
        json_object *o = cell_result (s, c);
        if (o) {
            ns_sweep_merged_done (mg, i, o);
            continue;
        }
        char path[PATH_MAX];
        cell_path (s, c, "error.txt", path, sizeof (path));
        char *e = ns_read_file (path, 1 << 20, NULL, NULL);
        if (e)
            ns_sweep_merged_failed (mg, i, e);
    }
    return 0;
}

/* The merged table on stdout and in OUTPUT/sweep.txt, sweep.json,
 * sweep.svg.  0 if every cell is done, 1 otherwise. */
static int merge (const struct sweep *s)
{
    ns_sweep_merged_t mg = { 0 };
    int rc = 1;
    if (mkdir_p (s->sw->output) < 0 || gather (s, &mg) < 0)
        return 1;
    char path[PATH_MAX];
    char *table = ns_sweep_merged_table (&mg);
    char *svg = ns_sweep_merged_svg (&mg);
    json_object *js = ns_sweep_merged_json (&mg);
    if (!table || !svg) {
        die ("out of memory");
        goto out;
    }
    fputs (table, stdout);
    fflush (stdout);
    snprintf (path, sizeof (path), "%s/sweep.txt", s->sw->output);
    int bad = write_atomic (path, table, strlen (table)) < 0;
    snprintf (path, sizeof (path), "%s/sweep.json", s->sw->output);
    bad |= write_json_atomic (path, js) < 0;
    snprintf (path, sizeof (path), "%s/sweep.svg", s->sw->output);
    bad |= write_atomic (path, svg, strlen (svg)) < 0;
    if (!bad && !s->a->quiet)
        fprintf (stderr, "nodeshare-sim: sweep: merged into %s/sweep.txt, "
                 "sweep.json and sweep.svg\n", s->sw->output);
    if (!bad && mg.failed + mg.missing == 0)
        rc = 0;
    else if (!bad)
        die ("sweep: %d of %d cells have no result (%d failed, %d not run)",
             mg.failed + mg.missing, mg.n, mg.failed, mg.missing);
out:
    free (table);
    free (svg);
    json_object_put (js);
    ns_sweep_merged_free (&mg);
    return rc;
}

/* ---- running here ---- */

static int run_local (const struct sweep *s)
{
    const ns_sweep_t *sw = s->sw;
    int *todo = calloc (sw->ncells, sizeof (int));
    if (!todo)
        return die ("out of memory"), 1;
    int ntodo = 0;
    for (int i = 0; i < sw->ncells; i++) {
        ns_sweep_cell_t c;
        ns_sweep_cell (sw, i, &c);
        if (!cell_done (s, &c))
            todo[ntodo++] = i;
    }
    int jobs = s->a->jobs < ntodo ? s->a->jobs : ntodo;
    if (!s->a->quiet)
        fprintf (stderr, "nodeshare-sim: sweep: %d cells, %d done before, "
                 "%d to run, %d at a time\n", sw->ncells,
                 sw->ncells - ntodo, ntodo, jobs);
    struct slot { pid_t pid; int cell; double t0; } *slots =
        calloc (jobs ? jobs : 1, sizeof (*slots));
    if (!slots) {
        free (todo);
        return die ("out of memory"), 1;
    }
    int next = 0, running = 0, finished = 0, failed = 0;
    while (next < ntodo || running) {
        while (running < jobs && next < ntodo) {
            ns_sweep_cell_t c;
            ns_sweep_cell (sw, todo[next], &c);
            pid_t pid = cell_start (s, &c, 1);
            if (pid < 0) {
                char err[64] = "could not start";
                cell_finish (s, &c, 127 << 8, err, sizeof (err));
                failed++;
                finished++;
                next++;
                continue;
            }
            for (int k = 0; k < jobs; k++)
                if (!slots[k].pid) {
                    slots[k] = (struct slot){ pid, todo[next], now () };
                    break;
                }
            running++;
            next++;
        }
        if (!running)
            break;
        int status;
        pid_t pid = waitpid (-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            die ("waitpid: %s", strerror (errno));
            break;
        }
        for (int k = 0; k < jobs; k++) {
            if (slots[k].pid != pid)
                continue;
            ns_sweep_cell_t c;
            ns_sweep_cell (sw, slots[k].cell, &c);
            char err[1200] = "";
            int ok = cell_finish (s, &c, status, err, sizeof (err)) == 0;
            finished++;
            failed += !ok;
            if (!s->a->quiet) {
                if (ok)
                    fprintf (stderr, "nodeshare-sim: sweep: [%d/%d] %s: "
                             "done in %.1f s\n", finished, ntodo, c.name,
                             now () - slots[k].t0);
                else
                    fprintf (stderr, "nodeshare-sim: sweep: [%d/%d] %s: "
                             "FAILED: %s\n", finished, ntodo, c.name, err);
            }
            slots[k].pid = 0;
            running--;
        }
    }
    free (slots);
    free (todo);
    return merge (s);
}

/* --cell I: one cell, in the foreground (an array task). */
static int run_one (const struct sweep *s)
{
    ns_sweep_cell_t c;
    ns_sweep_cell (s->sw, s->a->cell, &c);
    if (cell_done (s, &c)) {
        fprintf (stderr, "nodeshare-sim: sweep: %s: already done\n", c.name);
        return 0;
    }
    /* The policies of the cell in as many threads as we have CPUs. */
    cpu_set_t set;
    int cpus = sched_getaffinity (0, sizeof (set), &set) == 0
               ? CPU_COUNT (&set) : 1;
    double t0 = now ();
    pid_t pid = cell_start (s, &c, cpus < 1 ? 1 : cpus > 1024 ? 1024 : cpus);
    int status = 127 << 8;
    if (pid > 0)
        while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
            ;
    char err[1200] = "could not start";
    if (cell_finish (s, &c, status, err, sizeof (err)) < 0) {
        fprintf (stderr, "nodeshare-sim: sweep: %s: FAILED: %s\n", c.name,
                 err);
        return 1;
    }
    fprintf (stderr, "nodeshare-sim: sweep: %s: done in %.1f s\n", c.name,
             now () - t0);
    return 0;
}

/* ---- Slurm ---- */

static int write_script (const struct sweep *s, const char *path,
                         const char *what, const char *arg)
{
    char *text = ns_sweep_script (s->sw, s->exe, s->file, what, arg);
    if (!text)
        return die ("out of memory");
    int rc = write_atomic (path, text, strlen (text));
    free (text);
    if (rc == 0 && chmod (path, 0755) < 0)
        rc = die ("%s: %s", path, strerror (errno));
    return rc;
}

/* sbatch --parsable ARGS... SCRIPT; the job id, or -1 after a message. */
static long sbatch (const struct sweep *s, char **args, int nargs,
                    const char *script)
{
    ns_error_t err;
    long id = ns_sbatch (args, nargs, s->a->sbatch_args, script, &err);
    if (id < 0)
        die ("%s", err.text);
    return id;
}

static int submit (const struct sweep *s)
{
    const ns_sweep_t *sw = s->sw;
    /* the array: the cells not done, as ranges "0-3,5,7-11" */
    char *list = NULL;
    size_t llen = 0;
    FILE *f = open_memstream (&list, &llen);
    if (!f)
        return die ("out of memory"), 1;
    int ntodo = 0, first = -1, last = -2;
    for (int i = 0; i <= sw->ncells; i++) {
        int todo = 0;
        if (i < sw->ncells) {
            ns_sweep_cell_t c;
            ns_sweep_cell (sw, i, &c);
            todo = !cell_done (s, &c);
        }
        if (todo && i == last + 1) {
            last = i;
        }
        else {
            if (first >= 0)
                fprintf (f, "%s%d", ftell (f) ? "," : "", first);
            if (first >= 0 && last > first)
                fprintf (f, "-%d", last);
            first = todo ? i : -1;
            last = todo ? i : -2;
        }
        ntodo += todo;
    }
    fclose (f);
    if (!ntodo) {
        free (list);
        fprintf (stderr, "nodeshare-sim: sweep: all %d cells are done: "
                 "nothing to submit\n", sw->ncells);
        return merge (s);
    }
    char cells[PATH_MAX], collect[PATH_MAX], logs[PATH_MAX];
    snprintf (cells, sizeof (cells), "%s/sweep.sbatch", sw->output);
    snprintf (collect, sizeof (collect), "%s/collect.sbatch", sw->output);
    snprintf (logs, sizeof (logs), "%s/slurm", sw->output);
    if (mkdir_p (logs) < 0
        || write_script (s, cells, "The cells (one per array task)",
                         "--cell \"$SLURM_ARRAY_TASK_ID\"") < 0
        || write_script (s, collect, "The merge", "--collect") < 0) {
        free (list);
        return 1;
    }
    char *array = NULL, *chdir_ = NULL, *out1 = NULL, *out2 = NULL;
    char *dep = NULL;
    int bad = asprintf (&array, "--array=%s", list) < 0;
    bad |= asprintf (&chdir_, "--chdir=%s", sw->output) < 0;
    bad |= asprintf (&out1, "--output=%s/cell-%%a.out", logs) < 0;
    bad |= asprintf (&out2, "--output=%s/collect-%%j.out", logs) < 0;
    free (list);
    long id = -1, cid = -1;
    if (bad)
        die ("out of memory");
    else {
        char *a1[] = { "--job-name=nodeshare-sweep", "--ntasks=1", array,
                       chdir_, out1 };
        id = sbatch (s, a1, 5, cells);
    }
    if (id > 0 && asprintf (&dep, "--dependency=afterany:%ld", id) >= 0) {
        char *a2[] = { "--job-name=nodeshare-sweep-collect", "--ntasks=1",
                       dep, chdir_, out2 };
        cid = sbatch (s, a2, 5, collect);
    }
    if (id > 0)
        printf ("sweep: %d of %d cells submitted: job array %ld (%s)\n",
                ntodo, sw->ncells, id, array + 8);
    if (cid > 0)
        printf ("sweep: collect: job %ld, after the array: %s/sweep.txt\n",
                cid, sw->output);
    free (array);
    free (chdir_);
    free (out1);
    free (out2);
    free (dep);
    return id > 0 && cid > 0 ? 0 : 1;
}

int ns_sim_sweep_main (const struct ns_sweep_args *a)
{
    struct sweep s = { .a = a };
    int check = a->mode != NS_SWEEP_COLLECT;
    int rc = prepare (&s, check, a->mode == NS_SWEEP_CELL ? a->cell : -1);
    if (rc == 0) {
        ssize_t n = readlink ("/proc/self/exe", s.exe, sizeof (s.exe) - 1);
        if (n <= 0) {
            die ("/proc/self/exe: %s", strerror (errno));
            rc = 1;
        }
        else
            s.exe[n] = '\0';
    }
    if (rc == 0) {
        switch (a->mode) {
        case NS_SWEEP_RUN: rc = run_local (&s); break;
        case NS_SWEEP_SLURM: rc = submit (&s); break;
        case NS_SWEEP_COLLECT: rc = merge (&s); break;
        case NS_SWEEP_CELL: rc = run_one (&s); break;
        }
    }
    ns_sweep_free (s.sw);
    free (s.file);
    free (s.base);
    return rc;
}
