/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare.t - host lists, co-tenants at start, shapes (sim/compare.c) */
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "tap.h"

/* The host list's nodes in natural order, "a,b,c", or the error text. */
static const char *parse (const char *s)
{
    static char out[512];
    int nodes[16], to[16];
    ns_error_t err;
    ns_nodenames_t *t = ns_nodenames_create ();
    int n = ns_nodelist_names (s, t, 0, nodes, 16, &err);
    if (n < 0) {
        snprintf (out, sizeof (out), "%s", err.text);
        ns_nodenames_destroy (t);
        return out;
    }
    ns_nodenames_sort (t, to);
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < ns_nodenames_count (t); i++)
        len += snprintf (out + len, sizeof (out) - len, "%s%s", i ? "," : "",
                         ns_nodenames_name (t, i));
    ns_nodenames_destroy (t);
    return out;
}

static void hostlists (void)
{
    is_str (parse ("ns1"), "ns1", "ns1");
    is_str (parse ("ns[1-2]"), "ns1,ns2", "ns[1-2]");
    is_str (parse ("ns[3-4,1]"), "ns1,ns3,ns4", "ns[3-4,1] sorted");
    is_str (parse ("ns[9-11],ns7"), "ns7,ns9,ns10,ns11",
            "natural order: ns9 before ns10");
    is_str (parse ("ns2,ns2"), "ns2", "duplicates removed");
    is_str (parse ("ns[01-03]"), "ns01,ns02,ns03", "zero-padded numbers");
    is_str (parse ("ns[2-1]"), "host list 'ns[2-1]': expected a number >= 2 "
            "at 6", "a reversed range");
    is_str (parse ("login,ns0"), "login,ns0", "names without numbers, 0");
    is_str (parse ("ns[1-2"), "host list 'ns[1-2': unbalanced '[' before 7",
            "an open bracket");
    is_str (parse ("ns[1-20]"), "host list 'ns[1-20]': more than 16 nodes",
            "more nodes than room");
    is_str (parse ("ns1,"), "host list 'ns1,': empty name",
            "a trailing comma");
    is_str (parse (""), "empty host list", "empty");
    is_str (parse ("ns[1-2],ns[2-3]"), "ns1,ns2,ns3", "overlapping ranges");
    is_str (parse ("gpu01,cn001"), "cn001,gpu01",
            "gpu01 and cn001: two nodes");
    ok (ns_nodename_cmp ("ns2", "ns10") < 0 && ns_nodename_cmp ("ns10", "ns2")
        > 0 && ns_nodename_cmp ("a1b2", "a1b2") == 0
        && ns_nodename_cmp ("ns1", "ns01") < 0
        && ns_nodename_cmp ("ns", "ns1") < 0
        && ns_nodename_cmp ("cn9", "gpu1") < 0,
        "natural order: by value in digits, by byte elsewhere");
}

/* Whole names: "i,j" in the table t, or the error text. */
static const char *whole (ns_nodenames_t *t, int fixed, const char *s)
{
    static char out[512];
    int nodes[16];
    ns_error_t err;
    int n = ns_nodelist_names (s, t, fixed, nodes, 16, &err);
    if (n < 0) {
        snprintf (out, sizeof (out), "%s", err.text);
        return out;
    }
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++)
        len += snprintf (out + len, sizeof (out) - len, "%s%d", i ? "," : "",
                         nodes[i]);
    return out;
}

static void wholenames (void)
{
    ns_nodenames_t *t = ns_nodenames_create ();
    is_str (whole (t, 0, "gpu01,cn001"), "0,1", "gpu01 and cn001: two "
            "nodes (issue 30)");
    is_str (whole (t, 0, "cn[001-002]"), "1,2", "cn001 again, cn002 new");
    is_str (whole (t, 0, "cn1"), "3", "cn1 is not cn001");
    is_str (whole (t, 1, "gpu01,cn002"), "0,2", "fixed: known names");
    is_str (whole (t, 1, "gpu02"), "host list 'gpu02': node 'gpu02' is not "
            "a node of the machine", "fixed: an unknown name refused");
    is_int (ns_nodenames_count (t), 4, "four names");
    is_str (ns_nodenames_name (t, 3), "cn1", "names kept in order");
    ok (ns_nodenames_name (t, 4) == NULL, "no name past the count");
    /* the table grows past its first slots */
    char name[32];
    int bad = 0;
    for (int i = 0; i < 5000; i++) {
        snprintf (name, sizeof (name), "n%05d", i);
        bad += ns_nodenames_add (t, name) != 4 + i;
    }
    for (int i = 0; i < 5000; i++) {
        snprintf (name, sizeof (name), "n%05d", i);
        bad += ns_nodenames_find (t, name) != 4 + i;
    }
    is_int (bad, 0, "5000 names added and found again");
    is_int (ns_nodenames_find (t, "n5000"), -1, "an absent name");
    ns_nodenames_destroy (t);
}

static const char *cot (const ns_cotenants_t *ct, int i)
{
    static char buf[256];
    ns_cotenants_format (ct, i, NULL, "+", buf, sizeof (buf));
    return buf;
}

/* programs as numbers: formatted with progs NULL they print "?" each, so
 * count them and compare the ids directly */
static void cotenants (void)
{
    ns_share_t a[] = { { 0, 12 }, { 1, 12 } };     /* nodes 0+1 */
    ns_share_t b[] = { { 2, 12 }, { 3, 12 } };     /* nodes 2+3 */
    ns_share_t c[] = { { 1, 4 } };                 /* node 1 */
    ns_share_t d[] = { { 3, 2 } };                 /* node 3 */
    ns_placed_t jobs[] = {
        { .start = 0, .end = 100, .program = 0, .nshares = 2, .shares = a },
        { .start = 10, .end = 50, .program = 1, .nshares = 2, .shares = b },
        { .start = 20, .end = 80, .program = 2, .nshares = 2, .shares = a },
        { .start = 50, .end = 60, .program = 0, .nshares = 1, .shares = d },
        { .start = 50, .end = 90, .program = 2, .nshares = 1, .shares = c },
        { .start = -1, .end = -1, .program = 1, .nshares = 0, .shares = NULL },
        { .start = 100, .end = 100, .program = 1, .nshares = 1, .shares = c },
        { .start = 95, .end = 99, .program = 2, .nshares = 1, .shares = c },
    };
    int n = sizeof (jobs) / sizeof (jobs[0]);
    ns_cotenants_t ct;
    ns_error_t err;
    if (!ok (ns_cotenants_compute (jobs, n, 4, &ct, &err) == 0,
             "co-tenants computed"))
        return;
#define COUNT(i) (ct.first[(i) + 1] - ct.first[i])
#define PROG(i, k) (ct.prog[ct.first[i] + (k)])
    is_int (COUNT (0), 0, "job 0 starts alone");
    is_int (COUNT (1), 0, "job 1 starts alone on 2+3");
    ok (COUNT (2) == 1 && PROG (2, 0) == 0, "job 2 joins program 0 on 0+1");
    /* job 1 ends at 50 as job 3 starts on node 3: it has left */
    is_int (COUNT (3), 0, "job 3 starts on node 3 as job 1 ends there: alone");
    ok (COUNT (4) == 2 && PROG (4, 0) == 0 && PROG (4, 1) == 2,
        "job 4 on node 1: programs 0 and 2 (sorted, each once)");
    is_int (COUNT (5), 0, "a job that never ran has none");
    /* at 95 on node 1: job 0 (0-100) */
    ok (COUNT (7) == 1 && PROG (7, 0) == 0, "job 7 at 95 next to job 0");
    /* at 100: job 0 ended at 100, job 7 at 99 */
    is_int (COUNT (6), 0, "job 6 starts at 100 when job 0 ends: alone");
    is_str (cot (&ct, 4), "?+?", "format without a program table");
    is_str (cot (&ct, 0), "", "format of none");
    ok (ns_cotenants_equal (&ct, 2, &ct, 7), "equal: jobs 2 and 7 (program 0)");
    ok (!ns_cotenants_equal (&ct, 2, &ct, 4), "not equal: jobs 2 and 4");
    ok (ns_cotenants_equal (&ct, 0, &ct, 1), "equal: none and none");
    ns_cotenants_free (&ct);

    ns_share_t bad[] = { { 4, 1 } };
    ns_placed_t outside[] = {
        { .start = 0, .end = 1, .program = 0, .nshares = 1, .shares = bad },
    };
    ok (ns_cotenants_compute (outside, 1, 4, &ct, &err) < 0
        && strstr (err.text, "node index 4, outside the 4 nodes"),
        "a node outside the machine is an error: %s", err.text);
}

static void shapes (void)
{
    char buf[64];
    ns_share_t even[] = { { 0, 12 }, { 3, 12 } };
    ns_share_t uneven[] = { { 0, 4 }, { 1, 20 } };
    ns_shape_format (even, 2, buf, sizeof (buf));
    is_str (buf, "2x12", "even shape");
    ns_shape_format (uneven, 2, buf, sizeof (buf));
    is_str (buf, "20+4", "uneven shape, largest first");
    ns_shape_format (NULL, 0, buf, sizeof (buf));
    is_str (buf, "-", "no shape");
}

int main (void)
{
    plan_no_plan ();
    hostlists ();
    wholenames ();
    cotenants ();
    shapes ();
    return done_testing ();
}
