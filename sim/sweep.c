/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sweep.c - sweep files, read strictly, and their cells
 *
 * Read as model/config.c reads nodeshare.json: json-c builds the tree
 * (comments allowed), then one table of keys per object, so every key is
 * known and typed and every failure names its JSON path.  The error text
 * helpers (quote, describe, the syntax error position) follow config.c's
 * so that both files speak alike.
 */
#define _GNU_SOURCE     /* vasprintf */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json.h>

#include "cluster.h"
#include "jsonread.h"
#include "fileio.h"
#include "sweep.h"

/* A sweep file is a few hundred bytes; anything near this is a mistake. */
#define SWEEP_MAX_BYTES (1024 * 1024)

struct reader {
    ns_jreader_t j;         /* file name, error, JSON path */
    ns_sweep_t *sw;
    ns_sweep_machine_t *machine;    /* machines[i] being read */
};

struct key {
    const char *name;
    int (*read) (struct reader *r, json_object *v);
};

/*
 * Messages
 */

static int no_memory (struct reader *r)
{
    ns_error_set (r->j.err, ENOMEM, "%s: out of memory", r->j.src);
    return -1;
}

/*
 * JSON paths: machines[1].nodes, vary["programs.LAM.weight"][0]
 */

/*
 * Typed values
 */

/* A string of 1..max-1 bytes without control characters. */
static int get_string (struct reader *r, json_object *v, size_t max,
                       const char *expect, const char **out)
{
    if (!json_object_is_type (v, json_type_string))
        return ns_jr_fail_got (&r->j, v, "%s", expect);
    const char *s = json_object_get_string (v);
    size_t n = strlen (s);
    if (n == 0 || n >= max || n != (size_t)json_object_get_string_len (v))
        return ns_jr_fail_got (&r->j, v, "%s", expect);
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20)
            return ns_jr_fail_got (&r->j, v, "%s", expect);
    *out = s;
    return 0;
}

/* One of a NULL-terminated list of words, into buf. */
static int get_word (struct reader *r, json_object *v,
                     const char *const *words, const char *expect,
                     char *buf, size_t len)
{
    if (json_object_is_type (v, json_type_string)) {
        const char *s = json_object_get_string (v);
        for (; *words; words++)
            if (strcmp (s, *words) == 0) {
                snprintf (buf, len, "%s", s);
                return 0;
            }
    }
    return ns_jr_fail_got (&r->j, v, "%s", expect);
}

static int dup_to (struct reader *r, const char *s, char **out)
{
    if (!(*out = strdup (s)))
        return no_memory (r);
    return 0;
}

/* A path in the file, resolved against its directory. */
static int resolve (struct reader *r, const char *s, char **raw, char **path)
{
    const char *dir = r->sw->dir;
    if (dup_to (r, s, raw) < 0)
        return -1;
    if (s[0] == '/' || !dir || !*dir || strcmp (dir, ".") == 0)
        return dup_to (r, s, path);
    size_t n = strlen (dir) + strlen (s) + 2;
    if (!(*path = malloc (n)))
        return no_memory (r);
    snprintf (*path, n, "%s/%s", dir, s);
    return 0;
}

/* Label characters: letters, digits and ._+=-; anything else becomes _,
 * runs of it one _, and the label is cut at NS_SWEEP_LABEL_MAX - 1. */
static void make_label (char *out, const char *s)
{
    size_t o = 0;
    for (; *s && o < NS_SWEEP_LABEL_MAX - 1; s++) {
        char c = *s;
        if (!isalnum ((unsigned char)c) && !strchr ("._+=-", c)) {
            if (o && out[o - 1] == '_')
                continue;
            c = '_';
        }
        out[o++] = c;
    }
    out[o] = '\0';
    if (o == 0)
        snprintf (out, NS_SWEEP_LABEL_MAX, "_");
}

static int read_key (void *r, const void *key, json_object *v)
{
    return ((const struct key *)key)->read (r, v);
}

/* An object of the keys of the table, in table order (model/jsonread.h);
 * expect says what it should have been. */
static int read_object (struct reader *r, json_object *obj,
                        const struct key *keys, const char *expect)
{
    if (!json_object_is_type (obj, json_type_object))
        return ns_jr_fail_got (&r->j, obj, "%s", expect);
    return ns_jr_read_keys (&r->j, obj, keys, sizeof (*keys), read_key, r);
}

/* A non-empty array of at most max elements; its length in *n. */
static int get_array (struct reader *r, json_object *v, size_t max,
                      const char *expect, size_t *n)
{
    if (!json_object_is_type (v, json_type_array)
        || json_object_array_length (v) == 0)
        return ns_jr_fail_got (&r->j, v, "%s", expect);
    *n = json_object_array_length (v);
    if (*n > max)
        return ns_jr_fail_errno (&r->j, EINVAL, "expected %s, got %zu elements (at most %zu)",
                     expect, *n, max);
    return 0;
}

/*
 * Keys
 */

static int read_traces (struct reader *r, json_object *v)
{
    static const char expect[] = "a non-empty array of trace file names";
    ns_sweep_t *sw = r->sw;
    size_t n;
    if (get_array (r, v, NS_SWEEP_MAX_CELLS, expect, &n) < 0)
        return -1;
    if (!(sw->traces = calloc (n, sizeof (*sw->traces))))
        return no_memory (r);
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx (v, i);
        size_t old = ns_jr_path_index (&r->j, i);
        const char *s;
        if (get_string (r, e, 4096, "a trace file name", &s) < 0)
            return -1;
        ns_sweep_trace_t *t = &sw->traces[sw->ntraces++];
        if (resolve (r, s, &t->raw, &t->path) < 0)
            return -1;
        /* KTH-SP2-1996-2.1-cln.swf.gz -> KTH-SP2-1996-2.1-cln */
        const char *base = strrchr (s, '/') ? strrchr (s, '/') + 1 : s;
        char stem[4096];
        snprintf (stem, sizeof (stem), "%s", base);
        static const char *const exts[] = { ".gz", ".swf", ".sacct", ".txt",
                                            NULL };
        for (const char *const *x = exts; *x; x++) {
            size_t sl = strlen (stem), xl = strlen (*x);
            if (sl > xl && strcmp (stem + sl - xl, *x) == 0)
                stem[sl - xl] = '\0';
        }
        make_label (t->label, stem);
        ns_jr_path_pop (&r->j, old);
    }
    return 0;
}

static int read_policies (struct reader *r, json_object *v)
{
    static const char expect[] = "\"all\" or a non-empty array of policy "
        "names (pack, exclusive, spread, mixed, twins, same, min-slowdown, "
        "keep:PROGRAM, all)";
    ns_sweep_t *sw = r->sw;
    if (json_object_is_type (v, json_type_string)) {
        if (strcmp (json_object_get_string (v), "all") != 0)
            return ns_jr_fail_got (&r->j, v, "%s", expect);
        return 0;           /* npolicies 0: all */
    }
    size_t n;
    if (get_array (r, v, 32, expect, &n) < 0)
        return -1;
    if (!(sw->policies = calloc (n, sizeof (char *))))
        return no_memory (r);
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx (v, i);
        size_t old = ns_jr_path_index (&r->j, i);
        const char *s;
        if (get_string (r, e, 64, "a policy name", &s) < 0)
            return -1;
        if (strchr (s, ',') || strchr (s, ' '))
            return ns_jr_fail_got (&r->j, e, "one policy name (no comma or space)");
        for (int k = 0; k < sw->npolicies; k++)
            if (strcmp (sw->policies[k], s) == 0)
                return ns_jr_fail_got (&r->j, e, "a policy not listed before");
        if (dup_to (r, s, &sw->policies[sw->npolicies]) < 0)
            return -1;
        sw->npolicies++;
        ns_jr_path_pop (&r->j, old);
    }
    return 0;
}

static int read_m_nodes (struct reader *r, json_object *v)
{
    int64_t i;
    if (ns_jr_get_integer (&r->j, v, 1, 1000000, "an integer 1..1000000", &i) < 0)
        return -1;
    r->machine->nodes = (int)i;
    return 0;
}

static int read_m_cores (struct reader *r, json_object *v)
{
    int64_t i;
    if (ns_jr_get_integer (&r->j, v, 1, NS_NODE_CORES_MAX,
                           "an integer " NS_NODE_CORES_RANGE, &i) < 0)
        return -1;
    r->machine->cores = (int)i;
    return 0;
}

static int read_m_slurm_conf (struct reader *r, json_object *v)
{
    const char *s;
    if (get_string (r, v, 4096, "a slurm.conf file name", &s) < 0)
        return -1;
    return resolve (r, s, &r->machine->slurm_conf_raw,
                    &r->machine->slurm_conf);
}

static int read_m_name (struct reader *r, json_object *v)
{
    const char *s;
    if (get_string (r, v, NS_SWEEP_LABEL_MAX, "a name of 1..31 "
                    "characters", &s) < 0)
        return -1;
    make_label (r->machine->label, s);
    return 0;
}

static const struct key machine_keys[] = {
    { "nodes", read_m_nodes },
    { "cores", read_m_cores },
    { "slurm_conf", read_m_slurm_conf },
    { "name", read_m_name },
    { NULL, NULL },
};

static int read_machines (struct reader *r, json_object *v)
{
    static const char expect[] = "a non-empty array of machines "
        "({\"nodes\": N, \"cores\": C}, {\"slurm_conf\": FILE} or {})";
    ns_sweep_t *sw = r->sw;
    size_t n;
    if (get_array (r, v, NS_SWEEP_MAX_CELLS, expect, &n) < 0)
        return -1;
    if (!(sw->machines = calloc (n, sizeof (*sw->machines))))
        return no_memory (r);
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx (v, i);
        size_t old = ns_jr_path_index (&r->j, i);
        ns_sweep_machine_t *m = &sw->machines[sw->nmachines++];
        r->machine = m;
        int rc = read_object (r, e, machine_keys, "an object with nodes "
                              "and cores, or slurm_conf (and a name)");
        r->machine = NULL;
        if (rc < 0)
            return -1;
        if (m->slurm_conf && (m->nodes || m->cores))
            return ns_jr_fail_errno (&r->j, EINVAL, "expected slurm_conf or nodes and cores, got "
                         "both (slurm_conf describes the machine)");
        if (!m->nodes != !m->cores)
            return ns_jr_fail_errno (&r->j, EINVAL, "expected nodes and cores together, got only "
                         "%s", m->nodes ? "nodes" : "cores");
        if (!m->label[0]) {
            if (m->slurm_conf) {
                const char *s = m->slurm_conf_raw;
                const char *base = strrchr (s, '/') ? strrchr (s, '/') + 1
                                                    : s;
                char stem[4096];
                snprintf (stem, sizeof (stem), "%s", base);
                size_t sl = strlen (stem);
                if (sl > 5 && strcmp (stem + sl - 5, ".conf") == 0)
                    stem[sl - 5] = '\0';
                make_label (m->label, stem);
            }
            else if (m->nodes)
                snprintf (m->label, sizeof (m->label), "%dx%d", m->nodes,
                          m->cores);
            else
                snprintf (m->label, sizeof (m->label), "header");
        }
        ns_jr_path_pop (&r->j, old);
    }
    return 0;
}

static int read_config (struct reader *r, json_object *v)
{
    const char *s;
    if (get_string (r, v, 4096, "a nodeshare.json file name", &s) < 0)
        return -1;
    return resolve (r, s, &r->sw->config_raw, &r->sw->config);
}

static int read_output (struct reader *r, json_object *v)
{
    const char *s;
    char *raw = NULL;
    if (get_string (r, v, 4096, "a directory name", &s) < 0)
        return -1;
    free (r->sw->output);
    r->sw->output = NULL;
    int rc = resolve (r, s, &raw, &r->sw->output);
    free (raw);
    return rc;
}

/* A vary key: a nodeshare.json path of dot-separated names. */
static int check_vary_key (struct reader *r, const char *key)
{
    const char *p = key;
    if (!*key)
        return ns_jr_fail_errno (&r->j, EINVAL, "expected a nodeshare.json key path "
                     "(e.g. fallback_after, programs.LAM.weight), got \"\"");
    for (const unsigned char *c = (const unsigned char *)key; *c; c++)
        if (*c < 0x20 || *c == 0x7f) {
            char q[NS_JSON_GOT_MAX];
            return ns_jr_fail_errno (&r->j, EINVAL, "expected a nodeshare.json "
                         "key path of dot-separated names without control "
                         "characters, got %s",
                         ns_json_quote (key, q, sizeof (q)));
        }
    for (;;) {
        size_t n = strcspn (p, ".");
        if (n == 0) {
            char q[NS_JSON_GOT_MAX];
            return ns_jr_fail_errno (&r->j, EINVAL, "expected a nodeshare.json key path of "
                         "dot-separated names (e.g. programs.LAM.weight), "
                         "got %s", ns_json_quote (key, q, sizeof (q)));
        }
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

/* A value's label: "KEY=VALUE" for scalars (KEY the last name of the
 * path), "KEY-vN" for objects and arrays (N from 1). */
static void vary_label (char *out, const char *key, json_object *v, size_t i)
{
    const char *last = strrchr (key, '.') ? strrchr (key, '.') + 1 : key;
    char buf[NS_SWEEP_LABEL_MAX * 4];
    if (json_object_is_type (v, json_type_object)
        || json_object_is_type (v, json_type_array))
        snprintf (buf, sizeof (buf), "%s-v%zu", last, i + 1);
    else if (json_object_is_type (v, json_type_string))
        snprintf (buf, sizeof (buf), "%s=%s", last,
                  json_object_get_string (v));
    else
        snprintf (buf, sizeof (buf), "%s=%s", last,
                  json_object_to_json_string_ext (v, JSON_C_TO_STRING_PLAIN));
    make_label (out, buf);
}

static int read_vary (struct reader *r, json_object *v)
{
    ns_sweep_t *sw = r->sw;
    if (!json_object_is_type (v, json_type_object))
        return ns_jr_fail_got (&r->j, v, "an object of nodeshare.json key paths, each "
                         "with a non-empty array of values");
    int n = json_object_object_length (v);
    if (n > NS_SWEEP_MAX_VARY)
        return ns_jr_fail_errno (&r->j, EINVAL, "expected at most %d keys, got %d",
                     NS_SWEEP_MAX_VARY, n);
    if (n && !(sw->vary = calloc ((size_t)n, sizeof (*sw->vary))))
        return no_memory (r);
    json_object_object_foreach (v, key, vals) {
        size_t old = ns_jr_path_key (&r->j, key);
        if (check_vary_key (r, key) < 0)
            return -1;
        size_t nv;
        if (get_array (r, vals, NS_SWEEP_MAX_CELLS, "a non-empty array of "
                       "values", &nv) < 0)
            return -1;
        ns_sweep_vary_t *vy = &sw->vary[sw->nvary++];
        if (dup_to (r, key, &vy->key) < 0)
            return -1;
        if (!(vy->values = calloc (nv, sizeof (char *)))
            || !(vy->labels = calloc (nv, sizeof (*vy->labels))))
            return no_memory (r);
        for (size_t i = 0; i < nv; i++) {
            json_object *e = json_object_array_get_idx (vals, i);
            const char *text = json_object_to_json_string_ext (
                e, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
            for (size_t k = 0; k < i; k++)
                if (strcmp (vy->values[k], text) == 0) {
                    ns_jr_path_index (&r->j, i);
                    return ns_jr_fail_got (&r->j, e, "a value not listed before");
                }
            if (dup_to (r, text, &vy->values[i]) < 0)
                return -1;
            vy->nvalues++;
            vary_label (vy->labels[i], key, e, i);
        }
        ns_jr_path_pop (&r->j, old);
    }
    return 0;
}

static int read_o_backfill (struct reader *r, json_object *v)
{
    static const char *const w[] = { "easy", "none", NULL };
    return get_word (r, v, w, "easy or none", r->sw->backfill,
                     sizeof (r->sw->backfill));
}

static int read_o_overrun (struct reader *r, json_object *v)
{
    static const char *const w[] = { "kill", "run", NULL };
    return get_word (r, v, w, "kill or run", r->sw->overrun,
                     sizeof (r->sw->overrun));
}

static int read_o_format (struct reader *r, json_object *v)
{
    static const char *const w[] = { "swf", "sacct", "auto", NULL };
    return get_word (r, v, w, "swf, sacct or auto", r->sw->format,
                     sizeof (r->sw->format));
}

static int read_o_baseline (struct reader *r, json_object *v)
{
    static const char *const w[] = { "pack", "exclusive", NULL };
    return get_word (r, v, w, "pack or exclusive", r->sw->baseline,
                     sizeof (r->sw->baseline));
}

static int read_o_bf_depth (struct reader *r, json_object *v)
{
    int64_t i;
    if (ns_jr_get_integer (&r->j, v, 1, 1000000, "an integer 1..1000000", &i) < 0)
        return -1;
    r->sw->bf_depth = (int)i;
    return 0;
}

static int read_o_max_jobs (struct reader *r, json_object *v)
{
    int64_t i;
    if (ns_jr_get_integer (&r->j, v, 1, 1000000000, "an integer 1..1000000000", &i)
        < 0)
        return -1;
    r->sw->max_jobs = i;
    return 0;
}

static int read_o_seed (struct reader *r, json_object *v)
{
    return ns_jr_get_integer (&r->j, v, 0, 2147483647, "an integer 0..2147483647",
                        &r->sw->seed);
}

static int read_o_assign (struct reader *r, json_object *v)
{
    if (!json_object_is_type (v, json_type_boolean))
        return ns_jr_fail_got (&r->j, v, "true or false");
    r->sw->assign_classes = json_object_get_boolean (v);
    return 0;
}

static const struct key option_keys[] = {
    { "backfill", read_o_backfill },
    { "bf_depth", read_o_bf_depth },
    { "max_jobs", read_o_max_jobs },
    { "overrun", read_o_overrun },
    { "format", read_o_format },
    { "baseline", read_o_baseline },
    { "assign_classes", read_o_assign },
    { "seed", read_o_seed },
    { NULL, NULL },
};

static int read_options (struct reader *r, json_object *v)
{
    return read_object (r, v, option_keys, "an object of replay options");
}

static int read_sbatch (struct reader *r, json_object *v)
{
    static const char expect[] = "a non-empty array of sbatch options, "
        "e.g. [\"--partition=batch\", \"--time=30\"]";
    ns_sweep_t *sw = r->sw;
    size_t n;
    if (get_array (r, v, 64, expect, &n) < 0)
        return -1;
    if (!(sw->sbatch = calloc (n, sizeof (char *))))
        return no_memory (r);
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx (v, i);
        size_t old = ns_jr_path_index (&r->j, i);
        const char *s;
        if (get_string (r, e, 1024, "an sbatch option starting with -", &s)
            < 0)
            return -1;
        if (s[0] != '-')
            return ns_jr_fail_got (&r->j, e, "an sbatch option starting with -");
        if (dup_to (r, s, &sw->sbatch[sw->nsbatch]) < 0)
            return -1;
        sw->nsbatch++;
        ns_jr_path_pop (&r->j, old);
    }
    return 0;
}

static const struct key top_keys[] = {
    { "traces", read_traces },
    { "machines", read_machines },
    { "vary", read_vary },
    { "policies", read_policies },
    { "config", read_config },
    { "options", read_options },
    { "output", read_output },
    { "sbatch", read_sbatch },
    { NULL, NULL },
};

/*
 * Text -> tree
 */

static int parse_text (const char *text, size_t len, const char *src,
                       json_object **rootp, ns_error_t *err)
{
    return ns_json_parse_text (text, len, SWEEP_MAX_BYTES, src, rootp, err);
}

/*
 * Loading
 */

void ns_sweep_free (ns_sweep_t *sw)
{
    if (!sw)
        return;
    int saved = errno;
    for (int i = 0; i < sw->ntraces; i++) {
        free (sw->traces[i].raw);
        free (sw->traces[i].path);
    }
    free (sw->traces);
    for (int i = 0; i < sw->nmachines; i++) {
        free (sw->machines[i].slurm_conf_raw);
        free (sw->machines[i].slurm_conf);
    }
    free (sw->machines);
    for (int i = 0; i < sw->nvary; i++) {
        for (int k = 0; k < sw->vary[i].nvalues; k++)
            free (sw->vary[i].values[k]);
        free (sw->vary[i].values);
        free (sw->vary[i].labels);
        free (sw->vary[i].key);
    }
    free (sw->vary);
    for (int i = 0; i < sw->npolicies; i++)
        free (sw->policies[i]);
    free (sw->policies);
    for (int i = 0; i < sw->nsbatch; i++)
        free (sw->sbatch[i]);
    free (sw->sbatch);
    free (sw->src);
    free (sw->dir);
    free (sw->output);
    free (sw->config_raw);
    free (sw->config);
    free (sw);
    errno = saved;
}

ns_sweep_t *ns_sweep_parse (const char *text, size_t len, const char *src,
                            const char *dir, ns_error_t *err)
{
    src = src ? src : "(sweep)";
    json_object *root = NULL;
    if (!text) {
        ns_error_set (err, EINVAL, "%s: no text", src);
        return NULL;
    }
    /* The text need not end in a NUL: json-c is given a copy that does. */
    if (len > SWEEP_MAX_BYTES) {
        ns_error_set (err, EFBIG, "%s: expected at most %d bytes, got %zu",
                      src, SWEEP_MAX_BYTES, len);
        return NULL;
    }
    char *copy = malloc (len + 1);
    if (!copy) {
        ns_error_set (err, ENOMEM, "%s: out of memory", src);
        return NULL;
    }
    memcpy (copy, text, len);
    copy[len] = '\0';
    int prc = parse_text (copy, len, src, &root, err);
    free (copy);
    if (prc < 0)
        return NULL;
    ns_sweep_t *sw = calloc (1, sizeof (*sw));
    struct reader r = { .j = { .src = src, .err = err }, .sw = sw };
    if (!sw || !(sw->src = strdup (src))
        || (dir && !(sw->dir = strdup (dir)))) {
        no_memory (&r);
        goto error;
    }
    sw->seed = -1;
    if (read_object (&r, root, top_keys, "an object with traces, "
                     "machines, vary, policies, config, options, output, "
                     "sbatch") < 0)
        goto error;
    if (!sw->ntraces) {
        ns_error_set (err, EINVAL, "%s: traces: expected a non-empty array "
                      "of trace file names, got nothing (the key is "
                      "required)", src);
        goto error;
    }
    if (!sw->nmachines) {   /* the trace header's */
        if (!(sw->machines = calloc (1, sizeof (*sw->machines)))) {
            no_memory (&r);
            goto error;
        }
        sw->nmachines = 1;
        snprintf (sw->machines[0].label, NS_SWEEP_LABEL_MAX, "header");
    }
    int64_t cells = (int64_t)sw->ntraces * sw->nmachines;
    for (int k = 0; k < sw->nvary && cells <= NS_SWEEP_MAX_CELLS; k++)
        cells *= sw->vary[k].nvalues;
    if (cells > NS_SWEEP_MAX_CELLS) {
        ns_error_set (err, EINVAL, "%s: expected at most %d cells (traces x "
                      "machines x the values of each vary key), got more",
                      src, NS_SWEEP_MAX_CELLS);
        goto error;
    }
    sw->ncells = (int)cells;
    json_object_put (root);
    return sw;
error:
    json_object_put (root);
    ns_sweep_free (sw);
    return NULL;
}

ns_sweep_t *ns_sweep_load (const char *path, ns_error_t *err)
{
    size_t len;
    char *text = ns_read_file (path, SWEEP_MAX_BYTES, &len, err);
    if (!text)
        return NULL;
    char *dir = strdup (path);
    if (!dir) {
        free (text);
        ns_error_set (err, ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    char *slash = strrchr (dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    else
        snprintf (dir, strlen (dir) + 1, ".");
    ns_sweep_t *sw = ns_sweep_parse (text, len, path, dir, err);
    free (text);
    free (dir);
    if (sw && !sw->output) {
        /* sweep.json -> sweep.out, beside it */
        size_t n = strlen (path);
        const char *base = strrchr (path, '/') ? strrchr (path, '/') + 1
                                               : path;
        const char *dot = strrchr (base, '.');
        size_t keep = dot && dot != base ? (size_t)(dot - path) : n;
        if (!(sw->output = malloc (keep + 5))) {
            ns_sweep_free (sw);
            ns_error_set (err, ENOMEM, "%s: out of memory", path);
            return NULL;
        }
        snprintf (sw->output, keep + 5, "%.*s.out", (int)keep, path);
    }
    return sw;
}

/*
 * Cells
 */

int ns_sweep_cell (const ns_sweep_t *sw, int i, ns_sweep_cell_t *cell)
{
    if (!sw || i < 0 || i >= sw->ncells)
        return -1;
    memset (cell, 0, sizeof (*cell));
    cell->index = i;
    int rest = i;
    for (int k = sw->nvary - 1; k >= 0; k--) {
        cell->vary_value[k] = rest % sw->vary[k].nvalues;
        rest /= sw->vary[k].nvalues;
    }
    cell->machine = rest % sw->nmachines;
    cell->trace = rest / sw->nmachines;
    int width = 3;
    for (int n = sw->ncells - 1; n >= 1000; n /= 10)
        width++;
    size_t len = (size_t)snprintf (cell->name, sizeof (cell->name),
                                   "%0*d-%s-%s", width, i,
                                   sw->traces[cell->trace].label,
                                   sw->machines[cell->machine].label);
    for (int k = 0; k < sw->nvary && len < sizeof (cell->name); k++)
        len += (size_t)snprintf (cell->name + len, sizeof (cell->name) - len,
                                 "-%s",
                                 sw->vary[k].labels[cell->vary_value[k]]);
    return 0;
}

/* Append to a growing string; returns -1 when out of memory. */
__attribute__ ((format (printf, 2, 3)))
static int cat (char **s, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    char *more = NULL;
    int n = vasprintf (&more, fmt, ap);
    va_end (ap);
    if (n < 0)
        return -1;
    size_t old = *s ? strlen (*s) : 0;
    char *grown = realloc (*s, old + (size_t)n + 1);
    if (!grown) {
        free (more);
        return -1;
    }
    memcpy (grown + old, more, (size_t)n + 1);
    free (more);
    *s = grown;
    return 0;
}

char *ns_sweep_cell_key (const ns_sweep_t *sw, const ns_sweep_cell_t *cell)
{
    const ns_sweep_machine_t *m = &sw->machines[cell->machine];
    char *s = NULL;
    int bad = cat (&s, "trace=%s machine=", sw->traces[cell->trace].raw);
    if (m->slurm_conf_raw)
        bad |= cat (&s, "slurm_conf:%s", m->slurm_conf_raw);
    else if (m->nodes)
        bad |= cat (&s, "%dx%d", m->nodes, m->cores);
    else
        bad |= cat (&s, "header");
    bad |= cat (&s, " config=%s", sw->config_raw ? sw->config_raw : "-");
    for (int k = 0; k < sw->nvary; k++)
        bad |= cat (&s, " %s=%s", sw->vary[k].key,
                    sw->vary[k].values[cell->vary_value[k]]);
    bad |= cat (&s, " policies=");
    for (int k = 0; k < sw->npolicies; k++)
        bad |= cat (&s, "%s%s", k ? "," : "", sw->policies[k]);
    if (!sw->npolicies)
        bad |= cat (&s, "all");
    bad |= cat (&s, " backfill=%s overrun=%s format=%s baseline=%s "
                "bf_depth=%d max_jobs=%lld assign_classes=%d seed=%lld",
                sw->backfill, sw->overrun, sw->format, sw->baseline,
                sw->bf_depth, (long long)sw->max_jobs, sw->assign_classes,
                (long long)sw->seed);
    if (bad) {
        free (s);
        return NULL;
    }
    return s;
}

char *ns_sweep_cell_config (const ns_sweep_t *sw, const ns_sweep_cell_t *cell,
                            const char *base_text, const char *base_src,
                            ns_error_t *err)
{
    json_object *root = NULL;
    char *out = NULL;
    if (parse_text (base_text, strlen (base_text), base_src, &root, err) < 0)
        return NULL;
    if (!json_object_is_type (root, json_type_object)) {
        ns_error_set (err, EINVAL, "%s: top level: expected an object",
                      base_src);
        goto done;
    }
    for (int k = 0; k < sw->nvary; k++) {
        const ns_sweep_vary_t *vy = &sw->vary[k];
        json_object *obj = root;
        char *path = strdup (vy->key);
        if (!path) {
            ns_error_set (err, ENOMEM, "%s: out of memory", sw->src);
            goto done;
        }
        char *seg = path, *dot;
        while ((dot = strchr (seg, '.'))) {
            *dot = '\0';
            json_object *next;
            if (!json_object_object_get_ex (obj, seg, &next)) {
                next = json_object_new_object ();
                json_object_object_add (obj, seg, next);
            }
            else if (!json_object_is_type (next, json_type_object)) {
                char qk[NS_JSON_GOT_MAX], qs[NS_JSON_GOT_MAX];
                ns_error_set (err, EINVAL, "%s: vary[%s]: expected a "
                              "path through objects of %s, but %s is not an "
                              "object there", sw->src,
                              ns_json_quote (vy->key, qk, sizeof (qk)),
                              base_src, ns_json_quote (seg, qs, sizeof (qs)));
                free (path);
                goto done;
            }
            obj = next;
            seg = dot + 1;
        }
        json_object *val = json_tokener_parse (
            vy->values[cell->vary_value[k]]);
        /* null is a NULL object: json-c stores it as a JSON null */
        json_object_object_add (obj, seg, val);
        free (path);
    }
    out = strdup (json_object_to_json_string_ext (
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
              | JSON_C_TO_STRING_NOSLASHESCAPE));
    if (!out)
        ns_error_set (err, ENOMEM, "%s: out of memory", sw->src);
done:
    json_object_put (root);
    return out;
}
