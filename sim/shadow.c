/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shadow.c - the select plugin's shadow records (see shadow.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "shadow.h"

/* The string key k into buf (cut to fit); absent: "". */
static int get_text (json_object *o, const char *k, char *buf, size_t size,
                     ns_error_t *err)
{
    json_object *v;
    buf[0] = '\0';
    if (!json_object_object_get_ex (o, k, &v) || !v)
        return 0;
    if (!json_object_is_type (v, json_type_string))
        return ns_error_set (err, EINVAL, "\"%s\": expected a string", k);
    snprintf (buf, size, "%s", json_object_get_string (v));
    return 0;
}

/* The integer key k in [lo, hi]; absent: *out untouched, returns 0. */
static int get_int (json_object *o, const char *k, int64_t lo, int64_t hi,
                    int64_t *out, int *present, ns_error_t *err)
{
    json_object *v;
    *present = 0;
    if (!json_object_object_get_ex (o, k, &v) || !v)
        return 0;
    if (!json_object_is_type (v, json_type_int))
        return ns_error_set (err, EINVAL, "\"%s\": expected an integer", k);
    errno = 0;
    int64_t x = json_object_get_int64 (v);
    if (errno || x < lo || x > hi)
        return ns_error_set (err, EINVAL, "\"%s\": %lld is out of range "
                             "%lld..%lld", k, (long long)x, (long long)lo,
                             (long long)hi);
    *out = x;
    *present = 1;
    return 0;
}

int ns_shadow_parse (const char *line, size_t len, ns_shadow_rec_t *rec,
                     ns_error_t *err)
{
    size_t a = 0;
    while (a < len && (line[a] == ' ' || line[a] == '\t' || line[a] == '\r'
                       || line[a] == '\n'))
        a++;
    if (a == len)
        return 0;
    if (memchr (line, '\0', len))
        return ns_error_set (err, EINVAL, "a NUL byte in the line");
    if (len > (size_t)1 << 20)
        return ns_error_set (err, EINVAL, "line longer than 1 MiB");
    json_tokener *tok = json_tokener_new ();
    if (!tok)
        return ns_error_set (err, ENOMEM, "out of memory");
    json_object *o = json_tokener_parse_ex (tok, line, (int)len);
    enum json_tokener_error je = json_tokener_get_error (tok);
    size_t end = json_tokener_get_parse_end (tok);
    json_tokener_free (tok);
    int rc = -1;
    if (!o || je != json_tokener_success) {
        ns_error_set (err, EINVAL, "not a JSON object (%s)",
                      je == json_tokener_continue
                          ? "unexpected end of line"
                          : json_tokener_error_desc (je));
        goto out;
    }
    for (; end < len; end++)
        if (!strchr (" \t\r\n", line[end])) {
            ns_error_set (err, EINVAL, "text after the JSON object at "
                          "column %zu", end + 1);
            goto out;
        }
    if (!json_object_is_type (o, json_type_object)) {
        ns_error_set (err, EINVAL, "expected a JSON object, one per line");
        goto out;
    }
    memset (rec, 0, sizeof (*rec));
    rec->time = -1;
    rec->cores = -1;
    int have;
    int64_t v;
    if (get_int (o, "job", 0, INT64_MAX, &rec->job, &have, err) < 0)
        goto out;
    if (!have) {
        ns_error_set (err, EINVAL, "no \"job\"");
        goto out;
    }
    if (get_int (o, "time", 0, INT64_MAX, &rec->time, &have, err) < 0)
        goto out;
    if (get_int (o, "cores", 1, 1 << 24, &v, &have, err) < 0)
        goto out;
    if (have)
        rec->cores = (int)v;
    json_object *d;
    if (!json_object_object_get_ex (o, "differs", &d) || !d) {
        ns_error_set (err, EINVAL, "no \"differs\"");
        goto out;
    }
    if (!json_object_is_type (d, json_type_boolean)) {
        ns_error_set (err, EINVAL, "\"differs\": expected true or false");
        goto out;
    }
    rec->differs = json_object_get_boolean (d) ? 1 : 0;
    if (get_text (o, "program", rec->program, sizeof (rec->program), err) < 0
        || get_text (o, "policy", rec->policy, sizeof (rec->policy), err) < 0
        || get_text (o, "would", rec->would, sizeof (rec->would), err) < 0
        || get_text (o, "nodes", rec->nodes, sizeof (rec->nodes), err) < 0
        || get_text (o, "shape", rec->shape, sizeof (rec->shape), err) < 0
        || get_text (o, "rule", rec->rule, sizeof (rec->rule), err) < 0
        || get_text (o, "stock", rec->stock, sizeof (rec->stock), err) < 0
        || get_text (o, "why", rec->why, sizeof (rec->why), err) < 0)
        goto out;
    rc = 1;
out:
    json_object_put (o);
    return rc;
}

int ns_shadow_read (const char *path, ns_shadow_fn fn, void *arg,
                    ns_error_t *err)
{
    int is_stdin = strcmp (path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen (path, "r");
    if (!f)
        return ns_error_set (err, errno, "%s: %s", path, strerror (errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int64_t lineno = 0;
    int rc = 0;
    ns_shadow_rec_t *rec = malloc (sizeof (*rec));
    if (!rec) {
        rc = ns_error_set (err, ENOMEM, "out of memory");
        goto out;
    }
    errno = 0;
    while ((n = getline (&line, &cap, f)) >= 0) {
        lineno++;
        ns_error_t e;
        int r = ns_shadow_parse (line, (size_t)n, rec, &e);
        if (r < 0) {
            rc = ns_error_set (err, EINVAL, "%s:%lld: %s", path,
                               (long long)lineno, e.text);
            goto out;
        }
        if (r == 1 && fn (rec, lineno, arg, err) < 0) {
            rc = -1;
            goto out;
        }
        errno = 0;
    }
    if (ferror (f))
        rc = ns_error_set (err, errno ? errno : EIO, "%s: %s", path,
                           strerror (errno ? errno : EIO));
out:
    free (rec);
    free (line);
    if (!is_stdin)
        fclose (f);
    return rc;
}
