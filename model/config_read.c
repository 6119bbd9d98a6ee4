/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config_read.c - nodeshare.json's values, typed and ranged: sizes
 * ("512K", "1.5G"), numbers, program names, and objects whose every key
 * must be in a table (config_int.h).  Every failure names its JSON path.
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
int ns_cfg_fail_sub (struct reader *r, const ns_error_t *sub)
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
int ns_cfg_get_number (struct reader *r, json_object *v, double lo,
                       double hi, const char *expect, double *out)
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

int ns_cfg_intern (struct reader *r, const char *name)
{
    ns_error_t sub;
    if (check_program_name (r, name, "a program name") < 0)
        return -1;
    int id = ns_progtab_intern (r->cfg->progs, name, &sub);
    if (id < 0)
        return ns_cfg_fail_sub (r, &sub);
    return id;
}

/*
 * Objects: every key must be in the table; handlers run in table order
 * (not file order), so that programs are interned before anything else.
 */

static int read_key (void *r, const void *key, json_object *v)
{
    return ((const struct key *)key)->read (r, v);
}

int ns_cfg_read_object (struct reader *r, json_object *obj,
                        const struct key *keys)
{
    return ns_jr_read_keys (&r->j, obj, keys, sizeof (*keys), read_key, r);
}

