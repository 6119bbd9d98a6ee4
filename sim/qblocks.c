/* SPDX-License-Identifier: GPL-2.0-or-later */
/* qblocks.c - the simulator's FCFS queue in blocks (see qblocks.h) */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nsutil.h"
#include "qblocks.h"

#define QBLOCK NS_QB_BLOCK

/* Positions before the head are never read again (scans start behind it,
 * and only live positions are looked at): every QTRIM positions the head
 * passes, the pages of the arrays before it go back to the system. */
#define QTRIM 65536

int ns_qb_reserve (ns_qblocks_t *q, int n)
{
    /* whole blocks: block_mask_wide () reads every position of one */
    if (n > INT_MAX - QBLOCK)
        return -1;
    n = (n + QBLOCK - 1) / QBLOCK * QBLOCK;
    if (ns_grow (&q->job, &q->cap, n, sizeof (*q->job), 1024) < 0
        || ns_grow (&q->tasks, &q->tcap, q->cap, sizeof (*q->tasks),
                    1024) < 0
        || ns_grow (&q->est, &q->ecap, q->cap, sizeof (*q->est), 1024) < 0
        || ns_grow (&q->live, &q->livecap, q->cap / QBLOCK + 1,
                    sizeof (*q->live), 64) < 0
        || ns_grow (&q->dirty, &q->dirtycap, q->cap / QBLOCK + 1,
                    sizeof (*q->dirty), 64) < 0
        || ns_qtree_grow (&q->tree, q->cap / QBLOCK + 1) < 0)
        return -1;
    return 0;
}

void ns_qb_free (ns_qblocks_t *q)
{
    free (q->job);
    free (q->tasks);
    free (q->est);
    ns_qtree_free (&q->tree);
    free (q->live);
    free (q->dirty);
    q->job = q->tasks = NULL;
    q->est = NULL;
    q->live = NULL;
    q->dirty = NULL;
    q->cap = q->tcap = q->ecap = q->livecap = q->dirtycap = 0;
}

/* The key of a live position in the tree (see qblocks.h). */
static inline int qkey (const ns_qblocks_t *q, int pos)
{
    return q->tasks[pos] > q->total ? 0 : q->tasks[pos];
}

int ns_qb_push (ns_qblocks_t *q, int j, int ntasks, double est)
{
    int pos = q->end++;
    q->tasks[pos] = ntasks;
    q->est[pos] = est;
    q->job[pos] = j;
    int b = pos / QBLOCK, key = qkey (q, pos), cls = ns_qtree_class (key);
    if (pos % QBLOCK == 0) {
        q->live[b] = 0;
        q->dirty[b] = 0;
    }
    q->live[b] |= 1ULL << (pos % QBLOCK);
    float e = ns_qtree_est (est), k = ns_qtree_key (key);
    const float *leaf = ns_qtree_leaf (&q->tree, b);
    float le = leaf[cls], lk = leaf[NS_QTREE_CLASSES + cls];
    if (e < le || k < lk)
        ns_qtree_set (&q->tree, b, cls, e < le ? e : le, k < lk ? k : lk);
    return pos;
}

/* Give back the whole pages of base[0, n) (elements of elem bytes): the
 * system may take them; read again, they hold zeros. */
static void pages_drop (void *base, size_t elem, int n)
{
#ifdef MADV_DONTNEED
    long pg = sysconf (_SC_PAGESIZE);
    if (pg <= 0)
        return;
    uintptr_t mask = ~(uintptr_t)(pg - 1);
    uintptr_t a = ((uintptr_t)base + (uintptr_t)pg - 1) & mask;
    uintptr_t b = ((uintptr_t)base + elem * (size_t)n) & mask;
    if (b > a)
        madvise ((void *)a, b - a, MADV_DONTNEED);
#else
    (void)base;
    (void)elem;
    (void)n;
#endif
}

static void queue_trim (ns_qblocks_t *q)
{
    if (q->start - q->trim < QTRIM)
        return;
    q->trim = q->start;
    pages_drop (q->job, sizeof (*q->job), q->start);
    pages_drop (q->tasks, sizeof (*q->tasks), q->start);
    pages_drop (q->est, sizeof (*q->est), q->start);
}

void ns_qb_remove (ns_qblocks_t *q, int pos)
{
    int b = pos / QBLOCK;
    q->job[pos] = -1;
    q->tasks[pos] = -1;
    q->live[b] &= ~(1ULL << (pos % QBLOCK));
    /* The block's minima in the tree stay, lower bounds still: counted
     * again when a scan finds nothing there (block_recount ()). */
    q->dirty[b] = 1;
    while (q->start < q->end && q->tasks[q->start] < 0)
        q->start++;
    queue_trim (q);
}

int ns_qb_count (const ns_qblocks_t *q)
{
    /* live positions of [start, end): the bits of live */
    int n = 0;
    for (int b = q->start / QBLOCK; b * QBLOCK < q->end; b++)
        n += __builtin_popcountll (q->live[b]);
    return n;
}

/* block_mask () one position at a time: for a block of few queued jobs,
 * and for bounds outside the range of a task count. */
static uint64_t block_mask_each (const ns_qblocks_t *q, int b,
                                 const ns_qb_bounds_t *bd)
{
    uint64_t m = 0;
    for (uint64_t live = q->live[b]; live; live &= live - 1) {
        int i = __builtin_ctzll (live), p = b * QBLOCK + i;
        if (ns_qtree_may (bd->fits, bd->outside, bd->lim, qkey (q, p),
                          q->est[p]))
            m |= 1ULL << i;
    }
    return m;
}

/* block_mask () eight positions at a time (GCC's vector extension: one
 * AVX register in the clone for processors that have AVX2, two SSE
 * registers otherwise).  The task counts and estimates of the whole block
 * are read (ns_qb_reserve () gives whole blocks); the positions that hold
 * no queued job are masked out by live.  fits, outside and total are
 * task counts here (INT_MIN <= x <= INT_MAX, total >= 0): as int, every
 * comparison is the one of ns_qtree_may () and qkey (). */
typedef int qb_v8i __attribute__ ((vector_size (32)));
typedef double qb_v4d __attribute__ ((vector_size (32)));
typedef long long qb_v4l __attribute__ ((vector_size (32)));

/* Lanes of a and b (0-7 a's, 8-15 b's) in a constant order: GCC's
 * __builtin_shuffle (GCC 4.7 on; __builtin_shufflevector only from GCC
 * 12, and EL 9 builds with GCC 11), clang's __builtin_shufflevector. */
#ifdef __clang__
#define QB_PERM(a, b, ...) __builtin_shufflevector (a, b, __VA_ARGS__)
#else
#define QB_PERM(a, b, ...) __builtin_shuffle (a, b, (qb_v8i){ __VA_ARGS__ })
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) \
    && !defined(__SANITIZE_ADDRESS__)
__attribute__ ((target_clones ("avx2", "default")))
#endif
static uint64_t block_mask_wide (const ns_qblocks_t *q, int b, int fits,
                                 int outside, double lim, int total)
{
    const qb_v8i f = { fits, fits, fits, fits, fits, fits, fits, fits };
    const qb_v8i o = { outside, outside, outside, outside,
                       outside, outside, outside, outside };
    const qb_v8i t = { total, total, total, total,
                       total, total, total, total };
    const qb_v4d l = { lim, lim, lim, lim };
    const qb_v8i bit = { 1, 2, 4, 8, 16, 32, 64, 128 };
    uint64_t m = 0;
    for (int g = 0; g < QBLOCK / 8; g++) {
        int p = b * QBLOCK + 8 * g;
        qb_v8i k;
        qb_v4d e0, e1;
        memcpy (&k, q->tasks + p, sizeof (k));
        memcpy (&e0, q->est + p, sizeof (e0));
        memcpy (&e1, q->est + p + 4, sizeof (e1));
        k &= ~(k > t);                      /* qkey (): 0 above total */
        qb_v4l le0 = e0 <= l, le1 = e1 <= l;
        /* the low halves of the eight 64-bit answers: -1 or 0 each */
        qb_v8i le = QB_PERM ((qb_v8i)le0, (qb_v8i)le1, 0, 2, 4, 6, 8, 10, 12,
                             14);
        qb_v8i r = (k <= f) & ((k <= o) | le) & bit;
        /* the eight lanes' bits ORed together */
        r |= QB_PERM (r, r, 4, 5, 6, 7, 0, 1, 2, 3);
        r |= QB_PERM (r, r, 2, 3, 0, 1, 2, 3, 0, 1);
        r |= QB_PERM (r, r, 1, 0, 1, 0, 1, 0, 1, 0);
        m |= (uint64_t)(unsigned)r[0] << (8 * g);
    }
    return m & q->live[b];
}

/* The positions of block b that may hold a job able to start under bd. */
static uint64_t block_mask (const ns_qblocks_t *q, int b,
                            const ns_qb_bounds_t *bd)
{
    /* Few queued jobs: looked at one by one for less */
    if (__builtin_popcountll (q->live[b]) < 8 || bd->fits > INT_MAX
        || bd->fits < INT_MIN || bd->outside > INT_MAX
        || bd->outside < INT_MIN || q->total > INT_MAX || q->total < 0)
        return block_mask_each (q, b, bd);
    return block_mask_wide (q, b, (int)bd->fits, (int)bd->outside, bd->lim,
                            (int)q->total);
}

/* The tree's minima of block b counted anew from its queued jobs. */
static void block_recount (ns_qblocks_t *q, int b)
{
    float m[NS_QTREE_CLASSES], mk[NS_QTREE_CLASSES];
    for (int c = 0; c < NS_QTREE_CLASSES; c++)
        m[c] = mk[c] = INFINITY;
    for (uint64_t live = q->live[b]; live; live &= live - 1) {
        int p = b * QBLOCK + __builtin_ctzll (live);
        int key = qkey (q, p), c = ns_qtree_class (key);
        float e = ns_qtree_est (q->est[p]), k = ns_qtree_key (key);
        if (e < m[c])
            m[c] = e;
        if (k < mk[c])
            mk[c] = k;
    }
    const float *leaf = ns_qtree_leaf (&q->tree, b);
    for (int c = 0; c < NS_QTREE_CLASSES; c++)
        if (leaf[c] != m[c] || leaf[NS_QTREE_CLASSES + c] != mk[c])
            ns_qtree_set (&q->tree, b, c, m[c], mk[c]);
    q->dirty[b] = 0;
}

/* The blocks where no job can start are passed through the tree; within a
 * block the live jobs under bd are a bit mask, kept while bd and the
 * block stay. */
int ns_qb_next_candidate (ns_qblocks_t *q, int pos, int end,
                          const ns_qb_bounds_t *bd)
{
    if (bd->fits != q->mq.fits || bd->outside != q->mq.outside
        || bd->lim != q->mq.lim) {
        q->mq = *bd;
        ns_qtree_query (&q->mqt, bd->fits, bd->outside, bd->lim);
        q->mblock = -1;
    }
    while (pos < end) {
        int b = pos / QBLOCK;
        if (b != q->mblock) {
            int nb = ns_qtree_next (&q->tree, b, &q->mqt);
            if (nb < 0)
                return end;
            if (nb != b) {
                b = nb;
                pos = b * QBLOCK;
                if (pos >= end)
                    return end;
            }
            q->mblock = b;
            q->mbits = block_mask (q, b, bd);
            /* Nothing here after all: if a job left the block, its
             * minima may have misled the tree; count them anew. */
            if (!q->mbits && q->dirty[b])
                block_recount (q, b);
        }
        uint64_t m = q->mbits >> (pos % QBLOCK);
        if (m) {
            pos += __builtin_ctzll (m);
            return pos < end ? pos : end;
        }
        pos = (b + 1) * QBLOCK;
    }
    return end;
}
