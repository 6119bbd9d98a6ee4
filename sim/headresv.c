/* SPDX-License-Identifier: GPL-2.0-or-later */
/* headresv.c - the queue head's reservation under EASY (see headresv.h) */
#include <math.h>
#include <stdlib.h>

#include "headresv.h"

int ns_hresv_init (ns_hresv_t *r, int nnodes)
{
    *r = (ns_hresv_t){ .nnodes = nnodes, .resv_head = -1,
                       .oroom_mark = -1 };
    r->hmark = calloc (nnodes, sizeof (int));
    r->avoid = calloc (nnodes, 1);
    r->outside = calloc (nnodes, 1);
    r->obits = calloc ((size_t)(nnodes + 63) / 64, sizeof (uint64_t));
    if (!r->hmark || !r->avoid || !r->outside || !r->obits)
        return -1;
    return 0;
}

void ns_hresv_free (ns_hresv_t *r)
{
    free (r->hmark);
    free (r->avoid);
    free (r->outside);
    free (r->obits);
    free (r->rnodes);
    ns_resv_scratch_destroy (r->rx);
    r->hmark = NULL;
    r->avoid = r->outside = NULL;
    r->obits = NULL;
    r->rnodes = NULL;
    r->rx = NULL;
}

/* The nodes ns_resv_pack () found stay while the job is one of those
 * estimated to end by then (fc_when), or while it leaves the choice among
 * the nodes free then as it was (ns_resv_pack_keep ()).  Once they do not,
 * the free cores then are still followed (ns_resv_pack_apply ()), so that
 * the nodes for the same jobs ending are found from them alone. */
static void fc_note (ns_hresv_t *r, int closes, double e,
                     const ns_share_t *sh, int n, int ends)
{
    if (!r->rx)
        return;
    if (closes) {
        r->fc_ok = 0;
        ns_resv_pack_forget (r->rx);
    }
    else if (!(e <= r->fc_when)) {
        if (r->fc_ok)
            r->fc_ok = ns_resv_pack_keep (r->rx, sh, n, ends);
        else
            ns_resv_pack_apply (r->rx, sh, n, ends);
    }
}

/* A job estimated to end at e holds c more (or, negative, fewer) */
static inline void count_job (struct ns_hresv_count *ec, double e,
                              int64_t c)
{
    if (e <= ec->when) {
        ec->upto += c;
        if (e < ec->when)
            ec->below += c;
    }
}

void ns_hresv_job (ns_hresv_t *r, int closes, double e, int64_t cores,
                   const ns_share_t *sh, int n, int ends)
{
    fc_note (r, closes, e, sh, n, ends);
    int64_t c = ends ? -cores : cores;
    count_job (&r->ec[0], e, c);
    count_job (&r->ec[1], e, ends ? -n : n);
    count_job (&r->ec[2], e, c);
}

int ns_hresv_begin (ns_hresv_t *r, int head, uint64_t v)
{
    if (r->resv_head == head && r->resv_version == v)
        return 0;
    r->resv_head = head;
    r->resv_version = v;
    r->resv_id++;
    r->shadow = INFINITY;
    r->resv_lazy = 0;
    return 1;
}

int ns_hresv_again (const ns_hresv_t *r, int b, int64_t need, int64_t have,
                    const ns_byend_t *be)
{
    const struct ns_hresv_count *ec = &r->ec[b];
    if (!ec->ok || ec->need != need || have + ec->below >= need
        || have + ec->upto < need)
        return -1;
    return ns_byend_upto (be, ec->when);
}

void ns_hresv_keep (ns_hresv_t *r, int b, int64_t need, int k,
                    const ns_byend_t *be)
{
    struct ns_hresv_count *ec = &r->ec[b];
    const int *cnt = b == 1 ? be->nodes : be->cores;
    ec->ok = k > 0;
    if (!ec->ok)
        return;
    ec->need = need;
    ec->when = be->end[k - 1];
    ec->below = ec->upto = 0;
    for (int i = 0; i < k; i++) {
        ec->upto += cnt[i];
        if (be->end[i] < ec->when)
            ec->below += cnt[i];
    }
}

void ns_hresv_whole (ns_hresv_t *r, const ns_cluster_t *c,
                     const ns_byend_t *be, const ns_resv_running_t *run,
                     int width, double now)
{
    /* The reserved nodes a candidate could take are the empty ones (the
     * others are held whole): only those are marked. */
    ns_hresv_new_marks (r);
    int64_t released;
    int k = ns_hresv_again (r, 1, width, ns_cluster_nempty (c), be);
    if (k >= 0)
        released = r->ec[1].upto;
    else {
        k = ns_resv_whole (c, width, run, &released);
        ns_hresv_keep (r, 1, width, k, be);
    }
    if (k > 0) {
        double end = be->end[k - 1];
        r->shadow = end > now ? end : now;
        int64_t left = width - released;
        const uint64_t *empty = ns_cluster_empty_bits (c);
        for (int w = 0; w < (r->nnodes + 63) / 64 && left > 0; w++)
            for (uint64_t word = empty[w]; word && left > 0;
                 word &= word - 1, left--)
                ns_hresv_mark (r, (w << 6) + __builtin_ctzll (word));
    }
}

int ns_hresv_pack (ns_hresv_t *r, const ns_cluster_t *c,
                   const ns_byend_t *be, const ns_resv_running_t *run,
                   int head, int need, int64_t have, double now)
{
    int nn = r->nnodes;
    if (!r->rx && !(r->rx = ns_resv_scratch_create (nn)))
        return -1;
    if (!r->rnodes && !(r->rnodes = calloc ((size_t)nn, sizeof (int))))
        return -1;
    int k = ns_hresv_again (r, 0, need, have, be);
    if (k < 0) {
        k = ns_resv_pack (c, need, run);
        ns_hresv_keep (r, 0, need, k, be);
    }
    r->resv_k = k;
    if (k > 0) {
        double end = be->end[k - 1];
        r->shadow = end > now ? end : now;
    }
    /* The nodes when a candidate needs them (ns_hresv_nodes ()) */
    r->resv_lazy = head + 1;
    return 0;
}

int ns_hresv_nodes (ns_hresv_t *r, const ns_cluster_t *c,
                    const ns_byend_t *be, const ns_resv_running_t *run,
                    int need)
{
    r->resv_lazy = 0;
    if (r->shadow == INFINITY) {
        ns_hresv_new_marks (r);
        return 0;
    }
    /* the state ns_hresv_pack () counted: the order is as it was */
    if (r->fc_ok && r->fc_need == need
        && r->fc_when == be->end[r->resv_k - 1]) {
        if (!r->fc_marked) {
            ns_hresv_new_marks (r);
            for (int i = 0; i < r->fc_cnt; i++)
                ns_hresv_mark (r, r->rnodes[i]);
            r->fc_marked = 1;
        }
        return 0;
    }
    int k = r->resv_k;
    /* the same jobs ending: from the free cores then, as followed */
    int cnt = r->fc_need == need && r->fc_when == be->end[k - 1]
                  ? ns_resv_pack_nodes_again (r->rx, need, r->rnodes) : -1;
    if (cnt <= 0)
        cnt = ns_resv_pack_nodes (c, need, k, run, r->rx, r->rnodes);
    if (cnt <= 0)
        return -1;      /* cannot happen: the same state found k */
    ns_hresv_new_marks (r);
    for (int i = 0; i < cnt; i++)
        ns_hresv_mark (r, r->rnodes[i]);
    r->fc_ok = 1;
    r->fc_need = need;
    r->fc_when = be->end[k - 1];
    r->fc_cnt = cnt;
    r->fc_marked = 1;
    return 0;
}

int64_t ns_hresv_outside_room (ns_hresv_t *r, const ns_cluster_t *c,
                               uint64_t v)
{
    if (r->oroom_mark == r->mark_id && r->oroom_version == v)
        return r->oroom;
    const int *fc = ns_cluster_free_cores_ref (c);
    const uint64_t *avail = ns_cluster_avail_bits (c);
    int64_t room = 0;
    for (int w = 0; w < (r->nnodes + 63) / 64; w++)
        for (uint64_t word = avail[w] & r->obits[w]; word;
             word &= word - 1)
            room += fc[(w << 6) + __builtin_ctzll (word)];
    r->oroom = room;
    r->oroom_mark = r->mark_id;
    r->oroom_version = v;
    return room;
}

void ns_hresv_beside (ns_hresv_t *r, uint64_t before, uint64_t v,
                      int64_t held)
{
    r->resv_version = v;
    if (r->oroom_mark == r->mark_id && r->oroom_version == before) {
        r->oroom -= held;
        r->oroom_version = v;
    }
}

double ns_hresv_shadow_bound (ns_hresv_t *r, const ns_byend_t *be,
                              int64_t have, int64_t need, double now)
{
    if (have >= need)
        return now;
    /* The last count of ns_hresv_pack (), or of this bound, for as many
     * cores still holds (ns_hresv_again ()): the cores suffice at its
     * time, not before. */
    for (int b = 0; b < 3; b += 2) {
        const struct ns_hresv_count *ec = &r->ec[b];
        if (ec->ok && ec->need == need && have + ec->below < need
            && have + ec->upto >= need)
            return ec->when > now ? ec->when : now;
    }
    int64_t free = have;
    for (int k = 0; k < be->n; k++) {
        free += be->cores[k];
        if (free >= need) {
            ns_hresv_keep (r, 2, need, k + 1, be);
            return be->end[k] > now ? be->end[k] : now;
        }
    }
    r->ec[2].ok = 0;
    return INFINITY;
}
