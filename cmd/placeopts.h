/* SPDX-License-Identifier: GPL-2.0-or-later */
/* placeopts.h - the options of a placement question, spelled alike in
 * nodeshare-place, nodeshare-sim and nodeshare-report (nodeshare-learn
 * takes some): -c, --config FILE and -p, --policy NAME, and the machine's
 * size, -n, --nodes N and -C, --cores C, bounded alike: 1 to
 * NS_CLUSTER_NODES_MAX nodes of 1 to NS_NODE_CORES_MAX cores.
 */
#ifndef NODESHARE_PLACEOPTS_H
#define NODESHARE_PLACEOPTS_H

#include "cluster.h"
#include "cmdline.h"

/* The struct option rows of -c, --config and -p, --policy. */
#define NS_POLICY_LONGOPTS                        \
    { "config", required_argument, NULL, 'c' },  \
    { "policy", required_argument, NULL, 'p' }

/* The struct option rows of -n, --nodes and -C, --cores. */
#define NS_SIZE_LONGOPTS                          \
    { "nodes", required_argument, NULL, 'n' },   \
    { "cores", required_argument, NULL, 'C' }

/* Option ch ('n' or 'C') of value s into *nodes or *cores: 0, or -1 with
 * the message said ("PROG: --nodes 'S': expected an integer 1..MAX"). */
static inline int ns_cmd_size_opt (const char *prog, int ch, const char *s,
                                   int *nodes, int *cores)
{
    if (ch == 'n')
        return ns_cmd_int (prog, "--nodes", s, 1, NS_CLUSTER_NODES_MAX,
                           nodes);
    return ns_cmd_int (prog, "--cores", s, 1, NS_NODE_CORES_MAX, cores);
}

#endif /* !NODESHARE_PLACEOPTS_H */
