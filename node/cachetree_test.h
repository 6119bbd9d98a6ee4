/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cachetree_test.h - what only the tests call of the cache tree
 * (cachetree.h)
 *
 * Not part of cachetree.h's contract: kept for the unit tests, the fuzz
 * targets and bench/bench_tree.  Include after cachetree.h.
 */
#ifndef NODESHARE_CACHETREE_TEST_H
#define NODESHARE_CACHETREE_TEST_H

#include "cachetree.h"

/* The inverse of ns_cachetree_level_name() (case does not matter).  -1
 * with errno EINVAL if unknown. */
int ns_cachetree_level_parse (const char *name);

/* ns_cachetree_topology (spec) restricted to the cores in corelist (as in
 * ns_cachetree_cores_cpuset(); NULL means all cores).  Errors as those
 * three functions. */
ns_cachetree_t *ns_cachetree_load (const char *spec, const char *corelist,
                                   ns_error_t *err);

/* Subtract the task's footprint along its path and forget it.  -1 with
 * errno ENOENT for an id that is not a live task. */
int ns_cachetree_release (ns_cachetree_t *t, int task, ns_error_t *err);

/* Where a live task is (out->core is -1 for occupy() tasks).  -1 with
 * errno ENOENT for an unknown id. */
int ns_cachetree_task (const ns_cachetree_t *t, int task, ns_ctplace_t *out);

/* Live tasks. */
int ns_cachetree_ntasks (const ns_cachetree_t *t);

/* Nodes at a level in this tree (the machine: 1; an absent level: 0). */
int ns_cachetree_count (const ns_cachetree_t *t, ns_ctlevel_t level);

/* Logical index of the i-th node (0 <= i < count) of a level, in logical
 * order; -1 with errno EINVAL when out of range. */
int ns_cachetree_index (const ns_cachetree_t *t, ns_ctlevel_t level, int i);

/* Cores of the whole topology the tree was built from (valid logical core
 * indices are 0..n-1, whether in the tree or not). */
int ns_cachetree_topology_cores (const ns_cachetree_t *t);

/* Size, occupancy and cpus of the node (level, logical index).  -1 with
 * errno ENOENT when the tree has no such node, EINVAL for a bad level. */
int ns_cachetree_info (const ns_cachetree_t *t, ns_ctlevel_t level,
                       int index, ns_ctinfo_t *info);

/* Verify the bookkeeping: every node's occupied equals the footprints of
 * the tasks anchored in its subtree, every node's anchored and every
 * core's running count match the tasks, and the live task count is right
 * (so all are zero once every task is released).  0, or -1 with errno
 * EPROTO and the first violation in err. */
int ns_cachetree_check (const ns_cachetree_t *t, ns_error_t *err);

#endif /* !NODESHARE_CACHETREE_TEST_H */
