/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rep_text.c - nodeshare-report as text (sim/rep.h): the heading, before
 * enabling, in short, then one function per numbered section.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rep.h"

/* Each line of TEXT (not changed) after PREFIX. */
static void indent_text (FILE *f, const char *prefix, const char *text)
{
    char *save = NULL, *copy = strdup (text);
    for (char *l = copy ? strtok_r (copy, "\n", &save) : NULL; l;
         l = strtok_r (NULL, "\n", &save))
        fprintf (f, "%s%s\n", prefix, l);
    free (copy);
}

/* Lines of TEXT (one item a line, malloc'd, freed here) under HEAD as
 * "  - item". */
static void items_text (FILE *f, const char *head, char *text)
{
    if (!text)
        return;
    fprintf (f, "\n%s\n", head);
    indent_text (f, "  - ", text);
    free (text);
}

static void heading_text (const struct ns_rep *r, FILE *f)
{
    char a[64], b[64];
    ns_rep_fmt_time (a, sizeof (a), r->t_first);
    ns_rep_fmt_time (b, sizeof (b), r->t_last);
    fprintf (f, "nodeshare-report: %d dump%s, %lld jobs from %s to %s UTC, "
             "replayed on %d nodes x %d cores\n", r->ndumps,
             r->ndumps == 1 ? "" : "s", (long long)r->njobs, a, b, r->nodes,
             r->o.cores);
    fprintf (f, "  history: %lld jobs with nodes, %lld completed (observed), "
             "%lld co-tenants only; %lld lines skipped\n",
             (long long)r->hist_jobs, (long long)r->observed,
             (long long)r->context, (long long)r->skipped);
}

/* 1. Programs by core-hours; ORD: ns_rep_prog_order (). */
static void programs_text (const struct ns_rep *r, const int *ord, FILE *f)
{
    fprintf (f, "\n1. Programs by core-hours (AllocCPUS x elapsed)\n");
    fprintf (f, "  %-20s %8s %12s %7s %12s\n", "program", "jobs",
             "core-hours", "share", "mean run");
    double tot = ns_rep_total_core_s (r);
    for (int i = 0; ord && ord[i] >= 0; i++) {
        const struct ns_rep_prog *p = &r->ps[ord[i]];
        char d[32];
        ns_rep_fmt_dur (d, sizeof (d), p->run_s / p->jobs);
        fprintf (f, "  %-20s %8lld %12.1f %6.1f%% %12s\n",
                 ns_rep_prog_name (r, ord[i]), (long long)p->jobs,
                 p->core_s / 3600, 100 * p->core_s / tot, d);
    }
}

/* 2. The figures learned: nodeshare-learn's table and notes. */
static void figures_text (const struct ns_rep *r, FILE *f)
{
    fprintf (f, "\n2. Figures learned (as nodeshare-learn learns them: "
             "value, standard error, jobs)\n");
    if (r->table)
        indent_text (f, "  ", r->table);
    fprintf (f, "  %d figures learned, %d left neutral (1.0)%s\n",
             r->nlearned, r->nleft, r->nleft ? ":" : "");
    if (r->notes && r->notes_len)
        indent_text (f, "    ", r->notes);
}

/* 3. The replay's rows, pack and the policy. */
static void replay_text (const struct ns_rep *r, FILE *f)
{
    char a[64], b[64];
    fprintf (f, "\n3. Replay of the same jobs (EASY backfill, killed at "
             "their time limit; runtimes are work at rate 1; the learned "
             "figures%s)\n", r->ucfg ? ", the configuration's where none "
             "was learned" : "");
    struct ns_rep_row rows[16];
    int n = ns_rep_replay_table (r, rows);
    fprintf (f, "  %-28s %14s %14s\n", "", r->rp[0].name, r->rp[1].name);
    for (int i = 0; i < n; i++) {
        ns_rep_fmt_val (a, sizeof (a), &rows[i], 0);
        ns_rep_fmt_val (b, sizeof (b), &rows[i], 1);
        fprintf (f, "  %-28s %14s %14s\n", rows[i].label, a, b);
    }
}

/* 4. The jobs placed differently, by rule and by program. */
static void differ_text (const struct ns_rep *r, const int *ord, FILE *f)
{
    fprintf (f, "\n4. Placed differently under %s than under pack: %lld of "
             "%lld jobs (%.1f%%)\n", r->rp[1].name, (long long)r->differ,
             (long long)r->compared,
             r->compared ? 100.0 * r->differ / r->compared : 0.0);
    fprintf (f, "  another shape %lld, the same shape next to other "
             "programs %lld, started under one only %lld\n",
             (long long)r->shape_differ, (long long)r->cot_differ,
             (long long)r->never_differ);
    fprintf (f, "  how %s placed them:\n", r->rp[1].name);
    for (int k = 0; k < NS_REP_NRULES; k++) {
        if (!r->rule_n[k])
            continue;
        fprintf (f, "    %-36s %8lld  (%s)\n", ns_rep_rule_what (k),
                 (long long)r->rule_n[k], ns_rule_name (k));
        if (k == NS_RULE_PACK)
            for (int w = 1; w < NS_PACK_KINDS; w++)
                if (r->why_n[w])
                    fprintf (f, "      %-34s %8lld\n", ns_pack_why_name (w),
                             (long long)r->why_n[w]);
    }
    fprintf (f, "  by program:");
    for (int i = 0; ord && ord[i] >= 0; i++)
        fprintf (f, " %s %lld/%lld", ns_rep_prog_name (r, ord[i]),
                 (long long)r->ps[ord[i]].differ,
                 (long long)r->ps[ord[i]].jobs);
    fprintf (f, "\n");
}

/* 5. The shadow records. */
static void shadow_text (const struct ns_rep *r, FILE *f)
{
    const struct ns_rep_shadow *s = &r->sh;
    fprintf (f, "\n5. Shadow records (%d file%s): %lld jobs, %lld placed "
             "differently from stock (%.1f%%)\n", s->nfiles,
             s->nfiles == 1 ? "" : "s", (long long)s->records,
             (long long)s->differ,
             s->records ? 100.0 * s->differ / s->records : 0.0);
    ns_rep_shadow_span (f, s, 0);
    for (int k = 0; k < s->nrules; k++)
        fprintf (f, "    by rule %-26s %8lld\n", s->rules[k],
                 (long long)s->rule_n[k]);
    for (int k = 0; k < s->nwoulds; k++)
        fprintf (f, "    would %-28s %8lld\n", s->woulds[k],
                 (long long)s->would_n[k]);
    fprintf (f, "  by program:");
    for (int k = 0; k < s->nprogs; k++)
        fprintf (f, " %s %lld/%lld", s->progs[k],
                 (long long)s->prog_d[k], (long long)s->prog_n[k]);
    fprintf (f, "\n");
    if (s->first_why[0])
        fprintf (f, "  e.g. job %lld: %s\n", (long long)s->first_why_job,
                 s->first_why);
}

static void start_text (const struct ns_rep *r, int sec, FILE *f)
{
    fprintf (f, "\n%d. nodeshare.json to start with (what nodeshare-learn "
             "writes, with the scope%s%s)\n", sec,
             r->o.json_out ? "; also in " : "",
             r->o.json_out ? r->o.json_out : "");
    fprintf (f, "%s\n", r->start);
}

void ns_rep_write_text (const struct ns_rep *r, FILE *f)
{
    static const struct ns_rep_style text = {
        heading_text, items_text, programs_text, figures_text, replay_text,
        differ_text, shadow_text, start_text,
    };
    ns_rep_write (r, &text, f);
}
