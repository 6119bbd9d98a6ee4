/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jsonread.c - reading a JSON file strictly, with precise messages
 * (jsonread.h) */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "jsonread.h"

const char *ns_json_quote (const char *s, char *buf, size_t len)
{
    size_t o = 0, i = 0;
    buf[o++] = '"';
    for (; s[i] && o + 8 < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i >= NS_JSON_QUOTE_MAX && (c & 0xc0) != 0x80)
            break;
        if (c == '"' || c == '\\')
            o += (size_t)snprintf (buf + o, len - o, "\\%c", c);
        else if (c == '\n' || c == '\t' || c == '\r')
            o += (size_t)snprintf (buf + o, len - o, "\\%c",
                                   c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
        else if (c < 0x20)
            o += (size_t)snprintf (buf + o, len - o, "\\u%04x", c);
        else
            buf[o++] = (char)c;
    }
    snprintf (buf + o, len - o, "\"%s", s[i] ? "..." : "");
    return buf;
}

const char *ns_json_describe (json_object *v, char *buf, size_t len)
{
    switch (json_object_get_type (v)) {
    case json_type_null:
        return "null";
    case json_type_boolean:
        return json_object_get_boolean (v) ? "true" : "false";
    case json_type_string:
        return ns_json_quote (json_object_get_string (v), buf, len);
    case json_type_object:
        return json_object_object_length (v) ? "an object" : "an empty object";
    case json_type_array:
        return json_object_array_length (v) ? "an array" : "an empty array";
    case json_type_int:
    case json_type_double:
        /* json-c keeps the text of doubles as written */
        snprintf (buf, len, "%s",
                  json_object_to_json_string_ext (v, JSON_C_TO_STRING_PLAIN));
        return buf;
    }
    return "?";
}

static int vfail (ns_jreader_t *r, int errnum, const char *fmt, va_list ap)
    __attribute__ ((format (printf, 3, 0)));

static int vfail (ns_jreader_t *r, int errnum, const char *fmt, va_list ap)
{
    char msg[NS_ERROR_TEXT];
    vsnprintf (msg, sizeof (msg), fmt, ap);
    return ns_error_set (r->err, errnum, "%s: %s: %s", r->src,
                         r->len ? r->path : "top level", msg);
}

int ns_jr_fail_errno (ns_jreader_t *r, int errnum, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    int rc = vfail (r, errnum, fmt, ap);
    va_end (ap);
    return rc;
}

int ns_jr_fail_got (ns_jreader_t *r, json_object *v, const char *fmt, ...)
{
    char what[NS_ERROR_TEXT / 2], got[NS_JSON_GOT_MAX];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (what, sizeof (what), fmt, ap);
    va_end (ap);
    return ns_jr_fail_errno (r, EINVAL, "expected %s, got %s", what,
                             ns_json_describe (v, got, sizeof (got)));
}

/*
 * JSON paths
 */

static bool plain_key (const char *k)
{
    if (!*k)
        return false;
    for (; *k; k++)     /* ASCII, whatever the locale */
        if (!(*k >= 'a' && *k <= 'z') && !(*k >= 'A' && *k <= 'Z')
            && !(*k >= '0' && *k <= '9') && !strchr ("_-+", *k))
            return false;
    return true;
}

static void path_append (ns_jreader_t *r, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static void path_append (ns_jreader_t *r, const char *fmt, ...)
{
    size_t room = sizeof (r->path) - r->len;
    va_list ap;
    va_start (ap, fmt);
    int n = vsnprintf (r->path + r->len, room, fmt, ap);
    va_end (ap);
    r->len = n < 0 || (size_t)n >= room ? sizeof (r->path) - 1
                                         : r->len + (size_t)n;
}

size_t ns_jr_path_key (ns_jreader_t *r, const char *key)
{
    size_t old = r->len;
    char q[NS_JSON_GOT_MAX];
    if (plain_key (key))
        path_append (r, "%s%s", r->len ? "." : "", key);
    else
        path_append (r, "[%s]", ns_json_quote (key, q, sizeof (q)));
    return old;
}

size_t ns_jr_path_index (ns_jreader_t *r, size_t i)
{
    size_t old = r->len;
    path_append (r, "[%zu]", i);
    return old;
}

void ns_jr_path_pop (ns_jreader_t *r, size_t old)
{
    r->len = old;
    r->path[old] = '\0';
}

int ns_jr_get_integer (ns_jreader_t *r, json_object *v, int64_t lo,
                       int64_t hi, const char *expect, int64_t *out)
{
    int64_t i;
    if (json_object_is_type (v, json_type_int)) {
        i = json_object_get_int64 (v);
        if (i == INT64_MIN || i == INT64_MAX)
            return ns_jr_fail_got (r, v, "%s", expect);
    }
    else if (json_object_is_type (v, json_type_double)) {
        double d = json_object_get_double (v);
        if (!isfinite (d) || d != floor (d) || d < -0x1p62 || d > 0x1p62)
            return ns_jr_fail_got (r, v, "%s", expect);
        i = (int64_t)d;
    }
    else
        return ns_jr_fail_got (r, v, "%s", expect);
    if (i < lo || i > hi)
        return ns_jr_fail_got (r, v, "%s", expect);
    *out = i;
    return 0;
}

/*
 * Text -> JSON tree
 */

/* Skip whitespace and comments, as json-c does between tokens.  An
 * unterminated comment is left in place (it is then trailing garbage). */
static const char *skip_blank (const char *p)
{
    for (;;) {
        p += strspn (p, " \t\r\n\f\v");
        if (p[0] == '/' && p[1] == '/')
            p += strcspn (p, "\n");
        else if (p[0] == '/' && p[1] == '*') {
            const char *end = strstr (p + 2, "*/");
            if (!end)
                return p;
            p = end + 2;
        }
        else
            return p;
    }
}

/* "SRC:LINE:COL: ", 1-based, columns in bytes as editors count them. */
static int fail_at (const char *src, const char *text, size_t off,
                    ns_error_t *err, const char *msg)
{
    int line = 1;
    size_t bol = 0;
    for (size_t i = 0; i < off && text[i]; i++)
        if (text[i] == '\n') {
            line++;
            bol = i + 1;
        }
    return ns_error_set (err, EINVAL, "%s:%d:%zu: %s", src, line,
                         off - bol + 1, msg);
}

static size_t parse_end (json_tokener *tok)
{
#if JSON_C_VERSION_NUM >= ((0 << 16) | (15 << 8))
    return json_tokener_get_parse_end (tok);
#else
    return (size_t)tok->char_offset;
#endif
}

int ns_json_parse_text (const char *text, size_t len, size_t max_bytes,
                        const char *src, json_object **rootp,
                        ns_error_t *err)
{
    char msg[NS_ERROR_TEXT], q[NS_JSON_GOT_MAX];
    if (len > max_bytes)
        return ns_error_set (err, EFBIG, "%s: expected at most %zu bytes, "
                             "got %zu", src, max_bytes, len);
    if (strlen (text) != len)
        return fail_at (src, text, strlen (text), err,
                        "expected text, got a NUL byte");
    if (*skip_blank (text) == '\0')
        return ns_error_set (err, EINVAL, "%s: expected a JSON object, got "
                             "an empty file", src);
    json_tokener *tok = json_tokener_new ();
    if (!tok)
        return ns_error_set (err, ENOMEM, "%s: out of memory", src);
    /* Hand json-c the terminating NUL too, so that input ending inside a
     * value is an error ("unexpected end of data"), not "continue". */
    json_object *root = json_tokener_parse_ex (tok, text, (int)len + 1);
    enum json_tokener_error jerr = json_tokener_get_error (tok);
    size_t end = parse_end (tok);
    json_tokener_free (tok);
    if (jerr != json_tokener_success)
        return fail_at (src, text, end, err, json_tokener_error_desc (jerr));
    /* json-c stops after the first value; the rest must be blank. */
    const char *rest = skip_blank (text + (end < len ? end : len));
    if (*rest) {
        /* Quote the rest of that line; quote adds "..." if it is long. */
        char line[NS_JSON_QUOTE_MAX * 2];
        snprintf (line, sizeof (line), "%.*s", (int)strcspn (rest, "\n"),
                  rest);
        snprintf (msg, sizeof (msg), "expected end of file after the "
                  "top-level value, got %s",
                  ns_json_quote (line, q, sizeof (q)));
        json_object_put (root);
        return fail_at (src, text, (size_t)(rest - text), err, msg);
    }
    *rootp = root;
    return 0;
}

static const char *key_name (const void *keys, size_t stride, size_t i)
{
    return *(const char *const *)((const char *)keys + i * stride);
}

int ns_jr_read_keys (ns_jreader_t *r, json_object *obj, const void *keys,
                     size_t stride, ns_jr_key_fn read, void *ctx)
{
    json_object_object_foreach (obj, name, val) {
        (void)val;
        size_t i = 0;
        while (key_name (keys, stride, i)
               && strcmp (key_name (keys, stride, i), name) != 0)
            i++;
        if (key_name (keys, stride, i))
            continue;
        char list[NS_ERROR_TEXT - 128] = "";
        size_t len = 0;
        for (i = 0; key_name (keys, stride, i) && len < sizeof (list); i++)
            len += (size_t)snprintf (list + len, sizeof (list) - len, "%s%s",
                                     i ? ", " : "", key_name (keys, stride, i));
        ns_jr_path_key (r, name);
        return ns_jr_fail_errno (r, EINVAL, "unknown key (expected one of "
                                 "%s)", list);
    }
    for (size_t i = 0; key_name (keys, stride, i); i++) {
        json_object *v;
        if (!json_object_object_get_ex (obj, key_name (keys, stride, i), &v))
            continue;
        size_t old = ns_jr_path_key (r, key_name (keys, stride, i));
        int rc = read (ctx, (const char *)keys + i * stride, v);
        ns_jr_path_pop (r, old);
        if (rc < 0)
            return -1;
    }
    return 0;
}
