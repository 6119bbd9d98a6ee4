/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ledger_test.h - what only the tests call of the ledger (ledger.h)
 *
 * Not part of ledger.h's contract: kept for the unit tests and the fuzz
 * targets.  Include after ledger.h.
 */
#ifndef NODESHARE_LEDGER_TEST_H
#define NODESHARE_LEDGER_TEST_H

#include "ledger.h"

/* Used records. */
int ns_ledger_count (const ns_ledger_t *l);

/* Verify the table: every used record sealed and well-formed, no (owner,
 * task) recorded twice.  0, or -1 with errno EPROTO and the first
 * violation in err. */
int ns_ledger_check (const ns_ledger_t *l, ns_error_t *err);

#endif /* !NODESHARE_LEDGER_TEST_H */
