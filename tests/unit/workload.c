/* SPDX-License-Identifier: GPL-2.0-or-later */
/* workload.t - a trace job's program and its simulated job
 * (sim/workload.c) */
#include <string.h>

#include "tap.h"
#include "workload.h"

static ns_tjob_t job (const char *program, int exe, int uid)
{
    ns_tjob_t j;
    memset (&j, 0, sizeof (j));
    snprintf (j.program, sizeof (j.program), "%s", program);
    j.exe = exe;
    j.uid = uid;
    return j;
}

/* The program's name, "?" for NS_PROGRAM_UNKNOWN. */
static const char *prog (const ns_identity_t *id, ns_progtab_t *t,
                         ns_tjob_t j)
{
    int p = ns_workload_program (id, t, &j);
    return p == NS_PROGRAM_UNKNOWN ? "?" : ns_progtab_name (t, p);
}

static void programs (void)
{
    ns_progtab_t *t = ns_progtab_create ();
    ns_identity_t *id = ns_identity_create ();
    ns_error_t err;
    ok (t && id && ns_identity_add_pattern (id, "lmp_*", "LAMMPS", &err) == 0,
        "a table and a pattern lmp_* -> LAMMPS");
    is_str (prog (NULL, t, job ("lmp_mpi", 3, 7)), "lmp_mpi",
            "a name comes first");
    is_str (prog (id, t, job ("lmp_mpi", 3, 7)), "LAMMPS",
            "  mapped through the identity rules");
    is_str (prog (id, t, job ("", 3, 7)), "exe3",
            "no name: the SWF executable number");
    is_str (prog (id, t, job ("", -1, 7)), "user7",
            "no name or executable: the user");
    is_str (prog (id, t, job ("", -1, -1)), "?",
            "none of them: unknown");
    is_int (ns_workload_program (id, t, &(ns_tjob_t){ .exe = 3, .uid = -1 }),
            ns_workload_program (id, t, &(ns_tjob_t){ .exe = 3, .uid = 9 }),
            "two jobs of one executable: one program");
    ns_tjob_t big = job ("", -1, -1);
    memset (big.program, 'x', sizeof (big.program) - 1);
    ok (ns_workload_program (NULL, t, &big) >= 0,
        "a name of %zu characters is taken", sizeof (big.program) - 1);
    ns_identity_destroy (id);
    ns_progtab_destroy (t);
}

/* The memo gives ns_workload_program ()'s answers: jobs of 600 users and
 * 600 executables (more than its slots, so numbers share slots), some
 * named, some of neither, in an order that comes back to each. */
static void memo (void)
{
    ns_progtab_t *t = ns_progtab_create (), *u = ns_progtab_create ();
    ns_identity_t *id = ns_identity_create ();
    ns_error_t err;
    ok (t && u && id
        && ns_identity_add_pattern (id, "user1*", "ONES", &err) == 0,
        "two tables and a pattern user1* -> ONES");
    ns_workload_memo_t m;
    ns_workload_memo_init (&m);
    int differ = 0, hits = 0, n = 0;
    for (int k = 0; k < 20000; k++) {
        int x = (int)((unsigned)k * 7919u % 1200u);
        ns_tjob_t j = job (k % 97 == 0 ? "named" : "", x < 600 ? x : -1,
                           k % 89 == 0 ? -1 : x % 600);
        int a = ns_workload_program_memo (&m, id, t, &j);
        int b = ns_workload_program (id, u, &j);
        const char *na = a < 0 ? "?" : ns_progtab_name (t, a);
        const char *nb = b < 0 ? "?" : ns_progtab_name (u, b);
        if (strcmp (na, nb) != 0 && differ++ == 0)
            diag ("job %d: memo %s, direct %s", k, na, nb);
        hits += a >= 0;
        n++;
    }
    is_int (differ, 0, "%d jobs: the memo's program is the direct one's", n);
    ok (hits > n / 2, "  most of them have a program (%d)", hits);
    is_str (prog (id, t, job ("", -1, 15)), "ONES",
            "  user15 mapped through the rules");
    ns_identity_destroy (id);
    ns_progtab_destroy (t);
    ns_progtab_destroy (u);
}

static void simjobs (void)
{
    ns_tjob_t j = job ("a", -1, -1);
    j.id = 42;
    j.submit = 100;
    j.run = 60;
    j.req_time = 120;
    j.procs = 24;
    j.wait = 5;
    j.mem_per_cpu = 2048;
    j.mem_per_node = 0;
    snprintf (j.part_name, sizeof (j.part_name), "debug,other");
    ns_simjob_t s = ns_workload_simjob (&j, 3);
    ok (s.id == 42 && s.submit == 100 && s.runtime == 60 && s.req_time == 120
        && s.ntasks == 24 && s.program == 3 && s.recorded_wait == 5
        && s.mem_per_cpu == 2048 && s.mem_per_node == 0 && s.partition == 0,
        "every field of the simulated job (partition left to the caller)");
    char name[16];
    ns_workload_partition (&j, name, sizeof (name));
    is_str (name, "debug", "several partitions: the first");
    j.part_name[0] = '\0';
    ns_workload_partition (&j, name, sizeof (name));
    is_str (name, "", "none: empty");
}

int main (void)
{
    plan_no_plan ();
    programs ();
    memo ();
    simjobs ();
    return done_testing ();
}
