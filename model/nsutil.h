/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsutil.h - the small mechanisms every part of nodeshare shares
 *
 * One copy each: growth of arrays, FNV-1a hashing, a bounded string
 * buffer, and a map from 64-bit ids to non-negative ints (open
 * addressing, linear probing, backward-shift delete: no tombstones, so
 * add/remove churn never degrades lookups).  Pure C, no globals.
 */
#ifndef NODESHARE_NSUTIL_H
#define NODESHARE_NSUTIL_H

#include <stddef.h>
#include <stdint.h>

/* Make room for at least `need` elements of `elem` bytes in the array
 * *pp of capacity *cap, doubling from `first` (or from *cap).  0, or -1
 * with errno ENOMEM and nothing changed. */
int ns_grow (void *pp, int *cap, int need, size_t elem, int first);

/* FNV-1a, 64 bits. */
#define NS_FNV1A_INIT 0xcbf29ce484222325ULL
uint64_t ns_fnv1a (uint64_t h, const void *data, size_t len);
/* The 8 bytes of v, least significant first (the same on every host). */
uint64_t ns_fnv1a_u64 (uint64_t h, uint64_t v);
/* Of a string (NULL reads as ""); never 0 (0 can mean "none"). */
uint64_t ns_fnv1a_str (const char *s);

/* Appending to a fixed buffer, with snprintf's rule: buf[0..len-1]
 * always holds a terminated string, cut where it does not fit, and
 * `used` counts what would have been written, so used >= len means the
 * text was cut.  Start with { buf, len, 0 } and buf[0] = '\0' (len 0:
 * count only). */
typedef struct {
    char *buf;
    size_t len;
    size_t used;
} ns_sbuf_t;

__attribute__ ((format (printf, 2, 3)))
void ns_sbuf_printf (ns_sbuf_t *b, const char *fmt, ...);

/* id -> value (>= 0). */
typedef struct {
    uint64_t *keys;
    int *vals;          /* -1: free slot */
    unsigned nslots;    /* power of two, >= 2 x count */
    int count;
} ns_idmap_t;

/* 0, or -1 with errno ENOMEM. */
int ns_idmap_init (ns_idmap_t *m);
void ns_idmap_free (ns_idmap_t *m);
/* The value of id, or -1. */
int ns_idmap_get (const ns_idmap_t *m, uint64_t id);
/* Set (add or replace); 0, or -1 with errno ENOMEM (nothing changed). */
int ns_idmap_put (ns_idmap_t *m, uint64_t id, int val);
/* 0, or -1 with errno ENOENT. */
int ns_idmap_del (ns_idmap_t *m, uint64_t id);

#endif /* !NODESHARE_NSUTIL_H */
