/* SPDX-License-Identifier: GPL-2.0-or-later */
/* interf_test.h - what only the tests call of the interference model
 * (interf.h)
 *
 * Not part of interf.h's contract: kept for the unit tests.
 * Include after interf.h.
 */
#ifndef NODESHARE_INTERF_TEST_H
#define NODESHARE_INTERF_TEST_H

#include "interf.h"

/* Slowdown of p on one node shared with the programs cotenants[0..n-1]:
 * the product of the pairwise slowdowns (1.0 when alone).  With the usual
 * limit of one co-tenant this is just slowdown[p][q]. */
double ns_interf_node_slowdown (const ns_interf_t *m, int p,
                                const int *cotenants, int n);

#endif /* !NODESHARE_INTERF_TEST_H */
