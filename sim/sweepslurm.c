/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sweepslurm.c - a sweep as Slurm jobs: batch scripts and sbatch
 * (sim/sweepslurm.h). */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweepslurm.h"

/* 'text' for sh, single quotes inside escaped. */
void ns_sh_quote (FILE *f, const char *s)
{
    fputc ('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs ("'\\''", f);
        else
            fputc (*s, f);
    }
    fputc ('\'', f);
}

char *ns_sweep_script (const ns_sweep_t *sw, const char *exe,
                       const char *file, const char *what, const char *arg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);
    if (!f)
        return NULL;
    fprintf (f, "#!/bin/sh\n# %s of the sweep %s, written by nodeshare-sim "
             "--slurm\n", what, file);
    for (int i = 0; i < sw->nsbatch; i++)
        fprintf (f, "#SBATCH %s\n", sw->sbatch[i]);
    fputs ("exec ", f);
    ns_sh_quote (f, exe);
    fputs (" --sweep ", f);
    ns_sh_quote (f, file);
    fprintf (f, " %s\n", arg);
    if (fclose (f) != 0) {
        free (buf);
        errno = ENOMEM;
        return NULL;
    }
    return buf;
}

long ns_sbatch (char **args, int nargs, const char *extra_args,
                const char *script, ns_error_t *err)
{
    char *argv[128];
    int argc = 0;
    argv[argc++] = "sbatch";
    argv[argc++] = "--parsable";
    for (int i = 0; i < nargs && argc < 100; i++)
        argv[argc++] = args[i];
    /* --sbatch-args, split at blanks */
    char *extra = extra_args ? strdup (extra_args) : NULL, *save;
    if (extra)
        for (char *t = strtok_r (extra, " \t\n", &save); t && argc < 126;
             t = strtok_r (NULL, " \t\n", &save))
            argv[argc++] = t;
    argv[argc++] = (char *)script;
    argv[argc] = NULL;
    int pfd[2];
    if (pipe (pfd) < 0) {
        free (extra);
        return ns_error_set (err, errno, "pipe: %s", strerror (errno));
    }
    fflush (NULL);
    pid_t pid = fork ();
    if (pid == 0) {
        close (pfd[0]);
        dup2 (pfd[1], STDOUT_FILENO);
        execvp ("sbatch", argv);
        fprintf (stderr, "nodeshare-sim: sbatch: %s\n", strerror (errno));
        _exit (127);
    }
    close (pfd[1]);
    free (extra);
    if (pid < 0) {
        close (pfd[0]);
        return ns_error_set (err, errno, "fork: %s", strerror (errno));
    }
    char out[256];
    size_t len = 0;
    ssize_t n;
    while (len < sizeof (out) - 1
           && ((n = read (pfd[0], out + len, sizeof (out) - 1 - len)) > 0
               || (n < 0 && errno == EINTR)))
        if (n > 0)
            len += (size_t)n;
    out[len] = '\0';
    close (pfd[0]);
    int status;
    while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
        ;
    char *end;
    long id = strtol (out, &end, 10);
    if (!WIFEXITED (status) || WEXITSTATUS (status) != 0 || end == out
        || id <= 0 || (*end && *end != ';' && *end != '\n'))
        return ns_error_set (err, EIO, "sbatch %s failed (%s%s)", script,
                             WIFEXITED (status) ? "exit status " : "signal",
                             !WIFEXITED (status) ? ""
                             : WEXITSTATUS (status) == 127
                             ? "127: sbatch not found" : "non-zero");
    return id;
}
