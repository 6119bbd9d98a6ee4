/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsrequest.c - a job record as the model's request, and a stripe's shape
 * written into it and taken back (nsrequest.h). */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <time.h>

#include "nscompat.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "nsconfig.h"
#include "policy.h"

#include "nsrequest.h"

/* Why a job waits, where its user sees it:
 * - on every release, the job's SystemComment (`scontrol show job`,
 *   `squeue -O SystemComment`, nodeshare-why JOBID), set only when it is
 *   empty or nodeshare's own, so an administrator's or Slurm's comment is
 *   never overwritten;
 * - up to 22.05 also the reason: select_nodes() keeps state_desc for
 *   WAIT_BLOCK_D_ACTION (and for no other "waiting for resources" code),
 *   so squeue's %R prints it.  From 23.02 select_nodes() resets the
 *   reason to Resources and frees state_desc after every failed test. */
#if !NS_SLURM_AT_LEAST(23, 2, 0)
#define NS_WAIT_REASON WAIT_BLOCK_D_ACTION
#endif
#define NS_DESC_PREFIX "nodeshare: "

static int ours (const char *text)
{
    return text && !strncmp (text, NS_DESC_PREFIX, strlen (NS_DESC_PREFIX));
}

int ns_set16 (uint16_t v)
{
    return v != 0 && v != NO_VAL16 && v != INFINITE16;
}


int ns_req_mem_consumed (void)
{
    return (slurm_conf.select_type_param & NS_CR_MEMORY) != 0;
}

/* Does cons_tres give the job all the memory of each of its nodes?  With
 * memory a consumable resource, a job of --mem=0 does, and so does a job
 * without --mem where neither DefMemPerCPU nor DefMemPerNode is set
 * (slurmctld then leaves pn_min_memory 0); cons_tres places such a job
 * only on nodes without memory allocated, and no job that needs memory
 * fits beside it: it holds its nodes whole, as --exclusive does. */
int ns_req_all_node_memory (const job_details_t *d)
{
    return ns_req_mem_consumed () && d->pn_min_memory == 0;
}

/* Does the job hold its nodes whole (--exclusive, or all their memory)? */
int ns_req_holds_whole_nodes (const job_details_t *d)
{
    return NS_WHOLE_NODE (d) || ns_req_all_node_memory (d);
}


/* SelectTypeParameters=CR_Socket (or CR_Socket_Memory): cons_tres gives
 * jobs whole sockets, and spreads a job's tasks over the sockets of each
 * of its nodes; the model counts cores.  A stripe would hold a socket or
 * more on each of its nodes where stock holds them on one: cons_tres
 * places every job as asked. */
int ns_req_whole_sockets (void)
{
    return (slurm_conf.select_type_param & NS_CR_SOCKET) != 0;
}


/* Why the model cannot express this request (cons_tres places it as
 * asked), or NULL. */
const char *ns_req_beyond_model (const job_record_t *job)
{
    const job_details_t *d = job->details;
    if (job->bit_flags & SPREAD_JOB)
        return "--spread-job";
    if (job->gres_list_req && list_count (job->gres_list_req))
        return "generic resources";
    if (d->overcommit)
        return "--overcommit";
    if (d->mc_ptr && (ns_set16 (d->mc_ptr->ntasks_per_socket)
                      || ns_set16 (d->mc_ptr->ntasks_per_core)
                      || ns_set16 (d->mc_ptr->ntasks_per_board)))
        return "tasks per socket, core or board";
    if (d->core_spec != NO_VAL16 && d->core_spec)
        return "--core-spec";
    if (ns_req_whole_sockets ())
        return NS_WHOLE_SOCKETS_WHY;
    /* cons_tres may give it cores that other jobs hold (more than one job
     * per core: OverSubscribe=FORCE:N, or YES:N and --oversubscribe; as
     * cons_tres's _get_job_node_req () reads them): the model counts each
     * core once. */
    if (job->part_ptr && (job->part_ptr->max_share & ~SHARED_FORCE) > 1) {
        if (job->part_ptr->max_share & SHARED_FORCE)
            return "OverSubscribe=FORCE (its partition)";
        if (d->share_res == 1)
            return "--oversubscribe";
    }
    return NULL;
}


/* An explicit shape (design.md section 2: placed exactly as stock): the
 * option that asks for it, or NULL. */
const char *ns_req_explicit (const job_record_t *job)
{
    const job_details_t *d = job->details;
    if (NS_WHOLE_NODE (d))
        return "--exclusive";
    if (NS_WHOLE_TOPO (d))
        return "--exclusive=topo";
    if (ns_req_all_node_memory (d))
        return "all the memory of each node (--mem=0, or no --mem and "
               "neither DefMemPerCPU nor DefMemPerNode)";
    if (d->req_node_bitmap)
        return "--nodelist";
    /* Without -N slurmctld leaves max_nodes 0 (no limit), or, from 26.05,
     * sets it to the task count and says so (NS_IMPLICIT_MAX_NODES). */
    if ((d->max_nodes && d->max_nodes != NO_VAL && !NS_IMPLICIT_MAX_NODES (job))
        || d->min_nodes > 1)
        return "-N";
    if (ns_set16 (d->ntasks_per_node))
        return "--ntasks-per-node";
    /* --mincpus: CPUs per node the job asked for (slurmctld's own
     * default is the CPUs of one task). */
    if (d->pn_min_cpus > (uint32_t)(ns_set16 (d->cpus_per_task)
                                        ? d->cpus_per_task : 1))
        return "--mincpus";
    return NULL;
}


/* The scope list of nodeshare.json that leaves the job out (its
 * partition, account or QOS), or -1 when nodeshare acts on it. */
int ns_req_out_of_scope (const ns_config_t *cfg, const job_record_t *job)
{
    const char *qos = job->qos_ptr ? job->qos_ptr->name : NULL;
    return ns_config_out_of_scope (cfg,
                                   job->part_ptr ? job->part_ptr->name : NULL,
                                   job->account, qos);
}

void ns_req_build (const ns_reqctx_t *x, const job_record_t *job,
                   int program, bitstr_t *bitmap, uint32_t max_nodes,
                   ns_request_t *r)
{
    const job_details_t *d = job->details;
    int cpt = ns_set16 (d->cpus_per_task) ? d->cpus_per_task : 1;
    int ntasks = d->num_tasks && d->num_tasks != NO_VAL
                     ? (int)d->num_tasks : 0;
    if (ntasks < 1)
        ntasks = (int)(d->min_cpus / cpt);
    if (ntasks < 1)
        ntasks = 1;

    /* Explicit shapes (ns_req_explicit) never get here: cons_tres
     * places them as asked. */
    ns_request_init (r, job->job_id, program, ntasks);
    r->cpus_per_task = cpt;
    int nbits = bitmap ? (int)bit_size (bitmap) : 0;
    for (int i = 0; i < x->nnodes; i++)
        x->allowed[i] = i < nbits && bit_test (bitmap, i);
    r->allowed = x->allowed;
    /* A job asking for no GRES (ns_req_beyond_model sends the others to
     * cons_tres) is not striped onto nodes that have some: half the
     * cores of two GPU nodes may be what a GPU job then cannot get. */
    if (x->ngres_nodes && !ns_config_stripe_gres_nodes (x->cfg))
        r->no_stripe = x->gres_node;
    /* A stripe depends on twice the nodes: a job that cannot be
     * requeued is packed unless nodeshare.json allows it. */
    if (!d->requeue)
        r->flags |= NS_REQ_NO_REQUEUE;
    if (ns_req_out_of_scope (x->cfg, job) >= 0)
        r->flags |= NS_REQ_OUT_OF_SCOPE;
    /* What cons_tres checks besides CPUs (design.md 7.2): the model
     * places within it, the floor catches the rest. */
    uint64_t m = d->pn_min_memory;
    if (ns_req_mem_consumed () && m && m != NO_VAL64) {
        if (m & MEM_PER_CPU)
            r->mem_per_cpu = (int64_t)(m & ~MEM_PER_CPU);
        else if (m < INT64_MAX)
            r->mem_per_node = (int64_t)m;
    }
    if (max_nodes && max_nodes < INT_MAX)
        r->max_nodes = (int)max_nodes;
    if (job->part_ptr && job->part_ptr->max_cpus_per_node
        && job->part_ptr->max_cpus_per_node < INT_MAX)
        r->max_cpus_per_node = (int)job->part_ptr->max_cpus_per_node;
    time_t since = d->begin_time > d->submit_time ? d->begin_time
                                                  : d->submit_time;
    r->waited = since && x->now > since ? (int64_t)(x->now - since) : 0;
}

/* Undo a split shape written on an earlier call, unless slurmctld
 * changed the field since. */
void ns_req_undo_shape (job_record_t *job, ns_jobinfo_t *ji)
{
    job_details_t *d = job->details;
    if (!ji->applied)
        return;
    if (d->ntasks_per_node == ji->set_ntasks_per_node)
        d->ntasks_per_node = ji->orig_ntasks_per_node;
    if (d->pn_min_cpus == ji->set_pn_min_cpus)
        d->pn_min_cpus = ji->orig_pn_min_cpus;
    if (d->min_nodes == ji->set_min_nodes)
        d->min_nodes = ji->orig_min_nodes;
    if (d->pn_min_memory == ji->set_pn_min_memory)
        d->pn_min_memory = ji->orig_pn_min_memory;
    ji->applied = 0;
}

/* A striped job: width nodes, tpn tasks on each (design.md section 7);
 * tpn 0 leaves the tasks per node to cons_tres (an uneven stripe, whose
 * cores per node come from the cores it is left, nsctld.c's
 * stripe_exclude).
 * slurmctld resets min_nodes between calls, so this is redone on every
 * call. */
void ns_req_apply_shape (job_record_t *job, ns_jobinfo_t *ji, int width,
                         int tpn, int cpt, int64_t mem_per_node)
{
    job_details_t *d = job->details;
    ji->orig_min_nodes = d->min_nodes;
    ji->orig_max_nodes = d->max_nodes;
    ji->orig_pn_min_cpus = d->pn_min_cpus;
    ji->orig_ntasks_per_node = d->ntasks_per_node;
    ji->orig_pn_min_memory = d->pn_min_memory;
    /* Memory under striping (design.md 7.2): a per-node request (--mem)
     * is the job's memory on its minimal width, split over the stripe's
     * nodes (the model's mem_per_node), so that the stripe holds what the
     * job asked for in all; --mem-per-cpu follows the CPUs and stays as
     * it is. */
    uint64_t m = d->pn_min_memory;
    if (m && m != NO_VAL64 && !(m & MEM_PER_CPU) && mem_per_node > 0
        && (uint64_t)mem_per_node < m)
        d->pn_min_memory = (uint64_t)mem_per_node;
    ji->set_pn_min_memory = d->pn_min_memory;
    d->min_nodes = (uint32_t)width;
    if (tpn > 0) {
        d->ntasks_per_node = (uint16_t)tpn;
        if (d->pn_min_cpus < (uint32_t)(tpn * cpt))
            d->pn_min_cpus = (uint32_t)(tpn * cpt);
    }
    ji->set_min_nodes = d->min_nodes;
    ji->set_ntasks_per_node = d->ntasks_per_node;
    ji->set_pn_min_cpus = d->pn_min_cpus;
    ji->applied = 1;
}

/*
 * The decision in accounting: "[nodeshare] LINE" in the job's
 * AdminComment, which slurmctld sends to slurmdbd when the job starts
 * (sacct -o AdminComment) and keeps after the job ends (nodeshare-why).
 * What else is there (a job_submit plugin's words) stays: only an
 * earlier segment of nodeshare's own (a requeued job starts again) is
 * replaced, and segments are separated by " | ".
 */
#define AC_TAG "[nodeshare] "
#define AC_SEP " | "
#define AC_MAX 480

int ns_req_admin_comment (job_record_t *job, const char *line)
{
    char *rest = NULL;
    const char *old = job->admin_comment;
    const char *at = old ? strstr (old, AC_TAG) : NULL;
    if (old && at) {
        const char *end = strstr (at, AC_SEP);
        /* what was before ours, then what was after it */
        xstrfmtcat (rest, "%.*s", (int)(at - old), old);
        if (end)
            xstrcat (rest, end + strlen (AC_SEP));
        size_t n = rest ? strlen (rest) : 0;
        while (n >= strlen (AC_SEP)
               && !strcmp (rest + n - strlen (AC_SEP), AC_SEP))
            rest[n -= strlen (AC_SEP)] = '\0';
    }
    else if (old) {
        rest = xstrdup (old);
    }
    char *ac = NULL;
    if (rest && rest[0])
        xstrfmtcat (ac, "%s" AC_SEP, rest);
    /* " | " inside the line would split it when read back */
    char text[AC_MAX + 1];
    snprintf (text, sizeof (text), "%s", line);
    for (char *p = strstr (text, AC_SEP); p; p = strstr (p, AC_SEP))
        p[1] = '/';
    xstrfmtcat (ac, AC_TAG "%s", text);
    xfree (rest);
    if (xstrcmp (ac, job->admin_comment)) {
        xfree (job->admin_comment);
        job->admin_comment = ac;
        return 1;
    }
    xfree (ac);
    return 0;
}

int ns_req_clear_reason (job_record_t *job)
{
    int touched = 0;
    if (ours (job->system_comment)) {
        xfree (job->system_comment);
        touched = 1;
    }
#ifdef NS_WAIT_REASON
    if (job->state_reason == NS_WAIT_REASON && ours (job->state_desc)) {
        job->state_reason = WAIT_RESOURCES;
        xfree (job->state_desc);
        touched = 1;
    }
#endif
    return touched;
}

/* "job 7 (LAM, 24 cores) [twins]: waits (twin): ..." -> "waits (twin):
 * ..." for squeue's reason column. */
const char *ns_req_explain_tail (const char *explain)
{
    const char *p = strstr (explain, "]: ");
    return p ? p + 3 : explain;
}

int ns_req_set_reason (job_record_t *job, const char *explain)
{
    char *desc = xstrdup_printf (NS_DESC_PREFIX "%s", ns_req_explain_tail (explain));
    int touched = 0;
    if ((!job->system_comment || ours (job->system_comment))
        && xstrcmp (job->system_comment, desc)) {
        xfree (job->system_comment);
        job->system_comment = xstrdup (desc);
        touched = 1;
    }
#ifdef NS_WAIT_REASON
    if (job->state_reason != NS_WAIT_REASON
        || xstrcmp (job->state_desc, desc)) {
        job->state_reason = NS_WAIT_REASON;
        xfree (job->state_desc);
        job->state_desc = xstrdup (desc);
        touched = 1;
    }
#endif
    xfree (desc);
    return touched;
}
