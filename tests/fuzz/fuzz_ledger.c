/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_ledger.c - ledger images (model ledger.h): the input is the shared
 * region as a crashed, foreign or hostile writer may have left it.  The
 * ledger must attach, report, reclaim and repair it, and a step must
 * still be placed: nothing in a region may poison the node (only a full
 * ledger, ENOSPC, refuses a step). */
#include "fuzz.h"

#include <errno.h>

#include "cachetree_test.h"
#include "ledger.h"
#include "ledger_test.h"

#define NODE24 "pack:2 l3:2(size=16MiB) l2:6(size=1MiB) l1d:1(size=32KiB) " \
               "core:1 pu:1"

static hwloc_topology_t topo;
static uint64_t topo_id;

int LLVMFuzzerInitialize (int *argc, char ***argv)
{
    setenv ("HWLOC_PLUGINS_BLACKLIST", "hwloc_pci,hwloc_xml_libxml", 0);
    ns_error_t err;
    if (!(topo = ns_cachetree_topology (NODE24, &err)))
        abort ();
    topo_id = ns_ledger_topology_id (topo);
    return 0;
}

static int alive (const ns_ledger_owner_t *o, void *arg)
{
    (void)arg;
    return (o->pid & 3) != 0;   /* every fourth owner is gone */
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    ns_error_t err;
    if (!topo)
        LLVMFuzzerInitialize (NULL, NULL);
    size_t len = size < ns_ledger_size (1) ? ns_ledger_size (1) : size;
    void *mem = NULL;
    if (posix_memalign (&mem, 64, len) != 0)
        return 0;
    memset (mem, 0, len);
    memcpy (mem, data, size);
    /* The first byte decides which topology id the step expects: its
     * own (keeps a valid region), any, or another (empties it). */
    uint64_t want = size == 0 ? topo_id
                    : data[0] % 3 == 0 ? topo_id
                    : data[0] % 3 == 1 ? NS_LEDGER_ANY_TOPOLOGY : 42;
    int reset = -1;
    ns_ledger_t *l = ns_ledger_attach (mem, len, want, &reset, &err);
    FUZZ_CHECK (l != NULL, "attach: %s", err.text);
    FUZZ_CHECK (reset == 0 || reset == 1, "reset %d", reset);
    int cap = ns_ledger_capacity (l), used = ns_ledger_count (l);
    FUZZ_CHECK (cap >= 1 && cap <= NS_LEDGER_MAX_CAPACITY
                && ns_ledger_size (cap) <= len, "capacity %d", cap);
    FUZZ_CHECK (used >= 0 && used <= cap, "%d used of %d", used, cap);
    int seen = 0;
    for (int i = 0; i < cap; i++) {
        ns_ledger_entry_t e;
        int rc = ns_ledger_entry (l, i, &e);
        FUZZ_CHECK (rc == 0 || rc == 1, "entry %d: %d", i, rc);
        seen += rc;
    }
    FUZZ_CHECK (seen == used, "%d entries, %d used", seen, used);
    ns_ledger_check (l, &err);

    /* What a step does under the lock (spank/pin.c place_shared()). */
    ns_ledger_repair (l);
    ns_ledger_reclaim (l, alive, NULL);
    if (ns_ledger_check (l, &err) < 0)
        FUZZ_CHECK (strstr (err.text, "recorded twice") != NULL,
                    "after repair only duplicates remain: %s", err.text);
    ns_cachetree_t *t = ns_cachetree_from_topology (topo, NULL, &err);
    FUZZ_CHECK (t != NULL, "%s", err.text);
    ns_ledger_owner_t me = { .jobid = 7, .stepid = 0, .pid = 4,
                             .pid_start = 1 };
    ns_ledger_task_t tasks[4];
    ns_ctplace_t out[4];
    for (int i = 0; i < 4; i++)
        tasks[i] = (ns_ledger_task_t){ .task = i, .origin = 6 * i,
                                       .footprint = (uint64_t)4 << 20 };
    if (ns_ledger_place (l, t, &me, tasks, 4, 1.0, out, &err) < 0)
        FUZZ_CHECK (errno == ENOSPC, "a step is refused: %s", err.text);
    FUZZ_CHECK (ns_cachetree_check (t, &err) == 0, "%s", err.text);
    ns_cachetree_destroy (t);
    ns_ledger_remove (l, &me, -1);
    ns_ledger_detach (l);
    free (mem);
    return 0;
}
