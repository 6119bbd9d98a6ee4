/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shadowrot.t - rotation of the shadow records (select/shadowrot.c) and
 * reading them back as nodeshare-report does (sim/shadow.c): a week at
 * 10 decisions a second stays within the configured size, and every
 * record written is either still on disk or counted by a "dropped"
 * line. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "shadow.h"
#include "shadowrot.h"
#include "tap.h"

#define T0 1732480000LL
#define WEEK_RECORDS (7LL * 24 * 3600 * 10)

static char dir[256], path[300];

static uint64_t disk_bytes (int *nfiles, int *ngz)
{
    DIR *d = opendir (dir);
    struct dirent *e;
    uint64_t sum = 0;
    *nfiles = *ngz = 0;
    while (d && (e = readdir (d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[600];
        struct stat st;
        snprintf (p, sizeof (p), "%s/%s", dir, e->d_name);
        if (stat (p, &st) == 0) {
            sum += (uint64_t)st.st_size;
            (*nfiles)++;
            size_t l = strlen (e->d_name);
            *ngz += l > 3 && strcmp (e->d_name + l - 3, ".gz") == 0;
        }
    }
    if (d)
        closedir (d);
    return sum;
}

struct back {
    int64_t records, dropped_lines, dropped_records;
    int64_t last_time, out_of_order, last_dropped;
    int64_t oldest;
};

static int on_rec (const ns_shadow_rec_t *rec, int64_t line, void *arg,
                   ns_error_t *err)
{
    struct back *b = arg;
    (void)line;
    (void)err;
    if (rec->dropped[0]) {
        b->dropped_lines++;
        b->dropped_records += rec->dropped_records;
        if (rec->dropped_last > b->last_dropped)
            b->last_dropped = rec->dropped_last;
        return 0;
    }
    if (b->oldest < 0)
        b->oldest = rec->time;
    b->out_of_order += rec->time < b->last_time;
    b->last_time = rec->time;
    b->records++;
    return 0;
}

/* Append lines for records [from, to) at 10 a second, as the plugin
 * writes them (the "time" key first). */
static void append (int64_t from, int64_t to)
{
    static char buf[1 << 16];
    size_t len = 0;
    FILE *f = fopen (path, "a");
    for (int64_t i = from; i < to; i++) {
        len += (size_t)snprintf (buf + len, sizeof (buf) - len,
                                 "{\"time\":%lld,\"job\":%lld,"
                                 "\"differs\":false}\n",
                                 T0 + i / 10, (long long)i);
        if (len > sizeof (buf) - 128) {
            fwrite (buf, 1, len, f);
            len = 0;
        }
    }
    fwrite (buf, 1, len, f);
    fclose (f);
}

static void week (void)
{
    const uint64_t max = 256 * 1024;
    const int keep = 4, batch = 50;
    int64_t rotations = 0, drops = 0, drop_sum = 0, compressed = 0;
    int64_t prev_last = -1, gaps = 0, warns = 0;
    uint64_t peak = 0;
    struct timespec a, b;
    clock_gettime (CLOCK_MONOTONIC, &a);
    /* The plugin rotates before each record; here before each batch of
     * 50 (2.3 KB), which is what lets a week run in seconds. */
    for (int64_t i = 0; i < WEEK_RECORDS; i += batch) {
        ns_shadowrot_t rot;
        ns_error_t err;
        struct stat st;
        if (stat (path, &st) == 0 && (uint64_t)st.st_size >= max) {
            /* the most there is: a full live file and keep rotated */
            int nf, ngz;
            uint64_t d = disk_bytes (&nf, &ngz);
            if (d > peak)
                peak = d;
        }
        if (ns_shadowrot_rotate (path, max, keep, &rot, &err) < 0) {
            ok (0, "rotate: %s", err.text);
            return;
        }
        if (rot.rotated) {
            rotations++;
            compressed += rot.compressed;
            warns += rot.warn[0] != '\0';
        }
        if (rot.dropped[0]) {
            char line[512];
            drops++;
            drop_sum += rot.records;
            /* the dropped file's records follow those dropped before */
            gaps += rot.first < prev_last || rot.records <= 0;
            prev_last = rot.last;
            if (ns_shadowrot_drop_line (&rot, T0 + i / 10, line,
                                        sizeof (line)) == 0) {
                FILE *f = fopen (path, "a");
                fprintf (f, "%s\n", line);
                fclose (f);
            }
        }
        append (i, i + batch < WEEK_RECORDS ? i + batch : WEEK_RECORDS);
    }
    clock_gettime (CLOCK_MONOTONIC, &b);
    diag ("a week (%lld records) in %.2f s: %lld rotations, %lld files "
          "dropped, peak %llu bytes on disk",
          (long long)WEEK_RECORDS,
          (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9,
          (long long)rotations, (long long)drops, (unsigned long long)peak);
    ok (rotations > 100, "the week rotated the file %lld times",
        (long long)rotations);
    is_int (compressed, rotations, "every rotated file was compressed");
    is_int (warns, 0, "no rotation step failed");
    is_int (drops, rotations - keep, "every rotation past the first %d "
            "dropped one file", keep);
    ok (peak >= max && peak <= (uint64_t)(keep + 1) * max, "on disk at most (keep + 1) x "
        "max_bytes: %llu <= %llu", (unsigned long long)peak,
        (unsigned long long)(keep + 1) * max);
    is_int (gaps, 0, "the dropped files follow one another in time");
    int nf, ngz;
    disk_bytes (&nf, &ngz);
    is_int (nf, keep + 1, "the live file and %d rotated ones", keep);
    is_int (ngz, keep, "the rotated ones compressed");

    /* Read back as nodeshare-report does: siblings oldest first. */
    char **files;
    ns_error_t err;
    int n = ns_shadow_files (path, &files, &err);
    is_int (n, keep + 1, "ns_shadow_files lists the %d files", keep + 1);
    if (n < 1)
        return;
    ok (strstr (files[0], ".4.gz") != NULL, "oldest first: %s", files[0]);
    is_str (files[n - 1], path, "the live file last");
    struct back bk = { 0, 0, 0, -1, 0, -1, -1 };
    for (int k = 0; k < n; k++)
        if (ns_shadow_read (files[k], on_rec, &bk, &err) < 0)
            ok (0, "%s", err.text);
    ns_shadow_files_free (files, n);
    is_int (bk.out_of_order, 0, "records read back in time order");
    is_int (bk.records + drop_sum, WEEK_RECORDS, "records kept (%lld) + "
            "records dropped (%lld) = records written",
            (long long)bk.records, (long long)drop_sum);
    /* the dropped lines still on disk name the most recent drops */
    ok (bk.dropped_lines >= 1 && bk.dropped_lines <= keep + 1,
        "%lld dropped lines read back", (long long)bk.dropped_lines);
    is_int (bk.last_dropped, prev_last, "the newest dropped line names the "
            "last drop's last record");
    ok (bk.oldest >= prev_last && bk.oldest <= prev_last + 1,
        "the oldest record kept (%lld) follows the last dropped (%lld)",
        (long long)bk.oldest, (long long)prev_last);
    is_int (bk.last_time, T0 + (WEEK_RECORDS - 1) / 10, "the last record "
            "is the week's last");
}

/* One rotation by hand: names, the summary in the gzip comment, the
 * drop line, an uncompressed leftover. */
static void small (void)
{
    ns_shadowrot_t rot;
    ns_error_t err;
    unlink (path);
    append (0, 30);
    is_int (ns_shadowrot_rotate (path, 1 << 20, 2, &rot, &err), 0,
            "below max_bytes: nothing to do");
    is_int (rot.rotated, 0, "not rotated");
    is_int (ns_shadowrot_rotate (path, 64, 2, &rot, &err), 0, "rotated");
    ok (rot.rotated && rot.compressed && !rot.dropped[0],
        "rotated, compressed, nothing dropped");
    char p[400];
    snprintf (p, sizeof (p), "%s.1.gz", path);
    int64_t r, f, l;
    is_int (ns_shadowrot_summary (p, &r, &f, &l), 0, "summary of .1.gz");
    ok (r == 30 && f == T0 && l == T0 + 2, "from the gzip comment: %lld "
        "records %lld..%lld", (long long)r, (long long)f, (long long)l);
    /* an uncompressed rotated file (compression failed) moves on too */
    append (30, 40);
    snprintf (p, sizeof (p), "%s.1.gz", path);
    char q[400];
    snprintf (q, sizeof (q), "%s.2", path);
    /* make .2 a plain file by hand, then rotate twice: it is dropped */
    FILE *x = fopen (q, "w");
    fprintf (x, "{\"time\":5,\"job\":1,\"differs\":true}\n"
                "{\"time\":7,\"job\":2,\"differs\":true}\n");
    fclose (x);
    ns_shadowrot_rotate (path, 64, 2, &rot, &err);
    is_str (rot.dropped, strrchr (q, '/') + 1, "keep 2: .2 dropped");
    ok (rot.records == 2 && rot.first == 5 && rot.last == 7,
        "a plain file read to count it: %lld records %lld..%lld",
        (long long)rot.records, (long long)rot.first, (long long)rot.last);
    char line[512];
    is_int (ns_shadowrot_drop_line (&rot, 99, line, sizeof (line)), 0,
            "drop line");
    is_str (line, "{\"time\":99,\"dropped\":\"shadow.jsonl.2\",\"records\":2,"
            "\"first\":5,\"last\":7}", "the drop line's text");
    ns_shadow_rec_t rec;
    is_int (ns_shadow_parse (line, strlen (line), &rec, &err), 1,
            "the reader parses it");
    ok (strcmp (rec.dropped, "shadow.jsonl.2") == 0
        && rec.dropped_records == 2 && rec.dropped_last == 7,
        "as a dropped line");
    is_int (ns_shadowrot_drop_line (&rot, 99, line, 20), -1,
            "a buffer too small");
}

static void cleanup (void)
{
    DIR *d = opendir (dir);
    struct dirent *e;
    while (d && (e = readdir (d))) {
        char p[600];
        snprintf (p, sizeof (p), "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.')
            unlink (p);
    }
    if (d)
        closedir (d);
    rmdir (dir);
}

/* The plugin's two steps: the move leaves .1 plain, the compression
 * (in a thread of the plugin's own) turns it into .1.gz. */
static void two_steps (void)
{
    ns_shadowrot_t rot;
    ns_error_t err;
    char p1[400], p1gz[400];
    snprintf (p1, sizeof (p1), "%s.1", path);
    snprintf (p1gz, sizeof (p1gz), "%s.1.gz", path);
    unlink (path);
    unlink (p1);
    unlink (p1gz);
    append (0, 20);
    is_int (ns_shadowrot_move (path, 64, 3, &rot, &err), 0, "moved");
    ok (rot.rotated && !rot.compressed && access (p1, F_OK) == 0
        && access (p1gz, F_OK) != 0 && access (path, F_OK) != 0,
        "the move: FILE.1 plain, no FILE.1.gz, no FILE");
    is_int (ns_shadowrot_compress (path, &err), 0, "compressed");
    int64_t r, f, l;
    ok (access (p1, F_OK) != 0 && ns_shadowrot_summary (p1gz, &r, &f, &l) == 0
        && r == 20 && f == T0 && l == T0 + 1,
        "FILE.1 gone, FILE.1.gz holds its 20 records");
    is_int (ns_shadowrot_compress (path, &err), -1,
            "compressing again: no FILE.1, an error");
}

static int count_rec (const ns_shadow_rec_t *rec, int64_t line, void *arg,
                      ns_error_t *err)
{
    (void)rec;
    (void)line;
    (void)err;
    ++*(int *)arg;
    return 0;
}

/* A line's verdict is the same in a file (with its newline) and alone
 * (without): json-c skips a comment after the object only where a
 * newline ends it. */
static void line_ends (void)
{
    static const struct {
        const char *text;
        int want;
    } lines[] = {
        { "{\"job\":1,\"differs\":true}//////", -1 },
        { "{\"job\":1,\"differs\":true}/* a comment */", 1 },
        { "{\"job\":1,\"differs\":true} \r", 1 },
        { "{\"job\":1,\"differs\":true} x", -1 },
    };
    for (size_t i = 0; i < sizeof (lines) / sizeof (lines[0]); i++) {
        const char *l = lines[i].text;
        ns_shadow_rec_t rec;
        ns_error_t err;
        is_int (ns_shadow_parse (l, strlen (l), &rec, &err), lines[i].want,
                "alone: %s", l);
        FILE *f = fopen (path, "w");
        fprintf (f, "%s\n", l);
        fclose (f);
        int n = 0;
        int rc = ns_shadow_read (path, count_rec, &n, &err);
        ok (lines[i].want < 0 ? rc < 0 && strstr (err.text, ":1: ") != NULL
                              : rc == 0 && n == 1,
            "in a file, the same: %s (%d, %d records)", l, rc, n);
    }
}

int main (void)
{
    plan_no_plan ();
    const char *t = getenv ("TMPDIR");
    void (*parts[4]) (void) = { small, two_steps, week, line_ends };
    for (int i = 0; i < 4; i++) {
        snprintf (dir, sizeof (dir), "%s/shadowrot.XXXXXX",
                  t && *t ? t : "/tmp");
        if (!mkdtemp (dir)) {
            ok (0, "mkdtemp %s", dir);
            break;
        }
        snprintf (path, sizeof (path), "%s/shadow.jsonl", dir);
        parts[i] ();
        cleanup ();
    }
    return done_testing ();
}
