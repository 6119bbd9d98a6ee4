#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slurm/sweep.sh - a sweep as a Slurm job array (TAP)
#
# The 12-cell sweep of tests/cmd/sweep.sh (KTH and NASA x two machines x
# three values of fallback_after, pack and twins, 400 jobs each) runs
# here with `nodeshare-sim --sweep FILE`, then, from a copy of the file,
# with `--sweep FILE --slurm` on a loopback cluster of 3 x 4 cores (stock
# select/cons_tres): a job array of 12 tasks and a collect job after it
# (afterany).  Checks: the merged table of the collect job is byte for
# byte the local run's; a deleted cell is the only task of the next
# array, and the table comes back the same; with every cell done nothing
# is submitted; a sweep with a failing cell still gets its collect job,
# which reports the cell as FAILED with its error.  The traces are looked
# for in $NS_TRACES, else ../shared/traces beside the source tree;
# without them the script is skipped, as it is without root or Slurm.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
. "$top_srcdir/tests/slurm/lib.sh"

ns_cluster_can_run >/dev/null || tap_skip_all "$(ns_cluster_can_run)"
traces=${NS_TRACES:-$top_srcdir/../shared/traces}
kth=$traces/KTH-SP2-1996-2.1-cln.swf.gz
nasa=$traces/NASA-iPSC-1993-3.1-cln.swf.gz
[ -f "$kth" ] && [ -f "$nasa" ] || tap_skip_all "traces not found in $traces"
sim=$top_builddir/nodeshare-sim
[ -x "$sim" ] || tap_skip_all "$sim not built"

scratch=$(mktemp -d /tmp/nssweep.XXXXXX) || exit 1
chmod 755 "$scratch"
cleanup () {
    ns_cluster_stop
    if [ "${_ns_tap_failed:-0}" -eq 0 ] && [ "${NS_CLUSTER_KEEP:-0}" != 1 ]; then
        rm -rf "$scratch"
    else
        echo "# sweep files kept in $scratch"
    fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

sweep_file () {   # TRACE... (absolute paths)
    local t list
    list=
    for t in "$@"; do
        list="$list${list:+, }\"$t\""
    done
    cat <<EOF
// written by tests/slurm/sweep.sh
{
  "traces": [ $list ],
  "machines": [ { "nodes": 32, "cores": 4 }, { "nodes": 16, "cores": 8 } ],
  "policies": [ "pack", "twins" ],
  "vary": { "fallback_after": [ 0, 600, -1 ] },
  "options": { "max_jobs": 400, "assign_classes": true },
  "output": "out",
  "sbatch": [ "--time=10" ]
}
EOF
}

mkdir -p "$scratch/local" "$scratch/slurm"
sweep_file "$kth" "$nasa" >"$scratch/local/sweep.json"
cp "$scratch/local/sweep.json" "$scratch/slurm/sweep.json"

"$sim" -q -j 2 --sweep "$scratch/local/sweep.json" >"$scratch/local.out" \
    2>"$scratch/local.err"
tap_ok $? "local run of the 12-cell sweep: exit 0" ||
    tap_diag "$(cat "$scratch/local.err")"
tap_like "$(head -1 "$scratch/local/out/sweep.txt")" \
    '^sweep: 12 cells .*: 12 done, 0 failed, 0 not run$' \
    "  out/sweep.txt: 12 done"

ns_cluster_start 3 4
tap_ok $? "cluster of 3 nodes x 4 cores starts" || tap_done

# submit FILE: --slurm; sets array and collect (job ids) from its output.
submit () {
    "$sim" --sweep "$1" --slurm >"$scratch/submit.out" 2>"$scratch/submit.err"
    rc=$?
    array=$(sed -n 's/^sweep: .* submitted: job array \([0-9]*\) .*/\1/p' \
            "$scratch/submit.out")
    collect=$(sed -n 's/^sweep: collect: job \([0-9]*\),.*/\1/p' \
              "$scratch/submit.out")
    sed 's/^/#   /' "$scratch/submit.out" "$scratch/submit.err"
    return $rc
}

# finished JOBID STATE...: the job ended in one of STATEs (120 s at most).
finished () {
    local id t st want
    id=$1; shift
    t=0
    while [ "$t" -lt 600 ]; do
        st=$(ns_job_field "$id" JobState)
        for want in "$@"; do
            [ "$st" = "$want" ] && return 0
        done
        case $st in
            COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY)
                echo "# job $id: $st"; return 1 ;;
        esac
        sleep 0.2
        t=$((t + 1))
    done
    echo "# job $id: still $st after 120 s"
    return 1
}

submit "$scratch/slurm/sweep.json"
tap_ok $? "--slurm: exit 0"
tap_like "$(cat "$scratch/submit.out")" \
    "^sweep: 12 of 12 cells submitted: job array [0-9]+ \(0-11\)" \
    "  a job array of the 12 cells (0-11)"
tap_like "$collect" '^[0-9]+$' "  and a collect job ($collect)"
tap_like "$(ns_job_field "$collect" Dependency)" "afterany:${array}" \
    "  the collect job runs after the array (afterany:$array)"
tap_like "$(cat "$scratch/slurm/out/sweep.sbatch")" '#SBATCH --time=10' \
    "  sweep.sbatch has the sweep file's #SBATCH lines"
finished "$collect" COMPLETED
tap_ok $? "the collect job completes"
n=$(ls "$scratch"/slurm/out/*/result.json 2>/dev/null | wc -l)
tap_is "$n" 12 "12 cell results"
cmp "$scratch/local/out/sweep.txt" "$scratch/slurm/out/sweep.txt" \
    >/dev/null 2>&1
tap_ok $? "the merged table is byte for byte the local run's" ||
    diff "$scratch/local/out/sweep.txt" "$scratch/slurm/out/sweep.txt" |
        head -20 | sed 's/^/#   /'
log=$(ls "$scratch"/slurm/out/slurm/collect-*.out 2>/dev/null | head -1)
tap_like "$(cat "$log" 2>/dev/null)" '12 done, 0 failed' \
    "  the collect job's output has the table"

# Resumed: a deleted cell is run again, and only it.
cell=$(cd "$scratch/slurm/out" && ls -d 005-* | head -1)
rm -rf "$scratch/slurm/out/$cell"
submit "$scratch/slurm/sweep.json"
tap_like "$(cat "$scratch/submit.out")" \
    "^sweep: 1 of 12 cells submitted: job array [0-9]+ \(5\)" \
    "resumed: only the deleted cell 5 is submitted"
finished "$collect" COMPLETED
tap_ok $? "  its collect job completes"
cmp "$scratch/local/out/sweep.txt" "$scratch/slurm/out/sweep.txt" \
    >/dev/null 2>&1
tap_ok $? "  the merged table is the local run's again"

submit "$scratch/slurm/sweep.json"
tap_ok $? "every cell done: --slurm exits 0"
tap_like "$(cat "$scratch/submit.err")" "all 12 cells are done: nothing to submit" \
    "  and submits nothing"

# A failing cell: its task fails, the collect job still runs and says so.
mkdir -p "$scratch/bad"
: >"$scratch/bad/empty.swf"
sweep_file "$nasa" "$scratch/bad/empty.swf" >"$scratch/bad/sweep.json"
submit "$scratch/bad/sweep.json"
tap_like "$(cat "$scratch/submit.out")" "12 of 12 cells submitted" \
    "a sweep with an empty trace: 12 cells submitted"
finished "$collect" COMPLETED FAILED
tap_ok $? "  its collect job runs after the failed tasks"
tap_is "$(ns_job_field "$collect" ExitCode)" "1:0" \
    "  and exits 1 (cells have no result)"
tap_is "$(grep -c '^FAILED .*empty trace, no jobs' "$scratch/bad/out/sweep.txt")" 6 \
    "  sweep.txt: the 6 cells of the empty trace FAILED, with the error"
tap_like "$(head -1 "$scratch/bad/out/sweep.txt")" '6 done, 6 failed, 0 not run' \
    "  and 6 done"

ns_cluster_stop
tap_done
