/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeshare-tree - place tasks in a node's space-bounded cache tree
 *
 * What the SPANK plugin would do with ranks of given footprints on a given
 * machine: the tree of node/cachetree.h over an hwloc topology (the live
 * machine, an XML export or a synthetic description), the tasks placed in
 * command-line order, one line (or JSON object) per task.  For
 * administrators checking a node, and for the golden-output tests.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
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
"  -s, --sigma X        dilation, 0 < X <= 1: a task fits a cache when\n"
"                       SIZE <= X * cache size (default 1)\n"
"  -j, --json           print a JSON array, one object per task: task,\n"
"                       size, origin, level, cache, core, cpus\n"
"  -e, --explain        also say why each task went where it went\n"
"  -h, --help           show this help\n"
"\n"
"SIZE is bytes with an optional K, M, G or T suffix (powers of 1024).\n"
"CORE is an hwloc logical core index.  A task is anchored at L1, L2, L3,\n"
"a package or the machine (main memory); 'cache' is the hwloc logical\n"
"index of that cache within its level, 'core' the logical index of the\n"
"core it runs on, 'cpus' the OS CPUs it may run on.\n";

static void vdie (int status, const char *fmt, va_list ap)
    __attribute__ ((noreturn));

static void vdie (int status, const char *fmt, va_list ap)
{
    fprintf (stderr, "nodeshare-tree: ");
    vfprintf (stderr, fmt, ap);
    fprintf (stderr, "\n");
    exit (status);
}

/* The work failed: exit 1. */
static void die (const char *fmt, ...) __attribute__ ((format (printf, 1, 2),
                                                         noreturn));
static void die (const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vdie (NS_EXIT_FAIL, fmt, ap);
}

/* The command line is wrong: exit 2. */
static void die_usage (const char *fmt, ...)
    __attribute__ ((format (printf, 1, 2), noreturn));
static void die_usage (const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vdie (NS_EXIT_USAGE, fmt, ap);
}

static double parse_sigma (const char *s)
{
    char *end;
    errno = 0;
    double v = strtod (s, &end);
    if (errno || end == s || *end || !ns_sigma_ok (v))
        die_usage ("bad --sigma '%s': expected a number " NS_SIGMA_RANGE, s);
    return v;
}

static void parse_opts (int argc, char **argv, struct opts *o)
{
    static const struct option longopts[] = {
        { "topology", required_argument, NULL, 't' },
        { "cpuset", required_argument, NULL, 'c' },
        { "sigma", required_argument, NULL, 's' },
        { "json", no_argument, NULL, 'j' },
        { "explain", no_argument, NULL, 'e' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    *o = (struct opts){ .topology = "live", .sigma = 1.0 };
    opterr = 0;     /* our messages, without argv[0]'s path */
    while ((c = getopt_long (argc, argv, "+:t:c:s:jeh", longopts, NULL))
           != -1) {
        switch (c) {
        case 't': o->topology = optarg; break;
        case 'c': o->cores = optarg; break;
        case 's': o->sigma = parse_sigma (optarg); break;
        case 'j': o->json = 1; break;
        case 'e': o->explain = 1; break;
        case 'h': fputs (usage_text, stdout); exit (NS_EXIT_OK);
        default:
            ns_cmd_bad_option ("nodeshare-tree", c, argv);
            exit (NS_EXIT_USAGE);
        }
    }
    if (optind >= argc)
        die_usage ("no task given: expected SIZE@CORE arguments (see --help)");
}

/* "24M@3": the last '@' splits, so the size may not contain one. */
static void parse_request (const char *arg, struct request *r)
{
    const char *at = strrchr (arg, '@');
    char size[64];
    char *end;
    if (!at || at == arg || !at[1])
        die_usage ("bad task '%s': expected SIZE@CORE", arg);
    if ((size_t)(at - arg) >= sizeof (size))
        die_usage ("bad size in task '%s': too long", arg);
    memcpy (size, arg, at - arg);
    size[at - arg] = '\0';
    if (ns_parse_size (size, &r->size) < 0)
        die_usage ("bad size '%s' in task '%s': expected bytes with an optional "
             "K, M, G or T suffix", size, arg);
    errno = 0;
    long core = strtol (at + 1, &end, 10);
    if (errno || *end || at[1] < '0' || at[1] > '9' || core > 1000000000L)
        die_usage ("bad core '%s' in task '%s': expected a logical core index",
             at + 1, arg);
    r->arg = arg;
    r->core = (int)core;
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
        die ("out of memory");
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

static void place_all (ns_cachetree_t *t, const struct opts *o,
                       const struct request *reqs, struct result *res, int n)
{
    ns_error_t err;
    for (int i = 0; i < n; i++) {
        ns_ctplace_t *p = &res[i].p;
        if (ns_cachetree_place (t, reqs[i].size, reqs[i].core, o->sigma, p,
                                &err) < 0)
            die ("task '%s': %s", reqs[i].arg, err.text);
        if (hwloc_bitmap_list_snprintf (res[i].cpus, sizeof (res[i].cpus),
                                        p->cpus) < 0)
            die ("cannot print the cpus of task '%s'", reqs[i].arg);
        if (o->explain)
            ns_cachetree_explain (t, p->task, res[i].why,
                                  sizeof (res[i].why));
    }
}

static void print_all (const struct opts *o, const struct request *reqs,
                       const struct result *res, int n)
{
    json_object *array = o->json ? json_object_new_array () : NULL;
    if (o->json && !array)
        die ("out of memory");
    for (int i = 0; i < n; i++) {
        const char *why = o->explain ? res[i].why : NULL;
        if (array)
            json_object_array_add (array, task_json (&reqs[i], &res[i].p,
                                                     res[i].cpus, why));
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
}

/* ns_cachetree_load() in three steps, so that errors say which option
 * they are about. */
static ns_cachetree_t *load_tree (const struct opts *o)
{
    ns_error_t err;
    hwloc_cpuset_t set = NULL;
    hwloc_topology_t topo = ns_cachetree_topology (o->topology, &err);
    if (!topo)
        die_usage ("--topology: %s", err.text);
    if (o->cores) {
        if (!(set = hwloc_bitmap_alloc ()))
            die ("out of memory");
        if (ns_cachetree_cores_cpuset (topo, o->cores, set, &err) < 0)
            die_usage ("--cpuset: %s", err.text);
    }
    ns_cachetree_t *t = ns_cachetree_from_topology (topo, set, &err);
    if (!t)
        die ("%s", err.text);
    hwloc_bitmap_free (set);
    hwloc_topology_destroy (topo);
    return t;
}

int main (int argc, char **argv)
{
    struct opts o;
    parse_opts (argc, argv, &o);
    int n = argc - optind;
    struct request *reqs = calloc (n, sizeof (*reqs));
    struct result *res = calloc (n, sizeof (*res));
    if (!reqs || !res)
        die ("out of memory");
    for (int i = 0; i < n; i++)
        parse_request (argv[optind + i], &reqs[i]);
    ns_cachetree_t *t = load_tree (&o);
    place_all (t, &o, reqs, res, n);
    print_all (&o, reqs, res, n);
    ns_cachetree_destroy (t);
    free (res);
    free (reqs);
    return 0;
}
