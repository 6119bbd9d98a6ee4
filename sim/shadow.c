/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shadow.c - the select plugin's shadow records (see shadow.h) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>
#include <zlib.h>

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

static int blank (char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int ns_shadow_parse (const char *line, size_t len, ns_shadow_rec_t *rec,
                     ns_error_t *err)
{
    size_t a = 0;
    while (a < len && blank (line[a]))
        a++;
    if (a == len)
        return 0;
    /* The line's end (its newline) is not given to json-c: it would end
     * a comment json-c skips after the object, and the same text then
     * passed with a newline and failed without one. */
    while (len > a && blank (line[len - 1]))
        len--;
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
    rec->dropped_records = rec->dropped_first = rec->dropped_last = -1;
    int have;
    int64_t v;
    if (get_text (o, "dropped", rec->dropped, sizeof (rec->dropped), err)
        < 0)
        goto out;
    if (rec->dropped[0]) {
        if (get_int (o, "time", 0, INT64_MAX, &rec->time, &have, err) < 0
            || get_int (o, "records", -1, INT64_MAX, &rec->dropped_records,
                        &have, err) < 0
            || get_int (o, "first", -1, INT64_MAX, &rec->dropped_first,
                        &have, err) < 0
            || get_int (o, "last", -1, INT64_MAX, &rec->dropped_last, &have,
                        err) < 0)
            goto out;
        rc = 1;
        goto out;
    }
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

struct gzin {
    gzFile g;
    char buf[65536];
    int pos, end;
    int failed;     /* gzread returned -1 */
};

/* One line of in into *line (grown as needed, not NUL-terminated, NUL
 * bytes kept for the parser to refuse); its length with the newline,
 * 0 at the end, -1 on a read error (in->failed) or out of memory. */
static ssize_t gz_line (struct gzin *in, char **line, size_t *cap)
{
    size_t len = 0;
    for (;;) {
        if (in->pos == in->end) {
            int n = gzread (in->g, in->buf, sizeof (in->buf));
            if (n < 0) {
                in->failed = 1;
                return -1;
            }
            if (n == 0)
                return (ssize_t)len;
            in->pos = 0;
            in->end = n;
        }
        char *nl = memchr (in->buf + in->pos, '\n', in->end - in->pos);
        size_t take = nl ? (size_t)(nl - (in->buf + in->pos)) + 1
                         : (size_t)(in->end - in->pos);
        if (len + take + 1 > *cap) {
            size_t nc = *cap ? *cap : 4096;
            while (nc < len + take + 1)
                nc *= 2;
            char *x = realloc (*line, nc);
            if (!x)
                return -1;
            *line = x;
            *cap = nc;
        }
        memcpy (*line + len, in->buf + in->pos, take);
        len += take;
        in->pos += (int)take;
        if (nl)
            return (ssize_t)len;
    }
}

int ns_shadow_read (const char *path, ns_shadow_fn fn, void *arg,
                    ns_error_t *err)
{
    int is_stdin = strcmp (path, "-") == 0;
    int fd = is_stdin ? dup (0) : open (path, O_RDONLY | O_CLOEXEC);
    struct gzin *in = fd >= 0 ? calloc (1, sizeof (*in)) : NULL;
    if (in && !(in->g = gzdopen (fd, "rb"))) {
        free (in);
        in = NULL;
    }
    if (!in) {
        int e = fd < 0 && errno ? errno : ENOMEM;
        if (fd >= 0)
            close (fd);
        return ns_error_set (err, e, "%s: %s", path, strerror (e));
    }
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
    while ((n = gz_line (in, &line, &cap)) > 0) {
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
    }
    if (n < 0 && !in->failed)
        rc = ns_error_set (err, ENOMEM, "out of memory");
    else if (n < 0) {
        int e;
        const char *msg = gzerror (in->g, &e);
        rc = ns_error_set (err, e == Z_ERRNO ? errno : EIO,
                           "%s:%lld: %s", path, (long long)lineno + 1,
                           e == Z_ERRNO ? strerror (errno) : msg);
    }
out:
    free (rec);
    free (line);
    gzclose (in->g);
    free (in);
    return rc;
}

int ns_shadow_rotated_number (const char *name)
{
    size_t len = strlen (name);
    if (len > 3 && strcmp (name + len - 3, ".gz") == 0)
        len -= 3;
    size_t d = len;
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
        d--;
    if (d == len || d == 0 || name[d - 1] != '.' || len - d > 6)
        return 0;
    return atoi (name + d);
}

void ns_shadow_files_free (char **files, int n)
{
    for (int i = 0; files && i < n; i++)
        free (files[i]);
    free (files);
}

int ns_shadow_files (const char *path, char ***files, ns_error_t *err)
{
    enum { MAX_ROTATED = 1000 };
    int n = 0;
    char **v = calloc (2 * MAX_ROTATED + 1, sizeof (*v));
    if (!v)
        return ns_error_set (err, ENOMEM, "out of memory");
    if (strcmp (path, "-") != 0 && !ns_shadow_rotated_number (path)) {
        /* every N up to the highest present, keep's limit at most */
        int top = 0;
        size_t sz = strlen (path) + 16;
        char *b = malloc (sz);
        if (!b)
            goto oom;
        struct stat st;
        for (int k = 1; k <= MAX_ROTATED; k++) {
            snprintf (b, sz, "%s.%d.gz", path, k);
            int gz = stat (b, &st) == 0;
            snprintf (b, sz, "%s.%d", path, k);
            if (gz || stat (b, &st) == 0)
                top = k;
            else if (k > top + 1)
                break;     /* allow one gap (a rotation under way) */
        }
        /* FILE.N and FILE.N.gz both: a compression cut short after its
         * rename; the .gz is whole */
        for (int k = top; k >= 1; k--) {
            snprintf (b, sz, "%s.%d.gz", path, k);
            if (stat (b, &st) < 0)
                snprintf (b, sz, "%s.%d", path, k);
            if (stat (b, &st) == 0 && !(v[n++] = strdup (b))) {
                free (b);
                goto oom;
            }
        }
        free (b);
        /* the live file, unless only rotated ones are there */
        if (n > 0 && stat (path, &st) < 0) {
            *files = v;
            return n;
        }
    }
    if (!(v[n++] = strdup (path)))
        goto oom;
    *files = v;
    return n;
oom:
    ns_shadow_files_free (v, n);
    return ns_error_set (err, ENOMEM, "out of memory");
}
