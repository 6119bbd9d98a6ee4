/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_swf.c - the SWF 2.2 record parser (see trace.h, trace_int.h) */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

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
    F_REQ_TIME, F_REQ_MEM, F_STATUS, F_UID, F_GID, F_EXE, F_QUEUE, F_PART,
};

/* Split into at most SWF_FIELDS tokens; returns how many were found. */
static int swf_split (char *s, const char *tok[], const char *end[])
{
    int n = 0;

    while (n < SWF_FIELDS) {
        while (tr_is_space (*s))
            s++;
        if (*s == '\0')
            break;
        tok[n] = s;
        while (*s && !tr_is_space (*s))
            s++;
        end[n++] = s;
    }
    return n;
}

/* The characters the record loop tells apart, by table: a space
 * (tr_is_space ()), the end of the line. */
enum { C_SPACE = 1, C_END = 4 };
static const unsigned char swf_class[256] = {
    ['\0'] = C_END, [' '] = C_SPACE, ['\t'] = C_SPACE, ['\r'] = C_SPACE,
    ['\v'] = C_SPACE, ['\f'] = C_SPACE,
};

/* swf_split () of a record, which also reads the fields that are plain
 * integers ([-]digits, at most 18 of them: what tr_parse_num () reads
 * without a check) on the way: bit i of *plain set, val[i] is field i.
 * A record's fields are short (RICC: 2.5 digits and 2.3 blanks on
 * average), so bytes are read one at a time; eight at a time cost more
 * (RICC: 0.80 G instructions against 0.70 G). */
static int swf_split_num (char *s, const char *tok[], const char *end[],
                          int64_t val[], uint32_t *plain)
{
    const unsigned char *u = (const unsigned char *)s;
    uint32_t mask = 0;
    int n = 0;

    while (n < SWF_FIELDS) {
        /* a blank first: most of a record's spaces are blanks */
        while (*u == ' ' || swf_class[*u] & C_SPACE)
            u++;
        if (*u == '\0')
            break;
        tok[n] = (const char *)u;
        int neg = *u == '-';
        const unsigned char *d = u + neg;
        const unsigned char *e = d;
        uint64_t v = 0;
        /* a digit by its distance from '0' (unsigned: below '0' too) */
        for (unsigned dg = (unsigned)*e - '0'; dg < 10;
             dg = (unsigned)*++e - '0')
            v = v * 10 + dg;
        u = e;
        if (e > d && e - d <= 18 && (swf_class[*e] & (C_SPACE | C_END))) {
            val[n] = neg ? -(int64_t)v : (int64_t)v;
            mask |= 1u << n;
        }
        else
            while (*u && !(swf_class[*u] & C_SPACE))
                u++;
        end[n++] = (const char *)u;
    }
    *plain = mask;
    return n;
}

#define TOKFMT "'%.*s'"
#define TOKARG(i) (int)(end[i] - tok[i] > 40 ? 40 : end[i] - tok[i]), tok[i]

/* Convert all 18 fields.  1 when they are all numbers, else the result of
 * tr_skip () for the first one that is not (0, or -1 in strict mode). */
static int swf_numbers (ns_trace_t *t, const char *tok[], const char *end[],
                        int64_t v[], uint32_t plain, ns_error_t *err)
{
    /* Every field a plain integer (the usual record): only the range of
     * the K_COUNT fields but the job number is left to check */
    static const int counts[] = { F_PROCS, F_REQ_PROCS, F_STATUS, F_UID,
                                  F_GID, F_EXE };
    if (plain == (1u << SWF_FIELDS) - 1) {
        int in_range = 1;
        for (size_t k = 0; k < sizeof (counts) / sizeof (counts[0]); k++)
            in_range &= v[counts[k]] <= INT_MAX && v[counts[k]] >= INT_MIN;
        if (in_range)
            return 1;
    }
    for (int i = 0; i < SWF_FIELDS; i++) {
        int frac = 0;
        int rc = plain >> i & 1 ? NUM_OK
                                : tr_parse_num (tok[i], end[i], &v[i], &frac);

        if (rc == NUM_RANGE)
            return tr_skip (t, err, NS_SKIP_NOT_A_NUMBER,
                         "field %d (%s): number out of range, got " TOKFMT,
                         i + 1, swf_fields[i].name, TOKARG (i));
        if (rc == NUM_BAD)
            return tr_skip (t, err, NS_SKIP_NOT_A_NUMBER,
                         "field %d (%s): expected a number, got " TOKFMT,
                         i + 1, swf_fields[i].name, TOKARG (i));
        if (frac && swf_fields[i].kind == K_COUNT)
            return tr_skip (t, err, NS_SKIP_NOT_AN_INTEGER,
                         "field %d (%s): expected an integer, got " TOKFMT,
                         i + 1, swf_fields[i].name, TOKARG (i));
        /* half a second or more rounds away from zero */
        if (frac == 2 && swf_fields[i].kind == K_TIME
            && v[i] > INT64_MIN && v[i] < INT64_MAX)
            v[i] += tok[i][0] == '-' ? -1 : 1;
        if (swf_fields[i].kind == K_COUNT && i != F_JOB
            && (v[i] > INT_MAX || v[i] < INT_MIN))
            return tr_skip (t, err, NS_SKIP_NOT_A_NUMBER,
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
        return tr_skip (t, err, NS_SKIP_NEGATIVE_TIME,
                     "field 2 (submit time): expected a time >= 0, got "
                     TOKFMT, TOKARG (F_SUBMIT));
    if (v[F_RUN] == -1)
        return tr_skip (t, err, NS_SKIP_NO_RUNTIME,
                     "field 4 (run time): expected a run time >= 0, got "
                     TOKFMT " (unknown)", TOKARG (F_RUN));
    if (v[F_RUN] < 0)
        return tr_skip (t, err, NS_SKIP_NEGATIVE_TIME,
                     "field 4 (run time): expected a run time >= 0, got "
                     TOKFMT, TOKARG (F_RUN));
    if (v[F_PROCS] <= 0 && v[F_REQ_PROCS] <= 0)
        return tr_skip (t, err, NS_SKIP_NO_PROCESSORS,
                     "field 5 (processors): expected a positive integer, "
                     "got " TOKFMT " (requested: " TOKFMT ")",
                     TOKARG (F_PROCS), TOKARG (F_REQ_PROCS));
    for (size_t k = 0; k < sizeof (waits) / sizeof (waits[0]); k++) {
        int i = waits[k];
        if (v[i] < -1)
            return tr_skip (t, err, NS_SKIP_NEGATIVE_TIME,
                         "field %d (%s): expected a time >= 0 or -1, got "
                         TOKFMT, i + 1, swf_fields[i].name, TOKARG (i));
    }
    /* the K_TIME fields */
    static const int times[] = { F_SUBMIT, F_WAIT, F_RUN, F_REQ_TIME };
    for (size_t k = 0; k < sizeof (times) / sizeof (times[0]); k++) {
        int i = times[k];
        if (v[i] > NS_TRACE_TIME_MAX)
            return tr_skip (t, err, NS_SKIP_BAD_TIME,
                         "field %d (%s): expected at most %lld s (the year "
                         "2200), got " TOKFMT, i + 1, swf_fields[i].name,
                         NS_TRACE_TIME_MAX, TOKARG (i));
    }
    return 1;
}

int tr_swf_record (ns_trace_t *t, ns_tjob_t *job, ns_error_t *err)
{
    const char *tok[SWF_FIELDS], *end[SWF_FIELDS];
    int64_t v[SWF_FIELDS];
    int n, rc;

    uint32_t plain;

    if ((n = swf_split_num (t->line, tok, end, v, &plain)) < SWF_FIELDS)
        return tr_skip (t, err, NS_SKIP_TOO_FEW_FIELDS,
                     "expected %d fields, got %d", SWF_FIELDS, n);
    if ((rc = swf_numbers (t, tok, end, v, plain, err)) <= 0)
        return rc;
    if ((rc = swf_check (t, tok, end, v, err)) <= 0)
        return rc;

    /* Not the text buffers (4 KiB): a 447,794-job trace would clear
     * 2 GB; empty strings are enough. */
    memset (job, 0, offsetof (ns_tjob_t, program));
    job->program[0] = '\0';
    job->nodelist[0] = '\0';
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
    /* requested memory: KB per processor (SWF 2.2) */
    job->mem_per_cpu = v[F_REQ_MEM] > 0
                           ? v[F_REQ_MEM] / 1024 + (v[F_REQ_MEM] % 1024 != 0)
                           : 0;
    job->mem_per_node = 0;
    job->partition = v[F_PART] >= 0 && v[F_PART] <= INT_MAX
                         ? (int)v[F_PART] : -1;
    job->part_name[0] = '\0';
    job->line = (int64_t)t->counts.lines;
    return 1;
}

/* "; Key: value" - keep the keys the engine and reports use. */
void tr_swf_header_line (ns_trace_t *t, const char *s)
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

    while (tr_is_space (*s) || *s == ';')
        s++;
    if (!(colon = strchr (s, ':')))
        return;
    klen = (size_t)(colon - s);
    for (val = colon + 1; tr_is_space (*val); val++)
        ;
    for (vend = val + strlen (val); vend > val && tr_is_space (vend[-1]); vend--)
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
            tr_copy_text ((char *)&t->hdr + strs[i].off, strs[i].size, val,
                       (size_t)(vend - val));
            return;
        }
    }
}

int tr_is_swf_comment (const char *s)
{
    while (tr_is_space (*s))
        s++;
    return *s == ';';
}

/* Headerless SWF: 18 or more fields, the first 18 numbers. */
int tr_looks_like_swf (const char *line)
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
        if (tr_parse_num (tok[i], end[i], &v, &frac) == NUM_BAD)
            return 0;
    return 1;
}

