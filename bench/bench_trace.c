/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench_trace - time the reading of a trace, apart from any replay
 *
 *   bench_trace NAME TRACE
 *
 * Reads TRACE through the simulator's reader (ns_trace_open (),
 * ns_trace_next () to the end) five times and prints, as "name value
 * unit" lines, the medians of: the elapsed time, the CPU time of the
 * parsing thread (the caller's), and the CPU time of the rest of the
 * process (the read-ahead thread that inflates a compressed trace,
 * sim/gzahead.c).  The elapsed time is at least the longer of the two;
 * more, when one thread waits on the other.  Exits 1 when the trace
 * cannot be read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench.h"
#include "trace.h"

enum { ROUNDS = 5 };

static int cmp_double (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median (double *v)
{
    qsort (v, ROUNDS, sizeof (*v), cmp_double);
    return v[ROUNDS / 2];
}

int main (int argc, char **argv)
{
    if (argc != 3) {
        fprintf (stderr, "usage: bench_trace NAME TRACE\n");
        return 2;
    }
    double wall[ROUNDS], parse[ROUNDS], rest[ROUNDS];
    long long jobs = 0;
    for (int r = 0; r < ROUNDS; r++) {
        double w0 = bench_seconds (CLOCK_MONOTONIC);
        double t0 = bench_seconds (CLOCK_THREAD_CPUTIME_ID);
        double p0 = bench_seconds (CLOCK_PROCESS_CPUTIME_ID);
        ns_error_t err = { "" };
        ns_trace_t *t = ns_trace_open (argv[2], NS_TRACE_AUTO, 0, &err);
        if (!t) {
            fprintf (stderr, "bench_trace: %s\n", err.text);
            return 1;
        }
        ns_tjob_t job;
        int rc;
        jobs = 0;
        while ((rc = ns_trace_next (t, &job, &err)) == 1)
            jobs++;
        ns_trace_close (t);
        if (rc < 0) {
            fprintf (stderr, "bench_trace: %s\n", err.text);
            return 1;
        }
        double t1 = bench_seconds (CLOCK_THREAD_CPUTIME_ID);
        parse[r] = t1 - t0;
        rest[r] = bench_seconds (CLOCK_PROCESS_CPUTIME_ID) - p0 - parse[r];
        wall[r] = bench_seconds (CLOCK_MONOTONIC) - w0;
    }
    printf ("trace_read_%s_wall_s %.3f s (median of %d reads; %lld jobs)\n",
            argv[1], median (wall), ROUNDS, jobs);
    printf ("trace_read_%s_parse_cpu_s %.3f s (the parsing thread)\n",
            argv[1], median (parse));
    printf ("trace_read_%s_inflate_cpu_s %.3f s (the read-ahead thread)\n",
            argv[1], median (rest));
    return 0;
}
