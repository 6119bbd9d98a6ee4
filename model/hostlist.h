/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hostlist.h - Slurm host lists ("ns[1-3,5],login[01-02]") expanded
 *
 * The grammar of Slurm's hostlist: names separated by commas; a name may
 * hold bracketed ranges "[a-b,c]" of decimal numbers, printed with the
 * width of the lower bound ("[01-10]": 01 .. 10); several brackets in one
 * name combine as a product.  Pure, no I/O.
 */
#ifndef NODESHARE_HOSTLIST_H
#define NODESHARE_HOSTLIST_H

#include "nserror.h"

#define NS_HOSTNAME_MAX 256

/* Called with each name in order; non-zero stops the expansion and is
 * returned. */
typedef int (*ns_hostlist_f) (const char *name, void *arg);

/* Expand s, at most max names.  0 when every name was passed to fn, fn's
 * non-zero value if it stopped, or -1 with errno and err: EINVAL
 * ("unbalanced '[' at 3", "expected a number or range at 4 in 'n[x]'",
 * an empty name), E2BIG (more than max names, or a name longer than
 * NS_HOSTNAME_MAX - 1). */
int ns_hostlist_expand (const char *s, int max, ns_hostlist_f fn, void *arg,
                        ns_error_t *err);

#endif /* !NODESHARE_HOSTLIST_H */
