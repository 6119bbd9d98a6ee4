/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metricsdoc.c - the metrics document, written and read
 * (sim/metricsdoc.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "metricsdoc.h"

/* A policy entry's keys in the order they are written.  "policy" and the
 * conditional "load" come first and are written by hand. */
enum kind { I64, DBL, RATIO };

static const struct field {
    const char *key;
    enum kind kind;
    size_t off;
} fields[] = {
    { "jobs", I64, offsetof (ns_metrics_t, jobs) },
    { "never_fit", I64, offsetof (ns_metrics_t, never) },
    { "unfinished", I64, offsetof (ns_metrics_t, unfinished) },
    { "makespan_s", DBL, offsetof (ns_metrics_t, makespan_s) },
    { "utilization", DBL, offsetof (ns_metrics_t, utilization) },
    { "utilization_held", DBL, offsetof (ns_metrics_t, utilization_held) },
    { "jobs_per_h", DBL, offsetof (ns_metrics_t, jobs_per_h) },
    { "work_core_h_per_h", DBL, offsetof (ns_metrics_t, work_per_h) },
    { "throughput_ratio", RATIO, offsetof (ns_metrics_t, throughput_ratio) },
    { "mean_wait_s", DBL, offsetof (ns_metrics_t, mean_wait_s) },
    { "median_wait_s", DBL, offsetof (ns_metrics_t, median_wait_s) },
    { "p95_wait_s", DBL, offsetof (ns_metrics_t, p95_wait_s) },
    { "mean_response_s", DBL, offsetof (ns_metrics_t, mean_response_s) },
    { "mean_bsld", DBL, offsetof (ns_metrics_t, mean_bsld) },
    { "shared_fraction", DBL, offsetof (ns_metrics_t, shared_fraction) },
    { "twin_pairs", I64, offsetof (ns_metrics_t, twin_pairs) },
    { "over_limit", I64, offsetof (ns_metrics_t, over_limit) },
    { "killed", I64, offsetof (ns_metrics_t, killed) },
    { "max_cotenants", I64, offsetof (ns_metrics_t, max_cotenants) },
    { "wall_s", DBL, offsetof (ns_metrics_t, wall_s) },
};

static json_object *policy_json (const ns_metrics_t *m)
{
    json_object *o = json_object_new_object ();
    if (!o)
        return NULL;
    json_object_object_add (o, "policy", json_object_new_string (m->policy));
    if (m->load >= 0)
        json_object_object_add (o, "load", json_object_new_double (m->load));
    for (size_t i = 0; i < sizeof (fields) / sizeof (fields[0]); i++) {
        const char *p = (const char *)m + fields[i].off;
        double d;
        switch (fields[i].kind) {
        case I64:
            json_object_object_add (o, fields[i].key, json_object_new_int64 (
                                        *(const int64_t *)p));
            break;
        case RATIO:
            memcpy (&d, p, sizeof (d));
            json_object_object_add (o, fields[i].key, isnan (d) ? NULL
                                    : json_object_new_double (d));
            break;
        case DBL:
            memcpy (&d, p, sizeof (d));
            json_object_object_add (o, fields[i].key,
                                    json_object_new_double (d));
            break;
        }
    }
    return o;
}

static json_object *str_or_null (const char *s)
{
    return s && *s ? json_object_new_string (s) : NULL;
}

static json_object *input_json (const ns_metricsdoc_input_t *in)
{
    json_object *o = json_object_new_object ();
    if (!o)
        return NULL;
    json_object_object_add (o, "trace", in->trace
                            ? json_object_new_string (in->trace) : NULL);
    json_object_object_add (o, "mode", json_object_new_string (
                                in->trace ? "trace" : "closed"));
    json_object_object_add (o, "nodes", json_object_new_int (in->nodes));
    json_object_object_add (o, "cores", json_object_new_int (in->cores));
    json_object_object_add (o, "backfill", json_object_new_string (
                                in->backfill_easy ? "easy" : "none"));
    json_object_object_add (o, "overrun", json_object_new_string (
                                in->overrun_kill ? "kill" : "run"));
    json_object_object_add (o, "baseline", json_object_new_string (
                                in->baseline ? in->baseline : ""));
    json_object_object_add (o, "note", str_or_null (in->note));
    if (in->trace) {
        json_object_object_add (o, "jobs_read",
                                json_object_new_int64 (in->jobs_read));
        json_object_object_add (o, "jobs_used",
                                json_object_new_int64 (in->jobs_used));
        json_object *sk = json_object_new_object ();
        for (int i = 0; in->counts && i < NS_SKIP_NREASONS; i++)
            if (in->counts->skip[i].count)
                json_object_object_add (sk, ns_trace_skip_name (i),
                    json_object_new_int64 (
                        (int64_t)in->counts->skip[i].count));
        json_object_object_add (o, "jobs_skipped", sk);
        json_object_object_add (o, "recorded_mean_wait_s",
                                isnan (in->recorded_mean_wait_s) ? NULL
                                : json_object_new_double (
                                      in->recorded_mean_wait_s));
    }
    else
        json_object_object_add (o, "horizon_s",
                                json_object_new_double (in->horizon_s));
    if (in->peak_rss_mb >= 0)
        json_object_object_add (o, "peak_rss_mb",
                                json_object_new_double (in->peak_rss_mb));
    return o;
}

json_object *ns_metricsdoc_create (const ns_metricsdoc_input_t *in,
                                   const ns_metrics_t *m, int n)
{
    json_object *root = json_object_new_object ();
    json_object *arr = json_object_new_array ();
    if (!root || !arr) {
        json_object_put (root);
        json_object_put (arr);
        return NULL;
    }
    json_object_object_add (root, "input", input_json (in));
    for (int i = 0; i < n; i++)
        json_object_array_add (arr, policy_json (&m[i]));
    json_object_object_add (root, "policies", arr);
    return root;
}

int ns_metricsdoc_print (FILE *f, json_object *doc)
{
    fprintf (f, "%s\n", json_object_to_json_string_ext (
                 doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));
    return ferror (f) ? -1 : 0;
}

static json_object *policies (json_object *doc)
{
    json_object *pol;
    if (!doc || !json_object_object_get_ex (doc, "policies", &pol)
        || !json_object_is_type (pol, json_type_array))
        return NULL;
    return pol;
}

int ns_metricsdoc_check (json_object *doc)
{
    if (!policies (doc)) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

int ns_metricsdoc_npolicies (json_object *doc)
{
    json_object *pol = policies (doc);
    return pol ? (int)json_object_array_length (pol) : 0;
}

json_object *ns_metricsdoc_policy (json_object *doc, int k)
{
    json_object *pol = policies (doc);
    if (!pol || k < 0 || (size_t)k >= json_object_array_length (pol))
        return NULL;
    return json_object_array_get_idx (pol, k);
}

double ns_metricsdoc_num (json_object *entry, const char *key)
{
    json_object *v;
    if (!entry || !json_object_object_get_ex (entry, key, &v) || !v)
        return NAN;
    return json_object_get_double (v);
}

const char *ns_metricsdoc_str (json_object *o, const char *key)
{
    json_object *v;
    if (!o || !json_object_object_get_ex (o, key, &v) || !v
        || !json_object_is_type (v, json_type_string))
        return NULL;
    return json_object_get_string (v);
}

const char *ns_metricsdoc_baseline (json_object *doc)
{
    json_object *in;
    if (!doc || !json_object_object_get_ex (doc, "input", &in))
        return NULL;
    return ns_metricsdoc_str (in, "baseline");
}
