/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backfill.c - the queue head's reservation and EASY backfilling (see
 * backfill.h and, for the textbook rule, engine.c's file comment)
 *
 * reserve () makes the head's reservation: counted by sim/resv.c where
 * the running jobs allow (every one holds its nodes whole, or none does
 * under pack), else by the policy itself (ns_place_after ()); its state
 * lives in headresv.h.  A pass (ns_backfill ()) asks bf_scan () what each
 * candidate may do and bf_start () starts it.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "engine_int.h"

/* A running job's nodes and cores (ns_resv_running_t.shares). */
static const ns_share_t *running_shares (void *arg, uint64_t job, int *n)
{
    const ns_sim_t *s = arg;
    *n = s->jobs[job].out.nodes;
    return s->shares + s->jobs[job].shoff;
}

/* The running jobs for sim/resv.c: nodes (whole) or cores counted. */
static ns_resv_running_t running (ns_sim_t *s, int nodes)
{
    return (ns_resv_running_t){ s->be.job, s->be.end,
                                nodes ? s->be.nodes : s->be.cores,
                                s->be.n, running_shares, s };
}

/* reserve () when every running job holds its nodes whole (s->whole):
 * counted by ns_resv_whole (), the same nodes and time as
 * ns_place_after () finds.  0, or -1 when the head's shape is unknown
 * (then ns_place_after () decides). */
static int reserve_whole (ns_sim_t *s, int head)
{
    struct waiting *lv = WT (s, head);
    if (!lv->shape_known) {
        ns_request_t r;
        ns_eng_fill_request (s, head, &r);
        if (ns_place_shape (s->c, &s->conf.policy, s->conf.model, &r,
                            &lv->shape_w, &lv->shape_s, NULL) < 0)
            return -1;
        lv->shape_known = 1;
    }
    int width = lv->shape_w;
    if (width < 1 || width > s->conf.nnodes
        || lv->shape_s > ns_cluster_max_cores (s->c))
        return -1;
    ns_resv_running_t run = running (s, 1);
    ns_hresv_whole (&s->hr, s->c, &s->be, &run, width, s->now);
    return 0;
}

/* reserve () under pack, or a sharing policy that places as pack does
 * (monotone, not closing), while no running job holds its nodes whole:
 * by ns_resv_pack (), the same nodes and time as ns_place_after () finds,
 * without taking jobs out of the cluster.  0, or -1 (then
 * ns_place_after () decides). */
static int reserve_pack (ns_sim_t *s, int head)
{
    ns_resv_running_t run = running (s, 0);
    return ns_hresv_pack (&s->hr, s->c, &s->be, &run, head,
                          s->jobs[head].in->ntasks, free_cores (s), s->now);
}

/* The nodes of a reservation that reserve_pack () left to be found: on
 * the cluster it was computed for (a start keeps a reservation only
 * after asking for its nodes). */
static int resv_nodes (ns_sim_t *s)
{
    if (!s->hr.resv_lazy)
        return 0;
    int head = s->hr.resv_lazy - 1;
    ns_resv_running_t run = running (s, 0);
    return ns_hresv_nodes (&s->hr, s->c, &s->be, &run,
                           s->jobs[head].in->ntasks);
}

/* Reservation of the queue head (see the file comment): the earliest
 * estimated end after which the policy places it, releasing running jobs
 * in order of estimated end (ns_place_after), and the nodes it gets.
 * Those nodes are taken among the ones busy now first (the nodes free now
 * are avoided), so the free nodes stay available to backfill: on
 * identical exclusive nodes the free nodes outside the reservation are
 * then exactly min(free, extra) of textbook EASY (design.md section 5). */
static int reserve (ns_sim_t *s, int head, ns_error_t *err)
{
    ns_hresv_t *r = &s->hr;
    if (!ns_hresv_begin (r, head, s->cluster_version))
        return 0;
    int nn = s->conf.nnodes;
    if (s->whole && s->nopen == 0 && reserve_whole (s, head) == 0)
        return 0;
    if (s->monotone && !s->closes && s->nopen == ns_byend_running (&s->be)
        && reserve_pack (s, head) == 0)
        return 0;
    memset (r->avoid, 0, nn);
    const uint64_t *empty = ns_cluster_empty_bits (s->c);
    for (int w = 0; w < (nn + 63) / 64; w++)
        for (uint64_t word = empty[w]; word; word &= word - 1)
            r->avoid[(w << 6) + __builtin_ctzll (word)] = 1;
    ns_hresv_new_marks (r);
    ns_request_t req;
    ns_eng_fill_request (s, head, &req);
    req.avoid = r->avoid;
    ns_byend_squeeze (&s->be);
    int k = ns_place_after (s->c, &s->conf.policy, s->conf.model,
                            s->conf.progs, &req, s->be.job, s->be.end,
                            s->be.n, s->pl, err);
    if (k < 0)
        return -1;
    if (k > 0) {
        double end = s->be.end[k - 1];
        r->shadow = end > s->now ? end : s->now;
        for (int i = 0; i < s->pl->n; i++)
            ns_hresv_mark (r, s->pl->shares[i].node);
    }
    return 0;
}

/* The free cores of the usable nodes outside the reservation's marks. */
static inline int64_t outside_room (ns_sim_t *s)
{
    return ns_hresv_outside_room (&s->hr, s->c, s->cluster_version);
}

/* reserve () with its own placement, keeping s->pl (a candidate's). */
static int ensure_reserved (ns_sim_t *s, int head, ns_error_t *err)
{
    ns_placement_t *pl = s->pl;
    s->pl = s->pl_resv;
    int rc = reserve (s, head, err);
    s->pl = pl;
    return rc;
}

/* A cheap lower bound of the head's reservation: the estimated end at
 * which enough cores in total are free.  The policy may need more (its
 * shape wants particular nodes), never less.  It stays a lower bound
 * after backfill starts: a job ending by it gives its cores back by then,
 * and a later one keeps off the reserved nodes, so the shadow time does
 * not move. */
static double shadow_bound (ns_sim_t *s, int head)
{
    return ns_hresv_shadow_bound (&s->hr, &s->be, free_cores (s),
                                  s->jobs[head].in->ntasks, s->now);
}

/* A request of nt tasks failed in this state (see monotone). */
static void note_failed (ns_sim_t *s, int nt)
{
    ns_decmemo_failed (&s->memo, nt, s->release_version);
}

/* A candidate of nt tasks (its failure record f, or NULL) is refused the
 * reserved nodes and cannot keep off them: remember it for the scan's
 * bounds and for the next look at the same request in this state. */
static void refuse_reserved (ns_sim_t *s, ns_decmemo_rec_t *f, int nt)
{
    if (f)
        f->touch_version = s->cluster_version;
    /* Under packing (where a job that fits the free cores is placed) nor
     * can any job of more tasks than the free cores outside. */
    int t = nt;
    if (!s->closes && outside_room (s) < t)
        t = (int)outside_room (s) + 1;
    ns_decmemo_touched (&s->memo, t, s->hr.resv_id);
}

/* The scan's bounds at this point: a job can start only with at most
 * `fits` tasks (room; under a monotone policy the failures too), and, if
 * it would fit only on the reserved nodes (monotone: more than `outside`
 * tasks), only if its estimate is at most `lim`. */
static void scan_bounds (const ns_sim_t *s, int head, int64_t room,
                         ns_qb_bounds_t *q)
{
    q->fits = room;
    const ns_decmemo_t *m = &s->memo;
    if (s->monotone && m->fmin_version == s->release_version
        && m->fmin - 1 < q->fits)
        q->fits = m->fmin - 1;
    q->outside = q->fits;
    q->lim = INFINITY;
    if (s->monotone && m->tmin_resv == s->hr.resv_id && s->hr.resv_head == head
        && s->hr.resv_version == s->cluster_version) {
        if (m->tmin - 1 < q->outside)
            q->outside = m->tmin - 1;
        q->lim = s->hr.shadow - s->now + EPS;
    }
}

/* One backfill pass (see ns_backfill ()): its head, what can start now, and
 * whether a candidate was refused the reserved nodes. */
struct bfpass {
    int head;
    double bound;       /* shadow_bound (), computed on first need (-1) */
    int64_t room;       /* what can start now, in tasks (bf_room ()) */
    int64_t total;      /* the cluster's cores */
    int refused;        /* a candidate was refused for the reserved
                           nodes in this scan */
};

/* What the scan says of a candidate (bf_scan ()). */
enum {
    BF_ERROR = -1,      /* err says why */
    BF_PASS = 0,        /* it cannot start now */
    BF_REFUSED,         /* it could start only on the reserved nodes */
    BF_NEVER,           /* it can never fit the machine: drop it */
    BF_BEFORE,          /* it ends by the shadow time: start it (s->pl) */
    BF_BESIDE,          /* it keeps off the reserved nodes: start it */
};

/* What can start now, in tasks: the free cores, and under a policy that
 * holds whole nodes the cores of the empty nodes (an upper bound). */
static int64_t bf_room (const ns_sim_t *s)
{
    int64_t room = free_cores (s);
    int64_t empty = (int64_t)ns_cluster_nempty (s->c)
                    * ns_cluster_max_cores (s->c);
    return s->closes && empty < room ? empty : room;
}

/* The scan of one candidate, job j at queue position pos, against the
 * head's reservation: a BF_* value; for BF_BEFORE and BF_BESIDE its
 * placement is in s->pl.  The reservation is computed only when the
 * candidate's estimated end can matter (it would end after the least
 * shadow time possible). */
static int bf_scan (ns_sim_t *s, struct bfpass *bp, int j, int pos,
                    ns_error_t *err)
{
    int nt = s->qb.tasks[pos];
    if (nt > bp->room && nt <= bp->total)
        return BF_PASS;     /* no policy places it now (decide () too) */
    ns_decmemo_rec_t *f = s->cacheable ? fail_lookup (s, j, nt) : NULL;
    if (f && f->version == s->release_version) {
        note_failed (s, nt);
        return BF_PASS;     /* failed in this state: decide () says so */
    }
    double end_t = s->now + s->qb.est[pos];
    /* Same policy-visible request, same state: it fits only on the
     * reserved nodes; only a short enough job may go. */
    if (f && f->touch_version == s->cluster_version) {
        if (ensure_reserved (s, bp->head, err) < 0)
            return BF_ERROR;
        if (end_t > s->hr.shadow + EPS)
            return BF_REFUSED;
    }
    /* A job placed before (never dropped, then) that would end after the
     * shadow time and has more tasks than the free cores outside the
     * reservation: wherever it goes it takes reserved nodes, so it waits,
     * without being placed. */
    if (WT (s, j)->placed) {
        if (bp->bound < 0)
            bp->bound = shadow_bound (s, bp->head);
        if (end_t > bp->bound + EPS) {
            if (ensure_reserved (s, bp->head, err) < 0)
                return BF_ERROR;
            if (end_t > s->hr.shadow + EPS) {
                if (resv_nodes (s) < 0) {
                    ns_error_set (err, EINVAL, "reservation lost");
                    return BF_ERROR;
                }
                if (nt > outside_room (s)) {
                    refuse_reserved (s, f, nt);
                    return BF_REFUSED;
                }
            }
        }
    }
    int d = ns_eng_decide (s, j, NULL, err);
    if (d == D_ERROR)
        return BF_ERROR;
    if (d == D_NEVER)
        return BF_NEVER;
    if (d == D_WAIT) {
        note_failed (s, nt);
        return BF_PASS;
    }
    /* A job ending by even the earliest possible reservation starts
     * without computing it. */
    if (bp->bound < 0)
        bp->bound = shadow_bound (s, bp->head);
    if (end_t > bp->bound + EPS) {
        if (ensure_reserved (s, bp->head, err) < 0)
            return BF_ERROR;
    }
    if (end_t <= bp->bound + EPS || end_t <= s->hr.shadow + EPS)
        return BF_BEFORE;
    if (resv_nodes (s) < 0) {
        ns_error_set (err, EINVAL, "reservation lost");
        return BF_ERROR;
    }
    if (ns_hresv_touches (&s->hr, s->pl)) {
        /* Steer it to the free nodes outside the reservation: it cannot
         * take more tasks there than they have free cores. */
        d = nt > outside_room (s) ? D_WAIT
                                  : ns_eng_decide (s, j, s->hr.outside, err);
        if (d == D_ERROR)
            return BF_ERROR;
        if (d != D_PLACED) {
            refuse_reserved (s, f, nt);
            return BF_REFUSED;
        }
    }
    return BF_BESIDE;
}

/* Start the candidate j at queue position pos with the placement in s->pl,
 * as bf_scan () said (BF_BEFORE or BF_BESIDE).  0, or -1. */
static int bf_start (ns_sim_t *s, struct bfpass *bp, int j, int pos, int how,
                     ns_error_t *err)
{
    uint64_t before = s->cluster_version;
    if (ns_eng_start_job (s, j, s->pl, err) < 0)
        return -1;
    ns_qb_remove (&s->qb, pos);
    bp->room = bf_room (s);
    if (how == BF_BEFORE)
        return 0;
    /* It keeps off the reserved nodes and ends after the shadow time: the
     * reservation stays valid.  Keep the cache, and the free cores
     * outside it less those the job holds (a node held whole, all of its
     * cores). */
    ns_hresv_beside (&s->hr, before, s->cluster_version, LV (s, j)->held);
    return 0;
}

/* One backfill pass behind a head that cannot start (textbook EASY):
 * every candidate in queue order that fits the free nodes now starts if
 * it is estimated to end by the shadow time (anywhere), or else if it
 * fits the free nodes outside the head's reservation (it is steered
 * there): bf_scan () says which, bf_start () starts it.  A candidate
 * ending by the shadow time gives its nodes back before the head needs
 * them, but the reservation is then recomputed (it prefers nodes busy
 * now, which the candidate's nodes now are) and may have moved: the
 * candidates refused for the reserved nodes before it are examined
 * again, up to where the scan reached.  A start never makes a refused
 * decision possible otherwise (it only takes cores and adds tenants), and
 * on identical exclusive nodes not even then (the free and extra counts
 * only fall), so the scan equals the textbook one.
 */
int ns_backfill (ns_sim_t *s, ns_error_t *err)
{
    struct bfpass bp = { .head = s->qb.job[s->qb.start], .bound = -1,
                         .room = bf_room (s),
                         .total = ns_cluster_total_cores (s->c) };
    int head = bp.head;
    int examined = 0;
    int pos = s->qb.start + 1;
    /* The last pass started nothing, and nothing started or ended since,
     * same head: every job it examined gets the same answer (decisions
     * depend on the state alone, and a refused job's end only moves later
     * with the shadow time), so go on where it stopped: only jobs
     * submitted since are new.  Queue positions behind it do not move. */
    if (s->cacheable && s->bf.head == head
        && s->bf.version == s->cluster_version && s->bf.pos >= pos) {
        pos = s->bf.pos;
        examined = s->bf.examined;
    }
    uint64_t version = s->cluster_version;
    int limit = -1;         /* rescans stop here (where the scan reached) */
    int rescan;
    /* Jobs that cannot start are passed without being looked at (only
     * when the whole queue is scanned: with a depth, every job looked at
     * counts). */
    int jump = s->conf.bf_depth == INT_MAX;
    do {
        int end = limit < 0 ? s->qb.end : limit;
        bp.refused = 0;
        rescan = 0;
        ns_qb_scan_reset (&s->qb);
        for (;; pos++) {
            if (bp.room <= 0)
                break;
            if (jump) {
                ns_qb_bounds_t q;
                scan_bounds (s, head, bp.room, &q);
                pos = ns_qb_next_candidate (&s->qb, pos, end, &q);
            }
            else {
                if (limit < 0 && examined >= s->conf.bf_depth)
                    break;
                pos = ns_qb_next_live (&s->qb, pos, end);
            }
            if (pos >= end)
                break;
            examined++;
            int j = s->qb.job[pos];
            int how = bf_scan (s, &bp, j, pos, err);
            switch (how) {
                case BF_ERROR:
                    return -1;
                case BF_PASS:
                    break;
                case BF_REFUSED:
                    bp.refused = 1;
                    break;
                case BF_NEVER:
                    ns_eng_drop_never (s, j);
                    ns_qb_remove (&s->qb, pos);
                    break;
                default:
                    if (bf_start (s, &bp, j, pos, how, err) < 0)
                        return -1;
                    /* The reservation is recomputed when next needed
                     * (the cluster version moved): look at the refused
                     * again. */
                    if (how == BF_BEFORE && bp.refused)
                        rescan = 1;
            }
        }
        if (rescan) {
            if (limit < 0) {
                /* the first scan's end, for the next pass to resume */
                s->bf.pos = pos;
                s->bf.examined = examined;
            }
            limit = limit < 0 ? pos : limit;
            pos = s->qb.start + 1;
        }
    } while (rescan);
    if (limit < 0) {
        s->bf.pos = pos;
        s->bf.examined = examined;
    }
    /* A start in this pass may have moved the nodes an earlier refused
     * job would get: then the next pass looks at all of them again. */
    s->bf.head = version == s->cluster_version ? head : -1;
    s->bf.version = s->cluster_version;
    return 0;
}

