/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeshare.c - SPANK plugin: pin ranks with the space-bounded cache tree
 *
 * Thin glue between Slurm and spank/pin.c (which calls model/): options
 * and plugin arguments in, one plan per job step on each node, bindings
 * out.  Where things run (design.md section 7):
 *
 *   sbatch, salloc, srun   init: register the options (sbatch and salloc
 *                          ignore a static spank_options table); option
 *                          callbacks validate the values, so a malformed
 *                          one is refused at submission; init_post_opt
 *                          passes --nodeshare-program to slurmctld as
 *                          SPANK_NODESHARE_PROGRAM in the job control
 *                          environment (the select plugin reads it).
 *   srun                   local_user_init: at srun -v, say when the
 *                          user's own --cpu-bind or --gpu-bind keeps the
 *                          plugin from pinning the step.
 *   slurmstepd, as root    init_post_opt: leave the step alone if the
 *                          user asked Slurm for a binding; else plan the
 *                          whole step at once
 *                          (one topology load, one tree, one ledger
 *                          transaction for all local ranks, so the ranks
 *                          see each other); write the report.
 *   each task, as the user task_init: bind (unless dry run), export
 *                          NODESHARE_CPUS, print the verbose line.
 *   slurmstepd, as root    task_exit: drop the task's ledger record;
 *                          exit: drop whatever the step still holds.
 *
 * Nothing here fails a job for the plugin's own trouble: every internal
 * error is logged and the step runs unpinned.  Only a malformed user
 * option is an error, and only where it is given (sbatch/salloc/srun).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "ledgerfile.h"
#include "nsconfig.h"
#include "nsplugin.h"
#include "pin.h"

SPANK_PLUGIN (nodeshare, 1);

/* Step ids from SLURM_MAX_NORMAL_STEP_ID (slurm.h) up are the batch
 * script, the extern step, the interactive step: not ranks to pin. */
#define MAX_NORMAL_STEP 0xfffffff0u

/* Site defaults: plugin arguments in plugstack.conf (parsed by
 * ns_pin_parse_args(), pin.c). */
static struct ns_pin_args site;

/* What the user asked for (option callbacks). */
static struct {
    uint64_t footprint;
    int have_footprint;
    enum ns_pin_mode mode;
    int have_mode;
    char program[128];
    int have_program;
} user;

/* slurmstepd: the step's plan, shared with its forked tasks. */
static struct {
    struct ns_pin_plan *plan;
    ns_ledger_owner_t owner;
    char ledger[PATH_MAX];
    char node[256];
    enum ns_pin_mode mode;
    uint64_t footprint;
    char userbind[1280];    /* the user's --cpu-bind/--gpu-bind, if any */
} step;

/*
 * User options
 */

/* In slurmstepd (remote) a value was already checked at submission:
 * never fail a step there, just ignore what does not parse. */
static int opt_footprint (int val, const char *arg, int remote)
{
    uint64_t bytes;
    if (!arg || ns_parse_size (arg, &bytes) < 0) {
        if (remote)
            return 0;
        slurm_error ("nodeshare: --nodeshare-footprint=%s: expected the "
                     "working set of one rank in bytes with an optional K, "
                     "M, G or T suffix (powers of 1024), e.g. 2M",
                     arg ? arg : "");
        return -1;
    }
    user.footprint = bytes;
    user.have_footprint = 1;
    return 0;
}

static int opt_bind (int val, const char *arg, int remote)
{
    if (ns_pin_parse_mode (arg, &user.mode) < 0) {
        if (remote)
            return 0;
        slurm_error ("nodeshare: --nodeshare-bind=%s: expected auto, none "
                     "or verbose", arg ? arg : "");
        return -1;
    }
    user.have_mode = 1;
    return 0;
}

static int opt_program (int val, const char *arg, int remote)
{
    if (!ns_pin_program_ok (arg)) {
        if (remote)
            return 0;
        slurm_error ("nodeshare: --nodeshare-program=%s: expected a program "
                     "name of 1 to 127 characters from A-Z a-z 0-9 . _ + -",
                     arg ? arg : "");
        return -1;
    }
    snprintf (user.program, sizeof (user.program), "%s", arg);
    user.have_program = 1;
    return 0;
}

static struct spank_option options[] = {
    { "nodeshare-footprint", "SIZE",
      "nodeshare: working set of one rank (e.g. 2M); ranks are pinned to a "
      "cache domain that holds it", 1, 0, opt_footprint },
    { "nodeshare-bind", "auto|none|verbose",
      "nodeshare: pin ranks to cache domains (auto), leave them alone "
      "(none), or pin and report each binding on stderr (verbose)",
      1, 0, opt_bind },
    { "nodeshare-program", "NAME",
      "nodeshare: the program this job runs, for the node-sharing policy "
      "(never pair two jobs of the same program)", 1, 0, opt_program },
    SPANK_OPTIONS_TABLE_END
};

int slurm_spank_init (spank_t sp, int ac, char **av)
{
    spank_context_t ctx = spank_context ();
    if (ctx != S_CTX_LOCAL && ctx != S_CTX_REMOTE && ctx != S_CTX_ALLOCATOR)
        return ESPANK_SUCCESS;
    for (struct spank_option *o = options; o->name; o++)
        if (spank_option_register (sp, o) != ESPANK_SUCCESS)
            slurm_error ("nodeshare: cannot register --%s", o->name);
    ns_pin_parse_args (&site, ac, av);
    if (site.bad && ctx == S_CTX_REMOTE)
        slurm_error ("nodeshare: %s; ranks are not pinned", site.badmsg);
    return ESPANK_SUCCESS;
}

/*
 * Planning a step (slurmstepd, root)
 */

/* nodeshare.json: config=PATH, else next to slurm.conf (plugin/, as the
 * select plugin finds it).  A missing default file means the built-in
 * defaults; a bad file is logged and ignored. */
static ns_config_t *load_config (void)
{
    char path[PATH_MAX];
    int missing = 0;
    ns_error_t err;
    if (site.config[0])
        snprintf (path, sizeof (path), "%s", site.config);
    else if (ns_plugin_config_path (NULL, path, sizeof (path)) < 0)
        return NULL;
    ns_config_t *cfg = ns_plugin_config_load (path, &missing, &err);
    if (!cfg)
        slurm_error ("nodeshare: %s; using built-in defaults", err.text);
    else if (missing && site.config[0])
        slurm_error ("nodeshare: config=%s: no such file; using built-in "
                     "defaults", path);
    return cfg;
}

/* The rank's footprint, first that says: --nodeshare-footprint, the
 * plugin's footprint=, nodeshare.json's cache.default_footprint; else 0,
 * and pin.c derives it from the step's memory per CPU if Slurm tracks
 * memory, or leaves it 0 (a rank fits any L1: pinned to its core). */
static uint64_t footprint (const ns_config_t *cfg, uint64_t mem_mb,
                           const char **source)
{
    if (user.have_footprint) {
        *source = "--nodeshare-footprint";
        return user.footprint;
    }
    if (site.have_footprint) {
        *source = "plugstack";
        return site.footprint;
    }
    if (cfg && ns_config_cache_footprint (cfg) > 0) {
        *source = "nodeshare.json";
        return ns_config_cache_footprint (cfg);
    }
    *source = mem_mb > 0 ? "mem-per-cpu" : "none";
    return 0;
}

/* The Slurm node name: slurmd exports SLURMD_NODENAME to slurmstepd (it
 * differs from the host name with several slurmd per host).  Without it
 * the job's environment is asked, which the user controls: the name goes
 * into root-owned paths (%n), so it must be a plain host name
 * (ns_pin_node_name_ok()).  Returns 0, or -1 after logging why not. */
static int node_name (spank_t sp, char *buf, size_t len)
{
    const char *env = getenv ("SLURMD_NODENAME"), *from;
    if (env && *env && strlen (env) < len) {
        strcpy (buf, env);
        from = "slurmstepd's SLURMD_NODENAME";
    } else if (spank_getenv (sp, "SLURMD_NODENAME", buf, (int)len)
               == ESPANK_SUCCESS && buf[0]) {
        from = "the job's SLURMD_NODENAME";
    } else {
        if (gethostname (buf, len) < 0)
            snprintf (buf, len, "localhost");
        buf[len - 1] = '\0';
        from = "the host name";
    }
    if (ns_pin_node_name_ok (buf))
        return 0;
    /* Quote it harmlessly: it may hold anything but NUL. */
    char shown[65];
    size_t i;
    for (i = 0; buf[i] && i < sizeof (shown) - 1; i++)
        shown[i] = buf[i] >= 0x20 && buf[i] < 0x7f ? buf[i] : '?';
    shown[i] = '\0';
    slurm_error ("nodeshare: node name '%s' (from %s) is not a plain host "
                 "name (A-Z a-z 0-9 . _ -, no leading dot); ranks are not "
                 "pinned", shown, from);
    buf[0] = '\0';
    return -1;
}

static const char *anchor_str (const struct ns_pin_task *t, char *buf,
                               size_t len)
{
    if (t->level == NS_CT_MACHINE)
        snprintf (buf, len, "machine");
    else
        snprintf (buf, len, "%s #%d", ns_cachetree_level_name (t->level),
                  t->cache);
    return buf;
}

/* One line per local task in DIR/JOB.STEP.NODE, for tests and admins. */
static void write_report (spank_t sp, const char *cores, const char *source)
{
    char dir[PATH_MAX], path[PATH_MAX + sizeof (step.node) + 32];
    if (!ns_pin_expand (site.report, step.node, dir, sizeof (dir)))
        return;
    mkdir (dir, 0755);
    snprintf (path, sizeof (path), "%s/%u.%u.%s", dir,
              (unsigned)step.owner.jobid, (unsigned)step.owner.stepid,
              step.node);
    int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW
                         | O_CLOEXEC, 0644);
    FILE *f = fd >= 0 ? fdopen (fd, "w") : NULL;
    if (!f) {
        slurm_error ("nodeshare: report %s: %m", path);
        if (fd >= 0)
            close (fd);
        return;
    }
    for (int i = 0; i < step.plan->ntasks; i++) {
        const struct ns_pin_task *t = &step.plan->task[i];
        uint32_t rank = 0;
        spank_get_item (sp, S_JOB_LOCAL_TO_GLOBAL_ID, (uint32_t)t->task,
                        &rank);
        fprintf (f, "job=%u step=%u node=%s task=%d rank=%u "
                 "footprint=%llu source=%s origin=%d level=%s cache=%d "
                 "core=%d cpus=%s alloc=%s mode=%s others=%d\n",
                 (unsigned)step.owner.jobid, (unsigned)step.owner.stepid,
                 step.node, t->task, (unsigned)rank,
                 (unsigned long long)step.footprint, source, t->origin,
                 ns_cachetree_level_name (t->level), t->cache, t->core,
                 t->cpulist, cores, site.dryrun ? "dryrun" : "bind",
                 step.plan->occupied);
    }
    fclose (f);
}

static void log_plan (const char *cores, const char *source)
{
    char size[32], anchor[64];
    const struct ns_pin_plan *p = step.plan;
    slurm_info ("nodeshare: job %u step %u on %s: %d tasks over cores %s, "
                "footprint %s (%s), %d records of other steps%s%s",
                (unsigned)step.owner.jobid, (unsigned)step.owner.stepid,
                step.node, p->ntasks, cores,
                ns_cachetree_size_str (step.footprint, size, sizeof (size)),
                source, p->occupied, site.dryrun ? ", dry run" : "",
                p->reset ? ", ledger reset (topology changed)" : "");
    if (p->reclaimed || p->repaired)
        slurm_info ("nodeshare: ledger: %d records of dead steps reclaimed, "
                    "%d broken records repaired", p->reclaimed, p->repaired);
    for (int i = 0; i < p->ntasks; i++)
        slurm_verbose ("nodeshare: task %d -> %s, cpus %s: %s",
                       p->task[i].task,
                       anchor_str (&p->task[i], anchor, sizeof (anchor)),
                       p->task[i].cpulist, p->task[i].why);
}

static int get_cores (spank_t sp, char **cores)
{
    *cores = NULL;
    if (spank_get_item (sp, S_STEP_ALLOC_CORES, cores) == ESPANK_SUCCESS
        && *cores && **cores)
        return 0;
    if (spank_get_item (sp, S_JOB_ALLOC_CORES, cores) == ESPANK_SUCCESS
        && *cores && **cores)
        return 0;
    return -1;
}

/* What Slurm says about the step.  1: a step to pin; 0: not one (batch,
 * extern or interactive step); -1: Slurm did not say enough (logged). */
struct items {
    uint32_t jobid, stepid, ntasks, cpt;
    uint64_t mem_mb;
    char *cores;
};

static int get_items (spank_t sp, struct items *it)
{
    *it = (struct items){ .cpt = 1 };
    if (spank_get_item (sp, S_JOB_ID, &it->jobid) != ESPANK_SUCCESS
        || spank_get_item (sp, S_JOB_STEPID, &it->stepid) != ESPANK_SUCCESS
        || it->stepid >= MAX_NORMAL_STEP)
        return 0;
    if (spank_get_item (sp, S_JOB_LOCAL_TASK_COUNT, &it->ntasks)
        != ESPANK_SUCCESS || it->ntasks < 1
        || get_cores (sp, &it->cores) < 0) {
        slurm_error ("nodeshare: job %u step %u: no task count or cores "
                     "from Slurm; ranks are not pinned", it->jobid,
                     it->stepid);
        return -1;
    }
    if (spank_get_item (sp, S_STEP_CPUS_PER_TASK, &it->cpt)
        != ESPANK_SUCCESS || it->cpt < 1)
        it->cpt = 1;
    if (spank_get_item (sp, S_STEP_ALLOC_MEM, &it->mem_mb) != ESPANK_SUCCESS)
        it->mem_mb = 0;
    return 1;
}

/* The node's paths with %n expanded; -1 (err filled) if one is too long. */
static int node_paths (char *topocache, size_t len, ns_error_t *err)
{
    topocache[0] = step.ledger[0] = '\0';
    if ((site.ledger[0]
         && !ns_pin_expand (site.ledger, step.node, step.ledger,
                            sizeof (step.ledger)))
        || (site.topocache[0]
            && !ns_pin_expand (site.topocache, step.node, topocache, len)))
        return ns_error_set (err, ENAMETOOLONG, "ledger or topocache path "
                             "too long");
    return 0;
}

/* An environment variable of the job: in slurmstepd, the step's
 * environment as srun sent it; in srun, srun's own, which srun has made
 * the step's (spank_getenv() works in slurmstepd only).  NULL when unset;
 * a value too long for buf is cut. */
static const char *job_getenv (spank_t sp, const char *name, char *buf,
                               size_t len)
{
    if (spank_context () != S_CTX_REMOTE) {
        const char *v = getenv (name);
        if (!v)
            return NULL;
        snprintf (buf, len, "%s", v);
        return buf;
    }
    spank_err_t rc = spank_getenv (sp, name, buf, (int)len);
    return rc == ESPANK_SUCCESS || rc == ESPANK_NOSPACE ? buf : NULL;
}

/* Did the user ask Slurm for a binding (ns_pin_user_binding())?  srun
 * writes SLURM_CPU_BIND_* from the user's request alone: the site's
 * TaskPluginParam and CpuBind= are added later, to the launch request,
 * and task/affinity's automatic binding happens in slurmd; neither shows
 * in the environment the step starts with, and SPANK has no item for
 * either binding.  1 with what filled, or 0. */
static int user_binding (spank_t sp, char *what, size_t len)
{
    char type[256], list[1024], tres[1024], gpu[256];
    return ns_pin_user_binding (
        job_getenv (sp, "SLURM_CPU_BIND_TYPE", type, sizeof (type)),
        job_getenv (sp, "SLURM_CPU_BIND_LIST", list, sizeof (list)),
        job_getenv (sp, "SLURM_TRES_BIND", tres, sizeof (tres)),
        job_getenv (sp, "SLURM_GPU_BIND", gpu, sizeof (gpu)), what, len);
}

static void plan_step (spank_t sp)
{
    struct items it;
    char topo[4096], topocache[PATH_MAX];
    const char *source, *spec;
    ns_error_t err;

    step.mode = user.have_mode ? user.mode : site.mode;
    if (site.bad || step.mode == NS_PIN_NONE || get_items (sp, &it) <= 0)
        return;
    if (node_name (sp, step.node, sizeof (step.node)) < 0)
        return;
    if (user_binding (sp, step.userbind, sizeof (step.userbind))) {
        slurm_verbose ("nodeshare: job %u step %u on %s: rank pinning left "
                       "to %s: the user asked for it", it.jobid, it.stepid,
                       step.node, step.userbind);
        return;
    }
    ns_config_t *cfg = load_config ();
    uint64_t bytes = footprint (cfg, it.mem_mb, &source);
    step.owner = (ns_ledger_owner_t){
        .jobid = it.jobid,
        .stepid = it.stepid,
        .pid = getpid (),
        .pid_start = ns_ledger_file_pid_start (getpid ()),
    };
    if (node_paths (topocache, sizeof (topocache), &err) < 0
        || !(spec = ns_pin_topology_spec (site.topology, topo, sizeof (topo),
                                          &err)))
        goto fail;
    struct ns_pin_req req = {
        .topology = spec,
        .topology_cache = topocache[0] ? topocache : NULL,
        .cores = it.cores,
        .ntasks = (int)it.ntasks,
        .cpus_per_task = (int)it.cpt,
        .footprint = bytes,
        .step_mem = it.mem_mb < (UINT64_MAX >> 20) ? it.mem_mb << 20 : 0,
        .sigma = site.have_sigma ? site.sigma
                 : cfg ? ns_config_cache_sigma (cfg) : 1.0,
        .ledger = step.ledger[0] ? step.ledger : NULL,
        .ledger_capacity = site.capacity,
        .lock_timeout_ms = site.timeout_ms,
        .owner = step.owner,
    };
    if (!(step.plan = ns_pin_plan_create (&req, &err)))
        goto fail;
    step.footprint = step.plan->footprint;
    log_plan (it.cores, source);
    if (site.report[0])
        write_report (sp, it.cores, source);
    ns_config_destroy (cfg);
    return;
fail:
    slurm_error ("nodeshare: job %u step %u on %s: %s; ranks are not "
                 "pinned", it.jobid, it.stepid, step.node, err.text);
    step.ledger[0] = '\0';
    ns_config_destroy (cfg);
}

int slurm_spank_init_post_opt (spank_t sp, int ac, char **av)
{
    spank_context_t ctx = spank_context ();
    if ((ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR) && user.have_program) {
        spank_err_t rc = spank_job_control_setenv (sp, "NODESHARE_PROGRAM",
                                                   user.program, 1);
        if (rc != ESPANK_SUCCESS)
            slurm_error ("nodeshare: cannot pass --nodeshare-program: %s",
                         spank_strerror (rc));
    }
    if (ctx == S_CTX_REMOTE)
        plan_step (sp);
    return ESPANK_SUCCESS;
}

/* srun, after it has written the step's environment: tell srun -v. */
int slurm_spank_local_user_init (spank_t sp, int ac, char **av)
{
    char what[1280];
    enum ns_pin_mode mode = user.have_mode ? user.mode : site.mode;
    if (!site.bad && mode != NS_PIN_NONE
        && user_binding (sp, what, sizeof (what)))
        slurm_verbose ("nodeshare: rank pinning left to %s: the user asked "
                       "for it", what);
    return ESPANK_SUCCESS;
}

/*
 * Tasks
 */

static const struct ns_pin_task *my_task (spank_t sp)
{
    int id = -1;
    if (!step.plan || spank_get_item (sp, S_TASK_ID, &id) != ESPANK_SUCCESS)
        return NULL;
    for (int i = 0; i < step.plan->ntasks; i++)
        if (step.plan->task[i].task == id)
            return &step.plan->task[i];
    return NULL;
}

/* As the user, just before exec. */
int slurm_spank_task_init (spank_t sp, int ac, char **av)
{
    const struct ns_pin_task *t = my_task (sp);
    uint32_t rank = 0;
    char anchor[64], size[32];
    ns_error_t err;
    const char *how = "set";
    spank_get_item (sp, S_TASK_GLOBAL_ID, &rank);
    if (!t && step.userbind[0] && step.mode == NS_PIN_VERBOSE) {
        int id = -1;
        spank_get_item (sp, S_TASK_ID, &id);
        fprintf (stderr, "nodeshare-bind=verbose - %s, task %d rank %u "
                 "[%ld]: left to %s (the user asked for it)\n", step.node,
                 id, (unsigned)rank, (long)getpid (), step.userbind);
    }
    if (!t)
        return ESPANK_SUCCESS;
    anchor_str (t, anchor, sizeof (anchor));
    if (site.dryrun) {
        how = "not set (dry run)";
    } else if (ns_pin_bind (t->cpus, &err) < 0) {
        slurm_error ("nodeshare: task %d: %s; not pinned", t->task,
                     err.text);
        how = "FAILED";
    } else {
        spank_setenv (sp, "NODESHARE_CPUS", t->cpulist, 1);
        spank_setenv (sp, "NODESHARE_ANCHOR", anchor, 1);
    }
    if (step.mode == NS_PIN_VERBOSE)
        fprintf (stderr, "nodeshare-bind=verbose - %s, task %d rank %u "
                 "[%ld]: %s from core %d -> %s, cpus %s %s\n", step.node,
                 t->task, (unsigned)rank, (long)getpid (),
                 ns_cachetree_size_str (step.footprint, size, sizeof (size)),
                 t->origin, anchor, t->cpulist, how);
    return ESPANK_SUCCESS;
}

/* slurmstepd, root: a rank is done, its cache is free again. */
int slurm_spank_task_exit (spank_t sp, int ac, char **av)
{
    const struct ns_pin_task *t = my_task (sp);
    ns_error_t err;
    if (!t || !step.ledger[0] || step.footprint == 0)
        return ESPANK_SUCCESS;
    if (ns_pin_forget (step.ledger, site.timeout_ms, &step.owner, t->task,
                       &err) < 0)
        slurm_error ("nodeshare: task %d: cannot update the ledger: %s "
                     "(reclaimed when the step ends)", t->task, err.text);
    return ESPANK_SUCCESS;
}

int slurm_spank_exit (spank_t sp, int ac, char **av)
{
    ns_error_t err;
    if (spank_context () != S_CTX_REMOTE || !step.plan)
        return ESPANK_SUCCESS;
    if (step.ledger[0] && step.footprint > 0
        && ns_pin_forget (step.ledger, site.timeout_ms, &step.owner, -1,
                          &err) < 0)
        slurm_error ("nodeshare: cannot update the ledger: %s (reclaimed "
                     "by the next step)", err.text);
    ns_pin_plan_destroy (step.plan);
    step.plan = NULL;
    return ESPANK_SUCCESS;
}
