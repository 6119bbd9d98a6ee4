/* SPDX-License-Identifier: GPL-2.0-or-later */
/* progtab.t - program name interning */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "progtab.h"
#include "tap.h"

int main (void)
{
    plan_no_plan ();
    ns_progtab_t *t = ns_progtab_create ();
    ns_error_t err;
    ok (t != NULL, "create");
    is_int (ns_progtab_intern (t, "ABQ", &err), 0, "first name gets id 0");
    is_int (ns_progtab_intern (t, "LAM", &err), 1, "second name gets id 1");
    is_int (ns_progtab_intern (t, "ABQ", &err), 0, "interning again is stable");
    is_int (ns_progtab_lookup (t, "LAM"), 1, "lookup finds LAM");
    is_int (ns_progtab_lookup (t, "LSD"), NS_PROGRAM_UNKNOWN,
            "lookup of a stranger is unknown");
    is_str (ns_progtab_name (t, 1), "LAM", "name of id 1");
    is_str (ns_progtab_name (t, 7), "?", "name of unused id");
    is_int (ns_progtab_intern (t, "", &err), -1, "empty name rejected");
    is_int (errno, EINVAL, "errno EINVAL");
    is_str (err.text, "program name is empty", "error text");
    char longname[200];
    memset (longname, 'x', sizeof (longname) - 1);
    longname[sizeof (longname) - 1] = '\0';
    is_int (ns_progtab_intern (t, longname, &err), -1, "long name rejected");

    /* Grow well past the initial 64 slots: ids stay dense and findable. */
    char name[32];
    int bad = 0;
    for (int i = 0; i < 5000; i++) {
        snprintf (name, sizeof (name), "prog%d", i);
        if (ns_progtab_intern (t, name, &err) != i + 2)
            bad++;
    }
    is_int (bad, 0, "5000 names get ids 2..5001");
    int miss = 0;
    for (int i = 0; i < 5000; i++) {
        snprintf (name, sizeof (name), "prog%d", i);
        if (ns_progtab_lookup (t, name) != i + 2)
            miss++;
    }
    is_int (miss, 0, "all 5000 found after growth");
    is_int (ns_progtab_count (t), 5002, "count");

    ns_progtab_t *c = ns_progtab_copy (t);
    is_int (ns_progtab_lookup (c, "prog4999"), 5001, "copy keeps ids");
    is_int (ns_progtab_intern (c, "new", &err), 5002, "copy grows apart");
    is_int (ns_progtab_lookup (t, "new"), NS_PROGRAM_UNKNOWN,
            "original unchanged by the copy");
    ns_progtab_destroy (c);
    ns_progtab_destroy (t);
    return done_testing ();
}
