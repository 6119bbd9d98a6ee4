/* SPDX-License-Identifier: GPL-2.0-or-later */
/* explain.c - the one-line explanation of a placement decision
 * (decide.h: ns_decide_explain()): who, what was decided or why not, and
 * the nodes refused, by reason
 */
#include "decide.h"
#include "nsutil.h"

static const char *refusal_names[REF_COUNT] = {
    "twin", "pairing", "slowdown", "cotenants", "busy", "GRES",
};

static void explain_head (struct decide *d, const ns_progtab_t *progs,
                          ns_sbuf_t *b)
{
    const ns_request_t *r = d->req;
    char pname[32];
    ns_policy_name (d->pol, progs, pname, sizeof (pname));
    ns_sbuf_printf (b, "job %llu (%s, %d cores) [%s]: ", (unsigned long long)r->id,
            r->program == NS_PROGRAM_UNKNOWN
                ? "unknown program"
                : ns_progtab_name (progs, r->program),
            r->ntasks * r->cpus_per_task, pname);
}

/* A node in an explanation: its name when the cluster has one (the
 * plugin's), else its index (the simulator's). */
static void put_node (ns_sbuf_t *b, const ns_cluster_t *c, const char *sep,
                      int node)
{
    const char *name = ns_node_name (c, node);
    if (name)
        ns_sbuf_printf (b, "%s%s", sep, name);
    else
        ns_sbuf_printf (b, "%s%d", sep, node);
}

static void explain_refused (const struct decide *d, ns_sbuf_t *b)
{
    int any = 0;
    for (int why = 0; why < REF_COUNT; why++) {
        if (!d->nrefused[why])
            continue;
        ns_sbuf_printf (b, "%s %s %d node%s (", any ? "," : "; refused", 
                refusal_names[why], d->nrefused[why],
                d->nrefused[why] > 1 ? "s" : "");
        int shown = d->nrefused[why] < REF_SHOW ? d->nrefused[why] : REF_SHOW;
        for (int i = 0; i < shown; i++)
            put_node (b, d->c, i ? " " : "", d->shown[why][i]);
        ns_sbuf_printf (b, "%s)", d->nrefused[why] > shown ? " ..." : "");
        any = 1;
    }
}

static void explain_placed (struct decide *d, ns_sbuf_t *b)
{
    const ns_placement_t *pl = d->pl;
    ns_sbuf_printf (b, "nodes ");
    for (int i = 0; i < pl->n; i++)
        put_node (b, d->c, i ? "," : "", pl->shares[i].node);
    ns_sbuf_printf (b, " (");
    for (int i = 0; i < pl->n; i++)
        ns_sbuf_printf (b, "%s%d", i ? "+" : "", pl->shares[i].cores);
    ns_sbuf_printf (b, " cores) by %s", ns_rule_name (pl->rule));
    if (d->why != NS_PACK_NONE)
        ns_sbuf_printf (b, " (%s)", ns_pack_why_name (d->why));
    if (pl->shared)
        ns_sbuf_printf (b, ", sharing %d node%s", pl->shared,
                pl->shared > 1 ? "s" : "");
}

static void explain_wait (struct decide *d, ns_sbuf_t *b)
{
    const ns_placement_t *pl = d->pl;
    const ns_request_t *r = d->req;
    int packing = d->rule == NS_RULE_PACK || d->rule == NS_RULE_FALLBACK;
    if (pl->verdict == NS_NEVER && packing)
        ns_sbuf_printf (b, "never fits: needs %lld cores, cluster has %lld",
                (long long)r->ntasks * r->cpus_per_task,
                (long long)ns_cluster_total_cores (d->c));
    else if (pl->verdict == NS_NEVER)
        ns_sbuf_printf (b, "never fits: needs %d node%s with %d free cores, "
                "cluster has %d nodes of at most %d cores",
                d->width, d->width > 1 ? "s" : "", d->slot,
                ns_cluster_nnodes (d->c), ns_cluster_max_cores (d->c));
    else if (packing)
        ns_sbuf_printf (b, "waits (%s): needs %lld free cores (%s%s%s), %lld free",
                ns_verdict_name (pl->verdict),
                (long long)r->ntasks * r->cpus_per_task,
                ns_rule_name (d->rule), d->why ? ", " : "",
                ns_pack_why_name (d->why),
                (long long)(ns_cluster_total_cores (d->c)
                            - ns_cluster_used_cores (d->c)));
    else
        ns_sbuf_printf (b, "waits (%s): needs %d node%s with %d free cores (%s), "
                "%d admissible",
                ns_verdict_name (pl->verdict), d->width,
                d->width > 1 ? "s" : "", d->slot, ns_rule_name (d->rule),
                d->found);
}

void ns_decide_explain (struct decide *d, const ns_progtab_t *progs)
{
    ns_sbuf_t b = { d->pl->explain, sizeof (d->pl->explain), 0 };
    d->pl->explain[0] = '\0';
    explain_head (d, progs, &b);
    if (d->pl->verdict == NS_PLACED)
        explain_placed (d, &b);
    else
        explain_wait (d, &b);
    explain_refused (d, &b);
}
