/* SPDX-License-Identifier: GPL-2.0-or-later */
/* calib.c - nodeshare-calibrate's experiment without Slurm (calib.h): its
 * programs, the plan and its cost, the sbatch wrappers' text, and the
 * figures of the measured runs as JSON.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "calib.h"
#include "calib_test.h"
#include "fileio.h"
#include "interf.h"
#include "learned.h"
#include "progtab.h"

static const char *const shape_names[] = { "packed", "striped", "beside" };

void ns_calib_free (ns_calib_t *c)
{
    if (!c)
        return;
    free (c->runs);
    c->runs = NULL;
    c->nruns = 0;
}

const char *ns_calib_shape_name (enum ns_calib_shape s)
{
    return shape_names[s];
}

/*
 * The programs
 */

int ns_calib_valid_name (const char *s)
{
    size_t n = strlen (s);
    if (n == 0 || n > NS_CALIB_NAME_MAX)
        return 0;
    for (const char *c = s; *c; c++)
        if (*c <= ' ' || *c == '"' || *c == '\\' || *c == 0x7f)
            return 0;
    return 1;
}

int ns_calib_find (const ns_calib_t *c, const char *name)
{
    for (int i = 0; i < c->nprogs; i++)
        if (!strcmp (c->progs[i].name, name))
            return i;
    return -1;
}

int ns_calib_add (ns_calib_t *c, const char *name, const char *script,
                  const char *where, ns_error_t *err)
{
    if (c->nprogs == NS_CALIB_MAX_PROGS)
        return ns_error_set (err, EINVAL, "%s: more than %d programs", where,
                             NS_CALIB_MAX_PROGS);
    if (!ns_calib_valid_name (name))
        return ns_error_set (err, EINVAL, "%s: program '%s': expected a name "
                             "of 1..%d characters without spaces or quotes",
                             where, name, NS_CALIB_NAME_MAX);
    if (ns_calib_find (c, name) >= 0)
        return ns_error_set (err, EINVAL, "%s: program %s given twice", where,
                             name);
    FILE *f = fopen (script, "r");
    if (!f)
        return ns_error_set (err, errno, "%s: cannot open: %s", script,
                             strerror (errno));
    char first[3] = "";
    size_t k = fread (first, 1, 2, f);
    fclose (f);
    if (k != 2 || first[0] != '#' || first[1] != '!')
        return ns_error_set (err, EINVAL, "%s:1: expected a first line "
                             "\"#!INTERPRETER\" (sbatch needs one)", script);
    struct ns_calib_prog *p = &c->progs[c->nprogs];
    memset (p, 0, sizeof (*p));
    snprintf (p->name, sizeof (p->name), "%s", name);
    if (!realpath (script, p->script))
        return ns_error_set (err, errno, "%s: %s", script, strerror (errno));
    c->nprogs++;
    return 0;
}

int ns_calib_add_script (ns_calib_t *c, const char *script, ns_error_t *err)
{
    const char *base = strrchr (script, '/');
    base = base ? base + 1 : script;
    char name[NS_CALIB_NAME_MAX + 1];
    snprintf (name, sizeof (name), "%.*s", (int) strcspn (base, "."), base);
    return ns_calib_add (c, name, script, script, err);
}

int ns_calib_read_list (ns_calib_t *c, const char *path, ns_error_t *err)
{
    FILE *f = fopen (path, "r");
    if (!f)
        return ns_error_set (err, errno, "%s: cannot open: %s", path,
                             strerror (errno));
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
            rc = ns_error_set (err, EINVAL, "%s: expected \"PROGRAM SCRIPT\", "
                               "got %s", where,
                               script ? "more fields" : "one field");
        else
            rc = ns_calib_add (c, name, script, where, err);
    }
    fclose (f);
    if (rc == 0 && c->nprogs == 0)
        rc = ns_error_set (err, EINVAL, "%s: no \"PROGRAM SCRIPT\" line",
                           path);
    return rc;
}

/*
 * The plan
 */

static int plan_add (ns_calib_t *c, int p, enum ns_calib_shape s, int q,
                     int rep, ns_error_t *err)
{
    struct ns_calib_run *r = realloc (c->runs, (size_t) (c->nruns + 1)
                                                   * sizeof (*c->runs));
    if (!r)
        return ns_error_set (err, ENOMEM, "out of memory");
    c->runs = r;
    r = &c->runs[c->nruns++];
    memset (r, 0, sizeof (*r));
    r->p = p;
    r->shape = s;
    r->q = q;
    r->rep = rep;
    return 0;
}

/* Does --have give the figure (the program known to it and the figure
 * stated)? */
static int have_speedup (const ns_calib_t *c, ns_config_t *have, int p)
{
    if (!have)
        return 0;
    int id = ns_progtab_lookup (ns_config_progtab (have), c->progs[p].name);
    return id >= 0 && ns_interf_given_speedup (ns_config_interf (have), id);
}

static int have_slowdown (const ns_calib_t *c, ns_config_t *have, int p,
                          int q)
{
    if (!have)
        return 0;
    const ns_progtab_t *t = ns_config_progtab (have);
    int a = ns_progtab_lookup (t, c->progs[p].name);
    int b = ns_progtab_lookup (t, c->progs[q].name);
    return a >= 0 && b >= 0
           && ns_interf_given_slowdown (ns_config_interf (have), a, b);
}

int ns_calib_plan (ns_calib_t *c, ns_config_t *have, ns_error_t *err)
{
    for (int rep = 1; rep <= c->repeats; rep++)
        for (int p = 0; p < c->nprogs; p++) {
            int speed = !have_speedup (c, have, p), slow = 0;
            for (int q = 0; q < c->nprogs; q++)
                slow |= c->beside[q] && !have_slowdown (c, have, p, q);
            if (speed && plan_add (c, p, NS_CALIB_PACKED, -1, rep, err) < 0)
                return -1;
            if ((speed || slow)
                && plan_add (c, p, NS_CALIB_STRIPED, -1, rep, err) < 0)
                return -1;
            for (int q = 0; q < c->nprogs; q++)
                if (c->beside[q] && !have_slowdown (c, have, p, q)
                    && plan_add (c, p, NS_CALIB_BESIDE, q, rep, err) < 0)
                    return -1;
        }
    return 0;
}

double ns_calib_run_cost (const ns_calib_t *c, const struct ns_calib_run *r)
{
    double nodes = r->shape == NS_CALIB_PACKED ? c->nodes : 2.0 * c->nodes;
    return nodes * c->cores * c->minutes / 60.0;
}

int ns_calib_run_jobs (const struct ns_calib_run *r)
{
    return r->shape == NS_CALIB_BESIDE ? 2 : 1;
}

void ns_calib_shape_args (const ns_calib_t *c, const struct ns_calib_run *r,
                          char *nodes, size_t nsz, char *tpn, size_t tsz)
{
    if (r->shape == NS_CALIB_PACKED) {
        snprintf (nodes, nsz, "%d", c->nodes);
        snprintf (tpn, tsz, "%d", c->cores);
    } else {
        snprintf (nodes, nsz, "%d", 2 * c->nodes);
        snprintf (tpn, tsz, "%d", c->cores / 2);
    }
}

double ns_calib_print_plan (const ns_calib_t *c, FILE *f)
{
    double total = 0;
    int jobs = 0;
    fprintf (f, "%-4s %-16s %-8s %-16s %6s %7s %4s %10s\n", "run", "program",
             "shape", "beside", "repeat", "nodes", "tpn", "core-hours");
    for (int i = 0; i < c->nruns; i++) {
        const struct ns_calib_run *r = &c->runs[i];
        char nodes[16], tpn[16];
        ns_calib_shape_args (c, r, nodes, sizeof (nodes), tpn, sizeof (tpn));
        double cost = ns_calib_run_cost (c, r);
        total += cost;
        jobs += ns_calib_run_jobs (r);
        fprintf (f, "%-4d %-16s %-8s %-16s %6d %7s %4s %10.2f\n", i + 1,
                 c->progs[r->p].name, shape_names[r->shape],
                 r->shape == NS_CALIB_BESIDE ? c->progs[r->q].name : "-",
                 r->rep, nodes, tpn, cost);
    }
    fprintf (f, "total: %d runs, %d jobs of at most %d min on nodes of %d "
             "cores, at most %.2f core-hours\n", c->nruns, jobs, c->minutes,
             c->cores, total);
    return total;
}

double ns_calib_cost (const ns_calib_t *c)
{
    double cost = 0;
    for (int i = 0; i < c->nruns; i++)
        cost += ns_calib_run_cost (c, &c->runs[i]);
    return cost;
}

const char *ns_calib_run_label (const ns_calib_t *c,
                                const struct ns_calib_run *r, char *buf,
                                size_t n)
{
    if (r->shape == NS_CALIB_BESIDE)
        snprintf (buf, n, "%s beside %s, repeat %d", c->progs[r->p].name,
                  c->progs[r->q].name, r->rep);
    else
        snprintf (buf, n, "%s %s, repeat %d", c->progs[r->p].name,
                  shape_names[r->shape], r->rep);
    return buf;
}

/*
 * The wrappers
 */

int ns_calib_shape_option (const char *opt)
{
    static const char *const set[] = {
        "-N", "--nodes", "-n", "--ntasks", "--ntasks-per-node",
        "--ntasks-per-socket", "--ntasks-per-core", "--exclusive", "-w",
        "--nodelist", "-s", "--oversubscribe", "-J", "--job-name",
        "--comment", "-o", "--output", "-e", "--error", "-t", "--time",
        "-p", "--partition", NULL
    };
    size_t n = strcspn (opt, "= \t\r\n");
    for (int i = 0; set[i]; i++) {
        size_t m = strlen (set[i]);
        /* A short option may carry its value: "-N4". */
        if (set[i][1] != '-' ? !strncmp (opt, set[i], 2)
                             : n == m && !strncmp (opt, set[i], m))
            return 1;
    }
    return 0;
}

int ns_calib_sbatch_header (const char *script, char *out, size_t size,
                            ns_error_t *err)
{
    FILE *f = fopen (script, "r");
    if (!f)
        return ns_error_set (err, errno, "%s: cannot open: %s", script,
                             strerror (errno));
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
        if (ns_calib_shape_option (opt))
            continue;
        int k = snprintf (out + n, size - n, "%s", s);
        if (k < 0 || (size_t) k >= size - n) {
            fclose (f);
            return ns_error_set (err, E2BIG, "%s: #SBATCH header longer "
                                 "than %zu bytes", script, size);
        }
        n += (size_t) k;
    }
    fclose (f);
    return 0;
}

void ns_calib_prog_paths (ns_calib_t *c, int i)
{
    struct ns_calib_prog *p = &c->progs[i];
    static const char *const ext[] = { "job", "sbatch", "filler" };
    char *dst[] = { p->job, p->wrap, p->fill };
    for (int k = 0; k < 3; k++) {
        /* Precisions bound every part (the name is at most
         * NS_CALIB_NAME_MAX): the compiler sees that nothing is cut.  (A
         * buffer of its own: the parts are in c too.) */
        char path[PATH_MAX];
        snprintf (path, sizeof (path), "%.*s/%.*s.%s", PATH_MAX - 200,
                  c->workdir, NS_CALIB_NAME_MAX, p->name, ext[k]);
        memcpy (dst[k], path, sizeof (path));
    }
}

void ns_calib_wrapper_text (const ns_calib_t *c, int i, const char *header,
                            char *text, size_t size)
{
    const struct ns_calib_prog *p = &c->progs[i];
    const char *w = c->workdir;
    /* The time is written to a temporary name and renamed: a reader never
     * sees half a line. */
    snprintf (text, size,
"#!/bin/sh\n"
"# written by nodeshare-calibrate: runs %s once and records its time\n"
"%s"
"t0=$(date +%%s.%%N)\n"
"'%s'\n"
"rc=$?\n"
"t1=$(date +%%s.%%N)\n"
"echo \"$t0 $t1 $rc\" >'%s/times/'$SLURM_JOB_ID.tmp &&\n"
"    mv '%s/times/'$SLURM_JOB_ID.tmp '%s/times/'$SLURM_JOB_ID\n"
"exit $rc\n", p->script, header, p->job, w, w, w);
}

void ns_calib_filler_text (const ns_calib_t *c, int i, const char *header,
                           char *text, size_t size)
{
    const struct ns_calib_prog *p = &c->progs[i];
    snprintf (text, size,
"#!/bin/sh\n"
"# written by nodeshare-calibrate: runs %s again and again as the\n"
"# co-tenant of a measured job; nodeshare-calibrate cancels it when the\n"
"# measured job ends\n"
"%s"
"while '%s'; do :; done\n"
"exit 1\n", p->script, header, p->job);
}

/*
 * The figures
 */

const struct ns_calib_run *ns_calib_find_run (const ns_calib_t *c, int p,
                                              enum ns_calib_shape s, int q,
                                              int rep)
{
    for (int i = 0; i < c->nruns; i++) {
        const struct ns_calib_run *r = &c->runs[i];
        if (r->p == p && r->shape == s && r->rep == rep
            && (s != NS_CALIB_BESIDE || r->q == q))
            return r;
    }
    return NULL;
}

struct ns_calib_fig ns_calib_ratio (const ns_calib_t *c, int p,
                                    enum ns_calib_shape num, int q)
{
    struct ns_calib_fig f = { 0, 0, NAN, 0 };
    double x[NS_CALIB_MAX_REPEATS], sum = 0;
    for (int rep = 1; rep <= c->repeats && rep <= NS_CALIB_MAX_REPEATS;
         rep++) {
        const struct ns_calib_run *a = ns_calib_find_run (c, p, num, q, rep);
        const struct ns_calib_run *b = ns_calib_find_run (c, p,
                                                          NS_CALIB_STRIPED,
                                                          -1, rep);
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

/* o[key] = v with 3 decimals, as nodeshare-learn writes figures. */
static void put3 (json_object *o, const char *key, double v)
{
    json_object_object_add (o, key, ns_learned_num3 (v));
}

/* Program p's figures into pr, their evidence into ev, the mean seconds
 * of each shape into secs. */
static void prog_figures (const ns_calib_t *c, int p, json_object *pr,
                          json_object *ev, json_object *secs)
{
    struct ns_calib_fig st = ns_calib_ratio (c, p, NS_CALIB_STRIPED, -1);
    if (st.n)
        put3 (secs, "striped", st.secs);
    struct ns_calib_fig u = ns_calib_ratio (c, p, NS_CALIB_PACKED, -1);
    if (u.n) {
        put3 (pr, "spread_speedup", u.mean);
        json_object_object_add (ev, "spread_speedup",
                                ns_learned_evidence (u.n, u.se));
        put3 (secs, "packed", u.secs);
    }
    json_object *sl = json_object_new_object ();
    json_object *sev = json_object_new_object ();
    for (int q = 0; q < c->nprogs; q++) {
        if (!c->beside[q])
            continue;
        struct ns_calib_fig s = ns_calib_ratio (c, p, NS_CALIB_BESIDE, q);
        if (!s.n)
            continue;
        put3 (sl, c->progs[q].name, s.mean);
        json_object_object_add (sev, c->progs[q].name,
                                ns_learned_evidence (s.n, s.se));
        char key[NS_CALIB_NAME_MAX + 16];
        snprintf (key, sizeof (key), "beside %s", c->progs[q].name);
        put3 (secs, key, s.secs);
    }
    if (json_object_object_length (sl)) {
        json_object_object_add (pr, "slowdown", sl);
        json_object_object_add (ev, "slowdown", sev);
    } else {
        json_object_put (sl);
        json_object_put (sev);
    }
}

json_object *ns_calib_figures (const ns_calib_t *c, const char *by)
{
    json_object *root = json_object_new_object ();
    json_object *pj = json_object_new_object ();
    json_object *learned = json_object_new_object ();
    json_object *lp = json_object_new_object ();
    for (int p = 0; p < c->nprogs; p++) {
        json_object *pr = json_object_new_object ();
        json_object *ev = json_object_new_object ();
        json_object *secs = json_object_new_object ();
        int jobs = 0;
        for (int i = 0; i < c->nruns; i++)
            jobs += c->runs[i].p == p;
        prog_figures (c, p, pr, ev, secs);
        if (!jobs) {
            json_object_put (pr);
            json_object_put (ev);
            json_object_put (secs);
            continue;
        }
        json_object_object_add (ev, "jobs", json_object_new_int (jobs));
        json_object_object_add (ev, "seconds", secs);
        json_object_object_add (pj, c->progs[p].name, pr);
        json_object_object_add (lp, c->progs[p].name, ev);
    }
    json_object_object_add (root, "programs", pj);
    json_object_object_add (learned, "by", json_object_new_string (by));
    json_object_object_add (learned, "run", json_object_new_string (c->runid));
    json_object_object_add (learned, "node_cores",
                            json_object_new_int (c->cores));
    json_object_object_add (learned, "packed_nodes",
                            json_object_new_int (c->nodes));
    json_object_object_add (learned, "repeats",
                            json_object_new_int (c->repeats));
    json_object_object_add (learned, "programs", lp);
    json_object_object_add (root, "learned", learned);
    return root;
}

int ns_calib_write (json_object *root, const char *path, ns_error_t *err)
{
    const char *text = json_object_to_json_string_ext (
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
                  | JSON_C_TO_STRING_NOSLASHESCAPE);
    const char *name = path ? path : "-";
    FILE *f = ns_open_out (name, err);
    if (!f)
        return -1;
    fprintf (f, "%s\n", text);
    return ns_close_out (f, path ? path : "stdout", err);
}
