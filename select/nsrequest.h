/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsrequest.h - the request: a job record as the model's ns_request_t,
 * and the stripe's shape written into the record and taken back.
 *
 * The select plugin's translation between slurmctld's job records and
 * model/ (design.md section 7), apart from the decision itself: which
 * jobs the model cannot express or must leave as asked, the request it
 * places, and the fields a striped answer sets.  It reads the job record,
 * the candidate bitmap and slurm_conf's SelectTypeParameters, and nothing
 * else of slurmctld: tests/unit/nsrequest.c builds job records and runs
 * it against each Slurm release's headers and libslurmfull.
 */
#ifndef NODESHARE_NSREQUEST_H
#define NODESHARE_NSREQUEST_H

#include <stdint.h>
#include <time.h>

#include "nscompat.h"

#include "nsconfig.h"
#include "policy.h"

#include "jobmemo.h"

/* A 16-bit option the job set (not 0, NO_VAL16 or INFINITE16). */
int ns_set16 (uint16_t v);

/* SelectTypeParameters with memory a consumable resource. */
int ns_req_mem_consumed (void);
/* SelectTypeParameters=CR_Socket (or CR_Socket_Memory): cons_tres gives
 * jobs whole sockets, and spreads a job's tasks over the sockets of each
 * of its nodes; the model counts cores.  A stripe would hold a socket or
 * more on each of its nodes where stock holds them on one: cons_tres
 * places every job as asked. */
int ns_req_whole_sockets (void);
#define NS_WHOLE_SOCKETS_WHY "whole sockets (SelectTypeParameters=CR_Socket)"

/* Does cons_tres give the job all the memory of each of its nodes? */
int ns_req_all_node_memory (const job_details_t *d);
/* Does the job hold its nodes whole (--exclusive, or all their memory)? */
int ns_req_holds_whole_nodes (const job_details_t *d);

/* Why the model cannot express this request (cons_tres places it as
 * asked: --spread-job, GRES, --overcommit, tasks per socket ...), or
 * NULL. */
const char *ns_req_beyond_model (const job_record_t *job);
/* An explicit shape (design.md section 2: placed exactly as stock): the
 * option that asks for it (--exclusive, -N, --nodelist ...), or NULL. */
const char *ns_req_explicit (const job_record_t *job);
/* The scope list of cfg that leaves the job out (its partition, account
 * or QOS: ns_config_out_of_scope), or -1 when nodeshare acts on it. */
int ns_req_out_of_scope (const ns_config_t *cfg, const job_record_t *job);

/* What a request needs besides the job record. */
typedef struct {
    const ns_config_t *cfg;         /* scope, stripe_gres_nodes */
    int nnodes;                     /* nodes of the model */
    unsigned char *allowed;         /* nnodes, written: the candidates */
    const unsigned char *gres_node; /* nnodes: a node with GRES */
    int ngres_nodes;
    time_t now;                     /* for the time the job has waited */
} ns_reqctx_t;

/* The request of a job whose shape the policy may choose (neither
 * beyond the model nor explicit): tasks, CPUs per task, the candidate
 * nodes of bitmap (into x->allowed), GRES nodes not to stripe onto,
 * no-requeue and scope flags, memory, the node limits and its wait. */
void ns_req_build (const ns_reqctx_t *x, const job_record_t *job,
                   int program, bitstr_t *bitmap, uint32_t max_nodes,
                   ns_request_t *r);

/* A striped job: width nodes, tpn tasks on each (design.md section 7);
 * tpn 0 leaves the tasks per node to cons_tres (an uneven stripe, whose
 * cores per node come from the cores it is left).  A per-node --mem is
 * lowered to mem_per_node.  What was there is kept in ji. */
void ns_req_apply_shape (job_record_t *job, ns_jobinfo_t *ji, int width,
                         int tpn, int cpt, int64_t mem_per_node);
/* Undo ns_req_apply_shape, field by field, unless slurmctld changed the
 * field since. */
void ns_req_undo_shape (job_record_t *job, ns_jobinfo_t *ji);

/* Why a job waits, where its user sees it: "nodeshare: " and the tail of
 * the explanation ("waits (twin): ...") in its SystemComment, set only
 * when that is empty or nodeshare's own (an administrator's or Slurm's
 * comment is never overwritten), and up to 22.05 also in its reason
 * (WAIT_BLOCK_D_ACTION, state_desc, squeue's %R).  1 when the record
 * changed. */
int ns_req_set_reason (job_record_t *job, const char *explain);
/* Remove nodeshare's own reason.  1 when the record changed. */
int ns_req_clear_reason (job_record_t *job);
/* "job 7 (LAM, 24 cores) [twins]: waits (twin): ..." -> "waits (twin):
 * ...". */
const char *ns_req_explain_tail (const char *explain);

/* The decision in accounting: "[nodeshare] LINE" in the job's
 * AdminComment, which slurmctld sends to slurmdbd when the job starts
 * (sacct -o AdminComment).  What else is there (a job_submit plugin's
 * words) stays; an earlier segment of nodeshare's own (a requeued job) is
 * replaced; segments are separated by " | " (a " | " inside LINE becomes
 * " / ").  1 when the comment changed. */
int ns_req_admin_comment (job_record_t *job, const char *line);

#endif
