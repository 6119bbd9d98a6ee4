/* SPDX-License-Identifier: GPL-2.0-or-later */
/* progtab.c - program names interned as dense ids
 *
 * Open-addressing hash (FNV-1a) over an append-only name array: lookups are
 * O(1), ids never move, and a table of a few thousand executables (RICC has
 * about that many users) stays small.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "progtab.h"
#include "nsutil.h"

struct ns_progtab {
    char **names;       /* id -> name */
    int count;
    int cap;
    int *slots;         /* hash slot -> id, -1 when free */
    int nslots;         /* power of two, > 2 * count */
};

static uint32_t fnv1a (const char *s)
{
    uint64_t h = ns_fnv1a_str (s);
    return (uint32_t)(h ^ (h >> 32));
}

ns_progtab_t *ns_progtab_create (void)
{
    ns_progtab_t *t = calloc (1, sizeof (*t));
    if (!t)
        return NULL;
    t->nslots = 64;
    t->slots = malloc (sizeof (int) * t->nslots);
    if (!t->slots) {
        free (t);
        return NULL;
    }
    memset (t->slots, 0xff, sizeof (int) * t->nslots);
    return t;
}

void ns_progtab_destroy (ns_progtab_t *t)
{
    int saved = errno;   /* a destroy never changes errno */
    if (!t)
        return;
    for (int i = 0; i < t->count; i++)
        free (t->names[i]);
    free (t->names);
    free (t->slots);
    free (t);
    errno = saved;
}

static int find_slot (const ns_progtab_t *t, const char *name)
{
    uint32_t mask = (uint32_t)t->nslots - 1;
    uint32_t i = fnv1a (name) & mask;
    while (t->slots[i] >= 0 && strcmp (t->names[t->slots[i]], name) != 0)
        i = (i + 1) & mask;
    return (int)i;
}

static int grow_slots (ns_progtab_t *t)
{
    int *old = t->slots;
    int n = t->nslots * 2;
    int *slots = malloc (sizeof (int) * n);
    if (!slots)
        return -1;
    memset (slots, 0xff, sizeof (int) * n);
    t->slots = slots;
    t->nslots = n;
    for (int id = 0; id < t->count; id++)
        t->slots[find_slot (t, t->names[id])] = id;
    free (old);
    return 0;
}

int ns_progtab_intern (ns_progtab_t *t, const char *name, ns_error_t *err)
{
    if (!t || !name || !*name)
        return ns_error_set (err, EINVAL, "program name is empty");
    if (strlen (name) >= NS_PROGRAM_NAME_MAX)
        return ns_error_set (err, EINVAL,
                             "program name longer than %d characters",
                             NS_PROGRAM_NAME_MAX - 1);
    int s = find_slot (t, name);
    if (t->slots[s] >= 0)
        return t->slots[s];
    if (ns_grow (&t->names, &t->cap, t->count + 1, sizeof (*t->names), 16)
        < 0)
        return ns_error_set (err, ENOMEM, "out of memory");
    char *copy = strdup (name);
    if (!copy)
        return ns_error_set (err, ENOMEM, "out of memory");
    int id = t->count++;
    t->names[id] = copy;
    if (2 * t->count > t->nslots) {
        if (grow_slots (t) < 0) {
            t->count--;
            free (copy);
            return ns_error_set (err, ENOMEM, "out of memory");
        }
    }
    else
        t->slots[s] = id;
    return id;
}

int ns_progtab_lookup (const ns_progtab_t *t, const char *name)
{
    if (!t || !name)
        return NS_PROGRAM_UNKNOWN;
    int s = find_slot (t, name);
    return t->slots[s] >= 0 ? t->slots[s] : NS_PROGRAM_UNKNOWN;
}

const char *ns_progtab_name (const ns_progtab_t *t, int id)
{
    if (!t || id < 0 || id >= t->count)
        return "?";
    return t->names[id];
}

int ns_progtab_count (const ns_progtab_t *t)
{
    return t ? t->count : 0;
}

ns_progtab_t *ns_progtab_copy (const ns_progtab_t *t)
{
    ns_progtab_t *c = ns_progtab_create ();
    if (!c)
        return NULL;
    for (int i = 0; t && i < t->count; i++) {
        if (ns_progtab_intern (c, t->names[i], NULL) < 0) {
            ns_progtab_destroy (c);
            return NULL;
        }
    }
    return c;
}
