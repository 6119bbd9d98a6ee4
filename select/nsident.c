/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsident.c - which program a job runs, in slurmctld: the SPANK tag
 * (--nodeshare-program), the batch script or the job name, through the
 * configuration's identity rules (model/identity.h), resolved once per job
 * and kept in its memo.  Called with ns_ctld_lock held. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "nscompat.h"

#include "src/common/log.h"
#include "src/common/pack.h"

#include "identity.h"
#include "nsconfig.h"

#include "jobmemo.h"
#include "nsctld_int.h"

/* The spank_job_env variable that carries --nodeshare-program (the SPANK
 * plugin sets it with spank_job_control_setenv in sbatch/salloc). */
#define TAG_VAR "NODESHARE_PROGRAM"
/* Batch scripts longer than this are identified by their first part. */
#define SCRIPT_MAX (1024 * 1024)

static const char *spank_tag (const job_record_t *job)
{
    static const char *names[] = { TAG_VAR "=", "SPANK_" TAG_VAR "=" };
    for (uint32_t i = 0; job->spank_job_env && i < job->spank_job_env_size;
         i++) {
        const char *e = job->spank_job_env[i];
        for (size_t k = 0; e && k < sizeof (names) / sizeof (names[0]); k++)
            if (!strncmp (e, names[k], strlen (names[k])))
                return e + strlen (names[k]);
    }
    return NULL;
}

/* The batch script as a NUL-terminated string (malloc), or NULL. */
static char *batch_script (const job_record_t *job)
{
    if (!job->batch_flag || !get_job_script)
        return NULL;
    buf_t *buf = get_job_script (job);
    if (!buf)
        return NULL;
    size_t n = buf->size < SCRIPT_MAX ? buf->size : SCRIPT_MAX;
    char *s = malloc (n + 1);
    if (s) {
        memcpy (s, buf->head, n);
        s[n] = '\0';
    }
    free_buf (buf);
    return s;
}

static void resolve_program (const job_record_t *job, ns_jobinfo_t *ji)
{
    char *script = batch_script (job);
    ns_idsource_t src = ns_identity_resolve (ns_config_identity (ctld_cfg ()),
                                             spank_tag (job), script,
                                             job->name, ji->program,
                                             sizeof (ji->program));
    free (script);
    ji->idsource = src;
    ji->resolved = 1;
    debug ("nodeshare: JobId=%u runs %s (from the %s)", job->job_id,
           ji->program[0] ? ji->program : "an unknown program",
           src == NS_ID_TAG ? "--nodeshare-program tag"
           : src == NS_ID_SCRIPT ? "batch script"
           : src == NS_ID_NAME ? "job name" : "nothing");
}

/* The job's program id in the configuration's table. */
int program_of (const job_record_t *job, ns_jobinfo_t *ji)
{
    if (!ji->resolved)
        resolve_program (job, ji);
    if (!ji->program[0])
        return NS_PROGRAM_UNKNOWN;
    int id = ns_progtab_intern (ns_config_progtab (ctld_cfg ()), ji->program,
                                NULL);
    return id < 0 ? NS_PROGRAM_UNKNOWN : id;
}
