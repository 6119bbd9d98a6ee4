/* SPDX-License-Identifier: GPL-2.0-or-later */
/* machsize.t - the machine a trace replays on (sim/machsize.c): from the
 * SWF header with and without --nodes/--cores, the header's traps
 * (MaxProcs not a multiple of MaxNodes, nothing said), a slurm.conf's
 * CPUs or cores, and the jobs it would give all of their nodes' memory. */
#include <string.h>

#include "machsize.h"
#include "slurmconf_test.h"
#include "tap.h"

static struct ns_trace_header hdr (int64_t mn, int64_t mp)
{
    struct ns_trace_header h;
    memset (&h, 0, sizeof (h));
    h.max_nodes = mn;
    h.max_procs = mp;
    return h;
}

int main (void)
{
    plan_no_plan ();
    ns_machsize_t ms;
    ns_error_t err;
    struct ns_trace_header h = hdr (100, 800);
    ok (ns_machsize_header (&h, 0, 0, "t.swf", &ms, &err) == 0
        && ms.nodes == 100 && ms.cores == 8 && ms.total_cores == 800,
        "MaxNodes 100, MaxProcs 800: 100 x 8");
    ok (ns_machsize_header (&h, 25, 0, "t.swf", &ms, &err) == 0
        && ms.nodes == 25 && ms.cores == 8,
        "  --nodes 25: the header's cores per node kept");
    ok (ns_machsize_header (&h, 0, 4, "t.swf", &ms, &err) == 0
        && ms.nodes == 100 && ms.cores == 4,
        "  --cores 4: MaxNodes nodes (not MaxProcs / 4)");
    h = hdr (-1, 128);
    ok (ns_machsize_header (&h, 0, 1, "t.swf", &ms, &err) == 0
        && ms.nodes == 128 && ms.total_cores == 128,
        "no MaxNodes, --cores 1: MaxProcs nodes");
    h = hdr (3, 10);
    ok (ns_machsize_header (&h, 0, 0, "t.swf", &ms, &err) < 0
        && strstr (err.text, "MaxNodes 3 and MaxProcs 10"),
        "MaxProcs 10 over 3 nodes: refused: %s", err.text);
    h = hdr (-1, -1);
    ok (ns_machsize_header (&h, 0, 0, "t.swf", &ms, &err) < 0
        && strstr (err.text, "t.swf: the header does not say the machine"),
        "nothing said: give --nodes and --cores");
    ok (ns_machsize_header (&h, 4, 0, "t.swf", &ms, &err) < 0
        && strstr (err.text, "MaxProcs): give --cores C")
        && !strstr (err.text, "--nodes"),
        "  --nodes alone: give --cores: %s", err.text);
    ok (ns_machsize_header (&h, 0, 8, "t.swf", &ms, &err) < 0
        && strstr (err.text, "how many nodes"),
        "  --cores alone: give --nodes");
    h = hdr (2000000, 2000000);
    ok (ns_machsize_header (&h, 0, 0, "t.swf", &ms, &err) < 0
        && strstr (err.text, "header gives 2000000 nodes"),
        "over a million nodes: refused");

    const char *conf = "SelectTypeParameters=CR_Core_Memory\n"
                       "NodeName=a[1-2] Sockets=2 CoresPerSocket=4 "
                       "ThreadsPerCore=2 RealMemory=1000\n"
                       "NodeName=b CPUs=4 RealMemory=1000\n"
                       "PartitionName=p Nodes=a[1-2] Default=YES\n"
                       "PartitionName=q Nodes=b DefMemPerCPU=100\n";
    ns_sconf_t *m = ns_sconf_parse (conf, strlen (conf), "t.conf", NULL,
                                    &err);
    ok (m != NULL, "a slurm.conf of three nodes: %s", m ? "" : err.text);
    if (!m)
        return done_testing ();
    ns_machsize_sconf (m, &ms);
    ok (ms.nodes == 3 && ms.cores == 8 && ms.total_cores == 20,
        "cores counted (CR_Core): 3 nodes, at most 8, 20 in all");
    ns_simjob_t jobs[3];
    memset (jobs, 0, sizeof (jobs));
    jobs[0].partition = 1;          /* p: no default memory */
    jobs[1].partition = 2;          /* q: DefMemPerCPU */
    jobs[2].partition = 0;          /* the default: p */
    const char *first = NULL;
    is_int (ns_machsize_all_memory_jobs (m, jobs, 3, &first), 2,
            "all-memory jobs: the two in p (one by default)");
    is_str (first, "p", "  the first's partition");
    jobs[0].mem_per_node = 10;
    is_int (ns_machsize_all_memory_jobs (m, jobs, 3, &first), 1,
            "  a job that asks for memory is not one");
    ns_sconf_free (m);
    return done_testing ();
}
