/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsplugin.c - nodeshare.json next to slurm.conf (plugin/nsplugin.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nsplugin.h"
#include "tap.h"

static void test_path (void)
{
    static const struct {
        const char *conf, *want;
    } cases[] = {
        { "/etc/slurm/slurm.conf", "/etc/slurm/nodeshare.json" },
        { "/tmp/nscluster.x/slurm.conf", "/tmp/nscluster.x/nodeshare.json" },
        { "slurm.conf", "./nodeshare.json" },
        { "conf/slurm.conf", "conf/nodeshare.json" },
        { "/slurm.conf", "/nodeshare.json" },
    };
    char buf[256];
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        ns_plugin_config_path (cases[i].conf, buf, sizeof (buf));
        is_str (buf, cases[i].want, "config next to %s", cases[i].conf);
    }
    setenv ("SLURM_CONF", "/srv/slurm/slurm.conf", 1);
    ns_plugin_config_path (NULL, buf, sizeof (buf));
    is_str (buf, "/srv/slurm/nodeshare.json", "NULL: next to $SLURM_CONF");
    unsetenv ("SLURM_CONF");
    ns_plugin_config_path ("", buf, sizeof (buf));
    is_str (buf, "/etc/slurm/nodeshare.json", "no SLURM_CONF: /etc/slurm");
    errno = 0;
    ok (ns_plugin_config_path ("/a/very/long/dir/slurm.conf", buf, 10) < 0
            && errno == ERANGE && buf[0] == '\0',
        "too small a buffer: ERANGE and \"\"");
    errno = 0;
    ok (ns_plugin_config_path ("/x", NULL, 10) < 0 && errno == EINVAL,
        "NULL buffer: EINVAL");
}

static void test_load (void)
{
    char dir[] = "/tmp/nsplugin-test.XXXXXX";
    char path[512], desc[512];
    ns_error_t err;
    int missing = -1;

    ok (mkdtemp (dir) != NULL, "temporary directory");
    snprintf (path, sizeof (path), "%s/nodeshare.json", dir);

    ns_config_t *cfg = ns_plugin_config_load (path, &missing, &err);
    ok (cfg && missing == 1, "no file: built-in defaults, missing=1");
    ns_plugin_config_describe (cfg, path, missing, desc, sizeof (desc));
    ok (strstr (desc, "policy twins") && strstr (desc, "built-in defaults"),
        "describe: %s", desc);
    ns_config_destroy (cfg);

    FILE *f = fopen (path, "w");
    fputs ("{ \"policy\": \"exclusive\", /* comment */\n"
           "  \"identity\": { \"patterns\": [ { \"match\": \"lmp*\", "
           "\"program\": \"LAM\" } ] } }\n", f);
    fclose (f);
    cfg = ns_plugin_config_load (path, &missing, &err);
    ok (cfg && missing == 0, "a good file loads, missing=0");
    ns_plugin_config_describe (cfg, path, missing, desc, sizeof (desc));
    ok (strstr (desc, "policy exclusive") && strstr (desc, "1 patterns")
            && strstr (desc, path),
        "describe: %s", desc);
    ns_config_destroy (cfg);

    f = fopen (path, "w");
    fputs ("{ \"policy\": \"twins\", \"max_cotenants\": 0 }\n", f);
    fclose (f);
    errno = 0;
    cfg = ns_plugin_config_load (path, &missing, &err);
    ok (!cfg && errno == EINVAL, "a bad value fails with EINVAL");
    ok (strstr (err.text, path) && strstr (err.text, "max_cotenants"),
        "the message names the file and the key: %s", err.text);

    f = fopen (path, "w");
    fputs ("{ \"policy\": \"twins\",\n  \"seed\" 3 }\n", f);
    fclose (f);
    cfg = ns_plugin_config_load (path, &missing, &err);
    ok (!cfg && strstr (err.text, ":2:"),
        "a syntax error names the line: %s", err.text);
    unlink (path);
    rmdir (dir);
}

int main (void)
{
    plan_no_plan ();
    test_path ();
    test_load ();
    return done_testing ();
}
