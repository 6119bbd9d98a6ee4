/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slurmconf.h - the machine of a real slurm.conf, for nodeshare-sim
 *
 * Reads the lines of a slurm.conf that describe the machine: NodeName
 * (node ranges such as n[01-16,20], NodeName=DEFAULT), PartitionName
 * (Nodes= host lists or ALL, PartitionName=DEFAULT), SelectTypeParameters,
 * DefMemPerCPU / DefMemPerNode / MaxMemPerCPU / MaxMemPerNode, and Include
 * (relative to the including file's directory).  Every other key is read
 * and ignored, as slurmctld ignores what it does not need here.  Keys are
 * case-insensitive; values may be quoted; a line ending in a backslash
 * continues on the next; '#' starts a comment.
 *
 * Nodes are numbered in the order they first appear (slurmctld's node
 * table order), partitions in the order of their lines.
 */
#ifndef NODESHARE_SLURMCONF_H
#define NODESHARE_SLURMCONF_H

#include <stddef.h>
#include <stdint.h>

#include "nserror.h"

typedef struct {
    char *name;
    int cpus;           /* CPUs=, else Boards x Sockets x CoresPerSocket x
                           ThreadsPerCore (default 1) */
    int sockets;        /* Boards x Sockets (>= 1, at most cpus) */
    int cores;          /* physical cores: cpus / threads */
    int threads;        /* ThreadsPerCore (default 1) */
    int64_t mem;        /* RealMemory, MB (Slurm's default 1) */
    uint32_t weight;    /* Weight (default 1) */
    char *features;     /* Features= as written (comma list), or NULL */
    char *gres;         /* Gres= as written ("gpu:a100:4"), or NULL */
} ns_sconf_node_t;

typedef struct {
    char *name;
    unsigned char *nodes;  /* nnodes bytes: 1 when the node is in it */
    int nnodes_in;         /* how many */
    int is_default;        /* Default=YES */
    int up;                /* State=UP (default) or not (DOWN, DRAIN,
                              INACTIVE: no job starts there) */
    int max_nodes;         /* MaxNodes, 0: UNLIMITED */
    int max_cpus_per_node; /* MaxCPUsPerNode, 0: UNLIMITED */
    int64_t def_mem_per_cpu;  /* DefMemPerCPU, 0: the global one */
    int64_t def_mem_per_node; /* DefMemPerNode, 0: the global one */
    int64_t max_mem_per_cpu;  /* MaxMemPerCPU, 0: the global one */
    int64_t max_mem_per_node; /* MaxMemPerNode, 0: the global one */
} ns_sconf_part_t;

typedef struct {
    ns_sconf_node_t *nodes;
    int nnodes;
    ns_sconf_part_t *parts;
    int nparts;
    int cr_memory;         /* SelectTypeParameters ends in _Memory (or is
                              CR_Memory): memory is allocated */
    int cr_cpu;            /* CR_CPU or CR_CPU_Memory: a CPU (hardware
                              thread) is the unit, else a core */
    int cr_socket;         /* CR_Socket or CR_Socket_Memory: Slurm gives
                              whole sockets (the simulator counts cores) */
    int64_t def_mem_per_cpu;  /* global DefMemPerCPU, 0: none */
    int64_t def_mem_per_node; /* global DefMemPerNode, 0: none */
    int64_t max_mem_per_cpu;  /* global MaxMemPerCPU, 0: none */
    int64_t max_mem_per_node; /* global MaxMemPerNode, 0: none */
} ns_sconf_t;

/* Read the file at path (and what it includes, at most 16 levels deep).
 * NULL with err "FILE: line N: field KEY: what was expected" on a
 * malformed line, a node defined twice, a partition naming an unknown
 * node, no NodeName line at all, an unreadable file. */
ns_sconf_t *ns_sconf_load (const char *path, ns_error_t *err);

void ns_sconf_free (ns_sconf_t *sc);

/* Index of the partition named name, or -1. */
int ns_sconf_part_index (const ns_sconf_t *sc, const char *name);
/* The Default=YES partition (the first if several), else the first
 * partition, or -1 when there is none. */
int ns_sconf_default_part (const ns_sconf_t *sc);

#endif /* !NODESHARE_SLURMCONF_H */
