/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gzahead.c - a compressed file inflated ahead, in a thread (gzahead.h)
 *
 * A ring of NS_GZAHEAD_SLOTS chunks (gzahead.h): the thread fills the
 * free slots in order with one gzread () each and stops after the first
 * answer that is not a full chunk's worth of data (the end, or an
 * error); the reader empties them in the same order.  A filled slot is
 * only read, an empty one only written, each by one side: the lock
 * guards the counts alone.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gzahead.h"

struct ns_gzahead {
    gzFile gz;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    char *chunk[NS_GZAHEAD_SLOTS];
    int len[NS_GZAHEAD_SLOTS];         /* gzread ()'s answer for the slot */
    int errnum[NS_GZAHEAD_SLOTS];      /* errno after it */
    int head, filled;       /* filled slots: head, head + 1, ... */
    int off;                /* bytes of the head slot already read */
    int stop;               /* the reader asks the thread to stop */
};

static void *inflater (void *arg)
{
    ns_gzahead_t *a = arg;
    pthread_mutex_lock (&a->lock);
    for (;;) {
        while (a->filled == NS_GZAHEAD_SLOTS && !a->stop)
            pthread_cond_wait (&a->cond, &a->lock);
        if (a->stop)
            break;
        int slot = (a->head + a->filled) % NS_GZAHEAD_SLOTS;
        pthread_mutex_unlock (&a->lock);
        errno = 0;
        int n = gzread (a->gz, a->chunk[slot], NS_GZAHEAD_CHUNK);
        int e = errno;
        pthread_mutex_lock (&a->lock);
        a->len[slot] = n;
        a->errnum[slot] = e;
        a->filled++;
        pthread_cond_signal (&a->cond);
        /* A short answer is the end or an error: gzread () has nothing
         * more to give (a short read of a regular file is its end). */
        if (n < NS_GZAHEAD_CHUNK)
            break;
    }
    pthread_mutex_unlock (&a->lock);
    return NULL;
}

static void release (ns_gzahead_t *a)
{
    for (int i = 0; i < NS_GZAHEAD_SLOTS; i++)
        free (a->chunk[i]);
    free (a);
}

ns_gzahead_t *ns_gzahead_start (gzFile gz, const char *path)
{
    struct stat st;
    if (!gz || !path || stat (path, &st) < 0 || !S_ISREG (st.st_mode)
        || gzdirect (gz))
        return NULL;
    ns_gzahead_t *a = calloc (1, sizeof (*a));
    if (!a)
        return NULL;
    a->gz = gz;
    for (int i = 0; i < NS_GZAHEAD_SLOTS; i++)
        if (!(a->chunk[i] = malloc (NS_GZAHEAD_CHUNK))) {
            release (a);
            return NULL;
        }
    if (pthread_mutex_init (&a->lock, NULL) != 0) {
        release (a);
        return NULL;
    }
    if (pthread_cond_init (&a->cond, NULL) != 0) {
        pthread_mutex_destroy (&a->lock);
        release (a);
        return NULL;
    }
    if (pthread_create (&a->thread, NULL, inflater, a) != 0) {
        pthread_cond_destroy (&a->cond);
        pthread_mutex_destroy (&a->lock);
        release (a);
        return NULL;
    }
    return a;
}

int ns_gzahead_read (ns_gzahead_t *a, void *buf, unsigned len)
{
    char *out = buf;
    unsigned got = 0;
    while (got < len) {
        pthread_mutex_lock (&a->lock);
        while (a->filled == 0)
            pthread_cond_wait (&a->cond, &a->lock);
        int slot = a->head, n = a->len[slot];
        pthread_mutex_unlock (&a->lock);
        if (n <= 0) {
            /* the end, or an error: after the bytes read, as gzread ()
             * gives the bytes of a call before its end */
            if (got > 0)
                return (int)got;
            errno = a->errnum[slot];
            return n;
        }
        unsigned take = (unsigned)(n - a->off);
        if (take > len - got)
            take = len - got;
        memcpy (out + got, a->chunk[slot] + a->off, take);
        got += take;
        a->off += (int)take;
        if (a->off < n)
            continue;
        /* The slot is read: the thread may fill it again.  A short one
         * was its last with data: what gzread () said after it is the
         * end or an error, kept as a slot of its own answer. */
        pthread_mutex_lock (&a->lock);
        a->off = 0;
        if (n < NS_GZAHEAD_CHUNK) {
            a->len[slot] = 0;
            pthread_mutex_unlock (&a->lock);
            return (int)got;
        }
        a->head = (a->head + 1) % NS_GZAHEAD_SLOTS;
        a->filled--;
        pthread_cond_signal (&a->cond);
        pthread_mutex_unlock (&a->lock);
    }
    return (int)got;
}

void ns_gzahead_stop (ns_gzahead_t *a)
{
    if (!a)
        return;
    pthread_mutex_lock (&a->lock);
    a->stop = 1;
    pthread_cond_signal (&a->cond);
    pthread_mutex_unlock (&a->lock);
    pthread_join (a->thread, NULL);
    pthread_cond_destroy (&a->cond);
    pthread_mutex_destroy (&a->lock);
    release (a);
}
