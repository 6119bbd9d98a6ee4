/* SPDX-License-Identifier: GPL-2.0-or-later */
/* machsize.c - the size of the machine a trace is replayed on
 * (sim/machsize.h). */
#include "config.h"

#include <errno.h>

#include "machsize.h"

void ns_machsize_sconf (const ns_sconf_t *m, ns_machsize_t *out)
{
    out->nodes = m->nnodes;
    out->cores = 0;
    out->total_cores = 0;
    for (int i = 0; i < m->nnodes; i++) {
        int u = m->cr_cpu ? m->nodes[i].cpus : m->nodes[i].cores;
        out->total_cores += u;
        if (u > out->cores)
            out->cores = u;
    }
}

int ns_machsize_header (const struct ns_trace_header *h, int nodes,
                        int cores, const char *trace, ns_machsize_t *out,
                        ns_error_t *err)
{
    int64_t mn = h->max_nodes, mp = h->max_procs;
    if (!cores && mn > 0 && mp > 0) {
        if (mp % mn)
            return ns_error_set (err, EINVAL, "%s: header says MaxNodes %lld "
                                 "and MaxProcs %lld, which does not give a "
                                 "whole number of cores per node: give "
                                 "--nodes and --cores", trace, (long long)mn,
                                 (long long)mp);
        cores = (int)(mp / mn);
    }
    if (!cores)
        return ns_error_set (err, EINVAL, "%s: the header does not say the "
                             "machine size (MaxNodes and MaxProcs): give %s",
                             trace,
                             nodes ? "--cores C" : "--nodes N --cores C");
    if (!nodes) {
        if (mn > 0)
            nodes = (int)mn;
        else if (mp > 0)
            nodes = (int)(mp / cores);
        else
            return ns_error_set (err, EINVAL, "%s: the header does not say "
                                 "how many nodes: give --nodes N", trace);
    }
    if (nodes < 1 || nodes > NS_CLUSTER_NODES_MAX)
        return ns_error_set (err, EINVAL, "%s: header gives %d nodes: give "
                             "--nodes", trace, nodes);
    out->nodes = nodes;
    out->cores = cores;
    out->total_cores = (int64_t)nodes * cores;
    return 0;
}

int64_t ns_machsize_all_memory_jobs (const ns_sconf_t *m,
                                     const ns_simjob_t *jobs, int64_t n,
                                     const char **first)
{
    if (!m->cr_memory || m->def_mem_per_cpu || m->def_mem_per_node)
        return 0;
    int64_t k = 0;
    for (int64_t j = 0; j < n; j++) {
        const ns_simjob_t *sj = &jobs[j];
        if (sj->mem_per_cpu || sj->mem_per_node)
            continue;
        int p = sj->partition > 0 && sj->partition <= m->nparts
                    ? sj->partition - 1
                    : ns_sconf_default_part (m);
        if (p < 0 || m->parts[p].def_mem_per_cpu
            || m->parts[p].def_mem_per_node)
            continue;
        if (k++ == 0)
            *first = m->parts[p].name;
    }
    return k;
}
