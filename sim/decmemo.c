/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decmemo.c - the simulator's memo of failed decisions (see decmemo.h) */
#include <stdlib.h>

#include "decmemo.h"

void ns_decmemo_init (ns_decmemo_t *m, int program_matters)
{
    *m = (ns_decmemo_t){ 0 };
    m->program_matters = program_matters;
    m->tmin_resv = -1;
    m->fmin_version = UINT64_MAX;   /* no failure known */
}

int ns_decmemo_fast (ns_decmemo_t *m, int64_t total)
{
    int n = total < 65536 ? (int)total + 1 : 65536;
    ns_decmemo_rec_t *f = malloc (sizeof (*f) * n);
    if (!f)
        return -1;
    for (int i = 0; i < n; i++)
        f[i] = (ns_decmemo_rec_t){ (uint64_t)i << 32, UINT64_MAX,
                                   UINT64_MAX };
    free (m->fast);
    m->fast = f;
    m->nfast = n;
    m->program_matters = 0;
    return 0;
}

void ns_decmemo_free (ns_decmemo_t *m)
{
    free (m->fast);
    m->fast = NULL;
    m->nfast = 0;
}

void ns_decmemo_short (ns_decmemo_t *m, int width, int slot, uint64_t v)
{
    if (m->short_version != v) {
        m->short_version = v;
        m->nshorts = 0;
    }
    for (int i = 0; i < m->nshorts; i++)
        if (m->shorts[i].width <= width && m->shorts[i].slot <= slot)
            return;     /* already implied */
    int i = m->nshorts < NS_DECMEMO_SHORTS ? m->nshorts++
                                           : (int)(v % NS_DECMEMO_SHORTS);
    m->shorts[i].width = width;
    m->shorts[i].slot = slot;
}

int ns_decmemo_short_covers (const ns_decmemo_t *m, int width, int slot,
                             uint64_t v)
{
    if (!ns_decmemo_has_shorts (m, v))
        return 0;
    for (int i = 0; i < m->nshorts; i++)
        if (width >= m->shorts[i].width && slot >= m->shorts[i].slot)
            return 1;
    return 0;
}
