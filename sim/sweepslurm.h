/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sweepslurm.h - a sweep as Slurm jobs: the batch script that runs
 * nodeshare-sim --sweep FILE ARG with the sweep file's #SBATCH lines, and
 * sbatch --parsable run to submit one.
 */
#ifndef NODESHARE_SWEEPSLURM_H
#define NODESHARE_SWEEPSLURM_H

#include <stdio.h>

#include "nserror.h"
#include "sweep.h"

/* The script's text: "#!/bin/sh", a comment naming what (the array, the
 * collect job) and file, sw's #SBATCH lines, then
 * exec 'EXE' --sweep 'FILE' ARG (exe and file quoted for sh, arg as is).
 * NULL with errno ENOMEM; the caller frees it. */
char *ns_sweep_script (const ns_sweep_t *sw, const char *exe,
                       const char *file, const char *what, const char *arg);

/* 'text' for sh on f, single quotes inside escaped. */
void ns_sh_quote (FILE *f, const char *s);

/* sbatch --parsable ARGS... EXTRA... SCRIPT, extra split at blanks (NULL:
 * none); the job id it printed, or -1 with err set (sbatch not found,
 * failed, or printed no job id). */
long ns_sbatch (char **args, int nargs, const char *extra,
                const char *script, ns_error_t *err);

#endif /* !NODESHARE_SWEEPSLURM_H */
