/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_tree_xml.c - cache trees over hwloc XML topologies (what
 * nodeshare-tree -t FILE.xml and the SPANK plugin's topology cache read):
 * the input up to the first NUL is the XML, the bytes after it drive
 * placements (fuzz_tree.h); without a NUL the XML's own bytes do. */
#include "fuzz_tree.h"

#include "hwlocxml.h"

int LLVMFuzzerInitialize (int *argc, char ***argv)
{
    fuzz_tree_env ();
    return 0;
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr (data, '\0', size);
    size_t len = nul ? (size_t)(nul - data) : size;
    char *xml = fuzz_strdup (data, len);
    hwloc_topology_t topo;
    ns_error_t err;
    /* What ns_cachetree_topology() refuses before hwloc would crash. */
    if (ns_hwlocxml_check (xml, len, "fuzz.xml", &err) < 0
        || hwloc_topology_init (&topo) < 0) {
        free (xml);
        return 0;
    }
    /* hwloc wants the length with the terminating NUL. */
    hwloc_leaks_ignored (1);
    int loaded = hwloc_topology_set_xmlbuffer (topo, xml, (int)len + 1) == 0
                 && hwloc_topology_set_flags (
                        topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) == 0
                 && hwloc_topology_load (topo) == 0;
    hwloc_leaks_ignored (0);
    if (loaded) {
        if (nul)
            fuzz_tree_topology (topo, nul + 1, size - len - 1);
        else
            fuzz_tree_topology (topo, data, size);
    }
    hwloc_topology_destroy (topo);
    free (xml);
    return 0;
}
