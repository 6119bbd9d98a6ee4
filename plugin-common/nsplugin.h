/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsplugin.h - what the select and SPANK plugins share on the Slurm side
 *
 * Finding and loading nodeshare.json next to slurm.conf, and the text of
 * the log lines that report a configuration.  No Slurm header is needed:
 * callers pass slurm.conf's path (slurm_conf.slurm_conf in slurmctld) and
 * log the returned texts with their own Slurm logger, so that model errors
 * become one Slurm log line each (design.md section 1).
 */
#ifndef NODESHARE_NSPLUGIN_H
#define NODESHARE_NSPLUGIN_H

#include <stddef.h>

#include "nsconfig.h"
#include "nserror.h"

#define NS_PLUGIN_CONFIG_NAME "nodeshare.json"
/* slurm.conf when neither the caller nor $SLURM_CONF names one. */
#define NS_PLUGIN_DEFAULT_SLURM_CONF "/etc/slurm/slurm.conf"

/* The configuration file that belongs to slurm_conf: the directory of
 * slurm_conf (NULL or "": $SLURM_CONF, else the default above) plus
 * "nodeshare.json".  Writes it to buf; 0, or -1 with errno ERANGE when it
 * does not fit (buf is then ""), EINVAL for a NULL buf or len 0. */
int ns_plugin_config_path (const char *slurm_conf, char *buf, size_t len);

/* Load path.  A file that does not exist is not an error: the built-in
 * defaults are returned and *missing (if not NULL) is set to 1.  Any other
 * failure (unreadable, bad JSON, bad value) returns NULL with errno set and
 * err filled with the model's one-line message, which names the file.
 * The caller destroys the result with ns_config_destroy(). */
ns_config_t *ns_plugin_config_load (const char *path, int *missing,
                                    ns_error_t *err);

/* One line describing a loaded configuration for the log, e.g.
 * "policy twins, stripe_width 2, max_cotenants 2, 3 programs, 2 patterns
 * (/etc/slurm/nodeshare.json)" or "... (built-in defaults: no
 * /etc/slurm/nodeshare.json)".  Returns buf. */
char *ns_plugin_config_describe (ns_config_t *cfg, const char *path,
                                 int missing, char *buf, size_t len);

#endif /* !NODESHARE_NSPLUGIN_H */
