/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fileio.c - whole files in and out (sim/fileio.h). */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "jsonread.h"

/* A file no one may write (mode a-w), such as a shared trace, is kept
 * even when root could write it. */
static int write_protected (const struct stat *st, const char *path,
                            ns_error_t *err)
{
    if (!S_ISREG (st->st_mode) || (st->st_mode & 0222))
        return 0;
    ns_error_set (err, EPERM, "%s: write-protected (mode %04o): not "
                  "overwritten", path, (unsigned)(st->st_mode & 07777));
    errno = EPERM;
    return -1;
}

FILE *ns_open_out (const char *path, ns_error_t *err)
{
    if (!path) {
        ns_error_set (err, EINVAL, "no file name");
        return NULL;
    }
    if (strcmp (path, "-") == 0)
        return stdout;
    /* O_NOFOLLOW: a link planted in a shared directory such as /tmp is
     * not written through.  A file already there is truncated only once
     * it is known to be one that may be overwritten; one made here (mode
     * 0666 less the umask) is not checked. */
    int fd = -1, made = 0;
    for (int tries = 0; fd < 0 && tries < 2; tries++) {
        fd = open (path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT) {
            fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW
                             | O_CLOEXEC, 0666);
            made = fd >= 0;
            if (fd < 0 && errno == EEXIST)
                continue;   /* made by another meanwhile: open it */
        }
        break;
    }
    if (fd < 0) {
        int e = errno;
        ns_error_set (err, e, "%s: %s", path, e == ELOOP
                      ? "is a symbolic link: refusing to write through it"
                      : strerror (e));
        return NULL;
    }
    struct stat st;
    if (fstat (fd, &st) < 0) {
        int e = errno;
        close (fd);
        ns_error_set (err, e, "%s: %s", path, strerror (e));
        errno = e;
        return NULL;
    }
    if (!made && write_protected (&st, path, err) < 0) {
        close (fd);
        errno = EPERM;
        return NULL;
    }
    if (S_ISREG (st.st_mode) && st.st_size > 0 && ftruncate (fd, 0) < 0) {
        int e = errno;
        close (fd);
        ns_error_set (err, e, "%s: %s", path, strerror (e));
        errno = e;
        return NULL;
    }
    FILE *f = fdopen (fd, "w");
    if (!f) {
        int e = errno;
        close (fd);
        ns_error_set (err, e, "%s: %s", path, strerror (e));
    }
    return f;
}

int ns_check_out (const char *opt, const char *path,
                  const char *const *inputs, int ninputs, ns_error_t *err)
{
    struct stat st, in;
    if (!path || strcmp (path, "-") == 0 || stat (path, &st) < 0)
        return 0;
    for (int i = 0; i < ninputs; i++)
        if (inputs[i] && strcmp (inputs[i], "-") != 0
            && stat (inputs[i], &in) == 0 && in.st_dev == st.st_dev
            && in.st_ino == st.st_ino) {
            ns_error_set (err, EEXIST, "%s %s: is %s, an input of this run: "
                          "not overwritten", opt, path, inputs[i]);
            errno = EEXIST;
            return -1;
        }
    ns_error_t e;
    if (write_protected (&st, path, &e) < 0) {
        ns_error_set (err, EPERM, "%s %s", opt, e.text);
        errno = EPERM;
        return -1;
    }
    return 0;
}

int ns_close_out (FILE *f, const char *path, ns_error_t *err)
{
    if (!f)
        return ns_error_set (err, EINVAL, "%s: not open", path ? path : "?");
    if (f == stdout) {
        if (fflush (f) != 0)
            return ns_error_set (err, errno, "stdout: %s", strerror (errno));
        return 0;
    }
    /* Both: a write error seen earlier, and one that fclose's flush hits. */
    if (ferror (f) | fclose (f)) {
        int e = errno;
        return ns_error_set (err, e, "%s: write failed: %s",
                             path ? path : "?", strerror (e));
    }
    return 0;
}

char *ns_read_file (const char *path, size_t max, size_t *len,
                    ns_error_t *err)
{
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        ns_error_set (err, e, "%s: cannot open: %s", path, strerror (e));
        return NULL;
    }
    size_t cap = max < 4096 ? max + 2 : 4096, n = 0;
    char *buf = malloc (cap);
    if (!buf)
        goto nomem;
    for (;;) {
        if (n + 1 == cap) {
            /* One byte more than max is room enough to see it is too
             * long. */
            size_t more = cap > max / 2 ? max + 2 : cap * 2;
            if (more <= cap) {
                ns_error_set (err, EFBIG, "%s: larger than %zu bytes", path,
                              max);
                goto error;
            }
            char *b = realloc (buf, more);
            if (!b)
                goto nomem;
            buf = b;
            cap = more;
        }
        ssize_t k = read (fd, buf + n, cap - 1 - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            int e = errno;
            ns_error_set (err, e, "%s: cannot read: %s", path, strerror (e));
            goto error;
        }
        if (k == 0)
            break;
        n += (size_t)k;
        if (n > max) {
            ns_error_set (err, EFBIG, "%s: larger than %zu bytes", path, max);
            goto error;
        }
    }
    close (fd);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
nomem:
    ns_error_set (err, ENOMEM, "%s: out of memory", path);
error:
    {
        int e = errno;
        close (fd);
        free (buf);
        errno = e;
    }
    return NULL;
}

int ns_write_atomic (const char *path, const char *data, size_t len,
                     ns_error_t *err)
{
    char *tmp;
    if (asprintf (&tmp, "%s.tmp", path) < 0)
        return ns_error_set (err, ENOMEM, "%s: out of memory", path);
    int fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                   0666);
    if (fd < 0) {
        int e = errno;
        ns_error_set (err, e, "%s: %s", tmp, strerror (e));
        free (tmp);
        return -1;
    }
    size_t done = 0;
    int e = 0;
    while (done < len && !e) {
        ssize_t n = write (fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            e = n < 0 ? errno : EIO;
        else
            done += (size_t)n;
    }
    if (!e && fsync (fd) < 0)
        e = errno;
    if (close (fd) < 0 && !e)
        e = errno;
    if (e) {
        ns_error_set (err, e, "%s: write failed: %s", tmp, strerror (e));
        unlink (tmp);
        free (tmp);
        errno = e;
        return -1;
    }
    if (rename (tmp, path) < 0) {
        e = errno;
        unlink (tmp);
        free (tmp);
        return ns_error_set (err, e, "%s: %s", path, strerror (e));
    }
    free (tmp);
    return 0;
}

int ns_mkdir_p (const char *path, ns_error_t *err)
{
    char buf[PATH_MAX];
    if (snprintf (buf, sizeof (buf), "%s", path) >= (int)sizeof (buf))
        return ns_error_set (err, ENAMETOOLONG, "%s: path too long", path);
    for (char *p = buf + 1; ; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir (buf, 0777) < 0 && errno != EEXIST)
                return ns_error_set (err, errno, "%s: cannot create: %s",
                                     buf, strerror (errno));
            *p = c;
            if (!c)
                break;
        }
    }
    struct stat st;
    if (stat (path, &st) < 0 || !S_ISDIR (st.st_mode))
        return ns_error_set (err, ENOTDIR, "%s: not a directory", path);
    return 0;
}

int ns_json_read_file (const char *path, size_t max,
                       struct json_object **rootp, ns_error_t *err)
{
    size_t len;
    *rootp = NULL;
    char *text = ns_read_file (path, max, &len, err);
    if (!text)
        return -1;
    int rc = ns_json_parse_text (text, len, max, path, rootp, err);
    free (text);
    return rc;
}
