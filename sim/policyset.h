/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policyset.h - the policies a replay compares (nodeshare-sim -p)
 *
 * A list "pack,twins,keep:A" or "all" (pack, exclusive, spread, mixed,
 * twins, same, min-slowdown, and keep:P for the configuration's first
 * program if it has any), each parsed over the configuration's policy
 * (its options: fallback, co-tenants, seed), and the baseline the others
 * are measured against, run first when the list lacks it.
 */
#ifndef NODESHARE_POLICYSET_H
#define NODESHARE_POLICYSET_H

#include "interf.h"
#include "nserror.h"
#include "policy.h"
#include "progtab.h"

#define NS_POLICYSET_MAX 32
#define NS_POLICYSET_NAME 64

typedef struct {
    ns_policy_t policies[NS_POLICYSET_MAX];
    char names[NS_POLICYSET_MAX][NS_POLICYSET_NAME];
    int n;
} ns_policyset_t;

/* Append policy `name` over `base`.  0, or -1 with err "OPT: why". */
int ns_policyset_add (ns_policyset_t *s, const ns_policy_t *base,
                      const char *opt, const char *name,
                      ns_progtab_t *progs, ns_error_t *err);

/* Parse `list` (NULL: "all") into s (emptied first).  0, or -1 with err
 * filled. */
int ns_policyset_parse (ns_policyset_t *s, const ns_policy_t *base,
                        const char *list, ns_progtab_t *progs,
                        const ns_interf_t *model, ns_error_t *err);

/* Make sure policy `baseline` is in s, as its first when it was not.  0,
 * or -1 with err filled (no room, or not a policy). */
int ns_policyset_baseline (ns_policyset_t *s, const ns_policy_t *base,
                           const char *baseline, ns_progtab_t *progs,
                           ns_error_t *err);

#endif /* !NODESHARE_POLICYSET_H */
