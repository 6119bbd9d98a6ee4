/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config.c - nodeshare.json, read strictly: the object and its loading
 *
 * json-c builds the tree (its default, non-strict tokener accepts C and
 * C++ comments, which administrators need to annotate figures).  The tree
 * is then walked with one table of keys per object, so every key is known,
 * typed and ranged, and every failure names its JSON path.  The config is
 * built in a fresh object and only handed out once the whole file is good:
 * a failed load has no side effects.
 *
 * The readers of the keys: config_read.c (typed values, sizes, objects),
 * config_programs.c (programs, identity), config_policy.c (the rest and
 * the table of top-level keys); config_int.h is what they share.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json.h>

#include "config_int.h"
#include "jsonread.h"
#include "nsconfig.h"
#include "nsconfig_test.h"
#include "nsranges.h"

/*
 * Create / destroy / accessors
 */

ns_config_t *ns_config_create (void)
{
    ns_config_t *cfg = calloc (1, sizeof (*cfg));
    if (!cfg)
        return NULL;
    ns_policy_default (&cfg->policy);
    cfg->cache_sigma = 1.0;
    cfg->cache_footprint = 0;
    cfg->learn = (ns_learn_conf_t){ .enabled = 0, .min_observations = 5,
                                    .max_observations = 20000,
                                    .max_se = 0.05, .save_every = 60 };
    cfg->admin_comment = 1;
    cfg->shadow_max_bytes = NS_SHADOW_MAX_BYTES_DEFAULT;
    cfg->shadow_keep = NS_SHADOW_KEEP_DEFAULT;
    cfg->progs = ns_progtab_create ();
    cfg->interf = ns_interf_create ();
    cfg->identity = ns_identity_create ();
    if (!cfg->progs || !cfg->interf || !cfg->identity) {
        ns_config_destroy (cfg);
        errno = ENOMEM;
        return NULL;
    }
    return cfg;
}

void ns_config_destroy (ns_config_t *cfg)
{
    if (!cfg)
        return;
    int saved = errno;
    ns_progtab_destroy (cfg->progs);
    ns_interf_destroy (cfg->interf);
    ns_identity_destroy (cfg->identity);
    for (int k = 0; k < NS_SCOPE_KINDS; k++) {
        for (int i = 0; i < cfg->scope[k].n; i++)
            free (cfg->scope[k].names[i]);
        free (cfg->scope[k].names);
    }
    free (cfg->metrics_file);
    free (cfg);
    errno = saved;
}

const ns_policy_t *ns_config_policy (const ns_config_t *cfg)
{
    return cfg ? &cfg->policy : NULL;
}

ns_progtab_t *ns_config_progtab (ns_config_t *cfg)
{
    return cfg ? cfg->progs : NULL;
}

const ns_interf_t *ns_config_interf (const ns_config_t *cfg)
{
    return cfg ? cfg->interf : NULL;
}

const ns_identity_t *ns_config_identity (const ns_config_t *cfg)
{
    return cfg ? cfg->identity : NULL;
}

const ns_learn_conf_t *ns_config_learn (const ns_config_t *cfg)
{
    static const ns_learn_conf_t off = { 0, 5, 20000, 0.05, 60, 0 };
    return cfg ? &cfg->learn : &off;
}

ns_mode_t ns_config_mode (const ns_config_t *cfg)
{
    return cfg ? cfg->mode : NS_MODE_NORMAL;
}

const char *ns_mode_name (ns_mode_t mode)
{
    return mode == NS_MODE_SHADOW ? "shadow" : "normal";
}

double ns_config_cache_sigma (const ns_config_t *cfg)
{
    return cfg ? cfg->cache_sigma : 1.0;
}

const char *ns_scope_key (ns_scope_kind_t k)
{
    switch (k) {
    case NS_SCOPE_PARTITION: return "partitions";
    case NS_SCOPE_ACCOUNT: return "accounts";
    case NS_SCOPE_QOS: return "qos";
    case NS_SCOPE_KINDS: break;
    }
    return "?";
}

int ns_config_scope_count (const ns_config_t *cfg, ns_scope_kind_t k)
{
    if (!cfg || k < 0 || k >= NS_SCOPE_KINDS || !cfg->scope[k].set)
        return -1;
    return cfg->scope[k].n;
}

const char *ns_config_scope_name (const ns_config_t *cfg, ns_scope_kind_t k,
                                  int i)
{
    if (!cfg || k < 0 || k >= NS_SCOPE_KINDS || i < 0
        || i >= cfg->scope[k].n)
        return NULL;
    return cfg->scope[k].names[i];
}

int ns_config_out_of_scope (const ns_config_t *cfg, const char *partition,
                            const char *account, const char *qos)
{
    const char *v[NS_SCOPE_KINDS] = { partition, account, qos };
    if (!cfg)
        return -1;
    for (int k = 0; k < NS_SCOPE_KINDS; k++) {
        if (!cfg->scope[k].set)
            continue;
        int in = 0;
        for (int i = 0; v[k] && i < cfg->scope[k].n && !in; i++)
            in = !strcmp (cfg->scope[k].names[i], v[k]);
        if (!in)
            return k;
    }
    return -1;
}

int ns_config_stripe_gres_nodes (const ns_config_t *cfg)
{
    return cfg ? cfg->stripe_gres_nodes : 0;
}

int ns_config_admin_comment (const ns_config_t *cfg)
{
    return cfg ? cfg->admin_comment : 0;
}

const char *ns_config_metrics_file (const ns_config_t *cfg)
{
    return cfg ? cfg->metrics_file : NULL;
}

uint64_t ns_config_shadow_max_bytes (const ns_config_t *cfg)
{
    return cfg ? cfg->shadow_max_bytes : NS_SHADOW_MAX_BYTES_DEFAULT;
}

int ns_config_shadow_keep (const ns_config_t *cfg)
{
    return cfg ? cfg->shadow_keep : NS_SHADOW_KEEP_DEFAULT;
}

uint64_t ns_config_cache_footprint (const ns_config_t *cfg)
{
    return cfg ? cfg->cache_footprint : 0;
}

/*
 * Loading
 */

/* TEXT of LEN bytes (and a NUL) -> a configuration. */
static ns_config_t *load (const char *text, size_t len, const char *src,
                          ns_error_t *err)
{
    json_object *root = NULL;
    if (ns_json_parse_text (text, len, NS_CONFIG_MAX_BYTES, src, &root, err)
        < 0)
        return NULL;
    struct reader r = { .j = { .src = src, .err = err } };
    if (!(r.cfg = ns_config_create ())) {
        ns_error_set (err, ENOMEM, "%s: out of memory", src);
        goto error;
    }
    if (ns_cfg_read_top (&r, root) < 0)
        goto error;
    json_object_put (root);
    return r.cfg;
error:
    ns_config_destroy (r.cfg);
    json_object_put (root);
    return NULL;
}

ns_config_t *ns_config_load_string (const char *text, const char *srcname,
                                    ns_error_t *err)
{
    const char *src = srcname ? srcname : "(string)";
    if (!text) {
        ns_error_set (err, EINVAL, "%s: no text", src);
        return NULL;
    }
    return load (text, strlen (text), src, err);
}

/* Read all of fd into a NUL-terminated buffer of at most max bytes. */
static int read_all (int fd, size_t max, char **bufp, size_t *lenp)
{
    size_t len = 0, cap = 0;
    char *buf = NULL;
    for (;;) {
        if (len + 1 >= cap) {
            size_t ncap = cap ? cap * 2 : 8192;
            char *nbuf;
            if (ncap > max + 2)
                ncap = max + 2;
            if (ncap <= cap) {
                free (buf);
                errno = EFBIG;
                return -1;
            }
            if (!(nbuf = realloc (buf, ncap))) {
                free (buf);
                errno = ENOMEM;
                return -1;
            }
            buf = nbuf;
            cap = ncap;
        }
        ssize_t n = read (fd, buf + len, cap - len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int saved = errno;
            free (buf);
            errno = saved;
            return -1;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    *bufp = buf;
    *lenp = len;
    return 0;
}

static char *read_file (const char *path, size_t *lenp, ns_error_t *err)
{
    char *text;
    size_t len;
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        ns_error_set (err, e, "%s: cannot open: %s", path, strerror (e));
        return NULL;
    }
    int rc = read_all (fd, NS_CONFIG_MAX_BYTES, &text, &len);
    int e = errno;
    close (fd);
    if (rc < 0 && e == EFBIG) {
        ns_error_set (err, e, "%s: expected a file of at most 16 MiB, got "
                              "more", path);
        return NULL;
    }
    if (rc < 0) {
        ns_error_set (err, e, "%s: cannot read: %s", path, strerror (e));
        return NULL;
    }
    *lenp = len;    /* a NUL inside is an error of ns_json_parse_text() */
    return text;
}

ns_config_t *ns_config_load_file (const char *path, ns_error_t *err)
{
    if (!path) {
        ns_error_set (err, EINVAL, "no configuration file name");
        return NULL;
    }
    size_t len;
    char *text = read_file (path, &len, err);
    if (!text)
        return NULL;
    ns_config_t *cfg = load (text, len, path, err);
    int saved = errno;
    free (text);
    errno = saved;
    return cfg;
}
