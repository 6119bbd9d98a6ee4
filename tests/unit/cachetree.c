/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cachetree.t - the space-bounded cache tree (design.md section 6)
 *
 * Scenarios are tables of steps on synthetic topologies with cache sizes:
 * place SIZE@CORE and expect (level, cache, core, cpus), release a task,
 * feed occupancy from outside, or expect a node's occupancy.  The
 * invariant checker runs after every step, and every scenario ends by
 * releasing what is left and checking that all occupancy is back to zero.
 * A naive re-implementation over hwloc objects then replays random
 * streams as an oracle.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cachetree.h"
#include "cachetree_test.h"
#include "hwlocxml.h"
#include "tap.h"

#define K(x) ((uint64_t)(x) << 10)
#define M(x) ((uint64_t)(x) << 20)

enum { L1 = NS_CT_L1, L2 = NS_CT_L2, L3 = NS_CT_L3, PACK = NS_CT_PACKAGE,
       MACH = NS_CT_MACHINE };

/* A 4-core desktop: private L1 and L2, one shared L3, 2 PUs per core. */
#define DESKTOP "pack:1 l3:1(size=8MiB) l2:4(size=256KiB) l1d:1(size=32KiB) " \
                "core:1 pu:2"
/* Two 12-core Xeon E5-2650 v4 with Linux's PU numbering (core 0 = PUs 0
 * and 24, core 12 = PUs 12 and 36). */
#define TWOSOCKET "pack:2 l3:1(size=30MiB) l2:12(size=256KiB) " \
                  "l1d:1(size=32KiB) core:1 pu:2(indexes=2*24:1*2)"
/* AMD-like: 8 L3 domains (CCX) of 8 cores in 2 packages. */
#define AMD "pack:2 l3:4(size=32MiB) l2:8(size=512KiB) l1d:1(size=32KiB) " \
            "core:1 pu:2"
/* NUMA nodes and Groups between package and L3, Groups between L3 and L2:
 * 4 L3 of 4 cores per package. */
#define GROUPS "pack:2 numa:2 l3:2(size=16MiB) group:2 l2:2(size=1MiB) " \
               "l1d:1(size=32KiB) core:1 pu:2"
/* Dies and a NUMA node, L2 shared by two cores, no L1 in the description
 * (hwloc then has none). */
#define DIES "pack:1 [numa] die:2 l3:1(size=16MiB) l2:2(size=2MiB) core:2 pu:1"
/* No caches at all. */
#define NOCACHE "pack:2 core:2 pu:1"

enum op { PLACE, RELEASE, OCCUPY, EXPECT_OCC, END };

struct step {
    enum op op;
    uint64_t size;      /* PLACE, OCCUPY: bytes; EXPECT_OCC: occupied */
    int arg;            /* PLACE: origin core; RELEASE: task id */
    int level;          /* PLACE: expected; OCCUPY, EXPECT_OCC: which */
    int cache;          /* PLACE: expected; OCCUPY, EXPECT_OCC: which */
    int core;           /* PLACE: expected core */
    const char *cpus;   /* PLACE: expected cpus */
    int task;           /* PLACE, OCCUPY: expected id */
};

#define P(sz, c, lv, ca, co, cpus, id) { PLACE, sz, c, lv, ca, co, cpus, id }
#define R(id) { RELEASE, 0, id, 0, 0, 0, NULL, 0 }
#define O(lv, ca, sz, id) { OCCUPY, sz, 0, lv, ca, 0, NULL, id }
#define Q(lv, ca, sz) { EXPECT_OCC, sz, 0, lv, ca, 0, NULL, 0 }
#define E { END, 0, 0, 0, 0, 0, NULL, 0 }

struct scenario {
    const char *name;
    const char *topology;
    const char *cores;  /* NULL: all */
    double sigma;
    struct step steps[24];
};

static const struct scenario scenarios[] = {
    { "desktop", DESKTOP, NULL, 1.0, {
        P (K(16), 0, L1, 0, 0, "0-1", 0),
        P (K(16), 0, L1, 0, 0, "0-1", 1),       /* L1 #0 exactly full */
        /* Own L1 full: its L2 holds no other L1, so the L3's next one. */
        P (K(1), 0, L1, 1, 1, "2-3", 2),
        P (K(200), 1, L2, 1, 1, "2-3", 3),
        /* 201K + 100K > 256K: L2 #0 (32K used) is the nearest with room
         * and the task runs on its only core. */
        P (K(100), 1, L2, 0, 0, "0-1", 4),
        Q (L2, 0, K(132)),
        Q (L2, 1, K(201)),
        P (M(4), 2, L3, 0, 2, "0-7", 5),
        /* 4M + 333K used: 4M more fits no L3 and no package (8M = its
         * L3): main memory. */
        P (M(4), 3, MACH, 0, 3, "0-7", 6),
        Q (L3, 0, M(4) + K(333)),
        Q (PACK, 0, M(4) + K(333)),
        Q (MACH, 0, M(8) + K(333)),
        R (5),
        /* The freed L3 takes it now; the lowest free id is reused. */
        P (M(4), 3, L3, 0, 3, "0-7", 5),
        P (M(64), 0, MACH, 0, 0, "0-7", 7),
        P (0, 3, L1, 3, 3, "6-7", 8),           /* no footprint: own L1 */
        E } },

    { "two-socket 24 cores", TWOSOCKET, NULL, 1.0, {
        P (M(20), 0, L3, 0, 0, "0-11,24-35", 0),
        /* L3 #0 full: the other socket's L3, its least loaded core. */
        P (M(20), 1, L3, 1, 12, "12-23,36-47", 1),
        /* Both L3 full, both packages (30M each) too: memory. */
        P (M(20), 2, MACH, 0, 2, "0-47", 2),
        P (M(8), 13, L3, 1, 13, "12-23,36-47", 3),
        /* L3 #1 full (28M); L3 #0 has 10M left; core 0 runs task 0, core
         * 1 nothing. */
        P (M(8), 14, L3, 0, 1, "0-11,24-35", 4),
        P (K(100), 5, L2, 5, 5, "5,29", 5),
        P (K(300), 5, L3, 0, 5, "0-11,24-35", 6),
        Q (L3, 0, M(28) + K(400)),
        Q (PACK, 0, M(28) + K(400)),
        Q (L3, 1, M(28)),
        Q (MACH, 0, M(76) + K(400)),
        R (2),
        Q (MACH, 0, M(56) + K(400)),
        R (0),
        /* Room again on L3 #0: id 0 is reused. */
        P (M(20), 2, L3, 0, 2, "0-11,24-35", 0),
        P (K(32), 23, L1, 23, 23, "23,47", 2),
        /* Nearest L1 to core 23's: under the same L3, lowest index. */
        P (K(1), 23, L1, 12, 12, "12,36", 7),
        E } },

    { "AMD 8 L3 domains of 8 cores", AMD, NULL, 1.0, {
        P (M(24), 0, L3, 0, 0, "0-15", 0),
        /* Nearest first: the same package's L3s, lowest index first. */
        P (M(24), 0, L3, 1, 8, "16-31", 1),
        P (M(24), 9, L3, 2, 16, "32-47", 2),
        P (M(24), 63, L3, 7, 63, "112-127", 3),
        P (M(24), 56, L3, 4, 32, "64-79", 4),
        P (M(24), 0, L3, 3, 24, "48-63", 5),
        /* Package 0 full: the other package's first free L3. */
        P (M(24), 0, L3, 5, 40, "80-95", 6),
        P (M(24), 1, L3, 6, 48, "96-111", 7),
        /* Every L3 holds 24M: a package holds 128M (its 4 L3s). */
        P (M(24), 1, PACK, 0, 1, "0-63", 8),
        P (M(40), 2, MACH, 0, 2, "0-127", 9),
        Q (PACK, 0, M(120)),
        Q (PACK, 1, M(96)),
        Q (L3, 0, M(24)),
        R (8),
        R (1),
        /* L3 #1 free again: nearest to core 0 after its own. */
        P (M(24), 0, L3, 1, 8, "16-31", 1),
        P (K(600), 8, L3, 1, 8, "16-31", 8),       /* 600K > 512K L2 */
        E } },

    { "AMD, sigma 1", AMD, NULL, 1.0, {
        P (M(20), 0, L3, 0, 0, "0-15", 0),
        P (M(80), 0, PACK, 0, 0, "0-63", 1),
        P (K(300), 0, L2, 0, 0, "0-1", 2),
        E } },

    { "AMD, sigma 0.5", AMD, NULL, 0.5, {
        /* 20M > 16M (half an L3): the package (64M at sigma 0.5). */
        P (M(20), 0, PACK, 0, 0, "0-63", 0),
        /* Tasks anchored at the package leave its L3s empty. */
        P (M(12), 0, L3, 0, 0, "0-15", 1),
        Q (L3, 0, M(12)),
        Q (PACK, 0, M(32)),
        P (M(80), 0, MACH, 0, 0, "0-127", 2),
        /* 300K > 256K: the L3, not the L2. */
        P (K(300), 0, L3, 0, 0, "0-15", 3),
        /* 12M fits half an L3 but L3 #0 holds 12.3M: room is the full
         * size (design.md: occupied + S <= size), so it still goes. */
        P (M(12), 0, L3, 0, 0, "0-15", 4),
        P (M(12), 0, L3, 1, 8, "16-31", 5),
        E } },

    { "two-socket restricted to cores 8-15", TWOSOCKET, "8-15", 1.0, {
        P (M(20), 8, L3, 0, 8, "8-11,32-35", 0),
        P (M(20), 9, L3, 1, 12, "12-15,36-39", 1),
        P (M(20), 15, MACH, 0, 15, "8-15,32-39", 2),
        P (K(1), 11, L1, 11, 11, "11,35", 3),
        O (L3, 0, M(5), 4),
        Q (L3, 0, M(25) + K(1)),
        P (M(6), 10, L3, 1, 13, "12-15,36-39", 5),
        E } },

    { "two-socket restricted to cores 0,5,23", TWOSOCKET, "0,5,23", 1.0, {
        P (K(32), 0, L1, 0, 0, "0,24", 0),
        /* The L1 next to core 0 in the tree is core 5's. */
        P (K(32), 0, L1, 5, 5, "5,29", 1),
        P (K(32), 0, L1, 23, 23, "23,47", 2),
        P (K(32), 0, L2, 0, 0, "0,24", 3),
        P (M(16), 23, L3, 1, 23, "23,47", 4),
        P (M(16), 23, L3, 0, 5, "0,5,24,29", 5),
        E } },

    { "occupancy fed from outside", TWOSOCKET, NULL, 1.0, {
        O (L3, 0, M(25), 0),
        /* Another job holds 25M of L3 #0: go to the other socket. */
        P (M(10), 0, L3, 1, 12, "12-23,36-47", 1),
        /* More than the cache holds is accepted (another tree's view). */
        O (L3, 1, M(40), 2),
        Q (L3, 1, M(50)),
        /* L3 #1 has no room left, L3 #0 has 5M. */
        P (M(1), 12, L3, 0, 0, "0-11,24-35", 3),
        O (PACK, 0, M(1), 4),
        O (MACH, 0, M(100), 5),
        R (0),
        P (M(10), 0, L3, 0, 0, "0-11,24-35", 0),
        R (2),
        P (M(10), 12, L3, 1, 12, "12-23,36-47", 2),
        E } },

    { "Groups and NUMA nodes are looked through", GROUPS, NULL, 1.0, {
        P (M(12), 8, L3, 2, 8, "16-23", 0),
        /* L3 #3 shares L3 #2's NUMA group, but groups are not tree
         * levels: all 4 L3s of the package are siblings, lowest first. */
        P (M(12), 8, L3, 0, 0, "0-7", 1),
        P (K(600), 0, L2, 0, 0, "0-1", 2),
        /* L2 #1 is in another Group1 than L2 #2 but both are L3 #0's. */
        P (K(600), 0, L2, 1, 1, "2-3", 3),
        P (K(600), 1, L2, 2, 2, "4-5", 4),
        P (M(12), 0, L3, 1, 4, "8-15", 5),
        E } },

    { "Dies, shared L2, no L1", DIES, NULL, 1.0, {
        /* The walk starts at the L2 (shared by cores 0 and 1). */
        P (K(1), 1, L2, 0, 1, "0-1", 0),
        P (M(2), 1, L2, 1, 2, "2-3", 1),
        /* Every L2 of the level is tried before going up: the other
         * die's. */
        P (M(2), 1, L2, 2, 4, "4-5", 2),
        /* L3 #0 holds 4M, L3 #1 2M: 15M more fits neither; the package
         * (32M) takes it. */
        P (M(15), 0, PACK, 0, 0, "0-7", 3),
        P (M(4), 7, L3, 1, 7, "4-7", 4),
        P (M(40), 7, MACH, 0, 7, "0-7", 5),
        E } },

    { "no caches", NOCACHE, NULL, 1.0, {
        /* A package holds what its caches hold: nothing. */
        P (1, 1, MACH, 0, 1, "0-3", 0),
        P (0, 1, PACK, 0, 1, "0-1", 1),
        E } },
};

static const char *level_str (int level)
{
    return ns_cachetree_level_name ((ns_ctlevel_t)level);
}

static int check_tree (const ns_cachetree_t *t, const char *what)
{
    ns_error_t err;
    int rc = ns_cachetree_check (t, &err);
    if (rc < 0)
        diag ("%s: check: %s", what, err.text);
    return rc == 0;
}

/* Every node of every level holds nothing and runs nothing. */
static int all_empty (const ns_cachetree_t *t)
{
    for (int l = 0; l < NS_CT_NLEVELS; l++)
        for (int i = 0; i < ns_cachetree_count (t, (ns_ctlevel_t)l); i++) {
            ns_ctinfo_t info;
            int idx = ns_cachetree_index (t, (ns_ctlevel_t)l, i);
            if (ns_cachetree_info (t, (ns_ctlevel_t)l, idx, &info) < 0
                || info.occupied || info.anchored || info.running)
                return 0;
        }
    return ns_cachetree_ntasks (t) == 0;
}

static void run_place (ns_cachetree_t *t, const struct scenario *sc,
                       const struct step *s)
{
    ns_ctplace_t p;
    ns_error_t err;
    char cpus[256] = "";
    int id = ns_cachetree_place (t, s->size, s->arg, sc->sigma, &p, &err);
    if (id < 0) {
        ok (0, "%s: place %llu@%d: %s", sc->name,
            (unsigned long long)s->size, s->arg, err.text);
        return;
    }
    hwloc_bitmap_list_snprintf (cpus, sizeof (cpus), p.cpus);
    char why[512];
    ns_cachetree_explain (t, id, why, sizeof (why));
    int good = p.level == (ns_ctlevel_t)s->level && p.cache == s->cache
               && p.core == s->core && strcmp (cpus, s->cpus) == 0
               && id == s->task && p.task == id;
    ok (good, "%s: task %d %llu@%d -> %s #%d core %d cpus %s", sc->name,
        s->task, (unsigned long long)s->size, s->arg, level_str (s->level),
        s->cache, s->core, s->cpus);
    if (!good)
        diag ("got task %d %s #%d core %d cpus %s; %s", id,
              level_str (p.level), p.cache, p.core, cpus, why);
}

static void run_step (ns_cachetree_t *t, const struct scenario *sc,
                      const struct step *s)
{
    ns_error_t err;
    ns_ctinfo_t info;
    switch (s->op) {
    case PLACE:
        run_place (t, sc, s);
        break;
    case RELEASE:
        ok (ns_cachetree_release (t, s->arg, &err) == 0, "%s: release %d",
            sc->name, s->arg);
        break;
    case OCCUPY:
        is_int (ns_cachetree_occupy (t, (ns_ctlevel_t)s->level, s->cache,
                                     s->size, &err), s->task,
                "%s: occupy %llu at %s #%d", sc->name,
                (unsigned long long)s->size, level_str (s->level), s->cache);
        break;
    case EXPECT_OCC:
        ok (ns_cachetree_info (t, (ns_ctlevel_t)s->level, s->cache, &info) == 0
            && info.occupied == s->size, "%s: %s #%d holds %llu", sc->name,
            level_str (s->level), s->cache, (unsigned long long)s->size);
        break;
    case END:
        break;
    }
}

static void run_scenario (const struct scenario *sc)
{
    ns_error_t err;
    ns_cachetree_t *t = ns_cachetree_load (sc->topology, sc->cores, &err);
    if (!ok (t != NULL, "%s: load", sc->name)) {
        diag ("%s", err.text);
        return;
    }
    int bad = 0, steps = 0;
    for (const struct step *s = sc->steps; s->op != END; s++, steps++) {
        run_step (t, sc, s);
        if (!check_tree (t, sc->name))
            bad++;
    }
    is_int (bad, 0, "%s: check after each of %d steps", sc->name, steps);
    for (int id = 0; ns_cachetree_ntasks (t) > 0 && id < 1000; id++)
        if (ns_cachetree_task (t, id, NULL) == 0)
            ns_cachetree_release (t, id, &err);
    ok (check_tree (t, sc->name) && all_empty (t),
        "%s: all occupancy back to zero after releasing everything",
        sc->name);
    ns_cachetree_destroy (t);
}

/* Level counts and sizes as the tree sees the topology. */
static void test_shapes (void)
{
    ns_error_t err;
    ns_ctinfo_t info;
    ns_cachetree_t *t = ns_cachetree_load (GROUPS, NULL, &err);
    int n[NS_CT_NLEVELS];
    for (int l = 0; l < NS_CT_NLEVELS; l++)
        n[l] = ns_cachetree_count (t, (ns_ctlevel_t)l);
    ok (n[0] == 32 && n[1] == 32 && n[2] == 32 && n[3] == 8 && n[4] == 2
        && n[5] == 1, "groups: 32 cores, L1, L2, 8 L3, 2 packages, machine");
    ok (ns_cachetree_info (t, NS_CT_PACKAGE, 1, &info) == 0
        && info.size == M(64), "groups: a package holds its 4 L3s (64M)");
    ok (ns_cachetree_info (t, NS_CT_MACHINE, 0, &info) == 0
        && info.size == NS_CT_UNBOUNDED, "the machine is unbounded");
    ok (ns_cachetree_info (t, NS_CT_CORE, 3, &info) == 0 && info.size == 0,
        "a core holds nothing");
    ns_cachetree_destroy (t);

    t = ns_cachetree_load (DIES, NULL, &err);
    ok (t && ns_cachetree_count (t, NS_CT_L1) == 0
        && ns_cachetree_count (t, NS_CT_L2) == 4
        && ns_cachetree_count (t, NS_CT_L3) == 2,
        "dies: no L1 level, 4 L2, 2 L3");
    ns_cachetree_destroy (t);

    t = ns_cachetree_load (TWOSOCKET, "8-15", &err);
    ok (t && ns_cachetree_count (t, NS_CT_CORE) == 8
        && ns_cachetree_index (t, NS_CT_CORE, 0) == 8
        && ns_cachetree_index (t, NS_CT_CORE, 7) == 15
        && ns_cachetree_topology_cores (t) == 24,
        "restricted: cores 8-15 of 24 keep their logical indices");
    ok (ns_cachetree_info (t, NS_CT_L3, 0, &info) == 0 && info.size == M(30),
        "restricted: an L3 keeps its full size");
    ok (ns_cachetree_info (t, NS_CT_L2, 0, &info) < 0 && errno == ENOENT,
        "restricted: L2 #0 is not in the tree (ENOENT)");
    ok (ns_cachetree_index (t, NS_CT_CORE, 8) < 0 && errno == EINVAL,
        "index beyond the level fails with EINVAL");
    ns_cachetree_destroy (t);

    /* hwloc synthetic "MB" is decimal. */
    t = ns_cachetree_load ("pack:1 l3:1(size=30MB) core:2 pu:1", NULL, &err);
    ok (t && ns_cachetree_info (t, NS_CT_L3, 0, &info) == 0
        && info.size == 30000000, "size=30MB means 30,000,000 bytes");
    ns_cachetree_destroy (t);
}

/* Restriction by an OS cpuset, as the SPANK plugin builds it. */
static void test_os_cpuset (void)
{
    ns_error_t err;
    ns_ctplace_t p;
    char cpus[64];
    hwloc_topology_t topo = ns_cachetree_topology (TWOSOCKET, &err);
    hwloc_bitmap_t set = hwloc_bitmap_alloc ();
    hwloc_bitmap_list_sscanf (set, "12,13,37");
    ns_cachetree_t *t = ns_cachetree_from_topology (topo, set, &err);
    ok (t && ns_cachetree_count (t, NS_CT_CORE) == 2,
        "OS cpuset 12,13,37: cores 12 and 13");
    ok (ns_cachetree_place (t, K(1), 12, 1.0, &p, &err) == 0
        && hwloc_bitmap_list_snprintf (cpus, sizeof (cpus), p.cpus) > 0
        && strcmp (cpus, "12") == 0,
        "core 12 runs on PU 12 only (PU 36 not given)");
    ok (ns_cachetree_place (t, M(1), 13, 1.0, &p, &err) == 1
        && p.level == NS_CT_L3
        && hwloc_bitmap_list_snprintf (cpus, sizeof (cpus), p.cpus) > 0
        && strcmp (cpus, "12-13,37") == 0, "L3 #1's cpus are 12-13,37");
    ns_cachetree_destroy (t);

    hwloc_bitmap_list_sscanf (set, "100-200");
    ok (ns_cachetree_from_topology (topo, set, &err) == NULL
        && errno == EINVAL, "a cpuset with no core fails with EINVAL");
    is_str (err.text, "the cpuset selects no core", "error text");

    ok (ns_cachetree_cores_cpuset (topo, "0,12-13", set, &err) == 0
        && hwloc_bitmap_list_snprintf (cpus, sizeof (cpus), set) > 0
        && strcmp (cpus, "0,12-13,24,36-37") == 0,
        "cores 0,12-13 are PUs 0,12-13,24,36-37");
    hwloc_bitmap_free (set);
    hwloc_topology_destroy (topo);
}

static void test_bad_input (void)
{
    static const char *bad_lists[] = {
        "", "a", "1-", "-1", "3-1", "1,,2", "1,", "0 1", "1-2-3", "+1",
        "99999999999",
    };
    ns_error_t err;
    ok (ns_cachetree_load ("pack:2 bogus:3", NULL, &err) == NULL
        && errno == EINVAL, "bad synthetic description fails with EINVAL");
    ok (strncmp (err.text, "'pack:2 bogus:3' is neither 'live', an XML file "
                 "nor an hwloc synthetic description", 78) == 0,
        "error text names the description");
    /* Synthetic descriptions hwloc would take minutes to build (the fuzz
     * find crashes/tree_synthetic/hwloc-8-million-pus: its bare "666666"
     * is the arity of a level too). */
    static const struct {
        const char *spec;
        int ok;
    } big[] = {
        { "pack:6 core:2 666666", 0 },
        { "pack:2 core:1024 pu:2", 0 },
        { "pack:2 core:512 pu:2", 1 },
        { "pack:0x10 core:0x40 pu:3", 0 },     /* strtoul base 0: 3072 */
        { "pack:16 core:64 pu:2", 1 },
        { "(memory=1GB) pack:4 [numa(memory=4000000000)] "
          "l3:2(size=32MiB) core:64 pu:2", 1 },
        { "pack:2(indexes=0,1)core:1024(indexes=2048) pu:2", 0 },
        { "pack:2 l3:1(size=16MiB)core:512 4", 0 },
        /* digits where an octal arity stops are the next level to hwloc
         * (the fuzz find crashes/tree_synthetic/octal-then-level) */
        { "pack:2 core:01086548261", 0 },
        { "pack:2 core:0104097", 0 },
        { "core:0108", 1 },                    /* 8 cores of 8 PUs */
        { "pack:2 core:019", 1 },              /* 2 x 1 x 9 */
    };
    for (size_t i = 0; i < sizeof (big) / sizeof (big[0]); i++) {
        int rc = ns_cachetree_check_synthetic (big[i].spec, &err);
        char want[256];
        snprintf (want, sizeof (want), "'%s': more than 2048 PUs: hwloc 2.9 "
                  "takes seconds", big[i].spec);
        if (big[i].ok)
            ok (rc == 0, "synthetic '%s' is accepted%s%s", big[i].spec,
                rc ? ": " : "", rc ? err.text : "");
        else
            ok (rc < 0 && errno == EINVAL
                && strncmp (err.text, want, strlen (want)) == 0,
                "synthetic '%s' is refused: %s", big[i].spec,
                rc < 0 ? err.text : "(accepted)");
    }
    ok (ns_cachetree_load ("pack:6 core:2 666666", NULL, &err) == NULL
        && errno == EINVAL && strstr (err.text, "more than 2048 PUs"),
        "ns_cachetree_load refuses 8 million PUs at once: %s", err.text);
    ok (ns_cachetree_load ("/nonexistent/topo.xml", NULL, &err) == NULL
        && errno == ENOENT, "missing XML file fails with ENOENT");
    is_str (err.text, "/nonexistent/topo.xml: cannot open: No such file or "
            "directory", "error text");
    ok (ns_cachetree_load ("", NULL, &err) == NULL && errno == EINVAL,
        "empty spec fails with EINVAL");
    ok (ns_cachetree_load ("pack:2 pu:2", NULL, &err) == NULL
        && errno == EINVAL, "a topology without cores fails with EINVAL");
    for (size_t i = 0; i < sizeof (bad_lists) / sizeof (bad_lists[0]); i++)
        ok (ns_cachetree_load (DESKTOP, bad_lists[i], &err) == NULL
            && errno == EINVAL, "core list '%s' fails with EINVAL",
            bad_lists[i]);
    ok (ns_cachetree_load (DESKTOP, "2-4", &err) == NULL && errno == EINVAL,
        "core list beyond the topology fails");
    is_str (err.text, "core 4 out of range: the topology has 4 cores (0-3)",
            "error text");

    ns_cachetree_t *t = ns_cachetree_load (DESKTOP, "1-2", &err);
    ok (ns_cachetree_place (t, 1, 0, 1.0, NULL, &err) < 0 && errno == EINVAL,
        "origin outside the tree fails with EINVAL");
    is_str (err.text, "core 0 is not among the tree's cores 1-2",
            "error text");
    ok (ns_cachetree_place (t, 1, 4, 1.0, NULL, &err) < 0 && errno == EINVAL,
        "origin beyond the topology fails with EINVAL");
    is_str (err.text, "core 4 out of range: the topology has 4 cores (0-3)",
            "error text");
    ok (ns_cachetree_place (t, 1, -1, 1.0, NULL, &err) < 0 && errno == EINVAL,
        "negative origin fails with EINVAL");
    static const double bad_sigma[] = { 0, -1, 1.5 };
    for (int i = 0; i < 3; i++)
        ok (ns_cachetree_place (t, 1, 1, bad_sigma[i], NULL, &err) < 0
            && errno == EINVAL, "sigma %g fails with EINVAL", bad_sigma[i]);
    ok (ns_cachetree_place (t, 1, 1, NAN, NULL, &err) < 0 && errno == EINVAL,
        "sigma NaN fails with EINVAL");
    ok (ns_cachetree_release (t, 0, &err) < 0 && errno == ENOENT,
        "release of an unknown task fails with ENOENT");
    ok (ns_cachetree_occupy (t, NS_CT_CORE, 1, 1, &err) < 0
        && errno == EINVAL, "occupy at a core fails with EINVAL");
    ok (ns_cachetree_occupy (t, NS_CT_L2, 0, 1, &err) < 0 && errno == ENOENT,
        "occupy at a cache outside the tree fails with ENOENT");
    ok (ns_cachetree_occupy (t, (ns_ctlevel_t)9, 0, 1, &err) < 0
        && errno == EINVAL, "occupy at level 9 fails with EINVAL");
    ok (ns_cachetree_ntasks (t) == 0 && check_tree (t, "bad input")
        && all_empty (t), "failed calls left the tree untouched");

    /* Overflow of the machine's occupancy is refused, not wrapped. */
    ok (ns_cachetree_place (t, UINT64_MAX - 5, 1, 1.0, NULL, &err) == 0,
        "a 2^64-6 byte task goes to memory");
    ok (ns_cachetree_place (t, 6, 1, 1.0, NULL, &err) < 0
        && errno == EOVERFLOW, "6 more bytes fail with EOVERFLOW");
    ok (ns_cachetree_occupy (t, NS_CT_MACHINE, 0, 6, &err) < 0
        && errno == EOVERFLOW, "occupy too fails with EOVERFLOW");
    ok (ns_cachetree_place (t, 5, 1, 1.0, NULL, &err) == 1,
        "5 more bytes still fit");
    ok (check_tree (t, "overflow") && ns_cachetree_release (t, 0, &err) == 0
        && ns_cachetree_release (t, 1, &err) == 0 && all_empty (t),
        "overflow attempts leave the sums right");
    ok (ns_cachetree_release (t, 1, &err) < 0 && errno == ENOENT,
        "double release fails with ENOENT");
    ns_cachetree_destroy (t);
    ns_cachetree_destroy (NULL);
    ok (1, "destroy (NULL) is harmless");
}

static void test_explain (void)
{
    ns_error_t err;
    char why[512];
    ns_cachetree_t *t = ns_cachetree_load (TWOSOCKET, NULL, &err);
    ns_cachetree_place (t, M(20), 0, 1.0, NULL, &err);
    ns_cachetree_place (t, M(20), 1, 1.0, NULL, &err);
    ns_cachetree_place (t, M(20), 2, 1.0, NULL, &err);
    ns_cachetree_occupy (t, NS_CT_L3, 1, M(1), &err);
    ns_cachetree_place (t, K(16), 4, 0.5, NULL, &err);
    ns_cachetree_explain (t, 0, why, sizeof (why));
    is_str (why, "task 0: 20M from core 0, sigma 1: too big for L1 #0 (32K); "
            "too big for L2 #0 (256K); anchored at its own L3 #0 (0 of 30M "
            "used); runs on its origin core", "explain: own cache");
    ns_cachetree_explain (t, 1, why, sizeof (why));
    is_str (why, "task 1: 20M from core 1, sigma 1: too big for L1 #1 (32K); "
            "too big for L2 #1 (256K); L3 #0 full (20M of 30M used); anchored "
            "at L3 #1 (0 of 30M used), the nearest other L3 with room; runs "
            "on core 12, the least loaded under L3 #1", "explain: a peer");
    ns_cachetree_explain (t, 2, why, sizeof (why));
    is_str (why, "task 2: 20M from core 2, sigma 1: too big for L1 #2 (32K); "
            "too big for L2 #2 (256K); L3 #0 full (20M of 30M used) and 1 "
            "other L3 without room; package #0 full (20M of 30M used) and 1 "
            "other package without room; anchored at the machine (main "
            "memory); runs on its origin core", "explain: memory");
    ns_cachetree_explain (t, 3, why, sizeof (why));
    is_str (why, "task 3: 1M occupied at L3 #1 from outside the tree",
            "explain: occupancy fed from outside");
    int n = ns_cachetree_explain (t, 4, why, sizeof (why));
    is_str (why, "task 4: 16K from core 4, sigma 0.5: anchored at its own L1 "
            "#4 (0 of 32K used); runs on its origin core",
            "explain: sigma 0.5");
    is_int (ns_cachetree_explain (t, 4, why, 10), n,
            "explain returns the full length when truncating");
    is_str (why, "task 4: 1", "truncated text is terminated");
    ok (ns_cachetree_explain (t, 5, why, sizeof (why)) < 0 && errno == ENOENT,
        "explain of an unknown task fails with ENOENT");
    ns_cachetree_destroy (t);
}

static void test_names (void)
{
    static const char *names[] = { "core", "L1", "L2", "L3", "package",
                                   "machine" };
    for (int l = 0; l < NS_CT_NLEVELS; l++) {
        is_str (ns_cachetree_level_name ((ns_ctlevel_t)l), names[l],
                "level %d is named %s", l, names[l]);
        is_int (ns_cachetree_level_parse (names[l]), l, "%s parses", names[l]);
    }
    is_int (ns_cachetree_level_parse ("l3"), NS_CT_L3, "case does not matter");
    ok (ns_cachetree_level_parse ("L4") < 0 && errno == EINVAL,
        "L4 is not a level");
    is_str (ns_cachetree_level_name ((ns_ctlevel_t)7), "?", "level 7 is '?'");
    static const struct {
        uint64_t bytes;
        const char *s;
    } sizes[] = {
        { 0, "0" }, { 512, "512B" }, { K(32), "32K" }, { M(30), "30M" },
        { 30000000, "28.6M" }, { (uint64_t)1 << 30, "1G" },
        { M(1) - 1, "1.0M" }, { K(1) + 512, "1.5K" }, { UINT64_MAX, "16.0E" },
    };
    char buf[32];
    for (size_t i = 0; i < sizeof (sizes) / sizeof (sizes[0]); i++)
        is_str (ns_cachetree_size_str (sizes[i].bytes, buf, sizeof (buf)),
                sizes[i].s, "%llu bytes print as %s",
                (unsigned long long)sizes[i].bytes, sizes[i].s);
}

/* A real machine exported by lstopo: tests/topologies/xeon-e5-2650v4-2s.xml
 * (two Xeon E5-2650 v4, hyper-threads numbered as Linux does, a NUMA node
 * per package, L1i caches). */
static const char *fixture (const char *name, char *buf, size_t len)
{
    const char *dirs[] = { getenv ("top_srcdir"), ".", "..", };
    for (int i = 0; i < 3; i++) {
        if (!dirs[i])
            continue;
        snprintf (buf, len, "%s/tests/topologies/%s", dirs[i], name);
        if (access (buf, R_OK) == 0)
            return buf;
    }
    return name;
}

static void test_xml (void)
{
    ns_error_t err;
    ns_ctplace_t p;
    ns_ctinfo_t info;
    char path[1024], cpus[64];
    fixture ("xeon-e5-2650v4-2s.xml", path, sizeof (path));
    ns_cachetree_t *t = ns_cachetree_load (path, NULL, &err);
    if (!ok (t != NULL, "load the XML fixture")) {
        diag ("%s", err.text);
        return;
    }
    ok (ns_cachetree_count (t, NS_CT_CORE) == 24
        && ns_cachetree_count (t, NS_CT_L1) == 24
        && ns_cachetree_count (t, NS_CT_L2) == 24
        && ns_cachetree_count (t, NS_CT_L3) == 2
        && ns_cachetree_count (t, NS_CT_PACKAGE) == 2,
        "xml: 24 cores, L1, L2, 2 L3, 2 packages (NUMA, L1i ignored)");
    ok (ns_cachetree_info (t, NS_CT_L3, 1, &info) == 0
        && info.size == M(30)
        && hwloc_bitmap_list_snprintf (cpus, sizeof (cpus), info.cpus) > 0
        && strcmp (cpus, "12-23,36-47") == 0,
        "xml: L3 #1 is 30M on 12-23,36-47");
    ok (ns_cachetree_place (t, M(20), 0, 1.0, &p, &err) == 0
        && p.level == NS_CT_L3 && p.cache == 0 && p.core == 0,
        "xml: 20M@0 -> L3 #0 core 0");
    ok (ns_cachetree_place (t, M(20), 0, 1.0, &p, &err) == 1
        && p.level == NS_CT_L3 && p.cache == 1 && p.core == 12,
        "xml: 20M@0 again -> L3 #1 core 12");
    ok (ns_cachetree_place (t, K(8), 13, 1.0, &p, &err) == 2
        && p.level == NS_CT_L1 && p.cache == 13
        && hwloc_bitmap_list_snprintf (cpus, sizeof (cpus), p.cpus) > 0
        && strcmp (cpus, "13,37") == 0, "xml: 8K@13 -> L1 #13 on 13,37");
    ok (check_tree (t, "xml"), "xml: check");
    ns_cachetree_destroy (t);

    t = ns_cachetree_load (path, "0-3,12-15", &err);
    ok (t && ns_cachetree_place (t, M(20), 15, 1.0, &p, &err) == 0
        && hwloc_bitmap_list_snprintf (cpus, sizeof (cpus), p.cpus) > 0
        && strcmp (cpus, "12-15,36-39") == 0,
        "xml restricted to 0-3,12-15: L3 #1 spans 12-15,36-39");
    ns_cachetree_destroy (t);
}

/* tests/topologies/cache-without-cores.xml: L2 #1 claims PUs 0-1 but holds
 * only core 1, L3 #0 claims PU 0 and holds nothing.  Restricted to core 0
 * they used to enter the tree without a core under them, and a task
 * anchored there ran on a garbage core. */
static void test_xml_cache_without_cores (void)
{
    ns_error_t err;
    ns_ctplace_t p;
    ns_ctinfo_t info;
    char path[1024], cpus[64], why[512];
    fixture ("cache-without-cores.xml", path, sizeof (path));
    ns_cachetree_t *t = ns_cachetree_load (path, "0", &err);
    if (!ok (t != NULL, "cache without cores: load restricted to core 0")) {
        diag ("%s", err.text);
        return;
    }
    ok (ns_cachetree_count (t, NS_CT_L2) == 1
        && ns_cachetree_info (t, NS_CT_L2, 1, &info) < 0 && errno == ENOENT,
        "cache without cores: L2 #1 holds no core of the tree: not in it");
    ok (ns_cachetree_count (t, NS_CT_L3) == 0,
        "cache without cores: L3 #0 holds no core at all: not in the tree");
    ok (ns_cachetree_place (t, K(256), 0, 1.0, &p, &err) == 0
        && p.level == NS_CT_L2 && p.cache == 0 && p.core == 0,
        "cache without cores: 256K@0 -> L2 #0 core 0");
    ok (ns_cachetree_place (t, K(256), 0, 1.0, &p, &err) == 1
        && p.level == NS_CT_MACHINE && p.core == 0
        && hwloc_bitmap_list_snprintf (cpus, sizeof (cpus), p.cpus) > 0
        && strcmp (cpus, "0") == 0,
        "cache without cores: 256K@0 again -> the machine, core 0, cpus 0");
    ns_cachetree_explain (t, 1, why, sizeof (why));
    is_str (why, "task 1: 256K from core 0, sigma 1: L2 #0 full (256K of "
            "256K used), the only L2; anchored at the machine (main memory); "
            "runs on its origin core", "cache without cores: explain");
    ok (check_tree (t, "cache without cores"), "cache without cores: check");
    ns_cachetree_destroy (t);

    t = ns_cachetree_load (path, NULL, &err);
    ok (t && ns_cachetree_info (t, NS_CT_L2, 1, &info) == 0
        && hwloc_bitmap_list_snprintf (cpus, sizeof (cpus), info.cpus) > 0
        && strcmp (cpus, "1") == 0 && ns_cachetree_count (t, NS_CT_L3) == 0,
        "cache without cores: unrestricted, L2 #1's cpus are its core's (1), "
        "no L3");
    ns_cachetree_destroy (t);
}

/* Two L1 levels: a unified L1 above the L1d.  hwloc numbers each depth on
 * its own, so "L1 #0" named two caches, the type count was -1 and names
 * resolved to nothing.  The L1d (the depth nearest the cores) is the
 * tree's L1; the unified L1 above it is looked through. */
static void test_two_l1_depths (void)
{
    ns_error_t err;
    ns_ctplace_t p;
    ns_ctinfo_t info;
    char why[512], cpus[64];
    ns_cachetree_t *t = ns_cachetree_load ("l1:2(size=1MiB) l1d:2(size=32KiB) "
                                           "core:2 pu:1", NULL, &err);
    if (!ok (t != NULL, "two L1 depths: load")) {
        diag ("%s", err.text);
        return;
    }
    is_int (ns_cachetree_count (t, NS_CT_L1), 4,
            "two L1 depths: the 4 L1d are the tree's L1");
    ok (ns_cachetree_info (t, NS_CT_L1, 3, &info) == 0 && info.size == K(32)
        && hwloc_bitmap_list_snprintf (cpus, sizeof (cpus), info.cpus) > 0
        && strcmp (cpus, "6-7") == 0, "two L1 depths: L1 #3 is 32K on 6-7");
    ok (ns_cachetree_place (t, K(32), 0, 1.0, &p, &err) == 0
        && p.level == NS_CT_L1 && p.cache == 0 && p.core == 0,
        "two L1 depths: 32K@0 -> L1 #0 core 0");
    ok (ns_cachetree_place (t, K(32), 0, 1.0, &p, &err) == 1
        && p.level == NS_CT_L1 && p.cache == 1 && p.core == 2,
        "two L1 depths: 32K@0 again -> L1 #1 core 2");
    ns_cachetree_explain (t, 1, why, sizeof (why));
    is_str (why, "task 1: 32K from core 0, sigma 1: L1 #0 full (32K of 32K "
            "used); anchored at L1 #1 (0 of 32K used), the nearest other L1 "
            "with room; runs on core 2, the least loaded under L1 #1",
            "two L1 depths: explain names one cache per name");
    is_int (ns_cachetree_occupy (t, NS_CT_L1, 3, K(8), &err), 2,
            "two L1 depths: occupancy fed at L1 #3 (the ledger's names)");
    ok (ns_cachetree_info (t, NS_CT_L1, 3, &info) == 0
        && info.occupied == K(8), "two L1 depths: L1 #3 holds 8K");
    ok (check_tree (t, "two L1 depths"), "two L1 depths: check");
    ns_cachetree_destroy (t);
}

/* XML hwloc 2.9 crashes on is refused before hwloc sees it. */
#define TOPO(body) "<?xml version=\"1.0\"?>\n<!DOCTYPE topology SYSTEM " \
                   "\"hwloc2.dtd\">\n<topology version=\"2.0\">" body \
                   "</topology>\n"
static void test_check_xml (void)
{
    static const struct {
        const char *xml;
        const char *msg;    /* NULL: accepted */
    } cases[] = {
        { TOPO ("<object type=\"PU\" cpuset=\"0x1\" complete_cpuset=\"0x1\" "
                "nodeset=\"0x1\" complete_nodeset=\"0x1\"/>"), NULL },
        { TOPO ("<object type=\"PU\" cpuset=\"0x1\" nodeset=\"0x1\" "
                "complete_nodeset=\"0x1\"/>"),
          "x.xml: object 1 has cpuset without complete_cpuset" },
        { TOPO ("<object type=\"Machine\"><object type=\"Core\" "
                "complete_nodeset=\"0x1\" cpuset=\"0x1\" "
                "complete_cpuset=\"0x1\"/></object>"),
          "x.xml: object 2 has complete_nodeset without nodeset" },
        /* comments, entities and other elements do not count */
        { TOPO ("<!-- <object cpuset=\"0x1\"/> --><objects cpuset=\"0x1\"/>"
                "<info name=\"cpuset\" value=\"&lt;&gt;&amp;&quot;&#10;"
                "&#13;&#9;\"/>"), NULL },
        /* Attributes hwloc 2.9's own parser stops reading at, silently:
         * it would not see the complete_cpuset after them (the fuzz find
         * crashes/tree_xml/hwloc-segv-misspelt-attribute). */
        { TOPO ("<object type=\"PU\" cpuset=\"0x1\" compl-te_cpuset=\"0x1\" "
                "complete_cpuset=\"0x1\"/>"),
          "x.xml: not an hwloc XML topology: attribute name "
          "'compl-te_cpuset' is not lower-case letters and '_' (hwloc's "
          "parser stops reading the tag's attributes there) (line 3, "
          "byte 117)" },
        { TOPO ("<object type=\"PU\" Cpuset=\"0x1\"/>"),
          "x.xml: not an hwloc XML topology: attribute name 'Cpuset' is "
          "not" },
        { TOPO ("<object type=\"PU\" cpuset=\"0x1\" nodeset=\"0x1\" "
                "complete_cpuset=\"0x1\" nodeset=\"0x1\"/>"),
          "x.xml: not an hwloc XML topology: attribute 'nodeset' given "
          "twice in a tag (line 3, byte 153)" },
        { TOPO ("<object info=\"a>b\" cpuset=\"0x1\"/>"),
          "x.xml: not an hwloc XML topology: '>' in an attribute value "
          "(hwloc's parser ends the tag there; its exports write &gt;)" },
        { TOPO ("<object name=\"&#60;\" cpuset=\"0x1\"/>"),
          "x.xml: not an hwloc XML topology: an entity in an attribute "
          "value other than" },
        { TOPO ("<object type =\"PU\"/>"),
          "x.xml: not an hwloc XML topology: space before '='" },
        { TOPO ("<object type= \"PU\"/>"),
          "x.xml: not an hwloc XML topology: space after '='" },
        { TOPO ("<object type=\"PU\"\r\ncpuset=\"0x1\"/>"),
          "x.xml: not an hwloc XML topology: carriage return inside a tag" },
        { TOPO ("<object a=\"\" b=\"\" c=\"\" d=\"\" e=\"\" f=\"\" g=\"\" "
                "h=\"\" i=\"\" j=\"\" k=\"\" l=\"\" m=\"\" n=\"\" o=\"\" "
                "p=\"\" q=\"\" r=\"\" s=\"\" t=\"\" u=\"\" v=\"\" w=\"\" "
                "x=\"\" y=\"\" z=\"\" aa=\"\" ab=\"\" ac=\"\" ad=\"\" ae=\"\" "
                "af=\"\" ag=\"\" ah=\"\" ai=\"\" aj=\"\" ak=\"\" al=\"\" "
                "am=\"\" an=\"\" ao=\"\" ap=\"\" aq=\"\" ar=\"\" as=\"\" "
                "at=\"\" au=\"\" av=\"\" aw=\"\" ax=\"\" ay=\"\" az=\"\" "
                "ba=\"\" bb=\"\" bc=\"\" bd=\"\" be=\"\" bf=\"\" bg=\"\" "
                "bh=\"\" bi=\"\" bj=\"\" bk=\"\" bl=\"\"/>"), NULL },
        { TOPO ("<object a=\"\" b=\"\" c=\"\" d=\"\" e=\"\" f=\"\" g=\"\" "
                "h=\"\" i=\"\" j=\"\" k=\"\" l=\"\" m=\"\" n=\"\" o=\"\" "
                "p=\"\" q=\"\" r=\"\" s=\"\" t=\"\" u=\"\" v=\"\" w=\"\" "
                "x=\"\" y=\"\" z=\"\" aa=\"\" ab=\"\" ac=\"\" ad=\"\" ae=\"\" "
                "af=\"\" ag=\"\" ah=\"\" ai=\"\" aj=\"\" ak=\"\" al=\"\" "
                "am=\"\" an=\"\" ao=\"\" ap=\"\" aq=\"\" ar=\"\" as=\"\" "
                "at=\"\" au=\"\" av=\"\" aw=\"\" ax=\"\" ay=\"\" az=\"\" "
                "ba=\"\" bb=\"\" bc=\"\" bd=\"\" be=\"\" bf=\"\" bg=\"\" "
                "bh=\"\" bi=\"\" bj=\"\" bk=\"\" bl=\"\" bm=\"\"/>"),
          "x.xml: not an hwloc XML topology: more than 64 attributes in a "
          "tag" },
        /* hwloc 2.9's own parser crashed on these 21 bytes */
        { "<topologyversion=\"2.0",
          "x.xml: not an hwloc XML topology: the root element is not "
          "<topology>" },
        { "<topology version=\"2.0",
          "x.xml: not an hwloc XML topology: unterminated attribute "
          "value" },
        { TOPO ("<object type=\"PU\">"),
          "x.xml: not an hwloc XML topology: closing tag that matches no "
          "open element" },
        { "<topology><object/>",
          "x.xml: not an hwloc XML topology: <topology> is never closed" },
        { TOPO ("<object type='PU'/>"),
          "x.xml: not an hwloc XML topology: expected a value in double "
          "quotes" },
        { TOPO ("") "<topology/>",
          "x.xml: not an hwloc XML topology: a second root element" },
        { "<root/>", "x.xml: not an hwloc XML topology: the root element "
          "is not <topology>" },
        { TOPO ("<info name=\"x\">a&b</info>"),
          "x.xml: not an hwloc XML topology: unterminated entity" },
        { "<!-- unterminated <object cpuset=\"0x1\"",
          "x.xml: not an hwloc XML topology: unterminated comment" },
        { "", "x.xml: not an hwloc XML topology: no <topology> element" },
        { "garbage", "x.xml: not an hwloc XML topology: text outside" },
        /* hwloc_bitmap_sscanf() asserted on these */
        { TOPO ("<object cpuset=\"0x00000+03\" complete_cpuset=\"0x3\"/>"),
          "x.xml: not an hwloc XML topology: a set that is not an hwloc "
          "bitmap" },
        { TOPO ("<object nodeset=\",x00000001\" complete_nodeset=\"0x1\"/>"),
          "x.xml: not an hwloc XML topology: a set that is not an hwloc "
          "bitmap" },
        { TOPO ("<cpukind cpuset=\"0x123456789\"/>"),
          "x.xml: not an hwloc XML topology: a set that is not an hwloc "
          "bitmap" },
        { TOPO ("<object cpuset=\"0x00000100,,,,0x00000001,,0x1\" "
                "complete_cpuset=\"0xf...f,0xffffffff,0xffffffe0\" "
                "allowed_cpuset=\"0xf...f\" nodeset=\"0x0\" "
                "complete_nodeset=\"0x0\"/>"), NULL },
    };
    ns_error_t err;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        int rc = ns_hwlocxml_check (cases[i].xml, strlen (cases[i].xml),
                                    "x.xml", &err);
        if (!cases[i].msg)
            ok (rc == 0, "check_xml accepts case %zu%s%s", i,
                rc ? ": " : "", rc ? err.text : "");
        else
            ok (rc < 0 && errno == EINVAL
                && strncmp (err.text, cases[i].msg, strlen (cases[i].msg))
                   == 0, "check_xml: %s%s%s", cases[i].msg,
                rc < 0 ? " -- " : "", rc < 0 ? err.text : "");
    }
    /* deeper than hwloc's recursion should go */
    char deep[8192] = "<topology>";
    for (int i = 0; i < 300; i++)
        strcat (deep, "<o>");
    ok (ns_hwlocxml_check (deep, strlen (deep), "x.xml", &err) < 0
        && strstr (err.text, "elements nested deeper than 256"),
        "check_xml: 300 levels are refused: %s", err.text);
    char path[1024];
    fixture ("pu-without-complete-cpuset.xml", path, sizeof (path));
    ok (ns_cachetree_load (path, NULL, &err) == NULL && errno == EINVAL
        && strstr (err.text, "object 6 has cpuset without complete_cpuset"),
        "a file hwloc 2.9 would crash on is refused: %s", err.text);
}

/*
 * Oracle: design.md section 6 written naively over hwloc objects, without
 * the tree's slices.  Occupancy is read back from the tree (whose sums the
 * checker vouches for).
 */

static const hwloc_obj_type_t kept[] = {
    HWLOC_OBJ_CORE, HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
    HWLOC_OBJ_PACKAGE, HWLOC_OBJ_MACHINE,
};

static int kept_level (hwloc_obj_t o)
{
    for (int l = 0; l < NS_CT_NLEVELS; l++)
        if (o->type == kept[l])
            return l;
    return -1;
}

/* How many tree levels lie above o's nearest kept ancestor-or-self: the
 * deeper the common ancestor of two caches, the nearer they are. */
static int tree_depth (hwloc_obj_t o)
{
    int d = 0;
    while (o && kept_level (o) < 0)
        o = o->parent;
    for (; o; o = o->parent)
        if (kept_level (o) >= 0)
            d++;
    return d;
}

static ns_ctinfo_t node_info (const ns_cachetree_t *t, hwloc_obj_t o)
{
    ns_ctinfo_t info = { 0 };
    int level = kept_level (o);
    ns_cachetree_info (t, (ns_ctlevel_t)level,
                       level == NS_CT_MACHINE ? 0 : (int)o->logical_index,
                       &info);
    return info;
}

static int takes (const ns_cachetree_t *t, hwloc_obj_t o, uint64_t s,
                  double sigma)
{
    ns_ctinfo_t i = node_info (t, o);
    if (o->type == HWLOC_OBJ_MACHINE)
        return 1;
    return (double)s <= sigma * (double)i.size && i.occupied <= i.size
           && s <= i.size - i.occupied;
}

static hwloc_obj_t oracle_peer (hwloc_topology_t topo,
                                const ns_cachetree_t *t, hwloc_obj_t own,
                                uint64_t s, double sigma)
{
    hwloc_obj_t best = NULL;
    int best_d = -1;
    hwloc_obj_t o = NULL;
    while ((o = hwloc_get_next_obj_by_type (topo, own->type, o))) {
        if (o == own || !takes (t, o, s, sigma))
            continue;
        int d = tree_depth (hwloc_get_common_ancestor_obj (topo, own, o));
        if (d > best_d) {   /* logical order: first of a depth wins */
            best = o;
            best_d = d;
        }
    }
    return best;
}

static hwloc_obj_t oracle_anchor (hwloc_topology_t topo,
                                  const ns_cachetree_t *t, hwloc_obj_t core,
                                  uint64_t s, double sigma)
{
    for (hwloc_obj_t a = core->parent; a; a = a->parent) {
        if (kept_level (a) < 0)
            continue;
        ns_ctinfo_t i = node_info (t, a);
        if (a->type != HWLOC_OBJ_MACHINE
            && (double)s > sigma * (double)i.size)
            continue;
        if (takes (t, a, s, sigma))
            return a;
        hwloc_obj_t peer = oracle_peer (topo, t, a, s, sigma);
        if (peer)
            return peer;
    }
    return NULL;
}

static int oracle_core (hwloc_topology_t topo, const ns_cachetree_t *t,
                        hwloc_obj_t anchor, hwloc_obj_t origin)
{
    if (hwloc_obj_is_in_subtree (topo, origin, anchor) || origin == anchor)
        return (int)origin->logical_index;
    hwloc_obj_t best = NULL, c = NULL;
    int best_run = 0;
    while ((c = hwloc_get_next_obj_by_type (topo, HWLOC_OBJ_CORE, c))) {
        if (!hwloc_obj_is_in_subtree (topo, c, anchor))
            continue;
        int run = node_info (t, c).running;
        if (!best || run < best_run) {
            best = c;
            best_run = run;
        }
    }
    return best ? (int)best->logical_index : -1;
}

static unsigned rng = 2024;

static unsigned next_rand (void)
{
    rng = rng * 1103515245u + 12345u;
    return (rng >> 8) & 0xffffff;
}

static void test_oracle (const char *name, const char *spec, double sigma)
{
    static const uint64_t sizes[] = { K(4), K(24), K(200), K(700), M(3),
                                      M(12), M(20), M(40), M(90) };
    ns_error_t err;
    hwloc_topology_t topo = ns_cachetree_topology (spec, &err);
    ns_cachetree_t *t = ns_cachetree_from_topology (topo, NULL, &err);
    int ncores = ns_cachetree_count (t, NS_CT_CORE);
    int live[512], nlive = 0, mismatches = 0, bad = 0, places = 0;
    int peers = 0, at[NS_CT_NLEVELS] = { 0 };
    for (int step = 0; step < 3000; step++) {
        if (nlive > 0 && (nlive >= 512 || next_rand () % 100 < 45)) {
            int k = next_rand () % nlive;
            if (ns_cachetree_release (t, live[k], &err) < 0)
                bad++;
            live[k] = live[--nlive];
        }
        else {
            uint64_t s = sizes[next_rand () % 9];
            int origin = next_rand () % ncores;
            hwloc_obj_t oc = hwloc_get_obj_by_type (topo, HWLOC_OBJ_CORE,
                                                    origin);
            hwloc_obj_t a = oracle_anchor (topo, t, oc, s, sigma);
            int want_core = oracle_core (topo, t, a, oc);
            ns_ctplace_t p;
            int id = ns_cachetree_place (t, s, origin, sigma, &p, &err);
            places++;
            if (id < 0 || p.level != (ns_ctlevel_t)kept_level (a)
                || p.cache != (a->parent ? (int)a->logical_index : 0)
                || p.core != want_core) {
                if (mismatches++ < 3)
                    diag ("%s step %d: %llu@%d: got %s #%d core %d, oracle "
                          "%s #%u core %d", name, step,
                          (unsigned long long)s, origin,
                          level_str (p.level), p.cache, p.core,
                          level_str (kept_level (a)), a->logical_index,
                          want_core);
            }
            if (id >= 0) {
                live[nlive++] = id;
                at[p.level]++;
                peers += p.core != origin;
            }
        }
        if (ns_cachetree_check (t, &err) < 0 && bad++ == 0)
            diag ("%s step %d: %s", name, step, err.text);
    }
    is_int (mismatches, 0, "%s: %d random placements agree with the oracle",
            name, places);
    diag ("%s: L1 %d, L2 %d, L3 %d, package %d, machine %d; %d away from "
          "their origin", name, at[1], at[2], at[3], at[4], at[5], peers);
    is_int (bad, 0, "%s: check after each of 3000 random steps", name);
    while (nlive > 0)
        ns_cachetree_release (t, live[--nlive], &err);
    ok (check_tree (t, name) && all_empty (t), "%s: empty at the end", name);
    ns_cachetree_destroy (t);
    hwloc_topology_destroy (topo);
}

int main (void)
{
    plan_no_plan ();
    for (size_t i = 0; i < sizeof (scenarios) / sizeof (scenarios[0]); i++)
        run_scenario (&scenarios[i]);
    test_shapes ();
    test_os_cpuset ();
    test_bad_input ();
    test_explain ();
    test_names ();
    test_xml ();
    test_xml_cache_without_cores ();
    test_two_l1_depths ();
    test_check_xml ();
    test_oracle ("oracle AMD", AMD, 1.0);
    test_oracle ("oracle AMD sigma 0.5", AMD, 0.5);
    test_oracle ("oracle groups", GROUPS, 1.0);
    test_oracle ("oracle two-socket", TWOSOCKET, 0.5);
    test_oracle ("oracle dies", DIES, 1.0);
    return done_testing ();
}
