/* SPDX-License-Identifier: GPL-2.0-or-later */
/* eventq.t - sim/eventq.c: the order of events at one instant (ends,
 * limits, submits), insertion order among equals, submits in order of
 * time kept out of the heap and merged with it, a late submit pushed on
 * the heap, and the heap against a sort of random events.
 */
#include <stdio.h>
#include <stdlib.h>

#include "eventq.h"
#include "tap.h"

/* Take every event: their (type, job) in order into out.  How many. */
static int drain (ns_evq_t *q, const double *submit, ns_ev_t *out, int max)
{
    int n = 0, src;
    ns_ev_t e;
    for (;;) {
        int j = ns_evq_sub_head (q);
        if ((src = ns_evq_next (q, j >= 0 ? submit[j] : 0, &e)) == 0)
            break;
        ns_evq_take (q, src);
        if (n < max)
            out[n] = e;
        n++;
    }
    return n;
}

static void same_instant (void)
{
    ns_evq_t q = { 0 };
    double submit[4] = { 5, 5, 5, 5 };
    ns_ev_t out[8];
    ok (ns_evq_submit (&q, 0, 5) == 0 && ns_evq_submit (&q, 1, 5) == 0,
        "two submits at 5 queued");
    ok (q.nheap == 0, "submits in order of time stay off the heap");
    ns_evq_push (&q, 5, NS_EV_LIMIT, 2, 0);
    ns_evq_push (&q, 5, NS_EV_END, 3, 7);
    ns_evq_push (&q, 5, NS_EV_END, 1, 1);
    int n = drain (&q, submit, out, 8);
    is_int (n, 5, "five events");
    ok (out[0].type == NS_EV_END && out[0].job == 3 && out[0].version == 7,
        "first the end pushed first (insertion order, not job order)");
    ok (out[1].type == NS_EV_END && out[1].job == 1, "then the other end");
    ok (out[2].type == NS_EV_LIMIT, "then the limit");
    ok (out[3].type == NS_EV_SUBMIT && out[3].job == 0
        && out[4].type == NS_EV_SUBMIT && out[4].job == 1,
        "then the submits, in job order");
    ns_evq_free (&q);
}

static void late_submit (void)
{
    ns_evq_t q = { 0 };
    double submit[4] = { 10, 20, 15, 20 };
    ns_ev_t out[8];
    for (int j = 0; j < 4; j++)
        ns_evq_submit (&q, j, submit[j]);
    is_int (q.nheap, 1, "the submit earlier than the last queued is pushed");
    is_int (q.nsubr, 2, "the queue holds two runs (0-1, 3)");
    int n = drain (&q, submit, out, 8);
    is_int (n, 4, "four submits");
    ok (out[0].job == 0 && out[1].job == 2 && out[2].job == 1
        && out[3].job == 3, "merged in order of time, then job (0 2 1 3)");
    /* empty: a new submit starts the queue over */
    ok (ns_evq_submit (&q, 4, 1) == 0 && q.nsub == 1 && q.subhead == 0
        && q.nheap == 0, "once empty, an earlier submit is queued again");
    ns_evq_free (&q);
}

/* A submit pushed on the heap and one in the queue at the same instant:
 * the lower job index first, either way round. */
static void heap_submit_tie (void)
{
    ns_evq_t q = { 0 };
    double submit[3] = { 30, 30, 10 };
    ns_ev_t out[4];
    ns_evq_submit (&q, 0, 30);
    ns_evq_push (&q, 30, NS_EV_SUBMIT, 2, 0);   /* as a late submit */
    ns_evq_submit (&q, 1, 30);
    int n = drain (&q, submit, out, 4);
    ok (n == 3 && out[0].job == 0 && out[1].job == 1 && out[2].job == 2,
        "tied submits from heap and queue in job order");
    ns_evq_free (&q);
}

static int cmp (const void *a, const void *b)
{
    const ns_ev_t *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->type != y->type)
        return x->type - y->type;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void random_heap (void)
{
    enum { N = 2000 };
    static ns_ev_t want[N];
    ns_evq_t q = { 0 };
    unsigned seed = 12345;
    int bad = 0;
    for (int i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        double t = (double)((seed >> 8) % 50);
        int type = (int)((seed >> 20) % 2);  /* ends and limits */
        if (ns_evq_push (&q, t, type, i, (uint32_t)i) < 0)
            bad++;
        want[i] = (ns_ev_t){ t, type, i, (uint32_t)i, (uint64_t)i };
    }
    qsort (want, N, sizeof (*want), cmp);
    for (int i = 0; i < N && q.nheap > 0; i++) {
        ns_ev_t e = ns_evq_pop (&q);
        if (e.job != want[i].job)
            bad++;
    }
    ok (bad == 0 && q.nheap == 0, "%d random events pop in sorted order", N);
    ns_evq_free (&q);
    ok (q.heap == NULL && q.subr == NULL, "freed");
    ns_evq_free (&q);
    ok (1, "freeing twice is harmless");
}

int main (void)
{
    plan_no_plan ();
    same_instant ();
    late_submit ();
    heap_submit_tie ();
    random_heap ();
    return done_testing ();
}
