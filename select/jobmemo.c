/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jobmemo.c - per-job memory of the select plugin (see jobmemo.h) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jobmemo.h"

struct ns_jobmemo {
    ns_jobinfo_t *slots;   /* job_id 0 marks a free slot */
    int nslots;            /* power of two */
    int count;
};

#define MIN_SLOTS 64

static unsigned slot_of (const ns_jobmemo_t *m, uint32_t id)
{
    uint32_t x = id * 0x9e3779b1u;
    return (x ^ (x >> 15)) & (unsigned)(m->nslots - 1);
}

ns_jobmemo_t *ns_jobmemo_create (void)
{
    ns_jobmemo_t *m = calloc (1, sizeof (*m));
    if (!m)
        return NULL;
    m->slots = calloc (MIN_SLOTS, sizeof (*m->slots));
    if (!m->slots) {
        free (m);
        errno = ENOMEM;
        return NULL;
    }
    m->nslots = MIN_SLOTS;
    return m;
}

void ns_jobmemo_destroy (ns_jobmemo_t *m)
{
    int saved = errno;
    if (m) {
        free (m->slots);
        free (m);
    }
    errno = saved;
}

static int find_slot (const ns_jobmemo_t *m, uint32_t id)
{
    unsigned mask = (unsigned)m->nslots - 1;
    for (unsigned i = slot_of (m, id);; i = (i + 1) & mask) {
        if (m->slots[i].job_id == id)
            return (int)i;
        if (m->slots[i].job_id == 0)
            return -1;
    }
}

ns_jobinfo_t *ns_jobmemo_find (ns_jobmemo_t *m, uint32_t job_id)
{
    int i = m && job_id ? find_slot (m, job_id) : -1;
    if (i < 0) {
        errno = ENOENT;
        return NULL;
    }
    return &m->slots[i];
}

/* Place an entry known to be absent (the table has a free slot). */
static ns_jobinfo_t *place (ns_jobmemo_t *m, const ns_jobinfo_t *e)
{
    unsigned mask = (unsigned)m->nslots - 1;
    unsigned i = slot_of (m, e->job_id);
    while (m->slots[i].job_id != 0)
        i = (i + 1) & mask;
    m->slots[i] = *e;
    return &m->slots[i];
}

static int grow (ns_jobmemo_t *m)
{
    ns_jobinfo_t *old = m->slots;
    int oldn = m->nslots;
    ns_jobinfo_t *s = calloc ((size_t)oldn * 2, sizeof (*s));
    if (!s) {
        errno = ENOMEM;
        return -1;
    }
    m->slots = s;
    m->nslots = oldn * 2;
    for (int i = 0; i < oldn; i++)
        if (old[i].job_id)
            place (m, &old[i]);
    free (old);
    return 0;
}

ns_jobinfo_t *ns_jobmemo_get (ns_jobmemo_t *m, uint32_t job_id)
{
    if (!m || job_id == 0) {
        errno = EINVAL;
        return NULL;
    }
    int i = find_slot (m, job_id);
    if (i >= 0)
        return &m->slots[i];
    /* Keep the load at most one half. */
    if (2 * (m->count + 1) > m->nslots && grow (m) < 0)
        return NULL;
    ns_jobinfo_t e;
    memset (&e, 0, sizeof (e));
    e.job_id = job_id;
    m->count++;
    return place (m, &e);
}

/* Backward-shift deletion: no tombstones. */
static void delete_slot (ns_jobmemo_t *m, unsigned i)
{
    unsigned mask = (unsigned)m->nslots - 1;
    unsigned j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (m->slots[j].job_id == 0)
            break;
        unsigned home = slot_of (m, m->slots[j].job_id);
        /* Move j back into i when home is not cyclically in (i, j]. */
        int in_range = i <= j ? (home > i && home <= j)
                              : (home > i || home <= j);
        if (!in_range) {
            m->slots[i] = m->slots[j];
            i = j;
        }
    }
    memset (&m->slots[i], 0, sizeof (m->slots[i]));
    m->count--;
}

int ns_jobmemo_remove (ns_jobmemo_t *m, uint32_t job_id)
{
    int i = m && job_id ? find_slot (m, job_id) : -1;
    if (i < 0) {
        errno = ENOENT;
        return -1;
    }
    delete_slot (m, (unsigned)i);
    return 0;
}

int ns_jobmemo_count (const ns_jobmemo_t *m)
{
    return m ? m->count : 0;
}

void ns_jobmemo_forget_programs (ns_jobmemo_t *m)
{
    for (int i = 0; m && i < m->nslots; i++) {
        m->slots[i].resolved = 0;
        m->slots[i].program[0] = '\0';
    }
}

int ns_jobmemo_sweep (ns_jobmemo_t *m, unsigned gen)
{
    int removed = 0;
    if (!m)
        return 0;
    /* Deleting shifts later entries back into the current slot, so look
     * at the same slot again after a delete. */
    for (int i = 0; i < m->nslots;) {
        if (m->slots[i].job_id && m->slots[i].gen != gen) {
            delete_slot (m, (unsigned)i);
            removed++;
        }
        else
            i++;
    }
    return removed;
}

uint64_t ns_jobmemo_hash (const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; s && *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h ? h : 1;
}
