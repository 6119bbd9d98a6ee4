/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeshare-place - show what a policy decides for a sequence of jobs
 *
 *   nodeshare-place [--config FILE] [--policy NAME] [--nodes N] [--cores C]
 *                   PROGRAM:TASKS[xCPUS][@END] ...
 *
 * Places the jobs in order on an empty cluster and prints the model's
 * one-line explanation for each.  "-" as a job ends the job given by its
 * number: "end:3".  Used by the README's demonstration and by people who
 * want to see a policy's rule on a handful of jobs.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "cmdline.h"
#include "nsconfig.h"
#include "placeopts.h"

#define PROG "nodeshare-place"

static void usage (FILE *f)
{
    fprintf (f,
"Usage: nodeshare-place [OPTIONS] JOB...\n"
"Place jobs in order on an empty cluster and explain each decision.\n"
"\n"
"JOB is PROGRAM:TASKS or PROGRAM:TASKSxCPUS (cpus per task), e.g. LAM:24;\n"
"end:K ends the K-th job given (1-based) and frees its nodes.\n"
"\n"
"  -c, --config FILE   nodeshare.json to use (default: built-in defaults,\n"
"                      policy twins, no program figures: every job is\n"
"                      packed as stock Slurm would; give the figures, e.g.\n"
"                      examples/abq-lam-lsd.json, to see striping)\n"
"  -p, --policy NAME   override the policy (pack, exclusive, spread, mixed,\n"
"                      twins, same, keep:PROGRAM, min-slowdown)\n"
"  -n, --nodes N       nodes in the cluster (default 4)\n"
"  -C, --cores C       cores per node (default 24)\n"
"  -h, --help          show this help\n"
"  -V, --version       show the version\n");
}

struct opts {
    const char *config;
    const char *policy;
    int nodes;
    int cores;
};

static int parse_opts (int argc, char **argv, struct opts *o)
{
    static const struct option longopts[] = {
        NS_POLICY_LONGOPTS,
        NS_SIZE_LONGOPTS,
        NS_CMD_LONGOPTS_END,
    };
    int ch;
    *o = (struct opts){ NULL, NULL, 4, 24 };
    opterr = 0;     /* ns_cmd_bad_option () says it, without argv[0] */
    while ((ch = getopt_long (argc, argv, ":c:p:n:C:hV", longopts, NULL))
           != -1) {
        switch (ch) {
        case 'c': o->config = optarg; break;
        case 'p': o->policy = optarg; break;
        case 'n':
        case 'C':
            if (ns_cmd_size_opt (PROG, ch, optarg, &o->nodes, &o->cores) < 0)
                return -1;
            break;
        case 'h': usage (stdout); exit (NS_EXIT_OK);
        case 'V': ns_cmd_version (PROG, PACKAGE_VERSION); exit (NS_EXIT_OK);
        default: ns_cmd_bad_option ("nodeshare-place", ch, argv); return -1;
        }
    }
    if (optind >= argc) {
        fprintf (stderr, "nodeshare-place: no job given (see --help)\n");
        return -1;
    }
    return 0;
}

/* "LAM:24" or "LAM:4x6" */
static int parse_job (const char *arg, ns_progtab_t *progs,
                      ns_request_t *r, uint64_t id)
{
    char name[NS_PROGRAM_NAME_MAX];
    const char *colon = strrchr (arg, ':');
    if (!colon || colon == arg || (size_t)(colon - arg) >= sizeof (name))
        goto bad;
    memcpy (name, arg, colon - arg);
    name[colon - arg] = '\0';
    char *end;
    long tasks = strtol (colon + 1, &end, 10);
    long cpus = 1;
    if (*end == 'x')
        cpus = strtol (end + 1, &end, 10);
    if (*end || tasks < 1 || tasks > 1000000 || cpus < 1
        || cpus > NS_NODE_CORES_MAX)
        goto bad;
    ns_request_init (r, id, ns_progtab_intern (progs, name, NULL),
                     (int)tasks);
    r->cpus_per_task = (int)cpus;
    return 0;
bad:
    fprintf (stderr, "nodeshare-place: job '%s': expected PROGRAM:TASKS or "
             "PROGRAM:TASKSxCPUS, e.g. LAM:24\n", arg);
    return -1;
}

static int end_job (ns_cluster_t *c, const char *arg, uint64_t njobs)
{
    char *end;
    long k = strtol (arg + 4, &end, 10);
    ns_error_t err;
    if (*end || k < 1 || (uint64_t)k > njobs) {
        fprintf (stderr, "nodeshare-place: '%s': expected end:K with K a "
                 "job given before\n", arg);
        return -1;
    }
    if (ns_cluster_remove_job (c, (uint64_t)k, &err) < 0)
        printf ("end job %ld: not running\n", k);
    else
        printf ("end job %ld\n", k);
    return 0;
}

static int place_all (ns_config_t *cfg, const ns_policy_t *pol,
                      const struct opts *o, int njobs, char **jobs)
{
    ns_error_t err;
    ns_cluster_t *c = ns_cluster_create (o->nodes, o->cores, 1, &err);
    ns_placement_t *pl = ns_placement_create (o->nodes);
    int rc = 0;
    uint64_t id = 0;
    if (!c || !pl) {
        fprintf (stderr, "nodeshare-place: %s\n", err.text);
        rc = -1;
    }
    for (int i = 0; rc == 0 && i < njobs; i++) {
        if (strncmp (jobs[i], "end:", 4) == 0) {
            if (end_job (c, jobs[i], id) < 0)
                rc = -NS_EXIT_USAGE;
            continue;
        }
        ns_request_t r;
        if (parse_job (jobs[i], ns_config_progtab (cfg), &r, ++id) < 0) {
            rc = -NS_EXIT_USAGE;    /* a malformed JOB argument */
            break;
        }
        if (ns_place (c, pol, ns_config_interf (cfg), ns_config_progtab (cfg),
                      &r, pl, &err) < 0) {
            fprintf (stderr, "nodeshare-place: %s\n", err.text);
            rc = -1;
            break;
        }
        printf ("%s\n", pl->explain);
        if (pl->verdict == NS_PLACED)
            ns_cluster_add_job (c, r.id, r.program, pl->shares, pl->n,
                                pl->flags, &err);
    }
    ns_placement_destroy (pl);
    ns_cluster_destroy (c);
    return rc;
}

int main (int argc, char **argv)
{
    struct opts o;
    ns_error_t err;
    if (parse_opts (argc, argv, &o) < 0)
        return NS_EXIT_USAGE;
    ns_config_t *cfg = o.config ? ns_config_load_file (o.config, &err)
                                : ns_config_create ();
    if (!cfg) {
        fprintf (stderr, "nodeshare-place: %s\n", o.config ? err.text
                 : "out of memory");
        return o.config ? NS_EXIT_USAGE : NS_EXIT_FAIL;
    }
    ns_policy_t pol = *ns_config_policy (cfg);
    if (o.policy
        && ns_policy_parse (&pol, o.policy, ns_config_progtab (cfg), &err) < 0) {
        fprintf (stderr, "nodeshare-place: --policy: %s\n", err.text);
        ns_config_destroy (cfg);
        return NS_EXIT_USAGE;
    }
    int rc = place_all (cfg, &pol, &o, argc - optind, argv + optind);
    ns_config_destroy (cfg);
    return rc == -NS_EXIT_USAGE ? NS_EXIT_USAGE
           : rc < 0             ? NS_EXIT_FAIL
                                : NS_EXIT_OK;
}
