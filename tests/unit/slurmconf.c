/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slurmconf.t - the machine of a slurm.conf (sim/slurmconf.h) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slurmconf.h"
#include "slurmconf_test.h"
#include "tap.h"

static char dir[] = "/tmp/nsconf.XXXXXX";

static void put (const char *name, const char *text)
{
    char path[512];
    snprintf (path, sizeof (path), "%s/%s", dir, name);
    FILE *f = fopen (path, "w");
    if (f) {
        fputs (text, f);
        fclose (f);
    }
}

static ns_sconf_t *parse (const char *text, ns_error_t *err)
{
    return ns_sconf_parse (text, strlen (text), "t.conf", dir, err);
}

/* The error text of a configuration that must fail, or "parsed". */
static const char *bad (const char *text)
{
    static ns_error_t err;
    ns_sconf_t *sc = parse (text, &err);
    if (sc) {
        ns_sconf_free (sc);
        return "parsed";
    }
    return err.text;
}

static void test_nodes (void)
{
    ns_error_t err = { "" };
    ns_sconf_t *sc = parse (
        "# a comment\n"
        "ClusterName=x  SlurmctldHost=h   # ignored keys\n"
        "NodeName=DEFAULT RealMemory=64000 State=UNKNOWN\n"
        "NodeName=n[01-03] Sockets=2 CoresPerSocket=12 ThreadsPerCore=1 "
        "Weight=5\n"
        "nodename=ht[1-2] CPUs=48 Sockets=2 CoresPerSocket=12 "
        "ThreadsPerCore=2 Features=\"fast,ib\" Gres=gpu:a100:4\n"
        "NodeName=small CPUs=8 RealMemory=16000 \\\n"
        "    Weight=1 Port=1234\n"
        "NodeName=b Boards=2 SocketsPerBoard=2 CoresPerSocket=4\n",
        &err);
    if (!ok (sc != NULL, "a machine of nodes: %s", sc ? "ok" : err.text))
        return;
    is_int (sc->nnodes, 7, "7 nodes");
    is_str (sc->nodes[0].name, "n01", "ranges keep their width");
    is_str (sc->nodes[2].name, "n03", "n03 third");
    is_int (sc->nodes[0].cpus, 24, "2 x 12 x 1 = 24 CPUs");
    is_int (sc->nodes[0].sockets, 2, "2 sockets");
    is_int (sc->nodes[0].mem, 64000, "RealMemory from NodeName=DEFAULT");
    is_int (sc->nodes[0].weight, 5, "Weight=5");
    is_str (sc->nodes[3].name, "ht1", "keys are case-insensitive");
    is_int (sc->nodes[3].cpus, 48, "CPUs=48");
    is_int (sc->nodes[3].threads, 2, "2 threads per core");
    is_int (sc->nodes[3].cores, 24, "24 cores");
    is_str (sc->nodes[3].features, "fast,ib", "quoted features");
    is_str (sc->nodes[3].gres ? sc->nodes[3].gres : "(none)", "gpu:a100:4",
            "Gres as written");
    ok (sc->nodes[0].gres == NULL && sc->nodes[5].gres == NULL,
        "no Gres: NULL");
    is_int (sc->nodes[5].cpus, 8, "small: CPUs=8");
    is_int (sc->nodes[5].weight, 1, "continued line: Weight=1");
    is_int (sc->nodes[5].mem, 16000, "its own RealMemory");
    is_int (sc->nodes[6].cpus, 16, "2 boards x 2 sockets x 4 cores");
    is_int (sc->nodes[6].sockets, 4, "4 sockets");
    is_int (sc->nparts, 0, "no partition");
    is_int (ns_sconf_default_part (sc), -1, "no default partition");
    is_int (sc->cr_memory, 0, "memory not allocated by default");
    ns_sconf_free (sc);
}

static void test_partitions (void)
{
    ns_error_t err = { "" };
    ns_sconf_t *sc = parse (
        "SelectTypeParameters=CR_Core_Memory,CR_ONE_TASK_PER_CORE\n"
        "DefMemPerCPU=500 MaxMemPerNode=60000\n"
        "PartitionName=DEFAULT MaxNodes=4 State=UP\n"
        "PartitionName=all Nodes=ALL MaxNodes=UNLIMITED\n"
        "PartitionName=big Nodes=n[1-2],n4 Default=YES MaxCPUsPerNode=8 "
        "DefMemPerCPU=2000\n"
        "PartitionName=off Nodes=n3 State=DOWN\n"
        "NodeName=n[1-4] CPUs=16 RealMemory=32000\n",
        &err);
    if (!ok (sc != NULL, "partitions before their nodes: %s",
             sc ? "ok" : err.text))
        return;
    is_int (sc->cr_memory, 1, "CR_Core_Memory: memory allocated");
    is_int (sc->cr_cpu, 0, "a core is the unit");
    is_int (sc->def_mem_per_cpu, 500, "global DefMemPerCPU");
    is_int (sc->max_mem_per_node, 60000, "global MaxMemPerNode");
    is_int (sc->nparts, 3, "3 partitions");
    is_int (sc->parts[0].nnodes_in, 4, "ALL: 4 nodes");
    is_int (sc->parts[0].max_nodes, 0, "UNLIMITED overrides DEFAULT");
    is_int (sc->parts[1].nnodes_in, 3, "big: 3 nodes");
    ok (sc->parts[1].nodes[0] && sc->parts[1].nodes[1]
            && !sc->parts[1].nodes[2] && sc->parts[1].nodes[3],
        "big: n1, n2, n4");
    is_int (sc->parts[1].max_nodes, 4, "MaxNodes from PartitionName=DEFAULT");
    is_int (sc->parts[1].max_cpus_per_node, 8, "MaxCPUsPerNode=8");
    is_int (sc->parts[1].def_mem_per_cpu, 2000, "its DefMemPerCPU");
    is_int (ns_sconf_default_part (sc), 1, "Default=YES: big");
    is_int (sc->parts[2].up, 0, "State=DOWN");
    is_int (sc->parts[1].up, 1, "State=UP from DEFAULT");
    is_int (ns_sconf_part_index (sc, "off"), 2, "found by name");
    is_int (ns_sconf_part_index (sc, "nope"), -1, "unknown name");
    ns_sconf_free (sc);

    sc = parse ("SelectTypeParameters=CR_CPU\nNodeName=a CPUs=4\n"
                "PartitionName=p Nodes=a\n", &err);
    ok (sc && sc->cr_cpu && !sc->cr_memory, "CR_CPU: CPUs, no memory");
    is_int (sc ? ns_sconf_default_part (sc) : -2, 0,
            "no Default=YES: the first partition");
    ns_sconf_free (sc);
}

static void test_include (void)
{
    put ("nodes.conf", "NodeName=inc[1-2] CPUs=4\n");
    char sub[512];
    snprintf (sub, sizeof (sub), "%s/sub", dir);
    mkdir (sub, 0700);
    put ("sub/parts.conf", "PartitionName=p Nodes=ALL\n");
    put ("main.conf", "Include nodes.conf\ninclude sub/parts.conf\n");
    put ("loop.conf", "# includes itself\nInclude loop.conf\n");
    char path[512];
    snprintf (path, sizeof (path), "%s/main.conf", dir);
    ns_error_t err = { "" };
    ns_sconf_t *sc = ns_sconf_load (path, &err);
    ok (sc && sc->nnodes == 2 && sc->nparts == 1
            && sc->parts[0].nnodes_in == 2,
        "Include relative to the including file: %s", sc ? "ok" : err.text);
    ns_sconf_free (sc);
    snprintf (path, sizeof (path), "%s/loop.conf", dir);
    sc = ns_sconf_load (path, &err);
    ok (!sc && strstr (err.text, "field Include: more than 16 levels"),
        "an include loop stops: %s", sc ? "parsed" : err.text);
    ns_sconf_free (sc);
    snprintf (path, sizeof (path), "%s/missing.conf", dir);
    sc = ns_sconf_load (path, &err);
    ok (!sc && strstr (err.text, "missing.conf: No such file"),
        "a missing file: %s", sc ? "parsed" : err.text);
    ns_sconf_free (sc);
    sc = ns_sconf_parse ("Include x\n", 10, "f.conf", NULL, &err);
    is_str (sc ? "parsed" : err.text,
            "f.conf: line 1: field Include: includes are not read here",
            "no directory: includes refused");
    ns_sconf_free (sc);
}

static void test_errors (void)
{
    is_str (bad ("NodeName=a CPUs=four\n"),
            "t.conf: line 1: field CPUs: expected a number >= 0, got 'four'",
            "a word for a number");
    is_str (bad ("NodeName=a CPUs=4\nNodeName=a CPUs=4\n"),
            "t.conf: line 2: field NodeName: node a defined twice",
            "a node twice");
    is_str (bad ("NodeName=a[1-2] CPUs=4\nPartitionName=p Nodes=a[1-3]\n"),
            "t.conf: line 2: field Nodes: node a3 is not defined by a "
            "NodeName line", "a partition names an unknown node");
    is_str (bad ("# nothing\nClusterName=x\n"),
            "t.conf: no NodeName line: no node to replay on", "no node");
    is_str (bad ("NodeName=a CPUs=4\nPartitionName=p Default=maybe\n"),
            "t.conf: line 2: field Default: expected YES or NO, got 'maybe'",
            "Default=maybe");
    is_str (bad ("NodeName=a CPUs=4\nPartitionName=p MaxNodes=-1\n"),
            "t.conf: line 2: field MaxNodes: expected a number >= 0 or "
            "UNLIMITED, got '-1'", "MaxNodes=-1");
    is_str (bad ("NodeName=a CPUs=4 \\\n  Features=\"x\nPartitionName=p\n"),
            "t.conf: line 1: a '\"' is not closed", "an open quote, "
            "reported at the line that starts it");
    is_str (bad ("NodeName=a[1-x] CPUs=4\n"),
            "t.conf: line 1: field NodeName: host list 'a[1-x]': expected a "
            "number >= 1 at 5", "a bad range");
    is_str (bad ("SelectTypeParameters=Core\nNodeName=a\n"),
            "t.conf: line 1: field SelectTypeParameters: expected CR_Core, "
            "CR_Core_Memory, CR_CPU, CR_CPU_Memory, CR_Socket, "
            "CR_Socket_Memory or CR_Memory, got 'Core'",
            "SelectTypeParameters without CR_");
    is_str (bad ("NodeName=a CPUs=0\n"),
            "t.conf: line 1: field CPUs: node a: 0 CPUs, 1 sockets, 1 "
            "threads per core: expected at least 1 of each and at most "
            "65535 CPUs", "CPUs=0");
    is_str (bad ("NodeName=a RealMemory=99999999999999999999999\n"),
            "t.conf: line 1: field RealMemory: expected at most "
            "2305843009213693951, got '99999999999999999999999'",
            "a number beyond 64 bits");
    is_str (bad ("NodeName=a CPUs=4\nJunk\n"),
            "t.conf: line 2: expected Key=Value, got 'Junk'", "a bare word");
    is_str (bad ("NodeName=a CPUs=4\nPartitionName=p Nodes=a\0x\n"),
            "parsed", "(strlen stops at the NUL)");
    ns_error_t err;
    ns_sconf_t *sc = ns_sconf_parse ("NodeName=a\0", 11, "t.conf", dir, &err);
    is_str (sc ? "parsed" : err.text,
            "t.conf: line 1: a NUL byte: not a text file", "a NUL byte");
    ns_sconf_free (sc);
}

int main (void)
{
    plan_no_plan ();
    if (!mkdtemp (dir)) {
        ok (0, "a temporary directory");
        return done_testing ();
    }
    test_nodes ();
    test_partitions ();
    test_include ();
    test_errors ();
    char cmd[600];
    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", dir);
    if (system (cmd) != 0)
        diag ("could not remove %s", dir);
    return done_testing ();
}
