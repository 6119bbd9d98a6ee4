/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodefail.h - node failures in a sacct dump (sacct --parsable2, plain
 * or gzip): the jobs whose State is NODE_FAIL, which the trace reader
 * counts with the other failed jobs.  The header line names the columns:
 * JobIDRaw or JobID, and State (without it no job is counted); steps (a
 * JobID with a '.') are not jobs.
 */
#ifndef NODESHARE_NODEFAIL_H
#define NODESHARE_NODEFAIL_H

#include <stddef.h>
#include <stdint.h>

#include "nserror.h"

typedef struct {
    int64_t jobs;           /* job lines (not steps) */
    int64_t node_fail;      /* of them, State NODE_FAIL */
} ns_nodefail_t;

/* Count them in the sacct dump at path ("-" is refused: stdin is read
 * once, elsewhere).  0, or -1 with err "PATH: line N: ..." (EINVAL): no
 * JobID or JobIDRaw column in the header, a line with fewer fields than
 * JobID or State needs; or "PATH: why" when it cannot be read. */
int ns_nodefail_read (const char *path, ns_nodefail_t *out,
                      ns_error_t *err);

#endif /* !NODESHARE_NODEFAIL_H */
