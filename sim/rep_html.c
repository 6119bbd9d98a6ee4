/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rep_html.c - nodeshare-report as one self-contained HTML file
 * (sim/rep.h): inline CSS and SVG charts, no script, nothing fetched;
 * one function per section.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rep.h"
#include "svg.h"

/* An inline chart's <svg> element, WIDTH x HEIGHT pixels. */
static void chart_begin (FILE *f, int width, int height)
{
    struct ns_svg_doc d = {
        .width = width,
        .height = height,
        .viewbox = 1,
        .attrs = "font-family=\"sans-serif\" role=\"img\"",
    };
    ns_svg_begin (f, &d);
}

/* Horizontal bars: labels[i], values[i]; text after each bar. */
static void hbars (FILE *f, const char *title, const char **labels,
                   const double *v, const char **after, int n, int color)
{
    double vmax = 0;
    for (int i = 0; i < n; i++)
        if (v[i] > vmax)
            vmax = v[i];
    if (vmax <= 0)
        vmax = 1;
    int h = 40 + 24 * n;
    chart_begin (f, 640, h);
    fprintf (f, "<title>");
    ns_svg_escape (f, title);
    fprintf (f, "</title>\n<text x=\"0\" y=\"18\" font-size=\"14\" "
             "font-weight=\"bold\">");
    ns_svg_escape (f, title);
    fprintf (f, "</text>\n");
    for (int i = 0; i < n; i++) {
        double y = 32 + 24 * i, w = 300 * v[i] / vmax;
        fprintf (f, "<text x=\"200\" y=\"%.0f\" font-size=\"12\" "
                 "text-anchor=\"end\">", y + 14);
        ns_svg_escape (f, labels[i]);
        fprintf (f, "</text><rect x=\"208\" y=\"%.0f\" width=\"%.1f\" "
                 "height=\"18\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.0f\" "
                 "font-size=\"12\">", y, w < 1 ? 1 : w,
                 ns_svg_color (color >= 0 ? color : i), 214 + w, y + 14);
        ns_svg_escape (f, after[i]);
        fprintf (f, "</text>\n");
    }
    ns_svg_end (f);
}

/* Learned figures with 2 standard errors either side, around 1.0. */
static void figure_chart (FILE *f, const struct ns_rep *r)
{
    struct fig { char label[160]; double v, se; int speedup; } *figs;
    int np = ns_progtab_count (r->lprogs), n = 0, cap = 64;
    figs = malloc (sizeof (*figs) * cap);
    if (!figs)
        return;
    for (int p = 0; p < np; p++) {
        if (!ns_learn_njobs (r->learn, p))
            continue;
        for (int q = -1; q < np; q++) {
            ns_learn_fig_t g = q < 0 ? ns_learn_speedup (r->learn, p)
                                     : ns_learn_slowdown (r->learn, p, q);
            if (!g.learned)
                continue;
            if (n == cap) {
                void *x = realloc (figs, sizeof (*figs) * cap * 2);
                if (!x)
                    break;
                figs = x;
                cap *= 2;
            }
            if (q < 0)
                snprintf (figs[n].label, sizeof (figs[n].label),
                          "%s striped", ns_progtab_name (r->lprogs, p));
            else
                snprintf (figs[n].label, sizeof (figs[n].label),
                          "%s beside %s", ns_progtab_name (r->lprogs, p),
                          ns_progtab_name (r->lprogs, q));
            figs[n].v = g.value;
            figs[n].se = isnan (g.se) ? 0 : g.se;
            figs[n].speedup = q < 0;
            n++;
        }
    }
    if (n == 0) {
        free (figs);
        return;
    }
    double lo = 1, hi = 1;
    for (int i = 0; i < n; i++) {
        if (figs[i].v - 2 * figs[i].se < lo)
            lo = figs[i].v - 2 * figs[i].se;
        if (figs[i].v + 2 * figs[i].se > hi)
            hi = figs[i].v + 2 * figs[i].se;
    }
    lo = floor (lo * 20) / 20;
    hi = ceil (hi * 20) / 20;
    if (hi - lo < 0.1)
        hi = lo + 0.1;
    int h = 70 + 18 * n;
    double x0 = 130, w = 420;
#define X(v) (x0 + w * ((v) - lo) / (hi - lo))
    chart_begin (f, 620, h);
    fprintf (f, "<title>Learned figures</title>\n"
             "<text x=\"0\" y=\"18\" font-size=\"14\" font-weight=\"bold\">"
             "Learned figures, with two standard errors either side"
             "</text>\n");
    double ytop = 36, ybot = 36 + 18 * n;
    for (double t = lo; t <= hi + 1e-9; t += (hi - lo) > 0.6 ? 0.1 : 0.05) {
        fprintf (f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" "
                 "stroke=\"#e5e5e5\"/><text x=\"%.1f\" y=\"%.0f\" "
                 "font-size=\"11\" text-anchor=\"middle\">%.2f</text>\n",
                 X (t), ytop, X (t), ybot, X (t), ybot + 14, t);
    }
    fprintf (f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" "
             "stroke=\"#333\" stroke-dasharray=\"4 3\"/>\n", X (1.0), ytop,
             X (1.0), ybot);
    for (int i = 0; i < n; i++) {
        double y = ytop + 18 * i + 9;
        const char *c = figs[i].speedup ? ns_svg_color (4)
                                        : ns_svg_color (0);
        fprintf (f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" "
                 "text-anchor=\"end\">", x0 - 8, y + 4);
        ns_svg_escape (f, figs[i].label);
        fprintf (f, "</text><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                 "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>"
                 "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\">"
                 "<title>%.3f, se %.4f</title></circle>"
                 "<text x=\"%.1f\" y=\"%.0f\" font-size=\"11\" "
                 "fill=\"#555\">%.3f</text>\n",
                 X (figs[i].v - 2 * figs[i].se), y,
                 X (figs[i].v + 2 * figs[i].se), y, c, X (figs[i].v), y, c,
                 figs[i].v, figs[i].se, X (hi) + 8, y + 4, figs[i].v);
    }
    fprintf (f, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"11\" "
             "text-anchor=\"middle\" fill=\"#555\">green: spread_speedup "
             "(above 1: faster striped); blue: slowdown beside a "
             "program</text>\n", x0 + w / 2, ybot + 32);
#undef X
    ns_svg_end (f);
    free (figs);
}

static const char css[] =
    "body{font-family:sans-serif;max-width:1160px;margin:24px auto;"
    "padding:0 16px;color:#222;line-height:1.4}"
    "h1{font-size:22px;margin-bottom:4px}"
    "h2{font-size:18px;border-bottom:1px solid #ccc;padding-bottom:4px;"
    "margin-top:32px}"
    "p.sub{color:#555;margin-top:0}"
    "table{border-collapse:collapse;margin:8px 0 16px}"
    "th,td{padding:3px 10px;border-bottom:1px solid #e5e5e5;"
    "text-align:right}"
    "th:first-child,td:first-child{text-align:left}"
    "th{background:#f4f4f4}"
    "td.better{color:#1a7f37;font-weight:bold}"
    "td.worse{color:#b42318}"
    "svg{max-width:100%;height:auto;display:block;margin:8px 0}"
    "pre{background:#f6f8fa;padding:12px;overflow:auto;font-size:12px;"
    "border:1px solid #e5e5e5}"
    ".flex{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}"
    ".note{color:#555;font-size:14px}";

static void th_td (FILE *f, const char *tag, const char *s)
{
    fprintf (f, "<%s>", tag);
    ns_xml_text (f, s);
    fprintf (f, "</%s>", tag);
}

/* A two-column table: NAMES[k] and COUNTS[k]. */
static void count_table (FILE *f, const char *head, const char *count_head,
                         const char names[][48], const int64_t *counts,
                         int n)
{
    fprintf (f, "<table>\n<tr><th>%s</th><th>%s</th></tr>\n", head,
             count_head);
    for (int k = 0; k < n; k++) {
        fprintf (f, "<tr>");
        th_td (f, "td", names[k]);
        fprintf (f, "<td>%lld</td></tr>\n", (long long)counts[k]);
    }
    fprintf (f, "</table>\n");
}

/* The head, the style and the heading: dumps, jobs, machine. */
static void head_html (const struct ns_rep *r, FILE *f)
{
    char a[64], b[64];
    ns_rep_fmt_time (a, sizeof (a), r->t_first);
    ns_rep_fmt_time (b, sizeof (b), r->t_last);
    fprintf (f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
             "<meta charset=\"utf-8\">\n<title>nodeshare report</title>\n"
             "<style>%s</style>\n</head>\n<body>\n"
             "<h1>nodeshare report</h1>\n<p class=\"sub\">", css);
    for (int i = 0; i < r->ndumps; i++) {
        ns_xml_text (f, r->dumps[i] == r->spooled ? "stdin" : r->dumps[i]);
        fputs (i + 1 < r->ndumps ? ", " : ": ", f);
    }
    fprintf (f, "%lld jobs from %s to %s UTC, replayed on %d nodes &times; "
             "%d cores. %lld jobs with nodes in the history, %lld completed "
             "(observed), %lld co-tenants only; %lld lines skipped. "
             "Written by " NS_REP_PROG " " PACKAGE_VERSION ".</p>\n",
             (long long)r->njobs, a, b, r->nodes, r->o.cores,
             (long long)r->hist_jobs, (long long)r->observed,
             (long long)r->context, (long long)r->skipped);
}

/* Lines of TEXT (one item a line, malloc'd, freed here) under HEAD as a
 * list. */
static void items_html (FILE *f, const char *head, char *text)
{
    if (!text)
        return;
    fprintf (f, "<h2>%s</h2>\n<ul>\n", head);
    char *save = NULL;
    for (char *l = strtok_r (text, "\n", &save); l;
         l = strtok_r (NULL, "\n", &save)) {
        fprintf (f, "<li>");
        ns_xml_text (f, l);
        fprintf (f, "</li>\n");
    }
    fprintf (f, "</ul>\n");
    free (text);
}

/* 1. Programs by core-hours, table and chart; ORD: ns_rep_prog_order (). */
static void programs_html (const struct ns_rep *r, const int *ord, FILE *f)
{
    fprintf (f, "<h2>1. Programs that run most</h2>\n<p class=\"note\">"
             "Core-hours are AllocCPUS &times; elapsed time. Programs are "
             "job names%s.</p>\n<div class=\"flex\"><table>\n<tr><th>program"
             "</th><th>jobs</th><th>core-hours</th><th>share</th>"
             "<th>mean run</th></tr>\n",
             r->ucfg ? " mapped by the configuration's identity patterns"
                     : "");
    double tot = ns_rep_total_core_s (r);
    const char *labels[12], *after[12];
    char afterbuf[12][64];
    double vals[12];
    int nb = 0;
    for (int i = 0; ord && ord[i] >= 0; i++) {
        const struct ns_rep_prog *p = &r->ps[ord[i]];
        char d[32];
        ns_rep_fmt_dur (d, sizeof (d), p->run_s / p->jobs);
        fprintf (f, "<tr>");
        th_td (f, "td", ns_rep_prog_name (r, ord[i]));
        fprintf (f, "<td>%lld</td><td>%.1f</td><td>%.1f%%</td><td>%s</td>"
                 "</tr>\n", (long long)p->jobs, p->core_s / 3600,
                 100 * p->core_s / tot, d);
        if (nb < 12) {
            labels[nb] = ns_rep_prog_name (r, ord[i]);
            vals[nb] = p->core_s / 3600;
            snprintf (afterbuf[nb], sizeof (afterbuf[nb]), "%.0f (%.0f%%)",
                      vals[nb], 100 * p->core_s / tot);
            after[nb] = afterbuf[nb];
            nb++;
        }
    }
    fprintf (f, "</table>\n");
    hbars (f, "Core-hours by program", labels, vals, after, nb, -1);
    fprintf (f, "</div>\n");
}

/* 2. The figures learned: nodeshare-learn's table, the chart of the
 * figures with their standard errors, the notes. */
static void figures_html (const struct ns_rep *r, FILE *f)
{
    fprintf (f, "<h2>2. Interference figures learned</h2>\n<p class=\"note\">"
             "As nodeshare-learn learns them: a figure needs %d jobs exposed "
             "to it for at least %.0f%% of their run and a standard error "
             "within %g; the others stay neutral (1.0). %d figures learned, "
             "%d left neutral.</p>\n<div class=\"flex\"><table>\n<tr><th>"
             "program</th><th>figure</th><th>value</th><th>standard error"
             "</th><th>jobs</th></tr>\n", r->o.lo.min_observations,
             100 * r->o.lo.min_exposure, r->o.lo.max_se, r->nlearned,
             r->nleft);
    if (r->table) {
        char *save = NULL, *copy = strdup (r->table);
        int first = 1;
        for (char *l = copy ? strtok_r (copy, "\n", &save) : NULL; l;
             l = strtok_r (NULL, "\n", &save)) {
            if (first) {        /* the table's header */
                first = 0;
                continue;
            }
            char p[160], fig[160], v[32], se[32], jobs[32];
            if (sscanf (l, "%159s %159s %31s %31s %31s", p, fig, v, se, jobs)
                != 5)
                continue;
            fprintf (f, "<tr>");
            th_td (f, "td", p);
            th_td (f, "td", fig);
            th_td (f, "td", v);
            th_td (f, "td", strcmp (fig, "runtime") == 0 ? "" : se);
            th_td (f, "td", jobs);
            fprintf (f, "</tr>\n");
        }
        free (copy);
    }
    fprintf (f, "</table>\n");
    figure_chart (f, r);
    fprintf (f, "</div>\n");
    if (r->notes && r->notes_len) {
        fprintf (f, "<p class=\"note\">Left neutral:</p>\n<pre>");
        ns_xml_text (f, r->notes);
        fprintf (f, "</pre>\n");
    }
}

/* 3. The replay's rows, better and worse marked, and its chart. */
static void replay_html (const struct ns_rep *r, FILE *f)
{
    char buf[256];
    fprintf (f, "<h2>3. Replay of the same jobs: pack and %s</h2>\n"
             "<p class=\"note\">Every job is submitted at its recorded time "
             "and runs its recorded elapsed time as work on a full node, "
             "slowed or sped up by the learned figures%s; EASY backfilling; "
             "a job still running at its time limit is killed there. "
             "pack places jobs as stock Slurm (cons_tres) does.</p>\n"
             "<table>\n<tr><th></th>", r->rp[1].name,
             r->ucfg ? " (the configuration's where none was learned)" : "");
    th_td (f, "th", r->rp[0].name);
    th_td (f, "th", r->rp[1].name);
    fprintf (f, "</tr>\n");
    struct ns_rep_row rows[16];
    int n = ns_rep_replay_table (r, rows);
    for (int i = 0; i < n; i++) {
        char va[64], vb[64];
        ns_rep_fmt_val (va, sizeof (va), &rows[i], 0);
        ns_rep_fmt_val (vb, sizeof (vb), &rows[i], 1);
        /* lower is better except throughput, completed, sharing */
        int higher_better = strstr (rows[i].label, "per hour")
                            || strstr (rows[i].label, "completed");
        const char *cls = "";
        if (rows[i].kind != 4 && strstr (rows[i].label, "makespan") == NULL
            && strstr (rows[i].label, "used by") == NULL) {
            double d = rows[i].v[1] - rows[i].v[0];
            double rel = fabs (d) / (fabs (rows[i].v[0]) > 0
                                         ? fabs (rows[i].v[0]) : 1);
            if (rel > 0.005)
                cls = (d > 0) == higher_better ? " class=\"better\""
                                               : " class=\"worse\"";
        }
        fprintf (f, "<tr>");
        th_td (f, "td", rows[i].label);
        fprintf (f, "<td>%s</td><td%s>%s</td></tr>\n", va, cls, vb);
    }
    fprintf (f, "</table>\n");
    {
        char *svg = NULL;
        size_t len = 0;
        FILE *m = open_memstream (&svg, &len);
        if (m) {
            ns_metrics_t mm[2] = { r->rp[0].m, r->rp[1].m };
            snprintf (buf, sizeof (buf), "%lld jobs on %d nodes x %d cores "
                      "(EASY backfill)", (long long)r->njobs, r->nodes,
                      r->o.cores);
            ns_report_svg (m, mm, 2, buf, "pack");
            if (fclose (m) == 0 && svg) {
                /* inline: without the XML declaration */
                const char *s = strstr (svg, "<svg");
                fputs (s ? s : "", f);
            }
            free (svg);
        }
    }
}

/* 4. The jobs placed differently: by rule (table and chart), by
 * program. */
static void differ_html (const struct ns_rep *r, const int *ord, FILE *f)
{
    const char *labels[12], *after[12];
    char afterbuf[12][64];
    double vals[12];
    int nb = 0;
    fprintf (f, "<h2>4. Jobs %s places differently</h2>\n<p>%lld of %lld "
             "jobs (%.1f%%) got another shape or other co-tenants under "
             "%s than under pack in the replay: another shape (nodes and "
             "cores per node) %lld, the same shape next to other programs "
             "%lld, started under one policy only %lld.</p>\n",
             r->rp[1].name, (long long)r->differ, (long long)r->compared,
             r->compared ? 100.0 * r->differ / r->compared : 0.0,
             r->rp[1].name, (long long)r->shape_differ,
             (long long)r->cot_differ, (long long)r->never_differ);
    fprintf (f, "<div class=\"flex\"><table>\n<tr><th>how %s placed them"
             "</th><th>rule</th><th>jobs</th></tr>\n", r->rp[1].name);
    for (int k = 0; k < NS_REP_NRULES; k++) {
        if (!r->rule_n[k])
            continue;
        fprintf (f, "<tr>");
        th_td (f, "td", ns_rep_rule_what (k));
        th_td (f, "td", ns_rule_name (k));
        fprintf (f, "<td>%lld</td></tr>\n", (long long)r->rule_n[k]);
        if (k == NS_RULE_PACK)
            for (int w = 1; w < NS_PACK_KINDS; w++)
                if (r->why_n[w]) {
                    fprintf (f, "<tr><td>&nbsp;&nbsp;");
                    ns_xml_text (f, ns_pack_why_name (w));
                    fprintf (f, "</td><td></td><td>%lld</td></tr>\n",
                             (long long)r->why_n[w]);
                }
        if (nb < 12) {
            labels[nb] = ns_rep_rule_what (k);
            vals[nb] = (double)r->rule_n[k];
            snprintf (afterbuf[nb], sizeof (afterbuf[nb]), "%lld",
                      (long long)r->rule_n[k]);
            after[nb] = afterbuf[nb];
            nb++;
        }
    }
    fprintf (f, "</table>\n");
    if (nb)
        hbars (f, "Jobs placed differently, by how", labels, vals, after,
               nb, 1);
    fprintf (f, "</div>\n<table>\n<tr><th>program</th><th>jobs</th>"
             "<th>placed differently</th><th>share</th></tr>\n");
    for (int i = 0; ord && ord[i] >= 0; i++) {
        const struct ns_rep_prog *p = &r->ps[ord[i]];
        fprintf (f, "<tr>");
        th_td (f, "td", ns_rep_prog_name (r, ord[i]));
        fprintf (f, "<td>%lld</td><td>%lld</td><td>%.1f%%</td></tr>\n",
                 (long long)p->jobs, (long long)p->differ,
                 100.0 * p->differ / p->jobs);
    }
    fprintf (f, "</table>\n");
}

/* 5. The shadow records. */
static void shadow_html (const struct ns_rep *r, FILE *f)
{
    const struct ns_rep_shadow *s = &r->sh;
    fprintf (f, "<h2>5. Shadow records</h2>\n<p>");
    for (int i = 0; i < r->o.nshadow; i++) {
        ns_xml_text (f, r->o.shadow[i]);
        fputs (i + 1 < r->o.nshadow ? ", " : ": ", f);
    }
    fprintf (f, "%lld jobs placed by stock Slurm while nodeshare "
             "recorded its decision; it would have placed %lld of them "
             "(%.1f%%) differently.", (long long)s->records,
             (long long)s->differ,
             s->records ? 100.0 * s->differ / s->records : 0.0);
    ns_rep_shadow_span (f, s, 1);
    fprintf (f, "</p>\n<div class=\"flex\">");
    count_table (f, "rule", "jobs placed differently", s->rules,
                 s->rule_n, s->nrules);
    count_table (f, "would", "jobs", s->woulds, s->would_n, s->nwoulds);
    fprintf (f, "<table>\n<tr><th>program</th><th>jobs</th>"
             "<th>differently</th></tr>\n");
    for (int k = 0; k < s->nprogs; k++) {
        fprintf (f, "<tr>");
        th_td (f, "td", s->progs[k]);
        fprintf (f, "<td>%lld</td><td>%lld</td></tr>\n",
                 (long long)s->prog_n[k], (long long)s->prog_d[k]);
    }
    fprintf (f, "</table></div>\n");
    if (s->first_why[0]) {
        fprintf (f, "<p class=\"note\">For example, job %lld: ",
                 (long long)s->first_why_job);
        ns_xml_text (f, s->first_why);
        fprintf (f, "</p>\n");
    }
}

static void start_html (const struct ns_rep *r, int sec, FILE *f)
{
    fprintf (f, "<h2>%d. nodeshare.json to start with</h2>\n<p class=\"note\">"
             "What nodeshare-learn writes from the same history: the "
             "learned figures under \"programs\", the evidence behind each "
             "under \"learned\". Add the identity patterns and the policy "
             "of your configuration; \"partitions\" (the scope) names "
             "the partitions where the replay shows gains.</p>\n<pre>", sec);
    ns_xml_text (f, r->start);
    fprintf (f, "</pre>\n</body>\n</html>\n");
}

void ns_rep_write_html (const struct ns_rep *r, FILE *f)
{
    static const struct ns_rep_style html = {
        head_html, items_html, programs_html, figures_html, replay_html,
        differ_html, shadow_html, start_html,
    };
    ns_rep_write (r, &html, f);
}
