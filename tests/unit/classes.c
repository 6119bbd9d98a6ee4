/* SPDX-License-Identifier: GPL-2.0-or-later */
/* classes.t - classes for programs the configuration does not name
 * (sim/classes.c): drawn by weight (a weight of 0 is never drawn), the
 * same for the same seed, nothing without a positive weight, configured
 * programs untouched. */
#include "classes.h"
#include "tap.h"

#define N 1000

static ns_interf_t *model (double w0, double w1, double w2)
{
    ns_interf_t *m = ns_interf_create ();
    ns_interf_set_weight (m, 0, w0, NULL);
    ns_interf_set_weight (m, 1, w1, NULL);
    ns_interf_set_weight (m, 2, w2, NULL);
    return m;
}

int main (void)
{
    plan_no_plan ();
    ns_interf_t *m = model (1, 0, 3);
    ns_classes_assign (m, 3, 3 + N, 42);
    int n[3] = { 0 }, bad = 0;
    for (int p = 3; p < 3 + N; p++) {
        int c = ns_interf_class (m, p);
        if (c < 0 || c > 2)
            bad++;
        else
            n[c]++;
    }
    is_int (bad, 0, "every unnamed program gets a class");
    is_int (n[1], 0, "  never one of weight 0");
    ok (n[2] > 2 * n[0] && n[0] > 150,
        "  weight 3 drawn about three times as often as 1 (%d, %d)", n[2],
        n[0]);
    ok (ns_interf_class (m, 0) == 0,
        "  a configured program keeps its own figures");
    ns_interf_t *again = model (1, 0, 3);
    ns_classes_assign (again, 3, 3 + N, 42);
    int same = 1;
    for (int p = 3; p < 3 + N; p++)
        same &= ns_interf_class (m, p) == ns_interf_class (again, p);
    ok (same, "the same seed: the same classes");
    ns_interf_destroy (again);
    again = model (1, 0, 3);
    ns_classes_assign (again, 3, 3 + N, 43);
    int differ = 0;
    for (int p = 3; p < 3 + N; p++)
        differ += ns_interf_class (m, p) != ns_interf_class (again, p);
    ok (differ > 0, "another seed: other classes (%d differ)", differ);
    ns_interf_destroy (again);
    ns_interf_destroy (m);

    m = model (0, 0, 0);
    ns_classes_assign (m, 3, 10, 1);
    ok (ns_interf_class (m, 5) == 5,
        "no positive weight: no class given");
    ns_interf_destroy (m);
    return done_testing ();
}
