/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sweep.t - sweep files and their cells (sim/sweep.h)
 *
 * Every tests/sweeps/bad/NAME.json must fail with exactly the message in
 * NAME.expect (the directory part of the path stripped).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "sweep.h"
#include "tap.h"

static const char *srcdir = ".";

static ns_sweep_t *parse (const char *text, ns_error_t *err)
{
    return ns_sweep_parse (text, strlen (text), "s.json", "/d", err);
}

static const char *bad (const char *text)
{
    static ns_error_t err;
    ns_sweep_t *sw = parse (text, &err);
    if (sw) {
        ns_sweep_free (sw);
        return "parsed";
    }
    return err.text;
}

static void test_good (void)
{
    ns_error_t err = { "" };
    ns_sweep_t *sw = parse (
        "// comments are allowed\n"
        "{\n"
        "  \"traces\": [ \"t/KTH-SP2-1996-2.1-cln.swf.gz\", \"/abs/x y.sacct\" ],\n"
        "  \"machines\": [ { \"nodes\": 25, \"cores\": 4 },\n"
        "                  { \"slurm_conf\": \"conf/hetero.conf\" },\n"
        "                  { \"nodes\": 2, \"cores\": 8, \"name\": \"tiny one\" },\n"
        "                  {} ],\n"
        "  \"policies\": [ \"pack\", \"keep:LAM\" ],\n"
        "  \"config\": \"base.json\",\n"
        "  \"vary\": { \"fallback_after\": [ 0, -1 ],\n"
        "            \"programs.LAM.slowdown\": [ { \"ABQ\": 1.1 }, {} ],\n"
        "            \"policy\": [ \"twins\", \"same\", \"a/b\" ] },\n"
        "  \"options\": { \"backfill\": \"none\", \"bf_depth\": 50,\n"
        "                \"max_jobs\": 1000, \"overrun\": \"run\",\n"
        "                \"format\": \"swf\", \"baseline\": \"exclusive\",\n"
        "                \"assign_classes\": true, \"seed\": 7 },\n"
        "  \"output\": \"res\",\n"
        "  \"sbatch\": [ \"--partition=batch\", \"--time=30\" ]\n"
        "}\n",
        &err);
    if (!ok (sw != NULL, "a sweep with every key parses: %s",
             sw ? "ok" : err.text))
        return;
    is_int (sw->ntraces, 2, "2 traces");
    is_str (sw->traces[0].path, "/d/t/KTH-SP2-1996-2.1-cln.swf.gz",
            "relative trace path taken from the file's directory");
    is_str (sw->traces[0].raw, "t/KTH-SP2-1996-2.1-cln.swf.gz",
            "  and kept as written");
    is_str (sw->traces[1].path, "/abs/x y.sacct", "absolute path kept");
    is_str (sw->traces[0].label, "KTH-SP2-1996-2.1-cln",
            "trace label: the name without .swf.gz");
    is_str (sw->traces[1].label, "x_y", "  without .sacct, blank as _");
    is_int (sw->nmachines, 4, "4 machines");
    is_str (sw->machines[0].label, "25x4", "machine label 25x4");
    is_str (sw->machines[1].slurm_conf, "/d/conf/hetero.conf",
            "slurm_conf resolved");
    is_str (sw->machines[1].label, "hetero", "  label: its name");
    is_str (sw->machines[2].label, "tiny_one", "a given name, blank as _");
    is_str (sw->machines[3].label, "header", "{}: the trace header's");
    ok (sw->machines[3].nodes == 0 && sw->machines[3].cores == 0
            && !sw->machines[3].slurm_conf, "  no size");
    is_int (sw->npolicies, 2, "2 policies");
    is_str (sw->policies[1], "keep:LAM", "keep:LAM");
    is_str (sw->config, "/d/base.json", "config resolved");
    is_str (sw->output, "/d/res", "output resolved");
    is_int (sw->nvary, 3, "3 varied keys, in file order");
    is_str (sw->vary[1].key, "programs.LAM.slowdown", "  the second");
    is_str (sw->vary[1].values[0], "{\"ABQ\":1.1}", "  value as JSON");
    is_str (sw->vary[1].labels[1], "slowdown-v2",
            "  an object's label is KEY-vN");
    is_str (sw->vary[2].labels[0], "policy=twins",
            "  a string's label is KEY=VALUE");
    is_str (sw->vary[2].labels[2], "policy=a_b", "  / becomes _");
    is_str (sw->backfill, "none", "backfill");
    is_int (sw->bf_depth, 50, "bf_depth");
    is_int ((int)sw->max_jobs, 1000, "max_jobs");
    is_str (sw->overrun, "run", "overrun");
    is_str (sw->format, "swf", "format");
    is_str (sw->baseline, "exclusive", "baseline");
    is_int (sw->assign_classes, 1, "assign_classes");
    is_int ((int)sw->seed, 7, "seed");
    is_int (sw->nsbatch, 2, "2 sbatch lines");
    is_str (sw->sbatch[1], "--time=30", "  in order");
    is_int (sw->ncells, 2 * 4 * 2 * 2 * 3, "cells: 2 x 4 x 2 x 2 x 3 = 96");

    /* Order: trace, machine, then the varied keys, the last fastest. */
    ns_sweep_cell_t c;
    ok (ns_sweep_cell (sw, 0, &c) == 0, "cell 0");
    is_str (c.name, "000-KTH-SP2-1996-2.1-cln-25x4-fallback_after=0-"
            "slowdown-v1-policy=twins", "  its name");
    ns_sweep_cell (sw, 1, &c);
    is_str (c.name, "001-KTH-SP2-1996-2.1-cln-25x4-fallback_after=0-"
            "slowdown-v1-policy=same", "cell 1: the last key varies fastest");
    ns_sweep_cell (sw, 12, &c);
    ok (c.trace == 0 && c.machine == 1 && c.vary_value[0] == 0
            && c.vary_value[1] == 0 && c.vary_value[2] == 0,
        "cell 12: the next machine");
    ns_sweep_cell (sw, 95, &c);
    ok (c.trace == 1 && c.machine == 3 && c.vary_value[0] == 1
            && c.vary_value[1] == 1 && c.vary_value[2] == 2,
        "cell 95: the last of everything");
    is_str (c.name, "095-x_y-header-fallback_after=-1-slowdown-v2-"
            "policy=a_b", "  its name");
    ok (ns_sweep_cell (sw, 96, &c) < 0 && ns_sweep_cell (sw, -1, &c) < 0,
        "cells out of range");

    char *k1, *k2;
    ns_sweep_cell (sw, 95, &c);
    k1 = ns_sweep_cell_key (sw, &c);
    ns_sweep_cell (sw, 94, &c);
    k2 = ns_sweep_cell_key (sw, &c);
    ok (k1 && k2 && strcmp (k1, k2) != 0, "cells have different keys");
    ok (k1 && strstr (k1, "trace=/abs/x y.sacct")
            && strstr (k1, "machine=header")
            && strstr (k1, "policy=\"a/b\"") && strstr (k1, "max_jobs=1000"),
        "a key has the trace, the varied values and the options: %s",
        k1 ? k1 : "NULL");
    free (k1);
    free (k2);

    /* The cell's nodeshare.json: values set at their paths. */
    ns_sweep_cell (sw, 95, &c);
    char *cfg = ns_sweep_cell_config (
        sw, &c, "{ \"policy\": \"pack\", \"seed\": 3, // base\n"
                "  \"programs\": { \"ABQ\": { \"weight\": 2 } } }",
        "base.json", &err);
    if (ok (cfg != NULL, "cell configuration: %s", cfg ? "ok" : err.text)) {
        json_object *o = json_tokener_parse (cfg), *v;
        ok (o && json_object_object_get_ex (o, "fallback_after", &v)
                && json_object_get_int (v) == -1, "  fallback_after -1 set");
        ok (json_object_object_get_ex (o, "policy", &v)
                && strcmp (json_object_get_string (v), "a/b") == 0,
            "  policy replaced");
        json_object *lam = NULL, *sl = NULL, *abq = NULL;
        ok (json_object_object_get_ex (o, "programs", &v)
                && json_object_object_get_ex (v, "LAM", &lam)
                && json_object_object_get_ex (lam, "slowdown", &sl)
                && json_object_is_type (sl, json_type_object)
                && json_object_object_length (sl) == 0,
            "  programs.LAM made, its slowdown {} set");
        ok (json_object_object_get_ex (v, "ABQ", &abq)
                && json_object_object_get_ex (o, "seed", &v)
                && json_object_get_int (v) == 3,
            "  the rest kept");
        json_object_put (o);
    }
    free (cfg);
    cfg = ns_sweep_cell_config (sw, &c, "{ \"programs\": { \"LAM\": 5 } }",
                                "base.json", &err);
    ok (cfg == NULL, "a value under a number fails");
    is_str (err.text, "s.json: vary[\"programs.LAM.slowdown\"]: expected a "
            "path through objects of base.json, but \"LAM\" is not an object "
            "there", "  with where and why");
    free (cfg);
    cfg = ns_sweep_cell_config (sw, &c, "{ \"policy\": ", "base.json", &err);
    ok (cfg == NULL && strncmp (err.text, "base.json:1:", 12) == 0,
        "a base that is not JSON fails with its position: %s", err.text);
    free (cfg);
    ns_sweep_free (sw);
}

static void test_defaults (void)
{
    ns_error_t err = { "" };
    ns_sweep_t *sw = ns_sweep_parse ("{\"traces\": [\"a.swf\"]}", 21, "x",
                                     NULL, &err);
    if (!ok (sw != NULL, "only traces: parses"))
        return;
    is_str (sw->traces[0].path, "a.swf", "no directory: path as written");
    ok (sw->nmachines == 1 && strcmp (sw->machines[0].label, "header") == 0,
        "one machine: the trace header's");
    ok (sw->npolicies == 0 && sw->nvary == 0 && sw->nsbatch == 0
            && !sw->config && !sw->output,
        "all policies, nothing varied, no sbatch lines, built-in config");
    ok (!sw->backfill[0] && !sw->bf_depth && !sw->max_jobs && sw->seed == -1,
        "options: nodeshare-sim's defaults");
    is_int (sw->ncells, 1, "one cell");
    ns_sweep_cell_t c;
    ns_sweep_cell (sw, 0, &c);
    is_str (c.name, "000-a-header", "  000-a-header");
    ns_sweep_free (sw);

    sw = parse ("{\"traces\": [\"a\"], \"policies\": \"all\"}", &err);
    ok (sw && sw->npolicies == 0, "policies \"all\"");
    ns_sweep_free (sw);

    /* 1000 cells and more: wider indices */
    sw = parse ("{\"traces\": [\"a\"], \"vary\": {\"x\": [1,2,3,4,5,6,7,8,9,"
                "10], \"y\": [1,2,3,4,5,6,7,8,9,10], \"z\": [1,2,3,4,5,6,7,"
                "8,9,10,11]}}", &err);
    if (ok (sw && sw->ncells == 1100, "1100 cells")) {
        ns_sweep_cell (sw, 7, &c);
        is_str (c.name, "0007-a-header-x=1-y=1-z=8", "  four digits");
    }
    ns_sweep_free (sw);
}

static void test_limits (void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&text, &len);
    fprintf (f, "{\"traces\": [\"a\"], \"vary\": {");
    for (int k = 0; k < 6; k++) {
        fprintf (f, "%s\"k%d\": [", k ? "," : "", k);
        for (int v = 0; v < 10; v++)
            fprintf (f, "%s%d", v ? "," : "", v);
        fprintf (f, "]");
    }
    fprintf (f, "}}");
    fclose (f);
    is_str (bad (text), "s.json: expected at most 100000 cells (traces x "
            "machines x the values of each vary key), got more",
            "10^6 cells: too many");
    free (text);
    ns_error_t err;
    ok (ns_sweep_parse ("{\"traces\": [\"a\"]}\0x", 19, "n", NULL, &err)
            == NULL && strcmp (err.text, "n:1:18: expected text, got a NUL "
                               "byte") == 0,
        "a NUL byte: %s", err.text);
    errno = 0;
    ok (ns_sweep_parse (NULL, 0, "n", NULL, &err) == NULL && errno == EINVAL,
        "NULL text");
    is_str (bad ("{\"traces\": [\"a\"], \"machines\": [{\"nodes\": 1.5, "
                 "\"cores\": 2}]}"),
            "s.json: machines[0].nodes: expected an integer 1..1000000, got "
            "1.5", "nodes 1.5");
    /* json-c clamps it to INT64_MAX or UINT64_MAX, by version */
    const char *e = bad ("{\"traces\": [\"a\"], \"options\": {\"seed\": "
                         "99999999999999999999}}");
    ok (strncmp (e, "s.json: options.seed: expected an integer "
                 "0..2147483647, got ", 61) == 0, "a seed beyond 64 bits: %s",
        e);
    is_str (bad ("{\"traces\": [\"a\"], \"policies\": [\"pack\", \"pack\"]}"),
            "s.json: policies[1]: expected a policy not listed before, got "
            "\"pack\"", "a policy twice");
    is_str (bad ("{\"traces\": [\"a\\u0001b\"]}"),
            "s.json: traces[0]: expected a trace file name, got "
            "\"a\\u0001b\"", "a control character in a name");
    is_str (bad ("{\"traces\": [\"a\"], \"vary\": {\"policy.\\n\\nx\": [1]}}"),
            "s.json: vary[\"policy.\\n\\nx\"]: expected a nodeshare.json key "
            "path of dot-separated names without control characters, got "
            "\"policy.\\n\\nx\"", "a control character in a vary key");
}

static char *read_text (const char *path)
{
    FILE *f = fopen (path, "r");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n = getdelim (&buf, &cap, '\0', f);
    fclose (f);
    if (n < 0) {
        free (buf);
        return NULL;
    }
    buf[strcspn (buf, "\n")] = '\0';
    return buf;
}

static int is_json (const struct dirent *d)
{
    size_t n = strlen (d->d_name);
    return n > 5 && strcmp (d->d_name + n - 5, ".json") == 0;
}

static void test_bad_files (void)
{
    char dir[4096], path[4096 + 512];
    struct dirent **names;
    snprintf (dir, sizeof (dir), "%s/tests/sweeps/bad", srcdir);
    int n = scandir (dir, &names, is_json, alphasort);
    ok (n >= 20, "at least 20 bad sweep files (found %d)", n);
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        snprintf (path, sizeof (path), "%s/%.*s.expect", dir,
                  (int)(strlen (name) - 5), name);
        char *want = read_text (path);
        if (ok (want != NULL, "%s has a .expect file", name)) {
            ns_error_t err = { "" };
            snprintf (path, sizeof (path), "%s/%s", dir, name);
            errno = 0;
            ns_sweep_t *sw = ns_sweep_load (path, &err);
            ok (sw == NULL && errno == EINVAL, "%s fails with EINVAL", name);
            ns_sweep_free (sw);
            const char *got = err.text;
            if (strncmp (got, dir, strlen (dir)) == 0
                && got[strlen (dir)] == '/')
                got += strlen (dir) + 1;
            is_str (got, want, "%s: message", name);
        }
        free (want);
        free (names[i]);
    }
    if (n > 0)
        free (names);
}

static void test_load (void)
{
    char dir[] = "/tmp/nssweep.XXXXXX", path[64], want[128];
    ns_error_t err = { "" };
    if (!ok (mkdtemp (dir) != NULL, "a scratch directory"))
        return;
    snprintf (path, sizeof (path), "%s/kth.sweep.json", dir);
    FILE *f = fopen (path, "w");
    fputs ("{ \"traces\": [ \"k.swf\" ] }\n", f);
    fclose (f);
    ns_sweep_t *sw = ns_sweep_load (path, &err);
    if (ok (sw != NULL, "ns_sweep_load: %s", sw ? "ok" : err.text)) {
        snprintf (want, sizeof (want), "%s/kth.sweep.out", dir);
        is_str (sw->output, want, "default output: FILE without its "
                "extension, .out");
        snprintf (want, sizeof (want), "%s/k.swf", dir);
        is_str (sw->traces[0].path, want, "  trace beside the file");
    }
    ns_sweep_free (sw);
    unlink (path);
    errno = 0;
    ok (ns_sweep_load (path, &err) == NULL && errno == ENOENT,
        "a missing file: ENOENT");
    snprintf (want, sizeof (want), "%s: cannot open: %s", path,
              strerror (ENOENT));
    is_str (err.text, want, "  message names the file");
    rmdir (dir);
}

int main (void)
{
    plan_no_plan ();
    if (getenv ("top_srcdir"))
        srcdir = getenv ("top_srcdir");
    test_good ();
    test_defaults ();
    test_limits ();
    test_bad_files ();
    test_load ();
    return done_testing ();
}
