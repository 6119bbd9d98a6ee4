/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cluster_check.c - ns_cluster_check (): the cluster state (cluster.h)
 * against itself.  Every node's tenants against its counts, free cores,
 * bitmaps (empty, avail, open) and the job table; the kept runs against
 * the nodes; every job's shares against the tenants of its nodes.
 */
#include <errno.h>

#include "cluster.h"
#include "cluster_int.h"

static int check_nodes (const ns_cluster_t *c, int *tenants_total,
                        ns_error_t *err)
{
    int nempty = 0;
    int64_t used = 0;
    *tenants_total = 0;
    for (int n = 0; n < c->nnodes; n++) {
        const struct node *nd = &c->nodes[n];
        int sum = 0, closed = 0, packed = 0;
        int64_t msum = 0;
        for (int i = 0; i < nd->ntenants; i++) {
            const struct job *j = find_job (c, nd->t[i].job);
            if (!j)
                return ns_error_set (err, EPROTO,
                                     "node %d: tenant job %llu not in table",
                                     n, (unsigned long long)nd->t[i].job);
            if (j->flags != nd->t[i].flags)
                return ns_error_set (err, EPROTO,
                                     "node %d: tenant job %llu flags %d, "
                                     "job has %d", n,
                                     (unsigned long long)nd->t[i].job,
                                     nd->t[i].flags, j->flags);
            if (j->flags & NS_JOB_CLOSES_NODES)
                closed++;
            if (j->flags & NS_JOB_PACKED)
                packed++;
            sum += nd->t[i].cores;
            msum += nd->t[i].mem;
        }
        if (msum != nd->mem_used)
            return ns_error_set (err, EPROTO,
                                 "node %d: %lld MB used but tenants hold %lld",
                                 n, (long long)nd->mem_used, (long long)msum);
        if (sum != nd->used)
            return ns_error_set (err, EPROTO,
                                 "node %d: used %d but tenants hold %d", n,
                                 nd->used, sum);
        if (c->freec[n] != nd->cores - nd->used)
            return ns_error_set (err, EPROTO, "node %d: %d free cores kept, "
                                 "%d of %d used", n, c->freec[n], nd->used,
                                 nd->cores);
        if (nd->used > nd->cores || nd->used < 0)
            return ns_error_set (err, EPROTO, "node %d: %d of %d cores used",
                                 n, nd->used, nd->cores);
        if (closed != nd->closed)
            return ns_error_set (err, EPROTO, "node %d: closed %d, expected %d",
                                 n, nd->closed, closed);
        if (packed != nd->npacked)
            return ns_error_set (err, EPROTO, "node %d: packed %d, expected %d",
                                 n, nd->npacked, packed);
        int abit = (c->avail[n >> 6] >> (n & 63)) & 1;
        if (abit != node_avail (nd))
            return ns_error_set (err, EPROTO, "node %d: avail bit %d wrong", n,
                                 abit);
        if (closed && nd->ntenants != 1)
            return ns_error_set (err, EPROTO,
                                 "node %d: held whole but has %d tenants", n,
                                 nd->ntenants);
        int bit = (c->empty[n >> 6] >> (n & 63)) & 1;
        if (bit != (nd->ntenants == 0))
            return ns_error_set (err, EPROTO, "node %d: empty bit %d wrong", n,
                                 bit);
        nempty += bit;
        for (int k = 0; c->open_kept && k < c->nlevels; k++) {
            int obit = (c->open[k][n >> 6] >> (n & 63)) & 1;
            if (obit != (node_free_for_open (c, nd) >= (1 << k)))
                return ns_error_set (err, EPROTO,
                                     "node %d: open bit %d of level %d wrong",
                                     n, obit, k);
        }
        used += nd->used;
        *tenants_total += nd->ntenants;
    }
    if (nempty != c->nempty)
        return ns_error_set (err, EPROTO, "empty count %d, bitmap says %d",
                             c->nempty, nempty);
    if (used != c->used_cores)
        return ns_error_set (err, EPROTO, "used cores %lld, nodes say %lld",
                             (long long)c->used_cores, (long long)used);
    return 0;
}

/* The kept runs against the nodes. */
static int check_runs (const ns_cluster_t *c, ns_error_t *err)
{
    for (int b = 0; b < 2; b++) {
        if (!c->kept[b])
            continue;
        const struct runset *r = &c->runs[b];
        int i = -1, prev = -2;
        int64_t sum = 0;
        for (int n = 0; n <= c->nnodes; n++) {
            int in = n < c->nnodes && in_runs (c, n, b);
            if (in && prev == n - 1) {
                sum += c->freec[n];
                prev = n;
                continue;
            }
            if (i >= 0 && (i >= r->n || r->start[i] > prev || r->end[i] != prev
                           || r->cpus[i] != sum))
                return ns_error_set (err, EPROTO,
                                     "runs[%d]: run %d wrong (nodes end at "
                                     "%d, %lld cores)", b, i, prev,
                                     (long long)sum);
            if (in) {
                i++;
                sum = c->freec[n];
                prev = n;
                if (i >= r->n || r->start[i] != n)
                    return ns_error_set (err, EPROTO,
                                         "runs[%d]: run %d should start at "
                                         "node %d", b, i, n);
            }
        }
        if (i + 1 != r->n)
            return ns_error_set (err, EPROTO, "runs[%d]: %d runs kept, %d "
                                 "found", b, r->n, i + 1);
    }
    return 0;
}

int ns_cluster_check (const ns_cluster_t *c, ns_error_t *err)
{
    if (!c)
        return ns_error_set (err, EINVAL, "no cluster");
    int tenants_total;
    if (check_nodes (c, &tenants_total, err) < 0)
        return -1;
    if (check_runs (c, err) < 0)
        return -1;
    int shares_total = 0, occupied = 0;
    occupied = c->index.count;
    if (occupied != c->njobs)
        return ns_error_set (err, EPROTO, "%d hash slots for %d jobs",
                             occupied, c->njobs);
    for (int j = 0; j < c->njobs; j++) {
        const struct job *jb = &c->jobs[j];
        if (find_job (c, jb->id) != jb)
            return ns_error_set (err, EPROTO, "job %llu not found by id",
                                 (unsigned long long)jb->id);
        for (int i = 0; i < jb->nshares; i++) {
            const struct node *nd = &c->nodes[jb->shares[i].node];
            int found = 0;
            for (int k = 0; k < nd->ntenants; k++)
                if (nd->t[k].job == jb->id
                    && nd->t[k].cores == jb->shares[i].cores)
                    found = 1;
            if (!found)
                return ns_error_set (err, EPROTO,
                                     "job %llu missing from node %d",
                                     (unsigned long long)jb->id,
                                     jb->shares[i].node);
        }
        shares_total += jb->nshares;
    }
    if (shares_total != tenants_total)
        return ns_error_set (err, EPROTO, "%d shares but %d tenants",
                             shares_total, tenants_total);
    return 0;
}
