/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cluster_test.h - what only the tests call of the cluster state
 * (cluster.h)
 *
 * Not part of cluster.h's contract: kept for the unit tests.
 * Include after cluster.h.
 */
#ifndef NODESHARE_CLUSTER_TEST_H
#define NODESHARE_CLUSTER_TEST_H

#include "cluster.h"

/* Memory not held by running jobs; INT64_MAX when not tracked. */
int64_t ns_node_free_mem (const ns_cluster_t *c, int node);

/* Does program run on node?  (NS_PROGRAM_UNKNOWN never does.) */
int ns_node_runs_program (const ns_cluster_t *c, int node, int program);

/* First empty node with index >= from, or -1. */
int ns_cluster_next_empty (const ns_cluster_t *c, int from);

#endif /* !NODESHARE_CLUSTER_TEST_H */
