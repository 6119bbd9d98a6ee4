/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policyset.c - the policies a replay compares (see policyset.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policyset.h"

int ns_policyset_add (ns_policyset_t *s, const ns_policy_t *base,
                      const char *opt, const char *name,
                      ns_progtab_t *progs, ns_error_t *err)
{
    ns_error_t e;
    if (s->n == NS_POLICYSET_MAX)
        return ns_error_set (err, EINVAL, "--policy: more than %d policies",
                             NS_POLICYSET_MAX);
    ns_policy_t *p = &s->policies[s->n];
    *p = *base;
    if (ns_policy_parse (p, name, progs, &e) < 0)
        return ns_error_set (err, EINVAL, "%s: %s", opt, e.text);
    ns_policy_name (p, progs, s->names[s->n], NS_POLICYSET_NAME);
    s->n++;
    return 0;
}

int ns_policyset_parse (ns_policyset_t *s, const ns_policy_t *base,
                        const char *list, ns_progtab_t *progs,
                        const ns_interf_t *model, ns_error_t *err)
{
    /* pack first: what a stock cluster runs. */
    static const char *all[] = { "pack", "exclusive", "spread", "mixed",
                                 "twins", "same", "min-slowdown" };
    char *copy = strdup (list ? list : "all"), *save = NULL;
    if (!copy)
        return ns_error_set (err, ENOMEM, "out of memory");
    int rc = 0;
    s->n = 0;
    for (char *tok = strtok_r (copy, ",", &save); tok && rc == 0;
         tok = strtok_r (NULL, ",", &save)) {
        if (strcmp (tok, "all") == 0) {
            for (size_t i = 0; i < sizeof (all) / sizeof (all[0]) && !rc;
                 i++)
                rc = ns_policyset_add (s, base, "--policy", all[i], progs,
                                       err);
            /* keep:P for the first configured program, if any */
            if (!rc && ns_interf_nprograms (model) > 0) {
                char keep[NS_PROGRAM_NAME_MAX + 8];
                snprintf (keep, sizeof (keep), "keep:%s",
                          ns_progtab_name (progs, 0));
                rc = ns_policyset_add (s, base, "--policy", keep, progs,
                                       err);
            }
        }
        else
            rc = ns_policyset_add (s, base, "--policy", tok, progs, err);
    }
    free (copy);
    return rc;
}

int ns_policyset_baseline (ns_policyset_t *s, const ns_policy_t *base,
                           const char *baseline, ns_progtab_t *progs,
                           ns_error_t *err)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp (s->names[i], baseline) == 0)
            return 0;
    /* Not listed: run it first. */
    if (s->n == NS_POLICYSET_MAX)
        return ns_error_set (err, EINVAL, "--policy: more than %d policies "
                             "with the baseline", NS_POLICYSET_MAX - 1);
    ns_policyset_t *old = malloc (sizeof (*old));
    if (!old)
        return ns_error_set (err, ENOMEM, "out of memory");
    *old = *s;
    s->n = 0;
    int rc = ns_policyset_add (s, base, "--baseline", baseline, progs, err);
    if (rc == 0) {
        memcpy (&s->policies[1], old->policies,
                sizeof (ns_policy_t) * old->n);
        memcpy (&s->names[1], old->names, NS_POLICYSET_NAME * old->n);
        s->n = old->n + 1;
    }
    else
        *s = *old;
    free (old);
    return rc;
}
