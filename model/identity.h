/* SPDX-License-Identifier: GPL-2.0-or-later */
/* identity.h - which program a job runs (design.md section 4)
 *
 * The twin rule needs a program name for every job without users changing
 * anything.  Sources, in a configurable order (default tag, script, name):
 *   tag    - an explicit tag (--nodeshare-program=NAME via SPANK);
 *   script - the executable the batch script launches: the first
 *            srun/mpirun/mpiexec/prun line, else the last command; basename
 *            only, wrappers (time, env, numactl, apptainer/singularity exec
 *            IMAGE, ...) looked through;
 *   name   - the job name.
 * The first source that yields a name wins; the name is then mapped through
 * the configured glob patterns ("lmp*" -> "LAM"), first match wins.
 * Pure functions: no I/O, no globals.
 */
#ifndef NODESHARE_IDENTITY_H
#define NODESHARE_IDENTITY_H

#include <stddef.h>

#include "nserror.h"

typedef enum {
    NS_ID_TAG = 0,
    NS_ID_SCRIPT,
    NS_ID_NAME,
    NS_ID_NONE,  /* nothing yielded a name */
} ns_idsource_t;

/* "tag"/"script"/"name" (any case) -> source; -1 with errno EINVAL if
 * unknown or NULL. */
int ns_idsource_parse (const char *s);

/* The executable a batch script launches (basename, no arguments).
 * Returns 0 and fills out, or -1 with errno ENOENT when the script runs
 * no command at all (EINVAL for NULL, ERANGE if out is too small, ENOMEM).
 * The rules in detail (interpreters, $VAR commands, ...) head identity.c. */
int ns_identity_script_exe (const char *script, char *out, size_t len);

typedef struct ns_identity ns_identity_t;

ns_identity_t *ns_identity_create (void);  /* order tag, script, name */
void ns_identity_destroy (ns_identity_t *id);

/* Replace the order; n in 1..3, no source twice.  0, or -1 with errno
 * EINVAL and err filled (the order is then unchanged). */
int ns_identity_set_order (ns_identity_t *id, const ns_idsource_t *order,
                           int n, ns_error_t *err);
/* Append a pattern (fnmatch glob, case-sensitive) mapping to program.
 * 0, or -1 with errno (EINVAL: empty glob or program, program of
 * NS_PROGRAM_NAME_MAX characters or more; ENOMEM) and err filled. */
int ns_identity_add_pattern (ns_identity_t *id, const char *glob,
                             const char *program, ns_error_t *err);
int ns_identity_npatterns (const ns_identity_t *id);

/* name mapped through the patterns (first match), or name itself (also
 * when id is NULL).  The result is owned by id or is name. */
const char *ns_identity_map (const ns_identity_t *id, const char *name);

/* Resolve a job's program.  Any of tag/script/jobname may be NULL or
 * empty.  Fills out with the mapped program name and returns the source
 * used; NS_ID_NONE (out = "") when nothing yielded a name, with errno
 * ENOENT, or ERANGE if a name was skipped for not fitting out (the next
 * source is tried instead), or EINVAL for a NULL id or out or len 0. */
ns_idsource_t ns_identity_resolve (const ns_identity_t *id, const char *tag,
                                   const char *script, const char *jobname,
                                   char *out, size_t len);

#endif /* !NODESHARE_IDENTITY_H */
