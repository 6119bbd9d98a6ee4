/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace.c - tests for the SWF and sacct trace readers (sim/trace.h)
 *
 * Hand-written fixtures live in tests/traces/; everything a repository
 * should not hold (gzip, cut gzip, binary, empty, CRLF) is made at test
 * time in a temporary directory.  The real archive logs in ../shared/traces
 * are checked too when present, with counts computed independently by
 * zcat | awk.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "tap.h"
#include "trace.h"
#include "trace_test.h"

static char tmpdir[256];

#define SWF_WANT 18

static const char *srcdir (void)
{
    const char *s = getenv ("top_srcdir");
    return s ? s : ".";
}

static const char *fixture (const char *name)
{
    static char path[4][1024];
    static int i;
    i = (i + 1) % 4;
    snprintf (path[i], sizeof (path[i]), "%s/tests/traces/%s", srcdir (),
              name);
    return path[i];
}

static const char *tmpfile_path (const char *name)
{
    static char path[4][1024];
    static int i;
    i = (i + 1) % 4;
    snprintf (path[i], sizeof (path[i]), "%s/%s", tmpdir, name);
    return path[i];
}

static const char *write_file (const char *name, const char *data, size_t len)
{
    const char *path = tmpfile_path (name);
    FILE *f = fopen (path, "wb");
    if (!f || fwrite (data, 1, len, f) != len || fclose (f) != 0) {
        diag ("cannot write %s: %s", path, strerror (errno));
        exit (1);
    }
    return path;
}

static const char *write_str (const char *name, const char *s)
{
    return write_file (name, s, strlen (s));
}

static char *slurp (const char *path, size_t *len)
{
    FILE *f = fopen (path, "rb");
    char *buf = NULL;
    long n;

    if (!f || fseek (f, 0, SEEK_END) < 0 || (n = ftell (f)) < 0
        || fseek (f, 0, SEEK_SET) < 0 || !(buf = malloc ((size_t)n + 1))
        || fread (buf, 1, (size_t)n, f) != (size_t)n) {
        diag ("cannot read %s", path);
        exit (1);
    }
    fclose (f);
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

static const char *gzip_data (const char *name, const char *data, size_t len)
{
    const char *path = tmpfile_path (name);
    gzFile gz = gzopen (path, "wb9");
    if (!gz || gzwrite (gz, data, (unsigned)len) != (int)len
        || gzclose (gz) != Z_OK) {
        diag ("cannot gzip %s", path);
        exit (1);
    }
    return path;
}

/* Read every job; returns the last ns_trace_next () result (0 or -1). */
static int read_all (ns_trace_t *t, ns_tjob_t *jobs, int max, int *n,
                     ns_error_t *err)
{
    ns_tjob_t job;
    int rc;

    *n = 0;
    while ((rc = ns_trace_next (t, &job, err)) == 1) {
        if (*n < max)
            jobs[*n] = job;
        (*n)++;
    }
    return rc;
}

struct want {
    int64_t id, submit, wait, run, req_time;
    int procs, req_procs, uid, gid, exe, status;
    int64_t line;
};

static void check_job (const ns_tjob_t *j, const struct want *w,
                       const char *what)
{
    int same = j->id == w->id && j->submit == w->submit
               && j->wait == w->wait && j->run == w->run
               && j->req_time == w->req_time && j->procs == w->procs
               && j->req_procs == w->req_procs && j->uid == w->uid
               && j->gid == w->gid && j->exe == w->exe
               && j->status == w->status && j->line == w->line;
    ok (same, "%s: job %lld (line %lld) reads as expected", what,
        (long long)w->id, (long long)w->line);
    if (!same)
        diag ("got id %lld submit %lld wait %lld run %lld req_time %lld "
              "procs %d req_procs %d uid %d gid %d exe %d status %d "
              "line %lld", (long long)j->id, (long long)j->submit,
              (long long)j->wait, (long long)j->run,
              (long long)j->req_time, j->procs, j->req_procs, j->uid,
              j->gid, j->exe, j->status, (long long)j->line);
}

/* Expected skip counts and first lines for one reason. */
struct want_skip {
    int reason;
    int count;
    int64_t lines[NS_TRACE_SKIP_LINES];
};

static void check_skips (const ns_trace_t *t, const struct want_skip *w,
                         int nw, const char *what)
{
    const struct ns_trace_counts *c = ns_trace_skips (t);
    uint64_t total = 0;

    for (int r = 0; r < NS_SKIP_NREASONS; r++) {
        const struct ns_trace_skip *s = &c->skip[r];
        const struct want_skip *ws = NULL;
        int lines_ok = 1;

        for (int i = 0; i < nw; i++)
            if (w[i].reason == r)
                ws = &w[i];
        is_int ((long long)s->count, ws ? ws->count : 0, "%s: %s count",
                what, ns_trace_skip_name (r));
        for (int i = 0; ws && i < NS_TRACE_SKIP_LINES; i++)
            if (s->lines[i] != ws->lines[i])
                lines_ok = 0;
        if (ws)
            ok (lines_ok, "%s: %s at lines %lld %lld %lld...", what,
                ns_trace_skip_name (r), (long long)ws->lines[0],
                (long long)ws->lines[1], (long long)ws->lines[2]);
        total += s->count;
    }
    is_int ((long long)c->skipped, (long long)total,
            "%s: skipped is the sum of the reasons", what);
    is_int ((long long)(c->jobs + c->skipped), (long long)c->records,
            "%s: jobs + skipped = records", what);
}

/*
 * SWF
 */

static const struct want swf_small[] = {
    { 1, 0, 10, 100, 200, 4, 4, 1, 1, 1, 1, 11 },
    { 2, 5, -1, 489, 600, 8, 8, 2, 1, 2, 1, 12 },      /* decimals */
    { 3, 8, 0, 0, -1, 2, -1, 3, 2, -1, 5, 13 },        /* 7.5 rounds; run 0 */
    { 4, 20, 1, 30, 60, 32, 32, 1, 1, 3, 0, 14 },      /* alloc -1: requested */
    { 5, 25, 0, 40, 30, 16, 16, 4, 2, 1, 1, 16 },      /* extra columns */
    { 6, 30, 2, 12, 20, 1, 1, 1, 1, -1, 1, 17 },       /* tabs; 12.49 */
};
#define NSMALL (int)(sizeof (swf_small) / sizeof (swf_small[0]))

static void check_small (const char *path, const char *what)
{
    ns_error_t err = { "" };
    ns_tjob_t jobs[16];
    ns_trace_t *t;
    int n = 0, rc;

    t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    if (!ok (t != NULL, "%s: opens", what)) {
        diag ("%s", err.text);
        return;
    }
    is_int (ns_trace_format (t), NS_TRACE_SWF, "%s: detected as SWF", what);
    is_int (ns_trace_header (t)->max_procs, 16,
            "%s: header read before the first job (MaxProcs 16)", what);
    rc = read_all (t, jobs, 16, &n, &err);
    is_int (rc, 0, "%s: reads to the end", what);
    is_int (n, NSMALL, "%s: all %d jobs", what, NSMALL);
    for (int i = 0; i < n && i < NSMALL; i++)
        check_job (&jobs[i], &swf_small[i], what);
    check_skips (t, NULL, 0, what);
    is_int ((long long)ns_trace_skips (t)->lines, 17, "%s: 17 lines", what);
    ns_trace_close (t);
}

static void test_swf_small (void)
{
    const char *path = fixture ("swf-small.swf");
    const struct ns_trace_header *h;
    ns_error_t err = { "" };
    ns_trace_t *t;
    char *data, *crlf;
    size_t len, j = 0;

    check_small (path, "swf-small");

    t = ns_trace_open (path, NS_TRACE_SWF, 0, &err);
    h = ns_trace_header (t);
    is_int (h->max_nodes, 4, "header: MaxNodes 4");
    is_int (h->max_jobs, 6, "header: MaxJobs 6");
    is_int (h->max_records, 6, "header: MaxRecords 6");
    is_int (h->unix_start_time, 1700000000, "header: UnixStartTime");
    is_str (h->version, "2.2", "header: Version");
    is_str (h->computer, "Test Cluster", "header: Computer");
    is_str (h->installation, "nodeshare test suite", "header: Installation");
    is_str (h->acknowledge, "", "header: no Acknowledge is empty");
    ns_trace_close (t);

    /* The same bytes with CRLF line ends, and gzipped. */
    data = slurp (path, &len);
    crlf = malloc (2 * len);
    for (size_t i = 0; i < len; i++) {
        if (data[i] == '\n')
            crlf[j++] = '\r';
        crlf[j++] = data[i];
    }
    check_small (write_file ("crlf.swf", crlf, j), "swf-small CRLF");
    check_small (gzip_data ("small.swf.gz", data, len), "swf-small.gz");
    check_small (gzip_data ("crlf.swf.gz", crlf, j), "swf-small CRLF gz");

    /* Headerless (no ';' lines at all) is detected by its 18 numbers. */
    {
        char *p = data;
        while (*p == ';')
            p = strchr (p, '\n') + 1;
        t = ns_trace_open (write_str ("headerless.swf", p), NS_TRACE_AUTO, 0,
                           &err);
        ok (t && ns_trace_format (t) == NS_TRACE_SWF,
            "headerless SWF is detected");
        is_int (t ? ns_trace_header (t)->max_procs : 0, -1,
                "headerless SWF: MaxProcs -1");
        ns_trace_close (t);
    }

    /* stdin */
    if (freopen (path, "r", stdin)) {
        ns_tjob_t jobs[16];
        int n;
        t = ns_trace_open ("-", NS_TRACE_AUTO, 0, &err);
        ok (t && read_all (t, jobs, 16, &n, &err) == 0 && n == NSMALL,
            "'-' reads stdin");
        ns_trace_close (t);
        if (!freopen ("/dev/null", "r", stdin))
            diag ("cannot reopen stdin");
    }
    free (data);
    free (crlf);
}

static void test_swf_bad (void)
{
    static const struct want_skip skips[] = {
        { NS_SKIP_TOO_FEW_FIELDS, 1, { 3 } },
        { NS_SKIP_NOT_A_NUMBER, 3, { 4, 12, 13 } },
        { NS_SKIP_NOT_AN_INTEGER, 1, { 5 } },
        { NS_SKIP_NO_PROCESSORS, 2, { 6, 7 } },
        { NS_SKIP_NO_RUNTIME, 1, { 8 } },
        { NS_SKIP_NEGATIVE_TIME, 2, { 9, 10 } },
    };
    static const int64_t ids[] = { 1, 10, 13, 14 };
    const char *path = fixture ("swf-bad.swf");
    const struct ns_trace_counts *c;
    char want[1200];
    ns_error_t err = { "" };
    ns_tjob_t jobs[16];
    ns_trace_t *t;
    int n = 0, rc;

    t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    rc = read_all (t, jobs, 16, &n, &err);
    is_int (rc, 0, "swf-bad: bad lines are not hard errors");
    is_int (n, 4, "swf-bad: 4 usable jobs");
    for (int i = 0; i < 4 && i < n; i++)
        is_int (jobs[i].id, ids[i], "swf-bad: job %lld kept",
                (long long)ids[i]);
    is_int (n > 1 ? jobs[1].procs : 0, 2,
            "swf-bad: allocated -4, requested 2 gives 2 processors");
    check_skips (t, skips, sizeof (skips) / sizeof (skips[0]), "swf-bad");
    c = ns_trace_skips (t);
    is_int ((long long)c->records, 14, "swf-bad: 14 records");
    is_int ((long long)c->unsorted, 1,
            "swf-bad: a job submitted before an earlier one is counted");
    is_str (c->skip[NS_SKIP_NO_PROCESSORS].first,
            "field 5 (processors): expected a positive integer, got '-1' "
            "(requested: '-1')", "swf-bad: first message kept per reason");
    ns_trace_close (t);

    t = ns_trace_open (path, NS_TRACE_AUTO, NS_TRACE_STRICT, &err);
    rc = read_all (t, jobs, 16, &n, &err);
    is_int (rc, -1, "swf-bad strict: the first bad line is a hard error");
    is_int (errno, EINVAL, "swf-bad strict: errno EINVAL");
    is_int (n, 1, "swf-bad strict: the job before it was returned");
    snprintf (want, sizeof (want), "%s:3: expected 18 fields, got 9", path);
    is_str (err.text, want, "swf-bad strict: message names file and line");
    rc = ns_trace_next (t, jobs, &err);
    is_int (rc, -1, "swf-bad strict: reading on after the error fails");
    ns_trace_close (t);
}

/* One bad line each: its reason and the exact strict-mode message. */
static void test_swf_messages (void)
{
    static const struct {
        const char *line;
        int reason;
        const char *msg;
    } tab[] = {
        { "1 0 0 10", NS_SKIP_TOO_FEW_FIELDS,
          "expected 18 fields, got 4" },
        { "1 0 0 1O 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1",
          NS_SKIP_NOT_A_NUMBER,
          "field 4 (run time): expected a number, got '1O'" },
        { "1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 1e3",
          NS_SKIP_NOT_A_NUMBER,
          "field 18 (think time): expected a number, got '1e3'" },
        { "1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 .",
          NS_SKIP_NOT_A_NUMBER,
          "field 18 (think time): expected a number, got '.'" },
        { "1 0 0 10 1 -1 -1 1 20 -1 1 99999999999 1 -1 -1 -1 -1 -1",
          NS_SKIP_NOT_A_NUMBER,
          "field 12 (user id): number out of range, got '99999999999'" },
        { "1 0 0 10 1.5 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1",
          NS_SKIP_NOT_AN_INTEGER,
          "field 5 (processors): expected an integer, got '1.5'" },
        { "1 0 0 10 -1 -1 -1 -1 20 -1 1 1 1 -1 -1 -1 -1 -1",
          NS_SKIP_NO_PROCESSORS,
          "field 5 (processors): expected a positive integer, got '-1' "
          "(requested: '-1')" },
        { "1 0 0 10 0 -1 -1 0 20 -1 1 1 1 -1 -1 -1 -1 -1",
          NS_SKIP_NO_PROCESSORS,
          "field 5 (processors): expected a positive integer, got '0' "
          "(requested: '0')" },
        { "1 0 0 -1 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1",
          NS_SKIP_NO_RUNTIME,
          "field 4 (run time): expected a run time >= 0, got '-1' "
          "(unknown)" },
        { "1 0 0 -2 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1",
          NS_SKIP_NEGATIVE_TIME,
          "field 4 (run time): expected a run time >= 0, got '-2'" },
        { "1 -1 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1",
          NS_SKIP_NEGATIVE_TIME,
          "field 2 (submit time): expected a time >= 0, got '-1'" },
        { "1 0 0 10 1 -1 -1 1 -20 -1 1 1 1 -1 -1 -1 -1 -1",
          NS_SKIP_NEGATIVE_TIME,
          "field 9 (requested time): expected a time >= 0 or -1, "
          "got '-20'" },
        /* Absurd times: a 9e18 submit time used to be a 2.5e15-hour
         * makespan. */
        { "1 9000000000000000000 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1",
          NS_SKIP_BAD_TIME,
          "field 2 (submit time): expected at most 7258118400 s (the year "
          "2200), got '9000000000000000000'" },
        { "1 0 7258118401 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1",
          NS_SKIP_BAD_TIME,
          "field 3 (wait time): expected at most 7258118400 s (the year "
          "2200), got '7258118401'" },
        { "1 0 0 1e12 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1",
          NS_SKIP_NOT_A_NUMBER,
          "field 4 (run time): expected a number, got '1e12'" },
        { "1 0 0 1000000000000 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1",
          NS_SKIP_BAD_TIME,
          "field 4 (run time): expected at most 7258118400 s (the year "
          "2200), got '1000000000000'" },
        { "1 0 0 10 1 -1 -1 1 9223372036854775807 -1 1 1 1 -1 -1 -1 -1 -1",
          NS_SKIP_BAD_TIME,
          "field 9 (requested time): expected at most 7258118400 s (the "
          "year 2200), got '9223372036854775807'" },
    };

    for (size_t i = 0; i < sizeof (tab) / sizeof (tab[0]); i++) {
        const char *path = write_str ("one.swf", tab[i].line);
        const char *name = ns_trace_skip_name (tab[i].reason);
        char want[1200];
        ns_error_t err = { "" };
        ns_tjob_t job;
        ns_trace_t *t;
        int rc;

        /* A bad first line cannot be detected: say SWF. */
        t = ns_trace_open (path, NS_TRACE_SWF, 0, &err);
        rc = t ? ns_trace_next (t, &job, &err) : -2;
        ok (rc == 0 && ns_trace_skips (t)->skip[tab[i].reason].count == 1
            && ns_trace_skips (t)->skip[tab[i].reason].lines[0] == 1,
            "'%s' is skipped as %s", tab[i].line, name);
        ns_trace_close (t);

        t = ns_trace_open (path, NS_TRACE_SWF, NS_TRACE_STRICT, &err);
        rc = t ? ns_trace_next (t, &job, &err) : -2;
        snprintf (want, sizeof (want), "%s:1: %s", path, tab[i].msg);
        ok (rc == -1, "strict: %s is a hard error", name);
        is_str (err.text, want, "strict: %s message", name);
        ns_trace_close (t);
    }
}

/* Whole-file failures: the message, and that open fails rather than later. */
static void test_open_errors (void)
{
    static const char elf[] = "\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\n";
    char big[4096], msg[1200];
    const char *path, *gz;
    ns_error_t err = { "" };
    ns_tjob_t jobs[16];
    ns_trace_t *t;
    char *data;
    size_t len;
    int n = 0, rc;

    t = ns_trace_open ("/nonexistent/trace.swf", NS_TRACE_AUTO, 0, &err);
    ok (t == NULL && errno == ENOENT, "missing file: ENOENT");
    is_str (err.text, "/nonexistent/trace.swf: No such file or directory",
            "missing file: message");

    path = write_str ("empty.swf", "");
    t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    snprintf (msg, sizeof (msg), "%s: empty trace, no jobs", path);
    ok (t == NULL && errno == EINVAL, "empty file fails to open");
    is_str (err.text, msg, "empty file: message");

    path = write_str ("blank.swf", "\n  \r\n\t\n");
    t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    snprintf (msg, sizeof (msg), "%s: empty trace, no jobs", path);
    ok (t == NULL, "blank lines only: fails");
    is_str (err.text, msg, "blank lines only: message");

    path = write_str ("header.swf", "; MaxNodes: 4\n; MaxProcs: 4\n");
    t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    snprintf (msg, sizeof (msg), "%s: empty trace, no jobs", path);
    ok (t == NULL, "header without jobs: fails");
    is_str (err.text, msg, "header without jobs: message");

    path = write_file ("elf.swf", elf, sizeof (elf) - 1);
    t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    snprintf (msg, sizeof (msg), "%s: line 1: not a text trace (binary data)",
              path);
    ok (t == NULL && errno == EINVAL, "binary file fails to open");
    is_str (err.text, msg, "binary file: message");

    gz = gzip_data ("elf.swf.gz", elf, sizeof (elf) - 1);
    t = ns_trace_open (gz, NS_TRACE_AUTO, 0, &err);
    snprintf (msg, sizeof (msg), "%s: line 1: not a text trace (binary data)",
              gz);
    is_str (err.text, msg, "gzipped binary: message");

    /* Binary without a newline in sight, e.g. random bytes. */
    for (size_t i = 0; i < sizeof (big); i++)
        big[i] = (char)(i * 7 + 1);
    path = write_file ("noise.bin", big, sizeof (big));
    t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    snprintf (msg, sizeof (msg), "%s: line 1: not a text trace (binary data)",
              path);
    is_str (err.text, msg, "noise: message");

    path = write_str ("text.txt", "hello world\n");
    t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    snprintf (msg, sizeof (msg), "%s: line 1: unknown trace format: expected "
              "SWF (';' comments or 18 numeric fields) or a sacct --parsable2 "
              "header, got 'hello world'", path);
    ok (t == NULL, "plain text that is no trace fails");
    is_str (err.text, msg, "unknown format: message");

    /* A directory opens but cannot be read. */
    t = ns_trace_open (tmpdir, NS_TRACE_AUTO, 0, &err);
    ok (t == NULL && strstr (err.text, "read error") != NULL,
        "directory: read error (%s)", err.text);

    /* Truncated gzip: jobs before the cut come back, then -1. */
    {
        char *many = malloc (1 << 20);
        size_t m = 0;
        unsigned seed = 1;
        for (int i = 1; i <= 5000; i++) {
            seed = seed * 1103515245u + 12345u;
            m += (size_t)snprintf (many + m, 200, "%d %d %u %u %u -1 -1 %u "
                                   "%u -1 1 %u 1 -1 -1 -1 -1 -1\n", i, i * 10,
                                   seed % 1000, seed % 77777, 1 + seed % 64,
                                   1 + seed % 64, seed % 99999, seed % 300);
        }
        gz = gzip_data ("many.swf.gz", many, m);
        data = slurp (gz, &len);
        path = write_file ("cut.swf.gz", data, len / 2);
        t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
        ok (t != NULL, "truncated gzip: opens (the start is intact)");
        rc = t ? read_all (t, jobs, 16, &n, &err) : 0;
        is_int (rc, -1, "truncated gzip: a hard error, not a quiet end");
        is_int (errno, EIO, "truncated gzip: errno EIO");
        ok (n > 100 && n < 5000, "truncated gzip: %d jobs before the cut", n);
        ok (strstr (err.text, ": truncated gzip after line ") != NULL,
            "truncated gzip: message says so (%s)", err.text);
        ns_trace_close (t);

        path = write_file ("cut20.swf.gz", data, 20);
        t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
        snprintf (msg, sizeof (msg), "%s: truncated gzip after line 0", path);
        ok (t == NULL, "gzip cut inside the first block: open fails");
        is_str (err.text, msg, "gzip cut inside the first block: message");

        data[len / 2] ^= 0x55;      /* corrupt, not cut */
        data[len / 2 + 1] ^= 0xaa;
        path = write_file ("bad.swf.gz", data, len);
        t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
        rc = t ? read_all (t, jobs, 16, &n, &err) : -1;
        ok (rc == -1 && strstr (err.text, "gzip") != NULL,
            "corrupt gzip: hard error (%s)", err.text);
        ns_trace_close (t);

        /* the uncut file for comparison */
        t = ns_trace_open (gz, NS_TRACE_AUTO, 0, &err);
        rc = t ? read_all (t, jobs, 16, &n, &err) : -1;
        ok (rc == 0 && n == 5000, "the uncut gzip reads all 5000 jobs");
        ns_trace_close (t);
        free (data);
        free (many);
    }

    t = ns_trace_open ("x", (ns_trace_format_t)7, 0, &err);
    ok (t == NULL && errno == EINVAL, "bad format argument: EINVAL");
    ns_trace_close (NULL);
    ok (1, "ns_trace_close (NULL) is harmless");
}

/* Lines the line reader must survive mid-file. */
static void test_odd_lines (void)
{
    static const char good[] = "1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n";
    char *buf = malloc (100000);
    ns_error_t err = { "" };
    ns_tjob_t jobs[4];
    ns_trace_t *t;
    const char *path;
    size_t n = 0;
    int count = 0, rc;

    /* an over-long line */
    n += (size_t)sprintf (buf + n, "%s", good);
    memset (buf + n, '7', 70000);
    n += 70000;
    buf[n++] = '\n';
    n += (size_t)sprintf (buf + n, "%s", good);
    path = write_file ("long.swf", buf, n);
    t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    rc = read_all (t, jobs, 4, &count, &err);
    ok (rc == 0 && count == 2, "a 70000-byte line does not stop the read");
    is_int ((long long)ns_trace_skips (t)->skip[NS_SKIP_TOO_LONG].count, 1,
            "it is skipped as too-long");
    is_int (ns_trace_skips (t)->skip[NS_SKIP_TOO_LONG].lines[0], 2,
            "too-long at line 2");
    is_int (count == 2 ? jobs[1].line : 0, 3, "line numbers count on");
    ns_trace_close (t);

    /* longer than the read buffer, in the middle and, without a
     * newline, at the end */
    buf = realloc (buf, 2000000);
    n = 0;
    n += (size_t)sprintf (buf + n, "%s", good);
    memset (buf + n, ' ', 600000);
    n += 600000;
    buf[n++] = '\n';
    n += (size_t)sprintf (buf + n, "%s", good);
    memset (buf + n, '1', 300000);
    n += 300000;
    path = write_file ("long.swf", buf, n);
    t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    rc = read_all (t, jobs, 4, &count, &err);
    ok (rc == 0 && count == 2, "600000- and 300000-byte lines are skipped");
    is_int ((long long)ns_trace_skips (t)->skip[NS_SKIP_TOO_LONG].count, 2,
            "both as too-long");
    is_int (ns_trace_skips (t)->skip[NS_SKIP_TOO_LONG].lines[1], 4,
            "the last at line 4");
    is_int (count == 2 ? jobs[1].line : 0, 3, "the job between is line 3");
    ns_trace_close (t);

    memset (buf, 'a', 100000);
    path = write_file ("long.swf", buf, 100000);
    t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    ok (t == NULL && strstr (err.text, ": line 1: not a trace: line longer "
                             "than 65536 bytes") != NULL,
        "an over-long first line is no trace");

    /* a NUL in the middle of the file */
    n = 0;
    n += (size_t)sprintf (buf + n, "%s", good);
    memcpy (buf + n, "1 0 0\0 10\n", 10);
    n += 10;
    n += (size_t)sprintf (buf + n, "%s", good);
    path = write_file ("nul.swf", buf, n);
    t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    rc = read_all (t, jobs, 4, &count, &err);
    ok (rc == 0 && count == 2, "a line with a NUL does not stop the read");
    is_int ((long long)ns_trace_skips (t)->skip[NS_SKIP_BINARY].count, 1,
            "it is skipped as binary-data");
    is_str (ns_trace_skips (t)->skip[NS_SKIP_BINARY].first,
            "NUL byte at column 6", "binary-data message");
    ns_trace_close (t);

    /* no newline at the end, a UTF-8 byte order mark at the start */
    path = write_str ("nonl.swf", "\xef\xbb\xbf" "1 0 0 10 1 -1 -1 1 20 -1 1 "
                      "1 1 -1 -1 -1 -1 -1\n2 5 0 10 1 -1 -1 1 20 -1 1 1 1 "
                      "-1 -1 -1 -1 -1");
    t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    rc = t ? read_all (t, jobs, 4, &count, &err) : -1;
    ok (rc == 0 && count == 2 && jobs[1].submit == 5,
        "BOM and a last line without newline are fine");
    ns_trace_close (t);
    free (buf);
}

/* A small generator of its own, so the records are the same everywhere */
static uint64_t rnd_state = 88172645463325252ULL;
static uint64_t rnd (uint64_t n)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state % n;
}

/* A number as a trace may write it: leading zeros now and then, so that
 * its digits end at every place of a word; a number of any length */
static int put_num (char *p, int64_t v)
{
    char digits[32];
    snprintf (digits, sizeof (digits), "%llu",
                      (unsigned long long)(v < 0 ? -(uint64_t)v
                                                 : (uint64_t)v));
    int zeros = rnd (4) == 0 ? (int)rnd (12) : 0;
    return sprintf (p, "%s%.*s%s", v < 0 ? "-" : "", zeros,
                    "000000000000", digits);
}

static int64_t rnd_value (int digits)
{
    int64_t v = 0;
    for (int i = 0; i < digits; i++)
        v = v * 10 + (int64_t)rnd (10);
    return v;
}

/* Records of plain numbers with every spacing and length (the reader
 * converts plain integers as it splits the record, and then checks only
 * the counts' range): the fields read are those written, and a record
 * with a token that is not a number, or a count beyond an int, is
 * skipped. */
static void test_swf_numbers (void)
{
    enum { RECORDS = 4000 };
    static const char *const blanks[] = { " ", "  ", "\t", " \t ", "\v",
                                          "\f", "         ", "\t\t",
                                          "                 " };
    static const char *const bad[] = { "12a", "a", "1x2", "5\xfb", "\xfa",
                                       "--3", "3-", "7\xff" "8",
                                       "123456789012345678901234",
                                       /* bytes next to '0' and '9'
                                        * in ASCII, after digits */
                                       "1234567/", "1:2", "12345678?",
                                       "0@", "\x30\xb9" };
    int64_t (*want)[SWF_WANT] = calloc (RECORDS, sizeof (*want));
    int *good = calloc (RECORDS, sizeof (int));
    char *buf = malloc ((size_t)RECORDS * 700);
    size_t n = 0;
    int ngood = 0;

    for (int r = 0; r < RECORDS; r++) {
        int64_t *v = want[r];
        int broken = rnd (8) == 0 ? (int)rnd (18) : -1;
        v[0] = rnd_value ((int)rnd (19));                  /* job */
        v[1] = rnd_value ((int)rnd (10));                  /* submit */
        v[2] = rnd_value ((int)rnd (8)) - 1;               /* wait */
        v[3] = rnd_value ((int)rnd (8));                   /* run */
        v[4] = 1 + rnd_value ((int)rnd (7));               /* procs */
        v[5] = rnd_value ((int)rnd (19)) - 1;              /* cpu */
        v[6] = rnd_value ((int)rnd (19)) - 1;              /* memory */
        v[7] = rnd_value ((int)rnd (7)) - 1;               /* req procs */
        v[8] = rnd_value ((int)rnd (8)) - 1;               /* req time */
        v[9] = rnd_value ((int)rnd (12)) - 1;              /* req memory */
        v[10] = 1;                                         /* status */
        v[11] = rnd_value ((int)rnd (10)) % 1000000000
                - (int64_t)rnd (2) * 2000000000;           /* uid */
        v[12] = rnd_value ((int)rnd (9)) - 1;              /* gid */
        v[13] = rnd_value ((int)rnd (9)) - 1;              /* exe */
        v[14] = rnd_value ((int)rnd (19)) - 1;             /* queue */
        v[15] = rnd_value ((int)rnd (19)) - (int64_t)rnd (2) * 7; /* part */
        v[16] = rnd_value ((int)rnd (19)) - 1;             /* preceding */
        v[17] = rnd_value ((int)rnd (19)) - 1;             /* think */
        if (rnd (3) == 0)
            n += (size_t)sprintf (buf + n, "%s",
                                  blanks[rnd (sizeof (blanks)
                                              / sizeof (blanks[0]))]);
        for (int f = 0; f < 18; f++) {
            if (f > 0)
                n += (size_t)sprintf (buf + n, "%s",
                                      blanks[rnd (sizeof (blanks)
                                                  / sizeof (blanks[0]))]);
            /* a count (processors to executable) beyond an int */
            int count = f == 4 || f == 7 || (f >= 10 && f <= 13);
            if (f == broken && count && rnd (2))
                n += (size_t)sprintf (buf + n, "%s",
                                      rnd (2) ? "2147483648"
                                              : "-2147483649");
            else if (f == broken)
                n += (size_t)sprintf (buf + n, "%s",
                                      bad[rnd (sizeof (bad)
                                               / sizeof (bad[0]))]);
            else
                n += (size_t)put_num (buf + n, v[f]);
        }
        if (rnd (4) == 0)
            n += (size_t)sprintf (buf + n, "%s", rnd (2) ? "   " : "\r");
        buf[n++] = '\n';
        good[r] = broken < 0;
        ngood += good[r];
    }
    const char *path = write_file ("numbers.swf", buf, n);
    ns_error_t err = { "" };
    ns_trace_t *t = ns_trace_open (path, NS_TRACE_SWF, 0, &err);
    ns_tjob_t job;
    int r = 0, got = 0, wrong = 0, rc;
    while (t && (rc = ns_trace_next (t, &job, &err)) == 1) {
        while (r < RECORDS && !good[r])
            r++;
        if (r >= RECORDS || job.line != r + 1) {
            wrong++;
            diag ("job from line %lld, record %d expected",
                  (long long)job.line, r + 1);
            break;
        }
        const int64_t *v = want[r];
        int64_t mem = v[9] > 0 ? v[9] / 1024 + (v[9] % 1024 != 0) : 0;
        int part = v[15] >= 0 && v[15] <= INT32_MAX ? (int)v[15] : -1;
        if (job.id != v[0] || job.submit != v[1] || job.wait != v[2]
            || job.run != v[3] || job.procs != v[4]
            || job.req_procs != (v[7] > 0 ? v[7] : -1)
            || job.req_time != v[8] || job.mem_per_cpu != mem
            || job.status != v[10] || job.uid != v[11] || job.gid != v[12]
            || job.exe != v[13] || job.partition != part) {
            if (wrong++ < 3)
                diag ("line %d: job %lld submit %lld run %lld procs %d "
                      "uid %d part %d", r + 1, (long long)job.id,
                      (long long)job.submit, (long long)job.run,
                      job.procs, job.uid, job.partition);
        }
        got++;
        r++;
    }
    ok (t != NULL, "numbers: opens");
    is_int (got, ngood, "numbers: every record of numbers is a job");
    is_int (wrong, 0, "numbers: each job's fields are the numbers written");
    is_int (t ? (long long)ns_trace_skips (t)
                    ->skip[NS_SKIP_NOT_A_NUMBER].count : -1,
            RECORDS - ngood, "numbers: a record with a token that is not "
            "a number or a count beyond an int is skipped as not-a-number");
    ns_trace_close (t);
    free (buf);
    free (good);
    free (want);
}

/*
 * sacct
 */

static void test_sacct_small (void)
{
    static const struct want_skip skips[] = {
        { NS_SKIP_JOB_STEP, 3, { 3, 4, 5 } },
        { NS_SKIP_NOT_FINISHED, 2, { 8, 9 } },
        { NS_SKIP_BAD_TIME, 1, { 11 } },
        { NS_SKIP_NO_PROCESSORS, 1, { 12 } },
        { NS_SKIP_TOO_MANY_FIELDS, 1, { 13 } },
        { NS_SKIP_TOO_FEW_FIELDS, 1, { 14 } },
    };
    const int64_t t0 = 1706702400;      /* 2024-01-31T12:00:00Z */
    const struct want want[] = {
        { 100, t0, 300, 3600, 7200, 64, 64, 0, 0, -1, 1, 2 },
        { 102, t0 + 600, 30, 93600, 129600, 8, 8, 1, 1, -1, 0, 6 },
        { 103, t0 + 1200, -1, 0, 1800, 4, 4, 0, 0, -1, 5, 7 },
        { 106, t0 + 3000, 0, 0, -1, 16, 16, 2, 0, -1, 0, 10 },
        { 111, t0 - 3600, 0, 5, 300, 1, 1, 3, 2, -1, 1, 15 },
    };
    const char *path = fixture ("sacct-small.txt");
    const struct ns_trace_header *h;
    char msg[1200];
    ns_error_t err = { "" };
    ns_tjob_t jobs[16];
    ns_trace_t *t;
    int n = 0, rc;

    t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    if (!ok (t != NULL, "sacct-small: opens")) {
        diag ("%s", err.text);
        return;
    }
    is_int (ns_trace_format (t), NS_TRACE_SACCT, "sacct-small: detected");
    h = ns_trace_header (t);
    ok (h->max_nodes == -1 && h->max_procs == -1,
        "sacct-small: no machine size in the header");
    rc = read_all (t, jobs, 16, &n, &err);
    is_int (rc, 0, "sacct-small: reads to the end");
    is_int (n, 5, "sacct-small: 5 jobs");
    for (int i = 0; i < n && i < 5; i++)
        check_job (&jobs[i], &want[i], "sacct-small");
    is_str (jobs[0].program, "lammps", "sacct-small: JobName is the program");
    is_str (jobs[2].program, "hello world", "sacct-small: names keep spaces");
    is_int (jobs[0].nodes, 2, "sacct-small: NNodes");
    is_int (jobs[2].nodes, -1, "sacct-small: NNodes 0 is unknown");
    is_int ((long long)strlen (jobs[4].program), NS_TJOB_PROGRAM_MAX - 1,
            "sacct-small: a long JobName is cut to fit");
    is_str (jobs[0].nodelist, "", "sacct-small: no NodeList column: empty");
    check_skips (t, skips, sizeof (skips) / sizeof (skips[0]), "sacct-small");
    is_int ((long long)ns_trace_skips (t)->unsorted, 1,
            "sacct-small: the early-submitted last job is counted unsorted");
    is_str (ns_trace_skips (t)->skip[NS_SKIP_NOT_FINISHED].first,
            "State is 'PENDING': the job has not finished",
            "sacct-small: not-finished message");
    ns_trace_close (t);

    t = ns_trace_open (path, NS_TRACE_SACCT, NS_TRACE_STRICT, &err);
    rc = read_all (t, jobs, 16, &n, &err);
    is_int (rc, -1, "sacct-small strict: stops at the bad Submit");
    is_int (n, 4, "sacct-small strict: steps and pending jobs do not stop it");
    snprintf (msg, sizeof (msg), "%s:11: field 6 (Submit): expected a time "
              "like 2024-01-31T12:00:00, got '2024-01-31T25:00:00'", path);
    is_str (err.text, msg, "sacct-small strict: message");
    ns_trace_close (t);
}

/* --parsable (trailing '|'), Raw columns, epoch times, End - Start. */
static void test_sacct_raw (void)
{
    const struct want want[] = {
        { 7, 1706702400, 60, 3600, 5400, 32, -1, 1000, 100, -1, 1, 2 },
        { 8, 1706702500, 60, 10, -1, 4, -1, 1000, 100, -1, 1, 3 },
        { 11, 1706702700, 0, 10, -1, 2, -1, 1000, 100, -1, 1, 7 },
    };
    static const struct want_skip skips[] = {
        { NS_SKIP_NEGATIVE_TIME, 1, { 4 } },
        { NS_SKIP_NOT_A_NUMBER, 1, { 5 } },
    };
    const char *path = write_str ("raw.txt",
        "JobIDRaw|UID|GID|Submit|Start|End|TimelimitRaw|AllocCPUS|State|\n"
        "7|1000|100|1706702400|1706702460|1706706060|90|32|COMPLETED|\n"
        "8|1000|100|1706702500|1706702560|1706702570|UNLIMITED|4|COMPLETED|\n"
        "9|1001|100|1706702600|1706702600|1706702590|4294967295|4|COMPLETED|\n"
        "10|x|100|1706702600|1706702600|1706702690|10|4|COMPLETED|\n"
        "JobIDRaw|UID|GID|Submit|Start|End|TimelimitRaw|AllocCPUS|State|\n"
        "11|1000|100|1706702700|1706702700|1706702710|4294967295|2|"
        "COMPLETED|\n");
    ns_error_t err = { "" };
    ns_tjob_t jobs[8];
    ns_trace_t *t;
    int n = 0, rc;

    t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    rc = t ? read_all (t, jobs, 8, &n, &err) : -1;
    ok (rc == 0 && n == 3, "sacct raw: 3 jobs, the repeated header ignored");
    for (int i = 0; i < n && i < 3; i++)
        check_job (&jobs[i], &want[i], "sacct raw");
    if (t) {
        check_skips (t, skips, 2, "sacct raw");
        is_str (ns_trace_skips (t)->skip[NS_SKIP_NEGATIVE_TIME].first,
                "run time -10 s: End before Start",
                "sacct raw: negative-time message");
        is_str (ns_trace_skips (t)->skip[NS_SKIP_NOT_A_NUMBER].first,
                "field 2 (UID): expected an integer, got 'x'",
                "sacct raw: not-a-number message");
    }
    ns_trace_close (t);
}

/* No Elapsed column: a job cancelled while pending (Start None, End
 * known, as Slurm 24.11's sacct prints it) is a job of 0 s that never
 * waited to a start; Start and End both unknown is no run time. */
static void test_sacct_cancelled_pending (void)
{
    const char *path = write_str ("cancelled.txt",
        "JobIDRaw|JobName|Submit|Start|End|NodeList|AllocCPUS|ReqCPUS|"
        "NNodes|State|Timelimit\n"
        "1|lmp|2026-11-23T19:32:45|2026-11-23T19:32:46|2026-11-23T19:32:54|"
        "ns[1-2]|24|24|2|COMPLETED|00:05:00\n"
        "4|cp2k|2026-11-23T19:32:45|None|2026-11-23T19:32:46|None assigned|"
        "0|4|1|CANCELLED by 0|00:05:00\n"
        "5|cp2k|2026-11-23T19:32:45|None|Unknown|None assigned|"
        "0|4|1|PENDING|00:05:00\n");
    ns_error_t err = { "" };
    ns_tjob_t jobs[4];
    int n = 0;
    ns_trace_t *t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    int rc = t ? read_all (t, jobs, 4, &n, &err) : -1;
    ok (rc == 0 && n == 2, "sacct cancelled while pending: 2 jobs (%d)", n);
    if (n == 2) {
        is_int ((int)jobs[1].run, 0, "  Start None, End known: a job of 0 s");
        is_int ((int)jobs[1].wait, -1, "  and no recorded wait");
    }
    if (t)
        is_int ((int)ns_trace_skips (t)->skip[NS_SKIP_NOT_FINISHED].count,
                1, "  a pending job (Start and End unknown): not finished");
    ns_trace_close (t);
}

/* Extreme epochs: End - Start and Start - Submit overflowed int64. */
static void test_sacct_extreme (void)
{
    static const struct want_skip skips[] = {
        { NS_SKIP_BAD_TIME, 4, { 2, 3, 4, 5 } },
    };
    const char *path = write_str ("extreme.txt",
        "JobIDRaw|Submit|Start|End|AllocCPUS|State\n"
        "1|0|-9223372036854775807|9223372036854775807|1|COMPLETED\n"
        "2|-9223372036854775807|9223372036854775807|9223372036854775807|1|"
        "COMPLETED\n"
        "3|1706702400|1706702460|7258118401|1|COMPLETED\n"
        "4|1706702400|1706702460|2200-01-01T00:00:01|1|COMPLETED\n"
        "5|1706702400|1706702460|2199-12-31T23:59:59|1|COMPLETED\n");
    ns_error_t err = { "" };
    ns_tjob_t jobs[8];
    ns_trace_t *t;
    int n = 0, rc;

    t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    rc = t ? read_all (t, jobs, 8, &n, &err) : -1;
    ok (rc == 0 && n == 1 && jobs[0].id == 5
        && jobs[0].run == 7258118399LL - 1706702460LL,
        "sacct extreme epochs: 4 lines skipped, the one before 2200 kept");
    if (t) {
        check_skips (t, skips, 1, "sacct extreme epochs");
        is_str (ns_trace_skips (t)->skip[NS_SKIP_BAD_TIME].first,
                "field 3 (Start): expected a time between 1970 and 2200, "
                "got '-9223372036854775807'",
                "sacct extreme epochs: message");
    }
    ns_trace_close (t);

    /* Elapsed of 10^9 days is a duration beyond 2200 too. */
    path = write_str ("elapsed.txt",
        "JobIDRaw|Submit|Elapsed|AllocCPUS\n"
        "1|1706702400|1000000000-00:00:00|1\n");
    t = ns_trace_open (path, NS_TRACE_AUTO, NS_TRACE_STRICT, &err);
    rc = t ? read_all (t, jobs, 8, &n, &err) : -2;
    ok (rc == -1 && strstr (err.text, ":2: run time 86400000000000 s: "
                            "expected at most 7258118400 s") != NULL,
        "sacct: an Elapsed of 10^9 days is a bad time");
    if (rc != -1)
        diag ("got %d: %s", rc, err.text);
    ns_trace_close (t);
}

/* Lines that never end: /dev/zero used to keep the reader forever. */
static void test_endless_lines (void)
{
    static const char good[] = "1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n";
    char chunk[65536], want[1200];
    ns_error_t err = { "" };
    ns_tjob_t job;
    ns_trace_t *t;

    alarm (60);     /* before the fix: killed here, not a hang */
    t = ns_trace_open ("/dev/zero", NS_TRACE_AUTO, 0, &err);
    ok (t == NULL && errno == EINVAL, "/dev/zero: open fails with EINVAL");
    is_str (err.text, "/dev/zero: line 1: not a text trace (binary data)",
            "/dev/zero: message");
    ns_trace_close (t);

    /* a good line, then 65 MiB of digits without a newline (gzip keeps
     * the file small) */
    const char *path = tmpfile_path ("endless.swf.gz");
    gzFile gz = gzopen (path, "wb1");
    memset (chunk, '7', sizeof (chunk));
    int bad = !gz || gzwrite (gz, good, sizeof (good) - 1) <= 0;
    for (int i = 0; !bad && i < 65 * 16; i++)
        bad = gzwrite (gz, chunk, sizeof (chunk)) != (int)sizeof (chunk);
    if (!gz || gzclose (gz) != Z_OK || bad) {
        diag ("cannot write %s", path);
        exit (1);
    }
    t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    ok (t && ns_trace_next (t, &job, &err) == 1,
        "endless line: the job before it is read");
    ok (t && ns_trace_next (t, &job, &err) == -1 && errno == EINVAL,
        "endless line: a hard error, not a skip");
    snprintf (want, sizeof (want), "%s: line 2: longer than %d bytes: not a "
              "text trace", path, NS_TRACE_LINE_GIVE_UP);
    is_str (err.text, want, "endless line: message");
    ns_trace_close (t);
    alarm (0);
}

static void test_sacct_header (void)
{
    static const struct {
        const char *header;
        const char *lacks;
    } tab[] = {
        { "JobName|Submit|Elapsed|NCPUS", "JobID or JobIDRaw" },
        { "JobID|Start|End|NCPUS", "Submit" },
        { "JobID|Submit|Start|NCPUS",
          "a run time (ElapsedRaw, Elapsed, or Start and End)" },
        { "JobID|Submit|Elapsed|NNodes",
          "processors (AllocCPUS, NCPUS or ReqCPUS)" },
    };
    ns_error_t err = { "" };
    char msg[1200];
    const char *path;
    ns_trace_t *t;

    path = write_str ("hdr.txt", "7|alice|2024-01-31T12:00:00|8\n");
    t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    snprintf (msg, sizeof (msg), "%s: line 1: not a sacct header (no JobID, "
              "Submit, ... field): dumps made with --noheader cannot be read",
              path);
    ok (t == NULL, "sacct without a header fails");
    is_str (err.text, msg, "... and says why");

    for (size_t i = 0; i < sizeof (tab) / sizeof (tab[0]); i++) {
        char data[256];

        snprintf (data, sizeof (data), "\n%s\n1|2|3|4\n", tab[i].header);
        path = write_str ("hdr.txt", data);
        t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
        snprintf (msg, sizeof (msg), "%s: line 2: sacct header lacks %s",
                  path, tab[i].lacks);
        ok (t == NULL && errno == EINVAL, "sacct header without %s fails",
            tab[i].lacks);
        is_str (err.text, msg, "... with a message naming it");
        ns_trace_close (t);
    }
}

static void test_names (void)
{
    is_str (ns_trace_skip_name (NS_SKIP_TOO_FEW_FIELDS), "too-few-fields",
            "reason name too-few-fields");
    is_str (ns_trace_skip_name (NS_SKIP_JOB_STEP), "job-step",
            "reason name job-step");
    is_str (ns_trace_skip_name (NS_SKIP_NREASONS), "?",
            "reason out of range");
    is_str (ns_trace_format_name (NS_TRACE_SACCT), "sacct", "format name");
}

/*
 * Real archive logs: counts computed independently with
 *   zcat F | awk '/^;/{next} {r++} ($5>0||$8>0){j++; run+=$4} ...'
 */

struct real {
    const char *file;
    int64_t lines, records, jobs, max_nodes, max_procs;
    int64_t sum_run, sum_wait, sum_req_time, sum_procs;
    int64_t skipped_no_procs, first_skip_line;
};

static const struct real reals[] = {
    { "KTH-SP2-1996-2.1-cln.swf.gz", 28500, 28476, 28475, 100, 100,
      252634874, 435564852, 389064780, 218053, 1, 27323 },
    { "NASA-iPSC-1993-3.1-cln.swf.gz", 18271, 18239, 18239, 128, 128,
      13950781, -18239, -18239, 309953, 0, 0 },
    { "RICC-2010-2.swf.gz", 447814, 447794, 447794, 1024, 8192,
      5305148426LL, 7151502235LL, 60907409966LL, 7172150, 0, 0 },
};

static double now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_real (const struct real *r)
{
    char path[1024];
    struct stat st;
    const struct ns_trace_counts *c;
    const struct ns_trace_header *h;
    int64_t run = 0, wait = 0, req = 0, procs = 0, maxp = 0;
    ns_error_t err = { "" };
    ns_tjob_t job;
    ns_trace_t *t;
    double t0, dt;
    int rc;

    snprintf (path, sizeof (path), "%s/../shared/traces/%s", srcdir (),
              r->file);
    if (stat (path, &st) < 0) {
        ok (1, "# SKIP %s not present", r->file);
        return;
    }
    t0 = now ();
    t = ns_trace_open (path, NS_TRACE_AUTO, 0, &err);
    if (!ok (t != NULL, "%s: opens", r->file)) {
        diag ("%s", err.text);
        return;
    }
    while ((rc = ns_trace_next (t, &job, &err)) == 1) {
        run += job.run;
        wait += job.wait;
        req += job.req_time;
        procs += job.procs;
        if (job.procs > maxp)
            maxp = job.procs;
    }
    dt = now () - t0;
    c = ns_trace_skips (t);
    h = ns_trace_header (t);
    diag ("%s: %llu lines, %llu records, %llu jobs, %llu skipped, "
          "MaxNodes %lld MaxProcs %lld, widest job %lld, %.3f s",
          r->file, (unsigned long long)c->lines,
          (unsigned long long)c->records, (unsigned long long)c->jobs,
          (unsigned long long)c->skipped, (long long)h->max_nodes,
          (long long)h->max_procs, (long long)maxp, dt);
    is_int (rc, 0, "%s: reads to the end", r->file);
    is_int ((long long)c->lines, r->lines, "%s: %lld lines", r->file,
            (long long)r->lines);
    is_int ((long long)c->records, r->records, "%s: %lld job lines",
            r->file, (long long)r->records);
    is_int ((long long)c->jobs, r->jobs, "%s: %lld usable jobs", r->file,
            (long long)r->jobs);
    is_int ((long long)(c->jobs + c->skipped), (long long)c->records,
            "%s: usable + skipped = job lines", r->file);
    is_int ((long long)c->skip[NS_SKIP_NO_PROCESSORS].count,
            r->skipped_no_procs, "%s: no-processors skips", r->file);
    is_int (c->skip[NS_SKIP_NO_PROCESSORS].lines[0], r->first_skip_line,
            "%s: first no-processors line", r->file);
    is_int ((long long)c->unsorted, 0, "%s: sorted by submit time", r->file);
    is_int (h->max_nodes, r->max_nodes, "%s: MaxNodes %lld", r->file,
            (long long)r->max_nodes);
    is_int (h->max_procs, r->max_procs, "%s: MaxProcs %lld", r->file,
            (long long)r->max_procs);
    is_int (run, r->sum_run, "%s: sum of run times", r->file);
    is_int (wait, r->sum_wait, "%s: sum of wait times", r->file);
    is_int (req, r->sum_req_time, "%s: sum of requested times", r->file);
    is_int (procs, r->sum_procs, "%s: sum of processors", r->file);
    ns_trace_close (t);
}

static void make_tmpdir (void)
{
    const char *base = getenv ("TMPDIR");
    snprintf (tmpdir, sizeof (tmpdir), "%s/nstrace.XXXXXX",
              base && *base ? base : "/tmp");
    if (!mkdtemp (tmpdir)) {
        diag ("mkdtemp: %s", strerror (errno));
        exit (1);
    }
}

static void remove_tmpdir (void)
{
    static const char *files[] = {
        "crlf.swf", "small.swf.gz", "crlf.swf.gz", "headerless.swf",
        "one.swf", "empty.swf", "blank.swf", "header.swf", "elf.swf",
        "elf.swf.gz", "noise.bin", "text.txt", "many.swf.gz", "cut.swf.gz",
        "cut20.swf.gz", "bad.swf.gz", "long.swf", "nul.swf", "nonl.swf",
        "raw.txt", "hdr.txt", "extreme.txt", "elapsed.txt",
        "endless.swf.gz", "numbers.swf", "cancelled.txt",
    };
    for (size_t i = 0; i < sizeof (files) / sizeof (files[0]); i++)
        unlink (tmpfile_path (files[i]));
    if (rmdir (tmpdir) < 0)
        diag ("rmdir %s: %s", tmpdir, strerror (errno));
}

/* A real dump from the test cluster (slurmdbd): NodeList passes through. */
static void test_sacct_cluster (void)
{
    const char *path = fixture ("sacct-cluster-parity.txt");
    ns_error_t err = { "" };
    ns_tjob_t jobs[40];
    int n = 0;
    ns_trace_t *t = ns_trace_open (path, NS_TRACE_AUTO, NS_TRACE_STRICT, &err);
    if (!ok (t != NULL, "sacct-cluster: opens")) {
        diag ("%s", err.text);
        return;
    }
    is_int (read_all (t, jobs, 40, &n, &err), 0, "sacct-cluster: reads to the end");
    is_int (n, 32, "sacct-cluster: 32 jobs");
    is_str (jobs[0].nodelist, "ns[1-2]", "sacct-cluster: NodeList of job 5");
    is_str (jobs[0].program, "lmp_serial", "sacct-cluster: JobName of job 5");
    is_int (jobs[0].procs, 24, "sacct-cluster: AllocCPUS of job 5");
    is_int (jobs[0].nodes, 2, "sacct-cluster: NNodes of job 5");
    is_int (jobs[0].run, 44, "sacct-cluster: End - Start of job 5");
    is_int (jobs[2].wait, 38, "sacct-cluster: the waiting twin, job 7, waited 38 s");
    is_int (jobs[0].req_time, 60, "sacct-cluster: Timelimit 00:01:00");
    ns_trace_close (t);
}

int main (void)
{
    plan_no_plan ();
    make_tmpdir ();

    test_names ();
    test_swf_small ();
    test_swf_bad ();
    test_swf_messages ();
    test_odd_lines ();
    test_swf_numbers ();
    test_open_errors ();
    test_sacct_small ();
    test_sacct_cluster ();
    test_sacct_raw ();
    test_sacct_cancelled_pending ();
    test_sacct_header ();
    test_sacct_extreme ();
    test_endless_lines ();
    for (size_t i = 0; i < sizeof (reals) / sizeof (reals[0]); i++)
        test_real (&reals[i]);

    remove_tmpdir ();
    return done_testing ();
}
