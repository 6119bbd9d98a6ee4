/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_sacct.c - the sacct --parsable2 record parser (see trace.h,
 * trace_int.h) */
#define _DEFAULT_SOURCE /* timegm */

#include <errno.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "trace_int.h"

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
    [SC_NODELIST] = "NodeList",
    [SC_REQMEM] = "ReqMem",
    [SC_PARTITION] = "Partition",
};

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
int tr_sacct_header (ns_trace_t *t, ns_error_t *err)
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
        while (tr_is_space (*name))
            name++;
        for (char *e = name + strlen (name); e > name && tr_is_space (e[-1]); )
            *--e = '\0';
        for (int c = 0; c < SC_NCOLS; c++)
            if (sc->col[c] < 0 && strcasecmp (name, sacct_names[c]) == 0)
                sc->col[c] = i;
    }
    return 0;
}

int tr_sacct_require (ns_trace_t *t, ns_error_t *err)
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

    if (tr_parse_num (s, s + strlen (s), out, &frac) == NUM_OK && !frac)
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
        if (tr_parse_num (s, dash, &days, &frac) != NUM_OK || frac || days < 0
            || days > INT32_MAX)
            return -1;
        s = dash + 1;
    }
    for (;;) {
        const char *colon = strchr (s, ':');
        const char *e = colon ? colon : s + strlen (s);
        if (n == 3 || tr_parse_num (s, e, &part[n], &frac) != NUM_OK || frac
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
 * else the result of tr_skip (). */
static int sacct_int (ns_trace_t *t, char *f[], int c, int64_t *v,
                      ns_error_t *err)
{
    const char *s = col_val (t, f, c);
    int frac, rc;

    *v = UNKNOWN;
    if (!s || *s == '\0')
        return 1;
    rc = tr_parse_num (s, s + strlen (s), v, &frac);
    if (rc == NUM_OK && !frac && *v >= INT_MIN && *v <= INT_MAX)
        return 1;
    *v = UNKNOWN;
    return tr_skip (t, err, rc == NUM_OK && frac ? NS_SKIP_NOT_AN_INTEGER
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
        return tr_skip (t, err, NS_SKIP_BAD_TIME,
                     "field %d (%s): expected a time like "
                     "2024-01-31T12:00:00, got '%.40s'", col_num (t, c),
                     sacct_names[c], s);
    }
    /* Bounded, so that End - Start and Start - Submit cannot overflow. */
    if (*v < 0 || *v > NS_TRACE_TIME_MAX) {
        *v = UNKNOWN;
        return tr_skip (t, err, NS_SKIP_BAD_TIME,
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
        return tr_skip (t, err, NS_SKIP_JOB_STEP, "job step '%.40s'",
                     id ? id : raw);
    *status = NS_TJOB_UNKNOWN;
    if (!state) {
        const char *end = col_val (t, f, SC_END);
        if (t->sacct.col[SC_END] >= 0 && is_unknown (end))
            return tr_skip (t, err, NS_SKIP_NOT_FINISHED,
                         "End is '%.40s': the job has not finished", end);
        return 1;
    }
    /* "CANCELLED by 1000"; "+" marks a name sacct cut short */
    len = strcspn (state, " +");
    for (size_t i = 0; i < sizeof (states) / sizeof (states[0]); i++) {
        if (strlen (states[i].name) == len
            && strncasecmp (state, states[i].name, len) == 0) {
            if (states[i].status == 99)
                return tr_skip (t, err, NS_SKIP_NOT_FINISHED,
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
        && tr_parse_num (s, s + n, id, &frac) == NUM_OK)
        return 1;
    return tr_skip (t, err, NS_SKIP_NOT_A_NUMBER,
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
        return tr_skip (t, err, NS_SKIP_BAD_TIME,
                     "field %d (Elapsed): expected [D-]HH:MM:SS, got "
                     "'%.40s'", col_num (t, SC_ELAPSED), el);
    }
    if (start != UNKNOWN && end != UNKNOWN) {
        *run = end - start;
        return 1;
    }
    /* Ended without starting: cancelled while pending (Slurm 24.11's
     * sacct prints Start None for it): a job of 0 s, as with Elapsed
     * 00:00:00. */
    if (start == UNKNOWN && end != UNKNOWN) {
        *run = 0;
        return 1;
    }
    return tr_skip (t, err, NS_SKIP_NO_RUNTIME,
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
        if (tr_parse_num (raw, raw + strlen (raw), &v, &frac) != NUM_OK || frac
            || v < 0)
            return tr_skip (t, err, NS_SKIP_NOT_A_NUMBER,
                         "field %d (TimelimitRaw): expected minutes, got "
                         "'%.40s'", col_num (t, SC_TIMELIMITRAW), raw);
        /* Slurm's INFINITE and NO_VAL are 32-bit sentinels */
        if (v < 0xfffffffeLL)
            *limit = v * 60;
        return 1;
    }
    if (!is_unlimited (tl)) {
        if (parse_duration (tl, &v) != 0)
            return tr_skip (t, err, NS_SKIP_BAD_TIME,
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
        return tr_skip (t, err, NS_SKIP_BAD_TIME,
                     "field %d (Submit): expected a time like "
                     "2024-01-31T12:00:00, got '%.40s'",
                     col_num (t, SC_SUBMIT), col_val (t, f, SC_SUBMIT));
    if ((rc = sacct_run (t, f, start, end, &job->run, err)) <= 0
        || (rc = sacct_limit (t, f, &job->req_time, err)) <= 0)
        return rc;
    if (job->run > NS_TRACE_TIME_MAX)
        return tr_skip (t, err, NS_SKIP_BAD_TIME,
                     "run time %lld s: expected at most %lld s (the year "
                     "2200)", (long long)job->run, NS_TRACE_TIME_MAX);
    if (job->req_time > NS_TRACE_TIME_MAX)
        return tr_skip (t, err, NS_SKIP_BAD_TIME,
                     "requested time %lld s: expected at most %lld s (the "
                     "year 2200)", (long long)job->req_time,
                     NS_TRACE_TIME_MAX);
    if (job->run < 0)
        return tr_skip (t, err, NS_SKIP_NEGATIVE_TIME,
                     "run time %lld s: End before Start", (long long)job->run);
    job->wait = start == UNKNOWN ? -1 : start - job->submit;
    if (job->wait < -1)
        return tr_skip (t, err, NS_SKIP_NEGATIVE_TIME,
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
        return tr_skip (t, err, NS_SKIP_NO_PROCESSORS,
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

/* ReqMem: a size with an optional unit (K, M, G, T; M when none) and,
 * up to Slurm 21.08, a suffix n (per node) or c (per CPU); without a
 * suffix it is the job's total, taken per CPU over its processors.  An
 * empty or "0" field is unknown (0).  1, or a skip. */
static int sacct_reqmem (ns_trace_t *t, char *f[], ns_tjob_t *job,
                         ns_error_t *err)
{
    const char *v = col_val (t, f, SC_REQMEM);
    if (!v || !*v || is_unknown (v))
        return 1;
    char *end;
    errno = 0;
    double x = strtod (v, &end);
    if (end == v || errno || !(x >= 0) || x > 1e12)
        return tr_skip (t, err, NS_SKIP_NOT_A_NUMBER,
                        "field %d (ReqMem): expected a size such as 4000M, "
                        "got '%.40s'", col_num (t, SC_REQMEM), v);
    double mb = x;
    switch (*end) {
    case 'K': case 'k': mb = x / 1024.0; end++; break;
    case 'M': case 'm': end++; break;
    case 'G': case 'g': mb = x * 1024.0; end++; break;
    case 'T': case 't': mb = x * 1024.0 * 1024.0; end++; break;
    default: break;
    }
    int per = 0;    /* 0 total, 'n' per node, 'c' per CPU */
    if (*end == 'n' || *end == 'c')
        per = *end++;
    if (*end)
        return tr_skip (t, err, NS_SKIP_NOT_A_NUMBER,
                        "field %d (ReqMem): expected a size such as 4000M, "
                        "4000Mn or 4000Mc, got '%.40s'",
                        col_num (t, SC_REQMEM), v);
    int64_t m = (int64_t)(mb + 0.999999);
    if (m <= 0)
        return 1;
    if (per == 'n')
        job->mem_per_node = m;
    else if (per == 'c')
        job->mem_per_cpu = m;
    else
        job->mem_per_cpu = (m + job->procs - 1) / job->procs;
    return 1;
}

int tr_sacct_record (ns_trace_t *t, ns_tjob_t *job, ns_error_t *err)
{
    struct sacct *sc = &t->sacct;
    char *f[256];
    const char *name;
    int n, rc, status;

    n = sacct_split (t->line, f, sc->ncols);
    if (n < sc->ncols)
        return tr_skip (t, err, NS_SKIP_TOO_FEW_FIELDS,
                     "expected %d '|'-separated fields, got %d", sc->ncols, n);
    if (n > sc->ncols)
        return tr_skip (t, err, NS_SKIP_TOO_MANY_FIELDS,
                     "expected %d '|'-separated fields, got %d (a '|' in "
                     "JobName?)", sc->ncols, n);
    memset (job, 0, offsetof (ns_tjob_t, program));
    job->program[0] = '\0';
    job->nodelist[0] = '\0';
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
    job->partition = -1;
    job->line = (int64_t)t->counts.lines;
    if ((rc = sacct_reqmem (t, f, job, err)) <= 0)
        return rc;
    const char *part = col_val (t, f, SC_PARTITION);
    if (part && !is_unknown (part))
        tr_copy_text (job->part_name, sizeof (job->part_name), part,
                      strlen (part));
    if ((name = col_val (t, f, SC_JOBNAME)))
        tr_copy_text (job->program, sizeof (job->program), name, strlen (name));
    const char *nl = col_val (t, f, SC_NODELIST);
    if (nl && !is_unknown (nl) && strcmp (nl, "None assigned") != 0) {
        if (strlen (nl) >= sizeof (job->nodelist))
            return tr_skip (t, err, NS_SKIP_TOO_LONG,
                            "field %d (NodeList): longer than %zu bytes",
                            col_num (t, SC_NODELIST),
                            sizeof (job->nodelist) - 1);
        memcpy (job->nodelist, nl, strlen (nl) + 1);
    }
    return 1;
}

