/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fileio.h - whole files in and out for nodeshare's programs: a report
 * file opened without following a planted symbolic link ("-" is stdout),
 * a whole file read into memory with an upper bound, a file replaced in
 * one step (a reader never sees half of it).
 *
 * Every function returns -1 or NULL on failure with errno set and, when
 * err is non-NULL, one line in err->text that names the file.
 */
#ifndef NODESHARE_FILEIO_H
#define NODESHARE_FILEIO_H

#include <stddef.h>
#include <stdio.h>

#include "nserror.h"

/* A report file for writing, created or truncated; "-" is stdout.  A
 * symbolic link at path is refused (ELOOP), not followed; so is a
 * regular file no one may write (mode a-w, EPERM), even by root.  Close
 * it with ns_close_out (). */
FILE *ns_open_out (const char *path, ns_error_t *err);

/* Before a run: -1 if the output path, given with option opt, names one
 * of the ninputs input files (EEXIST; NULL and "-" entries are skipped)
 * or a write-protected file (EPERM), so that a mistyped command line
 * loses neither a trace nor the run.  0 if path does not exist yet. */
int ns_check_out (const char *opt, const char *path,
                  const char *const *inputs, int ninputs, ns_error_t *err);

/* Close (stdout: flush) what ns_open_out () returned; -1 if anything
 * written to it was lost.  path is the name ns_open_out () was given. */
int ns_close_out (FILE *f, const char *path, ns_error_t *err);

/* All of path in a NUL-terminated buffer the caller frees; its length in
 * *len if len is non-NULL.  A file longer than max bytes fails with
 * EFBIG. */
char *ns_read_file (const char *path, size_t max, size_t *len,
                    ns_error_t *err);

/* ns_read_file () of a JSON document into *rootp (NULL for a JSON null),
 * with ns_json_parse_text ()'s messages ("PATH:LINE:COL: what").  0, or
 * -1 with err set. */
struct json_object;
int ns_json_read_file (const char *path, size_t max,
                       struct json_object **rootp, ns_error_t *err);

/* path gets data (len bytes) in one step: PATH.tmp is written, synced
 * and renamed over path.  On failure PATH.tmp is removed and path is as
 * it was. */
int ns_write_atomic (const char *path, const char *data, size_t len,
                     ns_error_t *err);

/* path and its missing parents made (mode 0777 less the umask); 0 if it
 * is a directory then. */
int ns_mkdir_p (const char *path, ns_error_t *err);

#endif /* !NODESHARE_FILEIO_H */
