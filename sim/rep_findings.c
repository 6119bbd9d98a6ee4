/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rep_findings.c - what nodeshare-report's text and HTML both say
 * (sim/rep.h): the programs by core-hours, the replay's rows, the
 * findings in short, what to act on before enabling (the change with its
 * uncertainty, node failures, calibration, scope) and the nodeshare.json
 * to start with.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rep.h"

#define HOURS_PER_YEAR 8766.0

const char *ns_rep_rule_what (int rule)
{
    switch (rule) {
    case NS_RULE_EXCLUSIVE: return "alone on whole nodes";
    case NS_RULE_STRIPE_EMPTY: return "striped over empty nodes";
    case NS_RULE_STRIPE_SHARE: return "striped next to a running job";
    case NS_RULE_AS_ASKED: return "its own shape, as asked";
    case NS_RULE_FALLBACK: return "packed after waiting (fallback)";
    case NS_RULE_PACK: return "packed as stock Slurm packs it";
    default: return "never started";
    }
}

const char *ns_rep_prog_name (const struct ns_rep *r, int p)
{
    return p < r->nps - 1 ? ns_progtab_name (r->rprogs, p) : "(no name)";
}

static const struct ns_rep *order_rep;     /* prog_order ()'s sort */

static int cmp_ps_desc (const void *a, const void *b)
{
    const struct ns_rep *r = order_rep;
    double x = r->ps[*(const int *)a].core_s;
    double y = r->ps[*(const int *)b].core_s;
    return x < y ? 1 : x > y ? -1 : *(const int *)a - *(const int *)b;
}

int *ns_rep_prog_order (const struct ns_rep *r)
{
    int *ord = malloc (sizeof (int) * ((size_t)r->nps + 1));
    if (!ord)
        return NULL;
    int n = 0;
    for (int i = 0; i < r->nps; i++)
        if (r->ps[i].jobs)
            ord[n++] = i;
    order_rep = r;
    qsort (ord, (size_t)n, sizeof (int), cmp_ps_desc);
    ord[n] = -1;
    return ord;
}

double ns_rep_total_core_s (const struct ns_rep *r)
{
    double t = 0;
    for (int i = 0; i < r->nps; i++)
        t += r->ps[i].core_s;
    return t > 0 ? t : 1;
}

void ns_rep_fmt_time (char *buf, size_t size, double t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r (&tt, &tm);
    strftime (buf, size, "%Y-%m-%d %H:%M", &tm);
}

void ns_rep_fmt_dur (char *buf, size_t size, double s)
{
    if (s < 120)
        snprintf (buf, size, "%.0f s", s);
    else if (s < 7200)
        snprintf (buf, size, "%.1f min", s / 60);
    else
        snprintf (buf, size, "%.2f h", s / 3600);
}

int ns_rep_replay_table (const struct ns_rep *r,
                         struct ns_rep_row *rows)
{
    const ns_metrics_t *a = &r->rp[0].m, *b = &r->rp[1].m;
    int n = 0;
#define ROW(label, kind, x, y) \
    rows[n++] = (struct ns_rep_row){ label, { (double)(x), (double)(y) }, \
                                     kind }
    ROW ("jobs completed", 2, a->jobs, b->jobs);
    ROW ("mean wait", 0, a->mean_wait_s, b->mean_wait_s);
    ROW ("median wait", 0, a->median_wait_s, b->median_wait_s);
    ROW ("95th percentile wait", 0, a->p95_wait_s, b->p95_wait_s);
    ROW ("mean bounded slowdown", 1, a->mean_bsld, b->mean_bsld);
    ROW ("core-hours held", 3, r->rp[0].held_core_h, r->rp[1].held_core_h);
    ROW ("core-hours used by tasks", 3, r->rp[0].busy_core_h,
         r->rp[1].busy_core_h);
    ROW ("makespan", 0, a->makespan_s, b->makespan_s);
    ROW ("work per hour vs pack", 1,
         isnan (a->throughput_ratio) ? 1.0 : a->throughput_ratio,
         isnan (b->throughput_ratio) ? 1.0 : b->throughput_ratio);
    ROW ("jobs sharing a node", 4, a->shared_fraction, b->shared_fraction);
    ROW ("jobs killed at their limit", 2, a->killed, b->killed);
    ROW ("jobs never fitting", 2, a->never, b->never);
#undef ROW
    return n;
}

void ns_rep_fmt_val (char *buf, size_t size, const struct ns_rep_row *w,
                     int k)
{
    double v = w->v[k];
    switch (w->kind) {
    case 0: ns_rep_fmt_dur (buf, size, v); break;
    case 1: snprintf (buf, size, "%.2f", v); break;
    case 2: snprintf (buf, size, "%.0f", v); break;
    case 3: snprintf (buf, size, "%.1f", v); break;
    default: snprintf (buf, size, "%.1f%%", 100 * v); break;
    }
}

static double pct_change (double from, double to)
{
    return from != 0 ? 100.0 * (to - from) / from : 0.0;
}

/* What fn writes of r, as a malloc'd string; NULL out of memory. */
static char *as_text (const struct ns_rep *r,
                      void (*fn) (const struct ns_rep *, FILE *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);
    if (!f)
        return NULL;
    fn (r, f);
    if (fclose (f) != 0) {
        free (buf);
        return NULL;
    }
    return buf;
}

static void summary (const struct ns_rep *r, FILE *f)
{
    const ns_metrics_t *a = &r->rp[0].m, *b = &r->rp[1].m;
    const char *pol = r->rp[1].name;
    char wa[32], wb[32];
    ns_rep_fmt_dur (wa, sizeof (wa), a->mean_wait_s);
    ns_rep_fmt_dur (wb, sizeof (wb), b->mean_wait_s);
    int *ord = ns_rep_prog_order (r);
    if (ord && ord[0] >= 0)
        fprintf (f, "%s holds the most core-hours (%.0f%% of %.1f).\n",
                 ns_rep_prog_name (r, ord[0]), 100 * r->ps[ord[0]].core_s
                 / ns_rep_total_core_s (r), ns_rep_total_core_s (r) / 3600);
    free (ord);
    fprintf (f, "%d interference figures learned from %lld completed jobs, "
             "%d left neutral for want of evidence.\n", r->nlearned,
             (long long)r->observed, r->nleft);
    char dw[32] = "", dh[32] = "";
    if (a->mean_wait_s > 0)
        snprintf (dw, sizeof (dw), ", %+.0f%%",
                  pct_change (a->mean_wait_s, b->mean_wait_s));
    if (r->rp[0].held_core_h > 0)
        snprintf (dh, sizeof (dh), ", %+.1f%%",
                  pct_change (r->rp[0].held_core_h, r->rp[1].held_core_h));
    fprintf (f, "Replayed under %s: mean wait %s (pack %s%s), mean bounded "
             "slowdown %.2f (pack %.2f), core-hours held %.1f (pack %.1f%s), "
             "%lld jobs killed at their limit (pack %lld).\n", pol, wb, wa,
             dw, b->mean_bsld, a->mean_bsld, r->rp[1].held_core_h,
             r->rp[0].held_core_h, dh, (long long)b->killed,
             (long long)a->killed);
    fprintf (f, "%s places %lld of %lld jobs (%.1f%%) otherwise than pack.\n",
             pol, (long long)r->differ, (long long)r->compared,
             r->compared ? 100.0 * r->differ / r->compared : 0.0);
    if (r->o.nshadow)
        fprintf (f, "In shadow mode nodeshare would have placed %lld of %lld "
                 "jobs (%.1f%%) otherwise than stock Slurm did.\n",
                 (long long)r->sh.differ, (long long)r->sh.records,
                 r->sh.records ? 100.0 * r->sh.differ / r->sh.records : 0.0);
}

/* The findings in a few sentences, one per line. */
char *ns_rep_summary (const struct ns_rep *r)
{
    return as_text (r, summary);
}

/* Partition i shows a gain: fewer core-hours held under the policy and
 * no longer mean turnaround. */
static int part_gains (const struct ns_rep *r, int i)
{
    const struct ns_rep_part *p = &r->parts[i];
    return p->jobs > 0 && p->core_h[1] < p->core_h[0] * (1 - 1e-3)
           && p->turn_s[1] <= p->turn_s[0] * (1 + 1e-3);
}

static int ngains (const struct ns_rep *r)
{
    int n = 0;
    for (int i = 0; i < r->npnames; i++)
        n += part_gains (r, i);
    return n;
}

/* What nodeshare-learn writes, with the scope to start with: the
 * partitions where the replay shows gains; none: shadow mode. */
json_object *ns_rep_start_config (const struct ns_rep *r)
{
    json_object *root = NULL;
    if (ns_rep_copy_json (r->learned, &root) < 0 || !root)
        return NULL;
    if (r->npnames == 0)
        return root;
    if (ngains (r) == 0) {
        json_object_object_add (root, "mode",
                                json_object_new_string ("shadow"));
        return root;
    }
    json_object *a = json_object_new_array ();
    for (int i = 0; i < r->npnames; i++)
        if (part_gains (r, i))
            json_object_array_add (a, json_object_new_string (r->pnames[i]));
    json_object_object_add (root, "partitions", a);
    return root;
}

/* Is a spread_speedup of program NAME given in --config (measured by
 * nodeshare-calibrate, or written by hand)?  Such a program needs no
 * calibration. */
static int given_speedup (const struct ns_rep *r, const char *name)
{
    if (!r->ucfg)
        return 0;
    int p = ns_progtab_lookup (ns_config_progtab (r->ucfg), name);
    return p >= 0 && ns_interf_given_speedup (ns_config_interf (r->ucfg), p);
}

static int given_speedups (const struct ns_rep *r)
{
    if (!r->ucfg)
        return 0;
    const ns_progtab_t *pt = ns_config_progtab (r->ucfg);
    for (int p = 0; p < ns_progtab_count (pt); p++)
        if (ns_interf_given_speedup (ns_config_interf (r->ucfg), p))
            return 1;
    return 0;
}

/* Expected jobs a year hit by a node failure because striping spans
 * more nodes; *how says where the rate came from.  -1: no rate. */
static double failures_a_year (const struct ns_rep *r, char *how,
                               size_t size, int *upper)
{
    double span_h = (r->t_last - r->t_first) / 3600;
    double lambda;
    *upper = 0;
    if (span_h <= 0)
        return -1;
    if (r->o.fail_per_year >= 0) {
        lambda = r->o.fail_per_year / HOURS_PER_YEAR;
        snprintf (how, size, "%g failures per node a year (given)",
                  r->o.fail_per_year);
    } else if (r->node_h > 0 && r->nf.jobs > 0 && r->nf.node_fail > 0) {
        lambda = (double)r->nf.node_fail / r->node_h;
        snprintf (how, size, "%lld NODE_FAIL jobs in %.0f node-hours of "
                  "jobs in the dumps, %.2f per node a year",
                  (long long)r->nf.node_fail, r->node_h,
                  lambda * HOURS_PER_YEAR);
    } else if (r->node_h >= HOURS_PER_YEAR && r->nf.jobs > 0) {
        /* none seen: the 95% upper bound (rule of three), from a node-year
         * of jobs on; below that the bound says nothing */
        lambda = 3.0 / r->node_h;
        *upper = 1;
        snprintf (how, size, "no NODE_FAIL job in %.0f node-hours of jobs "
                  "in the dumps: at most %.2f per node a year (95%%)",
                  r->node_h, lambda * HOURS_PER_YEAR);
    } else
        return -1;
    return r->extra_node_h * lambda * HOURS_PER_YEAR / span_h;
}

static int same_str (const char *a, const char *b)
{
    return a == b || (a && b && strcmp (a, b) == 0);
}

/* The slurm.conf's node types (CPUs, memory, weight, features, GRES)
 * with their counts, and its partitions, on one line. */
static void machine_line (const struct ns_rep *r, FILE *f)
{
    const ns_sconf_t *m = r->machine;
    int type[16], count[16], nt = 0, more = 0;
    for (int i = 0; i < m->nnodes; i++) {
        const ns_sconf_node_t *a = &m->nodes[i];
        int k;
        for (k = 0; k < nt; k++) {
            const ns_sconf_node_t *b = &m->nodes[type[k]];
            if (a->cpus == b->cpus && a->mem == b->mem
                && a->weight == b->weight
                && same_str (a->features, b->features)
                && same_str (a->gres, b->gres))
                break;
        }
        if (k < nt)
            count[k]++;
        else if (nt < 16) {
            type[nt] = i;
            count[nt++] = 1;
        } else
            more++;
    }
    fprintf (f, "Machine (%s): %d nodes:", r->o.slurm_conf, m->nnodes);
    for (int k = 0; k < nt; k++) {
        const ns_sconf_node_t *b = &m->nodes[type[k]];
        fprintf (f, "%s %d x %d CPUs, %lld MB, weight %u%s%s%s%s",
                 k ? ";" : "",
                 count[k], b->cpus, (long long)b->mem, b->weight,
                 b->features ? ", features " : "",
                 b->features ? b->features : "", b->gres ? ", GRES " : "",
                 b->gres ? b->gres : "");
    }
    if (more)
        fprintf (f, "; %d more of other types", more);
    fprintf (f, "; partitions");
    for (int k = 0; k < m->nparts; k++)
        fprintf (f, "%s %s (%d nodes)", k ? "," : "", m->parts[k].name,
                 m->parts[k].nnodes_in);
    fprintf (f, "%s.\n", m->nparts ? "" : " none");
}

static void act_on (const struct ns_rep *r, FILE *f)
{
    const struct ns_rep_run *a = &r->rp[0], *b = &r->rp[1], *w = &r->rp[2];
    char wa[32], wb[32], ww[32];
    if (r->machine)
        machine_line (r, f);
    ns_rep_fmt_dur (wa, sizeof (wa), a->m.mean_wait_s);
    ns_rep_fmt_dur (wb, sizeof (wb), b->m.mean_wait_s);
    fprintf (f, "Enabling %s on this history: core-hours held %.1f instead "
             "of %.1f (%+.1f%%), mean wait %s instead of %s", b->name,
             b->held_core_h, a->held_core_h,
             pct_change (a->held_core_h, b->held_core_h), wb, wa);
    if (r->pessimistic) {
        ns_rep_fmt_dur (ww, sizeof (ww), w->m.mean_wait_s);
        fprintf (f, "; with every learned figure two standard errors "
                 "against nodeshare: %.1f (%+.1f%%), mean wait %s.\n",
                 w->held_core_h, pct_change (a->held_core_h, w->held_core_h),
                 ww);
    } else if (given_speedups (r))
        fprintf (f, "; no figure was learned: this rests on the "
                 "configuration's figures.\n");
    else
        fprintf (f, "; no figure was learned, so this rests on neutral "
                 "figures: calibrate first (below).\n");
    char how[200];
    int upper;
    double fy = failures_a_year (r, how, sizeof (how), &upper);
    double days = (r->t_last - r->t_first) / 86400;
    if (fy >= 0)
        fprintf (f, "Node failures: the %lld jobs striped in %.1f days hold "
                 "%.1f node-hours more than packed; at the rate of %s, "
                 "%s%.2f more jobs a year would be requeued or lost.\n",
                 (long long)r->striped, days, r->extra_node_h, how,
                 upper ? "at most " : "about ", fy);
    else
        fprintf (f, "Node failures: the %lld jobs striped hold %.1f "
                 "node-hours more than packed; the dumps hold %s (%.1f "
                 "node-hours of jobs): give --node-failures-per-year for "
                 "the jobs a year this would requeue or lose.\n",
                 (long long)r->striped, r->extra_node_h,
                 r->nf.jobs ? "too little history to bound the failure "
                 "rate" : "no State column", r->node_h);
    /* programs whose spread_speedup the history does not give */
    double total = 0;
    int n = 0;
    int *ord = ns_rep_prog_order (r);
    for (int i = 0; ord && ord[i] >= 0; i++) {
        int p = ord[i];
        if (p == r->nps - 1)
            continue;       /* the jobs without a name */
        const char *name = ns_progtab_name (r->rprogs, p);
        int lp = ns_progtab_lookup (r->lprogs, name);
        ns_learn_fig_t g = lp >= 0 ? ns_learn_speedup (r->learn, lp)
                                   : (ns_learn_fig_t){ .why =
                                                       NS_LEARN_NO_DATA };
        if (g.learned || given_speedup (r, name))
            continue;
        double ch = r->o.repeats * 2.0 * r->ps[p].core_s / r->ps[p].jobs
                    / 3600;
        total += ch;
        if (n++ < 12)
            fprintf (f, "Calibrate %s (%s): %d packed and %d striped runs "
                     "of a typical job, %.1f core-hours.\n", name,
                     ns_learn_why_name (g.why), r->o.repeats, r->o.repeats,
                     ch);
    }
    free (ord);
    if (n)
        fprintf (f, "Calibrating the %d program%s without a "
                 "spread_speedup (learned, or in the configuration) takes "
                 "about %.1f core-hours (nodeshare-calibrate).\n", n,
                 n == 1 ? "" : "s", total);
    else
        fprintf (f, "Every program of the history has a learned "
                 "spread_speedup, or one in the configuration: no "
                 "calibration needed.\n");
    if (r->npnames == 0)
        fprintf (f, "Scope: the dumps name no partition; start with the "
                 "nodeshare.json below.\n");
    else if (ngains (r) == 0)
        fprintf (f, "Scope: no partition shows a gain in the replay; start "
                 "with \"mode\": \"shadow\" (the nodeshare.json below) and "
                 "calibrate.\n");
    else {
        fprintf (f, "Scope: \"partitions\": [");
        for (int i = 0, k = 0; i < r->npnames; i++)
            if (part_gains (r, i))
                fprintf (f, "%s\"%s\"", k++ ? ", " : "", r->pnames[i]);
        fprintf (f, "], the partitions where the replay shows fewer "
                 "core-hours held and no longer turnaround; everything else "
                 "stays stock (the nodeshare.json below).\n");
    }
    if (r->machine && r->names_outside > 0)
        fprintf (f, "%lld node names of the dumps are not in %s (ignored "
                 "by the replay).\n", (long long)r->names_outside,
                 r->o.slurm_conf);
    if (r->sh.dropped_files) {
        ns_rep_fmt_time (how, sizeof (how), (double)r->sh.dropped_last);
        fprintf (f, "Shadow records: %lld records up to %s UTC were dropped "
                 "by rotation (%lld file%s); raise shadow.keep or "
                 "shadow.max_bytes to keep more.\n",
                 (long long)r->sh.dropped_records, how,
                 (long long)r->sh.dropped_files,
                 r->sh.dropped_files == 1 ? "" : "s");
    }
}

/* The first section: what an administrator can act on, one item a
 * line. */
char *ns_rep_act_on (const struct ns_rep *r)
{
    return as_text (r, act_on);
}

void ns_rep_write (const struct ns_rep *r, const struct ns_rep_style *s,
                   FILE *f)
{
    s->heading (r, f);
    s->items (f, "Before enabling", ns_rep_act_on (r));
    s->items (f, "In short", ns_rep_summary (r));
    int *ord = ns_rep_prog_order (r);
    s->programs (r, ord, f);
    s->figures (r, f);
    s->replay (r, f);
    s->differ (r, ord, f);
    free (ord);
    int sec = 5;
    if (r->o.nshadow) {
        s->shadow (r, f);
        sec++;
    }
    s->start (r, sec, f);
}
