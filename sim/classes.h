/* SPDX-License-Identifier: GPL-2.0-or-later */
/* classes.h - nodeshare-sim --assign-classes: trace programs the
 * configuration does not name borrow the figures of a configured program
 * (an interference class, ns_interf_set_class), drawn by the configured
 * programs' weights from a fixed seed, so that a replay is the same every
 * time.
 */
#ifndef NODESHARE_CLASSES_H
#define NODESHARE_CLASSES_H

#include <stdint.h>

#include "interf.h"

/* Programs [nconf, nprogs) get a class among [0, nconf), program p with
 * probability weight(p) / the sum of the weights.  Nothing if no
 * configured program has a positive weight. */
void ns_classes_assign (ns_interf_t *model, int nconf, int nprogs,
                        uint64_t seed);

#endif /* !NODESHARE_CLASSES_H */
