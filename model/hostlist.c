/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hostlist.c - Slurm host list expansion (hostlist.h) */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hostlist.h"

struct hx {
    const char *all;    /* the whole list, for messages */
    int max, count;
    ns_hostlist_f fn;
    void *arg;
    ns_error_t *err;
    char name[NS_HOSTNAME_MAX];
};

/* One number of a range at *p (digits only): value and width. */
static int number (const char **p, const char *end, long *v, int *width)
{
    const char *s = *p;
    *v = 0;
    while (s < end && *s >= '0' && *s <= '9' && s - *p < 9)
        *v = *v * 10 + (*s++ - '0');
    *width = (int)(s - *p);
    if (*width == 0 || (s < end && *s >= '0' && *s <= '9'))
        return -1;      /* no digit, or more than 9 */
    *p = s;
    return 0;
}

/* Expand the expression e[0..n) after the len bytes already in h->name. */
static int expand (struct hx *h, const char *e, int n, int len)
{
    const char *open = memchr (e, '[', n);
    const char *close = memchr (e, ']', n);
    if (close && (!open || close < open))
        return ns_error_set (h->err, EINVAL, "host list '%s': ']' without "
                             "'[' at %d", h->all, (int)(close - h->all) + 1);
    if (!open) {
        if (len + n >= NS_HOSTNAME_MAX)
            return ns_error_set (h->err, E2BIG, "host list '%s': a name "
                                 "longer than %d bytes", h->all,
                                 NS_HOSTNAME_MAX - 1);
        memcpy (h->name + len, e, n);
        h->name[len + n] = '\0';
        if (len + n == 0)
            return ns_error_set (h->err, EINVAL, "host list '%s': empty "
                                 "name", h->all);
        if (++h->count > h->max)
            return ns_error_set (h->err, E2BIG, "host list '%s': more than "
                                 "%d names", h->all, h->max);
        return h->fn (h->name, h->arg);
    }
    const char *shut = memchr (open, ']', (size_t)(e + n - open));
    if (!shut)
        return ns_error_set (h->err, EINVAL, "host list '%s': unbalanced '[' "
                             "at %d", h->all, (int)(open - h->all) + 1);
    int pre = (int)(open - e);
    if (len + pre >= NS_HOSTNAME_MAX)
        return ns_error_set (h->err, E2BIG, "host list '%s': a name longer "
                             "than %d bytes", h->all, NS_HOSTNAME_MAX - 1);
    memcpy (h->name + len, e, pre);
    const char *p = open + 1;
    for (;;) {
        long lo, hi;
        int w, w2;
        const char *at = p;
        if (number (&p, shut, &lo, &w) < 0)
            return ns_error_set (h->err, EINVAL, "host list '%s': expected a "
                                 "number or range at %d", h->all,
                                 (int)(at - h->all) + 1);
        hi = lo;
        if (p < shut && *p == '-') {
            p++;
            at = p;
            if (number (&p, shut, &hi, &w2) < 0 || hi < lo)
                return ns_error_set (h->err, EINVAL, "host list '%s': "
                                     "expected a number >= %ld at %d",
                                     h->all, lo, (int)(at - h->all) + 1);
        }
        if (p < shut && *p != ',')
            return ns_error_set (h->err, EINVAL, "host list '%s': expected "
                                 "',' or ']' at %d", h->all,
                                 (int)(p - h->all) + 1);
        for (long v = lo; v <= hi; v++) {
            char num[16];
            int k = snprintf (num, sizeof (num), "%0*ld", w, v);
            if (len + pre + k >= NS_HOSTNAME_MAX)
                return ns_error_set (h->err, E2BIG, "host list '%s': a name "
                                     "longer than %d bytes", h->all,
                                     NS_HOSTNAME_MAX - 1);
            memcpy (h->name + len + pre, num, k);
            int rc = expand (h, shut + 1, (int)(e + n - shut - 1),
                             len + pre + k);
            if (rc)
                return rc;
            /* the prefix may have been overwritten by a deeper level */
            memcpy (h->name + len, e, pre);
        }
        if (p == shut)
            break;
        p++;    /* ',' */
    }
    return 0;
}

int ns_hostlist_expand (const char *s, int max, ns_hostlist_f fn, void *arg,
                        ns_error_t *err)
{
    struct hx h = { .all = s, .max = max, .fn = fn, .arg = arg, .err = err };
    const char *p = s;
    if (!s || !*s)
        return ns_error_set (err, EINVAL, "empty host list");
    for (;;) {
        /* the next comma outside brackets */
        const char *q = p;
        int depth = 0;
        while (*q && (depth || *q != ',')) {
            if (*q == '[')
                depth++;
            else if (*q == ']')
                depth--;
            if (depth < 0 || depth > 1)
                return ns_error_set (err, EINVAL, "host list '%s': "
                                     "unexpected '%c' at %d", s, *q,
                                     (int)(q - s) + 1);
            q++;
        }
        if (depth)
            return ns_error_set (err, EINVAL, "host list '%s': unbalanced "
                                 "'[' before %d", s, (int)(q - s) + 1);
        int rc = expand (&h, p, (int)(q - p), 0);
        if (rc)
            return rc;
        if (!*q)
            return 0;
        p = q + 1;
    }
}
