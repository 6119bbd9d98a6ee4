/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmdline.h - the error convention of nodeshare's programs
 *
 * Every message is one line "PROGRAM: what is wrong" on stderr (no path
 * of argv[0], no usage dump: --help prints the usage on stdout).  Exit
 * status: 0 results were produced, 1 none were (the work failed), 2 the
 * command line or the configuration is wrong.
 */
#ifndef NODESHARE_CMDLINE_H
#define NODESHARE_CMDLINE_H

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

enum {
    NS_EXIT_OK = 0,
    NS_EXIT_FAIL = 1,
    NS_EXIT_USAGE = 2,
};

/* The last entries of every program's struct option table: -h, --help
 * and -V, --version, spelled alike in all of them. */
#define NS_CMD_LONGOPTS_END                \
    { "help", no_argument, NULL, 'h' },    \
    { "version", no_argument, NULL, 'V' }, \
    { NULL, 0, NULL, 0 }

/* What -V, --version prints on stdout: "PROG VERSION". */
static inline void ns_cmd_version (const char *prog, const char *version)
{
    printf ("%s %s\n", prog, version);
}

/* "PROG: message" on stderr in one write (programs that run threads may
 * fail in several at once); returns -1 for `return die (...)`.  A program
 * defines its die () as  #define die(...) ns_cmd_die (PROG, __VA_ARGS__) */
static inline int ns_cmd_die (const char *prog, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
static inline int ns_cmd_die (const char *prog, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    fprintf (stderr, "%s: %s\n", prog, msg);
    return -1;
}

/* After getopt_long () returned ':' or '?' (with opterr = 0 and an
 * optstring starting with ':' or "+:"), say which option was wrong. */
static inline void ns_cmd_bad_option (const char *prog, int c, char **argv)
{
    if (c == ':')
        fprintf (stderr, "%s: option '%s' needs a value (see --help)\n",
                 prog, argv[optind - 1]);
    else if (optopt)
        fprintf (stderr, "%s: unknown option '-%c' (see --help)\n", prog,
                 optopt);
    else
        fprintf (stderr, "%s: unknown option '%s' (see --help)\n", prog,
                 argv[optind - 1]);
}

/* Option OPT's value S, an integer in lo..hi, into *out; else "PROG: OPT
 * 'S': expected an integer LO..HI" and -1. */
static inline int ns_cmd_long (const char *prog, const char *opt,
                               const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol (s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return ns_cmd_die (prog, "%s '%s': expected an integer %ld..%ld",
                           opt, s, lo, hi);
    *out = v;
    return 0;
}

/* The same into an int (lo and hi within int's range). */
static inline int ns_cmd_int (const char *prog, const char *opt,
                              const char *s, int lo, int hi, int *out)
{
    long v = 0;
    if (ns_cmd_long (prog, opt, s, lo, hi, &v) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

/* Option OPT's value S, a number in [lo, hi], into *out; else "PROG: OPT
 * 'S': expected a number in [LO, HI]" and -1. */
static inline int ns_cmd_double (const char *prog, const char *opt,
                                 const char *s, double lo, double hi,
                                 double *out)
{
    char *end;
    errno = 0;
    double v = strtod (s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi))
        return ns_cmd_die (prog, "%s '%s': expected a number in [%g, %g]",
                           opt, s, lo, hi);
    *out = v;
    return 0;
}

#endif /* !NODESHARE_CMDLINE_H */
