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
#include "src/common/plugin.h"
#include "src/common/select.h"
#include "src/slurmctld/slurmctld.h"

#include "nsctld.h"

#ifndef NS_STOCK_CONS_TRES
#error "NS_STOCK_CONS_TRES (path of the stock select_cons_tres.so) not set"
#endif

const char plugin_name[] = "nodeshare: job striping and co-scheduling "
                           "over cons_tres";
const char plugin_type[] = "select/cons_tres_nodeshare";
const uint32_t plugin_id = SELECT_PLUGIN_CONS_TRES;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* The order of slurm_select_ops_t (src/common/select.h) and of
 * node_select_syms[] in src/common/select.c. */
static const char *syms[] = {
    "plugin_id",
    "select_p_state_save",
    "select_p_state_restore",
    "select_p_job_init",
    "select_p_node_init",
    "select_p_job_test",
    "select_p_job_begin",
    "select_p_job_ready",
    "select_p_job_expand",
    "select_p_job_resized",
    "select_p_job_signal",
    "select_p_job_fini",
    "select_p_job_suspend",
    "select_p_job_resume",
    "select_p_step_pick_nodes",
    "select_p_step_start",
    "select_p_step_finish",
    "select_p_select_nodeinfo_pack",
    "select_p_select_nodeinfo_unpack",
    "select_p_select_nodeinfo_alloc",
    "select_p_select_nodeinfo_free",
    "select_p_select_nodeinfo_set_all",
    "select_p_select_nodeinfo_set",
    "select_p_select_nodeinfo_get",
    "select_p_select_jobinfo_alloc",
    "select_p_select_jobinfo_free",
    "select_p_select_jobinfo_set",
    "select_p_select_jobinfo_get",
    "select_p_select_jobinfo_copy",
    "select_p_select_jobinfo_pack",
    "select_p_select_jobinfo_unpack",
    "select_p_select_jobinfo_sprint",
    "select_p_select_jobinfo_xstrdup",
    "select_p_get_info_from_plugin",
    "select_p_update_node_config",
    "select_p_reconfigure",
    "select_p_resv_test",
};

_Static_assert (sizeof (syms) / sizeof (syms[0])
                    == sizeof (slurm_select_ops_t) / sizeof (void *),
                "syms[] must list every member of slurm_select_ops_t");

static plugin_handle_t stock_handle = PLUGIN_INVALID_HANDLE;
static slurm_select_ops_t stock;

extern int init (void)
{
    int n = (int)(sizeof (syms) / sizeof (syms[0]));
    plugin_err_t e = plugin_load_from_file (&stock_handle,
                                            NS_STOCK_CONS_TRES);
    if (e != EPLUGIN_SUCCESS) {
        error ("%s: cannot load the stock %s: %s", plugin_type,
               NS_STOCK_CONS_TRES, plugin_strerror (e));
        return SLURM_ERROR;
    }
    if (plugin_get_syms (stock_handle, n, syms, (void **)&stock) < n) {
        error ("%s: %s lacks select_p_* symbols of this Slurm version",
               plugin_type, NS_STOCK_CONS_TRES);
        plugin_unload (stock_handle);
        stock_handle = PLUGIN_INVALID_HANDLE;
        return SLURM_ERROR;
    }
    if (*stock.plugin_id != plugin_id) {
        error ("%s: %s reports plugin_id %u, expected %u", plugin_type,
               NS_STOCK_CONS_TRES, *stock.plugin_id, plugin_id);
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

/*
 * State
 */

extern int select_p_state_save (char *dir_name)
{
    return stock.state_save (dir_name);
}

extern int select_p_state_restore (char *dir_name)
{
    return stock.state_restore (dir_name);
}

extern int select_p_job_init (List jobs)
{
    int rc = stock.job_init (jobs);
    ns_ctld_job_init ();
    return rc;
}

extern int select_p_node_init (void)
{
    int rc = stock.node_init ();
    ns_ctld_dirty ();
    return rc;
}

extern int select_p_reconfigure (void)
{
    int rc = stock.reconfigure ();
    ns_ctld_reconfigure ();
    return rc;
}

extern int select_p_update_node_config (int index)
{
    int rc = stock.update_node_config (index);
    ns_ctld_dirty ();
    return rc;
}

/*
 * Jobs
 */

extern int select_p_job_test (job_record_t *job_ptr, bitstr_t *node_bitmap,
                              uint32_t min_nodes, uint32_t max_nodes,
                              uint32_t req_nodes, uint16_t mode,
                              List preemptee_candidates,
                              List *preemptee_job_list,
                              bitstr_t *exc_core_bitmap)
{
    return ns_ctld_job_test (stock.job_test, job_ptr, node_bitmap,
                             min_nodes, max_nodes, req_nodes, mode,
                             preemptee_candidates, preemptee_job_list,
                             exc_core_bitmap);
}

extern int select_p_job_begin (job_record_t *job_ptr)
{
    int rc = stock.job_begin (job_ptr);
    if (rc == SLURM_SUCCESS)
        ns_ctld_job_begin (job_ptr);
    return rc;
}

extern int select_p_job_ready (job_record_t *job_ptr)
{
    return stock.job_ready (job_ptr);
}

extern int select_p_job_expand (job_record_t *from_job_ptr,
                                job_record_t *to_job_ptr)
{
    int rc = stock.job_expand (from_job_ptr, to_job_ptr);
    ns_ctld_dirty ();
    return rc;
}

extern int select_p_job_resized (job_record_t *job_ptr,
                                 node_record_t *node_ptr)
{
    int rc = stock.job_resized (job_ptr, node_ptr);
    ns_ctld_dirty ();
    return rc;
}

extern int select_p_job_signal (job_record_t *job_ptr, int signal)
{
    return stock.job_signal (job_ptr, signal);
}

extern int select_p_job_fini (job_record_t *job_ptr)
{
    int rc = stock.job_fini (job_ptr);
    ns_ctld_job_fini (job_ptr);
    return rc;
}

extern int select_p_job_suspend (job_record_t *job_ptr, bool indf_susp)
{
    int rc = stock.job_suspend (job_ptr, indf_susp);
    ns_ctld_dirty ();
    return rc;
}

extern int select_p_job_resume (job_record_t *job_ptr, bool indf_susp)
{
    int rc = stock.job_resume (job_ptr, indf_susp);
    ns_ctld_dirty ();
    return rc;
}

/*
 * Steps
 */

extern bitstr_t *select_p_step_pick_nodes (job_record_t *job_ptr,
                                           select_jobinfo_t *jobinfo,
                                           uint32_t node_count,
                                           bitstr_t **avail_nodes)
{
    return stock.step_pick_nodes (job_ptr, jobinfo, node_count, avail_nodes);
}

extern int select_p_step_start (step_record_t *step_ptr)
{
    return stock.step_start (step_ptr);
}

extern int select_p_step_finish (step_record_t *step_ptr, bool killing_step)
{
    return stock.step_finish (step_ptr, killing_step);
}

/*
 * Node and job plugin data: all cons_tres's
 */

extern int select_p_select_nodeinfo_pack (select_nodeinfo_t *nodeinfo,
                                          buf_t *buffer,
                                          uint16_t protocol_version)
{
    return stock.nodeinfo_pack (nodeinfo, buffer, protocol_version);
}

extern int select_p_select_nodeinfo_unpack (select_nodeinfo_t **nodeinfo,
                                            buf_t *buffer,
                                            uint16_t protocol_version)
{
    return stock.nodeinfo_unpack (nodeinfo, buffer, protocol_version);
}

extern select_nodeinfo_t *select_p_select_nodeinfo_alloc (void)
{
    return stock.nodeinfo_alloc ();
}

extern int select_p_select_nodeinfo_free (select_nodeinfo_t *nodeinfo)
{
    return stock.nodeinfo_free (nodeinfo);
}

extern int select_p_select_nodeinfo_set_all (void)
{
    return stock.nodeinfo_set_all ();
}

extern int select_p_select_nodeinfo_set (job_record_t *job_ptr)
{
    return stock.nodeinfo_set (job_ptr);
}

extern int select_p_select_nodeinfo_get (select_nodeinfo_t *nodeinfo,
                                         enum select_nodedata_type dinfo,
                                         enum node_states state, void *data)
{
    return stock.nodeinfo_get (nodeinfo, dinfo, state, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_alloc (void)
{
    return stock.jobinfo_alloc ();
}

extern int select_p_select_jobinfo_free (select_jobinfo_t *jobinfo)
{
    return stock.jobinfo_free (jobinfo);
}

extern int select_p_select_jobinfo_set (select_jobinfo_t *jobinfo,
                                        enum select_jobdata_type data_type,
                                        void *data)
{
    return stock.jobinfo_set (jobinfo, data_type, data);
}

extern int select_p_select_jobinfo_get (select_jobinfo_t *jobinfo,
                                        enum select_jobdata_type data_type,
                                        void *data)
{
    return stock.jobinfo_get (jobinfo, data_type, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_copy (
    select_jobinfo_t *jobinfo)
{
    return stock.jobinfo_copy (jobinfo);
}

extern int select_p_select_jobinfo_pack (select_jobinfo_t *jobinfo,
                                         buf_t *buffer,
                                         uint16_t protocol_version)
{
    return stock.jobinfo_pack (jobinfo, buffer, protocol_version);
}

extern int select_p_select_jobinfo_unpack (select_jobinfo_t **jobinfo,
                                           buf_t *buffer,
                                           uint16_t protocol_version)
{
    return stock.jobinfo_unpack (jobinfo, buffer, protocol_version);
}

extern char *select_p_select_jobinfo_sprint (select_jobinfo_t *jobinfo,
                                             char *buf, size_t size,
                                             int mode)
{
    return stock.jobinfo_sprint (jobinfo, buf, size, mode);
}

extern char *select_p_select_jobinfo_xstrdup (select_jobinfo_t *jobinfo,
                                              int mode)
{
    return stock.jobinfo_xstrdup (jobinfo, mode);
}

extern int select_p_get_info_from_plugin (enum select_plugindata_info dinfo,
                                          job_record_t *job_ptr, void *data)
{
    return stock.get_info_from_plugin (dinfo, job_ptr, data);
}

extern bitstr_t *select_p_resv_test (resv_desc_msg_t *resv_desc_ptr,
                                     uint32_t node_cnt,
                                     bitstr_t *avail_bitmap,
                                     bitstr_t **core_bitmap)
{
    return stock.resv_test (resv_desc_ptr, node_cnt, avail_bitmap,
                            core_bitmap);
}
