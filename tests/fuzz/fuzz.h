/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz.h - shared by the fuzz targets in tests/fuzz/ (libFuzzer entry
 * points, also replayed by replay.c in make check)
 *
 * A target feeds hostile bytes to one parser and checks the promises the
 * parser's header makes; a broken promise aborts (FUZZ_CHECK), which
 * libFuzzer reports as a crash with the input that caused it.
 */
#ifndef NODESHARE_FUZZ_H
#define NODESHARE_FUZZ_H

#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

#define FUZZ_CHECK(cond, ...)                                              \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf (stderr, "%s:%d: broken promise: %s: ", __FILE__,      \
                     __LINE__, #cond);                                     \
            fprintf (stderr, __VA_ARGS__);                                 \
            fputc ('\n', stderr);                                          \
            abort ();                                                      \
        }                                                                  \
    } while (0)

/* The input as a NUL-terminated string (NULs inside stay). */
static inline char *fuzz_strdup (const uint8_t *data, size_t size)
{
    char *s = malloc (size + 1);
    if (!s)
        abort ();
    memcpy (s, data, size);
    s[size] = '\0';
    return s;
}

/* The input as a file that needs no disk: a memfd, named by its
 * /proc/self/fd path in buf.  Returns the fd (close it), or -1. */
static inline int fuzz_memfile (const uint8_t *data, size_t size, char *buf,
                                size_t len)
{
    int fd = memfd_create ("fuzz", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write (fd, data + done, size - done);
        if (n <= 0) {
            close (fd);
            return -1;
        }
        done += (size_t)n;
    }
    snprintf (buf, len, "/proc/self/fd/%d", fd);
    return fd;
}

#endif /* !NODESHARE_FUZZ_H */
