/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jsonread.h - reading a JSON file strictly, with precise messages
 *
 * What nodeshare.json (model/config.c) and sweep files (sim/sweep.c) share:
 * the text parsed by json-c with "FILE:LINE:COL: what" on a syntax error,
 * and a reader that keeps the JSON path of the value being read
 * (programs.LAM.slowdown.ABQ, machines[1].cores, vary["a.b"]) so that
 * every failure reads "FILE: PATH: expected WHAT, got VALUE".
 */
#ifndef NODESHARE_JSONREAD_H
#define NODESHARE_JSONREAD_H

#include <stddef.h>
#include <stdint.h>

#include <json.h>

#include "nserror.h"

/* How much of a string value or trailing text a message quotes, and the
 * buffer ns_json_quote() needs for that (escapes take up to 6 bytes). */
#define NS_JSON_QUOTE_MAX 40
#define NS_JSON_GOT_MAX (NS_JSON_QUOTE_MAX * 6 + 16)

typedef struct {
    const char *src;        /* the file's name in messages */
    ns_error_t *err;
    char path[256];         /* where the reader is; "" at the top level */
    size_t len;
} ns_jreader_t;

/* s as a JSON string literal, cut after NS_JSON_QUOTE_MAX bytes (on a
 * character boundary) with "..." after the closing quote. */
const char *ns_json_quote (const char *s, char *buf, size_t len);

/* What a value is, for "got ...": scalars as written in the file,
 * containers by kind ("an object", "an empty array"). */
const char *ns_json_describe (json_object *v, char *buf, size_t len);

/* "SRC: PATH: message" into r->err, errno set to errnum; returns -1. */
int ns_jr_fail_errno (ns_jreader_t *r, int errnum, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* "SRC: PATH: expected WHAT, got V" (EINVAL); returns -1. */
int ns_jr_fail_got (ns_jreader_t *r, json_object *v, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* Push a key or an index on the path; each returns the length that
 * ns_jr_path_pop() restores.  Keys that would be ambiguous after a dot
 * are written ["like.this"]. */
size_t ns_jr_path_key (ns_jreader_t *r, const char *key);
size_t ns_jr_path_index (ns_jreader_t *r, size_t i);
void ns_jr_path_pop (ns_jreader_t *r, size_t old);

/* An integer in lo..hi into *out, else "expected EXPECT, got V".  2.0
 * counts as an integer; json-c clamps integers beyond 64 bits to
 * INT64_MIN/INT64_MAX, so those two are never in range. */
int ns_jr_get_integer (ns_jreader_t *r, json_object *v, int64_t lo,
                       int64_t hi, const char *expect, int64_t *out);

/* TEXT (LEN bytes and a terminating NUL) -> *rootp.  Errors, with SRC:
 * more than MAX_BYTES, a NUL byte inside, nothing but blanks and comments,
 * a syntax error ("SRC:LINE:COL: json-c's message"), or text after the
 * top-level value.  A JSON null gives *rootp NULL, hence the int. */
int ns_json_parse_text (const char *text, size_t len, size_t max_bytes,
                        const char *src, json_object **rootp,
                        ns_error_t *err);

/* An object read by a table of its keys: every key of obj must be one of
 * the table's ("unknown key (expected one of A, B, ...)" otherwise, at
 * its path), and each one present is read by read (ctx, key, value) with
 * the path set, in table order (not the file's).  The table's entries are
 * stride bytes apart, each beginning with its key's name (const char *),
 * the last with NULL.  0, or -1 with the error set.  The caller checks
 * that obj is an object. */
typedef int (*ns_jr_key_fn) (void *ctx, const void *key, json_object *v);
int ns_jr_read_keys (ns_jreader_t *r, json_object *obj, const void *keys,
                     size_t stride, ns_jr_key_fn read, void *ctx);

#endif /* !NODESHARE_JSONREAD_H */
