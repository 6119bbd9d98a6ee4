/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shadow.h - the select plugin's shadow records (mode "shadow"): one JSON
 * object per line, one line per job, what nodeshare would have decided
 * beside what stock cons_tres did:
 *
 *   {"time":1732480000,"job":7,"program":"LAM","cores":24,
 *    "policy":"twins","would":"stripe","nodes":"n1,n2","shape":"12+12",
 *    "rule":"stripe-empty","stock":"n3","differs":true,"why":"..."}
 *
 * "job" and "differs" are required; the other keys are optional, and
 * keys this reader does not know are ignored (newer plugins may add
 * some).  A key of the wrong type is an error.  Blank lines are skipped.
 *
 * A line with "dropped" says that rotation dropped a file of records
 * (select/shadowrot.h), and has no job:
 *
 *   {"time":1732480000,"dropped":"nodeshare-shadow.jsonl.4.gz",
 *    "records":1000,"first":1732300000,"last":1732400000}
 *
 * Files are read plain or gzip-compressed (zlib tells them apart).
 */
#ifndef NODESHARE_SHADOW_H
#define NODESHARE_SHADOW_H

#include <stddef.h>
#include <stdint.h>

#include "nserror.h"

#define NS_SHADOW_TEXT_MAX 256

typedef struct {
    int64_t time;         /* Unix seconds, -1 absent */
    int64_t job;          /* >= 0 */
    int cores;            /* -1 absent */
    int differs;          /* 0 or 1 */
    char program[NS_SHADOW_TEXT_MAX];   /* "" when absent (all below) */
    char policy[NS_SHADOW_TEXT_MAX];
    char would[NS_SHADOW_TEXT_MAX];
    char nodes[NS_SHADOW_TEXT_MAX];
    char shape[NS_SHADOW_TEXT_MAX];
    char rule[NS_SHADOW_TEXT_MAX];
    char stock[NS_SHADOW_TEXT_MAX];
    char why[NS_SHADOW_TEXT_MAX];       /* longer text is cut */
    char dropped[NS_SHADOW_TEXT_MAX];   /* "" a job's record; else the
                                           file rotation dropped, and: */
    int64_t dropped_records;            /* -1 unknown */
    int64_t dropped_first, dropped_last;  /* its records' times, -1 */
} ns_shadow_rec_t;

/* Parse one line (len bytes, no newline needed).  1: a record in rec,
 * 0: a blank line, -1: err says what is wrong (EINVAL), without the
 * file and line (the caller adds them). */
int ns_shadow_parse (const char *line, size_t len, ns_shadow_rec_t *rec,
                     ns_error_t *err);

/* Read a file of records ("-": stdin), calling fn for each; fn returns 0
 * to go on or -1 to stop (its err then set).  0, or -1 with err
 * "PATH:LINE: what is wrong" (or PATH: why it cannot be read). */
typedef int (*ns_shadow_fn) (const ns_shadow_rec_t *rec, int64_t line,
                             void *arg, ns_error_t *err);
int ns_shadow_read (const char *path, ns_shadow_fn fn, void *arg,
                    ns_error_t *err);

/* The files of one shadow log, oldest first: for the live file PATH,
 * PATH.N(.gz) for N from the highest present down to 1, then PATH.  A
 * path already naming a rotated file (ending in .N or .N.gz), or "-",
 * is itself alone.  *files (strings and array) is the caller's to free
 * with ns_shadow_files_free.  The count, or -1 with err (ENOMEM). */
int ns_shadow_files (const char *path, char ***files, ns_error_t *err);
void ns_shadow_files_free (char **files, int n);

/* N for a rotated file's name (ending in .N or .N.gz), 0 for another. */
int ns_shadow_rotated_number (const char *path);

#endif /* !NODESHARE_SHADOW_H */
