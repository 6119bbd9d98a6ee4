/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodefail_test.h - what only the unit tests and the fuzz target call
 * of sim/nodefail.c
 *
 * Not part of nodefail.h's contract.
 */
#ifndef NODESHARE_NODEFAIL_TEST_H
#define NODESHARE_NODEFAIL_TEST_H

#include "nodefail.h"

/* Count them in text (len bytes), named name in messages.  0, or -1
 * with err "NAME: line N: ..." (EINVAL): no JobID or JobIDRaw column in
 * the header, a line with fewer fields than JobID or State needs. */
int ns_nodefail_parse (const char *text, size_t len, const char *name,
                       ns_nodefail_t *out, ns_error_t *err);

#endif /* !NODESHARE_NODEFAIL_TEST_H */
