/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config.c - nodeshare.json, read strictly
 *
 * json-c builds the tree (its default, non-strict tokener accepts C and
 * C++ comments, which administrators need to annotate figures).  The tree
 * is then walked with one table of keys per object, so every key is known,
 * typed and ranged, and every failure names its JSON path.  The config is
 * built in a fresh object and only handed out once the whole file is good:
 * a failed load has no side effects.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json.h>

#include "jsonread.h"
#include "nsconfig.h"
#include "nsconfig_test.h"
#include "nsranges.h"


struct ns_config {
    ns_policy_t policy;
    ns_progtab_t *progs;
    ns_interf_t *interf;
    ns_identity_t *identity;
    double cache_sigma;
    uint64_t cache_footprint;
    ns_learn_conf_t learn;
    ns_mode_t mode;
    struct {
        char **names;
        int n;
        int set;            /* the key was given (an empty list: nowhere) */
    } scope[NS_SCOPE_KINDS];
    int stripe_gres_nodes;
    int admin_comment;
    char *metrics_file;
    uint64_t shadow_max_bytes;
    int shadow_keep;
};

/* State of one load: where we are in the tree, for error messages, and
 * what the handlers of nested keys need from their parents. */
struct reader {
    ns_jreader_t j;         /* file name, error, JSON path */
    ns_config_t *cfg;
    int program;            /* programs.NAME being read */
    double def_speedup;     /* applied together once all keys are read */
    double def_slowdown;
    const char *pat_match;  /* identity.patterns[i] being read */
    const char *pat_program;
};

struct key {
    const char *name;
    int (*read) (struct reader *r, json_object *v);
};

/*
 * Create / destroy / accessors
 */

ns_config_t *ns_config_create (void)
{
    ns_config_t *cfg = calloc (1, sizeof (*cfg));
    if (!cfg)
        return NULL;
    ns_policy_default (&cfg->policy);
    cfg->cache_sigma = 1.0;
    cfg->cache_footprint = 0;
    cfg->learn = (ns_learn_conf_t){ .enabled = 0, .min_observations = 5,
                                    .max_observations = 20000,
                                    .max_se = 0.05, .save_every = 60 };
    cfg->admin_comment = 1;
    cfg->shadow_max_bytes = NS_SHADOW_MAX_BYTES_DEFAULT;
    cfg->shadow_keep = NS_SHADOW_KEEP_DEFAULT;
    cfg->progs = ns_progtab_create ();
    cfg->interf = ns_interf_create ();
    cfg->identity = ns_identity_create ();
    if (!cfg->progs || !cfg->interf || !cfg->identity) {
        ns_config_destroy (cfg);
        errno = ENOMEM;
        return NULL;
    }
    return cfg;
}

void ns_config_destroy (ns_config_t *cfg)
{
    if (!cfg)
        return;
    int saved = errno;
    ns_progtab_destroy (cfg->progs);
    ns_interf_destroy (cfg->interf);
    ns_identity_destroy (cfg->identity);
    for (int k = 0; k < NS_SCOPE_KINDS; k++) {
        for (int i = 0; i < cfg->scope[k].n; i++)
            free (cfg->scope[k].names[i]);
        free (cfg->scope[k].names);
    }
    free (cfg->metrics_file);
    free (cfg);
    errno = saved;
}

const ns_policy_t *ns_config_policy (const ns_config_t *cfg)
{
    return cfg ? &cfg->policy : NULL;
}

ns_progtab_t *ns_config_progtab (ns_config_t *cfg)
{
    return cfg ? cfg->progs : NULL;
}

const ns_interf_t *ns_config_interf (const ns_config_t *cfg)
{
    return cfg ? cfg->interf : NULL;
}

const ns_identity_t *ns_config_identity (const ns_config_t *cfg)
{
    return cfg ? cfg->identity : NULL;
}

const ns_learn_conf_t *ns_config_learn (const ns_config_t *cfg)
{
    static const ns_learn_conf_t off = { 0, 5, 20000, 0.05, 60, 0 };
    return cfg ? &cfg->learn : &off;
}

ns_mode_t ns_config_mode (const ns_config_t *cfg)
{
    return cfg ? cfg->mode : NS_MODE_NORMAL;
}

const char *ns_mode_name (ns_mode_t mode)
{
    return mode == NS_MODE_SHADOW ? "shadow" : "normal";
}

double ns_config_cache_sigma (const ns_config_t *cfg)
{
    return cfg ? cfg->cache_sigma : 1.0;
}

const char *ns_scope_key (ns_scope_kind_t k)
{
    switch (k) {
    case NS_SCOPE_PARTITION: return "partitions";
    case NS_SCOPE_ACCOUNT: return "accounts";
    case NS_SCOPE_QOS: return "qos";
    case NS_SCOPE_KINDS: break;
    }
    return "?";
}

int ns_config_scope_count (const ns_config_t *cfg, ns_scope_kind_t k)
{
    if (!cfg || k < 0 || k >= NS_SCOPE_KINDS || !cfg->scope[k].set)
        return -1;
    return cfg->scope[k].n;
}

const char *ns_config_scope_name (const ns_config_t *cfg, ns_scope_kind_t k,
                                  int i)
{
    if (!cfg || k < 0 || k >= NS_SCOPE_KINDS || i < 0
        || i >= cfg->scope[k].n)
        return NULL;
    return cfg->scope[k].names[i];
}

int ns_config_out_of_scope (const ns_config_t *cfg, const char *partition,
                            const char *account, const char *qos)
{
    const char *v[NS_SCOPE_KINDS] = { partition, account, qos };
    if (!cfg)
        return -1;
    for (int k = 0; k < NS_SCOPE_KINDS; k++) {
        if (!cfg->scope[k].set)
            continue;
        int in = 0;
        for (int i = 0; v[k] && i < cfg->scope[k].n && !in; i++)
            in = !strcmp (cfg->scope[k].names[i], v[k]);
        if (!in)
            return k;
    }
    return -1;
}

int ns_config_stripe_gres_nodes (const ns_config_t *cfg)
{
    return cfg ? cfg->stripe_gres_nodes : 0;
}

int ns_config_admin_comment (const ns_config_t *cfg)
{
    return cfg ? cfg->admin_comment : 0;
}

const char *ns_config_metrics_file (const ns_config_t *cfg)
{
    return cfg ? cfg->metrics_file : NULL;
}

uint64_t ns_config_shadow_max_bytes (const ns_config_t *cfg)
{
    return cfg ? cfg->shadow_max_bytes : NS_SHADOW_MAX_BYTES_DEFAULT;
}

int ns_config_shadow_keep (const ns_config_t *cfg)
{
    return cfg ? cfg->shadow_keep : NS_SHADOW_KEEP_DEFAULT;
}

uint64_t ns_config_cache_footprint (const ns_config_t *cfg)
{
    return cfg ? cfg->cache_footprint : 0;
}

/*
 * Sizes
 */

/* K, M, G, T (any case) -> shift in bits; 0 and no advance otherwise. */
static int unit_shift (const char *u, const char **end)
{
    static const char units[] = "KMGT";
    const char *p = *u ? strchr (units, *u & ~0x20) : NULL;
    *end = p ? u + 1 : u;
    return p ? 10 * (int)(p - units + 1) : 0;
}

/* floor (f / pow10 * 2^shift), exactly: binary long division of the
 * decimal fraction, so "1.1K" is 1126 bytes on every platform. */
static uint64_t fraction_bytes (uint64_t f, uint64_t pow10, int shift)
{
    uint64_t q = 0;
    for (int i = 0; i < shift; i++) {
        f *= 2;
        q = q * 2 + (f >= pow10);
        if (f >= pow10)
            f -= pow10;
    }
    return q;
}

/* The unit after the number: "", B, K, KB, KiB, ... (any case). */
static int parse_unit (const char *p, int *shift)
{
    const char *u;
    *shift = unit_shift (p, &u);
    if (*shift > 0 && (*u == 'i' || *u == 'I')) {
        if (*++u != 'b' && *u != 'B')
            return -1; /* "Ki" alone */
    }
    if (*u == 'b' || *u == 'B')
        u++;
    return *u == '\0' ? 0 : -1;
}

int ns_parse_size (const char *s, uint64_t *bytes)
{
    uint64_t n = 0, f = 0, pow10 = 1;
    const char *p = s;
    int shift;

    if (!s || !bytes || *p < '0' || *p > '9')
        goto inval;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (n > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
            goto range;
        n = n * 10 + (uint64_t)(*p - '0');
    }
    bool frac = *p == '.';
    if (frac) {
        if (*++p < '0' || *p > '9')
            goto inval;
        /* 10^18 is the largest power of ten the division can hold. */
        for (; *p >= '0' && *p <= '9'; p++) {
            if (pow10 == 1000000000000000000ull)
                goto inval;
            f = f * 10 + (uint64_t)(*p - '0');
            pow10 *= 10;
        }
    }
    /* "64 KiB" reads well; "64 " is a typo. */
    if (*p == ' ') {
        p += strspn (p, " ");
        if (*p == '\0')
            goto inval;
    }
    if (parse_unit (p, &shift) < 0 || (frac && shift == 0))
        goto inval; /* garbage, or a fraction of a byte */
    if (n > (UINT64_MAX >> shift))
        goto range;
    uint64_t whole = n << shift;
    uint64_t part = frac ? fraction_bytes (f, pow10, shift) : 0;
    if (whole > UINT64_MAX - part)
        goto range;
    *bytes = whole + part;
    return 0;
inval:
    errno = EINVAL;
    return -1;
range:
    errno = ERANGE;
    return -1;
}

/*
 * Error messages: "SRC: PATH: expected WHAT, got WHAT"
 */

/* A model/ setter failed (after our own checks, so out of memory): keep
 * its message and errno, prefixed with where we are. */
static int fail_sub (struct reader *r, const ns_error_t *sub)
{
    return ns_jr_fail_errno (&r->j, errno, "%s", sub->text);
}

/*
 * JSON paths: programs.LAM.slowdown.ABQ, identity.patterns[2].match,
 * programs["a.out"] for keys that would be ambiguous after a dot.
 */

/*
 * Typed values
 */

static bool is_number (json_object *v)
{
    return json_object_is_type (v, json_type_int)
           || json_object_is_type (v, json_type_double);
}

/* A number in lo..hi; expect says so in the message. */
static int get_number (struct reader *r, json_object *v, double lo, double hi,
                       const char *expect, double *out)
{
    if (!is_number (v))
        return ns_jr_fail_got (&r->j, v, "%s", expect);
    double d = json_object_get_double (v);
    if (!isfinite (d) || d < lo || d > hi)
        return ns_jr_fail_got (&r->j, v, "%s", expect);
    *out = d;
    return 0;
}

/* Check a program name the way progtab will, but with a message that
 * says where the name is and what it was. */
static int check_program_name (struct reader *r, const char *name,
                               const char *expect)
{
    char q[NS_JSON_GOT_MAX];
    if (!*name)
        return ns_jr_fail_errno (&r->j, EINVAL, "expected %s, got \"\"", expect);
    if (strlen (name) >= NS_PROGRAM_NAME_MAX)
        return ns_jr_fail_errno (&r->j, EINVAL,
                           "expected %s of at most %d characters, got %s",
                           expect, NS_PROGRAM_NAME_MAX - 1,
                           ns_json_quote (name, q, sizeof (q)));
    return 0;
}

static int intern (struct reader *r, const char *name)
{
    ns_error_t sub;
    if (check_program_name (r, name, "a program name") < 0)
        return -1;
    int id = ns_progtab_intern (r->cfg->progs, name, &sub);
    if (id < 0)
        return fail_sub (r, &sub);
    return id;
}

/*
 * Objects: every key must be in the table; handlers run in table order
 * (not file order), so that programs are interned before anything else.
 */

static const struct key *find_key (const struct key *keys, const char *name)
{
    for (; keys->name; keys++) {
        if (strcmp (keys->name, name) == 0)
            return keys;
    }
    return NULL;
}

static int fail_unknown (struct reader *r, const struct key *keys)
{
    char list[NS_ERROR_TEXT - 128] = "";
    size_t len = 0;
    for (const struct key *k = keys; k->name && len < sizeof (list); k++)
        len += (size_t)snprintf (list + len, sizeof (list) - len, "%s%s",
                                 k == keys ? "" : ", ", k->name);
    return ns_jr_fail_errno (&r->j, EINVAL, "unknown key (expected one of %s)", list);
}

static int read_object (struct reader *r, json_object *obj,
                        const struct key *keys)
{
    json_object_object_foreach (obj, name, val) {
        (void)val;
        if (!find_key (keys, name)) {
            ns_jr_path_key (&r->j, name);
            return fail_unknown (r, keys);
        }
    }
    for (const struct key *k = keys; k->name; k++) {
        json_object *v;
        if (!json_object_object_get_ex (obj, k->name, &v))
            continue;
        size_t old = ns_jr_path_key (&r->j, k->name);
        int rc = k->read (r, v);
        ns_jr_path_pop (&r->j, old);
        if (rc < 0)
            return -1;
    }
    return 0;
}

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
        return errno == ENOMEM ? fail_sub (r, &sub)
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
    return get_number (r, v, 1.0, 100.0, "a number 1.0..100",
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
    return get_number (r, v, -1.0, 10.0, "a number -1..10",
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

#define FIGURE "a number 0.01..100"

static int read_default_speedup (struct reader *r, json_object *v)
{
    return get_number (r, v, 0.01, 100.0, FIGURE, &r->def_speedup);
}

static int read_default_slowdown (struct reader *r, json_object *v)
{
    return get_number (r, v, 0.01, 100.0, FIGURE, &r->def_slowdown);
}

/*
 * programs: NAME -> { spread_speedup, slowdown: { NAME: number }, weight }
 */

static int read_spread_speedup (struct reader *r, json_object *v)
{
    ns_error_t sub;
    double d;
    if (get_number (r, v, 0.01, 100.0, FIGURE, &d) < 0)
        return -1;
    if (ns_interf_set_speedup (r->cfg->interf, r->program, d, &sub) < 0)
        return fail_sub (r, &sub);
    return 0;
}

static int read_slowdown_entry (struct reader *r, const char *name,
                                json_object *v)
{
    ns_error_t sub;
    double d;
    int q = intern (r, name);
    if (q < 0 || get_number (r, v, 0.01, 100.0, FIGURE, &d) < 0)
        return -1;
    if (ns_interf_set_slowdown (r->cfg->interf, r->program, q, d, &sub) < 0)
        return fail_sub (r, &sub);
    return 0;
}

static int read_slowdown (struct reader *r, json_object *v)
{
    if (!json_object_is_type (v, json_type_object))
        return ns_jr_fail_got (&r->j, v, "an object (co-tenant program -> slowdown)");
    json_object_object_foreach (v, name, val) {
        size_t old = ns_jr_path_key (&r->j, name);
        int rc = read_slowdown_entry (r, name, val);
        ns_jr_path_pop (&r->j, old);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int read_weight (struct reader *r, json_object *v)
{
    ns_error_t sub;
    double d;
    if (get_number (r, v, 0.0, 1e9, "a number 0..1e9", &d) < 0)
        return -1;
    if (ns_interf_set_weight (r->cfg->interf, r->program, d, &sub) < 0)
        return fail_sub (r, &sub);
    return 0;
}

static int read_runtime (struct reader *r, json_object *v)
{
    ns_error_t sub;
    double d;
    if (get_number (r, v, 1.0, 1e9, "a number of seconds 1..1e9", &d) < 0)
        return -1;
    if (ns_interf_set_runtime (r->cfg->interf, r->program, d, &sub) < 0)
        return fail_sub (r, &sub);
    return 0;
}

static const struct key program_keys[] = {
    { "spread_speedup", read_spread_speedup },
    { "slowdown", read_slowdown },
    { "weight", read_weight },
    { "runtime", read_runtime },
    { NULL, NULL },
};

static int read_program (struct reader *r, const char *name, json_object *v)
{
    int id = intern (r, name);
    if (id < 0)
        return -1;
    if (!json_object_is_type (v, json_type_object))
        return ns_jr_fail_got (&r->j, v, "an object with spread_speedup, slowdown, "
                               "weight, runtime");
    r->program = id;
    return read_object (r, v, program_keys);
}

static int read_programs (struct reader *r, json_object *v)
{
    if (!json_object_is_type (v, json_type_object))
        return ns_jr_fail_got (&r->j, v, "an object (program name -> figures)");
    json_object_object_foreach (v, name, val) {
        size_t old = ns_jr_path_key (&r->j, name);
        int rc = read_program (r, name, val);
        ns_jr_path_pop (&r->j, old);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/*
 * identity: { order: [...], patterns: [ { match, program }, ... ] }
 */

static int read_order_entry (struct reader *r, json_object *v, bool *seen,
                             ns_idsource_t *out)
{
    int s = -1;
    if (json_object_is_type (v, json_type_string))
        s = ns_idsource_parse (json_object_get_string (v));
    if (s < 0 || s >= NS_ID_NONE)
        return ns_jr_fail_got (&r->j, v, "one of tag, script, name");
    if (seen[s])
        return ns_jr_fail_got (&r->j, v, "each source at most once");
    seen[s] = true;
    *out = (ns_idsource_t)s;
    return 0;
}

static int read_order (struct reader *r, json_object *v)
{
    /* One spare slot: with only three sources, a fourth entry is a
     * repeat, which read_order_entry() rejects before writing it. */
    ns_idsource_t order[NS_ID_NONE + 1];
    bool seen[NS_ID_NONE] = { false };
    ns_error_t sub;

    if (!json_object_is_type (v, json_type_array)
        || json_object_array_length (v) == 0)
        return ns_jr_fail_got (&r->j, v, "an array of 1..3 sources (tag, script, name)");
    size_t n = json_object_array_length (v);
    for (size_t i = 0; i < n; i++) {
        size_t old = ns_jr_path_index (&r->j, i);
        int rc = read_order_entry (r, json_object_array_get_idx (v, i), seen,
                                   &order[i]);
        ns_jr_path_pop (&r->j, old);
        if (rc < 0)
            return -1;
    }
    if (ns_identity_set_order (r->cfg->identity, order, (int)n, &sub) < 0)
        return fail_sub (r, &sub);
    return 0;
}

static int read_pattern_match (struct reader *r, json_object *v)
{
    if (!json_object_is_type (v, json_type_string)
        || json_object_get_string_len (v) == 0)
        return ns_jr_fail_got (&r->j, v, "a non-empty glob");
    r->pat_match = json_object_get_string (v);
    return 0;
}

static int read_pattern_program (struct reader *r, json_object *v)
{
    if (!json_object_is_type (v, json_type_string))
        return ns_jr_fail_got (&r->j, v, "a program name");
    if (intern (r, json_object_get_string (v)) < 0)
        return -1;
    r->pat_program = json_object_get_string (v);
    return 0;
}

static const struct key pattern_keys[] = {
    { "match", read_pattern_match },
    { "program", read_pattern_program },
    { NULL, NULL },
};

/* A key that must be there: point the path at it. */
static int fail_missing (struct reader *r, const char *key, const char *what)
{
    ns_jr_path_key (&r->j, key);
    return ns_jr_fail_errno (&r->j, EINVAL, "expected %s, got nothing", what);
}

static int read_pattern (struct reader *r, json_object *v)
{
    ns_error_t sub;
    if (!json_object_is_type (v, json_type_object))
        return ns_jr_fail_got (&r->j, v, "an object with match and program");
    r->pat_match = r->pat_program = NULL;
    if (read_object (r, v, pattern_keys) < 0)
        return -1;
    if (!r->pat_match)
        return fail_missing (r, "match", "a non-empty glob");
    if (!r->pat_program)
        return fail_missing (r, "program", "a program name");
    if (ns_identity_add_pattern (r->cfg->identity, r->pat_match,
                                 r->pat_program, &sub) < 0)
        return fail_sub (r, &sub);
    return 0;
}

static int read_patterns (struct reader *r, json_object *v)
{
    if (!json_object_is_type (v, json_type_array))
        return ns_jr_fail_got (&r->j, v, "an array of {match, program} objects");
    size_t n = json_object_array_length (v);
    for (size_t i = 0; i < n; i++) {
        size_t old = ns_jr_path_index (&r->j, i);
        int rc = read_pattern (r, json_object_array_get_idx (v, i));
        ns_jr_path_pop (&r->j, old);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static const struct key identity_keys[] = {
    { "order", read_order },
    { "patterns", read_patterns },
    { NULL, NULL },
};

static int read_identity (struct reader *r, json_object *v)
{
    if (!json_object_is_type (v, json_type_object))
        return ns_jr_fail_got (&r->j, v, "an object with order, patterns");
    return read_object (r, v, identity_keys);
}

/*
 * cache: { sigma, default_footprint }
 */

static int read_sigma (struct reader *r, json_object *v)
{
    return get_number (r, v, NS_SIGMA_MIN, NS_SIGMA_MAX,
                       "a number " NS_SIGMA_RANGE, &r->cfg->cache_sigma);
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
    if (ns_jr_get_integer (&r->j, v, 1, 1000000, "an integer 1..1000000", &i) < 0)
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
    return get_number (r, v, 0.0, 10.0, "a number 0..10",
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
    return read_object (r, v, learn_keys);
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
    return read_object (r, v, cache_keys);
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
    return read_object (r, v, shadow_keys);
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
    { "programs", read_programs },
    { "policy", read_policy },
    { "mode", read_mode },
    { "stripe_width", read_stripe_width },
    { "max_cotenants", read_max_cotenants },
    { "max_slowdown", read_max_slowdown },
    { "fallback_after", read_fallback_after },
    { "seed", read_seed },
    { "small_job_cores", read_small_job_cores },
    { "stripe_margin", read_stripe_margin },
    { "default_speedup", read_default_speedup },
    { "default_slowdown", read_default_slowdown },
    { "identity", read_identity },
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

static int read_top (struct reader *r, json_object *root)
{
    ns_error_t sub;
    if (!json_object_is_type (root, json_type_object))
        return ns_jr_fail_got (&r->j, root, "an object");
    r->def_speedup = ns_interf_speedup (r->cfg->interf, NS_PROGRAM_UNKNOWN);
    r->def_slowdown = ns_interf_slowdown (r->cfg->interf, NS_PROGRAM_UNKNOWN,
                                          NS_PROGRAM_UNKNOWN);
    if (read_object (r, root, top_keys) < 0)
        return -1;
    if (ns_interf_set_defaults (r->cfg->interf, r->def_speedup,
                                r->def_slowdown, &sub) < 0)
        return fail_sub (r, &sub);
    return 0;
}

/*
 * Text -> JSON tree
 */


/*
 * Loading
 */

/* TEXT of LEN bytes (and a NUL) -> a configuration. */
static ns_config_t *load (const char *text, size_t len, const char *src,
                          ns_error_t *err)
{
    json_object *root = NULL;
    if (ns_json_parse_text (text, len, NS_CONFIG_MAX_BYTES, src, &root, err)
        < 0)
        return NULL;
    struct reader r = { .j = { .src = src, .err = err } };
    if (!(r.cfg = ns_config_create ())) {
        ns_error_set (err, ENOMEM, "%s: out of memory", src);
        goto error;
    }
    if (read_top (&r, root) < 0)
        goto error;
    json_object_put (root);
    return r.cfg;
error:
    ns_config_destroy (r.cfg);
    json_object_put (root);
    return NULL;
}

ns_config_t *ns_config_load_string (const char *text, const char *srcname,
                                    ns_error_t *err)
{
    const char *src = srcname ? srcname : "(string)";
    if (!text) {
        ns_error_set (err, EINVAL, "%s: no text", src);
        return NULL;
    }
    return load (text, strlen (text), src, err);
}

/* Read all of fd into a NUL-terminated buffer of at most max bytes. */
static int read_all (int fd, size_t max, char **bufp, size_t *lenp)
{
    size_t len = 0, cap = 0;
    char *buf = NULL;
    for (;;) {
        if (len + 1 >= cap) {
            size_t ncap = cap ? cap * 2 : 8192;
            char *nbuf;
            if (ncap > max + 2)
                ncap = max + 2;
            if (ncap <= cap) {
                free (buf);
                errno = EFBIG;
                return -1;
            }
            if (!(nbuf = realloc (buf, ncap))) {
                free (buf);
                errno = ENOMEM;
                return -1;
            }
            buf = nbuf;
            cap = ncap;
        }
        ssize_t n = read (fd, buf + len, cap - len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int saved = errno;
            free (buf);
            errno = saved;
            return -1;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    *bufp = buf;
    *lenp = len;
    return 0;
}

static char *read_file (const char *path, size_t *lenp, ns_error_t *err)
{
    char *text;
    size_t len;
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        ns_error_set (err, e, "%s: cannot open: %s", path, strerror (e));
        return NULL;
    }
    int rc = read_all (fd, NS_CONFIG_MAX_BYTES, &text, &len);
    int e = errno;
    close (fd);
    if (rc < 0 && e == EFBIG) {
        ns_error_set (err, e, "%s: expected a file of at most 16 MiB, got "
                              "more", path);
        return NULL;
    }
    if (rc < 0) {
        ns_error_set (err, e, "%s: cannot read: %s", path, strerror (e));
        return NULL;
    }
    *lenp = len;    /* a NUL inside is an error of ns_json_parse_text() */
    return text;
}

ns_config_t *ns_config_load_file (const char *path, ns_error_t *err)
{
    if (!path) {
        ns_error_set (err, EINVAL, "no configuration file name");
        return NULL;
    }
    size_t len;
    char *text = read_file (path, &len, err);
    if (!text)
        return NULL;
    ns_config_t *cfg = load (text, len, path, err);
    int saved = errno;
    free (text);
    errno = saved;
    return cfg;
}
