/* SPDX-License-Identifier: GPL-2.0-or-later */
/* resv.c - EASY reservations counted instead of tried (see resv.h) */
#include "resv.h"

int ns_resv_whole (const ns_cluster_t *c, int width, const uint64_t *order,
                   const double *when, int n, uint64_t *bits, int *nodes)
{
    int empty = ns_cluster_nempty (c);
    int released = 0, k = 0;
    /* Each node has at most one tenant: a job's end empties its nodes.
     * A try comes only after the last of the jobs ending together. */
    for (; k < n; k++) {
        int ns;
        const ns_share_t *sh = ns_job_shares_ref (c, order[k], &ns);
        if (sh)
            released += ns;
        if (when && k + 1 < n && when[k + 1] == when[k])
            continue;
        if (empty + released >= width)
            break;
    }
    if (k == n)
        return 0;
    /* Released nodes first, in index order, then the nodes empty now. */
    for (int i = 0; i <= k; i++) {
        int ns;
        const ns_share_t *sh = ns_job_shares_ref (c, order[i], &ns);
        for (int s = 0; sh && s < ns; s++)
            bits[sh[s].node >> 6] |= 1ULL << (sh[s].node & 63);
    }
    int got = 0, nwords = (ns_cluster_nnodes (c) + 63) / 64;
    for (int w = 0; w < nwords; w++) {
        uint64_t word = bits[w];
        bits[w] = 0;
        while (word && got < width) {
            nodes[got++] = (w << 6) + __builtin_ctzll (word);
            word &= word - 1;
        }
    }
    for (int nd = ns_cluster_next_empty (c, 0); nd >= 0 && got < width;
         nd = ns_cluster_next_empty (c, nd + 1))
        nodes[got++] = nd;
    return k + 1;
}
