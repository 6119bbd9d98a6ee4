/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsshadow.c - shadow mode's records (nodeshare.json "mode": "shadow")
 *
 * In shadow mode cons_tres places every job exactly as stock Slurm does;
 * for each job it starts, nsctld.c asks the policy what it would have
 * decided on the cluster as it was and hands the answer here.  One JSON
 * object a line goes to StateSaveLocation/nodeshare-shadow.jsonl (mode
 * 0600), which nodeshare-report(1) reads:
 *
 *   {"time":1732480000,"job":7,"program":"LAM","cores":24,
 *    "policy":"twins","would":"stripe","nodes":"n1,n2","shape":"12+12",
 *    "rule":"stripe-empty","stock":"n3","differs":true,"why":"..."}
 *
 * would: stripe, place (the policy's nodes, not striped), pack (as stock
 * Slurm packs it), wait (the policy would have held it back), as-asked
 * (an explicit shape: -N, --exclusive, ...), stock (beyond the model:
 * GRES, --overcommit, ...).  differs: the policy's nodes are not the
 * nodes stock chose, or it would have waited.  Past nodeshare.json's
 * shadow.max_bytes the file is rotated (select/shadowrot.h): .1.gz,
 * .2.gz, ... up to shadow.keep; the oldest dropped is named in
 * slurmctld's log and in a {"dropped": ...} line that starts the new
 * file.  Called with ns_ctld_lock held.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "nscompat.h"

#include "src/common/log.h"
#include "src/common/read_config.h"

#include "nsconfig.h"
#include "nsctld_int.h"
#include "shadowrot.h"

#define SHADOW_NAME "nodeshare-shadow.jsonl"

static int shadow_path (char *buf, size_t len)
{
    return slurm_conf.state_save_location
           && snprintf (buf, len, "%s/" SHADOW_NAME,
                        slurm_conf.state_save_location) < (int)len;
}

static void fmt_utc (char *buf, size_t size, int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (t < 0 || !gmtime_r (&tt, &tm)
        || !strftime (buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf (buf, size, "?");
}

/* The compression of a rotated file runs in a thread of its own, away
 * from ns_ctld_lock (64 MiB take about 0.4 s): zbusy is 1 from its start
 * to its end, and no rotation starts meanwhile (the file grows past
 * shadow.max_bytes until it has ended). */
static int zbusy;
static char zpath[PATH_MAX];

static void *compress_main (void *arg)
{
    ns_error_t e;
    (void)arg;
    if (ns_shadowrot_compress (zpath, &e) < 0)
        error ("nodeshare: shadow records rotation: not compressed: %s",
               e.text);
    __atomic_store_n (&zbusy, 0, __ATOMIC_RELEASE);
    return NULL;
}

static void compress_later (const char *path)
{
    pthread_attr_t attr;
    pthread_t t;
    snprintf (zpath, sizeof (zpath), "%s", path);
    __atomic_store_n (&zbusy, 1, __ATOMIC_RELEASE);
    int started = pthread_attr_init (&attr) == 0;
    if (started) {
        pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);
        started = pthread_create (&t, &attr, compress_main, NULL) == 0;
        pthread_attr_destroy (&attr);
    }
    if (!started)
        compress_main (NULL);   /* no thread: here, as before */
}

void shadow_stop (void)
{
    /* slurmctld stops: let a compression end (bounded), so that no
     * FILE.1.gz.tmp is left behind */
    for (int i = 0; i < 600 && __atomic_load_n (&zbusy, __ATOMIC_ACQUIRE);
         i++)
        usleep (50000);
}

/* Rotate when due; the line saying what was dropped goes first into the
 * new file. */
static void rotate (const char *path, int64_t now)
{
    ns_shadowrot_t rot;
    ns_error_t err;
    uint64_t max = ctld_cfg () ? ns_config_shadow_max_bytes (ctld_cfg ())
                         : 64ULL * 1024 * 1024;
    int keep = ctld_cfg () ? ns_config_shadow_keep (ctld_cfg ()) : 4;
    if (__atomic_load_n (&zbusy, __ATOMIC_ACQUIRE))
        return;
    if (ns_shadowrot_move (path, max, keep, &rot, &err) < 0) {
        error ("nodeshare: cannot rotate the shadow records: %s", err.text);
        return;
    }
    if (rot.warn[0])
        error ("nodeshare: shadow records rotation: %s", rot.warn);
    if (rot.rotated)
        compress_later (path);
    if (!rot.dropped[0])
        return;
    char a[32], b[32], line[PATH_MAX + 160];
    fmt_utc (a, sizeof (a), rot.first);
    fmt_utc (b, sizeof (b), rot.last);
    info ("nodeshare: shadow records past keep=%d dropped: %s, %lld "
          "records from %s to %s", keep, rot.dropped,
          (long long)rot.records, a, b);
    if (ns_shadowrot_drop_line (&rot, now, line, sizeof (line)) < 0)
        return;
    int fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 || dprintf (fd, "%s\n", line) != (int)strlen (line) + 1)
        error ("nodeshare: cannot append to the shadow records %s: %m",
               path);
    if (fd >= 0)
        close (fd);
}

static void add_str (json_object *o, const char *key, const char *v)
{
    json_object_object_add (o, key, json_object_new_string (v ? v : ""));
}

void shadow_record (const struct shadow_rec *r)
{
    static int warned;
    char path[PATH_MAX];
    if (!shadow_path (path, sizeof (path)))
        return;
    rotate (path, r->time);
    json_object *o = json_object_new_object ();
    if (!o)
        return;
    json_object_object_add (o, "time", json_object_new_int64 (r->time));
    json_object_object_add (o, "job", json_object_new_int64 (r->job));
    add_str (o, "program", r->program);
    json_object_object_add (o, "cores", json_object_new_int (r->cores));
    add_str (o, "policy", r->policy);
    add_str (o, "would", r->would);
    add_str (o, "nodes", r->nodes);
    add_str (o, "shape", r->shape);
    add_str (o, "rule", r->rule);
    add_str (o, "stock", r->stock);
    json_object_object_add (o, "differs",
                            json_object_new_boolean (r->differs));
    add_str (o, "why", r->why);
    const char *line = json_object_to_json_string_ext (
        o, JSON_C_TO_STRING_PLAIN);
    int fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    int ok = fd >= 0 && line
             && dprintf (fd, "%s\n", line) == (int)strlen (line) + 1;
    if (fd >= 0 && close (fd) < 0)
        ok = 0;
    if (!ok && !warned) {
        error ("nodeshare: cannot append to the shadow records %s: %m",
               path);
        warned = 1;
    }
    else if (ok)
        warned = 0;
    json_object_put (o);
}
