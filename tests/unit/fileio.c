/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fileio.t - whole files in and out (sim/fileio.c): the bound of
 * ns_read_file at its edge, a planted symbolic link refused, a
 * write-protected file or an input of the run kept, an atomic
 * replacement that leaves no temporary file, a JSON file read with the
 * place of its error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json.h>

#include "fileio.h"
#include "tap.h"

static char dir[] = "/tmp/fileio.t.XXXXXX";

static const char *in_dir (const char *name)
{
    static char path[4][128];
    static int k;
    k = (k + 1) % 4;
    snprintf (path[k], sizeof (path[k]), "%s/%s", dir, name);
    return path[k];
}

static void put (const char *name, const char *text, size_t len)
{
    FILE *f = fopen (in_dir (name), "w");
    if (f) {
        fwrite (text, 1, len, f);
        fclose (f);
    }
}

static void read_bounds (void)
{
    ns_error_t err;
    size_t len = 99;
    put ("five", "abcde", 5);
    char *s = ns_read_file (in_dir ("five"), 5, &len, &err);
    ok (s && len == 5 && strcmp (s, "abcde") == 0,
        "ns_read_file: a file of exactly max bytes is read whole");
    free (s);
    errno = 0;
    s = ns_read_file (in_dir ("five"), 4, &len, &err);
    ok (!s && errno == EFBIG && strstr (err.text, "larger than 4 bytes"),
        "  one byte over max fails with EFBIG: %s", err.text);
    put ("empty", "", 0);
    s = ns_read_file (in_dir ("empty"), 10, &len, &err);
    ok (s && len == 0 && s[0] == '\0',
        "  an empty file is an empty string, not a failure");
    free (s);
    put ("nul", "a\0b", 3);
    s = ns_read_file (in_dir ("nul"), 10, &len, NULL);
    ok (s && len == 3 && s[2] == 'b',
        "  a NUL inside: the length counts past it (err may be NULL)");
    free (s);
    /* Larger than the first buffer (4096) and not a power of two. */
    size_t big = 10000;
    char *text = malloc (big);
    memset (text, 'x', big);
    text[big - 1] = 'y';
    put ("big", text, big);
    s = ns_read_file (in_dir ("big"), big, &len, &err);
    ok (s && len == big && s[big - 1] == 'y' && s[big] == '\0',
        "  10000 bytes with max 10000: whole, NUL-terminated");
    free (s);
    s = ns_read_file (in_dir ("big"), big - 1, &len, &err);
    ok (!s && errno == EFBIG, "  with max 9999: EFBIG");
    free (text);
    s = ns_read_file (in_dir ("none"), 10, &len, &err);
    ok (!s && errno == ENOENT && strstr (err.text, "none: cannot open"),
        "  a missing file: ENOENT, named: %s", err.text);
}

static void out (void)
{
    ns_error_t err;
    ok (ns_open_out ("-", &err) == stdout, "ns_open_out: '-' is stdout");
    FILE *f = ns_open_out (in_dir ("out"), &err);
    ok (f != NULL, "  a new file is created");
    if (f) {
        fputs ("hello\n", f);
        ok (ns_close_out (f, in_dir ("out"), &err) == 0, "  and closed");
    }
    size_t len;
    char *s = ns_read_file (in_dir ("out"), 100, &len, &err);
    is_str (s, "hello\n", "  with what was written");
    free (s);
    ok (symlink (in_dir ("target"), in_dir ("link")) == 0, "a planted link");
    errno = 0;
    f = ns_open_out (in_dir ("link"), &err);
    ok (!f && errno == ELOOP
        && strstr (err.text, "is a symbolic link: refusing to write"),
        "  is refused, not followed: %s", err.text);
    ok (access (in_dir ("target"), F_OK) != 0, "  its target not created");
}

static void kept (void)
{
    ns_error_t err;
    put ("long", "hello world\n", 12);
    FILE *f = ns_open_out (in_dir ("long"), &err);
    ok (f != NULL, "ns_open_out over a longer file");
    if (f) {
        fputs ("hi\n", f);
        ns_close_out (f, in_dir ("long"), &err);
    }
    char *s = ns_read_file (in_dir ("long"), 100, NULL, &err);
    is_str (s, "hi\n", "  truncated: only what was written");
    free (s);

    put ("ro", "trace\n", 6);
    ok (chmod (in_dir ("ro"), 0444) == 0, "a file of mode 0444");
    errno = 0;
    f = ns_open_out (in_dir ("ro"), &err);
    ok (!f && errno == EPERM
        && strstr (err.text, "write-protected (mode 0444): not overwritten"),
        "  ns_open_out refuses it, root or not: %s", err.text);
    s = ns_read_file (in_dir ("ro"), 100, NULL, &err);
    is_str (s, "trace\n", "  and it keeps its bytes");
    free (s);
    ok (ns_check_out ("--json", in_dir ("ro"), NULL, 0, &err) < 0
        && errno == EPERM && strstr (err.text, "--json ")
        && strstr (err.text, "write-protected"),
        "  ns_check_out says so before a run: %s", err.text);

    mode_t um = umask (0222);
    f = ns_open_out (in_dir ("made"), &err);
    umask (um);
    ok (f != NULL, "  a file it makes itself under umask 0222 (mode 0444) "
        "is written");
    if (f) {
        fputs ("ok\n", f);
        ok (ns_close_out (f, in_dir ("made"), &err) == 0, "  and closed");
    }
    chmod (in_dir ("made"), 0644);

    put ("in", "jobs\n", 5);
    ok (link (in_dir ("in"), in_dir ("in2")) == 0, "an input and a hard "
        "link to it");
    const char *ins[] = { NULL, "-", in_dir ("in") };
    errno = 0;
    ok (ns_check_out ("--csv", in_dir ("in2"), ins, 3, &err) < 0
        && errno == EEXIST && strstr (err.text, "an input of this run"),
        "  the link, as an output, is the input: %s", err.text);
    ok (ns_check_out ("--csv", in_dir ("in"), ins, 3, &err) < 0,
        "  so is the input's own name");
    ok (ns_check_out ("--csv", in_dir ("long"), ins, 3, &err) == 0,
        "  another writable file may be overwritten");
    ok (ns_check_out ("--csv", in_dir ("new"), ins, 3, &err) == 0,
        "  a file not there yet may be made");
    ok (ns_check_out ("--csv", "-", ins, 3, &err) == 0
        && ns_check_out ("--csv", NULL, ins, 3, &err) == 0,
        "  '-' and no file pass");
    chmod (in_dir ("ro"), 0644);
}

static void atomic (void)
{
    ns_error_t err;
    put ("a", "old", 3);
    ok (ns_write_atomic (in_dir ("a"), "new text", 8, &err) == 0,
        "ns_write_atomic over an existing file");
    char *s = ns_read_file (in_dir ("a"), 100, NULL, &err);
    is_str (s, "new text", "  it holds the new text");
    free (s);
    ok (access (in_dir ("a.tmp"), F_OK) != 0, "  no a.tmp is left");
    errno = 0;
    ok (ns_write_atomic (in_dir ("no/such/dir"), "x", 1, &err) < 0
        && errno == ENOENT, "  into a missing directory: ENOENT: %s",
        err.text);
}

static void json_file (void)
{
    ns_error_t err;
    json_object *o = NULL;
    put ("j", "{ \"a\": [ 1, 2 ] }\n", 17);
    ok (ns_json_read_file (in_dir ("j"), 100, &o, &err) == 0
        && json_object_is_type (o, json_type_object)
        && json_object_array_length (json_object_object_get (o, "a")) == 2,
        "ns_json_read_file: an object");
    json_object_put (o);
    put ("j", "{ \"a\": 1,\n  \"b\": [", 18);
    o = (json_object *)1;
    ok (ns_json_read_file (in_dir ("j"), 100, &o, &err) < 0 && o == NULL
        && strstr (err.text, "/j:2:9: unexpected end of data")
        && !strchr (err.text, '\n'),
        "  cut short: FILE:LINE:COL, one line: %s", err.text);
    put ("j", "[ 1, 2, 3 ]", 11);
    ok (ns_json_read_file (in_dir ("j"), 10, &o, &err) < 0 && errno == EFBIG,
        "  larger than max: EFBIG: %s", err.text);
    ok (ns_json_read_file (in_dir ("none"), 10, &o, &err) < 0
        && errno == ENOENT, "  missing: ENOENT: %s", err.text);
}

int main (void)
{
    plan_no_plan ();
    if (!mkdtemp (dir)) {
        ok (0, "mkdtemp");
        return done_testing ();
    }
    read_bounds ();
    out ();
    kept ();
    atomic ();
    json_file ();
    const char *names[] = { "j", "five", "empty", "nul", "big", "out", "link",
                            "a", "long", "ro", "made", "in", "in2" };
    for (size_t i = 0; i < sizeof (names) / sizeof (names[0]); i++)
        unlink (in_dir (names[i]));
    rmdir (dir);
    return done_testing ();
}
