/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nslearn.c - the select plugin's online learning (design.md section 7):
 * completed jobs become observations of the learner (model/learn.h), kept
 * in StateSaveLocation/nodeshare-learn.json and, the moment each is made,
 * in its journal.  Called from nsctld.c with ns_ctld_lock held.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nscompat.h"

#include "src/common/bitstring.h"
#include "src/common/job_resources.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "learn.h"
#include "nsconfig.h"

#include "jobmemo.h"
#include "nsctld_int.h"

/*
 * Online learning: slurmctld folds every completed job into the learner
 * (model/learn.h) with the allocations that overlapped it, keeps the
 * state under StateSaveLocation, and uses learned figures where
 * nodeshare.json gives none.  Never fatal: trouble is logged and learning
 * (or only saving) stops.
 */

/* This file's state: learn != NULL when learning runs. */
static struct {
    ns_learn_t *learn;
    ns_interf_t *merged;        /* configured + learned figures, or NULL */
    char learn_path[PATH_MAX];  /* StateSaveLocation/nodeshare-learn.json */
    time_t learn_saved;         /* last state write */
    int learn_unsaved;          /* observations since */
    int learn_unfitted;         /* observations since the last fit */
    char journal_path[PATH_MAX + 16]; /* learn_path + ".journal" */
    uint64_t learn_seq;         /* observations ever journalled */
} L;

int learn_on (void)
{
    return L.learn != NULL;
}

void learn_config_changing (ns_config_t *next)
{
    ns_error_t err;
    if (L.learn && (!ns_config_learn (next)->enabled
                    || ns_learn_remap (L.learn, ns_config_progtab (ctld_cfg ()),
                                       ns_config_progtab (next), &err) < 0))
        learn_stop ();
}

void learn_config_changed (void)
{
    if (L.learn) {
        ns_learn_set_max (L.learn,
                          ns_config_learn (ctld_cfg ())->max_observations);
        learn_refit ();
    }
}

/* The model the decisions use. */
const ns_interf_t *model_now (void)
{
    return L.merged ? L.merged : ns_config_interf (ctld_cfg ());
}

void learn_save (int force)
{
    const ns_learn_conf_t *lc = ns_config_learn (ctld_cfg ());
    time_t now = time (NULL);
    if (!L.learn || !L.learn_unsaved
        || (!force && now - L.learn_saved < lc->save_every))
        return;
    json_object *st = ns_learn_save (L.learn, ns_config_progtab (ctld_cfg ()));
    if (st)
        json_object_object_add (st, "journal_seq",
                                json_object_new_int64 ((int64_t)L.learn_seq));
    char tmp[PATH_MAX + 8];
    snprintf (tmp, sizeof (tmp), "%s.new", L.learn_path);
    int ok = st && json_object_to_file_ext (tmp, st, JSON_C_TO_STRING_PLAIN)
                       == 0;
    json_object_put (st);
    if (ok && chmod (tmp, 0600) == 0 && rename (tmp, L.learn_path) == 0) {
        L.learn_saved = now;
        L.learn_unsaved = 0;
        /* Lines up to journal_seq are in the state now. */
        if (unlink (L.journal_path) < 0 && errno != ENOENT)
            debug ("nodeshare: cannot remove %s: %m", L.journal_path);
        debug ("nodeshare: learning state saved: %d observations in %s",
               ns_learn_nobservations (L.learn), L.learn_path);
    } else {
        error ("nodeshare: cannot save the learning state to %s: %m; "
               "learning goes on in memory", L.learn_path);
        unlink (tmp);
        L.learn_saved = now;    /* try again later, not at every job */
    }
}

/* Each observation goes to the journal (StateSaveLocation/
 * nodeshare-learn.json.journal, one JSON line each, numbered) the moment
 * it is made, so that none is lost when slurmctld ends without the
 * plugin's fini: from 23.11 `scontrol reconfigure` re-executes slurmctld
 * and the old process just exits; a crash or SIGKILL likewise.  The state
 * file records the last number it holds; learn_start() replays the lines
 * after it. */
static void learn_journal (void)
{
    int n = ns_learn_nobservations (L.learn);
    json_object *js = n > 0 ? ns_learn_save_from (L.learn,
                                                  ns_config_progtab (ctld_cfg ()),
                                                  n - 1)
                            : NULL;
    if (!js)
        return;
    L.learn_seq++;
    json_object_object_add (js, "seq",
                            json_object_new_int64 ((int64_t)L.learn_seq));
    const char *line = json_object_to_json_string_ext (
        js, JSON_C_TO_STRING_PLAIN);
    int fd = open (L.journal_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
                   0600);
    size_t len = strlen (line);
    int ok = fd >= 0 && write (fd, line, len) == (ssize_t)len
             && write (fd, "\n", 1) == 1;
    if (fd >= 0)
        close (fd);
    if (!ok)
        error ("nodeshare: cannot append to the learning journal %s: %m; "
               "the observation is kept in memory until the next save",
               L.journal_path);
    json_object_put (js);
}

/* Replay the journal's lines numbered after `after` (the state's
 * journal_seq).  A line that does not load (cut short by a crash) is
 * skipped with a log line.  Returns the observations added. */
static int learn_replay (uint64_t after)
{
    ns_error_t err;
    FILE *f = fopen (L.journal_path, "re");
    if (!f)
        return 0;
    int added = 0, lineno = 0;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline (&buf, &cap, f)) > 0) {
        lineno++;
        json_object *js = json_tokener_parse (buf), *v;
        int64_t seq = js && json_object_object_get_ex (js, "seq", &v)
                          ? json_object_get_int64 (v) : -1;
        if (seq > 0 && (uint64_t)seq > L.learn_seq)
            L.learn_seq = (uint64_t)seq;
        if (!js || seq < 1) {
            error ("nodeshare: %s:%d: not a journal line (skipped)",
                   L.journal_path, lineno);
        }
        else if ((uint64_t)seq > after) {
            if (ns_learn_load (L.learn, js, ns_config_progtab (ctld_cfg ()), &err)
                < 0)
                error ("nodeshare: %s:%d: %s (skipped)", L.journal_path,
                       lineno, err.text);
            else
                added++;
        }
        json_object_put (js);
    }
    free (buf);
    fclose (f);
    return added;
}

/* Fit and merge: learned figures where the configuration gives none. */
void learn_refit (void)
{
    ns_error_t err;
    const ns_learn_conf_t *lc = ns_config_learn (ctld_cfg ());
    ns_learn_opts_t o;
    ns_learn_opts_default (&o);
    o.min_observations = lc->min_observations;
    o.max_se = lc->max_se;
    L.learn_unfitted = 0;
    if (!L.learn || ns_learn_nobservations (L.learn) == 0)
        return;
    ns_interf_t *m = NULL;
    int set;
    if (ns_learn_fit (L.learn, &o, &err) < 0
        || !(m = ns_interf_copy (ns_config_interf (ctld_cfg ())))
        || (set = ns_learn_apply (L.learn, m, ns_config_interf (ctld_cfg ()),
                                  &err)) < 0) {
        error ("nodeshare: learning: %s; the configured figures stay in use",
               m ? err.text : "out of memory");
        ns_interf_destroy (m);
        return;
    }
    ns_interf_destroy (L.merged);
    L.merged = set > 0 ? m : NULL;
    if (set == 0)
        ns_interf_destroy (m);
    verbose ("nodeshare: learning: %d figures learned from %d observations "
             "in use", set, ns_learn_nobservations (L.learn));
}

/* Start learning if the configuration asks (the first time nodes are
 * known): the saved state is loaded; a state that does not load is set
 * aside with a log line, never fatal. */
int learn_start (void)
{
    ns_error_t err;
    const ns_learn_conf_t *lc = ns_config_learn (ctld_cfg ());
    if (L.learn || !lc->enabled || node_record_count < 1)
        return 0;
    int cores = 1;
    for (int i = 0; i < node_record_count; i++)
        if (node_cpus (node_record_table_ptr[i]) > cores)
            cores = node_cpus (node_record_table_ptr[i]);
    if (!slurm_conf.state_save_location
        || snprintf (L.learn_path, sizeof (L.learn_path),
                     "%s/nodeshare-learn.json",
                     slurm_conf.state_save_location)
               >= (int)sizeof (L.learn_path)) {
        error ("nodeshare: learning off: no usable StateSaveLocation");
        return 0;
    }
    if (!(L.learn = ns_learn_create (cores, &err))) {
        error ("nodeshare: learning off: %s", err.text);
        return 0;
    }
    ns_learn_set_max (L.learn, lc->max_observations);
    L.learn_saved = time (NULL);
    L.learn_seq = 0;
    snprintf (L.journal_path, sizeof (L.journal_path), "%s.journal",
              L.learn_path);
    struct stat st;
    if (stat (L.learn_path, &st) < 0) {
        int j = learn_replay (0);
        if (j > 0)
            info ("nodeshare: learning from job ends (state: %s, none yet; "
                  "%d observations from its journal)", L.learn_path, j);
        else
            info ("nodeshare: learning from job ends (state: %s, none yet)",
                  L.learn_path);
        if (j > 0) {
            L.learn_unsaved += j;
            learn_refit ();
        }
        return 1;
    }
    json_object *js = json_object_from_file (L.learn_path);
    if (!js || ns_learn_load (L.learn, js, ns_config_progtab (ctld_cfg ()), &err)
                   < 0) {
        char aside[PATH_MAX + 32];
        snprintf (aside, sizeof (aside), "%s.corrupt-%ld", L.learn_path,
                  (long)time (NULL));
        int moved = rename (L.learn_path, aside) == 0;
        /* Its journal belongs to it. */
        char aside_j[PATH_MAX + 48];
        snprintf (aside_j, sizeof (aside_j), "%s.journal", aside);
        if (rename (L.journal_path, aside_j) < 0 && errno != ENOENT)
            unlink (L.journal_path);
        error ("nodeshare: learning state %s does not load (%s); %s, "
               "learning starts afresh", L.learn_path,
               js ? err.text : "not JSON",
               moved ? "set aside" : "could not set it aside either");
        if (moved)
            error ("nodeshare: the old learning state is now %s", aside);
        json_object_put (js);
        return 1;
    }
    json_object *v;
    uint64_t upto = json_object_object_get_ex (js, "journal_seq", &v)
                        ? (uint64_t)json_object_get_int64 (v) : 0;
    json_object_put (js);
    L.learn_seq = upto;
    int j = learn_replay (upto);
    L.learn_unsaved += j;
    info ("nodeshare: learning state: %d observations from %s (%d of them "
          "from its journal)", ns_learn_nobservations (L.learn),
          L.learn_path, j);
    learn_refit ();
    return 1;
}

/* Learning off (fini, or a configuration without it): saved first. */
void learn_stop (void)
{
    if (!L.learn)
        return;
    L.learn_unsaved += 1;       /* the last word goes to disk */
    learn_save (1);
    ns_learn_destroy (L.learn);
    L.learn = NULL;
    ns_interf_destroy (L.merged);
    L.merged = NULL;
}

/* The CPUs job holds per node, for the learner: n, or 0. */
static int learn_shares (const job_record_t *job, int **nodes, int **cores)
{
    const job_resources_t *jr = job->job_resrcs;
    *nodes = *cores = NULL;
    if (!jr || !jr->node_bitmap || !jr->cpus)
        return 0;
    int cnt = bit_set_count (jr->node_bitmap);
    if (cnt < 1 || !(*nodes = malloc (sizeof (int) * cnt))
        || !(*cores = malloc (sizeof (int) * cnt))) {
        free (*nodes);
        *nodes = NULL;
        return 0;
    }
    int n = 0, k = 0, last = bit_fls (jr->node_bitmap);
    for (int i = bit_ffs (jr->node_bitmap); i >= 0 && i <= last; i++) {
        if (!bit_test (jr->node_bitmap, i))
            continue;
        int cpus = jr->cpus[k++];
        if (cpus > 0 && n < cnt) {
            (*nodes)[n] = i;
            (*cores)[n] = cpus;
            n++;
        }
    }
    return n;
}

void learn_begin (job_record_t *job, int observable)
{
    ns_error_t err;
    if (!L.learn)
        return;
    ns_jobinfo_t *ji = ns_jobmemo_get (model_memo (), job->job_id);
    int *nodes, *cores;
    int n = learn_shares (job, &nodes, &cores);
    if (ji && n > 0
        && ns_learn_begin (L.learn, job->job_id, program_of (job, ji),
                           (double)job->start_time, nodes, cores, n,
                           observable, &err) < 0
        && errno != EEXIST)
        debug ("nodeshare: learning: %pJ not recorded: %s", job, err.text);
    free (nodes);
    free (cores);
}

void learn_end (job_record_t *job)
{
    ns_error_t err;
    if (!L.learn)
        return;
    int completed = (job->job_state & JOB_STATE_BASE) == JOB_COMPLETE;
    time_t end = job->end_time ? job->end_time : time (NULL);
    int rc = ns_learn_end (L.learn, job->job_id, (double)end, completed,
                           &err);
    if (rc < 0) {
        debug ("nodeshare: learning: %pJ: %s", job, err.text);
        return;
    }
    if (rc == 1) {
        learn_journal ();
        L.learn_unsaved++;
        L.learn_unfitted++;
        debug ("nodeshare: learning: %pJ observed (%d observations)", job,
               ns_learn_nobservations (L.learn));
    }
    else
        debug ("nodeshare: learning: %pJ ended: not an observation (%s)",
               job, completed ? "not watched from its start, or no program"
                              : "it did not complete");
    /* Refit at most every 16 observations: the fit is a few ms per
     * thousand observations, under slurmctld's job lock. */
    if (L.learn_unfitted >= 16
        || (L.learn_unfitted > 0 && ns_learn_nobservations (L.learn) < 64))
        learn_refit ();
    learn_save (0);
}

/* Running jobs the learner has not seen (it just started: slurmctld
 * started, or learning was switched on): co-tenants only. */
void learn_running (uint32_t except)
{
    if (!L.learn || !job_list)
        return;
    list_itr_t *it = list_iterator_create (job_list);
    job_record_t *job;
    while ((job = list_next (it)))
        if (IS_JOB_RUNNING (job) && job->job_id != except)
            learn_begin (job, 0);
    list_iterator_destroy (it);
}

