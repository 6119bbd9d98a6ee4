/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ledger.t - the node-local occupancy ledger (node/ledger.c) and its
 * shared, locked file (spank/ledgerfile.c), and the SPANK plugin's
 * per-step path (spank/pin.c) on top of them.
 *
 * The ledger's logic runs on plain memory: formatting, records, reclaim
 * of dead owners, repair after a half-done update, occupancy fed into
 * cache trees, steps steered apart.  The file part runs real processes:
 * one dies holding the lock (fork, lock, _exit), one dies in the middle
 * of an update, one hangs holding it, several add records concurrently.
 * ns_ledger_check() runs after every step that changes the table.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cachetree_test.h"
#include "ledger.h"
#include "ledger_test.h"
#include "ledgerfile.h"
#include "pin.h"
#include "tap.h"

#define K(x) ((uint64_t)(x) << 10)
#define M(x) ((uint64_t)(x) << 20)

/* What the cluster test's dry-run nodes are: 2 packages of 2 L3 domains
 * of 6 cores (24 cores, Slurm's Sockets=2 CoresPerSocket=12). */
#define NODE24 "pack:2 l3:2(size=16MiB) l2:6(size=1MiB) l1d:1(size=32KiB) " \
               "core:1 pu:1"
#define DESKTOP "pack:1 l3:1(size=8MiB) l2:4(size=256KiB) l1d:1(size=32KiB) " \
                "core:1 pu:2"

static char tmpdir[] = "/tmp/ns-ledger-test.XXXXXX";

static void check (const ns_ledger_t *l, const char *what)
{
    ns_error_t err;
    int rc = ns_ledger_check (l, &err);
    ok (rc == 0, "check after %s", what);
    if (rc < 0)
        diag ("%s", err.text);
}

static ns_ledger_owner_t owner (uint32_t job, uint32_t step, int64_t pid)
{
    return (ns_ledger_owner_t){ .jobid = job, .stepid = step, .pid = pid,
                                .pid_start = 1000 + (uint64_t)pid };
}

static ns_ledger_entry_t entry (ns_ledger_owner_t o, int task, int level,
                                int cache, uint64_t bytes)
{
    return (ns_ledger_entry_t){ .owner = o, .task = task,
                                .level = (ns_ctlevel_t)level, .cache = cache,
                                .bytes = bytes };
}

static void *region (int capacity, size_t *len)
{
    *len = ns_ledger_size (capacity);
    void *p = NULL;
    if (posix_memalign (&p, 64, *len) != 0)
        abort ();
    memset (p, 0, *len);
    return p;
}

/*
 * Plain memory
 */

static void test_attach (void)
{
    ns_error_t err;
    size_t len;
    int reset = -1;
    void *mem = region (8, &len);

    ok (ns_ledger_size (0) == 0 && ns_ledger_size (NS_LEDGER_MAX_CAPACITY + 1)
        == 0, "ns_ledger_size() refuses capacities out of range");
    ok (ns_ledger_size (1) == 128 && ns_ledger_size (8) == 576,
        "ns_ledger_size(): 64-byte header, 64-byte records");
    ok (ns_ledger_attach (NULL, len, 1, NULL, &err) == NULL
        && errno == EINVAL, "attach(NULL) fails with EINVAL");
    ok (ns_ledger_attach ((char *)mem + 4, len - 4, 1, NULL, &err) == NULL
        && errno == EINVAL, "attach() of a misaligned region fails");
    ok (ns_ledger_attach (mem, 100, 1, NULL, &err) == NULL && errno == EINVAL,
        "attach() of a region below one record fails: %s", err.text);

    ns_ledger_t *l = ns_ledger_attach (mem, len, 7, &reset, &err);
    ok (l != NULL && reset == 0, "attach() formats a zeroed region");
    is_int (ns_ledger_capacity (l), 8, "capacity: as many records as fit");
    is_int (ns_ledger_count (l), 0, "a new ledger is empty");
    ns_ledger_owner_t a = owner (10, 0, 100);
    ns_ledger_entry_t e = entry (a, 0, NS_CT_L3, 1, M(4));
    ok (ns_ledger_add (l, &e, &err) == 0, "add a record");
    ns_ledger_detach (l);

    l = ns_ledger_attach (mem, len, 7, &reset, &err);
    ok (l && reset == 0 && ns_ledger_count (l) == 1,
        "attaching again with the same topology keeps the records");
    ns_ledger_entry_t got;
    int slot = -1;
    for (int i = 0; i < ns_ledger_capacity (l); i++)
        if (ns_ledger_entry (l, i, &got) == 1)
            slot = i;
    ok (slot >= 0 && got.owner.jobid == 10 && got.owner.pid == 100
        && got.owner.pid_start == 1100 && got.task == 0
        && got.level == NS_CT_L3 && got.cache == 1 && got.bytes == M(4),
        "the record reads back as written");
    ok (ns_ledger_entry (l, 8, &got) == -1 && errno == EINVAL,
        "ns_ledger_entry() out of range fails with EINVAL");
    ns_ledger_detach (l);

    l = ns_ledger_attach (mem, len, NS_LEDGER_ANY_TOPOLOGY, &reset, &err);
    ok (l && reset == 0 && ns_ledger_count (l) == 1,
        "NS_LEDGER_ANY_TOPOLOGY keeps the records");
    ns_ledger_detach (l);
    l = ns_ledger_attach (mem, len, 8, &reset, &err);
    ok (l && reset == 1 && ns_ledger_count (l) == 0,
        "another topology empties the ledger and says so");
    ns_ledger_detach (l);

    memset (mem, 0xa5, len);
    l = ns_ledger_attach (mem, len, 8, &reset, &err);
    ok (l && ns_ledger_count (l) == 0 && ns_ledger_capacity (l) == 8,
        "a garbage region is formatted");
    check (l, "formatting garbage");
    ns_ledger_detach (l);
    free (mem);
}

static void test_records (void)
{
    ns_error_t err;
    size_t len;
    void *mem = region (4, &len);
    ns_ledger_t *l = ns_ledger_attach (mem, len, 1, NULL, &err);
    ns_ledger_owner_t a = owner (1, 0, 100), b = owner (2, 0, 200);
    ns_ledger_entry_t e;

    e = entry (a, 0, NS_CT_CORE, 0, 1);
    ok (ns_ledger_add (l, &e, &err) < 0 && errno == EINVAL,
        "a record at a core is refused: %s", err.text);
    e = entry (a, -1, NS_CT_L2, 0, 1);
    ok (ns_ledger_add (l, &e, &err) < 0 && errno == EINVAL,
        "a negative task id is refused");
    e = entry (a, 0, NS_CT_L2, 0, K(512));
    ok (ns_ledger_add (l, &e, &err) == 0, "add a:0");
    e = entry (a, 1, NS_CT_L2, 1, K(512));
    ok (ns_ledger_add (l, &e, &err) == 0, "add a:1");
    e = entry (b, 0, NS_CT_L3, 0, M(6));
    ok (ns_ledger_add (l, &e, &err) == 0, "add b:0");
    e = entry (b, 1, NS_CT_MACHINE, 0, M(600));
    ok (ns_ledger_add (l, &e, &err) == 0, "add b:1 at the machine");
    check (l, "four adds");
    e = entry (b, 2, NS_CT_L3, 0, M(1));
    ok (ns_ledger_add (l, &e, &err) < 0 && errno == ENOSPC,
        "a full ledger refuses with ENOSPC: %s", err.text);

    is_int (ns_ledger_remove (l, &a, 1), 1, "remove a:1 drops one record");
    is_int (ns_ledger_remove (l, &a, 1), 0, "removing it again drops none");
    ok (ns_ledger_add (l, &e, &err) == 0, "its slot is reused");
    ns_ledger_owner_t a2 = a;
    a2.pid_start++;
    is_int (ns_ledger_remove (l, &a2, -1), 0,
            "an owner with another start time owns nothing");
    is_int (ns_ledger_remove (l, &b, -1), 3, "remove all of b");
    is_int (ns_ledger_count (l), 1, "a:0 is left");
    check (l, "removals");

    /* Two records for one task: check() must catch it. */
    e = entry (a, 0, NS_CT_L3, 0, M(1));
    ns_ledger_add (l, &e, &err);
    ok (ns_ledger_check (l, &err) < 0 && errno == EPROTO,
        "check() catches a task recorded twice: %s", err.text);
    ns_ledger_detach (l);
    free (mem);
}

/* Fake liveness: owners whose pid is odd are dead; count the calls. */
static int odd_dead (const ns_ledger_owner_t *o, void *arg)
{
    (*(int *)arg)++;
    return o->pid % 2 == 0;
}

static void test_reclaim_repair (void)
{
    ns_error_t err;
    size_t len;
    void *mem = region (64, &len);
    ns_ledger_t *l = ns_ledger_attach (mem, len, 1, NULL, &err);
    int calls = 0;

    for (int s = 0; s < 6; s++)
        for (int t = 0; t < 5; t++) {
            ns_ledger_entry_t e = entry (owner (50, (uint32_t)s, 300 + s), t,
                                         NS_CT_L2, t, K(100));
            ns_ledger_add (l, &e, &err);
        }
    is_int (ns_ledger_count (l), 30, "6 steps x 5 records");
    is_int (ns_ledger_reclaim (l, odd_dead, &calls), 15,
            "reclaim drops the 15 records of the 3 dead steps");
    is_int (calls, 6, "alive() is asked once per owner, not per record");
    is_int (ns_ledger_reclaim (l, odd_dead, &calls), 0,
            "a second reclaim finds nothing");
    check (l, "reclaim");

    /* Break records the way a dying writer or a stray write could. */
    unsigned char *raw = mem;
    int broken = 0;
    for (int i = 0; i < 64 && broken < 3; i++) {
        ns_ledger_entry_t got;
        if (ns_ledger_entry (l, i, &got) != 1)
            continue;
        unsigned char *rec = raw + 64 + 64 * i;
        if (broken == 0)
            rec[33] ^= 0x40;            /* bytes changed after sealing */
        else if (broken == 1)
            memset (rec, 0x77, 4);      /* state neither free nor used */
        else
            rec[40] = 9;                /* level out of range */
        broken++;
    }
    ok (ns_ledger_check (l, &err) < 0, "check() sees the broken records: %s",
        err.text);
    is_int (ns_ledger_repair (l), 3, "repair drops exactly the 3 broken ones");
    is_int (ns_ledger_count (l), 12, "12 good records are left");
    check (l, "repair");
    ns_ledger_detach (l);
    free (mem);
}

static void test_occupy (void)
{
    ns_error_t err;
    size_t len;
    void *mem = region (16, &len);
    ns_ledger_t *l = ns_ledger_attach (mem, len, 1, NULL, &err);
    ns_ledger_owner_t a = owner (1, 0, 100), b = owner (2, 0, 200);
    ns_ledger_entry_t e;
    ns_ctinfo_t info;

    e = entry (a, 0, NS_CT_L3, 0, M(4));
    ns_ledger_add (l, &e, &err);
    e = entry (a, 1, NS_CT_L3, 0, M(4));
    ns_ledger_add (l, &e, &err);
    e = entry (b, 0, NS_CT_L3, 0, M(2));
    ns_ledger_add (l, &e, &err);
    e = entry (b, 1, NS_CT_L2, 20, K(300));     /* core 20: outside 0-11 */
    ns_ledger_add (l, &e, &err);
    e = entry (b, 2, NS_CT_L3, 3, M(1));        /* L3 #3: outside 0-11 */
    ns_ledger_add (l, &e, &err);

    ns_cachetree_t *t = ns_cachetree_load (NODE24, "0-11", &err);
    ok (t != NULL, "tree over cores 0-11 of the 24-core node");
    is_int (ns_ledger_occupy (l, t, NULL, &err), 1,
            "occupy(): L3 #0 gets one summed call, L2 #20 and L3 #3 are "
            "skipped (not in this tree)");
    ok (ns_cachetree_info (t, NS_CT_L3, 0, &info) == 0
        && info.occupied == M(10), "L3 #0 holds 4M + 4M + 2M");
    ok (ns_cachetree_info (t, NS_CT_PACKAGE, 0, &info) == 0
        && info.occupied == M(10), "and so does its package");
    ok (ns_cachetree_check (t, &err) == 0, "tree check after occupy");
    ns_cachetree_destroy (t);

    t = ns_cachetree_load (NODE24, "0-11", &err);
    is_int (ns_ledger_occupy (l, t, &a, &err), 1, "occupy() skipping a");
    ok (ns_cachetree_info (t, NS_CT_L3, 0, &info) == 0
        && info.occupied == M(2), "L3 #0 then holds b's 2M only");
    ns_cachetree_destroy (t);
    ns_ledger_detach (l);
    free (mem);
}

/* Place a step of n ranks of `bytes` on cores `cores` of NODE24 and
 * return the L3 index of each rank in l3[]. */
static int place_step (ns_ledger_t *l, const ns_ledger_owner_t *o,
                       const char *cores, int first, int n, uint64_t bytes,
                       int *l3, int *core)
{
    ns_error_t err;
    ns_ledger_task_t tasks[16];
    ns_ctplace_t out[16];
    ns_cachetree_t *t = ns_cachetree_load (NODE24, cores, &err);
    if (!t)
        return -1;
    for (int i = 0; i < n; i++)
        tasks[i] = (ns_ledger_task_t){ .task = i,
                                       .origin = first
                                                 + ns_ledger_origin (i, 1, 1,
                                                                     99),
                                       .footprint = bytes };
    int rc = ns_ledger_place (l, t, o, tasks, n, 1.0, out, &err);
    for (int i = 0; rc == 0 && i < n; i++) {
        l3[i] = out[i].level == NS_CT_L3 ? out[i].cache : -1;
        core[i] = out[i].core;
    }
    if (rc < 0)
        diag ("place: %s", err.text);
    if (ns_cachetree_check (t, &err) < 0)
        diag ("tree: %s", err.text), rc = -1;
    ns_cachetree_destroy (t);
    return rc;
}

static void test_place (void)
{
    ns_error_t err;
    size_t len;
    void *mem = region (16, &len);
    ns_ledger_t *l = ns_ledger_attach (mem, len, 1, NULL, &err);
    ns_ledger_owner_t a = owner (1, 0, 100), b = owner (2, 0, 200);
    int l3[16], core[16];

    /* Job a: 4 ranks of 4M on cores 0-3 fill L3 #0 (16M). */
    ok (place_step (l, &a, "0-3", 0, 4, M(4), l3, core) == 0,
        "job a places 4 ranks of 4M on cores 0-3");
    ok (l3[0] == 0 && l3[1] == 0 && l3[2] == 0 && l3[3] == 0,
        "all of them in L3 #0, which they fill");
    is_int (ns_ledger_count (l), 4, "job a has 4 records");

    /* Job b on cores 4-7 (L3 #0: 4-5, L3 #1: 6-7) is steered to L3 #1. */
    ok (place_step (l, &b, "4-7", 4, 4, M(4), l3, core) == 0,
        "job b places 4 ranks of 4M on cores 4-7");
    ok (l3[0] == 1 && l3[1] == 1 && l3[2] == 1 && l3[3] == 1,
        "all of them in L3 #1: job a's L3 #0 is full (got %d %d %d %d)",
        l3[0], l3[1], l3[2], l3[3]);
    ok (core[0] >= 6 && core[1] >= 6, "ranks 0 and 1 run on cores 6-7 "
        "(got %d, %d), not on their origins 4 and 5", core[0], core[1]);
    is_int (ns_ledger_count (l), 8, "8 records");
    check (l, "two steps");

    /* Without job a's records the same step stays on its origins. */
    void *mem2 = region (16, &len);
    ns_ledger_t *empty = ns_ledger_attach (mem2, len, 1, NULL, &err);
    ok (place_step (empty, &b, "4-7", 4, 4, M(4), l3, core) == 0
        && l3[0] == 0 && l3[1] == 0 && l3[2] == 1 && l3[3] == 1,
        "with an empty ledger ranks 0-1 of job b would share L3 #0");
    ns_ledger_detach (empty);
    free (mem2);

    /* Placing a step again replaces its records. */
    ok (place_step (l, &b, "4-7", 4, 2, M(4), l3, core) == 0
        && ns_ledger_count (l) == 6, "placing job b again (2 ranks) "
        "replaces its 4 records by 2");
    check (l, "re-placing");

    /* Job a ends: its L3 #0 is free for job c. */
    is_int (ns_ledger_remove (l, &a, -1), 4, "job a's step ends");
    ns_ledger_owner_t c = owner (3, 0, 300);
    ok (place_step (l, &c, "8-11", 8, 1, M(4), l3, core) == 0
        && l3[0] == 1, "job c on cores 8-11 (L3 #1) stays in L3 #1: 8M of "
        "16M taken");

    /* Zero footprints are not recorded. */
    ns_ledger_owner_t d = owner (4, 0, 400);
    int before = ns_ledger_count (l);
    ok (place_step (l, &d, "12-13", 12, 2, 0, l3, core) == 0
        && ns_ledger_count (l) == before && core[0] == 12 && core[1] == 13,
        "zero-footprint ranks stay on their cores and leave no record");

    /* A full ledger: nothing of the step is kept. */
    ns_ledger_owner_t e = owner (5, 0, 500);
    before = ns_ledger_count (l);
    ok (place_step (l, &e, "0-23", 0, 14, M(1), l3, core) < 0
        && errno == ENOSPC, "14 more records do not fit 16 slots: ENOSPC");
    is_int (ns_ledger_count (l), before, "and none of them is kept");
    check (l, "a failed placement");

    ns_ledger_task_t dup[2] = { { 0, 0, 1 }, { 0, 1, 1 } };
    ns_ctplace_t out[2];
    ns_cachetree_t *t = ns_cachetree_load (NODE24, "0-1", &err);
    ok (ns_ledger_place (l, t, &e, dup, 2, 1.0, out, &err) < 0
        && errno == EINVAL, "a task given twice is refused: %s", err.text);
    ns_cachetree_destroy (t);
    ns_ledger_detach (l);
    free (mem);
}

/* One bad record (a level no tree has, a broken seal) or one absurd
 * footprint used to make every later placement on the node fail until its
 * writer died: occupy() returned EINVAL or EOVERFLOW for it. */
static void test_bad_records (void)
{
    ns_error_t err;
    size_t len;
    void *mem = region (16, &len);
    ns_ledger_t *l = ns_ledger_attach (mem, len, 1, NULL, &err);
    ns_ledger_owner_t a = owner (1, 0, 100), b = owner (2, 0, 200);
    int l3[16], core[16];

    ok (place_step (l, &a, "0-3", 0, 2, M(4), l3, core) == 0,
        "bad records: job a places 2 ranks of 4M");
    unsigned char *raw = mem;
    raw[64 + 40] = 9;               /* slot 0: level 9, seal broken */
    ok (place_step (l, &b, "4-7", 4, 2, M(4), l3, core) == 0,
        "a record with level 9 does not stop job b's placement");
    is_int (ns_ledger_count (l), 4, "the bad record stays for repair()");
    is_int (ns_ledger_repair (l), 1, "repair() drops it");
    check (l, "a bad level");

    /* 2^63 bytes each: the second step overflowed the machine's 64-bit
     * occupancy. */
    ns_ledger_owner_t c = owner (3, 0, 300), d = owner (4, 0, 400);
    ok (place_step (l, &c, "8-9", 8, 1, (uint64_t)1 << 63, l3, core) == 0,
        "job c places a rank of 2^63 bytes");
    ok (place_step (l, &d, "10-11", 10, 1, (uint64_t)1 << 63, l3, core) == 0,
        "job d's rank of 2^63 bytes is placed too");
    ok (place_step (l, &b, "4-7", 4, 2, M(4), l3, core) == 0,
        "and job b can still be placed");
    check (l, "huge footprints");
    ns_ledger_detach (l);
    free (mem);
}

static void test_origin (void)
{
    static const struct { int task, cpt, tpc, ncores, want; } cases[] = {
        { 0, 1, 1, 4, 0 },
        { 3, 1, 1, 4, 3 },
        { 5, 1, 1, 4, 1 },      /* more tasks than cores: wrap around */
        { 1, 2, 1, 8, 2 },      /* 2 CPUs per task, 1 thread per core */
        { 1, 2, 2, 8, 1 },      /* 2 CPUs per task fit one 2-thread core */
        { 3, 3, 2, 8, 6 },      /* 3 CPUs need 2 cores */
        { 2, 0, 0, 4, 2 },      /* below 1 counts as 1 */
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
        is_int (ns_ledger_origin (cases[i].task, cases[i].cpt, cases[i].tpc,
                                  cases[i].ncores), cases[i].want,
                "origin of task %d (%d cpus/task, %d threads/core, %d cores)",
                cases[i].task, cases[i].cpt, cases[i].tpc, cases[i].ncores);
    ok (ns_ledger_origin (-1, 1, 1, 4) < 0 && errno == EINVAL
        && ns_ledger_origin (0, 1, 1, 0) < 0,
        "origin() of a negative task or no cores fails with EINVAL");
}

static void test_topology_id (void)
{
    ns_error_t err;
    hwloc_topology_t a = ns_cachetree_topology (NODE24, &err);
    hwloc_topology_t b = ns_cachetree_topology (NODE24, &err);
    hwloc_topology_t c = ns_cachetree_topology (DESKTOP, &err);
    hwloc_topology_t d = ns_cachetree_topology (
        "pack:2 l3:2(size=32MiB) l2:6(size=1MiB) l1d:1(size=32KiB) core:1 "
        "pu:1", &err);
    ok (a && b && c && d, "topologies load");
    ok (ns_ledger_topology_id (a) == ns_ledger_topology_id (b),
        "equal topologies have equal ids");
    ok (ns_ledger_topology_id (a) != ns_ledger_topology_id (c),
        "a different machine has another id");
    ok (ns_ledger_topology_id (a) != ns_ledger_topology_id (d),
        "so do other cache sizes");
    ok (ns_ledger_topology_id (a) != NS_LEDGER_ANY_TOPOLOGY,
        "an id is never NS_LEDGER_ANY_TOPOLOGY");
    hwloc_topology_destroy (a);
    hwloc_topology_destroy (b);
    hwloc_topology_destroy (c);
    hwloc_topology_destroy (d);
}

/*
 * The file: real processes
 */

static void path_in_tmp (char *buf, size_t len, const char *name)
{
    snprintf (buf, len, "%s/%s", tmpdir, name);
}

/* Lock, attach, run fn, unlock. */
static ns_ledger_t *locked_attach (ns_ledger_file_t *f, int *recovered)
{
    ns_error_t err;
    size_t len;
    if (ns_ledger_file_lock (f, 2000, recovered, &err) < 0) {
        diag ("lock: %s", err.text);
        return NULL;
    }
    void *mem = ns_ledger_file_region (f, &len);
    return ns_ledger_attach (mem, len, 1, NULL, &err);
}

static int wait_child (pid_t pid)
{
    int status;
    while (waitpid (pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return status;
}

static void test_file_basics (void)
{
    ns_error_t err;
    char path[256], sub[256];
    struct stat st;

    path_in_tmp (path, sizeof (path), "ledger");
    ns_ledger_file_t *f = ns_ledger_file_open (path, 32, &err);
    ok (f != NULL, "ns_ledger_file_open() creates the file");
    ok (stat (path, &st) == 0 && (st.st_mode & 0777) == 0600
        && st.st_uid == geteuid (), "mode 0600, owned by the caller");
    size_t len;
    ok (ns_ledger_file_region (f, &len) != NULL && len == ns_ledger_size (32),
        "the region holds 32 records");
    ns_ledger_file_t *g = ns_ledger_file_open (path, 999, &err);
    ok (g != NULL, "a second open maps the same file");
    ns_ledger_file_region (g, &len);
    ok (len == ns_ledger_size (32), "an existing file keeps its capacity");

    int recovered = -1;
    ns_ledger_t *l = locked_attach (f, &recovered);
    ok (l && recovered == 0, "lock and attach through the first mapping");
    ns_ledger_entry_t e = entry (owner (1, 2, 3), 0, NS_CT_L3, 0, M(1));
    ns_ledger_add (l, &e, &err);
    ns_ledger_detach (l);
    ns_ledger_file_unlock (f);
    l = locked_attach (g, &recovered);
    ok (l && ns_ledger_count (l) == 1, "the second mapping sees the record");
    ns_ledger_detach (l);
    ns_ledger_file_unlock (g);
    ns_ledger_file_close (g);
    ns_ledger_file_close (f);

    path_in_tmp (sub, sizeof (sub), "dir/ledger");
    f = ns_ledger_file_open (sub, 0, &err);
    ok (f != NULL, "the ledger's directory is created when missing");
    ns_ledger_file_region (f, &len);
    ok (len == ns_ledger_size (NS_LEDGER_FILE_CAPACITY),
        "capacity 0 means NS_LEDGER_FILE_CAPACITY");
    ns_ledger_file_close (f);

    chmod (path, 0644);
    ok (ns_ledger_file_open (path, 0, &err) == NULL && errno == EPERM,
        "a ledger others can read is refused: %s", err.text);
    chmod (path, 0600);

    path_in_tmp (sub, sizeof (sub), "foreign");
    FILE *fp = fopen (sub, "w");
    fputs ("not a ledger, but long enough to look like one if unchecked. "
           "not a ledger, but long enough to look like one if unchecked. "
           "not a ledger, but long enough to look like one if unchecked. "
           "not a ledger, but long enough to look like one if unchecked. "
           "not a ledger, but long enough to look like one if unchecked.",
           fp);
    fclose (fp);
    chmod (sub, 0600);
    f = ns_ledger_file_open (sub, 4, &err);
    ok (f != NULL, "a file that is not a ledger is replaced");
    ns_ledger_file_region (f, &len);
    ok (len == ns_ledger_size (4), "by a fresh ledger");
    ns_ledger_file_close (f);

    char link_path[256];
    path_in_tmp (link_path, sizeof (link_path), "symlink");
    ok (symlink (path, link_path) == 0
        && ns_ledger_file_open (link_path, 0, &err) == NULL,
        "a symlink is not followed");

    /* ledger= pointing elsewhere: the directory is checked too, else
     * anyone who may write it could swap the file or plant links. */
    static const struct {
        const char *dir;
        mode_t mode;
        const char *what;
    } unsafe[] = {
        { "open", 0777, "a world-writable directory" },
        { "group", 0770, "a group-writable directory" },
        { "sticky", 01777, "a world-writable sticky directory" },
    };
    for (size_t i = 0; i < sizeof (unsafe) / sizeof (*unsafe); i++) {
        char dir[128];
        path_in_tmp (dir, sizeof (dir), unsafe[i].dir);
        mkdir (dir, 0700);
        chmod (dir, unsafe[i].mode);
        snprintf (sub, sizeof (sub), "%s/x.ledger", dir);
        f = ns_ledger_file_open (sub, 0, &err);
        ok (f == NULL && errno == EPERM && strstr (err.text, "refusing a "
            "directory that is not owned by uid") != NULL,
            "a ledger in %s is refused: %s", unsafe[i].what, err.text);
        ns_ledger_file_close (f);
        ok (access (sub, F_OK) < 0, "and nothing is created there");
    }
    char dir[128];
    path_in_tmp (dir, sizeof (dir), "open/safe");
    mkdir (dir, 0700);
    snprintf (sub, sizeof (sub), "%s/x.ledger", dir);
    f = ns_ledger_file_open (sub, 0, &err);
    ok (f == NULL && errno == EPERM && strstr (err.text, "refusing a path "
        "below a directory that others may change") != NULL,
        "a safe directory inside a world-writable one is refused: %s",
        err.text);
    ns_ledger_file_close (f);
    path_in_tmp (dir, sizeof (dir), "dirlink");
    path_in_tmp (sub, sizeof (sub), "dir");
    ok (symlink (sub, dir) == 0, "a symlink to a good directory");
    snprintf (sub, sizeof (sub), "%s/ledger", dir);
    f = ns_ledger_file_open (sub, 0, &err);
    ok (f == NULL && errno == EPERM && strstr (err.text, "symbolic link"),
        "a ledger directory that is a symbolic link is refused: %s",
        err.text);
    ns_ledger_file_close (f);
}

/* A child takes the lock and dies: the next locker is told. */
static void test_dead_holder (void)
{
    ns_error_t err;
    char path[256];
    path_in_tmp (path, sizeof (path), "ledger");
    ns_ledger_file_t *f = ns_ledger_file_open (path, 32, &err);

    pid_t pid = fork ();
    if (pid == 0) {
        ns_ledger_file_t *cf = ns_ledger_file_open (path, 32, NULL);
        if (!cf || ns_ledger_file_lock (cf, 2000, NULL, NULL) < 0)
            _exit (2);
        _exit (0);      /* dies holding the lock */
    }
    ok (wait_child (pid) == 0, "a child locks the ledger and exits");
    int recovered = -1;
    ns_ledger_t *l = locked_attach (f, &recovered);
    ok (l && recovered == 1, "the next lock succeeds and reports the dead "
        "holder (EOWNERDEAD)");
    ok (l && ns_ledger_count (l) == 1, "the records are intact");
    ns_ledger_detach (l);
    ns_ledger_file_unlock (f);
    l = locked_attach (f, &recovered);
    ok (l && recovered == 0, "the lock is consistent again");
    ns_ledger_detach (l);
    ns_ledger_file_unlock (f);
    ns_ledger_file_close (f);
}

/* A child (a step) dies in the middle of an update: repair and reclaim
 * leave only complete records of live steps. */
static void test_dead_updater (void)
{
    ns_error_t err;
    char path[256];
    path_in_tmp (path, sizeof (path), "ledger");
    ns_ledger_file_t *f = ns_ledger_file_open (path, 32, &err);

    /* Start from one record of this (live) process. */
    ns_ledger_t *l = locked_attach (f, NULL);
    ns_ledger_reclaim (l, ns_ledger_file_alive, NULL);
    ns_ledger_owner_t parent = {
        .jobid = 76, .pid = getpid (),
        .pid_start = ns_ledger_file_pid_start (getpid ()),
    };
    ns_ledger_entry_t mine = entry (parent, 0, NS_CT_L2, 0, K(1));
    ns_ledger_add (l, &mine, &err);
    int before = ns_ledger_count (l);
    ns_ledger_detach (l);
    ns_ledger_file_unlock (f);

    pid_t pid = fork ();
    if (pid == 0) {
        size_t len;
        ns_ledger_file_t *cf = ns_ledger_file_open (path, 32, NULL);
        if (!cf || ns_ledger_file_lock (cf, 2000, NULL, NULL) < 0)
            _exit (2);
        unsigned char *mem = ns_ledger_file_region (cf, &len);
        ns_ledger_t *cl = ns_ledger_attach (mem, len, 1, NULL, NULL);
        ns_ledger_owner_t me = {
            .jobid = 77, .stepid = 0, .pid = getpid (),
            .pid_start = ns_ledger_file_pid_start (getpid ()),
        };
        for (int t = 0; t < 3; t++) {
            ns_ledger_entry_t e = entry (me, t, NS_CT_L3, 0, M(2));
            ns_ledger_add (cl, &e, NULL);
        }
        /* Half of a fourth record: fields written, not sealed, and its
         * state word torn. */
        for (int i = 0; i < 32; i++) {
            unsigned char *rec = mem + 64 + 64 * i;
            if (ns_ledger_entry (cl, i, NULL) == 0) {
                memset (rec + 4, 0x11, 40);
                rec[0] = 'U';
                break;
            }
        }
        _exit (0);
    }
    ok (wait_child (pid) == 0, "a step adds 3 records, tears a 4th and "
        "dies holding the lock");
    int recovered = -1;
    l = locked_attach (f, &recovered);
    ok (l && recovered == 1, "the next locker is told");
    is_int (ns_ledger_repair (l), 1, "repair drops the torn record");
    is_int (ns_ledger_count (l), before + 3, "the dead step's 3 complete "
            "records are still there");
    is_int (ns_ledger_reclaim (l, ns_ledger_file_alive, NULL), 3,
            "reclaim drops them: their step's process is gone");
    is_int (ns_ledger_count (l), before, "the live process's record is "
            "left");
    check (l, "repair and reclaim");
    ns_ledger_detach (l);
    ns_ledger_file_unlock (f);
    ns_ledger_file_close (f);
}

/* A live holder that hangs costs a bounded wait. */
static void test_hung_holder (void)
{
    ns_error_t err;
    char path[256];
    int fds[2];
    path_in_tmp (path, sizeof (path), "ledger");
    ns_ledger_file_t *f = ns_ledger_file_open (path, 32, &err);
    if (pipe (fds) < 0)
        abort ();
    pid_t pid = fork ();
    if (pid == 0) {
        ns_ledger_file_t *cf = ns_ledger_file_open (path, 32, NULL);
        if (!cf || ns_ledger_file_lock (cf, 2000, NULL, NULL) < 0)
            _exit (2);
        if (write (fds[1], "x", 1) != 1)
            _exit (3);
        pause ();
        _exit (0);
    }
    char c;
    ok (read (fds[0], &c, 1) == 1, "a child holds the lock and hangs");
    ok (ns_ledger_file_lock (f, 200, NULL, &err) < 0 && errno == ETIMEDOUT,
        "lock() gives up after its timeout: %s", err.text);
    kill (pid, SIGKILL);
    wait_child (pid);
    int recovered = -1;
    ok (ns_ledger_file_lock (f, 2000, &recovered, &err) == 0
        && recovered == 1, "once the holder is killed the lock is taken");
    ns_ledger_file_unlock (f);
    close (fds[0]);
    close (fds[1]);
    ns_ledger_file_close (f);
}

/* Several processes add records at once: none is lost. */
static void test_concurrent (void)
{
    ns_error_t err;
    char path[256];
    enum { PROCS = 4, EACH = 200 };
    path_in_tmp (path, sizeof (path), "busy");
    ns_ledger_file_t *f = ns_ledger_file_open (path, PROCS * EACH, &err);
    pid_t pids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        if ((pids[p] = fork ()) == 0) {
            ns_ledger_file_t *cf = ns_ledger_file_open (path, 0, NULL);
            for (int t = 0; t < EACH; t++) {
                size_t len;
                if (!cf || ns_ledger_file_lock (cf, 5000, NULL, NULL) < 0)
                    _exit (2);
                void *mem = ns_ledger_file_region (cf, &len);
                ns_ledger_t *cl = ns_ledger_attach (mem, len, 1, NULL, NULL);
                ns_ledger_entry_t e = entry (owner (9, (uint32_t)p, 1), t,
                                             NS_CT_L2, t % 24, K(64));
                int rc = ns_ledger_add (cl, &e, NULL);
                ns_ledger_detach (cl);
                ns_ledger_file_unlock (cf);
                if (rc < 0)
                    _exit (3);
            }
            _exit (0);
        }
    }
    int good = 0;
    for (int p = 0; p < PROCS; p++)
        good += wait_child (pids[p]) == 0;
    is_int (good, PROCS, "%d processes add %d records each", PROCS, EACH);
    ns_ledger_t *l = locked_attach (f, NULL);
    is_int (ns_ledger_count (l), PROCS * EACH, "all %d records are there",
            PROCS * EACH);
    check (l, "concurrent adds");
    ns_ledger_detach (l);
    ns_ledger_file_unlock (f);
    ns_ledger_file_close (f);
}

static void test_alive (void)
{
    ns_ledger_owner_t me = { .jobid = 1, .pid = getpid (),
                             .pid_start = ns_ledger_file_pid_start (getpid ()) };
    ok (me.pid_start > 0, "the start time of this process is read");
    ok (ns_ledger_file_alive (&me, NULL) == 1, "this process is alive");
    ns_ledger_owner_t reused = me;
    reused.pid_start++;
    ok (ns_ledger_file_alive (&reused, NULL) == 0,
        "the same pid with another start time is another process");
    pid_t pid = fork ();
    if (pid == 0)
        _exit (0);
    wait_child (pid);
    ns_ledger_owner_t gone = { .pid = pid };
    ok (ns_ledger_file_alive (&gone, NULL) == 0, "a reaped child is dead");
    ns_ledger_owner_t bad = { .pid = -5 };
    ok (ns_ledger_file_alive (&bad, NULL) == 0, "a negative pid is dead");
}

/*
 * The plugin's per-step path
 */

static void test_pin (void)
{
    ns_error_t err;
    char path[256], buf[512];
    path_in_tmp (path, sizeof (path), "pin.ledger");

    ok (ns_pin_topology_spec ("live", buf, sizeof (buf), &err)
        && strcmp (buf, "live") == 0, "topology 'live' is passed on");
    ok (ns_pin_topology_spec ("pack:2,l3:1(size=30MiB),core:2,pu:1", buf,
                              sizeof (buf), &err)
        && strcmp (buf, "pack:2 l3:1(size=30MiB) core:2 pu:1") == 0,
        "commas between levels become spaces");
    char file[256];
    path_in_tmp (file, sizeof (file), "topo.txt");
    FILE *fp = fopen (file, "w");
    fprintf (fp, "  %s\n# comment\n", NODE24);
    fclose (fp);
    ok (ns_pin_topology_spec (file, buf, sizeof (buf), &err)
        && strcmp (buf, NODE24) == 0, "a file's first line is a synthetic "
        "description");
    path_in_tmp (file, sizeof (file), "topo.xml");
    fp = fopen (file, "w");
    fprintf (fp, "<?xml version=\"1.0\"?>\n<topology/>\n");
    fclose (fp);
    ok (ns_pin_topology_spec (file, buf, sizeof (buf), &err)
        && strcmp (buf, file) == 0, "an XML file is passed on by name");
    ok (ns_pin_topology_spec ("/nonexistent/topo.xml", buf, sizeof (buf),
                              &err) == NULL, "a missing file fails: %s",
        err.text);
    ok (ns_pin_expand ("/dev/shm/ns-%n.ledger", "ns3", buf, sizeof (buf))
        && strcmp (buf, "/dev/shm/ns-ns3.ledger") == 0
        && ns_pin_expand ("100%%-%n", "x", buf, sizeof (buf))
        && strcmp (buf, "100%-x") == 0, "%%n and %%%% expand");
    ok (ns_pin_expand ("%n%n%n", "abcdef", buf, 10) == NULL
        && errno == ENAMETOOLONG, "expand() does not overflow");
    /* %n may come from the job's environment: '../x' escaped the ledger
     * directory. */
    static const char *good_names[] = { "ns1", "node-01.cluster", "a_b",
                                        "-x" };
    static const char *bad_names[] = { "../x", "..", ".hidden", "a/b", "",
                                       "a b", "x;y", "ns%n", "~root" };
    for (size_t i = 0; i < sizeof (good_names) / sizeof (*good_names); i++)
        ok (ns_pin_node_name_ok (good_names[i]), "node name '%s' is fine",
            good_names[i]);
    for (size_t i = 0; i < sizeof (bad_names) / sizeof (*bad_names); i++)
        ok (!ns_pin_node_name_ok (bad_names[i]), "node name '%s' is refused",
            bad_names[i]);
    memset (buf, 'n', 256);
    buf[256] = '\0';
    ok (!ns_pin_node_name_ok (buf) && (buf[255] = '\0', 1)
        && ns_pin_node_name_ok (buf), "256 characters are too many, 255 not");
    ok (!ns_pin_node_name_ok (NULL), "no node name is refused");

    /* The plugin's own argument parser (pin.c, no Slurm). */
    struct ns_pin_args args;
    char *av1[] = { "footprint=2M", "mode=verbose", "dryrun", "sigma=0.5",
                    "timeout=500", "capacity=64", "ledger=/x/%n.l",
                    "topology=pack:1,core:2,pu:1" };
    ns_pin_parse_args (&args, 0, NULL);
    ok (!args.bad && args.mode == NS_PIN_AUTO && args.timeout_ms == 2000
        && strcmp (args.ledger, "/run/nodeshare/%n.ledger") == 0
        && strcmp (args.topology, "live") == 0, "plugin argument defaults");
    ns_pin_parse_args (&args, 8, av1);
    ok (!args.bad && args.footprint == M(2) && args.have_footprint
        && args.mode == NS_PIN_VERBOSE && args.dryrun && args.sigma == 0.5
        && args.timeout_ms == 500 && args.capacity == 64
        && strcmp (args.ledger, "/x/%n.l") == 0,
        "plugin arguments: every key");
    char *av2[] = { "mode=auto", "sigma=2", "mode=none" };
    ns_pin_parse_args (&args, 3, av2);
    ok (args.bad && args.mode == NS_PIN_AUTO
        && strcmp (args.badmsg, "bad plugin argument 'sigma=2' in "
                   "plugstack.conf (see nodeshare-spank(8))") == 0,
        "a bad plugin argument stops the parse: %s", args.badmsg);
    enum ns_pin_mode mode = NS_PIN_NONE;
    ok (ns_pin_parse_mode ("verbose", &mode) == 0 && mode == NS_PIN_VERBOSE
        && ns_pin_parse_mode ("Verbose", &mode) < 0
        && ns_pin_parse_mode (NULL, &mode) < 0, "--nodeshare-bind values");
    ok (ns_pin_program_ok ("lmp_mpi-2.0+x") && !ns_pin_program_ok ("a b")
        && !ns_pin_program_ok (""), "--nodeshare-program values");

    struct ns_pin_req a = {
        .topology = NODE24, .cores = "0-3", .ntasks = 4, .cpus_per_task = 1,
        .footprint = M(4), .sigma = 1.0, .ledger = path,
        .lock_timeout_ms = 2000,
        .owner = { .jobid = 1, .stepid = 0, .pid = getpid (),
                   .pid_start = ns_ledger_file_pid_start (getpid ()) },
    };
    struct ns_pin_plan *pa = ns_pin_plan_create (&a, &err);
    ok (pa != NULL, "plan job a (4 x 4M on cores 0-3)");
    if (!pa)
        diag ("%s", err.text);
    ok (pa && strcmp (pa->task[0].cpulist, "0-3") == 0
        && pa->task[3].level == NS_CT_L3 && pa->task[3].cache == 0,
        "its ranks share L3 #0, cpus 0-3");
    struct ns_pin_req b = a;
    b.cores = "4-7";
    b.owner.jobid = 2;
    struct ns_pin_plan *pb = ns_pin_plan_create (&b, &err);
    ok (pb && pb->occupied == 4, "plan job b on cores 4-7: it sees job a's "
        "4 records");
    ok (pb && pb->task[0].cache == 1 && pb->task[1].cache == 1
        && strcmp (pb->task[0].cpulist, "6-7") == 0,
        "job b's ranks 0 and 1 are steered to L3 #1, cpus 6-7 (got %s)",
        pb ? pb->task[0].cpulist : "-");
    ok (pb && strstr (pb->task[0].why, "L3") != NULL,
        "the plan explains each placement: %s", pb ? pb->task[0].why : "");
    is_int (ns_pin_forget (path, 2000, &a.owner, 2, &err), 1,
            "forget one task of job a");
    is_int (ns_pin_forget (path, 2000, &a.owner, -1, &err), 3,
            "forget the rest of job a");
    ns_pin_plan_destroy (pa);
    ns_pin_plan_destroy (pb);

    /* A broken record in the file does not poison the node: the next
     * plan drops it (and says so) and sees the good ones. */
    pa = ns_pin_plan_create (&a, &err);
    FILE *lf = fopen (path, "r+b");
    int level = 9;
    ok (pa && lf && fseek (lf, 256 + 64 + 40, SEEK_SET) == 0
        && fwrite (&level, sizeof (level), 1, lf) == 1 && fclose (lf) == 0,
        "job a planned again, its first record broken in the file");
    pb = ns_pin_plan_create (&b, &err);
    ok (pb && pb->repaired == 1 && pb->occupied == 3,
        "plan job b: the broken record is dropped (repaired %d), job a's "
        "other 3 are seen (%d)", pb ? pb->repaired : -1,
        pb ? pb->occupied : -1);
    if (!pb)
        diag ("%s", err.text);
    ns_pin_forget (path, 2000, &a.owner, -1, &err);
    ns_pin_forget (path, 2000, &b.owner, -1, &err);
    ns_pin_plan_destroy (pa);
    ns_pin_plan_destroy (pb);

    struct ns_pin_req bad = a;
    bad.cores = "0-30";
    ok (ns_pin_plan_create (&bad, &err) == NULL && errno == EINVAL,
        "cores beyond the topology: %s", err.text);
    bad = a;
    bad.topology = "pack:banana";
    ok (ns_pin_plan_create (&bad, &err) == NULL, "a bad topology: %s",
        err.text);
    bad = a;
    bad.ntasks = 0;
    ok (ns_pin_plan_create (&bad, &err) == NULL && errno == EINVAL,
        "no tasks: %s", err.text);

    struct ns_pin_req priv = a;
    priv.ledger = NULL;
    priv.topology = DESKTOP;
    priv.cores = "1-2";
    priv.ntasks = 3;
    priv.footprint = K(16);
    struct ns_pin_plan *pp = ns_pin_plan_create (&priv, &err);
    ok (pp && pp->threads_per_core == 2
        && strcmp (pp->task[0].cpulist, "2-3") == 0
        && strcmp (pp->task[1].cpulist, "4-5") == 0
        && strcmp (pp->task[2].cpulist, "2-3") == 0,
        "without a ledger: 3 ranks of 16K on 2 cores with 2 PUs, wrapping "
        "(got %s %s %s)", pp ? pp->task[0].cpulist : "-",
        pp ? pp->task[1].cpulist : "-", pp ? pp->task[2].cpulist : "-");
    ns_pin_plan_destroy (pp);
}

static void test_topology_cache (void)
{
    ns_error_t err;
    char cache[256];
    struct stat st;
    path_in_tmp (cache, sizeof (cache), "cache/topo.xml");

    hwloc_topology_t t = ns_pin_topology_load ("live", cache, &err);
    ok (t != NULL, "load the live topology through the cache");
    ok (getenv ("HWLOC_PLUGINS_BLACKLIST") != NULL,
        "hwloc's I/O and libxml2 plugins are kept out");
    ok (stat (cache, &st) == 0 && (st.st_mode & 0777) == 0600
        && st.st_uid == geteuid (), "the cache is written, mode 0600");
    uint64_t id = t ? ns_ledger_topology_id (t) : 0;
    hwloc_topology_destroy (t);
    time_t mtime = st.st_mtime;
    ino_t ino = st.st_ino;

    t = ns_pin_topology_load ("live", cache, &err);
    ok (t && ns_ledger_topology_id (t) == id,
        "the cached topology names caches as the live one does");
    ok (t && hwloc_obj_get_info_by_name (hwloc_get_root_obj (t),
                                         "NodeshareStamp") != NULL,
        "it was read from the cache (stamped)");
    hwloc_topology_destroy (t);
    ok (stat (cache, &st) == 0 && st.st_ino == ino && st.st_mtime == mtime,
        "and the cache was not rewritten");

    /* A stale stamp: rediscover and rewrite. */
    FILE *f = fopen (cache, "r+");
    char text[65536];
    size_t n = fread (text, 1, sizeof (text) - 1, f);
    text[n] = '\0';
    char *stamp = strstr (text, "NodeshareStamp\" value=\"");
    if (stamp)
        stamp[strlen ("NodeshareStamp\" value=\"")] ^= 1;
    rewind (f);
    fwrite (text, 1, n, f);
    fclose (f);
    t = ns_pin_topology_load ("live", cache, &err);
    ok (stamp && t && ns_ledger_topology_id (t) == id,
        "a stale stamp: the machine is discovered again");
    hwloc_topology_destroy (t);
    ok (stat (cache, &st) == 0 && st.st_ino != ino,
        "and the cache is replaced");

    /* topocache= in a directory others may write: refused, nothing read
     * or written there. */
    char open_cache[256], open_dir[128];
    path_in_tmp (open_dir, sizeof (open_dir), "opencache");
    mkdir (open_dir, 0700);
    chmod (open_dir, 0777);
    snprintf (open_cache, sizeof (open_cache), "%s/topo.xml", open_dir);
    t = ns_pin_topology_load ("live", open_cache, &err);
    ok (t == NULL && errno == EPERM && access (open_cache, F_OK) < 0,
        "a topology cache in a world-writable directory is refused: %s",
        err.text);
    if (t)
        hwloc_topology_destroy (t);

    /* Not ours: never read, replaced. */
    chmod (cache, 0644);
    t = ns_pin_topology_load ("live", cache, &err);
    ok (t && stat (cache, &st) == 0 && (st.st_mode & 0777) == 0600,
        "a cache with permissions for others is not trusted, but replaced");
    hwloc_topology_destroy (t);

    t = ns_pin_topology_load (NODE24, cache, &err);
    ok (t && hwloc_get_nbobjs_by_type (t, HWLOC_OBJ_CORE) == 24,
        "a synthetic topology ignores the cache");
    hwloc_topology_destroy (t);
}

static void test_mem_footprint (void)
{
    ns_error_t err;
    struct ns_pin_req r = {
        .topology = NODE24, .cores = "0-3", .ntasks = 2, .cpus_per_task = 2,
        .step_mem = M(16), .sigma = 1.0,
    };
    struct ns_pin_plan *p = ns_pin_plan_create (&r, &err);
    ok (p && p->footprint == M(8) && p->task[0].level == NS_CT_L3
        && p->task[1].origin == 2, "no footprint, 16M for 4 CPUs, 2 per "
        "rank: 8M per rank, ranks start at cores 0 and 2");
    ns_pin_plan_destroy (p);
    r.footprint = K(8);
    p = ns_pin_plan_create (&r, &err);
    ok (p && p->footprint == K(8) && p->task[0].level == NS_CT_L1,
        "a footprint given wins over memory");
    ns_pin_plan_destroy (p);
    r.footprint = 0;
    r.step_mem = 0;
    p = ns_pin_plan_create (&r, &err);
    ok (p && p->footprint == 0 && strcmp (p->task[1].cpulist, "2") == 0,
        "neither: footprint 0, each rank on its own core");
    ns_pin_plan_destroy (p);
}

static void cleanup (void)
{
    char cmd[300];
    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", tmpdir);
    if (system (cmd) != 0)
        diag ("could not remove %s", tmpdir);
}

int main (void)
{
    plan_no_plan ();
    if (!mkdtemp (tmpdir)) {
        perror ("mkdtemp");
        return 1;
    }
    test_attach ();
    test_records ();
    test_reclaim_repair ();
    test_occupy ();
    test_place ();
    test_bad_records ();
    test_origin ();
    test_topology_id ();
    test_file_basics ();
    test_dead_holder ();
    test_dead_updater ();
    test_hung_holder ();
    test_concurrent ();
    test_alive ();
    test_pin ();
    test_topology_cache ();
    test_mem_footprint ();
    cleanup ();
    return done_testing ();
}
