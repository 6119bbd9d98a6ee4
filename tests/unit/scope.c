/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scope.t - nodeshare.json's reach on a slurm.conf machine (sim/scope.c):
 * a partition it does not name is out of scope, no "partitions" means
 * all are in, GRES nodes are not striped unless stripe_gres_nodes. */
#include <stdlib.h>
#include <string.h>

#include "scope.h"
#include "slurmconf_test.h"
#include "tap.h"

static const char conf[] =
    "NodeName=n1 CPUs=4 Gres=gpu:1\n"
    "NodeName=n2 CPUs=4\n"
    "PartitionName=gpu Nodes=n1\n"
    "PartitionName=cpu Nodes=n2 Default=YES\n";

static ns_config_t *config (const char *text)
{
    ns_error_t err;
    ns_config_t *c = ns_config_load_string (text, "t.json", &err);
    if (!c)
        diag ("%s", err.text);
    return c;
}

int main (void)
{
    plan_no_plan ();
    ns_error_t err;
    ns_sconf_t *m = ns_sconf_parse (conf, strlen (conf), "t.conf", NULL,
                                    &err);
    ok (m && m->nparts == 2 && m->nnodes == 2,
        "a machine: two partitions, two nodes");
    if (!m)
        return done_testing ();
    unsigned char *oos, *ns;

    ns_config_t *c = config ("{ \"partitions\": [ \"cpu\" ] }");
    ok (c && ns_scope_masks (c, m, &oos, &ns, &err) == 0,
        "partitions [cpu]");
    ok (oos && oos[0] == 1 && oos[1] == 0,
        "  gpu is out of scope, cpu in");
    ok (ns && ns[0] == 1 && ns[1] == 0, "  n1 (GRES) is not striped, n2 is");
    free (oos);
    free (ns);
    ns_config_destroy (c);

    c = config ("{ \"stripe_gres_nodes\": true }");
    ok (c && ns_scope_masks (c, m, &oos, &ns, &err) == 0 && !oos && !ns,
        "no partitions, GRES nodes striped: no masks");
    ns_config_destroy (c);

    c = config ("{ \"partitions\": [] }");
    ok (c && ns_scope_masks (c, m, &oos, &ns, &err) == 0 && oos
        && oos[0] == 1 && oos[1] == 1,
        "an empty partitions list: every partition out of scope");
    free (oos);
    free (ns);
    ns_config_destroy (c);
    ns_sconf_free (m);
    return done_testing ();
}
