/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nserror.h - caller-supplied error text for model/ functions
 *
 * Every model/ function that can fail returns -1 or NULL, sets errno, and,
 * when given a non-NULL ns_error_t, fills err->text with one precise line
 * (no trailing newline).  Nothing in model/ logs or exits.
 */
#ifndef NODESHARE_NSERROR_H
#define NODESHARE_NSERROR_H

#include <stdarg.h>

#define NS_ERROR_TEXT 512

typedef struct {
    char text[NS_ERROR_TEXT];
} ns_error_t;

/* Format into err (if non-NULL), set errno to errnum, return -1. */
int ns_error_set (ns_error_t *err, int errnum, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

#endif /* !NODESHARE_NSERROR_H */
