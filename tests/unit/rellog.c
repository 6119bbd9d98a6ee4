/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rellog.t - sim/rellog.c: releases numbered from 0 over the whole run,
 * read back in order since a given release; exactly NS_RELLOG_KEEP
 * releases back can be read, one more cannot; what can be read survives
 * the log's growth and compaction.
 */
#include <stdio.h>

#include "rellog.h"
#include "tap.h"

static void basics (void)
{
    ns_rellog_t l = { 0 };
    ns_share_t sh[3] = { { .node = 7 }, { .node = 2 }, { .node = 9 } };
    const int *r;
    is_int (ns_rellog_since (&l, 0, &r), 0, "empty: nothing since 0");
    ok (ns_rellog_add (&l, sh, 3) == 0, "three nodes released");
    is_int (ns_rellog_count (&l), 3, "three releases");
    int n = ns_rellog_since (&l, 1, &r);
    ok (n == 2 && r[0] == 2 && r[1] == 9,
        "since release 1: nodes 2 and 9, in order");
    is_int (ns_rellog_since (&l, 3, &r), 0, "since now: none");
    is_int (ns_rellog_since (&l, -40, &r), -1,
            "more than NS_RELLOG_KEEP back: -1");
    ns_rellog_free (&l);
    ok (l.node == NULL && l.n == 0, "freed and empty");
}

/* Many releases: the last NS_RELLOG_KEEP always read back right. */
static void growth (void)
{
    ns_rellog_t l = { 0 };
    int bad = 0;
    for (int k = 0; k < 20000; k++) {
        ns_share_t sh[5];
        int m = 1 + k % 5;
        int64_t base = ns_rellog_count (&l);
        for (int i = 0; i < m; i++)
            sh[i].node = (int)((base + i) % 1000);
        if (ns_rellog_add (&l, sh, m) < 0)
            bad++;
        const int *r;
        int64_t from = ns_rellog_count (&l) - NS_RELLOG_KEEP;
        if (from < 0)
            from = 0;
        int n = ns_rellog_since (&l, from, &r);
        if (n != (int)(ns_rellog_count (&l) - from))
            bad++;
        else
            for (int i = 0; i < n; i++)
                if (r[i] != (int)((from + i) % 1000))
                    bad++;
        if (ns_rellog_count (&l) > NS_RELLOG_KEEP
            && ns_rellog_since (&l, ns_rellog_count (&l) - NS_RELLOG_KEEP - 1,
                                &r) != -1)
            bad++;
    }
    ok (bad == 0, "20000 ends: the last %d releases read back in order, "
        "one more refused", NS_RELLOG_KEEP);
    ok (l.cap <= 8192, "the log stays small (%lld slots)", (long long)l.cap);
    ns_rellog_free (&l);
}

int main (void)
{
    plan_no_plan ();
    basics ();
    growth ();
    return done_testing ();
}
