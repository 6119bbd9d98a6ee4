/* SPDX-License-Identifier: GPL-2.0-or-later */
/* identity_test.h - what only the tests call of program identity
 * (identity.h)
 *
 * Not part of identity.h's contract: kept for the unit tests.  Include
 * after identity.h.
 */
#ifndef NODESHARE_IDENTITY_TEST_H
#define NODESHARE_IDENTITY_TEST_H

#include "identity.h"

/* "tag", "script", "name", "none"; "?" for anything else. */
const char *ns_idsource_name (ns_idsource_t s);

/* A copy of id (its order and patterns), or NULL with errno set. */
ns_identity_t *ns_identity_copy (const ns_identity_t *id);

#endif /* !NODESHARE_IDENTITY_TEST_H */
