/* SPDX-License-Identifier: GPL-2.0-or-later */
/* eventq.h - the simulator's future events: a binary heap beside a queue
 * of submits added in order of time
 *
 * Events are ordered by time, then type (ends, then time limits, then
 * submits: NS_EV_*), then insertion order.  Submits added in order of
 * time (a trace's) are not pushed on the heap: they wait in runs of
 * consecutive job indices (a trace added in order is one run), merged
 * with the heap by ns_evq_next ().  A submit is pushed on the heap only
 * when it comes earlier than the last one queued.
 *
 * The caller owns an ns_evq_t (zeroed is empty) and frees it with
 * ns_evq_free ().
 */
#ifndef NODESHARE_EVENTQ_H
#define NODESHARE_EVENTQ_H

#include <stdint.h>

/* At one instant: ends, then time limits (a job whose work ends exactly
 * at its limit is not killed), then submits. */
enum { NS_EV_END = 0, NS_EV_LIMIT = 1, NS_EV_SUBMIT = 2 };

typedef struct {
    double t;
    int type;           /* NS_EV_* */
    int job;
    uint32_t version;   /* an end's: the job's version when pushed */
    uint64_t seq;       /* insertion order */
} ns_ev_t;

typedef struct {
    ns_ev_t *heap;
    int nheap, heapcap;
    uint64_t seq;
    /* The submit queue: entry subhead of nsub is job
     * subr[subr_at].first + subr_off; sub_last the time of the last
     * entry added. */
    struct ns_evq_run {
        int first, n;
    } *subr;
    int nsubr, subrcap, subr_at, subr_off;
    int nsub, subhead;
    double sub_last;
} ns_evq_t;

void ns_evq_free (ns_evq_t *q);

/* Push an event on the heap.  0, or -1 out of memory (q unchanged). */
int ns_evq_push (ns_evq_t *q, double t, int type, int job, uint32_t version);

/* The heap's first event, removed (the heap must not be empty). */
ns_ev_t ns_evq_pop (ns_evq_t *q);

/* Job `job` (each job added once, in increasing index) is submitted at t:
 * queued in the submit queue if t is not before the last one queued,
 * else pushed on the heap.  0, or -1 out of memory. */
int ns_evq_submit (ns_evq_t *q, int job, double t);

/* The job at the head of the submit queue, or -1 if it is empty. */
static inline int ns_evq_sub_head (const ns_evq_t *q)
{
    return q->subhead < q->nsub ? q->subr[q->subr_at].first + q->subr_off
                                : -1;
}

/* The next event in *e, of the heap or the submit queue, whichever comes
 * first; sub_t is the submit time of ns_evq_sub_head ()'s job (not read
 * when the submit queue is empty).  Between two submits at the same
 * instant, the lower job index first.  2 from the heap, 1 from the submit
 * queue, 0 none. */
static inline int ns_evq_next (const ns_evq_t *q, double sub_t, ns_ev_t *e)
{
    int have = q->subhead < q->nsub;
    if (have)
        *e = (ns_ev_t){ sub_t, NS_EV_SUBMIT, ns_evq_sub_head (q), 0, 0 };
    if (q->nheap > 0) {
        const ns_ev_t *h = &q->heap[0];
        if (!have || h->t < e->t
            || (h->t == e->t
                && (h->type < e->type
                    || (h->type == e->type && h->job < e->job)))) {
            *e = *h;
            return 2;
        }
    }
    return have;
}

/* Remove the event ns_evq_next () returned src for. */
static inline void ns_evq_take (ns_evq_t *q, int src)
{
    if (src == 2)
        (void)ns_evq_pop (q);
    else {
        q->subhead++;
        if (++q->subr_off == q->subr[q->subr_at].n) {
            q->subr_at++;
            q->subr_off = 0;
        }
    }
}

#endif
