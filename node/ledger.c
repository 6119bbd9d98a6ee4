/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ledger.c - the node-local occupancy ledger (see ledger.h)
 *
 * The region is a fixed header and an array of fixed-size records.  There
 * are no counters or lists to keep consistent: a record's state word is
 * the only thing that makes it count, and it is written last when adding
 * (first when dropping), so an update cut short by a dying process never
 * leaves a half-visible record.  Scans are linear; a node holds a few
 * thousand records at most and the scan is far cheaper than the hwloc
 * topology load that precedes it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ledger.h"
#include "ledger_test.h"
#include "nsutil.h"

#define MAGIC "NSLEDGR1"
#define VERSION 1u
#define FREE 0u
#define USED 0x44455355u    /* "USED" */

struct header {
    char magic[8];
    uint32_t version;
    uint32_t capacity;
    uint32_t record_size;
    uint32_t header_size;
    uint64_t topology;
    uint64_t seal;
    uint8_t pad[24];
};

struct record {
    uint32_t state;         /* FREE or USED; written last */
    uint32_t jobid;
    uint32_t stepid;
    int32_t task;
    int64_t pid;
    uint64_t pid_start;
    uint64_t bytes;
    int32_t level;
    int32_t cache;
    uint64_t seal;          /* hash of the fields above but state */
    uint64_t pad;
};

_Static_assert (sizeof (struct header) == 64, "ledger header is 64 bytes");
_Static_assert (sizeof (struct record) == 64, "ledger record is 64 bytes");

struct ns_ledger {
    struct header *head;
    struct record *rec;
    int capacity;
};

/*
 * Hashing (FNV-1a over 64-bit words)
 */

#define mix ns_fnv1a_u64
#define HASH_INIT NS_FNV1A_INIT

static uint64_t record_seal (const struct record *r)
{
    uint64_t h = HASH_INIT;
    h = mix (h, r->jobid);
    h = mix (h, r->stepid);
    h = mix (h, (uint32_t)r->task);
    h = mix (h, (uint64_t)r->pid);
    h = mix (h, r->pid_start);
    h = mix (h, r->bytes);
    h = mix (h, (uint32_t)r->level);
    h = mix (h, (uint32_t)r->cache);
    return h;
}

static uint64_t header_seal (const struct header *hd)
{
    uint64_t h = HASH_INIT, m;
    memcpy (&m, hd->magic, sizeof (m));
    h = mix (h, m);
    h = mix (h, hd->version);
    h = mix (h, hd->capacity);
    h = mix (h, hd->record_size);
    h = mix (h, hd->header_size);
    h = mix (h, hd->topology);
    return h;
}

/*
 * Records
 */

static uint32_t state_of (const struct record *r)
{
    return __atomic_load_n (&r->state, __ATOMIC_ACQUIRE);
}

static void set_state (struct record *r, uint32_t state)
{
    __atomic_store_n (&r->state, state, __ATOMIC_RELEASE);
}

static int valid_level (int level)
{
    return level > NS_CT_CORE && level <= NS_CT_MACHINE;
}

static int well_formed (const struct record *r)
{
    return r->seal == record_seal (r) && valid_level (r->level)
           && r->cache >= 0 && r->task >= 0;
}

static int same_owner (const struct record *r, const ns_ledger_owner_t *o)
{
    return r->jobid == o->jobid && r->stepid == o->stepid
           && r->pid == o->pid && r->pid_start == o->pid_start;
}

static void owner_of (const struct record *r, ns_ledger_owner_t *o)
{
    *o = (ns_ledger_owner_t){
        .jobid = r->jobid,
        .stepid = r->stepid,
        .pid = r->pid,
        .pid_start = r->pid_start,
    };
}

/*
 * Attaching
 */

size_t ns_ledger_size (int capacity)
{
    if (capacity < 1 || capacity > NS_LEDGER_MAX_CAPACITY)
        return 0;
    return sizeof (struct header) + (size_t)capacity * sizeof (struct record);
}

static int header_valid (const struct header *hd, size_t len)
{
    size_t fit = (len - sizeof (*hd)) / sizeof (struct record);
    return memcmp (hd->magic, MAGIC, sizeof (hd->magic)) == 0
           && hd->version == VERSION
           && hd->record_size == sizeof (struct record)
           && hd->header_size == sizeof (struct header)
           && hd->capacity >= 1 && hd->capacity <= fit
           && hd->capacity <= NS_LEDGER_MAX_CAPACITY
           && hd->seal == header_seal (hd);
}

static int count_used (const struct record *rec, int capacity)
{
    int n = 0;
    for (int i = 0; i < capacity; i++)
        n += state_of (&rec[i]) == USED;
    return n;
}

/* Invalidate the header, empty every record, write the header: a process
 * that dies half-way leaves a region the next attach formats again. */
static void format (struct header *hd, struct record *rec, int capacity,
                    uint64_t topology)
{
    memset (hd, 0, sizeof (*hd));
    __atomic_thread_fence (__ATOMIC_SEQ_CST);
    memset (rec, 0, (size_t)capacity * sizeof (*rec));
    __atomic_thread_fence (__ATOMIC_SEQ_CST);
    struct header h = {
        .version = VERSION,
        .capacity = (uint32_t)capacity,
        .record_size = sizeof (struct record),
        .header_size = sizeof (struct header),
        .topology = topology,
    };
    memcpy (h.magic, MAGIC, sizeof (h.magic));
    h.seal = header_seal (&h);
    memcpy (hd, &h, sizeof (h));
}

ns_ledger_t *ns_ledger_attach (void *mem, size_t len, uint64_t topology,
                               int *reset, ns_error_t *err)
{
    if (reset)
        *reset = 0;
    if (!mem || ((uintptr_t)mem & 7) || len < ns_ledger_size (1)) {
        ns_error_set (err, EINVAL, "ledger region must be 8-byte aligned "
                      "and hold at least %zu bytes", ns_ledger_size (1));
        return NULL;
    }
    ns_ledger_t *l = calloc (1, sizeof (*l));
    if (!l) {
        ns_error_set (err, ENOMEM, "out of memory");
        return NULL;
    }
    l->head = mem;
    l->rec = (struct record *)(l->head + 1);
    if (!header_valid (l->head, len)) {
        size_t fit = (len - sizeof (struct header)) / sizeof (struct record);
        if (fit > NS_LEDGER_MAX_CAPACITY)
            fit = NS_LEDGER_MAX_CAPACITY;
        format (l->head, l->rec, (int)fit, topology);
    } else if (topology != NS_LEDGER_ANY_TOPOLOGY
               && l->head->topology != topology) {
        if (reset)
            *reset = count_used (l->rec, (int)l->head->capacity) > 0;
        format (l->head, l->rec, (int)l->head->capacity, topology);
    }
    l->capacity = (int)l->head->capacity;
    return l;
}

void ns_ledger_detach (ns_ledger_t *l)
{
    int saved = errno;
    free (l);
    errno = saved;
}

int ns_ledger_capacity (const ns_ledger_t *l)
{
    return l ? l->capacity : 0;
}

int ns_ledger_count (const ns_ledger_t *l)
{
    return l ? count_used (l->rec, l->capacity) : 0;
}

int ns_ledger_entry (const ns_ledger_t *l, int i, ns_ledger_entry_t *out)
{
    if (!l || i < 0 || i >= l->capacity) {
        errno = EINVAL;
        return -1;
    }
    const struct record *r = &l->rec[i];
    if (state_of (r) != USED)
        return 0;
    if (out) {
        owner_of (r, &out->owner);
        out->task = r->task;
        out->level = (ns_ctlevel_t)r->level;
        out->cache = r->cache;
        out->bytes = r->bytes;
    }
    return 1;
}

/*
 * Updating
 */

int ns_ledger_add (ns_ledger_t *l, const ns_ledger_entry_t *e,
                   ns_error_t *err)
{
    if (!l || !e)
        return ns_error_set (err, EINVAL, "no ledger or record");
    if (!valid_level (e->level) || e->task < 0 || e->cache < 0)
        return ns_error_set (err, EINVAL, "bad ledger record: level %d, "
                             "cache %d, task %d", (int)e->level, e->cache,
                             e->task);
    for (int i = 0; i < l->capacity; i++) {
        struct record *r = &l->rec[i];
        if (state_of (r) != FREE)
            continue;
        r->jobid = e->owner.jobid;
        r->stepid = e->owner.stepid;
        r->task = e->task;
        r->pid = e->owner.pid;
        r->pid_start = e->owner.pid_start;
        r->bytes = e->bytes;
        r->level = (int32_t)e->level;
        r->cache = e->cache;
        r->seal = record_seal (r);
        set_state (r, USED);
        return 0;
    }
    return ns_error_set (err, ENOSPC, "the node's ledger is full (%d "
                         "records)", l->capacity);
}

int ns_ledger_remove (ns_ledger_t *l, const ns_ledger_owner_t *owner,
                      int task)
{
    int n = 0;
    for (int i = 0; l && owner && i < l->capacity; i++) {
        struct record *r = &l->rec[i];
        if (state_of (r) == USED && same_owner (r, owner)
            && (task < 0 || r->task == task)) {
            set_state (r, FREE);
            n++;
        }
    }
    return n;
}

/* alive() verdicts for the owners seen so far in one reclaim pass.  A
 * small cache: owners beyond it are just asked again. */
#define VERDICTS 64

struct verdicts {
    ns_ledger_owner_t owner[VERDICTS];
    int alive[VERDICTS];
    int n, next;
};

static int ask (struct verdicts *v, const ns_ledger_owner_t *o,
                ns_ledger_alive_f alive, void *arg)
{
    for (int i = 0; i < v->n; i++)
        if (memcmp (&v->owner[i], o, sizeof (*o)) == 0)
            return v->alive[i];
    int verdict = alive (o, arg) != 0;
    int slot = v->n < VERDICTS ? v->n++ : (v->next++ % VERDICTS);
    v->owner[slot] = *o;
    v->alive[slot] = verdict;
    return verdict;
}

int ns_ledger_reclaim (ns_ledger_t *l, ns_ledger_alive_f alive, void *arg)
{
    if (!l || !alive)
        return 0;
    struct verdicts *v = calloc (1, sizeof (*v));
    if (!v)
        return 0;   /* nothing reclaimed this time; harmless */
    int n = 0;
    for (int i = 0; i < l->capacity; i++) {
        struct record *r = &l->rec[i];
        ns_ledger_owner_t o;
        if (state_of (r) != USED)
            continue;
        owner_of (r, &o);
        if (!ask (v, &o, alive, arg)) {
            set_state (r, FREE);
            n++;
        }
    }
    free (v);
    return n;
}

int ns_ledger_repair (ns_ledger_t *l)
{
    int n = 0;
    for (int i = 0; l && i < l->capacity; i++) {
        struct record *r = &l->rec[i];
        uint32_t s = state_of (r);
        if (s == FREE)
            continue;
        if (s != USED || !well_formed (r)) {
            set_state (r, FREE);
            n++;
        }
    }
    return n;
}

/*
 * Occupancy and placement
 */

struct load {
    int level;
    int cache;
    uint64_t bytes;
};

static int load_cmp (const void *a, const void *b)
{
    const struct load *x = a, *y = b;
    if (x->level != y->level)
        return x->level < y->level ? -1 : 1;
    return x->cache < y->cache ? -1 : x->cache > y->cache;
}

static uint64_t clamp_bytes (uint64_t bytes)
{
    return bytes < NS_LEDGER_MAX_BYTES ? bytes : NS_LEDGER_MAX_BYTES;
}

/* The well-formed records not owned by skip, one per (level, cache) with
 * summed bytes, each at most NS_LEDGER_MAX_BYTES.  A malformed record (a
 * level no tree has, a broken seal) is left out: it must not make every
 * placement on the node fail; ns_ledger_repair() drops it.  Returns how
 * many, or -1 (ENOMEM). */
static int sum_loads (const ns_ledger_t *l, const ns_ledger_owner_t *skip,
                      struct load **out, ns_error_t *err)
{
    int n = 0, m = 0;
    struct load *v = malloc ((size_t)l->capacity * sizeof (*v));
    if (!v)
        return ns_error_set (err, ENOMEM, "out of memory");
    for (int i = 0; i < l->capacity; i++) {
        const struct record *r = &l->rec[i];
        if (state_of (r) != USED || (skip && same_owner (r, skip))
            || !well_formed (r))
            continue;
        v[n++] = (struct load){ r->level, r->cache, clamp_bytes (r->bytes) };
    }
    qsort (v, n, sizeof (*v), load_cmp);
    for (int i = 0; i < n; i++) {
        if (m > 0 && load_cmp (&v[m - 1], &v[i]) == 0)
            v[m - 1].bytes = clamp_bytes (v[m - 1].bytes + v[i].bytes);
        else
            v[m++] = v[i];
    }
    *out = v;
    return m;
}

int ns_ledger_occupy (const ns_ledger_t *l, ns_cachetree_t *t,
                      const ns_ledger_owner_t *skip, ns_error_t *err)
{
    if (!l || !t)
        return ns_error_set (err, EINVAL, "no ledger or tree");
    struct load *v = NULL;
    int n = sum_loads (l, skip, &v, err);
    int calls = 0;
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        if (ns_cachetree_occupy (t, (ns_ctlevel_t)v[i].level, v[i].cache,
                                 v[i].bytes, err) >= 0)
            calls++;
        else if (errno != ENOENT) {
            int saved = errno;
            free (v);
            errno = saved;
            return -1;
        }
    }
    free (v);
    return calls;
}

static int duplicate_task (const ns_ledger_task_t *tasks, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (tasks[i].task == tasks[j].task)
                return tasks[i].task;
    return -1;
}

int ns_ledger_place (ns_ledger_t *l, ns_cachetree_t *t,
                     const ns_ledger_owner_t *owner,
                     const ns_ledger_task_t *tasks, int n, double sigma,
                     ns_ctplace_t *out, ns_error_t *err)
{
    if (!l || !t || !owner || n < 0 || (n > 0 && (!tasks || !out)))
        return ns_error_set (err, EINVAL, "no ledger, tree, owner or tasks");
    int dup = duplicate_task (tasks, n);
    if (dup >= 0)
        return ns_error_set (err, EINVAL, "task %d given twice", dup);
    ns_ledger_remove (l, owner, -1);
    if (ns_ledger_occupy (l, t, owner, err) < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        if (tasks[i].task < 0) {
            ns_error_set (err, EINVAL, "negative task id %d", tasks[i].task);
            goto error;
        }
        if (ns_cachetree_place (t, clamp_bytes (tasks[i].footprint),
                                tasks[i].origin, sigma, &out[i], err) < 0)
            goto error;
        if (tasks[i].footprint == 0)
            continue;   /* holds nothing: nothing for others to see */
        ns_ledger_entry_t e = {
            .owner = *owner,
            .task = tasks[i].task,
            .level = out[i].level,
            .cache = out[i].cache,
            .bytes = tasks[i].footprint,
        };
        if (ns_ledger_add (l, &e, err) < 0)
            goto error;
    }
    return 0;
error: {
        int saved = errno;
        ns_ledger_remove (l, owner, -1);
        errno = saved;
        return -1;
    }
}

int ns_ledger_check (const ns_ledger_t *l, ns_error_t *err)
{
    if (!l)
        return ns_error_set (err, EINVAL, "no ledger");
    for (int i = 0; i < l->capacity; i++) {
        const struct record *r = &l->rec[i];
        uint32_t s = state_of (r);
        if (s == FREE)
            continue;
        if (s != USED)
            return ns_error_set (err, EPROTO, "slot %d: bad state %#x", i,
                                 (unsigned)s);
        if (!well_formed (r))
            return ns_error_set (err, EPROTO, "slot %d: record not sealed "
                                 "or malformed", i);
        for (int j = 0; j < i; j++) {
            const struct record *q = &l->rec[j];
            ns_ledger_owner_t o;
            owner_of (q, &o);
            if (state_of (q) == USED && same_owner (r, &o)
                && q->task == r->task)
                return ns_error_set (err, EPROTO, "slots %d and %d: job %u "
                                     "step %u task %d recorded twice", j, i,
                                     (unsigned)r->jobid,
                                     (unsigned)r->stepid, (int)r->task);
        }
    }
    return 0;
}

/*
 * Helpers
 */

int ns_ledger_origin (int task, int cpus_per_task, int threads_per_core,
                      int ncores)
{
    if (task < 0 || ncores < 1) {
        errno = EINVAL;
        return -1;
    }
    long long cpt = cpus_per_task < 1 ? 1 : cpus_per_task;
    long long tpc = threads_per_core < 1 ? 1 : threads_per_core;
    long long block = (cpt + tpc - 1) / tpc;
    return (int)(((long long)task * block) % ncores);
}

static int named_type (hwloc_obj_type_t type)
{
    switch (type) {
    case HWLOC_OBJ_PACKAGE:
    case HWLOC_OBJ_L1CACHE:
    case HWLOC_OBJ_L2CACHE:
    case HWLOC_OBJ_L3CACHE:
    case HWLOC_OBJ_CORE:
    case HWLOC_OBJ_PU:
        return 1;
    default:
        return 0;
    }
}

uint64_t ns_ledger_topology_id (hwloc_topology_t topo)
{
    uint64_t h = HASH_INIT;
    int depth = hwloc_topology_get_depth (topo);
    for (int d = 0; d < depth; d++) {
        hwloc_obj_t o = NULL;
        while ((o = hwloc_get_next_obj_by_depth (topo, d, o))) {
            if (!named_type (o->type))
                continue;
            h = mix (h, (uint64_t)o->type);
            h = mix (h, o->logical_index);
            h = mix (h, o->os_index);
            if (hwloc_obj_type_is_cache (o->type))
                h = mix (h, o->attr->cache.size);
            h = mix (h, (uint64_t)(int64_t)hwloc_bitmap_first (o->cpuset));
            h = mix (h, (uint64_t)(int64_t)hwloc_bitmap_last (o->cpuset));
            h = mix (h, (uint64_t)(int64_t)hwloc_bitmap_weight (o->cpuset));
        }
    }
    return h == NS_LEDGER_ANY_TOPOLOGY ? 1 : h;
}
