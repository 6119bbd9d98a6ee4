/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsplugin.c - nodeshare.json next to slurm.conf (see nsplugin.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nsplugin.h"
#include "policy.h"
#include "progtab.h"

int ns_plugin_config_path (const char *slurm_conf, char *buf, size_t len)
{
    if (!buf || len == 0) {
        errno = EINVAL;
        return -1;
    }
    buf[0] = '\0';
    if (!slurm_conf || !*slurm_conf)
        slurm_conf = getenv ("SLURM_CONF");
    if (!slurm_conf || !*slurm_conf)
        slurm_conf = NS_PLUGIN_DEFAULT_SLURM_CONF;

    /* The directory part: everything up to the last '/', "." if none. */
    const char *slash = strrchr (slurm_conf, '/');
    int dirlen = slash ? (int)(slash - slurm_conf) : 1;
    const char *dir = slash ? slurm_conf : ".";
    if (slash && dirlen == 0) {         /* "/slurm.conf" */
        dir = "/";
        dirlen = 0;
    }
    int n = snprintf (buf, len, "%.*s/%s", dirlen, dir,
                      NS_PLUGIN_CONFIG_NAME);
    if (n < 0 || (size_t)n >= len) {
        buf[0] = '\0';
        errno = ERANGE;
        return -1;
    }
    return 0;
}

ns_config_t *ns_plugin_config_load (const char *path, int *missing,
                                    ns_error_t *err)
{
    struct stat st;

    if (missing)
        *missing = 0;
    if (!path) {
        ns_error_set (err, EINVAL, "no configuration file name");
        return NULL;
    }
    /* Absent means "defaults"; present but unreadable is an error that
     * ns_config_load_file() words precisely. */
    if (stat (path, &st) < 0 && errno == ENOENT) {
        ns_config_t *cfg = ns_config_create ();
        if (!cfg) {
            ns_error_set (err, ENOMEM, "%s: out of memory", path);
            return NULL;
        }
        if (missing)
            *missing = 1;
        return cfg;
    }
    return ns_config_load_file (path, err);
}

char *ns_plugin_config_describe (ns_config_t *cfg, const char *path,
                                 int missing, char *buf, size_t len)
{
    char pname[NS_PROGRAM_NAME_MAX + 8];
    const ns_policy_t *pol = ns_config_policy (cfg);
    char scope[256] = "";
    int at = 0;
    ns_policy_name (pol, ns_config_progtab (cfg), pname, sizeof (pname));
    /* ", partitions batch+short, qos normal": where it acts */
    for (int k = 0; k < NS_SCOPE_KINDS; k++) {
        int n = ns_config_scope_count (cfg, k);
        if (n < 0 || at >= (int)sizeof (scope) - 1)
            continue;
        at += snprintf (scope + at, sizeof (scope) - at, ", %s %s",
                        ns_scope_key (k), n ? "" : "(none)");
        for (int i = 0; i < n && at < (int)sizeof (scope) - 1; i++)
            at += snprintf (scope + at, sizeof (scope) - at, "%s%s",
                            i ? "+" : "", ns_config_scope_name (cfg, k, i));
    }
    snprintf (buf, len,
              "%spolicy %s, stripe_width %d, max_cotenants %d, "
              "fallback_after %lld%s, %d programs, %d patterns (%s%s)",
              ns_config_mode (cfg) == NS_MODE_SHADOW ? "shadow mode, " : "",
              pname, pol->stripe_width, pol->max_cotenants,
              (long long)pol->fallback_after, scope,
              ns_progtab_count (ns_config_progtab (cfg)),
              ns_identity_npatterns (ns_config_identity (cfg)),
              missing ? "built-in defaults: no " : "", path ? path : "?");
    return buf;
}
