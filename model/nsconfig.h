/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsconfig.h - nodeshare.json, the one configuration file
 *
 * Read with json-c (C and C++ style comments allowed).  Every key is
 * checked: an unknown key, a wrong type or an out-of-range value fails the
 * load with "FILE: PATH: expected WHAT, got WHAT" where PATH is the JSON
 * path (e.g. programs.LAM.slowdown.ABQ, identity.patterns[2].match, or
 * programs["a.out"] for a key that is not a plain word; "top level" for
 * the file itself).  An unknown key gives "FILE: PATH: unknown key
 * (expected one of ...)"; a JSON syntax error "FILE:LINE:COL: MESSAGE".
 * A key given twice in one object: the last one counts (json-c).
 * Keys (all optional):
 *
 *   policy            string   pack|exclusive|spread|mixed|twins|same|
 *                              keep:P|min-slowdown          (twins)
 *   mode              string   normal|shadow                (normal);
 *                              shadow: the select plugin places every job
 *                              as stock cons_tres and only records what
 *                              the policy would have decided
 *   stripe_width      integer  1..16, width multiplier      (2)
 *   max_cotenants     integer  1..64, jobs per node         (2)
 *   max_slowdown      number   1.0..100, min-slowdown limit (1.15)
 *   fallback_after    integer  seconds >= 0, or -1 = never  (0)
 *   seed              integer  >= 0, 0 = lowest index first (0)
 *   small_job_cores   integer  0..1000000, or -1 = half the largest
 *                              node                          (-1)
 *   stripe_margin     number   0..10                         (0.02)
 *   default_speedup   number   0.01..100                    (1.0)
 *   default_slowdown  number   0.01..100                    (1.0)
 *   programs          object   NAME -> { spread_speedup: number 0.01..100,
 *                              slowdown: { NAME: number 0.01..100, ... },
 *                              weight: number 0..1e9 (unset reads 0),
 *                              runtime: seconds on one full node,
 *                              1..1e9 (closed experiments; 3600) }
 *   identity          object   { order: ["tag","script","name"],
 *                              patterns: [ { match: GLOB,
 *                                            program: NAME }, ... ] }
 *   cache             object   { sigma: number 0.01..1            (1.0),
 *                              default_footprint: integer bytes or
 *                              string with K/M/G/T suffix,
 *                              see ns_parse_size (0 = none given) }
 *   partitions        array    partition names where nodeshare acts;
 *   accounts          array    account names;
 *   qos               array    QOS names; a job is in scope when its
 *                              partition, account and QOS are each in the
 *                              list given (absent list: any); jobs out of
 *                              scope are placed as stock     (everywhere)
 *   stripe_gres_nodes boolean  stripe jobs without GRES onto nodes with
 *                              GRES                          (false)
 *   stripe_no_requeue boolean  stripe jobs that cannot be requeued (false)
 *   admin_comment     boolean  the decision is appended to the job's
 *                              AdminComment (accounting)     (true)
 *   metrics_file      string   absolute path of an OpenMetrics text file
 *                              of decision counters           (none)
 *   shadow            object   { max_bytes: size >= 64K     (64M),
 *                                keep: rotated files 1..1000  (4) }
 *
 * Program names (1..127 characters) are interned wherever they appear:
 * programs keys, slowdown keys, keep:P, pattern targets.  The programs
 * object is read first, so its names get the lowest ids in the order they
 * are first mentioned there, then keep:P, then the pattern targets.
 */
#ifndef NODESHARE_NSCONFIG_H
#define NODESHARE_NSCONFIG_H

#include <stdint.h>

#include "identity.h"
#include "interf.h"
#include "nserror.h"
#include "policy.h"
#include "progtab.h"

typedef struct ns_config ns_config_t;

/* "learn": online learning in the select plugin (nodeshare-learn(1)). */
typedef struct {
    int enabled;            /* default false */
    int min_observations;   /* jobs per figure, default 5 */
    int max_observations;   /* kept, oldest dropped, default 20000 */
    double max_se;          /* default 0.05 */
    int save_every;         /* s between state writes, default 60; 0: at
                               every observation */
    int explore;            /* stripe a job of a program without a figure
                               when nothing waits that could use the
                               nodes, to learn it; default false */
} ns_learn_conf_t;

/* "mode": the select plugin decides (normal) or only records what it
 * would decide while cons_tres places every job (shadow). */
typedef enum {
    NS_MODE_NORMAL = 0,
    NS_MODE_SHADOW,
} ns_mode_t;

/* Where nodeshare acts ("partitions", "accounts", "qos"). */
typedef enum {
    NS_SCOPE_PARTITION = 0,
    NS_SCOPE_ACCOUNT,
    NS_SCOPE_QOS,
    NS_SCOPE_KINDS
} ns_scope_kind_t;

#define NS_SCOPE_MAX 4096                 /* names in one scope list */
#define NS_SHADOW_MAX_BYTES_DEFAULT (64ULL * 1024 * 1024)
#define NS_SHADOW_MAX_BYTES_MIN (64ULL * 1024)
#define NS_SHADOW_KEEP_DEFAULT 4

/* The built-in defaults (what an absent file means).  NULL with errno
 * ENOMEM on failure. */
ns_config_t *ns_config_create (void);
/* srcname names the text in error messages (a file name; NULL reads
 * "(string)").  Returns a new config, or NULL with errno set (EINVAL for a
 * bad text, EFBIG above 16 MiB, ENOMEM) and err filled.  The caller
 * destroys the config. */
ns_config_t *ns_config_load_string (const char *text, const char *srcname,
                                    ns_error_t *err);
/* As ns_config_load_string() with srcname = path.  A file that cannot be
 * read fails with open(2)/read(2)'s errno and "PATH: cannot open: REASON";
 * a NUL byte in the file is an error. */
ns_config_t *ns_config_load_file (const char *path, ns_error_t *err);
/* Accepts NULL; preserves errno. */
void ns_config_destroy (ns_config_t *cfg);

const ns_policy_t *ns_config_policy (const ns_config_t *cfg);
/* Programs named in the file get ids 0.. in the order described above; the
 * caller may intern more (unknown programs) at run time. */
ns_progtab_t *ns_config_progtab (ns_config_t *cfg);
const ns_interf_t *ns_config_interf (const ns_config_t *cfg);
const ns_identity_t *ns_config_identity (const ns_config_t *cfg);
double ns_config_cache_sigma (const ns_config_t *cfg);
/* The "learn" settings (NULL cfg: learning off). */
const ns_learn_conf_t *ns_config_learn (const ns_config_t *cfg);
uint64_t ns_config_cache_footprint (const ns_config_t *cfg);
/* NULL cfg: normal. */
ns_mode_t ns_config_mode (const ns_config_t *cfg);

/* The key of a scope list in nodeshare.json ("partitions", ...). */
const char *ns_scope_key (ns_scope_kind_t k);
/* Names in the list, or -1 when the key is absent (any). */
int ns_config_scope_count (const ns_config_t *cfg, ns_scope_kind_t k);
const char *ns_config_scope_name (const ns_config_t *cfg, ns_scope_kind_t k,
                                  int i);
/* -1 when a job of this partition, account and QOS is in scope; else the
 * first list (ns_scope_kind_t) that leaves it out.  A NULL name is in no
 * list (a job without a known QOS is out of a "qos" scope). */
int ns_config_out_of_scope (const ns_config_t *cfg, const char *partition,
                            const char *account, const char *qos);
int ns_config_stripe_gres_nodes (const ns_config_t *cfg);
int ns_config_admin_comment (const ns_config_t *cfg);
/* NULL: no metrics file. */
const char *ns_config_metrics_file (const ns_config_t *cfg);
uint64_t ns_config_shadow_max_bytes (const ns_config_t *cfg);
int ns_config_shadow_keep (const ns_config_t *cfg);

/* Parse "512", "32K", "2M", "1.5G", "64KiB" into bytes.  Units K, M, G, T
 * in any case, optionally followed by B or iB, are always powers of 1024
 * ("B" alone is bytes); spaces may separate number and unit.  A fraction
 * needs a unit and is rounded down to whole bytes.  Returns 0, or -1 with
 * errno EINVAL (not a size: empty, negative, garbage) or ERANGE (above
 * 2^64 - 1); *bytes is unchanged on failure. */
int ns_parse_size (const char *s, uint64_t *bytes);

#endif /* !NODESHARE_NSCONFIG_H */
