/* SPDX-License-Identifier: GPL-2.0-or-later */
/* whatif.c - "what if these jobs ended" (policy.h: ns_place_after()):
 * running jobs taken out of the cluster one by one until the policy
 * places a request, then put back as they were
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nsutil.h"
#include "policy.h"

/* One job taken out by ns_place_after, to be put back. */
struct released {
    uint64_t id;
    int program, flags, first, n;
};

struct what_if {
    struct released *rel;
    int nrel, caprel;
    ns_share_t *sh;
    int64_t *mem;       /* memory per share, beside sh */
    int nsh, capsh, capmem;
};

static int what_if_release (ns_cluster_t *c, struct what_if *w, uint64_t id,
                            ns_error_t *err)
{
    int n;
    const ns_share_t *shares = ns_job_shares_ref (c, id, &n);
    if (!shares || n <= 0)
        return 0;               /* not running (any more): nothing to do */
    if (ns_grow (&w->rel, &w->caprel, w->nrel + 1, sizeof (*w->rel), 64) < 0
        || ns_grow (&w->sh, &w->capsh, w->nsh + n, sizeof (*w->sh), 256) < 0
        || ns_grow (&w->mem, &w->capmem, w->nsh + n, sizeof (*w->mem), 256)
               < 0)
        return ns_error_set (err, ENOMEM, "out of memory");
    const int64_t *mem = ns_job_mem_ref (c, id);
    for (int i = 0; i < n; i++)
        w->mem[w->nsh + i] = mem ? mem[i] : 0;
    w->rel[w->nrel] = (struct released){
        .id = id, .program = ns_job_program (c, id),
        .flags = ns_job_flags (c, id), .first = w->nsh, .n = n,
    };
    memcpy (w->sh + w->nsh, shares, sizeof (*shares) * (size_t)n);
    if (ns_cluster_remove_job (c, id, err) < 0)
        return -1;
    w->nsh += n;
    w->nrel++;
    return 0;
}

/* Put every released job back, last first: the state they left. */
static int what_if_restore (ns_cluster_t *c, struct what_if *w,
                            ns_error_t *err)
{
    int rc = 0;
    for (int k = w->nrel - 1; k >= 0; k--) {
        const struct released *r = &w->rel[k];
        if (ns_cluster_add_job_mem (c, r->id, r->program, w->sh + r->first,
                                    r->n, r->flags, w->mem + r->first,
                                    rc ? NULL : err) < 0)
            rc = -1;
    }
    free (w->rel);
    free (w->sh);
    free (w->mem);
    return rc;
}

int ns_place_after (ns_cluster_t *c, const ns_policy_t *pol,
                    const ns_interf_t *m, const ns_progtab_t *progs,
                    const ns_request_t *req, const uint64_t *order,
                    const double *when, int n, ns_placement_t *pl,
                    ns_error_t *err)
{
    if (!c || !pol || !req || !pl || (n > 0 && !order))
        return ns_error_set (err, EINVAL, "ns_place_after: missing argument");
    struct what_if w = { 0 };
    long long need = (long long)req->ntasks * req->cpus_per_task;
    int placed = 0, have = -1, width = 0, since = 0;
    int nodes[64];
    for (int k = 0; k < n && !placed; k++) {
        if (what_if_release (c, &w, order[k], err) < 0)
            goto fail;
        if (when && k + 1 < n && when[k + 1] == when[k])
            continue;           /* ends together with the next */
        if (ns_cluster_total_cores (c) - ns_cluster_used_cores (c) < need)
            continue;
        /* After a failed try with `have` admissible nodes, only the
         * nodes released since can make up the shortfall. */
        for (; have >= 0 && since < w.nrel && have < width; since++) {
            const struct released *r = &w.rel[since];
            int cnt = r->n < 64 ? r->n : 0;
            for (int i = 0; i < cnt; i++)
                nodes[i] = w.sh[r->first + i].node;
            have += cnt ? ns_place_admits (c, pol, m, req, nodes, cnt,
                                           width - have)
                        : width;    /* too wide to list: just try */
        }
        if (have >= 0 && have < width)
            continue;
        if (ns_place (c, pol, m, progs, req, pl, err) < 0)
            goto fail;
        if (pl->verdict == NS_PLACED)
            placed = k + 1;
        else if (pl->verdict == NS_NEVER)
            break;
        else {
            have = pl->found;
            width = pl->width;
            since = w.nrel;
        }
    }
    if (what_if_restore (c, &w, err) < 0)
        return -1;
    return placed;
fail:;
    int saved = errno;
    what_if_restore (c, &w, NULL);
    errno = saved;
    return -1;
}
