/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gzahead.h - a compressed file inflated ahead, in a thread of its own
 *
 * A trace of half a million jobs spends about a third of its reading time
 * in zlib (inflate and the CRC).  ns_gzahead_start () gives the inflation
 * to a thread that fills a few chunks ahead of the reader, so that the
 * parser and zlib run side by side on two cores.  ns_gzahead_read ()
 * answers as gzread () does, bytes in the same order, the end and the
 * failures at the same place in the data: the reader cannot tell the
 * difference, only the time.
 *
 * Only a compressed regular file is read ahead: a plain file has nothing
 * to inflate, and a pipe may never end (the thread could not be stopped
 * while read () waits on it).
 */
#ifndef NODESHARE_GZAHEAD_H
#define NODESHARE_GZAHEAD_H

#include <zlib.h>

typedef struct ns_gzahead ns_gzahead_t;

/* The ring: NS_GZAHEAD_SLOTS chunks of NS_GZAHEAD_CHUNK bytes (1 MiB in
 * all; 8 rather than 3 slots read RICC faster: doc/performance.md,
 * "Reading the trace"). */
#define NS_GZAHEAD_SLOTS 8
#define NS_GZAHEAD_CHUNK (128 * 1024)

/* Start inflating gz ahead, path being the regular file it was opened
 * from (NULL: not a regular file).  NULL when it is not worth it (not
 * compressed, not a regular file) or cannot be done (no memory, no
 * thread): the caller then reads gz itself.  gz belongs to the thread
 * until ns_gzahead_stop (). */
ns_gzahead_t *ns_gzahead_start (gzFile gz, const char *path);

/* Up to len bytes into buf, as gzread (gz, buf, len) would give them: the
 * number of bytes, 0 at the end of the data, -1 on an error.  At the end
 * or an error the thread has stopped: gzerror () on gz then tells why,
 * and errno is the thread's errno at that point (for Z_ERRNO). */
int ns_gzahead_read (ns_gzahead_t *a, void *buf, unsigned len);

/* Stop the thread (it may be ahead of the reader) and free a; gz stays
 * open, the caller's again.  NULL is fine. */
void ns_gzahead_stop (ns_gzahead_t *a);

#endif /* !NODESHARE_GZAHEAD_H */
