/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jobmemo.c - the select plugin's per-job memory (select/jobmemo.h) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jobmemo.h"
#include "nsutil.h"
#include "tap.h"

/* Every id in [lo, hi) present with its own entry, none outside. */
static int all_present (ns_jobmemo_t *m, uint32_t lo, uint32_t hi)
{
    for (uint32_t id = lo; id < hi; id++) {
        ns_jobinfo_t *e = ns_jobmemo_find (m, id);
        if (!e || e->job_id != id)
            return 0;
    }
    return 1;
}

static void test_basics (void)
{
    ns_jobmemo_t *m = ns_jobmemo_create ();
    ok (m != NULL, "ns_jobmemo_create");
    is_int (ns_jobmemo_count (m), 0, "a new memo is empty");
    errno = 0;
    ok (ns_jobmemo_find (m, 7) == NULL && errno == ENOENT,
        "find of an absent job fails with ENOENT");
    errno = 0;
    ok (ns_jobmemo_get (m, 0) == NULL && errno == EINVAL,
        "get of job id 0 fails with EINVAL");
    errno = 0;
    ok (ns_jobmemo_get (NULL, 3) == NULL && errno == EINVAL,
        "get on a NULL memo fails with EINVAL");

    ns_jobinfo_t *e = ns_jobmemo_get (m, 7);
    ok (e && e->job_id == 7 && !e->resolved && !e->applied && !e->logged,
        "get adds a zeroed entry with its job id");
    strcpy (e->program, "LAM");
    e->resolved = 1;
    ns_jobinfo_t *f = ns_jobmemo_get (m, 7);
    ok (f == e && !strcmp (f->program, "LAM"), "get returns the same entry");
    is_int (ns_jobmemo_count (m), 1, "count 1");

    ns_jobmemo_forget_programs (m);
    ok (!e->resolved && e->program[0] == '\0',
        "forget_programs clears resolved programs");

    is_int (ns_jobmemo_remove (m, 7), 0, "remove a present job");
    errno = 0;
    ok (ns_jobmemo_remove (m, 7) < 0 && errno == ENOENT,
        "remove it again fails with ENOENT");
    is_int (ns_jobmemo_count (m), 0, "count back to 0");
    ns_jobmemo_destroy (m);
    ns_jobmemo_destroy (NULL);
    ok (1, "destroy accepts NULL");
}

/* Growth and backward-shift deletion keep every other entry findable,
 * including ids that collide into long probe runs. */
static void test_many (void)
{
    ns_jobmemo_t *m = ns_jobmemo_create ();
    int okay = 1;
    for (uint32_t id = 1; id <= 5000; id++) {
        ns_jobinfo_t *e = ns_jobmemo_get (m, id);
        if (!e)
            okay = 0;
        else
            e->set_min_nodes = id;
    }
    ok (okay && ns_jobmemo_count (m) == 5000, "5000 jobs added");
    ok (all_present (m, 1, 5001), "all 5000 found after growth");
    okay = 1;
    for (uint32_t id = 1; id <= 5000; id++)
        if (ns_jobmemo_find (m, id)->set_min_nodes != id)
            okay = 0;
    ok (okay, "growth keeps each entry's data");

    for (uint32_t id = 2; id <= 5000; id += 2)
        ns_jobmemo_remove (m, id);
    okay = ns_jobmemo_count (m) == 2500;
    for (uint32_t id = 1; id <= 5000; id++)
        if ((ns_jobmemo_find (m, id) != NULL) != (id % 2 == 1))
            okay = 0;
    ok (okay, "removing the even ids leaves exactly the odd ones");

    /* Ids that share low bits: stress one probe run. */
    for (uint32_t k = 1; k <= 200; k++)
        ns_jobmemo_get (m, k << 20);
    for (uint32_t k = 1; k <= 200; k += 3)
        ns_jobmemo_remove (m, k << 20);
    okay = 1;
    for (uint32_t k = 1; k <= 200; k++)
        if ((ns_jobmemo_find (m, k << 20) != NULL) != ((k - 1) % 3 != 0))
            okay = 0;
    ok (okay, "colliding ids survive deletions in their probe run");
    ns_jobmemo_destroy (m);
}

static void test_sweep (void)
{
    ns_jobmemo_t *m = ns_jobmemo_create ();
    for (uint32_t id = 1; id <= 1000; id++)
        ns_jobmemo_get (m, id)->gen = id % 10 == 0 ? 2 : 1;
    is_int (ns_jobmemo_sweep (m, 2), 900,
            "sweep removes the 900 entries of an older generation");
    is_int (ns_jobmemo_count (m), 100, "100 left");
    int okay = 1;
    for (uint32_t id = 1; id <= 1000; id++)
        if ((ns_jobmemo_find (m, id) != NULL) != (id % 10 == 0))
            okay = 0;
    ok (okay, "exactly the current generation is left");
    is_int (ns_jobmemo_sweep (m, 2), 0, "a second sweep removes nothing");
    is_int (ns_jobmemo_sweep (m, 3), 100, "a newer generation removes all");
    is_int (ns_jobmemo_count (m), 0, "empty");
    ns_jobmemo_destroy (m);
}

static void test_hash (void)
{
    ok (ns_fnv1a_str ("a") != ns_fnv1a_str ("b"), "hash differs");
    ok (ns_fnv1a_str ("") != 0 && ns_fnv1a_str (NULL) != 0,
        "hash is never 0 (0 means nothing logged)");
    is_int ((long long)(ns_fnv1a_str ("job 1: nodes 0,1")
                        == ns_fnv1a_str ("job 1: nodes 0,1")), 1,
            "hash is deterministic");
    ok (ns_fnv1a_str ("a") == 0xaf63dc4c8601ec8cULL,
        "FNV-1a 64 of \"a\" is the published 0xaf63dc4c8601ec8c");
    ok (ns_fnv1a_u64 (NS_FNV1A_INIT, 0x61) == ns_fnv1a (NS_FNV1A_INIT,
                                                          "a\0\0\0\0\0\0\0", 8),
        "a 64-bit word hashes as its bytes, least significant first");
}

int main (void)
{
    plan_no_plan ();
    test_basics ();
    test_many ();
    test_sweep ();
    test_hash ();
    return done_testing ();
}
