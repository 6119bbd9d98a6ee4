/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmdout.h - a program's report files (sim/fileio.h), a failure said as
 * one "PROG: what is wrong" line (cmdline.h).  A program defines
 *   #define open_out(path) ns_cmd_open_out (PROG, path)
 *   #define close_out(f, path) ns_cmd_close_out (PROG, f, path)
 */
#ifndef NODESHARE_CMDOUT_H
#define NODESHARE_CMDOUT_H

#include <stdio.h>

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

#endif /* !NODESHARE_CMDOUT_H */
