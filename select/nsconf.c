/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsconf.c - nodeshare.json in slurmctld: loaded at init, reloaded when
 * `scontrol reconfigure` changed it (a broken file leaves the previous
 * configuration in force, also across the new process 23.11+ starts), and
 * a copy of the one in force kept beside slurmctld's state.  Its state is
 * its own (conf); other parts read the configuration through ctld_cfg()
 * and ctld_active(), with ns_ctld_lock held. */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nscompat.h"

#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"

#include "nsconfig.h"
#include "nsplugin.h"

#include "nsctld.h"
#include "nsctld_int.h"
#include "nsrequest.h"

static struct {
    int active;                 /* in slurmctld, configuration loaded */
    ns_config_t *cfg;
    char path[PATH_MAX];
    struct stat st;             /* of the last load attempt */
    int st_ok;
    int jobs_inited;            /* job_init seen: later ones = reconfigure */
    int force_reload;
} conf;

ns_config_t *ctld_cfg (void)
{
    return conf.cfg;
}

int ctld_active (void)
{
    return conf.active;
}

static int same_file (const struct stat *a, const struct stat *b)
{
    return a->st_ino == b->st_ino && a->st_dev == b->st_dev
           && a->st_size == b->st_size
           && a->st_mtim.tv_sec == b->st_mtim.tv_sec
           && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec
           && a->st_ctim.tv_sec == b->st_ctim.tv_sec
           && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static void note_stat (void)
{
    conf.st_ok = stat (conf.path, &conf.st) == 0;
}

/* The configuration in force, copied beside slurmctld's state
 * (StateSaveLocation/nodeshare.json.in-force, mode 0600): from 23.11
 * `scontrol reconfigure` re-executes slurmctld, and the new process can
 * only keep the previous configuration when a changed nodeshare.json is
 * broken if it finds it there.  Best effort: without it a broken file on
 * reconfigure fails the reconfigure, as a broken slurm.conf does. */
static int in_force_path (char *buf, size_t len)
{
    return slurm_conf.state_save_location
           && snprintf (buf, len, "%s/nodeshare.json.in-force",
                        slurm_conf.state_save_location) < (int)len;
}

static void keep_in_force (int missing)
{
    char dst[PATH_MAX], tmp[PATH_MAX + 8];
    if (!in_force_path (dst, sizeof (dst)))
        return;
    if (missing) {
        unlink (dst);
        return;
    }
    snprintf (tmp, sizeof (tmp), "%s.new", dst);
    FILE *in = fopen (conf.path, "re");
    int fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    FILE *out = fd >= 0 ? fdopen (fd, "w") : NULL;
    int ok = in && out;
    char buf[8192];
    size_t n;
    while (ok && (n = fread (buf, 1, sizeof (buf), in)) > 0)
        ok = fwrite (buf, 1, n, out) == n;
    if (in && ferror (in))
        ok = 0;
    if (in)
        fclose (in);
    if (out) {
        if (fclose (out) != 0)
            ok = 0;
    }
    else if (fd >= 0)
        close (fd);
    if (!ok || rename (tmp, dst) < 0) {
        debug ("nodeshare: cannot keep a copy of %s in %s: %m", conf.path, dst);
        unlink (tmp);
    }
}

int ns_ctld_init (void)
{
    ns_error_t err;
    char desc[512];
    int missing;

    if (!running_in_slurmctld ())
        return 0;
    model_create ();
    if (ns_plugin_config_path (slurm_conf.slurm_conf, conf.path,
                               sizeof (conf.path)) < 0)
        fatal ("nodeshare: path of %s next to %s is too long",
               NS_PLUGIN_CONFIG_NAME, slurm_conf.slurm_conf);
    note_stat ();
    /* Set by slurmctld (23.11+) in the process it executes for
     * `scontrol reconfigure`. */
    int reconf = getenv ("SLURMCTLD_RECONF") != NULL;
    if (!(conf.cfg = ns_plugin_config_load (conf.path, &missing, &err))) {
        char kept[PATH_MAX];
        ns_error_t err2;
        if (!reconf || !in_force_path (kept, sizeof (kept))
            || !(conf.cfg = ns_config_load_file (kept, &err2)))
            fatal ("nodeshare: %s", err.text);
        error ("nodeshare: %s; the previous configuration stays in force "
               "(%s)", err.text,
               ns_plugin_config_describe (conf.cfg, conf.path, 0, desc,
                                          sizeof (desc)));
    }
    else {
        info (reconf ? "nodeshare: reloaded: %s" : "nodeshare: %s",
              ns_plugin_config_describe (conf.cfg, conf.path, missing, desc,
                                         sizeof (desc)));
        keep_in_force (missing);
    }
    if (ns_req_whole_sockets ())
        info ("nodeshare: %s: cons_tres gives each job whole sockets on "
              "each of its nodes, which the model does not count; every "
              "job is placed by cons_tres as stock Slurm places it",
              NS_WHOLE_SOCKETS_WHY);
    conf.active = 1;
    model_mark_dirty ();
    stats_metrics_start ();
    return 0;
}

void ns_ctld_fini (void)
{
    stats_metrics_stop ();
    shadow_stop ();
    pthread_mutex_lock (&ns_ctld_lock);
    learn_stop ();
    conf.active = 0;
    ns_config_destroy (conf.cfg);
    conf.cfg = NULL;
    model_destroy ();
    pthread_mutex_unlock (&ns_ctld_lock);
}

void ns_ctld_reconfigure (void)
{
    ns_error_t err;
    char desc[512];
    struct stat st;
    int missing;

    pthread_mutex_lock (&ns_ctld_lock);
    if (!conf.active)
        goto out;
    stats_report (1);
    int exists = stat (conf.path, &st) == 0;
    int changed = exists != conf.st_ok || (exists && !same_file (&st, &conf.st));
    if (!conf.force_reload && !changed)
        goto out;
    conf.force_reload = 0;
    note_stat ();
    ns_config_t *cfg = ns_plugin_config_load (conf.path, &missing, &err);
    if (!cfg) {
        error ("nodeshare: %s; the previous configuration stays in force "
               "(%s)", err.text,
               ns_plugin_config_describe (conf.cfg, conf.path, 0, desc,
                                          sizeof (desc)));
        goto out;
    }
    /* What was learned stays; its program ids follow the new table. */
    learn_config_changing (cfg);
    ns_config_destroy (conf.cfg);
    conf.cfg = cfg;
    learn_config_changed ();
    /* Program ids and identity rules belong to the configuration. */
    model_config_changed ();
    keep_in_force (missing);
    info ("nodeshare: reloaded: %s",
          ns_plugin_config_describe (conf.cfg, conf.path, missing, desc,
                                     sizeof (desc)));
out:
    pthread_mutex_unlock (&ns_ctld_lock);
}


void ns_ctld_job_init (void)
{
    pthread_mutex_lock (&ns_ctld_lock);
    model_mark_dirty ();
    if (conf.jobs_inited)
        conf.force_reload = 1;   /* read_slurm_conf(): scontrol reconfigure */
    conf.jobs_inited = 1;
    pthread_mutex_unlock (&ns_ctld_lock);
}
