/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config_int.h - what the parts of the nodeshare.json reader share
 *
 * config.c (the object, its accessors, loading a file or a string),
 * config_read.c (typed values, sizes, objects of known keys),
 * config_programs.c (programs, identity, the default figures) and
 * config_policy.c (the other top-level keys and their table).  Not part
 * of nsconfig.h's contract.
 */
#ifndef NODESHARE_CONFIG_INT_H
#define NODESHARE_CONFIG_INT_H

#include <stdint.h>

#include <json.h>

#include "jsonread.h"
#include "nsconfig.h"

struct ns_config {
    ns_policy_t policy;
    ns_progtab_t *progs;
    ns_interf_t *interf;
    ns_identity_t *identity;
    double cache_sigma;
    uint64_t cache_footprint;
    ns_learn_conf_t learn;
    ns_mode_t mode;
    struct {
        char **names;
        int n;
        int set;            /* the key was given (an empty list: nowhere) */
    } scope[NS_SCOPE_KINDS];
    int stripe_gres_nodes;
    int admin_comment;
    char *metrics_file;
    uint64_t shadow_max_bytes;
    int shadow_keep;
};

/* State of one load: where we are in the tree, for error messages, and
 * what the handlers of nested keys need from their parents. */
struct reader {
    ns_jreader_t j;         /* file name, error, JSON path */
    ns_config_t *cfg;
    int program;            /* programs.NAME being read */
    double def_speedup;     /* applied together once all keys are read */
    double def_slowdown;
    const char *pat_match;  /* identity.patterns[i] being read */
    const char *pat_program;
};

struct key {
    const char *name;
    int (*read) (struct reader *r, json_object *v);
};

/* A model/ setter failed (after our own checks, so out of memory): its
 * message and errno, prefixed with where we are.  -1. */
int ns_cfg_fail_sub (struct reader *r, const ns_error_t *sub);

/* A number in lo..hi into *out; expect says so in the message.  0 or -1. */
int ns_cfg_get_number (struct reader *r, json_object *v, double lo,
                       double hi, const char *expect, double *out);

/* NAME interned in the configuration's program table (checked first, with
 * a message that says where it is): its id, or -1. */
int ns_cfg_intern (struct reader *r, const char *name);

/* Every key of OBJ must be in KEYS (NULL-terminated); their handlers run
 * in table order, not file order.  0 or -1. */
int ns_cfg_read_object (struct reader *r, json_object *obj,
                        const struct key *keys);

/* config_programs.c: top-level keys "programs", "identity",
 * "default_speedup" and "default_slowdown". */
int ns_cfg_read_programs (struct reader *r, json_object *v);
int ns_cfg_read_identity (struct reader *r, json_object *v);
int ns_cfg_read_default_speedup (struct reader *r, json_object *v);
int ns_cfg_read_default_slowdown (struct reader *r, json_object *v);

/* config_policy.c: the whole file, ROOT, with r->cfg fresh.  0 or -1. */
int ns_cfg_read_top (struct reader *r, json_object *root);

#endif /* !NODESHARE_CONFIG_INT_H */
