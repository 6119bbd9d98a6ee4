/* SPDX-License-Identifier: GPL-2.0-or-later */
/* progress.t - the progress line (sim/progress.c): done and running
 * counted apart (a failed replay is neither), shares rounded, the trailing
 * comma dropped, a long line cut with "..." at exactly the width. */
#include <string.h>

#include "progress.h"
#include "tap.h"

int main (void)
{
    plan_no_plan ();
    char buf[512];
    ns_progress_item_t it[4] = {
        { "pack", 0, 1, 10, 10 },
        { "twins", 1, 0, 45, 100 },
        { "mixed", 1, 0, 1, 3 },
        { "spread", 0, 0, 0, 0 },       /* failed: neither */
    };
    int n = ns_progress_line (buf, sizeof (buf), 79, it, 4);
    is_str (buf, "1/4 done; running: twins 45%, mixed 33%",
            "two running, one done, one failed");
    is_int (n, (long long)strlen (buf), "  its length returned");
    it[1].running = it[2].running = 0;
    ok (ns_progress_line (buf, sizeof (buf), 79, it, 4) < 0,
        "none running: no line");
    ns_progress_item_t z = { "x", 1, 0, 0, 0 };
    ns_progress_line (buf, sizeof (buf), 79, &z, 1);
    is_str (buf, "0/1 done; running: x 0%", "no total yet: 0%%");
    ns_progress_item_t many[12];
    for (int i = 0; i < 12; i++)
        many[i] = (ns_progress_item_t){ "min-slowdown@0.95", 1, 0, 1, 2 };
    n = ns_progress_line (buf, sizeof (buf), 79, many, 12);
    ok (n == 79 && strlen (buf) == 79 && strcmp (buf + 76, "...") == 0,
        "a long line: 79 columns ending in ...");
    ok (ns_progress_line (buf, 10, 79, many, 12) < 0,
        "a buffer smaller than the width: refused");
    return done_testing ();
}
