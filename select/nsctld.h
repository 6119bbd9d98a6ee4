/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsctld.h - slurmctld's records as model/ state, and the answer back
 *
 * The select plugin (select_cons_tres_nodeshare.c) delegates everything to
 * the stock cons_tres and calls these at the points where nodeshare has a
 * say.  Everything here runs only inside slurmctld; in slurmd and in client
 * commands ns_ctld_init() leaves the plugin inactive and ns_ctld_job_test()
 * passes straight through.
 *
 * State: the model's cluster (nodes and running jobs, with the program each
 * runs) is rebuilt from node_record_table_ptr and job_list whenever
 * something changed that incremental updates do not cover (start-up,
 * reconfigure, resize, suspend); job starts and ends update it in place.
 */
#ifndef NODESHARE_NSCTLD_H
#define NODESHARE_NSCTLD_H

#include "nscompat.h"

/* Read nodeshare.json (slurmctld only; elsewhere: inactive, returns 0).
 * A broken file is fatal here: slurmctld stops with the model's message. */
int ns_ctld_init (void);
void ns_ctld_fini (void);

/* select_p_reconfigure: reload nodeshare.json when it changed, or always
 * after ns_ctld_job_init() (which slurmctld calls on `scontrol
 * reconfigure`).  A broken file keeps the configuration in force and logs
 * the error. */
void ns_ctld_reconfigure (void);

/* The cluster must be rebuilt from slurmctld's records before the next
 * decision. */
void ns_ctld_dirty (void);
void ns_ctld_job_init (void);
void ns_ctld_job_begin (job_record_t *job_ptr);
void ns_ctld_job_fini (job_record_t *job_ptr);

/* select_p_job_test: decide with the model, then let cons_tres allocate
 * on the nodes (and with the shape) nodeshare chose.  Falls back to
 * stock(...) unchanged whenever nodeshare has no say or is in trouble. */
int ns_ctld_job_test (ns_job_test_f stock, job_record_t *job_ptr,
                      bitstr_t *bitmap, uint32_t min_nodes,
                      uint32_t max_nodes, uint32_t req_nodes, uint16_t mode,
                      list_t *preemptee_candidates,
                      list_t **preemptee_job_list, const ns_exc_t *exc);

#endif /* !NODESHARE_NSCTLD_H */
