/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsconfig_test.h - what only the tests call of the configuration
 * (nsconfig.h)
 *
 * Not part of nsconfig.h's contract: kept for the unit tests.
 * Include after nsconfig.h.
 */
#ifndef NODESHARE_NSCONFIG_TEST_H
#define NODESHARE_NSCONFIG_TEST_H

#include "nsconfig.h"

/* "shadow" for NS_MODE_SHADOW, else "normal". */
const char *ns_mode_name (ns_mode_t mode);

#endif /* !NODESHARE_NSCONFIG_TEST_H */
