/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decmemo.t - sim/decmemo.c: records keyed by task count alone or with
 * the program, a taken-over slot starting empty, records by task count up
 * to the machine's cores, capacity failures implying larger shapes only
 * within one release version, and the least failed and least reserved
 * task counts kept per version.
 */
#include <stdint.h>
#include <stdio.h>

#include "decmemo.h"
#include "tap.h"

static void keys (void)
{
    ns_decmemo_t m;
    ns_decmemo_init (&m, 1);
    ns_decmemo_rec_t *a = ns_decmemo_lookup (&m, 8, 3);
    ok (a->version == UINT64_MAX && a->touch_version == UINT64_MAX,
        "a new record knows nothing");
    a->version = 5;
    ok (ns_decmemo_lookup (&m, 8, 3) == a && a->version == 5,
        "the same request finds its record");
    ns_decmemo_rec_t *b = ns_decmemo_lookup (&m, 8, 4);
    ok (b != a || b->version == UINT64_MAX,
        "another program: another record (the program matters)");
    ns_decmemo_init (&m, 0);
    a = ns_decmemo_lookup (&m, 8, 3);
    a->version = 7;
    ok (ns_decmemo_lookup (&m, 8, 4)->version == 7,
        "program blind: programs share a record");
    /* program -1 (unknown) and 0 are different keys */
    ns_decmemo_init (&m, 1);
    ns_decmemo_lookup (&m, 2, -1)->version = 1;
    ns_decmemo_rec_t *z = ns_decmemo_lookup (&m, 2, 0);
    ok (z->key != ((uint64_t)2 << 32 | 1u) && z->version != 1,
        "unknown program (-1) and program 0 differ");
    ns_decmemo_free (&m);
}

static void fast (void)
{
    ns_decmemo_t m;
    ns_decmemo_init (&m, 1);
    ok (ns_decmemo_fast (&m, 16) == 0, "records by task count for 16 cores");
    ok (m.nfast == 17 && !m.program_matters,
        "17 of them (0..16), and the program no longer matters");
    ns_decmemo_rec_t *r = ns_decmemo_lookup (&m, 16, 9);
    ok (r == &m.fast[16] && r->key == (uint64_t)16 << 32,
        "16 tasks: its own record, by index");
    ok (ns_decmemo_lookup (&m, 17, 9) != &m.fast[16]
        && ns_decmemo_lookup (&m, 17, 9) >= m.failed
        && ns_decmemo_lookup (&m, 17, 9) < m.failed + NS_DECMEMO_SLOTS,
        "17 tasks: a hashed record");
    ns_decmemo_free (&m);
    ns_decmemo_init (&m, 0);
    ok (ns_decmemo_fast (&m, 1 << 20) == 0 && m.nfast == 65536,
        "at most 65,536 records by task count");
    ns_decmemo_free (&m);
    ns_decmemo_free (&m);
    ok (m.fast == NULL, "freed twice: harmless");
}

static void shorts (void)
{
    ns_decmemo_t m;
    ns_decmemo_init (&m, 0);
    ok (!ns_decmemo_has_shorts (&m, 0), "none at first");
    ns_decmemo_short (&m, 4, 2, 3);
    ok (ns_decmemo_short_covers (&m, 4, 2, 3), "the same shape is covered");
    ok (ns_decmemo_short_covers (&m, 5, 4, 3), "a larger one too");
    ok (!ns_decmemo_short_covers (&m, 3, 8, 3), "a narrower one is not");
    ok (!ns_decmemo_short_covers (&m, 8, 1, 3), "nor one of smaller slots");
    ok (!ns_decmemo_short_covers (&m, 4, 2, 4),
        "another release version: nothing covered");
    ns_decmemo_short (&m, 6, 3, 3);
    is_int (m.nshorts, 1, "a shape already implied is not added");
    ns_decmemo_short (&m, 2, 8, 3);
    is_int (m.nshorts, 2, "one not implied is");
    /* one node of ever fewer cores: none implied by those before */
    for (int i = 0; i < 40; i++)
        ns_decmemo_short (&m, 1, 100 - i, 3);
    is_int (m.nshorts, NS_DECMEMO_SHORTS, "at most 16 kept");
    ns_decmemo_short (&m, 1, 1, 4);
    ok (m.nshorts == 1 && ns_decmemo_short_covers (&m, 1, 1, 4),
        "a new release version starts over");
}

static void least (void)
{
    ns_decmemo_t m;
    ns_decmemo_init (&m, 0);
    ok (m.fmin_version == UINT64_MAX && m.tmin_resv == -1,
        "no failure and no reservation known");
    ns_decmemo_failed (&m, 10, 2);
    ns_decmemo_failed (&m, 12, 2);
    ok (m.fmin == 10 && m.fmin_version == 2, "the least failed: 10");
    ns_decmemo_failed (&m, 12, 3);
    ok (m.fmin == 12 && m.fmin_version == 3,
        "a new version forgets the smaller failure");
    ns_decmemo_touched (&m, 6, 1);
    ns_decmemo_touched (&m, 4, 1);
    ns_decmemo_touched (&m, 9, 1);
    ok (m.tmin == 4 && m.tmin_resv == 1, "the least reserved: 4");
    ns_decmemo_touched (&m, 9, 2);
    ok (m.tmin == 9 && m.tmin_resv == 2,
        "another reservation forgets it");
}

int main (void)
{
    plan_no_plan ();
    keys ();
    fast ();
    shorts ();
    least ();
    return done_testing ();
}
