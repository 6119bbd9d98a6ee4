/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodefail.c - node failures in a sacct dump (see nodefail.h) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <zlib.h>

#include "nodefail.h"
#include "nodefail_test.h"

/* Field k (0-based) of a '|'-separated line [s, e): its bounds. */
static int field (const char *s, const char *e, int k, const char **fs,
                  const char **fe)
{
    for (int i = 0; i < k; i++) {
        const char *p = memchr (s, '|', (size_t)(e - s));
        if (!p)
            return -1;
        s = p + 1;
    }
    const char *p = memchr (s, '|', (size_t)(e - s));
    *fs = s;
    *fe = p ? p : e;
    return 0;
}

/* The column named name (spaces around it ignored), or -1. */
static int column (const char *s, const char *e, const char *name)
{
    size_t n = strlen (name);
    for (int k = 0;; k++) {
        const char *fs, *fe;
        if (field (s, e, k, &fs, &fe) < 0)
            return -1;
        while (fs < fe && (*fs == ' ' || *fs == '\t'))
            fs++;
        while (fe > fs && (fe[-1] == ' ' || fe[-1] == '\t'))
            fe--;
        if ((size_t)(fe - fs) == n && strncasecmp (fs, name, n) == 0)
            return k;
    }
}

struct st {
    const char *name;
    int64_t line;
    int c_id, c_state;
    int header;             /* the header was read */
};

static int one_line (struct st *x, const char *s, const char *e,
                     ns_nodefail_t *out, ns_error_t *err)
{
    x->line++;
    if (e > s && e[-1] == '\r')
        e--;
    if (e == s)
        return 0;
    if (!x->header) {
        x->header = 1;
        x->c_id = column (s, e, "JobIDRaw");
        if (x->c_id < 0)
            x->c_id = column (s, e, "JobID");
        x->c_state = column (s, e, "State");
        if (x->c_id < 0)
            return ns_error_set (err, EINVAL, "%s: line %lld: expected a "
                                 "sacct --parsable2 header naming JobID or "
                                 "JobIDRaw", x->name, (long long)x->line);
        return 0;
    }
    if (x->c_state < 0)
        return 0;       /* no State: no failure known */
    const char *is, *ie, *ss, *se;
    if (field (s, e, x->c_id, &is, &ie) < 0
        || field (s, e, x->c_state, &ss, &se) < 0)
        return ns_error_set (err, EINVAL, "%s: line %lld: field %s: "
                             "expected at least %d fields, as the header "
                             "has", x->name, (long long)x->line,
                             x->c_id > x->c_state ? "JobID" : "State",
                             (x->c_id > x->c_state ? x->c_id : x->c_state)
                                 + 1);
    if (memchr (is, '.', (size_t)(ie - is)))
        return 0;
    out->jobs++;
    out->node_fail += se - ss >= 9 && strncmp (ss, "NODE_FAIL", 9) == 0;
    return 0;
}

int ns_nodefail_parse (const char *text, size_t len, const char *name,
                       ns_nodefail_t *out, ns_error_t *err)
{
    struct st x = { name, 0, -1, -1, 0 };
    const char *p = text, *end = text + len;
    memset (out, 0, sizeof (*out));
    while (p < end) {
        const char *nl = memchr (p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        if (one_line (&x, p, e, out, err) < 0)
            return -1;
        p = nl ? nl + 1 : end;
    }
    return 0;
}

int ns_nodefail_read (const char *path, ns_nodefail_t *out,
                      ns_error_t *err)
{
    if (strcmp (path, "-") == 0)
        return ns_error_set (err, EINVAL, "-: node failures are not read "
                             "from stdin");
    gzFile g = gzopen (path, "rb");
    if (!g)
        return ns_error_set (err, errno ? errno : ENOMEM, "%s: %s", path,
                             strerror (errno ? errno : ENOMEM));
    struct st x = { path, 0, -1, -1, 0 };
    memset (out, 0, sizeof (*out));
    /* lines longer than the buffer grow it */
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc (cap);
    int n = 0, rc = buf ? 0 : ns_error_set (err, ENOMEM, "out of memory");
    while (rc == 0) {
        if (len == cap) {
            char *nb = realloc (buf, cap * 2);
            if (!nb) {
                rc = ns_error_set (err, ENOMEM, "out of memory");
                break;
            }
            buf = nb;
            cap *= 2;
        }
        n = gzread (g, buf + len, (unsigned)(cap - len));
        if (n < 0) {
            int e;
            rc = ns_error_set (err, EIO, "%s: line %lld: %s", path,
                               (long long)x.line + 1, gzerror (g, &e));
            break;
        }
        len += (size_t)n;
        char *s = buf, *end = buf + len, *nl;
        while (rc == 0 && (nl = memchr (s, '\n', (size_t)(end - s)))) {
            rc = one_line (&x, s, nl, out, err);
            s = nl + 1;
        }
        if (n == 0) {
            if (rc == 0 && s < end)
                rc = one_line (&x, s, end, out, err);
            break;
        }
        memmove (buf, s, (size_t)(end - s));
        len = (size_t)(end - s);
    }
    gzclose (g);
    free (buf);
    return rc;
}
