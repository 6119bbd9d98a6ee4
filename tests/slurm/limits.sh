#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slurm/limits.sh - slurmctld's limits and memory: never worse than
# stock cons_tres (TAP)
#
# The same job streams on a 4-node loopback cluster (24 cores, 64000 MB,
# SelectTypeParameters=CR_Core_Memory, DefMemPerCPU=100) under stock
# select/cons_tres and under select/cons_tres_nodeshare (policy twins,
# the study's figures).  Each row records, after a bounded poll, which jobs
# run; a point per job that runs under stock: it runs under nodeshare too.
# Rows:
#   mem       four 24-task LAM/ABQ jobs with --mem=60000: a stripe holds
#             30000 MB on each of its nodes (the job's memory on its
#             minimal width, split), so all four run
#   busymem   two 1-task jobs hold 62000 MB of ns1 and ns2, then two
#             24-task jobs with --mem-per-cpu=500: both run, striped over
#             ns3,ns4 (the model knows ns1 and ns2 have 23 free cores but
#             2000 MB, less than 12 x 500)
#   maxnodes  partition MaxNodes=1, two 24-task jobs: both run on 1 node
#   maxcpus   partition MaxCPUsPerNode=8, a 24-task job: runs (stock: 8
#             on each of 3 nodes; nodeshare: striped, 6 on each of 4)
#   mincpus   --mincpus=24 -n 24: holds 24 CPUs, as asked
# Skips like tests/slurm/select.sh.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
. "$top_srcdir/tests/slurm/lib.sh"

ns_cluster_can_run >/dev/null || tap_skip_all "$(ns_cluster_can_run)"
ns_plugin_scenario limits lmp_serial abq_std

NS_REALMEMORY=64000
NS_SELECTTYPEPARAMS=CR_Core_Memory
NS_SLURM_CONF_EXTRA="SchedulerParameters=batch_sched_delay=0,bf_interval=1
DefMemPerCPU=100"
export NS_REALMEMORY NS_SELECTTYPEPARAMS NS_SLURM_CONF_EXTRA

sub () {   # PROG [SBATCH ARGS]: a 10-minute job running PROG
    local prog
    prog=$1; shift
    ns_sbatch -D "$NS_CLUSTER_DIR/work" -o /dev/null -t 10 "$@" \
        --wrap "exec $scratch/bin/$prog 600"
}

# state JOBID...: "STATE:NODES:CPUS:MEM" per job (MEM: the mem of its
# allocated TRES, the memory the job holds in all)
state () {
    local j m
    for j in "$@"; do
        # AllocTRES from 23.02, TRES before
        m=$(ns_job_field "$j" AllocTRES || ns_job_field "$j" TRES)
        m=$(echo "$m" | tr ',' '\n' | sed -n 's/^mem=//p')
        printf '%s:%s:%s:%s ' "$(ns_job_field "$j" JobState)" \
            "$(ns_job_field "$j" NumNodes)" "$(ns_job_field "$j" NumCPUs)" \
            "${m:-none}"
    done
}

partition () {   # KEY=VALUE...
    scontrol update PartitionName=debug "$@"
}

# The rows: each prints its jobs' states and leaves the cluster clean.
row_mem () {
    local a b c d
    a=$(sub lmp_serial -n 24 --mem=60000)
    b=$(sub abq_std -n 24 --mem=60000)
    c=$(sub abq_std -n 24 --mem=60000)
    d=$(sub lmp_serial -n 24 --mem=60000)
    ns_wait_running 15 $a $b $c $d
    state $a $b $c $d
}

row_busymem () {
    local x y a b
    x=$(sub lmp_serial -n 1 -w ns1 --mem=62000)
    y=$(sub lmp_serial -n 1 -w ns2 --mem=62000)
    ns_wait_running 15 $x $y
    a=$(sub lmp_serial -n 24 --mem-per-cpu=500)
    b=$(sub abq_std -n 24 --mem-per-cpu=500)
    ns_wait_running 15 $a $b
    state $a $b
    echo "$a $b" >"$scratch/busymem.ids.$side"
}

row_maxnodes () {
    local a b
    partition MaxNodes=1
    a=$(sub lmp_serial -n 24)
    b=$(sub abq_std -n 24)
    ns_wait_running 15 $a $b
    state $a $b
}

row_maxcpus () {
    local a
    partition MaxCPUsPerNode=8
    a=$(sub lmp_serial -n 24)
    ns_wait_running 15 $a
    state $a
}

row_mincpus () {
    local a
    a=$(sub lmp_serial -n 24 --mincpus=24)
    ns_wait_running 15 $a
    state $a
}

clean () {
    scancel --user=root >/dev/null 2>&1
    ns_wait_all_idle 30 >/dev/null
    partition MaxNodes=UNLIMITED MaxCPUsPerNode=UNLIMITED
}

ROWS="mem busymem maxnodes maxcpus mincpus"

run_side () {   # SIDE: stock or nodeshare; writes $scratch/SIDE.ROW
    local side r
    side=$1
    NS_CLUSTER_DIR=$scratch/$side
    export NS_CLUSTER_DIR
    mkdir -p "$NS_CLUSTER_DIR"
    if [ "$side" = nodeshare ]; then
        NS_PLUGINDIR=$scratch/plugins
        NS_SELECTTYPE=select/cons_tres_nodeshare
        ns_twins_config tests/slurm/limits.sh >"$NS_CLUSTER_DIR/nodeshare.json"
    else
        unset NS_PLUGINDIR
        NS_SELECTTYPE=select/cons_tres
    fi
    export NS_SELECTTYPE
    [ -n "${NS_PLUGINDIR:-}" ] && export NS_PLUGINDIR
    ns_cluster_start 4 24
    tap_ok $? "[$side] cluster of 4 x 24 cores, 64000 MB, CR_Core_Memory starts" ||
        return 1
    for r in $ROWS; do
        "row_$r" >"$scratch/$side.$r"
        clean
    done
    ns_cluster_stop
}

run_side stock || tap_done
run_side nodeshare || tap_done

for r in $ROWS; do
    s=$(cat "$scratch/stock.$r")
    n=$(cat "$scratch/nodeshare.$r")
    i=0
    for x in $s; do
        i=$((i + 1))
        y=$(echo "$n" | tr ' ' '\n' | sed -n "${i}p")
        case $x in
            RUNNING:*)
                case $y in RUNNING:*) ok=0 ;; *) ok=1 ;; esac
                tap_ok $ok "$r: job $i runs under stock ($x) and under nodeshare ($y)" ;;
            *)
                tap_ok 0 "$r: job $i waits under stock ($x); nodeshare: $y" ;;
        esac
    done
done
# What each row is about, beyond "runs".
tap_like "$(cat "$scratch/nodeshare.mincpus")" '^RUNNING:[0-9]+:24:' \
    "mincpus: --mincpus=24 -n 24 holds 24 CPUs under nodeshare"
# From 26.05 a job without -N has max_nodes = its task count, which a
# partition's MaxNodes=1 refuses: stock leaves both jobs pending, and so
# must nodeshare (the comparison above); up to 25.11 both run on 1 node.
if grep -q '^RUNNING' "$scratch/stock.maxnodes"; then
    tap_like "$(cat "$scratch/nodeshare.maxnodes")" '^RUNNING:1:24:[^ ]* RUNNING:1:24:[^ ]* $' \
        "maxnodes: MaxNodes=1 keeps both jobs on 1 node"
else
    tap_is "$(cat "$scratch/nodeshare.maxnodes")" "$(cat "$scratch/stock.maxnodes")" \
        "maxnodes: MaxNodes=1: both jobs wait under stock, and in the same state under nodeshare"
fi
tap_like "$(cat "$scratch/nodeshare.mem")" '^(RUNNING:2:24:(60000M|58.59G) ){4}$' \
    "mem: four striped --mem=60000 jobs hold 60000 MB each in all (30000 per node)"
tap_like "$(cat "$scratch/nodeshare.maxcpus")" '^RUNNING:4:24:[^ ]* $' \
    "maxcpus: striped within MaxCPUsPerNode=8 (6 on each of 4 nodes)"
log=$scratch/nodeshare/slurmctld.log
set -- $(cat "$scratch/busymem.ids.nodeshare")
seen=$(grep -E "nodeshare: job ($1|$2) " "$log" | sed 's/.*\] //')
n=$(printf '%s\n' "$seen" | grep -cE 'by stripe-(empty|share).* -> ns\[3-4\]$')
tap_is "$n" 2 "busymem: both stripes on ns3,ns4, the nodes with memory: $(printf '%s\n' "$seen" | tr '\n' ';')"
grep -Eq 'error: nodeshare' "$log"
tap_ok $((! $?)) "log: no nodeshare error"
tap_done
