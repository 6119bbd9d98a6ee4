/* SPDX-License-Identifier: GPL-2.0-or-later */
/* eventq.c - the simulator's future events (see eventq.h) */
#include <stdlib.h>

#include "eventq.h"
#include "nsutil.h"

void ns_evq_free (ns_evq_t *q)
{
    free (q->heap);
    free (q->subr);
    q->heap = NULL;
    q->subr = NULL;
}

static int ev_less (const ns_ev_t *a, const ns_ev_t *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    if (a->type != b->type)
        return a->type < b->type;
    return a->seq < b->seq;
}

int ns_evq_push (ns_evq_t *q, double t, int type, int job, uint32_t version)
{
    if (ns_grow (&q->heap, &q->heapcap, q->nheap + 1, sizeof (*q->heap),
                 1024) < 0)
        return -1;
    ns_ev_t e = { t, type, job, version, q->seq++ };
    int i = q->nheap++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!ev_less (&e, &q->heap[p]))
            break;
        q->heap[i] = q->heap[p];
        i = p;
    }
    q->heap[i] = e;
    return 0;
}

ns_ev_t ns_evq_pop (ns_evq_t *q)
{
    ns_ev_t top = q->heap[0];
    ns_ev_t last = q->heap[--q->nheap];
    int i = 0;
    for (;;) {
        int l = 2 * i + 1;
        if (l >= q->nheap)
            break;
        int m = l + 1 < q->nheap && ev_less (&q->heap[l + 1], &q->heap[l])
                    ? l + 1 : l;
        if (!ev_less (&q->heap[m], &last))
            break;
        q->heap[i] = q->heap[m];
        i = m;
    }
    if (q->nheap > 0)
        q->heap[i] = last;
    return top;
}

int ns_evq_submit (ns_evq_t *q, int job, double t)
{
    if (q->subhead == q->nsub)          /* all taken: start over */
        q->subhead = q->nsub = q->nsubr = q->subr_at = q->subr_off = 0;
    struct ns_evq_run *last = q->nsubr ? &q->subr[q->nsubr - 1] : NULL;
    if (last && q->sub_last > t)
        return ns_evq_push (q, t, NS_EV_SUBMIT, job, 0);
    if (last && last->first + last->n == job)
        last->n++;
    else {
        if (ns_grow (&q->subr, &q->subrcap, q->nsubr + 1, sizeof (*q->subr),
                     64) < 0)
            return -1;
        q->subr[q->nsubr++] = (struct ns_evq_run){ job, 1 };
    }
    q->sub_last = t;
    q->nsub++;
    /* One sequence number per submit, queued or pushed: in order of seq
     * is in order of job */
    q->seq++;
    return 0;
}
