/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap.h - minimal Test Anything Protocol for automake's tap-driver.sh
 *
 *   plan_no_plan (); ok (cond, "name %d", i); is_int (got, want, "name");
 *   is_str (got, want, "name"); diag ("..."); return done_testing ();
 * Header-only so each test program is one .c file.
 */
#ifndef NODESHARE_TAP_H
#define NODESHARE_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_run_, tap_failed_;

static inline void plan_no_plan (void)
{
    setvbuf (stdout, NULL, _IOLBF, 0);
}

static inline int tap_vok_ (int cond, const char *fmt, va_list ap)
{
    tap_run_++;
    if (!cond)
        tap_failed_++;
    printf ("%sok %d - ", cond ? "" : "not ", tap_run_);
    vprintf (fmt, ap);
    printf ("\n");
    return cond;
}

__attribute__ ((format (printf, 2, 3)))
static inline int ok (int cond, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    int r = tap_vok_ (cond, fmt, ap);
    va_end (ap);
    return r;
}

__attribute__ ((format (printf, 1, 2)))
static inline void diag (const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    printf ("# ");
    vprintf (fmt, ap);
    printf ("\n");
    va_end (ap);
}

__attribute__ ((format (printf, 3, 4)))
static inline int is_int (long long got, long long want, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    int r = tap_vok_ (got == want, fmt, ap);
    va_end (ap);
    if (!r)
        diag ("     got: %lld\n#     want: %lld", got, want);
    return r;
}

__attribute__ ((format (printf, 3, 4)))
static inline int is_str (const char *got, const char *want, const char *fmt,
                          ...)
{
    va_list ap;
    int same = got && want ? strcmp (got, want) == 0 : got == want;
    va_start (ap, fmt);
    int r = tap_vok_ (same, fmt, ap);
    va_end (ap);
    if (!r)
        diag ("     got: '%s'\n#     want: '%s'", got ? got : "(null)",
              want ? want : "(null)");
    return r;
}

static inline int done_testing (void)
{
    printf ("1..%d\n", tap_run_);
    return tap_failed_ ? 1 : 0;
}

#endif /* !NODESHARE_TAP_H */
