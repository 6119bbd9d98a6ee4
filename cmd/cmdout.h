/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmdout.h - a program's report files (sim/fileio.h), a failure said as
 * one "PROG: what is wrong" line (cmdline.h).  A program defines
 *   #define open_out(path) ns_cmd_open_out (PROG, path)
 *   #define close_out(f, path) ns_cmd_close_out (PROG, f, path)
 */
#ifndef NODESHARE_CMDOUT_H
#define NODESHARE_CMDOUT_H

#include <stdio.h>
#include <string.h>

#include "cmdline.h"
#include "fileio.h"

/* path, or '-' for stdout; a symbolic link at the name is refused, not
 * followed.  NULL when it cannot be opened, said. */
static inline FILE *ns_cmd_open_out (const char *prog, const char *path)
{
    ns_error_t err;
    FILE *f = ns_open_out (path, &err);
    if (!f)
        ns_cmd_die (prog, "%s", err.text);
    return f;
}

/* 0, or -1 when what was written did not all reach the file, said. */
static inline int ns_cmd_close_out (const char *prog, FILE *f,
                                    const char *path)
{
    ns_error_t err;
    if (ns_close_out (f, path, &err) < 0)
        return ns_cmd_die (prog, "%s", err.text);
    return 0;
}

/* Before the run: the nout output files outs[i] (given as opts[i]; NULL:
 * not asked) neither name one of the nin input files ins[] or the nargs
 * operands args[], nor a write-protected file, nor each other.  0, or -1
 * said. */
static inline int ns_cmd_check_outs (const char *prog,
                                     const char *const *opts,
                                     const char *const *outs, int nout,
                                     const char *const *ins, int nin,
                                     char *const *args, int nargs)
{
    ns_error_t err;
    for (int i = 0; i < nout; i++) {
        if (!outs[i])
            continue;
        if (ns_check_out (opts[i], outs[i], ins, nin, &err) < 0
            || ns_check_out (opts[i], outs[i], (const char *const *)args,
                             nargs, &err) < 0)
            return ns_cmd_die (prog, "%s", err.text);
        for (int k = 0; k < i; k++)
            if (outs[k] && strcmp (outs[i], "-") != 0
                && strcmp (outs[k], outs[i]) == 0)
                return ns_cmd_die (prog, "%s and %s name the same file, "
                                   "'%s': give each its own",
                                   opts[k], opts[i], outs[i]);
    }
    return 0;
}

#endif /* !NODESHARE_CMDOUT_H */
