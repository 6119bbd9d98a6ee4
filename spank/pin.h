/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pin.h - what the SPANK plugin does for one job step on one node
 *
 * Kept apart from the Slurm glue (nodeshare.c) so that the benchmark and
 * the tests run the very same path without Slurm: load the node's
 * topology, translate the step's Slurm core indices into the cores of that
 * topology, build the cache tree over them, and, under the ledger's lock,
 * reclaim dead steps' records, feed the other steps' occupancy into the
 * tree, place the local ranks (node/ledger.c decides) and record them.
 *
 * Slurm's core indices.  S_JOB_ALLOC_CORES / S_STEP_ALLOC_CORES list
 * "abstract" core indices: the node's cores numbered socket by socket,
 * core by core (format_core_allocs() in Slurm's slurm_cred.c cuts the
 * job's core bitmap at sockets x cores_per_socket per node).  slurmd maps
 * them to the machine the way xcpuinfo_hwloc_topo_get() in Slurm 22.05
 * builds its block map: it walks the sockets (hwloc Packages, or L3
 * caches / NUMA parents with l3cache_as_socket / numa_node_as_socket) in
 * logical order, skipping sockets without cores, and numbers the cores
 * below each in logical order; task/affinity's xcpuinfo_abs_to_mac() then
 * reads that map.  Since hwloc numbers cores depth first, the k-th core
 * of that walk is the core with hwloc logical index k, which is what the
 * cache tree takes: the translation is the identity on indices plus a
 * range check against the topology.  An index beyond the topology (a
 * node declared larger than its machine) is an error: no pinning unless
 * a topology of the declared size is given (dry runs).
 */
#ifndef NODESHARE_PIN_H
#define NODESHARE_PIN_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>

#include "cachetree.h"
#include "ledger.h"
#include "nserror.h"

/* One step on one node. */
struct ns_pin_req {
    const char *topology;   /* see ns_pin_topology_spec() */
    const char *topology_cache; /* "live" only: XML copy of the machine's
                                   topology, reused while the boot and the
                                   online CPUs stay the same; NULL: none */
    const char *cores;      /* Slurm core indices on this node, "0-3,8" */
    int ntasks;             /* local tasks, ids 0..ntasks-1 */
    int cpus_per_task;      /* < 1 counts as 1 */
    uint64_t footprint;     /* bytes per rank */
    uint64_t step_mem;      /* if footprint is 0 and this is not: the
                               step's memory on the node; a rank's
                               footprint is then its share, memory per
                               allocated CPU x cpus_per_task */
    double sigma;           /* dilation, (0, 1] */
    const char *ledger;     /* ledger file; NULL: place without one */
    int ledger_capacity;    /* records of a new ledger file; 0: default */
    int lock_timeout_ms;
    ns_ledger_owner_t owner;
};

/* Where one local task goes. */
struct ns_pin_task {
    int task;               /* local task id */
    int origin;             /* hwloc logical core it started from */
    ns_ctlevel_t level;     /* anchor */
    int cache;
    int core;               /* logical core it runs on */
    hwloc_bitmap_t cpus;    /* OS CPUs to bind to */
    char cpulist[256];      /* the same as a list, "4-7" */
    char why[512];          /* ns_cachetree_explain() */
};

struct ns_pin_plan {
    int ntasks;
    uint64_t footprint;     /* what each rank was placed with */
    struct ns_pin_task *task;
    int threads_per_core;
    int occupied;           /* caches holding other steps' ranks */
    int reclaimed;          /* dead steps' records dropped */
    int repaired;           /* broken records dropped (a holder died
                               mid-update, a stray write) */
    int reset;              /* the ledger had another topology */
};

/* Plan the step.  Returns a plan the caller destroys, or NULL with errno
 * and err filled (a bad topology, core list or request; the ledger
 * cannot be opened, locked in time, or is full: ENOSPC). */
struct ns_pin_plan *ns_pin_plan_create (const struct ns_pin_req *req,
                                        ns_error_t *err);

/* Accepts NULL; preserves errno. */
void ns_pin_plan_destroy (struct ns_pin_plan *p);

/* Drop the owner's record of `task` (all its records when task < 0) from
 * the ledger file.  Returns how many were dropped, or -1 with errno and
 * err filled. */
int ns_pin_forget (const char *ledger, int lock_timeout_ms,
                   const ns_ledger_owner_t *owner, int task, ns_error_t *err);

/* Load a topology as ns_cachetree_topology() does, faster:
 *  - hwloc's I/O and libxml2 plugins are not loaded (by setting
 *    HWLOC_PLUGINS_BLACKLIST in this process's environment if it is
 *    unset): they cost milliseconds per load and the cache tree needs
 *    neither I/O devices nor libxml2 to read hwloc's own XML;
 *  - "live" is read from `cache` (an XML export stamped with the boot id
 *    and the online CPUs) when that file is ours (owner, mode 0600) and
 *    its stamp is current; otherwise the machine is discovered and the
 *    cache rewritten (atomically; failures to write it are ignored).
 *    A cache whose directory is not safe (ns_ledger_file_safe_dir()) is
 *    an error (EPERM): nothing is loaded.
 * Returns the topology (hwloc_topology_destroy() it) or NULL with errno
 * and err filled. */
hwloc_topology_t ns_pin_topology_load (const char *spec, const char *cache,
                                       ns_error_t *err);

/* Bind the calling process to cpus.  0, or -1 with errno and err. */
int ns_pin_bind (hwloc_const_bitmap_t cpus, ns_error_t *err);

/* The topology description for ns_cachetree_topology() from a plugin
 * argument, which cannot hold spaces (plugstack.conf splits on them):
 * "live"; a file holding an hwloc XML export (passed on as is) or a
 * synthetic description (its first line is read); an inline synthetic
 * description with commas between levels,
 * "pack:2,l3:1(size=30MiB),l2:12(size=256KiB),core:1,pu:1" (hwloc uses
 * no commas there; spaces inside parentheses cannot be written).
 * Returns buf, or NULL with errno and err filled (ENAMETOOLONG, a file
 * that cannot be read). */
const char *ns_pin_topology_spec (const char *arg, char *buf, size_t len,
                                  ns_error_t *err);

/* Is name fit for "%n" in root-owned paths (ledger, topology cache,
 * report)?  1 to 255 characters from A-Z a-z 0-9 . _ -, not starting with
 * a dot: no '/', no "..", nothing hidden.  The name may come from the
 * job's own environment. */
int ns_pin_node_name_ok (const char *name);

/* Replace "%n" in pattern by node and "%%" by "%".  Returns buf, or NULL
 * with errno ENAMETOOLONG. */
const char *ns_pin_expand (const char *pattern, const char *node, char *buf,
                           size_t len);

/*
 * The plugin's arguments and option values, parsed without Slurm (so
 * that tests and the fuzz target run the plugin's own parser)
 */

/* --nodeshare-bind and mode=. */
enum ns_pin_mode { NS_PIN_AUTO, NS_PIN_NONE, NS_PIN_VERBOSE };

/* "auto", "none" or "verbose" into *m: 0, or -1 (*m unchanged). */
int ns_pin_parse_mode (const char *s, enum ns_pin_mode *m);

/* A --nodeshare-program value: 1 to 127 characters from A-Z a-z 0-9
 * . _ + -. */
int ns_pin_program_ok (const char *s);

/* Did the user ask Slurm for a binding of their own?  The arguments are
 * the values (NULL when unset) of what srun puts into the step's
 * environment for the user's own request, before it adds the site's
 * defaults (TaskPluginParam, CpuBind=), which never reach that
 * environment:
 *   cpu_type   SLURM_CPU_BIND_TYPE: "cores", "none", "map_cpu:", ... from
 *              --cpu-bind (or what implies it: --ntasks-per-core,
 *              --threads-per-core, -B, --hint); empty when the user gave
 *              nothing or only --cpu-bind=verbose
 *   cpu_list   SLURM_CPU_BIND_LIST: the list after "map_cpu:" and the like
 *   tres_bind  SLURM_TRES_BIND (Slurm 23.11 and later): "gres/gpu:closest",
 *              TRES separated by '+'
 *   gpu_bind   SLURM_GPU_BIND (Slurm 23.02; 22.05 when srun found it in
 *              its own environment): "closest"
 * A request that is only "verbose" asks for no binding.  Returns 1 and
 * writes the option as the user would have written it ("--cpu-bind=cores",
 * "--cpu-bind=map_cpu:1,0", "--gpu-bind=closest"; cut to fit) into what,
 * or 0 (what empty). */
int ns_pin_user_binding (const char *cpu_type, const char *cpu_list,
                         const char *tres_bind, const char *gpu_bind,
                         char *what, size_t len);

/* Site defaults: the plugin's arguments in plugstack.conf. */
struct ns_pin_args {
    int bad;                    /* an argument was malformed: do nothing */
    char badmsg[256];
    enum ns_pin_mode mode;
    int dryrun;
    uint64_t footprint;
    int have_footprint;
    double sigma;
    int have_sigma;
    char topology[1024];
    char topocache[PATH_MAX];
    char ledger[PATH_MAX];
    char report[PATH_MAX];
    char config[PATH_MAX];
    int timeout_ms;
    int capacity;
};

/* The defaults (mode auto, timeout 2000 ms, topology live, topocache
 * /run/nodeshare/%n.topology.xml, ledger /run/nodeshare/%n.ledger), then
 * av[0..ac) in order, each "key=value" as nodeshare-spank(8) describes.
 * The first malformed argument sets bad and badmsg and ends the parse. */
void ns_pin_parse_args (struct ns_pin_args *a, int ac, char **av);

#endif /* !NODESHARE_PIN_H */
