/* SPDX-License-Identifier: GPL-2.0-or-later */
/* byend.c - the running jobs in order of estimated end (see byend.h) */
#include <stdlib.h>
#include <string.h>

#include "byend.h"
#include "nsutil.h"

void ns_byend_free (ns_byend_t *b)
{
    free (b->job);
    free (b->end);
    free (b->nodes);
    free (b->cores);
    free (b->dead);
    *b = (ns_byend_t){ 0 };
}

/* Room for need entries in every array, the new bits of dead[] clear.
 * 0, or -1 out of memory (b unchanged but for larger arrays). */
static int byend_grow (ns_byend_t *b, int need)
{
    if (need <= b->cap)
        return 0;
    int cap = b->cap, words = (cap + 63) / 64;
    if (ns_grow (&b->end, &cap, need, sizeof (*b->end), 256) < 0)
        return -1;
    cap = b->cap;
    if (ns_grow (&b->nodes, &cap, need, sizeof (*b->nodes), 256) < 0)
        return -1;
    cap = b->cap;
    if (ns_grow (&b->cores, &cap, need, sizeof (*b->cores), 256) < 0)
        return -1;
    cap = b->cap;
    if (ns_grow (&b->job, &cap, need, sizeof (*b->job), 256) < 0)
        return -1;
    int nwords = (cap + 63) / 64;
    uint64_t *d = realloc (b->dead, sizeof (*d) * (size_t)nwords);
    if (!d)
        return -1;
    memset (d + words, 0, sizeof (*d) * (size_t)(nwords - words));
    b->dead = d;
    b->cap = cap;
    return 0;
}

/* Where (e, j) goes: the first entry not before it. */
static int byend_pos (const ns_byend_t *b, double e, int j)
{
    int lo = 0, hi = b->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        double em = b->end[mid];
        if (em < e || (em == e && b->job[mid] < (uint64_t)j))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void byend_move (ns_byend_t *b, int to, int from, int n)
{
    memmove (&b->job[to], &b->job[from], sizeof (*b->job) * n);
    memmove (&b->end[to], &b->end[from], sizeof (*b->end) * n);
    memmove (&b->nodes[to], &b->nodes[from], sizeof (*b->nodes) * n);
    memmove (&b->cores[to], &b->cores[from], sizeof (*b->cores) * n);
}

/* The first ended entry at k or after it, before b->n; -1 if none. */
static int dead_from (const ns_byend_t *b, int k)
{
    if (k >= b->n)
        return -1;
    int w = k >> 6, last = (b->n - 1) >> 6;
    uint64_t word = b->dead[w] & (~0ULL << (k & 63));
    while (!word) {
        if (++w > last)
            return -1;
        word = b->dead[w];
    }
    int d = (w << 6) + __builtin_ctzll (word);
    return d < b->n ? d : -1;
}

/* The last ended entry at k or before it; -1 if none. */
static int dead_upto (const ns_byend_t *b, int k)
{
    if (k < 0)
        return -1;
    int w = k >> 6;
    uint64_t word = b->dead[w] & (~0ULL >> (63 - (k & 63)));
    while (!word) {
        if (--w < 0)
            return -1;
        word = b->dead[w];
    }
    return (w << 6) + 63 - __builtin_clzll (word);
}

void ns_byend_squeeze (ns_byend_t *b)
{
    int n = 0;
    for (int k = 0; k < b->n; k++) {
        if (b->nodes[k] == 0)
            continue;
        b->job[n] = b->job[k];
        b->end[n] = b->end[k];
        b->nodes[n] = b->nodes[k];
        b->cores[n] = b->cores[k];
        n++;
    }
    if (b->dead)
        memset (b->dead, 0, sizeof (*b->dead) * (size_t)((b->n + 63) / 64));
    b->n = n;
    b->ndead = 0;
}

int ns_byend_insert (ns_byend_t *b, int j, double e, int nodes, int cores)
{
    if (byend_grow (b, b->n + 1) < 0)
        return -1;
    int pos = byend_pos (b, e, j);
    /* The ended entry that moves the fewest entries: the nearest after
     * pos (the entries up to it move one place on; the one after on a
     * tie) or before it (the ones after it move one place back), or,
     * when none is after pos, the one before unless the tail is shorter.
     * Entries between pos and the one taken are all running. */
    int d = -1;
    if (b->ndead > 0) {
        int after = dead_from (b, pos);
        int before = dead_upto (b, pos - 1);
        if (after >= 0)
            d = before >= 0 && pos - 1 - before < after - pos ? before
                                                              : after;
        else if (before >= 0 && pos - 1 - before <= b->n - pos)
            d = before;
    }
    if (d >= pos)
        byend_move (b, pos + 1, pos, d - pos);
    else if (d >= 0) {
        pos--;
        byend_move (b, d, d + 1, pos - d);
    }
    else {
        /* no ended entry at pos or after it: the tail's bits are clear */
        byend_move (b, pos + 1, pos, b->n - pos);
        b->n++;
    }
    if (d >= 0) {
        b->dead[d >> 6] &= ~(1ULL << (d & 63));
        b->ndead--;
    }
    b->job[pos] = (uint64_t)j;
    b->end[pos] = e;
    b->nodes[pos] = nodes;
    b->cores[pos] = cores;
    return 0;
}

void ns_byend_remove (ns_byend_t *b, int j, double e)
{
    int pos = byend_pos (b, e, j);
    if (pos < b->n && b->job[pos] == (uint64_t)j && b->nodes[pos] != 0) {
        b->nodes[pos] = 0;
        b->cores[pos] = 0;
        b->dead[pos >> 6] |= 1ULL << (pos & 63);
        if (++b->ndead >= 64 && 2 * b->ndead >= b->n)
            ns_byend_squeeze (b);
    }
}
