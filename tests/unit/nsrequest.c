/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsrequest.t - the select plugin's request (select/nsrequest.c) on job
 * records built here, compiled against the Slurm release the plugin is
 * built for and linked with that release's libslurmfull (bitstrings,
 * lists, slurm_conf): which jobs go to cons_tres as asked, the request the
 * model places, and the shape written into a record and taken back. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "nscompat.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "nsrequest.h"
#include "tap.h"

/* A job as sbatch -n NTASKS leaves it: nothing else asked. */
struct rec {
    job_record_t job;
    job_details_t d;
    part_record_t part;
    multi_core_data_t mc;
};

static void job_init (struct rec *x, uint32_t id, uint32_t ntasks)
{
    memset (x, 0, sizeof (*x));
    x->job.job_id = id;
    x->job.details = &x->d;
    x->job.part_ptr = &x->part;
    x->part.name = "debug";
    x->part.max_share = 1;
    x->d.num_tasks = ntasks;
    x->d.min_cpus = ntasks;
    x->d.cpus_per_task = NO_VAL16;
    x->d.ntasks_per_node = 0;
    x->d.pn_min_cpus = 1;
    x->d.core_spec = NO_VAL16;
    x->d.requeue = 1;
    x->d.max_nodes = 0;
    x->d.min_nodes = 1;
    x->d.share_res = NO_VAL8;
    x->d.pn_min_memory = 1000 | MEM_PER_CPU;
    x->mc.ntasks_per_socket = NO_VAL16;
    x->mc.ntasks_per_core = NO_VAL16;
    x->mc.ntasks_per_board = NO_VAL16;
    x->d.mc_ptr = &x->mc;
}

static const char *str (const char *s)
{
    return s ? s : "(null)";
}

static void as_asked (void)
{
    struct rec x;
    slurm_conf.select_type_param = NS_CR_MEMORY;
    job_init (&x, 1, 24);
    is_str (str (ns_req_beyond_model (&x.job)), "(null)",
            "sbatch -n 24: the model expresses it");
    is_str (str (ns_req_explicit (&x.job)), "(null)",
            "  and it is no explicit shape");

    x.job.bit_flags |= SPREAD_JOB;
    is_str (str (ns_req_beyond_model (&x.job)), "--spread-job",
            "--spread-job: beyond the model");
    job_init (&x, 1, 24);
    x.job.gres_list_req = list_create (NULL);
    list_append (x.job.gres_list_req, (void *)"gpu");
    is_str (str (ns_req_beyond_model (&x.job)), "generic resources",
            "--gres: beyond the model");
    FREE_NULL_LIST (x.job.gres_list_req);
    x.d.overcommit = 1;
    is_str (str (ns_req_beyond_model (&x.job)), "--overcommit",
            "--overcommit");
    job_init (&x, 1, 24);
    x.mc.ntasks_per_socket = 4;
    is_str (str (ns_req_beyond_model (&x.job)),
            "tasks per socket, core or board", "--ntasks-per-socket");
    job_init (&x, 1, 24);
    x.mc.ntasks_per_core = INFINITE16;
    is_str (str (ns_req_beyond_model (&x.job)), "(null)",
            "ntasks_per_core INFINITE16 is not set");
    x.d.core_spec = 2;
    is_str (str (ns_req_beyond_model (&x.job)), "--core-spec",
            "--core-spec 2");
    job_init (&x, 1, 24);
    x.part.max_share = SHARED_FORCE | 4;
    is_str (str (ns_req_beyond_model (&x.job)),
            "OverSubscribe=FORCE (its partition)", "OverSubscribe=FORCE:4");
    x.part.max_share = 4;
    is_str (str (ns_req_beyond_model (&x.job)), "(null)",
            "OverSubscribe=YES:4 without --oversubscribe: expressed");
    x.d.share_res = 1;
    is_str (str (ns_req_beyond_model (&x.job)), "--oversubscribe",
            "  with --oversubscribe: beyond the model");
    job_init (&x, 1, 24);
    slurm_conf.select_type_param = NS_CR_SOCKET;
    is_str (str (ns_req_beyond_model (&x.job)), NS_WHOLE_SOCKETS_WHY,
            "CR_Socket: every job as asked");
    slurm_conf.select_type_param = NS_CR_MEMORY;

    x.d.whole_node = WHOLE_NODE_REQUIRED;
    is_str (str (ns_req_explicit (&x.job)), "--exclusive", "--exclusive");
    ok (ns_req_holds_whole_nodes (&x.d), "  holds its nodes whole");
    job_init (&x, 1, 24);
    x.d.pn_min_memory = 0;
    ok (strstr (str (ns_req_explicit (&x.job)), "all the memory") != NULL,
        "--mem=0 with memory consumable: all the memory of each node");
    ok (ns_req_holds_whole_nodes (&x.d), "  holds its nodes whole");
    slurm_conf.select_type_param = 0;
    is_str (str (ns_req_explicit (&x.job)), "(null)",
            "  memory not consumable: no explicit shape");
    slurm_conf.select_type_param = NS_CR_MEMORY;
    job_init (&x, 1, 24);
    x.d.min_nodes = 2;
    is_str (str (ns_req_explicit (&x.job)), "-N", "-N 2");
    job_init (&x, 1, 24);
    x.d.max_nodes = 1;
    is_str (str (ns_req_explicit (&x.job)), "-N", "-N 1 (max_nodes 1)");
    job_init (&x, 1, 24);
    x.d.max_nodes = NO_VAL;
    is_str (str (ns_req_explicit (&x.job)), "(null)",
            "max_nodes NO_VAL: no -N");
    job_init (&x, 1, 24);
    x.d.ntasks_per_node = 12;
    is_str (str (ns_req_explicit (&x.job)), "--ntasks-per-node",
            "--ntasks-per-node 12");
    job_init (&x, 1, 24);
    x.d.cpus_per_task = 2;
    x.d.pn_min_cpus = 2;
    is_str (str (ns_req_explicit (&x.job)), "(null)",
            "-c 2: pn_min_cpus 2 is slurmctld's own default");
    x.d.pn_min_cpus = 8;
    is_str (str (ns_req_explicit (&x.job)), "--mincpus", "--mincpus 8");
    job_init (&x, 1, 24);
    x.d.req_node_bitmap = bit_alloc (4);
    is_str (str (ns_req_explicit (&x.job)), "--nodelist", "--nodelist");
    FREE_NULL_BITMAP (x.d.req_node_bitmap);
}

static void requests (void)
{
    ns_error_t err;
    ns_config_t *cfg = ns_config_load_string (
        "{ \"partitions\": [\"debug\"], \"accounts\": [\"physics\"] }",
        NULL, &err);
    ok (cfg != NULL, "a configuration with a scope");
    if (!cfg)
        return;
    unsigned char allowed[4], gres[4] = { 1, 0, 0, 0 };
    ns_reqctx_t x = { .cfg = cfg, .nnodes = 4, .allowed = allowed,
                      .gres_node = gres, .ngres_nodes = 1, .now = 10000 };
    bitstr_t *cand = bit_alloc (4);
    bit_set (cand, 1);
    bit_set (cand, 3);
    struct rec j;
    job_init (&j, 7, 30);
    j.job.account = "physics";
    j.d.submit_time = 9000;
    j.d.begin_time = 9400;
    ns_request_t r;
    slurm_conf.select_type_param = NS_CR_MEMORY;
    ns_req_build (&x, &j.job, 5, cand, 3, &r);
    ok (r.id == 7 && r.program == 5 && r.ntasks == 30 && r.cpus_per_task == 1,
        "job 7, program 5, 30 tasks of 1 CPU");
    ok (r.allowed == allowed && !allowed[0] && allowed[1] && !allowed[2]
        && allowed[3], "candidates: nodes 1 and 3 of the bitmap");
    ok (r.no_stripe == gres, "a job without GRES: not striped onto GRES nodes");
    is_int (r.flags, 0, "requeueable, in scope: no flags");
    is_int (r.mem_per_cpu, 1000, "--mem-per-cpu 1000");
    is_int (r.mem_per_node, 0, "  no --mem");
    is_int (r.max_nodes, 3, "max nodes as slurmctld passed them");
    is_int (r.waited, 600, "waited since its begin time (later than submit)");

    job_init (&j, 8, 0);
    j.d.num_tasks = NO_VAL;
    j.d.min_cpus = 12;
    j.d.cpus_per_task = 4;
    j.d.requeue = 0;
    j.d.pn_min_memory = 64000;
    j.part.name = "other";
    j.part.max_cpus_per_node = 16;
    ns_req_build (&x, &j.job, NS_PROGRAM_UNKNOWN, cand, 0, &r);
    is_int (r.ntasks, 3, "no task count: 12 CPUs / 4 per task = 3 tasks");
    is_int (r.cpus_per_task, 4, "  of 4 CPUs");
    is_int (r.flags, NS_REQ_NO_REQUEUE | NS_REQ_OUT_OF_SCOPE,
            "--no-requeue in partition other: both flags");
    is_int (r.mem_per_node, 64000, "--mem 64000: per node");
    is_int (r.max_nodes, 0, "no node limit");
    is_int (r.max_cpus_per_node, 16, "MaxCPUsPerNode 16");
    slurm_conf.select_type_param = 0;
    ns_req_build (&x, &j.job, NS_PROGRAM_UNKNOWN, cand, 0, &r);
    is_int (r.mem_per_node, 0, "memory not consumable: no memory asked");

    ns_config_t *gcfg = ns_config_load_string (
        "{ \"stripe_gres_nodes\": true }", NULL, &err);
    x.cfg = gcfg;
    ns_req_build (&x, &j.job, 1, cand, 0, &r);
    ok (gcfg && r.no_stripe == NULL, "stripe_gres_nodes: GRES nodes allowed");
    is_int (r.flags, NS_REQ_NO_REQUEUE, "no scope: in scope");
    ns_config_destroy (gcfg);
    FREE_NULL_BITMAP (cand);
    ns_config_destroy (cfg);
}

static void shapes (void)
{
    struct rec j;
    ns_jobinfo_t ji;
    memset (&ji, 0, sizeof (ji));
    job_init (&j, 9, 24);
    j.d.pn_min_memory = 48000;
    ns_req_apply_shape (&j.job, &ji, 2, 12, 1, 24000);
    ok (j.d.min_nodes == 2 && j.d.ntasks_per_node == 12
        && j.d.pn_min_cpus == 12 && j.d.pn_min_memory == 24000,
        "12+12: 2 nodes, 12 tasks and CPUs each, --mem 48000 split to 24000");
    ns_req_undo_shape (&j.job, &ji);
    ok (j.d.min_nodes == 1 && j.d.ntasks_per_node == 0
        && j.d.pn_min_cpus == 1 && j.d.pn_min_memory == 48000 && !ji.applied,
        "  undone: every field as it was");
    ns_req_apply_shape (&j.job, &ji, 4, 0, 1, 0);
    ok (j.d.min_nodes == 4 && j.d.ntasks_per_node == 0
        && j.d.pn_min_memory == 48000,
        "uneven (tasks per node 0): only the node count; no split memory");
    j.d.min_nodes = 3;   /* slurmctld changed it since */
    ns_req_undo_shape (&j.job, &ji);
    is_int (j.d.min_nodes, 3, "  a field slurmctld changed is left alone");
    job_init (&j, 10, 24);
    j.d.pn_min_memory = 1000 | MEM_PER_CPU;
    ns_req_apply_shape (&j.job, &ji, 2, 12, 1, 500);
    ok (j.d.pn_min_memory == (1000 | MEM_PER_CPU),
        "--mem-per-cpu follows the CPUs: unchanged");
    ns_req_undo_shape (&j.job, &ji);
    ok (ns_set16 (3) && !ns_set16 (0) && !ns_set16 (NO_VAL16)
        && !ns_set16 (INFINITE16), "set16: 3 only");
}

static const char *line1 = "job 11 (LAM, 24 cores) [twins]: waits (twin): "
                           "only nodes with LAM jobs are free";

static void reasons (void)
{
    struct rec j;
    job_init (&j, 11, 24);
    ok (ns_req_set_reason (&j.job, line1), "a reason set: the record changed");
    is_str (str (j.job.system_comment),
            "nodeshare: waits (twin): only nodes with LAM jobs are free",
            "  SystemComment: nodeshare's prefix and the explanation's tail");
    ok (!ns_req_set_reason (&j.job, line1), "  set again: unchanged");
    ok (ns_req_clear_reason (&j.job) && j.job.system_comment == NULL,
        "  cleared: no SystemComment");
    j.job.system_comment = xstrdup ("held by the site");
    ns_req_set_reason (&j.job, line1);
    is_str (str (j.job.system_comment), "held by the site",
            "a site's SystemComment is never overwritten");
    ns_req_clear_reason (&j.job);
    is_str (str (j.job.system_comment), "held by the site", "  nor cleared");
    xfree (j.job.system_comment);
    xfree (j.job.state_desc);
    is_str (ns_req_explain_tail ("no brackets"), "no brackets",
            "an explanation without \"]: \": whole");
}

static void admin_comments (void)
{
    struct rec j;
    job_init (&j, 12, 24);
    ok (ns_req_admin_comment (&j.job, "stripe: ns[1-2] 12+12"),
        "AdminComment: a line added");
    is_str (str (j.job.admin_comment), "[nodeshare] stripe: ns[1-2] 12+12",
            "  tagged");
    ok (!ns_req_admin_comment (&j.job, "stripe: ns[1-2] 12+12"),
        "  the same line again: unchanged");
    xfree (j.job.admin_comment);
    j.job.admin_comment = xstrdup ("site: project X");
    ns_req_admin_comment (&j.job, "pack: ns3");
    is_str (str (j.job.admin_comment), "site: project X | [nodeshare] pack: ns3",
            "a job_submit plugin's words stay first");
    ns_req_admin_comment (&j.job, "stripe: a | b");
    is_str (str (j.job.admin_comment),
            "site: project X | [nodeshare] stripe: a / b",
            "requeued: nodeshare's segment replaced; \" | \" inside it "
            "becomes \" / \"");
    xfree (j.job.admin_comment);
    j.job.admin_comment = xstrdup ("[nodeshare] old | site: later");
    ns_req_admin_comment (&j.job, "new");
    is_str (str (j.job.admin_comment), "site: later | [nodeshare] new",
            "words after nodeshare's segment stay, before the new one");
    xfree (j.job.admin_comment);
}

int main (void)
{
    plan_no_plan ();
    as_asked ();
    requests ();
    shapes ();
    reasons ();
    admin_comments ();
    return done_testing ();
}
