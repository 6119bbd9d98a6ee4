/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backfill.h - EASY backfilling behind a queue head that cannot start
 *
 * One pass (ns_backfill ()) looks at the queued jobs behind the head in
 * order; a scan says of each what it may do against the head's
 * reservation (headresv.h), and a start starts it: a job estimated to
 * end by the shadow time anywhere, a later one only off the reserved
 * nodes.  Where a pass stopped is kept (ns_bf_t): the next pass with the
 * same head, on the same cluster, goes on from there.
 */
#ifndef NODESHARE_BACKFILL_H
#define NODESHARE_BACKFILL_H

#include <stdint.h>

#include "engine.h"

/* Where the last backfill pass stopped. */
typedef struct {
    int head;           /* its head, or -1: the next pass starts over */
    int pos;            /* the queue position its first scan reached */
    int examined;       /* jobs it looked at (against bf_depth) */
    uint64_t version;   /* the cluster version it ended at */
} ns_bf_t;

/* One backfill pass behind the queue head (which cannot start now).
 * 0, or -1 with err set. */
int ns_backfill (ns_sim_t *s, ns_error_t *err);

#endif
