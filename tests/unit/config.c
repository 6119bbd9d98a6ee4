/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config.c - nodeshare.json: defaults, the shipped examples, bad files
 *
 * Every tests/configs/bad/NAME.json must fail with exactly the message in
 * NAME.expect (the directory part of the path stripped, so the test works
 * wherever the source tree is, as under `make distcheck`).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gres.h"
#include "nsconfig.h"
#include "nsconfig_test.h"
#include "tap.h"

static char srcdir[2048];

/* $top_srcdir (set by `make check`), else the source tree this file was
 * compiled from, relative to the build directory the test runs in. */
static void find_srcdir (void)
{
    const char *env = getenv ("top_srcdir");
    if (env && *env) {
        snprintf (srcdir, sizeof (srcdir), "%s", env);
        return;
    }
    /* SRCDIR/tests/unit/config.c -> SRCDIR */
    snprintf (srcdir, sizeof (srcdir), "%s", __FILE__);
    for (int up = 0; up < 3; up++) {
        char *slash = strrchr (srcdir, '/');
        if (!slash) {
            snprintf (srcdir, sizeof (srcdir), ".");
            break;
        }
        *slash = '\0';
    }
}

static int cmp_names (const void *a, const void *b)
{
    return strcmp (*(char *const *)a, *(char *const *)b);
}

/* Sorted names in dir ending in suffix; *n set.  NULL-safe to free. */
static char **list_dir (const char *dir, const char *suffix, int *n)
{
    char **names = NULL;
    int count = 0;
    size_t slen = strlen (suffix);
    DIR *d = opendir (dir);
    struct dirent *e;

    *n = 0;
    if (!d)
        return NULL;
    while ((e = readdir (d))) {
        size_t len = strlen (e->d_name);
        if (len <= slen || strcmp (e->d_name + len - slen, suffix) != 0)
            continue;
        char **more = realloc (names, sizeof (char *) * (count + 1));
        if (!more)
            break;
        names = more;
        names[count++] = strdup (e->d_name);
    }
    closedir (d);
    if (count)
        qsort (names, count, sizeof (char *), cmp_names);
    *n = count;
    return names;
}

static void free_names (char **names, int n)
{
    for (int i = 0; i < n; i++)
        free (names[i]);
    free (names);
}

/* Whole file as a string, with one trailing newline removed if chomp;
 * NULL if absent. */
static char *read_text (const char *path, int chomp)
{
    FILE *f = fopen (path, "r");
    if (!f)
        return NULL;
    char *buf = calloc (1, 8192);
    size_t n = buf ? fread (buf, 1, 8191, f) : 0;
    fclose (f);
    if (chomp && n > 0 && buf[n - 1] == '\n')
        buf[n - 1] = '\0';
    return buf;
}

static int near (double a, double b, double eps)
{
    return fabs (a - b) <= eps;
}

static void test_defaults (void)
{
    ns_config_t *cfg = ns_config_create ();
    ok (cfg != NULL, "ns_config_create works");
    if (!cfg)
        return;
    const ns_policy_t *p = ns_config_policy (cfg);
    is_int (p->kind, NS_POLICY_TWINS, "default policy is twins");
    is_int (p->keep_program, NS_PROGRAM_UNKNOWN, "no keep program");
    is_int (p->stripe_width, 2, "default stripe_width is 2");
    is_int (p->max_cotenants, 2, "default max_cotenants is 2");
    ok (p->max_slowdown == 1.15, "default max_slowdown is 1.15");
    is_int (p->fallback_after, 0, "default fallback_after is 0 (at once)");
    is_int ((long long)p->seed, 0, "default seed is 0");
    is_int (ns_progtab_count (ns_config_progtab (cfg)), 0,
            "no programs interned");
    ok (ns_interf_speedup (ns_config_interf (cfg), 0) == 1.0
            && ns_interf_slowdown (ns_config_interf (cfg), 0, 1) == 1.0,
        "default speedup and slowdown are 1.0");
    is_int (ns_identity_npatterns (ns_config_identity (cfg)), 0,
            "no identity patterns");
    ok (ns_config_cache_sigma (cfg) == 1.0, "default cache.sigma is 1.0");
    is_int ((long long)ns_config_cache_footprint (cfg), 0,
            "default cache.default_footprint is 0 (none)");
    ns_config_destroy (cfg);

    errno = 42;
    ns_config_destroy (NULL);
    is_int (errno, 42, "ns_config_destroy (NULL) keeps errno");

    ns_error_t err = { "" };
    cfg = ns_config_load_string ("// nothing to change\n{}", "empty-object",
                                 &err);
    ok (cfg != NULL, "{} loads");
    if (cfg) {
        is_int (ns_config_policy (cfg)->kind, NS_POLICY_TWINS,
                "{} means the defaults");
        ns_config_destroy (cfg);
    }
}

static const struct {
    const char *file;
    ns_policy_kind_t kind;
} examples[] = {
    { "abq-lam-lsd.json", NS_POLICY_TWINS },
    { "exclusive.json", NS_POLICY_EXCLUSIVE },
    { "spread.json", NS_POLICY_SPREAD },
    { "mixed.json", NS_POLICY_MIXED },
    { "twins.json", NS_POLICY_TWINS },
    { "same.json", NS_POLICY_SAME },
    { "keep-LAM.json", NS_POLICY_KEEP },
    { "min-slowdown.json", NS_POLICY_MIN_SLOWDOWN },
    { "pack.json", NS_POLICY_PACK },
};

static int expected_kind (const char *file)
{
    for (size_t i = 0; i < sizeof (examples) / sizeof (examples[0]); i++) {
        if (strcmp (examples[i].file, file) == 0)
            return (int)examples[i].kind;
    }
    return -1;
}

static void test_examples (void)
{
    char dir[4096], path[4096 + 256];
    int n;
    snprintf (dir, sizeof (dir), "%s/examples", srcdir);
    char **names = list_dir (dir, ".json", &n);
    ok (n >= (int)(sizeof (examples) / sizeof (examples[0])),
        "examples/ has the %d policy examples (found %d files)",
        (int)(sizeof (examples) / sizeof (examples[0])), n);
    for (int i = 0; i < n; i++) {
        ns_error_t err = { "" };
        snprintf (path, sizeof (path), "%s/%s", dir, names[i]);
        ns_config_t *cfg = ns_config_load_file (path, &err);
        if (!ok (cfg != NULL, "examples/%s loads", names[i]))
            diag ("%s", err.text);
        int kind = expected_kind (names[i]);
        if (cfg && kind >= 0)
            is_int (ns_config_policy (cfg)->kind, kind,
                    "examples/%s has policy %s", names[i],
                    ns_policy_kind_name (kind));
        ns_config_destroy (cfg);
    }
    free_names (names, n);
}

static void test_study_figures (void)
{
    static const char *prog[3] = { "ABQ", "LAM", "LSD" };
    /* design.md section 3, rows: the program slowed */
    static const double slow[3][3] = {
        { 1.012, 1.024, 1.035 },
        { 0.978, 1.024, 0.979 },
        { 1.071, 1.178, 1.102 },
    };
    static const double speedup[3] = { 1.255, 1.147, 1.400 };
    static const double full_half[3][2] = { { 246, 196 }, { 109, 95 },
                                            { 28, 20 } };
    char path[4096];
    ns_error_t err = { "" };

    snprintf (path, sizeof (path), "%s/examples/abq-lam-lsd.json", srcdir);
    ns_config_t *cfg = ns_config_load_file (path, &err);
    if (!ok (cfg != NULL, "abq-lam-lsd.json loads")) {
        diag ("%s", err.text);
        return;
    }
    ns_progtab_t *t = ns_config_progtab (cfg);
    const ns_interf_t *m = ns_config_interf (cfg);
    is_int (ns_progtab_count (t), 3, "three programs");
    for (int p = 0; p < 3; p++) {
        is_int (ns_progtab_lookup (t, prog[p]), p, "%s has id %d", prog[p],
                p);
        ok (ns_interf_speedup (m, p) == speedup[p], "speedup %s is %.3f",
            prog[p], speedup[p]);
        ok (near (ns_interf_speedup (m, p),
                  full_half[p][0] / full_half[p][1], 0.0005),
            "speedup %s is %g/%g to 3 decimals", prog[p], full_half[p][0],
            full_half[p][1]);
        ok (ns_interf_weight (m, p) == 1.0, "weight %s is 1", prog[p]);
        for (int q = 0; q < 3; q++)
            ok (ns_interf_slowdown (m, p, q) == slow[p][q],
                "slowdown %s/%s is %.3f", prog[p], prog[q], slow[p][q]);
    }
    ok (ns_interf_slowdown (m, 2, 1) == 1.178, "slowdown LSD/LAM is 1.178");
    ok (ns_interf_speedup (m, 3) == 1.0 && ns_interf_slowdown (m, 3, 0) == 1.0,
        "a program without figures reads 1.0");
    is_int (ns_config_policy (cfg)->kind, NS_POLICY_TWINS, "policy twins");
    ok (ns_identity_npatterns (ns_config_identity (cfg)) > 0,
        "identity patterns loaded");
    ns_config_destroy (cfg);
}

/* Every key with a value other than its default, read back. */
/* Scope, GRES nodes, requeue, accounting, metrics, shadow rotation. */
static void test_site_keys (void)
{
    ns_error_t err = { "" };
    ns_config_t *cfg = ns_config_load_string ("{}", "empty", &err);
    is_int (ns_config_scope_count (cfg, NS_SCOPE_PARTITION), -1,
            "no partitions key: -1 (everywhere)");
    is_int (ns_config_out_of_scope (cfg, "any", NULL, NULL), -1,
            "no scope: every job in scope, even without account or QOS");
    is_int (ns_config_stripe_gres_nodes (cfg), 0, "stripe_gres_nodes false");
    is_int (ns_config_policy (cfg)->stripe_no_requeue, 0,
            "stripe_no_requeue false");
    is_int (ns_config_admin_comment (cfg), 1, "admin_comment true");
    ok (ns_config_metrics_file (cfg) == NULL, "no metrics_file");
    is_int ((long long)ns_config_shadow_max_bytes (cfg), 64LL << 20,
            "shadow.max_bytes 64M");
    is_int (ns_config_shadow_keep (cfg), 4, "shadow.keep 4");
    is_int (ns_config_learn (cfg)->explore, 0, "learn.explore false");
    ns_config_destroy (cfg);

    cfg = ns_config_load_string (
        "{ \"partitions\": [\"batch\", \"short\"], \"qos\": [],"
        "  \"accounts\": [\"chem\"], \"stripe_gres_nodes\": true,"
        "  \"stripe_no_requeue\": true, \"admin_comment\": false,"
        "  \"metrics_file\": \"/var/lib/x/nodeshare.prom\","
        "  \"shadow\": { \"max_bytes\": \"1M\", \"keep\": 9 },"
        "  \"learn\": { \"explore\": true } }", "site", &err);
    if (!ok (cfg != NULL, "every site key loads")) {
        diag ("%s", err.text);
        return;
    }
    is_int (ns_config_scope_count (cfg, NS_SCOPE_PARTITION), 2,
            "partitions: 2 names");
    is_str (ns_config_scope_name (cfg, NS_SCOPE_PARTITION, 1), "short",
            "  the second is short");
    ok (ns_config_scope_name (cfg, NS_SCOPE_PARTITION, 2) == NULL,
        "  no third");
    is_int (ns_config_scope_count (cfg, NS_SCOPE_QOS), 0,
            "qos: an empty list (no QOS in scope)");
    is_int (ns_config_out_of_scope (cfg, "batch", "chem", "normal"),
            NS_SCOPE_QOS, "empty qos list: out of scope by its QOS");
    ns_config_destroy (cfg);
    cfg = ns_config_load_string (
        "{ \"partitions\": [\"batch\", \"short\"],"
        "  \"accounts\": [\"chem\"], \"stripe_gres_nodes\": true,"
        "  \"stripe_no_requeue\": true, \"admin_comment\": false,"
        "  \"metrics_file\": \"/var/lib/x/nodeshare.prom\","
        "  \"shadow\": { \"max_bytes\": \"1M\", \"keep\": 9 },"
        "  \"learn\": { \"explore\": true } }", "site", &err);
    is_int (ns_config_out_of_scope (cfg, "short", "chem", NULL), -1,
            "partition short, account chem: in scope (no qos list)");
    is_int (ns_config_out_of_scope (cfg, "debug", "chem", NULL),
            NS_SCOPE_PARTITION, "partition debug: out, by partitions");
    is_int (ns_config_out_of_scope (cfg, "batch", "cfd", NULL),
            NS_SCOPE_ACCOUNT, "account cfd: out, by accounts");
    is_int (ns_config_out_of_scope (cfg, NULL, "chem", NULL),
            NS_SCOPE_PARTITION, "no partition known: out");
    is_str (ns_scope_key (NS_SCOPE_ACCOUNT), "accounts", "key accounts");
    is_int (ns_config_stripe_gres_nodes (cfg), 1, "stripe_gres_nodes read");
    is_int (ns_config_policy (cfg)->stripe_no_requeue, 1,
            "stripe_no_requeue read into the policy");
    is_int (ns_config_admin_comment (cfg), 0, "admin_comment read");
    is_str (ns_config_metrics_file (cfg), "/var/lib/x/nodeshare.prom",
            "metrics_file read");
    is_int ((long long)ns_config_shadow_max_bytes (cfg), 1LL << 20,
            "shadow.max_bytes \"1M\"");
    is_int (ns_config_shadow_keep (cfg), 9, "shadow.keep 9");
    is_int (ns_config_learn (cfg)->explore, 1, "learn.explore read");
    ns_config_destroy (cfg);

    /* Gres= strings (gres.h): which nodes have GRES. */
    static const struct { const char *s; int any; } g[] = {
        { NULL, 0 }, { "", 0 }, { "(null)", 0 }, { "gpu:0", 0 },
        { "gpu:00,nic:0", 0 }, { "gpu:2", 1 }, { "gpu", 1 },
        { "gpu:a100", 1 }, { "gpu:a100:4(S:0-1)", 1 },
        { "gpu:a100:0(S:0-1),nic:1", 1 }, { "gpu:0(S:0-1)", 0 },
        { "gpu:10", 1 }, { ",", 0 },
    };
    for (size_t i = 0; i < sizeof (g) / sizeof (g[0]); i++)
        is_int (ns_gres_any (g[i].s), g[i].any, "ns_gres_any (\"%s\")",
                g[i].s ? g[i].s : "NULL");
}

static void test_all_keys (void)
{
    const char *text =
        "{\n"
        "  'policy': 'min-slowdown', /* single quotes: json-c allows them */\n"
        "  \"stripe_width\": 3.0,\n"
        "  \"max_cotenants\": 4,\n"
        "  \"max_slowdown\": 1.25,\n"
        "  \"fallback_after\": 600,\n"
        "  \"seed\": 12345,\n"
        "  \"default_speedup\": 1.1,\n"
        "  \"default_slowdown\": 1.05,\n"
        "  \"programs\": { \"X\": { \"weight\": 0 } },\n"
        "  \"identity\": { \"order\": [\"name\"],\n"
        "                \"patterns\": [ { \"program\": \"LAM\",\n"
        "                                \"match\": \"lmp*\" } ] },\n"
        "  \"cache\": { \"sigma\": 0.5, \"default_footprint\": \"64KiB\" }\n"
        "}\n";
    ns_error_t err = { "" };
    ns_config_t *cfg = ns_config_load_string (text, "all-keys", &err);
    if (!ok (cfg != NULL, "a config setting every key loads")) {
        diag ("%s", err.text);
        return;
    }
    const ns_policy_t *p = ns_config_policy (cfg);
    is_int (p->kind, NS_POLICY_MIN_SLOWDOWN, "policy read");
    is_int (p->stripe_width, 3, "stripe_width 3.0 reads as 3");
    is_int (p->max_cotenants, 4, "max_cotenants read");
    ok (p->max_slowdown == 1.25, "max_slowdown read");
    is_int (p->fallback_after, 600, "fallback_after read");
    is_int ((long long)p->seed, 12345, "seed read");
    const ns_interf_t *m = ns_config_interf (cfg);
    ok (ns_interf_speedup (m, 7) == 1.1, "default_speedup read");
    ok (ns_interf_slowdown (m, 7, 8) == 1.05, "default_slowdown read");
    ok (ns_interf_weight (m, 0) == 0.0, "weight 0 read");
    ok (ns_config_cache_sigma (cfg) == 0.5, "cache.sigma read");
    is_int ((long long)ns_config_cache_footprint (cfg), 65536,
            "cache.default_footprint \"64KiB\" is 65536");
    const ns_identity_t *id = ns_config_identity (cfg);
    is_int (ns_identity_npatterns (id), 1, "one pattern");
    is_str (ns_identity_map (id, "lmp_mpi"), "LAM", "lmp* maps to LAM");
    char out[64];
    is_int (ns_identity_resolve (id, "tag", NULL, "jobname", out,
                                 sizeof (out)),
            NS_ID_NAME, "order [name]: the tag is not consulted");
    is_int (ns_config_mode (cfg), NS_MODE_NORMAL, "mode: normal by default");
    ns_config_destroy (cfg);

    cfg = ns_config_load_string ("{\"mode\": \"shadow\"}", "mode", &err);
    ok (cfg && ns_config_mode (cfg) == NS_MODE_SHADOW, "mode shadow read");
    is_str (ns_mode_name (ns_config_mode (cfg)), "shadow", "  named shadow");
    ns_config_destroy (cfg);
    cfg = ns_config_load_string ("{\"mode\": \"normal\"}", "mode", &err);
    ok (cfg && ns_config_mode (cfg) == NS_MODE_NORMAL, "mode normal read");
    ns_config_destroy (cfg);
    is_int (ns_config_mode (NULL), NS_MODE_NORMAL, "no config: normal");

    cfg = ns_config_load_string ("{\"cache\": {\"default_footprint\": 4096}}",
                                 "footprint", &err);
    ok (cfg && ns_config_cache_footprint (cfg) == 4096,
        "cache.default_footprint as an integer");
    ns_config_destroy (cfg);
}

/* programs first, in order of first mention there; then keep:P; then
 * pattern targets - wherever the keys sit in the file. */
static void test_intern_order (void)
{
    const char *text =
        "{ \"policy\": \"keep:ZZZ\",\n"
        "  \"identity\": { \"patterns\": [ { \"match\": \"y*\",\n"
        "                                   \"program\": \"YYY\" },\n"
        "                                 { \"match\": \"b*\",\n"
        "                                   \"program\": \"B\" } ] },\n"
        "  \"programs\": { \"B\": { \"slowdown\": { \"C\": 1.1 } },\n"
        "                \"C\": {},\n"
        "                \"A\": { \"slowdown\": { \"B\": 0.9 } } }\n"
        "}";
    static const char *want[] = { "B", "C", "A", "ZZZ", "YYY" };
    ns_error_t err = { "" };
    ns_config_t *cfg = ns_config_load_string (text, "order", &err);
    if (!ok (cfg != NULL, "intern-order config loads")) {
        diag ("%s", err.text);
        return;
    }
    ns_progtab_t *t = ns_config_progtab (cfg);
    is_int (ns_progtab_count (t), 5, "five programs interned");
    for (int i = 0; i < 5; i++)
        is_str (ns_progtab_name (t, i), want[i], "id %d is %s", i, want[i]);
    is_int (ns_config_policy (cfg)->keep_program, 3, "keep:ZZZ is id 3");
    ok (ns_interf_slowdown (ns_config_interf (cfg), 0, 1) == 1.1
            && ns_interf_slowdown (ns_config_interf (cfg), 2, 0) == 0.9,
        "slowdowns stored under the interned ids");
    ns_config_destroy (cfg);
}

static void test_bad_files (void)
{
    char dir[4096], path[4096 + 256], prefix[4096 + 8];
    int n;
    snprintf (dir, sizeof (dir), "%s/tests/configs/bad", srcdir);
    snprintf (prefix, sizeof (prefix), "%s/", dir);
    char **names = list_dir (dir, ".json", &n);
    ok (n >= 18, "at least 18 bad configurations (found %d)", n);
    for (int i = 0; i < n; i++) {
        ns_error_t err = { "" };
        char *name = names[i];
        snprintf (path, sizeof (path), "%s/%.*s.expect", dir,
                  (int)(strlen (name) - 5), name);
        char *want = read_text (path, 1);
        if (!ok (want != NULL, "%s has a .expect file", name)) {
            free (want);
            continue;
        }
        snprintf (path, sizeof (path), "%s/%s", dir, name);
        errno = 0;
        ns_config_t *cfg = ns_config_load_file (path, &err);
        int e = errno;
        ok (cfg == NULL && e == EINVAL, "%s fails with EINVAL", name);
        ns_config_destroy (cfg);
        const char *got = err.text;
        if (strncmp (got, prefix, strlen (prefix)) == 0)
            got += strlen (prefix);
        is_str (got, want, "%s: message", name);

        /* the same text given as a string reports the same message */
        char *text = read_text (path, 0);
        cfg = ns_config_load_string (text ? text : "", name, &err);
        ok (cfg == NULL && strcmp (err.text, want) == 0,
            "%s: same failure from ns_config_load_string", name);
        ns_config_destroy (cfg);
        free (text);
        free (want);
    }
    free_names (names, n);
}

static void test_file_errors (void)
{
    char path[4096 + 64], want[8192];
    ns_error_t err = { "" };

    snprintf (path, sizeof (path), "%s/tests/configs/no-such-file.json",
              srcdir);
    errno = 0;
    ok (ns_config_load_file (path, &err) == NULL && errno == ENOENT,
        "missing file fails with ENOENT");
    snprintf (want, sizeof (want), "%s: cannot open: %s", path,
              strerror (ENOENT));
    is_str (err.text, want, "missing file: message names the file");

    snprintf (path, sizeof (path), "%s/tests/configs", srcdir);
    errno = 0;
    ok (ns_config_load_file (path, &err) == NULL && errno == EISDIR,
        "a directory fails with EISDIR");
    snprintf (want, sizeof (want), "%s: cannot read: %s", path,
              strerror (EISDIR));
    is_str (err.text, want, "directory: message");

    errno = 0;
    ok (ns_config_load_file (NULL, &err) == NULL && errno == EINVAL,
        "NULL path fails with EINVAL");
    errno = 0;
    ok (ns_config_load_string (NULL, "x", &err) == NULL && errno == EINVAL,
        "NULL text fails with EINVAL");
    ok (ns_config_load_string ("[]", NULL, &err) == NULL
            && strcmp (err.text, "(string): top level: expected an object, "
                                 "got an empty array") == 0,
        "NULL srcname reads (string)");
    ok (ns_config_load_string ("null", "n", &err) == NULL && errno == EINVAL
            && strcmp (err.text, "n: top level: expected an object, got "
                                 "null") == 0,
        "a JSON null is not a configuration");
    ok (ns_config_load_string ("{\"seed\": -1}", "s", NULL) == NULL
            && errno == EINVAL,
        "a NULL error buffer is allowed");
}

/* Files made on the fly: size limit, NUL byte. */
static int write_temp (char *name, const char *data, size_t len,
                       off_t total)
{
    int fd = mkstemp (name);
    if (fd < 0)
        return -1;
    int rc = write (fd, data, len) == (ssize_t)len ? 0 : -1;
    if (rc == 0 && total > 0)
        rc = ftruncate (fd, total);
    close (fd);
    return rc;
}

static void test_temp_files (void)
{
    char name[] = "config-test-XXXXXX";
    char want[256];
    ns_error_t err = { "" };

    if (write_temp (name, "{}\0{}", 5, 0) == 0) {
        ok (ns_config_load_file (name, &err) == NULL && errno == EINVAL,
            "a NUL byte fails");
        snprintf (want, sizeof (want), "%s:1:3: expected text, got a NUL "
                  "byte", name);
        is_str (err.text, want, "NUL byte: message with position");
        unlink (name);
    }
    else
        ok (0, "cannot create a temporary file");

    /* 16 MiB of text is the limit: a valid config just at it loads. */
    size_t max = 16 * 1024 * 1024;
    char *big = malloc (max);
    if (big) {
        memset (big, ' ', max);
        memcpy (big, "{}", 2);
        strcpy (name, "config-test-XXXXXX");
        if (write_temp (name, big, max, 0) == 0) {
            ns_config_t *cfg = ns_config_load_file (name, &err);
            ok (cfg != NULL, "a 16 MiB file loads");
            ns_config_destroy (cfg);
            unlink (name);
        }
        free (big);
    }
    strcpy (name, "config-test-XXXXXX");
    if (write_temp (name, "{}", 2, (off_t)max + 1) == 0) {
        errno = 0;
        ok (ns_config_load_file (name, &err) == NULL && errno == EFBIG,
            "a file above 16 MiB fails with EFBIG");
        snprintf (want, sizeof (want), "%s: expected a file of at most "
                  "16 MiB, got more", name);
        is_str (err.text, want, "too big: message");
        unlink (name);
    }
}

static const struct {
    const char *s;
    uint64_t bytes;
} sizes_good[] = {
    { "0", 0 },
    { "512", 512 },
    { "512B", 512 },
    { "32K", 32768 },
    { "32k", 32768 },
    { "32KB", 32768 },
    { "64KiB", 65536 },
    { "64kib", 65536 },
    { "64 KiB", 65536 },
    { "2M", 2097152 },
    { "2MiB", 2097152 },
    { "1.5G", 1610612736 },
    { "0.5K", 512 },
    { "1.1K", 1126 }, /* 1126.4 rounded down */
    { "1T", 1099511627776ull },
    { "16777215T", 16777215ull << 40 },
    { "18446744073709551615", UINT64_MAX },
};

static const struct {
    const char *s;
    int errnum;
} sizes_bad[] = {
    { "", EINVAL },
    { "-1", EINVAL },
    { "+1", EINVAL },
    { " 1", EINVAL },
    { "1 ", EINVAL },
    { "1.5", EINVAL },   /* a fraction of a byte */
    { "1.5B", EINVAL },
    { "1.", EINVAL },
    { ".5K", EINVAL },
    { "12Q", EINVAL },
    { "1Ki", EINVAL },
    { "1iB", EINVAL },
    { "1KiBx", EINVAL },
    { "1KK", EINVAL },
    { "1e3", EINVAL },
    { "0x10", EINVAL },
    { "K", EINVAL },
    { "1.5.5K", EINVAL },
    { "1.0000000000000000001K", EINVAL }, /* more than 18 decimals */
    { "18446744073709551616", ERANGE },
    { "16777216T", ERANGE },
    { "99999999999999999999999", ERANGE },
};

static void test_parse_size (void)
{
    for (size_t i = 0; i < sizeof (sizes_good) / sizeof (sizes_good[0]);
         i++) {
        uint64_t b = 7;
        int rc = ns_parse_size (sizes_good[i].s, &b);
        ok (rc == 0 && b == sizes_good[i].bytes,
            "ns_parse_size (\"%s\") = %llu", sizes_good[i].s,
            (unsigned long long)sizes_good[i].bytes);
    }
    for (size_t i = 0; i < sizeof (sizes_bad) / sizeof (sizes_bad[0]); i++) {
        uint64_t b = 7;
        errno = 0;
        int rc = ns_parse_size (sizes_bad[i].s, &b);
        ok (rc < 0 && errno == sizes_bad[i].errnum && b == 7,
            "ns_parse_size (\"%s\") fails with %s", sizes_bad[i].s,
            sizes_bad[i].errnum == ERANGE ? "ERANGE" : "EINVAL");
    }
    uint64_t b;
    errno = 0;
    ok (ns_parse_size (NULL, &b) < 0 && errno == EINVAL,
        "ns_parse_size (NULL) fails with EINVAL");
}

int main (void)
{
    plan_no_plan ();
    find_srcdir ();
    diag ("source tree: %s", srcdir);
    test_defaults ();
    test_examples ();
    test_study_figures ();
    test_all_keys ();
    test_site_keys ();
    test_intern_order ();
    test_bad_files ();
    test_file_errors ();
    test_temp_files ();
    test_parse_size ();
    return done_testing ();
}
