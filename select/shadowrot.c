/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shadowrot.c - rotation of the shadow records file (see shadowrot.h) */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "shadowrot.h"

#define COMMENT_TAG "nodeshare-shadow"
#define NAME_MAX_LEN (PATH_MAX + 16)

/* Records, first and last time of a stream of lines, fed in pieces.  A
 * record's time is the "time" key among its first bytes (the plugin
 * writes it first). */
struct scan {
    int64_t records, first, last;
    char head[48];
    size_t hlen;
    int in_line;
};

static void scan_init (struct scan *s)
{
    memset (s, 0, sizeof (*s));
    s->first = s->last = -1;
}

static void scan_end_line (struct scan *s)
{
    s->head[s->hlen] = '\0';
    const char *t = strstr (s->head, "\"time\":");
    int record = s->in_line && !strstr (s->head, "\"dropped\":");
    if (record)
        s->records++;
    if (record && t) {
        char *end;
        long long v = strtoll (t + 7, &end, 10);
        if (end != t + 7 && v >= 0) {
            if (s->first < 0)
                s->first = v;
            s->last = v;
        }
    }
    s->hlen = 0;
    s->in_line = 0;
}

static void scan_feed (struct scan *s, const char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == '\n') {
            scan_end_line (s);
            continue;
        }
        if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\r')
            s->in_line = 1;
        if (s->hlen < sizeof (s->head) - 1)
            s->head[s->hlen++] = buf[i];
    }
}

/* The summary in a gzip header comment; 1 found, 0 not there, -1 error. */
static int summary_from_header (const char *path, int64_t *records,
                                int64_t *first, int64_t *last)
{
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    unsigned char in[4096], out[64];
    ssize_t n = read (fd, in, sizeof (in));
    close (fd);
    if (n < 10 || in[0] != 0x1f || in[1] != 0x8b)
        return 0;
    char comment[160] = "";
    gz_header h;
    memset (&h, 0, sizeof (h));
    h.comment = (Bytef *)comment;
    h.comm_max = sizeof (comment) - 1;
    z_stream z;
    memset (&z, 0, sizeof (z));
    if (inflateInit2 (&z, 15 + 16) != Z_OK)
        return -1;
    inflateGetHeader (&z, &h);
    z.next_in = in;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = sizeof (out);
    /* Z_BLOCK: stop at the end of the header at the latest */
    while (!h.done && z.avail_in && z.avail_out)
        if (inflate (&z, Z_BLOCK) != Z_OK)
            break;
    inflateEnd (&z);
    long long r, a, b;
    if (h.done != 1
        || sscanf (comment, COMMENT_TAG " records=%lld first=%lld last=%lld",
                   &r, &a, &b) != 3)
        return 0;
    *records = r;
    *first = a;
    *last = b;
    return 1;
}

int ns_shadowrot_summary (const char *path, int64_t *records,
                          int64_t *first, int64_t *last)
{
    int rc = summary_from_header (path, records, first, last);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    gzFile g = gzopen (path, "rb");
    if (!g)
        return -1;
    struct scan s;
    scan_init (&s);
    char buf[65536];
    int n;
    while ((n = gzread (g, buf, sizeof (buf))) > 0)
        scan_feed (&s, buf, (size_t)n);
    if (s.hlen || s.in_line)
        scan_end_line (&s);
    int gerr;
    gzerror (g, &gerr);
    gzclose (g);
    if (n < 0 || (gerr != Z_OK && gerr != Z_BUF_ERROR)) {
        errno = EIO;
        return -1;
    }
    *records = s.records;
    *first = s.first;
    *last = s.last;
    return 0;
}

/* src into dst (gzip, level 1) with the summary as the header comment;
 * dst is written under dst.tmp and renamed.  0, or -1 with err. */
static int compress_file (const char *src, const char *dst,
                          ns_error_t *err)
{
    char tmp[NAME_MAX_LEN + 8];
    snprintf (tmp, sizeof (tmp), "%s.tmp", dst);
    int in = -1, out = -1, zinit = 0, rc = -1;
    z_stream z;
    memset (&z, 0, sizeof (z));
    struct scan s;
    scan_init (&s);
    /* static: one compression at a time (the plugin starts the next
     * rotation only once the last compression has ended) */
    static char ibuf[1 << 16], obuf[1 << 16];
    in = open (src, O_RDONLY | O_CLOEXEC);
    if (in < 0) {
        ns_error_set (err, errno, "%s: %s", src, strerror (errno));
        goto out;
    }
    /* the summary goes into the header, written before the data: one
     * pass to count (from the page cache: the file was just written) */
    ssize_t n;
    while ((n = read (in, ibuf, sizeof (ibuf))) > 0)
        scan_feed (&s, ibuf, (size_t)n);
    if (s.hlen || s.in_line)
        scan_end_line (&s);
    if (n < 0 || lseek (in, 0, SEEK_SET) < 0) {
        ns_error_set (err, errno, "%s: %s", src, strerror (errno));
        goto out;
    }
    out = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out < 0) {
        ns_error_set (err, errno, "%s: %s", tmp, strerror (errno));
        goto out;
    }
    if (deflateInit2 (&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY)
        != Z_OK) {
        ns_error_set (err, ENOMEM, "%s: zlib: out of memory", tmp);
        goto out;
    }
    zinit = 1;
    char comment[160];
    snprintf (comment, sizeof (comment), COMMENT_TAG " records=%" PRId64
              " first=%" PRId64 " last=%" PRId64, s.records, s.first, s.last);
    gz_header h;
    memset (&h, 0, sizeof (h));
    h.comment = (Bytef *)comment;
    h.os = 3;
    deflateSetHeader (&z, &h);
    int flush;
    do {
        n = read (in, ibuf, sizeof (ibuf));
        if (n < 0) {
            ns_error_set (err, errno, "%s: %s", src, strerror (errno));
            goto out;
        }
        flush = n == 0 ? Z_FINISH : Z_NO_FLUSH;
        z.next_in = (Bytef *)ibuf;
        z.avail_in = (uInt)n;
        do {
            z.next_out = (Bytef *)obuf;
            z.avail_out = sizeof (obuf);
            if (deflate (&z, flush) == Z_STREAM_ERROR) {
                ns_error_set (err, EIO, "%s: zlib: stream error", tmp);
                goto out;
            }
            size_t have = sizeof (obuf) - z.avail_out;
            if (have && write (out, obuf, have) != (ssize_t)have) {
                ns_error_set (err, errno ? errno : ENOSPC, "%s: %s", tmp,
                              strerror (errno ? errno : ENOSPC));
                goto out;
            }
        } while (z.avail_out == 0);
    } while (flush != Z_FINISH);
    if (close (out) < 0) {
        out = -1;
        ns_error_set (err, errno, "%s: %s", tmp, strerror (errno));
        goto out;
    }
    out = -1;
    if (rename (tmp, dst) < 0) {
        ns_error_set (err, errno, "%s: %s", dst, strerror (errno));
        goto out;
    }
    rc = 0;
out:
    if (zinit)
        deflateEnd (&z);
    if (in >= 0)
        close (in);
    if (out >= 0)
        close (out);
    if (rc < 0)
        unlink (tmp);
    return rc;
}

/* A step that failed without stopping the rotation (the last one kept). */
static void set_warn (ns_shadowrot_t *out, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
static void set_warn (ns_shadowrot_t *out, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (out->warn, sizeof (out->warn), fmt, ap);
    va_end (ap);
}

static const char *base_name (const char *p)
{
    const char *s = strrchr (p, '/');
    return s ? s + 1 : p;
}

/* FILE.N and FILE.N.gz: the caller's buffers. */
static void names (const char *path, int n, char *plain, char *gz)
{
    snprintf (plain, NAME_MAX_LEN, "%s.%d", path, n);
    snprintf (gz, NAME_MAX_LEN, "%s.%d.gz", path, n);
}

/* Drop FILE.keep(.gz), saying what it held in out. */
static void drop_last (const char *path, int keep, ns_shadowrot_t *out)
{
    char plain[NAME_MAX_LEN], gz[NAME_MAX_LEN];
    names (path, keep, plain, gz);
    const char *both[2] = { gz, plain };
    for (int i = 0; i < 2; i++) {
        struct stat st;
        if (stat (both[i], &st) < 0)
            continue;
        int64_t r = -1, a = -1, b = -1;
        if (ns_shadowrot_summary (both[i], &r, &a, &b) < 0)
            r = a = b = -1;
        if (!out->dropped[0]) {
            /* a longer name is cut to the field */
            snprintf (out->dropped, sizeof (out->dropped), "%.*s",
                      (int)sizeof (out->dropped) - 1, base_name (both[i]));
            out->records = r;
            out->first = a;
            out->last = b;
        } else {
            /* both names present (a crash between two steps): one
             * account */
            out->records = out->records < 0 || r < 0 ? -1
                                                     : out->records + r;
            if (a >= 0 && (out->first < 0 || a < out->first))
                out->first = a;
            if (b > out->last)
                out->last = b;
        }
        unlink (both[i]);
    }
}

int ns_shadowrot_move (const char *path, uint64_t max_bytes, int keep,
                       ns_shadowrot_t *out, ns_error_t *err)
{
    memset (out, 0, sizeof (*out));
    out->records = out->first = out->last = -1;
    struct stat st;
    if (keep < 1)
        keep = 1;
    if (stat (path, &st) < 0 || (uint64_t)st.st_size < max_bytes)
        return 0;
    drop_last (path, keep, out);
    char from[NAME_MAX_LEN], fromgz[NAME_MAX_LEN];
    char to[NAME_MAX_LEN], togz[NAME_MAX_LEN];
    for (int n = keep - 1; n >= 1; n--) {
        names (path, n, from, fromgz);
        names (path, n + 1, to, togz);
        /* absent files are the common case (the first rotations) */
        if (rename (fromgz, togz) < 0 && errno != ENOENT)
            set_warn (out, "%s: %s", fromgz, strerror (errno));
        if (rename (from, to) < 0 && errno != ENOENT)
            set_warn (out, "%s: %s", from, strerror (errno));
    }
    names (path, 1, to, togz);
    if (rename (path, to) < 0)
        return ns_error_set (err, errno, "%s: %s", path, strerror (errno));
    out->rotated = 1;
    return 0;
}

int ns_shadowrot_compress (const char *path, ns_error_t *err)
{
    char to[NAME_MAX_LEN], togz[NAME_MAX_LEN];
    names (path, 1, to, togz);
    if (compress_file (to, togz, err) < 0)
        return -1;
    unlink (to);
    return 0;
}

int ns_shadowrot_rotate (const char *path, uint64_t max_bytes, int keep,
                         ns_shadowrot_t *out, ns_error_t *err)
{
    if (ns_shadowrot_move (path, max_bytes, keep, out, err) < 0)
        return -1;
    if (!out->rotated)
        return 0;
    ns_error_t e;
    if (ns_shadowrot_compress (path, &e) < 0)
        set_warn (out, "not compressed: %s", e.text);
    else
        out->compressed = 1;
    return 0;
}

int ns_shadowrot_drop_line (const ns_shadowrot_t *out, int64_t now,
                            char *buf, size_t size)
{
    if (!out->dropped[0])
        return -1;
    /* a base name needing JSON escapes is refused, not written wrong */
    if (strpbrk (out->dropped, "\"\\"))
        return -1;
    int n = snprintf (buf, size, "{\"time\":%" PRId64 ",\"dropped\":\"%s\","
                      "\"records\":%" PRId64 ",\"first\":%" PRId64
                      ",\"last\":%" PRId64 "}", now, out->dropped,
                      out->records, out->first, out->last);
    return n > 0 && (size_t)n < size ? 0 : -1;
}
