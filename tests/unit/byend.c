/* SPDX-License-Identifier: GPL-2.0-or-later */
/* byend.t - sim/byend.c: running jobs in order of (estimated end, job),
 * ties broken by job index; an ended job's entry holds nothing but keeps
 * its place; an insertion reuses a nearby ended entry without breaking the
 * order, taking the nearest one in its bitmap; squeezing keeps the
 * running jobs in order; ns_byend_upto () counts ends equal to the bound.
 * Then random starts and ends against a plain sorted list, the bitmap
 * checked after each.
 */
#include <stdio.h>
#include <stdlib.h>

#include "byend.h"
#include "tap.h"

/* The running entries of b in order, "j:e" each, into buf. */
static const char *show (const ns_byend_t *b, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < b->n && n < size; k++)
        if (b->nodes[k])
            n += (size_t)snprintf (buf + n, size - n, "%s%d:%g",
                                   n ? " " : "", (int)b->job[k], b->end[k]);
    return buf;
}

/* Entries in order of (end, job), ended ones included. */
static int sorted (const ns_byend_t *b)
{
    for (int k = 1; k < b->n; k++)
        if (b->end[k - 1] > b->end[k]
            || (b->end[k - 1] == b->end[k] && b->job[k - 1] >= b->job[k]))
            return 0;
    return 1;
}

/* The bitmap of ended entries marks exactly the entries holding nothing,
 * and no bit past the last entry. */
static int marks_ok (const ns_byend_t *b)
{
    int dead = 0;
    for (int k = 0; k < b->cap; k++) {
        int bit = (int)(b->dead[k >> 6] >> (k & 63) & 1);
        if (bit != (k < b->n && b->nodes[k] == 0))
            return 0;
        dead += bit;
    }
    return dead == b->ndead;
}

static void basics (void)
{
    ns_byend_t b = { 0 };
    char buf[256];
    ns_byend_insert (&b, 5, 100, 1, 4);
    ns_byend_insert (&b, 2, 100, 2, 8);
    ns_byend_insert (&b, 7, 50, 1, 1);
    ns_byend_insert (&b, 1, 200, 1, 2);
    is_str (show (&b, buf, sizeof buf), "7:50 2:100 5:100 1:200",
            "by end, equal ends by job index");
    is_int (ns_byend_upto (&b, 100), 3, "upto 100 counts both ends at 100");
    is_int (ns_byend_upto (&b, 99.5), 1, "upto 99.5: one");
    is_int (ns_byend_upto (&b, 10), 0, "upto 10: none");
    ns_byend_remove (&b, 2, 100);
    ok (b.n == 4 && b.ndead == 1 && b.nodes[1] == 0 && b.cores[1] == 0,
        "an ended job's entry stays, holding nothing");
    is_int (ns_byend_running (&b), 3, "three running");
    ns_byend_remove (&b, 3, 100);
    is_int (b.ndead, 1, "removing a job not there changes nothing");
    ns_byend_insert (&b, 9, 120, 3, 3);
    ok (b.n == 4 && b.ndead == 0 && sorted (&b),
        "an insertion takes the ended entry, the order kept");
    is_str (show (&b, buf, sizeof buf), "7:50 5:100 9:120 1:200",
            "the order after reuse");
    ns_byend_remove (&b, 7, 50);
    ns_byend_squeeze (&b);
    ok (b.n == 3 && b.ndead == 0 && b.job[0] == 5 && sorted (&b),
        "squeezed: the running jobs only, in order");
    ns_byend_free (&b);
    ok (b.job == NULL && b.n == 0, "freed and empty");
}

/* Random starts and ends against a list kept by hand. */
static void random_order (void)
{
    enum { N = 3000 };
    static double end[N];
    static int running[N];
    ns_byend_t b = { 0 };
    unsigned seed = 7;
    int bad = 0, nrun = 0;
    for (int step = 0; step < 20000; step++) {
        seed = seed * 1103515245u + 12345u;
        int j = (int)((seed >> 8) % N);
        if (running[j]) {
            ns_byend_remove (&b, j, end[j]);
            running[j] = 0;
            nrun--;
        }
        else {
            end[j] = (double)((seed >> 4) % 500);
            if (ns_byend_insert (&b, j, end[j], 1 + j % 3, 1 + j % 7) < 0)
                bad++;
            running[j] = 1;
            nrun++;
        }
        if (!sorted (&b) || ns_byend_running (&b) != nrun || !marks_ok (&b))
            bad++;
    }
    int live = 0;
    for (int k = 0; k < b.n; k++)
        if (b.nodes[k]) {
            int j = (int)b.job[k];
            if (!running[j] || b.end[k] != end[j]
                || b.nodes[k] != 1 + j % 3 || b.cores[k] != 1 + j % 7)
                bad++;
            live++;
        }
    ok (bad == 0 && live == nrun,
        "20000 random starts and ends: in order, the ended entries "
        "marked, each running job once with its nodes and cores (%d "
        "running, %d entries)", nrun, b.n);
    ns_byend_free (&b);
}

int main (void)
{
    plan_no_plan ();
    basics ();
    random_order ();
    return done_testing ();
}
