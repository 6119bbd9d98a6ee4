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
 * S.lock held.
 */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nscompat.h"

#include "src/common/log.h"
#include "src/common/read_config.h"

#include "nsctld_int.h"

#define STATS_EVERY 10

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

void stats_report (int force)
{
    struct ns_stats *st = &S.stats;
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
    struct ns_stats *st = &S.stats;
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
    st->dirty = 1;
    stats_report (0);
}
