/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cachetree.h - space-bounded cache tree inside a node (design.md sec. 6)
 *
 * The tree mirrors a node's memory hierarchy as hwloc reports it,
 * restricted to a set of cores: the machine (root: main memory, unbounded),
 * packages, L3, L2 and L1 (data or unified) caches, and the cores as
 * leaves.  Levels the topology lacks are simply absent.  Everything else
 * hwloc reports is looked through: Group and Die objects, NUMA nodes and
 * memory-side caches (memory children), instruction caches, L4/L5, PUs.
 * When hwloc has caches of one level at several depths (a unified L1
 * above an L1d), the level is the depth nearest the cores and the others
 * are looked through.  A cache or package is in the tree only if one of
 * the tree's cores is under it, whatever its cpuset says.
 *
 * Sizes.  A cache has hwloc's cache size in bytes (beware: in an hwloc
 * synthetic description "size=30MB" is 30,000,000 bytes, "30MiB" is
 * 30 * 2^20).  The machine is unbounded (NS_CT_UNBOUNDED).  A package
 * holds what its caches in this tree hold: the sum of the sizes of the
 * topmost caches under it (so 0 when the topology has no caches).  A core
 * holds nothing: tasks anchor at caches, packages or the machine, never
 * at a core.  A cache keeps its full size even when only some of its cores
 * are in the tree.
 *
 * Names.  Packages, caches and cores are named by level and hwloc logical
 * index in the whole topology, never renumbered by the restriction; the
 * machine is index 0.  Trees built by different jobs on the same node
 * therefore agree on names, which is what lets a node-local ledger pass
 * occupancy from one job's tree to another's (ns_cachetree_occupy()).
 *
 * Tasks.  ns_cachetree_place() and ns_cachetree_occupy() return task ids:
 * small integers >= 0, lowest free first, reused after release (like file
 * descriptors).  Footprints are bytes.
 *
 * Cost: building is linear in the topology; placing walks the origin's
 * ancestors and, when its own cache is full, scans that level's caches
 * nearest first, with no allocation (about 0.04 us on a 256-core node).
 *
 * A tree does not keep the hwloc topology it was built from.  It is not
 * thread-safe.  Nothing here logs or exits: failures return -1 or NULL
 * with errno set and fill a caller-supplied ns_error_t when given one.
 */
#ifndef NODESHARE_CACHETREE_H
#define NODESHARE_CACHETREE_H

#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>

#include "nserror.h"

typedef struct ns_cachetree ns_cachetree_t;

/* Levels, bottom up.  NS_CT_CORE is the leaf level: tasks run on cores
 * but never anchor there. */
typedef enum {
    NS_CT_CORE = 0,
    NS_CT_L1,
    NS_CT_L2,
    NS_CT_L3,
    NS_CT_PACKAGE,
    NS_CT_MACHINE,
} ns_ctlevel_t;

#define NS_CT_NLEVELS 6

/* The machine's size. */
#define NS_CT_UNBOUNDED UINT64_MAX

/* At most this many tasks (placed and occupied) at once. */
#define NS_CACHETREE_MAX_TASKS (1 << 20)

/* Where a task went. */
typedef struct {
    int task;                  /* id, for release and explain */
    ns_ctlevel_t level;        /* level of the cache it is anchored at */
    int cache;                 /* hwloc logical index within that level */
    int core;                  /* logical index of the core it runs on;
                                  -1 for occupancy fed by occupy() */
    hwloc_const_cpuset_t cpus; /* OS PUs of the anchor cache that are in
                                  the tree: where the task may run.  Owned
                                  by the tree, valid until it is destroyed */
} ns_ctplace_t;

/* One tree node, as ns_cachetree_info() reports it. */
typedef struct {
    uint64_t size;             /* bytes; NS_CT_UNBOUNDED, 0 for a core */
    uint64_t occupied;         /* footprints anchored in its subtree */
    int anchored;              /* tasks anchored at this node itself */
    int running;               /* cores: placed tasks running on it */
    hwloc_const_cpuset_t cpus; /* its OS PUs in the tree; owned by tree */
} ns_ctinfo_t;

/* "core", "L1", "L2", "L3", "package", "machine"; "?" for anything else. */
const char *ns_cachetree_level_name (ns_ctlevel_t level);

/* Build the tree over the cores of topo that have at least one PU in
 * cpuset (OS PU indices; NULL means every core of the topology).  Tree
 * nodes' cpus are their PUs that are in cpuset.  The topology must be
 * loaded; the tree copies what it needs, so the caller may destroy topo
 * right after.  NULL with errno EINVAL if the cpuset selects no core or
 * the topology has no Core objects, ENOMEM.  The caller destroys the tree. */
ns_cachetree_t *ns_cachetree_from_topology (hwloc_topology_t topo,
                                            hwloc_const_cpuset_t cpuset,
                                            ns_error_t *err);

/* Load a topology: spec "live" is this machine (with
 * HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED, so logical indices do not depend
 * on the caller's cgroup), an existing file (or any spec containing '/' or
 * ending in ".xml") is an hwloc XML export, anything else an hwloc
 * synthetic description such as
 * "pack:2 l3:1(size=30MiB) l2:12(size=256KiB) l1d:1(size=32KiB) core:1 pu:2".
 * Returns a loaded topology the caller releases with
 * hwloc_topology_destroy(), or NULL with errno set (ENOENT, EINVAL for a
 * bad description or XML file, ...).  An XML file must pass
 * ns_hwlocxml_check_file() (hwlocxml.h), a synthetic description
 * ns_cachetree_check_synthetic(). */
hwloc_topology_t ns_cachetree_topology (const char *spec, ns_error_t *err);

/* Refuse a synthetic description of more than NS_CT_SYNTHETIC_PUS PUs
 * (the product of its arities, counted the way hwloc reads them):
 * hwloc 2.9 builds a synthetic topology in time quadratic in the arity of
 * a level (4096 cores of one package: 3 s; "pack:6 core:2 666666", 8
 * million PUs, did not finish in a minute).  0, or -1 with errno EINVAL
 * and "'SPEC': more than 2048 PUs: ..." in err. */
#define NS_CT_SYNTHETIC_PUS 2048
int ns_cachetree_check_synthetic (const char *spec, ns_error_t *err);

/* Set cpuset to the OS PUs of the cores in corelist: hwloc logical core
 * indices as "0-3,8" (decimal numbers and ranges N-M, N <= M, separated by
 * commas; no spaces).  -1 with errno EINVAL for bad syntax or a core the
 * topology does not have, ENOMEM. */
int ns_cachetree_cores_cpuset (hwloc_topology_t topo, const char *corelist,
                               hwloc_cpuset_t cpuset, ns_error_t *err);

/* Accepts NULL; preserves errno. */
void ns_cachetree_destroy (ns_cachetree_t *t);

/* Place a task of `footprint` bytes whose origin is the core with logical
 * index origin_core, with dilation sigma (0 < sigma <= 1; 1 reproduces
 * the thesis, 0.5 is Simhadri's default).  Exactly design.md section 6:
 *
 *  1. Walk up from the origin's L1 (or, without one, the lowest node above
 *     the core) to the first level whose cache fits:
 *     footprint <= sigma * size (the machine always fits).
 *  2. Anchor at the origin's own cache there if it has room
 *     (occupied + footprint <= size).  Otherwise try the other caches of
 *     that level, nearest first: those under the same parent, then under
 *     the grandparent, and so on; lowest logical index first among equally
 *     near ones.  Nearness counts tree levels only: the L3s of a package
 *     are equally near whatever Groups or NUMA nodes hwloc puts between
 *     them.  If none has room, go one level up and repeat.  A cache
 *     is taken only if the task fits it and it has room (the two tests only
 *     differ from the design's wording if caches of one level differ in
 *     size).
 *  3. Anchoring adds the footprint to the chosen node and all its
 *     ancestors.  The task runs on the origin core if it is under the
 *     chosen cache, else on the core under it that runs the fewest placed
 *     tasks (lowest logical index among those).
 *
 * Fills *out (may be NULL) and returns the task id, or -1 with errno
 * EINVAL (origin not in the tree, bad sigma), EOVERFLOW (the machine's
 * occupancy would exceed 2^64 - 1), ENOSPC (NS_CACHETREE_MAX_TASKS), or
 * ENOMEM, leaving the tree unchanged. */
int ns_cachetree_place (ns_cachetree_t *t, uint64_t footprint,
                        int origin_core, double sigma, ns_ctplace_t *out,
                        ns_error_t *err);

/* Feed occupancy from outside (another job's task, from the node's
 * ledger): anchor `bytes` at the cache (level, logical index) as a task
 * that runs on no core of this tree, whether it has room or not.  Returns
 * the task id (release it like any other) or -1 with errno ENOENT when
 * the tree has no such node (its cores are outside the tree: the caller
 * may skip the entry, it cannot affect placements here), EINVAL for
 * NS_CT_CORE or a bad level, EOVERFLOW, ENOSPC, ENOMEM. */
int ns_cachetree_occupy (ns_cachetree_t *t, ns_ctlevel_t level, int cache,
                         uint64_t bytes, ns_error_t *err);

/* One line saying why the task went where it went, as recorded when it
 * was placed.  Returns the length of the whole line, as snprintf (the
 * text is truncated to len - 1 characters), or -1 with errno ENOENT. */
int ns_cachetree_explain (const ns_cachetree_t *t, int task, char *buf,
                          size_t len);

/* Format bytes the way explain does: "32K", "30M", "1G" when exact
 * (powers of 1024), else one decimal ("28.6M"); below 1K plain bytes
 * ("512B"); zero as "0".  Returns buf. */
const char *ns_cachetree_size_str (uint64_t bytes, char *buf, size_t len);

#endif /* !NODESHARE_CACHETREE_H */
