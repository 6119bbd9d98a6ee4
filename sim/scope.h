/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scope.h - nodeshare.json's reach on the machine of a slurm.conf, as the
 * select plugin applies it: the partitions outside its scope (its
 * "partitions" list) and the nodes with GRES it does not stripe
 * ("stripe_gres_nodes" false).
 */
#ifndef NODESHARE_SCOPE_H
#define NODESHARE_SCOPE_H

#include "nsconfig.h"
#include "nserror.h"
#include "slurmconf.h"

/* *out_of_scope: m->nparts + 1 bytes, 1 for a partition the
 * configuration's "partitions" does not name; NULL if it names none (all
 * are in scope).  *no_stripe: m->nnodes bytes, 1 for a node with GRES;
 * NULL if GRES nodes are striped or none has GRES.  The caller frees
 * both.  -1 with errno ENOMEM (both NULL then). */
int ns_scope_masks (const ns_config_t *cfg, const ns_sconf_t *m,
                    unsigned char **out_of_scope, unsigned char **no_stripe,
                    ns_error_t *err);

#endif /* !NODESHARE_SCOPE_H */
