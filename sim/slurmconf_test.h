/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slurmconf_test.h - what only the unit tests and the fuzz target call
 * of sim/slurmconf.c
 *
 * Not part of slurmconf.h's contract.
 */
#ifndef NODESHARE_SLURMCONF_TEST_H
#define NODESHARE_SLURMCONF_TEST_H

#include "slurmconf.h"

/* ns_sconf_load () from text (len bytes, need not be NUL-terminated), named
 * `name` in messages; Include lines are resolved relative to dir, or
 * are an error when dir is NULL (the fuzz target). */
ns_sconf_t *ns_sconf_parse (const char *text, size_t len, const char *name,
                            const char *dir, ns_error_t *err);

#endif /* !NODESHARE_SLURMCONF_TEST_H */
