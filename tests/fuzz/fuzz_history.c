/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_history.c - job histories from sacct dumps (sim/history.h: the
 * sacct reader, NodeList host lists, model/hostlist.h), then the learner
 * (model/learn.h) on what they give: nodeshare-learn's input path. */
#include "fuzz.h"

#include <errno.h>
#include <math.h>

#include "history.h"
#include "learn.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_memfile (data, size, path, sizeof (path));
    if (fd < 0)
        return 0;
    ns_error_t err;
    ns_progtab_t *progs = ns_progtab_create ();
    FUZZ_CHECK (progs != NULL, "progtab");
    ns_history_t *h = ns_history_read (path, NULL, progs, &err);
    if (!h) {
        FUZZ_CHECK (errno != 0 && err.text[0], "an error says why");
    } else {
        int n;
        const ns_learn_job_t *jobs = ns_history_jobs (h, &n);
        FUZZ_CHECK (n == ns_history_observed (h) + ns_history_context (h),
                    "%d jobs, %d + %d", n, ns_history_observed (h),
                    ns_history_context (h));
        for (int i = 0; i < n; i++) {
            FUZZ_CHECK (jobs[i].nnodes >= 1, "nodes");
            FUZZ_CHECK (jobs[i].end >= jobs[i].start, "end >= start");
            for (int k = 0; k < jobs[i].nnodes; k++)
                FUZZ_CHECK (jobs[i].nodes[k] >= 0
                            && jobs[i].nodes[k] < ns_history_nnodes (h)
                            && jobs[i].cores[k] >= 1, "node %d", k);
        }
        ns_learn_t *l = ns_learn_create (4, &err);
        FUZZ_CHECK (l != NULL, "create");
        if (ns_learn_add_history (l, jobs, n, &err) == 0) {
            ns_learn_opts_t o;
            ns_learn_opts_default (&o);
            o.min_observations = 1;
            FUZZ_CHECK (ns_learn_fit (l, &o, &err) == 0, "%s", err.text);
            for (int p = 0; p < ns_learn_nprograms (l); p++) {
                ns_learn_fig_t u = ns_learn_speedup (l, p);
                FUZZ_CHECK (u.value > 0 && isfinite (u.value), "speedup");
                for (int q = -1; q < ns_learn_nprograms (l); q++) {
                    ns_learn_fig_t s = ns_learn_slowdown (l, p, q);
                    FUZZ_CHECK (s.value > 0 && isfinite (s.value),
                                "slowdown %g", s.value);
                }
            }
        } else {
            FUZZ_CHECK (errno == EINVAL || errno == ENOMEM, "%s", err.text);
        }
        ns_learn_destroy (l);
        ns_history_destroy (h);
    }
    ns_progtab_destroy (progs);
    close (fd);
    return 0;
}
