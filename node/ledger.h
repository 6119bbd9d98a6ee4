/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ledger.h - the node-local occupancy ledger (design.md section 6)
 *
 * Every job step on a node places its ranks in a cache tree built over
 * its own cores only.  The ledger is what lets a second step see the
 * first one: a table of (owner, task, cache, bytes) records, one per rank
 * anchored somewhere, that every step feeds into its tree with
 * ns_cachetree_occupy() before placing its own ranks.  Caches are named
 * as the cache tree names them (level, hwloc logical index in the whole
 * topology), so trees built over different cores agree.
 *
 * This module is the ledger's logic only: it works on a memory region the
 * caller provides (spank/ maps a root-owned file and serialises access
 * with a robust process-shared mutex; tests use plain memory) and never
 * locks, logs or looks at processes.  Whether an owner is still alive is
 * asked of a caller-supplied callback.
 *
 * Region layout (all fields native-endian; a node shares one kernel):
 *   header  64 bytes: magic "NSLEDGR1", version, capacity, record size,
 *           header size, topology id, seal;
 *   records capacity x 64 bytes.
 * A record is written in full, sealed with a hash of its fields, and only
 * then marked used (a release store), so a process that dies half-way
 * through an update leaves either a free slot or a complete record; a
 * record whose seal does not match is dropped by ns_ledger_repair().
 * Records of a step that died are dropped by ns_ledger_reclaim().
 *
 * A ledger records one topology (ns_ledger_topology_id()): attaching with
 * another id empties it, since its cache names would mean other caches.
 */
#ifndef NODESHARE_LEDGER_H
#define NODESHARE_LEDGER_H

#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>

#include "cachetree.h"
#include "nserror.h"

typedef struct ns_ledger ns_ledger_t;

/* Who holds a record: a job step, and the process that answers for it
 * (slurmstepd).  pid_start is that process's start time (any clock that
 * does not change for a live process; 0 if unknown) so that a reused pid
 * does not keep a dead step's records alive. */
typedef struct {
    uint32_t jobid;
    uint32_t stepid;
    int64_t pid;
    uint64_t pid_start;
} ns_ledger_owner_t;

/* One record. */
typedef struct {
    ns_ledger_owner_t owner;
    int task;                  /* the owner's local task id */
    ns_ctlevel_t level;        /* where the task is anchored */
    int cache;                 /* hwloc logical index within the level */
    uint64_t bytes;            /* its footprint */
} ns_ledger_entry_t;

/* A rank to place: its local task id, origin core (hwloc logical index)
 * and footprint in bytes. */
typedef struct {
    int task;
    int origin;
    uint64_t footprint;
} ns_ledger_task_t;

/* Largest capacity accepted. */
#define NS_LEDGER_MAX_CAPACITY (1 << 20)

/* Footprints are fed into trees as at most this (1 TiB, more than any
 * cache or package holds, so no decision changes): a tree fed by a full
 * ledger and a step's ranks then never overflows its 64-bit occupancy,
 * and no record, however large, makes placements fail.  Records keep
 * the bytes they were given. */
#define NS_LEDGER_MAX_BYTES ((uint64_t)1 << 40)

/* Bytes of region needed for `capacity` records (1..NS_LEDGER_MAX_CAPACITY);
 * 0 for a capacity out of range. */
size_t ns_ledger_size (int capacity);

/* Topology id that matches any (see ns_ledger_attach()); never returned
 * by ns_ledger_topology_id(). */
#define NS_LEDGER_ANY_TOPOLOGY 0

/* Use the region mem[0..len) as a ledger for the topology with id
 * `topology`.  A region without a valid header (all zeroes, garbage, a
 * different version or record size) is formatted with as many records as
 * fit; a valid one is kept, unless its topology id differs, in which case
 * it is emptied.  NS_LEDGER_ANY_TOPOLOGY keeps a valid region whatever
 * topology it records (to drop records without knowing it).  *reset (may be NULL) says whether records were lost
 * that way (1) or not (0).  mem must be 8-byte aligned and stay mapped
 * until ns_ledger_detach(); the caller serialises all access.
 * Returns a handle, or NULL with errno EINVAL (NULL or misaligned mem, len
 * below ns_ledger_size (1)) or ENOMEM. */
ns_ledger_t *ns_ledger_attach (void *mem, size_t len, uint64_t topology,
                               int *reset, ns_error_t *err);

/* Forget the handle (the region is left as it is).  Accepts NULL;
 * preserves errno. */
void ns_ledger_detach (ns_ledger_t *l);

int ns_ledger_capacity (const ns_ledger_t *l);

/* Record at slot i (0 <= i < capacity): 1 and *out filled if it is used,
 * 0 if it is free, -1 with errno EINVAL if i is out of range. */
int ns_ledger_entry (const ns_ledger_t *l, int i, ns_ledger_entry_t *out);

/* Add a record.  0, or -1 with errno ENOSPC (every slot used) or EINVAL
 * (bad level: only L1, L2, L3, package and machine hold footprints;
 * negative task or cache). */
int ns_ledger_add (ns_ledger_t *l, const ns_ledger_entry_t *e,
                   ns_error_t *err);

/* Drop the owner's record of `task`, or all its records when task < 0.
 * Returns how many were dropped. */
int ns_ledger_remove (ns_ledger_t *l, const ns_ledger_owner_t *owner,
                      int task);

/* Is the owner still there?  1 yes, 0 no; anything else counts as yes. */
typedef int (*ns_ledger_alive_f) (const ns_ledger_owner_t *owner, void *arg);

/* Drop the records of owners that alive() says are gone (asked once per
 * distinct owner).  Returns how many records were dropped. */
int ns_ledger_reclaim (ns_ledger_t *l, ns_ledger_alive_f alive, void *arg);

/* Drop records that are not complete or not well-formed (bad state, seal
 * or fields): after a process died holding the lock, or whenever a step
 * attaches (spank/pin.c), so that a broken record is gone, and logged,
 * at the next placement.  Returns how many were dropped. */
int ns_ledger_repair (ns_ledger_t *l);

/* Feed every record not owned by `skip` (may be NULL) into the tree: the
 * bytes recorded at each (level, cache) are summed (each record and each
 * sum at most NS_LEDGER_MAX_BYTES) and occupied with one
 * ns_cachetree_occupy() call.  Caches that are not in the tree (outside
 * its cores) are skipped: they cannot change a placement there; so are
 * malformed records (bad seal, level, cache or task: ns_ledger_repair()
 * drops them).  Returns the number of occupy() calls made, or -1 with
 * errno and err as ns_cachetree_occupy() (ENOSPC, ENOMEM). */
int ns_ledger_occupy (const ns_ledger_t *l, ns_cachetree_t *t,
                      const ns_ledger_owner_t *skip, ns_error_t *err);

/* Place a step's ranks: drop the owner's old records, feed the others'
 * occupancy into t (ns_ledger_occupy()), place tasks[0..n) in order with
 * ns_cachetree_place() (so each rank also sees the ranks placed before
 * it; footprints at most NS_LEDGER_MAX_BYTES), fill out[0..n) and record
 * every rank with a non-zero footprint under `owner`.  On failure the ledger keeps none of this call's records
 * (t is left with whatever was placed: discard it) and -1 is returned
 * with errno ENOSPC (the ledger is full) or as ns_cachetree_place(). */
int ns_ledger_place (ns_ledger_t *l, ns_cachetree_t *t,
                     const ns_ledger_owner_t *owner,
                     const ns_ledger_task_t *tasks, int n, double sigma,
                     ns_ctplace_t *out, ns_error_t *err);

/* Where a step's local task starts looking, as a position in the step's
 * core list (ascending logical indices): tasks take consecutive blocks of
 * ceil(cpus_per_task / threads_per_core) cores, as Slurm's default block
 * distribution lays them out, wrapping around when there are more tasks
 * than cores.  Arguments below 1 count as 1; -1 with errno EINVAL when
 * task < 0 or ncores < 1. */
int ns_ledger_origin (int task, int cpus_per_task, int threads_per_core,
                      int ncores);

/* A fingerprint of what a ledger's names refer to: the topology's
 * packages, caches, cores and PUs (type, logical and OS index, cache
 * size, cpuset).  Equal topologies give equal ids; never
 * NS_LEDGER_ANY_TOPOLOGY. */
uint64_t ns_ledger_topology_id (hwloc_topology_t topo);

#endif /* !NODESHARE_LEDGER_H */
