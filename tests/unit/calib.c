/* SPDX-License-Identifier: GPL-2.0-or-later */
/* calib.t - nodeshare-calibrate's experiment without Slurm (sim/calib.c):
 * program names from scripts and --list files, the plan's order and what
 * --have leaves out, costs and shapes, the #SBATCH lines kept, and the
 * figures: means of per-repeat ratios against striped alone, their
 * standard errors, and the JSON written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "calib.h"
#include "calib_test.h"
#include "tap.h"

static char dir[] = "/tmp/calib.t.XXXXXX";

/* DIR/NAME with TEXT; its path in a static buffer (one at a time). */
static const char *file (const char *name, const char *text)
{
    static char path[512];
    snprintf (path, sizeof (path), "%s/%s", dir, name);
    FILE *f = fopen (path, "w");
    if (f) {
        fputs (text, f);
        fclose (f);
    }
    return path;
}

static double jnum (json_object *o, const char *a, const char *b,
                    const char *c, const char *d)
{
    const char *keys[] = { a, b, c, d };
    for (int i = 0; i < 4 && keys[i] && o; i++)
        if (!json_object_object_get_ex (o, keys[i], &o))
            return -1;
    return o ? json_object_get_double (o) : -1;
}

/* The JSON text of the value at a.b.c.d, as written. */
static const char *jtext (json_object *o, const char *a, const char *b,
                          const char *c, const char *d)
{
    const char *keys[] = { a, b, c, d };
    for (int i = 0; i < 4 && keys[i] && o; i++)
        if (!json_object_object_get_ex (o, keys[i], &o))
            return "(none)";
    return json_object_to_json_string (o);
}

static void test_names (void)
{
    ns_calib_t *c = calloc (1, sizeof (*c));
    ns_error_t err;
    char big[200];
    memset (big, 'x', sizeof (big) - 1);
    big[sizeof (big) - 1] = '\0';
    ok (ns_calib_valid_name ("lmp") && ns_calib_valid_name ("a.b-c_1"),
        "valid names: lmp, a.b-c_1");
    ok (!ns_calib_valid_name ("") && !ns_calib_valid_name ("a b")
            && !ns_calib_valid_name ("a\"b") && !ns_calib_valid_name ("a\\b")
            && !ns_calib_valid_name ("a\tb") && !ns_calib_valid_name (big),
        "invalid: empty, space, quote, backslash, tab, 199 characters");

    char sub[600];
    snprintf (sub, sizeof (sub), "%s/lmp.in.dir", dir);
    ok (mkdir (sub, 0755) == 0, "a directory with a dot in its name");
    char script[700];
    snprintf (script, sizeof (script), "%s/lmp.in.sh", sub);
    FILE *f = fopen (script, "w");
    fputs ("#!/bin/sh\nsrun lmp\n", f);
    fclose (f);
    is_int (ns_calib_add_script (c, script, &err), 0, "add a script");
    is_str (c->progs[0].name, "lmp",
            "its program: the file name up to the first '.', not the "
            "directory's");
    ok (c->progs[0].script[0] == '/', "  its path made absolute");
    is_int (ns_calib_add_script (c, script, &err), -1, "the same twice");
    char want[1600];
    snprintf (want, sizeof (want), "%s: program lmp given twice", script);
    is_str (err.text, want, "  message");
    const char *bare = file ("bare.sh", "srun x\n");
    is_int (ns_calib_add (c, "bare", bare, bare, &err), -1,
            "a script without #!");
    snprintf (want, sizeof (want), "%s:1: expected a first line "
              "\"#!INTERPRETER\" (sbatch needs one)", bare);
    is_str (err.text, want, "  message");
    is_int (c->nprogs, 1, "failures add nothing");

    ns_calib_t *l = calloc (1, sizeof (*l));
    file ("abq.job", "#!/bin/sh\nsrun abaqus\n");
    char lpath[600];
    snprintf (lpath, sizeof (lpath), "%s", file ("ok.list",
              "# site programs\nLAM lmp.in.dir/lmp.in.sh\n\n"
              "ABQ abq.job  # Abaqus\n"));
    /* The list's script names are relative to the current directory. */
    char cwd[600];
    if (!getcwd (cwd, sizeof (cwd)) || chdir (dir) < 0)
        return;
    is_int (ns_calib_read_list (l, lpath, &err), 0, "a --list file");
    is_int (l->nprogs, 2, "  two programs (comments, blank lines skipped)");
    is_str (l->progs[1].name, "ABQ", "  the name as written in the list");
    is_int (ns_calib_find (l, "ABQ"), 1, "ns_calib_find");
    is_int (ns_calib_find (l, "abq"), -1, "  names are case-sensitive");
    ns_calib_t *s = calloc (1, sizeof (*s));
    const char *bad = file ("short.list", "LAM abq.job\nABQ\n");
    is_int (ns_calib_read_list (s, bad, &err), -1, "a line with one field");
    snprintf (want, sizeof (want), "%s:2: expected \"PROGRAM SCRIPT\", got "
              "one field", bad);
    is_str (err.text, want, "  message with the line number");
    memset (s, 0, sizeof (*s));
    bad = file ("empty.list", "# nothing\n\n");
    is_int (ns_calib_read_list (s, bad, &err), -1, "a list without lines");
    snprintf (want, sizeof (want), "%s: no \"PROGRAM SCRIPT\" line", bad);
    is_str (err.text, want, "  message");
    if (chdir (cwd) < 0)
        diag ("chdir back: failed");
    free (s);
    free (l);
    free (c);
}

/* Two programs lmp (0), abq (1): abq measured beside. */
static ns_calib_t *two (int repeats)
{
    ns_calib_t *c = calloc (1, sizeof (*c));
    c->repeats = repeats;
    c->minutes = 30;
    c->nodes = 2;
    c->cores = 24;
    c->nprogs = 2;
    strcpy (c->progs[0].name, "lmp");
    strcpy (c->progs[1].name, "abq");
    c->beside[1] = 1;
    return c;
}

static void test_plan (void)
{
    ns_error_t err;
    ns_calib_t *c = two (2);
    is_int (ns_calib_plan (c, NULL, &err), 0, "plan");
    is_int (c->nruns, 12, "  2 repeats x 2 programs x packed, striped, "
            "beside abq");
    static const struct { int p, shape, q, rep; } want[] = {
        { 0, NS_CALIB_PACKED, -1, 1 }, { 0, NS_CALIB_STRIPED, -1, 1 },
        { 0, NS_CALIB_BESIDE, 1, 1 }, { 1, NS_CALIB_PACKED, -1, 1 },
        { 1, NS_CALIB_STRIPED, -1, 1 }, { 1, NS_CALIB_BESIDE, 1, 1 },
        { 0, NS_CALIB_PACKED, -1, 2 },
    };
    int same = 1;
    for (int i = 0; i < 7; i++)
        same &= c->runs[i].p == want[i].p
                && (int) c->runs[i].shape == want[i].shape
                && c->runs[i].q == want[i].q && c->runs[i].rep == want[i].rep;
    ok (same, "  every program's first repeat before any second");
    is_int (ns_calib_run_jobs (&c->runs[2]), 2, "beside: two jobs");
    is_int (ns_calib_run_jobs (&c->runs[1]), 1, "striped: one job");
    ok (ns_calib_run_cost (c, &c->runs[0]) == 24.0,
        "packed: 2 nodes x 24 cores x 0.5 h = 24 core-hours");
    ok (ns_calib_run_cost (c, &c->runs[1]) == 48.0,
        "striped: twice the nodes, whole (48)");
    ok (ns_calib_run_cost (c, &c->runs[2]) == 48.0,
        "beside: the same nodes as striped (48)");
    ok (ns_calib_cost (c) == 2 * 2 * (24.0 + 48 + 48), "total 480");
    char nodes[16], tpn[16];
    ns_calib_shape_args (c, &c->runs[0], nodes, sizeof (nodes), tpn,
                         sizeof (tpn));
    ok (!strcmp (nodes, "2") && !strcmp (tpn, "24"), "packed: -N 2, 24 tpn");
    ns_calib_shape_args (c, &c->runs[2], nodes, sizeof (nodes), tpn,
                         sizeof (tpn));
    ok (!strcmp (nodes, "4") && !strcmp (tpn, "12"),
        "beside: -N 4, 12 tpn (half of each node)");
    char label[100];
    is_str (ns_calib_run_label (c, &c->runs[2], label, sizeof (label)),
            "lmp beside abq, repeat 1", "label of a run beside");
    is_str (ns_calib_run_label (c, &c->runs[4], label, sizeof (label)),
            "abq striped, repeat 1", "label of a run alone");

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&text, &len);
    double total = ns_calib_print_plan (c, f);
    fclose (f);
    ok (total == 480.0, "print_plan returns the total");
    ok (strstr (text, "3    lmp              beside   abq                   "
                "1       4   12      48.00\n") != NULL, "  a row");
    ok (strstr (text, "total: 12 runs, 16 jobs of at most 30 min on nodes of "
                "24 cores, at most 480.00 core-hours\n") != NULL,
        "  the total line");
    free (text);
    ns_calib_free (c);
    free (c);

    /* --have: lmp's speedup and lmp beside abq; abq named only as a
     * co-tenant: its own speedup is still wanted. */
    ns_config_t *have = ns_config_load_string (
        "{ \"programs\": { \"lmp\": { \"spread_speedup\": 1.1, "
        "\"slowdown\": { \"abq\": 1.05 } } } }", "have", &err);
    c = two (1);
    is_int (ns_calib_plan (c, have, &err), 0, "plan with --have");
    is_int (c->nruns, 3, "  3 runs: abq packed, striped, beside abq");
    ok (c->nruns == 3 && c->runs[0].p == 1 && c->runs[2].shape
                                                  == NS_CALIB_BESIDE,
        "  none of lmp");
    ns_calib_free (c);
    free (c);
    ns_config_destroy (have);
    /* Only the slowdown known: lmp striped is still needed, as the
     * denominator of its speedup. */
    have = ns_config_load_string (
        "{ \"programs\": { \"lmp\": { \"slowdown\": { \"abq\": 1.05 } } } }",
        "have", &err);
    c = two (1);
    c->beside[1] = 0;
    ns_calib_plan (c, have, &err);
    ok (c->nruns == 4 && c->runs[0].shape == NS_CALIB_PACKED
            && c->runs[1].shape == NS_CALIB_STRIPED,
        "no beside wanted: packed and striped of each");
    ns_calib_free (c);
    free (c);
    ns_config_destroy (have);
}

static void set_secs (ns_calib_t *c, int p, enum ns_calib_shape s, int q,
                      int rep, double secs)
{
    struct ns_calib_run *r = (struct ns_calib_run *)
        ns_calib_find_run (c, p, s, q, rep);
    if (r)
        r->secs = secs;
}

static void test_figures (void)
{
    ns_error_t err;
    ns_calib_t *c = two (2);
    ns_calib_plan (c, NULL, &err);
    set_secs (c, 0, NS_CALIB_PACKED, -1, 1, 100);
    set_secs (c, 0, NS_CALIB_STRIPED, -1, 1, 125);
    set_secs (c, 0, NS_CALIB_BESIDE, 1, 1, 150);
    set_secs (c, 0, NS_CALIB_PACKED, -1, 2, 110);
    set_secs (c, 0, NS_CALIB_STRIPED, -1, 2, 121);
    set_secs (c, 0, NS_CALIB_BESIDE, 1, 2, 121);
    /* abq: its second striped run has no time: repeat 2 is left out. */
    set_secs (c, 1, NS_CALIB_PACKED, -1, 1, 90);
    set_secs (c, 1, NS_CALIB_STRIPED, -1, 1, 60);
    set_secs (c, 1, NS_CALIB_BESIDE, 1, 1, 66);
    set_secs (c, 1, NS_CALIB_PACKED, -1, 2, 80);
    set_secs (c, 1, NS_CALIB_BESIDE, 1, 2, 70);

    struct ns_calib_fig u = ns_calib_ratio (c, 0, NS_CALIB_PACKED, -1);
    is_int (u.n, 2, "lmp's speedup: 2 repeats");
    double r1 = 100.0 / 125, r2 = 110.0 / 121;
    ok (fabs (u.mean - (r1 + r2) / 2) < 1e-12,
        "  the mean of the ratios (%.6f), not the ratio of the means",
        u.mean);
    ok (fabs (u.se - fabs (r1 - r2) / 2) < 1e-12,
        "  standard error: sample deviation / sqrt 2 (%.6f)", u.se);
    ok (u.secs == 105, "  mean seconds of the packed runs");
    struct ns_calib_fig s = ns_calib_ratio (c, 0, NS_CALIB_BESIDE, 1);
    ok (s.n == 2 && fabs (s.mean - (1.2 + 1.0) / 2) < 1e-12,
        "lmp beside abq: 1.1");
    struct ns_calib_fig a = ns_calib_ratio (c, 1, NS_CALIB_PACKED, -1);
    ok (a.n == 1 && a.mean == 1.5 && isnan (a.se),
        "abq: one usable repeat, 1.5, no standard error");
    struct ns_calib_fig st = ns_calib_ratio (c, 1, NS_CALIB_STRIPED, -1);
    ok (st.n == 1 && st.mean == 1.0 && st.secs == 60,
        "striped against itself: 1, its seconds");
    ok (ns_calib_find_run (c, 1, NS_CALIB_BESIDE, 0, 1) == NULL,
        "no run beside a program not asked for");

    strcpy (c->runid, "65f0a1b2c3d4");
    json_object *root = ns_calib_figures (c, "nodeshare-calibrate 9.9");
    is_str (jtext (root, "programs", "lmp", "spread_speedup", NULL), "0.855",
            "JSON: lmp's spread_speedup 0.855 (3 decimals)");
    ok (jnum (root, "programs", "lmp", "slowdown", "abq") == 1.1,
        "JSON: lmp's slowdown beside abq 1.1");
    ok (jnum (root, "programs", "abq", "spread_speedup", NULL) == 1.5,
        "JSON: abq's spread_speedup 1.5");
    json_object *l, *lp;
    json_object_object_get_ex (root, "learned", &l);
    json_object_object_get_ex (l, "programs", &lp);
    ok (jnum (lp, "lmp", "jobs", NULL, NULL) == 6,
        "JSON: learned lmp jobs 6 (runs, co-tenants not counted)");
    ok (jnum (lp, "lmp", "spread_speedup", "n", NULL) == 2,
        "JSON: evidence n 2");
    is_str (jtext (lp, "lmp", "spread_speedup", "se", NULL), "0.055",
            "JSON: evidence se 0.055 (2 significant digits)");
    ok (jnum (lp, "lmp", "seconds", "beside abq", NULL) == 135.5,
        "JSON: mean seconds beside abq 135.5");
    ok (jnum (lp, "abq", "seconds", "striped", NULL) == 60,
        "JSON: mean seconds striped 60");
    json_object *se;
    ok (json_object_object_get_ex (lp, "abq", &se)
            && json_object_object_get_ex (se, "spread_speedup", &se)
            && json_object_object_get_ex (se, "se", &se) && se == NULL,
        "JSON: one repeat, se null");
    ok (jnum (l, "node_cores", NULL, NULL, NULL) == 24
            && jnum (l, "packed_nodes", NULL, NULL, NULL) == 2
            && jnum (l, "repeats", NULL, NULL, NULL) == 2,
        "JSON: node_cores, packed_nodes, repeats");
    json_object *by, *run;
    ok (json_object_object_get_ex (l, "by", &by)
            && !strcmp (json_object_get_string (by), "nodeshare-calibrate 9.9")
            && json_object_object_get_ex (l, "run", &run)
            && !strcmp (json_object_get_string (run), "65f0a1b2c3d4"),
        "JSON: by and run");

    char out[600];
    snprintf (out, sizeof (out), "%s/figures.json", dir);
    is_int (ns_calib_write (root, out, &err), 0, "written to a file");
    json_object *back = json_object_from_file (out);
    ok (back && jnum (back, "programs", "lmp", "spread_speedup", NULL)
                    == 0.855, "  read back: 0.855");
    json_object_put (back);
    snprintf (out, sizeof (out), "%s/no/such/dir.json", dir);
    is_int (ns_calib_write (root, out, &err), -1, "a file that cannot be made");
    ok (strstr (err.text, "dir.json: No such file or directory")
            != NULL, "  message");
    json_object_put (root);

    /* A program the plan has no run of (all given by --have) is left out. */
    c->nruns = 3;
    root = ns_calib_figures (c, "x");
    json_object *pj, *x;
    json_object_object_get_ex (root, "programs", &pj);
    ok (!json_object_object_get_ex (pj, "abq", &x)
            && json_object_object_get_ex (pj, "lmp", &x),
        "a program without runs: not in the output");
    json_object_put (root);
    c->nruns = 12;
    ns_calib_free (c);
    free (c);
}

static void test_wrappers (void)
{
    ns_error_t err;
    static const struct { const char *opt; int set; } opts[] = {
        { "-N 4", 1 }, { "-N4", 1 }, { "--nodes=2", 1 }, { "--nodes 2", 1 },
        { "-n8", 1 }, { "--ntasks-per-node=2", 1 }, { "--exclusive", 1 },
        { "--nodelist=a[1-2]", 1 }, { "-t 10", 1 }, { "--time=5", 1 },
        { "-p big", 1 }, { "--partition=big", 1 }, { "-o x.out", 1 },
        { "--comment=x", 1 }, { "-J name", 1 },
        { "--ntasks-per-gpu=1", 0 }, { "--nodesx", 0 }, { "--mem=4G", 0 },
        { "--account=chem", 0 }, { "-c 4", 0 }, { "-A chem", 0 },
        { "--qos=long", 0 }, { "--exclusive\n", 1 },
        { "--oversubscribe\r\n", 1 }, { "--nodes=2\n", 1 },
    };
    for (size_t i = 0; i < sizeof (opts) / sizeof (opts[0]); i++)
        is_int (ns_calib_shape_option (opts[i].opt), opts[i].set,
                "#SBATCH %.*s%s: %s", (int)strcspn (opts[i].opt, "\r\n"),
                opts[i].opt, strpbrk (opts[i].opt, "\r\n") ? " (its line's "
                "end included)" : "", opts[i].set ? "a shape option, dropped"
                                                  : "kept");

    const char *script = file ("hdr.sh",
        "#!/bin/bash\n#SBATCH -N 4\n#SBATCH --account=chem\n"
        "  # a comment\n\n  #SBATCH --mem=4G\n#SBATCH --time=10\n"
        "module load lmp\n#SBATCH --qos=late\n");
    char hdr[256];
    is_int (ns_calib_sbatch_header (script, hdr, sizeof (hdr), &err), 0,
            "the #SBATCH header");
    is_str (hdr, "#SBATCH --account=chem\n#SBATCH --mem=4G\n",
            "  kept: account, mem (indented); not -N, --time, nor after "
            "the first command");
    char small[20];
    is_int (ns_calib_sbatch_header (script, small, sizeof (small), &err), -1,
            "a header longer than the buffer");
    char want[700];
    snprintf (want, sizeof (want), "%s: #SBATCH header longer than 20 bytes",
              script);
    is_str (err.text, want, "  message");

    ns_calib_t *c = two (1);
    strcpy (c->workdir, "/w/d");
    strcpy (c->progs[0].script, "/home/u/lmp.sh");
    ns_calib_prog_paths (c, 0);
    is_str (c->progs[0].job, "/w/d/lmp.job", "the script's copy");
    is_str (c->progs[0].wrap, "/w/d/lmp.sbatch", "its wrapper");
    is_str (c->progs[0].fill, "/w/d/lmp.filler", "its filler");
    char text[2048];
    ns_calib_wrapper_text (c, 0, "#SBATCH --mem=4G\n", text, sizeof (text));
    ok (!strncmp (text, "#!/bin/sh\n# written by nodeshare-calibrate: runs "
                  "/home/u/lmp.sh once and records its time\n"
                  "#SBATCH --mem=4G\nt0=$(date +%s.%N)\n'/w/d/lmp.job'\n",
                  strlen ("#!/bin/sh\n# written by nodeshare-calibrate: runs "
                          "/home/u/lmp.sh once and records its time\n"
                          "#SBATCH --mem=4G\nt0=$(date +%s.%N)\n"
                          "'/w/d/lmp.job'\n")),
        "wrapper: header, then the copy run once");
    ok (strstr (text, "mv '/w/d/times/'$SLURM_JOB_ID.tmp "
                "'/w/d/times/'$SLURM_JOB_ID\nexit $rc\n") != NULL,
        "  the time renamed into place, the script's status kept");
    ns_calib_filler_text (c, 0, "", text, sizeof (text));
    ok (strstr (text, "while '/w/d/lmp.job'; do :; done\nexit 1\n") != NULL,
        "filler: again and again");
    free (c);
}

int main (void)
{
    plan_no_plan ();
    if (!mkdtemp (dir))
        return 1;
    test_names ();
    test_plan ();
    test_figures ();
    test_wrappers ();
    char cmd[600];
    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", dir);
    if (system (cmd) != 0)
        diag ("could not remove %s", dir);
    return done_testing ();
}
