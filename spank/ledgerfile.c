/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ledgerfile.c - the node's ledger as a shared, locked file */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ledgerfile.h"

#define FILE_MAGIC "NSLEDGF1"
#define FILE_VERSION 1u
#define HEAD_SIZE 256

/* The first HEAD_SIZE bytes of the file; the ledger region follows. */
struct file_head {
    char magic[8];          /* written last when the file is built */
    uint32_t version;
    uint32_t head_size;
    uint64_t region_size;
    pthread_mutex_t lock;
};

_Static_assert (sizeof (struct file_head) <= HEAD_SIZE,
                "ledger file head fits its page");

struct ns_ledger_file {
    int fd;
    struct file_head *head;
    size_t size;            /* whole mapping */
};

static int head_valid (const struct file_head *h, size_t size)
{
    return memcmp (h->magic, FILE_MAGIC, sizeof (h->magic)) == 0
           && h->version == FILE_VERSION && h->head_size == HEAD_SIZE
           && h->region_size == size - HEAD_SIZE;
}

static int map_fd (ns_ledger_file_t *f, size_t size, const char *path,
                   ns_error_t *err)
{
    void *p = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
    if (p == MAP_FAILED)
        return ns_error_set (err, errno, "%s: mmap: %s", path,
                             strerror (errno));
    f->head = p;
    f->size = size;
    return 0;
}

static void unmap (ns_ledger_file_t *f)
{
    if (f->head)
        munmap (f->head, f->size);
    if (f->fd >= 0)
        close (f->fd);
    f->head = NULL;
    f->fd = -1;
}

static int init_mutex (pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    int rc = pthread_mutexattr_init (&a);
    if (rc == 0)
        rc = pthread_mutexattr_setpshared (&a, PTHREAD_PROCESS_SHARED);
    if (rc == 0)
        rc = pthread_mutexattr_setrobust (&a, PTHREAD_MUTEX_ROBUST);
    if (rc == 0)
        rc = pthread_mutex_init (m, &a);
    pthread_mutexattr_destroy (&a);
    return rc;
}

/* Build a complete file under a temporary name next to path; f then maps
 * it.  Returns 0 with *tmp filled, or -1. */
static int build (ns_ledger_file_t *f, const char *path, int capacity,
                  char *tmp, size_t tmplen, ns_error_t *err)
{
    size_t region = ns_ledger_size (capacity);
    size_t size = HEAD_SIZE + region;
    int rc;
    if (region == 0)
        return ns_error_set (err, EINVAL, "bad ledger capacity %d", capacity);
    if ((size_t)snprintf (tmp, tmplen, "%s.%ld.new", path, (long)getpid ())
        >= tmplen)
        return ns_error_set (err, ENAMETOOLONG, "%s: path too long", path);
    unlink (tmp);   /* a leftover of a dead process with our pid */
    f->fd = open (tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0600);
    if (f->fd < 0)
        return ns_error_set (err, errno, "%s: cannot create: %s", tmp,
                             strerror (errno));
    if (fchmod (f->fd, 0600) < 0 || ftruncate (f->fd, (off_t)size) < 0) {
        ns_error_set (err, errno, "%s: %s", tmp, strerror (errno));
        goto error;
    }
    if (map_fd (f, size, tmp, err) < 0)
        goto error;
    if ((rc = init_mutex (&f->head->lock)) != 0) {
        ns_error_set (err, rc, "%s: cannot initialise the lock: %s", tmp,
                      strerror (rc));
        goto error;
    }
    f->head->version = FILE_VERSION;
    f->head->head_size = HEAD_SIZE;
    f->head->region_size = region;
    __atomic_thread_fence (__ATOMIC_SEQ_CST);
    memcpy (f->head->magic, FILE_MAGIC, sizeof (f->head->magic));
    return 0;
error: {
        int saved = errno;
        unmap (f);
        unlink (tmp);
        errno = saved;
        return -1;
    }
}

/* Open and map an existing file.  -1 with errno ENOENT if there is none,
 * EBADMSG if its header is not ours. */
static int open_existing (ns_ledger_file_t *f, const char *path,
                          ns_error_t *err)
{
    struct stat st;
    f->fd = open (path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (f->fd < 0)
        return ns_error_set (err, errno, "%s: cannot open: %s", path,
                             strerror (errno));
    if (fstat (f->fd, &st) < 0) {
        ns_error_set (err, errno, "%s: %s", path, strerror (errno));
        goto error;
    }
    if (!S_ISREG (st.st_mode) || st.st_uid != geteuid ()
        || (st.st_mode & 077)) {
        ns_error_set (err, EPERM, "%s: refusing a ledger that is not a "
                      "regular file of uid %ld with mode 0600", path,
                      (long)geteuid ());
        goto error;
    }
    if (st.st_size < HEAD_SIZE + (off_t)ns_ledger_size (1)) {
        ns_error_set (err, EBADMSG, "%s: not a nodeshare ledger", path);
        goto error;
    }
    if (map_fd (f, (size_t)st.st_size, path, err) < 0)
        goto error;
    if (!head_valid (f->head, f->size)) {
        ns_error_set (err, EBADMSG, "%s: not a nodeshare ledger", path);
        goto error;
    }
    return 0;
error: {
        int saved = errno;
        unmap (f);
        errno = saved;
        return -1;
    }
}

/* dir itself: ours, a real directory, writable by us alone. */
static int check_own_dir (const char *dir, ns_error_t *err)
{
    struct stat st;
    if (lstat (dir, &st) < 0)
        return ns_error_set (err, errno, "%s: %s", dir, strerror (errno));
    if (S_ISLNK (st.st_mode))
        return ns_error_set (err, EPERM, "%s: refusing a directory that is a "
                             "symbolic link", dir);
    if (!S_ISDIR (st.st_mode) || st.st_uid != geteuid ()
        || (st.st_mode & 022))
        return ns_error_set (err, EPERM, "%s: refusing a directory that is "
                             "not owned by uid %ld or is writable by group or "
                             "others (owner %ld, mode %04o)", dir,
                             (long)geteuid (), (long)st.st_uid,
                             (unsigned)(st.st_mode & 07777));
    return 0;
}

/* A directory above: nobody but root or us may rename what it holds. */
static int check_parent_dir (const char *dir, ns_error_t *err)
{
    struct stat st;
    if (stat (dir, &st) < 0)
        return ns_error_set (err, errno, "%s: %s", dir, strerror (errno));
    if (!S_ISDIR (st.st_mode)
        || (st.st_uid != 0 && st.st_uid != geteuid ())
        || ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)))
        return ns_error_set (err, EPERM, "%s: refusing a path below a "
                             "directory that others may change (owner %ld, "
                             "mode %04o)", dir, (long)st.st_uid,
                             (unsigned)(st.st_mode & 07777));
    return 0;
}

int ns_ledger_file_safe_dir (const char *path, ns_error_t *err)
{
    char *copy = path ? strdup (path) : NULL;
    int rc = -1;
    if (!copy)
        return ns_error_set (err, path ? ENOMEM : EINVAL, "no path");
    char *dir = dirname (copy);
    mkdir (dir, 0755);
    if (check_own_dir (dir, err) == 0) {
        rc = 0;
        while (rc == 0 && dir[0] == '/' && dir[1] != '\0') {
            dir = dirname (dir);
            rc = check_parent_dir (dir, err);
        }
    }
    int saved = errno;
    free (copy);
    errno = saved;
    return rc;
}

ns_ledger_file_t *ns_ledger_file_open (const char *path, int capacity,
                                       ns_error_t *err)
{
    char tmp[4096];
    if (!path || !*path) {
        ns_error_set (err, EINVAL, "no ledger path");
        return NULL;
    }
    ns_ledger_file_t *f = calloc (1, sizeof (*f));
    if (!f) {
        ns_error_set (err, ENOMEM, "out of memory");
        return NULL;
    }
    f->fd = -1;
    if (ns_ledger_file_safe_dir (path, err) < 0) {
        ns_ledger_file_close (f);
        return NULL;
    }
    /* Two rounds: a file created or replaced by someone else between our
     * attempts is opened on the second. */
    for (int round = 0; round < 2; round++) {
        if (open_existing (f, path, err) == 0)
            return f;
        if (errno != ENOENT && errno != EBADMSG)
            break;
        int replace = errno == EBADMSG;
        if (build (f, path, capacity > 0 ? capacity : NS_LEDGER_FILE_CAPACITY,
                   tmp, sizeof (tmp), err) < 0)
            break;
        /* link() never clobbers a file someone else just built; rename()
         * replaces a foreign one. */
        int rc = replace ? rename (tmp, path) : link (tmp, path);
        int saved = errno;
        if (!replace)
            unlink (tmp);
        if (rc == 0)
            return f;
        unmap (f);
        if (replace)
            unlink (tmp);
        if (saved != EEXIST) {
            ns_error_set (err, saved, "%s: cannot create: %s", path,
                          strerror (saved));
            break;
        }
    }
    ns_ledger_file_close (f);
    return NULL;
}

void ns_ledger_file_close (ns_ledger_file_t *f)
{
    int saved = errno;
    if (f) {
        unmap (f);
        free (f);
    }
    errno = saved;
}

int ns_ledger_file_lock (ns_ledger_file_t *f, int timeout_ms, int *recovered,
                         ns_error_t *err)
{
    struct timespec ts;
    if (recovered)
        *recovered = 0;
    if (!f || !f->head)
        return ns_error_set (err, EINVAL, "no ledger file");
    clock_gettime (CLOCK_REALTIME, &ts);
    ts.tv_sec += timeout_ms / 1000;
    ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    int rc = pthread_mutex_timedlock (&f->head->lock, &ts);
    if (rc == EOWNERDEAD) {
        /* The holder died: its update may be half done.  Take over and
         * let the caller repair the records. */
        pthread_mutex_consistent (&f->head->lock);
        if (recovered)
            *recovered = 1;
        rc = 0;
    }
    if (rc == ETIMEDOUT)
        return ns_error_set (err, rc, "the ledger lock is held by another "
                             "process for more than %d ms", timeout_ms);
    if (rc != 0)
        return ns_error_set (err, rc, "cannot lock the ledger: %s",
                             strerror (rc));
    return 0;
}

void ns_ledger_file_unlock (ns_ledger_file_t *f)
{
    if (f && f->head)
        pthread_mutex_unlock (&f->head->lock);
}

void *ns_ledger_file_region (ns_ledger_file_t *f, size_t *len)
{
    if (!f || !f->head)
        return NULL;
    if (len)
        *len = f->size - HEAD_SIZE;
    return (char *)f->head + HEAD_SIZE;
}

uint64_t ns_ledger_file_pid_start (pid_t pid)
{
    char path[64], buf[1024];
    snprintf (path, sizeof (path), "/proc/%ld/stat", (long)pid);
    FILE *fp = fopen (path, "r");
    if (!fp)
        return 0;
    size_t n = fread (buf, 1, sizeof (buf) - 1, fp);
    fclose (fp);
    buf[n] = '\0';
    /* The command name may hold spaces and parentheses: fields are
     * counted from the last ')'.  Field 3 (state) follows it; the start
     * time is field 22. */
    char *s = strrchr (buf, ')');
    if (!s)
        return 0;
    s++;
    for (int field = 3; field < 22 && s; field++)
        s = strchr (s + 1, ' ');
    return s ? strtoull (s + 1, NULL, 10) : 0;
}

int ns_ledger_file_alive (const ns_ledger_owner_t *o, void *arg)
{
    (void)arg;
    if (o->pid <= 0 || (int64_t)(pid_t)o->pid != o->pid)
        return 0;
    if (kill ((pid_t)o->pid, 0) < 0 && errno == ESRCH)
        return 0;
    if (o->pid_start) {
        uint64_t start = ns_ledger_file_pid_start ((pid_t)o->pid);
        if (start && start != o->pid_start)
            return 0;   /* the pid now names another process */
    }
    return 1;
}
