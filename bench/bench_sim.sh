#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench_sim.sh - replay the full RICC-2010-2 trace (447,794 jobs, 1024 nodes
# x 8 cores) under each policy and print "name value unit" lines: jobs per
# second of replay, its wall time, and the peak memory of the process (one
# policy thread at a time: --jobs 1; --replay-all: a sharing policy whose
# schedule is pack's on RICC is replayed all the same); then the wall time
# of all eight policies in one run with --jobs 2, as a user runs it (the
# sharing policies take pack's replay) and with --replay-all.  Each figure is the median of
# NS_BENCH_SIM_ROUNDS runs (default 3; peak memory: the largest).  Also the KTH fidelity figure: simulated exclusive
# + EASY mean wait next to the mean of the waits the trace recorded (KTH
# ran EASY in production).  With NS_BENCH_TRACE (bench/bench_trace, as
# `make bench` sets it), first the reading of RICC alone: its elapsed
# time and the CPU time of its two threads (parsing, inflating).
# The traces are not shipped; they are looked for in $NS_TRACES, else
# ../shared/traces next to the source tree.
sim=${1:-./nodeshare-sim}
srcdir=${top_srcdir:-$(dirname "$0")/..}
traces=${NS_TRACES:-$srcdir/../shared/traces}
ricc=$traces/RICC-2010-2.swf.gz
kth=$traces/KTH-SP2-1996-2.1-cln.swf.gz

field () {  # FILE KEY [NTH]: the NTH value of "KEY": in the JSON
    grep "\"$2\":" "$1" | sed -n "${3:-1}p" | sed 's/.*: *//; s/,$//'
}

if [ ! -f "$ricc" ]; then
    echo "bench_sim: $ricc not found: set NS_TRACES (skipping)" >&2
    exit 0
fi
if [ -n "${NS_BENCH_TRACE:-}" ]; then
    "$NS_BENCH_TRACE" ricc "$ricc" || exit 1
fi
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
# keep:user27: the busiest user of RICC (programs are users: no executables)
# pack: what stock Slurm (select/cons_tres) does, the default baseline;
# --jobs 1: the baseline runs before the policy, not next to it, so that
# wall_s is the policy's alone.
rounds=${NS_BENCH_SIM_ROUNDS:-3}
median () {     # the median of the numbers on stdin
    sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
for policy in pack exclusive spread mixed twins same min-slowdown keep:user27
do
    walls= rss=0
    r=0
    while [ $r -lt "$rounds" ]; do
        "$sim" -q --jobs 1 --replay-all -p "$policy" --json "$out" "$ricc" \
            >/dev/null 2>"$err"
        rc=$?
        [ $rc = 0 ] || { cat "$err" >&2; exit 1; }
        jobs=$(field "$out" jobs_used)
        # the run of $policy is the last entry (the baseline runs first)
        n=$(grep -c '"wall_s":' "$out")
        walls="$walls $(field "$out" wall_s "$n")"
        rss=$(awk -v a="$rss" -v b="$(field "$out" peak_rss_mb)" \
              'BEGIN { print (b > a ? b : a) }')
        r=$((r + 1))
    done
    wall=$(echo $walls | tr ' ' '\n' | median)
    name=$(echo "$policy" | tr ':-' '__')
    awk -v j="$jobs" -v w="$wall" -v n="$name" \
        'BEGIN { printf "sim_ricc_jobs_per_s_%s %.0f jobs/s\n", n, j / w }'
    awk -v w="$wall" -v n="$name" \
        'BEGIN { printf "sim_ricc_seconds_%s %.2f s\n", n, w }'
    echo "sim_ricc_peak_rss_$name $rss MB"
done
# All eight policies side by side, two at a time (--jobs 2): the wall
# time an administrator waits for the whole comparison; then the same
# with every policy replayed (--replay-all).
all_eight () {  # NAME [OPTION]: the median wall time of NS_BENCH_SIM_ROUNDS
    walls=
    r=0
    while [ $r -lt "$rounds" ]; do
        t0=$(date +%s.%N)
        "$sim" -q --jobs 2 ${2:+"$2"} \
            -p pack,exclusive,spread,mixed,twins,same,min-slowdown,keep:user27 \
            "$ricc" >/dev/null 2>"$err" || { cat "$err" >&2; exit 1; }
        t1=$(date +%s.%N)
        walls="$walls $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
        r=$((r + 1))
    done
    echo $walls | tr ' ' '\n' | median | awk -v n="$1" \
        '{ printf "%s %.2f s\n", n, $1 }'
}
all_eight sim_ricc_all_policies_jobs2_wall_s
all_eight sim_ricc_all_policies_jobs2_replay_all_wall_s --replay-all
if [ -f "$kth" ]; then
    # KTH's nodes have one core: stderr has the note that says so.
    "$sim" -q --jobs 1 -p exclusive --baseline exclusive -b easy \
        --json "$out" "$kth" >/dev/null 2>"$err" || { cat "$err" >&2; exit 1; }
    echo "sim_kth_easy_mean_wait_s $(field "$out" mean_wait_s) s"
    echo "sim_kth_recorded_mean_wait_s $(field "$out" recorded_mean_wait_s) s"
fi
