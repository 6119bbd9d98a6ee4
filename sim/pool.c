/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool.c - a pool of fixed-size entries (see pool.h) */
#include <stdlib.h>
#include <string.h>

#include "nsutil.h"
#include "pool.h"

void ns_pool_free (ns_pool_t *p)
{
    free (p->item);
    free (p->free);
    *p = (ns_pool_t){ .elem = p->elem };
}

int ns_pool_take (ns_pool_t *p)
{
    int k;
    if (p->nfree > 0)
        k = p->free[--p->nfree];
    else {
        if (ns_grow (&p->item, &p->cap, p->n + 1, p->elem, 256) < 0
            || ns_grow (&p->free, &p->freecap, p->n + 1, sizeof (int),
                        256) < 0)
            return -1;
        k = p->n++;
    }
    memset ((char *)p->item + (size_t)k * p->elem, 0, p->elem);
    return k;
}
