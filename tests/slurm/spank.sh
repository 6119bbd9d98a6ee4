#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slurm/spank.sh - the SPANK plugin nodeshare.so in a real Slurm
# cluster (TAP)
#
# Part 1: one node declared as this machine (2 cores).  srun ranks read
# back their Cpus_allowed_list and NODESHARE_CPUS; both must be what
# nodeshare-tree --topology live says for the same placements.  Options
# through srun and sbatch, malformed options refused at submission,
# --nodeshare-program reaching the job's SPANK environment (read back by
# a Prolog), and the plugin's own trouble (missing topology, bad plugin
# argument, full ledger) logged without failing the job.
#
# Part 2: one node declared with 24 cores (Sockets=2 CoresPerSocket=12)
# on this smaller machine, the plugin in dry-run mode with a synthetic
# topology of 4 L3 domains of 6 cores.  Two jobs on the node are steered
# to different L3 domains through the ledger; a third one, after they
# end, finds their records gone; memory per CPU gives the footprint when
# nothing else does.
#
# Part 3: this machine again, with task/affinity binding every step
# (TaskPluginParam=Cores as the site's default).  A step whose user asked
# Slurm for a binding (--cpu-bind=cores, map_cpu, none; --gpu-bind) keeps
# exactly what Slurm gives without the plugin; a step without one is
# pinned by the plugin as before, the site's default notwithstanding; srun
# -v and slurmd's log say why a step was left alone.
#
# Skips when not root, when Slurm or munge are missing, or when the plugin
# was not built or was built with sanitizers (Slurm cannot load it).

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$(pwd)}
. "$top_srcdir/tests/slurm/lib.sh"

so=$top_builddir/spank/.libs/nodeshare.so
tree=$top_builddir/nodeshare-tree

ns_cluster_can_run >/dev/null || tap_skip_all "$(ns_cluster_can_run)"
[ -f "$so" ] || tap_skip_all "spank/nodeshare.so not built (slurm/spank.h missing)"
if grep -q __asan_init "$so" 2>/dev/null; then
    tap_skip_all "nodeshare.so built with sanitizers: Slurm cannot load it"
fi

P=$(mktemp -d /tmp/nsspank.XXXXXX) || exit 1
chmod 755 "$P"
finish () {
    ns_cluster_stop
    if [ "$_ns_tap_failed" -gt 0 ]; then
        echo "# plugin files kept in $P"
    else
        rm -rf "$P"
    fi
}
trap 'finish' EXIT
trap 'exit 1' INT TERM HUP

# The dry-run nodes: 2 packages x 2 L3 (16 MiB) x 6 cores, so L3 #0 is
# cores 0-5, #1 6-11, #2 12-17, #3 18-23.
TOPO24='pack:2 l3:2(size=16MiB) l2:6(size=1MiB) l1d:1(size=32KiB) core:1 pu:1'
TOPO24_ARG=$(printf '%s' "$TOPO24" | tr ' ' ',')

# Placements as "LEVEL #CACHE, core C, cpus LIST" lines, in task order.
report_places () {   # REPORT
    sed -n 's/.* level=\([^ ]*\) cache=\([^ ]*\) core=\([^ ]*\) cpus=\([^ ]*\) .*/\1 #\2, core \3, cpus \4/p' "$1" |
        sed 's/^machine #[0-9]*/machine/'
}
# What nodeshare-tree says for the report's cores, footprints and origins.
tree_places () {   # TOPOLOGY REPORT
    local alloc args
    alloc=$(sed -n '1s/.* alloc=\([^ ]*\) .*/\1/p' "$2")
    args=$(sed -n 's/.* footprint=\([0-9]*\) source=[^ ]* origin=\([0-9]*\) .*/\1@\2/p' "$2")
    # shellcheck disable=SC2086
    "$tree" -t "$1" -c "$alloc" $args | sed -n 's/^task [0-9]*: [^ ]* -> //p'
}
field () {   # REPORT FIELD: values of FIELD, one per task, space separated
    sed -n "s/.* $2=\\([^ ]*\\).*/\\1/p" "$1" | tr '\n' ' ' | sed 's/ $//'
}
wait_file () {   # FILE [TIMEOUT_S=30]
    local t
    t=0
    while [ "$t" -lt $((${2:-30} * 10)) ]; do
        [ -s "$1" ] && return 0
        sleep 0.1
        t=$((t + 1))
    done
    return 1
}
slurmd_log () {
    cat "$(ns_cluster_log_slurmd ns1)"
}
# What a rank prints: rank, job, its affinity, what the plugin exported.
cat >"$P/rank.sh" <<'EOF'
echo "$SLURM_PROCID $SLURM_JOB_ID $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status) ${NODESHARE_CPUS:-unset} ${NODESHARE_ANCHOR:-unset}"
EOF
RANK="sh $P/rank.sh"
all_cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)

##
# Part 1: a node that is this machine
##
cat >"$P/prolog.sh" <<EOF
#!/bin/sh
env | grep '^SPANK_' >"$P/prolog.\$SLURM_JOB_ID"
exit 0
EOF
chmod 755 "$P/prolog.sh"
PLUG1="required $so ledger=$P/ledger-%n topocache=$P/topo-%n.xml report=$P/report"
NS_PLUGSTACK=$PLUG1 NS_SLURM_CONF_EXTRA="Prolog=$P/prolog.sh" \
    ns_cluster_start 1 2
tap_ok $? "cluster of 1 node x 2 cores (this machine) with nodeshare.so" ||
    tap_done
work=$NS_CLUSTER_DIR/work
cd "$work" || exit 1

# Ranks with no footprint: each fits an L1, so each is pinned to a core.
out=$(srun -n 2 --nodeshare-bind=verbose $RANK 2>"$P/err" | sort)
tap_is "$(printf '%s\n' "$out" | wc -l)" 2 "srun -n 2 --nodeshare-bind=verbose runs 2 ranks"
job=$(printf '%s\n' "$out" | awk 'NR == 1 { print $2 }')
rep=$P/report/$job.0.ns1
tap_is "$(field "$rep" source) / $(field "$rep" alloc)" "none none / 0-1 0-1" \
    "report: no footprint given, cores 0-1 allocated"
tap_is "$(report_places "$rep")" "$(tree_places live "$rep")" \
    "the plan is what nodeshare-tree --topology live says"
tap_is "$(printf '%s\n' "$out" | awk '{ print $3 }' | tr '\n' ' ')" \
    "$(field "$rep" cpus) " "each rank's Cpus_allowed_list is its planned cpus"
tap_is "$(printf '%s\n' "$out" | awk '{ print $4 }' | tr '\n' ' ')" \
    "$(field "$rep" cpus) " "NODESHARE_CPUS says the same"
tap_is "$(printf '%s\n' "$out" | awk '{ print $5, $6 }' | tr '\n' ' ')" \
    "L1 #0 L1 #1 " "NODESHARE_ANCHOR names each rank's L1"
tap_is "$(grep -c '^nodeshare-bind=verbose - ns1, task [01] rank [01] \[[0-9]*\]: 0 from core [01] -> L1 #[01], cpus [01] set$' "$P/err")" \
    2 "verbose: one line per rank on stderr, like --cpu-bind=verbose"

# A footprint too big for L2 (1 MiB): both ranks share the L3 and its CPUs.
out=$(srun -n 2 --nodeshare-footprint=4M $RANK | sort)
job=$(printf '%s\n' "$out" | awk 'NR == 1 { print $2 }')
rep=$P/report/$job.0.ns1
tap_is "$(field "$rep" footprint) $(field "$rep" level)" \
    "4194304 4194304 L3 L3" "--nodeshare-footprint=4M: both ranks at the L3"
tap_is "$(report_places "$rep")" "$(tree_places live "$rep")" \
    "the plan is what nodeshare-tree says for 4M@0 4M@1"
tap_is "$(printf '%s\n' "$out" | awk '{ print $3 "/" $4 }' | tr '\n' ' ')" \
    "$(field "$rep" cpus | sed 's/\([^ ]*\)/\1\/\1/g') " \
    "Cpus_allowed_list and NODESHARE_CPUS are the L3's cpus"

out=$(srun -n 2 --nodeshare-bind=none $RANK | sort)
tap_is "$(printf '%s\n' "$out" | awk '{ print $3, $4 }' | tr '\n' ' ')" \
    "$all_cpus unset $all_cpus unset " \
    "--nodeshare-bind=none: ranks left alone, nothing exported"

# An sbatch option reaches the steps of the job.
id=$(ns_sbatch -o "$P/sbatch.out" --nodeshare-footprint=3M -n 2 \
     --wrap "srun $RANK")
ns_wait_job_state "$id" COMPLETED 30
tap_ok $? "sbatch --nodeshare-footprint=3M --wrap 'srun ...' completes"
tap_is "$(field "$P/report/$id.0.ns1" footprint) $(field "$P/report/$id.0.ns1" source)" \
    "3145728 3145728 --nodeshare-footprint --nodeshare-footprint" \
    "the batch job's srun step got the footprint"

# Malformed options are refused at submission, with the reason.
before=$(squeue -h -o %i | wc -l)
err=$(sbatch --nodeshare-footprint=12Q --wrap true 2>&1)
tap_ok $(( $? == 0 )) "sbatch --nodeshare-footprint=12Q is refused"
tap_like "$err" "nodeshare: --nodeshare-footprint=12Q: expected the working set of one rank in bytes" \
    "with a message saying what a footprint is"
err=$(srun --nodeshare-bind=sometimes true 2>&1)
tap_ok $(( $? == 0 )) "srun --nodeshare-bind=sometimes is refused"
tap_like "$err" "--nodeshare-bind=sometimes: expected auto, none or verbose" \
    "with the accepted values"
err=$(salloc --nodeshare-program='a b' true 2>&1)
tap_ok $(( $? == 0 )) "salloc --nodeshare-program='a b' is refused"
tap_like "$err" "expected a program name of 1 to 127 characters" \
    "with the accepted characters"
tap_is "$(squeue -h -o %i | wc -l)" "$before" "no job was created"

# --nodeshare-program reaches the job's SPANK environment (slurmctld's
# spank_job_env, which the Prolog sees and the select plugin reads).
id=$(ns_sbatch -o /dev/null --nodeshare-program=LAM-2.0 --wrap 'srun true')
ns_wait_job_state "$id" COMPLETED 30
tap_ok $? "sbatch --nodeshare-program=LAM-2.0 completes"
tap_is "$(grep '^SPANK_NODESHARE_PROGRAM=' "$P/prolog.$id" 2>/dev/null)" \
    "SPANK_NODESHARE_PROGRAM=LAM-2.0" \
    "the job's SPANK environment holds SPANK_NODESHARE_PROGRAM=LAM-2.0"

# The plugin's own trouble never fails a job.  plugstack.conf is read at
# every step, so changing it needs no restart.
plugstack=$NS_CLUSTER_DIR/plugstack.conf
echo "$PLUG1 topology=$P/missing.xml" >"$plugstack"
out=$(srun -n 2 --nodeshare-footprint=4M $RANK | sort)
tap_is "$(printf '%s\n' "$out" | wc -l)" 2 "with topology=$P/missing.xml a job still runs"
job=$(printf '%s\n' "$out" | awk 'NR == 1 { print $2 }')
tap_is "$(printf '%s\n' "$out" | awk '{ print $3, $4 }' | tr '\n' ' ')" \
    "$all_cpus unset $all_cpus unset " "unpinned"
tap_like "$(slurmd_log | grep "job $job step 0")" \
    "error: nodeshare: job $job step 0 on ns1: topology $P/missing.xml: cannot open: No such file or directory; ranks are not pinned" \
    "and the slurmd log says why"

echo "$PLUG1 mode=fast" >"$plugstack"
out=$(srun -n 2 $RANK | sort)
tap_is "$(printf '%s\n' "$out" | wc -l)" 2 "with a bad plugin argument (mode=fast) a job still runs"
tap_like "$(slurmd_log)" "error: nodeshare: bad plugin argument 'mode=fast' in plugstack.conf" \
    "and the slurmd log names the argument"

echo "$PLUG1 ledger=$P/small-%n capacity=1" >"$plugstack"
out=$(srun -n 2 --nodeshare-footprint=4M $RANK | sort)
tap_is "$(printf '%s\n' "$out" | wc -l)" 2 "with a full ledger (capacity=1, two ranks to record) a job still runs"
job=$(printf '%s\n' "$out" | awk 'NR == 1 { print $2 }')
tap_is "$(printf '%s\n' "$out" | awk '{ print $4 }' | tr '\n' ' ')" \
    "unset unset " "unpinned"
tap_like "$(slurmd_log | grep "job $job step 0")" \
    "the node's ledger is full \(1 records\); ranks are not pinned" \
    "and the slurmd log says the ledger is full"

# What a step costs with and without the plugin (informational).
time_sruns () {
    local t0 t1 i
    t0=$(date +%s%N)
    i=0
    while [ "$i" -lt 5 ]; do
        srun -n 2 true
        i=$((i + 1))
    done
    t1=$(date +%s%N)
    echo $(( (t1 - t0) / 5000000 ))
}
echo "$PLUG1 footprint=2M" >"$plugstack"
with=$(time_sruns)
echo "" >"$plugstack"
without=$(time_sruns)
tap_diag "srun -n 2 true: $with ms with nodeshare.so, $without ms without (mean of 5)"
ns_cluster_stop

##
# Part 2: 24-core nodes on this machine, dry run with a synthetic topology
##
PLUG2="required $so dryrun=1 topology=$TOPO24_ARG ledger=$P/ledger24-%n report=$P/report24"
NS_PLUGSTACK=$PLUG2 NS_SELECTTYPEPARAMS=CR_Core_Memory \
    NS_SLURM_CONF_EXTRA="DefMemPerCPU=100" ns_cluster_start 1 24
tap_ok $? "cluster of 1 node x 24 cores, plugin in dry-run mode" || tap_done
work=$NS_CLUSTER_DIR/work
cd "$work" || exit 1

# Each rank of jobs A and B: 4 MiB, too big for L2 (1 MiB); 4 ranks fill
# an L3 (16 MiB).  -m block:block keeps each job's cores together.
STEP="srun -m block:block sh -c 'grep Cpus_allowed_list /proc/self/status; sleep 120'"
a=$(ns_sbatch -n 4 -m block:block --nodeshare-footprint=4M -o "$P/a.out" \
    --wrap "$STEP")
ns_wait_job_state "$a" RUNNING 30
wait_file "$P/report24/$a.0.ns1"
tap_ok $? "job A ($a, 4 ranks of 4M) reports its plan"
ra=$P/report24/$a.0.ns1
tap_is "$(field "$ra" alloc | cut -d' ' -f1) $(field "$ra" mode | cut -d' ' -f1)" \
    "0-3 dryrun" "job A has cores 0-3"
tap_is "$(report_places "$ra")" "$(tree_places "$TOPO24" "$ra")" \
    "job A's plan is what nodeshare-tree says (nothing else on the node)"
tap_is "$(field "$ra" level) / $(field "$ra" cache)" "L3 L3 L3 L3 / 0 0 0 0" \
    "job A fills L3 #0"

b=$(ns_sbatch -n 4 -m block:block --nodeshare-footprint=4M -o "$P/b.out" \
    --wrap "$STEP")
ns_wait_job_state "$b" RUNNING 30
wait_file "$P/report24/$b.0.ns1"
tap_ok $? "job B ($b, the same) reports its plan"
rb=$P/report24/$b.0.ns1
tap_is "$(field "$rb" alloc | cut -d' ' -f1) $(field "$rb" others | cut -d' ' -f1)" \
    "4-7 4" "job B has cores 4-7 (L3 #0: 4-5, L3 #1: 6-7) and sees job A's 4 records"
tap_is "$(field "$rb" level) / $(field "$rb" cache) / $(field "$rb" cpus)" \
    "L3 L3 L3 L3 / 1 1 1 1 / 6-7 6-7 6-7 6-7" \
    "the ledger steers all of job B to L3 #1 (cpus 6-7)"
alone=$(tree_places "$TOPO24" "$rb")
tap_like "$alone" "^L3 #0, core 4, cpus 4-5" \
    "alone on the node, job B's rank 0 would have shared job A's L3 #0"
common=""
for c in $(field "$rb" cache); do
    case " $(field "$ra" cache) " in *" $c "*) common="$common $c" ;; esac
done
tap_is "$common" "" "jobs A and B share no L3 domain"

wait_file "$P/a.out" 10
tap_is "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$P/a.out" | sort -u)" \
    "$all_cpus" "dry run: the ranks are not bound"

scancel "$a" "$b"
ns_wait_job_state "$a" CANCELLED 30 && ns_wait_job_state "$b" CANCELLED 30
tap_ok $? "jobs A and B are cancelled"
c=$(ns_sbatch -n 4 -m block:block --nodeshare-footprint=4M -o /dev/null \
    --wrap "srun -m block:block true")
ns_wait_job_state "$c" COMPLETED 30
rc=$P/report24/$c.0.ns1
tap_is "$(field "$rc" alloc | cut -d' ' -f1) $(field "$rc" others | cut -d' ' -f1)" \
    "0-3 0" "job C gets cores 0-3 and finds no records: A's and B's are gone"
tap_is "$(report_places "$rc")" "$(tree_places "$TOPO24" "$rc")" \
    "job C's plan is what nodeshare-tree says for an empty node"

# A rank that ends frees its cache at once, before its step ends.
d=$(ns_sbatch -n 2 -m block:block --nodeshare-footprint=4M -o /dev/null \
    --wrap "srun -m block:block sh -c '[ \$SLURM_PROCID = 0 ] || sleep 120'")
ns_wait_job_state "$d" RUNNING 30
wait_file "$P/report24/$d.0.ns1"
# Its rank 0 exits at once; poll (one short probe job a second, at most
# 15) until a new step sees one record, and say what each probe saw.
seen=
for try in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
    e=$(ns_sbatch -n 1 --nodeshare-footprint=4M -o /dev/null --wrap "srun true")
    ns_wait_job_state "$e" COMPLETED 30
    o=$(field "$P/report24/$e.0.ns1" others)
    seen="$seen ${o:-none}"
    [ "$o" = 1 ] && break
    sleep 1
done
tap_is "$o" 1 \
    "a step started after rank 0 of job D exited sees rank 1's record only (probes saw:$seen)"
scancel "$d"
ns_wait_job_state "$d" CANCELLED 30

# No footprint given: the step's memory per CPU (CR_Core_Memory).
id=$(ns_sbatch -n 2 -m block:block --mem-per-cpu=2 -o /dev/null \
     --wrap "srun -m block:block true")
ns_wait_job_state "$id" COMPLETED 30
rm_=$P/report24/$id.0.ns1
tap_is "$(field "$rm_" footprint) / $(field "$rm_" source) / $(field "$rm_" level)" \
    "2097152 2097152 / mem-per-cpu mem-per-cpu / L3 L3" \
    "--mem-per-cpu=2 (MB) and no footprint: 2M per rank, at the L3"
id=$(ns_sbatch -n 2 -m block:block --mem-per-cpu=1 -o /dev/null \
     --wrap "srun -m block:block true")
ns_wait_job_state "$id" COMPLETED 30
tap_is "$(field "$P/report24/$id.0.ns1" level)" "L2 L2" \
    "--mem-per-cpu=1: 1M per rank fits each rank's own L2"

ns_cluster_stop

##
# Part 3: the user's own --cpu-bind / --gpu-bind, with task/affinity
##
PLUG3="required $so ledger=$P/ledger3-%n topocache=$P/topo3-%n.xml report=$P/report3"
NS_TASKPLUGIN=task/affinity NS_SLURM_CONF_EXTRA="TaskPluginParam=Cores" \
    ns_cluster_start 1 2
tap_ok $? "cluster of 1 node x 2 cores, task/affinity, TaskPluginParam=Cores, no plugin yet" ||
    tap_done
work=$NS_CLUSTER_DIR/work
cd "$work" || exit 1
plugstack=$NS_CLUSTER_DIR/plugstack.conf
cpus_of () {   # SRUN_OUTPUT: each rank's Cpus_allowed_list, in rank order
    printf '%s\n' "$1" | awk '{ print $3 }' | tr '\n' ' ' | sed 's/ $//'
}
exported () {   # SRUN_OUTPUT: each rank's NODESHARE_CPUS
    printf '%s\n' "$1" | awk '{ print $4 }' | tr '\n' ' ' | sed 's/ $//'
}
first_job () {   # SRUN_OUTPUT
    printf '%s\n' "$1" | awk 'NR == 1 { print $2 }'
}

# What Slurm alone gives (plugstack.conf is read at every step).
ref_cores=$(cpus_of "$(srun -n 2 --cpu-bind=cores $RANK | sort)")
ref_default=$(cpus_of "$(srun -n 2 $RANK | sort)")
ref_map=$(cpus_of "$(srun -n 2 --cpu-bind=map_cpu:1,0 $RANK | sort)")
tap_is "$ref_map" "1 0" \
    "without the plugin, --cpu-bind=map_cpu:1,0 puts rank 0 on CPU 1, rank 1 on CPU 0"
[ "${ref_cores% *}" != "${ref_cores#* }" ] && [ "${ref_cores% *}" != "$all_cpus" ]
tap_ok $? "without the plugin, --cpu-bind=cores binds each rank to its own core ($ref_cores)"
tap_is "$ref_default" "$ref_cores" \
    "without the plugin or --cpu-bind, the site's default binds the same way"

echo "$PLUG3" >"$plugstack"
# Nothing asked of Slurm: pinned as before, over the site's default.
out=$(srun -v -n 2 --nodeshare-footprint=4M $RANK 2>"$P/err3" | sort)
rep=$P/report3/$(first_job "$out").0.ns1
tap_is "$(field "$rep" level)" "L3 L3" \
    "no --cpu-bind, 4M per rank: the plugin plans both ranks at the L3"
tap_is "$(cpus_of "$out") / $(exported "$out")" \
    "$(field "$rep" cpus) / $(field "$rep" cpus)" \
    "and binds them there, not where the site's default put them ($ref_default)"
tap_like "$(cat "$P/err3")" "CpuBindType=cores" \
    "srun -v shows the site's default binding in the launch request"
tap_is "$(grep -c 'nodeshare:.*left to' "$P/err3")" 0 \
    "and the plugin does not take it for the user's choice"

out=$(srun -n 2 --cpu-bind=verbose $RANK 2>/dev/null | sort)
rep=$P/report3/$(first_job "$out").0.ns1
tap_is "$(cpus_of "$out") / $(exported "$out")" \
    "$(field "$rep" cpus) / $(field "$rep" cpus)" \
    "--cpu-bind=verbose alone asks for no binding: pinned as before"

# --cpu-bind=cores: what Slurm gives without the plugin, nothing exported.
out=$(srun -v -n 2 --nodeshare-footprint=4M --nodeshare-bind=verbose \
      --cpu-bind=cores $RANK 2>"$P/err3" | sort)
job=$(first_job "$out")
tap_is "$(cpus_of "$out") / $(exported "$out")" "$ref_cores / unset unset" \
    "--cpu-bind=cores with 4M per rank: Slurm's binding ($ref_cores) is kept"
[ ! -e "$P/report3/$job.0.ns1" ]
tap_ok $? "the plugin planned nothing for that step (no report)"
tap_like "$(cat "$P/err3")" \
    "^srun: nodeshare: rank pinning left to --cpu-bind=cores: the user asked for it$" \
    "srun -v says the pinning is left to --cpu-bind=cores"
tap_is "$(grep -c '^nodeshare-bind=verbose - ns1, task [01] rank [01] \[[0-9]*\]: left to --cpu-bind=cores (the user asked for it)$' "$P/err3")" \
    2 "--nodeshare-bind=verbose: one line per rank says the same"
tap_like "$(slurmd_log | grep "job $job step 0")" \
    "nodeshare: job $job step 0 on ns1: rank pinning left to --cpu-bind=cores: the user asked for it" \
    "and so does slurmd's log"

out=$(srun -n 2 --cpu-bind=map_cpu:1,0 $RANK | sort)
job=$(first_job "$out")
tap_is "$(cpus_of "$out") / $(exported "$out")" "$ref_map / unset unset" \
    "--cpu-bind=map_cpu:1,0: rank 0 stays on CPU 1, rank 1 on CPU 0"
tap_like "$(slurmd_log | grep "job $job step 0")" \
    "rank pinning left to --cpu-bind=map_cpu:1,0: the user" \
    "the log names the map"

out=$(srun -n 2 --cpu-bind=none $RANK | sort)
tap_is "$(cpus_of "$out") / $(exported "$out")" \
    "$all_cpus $all_cpus / unset unset" \
    "--cpu-bind=none: the ranks are not pinned"

# srun takes --gpu-bind from SLURM_GPU_BIND too; no GPU is needed to ask.
out=$(SLURM_GPU_BIND=closest srun -n 2 --nodeshare-footprint=4M $RANK | sort)
job=$(first_job "$out")
tap_is "$(cpus_of "$out") / $(exported "$out")" "$ref_default / unset unset" \
    "--gpu-bind=closest (SLURM_GPU_BIND), 4M per rank: Slurm's binding is kept"
tap_like "$(slurmd_log | grep "job $job step 0")" \
    "rank pinning left to --gpu-bind=closest: the user asked for it" \
    "and the log says it is left to --gpu-bind=closest"

tap_done
