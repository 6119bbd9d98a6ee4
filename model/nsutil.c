/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsutil.c - growth, FNV-1a, string buffer, id map (see nsutil.h) */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsutil.h"

int ns_grow (void *pp, int *cap, int need, size_t elem, int first)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap > 0 ? (size_t)*cap : (size_t)(first > 0 ? first : 16);
    while (n < (size_t)need)
        n *= 2;
    if (n > (size_t)0x7fffffff || n > SIZE_MAX / elem) {
        errno = ENOMEM;
        return -1;
    }
    void *p = realloc (*(void **)pp, n * elem);
    if (!p) {
        errno = ENOMEM;
        return -1;
    }
    *(void **)pp = p;
    *cap = (int)n;
    return 0;
}

uint64_t ns_fnv1a (uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

uint64_t ns_fnv1a_u64 (uint64_t h, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return ns_fnv1a (h, b, sizeof (b));
}

uint64_t ns_fnv1a_str (const char *s)
{
    uint64_t h = ns_fnv1a (NS_FNV1A_INIT, s, s ? strlen (s) : 0);
    return h ? h : 1;
}

void ns_sbuf_printf (ns_sbuf_t *b, const char *fmt, ...)
{
    size_t room = b->used < b->len ? b->len - b->used : 0;
    va_list ap;
    va_start (ap, fmt);
    int k = vsnprintf (room ? b->buf + b->used : NULL, room, fmt, ap);
    va_end (ap);
    if (k > 0)
        b->used += (size_t)k;
}

static unsigned mix64 (uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return (unsigned)x;
}

static int alloc_slots (ns_idmap_t *m, unsigned nslots)
{
    uint64_t *keys = malloc (sizeof (*keys) * nslots);
    int *vals = malloc (sizeof (*vals) * nslots);
    if (!keys || !vals) {
        free (keys);
        free (vals);
        errno = ENOMEM;
        return -1;
    }
    memset (vals, 0xff, sizeof (*vals) * nslots);
    m->keys = keys;
    m->vals = vals;
    m->nslots = nslots;
    return 0;
}

int ns_idmap_init (ns_idmap_t *m)
{
    m->count = 0;
    return alloc_slots (m, 64);
}

void ns_idmap_free (ns_idmap_t *m)
{
    if (!m)
        return;
    int saved = errno;
    free (m->keys);
    free (m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->nslots = 0;
    m->count = 0;
    errno = saved;
}

/* The slot holding id, or the free slot where it would go. */
static unsigned find (const ns_idmap_t *m, uint64_t id)
{
    unsigned mask = m->nslots - 1;
    unsigned i = mix64 (id) & mask;
    while (m->vals[i] >= 0 && m->keys[i] != id)
        i = (i + 1) & mask;
    return i;
}

int ns_idmap_get (const ns_idmap_t *m, uint64_t id)
{
    if (!m->nslots)
        return -1;
    return m->vals[find (m, id)];
}

static int rehash (ns_idmap_t *m, unsigned nslots)
{
    ns_idmap_t old = *m;
    if (alloc_slots (m, nslots) < 0) {
        *m = old;
        return -1;
    }
    for (unsigned i = 0; i < old.nslots; i++)
        if (old.vals[i] >= 0) {
            unsigned s = find (m, old.keys[i]);
            m->keys[s] = old.keys[i];
            m->vals[s] = old.vals[i];
        }
    free (old.keys);
    free (old.vals);
    return 0;
}

int ns_idmap_put (ns_idmap_t *m, uint64_t id, int val)
{
    if (val < 0) {
        errno = EINVAL;
        return -1;
    }
    if (!m->nslots && alloc_slots (m, 64) < 0)
        return -1;
    unsigned s = find (m, id);
    if (m->vals[s] >= 0) {
        m->vals[s] = val;
        return 0;
    }
    if (2 * (unsigned)(m->count + 1) > m->nslots) {
        if (rehash (m, m->nslots * 2) < 0)
            return -1;
        s = find (m, id);
    }
    m->keys[s] = id;
    m->vals[s] = val;
    m->count++;
    return 0;
}

/* Backward-shift deletion for linear probing (Knuth 6.4, algorithm R). */
int ns_idmap_del (ns_idmap_t *m, uint64_t id)
{
    if (!m->nslots || m->vals[find (m, id)] < 0) {
        errno = ENOENT;
        return -1;
    }
    unsigned mask = m->nslots - 1;
    unsigned hole = find (m, id), i = hole;
    m->vals[hole] = -1;
    for (;;) {
        i = (i + 1) & mask;
        if (m->vals[i] < 0)
            break;
        unsigned home = mix64 (m->keys[i]) & mask;
        /* Move i into the hole unless its home lies cyclically in
         * (hole, i]. */
        int stays = hole <= i ? (home > hole && home <= i)
                              : (home > hole || home <= i);
        if (!stays) {
            m->keys[hole] = m->keys[i];
            m->vals[hole] = m->vals[i];
            m->vals[i] = -1;
            hole = i;
        }
    }
    m->count--;
    return 0;
}
