/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeshare-tree - place tasks in a node's space-bounded cache tree
 *
 * What the SPANK plugin would do with ranks of given footprints on a given
 * machine: the tree of node/cachetree.h over an hwloc topology (the live
 * machine, an XML export or a synthetic description), the tasks placed in
 * command-line order, one line (or JSON object) per task.  For
 * administrators checking a node, and for the golden-output tests.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cachetree.h"
#include "cmdline.h"
#include "nsranges.h"
#include "nsconfig.h"

struct opts {
    const char *topology;
    const char *cores;
    double sigma;
    int json;
    int explain;
};

struct request {
    const char *arg;
    uint64_t size;
    int core;
};

static const char usage_text[] =
"Usage: nodeshare-tree [OPTIONS] SIZE@CORE...\n"
"Place tasks of SIZE bytes whose origin is CORE, in order, in the\n"
"space-bounded cache tree of a node, and print where each one went.\n"
"\n"
"  -t, --topology SPEC  'live' (default), an hwloc XML file, or an hwloc\n"
"                       synthetic description with cache sizes, e.g.\n"
"                       \"pack:2 l3:1(size=30MiB) l2:12(size=256KiB)\n"
"                        l1d:1(size=32KiB) core:1 pu:2\"\n"
"                       (there size=30MB is 30,000,000 bytes, 30MiB 30*2^20)\n"
"  -c, --cpuset LIST    build the tree over these cores only: hwloc logical\n"
"                       core indices, e.g. 0-3,8\n"
"  -s, --sigma X        dilation, 0.01 to 1: a task fits a cache when\n"
"                       SIZE <= X * cache size (default 1)\n"
"  -j, --json           print a JSON array, one object per task: task,\n"
"                       size, origin, level, cache, core, cpus\n"
"  -e, --explain        also say why each task went where it went\n"
"  -h, --help           show this help\n"
"  -V, --version        show the version\n"
"\n"
"SIZE is bytes with an optional K, M, G or T suffix (powers of 1024).\n"
"CORE is an hwloc logical core index.  A task is anchored at L1, L2, L3,\n"
"a package or the machine (main memory); 'cache' is the hwloc logical\n"
"index of that cache within its level, 'core' the logical index of the\n"
"core it runs on, 'cpus' the OS CPUs it may run on.\n";

/* Failures return these up to main (), which exits with NS_EXIT_FAIL
 * (the work failed) or NS_EXIT_USAGE (the command line is wrong). */
#define FAIL (-1)
#define USAGE (-2)

/* "nodeshare-tree: message"; returns FAIL. */
#define die(...) ns_cmd_die ("nodeshare-tree", __VA_ARGS__)

/* "nodeshare-tree: message"; returns USAGE. */
#define die_usage(...) (die (__VA_ARGS__), USAGE)

static int parse_sigma (const char *s, double *sigma)
{
    char *end;
    errno = 0;
    double v = strtod (s, &end);
    if (errno || end == s || *end || !ns_sigma_ok (v))
        return die_usage ("bad --sigma '%s': expected a number "
                          NS_SIGMA_RANGE, s);
    *sigma = v;
    return 0;
}

/* 0, 1 after --help or --version, or USAGE. */
static int parse_opts (int argc, char **argv, struct opts *o)
{
    static const struct option longopts[] = {
        { "topology", required_argument, NULL, 't' },
        { "cpuset", required_argument, NULL, 'c' },
        { "sigma", required_argument, NULL, 's' },
        { "json", no_argument, NULL, 'j' },
        { "explain", no_argument, NULL, 'e' },
        NS_CMD_LONGOPTS_END,
    };
    int c;
    *o = (struct opts){ .topology = "live", .sigma = 1.0 };
    opterr = 0;     /* our messages, without argv[0]'s path */
    while ((c = getopt_long (argc, argv, "+:t:c:s:jehV", longopts, NULL))
           != -1) {
        switch (c) {
        case 't': o->topology = optarg; break;
        case 'c': o->cores = optarg; break;
        case 's':
            if (parse_sigma (optarg, &o->sigma) < 0)
                return USAGE;
            break;
        case 'j': o->json = 1; break;
        case 'e': o->explain = 1; break;
        case 'h': fputs (usage_text, stdout); return 1;
        case 'V':
            ns_cmd_version ("nodeshare-tree", PACKAGE_VERSION);
            return 1;
        default:
            ns_cmd_bad_option ("nodeshare-tree", c, argv);
            return USAGE;
        }
    }
    if (optind >= argc)
        return die_usage ("no task given: expected SIZE@CORE arguments "
                          "(see --help)");
    return 0;
}

/* "24M@3": the last '@' splits, so the size may not contain one. */
static int parse_request (const char *arg, struct request *r)
{
    const char *at = strrchr (arg, '@');
    char size[64];
    char *end;
    if (!at || at == arg || !at[1])
        return die_usage ("bad task '%s': expected SIZE@CORE", arg);
    if ((size_t)(at - arg) >= sizeof (size))
        return die_usage ("bad size in task '%s': too long", arg);
    memcpy (size, arg, at - arg);
    size[at - arg] = '\0';
    if (ns_parse_size (size, &r->size) < 0)
        return die_usage ("bad size '%s' in task '%s': expected bytes with "
                          "an optional K, M, G or T suffix", size, arg);
    errno = 0;
    long core = strtol (at + 1, &end, 10);
    if (errno || *end || at[1] < '0' || at[1] > '9' || core > 1000000000L)
        return die_usage ("bad core '%s' in task '%s': expected a logical "
                          "core index", at + 1, arg);
    r->arg = arg;
    r->core = (int)core;
    return 0;
}

static json_object *size_json (uint64_t bytes)
{
#if defined (JSON_C_VERSION_NUM) && JSON_C_VERSION_NUM >= (14 << 8) /* 0.14 */
    return json_object_new_uint64 (bytes);
#else
    return json_object_new_int64 ((int64_t)bytes);
#endif
}

static json_object *task_json (const struct request *r, const ns_ctplace_t *p,
                               const char *cpus, const char *why)
{
    json_object *o = json_object_new_object ();
    if (!o)
        return NULL;
    json_object_object_add (o, "task", json_object_new_int (p->task));
    json_object_object_add (o, "size", size_json (r->size));
    json_object_object_add (o, "origin", json_object_new_int (r->core));
    json_object_object_add (o, "level", json_object_new_string (
                                ns_cachetree_level_name (p->level)));
    json_object_object_add (o, "cache", json_object_new_int (p->cache));
    json_object_object_add (o, "core", json_object_new_int (p->core));
    json_object_object_add (o, "cpus", json_object_new_string (cpus));
    if (why)
        json_object_object_add (o, "why", json_object_new_string (why));
    return o;
}

static void print_line (const struct request *r, const ns_ctplace_t *p,
                        const char *cpus, const char *why)
{
    char size[32];
    printf ("task %d: %s@%d -> ", p->task,
            ns_cachetree_size_str (r->size, size, sizeof (size)), r->core);
    if (p->level == NS_CT_MACHINE)
        printf ("machine");
    else
        printf ("%s #%d", ns_cachetree_level_name (p->level), p->cache);
    printf (", core %d, cpus %s\n", p->core, cpus);
    if (why)
        printf ("  %s\n", why);
}

/* Where one task went, kept until everything is placed: a failing task
 * prints its error and nothing else. */
struct result {
    ns_ctplace_t p;
    char cpus[256];
    char why[1024];
};

static int place_all (ns_cachetree_t *t, const struct opts *o,
                      const struct request *reqs, struct result *res, int n)
{
    ns_error_t err;
    for (int i = 0; i < n; i++) {
        ns_ctplace_t *p = &res[i].p;
        if (ns_cachetree_place (t, reqs[i].size, reqs[i].core, o->sigma, p,
                                &err) < 0)
            return die ("task '%s': %s", reqs[i].arg, err.text);
        if (hwloc_bitmap_list_snprintf (res[i].cpus, sizeof (res[i].cpus),
                                        p->cpus) < 0)
            return die ("cannot print the cpus of task '%s'", reqs[i].arg);
        if (o->explain)
            ns_cachetree_explain (t, p->task, res[i].why,
                                  sizeof (res[i].why));
    }
    return 0;
}

static int print_all (const struct opts *o, const struct request *reqs,
                      const struct result *res, int n)
{
    json_object *array = o->json ? json_object_new_array () : NULL;
    if (o->json && !array)
        return die ("out of memory");
    for (int i = 0; i < n; i++) {
        const char *why = o->explain ? res[i].why : NULL;
        json_object *task = array ? task_json (&reqs[i], &res[i].p,
                                               res[i].cpus, why)
                                  : NULL;
        if (array && !task) {
            json_object_put (array);
            return die ("out of memory");
        }
        if (array)
            json_object_array_add (array, task);
        else
            print_line (&reqs[i], &res[i].p, res[i].cpus, why);
    }
    if (array) {
        printf ("%s\n", json_object_to_json_string_ext (array,
                                JSON_C_TO_STRING_PRETTY
                                | JSON_C_TO_STRING_SPACED
                                | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put (array);
    }
    return 0;
}

/* ns_cachetree_load() in three steps, so that errors say which option
 * they are about. */
static int load_tree (const struct opts *o, ns_cachetree_t **tp)
{
    ns_error_t err;
    hwloc_cpuset_t set = NULL;
    int rc = 0;
    hwloc_topology_t topo = ns_cachetree_topology (o->topology, &err);
    if (!topo)
        return die_usage ("--topology: %s", err.text);
    if (o->cores) {
        if (!(set = hwloc_bitmap_alloc ()))
            rc = die ("out of memory");
        else if (ns_cachetree_cores_cpuset (topo, o->cores, set, &err) < 0)
            rc = die_usage ("--cpuset: %s", err.text);
    }
    if (rc == 0 && !(*tp = ns_cachetree_from_topology (topo, set, &err)))
        rc = die ("%s", err.text);
    hwloc_bitmap_free (set);
    hwloc_topology_destroy (topo);
    return rc;
}

int main (int argc, char **argv)
{
    struct opts o;
    ns_cachetree_t *t = NULL;
    int rc = parse_opts (argc, argv, &o);
    if (rc)
        return rc > 0 ? NS_EXIT_OK : NS_EXIT_USAGE;
    int n = argc - optind;
    struct request *reqs = calloc (n, sizeof (*reqs));
    struct result *res = calloc (n, sizeof (*res));
    if (!reqs || !res)
        rc = die ("out of memory");
    for (int i = 0; rc == 0 && i < n; i++)
        rc = parse_request (argv[optind + i], &reqs[i]);
    if (rc == 0)
        rc = load_tree (&o, &t);
    if (rc == 0)
        rc = place_all (t, &o, reqs, res, n);
    if (rc == 0)
        rc = print_all (&o, reqs, res, n);
    ns_cachetree_destroy (t);
    free (res);
    free (reqs);
    return rc == 0 ? NS_EXIT_OK : rc == USAGE ? NS_EXIT_USAGE : NS_EXIT_FAIL;
}
