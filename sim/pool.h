/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool.h - a pool of fixed-size entries reused through a free list
 *
 * The simulator keeps what only a queued job needs, and what only a
 * running one needs, in two pools: an entry is taken when a job is
 * queued (or starts) and given back when it leaves the queue (or ends),
 * so their memory follows the jobs queued and running, not every job of
 * the trace.  Entries are named by index (the array may move when it
 * grows).  The free list can hold every entry, so giving one back never
 * fails.
 *
 * The caller embeds an ns_pool_t, sets it up with ns_pool_init () and
 * frees it with ns_pool_free ().
 */
#ifndef NODESHARE_POOL_H
#define NODESHARE_POOL_H

#include <stddef.h>

typedef struct {
    void *item;         /* the entries, elem bytes each */
    size_t elem;
    int n, cap;         /* entries made, and room */
    int *free;          /* entries given back, for reuse */
    int nfree, freecap;
} ns_pool_t;

/* An empty pool of entries of elem bytes. */
static inline void ns_pool_init (ns_pool_t *p, size_t elem)
{
    *p = (ns_pool_t){ .elem = elem };
}

void ns_pool_free (ns_pool_t *p);

/* An entry, zeroed: the last given back, else a new one.  Its index, or -1
 * out of memory. */
int ns_pool_take (ns_pool_t *p);

/* Entry k (taken) is given back. */
static inline void ns_pool_give (ns_pool_t *p, int k)
{
    p->free[p->nfree++] = k;
}

/* Entries in use. */
static inline int ns_pool_used (const ns_pool_t *p)
{
    return p->n - p->nfree;
}

#endif
