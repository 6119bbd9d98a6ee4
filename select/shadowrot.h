/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shadowrot.h - rotation of the shadow records file (no Slurm headers)
 *
 * The select plugin appends one line per job to
 * StateSaveLocation/nodeshare-shadow.jsonl (select/nsshadow.c).  Before
 * each append it calls ns_shadowrot_rotate (); once the file holds
 * max_bytes or more it is rotated:
 *
 *   FILE.KEEP.gz          dropped (what it held is returned)
 *   FILE.N.gz -> FILE.N+1.gz   for N = KEEP-1 .. 1
 *   FILE      -> FILE.1 -> FILE.1.gz   (gzip level 1, one file a rotation)
 *
 * A rotated file that could not be compressed stays FILE.N and moves on
 * like the others.  Each FILE.N.gz carries in its gzip header comment
 * "nodeshare-shadow records=R first=T0 last=T1", so that dropping it
 * costs no decompression.  On disk: at most max_bytes (plus one record)
 * in FILE and KEEP rotated files of at most max_bytes each, compressed.
 *
 * The caller writes ns_shadowrot_drop_line () as the first line of the
 * new FILE, so that readers (nodeshare-report) can say what was dropped:
 *
 *   {"time":1732480000,"dropped":"nodeshare-shadow.jsonl.4.gz",
 *    "records":1000,"first":1732300000,"last":1732400000}
 */
#ifndef NODESHARE_SHADOWROT_H
#define NODESHARE_SHADOWROT_H

#include <stddef.h>
#include <stdint.h>

#include "nserror.h"

typedef struct {
    int rotated;            /* 1: FILE became FILE.1(.gz) */
    int compressed;         /* 1: FILE.1.gz written */
    char dropped[256];      /* base name of the file dropped, "" none */
    int64_t records;        /* records it held, -1 unknown */
    int64_t first, last;    /* times of its first and last record, -1 */
    char warn[NS_ERROR_TEXT];   /* a step that failed without stopping
                                   the rotation (compression), "" none */
} ns_shadowrot_t;

/* Rotate path when it holds max_bytes or more, keeping keep (>= 1)
 * rotated files.  0 with out->rotated 0 (not due) or 1, or -1 with err
 * "PATH: why" (errno set) when the file could not be moved aside (the
 * caller goes on appending to it). */
int ns_shadowrot_rotate (const char *path, uint64_t max_bytes, int keep,
                         ns_shadowrot_t *out, ns_error_t *err);

/* ns_shadowrot_rotate () in two steps, so that the compression can run
 * away from a lock: the renames and the drop (FILE.1 is left plain;
 * out->compressed stays 0), then FILE.1 into FILE.1.gz (removing FILE.1;
 * 0, or -1 with err and FILE.1 left plain, moved on by later rotations
 * like any file not compressed).  The next move of the same path must
 * wait until the compression has returned. */
int ns_shadowrot_move (const char *path, uint64_t max_bytes, int keep,
                       ns_shadowrot_t *out, ns_error_t *err);
int ns_shadowrot_compress (const char *path, ns_error_t *err);

/* The record saying what out dropped, at time now, without a newline;
 * 0, or -1 when nothing was dropped or buf is too small. */
int ns_shadowrot_drop_line (const ns_shadowrot_t *out, int64_t now,
                            char *buf, size_t size);

/* What a file of records holds (plain or gzip): from the gzip comment
 * when there is one, else by reading it.  0, or -1 with errno. */
int ns_shadowrot_summary (const char *path, int64_t *records,
                          int64_t *first, int64_t *last);

#endif /* !NODESHARE_SHADOWROT_H */
