/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rep_load.c - nodeshare-report's inputs (sim/rep.h): the slurm.conf,
 * the learning state and the configuration; stdin spooled; the figures
 * learned from the dumps; the replay's configuration (the learned
 * figures put into --config's); the NODE_FAIL jobs of the dumps.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <json-c/json_util.h>

#include "fileio.h"
#include "nsranges.h"
#include "rep.h"

int ns_rep_errf (struct ns_rep *r, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (r->err, sizeof (r->err), fmt, ap);
    va_end (ap);
    return -1;
}

void ns_rep_progress_line (struct ns_rep *r, const char *fmt, ...)
{
    if (r->o.quiet)
        return;
    char buf[512];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    if (r->tty)
        fprintf (stderr, "\r%-79.79s\n", buf);
    else
        fprintf (stderr, NS_REP_PROG ": %s\n", buf);
}

/* --slurm-conf, --state, --config (rep.h). */
int ns_rep_load_inputs (struct ns_rep *r)
{
    ns_error_t err;
    if (!(r->names = ns_nodenames_create ()))
        return ns_rep_errf (r, "out of memory");
    if (r->o.slurm_conf) {
        if (!(r->machine = ns_sconf_load (r->o.slurm_conf, &err)))
            return ns_rep_errf (r, "%s", err.text), -2;
        const ns_sconf_t *m = r->machine;
        /* the machine's nodes first, in its order: the replay's nodes */
        for (int i = 0; i < m->nnodes; i++) {
            int u = m->cr_cpu ? m->nodes[i].cpus : m->nodes[i].cores;
            if (u > r->o.cores)
                r->o.cores = u;
            if (ns_nodenames_add (r->names, m->nodes[i].name) != i)
                return ns_rep_errf (r, "out of memory");
        }
        for (int i = 0; i < m->nparts && i < NS_REP_MAX_PARTS; i++)
            if (!(r->pnames[r->npnames++] = strdup (m->parts[i].name)))
                return ns_rep_errf (r, "out of memory");
    }
    if (r->o.state) {
        json_object *nc;
        ns_error_t jerr;
        if (ns_json_read_file (r->o.state, NS_STATE_MAX_BYTES, &r->state,
                               &jerr) < 0)
            return ns_rep_errf (r, "%s", jerr.text);
        if (!json_object_is_type (r->state, json_type_object)
            || !json_object_object_get_ex (r->state, "node_cores", &nc)
            || json_object_get_int (nc) < 1)
            return ns_rep_errf (r, "%s: not a learning state (no node_cores)",
                                r->o.state);
        if (r->o.cores != json_object_get_int (nc))
            return ns_rep_errf (r, "%s: nodes of %d cores, not --cores %d",
                                r->o.state,
                                json_object_get_int (nc), r->o.cores), -2;
    }
    if (r->o.config) {
        if (!(r->ucfg = ns_config_load_file (r->o.config, &err)))
            return ns_rep_errf (r, "%s", err.text), -2;
        if (!(r->ucfg_json = json_object_from_file (r->o.config)))
            return ns_rep_errf (r, "%s: cannot read it as JSON", r->o.config);
    }
    return 0;
}

/* "-": stdin is read twice (the learner's reader and the replay's), so it
 * is copied to a file first. */
int ns_rep_spool_stdin (struct ns_rep *r, int i)
{
    if (r->spooled)
        return ns_rep_errf (r, "'-' (stdin) given twice");
    const char *dir = getenv ("TMPDIR");
    char path[4096];
    snprintf (path, sizeof (path), "%s/nodeshare-report.XXXXXX",
              dir && *dir ? dir : "/tmp");
    int fd = mkstemp (path);
    if (fd < 0)
        return ns_rep_errf (r, "%s: %s", path, strerror (errno));
    r->spooled = strdup (path);
    char buf[65536];
    ssize_t n;
    while ((n = read (STDIN_FILENO, buf, sizeof (buf))) > 0)
        if (write (fd, buf, (size_t)n) != n) {
            close (fd);
            return ns_rep_errf (r, "%s: %s", path, strerror (errno));
        }
    close (fd);
    if (n < 0)
        return ns_rep_errf (r, "stdin: %s", strerror (errno));
    r->dumps[i] = r->spooled;
    return 0;
}

/* ---- learning: what nodeshare-learn does ---- */

int ns_rep_learn_all (struct ns_rep *r)
{
    ns_error_t err;
    r->lprogs = r->ucfg ? ns_progtab_copy (ns_config_progtab (r->ucfg))
                        : ns_progtab_create ();
    r->learn = ns_learn_create (r->o.cores, &err);
    r->hist = calloc (r->ndumps, sizeof (*r->hist));
    if (!r->lprogs || !r->learn || !r->hist)
        return ns_rep_errf (r, "out of memory");
    if (r->state && ns_learn_load (r->learn, r->state, r->lprogs, &err) < 0)
        return ns_rep_errf (r, "%s: %s", r->o.state, err.text);
    for (int i = 0; i < r->ndumps; i++) {
        const char *path = r->dumps[i];
        ns_rep_progress_line (r, "%s: reading the history", path);
        r->hist[i] = ns_history_read (path, r->ucfg
                                      ? ns_config_identity (r->ucfg) : NULL,
                                      r->lprogs, &err);
        if (!r->hist[i])
            return ns_rep_errf (r, "%s", err.text);
        int n;
        const ns_learn_job_t *jobs = ns_history_jobs (r->hist[i], &n);
        r->hist_jobs += n;
        r->observed += ns_history_observed (r->hist[i]);
        r->context += ns_history_context (r->hist[i]);
        if (ns_learn_add_history (r->learn, jobs, n, &err) < 0)
            return ns_rep_errf (r, "%s: %s", path, err.text);
    }
    int observed = 0;
    for (int p = 0; p < ns_progtab_count (r->lprogs); p++)
        observed += ns_learn_njobs (r->learn, p);
    if (observed == 0)
        return ns_rep_errf (r, "no completed job with a known program and a "
                            "node list in %s%s", r->dumps[0],
                            r->ndumps > 1 ? " and the other dumps" : "");
    ns_rep_progress_line (r, "learning the figures from %d completed jobs",
                          observed);
    if (ns_learn_fit (r->learn, &r->o.lo, &err) < 0)
        return ns_rep_errf (r, "%s", err.text);
    return 0;
}

/* Deep copy, NULL stays NULL; -1 if out of memory. */
int ns_rep_copy_json (json_object *v, json_object **out)
{
    *out = NULL;
    return v && (json_object_deep_copy (v, out, NULL) < 0 || !*out) ? -1 : 0;
}

/* The replay's configuration: --config (its settings and figures) with
 * every learned figure put in, the learned ones winning; without
 * --config, the learned figures alone. */
int ns_rep_replay_config (struct ns_rep *r)
{
    ns_error_t err;
    json_object *root = NULL, *lp, *progs = NULL;
    int oom = 0;
    if (r->ucfg_json) {
        oom |= ns_rep_copy_json (r->ucfg_json, &root);
        json_object_object_del (root, "learned");
    } else
        root = json_object_new_object ();
    if (!root)
        return ns_rep_errf (r, "out of memory");
    if (!json_object_object_get_ex (root, "programs", &progs) || !progs
        || !json_object_is_type (progs, json_type_object)) {
        progs = json_object_new_object ();
        json_object_object_add (root, "programs", progs);
    }
    json_object_object_get_ex (r->learned, "programs", &lp);
    json_object_object_foreach (lp, name, fig) {
        json_object *dst;
        if (!json_object_object_get_ex (progs, name, &dst) || !dst
            || !json_object_is_type (dst, json_type_object)) {
            dst = json_object_new_object ();
            json_object_object_add (progs, name, dst);
        }
        json_object_object_foreach (fig, k, v) {
            json_object *sl;
            if (strcmp (k, "slowdown") == 0
                && json_object_object_get_ex (dst, "slowdown", &sl) && sl
                && json_object_is_type (sl, json_type_object)) {
                json_object_object_foreach (v, q, x) {
                    json_object *c;
                    oom |= ns_rep_copy_json (x, &c);
                    json_object_object_add (sl, q, c);
                }
                continue;
            }
            json_object *c;
            oom |= ns_rep_copy_json (v, &c);
            json_object_object_add (dst, k, c);
        }
    }
    if (oom) {
        json_object_put (root);
        return ns_rep_errf (r, "out of memory");
    }
    r->rcfg = ns_config_load_string (json_object_to_json_string (root),
                                     r->o.config ? r->o.config
                                                 : "the learned figures",
                                     &err);
    json_object_put (root);
    if (!r->rcfg)
        return ns_rep_errf (r, "the learned figures with %s: %s",
                            r->o.config ? r->o.config : "no configuration",
                            err.text);
    r->rprogs = ns_config_progtab (r->rcfg);
    r->rmodel = ns_interf_copy (ns_config_interf (r->rcfg));
    if (!r->rmodel)
        return ns_rep_errf (r, "out of memory");
    return 0;
}

/* ---- node failures ---- */

/* NODE_FAIL jobs of every dump (unless a rate was given). */
int ns_rep_node_failures (struct ns_rep *r)
{
    if (r->o.fail_per_year >= 0)
        return 0;
    for (int i = 0; i < r->ndumps; i++) {
        ns_nodefail_t nf;
        ns_error_t err;
        if (ns_nodefail_read (r->dumps[i], &nf, &err) < 0)
            return ns_rep_errf (r, "%s", err.text);
        r->nf.jobs += nf.jobs;
        r->nf.node_fail += nf.node_fail;
    }
    return 0;
}

void ns_rep_free (struct ns_rep *r)
{
    if (r->spooled) {
        unlink (r->spooled);
        free (r->spooled);
    }
    for (int i = 0; r->hist && i < r->ndumps; i++)
        ns_history_destroy (r->hist[i]);
    free (r->hist);
    free (r->jobs);
    free (r->ps);
    free (r->notes);
    free (r->table);
    json_object_put (r->learned);
    json_object_put (r->state);
    json_object_put (r->ucfg_json);
    ns_interf_destroy (r->rmodel);
    ns_config_destroy (r->rcfg);
    ns_learn_destroy (r->learn);
    ns_progtab_destroy (r->lprogs);
    ns_config_destroy (r->ucfg);
    ns_sconf_free (r->machine);
    ns_nodenames_destroy (r->names);
    for (int i = 0; i < r->npnames; i++)
        free (r->pnames[i]);
}
