/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.c - metrics and the table, CSV and SVG reports
 *
 * The SVG is written by hand: a few <rect>, <polyline> and <text>
 * elements.  A plotting library (plplot, gnuplot pipes) would add a large
 * dependency or a run-time program for four simple charts.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "report.h"
#include "svg.h"

/* Rank of the nearest-rank percentile p of n values (0-based). */
static int64_t percentile_rank (int64_t n, double p)
{
    int64_t k = (int64_t)ceil (p * (double)n) - 1;
    if (k < 0)
        k = 0;
    if (k >= n)
        k = n - 1;
    return k;
}

/* Put the value of rank k of v[lo, hi) at v[k], the smaller ones before
 * it and the larger after it (quickselect, three-way: the many equal
 * waits of a trace cost nothing): what a sort would put there, without a
 * sort's scratch copy of the array. */
static void select_rank (double *v, int64_t lo, int64_t hi, int64_t k)
{
    while (hi - lo > 1) {
        double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
        double pivot = a < b ? (b < c ? b : (a < c ? c : a))
                             : (a < c ? a : (b < c ? c : b));
        /* [lo, lt) < pivot, [lt, i) == pivot, (gt, hi) > pivot */
        int64_t lt = lo, i = lo, gt = hi - 1;
        while (i <= gt) {
            double x = v[i];
            if (x < pivot) {
                v[i++] = v[lt];
                v[lt++] = x;
            }
            else if (x > pivot) {
                v[i] = v[gt];
                v[gt--] = x;
            }
            else
                i++;
        }
        if (k < lt)
            hi = lt;
        else if (k > gt)
            lo = gt + 1;
        else
            return;
    }
}

static int counts (const ns_sim_t *sim, double window, int i)
{
    const ns_simresult_t *r = ns_sim_result (sim, i);
    return r->state == NS_SJ_DONE && (window <= 0 || r->end <= window);
}

int ns_metrics_compute (const ns_sim_t *sim, double window, ns_metrics_t *out)
{
    int n = ns_sim_njobs (sim);
    const ns_simstats_t *st = ns_sim_stats (sim);
    double *waits = malloc (sizeof (double) * (n ? n : 1));
    if (!waits)
        return -1;
    double sum_wait = 0, sum_resp = 0, sum_bsld = 0, work = 0;
    int64_t done = 0, shared = 0, over = 0, never = 0, unfinished = 0;
    int64_t killed = 0;
    for (int i = 0; i < n; i++) {
        const ns_simjob_t *j = ns_sim_job (sim, i);
        const ns_simresult_t *r = ns_sim_result (sim, i);
        if (r->state == NS_SJ_NEVER) {
            never++;
            continue;
        }
        if (!counts (sim, window, i)) {
            unfinished++;
            continue;
        }
        double wait = r->start - j->submit;
        double run = r->end - r->start;
        waits[done++] = wait;
        sum_wait += wait;
        sum_resp += wait + run;
        double b = (wait + run) / (run > 10.0 ? run : 10.0);
        sum_bsld += b > 1.0 ? b : 1.0;
        work += j->runtime * j->ntasks;
        shared += r->shared;
        over += r->over_limit;
        killed += r->killed;
    }
    /* The median and the 95th percentile of the waits */
    int64_t k50 = percentile_rank (done, 0.5);
    int64_t k95 = percentile_rank (done, 0.95);
    if (done > 0) {
        select_rank (waits, 0, done, k50);
        select_rank (waits, k50, done, k95);
    }
    double span = window > 0 ? window : st->last_end - st->first_submit;
    if (span <= 0)
        span = 1.0;
    double cores = (double)ns_cluster_total_cores (ns_sim_cluster (sim));
    out->jobs = done;
    out->never = never;
    out->unfinished = unfinished;
    out->makespan_s = span;
    out->utilization = st->busy_core_seconds / (cores * span);
    if (out->utilization > 1.0 && out->utilization < 1.0 + 1e-9)
        out->utilization = 1.0;
    out->utilization_held = st->held_core_seconds / (cores * span);
    if (out->utilization_held > 1.0 && out->utilization_held < 1.0 + 1e-9)
        out->utilization_held = 1.0;
    out->jobs_per_h = done / span * 3600.0;
    out->work_per_h = work / span; /* core-hours per hour */
    out->throughput_ratio = NAN;
    out->mean_wait_s = done ? sum_wait / done : 0;
    out->median_wait_s = done ? waits[k50] : 0.0;
    out->p95_wait_s = done ? waits[k95] : 0.0;
    out->mean_response_s = done ? sum_resp / done : 0;
    out->mean_bsld = done ? sum_bsld / done : 0;
    out->shared_fraction = done ? (double)shared / done : 0;
    out->twin_pairs = st->twin_pairs;
    out->over_limit = over;
    out->killed = killed;
    out->max_cotenants = st->max_cotenants;
    free (waits);
    return 0;
}

void ns_metrics_ratios (ns_metrics_t *m, int n, const char *baseline)
{
    for (int i = 0; i < n; i++) {
        m[i].throughput_ratio = NAN;
        for (int k = 0; k < n; k++)
            if (strcmp (m[k].policy, baseline) == 0
                && m[k].load == m[i].load && m[k].work_per_h > 0)
                m[i].throughput_ratio = m[i].work_per_h / m[k].work_per_h;
    }
}

void ns_timeline_init (ns_timeline_t *tl, double t0, double t1,
                       double total_cores)
{
    memset (tl, 0, sizeof (*tl));
    tl->t0 = t0;
    tl->t1 = t1 > t0 ? t1 : t0 + 1;
    tl->last = t0;
    tl->total_cores = total_cores;
}

/* Merge buckets pairwise into the first half; the span doubles. */
static void timeline_fold (ns_timeline_t *tl)
{
    for (int k = 0; k < NS_TIMELINE_BUCKETS / 2; k++)
        tl->busy[k] = tl->busy[2 * k] + tl->busy[2 * k + 1];
    for (int k = NS_TIMELINE_BUCKETS / 2; k < NS_TIMELINE_BUCKETS; k++)
        tl->busy[k] = 0;
    tl->t1 = tl->t0 + 2 * (tl->t1 - tl->t0);
}

void ns_timeline_hook (double a, double b, int64_t used, void *arg)
{
    ns_timeline_t *tl = arg;
    if (b <= tl->t0 || used == 0)
        return;
    if (a < tl->t0)
        a = tl->t0;
    while (b > tl->t1)
        timeline_fold (tl);
    if (b > tl->last)
        tl->last = b;
    double width = (tl->t1 - tl->t0) / NS_TIMELINE_BUCKETS;
    int k0 = (int)((a - tl->t0) / width);
    for (int k = k0; k < NS_TIMELINE_BUCKETS; k++) {
        double lo = tl->t0 + k * width, hi = lo + width;
        if (lo >= b)
            break;
        double x0 = a > lo ? a : lo, x1 = b < hi ? b : hi;
        if (x1 > x0)
            tl->busy[k] += (double)used * (x1 - x0);
    }
}

void ns_timeline_finish (const ns_timeline_t *tl, ns_metrics_t *m)
{
    double width = (tl->t1 - tl->t0) / NS_TIMELINE_BUCKETS;
    m->t0 = tl->t0;
    m->t1 = tl->t1;
    m->t_end = tl->last;
    for (int k = 0; k < NS_TIMELINE_BUCKETS; k++)
        m->timeline[k] = tl->busy[k] / (tl->total_cores * width);
}

static void fmt_ratio (char *buf, size_t len, double r)
{
    if (isnan (r))
        snprintf (buf, len, "-");
    else
        snprintf (buf, len, "%.3f", r);
}

void ns_report_table (FILE *f, const ns_metrics_t *m, int n)
{
    int closed = n > 0 && m[0].load >= 0;
    fprintf (f, "%-16s %s%8s %10s %6s %6s %7s %10s %10s %8s %7s %6s %6s "
             "%6s\n",
             "policy", closed ? "  load " : "", "jobs", "makespan_h", "held",
             "used", "thr", "wait_s", "p95wait_s", "bsld", "shared", "twins",
             "over", "killed");
    for (int i = 0; i < n; i++) {
        char ratio[16], load[16] = "";
        fmt_ratio (ratio, sizeof (ratio), m[i].throughput_ratio);
        if (closed)
            snprintf (load, sizeof (load), "%5.2f  ", m[i].load);
        fprintf (f, "%-16s %s%8lld %10.1f %6.3f %6.3f %7s %10.0f %10.0f "
                 "%8.2f %6.1f%% %6lld %6lld %6lld\n",
                 m[i].policy, load, (long long)m[i].jobs,
                 m[i].makespan_s / 3600.0, m[i].utilization_held,
                 m[i].utilization, ratio, m[i].mean_wait_s, m[i].p95_wait_s,
                 m[i].mean_bsld, 100.0 * m[i].shared_fraction,
                 (long long)m[i].twin_pairs, (long long)m[i].over_limit,
                 (long long)m[i].killed);
    }
}

void ns_report_csv_header (FILE *f)
{
    fprintf (f, "policy,job,program,procs,submit_s,start_s,end_s,wait_s,"
             "trace_runtime_s,runtime_s,requested_s,nodes,striped,shared,"
             "over_limit,killed,state,node_list,cotenants\n");
}

static void csv_name (FILE *f, const char *s)
{
    if (!strpbrk (s, ",\"\n")) {
        fputs (s, f);
        return;
    }
    fputc ('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc ('"', f);
        fputc (*s, f);
    }
    fputc ('"', f);
}

void ns_report_csv_rows (FILE *f, const ns_sim_t *sim, const char *policy,
                         const ns_progtab_t *progs)
{
    static const char *states[] = { "pending", "queued", "running", "done",
                                    "never" };
    int n = ns_sim_njobs (sim);
    ns_cotenants_t ct = { 0 };
    ns_error_t cterr;
    int have_ct = ns_sim_cotenants (sim, &ct, &cterr) == 0;
    for (int i = 0; i < n; i++) {
        const ns_simjob_t *j = ns_sim_job (sim, i);
        const ns_simresult_t *r = ns_sim_result (sim, i);
        int ran = r->state == NS_SJ_DONE;
        fprintf (f, "%s,%llu,", policy, (unsigned long long)j->id);
        csv_name (f, j->program >= 0 ? ns_progtab_name (progs, j->program)
                                     : "");
        fprintf (f, ",%d,%.0f,", j->ntasks, j->submit);
        if (ran)
            fprintf (f, "%.3f,%.3f,%.3f,", r->start, r->end,
                     r->start - j->submit);
        else
            fprintf (f, ",,,");
        fprintf (f, "%.0f,", j->runtime);
        if (ran)
            fprintf (f, "%.3f,", r->end - r->start);
        else
            fprintf (f, ",");
        if (j->req_time > 0)
            fprintf (f, "%.0f,", j->req_time);
        else
            fprintf (f, ",");
        fprintf (f, "%d,%d,%d,%d,%d,%s,", r->nodes, r->striped, r->shared,
                 r->over_limit, r->killed, states[r->state]);
        /* node_list: index:cores;...  cotenants: programs at its start */
        int ns;
        const ns_share_t *sh = ns_sim_job_shares (sim, i, &ns);
        for (int k = 0; k < ns; k++)
            fprintf (f, "%s%d:%d", k ? ";" : "", sh[k].node, sh[k].cores);
        fputc (',', f);
        if (have_ct) {
            char buf[1024];
            ns_cotenants_format (&ct, i, progs, ";", buf, sizeof (buf));
            csv_name (f, buf);
        }
        fputc ('\n', f);
    }
    ns_cotenants_free (&ct);
}

/* ---- SVG ---- */

typedef double (*getter_f) (const ns_metrics_t *m);

static double get_ratio (const ns_metrics_t *m)
{
    return isnan (m->throughput_ratio) ? 0 : m->throughput_ratio;
}

static double get_wait (const ns_metrics_t *m)
{
    return m->mean_wait_s / 3600.0;
}

static double get_bsld (const ns_metrics_t *m)
{
    return m->mean_bsld;
}

/* Title and value axis of a bar panel; returns the axis maximum. */
static double panel_head (FILE *f, const struct ns_svg_panel *p,
                          const ns_metrics_t *m, int n, getter_f get,
                          const char *title, int decimals)
{
    double vmax = 0;
    for (int i = 0; i < n; i++)
        if (get (&m[i]) > vmax)
            vmax = get (&m[i]);
    vmax = ns_svg_nice_max (vmax);
    ns_svg_text (f, p->x + p->w / 2, p->y - 12, "middle", 14, "bold", title);
    ns_svg_axis_y (f, p, vmax, decimals);
    return vmax;
}

#define MAX_GROUPS 64

/* Index of name in names[0..*n), appended if new (up to MAX_GROUPS). */
static int policy_slot (const char **names, int *n, const char *name)
{
    int k;
    for (k = 0; k < *n && strcmp (names[k], name) != 0; k++)
        ;
    if (k == *n && *n < MAX_GROUPS)
        names[(*n)++] = name;
    return k;
}

static int load_slot (double *loads, int *n, double load)
{
    int k;
    for (k = 0; k < *n && loads[k] != load; k++)
        ;
    if (k == *n && *n < MAX_GROUPS)
        loads[(*n)++] = load;
    return k;
}

static void bars (FILE *f, const struct ns_svg_panel *p, const ns_metrics_t *m,
                  int n, getter_f get, const char *title, int decimals,
                  double ref)
{
    double vmax = panel_head (f, p, m, n, get, title, decimals);
    double slot = p->w / (n ? n : 1);
    for (int i = 0; i < n; i++) {
        double v = get (&m[i]), bh = p->h * v / vmax;
        double x = p->x + slot * i + slot * 0.15;
        char label[96], val[32];
        fprintf (f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                 "height=\"%.1f\" fill=\"%s\"><title>%s: %g</title></rect>\n",
                 x, p->y + p->h - bh, slot * 0.7, bh,
                 ns_svg_color (i), m[i].policy, v);
        snprintf (val, sizeof (val), "%.*f", decimals, v);
        ns_svg_text (f, x + slot * 0.35, p->y + p->h - bh - 4, "middle", 11,
                     "normal", val);
        if (m[i].load >= 0)
            snprintf (label, sizeof (label), "%s@%.2f", m[i].policy,
                      m[i].load);
        else
            snprintf (label, sizeof (label), "%s", m[i].policy);
        ns_svg_text (f, x + slot * 0.35, p->y + p->h + 16, "middle", 11,
                     "normal", label);
    }
    ns_svg_ref_line (f, p, ref, vmax);
}

/* Closed experiments: one group of bars per load, one colour per policy. */
static void grouped_bars (FILE *f, const struct ns_svg_panel *p,
                          const ns_metrics_t *m, int n, getter_f get,
                          const char *title, int decimals, double ref)
{
    double loads[MAX_GROUPS];
    const char *pols[MAX_GROUPS];
    int nl = 0, np = 0;
    for (int i = 0; i < n; i++) {
        load_slot (loads, &nl, m[i].load);
        policy_slot (pols, &np, m[i].policy);
    }
    double vmax = panel_head (f, p, m, n, get, title, decimals);
    double group = p->w / (nl ? nl : 1);
    double bar = group * 0.8 / (np ? np : 1);
    for (int i = 0; i < n; i++) {
        int l = load_slot (loads, &nl, m[i].load);
        int q = policy_slot (pols, &np, m[i].policy);
        double v = get (&m[i]), bh = p->h * v / vmax;
        double x = p->x + group * l + group * 0.1 + bar * q;
        fprintf (f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                 "height=\"%.1f\" fill=\"%s\"><title>%s at load %.2f: "
                 "%g</title></rect>\n", x, p->y + p->h - bh, bar * 0.9, bh,
                 ns_svg_color (q), m[i].policy, m[i].load, v);
    }
    for (int l = 0; l < nl; l++) {
        char label[32];
        snprintf (label, sizeof (label), "load %.2f", loads[l]);
        ns_svg_text (f, p->x + group * (l + 0.5), p->y + p->h + 16, "middle",
                     11, "normal", label);
    }
    ns_svg_ref_line (f, p, ref, vmax);
}

static void policy_legend (FILE *f, double x, double y, const ns_metrics_t *m,
                           int n)
{
    const char *seen[MAX_GROUPS];
    int ns = 0;
    for (int i = 0; i < n; i++) {
        int before = ns;
        int k = policy_slot (seen, &ns, m[i].policy);
        if (ns == before)
            continue;   /* seen before (or no room) */
        double lx = x + (k % 7) * 140, ly = y + (k / 7) * 18;
        fprintf (f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" "
                 "height=\"10\" fill=\"%s\"/>\n", lx, ly - 9,
                 ns_svg_color (k));
        ns_svg_text (f, lx + 16, ly, "start", 12, "normal", m[i].policy);
    }
}

static void timeline (FILE *f, const struct ns_svg_panel *p,
                      const ns_metrics_t *m, int n)
{
    ns_svg_text (f, p->x + p->w / 2, p->y - 12, "middle", 14, "bold",
                 "Utilisation over time (share of cores in use)");
    ns_svg_axis_y (f, p, 1.0, 2);
    /* One time axis for all policies: they end at different times. */
    double span = 1;
    for (int i = 0; i < n; i++)
        if (m[i].t_end - m[i].t0 > span)
            span = m[i].t_end - m[i].t0;
    for (int i = 0; i < n; i++) {
        double x[NS_TIMELINE_BUCKETS], y[NS_TIMELINE_BUCKETS];
        double width = (m[i].t1 - m[i].t0) / NS_TIMELINE_BUCKETS;
        int k;
        for (k = 0; k < NS_TIMELINE_BUCKETS; k++) {
            if (k * width >= m[i].t_end - m[i].t0)
                break;
            double v = m[i].timeline[k] > 1 ? 1 : m[i].timeline[k];
            x[k] = p->x + p->w * (k + 0.5) * width / span;
            y[k] = p->y + p->h - p->h * v;
        }
        ns_svg_polyline (f, ns_svg_color (i), 1.5, x, y, k);
        double lx = p->x + 10 + (i % 4) * (p->w / 4);
        double ly = p->y + p->h + 20 + (i / 4) * 16;
        fprintf (f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"3\" "
                 "fill=\"%s\"/>\n", lx, ly - 4, ns_svg_color (i));
        ns_svg_text (f, lx + 16, ly, "start", 11, "normal", m[i].policy);
    }
    char label[64];
    snprintf (label, sizeof (label), "%.1f h simulated", span / 3600.0);
    ns_svg_text (f, p->x + p->w, p->y + p->h + 56, "end", 11, "normal", label);
}

int ns_report_svg (FILE *f, const ns_metrics_t *m, int n, const char *title,
                   const char *baseline)
{
    char thr[96];
    snprintf (thr, sizeof (thr), "Throughput vs %s (work/h)", baseline);
    int closed = n > 0 && m[0].load >= 0;
    double width = !closed && n > 8 ? 160.0 * n : 1100.0;
    double height = closed ? 420 : 760;
    struct ns_svg_doc doc = {
        .width = width, .height = height, .standalone = 1, .viewbox = 1,
        .attrs = "font-family=\"sans-serif\"", .background = "white",
    };
    ns_svg_begin (f, &doc);
    ns_svg_text (f, width / 2, 26, "middle", 16, "bold", title);
    double pw = (width - 160) / 3;
    struct ns_svg_panel a = { 60, 80, pw - 20, 220 };
    struct ns_svg_panel b = { 60 + pw + 30, 80, pw - 20, 220 };
    struct ns_svg_panel c = { 60 + 2 * (pw + 30), 80, pw - 20, 220 };
    if (closed) {
        grouped_bars (f, &a, m, n, get_ratio, thr, 2, 1.0);
        grouped_bars (f, &b, m, n, get_wait, "Mean wait (hours)", 2, 0);
        grouped_bars (f, &c, m, n, get_bsld, "Mean bounded slowdown", 2, 1.0);
        policy_legend (f, 60, 360, m, n);
    }
    else {
        bars (f, &a, m, n, get_ratio, thr, 2, 1.0);
        bars (f, &b, m, n, get_wait, "Mean wait (hours)", 2, 0);
        bars (f, &c, m, n, get_bsld, "Mean bounded slowdown", 1, 1.0);
    }
    if (!closed) {
        struct ns_svg_panel d = { 60, 400, width - 120, 260 };
        timeline (f, &d, m, n);
    }
    ns_svg_end (f);
    return ferror (f) ? -1 : 0;
}

void ns_xml_text (FILE *f, const char *s)
{
    ns_svg_escape (f, s);
}
