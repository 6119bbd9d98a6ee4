/* SPDX-License-Identifier: GPL-2.0-or-later */
/* classes.c - interference classes for unnamed programs
 * (sim/classes.h). */
#include "config.h"

#include <stddef.h>

#include "classes.h"

void ns_classes_assign (ns_interf_t *model, int nconf, int nprogs,
                        uint64_t seed)
{
    double total = 0;
    for (int p = 0; p < nconf; p++)
        total += ns_interf_weight (model, p);
    if (total <= 0)
        return;
    /* xorshift64 from the seed: the same draws on every machine */
    uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
    for (int p = nconf; p < nprogs; p++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double u = (double)(x >> 11) / 9007199254740992.0 * total;
        int cls = 0;
        for (; cls < nconf - 1; cls++) {
            u -= ns_interf_weight (model, cls);
            if (u < 0)
                break;
        }
        ns_interf_set_class (model, p, cls, NULL);
    }
}
