/* SPDX-License-Identifier: GPL-2.0-or-later */
/* headresv.t - sim/headresv.c: a reservation kept while head and cluster
 * version stay; marks and the placements that touch them; the count of
 * released cores and nodes kept up to date as jobs start and end, and
 * found again only while it still holds; the cheap lower bound of the
 * shadow time, and where it was counted kept; the free cores outside the
 * marks, cached per version and lowered by a start beside the
 * reservation.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "byend.h"
#include "cluster.h"
#include "headresv.h"
#include "tap.h"

static void begin_and_marks (void)
{
    ns_hresv_t r;
    ok (ns_hresv_init (&r, 8) == 0, "init on 8 nodes");
    ok (r.resv_head == -1 && r.oroom_mark == -1, "no reservation, no room");
    is_int (ns_hresv_begin (&r, 3, 10), 1, "head 3 at version 10: anew");
    ok (r.shadow == INFINITY && r.resv_id == 1, "no shadow time, id 1");
    r.shadow = 50;
    is_int (ns_hresv_begin (&r, 3, 10), 0, "same head and version: kept");
    ok (r.shadow == 50 && r.resv_id == 1, "kept as it was");
    is_int (ns_hresv_begin (&r, 3, 11), 1, "a new version: anew");
    is_int (ns_hresv_begin (&r, 4, 11), 1, "a new head: anew");
    is_int (r.resv_id, 3, "each anew has a new id");
    ns_hresv_new_marks (&r);
    ns_hresv_mark (&r, 2);
    ns_hresv_mark (&r, 5);
    ok (!r.outside[2] && !r.outside[5] && r.outside[0] && r.outside[7],
        "marked nodes are not outside");
    ns_share_t sh[2] = { { .node = 1, .cores = 1 },
                         { .node = 5, .cores = 1 } };
    ns_placement_t pl = { .n = 1, .shares = sh };
    ok (!ns_hresv_touches (&r, &pl), "a placement on node 1 keeps off");
    pl.n = 2;
    ok (ns_hresv_touches (&r, &pl), "one on nodes 1 and 5 touches");
    ns_hresv_new_marks (&r);
    ok (!ns_hresv_touches (&r, &pl) && r.outside[5],
        "new marks: nothing marked");
    ns_hresv_free (&r);
    ns_hresv_free (&r);
    ok (1, "freed twice: harmless");
}

/* Running jobs: (end, cores, nodes) */
static void counts (void)
{
    ns_hresv_t r;
    ns_byend_t be = { 0 };
    ns_hresv_init (&r, 4);
    ns_share_t sh = { .node = 0, .cores = 2 };
    ns_byend_insert (&be, 0, 10, 1, 2);
    ns_byend_insert (&be, 1, 20, 1, 4);
    ns_byend_insert (&be, 2, 20, 2, 3);
    ns_byend_insert (&be, 3, 30, 1, 8);
    is_int (ns_hresv_again (&r, 0, 5, 0, &be), -1, "nothing kept: -1");
    /* 0 free, need 5 cores: 2 by 10, 9 by 20 */
    ns_hresv_keep (&r, 0, 5, 3, &be);
    ok (r.ec[0].ok && r.ec[0].when == 20 && r.ec[0].below == 2
        && r.ec[0].upto == 9, "kept: by 20, 2 before, 9 by then");
    is_int (ns_hresv_again (&r, 0, 5, 0, &be), 3,
            "found again: the three jobs ending by 20");
    is_int (ns_hresv_again (&r, 0, 6, 0, &be), -1, "another need: -1");
    is_int (ns_hresv_again (&r, 0, 5, 3, &be), -1,
            "3 free: enough before 20, -1");
    is_int (ns_hresv_again (&r, 1, 5, 0, &be), -1, "nodes: nothing kept");
    /* a job ending at 20 starts: by 20 one more core; one at 10 ends */
    ns_byend_insert (&be, 4, 20, 1, 1);
    ns_hresv_job (&r, 0, 20, 1, &sh, 1, 0);
    ok (r.ec[0].upto == 10 && r.ec[0].below == 2,
        "a start ending at the count's time adds to upto only");
    ns_byend_remove (&be, 0, 10);
    ns_hresv_job (&r, 0, 10, 2, &sh, 1, 1);
    ok (r.ec[0].upto == 8 && r.ec[0].below == 0,
        "an end before it takes from both");
    ok (r.ec[1].upto == 0 && r.ec[1].below == 0, "nothing counted in nodes");
    is_int (ns_hresv_again (&r, 0, 5, 0, &be), 4,
            "found again: four entries end by 20 (one ended)");
    ns_hresv_keep (&r, 0, 5, 0, &be);
    ok (!r.ec[0].ok, "a count of 0 is not kept");
    /* lower bound of the shadow time */
    ok (ns_hresv_shadow_bound (&r, &be, 8, 8, 5) == 5, "enough free: now");
    ok (ns_hresv_shadow_bound (&r, &be, 0, 5, 5) == 20,
        "5 cores: at 20 (4 + 3 + 1)");
    ok (ns_hresv_shadow_bound (&r, &be, 0, 8, 25) == 25,
        "a time past: now");
    ok (ns_hresv_shadow_bound (&r, &be, 0, 16, 5) == 30, "16: at 30");
    ok (isinf (ns_hresv_shadow_bound (&r, &be, 0, 100, 5)),
        "more than ever free: never");
    ns_byend_free (&be);
    ns_hresv_free (&r);
}

static void room (void)
{
    ns_error_t err;
    ns_cluster_t *c = ns_cluster_create (4, 8, 1, &err);
    ns_hresv_t r;
    ns_hresv_init (&r, 4);
    ns_hresv_new_marks (&r);
    ns_hresv_mark (&r, 1);
    is_int (ns_hresv_outside_room (&r, c, 7), 24,
            "3 empty nodes of 8 outside the marks: 24");
    r.oroom = 99;
    is_int (ns_hresv_outside_room (&r, c, 7), 99, "cached per version");
    ns_hresv_beside (&r, 7, 8, 4);
    ok (r.oroom == 95 && r.oroom_version == 8 && r.resv_version == 8,
        "a start beside: 4 cores fewer, the reservation kept");
    ns_hresv_beside (&r, 3, 9, 4);
    ok (r.oroom == 95 && r.oroom_version == 8 && r.resv_version == 9,
        "from a version the room was not counted at: not lowered");
    is_int (ns_hresv_outside_room (&r, c, 9), 24, "counted anew");
    ns_hresv_new_marks (&r);
    is_int (ns_hresv_outside_room (&r, c, 9), 32, "new marks: counted anew");
    ns_hresv_free (&r);
    ns_cluster_destroy (c);
}

/* The bound kept where it was counted (ec[2]) against the bound counted
 * anew, as random jobs start and end: 64 cores, ends on a coarse grid so
 * that jobs end together. */
static void bound_kept (void)
{
    enum { TOTAL = 64, STEPS = 4000, MAXRUN = 200 };
    ns_hresv_t r, fresh;
    ns_byend_t be = { 0 };
    ns_hresv_init (&r, 4);
    ns_share_t sh = { .node = 0, .cores = 1 };
    double end[MAXRUN];
    int cores[MAXRUN], n = 0, next_id = 0, id[MAXRUN];
    int64_t have = TOTAL;
    unsigned seed = 7;
    int asked = 0, same = 0, kept = 0;
    for (int step = 0; step < STEPS; step++) {
        seed = seed * 1103515245u + 12345u;
        unsigned x = seed >> 8;
        double now = step;
        if ((x & 1) && have > 0 && n < MAXRUN) {
            int c = 1 + (int)(x >> 1) % (int)(have < 9 ? have : 9);
            end[n] = now + 10.0 * (1 + (x >> 5) % 30);
            cores[n] = c;
            id[n] = next_id++;
            ns_hresv_job (&r, 0, end[n], c, &sh, 1, 0);
            ns_byend_insert (&be, id[n], end[n], 1, c);
            have -= c;
            n++;
        }
        else if (n > 0) {
            int i = (int)(x >> 1) % n;
            ns_byend_remove (&be, id[i], end[i]);
            ns_hresv_job (&r, 0, end[i], cores[i], &sh, 1, 1);
            have += cores[i];
            end[i] = end[n - 1];
            cores[i] = cores[n - 1];
            id[i] = id[n - 1];
            n--;
        }
        /* the head's need, a new head every 16 steps */
        int64_t need = 1 + (int64_t)((step / 16 * 2654435761u) >> 7) % TOTAL;
        const struct ns_hresv_count *ec = &r.ec[2];
        int hit = ec->ok && ec->need == need && have + ec->below < need
                  && have + ec->upto >= need;
        double b = ns_hresv_shadow_bound (&r, &be, have, need, now);
        ns_hresv_init (&fresh, 4);
        double a = ns_hresv_shadow_bound (&fresh, &be, have, need, now);
        ns_hresv_free (&fresh);
        asked++;
        same += a == b || (isinf (a) && isinf (b));
        kept += hit;
    }
    is_int (same, asked, "the bound kept is the bound counted anew "
            "(%d of %d asked)", same, asked);
    ok (kept >= asked / 4, "%d of them found where it was counted", kept);
    ns_byend_free (&be);
    ns_hresv_free (&r);
}

int main (void)
{
    plan_no_plan ();
    begin_and_marks ();
    counts ();
    bound_kept ();
    room ();
    return done_testing ();
}
