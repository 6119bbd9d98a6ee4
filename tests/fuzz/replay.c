/* SPDX-License-Identifier: GPL-2.0-or-later */
/* replay.c - make check for a fuzz target, without libFuzzer: every file
 * of tests/fuzz/corpus/NAME and tests/fuzz/crashes/NAME (the inputs that
 * once crashed it) goes through the target once, one TAP point each.
 * Built with the project's compiler, so the sanitizer build replays them
 * under ASan and UBSan too.  With file arguments, replays those instead.
 * NAME is the target's name (-DFUZZ_NAME="...").
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#include "tap.h"

int LLVMFuzzerInitialize (int *argc, char ***argv) __attribute__ ((weak));

static int replay_file (const char *path)
{
    FILE *f = fopen (path, "rb");
    if (!f)
        return -1;
    size_t cap = 4096, n = 0, got;
    uint8_t *buf = malloc (cap);
    while (buf && (got = fread (buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *more = realloc (buf, cap * 2);
            if (!more)
                break;
            buf = more;
            cap *= 2;
        }
    }
    fclose (f);
    if (!buf)
        return -1;
    LLVMFuzzerTestOneInput (buf, n);   /* aborts on a broken promise */
    free (buf);
    return 0;
}

static int is_input (const struct dirent *d)
{
    return d->d_name[0] != '.';
}

static void replay_dir (const char *top, const char *kind, int *count)
{
    char dir[4096], path[8192];
    struct dirent **names;
    snprintf (dir, sizeof (dir), "%s/tests/fuzz/%s/%s", top, kind,
              FUZZ_NAME);
    int n = scandir (dir, &names, is_input, alphasort);
    if (n < 0)
        return;
    for (int i = 0; i < n; i++) {
        snprintf (path, sizeof (path), "%s/%s", dir, names[i]->d_name);
        ok (replay_file (path) == 0, "%s %s/%s", FUZZ_NAME, kind,
            names[i]->d_name);
        (*count)++;
        free (names[i]);
    }
    free (names);
}

int main (int argc, char **argv)
{
    const char *top = getenv ("top_srcdir");
    int count = 0;
    plan_no_plan ();
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize (&argc, &argv);
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            ok (replay_file (argv[i]) == 0, "%s %s", FUZZ_NAME, argv[i]);
        return done_testing ();
    }
    replay_dir (top ? top : ".", "corpus", &count);
    replay_dir (top ? top : ".", "crashes", &count);
    ok (count > 0, "%s: %d inputs replayed", FUZZ_NAME, count);
    return done_testing ();
}
