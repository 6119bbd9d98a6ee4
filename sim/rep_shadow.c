/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rep_shadow.c - the select plugin's shadow records for nodeshare-report
 * (sim/rep.h): every --shadow file or pattern with its rotated files,
 * oldest first, each read once; the records counted by rule, decision
 * and program, and what rotation dropped.
 */
#include "config.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rep.h"

#define MAX_SHADOW_FILES 4096

static int slot (char (*names)[48], int64_t *counts, int *n, int max,
                 const char *name)
{
    int k;
    for (k = 0; k < *n && strcmp (names[k], name) != 0; k++)
        ;
    if (k == *n) {
        if (*n == max)
            k = max - 1;     /* the last slot gathers the rest */
        else {
            snprintf (names[k], 48, "%.47s", name);
            (*n)++;
        }
    }
    counts[k]++;
    return k;
}

static int shadow_rec (const ns_shadow_rec_t *rec, int64_t line, void *arg,
                       ns_error_t *err)
{
    struct ns_rep_shadow *s = arg;
    (void)line;
    (void)err;
    if (rec->dropped[0]) {
        s->dropped_files++;
        if (rec->dropped_records > 0)
            s->dropped_records += rec->dropped_records;
        if (rec->dropped_last > s->dropped_last)
            s->dropped_last = rec->dropped_last;
        return 0;
    }
    s->records++;
    if (rec->time >= 0) {
        if (s->first_time < 0 || rec->time < s->first_time)
            s->first_time = rec->time;
        if (rec->time > s->last_time)
            s->last_time = rec->time;
    }
    int k;
    const char *pn = rec->program[0] ? rec->program : "?";
    for (k = 0; k < s->nprogs && strcmp (s->progs[k], pn) != 0; k++)
        ;
    if (k == s->nprogs) {
        if (s->nprogs == 64)
            k = 63;
        else
            snprintf (s->progs[s->nprogs++], NS_SHADOW_TEXT_MAX, "%s", pn);
    }
    s->prog_n[k]++;
    if (!rec->differs)
        return 0;
    s->differ++;
    s->prog_d[k]++;
    slot (s->rules, s->rule_n, &s->nrules, 32,
          rec->rule[0] ? rec->rule : "?");
    slot (s->woulds, s->would_n, &s->nwoulds, 32,
          rec->would[0] ? rec->would : "?");
    if (!s->first_why[0] && rec->why[0]) {
        snprintf (s->first_why, sizeof (s->first_why), "%s", rec->why);
        s->first_why_job = rec->job;
    }
    return 0;
}

/* Oldest first: the highest rotation number first, live files last. */
static int cmp_rotated (const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    int nx = ns_shadow_rotated_number (x), ny = ns_shadow_rotated_number (y);
    return nx != ny ? (nx < ny) - (nx > ny) : strcmp (x, y);
}

/* A --shadow argument with a pattern ('*', '?', '[': quoted, so that
 * the shell leaves it) as the files it matches, oldest first; without
 * one, itself.  The count, or -1 (nothing matches: said). */
static int shadow_args (struct ns_rep *r, const char *arg, glob_t *g,
                        char ***out)
{
    static char *one[1];
    if (!strpbrk (arg, "*?[")) {
        one[0] = (char *)arg;
        *out = one;
        return 1;
    }
    int e = glob (arg, 0, NULL, g);
    if (e == GLOB_NOMATCH)
        return ns_rep_errf (r, "--shadow '%s': no file matches", arg);
    if (e != 0)
        return ns_rep_errf (r, "--shadow '%s': %s", arg, e == GLOB_NOSPACE
                            ? "out of memory" : "a directory cannot be read");
    qsort (g->gl_pathv, g->gl_pathc, sizeof (char *), cmp_rotated);
    *out = g->gl_pathv;
    return (int)g->gl_pathc;
}

struct seen {
    char *name[MAX_SHADOW_FILES];
    int n;
};

/* One file and its rotated ones, each unless seen already. */
static int read_shadow_file (struct ns_rep *r, const char *path,
                             struct seen *sn)
{
    ns_error_t err;
    char **files = NULL;
    int n = ns_shadow_files (path, &files, &err), rc = 0;
    if (n < 0)
        return ns_rep_errf (r, "%s", err.text);
    for (int k = 0; k < n && rc == 0; k++) {
        int dup = 0;
        for (int j = 0; j < sn->n && !dup; j++)
            dup = strcmp (sn->name[j], files[k]) == 0;
        if (dup)
            continue;
        if (sn->n == MAX_SHADOW_FILES)
            rc = ns_rep_errf (r, "--shadow: more than %d files",
                              MAX_SHADOW_FILES);
        else if (!(sn->name[sn->n++] = strdup (files[k])))
            rc = ns_rep_errf (r, "out of memory");
        else {
            ns_rep_progress_line (r, "%s: reading the shadow records",
                                  files[k]);
            if (ns_shadow_read (files[k], shadow_rec, &r->sh, &err) < 0)
                rc = ns_rep_errf (r, "%s", err.text);
        }
    }
    ns_shadow_files_free (files, n);
    return rc;
}

/* Every --shadow FILE (or pattern) with its rotated files, oldest
 * first; a file named twice (FILE and FILE.1.gz both given) is read
 * once. */
int ns_rep_read_shadow (struct ns_rep *r)
{
    r->sh.first_time = -1;
    r->sh.last_time = -1;
    r->sh.dropped_last = -1;
    struct seen *sn = calloc (1, sizeof (*sn));
    if (!sn)
        return ns_rep_errf (r, "out of memory");
    int rc = 0;
    for (int a = 0; a < r->o.nshadow && rc == 0; a++) {
        glob_t g;
        memset (&g, 0, sizeof (g));
        char **args = NULL;
        int nargs = shadow_args (r, r->o.shadow[a], &g, &args);
        if (nargs < 0)
            rc = -1;
        for (int i = 0; i < nargs && rc == 0; i++)
            rc = read_shadow_file (r, args[i], sn);
        if (args && args == g.gl_pathv)
            globfree (&g);
    }
    r->sh.nfiles = sn->n;
    for (int j = 0; j < sn->n; j++)
        free (sn->name[j]);
    free (sn);
    return rc;
}

void ns_rep_shadow_span (FILE *f, const struct ns_rep_shadow *s, int html)
{
    char a[64], b[64], what[128];
    if (s->first_time >= 0) {
        ns_rep_fmt_time (a, sizeof (a), (double)s->first_time);
        ns_rep_fmt_time (b, sizeof (b), (double)s->last_time);
        if (html)
            fprintf (f, " From %s to %s UTC.", a, b);
        else
            fprintf (f, "  from %s to %s UTC\n", a, b);
    }
    if (!s->dropped_files)
        return;
    ns_rep_fmt_time (a, sizeof (a), (double)s->dropped_last);
    snprintf (what, sizeof (what), "%lld records in %lld file%s",
              (long long)s->dropped_records, (long long)s->dropped_files,
              s->dropped_files == 1 ? "" : "s");
    if (html)
        fprintf (f, " Records before %s UTC were dropped by rotation (%s).",
                 a, what);
    else
        fprintf (f, "  records before %s UTC were dropped by rotation: %s\n",
                 a, what);
}
