/* SPDX-License-Identifier: GPL-2.0-or-later */
/* progress.h - the one-line progress of replays running at once, as
 * nodeshare-sim draws it on a terminal:
 *   "2/8 done; running: twins 45%, mixed 30%"
 * cut to a width with "..." at its end.
 */
#ifndef NODESHARE_PROGRESS_H
#define NODESHARE_PROGRESS_H

#include <stddef.h>

typedef struct {
    const char *label;      /* the policy (and load) */
    int running;            /* counted as running, else as done if done */
    int done;
    int done_units, total_units;    /* its share: done_units / total */
} ns_progress_item_t;

/* The line of n items in buf, cut to columns characters (at least 40;
 * size at least 64 and more than columns); its length, or -1 if none is
 * running or buf is too small. */
int ns_progress_line (char *buf, size_t size, int columns,
                      const ns_progress_item_t *items, int n);

#endif /* !NODESHARE_PROGRESS_H */
