/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sweepmerge.c - a sweep's results merged into a table, JSON and SVG
 * (sim/sweepmerge.h). */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metricsdoc.h"
#include "svg.h"
#include "sweepmerge.h"

static double num (json_object *m, const char *key)
{
    return ns_metricsdoc_num (m, key);
}

static const char *str (json_object *o, const char *key)
{
    return ns_metricsdoc_str (o, key);
}

int ns_sweep_merged_init (ns_sweep_merged_t *mg, const ns_sweep_t *sw,
                          const char *file)
{
    int n = sw->ncells;
    memset (mg, 0, sizeof (*mg));
    mg->sw = sw;
    mg->file = file;
    mg->n = n;
    mg->state = calloc (n ? n : 1, sizeof (int));
    mg->result = calloc (n ? n : 1, sizeof (json_object *));
    mg->error = calloc (n ? n : 1, sizeof (char *));
    mg->cells = calloc (n ? n : 1, sizeof (ns_sweep_cell_t));
    if (!mg->state || !mg->result || !mg->error || !mg->cells) {
        ns_sweep_merged_free (mg);
        errno = ENOMEM;
        return -1;
    }
    for (int i = 0; i < n; i++) {
        ns_sweep_cell (sw, i, &mg->cells[i]);
        mg->state[i] = NS_CELL_MISSING;
    }
    mg->missing = n;
    return 0;
}

void ns_sweep_merged_done (ns_sweep_merged_t *mg, int i, json_object *result)
{
    mg->result[i] = result;
    mg->state[i] = NS_CELL_DONE;
    mg->done++;
    mg->missing--;
    int np = ns_metricsdoc_npolicies (result);
    for (int k = 0; k < np; k++) {
        const char *name = str (ns_metricsdoc_policy (result, k), "policy");
        int j = 0;
        while (name && j < mg->npolicies
               && strcmp (mg->policies[j], name) != 0)
            j++;
        if (name && j == mg->npolicies && j < NS_SWEEP_MERGE_POLICIES)
            mg->policies[mg->npolicies++] = name;
    }
}

void ns_sweep_merged_failed (ns_sweep_merged_t *mg, int i, char *error)
{
    error[strcspn (error, "\n")] = '\0';
    mg->error[i] = error;
    mg->state[i] = NS_CELL_FAILED;
    mg->failed++;
    mg->missing--;
}

void ns_sweep_merged_free (ns_sweep_merged_t *mg)
{
    for (int i = 0; mg->result && mg->error && i < mg->n; i++) {
        json_object_put (mg->result[i]);
        free (mg->error[i]);
    }
    free (mg->state);
    free (mg->result);
    free (mg->error);
    free (mg->cells);
}

static void fmt_ratio (char *buf, size_t len, double r)
{
    if (isnan (r))
        snprintf (buf, len, "-");
    else
        snprintf (buf, len, "%.3f", r);
}

/* The runs of the cells done, one per call, in the order of the cells
 * and of their policies: *i the cell, *k the policy (begin with 0 and
 * -1).  NULL after the last. */
static json_object *next_run (const ns_sweep_merged_t *mg, int *i, int *k)
{
    for (; *i < mg->n; ++*i, *k = -1)
        if (mg->state[*i] == NS_CELL_DONE
            && ++*k < ns_metricsdoc_npolicies (mg->result[*i]))
            return ns_metricsdoc_policy (mg->result[*i], *k);
    return NULL;
}

/* The merged table: one row per cell and policy, then the cells without
 * results.  Nothing in it depends on where or when cells ran. */
char *ns_sweep_merged_table (const ns_sweep_merged_t *mg)
{
    const ns_sweep_t *sw = mg->sw;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);
    if (!f)
        return NULL;
    fprintf (f, "sweep: %d cell%s (%d trace%s x %d machine%s", sw->ncells,
             sw->ncells == 1 ? "" : "s", sw->ntraces,
             sw->ntraces == 1 ? "" : "s", sw->nmachines,
             sw->nmachines == 1 ? "" : "s");
    for (int k = 0; k < sw->nvary; k++)
        fprintf (f, " x %d value%s of %s", sw->vary[k].nvalues,
                 sw->vary[k].nvalues == 1 ? "" : "s", sw->vary[k].key);
    fprintf (f, "): %d done, %d failed, %d not run\n", mg->done, mg->failed,
             mg->missing);
    const char *baseline = NULL;
    int width = 4;
    for (int i = 0; i < mg->n; i++) {
        int l = (int)strlen (mg->cells[i].name);
        if (l > width)
            width = l;
        if (mg->state[i] == NS_CELL_DONE && !baseline)
            baseline = ns_metricsdoc_baseline (mg->result[i]);
    }
    if (baseline)
        fprintf (f, "thr: work per hour relative to %s in the same cell\n",
                 baseline);
    fprintf (f, "%-*s %-16s %8s %10s %6s %6s %7s %10s %10s %8s %7s %6s\n",
             width, "cell", "policy", "jobs", "makespan_h", "held", "used",
             "thr", "wait_s", "p95wait_s", "bsld", "shared", "killed");
    json_object *m;
    for (int i = 0, k = -1; (m = next_run (mg, &i, &k)) != NULL;) {
        char ratio[16];
        const char *name = str (m, "policy");
        fmt_ratio (ratio, sizeof (ratio), num (m, "throughput_ratio"));
        fprintf (f, "%-*s %-16s %8.0f %10.1f %6.3f %6.3f %7s %10.0f "
                 "%10.0f %8.2f %6.1f%% %6.0f\n",
                 width, mg->cells[i].name, name ? name : "?",
                 num (m, "jobs"), num (m, "makespan_s") / 3600.0,
                 num (m, "utilization_held"), num (m, "utilization"),
                 ratio, num (m, "mean_wait_s"), num (m, "p95_wait_s"),
                 num (m, "mean_bsld"), 100.0 * num (m, "shared_fraction"),
                 num (m, "killed"));
    }
    for (int i = 0; i < mg->n; i++)
        if (mg->state[i] == NS_CELL_FAILED)
            fprintf (f, "FAILED  %s: %s\n", mg->cells[i].name, mg->error[i]);
    for (int i = 0; i < mg->n; i++)
        if (mg->state[i] == NS_CELL_MISSING)
            fprintf (f, "NOT RUN %s\n", mg->cells[i].name);
    if (fclose (f) != 0) {
        free (buf);
        return NULL;
    }
    return buf;
}

json_object *ns_sweep_merged_json (const ns_sweep_merged_t *mg)
{
    static const char *const names[] = { "done", "failed", "not run" };
    const ns_sweep_t *sw = mg->sw;
    json_object *root = json_object_new_object ();
    json_object_object_add (root, "sweep", json_object_new_string (mg->file));
    json_object_object_add (root, "cells", json_object_new_int (sw->ncells));
    json_object_object_add (root, "done", json_object_new_int (mg->done));
    json_object_object_add (root, "failed", json_object_new_int (mg->failed));
    json_object_object_add (root, "not_run", json_object_new_int (
                                mg->missing));
    json_object *arr = json_object_new_array ();
    for (int i = 0; i < mg->n; i++) {
        const ns_sweep_cell_t *c = &mg->cells[i];
        json_object *o;
        if (mg->state[i] == NS_CELL_DONE) {
            o = json_object_get (mg->result[i]);
        }
        else {
            /* what a result's "cell" says, without the runs */
            o = json_object_new_object ();
            json_object_object_add (o, "cell",
                                    ns_sweep_cell_json (sw, c, NULL, 0));
        }
        json_object_object_add (o, "status", json_object_new_string (
                                    names[mg->state[i]]));
        if (mg->state[i] == NS_CELL_FAILED)
            json_object_object_add (o, "error", json_object_new_string (
                                        mg->error[i]));
        json_object_array_add (arr, o);
    }
    json_object_object_add (root, "results", arr);
    return root;
}

/* One metric of every policy in every cell as grouped bars. */
static void svg_panel (FILE *f, const ns_sweep_merged_t *mg, const char *key,
                       const char *title, double scale, double y0, int width,
                       int group)
{
    const double h = 160, left = 60;
    double top = 0;
    json_object *run;
    for (int i = 0, k = -1; (run = next_run (mg, &i, &k)) != NULL;) {
        double v = num (run, key) * scale;
        if (isfinite (v) && v > top)
            top = v;
    }
    if (top <= 0)
        top = 1;
    fprintf (f, "<text x=\"%g\" y=\"%g\" font-weight=\"bold\">", left,
             y0 + 16);
    ns_svg_escape (f, title);
    fprintf (f, "</text>\n");
    double base = y0 + 30 + h;
    fprintf (f, "<line x1=\"%g\" y1=\"%g\" x2=\"%d\" y2=\"%g\" "
             "stroke=\"#000\"/>\n", left, base, width - 10, base);
    fprintf (f, "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">%.3g</text>\n",
             left - 4, y0 + 34, top);
    fprintf (f, "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">0</text>\n",
             left - 4, base);
    int bar = 8;
    for (int i = 0; i < mg->n; i++) {
        double gx = left + 10 + (double)i * group;
        fprintf (f, "<text x=\"%g\" y=\"%g\" font-size=\"10\">%d</text>\n",
                 gx, base + 12, i);
        if (mg->state[i] != NS_CELL_DONE) {
            fprintf (f, "<text x=\"%g\" y=\"%g\" font-size=\"10\" "
                     "fill=\"#c00\">%s</text>\n", gx, base - 4,
                     mg->state[i] == NS_CELL_FAILED ? "failed" : "not run");
            continue;
        }
        int np = ns_metricsdoc_npolicies (mg->result[i]);
        for (int k = 0; k < np; k++) {
            json_object *m = ns_metricsdoc_policy (mg->result[i], k);
            double v = num (m, key) * scale;
            const char *name = str (m, "policy");
            int p = 0;
            while (name && p < mg->npolicies
                   && strcmp (mg->policies[p], name) != 0)
                p++;
            if (!isfinite (v) || v < 0)
                continue;
            double bh = v / top * h;
            fprintf (f, "<rect x=\"%g\" y=\"%g\" width=\"%d\" height=\"%g\" "
                     "fill=\"%s\"><title>", gx + p * bar, base - bh, bar - 1,
                     bh, ns_svg_color (p));
            ns_svg_escape (f, mg->cells[i].name);
            fprintf (f, " %s: %.4g</title></rect>\n", name ? name : "?", v);
        }
    }
}

char *ns_sweep_merged_svg (const ns_sweep_merged_t *mg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);
    if (!f)
        return NULL;
    int np = mg->npolicies ? mg->npolicies : 1;
    int group = np * 8 + 14;
    int width = 80 + mg->n * group;
    if (width < 640)
        width = 640;
    int panels = 3, ph = 210;
    int listy = 40 + panels * ph + 20;
    int height = listy + 16 * (mg->n + 1) + 10;
    struct ns_svg_doc doc = {
        .width = width, .height = height, .standalone = 1,
        .attrs = "font-family=\"sans-serif\" font-size=\"12\"",
        .background = "#fff",
    };
    ns_svg_begin (f, &doc);
    fprintf (f, "<text x=\"10\" y=\"18\" font-size=\"14\" "
             "font-weight=\"bold\">Sweep: %d cells, %d done, %d failed, %d "
             "not run</text>\n", mg->n, mg->done, mg->failed, mg->missing);
    double lx = 10;
    for (int p = 0; p < mg->npolicies; p++) {
        fprintf (f, "<rect x=\"%g\" y=\"26\" width=\"10\" height=\"10\" "
                 "fill=\"%s\"/><text x=\"%g\" y=\"35\">", lx, ns_svg_color (p),
                 lx + 14);
        ns_svg_escape (f, mg->policies[p]);
        fprintf (f, "</text>\n");
        lx += 24 + 7 * (double)strlen (mg->policies[p]);
    }
    svg_panel (f, mg, "throughput_ratio", "Throughput relative to the "
               "baseline", 1, 40, width, group);
    svg_panel (f, mg, "mean_wait_s", "Mean wait (h)", 1 / 3600.0, 40 + ph,
               width, group);
    svg_panel (f, mg, "mean_bsld", "Mean bounded slowdown", 1, 40 + 2 * ph,
               width, group);
    fprintf (f, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">Cells</text>\n",
             listy);
    for (int i = 0; i < mg->n; i++) {
        fprintf (f, "<text x=\"10\" y=\"%d\" font-size=\"11\">%d: ",
                 listy + 16 * (i + 1), i);
        ns_svg_escape (f, mg->cells[i].name);
        fprintf (f, "</text>\n");
    }
    ns_svg_end (f);
    if (fclose (f) != 0) {
        free (buf);
        return NULL;
    }
    return buf;
}


json_object *ns_sweep_cell_json (const ns_sweep_t *sw,
                                 const ns_sweep_cell_t *c, const char *key,
                                 int full)
{
    const ns_sweep_machine_t *m = &sw->machines[c->machine];
    json_object *cell = json_object_new_object ();
    if (!cell)
        return NULL;
    json_object_object_add (cell, "index", json_object_new_int (c->index));
    json_object_object_add (cell, "name", json_object_new_string (c->name));
    if (full)
        json_object_object_add (cell, "key", json_object_new_string (
                                    key ? key : ""));
    json_object_object_add (cell, "trace", json_object_new_string (
                                sw->traces[c->trace].raw));
    if (full) {
        json_object *mo = json_object_new_object ();
        json_object_object_add (mo, "name",
                                json_object_new_string (m->label));
        if (m->slurm_conf_raw)
            json_object_object_add (mo, "slurm_conf", json_object_new_string (
                                        m->slurm_conf_raw));
        else if (m->nodes) {
            json_object_object_add (mo, "nodes",
                                    json_object_new_int (m->nodes));
            json_object_object_add (mo, "cores",
                                    json_object_new_int (m->cores));
        }
        json_object_object_add (cell, "machine", mo);
    }
    else
        json_object_object_add (cell, "machine",
                                json_object_new_string (m->label));
    json_object *vo = json_object_new_object ();
    for (int k = 0; k < sw->nvary; k++)
        json_object_object_add (vo, sw->vary[k].key, json_tokener_parse (
            sw->vary[k].values[c->vary_value[k]]));
    json_object_object_add (cell, "vary", vo);
    return cell;
}
