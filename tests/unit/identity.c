/* SPDX-License-Identifier: GPL-2.0-or-later */
/* identity.t - program identity: batch scripts, patterns, resolution */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "identity.h"
#include "identity_test.h"
#include "progtab.h"
#include "tap.h"

/* A batch script and the executable it launches (NULL: runs nothing). */
struct script_case {
    const char *what;
    const char *script;
    const char *exe;
};

static const struct script_case scripts[] = {
    { "plain srun",
      "#!/bin/bash\n"
      "#SBATCH -N 2\n"
      "srun ./lmp_mpi -in in.lj\n",
      "lmp_mpi" },
    { "srun with many options",
      "#!/bin/bash\n"
      "srun -N 2 -n 48 --ntasks-per-node=24 -c 1 --cpu-bind=cores "
      "--mem-per-cpu 2G -o out.%j -l --exclusive -t 01:00:00 "
      "--distribution block:cyclic ./cp2k.psmp -i H2O.inp\n",
      "cp2k.psmp" },
    { "srun getopt cluster -ln 4",
      "srun -ln 4 ./hello\n",
      "hello" },
    { "mpirun -np with --bind-to/--map-by and -x",
      "mpirun -np 64 --bind-to core --map-by ppr:2:socket "
      "-x OMP_NUM_THREADS -x LD_LIBRARY_PATH --mca btl ^openib "
      "--hostfile $HOSTFILE ./gmx_mpi mdrun -s topol.tpr\n",
      "gmx_mpi" },
    { "mpiexec -n with -genv NAME VALUE",
      "export I_MPI_DEBUG=4\n"
      "mpiexec -n 96 -genv OMP_NUM_THREADS 1 -genv I_MPI_PIN=1 "
      "./wrf.exe\n",
      "wrf.exe" },
    { "Intel mpiexec.hydra -ppn",
      "mpiexec.hydra -ppn 2 -n 8 -f hosts.txt /opt/vasp/bin/vasp_std\n",
      "vasp_std" },
    { "module loads before the launch",
      "#!/bin/bash -l\n"
      "#SBATCH --job-name=lammps\n"
      "module purge\n"
      "module load gcc/12 openmpi/4.1\n"
      "ml lammps\n"
      "source $HOME/venv/bin/activate\n"
      ". /etc/profile.d/modules.sh\n"
      "spack load fftw\n"
      "conda activate md\n"
      "export OMP_NUM_THREADS=1\n"
      "cd $SLURM_SUBMIT_DIR\n"
      "srun lmp -in in.rhodo\n",
      "lmp" },
    { "time srun",
      "time srun -n 4 ./stream_c.exe\n",
      "stream_c.exe" },
    { "/usr/bin/time -v srun",
      "/usr/bin/time -v -o time.log srun ./xhpl\n",
      "xhpl" },
    { "srun numactl --interleave=all",
      "srun numactl --interleave=all ./app\n",
      "app" },
    { "srun numactl -C 0-3 --membind 0 -l",
      "srun -n 1 numactl -C 0-3 --membind 0 -l ./triad\n",
      "triad" },
    { "srun apptainer exec --bind a:b image",
      "srun apptainer exec --bind /a:/b image.sif /opt/bin/lmp -in in.lj\n",
      "lmp" },
    { "singularity run with a command",
      "srun singularity run --nv -B /scratch:/scratch tf.sif "
      "python3 train.py --epochs 10\n",
      "train.py" },
    { "singularity run of the image alone",
      "mpirun -np 8 singularity run --cleanenv /images/openfoam_v2306.sif\n",
      "openfoam_v2306" },
    { "env VAR=1 wrapper",
      "srun env -u DISPLAY OMP_NUM_THREADS=4 KMP_AFFINITY=compact "
      "./nwchem input.nw\n",
      "nwchem" },
    { "heredoc with a fake srun inside",
      "cat <<EOF > job.conf\n"
      "srun fake\n"
      "EOF\n"
      "srun ./real\n",
      "real" },
    { "input deck written with cat > in.txt <<'EOF' and <<-",
      "cat > in.txt <<'EOF'\n"
      "mpirun -np 2 ./decoy\n"
      "EOF\n"
      "\tcat <<-END >> in.txt\n"
      "\tsrun decoy2\n"
      "\tEND\n"
      "mpirun ./solver in.txt\n",
      "solver" },
    { "comments containing srun",
      "# srun old_version\n"
      "#srun -n 2 ./older\n"
      "srun ./new_version # srun not_this\n",
      "new_version" },
    { "only #SBATCH lines and setup: nothing runs",
      "#!/bin/bash\n"
      "#SBATCH -N 1\n"
      "#SBATCH --time=00:10:00\n"
      "module load foo\n"
      "echo \"srun ./not_really\"\n"
      "cd /tmp\n",
      NULL },
    { "no launcher: last command after cd",
      "cd $SLURM_SUBMIT_DIR\n"
      "./configure_run\n"
      "cd run\n"
      "./a.out > out.txt 2>&1\n"
      "echo finished\n",
      "a.out" },
    { "line continuation",
      "srun -n 4 \\\n"
      "  --cpu-bind=cores \\\n"
      "  ./app \\\n"
      "  --steps 100\n",
      "app" },
    { "srun ... && echo done",
      "srun -n 4 ./solver && echo done || echo failed\n",
      "solver" },
    { "mpirun ... | tee log",
      "mpirun -np 16 ./bt.C.x 2>&1 | tee bt.log\n",
      "bt.C.x" },
    { "for loop around srun",
      "for i in $(seq 1 4); do\n"
      "    srun -n 1 --exact ./worker $i &\n"
      "done\n"
      "wait\n",
      "worker" },
    { "CRLF line endings",
      "#!/bin/bash\r\n"
      "#SBATCH -n 4\r\n"
      "module load x\r\n"
      "cat <<EOF > in\r\n"
      "srun decoy\r\n"
      "EOF\r\n"
      "srun -n 4 \\\r\n"
      "   ./crlf_app\r\n",
      "crlf_app" },
    { "abaqus without a launcher",
      "module load abaqus/2023\n"
      "unset SLURM_GTIDS\n"
      "abaqus job=x cpus=24 interactive\n",
      "abaqus" },
    { "LS-Dyna via mpirun",
      "mpirun -np 32 ls-dyna_mpp_s_R13 i=input.k memory=2000m\n",
      "ls-dyna_mpp_s_R13" },
    { "srun --mpi=pmix_v3",
      "srun --mpi=pmix_v3 lmp_mpi -in in.lj\n",
      "lmp_mpi" },
    { "exec srun",
      "exec srun ./x\n",
      "x" },
    { "bash -c \"srun ./y\"",
      "bash -c \"srun ./y\"\n",
      "y" },
    { "sh -c with nested quotes and cd",
      "srun sh -c 'cd /work && exec ./z --fast'\n",
      "z" },
    { "variable command ${EXE}",
      "EXE=$HOME/bin/lmp_kokkos\n"
      "srun \"${EXE}\" -k on g 4 -in in.lj\n",
      "EXE" },
    { "path in a variable $HOME/bin/abaqus",
      "$HOME/bin/abaqus job=beam\n",
      "abaqus" },
    { "python3 script",
      "srun python3 -u train.py --lr 0.1\n",
      "train.py" },
    { "python3 -m pkg",
      "srun python3 -m torch.distributed.run --nproc 4 t.py\n",
      "torch.distributed.run" },
    { "python -m mpi4py script",
      "mpirun -np 4 python -m mpi4py solver.py\n",
      "solver.py" },
    { "java -jar",
      "java -Xmx16g -jar /opt/gatk/gatk.jar HaplotypeCaller\n",
      "gatk.jar" },
    { "Rscript without a launcher",
      "Rscript --vanilla analysis.R input.csv\n",
      "analysis.R" },
    { "srun hostname is a check, not the program",
      "srun hostname\n"
      "srun -N2 mkdir -p /tmp/$USER\n"
      "srun ./the_program\n",
      "the_program" },
    { "case statement picks the first launched branch",
      "case \"$MODE\" in\n"
      "  big|huge) srun -n 64 ./big ;;\n"
      "  *) srun -n 4 ./small ;;\n"
      "esac\n",
      "big" },
    { "if [[ ... && ... ]] guard",
      "if [[ -f restart.dat && -n \"$RESTART\" ]]; then\n"
      "    srun ./md --restart\n"
      "fi\n",
      "md" },
    { "function definition and call",
      "run() {\n"
      "    taskset -c 0-7 ./kernel \"$@\"\n"
      "}\n"
      "run 1\n",
      "kernel" },
    { "charmrun NAMD",
      "charmrun +p48 ++ppn 24 ++nodelist nodes.txt namd2 +setcpuaffinity "
      "apoa1.namd\n",
      "namd2" },
    { "aprun",
      "aprun -n 128 -N 32 -d 2 -cc depth ./cesm.exe\n",
      "cesm.exe" },
    { "ibrun task_affinity",
      "ibrun task_affinity ./mitgcmuv\n",
      "mitgcmuv" },
    { "timeout, nice, stdbuf, nohup around a program",
      "timeout -s INT 23h nice -n 10 stdbuf -oL nohup ./longrun &\n",
      "longrun" },
    { "likwid-pin and perf stat",
      "srun likwid-pin -c N:0-7 perf stat -e cycles -r 3 ./dgemm\n",
      "dgemm" },
    { "ddt --offline around srun",
      "ddt --offline -o report.html srun -n 8 ./buggy\n",
      "buggy" },
    { "valgrind with options",
      "valgrind --tool=memcheck --leak-check=full -v ./leaky\n",
      "leaky" },
    { "X=1 cmd runs cmd; X=1 alone runs nothing",
      "OMP_NUM_THREADS=8\n"
      "OMP_PROC_BIND=close ./omp_app\n",
      "omp_app" },
    { "pipeline without launcher: first stage",
      "./gen_input | ./consume > out\n",
      "gen_input" },
    { "sbatch of the next step is not the program",
      "./simulate\n"
      "tar czf out.tgz out/\n"
      "sbatch next_step.sh\n",
      "simulate" },
    { "options in a variable before ./app",
      "mpirun $MPI_FLAGS ./app_after_flags\n",
      "app_after_flags" },
    { "program looked up with `which`",
      "mpirun -np 4 `which lmp_serial` -in in.lj\n",
      "lmp_serial" },
    { "python reading its script from a heredoc",
      "python3 - <<EOF\n"
      "import os\n"
      "EOF\n",
      "python3" },
    { "two heredocs on one line, then the program",
      "cat <<A <<'B'\n"
      "srun decoyA\n"
      "A\n"
      "srun decoyB\n"
      "B\n"
      "./after_two\n",
      "after_two" },
    { "command on the heredoc's own line does run",
      "cat <<EOF; srun ./same_line\n"
      "srun decoy\n"
      "EOF\n",
      "same_line" },
    { "subshell and assignment from a command substitution",
      "NODES=$(srun hostname | sort -u)\n"
      "(cd sub && srun ./sub_app)\n",
      "sub_app" },
    { "arithmetic for loop",
      "for ((i = 0; i < 3; i++)); do\n"
      "    ./step $i\n"
      "done\n",
      "step" },
    { "redirections and exec > >(tee)",
      "exec > >(tee job.log) 2>&1\n"
      "./prog < input.dat >> out.txt 2> err.txt\n",
      "prog" },
    { "command -v check, then launch",
      "command -v srun >/dev/null && srun ./after_check\n",
      "after_check" },
    { "R CMD BATCH",
      "R CMD BATCH --no-save fit.R fit.Rout\n",
      "fit.R" },
    { "srun --pty bash launches no program",
      "srun --pty bash -i\n",
      NULL },
    { "empty script", "", NULL },
    { "blank and comment lines only", "\n   \n# nothing\n\t\n", NULL },
};

static void test_scripts (void)
{
    char out[256];
    size_t n = sizeof (scripts) / sizeof (scripts[0]);
    ok (n >= 25, "at least 25 script styles (%zu)", n);
    for (size_t i = 0; i < n; i++) {
        const struct script_case *c = &scripts[i];
        errno = 0;
        strcpy (out, "unset");
        int rc = ns_identity_script_exe (c->script, out, sizeof (out));
        if (c->exe)
            is_str (rc == 0 ? out : NULL, c->exe, "script: %s", c->what);
        else
            ok (rc == -1 && errno == ENOENT, "script: %s -> ENOENT",
                c->what);
    }
}

static void test_script_errors (void)
{
    char out[8];
    errno = 0;
    ok (ns_identity_script_exe (NULL, out, sizeof (out)) == -1
        && errno == EINVAL, "script_exe(script=NULL) fails with EINVAL");
    errno = 0;
    ok (ns_identity_script_exe ("srun ./a", NULL, 8) == -1
        && errno == EINVAL, "script_exe(out=NULL) fails with EINVAL");
    errno = 0;
    ok (ns_identity_script_exe ("srun ./lmp_mpi", out, 7) == -1
        && errno == ERANGE, "7 bytes cannot hold lmp_mpi: ERANGE");
    is_int (ns_identity_script_exe ("srun ./lmp_mpi", out, 8), 0,
            "8 bytes hold lmp_mpi");
    is_str (out, "lmp_mpi", "exact fit");
    errno = 0;
    ok (ns_identity_script_exe ("srun", out, sizeof (out)) == -1
        && errno == ENOENT, "a bare srun launches nothing: ENOENT");
    errno = 0;
    ok (ns_identity_script_exe ("cat <<EOF\n./a\n", out, sizeof (out)) == -1
        && errno == ENOENT, "unterminated heredoc is all data: ENOENT");
}

static void test_sources (void)
{
    is_str (ns_idsource_name (NS_ID_TAG), "tag", "name of NS_ID_TAG");
    is_str (ns_idsource_name (NS_ID_SCRIPT), "script",
            "name of NS_ID_SCRIPT");
    is_str (ns_idsource_name (NS_ID_NAME), "name", "name of NS_ID_NAME");
    is_str (ns_idsource_name (NS_ID_NONE), "none", "name of NS_ID_NONE");
    is_str (ns_idsource_name ((ns_idsource_t)42), "?", "name of 42");
    is_int (ns_idsource_parse ("tag"), NS_ID_TAG, "parse tag");
    is_int (ns_idsource_parse ("script"), NS_ID_SCRIPT, "parse script");
    is_int (ns_idsource_parse ("Name"), NS_ID_NAME, "parse Name");
    errno = 0;
    ok (ns_idsource_parse ("user") == -1 && errno == EINVAL,
        "parse user fails with EINVAL");
    is_int (ns_idsource_parse ("none"), -1, "none is not a source");
    is_int (ns_idsource_parse (NULL), -1, "parse NULL fails");
}

static void test_patterns (void)
{
    ns_identity_t *id = ns_identity_create ();
    ns_error_t err;
    ok (id != NULL, "create");
    is_int (ns_identity_npatterns (id), 0, "no patterns at first");
    is_str (ns_identity_map (id, "lmp_mpi"), "lmp_mpi",
            "unmapped name is itself");
    is_int (ns_identity_add_pattern (id, "lmp*", "LAM", &err), 0,
            "add lmp* -> LAM");
    is_int (ns_identity_add_pattern (id, "ls-dyna_*", "LSD", &err), 0,
            "add ls-dyna_* -> LSD");
    is_int (ns_identity_add_pattern (id, "*", "OTHER", &err), 0,
            "add * -> OTHER");
    is_int (ns_identity_npatterns (id), 3, "three patterns");
    is_str (ns_identity_map (id, "lmp_mpi"), "LAM", "lmp_mpi -> LAM");
    is_str (ns_identity_map (id, "lmp"), "LAM", "lmp -> LAM");
    is_str (ns_identity_map (id, "ls-dyna_mpp_s_R13"), "LSD",
            "ls-dyna_mpp_s_R13 -> LSD");
    is_str (ns_identity_map (id, "LMP"), "OTHER",
            "globs are case-sensitive: LMP -> OTHER (first match wins)");
    ok (ns_identity_map (id, NULL) == NULL, "map(NULL) is NULL");
    is_str (ns_identity_map (NULL, "lmp"), "lmp", "map without identity");
    errno = 0;
    ok (ns_identity_copy (NULL) == NULL && errno == EINVAL,
        "copy(NULL) fails with EINVAL");

    errno = 0;
    ok (ns_identity_add_pattern (id, "", "X", &err) == -1 && errno == EINVAL,
        "empty glob fails with EINVAL");
    is_str (err.text, "identity pattern: empty glob", "empty glob text");
    ok (ns_identity_add_pattern (id, "a*", "", &err) == -1
        && errno == EINVAL, "empty program fails with EINVAL");
    is_str (err.text, "identity pattern 'a*': empty program name",
            "empty program text");
    char longname[NS_PROGRAM_NAME_MAX + 1];
    memset (longname, 'P', NS_PROGRAM_NAME_MAX);
    longname[NS_PROGRAM_NAME_MAX] = '\0';
    ok (ns_identity_add_pattern (id, "a*", longname, &err) == -1
        && errno == EINVAL, "program of NS_PROGRAM_NAME_MAX chars: EINVAL");
    is_str (err.text, "identity pattern 'a*': program name longer than "
            "127 characters", "long program text");
    longname[NS_PROGRAM_NAME_MAX - 1] = '\0';
    is_int (ns_identity_add_pattern (id, "a*", longname, NULL), 0,
            "program of NS_PROGRAM_NAME_MAX - 1 chars accepted");
    is_int (ns_identity_npatterns (id), 4, "failed adds left no trace");

    /* Many patterns: the array grows and order is kept. */
    char glob[32], prog[32];
    int bad = 0;
    for (int i = 0; i < 100; i++) {
        snprintf (glob, sizeof (glob), "app%d_*", i);
        snprintf (prog, sizeof (prog), "APP%d", i);
        if (ns_identity_add_pattern (id, glob, prog, NULL) < 0)
            bad++;
    }
    is_int (bad, 0, "100 more patterns added");
    is_str (ns_identity_map (id, "app42_v2"), "OTHER",
            "earlier * still wins over a later app42_*");
    ns_identity_destroy (id);
    ns_identity_destroy (NULL);
    ok (1, "destroy(NULL) is harmless");
}

static void test_order (void)
{
    ns_identity_t *id = ns_identity_create ();
    ns_error_t err;
    ns_idsource_t two[] = { NS_ID_NAME, NS_ID_SCRIPT };
    ns_idsource_t dup[] = { NS_ID_SCRIPT, NS_ID_TAG, NS_ID_SCRIPT };
    ns_idsource_t bad[] = { NS_ID_TAG, NS_ID_NONE };
    char out[64];

    errno = 0;
    ok (ns_identity_set_order (id, two, 0, &err) == -1 && errno == EINVAL,
        "order of 0 sources fails with EINVAL");
    is_str (err.text, "identity order: 0 sources given, expected 1 to 3 "
            "of tag, script, name", "0 sources text");
    ok (ns_identity_set_order (id, dup, 4, &err) == -1 && errno == EINVAL,
        "order of 4 sources fails with EINVAL");
    ok (ns_identity_set_order (id, dup, 3, &err) == -1 && errno == EINVAL,
        "duplicate source fails with EINVAL");
    is_str (err.text, "identity order: 'script' listed twice",
            "duplicate text");
    ok (ns_identity_set_order (id, bad, 2, &err) == -1 && errno == EINVAL,
        "NS_ID_NONE in the order fails with EINVAL");
    is_str (err.text, "identity order: source 3 is not one of tag, "
            "script, name", "bad source text");
    ok (ns_identity_set_order (NULL, two, 2, &err) == -1 && errno == EINVAL,
        "set_order(id=NULL) fails with EINVAL");
    is_int (ns_identity_resolve (id, "T", "srun ./s", "n", out, sizeof (out)),
            NS_ID_TAG, "failed set_order kept the default order");

    is_int (ns_identity_set_order (id, two, 2, &err), 0, "order name, script");
    is_int (ns_identity_resolve (id, "T", "srun ./s", "jobname", out,
                                 sizeof (out)), NS_ID_NAME,
            "name first now");
    is_str (out, "jobname", "job name used");
    is_int (ns_identity_resolve (id, "T", "srun ./s", "", out, sizeof (out)),
            NS_ID_SCRIPT, "empty job name falls to the script");
    is_str (out, "s", "script exe used");
    errno = 0;
    is_int (ns_identity_resolve (id, "T", NULL, NULL, out, sizeof (out)),
            NS_ID_NONE, "tag is not in the order: nothing");
    is_str (out, "", "out is empty");
    is_int (errno, ENOENT, "errno ENOENT when nothing yields");

    ns_identity_t *c = ns_identity_copy (id);
    ok (c != NULL, "copy");
    is_int (ns_identity_add_pattern (c, "s", "SCRIPT", NULL), 0,
            "pattern added to the copy");
    is_int (ns_identity_resolve (c, NULL, "srun ./s", NULL, out,
                                 sizeof (out)), NS_ID_SCRIPT,
            "copy keeps the order");
    is_str (out, "SCRIPT", "copy maps through its pattern");
    is_int (ns_identity_npatterns (id), 0, "original has no pattern");
    ns_identity_destroy (c);
    ns_identity_destroy (id);
}

static void test_resolve (void)
{
    ns_identity_t *id = ns_identity_create ();
    char out[NS_PROGRAM_NAME_MAX];
    const char *lammps = "#!/bin/bash\nmodule load lammps\n"
                         "srun lmp_mpi -in in.lj\n";
    ns_identity_add_pattern (id, "lmp*", "LAM", NULL);
    ns_identity_add_pattern (id, "abaqus*", "ABQ", NULL);

    is_int (ns_identity_resolve (id, "ABQ", lammps, "myjob", out,
                                 sizeof (out)), NS_ID_TAG, "tag wins");
    is_str (out, "ABQ", "tag value");
    is_int (ns_identity_resolve (id, "lmp-custom", NULL, NULL, out,
                                 sizeof (out)), NS_ID_TAG,
            "tag alone");
    is_str (out, "LAM", "tag is mapped too");
    is_int (ns_identity_resolve (id, "", lammps, "myjob", out, sizeof (out)),
            NS_ID_SCRIPT, "empty tag: script");
    is_str (out, "LAM", "script exe lmp_mpi mapped to LAM");
    is_int (ns_identity_resolve (id, NULL, "module load x\n", "abaqus_run",
                                 out, sizeof (out)), NS_ID_NAME,
            "script runs nothing: job name");
    is_str (out, "ABQ", "job name mapped to ABQ");
    is_int (ns_identity_resolve (id, NULL, NULL, "plain", out, sizeof (out)),
            NS_ID_NAME, "job name alone");
    is_str (out, "plain", "unmapped job name");
    errno = 0;
    strcpy (out, "junk");
    is_int (ns_identity_resolve (id, NULL, "", "", out, sizeof (out)),
            NS_ID_NONE, "nothing at all");
    is_str (out, "", "out emptied");
    is_int (errno, ENOENT, "errno ENOENT");

    char tiny[4];
    errno = 0;
    is_int (ns_identity_resolve (id, "toolong", NULL, "abc", tiny,
                                 sizeof (tiny)), NS_ID_NAME,
            "a tag too long for out is skipped for the next source");
    is_str (tiny, "abc", "job name fits");
    errno = 0;
    is_int (ns_identity_resolve (id, "toolong", NULL, NULL, tiny,
                                 sizeof (tiny)), NS_ID_NONE,
            "nothing fits");
    is_int (errno, ERANGE, "errno ERANGE when a name did not fit");
    errno = 0;
    is_int (ns_identity_resolve (NULL, "a", NULL, NULL, out, sizeof (out)),
            NS_ID_NONE, "resolve(id=NULL) yields nothing");
    is_int (errno, EINVAL, "errno EINVAL");
    ns_identity_destroy (id);
}

int main (void)
{
    plan_no_plan ();
    test_scripts ();
    test_script_errors ();
    test_sources ();
    test_patterns ();
    test_order ();
    test_resolve ();
    return done_testing ();
}
