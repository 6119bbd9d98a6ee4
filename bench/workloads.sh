#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# workloads.sh - one Markdown table of what the policies do to real
# workloads: KTH SP2, NASA iPSC/860 and RICC, under pack (stock Slurm),
# exclusive and twins (nodeshare's default), plus the closed study
# experiment.  Every figure comes from `nodeshare-sim --json`; each row
# names the command that produced it.
#
# Machines.  RICC: its header's 1024 nodes x 8 cores.  KTH and NASA: their
# headers say 100 x 1 and 128 x 1 processors (MaxNodes = MaxProcs): with
# one core per node nothing can be shared or striped, and the policies
# differ only in which nodes they pick (which EASY backfilling can feel),
# so they are replayed as given and again on nodes of 4 cores, 25 x 4
# and 32 x 4.  Why 4 (zcat TRACE | awk on field
# 5, the processors of each job):
#   - a node that can be shared needs at least 2 cores, and twins stripes
#     a job over twice its nodes with half of each node's cores: an even
#     number;
#   - the machine keeps its processors (100 and 128), so the trace offers
#     the same load; 4 is the largest node size that divides both 100 and
#     128, and every job still fits (100 = 25 nodes, 128 = 32 nodes);
#   - KTH (28,475 jobs, 1 to 100 processors, any count): 32.9% use one
#     processor and 13.4% two, 46.3% in all, which fit in half a 4-core
#     node and can pair; 31.3% are multiples of 4 and fill whole nodes
#     under pack; 16.7% are odd counts above 1 and leave a core free.
#     No node size divides most KTH jobs (only 50% are even).
#   - NASA (18,239 jobs): every job is a power of two, 1 to 128 (a
#     hypercube): 27.1% use 1 processor and 9.7% use 2 (these can share a
#     4-core node), and 63.3% are multiples of 4, whole nodes.
# The programs are the traces' users or executables, which the built-in
# configuration does not name: they run at the model's defaults (no
# speedup, no slowdown), so the differences come from placement alone.
usage () {
    cat <<'EOT'
Usage: bench/workloads.sh [BUILD_DIR]
Replay KTH, NASA and RICC under pack, exclusive and twins with the
nodeshare-sim of BUILD_DIR (default: . if it has nodeshare-sim, else
_build) and print a Markdown table: mean wait, p95 wait, mean bounded
slowdown, makespan, utilisation (held by the policy, used by the jobs)
and throughput against the baseline, with
the command of each row; then the closed study experiment (twins'
throughput against exclusive).
Traces are looked for in $NS_TRACES, else ../shared/traces next to the
source tree, else /work/shared/traces.  A missing trace is reported and
left out.
EOT
}

case ${1:-} in
-h|--help) usage; exit 0 ;;
-*) usage >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${1:-}" ]; then
    build=$1
elif [ -x ./nodeshare-sim ]; then
    build=.
else
    build=_build
fi
sim=$(cd "$build" 2>/dev/null && pwd)/nodeshare-sim
if [ ! -x "$sim" ]; then
    echo "workloads.sh: no nodeshare-sim in '$build': give the build dir" >&2
    exit 2
fi
if [ -n "${NS_TRACES:-}" ]; then
    traces=$NS_TRACES
elif [ -d "$here/../shared/traces" ]; then
    traces=$here/../shared/traces
else
    traces=/work/shared/traces
fi
traces=$(cd "$traces" 2>/dev/null && pwd) || {
    echo "workloads.sh: no trace directory: set NS_TRACES" >&2
    exit 2
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# pack: stock Slurm, the baseline of trace replays.
policies=pack,exclusive,twins

# rows JSON: one tab-separated line per policy: policy, mean wait, p95
# wait, mean bsld, makespan_s, utilization (used), utilization_held,
# throughput_ratio; first the
# input's nodes, cores, baseline and note (null or a string) as
# "#KEY<tab>VALUE" lines.
rows () {
    awk '
    function val(line) {
        sub(/^[^:]*: */, "", line); sub(/,$/, "", line)
        gsub(/"/, "", line)
        return line
    }
    /^    "nodes":/ { print "#nodes\t" val($0) }
    /^    "cores":/ { print "#cores\t" val($0) }
    /^    "baseline":/ { print "#baseline\t" val($0) }
    /^    "note":/ { print "#note\t" val($0) }
    /"policy":/ { pol = val($0) }
    /"mean_wait_s":/ { w = val($0) }
    /"p95_wait_s":/ { p95 = val($0) }
    /"mean_bsld":/ { b = val($0) }
    /"makespan_s":/ { ms = val($0) }
    /"utilization":/ { u = val($0) }
    /"utilization_held":/ { uh = val($0) }
    /"throughput_ratio":/ { thr = val($0) }
    /"wall_s":/ {
        print pol "\t" w "\t" p95 "\t" b "\t" ms "\t" u "\t" uh "\t" thr
    }
    ' "$1"
}

# input ROWS KEY: a "#KEY" value of rows.
input () {
    awk -F '	' -v k="#$2" '$1 == k { print $2 }' "$1"
}

# run NAME FROM ARGS...: one nodeshare-sim run, in the trace directory so
# that the command shown is the one run; rows appended to $tmp/table.
# FROM says where the machine size comes from ("header" or "").
failed=0
run () {
    name=$1 from=$2
    shift 2
    cmd="nodeshare-sim -q -p $policies --json - $*"
    if ! (cd "$traces" && "$sim" -q -p "$policies" --json - "$@") \
        >"$tmp/out.json" 2>"$tmp/err"; then
        echo "workloads.sh: $cmd failed:" >&2
        cat "$tmp/err" >&2
        failed=1
        return
    fi
    rows "$tmp/out.json" >"$tmp/rows"
    machine="$(input "$tmp/rows" nodes) x $(input "$tmp/rows" cores)"
    [ -n "$from" ] && machine="$machine ($from)"
    [ "$(input "$tmp/rows" note)" != null ] && machine="$machine ¹"
    grep -v '^#' "$tmp/rows" | while IFS='	' read -r pol w p95 b ms u uh thr
    do
        awk -v t="$name" -v m="$machine" -v p="$pol" -v w="$w" -v q="$p95" \
            -v b="$b" -v ms="$ms" -v u="$u" -v uh="$uh" -v thr="$thr" \
            -v c="$cmd" '
            BEGIN {
                r = thr == "null" ? "-" : sprintf("%.3f", thr)
                printf "| %s | %s | %s | %.0f | %.0f | %.2f | %.1f | %.3f " \
                       "| %.3f | %s | `%s` |\n", t, m, p, w, q, b, ms / 3600,
                       uh, u, r, c
            }'
    done >>"$tmp/table"
    input "$tmp/rows" baseline >"$tmp/baseline"
}

kth=KTH-SP2-1996-2.1-cln.swf.gz
nasa=NASA-iPSC-1993-3.1-cln.swf.gz
ricc=RICC-2010-2.swf.gz
: >"$tmp/table"
for t in $kth $nasa $ricc; do
    if [ ! -f "$traces/$t" ]; then
        echo "workloads.sh: $traces/$t not found (left out)" >&2
        continue
    fi
    case $t in
    KTH*)
        run KTH header "$t"
        run KTH "" --nodes 25 --cores 4 "$t" ;;
    NASA*)
        run NASA header "$t"
        run NASA "" --nodes 32 --cores 4 "$t" ;;
    RICC*)
        run RICC header "$t" ;;
    esac
done

echo "## nodeshare-sim on real workloads"
echo
echo "nodeshare-sim $("$sim" --version | sed 's/.* //'); commands run in" \
     "\`$traces\` with \`nodeshare-sim\` = \`$sim\`."
echo "EASY backfilling; waits and makespan in simulated time; bsld: bounded"
echo "slowdown (runtime floor 10 s); thr: work per hour relative to" \
     "$(cat "$tmp/baseline" 2>/dev/null || echo "the baseline")."
echo
echo "| trace | nodes x cores | policy | mean wait (s) | p95 wait (s) |" \
     "mean bsld | makespan (h) | held | used | thr | command |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"
cat "$tmp/table"
if grep -q '¹' "$tmp/table"; then
    echo
    echo "¹ One core per node (trace header MaxNodes = MaxProcs): no policy"
    echo "can share or stripe a node; the policies differ only in which nodes"
    echo "they pick, which changes what EASY backfilling can start."
fi

# The closed study experiment: ABQ, LAM and LSD at load 1.0 on the
# closed experiment's default machine, exclusive against twins.
echo
echo "| experiment | nodes x cores | policy | thr vs exclusive | command |"
echo "|---|---|---|---:|---|"
cmd="nodeshare-sim -q --closed 1.0 -p exclusive,twins --json -"
if "$sim" -q --closed 1.0 -p exclusive,twins --json - >"$tmp/out.json" \
    2>"$tmp/err"; then
    rows "$tmp/out.json" >"$tmp/rows"
    machine="$(input "$tmp/rows" nodes) x $(input "$tmp/rows" cores)"
    awk -F '\t' -v m="$machine" -v c="$cmd" '$1 == "twins" {
        printf "| closed study (ABQ, LAM, LSD), load 1.0 | %s | %s | %.3f " \
               "| `%s` |\n", m, $1, $8, c }' "$tmp/rows"
else
    echo "workloads.sh: $cmd failed:" >&2
    cat "$tmp/err" >&2
    failed=1
fi
exit $failed
