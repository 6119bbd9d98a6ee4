/* SPDX-License-Identifier: GPL-2.0-or-later */
/* identity.c - which program a job runs (design.md section 4)
 *
 * ns_identity_script_exe() reads a batch script as far as a shell would to
 * find its commands: quotes, escapes, line continuations, comments,
 * here-documents (their bodies are data and are skipped), redirections
 * (dropped) and the operators ; && || | & ( ) that separate commands.  Each
 * simple command is then peeled: leading keywords (if, then, do, ...) and
 * variable assignments, wrappers (time, env, numactl, apptainer exec IMAGE,
 * ...) and launchers (srun, mpirun, ...) with their options, until the
 * program itself remains.
 *
 * Decisions beyond the header's contract:
 *  - The first command run through a launcher wins.  A launcher that runs
 *    nothing or only housekeeping (srun hostname, mpirun mkdir -p d) does
 *    not count: such lines are checks or staging before the real run.
 *  - Without a launcher the last line with a real command wins; within one
 *    line (a && b, a | b, a; b) its first real command.  Shell builtins and
 *    housekeeping tools (cd, module, echo, cp, tar, sbatch, ...) are not
 *    real commands, unless named by a relative path (./test is the user's).
 *  - Unknown launcher options are taken as flags; a bare number or NAME=value
 *    where the program should be is skipped as a stray option value.
 *  - An unexpandable variable as the command ($EXE, "${EXE}") gives the
 *    variable's name (EXE): nothing can be expanded here, and the name is
 *    stable from job to job, which is what a pattern needs.
 *  - Interpreters give their script: python3 -u train.py -> train.py,
 *    python3 -m pkg -> pkg (but python -m mpi4py x.py -> x.py), java -jar
 *    a.jar -> a.jar, Rscript fit.R -> fit.R, R -f x.R / R CMD BATCH x.R ->
 *    x.R; inline code (python -c, perl -e, matlab -batch) or no script at
 *    all gives the interpreter's own name.  bash/sh -c 'CMD' is read as a
 *    script in its own right; bash run.sh gives run.sh; a bare shell none.
 *  - apptainer/singularity run IMAGE without a command gives the image
 *    (no directory, no .sif/.simg/.img suffix, no :tag).
 *
 * All buffers are sized from the script's length, so no name is ever
 * truncated: a word after quote removal is never longer than its source.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "identity.h"
#include "idlex.h"
#include "nsutil.h"
#include "progtab.h"

/* bash -c "sh -c '...'" nests; deeper than this is not a real script. */
#define MAX_NESTING 4
/* Wrappers and launchers around one program; more is not a real command. */
#define MAX_HOPS 32
/* Script functions remembered: real scripts define a few, and a bound keeps
 * a hostile script linear. */
#define MAX_FUNCTIONS 64

/*
 * Name tables
 */

static bool in_list (const char *const *list, const char *w)
{
    for (; list && *list; list++) {
        if (strcmp (*list, w) == 0)
            return true;
    }
    return false;
}

/* Commands that prepare, tidy up or report, but are not the job's work. */
static const char *const housekeeping[] = {
    /* shell builtins */
    ":", ".", "[", "[[", "alias", "bg", "break", "builtin", "cd",
    "continue", "declare", "dirs", "echo", "eval", "exit", "export", "false",
    "fg", "getopts", "hash", "jobs", "kill", "let", "local", "popd", "printf",
    "pushd", "pwd", "read", "readonly", "return", "set", "shift", "shopt",
    "source", "test", "times", "trap", "true", "type", "typeset", "ulimit",
    "umask", "unalias", "unset", "wait",
    /* environment setup */
    "module", "ml", "modulecmd", "spack", "conda", "mamba", "micromamba",
    "activate", "deactivate", "pip", "pip3", "virtualenv",
    /* files, text and reports */
    "awk", "basename", "bc", "bunzip2", "bzip2", "cat", "chgrp", "chmod",
    "chown", "cmp", "cp", "curl", "cut", "date", "df", "diff", "dirname",
    "du", "egrep", "expr", "fgrep", "file", "find", "free", "gawk", "git",
    "grep", "gunzip", "gzip", "head", "hostname", "id", "ldd", "lfs", "ln",
    "logger", "ls", "lscpu", "mail", "mailx", "md5sum", "mkdir", "mktemp",
    "mv", "nproc", "nvidia-smi", "printenv", "ps", "readlink", "realpath",
    "rm", "rmdir", "rsync", "scp", "sed", "seq", "sha256sum", "sleep", "sort",
    "stat", "sync", "tail", "tar", "tee", "touch", "tr", "uname", "uniq",
    "unzip", "uptime", "wc", "wget", "which", "whoami", "xargs", "xz", "zip",
    "zstd",
    /* Slurm client commands */
    "sacct", "sbatch", "sbcast", "scancel", "scontrol", "seff", "sinfo",
    "squeue", "sstat",
    NULL,
};

/* Words in front of a command that the command still follows. */
static const char *const prefix_keywords[] = {
    "if", "then", "else", "elif", "do", "while", "until", "!", "{", NULL,
};

/* Words that start something other than a simple command. */
static const char *const not_commands[] = {
    "for", "select", "case", "function", "fi", "done", "esac", "}", "in",
    "]]", NULL,
};

/*
 * Options
 */

/* Which options of a command take arguments, so that the first word after
 * them is the operand (the program, the image, ...). */
struct optspec {
    const char *shortargs;      /* getopt(3) letters taking an argument */
    const char *const *args;    /* whole words taking one argument */
    const char *const *args2;   /* whole words taking two (-genv NAME VAL) */
    bool plus;                  /* +opt words are options too */
};

static bool is_option (const struct optspec *spec, const char *o)
{
    if (o[0] == '-' && o[1] != '\0')
        return true;
    return spec->plus && o[0] == '+' && o[1] != '\0';
}

/* getopt(3) clustering: in "-ln4" or "-ln 4", -n takes "4". */
static int short_nargs (const char *shortargs, const char *cluster)
{
    for (const char *c = cluster; *c; c++) {
        if (strchr (shortargs, *c))
            return c[1] == '\0' ? 1 : 0;
    }
    return 0;
}

/* How many words after option o are its arguments. */
static int option_nargs (const struct optspec *spec, const char *o,
                         const char *next)
{
    if (o[0] == '-' && o[1] == '-' && strchr (o, '='))
        return 0;
    if (in_list (spec->args2, o))
        return next && strchr (next, '=') ? 1 : 2;  /* -genv A=1 form */
    if (in_list (spec->args, o))
        return 1;
    if (spec->shortargs && o[0] == '-' && o[1] != '-')
        return short_nargs (spec->shortargs, o + 1);
    return 0;
}

/* Index of the first word from i on that is neither an option nor an
 * option's argument; "--" ends the options.  May be n. */
static int skip_options (const struct optspec *spec, char **w, int n, int i)
{
    while (i < n) {
        if (strcmp (w[i], "--") == 0)
            return i + 1;
        if (!is_option (spec, w[i]))
            break;
        i += 1 + option_nargs (spec, w[i], i + 1 < n ? w[i + 1] : NULL);
    }
    return i < n ? i : n;
}

/*
 * Launchers: the program they start is the job's program
 */

static const char *const srun_args[] = {
    "--accel-bind", "--account", "--acctg-freq", "--bb", "--bbf", "--begin",
    "--chdir", "--cluster-constraint", "--clusters", "--comment",
    "--constraint", "--container", "--container-id", "--context",
    "--core-spec", "--cores-per-socket", "--cpu-bind", "--cpu_bind",
    "--cpu-freq", "--cpus-per-gpu", "--cpus-per-task", "--deadline",
    "--delay-boot", "--dependency", "--distribution", "--epilog", "--error",
    "--exclude", "--export", "--extra", "--extra-node-info", "--gid",
    "--gpu-bind", "--gpu-freq", "--gpus", "--gpus-per-node",
    "--gpus-per-socket", "--gpus-per-task", "--gres", "--gres-flags",
    "--het-group", "--hint", "--input", "--job-name", "--jobid",
    "--licenses", "--mail-type", "--mail-user", "--mcs-label", "--mem",
    "--mem-bind", "--mem_bind", "--mem-per-cpu", "--mem-per-gpu",
    "--mincpus", "--mpi", "--network", "--nodefile", "--nodelist", "--nodes",
    "--ntasks", "--ntasks-per-core", "--ntasks-per-gpu", "--ntasks-per-node",
    "--ntasks-per-socket", "--open-mode", "--output", "--partition",
    "--power", "--prefer", "--prolog", "--profile", "--qos", "--relative",
    "--reservation", "--segment", "--signal", "--slurmd-debug",
    "--sockets-per-node", "--switches", "--task-epilog", "--task-prolog",
    "--tasks-per-node", "--thread-spec", "--threads", "--threads-per-core",
    "--time", "--time-min", "--tmp", "--tres-bind", "--tres-per-task",
    "--uid", "--wait", "--wckey", NULL,
};

/* srun's own getopt string: "+A:b:B:c:C:d:D:e:EF:G:hHi:I::jJ:k::K::..." */
static const struct optspec srun_spec = {
    .shortargs = "AbBcCdDeFGiJLmMnNopqrStTwWx",
    .args = srun_args,
};

/* Open MPI, PRRTE, MPICH and Intel MPI (Hydra) take single-dash long
 * options, so these are matched as whole words. */
static const char *const mpi_args[] = {
    "-n", "-np", "--np", "-c", "-N", "-npernode", "--npernode",
    "-npersocket", "--npersocket", "-ppn", "-perhost", "-H", "-host",
    "--host", "-hosts", "-hostfile", "--hostfile", "-machinefile",
    "--machinefile", "-machine", "-f", "-default-hostfile",
    "--default-hostfile", "-rf", "-rankfile", "--rankfile", "-x", "-wdir",
    "--wdir", "-wd", "--wd", "-path", "--path", "-prefix", "--prefix", "-am",
    "--am", "--tune", "-output-filename", "--output-filename", "-app",
    "--app", "-cpus-per-proc", "--cpus-per-proc", "-cpus-per-rank",
    "--cpus-per-rank", "-map-by", "--map-by", "-bind-to", "--bind-to",
    "-rank-by", "--rank-by", "-binding", "-timeout", "--timeout", "-stdin",
    "--stdin", "--personality", "--launch-agent", "-launcher",
    "-launcher-exec", "-bootstrap", "-bootstrap-exec", "-rmk", "-iface",
    "-genvlist", "-envlist", "-configfile", "-outfile-pattern",
    "-errfile-pattern", "-gtool", "-umask", "-nameserver", "-demux",
    "-usize", "-localhost", "--output", "--display", "-tmpdir", "--tmpdir",
    NULL,
};

static const char *const mpi_args2[] = {
    "-mca", "--mca", "-gmca", "--gmca", "--prtemca", "--pmixmca", "-genv",
    "-env", NULL,
};

static const struct optspec mpi_spec = {
    .args = mpi_args,
    .args2 = mpi_args2,
};

static const char *const aprun_args[] = {
    "-n", "-N", "-d", "-cc", "-cp", "-D", "-e", "-E", "-F", "-j", "-L", "-m",
    "-p", "-r", "-R", "-S", "-sl", "-sn", "-t", "-a", NULL,
};

static const struct optspec aprun_spec = {
    .args = aprun_args,
};

static const char *const ibrun_args[] = {
    "-n", "-np", "-o", NULL,
};

static const struct optspec ibrun_spec = {
    .args = ibrun_args,
};

static const char *const charmrun_args[] = {
    "+p", "++p", "++n", "++ppn", "++nodelist", "++nodegroup", "++runscript",
    "++remote-shell", "++batch", "++timeout", "++debugger", "++server-port",
    "-n", "-np", NULL,
};

static const struct optspec charmrun_spec = {
    .args = charmrun_args,
    .plus = true,
};

struct launcher {
    const char *name;
    const struct optspec *spec;
};

static const struct launcher launchers[] = {
    { "srun", &srun_spec },
    { "mpirun", &mpi_spec },
    { "mpiexec", &mpi_spec },
    { "mpiexec.hydra", &mpi_spec },
    { "mpirun.openmpi", &mpi_spec },
    { "mpirun.mpich", &mpi_spec },
    { "mpiexec.openmpi", &mpi_spec },
    { "mpiexec.mpich", &mpi_spec },
    { "mpirun_rsh", &mpi_spec },
    { "orterun", &mpi_spec },
    { "prun", &mpi_spec },
    { "aprun", &aprun_spec },
    { "ibrun", &ibrun_spec },
    { "charmrun", &charmrun_spec },
    { NULL, NULL },
};

/*
 * Wrappers: run the command that follows them
 */

enum wshape {
    W_PLAIN,        /* options, then the command */
    W_ENV,          /* options, NAME=value and "-", then the command */
    W_OPERAND,      /* options, one operand (mask, duration), the command */
    W_PRIORITY,     /* options, an optional numeric priority, the command */
    W_SUBCOMMAND,   /* a subcommand (perf stat), options, the command */
};

struct wrapper {
    const char *name;
    struct optspec spec;
    enum wshape shape;
    const char *const *stops;   /* options after which nothing is run */
};

static const char *const time_args[] = { "--format", "--output", NULL };
static const char *const timeout_args[] = {
    "--kill-after", "--signal", NULL,
};
static const char *const env_args[] = {
    "--unset", "--chdir", "--split-string", NULL,
};
static const char *const nice_args[] = { "--adjustment", NULL };
static const char *const numactl_args[] = {
    "--interleave", "--weighted-interleave", "--preferred",
    "--preferred-many", "--cpubind", "--cpunodebind", "--physcpubind",
    "--membind", "--shm", "--file", "--offset", "--length", "--shmmode",
    "--shmid", NULL,
};
static const char *const stdbuf_args[] = {
    "--input", "--output", "--error", NULL,
};
static const char *const chrt_args[] = {
    "--sched-runtime", "--sched-period", "--sched-deadline", NULL,
};
static const char *const perf_args[] = {
    "--event", "--repeat", "--output", "--field-separator", "--cgroup",
    "--cpu", "--interval-print", "--metrics", "--delay", "--freq",
    "--count", "--mmap-pages", "--branch-filter", "--uid", "--tid", "--pid",
    "--call-graph", "--post", "--pre", "--log-fd", NULL,
};
static const char *const perf_subcommands[] = {
    "stat", "record", "trace", "mem", "c2c", NULL,
};
static const char *const forge_args[] = {
    "-n", "--np", "--processes", "--nodes", "--procs-per-node", "--mpi",
    "--mpiargs", "--log", "--session", "--config", "--trace-at",
    "--break-at", "--snapshot-interval", "-o", "--output", NULL,
};
static const char *const command_stops[] = { "-v", "-V", NULL };

static const struct wrapper wrappers[] = {
    { "time", { .shortargs = "fo", .args = time_args }, W_PLAIN, NULL },
    { "timeout", { .shortargs = "ks", .args = timeout_args }, W_OPERAND,
      NULL },
    { "env", { .shortargs = "CSu", .args = env_args }, W_ENV, NULL },
    { "nice", { .shortargs = "n", .args = nice_args }, W_PLAIN, NULL },
    { "ionice", { .shortargs = "cn" }, W_PLAIN, NULL },
    { "numactl", { .shortargs = "iwpPcCNmSfoLMI", .args = numactl_args },
      W_PLAIN, NULL },
    { "taskset", { 0 }, W_OPERAND, NULL },
    { "stdbuf", { .shortargs = "ioe", .args = stdbuf_args }, W_PLAIN, NULL },
    { "nohup", { 0 }, W_PLAIN, NULL },
    { "setsid", { 0 }, W_PLAIN, NULL },
    { "exec", { .shortargs = "a" }, W_PLAIN, NULL },
    { "command", { 0 }, W_PLAIN, command_stops },
    { "chrt", { .shortargs = "TPD", .args = chrt_args }, W_PRIORITY, NULL },
    { "perf", { .shortargs = "eroxGCIMDFcmjutp", .args = perf_args },
      W_SUBCOMMAND, NULL },
    { "valgrind", { 0 }, W_PLAIN, NULL },
    { "likwid-pin", { .shortargs = "cdsV" }, W_PLAIN, NULL },
    { "likwid-perfctr", { .shortargs = "cCgtSTVoM" }, W_PLAIN, NULL },
    { "ddt", { .args = forge_args }, W_PLAIN, NULL },
    { "map", { .args = forge_args }, W_PLAIN, NULL },
    { "perf-report", { .args = forge_args }, W_PLAIN, NULL },
    { "task_affinity", { 0 }, W_PLAIN, NULL },
    { "tacc_affinity", { 0 }, W_PLAIN, NULL },
    { .name = NULL },
};

/* apptainer/singularity exec|run [options] IMAGE [command] */
static const char *const container_args[] = {
    "--bind", "--home", "--workdir", "--overlay", "--scratch", "--env",
    "--env-file", "--pwd", "--cwd", "--app", "--security", "--network",
    "--network-args", "--dns", "--hostname", "--mount", "--no-mount",
    "--drop-caps", "--add-caps", "--apply-cgroups", "--cpus",
    "--cpuset-cpus", "--cpuset-mems", "--cpu-shares", "--memory",
    "--memory-reservation", "--memory-swap", "--blkio-weight",
    "--pids-limit", "--fusemount", "--pem-path", "--authfile", "--library",
    "--containlibs", NULL,
};

static const struct optspec container_spec = {
    .shortargs = "BHWoS",
    .args = container_args,
};

static const char *const containers[] = { "apptainer", "singularity", NULL };

/* bash [options] -c 'CMD' | bash [options] SCRIPT */
static const char *const shell_args[] = {
    "-o", "+o", "-O", "+O", "--rcfile", "--init-file", NULL,
};

static const struct optspec shell_spec = {
    .args = shell_args,
    .plus = true,
};

static const char *const shells[] = {
    "bash", "sh", "dash", "zsh", "ksh", "csh", "tcsh", NULL,
};

/*
 * Interpreters: the script they run names the program
 */

struct interp {
    const char *name;           /* also name + version: python3.11 */
    const char *const *args;    /* options taking an argument */
    const char *const *code;    /* options whose argument is inline code */
    const char *const *prog;    /* options whose argument is the program */
    const char *subcommand;     /* R CMD BATCH: skip it and the next word */
};

static const char *const python_args[] = {
    "-W", "-X", "--check-hash-based-pycs", NULL,
};
static const char *const python_code[] = { "-c", NULL };
static const char *const python_prog[] = { "-m", NULL };
static const char *const java_args[] = {
    "-cp", "-classpath", "--class-path", "-p", "--module-path",
    "--add-modules", "--add-opens", "--add-exports", NULL,
};
static const char *const java_prog[] = { "-jar", "-m", "--module", NULL };
static const char *const r_code[] = { "-e", NULL };
static const char *const r_prog[] = { "-f", "--file", NULL };
static const char *const julia_args[] = {
    "-t", "--threads", "-p", "--procs", "-J", "--sysimage", "-L", "--load",
    "--machine-file", "-C", "--cpu-target", "--heap-size-hint", "-H",
    "--home", NULL,
};
static const char *const julia_code[] = {
    "-e", "--eval", "-E", "--print", NULL,
};
static const char *const perl_args[] = { "-I", NULL };
static const char *const perl_code[] = { "-e", "-E", NULL };
static const char *const ruby_args[] = { "-I", "-r", "-C", NULL };
static const char *const node_args[] = {
    "-r", "--require", "--import", NULL,
};
static const char *const node_code[] = {
    "-e", "--eval", "-p", "--print", NULL,
};
static const char *const octave_args[] = { "-p", "--path", NULL };
static const char *const octave_code[] = { "--eval", NULL };
static const char *const matlab_args[] = { "-logfile", "-sd", NULL };
static const char *const matlab_code[] = { "-r", "-batch", NULL };

static const struct interp interps[] = {
    { "python", python_args, python_code, python_prog, NULL },
    { "pypy", python_args, python_code, python_prog, NULL },
    { "java", java_args, NULL, java_prog, NULL },
    { "Rscript", NULL, r_code, NULL, NULL },
    { "R", NULL, r_code, r_prog, "CMD" },
    { "julia", julia_args, julia_code, NULL, NULL },
    { "perl", perl_args, perl_code, NULL, NULL },
    { "ruby", ruby_args, perl_code, NULL, NULL },
    { "node", node_args, node_code, NULL, NULL },
    { "octave", octave_args, octave_code, NULL, NULL },
    { "matlab", matlab_args, matlab_code, NULL, NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

/*
 * Word predicates
 */

/* NAME=value, NAME+=value, NAME[i]=value */
static bool is_assignment (const char *w)
{
    if (!isalpha ((unsigned char)*w) && *w != '_')
        return false;
    while (isalnum ((unsigned char)*w) || *w == '_')
        w++;
    if (*w == '[') {
        if (!(w = strchr (w, ']')))
            return false;
        w++;
    }
    if (*w == '+')
        w++;
    return *w == '=';
}

/* `which lmp`, $(command -v lmp): the program looked up.  Other command
 * substitutions name nothing ("").  Cuts the word in place. */
static char *substituted_name (char *w)
{
    size_t n = strlen (w);
    w[n - 1] = '\0';
    char *s = w + (w[0] == '`' ? 1 : 2);
    s += strspn (s, " \t");
    if (strncmp (s, "which ", 6) == 0)
        s += 6;
    else if (strncmp (s, "command -v ", 11) == 0)
        s += 11;
    else
        return w + n - 1;
    s += strspn (s, " \t");
    s[strcspn (s, " \t")] = '\0';
    char *slash = strrchr (s, '/');
    return slash ? slash + 1 : s;
}

static bool is_substitution (const char *w)
{
    size_t n = strlen (w);
    if (n >= 2 && w[0] == '`' && w[n - 1] == '`')
        return true;
    return n >= 3 && w[0] == '$' && w[1] == '(' && w[n - 1] == ')';
}

/* The program a command word names: no directory, and for an unexpandable
 * $VAR or ${VAR} the variable's name.  Quotes are gone already.  Cuts the
 * word in place. */
static char *prog_name (char *w)
{
    if (is_substitution (w))
        return substituted_name (w);
    char *s = strrchr (w, '/');
    s = s ? s + 1 : w;
    if (*s == '$') {
        s++;
        if (*s == '{' || *s == '(')
            s++;
        char *e = s;
        while (isalnum ((unsigned char)*e) || *e == '_')
            e++;
        *e = '\0';
    }
    return s;
}

/* A relative path (./test, ../bin/cp) is the user's own build, whatever
 * its name. */
static bool is_relative_path (const char *w)
{
    return strncmp (w, "./", 2) == 0 || strncmp (w, "../", 3) == 0;
}

/* python3, python3.11, pypy3: family name followed by a version. */
static bool is_version_of (const char *name, const char *family)
{
    size_t n = strlen (family);
    if (strncmp (name, family, n) != 0)
        return false;
    for (name += n; *name; name++) {
        if (!isdigit ((unsigned char)*name) && *name != '.')
            return false;
    }
    return true;
}

/*
 * Command evaluation: peel a command down to its program
 */

enum kind {
    K_NONE = 0,     /* runs nothing of interest */
    K_PLAIN,        /* runs a program, not through a launcher */
    K_LAUNCH,       /* runs a program through a launcher */
};

struct eval {
    char *name;         /* result; at least as long as the script */
    size_t cap;
    int depth;          /* bash -c nesting */
    int hops;           /* wrappers peeled in this command */
    bool nomem;
    const char *funcs;  /* functions the script defined, NUL-separated */
    size_t funcslen;
    int nfuncs;
};

static int scan_script (const char *script, int depth, char *out,
                        size_t cap, bool *nomem);
static int eval_program (struct eval *e, char **w, int n);

/* Every name found goes through here: an empty one is no name. */
static int set_name (struct eval *e, const char *s)
{
    size_t n = strlen (s);
    if (n == 0)
        return K_NONE;
    if (n >= e->cap)
        n = e->cap - 1;     /* not reached: cap exceeds the script length */
    memcpy (e->name, s, n);
    e->name[n] = '\0';
    return K_PLAIN;
}

/* mpirun $MPI_FLAGS ./app: a variable followed by the user's own build is
 * more likely options than the program. */
static bool is_options_variable (char **w, int n, int i)
{
    return i + 1 < n && w[i][0] == '$' && !strchr (w[i], '/')
           && is_relative_path (w[i + 1]);
}

static int eval_launcher (struct eval *e, const struct launcher *l, char **w,
                          int n)
{
    int i = skip_options (l->spec, w, n, 1);
    while (i < n && (ns_idlex_is_number (w[i]) || is_assignment (w[i])
                     || is_options_variable (w, n, i)))
        i++;
    return eval_program (e, w + i, n - i) == K_NONE ? K_NONE : K_LAUNCH;
}

static int eval_wrapper (struct eval *e, const struct wrapper *wr, char **w,
                         int n)
{
    int i = 1;
    if (wr->shape == W_SUBCOMMAND) {
        if (n < 2 || !in_list (perf_subcommands, w[1]))
            return K_NONE;
        i = 2;
    }
    i = skip_options (&wr->spec, w, n, i);
    for (int j = 1; j < i; j++) {
        if (in_list (wr->stops, w[j]))
            return K_NONE;
    }
    if (wr->shape == W_ENV && i < n && strcmp (w[i], "-") == 0)
        i++;
    else if (wr->shape == W_OPERAND)
        i++;
    else if (wr->shape == W_PRIORITY && i < n && ns_idlex_is_number (w[i]))
        i++;
    return i < n ? eval_program (e, w + i, n - i) : K_NONE;
}

static bool is_function (const struct eval *e, const char *name)
{
    size_t off = 0;
    while (off < e->funcslen) {
        if (strcmp (e->funcs + off, name) == 0)
            return true;
        off += strlen (e->funcs + off) + 1;
    }
    return false;
}

/* The image as a name: lammps_2023.sif -> lammps_2023, docker://x/y:1 -> y */
static int image_name (struct eval *e, char *image)
{
    static const char *const suffixes[] = { ".sif", ".simg", ".img", NULL };
    char *s = prog_name (image);
    char *colon = strchr (s, ':');
    if (colon)
        *colon = '\0';
    size_t n = strlen (s);
    for (int i = 0; suffixes[i]; i++) {
        size_t k = strlen (suffixes[i]);
        if (n > k && strcmp (s + n - k, suffixes[i]) == 0) {
            s[n - k] = '\0';
            break;
        }
    }
    return set_name (e, s);
}

/* run passes further words to the image's runscript, which commonly
 * executes them ("$@"), so a word after the image is the command; with
 * none the image itself is the program. */
static int eval_container (struct eval *e, char **w, int n)
{
    if (n < 2)
        return K_NONE;
    bool run = strcmp (w[1], "run") == 0;
    if (!run && strcmp (w[1], "exec") != 0)
        return K_NONE;
    int i = skip_options (&container_spec, w, n, 2);
    if (i >= n)
        return K_NONE;
    char *image = w[i++];
    if (i < n && w[i][0] != '-')
        return eval_program (e, w + i, n - i);
    return run ? image_name (e, image) : K_NONE;
}

static int eval_shell (struct eval *e, char **w, int n)
{
    bool cmd = false;
    int i = 1;
    while (i < n && is_option (&shell_spec, w[i])) {
        if (strcmp (w[i], "--") == 0) {
            i++;
            break;
        }
        if (w[i][0] == '-' && w[i][1] != '-' && strchr (w[i] + 1, 'c'))
            cmd = true;
        i += 1 + option_nargs (&shell_spec, w[i], i + 1 < n ? w[i + 1] : NULL);
    }
    if (i >= n)
        return K_NONE;
    if (!cmd)
        return set_name (e, prog_name (w[i]));     /* bash run.sh */
    if (e->depth >= MAX_NESTING)
        return K_NONE;
    int k = scan_script (w[i], e->depth + 1, e->name, e->cap, &e->nomem);
    return k < 0 ? K_NONE : k;
}

/* If w[*i] is one of opts, return its argument ("-m pkg", "-mpkg",
 * "--file=x"), advancing *i past a separate one; else NULL. */
static char *opt_value (const char *const *opts, char **w, int n, int *i)
{
    char *o = w[*i];
    for (; opts && *opts; opts++) {
        size_t k = strlen (*opts);
        if (strcmp (o, *opts) == 0)
            return *i + 1 < n ? w[++*i] : o + k;   /* o + k: "" */
        if (strncmp (o, *opts, k) != 0)
            continue;
        if (k == 2 && o[1] != '-')
            return o + 2;
        if (o[k] == '=')
            return o + k + 1;
    }
    return NULL;
}

/* mpi4py runs the script given after it: python -m mpi4py run.py */
static bool runs_script_after (const char *module)
{
    return strcmp (module, "mpi4py") == 0
           || strncmp (module, "mpi4py.", 7) == 0;
}

static int eval_interp (struct eval *e, const struct interp *in,
                        const char *self, char **w, int n)
{
    const char *fallback = self;
    char *v;
    for (int i = 1; i < n; i++) {
        const char *o = w[i];
        if (strcmp (o, "--") == 0 && i + 1 < n)
            return set_name (e, prog_name (w[i + 1]));
        if (in->subcommand && strcmp (o, in->subcommand) == 0) {
            i++;
            continue;
        }
        if (strcmp (o, "-") == 0)       /* script on stdin */
            break;
        if (o[0] != '-') {
            const char *script = prog_name (w[i]);
            return set_name (e, *script ? script : fallback);
        }
        if (opt_value (in->code, w, n, &i))
            return set_name (e, self);
        if ((v = opt_value (in->prog, w, n, &i))) {
            v = prog_name (v);
            if (!*v || !runs_script_after (v))
                return set_name (e, *v ? v : self);
            fallback = v;
        }
        else if (in_list (in->args, o))
            i++;
    }
    return set_name (e, fallback);
}

static const struct launcher *find_launcher (const char *name)
{
    for (const struct launcher *l = launchers; l->name; l++) {
        if (strcmp (l->name, name) == 0)
            return l;
    }
    return NULL;
}

static const struct wrapper *find_wrapper (const char *name)
{
    for (const struct wrapper *wr = wrappers; wr->name; wr++) {
        if (strcmp (wr->name, name) == 0)
            return wr;
    }
    return NULL;
}

static const struct interp *find_interp (const char *name)
{
    for (const struct interp *in = interps; in->name; in++) {
        if (is_version_of (name, in->name))
            return in;
    }
    return NULL;
}

/* w[0..n) is a command without its leading keywords. */
static int eval_program (struct eval *e, char **w, int n)
{
    while (n > 0 && is_assignment (w[0])) {
        w++;
        n--;
    }
    if (n <= 0 || ++e->hops > MAX_HOPS)
        return K_NONE;
    bool relative = is_relative_path (w[0]);
    char *name = prog_name (w[0]);
    /* "-", "<(cmd)", "`": debris of syntax this reader does not model */
    if (!*name || ns_idlex_is_number (name) || strchr ("-<>(`", name[0]))
        return K_NONE;
    const struct launcher *l = find_launcher (name);
    if (l)
        return eval_launcher (e, l, w, n);
    const struct wrapper *wr = find_wrapper (name);
    if (wr)
        return eval_wrapper (e, wr, w, n);
    if (in_list (containers, name))
        return eval_container (e, w, n);
    if (in_list (shells, name))
        return eval_shell (e, w, n);
    const struct interp *in = find_interp (name);
    if (in)
        return eval_interp (e, in, name, w, n);
    if (!relative && in_list (housekeeping, name))
        return K_NONE;
    /* a call of the script's own function runs its body, seen already */
    if (is_function (e, name))
        return K_NONE;
    return set_name (e, name);
}

/*
 * Scanner: commands in order, the first launched one or the last real one
 */

struct scan {
    struct lexer lx;
    struct eval e;
    char **words;       /* current command */
    int n;
    int cap;
    int at;             /* first word after leading keywords (if, do, ...) */
    bool dbracket;      /* inside [[ ... ]], where && and || are operands */
    int case_depth;
    bool want_pattern;  /* next comes a case pattern, up to its ')' */
    bool line_done;     /* this line has given its candidate already */
    bool have_last;
    char *last;         /* latest real command */
    bool found;         /* e.name holds a launched program */
    char *funcs;        /* e.funcs, writable */
    size_t funcscap;
};

static void reset_command (struct scan *s)
{
    s->n = 0;
    s->at = 0;
    s->lx.len = 0;
    s->dbracket = false;
}

static int push_word (struct scan *s, char *w)
{
    if (ns_grow (&s->words, &s->cap, s->n + 1, sizeof (*s->words), 32) < 0)
        return -1;
    s->words[s->n++] = w;
    int at = s->at;
    if (at == s->n - 1 && in_list (prefix_keywords, w))
        s->at++;
    else if (at == s->n - 1 && strcmp (w, "[[") == 0)
        s->dbracket = true;
    else if (strcmp (w, "]]") == 0)
        s->dbracket = false;
    /* "case WORD in": what follows are patterns and their commands */
    if (s->n - at == 3 && strcmp (s->words[at], "case") == 0
        && strcmp (w, "in") == 0) {
        reset_command (s);
        s->case_depth++;
        s->want_pattern = true;
    }
    return 0;
}

/* Inside a case, "pat1|pat2)" is no command; "esac" closes the case. */
static void pattern_token (struct scan *s, int t, const char *w)
{
    if (t == T_WORD && strcmp (w, "esac") == 0) {
        s->case_depth--;
        s->want_pattern = false;
    }
    else if (t == T_CLOSE)
        s->want_pattern = false;
    reset_command (s);
}

static void define_function (struct scan *s, const char *name)
{
    size_t n = strlen (name);
    if (n > 0 && s->e.nfuncs < MAX_FUNCTIONS
        && s->e.funcslen + n + 1 <= s->funcscap) {
        memcpy (s->funcs + s->e.funcslen, name, n + 1);
        s->e.funcslen += n + 1;
        s->e.nfuncs++;
    }
}

static int eval_command (struct scan *s)
{
    int at = s->at;
    if (at == s->n)
        return K_NONE;
    const char *w0 = s->words[at];
    if (strcmp (w0, "esac") == 0 && s->case_depth > 0)
        s->case_depth--;
    if (strcmp (w0, "function") == 0 && at + 1 < s->n)
        define_function (s, s->words[at + 1]);
    if (in_list (not_commands, w0) || strncmp (w0, "((", 2) == 0)
        return K_NONE;
    s->e.hops = 0;
    return eval_program (&s->e, s->words + at, s->n - at);
}

static void end_command (struct scan *s, int t)
{
    /* "name ()" starts a function definition, not a command */
    if (s->n > 0 && t == T_OPEN)
        define_function (s, s->words[s->n - 1]);
    else if (s->n > 0) {
        int k = eval_command (s);
        if (k == K_LAUNCH)
            s->found = true;
        else if (k == K_PLAIN && !s->line_done) {
            strcpy (s->last, s->e.name);
            s->have_last = true;
            s->line_done = true;
        }
    }
    if (t == T_DSEMI && s->case_depth > 0)
        s->want_pattern = true;
    if (t == T_NEWLINE)
        s->line_done = false;
    reset_command (s);
}

/* && || | ( ) inside [[ ... ]] are part of the test, not separators. */
static bool test_operand (const struct scan *s, int t)
{
    return s->dbracket && (t == T_AND || t == T_OR || t == T_PIPE
                           || t == T_OPEN || t == T_CLOSE);
}

static int scan_run (struct scan *s)
{
    for (;;) {
        char *w = NULL;
        int t = ns_idlex_next (&s->lx, &w);
        if (s->want_pattern)
            pattern_token (s, t, w);
        else if (t == T_WORD) {
            if (push_word (s, w) < 0)
                return -1;
        }
        else if (!test_operand (s, t))
            end_command (s, t);
        if (s->found || t == T_EOF)
            return 0;
    }
}

/* Scan script; the program goes to out (cap > strlen (script)).  Returns
 * a kind, or -1 when out of memory (also flagged in *nomem). */
static int scan_script (const char *script, int depth, char *out,
                        size_t cap, bool *nomem)
{
    size_t slen = strlen (script);
    struct scan s = {
        .lx = { .p = script, .cap = 2 * slen + 32, .hdcap = slen + 32 },
        .e = { .name = out, .cap = cap, .depth = depth },
    };
    s.funcscap = slen + 1;
    char *mem = malloc (s.lx.cap + s.lx.hdcap + slen + 1 + s.funcscap);
    if (!mem) {
        *nomem = true;
        return -1;
    }
    s.lx.buf = mem;
    s.lx.hd = mem + s.lx.cap;
    s.last = s.lx.hd + s.lx.hdcap;
    s.funcs = s.last + slen + 1;
    s.e.funcs = s.funcs;
    int rc = scan_run (&s);
    free (s.words);
    if (rc == 0 && !s.found && s.have_last)
        strcpy (out, s.last);
    free (mem);
    if (rc < 0 || s.e.nomem) {
        *nomem = true;
        return -1;
    }
    return s.found ? K_LAUNCH : s.have_last ? K_PLAIN : K_NONE;
}

int ns_identity_script_exe (const char *script, char *out, size_t len)
{
    if (!script || !out) {
        errno = EINVAL;
        return -1;
    }
    size_t cap = strlen (script) + 1;
    char *name = malloc (cap);
    bool nomem = false;
    if (!name)
        return -1;
    int k = scan_script (script, 0, name, cap, &nomem);
    int errnum = nomem ? ENOMEM : k == K_NONE ? ENOENT
                 : strlen (name) >= len ? ERANGE : 0;
    if (errnum == 0)
        strcpy (out, name);
    free (name);
    if (errnum) {
        errno = errnum;
        return -1;
    }
    return 0;
}

/*
 * Sources and the identity configuration
 */

static const char *const source_names[] = { "tag", "script", "name", "none" };

const char *ns_idsource_name (ns_idsource_t s)
{
    if ((int)s < (int)NS_ID_TAG || s > NS_ID_NONE)
        return "?";
    return source_names[s];
}

int ns_idsource_parse (const char *s)
{
    for (int i = NS_ID_TAG; s && i < NS_ID_NONE; i++) {
        if (strcasecmp (s, source_names[i]) == 0)
            return i;
    }
    errno = EINVAL;
    return -1;
}

struct pattern {
    char *glob;
    char *program;
};

struct ns_identity {
    ns_idsource_t order[NS_ID_NONE];
    int norder;
    struct pattern *pat;
    int npat;
    int cap;
};

ns_identity_t *ns_identity_create (void)
{
    ns_identity_t *id = calloc (1, sizeof (*id));
    if (!id)
        return NULL;
    id->order[0] = NS_ID_TAG;
    id->order[1] = NS_ID_SCRIPT;
    id->order[2] = NS_ID_NAME;
    id->norder = 3;
    return id;
}

void ns_identity_destroy (ns_identity_t *id)
{
    if (!id)
        return;
    int saved = errno;
    for (int i = 0; i < id->npat; i++) {
        free (id->pat[i].glob);
        free (id->pat[i].program);
    }
    free (id->pat);
    free (id);
    errno = saved;
}

ns_identity_t *ns_identity_copy (const ns_identity_t *id)
{
    if (!id) {
        errno = EINVAL;
        return NULL;
    }
    ns_identity_t *c = ns_identity_create ();
    if (!c)
        return NULL;
    memcpy (c->order, id->order, sizeof (c->order));
    c->norder = id->norder;
    for (int i = 0; i < id->npat; i++) {
        if (ns_identity_add_pattern (c, id->pat[i].glob, id->pat[i].program,
                                     NULL) < 0) {
            ns_identity_destroy (c);
            return NULL;
        }
    }
    return c;
}

int ns_identity_set_order (ns_identity_t *id, const ns_idsource_t *order,
                           int n, ns_error_t *err)
{
    if (!id || !order)
        return ns_error_set (err, EINVAL, "identity order: no sources given");
    if (n < 1 || n > NS_ID_NONE)
        return ns_error_set (err, EINVAL,
                             "identity order: %d sources given, "
                             "expected 1 to %d of tag, script, name",
                             n, NS_ID_NONE);
    bool seen[NS_ID_NONE] = { false };
    for (int i = 0; i < n; i++) {
        if ((int)order[i] < (int)NS_ID_TAG || order[i] >= NS_ID_NONE)
            return ns_error_set (err, EINVAL,
                                 "identity order: source %d is not one of "
                                 "tag, script, name", (int)order[i]);
        if (seen[order[i]])
            return ns_error_set (err, EINVAL,
                                 "identity order: '%s' listed twice",
                                 source_names[order[i]]);
        seen[order[i]] = true;
    }
    memcpy (id->order, order, sizeof (*order) * n);
    id->norder = n;
    return 0;
}

int ns_identity_add_pattern (ns_identity_t *id, const char *glob,
                             const char *program, ns_error_t *err)
{
    if (!id)
        return ns_error_set (err, EINVAL, "identity pattern: no identity");
    if (!glob || !*glob)
        return ns_error_set (err, EINVAL, "identity pattern: empty glob");
    if (!program || !*program)
        return ns_error_set (err, EINVAL,
                             "identity pattern '%s': empty program name",
                             glob);
    if (strlen (program) >= NS_PROGRAM_NAME_MAX)
        return ns_error_set (err, EINVAL,
                             "identity pattern '%s': program name longer "
                             "than %d characters",
                             glob, NS_PROGRAM_NAME_MAX - 1);
    if (ns_grow (&id->pat, &id->cap, id->npat + 1, sizeof (*id->pat), 8) < 0)
        return ns_error_set (err, ENOMEM, "out of memory");
    char *g = strdup (glob);
    char *p = strdup (program);
    if (!g || !p) {
        free (g);
        free (p);
        return ns_error_set (err, ENOMEM, "out of memory");
    }
    id->pat[id->npat].glob = g;
    id->pat[id->npat].program = p;
    id->npat++;
    return 0;
}

int ns_identity_npatterns (const ns_identity_t *id)
{
    return id ? id->npat : 0;
}

const char *ns_identity_map (const ns_identity_t *id, const char *name)
{
    if (!id || !name)
        return name;
    for (int i = 0; i < id->npat; i++) {
        if (fnmatch (id->pat[i].glob, name, 0) == 0)
            return id->pat[i].program;
    }
    return name;
}

/* The name one source yields, or NULL; *tmp is the script's buffer. */
static const char *source_value (ns_idsource_t src, const char *tag,
                                 const char *script, const char *jobname,
                                 char **tmp)
{
    if (src == NS_ID_TAG)
        return tag && *tag ? tag : NULL;
    if (src == NS_ID_NAME)
        return jobname && *jobname ? jobname : NULL;
    if (!script || !*script)
        return NULL;
    size_t cap = strlen (script) + 1;
    if (!(*tmp = malloc (cap)))
        return NULL;
    if (ns_identity_script_exe (script, *tmp, cap) < 0)
        return NULL;
    return *tmp;
}

ns_idsource_t ns_identity_resolve (const ns_identity_t *id, const char *tag,
                                   const char *script, const char *jobname,
                                   char *out, size_t len)
{
    if (!id || !out || len == 0) {
        errno = EINVAL;
        return NS_ID_NONE;
    }
    int errnum = ENOENT;
    for (int i = 0; i < id->norder; i++) {
        char *tmp = NULL;
        const char *v = source_value (id->order[i], tag, script, jobname,
                                      &tmp);
        const char *prog = v ? ns_identity_map (id, v) : NULL;
        bool fits = prog && strlen (prog) < len;
        if (fits)
            strcpy (out, prog);
        else if (prog)
            errnum = ERANGE;
        free (tmp);
        if (fits)
            return id->order[i];
    }
    out[0] = '\0';
    errno = errnum;
    return NS_ID_NONE;
}
