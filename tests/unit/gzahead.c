/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gzahead.t - a compressed file inflated ahead in a thread (sim/gzahead.c):
 * the same bytes as gzread () in any read sizes, the end where the data
 * ends (also on a chunk boundary), a truncated and a corrupt file failing
 * as gzread () fails, files that are not read ahead, an early stop. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "gzahead.h"
#include "tap.h"

static char dir[] = "/tmp/gzahead.t.XXXXXX";

static const char *in_dir (const char *name)
{
    static char path[4][128];
    static int k;
    k = (k + 1) % 4;
    snprintf (path[k], sizeof (path[k]), "%s/%s", dir, name);
    return path[k];
}

/* len bytes of text that compresses (numbers, as a trace's lines). */
static char *text (size_t len)
{
    char *s = malloc (len + 1);
    unsigned x = 12345;
    for (size_t i = 0; s && i < len; i++) {
        x = x * 1103515245u + 12345u;
        s[i] = (i % 61 == 60) ? '\n' : (char)('0' + (x >> 16) % 10);
    }
    return s;
}

static void put_gz (const char *name, const char *s, size_t len)
{
    gzFile g = gzopen (in_dir (name), "wb");
    if (g) {
        size_t off = 0;
        while (off < len) {
            unsigned n = len - off > 65536 ? 65536 : (unsigned)(len - off);
            gzwrite (g, s + off, n);
            off += n;
        }
        gzclose (g);
    }
}

/* Read name through the thread in reads of step bytes (cycling through
 * steps), into out (cap bytes): the bytes read; *last the final answer,
 * *zerr gzerror ()'s then. */
static long read_all (const char *name, const unsigned *steps, int nsteps,
                      char *out, size_t cap, int *last, int *zerr,
                      int *ahead)
{
    const char *path = in_dir (name);
    gzFile g = gzopen (path, "rb");
    if (!g)
        return -2;
    ns_gzahead_t *a = ns_gzahead_start (g, path);
    *ahead = a != NULL;
    long got = 0;
    int n, k = 0;
    for (;;) {
        unsigned want = steps[k++ % nsteps];
        if ((size_t)got + want > cap)
            want = (unsigned)(cap - (size_t)got);
        n = a ? ns_gzahead_read (a, out + got, want)
              : gzread (g, out + got, want);
        if (n <= 0)
            break;
        got += n;
    }
    *last = n;
    /* asked twice: the end stays the end */
    char c;
    if (a && ns_gzahead_read (a, &c, 1) != n)
        *last = 99;
    gzerror (g, zerr);
    ns_gzahead_stop (a);
    gzclose (g);
    return got;
}

static void same_bytes (void)
{
    /* more than the ring holds, not a whole number of chunks */
    size_t len = (NS_GZAHEAD_SLOTS + 2) * (size_t)NS_GZAHEAD_CHUNK + 3;
    char *s = text (len), *out = malloc (len + 16);
    put_gz ("big.gz", s, len);
    static const unsigned sizes[][3] = {
        { 1, 7, 4096 }, { 262144, 262144, 262144 }, { 131072, 1, 131071 },
        { 300000, 17, 65536 },
    };
    for (int i = 0; i < 4; i++) {
        int last = -5, zerr = -5, ahead = 0;
        memset (out, 0, len + 16);
        long got = read_all ("big.gz", sizes[i], 3, out, len + 16, &last,
                             &zerr, &ahead);
        ok (ahead, "reads %u, %u, %u: read ahead", sizes[i][0], sizes[i][1],
            sizes[i][2]);
        is_int ((int)got, (int)len, "reads %u, %u, %u: every byte",
                sizes[i][0], sizes[i][1], sizes[i][2]);
        ok (got == (long)len && memcmp (out, s, len) == 0,
            "reads %u, %u, %u: the same bytes in order", sizes[i][0],
            sizes[i][1], sizes[i][2]);
        ok (last == 0 && zerr == Z_OK, "reads %u, %u, %u: a clean end "
            "(%d, zlib %d)", sizes[i][0], sizes[i][1], sizes[i][2], last,
            zerr);
    }
    /* data ending on a chunk's boundary (as many chunks as the ring
     * holds, one more, one), next to one, and none */
    const size_t ck = NS_GZAHEAD_CHUNK;
    size_t edges[] = { NS_GZAHEAD_SLOTS * ck, (NS_GZAHEAD_SLOTS + 1) * ck,
                       ck, ck - 1, ck + 1, 0 };
    for (int i = 0; i < 6; i++) {
        int last = -5, zerr = -5, ahead = 0;
        unsigned step[] = { 65536 };
        put_gz ("edge.gz", s, edges[i]);
        long got = read_all ("edge.gz", step, 1, out, len, &last, &zerr,
                             &ahead);
        ok (ahead && got == (long)edges[i]
            && memcmp (out, s, edges[i]) == 0 && last == 0 && zerr == Z_OK,
            "%zu bytes: all of them, then the end (%ld, %d, zlib %d)",
            edges[i], got, last, zerr);
    }
    free (s);
    free (out);
}

static void failures (void)
{
    size_t len = 600000;
    char *s = text (len), *out = malloc (len);
    put_gz ("whole.gz", s, len);
    FILE *f = fopen (in_dir ("whole.gz"), "rb");
    char *z = malloc (len);
    size_t zlen = f ? fread (z, 1, len, f) : 0;
    if (f)
        fclose (f);
    unsigned step[] = { 65536 };

    /* truncated: the bytes before the cut, then zlib's Z_BUF_ERROR, as
     * gzread () alone gives them */
    f = fopen (in_dir ("cut.gz"), "wb");
    if (f) {
        fwrite (z, 1, zlen / 2, f);
        fclose (f);
    }
    int last = -5, zerr = -5, ahead = 0;
    long got = read_all ("cut.gz", step, 1, out, len, &last, &zerr, &ahead);
    ok (ahead && got > 0 && got < (long)len && memcmp (out, s, got) == 0,
        "truncated: a prefix of the data (%ld bytes)", got);
    ok (last == 0 && zerr == Z_BUF_ERROR,
        "truncated: the end, zlib says Z_BUF_ERROR (%d, %d)", last, zerr);
    gzFile g = gzopen (in_dir ("cut.gz"), "rb");
    long direct = 0;
    int n;
    while (g && (n = gzread (g, out, 65536)) > 0)
        direct += n;
    if (g)
        gzclose (g);
    is_int ((int)got, (int)direct, "truncated: as many bytes as gzread ()");

    /* corrupt in the middle: -1, zlib's Z_DATA_ERROR */
    for (size_t i = zlen / 2; i < zlen / 2 + 64 && i < zlen; i++)
        z[i] ^= 0x5a;
    f = fopen (in_dir ("bad.gz"), "wb");
    if (f) {
        fwrite (z, 1, zlen, f);
        fclose (f);
    }
    got = read_all ("bad.gz", step, 1, out, len, &last, &zerr, &ahead);
    /* (what inflates before zlib sees the damage may differ from the
     * data: gzread () gives it as it is) */
    ok (ahead && got >= 0 && got < (long)len,
        "corrupt: less than the data (%ld bytes)", got);
    ok (last == -1 && zerr == Z_DATA_ERROR,
        "corrupt: -1, zlib says Z_DATA_ERROR (%d, %d)", last, zerr);
    free (z);
    free (s);
    free (out);
}

static void not_ahead (void)
{
    FILE *f = fopen (in_dir ("plain"), "w");
    if (f) {
        fputs ("1 2 3\n", f);
        fclose (f);
    }
    gzFile g = gzopen (in_dir ("plain"), "rb");
    ok (g && !ns_gzahead_start (g, in_dir ("plain")),
        "a plain file is not read ahead");
    char buf[16];
    ok (g && gzread (g, buf, sizeof (buf)) == 6,
        "a plain file: still read directly");
    if (g)
        gzclose (g);
    put_gz ("small.gz", "4 5 6\n", 6);
    g = gzopen (in_dir ("small.gz"), "rb");
    ok (g && !ns_gzahead_start (g, NULL), "no path: not read ahead");
    ok (g && !ns_gzahead_start (g, dir), "a directory: not read ahead");
    ok (!ns_gzahead_start (NULL, in_dir ("small.gz")), "no file: NULL");
    if (g)
        gzclose (g);
    ns_gzahead_stop (NULL);     /* does nothing: a crash would show */
}

static void early_stop (void)
{
    size_t len = 2000000;
    char *s = text (len);
    put_gz ("stop.gz", s, len);
    for (int k = 0; k < 20; k++) {
        gzFile g = gzopen (in_dir ("stop.gz"), "rb");
        ns_gzahead_t *a = g ? ns_gzahead_start (g, in_dir ("stop.gz"))
                            : NULL;
        char buf[10];
        int n = a ? ns_gzahead_read (a, buf, k % 2 ? sizeof (buf) : 0) : -1;
        ns_gzahead_stop (a);
        /* gz is the caller's again, where the thread left it */
        int more = g ? gzread (g, buf, sizeof (buf)) : -1;
        if (g)
            gzclose (g);
        if (!a || n != (k % 2 ? 10 : 0) || more != 10) {
            ok (0, "stop after %d bytes: %d, then %d", k % 2 ? 10 : 0, n,
                more);
            free (s);
            return;
        }
    }
    ok (1, "stopped 20 times ahead of the reader: gz usable after");
    free (s);
}

int main (void)
{
    plan_no_plan ();
    if (!mkdtemp (dir)) {
        ok (0, "mkdtemp: %s", strerror (errno));
        return done_testing ();
    }
    same_bytes ();
    failures ();
    not_ahead ();
    early_stop ();
    const char *names[] = { "big.gz", "edge.gz", "whole.gz", "cut.gz",
                            "bad.gz", "plain", "small.gz", "stop.gz" };
    for (size_t i = 0; i < sizeof (names) / sizeof (*names); i++)
        unlink (in_dir (names[i]));
    rmdir (dir);
    return done_testing ();
}
