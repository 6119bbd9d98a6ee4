/* SPDX-License-Identifier: GPL-2.0-or-later */
/* idtables.c - launchers, wrappers, containers, shells, interpreters
 * and their options (see idtables.h) */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "idtables.h"

/*
 * Name tables
 */

bool idt_in_list (const char *const *list, const char *w)
{
    for (; list && *list; list++) {
        if (strcmp (*list, w) == 0)
            return true;
    }
    return false;
}

/* Commands that prepare, tidy up or report, but are not the job's work. */
const char *const idt_housekeeping[] = {
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
const char *const idt_prefix_keywords[] = {
    "if", "then", "else", "elif", "do", "while", "until", "!", "{", NULL,
};

/* Words that start something other than a simple command. */
const char *const idt_not_commands[] = {
    "for", "select", "case", "function", "fi", "done", "esac", "}", "in",
    "]]", NULL,
};

/*
 * Options
 */


bool idt_is_option (const struct optspec *spec, const char *o)
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
int idt_option_nargs (const struct optspec *spec, const char *o,
                         const char *next)
{
    if (o[0] == '-' && o[1] == '-' && strchr (o, '='))
        return 0;
    if (idt_in_list (spec->args2, o))
        return next && strchr (next, '=') ? 1 : 2;  /* -genv A=1 form */
    if (idt_in_list (spec->args, o))
        return 1;
    if (spec->shortargs && o[0] == '-' && o[1] != '-')
        return short_nargs (spec->shortargs, o + 1);
    return 0;
}

/* Index of the first word from i on that is neither an option nor an
 * option's argument; "--" ends the options.  May be n. */
int idt_skip_options (const struct optspec *spec, char **w, int n, int i)
{
    while (i < n) {
        if (strcmp (w[i], "--") == 0)
            return i + 1;
        if (!idt_is_option (spec, w[i]))
            break;
        i += 1 + idt_option_nargs (spec, w[i], i + 1 < n ? w[i + 1] : NULL);
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


const struct launcher idt_launchers[] = {
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
const char *const idt_perf_subcommands[] = {
    "stat", "record", "trace", "mem", "c2c", NULL,
};
static const char *const forge_args[] = {
    "-n", "--np", "--processes", "--nodes", "--procs-per-node", "--mpi",
    "--mpiargs", "--log", "--session", "--config", "--trace-at",
    "--break-at", "--snapshot-interval", "-o", "--output", NULL,
};
static const char *const command_stops[] = { "-v", "-V", NULL };

const struct wrapper idt_wrappers[] = {
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

const struct optspec idt_container_spec = {
    .shortargs = "BHWoS",
    .args = container_args,
};

const char *const idt_containers[] = { "apptainer", "singularity", NULL };

/* bash [options] -c 'CMD' | bash [options] SCRIPT */
static const char *const shell_args[] = {
    "-o", "+o", "-O", "+O", "--rcfile", "--init-file", NULL,
};

const struct optspec idt_shell_spec = {
    .args = shell_args,
    .plus = true,
};

const char *const idt_shells[] = {
    "bash", "sh", "dash", "zsh", "ksh", "csh", "tcsh", NULL,
};

/*
 * Interpreters: the script they run names the program
 */


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

const struct interp idt_interps[] = {
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

