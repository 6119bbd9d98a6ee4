#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/bench_sched.sh - what select/cons_tres_nodeshare costs slurmctld
#
# Usage: bench_sched.sh BUILDDIR
#
# The same workload twice on a private cluster of 16 nodes x 24 cores
# (tests/slurm/lib.sh): once with the stock select/cons_tres, once with
# select/cons_tres_nodeshare.  16 running jobs fill the cluster (two
# programs, alternating), 500 more are queued; slurmctld's statistics are
# reset (sdiag -r) and read again after a while.  Prints "name value unit":
#   sched_cycle_us_cons_tres / sched_cycle_us_nodeshare   sdiag's mean main
#                                                         scheduler cycle
#   sched_cycle_ratio       nodeshare / cons_tres  (target: at most 1.10)
#   bf_cycle_us_*, bf_cycle_ratio   the same for the backfill cycle
# Needs root, Slurm and the select plugin; otherwise prints why it skips.
# Knobs: NS_BENCH_NODES (16), NS_BENCH_QUEUED (500), NS_BENCH_SECONDS (40),
# NS_BENCH_ROUNDS (2: cons_tres, nodeshare, nodeshare, cons_tres, ...).

builddir=${1:-.}
builddir=$(cd "$builddir" && pwd)
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top_srcdir/tests/slurm/lib.sh"

nodes=${NS_BENCH_NODES:-16}
queued=${NS_BENCH_QUEUED:-500}
seconds=${NS_BENCH_SECONDS:-40}
rounds=${NS_BENCH_ROUNDS:-2}
plugin=$builddir/select/.libs/select_cons_tres_nodeshare.so
mktool=$builddir/cmd/nodeshare-plugindir

skip () {
    echo "sched_cycle_ratio skipped ($*)"
    exit 0
}
ns_cluster_can_run >/dev/null || skip "$(ns_cluster_can_run)"
[ -f "$plugin" ] || skip "select plugin not built: configure --with-slurm-source"

scratch=$(mktemp -d /tmp/nsbench.XXXXXX) || exit 1
chmod 755 "$scratch"
trap 'ns_cluster_stop >/dev/null; rm -rf "$scratch"' EXIT
trap 'exit 1' INT TERM HUP
mkdir -p "$scratch/bin"
for p in lmp_serial abq_std; do
    cp /bin/sleep "$scratch/bin/$p" && chmod 755 "$scratch/bin/$p"
done
"$mktool" --quiet --plugin "$plugin" "$scratch/plugins" || exit 1

# sdiag_mean SECTION: "Mean cycle" of the main scheduler or of backfill.
sdiag_mean () {
    sdiag 2>/dev/null | awk -v sec="$1" '
        /^Main schedule statistics/ { s = "main" }
        /^Backfilling stats/ { s = "bf" }
        s == sec && /Mean cycle:/ { print $3; exit }'
}
sdiag_cycles () {
    sdiag 2>/dev/null | awk -v sec="$1" '
        /^Main schedule statistics/ { s = "main" }
        /^Backfilling stats/ { s = "bf" }
        s == sec && /Total cycles:/ { print $3; exit }'
}

# measure SELECTTYPE PLUGINDIR: writes "MAIN_US BF_US MAIN_CYCLES BF_CYCLES"
# to $scratch/result (not a subshell: the EXIT trap must see the cluster).
measure () {
    local i prog id t running
    NS_SELECTTYPE=$1
    NS_PLUGINDIR=$2
    NS_CLUSTER_DIR=$scratch/cluster
    NS_SLURM_DEBUG=info
    NS_SLURM_CONF_EXTRA="SchedulerParameters=batch_sched_delay=0,sched_interval=1,bf_interval=5"
    export NS_SELECTTYPE NS_PLUGINDIR NS_CLUSTER_DIR NS_SLURM_DEBUG NS_SLURM_CONF_EXTRA
    rm -rf "$NS_CLUSTER_DIR"
    mkdir -p "$NS_CLUSTER_DIR"
    printf '{ "identity": { "patterns": [ { "match": "lmp*", "program": "LAM" },
      { "match": "abq*", "program": "ABQ" } ] } }\n' >"$NS_CLUSTER_DIR/nodeshare.json"
    ns_cluster_start "$nodes" 24 >&2 || return 1
    i=0
    while [ "$i" -lt $((nodes + queued)) ]; do
        if [ $((i % 2)) -eq 0 ]; then prog=lmp_serial; else prog=abq_std; fi
        sbatch -Q -D "$NS_CLUSTER_DIR/work" -o /dev/null -n 24 -t 60 \
            --wrap "exec $scratch/bin/$prog 3600" >/dev/null || return 1
        i=$((i + 1))
    done
    t=0
    running=0
    while [ "$t" -lt 300 ]; do
        running=$(squeue -h -t RUNNING -o %i | wc -l)
        [ "$running" -ge "$nodes" ] && break
        sleep 0.2
        t=$((t + 1))
    done
    echo "# $NS_SELECTTYPE: $running running, $(squeue -h -t PENDING -o %i | wc -l) pending" >&2
    sleep 3
    sdiag -r >/dev/null 2>&1
    sleep "$seconds"
    echo "$(sdiag_mean main) $(sdiag_mean bf) $(sdiag_cycles main) $(sdiag_cycles bf)" \
        >"$scratch/result"
    ns_cluster_stop >/dev/null
}

stock_dir=$(ns_slurm_plugindir)
sum_s=0 sum_n=0 bf_s=0 bf_n=0 cyc_s=0 cyc_n=0
r=0
while [ "$r" -lt "$rounds" ]; do
    # ABBA order: drift (page cache, other load) hits both sides alike.
    if [ $((r % 2)) -eq 0 ]; then order="stock ns"; else order="ns stock"; fi
    for which in $order; do
        if [ "$which" = stock ]; then
            measure select/cons_tres "$stock_dir" || skip "the stock cluster did not start"
        else
            measure select/cons_tres_nodeshare "$scratch/plugins" || skip "the nodeshare cluster did not start"
        fi
        set -- $(cat "$scratch/result")
        echo "# round $((r + 1)) $which: main mean ${1:-?} us over ${3:-?} cycles, backfill mean ${2:-?} us over ${4:-?} cycles" >&2
        if [ "$which" = stock ]; then
            sum_s=$((sum_s + ${1:-0})); bf_s=$((bf_s + ${2:-0})); cyc_s=$((cyc_s + ${3:-0}))
        else
            sum_n=$((sum_n + ${1:-0})); bf_n=$((bf_n + ${2:-0})); cyc_n=$((cyc_n + ${3:-0}))
        fi
    done
    r=$((r + 1))
done

[ "$cyc_s" -gt 0 ] && [ "$cyc_n" -gt 0 ] || skip "no scheduler cycles measured"
awk -v s="$sum_s" -v n="$sum_n" -v bs="$bf_s" -v bn="$bf_n" -v r="$rounds" \
    -v nodes="$nodes" -v q="$queued" 'BEGIN {
    printf "sched_cycle_us_cons_tres %.0f us\n", s / r
    printf "sched_cycle_us_nodeshare %.0f us\n", n / r
    printf "sched_cycle_ratio %.3f ratio (%d jobs queued on %d nodes; target <= 1.10)\n", n / s, q, nodes
    if (bs > 0) {
        printf "bf_cycle_us_cons_tres %.0f us\n", bs / r
        printf "bf_cycle_us_nodeshare %.0f us\n", bn / r
        printf "bf_cycle_ratio %.3f ratio\n", bn / bs
    }
}'
