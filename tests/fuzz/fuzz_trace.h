/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_trace.h - the trace readers (sim/trace.h) on a file in memory,
 * then the first jobs replayed by the engine (sim/engine.h) on 4 nodes of
 * 4 cores under pack and twins.  Shared by fuzz_swf.c and fuzz_sacct.c. */
#ifndef NODESHARE_FUZZ_TRACE_H
#define NODESHARE_FUZZ_TRACE_H

#include "fuzz.h"

#include <errno.h>

#include "engine.h"
#include "trace.h"

#define FUZZ_JOBS 24

static void replay (const ns_tjob_t *jobs, int n, ns_policy_kind_t kind)
{
    ns_error_t err;
    ns_simconf_t conf = { .backfill = NS_BACKFILL_EASY, .bf_depth = 8,
                          .nnodes = 4, .cores = 4 };
    ns_policy_default (&conf.policy);
    conf.policy.kind = kind;
    ns_sim_t *sim = ns_sim_create (&conf, &err);
    FUZZ_CHECK (sim != NULL, "%s", err.text);
    for (int i = 0; i < n; i++) {
        ns_simjob_t j = {
            .id = (uint64_t)jobs[i].id,
            .submit = (double)jobs[i].submit,
            .runtime = (double)jobs[i].run,
            .req_time = (double)jobs[i].req_time,
            .ntasks = jobs[i].procs,
            .program = -1,
            .recorded_wait = (double)jobs[i].wait,
        };
        FUZZ_CHECK (ns_sim_add (sim, &j, &err) >= 0, "%s", err.text);
    }
    FUZZ_CHECK (ns_sim_run (sim, -1, &err) == 0, "%s", err.text);
    for (int i = 0; i < n; i++) {
        const ns_simresult_t *r = ns_sim_result (sim, i);
        FUZZ_CHECK (r->state == NS_SJ_DONE || r->state == NS_SJ_NEVER,
                    "job %d ends done or never, not %d", i, (int)r->state);
    }
    ns_sim_destroy (sim);
}

static int fuzz_trace (const uint8_t *data, size_t size,
                       ns_trace_format_t fmt)
{
    char path[64];
    ns_error_t err = { "" };
    ns_tjob_t jobs[FUZZ_JOBS], job;
    int n = 0, rc, flags = size > 0 && (data[0] & 1) ? NS_TRACE_STRICT : 0;
    int fd = fuzz_memfile (data, size, path, sizeof (path));
    if (fd < 0)
        return 0;
    ns_trace_t *t = ns_trace_open (path, fmt, flags, &err);
    if (!t) {
        FUZZ_CHECK (err.text[0] != '\0', "a failed open says why");
        close (fd);
        return 0;
    }
    while ((rc = ns_trace_next (t, &job, &err)) == 1) {
        FUZZ_CHECK (job.procs > 0, "procs %d", job.procs);
        FUZZ_CHECK (job.run >= 0 && job.run <= NS_TRACE_TIME_MAX,
                    "run %lld", (long long)job.run);
        FUZZ_CHECK (job.submit >= 0 && job.submit <= NS_TRACE_TIME_MAX,
                    "submit %lld", (long long)job.submit);
        FUZZ_CHECK (job.wait >= -1 && job.wait <= NS_TRACE_TIME_MAX,
                    "wait %lld", (long long)job.wait);
        FUZZ_CHECK (job.req_time >= -1 && job.req_time <= NS_TRACE_TIME_MAX,
                    "requested %lld", (long long)job.req_time);
        FUZZ_CHECK (memchr (job.program, '\0', sizeof (job.program)),
                    "the program name is terminated");
        if (n < FUZZ_JOBS)
            jobs[n++] = job;
    }
    FUZZ_CHECK (rc == 0 || err.text[0] != '\0', "a hard error says why");
    const struct ns_trace_counts *c = ns_trace_skips (t);
    uint64_t sum = 0;
    for (int r = 0; r < NS_SKIP_NREASONS; r++)
        sum += c->skip[r].count;
    FUZZ_CHECK (sum == c->skipped, "skipped is the sum of the reasons");
    FUZZ_CHECK (rc < 0 || c->jobs + c->skipped == c->records,
                "jobs + skipped = records");
    ns_trace_close (t);
    close (fd);
    replay (jobs, n, NS_POLICY_PACK);
    replay (jobs, n, NS_POLICY_TWINS);
    return 0;
}

#endif /* !NODESHARE_FUZZ_TRACE_H */
