/* SPDX-License-Identifier: GPL-2.0-or-later */
/* progress.c - the progress line of replays running at once
 * (sim/progress.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "progress.h"

int ns_progress_line (char *buf, size_t size, int columns,
                      const ns_progress_item_t *items, int n)
{
    int done = 0, running = 0, len;
    if (size < 64 || columns < 40 || (size_t)columns >= size)
        return -1;
    for (int i = 0; i < n; i++) {
        done += items[i].done;
        running += items[i].running;
    }
    if (!running)
        return -1;
    len = snprintf (buf, size, "%d/%d done; running:", done, n);
    for (int i = 0; i < n && len < columns; i++) {
        const ns_progress_item_t *t = &items[i];
        if (!t->running)
            continue;
        double pct = t->total_units ? 100.0 * t->done_units / t->total_units
                                    : 0.0;
        int k = snprintf (buf + len, size - (size_t)len, " %s %.0f%%,",
                          t->label, pct);
        len = k < 0 || (size_t)(len + k) >= size ? (int)size - 1 : len + k;
    }
    if (len > 0 && buf[len - 1] == ',')
        buf[--len] = '\0';
    if (len > columns) {
        len = columns;
        memcpy (buf + len - 3, "...", 4);
    }
    return len;
}
