/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config_policy.c - nodeshare.json's top-level keys other than programs
 * and identity: the policy and its parameters, mode, cache, learn, the
 * scope (partitions, accounts, qos), GRES nodes, requeue, accounting,
 * metrics and shadow records; and the table of top-level keys.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "config_int.h"
#include "jsonread.h"
#include "learn.h"
#include "nsconfig.h"
#include "nsranges.h"

/*
 * Top-level scalars
 */

#define POLICY_NAMES \
    "one of pack, exclusive, spread, mixed, twins, same, keep:PROGRAM, min-slowdown"

static int read_policy (struct reader *r, json_object *v)
{
    ns_error_t sub;
    if (!json_object_is_type (v, json_type_string))
        return ns_jr_fail_got (&r->j, v, POLICY_NAMES);
    const char *s = json_object_get_string (v);
    /* keep:P interns P: say what is wrong with P rather than with the
     * policy name as a whole. */
    if (strncmp (s, "keep:", 5) == 0 && s[5] == '\0')
        return ns_jr_fail_got (&r->j, v, "keep:PROGRAM with a program name");
    if (strncmp (s, "keep:", 5) == 0 && strlen (s + 5) >= NS_PROGRAM_NAME_MAX)
        return ns_jr_fail_got (&r->j, v, "keep:PROGRAM with a program name of at most "
                         "%d characters", NS_PROGRAM_NAME_MAX - 1);
    if (ns_policy_parse (&r->cfg->policy, s, r->cfg->progs, &sub) < 0)
        return errno == ENOMEM ? ns_cfg_fail_sub (r, &sub)
                               : ns_jr_fail_got (&r->j, v, POLICY_NAMES);
    return 0;
}

static int read_mode (struct reader *r, json_object *v)
{
    const char *s = json_object_is_type (v, json_type_string)
                        ? json_object_get_string (v) : NULL;
    if (s && !strcmp (s, "normal"))
        r->cfg->mode = NS_MODE_NORMAL;
    else if (s && !strcmp (s, "shadow"))
        r->cfg->mode = NS_MODE_SHADOW;
    else
        return ns_jr_fail_got (&r->j, v, "\"normal\" or \"shadow\"");
    return 0;
}

static int read_stripe_width (struct reader *r, json_object *v)
{
    int64_t i;
    if (ns_jr_get_integer (&r->j, v, 1, 16, "an integer 1..16", &i) < 0)
        return -1;
    r->cfg->policy.stripe_width = (int)i;
    return 0;
}

static int read_max_cotenants (struct reader *r, json_object *v)
{
    int64_t i;
    if (ns_jr_get_integer (&r->j, v, 1, 64, "an integer 1..64", &i) < 0)
        return -1;
    r->cfg->policy.max_cotenants = (int)i;
    return 0;
}

static int read_max_slowdown (struct reader *r, json_object *v)
{
    return ns_cfg_get_number (r, v, 1.0, 100.0, "a number 1.0..100",
                              &r->cfg->policy.max_slowdown);
}

static int read_fallback_after (struct reader *r, json_object *v)
{
    return ns_jr_get_integer (&r->j, v, -1, INT64_MAX,
                        "an integer >= 0 (seconds) or -1 (never)",
                        &r->cfg->policy.fallback_after);
}

static int read_small_job_cores (struct reader *r, json_object *v)
{
    int64_t i;
    if (ns_jr_get_integer (&r->j, v, -1, 1000000,
                     "an integer 0..1000000 (cores) or -1 (half a node)",
                     &i) < 0)
        return -1;
    r->cfg->policy.small_job_cores = (int)i;
    return 0;
}

static int read_stripe_margin (struct reader *r, json_object *v)
{
    /* Negative: stripe programs predicted to run slower too (a
     * history to learn their figures from, nodeshare-learn). */
    return ns_cfg_get_number (r, v, -1.0, 10.0, "a number -1..10",
                              &r->cfg->policy.stripe_margin);
}

static int read_seed (struct reader *r, json_object *v)
{
    int64_t i;
    if (ns_jr_get_integer (&r->j, v, 0, INT64_MAX, "an integer >= 0", &i) < 0)
        return -1;
    r->cfg->policy.seed = (uint64_t)i;
    return 0;
}

/*
 * cache: { sigma, default_footprint }
 */

static int read_sigma (struct reader *r, json_object *v)
{
    return ns_cfg_get_number (r, v, NS_SIGMA_MIN, NS_SIGMA_MAX,
                              "a number " NS_SIGMA_RANGE,
                              &r->cfg->cache_sigma);
}

#define SIZE_EXPECT \
    "a size in bytes (an integer, or a string such as \"512K\", \"2M\", " \
    "\"1.5G\")"

static int read_footprint (struct reader *r, json_object *v)
{
    if (json_object_is_type (v, json_type_string)) {
        if (ns_parse_size (json_object_get_string (v),
                           &r->cfg->cache_footprint) < 0)
            return ns_jr_fail_got (&r->j, v, SIZE_EXPECT);
        return 0;
    }
    int64_t i;
    if (ns_jr_get_integer (&r->j, v, 0, INT64_MAX, SIZE_EXPECT, &i) < 0)
        return -1;
    r->cfg->cache_footprint = (uint64_t)i;
    return 0;
}

static int read_learn_enabled (struct reader *r, json_object *v)
{
    if (!json_object_is_type (v, json_type_boolean))
        return ns_jr_fail_got (&r->j, v, "true or false");
    r->cfg->learn.enabled = json_object_get_boolean (v);
    return 0;
}

static int read_learn_min_obs (struct reader *r, json_object *v)
{
    int64_t i;
    if (ns_jr_get_integer (&r->j, v, 1, NS_LEARN_MIN_OBS_MAX,
                           "an integer " NS_LEARN_MIN_OBS_RANGE, &i) < 0)
        return -1;
    r->cfg->learn.min_observations = (int)i;
    return 0;
}

static int read_learn_max_obs (struct reader *r, json_object *v)
{
    int64_t i;
    if (ns_jr_get_integer (&r->j, v, 100, 10000000, "an integer 100..10000000", &i) < 0)
        return -1;
    r->cfg->learn.max_observations = (int)i;
    return 0;
}

static int read_learn_max_se (struct reader *r, json_object *v)
{
    return ns_cfg_get_number (r, v, 0.0, NS_LEARN_MAX_SE_MAX,
                              "a number " NS_LEARN_MAX_SE_RANGE,
                              &r->cfg->learn.max_se);
}

static int read_learn_explore (struct reader *r, json_object *v)
{
    if (!json_object_is_type (v, json_type_boolean))
        return ns_jr_fail_got (&r->j, v, "true or false");
    r->cfg->learn.explore = json_object_get_boolean (v);
    return 0;
}

static int read_learn_save_every (struct reader *r, json_object *v)
{
    int64_t i;
    if (ns_jr_get_integer (&r->j, v, 0, 86400, "seconds 0..86400", &i) < 0)
        return -1;
    r->cfg->learn.save_every = (int)i;
    return 0;
}

static const struct key learn_keys[] = {
    { "enabled", read_learn_enabled },
    { "min_observations", read_learn_min_obs },
    { "max_observations", read_learn_max_obs },
    { "max_se", read_learn_max_se },
    { "save_every", read_learn_save_every },
    { "explore", read_learn_explore },
    { NULL, NULL },
};

static int read_learn (struct reader *r, json_object *v)
{
    if (!json_object_is_type (v, json_type_object))
        return ns_jr_fail_got (&r->j, v, "an object with enabled, min_observations, "
                         "max_observations, max_se, save_every, explore");
    return ns_cfg_read_object (r, v, learn_keys);
}

static const struct key cache_keys[] = {
    { "sigma", read_sigma },
    { "default_footprint", read_footprint },
    { NULL, NULL },
};

static int read_cache (struct reader *r, json_object *v)
{
    if (!json_object_is_type (v, json_type_object))
        return ns_jr_fail_got (&r->j, v, "an object with sigma, default_footprint");
    return ns_cfg_read_object (r, v, cache_keys);
}

/*
 * Scope, GRES nodes, requeue, accounting, metrics, shadow records
 */

/* partitions / accounts / qos: an array of names (an empty array: no
 * job is in scope). */
static int read_scope (struct reader *r, json_object *v, ns_scope_kind_t k)
{
    const char *what = "an array of names (strings of 1..255 characters)";
    if (!json_object_is_type (v, json_type_array))
        return ns_jr_fail_got (&r->j, v, "%s", what);
    size_t n = json_object_array_length (v);
    if (n > NS_SCOPE_MAX)
        return ns_jr_fail_got (&r->j, v, "at most %d names", NS_SCOPE_MAX);
    for (int i = 0; i < r->cfg->scope[k].n; i++)
        free (r->cfg->scope[k].names[i]);
    free (r->cfg->scope[k].names);
    r->cfg->scope[k].names = NULL;
    r->cfg->scope[k].n = 0;
    r->cfg->scope[k].set = 1;
    if (n && !(r->cfg->scope[k].names = calloc (n, sizeof (char *))))
        return ns_jr_fail_errno (&r->j, ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx (v, i);
        size_t old = ns_jr_path_index (&r->j, i);
        int len = json_object_is_type (e, json_type_string)
                      ? json_object_get_string_len (e) : 0;
        if (len < 1 || len > 255 || strchr (json_object_get_string (e), ',')) {
            int rc = ns_jr_fail_got (&r->j, e, "a name (1..255 characters, "
                                     "no comma)");
            ns_jr_path_pop (&r->j, old);
            return rc;
        }
        ns_jr_path_pop (&r->j, old);
        char *name = strdup (json_object_get_string (e));
        if (!name)
            return ns_jr_fail_errno (&r->j, ENOMEM, "out of memory");
        r->cfg->scope[k].names[r->cfg->scope[k].n++] = name;
    }
    return 0;
}

static int read_partitions (struct reader *r, json_object *v)
{
    return read_scope (r, v, NS_SCOPE_PARTITION);
}

static int read_accounts (struct reader *r, json_object *v)
{
    return read_scope (r, v, NS_SCOPE_ACCOUNT);
}

static int read_qos (struct reader *r, json_object *v)
{
    return read_scope (r, v, NS_SCOPE_QOS);
}

static int get_bool (struct reader *r, json_object *v, int *out)
{
    if (!json_object_is_type (v, json_type_boolean))
        return ns_jr_fail_got (&r->j, v, "true or false");
    *out = json_object_get_boolean (v) ? 1 : 0;
    return 0;
}

static int read_stripe_gres_nodes (struct reader *r, json_object *v)
{
    return get_bool (r, v, &r->cfg->stripe_gres_nodes);
}

static int read_stripe_no_requeue (struct reader *r, json_object *v)
{
    return get_bool (r, v, &r->cfg->policy.stripe_no_requeue);
}

static int read_admin_comment (struct reader *r, json_object *v)
{
    return get_bool (r, v, &r->cfg->admin_comment);
}

static int read_metrics_file (struct reader *r, json_object *v)
{
    const char *s = json_object_is_type (v, json_type_string)
                        ? json_object_get_string (v) : NULL;
    if (!s || s[0] != '/' || json_object_get_string_len (v) >= 4096)
        return ns_jr_fail_got (&r->j, v, "an absolute file name");
    free (r->cfg->metrics_file);
    if (!(r->cfg->metrics_file = strdup (s)))
        return ns_jr_fail_errno (&r->j, ENOMEM, "out of memory");
    return 0;
}

static int read_shadow_max_bytes (struct reader *r, json_object *v)
{
    uint64_t b = 0;
    int64_t i;
    if (json_object_is_type (v, json_type_string)) {
        if (ns_parse_size (json_object_get_string (v), &b) < 0)
            return ns_jr_fail_got (&r->j, v, SIZE_EXPECT);
    }
    else if (ns_jr_get_integer (&r->j, v, 0, INT64_MAX, SIZE_EXPECT, &i) < 0)
        return -1;
    else
        b = (uint64_t)i;
    if (b < NS_SHADOW_MAX_BYTES_MIN)
        return ns_jr_fail_got (&r->j, v, "a size of at least 64K");
    r->cfg->shadow_max_bytes = b;
    return 0;
}

static int read_shadow_keep (struct reader *r, json_object *v)
{
    int64_t i;
    if (ns_jr_get_integer (&r->j, v, 1, 1000, "an integer 1..1000", &i) < 0)
        return -1;
    r->cfg->shadow_keep = (int)i;
    return 0;
}

static const struct key shadow_keys[] = {
    { "max_bytes", read_shadow_max_bytes },
    { "keep", read_shadow_keep },
    { NULL, NULL },
};

static int read_shadow (struct reader *r, json_object *v)
{
    if (!json_object_is_type (v, json_type_object))
        return ns_jr_fail_got (&r->j, v, "an object with max_bytes, keep");
    return ns_cfg_read_object (r, v, shadow_keys);
}

/* "learned": the evidence nodeshare-learn writes beside the figures it
 * fitted (observations, standard errors); informational, not read. */
static int read_learned (struct reader *r, json_object *v)
{
    if (!json_object_is_type (v, json_type_object))
        return ns_jr_fail_got (&r->j, v, "an object (written by nodeshare-learn)");
    return 0;
}

/* programs first: its names get the lowest ids (ABQ, LAM, LSD -> 0, 1, 2)
 * whatever else the file mentions, and wherever it puts them. */
static const struct key top_keys[] = {
    { "programs", ns_cfg_read_programs },
    { "policy", read_policy },
    { "mode", read_mode },
    { "stripe_width", read_stripe_width },
    { "max_cotenants", read_max_cotenants },
    { "max_slowdown", read_max_slowdown },
    { "fallback_after", read_fallback_after },
    { "seed", read_seed },
    { "small_job_cores", read_small_job_cores },
    { "stripe_margin", read_stripe_margin },
    { "default_speedup", ns_cfg_read_default_speedup },
    { "default_slowdown", ns_cfg_read_default_slowdown },
    { "identity", ns_cfg_read_identity },
    { "cache", read_cache },
    { "learned", read_learned },
    { "learn", read_learn },
    { "partitions", read_partitions },
    { "accounts", read_accounts },
    { "qos", read_qos },
    { "stripe_gres_nodes", read_stripe_gres_nodes },
    { "stripe_no_requeue", read_stripe_no_requeue },
    { "admin_comment", read_admin_comment },
    { "metrics_file", read_metrics_file },
    { "shadow", read_shadow },
    { NULL, NULL },
};

int ns_cfg_read_top (struct reader *r, json_object *root)
{
    ns_error_t sub;
    if (!json_object_is_type (root, json_type_object))
        return ns_jr_fail_got (&r->j, root, "an object");
    r->def_speedup = ns_interf_speedup (r->cfg->interf, NS_PROGRAM_UNKNOWN);
    r->def_slowdown = ns_interf_slowdown (r->cfg->interf, NS_PROGRAM_UNKNOWN,
                                          NS_PROGRAM_UNKNOWN);
    if (ns_cfg_read_object (r, root, top_keys) < 0)
        return -1;
    if (ns_interf_set_defaults (r->cfg->interf, r->def_speedup,
                                r->def_slowdown, &sub) < 0)
        return ns_cfg_fail_sub (r, &sub);
    return 0;
}
