/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rellog.h - the nodes released by ended jobs, in order
 *
 * Every end appends the nodes of the job that ended: release number k
 * (counted from 0 over the whole run) is one node.  A queued job that
 * failed remembers how many releases there were; while few have followed
 * (at most NS_RELLOG_KEEP), only those nodes can have become admissible
 * to it, so the engine asks the policy about them alone
 * (ns_place_admits ()).  Older releases are never read and are dropped
 * when the log grows.
 *
 * The caller embeds an ns_rellog_t (zeroed is empty) and frees it with
 * ns_rellog_free ().
 */
#ifndef NODESHARE_RELLOG_H
#define NODESHARE_RELLOG_H

#include <stddef.h>
#include <stdint.h>

#include "cluster.h"

/* The releases that can be read back: the last this many. */
#define NS_RELLOG_KEEP 32

typedef struct {
    int *node;          /* release rlog0 + i at node[i] */
    int64_t n;          /* releases so far */
    int64_t rlog0;      /* the first kept */
    int64_t cap;
} ns_rellog_t;

void ns_rellog_free (ns_rellog_t *l);

/* The n nodes of sh were released (in that order).  0, or -1 out of
 * memory (the log as it was). */
int ns_rellog_add (ns_rellog_t *l, const ns_share_t *sh, int n);

/* Releases so far. */
static inline int64_t ns_rellog_count (const ns_rellog_t *l)
{
    return l->n;
}

/* How many nodes were released since release `from`, those nodes in
 * *nodes; or -1 when more than NS_RELLOG_KEEP have followed it. */
static inline int ns_rellog_since (const ns_rellog_t *l, int64_t from,
                                   const int **nodes)
{
    if (l->n - from > NS_RELLOG_KEEP)
        return -1;
    *nodes = l->node + (from - l->rlog0);
    return (int)(l->n - from);
}

#endif
