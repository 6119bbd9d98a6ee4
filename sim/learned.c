/* SPDX-License-Identifier: GPL-2.0-or-later */
/* learned.c - the fitted figures as nodeshare-learn prints them (see
 * learned.h); nodeshare-report prints the same. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "learned.h"
#include "nsutil.h"

json_object *ns_learned_num3 (double v)
{
    char text[32];
    snprintf (text, sizeof (text), "%.3f", v);
    /* trailing zeros off, one digit after the point kept */
    size_t n = strlen (text);
    while (n > 2 && text[n - 1] == '0' && text[n - 2] != '.')
        text[--n] = '\0';
    return json_object_new_double_s (v, text);
}

json_object *ns_learned_num_se (double v)
{
    char text[32];
    snprintf (text, sizeof (text), "%.2g", v);
    return json_object_new_double_s (v, text);
}

json_object *ns_learned_evidence (int n, double se)
{
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "n", json_object_new_int (n));
    json_object_object_add (o, "se",
                            isnan (se) ? NULL : ns_learned_num_se (se));
    return o;
}

static json_object *fig_json (ns_learn_fig_t f)
{
    return ns_learned_evidence (f.n, f.se);
}

/* Why a figure of p (q: NS_LEARN_SPEEDUP or the co-tenant) is not
 * learned: the reason and, for a figure the history does not identify,
 * the runs that would.  Into `not` (the JSON), and a note line. */
static void not_learned (const ns_learn_t *l, const ns_progtab_t *progs,
                         const struct ns_learned_input *in, int p, int q,
                         ns_learn_fig_t f, json_object *not)
{
    char why[512] = "", need[512] = "", what[160];
    const char *name = ns_progtab_name (progs, p);
    if (q == NS_LEARN_SPEEDUP)
        snprintf (what, sizeof (what), "%s spread_speedup", name);
    else
        snprintf (what, sizeof (what), "%s beside %s", name,
                  ns_progtab_name (progs, q));
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "n", json_object_new_int (f.n));
    switch (f.why) {
    case NS_LEARN_UNIDENTIFIED:
        if (ns_learn_explain (l, p, q, progs, why, sizeof (why), need,
                              sizeof (need)) < 0)
            snprintf (why, sizeof (why), "not separable from the other "
                      "figures");
        json_object_object_add (o, "reason",
                                json_object_new_string ("not identified"));
        json_object_object_add (o, "why", json_object_new_string (why));
        if (*need)
            json_object_object_add (o, "needs",
                                    json_object_new_string (need));
        if (in->notes)
            fprintf (in->notes, "%s%snot learned: %s: not identified: "
                     "%s%s%s\n", in->notes_prefix ? in->prog : "",
                     in->notes_prefix ? ": " : "", what, why,
                     *need ? "; needs: " : "", need);
        break;
    case NS_LEARN_FEW:
        json_object_object_add (o, "reason",
                                json_object_new_string ("too few jobs"));
        if (in->notes)
            fprintf (in->notes, "%s%snot learned: %s (%d jobs exposed, %d "
                     "needed)\n", in->notes_prefix ? in->prog : "",
                     in->notes_prefix ? ": " : "", what, f.n,
                     in->lo->min_observations);
        break;
    default:
        json_object_object_add (o, "reason", json_object_new_string (
                                    ns_learn_why_name (f.why)));
        if (in->notes)
            fprintf (in->notes, "%s%snot learned: %s (%d jobs exposed; "
                     "%s)\n", in->notes_prefix ? in->prog : "",
                     in->notes_prefix ? ": " : "", what, f.n,
                     ns_learn_why_name (f.why));
        break;
    }
    if (q == NS_LEARN_SPEEDUP)
        json_object_object_add (not, "spread_speedup", o);
    else {
        json_object *sl;
        if (!json_object_object_get_ex (not, "slowdown", &sl)) {
            sl = json_object_new_object ();
            json_object_object_add (not, "slowdown", sl);
        }
        json_object_object_add (sl, ns_progtab_name (progs, q), o);
    }
}

json_object *ns_learned_json (const ns_learn_t *l, const ns_progtab_t *progs,
                              const struct ns_learned_input *in,
                              int *nlearned_out, int *nleft_out)
{
    json_object *root = json_object_new_object ();
    json_object *programs = json_object_new_object ();
    json_object *learned = json_object_new_object ();
    json_object *lprog = json_object_new_object ();
    int np = ns_progtab_count (progs), nlearned = 0, nleft = 0;
    for (int p = 0; p < np; p++) {
        const char *name = ns_progtab_name (progs, p);
        int nj = ns_learn_njobs (l, p);
        if (nj == 0)
            continue;
        json_object *pr = json_object_new_object ();
        json_object *ev = json_object_new_object ();
        json_object *not = json_object_new_object ();
        json_object_object_add (ev, "jobs", json_object_new_int (nj));
        ns_learn_fig_t b = ns_learn_base (l, p);
        json_object_object_add (pr, "runtime",
                                json_object_new_int64 (llround (b.value)));
        json_object_object_add (ev, "runtime", fig_json (b));
        ns_learn_fig_t u = ns_learn_speedup (l, p);
        if (u.learned) {
            json_object_object_add (pr, "spread_speedup",
                                    ns_learned_num3 (u.value));
            json_object_object_add (ev, "spread_speedup", fig_json (u));
            nlearned++;
        } else if (u.n > 0) {
            nleft++;
            not_learned (l, progs, in, p, NS_LEARN_SPEEDUP, u, not);
        }
        json_object *sl = json_object_new_object ();
        json_object *sev = json_object_new_object ();
        for (int q = 0; q < np; q++) {
            ns_learn_fig_t s = ns_learn_slowdown (l, p, q);
            const char *qn = ns_progtab_name (progs, q);
            if (s.learned) {
                json_object_object_add (sl, qn,
                                        ns_learned_num3 (s.value));
                json_object_object_add (sev, qn, fig_json (s));
                nlearned++;
            } else if (s.n > 0) {
                nleft++;
                not_learned (l, progs, in, p, q, s, not);
            }
        }
        if (json_object_object_length (sl))
            json_object_object_add (pr, "slowdown", sl);
        else
            json_object_put (sl);
        if (json_object_object_length (sev))
            json_object_object_add (ev, "slowdown", sev);
        else
            json_object_put (sev);
        if (json_object_object_length (not))
            json_object_object_add (ev, "not_learned", not);
        else
            json_object_put (not);
        json_object_object_add (programs, name, pr);
        json_object_object_add (lprog, name, ev);
    }
    json_object_object_add (root, "programs", programs);
    char by[128];
    snprintf (by, sizeof (by), "%s %s", in->prog, PACKAGE_VERSION);
    json_object_object_add (learned, "by", json_object_new_string (by));
    json_object_object_add (learned, "histories",
                            json_object_new_int (in->histories));
    json_object_object_add (learned, "node_cores",
                            json_object_new_int (in->cores));
    json_object_object_add (learned, "min_observations",
                            json_object_new_int (in->lo->min_observations));
    json_object_object_add (learned, "min_exposure",
                            ns_learned_num_se (in->lo->min_exposure));
    json_object_object_add (learned, "max_se",
                            ns_learned_num_se (in->lo->max_se));
    json_object_object_add (learned, "programs", lprog);
    json_object_object_add (root, "learned", learned);
    *nlearned_out = nlearned;
    *nleft_out = nleft;
    return root;
}

int ns_learned_count (const ns_learn_t *l, const ns_progtab_t *progs,
                      ns_learn_why_t why)
{
    int np = ns_progtab_count (progs), n = 0;
    for (int p = 0; p < np; p++) {
        if (ns_learn_njobs (l, p) == 0)
            continue;
        for (int q = NS_LEARN_SPEEDUP; q < np; q++) {
            if (q == NS_PROGRAM_UNKNOWN)
                continue;
            ns_learn_fig_t f = q == NS_LEARN_SPEEDUP
                                   ? ns_learn_speedup (l, p)
                                   : ns_learn_slowdown (l, p, q);
            n += f.n > 0 && !f.learned && f.why == why;
        }
    }
    return n;
}

const char *ns_learned_text (json_object *root)
{
    return json_object_to_json_string_ext (
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
                  | JSON_C_TO_STRING_NOSLASHESCAPE);
}

int ns_learned_table (const ns_learn_t *l, const ns_progtab_t *progs,
                      FILE *out)
{
    int np = ns_progtab_count (progs);
    fprintf (out, "%-16s %-24s %8s %8s %6s\n", "program", "figure", "value",
             "se", "jobs");
    for (int p = 0; p < np; p++) {
        if (ns_learn_njobs (l, p) == 0)
            continue;
        const char *name = ns_progtab_name (progs, p);
        ns_learn_fig_t b = ns_learn_base (l, p);
        fprintf (out, "%-16s %-24s %8.0f %8.1f %6d\n", name, "runtime",
                 b.value, isnan (b.se) ? 0.0 : b.se, b.n);
        ns_learn_fig_t u = ns_learn_speedup (l, p);
        if (u.learned)
            fprintf (out, "%-16s %-24s %8.3f %8.4f %6d\n", name,
                     "spread_speedup", u.value, u.se, u.n);
        for (int q = 0; q < np; q++) {
            ns_learn_fig_t s = ns_learn_slowdown (l, p, q);
            char fig[NS_PROGRAM_NAME_MAX + 16];
            snprintf (fig, sizeof (fig), "slowdown:%s",
                      ns_progtab_name (progs, q));
            if (s.learned)
                fprintf (out, "%-16s %-24s %8.3f %8.4f %6d\n", name, fig,
                         s.value, s.se, s.n);
        }
    }
    return ferror (out) ? -1 : 0;
}

