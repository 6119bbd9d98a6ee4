/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace.c - streaming readers for SWF 2.2 and sacct --parsable2 traces
 *
 * Layout: a line reader over zlib (plain files pass through gzread
 * untouched), skip accounting, format detection, then one record parser
 * per format.  See trace.h for the decisions about what a usable job is.
 *
 * Lines are split by hand with gzread + memchr rather than gzgets: gzgets
 * cannot tell an embedded NUL from the end of the line, and NUL bytes are
 * how binary garbage and zero-filled blocks after a crash show up.
 */
#define _DEFAULT_SOURCE /* timegm */

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "gzahead.h"
#include "progtab.h"
#include "trace.h"
#include "trace_int.h"
#include "trace_test.h"

static const struct {
    const char *name;
    int filter;                 /* expected, not bad data: strict ignores */
} reasons[NS_SKIP_NREASONS] = {
    [NS_SKIP_TOO_FEW_FIELDS] = { "too-few-fields", 0 },
    [NS_SKIP_TOO_MANY_FIELDS] = { "too-many-fields", 0 },
    [NS_SKIP_NOT_A_NUMBER] = { "not-a-number", 0 },
    [NS_SKIP_NOT_AN_INTEGER] = { "not-an-integer", 0 },
    [NS_SKIP_BAD_TIME] = { "bad-time", 0 },
    [NS_SKIP_NO_PROCESSORS] = { "no-processors", 0 },
    [NS_SKIP_NO_RUNTIME] = { "no-runtime", 0 },
    [NS_SKIP_NEGATIVE_TIME] = { "negative-time", 0 },
    [NS_SKIP_BINARY] = { "binary-data", 0 },
    [NS_SKIP_TOO_LONG] = { "too-long", 0 },
    [NS_SKIP_JOB_STEP] = { "job-step", 1 },
    [NS_SKIP_NOT_FINISHED] = { "not-finished", 1 },
};

const char *ns_trace_skip_name (int reason)
{
    if (reason < 0 || reason >= NS_SKIP_NREASONS)
        return "?";
    return reasons[reason].name;
}

const char *ns_trace_format_name (ns_trace_format_t fmt)
{
    switch (fmt) {
        case NS_TRACE_SWF:
            return "swf";
        case NS_TRACE_SACCT:
            return "sacct";
        default:
            return "auto";
    }
}

static int is_binary (const char *s, size_t len);

/*
 * Line reader
 */

/* Map a zlib failure to one precise message.  gzread () reports a
 * truncated stream not as -1 but as a plain end of data with Z_BUF_ERROR
 * pending, so callers check this at every apparent end of file. */
static int gz_failure (ns_trace_t *t, ns_error_t *err)
{
    int zerr;
    const char *msg = gzerror (t->gz, &zerr);

    t->failed = 1;
    if (zerr == Z_BUF_ERROR)
        return ns_error_set (err, EIO, "%s: truncated gzip after line %llu",
                             t->name, (unsigned long long)t->counts.lines);
    if (zerr == Z_ERRNO)
        return ns_error_set (err, errno ? errno : EIO, "%s: read error: %s",
                             t->name, strerror (errno));
    if (zerr == Z_MEM_ERROR)
        return ns_error_set (err, ENOMEM, "%s: out of memory", t->name);
    return ns_error_set (err, EIO, "%s: corrupt gzip after line %llu: %s",
                         t->name, (unsigned long long)t->counts.lines, msg);
}

/* Move the unread tail to the front and append what gzread gives. */
static int refill (ns_trace_t *t, ns_error_t *err)
{
    int n;

    if (t->start > 0) {
        memmove (t->buf, t->buf + t->start, t->end - t->start);
        t->end -= t->start;
        t->start = 0;
    }
    n = t->ahead ? ns_gzahead_read (t->ahead, t->buf + t->end,
                                    (unsigned)(BUF_SIZE - t->end))
                 : gzread (t->gz, t->buf + t->end,
                           (unsigned)(BUF_SIZE - t->end));
    if (n < 0)
        return gz_failure (t, err);
    if (n == 0) {
        int zerr;
        gzerror (t->gz, &zerr);
        if (zerr != Z_OK)
            return gz_failure (t, err);
        t->eof = 1;
    }
    t->end += (size_t)n;
    return 0;
}

static void set_line (ns_trace_t *t, char *s, size_t len)
{
    /* CRLF: the CR belongs to the line ending, not the last field */
    if (len > 0 && s[len - 1] == '\r')
        len--;
    s[len] = '\0';
    t->line = s;
    t->len = len;
    t->counts.lines++;
    /* a line may fit in the buffer and still be over the limit */
    t->too_long = len > NS_TRACE_LINE_MAX;
}

/* No newline in NS_TRACE_LINE_GIVE_UP bytes: not a trace at all. */
static int give_up_line (ns_trace_t *t, size_t keep, ns_error_t *err)
{
    unsigned long long line = t->counts.lines + 1;

    t->failed = 1;
    if (is_binary (t->buf, keep))
        return ns_error_set (err, EINVAL, "%s: line %llu: not a text trace "
                             "(binary data)", t->name, line);
    return ns_error_set (err, EINVAL, "%s: line %llu: longer than %d bytes: "
                         "not a text trace", t->name, line,
                         NS_TRACE_LINE_GIVE_UP);
}

/* The buffer holds the start of a line longer than NS_TRACE_LINE_MAX.
 * Keep its first bytes as the line (detection can still tell binary from
 * text, a message can quote it) and drop the rest up to the newline, or
 * give up after NS_TRACE_LINE_GIVE_UP bytes (/dev/zero never ends). */
static int discard_long_line (ns_trace_t *t, ns_error_t *err)
{
    const size_t keep = 256;
    char *nl = NULL;
    uint64_t seen = t->end;     /* bytes of this line read so far */

    t->start = 0;
    t->end = keep;
    while (!nl && !t->eof) {
        if (seen > NS_TRACE_LINE_GIVE_UP)
            return give_up_line (t, keep, err);
        if (refill (t, err) < 0)
            return -1;
        seen += t->end - keep;
        if (!(nl = memchr (t->buf + keep, '\n', t->end - keep)))
            t->end = keep;
    }
    t->start = nl ? (size_t)(nl - t->buf) + 1 : keep;
    set_line (t, t->buf, keep);
    t->too_long = 1;
    return 1;
}

/* Next physical line into t->line.  1 for a line, 0 at the end, -1 on a
 * read error.  The line stays valid until the next call. */
static int read_line (ns_trace_t *t, ns_error_t *err)
{
    char *nl;

    for (;;) {
        size_t avail = t->end - t->start;
        char *p = t->buf + t->start;

        if ((nl = memchr (p, '\n', avail))) {
            t->start += (size_t)(nl - p) + 1;
            set_line (t, p, (size_t)(nl - p));
            return 1;
        }
        if (t->eof) {
            if (avail == 0)
                return 0;
            t->start = t->end;  /* last line lacks a newline: fine */
            set_line (t, p, avail);
            return 1;
        }
        if (avail >= NS_TRACE_LINE_MAX) {
            if (t->start > 0) {
                memmove (t->buf, p, avail);
                t->start = 0;
                t->end = avail;
            }
            return discard_long_line (t, err);
        }
        if (refill (t, err) < 0)
            return -1;
    }
}

/*
 * Skip accounting
 */

/* Copy at most size - 1 bytes, not cutting a UTF-8 sequence in two. */
void tr_copy_text (char *dst, size_t size, const char *s, size_t len)
{
    if (len >= size) {
        len = size - 1;
        while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
            len--;
    }
    memcpy (dst, s, len);
    dst[len] = '\0';
}

/* Count the current line as skipped for reason r.  Returns 0, or -1 with
 * err set when strict mode turns a bad line into a hard error.  The
 * message is only formatted when someone will read it. */
__attribute__ ((format (printf, 4, 5)))
int tr_skip (ns_trace_t *t, ns_error_t *err, ns_skip_reason_t r,
                 const char *fmt, ...)
{
    struct ns_trace_skip *s = &t->counts.skip[r];
    int64_t line = (int64_t)t->counts.lines;
    int strict = (t->flags & NS_TRACE_STRICT) && !reasons[r].filter;
    char msg[NS_ERROR_TEXT];
    va_list ap;

    if (s->count == 0 || strict) {
        va_start (ap, fmt);
        vsnprintf (msg, sizeof (msg), fmt, ap);
        va_end (ap);
        if (s->count == 0)
            tr_copy_text (s->first, sizeof (s->first), msg, strlen (msg));
    }
    if (s->count < NS_TRACE_SKIP_LINES)
        s->lines[s->count] = line;
    s->count++;
    t->counts.skipped++;
    if (strict) {
        t->failed = 1;
        return ns_error_set (err, EINVAL, "%s:%lld: %s", t->name,
                             (long long)line, msg);
    }
    return 0;
}

/*
 * Small parsers shared by both formats
 */

static int is_blank (const char *s)
{
    while (tr_is_space (*s))
        s++;
    return *s == '\0';
}

/* Bytes a text trace never holds: NUL and C0 controls other than white
 * space.  High bytes pass (UTF-8 job names). */
static int is_binary (const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 && !tr_is_space ((char)c))
            return 1;
    }
    return 0;
}

/* Parse [+-]digits[.digits] spanning exactly [s, e).  *frac is 0 for no
 * fractional part, 1 below one half, 2 for a half or more, so callers can
 * round times and reject fractional counts without floating point. */
int tr_parse_num (const char *s, const char *e, int64_t *vp, int *frac)
{
    int neg = 0, digits = 0;
    int64_t v = 0;

    *frac = 0;
    if (s < e && (*s == '-' || *s == '+'))
        neg = *s++ == '-';
    /* 18 digits never overflow: only later ones are checked */
    for (; s < e && *s >= '0' && *s <= '9' && digits < 18; s++, digits++)
        v = v * 10 + (*s - '0');
    for (; s < e && *s >= '0' && *s <= '9'; s++, digits++) {
        int d = *s - '0';
        if (v > (INT64_MAX - d) / 10)
            return NUM_RANGE;
        v = v * 10 + d;
    }
    if (s < e && *s == '.') {
        s++;
        if (s < e && *s >= '0' && *s <= '9')
            *frac = *s >= '5' ? 2 : 0;
        for (; s < e && *s >= '0' && *s <= '9'; s++, digits++)
            if (*s != '0' && *frac == 0)
                *frac = 1;
    }
    if (digits == 0 || s != e)
        return NUM_BAD;
    *vp = neg ? -v : v;
    return NUM_OK;
}

static void note_submit (ns_trace_t *t, const ns_tjob_t *job)
{
    if (t->counts.jobs > 0 && job->submit < t->max_submit)
        t->counts.unsorted++;
    if (t->counts.jobs == 0 || job->submit > t->max_submit)
        t->max_submit = job->submit;
}

/*
 * Opening, format detection, the record loop
 */

static int open_stream (ns_trace_t *t, const char *path, ns_error_t *err)
{
    if (strcmp (path, "-") == 0) {
        int fd = dup (STDIN_FILENO);
        if (fd < 0 || !(t->gz = gzdopen (fd, "rb"))) {
            int e = errno ? errno : ENOMEM;
            if (fd >= 0)
                close (fd);
            return ns_error_set (err, e, "stdin: %s", strerror (e));
        }
    }
    else if (!(t->gz = gzopen (path, "rb"))) {
        int e = errno ? errno : ENOMEM;
        return ns_error_set (err, e, "%s: %s", path, strerror (e));
    }
    gzbuffer (t->gz, GZ_BUFFER);
    /* a compressed file is inflated ahead, beside the parsing */
    if (strcmp (path, "-") != 0)
        t->ahead = ns_gzahead_start (t->gz, path);
    return 0;
}

static int start_sacct (ns_trace_t *t, ns_error_t *err)
{
    if (tr_sacct_header (t, err) < 0 || tr_sacct_require (t, err) < 0)
        return -1;
    if (!(t->sacct.users = ns_progtab_create ())
        || !(t->sacct.groups = ns_progtab_create ()))
        return ns_error_set (err, ENOMEM, "%s: out of memory", t->name);
    return 0;
}

/* Decide the format of the first non-blank, non-comment line. */
static int detect_format (ns_trace_t *t, ns_error_t *err)
{
    if (strchr (t->line, '|'))
        t->fmt = NS_TRACE_SACCT;
    else if (tr_looks_like_swf (t->line))
        t->fmt = NS_TRACE_SWF;
    else
        return ns_error_set (err, EINVAL, "%s: line %llu: unknown trace "
                             "format: expected SWF (';' comments or 18 "
                             "numeric fields) or a sacct --parsable2 header, "
                             "got '%.40s'", t->name,
                             (unsigned long long)t->counts.lines, t->line);
    return 0;
}

/* Read the header (SWF comments, sacct field names) up to the first
 * record, which stays pending for ns_trace_next (). */
static int read_ahead (ns_trace_t *t, ns_error_t *err)
{
    int rc;

    while ((rc = read_line (t, err)) > 0) {
        unsigned long long n = t->counts.lines;

        if (n == 1 && strncmp (t->line, "\xef\xbb\xbf", 3) == 0) {
            t->line += 3;       /* UTF-8 byte order mark */
            t->len -= 3;
        }
        if (is_binary (t->line, t->len))
            return ns_error_set (err, EINVAL, "%s: line %llu: not a text "
                                 "trace (binary data)", t->name, n);
        if (t->too_long)
            return ns_error_set (err, EINVAL, "%s: line %llu: not a trace: "
                                 "line longer than %d bytes", t->name, n,
                                 NS_TRACE_LINE_MAX);
        if (is_blank (t->line))
            continue;
        if (t->fmt != NS_TRACE_SACCT && tr_is_swf_comment (t->line)) {
            t->fmt = NS_TRACE_SWF;
            tr_swf_header_line (t, t->line);
            continue;
        }
        if (t->fmt == NS_TRACE_AUTO && detect_format (t, err) < 0)
            return -1;
        if (t->fmt == NS_TRACE_SACCT && !t->sacct.header) {
            if (start_sacct (t, err) < 0)
                return -1;
            continue;
        }
        t->pending = 1;
        return 0;
    }
    if (rc < 0)
        return -1;
    return ns_error_set (err, EINVAL, "%s: empty trace, no jobs", t->name);
}

ns_trace_t *ns_trace_open (const char *path, ns_trace_format_t fmt,
                           int flags, ns_error_t *err)
{
    ns_trace_t *t;

    if (!path || fmt < NS_TRACE_AUTO || fmt > NS_TRACE_SACCT
        || (flags & ~NS_TRACE_STRICT)) {
        ns_error_set (err, EINVAL, "ns_trace_open: invalid argument");
        return NULL;
    }
    if (!(t = calloc (1, sizeof (*t)))
        || !(t->name = strdup (strcmp (path, "-") == 0 ? "stdin" : path))
        || !(t->buf = malloc (BUF_SIZE + 1))) {
        ns_error_set (err, ENOMEM, "%s: out of memory", path);
        goto error;
    }
    t->fmt = fmt;
    t->flags = flags;
    t->hdr.max_nodes = t->hdr.max_procs = t->hdr.max_jobs = -1;
    t->hdr.max_records = t->hdr.unix_start_time = -1;
    if (open_stream (t, path, err) < 0 || read_ahead (t, err) < 0)
        goto error;
    return t;
error:
    ns_trace_close (t);
    return NULL;
}

void ns_trace_close (ns_trace_t *t)
{
    int saved = errno;

    if (t) {
        ns_gzahead_stop (t->ahead);
        if (t->gz)
            gzclose (t->gz);
        ns_progtab_destroy (t->sacct.users);
        ns_progtab_destroy (t->sacct.groups);
        free (t->sacct.header);
        free (t->buf);
        free (t->name);
        free (t);
    }
    errno = saved;
}

/* One line: 1 for a job, 0 for anything else (blank, header, skipped),
 * -1 for a hard error. */
static int record (ns_trace_t *t, ns_tjob_t *job, ns_error_t *err)
{
    const char *nul = memchr (t->line, '\0', t->len);
    int rc;

    if (!nul && !t->too_long) {
        if (is_blank (t->line))
            return 0;
        if (t->fmt == NS_TRACE_SWF && tr_is_swf_comment (t->line)) {
            tr_swf_header_line (t, t->line);
            return 0;
        }
        /* concatenated dumps repeat the header */
        if (t->fmt == NS_TRACE_SACCT && strcmp (t->line, t->sacct.header) == 0)
            return 0;
    }
    t->counts.records++;
    if (t->too_long)
        return tr_skip (t, err, NS_SKIP_TOO_LONG, "line longer than %d bytes",
                     NS_TRACE_LINE_MAX);
    if (nul)
        return tr_skip (t, err, NS_SKIP_BINARY, "NUL byte at column %zu",
                     (size_t)(nul - t->line) + 1);
    if (t->fmt == NS_TRACE_SWF)
        rc = tr_swf_record (t, job, err);
    else
        rc = tr_sacct_record (t, job, err);
    if (rc == 1) {
        note_submit (t, job);
        t->counts.jobs++;
    }
    return rc;
}

int ns_trace_next (ns_trace_t *t, ns_tjob_t *job, ns_error_t *err)
{
    int rc;

    if (!t || !job)
        return ns_error_set (err, EINVAL, "ns_trace_next: invalid argument");
    if (t->failed)
        return ns_error_set (err, EINVAL, "%s: read after a hard error",
                             t->name);
    for (;;) {
        if (t->pending)
            t->pending = 0;
        else if ((rc = read_line (t, err)) <= 0)
            return rc;
        if ((rc = record (t, job, err)) != 0)
            return rc;
    }
}

ns_trace_format_t ns_trace_format (const ns_trace_t *t)
{
    return t->fmt;
}

const struct ns_trace_header *ns_trace_header (const ns_trace_t *t)
{
    return &t->hdr;
}

const struct ns_trace_counts *ns_trace_skips (const ns_trace_t *t)
{
    return &t->counts;
}

