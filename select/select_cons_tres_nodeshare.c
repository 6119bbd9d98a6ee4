/* SPDX-License-Identifier: GPL-2.0-or-later */
/* select_cons_tres_nodeshare.c - the select plugin: cons_tres, plus nodeshare
 *
 * SelectType=select/cons_tres_nodeshare.  The plugin loads the stock
 * select_cons_tres.so by path with Slurm's plugin loader and hands every
 * select_p_* call to it.  Three things are added (nsctld.c):
 *   - select_p_job_test asks the model where a job goes and restricts the
 *     candidate nodes (and, for a striped job, its shape) accordingly;
 *   - job start/end/resize/suspend and node changes keep the model's view
 *     of the cluster current;
 *   - reconfigure reloads nodeshare.json.
 *
 * It reports cons_tres's plugin_id (109): the id is packed into RPCs and
 * state files, so saved state and running jobs carry over in both
 * directions.  Because every client loads every select_*.so of PluginDir
 * and ids must be unique, PluginDir must not also hold select_cons_tres.so
 * (nodeshare-plugindir prepares such a directory; design.md section 7).
 */
#include "config.h"

#include <stdint.h>

#include "src/common/log.h"

#include "nscompat.h"
#include "nsctld.h"

#ifndef NS_STOCK_CONS_TRES
#error "NS_STOCK_CONS_TRES (path of the stock select_cons_tres.so) not set"
#endif

const char plugin_name[] = "nodeshare: job striping and co-scheduling "
                           "over cons_tres";
const char plugin_type[] = "select/cons_tres_nodeshare";
const uint32_t plugin_id = SELECT_PLUGIN_CONS_TRES;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;
/* The release this build is for, as text in the file: nodeshare-rebuild
 * reads it (grep) to tell which Slurm a plugin file belongs to. */
const char ns_built_for[] = "nodeshare-select-plugin-for-slurm="
                            SLURM_VERSION_STRING;

/*
 * The forwarding table: cons_tres's select_p_* symbols of this release,
 * in the order of node_select_syms[] in Slurm's select.c (which is no
 * longer public from 24.05, so the plugin keeps its own).  X(member,
 * symbol); the same list makes the table and the symbol names.
 *   22.05: 37 symbols; 23.02 drops job_signal, jobinfo_sprint,
 *   jobinfo_xstrdup, update_node_config; 23.11 drops resv_test; 25.05
 *   keeps 13; 26.05 adds job_mem_reduce.
 */
#if NS_SLURM_AT_LEAST(25, 5, 0)
#define NS_OPS_STATE(X)
#define NS_OPS_JOBINIT(X)
#else
#define NS_OPS_STATE(X) \
    X (state_save, "select_p_state_save") \
    X (state_restore, "select_p_state_restore")
#define NS_OPS_JOBINIT(X) X (job_init, "select_p_job_init")
#endif
#if NS_SLURM_AT_LEAST(26, 5, 0)
#define NS_OPS_MEMREDUCE(X) X (job_mem_reduce, "select_p_job_mem_reduce")
#else
#define NS_OPS_MEMREDUCE(X)
#endif
#if NS_SLURM_AT_LEAST(23, 2, 0)
#define NS_OPS_SIGNAL(X)
#else
#define NS_OPS_SIGNAL(X) X (job_signal, "select_p_job_signal")
#endif
#if NS_SLURM_AT_LEAST(25, 5, 0)
#define NS_OPS_STEPS_INFO(X)
#else
#define NS_OPS_STEPS_INFO(X) \
    X (step_pick_nodes, "select_p_step_pick_nodes") \
    X (step_start, "select_p_step_start") \
    X (step_finish, "select_p_step_finish") \
    X (nodeinfo_pack, "select_p_select_nodeinfo_pack") \
    X (nodeinfo_unpack, "select_p_select_nodeinfo_unpack") \
    X (nodeinfo_alloc, "select_p_select_nodeinfo_alloc") \
    X (nodeinfo_free, "select_p_select_nodeinfo_free")
#endif
#if NS_SLURM_AT_LEAST(25, 5, 0)
#define NS_OPS_NODEINFO_GET_JOBINFO(X)
#else
#define NS_OPS_NODEINFO_GET_JOBINFO(X) \
    X (nodeinfo_get, "select_p_select_nodeinfo_get") \
    X (jobinfo_alloc, "select_p_select_jobinfo_alloc") \
    X (jobinfo_free, "select_p_select_jobinfo_free") \
    X (jobinfo_set, "select_p_select_jobinfo_set") \
    X (jobinfo_get, "select_p_select_jobinfo_get") \
    X (jobinfo_copy, "select_p_select_jobinfo_copy") \
    X (jobinfo_pack, "select_p_select_jobinfo_pack") \
    X (jobinfo_unpack, "select_p_select_jobinfo_unpack")
#endif
#if NS_SLURM_AT_LEAST(23, 2, 0)
#define NS_OPS_SPRINT(X)
#define NS_OPS_UPDATE_NODE(X)
#else
#define NS_OPS_SPRINT(X) \
    X (jobinfo_sprint, "select_p_select_jobinfo_sprint") \
    X (jobinfo_xstrdup, "select_p_select_jobinfo_xstrdup")
#define NS_OPS_UPDATE_NODE(X) \
    X (update_node_config, "select_p_update_node_config")
#endif
#if NS_SLURM_AT_LEAST(25, 5, 0)
#define NS_OPS_GETINFO(X)
#else
#define NS_OPS_GETINFO(X) \
    X (get_info_from_plugin, "select_p_get_info_from_plugin")
#endif
#if NS_SLURM_AT_LEAST(23, 11, 0)
#define NS_OPS_RESV(X)
#else
#define NS_OPS_RESV(X) X (resv_test, "select_p_resv_test")
#endif

#define NS_SELECT_OPS(X) \
    X (plugin_id, "plugin_id") \
    NS_OPS_STATE (X) \
    NS_OPS_JOBINIT (X) \
    X (node_init, "select_p_node_init") \
    X (job_test, "select_p_job_test") \
    X (job_begin, "select_p_job_begin") \
    X (job_ready, "select_p_job_ready") \
    X (job_expand, "select_p_job_expand") \
    X (job_resized, "select_p_job_resized") \
    NS_OPS_MEMREDUCE (X) \
    NS_OPS_SIGNAL (X) \
    X (job_fini, "select_p_job_fini") \
    X (job_suspend, "select_p_job_suspend") \
    X (job_resume, "select_p_job_resume") \
    NS_OPS_STEPS_INFO (X) \
    X (nodeinfo_set_all, "select_p_select_nodeinfo_set_all") \
    X (nodeinfo_set, "select_p_select_nodeinfo_set") \
    NS_OPS_NODEINFO_GET_JOBINFO (X) \
    NS_OPS_SPRINT (X) \
    NS_OPS_GETINFO (X) \
    NS_OPS_UPDATE_NODE (X) \
    X (reconfigure, "select_p_reconfigure") \
    NS_OPS_RESV (X)

#define NS_SYM_NAME(member, sym) sym,
static const char *syms[] = { NS_SELECT_OPS (NS_SYM_NAME) };

/* The stock plugin's entry points, typed by the forwarders below (each
 * forwarder's own prototype comes from Slurm's header of the release, so
 * a changed signature fails the build rather than the call). */
#define NS_SYM_MEMBER(member, sym) void *member;
static union {
    struct {
        NS_SELECT_OPS (NS_SYM_MEMBER)
    } p;
    void *v[sizeof (syms) / sizeof (syms[0])];
} stock;
#define STOCK(member, type) ((type)stock.p.member)

_Static_assert (sizeof (stock.p) == sizeof (stock.v),
                "one pointer per symbol");

static plugin_handle_t stock_handle = PLUGIN_INVALID_HANDLE;

extern int init (void)
{
    int n = (int)(sizeof (syms) / sizeof (syms[0]));
    const char *why = NULL;
    if (ns_plugin_load (&stock_handle, NS_STOCK_CONS_TRES, &why) < 0) {
        error ("%s: cannot load the stock %s: %s", plugin_type,
               NS_STOCK_CONS_TRES, why);
        return SLURM_ERROR;
    }
    if (plugin_get_syms (stock_handle, n, syms, stock.v) < n) {
        error ("%s: %s lacks select_p_* symbols of Slurm %s", plugin_type,
               NS_STOCK_CONS_TRES, SLURM_VERSION_STRING);
        plugin_unload (stock_handle);
        stock_handle = PLUGIN_INVALID_HANDLE;
        return SLURM_ERROR;
    }
    uint32_t id = *(const uint32_t *)stock.p.plugin_id;
    if (id != plugin_id) {
        error ("%s: %s reports plugin_id %u, expected %u", plugin_type,
               NS_STOCK_CONS_TRES, id, plugin_id);
        plugin_unload (stock_handle);
        stock_handle = PLUGIN_INVALID_HANDLE;
        return SLURM_ERROR;
    }
    return ns_ctld_init ();
}

extern int fini (void)
{
    ns_ctld_fini ();
    if (stock_handle != PLUGIN_INVALID_HANDLE) {
        plugin_unload (stock_handle);   /* calls cons_tres's fini() */
        stock_handle = PLUGIN_INVALID_HANDLE;
    }
    return SLURM_SUCCESS;
}

/* cons_tres's entry point `member`, with the type of our own `self`. */
#define FWD(member, self) ((__typeof__ (&self))stock.p.member)

/*
 * State and configuration
 */

#if !NS_SLURM_AT_LEAST(25, 5, 0)
extern int select_p_state_save (char *dir_name)
{
    return FWD (state_save, select_p_state_save) (dir_name);
}

extern int select_p_state_restore (char *dir_name)
{
    return FWD (state_restore, select_p_state_restore) (dir_name);
}

extern int select_p_job_init (list_t *jobs)
{
    int rc = FWD (job_init, select_p_job_init) (jobs);
    ns_ctld_job_init ();
    return rc;
}
#endif

extern int select_p_node_init (void)
{
    int rc = FWD (node_init, select_p_node_init) ();
    ns_ctld_dirty ();
    return rc;
}

extern int select_p_reconfigure (void)
{
    int rc = FWD (reconfigure, select_p_reconfigure) ();
    ns_ctld_reconfigure ();
    return rc;
}

#if !NS_SLURM_AT_LEAST(23, 2, 0)
extern int select_p_update_node_config (int index)
{
    int rc = FWD (update_node_config, select_p_update_node_config) (index);
    ns_ctld_dirty ();
    return rc;
}
#endif

/*
 * Jobs
 */

extern int select_p_job_test (job_record_t *job_ptr, bitstr_t *node_bitmap,
                              uint32_t min_nodes, uint32_t max_nodes,
                              uint32_t req_nodes, uint16_t mode,
                              list_t *preemptee_candidates,
                              list_t **preemptee_job_list, NS_EXC_PARAMS)
{
    ns_exc_t exc = NS_EXC_FROM_PARAMS;
    return ns_ctld_job_test (FWD (job_test, select_p_job_test), job_ptr,
                             node_bitmap, min_nodes, max_nodes, req_nodes,
                             mode, preemptee_candidates, preemptee_job_list,
                             &exc);
}

extern int select_p_job_begin (job_record_t *job_ptr)
{
    int rc = FWD (job_begin, select_p_job_begin) (job_ptr);
    if (rc == SLURM_SUCCESS)
        ns_ctld_job_begin (job_ptr);
    return rc;
}

extern int select_p_job_ready (job_record_t *job_ptr)
{
    return FWD (job_ready, select_p_job_ready) (job_ptr);
}

extern int select_p_job_expand (job_record_t *from_job_ptr,
                                job_record_t *to_job_ptr)
{
    int rc = FWD (job_expand, select_p_job_expand) (from_job_ptr,
                                                    to_job_ptr);
    ns_ctld_dirty ();
    return rc;
}

extern int select_p_job_resized (job_record_t *job_ptr,
                                 node_record_t *node_ptr)
{
    int rc = FWD (job_resized, select_p_job_resized) (job_ptr, node_ptr);
    ns_ctld_dirty ();
    return rc;
}

#if NS_SLURM_AT_LEAST(26, 5, 0)
extern void select_p_job_mem_reduce (job_record_t *job_ptr)
{
    FWD (job_mem_reduce, select_p_job_mem_reduce) (job_ptr);
}
#endif

#if !NS_SLURM_AT_LEAST(23, 2, 0)
extern int select_p_job_signal (job_record_t *job_ptr, int signal)
{
    return FWD (job_signal, select_p_job_signal) (job_ptr, signal);
}
#endif

extern int select_p_job_fini (job_record_t *job_ptr)
{
    int rc = FWD (job_fini, select_p_job_fini) (job_ptr);
    ns_ctld_job_fini (job_ptr);
    return rc;
}

extern int select_p_job_suspend (job_record_t *job_ptr, bool indf_susp)
{
    int rc = FWD (job_suspend, select_p_job_suspend) (job_ptr, indf_susp);
    ns_ctld_dirty ();
    return rc;
}

extern int select_p_job_resume (job_record_t *job_ptr, bool indf_susp)
{
    int rc = FWD (job_resume, select_p_job_resume) (job_ptr, indf_susp);
    ns_ctld_dirty ();
    return rc;
}

extern int select_p_select_nodeinfo_set_all (void)
{
    return FWD (nodeinfo_set_all, select_p_select_nodeinfo_set_all) ();
}

extern int select_p_select_nodeinfo_set (job_record_t *job_ptr)
{
    return FWD (nodeinfo_set, select_p_select_nodeinfo_set) (job_ptr);
}

#if !NS_SLURM_AT_LEAST(25, 5, 0)
/*
 * Steps, node and job plugin data (up to 24.11): all cons_tres's
 */

extern bitstr_t *select_p_step_pick_nodes (job_record_t *job_ptr,
                                           select_jobinfo_t *jobinfo,
                                           uint32_t node_count,
                                           bitstr_t **avail_nodes)
{
    return FWD (step_pick_nodes, select_p_step_pick_nodes) (
        job_ptr, jobinfo, node_count, avail_nodes);
}

extern int select_p_step_start (step_record_t *step_ptr)
{
    return FWD (step_start, select_p_step_start) (step_ptr);
}

extern int select_p_step_finish (step_record_t *step_ptr, bool killing_step)
{
    return FWD (step_finish, select_p_step_finish) (step_ptr, killing_step);
}

extern int select_p_select_nodeinfo_pack (select_nodeinfo_t *nodeinfo,
                                          buf_t *buffer,
                                          uint16_t protocol_version)
{
    return FWD (nodeinfo_pack, select_p_select_nodeinfo_pack) (
        nodeinfo, buffer, protocol_version);
}

extern int select_p_select_nodeinfo_unpack (select_nodeinfo_t **nodeinfo,
                                            buf_t *buffer,
                                            uint16_t protocol_version)
{
    return FWD (nodeinfo_unpack, select_p_select_nodeinfo_unpack) (
        nodeinfo, buffer, protocol_version);
}

extern select_nodeinfo_t *select_p_select_nodeinfo_alloc (void)
{
    return FWD (nodeinfo_alloc, select_p_select_nodeinfo_alloc) ();
}

extern int select_p_select_nodeinfo_free (select_nodeinfo_t *nodeinfo)
{
    return FWD (nodeinfo_free, select_p_select_nodeinfo_free) (nodeinfo);
}

extern int select_p_select_nodeinfo_get (select_nodeinfo_t *nodeinfo,
                                         enum select_nodedata_type dinfo,
                                         enum node_states state, void *data)
{
    return FWD (nodeinfo_get, select_p_select_nodeinfo_get) (nodeinfo, dinfo,
                                                             state, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_alloc (void)
{
    return FWD (jobinfo_alloc, select_p_select_jobinfo_alloc) ();
}

extern int select_p_select_jobinfo_free (select_jobinfo_t *jobinfo)
{
    return FWD (jobinfo_free, select_p_select_jobinfo_free) (jobinfo);
}

extern int select_p_select_jobinfo_set (select_jobinfo_t *jobinfo,
                                        enum select_jobdata_type data_type,
                                        void *data)
{
    return FWD (jobinfo_set, select_p_select_jobinfo_set) (jobinfo,
                                                           data_type, data);
}

extern int select_p_select_jobinfo_get (select_jobinfo_t *jobinfo,
                                        enum select_jobdata_type data_type,
                                        void *data)
{
    return FWD (jobinfo_get, select_p_select_jobinfo_get) (jobinfo,
                                                           data_type, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_copy (
    select_jobinfo_t *jobinfo)
{
    return FWD (jobinfo_copy, select_p_select_jobinfo_copy) (jobinfo);
}

extern int select_p_select_jobinfo_pack (select_jobinfo_t *jobinfo,
                                         buf_t *buffer,
                                         uint16_t protocol_version)
{
    return FWD (jobinfo_pack, select_p_select_jobinfo_pack) (
        jobinfo, buffer, protocol_version);
}

extern int select_p_select_jobinfo_unpack (select_jobinfo_t **jobinfo,
                                           buf_t *buffer,
                                           uint16_t protocol_version)
{
    return FWD (jobinfo_unpack, select_p_select_jobinfo_unpack) (
        jobinfo, buffer, protocol_version);
}

extern int select_p_get_info_from_plugin (enum select_plugindata_info dinfo,
                                          job_record_t *job_ptr, void *data)
{
    return FWD (get_info_from_plugin, select_p_get_info_from_plugin) (
        dinfo, job_ptr, data);
}
#endif /* < 25.05 */

#if !NS_SLURM_AT_LEAST(23, 2, 0)
extern char *select_p_select_jobinfo_sprint (select_jobinfo_t *jobinfo,
                                             char *buf, size_t size,
                                             int mode)
{
    return FWD (jobinfo_sprint, select_p_select_jobinfo_sprint) (
        jobinfo, buf, size, mode);
}

extern char *select_p_select_jobinfo_xstrdup (select_jobinfo_t *jobinfo,
                                              int mode)
{
    return FWD (jobinfo_xstrdup, select_p_select_jobinfo_xstrdup) (jobinfo,
                                                                   mode);
}
#endif

#if !NS_SLURM_AT_LEAST(23, 11, 0)
extern bitstr_t *select_p_resv_test (resv_desc_msg_t *resv_desc_ptr,
                                     uint32_t node_cnt,
                                     bitstr_t *avail_bitmap,
                                     bitstr_t **core_bitmap)
{
    return FWD (resv_test, select_p_resv_test) (resv_desc_ptr, node_cnt,
                                                avail_bitmap, core_bitmap);
}
#endif
