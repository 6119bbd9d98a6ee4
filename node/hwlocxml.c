/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hwlocxml.c - a small XML scanner that refuses what hwloc 2.9 crashes on
 * (hwlocxml.h)
 *
 * Not a validating parser: what passes is well-formed the way hwloc's
 * exports are (double-quoted values, one <topology> root, closing tags
 * that match, at most XML_DEPTH levels), with attributes that hwloc's own
 * parser reads as written.
 */
#define _GNU_SOURCE     /* memmem */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwlocxml.h"

/* At most this many open elements, one inside the other. */
#define XML_DEPTH 256

enum { XS_CPUSET = 1, XS_COMPLETE_CPUSET = 2, XS_NODESET = 4,
       XS_COMPLETE_NODESET = 8 };

struct xscan {
    const char *start, *s, *end, *name;
    ns_error_t *err;
    int objects;
};

__attribute__ ((format (printf, 2, 3)))
static int xml_fail (struct xscan *x, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (what, sizeof (what), fmt, ap);
    va_end (ap);
    size_t line = 1;
    for (const char *p = x->start; p < x->s && p < x->end; p++)
        line += *p == '\n';
    return ns_error_set (x->err, EINVAL, "%s: not an hwloc XML topology: %s "
                         "(line %zu, byte %zu)", x->name, what, line,
                         (size_t)(x->s - x->start));
}

static int xml_space (char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int xml_name_char (char c, int first)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'
           || c == ':' || (!first && ((c >= '0' && c <= '9') || c == '-'
                                      || c == '.'));
}

/* A name at x->s: its length (0 if there is none). */
static size_t xml_name (struct xscan *x)
{
    const char *p = x->s;
    while (p < x->end && xml_name_char (*p, p == x->s))
        p++;
    return (size_t)(p - x->s);
}

/* "&name;", "&#123;" or "&#x1f;" at x->s. */
static int xml_entity (struct xscan *x)
{
    const char *p = x->s + 1;
    if (p < x->end && *p == '#') {
        p++;
        int hex = p < x->end && *p == 'x';
        p += hex;
        const char *d = p;
        while (p < x->end && ((*p >= '0' && *p <= '9')
                              || (hex && ((*p >= 'a' && *p <= 'f')
                                          || (*p >= 'A' && *p <= 'F')))))
            p++;
        if (p == d)
            return xml_fail (x, "bad character reference");
    }
    else {
        const char *d = p;
        while (p < x->end && ((*p >= 'a' && *p <= 'z')
                              || (*p >= 'A' && *p <= 'Z')))
            p++;
        if (p == d)
            return xml_fail (x, "'&' that starts no entity");
    }
    if (p >= x->end || *p != ';')
        return xml_fail (x, "unterminated entity");
    x->s = p + 1;
    return 0;
}

/* Skip to just past `until`; fail with what if it never comes. */
static int xml_skip_past (struct xscan *x, const char *until,
                          const char *what)
{
    const char *p = memmem (x->s, (size_t)(x->end - x->s), until,
                            strlen (until));
    if (!p)
        return xml_fail (x, "unterminated %s", what);
    x->s = p + strlen (until);
    return 0;
}

/* An hwloc bitmap as its exports write them (hwloc_bitmap_sscanf()
 * asserts on others): "0xf...f", or an optional "0xf...f," then words
 * "0x" + 1 to 8 hex digits separated by commas, empty words (zero)
 * allowed between two others. */
static int xml_bitmap_ok (const char *v, size_t n)
{
    const char *p = v, *end = v + n;
    if (n == 7 && memcmp (v, "0xf...f", 7) == 0)
        return 1;
    if (n > 8 && memcmp (v, "0xf...f,", 8) == 0)
        p += 8;
    for (int words = 0;; words++) {
        if (p < end && *p == ',' && words > 0) {
            p++;            /* an empty word */
            continue;
        }
        if (end - p < 3 || p[0] != '0' || p[1] != 'x')
            return 0;
        p += 2;
        const char *d = p;
        while (p < end && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')
                           || (*p >= 'A' && *p <= 'F')))
            p++;
        if (p == d || p - d > 8)
            return 0;
        if (p == end)
            return 1;
        if (*p++ != ',')
            return 0;
    }
}

static int ends_with_n (const char *s, size_t n, const char *suffix)
{
    size_t m = strlen (suffix);
    return n >= m && memcmp (s + n - m, suffix, m) == 0;
}

/* hwloc 2.9's own parser (topology-xml-nolibxml.c) reads an attribute
 * as a name of a-z and '_', then '="', a value with the 7 entities its
 * exports write, '"'; separators " \t\n"; and a tag ends at its first
 * '>'.  At the first attribute it cannot read it stops reading the tag's
 * attributes, silently: an object then lacks the sets written after it
 * (a misspelt "compl-te_cpuset" before "complete_cpuset" makes a PU with
 * a cpuset and no complete_cpuset, which its import crashes on).  So the
 * attributes of a tag must read the same for both, or are refused. */
#define XML_ATTRS 64

static const char *const xml_value_entities[] = {
    "&#10;", "&#13;", "&#9;", "&quot;", "&lt;", "&gt;", "&amp;",
};

static int xml_attr_name_char (char c)
{
    return (c >= 'a' && c <= 'z') || c == '_';
}

/* The attributes of a start tag, up to and including its '>' or "/>".
 * *sets: which of the four sets it names; *empty: it was "/>". */
static int xml_attributes (struct xscan *x, int *sets, int *empty)
{
    static const struct {
        const char *name;
        int bit;
    } set_names[] = {
        { "cpuset", XS_CPUSET }, { "complete_cpuset", XS_COMPLETE_CPUSET },
        { "nodeset", XS_NODESET }, { "complete_nodeset", XS_COMPLETE_NODESET },
    };
    const char *seen[XML_ATTRS];
    size_t seenlen[XML_ATTRS];
    int nseen = 0;
    *sets = 0;
    for (;;) {
        int spaced = 0;
        while (x->s < x->end && xml_space (*x->s)) {
            if (*x->s == '\r')
                return xml_fail (x, "carriage return inside a tag (hwloc's "
                                 "parser stops reading its attributes "
                                 "there)");
            x->s++, spaced = 1;
        }
        if (x->s >= x->end)
            return xml_fail (x, "unterminated tag");
        if (*x->s == '>' || (*x->s == '/' && x->s + 1 < x->end
                             && x->s[1] == '>')) {
            *empty = *x->s == '/';
            x->s += *empty ? 2 : 1;
            return 0;
        }
        size_t full = spaced ? xml_name (x) : 0, n = 0;
        if (full == 0)
            return xml_fail (x, "expected an attribute name");
        while (n < full && xml_attr_name_char (x->s[n]))
            n++;
        if (n < full)
            return xml_fail (x, "attribute name '%.*s' is not lower-case "
                             "letters and '_' (hwloc's parser stops reading "
                             "the tag's attributes there)",
                             (int)(full < 40 ? full : 40), x->s);
        for (int i = 0; i < nseen; i++)
            if (seenlen[i] == n && memcmp (seen[i], x->s, n) == 0)
                return xml_fail (x, "attribute '%.*s' given twice in a tag",
                                 (int)(n < 40 ? n : 40), x->s);
        if (nseen == XML_ATTRS)
            return xml_fail (x, "more than %d attributes in a tag",
                             XML_ATTRS);
        seen[nseen] = x->s;
        seenlen[nseen++] = n;
        for (size_t i = 0; i < sizeof (set_names) / sizeof (set_names[0]);
             i++)
            if (strlen (set_names[i].name) == n
                && memcmp (x->s, set_names[i].name, n) == 0)
                *sets |= set_names[i].bit;
        int bitmap = ends_with_n (x->s, n, "cpuset")
                     || ends_with_n (x->s, n, "nodeset");
        x->s += n;
        if (x->s < x->end && *x->s != '=') {
            const char *p = x->s;
            while (p < x->end && xml_space (*p))
                p++;
            if (p < x->end && *p == '=')
                return xml_fail (x, "space before '=' (hwloc's parser stops "
                                 "reading the tag's attributes there)");
        }
        if (x->s >= x->end || *x->s != '=')
            return xml_fail (x, "attribute without a value");
        x->s++;
        if (x->s < x->end && xml_space (*x->s))
            return xml_fail (x, "space after '=' (hwloc's parser stops "
                             "reading the tag's attributes there)");
        if (x->s >= x->end || *x->s != '"')
            return xml_fail (x, "expected a value in double quotes");
        x->s++;
        const char *value = x->s;
        while (x->s < x->end && *x->s != '"') {
            if (*x->s == '<' || *x->s == '>' || *x->s == '\0')
                return xml_fail (x, "'%s' in an attribute value%s",
                                 *x->s == '<'   ? "<"
                                 : *x->s == '>' ? ">"
                                                : "NUL",
                                 *x->s == '>' ? " (hwloc's parser ends the "
                                                "tag there; its exports "
                                                "write &gt;)"
                                              : "");
            if (*x->s == '&') {
                size_t i, k = sizeof (xml_value_entities)
                              / sizeof (xml_value_entities[0]);
                for (i = 0; i < k; i++) {
                    size_t m = strlen (xml_value_entities[i]);
                    if ((size_t)(x->end - x->s) >= m
                        && memcmp (x->s, xml_value_entities[i], m) == 0)
                        break;
                }
                if (i == k)
                    return xml_fail (x, "an entity in an attribute value "
                                     "other than &lt; &gt; &amp; &quot; "
                                     "&#10; &#13; &#9; (hwloc's parser "
                                     "stops reading the tag's attributes "
                                     "there)");
                x->s += strlen (xml_value_entities[i]);
            }
            else
                x->s++;
        }
        if (x->s >= x->end)
            return xml_fail (x, "unterminated attribute value");
        if (bitmap && !xml_bitmap_ok (value, (size_t)(x->s - value))) {
            x->s = value;
            return xml_fail (x, "a set that is not an hwloc bitmap");
        }
        x->s++;
    }
}

/* The set rule of an <object>: all four sets or the pairs together. */
static int xml_object_sets (struct xscan *x, int sets)
{
    const char *have = NULL, *lack = NULL;
    x->objects++;
    if (!(sets & XS_CPUSET) != !(sets & XS_COMPLETE_CPUSET)) {
        have = sets & XS_CPUSET ? "cpuset" : "complete_cpuset";
        lack = sets & XS_CPUSET ? "complete_cpuset" : "cpuset";
    }
    else if (!(sets & XS_NODESET) != !(sets & XS_COMPLETE_NODESET)) {
        have = sets & XS_NODESET ? "nodeset" : "complete_nodeset";
        lack = sets & XS_NODESET ? "complete_nodeset" : "nodeset";
    }
    if (have)
        return ns_error_set (x->err, EINVAL, "%s: object %d has %s without "
                             "%s: not a topology hwloc exported (hwloc 2.9 "
                             "crashes on it)", x->name, x->objects, have,
                             lack);
    return 0;
}

int ns_hwlocxml_check (const char *xml, size_t len, const char *name,
                       ns_error_t *err)
{
    struct xscan x = { .start = xml, .s = xml, .end = xml + len,
                       .name = name ? name : "(XML)", .err = err };
    const char *open[XML_DEPTH];
    size_t openlen[XML_DEPTH];
    int depth = 0, rooted = 0;
    if (!xml)
        return ns_error_set (err, EINVAL, "no XML");
    while (x.s < x.end) {
        if (*x.s != '<') {
            if (*x.s == '\0')
                return xml_fail (&x, "NUL byte");
            if (depth == 0 && !xml_space (*x.s))
                return xml_fail (&x, "text outside the <topology> element");
            if (*x.s == '&') {
                if (xml_entity (&x) < 0)
                    return -1;
            }
            else
                x.s++;
            continue;
        }
        const char *tag = x.s;
        size_t left = (size_t)(x.end - x.s);
        if (left >= 2 && tag[1] == '?') {
            if (xml_skip_past (&x, "?>", "processing instruction") < 0)
                return -1;
            continue;
        }
        if (left >= 4 && memcmp (tag, "<!--", 4) == 0) {
            x.s += 4;
            if (xml_skip_past (&x, "-->", "comment") < 0)
                return -1;
            continue;
        }
        if (left >= 2 && tag[1] == '!') {
            if (depth > 0 || rooted)
                return xml_fail (&x, "declaration inside the document");
            x.s += 2;
            while (x.s < x.end && *x.s != '>') {
                if (*x.s == '"' || *x.s == '[') {
                    const char *q = memchr (x.s + 1, *x.s == '"' ? '"' : ']',
                                            (size_t)(x.end - x.s - 1));
                    if (!q)
                        return xml_fail (&x, "unterminated declaration");
                    x.s = q;
                }
                x.s++;
            }
            if (x.s >= x.end)
                return xml_fail (&x, "unterminated declaration");
            x.s++;
            continue;
        }
        if (left >= 2 && tag[1] == '/') {
            x.s += 2;
            size_t n = xml_name (&x);
            if (depth == 0 || n != openlen[depth - 1]
                || memcmp (x.s, open[depth - 1], n) != 0)
                return xml_fail (&x, "closing tag that matches no open "
                                 "element");
            x.s += n;
            while (x.s < x.end && xml_space (*x.s))
                x.s++;
            if (x.s >= x.end || *x.s != '>')
                return xml_fail (&x, "unterminated closing tag");
            x.s++;
            depth--;
            continue;
        }
        x.s++;
        size_t n = xml_name (&x);
        if (n == 0)
            return xml_fail (&x, "'<' that starts no tag");
        if (depth == 0 && (rooted || n != 8 || memcmp (x.s, "topology", 8)))
            return xml_fail (&x, rooted ? "a second root element"
                                        : "the root element is not "
                                          "<topology>");
        const char *ename = x.s;
        x.s += n;
        int sets = 0, empty = 0;
        if (xml_attributes (&x, &sets, &empty) < 0)
            return -1;
        if (n == 6 && memcmp (ename, "object", 6) == 0
            && xml_object_sets (&x, sets) < 0)
            return -1;
        rooted = 1;
        if (!empty) {
            if (depth == XML_DEPTH)
                return xml_fail (&x, "elements nested deeper than %d",
                                 XML_DEPTH);
            open[depth] = ename;
            openlen[depth++] = n;
        }
    }
    if (depth > 0)
        return xml_fail (&x, "<%.*s> is never closed", (int)openlen[depth - 1],
                         open[depth - 1]);
    if (!rooted)
        return xml_fail (&x, "no <topology> element");
    return 0;
}

/* The whole text: a buffer doubled up to 64 MiB. */
int ns_hwlocxml_check_file (FILE *f, const char *spec, ns_error_t *err)
{
    const size_t max = 64u << 20;
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc (cap);
    int rc;
    while (buf && (got = fread (buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *more = cap < max ? realloc (buf, cap * 2) : NULL;
            if (!more) {
                free (buf);
                return cap < max ? ns_error_set (err, ENOMEM, "%s: out of "
                                                 "memory", spec)
                                 : ns_error_set (err, EFBIG, "%s: larger "
                                                 "than 64 MiB: not an hwloc "
                                                 "XML topology", spec);
            }
            buf = more;
            cap *= 2;
        }
    }
    if (!buf)
        return ns_error_set (err, ENOMEM, "%s: out of memory", spec);
    rc = ferror (f) ? ns_error_set (err, EIO, "%s: read error", spec)
                    : ns_hwlocxml_check (buf, n, spec, err);
    free (buf);
    return rc;
}
