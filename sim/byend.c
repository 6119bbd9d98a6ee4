/* SPDX-License-Identifier: GPL-2.0-or-later */
/* byend.c - the running jobs in order of estimated end (see byend.h) */
#include <stdlib.h>
#include <string.h>

#include "byend.h"
#include "nsutil.h"

/* How far an insertion looks for an ended entry to take. */
#define BYEND_NEAR 32

void ns_byend_free (ns_byend_t *b)
{
    free (b->job);
    free (b->end);
    free (b->nodes);
    free (b->cores);
    *b = (ns_byend_t){ 0 };
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
    b->n = n;
    b->ndead = 0;
}

int ns_byend_insert (ns_byend_t *b, int j, double e, int nodes, int cores)
{
    int cap = b->cap;
    if (ns_grow (&b->end, &cap, b->n + 1, sizeof (*b->end), 256) < 0)
        return -1;
    cap = b->cap;
    if (ns_grow (&b->nodes, &cap, b->n + 1, sizeof (*b->nodes), 256) < 0)
        return -1;
    cap = b->cap;
    if (ns_grow (&b->cores, &cap, b->n + 1, sizeof (*b->cores), 256) < 0
        || ns_grow (&b->job, &b->cap, b->n + 1, sizeof (*b->job), 256) < 0)
        return -1;
    int pos = byend_pos (b, e, j);
    /* The nearest ended entry: after pos, the entries up to it move one
     * place on; before pos, the ones after it move one place back. */
    int d = -1;
    if (b->ndead > 0) {
        /* the nearest: after pos at distance i (pos + i), else before
         * it at a distance under i (pos - 1 - i) */
        int i = 0, top = b->n - pos < BYEND_NEAR ? b->n - pos : BYEND_NEAR;
        const int *bn = b->nodes;
        while (i < top && bn[pos + i] != 0)
            i++;
        int lim = i < top ? i : BYEND_NEAR, k = 0;
        if (lim > pos)
            lim = pos;
        while (k < lim && bn[pos - 1 - k] != 0)
            k++;
        d = k < lim ? pos - 1 - k : i < top ? pos + i : -1;
        /* None that near: one before pos closer than the end of the
         * order still moves fewer entries than the tail (a scan reads
         * one array, a move writes four). */
        if (d < 0 && pos > k) {
            int far = b->n - pos < pos ? b->n - pos : pos;
            while (k < far && bn[pos - 1 - k] != 0)
                k++;
            if (k < far)
                d = pos - 1 - k;
        }
    }
    if (d >= pos)
        byend_move (b, pos + 1, pos, d - pos);
    else if (d >= 0) {
        pos--;
        byend_move (b, d, d + 1, pos - d);
    }
    else {
        byend_move (b, pos + 1, pos, b->n - pos);
        b->n++;
    }
    if (d >= 0)
        b->ndead--;
    b->job[pos] = (uint64_t)j;
    b->end[pos] = e;
    b->nodes[pos] = nodes;
    b->cores[pos] = cores;
    return 0;
}

void ns_byend_remove (ns_byend_t *b, int j, double e)
{
    int pos = byend_pos (b, e, j);
    if (pos < b->n && b->job[pos] == (uint64_t)j) {
        b->nodes[pos] = 0;
        b->cores[pos] = 0;
        if (++b->ndead >= 64 && 2 * b->ndead >= b->n)
            ns_byend_squeeze (b);
    }
}
