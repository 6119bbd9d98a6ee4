/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool.t - sim/pool.c: entries taken new in order, given back and taken
 * again last-in first-out, zeroed whenever taken, kept across the
 * array's growth; the count in use.
 */
#include <stdio.h>

#include "pool.h"
#include "tap.h"

struct rec {
    double x;
    int tag;
};

static struct rec *at (ns_pool_t *p, int k)
{
    return (struct rec *)p->item + k;
}

int main (void)
{
    plan_no_plan ();
    ns_pool_t p;
    ns_pool_init (&p, sizeof (struct rec));
    ok (ns_pool_take (&p) == 0 && ns_pool_take (&p) == 1
        && ns_pool_take (&p) == 2, "new entries in order: 0 1 2");
    at (&p, 1)->tag = 11;
    at (&p, 1)->x = 1.5;
    at (&p, 2)->tag = 22;
    ns_pool_give (&p, 1);
    ns_pool_give (&p, 0);
    is_int (ns_pool_used (&p), 1, "one in use");
    is_int (ns_pool_take (&p), 0, "the last given back is taken first");
    int k = ns_pool_take (&p);
    ok (k == 1 && at (&p, 1)->tag == 0 && at (&p, 1)->x == 0,
        "then the one before, zeroed");
    is_int (ns_pool_take (&p), 3, "then a new one");
    int bad = 0;
    for (int i = 0; i < 1000; i++) {
        int e = ns_pool_take (&p);
        if (e != 4 + i || at (&p, e)->tag != 0)
            bad++;
        at (&p, e)->tag = e;
    }
    ok (bad == 0 && at (&p, 2)->tag == 22,
        "1000 more, new and zeroed; entry 2 kept across growth");
    for (int i = 0; i < 1004; i++)
        ns_pool_give (&p, i);
    is_int (ns_pool_used (&p), 0, "every entry given back: none in use");
    ns_pool_free (&p);
    ok (p.item == NULL && p.elem == sizeof (struct rec),
        "freed, still a pool of the same entries");
    return done_testing ();
}
