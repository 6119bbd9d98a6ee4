/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cachetree.c - space-bounded cache tree (design.md section 6)
 *
 * Nodes live in one array in preorder; nodes[0] is the machine.  Each
 * level also lists its nodes in preorder, which is hwloc's logical order,
 * so the nodes of a level under any node X form one contiguous slice of
 * that list, remembered in X->lo[] / X->hi[].  "Nearest first" is then a
 * walk up the ancestors of the origin's cache, scanning each ancestor's
 * slice minus the slice already seen: no allocation and no sorting on the
 * placement path.
 *
 * Tasks sit in a slot array; a slot's id is its position, the lowest free
 * slot is reused first.  Each task records what the walk saw, so that
 * explain() can tell the story after the tree has moved on.
 *
 * Loading the topology the tree is built over is topology.c; the check
 * of XML files before hwloc reads them, hwlocxml.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cachetree.h"
#include "cachetree_test.h"
#include "nsranges.h"
#include "nsutil.h"

struct ctnode {
    int level;
    int index;              /* hwloc logical index; 0 for the machine */
    int parent;             /* node id; -1 for the machine */
    int pos;                /* position in its level's list */
    uint64_t size;
    uint64_t occupied;
    int anchored;
    int running;
    int lo[NS_CT_NLEVELS];  /* its level-L descendants (itself included) */
    int hi[NS_CT_NLEVELS];  /* are level L's list[lo[L] .. hi[L] - 1] */
    hwloc_cpuset_t cpus;
};

struct task {
    int anchor;             /* node id; -1 marks a free slot */
    int core;               /* node id of the core it runs on, or -1 */
    int origin;             /* node id of the origin core, or -1 */
    uint64_t size;
    double sigma;
    /* What the walk saw, for explain(). */
    uint64_t anchor_used;               /* anchor's occupancy before */
    uint64_t own_used[NS_CT_NLEVELS];   /* origin's cache, when refused */
    int refused[NS_CT_NLEVELS];         /* other caches tried in vain */
};

struct ns_cachetree {
    struct ctnode *nodes;
    int nnodes;
    int *list[NS_CT_NLEVELS];     /* node ids per level, logical order */
    int nlist[NS_CT_NLEVELS];
    int *byindex[NS_CT_NLEVELS];  /* logical index -> node id, or -1 */
    int nindex[NS_CT_NLEVELS];    /* objects at that depth in the topology */
    int depth[NS_CT_NLEVELS];     /* hwloc depth of each level; -1: none */

    struct task *tasks;
    int cap;                      /* slots allocated */
    int nslots;                   /* slots ever used (high-water mark) */
    int lowfree;                  /* every slot below it is taken */
    int ntasks;
};

static const char *level_names[NS_CT_NLEVELS] = {
    "core", "L1", "L2", "L3", "package", "machine",
};

static int valid_level (int level)
{
    return level >= 0 && level < NS_CT_NLEVELS;
}

const char *ns_cachetree_level_name (ns_ctlevel_t level)
{
    return valid_level (level) ? level_names[level] : "?";
}

int ns_cachetree_level_parse (const char *name)
{
    for (int l = 0; name && l < NS_CT_NLEVELS; l++)
        if (strcasecmp (name, level_names[l]) == 0)
            return l;
    errno = EINVAL;
    return -1;
}

const char *ns_cachetree_size_str (uint64_t bytes, char *buf, size_t len)
{
    static const char units[] = "KMGTPE";
    int u = -1;
    while (u + 1 < 6 && bytes >> (10 * (u + 2)) > 0)
        u++;
    if (bytes == 0)
        snprintf (buf, len, "0");
    else if (u < 0)
        snprintf (buf, len, "%lluB", (unsigned long long)bytes);
    else if (bytes % (1ULL << (10 * (u + 1))) == 0)
        snprintf (buf, len, "%llu%c",
                  (unsigned long long)(bytes >> (10 * (u + 1))), units[u]);
    else {
        double v = (double)bytes / (double)(1ULL << (10 * (u + 1)));
        /* 1023.97K would print as "1024.0K": say "1.0M" instead. */
        if (v >= 1023.95 && u < 5) {
            v /= 1024;
            u++;
        }
        snprintf (buf, len, "%.1f%c", v, units[u]);
    }
    return buf;
}

/* Which tree level an hwloc object is, or -1 to look through it: the
 * objects at the depth chosen for a level (level_depths()).  The root,
 * and only the root, is the machine. */
static int obj_level (const ns_cachetree_t *t, hwloc_obj_t o)
{
    if (!o->parent)
        return NS_CT_MACHINE;
    for (int l = 0; l < NS_CT_MACHINE; l++)
        if (t->depth[l] >= 0 && (int)o->depth == t->depth[l])
            return l;
    return -1;
}

static hwloc_obj_type_t level_type (int level)
{
    static const hwloc_obj_type_t types[NS_CT_NLEVELS] = {
        HWLOC_OBJ_CORE, HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE,
        HWLOC_OBJ_L3CACHE, HWLOC_OBJ_PACKAGE, HWLOC_OBJ_MACHINE,
    };
    return types[level];
}

static int is_cache (int level)
{
    return level >= NS_CT_L1 && level <= NS_CT_L3;
}

/* The hwloc depth of each level: the deepest one holding objects of its
 * type.  hwloc may put caches of one level at several depths (a unified
 * L1 above an L1d) and numbers each depth on its own, so a level takes
 * one depth, nearest the cores, and the others are looked through: names
 * (level, logical index) stay unique.  Instruction caches have their own
 * type (HWLOC_OBJ_L1ICACHE), so HWLOC_OBJ_L1CACHE is data or unified.
 * Cores at several depths are refused. */
static int level_depths (ns_cachetree_t *t, hwloc_topology_t topo,
                         ns_error_t *err)
{
    int depth = hwloc_topology_get_depth (topo);
    for (int l = 0; l < NS_CT_NLEVELS; l++)
        t->depth[l] = -1;
    for (int d = 1; d < depth; d++)
        for (int l = 0; l < NS_CT_MACHINE; l++) {
            if (hwloc_get_depth_type (topo, d) != level_type (l))
                continue;
            if (l == NS_CT_CORE && t->depth[l] >= 0)
                return ns_error_set (err, EINVAL, "the topology has cores at "
                                     "several depths (%d and %d)",
                                     t->depth[l], d);
            t->depth[l] = d;
        }
    t->depth[NS_CT_MACHINE] = 0;
    return 0;
}

/*
 * Building
 */

/* Count the tree nodes per level under o (o included) and return the
 * number of the tree's cores under it.  A core is in the tree iff it has
 * a PU in `set`; any other object iff a core of the tree is under it.
 * Cpusets do not decide that: a well-formed XML file may give a cache a
 * cpuset that overlaps selected cores it does not hold.  `cover` (every
 * PU of the selected cores) only prunes subtrees that cannot hold one.
 * Normal children only: NUMA nodes and memory-side caches are memory
 * children and never seen. */
static int count_nodes (ns_cachetree_t *t, hwloc_obj_t o,
                        hwloc_const_cpuset_t cover, hwloc_const_cpuset_t set)
{
    if (!hwloc_bitmap_intersects (o->cpuset, cover))
        return 0;
    int level = obj_level (t, o);
    int *nlist = t->nlist;
    if (level == NS_CT_CORE) {
        int in = hwloc_bitmap_intersects (o->cpuset, set);
        nlist[level] += in;
        return in;
    }
    int cores = 0;
    for (unsigned i = 0; i < o->arity; i++)
        cores += count_nodes (t, o->children[i], cover, set);
    if (level >= 0 && cores > 0)
        nlist[level]++;
    return cores;
}

struct build {
    ns_cachetree_t *t;
    hwloc_const_cpuset_t cover;
    hwloc_const_cpuset_t set;
    int next;                     /* next free node id */
    int fill[NS_CT_NLEVELS];      /* next free position per level */
};

/* A core's cpus are its PUs in set; every other node's are the union of
 * its cores' (gather_cpus()). */
static int add_node (struct build *b, hwloc_obj_t o, int level, int parent)
{
    ns_cachetree_t *t = b->t;
    int id = b->next++;
    struct ctnode *n = &t->nodes[id];
    n->level = level;
    n->index = level == NS_CT_MACHINE ? 0 : (int)o->logical_index;
    n->parent = parent;
    if (is_cache (level))
        n->size = o->attr->cache.size;
    else if (level == NS_CT_MACHINE)
        n->size = NS_CT_UNBOUNDED;
    if (!(n->cpus = hwloc_bitmap_alloc ()))
        return -1;
    if (level == NS_CT_CORE)
        hwloc_bitmap_and (n->cpus, o->cpuset, b->set);
    n->pos = b->fill[level];
    t->list[level][b->fill[level]++] = id;
    if (n->index < t->nindex[level])
        t->byindex[level][n->index] = id;
    return id;
}

/* Whether a core of the tree is under o (o included), as count_nodes()
 * decides it; stops at the first. */
static int holds_core (const ns_cachetree_t *t, hwloc_obj_t o,
                       hwloc_const_cpuset_t cover, hwloc_const_cpuset_t set)
{
    if (!hwloc_bitmap_intersects (o->cpuset, cover))
        return 0;
    if (obj_level (t, o) == NS_CT_CORE)
        return hwloc_bitmap_intersects (o->cpuset, set);
    for (unsigned i = 0; i < o->arity; i++)
        if (holds_core (t, o->children[i], cover, set))
            return 1;
    return 0;
}

/* Preorder fill mirroring count_nodes().  A node's slices open before it
 * is listed and close after its subtree. */
static int fill_nodes (struct build *b, hwloc_obj_t o, int parent)
{
    if (!holds_core (b->t, o, b->cover, b->set))
        return 0;
    int level = obj_level (b->t, o);
    int id = -1;
    int lo[NS_CT_NLEVELS];
    memcpy (lo, b->fill, sizeof (lo));
    if (level >= 0) {
        if ((id = add_node (b, o, level, parent)) < 0)
            return -1;
        parent = id;
    }
    if (level != NS_CT_CORE)
        for (unsigned i = 0; i < o->arity; i++)
            if (fill_nodes (b, o->children[i], parent) < 0)
                return -1;
    if (id >= 0) {
        memcpy (b->t->nodes[id].lo, lo, sizeof (lo));
        memcpy (b->t->nodes[id].hi, b->fill, sizeof (lo));
    }
    return 0;
}

/* A node's cpus are its cores' cpus.  Children come after their parent in
 * preorder, so one backward pass gathers them bottom-up. */
static void gather_cpus (ns_cachetree_t *t)
{
    for (int id = t->nnodes - 1; id > 0; id--)
        hwloc_bitmap_or (t->nodes[t->nodes[id].parent].cpus,
                         t->nodes[t->nodes[id].parent].cpus,
                         t->nodes[id].cpus);
}

/* A package holds what the topmost caches under it hold.  Children come
 * after their parent in preorder, so one backward pass sums bottom-up. */
static int size_packages (ns_cachetree_t *t)
{
    uint64_t *held = calloc (t->nnodes, sizeof (*held));
    if (!held)
        return -1;
    for (int id = t->nnodes - 1; id > 0; id--) {
        struct ctnode *n = &t->nodes[id];
        if (n->level == NS_CT_PACKAGE)
            n->size = held[id];
        uint64_t h = is_cache (n->level) ? n->size : held[id];
        uint64_t *p = &held[n->parent];
        *p = *p > UINT64_MAX - h ? UINT64_MAX : *p + h;
    }
    free (held);
    return 0;
}

static int alloc_levels (ns_cachetree_t *t, hwloc_topology_t topo)
{
    for (int l = 0; l < NS_CT_NLEVELS; l++) {
        int n = l == NS_CT_MACHINE ? 1
              : t->depth[l] < 0 ? 0
              : hwloc_get_nbobjs_by_depth (topo, t->depth[l]);
        t->nindex[l] = n > 0 ? n : 0;
        t->list[l] = malloc (sizeof (int) * (t->nlist[l] + 1));
        t->byindex[l] = malloc (sizeof (int) * (t->nindex[l] + 1));
        if (!t->list[l] || !t->byindex[l])
            return -1;
        for (int i = 0; i < t->nindex[l]; i++)
            t->byindex[l][i] = -1;
    }
    return 0;
}

/* The PUs of the cores that have a PU in set. */
static hwloc_cpuset_t core_cover (hwloc_topology_t topo,
                                  hwloc_const_cpuset_t set)
{
    hwloc_cpuset_t cover = hwloc_bitmap_alloc ();
    hwloc_obj_t core = NULL;
    if (!cover)
        return NULL;
    while ((core = hwloc_get_next_obj_by_type (topo, HWLOC_OBJ_CORE, core)))
        if (hwloc_bitmap_intersects (core->cpuset, set))
            hwloc_bitmap_or (cover, cover, core->cpuset);
    return cover;
}

ns_cachetree_t *ns_cachetree_from_topology (hwloc_topology_t topo,
                                            hwloc_const_cpuset_t cpuset,
                                            ns_error_t *err)
{
    ns_cachetree_t *t = NULL;
    hwloc_cpuset_t cover = NULL;
    if (!topo) {
        ns_error_set (err, EINVAL, "no topology given");
        return NULL;
    }
    hwloc_obj_t root = hwloc_get_root_obj (topo);
    if (hwloc_get_nbobjs_by_type (topo, HWLOC_OBJ_CORE) == 0) {
        ns_error_set (err, EINVAL, "the topology has no cores");
        return NULL;
    }
    if (!cpuset)
        cpuset = root->cpuset;
    if (!(cover = core_cover (topo, cpuset)) || !(t = calloc (1, sizeof (*t))))
        goto nomem;
    if (hwloc_bitmap_iszero (cover)) {
        ns_error_set (err, EINVAL, "the cpuset selects no core");
        goto error;
    }
    if (level_depths (t, topo, err) < 0)
        goto error;
    if (count_nodes (t, root, cover, cpuset) == 0) {
        ns_error_set (err, EINVAL, "the cpuset selects no core");
        goto error;
    }
    t->nlist[NS_CT_MACHINE] = 1;
    for (int l = 0; l < NS_CT_NLEVELS; l++)
        t->nnodes += t->nlist[l];
    if (!(t->nodes = calloc (t->nnodes, sizeof (*t->nodes)))
        || alloc_levels (t, topo) < 0)
        goto nomem;
    struct build b = { .t = t, .cover = cover, .set = cpuset };
    if (fill_nodes (&b, root, -1) < 0 || size_packages (t) < 0)
        goto nomem;
    gather_cpus (t);
    hwloc_bitmap_free (cover);
    return t;
nomem:
    ns_error_set (err, ENOMEM, "out of memory building the cache tree");
error:
    hwloc_bitmap_free (cover);
    ns_cachetree_destroy (t);
    return NULL;
}

void ns_cachetree_destroy (ns_cachetree_t *t)
{
    if (!t)
        return;
    int saved = errno;
    for (int i = 0; t->nodes && i < t->nnodes; i++)
        hwloc_bitmap_free (t->nodes[i].cpus);
    for (int l = 0; l < NS_CT_NLEVELS; l++) {
        free (t->list[l]);
        free (t->byindex[l]);
    }
    free (t->nodes);
    free (t->tasks);
    free (t);
    errno = saved;
}

/*
 * Queries
 */

/* Node id of (level, logical index), or -1. */
static int find_node (const ns_cachetree_t *t, int level, int index)
{
    if (!t || !valid_level (level) || index < 0 || index >= t->nindex[level])
        return -1;
    return t->byindex[level][index];
}

int ns_cachetree_count (const ns_cachetree_t *t, ns_ctlevel_t level)
{
    return t && valid_level (level) ? t->nlist[level] : 0;
}

int ns_cachetree_index (const ns_cachetree_t *t, ns_ctlevel_t level, int i)
{
    if (!t || !valid_level (level) || i < 0 || i >= t->nlist[level]) {
        errno = EINVAL;
        return -1;
    }
    return t->nodes[t->list[level][i]].index;
}

int ns_cachetree_topology_cores (const ns_cachetree_t *t)
{
    return t ? t->nindex[NS_CT_CORE] : 0;
}

int ns_cachetree_ntasks (const ns_cachetree_t *t)
{
    return t ? t->ntasks : 0;
}

int ns_cachetree_info (const ns_cachetree_t *t, ns_ctlevel_t level,
                       int index, ns_ctinfo_t *info)
{
    if (!t || !valid_level (level) || !info) {
        errno = EINVAL;
        return -1;
    }
    int id = find_node (t, level, index);
    if (id < 0) {
        errno = ENOENT;
        return -1;
    }
    const struct ctnode *n = &t->nodes[id];
    info->size = n->size;
    info->occupied = n->occupied;
    info->anchored = n->anchored;
    info->running = n->running;
    info->cpus = n->cpus;
    return 0;
}

static const struct task *live_task (const ns_cachetree_t *t, int task)
{
    if (!t || task < 0 || task >= t->nslots || t->tasks[task].anchor < 0)
        return NULL;
    return &t->tasks[task];
}

static void fill_place (const ns_cachetree_t *t, int id, ns_ctplace_t *out)
{
    const struct task *tk = &t->tasks[id];
    const struct ctnode *a = &t->nodes[tk->anchor];
    out->task = id;
    out->level = a->level;
    out->cache = a->index;
    out->core = tk->core >= 0 ? t->nodes[tk->core].index : -1;
    out->cpus = a->cpus;
}

int ns_cachetree_task (const ns_cachetree_t *t, int task, ns_ctplace_t *out)
{
    if (!live_task (t, task)) {
        errno = ENOENT;
        return -1;
    }
    if (out)
        fill_place (t, task, out);
    return 0;
}

/*
 * Placing
 */

static int fits (const struct ctnode *n, uint64_t s, double sigma)
{
    return n->level == NS_CT_MACHINE || (double)s <= sigma * (double)n->size;
}

static int has_room (const struct ctnode *n, uint64_t s)
{
    return n->level == NS_CT_MACHINE
           || (n->occupied <= n->size && s <= n->size - n->occupied);
}

static int takes (const struct ctnode *n, uint64_t s, double sigma)
{
    return fits (n, s, sigma) && has_room (n, s);
}

/* The caches of own's level nearest to own that take the task: those under
 * own's parent, then under its grandparent, ...  Each ring is the
 * ancestor's slice minus the slice already scanned, in logical order. */
static int nearest_peer (const ns_cachetree_t *t, int own, uint64_t s,
                         double sigma, int *refused)
{
    int level = t->nodes[own].level;
    const int *list = t->list[level];
    int lo = t->nodes[own].pos, hi = lo + 1;
    for (int p = t->nodes[own].parent; p >= 0; p = t->nodes[p].parent) {
        int plo = t->nodes[p].lo[level], phi = t->nodes[p].hi[level];
        for (int i = plo; i < phi; i++) {
            if (i == lo) {
                i = hi - 1;     /* skip the slice seen already */
                continue;
            }
            if (takes (&t->nodes[list[i]], s, sigma))
                return list[i];
            (*refused)++;
        }
        lo = plo;
        hi = phi;
    }
    return -1;
}

/* Steps 1 and 2: walk up from the origin's lowest cache. */
static int choose_anchor (const ns_cachetree_t *t, int origin, uint64_t s,
                          double sigma, struct task *tk)
{
    for (int a = t->nodes[origin].parent; a > 0; a = t->nodes[a].parent) {
        const struct ctnode *own = &t->nodes[a];
        if (!fits (own, s, sigma))
            continue;
        if (has_room (own, s))
            return a;
        tk->own_used[own->level] = own->occupied;
        int peer = nearest_peer (t, a, s, sigma, &tk->refused[own->level]);
        if (peer >= 0)
            return peer;
    }
    return 0;   /* the machine: main memory always has room */
}

/* Step 3: the origin if it is under the anchor, else the core under it
 * running the fewest tasks, lowest logical index first. */
static int choose_core (const ns_cachetree_t *t, int anchor, int origin)
{
    const struct ctnode *a = &t->nodes[anchor];
    const int *cores = t->list[NS_CT_CORE];
    int pos = t->nodes[origin].pos;
    if (pos >= a->lo[NS_CT_CORE] && pos < a->hi[NS_CT_CORE])
        return origin;
    int best = cores[a->lo[NS_CT_CORE]];
    for (int i = a->lo[NS_CT_CORE] + 1; i < a->hi[NS_CT_CORE]; i++)
        if (t->nodes[cores[i]].running < t->nodes[best].running)
            best = cores[i];
    return best;
}

/* A free slot (the lowest), growing the array if needed; nothing is marked
 * taken until commit(). */
static int free_slot (ns_cachetree_t *t, ns_error_t *err)
{
    int id = t->lowfree;
    while (id < t->nslots && t->tasks[id].anchor >= 0)
        id++;
    if (id < t->cap)
        return id;
    if (t->cap >= NS_CACHETREE_MAX_TASKS)
        return ns_error_set (err, ENOSPC, "too many tasks (at most %d)",
                             NS_CACHETREE_MAX_TASKS);
    if (ns_grow (&t->tasks, &t->cap, t->cap + 1, sizeof (*t->tasks), 64) < 0)
        return ns_error_set (err, ENOMEM, "out of memory for %d tasks",
                             2 * t->cap);
    return id;
}

/* Admission checks shared by place() and occupy(): returns a free slot. */
static int prepare (ns_cachetree_t *t, uint64_t s, ns_error_t *err)
{
    if (t->nodes[0].occupied > UINT64_MAX - s)
        return ns_error_set (err, EOVERFLOW,
                             "footprint %llu would overflow the machine's "
                             "occupancy", (unsigned long long)s);
    return free_slot (t, err);
}

static void commit (ns_cachetree_t *t, int id, struct task *tk)
{
    tk->anchor_used = t->nodes[tk->anchor].occupied;
    for (int n = tk->anchor; n >= 0; n = t->nodes[n].parent)
        t->nodes[n].occupied += tk->size;
    t->nodes[tk->anchor].anchored++;
    if (tk->core >= 0)
        t->nodes[tk->core].running++;
    t->tasks[id] = *tk;
    if (id == t->nslots)
        t->nslots++;
    t->lowfree = id + 1;
    t->ntasks++;
}

static void list_cores (const ns_cachetree_t *t, char *buf, size_t len)
{
    hwloc_bitmap_t ids = hwloc_bitmap_alloc ();
    for (int i = 0; ids && i < t->nlist[NS_CT_CORE]; i++)
        hwloc_bitmap_set (ids, t->nodes[t->list[NS_CT_CORE][i]].index);
    if (!ids || hwloc_bitmap_list_snprintf (buf, len, ids) < 0)
        snprintf (buf, len, "?");
    hwloc_bitmap_free (ids);
}

static int origin_node (const ns_cachetree_t *t, int core, ns_error_t *err)
{
    char cores[128];
    int n = t->nindex[NS_CT_CORE];
    if (core < 0 || core >= n)
        return ns_error_set (err, EINVAL,
                             "core %d out of range: the topology has %d cores "
                             "(0-%d)", core, n, n - 1);
    int id = find_node (t, NS_CT_CORE, core);
    if (id < 0) {
        list_cores (t, cores, sizeof (cores));
        return ns_error_set (err, EINVAL,
                             "core %d is not among the tree's cores %s",
                             core, cores);
    }
    return id;
}

int ns_cachetree_place (ns_cachetree_t *t, uint64_t footprint,
                        int origin_core, double sigma, ns_ctplace_t *out,
                        ns_error_t *err)
{
    if (!t)
        return ns_error_set (err, EINVAL, "no cache tree");
    if (!ns_sigma_ok (sigma))
        return ns_error_set (err, EINVAL, "sigma %g out of range "
                             NS_SIGMA_RANGE, sigma);
    int origin = origin_node (t, origin_core, err);
    if (origin < 0)
        return -1;
    int id = prepare (t, footprint, err);
    if (id < 0)
        return -1;
    struct task tk = {
        .origin = origin,
        .size = footprint,
        .sigma = sigma,
    };
    tk.anchor = choose_anchor (t, origin, footprint, sigma, &tk);
    tk.core = choose_core (t, tk.anchor, origin);
    commit (t, id, &tk);
    if (out)
        fill_place (t, id, out);
    return id;
}

int ns_cachetree_occupy (ns_cachetree_t *t, ns_ctlevel_t level, int cache,
                         uint64_t bytes, ns_error_t *err)
{
    if (!t)
        return ns_error_set (err, EINVAL, "no cache tree");
    if (!valid_level (level) || level == NS_CT_CORE)
        return ns_error_set (err, EINVAL,
                             "cannot occupy level %d: only caches, packages "
                             "and the machine hold footprints", (int)level);
    int node = find_node (t, level, cache);
    if (node < 0)
        return ns_error_set (err, ENOENT, "%s #%d is not in the tree",
                             level_names[level], cache);
    int id = prepare (t, bytes, err);
    if (id < 0)
        return -1;
    struct task tk = {
        .anchor = node,
        .core = -1,
        .origin = -1,
        .size = bytes,
    };
    commit (t, id, &tk);
    return id;
}

int ns_cachetree_release (ns_cachetree_t *t, int task, ns_error_t *err)
{
    if (!live_task (t, task))
        return ns_error_set (err, ENOENT, "task %d is not in the tree", task);
    struct task *tk = &t->tasks[task];
    for (int n = tk->anchor; n >= 0; n = t->nodes[n].parent)
        t->nodes[n].occupied -= tk->size;
    t->nodes[tk->anchor].anchored--;
    if (tk->core >= 0)
        t->nodes[tk->core].running--;
    tk->anchor = -1;
    if (task < t->lowfree)
        t->lowfree = task;
    t->ntasks--;
    return 0;
}

/*
 * Explaining
 */

static void sb_node (ns_sbuf_t *sb, const struct ctnode *n)
{
    if (n->level == NS_CT_MACHINE)
        ns_sbuf_printf (sb, "the machine");
    else
        ns_sbuf_printf (sb, "%s #%d", level_names[n->level], n->index);
}

static void sb_used (ns_sbuf_t *sb, uint64_t used, uint64_t size)
{
    char u[32], s[32];
    ns_sbuf_printf (sb, "%s of %s used",
               ns_cachetree_size_str (used, u, sizeof (u)),
               ns_cachetree_size_str (size, s, sizeof (s)));
}

/* A level the walk went through without anchoring. */
static void explain_passed (ns_sbuf_t *sb, const ns_cachetree_t *t,
                            const struct task *tk, const struct ctnode *own)
{
    char s[32];
    if (!fits (own, tk->size, tk->sigma)) {
        ns_sbuf_printf (sb, "too big for ");
        sb_node (sb, own);
        ns_sbuf_printf (sb, " (%s); ", ns_cachetree_size_str (own->size, s,
                                                         sizeof (s)));
        return;
    }
    sb_node (sb, own);
    ns_sbuf_printf (sb, " full (");
    sb_used (sb, tk->own_used[own->level], own->size);
    if (tk->refused[own->level] == 0)
        ns_sbuf_printf (sb, "), the only %s; ", level_names[own->level]);
    else
        ns_sbuf_printf (sb, ") and %d other %s without room; ",
                   tk->refused[own->level], level_names[own->level]);
}

/* The level it anchored at; own is the origin's cache at that level. */
static void explain_anchor (ns_sbuf_t *sb, const ns_cachetree_t *t,
                            const struct task *tk, const struct ctnode *own)
{
    const struct ctnode *a = &t->nodes[tk->anchor];
    if (a->level == NS_CT_MACHINE) {
        ns_sbuf_printf (sb, "anchored at the machine (main memory)");
        return;
    }
    if (a == own) {
        ns_sbuf_printf (sb, "anchored at its own ");
        sb_node (sb, a);
        ns_sbuf_printf (sb, " (");
        sb_used (sb, tk->anchor_used, a->size);
        ns_sbuf_printf (sb, ")");
        return;
    }
    sb_node (sb, own);
    ns_sbuf_printf (sb, " full (");
    sb_used (sb, tk->own_used[own->level], own->size);
    ns_sbuf_printf (sb, "); anchored at ");
    sb_node (sb, a);
    ns_sbuf_printf (sb, " (");
    sb_used (sb, tk->anchor_used, a->size);
    ns_sbuf_printf (sb, "), the nearest other %s with room",
               level_names[a->level]);
    if (tk->refused[a->level] > 0)
        ns_sbuf_printf (sb, " after %d without", tk->refused[a->level]);
}

static void explain_core (ns_sbuf_t *sb, const ns_cachetree_t *t,
                          const struct task *tk)
{
    if (tk->core == tk->origin) {
        ns_sbuf_printf (sb, "; runs on its origin core");
        return;
    }
    ns_sbuf_printf (sb, "; runs on core %d, the least loaded under ",
               t->nodes[tk->core].index);
    sb_node (sb, &t->nodes[tk->anchor]);
}

int ns_cachetree_explain (const ns_cachetree_t *t, int task, char *buf,
                          size_t len)
{
    const struct task *tk = live_task (t, task);
    if (!tk) {
        errno = ENOENT;
        return -1;
    }
    ns_sbuf_t sb = { .buf = buf, .len = buf ? len : 0 };
    char s[32];
    if (len > 0 && buf)
        buf[0] = '\0';
    ns_sbuf_printf (&sb, "task %d: %s ", task,
               ns_cachetree_size_str (tk->size, s, sizeof (s)));
    if (tk->origin < 0) {
        ns_sbuf_printf (&sb, "occupied at ");
        sb_node (&sb, &t->nodes[tk->anchor]);
        ns_sbuf_printf (&sb, " from outside the tree");
        return (int)sb.used;
    }
    ns_sbuf_printf (&sb, "from core %d, sigma %g: ", t->nodes[tk->origin].index,
               tk->sigma);
    int level = t->nodes[tk->anchor].level;
    int a = t->nodes[tk->origin].parent;
    for (; t->nodes[a].level != level; a = t->nodes[a].parent)
        explain_passed (&sb, t, tk, &t->nodes[a]);
    explain_anchor (&sb, t, tk, &t->nodes[a]);
    explain_core (&sb, t, tk);
    return (int)sb.used;
}

/*
 * Checking
 */

static int check_structure (const ns_cachetree_t *t, ns_error_t *err)
{
    for (int l = 0; l < NS_CT_NLEVELS; l++)
        for (int i = 0; i < t->nlist[l]; i++) {
            const struct ctnode *n = &t->nodes[t->list[l][i]];
            if (n->level != l || n->pos != i
                || (i > 0 && t->nodes[t->list[l][i - 1]].index >= n->index))
                return ns_error_set (err, EPROTO,
                                     "%s list out of logical order at %d",
                                     level_names[l], i);
        }
    for (int lo = 0; lo < t->nslots && lo < t->lowfree; lo++)
        if (t->tasks[lo].anchor < 0)
            return ns_error_set (err, EPROTO, "free slot %d below %d", lo,
                                 t->lowfree);
    return 0;
}

/* Tasks' footprints summed up their paths, compared node by node. */
static int check_sums (const ns_cachetree_t *t, uint64_t *sum, int *anchored,
                       int *running, ns_error_t *err)
{
    int live = 0;
    for (int i = 0; i < t->nslots; i++) {
        const struct task *tk = &t->tasks[i];
        if (tk->anchor < 0)
            continue;
        live++;
        anchored[tk->anchor]++;
        if (tk->core >= 0)
            running[tk->core]++;
        for (int n = tk->anchor; n >= 0; n = t->nodes[n].parent)
            sum[n] += tk->size;
    }
    for (int id = 0; id < t->nnodes; id++) {
        const struct ctnode *n = &t->nodes[id];
        if (n->occupied != sum[id])
            return ns_error_set (err, EPROTO,
                                 "%s #%d: occupied %llu but its tasks sum to "
                                 "%llu", level_names[n->level], n->index,
                                 (unsigned long long)n->occupied,
                                 (unsigned long long)sum[id]);
        if (n->anchored != anchored[id] || n->running != running[id])
            return ns_error_set (err, EPROTO,
                                 "%s #%d: counts %d anchored, %d running but "
                                 "tasks say %d, %d", level_names[n->level],
                                 n->index, n->anchored, n->running,
                                 anchored[id], running[id]);
    }
    if (live != t->ntasks)
        return ns_error_set (err, EPROTO, "%d live tasks counted as %d", live,
                             t->ntasks);
    return 0;
}

int ns_cachetree_check (const ns_cachetree_t *t, ns_error_t *err)
{
    if (!t)
        return ns_error_set (err, EINVAL, "no cache tree");
    if (check_structure (t, err) < 0)
        return -1;
    uint64_t *sum = calloc (t->nnodes, sizeof (*sum));
    int *anchored = calloc (t->nnodes, sizeof (int));
    int *running = calloc (t->nnodes, sizeof (int));
    int rc = -1;
    if (!sum || !anchored || !running)
        ns_error_set (err, ENOMEM, "out of memory checking the tree");
    else
        rc = check_sums (t, sum, anchored, running, err);
    free (sum);
    free (anchored);
    free (running);
    return rc;
}
