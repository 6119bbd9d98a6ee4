/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policyset.t - the policies of nodeshare-sim -p (sim/policyset.c): "all"
 * with keep:P for the first configured program, lists in their order,
 * the configuration's options kept, the baseline run first when missing,
 * and the errors. */
#include <stdio.h>
#include <string.h>

#include "nsconfig.h"
#include "policyset.h"
#include "tap.h"

static ns_policyset_t s;

static const char *joined (void)
{
    static char buf[1024];
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < s.n && len < sizeof (buf); i++)
        len += (size_t)snprintf (buf + len, sizeof (buf) - len, "%s%s",
                                 i ? "," : "", s.names[i]);
    return buf;
}

int main (void)
{
    plan_no_plan ();
    ns_error_t err;
    ns_config_t *cfg = ns_config_load_string (
        "{ \"policy\": \"twins\", \"max_cotenants\": 3, \"programs\": {"
        " \"LAM\": { \"spread_speedup\": 1.2 } } }", "test", &err);
    ns_config_t *none = ns_config_load_string ("{ }", "empty", &err);
    if (!ok (cfg && none, "configurations load"))
        return diag ("%s", err.text), done_testing ();
    const ns_policy_t *base = ns_config_policy (cfg);
    ns_progtab_t *progs = ns_config_progtab (cfg);
    const ns_interf_t *model = ns_config_interf (cfg);

    is_int (ns_policyset_parse (&s, base, NULL, progs, model, &err), 0,
            "no list: all");
    is_str (joined (), "pack,exclusive,spread,mixed,twins,same,"
            "min-slowdown,keep:LAM", "  the seven and keep: of the first "
            "program, pack first");
    is_int (s.policies[4].max_cotenants, 3,
            "  each keeps the configuration's options");
    is_int (ns_policyset_parse (&s, ns_config_policy (none), "all",
                                ns_config_progtab (none),
                                ns_config_interf (none), &err), 0,
            "all without programs");
    is_int (s.n, 7, "  no keep:");

    is_int (ns_policyset_parse (&s, base, "spread,keep:LAM", progs, model,
                                &err), 0, "a list");
    is_str (joined (), "spread,keep:LAM", "  in its order");
    is_int (ns_policyset_baseline (&s, base, "pack", progs, &err), 0,
            "baseline pack, not listed");
    is_str (joined (), "pack,spread,keep:LAM", "  runs first");
    is_int (ns_policyset_baseline (&s, base, "spread", progs, &err), 0,
            "baseline spread, listed");
    is_int (s.n, 3, "  not added twice");

    is_int (ns_policyset_parse (&s, base, "pack,bogus", progs, model, &err),
            -1, "an unknown policy");
    ok (strncmp (err.text, "--policy: unknown policy 'bogus'", 32) == 0,
        "  names it: %s", err.text);
    is_int (ns_policyset_parse (&s, base, "pack", progs, model, &err), 0,
            "one policy");
    is_int (ns_policyset_baseline (&s, base, "bogus", progs, &err), -1,
            "an unknown baseline");
    ok (strncmp (err.text, "--baseline: ", 12) == 0,
        "  said as --baseline: %s", err.text);
    is_str (joined (), "pack", "  the set unchanged");

    char list[33 * 5] = "";
    for (int i = 0; i < 32; i++)
        strcat (list, i ? ",pack" : "pack");
    is_int (ns_policyset_parse (&s, base, list, progs, model, &err), 0,
            "32 policies");
    is_int (ns_policyset_baseline (&s, base, "exclusive", progs, &err), -1,
            "  no room for the baseline");
    is_str (err.text, "--policy: more than 31 policies with the baseline",
            "  said");
    strcat (list, ",pack");
    is_int (ns_policyset_parse (&s, base, list, progs, model, &err), -1,
            "33 policies");
    is_str (err.text, "--policy: more than 32 policies", "  said");
    ns_config_destroy (cfg);
    ns_config_destroy (none);
    return done_testing ();
}
