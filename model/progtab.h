/* SPDX-License-Identifier: GPL-2.0-or-later */
/* progtab.h - program names interned as small integer ids
 *
 * The twin rule, the pairing rules and the interference model all compare
 * programs; they do so by id.  Ids are dense, start at 0 and are handed out
 * in order of first sight, so a configuration that lists ABQ, LAM, LSD
 * yields 0, 1, 2.  NS_PROGRAM_UNKNOWN (-1) means "identity not known": such
 * a job is never anybody's twin.
 */
#ifndef NODESHARE_PROGTAB_H
#define NODESHARE_PROGTAB_H

#include "nserror.h"

#define NS_PROGRAM_UNKNOWN (-1)
#define NS_PROGRAM_NAME_MAX 128

typedef struct ns_progtab ns_progtab_t;

ns_progtab_t *ns_progtab_create (void);
void ns_progtab_destroy (ns_progtab_t *t);

/* Return the id of name, adding it if new.  -1 with errno on an empty or
 * over-long name (EINVAL) or out of memory. */
int ns_progtab_intern (ns_progtab_t *t, const char *name, ns_error_t *err);

/* Return the id of name, or NS_PROGRAM_UNKNOWN if it was never interned. */
int ns_progtab_lookup (const ns_progtab_t *t, const char *name);

/* Name of id, or "?" for an id never handed out. */
const char *ns_progtab_name (const ns_progtab_t *t, int id);

int ns_progtab_count (const ns_progtab_t *t);

/* Deep copy (for a configuration reload that must not disturb ids). */
ns_progtab_t *ns_progtab_copy (const ns_progtab_t *t);

#endif /* !NODESHARE_PROGTAB_H */
