/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rellog.c - the nodes released by ended jobs (see rellog.h) */
#include <stdlib.h>
#include <string.h>

#include "rellog.h"

void ns_rellog_free (ns_rellog_t *l)
{
    free (l->node);
    *l = (ns_rellog_t){ 0 };
}

int ns_rellog_add (ns_rellog_t *l, const ns_share_t *sh, int n)
{
    int64_t used = l->n - l->rlog0;
    if (used + n > l->cap) {
        /* Only the last NS_RELLOG_KEEP releases are ever read: keep
         * those. */
        int64_t keep = used < NS_RELLOG_KEEP ? used : NS_RELLOG_KEEP;
        if (keep > 0)
            memmove (l->node, l->node + used - keep, sizeof (int) * keep);
        l->rlog0 = l->n - keep;
        used = keep;
    }
    if (used + n > l->cap) {
        int64_t cap = l->cap ? l->cap * 2 : 4096;
        while (cap < used + n)
            cap *= 2;
        int *p = realloc (l->node, sizeof (int) * cap);
        if (!p)
            return -1;
        l->node = p;
        l->cap = cap;
    }
    for (int i = 0; i < n; i++)
        l->node[l->n++ - l->rlog0] = sh[i].node;
    return 0;
}
