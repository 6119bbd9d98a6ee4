/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ledgerfile.h - the node's ledger as a shared, locked file
 *
 * node/ledger.c keeps the ledger's records in a memory region; this is
 * where that region lives on a node: a file (by default
 * /run/nodeshare/%n.ledger, the SPANK plugin's ledger= argument) mapped
 * shared by every slurmstepd, owned by root and readable by no one else,
 * whose first page holds a process-shared robust mutex.  When a
 * process dies holding the mutex, the next locker is told (EOWNERDEAD) and
 * repairs the records (ns_ledger_repair()); a holder that hangs costs the
 * others a bounded wait, after which they give up pinning.
 *
 * The file appears atomically: it is built under a temporary name and
 * link(2)ed into place, so whoever opens it sees an initialised mutex.
 * A file with a wrong header is replaced the same way (rename(2)).
 */
#ifndef NODESHARE_LEDGERFILE_H
#define NODESHARE_LEDGERFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ledger.h"
#include "nserror.h"

typedef struct ns_ledger_file ns_ledger_file_t;

/* Records in a ledger file created without a capacity (about 256 KiB). */
#define NS_LEDGER_FILE_CAPACITY 4096

/* Open the ledger file at path, creating it with room for `capacity`
 * records (0: NS_LEDGER_FILE_CAPACITY) if it does not exist; an existing
 * file keeps its own capacity.  The directory is created (mode 0755) if
 * missing.  An existing path that is not a regular file owned by the
 * caller with no permissions for group and others, or in a directory
 * that is not safe (ns_ledger_file_safe_dir()), is refused with EPERM:
 * no one else may be able to forge occupancy.  NULL with errno (EPERM,
 * open(2)'s, mmap(2)'s, ENOMEM) and err filled on failure. */
ns_ledger_file_t *ns_ledger_file_open (const char *path, int capacity,
                                       ns_error_t *err);

/* Make sure the directory that will hold the root-owned file `path` is
 * safe, creating it (mode 0755) if it is missing: a directory, not a
 * symbolic link, owned by the caller, writable by no one else; and every
 * directory above it (of an absolute path) owned by root or the caller
 * and writable by group or others only with the sticky bit (/tmp).
 * Otherwise someone else could swap the file or plant links.  0, or -1
 * with errno EPERM (or lstat(2)'s) and err naming the directory. */
int ns_ledger_file_safe_dir (const char *path, ns_error_t *err);

/* Unmap and close; does not unlock.  Accepts NULL; preserves errno. */
void ns_ledger_file_close (ns_ledger_file_t *f);

/* Take the lock, waiting at most timeout_ms milliseconds.  0 on success,
 * with *recovered (may be NULL) set to 1 when the previous holder died
 * holding it (the caller should run ns_ledger_repair()) and 0 otherwise.
 * -1 with errno ETIMEDOUT (held too long by a live process), or another
 * pthread_mutex_timedlock(3) error, and err filled. */
int ns_ledger_file_lock (ns_ledger_file_t *f, int timeout_ms, int *recovered,
                         ns_error_t *err);

void ns_ledger_file_unlock (ns_ledger_file_t *f);

/* The region that holds the records, for ns_ledger_attach(). */
void *ns_ledger_file_region (ns_ledger_file_t *f, size_t *len);

/* Start time of a process in clock ticks since boot (field 22 of
 * /proc/PID/stat); 0 if it cannot be read. */
uint64_t ns_ledger_file_pid_start (pid_t pid);

/* An ns_ledger_alive_f: the owner's process exists and, when the record
 * knows its start time, started at that time (so a reused pid is not
 * mistaken for the step).  arg is unused. */
int ns_ledger_file_alive (const ns_ledger_owner_t *owner, void *arg);

#endif /* !NODESHARE_LEDGERFILE_H */
