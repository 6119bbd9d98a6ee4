/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jobmemo.c - per-job memory of the select plugin (see jobmemo.h)
 *
 * A dense array of entries (swap-remove) and an id map onto it
 * (model/nsutil.h, the one linear-probing hash of the project).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jobmemo.h"
#include "nsutil.h"

struct ns_jobmemo {
    ns_jobinfo_t *e;
    int count, cap;
    ns_idmap_t index;      /* job id -> index into e */
};

ns_jobmemo_t *ns_jobmemo_create (void)
{
    ns_jobmemo_t *m = calloc (1, sizeof (*m));
    if (!m || ns_idmap_init (&m->index) < 0) {
        free (m);
        errno = ENOMEM;
        return NULL;
    }
    return m;
}

void ns_jobmemo_destroy (ns_jobmemo_t *m)
{
    int saved = errno;
    if (m) {
        ns_idmap_free (&m->index);
        free (m->e);
        free (m);
    }
    errno = saved;
}

ns_jobinfo_t *ns_jobmemo_find (ns_jobmemo_t *m, uint32_t job_id)
{
    int i = m && job_id ? ns_idmap_get (&m->index, job_id) : -1;
    if (i < 0) {
        errno = ENOENT;
        return NULL;
    }
    return &m->e[i];
}

ns_jobinfo_t *ns_jobmemo_get (ns_jobmemo_t *m, uint32_t job_id)
{
    if (!m || job_id == 0) {
        errno = EINVAL;
        return NULL;
    }
    int i = ns_idmap_get (&m->index, job_id);
    if (i >= 0)
        return &m->e[i];
    if (ns_grow (&m->e, &m->cap, m->count + 1, sizeof (*m->e), 64) < 0
        || ns_idmap_put (&m->index, job_id, m->count) < 0)
        return NULL;
    ns_jobinfo_t *e = &m->e[m->count++];
    memset (e, 0, sizeof (*e));
    e->job_id = job_id;
    return e;
}

/* Swap-remove entry i: the last entry takes its place. */
static void remove_at (ns_jobmemo_t *m, int i)
{
    ns_idmap_del (&m->index, m->e[i].job_id);
    if (i != --m->count) {
        m->e[i] = m->e[m->count];
        ns_idmap_put (&m->index, m->e[i].job_id, i);  /* replaces */
    }
}

int ns_jobmemo_remove (ns_jobmemo_t *m, uint32_t job_id)
{
    int i = m && job_id ? ns_idmap_get (&m->index, job_id) : -1;
    if (i < 0) {
        errno = ENOENT;
        return -1;
    }
    remove_at (m, i);
    return 0;
}

int ns_jobmemo_count (const ns_jobmemo_t *m)
{
    return m ? m->count : 0;
}

void ns_jobmemo_forget_programs (ns_jobmemo_t *m)
{
    for (int i = 0; m && i < m->count; i++) {
        m->e[i].resolved = 0;
        m->e[i].program[0] = '\0';
    }
}

int ns_jobmemo_sweep (ns_jobmemo_t *m, unsigned gen)
{
    int removed = 0;
    /* A removal moves the last entry into i: look at i again. */
    for (int i = 0; m && i < m->count;) {
        if (m->e[i].gen != gen) {
            remove_at (m, i);
            removed++;
        }
        else
            i++;
    }
    return removed;
}
