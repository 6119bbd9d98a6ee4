/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policyname.c - the names of policy.h: policies as a user writes them
 * (parsed and printed), verdicts, rules and the reasons a job is packed
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "policy.h"

static const char *kind_names[NS_POLICY_COUNT] = {
    [NS_POLICY_EXCLUSIVE] = "exclusive",
    [NS_POLICY_SPREAD] = "spread",
    [NS_POLICY_MIXED] = "mixed",
    [NS_POLICY_TWINS] = "twins",
    [NS_POLICY_SAME] = "same",
    [NS_POLICY_KEEP] = "keep",
    [NS_POLICY_MIN_SLOWDOWN] = "min-slowdown",
    [NS_POLICY_PACK] = "pack",
};

const char *ns_policy_kind_name (ns_policy_kind_t kind)
{
    if (kind < 0 || kind >= NS_POLICY_COUNT)
        return "?";
    return kind_names[kind];
}

int ns_policy_parse (ns_policy_t *p, const char *name, ns_progtab_t *progs,
                     ns_error_t *err)
{
    if (!p || !name)
        return ns_error_set (err, EINVAL, "no policy name");
    if (strncmp (name, "keep:", 5) == 0) {
        const char *prog = name + 5;
        if (!*prog)
            return ns_error_set (err, EINVAL,
                                 "policy keep: needs a program (keep:NAME)");
        if (!progs)
            return ns_error_set (err, EINVAL, "policy %s: no program table",
                                 name);
        int id = ns_progtab_intern (progs, prog, err);
        if (id < 0)
            return -1;
        p->kind = NS_POLICY_KEEP;
        p->keep_program = id;
        return 0;
    }
    for (int k = 0; k < NS_POLICY_COUNT; k++) {
        if (k != NS_POLICY_KEEP && strcmp (name, kind_names[k]) == 0) {
            p->kind = k;
            p->keep_program = NS_PROGRAM_UNKNOWN;
            return 0;
        }
    }
    return ns_error_set (err, EINVAL,
                         "unknown policy '%s' (expected pack, exclusive, "
                         "spread, mixed, twins, same, keep:PROGRAM or "
                         "min-slowdown)",
                         name);
}

int ns_policy_name (const ns_policy_t *p, const ns_progtab_t *progs, char *buf,
                    int len)
{
    if (p->kind == NS_POLICY_KEEP)
        return snprintf (buf, len, "keep:%s",
                         ns_progtab_name (progs, p->keep_program));
    return snprintf (buf, len, "%s", ns_policy_kind_name (p->kind));
}

const char *ns_verdict_name (ns_verdict_t v)
{
    switch (v) {
    case NS_PLACED: return "placed";
    case NS_WAIT_RESOURCES: return "resources";
    case NS_WAIT_TWIN: return "twin";
    case NS_WAIT_PAIRING: return "pairing";
    case NS_WAIT_SLOWDOWN: return "slowdown";
    case NS_WAIT_COTENANTS: return "cotenants";
    case NS_NEVER: return "never";
    }
    return "?";
}

const char *ns_rule_name (ns_rule_t r)
{
    switch (r) {
    case NS_RULE_NONE: return "none";
    case NS_RULE_EXCLUSIVE: return "exclusive";
    case NS_RULE_STRIPE_EMPTY: return "stripe-empty";
    case NS_RULE_STRIPE_SHARE: return "stripe-share";
    case NS_RULE_AS_ASKED: return "as-asked";
    case NS_RULE_FALLBACK: return "fallback";
    case NS_RULE_PACK: return "pack";
    }
    return "?";
}

const char *ns_pack_why_name (ns_pack_why_t w)
{
    switch (w) {
    case NS_PACK_NONE: return "";
    case NS_PACK_POLICY: return "stock Slurm";
    case NS_PACK_SMALL: return "small job";
    case NS_PACK_ONE_TASK: return "one task";
    case NS_PACK_NO_GAIN: return "no predicted gain";
    case NS_PACK_AS_ASKED: return "as asked";
    case NS_PACK_NO_REQUEUE: return "cannot be requeued";
    case NS_PACK_SCOPE: return "outside nodeshare's scope";
    case NS_PACK_KINDS: break;
    }
    return "?";
}
