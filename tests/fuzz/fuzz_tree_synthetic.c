/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_tree_synthetic.c - cache trees over hwloc synthetic descriptions:
 * the input's first line is the description, the rest drives placements
 * (fuzz_tree.h) */
#include "fuzz_tree.h"

int LLVMFuzzerInitialize (int *argc, char ***argv)
{
    fuzz_tree_env ();
    return 0;
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr (data, '\n', size);
    size_t len = nl ? (size_t)(nl - data) : size;
    char *spec = fuzz_strdup (data, len);
    hwloc_topology_t topo;
    ns_error_t err;
    /* What ns_cachetree_topology() refuses before hwloc would take
     * minutes. */
    if (ns_cachetree_check_synthetic (spec, &err) < 0
        || hwloc_topology_init (&topo) < 0) {
        free (spec);
        return 0;
    }
    hwloc_leaks_ignored (1);
    int loaded = hwloc_topology_set_synthetic (topo, spec) == 0
                 && hwloc_topology_set_flags (
                        topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) == 0
                 && hwloc_topology_load (topo) == 0;
    hwloc_leaks_ignored (0);
    if (loaded)
        fuzz_tree_topology (topo, data + len, size - len);
    hwloc_topology_destroy (topo);
    free (spec);
    return 0;
}
