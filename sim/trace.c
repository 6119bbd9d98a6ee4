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

#include "progtab.h"
#include "trace.h"

/* After compaction an unfinished line holds less than NS_TRACE_LINE_MAX,
 * so every refill has room for three times that.  zlib's own input buffer
 * defaults to 8 KiB; a larger one means fewer read () calls. */
#define BUF_SIZE (4 * NS_TRACE_LINE_MAX)
#define GZ_BUFFER (256 * 1024)

#define SWF_FIELDS 18

enum sacct_col {
    SC_JOBID,
    SC_JOBIDRAW,
    SC_JOBNAME,
    SC_USER,
    SC_UID,
    SC_GROUP,
    SC_GID,
    SC_SUBMIT,
    SC_START,
    SC_END,
    SC_ELAPSED,
    SC_ELAPSEDRAW,
    SC_TIMELIMIT,
    SC_TIMELIMITRAW,
    SC_NCPUS,
    SC_ALLOCCPUS,
    SC_REQCPUS,
    SC_NNODES,
    SC_STATE,
    SC_NCOLS
};

static const char *sacct_names[SC_NCOLS] = {
    [SC_JOBID] = "JobID",
    [SC_JOBIDRAW] = "JobIDRaw",
    [SC_JOBNAME] = "JobName",
    [SC_USER] = "User",
    [SC_UID] = "UID",
    [SC_GROUP] = "Group",
    [SC_GID] = "GID",
    [SC_SUBMIT] = "Submit",
    [SC_START] = "Start",
    [SC_END] = "End",
    [SC_ELAPSED] = "Elapsed",
    [SC_ELAPSEDRAW] = "ElapsedRaw",
    [SC_TIMELIMIT] = "Timelimit",
    [SC_TIMELIMITRAW] = "TimelimitRaw",
    [SC_NCPUS] = "NCPUS",
    [SC_ALLOCCPUS] = "AllocCPUS",
    [SC_REQCPUS] = "ReqCPUS",
    [SC_NNODES] = "NNodes",
    [SC_STATE] = "State",
};

struct sacct {
    int col[SC_NCOLS];          /* header position of each column, or -1 */
    int ncols;                  /* fields per line, from the header */
    uint64_t line;              /* where the header was */
    char *header;               /* the header line, to spot repeats */
    ns_progtab_t *users;        /* User name -> uid when there is no UID */
    ns_progtab_t *groups;
};

struct ns_trace {
    gzFile gz;
    char *name;                 /* path, or "stdin", for messages */
    int flags;
    ns_trace_format_t fmt;
    int failed;                 /* a hard error was returned */

    /* line reader */
    char *buf;                  /* BUF_SIZE + 1 for a final NUL */
    size_t start, end;          /* unread bytes are buf[start, end) */
    int eof;
    char *line;                 /* current line, NUL-terminated, no EOL */
    size_t len;
    int too_long;               /* current line was over the limit */
    int pending;                /* open () left the first record unread */

    struct ns_trace_header hdr;
    struct ns_trace_counts counts;
    int64_t max_submit;         /* for counts.unsorted */
    struct sacct sacct;
};

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
    n = gzread (t->gz, t->buf + t->end, (unsigned)(BUF_SIZE - t->end));
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
static void copy_text (char *dst, size_t size, const char *s, size_t len)
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
static int skip (ns_trace_t *t, ns_error_t *err, ns_skip_reason_t r,
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
            copy_text (s->first, sizeof (s->first), msg, strlen (msg));
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

static int is_space (char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int is_blank (const char *s)
{
    while (is_space (*s))
        s++;
    return *s == '\0';
}

/* Bytes a text trace never holds: NUL and C0 controls other than white
 * space.  High bytes pass (UTF-8 job names). */
static int is_binary (const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 && !is_space ((char)c))
            return 1;
    }
    return 0;
}

enum {
    NUM_OK = 0,
    NUM_BAD = -1,       /* not a number */
    NUM_RANGE = -2,     /* does not fit */
};

/* Parse [+-]digits[.digits] spanning exactly [s, e).  *frac is 0 for no
 * fractional part, 1 below one half, 2 for a half or more, so callers can
 * round times and reject fractional counts without floating point. */
static int parse_num (const char *s, const char *e, int64_t *vp, int *frac)
{
    int neg = 0, digits = 0;
    int64_t v = 0;

    *frac = 0;
    if (s < e && (*s == '-' || *s == '+'))
        neg = *s++ == '-';
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
 * SWF 2.2
 */

enum { K_COUNT, K_TIME, K_OTHER };

static const struct {
    const char *name;
    int kind;
} swf_fields[SWF_FIELDS] = {
    { "job number", K_COUNT },
    { "submit time", K_TIME },
    { "wait time", K_TIME },
    { "run time", K_TIME },
    { "processors", K_COUNT },
    { "average CPU time", K_OTHER },
    { "used memory", K_OTHER },
    { "requested processors", K_COUNT },
    { "requested time", K_TIME },
    { "requested memory", K_OTHER },
    { "status", K_COUNT },
    { "user id", K_COUNT },
    { "group id", K_COUNT },
    { "executable number", K_COUNT },
    { "queue number", K_OTHER },
    { "partition number", K_OTHER },
    { "preceding job", K_OTHER },
    { "think time", K_OTHER },
};

enum {
    F_JOB, F_SUBMIT, F_WAIT, F_RUN, F_PROCS, F_CPU, F_MEM, F_REQ_PROCS,
    F_REQ_TIME, F_REQ_MEM, F_STATUS, F_UID, F_GID, F_EXE,
};

/* Split into at most SWF_FIELDS tokens; returns how many were found. */
static int swf_split (char *s, const char *tok[], const char *end[])
{
    int n = 0;

    while (n < SWF_FIELDS) {
        while (is_space (*s))
            s++;
        if (*s == '\0')
            break;
        tok[n] = s;
        while (*s && !is_space (*s))
            s++;
        end[n++] = s;
    }
    return n;
}

#define TOKFMT "'%.*s'"
#define TOKARG(i) (int)(end[i] - tok[i] > 40 ? 40 : end[i] - tok[i]), tok[i]

/* Convert all 18 fields.  1 when they are all numbers, else the result of
 * skip () for the first one that is not (0, or -1 in strict mode). */
static int swf_numbers (ns_trace_t *t, const char *tok[], const char *end[],
                        int64_t v[], ns_error_t *err)
{
    for (int i = 0; i < SWF_FIELDS; i++) {
        int frac;
        int rc = parse_num (tok[i], end[i], &v[i], &frac);

        if (rc == NUM_RANGE)
            return skip (t, err, NS_SKIP_NOT_A_NUMBER,
                         "field %d (%s): number out of range, got " TOKFMT,
                         i + 1, swf_fields[i].name, TOKARG (i));
        if (rc == NUM_BAD)
            return skip (t, err, NS_SKIP_NOT_A_NUMBER,
                         "field %d (%s): expected a number, got " TOKFMT,
                         i + 1, swf_fields[i].name, TOKARG (i));
        if (frac && swf_fields[i].kind == K_COUNT)
            return skip (t, err, NS_SKIP_NOT_AN_INTEGER,
                         "field %d (%s): expected an integer, got " TOKFMT,
                         i + 1, swf_fields[i].name, TOKARG (i));
        /* half a second or more rounds away from zero */
        if (frac == 2 && swf_fields[i].kind == K_TIME
            && v[i] > INT64_MIN && v[i] < INT64_MAX)
            v[i] += tok[i][0] == '-' ? -1 : 1;
        if (swf_fields[i].kind == K_COUNT && i != F_JOB
            && (v[i] > INT_MAX || v[i] < INT_MIN))
            return skip (t, err, NS_SKIP_NOT_A_NUMBER,
                         "field %d (%s): number out of range, got " TOKFMT,
                         i + 1, swf_fields[i].name, TOKARG (i));
    }
    return 1;
}

/* Fields are numbers; now decide whether they make a job.  1 if so. */
static int swf_check (ns_trace_t *t, const char *tok[], const char *end[],
                      const int64_t v[], ns_error_t *err)
{
    static const int waits[] = { F_WAIT, F_REQ_TIME };

    if (v[F_SUBMIT] < 0)
        return skip (t, err, NS_SKIP_NEGATIVE_TIME,
                     "field 2 (submit time): expected a time >= 0, got "
                     TOKFMT, TOKARG (F_SUBMIT));
    if (v[F_RUN] == -1)
        return skip (t, err, NS_SKIP_NO_RUNTIME,
                     "field 4 (run time): expected a run time >= 0, got "
                     TOKFMT " (unknown)", TOKARG (F_RUN));
    if (v[F_RUN] < 0)
        return skip (t, err, NS_SKIP_NEGATIVE_TIME,
                     "field 4 (run time): expected a run time >= 0, got "
                     TOKFMT, TOKARG (F_RUN));
    if (v[F_PROCS] <= 0 && v[F_REQ_PROCS] <= 0)
        return skip (t, err, NS_SKIP_NO_PROCESSORS,
                     "field 5 (processors): expected a positive integer, "
                     "got " TOKFMT " (requested: " TOKFMT ")",
                     TOKARG (F_PROCS), TOKARG (F_REQ_PROCS));
    for (size_t k = 0; k < sizeof (waits) / sizeof (waits[0]); k++) {
        int i = waits[k];
        if (v[i] < -1)
            return skip (t, err, NS_SKIP_NEGATIVE_TIME,
                         "field %d (%s): expected a time >= 0 or -1, got "
                         TOKFMT, i + 1, swf_fields[i].name, TOKARG (i));
    }
    for (int i = 0; i < SWF_FIELDS; i++)
        if (swf_fields[i].kind == K_TIME && v[i] > NS_TRACE_TIME_MAX)
            return skip (t, err, NS_SKIP_BAD_TIME,
                         "field %d (%s): expected at most %lld s (the year "
                         "2200), got " TOKFMT, i + 1, swf_fields[i].name,
                         NS_TRACE_TIME_MAX, TOKARG (i));
    return 1;
}

static int swf_record (ns_trace_t *t, ns_tjob_t *job, ns_error_t *err)
{
    const char *tok[SWF_FIELDS], *end[SWF_FIELDS];
    int64_t v[SWF_FIELDS];
    int n, rc;

    if ((n = swf_split (t->line, tok, end)) < SWF_FIELDS)
        return skip (t, err, NS_SKIP_TOO_FEW_FIELDS,
                     "expected %d fields, got %d", SWF_FIELDS, n);
    if ((rc = swf_numbers (t, tok, end, v, err)) <= 0)
        return rc;
    if ((rc = swf_check (t, tok, end, v, err)) <= 0)
        return rc;

    memset (job, 0, sizeof (*job));
    job->id = v[F_JOB];
    job->submit = v[F_SUBMIT];
    job->wait = v[F_WAIT];
    job->run = v[F_RUN];
    job->req_time = v[F_REQ_TIME];
    job->procs = (int)(v[F_PROCS] > 0 ? v[F_PROCS] : v[F_REQ_PROCS]);
    job->req_procs = v[F_REQ_PROCS] > 0 ? (int)v[F_REQ_PROCS] : -1;
    job->nodes = -1;
    job->uid = (int)v[F_UID];
    job->gid = (int)v[F_GID];
    job->exe = (int)v[F_EXE];
    job->status = (int)v[F_STATUS];
    job->line = (int64_t)t->counts.lines;
    return 1;
}

/* "; Key: value" - keep the keys the engine and reports use. */
static void swf_header_line (ns_trace_t *t, const char *s)
{
    static const struct {
        const char *key;
        size_t off;
    } ints[] = {
        { "MaxNodes", offsetof (struct ns_trace_header, max_nodes) },
        { "MaxProcs", offsetof (struct ns_trace_header, max_procs) },
        { "MaxJobs", offsetof (struct ns_trace_header, max_jobs) },
        { "MaxRecords", offsetof (struct ns_trace_header, max_records) },
        { "UnixStartTime",
          offsetof (struct ns_trace_header, unix_start_time) },
    };
    static const struct {
        const char *key;
        size_t off, size;
    } strs[] = {
#define HSTR(k, f) { k, offsetof (struct ns_trace_header, f), \
                     sizeof (((struct ns_trace_header *)0)->f) }
        HSTR ("Version", version),
        HSTR ("Computer", computer),
        HSTR ("Installation", installation),
        HSTR ("Acknowledge", acknowledge),
#undef HSTR
    };
    const char *colon, *val, *vend;
    size_t klen;

    while (is_space (*s) || *s == ';')
        s++;
    if (!(colon = strchr (s, ':')))
        return;
    klen = (size_t)(colon - s);
    for (val = colon + 1; is_space (*val); val++)
        ;
    for (vend = val + strlen (val); vend > val && is_space (vend[-1]); vend--)
        ;
    for (size_t i = 0; i < sizeof (ints) / sizeof (ints[0]); i++) {
        if (strlen (ints[i].key) == klen
            && strncasecmp (s, ints[i].key, klen) == 0) {
            char *ep;
            long long x;
            errno = 0;
            x = strtoll (val, &ep, 10);
            /* "8192 (1024 x 8)" still says 8192; a word says nothing */
            if (ep != val && errno == 0)
                *(int64_t *)((char *)&t->hdr + ints[i].off) = x;
            return;
        }
    }
    for (size_t i = 0; i < sizeof (strs) / sizeof (strs[0]); i++) {
        if (strlen (strs[i].key) == klen
            && strncasecmp (s, strs[i].key, klen) == 0) {
            copy_text ((char *)&t->hdr + strs[i].off, strs[i].size, val,
                       (size_t)(vend - val));
            return;
        }
    }
}

static int is_swf_comment (const char *s)
{
    while (is_space (*s))
        s++;
    return *s == ';';
}

/* Headerless SWF: 18 or more fields, the first 18 numbers. */
static int looks_like_swf (const char *line)
{
    const char *tok[SWF_FIELDS], *end[SWF_FIELDS];
    char copy[1024];
    size_t len = strlen (line);
    int64_t v;
    int frac;

    if (len >= sizeof (copy))
        len = sizeof (copy) - 1;
    memcpy (copy, line, len);
    copy[len] = '\0';
    if (swf_split (copy, tok, end) < SWF_FIELDS)
        return 0;
    for (int i = 0; i < SWF_FIELDS; i++)
        if (parse_num (tok[i], end[i], &v, &frac) == NUM_BAD)
            return 0;
    return 1;
}

/*
 * sacct --parsable2
 */

/* Split on '|' in place.  Returns the field count (may exceed max: the
 * caller reports it); fills at most max pointers. */
static int sacct_split (char *s, char *f[], int max)
{
    int n = 0;

    for (;;) {
        char *bar = strchr (s, '|');
        if (n < max)
            f[n] = s;
        n++;
        if (!bar)
            break;
        *bar = '\0';
        s = bar + 1;
    }
    return n;
}

/* Map header names to columns; error text names what is missing. */
static int sacct_header (ns_trace_t *t, ns_error_t *err)
{
    struct sacct *sc = &t->sacct;
    char *f[256];
    int n;

    if (!(sc->header = strdup (t->line)))
        return ns_error_set (err, ENOMEM, "%s: out of memory", t->name);
    for (int c = 0; c < SC_NCOLS; c++)
        sc->col[c] = -1;
    n = sacct_split (t->line, f, 256);
    if (n > 256)
        return ns_error_set (err, EINVAL, "%s: line %llu: sacct header has "
                             "%d fields, at most 256 are supported", t->name,
                             (unsigned long long)t->counts.lines, n);
    sc->ncols = n;
    sc->line = t->counts.lines;
    for (int i = 0; i < n; i++) {
        char *name = f[i];
        while (is_space (*name))
            name++;
        for (char *e = name + strlen (name); e > name && is_space (e[-1]); )
            *--e = '\0';
        for (int c = 0; c < SC_NCOLS; c++)
            if (sc->col[c] < 0 && strcasecmp (name, sacct_names[c]) == 0)
                sc->col[c] = i;
    }
    return 0;
}

static int sacct_require (ns_trace_t *t, ns_error_t *err)
{
    const int *col = t->sacct.col;
    const char *missing = NULL;
    int known = 0;

    for (int c = 0; c < SC_NCOLS; c++)
        known += col[c] >= 0;
    if (known == 0)
        return ns_error_set (err, EINVAL, "%s: line %llu: not a sacct "
                             "header (no JobID, Submit, ... field): dumps "
                             "made with --noheader cannot be read", t->name,
                             (unsigned long long)t->sacct.line);
    if (col[SC_JOBID] < 0 && col[SC_JOBIDRAW] < 0)
        missing = "JobID or JobIDRaw";
    else if (col[SC_SUBMIT] < 0)
        missing = "Submit";
    else if (col[SC_ELAPSEDRAW] < 0 && col[SC_ELAPSED] < 0
             && (col[SC_START] < 0 || col[SC_END] < 0))
        missing = "a run time (ElapsedRaw, Elapsed, or Start and End)";
    else if (col[SC_ALLOCCPUS] < 0 && col[SC_NCPUS] < 0
             && col[SC_REQCPUS] < 0)
        missing = "processors (AllocCPUS, NCPUS or ReqCPUS)";
    if (missing)
        return ns_error_set (err, EINVAL, "%s: line %llu: sacct header "
                             "lacks %s", t->name,
                             (unsigned long long)t->sacct.line,
                             missing);
    return 0;
}

#define UNKNOWN INT64_MIN       /* a sacct value that is absent or unknown */

/* Column c of the current line split into f[], or NULL when the header
 * lacks it. */
static const char *col_val (const ns_trace_t *t, char *f[], int c)
{
    int i = t->sacct.col[c];
    return i < 0 ? NULL : f[i];
}

static int col_num (const ns_trace_t *t, int c)
{
    return t->sacct.col[c] + 1;
}

static int is_unknown (const char *s)
{
    return !s || *s == '\0' || strcasecmp (s, "Unknown") == 0
           || strcasecmp (s, "None") == 0;
}

/* Exactly n digits at s. */
static int digits (const char *s, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        *v = *v * 10 + (s[i] - '0');
    }
    return 1;
}

/* 2024-01-31T12:00:00 as UTC, or plain epoch seconds (what sacct prints
 * with SLURM_TIME_FORMAT=%s).  0 on success. */
static int parse_timestamp (const char *s, int64_t *out)
{
    int y, mo, d, h, mi, sec, frac;
    struct tm tm;
    time_t when;

    if (parse_num (s, s + strlen (s), out, &frac) == NUM_OK && !frac)
        return 0;
    if (!digits (s, 4, &y) || s[4] != '-' || !digits (s + 5, 2, &mo)
        || s[7] != '-' || !digits (s + 8, 2, &d)
        || (s[10] != 'T' && s[10] != ' ') || !digits (s + 11, 2, &h)
        || s[13] != ':' || !digits (s + 14, 2, &mi) || s[16] != ':'
        || !digits (s + 17, 2, &sec) || s[19] != '\0')
        return -1;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
        return -1;
    memset (&tm, 0, sizeof (tm));
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    when = timegm (&tm);
    *out = (int64_t)when;
    return 0;
}

/* Slurm's duration grammar (time_str2secs): M, M:S, H:M:S, D-H, D-H:M,
 * D-H:M:S.  0 on success. */
static int parse_duration (const char *s, int64_t *out)
{
    int64_t days = -1, part[3] = { 0, 0, 0 };
    const char *dash = strchr (s, '-');
    int n = 0, frac;

    if (dash) {
        if (parse_num (s, dash, &days, &frac) != NUM_OK || frac || days < 0
            || days > INT32_MAX)
            return -1;
        s = dash + 1;
    }
    for (;;) {
        const char *colon = strchr (s, ':');
        const char *e = colon ? colon : s + strlen (s);
        if (n == 3 || parse_num (s, e, &part[n], &frac) != NUM_OK || frac
            || part[n] < 0 || part[n] > INT32_MAX)
            return -1;
        n++;
        if (!colon)
            break;
        s = colon + 1;
    }
    if (days >= 0)
        *out = days * 86400 + part[0] * 3600 + part[1] * 60 + part[2];
    else if (n == 1)
        *out = part[0] * 60;
    else if (n == 2)
        *out = part[0] * 60 + part[1];
    else
        *out = part[0] * 3600 + part[1] * 60 + part[2];
    return 0;
}

/* Integer column into *v (UNKNOWN when absent or empty).  1 on success,
 * else the result of skip (). */
static int sacct_int (ns_trace_t *t, char *f[], int c, int64_t *v,
                      ns_error_t *err)
{
    const char *s = col_val (t, f, c);
    int frac, rc;

    *v = UNKNOWN;
    if (!s || *s == '\0')
        return 1;
    rc = parse_num (s, s + strlen (s), v, &frac);
    if (rc == NUM_OK && !frac && *v >= INT_MIN && *v <= INT_MAX)
        return 1;
    *v = UNKNOWN;
    return skip (t, err, rc == NUM_OK && frac ? NS_SKIP_NOT_AN_INTEGER
                                              : NS_SKIP_NOT_A_NUMBER,
                 "field %d (%s): expected an integer, got '%.40s'",
                 col_num (t, c), sacct_names[c], s);
}

/* Timestamp column into *v (UNKNOWN for Unknown/None/empty/absent). */
static int sacct_time (ns_trace_t *t, char *f[], int c, int64_t *v,
                       ns_error_t *err)
{
    const char *s = col_val (t, f, c);

    *v = UNKNOWN;
    if (is_unknown (s))
        return 1;
    if (parse_timestamp (s, v) < 0) {
        *v = UNKNOWN;
        return skip (t, err, NS_SKIP_BAD_TIME,
                     "field %d (%s): expected a time like "
                     "2024-01-31T12:00:00, got '%.40s'", col_num (t, c),
                     sacct_names[c], s);
    }
    /* Bounded, so that End - Start and Start - Submit cannot overflow. */
    if (*v < 0 || *v > NS_TRACE_TIME_MAX) {
        *v = UNKNOWN;
        return skip (t, err, NS_SKIP_BAD_TIME,
                     "field %d (%s): expected a time between 1970 and 2200, "
                     "got '%.40s'", col_num (t, c), sacct_names[c], s);
    }
    return 1;
}

/* Steps and unfinished jobs are not jobs of the trace (yet). */
static int sacct_filter (ns_trace_t *t, char *f[], int *status,
                         ns_error_t *err)
{
    static const struct {
        const char *name;
        int status;     /* SWF status, or 99: not finished */
    } states[] = {
        { "COMPLETED", NS_TJOB_COMPLETED },
        { "CANCELLED", NS_TJOB_CANCELLED },
        { "FAILED", NS_TJOB_FAILED },
        { "TIMEOUT", NS_TJOB_FAILED },
        { "NODE_FAIL", NS_TJOB_FAILED },
        { "OUT_OF_MEMORY", NS_TJOB_FAILED },
        { "BOOT_FAIL", NS_TJOB_FAILED },
        { "DEADLINE", NS_TJOB_FAILED },
        { "PREEMPTED", NS_TJOB_FAILED },
        { "SPECIAL_EXIT", NS_TJOB_FAILED },
        { "PENDING", 99 }, { "RUNNING", 99 }, { "SUSPENDED", 99 },
        { "REQUEUED", 99 }, { "REQUEUE_FED", 99 }, { "REQUEUE_HOLD", 99 },
        { "RESIZING", 99 }, { "REVOKED", 99 }, { "STOPPED", 99 },
        { "SIGNALING", 99 }, { "COMPLETING", 99 }, { "CONFIGURING", 99 },
        { "STAGE_OUT", 99 }, { "RESV_DEL_HOLD", 99 },
    };
    const char *id = col_val (t, f, SC_JOBID);
    const char *raw = col_val (t, f, SC_JOBIDRAW);
    const char *state = col_val (t, f, SC_STATE);
    size_t len;

    if ((id && strchr (id, '.')) || (raw && strchr (raw, '.')))
        return skip (t, err, NS_SKIP_JOB_STEP, "job step '%.40s'",
                     id ? id : raw);
    *status = NS_TJOB_UNKNOWN;
    if (!state) {
        const char *end = col_val (t, f, SC_END);
        if (t->sacct.col[SC_END] >= 0 && is_unknown (end))
            return skip (t, err, NS_SKIP_NOT_FINISHED,
                         "End is '%.40s': the job has not finished", end);
        return 1;
    }
    /* "CANCELLED by 1000"; "+" marks a name sacct cut short */
    len = strcspn (state, " +");
    for (size_t i = 0; i < sizeof (states) / sizeof (states[0]); i++) {
        if (strlen (states[i].name) == len
            && strncasecmp (state, states[i].name, len) == 0) {
            if (states[i].status == 99)
                return skip (t, err, NS_SKIP_NOT_FINISHED,
                             "State is '%.40s': the job has not finished",
                             state);
            *status = states[i].status;
            break;
        }
    }
    return 1;
}

/* JobIDRaw, else the number that JobID starts with (123, 123_4, 123+1). */
static int sacct_id (ns_trace_t *t, char *f[], int64_t *id, ns_error_t *err)
{
    int c = t->sacct.col[SC_JOBIDRAW] >= 0 ? SC_JOBIDRAW : SC_JOBID;
    const char *s = col_val (t, f, c);
    size_t n = strspn (s, "0123456789");
    int frac;

    if (n > 0 && (s[n] == '\0' || (c == SC_JOBID && strchr ("_+", s[n])))
        && parse_num (s, s + n, id, &frac) == NUM_OK)
        return 1;
    return skip (t, err, NS_SKIP_NOT_A_NUMBER,
                 "field %d (%s): expected a job id like 123, got '%.40s'",
                 col_num (t, c), sacct_names[c], s);
}

/* Run time: ElapsedRaw, else Elapsed, else End - Start. */
static int sacct_run (ns_trace_t *t, char *f[], int64_t start, int64_t end,
                      int64_t *run, ns_error_t *err)
{
    const char *el = col_val (t, f, SC_ELAPSED);
    int rc;

    if ((rc = sacct_int (t, f, SC_ELAPSEDRAW, run, err)) <= 0)
        return rc;
    if (*run != UNKNOWN)
        return 1;
    if (!is_unknown (el)) {
        if (parse_duration (el, run) == 0)
            return 1;
        return skip (t, err, NS_SKIP_BAD_TIME,
                     "field %d (Elapsed): expected [D-]HH:MM:SS, got "
                     "'%.40s'", col_num (t, SC_ELAPSED), el);
    }
    if (start != UNKNOWN && end != UNKNOWN) {
        *run = end - start;
        return 1;
    }
    return skip (t, err, NS_SKIP_NO_RUNTIME,
                 "no run time: Elapsed unknown and Start or End unknown");
}

static int is_unlimited (const char *s)
{
    return is_unknown (s) || strcasecmp (s, "UNLIMITED") == 0
           || strcasecmp (s, "Partition_Limit") == 0
           || strcasecmp (s, "INVALID") == 0;
}

/* Requested time: TimelimitRaw (minutes), else Timelimit; -1 if none. */
static int sacct_limit (ns_trace_t *t, char *f[], int64_t *limit,
                        ns_error_t *err)
{
    const char *raw = col_val (t, f, SC_TIMELIMITRAW);
    const char *tl = col_val (t, f, SC_TIMELIMIT);
    int64_t v;
    int frac;

    *limit = -1;
    if (!is_unknown (raw)) {
        if (is_unlimited (raw))
            return 1;
        if (parse_num (raw, raw + strlen (raw), &v, &frac) != NUM_OK || frac
            || v < 0)
            return skip (t, err, NS_SKIP_NOT_A_NUMBER,
                         "field %d (TimelimitRaw): expected minutes, got "
                         "'%.40s'", col_num (t, SC_TIMELIMITRAW), raw);
        /* Slurm's INFINITE and NO_VAL are 32-bit sentinels */
        if (v < 0xfffffffeLL)
            *limit = v * 60;
        return 1;
    }
    if (!is_unlimited (tl)) {
        if (parse_duration (tl, &v) != 0)
            return skip (t, err, NS_SKIP_BAD_TIME,
                         "field %d (Timelimit): expected [D-]HH:MM:SS or "
                         "UNLIMITED, got '%.40s'",
                         col_num (t, SC_TIMELIMIT), tl);
        *limit = v;
    }
    return 1;
}

static int sacct_times (ns_trace_t *t, char *f[], ns_tjob_t *job,
                        ns_error_t *err)
{
    int64_t start, end;
    int rc;

    if ((rc = sacct_time (t, f, SC_SUBMIT, &job->submit, err)) <= 0
        || (rc = sacct_time (t, f, SC_START, &start, err)) <= 0
        || (rc = sacct_time (t, f, SC_END, &end, err)) <= 0)
        return rc;
    if (job->submit == UNKNOWN)
        return skip (t, err, NS_SKIP_BAD_TIME,
                     "field %d (Submit): expected a time like "
                     "2024-01-31T12:00:00, got '%.40s'",
                     col_num (t, SC_SUBMIT), col_val (t, f, SC_SUBMIT));
    if ((rc = sacct_run (t, f, start, end, &job->run, err)) <= 0
        || (rc = sacct_limit (t, f, &job->req_time, err)) <= 0)
        return rc;
    if (job->run > NS_TRACE_TIME_MAX)
        return skip (t, err, NS_SKIP_BAD_TIME,
                     "run time %lld s: expected at most %lld s (the year "
                     "2200)", (long long)job->run, NS_TRACE_TIME_MAX);
    if (job->req_time > NS_TRACE_TIME_MAX)
        return skip (t, err, NS_SKIP_BAD_TIME,
                     "requested time %lld s: expected at most %lld s (the "
                     "year 2200)", (long long)job->req_time,
                     NS_TRACE_TIME_MAX);
    if (job->run < 0)
        return skip (t, err, NS_SKIP_NEGATIVE_TIME,
                     "run time %lld s: End before Start", (long long)job->run);
    job->wait = start == UNKNOWN ? -1 : start - job->submit;
    if (job->wait < -1)
        return skip (t, err, NS_SKIP_NEGATIVE_TIME,
                     "wait %lld s: Start before Submit", (long long)job->wait);
    return 1;
}

/* Processors: AllocCPUS, else NCPUS, else ReqCPUS (first positive). */
static int sacct_procs (ns_trace_t *t, char *f[], ns_tjob_t *job,
                        ns_error_t *err)
{
    static const int cols[] = { SC_ALLOCCPUS, SC_NCPUS, SC_REQCPUS };
    int64_t v[3], nodes;
    int rc, first = -1;

    for (int i = 0; i < 3; i++) {
        if ((rc = sacct_int (t, f, cols[i], &v[i], err)) <= 0)
            return rc;
        if (first < 0 && t->sacct.col[cols[i]] >= 0)
            first = i;
        if (job->procs <= 0 && v[i] != UNKNOWN && v[i] > 0)
            job->procs = (int)v[i];
    }
    if (job->procs <= 0)
        return skip (t, err, NS_SKIP_NO_PROCESSORS,
                     "field %d (%s): expected a positive integer, got "
                     "'%.40s'", col_num (t, cols[first]),
                     sacct_names[cols[first]], col_val (t, f, cols[first]));
    job->req_procs = v[2] != UNKNOWN && v[2] > 0 ? (int)v[2] : -1;
    if ((rc = sacct_int (t, f, SC_NNODES, &nodes, err)) <= 0)
        return rc;
    job->nodes = nodes != UNKNOWN && nodes > 0 ? (int)nodes : -1;
    return 1;
}

/* A numeric id column, else a name numbered in order of first sight. */
static int sacct_owner (ns_trace_t *t, char *f[], int idcol, int namecol,
                        ns_progtab_t *names, int *out, ns_error_t *err)
{
    const char *name = col_val (t, f, namecol);
    int64_t v;
    int rc;

    if ((rc = sacct_int (t, f, idcol, &v, err)) <= 0)
        return rc;
    if (v != UNKNOWN)
        *out = (int)v;
    else if (name && *name)
        *out = ns_progtab_intern (names, name, NULL);   /* -1 if too long */
    else
        *out = -1;
    return 1;
}

static int sacct_record (ns_trace_t *t, ns_tjob_t *job, ns_error_t *err)
{
    struct sacct *sc = &t->sacct;
    char *f[256];
    const char *name;
    int n, rc, status;

    n = sacct_split (t->line, f, sc->ncols);
    if (n < sc->ncols)
        return skip (t, err, NS_SKIP_TOO_FEW_FIELDS,
                     "expected %d '|'-separated fields, got %d", sc->ncols, n);
    if (n > sc->ncols)
        return skip (t, err, NS_SKIP_TOO_MANY_FIELDS,
                     "expected %d '|'-separated fields, got %d (a '|' in "
                     "JobName?)", sc->ncols, n);
    memset (job, 0, sizeof (*job));
    if ((rc = sacct_filter (t, f, &status, err)) <= 0
        || (rc = sacct_id (t, f, &job->id, err)) <= 0
        || (rc = sacct_times (t, f, job, err)) <= 0
        || (rc = sacct_procs (t, f, job, err)) <= 0
        || (rc = sacct_owner (t, f, SC_UID, SC_USER, sc->users, &job->uid,
                              err)) <= 0
        || (rc = sacct_owner (t, f, SC_GID, SC_GROUP, sc->groups, &job->gid,
                              err)) <= 0)
        return rc;
    job->status = status;
    job->exe = -1;
    job->line = (int64_t)t->counts.lines;
    if ((name = col_val (t, f, SC_JOBNAME)))
        copy_text (job->program, sizeof (job->program), name, strlen (name));
    return 1;
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
    return 0;
}

static int start_sacct (ns_trace_t *t, ns_error_t *err)
{
    if (sacct_header (t, err) < 0 || sacct_require (t, err) < 0)
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
    else if (looks_like_swf (t->line))
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
        if (t->fmt != NS_TRACE_SACCT && is_swf_comment (t->line)) {
            t->fmt = NS_TRACE_SWF;
            swf_header_line (t, t->line);
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
        if (t->fmt == NS_TRACE_SWF && is_swf_comment (t->line)) {
            swf_header_line (t, t->line);
            return 0;
        }
        /* concatenated dumps repeat the header */
        if (t->fmt == NS_TRACE_SACCT && strcmp (t->line, t->sacct.header) == 0)
            return 0;
    }
    t->counts.records++;
    if (t->too_long)
        return skip (t, err, NS_SKIP_TOO_LONG, "line longer than %d bytes",
                     NS_TRACE_LINE_MAX);
    if (nul)
        return skip (t, err, NS_SKIP_BINARY, "NUL byte at column %zu",
                     (size_t)(nul - t->line) + 1);
    if (t->fmt == NS_TRACE_SWF)
        rc = swf_record (t, job, err);
    else
        rc = sacct_record (t, job, err);
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
