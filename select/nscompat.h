/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nscompat.h - what differs, for the select plugin, between the Slurm
 * releases it is built for (22.05, 24.11, 25.11, 26.05)
 *
 * Everything version-dependent in select/ goes through this header; the
 * decision code (nsctld.c) is one copy for every release.  Guards are on
 * SLURM_VERSION_NUMBER (Slurm's config.h); changes inside a release series
 * are probed by configure (NS_PLUGIN_LOAD_REQUIRED: 25.11.1's loader).
 * The list of differences, with the release each appeared in, is in
 * doc/design.md ("Slurm releases").
 */
#ifndef NODESHARE_NSCOMPAT_H
#define NODESHARE_NSCOMPAT_H

#include "config.h"   /* Slurm's: SLURM_VERSION_NUMBER */

#include <slurm/slurm_version.h>

#define NS_SLURM_AT_LEAST(a, b, c) \
    (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM (a, b, c))

#if NS_SLURM_AT_LEAST(23, 2, 0)
#include "src/interfaces/select.h"   /* moved from src/common (23.02) */
#else
#include "src/common/select.h"
#endif
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/plugin.h"
#include "src/slurmctld/slurmctld.h"
#if NS_SLURM_AT_LEAST(23, 11, 0)
#include "src/common/core_array.h"
#endif

/* List and ListIterator became list_t * and list_itr_t * (23.02 added
 * the names, 24.05 removed the old ones): the plugin uses the new names. */
#if !NS_SLURM_AT_LEAST(23, 2, 0)
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
typedef struct job_details job_details_t;
#endif

/* SelectTypeParameters' memory bit: CR_MEMORY, a macro up to 24.11,
 * became the enum value SELECT_MEMORY (25.05). */
#ifdef CR_MEMORY
#define NS_CR_MEMORY CR_MEMORY
#else
#define NS_CR_MEMORY SELECT_MEMORY
#endif
/* Its socket bit, the same way: CR_SOCKET up to 24.11, SELECT_SOCKET. */
#ifdef CR_SOCKET
#define NS_CR_SOCKET CR_SOCKET
#else
#define NS_CR_SOCKET SELECT_SOCKET
#endif

/* details->whole_node: a value up to 23.11 (WHOLE_NODE_MCS was 3), a
 * set of bits from 24.05 (WHOLE_TOPO 0x08). */
#if NS_SLURM_AT_LEAST(24, 5, 0)
#define NS_WHOLE_NODE(d) (((d)->whole_node & WHOLE_NODE_REQUIRED) != 0)
#define NS_WHOLE_TOPO(d) (((d)->whole_node & WHOLE_TOPO) != 0)
#else
#define NS_WHOLE_NODE(d) ((d)->whole_node == WHOLE_NODE_REQUIRED)
#define NS_WHOLE_TOPO(d) 0
#endif

/* A job submitted without -N: up to 25.11 slurmctld leaves max_nodes 0;
 * from 26.05 it sets max_nodes to the task count and marks the job with
 * JOB_IMPLICIT_MAX_NODES (job_mgr.c, _copy_job_desc_to_job_record).  Such
 * a maximum is no node count the user asked for. */
#ifdef JOB_IMPLICIT_MAX_NODES
#define NS_IMPLICIT_MAX_NODES(job) (((job)->bit_flags & JOB_IMPLICIT_MAX_NODES) != 0)
#else
#define NS_IMPLICIT_MAX_NODES(job) 0
#endif

/*
 * select_p_job_test's last arguments: the cores a reservation excludes,
 * as one cluster-wide core bitmap (22.05-23.02), as resv_exc_t with one
 * core bitmap per node that cons_tres reads (23.11), and the backfill
 * window of a will-run test (24.11).  ns_exc_t carries them as they came.
 */
#if NS_SLURM_AT_LEAST(24, 11, 0)
typedef struct {
    resv_exc_t *resv;
    will_run_data_t *will_run;
} ns_exc_t;
#define NS_EXC_PARAMS resv_exc_t *resv_exc_ptr, will_run_data_t *will_run_ptr
#define NS_EXC_FROM_PARAMS { .resv = resv_exc_ptr, .will_run = will_run_ptr }
#define NS_EXC_ARGS(e) (e).resv, (e).will_run
#elif NS_SLURM_AT_LEAST(23, 11, 0)
typedef struct {
    resv_exc_t *resv;
} ns_exc_t;
#define NS_EXC_PARAMS resv_exc_t *resv_exc_ptr
#define NS_EXC_FROM_PARAMS { .resv = resv_exc_ptr }
#define NS_EXC_ARGS(e) (e).resv
#else
typedef struct {
    bitstr_t *cores;
} ns_exc_t;
#define NS_EXC_PARAMS bitstr_t *exc_core_bitmap
#define NS_EXC_FROM_PARAMS { .cores = exc_core_bitmap }
#define NS_EXC_ARGS(e) (e).cores
#endif

/* The start of the window backfill tests a job in (24.11), else 0 (the
 * test starts from now). */
static inline time_t ns_exc_window_start (const ns_exc_t *e)
{
#if NS_SLURM_AT_LEAST(24, 11, 0)
    return e->will_run ? e->will_run->start : 0;
#else
    (void)e;
    return 0;
#endif
}

/* The excluded cores as one cluster-wide bitmap of `total` bits
 * (cr_get_coremap_offset layout): a new bitmap (all clear when nothing is
 * excluded), or NULL when the layout does not match. */
static inline bitstr_t *ns_exc_to_bitmap (const ns_exc_t *e, int total)
{
#if NS_SLURM_AT_LEAST(23, 11, 0)
    bitstr_t *b = bit_alloc (total);
    if (!e->resv || !e->resv->exc_cores)
        return b;
    for (int i = 0; i < node_record_count; i++) {
        bitstr_t *n = e->resv->exc_cores[i];
        if (!n)
            continue;
        int base = (int)cr_get_coremap_offset (i);
        int size = (int)bit_size (n);
        if (base + size > total) {
            FREE_NULL_BITMAP (b);
            return NULL;
        }
        for (int x = 0; x < size; x++)
            if (bit_test (n, x))
                bit_set (b, base + x);
    }
    return b;
#else
    if (!e->cores)
        return bit_alloc (total);
    if ((int)bit_size (e->cores) != total)
        return NULL;
    return bit_copy (e->cores);
#endif
}

/* *out: e with its excluded cores replaced by `cores` (a cluster-wide
 * bitmap, which *out then owns); release with ns_exc_release(). */
typedef struct {
    ns_exc_t exc;
    bitstr_t *cores;
#if NS_SLURM_AT_LEAST(23, 11, 0)
    resv_exc_t resv;
#endif
} ns_exc_owned_t;

static inline void ns_exc_with_cores (const ns_exc_t *e, bitstr_t *cores,
                                      ns_exc_owned_t *out)
{
    out->exc = *e;
    out->cores = cores;
#if NS_SLURM_AT_LEAST(23, 11, 0)
    if (e->resv)
        out->resv = *e->resv;
    else
        memset (&out->resv, 0, sizeof (out->resv));
    out->resv.core_bitmap = cores;
    out->resv.exc_cores = core_bitmap_to_array (cores);
    out->exc.resv = &out->resv;
#else
    out->exc.cores = cores;
#endif
}

static inline void ns_exc_release (ns_exc_owned_t *o)
{
#if NS_SLURM_AT_LEAST(23, 11, 0)
    free_core_array (&o->resv.exc_cores);
#endif
    FREE_NULL_BITMAP (o->cores);
}

/* cons_tres's select_p_job_test. */
typedef int (*ns_job_test_f) (job_record_t *job_ptr, bitstr_t *bitmap,
                              uint32_t min_nodes, uint32_t max_nodes,
                              uint32_t req_nodes, uint16_t mode,
                              list_t *preemptee_candidates,
                              list_t **preemptee_job_list, NS_EXC_PARAMS);

/* plugin_load_from_file: returns plugin_err_t up to 23.02, a Slurm
 * error code from 23.11, and takes `bool required` from 25.11.1
 * (configure probes it: NS_PLUGIN_LOAD_REQUIRED).  0 on success, else
 * *why says what went wrong. */
static inline int ns_plugin_load (plugin_handle_t *h, const char *path,
                                  const char **why)
{
#if NS_SLURM_AT_LEAST(23, 11, 0)
#if defined(NS_PLUGIN_LOAD_REQUIRED)
    int rc = plugin_load_from_file (h, path, true);
#else
    int rc = plugin_load_from_file (h, path);
#endif
    *why = rc == SLURM_SUCCESS ? NULL : slurm_strerror (rc);
    return rc == SLURM_SUCCESS ? 0 : -1;
#else
    plugin_err_t e = plugin_load_from_file (h, path);
    *why = e == EPLUGIN_SUCCESS ? NULL : plugin_strerror (e);
    return e == EPLUGIN_SUCCESS ? 0 : -1;
#endif
}

#endif /* !NODESHARE_NSCOMPAT_H */
