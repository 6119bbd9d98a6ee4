/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsstats.c - what the select plugin costs slurmctld, measured in place
 *
 * Every job_test call is timed (CLOCK_MONOTONIC): the whole call, and the
 * part spent in cons_tres.  nodeshare's own time is the difference: the
 * model's decision, the request and the answer.  Three kinds of call:
 *   run-now    slurmctld asks to start the job now
 *   will-run   backfill asks when and where it would start
 *   test-only  everything nodeshare hands to cons_tres untouched ("could
 *              it ever run", reservations, preemption)
 * Per kind: calls, own and cons_tres time (mean and max, microseconds).
 * Reported as one line
 *   nodeshare: overhead: run-now N calls, own M us mean (X max), cons_tres
 *   M us mean (X max); will-run ...; test-only ...; own/cons_tres F
 * on `scontrol reconfigure` (up to 23.02; later releases re-execute
 * slurmctld) and, with DebugFlags=SelectType, every STATS_EVERY seconds
 * with calls; and as JSON in StateSaveLocation/nodeshare-overhead.json
 * (0600, rewritten at most every STATS_EVERY seconds) for tools such as
 * bench/bench_sched.sh.  Counts since slurmctld started.  Called with
 * ns_ctld_lock held.
 *
 * With "metrics_file" in nodeshare.json, the same counts, the decisions
 * of the jobs started (by mode, kind and reason) and the model's size are
 * written there in the Prometheus text format (0644, replaced
 * atomically) by a thread of their own: within METRICS_CHECK seconds of
 * a change, and every METRICS_EVERY seconds in any case (the file's age
 * tells a scraper that slurmctld is alive), for node exporter's textfile
 * collector or any scraper.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nscompat.h"

#include "src/common/log.h"
#include "src/common/read_config.h"

#include "nsctld_int.h"

#define STATS_EVERY 10
#define METRICS_EVERY 30
#define METRICS_CHECK 2

/* Decisions of jobs started, by mode, kind and reason (fixed strings). */
#define NS_DECISION_KINDS 96
struct ns_decision_count {
    const char *mode, *kind, *reason;
    uint64_t n;
};
struct ns_stats {
    uint64_t calls[NS_CALL_KINDS];
    struct ns_decision_count dec[NS_DECISION_KINDS];
    int ndec;
    uint64_t dec_other;         /* beyond NS_DECISION_KINDS pairs */
    time_t metrics_written;
    int metrics_dirty;          /* counts changed since it was written */
    int metrics_warned;
    pthread_t metrics_thread;
    int metrics_running;
    pthread_cond_t metrics_cond;
    int64_t own_ns[NS_CALL_KINDS], own_max_ns[NS_CALL_KINDS];
    int64_t stock_ns[NS_CALL_KINDS], stock_max_ns[NS_CALL_KINDS];
    time_t reported;
    int dirty;
};

/* This file's state. */
static struct ns_stats stats;

static const char *kind_names[NS_CALL_KINDS] = {
    "run-now", "will-run", "test-only"
};

int64_t stats_now_ns (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double mean_us (int64_t ns, uint64_t n)
{
    return n ? (double)ns / 1000.0 / (double)n : 0.0;
}

/* own / cons_tres over the calls nodeshare decides (run-now, will-run). */
static double own_share (const struct ns_stats *st)
{
    int64_t own = 0, stock = 0;
    for (int k = 0; k < NS_CALL_TEST_ONLY; k++) {
        own += st->own_ns[k];
        stock += st->stock_ns[k];
    }
    return stock > 0 ? (double)own / (double)stock : 0.0;
}

static void stats_line (const struct ns_stats *st, char *buf, size_t len)
{
    size_t o = 0;
    for (int k = 0; k < NS_CALL_KINDS && o < len; k++)
        o += (size_t)snprintf (
            buf + o, len - o,
            "%s%s %llu calls, own %.1f us mean (%.1f max), cons_tres "
            "%.1f us mean (%.1f max)", k ? "; " : "", kind_names[k],
            (unsigned long long)st->calls[k],
            mean_us (st->own_ns[k], st->calls[k]),
            (double)st->own_max_ns[k] / 1000.0,
            mean_us (st->stock_ns[k], st->calls[k]),
            (double)st->stock_max_ns[k] / 1000.0);
    if (o < len)
        snprintf (buf + o, len - o, "; own/cons_tres %.3f", own_share (st));
}

static void stats_file (const struct ns_stats *st)
{
    char path[PATH_MAX], tmp[PATH_MAX + 8];
    if (!slurm_conf.state_save_location
        || snprintf (path, sizeof (path), "%s/nodeshare-overhead.json",
                     slurm_conf.state_save_location) >= (int)sizeof (path))
        return;
    snprintf (tmp, sizeof (tmp), "%s.new", path);
    int fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    int ok = dprintf (fd, "{\"own_share\":%.6f", own_share (st)) > 0;
    for (int k = 0; k < NS_CALL_KINDS; k++)
        ok = ok && dprintf (fd, ",\"%s\":{\"calls\":%llu,\"own_ns\":%lld,"
                            "\"own_max_ns\":%lld,\"cons_tres_ns\":%lld,"
                            "\"cons_tres_max_ns\":%lld}", kind_names[k],
                            (unsigned long long)st->calls[k],
                            (long long)st->own_ns[k],
                            (long long)st->own_max_ns[k],
                            (long long)st->stock_ns[k],
                            (long long)st->stock_max_ns[k]) > 0;
    ok = ok && dprintf (fd, "}\n") > 0;
    if (close (fd) < 0 || !ok || rename (tmp, path) < 0)
        unlink (tmp);
}

void stats_decision (const char *mode, const char *kind, const char *reason)
{
    struct ns_stats *st = &stats;
    if (!reason)
        reason = "";
    for (int i = 0; i < st->ndec; i++) {
        struct ns_decision_count *d = &st->dec[i];
        if (!strcmp (d->mode, mode) && !strcmp (d->kind, kind)
            && !strcmp (d->reason, reason)) {
            d->n++;
            st->dirty = st->metrics_dirty = 1;
            return;
        }
    }
    if (st->ndec < NS_DECISION_KINDS)
        st->dec[st->ndec++] = (struct ns_decision_count){ mode, kind,
                                                          reason, 1 };
    else
        st->dec_other++;
    st->dirty = st->metrics_dirty = 1;
}

/* A label value: backslash, double quote and newline escaped. */
static void put_label (FILE *f, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            fprintf (f, "\\%c", *v);
        else if (*v == '\n')
            fputs ("\\n", f);
        else
            fputc (*v, f);
    }
}

static void family (FILE *f, const char *name, const char *type,
                    const char *help)
{
    fprintf (f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A counter family of seconds, one sample per kind of call. */
static void seconds_by_call (FILE *f, const char *name, const char *help,
                             const int64_t *ns)
{
    family (f, name, "counter", help);
    for (int k = 0; k < NS_CALL_KINDS; k++)
        fprintf (f, "%s{call=\"%s\"} %.9f\n", name, kind_names[k],
                 (double)ns[k] / 1e9);
}

static int write_metrics (FILE *f)
{
    const struct ns_stats *st = &stats;
    family (f, "nodeshare_decisions_total", "counter",
            "Jobs started since slurmctld started, by how nodeshare placed "
            "them (mode normal or shadow).");
    for (int i = 0; i < st->ndec; i++) {
        fputs ("nodeshare_decisions_total{mode=\"", f);
        put_label (f, st->dec[i].mode);
        fputs ("\",kind=\"", f);
        put_label (f, st->dec[i].kind);
        fputs ("\",reason=\"", f);
        put_label (f, st->dec[i].reason);
        fprintf (f, "\"} %llu\n", (unsigned long long)st->dec[i].n);
    }
    if (st->dec_other)
        fprintf (f, "nodeshare_decisions_total{mode=\"other\",kind=\"other\","
                    "reason=\"other\"} %llu\n",
                 (unsigned long long)st->dec_other);
    family (f, "nodeshare_calls_total", "counter",
            "Calls of the select plugin's job_test, by kind.");
    for (int k = 0; k < NS_CALL_KINDS; k++)
        fprintf (f, "nodeshare_calls_total{call=\"%s\"} %llu\n",
                 kind_names[k], (unsigned long long)st->calls[k]);
    seconds_by_call (f, "nodeshare_own_seconds_total",
                     "Time spent in nodeshare's own code (the model's "
                     "decision, the request and the answer), by kind of "
                     "call.", st->own_ns);
    seconds_by_call (f, "nodeshare_cons_tres_seconds_total",
                     "Time spent in select/cons_tres under nodeshare, by "
                     "kind of call.", st->stock_ns);
    family (f, "nodeshare_model_nodes", "gauge", "Nodes in the model.");
    fprintf (f, "nodeshare_model_nodes %d\n",
             model_cluster () ? ns_cluster_nnodes (model_cluster ()) : 0);
    family (f, "nodeshare_model_running_jobs", "gauge",
            "Running jobs in the model.");
    fprintf (f, "nodeshare_model_running_jobs %d\n",
             model_cluster () ? ns_cluster_njobs (model_cluster ()) : 0);
    family (f, "nodeshare_model_programs", "gauge",
            "Programs the configuration and identity know.");
    fprintf (f, "nodeshare_model_programs %d\n",
             ctld_cfg () ? ns_progtab_count (ns_config_progtab (ctld_cfg ()))
                         : 0);
    family (f, "nodeshare_shadow_mode", "gauge",
            "1 in shadow mode (cons_tres places every job), else 0.");
    fprintf (f, "nodeshare_shadow_mode %d\n",
             ns_config_mode (ctld_cfg ()) == NS_MODE_SHADOW);
    family (f, "nodeshare_metrics_written_seconds", "gauge",
            "When this file was written (Unix time).");
    fprintf (f, "nodeshare_metrics_written_seconds %lld\n",
             (long long)time (NULL));
    return ferror (f) ? -1 : 0;
}

void stats_metrics (void)
{
    struct ns_stats *st = &stats;
    const char *path = ns_config_metrics_file (ctld_cfg ());
    char tmp[PATH_MAX];
    if (!path)
        return;
    st->metrics_written = time (NULL);
    st->metrics_dirty = 0;
    if (snprintf (tmp, sizeof (tmp), "%s.new", path) >= (int)sizeof (tmp))
        return;
    int fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    FILE *f = fd >= 0 ? fdopen (fd, "w") : NULL;
    int ok = f && write_metrics (f) == 0;
    if (f)
        ok = fclose (f) == 0 && ok;
    else if (fd >= 0)
        close (fd);
    ok = ok && rename (tmp, path) == 0;
    if (!ok) {
        int e = errno;
        unlink (tmp);
        if (!st->metrics_warned)
            error ("nodeshare: cannot write the metrics file %s: %s", path,
                   strerror (e));
        st->metrics_warned = 1;
    }
    else {
        (void)chmod (path, 0644);   /* whatever the umask */
        st->metrics_warned = 0;
    }
}

static void *metrics_main (void *arg)
{
    (void)arg;
    pthread_mutex_lock (&ns_ctld_lock);
    while (stats.metrics_running) {
        struct timespec ts;
        clock_gettime (CLOCK_REALTIME, &ts);
        ts.tv_sec += METRICS_CHECK;
        int rc = 0;
        while (stats.metrics_running && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait (&stats.metrics_cond, &ns_ctld_lock,
                                         &ts);
        if (stats.metrics_running && ctld_active ()
            && (stats.metrics_dirty
                || time (NULL) - stats.metrics_written >= METRICS_EVERY))
            stats_metrics ();
    }
    pthread_mutex_unlock (&ns_ctld_lock);
    return NULL;
}

void stats_metrics_start (void)
{
    pthread_mutex_lock (&ns_ctld_lock);
    if (!stats.metrics_running) {
        pthread_cond_init (&stats.metrics_cond, NULL);
        stats.metrics_running = 1;
        if (pthread_create (&stats.metrics_thread, NULL, metrics_main,
                            NULL) != 0) {
            error ("nodeshare: cannot start the metrics thread: %m");
            stats.metrics_running = 0;
            pthread_cond_destroy (&stats.metrics_cond);
        }
    }
    stats_metrics ();
    pthread_mutex_unlock (&ns_ctld_lock);
}

void stats_metrics_stop (void)
{
    pthread_mutex_lock (&ns_ctld_lock);
    int running = stats.metrics_running;
    stats.metrics_running = 0;
    if (running)
        pthread_cond_signal (&stats.metrics_cond);
    pthread_mutex_unlock (&ns_ctld_lock);
    if (running) {
        pthread_join (stats.metrics_thread, NULL);
        pthread_cond_destroy (&stats.metrics_cond);
    }
}

void stats_report (int force)
{
    struct ns_stats *st = &stats;
    time_t now = time (NULL);
    if (!force && (!st->dirty || now - st->reported < STATS_EVERY))
        return;
    st->reported = now;
    st->dirty = 0;
    stats_file (st);
    if (force || (slurm_conf.debug_flags & DEBUG_FLAG_SELECT_TYPE)) {
        char line[1024];
        stats_line (st, line, sizeof (line));
        info ("nodeshare: overhead: %s", line);
    }
}

void stats_add (int kind, int64_t total_ns, int64_t stock_ns)
{
    struct ns_stats *st = &stats;
    int64_t own = total_ns > stock_ns ? total_ns - stock_ns : 0;
    if (kind < 0 || kind >= NS_CALL_KINDS)
        return;
    st->calls[kind]++;
    st->own_ns[kind] += own;
    st->stock_ns[kind] += stock_ns;
    if (own > st->own_max_ns[kind])
        st->own_max_ns[kind] = own;
    if (stock_ns > st->stock_max_ns[kind])
        st->stock_max_ns[kind] = stock_ns;
    st->dirty = st->metrics_dirty = 1;
    stats_report (0);
}
