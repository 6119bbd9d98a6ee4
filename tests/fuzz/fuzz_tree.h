/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_tree.h - a cache tree (model cachetree.h) over a hostile topology,
 * driven by the input's bytes: trees over all cores and over a subset,
 * then places, occupies, releases and explanations, with the tree's own
 * checker after every step.  Shared by fuzz_tree_synthetic.c and
 * fuzz_tree_xml.c. */
#ifndef NODESHARE_FUZZ_TREE_H
#define NODESHARE_FUZZ_TREE_H

#include "fuzz.h"

#include <errno.h>

#include "cachetree.h"
#include "cachetree_test.h"

/* What the SPANK plugin does before loading (pin.c): hwloc's own XML
 * parser, no I/O plugins; and no hwloc complaints on stderr. */
static void fuzz_tree_env (void)
{
    setenv ("HWLOC_PLUGINS_BLACKLIST", "hwloc_pci,hwloc_opencl,hwloc_gl,"
            "hwloc_cuda,hwloc_nvml,hwloc_rsmi,hwloc_levelzero,"
            "hwloc_xml_libxml", 0);
    setenv ("HWLOC_HIDE_ERRORS", "1", 0);
}

/* hwloc 2.9 leaks on its error paths for some malformed descriptions and
 * XML files.  That is not what is tested here: what hwloc allocates while
 * it parses and loads is not reported as a leak (LSan's own switch, weak
 * so that builds without LSan link); the tree's allocations are. */
void __lsan_disable (void) __attribute__ ((weak));
void __lsan_enable (void) __attribute__ ((weak));

static void hwloc_leaks_ignored (int ignore)
{
    if (ignore && __lsan_disable)
        __lsan_disable ();
    else if (!ignore && __lsan_enable)
        __lsan_enable ();
}

static uint8_t next_byte (const uint8_t **p, const uint8_t *end)
{
    return *p < end ? *(*p)++ : 0;
}

static void check_tree (const ns_cachetree_t *t)
{
    ns_error_t err;
    FUZZ_CHECK (ns_cachetree_check (t, &err) == 0, "%s", err.text);
}

static void drive (ns_cachetree_t *t, const uint8_t *p, const uint8_t *end)
{
    static const double sigmas[] = { 1.0, 0.5, 0.25, 1e-9 };
    int ncores = ns_cachetree_count (t, NS_CT_CORE);
    int topo_cores = ns_cachetree_topology_cores (t);
    int live[64], nlive = 0;
    char why[1024];
    FUZZ_CHECK (ncores >= 1 && ncores <= topo_cores, "%d of %d cores",
                ncores, topo_cores);
    for (int l = 0; l < NS_CT_NLEVELS; l++)
        for (int i = 0; i < ns_cachetree_count (t, (ns_ctlevel_t)l); i++) {
            ns_ctinfo_t info;
            int idx = ns_cachetree_index (t, (ns_ctlevel_t)l, i);
            FUZZ_CHECK (ns_cachetree_info (t, (ns_ctlevel_t)l, idx, &info)
                        == 0, "level %d node %d (index %d) has info", l, i,
                        idx);
            FUZZ_CHECK (!hwloc_bitmap_iszero (info.cpus),
                        "level %d #%d has cpus", l, idx);
        }
    for (int step = 0; step < 48 && p < end; step++) {
        uint8_t op = next_byte (&p, end), a = next_byte (&p, end);
        uint8_t b = next_byte (&p, end);
        ns_ctplace_t pl;
        ns_error_t err;
        if (op % 4 < 2 || nlive == 0) {
            /* place: footprint 2^(a % 40) (+ b), origin a core of the tree
             * or any index */
            uint64_t size = ((uint64_t)1 << (a % 40)) + b;
            if (op & 0x40)
                size = 0;
            if (op & 0x80)
                size = UINT64_MAX - b;
            int origin = op & 0x20 ? (int)b - 8
                         : ns_cachetree_index (t, NS_CT_CORE, b % ncores);
            int id = ns_cachetree_place (t, size, origin, sigmas[op % 4 & 3],
                                         &pl, &err);
            if (id >= 0) {
                FUZZ_CHECK (pl.core >= 0 && pl.core < topo_cores,
                            "runs on core %d", pl.core);
                FUZZ_CHECK (!hwloc_bitmap_iszero (pl.cpus), "has cpus");
                int n = ns_cachetree_explain (t, id, why, sizeof (why));
                FUZZ_CHECK (n > 0 && strlen (why) < sizeof (why),
                            "explains");
                if (nlive < 64)
                    live[nlive++] = id;
            }
            else
                FUZZ_CHECK (errno == EINVAL || errno == EOVERFLOW
                            || errno == ENOSPC, "place: %s", err.text);
        }
        else if (op % 4 == 2) {
            int lv = 1 + a % (NS_CT_NLEVELS - 1);
            int cnt = ns_cachetree_count (t, (ns_ctlevel_t)lv);
            int idx = cnt > 0 && !(op & 0x20)
                      ? ns_cachetree_index (t, (ns_ctlevel_t)lv, b % cnt)
                      : (int)b;
            int id = ns_cachetree_occupy (t, (ns_ctlevel_t)lv, idx,
                                          (uint64_t)b << (a % 32), &err);
            if (id >= 0 && nlive < 64)
                live[nlive++] = id;
            if (id >= 0)
                ns_cachetree_explain (t, id, why, sizeof (why));
        }
        else {
            int k = a % nlive;
            FUZZ_CHECK (ns_cachetree_release (t, live[k], &err) == 0, "%s",
                        err.text);
            live[k] = live[--nlive];
        }
        check_tree (t);
    }
    while (nlive > 0) {
        ns_error_t err;
        FUZZ_CHECK (ns_cachetree_release (t, live[--nlive], &err) == 0,
                    "%s", err.text);
    }
    check_tree (t);
}

/* A tree over every core, then over every other core. */
static void fuzz_tree_topology (hwloc_topology_t topo, const uint8_t *ops,
                                size_t nops)
{
    ns_error_t err;
    ns_cachetree_t *t = ns_cachetree_from_topology (topo, NULL, &err);
    if (!t) {
        FUZZ_CHECK (err.text[0] != '\0', "a failed build says why");
        return;
    }
    drive (t, ops, ops + nops);
    ns_cachetree_destroy (t);

    hwloc_bitmap_t set = hwloc_bitmap_alloc ();
    int n = hwloc_get_nbobjs_by_type (topo, HWLOC_OBJ_CORE);
    for (int i = 0; i < n; i += 2) {
        hwloc_obj_t c = hwloc_get_obj_by_type (topo, HWLOC_OBJ_CORE, i);
        if (c && c->cpuset)
            hwloc_bitmap_or (set, set, c->cpuset);
    }
    if ((t = ns_cachetree_from_topology (topo, set, &err))) {
        drive (t, ops, ops + nops);
        ns_cachetree_destroy (t);
    }
    hwloc_bitmap_free (set);
}

#endif /* !NODESHARE_FUZZ_TREE_H */
