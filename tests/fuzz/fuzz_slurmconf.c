/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_slurmconf.c - the slurm.conf reader of nodeshare-sim --slurm-conf:
 * any bytes give a machine or one message, never a crash; a machine it
 * gives is consistent (sizes, partitions' node masks and counts) */
#include "fuzz.h"
#include "slurmconf.h"
#include "slurmconf_test.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    ns_error_t err = { "" };
    ns_sconf_t *sc = ns_sconf_parse ((const char *)data, size, "fuzz.conf",
                                     NULL, &err);
    if (!sc) {
        FUZZ_CHECK (err.text[0] != '\0', "no machine and no message");
        FUZZ_CHECK (strchr (err.text, '\n') == NULL, "a message of one line");
        return 0;
    }
    FUZZ_CHECK (sc->nnodes >= 1, "a machine without nodes");
    for (int i = 0; i < sc->nnodes; i++) {
        const ns_sconf_node_t *n = &sc->nodes[i];
        FUZZ_CHECK (n->name && n->name[0], "node %d without a name", i);
        FUZZ_CHECK (n->cpus >= 1 && n->threads >= 1 && n->cores >= 1
                        && n->sockets >= 1 && n->sockets <= n->cores
                        && n->cores * n->threads <= n->cpus + n->threads,
                    "node %s: %d CPUs, %d cores, %d threads, %d sockets",
                    n->name, n->cpus, n->cores, n->threads, n->sockets);
        FUZZ_CHECK (n->mem >= 0, "node %s: memory %lld", n->name,
                    (long long)n->mem);
    }
    for (int k = 0; k < sc->nparts; k++) {
        const ns_sconf_part_t *p = &sc->parts[k];
        int count = 0;
        for (int i = 0; i < sc->nnodes; i++)
            count += p->nodes[i] != 0;
        FUZZ_CHECK (count == p->nnodes_in, "partition %s: %d nodes, says %d",
                    p->name, count, p->nnodes_in);
        FUZZ_CHECK (ns_sconf_part_index (sc, p->name) <= k,
                    "partition %s not found by name", p->name);
    }
    int d = ns_sconf_default_part (sc);
    FUZZ_CHECK (sc->nparts ? d >= 0 && d < sc->nparts : d == -1,
                "default partition %d of %d", d, sc->nparts);
    ns_sconf_free (sc);
    return 0;
}
