/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracejobs.t - a trace read into simulated jobs (sim/tracejobs.c): what
 * is kept and what skipped, recorded waits only where the trace has one,
 * each job's program through sim/workload.c, --jobs' cap, and a trace
 * with no usable job. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "tracejobs.h"

static char path[] = "/tmp/tracejobs.t.XXXXXX";

static void put (const char *text)
{
    FILE *f = fopen (path, "w");
    if (f) {
        fputs (text, f);
        fclose (f);
    }
}

int main (void)
{
    plan_no_plan ();
    int fd = mkstemp (path);
    if (fd < 0) {
        ok (0, "mkstemp");
        return done_testing ();
    }
    close (fd);
    put ("; MaxNodes: 2\n"
         "1 0 10 100 4 -1 -1 4 200 -1 1 1 1 3 1 -1 -1 -1\n"
         "2 5 -1 50 2 -1 -1 2 60 -1 1 2 1 -1 1 -1 -1 -1\n"
         "4 7 x 50 2 -1 -1 2 60 -1 1 2 1 -1 1 -1 -1 -1\n"
         "5 8 6 30 1 -1 -1 1 60 -1 1 3 1 7 1 -1 -1 -1\n");
    ns_progtab_t *progs = ns_progtab_create ();
    ns_tracejobs_opts_t o = { .path = path, .format = NS_TRACE_SWF,
                              .progs = progs };
    ns_tracejobs_t tj;
    ns_error_t err = { "" };
    ok (ns_tracejobs_load (&tj, &o, &err) == 0, "a trace of four lines: %s",
        err.text);
    is_int (tj.njobs, 3, "  three jobs kept");
    is_int (tj.jobs_read, 3, "  three read (the reader skips the fourth)");
    is_int ((long long)tj.counts.skipped, 1, "  one line skipped");
    is_int (tj.recorded_wait_n, 2, "recorded waits: jobs 1 and 5 (2 has -1)");
    ok (tj.recorded_wait_sum == 16, "  summing 10 + 6 s");
    is_str (ns_progtab_name (progs, tj.jobs[0].program), "exe3",
            "job 1: program exe3 (no name, executable 3)");
    is_str (ns_progtab_name (progs, tj.jobs[1].program), "user2",
            "job 2: no executable: user2");
    ok (tj.jobs[2].id == 5 && tj.jobs[2].submit == 8,
        "job 5 kept as read (id, submit)");
    is_int (tj.unknown_parts, 0, "no machine: no partition unknown");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&text, &len);
    ns_tracejobs_print (f, &tj, "t.swf", NULL, 2, 4, 8, "trace header");
    fclose (f);
    is_str (text, "t.swf: 3 jobs read, 3 used, 1 lines skipped; 2 nodes x 4 "
            "cores (trace header)\n"
            "  skipped 1 not-a-number, lines 4\n"
            "  recorded mean wait in the trace: 8 s (2 jobs)\n",
            "the summary: jobs, machine, skipped lines, recorded wait");
    free (text);
    free (tj.jobs);

    /* Submission order, then trace id; a trace in order stays as read */
    ns_simjob_t js[4] = { { .id = 9, .submit = 5 }, { .id = 3, .submit = 5 },
                          { .id = 1, .submit = 7 }, { .id = 2, .submit = 0 } };
    ns_tracejobs_t st = { .jobs = js, .njobs = 4 };
    ns_tracejobs_sort (&st);
    ok (js[0].id == 2 && js[1].id == 3 && js[2].id == 9 && js[3].id == 1,
        "sorted by submit, then id: %llu %llu %llu %llu",
        (unsigned long long)js[0].id, (unsigned long long)js[1].id,
        (unsigned long long)js[2].id, (unsigned long long)js[3].id);

    o.max_jobs = 2;
    ok (ns_tracejobs_load (&tj, &o, &err) == 0 && tj.njobs == 2,
        "max_jobs 2: two jobs");
    free (tj.jobs);

    put ("; MaxNodes: 2\n4 7 x 50 2 -1 -1 2 60 -1 1 2 1 -1 1 -1 -1 -1\n");
    o.max_jobs = 0;
    ok (ns_tracejobs_load (&tj, &o, &err) < 0
        && strstr (err.text, ": no usable job (1 lines skipped)"),
        "every line skipped: fails: %s", err.text);
    free (tj.jobs);
    unlink (path);
    o.path = "/nonexistent/t.swf";
    ok (ns_tracejobs_load (&tj, &o, &err) < 0
        && strstr (err.text, "/nonexistent/t.swf"),
        "a missing trace: fails, named: %s", err.text);
    free (tj.jobs);
    ns_progtab_destroy (progs);
    return done_testing ();
}
