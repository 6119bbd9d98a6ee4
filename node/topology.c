/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology.c - loading the topology a cache tree is built over
 * (cachetree.h: ns_cachetree_topology(), ns_cachetree_cores_cpuset(),
 * ns_cachetree_load(), ns_cachetree_check_synthetic())
 *
 * A description is "live", an hwloc XML file or an hwloc synthetic
 * string.  hwloc 2.9 crashes on some XML (hwlocxml.h checks every file
 * first) and takes minutes over some synthetic strings (refused by their
 * number of PUs), so neither reaches hwloc unchecked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cachetree.h"
#include "cachetree_test.h"
#include "hwlocxml.h"

static int ends_with (const char *s, const char *suffix)
{
    size_t n = strlen (s), m = strlen (suffix);
    return n >= m && strcasecmp (s + n - m, suffix) == 0;
}

/* An upper bound on the PUs of a synthetic description: the product of
 * every number that starts a level or follows a ':' (hwloc's arities,
 * strtoul base 0 as hwloc reads them; numbers inside attributes follow
 * '=' or ',' and do not count).  Digits right after such a number are
 * another level to hwloc: "core:0108" is 010 (octal 8) cores of 8 PUs.
 * Saturates above NS_CT_SYNTHETIC_PUS. */
static double synthetic_pus (const char *spec)
{
    double pus = 1;
    const char *level_end = NULL;  /* where the last arity read ended */
    for (const char *s = spec; *s && pus <= NS_CT_SYNTHETIC_PUS; s++) {
        if (*s < '0' || *s > '9')
            continue;
        char prev = s == spec ? ' ' : s[-1];
        char *end;
        if (prev == ' ' || prev == '\n' || prev == '\t' || prev == ':'
            || prev == ')' || prev == ']' || s == level_end) {
            unsigned long n = strtoul (s, &end, 0);
            if (n > 1)
                pus *= (double)n;
            level_end = end;
            s = end - 1;
        }
        else    /* the rest of this number */
            while (s[1] >= '0' && s[1] <= '9')
                s++;
    }
    return pus;
}

int ns_cachetree_check_synthetic (const char *spec, ns_error_t *err)
{
    if (!spec)
        return ns_error_set (err, EINVAL, "no synthetic description");
    if (synthetic_pus (spec) > NS_CT_SYNTHETIC_PUS)
        return ns_error_set (err, EINVAL, "'%s': more than %d PUs: hwloc "
                             "2.9 takes seconds to minutes to build such a "
                             "synthetic topology (time quadratic in the "
                             "arity of a level)", spec, NS_CT_SYNTHETIC_PUS);
    return 0;
}

static int set_source (hwloc_topology_t topo, const char *spec,
                       ns_error_t *err)
{
    struct stat st;
    if (strcmp (spec, "live") == 0)
        return 0;
    if (stat (spec, &st) == 0 || strchr (spec, '/')
        || ends_with (spec, ".xml")) {
        FILE *f = fopen (spec, "r");
        if (!f)
            return ns_error_set (err, errno, "%s: cannot open: %s", spec,
                                 strerror (errno));
        int rc = ns_hwlocxml_check_file (f, spec, err);
        fclose (f);
        if (rc < 0)
            return -1;
        if (hwloc_topology_set_xml (topo, spec) < 0)
            return ns_error_set (err, EINVAL,
                                 "%s: not an hwloc XML topology", spec);
        return 0;
    }
    if (ns_cachetree_check_synthetic (spec, err) < 0)
        return -1;
    if (hwloc_topology_set_synthetic (topo, spec) < 0)
        return ns_error_set (err, EINVAL,
                             "'%s' is neither 'live', an XML file nor an "
                             "hwloc synthetic description "
                             "(HWLOC_SYNTHETIC_VERBOSE=1 says why)", spec);
    return 0;
}

hwloc_topology_t ns_cachetree_topology (const char *spec, ns_error_t *err)
{
    hwloc_topology_t topo;
    if (!spec || !*spec) {
        ns_error_set (err, EINVAL, "empty topology description");
        return NULL;
    }
    if (hwloc_topology_init (&topo) < 0) {
        ns_error_set (err, errno, "hwloc_topology_init: %s", strerror (errno));
        return NULL;
    }
    if (set_source (topo, spec, err) < 0)
        goto error;
    /* Logical indices must not depend on the caller's cgroup: a ledger
     * shared by all jobs of the node names caches by them. */
    errno = 0;
    if (hwloc_topology_set_flags (topo,
                                  HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) < 0
        || hwloc_topology_load (topo) < 0) {
        ns_error_set (err, errno ? errno : EINVAL,
                      "%s: cannot load topology: %s", spec, strerror (errno));
        goto error;
    }
    return topo;
error: {
        int saved = errno;
        hwloc_topology_destroy (topo);
        errno = saved;
        return NULL;
    }
}

static int parse_index (const char **sp, int *val)
{
    const char *s = *sp;
    long v = 0;
    if (*s < '0' || *s > '9')
        return -1;
    for (; *s >= '0' && *s <= '9'; s++)
        if ((v = v * 10 + (*s - '0')) > 1000000000L)
            return -1;
    *sp = s;
    *val = (int)v;
    return 0;
}

int ns_cachetree_cores_cpuset (hwloc_topology_t topo, const char *corelist,
                               hwloc_cpuset_t cpuset, ns_error_t *err)
{
    if (!topo || !corelist || !cpuset)
        return ns_error_set (err, EINVAL, "no topology, core list or cpuset");
    int ncores = hwloc_get_nbobjs_by_type (topo, HWLOC_OBJ_CORE);
    if (ncores < 0)
        return ns_error_set (err, EINVAL,
                             "the topology has cores at several depths");
    const char *s = corelist;
    hwloc_bitmap_zero (cpuset);
    do {
        int a, b;
        if (parse_index (&s, &a) < 0)
            goto syntax;
        b = a;
        if (*s == '-' && (s++, parse_index (&s, &b) < 0 || b < a))
            goto syntax;
        if (b >= ncores)
            return ns_error_set (err, EINVAL,
                                 "core %d out of range: the topology has %d "
                                 "cores (0-%d)", b, ncores, ncores - 1);
        for (int i = a; i <= b; i++) {
            hwloc_obj_t core = hwloc_get_obj_by_type (topo, HWLOC_OBJ_CORE, i);
            hwloc_bitmap_or (cpuset, cpuset, core->cpuset);
        }
    } while (*s++ == ',');
    if (s[-1] == '\0')
        return 0;
syntax:
    hwloc_bitmap_zero (cpuset);
    return ns_error_set (err, EINVAL,
                         "bad core list '%s': expected logical core indices "
                         "N or N-M separated by commas", corelist);
}

ns_cachetree_t *ns_cachetree_load (const char *spec, const char *corelist,
                                   ns_error_t *err)
{
    ns_cachetree_t *t = NULL;
    hwloc_cpuset_t set = NULL;
    hwloc_topology_t topo = ns_cachetree_topology (spec, err);
    if (!topo)
        return NULL;
    if (corelist) {
        if (!(set = hwloc_bitmap_alloc ())) {
            ns_error_set (err, ENOMEM, "out of memory");
            goto done;
        }
        if (ns_cachetree_cores_cpuset (topo, corelist, set, err) < 0)
            goto done;
    }
    t = ns_cachetree_from_topology (topo, set, err);
done: {
        int saved = errno;
        hwloc_bitmap_free (set);
        hwloc_topology_destroy (topo);
        errno = saved;
        return t;
    }
}
