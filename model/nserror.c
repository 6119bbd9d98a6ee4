/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nserror.c - caller-supplied error text */
#include <errno.h>
#include <stdio.h>

#include "nserror.h"

int ns_error_set (ns_error_t *err, int errnum, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start (ap, fmt);
        vsnprintf (err->text, sizeof (err->text), fmt, ap);
        va_end (ap);
    }
    errno = errnum;
    return -1;
}
