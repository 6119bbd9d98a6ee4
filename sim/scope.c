/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scope.c - nodeshare.json's reach on a slurm.conf machine
 * (sim/scope.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gres.h"
#include "scope.h"

int ns_scope_masks (const ns_config_t *cfg, const ns_sconf_t *m,
                    unsigned char **out_of_scope, unsigned char **no_stripe,
                    ns_error_t *err)
{
    unsigned char *oos = NULL, *ns = NULL;
    int nscope = ns_config_scope_count (cfg, NS_SCOPE_PARTITION);
    if (nscope >= 0) {
        if (!(oos = calloc ((size_t)m->nparts + 1, 1)))
            goto nomem;
        for (int p = 0; p < m->nparts; p++) {
            int in = 0;
            for (int i = 0; i < nscope && !in; i++)
                in = !strcmp (ns_config_scope_name (cfg, NS_SCOPE_PARTITION,
                                                    i), m->parts[p].name);
            oos[p] = !in;
        }
    }
    if (!ns_config_stripe_gres_nodes (cfg)) {
        int any = 0;
        for (int n = 0; n < m->nnodes; n++)
            any |= ns_gres_any (m->nodes[n].gres);
        if (any) {
            if (!(ns = calloc ((size_t)m->nnodes, 1)))
                goto nomem;
            for (int n = 0; n < m->nnodes; n++)
                ns[n] = (unsigned char)ns_gres_any (m->nodes[n].gres);
        }
    }
    *out_of_scope = oos;
    *no_stripe = ns;
    return 0;
nomem:
    free (oos);
    *out_of_scope = *no_stripe = NULL;
    return ns_error_set (err, ENOMEM, "out of memory");
}
