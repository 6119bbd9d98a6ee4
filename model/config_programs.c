/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config_programs.c - nodeshare.json's programs (figures of each program
 * and of each pair), the default figures of programs it does not name,
 * and identity (how a job's program is found: order, patterns).
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
#include "nsconfig.h"

#define FIGURE "a number 0.01..100"

int ns_cfg_read_default_speedup (struct reader *r, json_object *v)
{
    return ns_cfg_get_number (r, v, 0.01, 100.0, FIGURE, &r->def_speedup);
}

int ns_cfg_read_default_slowdown (struct reader *r, json_object *v)
{
    return ns_cfg_get_number (r, v, 0.01, 100.0, FIGURE, &r->def_slowdown);
}

/*
 * programs: NAME -> { spread_speedup, slowdown: { NAME: number }, weight }
 */

static int read_spread_speedup (struct reader *r, json_object *v)
{
    ns_error_t sub;
    double d;
    if (ns_cfg_get_number (r, v, 0.01, 100.0, FIGURE, &d) < 0)
        return -1;
    if (ns_interf_set_speedup (r->cfg->interf, r->program, d, &sub) < 0)
        return ns_cfg_fail_sub (r, &sub);
    return 0;
}

static int read_slowdown_entry (struct reader *r, const char *name,
                                json_object *v)
{
    ns_error_t sub;
    double d;
    int q = ns_cfg_intern (r, name);
    if (q < 0 || ns_cfg_get_number (r, v, 0.01, 100.0, FIGURE, &d) < 0)
        return -1;
    if (ns_interf_set_slowdown (r->cfg->interf, r->program, q, d, &sub) < 0)
        return ns_cfg_fail_sub (r, &sub);
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
    if (ns_cfg_get_number (r, v, 0.0, 1e9, "a number 0..1e9", &d) < 0)
        return -1;
    if (ns_interf_set_weight (r->cfg->interf, r->program, d, &sub) < 0)
        return ns_cfg_fail_sub (r, &sub);
    return 0;
}

static int read_runtime (struct reader *r, json_object *v)
{
    ns_error_t sub;
    double d;
    if (ns_cfg_get_number (r, v, 1.0, 1e9, "a number of seconds 1..1e9", &d) < 0)
        return -1;
    if (ns_interf_set_runtime (r->cfg->interf, r->program, d, &sub) < 0)
        return ns_cfg_fail_sub (r, &sub);
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
    int id = ns_cfg_intern (r, name);
    if (id < 0)
        return -1;
    if (!json_object_is_type (v, json_type_object))
        return ns_jr_fail_got (&r->j, v, "an object with spread_speedup, slowdown, "
                               "weight, runtime");
    r->program = id;
    return ns_cfg_read_object (r, v, program_keys);
}

int ns_cfg_read_programs (struct reader *r, json_object *v)
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
        return ns_cfg_fail_sub (r, &sub);
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
    if (ns_cfg_intern (r, json_object_get_string (v)) < 0)
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
    if (ns_cfg_read_object (r, v, pattern_keys) < 0)
        return -1;
    if (!r->pat_match)
        return fail_missing (r, "match", "a non-empty glob");
    if (!r->pat_program)
        return fail_missing (r, "program", "a program name");
    if (ns_identity_add_pattern (r->cfg->identity, r->pat_match,
                                 r->pat_program, &sub) < 0)
        return ns_cfg_fail_sub (r, &sub);
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

int ns_cfg_read_identity (struct reader *r, json_object *v)
{
    if (!json_object_is_type (v, json_type_object))
        return ns_jr_fail_got (&r->j, v, "an object with order, patterns");
    return ns_cfg_read_object (r, v, identity_keys);
}

